//! Tests of the prompt library: loading each format, arguments, rendering, resources.

use std::collections::BTreeMap;
use std::fs;

use super::*;
use crate::model::Role;

fn write(dir: &Path, relative: &str, text: &str) {
    let path = dir.join(relative);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn values(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn texts(messages: &PromptMessages) -> Vec<(Role, String)> {
    messages
        .messages
        .iter()
        .map(|m| match &m.content {
            Content::Known(KnownContent::Text { text, .. }) => (m.role.clone(), text.clone()),
            Content::Known(KnownContent::Resource {
                resource: EmbeddedResource::Text { uri, text, .. },
                ..
            }) => (m.role.clone(), format!("[{uri}] {text}")),
            other => panic!("{other:?}"),
        })
        .collect()
}

const NATIVE: &str = "---\nname: greet\ntitle: Greeting\ndescription: Says hi\narguments:\n  - name: who\n    required: true\n  - name: mood\n    values: [happy, grumpy, Hungry, sleepy]\n---\nHello {{ who }}, you seem {{mood}}. \\{{literal}}\n\n--- assistant ---\nHi!\n\n--- user: notes/extra.txt ---\n--- user ---\nBye {{who}}.\n";

#[test]
fn every_format_is_found_in_a_folder() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        ".github/prompts/explain.prompt.md",
        "Explain ${input:topic:What to explain}",
    );
    write(
        dir.path(),
        ".claude/commands/frontend/review.md",
        "---\nargument-hint: [pr]\n---\nReview $1",
    );
    write(dir.path(), "lib/greet.mcpick.md", NATIVE);
    write(dir.path(), "lib/notes/extra.txt", "extra ✓");
    write(dir.path(), "README.md", "# not a prompt");
    write(
        dir.path(),
        "node_modules/x/commands/skip.md",
        "never served",
    );
    let library = load_paths(&[dir.path().to_path_buf()]);
    assert!(library.diagnostics.is_empty(), "{:?}", library.diagnostics);
    let names: Vec<&str> = library.prompts().iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["frontend:review", "explain", "greet"]);
}

#[test]
fn native_prompts_fill_every_message() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "greet.mcpick.md", NATIVE);
    write(dir.path(), "notes/extra.txt", "extra ✓\n");
    let library = load_paths(&[dir.path().to_path_buf()]);
    assert!(library.diagnostics.is_empty(), "{:?}", library.diagnostics);
    let filled = library
        .render("greet", &values(&[("who", "{{mood}} $1 ${input:x}\nÜ")]))
        .unwrap();
    let texts = texts(&filled);
    assert_eq!(texts.len(), 4);
    assert_eq!(
        texts[0],
        (
            Role::User,
            "Hello {{mood}} $1 ${input:x}\nÜ, you seem . {{literal}}".to_string()
        )
    );
    assert_eq!(texts[1], (Role::Assistant, "Hi!".to_string()));
    assert!(
        texts[2].1.starts_with("[file://") && texts[2].1.ends_with("notes/extra.txt] extra ✓\n"),
        "{:?}",
        texts[2]
    );
    assert_eq!(
        texts[3],
        (Role::User, "Bye {{mood}} $1 ${input:x}\nÜ.".to_string())
    );
    assert_eq!(filled.description.as_deref(), Some("Says hi"));
}

#[test]
fn missing_required_arguments_are_named() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "greet.mcpick.md", NATIVE);
    write(dir.path(), "notes/extra.txt", "x");
    let library = load_paths(&[dir.path().to_path_buf()]);
    let err = library.render("greet", &BTreeMap::new()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "missing required argument for prompt greet: who"
    );
    assert_eq!(
        library
            .render("nope", &BTreeMap::new())
            .unwrap_err()
            .to_string(),
        "unknown prompt: nope"
    );
    // Empty counts as given.
    assert!(library.render("greet", &values(&[("who", "")])).is_ok());
}

