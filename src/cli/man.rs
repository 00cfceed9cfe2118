//! `mcpick man`: the man pages, made by clap_mangen from the command line's definition. The
//! main page, `mcpick(1)`, names a page for each subcommand (`mcpick-get(1)`): `mcpick man
//! --dir DIR` writes them all, `mcpick man get` prints one. The main page adds what clap
//! cannot know: EXIT STATUS, ENVIRONMENT and FILES.

use std::io::Write as _;
use std::path::Path;
use std::process::ExitCode;

use super::{CliError, output};

/// One page: its name (`mcpick-auth-login`) and the command it documents.
struct Page {
    name: String,
    command: clap::Command,
}

/// Every page of `command` (mcpick's command line): mcpick's, then each visible
/// subcommand's, depth first (`mcpick-auth`, `mcpick-auth-login`…). clap's `help`
/// subcommand has none.
fn pages(command: clap::Command) -> Vec<Page> {
    fn add(command: &clap::Command, name: String, pages: &mut Vec<Page>) {
        for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
            add(sub, format!("{name}-{}", sub.get_name()), pages);
        }
        pages.push(Page {
            command: command.clone().display_name(&name),
            name,
        });
    }
    let mut command = command.disable_help_subcommand(true);
    command.build();
    let mut pages = Vec::new();
    add(&command, "mcpick".into(), &mut pages);
    pages.reverse();
    pages
}

/// The page names a user may ask for: `get`, `auth-login` (without `mcpick-`).
pub fn page_names(command: clap::Command) -> Vec<String> {
    pages(command)
        .into_iter()
        .filter_map(|page| page.name.strip_prefix("mcpick-").map(str::to_string))
        .collect()
}

/// Runs `mcpick man [SUBCOMMAND] [--dir DIR]` for `command`, mcpick's command line.
pub fn run(
    command: clap::Command,
    page: Option<&str>,
    dir: Option<&Path>,
) -> Result<ExitCode, CliError> {
    let pages = pages(command);
    if let Some(dir) = dir {
        return write_all(&pages, dir);
    }
    let wanted = match page {
        None => "mcpick".to_string(),
        Some(name) => format!("mcpick-{}", name.strip_prefix("mcpick-").unwrap_or(name)),
    };
    let Some(page) = pages.iter().find(|p| p.name == wanted) else {
        let names: Vec<&str> = pages
            .iter()
            .filter_map(|p| p.name.strip_prefix("mcpick-"))
            .collect();
        return Err(CliError::usage(format!(
            "no page `{}`: the pages are {} (`mcpick man` alone prints mcpick's own)",
            page.unwrap_or_default(),
            names.join(", ")
        )));
    };
    let text = render(page).map_err(|e| CliError::runtime(format!("cannot make the page: {e}")))?;
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(&text).and_then(|()| stdout.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(CliError::runtime(format!("cannot write the man page: {e}")))
        }
        _ => Ok(ExitCode::SUCCESS),
    }
}

/// Writes every page into `dir` as `NAME.1`, saying on stderr how many and where.
fn write_all(pages: &[Page], dir: &Path) -> Result<ExitCode, CliError> {
    std::fs::create_dir_all(dir)
        .map_err(|e| CliError::runtime(format!("cannot create {}: {e}", dir.display())))?;
    for page in pages {
        let path = dir.join(format!("{}.1", page.name));
        let text =
            render(page).map_err(|e| CliError::runtime(format!("cannot make the page: {e}")))?;
        // Readable by all, as man pages are (a page holds nothing private).
        std::fs::write(&path, &text)
            .map_err(|e| CliError::runtime(format!("cannot write {}: {e}", path.display())))?;
    }
    output::error(&format!(
        "wrote {} man pages to {} (mcpick.1, mcpick-get.1…)",
        pages.len(),
        dir.display()
    ));
    Ok(ExitCode::SUCCESS)
}

/// A page as roff: clap_mangen's sections, then for the main page EXIT STATUS, ENVIRONMENT
/// and FILES, and SEE ALSO on every page.
fn render(page: &Page) -> std::io::Result<Vec<u8>> {
    let man = clap_mangen::Man::new(page.command.clone());
    let mut out = Vec::new();
    man.render_title(&mut out)?;
    man.render_name_section(&mut out)?;
    man.render_synopsis_section(&mut out)?;
    man.render_description_section(&mut out)?;
    if page.command.get_arguments().any(|a| !a.is_hide_set()) {
        man.render_options_section(&mut out)?;
    }
    if page.command.get_subcommands().any(|s| !s.is_hide_set()) {
        man.render_subcommands_section(&mut out)?;
    }
    if page.name == "mcpick" {
        out.extend_from_slice(main_sections().as_bytes());
    }
    out.extend_from_slice(see_also(&page.name).as_bytes());
    if page.command.get_version().is_some() {
        man.render_version_section(&mut out)?;
    }
    Ok(out)
}

/// `text` as roff text: backslashes and dashes escaped, a leading `.` or `'` made literal.
fn roff(text: &str) -> String {
    let escaped = text.replace('\\', "\\e").replace('-', "\\-");
    if escaped.starts_with(['.', '\'']) {
        format!("\\&{escaped}")
    } else {
        escaped
    }
}

