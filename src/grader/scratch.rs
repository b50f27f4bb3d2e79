//! Scratch folders of grading runs: private, named after the grader that
//! made them, and removed whatever a student did to them.
//!
//! A student can make its scratch folder hard to remove (a folder inside it
//! with mode 000), and a grader killed with `kill -9` never removes its
//! folders at all. So removal first gives the owner back every permission
//! it needs, and every grader, when it makes its first scratch folder,
//! removes the folders of graders that are no longer running: their names
//! carry the process id (`treegrade-run-PID-...`).

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Once;

/// The start of every scratch folder's name.
const PREFIX: &str = "treegrade-";

/// A private scratch folder (mode 0700), removed when dropped.
#[derive(Debug)]
pub struct Scratch {
    path: PathBuf,
}

impl Scratch {
    /// A new folder in the temporary folder, named `treegrade-KIND-PID-...`.
    /// The first one a process makes sweeps away those of dead graders.
    pub fn new(kind: &str) -> io::Result<Scratch> {
        static SWEEP: Once = Once::new();
        SWEEP.call_once(sweep_stale);
        let prefix = format!("{PREFIX}{kind}-{}-", std::process::id());
        let dir = tempfile::Builder::new().prefix(&prefix).tempdir()?;
        super::fsmode::set_mode(dir.path(), 0o700)?;
        // Kept by hand: removal must survive what a student did inside.
        Ok(Scratch { path: dir.keep() })
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        remove(&self.path);
    }
}

/// Folders a copy leaves out: build output, caches, virtual environments
/// and version control (a student checking a project folder often has a
/// `.venv` of thousands of files beside the code).
pub const SKIPPED_FOLDERS: [&str; 9] =
    ["target", "__pycache__", ".git", "node_modules", ".venv", "venv", ".tox", ".mypy_cache", ".pytest_cache"];

/// An I/O error with what was being done and to which path.
#[derive(Debug, thiserror::Error)]
#[error("cannot {action} {}: {source}", path.display())]
pub struct PathError {
    action: &'static str,
    path: PathBuf,
    source: io::Error,
}

impl PathError {
    /// `action` (a verb: "read", "copy") failed on `path`.
    pub fn new(action: &'static str, path: &Path, source: io::Error) -> PathError {
        PathError { action, path: path.to_path_buf(), source }
    }

    /// Whether the fault is the submission's (a folder too large, a file
    /// that is not a regular one, a folder that cannot be listed), as
    /// opposed to the grader's own scratch space failing (a full disk).
    pub fn is_input(&self) -> bool {
        matches!(self.source.kind(), io::ErrorKind::FileTooLarge | io::ErrorKind::InvalidInput)
            || matches!(self.action, "list" | "inspect")
    }
}

/// Copies a submission into `to`: its folders and regular files, without
/// following symbolic links, leaving out build output and version control.
/// Folders get mode 0700 and files 0600 (0700 when executable), so that no
/// other local user can read the copy; with `owner`, the copy belongs to
/// that dedicated user, who alone (and the grader) can read it.
///
/// A submission is a few source files: a folder of more than
/// [`MAX_STAGED_ENTRIES`] entries or [`MAX_STAGED_BYTES`] bytes is refused
/// rather than copied.
pub fn stage(from: &Path, to: &Path, owner: Option<u32>) -> Result<(), PathError> {
    let mut budget = Budget { entries: MAX_STAGED_ENTRIES, bytes: MAX_STAGED_BYTES };
    stage_within(from, to, owner, &mut budget)
}

/// Most files and folders a staged submission may hold.
pub const MAX_STAGED_ENTRIES: u64 = 20_000;

/// Most bytes a staged submission may hold (256 MiB).
pub const MAX_STAGED_BYTES: u64 = 256 << 20;

/// What is left of the limits while a submission is copied.
struct Budget {
    entries: u64,
    bytes: u64,
}

fn too_large(from: &Path) -> PathError {
    let message = format!(
        "a submission holds at most {MAX_STAGED_ENTRIES} files and folders and {} MiB; \
         leave out data and build output ({} are left out already)",
        MAX_STAGED_BYTES >> 20,
        SKIPPED_FOLDERS.join(", ")
    );
    PathError::new("copy the submission", from, io::Error::new(io::ErrorKind::FileTooLarge, message))
}

fn stage_within(from: &Path, to: &Path, owner: Option<u32>, budget: &mut Budget) -> Result<(), PathError> {
    std::fs::create_dir(to).map_err(|e| PathError::new("create", to, e))?;
    private(to, 0o700, owner)?;
    for entry in std::fs::read_dir(from).map_err(|e| PathError::new("list", from, e))? {
        let entry = entry.map_err(|e| PathError::new("list", from, e))?;
        let kind = entry.file_type().map_err(|e| PathError::new("inspect", &entry.path(), e))?;
        let name = entry.file_name();
        let target = to.join(&name);
        budget.entries = budget.entries.checked_sub(1).ok_or_else(|| too_large(from))?;
        if kind.is_dir() && !SKIPPED_FOLDERS.contains(&name.to_string_lossy().as_ref()) {
            stage_within(&entry.path(), &target, owner, budget)?;
        } else if kind.is_file() {
            let size = entry.metadata().map_or(0, |meta| meta.len());
            budget.bytes = budget.bytes.checked_sub(size).ok_or_else(|| too_large(from))?;
            copy_no_follow(&entry.path(), &target).map_err(|e| PathError::new("copy", &entry.path(), e))?;
            let executable = entry.metadata().is_ok_and(|meta| super::fsmode::is_executable(&meta));
            private(&target, if executable { 0o700 } else { 0o600 }, owner)?;
        }
    }
    Ok(())
}

