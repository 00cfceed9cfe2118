//! A bounded per-server log: the child's stderr lines and `notifications/message` lines.

use std::collections::VecDeque;
use std::sync::Mutex;

use crate::model::LogLine;
use crate::secrets::Secrets;

/// How many of a server's own lines (stderr, log messages) its log keeps; older ones are
/// dropped.
pub const LOG_CAPACITY: usize = 500;
/// How many of mcpick's own notes about a server its log keeps, apart from the server's
/// lines so that a stderr flood never pushes them out.
pub const NOTE_CAPACITY: usize = 100;

/// The source of mcpick's own notes about a server.
pub const MCPICK_SOURCE: &str = "mcpick";

/// Milliseconds since mcpick started (since the first call, which `main` makes early):
/// the time a [`LogLine`] carries, shown as `mm:ss.s` like the notices' times.
pub fn since_start_ms() -> u64 {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    let start = *START.get_or_init(std::time::Instant::now);
    u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// A line with its place in arrival order (a count per log): milliseconds can tie, so the
/// order is kept apart.
pub type Numbered = (u64, LogLine);

/// `own` and `notes` as one list in arrival order, oldest first.
pub fn merge_in_order<'a>(
    own: impl IntoIterator<Item = &'a Numbered>,
    notes: impl IntoIterator<Item = &'a Numbered>,
) -> Vec<&'a LogLine> {
    let mut own = own.into_iter().peekable();
    let mut notes = notes.into_iter().peekable();
    let mut merged = Vec::new();
    loop {
        let take_note = match (own.peek(), notes.peek()) {
            (Some(o), Some(n)) => n.0 < o.0,
            (Some(_), None) => false,
            (None, Some(_)) => true,
            (None, None) => return merged,
        };
        merged.extend(if take_note { notes.next() } else { own.next() }.map(|(_, l)| l));
    }
}

/// Appends `item` to `ring`, dropping the oldest beyond `capacity`.
pub fn push_bounded<T>(ring: &mut VecDeque<T>, item: T, capacity: usize) {
    while ring.len() >= capacity.max(1) {
        ring.pop_front();
    }
    ring.push_back(item);
}

/// The longest line kept; longer lines are cut (a flood of one huge line stays bounded).
pub const MAX_LINE_CHARS: usize = 4096;

/// How many of a server's lines may go to the log file per [`FILE_WINDOW`]; a flood beyond
/// it is counted, not written, so the file stays small.
pub const FILE_LINES_PER_WINDOW: u32 = 1000;
/// The window of [`FILE_LINES_PER_WINDOW`].
pub const FILE_WINDOW: std::time::Duration = std::time::Duration::from_secs(10);

/// Lines of each server left out of the log file so far (over its budget), by server name:
/// a one-shot command says so before it exits ([`take_left_out`]), as no later window of
/// the budget would.
static LEFT_OUT: Mutex<std::collections::BTreeMap<String, u64>> =
    Mutex::new(std::collections::BTreeMap::new());

/// The servers whose lines were left out of the log file since the last call, with how many
/// each, in name order; the log file is told too. Empty when none were.
pub fn take_left_out() -> Vec<(String, u64)> {
    let taken = std::mem::take(&mut *LEFT_OUT.lock().unwrap_or_else(|e| e.into_inner()));
    for (server, count) in &taken {
        tracing::warn!(target: "mcpick::server", %server, "{count} lines from the server were not written to this file (a flood)");
    }
    taken.into_iter().collect()
}

/// Why the log file could not be opened, when it could not (see [`file_unavailable`]).
static FILE_UNAVAILABLE: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// Remembers that the log file cannot be written, and why (the binary sets it at start).
pub fn set_file_unavailable(reason: String) {
    let _ = FILE_UNAVAILABLE.set(reason);
}