#[test]
fn broken_files_are_skipped_with_file_line_and_problem() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "a.mcpick.md",
        "---\narguments:\n  - name: x\n---\nuses {{y}}\n",
    );
    write(dir.path(), "b.mcpick.md", "---\ntitel: typo\n---\nhi\n");
    write(
        dir.path(),
        "c.mcpick.md",
        "---\nname: c\n---\n--- user: ../../../etc/hostname ---\n",
    );
    write(
        dir.path(),
        "d.mcpick.md",
        "---\nname: fine\n---\nstill served\n",
    );
    let library = load_paths(&[dir.path().to_path_buf()]);
    assert_eq!(library.prompts().len(), 1);
    assert_eq!(library.prompts()[0].name, "fine");
    let all = library.problem_lines().join("\n");
    assert!(
        all.contains("a.mcpick.md:5: `{{y}}` is not a declared argument"),
        "{all}"
    );
    assert!(
        all.contains("b.mcpick.md:2: front matter: unknown field `titel`"),
        "{all}"
    );
    assert!(
        all.contains(
            "c.mcpick.md:4: cannot embed `../../../etc/hostname`: it is outside the served folders"
        ),
        "{all}"
    );
}

#[test]
fn embedded_files_must_stay_inside_the_served_folders() {
    let outer = tempfile::tempdir().unwrap();
    write(outer.path(), "secret.txt", "secret");
    write(
        outer.path(),
        "served/p.mcpick.md",
        "--- user: ../secret.txt ---\n",
    );
    let library = load_paths(&[outer.path().join("served")]);
    assert!(library.prompts().is_empty());
    assert!(
        library.diagnostics[0]
            .to_string()
            .contains("outside the served folders"),
        "{:?}",
        library.diagnostics
    );
}

#[test]
fn colliding_names_get_suffixes_and_a_report() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a/x.prompt.md", "one");
    write(dir.path(), "b/x.prompt.md", "two");
    write(dir.path(), "c/x.mcpick.md", "three");
    let library = load_paths(&[dir.path().to_path_buf()]);
    let names: Vec<&str> = library.prompts().iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["x", "x-2", "x-3"]);
    assert_eq!(library.diagnostics.len(), 2, "{:?}", library.diagnostics);
    assert!(
        library.diagnostics[0]
            .to_string()
            .contains("already used by"),
        "{:?}",
        library.diagnostics
    );
}

#[test]
fn a_plain_markdown_file_named_explicitly_is_a_command() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "fix.md", "Fix $ARGUMENTS");
    let library = load_paths(&[dir.path().join("fix.md")]);
    assert_eq!(library.prompts()[0].name, "fix");
    let missing = load_paths(&[dir.path().join("nope")]);
    assert!(
        missing.diagnostics[0].to_string().contains("not served"),
        "{:?}",
        missing.diagnostics
    );
}

#[test]
fn completion_ranks_prefixes_then_fuzzy_matches() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "greet.mcpick.md", NATIVE);
    write(dir.path(), "notes/extra.txt", "x");
    let library = load_paths(&[dir.path().to_path_buf()]);
    let c = library.complete("greet", "mood", "h").unwrap();
    assert_eq!(c.values, ["happy", "Hungry"]);
    let c = library.complete("greet", "mood", "gy").unwrap();
    assert_eq!(c.values, ["grumpy", "Hungry"]);
    let c = library.complete("greet", "mood", "").unwrap();
    assert_eq!(
        (c.values.len(), c.total, c.has_more),
        (4, Some(4), Some(false))
    );
    assert_eq!(
        library.complete("greet", "who", "a").unwrap().values.len(),
        0
    );
    assert!(matches!(
        library.complete("greet", "nope", ""),
        Err(ArgumentError::UnknownArgument { .. })
    ));
}

#[test]
fn completion_caps_at_100_with_the_true_total() {
    let many: Vec<String> = (0..150).map(|i| format!("v{i:03}")).collect();
    let text = format!(
        "---\narguments:\n  - name: a\n    values: [{}]\n---\n{{{{a}}}}\n",
        many.join(", ")
    );
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "many.mcpick.md", &text);
    let library = load_paths(&[dir.path().to_path_buf()]);
    let c = library.complete("many", "a", "v").unwrap();
    assert_eq!(
        (c.values.len(), c.total, c.has_more),
        (100, Some(150), Some(true))
    );
}