/// Copies a regular file without following a link: were the file replaced
/// by a link after it was listed, the copy fails rather than reading,
/// with the grader's rights, whatever the link points to.
fn copy_no_follow(from: &Path, to: &Path) -> io::Result<u64> {
    let mut source = super::fsmode::open_no_follow(from)?;
    if !source.metadata()?.is_file() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "not a regular file"));
    }
    let mut target = std::fs::OpenOptions::new().write(true).create_new(true).open(to)?;
    io::copy(&mut source, &mut target)
}

fn private(path: &Path, mode: u32, owner: Option<u32>) -> Result<(), PathError> {
    super::fsmode::set_mode(path, mode).map_err(|e| PathError::new("set the mode of", path, e))?;
    if let Some(id) = owner {
        super::fsmode::set_owner(path, id).map_err(|e| PathError::new("change the owner of", path, e))?;
    }
    Ok(())
}

/// Removes `path` and everything in it, first restoring the permissions a
/// student may have taken away (a folder set to mode 000, say).
pub fn remove(path: &Path) {
    if std::fs::remove_dir_all(path).is_ok() || !path.exists() {
        return;
    }
    restore_permissions(path);
    let _ = std::fs::remove_dir_all(path);
}

fn restore_permissions(dir: &Path) {
    let _ = super::fsmode::set_mode(dir, 0o700);
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
            restore_permissions(&entry.path());
        }
    }
}

/// Removes the scratch folders of graders that are no longer running.
fn sweep_stale() {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Some(pid) = owner_pid(&name)
            && !Path::new(&format!("/proc/{pid}")).exists()
        {
            remove(&entry.path());
        }
    }
}

/// The grader's process id in a scratch folder's name (`treegrade-run-PID-x`).
fn owner_pid(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(PREFIX)?;
    let mut parts = rest.splitn(3, '-');
    let _kind = parts.next()?;
    let pid = parts.next()?.parse().ok()?;
    parts.next()?;
    Some(pid)
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn a_submission_at_fault_is_input_and_a_failing_scratch_folder_is_not() {
        let error = |action, kind| PathError::new(action, Path::new("x"), io::Error::from(kind));
        assert!(error("copy the submission", io::ErrorKind::FileTooLarge).is_input());
        assert!(error("copy", io::ErrorKind::InvalidInput).is_input());
        assert!(error("list", io::ErrorKind::PermissionDenied).is_input());
        assert!(!error("make a scratch folder in", io::ErrorKind::StorageFull).is_input());
        assert!(!error("create", io::ErrorKind::PermissionDenied).is_input());
    }

    #[test]
    fn a_folder_a_student_locked_is_removed_all_the_same() {
        let scratch = Scratch::new("test").unwrap();
        let locked = scratch.path().join("a/b");
        std::fs::create_dir_all(&locked).unwrap();
        std::fs::write(locked.join("f"), "x").unwrap();
        std::fs::set_permissions(scratch.path().join("a"), std::fs::Permissions::from_mode(0o000)).unwrap();
        let path = scratch.path().to_path_buf();
        drop(scratch);
        assert!(!path.exists());
    }

    #[test]
    fn scratch_folders_are_private() {
        let scratch = Scratch::new("test").unwrap();
        let mode = std::fs::metadata(scratch.path()).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
    }

    #[test]
    fn folders_of_dead_graders_are_swept() {
        // A process id far above any pid_max is never running.
        let stale = std::env::temp_dir().join("treegrade-run-4194999999-test");
        std::fs::create_dir_all(stale.join("x")).unwrap();
        std::fs::set_permissions(stale.join("x"), std::fs::Permissions::from_mode(0o000)).unwrap();
        sweep_stale();
        assert!(!stale.exists());
        assert_eq!(owner_pid("treegrade-run-123-abc"), Some(123));
        assert_eq!(owner_pid("treegrade-kits-abc"), None);
        assert_eq!(owner_pid("other-run-123-abc"), None);
    }

    #[test]
    fn a_huge_folder_is_refused_not_copied() {
        let source = tempfile::tempdir().unwrap();
        let big = std::fs::File::create(source.path().join("big")).unwrap();
        big.set_len(MAX_STAGED_BYTES + 1).unwrap();
        let scratch = Scratch::new("test").unwrap();
        let error = stage(source.path(), &scratch.path().join("copy"), None).unwrap_err();
        assert!(error.to_string().contains("at most"), "{error}");
    }

    #[test]
    fn virtual_environments_and_build_output_are_not_copied() {
        let source = tempfile::tempdir().unwrap();
        std::fs::write(source.path().join("search.py"), "print(1)").unwrap();
        for skipped in [".venv/lib", "target/release", ".git/objects"] {
            std::fs::create_dir_all(source.path().join(skipped)).unwrap();
            std::fs::write(source.path().join(skipped).join("f"), "x").unwrap();
        }
        let scratch = Scratch::new("test").unwrap();
        let copy = scratch.path().join("copy");
        stage(source.path(), &copy, None).unwrap();
        let names: Vec<String> =
            std::fs::read_dir(&copy).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        assert_eq!(names, ["search.py"]);
    }
}
