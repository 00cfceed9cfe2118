//! Prompt references (`SERVER/PROMPT`), finding prompts by name with suggestions, and the
//! fuzzy ranking of the merged menu.

use crate::model::PromptInfo;

mod rank;

pub use rank::{MatchMarker, Ranked, Ranker, rank};

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
        // An empty name is in every name, and no request can name it.
        .filter(|name| !name.is_empty())
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

/// The prompt or skill named `name` in `prompts` (one server's list): a skill when the
/// server offers both of one name (`mcpick serve` serves each skill folder both ways).
pub fn find<'a>(prompts: &'a [PromptInfo], name: &str) -> Option<&'a PromptInfo> {
    find_preferring(prompts, name, crate::model::EntryKind::Skill)
}

/// The entry named `name` in `prompts`, of kind `prefer` when there are both kinds.
pub fn find_preferring<'a>(
    prompts: &'a [PromptInfo],
    name: &str,
    prefer: crate::model::EntryKind,
) -> Option<&'a PromptInfo> {
    let mut named = prompts.iter().filter(|p| p.name == name);
    let first = named.next()?;
    if first.kind() == prefer {
        return Some(first);
    }
    Some(named.find(|p| p.kind() == prefer).unwrap_or(first))
}

/// A prompt in the merged menu.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The prompt (shared with the server's list it came in).
    pub prompt: std::sync::Arc<PromptInfo>,
    /// `server:name`, the slash name.
    pub slash_name: String,
    /// No other server offers a prompt of this name: `/name` alone reaches it.
    pub unique_name: bool,
}

impl Entry {
    /// The menu entry of `prompt`.
    pub fn new(prompt: impl Into<std::sync::Arc<PromptInfo>>) -> Entry {
        let prompt = prompt.into();
        Entry {
            slash_name: format!("{}:{}", prompt.server, prompt.name),
            prompt,
            unique_name: false,
        }
    }

    /// The command a user types for it: `/name` when no other server has that name, else
    /// `/server:name`.
    pub fn command(&self) -> String {
        if self.unique_name {
            format!("/{}", self.prompt.name)
        } else {
            format!("/{}", self.slash_name)
        }
    }
}

