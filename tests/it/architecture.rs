//! The layers of docs/architecture.md, read from `src/`: every `crate::MODULE` a top-level
//! module's code names (its tests and comments left out) must be of its own layer or one
//! below, and two modules of one layer never import each other both ways. An exception
//! would be listed here, to be removed; a listed one that is gone fails too (strike it off).
//! And the integration tests stay one test binary: every file of `tests/it/` a module of it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

mod errors;

/// Each top-level module of `src/` and its layer, lowest first (as docs/architecture.md):
/// the tens are the layer, the units the order inside it (layer 2 has three floors).
const LAYERS: &[(&str, u8)] = &[
    ("text", 0),
    ("secrets", 0),
    ("sys", 0),
    ("audio", 0),
    ("config", 10),
    ("model", 10),
    // Layer 2, lowest floor first: what imports nothing of its layer; then `render` (reads
    // `export`'s decoding) and `library`; then `mcp`, which reads the catalog, the library
    // and values from files.
    ("cache", 20),
    ("search", 20),
    ("export", 20),
    ("value_io", 20),
    ("lock", 20),
    ("render", 21),
    ("library", 21),
    ("mcp", 22),
    ("app", 30),
    ("ui", 40),
    ("tui", 50),
    ("cli", 60),
    // The fuzz targets' properties reach into every layer, by design; only tests use them.
    ("fuzzing", 70),
];

/// Upward imports still there, to be moved down (none left: keep it so).
const KNOWN_UPWARD: &[(&str, &str)] = &[];

/// Module circles within one layer still there (none left: keep it so).
const KNOWN_CIRCLES: &[(&str, &str)] = &[];

/// The code of `text` without its test modules (`#[cfg(test)] mod … { … }`, found by
/// matching braces) and comment lines.
fn code_of(text: &str) -> String {
    let mut code = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("#[cfg(test)]\nmod ") {
        code.push_str(&rest[..at]);
        let module = &rest[at..];
        let Some(open) = module.find(['{', ';']) else {
            rest = "";
            break;
        };
        if module.as_bytes()[open] == b';' {
            rest = &module[open + 1..];
            continue;
        }
        let mut depth = 0usize;
        let mut end = module.len();
        for (i, c) in module[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + i + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &module[end..];
    }
    code.push_str(rest);
    code.lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files
}

/// `from` → the top-level modules its files name.
fn imports() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let files = rust_files(&src);
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let relative = file.strip_prefix(&src).unwrap();
        let name = relative.file_name().unwrap().to_string_lossy();
        if name == "tests.rs" || name.ends_with("_tests.rs") {
            continue;
        }
        let first = relative.components().next().unwrap().as_os_str();
        let from = first.to_string_lossy().trim_end_matches(".rs").to_string();
        if from == "main" || from == "lib" {
            continue;
        }
        let code = code_of(&std::fs::read_to_string(&file).unwrap());
        for (at, _) in code.match_indices("crate::") {
            let to: String = code[at + "crate::".len()..]
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_')
                .collect();
            if !to.is_empty() && to != from {
                edges.entry(from.clone()).or_default().insert(to);
            }
        }
    }
    edges
}

fn layer(module: &str) -> u8 {
    LAYERS
        .iter()
        .find(|(name, _)| *name == module)
        .unwrap_or_else(|| {
            panic!("src/{module} has no layer: add it to LAYERS here and to docs/architecture.md")
        })
        .1
}

#[test]
fn imports_point_down_the_layers() {
    let edges = imports();
    assert!(edges.len() >= 10, "read too little of src/: {edges:?}");
    let mut upward = BTreeSet::new();
    for (from, tos) in &edges {
        for to in tos {
            if layer(to) > layer(from) {
                upward.insert((from.as_str(), to.as_str()));
            }
        }
    }
    let known: BTreeSet<(&str, &str)> = KNOWN_UPWARD.iter().copied().collect();
    let new: Vec<_> = upward.difference(&known).collect();
    assert!(
        new.is_empty(),
        "imports against the layers of docs/architecture.md (a lower module naming a higher \
         one): {new:?}. Move the shared piece down into the lower layer instead."
    );
    let gone: Vec<_> = known.difference(&upward).collect();
    assert!(
        gone.is_empty(),
        "these upward imports are gone: strike them off KNOWN_UPWARD: {gone:?}"
    );
}

#[test]
fn modules_of_one_layer_do_not_import_each_other_both_ways() {
    let edges = imports();
    let names = |from: &str, to: &str| edges.get(from).is_some_and(|t| t.contains(to));
    let mut circles = BTreeSet::new();
    for (from, tos) in &edges {
        for to in tos {
            if from < to && names(to, from) && layer(from) == layer(to) {
                circles.insert((from.as_str(), to.as_str()));
            }
        }
    }
    let known: BTreeSet<(&str, &str)> = KNOWN_CIRCLES.iter().copied().collect();
    let new: Vec<_> = circles.difference(&known).collect();
    assert!(
        new.is_empty(),
        "modules that import each other: {new:?}. Move what both need into a third module \
         both import."
    );
    let gone: Vec<_> = known.difference(&circles).collect();
    assert!(
        gone.is_empty(),
        "these circles are gone: strike them off KNOWN_CIRCLES: {gone:?}"
    );
}

