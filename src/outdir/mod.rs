//! What batch and tournament output folders share: the lock that keeps two
//! runs from writing one folder, writes that leave whole files behind, the
//! reading of a folder of JSON files, fingerprints of a folder's files and
//! of this build of treegrade, and `--shard K/N`.
//!
//! A batch (`crate::batch`) and a tournament (`crate::tournament`) each lay
//! out their own files; neither borrows from the other.

mod fingerprint;
mod shard;

use std::io;
use std::path::Path;

pub use fingerprint::{BUILD_IDENTITY, hex, submission_fingerprint};
pub use shard::{Shard, ShardError};

/// The lock file that keeps two runs from writing one output folder.
const LOCK_FILE: &str = ".treegrade-batch.lock";

/// Takes an output folder for this run: a second batch or tournament writing
/// into the same folder at the same time would lose rows, so it is refused.
/// The lock is released when the returned file is dropped, or when the
/// process dies.
pub fn lock(out: &Path) -> io::Result<std::fs::File> {
    let path = out.join(LOCK_FILE);
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|error| io::Error::new(error.kind(), format!("cannot open {}: {error}", path.display())))?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => Err(io::Error::new(
            io::ErrorKind::WouldBlock,
            format!(
                "another treegrade batch or tournament is writing into {} (it holds {}): wait for it to finish, or give another --out",
                out.display(),
                path.display()
            ),
        )),
        Err(std::fs::TryLockError::Error(error)) => {
            Err(io::Error::new(error.kind(), format!("cannot lock {}: {error}", path.display())))
        }
    }
}

/// Every `.json` file of `dir` that reads as a `T`, in no particular order
/// (none when `dir` is missing). A file cut short or of another shape is
/// left out: it is written again, as anything not yet done is.
pub fn read_json_files<T: serde::de::DeserializeOwned>(dir: &Path) -> io::Result<Vec<T>> {
    let mut found = Vec::new();
    if !dir.is_dir() {
        return Ok(found);
    }
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.extension().is_some_and(|extension| extension == "json")
            && let Ok(text) = std::fs::read_to_string(&path)
            && let Ok(value) = serde_json::from_str::<T>(&text)
        {
            found.push(value);
        }
    }
    Ok(found)
}

/// Writes `path` through a temporary file and a rename: readers and killed
/// runs see the old file or the new one, never half of one.
pub fn write_atomically(path: &Path, contents: &[u8]) -> io::Result<()> {
    let temporary = path.with_extension("partial");
    let named = |error: io::Error, what: &Path| {
        io::Error::new(error.kind(), format!("cannot write {}: {error}", what.display()))
    };
    std::fs::write(&temporary, contents).map_err(|error| named(error, &temporary))?;
    std::fs::rename(&temporary, path).map_err(|error| named(error, path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_on_one_folder_is_refused_until_the_first_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let first = lock(dir.path()).unwrap();
        let error = lock(dir.path()).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::WouldBlock);
        assert!(error.to_string().contains("another treegrade batch or tournament"), "{error}");
        drop(first);
        assert!(lock(dir.path()).is_ok());
    }

    #[test]
    fn an_atomic_write_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.json");
        write_atomically(&path, b"[1]").unwrap();
        write_atomically(&path, b"[2]").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "[2]");
        assert!(!dir.path().join("a.partial").exists());
    }

    #[test]
    fn json_files_cut_short_or_of_another_shape_are_left_out() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("whole.json"), "[1, 2]").unwrap();
        std::fs::write(dir.path().join("cut.json"), "[1, ").unwrap();
        std::fs::write(dir.path().join("other.json"), "{}").unwrap();
        std::fs::write(dir.path().join("not-json.txt"), "[3]").unwrap();
        let found: Vec<Vec<u32>> = read_json_files(dir.path()).unwrap();
        assert_eq!(found, vec![vec![1, 2]]);
        let none: Vec<Vec<u32>> = read_json_files(&dir.path().join("missing")).unwrap();
        assert!(none.is_empty());
    }
}
