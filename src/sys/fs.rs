//! File modes and opening rules: owner-only files and folders for what mcpick keeps
//! (history, drafts, tokens, the catalog), and a look at who may read a file.

use std::fs::{File, Metadata, OpenOptions, Permissions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// Permissions of `mode` (e.g. `0o666` for a new file as any program would make it, before
/// the umask).
pub fn permissions(mode: u32) -> Permissions {
    Permissions::from_mode(mode)
}

/// The permission bits of `metadata` (`0o644`).
pub fn mode(metadata: &Metadata) -> u32 {
    metadata.permissions().mode() & 0o7777
}

/// Makes `path` readable and writable by its owner only (0600).
pub fn set_owner_only(path: &Path) -> io::Result<()> {
    std::fs::set_permissions(path, permissions(0o600))
}

/// Creates `dir` and its parents, owner-only (0700); one that existed already (made by
/// hand, or by an older mcpick) is closed too.
pub fn create_private_dir(dir: &Path) -> io::Result<()> {
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    std::fs::set_permissions(dir, permissions(0o700))
}

/// Creates a new file (never an existing one) that only its owner can read (0600 from the
/// start: there is no moment when others could open it).
pub fn create_private_new(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
}

/// Opens `path` for reading without blocking on it: a FIFO put where a file was expected
/// opens at once (its reads then fail or end) instead of waiting for a writer forever.
pub fn open_nonblocking(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .read(true)
        .custom_flags(nix::fcntl::OFlag::O_NONBLOCK.bits())
        .open(path)
}

/// Opens `path` for reading, never through a link as its last component and never blocking
/// (a FIFO), and returns the file with where it really is: the path of what was opened,
/// not of what `path` named a moment before. A caller that checks this path (inside the
/// served folders?) checks the file it reads, so a file swapped for a link between a check
/// and the open is caught.
pub fn open_real(path: &Path) -> io::Result<(File, std::path::PathBuf)> {
    use nix::fcntl::OFlag;
    let file = OpenOptions::new()
        .read(true)
        .custom_flags((OFlag::O_NOFOLLOW | OFlag::O_NONBLOCK).bits())
        .open(path)?;
    let real = opened_path(&file, path)?;
    Ok((file, real))
}

/// The path of an open file: the kernel's own name for it where `/proc` tells it (Linux),
/// else `path` resolved when that is the very file opened.
fn opened_path(file: &File, path: &Path) -> io::Result<std::path::PathBuf> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        if let Ok(real) = std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd())) {
            return Ok(real);
        }
    }
    same_file_path(file, path)
}

/// `path` resolved, when it is the very file that was opened (same device and inode),
/// else an error.
fn same_file_path(file: &File, path: &Path) -> io::Result<std::path::PathBuf> {
    use std::os::unix::fs::MetadataExt;
    let real = path.canonicalize()?;
    let (opened, named) = (file.metadata()?, std::fs::metadata(&real)?);
    if (opened.dev(), opened.ino()) != (named.dev(), named.ino()) {
        return Err(io::Error::other("the file changed while it was opened"));
    }
    Ok(real)
}

/// Whether a failed `metadata` or `open` means links that lead back to each other (`ELOOP`).
pub fn is_link_loop(error: &io::Error) -> bool {
    error.raw_os_error() == Some(nix::libc::ELOOP)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_opened_is_named_where_it_really_is_and_never_through_a_last_link() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().canonicalize().unwrap().join("real.md");
        std::fs::write(&real, "x").unwrap();
        let (file, named) = open_real(&real).unwrap();
        assert_eq!(named, real);
        // The way other systems name it: the same file, by device and inode.
        assert_eq!(same_file_path(&file, &real).unwrap(), real);
        let link = dir.path().join("link.md");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        assert!(is_link_loop(&open_real(&link).unwrap_err()));
        // A path that names another file than the one opened is refused.
        let other = dir.path().join("other.md");
        std::fs::write(&other, "y").unwrap();
        assert!(same_file_path(&file, &other).is_err());
    }

    #[test]
    fn private_files_and_folders_are_the_owners_alone() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("a/b");
        create_private_dir(&folder).unwrap();
        assert_eq!(mode(&std::fs::metadata(&folder).unwrap()), 0o700);
        std::fs::set_permissions(&folder, permissions(0o755)).unwrap();
        create_private_dir(&folder).unwrap();
        assert_eq!(
            mode(&std::fs::metadata(&folder).unwrap()),
            0o700,
            "closed again"
        );
        let file = folder.join("token");
        create_private_new(&file).unwrap();
        assert_eq!(mode(&std::fs::metadata(&file).unwrap()), 0o600);
        assert!(create_private_new(&file).is_err(), "never an existing file");
        std::fs::set_permissions(&file, permissions(0o644)).unwrap();
        set_owner_only(&file).unwrap();
        assert_eq!(mode(&std::fs::metadata(&file).unwrap()), 0o600);
    }

    #[test]
    fn a_fifo_opens_without_a_writer_and_a_link_loop_is_told() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
        open_nonblocking(&fifo).expect("opens at once");
        let a = dir.path().join("a");
        std::os::unix::fs::symlink(dir.path().join("b"), &a).unwrap();
        std::os::unix::fs::symlink(&a, dir.path().join("b")).unwrap();
        let error = std::fs::metadata(&a).unwrap_err();
        assert!(is_link_loop(&error), "{error}");
        assert!(!is_link_loop(&io::Error::from(io::ErrorKind::NotFound)));
    }
}