#[test]
fn pages_follow_cursors_and_reject_strangers() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..5 {
        write(dir.path(), &format!("p{i}.prompt.md"), "x");
    }
    let library = load_paths(&[dir.path().to_path_buf()]);
    let (first, next) = library.page(None, 2).unwrap();
    assert_eq!((first.len(), next.as_deref()), (2, Some("2")));
    let (second, next) = library.page(next.as_deref(), 2).unwrap();
    assert_eq!(
        (second[0].name.as_str(), next.as_deref()),
        ("p2", Some("4"))
    );
    let (last, next) = library.page(next.as_deref(), 2).unwrap();
    assert_eq!((last.len(), next), (1, None));
    assert!(matches!(
        library.page(Some("x"), 2),
        Err(ArgumentError::BadCursor(_))
    ));
    assert!(matches!(
        library.page(Some("99"), 2),
        Err(ArgumentError::BadCursor(_))
    ));
    // One cursor a page: other spellings of an offset, and offsets inside a page, are not
    // cursors this server gave (each would be a page cache entry of its own).
    for stranger in ["00", "02", "+2", " 2", "2 ", "1", "3", "2.0"] {
        assert!(
            matches!(
                library.page(Some(stranger), 2),
                Err(ArgumentError::BadCursor(_))
            ),
            "{stranger:?}"
        );
    }
}

#[test]
fn declared_names_win_over_generated_suffixes() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a/x.prompt.md", "one");
    write(dir.path(), "b/x.prompt.md", "two");
    write(dir.path(), "c/y.mcpick.md", "---\nname: x-2\n---\nthree");
    let library = load_paths(&[dir.path().to_path_buf()]);
    let names: Vec<&str> = library.prompts().iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["x", "x-3", "x-2"]);
}

#[test]
fn defaults_fill_missing_and_empty_values() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "d.mcpick.md",
        "---\narguments:\n  - name: tone\n    default: neutral\n    description: How\n---\nBe {{tone}}.",
    );
    let library = load_paths(&[dir.path().to_path_buf()]);
    assert_eq!(
        library.prompts()[0].arguments[0].description.as_deref(),
        Some("How (default: neutral)")
    );
    for given in [None, Some(""), Some("warm")] {
        let values = match given {
            Some(v) => values(&[("tone", v)]),
            None => BTreeMap::new(),
        };
        let text = texts(&library.render("d", &values).unwrap())[0].1.clone();
        let expected = given.filter(|v| !v.is_empty()).unwrap_or("neutral");
        assert_eq!(text, format!("Be {expected}."));
    }
}

#[test]
fn links_are_followed_once_and_fifos_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let shared = tempfile::tempdir().unwrap();
    write(shared.path(), "shared.prompt.md", "from a linked folder");
    write(dir.path(), "real.prompt.md", "real");
    // A link into another served folder is followed (a link leading out is not: see below).
    std::os::unix::fs::symlink(shared.path(), dir.path().join("linked")).unwrap();
    std::os::unix::fs::symlink(dir.path(), dir.path().join("loop")).unwrap();
    std::os::unix::fs::symlink(
        dir.path().join("nowhere.prompt.md"),
        dir.path().join("dangling.prompt.md"),
    )
    .unwrap();
    let status = std::process::Command::new("mkfifo")
        .arg(dir.path().join("pipe.txt"))
        .status()
        .unwrap();
    assert!(status.success());
    write(dir.path(), "fifo.mcpick.md", "--- user: pipe.txt ---\n");
    let library = load_paths(&[
        dir.path().to_path_buf(),
        shared.path().join("shared.prompt.md"),
    ]);
    let names: Vec<&str> = library.prompts().iter().map(|p| p.name.as_str()).collect();
    assert!(
        names.contains(&"real") && names.contains(&"shared"),
        "{:?}",
        library.diagnostics
    );
    let all = library.problem_lines().join("\n");
    assert!(all.contains("dangling.prompt.md: a broken link"), "{all}");
    assert!(
        all.contains("cannot embed `pipe.txt`: it is not a regular file"),
        "{all}"
    );
}

