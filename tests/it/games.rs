//! Trees given by a game (docs/format.md 7 and 8.1) through the command
//! line: a suite of positions whose expectations were computed by an
//! independent implementation of the format (value, action and the whole
//! visited order), invalid game files refused with exit 2 and a place, and
//! snapshots of `solve` on a game.

use crate::common::{self, Scratch};

use std::path::Path;

use assert_cmd::Command;

fn treegrade(args: &[&str]) -> (i32, String, String) {
    let output = Command::cargo_bin("treegrade")
        .expect("the binary is built")
        .env("NO_COLOR", "1")
        .args(args)
        .output()
        .expect("treegrade runs");
    let text = |bytes: Vec<u8>| String::from_utf8(bytes).expect("UTF-8");
    (output.status.code().expect("an exit status"), text(output.stdout), text(output.stderr))
}

/// Every file of `tests/fixtures/games/suite` agrees with its `expect` blocks.
#[test]
fn the_game_suite_agrees_with_its_expectations() {
    let folder = common::repo().join("tests/fixtures/games/suite");
    let (status, stdout, stderr) = treegrade(&["validate", folder.to_str().unwrap()]);
    assert_eq!(status, 0, "{stdout}{stderr}");
    let checked = stdout.lines().filter(|line| line.starts_with("ok ")).count();
    assert!(checked >= 70, "the suite has at least 70 game files, found {checked}:\n{stdout}");
    let games = ["tic-tac-toe", "connect-four", "gomoku", "pig", "mnk"];
    for game in games {
        let mentioned = std::fs::read_dir(&folder)
            .unwrap()
            .filter_map(|entry| std::fs::read_to_string(entry.unwrap().path()).ok())
            .any(|text| text.contains(game));
        assert!(mentioned, "the suite has a {game} file");
    }
}

/// An expectation that the reference does not meet is a failure: the suite
/// above cannot pass by checking nothing.
#[test]
fn a_wrong_expectation_about_a_game_fails() {
    let scratch = Scratch::new();
    let file = scratch.write(
        "wrong.yaml",
        "rules: tic-tac-toe\nposition: \"x../.o./..x\"\nexpect:\n  alphabeta: {value: 0, action: a2}\n",
    );
    let (status, stdout, _) = treegrade(&["validate", file.to_str().unwrap()]);
    assert_eq!(status, 2, "{stdout}");
    assert!(stdout.contains("action: expected a2, the reference chooses b3"), "{stdout}");
}

/// Each invalid file of `tests/fixtures/games` exits 2 and names a place in it.
#[test]
fn invalid_game_files_are_refused_with_their_place() {
    let fixtures = common::repo().join("tests/fixtures/games");
    let manifest = std::fs::read_to_string(fixtures.join("invalid.txt")).expect("the manifest");
    let mut checked = 0;
    for line in manifest.lines().filter(|line| !line.starts_with('#') && !line.trim().is_empty()) {
        let mut words = line.split_whitespace();
        let name = words.next().expect("a file name");
        let path = fixtures.join("invalid").join(name);
        let mut args = vec!["solve", path.to_str().unwrap()];
        args.extend(words);
        args.extend(["--format", "json"]);
        let (status, stdout, stderr) = treegrade(&args);
        assert_eq!(status, 2, "{name}: {stdout}{stderr}");
        assert!(stdout.is_empty(), "{name} printed a result: {stdout}");
        assert!(stderr.contains(name), "{name}: the error names the file: {stderr}");
        assert!(!stderr.contains("panicked"), "{name}: {stderr}");
        checked += 1;
    }
    assert!(checked >= 50, "the manifest lists {checked} files");
}

