//! A review's messages as kept: each message with its layout, and the draft written to disk
//! while a review has unexported edits.

use std::collections::BTreeMap;

use ratatui::text::Line;

use crate::mcp::{Content, Message, PromptInfo, PromptMessages, Role};
use crate::render::rows::BodyLayout;

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
