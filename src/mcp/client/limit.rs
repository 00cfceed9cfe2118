//! A size limit on a stdio server's messages (`max_response_bytes`).
//!
//! rmcp's stdio transport drops a line over its limit without a word, so the request it
//! answered waits until its timeout. [`LineLimit`] sits between the child's stdout and
//! the transport: it passes lines within the limit through untouched, skips an oversized
//! one, and then answers the request in its place with an error naming the limit, so the
//! user hears at once why, and the connection stays usable.
//!
//! A line reaches the transport only once it has ended within the limit, so none of an
//! oversized one is ever held in memory: a line's first [`MEMORY_HOLD_BYTES`] wait in
//! memory, the rest in an unnamed temporary file (see [`HeldBytes`]). Refusing a 40 MB
//! answer costs a few MiB, not twice the limit (the transport buffering the line up to
//! the limit, then parsing the broken line it was given).
//!
//! It also repairs invalid UTF-8 (as U+FFFD), and with [`SentIds`] (filled by [`RecordIds`]
//! on the way in) it drops responses to ids mcpick never sent, or already had answered, or
//! sent with another type (`"3"` for `3`), which rmcp would otherwise take for an answer or
//! fail a handshake over.

use std::collections::{HashMap, VecDeque};
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, ready};

use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::mcp::client::answer::{
    DecodedAnswers, Reading, decoded_stand_in, read_answer, unreadable_answer,
};
use crate::mcp::log::ServerLog;

/// The JSON-RPC error code of the stand-in answer (implementation-defined range).
pub const TOO_LARGE_CODE: i32 = -32_099;
/// The `data.mcpick` marker of the stand-in answer, so no server's own -32099 is taken
/// for it.
pub const TOO_LARGE_MARKER: &str = "max_response_bytes";
/// How much of a line's start is searched for its top-level `id`.
const ID_PREFIX_BYTES: usize = 4096;
/// How much of a line's end is kept to find an `id` written last.
const ID_SUFFIX_BYTES: usize = 256;
/// Room the transport needs beyond the limit: a passed line may reach the limit exactly.
pub const TRANSPORT_SLACK: usize = 64 * 1024;

/// The ids of requests mcpick sent and has no answer to yet, as JSON text (`3`, `"a"`),
/// each with whether it is a `prompts/get`.
#[derive(Clone, Default)]
pub struct SentIds(Arc<Mutex<HashMap<String, bool>>>);

impl SentIds {
    fn insert(&self, id: &Value, prompts_get: bool) {
        let mut ids = self.0.lock().unwrap_or_else(|e| e.into_inner());
        // Requests that never get an answer (timed out) must not pile up forever.
        if ids.len() >= 100_000 {
            ids.clear();
        }
        ids.insert(id.to_string(), prompts_get);
    }

    /// Takes `id` out: `Some` when it was waiting for an answer, with whether it is a
    /// `prompts/get`.
    fn answer(&self, id: &Value) -> Option<bool> {
        let mut ids = self.0.lock().unwrap_or_else(|e| e.into_inner());
        ids.remove(&id.to_string())
    }
}

/// What becomes of the line being read, once its start tells.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Verdict {
    /// Its first bytes are held until its kind and id are known.
    Undecided,
    /// Passed on (within the size limit).
    Pass,
    /// A response nobody waits for: dropped.
    Drop,
}

/// How much of a line is held back at most to decide on it.
const HOLD_BYTES: usize = ID_PREFIX_BYTES;

/// An [`AsyncRead`] that passes through only lines of at most `limit` bytes.
pub struct LineLimit<R> {
    inner: R,
    limit: usize,
    log: Arc<ServerLog>,
    /// When set, responses are passed only to ids in it.
    sent: Option<SentIds>,
    verdict: Verdict,
    /// The id the current line answers, when it was found waiting in `sent`, and whether
    /// it is a `prompts/get`'s.
    answers: Option<(Value, bool)>,
    /// Where `prompts/get` answers read here go (see [`LineLimit::reading_answers`]).
    decoded: Option<DecodedAnswers>,
    /// The current line's start, held while undecided.
    held: Vec<u8>,
    /// Bytes of the current line seen so far (passed or skipped).
    line_len: usize,
    /// Bytes of the current line passed on.
    passed: usize,
    /// Set once the current line went over the limit: the rest of it is skipped.
    skipping: bool,
    id: IdScanner,
    /// The current line's last bytes, for an `id` at its end.
    tail: Vec<u8>,
    /// The current line's bytes passed so far, held until it ends within the limit.
    line: HeldBytes,
    /// What is ready for the reader, in order: whole lines, stand-in answers.
    ready: VecDeque<Ready>,
    chunk: Vec<u8>,
    /// The start of a UTF-8 sequence cut by the end of the last read.
    carry: Vec<u8>,
    /// Invalid UTF-8 bytes replaced so far, to note once per line.
    replaced: usize,
}

