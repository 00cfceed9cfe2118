//! Screens drawn into a test backend, compared with reviewed snapshots.

use ratatui::Terminal;
use ratatui::backend::TestBackend;

use crate::app::tests::{app_in_review, ctrl, key, ready_app, type_text};
use crate::app::{App, KeyMap, Msg, Options};
use crate::mcp::{GetOutcome, McpError, McpEvent};
use crate::model::{Completion, PromptMessages};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

pub(crate) fn screen(app: &App, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|frame| super::draw(app, frame)).unwrap();
    terminal.backend().to_string()
}

pub(crate) fn wide(app: &App) -> String {
    screen(app, 120, 30)
}

#[test]
pub(crate) fn picker_while_servers_connect() {
    let app = App::new(
        vec!["everything".into(), "py".into()],
        Options::default(),
        KeyMap::default(),
        Default::default(),
    );
    insta::assert_snapshot!(wide(&app));
}

#[test]
pub(crate) fn picker_with_every_prompt() {
    insta::assert_snapshot!(wide(&ready_app()));
}

#[test]
pub(crate) fn picker_filtered() {
    let mut app = ready_app();
    type_text(&mut app, "args");
    insta::assert_snapshot!(wide(&app));
}

#[test]
pub(crate) fn picker_with_no_match() {
    let mut app = ready_app();
    type_text(&mut app, "zzzz");
    insta::assert_snapshot!(wide(&app));
}

/// `everything` up and `py` failed at start (it never listed: no rows of its own).
pub(crate) fn py_never_up() -> App {
    let mut app = ready_app();
    // A server's rows from a list of this run stay after a crash: take py's away.
    app.update(Msg::Mcp(McpEvent::PromptsChanged {
        server: "py".into(),
        prompts: vec![],
    }));
    app
}

#[test]
pub(crate) fn picker_with_a_failed_server_narrow() {
    let mut app = py_never_up();
    app.update(Msg::Mcp(McpEvent::Failed {
        server: "py".into(),
        error: McpError::Spawn {
            command: "python3".into(),
            reason: "No such file or directory".into(),
        },
        stderr: vec![],
    }));
    insta::assert_snapshot!(screen(&app, 80, 20));
}

#[test]
pub(crate) fn form_with_suggestions() {
    let mut app = ready_app();
    type_text(&mut app, "args-prompt");
    app.update(key(KeyCode::Enter));
    app.update(key(KeyCode::Tab));
    type_text(&mut app, "Tex");
    let mut id = None;
    for _ in 0..4 {
        for effect in app.update(Msg::Tick) {
            if let crate::app::Effect::Complete { id: i, .. } = effect {
                id = Some(i);
            }
        }
    }
    app.update(Msg::Completed {
        id: id.unwrap(),
        result: Ok(Completion {
            values: vec!["Texas".into(), "Texarkana".into()],
            total: Some(9),
            has_more: Some(true),
        }),
    });
    insta::assert_snapshot!(wide(&app));
}

#[test]
pub(crate) fn form_with_a_missing_required_value() {
    let mut app = ready_app();
    type_text(&mut app, "args-prompt");
    app.update(key(KeyCode::Enter));
    app.update(ctrl('s'));
    insta::assert_snapshot!(wide(&app));
}

#[test]
pub(crate) fn form_fetching() {
    let mut app = ready_app();
    type_text(&mut app, "args-prompt");
    app.update(key(KeyCode::Enter));
    type_text(&mut app, "Paris");
    app.update(ctrl('s'));
    insta::assert_snapshot!(wide(&app));
}

/// The form of `greet` answered with questions (a form of three fields, an unsupported one).
pub(crate) fn questions_app() -> App {
    use crate::mcp::{FieldKind, FormField, InputRequest, Question, QuestionKind};
    let mut app = ready_app();
    type_text(&mut app, "/py:greet");
    app.update(key(KeyCode::Enter));
    type_text(&mut app, "Ann");
    let effects = app.update(ctrl('s'));
    let Some(crate::app::Effect::Fetch { id, .. }) = effects.first() else {
        panic!()
    };
    let field = |name: &str, kind: FieldKind| FormField {
        name: name.into(),
        title: None,
        description: Some(format!("your {name}")),
        required: name == "login",
        kind,
        default: None,
    };
    app.update(Msg::Fetched {
        id: *id,
        result: Ok(GetOutcome::InputRequired(InputRequest {
            questions: vec![
                Question {
                    key: "who".into(),
                    kind: QuestionKind::Form {
                        message: "Please tell us who you are".into(),
                        fields: vec![
                            field(
                                "login",
                                FieldKind::Text {
                                    format: None,
                                    min_length: None,
                                    max_length: None,
                                },
                            ),
                            field("admin", FieldKind::Boolean),
                            field(
                                "team",
                                FieldKind::Choice {
                                    values: vec!["a".into(), "b".into()],
                                    labels: vec!["Alpha".into(), "Beta".into()],
                                    multiple: false,
                                },
                            ),
                        ],
                    },
                },
                Question {
                    key: "llm".into(),
                    kind: QuestionKind::Unsupported {
                        method: "sampling/createMessage".into(),
                        summary: "asks a model to write".into(),
                    },
                },
            ],
            request_state: None,
        })),
    });
    app
}

#[test]
pub(crate) fn questions_from_the_server() {
    insta::assert_snapshot!(wide(&questions_app()));
}

pub(crate) fn with_every_content_kind(app: &mut App) {
    let messages: PromptMessages = serde_json::from_value(serde_json::json!({"messages": [
        {"role":"user","content":{"type":"text","text":"Look at these \u{1b}[31mfiles\u{1b}[0m"}},
        {"role":"user","content":{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}},
        {"role":"assistant","content":{"type":"audio","data":"UklGRg==","mimeType":"audio/wav"}},
        {"role":"user","content":{"type":"resource","resource":{"uri":"file:///notes.md","mimeType":"text/markdown","text":"# Notes\nline two"}}},
        {"role":"user","content":{"type":"resource","resource":{"uri":"file:///blob.bin","blob":"AAEC"}}},
        {"role":"user","content":{"type":"resource_link","uri":"file:///big.log","name":"big.log","description":"The build log","mimeType":"text/plain","size":2048}},
        {"role":"user","content":{"type":"hologram","frames":3}}
    ]}))
    .unwrap();
    if let crate::app::Screen::Review(review) = &mut app.screen {
        let form = review.form.clone();
        **review = crate::app::ReviewState::new(
            form,
            review.arguments.clone(),
            messages,
            crate::export::Format::Markdown,
        );
    }
}

