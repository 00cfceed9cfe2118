//! Which graphics protocol the terminal speaks, asked once at start through `/dev/tty`
//! (never stdin), before the event reader starts, so the answers are read here and never
//! arrive as keys. A short timeout bounds it; the DA1 answer (which every terminal sends,
//! after the others it answers) ends it at once. Answers that come later reach the event
//! reader, which tells them from keys ([`super::answers`]).

use std::io::{Read, Write};
use std::os::fd::AsFd;
use std::time::{Duration, Instant};

use ratatui_image::picker::ProtocolType;

use crate::app::images::{DEFAULT_FONT, Graphics};
use crate::config::ImageProtocol;

/// The longest the queries are waited for (a terminal that answers does in a few ms).
const QUERY_TIMEOUT: Duration = Duration::from_millis(150);

/// The image id of the kitty query (any number: the answer echoes it).
const KITTY_QUERY_ID: u32 = 31;

/// The queries, in the order terminals answer them: a kitty graphics query (a 1×1 RGB
/// pixel, `a=q`: checked, never stored), the cell size in pixels, the text area in pixels,
/// then DA1 last. Inside a multiplexer the kitty query is left out: it is an APC string,
/// which tmux takes as a new pane title and screen as its hardstatus line, and neither
/// draws kitty images anyway; the CSI queries are answered or ignored, changing nothing.
pub fn queries(environment: &TerminalEnv) -> String {
    let kitty = if environment.multiplexer() {
        String::new()
    } else {
        format!("\x1b_Gi={KITTY_QUERY_ID},s=1,v=1,a=q,t=d,f=24;AAAA\x1b\\")
    };
    format!("{kitty}\x1b[16t\x1b[14t{BACKGROUND_QUERY}\x1b[c")
}

/// OSC 11: "what is your background colour?", answered `ESC ] 11 ; rgb:RRRR/GGGG/BBBB`
/// then BEL or `ESC \` (as bat and delta ask it); terminals that do not know it say
/// nothing, and DA1 after it ends the wait.
pub const BACKGROUND_QUERY: &str = "\x1b]11;?\x1b\\";

/// The queries sent when pictures need none (an explicit `image_protocol`) but the theme
/// wants the background: OSC 11, then DA1 to end the wait.
pub fn background_queries() -> String {
    format!("{BACKGROUND_QUERY}\x1b[c")
}

/// The relative luminance (0 black … 1 white) of an OSC 11 answer's colour,
/// `rgb:R/G/B` with 1 to 4 hex digits a channel.
pub(super) fn background_luminance(body: &[u8]) -> Option<f64> {
    let text = std::str::from_utf8(body).ok()?;
    let colour = text.strip_prefix("11;")?.strip_prefix("rgb:")?;
    let channels: Vec<f64> = colour
        .split('/')
        .map(|hex| {
            let value = u32::from_str_radix(hex, 16).ok()?;
            let max = (1u32 << (4 * hex.len().clamp(1, 4))) - 1;
            Some(f64::from(value) / f64::from(max) * 255.0)
        })
        .collect::<Option<_>>()?;
    let [r, g, b] = channels[..] else {
        return None;
    };
    Some(crate::render::relative_luminance(r, g, b))
}

/// What the terminal answered.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Replies {
    /// The kitty query's answer: `Some(true)` for `OK`, `Some(false)` for an error.
    pub kitty: Option<bool>,
    /// DA1's attributes (`ESC [ ? 62 ; 4 ; 22 c`); 4 is sixel.
    pub da1: Option<Vec<u16>>,
    /// A cell's size in pixels (width, height), from `CSI 16 t`.
    pub cell: Option<(u16, u16)>,
    /// The text area's size in pixels (width, height), from `CSI 14 t`.
    pub window: Option<(u16, u16)>,
    /// The background's relative luminance (0 black … 1 white), from OSC 11.
    pub background: Option<f64>,
    /// The bytes that were no answer: keys typed meanwhile, given to the app afterwards.
    pub typed: Vec<u8>,
}

