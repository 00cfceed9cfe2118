//! Shared helpers for the integration tests: the pinned third-party servers, HTTP server
//! processes on loopback, configs in temp dirs, and running the real binary.
#![allow(dead_code)]

pub mod pty;

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The pinned peers under target/peers (or `MCPICK_PEERS_DIR`), which `./test.sh` (or
/// `tests/peers/setup.sh`) installs; when they are missing or outdated, fails saying so.
/// Tests never install anything themselves.
pub fn peers() -> &'static Path {
    static PEERS: OnceLock<PathBuf> = OnceLock::new();
    PEERS.get_or_init(|| {
        let output = Command::new("bash")
            .arg(root().join("tests/peers/setup.sh"))
            .arg("--check")
            .output()
            .expect("run tests/peers/setup.sh --check");
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr).trim()
        );
        // Empty is unset, as setup.sh's `${MCPICK_PEERS_DIR:-…}` reads it.
        std::env::var_os("MCPICK_PEERS_DIR")
            .filter(|dir| !dir.is_empty())
            .map(PathBuf::from)
            .unwrap_or_else(|| root().join("target/peers"))
    })
}

/// The server-everything entry point.
pub fn everything_js() -> PathBuf {
    peers().join("node/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
}

/// The venv's python.
pub fn python() -> PathBuf {
    peers().join("venv/bin/python")
}

/// Our Python-SDK test server.
pub fn py_server() -> PathBuf {
    root().join("tests/peers/py_server/server.py")
}

/// A TOML string literal.
pub fn toml_str(text: impl AsRef<str>) -> String {
    toml::Value::String(text.as_ref().to_string()).to_string()
}

/// `[servers.NAME]` for server-everything over stdio.
pub fn everything_stdio(name: &str) -> String {
    format!(
        "[servers.{name}]\ncommand = \"node\"\nargs = [{}, \"stdio\"]\n",
        toml_str(everything_js().to_string_lossy())
    )
}

/// `[servers.NAME]` for the Python-SDK server over stdio, with extra server arguments.
pub fn py_stdio(name: &str, extra: &[&str]) -> String {
    let mut args = vec![toml_str(py_server().to_string_lossy()), toml_str("stdio")];
    args.extend(extra.iter().map(toml_str));
    format!(
        "[servers.{name}]\ncommand = {}\nargs = [{}]\n",
        toml_str(python().to_string_lossy()),
        args.join(", ")
    )
}

/// `[servers.NAME]` running `COMMAND ARGS` behind tests/peers/legacy_gate.py, which makes a
/// dual-era stdio server look legacy-only.
pub fn behind_legacy_gate(name: &str, command: &[&str]) -> String {
    let mut args = vec![toml_str(
        root().join("tests/peers/legacy_gate.py").to_string_lossy(),
    )];
    args.extend(command.iter().map(toml_str));
    format!(
        "[servers.{name}]\ncommand = \"python3\"\nargs = [{}]\n",
        args.join(", ")
    )
}

/// `[servers.NAME]` for an HTTP server.
pub fn http(name: &str, url: &str) -> String {
    format!("[servers.{name}]\nurl = {}\n", toml_str(url))
}

/// A temp dir holding `config.toml`, also used as the XDG home of the run.
pub struct Sandbox {
    /// The temp dir.
    pub dir: tempfile::TempDir,
}

impl Sandbox {
    /// Writes `config` into a new temp dir.
    pub fn new(config: &str) -> Sandbox {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join("config.toml"), config).expect("write config");
        Sandbox { dir }
    }

    /// The config file.
    pub fn config(&self) -> PathBuf {
        self.dir.path().join("config.toml")
    }

    /// Runs `mcpick --config <this config> ARGS` with no stdin and the XDG dirs inside the sandbox.
    pub fn mcpick(&self, args: &[&str]) -> Output {
        let mut command = self.command(args);
        command.output().expect("run mcpick")
    }

    /// The command, for callers that need to adjust it.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_mcpick"));
        command
            .arg("--config")
            .arg(self.config())
            .args(args)
            .stdin(Stdio::null())
            .env_remove("MCPICK_CONFIG")
            .env("XDG_CONFIG_HOME", self.dir.path().join("xdg-config"))
            .env("XDG_STATE_HOME", self.dir.path().join("xdg-state"))
            .env("XDG_CACHE_HOME", self.dir.path().join("xdg-cache"))
            .env("XDG_DATA_HOME", self.dir.path().join("xdg-data"));
        command
    }
}

