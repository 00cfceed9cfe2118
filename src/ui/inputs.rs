//! The inputs prompt: a box over the screen with one masked field per input.

use ratatui::Frame;
use ratatui::layout::{Position, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Padding, Paragraph};

use super::{Theme, one_line};
use crate::app::InputsPrompt;

pub(super) fn draw(prompt: &InputsPrompt, frame: &mut Frame, area: Rect, theme: &Theme) {
    let width = area.width.min(76);
    // Borders and a column of padding on each side.
    let inner_width = usize::from(width.saturating_sub(4));
    let mut lines = vec![
        Line::styled(
            "Values for ${input:…} in the config: kept in memory only, never written.",
            theme.dim(),
        ),
        Line::styled(
            "Enter goes on (and starts the servers on the last) · Esc: later",
            theme.dim(),
        ),
    ];
    let mut cursor = None;
    for (index, field) in prompt.fields.iter().enumerate() {
        let focused = index == prompt.focus;
        lines.push(Line::raw(""));
        let label = one_line(field.spec.label());
        let servers = format!(" for {}", one_line(&field.servers.join(", ")));
        let style = if focused {
            theme.accent()
        } else {
            ratatui::style::Style::default()
        };
        lines.push(Line::from(vec![
            Span::styled(
                crate::text::truncate(&label, inner_width).to_string(),
                style,
            ),
            Span::styled(
                crate::text::truncate(
                    &servers,
                    inner_width.saturating_sub(crate::text::width(&label)),
                )
                .to_string(),
                theme.dim(),
            ),
        ]));
        let text = field.value.text();
        let before: String = text.chars().take(field.value.cursor()).collect();
        let mask = |t: &str| {
            if field.spec.password {
                // A dot a cluster, so one Backspace takes one dot.
                "•".repeat(unicode_segmentation::UnicodeSegmentation::graphemes(t, true).count())
            } else {
                one_line(t)
            }
        };
        let (shown, shown_before) = (mask(text), mask(&before));
        // The cursor stays in sight, where typing happens.
        let room = inner_width.saturating_sub(3);
        let chars: Vec<char> = shown.chars().collect();
        let at = shown_before.chars().count().min(chars.len());
        let start = at.saturating_sub(room);
        let visible: String = chars[start..].iter().take(room).collect();
        let marker = if focused { "> " } else { "  " };
        if focused {
            let left: String = chars[start..at].iter().collect();
            cursor = Some((
                crate::text::width(marker) + crate::text::width(&left),
                lines.len(),
            ));
        }
        lines.push(Line::from(vec![
            Span::styled(marker, theme.accent()),
            Span::raw(visible),
        ]));
    }
    let height = (lines.len() as u16 + 2).min(area.height);
    let popup = super::centered(area, width, height);
    frame.render_widget(Clear, popup);
    // Keep the focused field in sight when the box is shorter than its lines.
    let scroll = cursor.map_or(0, |(_, row)| {
        (row as u16 + 1).saturating_sub(height.saturating_sub(2))
    });
    frame.render_widget(
        Paragraph::new(lines).scroll((scroll, 0)).block(
            Block::default()
                .borders(Borders::ALL)
                .padding(Padding::horizontal(1))
                .border_style(theme.accent())
                .title(Span::styled(" Servers wait for inputs ", theme.accent())),
        ),
        popup,
    );
    if let Some((column, row)) = cursor {
        frame.set_cursor_position(Position {
            x: popup.x + 2 + column as u16,
            y: popup.y + 1 + (row as u16).saturating_sub(scroll),
        });
    }
}
