//! Micro benchmarks of the TUI's hot paths, through the `mcpick` library's public API
//! only: no terminal, no server, no disk. What they measure, and the budgets of
//! DESIGN.md §6 they are held to:
//!
//! - `filter/{1k,10k,100k}/…`: one key typed in the menu's search line, as
//!   `App::update(Msg::Key(..))` (parse, fuzzy rank, selection), with 1,000, 10,000 and
//!   100,000 prompts from 50 servers: each key of `trans` typed (`key1_t` from an empty
//!   line … `key5_trans` from `tran`), and a Backspace (`trans` → `tran`).
//!   Budget: **< 5 ms median per keystroke with 100,000 prompts.**
//! - `draw_picker/100k/…`: one frame of the menu with 100,000 prompts (`ui::draw` in
//!   `Terminal<TestBackend>` at 120×40: render, diff, backend write), with an empty search
//!   line and with `trans` typed. Budget: **< 2 ms per frame.**
//! - `review_5mb/…`: a `prompts/get` result holding a 5 MB text message. `open` is the app
//!   taking the result (`Msg::Fetched`) and switching to the review; `open_first_frame`
//!   adds the first frame drawn of it (which wraps the message); `scroll_key_frame` is a
//!   PageDown there with its frame; `edit_start` is `e`, which hands a text this long to
//!   `$EDITOR`. Budgets: **opens < 100 ms; a keystroke < 16 ms.**
//! - `review_5mb_markdown/…`: the same with a 5 MB Markdown message (headings, nested
//!   lists, tables, links, Rust and Python fences), rendered, with the highlighter loaded.
//!   `open` is the answer taken and laid out (`Msg::Fetched`), `key` a PageDown with its
//!   frame. Budgets: **opens < 100 ms; a key < 16 ms.**
//! - `editor_512k/…`: the built-in editor on a 512 KiB message, the longest it edits in place:
//!   `edit_start` is `e` opening it (with its frame), `editor_key` one character typed in
//!   it, `editor_key_frame` the same with its frame. Budget: **a keystroke < 16 ms.**
//! - `merge_50x200/…`: 50 servers × 200 prompts arriving one list at a time; the cost of
//!   the last server's list arriving (`McpEvent::Ready`), which rebuilds the merged menu
//!   and filters it again, with an empty search line and with `trans` typed. No budget of
//!   its own (it is what a server connecting costs while the user types).
//! - `export_200msg_2mb/{markdown,text,mcp-json,openai,anthropic}`: `export::render` of
//!   200 messages, about 2 MB in all, of mixed text, embedded text resource, image, blob
//!   and resource link blocks. No budget of its own.
//!
//! The prompts and messages are generated deterministically (a small LCG): names like
//! `review-pull-request-1234`, titles for most, 60–150 character descriptions, 0–3
//! arguments. Keys are timed one at a time: the state is brought back to the previous
//! prefix untimed between iterations (the key typed is taken back with Backspace, a
//! Backspace with the key), so each number is the cost of one key.
//!
//! Run (release build; a few minutes in all):
//!
//! ```sh
//! cargo bench --bench micro            # everything
//! cargo bench --bench micro filter/100k  # only what matches the filter
//! ```
//!
//! Criterion prints each mean with its confidence interval; the medians the budgets speak
//! of are in `target/criterion/GROUP/BENCH/new/estimates.json` (`median.point_estimate`,
//! in nanoseconds).

use std::hint::black_box;
use std::sync::LazyLock;
use std::time::{Duration, Instant};

use criterion::{BatchSize, Criterion, SamplingMode, criterion_group, criterion_main};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use mcpick::app::{App, Effect, History, KeyMap, Msg, Options, Screen};
use mcpick::export::{self, Format};
use mcpick::mcp::{GetOutcome, McpEvent};
use mcpick::model::{
    Content, EmbeddedResource, KnownContent, Message, PromptArg, PromptInfo, PromptMessages, Role,
    ServerDetails,
};
use mcpick::ui;

/// The terminal size frames are drawn at.
const WIDTH: u16 = 120;
const HEIGHT: u16 = 40;
/// What is typed in the menu.
const QUERY: &str = "trans";

// ---------------------------------------------------------------------------------------
// Deterministic data
// ---------------------------------------------------------------------------------------

/// A 64-bit linear congruential generator (Knuth's MMIX constants): the same data every run.
struct Lcg(u64);

