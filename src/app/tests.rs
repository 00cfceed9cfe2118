//! Key sequences driven through `update`, without a terminal or a server.

use super::logs::{LOG_LINES_PER_SERVER, NOTES_PER_SERVER};
use super::*;
use crate::export::{clipboard::Copied, sink::WriteError};
use crate::mcp::Answer;
use crate::mcp::{GetOutcome, McpError, McpEvent};
use crate::model::{Completion, Content, Message, PromptArg, PromptMessages, Role};
use crate::model::{LogLine, ServerDetails};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

pub(crate) fn details(completions: bool) -> ServerDetails {
    ServerDetails {
        transport: "stdio".into(),
        protocol_version: "2025-11-25".into(),
        server_name: Some("test".into()),
        server_version: Some("1.0".into()),
        capabilities: serde_json::json!({"prompts": {}}),
        prompts: true,
        prompts_list_changed: false,
        completions,
        resources: false,
        skills: false,
        served_problems: Vec::new(),
    }
}

pub(crate) fn arg(name: &str, required: bool) -> PromptArg {
    PromptArg {
        name: name.into(),
        title: None,
        description: Some(format!("the {name}")),
        required,
    }
}

pub(crate) fn prompt(server: &str, name: &str, args: Vec<PromptArg>) -> PromptInfo {
    PromptInfo {
        server: server.into(),
        name: name.into(),
        title: None,
        description: Some(format!("{name} does things")),
        arguments: args,
        skill: None,
        mirrors_skill: None,
    }
}

/// An app with `everything` (args-prompt, simple-prompt) and `py` (greet) ready.
pub(crate) fn ready_app() -> App {
    let mut app = App::new(
        vec!["everything".into(), "py".into()],
        Options::default(),
        KeyMap::default(),
        History::default(),
    );
    app.update(Msg::Mcp(McpEvent::Ready {
        server: "everything".into(),
        details: details(true),
        prompts: vec![
            prompt("everything", "simple-prompt", vec![]),
            prompt(
                "everything",
                "args-prompt",
                vec![arg("city", true), arg("state", false)],
            ),
        ],
    }));
    app.update(Msg::Mcp(McpEvent::Ready {
        server: "py".into(),
        details: details(false),
        prompts: vec![prompt("py", "greet", vec![arg("name", true)])],
    }));
    app
}

pub(crate) fn key(code: KeyCode) -> Msg {
    Msg::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

pub(crate) fn ctrl(c: char) -> Msg {
    Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL))
}

pub(crate) fn type_text(app: &mut App, text: &str) -> Vec<Effect> {
    let mut effects = Vec::new();
    for c in text.chars() {
        effects.extend(app.update(key(KeyCode::Char(c))));
    }
    effects
}

/// The form on screen (a test fails if another screen is).
pub(crate) fn form(app: &App) -> &FormState {
    match &app.screen {
        Screen::Form(form) => form,
        other => panic!("expected the form, got {other:?}"),
    }
}

pub(crate) fn review(app: &App) -> &ReviewState {
    match &app.screen {
        Screen::Review(review) => review,
        other => panic!("expected the review, got {other:?}"),
    }
}

