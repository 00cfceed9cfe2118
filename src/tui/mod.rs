//! The full-screen runner: owns the terminal, runs the loop, and carries out the app's
//! effects as tasks whose results come back as messages. The loop never awaits the network.

mod answers;
mod graphics;
mod terminal;

pub use graphics::{Replies, ask_terminal};

use std::collections::HashMap;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::Duration;

use crossterm::event::{Event, EventStream, KeyEventKind, MouseButton, MouseEventKind};
use futures::StreamExt;
use tokio::sync::mpsc;
use tokio::task::AbortHandle;

use crate::app::{
    App, Draft, Effect, Exit, FormDrafts, History, KeyMap, Msg, Options, Screen, TICK_MS,
};
use crate::config::{InputValues, ServerConfig};
use crate::export::clipboard::{self, Copied};
use crate::export::sink;
use crate::mcp::{Hub, McpError, McpEvent};
use terminal::TerminalGuard;
pub use terminal::{Height, ScreenMode};

/// How long shutdown waits for servers before leaving them to the OS.
const SHUTDOWN_WAIT: Duration = Duration::from_secs(2);
/// The exit code when the user left without a result (as fzf's).
pub const CANCELLED: u8 = 130;
/// The exit code when nothing matched (`--exit-0`, a prompt not found), as fzf's.
pub const NO_MATCH: u8 = 1;
/// How often the loop checks whether a task panicked.
const PANIC_CHECK: Duration = Duration::from_millis(200);
/// How often ages by the wall clock are drawn again while they are shown.
const CLOCK: Duration = Duration::from_secs(1);
const INTERNAL_ERROR: &str = "mcpick hit an internal error (a bug) and stopped; the message above and the log file say where";

/// Messages handled before a frame is drawn, at most (bursts are coalesced).
const BATCH: usize = 256;

/// What the run ended with.
#[derive(Debug)]
pub struct Outcome {
    /// The process exit code.
    pub code: u8,
    /// Text to print on stdout after the terminal is restored (`--print`).
    pub print: Option<String>,
    /// What the export left changed so its API takes it, for stderr (see
    /// [`crate::export::notes`]).
    pub notes: Vec<String>,
}

/// Runs the TUI over `servers` until the user leaves. `notice` is shown at start.
pub async fn run(
    servers: Vec<ServerConfig>,
    options: Options,
    keys: KeyMap,
    notice: Option<String>,
    offer: Vec<crate::app::SourceOffer>,
    screen: ScreenMode,
) -> Result<Outcome, String> {
    let (mut app, catalog) = prepare_app(&servers, options, keys, notice, offer);

    let mut guard = TerminalGuard::enter(screen)?;
    if let Ok((columns, rows)) = crossterm::terminal::size() {
        let (columns, rows) = guard.drawing_size(columns, rows);
        app.update(Msg::Resize(columns, rows));
    }
    // The first frame, before any server is even started.
    guard.draw(&app)?;
    // Raw mode is on and nothing reads the terminal yet: its answers to the graphics
    // queries are read here (after the first frame, so that waits for nothing).
    let wants_background = app.options.light_theme.is_some() && app.options.color;
    let graphics::Detected {
        graphics: detected,
        typed,
        background,
    } = graphics::detect_all(app.options.image_protocol, wants_background);
    app.options.graphics = detected;
    // `base = "auto"`: the light base's colours on a light background.
    if let Some(luminance) = background {
        app.update(Msg::Background(luminance));
    }
    tracing::info!(?background, light = app.options.theme.light, "theme chosen");

    let (mcp_tx, mut mcp_rx) = mpsc::channel::<McpEvent>(256);
    let (msg_tx, mut msg_rx) = mpsc::unbounded_channel::<Msg>();
    // Keys typed while the terminal was asked were read with its answers: handed on here.
    for key in graphics::typed_keys(&typed) {
        let _ = msg_tx.send(Msg::Key(key));
    }
    // The grammars take tens of ms to load: on a thread of their own, code plain until then.
    let highlighter_tx = msg_tx.clone();
    crate::render::highlight::start_loading(move || {
        let _ = highlighter_tx.send(Msg::HighlighterReady);
    });
    let mut runner = Runner {
        hubs: Vec::new(),
        mcp_events: mcp_tx,
        results: msg_tx,
        fetches: HashMap::new(),
        completion: None,
        command: None,
        audio: None,
        clipboard: app.options.clipboard.clone(),
        waiting: Vec::new(),
        input_values: InputValues::default(),
        started: HashMap::new(),
        with_inputs: HashMap::new(),
        hub_of: HashMap::new(),
        catalog,
        layouts: None,
    };
    runner.start(servers, true);
    let mut events = EventStream::new();
    // Clicks carry their time from here, so update can tell a double click.
    let started = std::time::Instant::now();
    let mut tick = tokio::time::interval(Duration::from_millis(TICK_MS));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    // Ages by the wall clock on screen ("listed 5 s ago") move by the second, not the tick.
    let mut clock = tokio::time::interval(CLOCK);
    clock.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let stop = crate::sys::signals::stopped();
    tokio::pin!(stop);
    let mut job_control = crate::sys::signals::JobControl::new();
    let mut signal_code = None;
    let mut panic_check = tokio::time::interval(PANIC_CHECK);
    // Answers to the start's queries that come later are no keys.
    let mut late = answers::LateAnswers::new();

    while app.exit.is_none() {
        let wants_ticks = app.wants_ticks();
        let shows_ages = app.shows_catalog_age();
        let held = late.deadline();
        let first = tokio::select! {
            event = events.next() => match event {
                Some(Ok(event)) => { late.feed(event, started.elapsed()); None }
                Some(Err(error)) => return finish(guard, runner.hubs, Err(format!("cannot read the terminal: {error}"))).await,
                None => { app.exit = Some(Exit::Quit); None }
            },
            Some(event) = mcp_rx.recv() => Some(Msg::Mcp(event)),
            Some(msg) = msg_rx.recv() => Some(msg),
            _ = tick.tick(), if wants_ticks => Some(Msg::Tick),
            _ = clock.tick(), if shows_ages => Some(Msg::Clock),
            code = &mut stop => { signal_code = Some(code); break; }
            job = job_control.next() => {
                // Suspended: the terminal as the shell left it, then stopped until `fg`.
                // Continued (after this stop or any other): the menu's modes again, the
                // whole screen redrawn, at the size the terminal has now.
                if job == crate::sys::signals::JobSignal::Suspend {
                    guard.suspend_for(crate::sys::signals::stop_now);
                } else {
                    guard.take_back();
                }
                crossterm::terminal::size().ok().map(|(columns, rows)| Msg::Resize(columns, rows))
            }
            _ = panic_check.tick() => {
                if terminal::PANICKED.load(std::sync::atomic::Ordering::SeqCst) {
                    break;
                }
                None
            }
            _ = tokio::time::sleep(held.unwrap_or_default().saturating_sub(started.elapsed())), if held.is_some() => {
                late.expire(started.elapsed());
                None
            }
        };
        let pending = gather(first, &mut late, &mut mcp_rx, &mut msg_rx, &mut guard);
        for msg in last_resize_only(pending) {
            // The app's clock for the times it keeps (logs, notices): the one the servers'
            // lines carry, so the pane's times are one timeline.
            app.now_ms = crate::mcp::since_start_ms();
            app.wall_ms = crate::cache::now_ms();
            for effect in app.update(msg) {
                if let Some(msg) = runner.run(effect, &mut guard, &mut events) {
                    for effect in app.update(msg) {
                        // An effect's immediate answer never asks for the terminal again.
                        let _ = runner.run(effect, &mut guard, &mut events);
                    }
                }
            }
        }
        guard.draw(&app)?;
        // What the frame laid out with code left plain is laid out whole off the loop.
        for effect in app.layouts_wanted() {
            let _ = runner.run(effect, &mut guard, &mut events);
        }
    }
    if terminal::PANICKED.load(std::sync::atomic::Ordering::SeqCst) {
        return finish(guard, runner.hubs, Err(INTERNAL_ERROR.to_string())).await;
    }
    let result = Ok(outcome_of(&mut app, signal_code));
    finish(guard, runner.hubs, result).await
}

