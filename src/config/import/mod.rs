//! Reading other hosts' MCP server configs (Claude Desktop, Claude Code, VS Code, Cursor,
//! Gemini CLI, Zed) and turning them into mcpick `[servers.NAME]` tables. Pure: the caller
//! reads the files and writes the result.

mod jsonc;

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::config::InputSpec;

/// A config format of another host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// `claude_desktop_config.json`: `mcpServers` with `command`, `args`, `env`.
    ClaudeDesktop,
    /// `.mcp.json` and `~/.claude.json`: `mcpServers` with `type`, `url`, `headers`, `${VAR}`.
    ClaudeCode,
    /// `.vscode/mcp.json` and the user `mcp.json`: `servers` and `inputs`, JSON with comments.
    VsCode,
    /// `.cursor/mcp.json`: `mcpServers`, `${env:NAME}`, `${userHome}`, `${workspaceFolder}`.
    Cursor,
    /// Gemini CLI `settings.json`: `mcpServers` with `url` (SSE) or `httpUrl`.
    Gemini,
    /// Zed `settings.json`: `context_servers`, flat or with a nested `command`.
    Zed,
}

impl Dialect {
    /// Every dialect with its `--from` name.
    pub const ALL: [(&'static str, Dialect); 6] = [
        ("claude-desktop", Dialect::ClaudeDesktop),
        ("claude-code", Dialect::ClaudeCode),
        ("vscode", Dialect::VsCode),
        ("cursor", Dialect::Cursor),
        ("gemini", Dialect::Gemini),
        ("zed", Dialect::Zed),
    ];

    /// The `--from` name.
    pub fn name(self) -> &'static str {
        Dialect::ALL
            .iter()
            .find(|(_, d)| *d == self)
            .map(|(n, _)| *n)
            .unwrap_or("?")
    }

    /// The fields a server entry of this dialect may have.
    fn entry_fields(self) -> &'static [&'static str] {
        match self {
            Dialect::ClaudeDesktop => &["command", "args", "env", "type"],
            Dialect::ClaudeCode => &[
                "command", "args", "env", "type", "url", "headers", "timeout", "oauth",
            ],
            Dialect::VsCode => &[
                "type", "command", "args", "env", "envFile", "url", "headers", "cwd", "dev",
                "gallery", "version",
            ],
            Dialect::Cursor => &[
                "type", "command", "args", "env", "envFile", "url", "headers", "auth",
            ],
            Dialect::Gemini => &[
                "command",
                "args",
                "env",
                "cwd",
                "url",
                "httpUrl",
                "headers",
                "timeout",
                "trust",
                "includeTools",
                "excludeTools",
                "description",
                "oauth",
                "authProviderType",
                "type",
            ],
            Dialect::Zed => &[
                "source", "command", "args", "env", "url", "headers", "enabled", "settings",
            ],
        }
    }

    /// The dialect called `name`.
    pub fn parse(name: &str) -> Result<Dialect, String> {
        Dialect::ALL
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, d)| *d)
            .ok_or_else(|| {
                let names: Vec<_> = Dialect::ALL.iter().map(|(n, _)| *n).collect();
                format!(
                    "unknown dialect `{name}` (use one of: {})",
                    names.join(", ")
                )
            })
    }

    /// Guesses the dialect from the file's path and top-level keys.
    pub fn detect(path: &Path, value: &Value) -> Option<Dialect> {
        let text = path.to_string_lossy().replace('\\', "/");
        let file = path
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        if value.get("context_servers").is_some() {
            return Some(Dialect::Zed);
        }
        if value.get("servers").is_some() || value.get("inputs").is_some() {
            return Some(Dialect::VsCode);
        }
        if file == "claude_desktop_config.json" {
            return Some(Dialect::ClaudeDesktop);
        }
        if text.contains("/.cursor/") || text.starts_with(".cursor/") {
            return Some(Dialect::Cursor);
        }
        if text.contains("/.gemini/") || text.starts_with(".gemini/") {
            return Some(Dialect::Gemini);
        }
        let servers = value.get("mcpServers").and_then(Value::as_object);
        if servers.is_some_and(|s| s.values().any(|v| v.get("httpUrl").is_some())) {
            return Some(Dialect::Gemini);
        }
        if servers.is_some() || value.get("projects").is_some() {
            return Some(Dialect::ClaudeCode);
        }
        None
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a file could not be imported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportError {
    /// The file.
    pub path: PathBuf,
    /// What is wrong, with a line and column or the JSON path of the field.
    pub message: String,
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.message)
    }
}

