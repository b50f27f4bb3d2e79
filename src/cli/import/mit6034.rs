//! `treegrade import mit6034`: MIT 6.034's games lab as a course.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::super::{Context, Failure, emit};
use crate::assignment::{ChildOrder, Language, Scoring};
use crate::compare::counted;
use crate::engine::SearchError;
use crate::grader::rules_program::{SandboxedProgram, StartError, last_lines, start_sandboxed};
use crate::grader::runner::Interrupted;
use crate::grader::sandbox::{Sandbox, SandboxMode};
use crate::import::mit6034::{self, CallTest, Converted, Lab, LabError, MitAnswer, Reference, SEARCHES, SearchTest};
use crate::load::write::{AssignmentDraft, QuestionDraft, assignment_to_yaml};
use crate::load::{LoadError, load_tree_str};
use crate::points::Points;

/// How the course judges a search: as MIT's tester does (docs/format.md, assignments).
const VERDICT: &str = "# As MIT's tester: the path, the score and the count of static evaluations decide;\n\
                       # a visited order unlike the reference's is a warning. `verdict: strict` also\n\
                       # requires the reference's static evaluations, in order.\nverdict: mit6034\n\
                       # MIT's tester has no time limit, and a lab file often runs its own examples\n\
                       # when it is imported (each question's program imports it once): 60 s a test\n\
                       # leaves room for the slowest measured (a progressive deepening of 10 s).\n\
                       time_limit: 60\n";

/// The course's folder for its trees.
const TESTS_DIR: &str = "tests";

/// Reads the lab in the sandbox, writes one tree per search test and one
/// call test per rule-function or multiple-choice test, lists the tests not
/// graded yet, and writes the course: exit 0 unless a test failed to convert.
pub fn run(dist: &Path, output: &Path, context: &Context) -> Result<(), Failure> {
    if !dist.is_dir() {
        return Err(Failure::Usage(format!(
            "{} is not a folder: give the folder of MIT 6.034's games lab",
            dist.display()
        )));
    }
    let lab = read_lab(dist, &context.sandbox(SandboxMode::Auto))?;
    let tests_dir = output.join(TESTS_DIR);
    std::fs::create_dir_all(&tests_dir)
        .map_err(|e| Failure::runtime(format!("cannot create {}", tests_dir.display()), e))?;
    let (mut imported, mut calls, mut not_graded, mut failed) = (Vec::new(), Vec::new(), Vec::new(), 0);
    for test in &lab.tests {
        match mit6034::convert(test) {
            Converted::Search(search) => match write_test(&search, &tests_dir) {
                Ok(()) => imported.push(search),
                Err(NotWritten::Wrong(wrong)) => {
                    emit(&format!("error  {}: {wrong}\n", search.name));
                    failed += 1;
                }
                Err(NotWritten::Write(error)) => return Err(Failure::Runtime(Box::new(error))),
            },
            Converted::Call(call) => match write_call(&call, &tests_dir) {
                Ok(()) => calls.push(call),
                Err(NotWritten::Wrong(wrong)) => {
                    emit(&format!("error  {}: {wrong}\n", call.name));
                    failed += 1;
                }
                Err(NotWritten::Write(error)) => return Err(Failure::Runtime(Box::new(error))),
            },
            Converted::NotGraded { name, reason } => {
                emit(&format!("not graded by treegrade yet: {name} ({reason})\n"));
                not_graded.push((name, reason));
            }
        }
    }
    eprintln!(
        "imported {} of {} tests ({} searches, {} calls; {} not graded by treegrade yet, {failed} failed)",
        imported.len() + calls.len(),
        lab.tests.len(),
        imported.len(),
        calls.len(),
        not_graded.len()
    );
    if !imported.is_empty() || !calls.is_empty() {
        write_course(output, &lab, &Imported { searches: &imported, calls: &calls }, &not_graded)?;
    }
    if failed > 0 {
        return Err(Failure::Reported);
    }
    Ok(())
}