/// The messages to handle before the next frame: `first`, what the late answers let
/// through, and what is already waiting (up to [`BATCH`]), each resize at the size the app
/// draws in.
fn gather(
    first: Option<Msg>,
    late: &mut answers::LateAnswers,
    mcp_rx: &mut mpsc::Receiver<McpEvent>,
    msg_rx: &mut mpsc::UnboundedReceiver<Msg>,
    guard: &mut TerminalGuard,
) -> Vec<Msg> {
    let mut pending: Vec<Msg> = first.into_iter().collect();
    pending.extend(late.take().into_iter().filter_map(|passed| match passed {
        answers::Passed::Event(event, at) => translate(event, guard.top(), guard.hits(), at),
        answers::Passed::Background(luminance) => Some(Msg::Background(luminance)),
    }));
    // Coalesce what is already waiting, then draw once.
    while pending.len() < BATCH {
        if let Ok(event) = mcp_rx.try_recv() {
            pending.push(Msg::Mcp(event));
        } else if let Ok(msg) = msg_rx.try_recv() {
            pending.push(msg);
        } else {
            break;
        }
    }
    // Inline, the app draws in the rows it has, not the whole terminal: the terminal
    // follows every size in turn, the app only the last.
    pending
        .into_iter()
        .map(|msg| match msg {
            Msg::Resize(columns, rows) => {
                let (columns, rows) = guard.resized(columns, rows);
                Msg::Resize(columns, rows)
            }
            msg => msg,
        })
        .collect()
}

/// The app before the terminal is taken: the history, the unsent form values and the
/// review's draft read back (each problem said on screen), and the catalog on disk in the
/// menu before any server starts; with the catalog, for the servers' start.
fn prepare_app(
    servers: &[ServerConfig],
    options: Options,
    keys: KeyMap,
    notice: Option<String>,
    offer: Vec<crate::app::SourceOffer>,
) -> (App, HashMap<String, crate::cache::ServerEntry>) {
    let (history, history_problem) = load_history();
    let names = servers.iter().map(|s| s.name.clone()).collect();
    let mut app = App::new(names, options, keys, history);
    app.offer = offer;
    app.server_sources = servers
        .iter()
        .filter_map(|s| Some((s.name.clone(), s.source.clone()?)))
        .collect();
    if let Some(problem) = history_problem {
        app.warn(problem);
    } else if let Some(notice) = notice {
        app.notify_until_a_key(notice);
    }
    match read_data_file(form_drafts_path()).and_then(|file| {
        file.map(|(path, text)| {
            FormDrafts::from_json(&text)
                .map_err(|e| format!("{e}; {} is left there", path.display()))
        })
        .transpose()
    }) {
        Ok(drafts) => app.form_drafts = drafts.unwrap_or_default(),
        Err(problem) => app.warn(problem),
    }
    match load_draft() {
        Ok(Some(draft)) => app.restore_draft(draft),
        Ok(None) => {}
        Err(problem) => app.warn(problem),
    }
    // The catalog on disk fills the menu before any server starts (small files, read here).
    app.wall_ms = crate::cache::now_ms();
    let catalog = load_catalog(servers, &mut app);

    (app, catalog)
}

