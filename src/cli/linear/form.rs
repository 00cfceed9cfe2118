//! The form, one argument per question: its place, label and description, the values
//! remembered from earlier runs and the server's suggestions as a numbered list, a value
//! of several lines ended by a line holding only a full stop.

use std::collections::BTreeMap;
use std::time::Duration;

use super::lines::say;
use super::session::{Session, Step, Typed};
use super::words::{self, BACK_TO_MENU, CHOICES_SHOWN, MULTI_LINE_MARK};
use crate::model::{PromptArg, PromptInfo};
use crate::search::Entry;
use crate::text::one_line;

/// How long the form waits for a server's suggestions before asking without them.
const SUGGESTIONS_WAIT: Duration = Duration::from_secs(5);

/// How many remembered values of an argument are offered.
const REMEMBERED: usize = 3;

/// One value offered for an argument.
struct Choice {
    value: String,
    remembered: bool,
}

impl Session {
    /// Asks each argument of `entry`'s prompt in turn (those in `given` are taken as
    /// given), then remembers the values.
    pub(super) async fn form(
        &mut self,
        entry: &Entry,
        given: BTreeMap<String, String>,
    ) -> Step<BTreeMap<String, String>> {
        let prompt = entry.prompt.clone();
        say(&words::opening(entry));
        if !prompt.arguments.is_empty() {
            say(&words::form_help());
        }
        let count = prompt.arguments.len();
        let mut values = given;
        for (index, argument) in prompt.arguments.iter().enumerate() {
            let label = argument.title.as_deref().unwrap_or(&argument.name);
            if let Some(value) = values.get(&argument.name) {
                say(&format!(
                    "{} Given on the command line: {}",
                    words::argument_question(index, count, argument),
                    words::value_given(label, value)
                ));
                continue;
            }
            match self
                .ask_argument(entry, index, count, argument, &values)
                .await
            {
                Step::Go(Some(value)) => {
                    values.insert(argument.name.clone(), value);
                }
                Step::Go(None) => {}
                Step::Menu => return Step::Menu,
                Step::Quit(code) => return Step::Quit(code),
            }
        }
        self.remember(&entry.slash_name, &values);
        Step::Go(values)
    }

    /// One argument's question and answer (`None`: left empty).
    async fn ask_argument(
        &mut self,
        entry: &Entry,
        index: usize,
        count: usize,
        argument: &PromptArg,
        values: &BTreeMap<String, String>,
    ) -> Step<Option<String>> {
        let prompt = &entry.prompt;
        let label = argument.title.as_deref().unwrap_or(&argument.name);
        say(&words::argument_question(index, count, argument));
        let remembered: Vec<String> = self
            .history
            .values(&entry.slash_name, &argument.name)
            .iter()
            .take(REMEMBERED)
            .cloned()
            .collect();
        let last = self
            .history
            .last_value(&entry.slash_name, &argument.name)
            .filter(|v| !v.is_empty())
            .map(str::to_string);
        let suggested = self.suggestions(prompt, &argument.name, "", values).await;
        let offers_suggestions = !suggested.is_empty();
        let mut choices = choices_of(&remembered, suggested, "");
        say_choices(&choices, &prompt.server);
        if let Some(hint) = words::argument_hint(argument.required, last.as_deref(), choices.len())
        {
            say(&hint);
        }
        let prompt_text = format!("{}> ", one_line(&argument.name));
        loop {
            let line = match self.read(&prompt_text).await {
                Typed::Line(line) => line,
                Typed::End => return Step::Quit(self.quit_code()),
                Typed::Stopped(code) => return Step::Quit(code),
            };
            let typed = line.trim();
            if typed == BACK_TO_MENU {
                return Step::Menu;
            }
            let value = if typed == MULTI_LINE_MARK {
                say("Type the lines; a line holding only a full stop ends the value.");
                match self.read_lines().await {
                    Step::Go(value) => value,
                    Step::Menu => return Step::Menu,
                    Step::Quit(code) => return Step::Quit(code),
                }
            } else if offers_suggestions
                && let Some(start) = typed.strip_suffix('?')
                && !start.contains(char::is_whitespace)
            {
                let suggested = self
                    .suggestions(prompt, &argument.name, start, values)
                    .await;
                choices = choices_of(&remembered, suggested, start);
                if choices.is_empty() {
                    say(&format!("No choice starts with \"{}\".", one_line(start)));
                } else {
                    say_choices(&choices, &prompt.server);
                }
                continue;
            } else if let Some(choice) = typed
                .parse::<usize>()
                .ok()
                .and_then(|n| n.checked_sub(1))
                .and_then(|at| choices.get(at))
                .filter(|_| !choices.iter().any(|c| c.value == typed))
            {
                choice.value.clone()
            } else if line.is_empty() {
                match &last {
                    Some(last) => last.clone(),
                    None if !argument.required => {
                        say(&words::value_given(label, ""));
                        return Step::Go(None);
                    }
                    None => {
                        say(&format!("{} is required: type a value.", one_line(label)));
                        continue;
                    }
                }
            } else {
                line
            };
            say(&words::value_given(label, &value));
            return Step::Go(Some(value));
        }
    }

