//! Key sequences driven through `update`, later in a session: inputs and sign-in, drafts and
//! copies, the editing keys, the mouse, suggestions, served problems, the logs' story.

use super::tests::*;
use super::*;
use crate::export::clipboard::Copied;
use crate::mcp::{McpError, McpEvent};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

#[test]
fn servers_waiting_for_inputs_ask_once_and_start_when_given() {
    let mut app = app_waiting_for_inputs();
    assert!(matches!(app.overlay, Some(Overlay::Inputs(_))));
    assert_eq!(app.key_screen(), KeyScreen::Inputs);
    assert_eq!(
        app.servers
            .iter()
            .find(|s| s.name == "worker")
            .unwrap()
            .state,
        ServerState::NeedsInput {
            inputs: vec!["Acme API key".into(), "region".into()]
        }
    );
    // Typing goes to the field, not the search line; `?` is a character of a secret.
    type_text(&mut app, "k?y");
    assert!(app.menu.query.is_empty());
    // Esc keeps the servers waiting and says how to come back.
    assert!(app.update(key(KeyCode::Esc)).is_empty());
    assert!(app.overlay.is_none());
    assert!(app.flash.as_ref().unwrap().text.contains("Ctrl-T"));
    app.update(ctrl('t'));
    let Some(Overlay::Inputs(prompt)) = &app.overlay else {
        panic!("Ctrl-T opens the prompt again")
    };
    assert_eq!(prompt.fields.len(), 2);
    type_text(&mut app, "k3y");
    app.update(Msg::Paste("pasted\n".into()));
    // Enter moves on; on the last field it submits what is typed (region left empty).
    assert!(app.update(key(KeyCode::Enter)).is_empty());
    let effects = app.update(key(KeyCode::Enter));
    let [Effect::GiveInputs { values, again }] = effects.as_slice() else {
        panic!("{effects:?}")
    };
    assert_eq!(values.get("key"), Some("k3ypasted"));
    assert_eq!(values.get("region"), None);
    assert!(again.is_empty());
    let state = |app: &App, name: &str| {
        app.servers
            .iter()
            .find(|s| s.name == name)
            .unwrap()
            .state
            .clone()
    };
    assert_eq!(state(&app, "acme"), ServerState::Connecting);
    assert_eq!(
        state(&app, "worker"),
        ServerState::NeedsInput {
            inputs: vec!["region".into()]
        }
    );
    assert_eq!(app.waiting.len(), 1);
    // Once nothing waits, the key says so.
    app.update(ctrl('t'));
    type_text(&mut app, "eu");
    let effects = app.update(ctrl('s'));
    assert!(matches!(effects.as_slice(), [Effect::GiveInputs { .. }]));
    assert!(app.waiting.is_empty());
    app.update(ctrl('t'));
    assert!(app.overlay.is_none());
    assert!(app.flash.as_ref().unwrap().text.contains("No server waits"));
}

#[test]
fn inputs_needed_while_another_pane_is_open_only_notify() {
    let mut app = ready_app();
    app.update(ctrl('l'));
    app.update(Msg::InputsNeeded(vec![(
        "acme".into(),
        vec![input_spec("key", "")],
    )]));
    assert!(matches!(app.overlay, Some(Overlay::Logs(_))));
    assert!(
        app.flash
            .as_ref()
            .unwrap()
            .text
            .contains("acme waits for inputs")
    );
}

#[test]
fn a_server_asking_for_sign_in_is_signed_in_with_one_key_then_restarted() {
    let mut app = ready_app();
    app.update(Msg::Mcp(McpEvent::Connecting {
        server: "remote".into(),
    }));
    app.update(Msg::Mcp(McpEvent::Failed {
        server: "remote".into(),
        error: McpError::SignInRequired {
            server: "remote".into(),
            challenge: Some("Bearer resource_metadata=\"http://h/prm\"".into()),
            more_scopes: false,
        },
        stderr: Vec::new(),
    }));
    let state = |app: &App| {
        app.servers
            .iter()
            .find(|s| s.name == "remote")
            .unwrap()
            .state
            .clone()
    };
    assert_eq!(state(&app), ServerState::NeedsSignIn);
    let effects = app.update(ctrl('s'));
    assert_eq!(
        effects,
        vec![Effect::SignIn {
            server: "remote".into(),
            challenge: Some("Bearer resource_metadata=\"http://h/prm\"".into()),
        }]
    );
    // A second press while the browser is open starts nothing more.
    assert!(app.update(ctrl('s')).is_empty());
    assert!(app.flash.as_ref().unwrap().text.contains("already"));
    app.update(Msg::SignInUrl {
        server: "remote".into(),
        url: "http://h/authorize?x=1".into(),
    });
    assert!(app.latest_notice().unwrap().text.contains("Ctrl-L"));
    assert!(
        app.logs["remote"]
            .iter()
            .any(|l| l.text == "sign in at http://h/authorize?x=1")
    );
    // A failed sign-in leaves the server asking.
    app.update(Msg::SignedIn {
        server: "remote".into(),
        result: Err("the authorization server refused: access_denied".into()),
    });
    assert!(app.latest_notice().unwrap().error);
    assert_eq!(state(&app), ServerState::NeedsSignIn);
    // After a failure, the key tries again.
    assert_eq!(app.update(ctrl('s')).len(), 1);
    let effects = app.update(Msg::SignedIn {
        server: "remote".into(),
        result: Ok(()),
    });
    assert_eq!(
        effects,
        vec![Effect::Restart {
            server: "remote".into()
        }]
    );
    assert_eq!(state(&app), ServerState::Connecting);
    assert!(app.update(ctrl('s')).is_empty());
    assert!(app.latest_notice().unwrap().text.contains("No server asks"));
}

