//! The pick–fill–copy loop as a user meets it (issue 51): Tab, the order of suggestions,
//! tabs in values, the first selection, Ctrl-W, the mouse, a form that keeps what was
//! typed. Each test drives the real binary in a pty with the bytes a terminal sends.

use super::*;

const CTRL_N: &str = "\x0e";
const CTRL_U: &str = "\x15";
const CTRL_W: &str = "\x17";
const CTRL_E: &str = "\x05";
const SHIFT_TAB: &str = "\x1b[Z";
const BRACKETED_PASTE: (&str, &str) = ("\x1b[200~", "\x1b[201~");

/// The value shown in the form's box under the field titled `title` (its first row), as
/// drawn: the text between the box's left border and the next border.
fn field_row(screen: &str, title: &str, row: usize) -> String {
    let lines: Vec<&str> = screen.lines().collect();
    let at = lines
        .iter()
        .position(|line| line.starts_with(title))
        .unwrap_or_else(|| panic!("no field {title:?}:\n{screen}"));
    // The title, the box's top border, then the value's rows.
    let line = lines
        .get(at + 2 + row)
        .unwrap_or_else(|| panic!("no row {row} under {title:?}:\n{screen}"));
    let inside = line
        .strip_prefix('│')
        .unwrap_or_else(|| panic!("no box under {title:?}:\n{screen}"));
    inside
        .split('│')
        .next()
        .unwrap_or_default()
        .trim_end()
        .to_string()
}

fn field_value(screen: &str, title: &str) -> String {
    field_row(screen, title, 0)
}

/// The translate prompt's form, from the bundled library's menu.
fn open_translate(tui: &mut Tui) {
    tui.wait_for("/translate", SERVER_START);
    open_prompt(tui, "translate", "/builtin:translate");
    tui.wait_for("Into * (to)", STEP);
}

/// Writes the history file as if `slash_name` had been used with `values` (each argument's
/// remembered values), most recent first in `recent`.
fn write_history(sandbox: &Sandbox, recent: &[&str], values: serde_json::Value) {
    let dir = sandbox.dir.path().join("xdg-data/mcpick");
    std::fs::create_dir_all(&dir).unwrap();
    let history = serde_json::json!({ "recent": recent, "values": values, "last": {} });
    std::fs::write(dir.join("history.json"), history.to_string()).unwrap();
}

#[test]
fn tab_takes_the_suggestion_and_moves_on_and_shift_tab_never_takes() {
    let sandbox = builtin_library();
    let mut tui = Tui::start(&sandbox, &[]);
    open_translate(&mut tui);
    tui.send("Hallo");
    tui.send(TAB);
    tui.send("Eng");
    tui.wait_for("1 suggestion", STEP);
    tui.send(TAB);
    tui.send("formal");
    let screen = tui.wait_until("formal typed", STEP, |s| s.contains("formal"));
    assert_eq!(field_value(&screen, "Into"), "English", "\n{screen}");
    assert_eq!(
        field_value(&screen, "Tone"),
        "formal",
        "what is typed after Tab lands in the next field:\n{screen}"
    );
    // Shift-Tab goes back without taking; Ctrl-N then Tab takes the highlighted and moves.
    tui.send(SHIFT_TAB);
    tui.send(CTRL_U);
    tui.send("G");
    tui.wait_for("suggestions", STEP);
    tui.send(SHIFT_TAB);
    let screen = tui.wait_gone("suggestions", STEP);
    assert_eq!(
        field_value(&screen, "Into"),
        "G",
        "Shift-Tab took:\n{screen}"
    );
    tui.send(TAB);
    tui.send("e");
    tui.wait_for("suggestions", STEP);
    tui.send(CTRL_N);
    tui.wait_for("  ▸ ", STEP);
    tui.send(TAB);
    tui.send("x");
    let screen = tui.wait_until("x typed in Tone", STEP, |s| {
        s.lines().any(|l| l.starts_with("│formalx"))
    });
    assert_eq!(field_value(&screen, "Into"), "German", "\n{screen}");
    tui.send(CTRL_C);
    assert_eq!(tui.wait_exit(STEP), 130);
}

