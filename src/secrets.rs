//! Secrets of the config (header values, secret-looking env values, typed inputs, OAuth
//! client secrets and tokens) masked in anything a server sends back: its stderr and log
//! messages, its errors, its prompt texts. A server that echoes its key shows `‹hidden›`.

use std::borrow::Cow;

/// What a masked secret is shown as.
pub const MASK: &str = "‹hidden›";

/// Values shorter than this are not masked: `1` or `on` would mangle every text.
pub const MIN_SECRET_CHARS: usize = 4;
/// A secret's start longer than this that ends a text cut short is masked too.
pub const MIN_CUT_PREFIX_CHARS: usize = 8;

/// Words of an env variable's name (split at `_`, `-`…) that mark its value as a secret.
const SECRET_NAME_WORDS: [&str; 17] = [
    "KEY",
    "TOKEN",
    "SECRET",
    "PASS",
    "PASSWORD",
    "PASSWD",
    "AUTH",
    "AUTHORIZATION",
    "CREDENTIAL",
    "CREDENTIALS",
    "COOKIE",
    "SESSION",
    "PRIVATE",
    "PAT",
    "DSN",
    "BEARER",
    "JWT",
];

/// Endings of a name's word that mark a secret too (`APIKEY`, `ACCESSTOKEN`).
const SECRET_NAME_ENDINGS: [&str; 4] = ["KEY", "TOKEN", "SECRET", "PASSWORD"];

/// The secret values of one server, longest first (so a value containing another is masked
/// whole).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Secrets {
    values: Vec<String>,
}

impl std::fmt::Debug for Secrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Secrets({} values)", self.values.len())
    }
}

impl Secrets {
    /// The set of `values`, without the too short ones and duplicates.
    pub fn new(values: impl IntoIterator<Item = String>) -> Secrets {
        let mut secrets = Secrets::default();
        secrets.extend(values);
        secrets
    }

    /// Adds more values.
    pub fn extend(&mut self, values: impl IntoIterator<Item = String>) {
        for value in values {
            let value = value.trim().to_string();
            if value.chars().count() >= MIN_SECRET_CHARS && !self.values.contains(&value) {
                self.values.push(value);
            }
        }
        self.values.sort_by_key(|v| std::cmp::Reverse(v.len()));
    }

    /// Adds the values of `other`.
    pub fn merge(&mut self, other: &Secrets) {
        self.extend(other.values.iter().cloned());
    }

    /// Whether there is nothing to mask.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// `text` with every secret replaced by [`MASK`].
    pub fn mask<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let mut masked = Cow::Borrowed(text);
        for value in &self.values {
            if masked.contains(value.as_str()) {
                masked = Cow::Owned(masked.replace(value.as_str(), MASK));
            }
        }
        masked
    }

    /// [`Secrets::mask`], and also a secret's start of more than [`MIN_CUT_PREFIX_CHARS`]
    /// characters that ends `text` (before its line end): text cut short somewhere before
    /// (a line limit, a ring buffer) would else leave most of a secret unmasked.
    pub fn mask_with_cut_ends<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let masked = self.mask(text);
        let body = masked.trim_end_matches(['\n', '\r']);
        let cut_start = self.values.iter().find_map(|value| {
            let chars: Vec<(usize, char)> = value.char_indices().collect();
            // The longest start of this secret that ends the text, if long enough.
            (MIN_CUT_PREFIX_CHARS + 1..chars.len())
                .rev()
                .map(|n| chars.get(n).map_or(value.len(), |(at, _)| *at))
                .find(|&end| body.ends_with(&value[..end]))
                .map(|end| body.len() - end)
        });
        match cut_start {
            None => masked,
            Some(at) => {
                let mut out = String::with_capacity(masked.len());
                out.push_str(&masked[..at]);
                out.push_str(MASK);
                out.push_str(&masked[body.len()..]);
                Cow::Owned(out)
            }
        }
    }

    /// Masks every string (keys too) of a JSON value in place.
    pub fn mask_json(&self, value: &mut serde_json::Value) {
        use serde_json::Value;
        if self.is_empty() {
            return;
        }
        match value {
            Value::String(text) => {
                if let Cow::Owned(masked) = self.mask(text) {
                    *text = masked;
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|item| self.mask_json(item)),
            Value::Object(map) => {
                let entries = std::mem::take(map);
                for (key, mut item) in entries {
                    self.mask_json(&mut item);
                    map.insert(self.mask(&key).into_owned(), item);
                }
            }
            _ => {}
        }
    }
}

/// Every server's secrets, for the log file, which any module (rmcp's included) may write
/// server text to.
static REGISTERED: std::sync::Mutex<Secrets> =
    std::sync::Mutex::new(Secrets { values: Vec::new() });

/// Adds `secrets` to those masked in the log file.
pub fn register(secrets: &Secrets) {
    let mut registered = REGISTERED.lock().unwrap_or_else(|e| e.into_inner());
    registered.merge(secrets);
}

/// A [`std::io::Write`] that masks every registered secret in what passes through it (the
/// log formatter writes each event whole, so no secret is split between two writes), and
/// the start of one that ends an event cut short before. It comes before anything that
/// cuts the event (a cut first would leave a secret's start unmasked).
#[derive(Clone, Debug)]
pub struct MaskingWriter<W>(pub W);