#[test]
fn a_failed_server_that_used_inputs_can_be_given_new_values() {
    let mut app = app_waiting_for_inputs();
    type_text(&mut app, "wrong");
    app.update(ctrl('s'));
    app.update(Msg::Mcp(McpEvent::Failed {
        server: "acme".into(),
        error: McpError::Closed(": wrong key".into()),
        stderr: Vec::new(),
    }));
    // Ctrl-T offers the failed server's inputs again (the waiting worker's too).
    app.update(ctrl('t'));
    let Some(Overlay::Inputs(prompt)) = &app.overlay else {
        panic!("no prompt")
    };
    let ids: Vec<&str> = prompt.fields.iter().map(|f| f.spec.id.as_str()).collect();
    assert_eq!(ids, ["region", "key"]);
    app.update(key(KeyCode::Tab));
    type_text(&mut app, "right");
    let effects = app.update(ctrl('s'));
    let [Effect::GiveInputs { values, again }] = effects.as_slice() else {
        panic!("{effects:?}")
    };
    assert_eq!(values.get("key"), Some("right"));
    assert_eq!(again, &["acme".to_string()]);
    let acme = app.servers.iter().find(|s| s.name == "acme").unwrap();
    assert_eq!(acme.state, ServerState::Connecting);
}

#[test]
fn edits_in_review_are_kept_as_a_draft_until_exported_and_restore_whole() {
    let mut app = app_in_review();
    // No edits, no draft.
    assert!(tick_until_effects(&mut app, 20).is_empty());
    app.update(key(KeyCode::Char('e')));
    type_text(&mut app, " Hot?");
    // Still typing in the editor: the draft holds the text typed so far.
    let effects = tick_until_effects(&mut app, 20);
    let [Effect::SaveDraft(draft)] = effects.as_slice() else {
        panic!("{effects:?}")
    };
    assert_eq!(
        crate::app::editable_text(&draft.items[0].message().content),
        Some("Weather in New York? Hot?")
    );
    assert_eq!(draft.slash_name, "everything:args-prompt");
    let draft = draft.as_ref().clone();
    // Nothing typed since: nothing saved again.
    assert!(tick_until_effects(&mut app, 20).is_empty());

    // The next run shows the draft's review, edits and all.
    let mut restored = ready_app();
    restored.restore_draft(draft);
    let r = review(&restored);
    assert!(r.is_edited(0));
    assert!(r.export().contains("Weather in New York? Hot?"));
    assert!(restored.flash.as_ref().unwrap().text.contains("draft"));

    // Exporting removes it; leaving after discarding too.
    app.update(key(KeyCode::Esc));
    let effects = app.update(Msg::Copied {
        result: Ok(Copied::Desktop {
            via: "xclip".into(),
        }),
        leave: false,
    });
    assert_eq!(effects, vec![Effect::DeleteDraft]);
    restored.update(key(KeyCode::Esc));
    let effects = restored.update(key(KeyCode::Esc));
    assert!(effects.contains(&Effect::DeleteDraft), "{effects:?}");
    assert!(!matches!(restored.screen, Screen::Review(_)));
}