#[test]
pub(crate) fn review_navigating() {
    let mut app = app_in_review();
    app.update(key(KeyCode::Char('e')));
    type_text(&mut app, " Hot?");
    app.update(key(KeyCode::Esc));
    insta::assert_snapshot!(wide(&app));
}

#[test]
pub(crate) fn review_with_every_content_kind() {
    let mut app = app_in_review();
    with_every_content_kind(&mut app);
    app.update(key(KeyCode::Down));
    insta::assert_snapshot!(screen(&app, 100, 40));
}

#[test]
pub(crate) fn review_with_an_image_placeholder() {
    let mut app = app_in_review();
    app.options.graphics = crate::app::images::Graphics {
        protocol: Some(ratatui_image::picker::ProtocolType::Halfblocks),
        font: (10, 20),
    };
    let picture = crate::app::images::tests::png(320, 240);
    let messages: PromptMessages = serde_json::from_value(serde_json::json!({"messages": [
        {"role":"user","content":{"type":"text","text":"What is in this picture?"}},
        {"role":"user","content":{"type":"image","data":picture,"mimeType":"image/png"}},
        {"role":"user","content":{"type":"resource","resource":{"uri":"file:///shot.png","mimeType":"image/png","blob":picture}}},
        {"role":"user","content":{"type":"text","text":"Answer in one line."}}
    ]}))
    .unwrap();
    if let crate::app::Screen::Review(review) = &mut app.screen {
        let form = review.form.clone();
        **review = crate::app::ReviewState::new(
            form,
            review.arguments.clone(),
            messages,
            crate::export::Format::Markdown,
        );
    }
    // The decodes are asked (never run here): the rows are kept, the placeholder drawn.
    let effects = app.update(Msg::Resize(120, 40));
    assert_eq!(
        effects
            .iter()
            .filter(|e| matches!(e, crate::app::Effect::DecodeImage { .. }))
            .count(),
        1,
        "one image, twice: {effects:?}"
    );
    insta::assert_snapshot!(screen(&app, 120, 40));
}

#[test]
pub(crate) fn review_editing() {
    let mut app = app_in_review();
    app.update(key(KeyCode::Char('e')));
    type_text(&mut app, " Hot?");
    insta::assert_snapshot!(wide(&app));
}

#[test]
pub(crate) fn review_with_export_preview() {
    let mut app = app_in_review();
    app.update(Msg::Resize(120, 30));
    app.update(key(KeyCode::Char('f')));
    app.update(key(KeyCode::Char('f')));
    app.update(key(KeyCode::Char('p')));
    insta::assert_snapshot!(wide(&app));
}

#[test]
pub(crate) fn review_asking_where_to_save() {
    let mut app = app_in_review();
    app.update(key(KeyCode::Char('s')));
    insta::assert_snapshot!(wide(&app));
}

#[test]
pub(crate) fn help_over_the_review() {
    let mut app = app_in_review();
    app.update(key(KeyCode::Char('?')));
    insta::assert_snapshot!(screen(&app, 100, 40));
}

/// The logs pane over the menu: server lines, a failure and a line after it.
pub(crate) fn logs_app() -> App {
    let mut app = ready_app();
    app.update(Msg::Mcp(McpEvent::Log {
        server: "py".into(),
        line: crate::model::LogLine {
            source: "stderr".into(),
            text: "Traceback (most recent call last):\u{1b}]52;c;aGk=\u{7}".into(),
            at_ms: 1_500,
        },
    }));
    app.update(Msg::Mcp(McpEvent::Log {
        server: "everything".into(),
        line: crate::model::LogLine {
            source: "info".into(),
            text: "ready".into(),
            at_ms: 62_345,
        },
    }));
    // The app's clock when the failure comes in: its event is placed by it.
    app.now_ms = 2_000;
    app.update(Msg::Mcp(McpEvent::Failed {
        server: "py".into(),
        error: McpError::Closed(" (exit status 1)".into()),
        stderr: vec![],
    }));
    // A stderr line read after the failure follows it.
    app.update(Msg::Mcp(McpEvent::Log {
        server: "py".into(),
        line: crate::model::LogLine {
            source: "stderr".into(),
            text: "ValueError: late line".into(),
            at_ms: 3_723_400,
        },
    }));
    app.update(ctrl('l'));
    app
}

#[test]
pub(crate) fn logs_pane() {
    insta::assert_snapshot!(wide(&logs_app()));
}

#[test]
pub(crate) fn logs_pane_filtered_while_typing() {
    let mut app = ready_app();
    for (server, source, text, at_ms) in [
        ("py", "stderr", "Traceback: boom", 1_500),
        ("everything", "info", "ready", 62_345),
        ("py", "mcpick", "restarting in 1 s (attempt 1 of 5)", 62_400),
        ("py", "stderr", "BOOM again", 125_050),
    ] {
        app.update(Msg::Mcp(McpEvent::Log {
            server: server.into(),
            line: crate::model::LogLine {
                source: source.into(),
                text: text.into(),
                at_ms,
            },
        }));
    }
    app.update(ctrl('l'));
    app.update(key(KeyCode::Char('/')));
    type_text(&mut app, "boom");
    insta::assert_snapshot!(screen(&app, 100, 12));
}

#[test]
pub(crate) fn too_small() {
    insta::assert_snapshot!(screen(&ready_app(), 50, 12));
}

#[test]
pub(crate) fn server_text_never_reaches_the_terminal_raw() {
    let mut app = app_in_review();
    with_every_content_kind(&mut app);
    let drawn = screen(&app, 100, 40);
    assert!(
        !drawn.contains('\u{1b}'),
        "an escape from the server reached the screen"
    );
    assert!(drawn.contains("␛[31mfiles"));
}

#[test]
pub(crate) fn help_at_the_smallest_size_scrolls() {
    let mut app = app_in_review();
    app.update(Msg::Resize(60, 15));
    app.update(key(KeyCode::Char('?')));
    app.update(key(KeyCode::PageDown));
    insta::assert_snapshot!(screen(&app, 60, 15));
}

