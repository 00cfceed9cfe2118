//! Markdown drawn in rows: headings, emphasis, lists, quotes, rules, links with their
//! URL shown, inline code, GFM tables and fenced code highlighted by its language.
//!
//! Every piece of source text goes through [`crate::text::display_line`] before it
//! reaches a row, so a server's escape sequences show as `␛` here as in the raw view; a
//! link is its text and its URL, never a terminal hyperlink. A line break in a paragraph
//! is kept (prompts are written line by line, not as reflowed prose).

use pulldown_cmark::{Alignment, CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use super::highlight::{
    self, AT_ONCE_BYTES, MAX_BLOCK_BYTES, MAX_BLOCK_LINES, MESSAGE_BUDGET_BYTES,
};
use super::{CodeBudget, Piece, wrap_pieces};

/// `source` rendered as rows at most `width` columns wide (at least one row), its code
/// highlighted within the message's whole budget.
pub fn render(source: &str, width: usize) -> Vec<Line<'static>> {
    render_with(source, width, CodeBudget::Whole).0
}

/// `source` rendered as rows, highlighting as much code as `budget` allows, and whether
/// code was left plain for later ([`CodeBudget::AtOnce`] only: the whole render then
/// highlights it, in the same rows).
pub fn render_with(source: &str, width: usize, budget: CodeBudget) -> (Vec<Line<'static>>, bool) {
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let mut writer = Writer::new(width.max(1));
    if budget == CodeBudget::AtOnce {
        writer.at_once = Some(AT_ONCE_BYTES);
    }
    for event in Parser::new_ext(source, options) {
        writer.event(event);
    }
    writer.flush();
    if writer.lines.is_empty() {
        writer.lines.push(Line::raw(""));
    }
    (writer.lines, writer.code_left)
}

/// The style of dim marks: borders, bullets, URLs, fence labels.
fn dim() -> Style {
    Style::new().add_modifier(Modifier::DIM)
}

/// A heading's style by its level: colour and weight fall as the level rises.
fn heading_style(level: HeadingLevel) -> Style {
    let bold = Style::new().add_modifier(Modifier::BOLD);
    match level {
        HeadingLevel::H1 => bold
            .fg(Color::Indexed(170))
            .add_modifier(Modifier::UNDERLINED),
        HeadingLevel::H2 => bold.fg(Color::Cyan),
        HeadingLevel::H3 => bold.fg(Color::Indexed(75)),
        _ => bold.add_modifier(Modifier::ITALIC),
    }
}

fn link_style() -> Style {
    Style::new()
        .fg(Color::Indexed(75))
        .add_modifier(Modifier::UNDERLINED)
}

fn inline_code_style() -> Style {
    Style::new().fg(Color::Yellow).bg(Color::Black)
}

/// A block that prefixes every row inside it.
enum Container {
    /// `▌ ` before each row.
    Quote,
    /// A list item: its marker before its first row, as many spaces before the others.
    Item { marker: String, started: bool },
}

/// A table being read: its alignments, rows of cells (each cell its pieces).
struct Table {
    alignments: Vec<Alignment>,
    rows: Vec<Vec<Vec<Piece>>>,
    row: Vec<Vec<Piece>>,
    header_rows: usize,
}

/// A fenced or indented code block being read.
struct Code {
    language: String,
    text: String,
}

struct Writer {
    width: usize,
    lines: Vec<Line<'static>>,
    containers: Vec<Container>,
    /// Open lists: the next number of an ordered one, `None` for bullets.
    lists: Vec<Option<u64>>,
    /// The inline text of the block being read, its line breaks as `None`.
    pieces: Vec<Option<Piece>>,
    /// Inline styles open (emphasis, strong, links…), combined.
    styles: Vec<Style>,
    /// Open links: their URL and where their text starts in `pieces`.
    links: Vec<(String, usize)>,
    /// An image being read: its URL and its alt text.
    image: Option<(String, String)>,
    code: Option<Code>,
    table: Option<Table>,
    /// A block ended: the next one starts after an empty row.
    gap: bool,
    /// Code bytes this message may still highlight.
    budget: usize,
    /// Code bytes this render may still highlight at once (`None`: the whole budget).
    at_once: Option<usize>,
    /// A block within the budget was left plain for the whole render to highlight.
    code_left: bool,
}