/// `city*, state`: a prompt's arguments on one line, required ones starred.
pub fn argument_summary(prompt: &PromptInfo) -> String {
    prompt
        .arguments
        .iter()
        .map(|a| {
            format!(
                "{}{}",
                crate::text::one_line(&a.name),
                if a.required { "*" } else { "" }
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The widths of the menu's columns over every entry (not only those on screen), so the
/// columns stay put as results change: kept with the entries, made again when they change.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MenuWidths {
    /// Each distinct width of a command cell (`/name`, and ` [skill]` on a skill's), in
    /// increasing order: the column takes the widest within its share of the row.
    pub commands: Vec<usize>,
    /// The widest [`title_column`]: a title that says more than the name, or a
    /// description.
    pub title: usize,
    /// The widest [`argument_summary`].
    pub arguments: usize,
    /// The widest server name, when the entries come from two servers or more (else 0:
    /// a column saying the same name on every row tells nothing).
    pub server: usize,
}

/// The columns of the ` [skill]` badge a skill's command cell ends in.
pub const SKILL_BADGE_WIDTH: usize = 8;

impl MenuWidths {
    /// The widths over `entries`.
    pub fn of(entries: &[Entry]) -> MenuWidths {
        let mut widths = MenuWidths::default();
        let mut commands = std::collections::BTreeSet::new();
        for entry in entries {
            let prompt = &entry.prompt;
            let badge = if prompt.skill.is_some() {
                SKILL_BADGE_WIDTH
            } else {
                0
            };
            commands.insert(crate::text::width(&crate::text::one_line(&entry.command())) + badge);
            widths.title = widths
                .title
                .max(crate::text::width(&title_column(prompt).text));
            widths.arguments = widths
                .arguments
                .max(crate::text::width(&argument_summary(prompt)));
            widths.server = widths
                .server
                .max(crate::text::width(&crate::text::one_line(&prompt.server)));
        }
        widths.commands = commands.into_iter().collect();
        let first = entries.first().map(|e| e.prompt.server.as_str());
        if entries
            .iter()
            .all(|e| Some(e.prompt.server.as_str()) == first)
        {
            widths.server = 0;
        }
        widths
    }
}

/// A prompt's title on one line, when it says more than its name (else empty).
pub fn title_of(prompt: &PromptInfo) -> String {
    prompt
        .title
        .as_deref()
        .filter(|t| *t != prompt.name)
        .map(crate::text::one_line)
        .unwrap_or_default()
}

/// What a row's title column says of a prompt: see [`title_column`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TitleColumn {
    /// The text, on one line (empty when the prompt has neither).
    pub text: String,
    /// It is the description, not a title (not matched letter by letter, so not
    /// highlighted so).
    pub description: bool,
}

/// The most characters of a description a row's title column keeps: more is never drawn,
/// and 100,000 rows must not each copy a long description.
const DESCRIPTION_CHARS: usize = 240;

/// A prompt's title when it says more than its name, else its description: many servers
/// give no title, and a row with neither would say nothing of what the prompt does. The
/// description's lines and runs of blanks are one space each.
pub fn title_column(prompt: &PromptInfo) -> TitleColumn {
    let title = title_of(prompt);
    if !title.is_empty() {
        return TitleColumn {
            text: title,
            description: false,
        };
    }
    let description = prompt.description.as_deref().unwrap_or("").trim();
    let mut text = String::new();
    let (mut count, mut blank) = (0, false);
    for c in description.chars() {
        if c.is_whitespace() {
            blank = true;
            continue;
        }
        if count + usize::from(blank) >= DESCRIPTION_CHARS {
            // Past any row's width: the `…` says there is more.
            text.push('…');
            break;
        }
        if blank {
            text.push(' ');
            count += 1;
            blank = false;
        }
        text.push(c);
        count += 1;
    }
    let text = crate::text::one_line(&text);
    if text == prompt.name {
        return TitleColumn {
            text: String::new(),
            description: false,
        };
    }
    TitleColumn {
        description: !text.is_empty(),
        text,
    }
}

/// Marks the entries whose prompt name no other entry has ([`Entry::unique_name`]).
pub fn mark_unique_names(entries: &mut [Entry]) {
    let mut seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for entry in entries.iter() {
        *seen.entry(entry.prompt.name.as_str()).or_default() += 1;
    }
    let unique: Vec<bool> = entries
        .iter()
        .map(|e| seen.get(e.prompt.name.as_str()) == Some(&1))
        .collect();
    for (entry, unique) in entries.iter_mut().zip(unique) {
        entry.unique_name = unique;
    }
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

/// ` (did you mean `NEAR`?)` for the name among `names` closest to a misspelt `name`, or
/// nothing when none is close.
pub fn did_you_mean<'a>(name: &str, names: impl Iterator<Item = &'a str>) -> String {
    match closest(name, names, 1).first() {
        Some(near) => format!(" (did you mean `{near}`?)"),
        None => String::new(),
    }
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
        // An empty name is in every name; no request can reach it.
        assert!(closest("zzz", ["", "a"], 3).is_empty());
    }

    fn prompt(server: &str, name: &str, title: Option<&str>, description: &str) -> PromptInfo {
        PromptInfo {
            server: server.into(),
            name: name.into(),
            title: title.map(str::to_string),
            description: Some(description.into()),
            arguments: Vec::new(),
            skill: None,
            mirrors_skill: None,
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
            .map(|r| entries[r.index()].slash_name.clone())
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
    fn descriptions_hold_words_not_scattered_letters() {
        let entries = entries();
        let found = |q: &str| names(&entries, &rank(&entries, &Query::parse(q, SERVERS), &[]));
        assert_eq!(found("hello"), ["py:greet"]);
        assert_eq!(found("two arg"), ["everything:args-prompt"]);
        // "s…o…m…e" is scattered through "Say hello to someone" but not a word of it, and no name holds it.
        assert!(!found("smoe").contains(&"py:greet".to_string()));
    }

    /// Typing, deleting and retyping: the ranker's answer is always what ranking afresh gives.
    #[test]
    fn the_ranker_gives_what_ranking_afresh_gives() {
        let mut entries = entries();
        for i in 0..300 {
            let words = ["args", "greet", "simple", "commit", "prompt", "message"];
            entries.push(Entry::new(prompt(
                SERVERS[i % 3],
                &format!("{}-{}-{i}", words[i % 6], words[(i / 6) % 6]),
                (i % 4 == 0).then_some("A Title"),
                &format!("About {} and {}", words[(i / 2) % 6], words[(i / 5) % 6]),
            )));
        }
        let typed = [
            "a",
            "ar",
            "arg",
            "args",
            "args ",
            "args p",
            "args pr",
            "args p",
            "args",
            "ar",
            "",
            "/py:",
            "/py:g",
            "/py:gr",
            "/py:",
            "/p",
            "/py",
            "/py:a",
            "s",
            "s$",
            "s",
            "!s",
            "!si",
            "si",
            "sim'",
            "sim",
            "Si",
            "SiM",
            "commit-m",
            "commit-message",
            "commit-message-1",
            "x",
            "",
        ];
        let mut ranker = Ranker::default();
        for text in typed {
            let query = Query::parse(text, SERVERS);
            let recent = ["py:greet".to_string()];
            assert_eq!(
                ranker.rank(&entries, &query, &recent).to_vec(),
                rank(&entries, &query, &recent),
                "after typing {text:?}"
            );
        }
    }

    #[test]
    fn fzf_syntax_narrows_the_names() {
        let entries = entries();
        let found = |q: &str| names(&entries, &rank(&entries, &Query::parse(q, SERVERS), &[]));
        assert_eq!(found("'greet"), ["py:greet"]);
        assert_eq!(found("^simple"), ["everything:simple-prompt"]);
        assert_eq!(found("message$"), ["builtin:commit-message"]);
        let mut without = found("prompt !simple");
        without.sort();
        assert_eq!(without, ["everything:args-prompt", "py:args-prompt"]);
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
    fn highlighters_mark_the_matched_characters() {
        let mut highlighter = MatchMarker::new("sp");
        assert_eq!(highlighter.positions("simple-prompt"), vec![0, 7]);
        assert!(highlighter.positions("zz-top").is_empty());
        assert_eq!(highlighter.positions("a-sp"), vec![2, 3]);
        assert!(MatchMarker::new("").positions("simple-prompt").is_empty());
    }

    #[test]
    fn of_a_prompt_and_a_skill_of_one_name_find_takes_the_kind_asked() {
        use crate::model::EntryKind;
        let plain = prompt("s", "review", None, "as a prompt");
        let mut skill = prompt("s", "review", None, "as a skill");
        skill.skill = Some(Box::new(crate::model::skill_manifest::SkillManifest {
            uri: "skill://review/SKILL.md".into(),
            frontmatter: Default::default(),
            files: None,
        }));
        let list = [plain.clone(), skill.clone()];
        assert_eq!(find(&list, "review"), Some(&skill));
        assert_eq!(
            find_preferring(&list, "review", EntryKind::Prompt),
            Some(&plain)
        );
        // With one kind only, that one, whatever is preferred.
        assert_eq!(
            find_preferring(&list[..1], "review", EntryKind::Skill),
            Some(&plain)
        );
        assert_eq!(find(&list, "other"), None);
    }

    #[test]
    fn a_row_without_a_title_says_its_description() {
        let titled = prompt("s", "plan", Some("Plan a trip"), "More.");
        assert_eq!(
            title_column(&titled),
            TitleColumn {
                text: "Plan a trip".into(),
                description: false
            }
        );
        // No title, or one that is only the name: the description, on one line.
        for title in [None, Some("plan_booking")] {
            let p = prompt(
                "s",
                "plan_booking",
                title,
                "Plan a booking\n  for\tthe room.\n",
            );
            assert_eq!(
                title_column(&p),
                TitleColumn {
                    text: "Plan a booking for the room.".into(),
                    description: true
                }
            );
        }
        // Neither: nothing.
        let mut bare = prompt("s", "p", None, "");
        assert_eq!(title_column(&bare).text, "");
        bare.description = None;
        assert!(!title_column(&bare).description);
        // A long description is kept no longer than a row can show, ending in `…`.
        let long = prompt("s", "p", None, &"word ".repeat(100));
        let text = title_column(&long).text;
        assert!(text.chars().count() <= DESCRIPTION_CHARS + 1, "{text}");
        assert!(text.ends_with('…'), "{text}");
    }

    #[test]
    fn menu_widths_count_descriptions_where_titles_are_missing() {
        let mut entries = vec![
            Entry::new(prompt("a", "x", Some("Twelve chars"), "")),
            Entry::new(prompt("b", "y", None, "A description of thirty-four chars")),
        ];
        assert_eq!(MenuWidths::of(&entries).title, 34);
        entries.pop();
        assert_eq!(MenuWidths::of(&entries).title, 12);
    }

    #[test]
    fn levenshtein_counts_edits() {
        assert_eq!(levenshtein("kitten", "sitting"), 3);
        assert_eq!(levenshtein("", "abc"), 3);
        assert_eq!(levenshtein("same", "same"), 0);
    }
}