#[test]
fn a_tmux_copy_says_it_is_a_buffer_and_whether_the_terminal_got_it() {
    use crate::export::clipboard::OuterClipboard;
    let (app, said) = after_copy(
        Ok(Copied::TmuxBuffer {
            outer: OuterClipboard::Sent("external".into()),
        }),
        true,
    );
    assert_eq!(
        said,
        "Copied to a tmux buffer (prefix ] pastes it) and your terminal's clipboard (set-clipboard external)."
    );
    assert!(matches!(app.screen, Screen::Picker));
    let (_, said) = after_copy(
        Ok(Copied::TmuxBuffer {
            outer: OuterClipboard::NotSet,
        }),
        false,
    );
    assert_eq!(
        said,
        "Copied to a tmux buffer (prefix ] pastes it), NOT your terminal's clipboard (set -g set-clipboard on)."
    );
    let (_, said) = after_copy(
        Ok(Copied::TmuxBuffer {
            outer: OuterClipboard::Unknown,
        }),
        false,
    );
    assert!(said.contains("tmux did not say"), "{said}");
}

#[test]
fn desktop_and_command_copies_name_their_program() {
    let (app, said) = after_copy(
        Ok(Copied::Desktop {
            via: "mcpick's clipboard holder".into(),
        }),
        true,
    );
    assert_eq!(
        said,
        "Copied to the desktop clipboard (via mcpick's clipboard holder)."
    );
    assert!(matches!(app.screen, Screen::Picker));
    let (app, said) = after_copy(
        Ok(Copied::Command {
            program: "wl-copy".into(),
        }),
        false,
    );
    assert_eq!(said, "Copied with wl-copy (clipboard_command).");
    // `y` (no leave) stays on the review.
    assert!(matches!(app.screen, Screen::Review(_)));
}

#[test]
fn osc52_is_said_to_be_unconfirmed_never_copied() {
    for screen in [false, true] {
        let (app, said) = after_copy(Ok(Copied::Terminal { screen }), true);
        assert!(said.starts_with("Sent to the terminal"), "{said}");
        assert!(said.contains("cannot be confirmed"), "{said}");
        assert!(!said.contains("Copied"), "{said}");
        // Enter leaves, having said so plainly.
        assert!(matches!(app.screen, Screen::Picker));
    }
}

#[test]
fn a_failed_copy_keeps_the_review_and_names_the_other_ways_out() {
    let (app, said) = after_copy(
        Err("tmux load-buffer failed: no server running".into()),
        true,
    );
    assert_eq!(
        said,
        "error: Copy failed: tmux load-buffer failed: no server running. s saves it; mcpick --print prints it."
    );
    assert!(matches!(app.screen, Screen::Review(_)));
}

#[test]
fn a_copy_that_ends_after_the_user_went_on_leaves_nothing_and_keeps_the_draft() {
    let mut app = app_in_review();
    app.update(key(KeyCode::Enter));
    assert_eq!(
        app.flash.as_ref().map(|f| f.text.as_str()),
        Some("Copying…"),
        "a slow route says it is at work"
    );
    // While the copy runs the user edits the review…
    app.update(key(KeyCode::Char('e')));
    type_text(&mut app, " and more");
    app.update(key(KeyCode::Esc));
    let effects = app.update(Msg::Copied {
        result: Ok(Copied::Desktop {
            via: "xclip".into(),
        }),
        leave: true,
    });
    // …so the late answer neither leaves the edited review nor drops its draft.
    assert!(matches!(app.screen, Screen::Review(_)));
    assert!(review(&app).has_changes());
    assert!(!effects.contains(&Effect::DeleteDraft), "{effects:?}");
    assert!(app.exported_any, "something was copied");
}

#[test]
fn the_search_line_is_edited_in_the_middle_with_readline_keys() {
    let mut app = ready_app();
    type_text(&mut app, "grt all");
    // ← and Alt-B move inside the text; typing goes where the cursor is.
    app.update(alt('b'));
    app.update(key(KeyCode::Left));
    app.update(key(KeyCode::Left));
    type_text(&mut app, "e");
    assert_eq!(app.menu.query.text(), "gret all");
    assert_eq!(app.menu.query.cursor(), 3);
    // Ctrl-A goes to the start; Delete takes the char under the cursor.
    app.update(ctrl('a'));
    app.update(key(KeyCode::Delete));
    assert_eq!(app.menu.query.text(), "ret all");
    type_text(&mut app, "g");
    app.update(ctrl('e'));
    app.update(ctrl('w'));
    assert_eq!(app.menu.query.text(), "gret ");
    // Ctrl-Y yanks what Ctrl-W took.
    app.update(ctrl('y'));
    assert_eq!(app.menu.query.text(), "gret all");
    // Ctrl-U deletes to the start (not the whole line), Alt-D a word: both yank back.
    app.update(alt('b'));
    app.update(ctrl('u'));
    assert_eq!((app.menu.query.text(), app.menu.query.cursor()), ("all", 0));
    app.update(ctrl('y'));
    app.update(alt('d'));
    assert_eq!(app.menu.query.text(), "gret ");
    assert_eq!(
        app.menu.parsed_query,
        crate::search::Query::parse("gret ", app.servers.iter().map(|s| s.name.as_str()))
    );
}

