//! The menu from the catalog, driven through `update` with the hub's events.

use super::*;
use crate::app::tests::{arg, ctrl, details, form, key, prompt, type_text};
use crate::app::*;
use crate::cache::{Era, FORMAT, Freshness, Hints, PromptPage, Scope, ServerEntry};
use crate::mcp::McpError;
use crate::mcp::McpEvent;
use crate::model::PromptInfo;
use crossterm::event::KeyCode;

/// When the test's clock says it is (ms since the epoch).
const NOW: u64 = 1_800_000_000_000;

/// A catalog entry of `server` holding `prompts`, listed `age_ms` before [`NOW`] with a
/// `ttlMs` of `ttl_ms`.
pub(crate) fn entry(
    server: &str,
    prompts: Vec<PromptInfo>,
    age_ms: u64,
    ttl_ms: u64,
) -> ServerEntry {
    let received_ms = NOW - age_ms;
    ServerEntry {
        format: FORMAT,
        server: server.into(),
        fingerprint: String::new(),
        auth: None,
        written_ms: received_ms,
        era: Era::Legacy,
        details: details(false),
        discover: None,
        pages: Some(vec![PromptPage {
            hints: Hints {
                received_ms,
                ttl_ms,
                scope: Scope::Public,
            },
            prompts,
        }]),
        warnings: Vec::new(),
    }
}

/// `everything` and `py` starting; `py`'s catalog (greet, farewell; listed 3 h ago, a
/// `ttlMs` of 0 as the Python SDK sends) in the menu.
pub(crate) fn starting_with_cached_py() -> App {
    let mut app = App::new(
        vec!["everything".into(), "py".into()],
        Options::default(),
        KeyMap::default(),
        History::default(),
    );
    app.wall_ms = NOW;
    app.show_cached(&entry(
        "py",
        vec![
            prompt("py", "greet", vec![arg("name", true)]),
            prompt("py", "farewell", vec![]),
        ],
        3 * 3600 * 1000,
        0,
    ));
    app
}

fn ready(server: &str, prompts: Vec<PromptInfo>) -> Msg {
    Msg::Mcp(McpEvent::Ready {
        server: server.into(),
        details: details(true),
        prompts,
    })
}

fn everything_prompts() -> Vec<PromptInfo> {
    vec![
        prompt("everything", "simple-prompt", vec![]),
        prompt("everything", "echo", vec![arg("message", true)]),
    ]
}

fn selected(app: &App) -> String {
    app.selected_entry().unwrap().slash_name.clone()
}

#[test]
fn cached_rows_are_in_the_menu_while_their_server_starts_marked_cached() {
    let app = starting_with_cached_py();
    assert_eq!(app.servers[1].state, ServerState::Connecting);
    let rows: Vec<&str> = app
        .menu
        .entries
        .iter()
        .map(|e| e.slash_name.as_str())
        .collect();
    assert_eq!(rows, ["py:greet", "py:farewell"]);
    // ttlMs 0: stale by the clock, but while the server starts the rows read "cached".
    assert_eq!(app.row_mark("py"), Some(RowMark::Cached));
    assert_eq!(
        app.catalog_mark("py"),
        Some(&CatalogMark::Cached {
            listed_ms: NOW - 3 * 3600 * 1000,
            fresh_until: None
        })
    );
    assert_eq!(app.row_mark("everything"), None);
    // A fresh entry knows until when.
    let mut app = starting_with_cached_py();
    app.show_cached(&entry(
        "everything",
        everything_prompts(),
        60_000,
        10 * 60_000,
    ));
    assert_eq!(
        app.catalog_mark("everything"),
        Some(&CatalogMark::Cached {
            listed_ms: NOW - 60_000,
            fresh_until: Some(NOW + 9 * 60_000)
        })
    );
    assert_eq!(app.menu.entries.len(), 4);
    // An entry of a server not in the config, or that listed nothing, adds nothing.
    app.show_cached(&entry(
        "stranger",
        vec![prompt("stranger", "x", vec![])],
        0,
        0,
    ));
    app.show_cached(&entry("everything", vec![], 0, 0));
    assert_eq!(app.menu.entries.len(), 4);
}

