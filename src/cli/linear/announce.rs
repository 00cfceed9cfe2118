//! Announcements: what the full screen shows in its status bar (a server ready late or
//! failed, a list that changed, a notice), as one line each, never said twice, and held
//! back while a value is typed: they are said just before the next prompt line.

use crate::mcp::McpEvent;
use crate::text::{counted, one_line};

/// The lines waiting to be said, and those said already.
#[derive(Debug, Default)]
pub(super) struct News {
    waiting: Vec<String>,
    said: std::collections::HashSet<String>,
}

impl News {
    /// Queues `line` unless it was said (or queued) before.
    pub(super) fn add(&mut self, line: String) {
        if self.said.insert(line.clone()) {
            self.waiting.push(line);
        }
    }

    /// The lines to say now, oldest first; they are not given again.
    pub(super) fn take(&mut self) -> Vec<String> {
        std::mem::take(&mut self.waiting)
    }
}

/// What the menu is told of an event, when anything: `from_catalog` when the prompts of a
/// `Ready` come from the catalog of an earlier run, `menu_shown` once the menu was read out
/// (a server ready after that is late, and the way to its prompts is said).
pub(super) fn line_for(event: &McpEvent, from_catalog: bool, menu_shown: bool) -> Option<String> {
    let name = |server: &str| one_line(server);
    Some(match event {
        McpEvent::Ready {
            server, prompts, ..
        } => {
            let mut line = format!(
                "Server {} is ready: {}",
                name(server),
                counted(prompts.len(), "prompt", "prompts")
            );
            if from_catalog {
                line.push_str(", from the catalog of an earlier run");
            }
            line.push('.');
            if menu_shown {
                line.push_str(" Type all to hear the whole list again.");
            }
            line
        }
        McpEvent::PromptsChanged { server, prompts } => format!(
            "Server {}'s prompt list changed: now {}. Type all to hear the whole list again.",
            name(server),
            counted(prompts.len(), "prompt", "prompts")
        ),
        McpEvent::ListStale { server, reason } => format!(
            "Server {}'s list could not be fetched again ({}); its prompts may be out of date.",
            name(server),
            one_line(reason)
        ),
        McpEvent::Restarting {
            server,
            attempt,
            of,
            delay,
        } => format!(
            "Server {} stopped; starting it again in {} seconds (attempt {attempt} of {of}).",
            name(server),
            delay.as_secs().max(1)
        ),
        McpEvent::Failed { server, error, .. } => format!(
            "Server {} failed: {}",
            name(server),
            super::words::sentence(&error.to_string())
        ),
        McpEvent::Warning { server, text } => {
            format!("Server {}: {}", name(server), super::words::sentence(text))
        }
        McpEvent::Connecting { .. }
        | McpEvent::FromCatalog { .. }
        | McpEvent::ServedProblemsChanged { .. }
        | McpEvent::LogSnapshot { .. }
        | McpEvent::Log { .. } => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_said_once_however_often_it_comes() {
        let mut news = News::default();
        news.add("Server a is ready: 1 prompt.".into());
        news.add("Server a is ready: 1 prompt.".into());
        assert_eq!(news.take().len(), 1);
        news.add("Server a is ready: 1 prompt.".into());
        assert!(news.take().is_empty());
    }

    #[test]
    fn a_changed_list_says_how_to_hear_it() {
        let changed = McpEvent::PromptsChanged {
            server: "slow".into(),
            prompts: Vec::new(),
        };
        assert_eq!(
            line_for(&changed, false, true).unwrap(),
            "Server slow's prompt list changed: now 0 prompts. Type all to hear the whole list again."
        );
    }
}
