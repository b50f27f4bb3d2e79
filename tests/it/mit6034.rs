//! The MIT 6.034 games-lab kit (`grader/kits/mit6034`): unchanged lab files
//! (`tests/fixtures/mit6034-kit/students/`, each with a `BUG` file) graded on
//! small trees of our own, served by the grader as toy trees and Connect Four
//! positions. Correct files in two styles, under either of the lab's names,
//! keep every point; each broken one loses points where its mistake shows and
//! is told why; the empty starter gets 0 with a message per test. And the
//! kit's `ConnectFourBoard` behaves as the lab's own (`../shared/mit6034-lab3`)
//! on random boards.

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
    assert!(students.len() >= 9, "{students:?}");
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
    let read: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(read["lab"], "lab2");
    let tests = read["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 44);
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
    assert_eq!(tests[25]["args"][0]["game"]["rules"], "student");
    let trees: Vec<&String> = read["fixtures"]["trees"].as_object().unwrap().keys().collect();
    assert_eq!(trees, ["GAME1", "GAME_EQUALITY_PRUNING", "GAME_STATIC_ALL_LEVELS"]);
    let boards = read["fixtures"]["boards"].as_object().unwrap();
    assert!(
        ["BOARD_EMPTY", "NEARLY_OVER", "NEARLY_OVER_move0"].iter().all(|name| boards.contains_key(*name)),
        "{boards:?}"
    );
}