#[test]
fn the_reader_sees_an_upward_import_when_there_is_one() {
    // The check itself: a comment and a test module are not code; an import is.
    let code = code_of(
        "use crate::app::App;\n// crate::ui in a comment\n#[cfg(test)]\nmod tests {\n fn f() { crate::cli::x(); }\n}\nuse crate::tui;\n#[cfg(test)]\nmod more;\n",
    );
    assert!(code.contains("crate::app"));
    assert!(!code.contains("crate::ui"));
    assert!(!code.contains("crate::cli"));
    assert!(
        code.contains("crate::tui"),
        "code after a test module is read: {code}"
    );
}

// ---- Files: every file of src/ and the files its paths lead to ----

/// A token of Rust source, as much as the path reader needs.
#[derive(Debug, Clone, PartialEq)]
enum Token {
    Ident(String),
    PathSep,
    Punct(char),
}

/// `text` as tokens, without comments, strings and character literals.
fn tokens(text: &str) -> Vec<Token> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == 'r' && (next == Some('"') || next == Some('#')) && {
            let mut j = i + 1;
            while chars.get(j) == Some(&'#') {
                j += 1;
            }
            chars.get(j) == Some(&'"')
        } {
            // A raw string: r#"…"#, as many hashes to close as to open.
            let mut hashes = 0;
            i += 1;
            while chars[i] == '#' {
                hashes += 1;
                i += 1;
            }
            i += 1;
            loop {
                if i >= chars.len() {
                    break;
                }
                if chars[i] == '"' && (0..hashes).all(|k| chars.get(i + 1 + k) == Some(&'#')) {
                    i += 1 + hashes;
                    break;
                }
                i += 1;
            }
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
        } else if c == '\'' {
            // A character literal ('a', '\n', '\u{1F600}') or a lifetime ('a).
            if next == Some('\\') {
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if chars.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
                while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
            }
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            // b"…" and br"…" are strings: let the next round skip them.
            if (word == "b" || word == "br") && matches!(chars.get(i), Some('"') | Some('#')) {
                if word == "br" {
                    i -= 1;
                }
                continue;
            }
            out.push(Token::Ident(word.trim_start_matches("r#").to_string()));
        } else if c == ':' && next == Some(':') {
            out.push(Token::PathSep);
            i += 2;
        } else if c.is_whitespace() || c.is_ascii_digit() {
            i += 1;
        } else {
            out.push(Token::Punct(c));
            i += 1;
        }
    }
    out
}