impl<R> LineLimit<R> {
    /// Wraps `inner`; oversized lines are noted in `log`.
    pub fn new(inner: R, limit: usize, log: Arc<ServerLog>) -> LineLimit<R> {
        LineLimit {
            inner,
            limit,
            log,
            sent: None,
            verdict: Verdict::Undecided,
            answers: None,
            decoded: None,
            held: Vec::new(),
            line_len: 0,
            passed: 0,
            skipping: false,
            id: IdScanner::default(),
            tail: Vec::new(),
            line: HeldBytes::default(),
            ready: VecDeque::new(),
            chunk: vec![0; 64 * 1024],
            carry: Vec::new(),
            replaced: 0,
        }
    }

    /// Passes responses only to the ids in `sent` (what [`RecordIds`] saw mcpick send).
    pub fn answering(mut self, sent: SentIds) -> LineLimit<R> {
        self.sent = Some(sent);
        self
    }

    /// Reads each answer to a request in `sent` before passing it on (see
    /// [`crate::mcp::client::answer`]): one nothing can read is answered at once with an
    /// error naming why, and a `prompts/get`'s messages are decoded into `decoded`, the SDK
    /// getting an empty result for it.
    pub fn reading_answers(mut self, decoded: DecodedAnswers) -> LineLimit<R> {
        self.decoded = Some(decoded);
        self
    }

    /// `bytes` as valid UTF-8: invalid sequences become U+FFFD (as a lenient reader would
    /// show them) instead of making the whole message unreadable; a sequence cut by the
    /// read's end waits for the next read.
    fn repair_utf8(&mut self, bytes: &[u8]) -> Vec<u8> {
        let mut input = std::mem::take(&mut self.carry);
        input.extend_from_slice(bytes);
        let mut out = Vec::with_capacity(input.len());
        let mut rest = input.as_slice();
        loop {
            match std::str::from_utf8(rest) {
                Ok(valid) => {
                    out.extend_from_slice(valid.as_bytes());
                    break;
                }
                Err(error) => {
                    let (valid, after) = rest.split_at(error.valid_up_to());
                    out.extend_from_slice(valid);
                    match error.error_len() {
                        Some(bad) => {
                            out.extend_from_slice("\u{FFFD}".as_bytes());
                            self.replaced += 1;
                            rest = &after[bad..];
                        }
                        None => {
                            self.carry = after.to_vec();
                            break;
                        }
                    }
                }
            }
        }
        out
    }

    fn take_in(&mut self, bytes: &[u8]) {
        let mut rest = bytes;
        while !rest.is_empty() {
            let newline = rest.iter().position(|b| *b == b'\n');
            let take = newline.map_or(rest.len(), |at| at + 1);
            let (segment, after) = rest.split_at(take);
            let content = segment.strip_suffix(b"\n").unwrap_or(segment);
            let ends = newline.is_some();
            if self.line_len < ID_PREFIX_BYTES {
                let room = ID_PREFIX_BYTES - self.line_len;
                self.id.feed(&content[..content.len().min(room)]);
            }
            self.keep_tail(content);
            match self.verdict {
                Verdict::Undecided => {
                    self.held.extend_from_slice(content);
                    if ends || self.held.len() >= HOLD_BYTES || self.id.knows_enough() {
                        self.verdict = self.decide();
                        let held = std::mem::take(&mut self.held);
                        if self.verdict == Verdict::Pass {
                            self.pass(&held, ends);
                        }
                    }
                }
                Verdict::Pass => self.pass(content, ends),
                Verdict::Drop => {}
            }
            self.line_len += content.len();
            if ends {
                self.end_line();
            }
            rest = after;
        }
    }

    /// Whether the line starting as seen so far goes on.
    fn decide(&mut self) -> Verdict {
        let Some(sent) = &self.sent else {
            return Verdict::Pass;
        };
        if self.id.seen_method || !self.id.seen_outcome {
            // A request or notification, or not known to be a response.
            return Verdict::Pass;
        }
        let found = self.id.found();
        match found.map(|id| (sent.answer(&id), id)) {
            Some((Some(prompts_get), id)) => {
                self.answers = Some((id, prompts_get));
                Verdict::Pass
            }
            Some((None, id)) => {
                self.log.push(
                    "mcpick",
                    &format!("ignored a response to id {id}, which is no request of mcpick's waiting for an answer"),
                );
                Verdict::Drop
            }
            // A whole response without a usable id (`"id": null` on an error) answers no
            // request; rmcp would take it for the handshake's answer and fail it.
            None if self.id.done => {
                self.log.push(
                    "mcpick",
                    "ignored a response without a request id (an error the server could not tie to a request)",
                );
                Verdict::Drop
            }
            // Its id may come after what was read: rmcp judges it.
            None => Verdict::Pass,
        }
    }

    /// Passes `content` of the current line on, within the limit: held until the line
    /// ends, then ready for the reader whole.
    fn pass(&mut self, content: &[u8], ends: bool) {
        if self.skipping {
            return;
        }
        if self.passed + content.len() > self.limit {
            self.skipping = true;
            // None of it went to the transport: what is held is let go of.
            self.line = HeldBytes::default();
            return;
        }
        if let Err(error) = self.line.push(content) {
            self.spill_failed(&error);
        }
        self.passed += content.len();
        if ends {
            match self.read_whole_answer() {
                Some(stand_in) => {
                    self.line = HeldBytes::default();
                    self.ready.push_back(Ready::Bytes(stand_in, 0));
                }
                None => self.release_line(true),
            }
        }
    }

