//! The bundled prompt library: `assets/prompts/`, compiled into the binary: its prompt
//! files, and its skill folders (`NAME/SKILL.md`), served as skills and prompts.

use std::path::Path;

use super::library::{Library, classify, parse_file};
use super::native::FileReader;
use super::skills::{self, SKILL_FILE};

mod files {
    include!(concat!(env!("OUT_DIR"), "/builtin_prompts.rs"));
}

/// Reads embedded files from the bundled set, relative to the prompt's folder.
struct BundledFiles {
    folder: String,
}

impl FileReader for BundledFiles {
    fn read_relative(&self, relative: &str) -> Result<(String, Vec<u8>), String> {
        let mut parts: Vec<&str> = self.folder.split('/').filter(|p| !p.is_empty()).collect();
        for part in relative.split('/') {
            match part {
                "" | "." => {}
                ".." => {
                    parts.pop().ok_or("it is outside the bundled library")?;
                }
                other => parts.push(other),
            }
        }
        let path = parts.join("/");
        files::FILES
            .iter()
            .find(|(name, _)| *name == path)
            .map(|(name, text)| (format!("mcpick://builtin/{name}"), text.as_bytes().to_vec()))
            .ok_or_else(|| format!("no bundled file `{path}`"))
    }
}

/// The bundled library, parsed.
pub fn builtin_library() -> Library {
    let skill_folders: Vec<&str> = files::FILES
        .iter()
        .filter_map(|(name, _)| name.strip_suffix(&format!("/{SKILL_FILE}")))
        .collect();
    let in_a_skill = |name: &str| {
        skill_folders.iter().any(|folder| {
            name.strip_prefix(folder)
                .is_some_and(|r| r.starts_with('/'))
        })
    };
    let mut results: Vec<_> = files::FILES
        .iter()
        .filter(|(name, _)| !in_a_skill(name))
        .filter_map(|(name, text)| {
            let kind = classify(Path::new(name), false)?;
            let folder = name
                .rsplit_once('/')
                .map_or("", |(folder, _)| folder)
                .to_string();
            let display = format!("builtin:{name}");
            Some(parse_file(kind, text, &display, &BundledFiles { folder }))
        })
        .collect();
    let mut bundled_skills = Vec::new();
    for folder in skill_folders {
        let below = format!("{folder}/");
        let folder_files: Vec<(String, Vec<u8>)> = files::FILES
            .iter()
            .filter_map(|(name, text)| {
                let relative = name.strip_prefix(&below)?;
                Some((relative.to_string(), text.as_bytes().to_vec()))
            })
            .collect();
        let folder_name = folder.rsplit('/').next().unwrap_or(folder);
        let source = format!("builtin:{folder}/{SKILL_FILE}");
        match skills::parse_skill(folder_name, folder_files, &source) {
            Ok((skill, prompt)) => {
                bundled_skills.push(skill);
                results.push(Ok(prompt));
            }
            Err(error) => results.push(Err(error)),
        }
    }
    Library::from_results(results).with_skills(bundled_skills)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_library_loads_cleanly_and_is_worth_using() {
        let library = builtin_library();
        assert!(library.diagnostics.is_empty(), "{:#?}", library.diagnostics);
        assert!(library.prompts().len() >= 8, "{}", library.prompts().len());
        let with_values = library
            .prompts()
            .iter()
            .filter(|p| p.arguments.iter().any(|a| !a.values.is_empty()))
            .count();
        assert!(
            with_values >= 2,
            "some prompts should offer completion values"
        );
        assert!(
            library
                .prompts()
                .iter()
                .any(|p| p.messages.iter().any(|m| matches!(
                    m,
                    super::super::MessageTemplate::Text {
                        role: crate::mcp::Role::Assistant,
                        ..
                    }
                )))
        );
        assert!(library.prompts().iter().any(|p| {
            p.messages
                .iter()
                .any(|m| matches!(m, super::super::MessageTemplate::Embedded { .. }))
        }));
        for prompt in library.prompts() {
            assert!(
                prompt.description.is_some(),
                "{} needs a description",
                prompt.name
            );
        }
    }

    #[test]
    fn the_bundled_skills_are_served_both_ways() {
        let library = builtin_library();
        let skill = library
            .skill("skill://write-skill/SKILL.md")
            .expect("the bundled write-skill skill");
        let paths: Vec<&str> = skill.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["SKILL.md", "references/format.md"]);
        let prompt = library.find("write-skill").expect("its prompt");
        assert_eq!(
            prompt.description.as_deref(),
            Some(skill.description.as_str())
        );
        // Its reference file is the skill's to read, and no prompt of its own.
        let (_, format) = library
            .skill_file("skill://write-skill/references/format.md")
            .expect("the reference file");
        assert!(format.bytes.starts_with(b"# The SKILL.md format"));
        let sources: Vec<&str> = library
            .prompts()
            .iter()
            .map(|p| p.source.as_str())
            .collect();
        assert_eq!(
            sources
                .iter()
                .filter(|s| s.contains("write-skill/"))
                .count(),
            1,
            "{sources:?}"
        );
    }

    #[test]
    fn bundled_paths_cannot_escape() {
        let files = BundledFiles {
            folder: String::new(),
        };
        assert!(files.read_relative("../../etc/passwd").is_err());
    }
}
