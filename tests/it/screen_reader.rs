//! The screen reader mode (issue 55) end to end: the real binary in a pseudo-terminal,
//! driven by the bytes a terminal sends in its own line mode, its raw output checked for
//! what a screen reader must never meet (the alternate screen, cursor addressing, box
//! drawing, spinner frames, a server's raw controls) and its text read as the lines a user
//! hears.

use std::time::{Duration, Instant};

use crate::common::pty::*;
use crate::common::*;

/// Everything the terminal received so far, as text: CSI sequences removed, CRLF as LF.
fn transcript(tui: &Tui) -> String {
    strip_csi(&String::from_utf8_lossy(&tui.raw())).replace("\r\n", "\n")
}

/// Waits until the transcript holds `needle` after byte `from`; returns where it ends.
fn wait_said(tui: &mut Tui, needle: &str, from: usize, timeout: Duration) -> usize {
    let deadline = Instant::now() + timeout;
    loop {
        let text = transcript(tui);
        if let Some(at) = text.get(from..).and_then(|rest| rest.find(needle)) {
            return from + at + needle.len();
        }
        let exited = tui.child.try_wait().ok().flatten();
        if exited.is_some() || Instant::now() >= deadline {
            panic!(
                "waiting for {needle:?} ({}); what was said:\n{text}",
                if exited.is_some() {
                    "mcpick exited"
                } else {
                    "timed out"
                }
            );
        }
        std::thread::sleep(Duration::from_millis(30));
    }
}

/// A conversation: each line typed once the previous prompt (and what it waits for) was
/// said, so the transcript is what a user would hear, in order.
struct Talk {
    tui: Tui,
    at: usize,
}

impl Talk {
    fn start(sandbox: &Sandbox, args: &[&str]) -> Talk {
        let mut all = vec!["--screen-reader"];
        all.extend(args);
        Talk {
            tui: Tui::start(sandbox, &all),
            at: 0,
        }
    }

    /// Waits until `needle` is said (after what was waited for before).
    fn hear(&mut self, needle: &str) {
        self.at = wait_said(&mut self.tui, needle, self.at, SERVER_START);
    }

    /// Types `line` and Enter, as a terminal in line mode sends it.
    fn type_line(&mut self, line: &str) {
        self.tui.send(&format!("{line}\r"));
    }
}

/// What a screen reader must never be given: the alternate screen, cursor addressing or
/// moves, box drawing, blocks, braille spinner frames, OSC requests. Colour (SGR) may stay.
fn assert_linear(raw: &[u8]) {
    let text = String::from_utf8_lossy(raw);
    assert!(
        !text.contains("\x1b[?1049h"),
        "the alternate screen was entered"
    );
    for (at, c) in text.char_indices() {
        if c == '\x1b' {
            let rest = &text[at..];
            assert!(
                rest.starts_with("\x1b["),
                "an escape sequence other than CSI at byte {at}: {:?}",
                &rest[..rest.len().min(20)]
            );
            // CSI params, then its final byte.
            let body: String = rest[2..]
                .chars()
                .take_while(|c| !('\x40'..='\x7e').contains(c))
                .collect();
            let end = rest[2 + body.len()..].chars().next();
            assert_eq!(
                end,
                Some('m'),
                "a CSI sequence that is no colour (cursor addressing or a mode) at byte {at}: {:?}",
                &rest[..rest.len().min(20)]
            );
        }
        assert!(
            !('\u{2500}'..='\u{259f}').contains(&c),
            "a box-drawing or block character {c:?} at byte {at}"
        );
        assert!(
            !('\u{2800}'..='\u{28ff}').contains(&c),
            "a braille (spinner) character {c:?} at byte {at}"
        );
    }
}