/// Where `${workspaceFolder}` and `${userHome}` point, and where `~/.claude.json` projects
/// are looked up.
#[derive(Debug, Clone)]
pub struct Context {
    /// The project folder (the current one).
    pub workspace: PathBuf,
    /// The user's home folder.
    pub home: Option<PathBuf>,
}

impl Context {
    /// The current folder and the user's home.
    pub fn current() -> Context {
        Context {
            workspace: std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
            home: directories::BaseDirs::new().map(|d| d.home_dir().to_path_buf()),
        }
    }
}

/// One server in mcpick's terms, ready to become a `[servers.NAME]` table. String values
/// are in mcpick's `${VAR}` syntax.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImportedServer {
    /// The table name.
    pub name: String,
    /// A stdio server's program.
    pub command: Option<String>,
    /// Its arguments.
    pub args: Vec<String>,
    /// Its added environment.
    pub env: BTreeMap<String, String>,
    /// Its working folder.
    pub cwd: Option<String>,
    /// An HTTP server's URL.
    pub url: Option<String>,
    /// Whether it speaks the legacy HTTP+SSE transport (`transport = "sse"`).
    pub legacy_sse: bool,
    /// Its headers.
    pub headers: BTreeMap<String, String>,
    /// The request limit.
    pub timeout_ms: Option<u64>,
    /// False when the other host had it disabled.
    pub enabled: bool,
    /// The inputs (`${input:ID}`) its values use, written as `[inputs.ID]` tables.
    pub inputs: Vec<InputSpec>,
}

/// The result of reading one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Import {
    /// Its dialect.
    pub dialect: Dialect,
    /// Its servers, in the file's order.
    pub servers: Vec<ImportedServer>,
    /// Things the user should know (translations that need them, skipped entries).
    pub notes: Vec<String>,
}

/// Parses `text` (the file at `path`) in `dialect`, or the detected one.
pub fn import(
    text: &str,
    path: &Path,
    dialect: Option<Dialect>,
    context: &Context,
) -> Result<Import, ImportError> {
    let error = |message: String| ImportError {
        path: path.to_path_buf(),
        message,
    };
    let value: Value = serde_json::from_str(&jsonc::strip(text)).map_err(|e| {
        error(format!(
            "not valid JSON at line {}, column {}: {e}",
            e.line(),
            e.column()
        ))
    })?;
    let dialect = match dialect.or_else(|| Dialect::detect(path, &value)) {
        Some(d) => d,
        None => {
            return Err(error(
                "found no MCP servers (no `mcpServers`, `servers` or `context_servers`); name the format with --from".into(),
            ));
        }
    };
    let mut notes = Vec::new();
    let mut reader = Reader {
        dialect,
        context,
        notes: &mut notes,
        inputs: BTreeMap::new(),
        used_inputs: Vec::new(),
    };
    let servers = reader
        .read(&value)
        .map_err(|problem| error(problem.to_string()))?;
    Ok(Import {
        dialect,
        servers,
        notes,
    })
}

struct Reader<'a> {
    dialect: Dialect,
    context: &'a Context,
    notes: &'a mut Vec<String>,
    /// VS Code `inputs` by id.
    inputs: BTreeMap<String, InputSpec>,
    /// The inputs the server being read uses.
    used_inputs: Vec<InputSpec>,
}

type Entries<'v> = Vec<(String, &'v Map<String, Value>, String)>;