#[test]
fn live_lists_replace_cached_rows_without_moving_the_selection_or_the_search() {
    let mut app = starting_with_cached_py();
    type_text(&mut app, "e");
    app.update(key(KeyCode::Down));
    assert_eq!(selected(&app), "py:farewell");
    // A server before it in the config comes up: rows arrive above, the selection stays.
    app.update(ready("everything", everything_prompts()));
    assert_eq!(selected(&app), "py:farewell");
    // py's live list replaces its rows, in another order, with one more.
    app.update(ready(
        "py",
        vec![
            prompt("py", "hello", vec![]),
            prompt("py", "farewell", vec![]),
            prompt("py", "greet", vec![arg("name", true)]),
        ],
    ));
    assert_eq!(selected(&app), "py:farewell");
    assert_eq!(app.menu.query.text(), "e");
    assert_eq!(app.catalog_mark("py"), None, "a live list clears the mark");
    assert!(app.menu.entries.iter().any(|e| e.slash_name == "py:hello"));
    assert_eq!(app.menu.entries.len(), 5);
}

#[test]
fn an_unmoved_selection_stays_on_its_prompt_once_the_menu_came_from_the_catalog() {
    let mut app = starting_with_cached_py();
    assert_eq!(selected(&app), "py:greet");
    // Without the catalog the first row would follow the servers as they connect; the
    // menu was complete from the first frame, so the row under the cursor stays.
    app.update(ready("everything", everything_prompts()));
    assert_eq!(selected(&app), "py:greet");
}

#[test]
fn from_catalog_keeps_the_mark_until_its_ttl_and_a_live_list_clears_it() {
    let mut app = starting_with_cached_py();
    let until = NOW + 60_000;
    app.update(Msg::Mcp(McpEvent::FromCatalog {
        server: "py".into(),
        freshness: Freshness::Fresh { until_ms: until },
    }));
    app.update(ready(
        "py",
        vec![
            prompt("py", "greet", vec![arg("name", true)]),
            prompt("py", "farewell", vec![]),
        ],
    ));
    assert!(matches!(app.servers[1].state, ServerState::Ready { .. }));
    assert_eq!(
        app.catalog_mark("py"),
        Some(&CatalogMark::Cached {
            listed_ms: NOW - 3 * 3600 * 1000,
            fresh_until: Some(until)
        })
    );
    assert_eq!(app.row_mark("py"), Some(RowMark::Cached));
    // Its TTL runs out with the server up and not listed again: the rows read stale.
    app.wall_ms = until;
    assert_eq!(app.row_mark("py"), Some(RowMark::Stale));
    // The re-list (the TTL ran out, a list change) brings a live list: no mark.
    app.update(Msg::Mcp(McpEvent::PromptsChanged {
        server: "py".into(),
        prompts: vec![prompt("py", "greet", vec![arg("name", true)])],
    }));
    assert_eq!(app.row_mark("py"), None);
    assert_eq!(app.menu.entries.len(), 1);
}

#[test]
fn a_failed_re_list_keeps_the_rows_marked_stale_and_says_why_once() {
    let mut app = crate::app::tests::ready_app();
    let stale = |app: &mut App| {
        app.update(Msg::Mcp(McpEvent::ListStale {
            server: "py".into(),
            reason: "request timed out after 30 s\u{1b}[2J".into(),
        }))
    };
    stale(&mut app);
    assert_eq!(app.row_mark("py"), Some(RowMark::Stale));
    assert!(app.menu.entries.iter().any(|e| e.slash_name == "py:greet"));
    let said = app.latest_notice().unwrap().clone();
    assert!(said.error);
    assert!(
        said.text.starts_with(
            "py: its prompt list could not be fetched again (request timed out after 30 s"
        ),
        "{}",
        said.text
    );
    assert!(!said.text.contains('\u{1b}'), "server text is neutralised");
    let notices = app.notices.len();
    stale(&mut app);
    assert_eq!(app.notices.len(), notices, "the same reason is told once");
    assert!(
        app.logs["py"]
            .iter()
            .any(|l| l.text.starts_with("listing the prompts again failed")),
        "the logs pane keeps every failure"
    );
}

