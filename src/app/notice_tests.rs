//! Key sequences driven through `update`: the notices in the status bar, how long each
//! stays, what replaces it, and the logs pane that keeps them all.

use super::tests::*;
use super::*;
use crossterm::event::KeyCode;

#[test]
pub(crate) fn every_notice_can_be_read_again_in_the_logs_pane_after_the_servers() {
    let mut app = ready_app();
    app.notify("First thing that happened.");
    app.warn("Second thing, which failed.");
    assert_eq!(app.notices.len(), 2);
    assert!(app.notices[1].error);
    // Tab walks: all servers, each server, then mcpick's notices, then all again.
    app.update(ctrl('l'));
    let mut tabs = Vec::new();
    for _ in 0..=app.servers.len() + 1 {
        app.update(key(KeyCode::Tab));
        if let Some(Overlay::Logs(view)) = &app.overlay {
            tabs.push((view.server.clone(), view.notices));
        }
    }
    let names: Vec<_> = app
        .servers
        .iter()
        .map(|s| (Some(s.name.clone()), false))
        .collect();
    let mut expected = names;
    expected.push((None, true));
    expected.push((None, false));
    assert_eq!(tabs, expected);
}

#[test]
pub(crate) fn a_long_notice_stays_longer_and_a_first_run_note_stays_until_a_key() {
    let stays = |text: &str| {
        let mut app = ready_app();
        app.notify(text);
        app.flash.as_ref().unwrap().until - app.tick
    };
    let short = stays("Short.");
    let long = stays(
        "A much longer notice that holds a great many words for the user to read through before it goes.",
    );
    assert!(long > short, "{long} vs {short}");
    let mut app = ready_app();
    app.notify_until_a_key("No config file: showing the bundled prompt library.");
    for _ in 0..1000 {
        app.update(Msg::Tick);
    }
    assert!(app.flash.is_some(), "the first-run note went by itself");
    assert!(
        !app.wants_ticks(),
        "a note that waits for a key needs no clock"
    );
    app.update(key(KeyCode::Down));
    for _ in 0..100 {
        app.update(Msg::Tick);
    }
    assert!(app.flash.is_none(), "a key lets it go");
}

/// The notice on screen, if any.

#[test]
pub(crate) fn notices_that_arrive_together_are_shown_one_after_another_each_long_enough_to_read() {
    let mut app = ready_app();
    // Answers that come without a key (copies, saves, sign-ins) while one is shown.
    app.notify("Copied to the tmux buffer, and your terminal's clipboard through it.");
    app.warn("Save failed: the folder is read-only.");
    app.notify("Saved notes.md.");
    app.notify("Signed in to remote; connecting.");
    assert_eq!(
        shown(&app),
        Some("Copied to the tmux buffer, and your terminal's clipboard through it.")
    );
    assert_eq!(app.queued_notices.len(), 3);
    assert!(app.wants_ticks());
    let first = tick_until(&mut app, "Save failed: the folder is read-only.");
    // Eleven words at READ_TICKS_PER_WORD each, not the full stay of a lone notice.
    assert_eq!(first as u64, 11 * READ_TICKS_PER_WORD);
    assert!(app.flash.as_ref().unwrap().error);
    let second = tick_until(&mut app, "Saved notes.md.");
    assert_eq!(second as u64, 6 * READ_TICKS_PER_WORD);
    let third = tick_until(&mut app, "Signed in to remote; connecting.");
    assert_eq!(third as u64, GLANCE_TICKS, "a short notice is still seen");
    // The last one stays its full time, then the bar is clear.
    let last = tick_until_clear(&mut app);
    assert!(last as u64 >= FLASH_TICKS, "{last}");
    let kept: Vec<&str> = app.notices.iter().map(|n| n.text.as_str()).collect();
    assert_eq!(kept.len(), 4, "every one is in the logs pane: {kept:?}");
}

#[test]
pub(crate) fn a_key_lets_its_own_notice_replace_the_one_shown_and_copying_gives_way_to_its_result()
{
    let mut app = app_in_review();
    app.notify("Saved notes.md.");
    // The user acts: what the key says replaces the notice at once (f cycles formats).
    app.update(key(KeyCode::Char('f')));
    assert!(app.queued_notices.is_empty());
    assert!(
        shown(&app).unwrap().starts_with("Export format"),
        "{:?}",
        shown(&app)
    );
    // Enter accepts: "Copying…" is only what is under way, and its result replaces it
    // without a key.
    app.user_acted_on_notice();
    app.notify_transient("Copying…");
    assert_eq!(shown(&app), Some("Copying…"));
    app.notify("Copied.");
    assert_eq!(shown(&app), Some("Copied."));
    assert!(app.queued_notices.is_empty());
    // The same words again wait for nothing and queue nothing.
    app.notify("Copied.");
    assert!(app.queued_notices.is_empty());
}

#[test]
pub(crate) fn a_notice_about_the_screen_left_goes_with_it() {
    let mut app = app_in_review();
    app.update(key(KeyCode::Char('d')));
    app.update(key(KeyCode::Esc));
    assert!(shown(&app).unwrap().contains("Esc again"));
    // The second Esc discards and leaves: the warning about the edits is void.
    app.update(key(KeyCode::Esc));
    assert!(!matches!(app.screen, Screen::Review(_)));
    assert_eq!(shown(&app), None);
    assert!(app.notices.iter().any(|n| n.text.contains("Esc again")));
}

#[test]
pub(crate) fn a_flood_of_notices_keeps_the_queue_bounded_and_the_logs_pane_keeps_them_all() {
    let mut app = ready_app();
    for n in 0..50 {
        app.notify(format!("Notice number {n}."));
    }
    assert_eq!(app.queued_notices.len(), QUEUED_NOTICES);
    assert_eq!(
        app.latest_notice().map(|n| n.text.as_str()),
        Some("Notice number 49.")
    );
    assert_eq!(app.notices.len(), 50);
}