#[test]
pub(crate) fn help_says_more_only_while_lines_are_below() {
    let mut app = app_in_review();
    app.update(Msg::Resize(80, 24));
    app.update(key(KeyCode::Char('?')));
    let title = |app: &App| {
        let drawn = screen(app, 80, 24);
        let line = drawn.lines().find(|l| l.contains("Keys: review"));
        line.expect("the help's title").to_string()
    };
    let first = title(&app);
    assert!(
        first.contains("(lines 1–") && first.contains(", ↓ more)"),
        "{first}"
    );
    for _ in 0..3 {
        app.update(key(KeyCode::PageDown));
    }
    let last = title(&app);
    assert!(last.contains(", ↑ more)") && !last.contains('↓'), "{last}");
    // The last line shows: the range ends at the count.
    let total: usize = last
        .split(" of ")
        .nth(1)
        .and_then(|rest| rest.split(',').next())
        .and_then(|n| n.parse().ok())
        .expect("a line count");
    assert!(last.contains(&format!("–{total} of {total}")), "{last}");
}

#[test]
pub(crate) fn review_of_a_long_paragraph_wraps_and_scrolls() {
    let mut app = app_in_review();
    app.update(Msg::Resize(80, 20));
    let words: Vec<String> = (1..=300).map(|n| format!("word{n}")).collect();
    if let crate::app::Screen::Review(review) = &mut app.screen {
        review.items[0].set_content(crate::model::Content::text(words.join(" ")));
    }
    app.update(key(KeyCode::PageDown));
    insta::assert_snapshot!(screen(&app, 80, 20));
}

#[test]
pub(crate) fn a_narrow_status_bar_counts_servers_and_names_the_failed_ones() {
    let mut app = App::new(
        (1..=6).map(|n| format!("server-number-{n}")).collect(),
        Options::default(),
        KeyMap::default(),
        Default::default(),
    );
    app.update(Msg::Mcp(McpEvent::Failed {
        server: "server-number-5".into(),
        error: McpError::Closed(String::new()),
        stderr: vec![],
    }));
    insta::assert_snapshot!(screen(&app, 60, 15));
}

#[test]
pub(crate) fn wide_characters_keep_the_menu_columns_aligned() {
    let mut app = App::new(
        vec!["srv".into()],
        Options::default(),
        KeyMap::default(),
        Default::default(),
    );
    let mut wide =
        crate::app::tests::prompt("srv", "kanji", vec![crate::app::tests::arg("x", true)]);
    wide.title = Some("日本語のプロンプト".into());
    let narrow =
        crate::app::tests::prompt("srv", "plain", vec![crate::app::tests::arg("y", false)]);
    app.update(Msg::Mcp(McpEvent::Ready {
        server: "srv".into(),
        details: crate::app::tests::details(false),
        prompts: vec![wide, narrow],
    }));
    insta::assert_snapshot!(screen(&app, 80, 15));
}

#[test]
pub(crate) fn the_details_say_where_an_imported_server_came_from() {
    let mut app = ready_app();
    app.server_sources.insert(
        "py".into(),
        "vscode: /home/ann/proj/.vscode/mcp.json".into(),
    );
    type_text(&mut app, "/py:");
    insta::assert_snapshot!(screen(&app, 80, 20));
}

#[test]
pub(crate) fn a_first_run_offers_other_hosts_servers() {
    let mut app = ready_app();
    app.offer = vec![crate::app::SourceOffer {
        dialect: "claude-code".into(),
        path: "/home/ann/.claude.json".into(),
        servers: 3,
    }];
    insta::assert_snapshot!(screen(&app, 100, 15));
}

#[test]
pub(crate) fn servers_waiting_for_inputs_ask_for_them_masked() {
    let mut app = crate::app::tests::app_waiting_for_inputs();
    for c in "s3cret".chars() {
        app.update(crate::app::tests::key(crossterm::event::KeyCode::Char(c)));
    }
    let drawn = screen(&app, 100, 20);
    assert!(!drawn.contains("s3cret"));
    insta::assert_snapshot!(drawn);
}

#[test]
pub(crate) fn ten_rows_inline_show_the_menu_and_a_field_with_its_value() {
    // `--height 10`: the picker, and the form with its title and hint on one line each.
    let mut app = ready_app();
    app.update(Msg::Resize(100, 10));
    let picker = screen(&app, 100, 10);
    // Narrow too (80×10, `--height 40%` of 80×24): the list keeps the rows, no details.
    app.update(Msg::Resize(80, 10));
    let narrow = screen(&app, 80, 10);
    assert!(
        narrow.contains("args-prompt") && narrow.contains("greet"),
        "{narrow}"
    );
    assert!(!narrow.contains("Details"), "{narrow}");
    app.update(Msg::Resize(100, 10));
    type_text(&mut app, "args-prompt");
    app.update(key(KeyCode::Enter));
    type_text(&mut app, "Paris");
    insta::assert_snapshot!(format!("{picker}\n{}", screen(&app, 100, 10)));
}

#[test]
pub(crate) fn a_long_notice_is_never_cut_it_wraps_above_the_bar_and_the_counts_stay() {
    let mut app = app_in_review();
    let long = "Copied to a tmux buffer (prefix ] pastes it); also sent to your terminal's clipboard (set-clipboard external).";
    app.notify(long);
    let wide = screen(&app, 130, 30);
    assert!(wide.contains(long), "{wide}");
    for (width, height) in [(80, 24), (60, 15)] {
        app.update(Msg::Resize(width, height));
        let drawn = screen(&app, width, height);
        let lines: Vec<&str> = drawn.lines().collect();
        let bar = lines[lines.len() - 2];
        assert!(
            bar.contains("● everything"),
            "the servers keep their line: {bar}"
        );
        assert!(!drawn.contains('…'), "cut at {width}×{height}:\n{drawn}");
        // The rows above the bar hold the notice whole, under a rule.
        let start = lines
            .iter()
            .position(|l| l.contains("Copied to a tmux"))
            .unwrap_or_else(|| panic!("no notice at {width}×{height}:\n{drawn}"));
        assert!(lines[start - 1].contains("────"), "{drawn}");
        let said: String = lines[start..lines.len() - 2]
            .iter()
            .map(|l| l.trim_matches('"').trim_end())
            .collect::<Vec<_>>()
            .join(" ");
        assert_eq!(said, long, "at {width}×{height}:\n{drawn}");
    }
}