pub(crate) fn fetch_id(effects: &[Effect]) -> u64 {
    effects
        .iter()
        .find_map(|e| match e {
            Effect::Fetch { id, .. } => Some(*id),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no fetch in {effects:?}"))
}

pub(crate) fn messages(texts: &[(Role, &str)]) -> PromptMessages {
    PromptMessages {
        description: None,
        messages: texts
            .iter()
            .map(|(role, text)| Message {
                role: role.clone(),
                content: Content::text(*text),
            })
            .collect(),
    }
}

/// Opens args-prompt, fills it, submits, and answers with one message.
pub(crate) fn app_in_review() -> App {
    let mut app = ready_app();
    type_text(&mut app, "args-prompt");
    app.update(key(KeyCode::Enter));
    type_text(&mut app, "New York");
    app.update(key(KeyCode::Enter));
    let effects = app.update(key(KeyCode::Enter));
    let id = fetch_id(&effects);
    app.update(Msg::Fetched {
        id,
        result: Ok(GetOutcome::Messages(messages(&[
            (Role::User, "Weather in New York?"),
            (Role::Assistant, "Sunny."),
        ]))),
    });
    app
}

#[test]
pub(crate) fn the_menu_merges_servers_in_order_and_filters_as_you_type() {
    let mut app = ready_app();
    let names: Vec<_> = app
        .menu
        .ranked
        .iter()
        .map(|r| app.menu.entries[r.index()].slash_name.clone())
        .collect();
    assert_eq!(
        names,
        [
            "everything:simple-prompt",
            "everything:args-prompt",
            "py:greet"
        ]
    );
    type_text(&mut app, "/py:");
    assert_eq!(app.menu.ranked.len(), 1);
    assert_eq!(app.selected_entry().unwrap().slash_name, "py:greet");
    app.update(ctrl('u'));
    assert_eq!(app.menu.ranked.len(), 3);
}

#[test]
pub(crate) fn selection_survives_a_list_change_and_a_crash() {
    let mut app = ready_app();
    app.update(Msg::Key(KeyEvent::new(KeyCode::End, KeyModifiers::CONTROL)));
    assert_eq!(app.selected_entry().unwrap().slash_name, "py:greet");
    app.update(Msg::Mcp(McpEvent::PromptsChanged {
        server: "everything".into(),
        prompts: vec![prompt("everything", "new-one", vec![])],
    }));
    assert_eq!(app.selected_entry().unwrap().slash_name, "py:greet");
    app.update(Msg::Mcp(McpEvent::Failed {
        server: "py".into(),
        error: McpError::Closed(" (exit status 1)".into()),
        stderr: vec!["Traceback: boom".into()],
    }));
    // Its rows stay, stale (see `cached_tests`), and the selection on them.
    assert_eq!(app.menu.entries.len(), 2);
    assert_eq!(app.selected_entry().unwrap().slash_name, "py:greet");
    assert!(matches!(app.servers[1].state, ServerState::Failed { .. }));
    // The stderr tail in the event repeats lines that came as `Log` events: not added
    // twice. The logs tell the crash as an event (it was up).
    let py: Vec<&LogLine> = app.logs["py"].iter().collect();
    assert!(py.iter().all(|l| l.source != "stderr"), "{py:?}");
    assert_eq!(
        py.last().unwrap().text,
        "crashed: the server closed the connection (exit status 1)",
        "{py:?}"
    );
}

#[test]
pub(crate) fn a_restart_by_hand_says_how_it_ended_and_its_note_carries_the_time_it_happened() {
    let mut app = ready_app();
    let failed = |app: &mut App| {
        app.update(Msg::Mcp(McpEvent::Failed {
            server: "py".into(),
            error: McpError::Closed(": the server exited with status 3".into()),
            stderr: vec![],
        }))
    };
    failed(&mut app);
    assert!(
        app.latest_notice().is_none(),
        "a failure at start is the bar's ✗ only"
    );
    // Nothing ticks while nothing moves: the time is the runner's clock, not ticks.
    app.now_ms = 19_500;
    app.update(key(KeyCode::F(5)));
    let note = app.logs["py"].iter().last().unwrap().clone();
    assert_eq!(
        (note.text.as_str(), note.at_ms),
        ("restarting (by hand)", 19_500)
    );
    assert_eq!(app.notices.back().unwrap().at_ms, 19_500);
    app.now_ms = 20_100;
    failed(&mut app);
    let said = app.latest_notice().unwrap();
    assert!(said.error);
    // Short: why is in the logs pane, which it names.
    assert_eq!(said.text, "py failed again (Ctrl-L shows why).");
    // Once more, and this time it comes back.
    app.update(key(KeyCode::F(5)));
    app.update(Msg::Mcp(McpEvent::Ready {
        server: "py".into(),
        details: details(false),
        prompts: vec![],
    }));
    assert_eq!(app.latest_notice().unwrap().text, "py is back: 0 prompts.");
    // A later failure of its own (a crash) is the bar's and the logs', as at start.
    let before = app.notices.len();
    failed(&mut app);
    assert_eq!(app.notices.len(), before);
}

#[test]
pub(crate) fn a_crashed_server_shows_its_planned_restart_and_f5_restarts_failed_servers() {
    let mut app = ready_app();
    assert!(
        app.update(key(KeyCode::F(5))).is_empty(),
        "nothing failed yet"
    );
    app.update(Msg::Mcp(McpEvent::Failed {
        server: "py".into(),
        error: McpError::Closed(": the server exited with status 1".into()),
        stderr: vec![],
    }));
    app.update(Msg::Mcp(McpEvent::Restarting {
        server: "py".into(),
        attempt: 2,
        of: 5,
        delay: std::time::Duration::from_secs(2),
    }));
    let ServerState::Failed { restart, .. } = &app.servers[1].state else {
        panic!("{:?}", app.servers[1].state)
    };
    assert_eq!(
        *restart,
        Some(PlannedRestart {
            attempt: 2,
            of: 5,
            delay: std::time::Duration::from_secs(2)
        })
    );
    let effects = app.update(key(KeyCode::F(5)));
    assert_eq!(
        effects,
        vec![Effect::Restart {
            server: "py".into()
        }]
    );
    assert_eq!(app.servers[1].state, ServerState::Connecting);
    assert_eq!(
        app.servers[0].name, "everything",
        "the ready one is left alone"
    );
    assert!(matches!(app.servers[0].state, ServerState::Ready { .. }));
}

#[test]
pub(crate) fn a_log_snapshot_after_a_flood_replaces_the_lines_seen() {
    let mut app = ready_app();
    let line = |text: &str| crate::model::LogLine {
        source: "stderr".into(),
        text: text.into(),
        at_ms: 0,
    };
    app.update(Msg::Mcp(McpEvent::Log {
        server: "py".into(),
        line: line("flood 1"),
    }));
    app.update(Msg::Mcp(McpEvent::LogSnapshot {
        server: "py".into(),
        lines: vec![line("flood 99998"), line("flood 99999"), line("flood over")],
    }));
    // mcpick's own events about the server stay, in time order.
    let texts: Vec<&str> = app.logs["py"].iter().map(|l| l.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "ready: 1 prompt",
            "flood 99998",
            "flood 99999",
            "flood over"
        ]
    );
}

#[test]
pub(crate) fn a_stderr_flood_leaves_every_recent_note_in_the_pane() {
    let mut app = ready_app();
    // Without the events of the start (`ready: …`), which have a ring of their own.
    app.logs.clear();
    let line = |source: &str, text: String, at_ms: u64| LogLine {
        source: source.into(),
        text,
        at_ms,
    };
    app.update(Msg::Mcp(McpEvent::Log {
        server: "py".into(),
        line: line("mcpick", "restarting in 1 s".into(), 5),
    }));
    for i in 0..10_000 {
        app.update(Msg::Mcp(McpEvent::Log {
            server: "py".into(),
            line: line("stderr", format!("flood {i}"), 10 + i),
        }));
    }
    let lines: Vec<&LogLine> = app.logs["py"].iter().collect();
    assert_eq!(lines.len(), LOG_LINES_PER_SERVER + 1);
    assert_eq!(lines[0].text, "restarting in 1 s");
    assert_eq!(lines[1].text, "flood 9000");
    // The notes' own ring is bounded too.
    for i in 0..NOTES_PER_SERVER as u64 + 3 {
        app.update(Msg::Mcp(McpEvent::Log {
            server: "py".into(),
            line: line("mcpick", format!("note {i}"), 20_000 + i),
        }));
    }
    let notes: Vec<&LogLine> = app.logs["py"]
        .iter()
        .filter(|l| l.source == "mcpick")
        .collect();
    assert_eq!(notes.len(), NOTES_PER_SERVER);
    assert_eq!(notes[0].text, "note 3");
    assert_eq!(
        app.logs["py"].len(),
        LOG_LINES_PER_SERVER + NOTES_PER_SERVER
    );
}

#[test]
pub(crate) fn a_log_filter_holds_text_or_source_in_any_case() {
    assert!(log_matches("", "stderr", "anything"));
    assert!(log_matches("TRACE", "stderr", "Traceback: boom"));
    assert!(log_matches("warn", "WARNING", "disk"));
    assert!(!log_matches("boom", "stderr", "ok"));
}

#[test]
pub(crate) fn slash_in_the_logs_edits_a_filter_enter_keeps_it_esc_clears_it() {
    let mut app = ready_app();
    app.update(ctrl('l'));
    let view = |app: &App| match &app.overlay {
        Some(Overlay::Logs(view)) => view.clone(),
        other => panic!("no logs pane: {other:?}"),
    };
    app.update(key(KeyCode::Char('/')));
    assert!(view(&app).editing_filter);
    // Bound keys of the pane (`q`, `j`, `G`) are typed into the filter.
    type_text(&mut app, "jqG");
    assert_eq!(view(&app).filter.text(), "jqG");
    // The shared editing keys: Ctrl-W kills the word.
    app.update(ctrl('w'));
    assert_eq!(view(&app).filter.text(), "");
    type_text(&mut app, "boom");
    app.update(key(KeyCode::Enter));
    assert!(!view(&app).editing_filter);
    assert_eq!(view(&app).filter.text(), "boom");
    // `/` again edits the kept filter; Esc clears it and the pane stays.
    app.update(key(KeyCode::Char('/')));
    type_text(&mut app, "x");
    app.update(key(KeyCode::Esc));
    assert!(!view(&app).editing_filter);
    assert_eq!(view(&app).filter.text(), "");
    // A kept filter: the first Esc drops it, the next closes the pane.
    app.update(key(KeyCode::Char('/')));
    type_text(&mut app, "y");
    app.update(key(KeyCode::Enter));
    app.update(key(KeyCode::Esc));
    assert_eq!(view(&app).filter.text(), "");
    app.update(key(KeyCode::Esc));
    assert_eq!(app.overlay, None);
}

#[test]
pub(crate) fn enter_moves_through_fields_and_submits_on_the_last() {
    let mut app = ready_app();
    type_text(&mut app, "args-prompt");
    app.update(key(KeyCode::Enter));
    assert_eq!(form(&app).fields.len(), 2);
    type_text(&mut app, "Paris");
    app.update(key(KeyCode::Enter));
    assert_eq!(form(&app).focus, 1);
    type_text(&mut app, "Texas");
    let effects = app.update(key(KeyCode::Enter));
    match &effects[..] {
        [
            Effect::Fetch {
                server,
                prompt,
                arguments,
                answers: None,
                ..
            },
        ] => {
            assert_eq!(
                (server.as_str(), prompt.as_str()),
                ("everything", "args-prompt")
            );
            assert_eq!(arguments["city"], "Paris");
            assert_eq!(arguments["state"], "Texas");
        }
        other => panic!("expected one fetch, got {other:?}"),
    }
    assert!(form(&app).fetching.is_some());
}

#[test]
pub(crate) fn a_required_field_left_empty_blocks_the_submit() {
    let mut app = ready_app();
    type_text(&mut app, "args-prompt");
    app.update(key(KeyCode::Enter));
    app.update(key(KeyCode::Tab));
    type_text(&mut app, "Texas");
    let effects = app.update(ctrl('s'));
    assert!(effects.iter().all(|e| !matches!(e, Effect::Fetch { .. })));
    let form = form(&app);
    assert!(form.fields[0].missing);
    assert_eq!(form.focus, 0);
    assert!(form.error.as_deref().unwrap().contains("city"));
}

#[test]
pub(crate) fn optional_empty_fields_are_not_sent_and_newlines_are_kept() {
    let mut app = ready_app();
    type_text(&mut app, "args-prompt");
    app.update(key(KeyCode::Enter));
    type_text(&mut app, "two");
    app.update(Msg::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::ALT)));
    type_text(&mut app, "lines");
    let effects = app.update(ctrl('s'));
    match &effects[..] {
        [Effect::Fetch { arguments, .. }] => {
            assert_eq!(arguments.len(), 1);
            assert_eq!(arguments["city"], "two\nlines");
        }
        other => panic!("expected one fetch, got {other:?}"),
    }
}

