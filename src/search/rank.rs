//! Fuzzy ranking of the merged menu, fast enough to run on every key over 100,000 prompts.
//!
//! The search texts of all prompts sit in one block of memory ([`SearchIndex`]), read in
//! catalog order, so a scan is not a walk over scattered heap strings; a cheap check drops a
//! name without the typed letters in order before the fuzzy matcher (nucleo) scores it; a
//! query that only grew is matched against the last matches alone ([`Ranker`]); and long
//! scans are split across threads.

use std::sync::Arc;

use memchr::memmem::Finder;
use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher, Utf32Str};

use super::{Entry, Query};

/// One row of a filtered menu: which entry, and how well it matched. Packed into one
/// number whose order is the menu's (best score first, then catalog order), so sorting
/// 100,000 of them is one quick integer sort.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Ranked(u64);

impl Ranked {
    /// Entry `index` with `score`.
    pub fn new(index: usize, score: u32) -> Ranked {
        Ranked((u64::from(u32::MAX - score) << 32) | index as u64)
    }

    /// Index into the entries.
    pub fn index(self) -> usize {
        (self.0 & u64::from(u32::MAX)) as usize
    }

    /// Higher is better; 0 for an empty query.
    pub fn score(self) -> u32 {
        u32::MAX - (self.0 >> 32) as u32
    }
}

/// Exact names beat any fuzzy score, so `/server:prompt` and a unique bare name come first.
const EXACT_BONUS: u32 = 1 << 20;

/// The characters with a meaning in a needle (nucleo's pattern syntax), and `|`.
const PATTERN_SYNTAX: &[char] = &['!', '$', '^', '\'', '\\', '|'];

/// From this many candidates on, scoring is split across threads.
const PARALLEL_FROM: usize = 4_096;

/// A description's (or argument's) score per matched char: half what the fuzzy matcher
/// gives a char matched in a row (16); a word found whole there scores the full 16.
const DESCRIPTION_SCORE_PER_CHAR: u32 = 8;

/// How much more a match in the command name weighs than one elsewhere, as fzf's ranking
/// of the name first: a title or description match never outranks it.
const NAME_WEIGHT: u32 = 4;

/// The weight of a title match whose every word is in the title as typed; a scattered one
/// is divided by it, so a whole word in a description or argument beats letters spread
/// over a title.
const TITLE_WEIGHT: u32 = 2;

/// How many rows of results a [`Ranker`] keeps at most, to bound its memory.
const KEPT_ROWS: usize = 400_000;

/// Ranks `entries` for `query`, best first; ties keep the entries' order. An empty needle
/// lists `recent` slash names first (most recent first), then the rest in order.
///
/// Names and titles match fuzzily; descriptions only hold each word of the query as it is
/// typed (a substring), at half weight: fuzzy matching a sentence matches nearly anything
/// ("trans" is in "the model to … a … s"), which buries the prompts the user means.
pub fn rank(entries: &[Entry], query: &Query, recent: &[String]) -> Vec<Ranked> {
    Ranker::default().rank(entries, query, recent).to_vec()
}

/// The menu for an empty needle: `recent` first, then the rest in catalog order.
fn rank_unfiltered(entries: &[Entry], query: &Query, recent: &[String]) -> Vec<Ranked> {
    let mut ranked: Vec<Ranked> = Vec::with_capacity(entries.len());
    for name in recent {
        if let Some(index) = entries
            .iter()
            .position(|e| &e.slash_name == name && query.covers(e))
        {
            ranked.push(Ranked::new(index, 0));
        }
    }
    let mut listed = vec![false; entries.len()];
    for r in &ranked {
        listed[r.index()] = true;
    }
    ranked.extend(
        entries
            .iter()
            .enumerate()
            .filter(|(i, e)| query.covers(e) && !listed[*i])
            .map(|(index, _)| Ranked::new(index, 0)),
    );
    ranked
}

