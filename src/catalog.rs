//! Prompt references (`SERVER/PROMPT`), finding prompts by name with suggestions, and the
//! fuzzy ranking of the merged menu.

use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher, Utf32Str, Utf32String};

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

/// A prompt in the merged menu, with its search texts prepared for fast matching.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The prompt.
    pub prompt: PromptInfo,
    /// `server:name`, the slash name.
    pub slash_name: String,
    title: Utf32String,
    slash: Utf32String,
    description: Utf32String,
}

impl Entry {
    /// Prepares `prompt` for matching.
    pub fn new(prompt: PromptInfo) -> Entry {
        let slash_name = format!("{}:{}", prompt.server, prompt.name);
        Entry {
            title: Utf32String::from(prompt.display_name()),
            slash: Utf32String::from(slash_name.as_str()),
            description: Utf32String::from(prompt.description.as_deref().unwrap_or("")),
            slash_name,
            prompt,
        }
    }
}

/// One row of a filtered menu: which entry, and how well it matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ranked {
    /// Index into the entries.
    pub index: usize,
    /// Higher is better; 0 for an empty query.
    pub score: u32,
}

/// What a menu query means: an optional server to stay within, and the fuzzy pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    /// The server named before `:`, when it is a known server.
    pub server: Option<String>,
    /// The rest, matched fuzzily.
    pub needle: String,
}

impl Query {
    /// Reads what the user typed: a leading `/` is optional, and `server:` narrows to that
    /// server when it names one of `servers`.
    pub fn parse<'a>(typed: &str, servers: impl IntoIterator<Item = &'a str>) -> Query {
        let text = typed.trim_start();
        let text = text.strip_prefix('/').unwrap_or(text).trim();
        if let Some((server, rest)) = text.split_once(':')
            && let Some(known) = servers.into_iter().find(|s| s.eq_ignore_ascii_case(server))
        {
            return Query {
                server: Some(known.to_string()),
                needle: rest.trim().to_string(),
            };
        }
        Query {
            server: None,
            needle: text.to_string(),
        }
    }
}

/// Exact names beat any fuzzy score, so `/server:prompt` and a unique bare name come first.
const EXACT_BONUS: u32 = 1 << 20;

/// Ranks `entries` for `query`, best first; ties keep the entries' order. An empty needle
/// lists `recent` slash names first (most recent first), then the rest in order.
pub fn rank(entries: &[Entry], query: &Query, recent: &[String]) -> Vec<Ranked> {
    let in_scope = |e: &Entry| query.server.as_ref().is_none_or(|s| &e.prompt.server == s);
    if query.needle.is_empty() {
        let mut ranked: Vec<Ranked> = Vec::with_capacity(entries.len());
        for name in recent {
            if let Some(index) = entries
                .iter()
                .position(|e| &e.slash_name == name && in_scope(e))
            {
                ranked.push(Ranked { index, score: 0 });
            }
        }
        let mut listed = vec![false; entries.len()];
        for r in &ranked {
            listed[r.index] = true;
        }
        ranked.extend(
            entries
                .iter()
                .enumerate()
                .filter(|(i, e)| in_scope(e) && !listed[*i])
                .map(|(index, _)| Ranked { index, score: 0 }),
        );
        return ranked;
    }
    let pattern = Pattern::parse(&query.needle, CaseMatching::Smart, Normalization::Smart);
    let mut matcher = Matcher::new(Config::DEFAULT);
    let needle_lower = query.needle.to_lowercase();
    let mut ranked: Vec<Ranked> = entries
        .iter()
        .enumerate()
        .filter(|(_, e)| in_scope(e))
        .filter_map(|(index, entry)| {
            let title = pattern.score(entry.title.slice(..), &mut matcher);
            let slash = pattern.score(entry.slash.slice(..), &mut matcher);
            // Descriptions are long and match loosely: they count for less.
            let description = pattern
                .score(entry.description.slice(..), &mut matcher)
                .map(|s| s / 2);
            let best = title.max(slash).max(description)?;
            let exact = entry.prompt.name.to_lowercase() == needle_lower
                || entry.slash_name.to_lowercase() == needle_lower
                || entry.prompt.display_name().to_lowercase() == needle_lower;
            Some(Ranked {
                index,
                // Exact names tie with each other, so they keep the catalog order.
                score: if exact { EXACT_BONUS } else { best },
            })
        })
        .collect();
    // A stable sort keeps the catalog order among equal scores.
    ranked.sort_by_key(|r| std::cmp::Reverse(r.score));
    ranked
}