/// Runs the lab reader on a copy of `dist` in `sandbox` (the lab's tests are
/// Python code: they run where a student's program would, never in this
/// process) and reads what it printed.
fn read_lab(dist: &Path, sandbox: &Sandbox) -> Result<Lab, Failure> {
    let folder = |e| Failure::runtime("could not get a folder to read the lab in", e);
    let copy = tempfile::tempdir().map_err(folder)?;
    mit6034::copy_lab(dist, copy.path()).map_err(|error| match error {
        LabError::Copy { .. } => Failure::runtime("cannot read the lab", error),
        other => Failure::Usage(other.to_string()),
    })?;
    let command: Vec<String> = ["python3", "-S", "-W", "ignore", "-u", "read_lab.py"].map(String::from).to_vec();
    let started =
        start_sandboxed(sandbox, &command, copy.path(), mit6034::READ_LIMIT).map_err(|error| match error {
            StartError::Folder(error) => folder(error),
            StartError::Sandbox(error) => Failure::runtime("the lab reader could not be sandboxed", error),
            StartError::Start(error) => Failure::runtime("python3 could not be started to read the lab", error),
        })?;
    let SandboxedProgram { mut program, .. } = started;
    let deadline = Instant::now() + mit6034::READ_LIMIT;
    let mut text = String::new();
    loop {
        match program.receive(deadline) {
            Ok(line) => {
                text.push_str(&line);
                text.push('\n');
            }
            Err(Interrupted::Ended(_)) => break,
            Err(Interrupted::Io(error)) => {
                // The pipe failed, not the lab: a failure of the system.
                program.kill();
                return Err(Failure::runtime("cannot read the lab reader's output", error));
            }
            Err(other) => {
                program.kill();
                return Err(Failure::Usage(format!("the lab reader did not finish: {other:?}")));
            }
        }
    }
    let stderr = program.finish(Duration::from_secs(1)).text();
    mit6034::parse_lab(&text)
        .map_err(|error| Failure::Usage(format!("{error} (the lab reader's stderr: {})", last_lines(stderr.trim()))))
}

/// Why a converted test was not written.
#[derive(Debug)]
enum NotWritten {
    /// The conversion is wrong: the test's line says why, and the other tests go on.
    Wrong(Wrong),
    /// Its file could not be written: the import stops, a runtime failure.
    Write(WriteError),
}

/// A converted test that does not check out: a bug of the import, reported
/// test by test.
#[derive(Debug, thiserror::Error)]
enum Wrong {
    /// The tree does not load.
    #[error("the converted tree does not load: {0}")]
    TreeLoad(#[source] LoadError),
    /// The reference search fails on it.
    #[error("the reference fails: {0}")]
    Reference(#[source] SearchError),
    /// The reference and the lab's search disagree.
    #[error(
        "treegrade's reference gives {} with {}, a search written as the lab's gives {} with {}",
        .found.value,
        counted(.found.evaluations, "static evaluation"),
        .mit.score,
        counted(.mit.evaluations, "static evaluation")
    )]
    Disagrees {
        /// What the reference found.
        found: Box<Reference>,
        /// What the lab's search gives.
        mit: Box<MitAnswer>,
    },
    /// The reference and the lab's progressive deepening disagree at some depth.
    #[error(
        "treegrade's reference gives {} by depth, a progressive deepening written as the lab's gives {}",
        by_depth(.found),
        by_depth(.mit)
    )]
    DisagreesByDepth {
        /// The reference's score and count at each depth.
        found: Vec<(f64, usize)>,
        /// The lab's search's.
        mit: Vec<(f64, usize)>,
    },
    /// The call test does not load.
    #[error("the converted call test does not load: {0}")]
    CallLoad(#[source] LoadError),
}

/// A file of the course that could not be written.
#[derive(Debug, thiserror::Error)]
#[error("cannot write {}", .path.display())]
struct WriteError {
    /// The file.
    path: PathBuf,
    /// What the system said.
    #[source]
    source: std::io::Error,
}

/// Writes `text` to `path`, or says which file could not be written.
fn write(path: &Path, text: &str) -> Result<(), WriteError> {
    std::fs::write(path, text).map_err(|source| WriteError { path: path.to_path_buf(), source })
}

