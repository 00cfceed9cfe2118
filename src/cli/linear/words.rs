//! What the screen reader mode says, as pure functions of the model: each line meaningful
//! on its own, server text neutralised (`text::one_line`), nothing drawn.

use crate::app::MenuLock;
use crate::export::Format;
use crate::lock::Drift;
use crate::model::{Content, EmbeddedResource, KnownContent, Message, PromptArg, PromptInfo};
use crate::search::Entry;
use crate::text::{counted, one_line};

/// How many rows one page of the menu holds.
pub(super) const PAGE: usize = 10;

/// How many choices (remembered values and suggestions) are read out before "and N more".
pub(super) const CHOICES_SHOWN: usize = 10;

/// What the menu prompt line says.
pub(super) const MENU_PROMPT: &str = "menu> ";

/// What the review's prompt line says.
pub(super) const ACTION_PROMPT: &str = "action> ";

/// The line that ends (and begins) a value of several lines.
pub(super) const MULTI_LINE_MARK: &str = ".";

/// The line that leaves the form or the questions for the menu.
pub(super) const BACK_TO_MENU: &str = "/menu";

/// The line that declines a server's question.
pub(super) const DECLINE: &str = "/decline";

/// How the menu is used, said once at the start and on `help`.
pub(super) const MENU_HELP: &str = "Menu: type words to filter the prompts, a number to open that prompt, /server:prompt to open one by name, Enter alone for the next page, all for the whole list, help to hear this again, q to quit.";

/// A sentence from server text: on one line, with a full stop unless it ends in one.
pub(super) fn sentence(text: &str) -> String {
    let text = one_line(text.trim());
    let text = text.trim();
    if text.is_empty() || text.ends_with(['.', '!', '?', ':', '…']) {
        text.to_string()
    } else {
        format!("{text}.")
    }
}

/// One row of the menu: `12. /translate — Translate — builtin — arguments: text
/// (required), to (required), tone`.
pub(super) fn menu_row(number: usize, entry: &Entry, lock: Option<&MenuLock>) -> String {
    let prompt = &entry.prompt;
    let mut parts = vec![format!("{number}. {}", one_line(&entry.command()))];
    if prompt.skill.is_some() {
        parts.push("skill".to_string());
    }
    let title = crate::search::title_column(prompt).text;
    if !title.is_empty() {
        parts.push(title);
    }
    parts.push(one_line(&prompt.server));
    parts.push(arguments_summary(prompt));
    parts.extend(lock.and_then(|lock| drift_words(lock, prompt)));
    parts.join(" — ")
}

/// How a prompt differs from the lockfile, said in one piece of its menu row: `changed
/// since mcpick.lock: argument `mood` added (required)`, or `new, not in mcpick.lock`.
pub(super) fn drift_words(lock: &MenuLock, prompt: &PromptInfo) -> Option<String> {
    let file = one_line(&lock.shown_path);
    Some(match lock.lockfile.drift_of(prompt)? {
        Drift::New => format!("new, not in {file}"),
        Drift::Changed(changes) => {
            let changes: Vec<String> = changes.iter().map(|c| one_line(&c.to_string())).collect();
            format!("changed since {file}: {}", changes.join("; "))
        }
    })
}

/// `arguments: text (required), to (required), tone`, or `no arguments`.
pub(super) fn arguments_summary(prompt: &PromptInfo) -> String {
    if prompt.arguments.is_empty() {
        return "no arguments".to_string();
    }
    let names: Vec<String> = prompt
        .arguments
        .iter()
        .map(|a| {
            let name = one_line(&a.name);
            if a.required {
                format!("{name} (required)")
            } else {
                name
            }
        })
        .collect();
    format!("arguments: {}", names.join(", "))
}

/// The line above a listing: `11 prompts.`, `3 matches for "trans".`
pub(super) fn listing_heading(count: usize, query: Option<&str>) -> String {
    match query {
        None => format!("{}.", counted(count, "prompt", "prompts")),
        Some(query) if count == 0 => format!(
            "No prompt matches \"{}\". Type other words, or all for the whole list.",
            one_line(query)
        ),
        Some(query) => format!(
            "{} for \"{}\".",
            counted(count, "match", "matches"),
            one_line(query)
        ),
    }
}

