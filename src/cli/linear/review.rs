//! The review: each message read out labelled, then the actions as a numbered list (copy,
//! save, print, edit in `$EDITOR`, change the format, read again, menu, quit). A copy says
//! exactly where the text went.

use super::lines::say;
use super::session::{Session, Step, Typed};
use super::words::{self, ACTION_PROMPT, Action, format_name};
use crate::export::{Format, clipboard, render};
use crate::model::{Content, KnownContent, PromptMessages};
use crate::text::{counted, one_line};

impl Session {
    /// Reads the messages, then takes actions until the menu or quitting.
    pub(super) async fn review(&mut self, mut messages: PromptMessages) -> Step<()> {
        read_out(&messages);
        self.say_actions();
        loop {
            let line = match self.read(ACTION_PROMPT).await {
                Typed::Line(line) => line,
                Typed::End => return Step::Quit(self.quit_code()),
                Typed::Stopped(code) => return Step::Quit(code),
            };
            if line.trim().is_empty() || matches!(line.trim(), "?" | "help") {
                self.say_actions();
                continue;
            }
            let Some(action) = Action::parse(&line) else {
                say(&format!(
                    "No action \"{}\": type a number from 1 to {}, or help to hear them.",
                    one_line(line.trim()),
                    Action::ALL.len()
                ));
                continue;
            };
            match action {
                Action::Copy => self.copy(&messages).await,
                Action::Save => {
                    if let Step::Quit(code) = self.save(&messages).await {
                        return Step::Quit(code);
                    }
                }
                Action::Print => {
                    let text = render(&messages, self.format);
                    say(&format!(
                        "The export in {} follows; then mcpick quits.",
                        format_name(self.format)
                    ));
                    if let Err(error) = crate::cli::output::result(&text) {
                        say(&format!("Cannot print the export: {error}."));
                        continue;
                    }
                    for note in crate::export::labelled_notes(&messages, self.format) {
                        say(&words::sentence(&note));
                    }
                    self.exported = true;
                    return Step::Quit(0);
                }
                Action::Edit => {
                    if let Step::Quit(code) = self.edit(&mut messages).await {
                        return Step::Quit(code);
                    }
                }
                Action::Format => {
                    if let Step::Quit(code) = self.choose_format().await {
                        return Step::Quit(code);
                    }
                }
                Action::Read => read_out(&messages),
                Action::Menu => return Step::Menu,
                Action::Quit => return Step::Quit(self.quit_code()),
            }
        }
    }

    fn say_actions(&self) {
        say("Actions:");
        for (at, action) in Action::ALL.iter().enumerate() {
            match (&self.output, action) {
                (Some(path), Action::Save) => say(&format!(
                    "{}. Save to {}, then quit.",
                    at + 1,
                    crate::text::visible_on_one_line(&path.display().to_string())
                )),
                _ => say(&action.row(at + 1, self.format)),
            }
        }
    }

    /// Copies the export by the route the config and the environment choose, and says
    /// where it went (or why not).
    async fn copy(&mut self, messages: &PromptMessages) {
        let text = render(messages, self.format);
        let route = clipboard::choose(&clipboard::ClipboardEnv::detect(), &self.config.clipboard);
        let copied = match route.terminal_sequence(&text) {
            Some(sequence) => {
                let screen = matches!(route, clipboard::Route::Osc52 { screen: true });
                std::fs::OpenOptions::new()
                    .write(true)
                    .open("/dev/tty")
                    .and_then(|mut tty| std::io::Write::write_all(&mut tty, sequence.as_bytes()))
                    .map(|()| clipboard::Copied::Terminal { screen })
                    .map_err(|e| clipboard::ClipboardError::NoTerminal(e.to_string()))
            }
            None => clipboard::copy(&route, &text).await,
        };
        match copied {
            Ok(copied) => {
                say(&format!(
                    "{}. {} of {}.",
                    copied.summary(),
                    counted(text.chars().count(), "character", "characters"),
                    format_name(self.format)
                ));
                if let Some(advice) = copied.advice() {
                    say(&words::sentence(&advice));
                }
                for note in crate::export::labelled_notes(messages, self.format) {
                    say(&words::sentence(&note));
                }
                self.exported = true;
            }
            Err(error) => say(&format!(
                "The copy failed: {}",
                words::sentence(&error.to_string())
            )),
        }
    }

