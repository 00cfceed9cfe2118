//! Images drawn as images: mcpick in a PTY that answers the terminal's queries as kitty
//! does, and one configured with `image_protocol = "none"`; what reaches the terminal is
//! checked byte for byte.

use crate::common::pty::*;
use crate::common::*;

/// A kitty graphics sequence's start (APC G).
const KITTY_APC: &[u8] = b"\x1b_G";
/// The start of the transmission of a picture's pixels (ratatui-image's virtual placement).
const KITTY_TRANSMIT: &[u8] = b"\x1b_Gq=2,i=";
/// The cell kitty draws a virtual placement's pixels in.
const KITTY_PLACEHOLDER: &str = "\u{10EEEE}";

fn count(haystack: &[u8], needle: &[u8]) -> usize {
    haystack
        .windows(needle.len())
        .filter(|w| *w == needle)
        .count()
}

/// The sandbox with tests/peers/image_server.py as `images` and `image_protocol` set.
fn sandbox(image_protocol: &str) -> Sandbox {
    Sandbox::new(&format!(
        "image_protocol = {}\n[servers.images]\ncommand = {}\nargs = [{}]\n",
        toml_str(image_protocol),
        toml_str(python3()),
        toml_str(root().join("tests/peers/image_server.py").to_string_lossy())
    ))
}

/// Opens `images:NAME` (no arguments: straight to the review) and waits for `needle`.
fn open(tui: &mut Tui, name: &str, needle: &str) -> String {
    tui.wait_for("● images 6", SERVER_START);
    open_prompt(tui, name, &format!("/images:{name}"));
    tui.wait_for(needle, STEP)
}

#[test]
fn a_kitty_terminal_gets_the_picture_as_kitty_graphics() {
    let sandbox = sandbox("auto");
    let mut tui = Tui::start_in(&sandbox, &[], Answers::kitty());
    // The answers were read by the detection: none of them reached the search line as keys.
    let menu = tui.wait_for("● images 6", SERVER_START);
    let search = menu
        .lines()
        .find(|l| l.starts_with('❯'))
        .unwrap_or_default();
    // The empty search line shows its hint; a typed answer would replace it.
    assert!(
        search.starts_with("❯ type to search"),
        "answers typed as keys:\n{menu}"
    );
    assert_eq!(count(&tui.raw(), KITTY_APC), 1, "only the query so far");

    let review = open(&mut tui, "picture", "image/png · 64×48 px");
    assert!(
        review.contains("image/png · 64×48 px · ") && review.contains("w saves the bytes"),
        "{review}"
    );
    // The picture: transmitted once, then drawn in kitty's placeholder cells.
    let screen = tui.wait_until("the picture's cells", STEP, |s| {
        s.contains(KITTY_PLACEHOLDER)
    });
    let raw = tui.raw();
    assert_eq!(count(&raw, KITTY_TRANSMIT), 1, "{screen}");
    let at = raw
        .windows(KITTY_TRANSMIT.len())
        .position(|w| w == KITTY_TRANSMIT)
        .unwrap();
    let head = String::from_utf8_lossy(&raw[at..(at + 80).min(raw.len())]).into_owned();
    // 64×48 px at the 10×20 px cells the terminal told: 7×3 cells, sent as RGBA (f=32)
    // padded to whole cells (70×60).
    assert!(head.contains("a=T,U=1,f=32,t=d,s=70,v=60,"), "{head:?}");
    let rows: Vec<&str> = screen
        .lines()
        .filter(|l| l.contains(KITTY_PLACEHOLDER))
        .collect();
    assert_eq!(rows.len(), 3, "{screen}");
    assert!(!screen.contains("decoding…"), "{screen}");

    // Going back leaves no picture cell behind, and drawing it again sends nothing new.
    tui.send_esc();
    let form_or_menu = tui.wait_gone("image/png · 64×48 px", STEP);
    assert!(!form_or_menu.contains(KITTY_PLACEHOLDER), "{form_or_menu}");
    tui.send(CTRL_C);
    tui.wait_exit(STEP);
    assert_eq!(count(&tui.raw(), KITTY_TRANSMIT), 1);
}

#[test]
fn a_server_cannot_send_kitty_graphics_through_its_text() {
    let sandbox = sandbox("auto");
    let mut tui = Tui::start_in(&sandbox, &[], Answers::kitty());
    let review = open(&mut tui, "sneaky", "draw ");
    assert!(
        review.contains("␛_Gi=99"),
        "the sequence is shown, not sent:\n{review}"
    );
    tui.send(CTRL_C);
    tui.wait_exit(STEP);
    assert_eq!(count(&tui.raw(), b"\x1b_Gi=99"), 0);
    assert_eq!(count(&tui.raw(), KITTY_APC), 1, "only mcpick's query");
}