/// The char positions of `text` that `needle` matches, for highlighting (empty when it
/// does not match).
pub fn match_positions(needle: &str, text: &str) -> Vec<usize> {
    if needle.is_empty() {
        return Vec::new();
    }
    let pattern = Pattern::parse(needle, CaseMatching::Smart, Normalization::Smart);
    let mut matcher = Matcher::new(Config::DEFAULT);
    let mut buffer = Vec::new();
    let mut indices = Vec::new();
    if pattern
        .indices(Utf32Str::new(text, &mut buffer), &mut matcher, &mut indices)
        .is_none()
    {
        return Vec::new();
    }
    indices.sort_unstable();
    indices.dedup();
    indices.into_iter().map(|i| i as usize).collect()
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

    fn prompt(server: &str, name: &str, title: Option<&str>, description: &str) -> PromptInfo {
        PromptInfo {
            server: server.into(),
            name: name.into(),
            title: title.map(str::to_string),
            description: Some(description.into()),
            arguments: Vec::new(),
        }
    }

    fn entries() -> Vec<Entry> {
        [
            prompt(
                "everything",
                "simple-prompt",
                Some("Simple Prompt"),
                "A prompt with no arguments",
            ),
            prompt(
                "everything",
                "args-prompt",
                Some("Arguments Prompt"),
                "A prompt with two arguments",
            ),
            prompt("py", "args-prompt", None, "Python twin"),
            prompt("py", "greet", Some("Greeting"), "Say hello to someone"),
            prompt(
                "builtin",
                "commit-message",
                None,
                "Write a commit message from a diff",
            ),
        ]
        .into_iter()
        .map(Entry::new)
        .collect()
    }

    fn names(entries: &[Entry], ranked: &[Ranked]) -> Vec<String> {
        ranked
            .iter()
            .map(|r| entries[r.index].slash_name.clone())
            .collect()
    }

    const SERVERS: [&str; 3] = ["everything", "py", "builtin"];

    #[test]
    fn an_empty_query_lists_recent_prompts_first_then_catalog_order() {
        let entries = entries();
        let recent = vec!["py:greet".to_string(), "gone:old".to_string()];
        let ranked = rank(&entries, &Query::parse("", SERVERS), &recent);
        assert_eq!(
            names(&entries, &ranked),
            [
                "py:greet",
                "everything:simple-prompt",
                "everything:args-prompt",
                "py:args-prompt",
                "builtin:commit-message"
            ]
        );
    }

    #[test]
    fn fuzzy_matching_covers_name_title_server_and_description() {
        let entries = entries();
        let top =
            |q: &str| names(&entries, &rank(&entries, &Query::parse(q, SERVERS), &[]))[0].clone();
        assert_eq!(top("cmtmsg"), "builtin:commit-message");
        assert_eq!(top("Greeting"), "py:greet");
        assert_eq!(top("hello"), "py:greet");
        assert!(rank(&entries, &Query::parse("zzzz", SERVERS), &[]).is_empty());
    }

    #[test]
    fn exact_and_slash_names_rank_first_and_ties_keep_catalog_order() {
        let entries = entries();
        let ranked = rank(&entries, &Query::parse("args-prompt", SERVERS), &[]);
        assert_eq!(
            names(&entries, &ranked)[..2],
            ["everything:args-prompt", "py:args-prompt"]
        );
        let ranked = rank(&entries, &Query::parse("/py:args-prompt", SERVERS), &[]);
        assert_eq!(names(&entries, &ranked), ["py:args-prompt"]);
        let ranked = rank(&entries, &Query::parse("/PY:", SERVERS), &[]);
        assert_eq!(names(&entries, &ranked), ["py:args-prompt", "py:greet"]);
    }

    #[test]
    fn a_colon_that_names_no_server_is_part_of_the_needle() {
        assert_eq!(
            Query::parse("/git:fix", SERVERS),
            Query {
                server: None,
                needle: "git:fix".into()
            }
        );
    }

    #[test]
    fn match_positions_mark_the_matched_characters() {
        assert_eq!(match_positions("sp", "simple-prompt"), vec![0, 7]);
        assert!(match_positions("zz", "simple-prompt").is_empty());
    }

    #[test]
    fn levenshtein_counts_edits() {
        assert_eq!(levenshtein("kitten", "sitting"), 3);
        assert_eq!(levenshtein("", "abc"), 3);
        assert_eq!(levenshtein("same", "same"), 0);
    }
}
