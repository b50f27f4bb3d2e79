//! Pacman (src/game/pacman): Python's random against CPython, and the
//! rules against CS188's own recorded games (`../shared/cs188-project`).

use std::path::{Path, PathBuf};

use treegrade::engine::Algorithm;
use treegrade::game::pacman::staff::staff_answer;
use treegrade::game::pacman::{Board, Direction, GhostKind, Layout, StopRule};
use treegrade::game::python_random::PythonRandom;
use treegrade::import::cs188::parse_fields;

use crate::common::repo;

fn project() -> Option<PathBuf> {
    let root = repo().join("../shared/cs188-project");
    if root.is_dir() {
        Some(root)
    } else {
        crate::common::unavailable(&format!("CS188's whole project at {}", root.display()));
        None
    }
}

fn lines<T: serde::de::DeserializeOwned>(solution: &Path, key: &str) -> Vec<T> {
    let text = std::fs::read_to_string(solution).unwrap();
    let fields = parse_fields(&text, solution).unwrap();
    fields.get(key).unwrap().value.lines().map(|line| serde_json::from_str(line).unwrap()).collect()
}

#[test]
fn the_reference_replays_cs188s_pacman_game_tests() {
    let Some(root) = project() else { return };
    for (test, algorithm) in [
        ("q2/8-pacman-game", Algorithm::Minimax),
        ("q3/8-pacman-game", Algorithm::AlphaBeta),
        ("q4/7-pacman-game", Algorithm::Expectimax),
    ] {
        let base = root.join("test_cases").join(test);
        let text = std::fs::read_to_string(base.with_extension("test")).unwrap();
        let fields = parse_fields(&text, &base).unwrap();
        let layout = Layout::parse(&fields.get("layout").unwrap().value).unwrap();
        let board = Board::new(layout, 2);
        let steps: Vec<Vec<(Vec<String>, usize)>> = lines(&base.with_extension("solution"), "optimalActions");
        let other_depths: Vec<Vec<Vec<String>>> = lines(&base.with_extension("solution"), "altDepthActions");
        assert_eq!((steps.len(), other_depths.len()), (146, 146), "{test}: CS188's recorded path");
        let mut state = board.initial_state();
        let mut random;
        let mut mismatches = Vec::new();
        for (k, step) in steps.iter().enumerate() {
            for (which, stop) in [StopRule::Allowed, StopRule::Removed].into_iter().enumerate() {
                let answer = staff_answer(&board, &state, algorithm, 2, stop).unwrap();
                let best: Vec<&str> = answer.best.iter().map(|d| d.name()).collect();
                let (want_best, want_count) = &step[which];
                if best != *want_best || answer.explored != *want_count {
                    mismatches.push(format!(
                        "{test} step {k} {stop:?}: {best:?} {} vs {want_best:?} {want_count}",
                        answer.explored
                    ));
                }
            }
            // CS188's other agents: depth 1 with and without Stop, then depth 3.
            let depths =
                [(1, StopRule::Allowed), (1, StopRule::Removed), (3, StopRule::Allowed), (3, StopRule::Removed)];
            for (want, (rounds, stop)) in other_depths[k].iter().zip(depths) {
                let answer = staff_answer(&board, &state, algorithm, rounds, stop).unwrap();
                let best: Vec<&str> = answer.best.iter().map(|d| d.name()).collect();
                if best != *want {
                    mismatches.push(format!("{test} step {k} depth {rounds} {stop:?}: {best:?} vs {want:?}"));
                }
            }
            let action = Direction::parse(&step[0].0[0]).unwrap();
            state = board.successor(&state, 0, action).unwrap();
            random = PythonRandom::seeded(k as i128 + 1);
            for ghost in 1..board.agents {
                if state.is_over() {
                    break;
                }
                let action = GhostKind::Directional.choose(&board, &state, ghost, &mut random).unwrap().unwrap();
                state = board.successor(&state, ghost, action).unwrap();
            }
            if state.is_over() {
                assert_eq!(k + 1, steps.len(), "{test}: the game ends at the last step");
            }
        }
        assert!(state.lose && state.score == 84, "{test}: {} {}", state.lose, state.score);
        assert!(
            mismatches.is_empty(),
            "{} mismatches:\n{}",
            mismatches.len(),
            mismatches.iter().take(20).cloned().collect::<Vec<_>>().join("\n")
        );
    }
}