/// Asserts each of `lines` is a whole line of `text`, in this order.
fn assert_lines_in_order(text: &str, lines: &[&str]) {
    let said: Vec<&str> = text.lines().collect();
    let mut from = 0;
    for line in lines {
        match said[from..].iter().position(|l| l.trim_end() == *line) {
            Some(at) => from += at + 1,
            None => panic!("the line {line:?} was not said (after line {from}); all said:\n{text}"),
        }
    }
}

/// The bundled library served by this binary, with copies going to `copied` by a
/// clipboard command.
fn library_copying_to(copied: &std::path::Path) -> Sandbox {
    Sandbox::new(&format!(
        "clipboard_command = [\"sh\", \"-c\", {}]\n{}",
        toml_str(format!("cat > '{}'", copied.display())),
        mcpick_serve("builtin", &["--builtin"])
    ))
}

#[test]
fn the_whole_loop_reads_as_lines_in_the_scrollback() {
    let copy_dir = tempfile::tempdir().unwrap();
    let copied = copy_dir.path().join("copied.md");
    let sandbox = library_copying_to(&copied);
    let mut talk = Talk::start(&sandbox, &[]);
    talk.hear("menu> ");
    talk.type_line("trans");
    talk.hear("1 match for \"trans\".");
    talk.hear("menu> ");
    talk.type_line("1");
    talk.hear("Argument 1 of 3, required: Text. The text to translate.");
    talk.hear("text> ");
    // A value of two lines, between lines holding only a full stop.
    talk.type_line(".");
    talk.hear("a line holding only a full stop ends the value.");
    talk.type_line("Bonjour");
    talk.type_line("le monde");
    talk.type_line(".");
    talk.hear("Text: 2 lines.");
    talk.hear("to> ");
    // The server's suggestions, narrowed, and one taken by its number.
    talk.type_line("Ger?");
    talk.hear("1. German");
    talk.hear("to> ");
    talk.type_line("1");
    talk.hear("Into: German.");
    talk.hear("tone> ");
    talk.type_line("");
    talk.hear("Tone: left empty.");
    talk.hear("Actions:");
    talk.hear("action> ");
    talk.type_line("1");
    talk.hear("Copied with sh (clipboard_command)");
    talk.hear("action> ");
    talk.type_line("q");
    assert_eq!(
        talk.tui.wait_exit(STEP),
        0,
        "quitting after a copy is a success"
    );

    let raw = talk.tui.raw();
    assert_linear(&raw);
    let text = transcript(&talk.tui);
    assert_lines_in_order(
        &text,
        &[
            "mcpick screen reader mode, turned on by --screen-reader; run mcpick without --screen-reader to use the full screen.",
            "Connecting to 1 server: builtin.",
            "Server builtin is ready: 9 prompts.",
            "8. /translate — Translate — builtin — arguments: text (required), to (required), tone",
            "1. /translate — Translate — builtin — arguments: text (required), to (required), tone",
            "End of the list.",
            "Opening /translate on builtin: Translate. A natural translation that keeps meaning, tone and formatting. 3 arguments, 2 required.",
            "Argument 1 of 3, required: Text. The text to translate.",
            "Text: 2 lines.",
            "Argument 2 of 3, required: Into. The target language.",
            "Choices: 15 suggestions from builtin.",
            "1. English",
            "And 5 more: type the start of a value and a question mark (Eng?) to narrow them.",
            "Choices: 1 suggestion from builtin.",
            "1. German",
            "Into: German.",
            "Argument 3 of 3: Tone. The register to use (default: neutral).",
            "Tone: left empty.",
            "Asking builtin for the messages…",
            "1 message.",
            "Message 1 of 1, user, text:",
            "Bonjour",
            "le monde",
            "End of message 1.",
            "Actions:",
            "1. Copy to the clipboard.",
            "2. Save to a file.",
            "3. Print on standard output, then quit.",
            "4. Edit a message in your editor ($VISUAL or $EDITOR).",
            "5. Change the format, now Markdown.",
            "8. Quit.",
        ],
    );
    // The copy says exactly where the text went, and it is there.
    let said = text
        .lines()
        .find(|l| l.starts_with("Copied with sh (clipboard_command). "))
        .unwrap_or_else(|| panic!("no copy line:\n{text}"));
    let body = read(&copied);
    assert!(
        said.ends_with(&format!("{} characters of Markdown.", body.chars().count())),
        "{said}\nthe copy:\n{body}"
    );
    assert!(
        body.contains("into German") && body.contains("Bonjour\nle monde"),
        "{body}"
    );
    // Every line is said once: no line of the menu, form or review repeats.
    for line in [
        "Argument 2 of 3, required: Into. The target language.",
        "Actions:",
    ] {
        assert_eq!(
            text.lines().filter(|l| l.trim_end() == line).count(),
            1,
            "{line:?} said more than once:\n{text}"
        );
    }
}

