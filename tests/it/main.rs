//! The integration tests, as one test binary: one link instead of one per
//! file, so a change rebuilds the suite once. Each file is a module; every
//! `.rs` file in this folder must be declared below (checked by
//! `every_test_file_is_compiled`, so none is silently forgotten).
//!
//! The hostile-submission suite (`tests/sandbox.rs`) is a binary of its own:
//! it takes the machine for itself at times (a fork bomb, an output flood),
//! and CI runs it again as a normal user and without landlock.

mod architecture;
mod batch;
mod browser;
mod budget;
mod check_cli;
mod cli;
mod common;
mod corpus;
mod cross_check;
mod cs188;
mod cs188_students;
mod exit_status;
mod failures;
mod games;
mod gen_cli;
mod generated;
mod grader;
mod gradescope;
mod mit6034;
mod mit6034_calls;
mod mit6034_fixtures;
mod mit6034_verdict;
mod more_grading;
mod more_searches;
mod mutants;
mod pacman;
mod play;
mod points;
mod readme;
mod render;
mod reports;
mod snapshots;
mod students;
mod tournament;
mod typed_errors;

/// Every `.rs` file of `tests/it` is a module of this binary, and the only
/// other test target is the hostile suite.
#[test]
fn every_test_file_is_compiled() {
    let root = common::repo().join("tests");
    let declared: Vec<String> = include_str!("main.rs")
        .lines()
        .filter_map(|line| line.strip_prefix("mod ")?.strip_suffix(';').map(str::to_string))
        .collect();
    for entry in std::fs::read_dir(root.join("it")).expect("tests/it is readable") {
        let path = entry.expect("a directory entry").path();
        let Some(stem) = path.file_stem().and_then(|stem| stem.to_str()) else { continue };
        if path.extension().is_some_and(|ext| ext == "rs") && stem != "main" {
            assert!(declared.iter().any(|module| module == stem), "tests/it/{stem}.rs is not declared in main.rs");
        }
    }
    let mut binaries: Vec<String> = std::fs::read_dir(&root)
        .expect("tests is readable")
        .map(|entry| entry.expect("a directory entry").file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".rs"))
        .collect();
    binaries.sort();
    assert_eq!(binaries, ["sandbox.rs"], "integration tests belong in tests/it (one binary), not in tests/");
}