/// Python's own numbers for 300 seeds (small, negative, past 2^32 and 2^64):
/// `random.random()` across a twist of the state, `getrandbits` and `randrange`.
#[test]
fn python_random_is_cpythons_random() {
    // Floats travel as their bits: a JSON reader need not round decimals correctly.
    let script = "import random, json, struct\n\
                  bits = lambda x: struct.unpack('<Q', struct.pack('<d', x))[0]\n\
                  seeds = list(range(-20, 250)) + [2**31, 2**32 - 1, 2**32, 2**33 + 5, 2**63, 2**64 + 1, 10**30]\n\
                  out = []\n\
                  for s in seeds:\n\
                  \x20   random.seed(s)\n\
                  \x20   r = [random.random() for _ in range(700)]\n\
                  \x20   out.append([str(s), bits(r[0]), bits(r[1]), bits(r[699]), random.getrandbits(17), random.randrange(1000)])\n\
                  print(json.dumps(out))\n";
    let output = std::process::Command::new("python3").args(["-c", script]).output().expect("python3 runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let rows: Vec<(String, u64, u64, u64, u32, u32)> = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(rows.len(), 277);
    for (seed, first, second, last, bits, below) in rows {
        let mut random = PythonRandom::seeded(seed.parse::<i128>().unwrap());
        let drawn: Vec<f64> = (0..700).map(|_| random.random()).collect();
        assert_eq!([drawn[0], drawn[1], drawn[699]].map(f64::to_bits), [first, second, last], "{seed}");
        assert_eq!((random.getrandbits(17), random.randbelow(1000)), (bits, below), "seed {seed}");
    }
}

/// The course `treegrade import cs188` writes from CS188's whole
/// distribution (`../shared/cs188-project`), once for the module.
fn course() -> Option<&'static Path> {
    static COURSE: std::sync::OnceLock<Option<tempfile::TempDir>> = std::sync::OnceLock::new();
    let dir = COURSE.get_or_init(|| {
        let root = project()?;
        let dir = tempfile::tempdir().unwrap();
        let output = treegrade().arg("import").arg("cs188").arg(&root).arg("-o").arg(dir.path()).output().unwrap();
        assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
        Some(dir)
    });
    dir.as_ref().map(|dir| dir.path())
}

fn treegrade() -> assert_cmd::Command {
    let mut command = assert_cmd::Command::cargo_bin("treegrade").unwrap();
    command.env("NO_COLOR", "1").env_remove("TREEGRADE_ASSIGNMENT");
    command
}

fn student(name: &str) -> PathBuf {
    repo().join("tests/fixtures/cs188-project").join(name)
}

/// `check --format json` of a student on the course (some questions, or all).
fn check(course: &Path, name: &str, questions: &[&str]) -> serde_json::Value {
    let mut command = treegrade();
    command.arg("check").arg("--assignment").arg(course).arg("--submission").arg(student(name));
    for question in questions {
        command.args(["-q", question]);
    }
    let output = command.args(["--format", "json"]).output().unwrap();
    serde_json::from_slice(&output.stdout).unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&output.stderr)))
}

fn points(report: &serde_json::Value) -> Vec<(String, f64)> {
    report["questions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| (q["id"].as_str().unwrap().to_string(), q["score"].as_f64().unwrap()))
        .collect()
}

fn test_of<'r>(report: &'r serde_json::Value, name: &str) -> &'r serde_json::Value {
    report["questions"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|q| q["tests"].as_array().unwrap())
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no test {name}"))
}

