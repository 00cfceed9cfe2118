//! Screens drawn into a test backend, compared with reviewed snapshots: the catalog at start,
//! the live preview, rendered content and pictures, long and strange text, and every screen
//! in both theme bases.

use ratatui::Terminal;
use ratatui::backend::TestBackend;

use super::tests::*;
use crate::app::tests::{app_in_review, ctrl, key, ready_app, type_text};
use crate::app::{App, KeyMap, Msg, Options};
use crate::mcp::{McpError, McpEvent};
use crate::model::PromptMessages;
use crossterm::event::KeyCode;

#[test]
fn picker_from_the_catalog_while_servers_start() {
    let app = starting_from_the_catalog();
    insta::assert_snapshot!(screen(&app, 120, 40));
}

#[test]
fn picker_from_the_catalog_while_servers_start_narrow() {
    let app = starting_from_the_catalog();
    insta::assert_snapshot!(screen(&app, 80, 24));
}

#[test]
fn picker_with_cached_and_stale_rows() {
    insta::assert_snapshot!(screen(&stale_rows(), 120, 40));
}

#[test]
fn picker_with_cached_and_stale_rows_narrow() {
    insta::assert_snapshot!(screen(&stale_rows(), 80, 24));
}

#[test]
fn form_of_a_cached_prompt_waiting_for_its_server() {
    let mut app = crate::app::cached_tests::starting_with_cached_py();
    app.update(key(KeyCode::Enter));
    let filling = screen(&app, 120, 40);
    assert!(
        filling.contains("py is still starting: fill the form;"),
        "{filling}"
    );
    type_text(&mut app, "Ann");
    app.update(key(KeyCode::Enter));
    insta::assert_snapshot!(screen(&app, 120, 40));
}

#[test]
fn picker_refreshing() {
    let mut app = ready_app();
    app.update(ctrl('r'));
    let drawn = screen(&app, 120, 30);
    assert!(drawn.contains("⠋ everything refreshing…"), "{drawn}");
    assert!(drawn.contains("⠋ py refreshing…"), "{drawn}");
}

#[test]
fn stale_rows_of_a_server_starting_again_say_so() {
    let mut app = stale_rows();
    let down = screen(&app, 120, 40);
    assert!(down.contains("F5 starts it again"), "{down}");
    app.update(key(KeyCode::F(5)));
    let starting = screen(&app, 120, 40);
    assert!(starting.contains("py is starting again"), "{starting}");
    assert!(starting.contains("⠋ py · 2 stale"), "{starting}");
}

#[test]
fn form_with_the_live_preview_beside_it() {
    let app = form_with_a_live_preview();
    let drawn = screen(&app, 120, 40);
    assert!(drawn.contains("Preview · updated 0.3 s ago"), "{drawn}");
    insta::assert_snapshot!(drawn);
}

#[test]
fn form_with_the_live_preview_below_it_on_80_by_24() {
    let app = form_with_a_live_preview();
    let drawn = screen(&app, 80, 24);
    // The fields come first: both are on screen above the pane.
    let field = drawn.find("Paris  ").expect("the value is drawn");
    let pane = drawn.find("Preview").expect("the pane is drawn");
    assert!(field < pane, "{drawn}");
    insta::assert_snapshot!(drawn);
}

#[test]
fn form_with_the_live_preview_waiting_for_a_required_value() {
    let mut app = ready_app();
    app.options.live_preview.insert("everything".into());
    type_text(&mut app, "args-prompt");
    app.update(key(KeyCode::Enter));
    let drawn = screen(&app, 120, 20);
    assert!(drawn.contains("fill `city` to see the preview"), "{drawn}");
    insta::assert_snapshot!(drawn);
}

#[test]
fn a_markdown_message_is_rendered_and_m_shows_it_raw() {
    let mut app = rich_review(120, 40);
    let drawn = screen(&app, 120, 40);
    assert!(drawn.contains("│ Area  │ Weight │"), "{drawn}");
    assert!(
        drawn.contains("guide <https://example.com/style>"),
        "{drawn}"
    );
    insta::assert_snapshot!("review_of_markdown_rendered", drawn);
    app.update(key(KeyCode::Char('m')));
    let drawn = screen(&app, 120, 40);
    assert!(drawn.contains("| Area | Weight |"), "{drawn}");
    assert!(drawn.contains("· raw (m renders)"), "{drawn}");
    insta::assert_snapshot!("review_of_markdown_raw", drawn);
}