#[test]
fn a_prompt_named_with_server_and_name_opens_from_the_menu() {
    let copy_dir = tempfile::tempdir().unwrap();
    let sandbox = library_copying_to(&copy_dir.path().join("unused"));
    let mut talk = Talk::start(&sandbox, &[]);
    talk.hear("menu> ");
    talk.type_line("/builtin:summarize");
    talk.hear("Opening /summarize on builtin");
    talk.hear("text> ");
    talk.type_line("/menu");
    talk.hear("Back to the menu.");
    talk.hear("menu> ");
    talk.type_line("q");
    assert_eq!(
        talk.tui.wait_exit(STEP),
        130,
        "quitting with nothing exported"
    );
    assert_linear(&talk.tui.raw());
}

/// A served prompt whose names, descriptions and text carry escape sequences, a bell, a
/// zero-width space and a bidi override.
fn hostile_library(dir: &std::path::Path) -> Sandbox {
    let prompts = dir.join("prompts");
    std::fs::create_dir_all(&prompts).unwrap();
    std::fs::write(
        prompts.join("hostile.mcpick.md"),
        "---\n\
         title: \"Evil\\e[2J\\e]0;pwned\\a title\\u200B\"\n\
         description: \"Clears\\e[H the screen \\u202Ereversed\"\n\
         arguments:\n  \
           - name: topic\n    \
             title: \"Topic\\e[31m\"\n    \
             description: \"What\\u200b to\\e[1A write\"\n    \
             required: true\n\
         ---\n\
         Write about {{topic}}. \x1b[2J gone \x1b]0;owned\x07 and zero\u{200b}width and \u{202e} override.\n",
    )
    .unwrap();
    Sandbox::new(&mcpick_serve("evil", &[prompts.to_str().unwrap()]))
}

#[test]
fn a_hostile_servers_controls_are_named_never_passed_through() {
    let dir = tempfile::tempdir().unwrap();
    let sandbox = hostile_library(dir.path());
    let mut talk = Talk::start(&sandbox, &[]);
    talk.hear("menu> ");
    talk.type_line("1");
    talk.hear("topic> ");
    talk.type_line("the moon");
    talk.hear("action> ");
    talk.type_line("q");
    assert_eq!(talk.tui.wait_exit(STEP), 130);
    let raw = talk.tui.raw();
    assert_linear(&raw);
    let text = String::from_utf8_lossy(&raw);
    for raw_control in [
        "\x07", "\u{200b}", "\u{202e}", "\x1b]", "\x1b[2J", "\x1b[H", "\x1b[1A",
    ] {
        assert!(
            !text.contains(raw_control),
            "{raw_control:?} reached the terminal raw:\n{text}"
        );
    }
    let text = transcript(&talk.tui);
    assert_lines_in_order(
        &text,
        &[
            "1. /hostile — Evil␛[2J␛]0;pwned␇ title<U+200B> — evil — arguments: topic (required)",
            "Argument 1 of 1, required: Topic␛[31m. What<U+200B> to␛[1A write.",
            "Message 1 of 1, user, text:",
            "Write about the moon. ␛[2J gone ␛]0;owned␇ and zero<U+200B>width and <U+202E> override.",
        ],
    );
}