#[test]
fn the_whole_distribution_imports_into_five_questions_of_25_points() {
    let Some(course) = course() else { return };
    let assignment = treegrade::load::assignment::load_assignment(course).unwrap();
    let shape: Vec<(&str, String, usize, usize)> = assignment
        .questions
        .iter()
        .map(|q| (q.id.as_str(), q.points.to_string(), q.tree_tests().len(), q.pacman_tests().len()))
        .collect();
    assert_eq!(
        shape,
        [
            ("q1", "4".into(), 0, 1),
            ("q2", "5".into(), 33, 1),
            ("q3", "5".into(), 33, 1),
            ("q4", "5".into(), 16, 1),
            ("q5", "6".into(), 0, 1)
        ]
    );
    let readme = std::fs::read_to_string(course.join("README.md")).unwrap();
    assert!(
        readme.contains("q5 Evaluation Function: 6 points") && readme.contains("replayed on its board"),
        "{readme}"
    );
    let q5 = treegrade::load::pacman::load_pacman_file(&course.join("tests/q5-grade-agent.yaml")).unwrap();
    assert_eq!((q5.agent.class.as_str(), q5.layout_name.as_str()), ("ExpectimaxAgent", "smallClassic"));
    assert_eq!(q5.agent.arguments, [("evalFn".to_string(), serde_json::json!("better"))]);
    let validate = treegrade().arg("validate").arg(course).output().unwrap();
    assert_eq!(validate.status.code(), Some(0), "{}", String::from_utf8_lossy(&validate.stdout));
}

#[test]
fn test_cases_alone_import_with_the_layouts_beside_them_and_files_without_are_reported() {
    let Some(root) = project() else { return };
    let out = tempfile::tempdir().unwrap();
    let output =
        treegrade().arg("import").arg("cs188").arg(root.join("test_cases")).arg("-o").arg(out.path()).output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("skip   ") && stdout.contains("not the folder `extra`"), "{stdout}");
    assert!(
        stdout.contains("q1-grade-agent.yaml (10 games of ReflexAgent on openClassic, 4 threshold points)"),
        "{stdout}"
    );
    assert!(stdout.contains("every step reproduced by the reference"), "{stdout}");
    // A test without its distribution's layouts is an error that says where it looked.
    let lonely = tempfile::tempdir().unwrap();
    std::fs::create_dir(lonely.path().join("q1")).unwrap();
    std::fs::copy(root.join("test_cases/q1/grade-agent.test"), lonely.path().join("q1/grade-agent.test")).unwrap();
    let output =
        treegrade().arg("import").arg("cs188").arg(lonely.path()).arg("-o").arg(out.path().join("x")).output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(2), "{stdout}");
    assert!(stdout.contains("the layout `openClassic` is not in the distribution (looked for"), "{stdout}");
}

/// Correct solutions in three styles get every point, and q1 and q5 play
/// CS188's own games: each game's score and result as CS188's autograder
/// printed them for the same file (`cs188-games.json`). The games are the
/// same on every run.
#[test]
fn correct_solutions_get_25_and_the_same_games_every_run() {
    let Some(course) = course() else { return };
    let recorded: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(repo().join("tests/fixtures/cs188-project/cs188-games.json")).unwrap(),
    )
    .unwrap();
    for name in ["dispatcher", "helpers", "closures"] {
        let report = check(course, name, &[]);
        assert_eq!(report["score"], 25.0, "{name}: {:?}", points(&report));
        for question in ["q1", "q5"] {
            let games = test_of(&report, &format!("{question}/{question}-grade-agent"))["pacman"]["games"].clone();
            let scores: Vec<f64> = games.as_array().unwrap().iter().map(|g| g["score"].as_f64().unwrap()).collect();
            let record: Vec<&str> =
                games.as_array().unwrap().iter().map(|g| if g["end"] == "won" { "Win" } else { "Loss" }).collect();
            let cs188 = &recorded["students"][name][question];
            assert_eq!(serde_json::json!(scores), cs188["scores"], "{name} {question}: CS188's Scores: line");
            assert_eq!(serde_json::json!(record), cs188["record"], "{name} {question}: CS188's Record: line");
            let lines = &test_of(&report, &format!("{question}/{question}-grade-agent"))["pacman"]["cs188"];
            let shown: Vec<String> = scores.iter().map(|score| format!("{score:.1}")).collect();
            assert_eq!(lines[1], format!("Scores:        {}", shown.join(", ")), "{name} {question}");
            assert_eq!(lines[3], format!("Record:        {}", record.join(", ")), "{name} {question}");
        }
    }
    let first = check(course, "dispatcher", &["q1"]);
    let again = check(course, "dispatcher", &["q1"]);
    let games = |report: &serde_json::Value| test_of(report, "q1/q1-grade-agent")["pacman"]["games"].clone();
    assert_eq!(games(&first), games(&again));
    let play = &test_of(&first, "q1/q1-grade-agent")["pacman"];
    assert_eq!((play["kind"].as_str(), play["games"].as_array().unwrap().len()), (Some("play"), 10));
    assert_eq!(test_of(&first, "q1/q1-grade-agent")["credit"], serde_json::json!({"earned": 4, "possible": 4}));
    let interval = play["score_interval"].as_array().unwrap();
    assert!(
        interval[0].as_f64() <= play["average_score"].as_f64()
            && play["average_score"].as_f64() <= interval[1].as_f64()
    );
}