/// Ranks the menu as the query is typed, one key at a time: a query that only adds to the
/// last one is matched against the last one's matches alone, and going back (Backspace)
/// reuses the earlier result. Make a new one whenever the entries change.
#[derive(Debug, Clone, Default)]
pub struct Ranker {
    /// The entries' search texts (made at the first search when not made at the start).
    index: Option<SearchIndex>,
    /// Each query typed since the last start over, with its result; each one's needle
    /// starts with the one before.
    steps: Vec<Step>,
}

#[derive(Debug, Clone)]
struct Step {
    query: Query,
    ranked: Arc<Vec<Ranked>>,
    /// The matched entries in catalog order (the candidates of a longer query).
    matched: Vec<Candidate>,
}

impl Ranker {
    /// A ranker for `entries`, with their search texts made now, so the first key does not
    /// wait for them.
    pub fn new(entries: &[Entry]) -> Ranker {
        Ranker {
            index: Some(SearchIndex::new(entries)),
            steps: Vec::new(),
        }
    }

    /// What [`rank`] gives, from the last results when the query only grew.
    pub fn rank(
        &mut self,
        entries: &[Entry],
        query: &Query,
        recent: &[String],
    ) -> Arc<Vec<Ranked>> {
        if query.needle.is_empty() {
            self.steps.clear();
            return Arc::new(rank_unfiltered(entries, query, recent));
        }
        while self
            .steps
            .last()
            .is_some_and(|step| !query.narrows(&step.query))
        {
            self.steps.pop();
        }
        if let Some(step) = self.steps.last()
            && &step.query == query
        {
            return step.ranked.clone();
        }
        let index = self.index.get_or_insert_with(|| SearchIndex::new(entries));
        let (ranked, matched) = match self.steps.last() {
            Some(step) => index.score(entries, query, &step.matched),
            None => {
                let in_scope: Vec<Candidate> = (0..entries.len())
                    .filter(|&i| query.covers(&entries[i]))
                    .map(|i| Candidate {
                        index: i as u32,
                        may_match: Candidate::ALL,
                    })
                    .collect();
                index.score(entries, query, &in_scope)
            }
        };
        self.steps.push(Step {
            query: query.clone(),
            ranked: Arc::clone(&ranked),
            matched,
        });
        while self.steps.len() > 1
            && self.steps.iter().map(|s| s.ranked.len()).sum::<usize>() > KEPT_ROWS
        {
            self.steps.remove(0);
        }
        ranked
    }
}

impl Query {
    /// Whether `entry` is within this query's server.
    pub(super) fn covers(&self, entry: &Entry) -> bool {
        self.server
            .as_ref()
            .is_none_or(|s| &entry.prompt.server == s)
    }

    /// Whether everything this query matches is also matched by `earlier`: same server,
    /// and the needle only grew. Pattern syntax (`!` negates, `$` anchors the end, `^`, `'`
    /// and `\` change how words match) can turn a longer needle into a wider one, so a
    /// needle holding any of it is never narrowed.
    fn narrows(&self, earlier: &Query) -> bool {
        self.server == earlier.server
            && self.needle.starts_with(&earlier.needle)
            && !self.needle.contains(PATTERN_SYNTAX)
    }
}

/// An entry to score, with which of its texts may match (the others did not match a
/// shorter needle, so they cannot match a longer one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Candidate {
    index: u32,
    may_match: u8,
}

impl Candidate {
    const SLASH: u8 = 1;
    const TITLE: u8 = 2;
    const DESCRIPTION: u8 = 4;
    const ALL: u8 = 7;

    fn may(self, text: u8) -> bool {
        self.may_match & text != 0
    }
}

/// Where one text sits in a [`SearchIndex`]: bytes of its `text`, or for text that is not
/// ASCII, chars of its `chars` (what the fuzzy matcher reads).
#[derive(Debug, Clone, Copy, Default)]
struct Span {
    start: usize,
    len: u32,
    wide: bool,
}