impl Replies {
    /// Whether DA1 says sixel.
    pub fn sixel(&self) -> bool {
        self.da1.as_ref().is_some_and(|a| a.contains(&4))
    }
}

/// The answers found in `bytes` (complete ones; garbage and a cut-off tail are skipped).
pub fn parse_replies(bytes: &[u8]) -> Replies {
    let mut replies = Replies::default();
    let mut at = 0;
    while let Some(offset) = bytes[at..].iter().position(|&b| b == 0x1b) {
        let start = at + offset;
        replies.typed.extend_from_slice(&bytes[at..start]);
        let rest = &bytes[start..];
        if let Some(body) = rest.strip_prefix(b"\x1b_G") {
            // APC: up to the string terminator `ESC \`.
            let Some(end) = body.windows(2).position(|w| w == b"\x1b\\") else {
                at = bytes.len();
                break;
            };
            let reply = &body[..end];
            if let Some(semicolon) = reply.iter().position(|&b| b == b';') {
                let keys = &reply[..semicolon];
                let ours = keys
                    .split(|&b| b == b',')
                    .any(|k| k == format!("i={KITTY_QUERY_ID}").as_bytes());
                if ours {
                    replies.kitty = Some(reply[semicolon + 1..].starts_with(b"OK"));
                }
            }
            at = start + 3 + end + 2;
            continue;
        }
        if let Some(body) = rest.strip_prefix(b"\x1b]") {
            // OSC: up to BEL or the string terminator `ESC \`.
            let end = body.iter().enumerate().find_map(|(at, &b)| match b {
                0x07 => Some((at, 1)),
                0x1b if body.get(at + 1) == Some(&b'\\') => Some((at, 2)),
                _ => None,
            });
            let Some((end, terminator)) = end else {
                at = bytes.len();
                break;
            };
            if let Some(luminance) = background_luminance(&body[..end]) {
                replies.background = Some(luminance);
            }
            at = start + 2 + end + terminator;
            continue;
        }
        if let Some(body) = rest.strip_prefix(b"\x1b[") {
            // CSI: parameters, then one final byte.
            let Some(end) = body.iter().position(|b| (0x40..=0x7e).contains(b)) else {
                // Cut off: a key's sequence as much as an answer's.
                replies.typed.extend_from_slice(rest);
                at = bytes.len();
                break;
            };
            let (params, last) = (&body[..end], body[end]);
            let numbers = |text: &[u8]| -> Option<Vec<u16>> {
                std::str::from_utf8(text)
                    .ok()?
                    .split(';')
                    .map(|n| n.parse::<u16>().ok())
                    .collect()
            };
            match (last, params.first()) {
                (b'c', Some(b'?')) => replies.da1 = numbers(&params[1..]).or(Some(Vec::new())),
                (b't', _) => match numbers(params).as_deref() {
                    Some([6, height, width]) if *height > 0 && *width > 0 => {
                        replies.cell = Some((*width, *height))
                    }
                    Some([4, height, width]) if *height > 0 && *width > 0 => {
                        replies.window = Some((*width, *height))
                    }
                    _ => {}
                },
                // Not an answer: a key (an arrow, say).
                _ => replies.typed.extend_from_slice(&rest[..2 + end + 1]),
            }
            at = start + 2 + end + 1;
            continue;
        }
        replies.typed.push(0x1b);
        at = start + 1;
    }
    replies
        .typed
        .extend_from_slice(&bytes[at.min(bytes.len())..]);
    replies
}