#[test]
fn a_failed_server_keeps_its_cached_rows_stale_and_opening_one_says_how_to_restart() {
    let mut app = starting_with_cached_py();
    app.update(Msg::Mcp(McpEvent::Failed {
        server: "py".into(),
        error: McpError::Closed(": the server exited with status 1".into()),
        stderr: vec![],
    }));
    assert_eq!(app.menu.entries.len(), 2, "the cached rows stay");
    assert_eq!(app.row_mark("py"), Some(RowMark::Stale));
    let Some(CatalogMark::Stale {
        reason, listed_ms, ..
    }) = app.catalog_mark("py")
    else {
        panic!("{:?}", app.catalog_mark("py"))
    };
    assert!(reason.contains("exited with status 1"), "{reason}");
    assert!(reason.starts_with("it is down (the server"), "{reason}");
    assert_eq!(*listed_ms, Some(NOW - 3 * 3600 * 1000), "the catalog's age");
    // farewell has no arguments: opening it would send it at once, but the server is down.
    app.update(key(KeyCode::Down));
    let effects = app.update(key(KeyCode::Enter));
    assert!(effects.is_empty(), "{effects:?}");
    let error = form(&app).error.clone().unwrap();
    assert!(
        error.starts_with("py is down (the server closed the connection")
            && error.ends_with("Esc, then F5 in the menu starts it again."),
        "{error}"
    );
    // A server that fails at start without cached rows adds none.
    let mut app = starting_with_cached_py();
    app.update(Msg::Mcp(McpEvent::Failed {
        server: "everything".into(),
        error: McpError::Closed(" (exit status 1)".into()),
        stderr: vec![],
    }));
    assert!(app.menu.entries.iter().all(|e| e.prompt.server == "py"));
    assert_eq!(app.catalog_mark("everything"), None);
}

#[test]
fn a_server_that_crashes_keeps_its_rows_stale_through_its_restarts() {
    let mut app = crate::app::tests::ready_app();
    app.wall_ms = NOW;
    app.update(Msg::Mcp(McpEvent::PromptsChanged {
        server: "py".into(),
        prompts: vec![prompt("py", "greet", vec![arg("name", true)])],
    }));
    app.wall_ms = NOW + 5_000;
    let crash = |app: &mut App, status: u8| {
        app.update(Msg::Mcp(McpEvent::Failed {
            server: "py".into(),
            error: McpError::Closed(format!(": the server exited with status {status}")),
            stderr: vec![],
        }));
    };
    let greet_stays = |app: &App, status: u8| {
        assert!(app.menu.entries.iter().any(|e| e.slash_name == "py:greet"));
        assert_eq!(app.row_mark("py"), Some(RowMark::Stale));
        assert_eq!(
            app.catalog_mark("py"),
            Some(&CatalogMark::Stale {
                reason: format!(
                    "crashed (the server closed the connection: the server exited with status {status})"
                ),
                listed_ms: Some(NOW),
                crashed: true,
            })
        );
    };
    crash(&mut app, 1);
    greet_stays(&app, 1);
    // It restarts, and the restart fails: still the crash's rows, its latest error.
    app.update(Msg::Mcp(McpEvent::Restarting {
        server: "py".into(),
        attempt: 1,
        of: 5,
        delay: std::time::Duration::from_secs(1),
    }));
    greet_stays(&app, 1);
    app.update(Msg::Mcp(McpEvent::Connecting {
        server: "py".into(),
    }));
    greet_stays(&app, 1);
    crash(&mut app, 2);
    greet_stays(&app, 2);
    // The restarts give up: the rows stay. Back up, its live list clears the mark.
    app.update(Msg::Mcp(McpEvent::Connecting {
        server: "py".into(),
    }));
    app.update(ready(
        "py",
        vec![prompt("py", "greet", vec![arg("name", true)])],
    ));
    assert_eq!(app.catalog_mark("py"), None);
    assert_eq!(app.row_mark("py"), None);
}

