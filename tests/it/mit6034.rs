//! The MIT 6.034 games-lab kit (`grader/kits/mit6034`): unchanged lab files
//! (`tests/fixtures/mit6034-kit/students/`, each with a `BUG` file) graded on
//! small trees of our own, served by the grader as toy trees and Connect Four
//! positions. Correct files in two styles, under either of the lab's names,
//! keep every point; each broken one loses points where its mistake shows and
//! is told why; the empty starter gets 0 with a message per test. And the
//! kit's `ConnectFourBoard` behaves as the lab's own (`../shared/mit6034-lab3`)
//! on random boards. And `treegrade import mit6034` turns the lab itself
//! into a course that grades these files as MIT's tests do.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::common::repo;

fn fixture() -> PathBuf {
    repo().join("tests/fixtures/mit6034-kit")
}

fn check(dir: &Path) -> serde_json::Value {
    crate::common::check_json(&fixture().join("course"), dir)
}

/// Test name (`question/NN-function`) to (score, reason).
fn results(report: &serde_json::Value) -> BTreeMap<String, (f64, String)> {
    let tests = report["questions"].as_array().unwrap().iter().flat_map(|q| q["tests"].as_array().unwrap());
    tests
        .map(|t| {
            let reason = format!("{} {}", t["reason"].as_str().unwrap_or(""), t["diagnosis"]);
            (t["name"].as_str().unwrap().to_string(), (t["score"].as_f64().unwrap(), reason))
        })
        .collect()
}

/// The tests a mistake fails, and what every failed test's report must say.
fn expected(bug: &str) -> (&'static [&'static str], &'static str) {
    match bug {
        "correct" => (&[], ""),
        "ties-last" => (
            &[
                "minimax/02-minimax_endgame_search",
                "alphabeta/05-minimax_search_alphabeta",
                // Q's first leaf ties P's 3 and cuts Q off: a last-best search takes Q.
                "alphabeta/06-minimax_search_alphabeta",
            ],
            "first-best-last",
        ),
        "prune-strict" => (
            &[
                "alphabeta/05-minimax_search_alphabeta",
                "alphabeta/06-minimax_search_alphabeta",
                "alphabeta/10-minimax_search_alphabeta",
            ],
            "strict inequality",
        ),
        // Connect Four's scores are the mover's: without the flag, X's win in one scores as a loss.
        "no-flag" => (&["alphabeta/10-minimax_search_alphabeta"], "expected 1000"),
        "count-one-per-child" => (ALL, "as its number of static evaluations, but it made"),
        "state-to-heuristic" => (
            &[
                "minimax/04-minimax_search",
                "minimax/09-minimax_search",
                "alphabeta/07-minimax_search_alphabeta",
                "alphabeta/10-minimax_search_alphabeta",
            ],
            "pass it the state's snapshot",
        ),
        "depth-before-game-over" => {
            (&["minimax/04-minimax_search", "alphabeta/10-minimax_search_alphabeta"], "a terminal")
        }
        "maximize-not-flipped" => (&ALL[1..], "value: expected"),
        // Mistakes outside the searches these trees grade: the grader serves the
        // moves and the tree's `eval` values, so every search test passes.
        "pd-cumulative" | "pd-depth-zero" | "heuristic-wrong-sign" => (&[], ""),
        // The moves listed from the last column to the first: the rule check
        // finds it on the Connect Four search tests. On 09 the search on those
        // rules takes the same child indexes, as MIT's move_sequence names the
        // path, so only a warning is given there.
        "next-boards-reversed" => {
            (&["alphabeta/10-minimax_search_alphabeta"], "fix next_boards_connectfour (tests 7-12) first")
        }
        // MIT's tester passes these four (tests/it/mit6034_verdict.rs); this course judges the visited order.
        "eager-children" => (&ALL[1..], "visited order"),
        "right-count-wrong-leaves" => (&ALL[1..5], "visited order"),
        "peeks-pruned-leaf" => (
            &[
                "alphabeta/05-minimax_search_alphabeta",
                "alphabeta/06-minimax_search_alphabeta",
                "alphabeta/10-minimax_search_alphabeta",
            ],
            "",
        ),
        // Right searches, a wrong rule: as at MIT, the Connect Four search tests fail, blamed on the rule.
        "wrong-next-boards" => (
            &["minimax/09-minimax_search", "alphabeta/10-minimax_search_alphabeta"],
            "fix next_boards_connectfour (tests 7-12) first",
        ),
        "starter" => (ALL, "is not implemented yet"),
        "does-not-import" => (ALL, "lab2.py could not be imported: SyntaxError"),
        other => panic!("no expectation for the BUG `{other}`"),
    }
}

