//! Server log lines and stderr as they arrive.

use crate::app::App;
use crate::app::logs::mcpick_line;

impl App {
    /// Notes one of mcpick's events about `server` in its logs (connecting, ready with
    /// its prompt count, failed with why, restarting, list changed): the pane tells each
    /// server's story, not only what the server itself wrote.
    pub(in crate::app) fn log_event(&mut self, server: &str, text: String) {
        let line = mcpick_line(text, self.now_ms);
        self.logs
            .entry(server.to_string())
            .or_default()
            .push_event(line);
    }
}