/// What the run ended with, once the loop is left: the review's draft kept after a
/// signal (deleted after a leave on purpose), the exit code as fzf's, the export's notes.
fn outcome_of(app: &mut App, signal_code: Option<u8>) -> Outcome {
    // A signal keeps the edits (the newest too); leaving on purpose exported or discarded them.
    match (&signal_code, &app.screen) {
        (Some(_), Screen::Review(review)) if review.has_unsaved_work() => {
            save_draft(&review.draft())
        }
        (Some(_), _) => {}
        (None, _) => delete_draft(),
    }
    // Exit codes as fzf's: 0 accepted, 1 no match, 130 cancelled. Leaving without a result
    // is a cancel (`--print`/`--output`: nothing was accepted; the menu: nothing exported),
    // so `mcpick --print | llm` and a shell widget can tell a cancel from a result.
    let wanted_output = app.options.print || app.options.output.is_some();
    // The export that left (printed, saved or copied) is told of what it changed.
    let exported = signal_code.is_none()
        && (matches!(app.exit, Some(Exit::Print(_) | Exit::Accepted)) || app.exported_any);
    let notes = match &app.screen {
        Screen::Review(review) if exported => {
            crate::export::labelled_notes(&review.current(), review.format)
        }
        _ => Vec::new(),
    };
    let code = match (signal_code, app.exit.take()) {
        (Some(code), _) => code,
        (None, Some(Exit::Print(text))) => {
            return Outcome {
                code: 0,
                print: Some(text),
                notes,
            };
        }
        (None, Some(Exit::Accepted)) => 0,
        (None, Some(Exit::NoMatch)) => NO_MATCH,
        (None, Some(Exit::Quit) | None) if !wanted_output && app.exported_any => 0,
        (None, Some(Exit::Quit) | None) => CANCELLED,
    };
    Outcome {
        code,
        print: None,
        notes,
    }
}

async fn finish(
    guard: TerminalGuard,
    hubs: Vec<Hub>,
    result: Result<Outcome, String>,
) -> Result<Outcome, String> {
    drop(guard);
    let shutdowns = futures::future::join_all(hubs.into_iter().map(Hub::shutdown));
    let _ = tokio::time::timeout(SHUTDOWN_WAIT, shutdowns).await;
    result
}

/// Terminal events as app messages; key releases and repeats of nothing are dropped.
/// `top` is the first terminal row the app draws in (inline mode draws below the prompt),
/// `since_start` the time of the event, so a click carries both as the app sees them, and
/// `hits` what the last frame drew under it.
fn translate(
    event: Event,
    top: u16,
    hits: &crate::app::Hits,
    since_start: std::time::Duration,
) -> Option<Msg> {
    match event {
        Event::Key(key) if key.kind != KeyEventKind::Release => Some(Msg::Key(key)),
        Event::Paste(text) => Some(Msg::Paste(text)),
        Event::Mouse(mouse) => match mouse.kind {
            MouseEventKind::ScrollUp => Some(Msg::WheelUp),
            MouseEventKind::ScrollDown => Some(Msg::WheelDown),
            // A click above the inline rows is not the app's.
            MouseEventKind::Down(MouseButton::Left) => Some(Msg::Click {
                column: mouse.column,
                row: mouse.row.checked_sub(top)?,
                at_ms: since_start.as_millis() as u64,
                // The frame was drawn in terminal cells, inline rows included.
                target: hits.at(mouse.column, mouse.row),
            }),
            _ => None,
        },
        Event::Resize(columns, rows) => Some(Msg::Resize(columns, rows)),
        _ => None,
    }
}

/// Where the review's draft is kept while it has unexported edits.
fn draft_path() -> Option<PathBuf> {
    crate::config::data_dir().map(|d| d.join("draft.json"))
}

/// The text of a file in the data dir: `None` when there is no such file (or no data dir),
/// an error saying which file when it cannot be read.
fn read_data_file(path: Option<PathBuf>) -> Result<Option<(PathBuf, String)>, String> {
    let Some(path) = path else {
        return Ok(None);
    };
    match std::fs::read_to_string(&path) {
        Ok(text) => Ok(Some((path, text))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("cannot read {}: {e}", path.display())),
    }
}

/// The draft a run left behind (it crashed, was killed, or got a signal), if any.
fn load_draft() -> Result<Option<Draft>, String> {
    let Some((path, text)) = read_data_file(draft_path())? else {
        return Ok(None);
    };
    serde_json::from_str(&text).map(Some).map_err(|e| {
        format!(
            "the draft {} cannot be read ({e}); it is left there",
            path.display()
        )
    })
}

/// Writes the draft at once (small, and a later delete must not be overtaken by it).
fn save_draft(draft: &Draft) {
    let Some(path) = draft_path() else { return };
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let json = serde_json::to_vec(draft).unwrap_or_default();
    if let Err(error) = sink::write_atomic(&path, &json, true) {
        tracing::warn!(?error, "cannot save the draft");
    }
}

fn delete_draft() {
    if let Some(path) = draft_path() {
        let _ = std::fs::remove_file(path);
    }
}

/// Where the forms' unsent values are kept.
fn form_drafts_path() -> Option<PathBuf> {
    crate::config::data_dir().map(|d| d.join(FormDrafts::FILE))
}

fn history_path() -> Option<PathBuf> {
    crate::config::data_dir().map(|d| d.join(History::FILE))
}