/// The tokens of `tokens` without the items under `#[cfg(test)]`, and the names of the
/// child modules declared there (test files, left out of the house).
fn without_test_items(tokens: Vec<Token>) -> (Vec<Token>, BTreeSet<String>) {
    let ident = |t: Option<&Token>, name: &str| matches!(t, Some(Token::Ident(i)) if i == name);
    let punct = |t: Option<&Token>, c: char| t == Some(&Token::Punct(c));
    let mut kept = Vec::new();
    let mut test_modules = BTreeSet::new();
    let mut i = 0;
    while i < tokens.len() {
        let at = |k: usize| tokens.get(i + k);
        let is_cfg_test = punct(at(0), '#')
            && punct(at(1), '[')
            && ident(at(2), "cfg")
            && punct(at(3), '(')
            && ident(at(4), "test")
            && punct(at(5), ')')
            && punct(at(6), ']');
        if !is_cfg_test {
            kept.push(tokens[i].clone());
            i += 1;
            continue;
        }
        i += 7;
        let mut j = i;
        while punct(tokens.get(j), '#') {
            // Further attributes on the same item.
            j += 1;
            let mut depth = 0;
            while j < tokens.len() {
                match tokens[j] {
                    Token::Punct('[') => depth += 1,
                    Token::Punct(']') => {
                        depth -= 1;
                        if depth == 0 {
                            j += 1;
                            break;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
        }
        if ident(tokens.get(j), "mod")
            && let Some(Token::Ident(name)) = tokens.get(j + 1)
        {
            test_modules.insert(name.clone());
        }
        let mut depth = 0;
        while j < tokens.len() {
            match tokens[j] {
                Token::Punct('{') => depth += 1,
                Token::Punct('}') => {
                    depth -= 1;
                    if depth == 0 {
                        j += 1;
                        break;
                    }
                }
                Token::Punct(';') if depth == 0 => {
                    j += 1;
                    break;
                }
                _ => {}
            }
            j += 1;
        }
        i = j;
    }
    (kept, test_modules)
}

/// One path of a `use` tree, whole, and the name it binds (`*` for a glob).
struct UsePath {
    path: Vec<String>,
    binds: String,
}

/// The paths a `use` tree names, each whole (`a::{b, c::d as e}` → `a::b`, `a::c::d`);
/// `self` names the module before it.
fn use_paths(tokens: &[Token], at: &mut usize, prefix: &[String], out: &mut Vec<UsePath>) {
    let mut path = prefix.to_vec();
    while let Some(token) = tokens.get(*at) {
        match token {
            Token::Ident(word) => {
                if word != "self" || path.is_empty() {
                    path.push(word.clone());
                }
                *at += 1;
                let mut binds = path.last().cloned().unwrap_or_default();
                if tokens.get(*at) == Some(&Token::Ident("as".into())) {
                    if let Some(Token::Ident(alias)) = tokens.get(*at + 1) {
                        binds = alias.clone();
                    }
                    *at += 2;
                }
                if tokens.get(*at) == Some(&Token::PathSep) {
                    *at += 1;
                    continue;
                }
                out.push(UsePath { path, binds });
                return;
            }
            Token::PathSep => *at += 1,
            Token::Punct('*') => {
                *at += 1;
                out.push(UsePath {
                    path,
                    binds: "*".into(),
                });
                return;
            }
            Token::Punct('{') => {
                *at += 1;
                while tokens.get(*at).is_some_and(|t| *t != Token::Punct('}')) {
                    use_paths(tokens, at, &path, out);
                    if tokens.get(*at) == Some(&Token::Punct(',')) {
                        *at += 1;
                    } else if tokens.get(*at) != Some(&Token::Punct('}')) {
                        return;
                    }
                }
                *at += 1;
                return;
            }
            _ => return,
        }
    }
}

/// What one file holds for the reader: the names it defines, its `use`s (re-exports apart)
/// and the other paths its code names.
#[derive(Default)]
struct FileCode {
    defines: BTreeSet<String>,
    reexports: Vec<UsePath>,
    imports: Vec<UsePath>,
    paths: Vec<Vec<String>>,
    /// Each name its code uses outside a path's later segments and `.field`s.
    names: BTreeSet<String>,
}

fn read_file_code(tokens: &[Token]) -> FileCode {
    let mut file = FileCode::default();
    let mut depth = 0usize;
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            Token::Punct('{') => depth += 1,
            Token::Punct('}') => depth = depth.saturating_sub(1),
            _ => {}
        }
        let Token::Ident(word) = &tokens[i] else {
            i += 1;
            continue;
        };
        const ITEMS: &[&str] = &[
            "fn", "struct", "enum", "trait", "type", "const", "static", "union", "mod",
        ];
        if depth == 0
            && ITEMS.contains(&word.as_str())
            && let Some(Token::Ident(name)) = tokens.get(i + 1)
        {
            file.defines.insert(name.clone());
        }
        if word == "macro_rules"
            && let Some(Token::Ident(name)) = tokens.get(i + 2)
        {
            file.defines.insert(name.clone());
        }
        if word == "use" {
            // `pub use` and `pub(…) use` re-export: the reader follows them, they tie nothing.
            let public = match tokens[..i].last() {
                Some(Token::Ident(word)) => word == "pub",
                // pub(crate), pub(super), pub(in path)
                Some(Token::Punct(')')) => tokens[..i]
                    .iter()
                    .rposition(|t| *t == Token::Punct('('))
                    .is_some_and(|open| open > 0 && tokens[open - 1] == Token::Ident("pub".into())),
                _ => false,
            };
            i += 1;
            let mut found = Vec::new();
            use_paths(tokens, &mut i, &[], &mut found);
            if public {
                file.reexports.extend(found);
            } else {
                file.imports.extend(found);
            }
            continue;
        }
        let after_sep_or_dot = i > 0 && matches!(tokens[i - 1], Token::PathSep | Token::Punct('.'));
        // `pub(in crate::x)` says where an item is seen, not what it uses.
        let in_visibility = i > 1
            && tokens[i - 1] == Token::Ident("in".into())
            && tokens[i - 2] == Token::Punct('(');
        if in_visibility {
            while matches!(tokens.get(i + 1), Some(Token::PathSep)) {
                i += 2;
            }
        } else if !after_sep_or_dot {
            // A lower-case name counts where it is called or a path goes through it (else it
            // is a local or a field of the same name); a capitalised one wherever it is not
            // a field's name.
            let next = tokens.get(i + 1);
            let used = if word.starts_with(|c: char| c.is_ascii_uppercase()) {
                next != Some(&Token::Punct(':'))
            } else {
                matches!(
                    next,
                    Some(Token::Punct('(') | Token::Punct('!') | Token::PathSep)
                )
            };
            if used {
                file.names.insert(word.clone());
            }
            let mut path = vec![word.clone()];
            let mut j = i + 1;
            while tokens.get(j) == Some(&Token::PathSep) {
                match tokens.get(j + 1) {
                    Some(Token::Ident(next)) => path.push(next.clone()),
                    _ => break,
                }
                j += 2;
            }
            if path.len() > 1 {
                file.paths.push(path);
            }
        }
        i += 1;
    }
    file
}

/// The files of `src/` (tests and what only tests build left out) and for each the files
/// its paths lead to. A re-export is followed to where the name is defined and ties nothing
/// itself: a module's `pub use` is its front door, not an import.
/// A module's path from the crate root (`["mcp", "oauth"]`).
type Module = Vec<String>;

/// The files of `src/`, walking down from lib.rs by the files each module declares (tests
/// and what only tests build left out), each with what its code holds.
fn house(
    src: &Path,
) -> (
    BTreeMap<Module, std::path::PathBuf>,
    BTreeMap<Module, FileCode>,
) {
    let mut modules: BTreeMap<Module, std::path::PathBuf> = BTreeMap::new();
    let mut code: BTreeMap<Module, FileCode> = BTreeMap::new();
    let mut todo = vec![(Module::new(), src.join("lib.rs"))];
    while let Some((module, file)) = todo.pop() {
        let text = std::fs::read_to_string(&file).unwrap();
        let (tokens, test_modules) = without_test_items(tokens(&text));
        // Children live beside mod.rs/lib.rs, or in a folder named after the file.
        let dir = match file.file_name().unwrap().to_str().unwrap() {
            "mod.rs" | "lib.rs" => file.parent().unwrap().to_path_buf(),
            name => file.parent().unwrap().join(name.trim_end_matches(".rs")),
        };
        for (k, token) in tokens.iter().enumerate() {
            let (Token::Ident(word), Some(Token::Ident(name))) = (token, tokens.get(k + 1)) else {
                continue;
            };
            if word != "mod"
                || tokens.get(k + 2) != Some(&Token::Punct(';'))
                || test_modules.contains(name)
            {
                continue;
            }
            let child_file = [
                dir.join(format!("{name}.rs")),
                dir.join(name).join("mod.rs"),
            ]
            .into_iter()
            .find(|f| f.exists())
            .unwrap_or_else(|| panic!("{module:?} declares mod {name}, no file for it"));
            let mut child = module.clone();
            child.push(name.clone());
            todo.push((child, child_file));
        }
        modules.insert(module.clone(), file);
        code.insert(module, read_file_code(&tokens));
    }
    (modules, code)
}

fn file_imports() -> BTreeMap<String, BTreeMap<String, BTreeSet<String>>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let (modules, code) = house(&src);

    struct Reader<'a> {
        modules: &'a BTreeMap<Module, std::path::PathBuf>,
        code: &'a BTreeMap<Module, FileCode>,
    }
    impl Reader<'_> {
        fn is_child(&self, module: &[String], name: &str) -> bool {
            let mut child = module.to_vec();
            child.push(name.to_string());
            self.modules.contains_key(&child)
        }
        /// Where `path`, named in `module`, starts; None for another crate's or a local name.
        fn start(&self, module: &[String], path: &[String]) -> Option<(Module, usize)> {
            match path.first()?.as_str() {
                "crate" => Some((Vec::new(), 1)),
                "super" => Some((module[..module.len().saturating_sub(1)].to_vec(), 1)),
                "self" => Some((module.to_vec(), 1)),
                first if self.is_child(module, first) => Some((module.to_vec(), 0)),
                _ => None,
            }
        }
        /// The module `path` (named in `module`) leads to, and the item it names there.
        fn walk(&self, module: &[String], path: &[String]) -> Option<(Module, Option<String>)> {
            let (mut at, skip) = self.start(module, path)?;
            for segment in &path[skip..] {
                if segment == "super" {
                    at.pop();
                } else if self.is_child(&at, segment) {
                    at.push(segment.clone());
                } else {
                    return Some((at, Some(segment.clone())));
                }
            }
            Some((at, None))
        }
        /// The module that defines `name` as seen in `module` (through its re-exports, and
        /// with `private`, its own imports too, as a child's `use super::*` sees them).
        fn owner(&self, module: &[String], name: &str, private: bool, depth: u8) -> Option<Module> {
            let file = self.code.get(module)?;
            if depth > 8 {
                return None;
            }
            if self.is_child(module, name) {
                let mut child = module.to_vec();
                child.push(name.to_string());
                return Some(child);
            }
            if file.defines.contains(name) {
                return Some(module.to_vec());
            }
            let mut uses: Vec<&UsePath> = file.reexports.iter().collect();
            if private {
                uses.extend(&file.imports);
            }
            for used in &uses {
                if used.binds == name {
                    return match self.walk(module, &used.path)? {
                        (at, Some(item)) => self.owner(&at, &item, false, depth + 1).or(Some(at)),
                        (at, None) => Some(at),
                    };
                }
            }
            for used in uses.iter().filter(|u| u.binds == "*") {
                if let Some((at, None)) = self.walk(module, &used.path)
                    && let Some(found) = self.owner(&at, name, false, depth + 1)
                {
                    return Some(found);
                }
            }
            None
        }
        /// The module a path named in `module` leads to.
        fn leads_to(&self, module: &[String], path: &[String]) -> Option<Module> {
            match self.walk(module, path)? {
                (at, Some(item)) => Some(self.owner(&at, &item, false, 0).unwrap_or(at)),
                (at, None) => Some(at),
            }
        }
    }
    let reader = Reader {
        modules: &modules,
        code: &code,
    };
    let name_of = |module: &[String]| -> String {
        modules[module]
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .into_owned()
    };
    let mut edges: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for (module, file) in &code {
        if module.is_empty() {
            continue; // lib.rs only declares.
        }
        let from = name_of(module);
        // Each file a path leads to, with the name it takes there.
        let mut targets: Vec<(Module, String)> = Vec::new();
        // A `use` of a module binds its name: paths through that name continue from there.
        let mut bound: BTreeMap<&str, Module> = BTreeMap::new();
        for used in &file.imports {
            if used.binds == "*" {
                // A glob ties the file to where each name it uses from there is defined.
                if let Some((at, None)) = reader.walk(module, &used.path) {
                    let private = module.starts_with(&at);
                    for name in &file.names {
                        // A module's name ties only where a path goes through it (else it
                        // is a local of the same name).
                        let as_module = reader.is_child(&at, name);
                        if as_module && !file.paths.iter().any(|p| p[0] == *name) {
                            continue;
                        }
                        if let Some(owner) = reader.owner(&at, name, private, 0) {
                            targets.push((owner, name.clone()));
                        }
                    }
                }
                continue;
            }
            match reader.walk(module, &used.path) {
                Some((at, None)) => {
                    bound.insert(&used.binds, at);
                }
                Some((at, Some(item))) => {
                    let owner = reader.owner(&at, &item, false, 0).unwrap_or(at);
                    targets.push((owner, item));
                }
                None => {}
            }
        }
        // A name a file re-exports and also uses itself ties it like an import.
        for used in &file.reexports {
            if used.binds != "*"
                && file.names.contains(&used.binds)
                && let Some((at, Some(item))) = reader.walk(module, &used.path)
            {
                let owner = reader.owner(&at, &item, false, 0).unwrap_or(at);
                targets.push((owner, item));
            }
        }
        for path in &file.paths {
            if let Some(base) = bound.get(path[0].as_str()) {
                let mut whole: Vec<String> = vec!["crate".into()];
                whole.extend(base.iter().cloned());
                whole.extend(path[1..].iter().cloned());
                if let Some(to) = reader.leads_to(&[], &whole) {
                    targets.push((to, path.join("::")));
                }
            } else if let Some(to) = reader.leads_to(module, path) {
                targets.push((to, path.join("::")));
            }
        }
        let entry = edges.entry(from.clone()).or_default();
        for (target, name) in targets {
            let to = name_of(&target);
            if to != from && !target.is_empty() {
                entry.entry(to).or_default().insert(name);
            }
        }
    }
    edges
}

