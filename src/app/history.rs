//! What mcpick remembers between runs: recently used prompts and the values given to each
//! argument. Kept as JSON in the data dir; this module is pure, the runner reads and writes.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::source::ValueSource;

/// How many recent prompts are kept.
const RECENT_LIMIT: usize = 50;
/// How many values are kept per argument.
const VALUES_LIMIT: usize = 20;
/// Values longer than this are not remembered (pasted documents are not history).
const VALUE_MAX_BYTES: usize = 4096;

/// The remembered state.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct History {
    /// Slash names (`server:prompt`), most recent first.
    #[serde(default)]
    pub recent: Vec<String>,
    /// Slash name → argument → values, most recent first.
    #[serde(default)]
    pub values: BTreeMap<String, BTreeMap<String, Vec<String>>>,
    /// Slash name → the arguments of its last use, empty ones included (they pre-fill the
    /// next form, so a field left empty stays empty).
    #[serde(default)]
    pub last: BTreeMap<String, BTreeMap<String, String>>,
    /// Slash name → the arguments of its last use whose value came from a file, a command
    /// or stdin: where it came from, kept instead of the value (a file is read again).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub sources: BTreeMap<String, BTreeMap<String, ValueSource>>,
}

/// Whether a value must not be written to the history: an argument named like a secret
/// (`api_key`, `token`, `password`…) or a URL with a password in it. The rule that decides
/// which env values of the config are masked.
fn looks_secret(name: &str, value: &str) -> bool {
    crate::secrets::env_value_is_secret(name, value)
}

impl History {
    /// The file name in the data dir.
    pub const FILE: &'static str = "history.json";

    /// Reads the file's text; a damaged file gives an error and an empty history.
    pub fn from_json(text: &str) -> Result<History, String> {
        serde_json::from_str(text)
            .map_err(|e| format!("the history file is damaged ({e}); starting a new one"))
    }

    /// The file's text.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Records a use of `slash_name` with `arguments` (empty values are not remembered).
    pub fn record(&mut self, slash_name: &str, arguments: &BTreeMap<String, String>) {
        self.record_with_sources(slash_name, arguments, &BTreeMap::new());
    }

    /// Records a use of `slash_name` with `arguments`, of which those in `sources` came
    /// from a file, a command or stdin: for them the source is kept, not the value. Empty,
    /// huge and secret-looking values are not remembered.
    pub fn record_with_sources(
        &mut self,
        slash_name: &str,
        arguments: &BTreeMap<String, String>,
        sources: &BTreeMap<String, ValueSource>,
    ) {
        self.recent.retain(|n| n != slash_name);
        self.recent.insert(0, slash_name.to_string());
        self.recent.truncate(RECENT_LIMIT);
        let typed = |(name, value): &(&String, &String)| {
            !sources.contains_key(*name) && !looks_secret(name, value)
        };
        let kept: BTreeMap<String, String> = arguments
            .iter()
            .filter(typed)
            .filter(|(_, v)| v.len() <= VALUE_MAX_BYTES)
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        self.last.insert(slash_name.to_string(), kept);
        if sources.is_empty() {
            self.sources.remove(slash_name);
        } else {
            self.sources.insert(slash_name.to_string(), sources.clone());
        }
        let per_prompt = self.values.entry(slash_name.to_string()).or_default();
        for (name, value) in arguments.iter().filter(typed) {
            if value.is_empty() || value.len() > VALUE_MAX_BYTES {
                continue;
            }
            let values = per_prompt.entry(name.clone()).or_default();
            values.retain(|v| v != value);
            values.insert(0, value.clone());
            values.truncate(VALUES_LIMIT);
        }
    }

    /// The value `argument` of `slash_name` had at its last use, if it was given.
    pub fn last_value(&self, slash_name: &str, argument: &str) -> Option<&str> {
        self.last.get(slash_name)?.get(argument).map(String::as_str)
    }

    /// Where the value of `argument` of `slash_name` came from at its last use, when it came
    /// from a file, a command or stdin.
    pub fn last_source(&self, slash_name: &str, argument: &str) -> Option<&ValueSource> {
        self.sources.get(slash_name)?.get(argument)
    }

    /// The values given before to `argument` of `slash_name`, most recent first.
    pub fn values(&self, slash_name: &str, argument: &str) -> &[String] {
        self.values
            .get(slash_name)
            .and_then(|args| args.get(argument))
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recording_moves_to_front_and_dedups() {
        let mut history = History::default();
        let args = |v: &str| BTreeMap::from([("city".to_string(), v.to_string())]);
        history.record("a:x", &args("Paris"));
        history.record("a:y", &BTreeMap::new());
        history.record("a:x", &args("Rome"));
        history.record("a:x", &args("Paris"));
        assert_eq!(history.recent, ["a:x", "a:y"]);
        assert_eq!(history.values("a:x", "city"), ["Paris", "Rome"]);
        assert!(history.values("a:y", "city").is_empty());
    }

    #[test]
    fn empty_and_huge_values_are_not_remembered() {
        let mut history = History::default();
        history.record("a:x", &BTreeMap::from([("k".to_string(), String::new())]));
        history.record(
            "a:x",
            &BTreeMap::from([("k".to_string(), "x".repeat(VALUE_MAX_BYTES + 1))]),
        );
        assert!(history.values("a:x", "k").is_empty());
    }

    #[test]
    fn sourced_values_are_kept_as_their_source_and_secrets_not_at_all() {
        let mut history = History::default();
        let args = BTreeMap::from([
            ("diff".to_string(), "--- a\n+++ b".to_string()),
            ("log".to_string(), "error: x".to_string()),
            ("api_key".to_string(), "sk-123456".to_string()),
            ("db".to_string(), "postgres://me:hunter2@db/x".to_string()),
            ("city".to_string(), "Paris".to_string()),
        ]);
        let sources = BTreeMap::from([
            ("diff".to_string(), ValueSource::Command("git diff".into())),
            ("log".to_string(), ValueSource::File("build.log".into())),
        ]);
        history.record_with_sources("a:x", &args, &sources);
        assert_eq!(
            history.last_source("a:x", "log"),
            Some(&ValueSource::File("build.log".into()))
        );
        assert_eq!(
            history.last_source("a:x", "diff"),
            Some(&ValueSource::Command("git diff".into()))
        );
        for name in ["diff", "log", "api_key", "db"] {
            assert_eq!(history.last_value("a:x", name), None, "{name}");
            assert!(history.values("a:x", name).is_empty(), "{name}");
        }
        assert_eq!(history.last_value("a:x", "city"), Some("Paris"));
        let json = history.to_json();
        assert!(
            !json.contains("sk-123456") && !json.contains("hunter2"),
            "{json}"
        );
        assert_eq!(History::from_json(&json).unwrap(), history);
        // A later use with typed values forgets the sources.
        history.record(
            "a:x",
            &BTreeMap::from([("log".to_string(), "typed".to_string())]),
        );
        assert_eq!(history.last_source("a:x", "log"), None);
    }

    #[test]
    fn json_round_trips_and_damage_is_reported() {
        let mut history = History::default();
        history.record("a:x", &BTreeMap::from([("k".to_string(), "v".to_string())]));
        assert_eq!(History::from_json(&history.to_json()).unwrap(), history);
        assert!(
            History::from_json("{not json")
                .unwrap_err()
                .contains("damaged")
        );
    }
}
