//! Writing a lockfile: sorted TOML, a table per server, prompt and skill, an example's text
//! as a multi-line string, so a change to one prompt is a few lines of a diff.

use super::file::{Lockfile, VERSION};

/// The first lines of every lockfile written.
const HEADER: &str = "# Written by `mcpick lock`; `mcpick check` compares the servers with it (docs/lock.md).\n\
# Run `mcpick lock` again to accept what changed; examples are kept and rendered again.\n";

impl Lockfile {
    /// The lockfile as TOML: sorted by server, prompt and skill, ending in a newline.
    pub fn to_toml(&self) -> String {
        let mut out = format!("{HEADER}version = {VERSION}\n");
        for (name, server) in &self.servers {
            let at = format!("servers.{}", key(name));
            out.push_str(&format!("\n[{at}]\n"));
            field(&mut out, "server_name", server.server_name.as_deref());
            field(&mut out, "server_version", server.server_version.as_deref());
            field(&mut out, "protocol_version", Some(&server.protocol_version));
            for (name, prompt) in &server.prompts {
                let at = format!("{at}.prompts.{}", key(name));
                out.push_str(&format!("\n[{at}]\n"));
                field(&mut out, "title", prompt.title.as_deref());
                field(&mut out, "description", prompt.description.as_deref());
                field(&mut out, "digest", Some(&prompt.digest));
                for argument in &prompt.arguments {
                    out.push_str(&format!("\n[[{at}.arguments]]\n"));
                    field(&mut out, "name", Some(&argument.name));
                    field(&mut out, "title", argument.title.as_deref());
                    field(&mut out, "description", argument.description.as_deref());
                    out.push_str(&format!("required = {}\n", argument.required));
                }
                for example in &prompt.examples {
                    out.push_str(&format!("\n[[{at}.examples]]\n"));
                    if !example.arguments.is_empty() {
                        let pairs: Vec<String> = (example.arguments.iter())
                            .map(|(name, value)| format!("{} = {}", key(name), quoted(value)))
                            .collect();
                        out.push_str(&format!("arguments = {{ {} }}\n", pairs.join(", ")));
                    }
                    field(&mut out, "digest", Some(&example.digest));
                    field(&mut out, "output", example.output.as_deref());
                }
            }
            for (name, skill) in &server.skills {
                let at = format!("{at}.skills.{}", key(name));
                out.push_str(&format!("\n[{at}]\n"));
                field(&mut out, "description", skill.description.as_deref());
                field(&mut out, "digest", Some(&skill.digest));
                if skill.dynamic {
                    out.push_str("dynamic = true\n");
                }
                if !skill.files.is_empty() {
                    out.push_str(&format!("\n[{at}.files]\n"));
                    for (path, digest) in &skill.files {
                        out.push_str(&format!("{} = {}\n", key(path), quoted(digest)));
                    }
                }
            }
        }
        out
    }
}

/// `key = "value"` on its own line, when there is a value; text of several lines as a
/// multi-line string (the toml crate picks the form that reads back the same).
fn field(out: &mut String, key: &str, value: Option<&str>) {
    if let Some(value) = value {
        let written = toml::Value::String(value.to_string()).to_string();
        out.push_str(&format!("{key} = {written}\n"));
    }
}

/// A key as TOML writes it: bare when it can be, else quoted.
fn key(name: &str) -> String {
    let bare = !name.is_empty()
        && (name.bytes()).all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if bare { name.to_string() } else { quoted(name) }
}

/// A basic string on one line: `"`, `\` and every control character escaped.
fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