#[test]
fn news_waits_until_the_value_being_typed_is_done_and_is_said_once() {
    let dir = tempfile::tempdir().unwrap();
    let sandbox = hostile_library(dir.path());
    let mut talk = Talk::start(&sandbox, &[]);
    talk.hear("menu> ");
    talk.type_line("1");
    talk.hear("topic> ");
    // Half way through a value of several lines, the server's list changes.
    talk.type_line(".");
    talk.type_line("first line");
    std::fs::write(
        dir.path().join("prompts/added.mcpick.md"),
        "---\ntitle: Added\n---\nA new prompt.\n",
    )
    .unwrap();
    // The server watches its folder and tells its clients; time for it to arrive.
    std::thread::sleep(Duration::from_secs(3));
    talk.type_line("second line");
    talk.type_line(".");
    talk.hear("2 lines.");
    talk.hear("action> ");
    talk.type_line("7");
    talk.hear("menu> ");
    talk.type_line("all");
    talk.hear("2 prompts.");
    talk.hear("menu> ");
    talk.type_line("q");
    talk.tui.wait_exit(STEP);
    assert_linear(&talk.tui.raw());
    let text = transcript(&talk.tui);
    let news =
        "Server evil's prompt list changed: now 2 prompts. Type all to hear the whole list again.";
    let said: Vec<usize> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.trim_end() == news)
        .map(|(at, _)| at)
        .collect();
    assert_eq!(said.len(), 1, "the news said {} times:\n{text}", said.len());
    let value_done = text
        .lines()
        .position(|l| l.ends_with(": 2 lines."))
        .unwrap_or_else(|| panic!("the value was not taken:\n{text}"));
    assert!(
        said[0] > value_done,
        "the news came in the middle of the value:\n{text}"
    );
}

#[test]
fn the_environment_and_the_config_turn_it_on_and_say_so_and_doctor_tells() {
    let copy_dir = tempfile::tempdir().unwrap();
    let sandbox = library_copying_to(&copy_dir.path().join("unused"));
    // The environment, with no terminal at all (a pipe): the mode needs none.
    let output = sandbox
        .command(&[])
        .env("MCPICK_SCREEN_READER", "1")
        .output()
        .unwrap();
    let out = stdout(&output);
    assert!(
        out.starts_with("mcpick screen reader mode, turned on by MCPICK_SCREEN_READER=1; unset MCPICK_SCREEN_READER, or set it to 0, to turn it off.\n"),
        "{out}\n{}",
        stderr(&output)
    );
    assert_eq!(output.status.code(), Some(130), "end of input quits");
    // The config's [ui] table, named in the first line.
    let config = std::fs::read_to_string(sandbox.config()).unwrap();
    std::fs::write(
        sandbox.config(),
        format!("{config}\n[ui]\nscreen_reader = true\n"),
    )
    .unwrap();
    let mut talk = Talk {
        tui: Tui::start(&sandbox, &[]),
        at: 0,
    };
    talk.hear(&format!(
        "mcpick screen reader mode, turned on by screen_reader = true in the config's [ui] table; set screen_reader = false in the [ui] table of {} to turn it off.",
        sandbox.config().display()
    ));
    talk.hear("menu> ");
    talk.type_line("q");
    talk.tui.wait_exit(STEP);
    assert_linear(&talk.tui.raw());
    // MCPICK_SCREEN_READER=0 turns off what the config turns on; doctor says which.
    let doctor = stdout(&sandbox.command(&["doctor"]).output().unwrap());
    assert!(
        doctor.contains("screen reader  on (screen_reader = true in the config's [ui] table)"),
        "{doctor}"
    );
    let doctor = stdout(
        &sandbox
            .command(&["doctor"])
            .env("MCPICK_SCREEN_READER", "0")
            .output()
            .unwrap(),
    );
    assert!(
        doctor.contains("screen reader  off (MCPICK_SCREEN_READER=0)"),
        "{doctor}"
    );
}

