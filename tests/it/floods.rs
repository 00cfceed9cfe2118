//! Chaos, floods: a server flooding notifications, stderr or list changes, next to a
//! healthy one (tests/peers/chaos_server.py). Requests still go through, the menu stays
//! usable, and memory and the log stay bounded (see chaos.rs for the rest of the chaos).

use std::time::{Duration, Instant};

use crate::chaos::*;
use crate::common::pty::*;

#[test]
fn a_notification_flood_does_not_stop_requests_or_grow_memory() {
    // The server floods for as long as the answer is delayed.
    let chaos = Chaos::new("notify-flood,slow:3000", "timeout_ms = 20000");
    let run = chaos.run(&["get", "chaos/greet", "name=Ann"]);
    assert_eq!(run.success(), "Hello, Ann!\n");
    let sent = chaos.stats("chaos")["notifications_sent"].as_u64().unwrap();
    assert!(sent > 1000, "the flood did not happen: {sent}");
    eprintln!(
        "notify-flood (CLI get): {sent} notifications, VmHWM {} KiB, {:?}",
        run.peak_kib, run.elapsed
    );
    assert!(run.peak_kib < MEMORY_BOUND_KIB, "{} KiB", run.peak_kib);
    still_works(&chaos);
    chaos.assert_gone("chaos");
}

#[test]
fn the_menu_stays_usable_under_a_notification_flood() {
    let chaos = Chaos::new("notify-flood", "");
    let mut tui = chaos.tui(&[]);
    tui.wait_for("● builtin", SERVER_START);
    tui.wait_for("● chaos 2", SERVER_START);
    open_prompt(&mut tui, "/chaos:greet", "/chaos:greet");
    tui.wait_for("name *", STEP);
    tui.send("Ann");
    tui.wait_for("│Ann", STEP);
    tui.send(CTRL_S);
    tui.wait_for("Hello, Ann!", STEP);
    tui.send(CTRL_L);
    tui.wait_for("flood message", STEP);
    // Let the flood run on (200000 notifications in all) while the menu is open.
    let deadline = Instant::now() + Duration::from_secs(20);
    while chaos.stats("chaos")["notifications_sent"]
        .as_u64()
        .unwrap_or(0)
        < 100_000
        && Instant::now() < deadline
    {
        std::thread::sleep(Duration::from_millis(100));
    }
    tui.send_esc();
    tui.wait_for("Hello, Ann!", STEP);
    let peak = vm_hwm_kib(tui.pid()).unwrap();
    let sent = chaos.stats("chaos")["notifications_sent"].as_u64().unwrap();
    eprintln!("notify-flood (menu): {sent} notifications, VmHWM {peak} KiB");
    assert!(peak < MEMORY_BOUND_KIB, "{peak} KiB");
    tui.send(CTRL_C);
    assert_eq!(tui.wait_exit(STEP), 130, "left without a result");
    chaos.assert_gone("chaos");
}

#[test]
fn a_stderr_flood_keeps_the_server_usable_and_its_log_bounded_in_memory() {
    let chaos = Chaos::new("stderr-flood", "");
    let mut tui = chaos.tui(&[]);
    tui.wait_for("● builtin", SERVER_START);
    tui.wait_for("● chaos 2", SERVER_START);
    tui.send(CTRL_L);
    // The end of the flood, after the 8 MiB line without a newline. Showing 200000 lines
    // takes a while in a debug build on a busy machine: waited for as long as the pane moves.
    let logs = wait_while_moving(&mut tui, "chaos: stderr flood over");
    assert!(
        !logs.contains("flood line 0 "),
        "only the last lines are kept:\n{logs}"
    );
    tui.send_esc();
    wait_for_screen(&mut tui, MENU_HINTS);
    open_prompt(&mut tui, "/chaos:greet", "/chaos:greet");
    tui.wait_for("name *", STEP);
    tui.send("Ann");
    tui.wait_for("│Ann", STEP);
    tui.send(CTRL_S);
    tui.wait_for("Hello, Ann!", STEP);
    let peak = vm_hwm_kib(tui.pid()).unwrap();
    eprintln!(
        "stderr-flood (menu): VmHWM {peak} KiB, log on disk {} bytes",
        chaos.log_bytes()
    );
    assert!(peak < MEMORY_BOUND_KIB, "{peak} KiB");
    tui.send(CTRL_C);
    assert_eq!(tui.wait_exit(STEP), 130, "left without a result");
    chaos.assert_gone("chaos");
}

