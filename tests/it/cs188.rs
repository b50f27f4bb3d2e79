//! The CS188 importer: hand-written `GraphGameTreeTest` fixtures checked
//! against values worked out by hand, the published CS188 suite when it is
//! present (`../shared/cs188`), and `treegrade import cs188` end to end.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::Command;

use treegrade::compare::expectation_differences;
use treegrade::engine::{self, Algorithm, SearchOutcome, SearchSettings};
use treegrade::import::cs188::{self, Cs188Import, ImportErrorKind};
use treegrade::load::load_tree_str;
use treegrade::load::write::tree_to_yaml;
use treegrade::tree::{NodeIndex, NodeKind, SearchDefaults, Tree};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/cs188")
}

fn import(name: &str) -> Cs188Import {
    let path = fixtures().join(name);
    cs188::import_file(&path).unwrap_or_else(|error| panic!("{error}"))
}

/// Every node in arena (breadth-first) order as `id kind action`, with the
/// utility of terminals and the eval of internal nodes that have one.
fn describe(tree: &Tree) -> Vec<String> {
    (0..tree.len() as u32)
        .map(NodeIndex)
        .map(|index| {
            let node = tree.node(index);
            let action = if index == NodeIndex::ROOT { "-" } else { tree.action(index) };
            let mut line = format!("{} {} {action}", tree.id(index), node.kind);
            if node.kind == NodeKind::Terminal {
                line.push_str(&format!(" = {}", node.utility));
            } else if let Some(eval) = node.eval {
                line.push_str(&format!(" eval {eval}"));
            }
            line
        })
        .collect()
}

fn run(import: &Cs188Import, settings: &SearchSettings) -> SearchOutcome {
    engine::search(&import.tree, settings).expect("searchable")
}

fn states(names: &str) -> BTreeSet<String> {
    names.split_whitespace().map(str::to_string).collect()
}

/// The imported tree survives writing and loading, and the written file's
/// own `search` and `expect` blocks hold (what `treegrade validate` checks).
fn assert_writes_a_valid_file(import: &Cs188Import) -> Tree {
    let yaml = tree_to_yaml(&import.tree);
    let loaded = load_tree_str(yaml.clone(), Path::new("imported.yaml")).unwrap_or_else(|e| panic!("{e}\n{yaml}"));
    let tree = loaded.tree;
    assert_eq!(tree.len(), import.tree.len());
    assert_eq!(tree.search_defaults(), import.tree.search_defaults());
    assert_eq!(tree.expectations(), import.tree.expectations());
    for (name, expectation) in tree.expectations() {
        let algorithm: Algorithm = name.parse().unwrap();
        let settings = SearchSettings::resolve(algorithm, tree.search_defaults(), None, None);
        engine::check(&tree, &settings).unwrap_or_else(|e| panic!("{e}"));
        let outcome = engine::search(&tree, &settings).unwrap();
        let differences = expectation_differences(&tree, expectation, &outcome, "the reference");
        assert!(differences.is_empty(), "{differences:?}");
    }
    tree
}

#[test]
fn minimax_with_a_state_reached_along_two_paths() {
    let import = import("good/minimax-shared-state.test");
    let tree = &import.tree;
    assert_eq!(tree.name(), "good-minimax-shared-state");
    assert_eq!(import.algorithm, Algorithm::Minimax);
    assert_eq!(
        describe(tree),
        [
            "a max -",
            "b1 min Left",
            "b2 min Right",
            "s max Left",
            "w1 terminal Right = 5",
            "l1 terminal Left = -1",
            "s~2 max Right",
            "w2 terminal Up = 3",
            "w3 terminal Down = 7",
            "w2~2 terminal Up = 3",
            "w3~2 terminal Down = 7",
        ]
    );
    assert_eq!(import.repeated_states(), 3);
    assert_eq!(import.state_of("s~2"), Some("s"));
    assert_eq!(import.state_of("w3~2"), Some("w3"));
    assert_eq!(tree.search_defaults(), SearchDefaults::of(Some(4), Some(false)));
    let expect = &tree.expectations()["minimax"];
    assert_eq!((expect.value, &expect.action, &expect.visited), (None, &Some(Some("Left".to_string())), &None));
    // s = max(3, 7) = 7; b1 = min(7, 5) = 5; b2 = min(-1, 7) = -1; a = 5 by Left.
    let outcome = run(&import, &import.settings());
    assert_eq!((outcome.value, outcome.action.map(|c| tree.action(c))), (5.0, Some("Left")));
    assert_eq!(import.states_of(&outcome.visited), states("a b1 b2 l1 s w1 w2 w3"));
    assert_eq!(outcome.visited.len(), 11, "minimax enters both copies of s");
    assert!(import.reference_differences().is_empty());
    assert!(tree.description().unwrap().contains("STATE~2"));
    assert_writes_a_valid_file(&import);
}