    /// Reads the held line when it answers a request mcpick waits for: the line to hand
    /// the SDK in its place (an error for one nothing can read, an empty result for a
    /// `prompts/get` decoded here), or `None` to pass it on as it came.
    fn read_whole_answer(&mut self) -> Option<Vec<u8>> {
        let decoded = self.decoded.as_ref()?;
        let (id, prompts_get) = self.answers.clone()?;
        let reading = match self.line.reader() {
            Ok(reader) => read_answer(reader, prompts_get),
            Err(error) => {
                tracing::warn!("cannot read a held message back: {error}");
                return None;
            }
        };
        match reading {
            Reading::AsItIs => None,
            Reading::Decoded(messages) => {
                decoded.put(&id, messages);
                Some(decoded_stand_in(&id))
            }
            Reading::Unreadable(reason) => {
                let note = format!(
                    "the answer to request {id} cannot be read ({reason}); the request was answered with an error saying so"
                );
                tracing::info!(target: "mcpick::server", "{note}");
                self.log.push("mcpick", &note);
                Some(unreadable_answer(&id, &reason))
            }
        }
    }

    /// Makes the held line ready for the reader, with its newline when it had one.
    fn release_line(&mut self, newline: bool) {
        let line = std::mem::take(&mut self.line);
        let mut released = line.release();
        if newline {
            released.push(Ready::Bytes(b"\n".to_vec(), 0));
        }
        self.ready
            .extend(released.into_iter().filter(|r| !r.is_empty()));
    }

    fn spill_failed(&mut self, error: &io::Error) {
        let note = format!(
            "cannot hold a large message in a temporary file ({error}); it is held in memory"
        );
        tracing::warn!("{note}");
        self.log.push("mcpick", &note);
    }

    fn keep_tail(&mut self, content: &[u8]) {
        if content.len() >= ID_SUFFIX_BYTES {
            self.tail.clear();
            self.tail
                .extend_from_slice(&content[content.len() - ID_SUFFIX_BYTES..]);
        } else {
            self.tail.extend_from_slice(content);
            if self.tail.len() > ID_SUFFIX_BYTES {
                self.tail.drain(..self.tail.len() - ID_SUFFIX_BYTES);
            }
        }
    }

    fn end_line(&mut self) {
        if self.skipping {
            let id = self.id.found().or_else(|| id_at_end(&self.tail));
            let size = self.line_len;
            // Over stdio an id is waited for only if mcpick sent it (and has no answer yet).
            let waited = |id: &Value| {
                self.answers
                    .as_ref()
                    .is_some_and(|(answers, _)| answers == id)
                    || self
                        .sent
                        .as_ref()
                        .is_none_or(|sent| sent.answer(id).is_some())
            };
            let answered = match &id {
                Some(id) if waited(id) => {
                    self.ready
                        .push_back(Ready::Bytes(stand_in_answer(id, self.limit, size), 0));
                    format!("request {id} was answered with an error naming the limit")
                }
                Some(id) => format!("no request of mcpick's waits for its id {id}"),
                None => "it had no request id, so no request was answered".to_string(),
            };
            let note = format!(
                "dropped a message of {size} bytes from the server: more than max_response_bytes ({}); {answered}",
                self.limit
            );
            tracing::warn!("{note}");
            self.log.push("mcpick", &note);
        }
        if self.replaced > 0 {
            let note = format!(
                "the server sent {} in one message; shown as �",
                crate::text::counted(
                    self.replaced,
                    "invalid UTF-8 sequence",
                    "invalid UTF-8 sequences"
                )
            );
            // Not to the log file: a server sending junk lines would flood it.
            self.log.push("mcpick", &note);
            self.replaced = 0;
        }
        self.line_len = 0;
        self.passed = 0;
        self.skipping = false;
        self.verdict = Verdict::Undecided;
        self.answers = None;
        self.held.clear();
        self.id = IdScanner::default();
        self.tail.clear();
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for LineLimit<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        out: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        loop {
            if let Some(front) = this.ready.front_mut() {
                if out.remaining() == 0 {
                    return Poll::Ready(Ok(()));
                }
                let before = out.filled().len();
                if front.read_into(out, &mut this.chunk)? {
                    this.ready.pop_front();
                }
                if out.filled().len() == before {
                    continue;
                }
                return Poll::Ready(Ok(()));
            }
            let mut chunk = std::mem::take(&mut this.chunk);
            let mut buf = ReadBuf::new(&mut chunk);
            let polled = Pin::new(&mut this.inner).poll_read(cx, &mut buf);
            let filled = buf.filled().len();
            let result = match polled {
                Poll::Ready(Ok(())) if filled > 0 => {
                    let repaired = this.repair_utf8(&chunk[..filled]);
                    this.take_in(&repaired);
                    None
                }
                other => Some(other),
            };
            this.chunk = chunk;
            if matches!(result, Some(Poll::Ready(Ok(())))) {
                // The end of the stream: an unfinished last line goes as it is.
                if this.verdict == Verdict::Undecided {
                    let held = std::mem::take(&mut this.held);
                    if !held.is_empty() {
                        this.verdict = Verdict::Pass;
                        this.pass(&held, false);
                    }
                }
                if !this.line.is_empty() {
                    this.release_line(false);
                    continue;
                }
            }
            if let Some(result) = result {
                // End of stream, an error, or nothing yet.
                ready!(result)?;
                return Poll::Ready(Ok(()));
            }
        }
    }
}