/// Why there is no log file this run, if there is none although a log folder is known:
/// diagnostics then say so instead of pointing to it.
pub fn file_unavailable() -> Option<&'static str> {
    FILE_UNAVAILABLE.get().map(String::as_str)
}

/// Whether lines of `server` were left out of the log file since the last
/// [`take_left_out`], so a diagnostic does not promise the log holds them all.
pub fn left_out_of(server: &str) -> bool {
    LEFT_OUT
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .contains_key(server)
}

/// One line saying how many of which servers' lines the log file left out, for a one-shot
/// command to print before it exits; `None` when none were.
pub fn left_out_note(left_out: &[(String, u64)]) -> Option<String> {
    if left_out.is_empty() {
        return None;
    }
    let each: Vec<String> = left_out
        .iter()
        .map(|(server, count)| {
            format!(
                "{} of `{server}`",
                crate::text::counted(
                    usize::try_from(*count).unwrap_or(usize::MAX),
                    "line",
                    "lines"
                )
            )
        })
        .collect();
    Some(format!(
        "the log file left out {} (a flood: at most {FILE_LINES_PER_WINDOW} lines a server are written per {} s)",
        each.join(", "),
        FILE_WINDOW.as_secs()
    ))
}

/// A [`std::io::Write`] for the log file that keeps server text in it inert: C0 and C1
/// controls, DEL and bidi controls become [`crate::text::sanitize`]'s visible stand-ins
/// (`cat` or `less` of the file must not run a server's OSC 52 or title sequence, nor
/// reorder a line), and a line break inside an event becomes `␊` (a server's text must not
/// forge a line of its own). Tabs stay. The formatter writes each event whole, ending in
/// its one `\n`, which stays. An event longer than [`MAX_LOG_LINE_BYTES`] is cut there and
/// says how much was left out: a client's 300 KB prompt name in an error must not write
/// 300 KB of log a request.
#[derive(Clone, Debug)]
pub struct ControlFreeWriter<W>(pub W);

/// The log file's filter: `MCPICK_LOG` (`info` when unset or empty), with the targets
/// that keep secrets out of the file kept quiet whatever level is asked, unless the
/// variable names them itself: rmcp's transport worker logs failing URLs whole, query
/// keys included (`off`), and its service logs every notification whole (`warn`).
pub fn filter_directives(asked: Option<&str>) -> String {
    let asked = asked
        .map(str::trim)
        .filter(|a| !a.is_empty())
        .unwrap_or("info");
    let mut directives = asked.to_string();
    for (target, level) in [
        ("rmcp::transport::worker", "off"),
        ("rmcp::service", "warn"),
    ] {
        if !asked.contains(target) {
            directives.push_str(&format!(",{target}={level}"));
        }
    }
    directives
}

/// The most bytes of one event the log file takes (the rest is counted, not written).
pub const MAX_LOG_LINE_BYTES: usize = 1024;