/// The line under a page: where it is in the list and how to go on.
pub(super) fn page_footer(shown_to: usize, total: usize) -> String {
    if shown_to >= total {
        "End of the list.".to_string()
    } else {
        format!(
            "{shown_to} of {total} read. Enter alone for the next {}.",
            counted((total - shown_to).min(PAGE), "prompt", "prompts")
        )
    }
}

/// The line that opens a prompt's form: `Opening /translate on builtin: Translate. A
/// natural translation… 3 arguments, 2 required.`
pub(super) fn opening(entry: &Entry) -> String {
    let prompt = &entry.prompt;
    let mut line = format!(
        "Opening {} on {}",
        one_line(&entry.command()),
        one_line(&prompt.server)
    );
    let title = crate::search::title_of(prompt);
    if !title.is_empty() {
        line.push_str(&format!(": {}", sentence(&title)));
    } else {
        line.push('.');
    }
    if let Some(description) = prompt
        .description
        .as_deref()
        .filter(|d| !d.trim().is_empty())
    {
        line.push(' ');
        line.push_str(&sentence(description));
    }
    let required = prompt.arguments.iter().filter(|a| a.required).count();
    line.push(' ');
    line.push_str(&match prompt.arguments.len() {
        0 => "No arguments.".to_string(),
        n => format!(
            "{}, {} required.",
            counted(n, "argument", "arguments"),
            required
        ),
    });
    line
}

/// `Argument 1 of 3, required: Text. The text to translate.`
pub(super) fn argument_question(index: usize, count: usize, argument: &PromptArg) -> String {
    let label = argument.title.as_deref().unwrap_or(&argument.name);
    let mut line = format!(
        "Argument {} of {count}{}: {}",
        index + 1,
        if argument.required { ", required" } else { "" },
        sentence(label)
    );
    if let Some(description) = argument
        .description
        .as_deref()
        .filter(|d| !d.trim().is_empty())
    {
        line.push(' ');
        line.push_str(&sentence(description));
    }
    line
}

/// How the form is answered, said once when it opens.
pub(super) fn form_help() -> String {
    format!(
        "Each argument is asked in turn: type its value and press Enter. For a value of several lines, type a line holding only a full stop, then the lines, then a full stop again. {BACK_TO_MENU} goes back to the menu."
    )
}

/// What else an argument's question takes, when anything: a choice's number, Enter alone.
pub(super) fn argument_hint(
    required: bool,
    remembered: Option<&str>,
    choices: usize,
) -> Option<String> {
    let mut parts = Vec::new();
    if choices > 0 {
        parts.push("Type a value, or the number of a choice".to_string());
    }
    match remembered {
        Some(value) => parts.push(format!(
            "Enter alone keeps the remembered value \"{}\"",
            short(value)
        )),
        None if !required => parts.push("Enter alone leaves it empty".to_string()),
        None => {}
    }
    (!parts.is_empty()).then(|| format!("{}.", parts.join("; ")))
}

/// One choice: `3. English, remembered` or `4. French`.
pub(super) fn choice_row(number: usize, value: &str, remembered: bool) -> String {
    format!(
        "{number}. {}{}",
        short(value),
        if remembered { ", remembered" } else { "" }
    )
}

/// The line above the choices: `Choices: 1 remembered value, 15 suggestions from
/// builtin.`
pub(super) fn choices_heading(remembered: usize, suggested: usize, server: &str) -> String {
    let mut parts = Vec::new();
    if remembered > 0 {
        parts.push(counted(remembered, "remembered value", "remembered values"));
    }
    if suggested > 0 {
        parts.push(format!(
            "{} from {}",
            counted(suggested, "suggestion", "suggestions"),
            one_line(server)
        ));
    }
    format!("Choices: {}.", parts.join(", "))
}

/// `and 5 more: type the start of a value and a question mark to narrow them.`
pub(super) fn more_choices(more: usize) -> String {
    format!("And {more} more: type the start of a value and a question mark (Eng?) to narrow them.")
}