#[test]
fn notices_about_a_server_go_once_its_state_contradicts_them() {
    use crate::app::tests::details;
    let failed = |app: &mut App| {
        app.update(Msg::Mcp(McpEvent::Failed {
            server: "py".into(),
            error: McpError::Closed(": the server exited with status 3".into()),
            stderr: vec![],
        }));
    };
    let shown_or_queued = |app: &App, words: &str| {
        app.flash
            .iter()
            .chain(&app.queued_notices)
            .any(|n| n.text.contains(words))
    };
    // F5, it fails again (told), F5 again, and it is back: "failed again" goes at once.
    let mut app = crate::app::tests::ready_app();
    failed(&mut app);
    app.update(key(KeyCode::F(5)));
    failed(&mut app);
    assert!(shown_or_queued(&app, "py failed again"));
    app.update(key(KeyCode::F(5)));
    app.update(Msg::Mcp(McpEvent::Ready {
        server: "py".into(),
        details: details(false),
        prompts: vec![],
    }));
    assert!(!shown_or_queued(&app, "py failed again"));
    assert!(!shown_or_queued(&app, "Restarting py"), "it was under way");
    assert_eq!(app.flash.as_ref().unwrap().text, "py is back: 0 prompts.");
    assert!(
        app.notices
            .iter()
            .any(|n| n.text.starts_with("py failed again")),
        "the logs pane keeps it"
    );
    // A re-list failed (told), another notice waits behind it; Ctrl-R lists: it goes.
    let mut app = crate::app::tests::ready_app();
    app.update(Msg::Mcp(McpEvent::ListStale {
        server: "py".into(),
        reason: "timed out".into(),
    }));
    app.notify("Copied.");
    assert!(shown_or_queued(&app, "could not be fetched again"));
    app.update(ctrl('r'));
    app.update(Msg::Mcp(McpEvent::PromptsChanged {
        server: "py".into(),
        prompts: vec![prompt("py", "greet", vec![arg("name", true)])],
    }));
    assert!(!shown_or_queued(&app, "could not be fetched again"));
    assert_eq!(app.flash.as_ref().unwrap().text, "Copied.");
    // Another server listing changes nothing for py's notice.
    let mut app = crate::app::tests::ready_app();
    app.update(Msg::Mcp(McpEvent::ListStale {
        server: "py".into(),
        reason: "timed out".into(),
    }));
    app.update(Msg::Mcp(McpEvent::PromptsChanged {
        server: "everything".into(),
        prompts: everything_prompts(),
    }));
    assert!(shown_or_queued(&app, "could not be fetched again"));
}

#[test]
fn the_details_ages_are_drawn_again_each_second_only_while_shown() {
    let mut app = starting_with_cached_py();
    app.update(Msg::Resize(120, 40));
    assert!(app.shows_catalog_age(), "py:greet's details say how old");
    assert!(app.update(Msg::Clock).is_empty(), "only a redraw");
    // Idle with py up from a fresh catalog: no ticks, but the ages keep moving.
    app.update(Msg::Mcp(McpEvent::FromCatalog {
        server: "py".into(),
        freshness: Freshness::Fresh {
            until_ms: NOW + 60_000,
        },
    }));
    app.update(ready(
        "py",
        vec![
            prompt("py", "greet", vec![arg("name", true)]),
            prompt("py", "farewell", vec![]),
        ],
    ));
    app.update(ready("everything", everything_prompts()));
    while app.wants_ticks() {
        app.update(Msg::Tick);
    }
    assert!(app.shows_catalog_age());
    let tick = app.tick;
    app.update(Msg::Clock);
    assert_eq!(
        app.tick, tick,
        "a second is not a tick: notices keep their time"
    );
    // A row of a live list, another screen, a help overlay, or no room: nothing to age.
    app.update(ctrl('r'));
    app.update(Msg::Mcp(McpEvent::PromptsChanged {
        server: "py".into(),
        prompts: vec![prompt("py", "greet", vec![arg("name", true)])],
    }));
    assert!(!app.shows_catalog_age());
    let mut app = starting_with_cached_py();
    app.update(Msg::Resize(120, 40));
    app.update(key(KeyCode::Enter));
    assert!(!app.shows_catalog_age(), "the form shows no age");
    let mut app = starting_with_cached_py();
    app.update(Msg::Resize(60, 10));
    assert!(!app.shows_catalog_age(), "no details pane at this size");
}

/// Opens py:greet from the catalog, types `Ann` and submits while py starts.
fn submit_greet_while_py_starts(app: &mut App) -> u64 {
    app.update(key(KeyCode::Enter));
    assert_eq!(form(app).prompt.name, "greet");
    type_text(app, "Ann");
    let effects = app.update(key(KeyCode::Enter));
    assert!(
        effects.iter().all(|e| !matches!(e, Effect::Fetch { .. })),
        "nothing is sent before the server is up: {effects:?}"
    );
    let filled = form(app);
    assert!(filled.awaiting_server);
    filled.fetching.unwrap().0
}

