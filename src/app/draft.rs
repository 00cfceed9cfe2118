//! A review's messages as kept: each message with its layout, and the draft written to disk
//! while a review has unexported edits.

use std::collections::BTreeMap;

use ratatui::text::Line;

use crate::model::{Content, Message, PromptInfo, PromptMessages, Role};
use crate::render::rows::BodyLayout;

/// Values typed into forms and left unsent (Esc, a crash), per prompt, so reopening the
/// prompt shows them again: nothing typed is lost. Kept in the data dir as
/// [`FormDrafts::FILE`], readable by its owner only; values whose argument looks like a
/// secret stay in memory only.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FormDrafts {
    /// Most recent first.
    #[serde(default)]
    pub forms: Vec<FormDraft>,
}

/// One prompt's unsent values.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FormDraft {
    /// The prompt's `server:name`.
    pub slash_name: String,
    /// Each argument's value as typed (empty ones included: a cleared field stays clear).
    pub values: BTreeMap<String, String>,
}

impl FormDrafts {
    /// The file name in the data dir.
    pub const FILE: &'static str = "form-drafts.json";
    /// How many prompts' unsent values are kept.
    const LIMIT: usize = 20;

    /// The unsent values of `slash_name`, if any.
    pub fn get(&self, slash_name: &str) -> Option<&BTreeMap<String, String>> {
        self.forms
            .iter()
            .find(|d| d.slash_name == slash_name)
            .map(|d| &d.values)
    }

    /// Keeps `values` as `slash_name`'s unsent ones (the most recent); returns whether
    /// anything changed.
    pub fn keep(&mut self, slash_name: &str, values: BTreeMap<String, String>) -> bool {
        if self
            .forms
            .first()
            .is_some_and(|d| d.slash_name == slash_name && d.values == values)
        {
            return false;
        }
        self.forms.retain(|d| d.slash_name != slash_name);
        self.forms.insert(
            0,
            FormDraft {
                slash_name: slash_name.to_string(),
                values,
            },
        );
        self.forms.truncate(Self::LIMIT);
        true
    }

    /// Forgets `slash_name`'s unsent values (they were sent); returns whether there were any.
    pub fn forget(&mut self, slash_name: &str) -> bool {
        let before = self.forms.len();
        self.forms.retain(|d| d.slash_name != slash_name);
        self.forms.len() != before
    }

    /// The file's text: secret-looking values left out (they are kept in memory only).
    pub fn to_json(&self) -> String {
        let mut saved = self.clone();
        for draft in &mut saved.forms {
            draft
                .values
                .retain(|name, value| !crate::secrets::env_value_is_secret(name, value));
        }
        serde_json::to_string(&saved).unwrap_or_default()
    }

    /// Reads the file's text; a damaged file is an error (it is left there).
    pub fn from_json(text: &str) -> Result<FormDrafts, String> {
        serde_json::from_str(text)
            .map_err(|e| format!("the unsent form values cannot be read ({e})"))
    }
}

/// A review kept on disk while it has unexported edits, to be restored after a crash.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Draft {
    /// The prompt.
    pub prompt: PromptInfo,
    /// Its `server:name`.
    pub slash_name: String,
    /// The arguments it was filled with.
    pub arguments: BTreeMap<String, String>,
    /// What the server returned.
    pub original: PromptMessages,
    /// The messages as edited (text still in the editor included).
    pub items: Vec<ReviewItem>,
    /// The message selected (the one being edited, if one was): selected again on restore.
    /// Absent in drafts written before it was kept: the first.
    #[serde(default)]
    pub selected: usize,
}

/// One message on the screen, with where it came from.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ReviewItem {
    /// The message as it is now (changed only through methods, which keep `layout` true).
    message: Message,
    /// Its index in what the server sent; `None` for an added message.
    pub origin: Option<usize>,
    /// Drawn as its raw text rather than rendered as Markdown (`m` switches).
    #[serde(skip)]
    raw: bool,
    /// Its body wrapped at the last width drawn.
    #[serde(skip)]
    layout: BodyLayout,
}

impl ReviewItem {
    /// `message`, from the server's message `origin` (`None`: added here).
    pub fn new(message: Message, origin: Option<usize>) -> ReviewItem {
        ReviewItem {
            message,
            origin,
            raw: false,
            layout: BodyLayout::default(),
        }
    }

    /// The message as it is now.
    pub fn message(&self) -> &Message {
        &self.message
    }

    /// Replaces the message's content.
    pub fn set_content(&mut self, content: Content) {
        self.message.content = content;
        self.layout = BodyLayout::default();
    }

    /// Replaces the whole message.
    pub fn set_message(&mut self, message: Message) {
        self.message = message;
        self.layout = BodyLayout::default();
    }

    /// Gives the message another role (its body stays as it is).
    pub fn set_role(&mut self, role: Role) {
        self.message.role = role;
    }

    /// Whether the body is drawn raw (`m` switches); a block Markdown does not render is
    /// drawn the same either way.
    pub fn is_raw(&self) -> bool {
        self.raw
    }

    /// Draws the body raw (`true`) or rendered.
    pub fn set_raw(&mut self, raw: bool) {
        self.raw = raw;
    }

    /// The body's rows at `width` columns, rendered or raw as the message is drawn, in
    /// colour (the draw takes the colours out under `NO_COLOR`): laid out once, then kept
    /// until the content, the width or the way it is drawn changes, so a 30 MB message
    /// costs its wrapping once, not every frame. Rows laid out before the highlighter
    /// loaded are laid out again once it has.
    pub fn rows(&self, width: usize) -> std::sync::Arc<Vec<Line<'static>>> {
        let style = crate::render::RowStyle {
            rendered: !self.raw,
            color: true,
        };
        self.layout.rows(&self.message.content, width, style)
    }

    /// The body's layout (its rows kept, and its whole layout asked for and put in place).
    pub fn layout(&self) -> &BodyLayout {
        &self.layout
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn unsent_values_are_kept_most_recent_first_without_secrets_on_disk() {
        let mut drafts = FormDrafts::default();
        assert!(drafts.keep("a:one", values(&[("text", "hello")])));
        assert!(
            !drafts.keep("a:one", values(&[("text", "hello")])),
            "unchanged"
        );
        assert!(drafts.keep("a:two", values(&[("api_key", "sk-123"), ("q", "x")])));
        assert_eq!(drafts.forms[0].slash_name, "a:two");
        let disk = FormDrafts::from_json(&drafts.to_json()).unwrap();
        assert_eq!(disk.get("a:two"), Some(&values(&[("q", "x")])));
        assert_eq!(
            drafts.get("a:two").unwrap()["api_key"],
            "sk-123",
            "in memory"
        );
        assert!(drafts.forget("a:one"));
        assert!(!drafts.forget("a:one"));
        for n in 0..30 {
            drafts.keep(&format!("a:{n}"), BTreeMap::new());
        }
        assert_eq!(drafts.forms.len(), FormDrafts::LIMIT);
        assert!(FormDrafts::from_json("{not json").is_err());
    }
}
