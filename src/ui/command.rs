//! The form's command prompt: the command line, then its output to confirm or its failure.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use super::{Theme, one_line};
use crate::app::source::{human_size, line_count};
use crate::app::{CommandPrompt, CommandStage, FormState};

/// The prompt's box: at most this wide and this tall.
const MAX_WIDTH: u16 = 100;
const MAX_HEIGHT: u16 = 20;

pub(super) fn draw(
    form: &FormState,
    prompt: &CommandPrompt,
    busy: char,
    frame: &mut Frame,
    area: Rect,
    theme: &Theme,
) {
    let width = super::files::popup_width(area.width, MAX_WIDTH);
    let field = form
        .fields
        .get(form.focus)
        .map(|f| one_line(f.arg.title.as_deref().unwrap_or(&f.arg.name)))
        .unwrap_or_default();
    let columns = usize::from(width.saturating_sub(2));
    let command = one_line(prompt.input.text());
    let mut lines = vec![Line::from(vec![
        Span::styled("$ ", theme.accent()),
        Span::raw(command.clone()),
    ])];
    let mut body: Vec<Line> = Vec::new();
    match &prompt.stage {
        CommandStage::Typing => body.push(Line::styled(
            "Enter runs it with sh -c here (stdin closed), shows its output · Esc back",
            theme.dim(),
        )),
        CommandStage::Running(_) => body.push(Line::styled(
            format!("{} running… Esc stops it", busy),
            theme.busy(),
        )),
        CommandStage::Confirm { output } => {
            let lines_out = line_count(output);
            body.push(Line::styled(
                format!(
                    "{} · {} · Enter puts it in the field · Esc edits the command",
                    crate::text::counted(lines_out, "line", "lines"),
                    human_size(output.len())
                ),
                theme.ok(),
            ));
            let room = usize::from(area.height.clamp(4, MAX_HEIGHT)).saturating_sub(5);
            for line in output.lines().take(room) {
                body.push(Line::raw(
                    crate::text::truncate(&crate::text::sanitize(line), columns).to_string(),
                ));
            }
            if lines_out > room {
                body.push(Line::styled(
                    format!("… {} more", lines_out - room),
                    theme.dim(),
                ));
            }
            if output.is_empty() {
                body.push(Line::styled(
                    "(no output: the field would be empty)",
                    theme.dim(),
                ));
            }
        }
        CommandStage::Failed { why, stderr } => {
            body.push(Line::styled(
                format!("It {} · Enter or Esc edits the command", one_line(why)),
                theme.error(),
            ));
            let room = usize::from(area.height.clamp(4, MAX_HEIGHT)).saturating_sub(5);
            for line in stderr
                .lines()
                .rev()
                .take(room)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
            {
                body.push(Line::styled(
                    crate::text::truncate(&crate::text::sanitize(line), columns).to_string(),
                    theme.dim(),
                ));
            }
        }
    }
    lines.extend(body);
    let height = (lines.len() as u16 + 2).min(area.height).min(MAX_HEIGHT);
    let popup = super::centered(area, width, height.max(1));
    frame.render_widget(Clear, popup);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.accent())
        .title(Span::styled(
            format!(" {field}: a command's output "),
            theme.accent(),
        ));
    let inner = block.inner(popup);
    frame.render_widget(block, popup);
    frame.render_widget(Paragraph::new(lines), inner);
    if prompt.stage == CommandStage::Typing && inner.width > 0 {
        let typed = 2 + super::cursor_column(&prompt.input);
        frame.set_cursor_position((inner.x + typed.min(inner.width.saturating_sub(1)), inner.y));
    }
}