/// Checks a converted tree with the reference, writes it, prints one line.
fn write_test(test: &SearchTest, tests_dir: &Path) -> Result<(), NotWritten> {
    let target = tests_dir.join(format!("{}.yaml", test.name));
    let wrong = NotWritten::Wrong;
    let loaded = load_tree_str(test.yaml.clone(), &target).map_err(|e| wrong(Wrong::TreeLoad(e)))?;
    let found = mit6034::reference(&loaded.tree, test.algorithm).map_err(|e| wrong(Wrong::Reference(e)))?;
    let mit = &test.mit;
    if found.by_depth != mit.by_depth {
        return Err(wrong(Wrong::DisagreesByDepth { found: found.by_depth, mit: mit.by_depth.clone() }));
    }
    if found.value != mit.score || found.evaluations != mit.evaluations {
        return Err(wrong(Wrong::Disagrees { found: Box::new(found), mit: Box::new(mit.clone()) }));
    }
    write(&target, &test.yaml).map_err(NotWritten::Write)?;
    let action = found.action.as_deref().map(|a| format!(", action {a}")).unwrap_or_default();
    let depths =
        if mit.by_depth.is_empty() { String::new() } else { format!("; by depth {}", by_depth(&mit.by_depth)) };
    emit(&format!(
        "ok     {} -> {} ({}, {}, value {}{action}, {}, path {}{depths})\n",
        test.name,
        target.display(),
        crate::compare::count_nodes(test.nodes),
        test.algorithm,
        found.value,
        counted(found.evaluations, "static evaluation"),
        mit.path.join(" "),
    ));
    Ok(())
}

/// Progressive deepening's scores and counts as MIT's test lists them:
/// `scores [11, 10, 10], static evaluations [4, 5, 6]`.
fn by_depth(depths: &[(f64, usize)]) -> String {
    let scores: Vec<String> = depths.iter().map(|(score, _)| crate::compare::format_value(*score)).collect();
    let counts: Vec<String> = depths.iter().map(|(_, count)| count.to_string()).collect();
    format!("scores [{}], static evaluations [{}]", scores.join(", "), counts.join(", "))
}

/// Checks that a call test reads back as YAML, writes it, prints one line.
fn write_call(test: &CallTest, tests_dir: &Path) -> Result<(), NotWritten> {
    let target = tests_dir.join(format!("{}.yaml", test.name));
    // As the grader will read it: a converted test that does not load is a bug worth reporting.
    crate::load::calls::load_call_str(&test.yaml, &target).map_err(|e| NotWritten::Wrong(Wrong::CallLoad(e)))?;
    write(&target, &test.yaml).map_err(NotWritten::Write)?;
    emit(&format!(
        "ok     {} -> {} (call {}, expects {}; MIT's testanswer agrees on {} probe values)\n",
        test.name,
        target.display(),
        test.shown,
        test.check,
        test.probes,
    ));
    Ok(())
}

/// What the import wrote: the search tests and the call tests, each in MIT's order.
struct Imported<'a> {
    searches: &'a [SearchTest],
    calls: &'a [CallTest],
}

/// The kit's language entry for the student's file under one of its names.
fn language(name: &str, file: &str, lists: &[(&str, String)], fixtures: &str) -> Language {
    let mut env = vec![
        ("PYTHONPATH".to_string(), "{kits}/python".to_string()),
        // The same set and dict orders on every run: a grade never depends on Python's hash seed.
        ("PYTHONHASHSEED".to_string(), "0".to_string()),
    ];
    env.extend(lists.iter().map(|(key, value)| (key.to_string(), value.clone())));
    // The JSON itself: the sandboxed program sees no course folder.
    env.push(("TREEGRADE_MIT6034_FIXTURES".to_string(), fixtures.to_string()));
    Language {
        name: name.to_string(),
        detect: vec![file.to_string()],
        build: None,
        build_time_limit: std::time::Duration::from_secs(0),
        run: ["python3", "-S", "-u", "{kits}/mit6034/treegrade_mit6034.py"].map(String::from).to_vec(),
        env,
    }
}

/// A calls question of one point a test.
fn calls_question(id: &str, title: &str, calls: &[&CallTest]) -> QuestionDraft {
    QuestionDraft {
        id: id.to_string(),
        title: title.to_string(),
        points: Points::from_decimal(calls.len() as f64).expect("a count is a number of points"),
        algorithm: None,
        prune_on_equal: None,
        scoring: Scoring::PerTest,
        child_order: ChildOrder::Given,
        tests: Vec::new(),
        pacman: Vec::new(),
        calls: calls.iter().map(|t| format!("{}.yaml", t.name)).collect(),
    }
}