/// The keys in bytes typed while the answers were awaited (read by the query, so the event
/// reader never sees them): characters, Enter, Tab, Backspace, Esc, Ctrl-letters and the
/// arrows; anything else is dropped.
pub fn typed_keys(bytes: &[u8]) -> Vec<crossterm::event::KeyEvent> {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    let text = String::from_utf8_lossy(bytes);
    let mut chars = text.chars().peekable();
    let mut keys = Vec::new();
    let plain = |code| KeyEvent::new(code, KeyModifiers::NONE);
    while let Some(c) = chars.next() {
        let key = match c {
            '\x1b' if chars.peek() == Some(&'[') => {
                chars.next();
                let mut last = None;
                for c in chars.by_ref() {
                    if ('\x40'..='\x7e').contains(&c) {
                        last = Some(c);
                        break;
                    }
                }
                match last {
                    Some('A') => plain(KeyCode::Up),
                    Some('B') => plain(KeyCode::Down),
                    Some('C') => plain(KeyCode::Right),
                    Some('D') => plain(KeyCode::Left),
                    Some('H') => plain(KeyCode::Home),
                    Some('F') => plain(KeyCode::End),
                    _ => continue,
                }
            }
            '\x1b' => plain(KeyCode::Esc),
            '\r' | '\n' => plain(KeyCode::Enter),
            '\t' => plain(KeyCode::Tab),
            '\x7f' | '\x08' => plain(KeyCode::Backspace),
            '\x01'..='\x1a' => KeyEvent::new(
                KeyCode::Char(char::from(c as u8 - 1 + b'a')),
                KeyModifiers::CONTROL,
            ),
            c if c.is_control() => continue,
            c => plain(KeyCode::Char(c)),
        };
        keys.push(key);
    }
    keys
}

/// What the environment tells about the terminal.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TerminalEnv {
    /// Inside tmux (`$TMUX`): the answers are tmux's own.
    pub tmux: bool,
    /// Inside GNU screen (`$STY`) or zellij (`$ZELLIJ`), which also answer for the
    /// terminal and take APC strings for themselves.
    pub other_multiplexer: bool,
    /// iTerm2's inline images are spoken (`TERM_PROGRAM` iTerm.app or WezTerm, `LC_TERMINAL`
    /// iTerm2).
    pub iterm2: bool,
    /// Konsole (`KONSOLE_VERSION`): its kitty and sixel support draws wrongly.
    pub konsole: bool,
}

impl TerminalEnv {
    /// Whether a terminal multiplexer stands between mcpick and the terminal.
    pub fn multiplexer(&self) -> bool {
        self.tmux || self.other_multiplexer
    }

    /// This process's environment.
    pub fn detect() -> TerminalEnv {
        let var = |name: &str| std::env::var(name).unwrap_or_default();
        let program = var("TERM_PROGRAM");
        TerminalEnv {
            tmux: !var("TMUX").is_empty(),
            other_multiplexer: !var("STY").is_empty() || std::env::var_os("ZELLIJ").is_some(),
            iterm2: matches!(program.as_str(), "iTerm.app" | "WezTerm")
                || var("LC_TERMINAL") == "iTerm2"
                || !var("WEZTERM_EXECUTABLE").is_empty(),
            konsole: !var("KONSOLE_VERSION").is_empty(),
        }
    }
}

/// The protocol and cell size for what the terminal answered: iTerm2 where the
/// environment names it, kitty where the kitty query was OK, sixel where DA1 says 4,
/// half-blocks elsewhere (also inside tmux, whose answers are its own: kitty fails there).
/// `columns` × `rows` and `window_px` (the winsize ioctl) size a cell when `CSI 16 t` did not.
pub fn choose(
    replies: &Replies,
    environment: &TerminalEnv,
    (columns, rows): (u16, u16),
    window_px: Option<(u16, u16)>,
) -> Graphics {
    let per_cell = |(width, height): (u16, u16)| {
        (columns > 0 && rows > 0 && width >= columns && height >= rows)
            .then(|| (width / columns, height / rows))
    };
    let font = replies
        .cell
        .or_else(|| replies.window.and_then(per_cell))
        .or_else(|| window_px.and_then(per_cell));
    let protocol = if environment.iterm2 && !environment.tmux {
        ProtocolType::Iterm2
    } else if replies.kitty == Some(true) && !environment.konsole {
        ProtocolType::Kitty
    } else if replies.sixel() && !environment.konsole {
        ProtocolType::Sixel
    } else {
        ProtocolType::Halfblocks
    };
    // A pixel protocol without a known cell size draws at the wrong size.
    let protocol = match (protocol, font) {
        (ProtocolType::Halfblocks, _) | (_, Some(_)) => protocol,
        (_, None) => ProtocolType::Halfblocks,
    };
    Graphics {
        protocol: Some(protocol),
        font: font.unwrap_or(DEFAULT_FONT),
    }
}