/// The circles of `edges`: each strongly connected set of two or more files (Tarjan).
fn circles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Walk<'a> {
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        found: Vec<Vec<String>>,
    }
    impl<'a> Walk<'a> {
        fn visit(&mut self, node: &'a str) {
            let n = self.index.len();
            self.index.insert(node, n);
            self.low.insert(node, n);
            self.stack.push(node);
            self.on_stack.insert(node);
            for next in self.edges.get(node).into_iter().flatten() {
                let next = next.as_str();
                if !self.index.contains_key(next) {
                    self.visit(next);
                    let low = self.low[node].min(self.low[next]);
                    self.low.insert(node, low);
                } else if self.on_stack.contains(next) {
                    let low = self.low[node].min(self.index[next]);
                    self.low.insert(node, low);
                }
            }
            if self.low[node] == self.index[node] {
                let mut set = Vec::new();
                while let Some(top) = self.stack.pop() {
                    self.on_stack.remove(top);
                    set.push(top.to_string());
                    if top == node {
                        break;
                    }
                }
                if set.len() > 1 {
                    set.sort();
                    self.found.push(set);
                }
            }
        }
    }
    let mut walk = Walk {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for node in edges.keys() {
        if !walk.index.contains_key(node.as_str()) {
            walk.visit(node);
        }
    }
    walk.found.sort();
    walk.found
}