/// An [`AsyncWrite`] (a server's stdin) that notes the id of every request mcpick sends
/// into [`SentIds`], read from each message's first bytes.
pub struct RecordIds<W> {
    inner: W,
    sent: SentIds,
    scanner: IdScanner,
    /// Bytes of the current outgoing line seen.
    line_len: usize,
    /// Bytes at the start of the next write already noted: ids are noted before the bytes
    /// go out, as the answer may be read before the write returns.
    noted_ahead: usize,
}

impl<W> RecordIds<W> {
    /// Wraps `inner`, noting into `sent`.
    pub fn new(inner: W, sent: SentIds) -> RecordIds<W> {
        RecordIds {
            inner,
            sent,
            scanner: IdScanner::default(),
            line_len: 0,
            noted_ahead: 0,
        }
    }

    fn note(&mut self, written: &[u8]) {
        for part in written.split_inclusive(|b| *b == b'\n') {
            let content = part.strip_suffix(b"\n").unwrap_or(part);
            if self.line_len < ID_PREFIX_BYTES {
                let room = ID_PREFIX_BYTES - self.line_len;
                self.scanner.feed(&content[..content.len().min(room)]);
            }
            self.line_len += content.len();
            if part.ends_with(b"\n") {
                if self.scanner.seen_method
                    && let Some(id) = self.scanner.found()
                {
                    let prompts_get = self.scanner.method.as_deref() == Some("prompts/get");
                    self.sent.insert(&id, prompts_get);
                }
                self.scanner = IdScanner::default();
                self.line_len = 0;
            }
        }
    }
}

impl<W: AsyncWrite + Unpin> AsyncWrite for RecordIds<W> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        // A writer retries with what was not taken (`buf[written..]`), so what is noted
        // once stays noted.
        if this.noted_ahead < buf.len() {
            this.note(&buf[this.noted_ahead..]);
            this.noted_ahead = buf.len();
        }
        let written = ready!(Pin::new(&mut this.inner).poll_write(cx, buf))?;
        this.noted_ahead = this.noted_ahead.saturating_sub(written);
        Poll::Ready(Ok(written))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

/// How much of a line is held in memory; the rest of a longer one waits in a temporary file.
pub const MEMORY_HOLD_BYTES: usize = 1024 * 1024;

/// A message's bytes held until it is known to fit (a stdio line until it ends, an SSE
/// event until it is dispatched): its first [`MEMORY_HOLD_BYTES`] in memory, the rest in an
/// unnamed temporary file (`tempfile::tempfile`: no name on disk, mode 0600, gone when
/// closed), so that an oversized message, let go of once it passes the limit, never took
/// the limit's worth of memory. Its file is written and read with plain (blocking) calls: a
/// fresh temporary file lives in the page cache, so each 64 KiB takes microseconds.
#[derive(Debug, Default)]
pub(in crate::mcp) struct HeldBytes {
    /// The first bytes.
    head: Vec<u8>,
    /// Then these, and how many of the file's bytes are held ones.
    file: Option<(std::fs::File, u64)>,
    /// Then these: held in memory once the temporary file failed.
    rest: Vec<u8>,
    file_failed: bool,
}

impl HeldBytes {
    /// Whether nothing is held.
    pub(in crate::mcp) fn is_empty(&self) -> bool {
        self.head.is_empty() && self.file.is_none() && self.rest.is_empty()
    }

    /// How many of the bytes held are in memory.
    #[cfg(test)]
    pub(in crate::mcp) fn in_memory(&self) -> usize {
        self.head.len() + self.rest.len()
    }

    /// How many bytes are held.
    pub(in crate::mcp) fn len(&self) -> usize {
        let in_file = self.file.as_ref().map_or(0, |(_, len)| *len);
        self.head.len() + usize::try_from(in_file).unwrap_or(usize::MAX) + self.rest.len()
    }

    /// Holds `bytes` after what is held. When the temporary file fails they are held in
    /// memory (and so is all that follows), and the error is returned to be noted.
    pub(in crate::mcp) fn push(&mut self, bytes: &[u8]) -> io::Result<()> {
        use std::io::Write;
        if self.file_failed {
            self.rest.extend_from_slice(bytes);
            return Ok(());
        }
        if self.file.is_none() && self.head.len() + bytes.len() <= MEMORY_HOLD_BYTES {
            self.head.extend_from_slice(bytes);
            return Ok(());
        }
        let written = match &mut self.file {
            // A write that fails midway leaves bytes past `len`, which are never read.
            Some((file, len)) => file.write_all(bytes).map(|()| *len += bytes.len() as u64),
            None => tempfile::tempfile().and_then(|mut file| {
                file.write_all(bytes)?;
                self.file = Some((file, bytes.len() as u64));
                Ok(())
            }),
        };
        if written.is_err() {
            self.file_failed = true;
            self.rest.extend_from_slice(bytes);
        }
        written
    }