/// The terminal's size in cells and (from the winsize ioctl) in pixels, if it tells.
fn window_size() -> ((u16, u16), Option<(u16, u16)>) {
    match crossterm::terminal::window_size() {
        Ok(size) => (
            (size.columns, size.rows),
            (size.width > 0 && size.height > 0).then_some((size.width, size.height)),
        ),
        Err(_) => (crossterm::terminal::size().unwrap_or((0, 0)), None),
    }
}

/// What the terminal told at start: how pictures are drawn, the keys typed meanwhile,
/// and its background's luminance when asked for and answered.
pub struct Detected {
    /// How pictures are drawn.
    pub graphics: Graphics,
    /// Bytes typed while the answers were awaited.
    pub typed: Vec<u8>,
    /// The background's relative luminance (OSC 11), when it answered.
    pub background: Option<f64>,
}

/// How pictures are drawn, as the config says, and (with `background`) the terminal's
/// background: an explicit protocol sends no graphics query (the cell size then comes
/// from the winsize ioctl); `auto` asks the terminal through `/dev/tty` (raw mode already
/// on) and waits at most [`QUERY_TIMEOUT`], as does the background query alone.
pub fn detect_all(setting: ImageProtocol, background: bool) -> Detected {
    let (graphics, typed, answered) = detect(setting);
    let mut detected = Detected {
        graphics,
        typed,
        background: answered,
    };
    if setting != ImageProtocol::Auto && background {
        match query_tty_with(&background_queries(), QUERY_TIMEOUT) {
            Ok(replies) => {
                detected.background = replies.background;
                detected.typed = replies.typed;
            }
            Err(error) => tracing::info!(%error, "cannot ask the terminal for its background"),
        }
    }
    detected
}

/// How pictures are drawn, as the config says: an explicit protocol sends no query (the
/// cell size then comes from the winsize ioctl); `auto` asks the terminal through
/// `/dev/tty` (raw mode already on) and waits at most [`QUERY_TIMEOUT`]; its answers
/// also hold the background's luminance (OSC 11), when the terminal told.
fn detect(setting: ImageProtocol) -> (Graphics, Vec<u8>, Option<f64>) {
    let (cells, window_px) = window_size();
    let font = choose(
        &Replies::default(),
        &TerminalEnv::default(),
        cells,
        window_px,
    )
    .font;
    let fixed = |protocol| Graphics {
        protocol: Some(protocol),
        font,
    };
    let graphics = match setting {
        ImageProtocol::None => Graphics {
            protocol: None,
            font,
        },
        ImageProtocol::Kitty => fixed(ProtocolType::Kitty),
        ImageProtocol::Iterm2 => fixed(ProtocolType::Iterm2),
        ImageProtocol::Sixel => fixed(ProtocolType::Sixel),
        ImageProtocol::Halfblocks => fixed(ProtocolType::Halfblocks),
        ImageProtocol::Auto => {
            let replies = match query_tty(QUERY_TIMEOUT) {
                Ok(replies) => replies,
                Err(error) => {
                    tracing::info!(%error, "cannot ask the terminal about graphics");
                    Replies::default()
                }
            };
            let graphics = choose(&replies, &TerminalEnv::detect(), cells, window_px);
            tracing::info!(?replies, ?graphics, "graphics detected");
            return (graphics, replies.typed, replies.background);
        }
    };
    (graphics, Vec::new(), None)
}