/// The output's stdout as text.
pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The output's stderr as text.
pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Asserts exit code 0 and returns stdout.
pub fn success(output: &Output) -> String {
    assert_eq!(
        output.status.code(),
        Some(0),
        "mcpick failed\nstdout:\n{}\nstderr:\n{}",
        stdout(output),
        stderr(output)
    );
    stdout(output)
}

/// A free loopback port (bound and released; the window for a clash is tiny).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("free port")
}

/// A server process killed when dropped.
pub struct ServerProcess {
    child: Child,
    /// Its URL.
    pub url: String,
    /// Its stderr so far, when captured.
    pub stderr: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn wait_for_port(port: u16, child: &mut Child) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        if TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return;
        }
        if let Ok(Some(status)) = child.try_wait() {
            panic!("HTTP test server exited before listening: {status}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("HTTP test server did not listen on port {port} within 30 s");
}

/// server-everything over Streamable HTTP on a free loopback port.
pub fn everything_http() -> ServerProcess {
    everything_in_mode("streamableHttp", "/mcp")
}

/// server-everything in its legacy HTTP+SSE mode (2024-11-05 transport): the stream is
/// at `/sse`.
pub fn everything_sse() -> ServerProcess {
    everything_in_mode("sse", "/sse")
}

/// server-everything started with `MODE` on a free loopback port, its URL ending in `path`.
fn everything_in_mode(mode: &str, path: &str) -> ServerProcess {
    let port = free_port();
    let mut child = Command::new("node")
        .arg(everything_js())
        .arg(mode)
        .env("PORT", port.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start server-everything");
    wait_for_port(port, &mut child);
    ServerProcess {
        child,
        url: format!("http://127.0.0.1:{port}{path}"),
        stderr: Default::default(),
    }
}

/// The Python-SDK server over Streamable HTTP on a free loopback port.
pub fn py_http() -> ServerProcess {
    let port = free_port();
    let mut child = Command::new(python())
        .arg(py_server())
        .arg("http")
        .arg(port.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the Python test server");
    wait_for_port(port, &mut child);
    ServerProcess {
        child,
        url: format!("http://127.0.0.1:{port}/mcp"),
        stderr: Default::default(),
    }
}

/// `[servers.NAME]` for `mcpick serve ARGS` (this very binary) over stdio.
pub fn mcpick_serve(name: &str, args: &[&str]) -> String {
    let mut all = vec![toml_str("serve")];
    all.extend(args.iter().map(toml_str));
    format!(
        "[servers.{name}]\ncommand = {}\nargs = [{}]\n",
        toml_str(env!("CARGO_BIN_EXE_mcpick")),
        all.join(", ")
    )
}

/// `mcpick serve --http 127.0.0.1:0 ARGS`, with the URL it reports on stderr.
pub fn mcpick_serve_http(args: &[&str]) -> ServerProcess {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mcpick"));
    command
        .args(["serve", "--http", "127.0.0.1:0"])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null());
    let (child, url, stderr) = spawn_serving(&mut command);
    ServerProcess { child, url, stderr }
}

/// Starts `command` (an `mcpick serve --http`; its stderr is piped here) and waits for its
/// `listening on URL` banner: the child, the URL (`http://` or `https://`), and its stderr
/// lines, kept as they come. One that does not report its address within 30 s is killed,
/// and the panic shows what it said.
pub fn spawn_serving(
    command: &mut Command,
) -> (Child, String, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
    use std::io::BufRead;
    let mut child = command
        .stderr(Stdio::piped())
        .spawn()
        .expect("start mcpick serve --http");
    let stderr = child.stderr.take().unwrap();
    let lines: std::sync::Arc<std::sync::Mutex<Vec<String>>> = Default::default();
    let kept = lines.clone();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            if line.contains("listening on")
                && let Some(at) = line.find("http")
            {
                let url = line[at..].split_whitespace().next().unwrap_or("");
                let _ = tx.send(url.to_string());
            }
            kept.lock().unwrap().push(line);
        }
    });
    match rx.recv_timeout(Duration::from_secs(30)) {
        Ok(url) => (child, url, lines),
        Err(_) => {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "mcpick serve --http did not report its address: {:?}",
                lines.lock().unwrap()
            );
        }
    }
}