    /// Everything held, as a stream (the file read from its start).
    fn reader(&mut self) -> io::Result<impl io::Read + '_> {
        use std::io::{Read, Seek};
        let file = match &mut self.file {
            Some((file, len)) => {
                file.rewind()?;
                Some(Read::take(&*file, *len))
            }
            None => None,
        };
        let file: Box<dyn Read + '_> = match file {
            Some(file) => Box::new(file),
            None => Box::new(io::empty()),
        };
        Ok(self.head.as_slice().chain(file).chain(self.rest.as_slice()))
    }

    /// Everything held, in one buffer (read back from the file).
    pub(in crate::mcp) fn into_bytes(self) -> io::Result<Vec<u8>> {
        use std::io::{Read, Seek};
        let mut all = Vec::with_capacity(self.len());
        all.extend_from_slice(&self.head);
        if let Some((mut file, len)) = self.file {
            file.rewind()?;
            file.take(len).read_to_end(&mut all)?;
        }
        all.extend_from_slice(&self.rest);
        Ok(all)
    }

    /// What is held, in order, for the reader.
    fn release(self) -> Vec<Ready> {
        let mut released = vec![Ready::Bytes(self.head, 0)];
        if let Some((mut file, len)) = self.file {
            use std::io::Seek;
            match file.rewind() {
                Ok(()) => released.push(Ready::File { file, left: len }),
                // The line cannot be read back: what the reader gets is a broken line, which
                // the transport skips, as it would a line of junk.
                Err(error) => tracing::warn!("cannot read a held message back: {error}"),
            }
        }
        released.push(Ready::Bytes(self.rest, 0));
        released
    }
}

/// Bytes ready for the reader.
enum Ready {
    /// Bytes, and how many of them were read.
    Bytes(Vec<u8>, usize),
    /// A held line's rest, read from its temporary file; `left` bytes to go.
    File { file: std::fs::File, left: u64 },
}

impl Ready {
    fn is_empty(&self) -> bool {
        match self {
            Ready::Bytes(bytes, at) => *at == bytes.len(),
            Ready::File { left, .. } => *left == 0,
        }
    }

    /// Puts as much as fits into `out` (`scratch` for a file's bytes); true once all is read.
    fn read_into(&mut self, out: &mut ReadBuf<'_>, scratch: &mut [u8]) -> io::Result<bool> {
        match self {
            Ready::Bytes(bytes, at) => {
                let count = out.remaining().min(bytes.len() - *at);
                out.put_slice(&bytes[*at..*at + count]);
                *at += count;
                Ok(*at == bytes.len())
            }
            Ready::File { file, left } => {
                use std::io::Read;
                let room = out.remaining().min(scratch.len());
                let want = usize::try_from(*left).map_or(room, |left| left.min(room));
                let got = file.read(&mut scratch[..want])?;
                if got == 0 && want > 0 {
                    return Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "a held message's temporary file ended early",
                    ));
                }
                out.put_slice(&scratch[..got]);
                *left -= got as u64;
                Ok(*left == 0)
            }
        }
    }
}

/// The error answer sent to the transport in place of an oversized one.
fn stand_in_answer(id: &Value, limit: usize, size: usize) -> Vec<u8> {
    let answer = serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {
            "code": TOO_LARGE_CODE,
            "message": format!("the answer was {size} bytes, more than max_response_bytes ({limit})"),
            "data": { "mcpick": TOO_LARGE_MARKER, "limit": limit, "size": size },
        },
    });
    let mut line = answer.to_string().into_bytes();
    line.push(b'\n');
    line
}

/// Finds a message's top-level `"id"` in its first bytes, tracking nesting and strings.
#[derive(Default)]
struct IdScanner {
    depth: usize,
    in_string: bool,
    escaped: bool,
    /// At depth 1, a string now would be a key.
    expecting_key: bool,
    key: Vec<u8>,
    key_is_id: bool,
    key_is_method: bool,
    in_id_value: bool,
    /// The value being read is the `method`'s, not the `id`'s.
    in_method_value: bool,
    value: Vec<u8>,
    found: Option<Value>,
    /// The top-level `method`, when it was read whole.
    method: Option<String>,
    /// The message is done (its closing brace seen).
    done: bool,
    /// A top-level `method` key: a request or notification.
    seen_method: bool,
    /// A top-level `result` or `error` key: a response.
    seen_outcome: bool,
}