/// The course, in MIT's order: the rule functions' calls, one question per
/// search function, the multiple-choice answers; one point per test, as MIT
/// counts tests.
fn draft(name: &str, lab: &mit6034::Lab, imported: &Imported) -> Result<AssignmentDraft, Failure> {
    let mut questions = Vec::new();
    let (answers, rules): (Vec<&CallTest>, Vec<&CallTest>) = imported.calls.iter().partition(|t| t.answer);
    if !rules.is_empty() {
        questions.push(calls_question("rules", "Connect Four rule functions", &rules));
    }
    let imported = imported.searches;
    for (function, algorithm) in SEARCHES {
        let tests: Vec<String> =
            imported.iter().filter(|t| t.function == function).map(|t| format!("{}.yaml", t.name)).collect();
        if tests.is_empty() {
            continue;
        }
        questions.push(QuestionDraft {
            id: function.to_string(),
            title: function.to_string(),
            points: Points::from_decimal(tests.len() as f64).expect("a count is a number of points"),
            algorithm: Some(algorithm),
            prune_on_equal: algorithm.prunes().then_some(true),
            scoring: Scoring::PerTest,
            child_order: ChildOrder::Given,
            tests,
            pacman: Vec::new(),
            calls: Vec::new(),
        });
    }
    if !answers.is_empty() {
        questions.push(calls_question("answers", "Multiple-choice answers", &answers));
    }
    let names = |keep: fn(&SearchTest) -> bool| {
        imported.iter().filter(|t| keep(t)).map(|t| t.name.as_str()).collect::<Vec<_>>().join(" ")
    };
    let rules: serde_json::Map<String, serde_json::Value> =
        imported.iter().filter_map(|t| Some((t.name.clone(), t.student_rules.clone()?))).collect();
    let lists = [
        // The tests whose scores are the mover's: the wrong `maximize` flag negates them.
        ("TREEGRADE_MIT6034_MOVER", names(|t| t.mover)),
        // The tests MIT runs on the student's own rules, with their boards: the kit checks those rules.
        ("TREEGRADE_MIT6034_RULES", serde_json::Value::Object(rules).to_string()),
        // The tests whose heuristic is always_zero, which takes a state as well as a snapshot.
        ("TREEGRADE_MIT6034_ALWAYS_ZERO", names(|t| t.always_zero)),
    ];
    let fixtures = serde_json::to_string(&lab.fixtures)
        .map_err(|e| Failure::runtime("cannot write the lab's fixtures as JSON", e))?;
    Ok(AssignmentDraft {
        comment: vec![
            "MIT 6.034's games lab, imported by `treegrade import mit6034`: each test is named after MIT's".to_string(),
            "test number (NN-function). Students hand in their unchanged lab2.py (or lab3.py); the MIT".to_string(),
            "6.034 kit calls its rule functions and reads its answers (the calls questions, each check".to_string(),
            "verified against MIT's own testanswer at import) and runs its searches on the trees. The lab".to_string(),
            "prunes on equality, as these questions do. Every test is worth 1 point, as MIT counts tests:".to_string(),
            "edit a question's `points:` to weigh it otherwise.".to_string(),
        ],
        name: name.to_string(),
        title: "MIT 6.034 games lab: Connect Four rules, DFS, minimax, alpha-beta and progressive deepening"
            .to_string(),
        tests_dir: TESTS_DIR.to_string(),
        languages: vec![
            language("python-mit6034", "lab2.py", &lists, &fixtures),
            language("python-mit6034-lab3", "lab3.py", &lists, &fixtures),
        ],
        questions,
    })
}