#[test]
fn a_remembered_value_ranks_by_how_well_it_matches() {
    let sandbox = builtin_library();
    write_history(
        &sandbox,
        &["builtin:translate"],
        serde_json::json!({ "builtin:translate": { "to": ["English"] } }),
    );
    let mut tui = Tui::start(&sandbox, &[]);
    open_translate(&mut tui);
    tui.send(TAB);
    tui.send("G");
    let screen = tui.wait_for("German", STEP);
    let row = |needle: &str| {
        screen
            .lines()
            .position(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("no {needle:?}:\n{screen}"))
    };
    assert!(
        row("German") < row("English  (used before)"),
        "German starts with G, English only holds it:\n{screen}"
    );
}

#[test]
fn tab_indented_text_keeps_its_indentation_in_the_field_the_review_and_the_editor() {
    let sandbox = builtin_library();
    let mut tui = Tui::start(&sandbox, &[]);
    open_translate(&mut tui);
    let (start, end) = BRACKETED_PASTE;
    tui.send(&format!("{start}\tif x {{\r\t\treturn 1\r\t}}{end}"));
    tui.wait_for("return 1", STEP);
    // Focus leaves the field (what is typed next lands in Into): drawn as while focused.
    tui.send(TAB);
    tui.send("English");
    let screen = tui.wait_until("English typed in Into", STEP, |s| {
        field_value(s, "Into") == "English"
    });
    assert_eq!(field_row(&screen, "Text", 0), "    if x {", "\n{screen}");
    assert_eq!(
        field_row(&screen, "Text", 1),
        "        return 1",
        "\n{screen}"
    );
    tui.send(CTRL_S);
    // Rendered, the tab-indented lines are a Markdown code block, its inner tab kept.
    let review = tui.wait_for("export: markdown", STEP);
    assert!(
        review
            .lines()
            .any(|l| l.trim_end().ends_with("│     return 1")),
        "the rendered review keeps the indentation:\n{review}"
    );
    tui.send("m");
    let raw = tui.wait_for("raw (m renders)", STEP);
    assert!(
        raw.lines().any(|l| l.trim_end() == "          return 1"),
        "the raw review keeps the indentation (two tabs, in the messages' margin):\n{raw}"
    );
    tui.send("e");
    let editing = tui.wait_for("editing: type freely", STEP);
    assert!(
        editing.lines().any(|l| l.contains("        return 1")),
        "the editor keeps the indentation:\n{editing}"
    );
    tui.send_esc();
    tui.send(CTRL_C);
    tui.send(CTRL_C);
    tui.wait_exit(STEP);
}

#[test]
fn ctrl_w_deletes_back_to_whitespace_in_the_search_a_field_and_the_editor() {
    let sandbox = builtin_library();
    let mut tui = Tui::start(&sandbox, &[]);
    tui.wait_for("/translate", SERVER_START);
    tui.send("x = print(add(");
    tui.wait_for("❯ x = print(add(", STEP);
    tui.send(CTRL_W);
    tui.wait_until("the search line is `x = `", STEP, |s| {
        s.lines()
            .next()
            .is_some_and(|l| l.starts_with("❯ x = ") && !l.contains("print"))
    });
    tui.send(CTRL_U);
    open_translate(&mut tui);
    tui.send("x = print(add(");
    tui.wait_for("│x = print(add(", STEP);
    tui.send(CTRL_W);
    let screen = tui.wait_gone("print(", STEP);
    assert_eq!(field_value(&screen, "Text"), "x =", "\n{screen}");
    // Alt-Backspace stops at punctuation, as readline's backward-kill-word.
    tui.send("print(add(");
    tui.wait_for("│x = print(add(", STEP);
    tui.send("\x1b\x7f");
    let screen = tui.wait_gone("add(", STEP);
    assert_eq!(field_value(&screen, "Text"), "x = print(", "\n{screen}");
    tui.send(TAB);
    tui.send("English");
    tui.send(CTRL_S);
    tui.wait_for("export: markdown", STEP);
    tui.send("e");
    tui.wait_for("editing: type freely", STEP);
    tui.send(CTRL_E);
    tui.send(" x = print(add(");
    tui.wait_for("x = print( x = print(add(", STEP);
    tui.send(CTRL_W);
    tui.wait_for("x = print( x = ", STEP);
    let screen = tui.wait_gone("x = print(add(", STEP);
    assert!(!screen.contains("print(add("), "\n{screen}");
}