/// What is wrong with a server entry of another host's file; every path is the JSON path
/// of the field at fault (`mcpServers.x.args`). [`import`] puts the file's name before it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum EntryProblem {
    /// The top level is no object.
    #[error("the file is not a JSON object")]
    NotJsonObject,
    /// A table of servers, or a server, that is no object.
    #[error("`{0}` is not an object")]
    NotAnObject(String),
    /// A field that must be a string.
    #[error("`{0}` must be a string")]
    NotAString(String),
    /// A list with something else than strings.
    #[error("`{0}` must hold strings")]
    NotStrings(String),
    /// A field that must be a list of strings.
    #[error("`{0}` must be a list of strings")]
    NotAList(String),
    /// A field that must be an object.
    #[error("`{0}` must be an object")]
    NotATable(String),
    /// A field the dialect does not have.
    #[error("unknown field `{field}` at `{at}.{field}` (known: {known})")]
    UnknownField {
        /// The field.
        field: String,
        /// The entry's path.
        at: String,
        /// The dialect's fields, comma-separated.
        known: String,
    },
    /// A required field that is not there.
    #[error("`{0}` is missing")]
    Missing(String),
    /// An entry that runs nothing and names no URL.
    #[error("has neither `command` nor `url`")]
    NoCommandNorUrl,
    /// A `${` never closed.
    #[error("`{0}`: `${{` without a closing `}}`")]
    Unclosed(String),
    /// An input id mcpick does not take.
    #[error(
        "`{at}` uses input `{id}`: mcpick takes input ids of letters, digits, `_`, `-` and `.`"
    )]
    InputId {
        /// The field's path.
        at: String,
        /// The id.
        id: String,
    },
    /// A VS Code variable mcpick cannot resolve.
    #[error(
        "`{at}` uses `${{{variable}}}`, which mcpick cannot resolve (it knows env:, input:, workspaceFolder, userHome, pathSeparator)"
    )]
    Unresolvable {
        /// The field's path.
        at: String,
        /// The variable as written.
        variable: String,
    },
    /// A problem of the entry at `at`.
    #[error("`{at}`: {problem}")]
    InEntry {
        /// The entry's path.
        at: String,
        /// What is wrong.
        problem: Box<EntryProblem>,
    },
}

/// Adds the servers of one `name: {entry}` table to `entries`, with their JSON paths.
fn collect_entries<'v>(
    entries: &mut Entries<'v>,
    table: Option<&'v Value>,
    at: &str,
) -> Result<(), EntryProblem> {
    let Some(table) = table else { return Ok(()) };
    let table = table
        .as_object()
        .ok_or_else(|| EntryProblem::NotAnObject(at.to_string()))?;
    for (name, entry) in table {
        let entry = entry
            .as_object()
            .ok_or_else(|| EntryProblem::NotAnObject(format!("{at}.{name}")))?;
        entries.push((name.clone(), entry, format!("{at}.{name}")));
    }
    Ok(())
}

/// One server entry as written, with its JSON path: its fields read with errors that
/// name them.
struct Fields<'a> {
    entry: &'a Map<String, Value>,
    at: &'a str,
}

impl<'a> Fields<'a> {
    /// A string field, or `None` when missing or null.
    fn text(&self, key: &str) -> Result<Option<&'a str>, EntryProblem> {
        match self.entry.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(EntryProblem::NotAString(format!("{}.{key}", self.at))),
        }
    }

    /// A list of strings, empty when missing or null.
    fn list(&self, key: &str) -> Result<Vec<String>, EntryProblem> {
        let at = self.at;
        match self.entry.get(key) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| {
                    v.as_str()
                        .map(str::to_string)
                        .ok_or_else(|| EntryProblem::NotStrings(format!("{at}.{key}")))
                })
                .collect(),
            Some(_) => Err(EntryProblem::NotAList(format!("{at}.{key}"))),
        }
    }

    /// A table of strings (numbers and booleans taken as their text), empty when missing
    /// or null.
    fn map(&self, key: &str) -> Result<BTreeMap<String, String>, EntryProblem> {
        let at = self.at;
        match self.entry.get(key) {
            None | Some(Value::Null) => Ok(BTreeMap::new()),
            Some(Value::Object(m)) => m
                .iter()
                .map(|(k, v)| match v {
                    Value::String(s) => Ok((k.clone(), s.clone())),
                    Value::Number(n) => Ok((k.clone(), n.to_string())),
                    Value::Bool(b) => Ok((k.clone(), b.to_string())),
                    _ => Err(EntryProblem::NotAString(format!("{at}.{key}.{k}"))),
                })
                .collect(),
            Some(_) => Err(EntryProblem::NotATable(format!("{at}.{key}"))),
        }
    }
}

/// A stdio server's program as an entry writes it, not yet translated.
struct Program {
    command: Option<String>,
    args: Vec<String>,
    env: BTreeMap<String, String>,
}