#[test]
pub(crate) fn a_notice_beside_a_failed_server_is_set_apart_from_it() {
    let mut app = app_in_review();
    app.update(Msg::Mcp(McpEvent::Failed {
        server: "py".into(),
        error: crate::mcp::McpError::Closed(": exit 3".into()),
        stderr: vec![],
    }));
    app.warn("You edited these messages: Esc again discards the edits (Enter accepts, s saves).");
    // Wide enough that the notice sits on the bar beside the servers' whole line.
    let drawn = screen(&app, 140, 24);
    let bar = drawn
        .lines()
        .find(|l| l.contains("You edited"))
        .unwrap_or_else(|| panic!("no notice:\n{drawn}"));
    let end = bar
        .find("1 stale")
        .unwrap_or_else(|| panic!("not beside the servers:\n{drawn}"));
    let between = &bar[end + "1 stale".len()..bar.find("You edited").unwrap()];
    assert!(
        between == " │ " || (between.len() >= 3 && between.trim().is_empty()),
        "ran together: {bar}"
    );
}

#[test]
pub(crate) fn notices_waiting_their_turn_are_counted_in_the_bar_never_run_into_the_one_shown() {
    let mut app = app_in_review();
    app.notify("Saved notes.md.");
    app.warn("Save failed: the folder is read-only.");
    app.notify("Copied.");
    let drawn = screen(&app, 80, 24);
    let bar = drawn
        .lines()
        .find(|l| l.contains("Saved notes.md."))
        .unwrap_or_else(|| panic!("no notice in the bar:\n{drawn}"));
    assert!(
        bar.trim_end_matches('"')
            .trim_end()
            .ends_with("Saved notes.md. (+2)"),
        "{bar}"
    );
    assert!(
        !bar.contains("read-only"),
        "two notices ran together: {bar}"
    );
}

#[test]
pub(crate) fn notices_about_blocks_and_lines_read_as_english() {
    let mut app = app_in_review();
    with_every_content_kind(&mut app);
    // The image block: no text to edit.
    app.update(key(KeyCode::Down));
    app.update(key(KeyCode::Char('e')));
    let said = app
        .flash
        .as_ref()
        .map(|f| f.text.clone())
        .unwrap_or_default();
    assert_eq!(
        said,
        "An image block has no text to edit; w saves its bytes."
    );
    // The resource link: no bytes to save.
    for _ in 0..4 {
        app.update(key(KeyCode::Down));
    }
    app.update(key(KeyCode::Char('w')));
    let said = app
        .flash
        .as_ref()
        .map(|f| f.text.clone())
        .unwrap_or_default();
    assert_eq!(
        said,
        "A resource_link block has no bytes to save; s saves the export."
    );
}

#[test]
pub(crate) fn the_menu_lists_slash_commands_with_recent_ones_under_their_header() {
    let mut app = ready_app();
    app.history.record("py:greet", &Default::default());
    // The history changed after the menu was ranked: rank again as a new search would.
    type_text(&mut app, "x");
    app.update(key(KeyCode::Backspace));
    insta::assert_snapshot!(screen(&app, 100, 12));
}

#[test]
pub(crate) fn narrowing_to_a_failed_server_shows_its_state_not_no_match() {
    let mut app = py_never_up();
    app.update(Msg::Mcp(crate::mcp::McpEvent::Failed {
        server: "py".into(),
        error: crate::mcp::McpError::Closed(": the server exited with status 3".into()),
        stderr: vec![],
    }));
    type_text(&mut app, "/py:");
    let drawn = screen(&app, 100, 12);
    assert!(drawn.contains("py failed: "), "{drawn}");
    assert!(
        drawn.contains("Start it again (F5); its logs (Ctrl-L)."),
        "{drawn}"
    );
    assert!(!drawn.contains("No prompt matches"), "{drawn}");
}

#[test]
pub(crate) fn the_status_bar_never_runs_two_texts_together_or_cuts_a_word_unmarked() {
    let mut app = ready_app();
    app.update(Msg::Mcp(crate::mcp::McpEvent::Failed {
        server: "py".into(),
        error: crate::mcp::McpError::Closed("gone".into()),
        stderr: vec![],
    }));
    app.warn("Your unexported draft of args-prompt was restored from the last run; Esc twice discards it.");
    let whole = "Your unexported draft of args-prompt was restored from the last run; Esc twice discards it.";
    for width in [60u16, 80, 100, 160] {
        let drawn = screen(&app, width, 15);
        assert_notice_whole(&drawn, whole, 13);
        let bar = drawn.lines().nth(13).unwrap_or_default();
        if let Some(at) = bar.find("Your") {
            assert!(
                at == 0 || bar[..at].ends_with(' '),
                "run together at {width}: {bar}"
            );
        }
    }
}

/// `whole` is drawn uncut: on the status bar (row `bar`), or wrapped in the rows above it
/// under a rule.
pub(crate) fn assert_notice_whole(drawn: &str, whole: &str, bar: usize) {
    let lines: Vec<&str> = drawn.lines().map(|l| l.trim_matches('"')).collect();
    if lines[bar].contains(whole) {
        return;
    }
    let rule = lines[..bar]
        .iter()
        .rposition(|l| l.starts_with("────"))
        .unwrap_or_else(|| panic!("neither on the bar nor above it:\n{drawn}"));
    let said: Vec<&str> = lines[rule + 1..bar].iter().map(|l| l.trim_end()).collect();
    assert_eq!(said.join(" "), whole, "{drawn}");
}

#[test]
pub(crate) fn the_search_cursor_is_drawn_where_the_line_is_edited() {
    let mut app = ready_app();
    type_text(&mut app, "grét");
    let cursor = |app: &App| {
        let mut terminal = Terminal::new(TestBackend::new(80, 20)).unwrap();
        terminal.draw(|frame| super::draw(app, frame)).unwrap();
        terminal.get_cursor_position().unwrap()
    };
    let at_end = cursor(&app);
    app.update(key(KeyCode::Left));
    app.update(key(KeyCode::Left));
    assert_eq!(cursor(&app).x, at_end.x - 2);
    app.update(ctrl('a'));
    // Past the `❯ ` prompt.
    assert_eq!(cursor(&app).x, at_end.x - 4);
}

