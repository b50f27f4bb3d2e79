//! Whole games with programs: the grader serves each move's position
//! through the oracle with a node budget, and every failure is charged to
//! the side that caused it.

use std::sync::Arc;
use std::time::Duration;

use crate::common::{self, Scratch};
use treegrade::game::{Game, GameArgs, make};
use treegrade::grader::player::ProgramAgent;
use treegrade::grader::runner::ProgramSpec;
use treegrade::play::builtin::BuiltIn;
use treegrade::play::{Clock, Ending, FaultKind, MoveLimits, SeriesSetup, play_series, tally};

fn game(name: &str) -> Arc<dyn Game> {
    Arc::from(make(&GameArgs { name, params: &[], position: None, utility: None }).expect("a built-in game"))
}

/// A Python agent in `dir`, started directly (no sandbox) with the kit.
pub fn python_agent(name: &str, dir: &std::path::Path) -> ProgramAgent {
    ProgramAgent::new(
        name,
        ProgramSpec {
            command: vec!["python3".into(), "search.py".into()],
            dir: dir.to_path_buf(),
            env: vec![("PYTHONPATH".into(), common::repo().join("grader/kits/python").into())],
            policy: None,
        },
    )
}

fn setup(games: u32, budget: Option<u32>) -> SeriesSetup {
    SeriesSetup {
        label: "play".into(),
        games,
        openings: 1,
        seed: 5,
        max_plies: 1000,
        limits: MoveLimits { budget, time: Duration::from_secs(10), eval: Some("lines".into()) },
    }
}

/// The games reference plays through the grader: every move within its
/// budget, nodes counted, and it never loses to random play.
#[test]
fn the_reference_agent_plays_within_its_budget() {
    let game = game("tic-tac-toe");
    let mut reference = python_agent("reference", &common::repo().join("reference/games/python"));
    let mut random = BuiltIn::parse("random").unwrap().agent("random");
    let records = play_series(&game, &mut reference, &mut *random, &setup(4, Some(300)), &mut |_| {});
    for record in &records {
        assert!(matches!(record.ending, Ending::Terminal), "{}", record.summary());
        for ply in record.moves.iter().filter(|ply| ply.by.seat() == record.seat_of("reference")) {
            assert!(ply.entered <= 300, "{ply:?}");
            assert!(matches!(ply.clock, Some(Clock::Nodes | Clock::BudgetSpent)), "{ply:?}");
        }
    }
    let reference = tally(&records, "reference");
    assert_eq!(reference.losses, 0, "{reference:?}");
    assert!(reference.budget_spent_moves > 0, "the first moves use the whole budget");
    assert!(reference.entered > 0);
}

/// An agent whose code raises loses that game, and the next game is played.
#[test]
fn a_crash_loses_only_its_own_game() {
    let scratch = Scratch::new();
    scratch.write(
        "search.py",
        r#"
from treegrade_kit import run
moves = [0]
def choose_move(game):
    moves[0] += 1
    if moves[0] == 1:
        raise ValueError("boom")
    return game.actions(game.root)[0]
run(choose_move=choose_move)
"#,
    );
    let game = game("tic-tac-toe");
    let mut agent = python_agent("student", scratch.path());
    let mut random = BuiltIn::parse("random").unwrap().agent("random");
    let records = play_series(&game, &mut agent, &mut *random, &setup(2, None), &mut |_| {});
    let fault = records[0].fault_of(records[0].seat_of("student").unwrap()).expect("charged to the student");
    assert_eq!(fault.kind, FaultKind::Crashed);
    assert!(fault.message.contains("boom"), "{}", fault.message);
    assert!(records[0].fault_of(records[0].seat_of("random").unwrap()).is_none());
    assert!(records[1].fault_of(records[1].seat_of("student").unwrap()).is_none(), "{}", records[1].summary());
    let student = tally(&records, "student");
    assert_eq!(student.fault_count(FaultKind::Crashed), 1);
}