#[test]
fn image_protocol_none_sends_no_graphics_and_no_graphics_query() {
    let sandbox = sandbox("none");
    let mut tui = Tui::start_in(&sandbox, &[], Answers::kitty());
    let review = open(
        &mut tui,
        "blob",
        "resource file:///gradient.png · image/png · 64×48 px",
    );
    assert!(
        !review.contains("[image"),
        "no rows kept for a picture:\n{review}"
    );
    tui.send(CTRL_C);
    tui.wait_exit(STEP);
    let raw = tui.raw();
    assert_eq!(count(&raw, KITTY_APC), 0);
    assert_eq!(
        count(&raw, b"\x1b[16t") + count(&raw, b"\x1b[14t"),
        0,
        "a graphics query was sent"
    );
    // Only the theme's question (base = "auto"): the background, then DA1 to end the wait.
    assert_eq!(count(&raw, b"\x1b]11;?\x1b\\\x1b[c"), 1);
}

#[test]
fn half_blocks_draw_the_picture_and_bad_images_are_lines() {
    let sandbox = sandbox("halfblocks");
    let mut tui = Tui::start_in(&sandbox, &[], Answers::kitty());
    open(
        &mut tui,
        "blob",
        "resource file:///gradient.png · image/png · 64×48 px",
    );
    let half = |l: &str| l.contains('▀') || l.contains('▄');
    let screen = tui.wait_until("the half-blocks", STEP, |s| s.lines().any(half));
    let rows = screen.lines().filter(|l| half(l)).count();
    // A half-block cell shows 1×2 pixels: 48 pixels high is 24 rows, capped at 16.
    assert_eq!(rows, 16, "{screen}");
    tui.send_esc();
    tui.wait_gone("gradient.png", STEP);
    tui.send_esc();
    // The broken one: one line saying why, and mcpick still runs.
    tui.send("\x15");
    open_prompt(&mut tui, "broken", "/images:broken");
    let broken = tui.wait_for("[image not drawn:", STEP);
    assert!(broken.contains("not a format mcpick decodes"), "{broken}");
    tui.send_esc();
    tui.wait_gone("[image not drawn:", STEP);
    tui.send_esc();
    tui.send("\x15");
    open_prompt(&mut tui, "huge", "/images:huge");
    let huge = tui.wait_for("50-megapixel budget", STEP);
    assert!(huge.contains("10000×6000"), "{huge}");
    tui.send(CTRL_C);
    assert_eq!(tui.wait_exit(STEP), 130);
    assert_eq!(
        count(&tui.raw(), KITTY_APC),
        0,
        "no query with an explicit protocol"
    );
}

#[test]
fn inline_mode_starts_with_the_query_answered_and_nothing_leaks() {
    let sandbox = sandbox("auto");
    let mut tui = Tui::start_in(&sandbox, &["--height", "20"], Answers::kitty());
    let menu = tui.wait_for("● images 6", SERVER_START);
    let search = menu
        .lines()
        .find(|l| l.starts_with('❯'))
        .unwrap_or_default();
    // The empty search line shows its hint; a typed answer would replace it.
    assert!(
        search.starts_with("❯ type to search"),
        "answers typed as keys:\n{menu}"
    );
    assert!(!menu.contains("62;22") && !menu.contains("OK"), "{menu}");
    tui.send(CTRL_C);
    assert_eq!(tui.wait_exit(STEP), 130);
}

#[test]
fn the_terminal_is_asked_through_dev_tty_when_stdin_is_a_pipe() {
    let sandbox = sandbox("auto");
    let mut command = portable_pty::CommandBuilder::new("sh");
    command.arg("-c");
    command.arg(format!(
        "echo piped | exec {} --config {} images/picture",
        sh_quote(env!("CARGO_BIN_EXE_mcpick")),
        sh_quote(sandbox.config().to_string_lossy())
    ));
    let mut tui = Tui::spawn_answering(&sandbox, command, Answers::kitty());
    // The answers came through /dev/tty: kitty, so the picture is kitty's placeholder cells.
    let screen = tui.wait_until("the picture's cells", SERVER_START, |s| {
        s.contains(KITTY_PLACEHOLDER)
    });
    assert!(screen.contains("image/png · 64×48 px"), "{screen}");
    assert_eq!(count(&tui.raw(), KITTY_TRANSMIT), 1);
    tui.send(CTRL_C);
    tui.wait_exit(STEP);
}

#[test]
fn keys_typed_while_a_silent_terminal_is_asked_are_not_lost() {
    let sandbox = sandbox("auto");
    // A terminal that answers nothing: the query waits its whole 150 ms after the first
    // frame, and the keys sent at once land in that wait.
    let mut tui = Tui::start_in(&sandbox, &[], Answers::default());
    tui.wait_for("type to search", SERVER_START);
    tui.send("lar");
    tui.wait_for("❯ lar", STEP);
    tui.send(CTRL_C);
    assert_eq!(tui.wait_exit(STEP), 130);
}
