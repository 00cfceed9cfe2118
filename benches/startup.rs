//! How fast the full-screen menu starts, and how much memory it takes (DESIGN.md §6).
//!
//! Runs the release binary in a pseudo-terminal (120×40) and times, from the spawn:
//! - the first frame: the first output that leaves something on the alternate screen,
//!   with 10 servers configured (budget 50 ms, before any server answers);
//! - the complete menu: the status bar showing every server ready with its prompt count,
//!   for 1 and for 10 stdio servers that each sleep 300 ms before starting (budget: 10 take
//!   less than 1.5× the time of one).
//!
//! Then mcpick's own peak memory (VmHWM, its servers not counted) once the menu is complete:
//! with the bundled library (no config file: the default) and with a server of 10,000
//! prompts (`tests/peers/chaos_server.py many:10000`; budget 30 MiB).
//!
//! ```sh
//! cargo bench --bench startup [-- RUNS]     # default 7 runs each, after a warm-up
//! ```
//!
//! With `MCPICK_BENCH_JSON=FILE` the samples are also written to FILE (for bench/run.sh).

#[path = "../tests/it/common/mod.rs"]
mod common;

use std::io::Read;
use std::path::PathBuf;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::pty::{COLS, ROWS};
use common::{Sandbox, python3, root, toml_str};
use portable_pty::CommandBuilder;
use serde_json::json;

/// How long each server waits before it starts.
const DELAY: &str = "0.3";
const SERVERS: usize = 10;
const FIRST_FRAME_BUDGET_MS: u64 = 50;
/// Every cached prompt in the menu on a warm start, however slow the servers.
const WARM_BUDGET_MS: u64 = 50;
const MEMORY_BUDGET_MIB: u64 = 30;
const MANY: usize = 10_000;
/// Longer than this, a run counts as failed.
const TIMEOUT: Duration = Duration::from_secs(60);
/// How long after the menu is complete its memory is read (a few more frames drawn).
const SETTLE: Duration = Duration::from_millis(300);

/// What one start of the menu showed, and when.
struct Run {
    /// From the spawn to the first output that leaves text on the alternate screen.
    first_frame: Duration,
    /// The screen of that first frame.
    first_screen: String,
    /// From the spawn to the output that made the menu complete.
    complete: Duration,
    /// mcpick's VmHWM after the menu was complete.
    peak_kib: u64,
    /// Its VmRSS then.
    rss_kib: u64,
}