/// What a value given to an argument is said as: `Into: English.`, `Text: 2 lines.`
pub(super) fn value_given(label: &str, value: &str) -> String {
    let lines = value.lines().count();
    let what = if value.is_empty() {
        "left empty".to_string()
    } else if lines > 1 {
        counted(lines, "line", "lines")
    } else {
        short(value)
    };
    format!("{}: {what}.", one_line(label))
}

/// A value on one line, cut at 80 characters.
pub(super) fn short(value: &str) -> String {
    let line = one_line(value);
    let chars = line.chars().count();
    if chars > 80 {
        let cut: String = line.chars().take(79).collect();
        format!("{cut}… ({} characters)", value.chars().count())
    } else {
        line
    }
}

/// `Message 1 of 3, user, text:` (then the text), or the whole line for a block that is
/// no text: `Message 2 of 3, user, image: image/png, 68 bytes.`
pub(super) fn message_header(index: usize, count: usize, message: &Message) -> String {
    let at = format!(
        "Message {} of {count}, {}",
        index + 1,
        one_line(message.role.as_str())
    );
    match &message.content {
        Content::Known(KnownContent::Text { .. }) => format!("{at}, text:"),
        Content::Known(KnownContent::Resource {
            resource: EmbeddedResource::Text { uri, mime_type, .. },
            ..
        }) => format!(
            "{at}, resource {}{}, its text:",
            one_line(uri),
            mime_type
                .as_deref()
                .map(|m| format!(" ({})", one_line(m)))
                .unwrap_or_default()
        ),
        other => format!(
            "{at}, {}{}",
            sentence(&crate::export::describe(other)),
            block_description(other)
                .map(|d| format!(" Described as: {}", sentence(&d)))
                .unwrap_or_default()
        ),
    }
}

/// The text a message reads out after its header, when it has one.
pub(super) fn message_text(message: &Message) -> Option<&str> {
    match &message.content {
        Content::Known(KnownContent::Text { text, .. }) => Some(text),
        Content::Known(KnownContent::Resource {
            resource: EmbeddedResource::Text { text, .. },
            ..
        }) => Some(text),
        _ => None,
    }
}

/// What a block that is no text says of itself: a resource link's title or description,
/// an image's or audio's `description` or `alt` in its `_meta` or annotations.
fn block_description(content: &Content) -> Option<String> {
    let from = |value: Option<&serde_json::Value>| {
        let value = value?;
        ["description", "alt", "title"]
            .iter()
            .find_map(|key| value.get(key).and_then(|v| v.as_str()))
            .map(str::to_string)
    };
    match content {
        Content::Known(KnownContent::Image {
            annotations, meta, ..
        })
        | Content::Known(KnownContent::Audio {
            annotations, meta, ..
        }) => from(meta.as_deref()).or_else(|| from(annotations.as_deref())),
        Content::Known(KnownContent::ResourceLink(link)) => {
            link.description.clone().or_else(|| link.title.clone())
        }
        _ => None,
    }
}

/// The review's actions, in the order they are numbered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Action {
    /// Copy the export to the clipboard.
    Copy,
    /// Save the export to a file.
    Save,
    /// Print the export on standard output and quit.
    Print,
    /// Edit a message's text in `$EDITOR`.
    Edit,
    /// Change the export format.
    Format,
    /// Read the messages again.
    Read,
    /// Back to the menu.
    Menu,
    /// Quit.
    Quit,
}

impl Action {
    /// Every action, numbered from 1 in this order.
    pub(super) const ALL: [Action; 8] = [
        Action::Copy,
        Action::Save,
        Action::Print,
        Action::Edit,
        Action::Format,
        Action::Read,
        Action::Menu,
        Action::Quit,
    ];

    /// The action a typed line names: its number, or its first word.
    pub(super) fn parse(typed: &str) -> Option<Action> {
        let typed = typed.trim().to_lowercase();
        if let Ok(number) = typed.parse::<usize>() {
            return Action::ALL.get(number.checked_sub(1)?).copied();
        }
        Some(match typed.as_str() {
            "copy" | "c" | "y" => Action::Copy,
            "save" | "s" => Action::Save,
            "print" | "p" => Action::Print,
            "edit" | "e" => Action::Edit,
            "format" | "f" => Action::Format,
            "read" | "r" => Action::Read,
            "menu" | "m" | "back" => Action::Menu,
            "quit" | "q" | "exit" => Action::Quit,
            _ => return None,
        })
    }

