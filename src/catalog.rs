//! Prompt references (`SERVER/PROMPT`) and finding prompts by name, with suggestions.

use crate::mcp::PromptInfo;

/// A parsed `SERVER/PROMPT` reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptRef {
    /// The server's config name, when given.
    pub server: Option<String>,
    /// The prompt's name.
    pub prompt: String,
    /// The whole reference (without a leading `/`): a prompt name itself may hold `:`
    /// (`git:fix`), so when the part before `:` is no server, this is the name.
    pub whole: String,
    /// Which separator split it, if any.
    pub separator: Option<char>,
}

impl PromptRef {
    /// Parses `SERVER/PROMPT` (or `SERVER:PROMPT`, as in the menu), or a bare `PROMPT`. A
    /// leading `/` is ignored. Server names cannot hold `/` or `:`, so the first one splits.
    pub fn parse(text: &str) -> Result<PromptRef, String> {
        let text = text.strip_prefix('/').unwrap_or(text);
        let (server, prompt, separator) = match text.find(['/', ':']) {
            Some(at) => (
                Some(&text[..at]),
                &text[at + 1..],
                text[at..].chars().next(),
            ),
            None => (None, text, None),
        };
        if server.is_some_and(str::is_empty) {
            return Err(format!(
                "`{text}` has an empty server name (write SERVER/PROMPT)"
            ));
        }
        if prompt.is_empty() {
            return Err(format!("`{text}` has no prompt name (write SERVER/PROMPT)"));
        }
        Ok(PromptRef {
            server: server.map(str::to_string),
            prompt: prompt.to_string(),
            whole: text.to_string(),
            separator,
        })
    }
}

/// Up to `limit` names from `candidates` that look like `wanted`, closest first: names
/// within a small edit distance, then names that contain it (ignoring case).
pub fn closest<'a>(
    wanted: &str,
    candidates: impl IntoIterator<Item = &'a str>,
    limit: usize,
) -> Vec<String> {
    let wanted_lower = wanted.to_lowercase();
    let max_distance = (wanted.chars().count() / 3).max(2);
    let mut scored: Vec<(usize, &str)> = candidates
        .into_iter()
        .filter_map(|name| {
            let lower = name.to_lowercase();
            let distance = levenshtein(&wanted_lower, &lower);
            if distance <= max_distance {
                Some((distance, name))
            } else if lower.contains(&wanted_lower) || wanted_lower.contains(&lower) {
                Some((max_distance + 1, name))
            } else {
                None
            }
        })
        .collect();
    scored.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(b.1)));
    scored.dedup_by(|a, b| a.1 == b.1);
    scored
        .into_iter()
        .take(limit)
        .map(|(_, n)| n.to_string())
        .collect()
}

/// The prompt named `name` in `prompts`.
pub fn find<'a>(prompts: &'a [PromptInfo], name: &str) -> Option<&'a PromptInfo> {
    prompts.iter().find(|p| p.name == name)
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != *cb);
            current.push(substitution.min(previous[j + 1] + 1).min(current[j] + 1));
        }
        previous = current;
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(text: &str) -> (Option<String>, String, String, Option<char>) {
        let r = PromptRef::parse(text).unwrap();
        (r.server, r.prompt, r.whole, r.separator)
    }

    #[test]
    fn references_split_at_the_first_separator() {
        assert_eq!(
            parts("everything/args-prompt"),
            (
                Some("everything".into()),
                "args-prompt".into(),
                "everything/args-prompt".into(),
                Some('/')
            )
        );
        assert_eq!(
            parts("/py:greet"),
            (
                Some("py".into()),
                "greet".into(),
                "py:greet".into(),
                Some(':')
            )
        );
        assert_eq!(
            parts("srv/a/b"),
            (
                Some("srv".into()),
                "a/b".into(),
                "srv/a/b".into(),
                Some('/')
            )
        );
        assert_eq!(parts("greet"), (None, "greet".into(), "greet".into(), None));
    }

    #[test]
    fn empty_parts_are_errors() {
        assert!(PromptRef::parse("/x").is_ok());
        assert!(
            PromptRef::parse("srv/")
                .unwrap_err()
                .contains("no prompt name")
        );
        assert!(PromptRef::parse("/srv/").is_err());
        assert!(PromptRef::parse(":p").unwrap_err().contains("empty server"));
        assert!(PromptRef::parse("").is_err());
    }

    #[test]
    fn closest_names_rank_typos_first() {
        let names = [
            "simple-prompt",
            "args-prompt",
            "resource-prompt",
            "completable-prompt",
        ];
        assert_eq!(closest("args-promt", names, 3), vec!["args-prompt"]);
        assert_eq!(closest("prompt", names, 2).len(), 2);
        assert!(closest("zzz", names, 3).is_empty());
    }

    #[test]
    fn levenshtein_counts_edits() {
        assert_eq!(levenshtein("kitten", "sitting"), 3);
        assert_eq!(levenshtein("", "abc"), 3);
        assert_eq!(levenshtein("same", "same"), 0);
    }
}