#[test]
fn the_starter_gets_0_with_a_message_per_question() {
    let Some(course) = course() else { return };
    let report = check(course, "starter", &[]);
    assert_eq!(points(&report).iter().map(|(_, p)| *p).collect::<Vec<_>>(), [0.0; 5]);
    for question in report["questions"].as_array().unwrap() {
        let failed = question["tests"].as_array().unwrap().iter().find(|t| t["status"] != "passed").unwrap();
        let reason = failed["reason"].as_str().unwrap_or_default();
        assert!(!reason.is_empty(), "{}", question["id"]);
        match question["id"].as_str().unwrap() {
            "q1" => assert!(reason.starts_with("0 of 4 points: "), "{reason}"),
            "q5" => assert!(reason.contains("not implemented yet"), "{reason}"),
            _ => assert!(reason.contains("getAction is not implemented yet"), "{reason}"),
        }
    }
}

/// CS188's graph tests cannot see a tie broken by the action's name inside
/// alpha-beta; its Pacman game test can, and so does treegrade's.
#[test]
fn alpha_beta_comparing_value_action_tuples_fails_q3_on_the_game_test() {
    let Some(course) = course() else { return };
    let report = check(course, "tuple-tiebreak", &["q2", "q3"]);
    assert_eq!(points(&report), [("q2".to_string(), 5.0), ("q3".to_string(), 0.0)]);
    let q3 = &report["questions"][1]["tests"];
    let failed: Vec<&str> = q3
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["status"] != "passed")
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(failed, ["q3/q3-8-pacman-game"]);
    let game = test_of(&report, "q3/q3-8-pacman-game");
    assert!(game["reason"].as_str().unwrap().starts_with("Bug: Wrong number of states expanded. (at step 1"), "{game}");
    assert_eq!(game["pacman"]["verdict"], "wrong-states-expanded");
    assert!(game["pacman"]["first_wrong_count"]["board"].as_str().unwrap().ends_with("Score: 0\n"));
}

/// The kit's GameState behaves as CS188's: an agent that asserts its API at
/// every move of ten games never trips.
#[test]
fn the_kits_game_state_behaves_as_cs188s() {
    let Some(course) = course() else { return };
    let report = check(course, "api-probe", &["q1"]);
    let test = test_of(&report, "q1/q1-grade-agent");
    assert_eq!(test["status"], "passed", "{}", test["reason"]);
}

/// A course of one Pacman test worth `points`: a 3 by 5 board, one random
/// ghost, a second a move; `play` is the test's `play:` block.
fn tiny_course(points: u32, play: &str) -> tempfile::TempDir {
    let course = tempfile::tempdir().unwrap();
    std::fs::write(
        course.path().join("assignment.yaml"),
        format!("title: t\nquestions:\n  - {{id: q1, points: {points}, pacman: [tiny.yaml]}}\n"),
    )
    .unwrap();
    std::fs::write(
        course.path().join("tiny.yaml"),
        format!(
            "pacman:\n  layout: |\n    %%%%%\n    %P.G%\n    %%%%%\n  ghosts: [RandomGhost]\n  agent: ReflexAgent\n  \
             time_limit: {{move: 1, game: 5}}\n  play:\n    {play}\n"
        ),
    )
    .unwrap();
    course
}

