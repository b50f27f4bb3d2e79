//! Unchanged CS188 `multiAgents.py` files (`tests/fixtures/cs188-students/`,
//! each with a `BUG` file) graded through the CS188 kit on the course that
//! `treegrade import cs188` writes from CS188's published graph tests
//! (`../shared/cs188`): correct ones in the Fall and Spring APIs keep every
//! point with their values checked, each broken one loses points in the
//! question its mistake shows in and is named, a file that does not import
//! gets zero with a message, and `batch` agrees with `check`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use assert_cmd::Command;

use crate::common::repo;

/// The course imported from CS188's suite, once for the module; `None`
/// where the suite is missing (a failure under CI).
fn course() -> Option<&'static Path> {
    static COURSE: OnceLock<Option<tempfile::TempDir>> = OnceLock::new();
    let dir = COURSE.get_or_init(|| {
        let suite = repo().join("../shared/cs188");
        if !suite.is_dir() {
            crate::common::unavailable(&format!("the CS188 suite at {}", suite.display()));
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        let output = treegrade().arg("import").arg("cs188").arg(&suite).arg("-o").arg(dir.path()).output().unwrap();
        assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
        Some(dir)
    });
    dir.as_ref().map(|dir| dir.path())
}

fn treegrade() -> Command {
    let mut command = Command::cargo_bin("treegrade").unwrap();
    command.env("NO_COLOR", "1").env_remove("TREEGRADE_ASSIGNMENT");
    command
}

fn students() -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(repo().join("tests/fixtures/cs188-students"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_dir())
        .collect();
    found.sort();
    found
}

fn bug(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("BUG")).unwrap().trim().to_string()
}

/// `check --format json` of one student on the course.
fn check(course: &Path, dir: &Path) -> serde_json::Value {
    crate::common::check_json(course, dir)
}

/// Question id to (score, max score).
fn scores(report: &serde_json::Value) -> BTreeMap<String, (f64, f64)> {
    report["questions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| {
            (q["id"].as_str().unwrap().to_string(), (q["score"].as_f64().unwrap(), q["max_score"].as_f64().unwrap()))
        })
        .collect()
}

fn tests(report: &serde_json::Value) -> impl Iterator<Item = &serde_json::Value> {
    report["questions"].as_array().unwrap().iter().flat_map(|q| q["tests"].as_array().unwrap())
}

/// Where each mistake shows in CS188's suite, and how it is named.
fn expected(bug: &str) -> (&'static [&'static str], Named) {
    match bug {
        "depth-per-ply" => (&["q2"], Named::Diagnosis("depth-per-ply")),
        "last-ghost-skipped" => (&["q2"], Named::Diagnosis("last-ghost-skipped")),
        "prune-on-equal" => (&["q3"], Named::Diagnosis("prune-on-equal")),
        "one-ply-action" => (&["q2"], Named::Diagnosis("one-ply-action")),
        "expectimax-sum" => (&["q4"], Named::Diagnosis("expectimax-sum")),
        "wrong-state-successors" => (&["q3"], Named::Hint("generateSuccessor on the start state")),
        "does-not-import" => (&["q2", "q3", "q4"], Named::Reason("could not be imported")),
        "not-implemented" => (&["q2", "q3", "q4"], Named::Reason("not implemented yet")),
        other => panic!("no expectation for the BUG `{other}`"),
    }
}

