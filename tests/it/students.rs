//! Student programs written the way students write them
//! (`tests/fixtures/students/`, see its README), graded on the bundled
//! assignment: no correct one loses a point, whatever its style or
//! language, and no broken one keeps full marks, through `check` and
//! through `batch`.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

use crate::common::repo;

fn students() -> PathBuf {
    repo().join("tests/fixtures/students")
}

/// Every fixture folder, `correct-*` and `broken-*`.
fn fixtures(prefix: &str) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(students())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_dir() && path.file_name().unwrap().to_string_lossy().starts_with(prefix))
        .collect();
    found.sort();
    found
}

/// One fixture graded by `treegrade check --format json`.
struct Graded {
    dir: PathBuf,
    status: Option<i32>,
    report: serde_json::Value,
}

impl Graded {
    fn score(&self) -> f64 {
        self.report["score"].as_f64().unwrap()
    }

    fn max_score(&self) -> f64 {
        self.report["max_score"].as_f64().unwrap()
    }

    /// The mistake its `BUG` file names (`correct` for a correct one).
    fn bug(&self) -> String {
        std::fs::read_to_string(self.dir.join("BUG")).unwrap_or_default().trim().to_string()
    }
}

/// Every fixture, graded once for all the tests of this module (two at a
/// time: each grading runs one program at a time).
fn graded() -> &'static [Graded] {
    static GRADED: std::sync::OnceLock<Vec<Graded>> = std::sync::OnceLock::new();
    GRADED.get_or_init(|| {
        let dirs: Vec<PathBuf> = fixtures("correct-").into_iter().chain(fixtures("broken-")).collect();
        let halves = dirs.split_at(dirs.len() / 2);
        std::thread::scope(|scope| {
            let first = scope.spawn(|| halves.0.iter().filter_map(|dir| check(dir)).collect::<Vec<_>>());
            let mut all = halves.1.iter().filter_map(|dir| check(dir)).collect::<Vec<_>>();
            all.splice(0..0, first.join().unwrap());
            all
        })
    })
}

/// `treegrade check --format json` of a folder; `None` for a JavaScript
/// program where Node.js is missing (a failure under CI).
fn check(dir: &Path) -> Option<Graded> {
    let mut command = Command::cargo_bin("treegrade").unwrap();
    command.env("NO_COLOR", "1").env_remove("TREEGRADE_ASSIGNMENT").arg("check").arg("--submission").arg(dir);
    command.args(["--format", "json"]);
    if dir.join("search.js").is_file() {
        let has_node = std::process::Command::new("node").arg("--version").output().is_ok_and(|o| o.status.success());
        assert!(has_node || std::env::var("CI").as_deref() != Ok("true"), "CI must install Node.js for {dir:?}");
        if !has_node {
            eprintln!("note: node is not installed; {} is not graded", dir.display());
            return None;
        }
        command.args(["--", "node", "search.js"]);
    }
    let output = command.output().unwrap();
    let report = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|error| panic!("{}: no JSON report ({error})", dir.display()));
    Some(Graded { dir: dir.to_path_buf(), status: output.status.code(), report })
}

#[test]
fn correct_programs_in_any_style_or_language_get_full_marks() {
    let correct: Vec<&Graded> = graded().iter().filter(|g| g.bug() == "correct").collect();
    assert!(correct.len() >= 5, "the correct fixtures shrank");
    for graded in correct {
        assert_eq!(graded.status, Some(0), "{}", graded.dir.display());
        assert_eq!(graded.score(), graded.max_score(), "{}", graded.dir.display());
    }
}

#[test]
fn broken_programs_never_keep_full_marks() {
    let broken: Vec<&Graded> = graded().iter().filter(|g| g.bug() != "correct").collect();
    assert!(broken.len() >= 25, "the broken fixtures shrank");
    for graded in broken {
        assert_eq!(graded.status, Some(1), "{}", graded.dir.display());
        assert!(graded.score() < graded.max_score(), "{} kept full marks", graded.dir.display());
    }
}

/// What the diagnosis said about each test a broken fixture failed: right
/// (its `BUG` is named, alone or among alternatives), wrong, or silent.
#[test]
fn the_diagnosis_names_the_right_mistake_and_almost_never_a_wrong_one() {
    let (mut failed, mut right, mut wrong) = (0usize, 0usize, Vec::new());
    for graded in graded().iter().filter(|g| g.bug() != "correct") {
        let bug = graded.bug();
        for question in graded.report["questions"].as_array().unwrap() {
            for test in question["tests"].as_array().unwrap().iter().filter(|t| t["status"] == "failed") {
                failed += 1;
                let diagnosis = &test["diagnosis"];
                if diagnosis.is_null() {
                    continue;
                }
                let named = diagnosis["bug"] == bug.as_str()
                    || diagnosis["alternatives"].as_array().is_some_and(|list| list.iter().any(|b| b == bug.as_str()));
                if named {
                    right += 1;
                } else {
                    wrong.push(format!("{}: {} named {}", graded.dir.display(), test["name"], diagnosis["bug"]));
                }
            }
        }
    }
    let percent = |count: usize| 100.0 * count as f64 / failed.max(1) as f64;
    eprintln!("diagnosis on {failed} failed tests: right {:.1}%, wrong {:.1}%", percent(right), percent(wrong.len()));
    assert!(failed >= 300, "the corpus shrank: {failed} failed tests");
    assert!(percent(right) >= 80.0, "right on {right} of {failed}");
    assert!(percent(wrong.len()) <= 1.0, "wrong on {} of {failed}: {wrong:#?}", wrong.len());
}

/// The batch runs while another test thread grades the fixtures with
/// `check` (both wait on their programs more than they compute); the two
/// are compared once both are done.
#[test]
fn a_batch_of_the_python_programs_agrees_with_check() {
    let scratch = tempfile::tempdir().unwrap();
    let class = scratch.path().join("class");
    let mut python = Vec::new();
    for dir in fixtures("correct-").into_iter().chain(fixtures("broken-")) {
        if !dir.join("search.py").is_file() {
            continue;
        }
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        std::fs::create_dir_all(class.join(&name)).unwrap();
        std::fs::copy(dir.join("search.py"), class.join(&name).join("search.py")).unwrap();
        python.push((name, dir));
    }
    let out = scratch.path().join("out");
    let output = Command::cargo_bin("treegrade")
        .unwrap()
        .env("CI", "true")
        .env_remove("TREEGRADE_ASSIGNMENT")
        .arg("batch")
        .arg(&class)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let text = std::fs::read_to_string(out.join("gradebook.csv")).unwrap();
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let rows: Vec<(String, f64)> =
        reader.records().map(|r| r.unwrap()).map(|r| (r[0].to_string(), r[1].parse().unwrap())).collect();
    let mut expected: Vec<(String, f64)> = python
        .into_iter()
        .map(|(name, dir)| {
            let graded = graded().iter().find(|graded| graded.dir == dir).expect("every Python fixture is graded");
            (name, graded.score())
        })
        .collect();
    expected.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(rows, expected);
}