/// An agent that never enters the grader's tree searched a copy of its own:
/// its moves are marked as bounded by the wall clock alone.
#[test]
fn an_agent_with_its_own_rules_is_on_the_wall_clock() {
    let scratch = Scratch::new();
    scratch.write(
        "search.py",
        r#"
from treegrade_kit import run
def choose_move(game):
    board = game.position["board"]
    names = [c + r for r in "321" for c in "abc"]
    cells = "".join(board)
    return [n for n, cell in zip(names, cells) if cell == "."][0]
run(choose_move=choose_move)
"#,
    );
    let game = game("tic-tac-toe");
    let mut agent = python_agent("own-rules", scratch.path());
    let mut random = BuiltIn::parse("random").unwrap().agent("random");
    let records = play_series(&game, &mut agent, &mut *random, &setup(2, Some(100)), &mut |_| {});
    let own = tally(&records, "own-rules");
    assert_eq!(own.clean(), 2, "{}", records[0].summary());
    assert_eq!(own.wall_clock_moves, own.moves);
    assert_eq!(own.entered, 0);
}

fn check(submission: &str, format: &str) -> (Option<i32>, String) {
    check_on("tests/fixtures/play/never-lose", submission, format)
}

fn check_on(assignment: &str, submission: &str, format: &str) -> (Option<i32>, String) {
    let output = assert_cmd::Command::cargo_bin("treegrade")
        .unwrap()
        .current_dir(common::repo())
        .env("NO_COLOR", "1")
        .args(["check", "--assignment", assignment, "--submission", submission, "--format", format])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    (output.status.code(), text + &String::from_utf8_lossy(&output.stderr))
}

/// The games of a JSON report, without the times that change between runs.
fn games_of(report: &str) -> Vec<serde_json::Value> {
    let report: serde_json::Value = serde_json::from_str(report).expect("a JSON report");
    let tests = report["questions"][0]["tests"].as_array().expect("tests").clone();
    tests
        .into_iter()
        .map(|test| serde_json::json!([test["name"], test["score"], test["status"], test["play"]]))
        .collect()
}

/// A perfect tic-tac-toe agent never loses against random, greedy and
/// alpha-beta opponents: full marks. A random agent loses: 0, since the
/// minimum is missed. Both grades are the same on a rerun.
#[test]
fn a_perfect_agent_passes_never_lose_and_a_random_one_fails() {
    let (status, perfect) = check("tests/fixtures/play/agents/perfect", "json");
    assert_eq!(status, Some(0), "{perfect}");
    let report: serde_json::Value = serde_json::from_str(&perfect).unwrap();
    assert_eq!(report["score"], 3.0);
    assert_eq!(report["questions"][0]["scoring"], "thresholds");
    for test in report["questions"][0]["tests"].as_array().unwrap() {
        assert_eq!(test["play"]["results"]["losses"], 0, "{test}");
        assert_eq!(test["play"]["games"].as_array().unwrap().len(), 6);
    }
    let (status, random) = check("tests/fixtures/play/agents/random", "json");
    assert_eq!(status, Some(1), "{random}");
    let report: serde_json::Value = serde_json::from_str(&random).unwrap();
    assert_eq!(report["score"], 0.0);
    let first = &report["questions"][0]["tests"][0];
    assert!(first["reason"].as_str().unwrap().contains("at least 6 needed, or the question earns 0"), "{first}");
    assert_eq!(games_of(&random), games_of(&check("tests/fixtures/play/agents/random", "json").1), "a rerun");
    assert_eq!(games_of(&perfect), games_of(&check("tests/fixtures/play/agents/perfect", "json").1), "a rerun");
}

/// The text report gives each opponent's results and, for a failure, the
/// rates with their intervals and every game's moves; HTML steps through them.
#[test]
fn reports_give_rates_replays_and_the_seed() {
    let (_, text) = check("tests/fixtures/play/agents/random", "text");
    let text = text.lines().skip(1).collect::<Vec<_>>().join("\n");
    insta::assert_snapshot!("play_text_report", text);
    let (_, html) = check("tests/fixtures/play/agents/random", "html");
    assert!(html.contains("<section class=\"replay\""), "a board to step through");
    assert!(html.contains("seed 2026"));
    assert_eq!(html.matches("<details class=\"game\">").count(), 18, "every game of the three opponents");
}