impl IdScanner {
    fn feed(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            if self.done {
                return;
            }
            self.step(byte);
        }
    }

    /// Whether what is known decides the line: a request, or a response with its id.
    fn knows_enough(&self) -> bool {
        self.done || self.seen_method || (self.seen_outcome && self.found.is_some())
    }

    fn step(&mut self, byte: u8) {
        if self.in_id_value && self.value.len() < 256 {
            self.value.push(byte);
        }
        if self.in_string {
            if self.escaped {
                self.escaped = false;
            } else if byte == b'\\' {
                self.escaped = true;
            } else if byte == b'"' {
                self.in_string = false;
                if self.depth == 1 && self.expecting_key {
                    self.key_is_id = self.key == b"id";
                    self.key_is_method = self.key == b"method";
                    self.seen_method |= self.key == b"method";
                    self.seen_outcome |= self.key == b"result" || self.key == b"error";
                }
            } else if self.depth == 1 && self.expecting_key && self.key.len() < 8 {
                self.key.push(byte);
            }
            return;
        }
        match byte {
            b'"' => {
                self.in_string = true;
                if self.depth == 1 && self.expecting_key {
                    self.key.clear();
                }
            }
            b'{' | b'[' => {
                self.depth += 1;
                if self.depth == 1 {
                    self.expecting_key = byte == b'{';
                }
            }
            b'}' | b']' => {
                self.finish_value(1);
                self.depth = self.depth.saturating_sub(1);
                if self.depth == 0 {
                    self.done = true;
                }
            }
            b':' if self.depth == 1 && self.expecting_key => {
                self.expecting_key = false;
                if self.key_is_id || self.key_is_method {
                    self.in_id_value = true;
                    self.in_method_value = self.key_is_method;
                    self.value.clear();
                }
            }
            b',' if self.depth == 1 => {
                self.finish_value(1);
                self.expecting_key = true;
                self.key_is_id = false;
                self.key_is_method = false;
            }
            _ => {}
        }
    }

    /// Ends the `id` value when a `,` or `}` at `depth` closes it.
    fn finish_value(&mut self, depth: usize) {
        if self.in_id_value && self.depth == depth {
            self.in_id_value = false;
            let text = self.value.strip_suffix(b",").unwrap_or(&self.value);
            let text = text.strip_suffix(b"}").unwrap_or(text);
            if std::mem::take(&mut self.in_method_value) {
                self.method = serde_json::from_slice::<String>(text.trim_ascii()).ok();
            } else {
                self.found = usable_id(text);
            }
        }
    }

    fn found(&self) -> Option<Value> {
        self.found.clone()
    }
}

/// A request id as JSON-RPC has them: a number or a string.
fn usable_id(text: &[u8]) -> Option<Value> {
    match serde_json::from_slice::<Value>(text.trim_ascii()).ok()? {
        id @ (Value::Number(_) | Value::String(_)) => Some(id),
        _ => None,
    }
}

