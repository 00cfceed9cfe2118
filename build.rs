//! Embeds the bundled prompt library (`assets/prompts/`) into the binary.

use std::fmt::Write as _;
use std::path::Path;

fn collect(dir: &Path, base: &Path, out: &mut Vec<(String, String)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, base, out);
        } else if let Ok(relative) = path.strip_prefix(base) {
            let relative = relative.to_string_lossy().replace('\\', "/");
            out.push((relative, path.canonicalize().unwrap().display().to_string()));
        }
    }
}

fn main() {
    let base = Path::new("assets/prompts");
    println!("cargo:rerun-if-changed=assets/prompts");
    let mut files = Vec::new();
    collect(base, base, &mut files);
    let mut code = String::from(
        "/// The bundled prompt files: (path under assets/prompts, text).\npub const FILES: &[(&str, &str)] = &[\n",
    );
    for (relative, absolute) in files {
        writeln!(code, "    ({relative:?}, include_str!({absolute:?})),").unwrap();
    }
    code.push_str("];\n");
    let out = Path::new(&std::env::var("OUT_DIR").unwrap()).join("builtin_prompts.rs");
    std::fs::write(out, code).unwrap();
}