#[test]
fn ctrl_u_deletes_to_the_start_in_the_form_and_the_editor_and_undo_has_keys_of_its_own() {
    let mut app = ready_app();
    type_text(&mut app, "args-prompt");
    app.update(key(KeyCode::Enter));
    type_text(&mut app, "New York");
    app.update(alt('b'));
    app.update(ctrl('u'));
    assert_eq!(form(&app).fields[0].value(), "York");
    app.update(ctrl('e'));
    app.update(ctrl('y'));
    assert_eq!(form(&app).fields[0].value(), "YorkNew ");
    // Undo on Ctrl-_ (Ctrl-/ and Ctrl-7 are the same byte) and Ctrl-Z; redo on Alt-_.
    app.update(ctrl('_'));
    assert_eq!(form(&app).fields[0].value(), "York");
    app.update(ctrl('7'));
    assert_eq!(form(&app).fields[0].value(), "New York");
    app.update(alt('_'));
    assert_eq!(form(&app).fields[0].value(), "York");
    app.update(ctrl('z'));
    assert_eq!(form(&app).fields[0].value(), "New York");
    // Ctrl-R is no redo in any input.
    app.update(ctrl('r'));
    assert_eq!(form(&app).fields[0].value(), "New York");

    let mut app = app_in_review();
    app.update(key(KeyCode::Char('e')));
    let text = |app: &App| review(app).editor.as_ref().unwrap().lines().join("\n");
    assert_eq!(text(&app), "Weather in New York?");
    app.update(ctrl('e'));
    // Word moves are readline's in every input: `?` is no word, Alt-B passes it.
    app.update(alt('b'));
    app.update(alt('b'));
    app.update(ctrl('u'));
    assert_eq!(text(&app), "New York?");
    app.update(ctrl('z'));
    assert_eq!(text(&app), "Weather in New York?");
    app.update(alt('_'));
    assert_eq!(text(&app), "New York?");
    // Ctrl-J is a line break, as in the form (the text area alone would delete to start).
    app.update(ctrl('j'));
    app.update(ctrl('y'));
    assert_eq!(text(&app), "\nWeather in New York?");
}

#[test]
fn the_file_name_line_speaks_the_same_keys() {
    let mut app = app_in_review();
    app.update(key(KeyCode::Char('s')));
    assert_eq!(app.key_screen(), KeyScreen::Editor);
    let name = |app: &App| review(app).input.as_ref().unwrap().editor.lines().join("");
    let offered = name(&app);
    app.update(ctrl('a'));
    type_text(&mut app, "my out/");
    app.update(ctrl('k'));
    assert_eq!(name(&app), "my out/");
    app.update(ctrl('y'));
    app.update(ctrl('a'));
    app.update(key(KeyCode::Delete));
    app.update(alt('f'));
    app.update(ctrl('u'));
    // Alt-F on the file-name line lands at the word's end, as readline's.
    assert_eq!(name(&app), format!(" out/{offered}"));
}

#[test]
fn page_keys_move_by_the_visible_list_rows_at_each_height() {
    let mut app = app_with_prompts(60);
    // 80×24: 22 rows above the status lines, the search line, a 7-row details pane: 14.
    app.update(Msg::Resize(80, 24));
    assert_eq!(areas::menu_list(&app).height, 14);
    app.update(key(KeyCode::PageDown));
    assert_eq!(app.menu.selected, 14);
    // The selection stays in view: the last visible row.
    assert_eq!(app.menu.top, 1);
    app.update(key(KeyCode::PageDown));
    assert_eq!(app.menu.selected, 28);
    app.update(key(KeyCode::PageUp));
    assert_eq!(app.menu.selected, 14);
    assert_eq!(app.menu.top, 14);
    // 80×14 (as inline `--height 14`): no details pane, 11 list rows.
    app.update(Msg::Resize(80, 14));
    app.update(key(KeyCode::PageUp));
    assert_eq!(app.menu.selected, 3);
    app.update(key(KeyCode::PageUp));
    app.update(key(KeyCode::PageDown));
    assert_eq!(app.menu.selected, 11);
    app.update(key(KeyCode::PageUp));
    assert_eq!(app.menu.selected, 0);
    // Never past the end.
    for _ in 0..10 {
        app.update(key(KeyCode::PageDown));
    }
    assert_eq!(app.menu.selected, 59);
}