impl Writer {
    fn new(width: usize) -> Writer {
        Writer {
            width,
            lines: Vec::new(),
            containers: Vec::new(),
            lists: Vec::new(),
            pieces: Vec::new(),
            styles: Vec::new(),
            links: Vec::new(),
            image: None,
            code: None,
            table: None,
            gap: false,
            budget: MESSAGE_BUDGET_BYTES,
            at_once: None,
            code_left: false,
        }
    }

    fn style(&self) -> Style {
        self.styles
            .iter()
            .fold(Style::new(), |all, style| all.patch(*style))
    }

    /// Source text as drawn: controls visible, tabs expanded, no line break.
    fn push_text(&mut self, text: &str, style: Style) {
        if let Some((_, alt)) = &mut self.image {
            alt.push_str(text);
            return;
        }
        let shown = super::shown(text);
        if !shown.is_empty() {
            self.pieces.push(Some((shown, style)));
        }
    }

    fn line_break(&mut self) {
        if let Some((_, alt)) = &mut self.image {
            alt.push(' ');
        } else {
            self.pieces.push(None);
        }
    }

    /// The columns the containers' prefixes take.
    fn prefix_width(&self) -> usize {
        self.containers
            .iter()
            .map(|c| match c {
                Container::Quote => 2,
                Container::Item { marker, .. } => crate::text::width(marker),
            })
            .sum()
    }