#[test]
fn a_markdown_message_is_rendered_at_80x24() {
    let app = rich_review(80, 24);
    insta::assert_snapshot!("review_of_markdown_rendered_narrow", screen(&app, 80, 24));
}

#[test]
fn the_rendered_review_carries_styles_and_loses_colours_under_no_color() {
    crate::render::highlight::load();
    let app = rich_review(120, 40);
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).unwrap();
    terminal.draw(|frame| super::draw(&app, frame)).unwrap();
    let buffer = terminal.backend().buffer().clone();
    // The cell where `text` starts on the screen.
    let find = |buffer: &ratatui::buffer::Buffer, text: &str| {
        let width = buffer.area.width as usize;
        let cells: Vec<&str> = buffer.content.iter().map(|c| c.symbol()).collect();
        for (row, chunk) in cells.chunks(width).enumerate() {
            let line: String = chunk.concat();
            if let Some(at) = line.find(text) {
                let column = line[..at].chars().count();
                return buffer.content[row * width + column].clone();
            }
        }
        panic!("{text:?} is not on the screen");
    };
    let heading = find(&buffer, "Code review");
    assert!(heading.modifier.contains(ratatui::style::Modifier::BOLD));
    assert_ne!(heading.fg, ratatui::style::Color::Reset);
    let keyword = find(&buffer, "fn add");
    assert!(
        matches!(keyword.fg, ratatui::style::Color::Rgb(..)),
        "{keyword:?}"
    );
    let plain = find(&buffer, "Review the change");
    assert_ne!(plain.fg, keyword.fg);

    let mut app = app;
    app.options.color = false;
    terminal.draw(|frame| super::draw(&app, frame)).unwrap();
    let buffer = terminal.backend().buffer().clone();
    let heading = find(&buffer, "Code review");
    assert!(heading.modifier.contains(ratatui::style::Modifier::BOLD));
    assert_eq!(heading.fg, ratatui::style::Color::Reset, "no colour");
    assert_eq!(find(&buffer, "fn add").fg, ratatui::style::Color::Reset);
    let code = find(&buffer, "file:line");
    assert!(
        code.modifier.contains(ratatui::style::Modifier::REVERSED),
        "inline code still shows"
    );
}

#[test]
fn the_json_previews_are_highlighted_with_their_base64_folded() {
    use crate::export::Format;
    insta::assert_snapshot!(
        "preview_mcp_json_with_an_image",
        image_preview(Format::McpJson)
    );
    insta::assert_snapshot!(
        "preview_openai_with_an_image",
        image_preview(Format::OpenAi)
    );
    insta::assert_snapshot!(
        "preview_anthropic_with_an_image",
        image_preview(Format::Anthropic)
    );
}

#[test]
fn a_search_matching_nothing_names_the_closest_commands() {
    let mut app = crate::app::tests::ready_app();
    crate::app::tests::type_text(&mut app, "grete");
    assert!(app.menu.ranked.is_empty());
    let drawn = screen(&app, 80, 24);
    assert!(drawn.contains("No prompt matches “grete”."), "{drawn}");
    assert!(drawn.contains("Did you mean /greet?"), "{drawn}");
    // Far from every name: no guess.
    let mut app = crate::app::tests::ready_app();
    crate::app::tests::type_text(&mut app, "zzzzzz");
    let drawn = screen(&app, 80, 24);
    assert!(!drawn.contains("Did you mean"), "{drawn}");
}

#[test]
fn a_slow_fetch_says_how_long_it_has_waited() {
    use crate::app::tests::{key, type_text};
    use crossterm::event::KeyCode;
    let mut app = crate::app::tests::ready_app();
    app.now_ms = 10_000;
    type_text(&mut app, "args-prompt");
    app.update(key(KeyCode::Enter));
    type_text(&mut app, "New York");
    app.update(key(KeyCode::Enter));
    app.update(key(KeyCode::Enter));
    let drawn = screen(&app, 100, 24);
    assert!(drawn.contains("for the messages… Esc cancels."), "{drawn}");
    app.now_ms = 14_300;
    let drawn = screen(&app, 100, 24);
    assert!(
        drawn.contains("for the messages… 4 s. Esc cancels."),
        "{drawn}"
    );
}

#[test]
fn the_menu_help_names_the_search_syntax() {
    let mut app = crate::app::tests::ready_app();
    app.update(crate::app::tests::key(crossterm::event::KeyCode::F(1)));
    let drawn = screen(&app, 100, 40);
    for part in ["'exact", "^prefix", "suffix$", "!not"] {
        assert!(drawn.contains(part), "no {part} in\n{drawn}");
    }
}