/// A Python block indented by tabs, as a server may send it.
const PYTHON_WITH_TABS: &str = "Fix this:\n```python\ndef area(r):\n\tif r < 0:\n\t\traise ValueError(r)\n\treturn 3.14 * r * r\n```";

#[test]
pub(crate) fn tab_indentation_shows_in_the_review_and_the_preview() {
    use crate::model::Role;
    let messages = crate::app::tests::messages(&[
        (Role::User, PYTHON_WITH_TABS),
        (Role::Assistant, "x\ty\tz"),
    ]);
    let mut app = crate::app::review_tests::review_of(messages, 120, 30);
    let drawn = screen(&app, 120, 30);
    assert!(drawn.contains("      raise ValueError(r)"), "{drawn}");
    insta::assert_snapshot!("review_with_tabs", drawn);
    app.update(key(KeyCode::Char('p')));
    let drawn = screen(&app, 120, 30);
    // The border, then the code block's bar: the two tabs still four columns each.
    assert!(drawn.contains("││         raise ValueError(r)"), "{drawn}");
    insta::assert_snapshot!("preview_with_tabs", drawn);
    // What is sent keeps the tabs.
    if let crate::app::Screen::Review(review) = &app.screen {
        assert!(review.export().contains("\t\traise ValueError(r)"));
    }
}

#[test]
pub(crate) fn the_end_of_a_200_message_review_fills_the_screen() {
    let mut app =
        crate::app::review_tests::review_of(crate::app::review_tests::two_hundred(), 120, 40);
    app.update(key(KeyCode::Char('G')));
    insta::assert_snapshot!(screen(&app, 120, 40));
}

#[test]
pub(crate) fn a_narrow_preview_takes_the_area_and_says_how_back() {
    use crate::model::Role;
    let messages = crate::app::tests::messages(&[
        (Role::User, PYTHON_WITH_TABS),
        (Role::Assistant, "Use math.pi."),
    ]);
    let mut app = crate::app::review_tests::review_of(messages, 80, 24);
    app.update(key(KeyCode::Char('p')));
    insta::assert_snapshot!(screen(&app, 80, 24));
}

#[test]
pub(crate) fn the_logs_draw_tabs_to_their_stops() {
    let mut app = ready_app();
    app.update(Msg::Mcp(McpEvent::Log {
        server: "py".into(),
        line: crate::model::LogLine {
            source: "stderr".into(),
            text: "\tFile \"x.py\", line 1".into(),
            at_ms: 1_500,
        },
    }));
    app.update(ctrl('l'));
    let drawn = wide(&app);
    assert!(drawn.contains("stderr      File \"x.py\""), "{drawn}");
}

/// The args-prompt form with the file picker open over a few listed files, `query` typed.
pub(crate) fn form_with_file_picker(query: &str) -> App {
    let mut app = ready_app();
    type_text(&mut app, "args-prompt");
    app.update(key(KeyCode::Enter));
    let effects = app.update(ctrl('o'));
    let Some(crate::app::Effect::ListFiles { id }) = effects.first().cloned() else {
        panic!("expected a walk, got {effects:?}");
    };
    app.update(Msg::FilesListed {
        id,
        list: crate::app::FileList {
            files: [
                "Cargo.toml",
                "README.md",
                "build.log",
                "docs/build.md",
                "src/main.rs",
            ]
            .iter()
            .map(|f| f.to_string())
            .collect(),
            truncated: false,
        },
    });
    type_text(&mut app, query);
    app
}

/// The rows of a screen drawn at `width`×`height`, and whether any cell holds a ZWJ.
pub(crate) fn cells(app: &App, width: u16, height: u16) -> (String, bool) {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|frame| super::draw(app, frame)).unwrap();
    let buffer = terminal.backend().buffer();
    let zwj = buffer
        .content()
        .iter()
        .any(|c| c.symbol().contains('\u{200d}'));
    (terminal.backend().to_string(), zwj)
}

#[test]
pub(crate) fn the_review_and_its_editor_draw_a_zwj_sequence_as_its_parts() {
    use crate::model::Role;
    let family = "a👩\u{200d}👩\u{200d}👧b ❤\u{fe0f} 👍🏽";
    let messages = crate::app::tests::messages(&[(Role::User, family)]);
    let mut app = crate::app::review_tests::review_of(messages, 80, 24);
    let (screen, zwj) = cells(&app, 80, 24);
    assert!(!zwj, "a ZWJ sequence went to the terminal whole:\n{screen}");
    assert!(screen.contains("a👩👩👧b ❤ 👍"), "{screen}");
    app.update(key(KeyCode::Char('e')));
    let (screen, zwj) = cells(&app, 80, 24);
    assert!(screen.contains("Editing #1"), "{screen}");
    assert!(!zwj, "the editor drew a ZWJ sequence whole:\n{screen}");
    // What is sent keeps every character.
    app.update(key(KeyCode::Esc));
    if let crate::app::Screen::Review(review) = &app.screen {
        assert!(review.export().contains(family));
    }
}

#[test]
pub(crate) fn form_with_a_zwj_sequence_drawn_as_its_parts() {
    let mut app = ready_app();
    type_text(&mut app, "args-prompt");
    app.update(key(KeyCode::Enter));
    // Focused: drawn by the text area; unfocused: drawn as a paragraph.
    type_text(&mut app, "a👩\u{200d}👩\u{200d}👧b ❤\u{fe0f} 👍🏽");
    app.update(key(KeyCode::Tab));
    type_text(&mut app, "🏳\u{fe0f}\u{200d}🌈 e\u{301} 🇫🇷");
    app.update(key(KeyCode::Left));
    let (screen, zwj) = cells(&app, 60, 16);
    assert!(!zwj, "a ZWJ sequence went to the terminal whole:\n{screen}");
    insta::assert_snapshot!(screen);
}

/// Opens args-prompt with `count` completion values for its first field, typed "C".
pub(crate) fn form_with_many_suggestions(count: usize) -> App {
    let mut app = ready_app();
    type_text(&mut app, "args-prompt");
    app.update(key(KeyCode::Enter));
    type_text(&mut app, "C");
    let values: Vec<String> = (1..=count).map(|i| format!("City {i}")).collect();
    for _ in 0..4 {
        for effect in app.update(Msg::Tick) {
            if let crate::app::Effect::Complete { id, .. } = effect {
                app.update(Msg::Completed {
                    id,
                    result: Ok(Completion {
                        values: values.clone(),
                        total: None,
                        has_more: None,
                    }),
                });
            }
        }
    }
    app
}