/// The `id` of a message that ends with it: `…,"id":7}` or `…, "id": "a-1" }`.
fn id_at_end(tail: &[u8]) -> Option<Value> {
    let text = tail.trim_ascii_end().strip_suffix(b"}")?.trim_ascii_end();
    let value_start = if text.ends_with(b"\"") {
        // A string id: back to its opening quote (ids with escaped quotes are not found).
        let inner = &text[..text.len() - 1];
        inner.iter().rposition(|b| *b == b'"')?
    } else {
        text.iter()
            .rposition(|b| !(b.is_ascii_digit() || b"-+.eE".contains(b)))?
            + 1
    };
    let before = text[..value_start].trim_ascii_end().strip_suffix(b":")?;
    let before = before.trim_ascii_end().strip_suffix(b"\"id\"")?;
    if !before.trim_ascii_end().ends_with(b",") {
        return None;
    }
    usable_id(&text[value_start..])
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    async fn read_through(input: &[u8], limit: usize) -> (String, Vec<String>) {
        let log = Arc::new(ServerLog::default());
        let mut reader = LineLimit::new(input, limit, log.clone());
        let mut out = Vec::new();
        reader.read_to_end(&mut out).await.unwrap();
        let notes = log.lines().into_iter().map(|l| l.text).collect();
        (String::from_utf8(out).unwrap(), notes)
    }

    fn big_answer(id: &str, size: usize, id_first: bool) -> String {
        let text = "x".repeat(size);
        if id_first {
            format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"text":"{text}"}}}}"#)
        } else {
            format!(r#"{{"result":{{"id":1,"text":"{text}"}},"jsonrpc":"2.0", "id" : {id} }}"#)
        }
    }

    fn stand_in_of(out: &str) -> Value {
        let line = out
            .lines()
            .find(|l| l.contains("max_response_bytes"))
            .expect("a stand-in answer");
        serde_json::from_str(line).unwrap()
    }

    #[tokio::test]
    async fn lines_within_the_limit_pass_untouched() {
        let input = "{\"a\":1}\n\n{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\r\nlast";
        let (out, notes) = read_through(input.as_bytes(), 64).await;
        assert_eq!(out, input);
        assert!(notes.is_empty());
    }

    #[tokio::test]
    async fn an_oversized_answer_becomes_an_error_for_its_request() {
        let big = big_answer("7", 10_000, true);
        let input = format!("{{\"before\":1}}\n{big}\n{{\"after\":2}}\n");
        let (out, notes) = read_through(input.as_bytes(), 5_000).await;
        assert!(out.starts_with("{\"before\":1}\n"), "{out:.80}");
        assert!(out.ends_with("{\"after\":2}\n"), "{out:.80}");
        assert!(
            out.len() < 5_000 + 1_000,
            "the oversized line is not passed whole"
        );
        let answer = stand_in_of(&out);
        assert_eq!(answer["id"], 7);
        assert_eq!(answer["error"]["code"], TOO_LARGE_CODE);
        assert_eq!(answer["error"]["data"]["limit"], 5_000);
        assert_eq!(answer["error"]["data"]["size"], big.len());
        assert!(notes[0].contains("max_response_bytes (5000)"), "{notes:?}");
    }

    #[tokio::test]
    async fn the_id_is_found_at_the_end_and_nested_ids_are_not_taken() {
        let big = big_answer("\"req-9\"", 10_000, false);
        let (out, _) = read_through(format!("{big}\n").as_bytes(), 5_000).await;
        assert_eq!(stand_in_of(&out)["id"], "req-9");
    }

    #[tokio::test]
    async fn a_message_without_an_id_is_dropped_with_a_note() {
        let text = "y".repeat(10_000);
        let input = format!(
            "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{{\"data\":\"{text}\"}}}}\n{{\"ok\":1}}\n"
        );
        let (out, notes) = read_through(input.as_bytes(), 5_000).await;
        assert!(!out.contains("max_response_bytes"));
        assert!(out.ends_with("{\"ok\":1}\n"));
        assert!(notes[0].contains("no request id"), "{notes:?}");
    }

    #[tokio::test]
    async fn an_oversized_line_split_across_reads_is_handled() {
        // A reader that gives one byte range at a time, like a slow pipe.
        let big = big_answer("3", 200_000, true);
        let input = format!("{big}\n{{\"ok\":1}}\n");
        let (client, mut server) = tokio::io::duplex(1024);
        let writer = tokio::spawn(async move {
            use tokio::io::AsyncWriteExt;
            for piece in input.as_bytes().chunks(777) {
                server.write_all(piece).await.unwrap();
            }
        });
        let log = Arc::new(ServerLog::default());
        let mut reader = LineLimit::new(client, 100_000, log);
        let mut out = Vec::new();
        reader.read_to_end(&mut out).await.unwrap();
        writer.await.unwrap();
        let out = String::from_utf8(out).unwrap();
        assert_eq!(stand_in_of(&out)["id"], 3);
        assert!(out.ends_with("{\"ok\":1}\n"));
    }

    #[tokio::test]
    async fn invalid_utf8_becomes_replacement_characters_even_across_reads() {
        let mut input = b"{\"text\":\"a\xffb \xe2\x98".to_vec();
        input.extend_from_slice(b"\x83 c\"}\n");
        let (client, mut server) = tokio::io::duplex(64);
        let writer = tokio::spawn(async move {
            use tokio::io::AsyncWriteExt;
            // Split inside the three bytes of U+2603: the reader must not break it.
            for piece in input.chunks(14) {
                server.write_all(piece).await.unwrap();
                server.flush().await.unwrap();
                tokio::task::yield_now().await;
            }
        });
        let log = Arc::new(ServerLog::default());
        let mut reader = LineLimit::new(client, 1000, log.clone());
        let mut out = Vec::new();
        reader.read_to_end(&mut out).await.unwrap();
        writer.await.unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "{\"text\":\"a\u{FFFD}b \u{2603} c\"}\n"
        );
        assert!(
            log.lines()[0].text.contains("1 invalid UTF-8"),
            "{:?}",
            log.lines()
        );
    }

    /// `server` lines read through a guard that knows mcpick sent `requests`.
    async fn answers_to(requests: &str, server: &str) -> (String, Vec<String>) {
        use tokio::io::AsyncWriteExt;
        let sent = SentIds::default();
        let mut writer = RecordIds::new(Vec::new(), sent.clone());
        // Written in two pieces, cut inside a message, as a framed writer may.
        let (first, second) = requests.as_bytes().split_at(requests.len() / 2);
        writer.write_all(first).await.unwrap();
        writer.write_all(second).await.unwrap();
        let log = Arc::new(ServerLog::default());
        let mut reader = LineLimit::new(server.as_bytes(), 1 << 20, log.clone()).answering(sent);
        let mut out = Vec::new();
        reader.read_to_end(&mut out).await.unwrap();
        let notes = log.lines().into_iter().map(|l| l.text).collect();
        (String::from_utf8(out).unwrap(), notes)
    }

    #[tokio::test]
    async fn responses_pass_only_to_requests_waiting_for_them() {
        let requests = concat!(
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":"a-1","method":"prompts/list"}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":7,"result":{}}"#,
            "\n",
        );
        let server = concat!(
            r#"{"jsonrpc":"2.0","id":99,"result":{"stray":true}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":"0","result":{"wrong type":true}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"?"}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":0,"result":{"ok":0}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":0,"result":{"again":true}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#,
            "\n",
            r#"{"jsonrpc":"2.0","method":"notifications/message","params":{}}"#,
            "\n",
            r#"{"id":"a-1","jsonrpc":"2.0","error":{"code":1,"message":"no"}}"#,
            "\n",
            "not json at all\n",
        );
        let (out, notes) = answers_to(requests, server).await;
        assert_eq!(
            out,
            concat!(
                r#"{"jsonrpc":"2.0","id":0,"result":{"ok":0}}"#,
                "\n",
                r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#,
                "\n",
                r#"{"jsonrpc":"2.0","method":"notifications/message","params":{}}"#,
                "\n",
                r#"{"id":"a-1","jsonrpc":"2.0","error":{"code":1,"message":"no"}}"#,
                "\n",
                "not json at all\n",
            )
        );
        assert_eq!(notes.len(), 4, "{notes:?}");
        assert!(notes[0].contains("id 99"), "{notes:?}");
        assert!(notes[1].contains("id \"0\""), "{notes:?}");
    }

    #[tokio::test]
    async fn an_oversized_stray_answer_gets_no_stand_in() {
        let requests = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"prompts/get\"}\n";
        let big = big_answer("1", 2_000_000, true);
        let stray = big_answer("2", 2_000_000, true);
        let (out, notes) = answers_to(requests, &format!("{stray}\n{big}\n")).await;
        let answers: Vec<&str> = out
            .lines()
            .filter(|l| l.contains("max_response_bytes"))
            .collect();
        assert_eq!(answers.len(), 1, "{notes:?}");
        assert!(answers[0].contains("\"id\":1"));
    }

    #[tokio::test]
    async fn a_line_longer_than_memory_holds_passes_whole_through_its_file() {
        let big = big_answer("5", 3 * MEMORY_HOLD_BYTES, true);
        let input = format!("{{\"before\":1}}\n{big}\n{{\"after\":2}}\n");
        let (client, mut server) = tokio::io::duplex(64 * 1024);
        let expected = input.clone();
        let writer = tokio::spawn(async move {
            use tokio::io::AsyncWriteExt;
            for piece in input.as_bytes().chunks(100_003) {
                server.write_all(piece).await.unwrap();
            }
        });
        let log = Arc::new(ServerLog::default());
        let mut reader = LineLimit::new(client, 8 * MEMORY_HOLD_BYTES, log.clone());
        let mut out = Vec::new();
        reader.read_to_end(&mut out).await.unwrap();
        writer.await.unwrap();
        assert!(out == expected.as_bytes(), "not passed byte for byte");
        assert!(log.lines().is_empty(), "{:?}", log.lines());
    }

    #[tokio::test]
    async fn an_oversized_line_is_let_go_of_before_it_ends() {
        use tokio::io::AsyncWriteExt;
        let limit = 4 * MEMORY_HOLD_BYTES;
        let (client, mut server) = tokio::io::duplex(64 * 1024);
        let log = Arc::new(ServerLog::default());
        let mut reader = LineLimit::new(client, limit, log);
        let head = br#"{"jsonrpc":"2.0","id":9,"result":{"text":""#;
        let body = vec![b'x'; limit + MEMORY_HOLD_BYTES];
        let writer = tokio::spawn(async move {
            server.write_all(head).await.unwrap();
            server.write_all(&body).await.unwrap();
            server
        });
        // Read while the line is written (the pipe holds 64 KiB): no byte of the unfinished
        // line is ready for the transport.
        let mut buf = vec![0; 8192];
        while !writer.is_finished() {
            let read =
                tokio::time::timeout(std::time::Duration::from_millis(50), reader.read(&mut buf))
                    .await;
            assert!(read.is_err(), "bytes of an unfinished line were passed on");
        }
        let mut server = writer.await.unwrap();
        // Takes in what the writer's last write left in the pipe.
        let read =
            tokio::time::timeout(std::time::Duration::from_millis(50), reader.read(&mut buf)).await;
        assert!(read.is_err(), "bytes of an unfinished line were passed on");
        // Over the limit and not yet ended: nothing of it is held any more.
        assert!(reader.skipping, "the limit was not noticed");
        assert!(reader.line.is_empty(), "the oversized line is still held");
        assert!(reader.ready.is_empty());
        server.write_all(b"\"}}\n{\"ok\":1}\n").await.unwrap();
        drop(server);
        let mut out = Vec::new();
        reader.read_to_end(&mut out).await.unwrap();
        let out = String::from_utf8(out).unwrap();
        assert_eq!(stand_in_of(&out)["id"], 9);
        assert!(out.ends_with("}\n{\"ok\":1}\n"), "{out}");
        assert!(
            out.len() < 1000,
            "only the stand-in and the next line: {out}"
        );
    }

    #[test]
    fn ids_at_the_end_are_read_strictly() {
        assert_eq!(id_at_end(br#","id":12}"#), Some(Value::from(12)));
        assert_eq!(id_at_end(br#", "id" : "a" } "#), Some(Value::from("a")));
        assert_eq!(id_at_end(br#"{"id":12}}"#), None);
        assert_eq!(id_at_end(br#","id":null}"#), None);
        assert_eq!(id_at_end(br#","xid":5}"#), None);
    }
}