/// One `check` of `client` (Python speaking the protocol itself) on
/// `course`: its JSON report, and the text report of the same run.
fn check_client(course: &Path, client: &str) -> (serde_json::Value, String) {
    let (submission, reports) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let text = reports.path().join("report.txt");
    let output = treegrade()
        .arg("check")
        .arg("--assignment")
        .arg(course)
        .arg("--submission")
        .arg(submission.path())
        .args(["--format", "json", "--report"])
        .arg(format!("text={}", text.display()))
        .args(["--", "python3", "-c", client])
        .output()
        .unwrap();
    let report = serde_json::from_slice(&output.stdout).unwrap();
    (report, std::fs::read_to_string(&text).unwrap())
}

/// A program that breaks the Pacman protocol in one game and sleeps past
/// the move limit in another loses those games, each charged as what it
/// was, and a fresh program plays the next game.
#[test]
fn a_broken_or_slow_game_ends_alone() {
    let course = tiny_course(3, "games: 3\n    wins: {thresholds: [1, 2, 3]}");
    const CLIENT: &str = r#"
import sys, json, time
def send(m):
    sys.stdout.write(json.dumps(m) + "\n"); sys.stdout.flush()
game = 0
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        send({"type": "hello", "protocol": 1})
    elif m["type"] == "pacman":
        game = m["game"]
        send({"type": "ready"})
    elif m["type"] == "pacman_move":
        if game == 1:
            print("thinking...", flush=True)
        elif game == 2:
            time.sleep(3)
        send({"type": "successor", "state": m["state"]["id"], "agent": 0, "action": "Jump"})
        reply = json.loads(sys.stdin.readline())
        assert reply == {"type": "illegal", "message": "Illegal action Jump"}, reply
        send({"type": "action", "action": "East"})
    elif m["type"] == "pacman_final":
        send({"type": "ready"})
    elif m["type"] == "bye":
        break
"#;
    let (report, _) = check_client(course.path(), CLIENT);
    let test = test_of(&report, "q1/tiny");
    let games = test["pacman"]["games"].as_array().unwrap();
    let ends: Vec<&str> = games.iter().map(|g| g["end"].as_str().unwrap()).collect();
    assert_eq!(ends, ["crashed", "timed-out", "won"], "{test}");
    assert!(games[0]["how"].as_str().unwrap().contains("printed \"thinking...\" on stdout"), "{}", games[0]["how"]);
    assert_eq!((games[2]["score"].as_i64(), games[2]["moves"].as_i64()), (Some(509), Some(1)));
    assert_eq!(test["credit"], serde_json::json!({"earned": 1, "possible": 3}));
    assert_eq!(report["score"], 1.0);
}

/// Once a minimum can no longer be met the test earns nothing, so the games
/// left are not played: an agent that times out needs 10 games without a
/// timeout to earn anything, and after its first it gets no more games
/// (nor costs each one its time limit). The report says why.
#[test]
fn games_stop_once_a_minimum_is_out_of_reach() {
    let course = tiny_course(2, "games: 10\n    not_timed_out: {minimum: 10}\n    wins: {thresholds: [1, 2]}");
    const CLIENT: &str = r#"
import sys, json, time
def send(m):
    sys.stdout.write(json.dumps(m) + "\n"); sys.stdout.flush()
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        send({"type": "hello", "protocol": 1})
    elif m["type"] == "pacman":
        send({"type": "ready"})
    elif m["type"] == "pacman_move":
        time.sleep(3)
    elif m["type"] == "bye":
        break
"#;
    let started = std::time::Instant::now();
    let (report, text) = check_client(course.path(), CLIENT);
    let test = test_of(&report, "q1/tiny");
    let games = test["pacman"]["games"].as_array().unwrap();
    assert_eq!(games.len(), 1, "{test}");
    assert_eq!(games[0]["end"], "timed-out");
    assert_eq!(test["pacman"]["not_played"], 9, "{test}");
    assert_eq!(test["credit"], serde_json::json!({"earned": 0, "possible": 2}));
    assert_eq!(report["score"], 0.0);
    assert!(started.elapsed() < std::time::Duration::from_secs(8), "{:?}", started.elapsed());
    assert!(text.contains("games 2 to 10 were not played: a minimum could no longer be met"), "{text}");
}

