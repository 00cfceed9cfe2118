//! The bundled prompt library: `assets/prompts/`, compiled into the binary.

use std::path::Path;

use super::loaded::{Library, classify, parse_file};
use super::native::{EmbedError, FileReader};

mod files {
    include!(concat!(env!("OUT_DIR"), "/builtin_prompts.rs"));
}

/// Reads embedded files from the bundled set, relative to the prompt's folder.
struct BundledFiles {
    folder: String,
}

impl FileReader for BundledFiles {
    fn read_relative(&self, relative: &str) -> Result<(String, Vec<u8>), EmbedError> {
        let mut parts: Vec<&str> = self.folder.split('/').filter(|p| !p.is_empty()).collect();
        for part in relative.split('/') {
            match part {
                "" | "." => {}
                ".." => {
                    parts.pop().ok_or(EmbedError::OutsideBundle)?;
                }
                other => parts.push(other),
            }
        }
        let path = parts.join("/");
        files::FILES
            .iter()
            .find(|(name, _)| *name == path)
            .map(|(name, text)| (format!("mcpick://builtin/{name}"), text.as_bytes().to_vec()))
            .ok_or(EmbedError::NoBundledFile(path))
    }
}

/// The bundled library, parsed.
pub fn builtin_library() -> Library {
    let results = files::FILES
        .iter()
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
    Library::from_results(results)
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
                        role: crate::model::Role::Assistant,
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
    fn bundled_paths_cannot_escape() {
        let files = BundledFiles {
            folder: String::new(),
        };
        assert!(files.read_relative("../../etc/passwd").is_err());
    }
}