#[test]
fn big_and_non_utf8_files_are_refused_with_advice() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "big.prompt.md", &"x".repeat(1024 * 1024 + 1));
    fs::write(dir.path().join("latin1.prompt.md"), b"caf\xe9").unwrap();
    let library = load_paths(&[dir.path().to_path_buf()]);
    assert!(library.prompts().is_empty());
    let all = library.problem_lines().join("\n");
    assert!(
        all.contains(
            "big.prompt.md: cannot read it: it is 1048577 bytes; files may be at most 1 MiB"
        ),
        "{all}"
    );
    assert!(
        all.contains("latin1.prompt.md: cannot read it: it is not UTF-8 text (save it as UTF-8)"),
        "{all}"
    );
}

#[test]
fn embedded_file_uris_are_percent_encoded() {
    assert_eq!(
        file_uri(Path::new("/a b/nötes #1.txt")),
        "file:///a%20b/n%C3%B6tes%20%231.txt"
    );
}

#[test]
fn problems_point_at_their_own_line() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "dup.mcpick.md",
        "---\ntitle: t\narguments:\n  - name: a\n    required: true\n  - name: a\n---\n{{a}}\n",
    );
    write(
        dir.path(),
        "open.mcpick.md",
        "---\nname: x\narguments:\n  - name: a\n{{a}}\n",
    );
    write(
        dir.path(),
        "noname.prompt.md",
        "line one\nuse ${input:} here\n",
    );
    let library = load_paths(&[dir.path().to_path_buf()]);
    let all = library.problem_lines().join("\n");
    assert!(
        all.contains("dup.mcpick.md:6: argument `a` is declared twice"),
        "{all}"
    );
    assert!(
        all.contains("open.mcpick.md:1: the front matter is never closed"),
        "{all}"
    );
    assert!(
        all.contains("noname.prompt.md:2: `${input:}` has no variable name"),
        "{all}"
    );
}

#[test]
fn misspelled_separators_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "s.mcpick.md", "hi\n--- System ---\nbe nice\n");
    let library = load_paths(&[dir.path().to_path_buf()]);
    assert!(
        library.diagnostics[0]
            .to_string()
            .contains("s.mcpick.md:2: `System` is not a role"),
        "{:?}",
        library.diagnostics
    );
}

#[test]
fn embedded_text_files_are_resources_once_each_with_the_prompts_that_embed_them() {
    let dir = tempfile::tempdir().unwrap();
    let embed =
        |name: &str, file: &str| format!("---\nname: {name}\n---\nLook:\n\n--- user: {file} ---\n");
    write(dir.path(), "a.mcpick.md", &embed("a", "shared notes.md"));
    write(dir.path(), "b.mcpick.md", &embed("b", "shared notes.md"));
    write(dir.path(), "c.mcpick.md", &embed("c", "other.txt"));
    write(
        dir.path(),
        "plain.mcpick.md",
        "---\nname: plain\n---\nNo files.\n",
    );
    write(dir.path(), "shared notes.md", "# Notes");
    write(dir.path(), "other.txt", "other");
    let library = load_paths(&[dir.path().to_path_buf()]);
    assert!(library.diagnostics.is_empty(), "{:?}", library.diagnostics);
    let resources = library.resources();
    let mut names: Vec<(String, Vec<String>)> = resources
        .iter()
        .map(|r| (r.name.clone(), r.embedded_by.clone()))
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            ("other.txt".to_string(), vec!["c".to_string()]),
            ("shared notes.md".to_string(), vec!["a".into(), "b".into()]),
        ]
    );
    // The URI and text are the ones prompts/get embeds.
    let shared = resources
        .iter()
        .find(|r| r.name == "shared notes.md")
        .unwrap();
    assert!(shared.uri.ends_with("/shared%20notes.md"), "{}", shared.uri);
    let filled = library.render("a", &values(&[])).unwrap();
    assert_eq!(
        texts(&filled)[1].1,
        format!("[{}] {}", shared.uri, shared.text)
    );
    assert_eq!(library.resource(&shared.uri).as_ref(), Some(shared));
    assert_eq!(library.resource("file:///etc/passwd"), None);
}

