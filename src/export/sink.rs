//! Where exports go: files, written atomically (the clipboard is in `clipboard.rs`).

use std::io::Write;
use std::path::{Path, PathBuf};

/// Why a file could not be written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WriteError {
    /// The file exists and overwriting was not allowed.
    Exists(PathBuf),
    /// Anything else, phrased for the user.
    Failed(String),
}

/// Writes `contents` to `path` atomically: a temp file in the same folder, then a rename,
/// so readers never see half a file. Refuses to replace an existing file unless `overwrite`.
pub fn write_atomic(path: &Path, contents: &[u8], overwrite: bool) -> Result<(), WriteError> {
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if path.is_dir() {
        return Err(WriteError::Failed(format!(
            "{} is a folder; give a file name",
            path.display()
        )));
    }
    if !overwrite && path.exists() {
        return Err(WriteError::Exists(path.to_path_buf()));
    }
    let failed = |what: &str, e: std::io::Error| {
        WriteError::Failed(format!("cannot {what} {}: {e}", path.display()))
    };
    let existing = std::fs::metadata(path).ok().map(|m| m.permissions());
    let mut builder = tempfile::Builder::new();
    builder.prefix(".mcpick-").suffix(".tmp");
    // A new file gets the usual mode (0666 less the umask, applied at creation), not a temp
    // file's 0600.
    builder.permissions(crate::sys::fs::permissions(0o666));
    let mut temp = builder
        .tempfile_in(&folder)
        .map_err(|e| failed("write", e))?;
    // A replaced file keeps its own mode.
    if let Some(permissions) = existing {
        temp.as_file()
            .set_permissions(permissions)
            .map_err(|e| failed("write", e))?;
    }
    temp.write_all(contents).map_err(|e| failed("write", e))?;
    temp.as_file().sync_all().map_err(|e| failed("write", e))?;
    if overwrite {
        temp.persist(path).map_err(|e| failed("write", e.error))?;
    } else {
        // A file that appeared meanwhile is still not replaced.
        temp.persist_noclobber(path).map_err(|e| {
            if e.error.kind() == std::io::ErrorKind::AlreadyExists {
                WriteError::Exists(path.to_path_buf())
            } else {
                failed("write", e.error)
            }
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_creates_then_refuses_to_clobber_unless_asked() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.md");
        write_atomic(&path, b"one", false).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"one");
        assert_eq!(
            write_atomic(&path, b"two", false),
            Err(WriteError::Exists(path.clone()))
        );
        assert_eq!(std::fs::read(&path).unwrap(), b"one");
        write_atomic(&path, b"two", true).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            // Readable like any new file (not a temp file's 0600)...
            assert_ne!(mode(&path), 0o600);
            // ...and a replaced file keeps its mode.
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
            write_atomic(&path, b"three", true).unwrap();
            assert_eq!(mode(&path), 0o640);
        }
        // No temp files are left behind.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_missing_folder_or_a_folder_path_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let err = write_atomic(&dir.path().join("nope/out.md"), b"x", false).unwrap_err();
        assert!(matches!(err, WriteError::Failed(m) if m.contains("cannot write")));
        let err = write_atomic(dir.path(), b"x", true).unwrap_err();
        assert!(matches!(err, WriteError::Failed(m) if m.contains("is a folder")));
    }
}
