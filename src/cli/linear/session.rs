//! The screen reader mode's state and its loop: the menu, the form, the fetch and the
//! review in turn. Every wait for a line also takes the servers' events (their news is
//! said before the next prompt line) and Ctrl-C.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use tokio::sync::mpsc;

use super::announce::{self, News};
use super::lines::{Lines, prompt, say};
use crate::app::history::History;
use crate::config::Config;
use crate::export::Format;
use crate::mcp::{Hub, McpEvent};
use crate::model::PromptInfo;
use crate::search::Entry;

/// How long the start waits for every server before the menu is read out; a server ready
/// later is announced.
const START_WAIT: Duration = Duration::from_secs(5);

/// Where a part of the loop goes next.
pub(super) enum Step<T> {
    /// On, with this.
    Go(T),
    /// Back to the menu.
    Menu,
    /// Quit with this exit code.
    Quit(u8),
}

/// What a wait for a line ended with.
pub(super) enum Typed {
    /// A line (without its line end).
    Line(String),
    /// The end of input (Ctrl-D).
    End,
    /// A signal (Ctrl-C): the exit code it asks for.
    Stopped(u8),
}

/// The menu's listing: the entries a number opens, and how far it was read.
#[derive(Default)]
pub(super) struct Listing {
    /// The entries, in the order they are numbered (from 1).
    pub(super) entries: Vec<Entry>,
    /// How many were read out.
    pub(super) shown: usize,
}

/// The state of one run in the screen reader mode.
pub(super) struct Session {
    /// The config read at start.
    pub(super) config: Config,
    /// The servers' connections.
    pub(super) hub: Hub,
    events: Option<mpsc::Receiver<McpEvent>>,
    lines: Lines,
    stop: Pin<Box<dyn Future<Output = u8> + Send>>,
    /// Announcements waiting for the next prompt line.
    pub(super) news: News,
    /// Each server's prompts, by server name.
    prompts: BTreeMap<String, Vec<PromptInfo>>,
    /// Servers whose prompts come from the catalog of an earlier run.
    from_catalog: HashSet<String>,
    /// Servers not ready or failed yet.
    pub(super) pending: BTreeSet<String>,
    /// The merged menu.
    pub(super) entries: Vec<Entry>,
    /// What a number opens.
    pub(super) listing: Listing,
    /// The menu was read out once (a server ready after that is late).
    pub(super) menu_shown: bool,
    /// Recent prompts and remembered values.
    pub(super) history: History,
    /// The export format.
    pub(super) format: Format,
    /// Something was copied, saved or printed: quitting is then a success.
    pub(super) exported: bool,
    /// `--output FILE`: where the save action writes (then quits).
    pub(super) output: Option<std::path::PathBuf>,
    /// The lockfile the menu compares with, if any (docs/lock.md).
    pub(super) lock: Option<crate::app::MenuLock>,
}

impl Session {
    /// Starts the servers (with what the catalog holds of them; the `${input:ID}` values
    /// they need asked first, as every command asks them) and the line reader.
    pub(super) fn start(
        config: Config,
        format: Format,
        output: Option<std::path::PathBuf>,
        lock: Option<crate::app::MenuLock>,
    ) -> Result<Session, crate::cli::CliError> {
        let servers = crate::cli::inputs::ask(config.enabled_servers().cloned().collect())?;
        let (tx, rx) = mpsc::channel(256);
        let mut notices = Vec::new();
        let pending = servers.iter().map(|s| s.name.clone()).collect();
        let servers: Vec<_> = servers
            .into_iter()
            .map(|server| {
                let (entry, notice) = crate::cache::at_start(&server, || {
                    crate::mcp::oauth::authorization_context(&server)
                });
                notices.extend(notice);
                (server, entry)
            })
            .collect();
        let hub = Hub::start_cached(servers, tx, false);
        let mut news = News::default();
        for notice in notices {
            news.add(super::words::sentence(&notice));
        }
        let history = load_history(&mut news);
        Ok(Session {
            config,
            hub,
            events: Some(rx),
            lines: Lines::start(),
            stop: Box::pin(crate::sys::signals::stopped()),
            news,
            prompts: BTreeMap::new(),
            from_catalog: HashSet::new(),
            pending,
            entries: Vec::new(),
            listing: Listing::default(),
            menu_shown: false,
            history,
            format,
            exported: false,
            output,
            lock,
        })
    }

    /// Says the announcements waiting.
    pub(super) fn say_news(&mut self) {
        for line in self.news.take() {
            say(&line);
        }
    }

    /// Waits (up to [`START_WAIT`]) until every server is ready or failed, taking their
    /// events; `Some(code)` when a signal stopped the wait.
    pub(super) async fn wait_for_servers(&mut self) -> Option<u8> {
        if !self.pending.is_empty() {
            let names: Vec<String> = self
                .pending
                .iter()
                .map(|s| crate::text::one_line(s))
                .collect();
            say(&format!(
                "Connecting to {}: {}.",
                crate::text::counted(names.len(), "server", "servers"),
                names.join(", ")
            ));
        }
        let deadline = tokio::time::sleep(START_WAIT);
        tokio::pin!(deadline);
        while !self.pending.is_empty() {
            let event = tokio::select! {
                event = next_event(&mut self.events) => event,
                () = &mut deadline => break,
                code = &mut self.stop => return Some(code),
            };
            self.take_event(event);
        }
        if !self.pending.is_empty() {
            let names: Vec<String> = self
                .pending
                .iter()
                .map(|s| crate::text::one_line(s))
                .collect();
            self.news.add(format!(
                "Still waiting for {}; announced when ready.",
                names.join(", ")
            ));
        }
        None
    }

