//! The form's command prompt: a shell command typed on one line, run by the runner (`sh -c`
//! in the current folder, stdin closed, with a timeout); its output is shown before it
//! becomes the focused field's value, and a failure shows the exit status and stderr.

use crossterm::event::KeyEvent;

use super::keys::Action;
use super::line::LineEditor;
use super::source::{CommandOutcome, ValueSource};
use super::{App, Effect, Screen};

/// Where the command prompt is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandStage {
    /// The command is being typed.
    Typing,
    /// It runs (request id).
    Running(u64),
    /// It succeeded: its output, to use or not.
    Confirm {
        /// The output (the value, if used).
        output: String,
    },
    /// It failed.
    Failed {
        /// What happened.
        why: String,
        /// Its stderr.
        stderr: String,
    },
}

/// The command prompt over the form.
#[derive(Debug, Clone)]
pub struct CommandPrompt {
    /// The command line.
    pub input: LineEditor,
    /// Where it is.
    pub stage: CommandStage,
}

impl CommandPrompt {
    /// A prompt holding `command` (a remembered one, or nothing).
    pub fn new(command: &str) -> CommandPrompt {
        CommandPrompt {
            input: LineEditor::new(command),
            stage: CommandStage::Typing,
        }
    }

    /// A key no binding took: typing, while the command is being typed.
    pub fn type_key(&mut self, key: KeyEvent) {
        if self.stage == CommandStage::Typing {
            self.input.key(key);
        }
    }

    /// Pasted text goes into the command line (one line).
    pub fn paste(&mut self, text: &str) {
        if self.stage == CommandStage::Typing {
            self.input.insert_str(&text.replace(['\r', '\n'], " "));
        }
    }
}

impl App {
    /// Opens the command prompt over the form, holding the command the focused field's
    /// last value came from, if it did.
    pub(super) fn open_command_prompt(&mut self) -> Vec<Effect> {
        let Screen::Form(form) = &mut self.screen else {
            return Vec::new();
        };
        if form.fetching.is_some() || form.fields.is_empty() {
            return Vec::new();
        }
        let remembered = form.fields.get(form.focus).and_then(|f| {
            match f.source.as_ref().map(|m| &m.source).or(f.recalled.as_ref()) {
                Some(ValueSource::Command(command)) => Some(command.clone()),
                _ => None,
            }
        });
        form.command = Some(CommandPrompt::new(remembered.as_deref().unwrap_or("")));
        Vec::new()
    }

    /// An action while the command prompt is open.
    pub(super) fn command_prompt_action(&mut self, action: Action) -> Vec<Effect> {
        let id = self.fresh_id();
        let tick = self.tick;
        let Screen::Form(form) = &mut self.screen else {
            return Vec::new();
        };
        let Some(prompt) = form.command.as_mut() else {
            return Vec::new();
        };
        match (action, &prompt.stage) {
            (Action::Submit, CommandStage::Typing) => {
                let command = prompt.input.text().trim().to_string();
                if command.is_empty() {
                    return Vec::new();
                }
                prompt.stage = CommandStage::Running(id);
                vec![Effect::RunCommand { id, command }]
            }
            (Action::Submit, CommandStage::Confirm { output }) => {
                let output = output.clone();
                let command = prompt.input.text().trim().to_string();
                form.command = None;
                let focus = form.focus;
                form.set_sourced_value(
                    focus,
                    &output,
                    ValueSource::Command(command),
                    false,
                    &self.history,
                    tick,
                );
                Vec::new()
            }
            // Esc while it runs stops it; after it ran, Esc and Enter go back to the line.
            (Action::Back, CommandStage::Running(_)) => {
                prompt.stage = CommandStage::Typing;
                vec![Effect::CancelCommand]
            }
            (Action::Back, CommandStage::Typing) => {
                form.command = None;
                Vec::new()
            }
            (Action::Back, _) | (Action::Submit, CommandStage::Failed { .. }) => {
                prompt.stage = CommandStage::Typing;
                Vec::new()
            }
            _ => Vec::new(),
        }
    }

    /// A command's end: its output to confirm, or its failure.
    pub(super) fn on_command_ran(&mut self, id: u64, outcome: CommandOutcome) -> Vec<Effect> {
        if let Screen::Form(form) = &mut self.screen
            && let Some(prompt) = form.command.as_mut()
            && prompt.stage == CommandStage::Running(id)
        {
            prompt.stage = match outcome {
                CommandOutcome::Done { output } => CommandStage::Confirm { output },
                CommandOutcome::Failed { why, stderr } => CommandStage::Failed { why, stderr },
            };
        }
        Vec::new()
    }
}