#[test]
pub(crate) fn completion_is_debounced_carries_context_and_drops_stale_answers() {
    let mut app = ready_app();
    type_text(&mut app, "args-prompt");
    app.update(key(KeyCode::Enter));
    app.update(key(KeyCode::Tab));
    type_text(&mut app, "Tex");
    // Nothing is asked while typing; a quiet moment later, one request goes out.
    let mut requests = Vec::new();
    for _ in 0..4 {
        requests.extend(app.update(Msg::Tick));
    }
    let focus_request = requests
        .iter()
        .filter(|e| matches!(e, Effect::Complete { .. }))
        .count();
    assert!(focus_request >= 1, "{requests:?}");
    let (id, context) = requests
        .iter()
        .rev()
        .find_map(|e| match e {
            Effect::Complete {
                id,
                argument,
                value,
                context,
                ..
            } if argument == "state" && value == "Tex" => Some((*id, context.clone())),
            _ => None,
        })
        .expect("a completion for what was typed");
    assert!(
        context.is_empty(),
        "city is empty, so no context: {context:?}"
    );
    app.update(Msg::Completed {
        id: id - 1,
        result: Ok(Completion {
            values: vec!["Stale".into()],
            total: None,
            has_more: None,
        }),
    });
    assert!(!form(&app).suggestions.values.contains(&"Stale".to_string()));
    app.update(Msg::Completed {
        id,
        result: Ok(Completion {
            values: vec!["Texas".into(), "Texarkana".into()],
            total: Some(7),
            has_more: Some(true),
        }),
    });
    let s = &form(&app).suggestions;
    assert_eq!(s.values, ["Texas", "Texarkana"]);
    assert!(s.has_more);
    assert_eq!(
        s.highlighted, None,
        "typing shows them, choosing is Ctrl-N's"
    );
    app.update(ctrl('n'));
    app.update(ctrl('n'));
    app.update(key(KeyCode::Tab));
    assert_eq!(form(&app).fields[1].value(), "Texarkana");
    assert_eq!(
        form(&app).focus,
        0,
        "Tab took the suggestion and moved on (wrapping from the last field)"
    );
    app.update(key(KeyCode::Tab));
    assert_eq!(form(&app).focus, 1, "with nothing to take, Tab moves too");
}

