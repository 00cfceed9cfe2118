//! mcpick leaves a real tmux as it found it: run in a pane (the menu, `--height`, a named
//! prompt, `--print`) and left with Ctrl-C, it changes neither the pane's title nor the
//! window's name (`--tmux`, in a popup: tmux_popup.rs). The graphics probe's kitty
//! query is an APC string, which tmux takes as a new pane title; inside tmux it is not sent.
//! And it starts on a clean screen where the alternate screen holds a killed program's
//! leftovers (tmux keeps them on a second `?1049h`, where vt100 and xterm clear).

use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::{Sandbox, home_env, mcpick_serve, sh_quote, system_tool};

/// A tmux server of the test's own with one bash pane; killed when dropped.
struct Tmux {
    socket: String,
}

impl Tmux {
    fn start(sandbox: &Sandbox) -> Tmux {
        system_tool("tmux");
        let tmux = Tmux {
            socket: format!("mcpick-title-{}", std::process::id()),
        };
        let status = tmux
            .command(sandbox)
            .args(["-f", "/dev/null", "new-session", "-d", "-s", "main"])
            .args(["-x", "120", "-y", "40", "bash --norc --noprofile"])
            .status()
            .expect("run tmux");
        assert!(status.success(), "tmux new-session failed");
        tmux
    }

    fn command(&self, sandbox: &Sandbox) -> Command {
        let mut command = Command::new("tmux");
        command
            .args(["-L", &self.socket])
            .current_dir(sandbox.dir.path());
        home_env(&mut command, sandbox.dir.path());
        for name in ["TMUX", "TMUX_PANE", "MCPICK_CONFIG", "STY", "ZELLIJ"] {
            command.env_remove(name);
        }
        command
    }

    fn run(&self, sandbox: &Sandbox, args: &[&str]) -> String {
        let out = self.command(sandbox).args(args).output().unwrap();
        assert!(out.status.success(), "tmux {args:?} failed");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The pane's title and its window's name.
    fn titles(&self, sandbox: &Sandbox) -> String {
        self.run(
            sandbox,
            &[
                "display-message",
                "-p",
                "-t",
                "main",
                "#{pane_title}|#{window_name}",
            ],
        )
        .trim()
        .to_string()
    }

    fn screen(&self, sandbox: &Sandbox) -> String {
        self.run(sandbox, &["capture-pane", "-p", "-t", "main"])
    }

    fn wait_for(&self, sandbox: &Sandbox, what: &str, seen: impl Fn(&str) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let screen = self.screen(sandbox);
            if seen(&screen) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "waited for {what}; the pane shows:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .status();
    }
}

#[cfg_attr(
    mcpick_missing_tmux,
    ignore = "`tmux` is not installed (MCPICK_ALLOW_SKIP=1)"
)]
#[test]
fn no_mode_changes_the_pane_title_or_the_window_name() {
    let sandbox = Sandbox::new(&mcpick_serve("builtin", &["--builtin"]));
    let tmux = Tmux::start(&sandbox);
    tmux.run(
        &sandbox,
        &["select-pane", "-t", "main", "-T", "the user's title"],
    );
    tmux.wait_for(&sandbox, "bash's prompt", |s| {
        s.contains('$') || s.contains('#')
    });
    // tmux names the window after the pane's program on a timer of its own: until it has
    // looked, the window is still called after tmux itself.
    let deadline = Instant::now() + Duration::from_secs(20);
    while tmux.titles(&sandbox).ends_with("|tmux") && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    let before = tmux.titles(&sandbox);
    assert_eq!(before, "the user's title|bash");
    let modes: [(&[&str], &str); 4] = [
        (&[], "translate"),
        (&["--height", "12"], "translate"),
        (&["builtin/translate"], "text"),
        (&["--print"], "translate"),
    ];
    for (round, (args, drawn)) in modes.iter().enumerate() {
        let mut words = vec![
            sh_quote(env!("CARGO_BIN_EXE_mcpick")),
            "--config".to_string(),
            sh_quote(sandbox.config().to_string_lossy()),
        ];
        words.extend(args.iter().map(sh_quote));
        // The first round starts over what a killed full-screen program left behind.
        let leftovers = if round == 0 {
            r"printf '\033[?1049h\033[15;20HLEFTOVER-ONE\033[1;1H'; "
        } else {
            r"printf '\033[?1049l'; "
        };
        let line = format!("clear; {leftovers}{}; echo ended-{round}", words.join(" "));
        tmux.run(&sandbox, &["send-keys", "-t", "main", "-l", &line]);
        tmux.run(&sandbox, &["send-keys", "-t", "main", "Enter"]);
        tmux.wait_for(&sandbox, &format!("mcpick {args:?} to draw"), |s| {
            s.contains(drawn) && !s.contains(&format!("ended-{round}\n"))
        });
        // Drawn: the probes have been sent and answered by now.
        std::thread::sleep(Duration::from_millis(500));
        if round == 0 {
            let screen = tmux.screen(&sandbox);
            assert!(!screen.contains("LEFTOVER"), "{screen}");
        }
        tmux.run(&sandbox, &["send-keys", "-t", "main", "C-c"]);
        tmux.wait_for(&sandbox, &format!("mcpick {args:?} to end"), |s| {
            s.lines().any(|l| l.trim() == format!("ended-{round}"))
        });
        // tmux renames the window after the pane's foreground program on a timer of its
        // own: the name comes back to bash a moment after mcpick ends.
        let deadline = Instant::now() + Duration::from_secs(20);
        while tmux.titles(&sandbox) != before && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(100));
        }
        assert_eq!(tmux.titles(&sandbox), before, "after mcpick {args:?}");
    }
}