fn load_history() -> (History, Option<String>) {
    match read_data_file(history_path()) {
        Ok(None) => (History::default(), None),
        Ok(Some((path, text))) => match History::from_json(&text) {
            Ok(history) => (history, None),
            Err(problem) => (
                History::default(),
                Some(format!("{problem} ({})", path.display())),
            ),
        },
        Err(problem) => (History::default(), Some(problem)),
    }
}

/// Carries out effects.
struct Runner {
    /// The servers of the config, then those added from other hosts' configs at run time.
    hubs: Vec<Hub>,
    /// Where new hubs send their events.
    mcp_events: mpsc::Sender<McpEvent>,
    results: mpsc::UnboundedSender<Msg>,
    fetches: HashMap<u64, AbortHandle>,
    completion: Option<AbortHandle>,
    /// The shell command running for a value (dropping its task kills it).
    command: Option<AbortHandle>,
    /// The audio player running, by request id (dropping its task kills it).
    audio: Option<(u64, AbortHandle)>,
    /// The config's clipboard route and command.
    clipboard: clipboard::ClipboardSettings,
    /// Servers waiting for inputs (`${input:ID}`) before they start.
    waiting: Vec<ServerConfig>,
    /// The inputs typed so far: in memory only, for every server that uses them.
    input_values: InputValues,
    /// Every started server's config (inputs filled in), to restart it after a sign-in.
    started: HashMap<String, ServerConfig>,
    /// Servers that use inputs, as configured, to start again with new values.
    with_inputs: HashMap<String, ServerConfig>,
    /// Which hub (an index into `hubs`) runs each started server now: the newest one.
    hub_of: HashMap<String, usize>,
    /// Each server's catalog entry read at start, until its hub takes it.
    catalog: HashMap<String, crate::cache::ServerEntry>,
    /// The thread laying bodies out whole, started at the first one asked.
    layouts: Option<std::sync::mpsc::Sender<LayoutJob>>,
}

/// A batch of messages with only its last resize: the sizes before it are never drawn,
/// and each costs a layout of the review's selected body (tens of ms for a long one)
/// while a window edge is dragged.
fn last_resize_only(pending: Vec<Msg>) -> Vec<Msg> {
    let last = pending
        .iter()
        .rposition(|msg| matches!(msg, Msg::Resize(..)));
    pending
        .into_iter()
        .enumerate()
        .filter(|(at, msg)| !matches!(msg, Msg::Resize(..)) || Some(*at) == last)
        .map(|(_, msg)| msg)
        .collect()
}

/// A body's whole layout asked for ([`Effect::LayOutBody`]).
struct LayoutJob {
    body: u64,
    key: crate::render::rows::RowsKey,
    content: crate::model::Content,
}

/// Of `waiting` (oldest first), each body's last two jobs, in their order: the layouts a
/// body still keeps.
fn still_kept(waiting: Vec<LayoutJob>) -> Vec<LayoutJob> {
    let mut kept: Vec<LayoutJob> = Vec::new();
    for job in waiting.into_iter().rev() {
        if kept.iter().filter(|k| k.body == job.body).count() < 2 {
            kept.push(job);
        }
    }
    kept.reverse();
    kept
}

/// Starts the thread that lays bodies out whole, one at a time, answering on `results`.
/// A resize asks for a layout at every width it passes; a body keeps only its last two
/// layouts, so of the jobs waiting only each body's last two are done.
fn start_layouts(
    results: mpsc::UnboundedSender<Msg>,
) -> std::io::Result<std::sync::mpsc::Sender<LayoutJob>> {
    let (jobs_tx, jobs) = std::sync::mpsc::channel::<LayoutJob>();
    std::thread::Builder::new()
        .name("layouts".into())
        .spawn(move || {
            while let Ok(first) = jobs.recv() {
                let waiting = std::iter::once(first).chain(jobs.try_iter()).collect();
                for LayoutJob { body, key, content } in still_kept(waiting) {
                    let rows = crate::render::rows::whole_rows(&content, key);
                    if results.send(Msg::BodyLaidOut { body, key, rows }).is_err() {
                        return;
                    }
                }
            }
        })?;
    Ok(jobs_tx)
}

/// Reads every server's catalog entry, shows its prompts in `app` (marked cached) and the
/// notice of a broken file; returns the entries for the hubs.
fn load_catalog(
    servers: &[ServerConfig],
    app: &mut App,
) -> HashMap<String, crate::cache::ServerEntry> {
    let mut entries = HashMap::new();
    for server in servers {
        let (entry, notice) =
            crate::cache::at_start(server, || crate::mcp::oauth::authorization_context(server));
        if let Some(notice) = notice {
            app.warn(notice);
        }
        if let Some(entry) = entry {
            app.show_cached(&entry);
            entries.insert(server.name.clone(), entry);
        }
    }
    entries
}

/// A server that died mid-request: its last stderr line goes with the error, as the CLI
/// shows it (the rest is in the logs pane).
fn with_last_words(error: McpError, connection: &crate::mcp::Connection) -> McpError {
    // The connection waited for the stderr pipe to drain before calling it closed.
    let McpError::Closed(how) = error else {
        return error;
    };
    match connection.log().last_stderr_line() {
        Some(line) => McpError::Closed(format!("{how}; its last stderr line: {line}")),
        None => McpError::Closed(how),
    }
}