#[test]
fn alphabeta_searches_on_at_ties_as_cs188_does() {
    let import = import("good/alphabeta-tie.test");
    let tree = &import.tree;
    assert_eq!(import.algorithm, Algorithm::AlphaBeta);
    assert_eq!(
        describe(tree),
        [
            "a max -",
            "b1 min Left",
            "b2 min Right",
            "b3 min Stop",
            "w1 terminal x = 4",
            "w5 terminal y = 9",
            "w2 terminal x = 4",
            "l1 terminal y = 1",
            "w8 terminal x = 6",
            "c max y",
            "w6 terminal p = 6",
            "w7 terminal q = 2",
        ]
    );
    assert_eq!(import.repeated_states(), 0);
    // b1 = 4; b2 ties alpha 4 after w2 and goes on to l1: 1; b3 = min(6, c = max(6, 2)) = 6 > 4: Stop.
    let settings = import.settings();
    assert!(!settings.prune_on_equal);
    let outcome = run(&import, &settings);
    assert_eq!((outcome.value, outcome.action.map(|c| tree.action(c))), (6.0, Some("Stop")));
    let visited = tree.ids_of(&outcome.visited);
    assert_eq!(visited, ["a", "b1", "w1", "w5", "b2", "w2", "l1", "b3", "w8", "c", "w6", "w7"]);
    assert_eq!(import.states_of(&outcome.visited), states("a b1 b2 b3 c l1 w1 w2 w5 w6 w7 w8"));
    // Pruning on equality (AIMA) would skip l1 and w7: CS188's generated set would not match.
    let aima = run(&import, &SearchSettings { prune_on_equal: true, ..settings });
    assert_eq!(tree.ids_of(&aima.visited), ["a", "b1", "w1", "w5", "b2", "w2", "b3", "w8", "c", "w6"]);
    assert_eq!(aima.value, 6.0);
    assert!(import.reference_differences().is_empty());
    assert_writes_a_valid_file(&import);
}

#[test]
fn expectimax_with_two_ghosts_uses_uniform_chance_nodes() {
    let import = import("good/expectimax-two-ghosts.test");
    let tree = &import.tree;
    assert_eq!(import.algorithm, Algorithm::Expectimax);
    assert_eq!(
        describe(tree),
        [
            "a max -",
            "g1 chance Left",
            "h1 chance Right",
            "g2a chance u",
            "g2b chance v",
            "h2 chance u",
            "w1 terminal u = 10",
            "l1 terminal v = -2",
            "w3 terminal u = 4",
            "w4 terminal u = 3",
            "w5 terminal v = 4",
        ]
    );
    // 3 agents, depth 1 = 3 plies: the leaves at ply 3 are win/lose states, valued as terminals.
    assert_eq!(tree.search_defaults().depth(), Some(3));
    let g2a = tree.find("g2a").unwrap();
    assert!(tree.children(g2a).all(|c| tree.node(c).probability == 0.5));
    // g1 = (0.5 * 10 + 0.5 * -2) / 2 + 4 / 2 = 4, h1 = (3 + 4) / 2 = 3.5: Left.
    let outcome = run(&import, &import.settings());
    assert_eq!((outcome.value, outcome.action.map(|c| tree.action(c))), (4.0, Some("Left")));
    assert_eq!(import.states_of(&outcome.visited), states("a g1 g2a g2b h1 h2 l1 w1 w3 w4 w5"));
    assert!(import.reference_differences().is_empty());
    assert_writes_a_valid_file(&import);
    // The same file read as minimax would be invalid (chance nodes); minimax itself would choose Right.
    assert!(engine::check(tree, &SearchSettings::new(Algorithm::Minimax)).is_err());
}

