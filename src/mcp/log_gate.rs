//! What the log file takes, so no client or server can fill the disk through it: the same
//! line (by its start, digits aside) at most [`REPEATS_PER_WINDOW`] times per
//! [`REPEAT_WINDOW`], the rest counted and told once the window ends; and at most
//! [`MAX_BYTES_PER_DAY`] a day from one process, after which one line says the file is
//! full for the day. A `serve --http` answering a flood of bad requests, each logged by
//! the MCP SDK, writes a few lines, not one a request.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How many events of one kind the log file takes per window.
pub const REPEATS_PER_WINDOW: u32 = 10;
/// The window of [`REPEATS_PER_WINDOW`].
pub const REPEAT_WINDOW: Duration = Duration::from_secs(10);
/// The most one process writes to one day's file.
pub const MAX_BYTES_PER_DAY: u64 = 16 << 20;
/// How much of an event's start (its level, target and message, digits skipped) tells
/// its kind.
const KIND_BYTES: usize = 48;

/// The log file's gate: what of each event to write (see the module's docs).
#[derive(Debug, Default)]
pub struct LogGate {
    window_start: Option<Instant>,
    /// Each kind seen this window: how many, and its start, to name it in the summary.
    kinds: HashMap<Vec<u8>, (u32, String)>,
    /// The day (`YYYY-MM-DD`, from the events' own time stamps) and what was written on it.
    day: Vec<u8>,
    day_bytes: u64,
    day_full_told: bool,
}

impl LogGate {
    /// What to write for `event` (one formatted line, its time stamp first) at `now`: the
    /// summaries of the window just ended, then the event itself unless it is left out.
    pub fn admit(&mut self, event: &[u8], now: Instant) -> Vec<u8> {
        let mut out = Vec::new();
        let window_over = self
            .window_start
            .is_none_or(|start| now.duration_since(start) >= REPEAT_WINDOW);
        if window_over {
            self.window_start = Some(now);
            let mut summaries: Vec<_> = self
                .kinds
                .drain()
                .filter(|(_, (count, _))| *count > REPEATS_PER_WINDOW)
                .map(|(_, (count, start))| (start, count - REPEATS_PER_WINDOW))
                .collect();
            summaries.sort();
            for (start, left_out) in summaries {
                out.extend_from_slice(
                    format!(
                        "{} … {left_out} more like this were left out of the log (more than {REPEATS_PER_WINDOW} in {} s)\n",
                        start.trim_end(),
                        REPEAT_WINDOW.as_secs()
                    )
                    .as_bytes(),
                );
            }
        }
        let (stamp, rest) = split_stamp(event);
        let day = stamp.get(..10).unwrap_or(stamp);
        if day != self.day.as_slice() {
            self.day = day.to_vec();
            self.day_bytes = 0;
            self.day_full_told = false;
        }
        let kind: Vec<u8> = rest
            .iter()
            .copied()
            .filter(|b| !b.is_ascii_digit())
            .take(KIND_BYTES)
            .collect();
        let entry = self.kinds.entry(kind).or_insert_with(|| {
            let start = String::from_utf8_lossy(&rest[..rest.len().min(KIND_BYTES * 2)]);
            (0, start.lines().next().unwrap_or_default().to_string())
        });
        entry.0 = entry.0.saturating_add(1);
        if entry.0 <= REPEATS_PER_WINDOW {
            out.extend_from_slice(event);
        }
        if self.day_bytes.saturating_add(out.len() as u64) > MAX_BYTES_PER_DAY {
            if self.day_full_told {
                return Vec::new();
            }
            self.day_full_told = true;
            return format!(
                "{} mcpick wrote {MAX_BYTES_PER_DAY} bytes to this day's log: nothing more is written today (a flood; MCPICK_LOG=warn logs less)\n",
                String::from_utf8_lossy(stamp)
            )
            .into_bytes();
        }
        self.day_bytes += out.len() as u64;
        out
    }
}

/// An event's time stamp (up to its first space) and the rest.
fn split_stamp(event: &[u8]) -> (&[u8], &[u8]) {
    match memchr::memchr(b' ', event) {
        Some(at) => (&event[..at], &event[at..]),
        None => (&[], event),
    }
}

/// The gate of this process's log file.
static GATE: Mutex<Option<LogGate>> = Mutex::new(None);

/// A [`std::io::Write`] that lets through what [`LogGate`] admits of each event.
#[derive(Clone, Debug)]
pub struct GatedWriter<W>(pub W);

impl<W: std::io::Write> std::io::Write for GatedWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let admitted = GATE
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get_or_insert_with(LogGate::default)
            .admit(buf, Instant::now());
        if admitted.as_slice() == buf {
            return self.0.write(buf);
        }
        if !admitted.is_empty() {
            self.0.write_all(&admitted)?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(n: usize, message: &str) -> Vec<u8> {
        format!(
            "2026-12-06T07:30:{:02}.{n:06}Z  WARN rmcp::service: {message}\n",
            n % 60
        )
        .into_bytes()
    }

    #[test]
    fn a_repeated_line_is_written_ten_times_a_window_then_summed_up() {
        let mut gate = LogGate::default();
        let start = Instant::now();
        let mut written = Vec::new();
        for n in 0..5000 {
            // Each a different request id and name, as a flood of bad requests is.
            let line = event(n, &format!("response error id={n} unknown prompt: x{n}"));
            written.extend(gate.admit(&line, start + Duration::from_millis(n as u64 * 10)));
        }
        let text = String::from_utf8(written).unwrap();
        // Five windows of 1,000 events: ten of each written, the rest summed up.
        assert_eq!(text.matches("unknown prompt").count(), 50 + 4, "{text}");
        assert!(
            text.contains("… 990 more like this were left out of the log (more than 10 in 10 s)"),
            "{text}"
        );
        // Another kind of line still gets through.
        let other = event(1, "listening on http://127.0.0.1:1/mcp");
        assert_eq!(gate.admit(&other, start + Duration::from_secs(5)), other);
    }

    #[test]
    fn a_day_takes_at_most_its_bytes_and_says_so_once() {
        let mut gate = LogGate::default();
        let now = Instant::now();
        let mut written = 0u64;
        let mut full = 0;
        for n in 0..40_000 {
            // About 1 KiB each, one a window (so none is held back as a repeat), all on
            // one day by their stamps.
            let line = event(n, &"y".repeat(1000));
            let out = gate.admit(&line, now + Duration::from_secs(n as u64 * 11));
            full += usize::from(
                String::from_utf8_lossy(&out).contains("nothing more is written today"),
            );
            written += out.len() as u64;
        }
        assert!(written <= MAX_BYTES_PER_DAY + 1024, "{written}");
        assert_eq!(full, 1);
        // A new day starts afresh.
        let tomorrow = b"2026-12-07T00:00:00.000000Z  INFO mcpick: hello\n".to_vec();
        assert_eq!(
            gate.admit(&tomorrow, now + Duration::from_secs(1 << 30)),
            tomorrow
        );
    }
}