/// The moves of a game as CS188's `moveHistory` lists them, one letter each
/// (Pacman, then each ghost in turn): every frame after the first is one
/// agent's move; the mover faces the way it moved, or did not move (Stop,
/// after which CS188 keeps the agent's direction). A scared ghost that runs
/// into Pacman goes home facing nowhere: its move shows as `?`.
fn move_letters(frames: &[treegrade::grader::pacman::outcome::Frame]) -> String {
    let agents = frames[0].agents.len();
    frames
        .windows(2)
        .enumerate()
        .map(|(index, pair)| {
            let agent = index % agents;
            let (before, after, start) = (pair[0].agents[agent], pair[1].agents[agent], frames[0].agents[agent]);
            if (before.0, before.1) == (after.0, after.1) {
                'X'
            } else if agent > 0 && after.3 == 'X' && (after.0, after.1) == (start.0, start.1) {
                '?'
            } else {
                after.3
            }
        })
        .collect()
}

/// Whether `letters` are CS188's `expected` moves, a `?` standing for any.
fn same_moves(letters: &str, expected: &str) -> Option<usize> {
    let differs = |(a, b): (char, char)| a != b && a != '?';
    letters.chars().zip(expected.chars()).position(differs).or_else(|| {
        let (mine, theirs) = (letters.chars().count(), expected.chars().count());
        (mine != theirs).then_some(mine.min(theirs))
    })
}

/// `ties.yaml`: the fixture's board, one RandomGhost, `games` games of its
/// ReflexAgent from seed 7, with `random` as the play test's mode.
fn random_ties_test(random: &str) -> treegrade::grader::plan::PlannedPacman {
    let dir = repo().join("tests/fixtures/cs188-random-ties");
    let board = std::fs::read_to_string(dir.join("board.lay")).unwrap();
    let layout: String = board.lines().map(|line| format!("    {line}\n")).collect();
    let yaml = format!(
        "pacman:\n  layout_name: board\n  layout: |\n{layout}  ghosts: [RandomGhost]\n  agent: ReflexAgent\n  seed: 7\n  \
         play:\n    games: 4\n    wins: {{thresholds: [4]}}\n    random: {random}\n"
    );
    let test = treegrade::load::pacman::load_pacman_str(&yaml, Path::new("ties.yaml")).unwrap();
    treegrade::grader::plan::PlannedPacman {
        question: 0,
        name: "q1/ties".into(),
        path: "ties.yaml".into(),
        hidden: false,
        test: std::sync::Arc::new(test),
    }
}

/// The CS188 kit on the fixture's agent, started directly.
fn random_ties_player() -> treegrade::grader::runner::ProgramSpec {
    treegrade::grader::runner::ProgramSpec {
        command: ["python3", "-S", "-u"]
            .into_iter()
            .map(String::from)
            .chain([repo().join("grader/kits/cs188/treegrade_cs188.py").display().to_string()])
            .collect(),
        dir: repo().join("tests/fixtures/cs188-random-ties"),
        env: vec![
            ("PYTHONPATH".into(), repo().join("grader/kits/python").into()),
            ("PYTHONDONTWRITEBYTECODE".into(), "1".into()),
        ],
        policy: None,
    }
}

fn played(random: &str) -> treegrade::grader::pacman::outcome::PlayOutcome {
    let results = treegrade::grader::pacman::run_tests(&random_ties_player(), &[random_ties_test(random)], None);
    match results[0].pacman() {
        Some(treegrade::grader::pacman::outcome::PacmanOutcome::Play(play)) => play.clone(),
        other => panic!("{other:?}: {:?} {}", results[0].header.reason, results[0].header.stderr),
    }
}

