//! The `!` command prompt: opening it, running the command, and its outcome.

use crate::app::keys::Action;
use crate::app::source::{CommandOutcome, ValueSource};
use crate::app::{App, CommandPrompt, CommandStage, Effect, Screen};

impl App {
    /// Opens the command prompt over the form, holding the command the focused field's
    /// last value came from, if it did.
    pub(in crate::app) fn open_command_prompt(&mut self) -> Vec<Effect> {
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
    pub(in crate::app) fn command_prompt_action(&mut self, action: Action) -> Vec<Effect> {
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
    pub(in crate::app) fn on_command_ran(
        &mut self,
        id: u64,
        outcome: CommandOutcome,
    ) -> Vec<Effect> {
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
