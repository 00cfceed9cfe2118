//! The spec rules `mcpick test` holds a server's answers to: pure functions from what the
//! server sent (the results' shapes, the messages) to pass, fail or skip with a reason.

use std::collections::HashSet;

use crate::mcp::ResultShape;
use crate::model::{Content, EmbeddedResource, KnownContent, PromptMessages, Role};

/// The most pages a list may take before mcpick stops following it (the client's cap).
pub(super) const PAGE_CAP: usize = 10_000;

/// Why a rule of 2026-07-28 is skipped in the initialize era.
pub(super) const NOT_THIS_ERA: &str = "not in this era";

/// Why the required-argument check is skipped for a prompt that has none.
pub(super) const NO_REQUIRED: &str = "no required argument";

/// How one check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Verdict {
    Pass,
    Fail,
    Skip,
}

impl Verdict {
    /// Its word in the table and the JSON.
    pub(super) fn word(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Fail => "FAIL",
            Verdict::Skip => "skip",
        }
    }
}

/// One rule checked against one answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Check {
    /// Its short name, a table column (`names`, `resultType`).
    pub(super) rule: &'static str,
    /// The section of the spec it comes from.
    pub(super) spec: &'static str,
    pub(super) verdict: Verdict,
    /// Why, in a few words (empty for a plain pass).
    pub(super) reason: String,
}

impl Check {
    fn pass(rule: &'static str, spec: &'static str) -> Check {
        Check::new(rule, spec, Verdict::Pass, String::new())
    }
    fn fail(rule: &'static str, spec: &'static str, reason: impl Into<String>) -> Check {
        Check::new(rule, spec, Verdict::Fail, reason.into())
    }
    fn skip(rule: &'static str, spec: &'static str, reason: impl Into<String>) -> Check {
        Check::new(rule, spec, Verdict::Skip, reason.into())
    }
    fn new(rule: &'static str, spec: &'static str, verdict: Verdict, reason: String) -> Check {
        Check {
            rule,
            spec,
            verdict,
            reason,
        }
    }
}

const SPEC_TYPES: &str = "§3.1 Prompts: Types (Prompt.name required)";
const SPEC_PAGES: &str = "§3.3 prompts/list (paginated)";
const SPEC_RESULT_TYPE: &str = "§2 Base JSON-RPC rules: resultType (2026-07-28)";
const SPEC_CACHE: &str = "§5.2.5 Caching (CacheableResult, SEP-2549)";
const SPEC_LIST_CHANGED: &str = "§3.5 notifications/prompts/list_changed";
const SPEC_GET: &str = "§3.4 prompts/get";
const SPEC_CONTENT: &str = "§3.2 Content blocks";
const SPEC_ROLES: &str = "§3.1 Prompts: Types (PromptMessage.role)";

/// The checks of one era's lists (`prompts/list`, `skills/list`), from their pages' shapes.
pub(super) fn list_checks(shapes: &[ResultShape], modern: bool) -> Vec<Check> {
    let pages: Vec<&ResultShape> = shapes
        .iter()
        .filter(|s| s.method != "prompts/get")
        .collect();
    vec![
        names(&pages),
        pagination(&pages),
        result_types(&pages, modern),
        cache_hints(&pages, modern),
    ]
}

/// Every entry has a non-empty name, and no two of one list share one.
fn names(pages: &[&ResultShape]) -> Check {
    let mut problems = Vec::new();
    for method in ["prompts/list", "skills/list"] {
        let mut seen = HashSet::new();
        let mut reported = HashSet::new();
        let entries = pages.iter().filter(|p| p.method == method);
        for (at, name) in entries.flat_map(|p| p.names.iter()).enumerate() {
            match name.as_deref() {
                None => problems.push(format!("{method} entry {} has no name", at + 1)),
                Some("") => problems.push(format!("{method} entry {} has an empty name", at + 1)),
                Some(name) if !seen.insert(name) && reported.insert(name) => {
                    problems.push(format!(
                        "{method} lists `{}` more than once",
                        crate::text::one_line(name)
                    ))
                }
                Some(_) => {}
            }
        }
    }
    if problems.is_empty() {
        Check::pass("names", SPEC_TYPES)
    } else {
        Check::fail("names", SPEC_TYPES, problems.join("; "))
    }
}