/// One entry's texts in a [`SearchIndex`].
#[derive(Debug, Clone, Copy)]
struct Row {
    /// `server:name`.
    slash: Span,
    /// Where the name starts in the slash name (bytes or chars).
    name_at: u32,
    /// The title; empty when there is none (the slash name holds the name already).
    title: Span,
    /// The description in lowercase (always bytes).
    description: Span,
}

/// The search texts of every entry, in one block, in catalog order.
#[derive(Debug, Clone, Default)]
struct SearchIndex {
    rows: Vec<Row>,
    text: String,
    chars: Vec<char>,
}

impl SearchIndex {
    fn new(entries: &[Entry]) -> SearchIndex {
        let bytes = |text: Option<&str>| text.map_or(0, str::len);
        let mut index = SearchIndex {
            rows: Vec::with_capacity(entries.len()),
            text: String::with_capacity(
                entries
                    .iter()
                    .map(|e| {
                        e.slash_name.len()
                            + bytes(e.prompt.title.as_deref())
                            + bytes(e.prompt.description.as_deref())
                    })
                    .sum(),
            ),
            chars: Vec::new(),
        };
        for entry in entries {
            let prompt = &entry.prompt;
            let slash = index.push(&entry.slash_name);
            let name_at = if slash.wide {
                prompt.server.chars().count() + 1
            } else {
                prompt.server.len() + 1
            };
            let title = prompt
                .title
                .as_deref()
                .map_or_else(Span::default, |t| index.push(t));
            // The description and the arguments' names, searched as words.
            let mut description = prompt.description.clone().unwrap_or_default();
            for argument in &prompt.arguments {
                description.push(' ');
                description.push_str(&argument.name);
            }
            let start = index.text.len();
            if description.is_ascii() {
                index.text.push_str(&description);
                index.text[start..].make_ascii_lowercase();
            } else {
                index.text.push_str(&description.to_lowercase());
            }
            index.rows.push(Row {
                slash,
                name_at: name_at as u32,
                title,
                description: Span {
                    start,
                    len: (index.text.len() - start) as u32,
                    wide: false,
                },
            });
        }
        index
    }

    fn push(&mut self, text: &str) -> Span {
        if text.is_ascii() {
            let start = self.text.len();
            self.text.push_str(text);
            Span {
                start,
                len: text.len() as u32,
                wide: false,
            }
        } else {
            let start = self.chars.len();
            let mut buffer = Vec::new();
            self.chars.extend(Utf32Str::new(text, &mut buffer).chars());
            Span {
                start,
                len: (self.chars.len() - start) as u32,
                wide: true,
            }
        }
    }