/// Three servers: `alpha` (a prompt of its own), the bundled library, and `zeta` (the
/// bundled library again) which starts a second late.
fn three_servers() -> Sandbox {
    let sandbox = Sandbox::new("");
    let own = sandbox.dir.path().join("own");
    std::fs::create_dir_all(&own).unwrap();
    std::fs::write(
        own.join("digest.mcpick.md"),
        "---\ntitle: Digest\ndescription: A digest of a text.\narguments:\n  - name: text\n    required: true\n---\nDigest this: {{text}}\n",
    )
    .unwrap();
    let late = format!(
        "[servers.zeta]\ncommand = \"sh\"\nargs = [\"-c\", {}]\n",
        toml_str(format!(
            "sleep 1; exec '{}' serve --builtin",
            env!("CARGO_BIN_EXE_mcpick")
        ))
    );
    let config = format!(
        "{}{}{late}",
        mcpick_serve("alpha", &[&own.to_string_lossy()]),
        mcpick_serve("builtin", &["--builtin"]),
    );
    std::fs::write(sandbox.config(), config).unwrap();
    sandbox
}

/// The menu row the selection bar is on.
fn selected_row(screen: &str) -> String {
    screen
        .lines()
        .find(|l| l.starts_with('▌'))
        .unwrap_or_else(|| panic!("no selection:\n{screen}"))
        .to_string()
}

#[test]
fn the_first_selection_is_the_last_prompt_used_with_several_servers() {
    let sandbox = three_servers();
    write_history(&sandbox, &["zeta:plan-refactor"], serde_json::json!({}));
    for start in ["without a catalog", "from the catalog"] {
        let mut tui = Tui::start(&sandbox, &[]);
        // alpha's one prompt and the library's nine, twice.
        let screen = tui.wait_for("19/19 prompts", SERVER_START);
        assert!(
            selected_row(&screen).contains("/zeta:plan-refactor"),
            "{start}: the selection is not on the last prompt used:\n{screen}"
        );
        tui.send(ENTER);
        let form = tui.wait_for("Plan a refactor", STEP);
        assert!(form.contains("/zeta:plan-refactor"), "{start}:\n{form}");
        tui.send(CTRL_C);
        tui.wait_exit(STEP);
    }
}

/// An SGR mouse press and release of the left button at 0-based `column`, `row`, as a
/// terminal sends it (1-based).
fn click_at(tui: &mut Tui, column: usize, row: usize) {
    tui.send(&sgr_click(column + 1, row + 1));
}

/// The 0-based row and column where `needle` is drawn on the screen (the first such row).
fn cell_of(screen: &str, needle: &str) -> (usize, usize) {
    screen
        .lines()
        .enumerate()
        .find_map(|(row, line)| {
            let at = line.find(needle)?;
            Some((row, line[..at].chars().count()))
        })
        .unwrap_or_else(|| panic!("{needle:?} not on screen:\n{screen}"))
}