/// No cursor comes back (a loop), and the list ends within the client's page cap.
fn pagination(pages: &[&ResultShape]) -> Check {
    for method in ["prompts/list", "skills/list"] {
        let mut seen = HashSet::new();
        let list: Vec<&&ResultShape> = pages.iter().filter(|p| p.method == method).collect();
        for (number, page) in list.iter().enumerate() {
            if let Some(cursor) = &page.next_cursor
                && !seen.insert(cursor.as_str())
            {
                return Check::fail(
                    "pagination",
                    SPEC_PAGES,
                    format!(
                        "{method} page {} repeats the cursor \"{}\": the list loops",
                        number + 1,
                        crate::text::cut_chars(&crate::text::one_line(cursor), 40)
                    ),
                );
            }
        }
        if list.len() >= PAGE_CAP && list.last().is_some_and(|p| p.next_cursor.is_some()) {
            return Check::fail(
                "pagination",
                SPEC_PAGES,
                format!("{method} did not end within {PAGE_CAP} pages"),
            );
        }
    }
    let count = pages.iter().filter(|p| p.method == "prompts/list").count();
    Check::pass("pagination", SPEC_PAGES).with_note(match count {
        0 | 1 => String::new(),
        n => format!("{n} pages"),
    })
}

impl Check {
    fn with_note(mut self, note: String) -> Check {
        self.reason = note;
        self
    }
}

/// At 2026-07-28 every result says its `resultType` (`complete` for a list).
fn result_types(pages: &[&ResultShape], modern: bool) -> Check {
    if !modern {
        return Check::skip("resultType", SPEC_RESULT_TYPE, NOT_THIS_ERA);
    }
    for (at, page) in pages.iter().enumerate() {
        match page.result_type.as_deref() {
            Some("complete") => {}
            None => {
                return Check::fail(
                    "resultType",
                    SPEC_RESULT_TYPE,
                    format!("{} page {} has no resultType", page.method, at + 1),
                );
            }
            Some(other) => {
                return Check::fail(
                    "resultType",
                    SPEC_RESULT_TYPE,
                    format!(
                        "{} page {} has resultType \"{}\", not \"complete\"",
                        page.method,
                        at + 1,
                        crate::text::one_line(other)
                    ),
                );
            }
        }
    }
    Check::pass("resultType", SPEC_RESULT_TYPE)
}

/// At 2026-07-28 each list page carries `ttlMs` (an integer ≥ 0) and `cacheScope`
/// (`public` or `private`).
fn cache_hints(pages: &[&ResultShape], modern: bool) -> Check {
    if !modern {
        return Check::skip("ttlMs/cacheScope", SPEC_CACHE, NOT_THIS_ERA);
    }
    for (at, page) in pages.iter().enumerate() {
        let which = format!("{} page {}", page.method, at + 1);
        let bad_ttl = match &page.ttl_ms {
            None => Some("has no ttlMs".to_string()),
            Some(ttl) if ttl.as_u64().is_some() => None,
            Some(ttl) => Some(format!("has ttlMs {ttl}, not an integer ≥ 0")),
        };
        let bad_scope = match page.cache_scope.as_ref().map(|s| s.as_str()) {
            None => Some("has no cacheScope".to_string()),
            Some(Some("public" | "private")) => None,
            Some(_) => Some(format!(
                "has cacheScope {}, not \"public\" or \"private\"",
                crate::text::cut_chars(
                    &crate::text::one_line(
                        &page.cache_scope.clone().unwrap_or_default().to_string()
                    ),
                    40
                )
            )),
        };
        if let Some(why) = bad_ttl.or(bad_scope) {
            return Check::fail("ttlMs/cacheScope", SPEC_CACHE, format!("{which} {why}"));
        }
    }
    Check::pass("ttlMs/cacheScope", SPEC_CACHE)
}

/// A list-change notice sent by a server that did not declare `listChanged`.
pub(super) fn list_changed(declared: bool, heard: bool, modern: bool) -> Check {
    let rule = "list_changed";
    match (declared, heard) {
        (false, true) => Check::fail(
            rule,
            SPEC_LIST_CHANGED,
            "sent notifications/prompts/list_changed without declaring prompts.listChanged",
        ),
        (_, true) => Check::pass(rule, SPEC_LIST_CHANGED).with_note("declared and sent".into()),
        (declared, false) if modern => Check::skip(
            rule,
            SPEC_LIST_CHANGED,
            format!(
                "{}; at 2026-07-28 notices come only on a subscriptions/listen stream, which test does not open",
                if declared { "declared" } else { "not declared" }
            ),
        ),
        (declared, false) => Check::skip(
            rule,
            SPEC_LIST_CHANGED,
            format!(
                "{}; none sent while testing (nothing changed)",
                if declared { "declared" } else { "not declared" }
            ),
        ),
    }
}