    /// The prefix of the next row; `content` rows use up the items' markers, gap rows do not.
    fn prefix(&mut self, content: bool) -> Vec<Span<'static>> {
        let mut spans = Vec::new();
        for container in &mut self.containers {
            match container {
                Container::Quote => spans.push(Span::styled("▌ ", dim())),
                Container::Item { marker, started } => {
                    if content && !*started {
                        *started = true;
                        spans.push(Span::styled(marker.clone(), dim()));
                    } else {
                        spans.push(Span::raw(" ".repeat(crate::text::width(marker))));
                    }
                }
            }
        }
        spans
    }

    fn push_row(&mut self, spans: Vec<Span<'static>>) {
        let mut row = self.prefix(true);
        row.extend(spans);
        self.lines.push(Line::from(row));
    }

    /// The columns left for text inside the containers.
    fn room(&self) -> usize {
        self.width.saturating_sub(self.prefix_width()).max(1)
    }

    /// Writes the inline text read so far, wrapped.
    fn flush(&mut self) {
        if self.pieces.is_empty() {
            return;
        }
        let pieces = std::mem::take(&mut self.pieces);
        let room = self.room();
        let mut line: Vec<Piece> = Vec::new();
        let mut pieces = pieces.into_iter().peekable();
        while let Some(piece) = pieces.next() {
            let at_break = piece.is_none();
            if let Some(piece) = piece {
                line.push(piece);
            }
            if at_break || pieces.peek().is_none() {
                for row in wrap_pieces(std::mem::take(&mut line), room) {
                    self.push_row(row);
                }
            }
        }
    }

    /// Before a block: the text of the item it is in written, and the gap after the
    /// block before it.
    fn start_block(&mut self) {
        self.flush();
        if self.gap && !self.lines.is_empty() {
            let prefix = self.prefix(false);
            let mut line = Line::from(prefix);
            // Trailing spaces of an item's indent are not worth keeping on an empty row.
            if line.spans.iter().all(|s| s.content.trim().is_empty()) {
                line = Line::raw("");
            }
            self.lines.push(line);
        }
        self.gap = false;
    }

    fn event(&mut self, event: Event<'_>) {
        if let Some(code) = &mut self.code {
            match event {
                Event::Text(text) => code.text.push_str(&text),
                Event::End(TagEnd::CodeBlock) => {
                    let code = self.code.take().expect("a code block is open");
                    self.code_block(code);
                    self.gap = true;
                }
                _ => {}
            }
            return;
        }
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(text) => self.push_text(&text, self.style()),
            Event::Code(text) => self.push_text(&text, self.style().patch(inline_code_style())),
            Event::InlineMath(text) | Event::DisplayMath(text) => {
                self.push_text(&text, self.style())
            }
            Event::Html(html) | Event::InlineHtml(html) => {
                // Shown as written: HTML is not rendered.
                let mut lines = html.split('\n').peekable();
                while let Some(line) = lines.next() {
                    self.push_text(line, self.style());
                    if lines.peek().is_some_and(|next| !next.is_empty()) {
                        self.line_break();
                    }
                }
            }
            Event::FootnoteReference(label) => self.push_text(&format!("[^{label}]"), self.style()),
            Event::SoftBreak | Event::HardBreak => self.line_break(),
            Event::Rule => {
                self.start_block();
                let rule = "─".repeat(self.room());
                self.push_row(vec![Span::styled(rule, dim())]);
                self.gap = true;
            }
            Event::TaskListMarker(done) => {
                self.push_text(if done { "[x] " } else { "[ ] " }, dim());
            }
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph | Tag::HtmlBlock => self.start_block(),
            Tag::Heading { level, .. } => {
                self.start_block();
                self.styles.push(heading_style(level));
            }
            Tag::BlockQuote(_) => {
                self.start_block();
                self.containers.push(Container::Quote);
            }
            Tag::CodeBlock(kind) => {
                self.start_block();
                let language = match kind {
                    CodeBlockKind::Fenced(info) => {
                        info.split([' ', ',', '{']).next().unwrap_or("").to_string()
                    }
                    CodeBlockKind::Indented => String::new(),
                };
                self.code = Some(Code {
                    language,
                    text: String::new(),
                });
            }
            Tag::List(first) => {
                if self.lists.is_empty() {
                    self.start_block();
                } else {
                    // A list inside an item: the item's text first, no gap.
                    self.flush();
                }
                self.lists.push(first);
            }
            Tag::Item => {
                self.flush();
                let depth = self.lists.len();
                let marker = match self.lists.last_mut() {
                    Some(Some(number)) => {
                        let marker = format!("{number}. ");
                        *number += 1;
                        marker
                    }
                    _ => match depth {
                        0 | 1 => "• ".to_string(),
                        2 => "◦ ".to_string(),
                        _ => "▪ ".to_string(),
                    },
                };
                self.containers.push(Container::Item {
                    marker,
                    started: false,
                });
            }
            Tag::Table(alignments) => {
                self.start_block();
                self.table = Some(Table {
                    alignments,
                    rows: Vec::new(),
                    row: Vec::new(),
                    header_rows: 0,
                });
            }
            Tag::TableHead | Tag::TableRow | Tag::TableCell => self.flush_cell_text(),
            Tag::Emphasis => self
                .styles
                .push(Style::new().add_modifier(Modifier::ITALIC)),
            Tag::Strong => self.styles.push(Style::new().add_modifier(Modifier::BOLD)),
            Tag::Strikethrough => self
                .styles
                .push(Style::new().add_modifier(Modifier::CROSSED_OUT)),
            Tag::Link { dest_url, .. } => {
                self.links.push((dest_url.to_string(), self.pieces.len()));
                self.styles.push(link_style());
            }
            Tag::Image { dest_url, .. } => {
                self.image = Some((dest_url.to_string(), String::new()));
            }
            // Not enabled in the parser's options; their text is read as it comes.
            Tag::FootnoteDefinition(_)
            | Tag::DefinitionList
            | Tag::DefinitionListTitle
            | Tag::DefinitionListDefinition
            | Tag::Superscript
            | Tag::Subscript
            | Tag::MetadataBlock(_) => {}
        }
    }

    /// Cells collect their text in `pieces`; a new cell or row starts empty.
    fn flush_cell_text(&mut self) {
        if self.table.is_some() {
            self.pieces.clear();
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph | TagEnd::HtmlBlock => {
                self.flush();
                self.gap = true;
            }
            TagEnd::Heading(_) => {
                self.flush();
                self.styles.pop();
                self.gap = true;
            }
            TagEnd::BlockQuote(_) => {
                self.flush();
                self.containers.pop();
                self.gap = true;
            }
            TagEnd::CodeBlock => {}
            TagEnd::List(_) => {
                self.flush();
                self.lists.pop();
                if self.lists.is_empty() {
                    self.gap = true;
                }
            }
            TagEnd::Item => {
                self.flush();
                if let Some(Container::Item { started: false, .. }) = self.containers.last() {
                    // An empty item still shows its marker.
                    self.push_row(Vec::new());
                }
                self.containers.pop();
            }
            TagEnd::TableCell => {
                let cell: Vec<Piece> = std::mem::take(&mut self.pieces)
                    .into_iter()
                    .map(|p| p.unwrap_or_else(|| (" ".to_string(), Style::new())))
                    .collect();
                if let Some(table) = &mut self.table {
                    table.row.push(cell);
                }
            }
            TagEnd::TableHead | TagEnd::TableRow => {
                if let Some(table) = &mut self.table {
                    let row = std::mem::take(&mut table.row);
                    table.rows.push(row);
                    if tag == TagEnd::TableHead {
                        table.header_rows = table.rows.len();
                    }
                }
            }
            TagEnd::Table => {
                if let Some(table) = self.table.take() {
                    self.draw_table(table);
                }
                self.gap = true;
            }
            TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough => {
                self.styles.pop();
            }
            TagEnd::Link => {
                self.styles.pop();
                if let Some((url, start)) = self.links.pop() {
                    let text: String = self.pieces[start.min(self.pieces.len())..]
                        .iter()
                        .flatten()
                        .map(|(t, _)| t.as_str())
                        .collect();
                    let shown = super::shown(&url);
                    // An autolink's text is its URL: once is enough.
                    let bare = shown.strip_prefix("mailto:").unwrap_or(&shown);
                    if text != shown && text != bare {
                        self.pieces.push(Some((format!(" <{shown}>"), dim())));
                    }
                }
            }
            TagEnd::Image => {
                if let Some((url, alt)) = self.image.take() {
                    let alt = alt.trim();
                    let label = if alt.is_empty() {
                        format!("[image <{url}>]")
                    } else {
                        format!("[image: {alt} <{url}>]")
                    };
                    self.push_text(&label, dim());
                }
            }
            TagEnd::FootnoteDefinition
            | TagEnd::DefinitionList
            | TagEnd::DefinitionListTitle
            | TagEnd::DefinitionListDefinition
            | TagEnd::Superscript
            | TagEnd::Subscript
            | TagEnd::MetadataBlock(_) => {}
        }
    }

    /// A code block: a label row naming its language, its lines behind a bar,
    /// highlighted when the language is known and the block within the bounds.
    fn code_block(&mut self, code: Code) {
        let source = code.text.strip_suffix('\n').unwrap_or(&code.text);
        let source_lines: Vec<String> = source.split('\n').map(crate::text::expand_tabs).collect();
        let language = super::shown(&code.language);
        let mut note = "";
        let mut highlighted = None;
        if !language.is_empty() {
            match highlight::ready() {
                // Not loaded yet: drawn plain now, highlighted when it is (the rows are
                // laid out again then).
                None => {}
                Some(highlighter) => match highlighter.syntax_for(&code.language) {
                    None => note = " (plain: not a known language)",
                    Some(_)
                        if source.len() > MAX_BLOCK_BYTES
                            || source_lines.len() > MAX_BLOCK_LINES =>
                    {
                        note = " (plain: too long to highlight)"
                    }
                    Some(_) if source.len() > self.budget => {
                        note = " (plain: the message has much code)"
                    }
                    // Past what is highlighted at once: the lines that fit it now (the
                    // top of the first screen), the rest plain until the whole render
                    // draws them highlighted in the same rows. Its budget is spent as
                    // that render spends it, so both agree on what follows.
                    Some(syntax) if self.at_once.is_some_and(|left| source.len() > left) => {
                        self.budget -= source.len();
                        self.code_left = true;
                        let left = self.at_once.unwrap_or(0);
                        let mut spent = 0;
                        let fitting = source_lines
                            .iter()
                            .take_while(|line| {
                                let fits = spent + line.len() < left;
                                if fits {
                                    spent += line.len() + 1;
                                }
                                fits
                            })
                            .count();
                        self.at_once = Some(left - spent);
                        if fitting > 0 {
                            highlighted =
                                highlighter.highlight(syntax, &source_lines[..fitting].join("\n"));
                        }
                    }
                    Some(syntax) => {
                        self.budget -= source.len();
                        if let Some(left) = &mut self.at_once {
                            *left -= source.len();
                        }
                        let expanded = source_lines.join("\n");
                        highlighted = highlighter.highlight(syntax, &expanded);
                    }
                },
            }
        }
        let label = if language.is_empty() {
            "┌ code".to_string()
        } else {
            format!("┌ {language}{note}")
        };
        let room = self.room();
        let label = crate::text::truncate(&label, room).to_string();
        self.push_row(vec![Span::styled(label, dim())]);
        let room = room.saturating_sub(2).max(1);
        for (n, line) in source_lines.iter().enumerate() {
            let pieces: Vec<Piece> = match highlighted.as_ref().and_then(|h| h.get(n)) {
                Some(styled) => styled
                    .iter()
                    .map(|(style, text)| (super::shown(text), *style))
                    .collect(),
                None => vec![(super::shown(line), Style::new())],
            };
            for row in wrap_pieces(pieces, room) {
                let mut spans = vec![Span::styled("│ ", dim())];
                spans.extend(row);
                self.push_row(spans);
            }
        }
        self.push_row(vec![Span::styled("└", dim())]);
    }

    /// A table with borders, its columns as wide as their widest cell while the table
    /// fits, else narrowed (the widest first) with their cells wrapped.
    fn draw_table(&mut self, table: Table) {
        let columns = table
            .rows
            .iter()
            .map(Vec::len)
            .max()
            .unwrap_or(0)
            .max(table.alignments.len());
        if columns == 0 {
            return;
        }
        let cell_width = |cell: &Vec<Piece>| {
            cell.iter()
                .map(|(t, _)| crate::text::width(t))
                .sum::<usize>()
        };
        let mut widths = vec![1usize; columns];
        for row in &table.rows {
            for (i, cell) in row.iter().enumerate() {
                widths[i] = widths[i].max(cell_width(cell));
            }
        }
        // `│ a │ b │`: three columns of border and padding per cell, one more at the end.
        let room = self.room().saturating_sub(3 * columns + 1).max(columns);
        fit_columns(&mut widths, room);
        let border = |left: &str, middle: &str, right: &str, widths: &[usize]| {
            let inner: Vec<String> = widths.iter().map(|w| "─".repeat(w + 2)).collect();
            vec![Span::styled(
                format!("{left}{}{right}", inner.join(middle)),
                dim(),
            )]
        };
        self.push_row(border("┌", "┬", "┐", &widths));
        for (r, row) in table.rows.iter().enumerate() {
            if r > 0 && r == table.header_rows {
                self.push_row(border("├", "┼", "┤", &widths));
            }
            let header = r < table.header_rows;
            let wrapped: Vec<Vec<Vec<Span<'static>>>> = (0..columns)
                .map(|i| {
                    let cell: Vec<Piece> = row
                        .get(i)
                        .map(|cell| {
                            cell.iter()
                                .map(|(t, s)| {
                                    let style = if header {
                                        s.add_modifier(Modifier::BOLD)
                                    } else {
                                        *s
                                    };
                                    (t.clone(), style)
                                })
                                .collect()
                        })
                        .unwrap_or_default();
                    wrap_pieces(cell, widths[i])
                })
                .collect();
            let height = wrapped.iter().map(Vec::len).max().unwrap_or(1);
            for line in 0..height {
                let mut spans = vec![Span::styled("│", dim())];
                for (i, cell) in wrapped.iter().enumerate() {
                    let content = cell.get(line).cloned().unwrap_or_default();
                    let used: usize = content.iter().map(|s| crate::text::width(&s.content)).sum();
                    let pad = widths[i].saturating_sub(used);
                    let (before, after) = match table.alignments.get(i) {
                        Some(Alignment::Right) => (pad, 0),
                        Some(Alignment::Center) => (pad / 2, pad - pad / 2),
                        _ => (0, pad),
                    };
                    spans.push(Span::raw(" ".repeat(before + 1)));
                    spans.extend(content);
                    spans.push(Span::raw(" ".repeat(after + 1)));
                    spans.push(Span::styled("│", dim()));
                }
                self.push_row(spans);
            }
        }
        self.push_row(border("└", "┴", "┘", &widths));
    }
}