#[test]
pub(crate) fn form_with_the_file_picker() {
    insta::assert_snapshot!(wide(&form_with_file_picker("build")));
}

#[test]
pub(crate) fn form_with_the_file_picker_narrow() {
    let drawn = screen(&form_with_file_picker(""), 80, 24);
    assert_popup_lines_up_with_the_form(&drawn);
    insta::assert_snapshot!(drawn);
}

/// A popup over the narrow form covers it edge to edge: no box line of the form shows
/// beside its own (`┌┌`, `└│`, `┐┐`).
pub(crate) fn assert_popup_lines_up_with_the_form(drawn: &str) {
    for doubled in ["┌┌", "└│", "┐┐", "││", "│┘"] {
        assert!(!drawn.contains(doubled), "{doubled} in\n{drawn}");
    }
}

#[test]
pub(crate) fn form_with_values_from_a_file_and_a_command() {
    let mut app = form_with_file_picker("build.log");
    let effects = app.update(key(KeyCode::Enter));
    let Some(crate::app::Effect::ReadFile { id, .. }) = effects.first().cloned() else {
        panic!("expected a read, got {effects:?}");
    };
    app.update(Msg::FileRead {
        id,
        result: Ok("error[E0308]: mismatched types\n  --> src/main.rs:3:5\n".repeat(200)),
    });
    app.update(key(KeyCode::Tab));
    app.update(ctrl('r'));
    type_text(&mut app, "git log -3 --format=%s");
    let effects = app.update(key(KeyCode::Enter));
    let Some(crate::app::Effect::RunCommand { id, .. }) = effects.first().cloned() else {
        panic!("expected a run, got {effects:?}");
    };
    app.update(Msg::CommandRan {
        id,
        outcome: crate::app::CommandOutcome::Done {
            output: "fix the form\nadd the picker\nfirst".into(),
        },
    });
    let confirming = wide(&app);
    app.update(key(KeyCode::Enter));
    insta::assert_snapshot!("form_with_a_commands_output_to_confirm", confirming);
    insta::assert_snapshot!(wide(&app));
}

#[test]
pub(crate) fn form_with_a_failed_command() {
    let mut app = ready_app();
    type_text(&mut app, "args-prompt");
    app.update(key(KeyCode::Enter));
    app.update(ctrl('r'));
    type_text(&mut app, "make lint");
    let effects = app.update(key(KeyCode::Enter));
    let Some(crate::app::Effect::RunCommand { id, .. }) = effects.first().cloned() else {
        panic!("expected a run, got {effects:?}");
    };
    app.update(Msg::CommandRan {
        id,
        outcome: crate::app::CommandOutcome::Failed {
            why: "exited with status 2".into(),
            stderr: "make: *** No rule to make target 'lint'.  Stop.\x1b[31m".into(),
        },
    });
    let drawn = screen(&app, 80, 24);
    assert_popup_lines_up_with_the_form(&drawn);
    insta::assert_snapshot!(drawn);
}

#[test]
pub(crate) fn form_with_a_long_suggestion_list_on_a_tall_screen() {
    let mut app = form_with_many_suggestions(60);
    for _ in 0..3 {
        app.update(ctrl('n'));
    }
    let tall = screen(&app, 80, 50);
    assert!(tall.contains("City 30"), "the list uses the room:\n{tall}");
    insta::assert_snapshot!(tall);
}

#[test]
pub(crate) fn form_with_a_long_suggestion_list_scrolled_to_its_end() {
    let mut app = form_with_many_suggestions(60);
    app.update(ctrl('p'));
    insta::assert_snapshot!(screen(&app, 80, 24));
}

#[test]
pub(crate) fn form_taller_than_the_screen_says_more_fields_are_above_and_below() {
    use crate::app::tests::{arg, prompt};
    let mut app = ready_app();
    let args = (1..=12).map(|i| arg(&format!("field{i}"), false)).collect();
    app.update(Msg::Mcp(McpEvent::PromptsChanged {
        server: "py".into(),
        prompts: vec![prompt("py", "many", args)],
    }));
    type_text(&mut app, "/py:many");
    app.update(key(KeyCode::Enter));
    for _ in 0..6 {
        app.update(key(KeyCode::Tab));
    }
    let shown = screen(&app, 80, 24);
    assert!(
        shown.contains("field7"),
        "the focused field is in view:\n{shown}"
    );
    insta::assert_snapshot!(shown);
}

#[test]
pub(crate) fn the_hint_line_says_what_keys_do_while_a_command_runs() {
    let mut app = ready_app();
    type_text(&mut app, "args-prompt");
    app.update(key(KeyCode::Enter));
    app.update(ctrl('r'));
    type_text(&mut app, "sleep 5");
    let typing = screen(&app, 100, 24);
    assert!(typing.contains("Enter run"), "{typing}");
    let effects = app.update(key(KeyCode::Enter));
    assert!(matches!(
        effects.first(),
        Some(crate::app::Effect::RunCommand { .. })
    ));
    let running = screen(&app, 100, 24);
    let hints = running.lines().last().unwrap_or_default().to_string();
    assert!(hints.contains("Esc stop it"), "{hints}");
    assert!(!hints.contains("Enter run"), "{hints}");
}

/// One server whose prompts are ordinary but for one with a long name, a long title and
/// four arguments.
pub(crate) fn menu_with_a_long_prompt_name() -> App {
    use crate::app::tests::{arg, details, prompt};
    let mut app = App::new(
        vec!["lib".into()],
        Options::default(),
        KeyMap::default(),
        crate::app::History::default(),
    );
    let titled = |name: &str, title: &str, args| {
        let mut p = prompt("lib", name, args);
        p.title = Some(title.into());
        p
    };
    app.update(Msg::Mcp(McpEvent::Ready {
        server: "lib".into(),
        details: details(false),
        prompts: vec![
            titled(
                "a-rather-long-prompt-name-for-testing",
                "An example prompt with a long title to see how rows are cut",
                vec![
                    arg("first_argument", false),
                    arg("second_argument", true),
                    arg("third_argument", false),
                    arg("fourth_argument", false),
                ],
            ),
            titled(
                "explain-error",
                "Explain an error message",
                vec![arg("error", true)],
            ),
            titled(
                "commit-message",
                "Write a commit message",
                vec![arg("diff", true), arg("style", false)],
            ),
            titled(
                "translate",
                "Translate text",
                vec![arg("text", true), arg("to", true)],
            ),
        ],
    }));
    app
}