/// The format's own example (docs/format.md 7) and a depth cut with move ordering.
#[test]
fn solve_on_games_as_printed() {
    let scratch = Scratch::new();
    let file = scratch
        .write("ttt-corner-or-edge.yaml", "name: ttt-corner-or-edge\nrules: tic-tac-toe\nposition: \"x../.o./..x\"\n");
    let (status, text, stderr) = treegrade(&["solve", file.to_str().unwrap(), "-a", "alphabeta"]);
    assert_eq!(status, 0, "{stderr}");
    let text = text.replace(&scratch.path().display().to_string(), "[TMP]");
    let first_lines: Vec<&str> = text.lines().take(5).collect();
    insta::assert_snapshot!("game_ttt_alphabeta_text_head", first_lines.join("\n"));
    let (_, json, _) = treegrade(&["solve", file.to_str().unwrap(), "-a", "alphabeta", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&json).expect("one JSON object");
    assert_eq!(json["value"], 0.0);
    assert_eq!(json["action"], "b3");
    let visited = json["visited"].as_array().unwrap();
    assert_eq!(visited.len(), 318, "docs/format.md 7: 318 nodes entered");
    assert_eq!(visited[..4], ["root", "b3", "b3-c3", "b3-c3-a2"]);
    assert_eq!(json["stats"]["tree_nodes"], serde_json::Value::Null, "a game's tree is never made whole");

    let c4 =
        scratch.write("c4.yaml", "rules: {game: connect-four, order: center-first}\nsearch: {depth: 2, eval: lines}\n");
    let args = ["solve", c4.to_str().unwrap(), "-a", "alphabeta", "--move-ordering", "eval", "--format", "json"];
    let (status, json, stderr) = treegrade(&args);
    assert_eq!(status, 0, "{stderr}");
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    insta::assert_json_snapshot!("game_c4_depth_2_ordered_json", json);
}

/// A search past the node limit is refused at once, not run for an hour.
#[test]
fn a_search_over_the_node_limit_is_refused() {
    let scratch = Scratch::new();
    let file = scratch.write("gomoku.yaml", "rules: gomoku\n");
    let started = std::time::Instant::now();
    let (status, _, stderr) = treegrade(&["solve", file.to_str().unwrap(), "-a", "alphabeta", "--max-nodes", "100000"]);
    assert_eq!(status, 2, "{stderr}");
    assert!(stderr.contains("made more than 100000 nodes of gomoku's tree"), "{stderr}");
    assert!(stderr.contains("gomoku.yaml:1:8"), "{stderr}");
    assert!(started.elapsed().as_secs() < 60);
}

/// Commands that read only written trees say so about a game file.
#[test]
fn a_written_tree_flag_is_refused_on_a_game_and_back() {
    let scratch = Scratch::new();
    let written = Path::new(env!("CARGO_MANIFEST_DIR")).join("test-cases/aima-fig5-2.yaml");
    let (status, _, stderr) = treegrade(&["solve", written.to_str().unwrap(), "-a", "minimax", "--eval", "lines"]);
    assert_eq!(status, 2);
    assert!(stderr.contains("--eval names a game's evaluation"), "{stderr}");
    let file = scratch.write("eval.yaml", "root: A\nnodes:\n  A: {max: [1, 2]}\nsearch: {eval: lines}\n");
    let (status, _, stderr) = treegrade(&["validate", file.to_str().unwrap()]);
    assert_eq!(status, 2);
    assert!(stderr.contains("`eval` names a game's evaluation"), "{stderr}");
}

fn check_games(submission: &Path) -> (i32, String, String) {
    let output = Command::cargo_bin("treegrade")
        .expect("the binary is built")
        .env("NO_COLOR", "1")
        .env_remove("TREEGRADE_ASSIGNMENT")
        .args(["check", "--assignment"])
        .arg(common::repo().join("assignments/games"))
        .arg("--submission")
        .arg(submission)
        .timeout(std::time::Duration::from_secs(600))
        .output()
        .expect("treegrade runs");
    let text = |bytes: Vec<u8>| String::from_utf8(bytes).expect("UTF-8");
    (output.status.code().expect("an exit status"), text(output.stdout), text(output.stderr))
}

/// The games assignment's references get full marks, in both languages.
#[test]
fn the_games_references_get_full_marks() {
    for reference in ["reference/games/python", "reference/games/rust"] {
        let (status, stdout, stderr) = check_games(&common::repo().join(reference));
        assert_eq!(status, 0, "{reference}: {stdout}{stderr}");
        assert!(stdout.contains("Total: 20/20"), "{reference}: {stdout}");
    }
}

/// The written-tree reference knows no move ordering: it passes the three
/// searches on games and fails exactly the question that orders children.
#[test]
fn a_search_without_move_ordering_fails_only_q4() {
    let (status, stdout, _) = check_games(&common::repo().join("reference/python"));
    assert_eq!(status, 1, "{stdout}");
    for passed in ["Question q1: 5/5", "Question q2: 5/5", "Question q3: 5/5", "Question q4: 0/5", "Total: 15/20"] {
        assert!(stdout.contains(passed), "{passed}: {stdout}");
    }
    assert!(stdout.contains("at step 2 the expected order enters b2, but you entered a3"), "{stdout}");
    assert!(stdout.contains("likely cause: you search the children in the game's order"), "{stdout}");
}

/// The games reference in Python with `find` replaced by `replace` (which
/// must occur exactly once, so that a change to the reference that breaks
/// the mutant fails here), written as a submission into `dir`.
fn games_mutant(dir: &Path, find: &str, replace: &str) {
    let reference = std::fs::read_to_string(common::repo().join("reference/games/python/search.py")).unwrap();
    assert_eq!(reference.matches(find).count(), 1, "`{find}` occurs once in the games reference");
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("search.py"), reference.replacen(find, replace, 1)).unwrap();
}