#[test]
fn a_cached_prompt_is_filled_before_its_server_is_up_and_sent_once_it_is() {
    let mut app = starting_with_cached_py();
    let id = submit_greet_while_py_starts(&mut app);
    assert!(app.wants_ticks(), "the spinner turns");
    // Another server coming up changes nothing for it.
    assert!(
        app.update(ready("everything", everything_prompts()))
            .is_empty()
    );
    let effects = app.update(ready(
        "py",
        vec![prompt("py", "greet", vec![arg("name", true)])],
    ));
    assert_eq!(
        effects,
        vec![Effect::Fetch {
            id,
            server: "py".into(),
            prompt: "greet".into(),
            arguments: [("name".to_string(), "Ann".to_string())].into(),
            answers: None,
            skill: None,
        }]
    );
    assert!(!form(&app).awaiting_server);
    assert_eq!(form(&app).fetching.map(|(f, _)| f), Some(id));
}

#[test]
fn esc_cancels_the_wait_for_the_server_and_nothing_is_sent_later() {
    let mut app = starting_with_cached_py();
    let id = submit_greet_while_py_starts(&mut app);
    let effects = app.update(key(KeyCode::Esc));
    assert_eq!(effects, vec![Effect::CancelFetch { id }]);
    assert!(!form(&app).awaiting_server && form(&app).fetching.is_none());
    let effects = app.update(ready(
        "py",
        vec![prompt("py", "greet", vec![arg("name", true)])],
    ));
    assert!(
        effects.iter().all(|e| !matches!(e, Effect::Fetch { .. })),
        "{effects:?}"
    );
}

#[test]
fn a_server_that_fails_while_a_submit_waits_ends_the_wait_saying_how_to_restart() {
    let mut app = starting_with_cached_py();
    submit_greet_while_py_starts(&mut app);
    app.update(Msg::Mcp(McpEvent::Failed {
        server: "py".into(),
        error: McpError::Closed(": the server exited with status 2".into()),
        stderr: vec![],
    }));
    let ended = form(&app);
    assert!(!ended.awaiting_server && ended.fetching.is_none());
    let error = ended.error.as_deref().unwrap();
    assert!(error.starts_with("py is down ("), "{error}");
    assert!(error.contains("F5"), "{error}");
}

#[test]
fn a_prompt_gone_from_the_live_list_is_not_sent_and_the_form_says_so() {
    let mut app = starting_with_cached_py();
    submit_greet_while_py_starts(&mut app);
    let effects = app.update(ready("py", vec![prompt("py", "farewell", vec![])]));
    assert!(effects.is_empty(), "{effects:?}");
    let gone = "py no longer offers this prompt (its live list does not have it); Esc goes back to the menu.";
    assert_eq!(form(&app).error.as_deref(), Some(gone));
    assert!(form(&app).fetching.is_none());
    // Sending again is refused with the same words.
    assert!(app.update(ctrl('s')).is_empty());
    assert_eq!(form(&app).error.as_deref(), Some(gone));
    assert!(form(&app).fetching.is_none());
}

#[test]
fn changed_arguments_update_the_form_keeping_the_values_typed() {
    let mut app = starting_with_cached_py();
    submit_greet_while_py_starts(&mut app);
    let mut style = arg("style", true);
    style.title = Some("Style".into());
    let effects = app.update(ready(
        "py",
        vec![prompt("py", "greet", vec![arg("name", false), style])],
    ));
    assert!(
        effects.iter().all(|e| !matches!(e, Effect::Fetch { .. })),
        "a changed prompt is not sent unseen: {effects:?}"
    );
    let updated = form(&app);
    let names: Vec<&str> = updated.fields.iter().map(|f| f.arg.name.as_str()).collect();
    assert_eq!(names, ["name", "style"]);
    assert_eq!(updated.fields[0].value(), "Ann");
    assert!(!updated.fields[0].arg.required);
    assert!(updated.fetching.is_none() && !updated.awaiting_server);
    assert_eq!(
        updated.error.as_deref(),
        Some(
            "py changed this prompt's arguments (new: style; now optional: name): the form was updated; check it, then send it again."
        )
    );
    // A new description alone is taken quietly, and the submit goes out.
    let mut app = starting_with_cached_py();
    let id = submit_greet_while_py_starts(&mut app);
    let mut name = arg("name", true);
    name.description = Some("who to greet, in full".into());
    let effects = app.update(ready("py", vec![prompt("py", "greet", vec![name])]));
    assert!(
        matches!(&effects[..], [Effect::Fetch { id: sent, .. }] if *sent == id),
        "{effects:?}"
    );
    assert_eq!(
        form(&app).fields[0].arg.description.as_deref(),
        Some("who to greet, in full")
    );
}