impl<W: std::io::Write> std::io::Write for ControlFreeWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let (body, end) = match buf.strip_suffix(b"\n") {
            Some(body) => (body, "\n"),
            None => (buf, ""),
        };
        let (body, cut) = if body.len() > MAX_LOG_LINE_BYTES {
            // Back to a character's start, so the cut never splits one.
            let mut at = MAX_LOG_LINE_BYTES;
            while at > 0 && body[at] & 0xC0 == 0x80 {
                at -= 1;
            }
            (&body[..at], Some(body.len() - at))
        } else {
            (body, None)
        };
        let text = String::from_utf8_lossy(body);
        let clean = cut.is_none()
            && matches!(text, std::borrow::Cow::Borrowed(_))
            && !text.contains('\n')
            && crate::text::control_count(&text) == 0;
        if clean {
            return self.0.write(buf);
        }
        let mut safe = crate::text::visible_on_one_line(&text);
        if let Some(left_out) = cut {
            safe.push_str(&format!(" … [{left_out} bytes cut]"));
        }
        safe.push_str(end);
        self.0.write_all(safe.as_bytes()).map(|()| buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

/// The log file's share of a server's lines in the current window.
#[derive(Debug, Default)]
struct FileBudget {
    window_start: Option<std::time::Instant>,
    written: u32,
    dropped: u64,
}

/// The last [`LOG_CAPACITY`] lines a server wrote or logged, and the last
/// [`NOTE_CAPACITY`] notes of mcpick's about it, kept apart.
/// Its lines are masked: a server printing its key shows `‹hidden›`.
#[derive(Debug, Default)]
pub struct ServerLog {
    lines: Mutex<Rings>,
    secrets: Mutex<Secrets>,
    file: Mutex<FileBudget>,
    /// Set when a line could not be forwarded (the screen lagged behind a flood).
    dropped: std::sync::atomic::AtomicBool,
}

/// A server's own lines and mcpick's notes, in rings of their own.
#[derive(Debug, Default)]
struct Rings {
    own: VecDeque<Numbered>,
    notes: VecDeque<Numbered>,
    next: u64,
}

impl Rings {
    fn merged(&self) -> Vec<&LogLine> {
        merge_in_order(&self.own, &self.notes)
    }
}

impl ServerLog {
    /// Sends `line` on to the screen without waiting; a full channel drops it, and the
    /// screen gets the whole log once it catches up ([`ServerLog::take_dropped`]).
    pub fn forward(&self, line: LogLine, to: &Option<tokio::sync::mpsc::Sender<LogLine>>) {
        if let Some(tx) = to
            && tx.try_send(line).is_err()
        {
            self.dropped
                .store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// Whether lines were dropped since the last call.
    pub fn take_dropped(&self) -> bool {
        self.dropped
            .swap(false, std::sync::atomic::Ordering::Relaxed)
    }

    /// Writes a server's line to the log file, unless this window's budget is spent; the
    /// first line of the next window says how many were left out.
    pub fn write_to_file(&self, server: &str, line: &LogLine) {
        let now = std::time::Instant::now();
        let mut budget = self.file.lock().unwrap_or_else(|e| e.into_inner());
        let start = *budget.window_start.get_or_insert(now);
        if now.duration_since(start) >= FILE_WINDOW {
            if budget.dropped > 0 {
                tracing::warn!(target: "mcpick::server", %server, "{} lines from the server were not written to this file (a flood); the logs pane keeps the last {LOG_CAPACITY}", budget.dropped);
            }
            *budget = FileBudget {
                window_start: Some(now),
                ..FileBudget::default()
            };
        }
        if budget.written < FILE_LINES_PER_WINDOW {
            budget.written += 1;
            tracing::info!(target: "mcpick::server", %server, "{}: {}", line.source, line.text);
        } else {
            budget.dropped += 1;
            let mut left_out = LEFT_OUT.lock().unwrap_or_else(|e| e.into_inner());
            *left_out.entry(server.to_string()).or_default() += 1;
        }
    }

    /// Masks `more` in every line from now on, and in the log file.
    pub fn add_secrets(&self, more: &Secrets) {
        crate::secrets::register(more);
        let mut secrets = self.secrets.lock().unwrap_or_else(|e| e.into_inner());
        secrets.merge(more);
    }

    /// `error` with the secrets masked in the server's words it quotes.
    pub fn mask_error(&self, error: super::McpError) -> super::McpError {
        let secrets = self.secrets.lock().unwrap_or_else(|e| e.into_inner());
        error.masked(&secrets)
    }

    /// Appends a line stamped with the time now, dropping the oldest of its kind (the
    /// server's or mcpick's) when full.
    pub fn push(&self, source: &str, text: &str) -> LogLine {
        self.push_at(source, text, since_start_ms())
    }

    /// [`ServerLog::push`] with a given time (milliseconds since start).
    pub fn push_at(&self, source: &str, text: &str, at_ms: u64) -> LogLine {
        let text = {
            let secrets = self.secrets.lock().unwrap_or_else(|e| e.into_inner());
            secrets.mask(text).into_owned()
        };
        let text = crate::text::cut_chars(text.trim_end_matches(['\r', '\n']), MAX_LINE_CHARS);
        let line = LogLine {
            source: source.to_string(),
            text,
            at_ms,
        };
        let mut rings = self.lines.lock().unwrap_or_else(|e| e.into_inner());
        let numbered = (rings.next, line.clone());
        rings.next += 1;
        if source == MCPICK_SOURCE {
            push_bounded(&mut rings.notes, numbered, NOTE_CAPACITY);
        } else {
            push_bounded(&mut rings.own, numbered, LOG_CAPACITY);
        }
        line
    }

    /// The server's own last `count` lines from stderr, oldest first: shown under "last
    /// stderr lines", so never one of mcpick's notes about the process (those are in the
    /// log and the error itself).
    pub fn stderr_tail(&self, count: usize) -> Vec<String> {
        let rings = self.lines.lock().unwrap_or_else(|e| e.into_inner());
        let mut tail: Vec<String> = rings
            .own
            .iter()
            .rev()
            .filter(|(_, l)| l.source == "stderr")
            .map(|(_, l)| l.text.clone())
            .take(count)
            .collect();
        tail.reverse();
        tail
    }

    /// The server's own last stderr line (never one of mcpick's notes about it).
    pub fn last_stderr_line(&self) -> Option<String> {
        let rings = self.lines.lock().unwrap_or_else(|e| e.into_inner());
        rings
            .own
            .iter()
            .rev()
            .find(|(_, l)| l.source == "stderr")
            .map(|(_, l)| l.text.clone())
    }

    /// Every kept line, the server's and mcpick's merged, oldest first.
    pub fn lines(&self) -> Vec<LogLine> {
        let rings = self.lines.lock().unwrap_or_else(|e| e.into_inner());
        rings.merged().into_iter().cloned().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_filter_keeps_the_secret_keeping_targets_quiet_at_any_level() {
        let quiet = ",rmcp::transport::worker=off,rmcp::service=warn";
        assert_eq!(filter_directives(None), format!("info{quiet}"));
        assert_eq!(filter_directives(Some(" ")), format!("info{quiet}"));
        assert_eq!(filter_directives(Some("info")), format!("info{quiet}"));
        assert_eq!(filter_directives(Some("debug")), format!("debug{quiet}"));
        // Named, a target is the user's to lift.
        assert_eq!(
            filter_directives(Some("debug,rmcp::transport::worker=debug")),
            "debug,rmcp::transport::worker=debug,rmcp::service=warn"
        );
    }

    #[test]
    fn a_secret_across_the_cut_is_masked_at_every_offset() {
        use std::io::Write;
        // The log file's chain: masked first, then cut and made control-free.
        let secret = "sk-live-4f9a2c7e1b8d3f6a0c5e9b2d7a1f";
        crate::secrets::register(&crate::secrets::Secrets::new([secret.to_string()]));
        for offset in 900..=MAX_LOG_LINE_BYTES + 40 {
            let event = format!("{}{secret} and more after it\n", "x".repeat(offset));
            let mut file = Vec::new();
            crate::secrets::MaskingWriter(ControlFreeWriter(&mut file))
                .write_all(event.as_bytes())
                .unwrap();
            let written = String::from_utf8(file).unwrap();
            for start in 0..=secret.len() - 9 {
                let piece = &secret[start..start + 9];
                assert!(
                    !written.contains(piece),
                    "offset {offset}: {piece:?} is in the log: {written:?}"
                );
            }
        }
        // A line cut short before it reached the log, ending in most of the key.
        let mut file = Vec::new();
        crate::secrets::MaskingWriter(ControlFreeWriter(&mut file))
            .write_all(format!("the key is {}\n", &secret[..20]).as_bytes())
            .unwrap();
        assert_eq!(String::from_utf8(file).unwrap(), "the key is ‹hidden›\n");
    }

    #[test]
    fn secrets_are_masked_in_every_line() {
        let log = ServerLog::default();
        log.add_secrets(&Secrets::new(["sk-12345".to_string()]));
        log.add_secrets(&Secrets::new(["tok-987".to_string()]));
        assert_eq!(
            log.push("stderr", "key sk-12345 ok").text,
            "key ‹hidden› ok"
        );
        assert_eq!(log.push("info", "token tok-987").text, "token ‹hidden›");
        assert!(log.lines().iter().all(|l| !l.text.contains("sk-")));
    }

    #[test]
    fn the_log_file_gets_a_bounded_share_of_a_flood() {
        let log = ServerLog::default();
        let line = log.push("stderr", "flood");
        for _ in 0..FILE_LINES_PER_WINDOW + 50 {
            log.write_to_file("s", &line);
        }
        let budget = log.file.lock().unwrap();
        assert_eq!(budget.written, FILE_LINES_PER_WINDOW);
        assert_eq!(budget.dropped, 50);
    }

    #[test]
    fn lines_left_out_of_the_file_are_counted_for_the_exit_note() {
        let log = ServerLog::default();
        let line = log.push("stderr", "flood");
        for _ in 0..FILE_LINES_PER_WINDOW + 7 {
            log.write_to_file("left-out-test", &line);
        }
        // Other tests may count their own servers at the same time: only this one is read.
        let left_out = take_left_out();
        let ours: Vec<_> = left_out
            .into_iter()
            .filter(|(server, _)| server == "left-out-test")
            .collect();
        assert_eq!(ours, vec![("left-out-test".to_string(), 7)]);
        assert_eq!(
            left_out_note(&ours).unwrap(),
            "the log file left out 7 lines of `left-out-test` (a flood: at most 1000 lines a server are written per 10 s)"
        );
        assert!(left_out_note(&[]).is_none());
        assert!(take_left_out().iter().all(|(s, _)| s != "left-out-test"));
    }

    #[test]
    fn the_log_file_writer_neutralises_controls_and_bidi() {
        use std::io::Write;
        let written = |input: &[u8]| {
            let mut writer = ControlFreeWriter(Vec::new());
            assert_eq!(writer.write(input).unwrap(), input.len());
            String::from_utf8(writer.0).unwrap()
        };
        let clean = "INFO server: stderr: tab\there, café ✓\n";
        assert_eq!(written(clean.as_bytes()), clean);
        let evil = "INFO stderr: \x1b]52;c;UFdORUQ=\x07\x1b]0;title\x07\u{202e}rev\u{2066}iso\u{2069}\u{9b}2J\r\nforged line\n";
        let out = written(evil.as_bytes());
        assert_eq!(
            out,
            "INFO stderr: ␛]52;c;UFdORUQ=␇␛]0;title␇<U+202E>rev<U+2066>iso<U+2069><U+009B>2J␍␊forged line\n"
        );
        assert!(
            out.trim_end_matches('\n').chars().all(|c| c == '\t'
                || !(c.is_control() || crate::text::control_count(&c.to_string()) > 0))
        );
        // Invalid UTF-8 becomes U+FFFD, not raw bytes.
        assert_eq!(written(b"a\xffb\n"), "a\u{FFFD}b\n");
    }

    #[test]
    fn a_huge_event_is_cut_to_a_line_that_says_how_much_was_left_out() {
        use std::io::Write;
        // A client's 300 KB prompt name in an error, with a character across the cut.
        let name = format!(
            "{}é{}",
            "n".repeat(MAX_LOG_LINE_BYTES - 20),
            "x".repeat(300_000)
        );
        let event = format!("WARN prompts/get: unknown prompt {name}\n");
        let mut writer = ControlFreeWriter(Vec::new());
        assert_eq!(writer.write(event.as_bytes()).unwrap(), event.len());
        let out = String::from_utf8(writer.0).unwrap();
        assert!(out.len() < MAX_LOG_LINE_BYTES + 40, "{}", out.len());
        assert!(
            out.starts_with("WARN prompts/get: unknown prompt nnn"),
            "{out}"
        );
        let kept = out.split(" … [").next().unwrap().len();
        assert!(
            out.ends_with(&format!(" … [{} bytes cut]\n", event.len() - 1 - kept)),
            "{}",
            &out[out.len() - 40..]
        );
        assert_eq!(out.matches('\n').count(), 1);
        // 5,000 such requests write about 5 MB, not 1.5 GB.
        assert!(5_000 * out.len() < 6_000_000);
    }

    #[test]
    fn keeps_only_the_last_lines() {
        let log = ServerLog::default();
        for i in 0..LOG_CAPACITY + 10 {
            log.push("stderr", &format!("line {i}"));
        }
        let lines = log.lines();
        assert_eq!(lines.len(), LOG_CAPACITY);
        assert_eq!(lines[0].text, "line 10");
    }

    #[test]
    fn stderr_tail_skips_other_sources() {
        let log = ServerLog::default();
        log.push("stderr", "a");
        log.push("info", "not stderr");
        log.push("mcpick", "restarted");
        log.push("stderr", "b\n");
        // mcpick's note is not one of the server's lines.
        assert_eq!(log.stderr_tail(5), vec!["a", "b"]);
        assert_eq!(log.stderr_tail(1), vec!["b"]);
        // A note of mcpick's after the server's last words is not those words.
        log.push("mcpick", "ignored a response to id 7");
        assert_eq!(log.last_stderr_line().as_deref(), Some("b"));
    }

    #[test]
    fn a_stderr_flood_leaves_mcpick_s_notes() {
        let log = ServerLog::default();
        log.push_at("stderr", "before", 1);
        log.push_at("mcpick", "restarting in 1 s", 2);
        for i in 0..10_000 {
            log.push_at("stderr", &format!("flood {i}"), 3 + i);
        }
        let lines = log.lines();
        assert_eq!(lines.len(), LOG_CAPACITY + 1);
        // The note is older than every kept stderr line, so it comes first.
        assert_eq!(lines[0].text, "restarting in 1 s");
        assert_eq!(lines[1].text, "flood 9500");
        assert_eq!(log.stderr_tail(2), vec!["flood 9998", "flood 9999"]);
        // A note after the flood sits at its end.
        log.push_at("mcpick", "crashed", 20_000);
        assert_eq!(log.lines().last().unwrap().text, "crashed");
    }

    #[test]
    fn notes_have_a_bounded_ring_of_their_own() {
        let log = ServerLog::default();
        for i in 0..NOTE_CAPACITY as u64 + 5 {
            log.push_at("mcpick", &format!("note {i}"), i * 2);
            log.push_at("stderr", &format!("err {i}"), i * 2 + 1);
        }
        let lines = log.lines();
        let notes: Vec<_> = lines.iter().filter(|l| l.source == "mcpick").collect();
        assert_eq!(notes.len(), NOTE_CAPACITY);
        assert_eq!(notes[0].text, "note 5");
        // Merged in time order.
        assert!(lines.windows(2).all(|w| w[0].at_ms <= w[1].at_ms));
    }

    #[test]
    fn lines_are_stamped_with_the_time_they_arrive() {
        let log = ServerLog::default();
        let first = log.push("stderr", "a");
        std::thread::sleep(std::time::Duration::from_millis(5));
        let second = log.push("stderr", "b");
        assert!(second.at_ms >= first.at_ms + 5);
    }

    #[test]
    fn long_lines_are_cut() {
        let log = ServerLog::default();
        let line = log.push("stderr", &"x".repeat(MAX_LINE_CHARS * 2));
        assert_eq!(line.text.chars().count(), MAX_LINE_CHARS + 1);
    }
}