impl Reader<'_> {
    fn read(&mut self, value: &Value) -> Result<Vec<ImportedServer>, EntryProblem> {
        let root = value.as_object().ok_or(EntryProblem::NotJsonObject)?;
        let mut entries: Entries = Vec::new();
        match self.dialect {
            Dialect::VsCode => {
                collect_entries(&mut entries, root.get("servers"), "servers")?;
                if let Some(inputs) = root.get("inputs").and_then(Value::as_array) {
                    for input in inputs {
                        if let Some(id) = input.get("id").and_then(Value::as_str) {
                            let description = input
                                .get("description")
                                .and_then(Value::as_str)
                                .unwrap_or("")
                                .to_string();
                            // VS Code's default is a visible prompt; mcpick masks unless told.
                            let password = input
                                .get("password")
                                .and_then(Value::as_bool)
                                .unwrap_or(true);
                            let spec = InputSpec {
                                id: id.to_string(),
                                description,
                                password,
                            };
                            self.inputs.insert(id.to_string(), spec);
                        }
                    }
                }
            }
            Dialect::Zed => {
                collect_entries(&mut entries, root.get("context_servers"), "context_servers")?
            }
            Dialect::ClaudeCode => {
                collect_entries(&mut entries, root.get("mcpServers"), "mcpServers")?;
                // `~/.claude.json` keeps per-project servers: those of this folder and its parents.
                if let Some(projects) = root.get("projects").and_then(Value::as_object) {
                    for (project, settings) in projects {
                        if self.context.workspace.starts_with(project) {
                            collect_entries(
                                &mut entries,
                                settings.get("mcpServers"),
                                &format!("projects.{project}.mcpServers"),
                            )?;
                        }
                    }
                }
            }
            _ => collect_entries(&mut entries, root.get("mcpServers"), "mcpServers")?,
        }
        let mut drafts = Vec::new();
        for (name, entry, at) in entries {
            match self.server(&name, entry, &at) {
                Ok(Some(draft)) => drafts.push(draft),
                Ok(None) => {}
                Err(problem) => {
                    return Err(EntryProblem::InEntry {
                        at,
                        problem: Box::new(problem),
                    });
                }
            }
        }
        Ok(drafts)
    }

    /// One server entry as a draft: its fields checked against the dialect's, its name
    /// made a table name, the program or URL translated ([`Reader::translate_program`]),
    /// then what applies to both ([`Reader::finish`]).
    fn server(
        &mut self,
        name: &str,
        entry: &Map<String, Value>,
        at: &str,
    ) -> Result<Option<ImportedServer>, EntryProblem> {
        let known = self.dialect.entry_fields();
        if let Some(unknown) = entry.keys().find(|k| !known.contains(&k.as_str())) {
            return Err(EntryProblem::UnknownField {
                field: unknown.clone(),
                at: at.to_string(),
                known: known.join(", "),
            });
        }
        let mut draft = ImportedServer {
            name: table_name(name),
            enabled: true,
            ..ImportedServer::default()
        };
        if draft.name != name {
            self.notes.push(format!(
                "`{name}` is called `{}` here (mcpick names hold letters, digits, -, _ and . only)",
                draft.name
            ));
        }
        let fields = Fields { entry, at };
        let program = self.program(&fields)?;
        let kind = fields.text("type")?.unwrap_or("");
        let http_url = fields.text("httpUrl")?;
        let url = fields.text("url")?;
        if program.command.is_some() {
            self.translate_program(&mut draft, program, &fields, name)?;
        } else if let Some(url) = http_url.or(url) {
            draft.legacy_sse =
                kind == "sse" || (self.dialect == Dialect::Gemini && http_url.is_none());
            draft.url = Some(self.translate(url, at, "url")?);
            draft.headers = fields
                .map("headers")?
                .iter()
                .map(|(k, v)| Ok((k.clone(), self.translate(v, at, &format!("headers.{k}"))?)))
                .collect::<Result<_, EntryProblem>>()?;
        } else {
            return Err(EntryProblem::NoCommandNorUrl);
        }
        self.finish(&mut draft, entry, name);
        Ok(Some(draft))
    }

    /// The program an entry runs, as written: `command`, `args` and `env`, or Zed's older
    /// shape that nests them (`"command": {"path", "args", "env"}`).
    fn program(&self, fields: &Fields) -> Result<Program, EntryProblem> {
        let at = fields.at;
        Ok(match fields.entry.get("command") {
            Some(Value::Object(nested)) if self.dialect == Dialect::Zed => {
                let path = nested
                    .get("path")
                    .and_then(Value::as_str)
                    .ok_or_else(|| EntryProblem::Missing(format!("{at}.command.path")))?;
                let args = nested
                    .get("args")
                    .and_then(Value::as_array)
                    .map(|a| {
                        a.iter()
                            .filter_map(Value::as_str)
                            .map(str::to_string)
                            .collect()
                    })
                    .unwrap_or_default();
                let env = nested
                    .get("env")
                    .and_then(Value::as_object)
                    .map(|m| {
                        m.iter()
                            .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
                            .collect()
                    })
                    .unwrap_or_default();
                Program {
                    command: Some(path.to_string()),
                    args,
                    env,
                }
            }
            _ => Program {
                command: fields.text("command")?.map(str::to_string),
                args: fields.list("args")?,
                env: fields.map("env")?,
            },
        })
    }

    /// A stdio server's program into the draft, each value translated, with its `cwd`;
    /// an `envFile` is noted as not read.
    fn translate_program(
        &mut self,
        draft: &mut ImportedServer,
        program: Program,
        fields: &Fields,
        name: &str,
    ) -> Result<(), EntryProblem> {
        let at = fields.at;
        draft.command = program
            .command
            .as_deref()
            .map(|command| self.translate(command, at, "command"))
            .transpose()?;
        draft.args = program
            .args
            .iter()
            .map(|a| self.translate(a, at, "args"))
            .collect::<Result<_, _>>()?;
        draft.env = program
            .env
            .iter()
            .map(|(k, v)| Ok((k.clone(), self.translate(v, at, &format!("env.{k}"))?)))
            .collect::<Result<_, EntryProblem>>()?;
        if let Some(cwd) = fields.text("cwd")? {
            draft.cwd = Some(self.translate(cwd, at, "cwd")?);
        }
        if fields.entry.contains_key("envFile") {
            self.notes.push(format!(
                "`{name}`: `envFile` is not read by mcpick; put those variables in `env` or your environment"
            ));
        }
        Ok(())
    }

    /// What applies to every draft: the entry's `timeout` and `enabled = false`, and the
    /// inputs its values asked for (taken from the reader), each noted.
    fn finish(&mut self, draft: &mut ImportedServer, entry: &Map<String, Value>, name: &str) {
        if let Some(timeout) = entry.get("timeout").and_then(Value::as_u64) {
            draft.timeout_ms = Some(timeout);
        }
        if entry.get("enabled") == Some(&Value::Bool(false)) {
            draft.enabled = false;
        }
        draft.inputs = std::mem::take(&mut self.used_inputs);
        for input in &draft.inputs {
            self.notes.push(format!(
                "`{name}` asks for input `{}` ({}): mcpick asks for it when the server starts and keeps it in memory only (or set {})",
                input.id,
                input.label(),
                crate::config::input_variable(&input.id)
            ));
        }
    }

    /// One string value in mcpick's syntax: the dialect's variables translated, literal
    /// `${` escaped.
    fn translate(&mut self, value: &str, at: &str, field: &str) -> Result<String, EntryProblem> {
        match self.dialect {
            // Claude Code's `${VAR}` and `${VAR:-default}` are mcpick's own.
            Dialect::ClaudeCode => Ok(value.to_string()),
            // No variables: a `${` is literal.
            Dialect::ClaudeDesktop | Dialect::Zed => Ok(value.replace("${", "$${")),
            Dialect::Gemini => Ok(gemini_variables(value)),
            Dialect::VsCode | Dialect::Cursor => {
                let mut out = String::new();
                let mut rest = value;
                while let Some(start) = rest.find("${") {
                    out.push_str(&rest[..start]);
                    let after = &rest[start + 2..];
                    let end = after
                        .find('}')
                        .ok_or_else(|| EntryProblem::Unclosed(format!("{at}.{field}")))?;
                    let reference = &after[..end];
                    out.push_str(&self.vscode_variable(reference, at, field)?);
                    rest = &after[end + 1..];
                }
                out.push_str(rest);
                Ok(out)
            }
        }
    }

    fn vscode_variable(
        &mut self,
        reference: &str,
        at: &str,
        field: &str,
    ) -> Result<String, EntryProblem> {
        let escape = |path: &Path| path.to_string_lossy().replace("${", "$${");
        if let Some(var) = reference.strip_prefix("env:") {
            return Ok(format!("${{{var}}}"));
        }
        if let Some(id) = reference.strip_prefix("input:") {
            if !crate::config::is_input_id(id) {
                return Err(EntryProblem::InputId {
                    at: format!("{at}.{field}"),
                    id: id.to_string(),
                });
            }
            let spec = self.inputs.get(id).cloned().unwrap_or(InputSpec {
                id: id.to_string(),
                description: String::new(),
                password: true,
            });
            if !self.used_inputs.contains(&spec) {
                self.used_inputs.push(spec);
            }
            return Ok(format!("${{input:{id}}}"));
        }
        match reference {
            "workspaceFolder" | "workspaceRoot" => Ok(escape(&self.context.workspace)),
            "userHome" => match &self.context.home {
                Some(home) => Ok(escape(home)),
                None => Ok("${HOME}".into()),
            },
            "pathSeparator" | "/" => Ok("/".into()),
            other => Err(EntryProblem::Unresolvable {
                at: format!("{at}.{field}"),
                variable: other.to_string(),
            }),
        }
    }
}