    /// Says the news, prints `prompt_text` and waits for a line, taking the servers'
    /// events meanwhile (their news waits for the next prompt line).
    pub(super) async fn read(&mut self, prompt_text: &str) -> Typed {
        self.say_news();
        self.read_holding_news(prompt_text).await
    }

    /// [`Session::read`] with the news held back (between the lines of one value).
    pub(super) async fn read_holding_news(&mut self, prompt_text: &str) -> Typed {
        prompt(prompt_text);
        loop {
            enum Got {
                Line(Option<String>),
                Event(Box<McpEvent>),
                Stop(u8),
            }
            let got = tokio::select! {
                line = self.lines.next() => Got::Line(line),
                event = next_event(&mut self.events) => Got::Event(Box::new(event)),
                code = &mut self.stop => Got::Stop(code),
            };
            match got {
                Got::Line(Some(line)) => return Typed::Line(line),
                Got::Line(None) => {
                    say("");
                    return Typed::End;
                }
                Got::Event(event) => self.take_event(*event),
                Got::Stop(code) => {
                    say("");
                    return Typed::Stopped(code);
                }
            }
        }
    }

    /// Runs `work`, taking the servers' events meanwhile; `Err(code)` when a signal
    /// stopped it (the work is dropped, which cancels its request).
    pub(super) async fn run_stoppable<T>(
        &mut self,
        work: impl Future<Output = T>,
    ) -> Result<T, u8> {
        tokio::pin!(work);
        loop {
            enum Got<T> {
                Done(T),
                Event(Box<McpEvent>),
                Stop(u8),
            }
            let got = tokio::select! {
                done = &mut work => Got::Done(done),
                event = next_event(&mut self.events) => Got::Event(Box::new(event)),
                code = &mut self.stop => Got::Stop(code),
            };
            match got {
                Got::Done(done) => return Ok(done),
                Got::Event(event) => self.take_event(*event),
                Got::Stop(code) => {
                    // The next signal is waited for anew.
                    self.stop = Box::pin(crate::sys::signals::stopped());
                    return Err(code);
                }
            }
        }
    }

    /// The exit code of quitting now: 0 once something was exported, else 130 (as fzf's
    /// cancel).
    pub(super) fn quit_code(&self) -> u8 {
        if self.exported { 0 } else { 130 }
    }

    /// Takes one event of the hub: the menu's prompts, and its news.
    fn take_event(&mut self, event: McpEvent) {
        let server = event.server().to_string();
        let from_catalog = self.from_catalog.contains(&server);
        let mut line = announce::line_for(&event, from_catalog, self.menu_shown);
        match event {
            McpEvent::FromCatalog { .. } => {
                self.from_catalog.insert(server);
            }
            McpEvent::Ready { prompts, .. } => {
                self.pending.remove(&server);
                self.set_prompts(server, prompts);
            }
            McpEvent::PromptsChanged { prompts, .. } => {
                self.from_catalog.remove(&server);
                // The same list again (a catalog's list checked) is no news.
                if self.prompts.get(&server) == Some(&prompts) {
                    line = None;
                }
                self.set_prompts(server, prompts);
            }
            McpEvent::Failed { .. } => {
                self.pending.remove(&server);
            }
            _ => {}
        }
        if let Some(line) = line {
            self.news.add(line);
        }
    }

    fn set_prompts(&mut self, server: String, prompts: Vec<PromptInfo>) {
        self.prompts.insert(server, prompts);
        let mut entries: Vec<Entry> = self
            .prompts
            .values()
            .flatten()
            .cloned()
            .map(Entry::new)
            .collect();
        crate::search::mark_unique_names(&mut entries);
        self.entries = entries;
    }

    /// Remembers `arguments` as the last use of `slash_name`, in the history file.
    pub(super) fn remember(&mut self, slash_name: &str, arguments: &BTreeMap<String, String>) {
        self.history.record(slash_name, arguments);
        if let Some(path) = history_path() {
            if let Some(dir) = path.parent() {
                let _ = crate::sys::fs::create_private_dir(dir);
            }
            if let Err(error) =
                crate::export::sink::write_atomic(&path, self.history.to_json().as_bytes(), true)
            {
                tracing::warn!(?error, "cannot save the history");
            }
        }
    }

    /// Closes the servers.
    pub(super) async fn shutdown(self) {
        self.hub.shutdown().await;
    }
}

/// The next event of the hub; none (ever) once its channel closed.
async fn next_event(events: &mut Option<mpsc::Receiver<McpEvent>>) -> McpEvent {
    if let Some(receiver) = events {
        if let Some(event) = receiver.recv().await {
            return event;
        }
        *events = None;
    }
    std::future::pending().await
}

fn history_path() -> Option<std::path::PathBuf> {
    crate::config::data_dir().map(|d| d.join(History::FILE))
}

/// The history file, or an empty history (a damaged file is news).
fn load_history(news: &mut News) -> History {
    let Some(path) = history_path() else {
        return History::default();
    };
    match std::fs::read_to_string(&path) {
        Ok(text) => History::from_json(&text).unwrap_or_else(|problem| {
            news.add(format!("{problem} ({})", path.display()));
            History::default()
        }),
        Err(_) => History::default(),
    }
}