/// How a broken file's mistake reaches the student.
enum Named {
    /// The diagnosis names it.
    Diagnosis(&'static str),
    /// The kit's hint says it (in the reason or the program's output).
    Hint(&'static str),
    /// Every test's reason says it.
    Reason(&'static str),
}

#[test]
fn cs188_students_are_graded_as_their_bugs_say() {
    let Some(course) = course() else { return };
    let mut failures = Vec::new();
    for dir in students() {
        let report = check(course, &dir);
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let scores = scores(&report);
        let bug = bug(&dir);
        if bug == "none" {
            if scores.values().any(|(score, max)| score != max) {
                failures.push(format!("{name}: correct, but scored {scores:?}"));
            }
            if let Some(test) = tests(&report).find(|test| test["checks"]["value"] != "passed") {
                failures.push(format!("{name}: the value of {} was not checked", test["name"]));
            }
            continue;
        }
        let (questions, named) = expected(&bug);
        for question in questions {
            let (score, max) = scores[*question];
            if score >= max {
                failures.push(format!("{name} ({bug}): keeps {score}/{max} in {question}"));
            }
        }
        let failed: Vec<&serde_json::Value> = tests(&report).filter(|test| test["status"] != "passed").collect();
        let is_named = match named {
            Named::Diagnosis(key) => failed.iter().any(|test| test["diagnosis"]["bug"] == key),
            Named::Hint(text) => failed.iter().any(|test| {
                test["reason"].as_str().unwrap_or("").contains(text)
                    || test["stderr"].as_str().unwrap_or("").contains(text)
            }),
            Named::Reason(text) => {
                report["score"].as_f64() == Some(0.0)
                    && failed.len() == 82
                    && failed.iter().all(|test| test["reason"].as_str().unwrap_or("").contains(text))
            }
        };
        if !is_named {
            failures.push(format!("{name} ({bug}): not named in {} failed tests", failed.len()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn batch_grades_a_cs188_class_as_check_does() {
    let Some(course) = course() else { return };
    let class = tempfile::tempdir().unwrap();
    for dir in students() {
        let target = class.path().join(dir.file_name().unwrap());
        std::fs::create_dir(&target).unwrap();
        std::fs::copy(dir.join("multiAgents.py"), target.join("multiAgents.py")).unwrap();
    }
    let out = tempfile::tempdir().unwrap();
    let output = treegrade()
        .arg("batch")
        .arg(class.path())
        .arg("--assignment")
        .arg(course)
        .arg("--out")
        .arg(out.path())
        .args(["--jobs", "2"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let gradebook = std::fs::read_to_string(out.path().join("gradebook.csv")).unwrap();
    let header: Vec<&str> = gradebook.lines().next().unwrap().split(',').collect();
    let total = header.iter().position(|column| *column == "total").expect("a total column");
    for dir in students() {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let row: Vec<&str> =
            gradebook.lines().find(|line| line.starts_with(&format!("{name},"))).unwrap().split(',').collect();
        let points: f64 = row[total].parse().unwrap();
        match bug(&dir).as_str() {
            "none" => assert_eq!(points, 15.0, "{name}: {gradebook}"),
            "does-not-import" | "not-implemented" => assert_eq!(points, 0.0, "{name}: {gradebook}"),
            _ => assert!(points < 15.0, "{name}: {gradebook}"),
        }
    }
}

/// The optional fields of a game tree (`agents`, `outcome`, evals above the
/// cut) change nothing for the other kits: the Python reference, through
/// the Python kit, keeps every point on CS188's course.
#[test]
fn the_python_kit_ignores_what_cs188_kits_need() {
    let Some(course) = course() else { return };
    let folder = tempfile::tempdir().unwrap();
    std::fs::copy(repo().join("reference/python/search.py"), folder.path().join("search.py")).unwrap();
    std::fs::copy(repo().join("grader/kits/python/treegrade_kit.py"), folder.path().join("treegrade_kit.py")).unwrap();
    let output = treegrade()
        .arg("check")
        .arg("--assignment")
        .arg(course)
        .arg("--submission")
        .arg(folder.path())
        .args(["--", "python3", "-u", "search.py"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("Total: 15/15"), "{stdout}");
}

/// On Gradescope, a CS188 student sees each question as CS188 names it,
/// with CS188's points: `Question q4: Expectimax`, 0 of 5 for an
/// expectimax that sums, while q2 and q3 keep their 5.
#[test]
fn gradescope_names_cs188_questions_as_cs188_does() {
    let Some(course) = course() else { return };
    let output = treegrade()
        .arg("check")
        .arg("--assignment")
        .arg(course)
        .arg("--submission")
        .arg(repo().join("tests/fixtures/cs188-students/expectimax-sum"))
        .args(["--format", "gradescope"])
        .output()
        .unwrap();
    let results: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let entry = |name: &str| {
        let tests = results["tests"].as_array().unwrap();
        tests.iter().find(|test| test["name"] == name).cloned().unwrap_or_else(|| panic!("no {name}: {results}"))
    };
    let minimax = entry("Question q2: Minimax");
    assert_eq!((minimax["score"].as_f64(), minimax["max_score"].as_f64()), (Some(5.0), Some(5.0)), "{results}");
    assert_eq!(entry("Question q4: Expectimax")["score"].as_f64(), Some(0.0), "{results}");
    assert_eq!(results["score"].as_f64(), Some(10.0), "{results}");
}

/// The Spring fixture's `multiAgents.py`, correct in every question.
fn spring_text() -> String {
    std::fs::read_to_string(repo().join("tests/fixtures/cs188-students/spring-methods/multiAgents.py")).unwrap()
}

/// A student folder holding `text` as its `multiAgents.py`.
fn student_with(text: &str) -> tempfile::TempDir {
    let folder = tempfile::tempdir().unwrap();
    std::fs::write(folder.path().join("multiAgents.py"), text).unwrap();
    folder
}

/// The Spring fixture with `replace` put in place of `find`, once.
fn spring_with(find: &str, replace: &str) -> tempfile::TempDir {
    let text = spring_text();
    assert!(text.contains(find), "the fixture has no {find:?}");
    student_with(&text.replacen(find, replace, 1))
}

/// `check` of `student` on the course, with `extra` arguments, as text.
fn check_text(course: &Path, student: &Path, extra: &[&str]) -> String {
    let output = treegrade()
        .arg("check")
        .arg("--assignment")
        .arg(course)
        .arg("--submission")
        .arg(student)
        .args(extra)
        .output()
        .unwrap();
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A `multiAgents.py` often imports more of CS188's project than its
/// searches use; CS188's autograder has the whole project on disk, so these
/// imports must work here too, while a misspelt name fails as it does there
/// and a search that calls the Pacman game is told what it called.
#[test]
fn names_of_cs188s_project_import_as_under_cs188() {
    let Some(course) = course() else { return };
    const IMPORTS: &str = "from pacman import GameState\nfrom util import nearestPoint, sample, sign\n\
                           from game import Grid, AgentState, Actions\nfrom pacman import SCARED_TIME, default\n\
                           from ghostAgents import RandomGhost\nimport layout\n";
    let imports = spring_with("from pacman import GameState\n", IMPORTS);
    assert!(check_text(course, imports.path(), &[]).contains("Total: 15/15"));

    let misspelt = spring_with("from util import manhattanDistance", "from util import manhatanDistance");
    let text = check_text(course, misspelt.path(), &["-q", "q2"]);
    assert!(
        text.contains("ImportError: cannot import name 'manhatanDistance' from 'util' (treegrade's util.py)"),
        "{text}"
    );
    assert!(!text.contains("/kits/"), "the grader's scratch folder is not shown: {text}");

    let calls = student_with(&spring_text().replacen("from pacman import GameState\n", IMPORTS, 1).replacen(
        "        return self.minimax(gameState, 0, 0)[1]",
        "        layout.getLayout('mediumClassic')\n        return self.minimax(gameState, 0, 0)[1]",
        1,
    ));
    let text = check_text(course, calls.path(), &["-q", "q2"]);
    assert!(
        text.contains("layout.getLayout is part of CS188's Pacman game, which the graded tests do not play"),
        "{text}"
    );
}

/// A course that installs a package in a virtual environment and puts its
/// `bin` first on `PATH` gets it imported in the sandbox, as the same
/// interpreter outside would: the environment is part of the toolchain.
#[test]
fn packages_of_the_virtual_environment_on_path_import_in_the_sandbox() {
    let Some(course) = course() else { return };
    let venv = tempfile::tempdir().unwrap();
    let made =
        std::process::Command::new("python3").args(["-m", "venv", "--without-pip"]).arg(venv.path()).output().unwrap();
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    let site = std::process::Command::new(venv.path().join("bin/python3"))
        .args(["-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"])
        .output()
        .unwrap();
    let site = String::from_utf8(site.stdout).unwrap();
    std::fs::write(Path::new(site.trim()).join("coursepackage.py"), "ROUNDS = 1\n").unwrap();
    let student = spring_with("from pacman import GameState\n", "from pacman import GameState\nimport coursepackage\n");
    let path = std::env::join_paths(
        std::iter::once(venv.path().join("bin")).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    let output = treegrade()
        .env("PATH", path)
        .arg("check")
        .arg("--assignment")
        .arg(course)
        .arg("--submission")
        .arg(student.path())
        .args(["--sandbox", "auto", "-q", "q2"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("Total: 5/5"), "{stdout}");
}

/// A minimax that shuffles its moves (`random.shuffle`) is a right minimax:
/// CS188's graph tests pass it, and so does the imported course, whose
/// minimax and expectimax questions take children in any depth-first order
/// (`child_order: any`). Its report is the same on every run: the kit seeds
/// `random` before each test.
#[test]
fn a_minimax_that_shuffles_its_moves_passes_and_gets_the_same_report_every_run() {
    let Some(course) = course() else { return };
    let student = spring_with(
        "        for action in state.getLegalActions(agentIndex):\n            score, _ = self.minimax(",
        "        actions = state.getLegalActions(agentIndex)\n        random.shuffle(actions)\n        \
         for action in actions:\n            score, _ = self.minimax(",
    );
    let run = || {
        let mut report = check(course, student.path());
        report["elapsed_ms"] = 0.into();
        for test in report["questions"][0]["tests"].as_array_mut().unwrap() {
            test["elapsed_ms"] = 0.into();
        }
        report["questions"][0].clone()
    };
    let first = run();
    assert_eq!(first, run());
    assert_eq!((first["id"].as_str(), first["score"].as_f64()), (Some("q2"), Some(5.0)), "{first}");
    let tests = first["tests"].as_array().unwrap();
    let reordered = tests.iter().filter(|test| test["actual"]["visited"] != test["expected"]["visited"]).count();
    assert!(reordered > 0, "the shuffle changed no order: the test proves nothing");
}

/// An agent whose `__init__` refuses CS188's `depth=` keyword is told so,
/// not that its `getAction` failed.
#[test]
fn an_agent_that_cannot_be_created_is_named_as_such() {
    let Some(course) = course() else { return };
    let student =
        spring_with("def __init__(self, evalFn='scoreEvaluationFunction', depth='2'):", "def __init__(self, index):");
    let report = check(course, student.path());
    let reason = tests(&report).next().unwrap()["reason"].as_str().unwrap().to_string();
    assert!(reason.contains("in creating MinimaxAgent(depth=2) as CS188's tests do"), "{reason}");
}

/// An expectimax whose helper returns, for a state, the value of each of
/// its moves as `(value, action)` pairs: the start state's value is the best
/// of its pairs, so a sum in place of the average loses q4 although it
/// picks CS188's moves.
#[test]
fn values_returned_as_pairs_of_value_and_move_are_checked() {
    let Some(course) = course() else { return };
    const AGENT: &str = r#"from game import Agent
import util


def scoreEvaluationFunction(currentGameState):
    return currentGameState.getScore()


class MultiAgentSearchAgent(Agent):
    def __init__(self, evalFn='scoreEvaluationFunction', depth='2'):
        self.index = 0
        self.evaluationFunction = util.lookup(evalFn, globals())
        self.depth = int(depth)


class ExpectimaxAgent(MultiAgentSearchAgent):
    def getAction(self, gameState):
        def moveValues(ply, state):
            agents = state.getNumAgents()
            moves = []
            for action in state.getLegalActions(ply % agents):
                child = state.generateSuccessor(ply % agents, action)
                if child.isWin() or child.isLose() or ply == self.depth * agents - 1:
                    moves.append((self.evaluationFunction(child), action))
                elif (ply + 1) % agents == 0:
                    moves.append((max(moveValues(ply + 1, child))[0], action))
                else:
                    below = moveValues(ply + 1, child)
                    moves.append((sum(value for value, _ in below) / len(below), action))
            return moves

        best, choice = None, None
        for value, action in moveValues(0, gameState):
            if best is None or value > best:
                best, choice = value, action
        return choice
"#;
    let q4 = |text: &str| {
        let student = student_with(text);
        let report = check(course, student.path());
        report["questions"].as_array().unwrap().iter().find(|q| q["id"] == "q4").unwrap().clone()
    };
    let average = q4(AGENT);
    assert_eq!(average["score"].as_f64(), Some(5.0), "{average}");
    let unobserved = average["tests"].as_array().unwrap().iter().filter(|t| t["checks"]["value"] != "passed").count();
    assert_eq!(unobserved, 0, "every value is observed: {average}");
    let sum = q4(&AGENT.replace(" / len(below)", ""));
    assert_eq!(sum["score"].as_f64(), Some(0.0), "{sum}");
}

/// Two things a real file can hold that make Python's own message mislead:
/// git's conflict markers (a syntax error lines later) and a debugger left
/// in (`pdb.set_trace()`, which nobody answers while grading).
#[test]
fn conflict_markers_and_a_debugger_left_in_are_named() {
    let Some(course) = course() else { return };
    let merged = spring_with("class MinimaxAgent(", "<<<<<<< HEAD\nclass MinimaxAgent(");
    let text = check_text(course, merged.path(), &["-q", "q2"]);
    assert!(text.contains("holds a conflict marker of git (<<<<<<<, =======, >>>>>>>)"), "{text}");
    let debugger = spring_with(
        "        return self.minimax(gameState, 0, 0)[1]",
        "        import pdb; pdb.set_trace()\n        return self.minimax(gameState, 0, 0)[1]",
    );
    let text = check_text(course, debugger.path(), &["-q", "q2"]);
    assert!(text.contains("your code started the debugger (pdb.set_trace() or breakpoint())"), "{text}");
}
