//! The MIT 6.034 kit's named fixtures: a course made by `treegrade import
//! mit6034` gives the lab's boards and trees as JSON in
//! `TREEGRADE_MIT6034_FIXTURES` (a sandboxed program sees no course folder),
//! and a student's file that names one at import time (`NEARLY_OVER` in a
//! module-level test of their own, as real lab files do) must find it.

use std::process::Command;

use crate::common::repo;

/// What `python3 -c CODE` prints with the kit on its path and `fixtures` in
/// the environment; `None` where python3 is missing.
fn run_kit(code: &str, fixtures: &str) -> Option<String> {
    let kit = repo().join("grader/kits/mit6034");
    let output = Command::new("python3")
        .args(["-S", "-c", code])
        .env("PYTHONPATH", &kit)
        .env("TREEGRADE_MIT6034_FIXTURES", fixtures)
        .output()
        .ok()?;
    assert!(output.status.success(), "the kit failed: {}", String::from_utf8_lossy(&output.stderr));
    Some(String::from_utf8_lossy(&output.stdout).into_owned())
}

#[test]
fn fixtures_given_as_json_in_the_environment_are_importable_names() {
    let fixtures = r#"{"boards": {"NEARLY_OVER": {"rows": [[0,0,0,0,0,0,0],[0,0,0,0,0,0,0],[0,0,0,0,0,0,0],
        [0,0,0,0,0,0,0],[0,0,0,0,0,0,0],[0,0,0,1,2,0,0]], "players": ["Player One", "Player Two"]}},
        "trees": {"GAME1": {"label": "A", "score": null, "children": []}}}"#;
    let code = "from boards import *\nfrom toytree import GAME1\n\
                print(NEARLY_OVER.count_pieces(), GAME1.get_snapshot().label)";
    match run_kit(code, fixtures) {
        Some(printed) => assert_eq!(printed.trim(), "2 A"),
        None => crate::common::unavailable("python3"),
    }
}