#[test]
fn clicks_focus_fields_take_suggestions_press_hints_and_select_messages() {
    let sandbox = builtin_library();
    let mut tui = Tui::start(&sandbox, &[]);
    open_translate(&mut tui);
    tui.send("Hallo");
    // A click in Tone's box focuses it: typing lands there.
    let screen = tui.wait_for("│Hallo", STEP);
    let (row, _) = cell_of(&screen, "Tone (tone)");
    click_at(&mut tui, 5, row + 2);
    tui.send("casual");
    let screen = tui.wait_until("casual in Tone", STEP, |s| {
        s.lines().any(|l| l.starts_with("│casual"))
    });
    assert_eq!(field_value(&screen, "Tone"), "casual", "\n{screen}");
    assert_eq!(field_value(&screen, "Text"), "Hallo", "\n{screen}");
    // A click on Into's title focuses it; a click on a suggestion takes that one.
    let (row, _) = cell_of(&screen, "Into * (to)");
    click_at(&mut tui, 2, row);
    tui.send("G");
    let screen = tui.wait_for("3 suggestions", STEP);
    let (row, column) = cell_of(&screen, "English");
    click_at(&mut tui, column, row);
    let screen = tui.wait_gone("3 suggestions", STEP);
    assert_eq!(field_value(&screen, "Into"), "English", "\n{screen}");
    // A click on the hint `Ctrl-S submit` submits, as the key does.
    let (row, column) = cell_of(&screen, "Ctrl-S submit");
    click_at(&mut tui, column + 2, row);
    let review = tui.wait_for("export: markdown", STEP);
    assert!(
        review.contains("into English in a casual tone"),
        "\n{review}"
    );
    // `a add` adds a second message; a click on the first selects it again.
    let (row, column) = cell_of(&review, "a add");
    click_at(&mut tui, column, row);
    tui.wait_for("Editing #2", STEP);
    tui.send_esc();
    let screen = tui.wait_for("▌#2 assistant", STEP);
    let (row, column) = cell_of(&screen, "Reply with the translation only.");
    click_at(&mut tui, column, row);
    let screen = tui.wait_for("▌#1 user", STEP);
    assert!(screen.contains(" #2 assistant"), "\n{screen}");
    // The wheel still scrolls (here: moves the selection on).
    tui.send("\x1b[<65;10;5M");
    tui.wait_for("▌#2 assistant", STEP);
    tui.send(CTRL_C);
    tui.send(CTRL_C);
    tui.wait_exit(STEP);
}