/// The games reference's alpha-beta keeping the last of equal root
/// children: what it finds, and what it puts there.
const LAST_TIE: (&str, &str) = (
    "searched_successors(game, node, player):\n            value, _ = search(child, ply + 1, alpha, beta)\n            if better(player, value, best):",
    "searched_successors(game, node, player):\n            value, _ = search(child, ply + 1, alpha, beta)\n            if better(player, value, best) or (ply == 0 and value == best):",
);

/// Each question's points as the text report prints them ("Question q2: 4.375/5").
fn question_points(stdout: &str, question: &str) -> String {
    let prefix = format!("Question {question}: ");
    stdout
        .lines()
        .filter_map(|line| line.strip_prefix(&prefix))
        .find(|rest| rest.ends_with("/5"))
        .unwrap_or_else(|| panic!("no points for {question}: {stdout}"))
        .to_string()
}

/// Bugs that once kept full marks on the games assignment lose points: the
/// root keeping the last of equal children (q2 and q4 each have a position
/// where a later root child ties the best), a search that assumes the root
/// has children (q1 has a game already over), and a cut valued from the
/// mover's view (q2 and q4 cut at positions of both sides to move).
#[test]
fn bugs_that_escaped_the_games_assignment_lose_points() {
    let scratch = Scratch::new();
    let last_tie = scratch.path().join("last-tie");
    games_mutant(&last_tie, LAST_TIE.0, LAST_TIE.1);
    let (status, stdout, _) = check_games(&last_tie);
    assert_eq!(status, 1, "{stdout}");
    for question in ["q2", "q4"] {
        assert_ne!(question_points(&stdout, question), "5/5", "{question}: {stdout}");
    }
    assert!(stdout.contains("FAIL  q2/c4-tie-at-root") && stdout.contains("FAIL  q4/order-ttt-tie"), "{stdout}");

    let no_terminal_root = scratch.path().join("no-terminal-root");
    games_mutant(
        &no_terminal_root,
        "    return search(game.root, 0)\n\n\ndef alphabeta",
        "    if game.depth == 0:\n        return game.evaluate(game.root), None\n    pick = max if game.player(game.root) == \"max\" else min\n    \
         scored = [(search(child, 1)[0], action) for action, child in game.successors(game.root)]\n    \
         return pick(scored, key=lambda pair: pair[0])\n\n\ndef alphabeta",
    );
    let (status, stdout, _) = check_games(&no_terminal_root);
    assert_eq!(status, 1, "{stdout}");
    assert_ne!(question_points(&stdout, "q1"), "5/5", "{stdout}");
    assert!(stdout.contains("ERROR q1/ttt-game-over"), "{stdout}");
    assert!(stdout.contains("min() arg is an empty sequence"), "the student's own error is shown: {stdout}");

    let mover_view = scratch.path().join("mover-view");
    games_mutant(
        &mover_view,
        "        return game.evaluate(node)\n    return None",
        "        value = game.evaluate(node)\n        return -value if game.player(node) == \"min\" else value\n    return None",
    );
    let (status, stdout, _) = check_games(&mover_view);
    assert_eq!(status, 1, "{stdout}");
    let failed_with_cuts = stdout
        .lines()
        .filter(|line| line.trim_start().starts_with("FAIL  q2/") || line.trim_start().starts_with("FAIL  q4/"))
        .count();
    assert!(failed_with_cuts >= 3, "cuts at both sides to move in q2 and q4: {stdout}");
    assert_ne!(question_points(&stdout, "q4"), "5/5", "{stdout}");
}

