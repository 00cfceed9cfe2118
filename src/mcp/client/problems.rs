//! The problems a served prompt library (`mcpick serve`) reports about its files, read
//! from the `_meta` of its first `prompts/list` page ([`PROBLEMS_META_KEY`]).

use std::sync::Mutex;

use serde_json::{Map, Value};

use crate::mcp::log::ServerLog;
use crate::model::{
    LogLine, MAX_PROBLEMS_LISTED, PROBLEMS_LEFT_OUT_META_KEY, PROBLEMS_META_KEY, ServedProblem,
};
use crate::secrets::Secrets;

/// The problems of the last full list, kept by the connection.
#[derive(Debug, Default)]
pub(in crate::mcp) struct ServedProblems {
    last: Mutex<Vec<ServedProblem>>,
}

/// The problems a list result's `_meta` holds (entries that are no problem are skipped),
/// with one more saying how many the server left out, if it did.
pub(in crate::mcp) fn read(meta: Option<&Map<String, Value>>) -> Vec<ServedProblem> {
    let Some(meta) = meta else {
        return Vec::new();
    };
    let mut problems: Vec<ServedProblem> = meta
        .get(PROBLEMS_META_KEY)
        .and_then(Value::as_array)
        .map(|listed| {
            listed
                .iter()
                .take(MAX_PROBLEMS_LISTED)
                .filter_map(|p| serde_json::from_value(p.clone()).ok())
                .collect()
        })
        .unwrap_or_default();
    if let Some(left_out) = meta.get(PROBLEMS_LEFT_OUT_META_KEY).and_then(Value::as_u64)
        && left_out > 0
    {
        problems.push(ServedProblem {
            file: "…".into(),
            line: None,
            error: format!("and {left_out} more (the server's log lists them all)"),
        });
    }
    problems
}

impl ServedProblems {
    /// Keeps the problems of a new list, masked. Those not in the last list go to the
    /// server's log as warnings when `to_log` (a legacy server already sends them as log
    /// messages, a 2026-07-28 one cannot), and are returned as the lines to show.
    pub(in crate::mcp) fn replace(
        &self,
        problems: Vec<ServedProblem>,
        secrets: &Secrets,
        log: &ServerLog,
        to_log: bool,
    ) -> Vec<LogLine> {
        let problems: Vec<ServedProblem> = problems
            .into_iter()
            .map(|p| ServedProblem {
                file: secrets.mask(&p.file).into_owned(),
                line: p.line,
                error: secrets.mask(&p.error).into_owned(),
            })
            .collect();
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        let mut lines = Vec::new();
        if to_log {
            for problem in problems.iter().filter(|p| !last.contains(p)) {
                lines.push(log.push("warning", &problem.to_string()));
            }
        }
        *last = problems;
        lines
    }

    /// The problems of the last list.
    pub(in crate::mcp) fn current(&self) -> Vec<ServedProblem> {
        self.last.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn problems_are_read_from_the_meta_and_new_ones_logged_once() {
        let meta = json!({
            PROBLEMS_META_KEY: [
                {"file": "a.md", "line": 3, "error": "front matter: bad (file skipped)"},
                {"file": "b.md", "error": "key sk-1 broken"},
                "not a problem",
                {"line": 1}
            ],
            PROBLEMS_LEFT_OUT_META_KEY: 7,
        });
        let problems = read(meta.as_object());
        let shown: Vec<String> = problems.iter().map(ToString::to_string).collect();
        assert_eq!(
            shown,
            [
                "a.md:3: front matter: bad (file skipped)",
                "b.md: key sk-1 broken",
                "…: and 7 more (the server's log lists them all)",
            ]
        );
        assert!(read(None).is_empty());
        assert!(read(json!({"other": 1}).as_object()).is_empty());

        let kept = ServedProblems::default();
        let log = ServerLog::default();
        let secrets = Secrets::new(["sk-1".to_string()]);
        let lines = kept.replace(problems.clone(), &secrets, &log, true);
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[1].source, "warning");
        assert_eq!(lines[1].text, "b.md: key ‹hidden› broken");
        assert_eq!(kept.current()[1].error, "key ‹hidden› broken");
        // The same problems again: nothing new to log.
        assert!(
            kept.replace(problems.clone(), &secrets, &log, true)
                .is_empty()
        );
        // A legacy server logs them itself.
        let legacy = ServedProblems::default();
        assert!(legacy.replace(problems, &secrets, &log, false).is_empty());
        assert_eq!(legacy.current().len(), 3);
    }
}