/// Gemini CLI expands `$VAR` and `${VAR}`: both become mcpick's `${VAR}`.
fn gemini_variables(value: &str) -> String {
    let mut out = String::new();
    let mut chars = value.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '$'
            && chars
                .peek()
                .is_some_and(|n| n.is_ascii_alphabetic() || *n == '_')
        {
            let mut name = String::new();
            while let Some(n) = chars
                .peek()
                .copied()
                .filter(|n| n.is_ascii_alphanumeric() || *n == '_')
            {
                name.push(n);
                chars.next();
            }
            out.push_str(&format!("${{{name}}}"));
        } else {
            out.push(c);
        }
    }
    out
}

/// A name usable as `[servers.NAME]`: other characters become `-`.
fn table_name(name: &str) -> String {
    let cleaned = crate::text::name_chars(name);
    if cleaned.is_empty() {
        "server".into()
    } else {
        cleaned
    }
}

/// The drafts as TOML `[servers.NAME]` tables.
pub fn to_toml(drafts: &[ImportedServer]) -> String {
    let mut document = toml_edit::DocumentMut::new();
    add_tables(&mut document, drafts);
    document.to_string()
}

fn add_tables(document: &mut toml_edit::DocumentMut, drafts: &[ImportedServer]) {
    use toml_edit::{Array, InlineTable, Item, Table, value};
    if !document.contains_key("servers") {
        let mut servers = Table::new();
        servers.set_implicit(true);
        document.insert("servers", Item::Table(servers));
    }
    let servers = document["servers"]
        .as_table_mut()
        .expect("servers is a table");
    for draft in drafts {
        let mut table = Table::new();
        let inline = |map: &BTreeMap<String, String>| {
            let mut t = InlineTable::new();
            for (k, v) in map {
                t.insert(k, v.as_str().into());
            }
            t
        };
        if let Some(command) = &draft.command {
            table.insert("command", value(command.as_str()));
            if !draft.args.is_empty() {
                let mut args = Array::new();
                for a in &draft.args {
                    args.push(a.as_str());
                }
                table.insert("args", value(args));
            }
            if !draft.env.is_empty() {
                table.insert("env", value(inline(&draft.env)));
            }
            if let Some(cwd) = &draft.cwd {
                table.insert("cwd", value(cwd.as_str()));
            }
        }
        if let Some(url) = &draft.url {
            if draft.legacy_sse {
                table.insert("transport", value("sse"));
            }
            table.insert("url", value(url.as_str()));
            if !draft.headers.is_empty() {
                table.insert("headers", value(inline(&draft.headers)));
            }
        }
        if let Some(timeout) = draft.timeout_ms {
            table.insert(
                "timeout_ms",
                value(i64::try_from(timeout).unwrap_or(i64::MAX)),
            );
        }
        if !draft.enabled {
            table.insert("enabled", value(false));
        }
        servers.insert(&draft.name, Item::Table(table));
    }
    // Inputs are shared by id, as in VS Code: one already in the config is kept as it is.
    for input in drafts.iter().flat_map(|d| &d.inputs) {
        if !document.contains_key("inputs") {
            let mut inputs = Table::new();
            inputs.set_implicit(true);
            document.insert("inputs", Item::Table(inputs));
        }
        let Some(inputs) = document["inputs"].as_table_mut() else {
            continue;
        };
        if inputs.contains_key(&input.id) {
            continue;
        }
        let mut table = Table::new();
        if !input.description.is_empty() {
            table.insert("description", value(input.description.as_str()));
        }
        if !input.password {
            table.insert("password", value(false));
        }
        inputs.insert(&input.id, Item::Table(table));
    }
}