#[test]
pub(crate) fn menu_with_a_long_prompt_name_keeps_the_other_rows_readable_wide() {
    let app = menu_with_a_long_prompt_name();
    let shown = screen(&app, 120, 40);
    assert!(
        shown.contains("/a-rather-long-prompt-name-for-testing"),
        "the long command is whole:\n{shown}"
    );
    assert!(
        shown.contains("/explain-error   Explain an error message"),
        "the other rows keep their titles:\n{shown}"
    );
    assert!(!shown.contains("second_…"), "{shown}");
    insta::assert_snapshot!(shown);
}

#[test]
pub(crate) fn menu_with_a_long_prompt_name_keeps_the_other_rows_readable_narrow() {
    let app = menu_with_a_long_prompt_name();
    let shown = screen(&app, 80, 24);
    assert!(
        shown.contains("/a-rather-long-prompt-name-for-testing"),
        "the long command is whole:\n{shown}"
    );
    assert!(shown.contains("Write a commit message"), "{shown}");
    assert!(!shown.contains("second_…"), "{shown}");
    insta::assert_snapshot!(shown);
}

/// Whether any cell of `terminal`'s last frame holds a regional indicator (half a flag).
pub(crate) fn holds_a_regional_indicator(terminal: &Terminal<TestBackend>) -> bool {
    terminal
        .backend()
        .buffer()
        .content()
        .iter()
        .any(|c| c.symbol().chars().any(crate::text::is_regional_indicator))
}

/// tmux 3.3a draws a flag as two one-cell glyphs where ratatui assumed one two-cell cluster,
/// so replacing it left its second half on screen; flags are drawn as their letters.
#[test]
pub(crate) fn flags_are_drawn_as_letters_and_edits_around_them_leave_no_stray_cell() {
    let mut app = ready_app();
    let mut terminal = Terminal::new(TestBackend::new(80, 20)).unwrap();
    type_text(&mut app, "abc 🇯🇵y");
    terminal.draw(|frame| super::draw(&app, frame)).unwrap();
    assert!(!holds_a_regional_indicator(&terminal));
    app.update(ctrl('a'));
    app.update(Msg::Key(KeyEvent::new(
        KeyCode::Char('d'),
        KeyModifiers::ALT,
    )));
    terminal.draw(|frame| super::draw(&app, frame)).unwrap();
    let drawn = terminal.backend().to_string();
    assert!(!holds_a_regional_indicator(&terminal), "{drawn}");
    assert!(drawn.contains("❯  [JP]y  "), "{drawn}");

    let mut app = ready_app();
    type_text(&mut app, "args-prompt");
    app.update(key(KeyCode::Enter));
    type_text(&mut app, "a👩\u{200d}👩\u{200d}👧b é fl🇫🇷x");
    terminal.draw(|frame| super::draw(&app, frame)).unwrap();
    assert!(!holds_a_regional_indicator(&terminal));
    app.update(key(KeyCode::Home));
    app.update(key(KeyCode::Right));
    app.update(key(KeyCode::Right));
    app.update(key(KeyCode::Backspace));
    app.update(key(KeyCode::Backspace));
    terminal.draw(|frame| super::draw(&app, frame)).unwrap();
    let drawn = terminal.backend().to_string();
    assert!(!holds_a_regional_indicator(&terminal), "{drawn}");
    assert!(drawn.contains("│b é fl[FR]x "), "{drawn}");
}

/// A value taller than its box says how many lines are above (focused, at its end) and
/// below (unfocused, drawn from its start).
#[test]
pub(crate) fn a_value_taller_than_its_box_marks_the_hidden_lines() {
    let mut app = ready_app();
    type_text(&mut app, "args-prompt");
    app.update(key(KeyCode::Enter));
    let eight: Vec<String> = (1..=8).map(|n| format!("line {n}")).collect();
    app.update(Msg::Paste(eight.join("\n")));
    let focused = screen(&app, 80, 24);
    assert!(focused.contains("↑ 2 more lines"), "{focused}");
    assert!(!focused.contains("↓"), "{focused}");
    app.update(key(KeyCode::Tab));
    let unfocused = screen(&app, 80, 24);
    assert!(unfocused.contains("↓ 2 more lines"), "{unfocused}");
    insta::assert_snapshot!("a_value_taller_than_its_box_focused", focused);
    insta::assert_snapshot!("a_value_taller_than_its_box_unfocused", unfocused);
}

#[test]
pub(crate) fn a_long_argument_description_is_cut_at_a_word_and_the_required_mark_stays() {
    use crate::app::tests::{arg, details, prompt};
    let mut app = App::new(
        vec!["lib".into()],
        Options::default(),
        KeyMap::default(),
        crate::app::History::default(),
    );
    let mut long = arg("code", true);
    long.description = Some(
        "The code that produced it, if you have it, pasted whole (default: not available)".into(),
    );
    app.update(Msg::Mcp(McpEvent::Ready {
        server: "lib".into(),
        details: details(false),
        prompts: vec![prompt("lib", "explain", vec![long])],
    }));
    type_text(&mut app, "explain");
    app.update(key(KeyCode::Enter));
    // Submitting with the field empty marks it required.
    app.update(ctrl('s'));
    let drawn = screen(&app, 60, 16);
    let label = drawn
        .lines()
        .find(|l| l.contains("code *"))
        .unwrap_or_else(|| panic!("no label:\n{drawn}"));
    assert!(
        label.contains("The code that produced it, if you have…"),
        "{label}"
    );
    assert!(
        label.contains("…  required"),
        "the mark was cut off: {label}"
    );
}