#[cfg_attr(
    mcpick_missing_espeak_ng,
    ignore = "`espeak-ng` is not installed (MCPICK_ALLOW_SKIP=1)"
)]
#[test]
fn a_transcript_of_one_loop_is_spoken_by_espeak_ng_without_error() {
    let espeak = system_tool("espeak-ng");
    let copy_dir = tempfile::tempdir().unwrap();
    let sandbox = library_copying_to(&copy_dir.path().join("copied.md"));
    let mut talk = Talk::start(&sandbox, &[]);
    talk.hear("menu> ");
    talk.type_line("/translate");
    talk.hear("text> ");
    talk.type_line("Bonjour");
    talk.hear("to> ");
    talk.type_line("1");
    talk.hear("tone> ");
    talk.type_line("formal");
    talk.hear("action> ");
    talk.type_line("1");
    talk.hear("Copied with");
    talk.hear("action> ");
    talk.type_line("q");
    assert_eq!(talk.tui.wait_exit(STEP), 0);
    let transcript = transcript(&talk.tui);
    // `-q` would be espeak-ng's "no sound at all": the audio goes to stdout as a WAV file.
    let mut speaking = std::process::Command::new(espeak)
        .arg("--stdout")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start espeak-ng");
    let mut stdin = speaking.stdin.take().unwrap();
    let text = transcript.clone();
    let writer = std::thread::spawn(move || {
        std::io::Write::write_all(&mut stdin, text.as_bytes()).expect("write to espeak-ng")
    });
    let spoken = speaking.wait_with_output().expect("run espeak-ng");
    writer.join().unwrap();
    assert!(
        spoken.status.success() && spoken.stderr.is_empty(),
        "espeak-ng failed ({}): {}\nthe transcript:\n{transcript}",
        spoken.status,
        String::from_utf8_lossy(&spoken.stderr)
    );
    let audio = &spoken.stdout;
    assert!(
        audio.starts_with(b"RIFF") && audio.get(8..12) == Some(b"WAVE"),
        "no WAV audio from espeak-ng ({} bytes)",
        audio.len()
    );
    // 22,050 samples a second of 16 bits: a transcript of this length speaks for a
    // minute or more, so far more than a second of audio.
    assert!(
        audio.len() > 44_100 * 30,
        "only {} bytes of audio for {} characters of transcript",
        audio.len(),
        transcript.len()
    );
}

#[test]
fn reduced_motion_keeps_the_full_screen_still() {
    // A server that takes a while: the menu says it is still connecting, with a spinner.
    let slow = format!(
        "[servers.slow]\ncommand = \"sh\"\nargs = [\"-c\", {}]\n",
        toml_str(format!(
            "sleep 8; exec {} serve --builtin",
            sh_quote(env!("CARGO_BIN_EXE_mcpick"))
        ))
    );
    for (reduce, spins) in [("1", false), ("0", true)] {
        // A sandbox each: no catalog of the other run shows the menu at once.
        let sandbox = Sandbox::new(&slow);
        let mut command = portable_pty::CommandBuilder::new(env!("CARGO_BIN_EXE_mcpick"));
        command.arg("--config");
        command.arg(sandbox.config());
        command.env("MCPICK_REDUCE_MOTION", reduce);
        let mut tui = Tui::spawn(&sandbox, command);
        let screen = tui.wait_for("Connecting to 1 server", SERVER_START);
        // Long enough for a spinner to turn several times.
        std::thread::sleep(Duration::from_millis(1200));
        tui.send(CTRL_C);
        tui.wait_exit(STEP);
        let raw = String::from_utf8_lossy(&tui.raw()).into_owned();
        let frames: std::collections::BTreeSet<char> = raw
            .chars()
            .filter(|c| ('\u{2800}'..='\u{28ff}').contains(c))
            .collect();
        if spins {
            assert!(
                frames.len() > 1,
                "without MCPICK_REDUCE_MOTION the spinner turns (the control): {frames:?}"
            );
        } else {
            assert!(
                frames.is_empty(),
                "MCPICK_REDUCE_MOTION=1 drew spinner frames {frames:?}:\n{screen}"
            );
            assert!(
                screen.contains("• Connecting to 1 server…"),
                "no still mark:\n{screen}"
            );
        }
    }
}

