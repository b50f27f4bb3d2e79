//! The one directory walker: every file under a folder, in name order, never
//! following a symbolic link (a link is neither listed nor entered), leaving
//! out the folders the caller names. Errors say which folder could not be
//! listed.

use std::ffi::OsStr;
use std::io;
use std::path::{Path, PathBuf};

/// A folder that could not be listed.
#[derive(Debug, thiserror::Error)]
#[error("cannot list {}: {source}", path.display())]
pub struct WalkError {
    /// The folder.
    pub path: PathBuf,
    /// What the system said.
    #[source]
    pub source: io::Error,
}

/// Every regular file under `root` (which must be a folder), depth first in
/// name order, as paths that start with `root`. Folders for which
/// `skip_folder(name)` holds are not entered.
pub fn files(root: &Path, skip_folder: impl Fn(&OsStr) -> bool) -> Result<Vec<PathBuf>, WalkError> {
    let mut found = Vec::new();
    walk(root, &skip_folder, &mut found)?;
    Ok(found)
}

fn walk(dir: &Path, skip_folder: &impl Fn(&OsStr) -> bool, found: &mut Vec<PathBuf>) -> Result<(), WalkError> {
    let error = |source| WalkError { path: dir.to_path_buf(), source };
    let mut entries: Vec<std::fs::DirEntry> =
        std::fs::read_dir(dir).map_err(error)?.collect::<Result<_, _>>().map_err(error)?;
    entries.sort_by_key(|entry| entry.file_name());
    for entry in entries {
        let Ok(kind) = entry.file_type() else { continue };
        if kind.is_dir() && !skip_folder(&entry.file_name()) {
            walk(&entry.path(), skip_folder, found)?;
        } else if kind.is_file() {
            found.push(entry.path());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_files_in_name_order_and_skips_named_folders() {
        let dir = tempfile::tempdir().unwrap();
        for file in ["b.txt", "a/z.txt", "a/c.txt", "target/x", "a/target/y"] {
            let path = dir.path().join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "").unwrap();
        }
        let found = files(dir.path(), |name| name == "target").unwrap();
        let relative: Vec<_> = found.iter().map(|p| p.strip_prefix(dir.path()).unwrap().to_path_buf()).collect();
        assert_eq!(relative, [PathBuf::from("a/c.txt"), "a/z.txt".into(), "b.txt".into()]);
        let missing = files(&dir.path().join("nope"), |_| false).unwrap_err();
        assert!(missing.to_string().starts_with("cannot list ") && missing.to_string().contains("nope"));
    }

    #[cfg(unix)]
    #[test]
    fn never_follows_links() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), "").unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("link")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret"), dir.path().join("file-link")).unwrap();
        assert!(files(dir.path(), |_| false).unwrap().is_empty());
    }
}
