//! The terminal's late answers, told from keys. The start asks the terminal a few things
//! ([`super::graphics`]) and reads the answers itself for a moment; an answer that comes
//! later (a long round trip over SSH, GNU screen) reaches crossterm's event reader, which
//! reads a string answer as keys: OSC `ESC ] 11;rgb:… ESC \` as Alt-`]`, the characters,
//! then Alt-`\`; the kitty APC `ESC _ G…` as Alt-`_` then characters; a DCS `ESC P…` as
//! Alt-Shift-`P`. (crossterm drops the CSI answers itself: DA1, the size and cursor
//! reports.) [`LateAnswers`] holds such a run of events until it is known to be an answer
//! (swallowed, its background handed on) or not (the keys handed on, in order). It is pure:
//! the caller gives each event's time and asks it to [`LateAnswers::expire`] at its deadline.

use std::time::Duration;

use crossterm::event::{Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

/// The longest pause inside an answer. A terminal writes an answer at once, so its events
/// come together; a pause this long is a person at the keys (Alt-`_` is redo), whose keys
/// then go on, this much later at most.
const GAP: Duration = Duration::from_millis(100);

/// The longest answer body held; a longer one is dropped up to its end.
const LONGEST: usize = 4096;

/// Which string an introducer opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// `ESC ]`: OSC, as the background's answer.
    Osc,
    /// `ESC _`: APC, as the kitty graphics answer.
    Apc,
    /// `ESC P`: DCS (mcpick asks nothing answered so, but a terminal may tell).
    Dcs,
}

/// What the filter hands on.
#[derive(Debug, Clone, PartialEq)]
pub enum Passed {
    /// An event that is no answer, with the time it came.
    Event(Event, Duration),
    /// A late OSC 11 answer: the background's relative luminance (0 black … 1 white).
    Background(f64),
}

#[derive(Debug, Default)]
enum State {
    #[default]
    Idle,
    /// An introducer came, and the body so far may be an answer: its events are held.
    Holding {
        kind: Kind,
        held: Vec<(Event, Duration)>,
        body: String,
    },
    /// What came was an answer for sure but cannot be held (too long, or cut by a pause):
    /// the rest of its body is dropped.
    Dropping { kind: Kind },
}

/// Terminal events in, the events that are no answer (and what late answers told) out,
/// by [`LateAnswers::take`].
#[derive(Debug, Default)]
pub struct LateAnswers {
    state: State,
    /// When the last event came.
    last: Duration,
    out: Vec<Passed>,
}

/// One event as part of a string's body.
enum Part {
    /// A character of the body.
    Char(char),
    /// The terminator: ST (`ESC \`, read as Alt-`\`) or, for OSC, BEL (read as Ctrl-G).
    End,
    /// Anything else: the string is over (or never was one).
    Other,
}

impl LateAnswers {
    /// A filter holding nothing.
    pub fn new() -> LateAnswers {
        LateAnswers::default()
    }

    /// Takes in `event`, which came at `at` (any clock that only goes forward).
    pub fn feed(&mut self, event: Event, at: Duration) {
        if at.saturating_sub(self.last) >= GAP {
            self.give_up();
        }
        self.last = at;
        match std::mem::take(&mut self.state) {
            State::Idle => self.idle(event, at),
            State::Holding {
                kind,
                mut held,
                mut body,
            } => match part(&event, kind) {
                Part::Char(c) => {
                    body.push(c);
                    held.push((event, at));
                    if !may_be(kind, &body) {
                        self.release(held);
                    } else if body.len() > LONGEST {
                        self.state = State::Dropping { kind };
                    } else {
                        self.state = State::Holding { kind, held, body };
                    }
                }
                Part::End => {
                    if kind == Kind::Osc
                        && let Some(luminance) =
                            super::graphics::background_luminance(body.as_bytes())
                    {
                        self.out.push(Passed::Background(luminance));
                    }
                }
                // The string is over short of its end: what was an answer for sure is
                // dropped, what may be keys goes on; then the event, as any.
                Part::Other => {
                    if !past_header(kind, &body) {
                        self.release(held);
                    }
                    self.idle(event, at);
                }
            },
            State::Dropping { kind } => match part(&event, kind) {
                Part::Char(_) => self.state = State::Dropping { kind },
                Part::End => {}
                Part::Other => self.idle(event, at),
            },
        }
    }

    /// When [`LateAnswers::expire`] is due: a pause of [`GAP`] after the last event while
    /// events are held.
    pub fn deadline(&self) -> Option<Duration> {
        matches!(self.state, State::Holding { .. }).then(|| self.last + GAP)
    }