/// Asks the terminal through `/dev/tty` what it draws and what its background is, as the
/// menu does at start (raw mode on for the wait, then off again), waiting at most
/// `timeout`: for `mcpick doctor`. No terminal is an error at once.
pub fn ask_terminal(timeout: Duration) -> std::io::Result<(Replies, Graphics)> {
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")?;
    /// Cooked mode back however the wait ends (an error, a panic).
    struct Raw;
    impl Drop for Raw {
        fn drop(&mut self) {
            let _ = crossterm::terminal::disable_raw_mode();
        }
    }
    crossterm::terminal::enable_raw_mode()?;
    let raw = Raw;
    let replies = query_tty(timeout);
    drop(raw);
    let replies = replies?;
    let (cells, window_px) = window_size();
    let graphics = choose(&replies, &TerminalEnv::detect(), cells, window_px);
    Ok((replies, graphics))
}

/// Writes [`queries`] to `/dev/tty` and reads the answers until DA1's arrives or `timeout`
/// passes. Never stdin, never blocking: no tty is an error at once.
fn query_tty(timeout: Duration) -> std::io::Result<Replies> {
    query_tty_with(&queries(&TerminalEnv::detect()), timeout)
}

/// Writes `queries` (ending in DA1) to `/dev/tty` and reads the answers as [`query_tty`].
fn query_tty_with(queries: &str, timeout: Duration) -> std::io::Result<Replies> {
    let mut tty = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")?;
    tty.write_all(queries.as_bytes())?;
    tty.flush()?;
    read_replies(&mut tty, timeout)
}

