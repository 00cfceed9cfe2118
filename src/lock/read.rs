//! Reading a lockfile: TOML parsed with its spans and each field checked by hand, so a
//! fault is named by its line and column with what to do (and no serde code is generated
//! for a file read once a run).

use super::entries::{LockedArgument, LockedExample, LockedPrompt, LockedSkill};
use super::file::{LockedServer, Lockfile, VERSION};
use std::collections::BTreeMap;
use std::ops::Range;
use toml_edit::{Item, TableLike};

/// A lockfile that cannot be read: where and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{column}: {message}")]
pub struct LockError {
    /// The 1-based line of the fault (1 when the fault is the whole file's).
    pub line: usize,
    /// The 1-based column.
    pub column: usize,
    /// What is wrong, and what to do.
    pub message: String,
}

/// What every message about a field the file should not have ends with.
const WRITE_ANEW: &str = "run `mcpick lock` to write the file anew";

impl Lockfile {
    /// Reads a lockfile; an error names the line and column at fault and what to do.
    pub fn parse(text: &str) -> Result<Lockfile, LockError> {
        let reader = Reader { text };
        let document = toml_edit::Document::parse(text)
            .map_err(|e| reader.fail(e.span(), format!("not TOML: {}", e.message().trim())))?;
        let root: &dyn TableLike = document.as_table();
        match root.get("version") {
            Some(item) if item.as_integer() == Some(i64::from(VERSION)) => {}
            Some(item) => {
                return Err(reader.fail(
                    item.span(),
                    format!(
                        "lockfile version {}: this mcpick reads version {VERSION} \
                         (upgrade mcpick, or run `mcpick lock` to write it anew)",
                        item.as_value()
                            .map(ToString::to_string)
                            .unwrap_or_default()
                            .trim()
                    ),
                ));
            }
            None => {
                return Err(reader.fail(
                    None,
                    format!("no `version = {VERSION}`: not a lockfile `mcpick lock` wrote"),
                ));
            }
        }
        reader.known_keys(root, &["version", "servers"], "the lockfile")?;
        let mut servers = BTreeMap::new();
        if let Some(item) = root.get("servers") {
            for (name, item) in reader.table(item, "servers")?.iter() {
                let server = reader.server(item, &format!("servers.{name}"))?;
                servers.insert(name.to_string(), server);
            }
        }
        let lockfile = Lockfile {
            version: VERSION,
            servers,
        };
        lockfile
            .check_digests()
            .map_err(|message| reader.fail(None, message))?;
        Ok(lockfile)
    }
}

/// The text being read, for the line and column of a span.
struct Reader<'t> {
    text: &'t str,
}