/// What `prompts/get` without a required argument came to: an error is right.
pub(super) fn required_refused(required: &[String], answered: Option<Result<(), String>>) -> Check {
    let rule = "required";
    match answered {
        None => Check::skip(rule, SPEC_GET, NO_REQUIRED),
        Some(Err(error)) => Check::pass(rule, SPEC_GET).with_note(format!(
            "without {} the server refused: {}",
            required.join(", "),
            crate::text::cut_chars(&crate::text::one_line(&error), 80)
        )),
        Some(Ok(())) => Check::fail(
            rule,
            SPEC_GET,
            format!(
                "filled the prompt without its required {}; it should answer -32602",
                required.join(", ")
            ),
        ),
    }
}

/// The `resultType` of a `prompts/get` result.
pub(super) fn get_result_type(shape: Option<&ResultShape>, modern: bool) -> Check {
    let rule = "resultType";
    if !modern {
        return Check::skip(rule, SPEC_RESULT_TYPE, NOT_THIS_ERA);
    }
    match shape.map(|s| s.result_type.as_deref()) {
        None => Check::skip(rule, SPEC_RESULT_TYPE, "no result to check"),
        Some(Some("complete")) => Check::pass(rule, SPEC_RESULT_TYPE),
        Some(None) => Check::fail(
            rule,
            SPEC_RESULT_TYPE,
            "the prompts/get result has no resultType",
        ),
        Some(Some(other)) => Check::fail(
            rule,
            SPEC_RESULT_TYPE,
            format!("resultType \"{}\"", crate::text::one_line(other)),
        ),
    }
}

/// Roles are `user` or `assistant`; each block is a kind the spec knows, its base64 data
/// decodes and its MIME type is a `type/subtype`.
pub(super) fn content(messages: &PromptMessages) -> Vec<Check> {
    let mut roles = Vec::new();
    let mut blocks = Vec::new();
    for (at, message) in messages.messages.iter().enumerate() {
        let n = at + 1;
        if !message.role.is_mcp() {
            let name = match &message.role {
                Role::Other(name) => crate::text::one_line(name),
                other => other.as_str().to_string(),
            };
            roles.push(format!("#{n} has role `{name}`"));
        }
        blocks.extend(block_problem(&message.content).map(|why| format!("#{n}: {why}")));
    }
    let verdict = |rule, spec, problems: Vec<String>| {
        if problems.is_empty() {
            Check::pass(rule, spec)
        } else {
            Check::fail(rule, spec, problems.join("; "))
        }
    };
    vec![
        verdict("roles", SPEC_ROLES, roles),
        verdict("content", SPEC_CONTENT, blocks),
    ]
}

/// What is wrong with one block, if anything.
fn block_problem(content: &Content) -> Option<String> {
    let data = |what: &str, data: &str, mime: Option<&str>| {
        if crate::export::decode_base64(data).is_err() {
            return Some(format!("{what} data is not valid base64"));
        }
        match mime {
            None => Some(format!("{what} has no mimeType")),
            Some(mime) if !is_mime_type(mime) => Some(format!(
                "{what} mimeType \"{}\" is not type/subtype",
                crate::text::cut_chars(&crate::text::one_line(mime), 40)
            )),
            Some(_) => None,
        }
    };
    match content {
        Content::Known(KnownContent::Text { .. }) => None,
        Content::Known(KnownContent::Image {
            data: bytes,
            mime_type,
            ..
        }) => data("image", bytes, Some(mime_type)),
        Content::Known(KnownContent::Audio {
            data: bytes,
            mime_type,
            ..
        }) => data("audio", bytes, Some(mime_type)),
        Content::Known(KnownContent::Resource { resource, .. }) => match resource {
            EmbeddedResource::Text { uri, .. } if uri.is_empty() => {
                Some("embedded resource has an empty uri".into())
            }
            EmbeddedResource::Text { .. } => None,
            EmbeddedResource::Blob { uri, .. } if uri.is_empty() => {
                Some("embedded resource has an empty uri".into())
            }
            EmbeddedResource::Blob {
                blob, mime_type, ..
            } => data(
                "embedded blob",
                blob,
                mime_type.as_deref().or(Some("application/octet-stream")),
            ),
        },
        Content::Known(KnownContent::ResourceLink(link)) if link.uri.is_empty() => {
            Some("resource_link has an empty uri".into())
        }
        Content::Known(KnownContent::ResourceLink(_)) => None,
        Content::Unknown(_) => Some(format!(
            "unknown content type `{}`",
            crate::text::one_line(content.kind())
        )),
    }
}