/// Mistakes in a `play:` block are located and say what is expected.
#[test]
fn a_play_question_is_checked_when_it_is_loaded() {
    let scratch = Scratch::new();
    let write = |play: &str| {
        scratch.write("assignment.yaml", &format!("questions:\n  - id: q1\n    points: 1\n    play:\n{play}"));
        treegrade::load::assignment::load_assignment(scratch.path()).map(|_| ()).unwrap_err().render(false)
    };
    let unknown = write("      game: tic-tac-toe\n      opponents: [mcts]\n      thresholds: {wins: [1]}\n");
    assert!(unknown.contains("unknown built-in agent `mcts`"), "{unknown}");
    let measure = write("      game: tic-tac-toe\n      opponents: [random]\n      thresholds: {victories: [1]}\n");
    assert!(measure.contains("unknown measure `victories`"), "{measure}");
    let nothing = write("      game: tic-tac-toe\n      opponents: [random]\n");
    assert!(nothing.contains("scores nothing"), "{nothing}");
    let game = write("      game: chess.yaml\n      opponents: [random]\n      thresholds: {wins: [1]}\n");
    assert!(game.contains("neither a built-in game"), "{game}");
    scratch.write(
        "assignment.yaml",
        "questions:\n  - id: q1\n    points: 1\n    algorithm: minimax\n    play: {game: pig, opponents: [random], thresholds: {wins: [1]}}\n",
    );
    let both = treegrade::load::assignment::load_assignment(scratch.path()).unwrap_err().render(false);
    assert!(both.contains("plays games, so it takes no algorithm"), "{both}");
}

/// The games reference in Python and in Rust choose the same moves through
/// their kits (the node budget cuts both at the same node, whatever the
/// machine), and both win most games against a greedy player at
/// connect-four.
#[test]
fn the_python_and_rust_references_play_the_same_games() {
    let (_, python) = check_on("tests/fixtures/play/connect-four", "reference/games/python", "json");
    let (_, rust) = check_on("tests/fixtures/play/connect-four", "reference/games/rust", "json");
    assert_eq!(games_of(&python), games_of(&rust));
    let report: serde_json::Value = serde_json::from_str(&python).unwrap();
    let results = &report["questions"][0]["tests"][0]["play"]["results"];
    assert!(results["wins"].as_u64().unwrap() >= 2, "{results}");
    assert_eq!(results["faults"], serde_json::json!({}), "{results}");
    assert!(results["budget_spent_moves"].as_u64().unwrap() > 0, "the budget was the clock: {results}");
}