/// What [`merge`] made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merged {
    /// The new config text.
    pub text: String,
    /// The names the servers were added under.
    pub names: Vec<String>,
    /// Renames, for the user.
    pub notices: Vec<String>,
}

/// Adds `drafts` to the config text `existing`, keeping its comments and layout. A name
/// already taken gets a `-2`, `-3`… suffix; the notices say which.
pub fn merge(existing: &str, drafts: &[ImportedServer]) -> Result<Merged, String> {
    let mut document: toml_edit::DocumentMut = existing
        .parse()
        .map_err(|e| format!("the config is not valid TOML: {e}"))?;
    let taken: Vec<String> = document
        .get("servers")
        .and_then(|s| s.as_table())
        .map(|t| t.iter().map(|(k, _)| k.to_string()).collect())
        .unwrap_or_default();
    let mut notices = Vec::new();
    let mut used = taken.clone();
    let mut renamed = Vec::new();
    for draft in drafts {
        let mut draft = draft.clone();
        if used.contains(&draft.name) {
            let base = draft.name.clone();
            let mut n = 2;
            while used.contains(&format!("{base}-{n}")) {
                n += 1;
            }
            draft.name = format!("{base}-{n}");
            notices.push(format!(
                "`{base}` is already in the config; added as `{}`",
                draft.name
            ));
        }
        used.push(draft.name.clone());
        renamed.push(draft);
    }
    let names = renamed.iter().map(|d| d.name.clone()).collect();
    // A file of comments only: toml_edit would keep them after the new tables.
    let text = if taken.is_empty() && document.iter().next().is_none() {
        let mut text = existing.trim_end().to_string();
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        text.push_str(&to_toml(&renamed));
        text
    } else {
        add_tables(&mut document, &renamed);
        document.to_string()
    };
    Ok(Merged {
        text,
        names,
        notices,
    })
}

