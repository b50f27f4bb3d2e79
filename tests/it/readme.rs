//! The README's examples cannot rot: every `treegrade` command in its `sh`
//! code blocks (and the Quick start's `cargo run --release --` form) is run
//! against the bundled files, in a scratch folder laid out like a checkout,
//! and must do its job: no usage or input error (exit 2), no panic, and for
//! the documented results, the documented result.

use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::Command;

use crate::common::{Scratch, repo};

/// The README's commands, in order, with their comments removed.
fn readme_commands() -> Vec<String> {
    let readme = std::fs::read_to_string(repo().join("README.md")).expect("README.md is readable");
    let mut commands = Vec::new();
    let mut in_shell_block = false;
    for line in readme.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with("```") {
            in_shell_block = trimmed == "```sh";
            continue;
        }
        if !in_shell_block {
            continue;
        }
        let command = trimmed.split(" #").next().unwrap_or("").trim();
        let command = command.strip_prefix("cargo run --release -- ").map(|rest| format!("treegrade {rest}"));
        let command = command.unwrap_or_else(|| trimmed.split(" #").next().unwrap_or("").trim().to_string());
        if command.starts_with("treegrade ") {
            commands.push(command);
        }
    }
    commands
}

/// A folder laid out like a checkout for the commands: the bundled trees,
/// references and assignment, a class of two submissions, and CS188's tests
/// where the README's placeholder path names them.
fn checkout_like(scratch: &Scratch) -> PathBuf {
    let root = scratch.path().to_path_buf();
    for entry in ["test-cases", "reference", "assignments", "grader"] {
        copy_dir(&repo().join(entry), &root.join(entry));
    }
    for student in ["alice", "bob"] {
        copy_dir(&repo().join("reference/python"), &root.join("submissions").join(student));
    }
    let cs188 = repo().join("../shared/cs188-project");
    let placeholder = root.join("path/to/cs188/multiagent");
    if cs188.is_dir() {
        copy_dir(&cs188, &placeholder);
    } else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI needs ../shared/cs188-project for the README's import example"
        );
        copy_dir(&repo().join("tests/fixtures/cs188/good"), &placeholder);
    }
    root
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        let kind = entry.file_type().unwrap();
        if kind.is_dir() && entry.file_name() != "target" && entry.file_name() != "__pycache__" {
            copy_dir(&entry.path(), &target);
        } else if kind.is_file() {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn run(root: &Path, command: &str) -> Output {
    let words: Vec<&str> = command.split_whitespace().skip(1).collect();
    Command::cargo_bin("treegrade")
        .unwrap()
        .current_dir(root)
        .env("NO_COLOR", "1")
        .env_remove("TREEGRADE_ASSIGNMENT")
        .args(&words)
        .output()
        .unwrap()
}

/// The exit status a README command must have: `check` of a submission that
/// is not finished fails its tests (1); everything else succeeds (0).
fn expected_status(command: &str) -> i32 {
    let grades_unfinished_work =
        command.contains("check") && (command.contains("my-search") || command.contains("my-games"));
    if grades_unfinished_work { 1 } else { 0 }
}

/// `gradescope` refuses to pack a treegrade that needs a newer glibc than
/// Gradescope's Ubuntu 20.04 (2.31), as a test build on a newer system
/// does; the refusal must be that one, and the command must then work for
/// an image with this machine's glibc.
fn packaged(root: &Path, command: &str, output: Output) -> Output {
    let stderr = String::from_utf8_lossy(&output.stderr);
    if output.status.code() != Some(2) || !stderr.contains("newer than the image's 2.31") {
        return output;
    }
    let host = std::process::Command::new("getconf").arg("GNU_LIBC_VERSION").output().unwrap();
    let host = String::from_utf8_lossy(&host.stdout).split_whitespace().nth(1).unwrap().to_string();
    run(root, &format!("{command} --glibc {host}"))
}

#[test]
fn every_readme_command_runs() {
    let commands = readme_commands();
    assert!(commands.len() >= 12, "the README's examples were not found: {commands:?}");
    let scratch = Scratch::new();
    let root = checkout_like(&scratch);
    for command in &commands {
        let output = run(&root, command);
        let output =
            if command.starts_with("treegrade gradescope") { packaged(&root, command, output) } else { output };
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(
            output.status.code(),
            Some(expected_status(command)),
            "README command `{command}` failed:\n{stdout}\n{stderr}"
        );
        assert!(!stderr.contains("panicked"), "README command `{command}` panicked:\n{stderr}");
    }
}

#[test]
fn the_quick_start_grades_the_reference_to_full_marks() {
    let commands = readme_commands();
    let quick_start = commands.first().expect("the README has a Quick start command");
    assert_eq!(quick_start, "treegrade check --submission reference/python");
    let scratch = Scratch::new();
    let output = run(&checkout_like(&scratch), quick_start);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("Total: 20/20"), "{stdout}");
}
