//! What mcpick remembers between runs: recently used prompts and the values given to each
//! argument. Kept as JSON in the data dir; this module is pure, the runner reads and writes.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

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
        self.recent.retain(|n| n != slash_name);
        self.recent.insert(0, slash_name.to_string());
        self.recent.truncate(RECENT_LIMIT);
        let kept: BTreeMap<String, String> = arguments
            .iter()
            .filter(|(_, v)| v.len() <= VALUE_MAX_BYTES)
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        self.last.insert(slash_name.to_string(), kept);
        let per_prompt = self.values.entry(slash_name.to_string()).or_default();
        for (name, value) in arguments {
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