    fn haystack(&self, span: Span) -> Utf32Str<'_> {
        let range = span.start..span.start + span.len as usize;
        if span.wide {
            Utf32Str::Unicode(&self.chars[range])
        } else {
            Utf32Str::Ascii(&self.text.as_bytes()[range])
        }
    }

    /// Scores the `candidates` (in catalog order) against `query`'s needle: the matches
    /// best first (ties in catalog order), and the matches in catalog order.
    /// `entries` are the ones this index was made of.
    fn score(
        &self,
        entries: &[Entry],
        query: &Query,
        candidates: &[Candidate],
    ) -> (Arc<Vec<Ranked>>, Vec<Candidate>) {
        let names = Pattern::parse(&query.needle, CaseMatching::Smart, Normalization::Smart);
        let words = Words::new(&query.needle);
        // With pattern syntax in the needle, its words are no plain letters to look for.
        let plain = !query.needle.contains(PATTERN_SYNTAX);
        let greedy = plain && query.needle.is_ascii();
        let needle_lower = query.needle.to_lowercase();
        let score_chunk = |chunk: &[Candidate]| -> Vec<(Ranked, Candidate)> {
            let mut matcher = Matcher::new(Config::DEFAULT);
            // Names are short and typed from their start: a match there is worth more.
            let mut name_config = Config::DEFAULT;
            name_config.prefer_prefix = true;
            let mut name_matcher = Matcher::new(name_config);
            let fuzzy = |haystack: Utf32Str<'_>, matcher: &mut Matcher| {
                if haystack.is_empty() {
                    return None;
                }
                if plain && !greedy && !words.may_match(haystack) {
                    return None;
                }
                if greedy {
                    words.score_greedy(haystack, matcher)
                } else {
                    names.score(haystack, matcher)
                }
            };
            chunk
                .iter()
                .filter_map(|&candidate| {
                    let index = candidate.index as usize;
                    let row = &self.rows[index];
                    // A text that did not match a shorter needle cannot match this one.
                    // The name alone (the slash name without `server:`) is tried first and
                    // weighted first; the whole slash name (letters of the server too)
                    // only when the name does not match: one pass for most rows.
                    let (slash, in_name) = if candidate.may(Candidate::SLASH) {
                        let whole = self.haystack(row.slash);
                        let at = (row.name_at as usize).min(whole.len());
                        match fuzzy(whole.slice(at..), &mut name_matcher) {
                            // The slash name holds the name: it matches too.
                            Some(score) => (Some(score), Some(score * NAME_WEIGHT)),
                            None => (fuzzy(whole, &mut matcher), None),
                        }
                    } else {
                        (None, None)
                    };
                    let title = candidate
                        .may(Candidate::TITLE)
                        .then(|| fuzzy(self.haystack(row.title), &mut matcher))
                        .flatten();
                    let title_weighted = title.map(|score| {
                        if !plain || words.all_in(self.haystack(row.title)) {
                            score * TITLE_WEIGHT
                        } else {
                            score / TITLE_WEIGHT
                        }
                    });
                    let name = in_name.max(slash).max(title_weighted);
                    // A description scores at most its words' full length: below a name's
                    // match, it cannot change the best, so it is not searched (and may
                    // still match a longer needle).
                    let searched = candidate.may(Candidate::DESCRIPTION)
                        && name.is_none_or(|n| n < words.description_best);
                    let description = searched
                        .then(|| words.in_description(self, entries, index))
                        .flatten();
                    let best = name.max(description)?;
                    let mut may_match = 0;
                    for (text, matched) in [
                        (Candidate::SLASH, slash.is_some()),
                        (Candidate::TITLE, title.is_some()),
                        (
                            Candidate::DESCRIPTION,
                            description.is_some()
                                || (!searched && candidate.may(Candidate::DESCRIPTION)),
                        ),
                    ] {
                        if matched {
                            may_match |= text;
                        }
                    }
                    // An exact name is also a fuzzy match of the slash name.
                    let exact = slash.is_some() && self.is_named(row, &needle_lower);
                    // Exact names tie with each other, so they keep the catalog order.
                    let ranked = Ranked::new(index, if exact { EXACT_BONUS } else { best });
                    Some((
                        ranked,
                        Candidate {
                            index: candidate.index,
                            may_match,
                        },
                    ))
                })
                .collect()
        };
        let threads = if candidates.len() < PARALLEL_FROM {
            1
        } else {
            std::thread::available_parallelism().map_or(1, |n| n.get().min(4))
        };
        let matched: Vec<(Ranked, Candidate)> = if threads == 1 {
            score_chunk(candidates)
        } else {
            let chunk_len = candidates.len().div_ceil(threads);
            std::thread::scope(|scope| {
                let workers: Vec<_> = candidates
                    .chunks(chunk_len)
                    .map(|chunk| scope.spawn(|| score_chunk(chunk)))
                    .collect();
                let mut all = Vec::with_capacity(candidates.len());
                for worker in workers {
                    all.extend(worker.join().expect("scoring does not panic"));
                }
                all
            })
        };
        let in_order = matched.iter().map(|(_, candidate)| *candidate).collect();
        let mut ranked: Vec<Ranked> = matched.into_iter().map(|(ranked, _)| ranked).collect();
        ranked.sort_unstable();
        (Arc::new(ranked), in_order)
    }

    /// Whether `needle_lower` (lowercase) is the row's name, slash name or title, ignoring
    /// case. It runs for every match, so it allocates nothing.
    fn is_named(&self, row: &Row, needle_lower: &str) -> bool {
        let same = |haystack: Utf32Str<'_>| match haystack {
            // Lowercase ASCII is as long as the ASCII it came from.
            Utf32Str::Ascii(bytes) => {
                bytes.len() == needle_lower.len()
                    && bytes.eq_ignore_ascii_case(needle_lower.as_bytes())
            }
            Utf32Str::Unicode(chars) => chars
                .iter()
                .flat_map(|c| c.to_lowercase())
                .eq(needle_lower.chars()),
        };
        let slash = self.haystack(row.slash);
        let name_at = (row.name_at as usize).min(slash.len());
        same(slash)
            || same(slash.slice(name_at..))
            || (row.title.len > 0 && same(self.haystack(row.title)))
    }
}