#[test]
fn invalid_params_for_a_prompt_from_the_catalog_lists_again_and_the_form_follows() {
    // py up from its catalog (still fresh, so not listed again): greet takes `name`.
    let mut app = starting_with_cached_py();
    app.update(Msg::Mcp(McpEvent::FromCatalog {
        server: "py".into(),
        freshness: Freshness::Fresh {
            until_ms: NOW + 60_000,
        },
    }));
    app.update(ready(
        "py",
        vec![
            prompt("py", "greet", vec![arg("name", true)]),
            prompt("py", "farewell", vec![]),
        ],
    ));
    app.update(key(KeyCode::Enter));
    type_text(&mut app, "Ann");
    let effects = app.update(key(KeyCode::Enter));
    let [Effect::Fetch { id, .. }] = effects[..] else {
        panic!("{effects:?}")
    };
    // The file changed since: the server wants `q` now.
    let effects = app.update(Msg::Fetched {
        id,
        result: Err(McpError::Server {
            code: -32602,
            message: "missing required argument for prompt greet: q".into(),
            data: None,
        }),
    });
    assert_eq!(
        effects,
        vec![Effect::Relist {
            server: "py".into()
        }]
    );
    assert!(form(&app).error.as_deref().unwrap().contains("-32602"));
    // The list it brings updates the form and says so.
    app.update(Msg::Mcp(McpEvent::PromptsChanged {
        server: "py".into(),
        prompts: vec![prompt("py", "greet", vec![arg("q", true)])],
    }));
    let updated = form(&app);
    let names: Vec<&str> = updated.fields.iter().map(|f| f.arg.name.as_str()).collect();
    assert_eq!(names, ["q"]);
    assert!(
        updated
            .error
            .as_deref()
            .unwrap()
            .starts_with("py changed this prompt's arguments (new: q"),
        "{:?}",
        updated.error
    );
    // Any other server error is only told.
    type_text(&mut app, "tea");
    let effects = app.update(key(KeyCode::Enter));
    let [Effect::Fetch { id, .. }] = effects[..] else {
        panic!("{effects:?}")
    };
    let effects = app.update(Msg::Fetched {
        id,
        result: Err(McpError::Server {
            code: -32603,
            message: "internal".into(),
            data: None,
        }),
    });
    assert!(effects.is_empty(), "{effects:?}");
}

#[test]
fn completion_waits_for_the_server_then_is_asked() {
    let mut app = starting_with_cached_py();
    app.update(key(KeyCode::Enter));
    type_text(&mut app, "A");
    for _ in 0..5 {
        let effects = app.update(Msg::Tick);
        assert!(
            effects.is_empty(),
            "asked before the server is up: {effects:?}"
        );
    }
    app.update(ready(
        "py",
        vec![
            prompt("py", "greet", vec![arg("name", true)]),
            prompt("py", "farewell", vec![]),
        ],
    ));
    let effects = app.update(Msg::Tick);
    // (Beside the unsent values kept on disk.)
    let asked: Vec<&Effect> = effects
        .iter()
        .filter(|e| !matches!(e, Effect::SaveFormDrafts(_)))
        .collect();
    assert!(
        matches!(&asked[..], [Effect::Complete { server, value, .. }] if server == "py" && value == "A"),
        "{effects:?}"
    );
}

#[test]
fn ctrl_r_lists_every_server_again_and_restarts_failed_ones_until_each_answers() {
    let mut app = crate::app::tests::ready_app();
    let effects = app.update(ctrl('r'));
    assert_eq!(
        effects,
        vec![
            Effect::Relist {
                server: "everything".into()
            },
            Effect::Relist {
                server: "py".into()
            },
        ]
    );
    assert_eq!(app.refreshing.len(), 2);
    assert!(app.wants_ticks(), "the status bar's spinner turns");
    app.update(Msg::Mcp(McpEvent::PromptsChanged {
        server: "everything".into(),
        prompts: everything_prompts(),
    }));
    assert_eq!(app.refreshing.iter().collect::<Vec<_>>(), ["py"]);
    app.update(Msg::Mcp(McpEvent::ListStale {
        server: "py".into(),
        reason: "timed out".into(),
    }));
    assert!(app.refreshing.is_empty());
    // A failed server starts again with the others' re-lists.
    app.update(Msg::Mcp(McpEvent::Failed {
        server: "py".into(),
        error: McpError::Closed(" (exit status 1)".into()),
        stderr: vec![],
    }));
    let effects = app.update(ctrl('r'));
    assert_eq!(
        effects,
        vec![
            Effect::Relist {
                server: "everything".into()
            },
            Effect::Restart {
                server: "py".into()
            },
        ]
    );
}