/// Narrows `widths` until they sum to at most `room`: the widest column loses a column
/// at a time (each keeps at least one).
fn fit_columns(widths: &mut [usize], room: usize) {
    let mut total: usize = widths.iter().sum();
    while total > room {
        let Some((widest, _)) = widths
            .iter()
            .enumerate()
            .max_by_key(|(i, w)| (**w, usize::MAX - i))
        else {
            return;
        };
        if widths[widest] <= 1 {
            return;
        }
        // Down to the next widest at once (or by what is over), not one column a step.
        let next = widths
            .iter()
            .filter(|w| **w < widths[widest])
            .max()
            .copied()
            // All as wide: one column off the first, then the next.
            .unwrap_or(widths[widest] - 1)
            .max(1);
        let cut = (widths[widest] - next).max(1).min(total - room);
        widths[widest] -= cut;
        total -= cut;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::line_text;

    /// A rich message: what the review's snapshots show too.
    pub(crate) const RICH: &str = "# Release notes\n\nSome *emphasis*, **strong**, ~~gone~~ and `code`.\nA second line, kept.\n\n## Steps\n\n1. First\n2. Second\n   - nested\n     - deeper\n3. Third with a [link](https://example.com/docs)\n\n> quoted\n> text\n\n---\n\n| Name | Value |\n|:-----|------:|\n| alpha | 1 |\n| beta | 22 |\n\n```rust\nfn main() {\n    println!(\"hi\");\n}\n```\n\n```python\ndef f(x):\n    return x\n```\n\n![a cat](https://example.com/cat.png)\n";

    fn texts(source: &str, width: usize) -> Vec<String> {
        render(source, width).iter().map(line_text).collect()
    }

    /// The row holding `needle`, and the style of the span holding it.
    fn style_of(rows: &[Line<'static>], needle: &str) -> Style {
        rows.iter()
            .flat_map(|row| row.spans.iter())
            .find(|span| span.content.contains(needle))
            .unwrap_or_else(|| panic!("no span holds {needle:?}"))
            .style
    }

    #[test]
    fn every_construct_is_drawn_as_what_it_is() {
        assert_eq!(
            texts(RICH, 60),
            [
                "Release notes",
                "",
                "Some emphasis, strong, gone and code.",
                "A second line, kept.",
                "",
                "Steps",
                "",
                "1. First",
                "2. Second",
                "   ◦ nested",
                "     ▪ deeper",
                "3. Third with a link <https://example.com/docs>",
                "",
                "▌ quoted",
                "▌ text",
                "",
                &"─".repeat(60),
                "",
                "┌───────┬───────┐",
                "│ Name  │ Value │",
                "├───────┼───────┤",
                "│ alpha │     1 │",
                "│ beta  │    22 │",
                "└───────┴───────┘",
                "",
                "┌ rust",
                "│ fn main() {",
                "│     println!(\"hi\");",
                "│ }",
                "└",
                "",
                "┌ python",
                "│ def f(x):",
                "│     return x",
                "└",
                "",
                "[image: a cat <https://example.com/cat.png>]",
            ]
        );
    }

    #[test]
    fn a_block_indented_four_spaces_is_code_with_its_inner_indentation() {
        let indented = "Run this:\n\n    fn main() {\n        go();\n    }\n\nThen\ttab.\n";
        let fenced = "Run this:\n\n```\nfn main() {\n    go();\n}\n```\n\nThen\ttab.\n";
        assert_eq!(
            texts(indented, 60),
            [
                "Run this:",
                "",
                "┌ code",
                "│ fn main() {",
                "│     go();",
                "│ }",
                "└",
                "",
                "Then    tab."
            ]
        );
        assert_eq!(render(indented, 60), render(fenced, 60));
    }

    #[test]
    fn inline_styles_and_headings_carry_their_modifiers() {
        let rows = render(RICH, 60);
        let h1 = style_of(&rows, "Release notes");
        assert!(
            h1.add_modifier
                .contains(Modifier::BOLD | Modifier::UNDERLINED)
        );
        assert!(h1.fg.is_some());
        let h2 = style_of(&rows, "Steps");
        assert!(h2.add_modifier.contains(Modifier::BOLD));
        assert_ne!(h1, h2, "levels differ");
        assert!(
            style_of(&rows, "emphasis")
                .add_modifier
                .contains(Modifier::ITALIC)
        );
        assert!(
            style_of(&rows, "strong")
                .add_modifier
                .contains(Modifier::BOLD)
        );
        assert!(
            style_of(&rows, "gone")
                .add_modifier
                .contains(Modifier::CROSSED_OUT)
        );
        assert!(
            style_of(&rows, "code").bg.is_some(),
            "inline code is marked"
        );
        assert!(
            style_of(&rows, "link")
                .add_modifier
                .contains(Modifier::UNDERLINED)
        );
        assert!(
            style_of(&rows, "Name")
                .add_modifier
                .contains(Modifier::BOLD),
            "table header"
        );
    }

    #[test]
    fn fenced_code_is_highlighted_by_its_language_once_the_grammars_are_loaded() {
        highlight::load();
        let rows = render("```rust\nfn main() { let x = 1; }\n```\n", 60);
        let keyword = style_of(&rows, "fn");
        assert!(keyword.fg.is_some(), "the keyword has a colour");
        let text: Vec<String> = rows.iter().map(line_text).collect();
        assert_eq!(text, ["┌ rust", "│ fn main() { let x = 1; }", "└"]);
        let rows = render("```klingon\nqapla'\n```\n", 60);
        assert_eq!(
            line_text(&rows[0]),
            "┌ klingon (plain: not a known language)"
        );
        assert_eq!(style_of(&rows, "qapla").fg, None);
        // A block over the bounds is drawn plain, and said to be.
        let long = format!(
            "```rust\n{}```\n",
            "let x = 1;\n".repeat(MAX_BLOCK_LINES + 1)
        );
        let rows = render(&long, 60);
        assert_eq!(line_text(&rows[0]), "┌ rust (plain: too long to highlight)");
        assert_eq!(style_of(&rows, "let").fg, None);
        // The message's budget: the blocks after it are plain.
        let block = format!("```rust\n{}```\n\n", "let x = 1;\n".repeat(1_000));
        let many = block.repeat(MESSAGE_BUDGET_BYTES / 11_000 + 2);
        let rows = render(&many, 60);
        let labels: Vec<String> = rows
            .iter()
            .map(line_text)
            .filter(|t| t.starts_with("┌ rust"))
            .collect();
        assert_eq!(labels[0], "┌ rust");
        assert_eq!(
            labels.last().unwrap(),
            "┌ rust (plain: the message has much code)"
        );
    }

    #[test]
    fn wrapped_list_items_and_quotes_keep_their_indent() {
        let rows = texts(
            "- one two three four five six\n  - seven eight nine ten\n\n> eleven twelve thirteen\n",
            16,
        );
        assert_eq!(
            rows,
            [
                "• one two three ",
                "  four five six",
                "  ◦ seven eight ",
                "    nine ten",
                "",
                "▌ eleven twelve ",
                "▌ thirteen",
            ]
        );
    }

    #[test]
    fn a_table_too_wide_wraps_its_cells_within_the_width() {
        let source = "| a | b |\n|---|---|\n| one two three four five six | seven eight nine ten eleven twelve |\n";
        let rows = texts(source, 30);
        for row in &rows {
            assert!(crate::text::width(row) <= 30, "{row:?} is wider than 30");
        }
        assert!(rows.len() > 5, "the long cells wrap: {rows:#?}");
        assert!(rows.iter().any(|r| r.contains("seven")));
        assert!(rows.iter().all(|r| r.starts_with(['┌', '│', '├', '└'])));
    }

    #[test]
    fn links_show_their_target_and_autolinks_show_it_once() {
        assert_eq!(
            texts("[docs](https://x.test/a)", 80),
            ["docs <https://x.test/a>"]
        );
        assert_eq!(texts("<https://x.test/a>", 80), ["https://x.test/a"]);
        // A link whose text hides another target still shows the target.
        assert_eq!(
            texts("[https://good.test](https://evil.test)", 80),
            ["https://good.test <https://evil.test>"]
        );
        assert_eq!(
            texts("![](https://x.test/i.png)", 80),
            ["[image <https://x.test/i.png>]"]
        );
    }

    #[test]
    fn control_characters_show_as_pictures_everywhere() {
        let source = "# \u{1b}[31mred\n\n[\u{1b}]8;;https://evil.test\u{7}x](https://a.test/\u{1b}b)\n\n```\u{1b}x\n\u{1b}[2J\tz\n```\n| \u{9b}c |\n|---|\n| \u{202e}d |\n";
        for row in texts(source, 40) {
            assert!(!row.chars().any(char::is_control), "{row:?}");
            assert!(!row.contains('\u{202e}'), "{row:?}");
        }
        assert!(texts(source, 40)[0].contains("␛[31mred"));
    }

    #[test]
    fn wide_characters_and_tabs_fit_the_width() {
        let source =
            "日本語のテキストがここにあります。とても長い行です。\n\n```\n\tindented\n```\n";
        let rows = texts(source, 12);
        for row in &rows {
            assert!(crate::text::width(row) <= 12, "{row:?}");
        }
        // The tab is four columns, as the editor draws it.
        assert!(rows.iter().any(|r| r.starts_with("│     ind")), "{rows:#?}");
    }

    fn is_drawn_safely(row: &str) -> bool {
        !row.chars().any(|c| {
            c.is_control()
                || matches!(c, '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]
        #[test]
        fn no_row_holds_a_control_character(
            source in "([#>*_`|\\-\\[\\]()!:0-9. \n\t]|[a-z]|\u{1b}|\u{7}|\u{9b}|\u{202e}|\u{2067}|\u{7f}|\r|\u{0}|日|```rust\n|```\n){0,200}",
            width in 1usize..50,
        ) {
            highlight::load();
            for row in render(&source, width) {
                let text = line_text(&row);
                proptest::prop_assert!(is_drawn_safely(&text), "rendered {:?}", text);
            }
            let content = crate::model::Content::text(source.as_str());
            let raw = crate::render::RowStyle { rendered: false, color: true };
            for row in crate::render::message_rows(&content, width, raw) {
                let text = line_text(&row);
                proptest::prop_assert!(is_drawn_safely(&text), "raw {:?}", text);
            }
        }
    }
}