#[test]
pub(crate) fn servers_without_completions_are_not_asked() {
    let mut app = ready_app();
    type_text(&mut app, "/py:greet");
    app.update(key(KeyCode::Enter));
    type_text(&mut app, "Ann");
    let mut effects = Vec::new();
    for _ in 0..4 {
        effects.extend(app.update(Msg::Tick));
    }
    assert!(effects.is_empty(), "{effects:?}");
}

#[test]
pub(crate) fn a_prompt_without_arguments_is_fetched_at_once_and_esc_cancels() {
    let mut app = ready_app();
    type_text(&mut app, "simple-prompt");
    let effects = app.update(key(KeyCode::Enter));
    let id = fetch_id(&effects);
    let effects = app.update(key(KeyCode::Esc));
    assert_eq!(effects, vec![Effect::CancelFetch { id }]);
    // The cancelled request's late answer changes nothing.
    app.update(Msg::Fetched {
        id,
        result: Ok(GetOutcome::Messages(messages(&[(Role::User, "late")]))),
    });
    assert!(matches!(app.screen, Screen::Form(_)));
}

#[test]
pub(crate) fn a_server_error_is_shown_in_the_form_and_the_values_stay() {
    let mut app = ready_app();
    type_text(&mut app, "args-prompt");
    app.update(key(KeyCode::Enter));
    type_text(&mut app, "Paris");
    let id = fetch_id(&app.update(ctrl('s')));
    app.update(Msg::Fetched {
        id,
        result: Err(McpError::Server {
            code: -32602,
            message: "unknown city".into(),
            data: None,
        }),
    });
    let form = form(&app);
    assert!(form.error.as_deref().unwrap().contains("-32602"));
    assert!(form.error.as_deref().unwrap().contains("unknown city"));
    assert_eq!(form.fields[0].value(), "Paris");
    assert!(form.fetching.is_none());
}

#[test]
pub(crate) fn values_are_remembered_and_prefill_the_next_form() {
    let mut app = app_in_review();
    assert_eq!(
        app.history.values("everything:args-prompt", "city"),
        ["New York"]
    );
    assert_eq!(app.history.recent, ["everything:args-prompt"]);
    app.update(key(KeyCode::Esc));
    app.update(key(KeyCode::Esc));
    assert!(matches!(app.screen, Screen::Picker));
    // Recent first on an empty query.
    assert_eq!(
        app.selected_entry().unwrap().slash_name,
        "everything:args-prompt"
    );
    app.update(key(KeyCode::Enter));
    assert_eq!(form(&app).fields[0].value(), "New York");
}

#[test]
pub(crate) fn review_edits_are_marked_exported_and_restored() {
    let mut app = app_in_review();
    app.update(key(KeyCode::Char('e')));
    assert_eq!(app.key_screen(), KeyScreen::Editor);
    type_text(&mut app, " Hot?");
    app.update(key(KeyCode::Esc));
    let r = review(&app);
    assert!(r.is_edited(0));
    assert!(r.export().contains("Weather in New York? Hot?"));
    app.update(key(KeyCode::Char('u')));
    assert!(!review(&app).is_edited(0));
    // Role, order, delete, add, and U for all.
    app.update(key(KeyCode::Char('r')));
    assert_eq!(review(&app).items[0].message().role, Role::Assistant);
    app.update(Msg::Key(KeyEvent::new(KeyCode::Down, KeyModifiers::ALT)));
    assert_eq!(review(&app).selected, 1);
    app.update(key(KeyCode::Char('d')));
    assert_eq!(review(&app).items.len(), 1);
    app.update(key(KeyCode::Char('a')));
    type_text(&mut app, "added");
    app.update(key(KeyCode::Esc));
    assert_eq!(review(&app).items.len(), 2);
    assert!(review(&app).is_edited(1));
    app.update(key(KeyCode::Char('U')));
    let r = review(&app);
    assert!(!r.has_changes());
    assert_eq!(r.current(), r.original);
}

#[test]
pub(crate) fn accepting_follows_output_print_or_clipboard() {
    let mut app = app_in_review();
    let effects = app.update(key(KeyCode::Enter));
    assert!(
        matches!(&effects[..], [Effect::Copy { text, leave: true }] if text.contains("Weather in New York?"))
    );
    // A failed copy keeps the review (nothing is lost); a good one goes back to the menu.
    app.update(Msg::Copied {
        result: Err("no clipboard".into()),
        leave: true,
    });
    assert!(matches!(app.screen, Screen::Review(_)));
    app.update(key(KeyCode::Enter));
    app.update(Msg::Copied {
        result: Ok(Copied::Desktop {
            via: "xclip".into(),
        }),
        leave: true,
    });
    assert!(matches!(app.screen, Screen::Picker));

    let mut app = app_in_review();
    app.options.print = true;
    app.update(key(KeyCode::Enter));
    assert!(matches!(&app.exit, Some(Exit::Print(text)) if text.contains("## assistant")));

    let mut app = app_in_review();
    app.options.output = Some("out.md".into());
    let effects = app.update(key(KeyCode::Enter));
    let [
        Effect::Save {
            path,
            purpose,
            overwrite: false,
            ..
        },
    ] = &effects[..]
    else {
        panic!("expected a save, got {effects:?}");
    };
    assert_eq!(path, &std::path::PathBuf::from("out.md"));
    // It exists: asked, then replaced on y, then mcpick exits.
    app.update(Msg::Saved {
        purpose: *purpose,
        path: path.clone(),
        result: Err(WriteError::Exists(path.clone())),
    });
    assert!(review(&app).confirm.is_some());
    let effects = app.update(key(KeyCode::Char('y')));
    assert!(matches!(
        &effects[..],
        [Effect::Save {
            overwrite: true,
            ..
        }]
    ));
    app.update(Msg::Saved {
        purpose: *purpose,
        path: path.clone(),
        result: Ok(()),
    });
    assert_eq!(app.exit, Some(Exit::Accepted));
}