impl<W: std::io::Write> std::io::Write for MaskingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let masked = {
            let registered = REGISTERED.lock().unwrap_or_else(|e| e.into_inner());
            if registered.is_empty() {
                None
            } else {
                match registered.mask_with_cut_ends(&String::from_utf8_lossy(buf)) {
                    Cow::Owned(masked) => Some(masked),
                    Cow::Borrowed(_) => None,
                }
            }
        };
        match masked {
            Some(masked) => self.0.write_all(masked.as_bytes()).map(|()| buf.len()),
            None => self.0.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

/// Whether an env variable's value is a secret, by its name (`API_KEY`, `GITHUB_TOKEN`,
/// `DB_PASSWORD`…) or by its value (a URL with a password in it).
pub fn env_value_is_secret(name: &str, value: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    let named = upper
        .split(|c: char| !c.is_ascii_alphanumeric())
        .any(|word| {
            SECRET_NAME_WORDS.contains(&word)
                || SECRET_NAME_ENDINGS.iter().any(|end| word.ends_with(end))
        });
    named || url_has_password(value)
}

/// Whether `value` looks like `scheme://user:password@host…`.
fn url_has_password(value: &str) -> bool {
    let Some((_, rest)) = value.split_once("://") else {
        return false;
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    authority
        .rsplit_once('@')
        .is_some_and(|(userinfo, _)| userinfo.contains(':'))
}

/// The secret parts of a header value: the whole value, and the credential after an
/// auth scheme (`Bearer abc` → `abc`), which a server may echo alone.
pub fn header_secrets(value: &str) -> Vec<String> {
    let mut parts = vec![value.to_string()];
    if let Some((scheme, credential)) = value.trim().split_once(' ')
        && !scheme.is_empty()
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-')
    {
        parts.push(credential.trim().to_string());
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_occurrence_is_masked_longest_first() {
        let secrets = Secrets::new(["abcd".to_string(), "abcdefgh".to_string()]);
        assert_eq!(
            secrets.mask("key=abcdefgh, again abcd, abc"),
            "key=‹hidden›, again ‹hidden›, abc"
        );
        assert!(matches!(secrets.mask("nothing here"), Cow::Borrowed(_)));
    }

    #[test]
    fn the_log_writer_masks_registered_secrets() {
        use std::io::Write;
        register(&Secrets::new(["registered-secret-42".to_string()]));
        let mut writer = MaskingWriter(Vec::new());
        let line = b"INFO received notification data=\"registered-secret-42\"\n";
        assert_eq!(writer.write(line).unwrap(), line.len());
        assert_eq!(
            String::from_utf8(writer.0).unwrap(),
            "INFO received notification data=\"‹hidden›\"\n"
        );
    }

    #[test]
    fn short_values_are_not_masked() {
        let secrets = Secrets::new(["1".to_string(), "on".to_string(), " ".to_string()]);
        assert!(secrets.is_empty());
        assert_eq!(secrets.mask("turn 1 on"), "turn 1 on");
    }

    #[test]
    fn json_strings_and_keys_are_masked() {
        let secrets = Secrets::new(["s3cr3t-value".to_string()]);
        let mut value = serde_json::json!({
            "text": "your key is s3cr3t-value",
            "list": [1, "s3cr3t-value"],
            "s3cr3t-value": true,
        });
        secrets.mask_json(&mut value);
        assert_eq!(
            value,
            serde_json::json!({
                "text": "your key is ‹hidden›",
                "list": [1, "‹hidden›"],
                "‹hidden›": true,
            })
        );
    }

    #[test]
    fn secret_env_names_and_urls_with_passwords() {
        for name in [
            "API_KEY",
            "GITHUB_TOKEN",
            "GITHUB_PERSONAL_ACCESS_TOKEN",
            "DB_PASSWORD",
            "client_secret",
            "SENTRY_DSN",
            "AUTH",
            "OPENAI_APIKEY",
        ] {
            assert!(env_value_is_secret(name, "x"), "{name}");
        }
        for name in [
            "NODE_ENV",
            "PATH",
            "DEBUG",
            "HOME",
            "LOG_LEVEL",
            "PATTERN",
            "AUTHOR",
        ] {
            assert!(!env_value_is_secret(name, "production"), "{name}");
        }
        assert!(env_value_is_secret(
            "DATABASE_URL",
            "postgres://app:hunter22@db:5432/x"
        ));
        assert!(!env_value_is_secret("DATABASE_URL", "postgres://db:5432/x"));
        assert!(!env_value_is_secret("HOME_PAGE", "https://example.com/a@b"));
    }

    #[test]
    fn a_bearer_token_is_a_secret_alone_too() {
        assert_eq!(header_secrets("Bearer abc123"), ["Bearer abc123", "abc123"]);
        assert_eq!(header_secrets("abc123"), ["abc123"]);
        assert_eq!(
            header_secrets("Basic dXNlcjpw"),
            ["Basic dXNlcjpw", "dXNlcjpw"]
        );
        assert_eq!(header_secrets("a,b c"), ["a,b c"]);
    }
}