#[test]
fn the_review_hint_says_what_enter_does_in_this_run() {
    let mut app = crate::app::tests::app_in_review();
    let hint = |app: &crate::app::App| {
        screen(app, 120, 40)
            .lines()
            .last()
            .unwrap_or("")
            .to_string()
    };
    assert!(hint(&app).contains("Enter accept"), "{}", hint(&app));
    app.options.print = true;
    assert!(hint(&app).contains("Enter print"), "{}", hint(&app));
    app.options.print = false;
    app.options.output = Some("out.md".into());
    assert!(hint(&app).contains("Enter write file"), "{}", hint(&app));
}

#[test]
fn a_long_server_name_in_the_logs_at_60_columns_loses_no_word() {
    let mut app = App::new(
        vec!["broken-server-with-a-long-name".into()],
        Options::default(),
        KeyMap::default(),
        crate::app::History::default(),
    );
    let text = "fatal: could not read the configuration file /home/user/.config/tool/settings.json: permission denied";
    app.update(Msg::Mcp(McpEvent::Log {
        server: "broken-server-with-a-long-name".into(),
        line: crate::model::LogLine {
            source: "stderr".into(),
            text: text.into(),
            at_ms: 1_500,
        },
    }));
    app.update(ctrl('l'));
    let drawn = screen(&app, 60, 15);
    // The name is cut to its column, so the text column stays put and wraps whole.
    assert!(drawn.contains("broken-server-w… stderr  fatal:"), "{drawn}");
    // Every character of the line is drawn, in order (a path too long for a row is split).
    let flat: String = drawn
        .lines()
        .flat_map(|l| l.trim_matches(|c| c == '│' || c == '"').chars())
        .filter(|c| !c.is_whitespace())
        .collect();
    assert!(flat.contains(&text.replace(' ', "")), "{drawn}");
}

#[test]
fn argument_descriptions_in_the_details_wrap_under_their_item_never_to_column_0() {
    let mut app = App::new(
        vec!["py".into()],
        Options::default(),
        KeyMap::default(),
        crate::app::History::default(),
    );
    let mut text = crate::app::tests::arg("text", true);
    text.description = Some(
        "The text to translate: a paragraph, a list or a whole document, kept as it is formatted"
            .into(),
    );
    app.update(Msg::Mcp(McpEvent::Ready {
        server: "py".into(),
        details: crate::app::tests::details(false),
        prompts: vec![crate::app::tests::prompt("py", "translate", vec![text])],
    }));
    let drawn = screen(&app, 120, 24);
    let inside: Vec<&str> = drawn
        .lines()
        .filter_map(|l| l.split_once("│").map(|(_, rest)| rest))
        .filter_map(|l| l.strip_suffix("│\"").or(l.strip_suffix('│')))
        .collect();
    let first = inside
        .iter()
        .position(|l| l.starts_with("  text (required) — The text"))
        .unwrap_or_else(|| panic!("{drawn}"));
    // Its rows after the first are indented under the item, and hold the rest of it.
    let rest: Vec<&str> = inside[first + 1..]
        .iter()
        .take_while(|l| !l.trim().is_empty())
        .copied()
        .collect();
    assert!(!rest.is_empty(), "it did not wrap:\n{drawn}");
    for row in &rest {
        assert!(
            row.starts_with("    ") && !row.starts_with("     "),
            "{row:?}\n{drawn}"
        );
    }
    assert!(rest.last().unwrap().contains("formatted"), "{drawn}");
}

#[test]
fn control_characters_pasted_into_a_focused_field_are_shown_as_pictures() {
    let mut app = ready_app();
    type_text(&mut app, "args-prompt");
    app.update(key(KeyCode::Enter));
    app.update(Msg::Paste("Paris\u{1b}[31m!".into()));
    let drawn = screen(&app, 80, 24);
    assert!(drawn.contains("Paris␛[31m!"), "{drawn}");
    // The value keeps the bytes.
    let crate::app::Screen::Form(form) = &app.screen else {
        panic!("not the form")
    };
    assert_eq!(form.fields[0].value(), "Paris\u{1b}[31m!");
}

