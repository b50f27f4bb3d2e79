//! File modes and owners where the system has them (Unix). Elsewhere a mode
//! change does nothing (the scratch folder is the grader's own, and no
//! other user runs student code there) and an owner change is refused: only
//! a root grader on Unix hands files to a dedicated user.

use std::fs::{File, Metadata};
use std::io;
use std::path::Path;

/// Sets the permission bits of `path` (`0o700`, ...).
pub fn set_mode(path: &Path, mode: u32) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
    }
    #[cfg(not(unix))]
    {
        let _ = (path, mode);
        Ok(())
    }
}

/// Gives `path` to the user and group `id`.
pub fn set_owner(path: &Path, id: u32) -> io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::chown(path, Some(id), Some(id))
    }
    #[cfg(not(unix))]
    {
        let _ = (path, id);
        Err(io::Error::new(io::ErrorKind::Unsupported, "files have no numeric owner on this system"))
    }
}

/// Whether the owner may execute the file.
pub fn is_executable(metadata: &Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        metadata.permissions().mode() & 0o100 != 0
    }
    #[cfg(not(unix))]
    {
        let _ = metadata;
        false
    }
}

/// Opens a file for reading without following a final symbolic link (and
/// without blocking on a FIFO), so a link swapped in after a listing is
/// refused rather than followed.
pub fn open_no_follow(path: &Path) -> io::Result<File> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK).open(path)
    }
    #[cfg(not(unix))]
    {
        if std::fs::symlink_metadata(path)?.file_type().is_symlink() {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "a symbolic link"));
        }
        File::open(path)
    }
}