/// Reads from `tty` until the answers hold DA1's or `timeout` passes.
fn read_replies(tty: &mut std::fs::File, timeout: Duration) -> std::io::Result<Replies> {
    let deadline = Instant::now() + timeout;
    let mut answer = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Ok(parse_replies(&answer));
        }
        if !crate::sys::tty::wait_readable(tty.as_fd(), left)? {
            return Ok(parse_replies(&answer));
        }
        let mut chunk = [0u8; 256];
        let n = tty.read(&mut chunk)?;
        if n == 0 {
            return Ok(parse_replies(&answer));
        }
        answer.extend_from_slice(&chunk[..n]);
        let replies = parse_replies(&answer);
        if replies.da1.is_some() {
            return Ok(replies);
        }
        // A terminal that streams something else forever is not waited on past the cap.
        if answer.len() > 64 * 1024 {
            return Ok(replies);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KITTY_OK: &[u8] = b"\x1b_Gi=31;OK\x1b\\";
    const KITTY_ERROR: &[u8] = b"\x1b_Gi=31;ENOENT:unsupported\x1b\\";
    const CELL: &[u8] = b"\x1b[6;20;10t";
    const WINDOW: &[u8] = b"\x1b[4;800;1200t";
    const DA1_SIXEL: &[u8] = b"\x1b[?62;4;22c";
    const DA1_PLAIN: &[u8] = b"\x1b[?62;22c";

    fn joined(parts: &[&[u8]]) -> Vec<u8> {
        parts.concat()
    }

    #[test]
    fn the_background_is_read_from_an_osc_11_answer_ended_either_way() {
        let white = parse_replies(b"\x1b]11;rgb:ffff/ffff/ffff\x07\x1b[?62;22c");
        assert!((white.background.unwrap() - 1.0).abs() < 1e-6);
        let dark = parse_replies(b"\x1b]11;rgb:1e/1e/1e\x1b\\\x1b[?62;22c");
        assert!(dark.background.unwrap() < 0.02);
        assert_eq!(dark.da1, Some(vec![62, 22]));
        // Keys typed around it are kept; garbage is no background.
        let typed = parse_replies(b"ab\x1b]11;rgb:zz/00/00\x07c\x1b[?62c");
        assert_eq!(typed.background, None);
        assert_eq!(typed.typed, b"abc");
    }

    #[test]
    fn inside_a_multiplexer_no_apc_string_is_sent() {
        let plain = queries(&TerminalEnv::default());
        assert!(plain.starts_with("\x1b_G"), "{plain:?}");
        for environment in [
            TerminalEnv {
                tmux: true,
                ..TerminalEnv::default()
            },
            TerminalEnv {
                other_multiplexer: true,
                ..TerminalEnv::default()
            },
        ] {
            let sent = queries(&environment);
            assert!(!sent.contains("\x1b_"), "{sent:?}");
            assert_eq!(sent, "\x1b[16t\x1b[14t\x1b]11;?\x1b\\\x1b[c");
        }
    }

    #[test]
    fn a_kitty_terminal_answers_ok_and_its_cell_size() {
        let replies = parse_replies(&joined(&[KITTY_OK, CELL, WINDOW, DA1_PLAIN]));
        assert_eq!(replies.kitty, Some(true));
        assert_eq!(replies.cell, Some((10, 20)));
        assert_eq!(replies.window, Some((1200, 800)));
        assert_eq!(replies.da1, Some(vec![62, 22]));
        assert!(!replies.sixel());
        let graphics = choose(&replies, &TerminalEnv::default(), (120, 40), None);
        assert_eq!(graphics.protocol, Some(ProtocolType::Kitty));
        assert_eq!(graphics.font, (10, 20));
    }

    #[test]
    fn a_kitty_error_is_not_kitty_and_da1_4_is_sixel() {
        let replies = parse_replies(&joined(&[KITTY_ERROR, DA1_SIXEL]));
        assert_eq!(replies.kitty, Some(false));
        assert!(replies.sixel());
        // No cell size from CSI 16 t: the text area over the cells gives it.
        let graphics = choose(
            &replies,
            &TerminalEnv::default(),
            (100, 50),
            Some((900, 900)),
        );
        assert_eq!(graphics.protocol, Some(ProtocolType::Sixel));
        assert_eq!(graphics.font, (9, 18));
    }

    #[test]
    fn only_da1_means_half_blocks_and_the_default_cell() {
        let replies = parse_replies(DA1_PLAIN);
        assert_eq!(replies.kitty, None);
        let graphics = choose(&replies, &TerminalEnv::default(), (80, 24), None);
        assert_eq!(graphics.protocol, Some(ProtocolType::Halfblocks));
        assert_eq!(graphics.font, DEFAULT_FONT);
        // Sixel without any cell size would draw at the wrong size: half-blocks.
        let sixel = parse_replies(DA1_SIXEL);
        let graphics = choose(&sixel, &TerminalEnv::default(), (80, 24), None);
        assert_eq!(graphics.protocol, Some(ProtocolType::Halfblocks));
    }

    #[test]
    fn garbage_and_keys_around_the_answers_are_skipped() {
        let bytes = joined(&[b"ab\x1b\x1bq\x1b[A", KITTY_OK, b"\xff\xfe", CELL, DA1_SIXEL]);
        let replies = parse_replies(&bytes);
        assert_eq!(replies.kitty, Some(true));
        assert_eq!(replies.cell, Some((10, 20)));
        assert!(replies.sixel());
        // Another image id's answer is not ours.
        assert_eq!(parse_replies(b"\x1b_Gi=7;OK\x1b\\").kitty, None);
        // A size report with a zero or a wrong count is no size.
        assert_eq!(parse_replies(b"\x1b[6;0;10t\x1b[6;20t").cell, None);
        assert_eq!(parse_replies(b"just text").typed, b"just text");
        assert_eq!(parse_replies(b"just text").da1, None);
    }

    #[test]
    fn keys_typed_around_the_answers_are_kept_for_the_app() {
        use crossterm::event::{KeyCode, KeyModifiers};
        let bytes = joined(&[
            b"ab",
            KITTY_OK,
            b"\r\x1b[A",
            CELL,
            b"\x03\x7f\x1b",
            DA1_PLAIN,
        ]);
        let replies = parse_replies(&bytes);
        assert_eq!(replies.kitty, Some(true));
        assert_eq!(replies.typed, b"ab\r\x1b[A\x03\x7f\x1b");
        let keys: Vec<_> = typed_keys(&replies.typed)
            .into_iter()
            .map(|k| (k.code, k.modifiers))
            .collect();
        assert_eq!(
            keys,
            [
                (KeyCode::Char('a'), KeyModifiers::NONE),
                (KeyCode::Char('b'), KeyModifiers::NONE),
                (KeyCode::Enter, KeyModifiers::NONE),
                (KeyCode::Up, KeyModifiers::NONE),
                (KeyCode::Char('c'), KeyModifiers::CONTROL),
                (KeyCode::Backspace, KeyModifiers::NONE),
                (KeyCode::Esc, KeyModifiers::NONE),
            ]
        );
        // Nothing but answers: nothing typed.
        assert!(
            parse_replies(&joined(&[KITTY_OK, CELL, DA1_SIXEL]))
                .typed
                .is_empty()
        );
    }

    #[test]
    fn partial_replies_count_only_once_complete() {
        let whole = joined(&[KITTY_OK, CELL, DA1_SIXEL]);
        for cut in 0..whole.len() {
            let replies = parse_replies(&whole[..cut]);
            // DA1 is last: until its final byte it is not there, and the loop waits.
            assert_eq!(replies.da1.is_some(), cut == whole.len(), "cut at {cut}");
            if cut < KITTY_OK.len() {
                assert_eq!(replies.kitty, None, "cut at {cut}");
            }
        }
        assert_eq!(parse_replies(&whole).da1, Some(vec![62, 4, 22]));
    }

    #[test]
    fn tmux_answers_for_itself_and_iterm2_goes_by_its_name() {
        // tmux does not pass the kitty query on: no answer, and sixel only if tmux says so.
        let tmux = TerminalEnv {
            tmux: true,
            ..TerminalEnv::default()
        };
        let replies = parse_replies(&joined(&[CELL, DA1_PLAIN]));
        assert_eq!(
            choose(&replies, &tmux, (80, 24), None).protocol,
            Some(ProtocolType::Halfblocks)
        );
        let iterm = TerminalEnv {
            iterm2: true,
            ..TerminalEnv::default()
        };
        assert_eq!(
            choose(&replies, &iterm, (80, 24), None).protocol,
            Some(ProtocolType::Iterm2)
        );
        let konsole = TerminalEnv {
            konsole: true,
            ..TerminalEnv::default()
        };
        let kitty = parse_replies(&joined(&[KITTY_OK, CELL, DA1_SIXEL]));
        assert_eq!(
            choose(&kitty, &konsole, (80, 24), None).protocol,
            Some(ProtocolType::Halfblocks)
        );
    }

    #[test]
    fn a_silent_terminal_times_out_quickly_with_nothing() {
        // A pty nobody answers on: the read gives up at the timeout.
        let pty = nix::pty::openpty(None, None).expect("a pty");
        let mut tty = std::fs::File::from(pty.slave);
        let started = Instant::now();
        let replies = read_replies(&mut tty, Duration::from_millis(120)).expect("read");
        let took = started.elapsed();
        assert_eq!(replies, Replies::default());
        assert!(took >= Duration::from_millis(100), "{took:?}");
        assert!(took < Duration::from_millis(1000), "{took:?}");
        drop(pty.master);
    }

    #[test]
    fn reading_stops_as_soon_as_da1_arrives() {
        let pty = nix::pty::openpty(None, None).expect("a pty");
        let mut master = std::fs::File::from(pty.master);
        let mut tty = std::fs::File::from(pty.slave);
        // Raw, so the answer is not held back for a line end.
        let mut termios = nix::sys::termios::tcgetattr(&tty).expect("termios");
        nix::sys::termios::cfmakeraw(&mut termios);
        nix::sys::termios::tcsetattr(&tty, nix::sys::termios::SetArg::TCSANOW, &termios)
            .expect("raw");
        master
            .write_all(&joined(&[KITTY_OK, CELL, DA1_PLAIN]))
            .expect("write");
        let started = Instant::now();
        let replies = read_replies(&mut tty, Duration::from_secs(5)).expect("read");
        assert!(started.elapsed() < Duration::from_secs(1));
        assert_eq!(replies.kitty, Some(true));
        assert_eq!(replies.cell, Some((10, 20)));
    }
}