fn main() {
    // `cargo bench` passes `--bench`; a number is the count of runs.
    let runs: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(7)
        .max(1);
    let binary = env!("CARGO_BIN_EXE_mcpick");

    let delayed = |count: usize| {
        let mut config = String::new();
        for n in 0..count {
            config.push_str(&format!(
                "[servers.s{n}]\ncommand = \"/bin/sh\"\nargs = [\"-c\", {}, {}]\n\n",
                toml_str(format!("sleep {DELAY}; exec \"$0\" serve --builtin")),
                toml_str(binary)
            ));
        }
        config
    };
    let names = |count: usize| -> Vec<String> { (0..count).map(|n| format!("s{n}")).collect() };

    // Start: 1 and 10 delayed servers, interleaved, one warm-up round first.
    let mut one = Vec::new();
    let mut ten = Vec::new();
    for round in 0..=runs {
        let a = run(Some(&delayed(1)), &names(1), None);
        let b = run(Some(&delayed(SERVERS)), &names(SERVERS), None);
        if round > 0 {
            one.push(a);
            ten.push(b);
        }
        eprintln!("  startup round {round}/{runs}{} done", warm_up(round));
    }

    // Memory: the bundled library (no config), then 10,000 prompts.
    let chaos = format!(
        "[servers.chaos]\ncommand = {}\nargs = [{}, {}]\ntimeout_ms = 60000\n",
        toml_str(python3()),
        toml_str(root().join("tests/peers/chaos_server.py").to_string_lossy()),
        toml_str(format!("many:{MANY}"))
    );
    // many:N serves N prompts plus `hello`, `greet` and `needle-42`.
    let many_count = (MANY + 3).to_string();
    let mut builtin = Vec::new();
    let mut many = Vec::new();
    for round in 0..=runs {
        let a = run(None, &["builtin".to_string()], None);
        let b = run(Some(&chaos), &["chaos".to_string()], Some(&many_count));
        if round > 0 {
            builtin.push(a);
            many.push(b);
        }
        eprintln!("  memory round {round}/{runs}{} done", warm_up(round));
    }

    // The catalog cache: every prompt in the menu, cold (a fresh cache each run) against
    // warm (the cache of the run before), A B A B; 10 delayed servers, and one Python-SDK
    // server (`ttlMs: 0`, so warm it is listed again: the rows are there meanwhile).
    let builtin_prompts = 9;
    let python = format!(
        "[servers.py]\ncommand = {}\nargs = [{}]\n",
        toml_str(
            root()
                .join("target/peers/venv/bin/python3")
                .to_string_lossy()
        ),
        toml_str(
            root()
                .join("tests/peers/py_server/server.py")
                .to_string_lossy()
        ),
    );
    let python_prompts = python_prompt_count(&python);
    let warm_ten = Sandbox::new(&delayed(SERVERS));
    let warm_python = Sandbox::new(&python);
    let (mut cold_ten, mut hot_ten, mut cold_py, mut hot_py) = (vec![], vec![], vec![], vec![]);
    for round in 0..=runs {
        let every = Complete::Prompts(SERVERS * builtin_prompts);
        let a = run_in(&Sandbox::new(&delayed(SERVERS)), true, every);
        let b = run_in(&warm_ten, true, every);
        let every = Complete::Prompts(python_prompts);
        let c = run_in(&Sandbox::new(&python), true, every);
        let d = run_in(&warm_python, true, every);
        if round > 0 {
            cold_ten.push(a);
            hot_ten.push(b);
            cold_py.push(c);
            hot_py.push(d);
        }
        eprintln!("  catalog round {round}/{runs}{} done", warm_up(round));
    }

    let ms = |runs: &[Run], pick: fn(&Run) -> Duration| -> Vec<f64> {
        runs.iter()
            .map(|r| pick(r).as_secs_f64() * 1000.0)
            .collect()
    };
    let answered = ten
        .iter()
        .filter(|r| ready(&r.first_screen, &names(SERVERS), None) > 0)
        .count();
    let first_frame_what = if answered == 0 {
        format!("first frame, {SERVERS} servers (none ready yet)")
    } else {
        format!("first frame, {SERVERS} servers ({answered} runs with one ready: OVER)")
    };
    let times = vec![
        json!({"name": "first_frame_10", "what": first_frame_what,
               "ms": ms(&ten, |r| r.first_frame), "budget_ms": FIRST_FRAME_BUDGET_MS,
               "runs_with_a_server_ready": answered}),
        json!({"name": "first_frame_1", "what": "first frame, 1 server",
               "ms": ms(&one, |r| r.first_frame)}),
        json!({"name": "complete_1", "what": format!("menu complete, 1 server ({DELAY} s delay)"),
               "ms": ms(&one, |r| r.complete)}),
        json!({"name": "complete_10",
               "what": format!("menu complete, {SERVERS} servers ({DELAY} s delay)"),
               "ms": ms(&ten, |r| r.complete), "ratio_to": "complete_1"}),
        json!({"name": "every_prompt_cold_10",
               "what": format!("every prompt shown, {SERVERS} delayed servers, cold cache"),
               "ms": ms(&cold_ten, |r| r.complete)}),
        json!({"name": "every_prompt_warm_10",
               "what": format!("every prompt shown, {SERVERS} delayed servers, warm cache"),
               "ms": ms(&hot_ten, |r| r.complete), "budget_ms": WARM_BUDGET_MS,
               "vs": "every_prompt_cold_10"}),
        json!({"name": "every_prompt_cold_py",
               "what": "every prompt shown, Python-SDK server, cold cache",
               "ms": ms(&cold_py, |r| r.complete)}),
        json!({"name": "every_prompt_warm_py",
               "what": "every prompt shown, Python-SDK server, warm cache",
               "ms": ms(&hot_py, |r| r.complete), "budget_ms": WARM_BUDGET_MS,
               "vs": "every_prompt_cold_py"}),
    ];
    let kib = |runs: &[Run]| -> Vec<u64> { runs.iter().map(|r| r.peak_kib).collect() };
    let rss = |runs: &[Run]| -> Vec<u64> { runs.iter().map(|r| r.rss_kib).collect() };
    let memory = vec![
        json!({"what": "menu, bundled library (default, no config)", "kib": kib(&builtin), "rss_kib": rss(&builtin)}),
        json!({"what": format!("menu, {} prompts (chaos many:{MANY})", MANY + 3),
               "kib": kib(&many), "rss_kib": rss(&many), "budget_mib": MEMORY_BUDGET_MIB}),
        json!({"what": format!("menu, {SERVERS} delayed servers"), "kib": kib(&ten), "rss_kib": rss(&ten)}),
    ];

    println!(
        "{:<48} {:>9} {:>9} {:>9}",
        "startup (ms from spawn)", "median", "min", "max"
    );
    for row in &times {
        let values: Vec<f64> = serde_json::from_value(row["ms"].clone()).unwrap();
        let (median, min, max) = spread(values);
        println!(
            "{:<48} {median:>9.1} {min:>9.1} {max:>9.1}",
            row["what"].as_str().unwrap()
        );
    }
    println!(
        "{:<48} {:>9} {:>9}",
        "memory of mcpick, menu complete", "VmHWM", "VmRSS"
    );
    for row in &memory {
        let max = |key: &str| {
            let values: Vec<u64> = serde_json::from_value(row[key].clone()).unwrap();
            values.iter().max().copied().unwrap_or(0) as f64 / 1024.0
        };
        println!(
            "{:<48} {:>5.1} MiB {:>5.1} MiB",
            row["what"].as_str().unwrap(),
            max("kib"),
            max("rss_kib")
        );
    }
    if let Some(path) = std::env::var_os("MCPICK_BENCH_JSON") {
        let all = json!({"runs": runs, "times": times, "memory": memory});
        std::fs::write(&path, serde_json::to_string_pretty(&all).unwrap())
            .unwrap_or_else(|e| panic!("write {}: {e}", PathBuf::from(&path).display()));
    }
}