#[test]
fn a_depth_limit_cuts_at_depth_times_agents_plies() {
    let import = import("good/depth-limited.test");
    let tree = &import.tree;
    assert_eq!(
        describe(tree),
        [
            "a max -",
            "b1 min Left eval 5",
            "w0 terminal Mid = 2",
            "b2 min Right",
            "c1 max x eval 6",
            "c2 max y eval 7",
            "l1 terminal x = -3",
            "c3 max y eval 8",
            "d1 terminal x = 0",
            "d2 terminal x = 9",
            "d3 terminal x = 8",
        ]
    );
    assert_eq!(tree.search_defaults().depth(), Some(2));
    assert_eq!(import.dropped_subtrees(), 0, "the subtrees below the cut are kept");
    // At 2 plies: b1 = min(6, 7) = 6, w0 = 2, b2 = min(-3, 8) = -3: Left.
    let outcome = run(&import, &import.settings());
    assert_eq!((outcome.value, outcome.action.map(|c| tree.action(c))), (6.0, Some("Left")));
    assert_eq!(tree.ids_of(&outcome.visited), ["a", "b1", "c1", "c2", "w0", "b2", "l1", "c3"]);
    assert_eq!(import.states_of(&outcome.visited), states("a b1 b2 c1 c2 c3 l1 w0"));
    // Searched to the end, b1 = min(0, 9) = 0 and the win state w0 (2) is best.
    let full = run(&import, &SearchSettings { depth: None, ..import.settings() });
    assert_eq!((full.value, full.action.map(|c| tree.action(c))), (2.0, Some("Mid")));
    assert!(import.reference_differences().is_empty());
    assert_writes_a_valid_file(&import);
}

#[test]
fn broken_files_give_typed_located_errors() {
    let cut = "is cut by the depth limit (ply 2 = depth 1 x 2 agents)";
    let cases: Vec<(&str, &str, Option<u32>, ImportErrorKind)> = vec![
        ("syntax.test", "syntax.test", Some(3), ImportErrorKind::Syntax { text: "depth: 1".into() }),
        (
            "unterminated.test",
            "unterminated.test",
            Some(14),
            ImportErrorKind::Unterminated { key: "evaluation".into() },
        ),
        (
            "unknown-alg.test",
            "unknown-alg.test",
            Some(2),
            ImportErrorKind::UnknownAlgorithm { alg: "GreedyAgent".into() },
        ),
        (
            "missing-evaluation.test",
            "missing-evaluation.test",
            Some(12),
            ImportErrorKind::MissingEvaluation { state: "w2".into(), reason: "is a win state".into() },
        ),
        (
            "missing-cut-evaluation.test",
            "missing-cut-evaluation.test",
            Some(12),
            ImportErrorKind::MissingEvaluation { state: "c".into(), reason: cut.into() },
        ),
        ("bad-successor.test", "bad-successor.test", Some(12), ImportErrorKind::BadSuccessor { text: "b y".into() }),
        (
            "bad-value.test",
            "bad-value.test",
            Some(17),
            ImportErrorKind::BadValue { state: "l1".into(), text: "minus-one".into() },
        ),
        (
            "duplicate-action.test",
            "duplicate-action.test",
            Some(12),
            ImportErrorKind::DuplicateAction { state: "b".into(), action: "x".into(), first: 11 },
        ),
        ("missing-key.test", "missing-key.test", None, ImportErrorKind::MissingKey { key: "start_state".into() }),
        (
            "solution-action.test",
            "solution-action.solution",
            Some(1),
            ImportErrorKind::UnknownSolutionAction {
                action: "Up".into(),
                state: "a".into(),
                available: vec!["Left".into(), "Right".into()],
            },
        ),
        (
            "pacman.test",
            "pacman.test",
            Some(1),
            ImportErrorKind::UnsupportedClass { class: "PacmanGameTreeTest".into() },
        ),
        ("no-such-file.test", "no-such-file.test", None, ImportErrorKind::Unreadable { message: String::new() }),
    ];
    for (file, blamed, line, kind) in cases {
        let path = fixtures().join("broken").join(file);
        let error = cs188::import_file(&path).expect_err(file);
        assert_eq!(error.file, fixtures().join("broken").join(blamed), "{file}");
        assert_eq!(error.line, line, "{file}: {error}");
        if let ImportErrorKind::Unreadable { .. } = kind {
            assert!(matches!(error.kind, ImportErrorKind::Unreadable { .. }), "{error}");
        } else {
            assert_eq!(error.kind, kind, "{file}");
        }
        let shown = error.to_string();
        let place = match line {
            Some(line) => format!("{}:{line}: ", error.file.display()),
            None => format!("{}: ", error.file.display()),
        };
        assert!(shown.starts_with(&place), "{shown}");
    }
}