#[test]
pub(crate) fn the_review_shows_roles_beyond_mcp_under_their_own_neutralised_names() {
    use crate::model::Role;
    let messages = crate::app::tests::messages(&[
        (Role::System, "You are terse."),
        (Role::User, "Hi."),
        (
            Role::Other("dev\u{1b}]0;pwned\u{7}eloper".into()),
            "Cite lines.",
        ),
    ]);
    let mut app = crate::app::review_tests::review_of(messages, 80, 24);
    let drawn = screen(&app, 80, 24);
    assert!(!drawn.contains('\u{1b}'), "{drawn}");
    insta::assert_snapshot!(drawn);
    // `r` makes the system message a user one.
    assert!(drawn.contains("#1 system"), "{drawn}");
    app.update(key(KeyCode::Char('r')));
    let toggled = screen(&app, 80, 24);
    assert!(toggled.contains("#1 user"), "{toggled}");
}

/// `py` (greet, farewell; ttlMs 0) and `everything` (fresh for 9 more minutes) from the
/// catalog, both still starting.
pub(crate) fn starting_from_the_catalog() -> App {
    use crate::app::cached_tests::{entry, starting_with_cached_py};
    use crate::app::tests::{arg, prompt};
    let mut app = starting_with_cached_py();
    app.show_cached(&entry(
        "everything",
        vec![
            prompt("everything", "simple-prompt", vec![]),
            prompt("everything", "echo", vec![arg("message", true)]),
        ],
        60_000,
        10 * 60_000,
    ));
    app
}

/// `everything` up with its fresh catalog list (not listed again), `py` failed with its
/// cached rows kept stale, a `py` row selected.
pub(crate) fn stale_rows() -> App {
    use crate::app::tests::{arg, details, prompt};
    let mut app = starting_from_the_catalog();
    app.update(Msg::Mcp(McpEvent::FromCatalog {
        server: "everything".into(),
        freshness: crate::cache::Freshness::Fresh {
            until_ms: app.wall_ms + 9 * 60_000,
        },
    }));
    app.update(Msg::Mcp(McpEvent::Ready {
        server: "everything".into(),
        details: details(true),
        prompts: vec![
            prompt("everything", "simple-prompt", vec![]),
            prompt("everything", "echo", vec![arg("message", true)]),
        ],
    }));
    app.update(Msg::Mcp(McpEvent::Failed {
        server: "py".into(),
        error: McpError::Closed(": the server exited with status 1".into()),
        stderr: vec![],
    }));
    app.update(key(KeyCode::Down));
    app.update(key(KeyCode::Down));
    app
}

/// args-prompt's form with the live preview on, `Paris` typed and its preview answered
/// 0.3 s ago.
pub(crate) fn form_with_a_live_preview() -> App {
    use crate::model::Role;
    let mut app = ready_app();
    app.options.live_preview.insert("everything".into());
    type_text(&mut app, "args-prompt");
    app.update(key(KeyCode::Enter));
    type_text(&mut app, "Paris");
    let mut id = None;
    for _ in 0..crate::app::live_preview::PREVIEW_DEBOUNCE_TICKS {
        for effect in app.update(Msg::Tick) {
            if let crate::app::Effect::Fetch { id: i, .. } = effect {
                id = Some(i);
            }
        }
    }
    app.now_ms = 1_000;
    app.update(Msg::Fetched {
        id: id.expect("the preview was asked"),
        result: Ok(GetOutcome::Messages(crate::app::tests::messages(&[
            (
                Role::User,
                "What is the weather in Paris?\nAnswer in one line, then a table of the next three days.",
            ),
            (Role::Assistant, "Let me look that up."),
        ]))),
    });
    app.now_ms = 1_300;
    app
}

/// A prompt author's Markdown: headings, nested lists, a table, a Rust and a Python
/// fence, a link.
const RICH_MARKDOWN: &str = "# Code review\n\nReview the change below. Be **brief** and *kind*; cite `file:line`.\n\n## Checklist\n\n1. Correctness\n   - edge cases\n   - error paths\n2. Style, see the [guide](https://example.com/style)\n\n| Area | Weight |\n|------|-------:|\n| tests | 2 |\n| docs | 1 |\n\n```rust\nfn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n```\n\n```python\ndef add(a, b):\n    return a + b\n```\n";

pub(crate) fn rich_review(columns: u16, rows: u16) -> App {
    use crate::model::Role;
    let messages = crate::app::tests::messages(&[
        (Role::User, RICH_MARKDOWN),
        (Role::Assistant, "Looks good."),
    ]);
    crate::app::review_tests::review_of(messages, columns, rows)
}

/// A review holding an image block (4 KiB of base64) in `format`, with the preview shown.
pub(crate) fn image_preview(format: crate::export::Format) -> String {
    use crate::model::{Content, Message, Role};
    let image: Content = serde_json::from_value(serde_json::json!({
        "type": "image", "mimeType": "image/png", "data": "QUJD".repeat(1024)
    }))
    .unwrap();
    let mut messages = crate::app::tests::messages(&[(Role::User, "What is in this picture?")]);
    messages.messages.push(Message {
        role: Role::User,
        content: image,
    });
    let mut app = crate::app::review_tests::review_of(messages, 120, 40);
    if let crate::app::Screen::Review(review) = &mut app.screen {
        review.format = format;
    }
    app.update(key(KeyCode::Char('p')));
    let drawn = screen(&app, 120, 40);
    assert!(drawn.contains("…(3072 bytes)…"), "{drawn}");
    assert!(!drawn.contains("QUJDQUJDQUJD"), "folded: {drawn}");
    drawn
}

/// The symbol of the one cell drawn with the text area's cursor (reversed).
pub(crate) fn cursor_cell(app: &App, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|frame| super::draw(app, frame)).unwrap();
    let cursors: Vec<String> = terminal
        .backend()
        .buffer()
        .content()
        .iter()
        .filter(|c| c.modifier.contains(ratatui::style::Modifier::REVERSED))
        .map(|c| c.symbol().to_string())
        .collect();
    assert_eq!(cursors.len(), 1, "{cursors:?}\n{}", terminal.backend());
    cursors[0].clone()
}

/// Each row of `area` in `buffer`, as (symbol, foreground, background) per cell.
pub(crate) fn cell_rows(
    buffer: &ratatui::buffer::Buffer,
    area: ratatui::layout::Rect,
) -> Vec<Vec<(String, ratatui::style::Color, ratatui::style::Color)>> {
    (area.y..area.bottom())
        .map(|y| {
            (area.x..area.right())
                .map(|x| {
                    let c = &buffer[(x, y)];
                    (c.symbol().to_string(), c.fg, c.bg)
                })
                .collect()
        })
        .collect()
}
