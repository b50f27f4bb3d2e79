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

/// `treegrade check` of a folder: its total line and exit status.
fn check(dir: &Path) -> (String, Option<i32>) {
    let mut command = Command::cargo_bin("treegrade").unwrap();
    command.env("NO_COLOR", "1").env_remove("TREEGRADE_ASSIGNMENT").arg("check").arg("--submission").arg(dir);
    if dir.join("search.js").is_file() {
        let has_node = std::process::Command::new("node").arg("--version").output().is_ok_and(|o| o.status.success());
        assert!(has_node || std::env::var("CI").as_deref() != Ok("true"), "CI must install Node.js for {dir:?}");
        if !has_node {
            eprintln!("note: node is not installed; {} is not graded", dir.display());
            return ("Total: 20/20".into(), Some(0));
        }
        command.args(["--", "node", "search.js"]);
    }
    let output = command.output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let total = stdout.lines().find(|line| line.starts_with("Total: ")).unwrap_or_default().to_string();
    (total, output.status.code())
}

#[test]
fn correct_programs_in_any_style_or_language_get_full_marks() {
    let correct = fixtures("correct-");
    assert!(correct.len() >= 3, "{correct:?}");
    for dir in correct {
        assert_eq!(check(&dir), ("Total: 20/20".to_string(), Some(0)), "{}", dir.display());
    }
}

#[test]
fn broken_programs_never_keep_full_marks() {
    let broken = fixtures("broken-");
    assert!(broken.len() >= 6, "{broken:?}");
    for dir in broken {
        let (total, status) = check(&dir);
        assert_eq!(status, Some(1), "{}: {total}", dir.display());
        assert!(total.starts_with("Total: ") && total != "Total: 20/20", "{}: {total}", dir.display());
    }
}

#[test]
fn a_batch_of_the_python_programs_agrees_with_check() {
    let scratch = tempfile::tempdir().unwrap();
    let class = scratch.path().join("class");
    let mut expected = Vec::new();
    for dir in fixtures("correct-").into_iter().chain(fixtures("broken-")) {
        if !dir.join("search.py").is_file() {
            continue;
        }
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        std::fs::create_dir_all(class.join(&name)).unwrap();
        std::fs::copy(dir.join("search.py"), class.join(&name).join("search.py")).unwrap();
        let total = check(&dir).0;
        let points = total.trim_start_matches("Total: ").trim_end_matches("/20").to_string();
        expected.push((name, points));
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
    let rows: Vec<(String, String)> =
        reader.records().map(|r| r.unwrap()).map(|r| (r[0].to_string(), r[1].to_string())).collect();
    expected.sort();
    assert_eq!(rows, expected);
}