impl Runner {
    /// Starts `servers` in a new hub, except those still waiting for inputs; with
    /// `announce` the app hears which wait.
    fn start(&mut self, servers: Vec<ServerConfig>, announce: bool) {
        let env = |name: &str| std::env::var(name).ok();
        for server in servers.iter().filter(|s| !s.inputs.is_empty()) {
            self.with_inputs
                .entry(server.name.clone())
                .or_insert_with(|| server.clone());
        }
        let (ready, waiting): (Vec<ServerConfig>, Vec<ServerConfig>) = servers
            .into_iter()
            .map(|s| s.with_inputs(&self.input_values, &env))
            .partition(|s| s.inputs.is_empty());
        if announce && !waiting.is_empty() {
            let needed = waiting
                .iter()
                .map(|s| (s.name.clone(), s.inputs.clone()))
                .collect();
            let _ = self.results.send(Msg::InputsNeeded(needed));
        }
        self.waiting.extend(waiting);
        for server in &ready {
            // One live copy of a server: a restart, sign-in or new input replaces the old.
            for hub in &self.hubs {
                hub.stop(&server.name);
            }
            self.started.insert(server.name.clone(), server.clone());
        }
        if !ready.is_empty() {
            for server in &ready {
                self.hub_of.insert(server.name.clone(), self.hubs.len());
            }
            // Each server with its catalog entry (a restart gets none: it lists anew).
            let servers: Vec<(ServerConfig, Option<crate::cache::ServerEntry>)> = ready
                .into_iter()
                .map(|s| {
                    let entry = self.catalog.remove(&s.name);
                    (s, entry)
                })
                .collect();
            let hub = Hub::start_cached(servers, self.mcp_events.clone(), true);
            self.hubs.push(hub);
        }
    }

    /// The hub that runs `server` now.
    fn hub(&self, server: &str) -> Option<&Hub> {
        self.hubs.get(*self.hub_of.get(server)?)
    }

    fn connection(&self, server: &str) -> Option<std::sync::Arc<crate::mcp::Connection>> {
        // The newest hub first: a server restarted after a sign-in lives there.
        self.hubs
            .iter()
            .rev()
            .find_map(|hub| hub.connection(server))
    }

    /// Starts `effect`; effects that finish at once return their message.
    fn run(
        &mut self,
        effect: Effect,
        guard: &mut TerminalGuard,
        events: &mut EventStream,
    ) -> Option<Msg> {
        match effect {
            Effect::Copy { text, leave } => self.copy(text, leave, guard),
            Effect::Suspend => {
                // As a SIGTSTP from outside: the terminal given back, stopped until `fg`,
                // then the whole screen drawn again at the size the terminal has now.
                guard.suspend_for(crate::sys::signals::stop_now);
                crossterm::terminal::size()
                    .ok()
                    .map(|(columns, rows)| Msg::Resize(columns, rows))
            }
            Effect::ExternalEditor { text } => {
                // The editor reads the terminal: stop reading it here until the editor exits.
                let stream = std::mem::replace(events, EventStream::new());
                drop(stream);
                let result = guard.suspend_for(|| edit_externally(&text));
                *events = EventStream::new();
                Some(Msg::Edited(result))
            }
            Effect::Complete { .. }
            | Effect::Fetch { .. }
            | Effect::CancelFetch { .. }
            | Effect::ReadResource { .. } => self.run_request_effect(effect),
            Effect::SignIn { .. }
            | Effect::Relist { .. }
            | Effect::Restart { .. }
            | Effect::GiveInputs { .. }
            | Effect::UseSources { .. } => self.run_server_effect(effect),
            Effect::Save { .. }
            | Effect::ListFiles { .. }
            | Effect::ReadFile { .. }
            | Effect::RunCommand { .. }
            | Effect::CancelCommand
            | Effect::SaveHistory(_)
            | Effect::SaveDraft(_)
            | Effect::DeleteDraft
            | Effect::SaveFormDrafts(_) => self.run_files_effect(effect),
            Effect::LayOutBody { .. }
            | Effect::PlayAudio { .. }
            | Effect::StopAudio { .. }
            | Effect::DecodeImage { .. }
            | Effect::EncodeImage { .. } => self.run_media_effect(effect),
        }
    }

