//! The review's guard on what an export carries: control characters and hidden ones,
//! counted with whose they are, asked about before the first export, and stripped by `x`.

use super::{Outcome, ReviewState, editable_text, set_text};
use crate::app::keys::Action;
use crate::model::Role;

impl ReviewState {
    /// How many control characters the messages' texts hold, with the role names a server
    /// made up (the markdown and text exports write those as they are too).
    pub fn control_count(&self) -> usize {
        self.marked_count(crate::text::control_count)
    }

    /// How many hidden characters (invisible, carrying nothing visible) they hold.
    pub fn hidden_count(&self) -> usize {
        self.marked_count(crate::text::hidden_count)
    }

    /// `count` over each message's text and role name, summed.
    fn marked_count(&self, count: fn(&str) -> usize) -> usize {
        self.items
            .iter()
            .map(|i| {
                editable_text(&i.message().content).map_or(0, count)
                    + count(i.message().role.as_str())
            })
            .sum()
    }

    /// Removes the escape sequences and other control characters from every text: one
    /// undo step.
    pub(super) fn strip_controls(&mut self) -> usize {
        let count = self.control_count() + self.hidden_count();
        if count == 0 {
            return 0;
        }
        self.remember("the stripping of control characters");
        let marked = |text: &str| {
            crate::text::control_count(text) > 0 || crate::text::hidden_count(text) > 0
        };
        for item in &mut self.items {
            if let Role::Other(name) = &item.message().role
                && marked(name)
            {
                item.set_role(Role::from_name(&crate::text::strip_controls(name)));
            }
            if let Some(text) = editable_text(&item.message().content)
                && marked(text)
            {
                let mut content = item.message().content.clone();
                set_text(&mut content, crate::text::strip_controls(text));
                item.set_content(content);
            }
        }
        count
    }

    /// Before an export (`action`): the first one of messages holding control characters
    /// is held back with a question; the same action again exports them as they are.
    pub(super) fn hold_export(&mut self, action: Action) -> Option<Outcome> {
        if self.controls_accepted {
            return None;
        }
        if self.controls_armed == Some(action) {
            self.controls_armed = None;
            self.controls_accepted = true;
            return None;
        }
        let controls = self.control_count();
        let hidden = self.hidden_count();
        if controls + hidden == 0 {
            return None;
        }
        self.controls_armed = Some(action);
        let again = match action {
            Action::Accept => "Enter",
            Action::Copy => "y",
            _ => "s",
        };
        let what = match (controls, hidden) {
            (_, 0) => crate::text::counted(controls, "control character", "control characters"),
            (0, _) => crate::text::counted(hidden, "hidden character", "hidden characters"),
            _ => format!("{controls} control and {hidden} hidden characters"),
        };
        // Each kind is named when both are there.
        let both = controls > 0 && hidden > 0;
        let kinds = [
            (
                controls,
                crate::text::control_count as fn(&str) -> usize,
                "escape sequences",
            ),
            (hidden, crate::text::hidden_count, "hidden characters"),
        ];
        let whose: Vec<String> = kinds
            .into_iter()
            .filter(|&(count, _, _)| count > 0)
            .map(|(count, count_in, what)| self.whose(count, count_in, what, both))
            .collect();
        Some(Outcome::Warning(format!(
            // What to press first: a narrow status bar cuts the end.
            "{again} again exports as is, x strips the {what} first ({}).",
            whose.join("; ")
        )))
    }

    /// Whose the `count` characters of the messages that `count_in` counts are (`what`,
    /// as the server's are named), as far as can be told: the user's (in the values they
    /// gave, which a server echoes, or typed into the messages here) or the server's.
    /// `labelled`: `what` is named in every case (both kinds are in the warning).
    fn whose(
        &self,
        count: usize,
        count_in: fn(&str) -> usize,
        what: &str,
        labelled: bool,
    ) -> String {
        let sent: usize = self
            .original
            .messages
            .iter()
            .map(|m| editable_text(&m.content).map_or(0, count_in) + count_in(m.role.as_str()))
            .sum();
        let in_values: usize = self.arguments.values().map(|v| count_in(v)).sum();
        let yours = (count.saturating_sub(sent) + in_values.min(sent)).min(count);
        match (yours, count - yours) {
            (0, _) => format!("{what} from the server"),
            (_, 0) if labelled => format!("{what} yours: in what you typed or pasted"),
            (_, 0) => "yours: in what you typed or pasted".to_string(),
            (yours, theirs) => {
                let label = if labelled {
                    format!("{what}: ")
                } else {
                    String::new()
                };
                format!("{label}{yours} from what you typed or pasted, {theirs} from the server")
            }
        }
    }
}