#[test]
fn ages_read_in_the_largest_unit_that_fits() {
    let cases = [
        (0, "a moment"),
        (4_999, "a moment"),
        (42_000, "42 s"),
        (12 * 60_000, "12 min"),
        (3 * 3_600_000 + 59 * 60_000, "3 h"),
        (47 * 3_600_000, "47 h"),
        (5 * 86_400_000, "5 days"),
    ];
    for (ms, said) in cases {
        assert_eq!(short_duration(ms), said, "{ms} ms");
    }
}

/// `everything` and `py` starting with `start` asked for, each with its catalog in the
/// menu: `py`'s listed `py_age_ms` ago with a `ttlMs` of ten minutes, `everything`'s fresh.
fn starting_from_catalogs(start: crate::app::Start, py_age_ms: u64) -> App {
    let options = Options {
        start,
        ..Options::default()
    };
    let mut app = App::new(
        vec!["everything".into(), "py".into()],
        options,
        KeyMap::default(),
        History::default(),
    );
    app.wall_ms = NOW;
    app.show_cached(&entry(
        "everything",
        everything_prompts(),
        60_000,
        10 * 60_000,
    ));
    app.show_cached(&entry(
        "py",
        vec![
            prompt("py", "greet", vec![arg("name", true)]),
            prompt("py", "farewell", vec![]),
        ],
        py_age_ms,
        10 * 60_000,
    ));
    app
}

#[test]
fn select_1_acts_on_catalogs_fresh_by_their_ttl_without_waiting_for_the_servers() {
    let select = |query: &str| crate::app::Start {
        query: query.into(),
        select_one: true,
        ..Default::default()
    };
    // Both catalogs fresh, one match: the form opens on the first message, servers still
    // starting.
    let mut app = starting_from_catalogs(select("greet"), 60_000);
    app.update(Msg::Tick);
    assert!(
        app.servers
            .iter()
            .all(|s| s.state == ServerState::Connecting)
    );
    assert_eq!(form(&app).slash_name, "py:greet");
    // A prompt without arguments is asked for at once; the fetch waits for its server.
    let mut app = starting_from_catalogs(select("farewell"), 60_000);
    app.update(Msg::Tick);
    assert!(matches!(app.screen, Screen::Form(_)), "{:?}", app.screen);
    assert_eq!(form(&app).slash_name, "py:farewell");
    // py's catalog past its TTL: its live list may differ, so the start waits for it.
    let mut app = starting_from_catalogs(select("greet"), 11 * 60_000);
    app.update(Msg::Tick);
    assert!(matches!(app.screen, Screen::Picker));
    app.update(ready(
        "py",
        vec![prompt("py", "greet", vec![arg("name", true)])],
    ));
    assert_eq!(form(&app).slash_name, "py:greet");
    // Several matches in fresh catalogs: the menu stays, as fzf's does.
    let mut app = starting_from_catalogs(select("e"), 60_000);
    app.update(Msg::Tick);
    assert!(matches!(app.screen, Screen::Picker));
    assert_eq!(app.menu.query.text(), "e");
}

#[test]
fn a_named_prompt_opens_from_its_servers_fresh_catalog_at_once() {
    let open = crate::app::Start {
        open: Some(crate::app::OpenPrompt {
            reference: crate::search::PromptRef::parse("py/greet").unwrap(),
            values: [("name".to_string(), "Ada".to_string())].into(),
            sources: Default::default(),
            no_form: false,
            near_command: None,
        }),
        ..Default::default()
    };
    let mut app = starting_from_catalogs(open, 60_000);
    app.update(Msg::Tick);
    assert_eq!(form(&app).slash_name, "py:greet");
    assert_eq!(form(&app).fields[0].value(), "Ada");
}