/// `init --assignment games` writes the games starter; it gets 0 with a message per test.
#[test]
fn the_games_starter_gets_zero_with_a_message_per_test() {
    let scratch = Scratch::new();
    let dir = scratch.path().join("my-games");
    let (status, stdout, stderr) = treegrade(&["init", "--assignment", "games", dir.to_str().unwrap()]);
    assert_eq!(status, 0, "{stderr}");
    assert!(stdout.contains("treegrade check --assignment games --submission"), "{stdout}");
    let handout = std::fs::read_to_string(dir.join("README.md")).expect("the handout is written");
    assert!(handout.contains("connect-four"), "the games handout, not the default one");
    let (status, stdout, _) = treegrade(&["check", "--assignment", "games", "--submission", dir.to_str().unwrap()]);
    assert_eq!(status, 1, "{stdout}");
    assert!(stdout.contains("Total: 0/20"), "{stdout}");
    let errors = stdout.lines().filter(|line| line.trim_start().starts_with("ERROR")).count();
    let explained = stdout.lines().filter(|line| line.contains("is not implemented yet")).count();
    assert_eq!(errors, 22, "{stdout}");
    assert_eq!(errors, explained, "{stdout}");
}

/// A course's own game (docs/format.md 7.3): the Nim example agrees with
/// its expectations, and a rules program that crashes, answers garbage,
/// says nothing, changes its answers or refuses the position is a clear
/// error naming the game file (exit 2), never a hang or a panic.
#[test]
fn a_courses_own_game_is_served_by_its_program_and_its_failures_are_named() {
    let nim = common::repo().join("examples/nim");
    let (status, stdout, stderr) = treegrade(&["validate", nim.to_str().unwrap()]);
    assert_eq!(status, 0, "{stdout}{stderr}");
    assert_eq!(stdout.lines().filter(|line| line.starts_with("ok ")).count(), 2, "{stdout}");

    let rules = common::repo().join("tests/fixtures/games/rules");
    let good = rules.join("countdown-good.yaml");
    let (status, json, stderr) = treegrade(&["solve", good.to_str().unwrap(), "-a", "minimax", "--format", "json"]);
    assert_eq!(status, 0, "{stderr}");
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!((json["value"].as_f64(), json["action"].as_str()), (Some(1.0), Some("take1")));
    assert_eq!(json["visited"].as_array().unwrap().len(), 12);

    let cases = [
        ("countdown-crash.yaml", "exited with status 1 (its stderr: Traceback: something broke in moves)"),
        ("countdown-garbage.yaml", "which is not JSON"),
        ("countdown-silent.yaml", "did not answer within 10 s"),
        ("countdown-changing.yaml", "differently when asked again"),
        ("countdown-bad-position.yaml", "refuses this position: left must be >= 0"),
        ("missing-program.yaml", "no-such-file.py"),
    ];
    for (file, message) in cases {
        let path = rules.join(file);
        let (status, stdout, stderr) = treegrade(&["solve", path.to_str().unwrap(), "-a", "minimax"]);
        assert_eq!(status, 2, "{file}: {stdout}{stderr}");
        assert!(stderr.contains(message), "{file}: {stderr}");
        assert!(stderr.contains(file), "{file}: the error names the game file: {stderr}");
        assert!(!stderr.contains("panicked"), "{file}: {stderr}");
    }
}