/// A plain needle (no pattern syntax) as words, for the quick checks: whether a name holds
/// every word's letters in order (else fuzzy scoring is skipped), and whether a description
/// holds every word.
struct Words {
    words: Vec<Word>,
    /// The highest score a description can give (every word found).
    description_best: u32,
}

struct Word {
    /// As typed when it has a capital (Smart case: then case counts), else lowercase.
    text: String,
    case_sensitive: bool,
    finder: Finder<'static>,
}

impl Words {
    fn new(needle: &str) -> Words {
        let words = needle
            .split_whitespace()
            .map(|word| {
                let case_sensitive = word.chars().any(char::is_uppercase);
                let text = if case_sensitive {
                    word.to_string()
                } else {
                    word.to_lowercase()
                };
                Word {
                    finder: Finder::new(text.as_bytes()).into_owned(),
                    text,
                    case_sensitive,
                }
            })
            .collect::<Vec<Word>>();
        let description_best = words
            .iter()
            .map(|w| 2 * DESCRIPTION_SCORE_PER_CHAR * w.text.chars().count() as u32)
            .sum();
        Words {
            words,
            description_best,
        }
    }

    /// False only when the fuzzy matcher cannot match `haystack` (some word's letters are
    /// not in it in order). Text that is not ASCII may match letters by their base form
    /// (`e` matches `é`), so it passes.
    fn may_match(&self, haystack: Utf32Str<'_>) -> bool {
        let Utf32Str::Ascii(bytes) = haystack else {
            return true;
        };
        self.words.iter().all(|word| {
            // Words are never empty (split on whitespace).
            let wanted = word.text.as_bytes();
            let mut found = 0;
            for &byte in bytes {
                let byte = if word.case_sensitive {
                    byte
                } else {
                    byte.to_ascii_lowercase()
                };
                if byte == wanted[found] {
                    found += 1;
                    if found == wanted.len() {
                        return true;
                    }
                }
            }
            false
        })
    }

    /// Whether every word is in `haystack` as typed (ignoring case unless it has a capital).
    fn all_in(&self, haystack: Utf32Str<'_>) -> bool {
        let Utf32Str::Ascii(bytes) = haystack else {
            let text: String = haystack.chars().collect();
            let lower = text.to_lowercase();
            return self.words.iter().all(|word| {
                if word.case_sensitive {
                    text.contains(&word.text)
                } else {
                    lower.contains(&word.text)
                }
            });
        };
        self.words.iter().all(|word| {
            let wanted = word.text.as_bytes();
            bytes.windows(wanted.len()).any(|window| {
                if word.case_sensitive {
                    window == wanted
                } else {
                    window.eq_ignore_ascii_case(wanted)
                }
            })
        })
    }

