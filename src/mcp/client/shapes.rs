//! What a server's results looked like on the wire, kept only when asked for: the fields
//! mcpick reads past (it treats a missing `resultType` as `complete`, a bad `ttlMs` as 0)
//! but `mcpick test` reports to the server's author.

use std::sync::Mutex;

use serde_json::Value;

/// The most results one recording keeps (a list of more pages is cut off by then anyway).
const MAX_SHAPES: usize = 20_000;

/// One result's shape: which request it answered and the fields the spec rules on.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResultShape {
    /// The request it answered: `prompts/list`, `skills/list` or `prompts/get`.
    pub method: &'static str,
    /// Its `resultType`, as sent (`None`: absent).
    pub result_type: Option<String>,
    /// Its `ttlMs`, as sent where mcpick read it raw (the SDK reads a negative one as 0).
    pub ttl_ms: Option<Value>,
    /// Its `cacheScope`, as sent where mcpick read it raw.
    pub cache_scope: Option<Value>,
    /// A list page's entries' names as sent, in order (`None`: it had no string `name`).
    pub names: Vec<Option<String>>,
    /// A list page's `nextCursor`.
    pub next_cursor: Option<String>,
}

/// The shapes a connection keeps while recording (see [`crate::mcp::Connection::record_shapes`]).
#[derive(Debug, Default)]
pub(in crate::mcp) struct ShapeLog(Mutex<Option<Vec<ResultShape>>>);

impl ShapeLog {
    /// Starts keeping shapes (forgetting any kept).
    pub(in crate::mcp) fn start(&self) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(Vec::new());
    }

    /// Keeps `shape` when recording; `make` is not called otherwise.
    pub(in crate::mcp) fn push(&self, make: impl FnOnce() -> ResultShape) {
        let mut kept = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(shapes) = kept.as_mut()
            && shapes.len() < MAX_SHAPES
        {
            shapes.push(make());
        }
    }

    /// The shapes kept since the last take; recording goes on.
    pub(in crate::mcp) fn take(&self) -> Vec<ResultShape> {
        let mut kept = self.0.lock().unwrap_or_else(|e| e.into_inner());
        kept.as_mut().map(std::mem::take).unwrap_or_default()
    }
}

/// The names of a raw list's entries under `key` (`prompts`, `skills`), as sent.
pub(in crate::mcp) fn raw_names(page: &Value, key: &str) -> Vec<Option<String>> {
    page.get(key)
        .and_then(Value::as_array)
        .map(|entries| {
            entries
                .iter()
                .map(|e| e.get("name").and_then(Value::as_str).map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// The shape of a raw result (a page the SDK could not type, or any result as JSON).
pub(in crate::mcp) fn of_raw(method: &'static str, result: &Value, key: &str) -> ResultShape {
    ResultShape {
        method,
        result_type: result
            .get("resultType")
            .map(|t| t.as_str().map_or_else(|| t.to_string(), str::to_string)),
        ttl_ms: result.get("ttlMs").cloned(),
        cache_scope: result.get("cacheScope").cloned(),
        names: raw_names(result, key),
        next_cursor: result
            .get("nextCursor")
            .and_then(Value::as_str)
            .map(str::to_string),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn shapes_are_kept_only_while_recording() {
        let log = ShapeLog::default();
        log.push(|| unreachable!("not recording"));
        assert!(log.take().is_empty());
        log.start();
        let page = json!({"prompts": [{"name": "a"}, {"title": "no name"}], "ttlMs": -5,
            "cacheScope": "everyone", "nextCursor": "c1"});
        log.push(|| of_raw("prompts/list", &page, "prompts"));
        let shapes = log.take();
        assert_eq!(shapes.len(), 1);
        assert_eq!(shapes[0].names, [Some("a".to_string()), None]);
        assert_eq!(shapes[0].result_type, None);
        assert_eq!(shapes[0].ttl_ms, Some(json!(-5)));
        assert_eq!(shapes[0].cache_scope, Some(json!("everyone")));
        assert_eq!(shapes[0].next_cursor.as_deref(), Some("c1"));
        assert!(log.take().is_empty());
    }
}