    /// The lines of a value of several lines, up to a line holding only a full stop. No
    /// announcement is said in between: they wait for the next question.
    async fn read_lines(&mut self) -> Step<String> {
        let mut lines: Vec<String> = Vec::new();
        loop {
            match self.read_holding_news("").await {
                Typed::Line(line) if line.trim_end() == MULTI_LINE_MARK => {
                    return Step::Go(lines.join("\n"));
                }
                Typed::Line(line) if lines.is_empty() && line.trim() == BACK_TO_MENU => {
                    return Step::Menu;
                }
                Typed::Line(line) => lines.push(line),
                Typed::End => return Step::Go(lines.join("\n")),
                Typed::Stopped(code) => return Step::Quit(code),
            }
        }
    }

    /// The server's suggestions for `argument` starting from `start` (none when it offers
    /// none, fails, or is slow).
    async fn suggestions(
        &mut self,
        prompt: &PromptInfo,
        argument: &str,
        start: &str,
        values: &BTreeMap<String, String>,
    ) -> Vec<String> {
        let Some(connection) = self.hub.connection(&prompt.server) else {
            return Vec::new();
        };
        if prompt.skill.is_some() {
            return Vec::new();
        }
        let context: BTreeMap<String, String> = values
            .iter()
            .filter(|(name, _)| name.as_str() != argument)
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let name = prompt.name.clone();
        let work = async move {
            tokio::time::timeout(
                SUGGESTIONS_WAIT,
                connection.complete(&name, argument, start, &context),
            )
            .await
        };
        match self.run_stoppable(work).await {
            Ok(Ok(Ok(completion))) => completion.values,
            _ => Vec::new(),
        }
    }
}

/// The choices for an argument: the remembered values starting with `start`, then the
/// server's suggestions not among them.
fn choices_of(remembered: &[String], suggested: Vec<String>, start: &str) -> Vec<Choice> {
    let start_lower = start.to_lowercase();
    let mut choices: Vec<Choice> = remembered
        .iter()
        .filter(|v| v.to_lowercase().starts_with(&start_lower))
        .map(|value| Choice {
            value: value.clone(),
            remembered: true,
        })
        .collect();
    for value in suggested {
        if !choices.iter().any(|c| c.value == value) {
            choices.push(Choice {
                value,
                remembered: false,
            });
        }
    }
    choices
}

/// Reads out the choices (the first [`CHOICES_SHOWN`]), numbered from 1.
fn say_choices(choices: &[Choice], server: &str) {
    if choices.is_empty() {
        return;
    }
    let remembered = choices.iter().filter(|c| c.remembered).count();
    say(&words::choices_heading(
        remembered,
        choices.len() - remembered,
        server,
    ));
    for (at, choice) in choices.iter().take(CHOICES_SHOWN).enumerate() {
        say(&words::choice_row(at + 1, &choice.value, choice.remembered));
    }
    if choices.len() > CHOICES_SHOWN {
        say(&words::more_choices(choices.len() - CHOICES_SHOWN));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembered_values_come_first_and_a_suggestion_is_offered_once() {
        let remembered = vec!["English".to_string(), "German".to_string()];
        let choices = choices_of(
            &remembered,
            vec!["French".into(), "English".into(), "Spanish".into()],
            "",
        );
        let said: Vec<(&str, bool)> = choices
            .iter()
            .map(|c| (c.value.as_str(), c.remembered))
            .collect();
        assert_eq!(
            said,
            [
                ("English", true),
                ("German", true),
                ("French", false),
                ("Spanish", false)
            ]
        );
        // Narrowed by a start: the remembered values that start so (any case) stay.
        let narrowed = choices_of(&remembered, vec!["Georgian".into()], "ge");
        let said: Vec<&str> = narrowed.iter().map(|c| c.value.as_str()).collect();
        assert_eq!(said, ["German", "Georgian"]);
    }
}