#[test]
fn a_click_selects_the_row_under_it_and_elsewhere_does_nothing() {
    let mut app = app_with_prompts(30);
    app.update(Msg::Resize(80, 24));
    // The list starts under the search line.
    assert!(app.update(click(5, 1 + 3, 0)).is_empty());
    assert_eq!(app.menu.selected, 3);
    assert!(matches!(app.screen, Screen::Picker));
    // The search line, the details pane, the status lines: nothing.
    for row in [0, 16, 22, 23] {
        app.update(click(5, row, 10_000 + u64::from(row)));
        assert_eq!(app.menu.selected, 3, "row {row}");
    }
    // Scrolled down, a click hits the row drawn there, and the list does not move.
    app.update(key(KeyCode::PageDown));
    app.update(key(KeyCode::PageDown));
    let top = app.menu.top;
    assert!(top > 0);
    app.update(click(5, 1, 20_000));
    assert_eq!((app.menu.selected, app.menu.top), (top, top));
}

#[test]
fn a_double_click_opens_the_row_as_enter_does_and_two_slow_clicks_do_not() {
    let mut app = app_with_prompts(30);
    app.update(Msg::Resize(80, 24));
    app.update(click(5, 3, 1_000));
    app.update(click(5, 3, 1_000 + DOUBLE_CLICK_MS + 1));
    assert!(matches!(app.screen, Screen::Picker));
    // A second click on another row is a new first click.
    app.update(click(5, 4, 1_500));
    assert_eq!(app.menu.selected, 3);
    assert!(matches!(app.screen, Screen::Picker));
    app.update(click(5, 4, 1_700));
    let form = form(&app);
    assert_eq!(form.prompt.name, "p03");
}

#[test]
fn a_click_on_a_header_row_does_nothing() {
    let mut app = ready_app();
    app.history.record("py:greet", &Default::default());
    type_text(&mut app, "x");
    app.update(key(KeyCode::Backspace));
    assert_eq!(app.recent_rows(), 1);
    // Row 1 "Recent", row 2 greet, row 3 "All prompts", row 4 the first of the rest.
    app.update(click(5, 4, 0));
    assert_eq!(app.menu.selected, 1);
    for row in [1, 3] {
        app.update(click(5, row, 100));
        app.update(click(5, row, 200));
        assert_eq!(app.menu.selected, 1, "row {row}");
        assert!(matches!(app.screen, Screen::Picker));
    }
    app.update(click(5, 2, 300));
    assert_eq!(app.selected_entry().unwrap().slash_name, "py:greet");
}

#[test]
fn a_taken_suggestion_is_undone_like_typing() {
    let mut app = ready_app();
    type_text(&mut app, "args-prompt");
    app.update(key(KeyCode::Enter));
    type_text(&mut app, "Pa");
    answer_completions(&mut app, &["Paris", "Parma"]);
    app.update(key(KeyCode::Tab));
    assert_eq!(form_value(&app, 0), "Paris");
    // Tab moved on; back in the field, the take is undone as typing is.
    app.update(key(KeyCode::BackTab));
    app.update(ctrl('z'));
    assert_eq!(form_value(&app, 0), "Pa");
    app.update(alt('_'));
    assert_eq!(form_value(&app, 0), "Paris");
}

#[test]
fn the_first_ctrl_n_highlights_the_first_suggestion_and_tab_takes_it() {
    let mut app = ready_app();
    type_text(&mut app, "args-prompt");
    app.update(key(KeyCode::Enter));
    answer_completions(&mut app, &["Paris", "Berlin", "Rome"]);
    assert!(!form(&app).suggestions.visible());
    app.update(ctrl('n'));
    let s = &form(&app).suggestions;
    assert!(s.visible());
    assert_eq!(s.highlighted, Some(0), "the first Ctrl-N shows the first");
    app.update(key(KeyCode::Tab));
    assert_eq!(
        (form(&app).focus, form_value(&app, 0)),
        (1, "Paris".into()),
        "Tab takes the highlighted suggestion and moves on"
    );
}

#[test]
fn ctrl_p_on_hidden_suggestions_highlights_the_last_and_both_wrap() {
    let mut app = ready_app();
    type_text(&mut app, "args-prompt");
    app.update(key(KeyCode::Enter));
    answer_completions(&mut app, &["Paris", "Berlin", "Rome"]);
    app.update(ctrl('p'));
    assert_eq!(form(&app).suggestions.highlighted, Some(2));
    app.update(ctrl('n'));
    assert_eq!(form(&app).suggestions.highlighted, Some(0));
    app.update(ctrl('p'));
    assert_eq!(form(&app).suggestions.highlighted, Some(2));
}

