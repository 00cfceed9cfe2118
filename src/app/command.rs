//! The form's command prompt: a shell command typed on one line, run by the runner (`sh -c`
//! in the current folder, stdin closed, with a timeout); its output is shown before it
//! becomes the focused field's value, and a failure shows the exit status and stderr.

use crossterm::event::KeyEvent;

use super::line::LineEditor;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::tests::{ctrl, form, key, ready_app, type_text};
    use crate::app::*;
    use crate::app::{KeyScreen, Msg};
    use crossterm::event::KeyCode;

    fn stage(app: &App) -> &CommandStage {
        &form(app)
            .command
            .as_ref()
            .expect("the prompt is open")
            .stage
    }

    fn app_running(command: &str) -> (App, u64) {
        let mut app = ready_app();
        type_text(&mut app, "args-prompt");
        app.update(key(KeyCode::Enter));
        assert!(app.update(ctrl('r')).is_empty());
        assert_eq!(app.key_screen(), KeyScreen::Command);
        type_text(&mut app, command);
        let effects = app.update(key(KeyCode::Enter));
        let [Effect::RunCommand { id, command: ran }] = &effects[..] else {
            panic!("expected a run, got {effects:?}");
        };
        assert_eq!(ran, command);
        assert_eq!(stage(&app), &CommandStage::Running(*id));
        assert!(app.wants_ticks());
        (app, *id)
    }

    #[test]
    fn a_commands_output_is_shown_then_used_and_marked() {
        let (mut app, id) = app_running("printf hello");
        app.update(Msg::CommandRan {
            id,
            outcome: CommandOutcome::Done {
                output: "hello".into(),
            },
        });
        // Shown first: the field is not filled yet.
        assert_eq!(
            stage(&app),
            &CommandStage::Confirm {
                output: "hello".into()
            }
        );
        assert_eq!(form(&app).fields[0].value(), "");
        app.update(key(KeyCode::Enter));
        let form = form(&app);
        assert!(form.command.is_none());
        assert_eq!(form.fields[0].value(), "hello");
        assert_eq!(
            form.fields[0].source.as_ref().unwrap().label(),
            "from $ printf hello · 1 line"
        );
        // A value read in is not sent for completion.
        assert!(form.completion_due.is_none());
        // Ctrl-R again offers the same command.
        app.update(ctrl('r'));
        let prompt = match &app.screen {
            Screen::Form(f) => f.command.as_ref().unwrap(),
            _ => unreachable!(),
        };
        assert_eq!(prompt.input.text(), "printf hello");
    }

    #[test]
    fn a_failure_shows_status_and_stderr_and_goes_back_to_the_line() {
        let (mut app, id) = app_running("false");
        app.update(Msg::CommandRan {
            id,
            outcome: CommandOutcome::Failed {
                why: "exited with status 1".into(),
                stderr: "nope".into(),
            },
        });
        assert!(matches!(stage(&app), CommandStage::Failed { why, stderr }
            if why == "exited with status 1" && stderr == "nope"));
        app.update(key(KeyCode::Enter));
        assert_eq!(stage(&app), &CommandStage::Typing);
        assert_eq!(form(&app).fields[0].value(), "");
        app.update(key(KeyCode::Esc));
        assert!(form(&app).command.is_none());
    }

    #[test]
    fn esc_stops_a_running_command_and_its_late_answer_is_dropped() {
        let (mut app, id) = app_running("sleep 100");
        assert_eq!(app.update(key(KeyCode::Esc)), vec![Effect::CancelCommand]);
        assert_eq!(stage(&app), &CommandStage::Typing);
        app.update(Msg::CommandRan {
            id,
            outcome: CommandOutcome::Done {
                output: "late".into(),
            },
        });
        assert_eq!(stage(&app), &CommandStage::Typing);
        assert_eq!(form(&app).fields[0].value(), "");
    }

    #[test]
    fn undo_brings_back_what_a_commands_output_replaced() {
        let mut app = ready_app();
        type_text(&mut app, "args-prompt");
        app.update(key(KeyCode::Enter));
        type_text(&mut app, "keep me");
        app.update(ctrl('r'));
        type_text(&mut app, "printf hello");
        let effects = app.update(key(KeyCode::Enter));
        let [Effect::RunCommand { id, .. }] = effects[..] else {
            panic!("expected a run, got {effects:?}");
        };
        app.update(Msg::CommandRan {
            id,
            outcome: CommandOutcome::Done {
                output: "hello".into(),
            },
        });
        app.update(key(KeyCode::Enter));
        assert_eq!(form(&app).fields[0].value(), "hello");
        assert!(!form(&app).suggestions.visible());
        app.update(ctrl('z'));
        assert_eq!(form(&app).fields[0].value(), "keep me");
        assert!(form(&app).fields[0].source.is_none());
    }
}