/// The places other hosts keep MCP configs, for this folder and user, in search order.
pub fn known_locations(context: &Context) -> Vec<(Dialect, PathBuf)> {
    let mut places = Vec::new();
    for folder in context.workspace.ancestors() {
        places.push((Dialect::ClaudeCode, folder.join(".mcp.json")));
    }
    places.push((Dialect::VsCode, context.workspace.join(".vscode/mcp.json")));
    places.push((Dialect::Cursor, context.workspace.join(".cursor/mcp.json")));
    places.push((
        Dialect::Gemini,
        context.workspace.join(".gemini/settings.json"),
    ));
    places.push((Dialect::Zed, context.workspace.join(".zed/settings.json")));
    if let Some(home) = &context.home {
        places.push((Dialect::ClaudeCode, home.join(".claude.json")));
        for base in [
            home.join(".config"),
            home.join("Library/Application Support"),
        ] {
            places.push((
                Dialect::ClaudeDesktop,
                base.join("Claude/claude_desktop_config.json"),
            ));
            places.push((Dialect::VsCode, base.join("Code/User/mcp.json")));
        }
        places.push((Dialect::Cursor, home.join(".cursor/mcp.json")));
        places.push((Dialect::Gemini, home.join(".gemini/settings.json")));
        places.push((Dialect::Zed, home.join(".config/zed/settings.json")));
    }
    // Working in the home folder makes some places the same file: list each once.
    let mut seen = Vec::new();
    places.retain(|(_, path)| {
        let key = path.canonicalize().unwrap_or_else(|_| path.clone());
        let new = !seen.contains(&key);
        seen.push(key);
        new
    });
    places
}

#[cfg(test)]
mod tests;