#[test]
pub(crate) fn esc_with_edits_asks_before_discarding() {
    let mut app = app_in_review();
    app.update(key(KeyCode::Char('d')));
    app.update(key(KeyCode::Esc));
    assert!(matches!(app.screen, Screen::Review(_)));
    assert!(app.flash.as_ref().unwrap().text.contains("Esc again"));
    app.update(key(KeyCode::Esc));
    assert!(matches!(app.screen, Screen::Form(_)));
}

#[test]
pub(crate) fn f_cycles_formats_and_s_asks_for_a_path() {
    let mut app = app_in_review();
    app.update(key(KeyCode::Char('f')));
    assert_eq!(review(&app).format, crate::export::Format::Text);
    app.update(key(KeyCode::Char('s')));
    assert_eq!(
        review(&app).input.as_ref().unwrap().editor.lines()[0],
        "args-prompt.txt"
    );
    let effects = app.update(key(KeyCode::Enter));
    assert!(
        matches!(&effects[..], [Effect::Save { path, overwrite: false, purpose: SavePurpose::Export { then_exit: false }, .. }] if path.to_str() == Some("args-prompt.txt"))
    );
}

#[test]
pub(crate) fn questions_are_answered_declined_or_cancelled() {
    use crate::mcp::{FieldKind, FormField, InputRequest, Question, QuestionKind};
    let mut app = ready_app();
    type_text(&mut app, "/py:greet");
    app.update(key(KeyCode::Enter));
    type_text(&mut app, "Ann");
    let id = fetch_id(&app.update(ctrl('s')));
    let field = |name: &str, kind: FieldKind, required: bool| FormField {
        name: name.into(),
        title: None,
        description: None,
        required,
        kind,
        default: None,
    };
    app.update(Msg::Fetched {
        id,
        result: Ok(GetOutcome::InputRequired(InputRequest {
            questions: vec![
                Question {
                    key: "who".into(),
                    kind: QuestionKind::Form {
                        message: "Who are you?".into(),
                        fields: vec![
                            field(
                                "login",
                                FieldKind::Text {
                                    format: None,
                                    min_length: None,
                                    max_length: None,
                                },
                                true,
                            ),
                            field(
                                "age",
                                FieldKind::Number {
                                    integer: true,
                                    minimum: Some(0.0),
                                    maximum: None,
                                },
                                false,
                            ),
                            field("admin", FieldKind::Boolean, false),
                        ],
                    },
                },
                Question {
                    key: "llm".into(),
                    kind: QuestionKind::Unsupported {
                        method: "sampling/createMessage".into(),
                        summary: "asks a model".into(),
                    },
                },
            ],
            request_state: Some("opaque".into()),
        })),
    });
    assert_eq!(app.key_screen(), KeyScreen::Questions);
    // Required login missing: blocked.
    assert!(app.update(ctrl('s')).is_empty());
    type_text(&mut app, "octocat");
    app.update(key(KeyCode::Tab));
    type_text(&mut app, "4.5");
    assert!(app.update(ctrl('s')).is_empty(), "4.5 is not an integer");
    app.update(key(KeyCode::Backspace));
    app.update(key(KeyCode::Backspace));
    app.update(key(KeyCode::Tab));
    app.update(key(KeyCode::Char(' ')));
    let effects = app.update(ctrl('s'));
    let [
        Effect::Fetch {
            answers: Some(answers),
            arguments,
            ..
        },
    ] = &effects[..]
    else {
        panic!("expected a retry, got {effects:?}");
    };
    assert_eq!(arguments["name"], "Ann");
    assert_eq!(answers.request_state.as_deref(), Some("opaque"));
    let Answer::Accept(content) = &answers.answers[0].1 else {
        panic!()
    };
    assert_eq!(content["login"], "octocat");
    assert_eq!(content["age"], 4);
    assert_eq!(content["admin"], true);
    assert_eq!(answers.answers[1], ("llm".to_string(), Answer::Decline));
}

#[test]
pub(crate) fn a_questions_complaint_goes_from_the_bar_once_the_form_is_answered() {
    use crate::mcp::{FieldKind, FormField, InputRequest, Question, QuestionKind};
    let mut app = ready_app();
    type_text(&mut app, "/py:greet");
    app.update(key(KeyCode::Enter));
    type_text(&mut app, "Ann");
    let id = fetch_id(&app.update(ctrl('s')));
    app.update(Msg::Fetched {
        id,
        result: Ok(GetOutcome::InputRequired(InputRequest {
            questions: vec![Question {
                key: "elicitation".into(),
                kind: QuestionKind::Form {
                    message: "Deploy to production?".into(),
                    fields: vec![FormField {
                        name: "confirmed".into(),
                        title: Some("Deploy now?".into()),
                        description: None,
                        required: true,
                        kind: FieldKind::Boolean,
                        default: None,
                    }],
                },
            }],
            request_state: Some("s".into()),
        })),
    });
    assert!(
        app.update(ctrl('s')).is_empty(),
        "the required field blocks"
    );
    assert_eq!(shown(&app), Some("Deploy now?: required"));
    app.update(key(KeyCode::Char('y')));
    let id = fetch_id(&app.update(ctrl('s')));
    app.update(Msg::Fetched {
        id,
        result: Ok(GetOutcome::Messages(messages(&[(Role::User, "deployed")]))),
    });
    assert!(matches!(app.screen, Screen::Review(_)));
    assert_ne!(shown(&app), Some("Deploy now?: required"));
    assert!(
        app.queued_notices
            .iter()
            .all(|n| n.text != "Deploy now?: required"),
        "nor waiting its turn"
    );
    // It stays in the logs pane, as every notice does.
    assert!(
        app.notices
            .iter()
            .any(|n| n.text == "Deploy now?: required")
    );
}