#[test]
fn odd_entries_named_as_prompts_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "real.prompt.md", "real");
    let status = std::process::Command::new("mkfifo")
        .arg(dir.path().join("pipe.prompt.md"))
        .status()
        .unwrap();
    assert!(status.success());
    std::os::unix::fs::symlink("/dev/null", dir.path().join("device.prompt.md")).unwrap();
    std::os::unix::fs::symlink("self.prompt.md", dir.path().join("self.prompt.md")).unwrap();
    std::os::unix::fs::symlink("ping", dir.path().join("pong")).unwrap();
    std::os::unix::fs::symlink("pong", dir.path().join("ping")).unwrap();
    std::os::unix::fs::symlink(dir.path(), dir.path().join("back")).unwrap();
    write(dir.path(), "folder.prompt.md/inner.prompt.md", "inner");
    let library = load_paths(&[dir.path().to_path_buf()]);
    let names: Vec<&str> = library.prompts().iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["inner", "real"], "{:?}", library.diagnostics);
    let all = library.problem_lines().join("\n");
    for expected in [
        "pipe.prompt.md: it is not a regular file (a FIFO, socket or device); not served",
        "device.prompt.md: it is not a regular file (a FIFO, socket or device); not served",
        "self.prompt.md: cannot read it: Too many levels of symbolic links",
        "ping: cannot read it: Too many levels of symbolic links",
        "pong: cannot read it: Too many levels of symbolic links",
        "folder.prompt.md: a folder, not a prompt file (searched like any folder)",
        "back: a link to a folder already searched",
    ] {
        assert!(all.contains(expected), "{expected:?} not in:\n{all}");
    }
    assert_eq!(library.diagnostics.len(), 7, "{all}");
}

#[test]
fn names_with_line_breaks_controls_or_invisibles_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "fine.prompt.md", "fine");
    write(dir.path(), "two\nlines.prompt.md", "split");
    write(dir.path(), "red\u{1b}[31m.prompt.md", "colour");
    write(dir.path(), "hidden\u{e0041}.prompt.md", "tag");
    write(
        dir.path(),
        "declared.mcpick.md",
        "---\nname: \"bad\\u0007bell\"\n---\n--- user ---\nhi\n",
    );
    let library = load_paths(&[dir.path().to_path_buf()]);
    let names: Vec<&str> = library.prompts().iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["fine"], "{:?}", library.diagnostics);
    let all = library.problem_lines().join("\n");
    for expected in [
        "two␊lines.prompt.md: the prompt name `two␊lines` holds U+000A",
        "the prompt name `red␛[31m` holds U+001B",
        "the prompt name `hidden<U+E0041>` holds U+E0041",
        "the prompt name `bad␇bell` holds U+0007",
    ] {
        assert!(all.contains(expected), "{expected:?} not in:\n{all}");
    }
    assert_eq!(library.diagnostics.len(), 4, "{all}");
    assert_eq!(all.lines().count(), 4, "each problem on one line:\n{all}");
    assert!(!all.contains('\u{1b}'), "{all}");
}