/// A failed game test shows the positions as boards: text in the terminal,
/// a grid in HTML; where the orders part, the reference's and the student's.
#[test]
fn failed_game_tests_show_their_boards() {
    let scratch = Scratch::new();
    let games = common::repo().join("assignments/games");
    let written_reference = common::repo().join("reference/python");
    let html = scratch.path().join("report.html");
    let args = |format: &str| {
        let mut args = vec!["check", "--assignment", games.to_str().unwrap()];
        args.extend(["--submission", written_reference.to_str().unwrap(), "--test", "order-ttt-centre"]);
        args.extend(["--format", format]);
        args.into_iter().map(str::to_string).collect::<Vec<_>>()
    };
    let text_args = args("text");
    let (status, text, _) = treegrade(&text_args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(status, 1, "{text}");
    let boards: Vec<&str> = text.lines().skip_while(|line| !line.contains("the start position:")).take(12).collect();
    insta::assert_snapshot!("game_failure_boards_text", boards.join("\n"));
    let mut html_args = args("html");
    html_args.extend(["--output".to_string(), html.display().to_string()]);
    let (status, _, stderr) = treegrade(&html_args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(status, 1, "{stderr}");
    let page = std::fs::read_to_string(&html).unwrap();
    assert_eq!(page.matches("<figure class=\"board\">").count(), 3, "start, reference's node, student's node");
    assert!(page.contains("<td class=\"x\">X</td>"), "a drawn board with an X");
    assert!(page.contains("<pre class=\"position reference\">"), "the step-through shows the position at each step");
    assert!(page.contains("\"positions\":{\"reference\":[\" 3 ...\\n 2 ...\\n 1 ...\\n   abc\""), "{page}");
    assert!(page.contains("data-id=\"b2\""), "the game's tree is drawn as far as the searches went");
}

/// `generate: {game: FILE}` gives each student positions of their own,
/// reached by seeded random moves from the file's start: the same student
/// gets the same positions every time, two students different ones, and the
/// reference passes them all.
#[test]
fn generated_game_positions_are_each_students_own() {
    let assignment = common::repo().join("tests/fixtures/games/generated");
    let reference = common::repo().join("reference/games/python");
    let positions = |student: &str| {
        let output = Command::cargo_bin("treegrade")
            .unwrap()
            .env("TREEGRADE_SECRET", "a course's secret")
            .args(["check", "--assignment", assignment.to_str().unwrap(), "--submission"])
            .arg(&reference)
            .args(["--student", student, "--format", "json"])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
        let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        let tests: Vec<String> = report["questions"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|question| question["tests"].as_array().unwrap().iter())
            .map(|test| test["description"].as_str().unwrap_or_default().to_string())
            .collect();
        assert_eq!(tests.len(), 5);
        tests
    };
    let alice = positions("alice");
    assert!(alice[0].starts_with("ttt after the moves "), "{alice:?}");
    // Each position of a set moves the other side from the one before.
    for student in ["alice", "bob", "carol"] {
        let plies: Vec<usize> = positions(student)
            .iter()
            .take(3)
            .map(|description| description.trim_start_matches("ttt after the moves ").split('-').count() % 2)
            .collect();
        assert_eq!(plies, [0, 1, 0], "{student}: the side to move alternates");
    }
    // The first position of a set has a later root child tying the best.
    let scratch = Scratch::new();
    let last_tie = scratch.path().join("last-tie");
    games_mutant(&last_tie, LAST_TIE.0, LAST_TIE.1);
    for student in ["alice", "bob", "carol"] {
        let output = Command::cargo_bin("treegrade")
            .unwrap()
            .env("TREEGRADE_SECRET", "a course's secret")
            .env("NO_COLOR", "1")
            .args(["check", "--assignment", assignment.to_str().unwrap(), "--submission"])
            .arg(&last_tie)
            .args(["--student", student, "-q", "q1"])
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(stdout.contains("FAIL  q1/generated-1"), "{student}: {stdout}");
    }
    assert!(alice[4].starts_with("pig after the moves "), "{alice:?}");
    assert_eq!(alice, positions("alice"), "the same student, the same positions");
    assert_ne!(alice, positions("bob"), "another student, other positions");
}

/// `render` draws the part of a game's tree that the search entered, with
/// a student's trace beside it; without a search there is nothing to draw.
#[test]
fn render_draws_the_part_a_search_entered() {
    let scratch = Scratch::new();
    let file = common::repo().join("assignments/games/tests/ttt-win-now.yaml");
    let svg = scratch.path().join("game.svg");
    let (status, _, stderr) =
        treegrade(&["render", file.to_str().unwrap(), "-a", "alphabeta", "-o", svg.to_str().unwrap()]);
    assert_eq!(status, 0, "{stderr}");
    let picture = std::fs::read_to_string(&svg).unwrap();
    for id in ["root", "c3", "c2"] {
        assert!(picture.contains(&format!("data-id=\"{id}\"")), "{id} is drawn");
    }
    let (status, _, stderr) = treegrade(&["render", file.to_str().unwrap(), "-o", svg.to_str().unwrap()]);
    assert_eq!(status, 2);
    assert!(stderr.contains("name the search to draw with --algorithm"), "{stderr}");
    let trace = scratch.write("trace.txt", "root\nroll\nroll-1\n");
    let pig = common::repo().join("assignments/games/tests/pig-start.yaml");
    let html = scratch.path().join("pig.html");
    let args = ["render", pig.to_str().unwrap(), "-a", "expectimax", "--trace", trace.to_str().unwrap()];
    let (status, _, stderr) = treegrade(&[&args[..], &["-o", html.to_str().unwrap()]].concat());
    assert_eq!(status, 0, "{stderr}");
    assert!(std::fs::read_to_string(&html).unwrap().contains("Step through"), "the student's trace is stepped through");
    let wrong = scratch.write("wrong.txt", "root\nc3\n");
    let args = ["render", pig.to_str().unwrap(), "-a", "expectimax", "--trace", wrong.to_str().unwrap()];
    let (status, _, stderr) = treegrade(&[&args[..], &["-o", html.to_str().unwrap()]].concat());
    assert_eq!(status, 2);
    assert!(stderr.contains("there is no node `c3` in the game"), "{stderr}");
}

/// A folder `init --assignment NAME` wrote knows its assignment: `check`
/// in it (or `--submission` it from elsewhere) grades that one, not the
/// default, as its starter's "Run `treegrade check` in this folder" says;
/// and what its handout cites is in the folder.
#[test]
fn a_folder_from_init_is_graded_on_its_own_assignment() {
    let scratch = Scratch::new();
    let assignments =
        [("games", "Game search on real games"), ("more-searches", "Beyond minimax"), ("adversarial-search", "Adv")];
    for (name, title) in assignments {
        let dir = scratch.path().join(name);
        let (status, _, stderr) = treegrade(&["init", "--assignment", name, dir.to_str().unwrap()]);
        assert_eq!(status, 0, "{stderr}");
        let handout = std::fs::read_to_string(dir.join("README.md")).unwrap();
        assert!(!handout.contains("starter/") && !handout.contains("FORMAT.md"), "{name}: {handout}");
        assert!(handout.contains("`search.py`") && dir.join("search.py").is_file(), "{name}");
        let check = |current: &std::path::Path, args: &[&str]| {
            let output = Command::cargo_bin("treegrade")
                .unwrap()
                .env("NO_COLOR", "1")
                .env_remove("TREEGRADE_ASSIGNMENT")
                .current_dir(current)
                .arg("check")
                .args(args)
                .output()
                .unwrap();
            String::from_utf8_lossy(&output.stdout).into_owned()
        };
        let inside = check(&dir, &[]);
        assert!(inside.starts_with(title), "{name}: {inside}");
        let outside = check(scratch.path(), &["--submission", dir.to_str().unwrap()]);
        assert!(outside.starts_with(title), "{name}: {outside}");
    }
    // A folder whose marker names nothing there is refused, with the names there are.
    let dir = scratch.path().join("games");
    std::fs::write(dir.join(".treegrade-assignment"), "/no/such/course\n").unwrap();
    let (status, _, stderr) = treegrade(&["check", "--submission", dir.to_str().unwrap()]);
    assert_eq!(status, 2, "{stderr}");
    assert!(stderr.contains("names the assignment /no/such/course, which is neither"), "{stderr}");
}
