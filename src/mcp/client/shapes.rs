//! What a server's results looked like on the wire, kept only when asked for: the fields
//! mcpick reads past (it treats a missing `resultType` as `complete`, a bad `ttlMs` as 0)
//! but `mcpick test` reports to the server's author.

use std::cell::RefCell;

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

tokio::task_local! {
    /// The shapes kept for the task inside [`recording_shapes`]; other tasks (the hub's
    /// own re-lists on the same connection) keep none.
    static RECORDING: RefCell<Vec<ResultShape>>;
}

/// Runs `work`, keeping the shape of each list page and `prompts/get` result that this
/// task reads meanwhile, in order (`resultType`, `ttlMs`, `cacheScope`, names, cursors):
/// for `mcpick test`. Outside it nothing is kept.
pub async fn recording_shapes<T>(work: impl Future<Output = T>) -> (T, Vec<ResultShape>) {
    RECORDING
        .scope(RefCell::new(Vec::new()), async {
            let out = work.await;
            (out, RECORDING.with(|kept| kept.take()))
        })
        .await
}

/// Keeps the shape `make` gives when this task is recording; `make` is not called
/// otherwise.
pub(in crate::mcp) fn note(make: impl FnOnce() -> ResultShape) {
    let _ = RECORDING.try_with(|kept| {
        let mut kept = kept.borrow_mut();
        if kept.len() < MAX_SHAPES {
            kept.push(make());
        }
    });
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

    #[tokio::test]
    async fn shapes_are_kept_only_while_recording() {
        note(|| unreachable!("not recording"));
        let page = json!({"prompts": [{"name": "a"}, {"title": "no name"}], "ttlMs": -5,
            "cacheScope": "everyone", "nextCursor": "c1"});
        let ((), shapes) = recording_shapes(async {
            note(|| of_raw("prompts/list", &page, "prompts"));
            // Another task's results are not this recording's.
            tokio::spawn(async { note(|| unreachable!("another task")) })
                .await
                .unwrap();
        })
        .await;
        assert_eq!(shapes.len(), 1);
        assert_eq!(shapes[0].names, [Some("a".to_string()), None]);
        assert_eq!(shapes[0].result_type, None);
        assert_eq!(shapes[0].ttl_ms, Some(json!(-5)));
        assert_eq!(shapes[0].cache_scope, Some(json!("everyone")));
        assert_eq!(shapes[0].next_cursor.as_deref(), Some("c1"));
    }
}