/// Writes `assignment.yaml` and the students' `README.md` beside the trees.
fn write_course(
    output: &Path,
    lab: &mit6034::Lab,
    imported: &Imported,
    not_graded: &[(String, String)],
) -> Result<(), Failure> {
    let name = std::path::absolute(output)
        .ok()
        .and_then(|path| path.file_name().map(|name| name.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "mit6034".to_string());
    let draft = draft(&name, lab, imported)?;
    let target = output.join("assignment.yaml");
    let text = format!("{}{VERDICT}", assignment_to_yaml(&draft));
    let runtime = |error: WriteError| Failure::Runtime(Box::new(error));
    write(&target, &text).map_err(runtime)?;
    write(&output.join("README.md"), &handout(&draft, imported.calls, not_graded)).map_err(runtime)?;
    // The assignment must load back; anything else is a bug worth reporting.
    crate::load::assignment::load_assignment(&target).map_err(|error| Failure::Input(vec![error]))?;
    let questions: Vec<String> = draft
        .questions
        .iter()
        .map(|q| {
            let points =
                if q.points.to_string() == "1" { "1 point".to_string() } else { format!("{} points", q.points) };
            format!("{} ({}, {points})", q.id, counted(q.tests.len() + q.calls.len(), "test"))
        })
        .collect();
    eprintln!("wrote {}: {}", target.display(), questions.join(", "));
    if !not_graded.is_empty() {
        eprintln!(
            "{} of MIT's tests are not graded by treegrade yet; README.md lists them with the reason",
            not_graded.len()
        );
    }
    Ok(())
}

/// The course's `README.md`: what students hand in, what is checked, and what is not graded yet.
fn handout(draft: &AssignmentDraft, calls: &[CallTest], not_graded: &[(String, String)]) -> String {
    let questions: Vec<String> = draft
        .questions
        .iter()
        .map(|q| {
            let files: Vec<&String> = q.tests.iter().chain(&q.calls).collect();
            let points =
                if files.len() == 1 { "1 point".to_string() } else { format!("{} points, one a test", files.len()) };
            let names: Vec<&str> = files.iter().map(|f| f.trim_end_matches(".yaml")).collect();
            format!("- `{}`: {} ({points})", q.title, names.join(", "))
        })
        .collect();
    // An answer's check would give the answer away: the README says only what kind of value is asked for.
    let checked: Vec<String> = calls
        .iter()
        .map(|c| match c.answer {
            false => format!("- {}: `{}` must give {}", c.name, c.shown, c.check),
            true => format!("- {}: `{}`, one of '1' to '5' as MIT's lab asks", c.name, c.shown),
        })
        .collect();
    let missing: Vec<String> = not_graded.iter().map(|(name, reason)| format!("- {name} ({reason})")).collect();
    let mut text = format!(
        "# {}\n\nHand in your `lab2.py` (or, from Fall 2017-2019, `lab3.py`), unchanged from what you would run \
         MIT's `tester.py` on.\n\nEach test is named after MIT's test number and the function it runs \
         (`23-dfs_maximizing` is MIT's test 23), and is worth 1 point, as MIT counts tests (your course may weigh \
         them otherwise):\n\n{}\n\nTo check your file, put it alone in a folder and run, \
         from this course folder:\n\n```sh\ntreegrade check --assignment . --submission path/to/your/folder\n```\n\n\
         treegrade runs your search functions on the lab's own trees and boards, with the arguments MIT's tests \
         pass. Your search gets an `AbstractGameState` as in the lab; every state it looks at comes from treegrade, \
         which records the states your search enters, in order, and its static evaluations (each \
         `get_endgame_score` at a game-over state and each `heuristic_fn` call at the depth limit). A test checks \
         what MIT's tester checks: the path you return (so ties keep the first best move), the score, and the \
         number of static evaluations you return (so alpha-beta prunes as soon as alpha >= beta, and counts no \
         pruned state). When your search looks at states in another order than the reference's, the report \
         says where, as a warning. On a Connect Four test treegrade's own rules give the moves; as MIT's test \
         runs the search on your own rule functions, a rule function that disagrees with Connect Four's on a \
         position your search reaches fails the test, and the report names that function. Your \
         `progressive_deepening` is checked as MIT's tests check it: its `AnytimeValue` holds one (path, score, \
         evaluations) per depth, from depth 1 to the depth limit, each with that depth's score and that depth's \
         own number of static evaluations (not a running total).\n",
        draft.title,
        questions.join("\n"),
    );
    if !checked.is_empty() {
        text.push_str(&format!(
            "\n## Your rule functions and answers\n\nThese tests call one of your Connect Four rule functions on \
             the lab's named boards (from `boards.py`), or read one of your `ANSWER_n`, and check what comes back \
             as MIT's tests do: a list of boards must hold one board per open column, in column order (where MIT's \
             test compares boards with `==`, their players, whose turn it is and the previous move count too), \
             and `endgame_score_connectfour_faster` and `heuristic_connectfour` must give numbers within \
             the bounds MIT's tests set. A function that raises `NotImplementedError`, or an answer left as `''`, \
             is not implemented yet.\n\n{}\n",
            checked.join("\n")
        ));
    }
    if !missing.is_empty() {
        text.push_str(&format!(
            "\n## Not graded by treegrade yet\n\nThese tests of MIT's are not part of this course yet; run MIT's \
             `tester.py` for them:\n\n{}\n",
            missing.join("\n")
        ));
    }
    text
}