    /// Starts a request to a server: a completion, a fetch (or its cancel), a resource read.
    fn run_request_effect(&mut self, effect: Effect) -> Option<Msg> {
        match effect {
            Effect::Complete {
                id,
                server,
                prompt,
                argument,
                value,
                context,
            } => {
                let connection = self.connection(&server);
                let results = self.results.clone();
                // Only the newest completion matters: drop the one before.
                if let Some(previous) = self.completion.take() {
                    previous.abort();
                }
                let task = tokio::spawn(async move {
                    let result = match connection {
                        Some(c) => c
                            .complete(&prompt, &argument, &value, &context)
                            .await
                            .map_err(|e| e.to_string()),
                        None => Err(format!("{server} is not connected")),
                    };
                    let _ = results.send(Msg::Completed { id, result });
                });
                self.completion = Some(task.abort_handle());
                None
            }
            Effect::Fetch {
                id,
                server,
                prompt,
                arguments,
                answers,
                skill,
            } => {
                // A server still starting is waited for (the app sends a catalog's prompt
                // once it is up, so this is short); Esc drops the wait with the task.
                let connection = self.hub(&server).map(|hub| hub.wait_connection(&server));
                let results = self.results.clone();
                let task = tokio::spawn(async move {
                    let connection = match connection {
                        Some(waiting) => waiting.await,
                        None => None,
                    };
                    let result = match connection {
                        // A skill: its files read and verified, its task after them.
                        Some(c) if skill.is_some() => {
                            let manifest = skill.as_deref().expect("a skill");
                            let task = arguments
                                .get(crate::mcp::skill_verify::TASK_ARGUMENT)
                                .map(String::as_str);
                            // Supporting files are attached from the review (`o`).
                            let attach: [String; 0] = [];
                            match c
                                .load_skill(
                                    manifest,
                                    task,
                                    &attach,
                                    crate::library::skills::fill_skill,
                                )
                                .await
                            {
                                Ok(messages) => Ok(crate::mcp::GetOutcome::Messages(messages)),
                                Err(error) => Err(with_last_words(error, &c)),
                            }
                        }
                        Some(c) => match c
                            .get_prompt_round(&prompt, &arguments, answers.as_ref())
                            .await
                        {
                            Err(error) => Err(with_last_words(error, &c)),
                            ok => ok,
                        },
                        None => Err(McpError::NotConnected {
                            server,
                            why: "down (Ctrl-L shows its logs; F5 in the menu starts it again)"
                                .into(),
                        }),
                    };
                    let _ = results.send(Msg::Fetched { id, result });
                });
                self.fetches.retain(|_, handle| !handle.is_finished());
                self.fetches.insert(id, task.abort_handle());
                None
            }
            Effect::CancelFetch { id } => {
                // Dropping the request future tells the server (`notifications/cancelled`).
                if let Some(handle) = self.fetches.remove(&id) {
                    handle.abort();
                }
                None
            }
            Effect::ReadResource { id, server, uri } => {
                let connection = self.connection(&server);
                let results = self.results.clone();
                tokio::spawn(async move {
                    let result = match connection {
                        Some(c) => c.read_resource(&uri).await,
                        None => Err(McpError::NotConnected {
                            server,
                            why: "not connected".into(),
                        }),
                    };
                    let _ = results.send(Msg::ResourceRead { id, result });
                });
                None
            }
            _ => unreachable!("run sends run_request_effect only its own effects"),
        }
    }

    /// Starts an effect on the servers themselves: a sign-in, a relist, a restart, the inputs they wait for, new sources.
    fn run_server_effect(&mut self, effect: Effect) -> Option<Msg> {
        match effect {
            Effect::SignIn { server, challenge } => {
                let Some(config) = self.started.get(&server).cloned() else {
                    return Some(Msg::SignedIn {
                        server,
                        result: Err("it is not a started server".into()),
                    });
                };
                let results = self.results.clone();
                tokio::spawn(async move {
                    let show = {
                        let results = results.clone();
                        let server = server.clone();
                        move |url: &str| {
                            let _ = results.send(Msg::SignInUrl {
                                server: server.clone(),
                                url: url.to_string(),
                            });
                        }
                    };
                    // A machine grant runs as it does at connect time: no browser.
                    let result = crate::mcp::oauth::sign_in(
                        &config,
                        challenge,
                        crate::mcp::oauth::Browser::System,
                        &show,
                    )
                    .await
                    .map_err(|e| e.to_string());
                    let _ = results.send(Msg::SignedIn { server, result });
                });
                None
            }
            Effect::Relist { server } => {
                if let Some(hub) = self.hub(&server) {
                    hub.relist(&server);
                }
                None
            }
            Effect::Restart { server } => {
                // Connect again (by hand, or after a sign-in, now with the tokens).
                if let Some(config) = self.started.get(&server).cloned() {
                    self.start(vec![config], false);
                }
                None
            }
            Effect::GiveInputs { values, again } => {
                self.input_values.extend(values);
                // The app already knows which servers still wait.
                let mut servers = std::mem::take(&mut self.waiting);
                servers.extend(
                    again
                        .iter()
                        .filter_map(|name| self.with_inputs.get(name).cloned()),
                );
                self.start(servers, false);
                None
            }
            Effect::UseSources { sources } => Some(Msg::SourcesAdded(self.use_sources(&sources))),
            _ => unreachable!("run sends run_server_effect only its own effects"),
        }
    }

    /// Starts an effect on files or a command: saves, listings, reads, the `!` command, history and drafts.
    fn run_files_effect(&mut self, effect: Effect) -> Option<Msg> {
        match effect {
            Effect::Save {
                path,
                contents,
                overwrite,
                purpose,
            } => {
                let results = self.results.clone();
                let path = PathBuf::from(crate::config::expand_tilde(&path.to_string_lossy()));
                tokio::task::spawn_blocking(move || {
                    let result = sink::write_atomic(&path, &contents, overwrite);
                    let _ = results.send(Msg::Saved {
                        purpose,
                        path,
                        result,
                    });
                });
                None
            }
            Effect::ListFiles { id } => {
                let results = self.results.clone();
                tokio::task::spawn_blocking(move || {
                    let root = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
                    let list = crate::value_io::list_files(&root, crate::value_io::WALK_CAP);
                    let _ = results.send(Msg::FilesListed { id, list });
                });
                None
            }
            Effect::ReadFile { id, path } => {
                let results = self.results.clone();
                tokio::task::spawn_blocking(move || {
                    // The app shows the words; nothing there branches on them.
                    let result =
                        crate::value_io::read_file(&path, crate::app::source::DEFAULT_VALUE_LIMIT)
                            .map_err(|e| e.to_string());
                    let _ = results.send(Msg::FileRead { id, result });
                });
                None
            }
            Effect::RunCommand { id, command } => {
                if let Some(previous) = self.command.take() {
                    previous.abort();
                }
                let results = self.results.clone();
                let task = tokio::spawn(async move {
                    let folder = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
                    let outcome = crate::value_io::run_command(
                        &command,
                        &folder,
                        crate::value_io::COMMAND_TIMEOUT,
                        crate::app::source::DEFAULT_VALUE_LIMIT,
                    )
                    .await;
                    let _ = results.send(Msg::CommandRan { id, outcome });
                });
                self.command = Some(task.abort_handle());
                None
            }
            Effect::CancelCommand => {
                // The child is spawned with kill_on_drop: aborting the task kills it.
                if let Some(task) = self.command.take() {
                    task.abort();
                }
                None
            }
            Effect::SaveHistory(history) => {
                if let Some(path) = history_path() {
                    tokio::task::spawn_blocking(move || {
                        if let Some(dir) = path.parent() {
                            let _ = std::fs::create_dir_all(dir);
                        }
                        if let Err(error) =
                            sink::write_atomic(&path, history.to_json().as_bytes(), true)
                        {
                            tracing::warn!(?error, "cannot save the history");
                        }
                    });
                }
                None
            }
            Effect::SaveDraft(draft) => {
                save_draft(&draft);
                None
            }
            Effect::DeleteDraft => {
                delete_draft();
                None
            }
            Effect::SaveFormDrafts(drafts) => {
                // At once, as the review's draft: small, and the next must not be overtaken.
                if let Some(path) = form_drafts_path() {
                    if let Some(dir) = path.parent() {
                        let _ = std::fs::create_dir_all(dir);
                    }
                    if let Err(error) = sink::write_atomic(&path, drafts.to_json().as_bytes(), true)
                    {
                        tracing::warn!(?error, "cannot keep the unsent form values");
                    }
                }
                None
            }
            _ => unreachable!("run sends run_files_effect only its own effects"),
        }
    }

