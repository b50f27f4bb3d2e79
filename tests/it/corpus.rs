//! The diagnosis on a corpus of buggy student programs it was not written
//! from (`tests/fixtures/corpus/`, see its README): several authors, each
//! in a style of their own, each program making one mistake named in its
//! `BUG` file. The diagnosis was tuned on the `tuned` half only; the
//! `measured` half is graded here as it was first measured. On both it must
//! name the mistake on most failed tests, and a wrong one on almost none.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

use crate::common::repo;

/// How the diagnosis did on the failed tests of a set of programs.
#[derive(Debug, Default)]
struct Tally {
    failed: usize,
    right: usize,
    wrong: Vec<String>,
}

impl Tally {
    fn percent(&self, count: usize) -> f64 {
        100.0 * count as f64 / self.failed.max(1) as f64
    }
}

/// Each author's folder of programs in `half`.
fn authors(half: &str) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(repo().join("tests/fixtures/corpus").join(half))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_dir())
        .collect();
    found.sort();
    found
}

/// Grades every program of an author's folder with `treegrade batch` (the
/// instructor's full reports, hidden tests included) and tallies the
/// diagnoses against each `BUG`; correct programs must get full marks and
/// buggy ones lose points.
fn grade_author(author: &Path, tally: &mut Tally) {
    let out = tempfile::tempdir().unwrap();
    let output = Command::cargo_bin("treegrade")
        .unwrap()
        .env("CI", "true")
        .env_remove("TREEGRADE_ASSIGNMENT")
        .args(["batch".as_ref(), author.as_os_str(), "--out".as_ref(), out.path().as_os_str()])
        .args(["--jobs", "2"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    for program in std::fs::read_dir(author).unwrap().map(|entry| entry.unwrap().path()).filter(|p| p.is_dir()) {
        let name = program.file_name().unwrap().to_string_lossy().into_owned();
        let bug = std::fs::read_to_string(program.join("BUG")).unwrap().trim().to_string();
        let report = out.path().join("instructor").join(&name).join("instructor-report.json");
        let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
        let (score, max) = (report["score"].as_f64().unwrap(), report["max_score"].as_f64().unwrap());
        if bug == "correct" {
            assert_eq!(score, max, "{name}: a correct program gets full marks");
            continue;
        }
        assert!(score < max, "{name} ({bug}) loses points");
        for test in report["questions"].as_array().unwrap().iter().flat_map(|q| q["tests"].as_array().unwrap()) {
            if test["status"] != "failed" {
                continue;
            }
            tally.failed += 1;
            let diagnosis = &test["diagnosis"];
            let named: Vec<&str> = std::iter::once(&diagnosis["bug"])
                .chain(diagnosis["alternatives"].as_array().into_iter().flatten())
                .filter_map(serde_json::Value::as_str)
                .collect();
            if named.contains(&bug.as_str()) {
                tally.right += 1;
            } else if !named.is_empty() {
                tally.wrong.push(format!("{name} ({bug}) {}: {named:?}", test["name"]));
            }
        }
    }
}

fn tally(half: &str) -> Tally {
    let mut tally = Tally::default();
    for author in authors(half) {
        grade_author(&author, &mut tally);
    }
    tally
}

#[test]
fn the_diagnosis_names_the_mistakes_of_programs_it_was_tuned_on() {
    let tally = tally("tuned");
    assert!(tally.failed > 900, "{tally:?}");
    assert!(tally.percent(tally.right) >= 95.0, "right {:.1}%: {tally:?}", tally.percent(tally.right));
    assert!(tally.percent(tally.wrong.len()) <= 1.0, "wrong: {:#?}", tally.wrong);
}

#[test]
fn the_diagnosis_names_the_mistakes_of_programs_it_was_not_tuned_on() {
    let tally = tally("measured");
    assert!(tally.failed > 1000, "{tally:?}");
    assert!(tally.percent(tally.right) >= 80.0, "right {:.1}%: {tally:?}", tally.percent(tally.right));
    assert!(tally.percent(tally.wrong.len()) <= 1.0, "wrong: {:#?}", tally.wrong);
}