const ALL: &[&str] = &[
    "dfs/01-dfs_maximizing",
    "minimax/02-minimax_endgame_search",
    "minimax/03-minimax_endgame_search",
    "minimax/04-minimax_search",
    "minimax/09-minimax_search",
    "alphabeta/05-minimax_search_alphabeta",
    "alphabeta/06-minimax_search_alphabeta",
    "alphabeta/07-minimax_search_alphabeta",
    "alphabeta/10-minimax_search_alphabeta",
];

#[test]
fn lab_files_are_graded_unchanged_and_each_mistake_fails_where_it_shows() {
    let mut students: Vec<PathBuf> = std::fs::read_dir(fixture().join("students"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_dir())
        .collect();
    students.sort();
    assert!(students.len() >= 13, "{students:?}");
    for dir in &students {
        let bug = std::fs::read_to_string(dir.join("BUG")).unwrap().trim().to_string();
        let (failing, said) = expected(&bug);
        let results = results(&check(dir));
        let mut all = ALL.to_vec();
        all.sort_unstable();
        assert_eq!(results.keys().map(String::as_str).collect::<Vec<_>>(), all, "{dir:?}");
        for (name, (score, reason)) in &results {
            let fails = failing.contains(&name.as_str());
            assert_eq!(*score == 0.0, fails, "{dir:?} {name}: score {score}, {reason}");
            assert!(!fails || reason.contains(said), "{dir:?} {name}: `{said}` not in {reason}");
        }
    }
}

/// The kit's `ConnectFourBoard` against the lab's on random games: every
/// method a student uses gives the same answer.
#[test]
fn the_kits_connect_four_board_is_the_labs() {
    let lab = repo().join("../shared/mit6034-lab3");
    if !lab.join("game_api.py").is_file() {
        crate::common::unavailable(&format!("the MIT 6.034 lab at {}", lab.display()));
        return;
    }
    let scratch = tempfile::tempdir().unwrap();
    std::fs::copy(lab.join("game_api.py"), scratch.path().join("lab_api.py")).unwrap();
    std::fs::copy(repo().join("grader/kits/mit6034/game_api.py"), scratch.path().join("kit_api.py")).unwrap();
    let output = std::process::Command::new("python3")
        .arg("-W")
        .arg("ignore")
        .arg("-c")
        .arg(COMPARE)
        .current_dir(scratch.path())
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(stdout.trim(), "boards 2000, differences 0");
}

const COMPARE: &str = r#"
import random
import kit_api, lab_api
random.seed(6034)
differences = 0
for game in range(2000):
    boards = [lab_api.ConnectFourBoard(), kit_api.ConnectFourBoard()]
    for _ in range(random.randrange(0, 43)):
        open_columns = [c for c in range(7) if not boards[0].is_column_full(c)]
        if not open_columns:
            break
        column = random.choice(open_columns)
        player = random.choice([None, None, None, 'Player One', 'Player Two'])
        boards = [board.add_piece(column, player) for board in boards]
    def answers(b):
        return [
            b.board_array, b.players, b.whose_turn, b.prev_move_string, str(b), b.describe_previous_move(),
            b.get_all_chains(), b.get_all_chains(True), b.get_all_chains(False),
            b.count_pieces(), b.count_pieces(True), b.count_pieces(False),
            [b.get_column_height(c) for c in range(7)], [b.is_column_full(c) for c in range(7)],
            b.get_current_player_name(), b.get_other_player_name(), b.get_player_name(1), b.get_player_name(2),
            b.get_horizontal_chains(True), b.get_vertical_chains(True),
            b.get_northeast_chains(True), b.get_northwest_chains(), b.get_singleton_chains(),
        ]
    lab, kit = answers(boards[0]), answers(boards[1])
    differences += sum(1 for a, b in zip(lab, kit) if a != b)
print("boards 2000, differences %d" % differences)
"#;

/// `read_lab.py`, run on a copy of the lab (as the importer will run it, in
/// the sandbox): all 44 tests in MIT's order, each described, none unusable;
/// the lab's named fixtures; the toy trees' endgame answers for both flags;
/// and the Connect Four heuristics answered on every position to the
/// test's depth.
#[test]
fn the_lab_reader_describes_all_44_tests() {
    let lab = repo().join("../shared/mit6034-lab3");
    if !lab.join("tests.py").is_file() {
        crate::common::unavailable(&format!("the MIT 6.034 lab at {}", lab.display()));
        return;
    }
    let scratch = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(&lab).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, scratch.path().join(path.file_name().unwrap())).unwrap();
    }
    let output = std::process::Command::new("python3")
        .args(["-W", "ignore"])
        .arg(repo().join("grader/kits/mit6034/read_lab.py"))
        .current_dir(scratch.path())
        .output()
        .expect("python3 runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    // JSON lines: the header, the 44 tests, the fixtures; none past the 1 MiB a line the grader reads.
    let lines: Vec<serde_json::Value> =
        String::from_utf8(output.stdout).unwrap().lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    assert_eq!(lines.len(), 46);
    assert_eq!(lines[0], serde_json::json!({"lab": "lab2", "tests": 44}));
    let tests = &lines[1..45];
    let read = &lines[45];
    let kinds: Vec<&str> = tests.iter().map(|t| t["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds.iter().filter(|k| **k == "rule").count(), 22);
    assert_eq!(kinds.iter().filter(|k| **k == "search").count(), 18);
    assert_eq!(kinds[40..], ["answer"; 4]);
    assert!(tests.iter().all(|t| t.get("unusable").is_none()), "{tests:?}");
    for (number, test) in (1..).zip(tests) {
        assert_eq!(test["number"], number);
    }
    assert_eq!(tests[22]["function"], "dfs_maximizing");
    assert_eq!(tests[39]["function"], "progressive_deepening");
    // NEGATE_GAME's endgame function answers the flag: [as MIN, as MAX].
    assert_eq!(tests[36]["args"][0]["game"]["endgame"]["0"], serde_json::json!([-4, 4]));
    // Test 30's heuristic on every position to depth 4: 1 + 7 + 49 + 343 + 2401.
    assert_eq!(tests[29]["args"][1]["heuristic"]["values"].as_object().unwrap().len(), 2801);
    // And Connect Four's own tree from its board, the 2401 positions at the cut with their open columns.
    let positions = tests[29]["args"][0]["game"]["positions"].as_object().unwrap();
    assert_eq!(positions.len(), 2801);
    assert_eq!(positions.values().filter(|p| p.get(2).is_some()).count(), 2401);
    assert_eq!(tests[25]["args"][0]["game"]["rules"], "student");
    // The rule and answer tests: each call as a student reads it, and a check verified against MIT's testanswer.
    for test in tests[..22].iter().chain(&tests[40..]) {
        assert!(test["probes"].as_u64().unwrap() >= 19, "{test}");
    }
    assert_eq!(tests[0]["shown"], "is_game_over_connectfour(boards.PLAYER_ONE1_WON)");
    assert_eq!(tests[0]["check"], serde_json::json!({"equals": true}));
    assert_eq!(tests[0]["calls"][0][0]["board"]["whose_turn"], "Player Two");
    assert_eq!(tests[13]["check"], serde_json::json!({"equals": -1000}));
    // MIT's test 7 compares cells only (same_board_array), test 12 whole boards (==).
    assert_eq!(
        (tests[6]["check"]["compare"].as_str(), tests[6]["check"]["boards"].as_array().unwrap().len()),
        (Some("cells"), 7)
    );
    assert_eq!(tests[11]["check"]["compare"], "whole");
    assert_eq!(tests[11]["check"]["boards"][0]["prev_move"], "Put Alethea's piece in col 3");
    assert_eq!(tests[9]["check"], serde_json::json!({"boards": [], "compare": "cells"}));
    // MIT's isinstance(val, (int, float)) takes True for 1: so does the check where it matters.
    assert_eq!(
        tests[17]["check"],
        serde_json::json!({"bool_is_number": true, "numbers": [{"above": 0, "below": 1000}]})
    );
    assert_eq!(
        tests[20]["check"],
        serde_json::json!({"bool_is_number": true, "numbers": [{"above": -1000, "below": 0}]})
    );
    assert_eq!(tests[15]["check"]["order"], "increasing");
    assert_eq!(tests[21]["check"]["numbers"].as_array().unwrap().len(), 4);
    assert_eq!(tests[21]["calls"].as_array().unwrap().len(), 4);
    let answers: Vec<&serde_json::Value> = tests[40..].iter().map(|t| &t["check"]["equals_text"]).collect();
    assert_eq!(answers, ["4", "1", "4", "5"]);
    let trees: Vec<&String> = read["fixtures"]["trees"].as_object().unwrap().keys().collect();
    assert_eq!(trees, ["GAME1", "GAME_EQUALITY_PRUNING", "GAME_STATIC_ALL_LEVELS"]);
    let boards = read["fixtures"]["boards"].as_object().unwrap();
    assert!(
        ["BOARD_EMPTY", "NEARLY_OVER", "NEARLY_OVER_move0"].iter().all(|name| boards.contains_key(*name)),
        "{boards:?}"
    );
}

/// The course `treegrade import mit6034` writes from the lab, once for the
/// module, with what the import printed (stdout, then stderr); `None` where
/// the lab is missing (a failure under CI).
fn imported() -> Option<&'static (tempfile::TempDir, String)> {
    static COURSE: std::sync::OnceLock<Option<(tempfile::TempDir, String)>> = std::sync::OnceLock::new();
    COURSE
        .get_or_init(|| {
            let lab = repo().join("../shared/mit6034-lab3");
            if !lab.join("tests.py").is_file() {
                crate::common::unavailable(&format!("the MIT 6.034 lab at {}", lab.display()));
                return None;
            }
            let dir = tempfile::tempdir().unwrap();
            let output = treegrade().args(["import", "mit6034"]).arg(&lab).arg("-o").arg(dir.path()).output().unwrap();
            let printed =
                format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
            assert_eq!(output.status.code(), Some(0), "{printed}");
            let printed = printed.replace(&dir.path().display().to_string(), "COURSE");
            Some((dir, printed))
        })
        .as_ref()
}

fn treegrade() -> assert_cmd::Command {
    let mut command = assert_cmd::Command::cargo_bin("treegrade").unwrap();
    command.env("NO_COLOR", "1").env_remove("TREEGRADE_ASSIGNMENT");
    command
}

/// The import of MIT's lab: the 18 search tests written, each with the
/// figures of the lab's README (score, static evaluations, path as MIT's
/// `move_sequence` gives it; progressive deepening's scores and counts
/// depth by depth), the 22 rule-function tests and the 4 answers written
/// as call tests, none left out; exit 0.
#[test]
fn the_labs_tests_are_imported_with_mits_figures_and_the_others_listed() {
    let Some((dir, printed)) = imported() else { return };
    insta::assert_snapshot!("import_mit6034", printed);
    // (test, score, evaluations, path) from the lab's README and tests.py.
    let figures: [(&str, &str, &str, &str); 13] = [
        ("23-dfs_maximizing", "16", "16", "root 2 2.3"),
        ("24-minimax_endgame_search", "4", "16", "root 1 1.0"),
        ("26-minimax_endgame_search", "1000", "6", "root f f-a f-a-a"),
        ("28-minimax_search", "3", "6", "A D"),
        ("29-minimax_search", "-3", "49", "root e e-f"),
        ("30-minimax_search", "-3", "2401", "root d d-b d-b-d d-b-d-c"),
        ("31-minimax_search_alphabeta", "4", "13", "root 1 1.0"),
        ("32-minimax_search_alphabeta", "11", "11", "root 0 0.1"),
        ("33-minimax_search_alphabeta", "3", "6", "A B D H O"),
        ("34-minimax_search_alphabeta", "14", "11", "A C G N Z"),
        ("35-minimax_search_alphabeta", "10", "4", "root 0"),
        ("37-minimax_search_alphabeta", "-4", "2", "root 0"),
        ("38-minimax_search_alphabeta", "2", "2", "root 1"),
    ];
    for (name, score, evaluations, path) in figures {
        let line = printed.lines().find(|l| l.starts_with(&format!("ok     {name} "))).expect(name);
        assert!(line.contains(&format!("value {score},")), "{line}");
        assert!(line.contains(&format!(", {evaluations} static evaluations, path {path})")), "{line}");
    }
    // Progressive deepening: MIT's per-depth scores and counts (tests.py's testanswer).
    for (name, depths) in [
        ("39-progressive_deepening", "scores [11, 10, 10], static evaluations [4, 5, 6]"),
        ("40-progressive_deepening", "scores [4, -2, 5, -3, 20], static evaluations [7, 34, 176, 695, 2259]"),
    ] {
        let line = printed.lines().find(|l| l.starts_with(&format!("ok     {name} "))).expect(name);
        assert!(line.contains("iterative-deepening, ") && line.ends_with(&format!("by depth {depths})")), "{line}");
    }
    let tree = std::fs::read_to_string(dir.path().join("tests/39-progressive_deepening.yaml")).unwrap();
    assert!(tree.contains("search: {depth: 3, prune_on_equal: true, reorder_root: false, stop_when_complete: false}"));
    assert!(!printed.lines().any(|l| l.starts_with("not graded by treegrade yet: ")), "{printed}");
    assert!(printed.contains("imported 44 of 44 tests (18 searches, 26 calls; 0 not graded"), "{printed}");
    let readme = std::fs::read_to_string(dir.path().join("README.md")).unwrap();
    let mut written: Vec<String> = std::fs::read_dir(dir.path().join("tests"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    written.sort();
    assert_eq!(written.len(), 44);
    assert_eq!(
        (written[0].as_str(), written[22].as_str()),
        ("01-is_game_over_connectfour.yaml", "23-dfs_maximizing.yaml")
    );
    assert_eq!((written[38].as_str(), written[40].as_str()), ("39-progressive_deepening.yaml", "41-ANSWER_1.yaml"));
    let first = std::fs::read_to_string(dir.path().join("tests/01-is_game_over_connectfour.yaml")).unwrap();
    assert!(first.starts_with("# MIT 6.034 test 1: is_game_over_connectfour(boards.PLAYER_ONE1_WON)\n"), "{first}");
    // The students' README says what each call must give.
    assert!(
        readme.contains(
            "- 12-next_boards_connectfour: `next_boards_connectfour(boards.BOARD_FULL_TIED_minus3)` must give"
        )
    );
    assert!(readme.contains("- 41-ANSWER_1: `ANSWER_1`, one of '1' to '5'"), "{readme}");
    assert!(!readme.contains("== '4'"), "the README gives an answer away: {readme}");
}

/// A lab whose testanswer for one test is something no calls check says
/// (`val % 7 == 3` for test 18, two right choices for test 42): the probes
/// catch both, and the import lists them as not graded with the reason,
/// writes the 40 others, and leaves the two out of the course.
#[test]
fn a_check_the_import_cannot_express_is_listed_with_the_reason() {
    let lab = repo().join("../shared/mit6034-lab3");
    if !lab.join("tests.py").is_file() {
        crate::common::unavailable(&format!("the MIT 6.034 lab at {}", lab.display()));
        return;
    }
    let odd = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(&lab).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, odd.path().join(path.file_name().unwrap())).unwrap();
    }
    let tests = std::fs::read_to_string(lab.join("tests.py")).unwrap();
    let heuristic = "def heuristic_connectfour_0_testanswer(val, original_val = None) :\r\n    return isinstance(val, (int, float)) and val > 0 and val < 1000";
    let answer = "    return str(val) == '1'";
    assert_eq!((tests.matches(heuristic).count(), tests.matches(answer).count()), (1, 1));
    let tests = tests
        .replace(
            heuristic,
            "def heuristic_connectfour_0_testanswer(val, original_val = None) :\r\n    return val % 7 == 3",
        )
        .replace(answer, "    return str(val) in ('1', '2')");
    std::fs::write(odd.path().join("tests.py"), tests).unwrap();
    let course = tempfile::tempdir().unwrap();
    let output = treegrade().args(["import", "mit6034"]).arg(odd.path()).arg("-o").arg(course.path()).output().unwrap();
    let printed = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert_eq!(output.status.code(), Some(0), "{printed}");
    let listed: Vec<&str> = printed.lines().filter_map(|l| l.strip_prefix("not graded by treegrade yet: ")).collect();
    assert_eq!(listed.len(), 2, "{printed}");
    assert!(
        listed[0].starts_with("18-heuristic_connectfour (its check is not one treegrade can express: ")
            && listed[0].contains("on 0.5 MIT's testanswer says wrong"),
        "{}",
        listed[0]
    );
    assert!(
        listed[1].starts_with(
            "42-ANSWER_2 (its check is not one treegrade can express: MIT's testanswer accepts 2 of the choices"
        ),
        "{}",
        listed[1]
    );
    assert!(!course.path().join("tests/18-heuristic_connectfour.yaml").exists());
    let readme = std::fs::read_to_string(course.path().join("README.md")).unwrap();
    assert!(readme.contains(&format!("- {}", listed[0])), "{readme}");
    assert!(
        printed.contains("rules (21 tests, 21 points)") && printed.contains("answers (3 tests, 3 points)"),
        "{printed}"
    );
}

/// `validate` accepts the imported course: every tree loads and the
/// reference searches it.
#[test]
fn the_imported_course_validates() {
    let Some((dir, _)) = imported() else { return };
    let output = treegrade().arg("validate").arg(dir.path()).output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.contains("7 questions, 44 test files, 44 points"), "{stdout}");
}