/// How many prompts the Python-SDK server lists (all pages), by `mcpick list --json` in a
/// sandbox of its own (its catalog is not the benchmark's).
fn python_prompt_count(config: &str) -> usize {
    let sandbox = Sandbox::new(config);
    let out = sandbox.mcpick(&["list", "--json"]);
    let listed: Vec<serde_json::Value> =
        serde_json::from_slice(&out.stdout).expect("mcpick list --json prints a list");
    assert!(!listed.is_empty(), "the Python-SDK server listed nothing");
    listed.len()
}

fn warm_up(round: usize) -> &'static str {
    if round == 0 { " (warm-up)" } else { "" }
}

fn spread(mut values: Vec<f64>) -> (f64, f64, f64) {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    let median = if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    };
    (median, values[0], values[n - 1])
}

/// How many of `servers` the status bar shows ready (with `count` prompts each, when
/// given), in its full form (`● NAME COUNT`) or its compact one (`● N ready`).
fn ready(screen: &str, servers: &[String], count: Option<&str>) -> usize {
    // The status bar is the row above the key hints; any row showing more counts.
    screen
        .lines()
        .map(|line| ready_in(line, servers, count))
        .max()
        .unwrap_or(0)
}

fn ready_in(status: &str, servers: &[String], count: Option<&str>) -> usize {
    if count.is_none()
        && let Some(at) = status.find("● ")
        && let Some((n, rest)) = status[at + "● ".len()..].split_once(' ')
        && rest.starts_with("ready")
        && let Ok(n) = n.parse()
    {
        return n;
    }
    servers
        .iter()
        .filter(|name| {
            let mark = format!("● {name} ");
            status.match_indices(&mark).any(|(at, _)| {
                let rest = &status[at + mark.len()..];
                let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
                match count {
                    Some(count) => digits == count,
                    None => !digits.is_empty(),
                }
            })
        })
        .count()
}

/// Starts mcpick (with `config`, or none: the bundled library) in a PTY, waits until every
/// server in `servers` is ready, reads its VmHWM, quits it with Ctrl-C. A fresh sandbox
/// each time: no catalog cached (a cold start).
fn run(config: Option<&str>, servers: &[String], count: Option<&str>) -> Run {
    let sandbox = Sandbox::new(config.unwrap_or(""));
    run_in(
        &sandbox,
        config.is_some(),
        Complete::Ready { servers, count },
    )
}

/// When a start counts as complete.
#[derive(Clone, Copy)]
enum Complete<'a> {
    /// The status bar shows every one of `servers` ready (with `count` prompts each).
    Ready {
        servers: &'a [String],
        count: Option<&'a str>,
    },
    /// The menu holds this many prompts (`N/N prompts` at the top right), from a live list
    /// or from the catalog: what a user can pick from.
    Prompts(usize),
}