#[test]
fn files_of_src_do_not_import_each_other_in_a_circle() {
    let named = file_imports();
    assert!(
        named.len() >= 100,
        "read too few files of src/: {}",
        named.len()
    );
    let edges: BTreeMap<String, BTreeSet<String>> = named
        .iter()
        .map(|(from, tos)| (from.clone(), tos.keys().cloned().collect()))
        .collect();
    let found = circles(&edges);
    let mut report = String::new();
    for circle in &found {
        report.push_str(&format!("\n{} files:", circle.len()));
        for file in circle {
            for (to, names) in &named[file] {
                if circle.contains(to) {
                    let names: Vec<&str> = names.iter().map(String::as_str).collect();
                    report.push_str(&format!("\n  {file} -> {to}: {}", names.join(", ")));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "files that import each other, round a circle:{report}"
    );
}

#[test]
fn the_file_reader_expands_use_trees_and_skips_strings_comments_and_tests() {
    let (kept, test_modules) = without_test_items(tokens(
        "use crate::a::{b::{C, d as e}, self, f::*};\n\
         // crate::x in a comment\n\
         const S: &str = \"crate::y in a string\";\n\
         const R: &str = r#\"super::z \"quoted\" in a raw string\"#;\n\
         fn g<'a>(c: char) -> bool { c == '{' && crate::h::call() }\n\
         #[cfg(test)]\nmod tests { use crate::t::T; }\n\
         #[cfg(test)]\nmod more;\n\
         pub(in crate::app) fn i() {}\n",
    ));
    assert_eq!(
        test_modules,
        BTreeSet::from(["more".to_string(), "tests".to_string()])
    );
    let file = read_file_code(&kept);
    let uses: Vec<(String, String)> = file
        .imports
        .iter()
        .map(|u| (u.path.join("::"), u.binds.clone()))
        .collect();
    assert_eq!(
        uses,
        [
            ("crate::a::b::C", "C"),
            ("crate::a::b::d", "e"),
            ("crate::a", "a"),
            ("crate::a::f", "*"),
        ]
        .map(|(p, b)| (p.to_string(), b.to_string()))
    );
    let paths: Vec<String> = file.paths.iter().map(|p| p.join("::")).collect();
    assert_eq!(
        paths,
        ["crate::h::call"],
        "strings, comments, tests and visibility left out"
    );
    assert!(file.defines.contains("g") && file.defines.contains("i"));
}

#[test]
fn every_file_of_src_and_tests_is_short_enough_to_read_and_says_what_it_holds() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let sources = rust_files(&root.join("src"));
    assert!(
        sources.len() >= 100,
        "read too few files: {}",
        sources.len()
    );
    let tests = rust_files(&root.join("tests"));
    assert!(
        tests.len() >= 40,
        "read too few test files: {}",
        tests.len()
    );
    let files = [sources, tests].concat();
    let mut long = Vec::new();
    let mut untold = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let name = file.strip_prefix(root).unwrap().display().to_string();
        let lines = text.lines().count();
        if lines > 1500 {
            long.push(format!("{name} ({lines} lines)"));
        }
        if !text.starts_with("//!") {
            untold.push(name);
        }
    }
    assert!(
        long.is_empty(),
        "files over 1,500 lines, tests included (cut them along their seams): {long:?}"
    );
    assert!(
        untold.is_empty(),
        "files that do not start with a `//!` line saying what they hold: {untold:?}"
    );
}

// ---- One path per type: `model`'s types are named from `model` ----

/// What `model` defines: the top-level items of its files and its modules' names.
fn model_names(src: &Path) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for file in rust_files(&src.join("model")) {
        let text = std::fs::read_to_string(&file).unwrap();
        let (tokens, _) = without_test_items(tokens(&text));
        names.extend(read_file_code(&tokens).defines);
        let stem = file.file_stem().unwrap().to_str().unwrap();
        if stem != "mod" {
            names.insert(stem.to_string());
        }
    }
    names
}