impl Lcg {
    fn new(seed: u64) -> Lcg {
        Lcg(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x2545_F491_4F6C_DD1D)
    }

    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    /// A number in `0..n`.
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// A number in `low..=high`.
    fn between(&mut self, low: usize, high: usize) -> usize {
        low + self.below(high - low + 1)
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// The 50 configured servers.
static SERVERS: LazyLock<Vec<&str>> = LazyLock::new(|| {
    "github gitlab jira linear slack notion postgres sentry docs k8s aws gcp azure stripe \
     figma confluence zendesk pagerduty datadog grafana redis mongo mysql snowflake \
     bigquery github-enterprise gitlab-internal jira-support linear-mobile slack-ops \
     notion-wiki postgres-analytics sentry-frontend docs-api k8s-staging aws-billing \
     gcp-ml azure-devops stripe-test figma-design-system confluence-hr zendesk-eu \
     pagerduty-oncall datadog-apm grafana-loki redis-cache mongo-events mysql-legacy \
     snowflake-finance bigquery-marketing"
        .split_whitespace()
        .collect()
});

static VERBS: LazyLock<Vec<&str>> = LazyLock::new(|| {
    "review summarize translate explain refactor generate draft analyze transform \
     transcribe fix write test document plan triage debug optimize convert classify \
     extract compare outline rewrite estimate audit migrate format transfer lint"
        .split_whitespace()
        .collect()
});

static NOUNS: LazyLock<Vec<&str>> = LazyLock::new(|| {
    "pull-request commit issue function module query email meeting-notes changelog \
     release-notes error-log stack-trace api-spec schema dockerfile test-suite readme \
     contract invoice support-ticket incident design-doc user-story sql regex config \
     dependency transaction transcript dashboard"
        .split_whitespace()
        .collect()
});

static WORDS: LazyLock<Vec<&str>> = LazyLock::new(|| {
    "the a given with for and of into to in code changes summary team language context \
     output format concise detailed markdown bullet points suggest improvements identify \
     risks style guide from each file comments owners tests missing edge cases customer \
     reply friendly tone version security issues performance regressions plan index logs \
     errors root cause timeline action items decisions translation transactions \
     transcripts service latency budget review"
        .split_whitespace()
        .collect()
});

static ARGS: LazyLock<Vec<&str>> = LazyLock::new(|| {
    "path language audience tone ticket branch max_words since"
        .split_whitespace()
        .collect()
});

fn capitalized(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// A sentence of `low..=high` characters.
fn sentence(rng: &mut Lcg, low: usize, high: usize) -> String {
    let target = rng.between(low, high);
    let mut text = capitalized(rng.pick(&VERBS));
    while text.len() + 1 < target {
        text.push(' ');
        text.push_str(rng.pick(&WORDS));
    }
    text.truncate(target - 1);
    text.truncate(text.trim_end().len());
    text.push('.');
    text
}

/// The `i`th prompt of a server.
fn prompt(server: &str, i: usize, rng: &mut Lcg) -> PromptInfo {
    let verb = rng.pick(&VERBS);
    let noun = rng.pick(&NOUNS);
    let number = 1000 + i;
    let title = (rng.below(10) < 7)
        .then(|| format!("{} {} #{number}", capitalized(verb), noun.replace('-', " ")));
    let arguments = (0..rng.below(4))
        .map(|a| PromptArg {
            name: format!("{}{a}", rng.pick(&ARGS)),
            title: None,
            description: Some(sentence(rng, 20, 60)),
            required: rng.below(2) == 0,
        })
        .collect();
    PromptInfo {
        server: server.to_string(),
        name: format!("{verb}-{noun}-{number}"),
        title,
        description: Some(sentence(rng, 60, 150)),
        arguments,
        skill: None,
        mirrors_skill: None,
    }
}

/// Every server's prompt list: `per_server` prompts each.
fn catalogs(per_server: usize) -> Vec<(String, Vec<PromptInfo>)> {
    SERVERS
        .iter()
        .enumerate()
        .map(|(s, server)| {
            let mut rng = Lcg::new(s as u64 + 1);
            let prompts = (0..per_server)
                .map(|i| prompt(server, i, &mut rng))
                .collect();
            (server.to_string(), prompts)
        })
        .collect()
}

fn details() -> ServerDetails {
    ServerDetails {
        transport: "stdio".into(),
        protocol_version: "2025-11-25".into(),
        server_name: Some("bench".into()),
        server_version: Some("1.0".into()),
        capabilities: serde_json::json!({"prompts": {}}),
        prompts: true,
        prompts_list_changed: false,
        completions: false,
        resources: false,
        skills: false,
        served_problems: Vec::new(),
    }
}

/// The message a server's full prompt list arrives in.
fn ready(server: String, prompts: Vec<PromptInfo>) -> Msg {
    Msg::Mcp(McpEvent::Ready {
        server,
        details: details(),
        prompts,
    })
}

/// An app with `servers` configured (all connecting), sized like the frames drawn.
fn new_app(servers: Vec<String>) -> App {
    let mut app = App::new(
        servers,
        Options::default(),
        KeyMap::default(),
        History::default(),
    );
    app.update(Msg::Resize(WIDTH, HEIGHT));
    app
}

/// An app whose 50 servers are all ready, `per_server` prompts each.
fn menu_app(per_server: usize) -> App {
    let lists = catalogs(per_server);
    let mut app = new_app(lists.iter().map(|(s, _)| s.clone()).collect());
    for (server, prompts) in lists {
        app.update(ready(server, prompts));
    }
    assert_eq!(app.menu.entries.len(), SERVERS.len() * per_server);
    app
}

/// Lines of prose and code of 0–110 characters, about `bytes` long in all.
fn text_of(rng: &mut Lcg, bytes: usize) -> String {
    let mut text = String::with_capacity(bytes + 200);
    while text.len() < bytes {
        match rng.below(12) {
            0 => text.push('\n'),
            1 => {
                let name = rng.pick(&NOUNS).replace('-', "_");
                text.push_str(&format!(
                    "    let {name} = {}(&{}, {})?;\n",
                    rng.pick(&VERBS),
                    rng.pick(&WORDS),
                    rng.below(1000)
                ));
            }
            _ => {
                text.push_str(&sentence(rng, 40, 110));
                text.push('\n');
            }
        }
    }
    // Exactly `bytes` (the text is ASCII), so sizes at a limit stay on their side of it.
    text.truncate(bytes);
    text
}

/// `len` base64 characters (a multiple of 4, so they decode).
fn base64_of(rng: &mut Lcg, len: usize) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    (0..len / 4 * 4)
        .map(|_| ALPHABET[rng.below(64)] as char)
        .collect()
}

/// 200 messages of about 10 KB each (2 MB in all), alternating roles, of mixed blocks.
fn large_result() -> PromptMessages {
    let mut rng = Lcg::new(200);
    let messages = (0..200)
        .map(|i| {
            let role = if i % 2 == 0 {
                Role::User
            } else {
                Role::Assistant
            };
            let content = match i % 10 {
                7 => Content::Known(KnownContent::Resource {
                    resource: EmbeddedResource::Text {
                        uri: format!("file:///src/{}.rs", rng.pick(&NOUNS)),
                        mime_type: Some("text/x-rust".into()),
                        text: text_of(&mut rng, 10_000),
                        meta: None,
                    },
                    annotations: None,
                    meta: None,
                }),
                8 => Content::Known(KnownContent::Image {
                    data: base64_of(&mut rng, 10_000),
                    mime_type: "image/png".into(),
                    annotations: None,
                    meta: None,
                }),
                9 if i % 20 == 9 => Content::Known(KnownContent::Resource {
                    resource: EmbeddedResource::Blob {
                        uri: format!("file:///data/{}.bin", rng.pick(&NOUNS)),
                        mime_type: Some("application/octet-stream".into()),
                        blob: base64_of(&mut rng, 10_000),
                        meta: None,
                    },
                    annotations: None,
                    meta: None,
                }),
                9 => Content::Known(KnownContent::ResourceLink(Box::new(
                    mcpick::model::ResourceLink {
                        uri: format!("file:///docs/{}.md", rng.pick(&NOUNS)),
                        name: rng.pick(&NOUNS).to_string(),
                        title: Some(sentence(&mut rng, 20, 40)),
                        description: Some(sentence(&mut rng, 60, 150)),
                        mime_type: Some("text/markdown".into()),
                        size: Some(12_345),
                        icons: None,
                        annotations: None,
                        meta: None,
                    },
                ))),
                _ => Content::text(text_of(&mut rng, 10_000)),
            };
            Message { role, content }
        })
        .collect();
    PromptMessages {
        description: Some("A long conversation to export.".into()),
        messages,
    }
}

// ---------------------------------------------------------------------------------------
// Driving the app
// ---------------------------------------------------------------------------------------

fn key(code: KeyCode) -> Msg {
    Msg::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

fn char_key(c: char) -> Msg {
    key(KeyCode::Char(c))
}

/// Types into the menu's search line until it reads `query` (Backspace, then keys).
fn set_query(app: &mut App, query: &str) {
    if app.menu.query.text() == query {
        return;
    }
    while !app.menu.query.is_empty() && !query.starts_with(app.menu.query.text()) {
        app.update(key(KeyCode::Backspace));
    }
    let typed = app.menu.query.text().len();
    for c in query[typed..].chars() {
        app.update(char_key(c));
    }
    assert_eq!(app.menu.query.text(), query);
}

/// Times `timed` once per iteration; `untimed` brings the app back to where it was.
fn time_and_undo(
    iters: u64,
    app: &mut App,
    mut timed: impl FnMut(&mut App) -> Vec<Effect>,
    mut untimed: impl FnMut(&mut App),
) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        let start = Instant::now();
        let effects = timed(app);
        total += start.elapsed();
        black_box(effects);
        untimed(app);
    }
    total
}

fn terminal() -> Terminal<TestBackend> {
    Terminal::new(TestBackend::new(WIDTH, HEIGHT)).expect("a test terminal")
}

fn draw(terminal: &mut Terminal<TestBackend>, app: &App) {
    terminal
        .draw(|frame| ui::draw(app, frame))
        .expect("a test terminal draws");
}

/// How long a benchmark runs: short, so that the whole file runs in a few minutes.
#[derive(Clone, Copy)]
enum Pace {
    /// Microseconds to a few milliseconds an iteration: 20 samples, linear sampling.
    Fast,
    /// Up to a few hundred milliseconds an iteration: as many iterations in each sample
    /// (flat sampling), so a slow one does not stretch the run.
    Slow {
        /// Samples taken (10 at least).
        samples: usize,
    },
}

fn configure(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    pace: Pace,
) {
    group
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    match pace {
        Pace::Fast => group.sample_size(20),
        Pace::Slow { samples } => group.sample_size(samples).sampling_mode(SamplingMode::Flat),
    };
}

// ---------------------------------------------------------------------------------------
// Benchmarks
// ---------------------------------------------------------------------------------------

/// Typing in the menu, and drawing it, with 1k, 10k and 100k prompts.
fn picker(c: &mut Criterion) {
    for (label, per_server) in [("1k", 20), ("10k", 200), ("100k", 2000)] {
        // Built on first use, so a filter that skips these benches skips the build too.
        let mut slot: Option<App> = None;
        let mut group = c.benchmark_group(format!("filter/{label}"));
        configure(&mut group, Pace::Slow { samples: 20 });
        // (bench name, the query before the key, the key, the key that takes it back)
        let keys: [(&str, &str, KeyCode, KeyCode); 6] = [
            ("key1_t", "", KeyCode::Char('t'), KeyCode::Backspace),
            ("key2_tr", "t", KeyCode::Char('r'), KeyCode::Backspace),
            ("key3_tra", "tr", KeyCode::Char('a'), KeyCode::Backspace),
            ("key4_tran", "tra", KeyCode::Char('n'), KeyCode::Backspace),
            ("key5_trans", "tran", KeyCode::Char('s'), KeyCode::Backspace),
            ("backspace", "trans", KeyCode::Backspace, KeyCode::Char('s')),
        ];
        for (name, before, typed, undo) in keys {
            group.bench_function(name, |b| {
                let app = slot.get_or_insert_with(|| menu_app(per_server));
                set_query(app, before);
                b.iter_custom(|iters| {
                    time_and_undo(
                        iters,
                        app,
                        |app| app.update(key(typed)),
                        |app| {
                            app.update(key(undo));
                        },
                    )
                });
                assert_eq!(app.menu.query.text(), before);
            });
        }
        group.finish();

        if label != "100k" {
            continue;
        }
        let mut group = c.benchmark_group(format!("draw_picker/{label}"));
        configure(&mut group, Pace::Fast);
        for (name, query) in [("empty_query", ""), ("query_trans", QUERY)] {
            group.bench_function(name, |b| {
                let app = slot.get_or_insert_with(|| menu_app(per_server));
                set_query(app, query);
                let app = &*app;
                let mut terminal = terminal();
                b.iter(|| draw(&mut terminal, app));
            });
        }
        group.finish();
    }
}

/// The app waiting for the answer of a prompt without arguments; returns the request id.
fn app_fetching() -> (App, u64) {
    let mut app = new_app(vec!["logs".into()]);
    let mut rng = Lcg::new(5);
    let mut prompts: Vec<PromptInfo> = (0..20).map(|i| prompt("logs", i, &mut rng)).collect();
    prompts[0].name = "dump-logs".into();
    prompts[0].arguments.clear();
    app.update(ready("logs".into(), prompts));
    assert_eq!(app.selected_entry().unwrap().prompt.name, "dump-logs");
    let effects = app.update(key(KeyCode::Enter));
    let id = effects
        .iter()
        .find_map(|e| match e {
            Effect::Fetch { id, .. } => Some(*id),
            _ => None,
        })
        .expect("a prompt without arguments is fetched at once");
    (app, id)
}

/// A text message of `bytes` from the user, and a short answer.
fn long_message(bytes: usize) -> PromptMessages {
    let mut rng = Lcg::new(bytes as u64);
    let text = text_of(&mut rng, bytes);
    PromptMessages {
        description: None,
        messages: vec![
            Message {
                role: Role::User,
                content: Content::text(text),
            },
            Message {
                role: Role::Assistant,
                content: Content::text("Here is what the logs say."),
            },
        ],
    }
}

/// A Markdown text of `bytes`: sections of headings, paragraphs with inline styles and
/// links, nested lists, tables and Rust and Python fences.
fn markdown_of(rng: &mut Lcg, bytes: usize) -> String {
    let mut text = String::with_capacity(bytes + 400);
    let mut section = 0;
    while text.len() < bytes {
        section += 1;
        text.push_str(&format!("## Section {section}: {}\n\n", rng.pick(&NOUNS)));
        for _ in 0..1 + rng.below(3) {
            text.push_str(&format!(
                "{} **{}** and *{}*, see `{}` or [the docs](https://example.com/{}).\n\n",
                sentence(rng, 40, 110),
                rng.pick(&WORDS),
                rng.pick(&WORDS),
                rng.pick(&VERBS),
                rng.pick(&NOUNS)
            ));
        }
        for n in 0..2 + rng.below(4) {
            text.push_str(&format!("{}. {}\n", n + 1, sentence(rng, 20, 60)));
            if rng.below(2) == 0 {
                text.push_str(&format!("   - {}\n", sentence(rng, 20, 50)));
            }
        }
        text.push_str("\n| name | value | note |\n|------|------:|------|\n");
        for _ in 0..3 + rng.below(4) {
            text.push_str(&format!(
                "| {} | {} | {} |\n",
                rng.pick(&NOUNS),
                rng.below(10_000),
                sentence(rng, 10, 40)
            ));
        }
        if rng.below(2) == 0 {
            text.push_str("\n```rust\nfn main() -> Result<(), Error> {\n");
            for _ in 0..3 + rng.below(10) {
                let name = rng.pick(&NOUNS).replace('-', "_");
                text.push_str(&format!(
                    "    let {name} = {}(&{}, {})?;\n",
                    rng.pick(&VERBS),
                    rng.pick(&WORDS),
                    rng.below(1000)
                ));
            }
            text.push_str("    Ok(())\n}\n```\n\n");
        } else {
            text.push_str("\n```python\ndef run(items):\n");
            for _ in 0..3 + rng.below(10) {
                text.push_str(&format!(
                    "    {} = {}(items, {})\n",
                    rng.pick(&NOUNS).replace('-', "_"),
                    rng.pick(&VERBS),
                    rng.below(1000)
                ));
            }
            text.push_str("    return items\n```\n\n");
        }
    }
    text
}

/// The app in the review of a message of `bytes`, and a terminal showing its first frame
/// (the message's wrapping is cached by then).
fn in_review(bytes: usize) -> (App, Terminal<TestBackend>) {
    let (mut app, id) = app_fetching();
    app.update(fetched(id, long_message(bytes)));
    assert!(matches!(app.screen, Screen::Review(_)));
    let mut terminal = terminal();
    draw(&mut terminal, &app);
    (app, terminal)
}

fn fetched(id: u64, messages: PromptMessages) -> Msg {
    Msg::Fetched {
        id,
        result: Ok(GetOutcome::Messages(messages)),
    }
}

/// The review screen of a 5 MB Markdown message, rendered: opening it, and a key there.
fn review_markdown(c: &mut Criterion) {
    // What the app's thread spends once at start, off the loop.
    let loading = Instant::now();
    mcpick::render::highlight::load();
    eprintln!(
        "highlighter loaded in {:.1} ms",
        loading.elapsed().as_secs_f64() * 1e3
    );
    let mut group = c.benchmark_group("review_5mb_markdown");
    configure(&mut group, Pace::Slow { samples: 10 });
    let bytes = 5 * 1024 * 1024;
    let messages = || {
        let mut rng = Lcg::new(7);
        PromptMessages {
            description: None,
            messages: vec![
                Message {
                    role: Role::User,
                    content: Content::text(markdown_of(&mut rng, bytes)),
                },
                Message {
                    role: Role::Assistant,
                    content: Content::text("# Done\n\nThe **logs** say little."),
                },
            ],
        }
    };
    let mut base: Option<(App, u64, PromptMessages)> = None;
    let mut base = || {
        base.get_or_insert_with(|| {
            let (app, id) = app_fetching();
            (app, id, messages())
        })
        .clone()
    };

    group.bench_function("open", |b| {
        let (app, id, messages) = base();
        b.iter_batched_ref(
            || (app.clone(), Some(messages.clone())),
            |(app, messages)| app.update(fetched(id, messages.take().unwrap())),
            BatchSize::PerIteration,
        );
    });

    group.bench_function("key", |b| {
        let (mut app, id, messages) = base();
        app.update(fetched(id, messages));
        let mut terminal = terminal();
        draw(&mut terminal, &app);
        let terminal = std::cell::RefCell::new(&mut terminal);
        b.iter_custom(|iters| {
            time_and_undo(
                iters,
                &mut app,
                |app| {
                    let effects = app.update(key(KeyCode::PageDown));
                    draw(&mut terminal.borrow_mut(), app);
                    effects
                },
                |app| {
                    app.update(key(KeyCode::PageUp));
                    draw(&mut terminal.borrow_mut(), app);
                },
            )
        });
    });
    group.finish();
}

/// The review screen of a 5 MB message: opening it, and a key there.
fn review(c: &mut Criterion) {
    let mut group = c.benchmark_group("review_5mb");
    configure(&mut group, Pace::Slow { samples: 10 });
    let mut base: Option<(App, u64, PromptMessages)> = None;
    let mut base = || {
        base.get_or_insert_with(|| {
            let (app, id) = app_fetching();
            (app, id, long_message(5 * 1024 * 1024))
        })
        .clone()
    };

    group.bench_function("open", |b| {
        let (app, id, messages) = base();
        b.iter_batched_ref(
            || (app.clone(), Some(messages.clone())),
            |(app, messages)| app.update(fetched(id, messages.take().unwrap())),
            BatchSize::PerIteration,
        );
    });

    group.bench_function("open_first_frame", |b| {
        let (app, id, messages) = base();
        b.iter_batched_ref(
            || {
                // The form's frame is on the screen when the answer comes.
                let mut terminal = terminal();
                draw(&mut terminal, &app);
                (app.clone(), Some(messages.clone()), terminal)
            },
            |(app, messages, terminal)| {
                let effects = app.update(fetched(id, messages.take().unwrap()));
                draw(terminal, app);
                effects
            },
            BatchSize::PerIteration,
        );
    });

    group.bench_function("scroll_key_frame", |b| {
        let (mut app, mut terminal) = in_review(5 * 1024 * 1024);
        let terminal = std::cell::RefCell::new(&mut terminal);
        b.iter_custom(|iters| {
            time_and_undo(
                iters,
                &mut app,
                |app| {
                    let effects = app.update(key(KeyCode::PageDown));
                    draw(&mut terminal.borrow_mut(), app);
                    effects
                },
                |app| {
                    app.update(key(KeyCode::PageUp));
                    draw(&mut terminal.borrow_mut(), app);
                },
            )
        });
    });

    // `e` on a text this long hands it to $EDITOR (the effect; nothing runs here).
    group.bench_function("edit_start", |b| {
        let (app, _) = in_review(5 * 1024 * 1024);
        b.iter_batched_ref(
            || app.clone(),
            |app| {
                let effects = app.update(char_key('e'));
                assert!(matches!(
                    effects.as_slice(),
                    [Effect::ExternalEditor { .. }]
                ));
                effects
            },
            BatchSize::PerIteration,
        );
    });
    group.finish();
}

/// The built-in editor on a 512 KiB message (the longest edited in place): opening it, and
/// typing in it.
fn editor(c: &mut Criterion) {
    let mut group = c.benchmark_group("editor_512k");
    configure(&mut group, Pace::Slow { samples: 10 });
    let bytes = mcpick::app::review::EDIT_INLINE_UP_TO_BYTES;

    group.bench_function("edit_start", |b| {
        let (mut app, mut terminal) = in_review(bytes);
        b.iter_custom(|iters| {
            time_and_undo(
                iters,
                &mut app,
                |app| {
                    let effects = app.update(char_key('e'));
                    draw(&mut terminal, app);
                    effects
                },
                |app| {
                    app.update(key(KeyCode::Esc));
                },
            )
        });
    });

    // In the editor on the message, its frame drawn.
    let editing = || {
        let (mut app, mut terminal) = in_review(bytes);
        app.update(char_key('e'));
        match &app.screen {
            Screen::Review(review) => assert!(review.editor.is_some()),
            _ => panic!("not in the review"),
        }
        draw(&mut terminal, &app);
        (app, terminal)
    };

    group.bench_function("editor_key", |b| {
        let (mut app, _) = editing();
        b.iter_custom(|iters| {
            time_and_undo(
                iters,
                &mut app,
                |app| app.update(char_key('x')),
                |app| {
                    app.update(key(KeyCode::Backspace));
                },
            )
        });
    });

    group.bench_function("editor_key_frame", |b| {
        let (mut app, mut terminal) = editing();
        let terminal = std::cell::RefCell::new(&mut terminal);
        b.iter_custom(|iters| {
            time_and_undo(
                iters,
                &mut app,
                |app| {
                    let effects = app.update(char_key('x'));
                    draw(&mut terminal.borrow_mut(), app);
                    effects
                },
                |app| {
                    app.update(key(KeyCode::Backspace));
                    draw(&mut terminal.borrow_mut(), app);
                },
            )
        });
    });
    group.finish();
}

/// 50 servers × 200 prompts: the last server's list arriving.
fn merge(c: &mut Criterion) {
    let mut group = c.benchmark_group("merge_50x200");
    configure(&mut group, Pace::Slow { samples: 20 });
    let mut base: Option<(App, String, Vec<PromptInfo>)> = None;
    for (name, query) in [
        ("last_server_empty_query", ""),
        ("last_server_query_trans", QUERY),
    ] {
        group.bench_function(name, |b| {
            let (app, last, prompts) = base.get_or_insert_with(|| {
                let mut lists = catalogs(200);
                let (last, prompts) = lists.pop().expect("50 servers");
                let mut app = new_app(SERVERS.iter().map(|s| s.to_string()).collect());
                for (server, prompts) in lists {
                    app.update(ready(server, prompts));
                }
                (app, last, prompts)
            });
            set_query(app, query);
            let (app, last, prompts) = (&*app, &*last, &*prompts);
            b.iter_batched_ref(
                || (app.clone(), Some(ready(last.clone(), prompts.clone()))),
                |(app, msg)| app.update(msg.take().unwrap()),
                BatchSize::LargeInput,
            );
        });
    }
    group.finish();
}

/// Every export format of 200 messages, about 2 MB.
fn exports(c: &mut Criterion) {
    let mut group = c.benchmark_group("export_200msg_2mb");
    configure(&mut group, Pace::Fast);
    let mut result: Option<PromptMessages> = None;
    for (name, format) in Format::ALL {
        group.bench_function(name, |b| {
            let result = result.get_or_insert_with(large_result);
            b.iter(|| export::render(black_box(result), format));
        });
    }
    group.finish();
}

criterion_group!(
    benches,
    picker,
    review,
    review_markdown,
    editor,
    merge,
    exports
);
criterion_main!(benches);
