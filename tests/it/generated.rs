//! Per-student generated questions: each student gets their own trees,
//! derived from their id and the course's secret.

use std::path::PathBuf;

use assert_cmd::Command;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The JSON report of checking the Python reference as `student` with `secret`.
fn report(student: &str, secret: &str) -> serde_json::Value {
    let output = Command::cargo_bin("treegrade")
        .unwrap()
        .current_dir(repo())
        .env("TREEGRADE_SECRET", secret)
        .args(["check", "--assignment", "assignments/per-student-trees", "--submission", "reference/python"])
        .args(["--student", student, "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).unwrap()
}

/// The expected visited orders of the generated tests.
fn generated_orders(report: &serde_json::Value) -> Vec<serde_json::Value> {
    let tests = report["questions"][1]["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 4);
    tests.iter().map(|t| t["expected"]["visited"].clone()).collect()
}

#[test]
fn each_student_gets_their_own_reproducible_trees() {
    let alice = report("alice", "course-secret");
    assert_eq!(alice["score"], 10.0, "the reference passes generated trees too");
    assert_eq!(alice["questions"][1]["tests"][0]["name"], "q2/generated-1");
    let alice_again = report("alice", "course-secret");
    let bob = report("bob", "course-secret");
    assert_eq!(generated_orders(&alice), generated_orders(&alice_again), "reproducible");
    assert_ne!(generated_orders(&alice), generated_orders(&bob), "every student has their own trees");
}

#[test]
fn without_the_secret_a_student_gets_practice_trees() {
    let graded = report("alice", "course-secret");
    let practice = report("alice", "");
    assert_ne!(generated_orders(&graded), generated_orders(&practice));
}

#[test]
fn a_broken_searcher_fails_its_generated_trees() {
    let scratch = tempfile::tempdir().unwrap();
    let reference = std::fs::read_to_string(repo().join("reference/python/search.py")).unwrap();
    let broken = reference.replace("return high >= low if game.prune_on_equal else high > low", "return high >= low");
    std::fs::write(scratch.path().join("search.py"), broken).unwrap();
    let output = Command::cargo_bin("treegrade")
        .unwrap()
        .current_dir(repo())
        .env("TREEGRADE_SECRET", "course-secret")
        .args(["check", "--assignment", "assignments/per-student-trees", "--student", "carol", "--format", "json"])
        .arg("--submission")
        .arg(scratch.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let generated = report["questions"][1]["tests"].as_array().unwrap();
    // Discriminating trees: pruning on equality changes every one of them.
    for test in generated {
        assert_eq!(test["status"], "failed", "{}", test["name"]);
        assert_eq!(test["diagnosis"]["bug"], "prune-on-equal", "{}", test["name"]);
    }
}