#[test]
fn parsing_is_pure_and_matches_the_file_wrapper() {
    let path = fixtures().join("good/alphabeta-tie.test");
    let text = std::fs::read_to_string(&path).unwrap();
    let solution = std::fs::read_to_string(cs188::solution_path(&path)).unwrap();
    let test = cs188::parse_test(&text, Path::new("elsewhere/alphabeta-tie.test")).unwrap();
    let solution = cs188::parse_solution(&solution, Path::new("elsewhere/alphabeta-tie.solution")).unwrap();
    assert_eq!((test.depth, test.num_agents, test.ply_limit(), test.successors.len()), (2, 2, 4, 11));
    assert_eq!(solution.action, "Stop");
    let pure = cs188::convert(&test, Some(&solution), "good-alphabeta-tie").unwrap();
    let from_file = import("good/alphabeta-tie.test");
    assert_eq!(tree_to_yaml(&pure.tree), tree_to_yaml(&from_file.tree));
}

/// The published suite, when the folder is there (CI has it): every test
/// imports to a valid file whose reference result is CS188's answer.
#[test]
fn the_cs188_suite_is_reproduced() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/cs188");
    if !root.is_dir() {
        crate::common::unavailable(&format!("the CS188 suite at {}", root.display()));
        return;
    }
    let mut total = 0;
    let mut per_question = Vec::new();
    for question in ["q2", "q3", "q4"] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(root.join(question))
            .map(|entries| entries.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        files.retain(|path| path.extension().is_some_and(|e| e == "test"));
        files.sort();
        for path in &files {
            let import = cs188::import_file(path).unwrap_or_else(|e| panic!("{e}"));
            let solution = import.solution.clone().unwrap_or_else(|| panic!("{}: no .solution", path.display()));
            let tree = assert_writes_a_valid_file(&import);
            let settings = SearchSettings::resolve(import.algorithm, tree.search_defaults(), None, None);
            assert!(!settings.prune_on_equal);
            let outcome = engine::search(&tree, &settings).unwrap();
            let action = outcome.action.map(|c| tree.action(c));
            assert_eq!(action, Some(solution.action.as_str()), "{}", path.display());
            let entered: BTreeSet<String> = outcome
                .visited
                .iter()
                .map(|&node| import.state_of(tree.id(node)).expect("every id maps back").to_string())
                .collect();
            assert_eq!(Some(&entered), solution.generated.as_ref(), "{}", path.display());
            assert!(import.reference_differences().is_empty());
        }
        total += files.len();
        per_question.push(format!("{question}: {}", files.len()));
    }
    println!("CS188 suite: {total} tests reproduced ({})", per_question.join(", "));
    assert_eq!(total, 82, "the Fall 2023 suite has 82 game-tree tests");
}

