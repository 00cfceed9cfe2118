//! How fast the menu draws a keypress while servers misbehave (issue budget: 100 ms).
//!
//! Runs the real binary (release) in a pseudo-terminal next to the chaos server of the tests
//! (`tests/peers/chaos_server.py`) in one mode per scenario, types into the search box, and
//! times each key from the write to the screen showing it; two more scenarios type into a
//! form whose server's `prompts/get` is slow, with the live preview off and on. Run (a
//! filter picks scenarios by name):
//!
//! ```sh
//! cargo bench --bench responsiveness
//! cargo bench --bench responsiveness -- "form, live preview"
//! ```

#[path = "../tests/it/common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

use common::pty::Tui;
use common::{Sandbox, mcpick_serve, root, toml_str};

/// The budget for one key, from the issue.
const BUDGET: Duration = Duration::from_millis(100);
/// How long servers get to connect (100,000 prompts take a while to list).
const START: Duration = Duration::from_secs(60);
/// Longer than this, a key counts as lost and the run stops.
const LOST: Duration = Duration::from_secs(10);
/// What is typed, and deleted back to its first letter, over and over.
const WORD: &str = "translate";
/// Keys timed per scenario (after the first word, a warm-up).
const KEYS: usize = 60;

/// A scenario: a name and the chaos servers running beside the built-in library.
struct Scenario {
    name: &'static str,
    chaos: &'static [&'static str],
    /// Shown in the status bar once the chaos servers are ready.
    ready: &'static [&'static str],
    /// Typed into the form of a server whose `prompts/get` takes [`SLOW_GET_MS`] rather than
    /// the search box: with the live preview on (`Some(true)`) or off.
    form: Option<bool>,
}

const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "calm (built-in library only)",
        chaos: &[],
        ready: &[],
        form: None,
    },
    Scenario {
        name: "notification flood",
        chaos: &["notify-flood:100000000"],
        ready: &["● chaos0"],
        form: None,
    },
    Scenario {
        name: "stderr flood",
        chaos: &["stderr-flood:100000000"],
        ready: &["● chaos0"],
        form: None,
    },
    Scenario {
        name: "list-change storm (60 s)",
        chaos: &["list-storm:60000"],
        ready: &["● chaos0"],
        form: None,
    },
    Scenario {
        name: "100,000 prompts in the menu",
        chaos: &["many:100000"],
        ready: &["● chaos0 1000"],
        form: None,
    },
    Scenario {
        name: "hung + crashing + junk servers",
        chaos: &[
            "never-answers,junk-stdout",
            "exit-mid-request",
            "stray-ids,bad-utf8",
        ],
        ready: &["● chaos0", "● chaos1", "● chaos2"],
        form: None,
    },
    Scenario {
        name: "all floods at once",
        chaos: &[
            "notify-flood:100000000",
            "stderr-flood:100000000",
            "list-storm:60000",
        ],
        ready: &["● chaos0", "● chaos1", "● chaos2"],
        form: None,
    },
    Scenario {
        name: "form, live preview off",
        chaos: &[],
        ready: &[],
        form: Some(false),
    },
    Scenario {
        name: "form, live preview on (slow get)",
        chaos: &[],
        ready: &[],
        form: Some(true),
    },
];

/// How long the slow server's `prompts/get` takes in the form scenarios.
const SLOW_GET_MS: u64 = 1500;
/// Keys typed into the form between two pauses long enough for a preview to leave.
const KEYS_BETWEEN_PAUSES: usize = 8;

