//! `mcpick config import`: other hosts' server configs into mcpick's.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use super::{CliError, output};
use crate::config::import::{self, Context, Dialect};

/// A config file's header when import creates it.
const NEW_CONFIG_HEADER: &str =
    "# mcpick config. Every field is documented in config.example.toml in mcpick's repository.\n";

/// Runs `config import`.
pub fn run(
    config_path: Option<&Path>,
    source: Option<PathBuf>,
    from: Option<String>,
    dry_run: bool,
) -> Result<ExitCode, CliError> {
    let dialect = from
        .as_deref()
        .map(Dialect::parse)
        .transpose()
        .map_err(CliError::usage)?;
    let context = Context::current();
    let Some(source) = source else {
        return list_found(&context);
    };
    let text = std::fs::read_to_string(&source)
        .map_err(|e| CliError::runtime(format!("cannot read {}: {e}", source.display())))?;
    let imported = import::import(&text, &source, dialect, &context)
        .map_err(|e| CliError::runtime(e.to_string()))?;
    for note in &imported.notes {
        output::error(note);
    }
    if imported.servers.is_empty() {
        return Err(CliError::runtime(format!(
            "{} ({}) has no servers to import",
            source.display(),
            imported.dialect
        )));
    }
    let names: Vec<&str> = imported.servers.iter().map(|s| s.name.as_str()).collect();
    if dry_run {
        let toml = import::to_toml(&imported.servers);
        let _ = output::result(&format!(
            "# {} server{} from {} ({})\n{toml}",
            names.len(),
            if names.len() == 1 { "" } else { "s" },
            source.display(),
            imported.dialect
        ));
        return Ok(ExitCode::SUCCESS);
    }
    let target = match config_path {
        Some(path) => path.to_path_buf(),
        None => crate::config::default_config_path().ok_or_else(|| {
            CliError::runtime("this platform has no config directory; pass --config PATH")
        })?,
    };
    let existing = match std::fs::read_to_string(&target) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => NEW_CONFIG_HEADER.to_string(),
        Err(e) => {
            return Err(CliError::runtime(format!(
                "cannot read {}: {e}",
                target.display()
            )));
        }
    };
    let merged = import::merge(&existing, &imported.servers)
        .map_err(|e| CliError::runtime(format!("{}: {e}", target.display())))?;
    for notice in &merged.notices {
        output::error(notice);
    }
    if let Some(dir) = target.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| CliError::runtime(format!("cannot create {}: {e}", dir.display())))?;
    }
    crate::export::sink::write_atomic(&target, merged.text.as_bytes(), true).map_err(|e| {
        CliError::runtime(match e {
            crate::export::sink::WriteError::Failed(message) => message,
            crate::export::sink::WriteError::Exists(path) => format!("{} exists", path.display()),
        })
    })?;
    output::error(&format!(
        "added {} server{} to {}: {}",
        merged.names.len(),
        if merged.names.len() == 1 { "" } else { "s" },
        target.display(),
        merged.names.join(", ")
    ));
    Ok(ExitCode::SUCCESS)
}

/// Lists the other hosts' config files found in the known places, with their servers.
fn list_found(context: &Context) -> Result<ExitCode, CliError> {
    let mut found = 0;
    for (dialect, path) in import::known_locations(context) {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        found += 1;
        let line = match import::import(&text, &path, Some(dialect), context) {
            Ok(imported) if imported.servers.is_empty() => {
                format!("{dialect:<15} {}  (no servers)", path.display())
            }
            Ok(imported) => format!(
                "{dialect:<15} {}  {}",
                path.display(),
                imported
                    .servers
                    .iter()
                    .map(|s| s.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Err(e) => format!(
                "{dialect:<15} {}  cannot be read: {}",
                path.display(),
                e.message
            ),
        };
        let _ = output::result(&format!("{line}\n"));
    }
    if found == 0 {
        output::error(
            "found no other host's MCP config in the usual places (see docs/config.md in mcpick's repository); pass a PATH",
        );
    } else {
        output::error("import one with: mcpick config import PATH [--dry-run]");
    }
    Ok(ExitCode::SUCCESS)
}
