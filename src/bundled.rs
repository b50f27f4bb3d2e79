//! The bundled assignment, inside the binary.
//!
//! `check`, `init`, `batch` and `gradescope` fall back on it when no
//! assignment is named, so that an installed treegrade (a wheel, a
//! `cargo install`) works from any folder with nothing else on disk. It is
//! unpacked into a private temporary folder with the same layout as in the
//! repository (the assignment reads its trees through `tests_dir:
//! ../../test-cases`), which lives as long as the [`Bundled`] value.

use std::io;
use std::path::PathBuf;

include!(concat!(env!("OUT_DIR"), "/bundled.rs"));

/// The default assignment's folder, relative to the unpacked root.
pub const ASSIGNMENT: &str = "assignments/adversarial-search";

/// The bundled assignments by the names `--assignment` takes: the default
/// one first.
pub const NAMES: [&str; 3] = ["adversarial-search", "games", "more-searches"];

/// The bundled assignment, unpacked; removed when dropped.
#[derive(Debug)]
pub struct Bundled {
    root: tempfile::TempDir,
}

impl Bundled {
    /// Unpacks every bundled file into a fresh private folder.
    pub fn unpack() -> io::Result<Bundled> {
        let root = tempfile::Builder::new().prefix("treegrade-assignment-").tempdir()?;
        for (name, bytes) in FILES {
            let path = root.path().join(name);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(&path, bytes)?;
        }
        Ok(Bundled { root })
    }

    /// The default assignment's folder (holding `assignment.yaml`).
    pub fn assignment_dir(&self) -> PathBuf {
        self.root.path().join(ASSIGNMENT)
    }

    /// The folder of the bundled assignment called `name` (one of [`NAMES`]).
    pub fn named_dir(&self, name: &str) -> PathBuf {
        self.root.path().join("assignments").join(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundle_holds_the_assignment_its_handout_starters_and_trees() {
        let names: Vec<&str> = FILES.iter().map(|(name, _)| *name).collect();
        for expected in [
            "assignments/adversarial-search/assignment.yaml",
            "assignments/adversarial-search/README.md",
            "assignments/adversarial-search/starter/python/search.py",
            "test-cases/aima-fig5-2.yaml",
        ] {
            assert!(names.contains(&expected), "{expected} is bundled: {names:?}");
        }
        let bundled = Bundled::unpack().unwrap();
        let loaded = crate::load::assignment::load_assignment(&bundled.assignment_dir()).expect("it loads unpacked");
        assert_eq!(loaded.questions.len(), 4);
        let games = crate::load::assignment::load_assignment(&bundled.named_dir("games")).expect("games loads");
        assert_eq!(games.name, "games");
        let more = crate::load::assignment::load_assignment(&bundled.named_dir("more-searches")).expect("it loads");
        assert_eq!(more.questions.len(), 6);
    }
}