    /// Starts an effect on a message's media: laying out a body, audio, images.
    fn run_media_effect(&mut self, effect: Effect) -> Option<Msg> {
        match effect {
            Effect::LayOutBody { body, key, content } => {
                // CPU work (highlighting): a thread of its own, never the loop's.
                if self.layouts.is_none() {
                    match start_layouts(self.results.clone()) {
                        Ok(jobs) => self.layouts = Some(jobs),
                        // The code stays plain where it was left so: nothing else waits on it.
                        Err(error) => tracing::warn!("cannot start the layouts' thread: {error}"),
                    }
                }
                if let Some(jobs) = &self.layouts {
                    let _ = jobs.send(LayoutJob {
                        body,
                        key,
                        content: *content,
                    });
                }
                None
            }
            Effect::PlayAudio {
                id,
                bytes,
                extension,
                player,
            } => {
                if let Some((_, handle)) = self.audio.take() {
                    handle.abort();
                }
                let results = self.results.clone();
                let task = tokio::spawn(async move {
                    let result = play(bytes, &extension, player).await;
                    let _ = results.send(Msg::AudioEnded { id, result });
                });
                self.audio = Some((id, task.abort_handle()));
                None
            }
            Effect::StopAudio { id } => {
                if let Some((playing, handle)) = self.audio.take() {
                    if playing == id {
                        handle.abort();
                    } else {
                        self.audio = Some((playing, handle));
                    }
                }
                None
            }
            Effect::DecodeImage {
                id,
                data,
                mime,
                graphics,
                columns,
            } => {
                let results = self.results.clone();
                tokio::task::spawn_blocking(move || {
                    let result = crate::app::images::decode(&data, &graphics, columns)
                        .map_err(|why| format!("{}: {why}", crate::text::one_line(&mime)));
                    let _ = results.send(Msg::ImageDecoded { id, result });
                });
                None
            }
            Effect::EncodeImage {
                id,
                source,
                graphics,
                columns,
            } => {
                let results = self.results.clone();
                tokio::task::spawn_blocking(move || {
                    let result = crate::app::images::encode_again(&source, &graphics, columns);
                    let _ = results.send(Msg::ImageDecoded { id, result });
                });
                None
            }
            _ => unreachable!("run sends run_media_effect only its own effects"),
        }
    }

    /// Writes a config that reads `sources`, then starts the servers they hold.
    fn use_sources(
        &mut self,
        sources: &[String],
    ) -> Result<(PathBuf, Vec<(String, String)>), String> {
        let path = crate::config::default_config_path()
            .ok_or("this platform has no config directory; write a config with `sources` and pass --config")?;
        if path.exists() {
            return Err(format!(
                "{} exists now; add `sources = [...]` to it yourself (see docs/config.md in mcpick's repository)",
                path.display()
            ));
        }
        let exe =
            std::env::current_exe().map_err(|e| format!("cannot find mcpick's own binary: {e}"))?;
        let named = crate::config::self_command(&exe);
        let text = crate::config::starter_config_with_sources(
            std::path::Path::new(&named.command),
            sources,
        );
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
        sink::write_atomic(&path, text.as_bytes(), false).map_err(|e| match e {
            sink::WriteError::Exists(p) => format!("{} exists now; not replaced", p.display()),
            sink::WriteError::Failed(message) => message,
        })?;
        let config = crate::config::load(Some(&path)).map_err(|e| e.to_string())?;
        let added: Vec<ServerConfig> = config
            .servers
            .into_iter()
            .filter(|s| s.enabled && s.source.is_some())
            .collect();
        let names = added
            .iter()
            .map(|s| (s.name.clone(), s.source.clone().unwrap_or_default()))
            .collect();
        self.start(added, true);
        Ok((path, names))
    }

