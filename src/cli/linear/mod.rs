//! The screen reader mode (`--screen-reader`, `MCPICK_SCREEN_READER=1`, `[ui]
//! screen_reader = true`): the whole loop as plain lines in the terminal's scrollback, read
//! from standard input line by line in the terminal's own mode. No alternate screen, no
//! cursor addressing, no box drawing, no spinners: every line is said once and means
//! something on its own. The same layers as the full screen below it (search, the hub,
//! export, the clipboard); see docs/accessibility.md.

mod announce;
mod fetch;
mod form;
mod lines;
mod menu;
mod review;
mod session;
mod words;

use std::process::ExitCode;

use super::CliError;
use super::access::{Switch, first_line};
use crate::app::Start;
use crate::config::Config;
use crate::export::Format;
use session::{Session, Step};

/// Runs the loop in the screen reader mode: `by` turned it on, `note` is said after the
/// first line (no config file), `start` holds `-q` and a prompt named on the command line,
/// `output` is `--output FILE` (the file the save action writes, then quits).
pub async fn run(
    config: Config,
    note: Option<String>,
    by: Switch,
    start: Start,
    format: Format,
    output: Option<std::path::PathBuf>,
    lock: Option<crate::app::MenuLock>,
) -> Result<ExitCode, CliError> {
    lines::say(&first_line(&by));
    if let Some(note) = note {
        lines::say(&words::sentence(&note));
    }
    let mut session = Session::start(config, format, output, lock)?;
    let code = match session.wait_for_servers().await {
        Some(code) => code,
        None => main_loop(&mut session, start).await,
    };
    session.shutdown().await;
    Ok(ExitCode::from(code))
}

/// The menu, the form, the fetch and the review in turn, until the user quits.
async fn main_loop(session: &mut Session, start: Start) -> u8 {
    let mut query = Some(start.query);
    let mut open = start.open.and_then(|open| {
        let typed = format!("/{}", open.reference.whole.replacen('/', ":", 1));
        match session.exact(&typed) {
            Some(entry) => Some((entry, open.values)),
            None => {
                session.news.add(format!(
                    "No prompt {} is offered; the menu follows.",
                    crate::text::one_line(&open.reference.whole)
                ));
                None
            }
        }
    });
    // fzf's `--exit-0` and `--select-1`, once the servers answered.
    if start.exit_zero || start.select_one {
        let matches = session.matches(query.as_deref().unwrap_or(""));
        if matches.is_empty() && start.exit_zero {
            session.say_news();
            lines::say("No prompt matches; exiting (--exit-0).");
            return 1;
        }
        if let [only] = matches.as_slice()
            && start.select_one
            && open.is_none()
        {
            open = Some((only.clone(), Default::default()));
        }
    }
    loop {
        let (entry, given) = match open.take() {
            Some((entry, _)) if session.lock_refuses(&entry) => continue,
            Some(opened) => opened,
            None => match session.menu(query.take()).await {
                Step::Go(entry) => (entry, Default::default()),
                Step::Menu => continue,
                Step::Quit(code) => return code,
            },
        };
        let arguments = match session.form(&entry, given).await {
            Step::Go(arguments) => arguments,
            Step::Menu => {
                lines::say("Back to the menu.");
                continue;
            }
            Step::Quit(code) => return code,
        };
        let messages = match session.fetch(&entry, &arguments).await {
            Step::Go(messages) => messages,
            Step::Menu => continue,
            Step::Quit(code) => return code,
        };
        match session.review(messages).await {
            Step::Go(()) | Step::Menu => lines::say("Back to the menu."),
            Step::Quit(code) => return code,
        }
    }
}