#[test]
fn a_combining_mark_stays_on_its_letter_under_the_cursor_in_a_field_and_the_editor() {
    let mut app = ready_app();
    type_text(&mut app, "args-prompt");
    app.update(key(KeyCode::Enter));
    // `é` as `e` and U+0301, then a letter whose two marks are each zero columns wide.
    app.update(Msg::Paste("cafe\u{301} o\u{308}\u{304}k".into()));
    app.update(key(KeyCode::Left));
    assert_eq!(cursor_cell(&app, 80, 24), "k");
    app.update(key(KeyCode::Left));
    assert_eq!(cursor_cell(&app, 80, 24), "o\u{308}\u{304}");
    app.update(key(KeyCode::Left));
    app.update(key(KeyCode::Left));
    assert_eq!(cursor_cell(&app, 80, 24), "e\u{301}");
    // The cell after it is the next letter, not a stray mark.
    let drawn = screen(&app, 80, 24);
    assert!(drawn.contains("cafe\u{301} o\u{308}\u{304}k"), "{drawn}");

    use crate::model::Role;
    let messages = crate::app::tests::messages(&[(Role::User, "cafe\u{301}")]);
    let mut app = crate::app::review_tests::review_of(messages, 80, 24);
    app.update(key(KeyCode::Char('e')));
    app.update(ctrl('e'));
    app.update(key(KeyCode::Left));
    assert_eq!(cursor_cell(&app, 80, 24), "e\u{301}");
}

#[test]
fn an_image_taller_than_the_pane_is_drawn_row_by_row_as_it_scrolls() {
    use crate::app::images::{Graphics, Shown, decode, tests::png};
    let graphics = Graphics {
        protocol: Some(ratatui_image::picker::ProtocolType::Halfblocks),
        font: (10, 20),
    };
    // 16 rows of half-blocks: more than the messages pane of an 80×16 screen holds.
    let picture = png(160, 64);
    let messages: PromptMessages = serde_json::from_value(serde_json::json!({"messages": [
        {"role":"user","content":{"type":"image","data":picture,"mimeType":"image/png"}},
    ]}))
    .unwrap();
    let mut app = crate::app::review_tests::review_of(messages, 80, 16);
    app.options.graphics = graphics;
    let effects = app.update(Msg::Resize(80, 16));
    for effect in effects {
        if let crate::app::Effect::DecodeImage {
            id,
            data,
            graphics,
            columns,
            ..
        } = effect
        {
            let result = decode(&data, &graphics, columns);
            app.update(Msg::ImageDecoded { id, result });
        }
    }
    let crate::app::Screen::Review(review) = &app.screen else {
        panic!("not in the review")
    };
    let width = review.messages_view().width;
    let Some(Shown::Picture { picture, .. }) = review
        .pictures
        .shown(&review.items[0].message().content, width)
    else {
        panic!("not decoded")
    };
    let (columns, rows) = picture.cells;
    assert_eq!(rows, 16, "{:?}", picture.cells);
    // The whole picture, drawn alone: what each of its rows looks like.
    let whole_area = ratatui::layout::Rect::new(0, 0, columns, rows);
    let mut whole = ratatui::buffer::Buffer::empty(whole_area);
    ratatui::widgets::Widget::render(
        ratatui_image::sliced::SlicedImage::new(&picture.protocol, (0, 0).into()),
        whole_area,
        &mut whole,
    );
    let whole = cell_rows(&whole, whole_area);

    // The picture's rows found on screen, in order, at the column it is drawn from.
    let on_screen = |app: &App| -> (String, Vec<usize>) {
        let mut terminal = Terminal::new(TestBackend::new(80, 16)).unwrap();
        terminal.draw(|frame| super::draw(app, frame)).unwrap();
        let drawn = terminal.backend().buffer().clone();
        let found = (0..16)
            .filter_map(|y| {
                let row = ratatui::layout::Rect::new(2, y, columns, 1);
                let row = cell_rows(&drawn, row).remove(0);
                whole.iter().position(|w| *w == row)
            })
            .collect();
        (terminal.backend().to_string(), found)
    };
    let (drawn, top) = on_screen(&app);
    assert!(!drawn.contains("scroll to show"), "{drawn}");
    assert!(!top.is_empty(), "no row of the picture on screen:\n{drawn}");
    assert_eq!(top[0], 0, "the top of the picture first:\n{drawn}");
    assert!(
        top.windows(2).all(|w| w[1] == w[0] + 1),
        "rows in order: {top:?}"
    );
    assert!(top.len() < 16, "the pane holds it all? {top:?}");
    // Scrolled on: the rows above the pane are the ones left out, the next ones come in.
    app.update(key(KeyCode::PageDown));
    let (drawn, lower) = on_screen(&app);
    assert!(!drawn.contains("scroll to show"), "{drawn}");
    assert!(
        lower.first().is_some_and(|first| *first > 0) && lower.last() == Some(&15),
        "after PgDn: {lower:?}\n{drawn}"
    );
    assert!(
        lower.windows(2).all(|w| w[1] == w[0] + 1),
        "rows in order: {lower:?}"
    );
}