#[test]
pub(crate) fn logs_collect_lines_per_server_and_filter() {
    let mut app = ready_app();
    app.update(Msg::Mcp(McpEvent::Log {
        server: "py".into(),
        line: LogLine {
            source: "stderr".into(),
            text: "hello".into(),
            at_ms: 0,
        },
    }));
    app.update(ctrl('l'));
    assert_eq!(app.key_screen(), KeyScreen::Logs);
    app.update(key(KeyCode::Tab));
    assert_eq!(
        app.overlay,
        Some(Overlay::Logs(LogsView {
            server: Some("everything".into()),
            notices: false,
            scroll_from_bottom: 0,
            ..LogsView::default()
        }))
    );
    app.update(key(KeyCode::Esc));
    assert_eq!(app.overlay, None);
}

pub(crate) fn shown(app: &App) -> Option<&str> {
    app.flash.as_ref().map(|f| f.text.as_str())
}

pub(crate) fn tick_until(app: &mut App, shows: &str) -> usize {
    for ticks in 0..2000 {
        if shown(app) == Some(shows) {
            return ticks;
        }
        app.update(Msg::Tick);
    }
    panic!("{shows:?} never came; the bar shows {:?}", shown(app));
}

pub(crate) fn tick_until_clear(app: &mut App) -> usize {
    for ticks in 0..2000 {
        if app.flash.is_none() {
            return ticks;
        }
        app.update(Msg::Tick);
    }
    panic!("the notice never went");
}

#[test]
pub(crate) fn question_mark_opens_help_only_on_an_empty_search() {
    let mut app = ready_app();
    app.update(key(KeyCode::Char('?')));
    assert_eq!(app.overlay, Some(Overlay::Help { scroll: 0 }));
    app.update(key(KeyCode::Char('x')));
    assert_eq!(app.overlay, None);
    type_text(&mut app, "a?");
    assert_eq!(app.menu.query.text(), "a?");
}

#[test]
pub(crate) fn quitting_over_edits_asks_first() {
    let mut app = app_in_review();
    app.update(key(KeyCode::Char('d')));
    app.update(key(KeyCode::Char('q')));
    assert_eq!(app.exit, None);
    app.update(key(KeyCode::Char('q')));
    assert_eq!(app.exit, Some(Exit::Quit));
    // Without edits, one press is enough.
    let mut app = ready_app();
    app.update(ctrl('c'));
    assert_eq!(app.exit, Some(Exit::Quit));
}

#[test]
pub(crate) fn the_wheel_scrolls_a_long_message_then_moves_on() {
    let mut app = app_in_review();
    // 30 lines on a screen with room for 21 rows of messages (80×24): 10 more to scroll.
    let long: String = (1..=30).map(|n| format!("line {n}\n")).collect();
    if let Screen::Review(review) = &mut app.screen {
        review.items[0].set_content(Content::text(long));
    }
    app.update(Msg::WheelDown);
    assert_eq!((review(&app).selected, review(&app).scroll), (0, 3));
    let max = review(&app).messages_view().max_scroll;
    assert!(max > 3, "the message should be longer than the screen");
    for _ in 1..max.div_ceil(3) {
        app.update(Msg::WheelDown);
    }
    assert_eq!(review(&app).scroll, max, "scrolled to the last full page");
    app.update(Msg::WheelDown);
    assert_eq!((review(&app).selected, review(&app).scroll), (1, 0));
    app.update(Msg::WheelUp);
    assert_eq!(review(&app).selected, 0);
}

#[test]
pub(crate) fn ctrl_g_hands_the_edited_text_to_the_external_editor_and_takes_it_back() {
    let mut app = app_in_review();
    app.update(key(KeyCode::Char('e')));
    type_text(&mut app, " Hot?");
    // Ctrl-E is "end of line" in every input.
    let effects = app.update(ctrl('g'));
    let [Effect::ExternalEditor { text }] = effects.as_slice() else {
        panic!("expected the external editor, got {effects:?}");
    };
    assert!(text.ends_with("Weather in New York? Hot?"), "{text}");
    app.update(Msg::Edited(Ok("Rewritten outside".into())));
    assert_eq!(app.key_screen(), KeyScreen::Editor);
    app.update(key(KeyCode::Esc));
    assert!(review(&app).export().contains("Rewritten outside"));
    assert!(review(&app).is_edited(0));
}

#[test]
pub(crate) fn a_text_too_long_to_edit_in_place_opens_in_the_external_editor() {
    let mut app = app_in_review();
    let long = "word ".repeat(crate::app::review::EDIT_INLINE_UP_TO_BYTES / 5 + 1);
    if let Screen::Review(review) = &mut app.screen {
        review.items[0].set_content(Content::text(long.clone()));
    }
    let effects = app.update(key(KeyCode::Char('e')));
    assert!(
        matches!(effects.as_slice(), [Effect::ExternalEditor { text }] if *text == long),
        "{effects:?}"
    );
    assert_ne!(app.key_screen(), KeyScreen::Editor);
    app.update(Msg::Edited(Ok("short now".into())));
    assert!(review(&app).export().contains("short now"));
    assert!(review(&app).is_edited(0));
}

