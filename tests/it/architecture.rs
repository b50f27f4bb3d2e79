//! The layers of docs/architecture.md point one way: a lower layer never
//! names a higher one, and only the loader knows YAML. Checked on the
//! source text, so a new `use` that breaks the picture fails here.

use std::path::{Path, PathBuf};

use crate::common::repo;

/// Every `.rs` file under `path` (or `path` itself).
fn sources(path: &Path) -> Vec<PathBuf> {
    if path.is_file() {
        return vec![path.to_path_buf()];
    }
    let mut found = Vec::new();
    for entry in std::fs::read_dir(path).unwrap() {
        found.extend(sources(&entry.unwrap().path()));
    }
    found
}

/// Files of `layers` that name any of `higher` (in code, not in comments).
fn violations(layers: &[&str], higher: &[&str]) -> Vec<String> {
    let mut found = Vec::new();
    for layer in layers {
        for file in sources(&repo().join("src").join(layer)) {
            let text = std::fs::read_to_string(&file).unwrap();
            for (number, line) in text.lines().enumerate() {
                let code = line.split("//").next().unwrap_or_default();
                for name in higher {
                    if code.contains(name) {
                        found.push(format!("{}:{}: {}", file.display(), number + 1, line.trim()));
                    }
                }
            }
        }
    }
    found
}

#[test]
fn lower_layers_never_name_the_grader_or_above() {
    let lower = [
        "tree",
        "engine",
        "game",
        "play",
        "generator",
        "load",
        "assignment.rs",
        "points.rs",
        "shown.rs",
        "compare.rs",
        "stats.rs",
        "thresholds.rs",
    ];
    let higher = [
        "crate::grader",
        "crate::report",
        "crate::batch",
        "crate::tournament",
        "crate::cli",
        "crate::package",
        "crate::render",
    ];
    let found = violations(&lower, &higher);
    assert!(found.is_empty(), "a lower layer names a higher one:\n{}", found.join("\n"));
}

#[test]
fn only_the_loader_knows_yaml() {
    let others =
        ["tree", "engine", "game", "play", "generator", "grader", "report", "batch", "render", "assignment.rs"];
    let found = violations(&others, &["serde_saphyr"]);
    assert!(found.is_empty(), "YAML outside src/load:\n{}", found.join("\n"));
}

/// The tree layer and the engine know trees only; games sit above them and
/// reach the engine through the `GameTree` seam.
#[test]
fn the_engine_and_the_tree_model_know_no_game() {
    let found = violations(&["tree", "engine"], &["crate::game", "crate::load"]);
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// A course's own knowledge (CS188's mistakes and wording) lives with its
/// importer, not in the engine or the tree model.
#[test]
fn the_engine_and_the_tree_model_know_no_course() {
    let found = violations(&["tree", "engine"], &["CS188", "cs188", "getAction", "crate::import"]);
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// The grader grades and plays; tournaments are built on it, never the other way.
#[test]
fn the_grader_knows_no_tournament() {
    let found = violations(&["grader", "report", "batch"], &["crate::tournament", "crate::cli"]);
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn reports_only_read_results() {
    let found = violations(&["report"], &["crate::batch", "crate::cli", "crate::package"]);
    assert!(found.is_empty(), "{}", found.join("\n"));
}