    /// Copies by the route this environment and the config call for. OSC 52 goes through
    /// the terminal guard at once (unconfirmed); the other routes run programs, off the
    /// loop, and answer with [`Msg::Copied`] later.
    fn copy(&mut self, text: String, leave: bool, guard: &mut TerminalGuard) -> Option<Msg> {
        let route = clipboard::choose(&clipboard::ClipboardEnv::detect(), &self.clipboard);
        tracing::info!(?route, "copying");
        if let Some(sequence) = route.terminal_sequence(&text) {
            let screen = matches!(route, clipboard::Route::Osc52 { screen: true });
            let result = guard
                .write_raw(sequence.as_bytes())
                .map(|()| Copied::Terminal { screen })
                .map_err(|e| format!("cannot write to the terminal: {e}"));
            return Some(Msg::Copied { result, leave });
        }
        let results = self.results.clone();
        tokio::spawn(async move {
            // The app shows the words; nothing there branches on them.
            let result = clipboard::copy(&route, &text)
                .await
                .map_err(|e| e.to_string());
            if let Err(error) = &result {
                tracing::info!(%error, "copy failed");
            }
            let _ = results.send(Msg::Copied { result, leave });
        });
        None
    }
}

/// Runs `$VISUAL` or `$EDITOR` (else `vi`) on a temp file holding `text`; returns the result.
pub fn edit_externally(text: &str) -> Result<String, String> {
    let editor = std::env::var("VISUAL")
        .ok()
        .filter(|v| !v.trim().is_empty())
        .or_else(|| {
            std::env::var("EDITOR")
                .ok()
                .filter(|v| !v.trim().is_empty())
        })
        .unwrap_or_else(|| "vi".to_string());
    let mut file = tempfile::Builder::new()
        .prefix("mcpick-")
        .suffix(".md")
        .tempfile()
        .map_err(|e| format!("cannot make a temp file for the editor: {e}"))?;
    file.write_all(text.as_bytes())
        .and_then(|()| file.flush())
        .map_err(|e| format!("cannot write the temp file: {e}"))?;
    // `$EDITOR` may carry arguments (`code --wait`): run it through the shell.
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("mcpick-editor")
        .arg(file.path())
        .status()
        .map_err(|e| format!("cannot run the editor `{editor}`: {e}"))?;
    if !status.success() {
        return Err(format!(
            "the editor `{editor}` failed ({status}); the value is unchanged"
        ));
    }
    std::fs::read_to_string(file.path())
        .map_err(|e| format!("cannot read back the edited text: {e}"))
}

/// Whether the TUI can run: it needs a terminal to draw on (stdout, or the process's
/// terminal when stdout is a pipe).
pub fn has_terminal() -> bool {
    std::io::stdout().is_terminal()
        || std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/tty")
            .is_ok()
}

/// Plays `bytes` (a file of type `extension`) to its end with the configured player or the
/// first one found. The file is a private temporary one; aborting the task kills the player
/// (`kill_on_drop`) and removes the file.
async fn play(bytes: Vec<u8>, extension: &str, player: Option<Vec<String>>) -> Result<(), String> {
    let safe: String = extension
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .take(8)
        .collect();
    let file = tempfile::Builder::new()
        .prefix("mcpick-audio-")
        .suffix(&format!(".{safe}"))
        .tempfile()
        .map_err(|e| format!("Could not write the audio to a temporary file: {e}."))?;
    // Off the runtime's threads: an audio block can be megabytes.
    tokio::fs::write(file.path(), &bytes)
        .await
        .map_err(|e| format!("Could not write the audio to a temporary file: {e}."))?;
    let command = crate::audio::player_command(
        player.as_deref(),
        &safe,
        file.path(),
        std::env::var_os("PATH").as_deref(),
    )?;
    let (program, args) = command.split_first().ok_or("audio_player is empty")?;
    // The player's output would draw over the screen: its stderr is kept for the error.
    let output = tokio::process::Command::new(program)
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .output()
        .await
        .map_err(|e| format!("Could not start {}: {e}.", crate::text::one_line(program)))?;
    if output.status.success() {
        return Ok(());
    }
    let said = String::from_utf8_lossy(&output.stderr);
    let last = said
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    Err(format!(
        "{} could not play it ({}){}",
        crate::text::one_line(program),
        output.status,
        if last.is_empty() {
            String::new()
        } else {
            format!(": {}", crate::text::one_line(last))
        }
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn of_a_batch_only_the_last_resize_is_laid_out() {
        let batch = vec![
            Msg::Resize(80, 24),
            Msg::Tick,
            Msg::Resize(90, 30),
            Msg::Clock,
            Msg::Resize(100, 40),
            Msg::HighlighterReady,
        ];
        let kept: Vec<String> = last_resize_only(batch)
            .iter()
            .map(|msg| format!("{msg:?}"))
            .collect();
        assert_eq!(
            kept,
            ["Tick", "Clock", "Resize(100, 40)", "HighlighterReady"]
        );
        assert!(last_resize_only(vec![Msg::Tick]).len() == 1);
    }

    #[test]
    fn of_the_layouts_waiting_only_each_body_s_last_two_are_done() {
        let job = |body: u64, width: usize| LayoutJob {
            body,
            key: crate::render::rows::RowsKey {
                width,
                style: crate::render::RowStyle {
                    rendered: true,
                    color: true,
                },
                highlighted: true,
            },
            content: crate::model::Content::text("x"),
        };
        // A resize through five widths for body 1, one layout of body 2 between.
        let waiting = vec![job(1, 80), job(1, 81), job(2, 60), job(1, 82), job(1, 83)];
        let kept: Vec<(u64, usize)> = still_kept(waiting)
            .iter()
            .map(|j| (j.body, j.key.width))
            .collect();
        assert_eq!(kept, [(2, 60), (1, 82), (1, 83)]);
    }
}