/// The fixtures' students on the imported course: correct files (either
/// name) keep all 40 points of the rule and search tests; the starter gets
/// 0 with a message on every test; each mistake fails exactly the tests
/// that MIT's tester fails it on (the lab's README, and
/// `bench/mit6034_corpus.py` on these files). Most of these files set no
/// `ANSWER_n`, so tests 41-44 score 0 for them, as MIT's tester (an error
/// there) has it.
#[test]
fn the_imported_course_grades_the_students_as_mits_tests_do() {
    let Some((dir, _)) = imported() else { return };
    let numbers = |range: std::ops::RangeInclusive<usize>| range.map(|n| format!("{n:02}")).collect::<Vec<_>>();
    let searches = numbers(23..=40);
    let everything: Vec<String> = numbers(1..=44);
    let answers = numbers(41..=44);
    let listed = |failing: &[&str]| -> Vec<String> { failing.iter().map(|n| n.to_string()).collect() };
    let with_answers =
        |failing: &[&str]| -> Vec<String> { listed(failing).into_iter().chain(answers.clone()).collect() };
    let cases: [(&str, Vec<String>, &str); 15] = [
        ("correct", with_answers(&[]), ""),
        ("correct-lab3", with_answers(&[]), ""),
        ("starter", everything.clone(), "not implemented yet"),
        ("ties-last", with_answers(&["29", "30", "33"]), ""),
        ("prune-strict", with_answers(&["33", "40"]), ""),
        ("no-flag", with_answers(&["26", "27", "37", "40"]), ""),
        // MIT's always_zero takes the state as well (27, 28); its other heuristics do not.
        ("state-to-heuristic", with_answers(&["29", "30", "38", "39", "40"]), "pass it the state's snapshot"),
        // 37 and 38 evaluate one node per child, so the count comes out right there, as at MIT.
        (
            "count-one-per-child",
            searches[..14].iter().chain(&searches[16..]).cloned().chain(answers.iter().cloned()).collect(),
            "static evaluations",
        ),
        // The course judges as MIT's tester (`verdict: mit6034`), which passes these three.
        ("eager-children", with_answers(&[]), ""),
        ("peeks-pruned-leaf", with_answers(&[]), ""),
        ("right-count-wrong-leaves", with_answers(&[]), ""),
        // MIT runs 26-30 and 40 on the student's rules: 29, 30 and 40 fail there, 26 and 27 never meet the wrong column.
        ("wrong-next-boards", with_answers(&["07", "08", "29", "30", "40"]), "next_boards_connectfour"),
        // The depth limit checked before the game's end: the heuristic asked about a finished game. On the
        // toy trees (28, 39) the lab's heuristic gives that leaf its score, so MIT's tester passes them (a
        // warning here); on Connect Four (29, 40) it does not.
        ("depth-before-game-over", listed(&["29", "40"]), "a terminal"),
        // Progressive deepening's two mistakes, each named.
        ("pd-cumulative", listed(&["39", "40"]), "these are running totals"),
        ("pd-depth-zero", listed(&["39", "40"]), "searched with depth_limit=0"),
    ];
    for (student, failing, said) in cases {
        let results = results(&crate::common::check_json(dir.path(), &fixture().join("students").join(student)));
        assert_eq!(results.len(), 44, "{student}");
        for (name, (score, reason)) in &results {
            let number = &name[name.find('/').unwrap() + 1..][..2];
            let fails = failing.iter().any(|n| n == number);
            assert_eq!(*score == 0.0, fails, "{student} {name}: score {score}, {reason}");
            // The answers' message is the calls kit's ("not answered yet"), the others' the mistake's.
            let answer = number >= "41";
            assert!(!fails || answer || reason.contains(said), "{student} {name}: `{said}` not in {reason}");
            assert!(!fails || !answer || reason.contains("not answered yet"), "{student} {name}: {reason}");
        }
    }
    // A path that parts from MIT's below the first move is told where.
    let results = results(&crate::common::check_json(dir.path(), &fixture().join("students/ties-last")));
    let (_, reason) = &results["minimax_search/29-minimax_search"];
    assert!(reason.contains("path: MIT's test expects root e e-f (move_sequence [4, 5], columns e f)"), "{reason}");
}