#[test]
fn a_stderr_flood_leaves_a_bounded_log_on_disk() {
    // 1,000,000 lines (about 30 MiB) on stderr while `get` waits.
    let chaos = Chaos::new("stderr-flood:1000000,slow:2000", "timeout_ms = 60000");
    let run = chaos.run(&["get", "chaos/hello"]);
    assert_eq!(run.success(), "hello from chaos\n");
    let log = chaos.log_bytes();
    eprintln!("stderr-flood:1000000 (CLI get): log on disk {log} bytes");
    assert!(log < 16 * 1024 * 1024, "the log grew to {log} bytes");
    // What the file left out is said before exiting, on one line of stderr.
    let err = run.stderr();
    let notes: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("mcpick: the log file left out "))
        .collect();
    assert_eq!(notes.len(), 1, "{err}");
    let count: u64 = notes[0]
        .trim_start_matches("mcpick: the log file left out ")
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count in {:?}", notes[0]));
    assert!(count > 0, "{err}");
    assert!(notes[0].contains(" lines of `chaos` (a flood"), "{err}");
    chaos.assert_gone("chaos");
}

#[test]
fn a_crash_after_a_flood_does_not_promise_the_log_holds_every_line() {
    let chaos = Chaos::new("stderr-flood:50000,exit-mid-request", "");
    let run = chaos.run(&["get", "chaos/hello"]);
    let err = run.stderr();
    assert!(err.contains("its last stderr lines:"), "{err}");
    assert!(!err.contains("all of them are in the log"), "{err}");
    assert!(err.contains("has them up to its flood budget"), "{err}");
    assert!(err.contains("mcpick: the log file left out "), "{err}");
}

#[test]
fn a_list_changed_storm_ends_with_the_last_list() {
    let chaos = Chaos::new("list-storm", "");
    let mut tui = chaos.tui(&[]);
    tui.wait_for("● builtin", SERVER_START);
    tui.wait_for("● chaos", SERVER_START);
    // Requests still work during the storm.
    open_prompt(&mut tui, "/chaos:greet", "/chaos:greet");
    tui.wait_for("name *", STEP);
    tui.send("Ann");
    tui.send(CTRL_S);
    tui.wait_for("Hello, Ann!", STEP);
    back_to_menu(&mut tui);
    // Once it is over, the menu holds the final list.
    search(&mut tui, "storm");
    tui.wait_for("/chaos:storm-final", Duration::from_secs(20));
    let menu = tui.screen();
    assert!(
        !menu
            .lines()
            .any(|l| l.contains("storm-") && !l.contains("storm-final")),
        "an older list is shown:\n{menu}"
    );
    let stats = chaos.stats("chaos");
    let notices = stats["list_changed_sent"].as_u64().unwrap();
    let lists = stats["requests"]["prompts/list"].as_u64().unwrap();
    let peak = vm_hwm_kib(tui.pid()).unwrap();
    eprintln!("list-storm: {notices} notices, {lists} prompts/list, VmHWM {peak} KiB");
    assert!(notices > 100, "no storm: {stats}");
    // Notices coalesce while a refresh is in flight: never more refreshes than notices.
    assert!(lists <= notices + 1, "{stats}");
    assert!(peak < MEMORY_BOUND_KIB, "{peak} KiB");
    tui.send(CTRL_C);
    assert_eq!(tui.wait_exit(STEP), 130, "left without a result");
    chaos.assert_gone("chaos");
}

#[test]
fn a_list_changed_storm_over_a_large_list_does_not_pile_up() {
    // Each refresh is 20000 prompts; a notice every 2 ms for 3 s.
    let chaos = Chaos::new("many:20000,list-storm", "timeout_ms = 60000");
    let mut tui = chaos.tui(&[]);
    tui.wait_for("● builtin", SERVER_START);
    tui.wait_for("● chaos 2000", SERVER_START);
    search(&mut tui, "needle");
    tui.wait_for("/chaos:needle-42", STEP);
    back_to_menu(&mut tui);
    search(&mut tui, "storm-final");
    tui.wait_for("/chaos:storm-final", Duration::from_secs(30));
    let stats = chaos.stats("chaos");
    let peak = vm_hwm_kib(tui.pid()).unwrap();
    eprintln!("list-storm over 20000 prompts: {stats}, VmHWM {peak} KiB");
    let notices = stats["list_changed_sent"].as_u64().unwrap();
    let lists = stats["requests"]["prompts/list"].as_u64().unwrap();
    assert!(lists <= notices + 1, "{stats}");
    assert!(peak < MEMORY_BOUND_KIB, "{peak} KiB");
    tui.send(CTRL_C);
    assert_eq!(tui.wait_exit(STEP), 130, "left without a result");
    chaos.assert_gone("chaos");
}

#[test]
fn a_list_changed_storm_does_not_disturb_a_request() {
    let chaos = Chaos::new("list-storm,slow:2000", "timeout_ms = 20000");
    let run = chaos.run(&["get", "chaos/greet", "name=Ann"]);
    assert_eq!(run.success(), "Hello, Ann!\n");
    assert!(run.peak_kib < MEMORY_BOUND_KIB, "{} KiB", run.peak_kib);
    chaos.assert_gone("chaos");
}
