//! Which assignment a command grades, resolved the same way by every
//! command: `--assignment DIR` (or the name of a bundled assignment,
//! `games`), then `$TREEGRADE_ASSIGNMENT`, then an
//! `assignment.yaml` in the current folder, then the bundled assignment
//! (embedded in the binary, unpacked for the command's lifetime).

use std::path::{Path, PathBuf};

use super::Failure;
use crate::bundled::Bundled;

/// The environment variable naming a course's assignment folder.
pub const ASSIGNMENT_VARIABLE: &str = "TREEGRADE_ASSIGNMENT";

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
        if let Some(dir) = flag {
            // A bundled assignment's name (`games`), unless a folder has that name.
            if let Some(name) = dir.to_str().filter(|name| crate::bundled::NAMES.contains(name) && !dir.exists()) {
                return AssignmentSource::bundled_named(name);
            }
            return Ok(AssignmentSource::folder(dir));
        }
        if let Some(dir) = std::env::var_os(ASSIGNMENT_VARIABLE).filter(|dir| !dir.is_empty()) {
            return Ok(AssignmentSource::folder(Path::new(&dir)));
        }
        if Path::new(crate::load::assignment::ASSIGNMENT_FILE).is_file() {
            return Ok(AssignmentSource::folder(Path::new(".")));
        }
        AssignmentSource::bundled()
    }

    /// The bundled assignment, unpacked.
    pub fn bundled() -> Result<AssignmentSource, Failure> {
        let bundle = Bundled::unpack()
            .map_err(|error| Failure::Usage(format!("cannot unpack the bundled assignment: {error}")))?;
        Ok(AssignmentSource { dir: bundle.assignment_dir(), _bundle: Some(bundle) })
    }

    /// The bundled assignment called `name`, unpacked.
    pub fn bundled_named(name: &str) -> Result<AssignmentSource, Failure> {
        let bundle = Bundled::unpack()
            .map_err(|error| Failure::Usage(format!("cannot unpack the bundled assignment: {error}")))?;
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