    /// The fuzzy score of `haystack`: every word matched, greedily (one pass, no matrix;
    /// fzf's first algorithm), with nucleo's scores. For plain ASCII words only.
    fn score_greedy(&self, haystack: Utf32Str<'_>, matcher: &mut Matcher) -> Option<u32> {
        let mut score = 0;
        for word in &self.words {
            matcher.config.ignore_case = !word.case_sensitive;
            matcher.config.normalize = true;
            score += u32::from(
                matcher.fuzzy_match_greedy(haystack, Utf32Str::Ascii(word.text.as_bytes()))?,
            );
        }
        Some(score)
    }

    /// The score of entry `index`'s description when it holds every word, else `None`:
    /// each word counts as its letters matched in a row, at half the weight of a name.
    fn in_description(&self, index: &SearchIndex, entries: &[Entry], entry: usize) -> Option<u32> {
        let mut score = 0;
        for word in &self.words {
            let text = if word.case_sensitive {
                // Rare (a capital typed), so read from the entry, not kept twice.
                entries[entry]
                    .prompt
                    .description
                    .as_deref()
                    .unwrap_or("")
                    .as_bytes()
            } else {
                let span = index.rows[entry].description;
                &index.text.as_bytes()[span.start..span.start + span.len as usize]
            };
            // The best of its places: a whole word counts double.
            let length = word.text.len();
            let mut whole = false;
            let mut found = false;
            for at in word.finder.find_iter(text) {
                found = true;
                let before = at.checked_sub(1).map(|i| text[i]);
                let after = text.get(at + length).copied();
                let apart = |byte: Option<u8>| byte.is_none_or(|b| !b.is_ascii_alphanumeric());
                if apart(before) && apart(after) {
                    whole = true;
                    break;
                }
            }
            if !found {
                return None;
            }
            let per_char = if whole {
                2 * DESCRIPTION_SCORE_PER_CHAR
            } else {
                DESCRIPTION_SCORE_PER_CHAR
            };
            score += per_char * word.text.chars().count() as u32;
        }
        Some(score)
    }
}

/// Finds the characters of each text a needle matches, for highlighting the rows of a
/// menu: one pattern and one matcher (whose buffers are large) serve every row.
pub struct MatchMarker {
    pattern: Option<Pattern>,
    matcher: Matcher,
    buffer: Vec<char>,
    indices: Vec<u32>,
}

impl MatchMarker {
    /// A highlighter for `needle` (an empty one highlights nothing).
    pub fn new(needle: &str) -> MatchMarker {
        MatchMarker::with(needle, Config::DEFAULT)
    }

    /// A highlighter for `needle` over file paths (nucleo's path bonuses, as the file
    /// picker ranks with).
    pub fn for_paths(needle: &str) -> MatchMarker {
        MatchMarker::with(needle, Config::DEFAULT.match_paths())
    }

    fn with(needle: &str, config: Config) -> MatchMarker {
        MatchMarker {
            pattern: (!needle.is_empty())
                .then(|| Pattern::parse(needle, CaseMatching::Smart, Normalization::Smart)),
            matcher: Matcher::new(config),
            buffer: Vec::new(),
            indices: Vec::new(),
        }
    }