#[test]
fn enter_takes_a_chosen_suggestion_and_else_moves_on() {
    let mut app = ready_app();
    type_text(&mut app, "args-prompt");
    app.update(key(KeyCode::Enter));
    type_text(&mut app, "Pa");
    answer_completions(&mut app, &["Paris", "Pau"]);
    assert!(form(&app).suggestions.visible());
    // Shown but not chosen: Enter keeps what was typed and goes on.
    app.update(key(KeyCode::Enter));
    assert_eq!((form(&app).focus, form_value(&app, 0)), (1, "Pa".into()));
    app.update(key(KeyCode::BackTab));
    app.update(ctrl('e'));
    answer_completions(&mut app, &["Paris", "Pau"]);
    app.update(ctrl('n'));
    app.update(ctrl('n'));
    app.update(key(KeyCode::Enter));
    assert_eq!(
        (form(&app).focus, form_value(&app, 0)),
        (0, "Pau".into()),
        "Enter took the chosen one and stayed"
    );
    assert!(!form(&app).suggestions.visible());
    app.update(key(KeyCode::Enter));
    assert_eq!(form(&app).focus, 1, "then Enter moves on");
}

#[test]
fn the_form_moves_and_deletes_by_grapheme_cluster() {
    let family = "👩\u{200d}👩\u{200d}👧";
    let accent = "e\u{301}";
    let flag = "🇫🇷";
    let mut app = ready_app();
    type_text(&mut app, "args-prompt");
    app.update(key(KeyCode::Enter));
    type_text(&mut app, &format!("a{family}{accent}{flag}z"));
    let chars = |s: &str| s.chars().count();
    let end = 2 + chars(family) + chars(accent) + chars(flag);
    assert_eq!(form_cursor(&app), end);
    // Left, Ctrl-B and Backspace each take one whole cluster.
    app.update(key(KeyCode::Left));
    assert_eq!(form_cursor(&app), end - 1);
    app.update(key(KeyCode::Left));
    assert_eq!(form_cursor(&app), end - 1 - chars(flag));
    app.update(ctrl('b'));
    assert_eq!(form_cursor(&app), 1 + chars(family));
    app.update(key(KeyCode::Left));
    assert_eq!(form_cursor(&app), 1);
    app.update(key(KeyCode::Right));
    assert_eq!(form_cursor(&app), 1 + chars(family));
    app.update(ctrl('f'));
    assert_eq!(form_cursor(&app), 1 + chars(family) + chars(accent));
    app.update(key(KeyCode::Backspace));
    assert_eq!(form_value(&app, 0), format!("a{family}{flag}z"));
    app.update(ctrl('h'));
    assert_eq!(form_value(&app, 0), format!("a{flag}z"));
    app.update(key(KeyCode::Delete));
    assert_eq!((form_value(&app, 0), form_cursor(&app)), ("az".into(), 1));
    // Undo brings the flag back whole.
    app.update(ctrl('_'));
    assert_eq!(form_value(&app, 0), format!("a{flag}z"));
}

#[test]
fn ctrl_n_before_the_server_answers_shows_the_answer_with_the_first_highlighted() {
    let mut app = ready_app();
    type_text(&mut app, "args-prompt");
    app.update(key(KeyCode::Enter));
    app.update(ctrl('n'));
    answer_completions(&mut app, &["Paris", "Berlin"]);
    let s = &form(&app).suggestions;
    assert!(s.visible());
    assert_eq!(s.highlighted, Some(0));
    app.update(key(KeyCode::BackTab));
    app.update(key(KeyCode::Tab));
    app.update(ctrl('p'));
    answer_completions(&mut app, &["Paris", "Berlin"]);
    assert_eq!(
        form(&app).suggestions.highlighted,
        Some(1),
        "Ctrl-P: the last"
    );
}

#[test]
fn a_list_warning_is_said_in_the_status_bar_and_kept_in_the_servers_logs() {
    let mut app = ready_app();
    app.logs.clear();
    app.update(Msg::Mcp(McpEvent::Warning {
        server: "py".into(),
        text: "left out the prompt `bro\u{1b}]0;x\u{7}ken`: the server described it wrongly".into(),
    }));
    let said = app.latest_notice().unwrap();
    assert!(said.error, "a warning is shown as one: {said:?}");
    assert!(
        said.text.starts_with("py: left out the prompt `bro") && !said.text.contains('\u{1b}'),
        "{:?}",
        said.text
    );
    let kept: Vec<(&str, &str)> = app.logs["py"]
        .iter()
        .map(|l| (l.source.as_str(), l.text.as_str()))
        .collect();
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert_eq!(kept[0].0, crate::mcp::MCPICK_SOURCE);
    assert!(kept[0].1.contains("described it wrongly"), "{kept:?}");
}