/// Every screen mcpick draws, in both bases, at 80×24 and 120×40: each text cell reaches
/// 4.5:1 against what it is drawn on (3:1 for secondary text). The menu, the form and the
/// rendered review are checked at 140×50 in `ui::theme`.
#[test]
fn every_screen_reads_in_both_bases_at_80x24_and_120x40() {
    use crate::ui::theme::tests::{assert_readable, bases};
    type Build = fn() -> App;
    let apps: Vec<(&str, Build)> = vec![
        ("menu while servers connect", || {
            App::new(
                vec!["everything".into(), "py".into()],
                Options::default(),
                KeyMap::default(),
                Default::default(),
            )
        }),
        ("menu with no match", || {
            let mut app = ready_app();
            type_text(&mut app, "grete");
            app
        }),
        ("menu with a failed server", || {
            let mut app = py_never_up();
            app.update(Msg::Mcp(McpEvent::Failed {
                server: "py".into(),
                error: McpError::Spawn {
                    command: "python3".into(),
                    reason: "No such file or directory".into(),
                },
                stderr: vec![],
            }));
            app
        }),
        ("menu with stale rows", stale_rows),
        ("menu from the catalog", starting_from_the_catalog),
        ("menu offering other hosts' servers", || {
            let mut app = ready_app();
            app.offer = vec![crate::app::SourceOffer {
                dialect: "claude-code".into(),
                path: "/home/ann/.claude.json".into(),
                servers: 3,
            }];
            app
        }),
        ("details of a server's prompts", || {
            let mut app = ready_app();
            type_text(&mut app, "/py:");
            app
        }),
        ("help over the menu", || {
            let mut app = ready_app();
            app.update(key(KeyCode::F(1)));
            app
        }),
        ("form with suggestions", || form_with_many_suggestions(5)),
        ("form with a missing value", || {
            let mut app = ready_app();
            type_text(&mut app, "args-prompt");
            app.update(key(KeyCode::Enter));
            app.update(ctrl('s'));
            app
        }),
        ("form fetching", || {
            let mut app = ready_app();
            type_text(&mut app, "args-prompt");
            app.update(key(KeyCode::Enter));
            type_text(&mut app, "Paris");
            app.update(ctrl('s'));
            app
        }),
        ("file picker", || form_with_file_picker("")),
        ("live preview", form_with_a_live_preview),
        ("questions", questions_app),
        ("inputs", crate::app::tests::app_waiting_for_inputs),
        ("logs", logs_app),
        ("review with every content kind", || {
            let mut app = app_in_review();
            with_every_content_kind(&mut app);
            app.update(key(KeyCode::Down));
            app
        }),
        ("review editing", || {
            let mut app = app_in_review();
            app.update(key(KeyCode::Char('e')));
            type_text(&mut app, " Hot?");
            app
        }),
        ("review asking where to save", || {
            let mut app = app_in_review();
            app.update(key(KeyCode::Char('s')));
            app
        }),
        ("review with the export preview", || {
            let mut app = app_in_review();
            app.update(key(KeyCode::Char('f')));
            app.update(key(KeyCode::Char('p')));
            app
        }),
        ("help over the review", || {
            let mut app = app_in_review();
            app.update(key(KeyCode::Char('?')));
            app
        }),
        ("a long notice", || {
            let mut app = app_in_review();
            app.notify(
                "Copied to a tmux buffer (prefix ] pastes it); also sent to your terminal's clipboard (set-clipboard external).",
            );
            app
        }),
    ];
    for (what, build) in apps {
        for (width, height) in [(80, 24), (120, 40)] {
            let mut drawn = Vec::new();
            for base in bases() {
                let mut app = build();
                app.update(Msg::Resize(width, height));
                assert_readable(&mut app, base, (width, height), what);
                drawn.push(screen(&app, width, height));
            }
            // A base changes colours only: the text is the same in both, so one snapshot
            // of each screen and size stands for both bases.
            assert_eq!(
                drawn[0], drawn[1],
                "{what} at {width}x{height}: light differs"
            );
            let name: String = what
                .chars()
                .filter_map(|c| match c {
                    ' ' => Some('_'),
                    c if c.is_ascii_alphanumeric() => Some(c),
                    _ => None,
                })
                .collect();
            insta::assert_snapshot!(format!("every_screen_{name}_{width}x{height}"), drawn[0]);
        }
    }
}