fn main() {
    // `cargo bench` passes `--bench`; a filter argument picks scenarios by name.
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    println!(
        "{:<34} {:>5} {:>9} {:>9} {:>9}  budget {} ms",
        "scenario",
        "keys",
        "median",
        "p95",
        "max",
        BUDGET.as_millis()
    );
    let mut missed = false;
    for scenario in SCENARIOS {
        if !filter.is_empty() && !filter.iter().any(|f| scenario.name.contains(f.as_str())) {
            continue;
        }
        let mut times = match scenario.form {
            Some(preview) => measure_form(preview),
            None => measure(scenario),
        };
        times.sort();
        let pick = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
        let (median, p95, max) = (pick(0.5), pick(0.95), pick(1.0));
        let verdict = if p95 <= BUDGET { "ok" } else { "OVER" };
        missed |= p95 > BUDGET;
        println!(
            "{:<34} {:>5} {:>7.1}ms {:>7.1}ms {:>7.1}ms  {verdict}",
            scenario.name,
            times.len(),
            ms(median),
            ms(p95),
            ms(max)
        );
    }
    if missed {
        println!("(a scenario's 95th percentile is over the budget)");
    }
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

/// Starts mcpick with the scenario's servers and times [`KEYS`] keypresses.
fn measure(scenario: &Scenario) -> Vec<Duration> {
    let sandbox = Sandbox::new("");
    let mut config = String::new();
    for (n, modes) in scenario.chaos.iter().enumerate() {
        config.push_str(&format!(
            "[servers.chaos{n}]\ncommand = \"python3\"\nargs = [{}, {}]\ntimeout_ms = 5000\n\n",
            toml_str(root().join("tests/peers/chaos_server.py").to_string_lossy()),
            toml_str(modes),
        ));
    }
    config.push_str(&mcpick_serve("builtin", &["--builtin"]));
    std::fs::write(sandbox.config(), config).unwrap();

    let mut tui = Tui::start(&sandbox, &[]);
    tui.wait_for("● builtin", START);
    for ready in scenario.ready {
        tui.wait_for(ready, START);
    }
    let mut query = String::new();
    let mut times = Vec::new();
    // The first word is a warm-up, not timed.
    for c in WORD.chars() {
        query.push(c);
        type_and_wait(&mut tui, &c.to_string(), &query);
    }
    while times.len() < KEYS {
        // Back to the first letter, then the word again.
        while query.len() > 1 && times.len() < KEYS {
            query.pop();
            times.push(type_and_wait(&mut tui, "\x7f", &query));
        }
        for c in WORD.chars().skip(1) {
            if times.len() == KEYS {
                break;
            }
            query.push(c);
            times.push(type_and_wait(&mut tui, &c.to_string(), &query));
        }
    }
    tui.send("\x03");
    tui.wait_exit(Duration::from_secs(20));
    times
}

/// Starts mcpick on the slow server's form (tests/peers/slow_prompt.py, `prompts/get`
/// taking [`SLOW_GET_MS`]) with the live preview on or off, and times [`KEYS`] keypresses
/// into its field. Every [`KEYS_BETWEEN_PAUSES`] keys it pauses past the debounce, so with
/// the preview on a request is in flight (and then cancelled by the next) while keys are
/// typed; the pauses are the same with it off, and are not timed.
fn measure_form(preview: bool) -> Vec<Duration> {
    let sandbox = Sandbox::new("");
    let config = format!(
        "[servers.slow]\ncommand = {}\nargs = [{}]\nenv = {{ SLOW_GET_MS = \"{SLOW_GET_MS}\" }}\nlive_preview = {preview}\n",
        toml_str(common::python3()),
        toml_str(root().join("tests/peers/slow_prompt.py").to_string_lossy()),
    );
    std::fs::write(sandbox.config(), config).unwrap();
    let mut tui = Tui::start(&sandbox, &["slow/echo"]);
    tui.wait_for("Slow echo  /slow:echo", START);
    let mut value = String::new();
    let mut times = Vec::new();
    let mut typed = 0;
    let mut key = |tui: &mut Tui, keys: &str, value: &str, times: &mut Vec<Duration>| {
        let time = type_in_field(tui, keys, value);
        typed += 1;
        if typed > WORD.len() {
            times.push(time);
        }
        if typed % KEYS_BETWEEN_PAUSES == 0 {
            std::thread::sleep(Duration::from_millis(450));
        }
    };
    // The first word is a warm-up, not timed.
    for c in WORD.chars() {
        value.push(c);
        key(&mut tui, &c.to_string(), &value, &mut times);
    }
    while times.len() < KEYS {
        while value.len() > 1 && times.len() < KEYS {
            value.pop();
            key(&mut tui, "\x7f", &value, &mut times);
        }
        for c in WORD.chars().skip(1) {
            if times.len() == KEYS {
                break;
            }
            value.push(c);
            key(&mut tui, &c.to_string(), &value, &mut times);
        }
    }
    if preview {
        // The pane really was live: the server's answer for a value typed is on screen.
        tui.wait_for("You said: ", Duration::from_secs(10));
    }
    tui.send("\x03");
    tui.wait_exit(Duration::from_secs(20));
    times
}

/// Sends `keys` and waits until the form's field (the box at the left edge) shows exactly
/// `value`.
fn type_in_field(tui: &mut Tui, keys: &str, value: &str) -> Duration {
    let shown = format!("│{value} ");
    let sent = Instant::now();
    tui.send(keys);
    loop {
        let screen = tui.screen();
        if screen.lines().any(|l| l.starts_with(&shown)) {
            return sent.elapsed();
        }
        assert!(
            sent.elapsed() < LOST,
            "the key for {value:?} was not drawn within {LOST:?}; the screen:\n{screen}"
        );
        std::thread::sleep(Duration::from_micros(500));
    }
}

/// Sends `keys` and waits until the search box shows exactly `query`.
fn type_and_wait(tui: &mut Tui, keys: &str, query: &str) -> Duration {
    let shown = format!("❯ {query} ");
    let sent = Instant::now();
    tui.send(keys);
    loop {
        let screen = tui.screen();
        if screen.lines().next().is_some_and(|l| l.starts_with(&shown)) {
            return sent.elapsed();
        }
        assert!(
            sent.elapsed() < LOST,
            "the key for {query:?} was not drawn within {LOST:?}; the screen:\n{screen}"
        );
        std::thread::sleep(Duration::from_micros(500));
    }
}