    /// Asks for a file name and saves the export there (asking before replacing a file).
    async fn save(&mut self, messages: &PromptMessages) -> Step<()> {
        let name = match &self.output {
            // `--output FILE`: that file, and the run ends once it is written.
            Some(path) => path.display().to_string(),
            None => {
                say(&format!(
                    "Save the export in {} to which file? Enter alone goes back.",
                    format_name(self.format)
                ));
                match self.read("file> ").await {
                    Typed::Line(line) => line.trim().to_string(),
                    Typed::End => return Step::Quit(self.quit_code()),
                    Typed::Stopped(code) => return Step::Quit(code),
                }
            }
        };
        if name.is_empty() {
            say("Not saved.");
            return Step::Go(());
        }
        let path = std::path::PathBuf::from(crate::config::expand_tilde(&name));
        let path = if path.is_relative() {
            std::env::current_dir()
                .map(|d| d.join(&path))
                .unwrap_or(path)
        } else {
            path
        };
        let text = render(messages, self.format);
        let mut overwrite = false;
        loop {
            use crate::export::sink::{WriteError, write_atomic};
            match write_atomic(&path, text.as_bytes(), overwrite) {
                Ok(()) => {
                    say(&format!(
                        "Saved {} of {} to {}.",
                        counted(text.chars().count(), "character", "characters"),
                        format_name(self.format),
                        crate::text::visible_on_one_line(&path.display().to_string())
                    ));
                    self.exported = true;
                    if self.output.is_some() {
                        return Step::Quit(0);
                    }
                    return Step::Go(());
                }
                Err(WriteError::Exists(_)) => {
                    say(&format!(
                        "{} exists. Type yes to replace it; anything else keeps it.",
                        crate::text::visible_on_one_line(&path.display().to_string())
                    ));
                    match self.read("replace> ").await {
                        Typed::Line(line) if line.trim().eq_ignore_ascii_case("yes") => {
                            overwrite = true;
                        }
                        Typed::Line(_) => {
                            say("Not saved.");
                            return Step::Go(());
                        }
                        Typed::End => return Step::Quit(self.quit_code()),
                        Typed::Stopped(code) => return Step::Quit(code),
                    }
                }
                Err(WriteError::Failed(error)) => {
                    say(&format!("Not saved: {}", words::sentence(&error)));
                    return Step::Go(());
                }
            }
        }
    }

    /// Edits one text message in `$VISUAL`/`$EDITOR` (the one, or the one named).
    async fn edit(&mut self, messages: &mut PromptMessages) -> Step<()> {
        let texts: Vec<usize> = messages
            .messages
            .iter()
            .enumerate()
            .filter(|(_, m)| matches!(m.content, Content::Known(KnownContent::Text { .. })))
            .map(|(at, _)| at)
            .collect();
        let at = match texts.as_slice() {
            [] => {
                say("No message holds text to edit.");
                return Step::Go(());
            }
            [only] => *only,
            _ => {
                let numbers: Vec<String> = texts.iter().map(|at| (at + 1).to_string()).collect();
                say(&format!(
                    "Edit which message? Messages {} hold text. Enter alone goes back.",
                    numbers.join(", ")
                ));
                let line = match self.read("message> ").await {
                    Typed::Line(line) => line,
                    Typed::End => return Step::Quit(self.quit_code()),
                    Typed::Stopped(code) => return Step::Quit(code),
                };
                match line
                    .trim()
                    .parse::<usize>()
                    .ok()
                    .and_then(|n| n.checked_sub(1))
                    .filter(|at| texts.contains(at))
                {
                    Some(at) => at,
                    None => {
                        say("Not edited.");
                        return Step::Go(());
                    }
                }
            }
        };
        let Content::Known(KnownContent::Text { text, .. }) = &mut messages.messages[at].content
        else {
            return Step::Go(());
        };
        say(&format!("Opening message {} in your editor…", at + 1));
        let old = text.clone();
        let edited = tokio::task::spawn_blocking(move || crate::tui::edit_externally(&old)).await;
        match edited {
            Ok(Ok(new)) if new == *text => say("The editor closed; the message is unchanged."),
            Ok(Ok(new)) => {
                *text = new;
                say(&format!(
                    "Message {} changed: {}. Type read to hear the messages again.",
                    at + 1,
                    counted(text.lines().count(), "line", "lines")
                ));
            }
            Ok(Err(error)) => say(&words::sentence(&error)),
            Err(error) => say(&format!("The editor could not run: {error}.")),
        }
        Step::Go(())
    }

    /// Asks for the export format by number.
    async fn choose_format(&mut self) -> Step<()> {
        say("Formats:");
        for (at, (_, format)) in Format::ALL.iter().enumerate() {
            say(&format!("{}. {}.", at + 1, format_name(*format)));
        }
        let line = match self.read("format> ").await {
            Typed::Line(line) => line,
            Typed::End => return Step::Quit(self.quit_code()),
            Typed::Stopped(code) => return Step::Quit(code),
        };
        let typed = line.trim();
        let chosen = typed
            .parse::<usize>()
            .ok()
            .and_then(|n| n.checked_sub(1))
            .and_then(|at| Format::ALL.get(at))
            .or_else(|| Format::ALL.iter().find(|(name, _)| *name == typed))
            .map(|(_, format)| *format);
        match chosen {
            Some(format) => {
                self.format = format;
                say(&format!("The format is now {}.", format_name(format)));
            }
            None => say(&format!("The format stays {}.", format_name(self.format))),
        }
        Step::Go(())
    }
}

/// Reads out every message: its header, then its text line by line as it is (Markdown
/// markers kept), server text neutralised.
fn read_out(messages: &PromptMessages) {
    if let Some(description) = messages
        .description
        .as_deref()
        .filter(|d| !d.trim().is_empty())
    {
        say(&format!(
            "The server describes the result: {}",
            words::sentence(description)
        ));
    }
    let count = messages.messages.len();
    for (at, message) in messages.messages.iter().enumerate() {
        say(&words::message_header(at, count, message));
        if let Some(text) = words::message_text(message) {
            for line in text.lines() {
                say(&line.replace('\t', "    "));
            }
            say(&format!("End of message {}.", at + 1));
        }
    }
}