#[test]
fn links_leading_out_of_the_served_folders_are_not_served_and_not_said_where() {
    // `mcpick serve lib` on a checkout whose links point at the user's other files.
    let home = tempfile::tempdir().unwrap();
    write(home.path(), "outside/secret.txt", "the user's secret");
    write(
        home.path(),
        "outside/notes/private.prompt.md",
        "a private prompt",
    );
    write(home.path(), "lib/commands/fine.md", "a command");
    let lib = home.path().join("lib");
    std::os::unix::fs::symlink("../../outside/secret.txt", lib.join("commands/leak.md")).unwrap();
    std::os::unix::fs::symlink("/etc/hostname", lib.join("host.prompt.md")).unwrap();
    std::os::unix::fs::symlink("../outside/notes", lib.join("notes")).unwrap();
    std::os::unix::fs::symlink("commands/fine.md", lib.join("again.prompt.md")).unwrap();
    let library = load_paths(std::slice::from_ref(&lib));
    let mut names: Vec<&str> = library.prompts().iter().map(|p| p.name.as_str()).collect();
    names.sort();
    // A link that stays inside is served as before.
    assert_eq!(names, ["again", "fine"], "{:?}", library.diagnostics);
    let all = library.problem_lines().join("\n");
    for (entry, what) in [
        ("leak.md", "not served"),
        ("host.prompt.md", "not served"),
        ("notes", "not searched"),
    ] {
        assert!(
            all.contains(&format!(
                "{entry}: a link leading out of the served folders; {what}"
            )),
            "{entry}: {all}"
        );
    }
    assert!(
        !all.contains("outside") && !all.contains("hostname") && !all.contains("secret"),
        "a problem clients see says where a link leads: {all}"
    );
    assert!(
        library
            .resources()
            .iter()
            .all(|r| !r.uri.contains("secret"))
    );
}

/// A user who can write in the served folder swaps a prompt file for a link to a file
/// outside it, over and over, while the library loads: what is read is checked as opened,
/// so no load ever holds the outside file's text (it did in about one in four before).
#[test]
fn a_file_swapped_for_a_link_while_loading_is_never_read_through_it() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let dir = tempfile::tempdir().unwrap();
    let served = dir.path().join("served");
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(&served).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    let secret = outside.join("secret.prompt.md");
    std::fs::write(&secret, "SECRET-OUTSIDE-THE-FOLDER").unwrap();
    let swapped = served.join("p.prompt.md");
    std::fs::write(&swapped, "safe").unwrap();
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let swapper = {
        let (stop, swapped, secret) = (stop.clone(), swapped.clone(), secret.clone());
        std::thread::spawn(move || {
            let staged = swapped.with_extension("staged");
            while !stop.load(Ordering::Relaxed) {
                // Each swap is a rename, so the name always exists: a file, then a link.
                let _ = std::fs::remove_file(&staged);
                let _ = std::os::unix::fs::symlink(&secret, &staged);
                let _ = std::fs::rename(&staged, &swapped);
                let _ = std::fs::write(&staged, "safe");
                let _ = std::fs::rename(&staged, &swapped);
            }
        })
    };
    let mut leaks = 0;
    for _ in 0..1500 {
        let library = load_paths(std::slice::from_ref(&served));
        if format!("{library:?}").contains("SECRET-OUTSIDE") {
            leaks += 1;
        }
    }
    stop.store(true, Ordering::Relaxed);
    swapper.join().unwrap();
    assert_eq!(leaks, 0, "loads that read the file outside the folder");
}

/// Two names a user cannot tell apart are one prompt and a problem: the same accent
/// composed and decomposed, or a name holding a character drawn as nothing.
#[test]
fn names_that_look_alike_or_hide_characters_are_problems() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.mcpick.md", "---\nname: caf\u{e9}\n---\none");
    write(
        dir.path(),
        "b.mcpick.md",
        "---\nname: cafe\u{301}\n---\ntwo",
    );
    write(
        dir.path(),
        "c.mcpick.md",
        "---\nname: de\u{200b}ploy\n---\nthree",
    );
    write(
        dir.path(),
        "d.mcpick.md",
        "---\nname: go\u{fe0f}\n---\nfour",
    );
    let library = load_paths(&[dir.path().to_path_buf()]);
    let names: Vec<&str> = library.prompts().iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["caf\u{e9}"], "{:?}", library.diagnostics);
    let all = library.problem_lines().join("\n");
    assert!(all.contains("looks the same as"), "{all}");
    assert!(all.contains("U+200B"), "{all}");
    assert!(all.contains("U+FE0F"), "{all}");
}