/// An opponent that is a program of the course's plays from its own folder,
/// in a sandbox of its own.
#[test]
fn a_course_program_is_an_opponent() {
    let (status, report) =
        check_on("tests/fixtures/play/program-opponent", "tests/fixtures/play/agents/perfect", "json");
    assert_eq!(status, Some(0), "{report}");
    let report: serde_json::Value = serde_json::from_str(&report).unwrap();
    let test = &report["questions"][0]["tests"][0];
    assert_eq!(test["name"], "q1/course-random");
    assert_eq!(test["play"]["results"]["games"], 4);
    let opponent_moves: u64 = test["play"]["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|game| game["moves"].as_array().unwrap().len() as u64)
        .sum();
    assert!(opponent_moves > 8, "both sides moved");
}

/// `treegrade play ARGS` from the repository, with no colour and no `$TREEGRADE_ASSIGNMENT`.
fn play_command(args: &[&str]) -> assert_cmd::Command {
    let mut command = assert_cmd::Command::cargo_bin("treegrade").unwrap();
    command.current_dir(common::repo()).env("NO_COLOR", "1").env_remove("TREEGRADE_ASSIGNMENT").arg("play").args(args);
    command
}

fn play_in_terminal(args: &[&str], input: &str) -> String {
    let output = play_command(args).write_stdin(input).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A game in the terminal: the board, the legal moves, a move refused, an
/// undo, and the end.
#[test]
fn a_person_plays_in_the_terminal_with_undo() {
    let transcript =
        play_in_terminal(&["tic-tac-toe", "--against", "random", "--seed", "3"], "b2\nundo\nzz\nb2\na1\nc3\n");
    insta::assert_snapshot!("play_terminal", transcript);
}

/// Against a program: the perfect agent never lets a person win.
#[test]
fn a_person_plays_against_an_agents_program() {
    let transcript = play_in_terminal(
        &["tic-tac-toe", "--against", "tests/fixtures/play/agents/perfect", "--as", "second"],
        "a1\nc3\nc1\nb1\na3\nc2\nb3\n",
    );
    assert!(transcript.contains("perfect played b2"), "{transcript}");
    assert!(!transcript.contains("you win"), "{transcript}");
    assert!(transcript.contains("game over:"), "{transcript}");
}

/// `--watch A B`: two agents play, every board shown.
#[test]
fn two_agents_play_while_a_person_watches() {
    let transcript = play_in_terminal(&["connect-four", "--watch", "greedy", "alphabeta:2", "--delay", "0"], "");
    assert!(transcript.contains("greedy played d"), "{transcript}");
    assert!(
        transcript.ends_with("game over: alphabeta:2 (MIN) wins\n") || transcript.contains("game over:"),
        "{transcript}"
    );
    insta::assert_snapshot!("play_watch", transcript);
}

/// A class graded with `batch` on a play question: each student's points
/// by thresholds in the gradebook, and the games in each one's reports.
#[test]
fn a_class_is_graded_on_a_play_question_with_batch() {
    let scratch = Scratch::new();
    let class = scratch.path().join("class");
    for agent in ["perfect", "random"] {
        let dir = class.join(agent);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::copy(
            common::repo().join("tests/fixtures/play/agents").join(agent).join("search.py"),
            dir.join("search.py"),
        )
        .unwrap();
    }
    let out = scratch.path().join("grades");
    let output = assert_cmd::Command::cargo_bin("treegrade")
        .unwrap()
        .current_dir(common::repo())
        .env("CI", "true")
        .args(["batch", class.to_str().unwrap(), "--assignment", "tests/fixtures/play/never-lose", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let gradebook = std::fs::read_to_string(out.join("gradebook.csv")).unwrap();
    let row = |student: &str| gradebook.lines().find(|line| line.starts_with(student)).unwrap().to_string();
    assert!(row("perfect").contains(",3,"), "{gradebook}");
    assert!(row("random").contains(",0,"), "{gradebook}");
    let report = std::fs::read_to_string(out.join("reports/random/report.json")).unwrap();
    assert!(report.contains("\"play\"") && report.contains("\"seed\": 2026"), "{report}");
    let html = std::fs::read_to_string(out.join("reports/random/report.html")).unwrap();
    assert!(html.contains("<section class=\"replay\""));
}

/// `play`'s exit status: 0 for a game played to its end, 1 when an agent
/// lost by failing (here a program that crashes at its first move), 2 for
/// a usage error.
#[test]
fn play_exits_1_when_an_agent_fails_and_2_on_a_usage_error() {
    let scratch = Scratch::new();
    std::fs::create_dir_all(scratch.path().join("crasher")).unwrap();
    scratch.write("crasher/search.py", "import sys\nsys.exit(3)\n");
    let play = |args: &[&str]| {
        let output = play_command(args).timeout(Duration::from_secs(120)).output().unwrap();
        (output.status.code(), String::from_utf8_lossy(&output.stdout).into_owned())
    };
    let crasher = scratch.path().join("crasher");
    let (status, text) = play(&["tic-tac-toe", "--watch", crasher.to_str().unwrap(), "random", "--delay", "0"]);
    assert_eq!(status, Some(1), "{text}");
    assert!(text.contains("crasher loses by"), "{text}");
    let (status, text) = play(&["tic-tac-toe", "--watch", "random", "random", "--delay", "0"]);
    assert_eq!(status, Some(0), "{text}");
    assert!(text.contains("game over"), "{text}");
    let (status, _) = play(&["tic-tac-toe", "--against", "nosuch-agent"]);
    assert_eq!(status, Some(2));
}
