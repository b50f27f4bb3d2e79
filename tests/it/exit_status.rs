//! Each exit status from the outside, as README's "Exit status", `--help`
//! and the manual page list them: 0 done, 1 a check failed, 2 a usage or
//! input error, 3 a runtime failure (printed with its cause chain). 130, a
//! batch stopped by Ctrl-C, is tested in `batch.rs`
//! (`an_interrupted_batch_stops_at_once_and_says_how_to_go_on`).

use std::path::Path;
use std::process::Output;

use assert_cmd::Command;

use crate::common::{Scratch, repo};

fn treegrade(args: &[&str]) -> Output {
    let mut command = Command::cargo_bin("treegrade").unwrap();
    command.current_dir(repo()).env("NO_COLOR", "1").env_remove("TREEGRADE_ASSIGNMENT");
    command.args(args).output().unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A path whose parent is a regular file: nothing can be written there,
/// whoever runs the test (root included).
fn under_a_file(scratch: &Scratch, name: &str) -> String {
    let file = scratch.write("plain", "a file, not a folder\n");
    file.join(name).to_str().unwrap().to_string()
}

/// The error and its causes, as a runtime failure prints them.
fn assert_runtime_failure(output: &Output, what: &str) {
    let text = stderr(output);
    assert_eq!(output.status.code(), Some(3), "{text}");
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some(format!("error: {what}").as_str()), "{text}");
    let cause = lines.next().unwrap_or_default();
    assert!(cause.starts_with("  caused by: "), "the cause has a line of its own:\n{text}");
    if cfg!(target_os = "linux") {
        assert_eq!(cause, "  caused by: Not a directory (os error 20)", "{text}");
    }
}

#[test]
fn done_is_0() {
    let output = treegrade(&["solve", "test-cases/aima-fig5-2.yaml", "-a", "minimax"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
}

#[test]
fn a_failed_check_is_1() {
    let starter = "assignments/adversarial-search/starter/python";
    let output =
        treegrade(&["check", "--sandbox", "off", "-q", "q1", "--test", "aima-fig5-2", "--submission", starter]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
}

#[test]
fn usage_and_input_errors_are_2() {
    let flag = treegrade(&["solve", "test-cases/aima-fig5-2.yaml", "--no-such-flag"]);
    assert_eq!(flag.status.code(), Some(2), "{}", stderr(&flag));
    let missing = treegrade(&["solve", "no-such-tree.yaml", "-a", "minimax"]);
    assert_eq!(missing.status.code(), Some(2), "{}", stderr(&missing));
    let refused = treegrade(&["gen", "--seed", "1", "--ties", "2", "-o", "unused"]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(!Path::new("unused").exists() && !repo().join("unused").exists());
}

#[test]
fn an_output_folder_that_cannot_be_made_is_3_with_its_cause() {
    let scratch = Scratch::new();
    let out = under_a_file(&scratch, "trees");
    let output = treegrade(&["gen", "--seed", "1", "-o", &out]);
    assert_runtime_failure(&output, &format!("cannot create {out}"));
}

#[test]
fn an_output_file_that_cannot_be_written_is_3_with_its_cause() {
    let scratch = Scratch::new();
    let out = under_a_file(&scratch, "tree.svg");
    let output = treegrade(&["render", "test-cases/aima-fig5-2.yaml", "-a", "minimax", "-o", &out]);
    assert_runtime_failure(&output, &format!("cannot write {out}"));
    let report = under_a_file(&scratch, "report.txt");
    let reference = "reference/python";
    let args = ["check", "--sandbox", "off", "-q", "q1", "--test", "aima-fig5-2", "--submission", reference];
    let output = treegrade(&[&args[..], &["--output", &report]].concat());
    assert_runtime_failure(&output, &format!("cannot write {report}"));
}

/// `import mit6034` of the lab into `out`, where `in_the_way` (a file the
/// import writes) is already a folder, so that writing it fails; `None`
/// where the lab is missing (a failure under CI).
fn import_mit6034_blocked_at(in_the_way: &str) -> Option<(Output, String)> {
    let lab = repo().join("../shared/mit6034-lab3");
    if !lab.join("tests.py").is_file() {
        crate::common::unavailable(&format!("the MIT 6.034 lab at {}", lab.display()));
        return None;
    }
    let scratch = Scratch::new();
    let out = scratch.path().join("course");
    let blocked = out.join(in_the_way);
    std::fs::create_dir_all(&blocked).unwrap();
    let output = treegrade(&["import", "mit6034", lab.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    Some((output, blocked.display().to_string()))
}

/// A runtime failure printed after other lines: `error: {what}`, then its
/// cause on a line of its own (a folder where a file goes).
fn assert_runtime_failure_at_the_end(output: &Output, what: &str) {
    let text = stderr(output);
    assert_eq!(output.status.code(), Some(3), "{text}");
    let lines: Vec<&str> = text.lines().collect();
    let at = lines.iter().position(|line| line.starts_with("error: ")).unwrap_or_else(|| panic!("no error:\n{text}"));
    assert_eq!(lines[at], format!("error: {what}"), "{text}");
    let cause = lines.get(at + 1).copied().unwrap_or_default();
    assert!(cause.starts_with("  caused by: "), "the cause has a line of its own:\n{text}");
    if cfg!(target_os = "linux") {
        assert_eq!(cause, "  caused by: Is a directory (os error 21)", "{text}");
    }
}

#[test]
fn an_imported_test_that_cannot_be_written_stops_the_import_with_3() {
    let Some((output, blocked)) = import_mit6034_blocked_at("tests/01-is_game_over_connectfour.yaml") else { return };
    assert_runtime_failure_at_the_end(&output, &format!("cannot write {blocked}"));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(!stdout.contains("01-is_game_over_connectfour"), "not listed as a test that failed to convert:\n{stdout}");
}

#[test]
fn an_imported_course_that_cannot_be_written_is_3() {
    let Some((output, blocked)) = import_mit6034_blocked_at("assignment.yaml") else { return };
    assert_runtime_failure_at_the_end(&output, &format!("cannot write {blocked}"));
}

#[test]
fn a_cs188_test_that_cannot_be_written_stops_the_import_with_3() {
    let scratch = Scratch::new();
    let out = scratch.path().join("course");
    let blocked = out.join("tests/good-depth-limited.yaml");
    std::fs::create_dir_all(&blocked).unwrap();
    let output = treegrade(&["import", "cs188", "tests/fixtures/cs188/good", "-o", out.to_str().unwrap()]);
    assert_runtime_failure_at_the_end(&output, &format!("cannot write {}", blocked.display()));
    assert!(!out.join("assignment.yaml").exists(), "no course from an import that stopped");
}

#[test]
fn help_and_the_manual_page_list_every_exit_status() {
    for args in [&["--help"][..], &["man"]] {
        let text = String::from_utf8_lossy(&treegrade(args).stdout).into_owned();
        for status in [
            "  0    success",
            "  1    check, a test failed",
            "  2    a usage or input error",
            "  3    a runtime failure",
            "  130  batch",
        ] {
            assert!(text.contains(status), "{args:?} does not explain `{status}`:\n{text}");
        }
    }
}