/// A reflex agent that breaks ties with `random.choice` (and draws with
/// `shuffle`, `randint`, `util.flipCoin`, `randrange`, `uniform` and
/// `sample`) plays CS188's own games move for move: four games recorded
/// from CS188's code (`cs188-games.json`), on one stream seeded once, the
/// agent's draws and the ghost's interleaved as CS188's one process draws
/// them. Run again, the same games.
#[test]
fn a_reflex_agent_breaking_ties_at_random_plays_cs188s_recorded_games_move_for_move() {
    let recorded: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(repo().join("tests/fixtures/cs188-random-ties/cs188-games.json")).unwrap(),
    )
    .unwrap();
    let play = played("shared");
    let games = recorded["games"].as_array().unwrap();
    assert_eq!(play.games.len(), games.len());
    for (game, cs188) in play.games.iter().zip(games) {
        let letters = move_letters(&game.frames);
        let expected = cs188["moves"].as_str().unwrap();
        let first = same_moves(&letters, expected);
        assert_eq!(first, None, "game {}: the moves differ from move {first:?}:\n{letters}\n{expected}", game.game);
        assert_eq!(game.score as f64, cs188["score"].as_f64().unwrap(), "game {}", game.game);
        let won = game.end == treegrade::grader::pacman::outcome::GameEnd::Won;
        assert_eq!(won, cs188["win"].as_bool().unwrap(), "game {}", game.game);
        assert_eq!(u64::from(game.moves), cs188["pacman_moves"].as_u64().unwrap(), "game {}", game.game);
        assert_eq!(game.seed, 7, "one stream, seeded once");
    }
    let again = played("shared");
    let letters = |play: &treegrade::grader::pacman::outcome::PlayOutcome| -> Vec<String> {
        play.games.iter().map(|game| move_letters(&game.frames)).collect()
    };
    assert_eq!(letters(&again), letters(&play), "a rerun plays the same games");
    // A stream per game: each game stands alone, and they are not CS188's.
    let per_game = played("per-game");
    assert_eq!(per_game.games.iter().map(|game| game.seed).collect::<Vec<_>>(), [7, 8, 9, 10]);
    assert!(same_moves(&move_letters(&per_game.games[1].frames), games[1]["moves"].as_str().unwrap()).is_some());
}

/// The student's `random`, served from the grader's stream, is CPython's
/// `random` number for number: every function of the module (`choice`,
/// `randint`, `randrange`, `shuffle`, `sample`, `uniform`, `gauss`,
/// `randbytes`, wide `getrandbits`...), and `seed`, `getstate` and
/// `setstate` act on the shared stream. The agent draws before its first
/// move, when nothing else has drawn from the stream seeded with 7.
#[test]
fn the_students_random_is_cpythons_number_for_number() {
    let dir = repo().join("tests/fixtures/cs188-random-draws");
    let mut planned = random_ties_test("shared");
    let mut test = (*planned.test).clone();
    if let treegrade::game::pacman::test::PacmanTestKind::Play(play) = &mut test.kind {
        play.games = 1;
    }
    test.game_time_limit = std::time::Duration::from_secs(5);
    planned.test = std::sync::Arc::new(test);
    let mut spec = random_ties_player();
    spec.dir = dir.clone();
    let results = treegrade::grader::pacman::run_tests(&spec, &[planned], None);
    let served = results[0].header.stderr.lines().find_map(|line| line.strip_prefix("DRAWS ")).map(str::to_string);
    let served =
        served.unwrap_or_else(|| panic!("no draws: {:?} {}", results[0].header.reason, results[0].header.stderr));
    let script = format!(
        "import sys, json, random\nsys.path.insert(0, {:?})\nimport multiAgents\nrandom.seed(7)\n\
         print(json.dumps(multiAgents.draws()))\n",
        dir.display().to_string()
    );
    let dir_of_game = repo().join("grader/kits/cs188");
    let output = std::process::Command::new("python3")
        .args(["-c", &script])
        .env("PYTHONPATH", &dir_of_game)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("python3 runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let cpython: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let served: serde_json::Value = serde_json::from_str(&served).unwrap();
    assert_eq!(served, cpython);
}