#[test]
fn values_left_unsent_by_esc_or_a_kill_come_back_when_the_prompt_is_reopened() {
    let sandbox = builtin_library();
    let mut tui = Tui::start(&sandbox, &[]);
    open_translate(&mut tui);
    tui.send("Guten Morgen");
    tui.send(TAB);
    tui.send("Fre");
    tui.wait_for("│Fre", STEP);
    tui.send_esc(); // hides the suggestions
    tui.send_esc(); // back to the menu
    tui.wait_for("type to search", STEP);
    open_prompt(&mut tui, "translate", "/builtin:translate");
    let screen = tui.wait_for("Ctrl-U clears a field", STEP);
    assert_eq!(field_value(&screen, "Text"), "Guten Morgen", "\n{screen}");
    assert_eq!(field_value(&screen, "Into"), "Fre", "\n{screen}");
    // Typed on, then the process is killed: the next run has that too.
    tui.send(" und Tschüss");
    tui.wait_for("│Guten Morgen und Tschüss", STEP);
    let unsent = sandbox.dir.path().join("xdg-data/mcpick/form-drafts.json");
    let deadline = Instant::now() + STEP;
    while !std::fs::read_to_string(&unsent).is_ok_and(|t| t.contains("und Tschüss")) {
        assert!(Instant::now() < deadline, "never kept: {unsent:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::process::Command::new("kill")
        .args(["-9", &tui.pid().to_string()])
        .status()
        .unwrap();
    tui.wait_exit(STEP);
    let mut again = Tui::start(&sandbox, &[]);
    open_translate(&mut again);
    let screen = again.wait_for("Ctrl-U clears a field", STEP);
    assert_eq!(
        field_value(&screen, "Text"),
        "Guten Morgen und Tschüss",
        "\n{screen}"
    );
    // Sent, they are no longer unsent: the next form shows the last run's values quietly.
    again.send(TAB);
    again.send(CTRL_U);
    again.send("French");
    again.send(CTRL_S);
    again.wait_for("export: markdown", STEP);
    again.send_esc();
    again.send_esc();
    again.wait_for("1/9 prompts", STEP);
    again.send(ENTER);
    let screen = again.wait_for("Into * (to)", STEP);
    assert!(!screen.contains("Ctrl-U clears a field"), "\n{screen}");
}

#[test]
fn ctrl_r_with_a_server_down_shows_progress_then_the_outcome_and_keeps_the_bar_whole() {
    // `broken` takes seconds to fail, so the refresh is seen under way.
    let config = format!(
        "{}[servers.broken]\ncommand = \"sh\"\nargs = [\"-c\", \"sleep 3; echo 'cannot open the database' >&2; exit 3\"]\n",
        mcpick_serve("builtin", &["--builtin"])
    );
    let sandbox = Sandbox::new(&config);
    let mut tui = Tui::start(&sandbox, &[]);
    tui.wait_for("✗ broken failed", SERVER_START);
    tui.send("\x12"); // Ctrl-R
    tui.wait_for("Refreshing 2 servers…", STEP);
    // The library lists again at once; broken is still on its way down.
    tui.wait_for("Refreshing 2 servers… (1 answered)", STEP);
    let screen = tui.wait_for("Refreshed 1 of 2 servers; broken failed again", STEP);
    let bar = screen
        .lines()
        .find(|l| l.contains("✗ broken"))
        .unwrap_or_else(|| panic!("no status bar:\n{screen}"));
    assert!(
        bar.contains("● builtin 9") && bar.contains("✗ broken failed (F5 restarts)"),
        "the bar keeps every server's name at 120 columns: {bar}"
    );
    assert!(
        !screen.contains("handshake"),
        "the long failure is in the logs, not repeated:\n{screen}"
    );
    // F5 alike: progress, then how it ended.
    tui.send("\x1b[15~");
    tui.wait_for("Restarting broken…", STEP);
    tui.wait_for("broken failed again (Ctrl-L shows why).", STEP);
}

/// Invisible characters that carry nothing are drawn as marks in the form and the review,
/// and the export warning counts them and says whose they are; an emoji's own joiner is
/// drawn as the emoji's parts, not marked.
#[test]
fn hidden_characters_are_shown_as_marks_and_counted_before_an_export() {
    let sandbox = builtin_library();
    let mut tui = Tui::start(&sandbox, &[]);
    open_translate(&mut tui);
    let (start, end) = BRACKETED_PASTE;
    tui.send(&format!(
        "{start}Sum\u{200b}mar\u{2060}ize 👩\u{200d}💻{end}"
    ));
    tui.send(TAB);
    tui.send("English");
    let screen = tui.wait_until("English typed in Into", STEP, |s| {
        field_value(s, "Into") == "English"
    });
    assert_eq!(
        field_row(&screen, "Text", 0),
        "Sum<U+200B>mar<U+2060>ize 👩💻",
        "\n{screen}"
    );
    tui.send(CTRL_S);
    let review = tui.wait_for("export: markdown", STEP);
    assert!(
        review.contains("Sum<U+200B>mar<U+2060>ize"),
        "the review shows the marks:\n{review}"
    );
    tui.send("y");
    let warned = tui.wait_for("hidden characters", STEP);
    assert!(
        warned.contains("x strips the 2 hidden characters first"),
        "\n{warned}"
    );
    tui.send(CTRL_C);
    tui.send(CTRL_C);
    tui.wait_exit(STEP);
}