impl Reader<'_> {
    fn fail(&self, span: Option<Range<usize>>, message: String) -> LockError {
        let (line, column) = line_column(self.text, span.map_or(0, |s| s.start));
        LockError {
            line,
            column,
            message,
        }
    }

    fn table<'a>(&self, item: &'a Item, path: &str) -> Result<&'a dyn TableLike, LockError> {
        item.as_table_like()
            .ok_or_else(|| self.fail(item.span(), format!("`{path}` must be a table")))
    }

    /// Every key of `table` is one of `known`.
    fn known_keys(
        &self,
        table: &dyn TableLike,
        known: &[&str],
        path: &str,
    ) -> Result<(), LockError> {
        match table.iter().find(|(key, _)| !known.contains(key)) {
            Some((key, _)) => {
                let span = table.get_key_value(key).and_then(|(k, _)| k.span());
                Err(self.fail(
                    span,
                    format!(
                        "{path} has a field `{key}` this mcpick does not write (it writes {}); \
                         {WRITE_ANEW}",
                        known.join(", ")
                    ),
                ))
            }
            None => Ok(()),
        }
    }

    fn string(
        &self,
        table: &dyn TableLike,
        key: &str,
        path: &str,
    ) -> Result<Option<String>, LockError> {
        let Some(item) = table.get(key) else {
            return Ok(None);
        };
        match item.as_str() {
            Some(text) => Ok(Some(text.to_string())),
            None => Err(self.fail(item.span(), format!("`{path}.{key}` must be a string"))),
        }
    }

    fn required_string(
        &self,
        table: &dyn TableLike,
        span: Option<Range<usize>>,
        key: &str,
        path: &str,
    ) -> Result<String, LockError> {
        self.string(table, key, path)?
            .ok_or_else(|| self.fail(span, format!("`{path}` has no `{key}`; {WRITE_ANEW}")))
    }

    fn boolean(&self, table: &dyn TableLike, key: &str, path: &str) -> Result<bool, LockError> {
        match table.get(key) {
            None => Ok(false),
            Some(item) => item.as_bool().ok_or_else(|| {
                self.fail(item.span(), format!("`{path}.{key}` must be true or false"))
            }),
        }
    }

    /// An array of tables, `[[…]]` or inline, with each one's span.
    #[allow(clippy::type_complexity)]
    fn tables<'a>(
        &self,
        item: &'a Item,
        path: &str,
    ) -> Result<Vec<(&'a dyn TableLike, Option<Range<usize>>)>, LockError> {
        if let Some(array) = item.as_array_of_tables() {
            return Ok(array
                .iter()
                .map(|t| (t as &dyn TableLike, t.span()))
                .collect());
        }
        let Some(array) = item.as_array() else {
            return Err(self.fail(item.span(), format!("`{path}` must be an array of tables")));
        };
        array
            .iter()
            .map(|value| match value.as_inline_table() {
                Some(table) => Ok((table as &dyn TableLike, value.span())),
                None => Err(self.fail(value.span(), format!("`{path}` must hold tables"))),
            })
            .collect()
    }

    /// A table of strings by name.
    fn strings(&self, item: &Item, path: &str) -> Result<BTreeMap<String, String>, LockError> {
        let table = self.table(item, path)?;
        let mut map = BTreeMap::new();
        for (key, value) in table.iter() {
            let text = value.as_str().ok_or_else(|| {
                self.fail(value.span(), format!("`{path}.{key}` must be a string"))
            })?;
            map.insert(key.to_string(), text.to_string());
        }
        Ok(map)
    }

    fn server(&self, item: &Item, path: &str) -> Result<LockedServer, LockError> {
        let table = self.table(item, path)?;
        let known = [
            "server_name",
            "server_version",
            "protocol_version",
            "prompts",
            "skills",
        ];
        self.known_keys(table, &known, path)?;
        let mut server = LockedServer {
            server_name: self.string(table, "server_name", path)?,
            server_version: self.string(table, "server_version", path)?,
            protocol_version: self.required_string(table, item.span(), "protocol_version", path)?,
            ..LockedServer::default()
        };
        if let Some(prompts) = table.get("prompts") {
            let at = format!("{path}.prompts");
            for (name, item) in self.table(prompts, &at)?.iter() {
                let prompt = self.prompt(item, &format!("{at}.{name}"))?;
                server.prompts.insert(name.to_string(), prompt);
            }
        }
        if let Some(skills) = table.get("skills") {
            let at = format!("{path}.skills");
            for (name, item) in self.table(skills, &at)?.iter() {
                let skill = self.skill(item, &format!("{at}.{name}"))?;
                server.skills.insert(name.to_string(), skill);
            }
        }
        Ok(server)
    }

    fn prompt(&self, item: &Item, path: &str) -> Result<LockedPrompt, LockError> {
        let table = self.table(item, path)?;
        let known = ["title", "description", "digest", "arguments", "examples"];
        self.known_keys(table, &known, path)?;
        let mut prompt = LockedPrompt {
            title: self.string(table, "title", path)?,
            description: self.string(table, "description", path)?,
            digest: self.required_string(table, item.span(), "digest", path)?,
            ..LockedPrompt::default()
        };
        if let Some(arguments) = table.get("arguments") {
            let at = format!("{path}.arguments");
            for (table, span) in self.tables(arguments, &at)? {
                let known = ["name", "title", "description", "required"];
                self.known_keys(table, &known, &at)?;
                prompt.arguments.push(LockedArgument {
                    name: self.required_string(table, span, "name", &at)?,
                    title: self.string(table, "title", &at)?,
                    description: self.string(table, "description", &at)?,
                    required: self.boolean(table, "required", &at)?,
                });
            }
        }
        if let Some(examples) = table.get("examples") {
            let at = format!("{path}.examples");
            for (table, span) in self.tables(examples, &at)? {
                self.known_keys(table, &["arguments", "digest", "output"], &at)?;
                let arguments = match table.get("arguments") {
                    Some(item) => self.strings(item, &format!("{at}.arguments"))?,
                    None => BTreeMap::new(),
                };
                prompt.examples.push(LockedExample {
                    digest: self.required_string(table, span, "digest", &at)?,
                    output: self.string(table, "output", &at)?,
                    arguments,
                });
            }
        }
        Ok(prompt)
    }

    fn skill(&self, item: &Item, path: &str) -> Result<LockedSkill, LockError> {
        let table = self.table(item, path)?;
        let known = ["description", "digest", "dynamic", "files"];
        self.known_keys(table, &known, path)?;
        Ok(LockedSkill {
            description: self.string(table, "description", path)?,
            digest: self.required_string(table, item.span(), "digest", path)?,
            dynamic: self.boolean(table, "dynamic", path)?,
            files: match table.get("files") {
                Some(files) => self.strings(files, &format!("{path}.files"))?,
                None => BTreeMap::new(),
            },
        })
    }
}

/// The 1-based line and column (in characters) of byte `offset` of `text`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut end = offset.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let before = &text[..end];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    (line, column)
}
