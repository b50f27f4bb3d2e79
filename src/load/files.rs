//! Which files are YAML, and what each holds: an assignment, a Pacman test,
//! a call test or a tree (written, or given by a game), so that callers such as
//! `treegrade validate` choose a loader without reading YAML themselves.

use std::io;
use std::path::{Path, PathBuf};

use super::assignment::is_assignment_file;
use super::pacman::is_pacman_file;

/// What a YAML file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    /// An assignment: named `assignment.yaml`, or with a `questions` key.
    Assignment,
    /// A Pacman test (docs/format.md 10): a top-level `pacman` key.
    Pacman,
    /// A call test (docs/format.md 11): top-level `call` and `check` keys.
    Call,
    /// A tree, written node by node or given by a game (or a file that
    /// does not read: the tree loader then says what is wrong).
    Tree,
}

/// What `file` holds.
pub fn kind_of(file: &Path) -> FileKind {
    if is_assignment_file(file) {
        FileKind::Assignment
    } else if is_pacman(file) {
        FileKind::Pacman
    } else if is_call(file) {
        FileKind::Call
    } else {
        FileKind::Tree
    }
}

/// Whether `file` holds a Pacman test (a file that cannot be read does not).
pub fn is_pacman(file: &Path) -> bool {
    std::fs::read_to_string(file).is_ok_and(|text| is_pacman_file(&text))
}

/// Whether `file` holds a call test (a file that cannot be read does not).
pub fn is_call(file: &Path) -> bool {
    std::fs::read_to_string(file).is_ok_and(|text| super::calls::is_call_file(&text))
}

/// The YAML files (`*.yaml`, `*.yml`) directly in `dir`, sorted.
pub fn yaml_files(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| matches!(path.extension().and_then(|e| e.to_str()), Some("yaml" | "yml")))
        .collect();
    found.sort();
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_told_apart_by_what_they_hold() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            path
        };
        assert_eq!(kind_of(&write("course.yml", "title: A\nquestions: []\n")), FileKind::Assignment);
        assert_eq!(kind_of(&write("assignment.yaml", "not: read\n")), FileKind::Assignment);
        assert_eq!(kind_of(&write("p.yaml", "name: x\npacman:\n  layout: a\n")), FileKind::Pacman);
        assert_eq!(kind_of(&write("t.yaml", "root: {kind: max}\n")), FileKind::Tree);
        assert_eq!(kind_of(&write("c.yaml", "call: {variable: A}\ncheck: {equals: 1}\n")), FileKind::Call);
        assert_eq!(kind_of(&dir.path().join("missing.yaml")), FileKind::Tree);
        write("notes.txt", "questions: []\n");
        let names: Vec<String> = yaml_files(dir.path())
            .unwrap()
            .iter()
            .map(|path| path.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["assignment.yaml", "c.yaml", "course.yml", "p.yaml", "t.yaml"]);
    }
}