#[test]
pub(crate) fn a_remembered_value_is_replaced_by_typing_and_an_empty_one_stays_empty() {
    let mut app = ready_app();
    app.history.record(
        "everything:args-prompt",
        &BTreeMap::from([
            ("city".to_string(), "Paris".to_string()),
            ("state".to_string(), String::new()),
        ]),
    );
    app.history.record(
        "everything:args-prompt",
        &BTreeMap::from([("city".to_string(), "Rome".to_string())]),
    );
    type_text(&mut app, "args-prompt");
    app.update(key(KeyCode::Enter));
    let form = form(&app);
    assert_eq!(form.fields[0].value(), "Rome");
    assert!(form.fields[0].prefilled);
    // `state` was not given last time: it stays empty, though Paris's run had a value slot.
    assert_eq!(form.fields[1].value(), "");
    type_text(&mut app, "Oslo");
    assert_eq!(super::tests::form_value(&app, 0), "Oslo");
    // Moving the cursor keeps a remembered value and then edits it.
    app.update(key(KeyCode::Esc));
    app.update(key(KeyCode::Esc));
    let mut app2 = ready_app();
    app2.history = app.history.clone();
    type_text(&mut app2, "args-prompt");
    app2.update(key(KeyCode::Enter));
    app2.update(key(KeyCode::Left));
    type_text(&mut app2, "!");
    assert_eq!(form_value(&app2, 0), "Rom!e");
}

pub(crate) fn form_value(app: &App, field: usize) -> String {
    form(app).fields[field].value()
}

#[test]
pub(crate) fn suggestions_wait_until_typing_so_tab_on_an_untouched_field_moves_on() {
    let mut app = ready_app();
    type_text(&mut app, "args-prompt");
    app.update(key(KeyCode::Enter));
    let mut id = None;
    for _ in 0..3 {
        for effect in app.update(Msg::Tick) {
            if let Effect::Complete { id: i, .. } = effect {
                id = Some(i);
            }
        }
    }
    app.update(Msg::Completed {
        id: id.expect("completion asked on focus"),
        result: Ok(Completion {
            values: vec!["Paris".into()],
            total: None,
            has_more: None,
        }),
    });
    assert!(!form(&app).suggestions.visible());
    app.update(key(KeyCode::Tab));
    assert_eq!((form(&app).focus, form_value(&app, 0)), (1, String::new()));
    // Ctrl-N shows them on demand.
    app.update(key(KeyCode::BackTab));
    for _ in 0..3 {
        for effect in app.update(Msg::Tick) {
            if let Effect::Complete { id: i, .. } = effect {
                app.update(Msg::Completed {
                    id: i,
                    result: Ok(Completion {
                        values: vec!["Paris".into()],
                        total: None,
                        has_more: None,
                    }),
                });
            }
        }
    }
    app.update(ctrl('n'));
    assert!(form(&app).suggestions.visible());
}

#[test]
pub(crate) fn the_first_row_stays_selected_while_servers_connect_until_the_user_moves() {
    let mut app = App::new(
        vec!["a".into(), "b".into()],
        Options::default(),
        KeyMap::default(),
        History::default(),
    );
    app.update(Msg::Mcp(McpEvent::Ready {
        server: "b".into(),
        details: details(false),
        prompts: vec![prompt("b", "late", vec![])],
    }));
    app.update(Msg::Mcp(McpEvent::Ready {
        server: "a".into(),
        details: details(false),
        prompts: vec![prompt("a", "first", vec![]), prompt("a", "second", vec![])],
    }));
    assert_eq!(app.selected_entry().unwrap().slash_name, "a:first");
    app.update(key(KeyCode::Down));
    app.update(Msg::Mcp(McpEvent::PromptsChanged {
        server: "a".into(),
        prompts: vec![
            prompt("a", "zero", vec![]),
            prompt("a", "first", vec![]),
            prompt("a", "second", vec![]),
        ],
    }));
    assert_eq!(app.selected_entry().unwrap().slash_name, "a:second");
}

#[test]
pub(crate) fn a_resource_arriving_after_the_messages_moved_goes_to_its_link() {
    let mut app = app_in_review();
    let link: Content = serde_json::from_value(
        serde_json::json!({"type":"resource_link","uri":"file:///x.md","name":"x"}),
    )
    .unwrap();
    if let Screen::Review(review) = &mut app.screen {
        review.items[1].set_content(link);
    }
    app.update(key(KeyCode::Down));
    // Without the resources capability, `o` says so and asks nothing.
    assert!(app.update(key(KeyCode::Char('o'))).is_empty());
    assert!(
        app.flash
            .as_ref()
            .unwrap()
            .text
            .contains("does not offer resources")
    );
    if let ServerState::Ready { details, .. } = &mut app.servers[0].state {
        details.resources = true;
    }
    let effects = app.update(key(KeyCode::Char('o')));
    let [Effect::ReadResource { id, uri, .. }] = &effects[..] else {
        panic!("{effects:?}")
    };
    assert_eq!(uri, "file:///x.md");
    let id = *id;
    // The link moves up before the answer arrives.
    app.update(Msg::Key(KeyEvent::new(KeyCode::Up, KeyModifiers::ALT)));
    app.update(Msg::ResourceRead {
        id,
        result: Ok(vec![crate::model::EmbeddedResource::Text {
            uri: "file:///x.md".into(),
            mime_type: None,
            text: "contents".into(),
            meta: None,
        }]),
    });
    let r = review(&app);
    assert_eq!(
        crate::app::editable_text(&r.items[0].message().content),
        Some("contents")
    );
    assert_eq!(
        crate::app::editable_text(&r.items[1].message().content),
        Some("Weather in New York?")
    );
}

