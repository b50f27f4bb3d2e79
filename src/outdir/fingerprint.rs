//! Fingerprints: of this build of treegrade, and of a folder's files, so
//! that a run skips whatever has not changed since the last.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::grader::scratch::{PathError, SKIPPED_FOLDERS};

/// The grader's version and build identity (a hash of its sources, set by
/// `build.rs`): a grader rebuilt with a fix regrades everyone.
pub const BUILD_IDENTITY: &str =
    concat!("treegrade ", env!("CARGO_PKG_VERSION"), " build ", env!("TREEGRADE_BUILD_ID"), "\n");

/// A fingerprint of a folder's files (names and contents, skipped folders
/// left out) under `assignment_key`: the same files under the same key
/// give the same fingerprint, and any change gives another.
pub fn submission_fingerprint(assignment_key: &str, dir: &Path) -> Result<String, PathError> {
    let mut hasher = Sha256::new();
    hasher.update(assignment_key.as_bytes());
    let mut files = Vec::new();
    collect_files(dir, Path::new(""), &mut files)?;
    files.sort();
    for relative in files {
        hasher.update(relative.to_string_lossy().as_bytes());
        hasher.update([0]);
        let path = dir.join(&relative);
        let contents = std::fs::read(&path).map_err(|e| PathError::new("read", &path, e))?;
        hasher.update((contents.len() as u64).to_le_bytes());
        hasher.update(contents);
    }
    Ok(hex(&hasher.finalize()))
}

fn collect_files(dir: &Path, relative: &Path, files: &mut Vec<PathBuf>) -> Result<(), PathError> {
    for entry in std::fs::read_dir(dir).map_err(|e| PathError::new("list", dir, e))? {
        let entry = entry.map_err(|e| PathError::new("list", dir, e))?;
        let kind = entry.file_type().map_err(|e| PathError::new("inspect", &entry.path(), e))?;
        let name = entry.file_name();
        if kind.is_dir() && !SKIPPED_FOLDERS.contains(&name.to_string_lossy().as_ref()) {
            collect_files(&entry.path(), &relative.join(&name), files)?;
        } else if kind.is_file() {
            files.push(relative.join(&name));
        }
    }
    Ok(())
}

/// Bytes as lowercase hexadecimal.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_build_identity_carries_a_hash_of_the_sources() {
        let id = BUILD_IDENTITY.trim_end().rsplit(' ').next().unwrap();
        assert_eq!(id.len(), 16, "{BUILD_IDENTITY}");
        assert!(id.chars().all(|c| c.is_ascii_hexdigit()), "{BUILD_IDENTITY}");
    }

    #[test]
    fn a_folder_changed_anywhere_changes_its_fingerprint() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/a.py"), "x = 1\n").unwrap();
        let before = submission_fingerprint("key", dir.path()).unwrap();
        assert_eq!(before, submission_fingerprint("key", dir.path()).unwrap());
        assert_ne!(before, submission_fingerprint("other key", dir.path()).unwrap());
        std::fs::write(dir.path().join("src/a.py"), "x = 2\n").unwrap();
        assert_ne!(before, submission_fingerprint("key", dir.path()).unwrap());
    }

    #[test]
    fn hex_is_lowercase_and_two_digits_a_byte() {
        assert_eq!(hex(&[0, 10, 255]), "000aff");
    }
}