    /// Nothing came until `now`: what is held past its pause is given up (see
    /// [`LateAnswers::feed`]).
    pub fn expire(&mut self, now: Duration) {
        if now.saturating_sub(self.last) >= GAP {
            self.give_up();
            // A pause for dropping counts from here: the rest of a stalled answer may
            // be read next.
            self.last = now;
        }
    }

    /// What is to be handed on, in order.
    pub fn take(&mut self) -> Vec<Passed> {
        std::mem::take(&mut self.out)
    }

    /// An event with nothing held: an introducer starts holding, anything else goes on.
    fn idle(&mut self, event: Event, at: Duration) {
        match introducer(&event) {
            Some(kind) => {
                self.state = State::Holding {
                    kind,
                    held: vec![(event, at)],
                    body: String::new(),
                }
            }
            None => self.out.push(Passed::Event(event, at)),
        }
    }

    /// The string stopped short of its end. A body past its header is an answer cut
    /// short (a stall, a lost byte): dropped, with the rest of it. One that is not yet
    /// may be keys (Alt-`_` then a pause): handed on.
    fn give_up(&mut self) {
        self.state = match std::mem::take(&mut self.state) {
            State::Holding { kind, held, body } => {
                if past_header(kind, &body) {
                    State::Dropping { kind }
                } else {
                    self.release(held);
                    State::Idle
                }
            }
            State::Idle | State::Dropping { .. } => State::Idle,
        };
    }

    fn release(&mut self, held: Vec<(Event, Duration)>) {
        self.out
            .extend(held.into_iter().map(|(event, at)| Passed::Event(event, at)));
    }
}

/// The string `event` opens, if it is an introducer as crossterm reads it.
fn introducer(event: &Event) -> Option<Kind> {
    let Event::Key(key) = event else { return None };
    if key.kind != KeyEventKind::Press {
        return None;
    }
    match (key.code, key.modifiers) {
        (KeyCode::Char(']'), KeyModifiers::ALT) => Some(Kind::Osc),
        (KeyCode::Char('_'), KeyModifiers::ALT) => Some(Kind::Apc),
        (KeyCode::Char('P'), m) if m == KeyModifiers::ALT | KeyModifiers::SHIFT => Some(Kind::Dcs),
        _ => None,
    }
}

/// What `event` is inside a `kind` string.
fn part(event: &Event, kind: Kind) -> Part {
    let Event::Key(KeyEvent {
        code: KeyCode::Char(c),
        modifiers,
        kind: KeyEventKind::Press,
        ..
    }) = *event
    else {
        return Part::Other;
    };
    // Capitals come with Shift.
    if (modifiers - KeyModifiers::SHIFT).is_empty() {
        Part::Char(c)
    } else if (c, modifiers) == ('\\', KeyModifiers::ALT)
        || (kind == Kind::Osc && (c, modifiers) == ('g', KeyModifiers::CONTROL))
    {
        Part::End
    } else {
        Part::Other
    }
}

/// Whether `body` can begin a `kind` answer: OSC a number then `;` (`11;rgb:…`), APC the
/// kitty graphics `G`, DCS parameters and intermediates then a final byte (`1$r…`, `>|…`).
fn may_be(kind: Kind, body: &str) -> bool {
    match kind {
        Kind::Osc => {
            let number = body.split_once(';').map_or(body, |(number, _)| number);
            !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit())
        }
        Kind::Apc => body.starts_with('G'),
        Kind::Dcs => dcs_header(body).is_some(),
    }
}

/// Whether `body` (which [`may_be`]) is past its header: an answer for sure, not keys.
fn past_header(kind: Kind, body: &str) -> bool {
    match kind {
        Kind::Osc | Kind::Apc => body.contains(';'),
        Kind::Dcs => dcs_header(body) == Some(true),
    }
}