/// A section of tagged paragraphs: `.SH TITLE`, then `.TP` / tag / text for each item.
fn tagged(title: &str, items: &[(&str, &str)]) -> String {
    let mut out = format!(".SH {title}\n");
    for (tag, text) in items {
        out.push_str(&format!(".TP\n\\fB{}\\fR\n{}\n", roff(tag), roff(text)));
    }
    out
}

/// EXIT STATUS, ENVIRONMENT and FILES of the main page.
fn main_sections() -> String {
    let mut out = tagged(
        "\"EXIT STATUS\"",
        &[
            (
                "0",
                "Success: the command did what was asked, or the menu's result was accepted.",
            ),
            (
                "1",
                "A runtime error: no server reachable, a server's error; `mcpick doctor` found a problem; the menu's --exit-0 found no match.",
            ),
            (
                "2",
                "A usage or config error: bad arguments, words a subcommand would not read, an unknown prompt, a missing required argument; a config file that is missing, not TOML, or wrong in what it says (with its PATH:LINE:COLUMN).",
            ),
            (
                "130",
                "Cancelled: Ctrl-C, or the menu left without a result. SIGTERM gives 143, SIGHUP 129, SIGQUIT 131.",
            ),
        ],
    );
    out.push_str(&tagged(
        "ENVIRONMENT",
        &[
            ("MCPICK_CONFIG", "The config file to read, as --config PATH."),
            ("MCPICK_LOG", "The log file's level, as a tracing filter (error, warn, info, debug)."),
            ("MCPICK_INPUT_ID", "The value of the config's input ID (${input:ID}; the ID in upper case, other characters as _), so mcpick does not ask for it."),
            ("MCPICK_SERVE_TOKEN", "The token `mcpick serve --http` asks every request for, instead of --auth-token-file."),
            ("MCPICK_WIDGET_KEY, MCPICK_WIDGET_OPTS, MCPICK_BIN", "The shell widget's key, its extra options, and the mcpick it runs (see mcpick-shell-init(1))."),
            ("MCPICK_COMPLETE", "Set by the completion scripts at each Tab (see mcpick-completions(1))."),
            ("XDG_CONFIG_HOME, XDG_CACHE_HOME, XDG_DATA_HOME, XDG_STATE_HOME", "Where the files below are kept, when set."),
            ("NO_COLOR", "When set and not empty, no colours (bold, underline and reverse remain)."),
            ("VISUAL, EDITOR", "The editor a value or a message opens in (Ctrl-G)."),
            ("TMUX, STY, DISPLAY, WAYLAND_DISPLAY, SSH_CONNECTION", "Read to choose the clipboard route; `mcpick doctor` says which was chosen and why."),
        ],
    ));
    out.push_str(&tagged(
        "FILES",
        &[
            ("~/.config/mcpick/config.toml", "The config ($XDG_CONFIG_HOME/mcpick/config.toml when that is set). `mcpick init` writes a starter one; config.example.toml in the source documents every field."),
            ("~/.cache/mcpick/catalog/", "The prompt catalog kept between runs, one file per server ($XDG_CACHE_HOME on Linux). `mcpick cache show` and `mcpick cache clear`."),
            ("~/.local/share/mcpick/", "Remembered values, drafts and sign-in tokens (auth/), readable by you only ($XDG_DATA_HOME on Linux)."),
            ("~/.local/state/mcpick/mcpick.YYYY-MM-DD.log", "The log, one file a day, the last three kept ($XDG_STATE_HOME on Linux)."),
        ],
    ));
    out.push_str(&format!(
        ".PP\n{}\n",
        roff("Other systems keep the cache, data and log files in their own folders: `mcpick doctor` names each.")
    ));
    out
}

/// SEE ALSO: where the other pages come from.
fn see_also(name: &str) -> String {
    let text = if name == "mcpick" {
        "Each subcommand has its own page, named above: `mcpick man --dir DIR` writes them all (and this one) into DIR, `mcpick man get` prints one."
    } else {
        "mcpick(1), and the pages of the other subcommands: `mcpick man --dir DIR` writes them all."
    };
    format!(".SH \"SEE ALSO\"\n{}\n", roff(text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory as _;

    fn all() -> Vec<Page> {
        pages(crate::cli::Cli::command())
    }

    #[test]
    fn every_page_named_is_one_of_the_pages() {
        let names: Vec<String> = all().into_iter().map(|p| p.name).collect();
        assert_eq!(names[0], "mcpick");
        for page in all() {
            let text = String::from_utf8(render(&page).unwrap())
                .unwrap()
                .replace("\\-", "-");
            for (at, _) in text.match_indices("mcpick-") {
                let rest = &text[at..];
                let end = rest
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
                    .unwrap_or(rest.len());
                if rest[end..].starts_with("(1)") {
                    assert!(
                        names.iter().any(|n| n == &rest[..end]),
                        "{}: {}",
                        page.name,
                        &rest[..end]
                    );
                }
            }
        }
        assert!(!names.iter().any(|n| n == "mcpick-help"), "{names:?}");
        assert!(names.iter().any(|n| n == "mcpick-auth-login"), "{names:?}");
    }

    #[test]
    fn roff_text_cannot_become_a_request() {
        assert_eq!(roff(".SH x"), "\\&.SH x");
        assert_eq!(roff("a-b\\c"), "a\\-b\\ec");
    }
}
