//! Which assignment a command grades, resolved the same way by every
//! command: `--assignment DIR` (or the name of a bundled assignment,
//! `games`), then `$TREEGRADE_ASSIGNMENT`, then an
//! `assignment.yaml` in the current folder, then (for `check`) the
//! assignment the submission folder names in [`MARKER_FILE`], which `init`
//! writes, then the bundled assignment (embedded in the binary, unpacked
//! for the command's lifetime).

use std::path::{Path, PathBuf};

use super::Failure;
use crate::bundled::Bundled;

/// The environment variable naming a course's assignment folder.
pub const ASSIGNMENT_VARIABLE: &str = "TREEGRADE_ASSIGNMENT";

/// The file `init` writes into a student's folder: one line naming the
/// folder's assignment (a bundled assignment's name, or a folder's absolute
/// path), so that `check` in that folder grades the assignment it was set
/// up for.
pub const MARKER_FILE: &str = ".treegrade-assignment";

/// An assignment folder, and the unpacked bundle it lives in when it is the
/// bundled one (removed when this is dropped).
#[derive(Debug)]
pub struct AssignmentSource {
    dir: PathBuf,
    _bundle: Option<Bundled>,
}

impl AssignmentSource {
    /// Resolves the assignment of a command given `flag` (`--assignment`).
    pub fn resolve(flag: Option<&Path>) -> Result<AssignmentSource, Failure> {
        AssignmentSource::resolve_for(flag, None)
    }

    /// Resolves the assignment of `check`, which grades `submission`: the
    /// assignment its [`MARKER_FILE`] names comes after `./assignment.yaml`
    /// and before the bundled one.
    pub fn resolve_for(flag: Option<&Path>, submission: Option<&Path>) -> Result<AssignmentSource, Failure> {
        if let Some(dir) = flag {
            // A bundled assignment's name (`games`), unless a folder has that name.
            if let Some(name) = dir.to_str().filter(|name| crate::bundled::NAMES.contains(name) && !dir.exists()) {
                return AssignmentSource::bundled_named(name);
            }
            if !dir.exists() {
                return Err(Failure::Usage(format!(
                    "no assignment `{}`: it is neither a folder nor a bundled assignment (the bundled ones are {})",
                    dir.display(),
                    crate::bundled::NAMES.join(", ")
                )));
            }
            return Ok(AssignmentSource::folder(dir));
        }
        if let Some(dir) = std::env::var_os(ASSIGNMENT_VARIABLE).filter(|dir| !dir.is_empty()) {
            return Ok(AssignmentSource::folder(Path::new(&dir)));
        }
        if Path::new(crate::load::assignment::ASSIGNMENT_FILE).is_file() {
            return Ok(AssignmentSource::folder(Path::new(".")));
        }
        if let Some(named) = submission.and_then(read_marker) {
            return AssignmentSource::named_by_marker(&named, submission.unwrap_or(Path::new(".")));
        }
        AssignmentSource::bundled()
    }

    /// The assignment a submission's marker names.
    fn named_by_marker(named: &str, submission: &Path) -> Result<AssignmentSource, Failure> {
        if crate::bundled::NAMES.contains(&named) {
            return AssignmentSource::bundled_named(named);
        }
        let dir = Path::new(named);
        if !dir.join(crate::load::assignment::ASSIGNMENT_FILE).is_file() {
            return Err(Failure::Usage(format!(
                "{} names the assignment {named}, which is neither a bundled assignment ({}) nor a folder \
                 holding assignment.yaml; name the assignment with --assignment",
                submission.join(MARKER_FILE).display(),
                crate::bundled::NAMES.join(", ")
            )));
        }
        Ok(AssignmentSource::folder(dir))
    }

    /// What `init` writes into [`MARKER_FILE`]: the bundled assignment's
    /// name, or the folder's absolute path.
    pub fn marker(&self) -> String {
        let named = match (&self._bundle, self.dir.file_name()) {
            (Some(_), Some(name)) => name.to_string_lossy().into_owned(),
            _ => std::path::absolute(&self.dir).unwrap_or_else(|_| self.dir.clone()).display().to_string(),
        };
        format!("{named}\n")
    }

    /// The bundled assignment, unpacked.
    pub fn bundled() -> Result<AssignmentSource, Failure> {
        let bundle =
            Bundled::unpack().map_err(|error| Failure::runtime("cannot unpack the bundled assignment", error))?;
        Ok(AssignmentSource { dir: bundle.assignment_dir(), _bundle: Some(bundle) })
    }

    /// The bundled assignment called `name`, unpacked.
    pub fn bundled_named(name: &str) -> Result<AssignmentSource, Failure> {
        let bundle =
            Bundled::unpack().map_err(|error| Failure::runtime("cannot unpack the bundled assignment", error))?;
        Ok(AssignmentSource { dir: bundle.named_dir(name), _bundle: Some(bundle) })
    }

    fn folder(dir: &Path) -> AssignmentSource {
        AssignmentSource { dir: dir.to_path_buf(), _bundle: None }
    }

    /// The folder holding `assignment.yaml`.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

/// The assignment a submission folder's [`MARKER_FILE`] names, if it has one.
fn read_marker(submission: &Path) -> Option<String> {
    let text = std::fs::read_to_string(submission.join(MARKER_FILE)).ok()?;
    let named = text.lines().next()?.trim();
    (!named.is_empty()).then(|| named.to_string())
}