/// A DCS body's header: `None` when it breaks the grammar, else whether its final byte
/// came. At least one parameter or intermediate comes first, so a typed letter is none.
fn dcs_header(body: &str) -> Option<bool> {
    let mut intermediates = false;
    for (at, b) in body.bytes().enumerate() {
        match b {
            0x30..=0x3f if !intermediates => {}
            0x20..=0x2f => intermediates = true,
            0x40..=0x7e if at > 0 => return Some(true),
            _ => return None,
        }
    }
    Some(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The events crossterm reads from `bytes`, as a terminal's answer or typed keys.
    fn events(bytes: &str) -> Vec<Event> {
        let mut out = Vec::new();
        let mut chars = bytes.chars();
        while let Some(c) = chars.next() {
            let key = match c {
                '\x1b' => {
                    let next = chars.next().expect("ESC then a character");
                    let shift = if next.is_uppercase() {
                        KeyModifiers::SHIFT
                    } else {
                        KeyModifiers::NONE
                    };
                    KeyEvent::new(KeyCode::Char(next), KeyModifiers::ALT | shift)
                }
                '\x07' => KeyEvent::new(KeyCode::Char('g'), KeyModifiers::CONTROL),
                '\r' => KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE),
                c if c.is_uppercase() => KeyEvent::new(KeyCode::Char(c), KeyModifiers::SHIFT),
                c => KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE),
            };
            out.push(Event::Key(key));
        }
        out
    }

    /// Feeds `bytes`' events, one each `step`, from `start`; returns what went on.
    fn fed(filter: &mut LateAnswers, bytes: &str, start: Duration, step: Duration) -> Vec<Passed> {
        for (i, event) in events(bytes).into_iter().enumerate() {
            filter.feed(event, start + step * i as u32);
        }
        filter.take()
    }

    /// The events of `passed` as the bytes that made them; a background as `{luminance}`.
    fn text(passed: &[Passed]) -> String {
        passed
            .iter()
            .map(|p| match p {
                Passed::Event(Event::Key(key), _) => {
                    let alt = if key.modifiers.contains(KeyModifiers::ALT) {
                        "\x1b"
                    } else {
                        ""
                    };
                    match key.code {
                        KeyCode::Char('g') if key.modifiers == KeyModifiers::CONTROL => {
                            "\x07".to_string()
                        }
                        KeyCode::Char(c) => format!("{alt}{c}"),
                        KeyCode::Enter => "\r".to_string(),
                        other => format!("{other:?}"),
                    }
                }
                Passed::Event(other, _) => format!("{other:?}"),
                Passed::Background(l) => format!("{{{l:.2}}}"),
            })
            .collect()
    }

    const MS: Duration = Duration::from_millis(1);
    const OSC_ST: &str = "\x1b]11;rgb:ffff/ffff/ffff\x1b\\";
    const OSC_BEL: &str = "\x1b]11;rgb:0000/0000/0000\x07";
    const KITTY: &str = "\x1b_Gi=31;OK\x1b\\";
    const DCS: &str = "\x1bP1$r0m\x1b\\";

    #[test]
    fn answers_ended_by_st_or_bel_are_swallowed_and_the_background_told() {
        let mut filter = LateAnswers::new();
        let all = format!("ab{OSC_ST}c{KITTY}{OSC_BEL}{DCS}d");
        assert_eq!(
            text(&fed(&mut filter, &all, MS, Duration::ZERO)),
            "ab{1.00}c{0.00}d"
        );
        assert_eq!(filter.deadline(), None);
    }

    #[test]
    fn an_answer_split_anywhere_across_events_is_still_swallowed() {
        // The events of one answer come at any spacing below the gap.
        for answer in [OSC_ST, OSC_BEL, KITTY, DCS] {
            let whole = format!("x{answer}y");
            let count = events(&whole).len();
            for cut in 0..count {
                let mut filter = LateAnswers::new();
                for (i, event) in events(&whole).into_iter().enumerate() {
                    let at = if i < cut {
                        MS * i as u32
                    } else {
                        MS * i as u32 + GAP / 2
                    };
                    filter.feed(event, at);
                }
                let passed = text(&filter.take());
                let kept = passed.replace("{1.00}", "").replace("{0.00}", "");
                assert_eq!(kept, "xy", "{answer:?} cut before event {cut}: {passed:?}");
            }
        }
    }

    #[test]
    fn a_real_alt_key_then_typing_goes_on_in_order() {
        let mut filter = LateAnswers::new();
        // Alt-] then a word (typed fast): no number, so not an answer, at the first letter.
        assert_eq!(text(&fed(&mut filter, "\x1b]word", MS, MS)), "\x1b]word");
        // Alt-_ (redo) then a key: held until it is no kitty answer.
        assert_eq!(text(&fed(&mut filter, "\x1b_x", MS * 50, MS)), "\x1b_x");
        // Alt-] then Enter, Alt-Shift-P then a letter, two introducers in a row.
        assert_eq!(text(&fed(&mut filter, "\x1b]\r", MS * 60, MS)), "\x1b]\r");
        assert_eq!(text(&fed(&mut filter, "\x1bPq", MS * 70, MS)), "\x1bPq");
        assert_eq!(text(&fed(&mut filter, "\x1b]\x1b]1", MS * 80, MS)), "\x1b]");
        assert!(filter.deadline().is_some());
        filter.expire(MS * 82 + GAP);
        assert_eq!(text(&filter.take()), "\x1b]1");
    }

    #[test]
    fn alone_an_introducer_goes_on_after_a_pause() {
        let mut filter = LateAnswers::new();
        filter.feed(events("\x1b_")[0].clone(), MS * 10);
        assert!(filter.take().is_empty());
        assert_eq!(filter.deadline(), Some(MS * 10 + GAP));
        // Too early: still held.
        filter.expire(MS * 20);
        assert!(filter.take().is_empty());
        filter.expire(MS * 10 + GAP);
        assert_eq!(text(&filter.take()), "\x1b_");
        assert_eq!(filter.deadline(), None);
        // Or the next key, after the pause, brings it out first.
        let passed = fed(&mut filter, "\x1b]1", MS * 500, GAP);
        assert_eq!(text(&passed), "\x1b]1");
        // Each key keeps the time it came at (a double click is told by them).
        assert_eq!(
            passed[1],
            Passed::Event(events("1")[0].clone(), MS * 500 + GAP)
        );
    }

    #[test]
    fn an_answer_cut_by_a_pause_past_its_header_is_dropped_to_its_end() {
        let mut filter = LateAnswers::new();
        let (head, tail) = OSC_ST.split_at(8); // "\x1b]11;rgb"
        assert!(fed(&mut filter, head, MS, MS).is_empty());
        // The loop stalled: the deadline passed before the rest was read.
        filter.expire(MS * 7 + GAP);
        assert!(filter.take().is_empty());
        assert_eq!(filter.deadline(), None);
        // The rest comes at once, then typing after a pause: only the typing goes on.
        let rest = fed(&mut filter, tail, MS * 8 + GAP, Duration::ZERO);
        assert!(rest.is_empty(), "{rest:?}");
        assert_eq!(text(&fed(&mut filter, "ok", MS * 300, MS)), "ok");
        // Cut by a pause that the next event ends: dropped all the same.
        assert!(fed(&mut filter, head, MS * 400, MS).is_empty());
        assert!(fed(&mut filter, tail, MS * 407 + GAP, Duration::ZERO).is_empty());
        assert_eq!(text(&fed(&mut filter, "ok", MS * 800, MS)), "ok");
    }

    #[test]
    fn an_endless_body_is_dropped_and_typing_after_a_pause_goes_on() {
        let mut filter = LateAnswers::new();
        let endless = format!("\x1b]11;{}", "x".repeat(3 * LONGEST));
        assert!(fed(&mut filter, &endless, MS, Duration::ZERO).is_empty());
        // Nothing is held (so no deadline), and what comes after a pause is keys.
        assert_eq!(filter.deadline(), None);
        assert_eq!(text(&fed(&mut filter, "abc", MS + GAP, MS)), "abc");
        // Endless, then a key that is no character: it ends the body and goes on.
        let endless = format!("\x1b_G{}\r", "y".repeat(2 * LONGEST));
        assert_eq!(
            text(&fed(&mut filter, &endless, MS * 1000, Duration::ZERO)),
            "\r"
        );
    }

    #[test]
    fn a_key_that_is_no_character_ends_an_answer_and_what_follows_is_keys() {
        let mut filter = LateAnswers::new();
        // Past its header: an answer cut short, dropped; the keys after it go on at once.
        assert_eq!(text(&fed(&mut filter, "\x1b]11;rgb:0\rab", MS, MS)), "\rab");
        assert_eq!(
            text(&fed(&mut filter, "\x1b_Gi=1;E\rcd", MS * 20, MS)),
            "\rcd"
        );
        // Not yet: keys, all of them.
        assert_eq!(
            text(&fed(&mut filter, "\x1b]11\rab", MS * 40, MS)),
            "\x1b]11\rab"
        );
        assert_eq!(filter.deadline(), None);
    }

    #[test]
    fn other_events_go_on_untouched() {
        let mut filter = LateAnswers::new();
        filter.feed(Event::Resize(80, 24), MS);
        filter.feed(Event::Paste("\x1b]11;x".into()), MS * 2);
        assert_eq!(
            filter.take(),
            [
                Passed::Event(Event::Resize(80, 24), MS),
                Passed::Event(Event::Paste("\x1b]11;x".into()), MS * 2)
            ]
        );
    }
}