/// `type/subtype` (parameters after `;` allowed), each a token.
fn is_mime_type(mime: &str) -> bool {
    let essence = mime.split(';').next().unwrap_or("").trim();
    let token = |part: &str| {
        !part.is_empty()
            && part
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "!#$&^_.+-".contains(c))
    };
    essence
        .split_once('/')
        .is_some_and(|(kind, sub)| token(kind) && token(sub))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn page(names: &[Option<&str>], next: Option<&str>, result_type: Option<&str>) -> ResultShape {
        ResultShape {
            method: "prompts/list",
            result_type: result_type.map(str::to_string),
            ttl_ms: Some(json!(1000)),
            cache_scope: Some(json!("public")),
            names: names.iter().map(|n| n.map(str::to_string)).collect(),
            next_cursor: next.map(str::to_string),
        }
    }

    fn verdicts(checks: &[Check]) -> Vec<(&str, Verdict)> {
        checks.iter().map(|c| (c.rule, c.verdict)).collect()
    }

    #[test]
    fn a_clean_list_passes_and_legacy_skips_what_its_era_lacks() {
        let pages = [
            page(&[Some("a")], Some("c1"), Some("complete")),
            page(&[Some("b")], None, Some("complete")),
        ];
        let modern = list_checks(&pages, true);
        assert!(
            modern.iter().all(|c| c.verdict == Verdict::Pass),
            "{modern:?}"
        );
        assert_eq!(modern[1].reason, "2 pages");
        let legacy = list_checks(&pages, false);
        assert_eq!(
            verdicts(&legacy),
            [
                ("names", Verdict::Pass),
                ("pagination", Verdict::Pass),
                ("resultType", Verdict::Skip),
                ("ttlMs/cacheScope", Verdict::Skip)
            ]
        );
    }

    #[test]
    fn a_rule_breaking_list_fails_each_rule_it_breaks() {
        let mut bad = page(&[None, Some(""), Some("x"), Some("x")], Some("loop"), None);
        bad.ttl_ms = Some(json!(-1));
        let again = page(&[Some("y")], Some("loop"), Some("complete"));
        let checks = list_checks(&[bad, again], true);
        assert!(
            checks.iter().all(|c| c.verdict == Verdict::Fail),
            "{checks:?}"
        );
        assert_eq!(
            checks[0].reason,
            "prompts/list entry 1 has no name; prompts/list entry 2 has an empty name; prompts/list lists `x` more than once"
        );
        assert_eq!(
            checks[1].reason,
            "prompts/list page 2 repeats the cursor \"loop\": the list loops"
        );
        assert_eq!(checks[2].reason, "prompts/list page 1 has no resultType");
        assert_eq!(
            checks[3].reason,
            "prompts/list page 1 has ttlMs -1, not an integer ≥ 0"
        );
        let mut scope = page(&[Some("a")], None, Some("complete"));
        scope.cache_scope = Some(json!("everyone"));
        assert_eq!(
            cache_hints(&[&scope], true).reason,
            "prompts/list page 1 has cacheScope \"everyone\", not \"public\" or \"private\""
        );
    }

    #[test]
    fn list_changed_fails_only_when_sent_undeclared() {
        assert_eq!(list_changed(false, true, false).verdict, Verdict::Fail);
        assert_eq!(list_changed(true, true, false).verdict, Verdict::Pass);
        assert_eq!(list_changed(true, false, false).verdict, Verdict::Skip);
        assert!(
            list_changed(false, false, true)
                .reason
                .contains("subscriptions/listen")
        );
    }

    #[test]
    fn gets_are_held_to_required_arguments_result_type_and_content() {
        let required = ["text".to_string()];
        assert_eq!(required_refused(&required, None).verdict, Verdict::Skip);
        assert_eq!(
            required_refused(&required, Some(Err("-32602".into()))).verdict,
            Verdict::Pass
        );
        assert_eq!(
            required_refused(&required, Some(Ok(()))).verdict,
            Verdict::Fail
        );
        let none = ResultShape {
            method: "prompts/get",
            ..ResultShape::default()
        };
        assert_eq!(get_result_type(Some(&none), true).verdict, Verdict::Fail);
        assert_eq!(get_result_type(Some(&none), false).verdict, Verdict::Skip);
        let messages: PromptMessages = serde_json::from_value(json!({"messages": [
            {"role": "user", "content": {"type": "text", "text": "hi"}},
            {"role": "system", "content": {"type": "image", "data": "%%%", "mimeType": "image/png"}},
            {"role": "user", "content": {"type": "audio", "data": "AAAA", "mimeType": "wav"}},
            {"role": "user", "content": {"type": "hologram"}},
        ]}))
        .unwrap();
        let checks = content(&messages);
        assert_eq!(checks[0].reason, "#2 has role `system`");
        assert_eq!(
            checks[1].reason,
            "#2: image data is not valid base64; #3: audio mimeType \"wav\" is not type/subtype; #4: unknown content type `hologram`"
        );
    }
}
