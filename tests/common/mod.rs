//! Helpers shared by the integration tests.

#![allow(dead_code)] // each test file uses its own subset

use std::path::{Path, PathBuf};

use tempfile::TempDir;

/// The example of the format contract (docs/format.md section 1), as a file.
pub const FORMAT_EXAMPLE: &str = include_str!("../../test-cases/mixed-example.yaml");

/// The repository's root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A temporary folder to write files into; removed when dropped.
pub struct Scratch {
    dir: TempDir,
}

impl Scratch {
    /// A fresh empty folder.
    pub fn new() -> Scratch {
        Scratch { dir: tempfile::tempdir().expect("a temporary folder") }
    }

    /// Writes `text` to `name` inside the folder and returns its path.
    pub fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.dir.path().join(name);
        std::fs::write(&path, text).expect("write a file");
        path
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}