#[test]
pub(crate) fn a_first_run_offer_is_taken_with_one_key() {
    let mut app = ready_app();
    app.offer = vec![
        SourceOffer {
            dialect: "vscode".into(),
            path: "/p/.vscode/mcp.json".into(),
            servers: 2,
        },
        SourceOffer {
            dialect: "vscode".into(),
            path: "/home/mcp.json".into(),
            servers: 1,
        },
        SourceOffer {
            dialect: "cursor".into(),
            path: "/p/.cursor/mcp.json".into(),
            servers: 1,
        },
    ];
    let effects = app.update(ctrl('o'));
    assert_eq!(
        effects,
        vec![Effect::UseSources {
            sources: vec!["vscode".into(), "cursor".into()]
        }]
    );
    assert!(app.offer.is_empty());
    app.update(Msg::SourcesAdded(Ok((
        "/c/config.toml".into(),
        vec![("gh".into(), "vscode: /p/.vscode/mcp.json".into())],
    ))));
    assert!(
        app.servers
            .iter()
            .any(|s| s.name == "gh" && s.state == ServerState::Connecting)
    );
    assert_eq!(app.server_sources["gh"], "vscode: /p/.vscode/mcp.json");
    // Without an offer the key does nothing.
    assert!(app.update(ctrl('o')).is_empty());
}

pub(crate) fn input_spec(id: &str, description: &str) -> InputSpec {
    InputSpec {
        id: id.into(),
        description: description.into(),
        password: true,
    }
}

/// `ready_app` plus `acme` and `worker`, waiting for inputs.
pub(crate) fn app_waiting_for_inputs() -> App {
    let mut app = ready_app();
    app.update(Msg::InputsNeeded(vec![
        ("acme".into(), vec![input_spec("key", "Acme API key")]),
        (
            "worker".into(),
            vec![input_spec("key", "Acme API key"), input_spec("region", "")],
        ),
    ]));
    app
}

/// Ticks until effects come, at most `limit` ticks.
pub(crate) fn tick_until_effects(app: &mut App, limit: usize) -> Vec<Effect> {
    for _ in 0..limit {
        let effects = app.update(Msg::Tick);
        if !effects.is_empty() {
            return effects;
        }
    }
    Vec::new()
}

/// The status line after a copy of the review's export with `leave` (Enter) or not (`y`).
pub(crate) fn after_copy(result: Result<Copied, String>, leave: bool) -> (App, String) {
    let mut app = app_in_review();
    if leave {
        // The accept that asked for this copy.
        app.update(key(KeyCode::Enter));
    }
    app.update(Msg::Copied { result, leave });
    let flash = app.flash.as_ref().expect("a status line");
    let said = format!("{}{}", if flash.error { "error: " } else { "" }, flash.text);
    (app, said)
}

pub(crate) fn alt(c: char) -> Msg {
    Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::ALT))
}

/// An app with one server of `count` prompts (`p00`, `p01`, …, each with an argument).
pub(crate) fn app_with_prompts(count: usize) -> App {
    let mut app = App::new(
        vec!["many".into()],
        Options::default(),
        KeyMap::default(),
        History::default(),
    );
    app.update(Msg::Mcp(McpEvent::Ready {
        server: "many".into(),
        details: details(false),
        prompts: (0..count)
            .map(|i| prompt("many", &format!("p{i:02}"), vec![arg("x", false)]))
            .collect(),
    }));
    app
}

pub(crate) fn click(column: u16, row: u16, at_ms: u64) -> Msg {
    Msg::Click {
        column,
        row,
        at_ms,
        target: None,
    }
}

/// Answers every completion request the next few ticks send with `values`.
pub(crate) fn answer_completions(app: &mut App, values: &[&str]) {
    for _ in 0..4 {
        for effect in app.update(Msg::Tick) {
            if let Effect::Complete { id, .. } = effect {
                app.update(Msg::Completed {
                    id,
                    result: Ok(Completion {
                        values: values.iter().map(|v| v.to_string()).collect(),
                        total: None,
                        has_more: None,
                    }),
                });
            }
        }
    }
}

/// The focused field's cursor column, in chars.
pub(crate) fn form_cursor(app: &App) -> usize {
    let form = form(app);
    form.fields[form.focus].editor.cursor().1
}

#[test]
pub(crate) fn values_left_unsent_come_back_and_go_once_sent() {
    let mut app = ready_app();
    type_text(&mut app, "args-prompt");
    app.update(key(KeyCode::Enter));
    type_text(&mut app, "Paris");
    let effects = app.update(key(KeyCode::Esc));
    assert!(
        effects.iter().any(|e| matches!(e, Effect::SaveFormDrafts(d)
            if d.get("everything:args-prompt").is_some_and(|v| v["city"] == "Paris"))),
        "{effects:?}"
    );
    assert!(matches!(app.screen, Screen::Picker));
    app.update(key(KeyCode::Enter));
    assert_eq!(form(&app).fields[0].value(), "Paris");
    assert!(form(&app).restored_unsent);
    // Sent, the values are the last run's: nothing is unsent any more.
    app.update(key(KeyCode::Enter));
    let effects = app.update(key(KeyCode::Enter));
    let id = fetch_id(&effects);
    let effects = app.update(Msg::Fetched {
        id,
        result: Ok(GetOutcome::Messages(messages(&[(Role::User, "Hi")]))),
    });
    assert!(app.form_drafts.get("everything:args-prompt").is_none());
    assert!(
        effects
            .iter()
            .any(|e| matches!(e, Effect::SaveFormDrafts(_)))
    );
    app.update(key(KeyCode::Esc));
    for _ in 0..10 {
        app.update(Msg::Tick);
    }
    app.update(key(KeyCode::Esc));
    assert!(matches!(app.screen, Screen::Picker));
    assert!(app.form_drafts.get("everything:args-prompt").is_none());
    app.update(key(KeyCode::Enter));
    assert_eq!(form(&app).fields[0].value(), "Paris");
    assert!(!form(&app).restored_unsent);
}