fn treegrade(args: &[&std::ffi::OsStr]) -> Output {
    Command::cargo_bin("treegrade").expect("the binary is built").env("NO_COLOR", "1").args(args).output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn cli_imports_a_folder_of_good_tests() {
    let out = tempfile::tempdir().unwrap();
    let course = out.path().join("course");
    let target = course.join("tests");
    let output = treegrade(&[
        "import".as_ref(),
        "cs188".as_ref(),
        fixtures().join("good").as_os_str(),
        "-o".as_ref(),
        course.as_os_str(),
    ]);
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}{}", text(&output.stderr));
    assert_eq!(stdout.lines().count(), 4, "{stdout}");
    assert!(stdout.lines().all(|line| line.starts_with("ok     ")), "{stdout}");
    let mut written: Vec<String> =
        std::fs::read_dir(&target).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect();
    written.sort();
    assert_eq!(
        written,
        [
            "good-alphabeta-tie.yaml",
            "good-depth-limited.yaml",
            "good-expectimax-two-ghosts.yaml",
            "good-minimax-shared-state.yaml"
        ]
    );
    // The course: one question per agent of the mixed `good` folder, each
    // test named once, loadable as an assignment.
    let assignment = std::fs::read_to_string(course.join("assignment.yaml")).unwrap();
    for id in ["good-minimax", "good-alphabeta", "good-expectimax"] {
        assert!(assignment.contains(&format!("- id: {id}\n")), "{assignment}");
    }
    assert!(assignment.contains("{kits}/cs188/treegrade_cs188.py"), "{assignment}");
    assert!(text(&output.stderr).contains("good-minimax (2 tests, 2 points)"), "{}", text(&output.stderr));
    assert!(std::fs::read_to_string(course.join("README.md")).unwrap().contains("multiAgents.py"));
    let validate = treegrade(&["validate".as_ref(), target.as_os_str()]);
    assert_eq!(validate.status.code(), Some(0), "{}{}", text(&validate.stdout), text(&validate.stderr));
    assert_eq!(text(&validate.stdout).lines().filter(|l| l.starts_with("ok ")).count(), 4);
    let solve = treegrade(&[
        "solve".as_ref(),
        target.join("good-alphabeta-tie.yaml").as_os_str(),
        "-a".as_ref(),
        "alphabeta".as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
    ]);
    let json: serde_json::Value = serde_json::from_slice(&solve.stdout).unwrap();
    assert_eq!((json["value"].as_f64(), json["action"].as_str()), (Some(6.0), Some("Stop")));
}

#[test]
fn cli_goes_on_past_bad_files_and_exits_2() {
    let out = tempfile::tempdir().unwrap();
    let output = treegrade(&[
        "import".as_ref(),
        "cs188".as_ref(),
        fixtures().as_os_str(),
        "-o".as_ref(),
        out.path().as_os_str(),
    ]);
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(2), "{stdout}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 15, "one line per .test file: {stdout}");
    assert_eq!(lines.iter().filter(|l| l.starts_with("ok     ")).count(), 4, "{stdout}");
    // pacman.test is a PacmanGameTreeTest, a class treegrade runs, without its game (seed, layout, solution).
    assert_eq!(lines.iter().filter(|l| l.starts_with("skip   ")).count(), 0, "{stdout}");
    assert_eq!(lines.iter().filter(|l| l.starts_with("error  ")).count(), 11, "{stdout}");
    assert!(stdout.contains("pacman.test: missing `seed`"), "{stdout}");
    assert!(stdout.contains("syntax.test:3: expected `key: \"value\"`"), "{stdout}");
    assert!(
        stdout.contains("missing-evaluation.test:12: state `w2` is a win state, but `evaluation` gives it no value")
    );
    assert!(stdout.contains("unknown-alg.test:2: unknown alg `GreedyAgent`"), "{stdout}");
    assert!(stdout.contains("solution-action.solution:1: the solution's action `Up`"), "{stdout}");
    assert!(text(&output.stderr).contains("imported 4 of 15 files (0 skipped, 11 failed)"));
    // The good tests were written all the same.
    assert!(out.path().join("tests/good-depth-limited.yaml").is_file());
    assert!(!out.path().join("tests/broken-syntax.yaml").exists());
    assert!(out.path().join("assignment.yaml").is_file(), "the tests that imported make a course");
}

#[test]
fn cli_rejects_paths_without_tests() {
    let out = tempfile::tempdir().unwrap();
    let empty = tempfile::tempdir().unwrap();
    let output = treegrade(&[
        "import".as_ref(),
        "cs188".as_ref(),
        empty.path().as_os_str(),
        "-o".as_ref(),
        out.path().as_os_str(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("no `.test` files"), "{}", text(&output.stderr));
    let missing = treegrade(&[
        "import".as_ref(),
        "cs188".as_ref(),
        "does-not-exist.test".as_ref(),
        "-o".as_ref(),
        out.path().as_os_str(),
    ]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(text(&missing.stdout).starts_with("error  does-not-exist.test: cannot read the file"));
}
