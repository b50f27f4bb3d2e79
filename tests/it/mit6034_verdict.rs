//! MIT 6.034's verdict mode and the strict mode (`verdict:` in
//! `assignment.yaml`), on the MIT kit's small course
//! (`tests/fixtures/mit6034-kit`). MIT's tester checks a search's `(path,
//! score, count)` and passes a search that looks at states in another order,
//! peeks at a leaf it then prunes, or evaluates the right number of leaves
//! in another order (`bench/mit6034_verdicts.py` on the lab: the four new
//! students below pass all 40 of MIT's function tests but `wrong-next-boards`,
//! which fails MIT's 7, 8, 29, 30 and 40). In MIT's mode treegrade gives
//! those verdicts and shows the differences as warnings; the strict mode
//! also requires the reference's static evaluations, in order. A Connect
//! Four search test whose search is right fails on a wrong rule function,
//! and the message names the rule function.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::common::repo;

fn students() -> PathBuf {
    repo().join("tests/fixtures/mit6034-kit/students")
}

/// The kit's course in a temporary folder, with `verdict: MODE`.
fn course(mode: &str) -> tempfile::TempDir {
    let from = repo().join("tests/fixtures/mit6034-kit/course");
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("tests")).unwrap();
    for entry in std::fs::read_dir(from.join("tests")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, dir.path().join("tests").join(path.file_name().unwrap())).unwrap();
    }
    let text = std::fs::read_to_string(from.join("assignment.yaml")).unwrap();
    assert!(!text.contains("verdict:"), "the kit's course judges the visited order");
    std::fs::write(dir.path().join("assignment.yaml"), format!("{text}verdict: {mode}\n")).unwrap();
    dir
}

/// Test number (`NN`) to (passed, reason), for one student on one course.
fn verdicts(course: &Path, student: &str) -> BTreeMap<String, (bool, String)> {
    let report = crate::common::check_json(course, &students().join(student));
    let tests = report["questions"].as_array().unwrap().iter().flat_map(|q| q["tests"].as_array().unwrap());
    tests
        .map(|t| {
            let name = t["name"].as_str().unwrap();
            let number = name[name.find('/').unwrap() + 1..][..2].to_string();
            (number, (t["status"] == "passed", t["reason"].as_str().unwrap_or("").to_string()))
        })
        .collect()
}

fn failed(verdicts: &BTreeMap<String, (bool, String)>) -> Vec<&str> {
    verdicts.iter().filter(|(_, (passed, _))| !passed).map(|(number, _)| number.as_str()).collect()
}

/// The text report of `student` on `course`, for a snapshot.
fn text(course: &Path, student: &str) -> String {
    let output = assert_cmd::Command::cargo_bin("treegrade")
        .unwrap()
        .env("NO_COLOR", "1")
        .env_remove("TREEGRADE_ASSIGNMENT")
        .current_dir(repo())
        .args(["check", "--sandbox", "off", "--assignment"])
        .arg(course)
        .arg("--submission")
        .arg(format!("tests/fixtures/mit6034-kit/students/{student}"))
        .output()
        .unwrap();
    assert!(matches!(output.status.code(), Some(0 | 1)), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

/// MIT's mode: the searches MIT's tester passes pass, each difference in
/// order shown as a warning; the wrong rule fails the Connect Four tests.
#[test]
fn mits_mode_gives_mits_verdicts_and_warns_of_the_rest() {
    let course = course("mit6034");
    for student in ["correct", "eager-children", "peeks-pruned-leaf", "right-count-wrong-leaves"] {
        let verdicts = verdicts(course.path(), student);
        assert_eq!(verdicts.len(), 9, "{student}");
        assert_eq!(failed(&verdicts), Vec::<&str>::new(), "{student}: {verdicts:?}");
    }
    let peeks = verdicts(course.path(), "peeks-pruned-leaf");
    let (_, warning) = &peeks["05"];
    assert!(warning.starts_with("warning: visited order: at step 8 the expected order enters S"), "{warning}");
    assert!(
        warning.contains(
            "evaluated states: your static evaluations left the reference's at evaluation 5: the \
                          reference evaluates S.1, you evaluated Q.2 (8 in all, the reference 6)"
        ),
        "{warning}"
    );
    let eager = verdicts(course.path(), "eager-children");
    assert!(eager["02"].1.starts_with("warning: visited order"), "{:?}", eager["02"]);
    assert!(!eager["02"].1.contains("evaluated states"), "its evaluations are the reference's: {:?}", eager["02"]);
    let rules = verdicts(course.path(), "wrong-next-boards");
    assert_eq!(failed(&rules), ["09", "10"]);
    // The rule function is named, not the search, and pointed to its own tests.
    assert!(
        rules["09"].1.starts_with(
            "your next_boards_connectfour gives 6 boards for this position where Connect Four has 7: the search test \
             fails because MIT's test runs the search on your rules; fix next_boards_connectfour (tests 7-12) first"
        ),
        "{:?}",
        rules["09"]
    );
    insta::assert_snapshot!("mit6034_verdict_mit_peeks", text(course.path(), "peeks-pruned-leaf"));
    insta::assert_snapshot!("mit6034_verdict_mit_wrong_next_boards", text(course.path(), "wrong-next-boards"));
    insta::assert_snapshot!("mit6034_verdict_mit_ties_last", text(course.path(), "ties-last"));
}

/// The strict mode catches what MIT's tester lets through: a peek at a
/// pruned leaf, and the right number of evaluations in the wrong order; a
/// search that only asks children whether the game is over first still passes.
#[test]
fn the_strict_mode_fails_the_searches_that_evaluate_other_states() {
    let course = course("strict");
    let peeks = verdicts(course.path(), "peeks-pruned-leaf");
    assert_eq!(failed(&peeks), ["05", "06"]);
    assert!(peeks["06"].1.starts_with("evaluated states: your static evaluations left the reference's"), "{peeks:?}");
    let wrong = verdicts(course.path(), "right-count-wrong-leaves");
    assert_eq!(failed(&wrong), ["02", "03", "04", "09"]);
    assert_eq!(failed(&verdicts(course.path(), "eager-children")), Vec::<&str>::new());
    assert_eq!(failed(&verdicts(course.path(), "correct")), Vec::<&str>::new());
    insta::assert_snapshot!("mit6034_verdict_strict_wrong_leaves", text(course.path(), "right-count-wrong-leaves"));
}

/// Without `verdict:` the course judges the visited order, as before: the
/// searches MIT passes fail where their order differs.
#[test]
fn without_a_verdict_the_visited_order_decides() {
    let course = repo().join("tests/fixtures/mit6034-kit/course");
    let eager = verdicts(&course, "eager-children");
    assert_eq!(failed(&eager), ["02", "03", "04", "05", "06", "07", "09", "10"]);
    assert!(eager["02"].1.starts_with("visited order:"), "{:?}", eager["02"]);
}