impl Complete<'_> {
    fn is_met(self, screen: &str) -> bool {
        match self {
            Complete::Ready { servers, count } => ready(screen, servers, count) == servers.len(),
            Complete::Prompts(n) => {
                let all = format!("{n}/{n} prompts");
                screen.lines().next().is_some_and(|top| top.contains(&all))
            }
        }
    }
}

/// [`run`] in `sandbox` (its catalog cache kept between runs: a warm start after the first),
/// complete when `complete` is met.
fn run_in(sandbox: &Sandbox, with_config: bool, complete: Complete<'_>) -> Run {
    let dir = sandbox.dir.path();
    let mut command = CommandBuilder::new(env!("CARGO_BIN_EXE_mcpick"));
    if with_config {
        command.arg("--config");
        command.arg(sandbox.config());
    }
    common::pty::isolate(&mut command, dir);
    // Its own log level, not the one of the shell the bench runs in.
    command.env_remove("MCPICK_LOG");
    let pair = common::pty::open_pty();
    let mut reader = pair.master.try_clone_reader().expect("PTY reader");
    let mut writer = pair.master.take_writer().expect("PTY writer");

    let started = Instant::now();
    let mut child = pair.slave.spawn_command(command).expect("start mcpick");
    drop(pair.slave);
    let pid = child.process_id().expect("a pid");

    // The reader notes when the first frame and the complete menu arrive.
    let (tx, rx) = mpsc::channel();
    let screen = Arc::new(Mutex::new(String::new()));
    let criterion = match complete {
        Complete::Ready { servers, count } => {
            Criterion::Ready(servers.to_vec(), count.map(str::to_string))
        }
        Complete::Prompts(n) => Criterion::Prompts(n),
    };
    {
        let screen = screen.clone();
        std::thread::spawn(move || {
            let mut parser = vt100::Parser::new(ROWS, COLS, 0);
            let mut first: Option<(Duration, String)> = None;
            let mut done = false;
            let mut buffer = [0u8; 65536];
            loop {
                let n = match reader.read(&mut buffer) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                let at = started.elapsed();
                parser.process(&buffer[..n]);
                if done {
                    continue;
                }
                let contents = parser.screen().contents();
                if first.is_none()
                    && parser.screen().alternate_screen()
                    && !contents.trim().is_empty()
                {
                    first = Some((at, contents.clone()));
                }
                if first.is_some() && criterion.is_met(&contents) {
                    done = true;
                    let (first_frame, first_screen) = first.take().unwrap();
                    let _ = tx.send((first_frame, first_screen, at));
                }
                *screen.lock().unwrap() = contents;
            }
        });
    }
    let Ok((first_frame, first_screen, complete)) = rx.recv_timeout(TIMEOUT) else {
        let _ = child.kill();
        let _ = child.wait();
        panic!(
            "the menu was not complete within {TIMEOUT:?}; the screen:\n{}",
            screen.lock().unwrap()
        );
    };
    std::thread::sleep(SETTLE);
    let peak_kib = proc_status_kib(pid, "VmHWM:").expect("mcpick's VmHWM");
    let rss_kib = proc_status_kib(pid, "VmRSS:").expect("mcpick's VmRSS");
    use std::io::Write;
    let _ = writer.write_all(b"\x03");
    let _ = writer.flush();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            // Leaving the menu without a result is a cancel, as in fzf.
            assert_eq!(status.exit_code(), 130, "mcpick exited with {status:?}");
            break;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("mcpick did not exit after Ctrl-C");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    Run {
        first_frame,
        first_screen,
        complete,
        peak_kib,
        rss_kib,
    }
}

/// [`Complete`], owned, for the reader thread.
enum Criterion {
    Ready(Vec<String>, Option<String>),
    Prompts(usize),
}

impl Criterion {
    fn is_met(&self, screen: &str) -> bool {
        match self {
            Criterion::Ready(servers, count) => Complete::Ready {
                servers,
                count: count.as_deref(),
            }
            .is_met(screen),
            Criterion::Prompts(n) => Complete::Prompts(*n).is_met(screen),
        }
    }
}

/// A `KEY: N kB` line of /proc/PID/status.
fn proc_status_kib(pid: u32, key: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix(key))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
}