#[test]
fn a_served_library_with_file_problems_says_so_in_the_status_bar() {
    let mut app = ready_app();
    let before = app.notices.len();
    let mut with_problems = details(false);
    with_problems.served_problems = vec![
        crate::model::ServedProblem {
            file: "lib/bad\u{1b}]0;x\u{7}.mcpick.md".into(),
            line: Some(4),
            error: "`{{nothing}}` is not a declared argument (file skipped)".into(),
        },
        crate::model::ServedProblem {
            file: "b.md".into(),
            line: None,
            error: "a broken link (not served)".into(),
        },
    ];
    app.update(Msg::Mcp(McpEvent::Ready {
        server: "lib".into(),
        details: with_problems,
        prompts: vec![prompt("lib", "good", vec![])],
    }));
    let notice = app.latest_notice().unwrap();
    assert!(notice.error, "{notice:?}");
    // The server's words come with their escape made visible.
    assert_eq!(
        notice.text,
        "lib has problems with 2 prompt files (Ctrl-L shows them): lib/bad␛]0;x␇.mcpick.md:4: `{{nothing}}` is not a declared argument (file skipped) …"
    );
    // A server without problems adds no notice.
    let count = app.notices.len();
    assert_eq!(count, before + 1);
    app.update(Msg::Mcp(McpEvent::Ready {
        server: "py".into(),
        details: details(false),
        prompts: vec![],
    }));
    assert_eq!(app.notices.len(), count);
}

#[test]
fn a_served_library_whose_files_break_or_are_fixed_while_open_says_so_once() {
    let problem = |file: &str| crate::model::ServedProblem {
        file: file.into(),
        line: Some(4),
        error: "`{{nothing}}` is not a declared argument (file skipped)".into(),
    };
    let problems_of = |app: &App| -> Vec<String> {
        app.server_details("lib")
            .unwrap()
            .served_problems
            .iter()
            .map(|p| p.file.clone())
            .collect()
    };
    let mut app = ready_app();
    app.update(Msg::Mcp(McpEvent::Ready {
        server: "lib".into(),
        details: details(false),
        prompts: vec![prompt("lib", "good", vec![])],
    }));
    let quiet = app.notices.len();

    // A file breaks: the details follow, and the status bar tells the new problem.
    app.update(Msg::Mcp(McpEvent::ServedProblemsChanged {
        server: "lib".into(),
        problems: vec![problem("a.mcpick.md")],
    }));
    assert_eq!(problems_of(&app), ["a.mcpick.md"]);
    let notice = app.latest_notice().unwrap();
    assert!(notice.error, "{notice:?}");
    assert_eq!(
        notice.text,
        "lib has problems with 1 prompt file (Ctrl-L shows them): a.mcpick.md:4: `{{nothing}}` is not a declared argument (file skipped)"
    );
    assert_eq!(app.notices.len(), quiet + 1);
    // The list change that brought them says nothing more.
    app.update(Msg::Mcp(McpEvent::PromptsChanged {
        server: "lib".into(),
        prompts: vec![prompt("lib", "good", vec![])],
    }));
    assert_eq!(app.notices.len(), quiet + 1);

    // A second breaks: the count is current, and the new one is quoted.
    app.update(Msg::Mcp(McpEvent::ServedProblemsChanged {
        server: "lib".into(),
        problems: vec![problem("a.mcpick.md"), problem("b.mcpick.md")],
    }));
    assert_eq!(problems_of(&app), ["a.mcpick.md", "b.mcpick.md"]);
    assert_eq!(
        app.latest_notice().unwrap().text,
        "lib has problems with 2 prompt files (Ctrl-L shows them): b.mcpick.md:4: `{{nothing}}` is not a declared argument (file skipped) …"
    );

    // Fixed, one then the other: how many are left, as a notice, not a warning.
    app.update(Msg::Mcp(McpEvent::ServedProblemsChanged {
        server: "lib".into(),
        problems: vec![problem("b.mcpick.md")],
    }));
    assert_eq!(problems_of(&app), ["b.mcpick.md"]);
    let notice = app.latest_notice().unwrap();
    assert!(!notice.error, "{notice:?}");
    assert_eq!(notice.text, "lib: 1 problem left.");
    app.update(Msg::Mcp(McpEvent::ServedProblemsChanged {
        server: "lib".into(),
        problems: vec![],
    }));
    assert!(problems_of(&app).is_empty());
    assert_eq!(
        app.latest_notice().unwrap().text,
        "lib serves all its prompt files again."
    );
    assert_eq!(app.notices.len(), quiet + 4);
}