/// Each place in `text` (tests included) that names one of `model_names` through `mcp`
/// (`crate::mcp::Message`, `mcpick::mcp::Role`, `use crate::mcp::{Role, …}`), or that
/// re-exports one of them from `model` (a second path to it).
fn model_types_by_another_path(text: &str, model_names: &BTreeSet<String>) -> Vec<String> {
    let file = read_file_code(&tokens(text));
    let through_mcp = |path: &[String]| {
        matches!(path, [root, mcp, name, ..]
            if (root == "crate" || root == "mcpick") && mcp == "mcp" && model_names.contains(name))
    };
    let mut found = Vec::new();
    for path in file
        .paths
        .iter()
        .chain(file.imports.iter().map(|u| &u.path))
    {
        if through_mcp(path) {
            found.push(path.join("::"));
        }
    }
    for reexport in &file.reexports {
        let from_model = matches!(reexport.path.as_slice(), [root, model, ..]
            if (root == "crate" || root == "mcpick") && model == "model");
        if through_mcp(&reexport.path) || from_model {
            found.push(format!("pub use {}", reexport.path.join("::")));
        }
    }
    found
}

#[test]
fn model_types_are_named_from_model_only() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let names = model_names(&root.join("src"));
    assert!(
        names.contains("PromptInfo") && names.contains("skill_manifest"),
        "read model's names wrong: {names:?}"
    );
    let mut files = rust_files(&root.join("src"));
    files.extend(rust_files(&root.join("tests")));
    files.extend(rust_files(&root.join("benches")));
    let mut wrong = Vec::new();
    for file in files {
        let name = file.strip_prefix(root).unwrap().display().to_string();
        if name.starts_with("src/model") {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        for path in model_types_by_another_path(&text, &names) {
            wrong.push(format!("{name}: {path}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "a type `model` defines, named through `mcp` or re-exported (name it as `crate::model::…`, \
         its one path): {wrong:#?}"
    );
}

#[test]
fn the_model_path_check_sees_a_type_named_through_mcp() {
    let names: BTreeSet<String> = ["Role", "Message"].map(String::from).into();
    let text = "use crate::mcp::{Hub, Role};\n\
                fn f() -> crate::mcp::Message { todo!() }\n\
                pub use crate::model::Role;\n\
                use crate::model::Message;\n\
                use crate::mcp::Hub as H;\n";
    assert_eq!(
        model_types_by_another_path(text, &names),
        [
            "crate::mcp::Message",
            "crate::mcp::Role",
            "pub use crate::model::Role"
        ]
    );
}

// ---- Seams: no glob import, no function too long to read ----

#[test]
fn no_glob_import_outside_tests() {
    // What a glob brings in is invisible where it is used, and it ties a file to every name
    // its parent holds. Test modules may (`use super::*`), and so may a table of one enum's
    // variants.
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let (modules, code) = house(&src);
    let mut globs = Vec::new();
    for (module, file) in &code {
        // The fuzz targets' properties are built for tests only.
        if module.first().is_some_and(|m| m == "fuzzing") {
            continue;
        }
        for used in file.imports.iter().chain(&file.reexports) {
            // `use Action::*` before a table of one enum's variants names where they come
            // from in the line itself: not a glob of a module's names.
            let one_enum =
                matches!(used.path.as_slice(), [name] if name.starts_with(char::is_uppercase));
            if used.binds == "*" && !one_enum {
                let name = modules[module].strip_prefix(&src).unwrap().display();
                globs.push(format!("{name}: use {}::*", used.path.join("::")));
            }
        }
    }
    assert!(
        globs.is_empty(),
        "glob imports outside tests (name what the file uses, so a reader sees where each \
         name comes from): {globs:#?}"
    );
}

/// `text` with its comments, strings and character literals blanked (line breaks kept), so
/// that braces count as code.
fn blank_non_code(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |out: &mut String, run: &[char]| {
        out.extend(run.iter().map(|&c| if c == '\n' { '\n' } else { ' ' }));
    };
    let mut i = 0;
    while i < chars.len() {
        let rest = &chars[i..];
        let starts = |s: &str| s.chars().enumerate().all(|(k, c)| rest.get(k) == Some(&c));
        let after_word = i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
        let end = if starts("//") {
            rest.iter().position(|&c| c == '\n').unwrap_or(rest.len())
        } else if starts("/*") {
            (2..rest.len())
                .find(|&k| rest[k - 1] == '*' && rest[k] == '/')
                .map_or(rest.len(), |k| k + 1)
        } else if !after_word && raw_string_opens(rest) {
            let open = rest.iter().position(|&c| c == '"').unwrap_or(0);
            let hashes = rest[..open].iter().filter(|&&c| c == '#').count();
            (open + 1..rest.len())
                .find(|&k| {
                    rest[k] == '"'
                        && rest[k + 1..].iter().take_while(|&&c| c == '#').count() >= hashes
                })
                .map_or(rest.len(), |k| k + 1 + hashes)
        } else if rest[0] == '"' || (!after_word && starts("b\"")) {
            let mut k = if rest[0] == '"' { 1 } else { 2 };
            while k < rest.len() && rest[k] != '"' {
                k += if rest[k] == '\\' { 2 } else { 1 };
            }
            (k + 1).min(rest.len())
        } else if rest[0] == '\'' && rest.get(1) == Some(&'\\') {
            (2..rest.len())
                .find(|&k| rest[k] == '\'')
                .map_or(1, |k| k + 1)
        } else if rest[0] == '\'' && rest.get(2) == Some(&'\'') {
            3
        } else {
            out.push(rest[0]);
            i += 1;
            continue;
        };
        blank(&mut out, &rest[..end]);
        i += end;
    }
    out
}

/// Whether `rest` opens a raw string (`r"`, `r#"`, `br##"`…), not a raw identifier
/// (`r#ref`).
fn raw_string_opens(rest: &[char]) -> bool {
    let prefix = if rest.first() == Some(&'b') { 1 } else { 0 };
    rest.get(prefix) == Some(&'r')
        && rest
            .get(prefix + 1..)
            .and_then(|tail| tail.iter().find(|&&c| c != '#'))
            == Some(&'"')
}

/// The functions of `code` (blanked by [`blank_non_code`]) longer than `most` lines, each
/// with its first line, outside `#[cfg(test)]` items.
fn long_functions(code: &str, most: usize) -> Vec<(String, usize, usize)> {
    let bytes = code.as_bytes();
    let line_at = |at: usize| code[..at].matches('\n').count() + 1;
    // The byte ranges of `#[cfg(test)]` items.
    let mut tests: Vec<(usize, usize)> = Vec::new();
    for (at, _) in code.match_indices("#[cfg(test)]") {
        let body = code[at..].find(['{', ';']).map_or(code.len(), |k| at + k);
        tests.push((at, matching_brace(bytes, body)));
    }
    let mut long = Vec::new();
    let mut from = 0;
    while let Some(k) = code[from..].find("fn ") {
        let at = from + k;
        from = at + 3;
        let before = at.checked_sub(1).map(|b| bytes[b]);
        if before.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
            || tests.iter().any(|&(a, b)| a <= at && at < b)
        {
            continue;
        }
        let name: String = code[at + 3..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if name.is_empty() {
            continue;
        }
        // The body: the first `{` outside brackets, unless a `;` ends a declaration first.
        let mut depth = 0i32;
        let mut body = None;
        for (j, &b) in bytes.iter().enumerate().skip(at) {
            match b {
                b'(' | b'[' => depth += 1,
                b')' | b']' => depth -= 1,
                b';' if depth == 0 => break,
                b'{' if depth == 0 => {
                    body = Some(j);
                    break;
                }
                _ => {}
            }
        }
        let Some(body) = body else { continue };
        let end = matching_brace(bytes, body);
        let lines = line_at(end.min(code.len().saturating_sub(1))) - line_at(at) + 1;
        if lines > most {
            long.push((name, line_at(at), lines));
        }
    }
    long
}

/// Where the block opened at `open` (a `{`, or a `;` that ends an item) ends.
fn matching_brace(bytes: &[u8], open: usize) -> usize {
    if bytes.get(open) != Some(&b'{') {
        return open + 1;
    }
    let mut depth = 0usize;
    for (j, &b) in bytes.iter().enumerate().skip(open) {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return j;
                }
            }
            _ => {}
        }
    }
    bytes.len()
}

/// The most lines a function outside tests may have.
const MOST_LINES_IN_A_FUNCTION: usize = 150;

/// Functions over [`MOST_LINES_IN_A_FUNCTION`] that stay, and why: `(file, function)`.
const LONG_FUNCTIONS_ALLOWED: &[(&str, &str, &str)] = &[(
    "app/keys.rs",
    "defaults",
    "a table: every screen's default bindings, one action a line, in the help's order",
)];

#[test]
fn no_function_outside_tests_is_over_150_lines() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let (modules, _) = house(&src);
    let mut long = Vec::new();
    let mut allowed_seen = BTreeSet::new();
    for (module, path) in &modules {
        if module.first().is_some_and(|m| m == "fuzzing") {
            continue;
        }
        let name = path.strip_prefix(&src).unwrap().display().to_string();
        let code = blank_non_code(&std::fs::read_to_string(path).unwrap());
        for (function, line, lines) in long_functions(&code, MOST_LINES_IN_A_FUNCTION) {
            if LONG_FUNCTIONS_ALLOWED
                .iter()
                .any(|(file, f, _)| *file == name && *f == function)
            {
                allowed_seen.insert((name.clone(), function));
                continue;
            }
            long.push(format!("{name}:{line} fn {function}: {lines} lines"));
        }
    }
    assert!(
        long.is_empty(),
        "functions over {MOST_LINES_IN_A_FUNCTION} lines (cut them where the data changes \
         hands, or list one in LONG_FUNCTIONS_ALLOWED with why): {long:#?}"
    );
    let stale: Vec<_> = LONG_FUNCTIONS_ALLOWED
        .iter()
        .filter(|(file, f, _)| !allowed_seen.contains(&(file.to_string(), f.to_string())))
        .collect();
    assert!(
        stale.is_empty(),
        "allowed long functions that are short now or gone (strike them off): {stale:?}"
    );
}

#[test]
fn the_length_check_counts_code_and_skips_strings_comments_and_tests() {
    let text = "fn short() {\n    let s = \"}}}\"; // }\n    let c = '}';\n}\n\
                fn long<'a>(x: &'a str) -> Vec<u8> {\n    a();\n    b();\n    c();\n}\n\
                #[cfg(test)]\nmod tests {\n    fn in_test() {\n        a();\n        b();\n        c();\n    }\n}\n";
    let code = blank_non_code(text);
    assert_eq!(code.lines().count(), text.lines().count());
    assert_eq!(long_functions(&code, 4), [("long".to_string(), 5, 5)]);
    // A raw identifier opens no string (`r#ref` once hid the rest of a file); a raw
    // string's braces are blanked.
    let raw = "fn raw_ident(r: &R) {\n    let s = r.r#ref;\n    let t = r#\"}{\"#;\n}\n\
               fn after() {\n    a();\n    b();\n    c();\n}\n";
    let code = blank_non_code(raw);
    assert_eq!(code.lines().count(), raw.lines().count());
    assert_eq!(long_functions(&code, 4), [("after".to_string(), 5, 5)]);
    assert!(long_functions(&code, 3).contains(&("raw_ident".to_string(), 1, 4)));
}

/// The integration tests are one test binary (`tests/it/main.rs`): a file beside it that
/// `main.rs` does not declare would never be built nor run, and a `tests/NAME.rs` would be
/// a crate of its own, linking the whole library once more.
#[test]
fn every_integration_test_file_is_a_module_of_the_one_test_binary() {
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let crates: Vec<String> = std::fs::read_dir(&tests)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "rs"))
        .map(|path| format!("tests/{}", path.file_name().unwrap().to_string_lossy()))
        .collect();
    assert!(
        crates.is_empty(),
        "test crates of their own (move them into tests/it/ as modules): {crates:?}"
    );
    let main = std::fs::read_to_string(tests.join("it/main.rs")).unwrap();
    let declared: BTreeSet<&str> = main
        .lines()
        .filter_map(|line| line.strip_prefix("mod ")?.strip_suffix(';'))
        .collect();
    let mut files = BTreeSet::new();
    for entry in std::fs::read_dir(tests.join("it")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let source = path.extension().is_some_and(|ext| ext == "rs") && name != "main";
        // A folder is a module when it holds a mod.rs (common/); tui_e2e/ holds
        // tui_e2e.rs's own modules.
        if source || path.join("mod.rs").is_file() {
            files.insert(name);
        }
    }
    let undeclared: Vec<&String> = files
        .iter()
        .filter(|name| !declared.contains(name.as_str()))
        .collect();
    assert!(
        undeclared.is_empty(),
        "files of tests/it/ that main.rs does not declare (add `mod NAME;`): {undeclared:?}"
    );
    assert!(files.len() >= 30, "read too few files: {files:?}");
}