#[test]
fn with_stdout_a_pipe_the_talk_stays_on_the_terminal_and_print_sends_only_the_export() {
    let copy_dir = tempfile::tempdir().unwrap();
    let sandbox = library_copying_to(&copy_dir.path().join("unused"));
    let piped = sandbox.dir.path().join("piped.md");
    // `mcpick --screen-reader --print | …`: stdout is not the terminal.
    let mut command = portable_pty::CommandBuilder::new("sh");
    command.arg("-c");
    command.arg(format!(
        "{} --config {} --screen-reader --print > {}",
        sh_quote(env!("CARGO_BIN_EXE_mcpick")),
        sh_quote(sandbox.config().display().to_string()),
        sh_quote(piped.display().to_string())
    ));
    let mut talk = Talk {
        tui: Tui::spawn(&sandbox, command),
        at: 0,
    };
    talk.hear("menu> ");
    talk.type_line("/builtin:translate");
    talk.hear("text> ");
    talk.type_line("Hallo");
    talk.hear("to> ");
    talk.type_line("French");
    talk.hear("tone> ");
    talk.type_line("");
    talk.hear("action> ");
    talk.type_line("print");
    talk.hear("The export in Markdown follows; then mcpick quits.");
    assert_eq!(talk.tui.wait_exit(STEP), 0);
    assert_linear(&talk.tui.raw());
    let exported = read(&piped);
    assert!(
        exported.contains("into French") && exported.contains("Hallo"),
        "{exported}"
    );
    assert!(
        !exported.contains("menu>") && !exported.contains("Argument 1 of 3"),
        "the conversation went down the pipe:\n{exported}"
    );
}

#[test]
fn a_servers_questions_are_asked_one_per_line_and_the_answers_reach_it() {
    // A 2026-07-28 server whose `ask` prompt answers `input_required` first: a form (name,
    // colour, count with a default) and a sampling request mcpick declines.
    let sandbox = Sandbox::new(&format!(
        "[servers.new]\ncommand = \"python3\"\nargs = [{}, \"input-required\"]\n",
        toml_str(root().join("tests/peers/fake_server.py").to_string_lossy())
    ));
    let mut talk = Talk::start(&sandbox, &[]);
    talk.hear("menu> ");
    talk.type_line("/new:ask");
    talk.hear("Asking new for the messages…");
    talk.hear("Server new asks: Who is asking?");
    talk.hear("name> ");
    talk.type_line("octocat");
    talk.hear("color> ");
    talk.type_line("Green");
    talk.hear("count> ");
    talk.type_line("");
    talk.hear("1 message.");
    talk.hear("Hello octocat, you like g (x2)");
    talk.hear("action> ");
    talk.type_line("q");
    talk.tui.wait_exit(STEP);
    assert_linear(&talk.tui.raw());
    let text = transcript(&talk.tui);
    assert!(
        text.lines()
            .any(|l| l
                .starts_with("Server new asks what mcpick cannot answer here, so it is declined:")),
        "the sampling request was not said declined:\n{text}"
    );
    assert_lines_in_order(
        &text,
        &[
            "Server new asks: Who is asking?",
            "3 questions. Type /decline to decline, /menu to cancel the request.",
            "Sending the answers to new…",
            "1 message.",
            "Message 1 of 1, user, text:",
        ],
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with("Question 1 of 3: Name.")),
        "{text}"
    );
}