#[test]
fn the_menu_moves_with_ctrl_j_and_ctrl_k_as_fzf() {
    let mut app = ready_app();
    assert_eq!(app.menu.selected, 0);
    app.update(ctrl('j'));
    assert_eq!(app.menu.selected, 1);
    app.update(ctrl('n'));
    assert_eq!(app.menu.selected, 2);
    app.update(ctrl('k'));
    assert_eq!(app.menu.selected, 1);
    app.update(ctrl('p'));
    assert_eq!(app.menu.selected, 0);
    // The search line is left as it was.
    assert_eq!(app.menu.query.text(), "");
}

#[test]
fn the_logs_tell_each_servers_story_as_mcpick_saw_it() {
    let mut app = App::new(
        vec!["py".into()],
        Options::default(),
        KeyMap::default(),
        History::default(),
    );
    let at = |app: &mut App, ms: u64| app.now_ms = ms;
    at(&mut app, 100);
    app.update(Msg::Mcp(McpEvent::Connecting {
        server: "py".into(),
    }));
    at(&mut app, 900);
    app.update(Msg::Mcp(McpEvent::Ready {
        server: "py".into(),
        details: details(false),
        prompts: vec![prompt("py", "greet", vec![]), prompt("py", "bye", vec![])],
    }));
    at(&mut app, 5_000);
    app.update(Msg::Mcp(McpEvent::PromptsChanged {
        server: "py".into(),
        prompts: vec![prompt("py", "greet", vec![])],
    }));
    at(&mut app, 9_000);
    app.update(Msg::Mcp(McpEvent::Failed {
        server: "py".into(),
        error: McpError::Closed(" (exit status 1)".into()),
        stderr: Vec::new(),
    }));
    app.update(Msg::Mcp(McpEvent::Restarting {
        server: "py".into(),
        attempt: 1,
        of: 5,
        delay: std::time::Duration::from_secs(1),
    }));
    at(&mut app, 10_000);
    app.update(Msg::Mcp(McpEvent::Connecting {
        server: "py".into(),
    }));
    app.update(Msg::Mcp(McpEvent::Failed {
        server: "py".into(),
        error: McpError::Closed(" (exit status 2)".into()),
        stderr: Vec::new(),
    }));
    let story: Vec<(u64, &str)> = app.logs["py"]
        .iter()
        .map(|l| (l.at_ms, l.text.as_str()))
        .collect();
    assert_eq!(
        story,
        [
            (100, "connecting"),
            (900, "ready: 2 prompts"),
            (5_000, "list changed: 1 prompt"),
            (
                9_000,
                "crashed: the server closed the connection (exit status 1)"
            ),
            (9_000, "restarting in 1 s (attempt 1 of 5)"),
            (10_000, "connecting"),
            (
                10_000,
                "failed: the server closed the connection (exit status 2)"
            ),
        ]
    );
    assert!(app.logs["py"].iter().all(|l| l.source == "mcpick"));
}

#[test]
fn a_restored_draft_selects_the_message_being_edited_and_its_edits_undo() {
    let mut app = app_in_review();
    app.update(key(KeyCode::Down));
    app.update(key(KeyCode::Char('e')));
    type_text(&mut app, " Warm.");
    let effects = tick_until_effects(&mut app, 20);
    let [Effect::SaveDraft(draft)] = effects.as_slice() else {
        panic!("{effects:?}")
    };
    assert_eq!(draft.selected, 1);
    let draft = draft.as_ref().clone();
    // The draft as written to disk and read back, as the next run reads it.
    let draft: Draft = serde_json::from_str(&serde_json::to_string(&draft).unwrap()).unwrap();

    let mut restored = ready_app();
    restored.restore_draft(draft);
    let text = |app: &App, i: usize| {
        crate::app::editable_text(&review(app).items[i].message().content)
            .unwrap()
            .to_string()
    };
    assert_eq!(review(&restored).selected, 1, "the message being edited");
    assert_eq!(text(&restored, 1), "Sunny. Warm.");
    // One undo step back to what the server sent; redo brings the draft back.
    restored.update(ctrl('z'));
    assert_eq!(text(&restored, 1), "Sunny.");
    assert!(!review(&restored).is_edited(1));
    restored.update(Msg::Key(KeyEvent::new(
        KeyCode::Char('_'),
        KeyModifiers::ALT,
    )));
    assert_eq!(text(&restored, 1), "Sunny. Warm.");
    // A draft written before the selection was kept restores on the first message.
    let old: Draft = serde_json::from_value({
        let mut value = serde_json::to_value(review(&restored).draft()).unwrap();
        value.as_object_mut().unwrap().remove("selected");
        value
    })
    .unwrap();
    assert_eq!(old.selected, 0);
}
