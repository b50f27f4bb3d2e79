//! The step-through of the HTML report, driven in a real browser: Debian's
//! Chromium through `playwright-core` (`tests/browser/stepper.mjs`). The
//! report is a broken alpha-beta's (it never prunes); the script presses the
//! keys and buttons and checks the ringed node in each pane, the window in
//! the panel and the pruned subtrees, and saves screenshots in
//! `target/browser-shots/` for a person to look at.

use std::process::Command;

use crate::common::{repo, unavailable};

#[test]
fn the_step_through_works_by_keyboard_and_buttons_in_chromium() {
    let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".to_string());
    let playwright = repo().join("tests/browser/node_modules/playwright-core");
    let has_node = Command::new("node").arg("--version").output().is_ok_and(|o| o.status.success());
    if !has_node || !playwright.is_dir() || !std::path::Path::new(&chromium).exists() {
        unavailable("Node.js, Chromium and playwright-core (npm ci --prefix tests/browser)");
        return;
    }
    let scratch = tempfile::tempdir().unwrap();
    let report = scratch.path().join("report.html");
    let graded = assert_cmd::Command::cargo_bin("treegrade")
        .unwrap()
        .current_dir(repo())
        .env_remove("TREEGRADE_ASSIGNMENT")
        .args(["check", "--submission", "tests/fixtures/students/broken-onefunc-no-pruning", "-q", "q2"])
        .args(["--format", "html", "--output"])
        .arg(&report)
        .output()
        .unwrap();
    assert_eq!(graded.status.code(), Some(1), "{}", String::from_utf8_lossy(&graded.stderr));
    let shots = repo().join("target/browser-shots");
    let output = Command::new("node")
        .current_dir(repo().join("tests/browser"))
        .arg("stepper.mjs")
        .arg(&report)
        .arg(&shots)
        .env("CHROMIUM", &chromium)
        .output()
        .unwrap();
    let said = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    eprintln!("{said}");
    assert_eq!(output.status.code(), Some(0), "{said}");
    assert!(said.matches("ok: ").count() >= 12 && !said.contains("FAILED"), "{said}");
    for shot in ["1-first-step.png", "2-first-difference.png", "3-last-step.png"] {
        assert!(shots.join(shot).metadata().is_ok_and(|m| m.len() > 10_000), "{shot} was saved");
    }
}