    /// The action's row: `1. Copy to the clipboard.`
    pub(super) fn row(self, number: usize, format: Format) -> String {
        let what = match self {
            Action::Copy => "Copy to the clipboard.".to_string(),
            Action::Save => "Save to a file.".to_string(),
            Action::Print => "Print on standard output, then quit.".to_string(),
            Action::Edit => "Edit a message in your editor ($VISUAL or $EDITOR).".to_string(),
            Action::Format => format!("Change the format, now {}.", format_name(format)),
            Action::Read => "Read the messages again.".to_string(),
            Action::Menu => "Back to the menu.".to_string(),
            Action::Quit => "Quit.".to_string(),
        };
        format!("{number}. {what}")
    }
}

/// A format's name in a sentence.
pub(super) fn format_name(format: Format) -> &'static str {
    match format {
        Format::Markdown => "Markdown",
        Format::Text => "plain text",
        Format::McpJson => "MCP JSON",
        Format::OpenAi => "OpenAI Chat Completions JSON",
        Format::Anthropic => "Anthropic Messages JSON",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Role;

    fn translate() -> PromptInfo {
        let arg = |name: &str, required| PromptArg {
            name: name.into(),
            title: None,
            description: None,
            required,
        };
        PromptInfo {
            server: "builtin".into(),
            name: "translate".into(),
            title: Some("Translate".into()),
            description: Some("A natural translation".into()),
            arguments: vec![arg("text", true), arg("to", true), arg("tone", false)],
            skill: None,
            mirrors_skill: None,
        }
    }

    #[test]
    fn a_menu_row_says_command_title_server_and_arguments() {
        let mut entry = Entry::new(translate());
        entry.unique_name = true;
        assert_eq!(
            menu_row(12, &entry, None),
            "12. /translate — Translate — builtin — arguments: text (required), to (required), tone"
        );
    }

    #[test]
    fn an_argument_is_asked_with_its_place_label_and_description() {
        let argument = PromptArg {
            name: "text".into(),
            title: Some("Text".into()),
            description: Some("The text to translate".into()),
            required: true,
        };
        assert_eq!(
            argument_question(0, 3, &argument),
            "Argument 1 of 3, required: Text. The text to translate."
        );
    }

    #[test]
    fn server_text_is_named_never_passed_through() {
        let mut prompt = translate();
        prompt.title = Some("Evil\x1b[2J\u{200b}title".into());
        let row = menu_row(1, &Entry::new(prompt), None);
        assert!(!row.contains('\x1b') && !row.contains('\u{200b}'), "{row}");
        assert!(row.contains("␛[2J<U+200B>"), "{row}");
    }

    #[test]
    fn messages_are_labelled_and_blocks_described() {
        let text = Message {
            role: Role::User,
            content: Content::text("hello"),
        };
        assert_eq!(message_header(0, 3, &text), "Message 1 of 3, user, text:");
        let image = Message {
            role: Role::Assistant,
            content: Content::Known(KnownContent::Image {
                data: "aGVsbG8=".into(),
                mime_type: "image/png".into(),
                annotations: None,
                meta: Some(Box::new(serde_json::json!({"alt": "a red dot"}))),
            }),
        };
        assert_eq!(
            message_header(1, 3, &image),
            "Message 2 of 3, assistant, image: image/png, 5 bytes. Described as: a red dot."
        );
    }

    #[test]
    fn actions_are_named_by_number_or_word() {
        assert_eq!(Action::parse("1"), Some(Action::Copy));
        assert_eq!(Action::parse(" Save "), Some(Action::Save));
        assert_eq!(Action::parse("8"), Some(Action::Quit));
        assert_eq!(Action::parse("9"), None);
        assert_eq!(Action::parse("0"), None);
    }
}