    /// The char positions of `text` that the needle matches, in order (empty when it does
    /// not match).
    pub fn positions(&mut self, text: &str) -> Vec<usize> {
        let Some(pattern) = &self.pattern else {
            return Vec::new();
        };
        self.indices.clear();
        let haystack = Utf32Str::new(text, &mut self.buffer);
        if pattern
            .indices(haystack, &mut self.matcher, &mut self.indices)
            .is_none()
        {
            return Vec::new();
        }
        self.indices.sort_unstable();
        self.indices.dedup();
        self.indices.iter().map(|&i| i as usize).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::PromptInfo;

    fn entry(server: &str, name: &str, description: &str) -> Entry {
        Entry::new(PromptInfo {
            server: server.into(),
            name: name.into(),
            title: None,
            description: Some(description.into()),
            arguments: Vec::new(),
            skill: None,
            mirrors_skill: None,
        })
    }

    proptest::proptest! {
        /// The quick check before fuzzy scoring never drops what the fuzzy matcher matches.
        #[test]
        fn the_quick_check_never_drops_a_fuzzy_match(
            text in "[a-zA-Z:_ é-]{0,24}",
            needle in "[a-zA-Z é]{1,6}",
        ) {
            let pattern = Pattern::parse(&needle, CaseMatching::Smart, Normalization::Smart);
            let mut matcher = Matcher::new(Config::DEFAULT);
            let mut buffer = Vec::new();
            let haystack = Utf32Str::new(&text, &mut buffer);
            let matched = pattern.score(haystack, &mut matcher).is_some();
            proptest::prop_assert!(!matched || Words::new(&needle).may_match(haystack));
        }
    }

    proptest::proptest! {
        /// Typing a query key by key (and deleting some of it) ranks as ranking afresh does.
        #[test]
        fn typing_ranks_as_ranking_afresh(
            prompts in proptest::collection::vec(
                ("[a-c]{1,2}", "[a-eA-E:-]{1,10}", proptest::option::of("[a-eA-E ]{1,10}"), "[a-e ]{0,16}"),
                1..40,
            ),
            typed in "[a-eA-E ]{1,7}",
            deleted in 0usize..4,
        ) {
            let entries: Vec<Entry> = prompts
                .into_iter()
                .map(|(server, name, title, description)| {
                    Entry::new(PromptInfo {
                        server,
                        name,
                        title,
                        description: Some(description),
                        arguments: Vec::new(),
                        skill: None,
                        mirrors_skill: None,
                    })
                })
                .collect();
            let servers = ["a", "b"];
            let mut ranker = Ranker::new(&entries);
            let mut steps: Vec<&str> = (1..=typed.len()).map(|n| &typed[..n]).collect();
            let back = typed.len().saturating_sub(deleted).max(1);
            steps.extend((back..typed.len()).rev().map(|n| &typed[..n]));
            for text in steps {
                let query = Query::parse(text, servers);
                proptest::prop_assert_eq!(
                    ranker.rank(&entries, &query, &[]).to_vec(),
                    rank(&entries, &query, &[]),
                    "after typing {:?}", text
                );
            }
        }
    }

    #[test]
    fn the_quick_check_drops_names_without_the_letters_in_order() {
        let may = |needle: &str, text: &str| {
            Words::new(needle).may_match(Utf32Str::Ascii(text.as_bytes()))
        };
        assert!(may("gre", "py:greet"));
        assert!(!may("gre", "py:erg"));
        assert!(may("Gr", "py:Greet"));
        assert!(!may("Gr", "py:greet"));
        assert!(!may("ab cd", "dcab"));
        assert!(may("ab cd", "cdab"));
        let mut buffer = Vec::new();
        assert!(Words::new("e").may_match(Utf32Str::new("café", &mut buffer)));
    }

    #[test]
    fn ranked_rows_order_by_score_then_catalog_order() {
        let mut rows = [
            Ranked::new(5, 10),
            Ranked::new(2, 10),
            Ranked::new(9, 30),
            Ranked::new(0, 0),
            Ranked::new(7, EXACT_BONUS),
        ];
        rows.sort_unstable();
        let order: Vec<(usize, u32)> = rows.iter().map(|r| (r.index(), r.score())).collect();
        assert_eq!(order, [(7, EXACT_BONUS), (9, 30), (2, 10), (5, 10), (0, 0)]);
    }

    fn titled(name: &str, title: &str, description: &str) -> Entry {
        let mut entry = entry("builtin", name, description);
        std::sync::Arc::make_mut(&mut entry.prompt).title = Some(title.into());
        entry
    }

    fn first_for(entries: &[Entry], needle: &str) -> Vec<String> {
        let query = Query::parse(needle, ["builtin"]);
        rank(entries, &query, &[])
            .iter()
            .map(|r| entries[r.index()].prompt.name.clone())
            .collect()
    }

    #[test]
    fn a_match_in_the_command_name_comes_before_one_in_a_title() {
        // As the bundled library has them, in its order.
        let entries = [
            titled(
                "commit-message",
                "Write a commit message",
                "A commit message for a diff",
            ),
            titled(
                "improve-writing",
                "Improve writing",
                "Clearer, tighter prose",
            ),
            titled("write-tests", "Write tests", "Tests for a piece of code"),
        ];
        for needle in ["wt", "wr", "wri", "write"] {
            assert_eq!(first_for(&entries, needle)[0], "write-tests", "{needle}");
        }
        // A name holding the letters beats a title holding them.
        assert_eq!(
            first_for(&entries, "wr"),
            ["write-tests", "improve-writing", "commit-message"]
        );
    }

    #[test]
    fn a_whole_word_in_a_description_or_argument_beats_letters_scattered_over_a_title() {
        let mut with_argument = entry("builtin", "b-prompt", "Does things");
        std::sync::Arc::make_mut(&mut with_argument.prompt)
            .arguments
            .push(crate::model::PromptArg {
                name: "focus".into(),
                title: None,
                description: None,
                required: false,
            });
        let entries = [
            titled("a-prompt", "For our crafty users", "Nothing to see"),
            entry("builtin", "c-prompt", "Keeps the focus on one thing"),
            with_argument,
        ];
        // `focus` is scattered over the first title (f-o-c-u-s), whole in the others.
        let ranked = first_for(&entries, "focus");
        assert_eq!(ranked.len(), 3, "{ranked:?}");
        assert_eq!(ranked[2], "a-prompt", "{ranked:?}");
    }

    #[test]
    fn exact_names_are_found_in_the_index_ignoring_case() {
        let entries = [entry("py", "Greet", ""), entry("ünï", "cödé", "")];
        let index = SearchIndex::new(&entries);
        assert!(index.is_named(&index.rows[0], "greet"));
        assert!(index.is_named(&index.rows[0], "py:greet"));
        assert!(!index.is_named(&index.rows[0], "gree"));
        assert!(index.is_named(&index.rows[1], "cödé"));
        assert!(index.is_named(&index.rows[1], "ünï:cödé"));
        assert!(!index.is_named(&index.rows[1], "ünï"));
    }

    #[test]
    fn scoring_in_parallel_keeps_the_order() {
        let entries: Vec<Entry> = (0..PARALLEL_FROM * 2 + 7)
            .map(|i| {
                entry(
                    "s",
                    &format!("p{}", i % 97),
                    if i % 2 == 0 { "even p1" } else { "odd" },
                )
            })
            .collect();
        let index = SearchIndex::new(&entries);
        let query = Query::parse("p1", ["s"]);
        let all: Vec<Candidate> = (0..entries.len() as u32)
            .map(|index| Candidate {
                index,
                may_match: Candidate::ALL,
            })
            .collect();
        let (whole, in_order) = index.score(&entries, &query, &all);
        let mut one_by_one: Vec<Ranked> = all
            .chunks(PARALLEL_FROM - 1)
            .flat_map(|c| index.score(&entries, &query, c).0.to_vec())
            .collect();
        one_by_one.sort_unstable();
        assert_eq!(*whole, *one_by_one);
        assert!(whole.len() > PARALLEL_FROM);
        assert!(whole.windows(2).all(|w| w[0].score() > w[1].score()
            || (w[0].score() == w[1].score() && w[0].index() < w[1].index())));
        assert!(in_order.windows(2).all(|w| w[0].index < w[1].index));
        assert_eq!(in_order.len(), whole.len());
    }
}