/// Whether `pid` is a live process (a zombie waiting for its parent to reap it is not).
pub fn is_running(pid: impl std::fmt::Display) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .map(|status| {
            !status
                .lines()
                .any(|l| l.starts_with("State:") && l.contains('Z'))
        })
        .unwrap_or(false)
}

/// The Python interpreter itself: `python3` on PATH may be a version manager's shim (pyenv's
/// is a bash script that runs `pyenv exec`), which adds up to a second to every server start
/// on a busy machine.
pub fn python3() -> &'static str {
    static PYTHON: OnceLock<String> = OnceLock::new();
    PYTHON.get_or_init(|| {
        Command::new("python3")
            .args(["-c", "import sys; print(sys.executable)"])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .filter(|path| !path.is_empty())
            .unwrap_or_else(|| "python3".into())
    })
}

/// Finds `program` (tmux, Xvfb, xclip, zsh, fish, openssl) on PATH; missing, fails the
/// test saying how to install it. Tests never install anything themselves: `./test.sh`
/// does (as root), or the user. With `MCPICK_ALLOW_SKIP=1` when the tests are built, each
/// test needing a missing program is ignored instead (build.rs sets `mcpick_missing_NAME`,
/// the test carries `#[cfg_attr(mcpick_missing_NAME, ignore = …)]`), and `cargo test` counts
/// it under "ignored".
pub fn system_tool(program: &str) -> PathBuf {
    let found = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|dir| dir.join(program))
            .find(|candidate| candidate.is_file())
    });
    found.unwrap_or_else(|| {
        let package = match program {
            "Xvfb" => "xvfb",
            other => other,
        };
        panic!(
            "`{program}` is not installed and this test needs it: install it (Debian: \
             apt-get install {package}; or run ./test.sh as root, which installs every \
             program the tests need), or build the tests with MCPICK_ALLOW_SKIP=1 to ignore \
             such tests"
        )
    })
}

/// `text` as one word for `sh` (single quotes; a `'` inside as `'\''`).
pub fn sh_quote(text: impl AsRef<str>) -> String {
    format!("'{}'", text.as_ref().replace('\'', r"'\''"))
}

/// Environment variables that would change the clipboard route mcpick takes (and the
/// config it reads).
pub const ROUTE_VARIABLES: [&str; 7] = [
    "TMUX",
    "STY",
    "DISPLAY",
    "WAYLAND_DISPLAY",
    "SSH_CONNECTION",
    "SSH_TTY",
    "MCPICK_CONFIG",
];

/// `dir` as the home and XDG folders of `command` (no config there: the bundled library),
/// with a known terminal type; as `pty::isolate` does for a PTY child.
pub fn home_env(command: &mut Command, dir: &Path) {
    command
        .env("HOME", dir)
        .env("XDG_CONFIG_HOME", dir.join("xdg-config"))
        .env("XDG_DATA_HOME", dir.join("xdg-data"))
        .env("XDG_STATE_HOME", dir.join("xdg-state"))
        .env("XDG_CACHE_HOME", dir.join("xdg-cache"))
        .env("TERM", "xterm-256color");
}
