//! The grader against programs that speak the protocol by hand (no kit):
//! a correct minimal searcher, and hostile or broken variants of it. Each
//! failure must cost only its own test, with a precise reason.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::common;

use common::{MINIMAX_CLIENT, with_hooks};
use treegrade::engine::Algorithm;
use treegrade::grader::plan::{
    Assignment, PlannedTest, Question, QuestionKind, Scoring, Searches, TestFile, TestTree, plan_tests,
};
use treegrade::grader::result::{Check, GradeReport, TestResult, TestStatus};
use treegrade::grader::session::FailureKind;
use treegrade::grader::{Target, grade};
use treegrade::load::load_tree_file;
use treegrade::report::{Format, render};

const TREES: [&str; 3] = ["aima-fig5-2.yaml", "three-bin-minimax.yaml", "tie-at-root-first-wins.yaml"];

fn test_cases() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("test-cases")
}

fn assignment(time_limit: Duration) -> Assignment {
    Assignment {
        name: "hand-written".into(),
        title: "Hand-written protocol clients".into(),
        dir: test_cases(),
        time_limit,
        languages: Vec::new(),
        verdict: Default::default(),
        questions: vec![Question {
            id: "q1".into(),
            title: "Minimax".into(),
            points: treegrade::points::Points::whole(3),
            scoring: Scoring::PerTest,
            kind: QuestionKind::Search(Searches {
                algorithm: Algorithm::Minimax,
                depth: None,
                prune_on_equal: None,
                overrides: Default::default(),
                child_order: Default::default(),
                tests: TREES.iter().map(|name| TestFile { path: test_cases().join(name), hidden: false }).collect(),
                generate: None,
                pacman: Vec::new(),
            }),
        }],
    }
}

fn plan(assignment: &Assignment) -> Vec<PlannedTest> {
    plan_tests(assignment, &[0], |test| {
        TestTree::Written(Arc::new(load_tree_file(&test.path).expect("curated trees are valid").tree))
    })
    .expect("the trees fit minimax")
}

/// Grades a client built from [`MINIMAX_CLIENT`] with `hooks` replaced.
fn grade_client(hooks: &[(&str, &str)], time_limit: Duration) -> GradeReport {
    let script = with_hooks(MINIMAX_CLIENT, hooks);
    grade_command(vec!["python3".into(), "-c".into(), script], time_limit)
}

fn grade_command(command: Vec<String>, time_limit: Duration) -> GradeReport {
    let assignment = assignment(time_limit);
    let tests = plan(&assignment);
    let kits = tempfile::tempdir().unwrap();
    let submission = tempfile::tempdir().unwrap();
    let target = Target { dir: submission.path().to_path_buf(), command: Some(command), name: Some("student".into()) };
    grade(&assignment, &[0], &tests, &target, kits.path()).expect("a command is always gradable")
}

fn results(report: &GradeReport) -> Vec<&TestResult> {
    report.tests().collect()
}

fn reason(test: &TestResult) -> &str {
    test.header.reason.as_deref().unwrap_or("")
}

#[test]
fn a_correct_client_gets_full_marks() {
    let report = grade_client(&[], Duration::from_secs(10));
    assert!(report.all_passed(), "{}", render(&report, Format::Text, false));
    assert_eq!(report.score, treegrade::points::Points::whole(3));
}

#[test]
fn a_crash_costs_only_its_test() {
    let report = grade_client(&[("SEARCH", "if searches == 2: sys.exit(7)")], Duration::from_secs(10));
    let tests = results(&report);
    assert_eq!(tests[0].header.status, TestStatus::Passed);
    assert_eq!(tests[1].header.status, TestStatus::Error(FailureKind::Crashed));
    assert!(reason(tests[1]).contains("exited with status 7 during this test"), "{}", reason(tests[1]));
    assert_eq!(tests[2].header.status, TestStatus::Passed, "the program is restarted for the rest");
    assert_eq!(report.score, treegrade::points::Points::whole(2));
}

#[test]
fn a_hang_times_out_with_progress_and_the_rest_is_graded() {
    let hook = "if m['test'] == 'q1/aima-fig5-2':\n        node(m['root'])\n        time.sleep(60)";
    let report = grade_client(&[("SEARCH", hook)], Duration::from_millis(1500));
    let tests = results(&report);
    assert_eq!(tests[0].header.status, TestStatus::Error(FailureKind::TimedOut));
    assert!(
        reason(tests[0]).contains("did not answer within 1.5 s (it had entered 1 nodes; the last was A)"),
        "{}",
        reason(tests[0])
    );
    assert_eq!(tests[1].header.status, TestStatus::Passed);
    assert_eq!(tests[2].header.status, TestStatus::Passed);
}

#[test]
fn sleeping_forever_after_half_the_tests_fails_only_the_rest() {
    let report = grade_client(&[("SEARCH", "if searches >= 2: time.sleep(60)")], Duration::from_secs(1));
    let statuses: Vec<TestStatus> = results(&report).iter().map(|t| t.header.status).collect();
    assert_eq!(
        statuses,
        [TestStatus::Passed, TestStatus::Error(FailureKind::TimedOut), TestStatus::Passed],
        "a restarted program counts its searches from 1 again"
    );
}

#[test]
fn garbage_on_stdout_is_a_protocol_error_with_the_text() {
    let report = grade_client(&[("BEFORE_HELLO", "print('hello there')")], Duration::from_secs(10));
    let first = results(&report)[0];
    assert_eq!(first.header.status, TestStatus::Error(FailureKind::ProtocolError));
    assert!(reason(first).contains("printed \"hello there\" on stdout"), "{}", reason(first));
    assert!(reason(first).contains("print debug output to stderr"));
}

#[test]
fn guessing_node_ids_is_refused() {
    let hook = "if searches == 1:\n        send({'type': 'visit', 'node': 'C.2'}); recv()";
    let report = grade_client(&[("SEARCH", hook)], Duration::from_secs(10));
    let first = results(&report)[0];
    assert_eq!(first.header.status, TestStatus::Error(FailureKind::ProtocolError));
    assert!(reason(first).contains("\"C.2\" before it was listed"), "{}", reason(first));
    assert!(first.actual().visited.is_empty(), "a refused request enters nothing");
}

#[test]
fn a_forged_result_without_searching_fails_on_the_order() {
    // Knowing the answer is not enough: the grader saw no node entered.
    let hook = "if searches == 1:\n        send({'type': 'result', 'value': 3, 'action': 'B'}); continue";
    let report = grade_client(&[("SEARCH", hook)], Duration::from_secs(10));
    let first = results(&report)[0];
    assert_eq!(first.header.status, TestStatus::Failed);
    assert_eq!(
        (first.checks().value, first.checks().action, first.checks().order),
        (Check::Passed, Check::Passed, Check::Failed)
    );
    assert!(reason(first).contains("you stopped after 0 nodes; step 1 should enter A"), "{}", reason(first));
}

#[test]
fn floods_are_capped_and_do_not_block() {
    let hook = "if searches == 1:\n        sys.stderr.write('x' * 5_000_000); sys.stderr.flush()";
    let report = grade_client(&[("SEARCH", hook)], Duration::from_secs(20));
    let first = results(&report)[0];
    assert_eq!(first.header.status, TestStatus::Passed, "{first:?}");
    assert!(first.header.stderr.len() < 100_000, "stderr kept: {} bytes", first.header.stderr.len());
    assert!(first.header.stderr.contains("bytes of output omitted"));
    let flood = "if searches == 1:\n        out.write('y' * 3_000_000); out.flush()";
    let report = grade_client(&[("SEARCH", flood)], Duration::from_secs(20));
    let first = results(&report)[0];
    assert_eq!(first.header.status, TestStatus::Error(FailureKind::ProtocolError));
    assert!(reason(first).contains("longer than 1 MiB"), "{}", reason(first));
}

#[test]
fn exiting_early_is_reported() {
    let report = grade_client(&[("SEARCH", "sys.exit(0)")], Duration::from_secs(10));
    for test in results(&report) {
        assert_eq!(test.header.status, TestStatus::Error(FailureKind::Crashed));
        assert!(reason(test).contains("exited with status 0 during this test"), "{}", reason(test));
    }
}

#[test]
fn a_missing_program_fails_every_test_clearly() {
    let report = grade_command(vec!["/no/such/searcher".into()], Duration::from_secs(5));
    for test in results(&report) {
        assert_eq!(test.header.status, TestStatus::Error(FailureKind::NotStarted));
        assert!(reason(test).contains("could not start your program (`/no/such/searcher`"), "{}", reason(test));
    }
}

#[test]
fn a_missing_submission_folder_is_not_gradable() {
    let assignment = assignment(Duration::from_secs(5));
    let tests = plan(&assignment);
    let kits = tempfile::tempdir().unwrap();
    let target = Target { dir: "/no/such/folder".into(), command: Some(vec!["python3".into()]), name: None };
    let error = grade(&assignment, &[0], &tests, &target, kits.path()).unwrap_err();
    assert!(matches!(error, treegrade::grader::NotGradable::MissingFolder(_)));
    assert_eq!(error.to_string(), "the submission folder /no/such/folder does not exist");
}

#[test]
fn a_wrong_protocol_version_is_named() {
    let hook = "recv(); send({'type': 'hello', 'protocol': 7}); sys.exit(0)";
    let report = grade_client(&[("BEFORE_HELLO", hook)], Duration::from_secs(10));
    let first = results(&report)[0];
    assert!(reason(first).contains("protocol version 7, but this grader speaks version 1"), "{}", reason(first));
}

#[test]
fn evaluating_without_a_depth_limit_is_a_protocol_error() {
    let hook = "if searches == 1:\n        node(m['root']); send({'type': 'evaluate', 'node': 'B'}); recv()";
    let report = grade_client(&[("SEARCH", hook)], Duration::from_secs(10));
    let first = results(&report)[0];
    assert_eq!(first.header.status, TestStatus::Error(FailureKind::ProtocolError));
    assert!(
        reason(first).contains("you asked for the evaluation of B, but this search has no depth limit"),
        "{}",
        reason(first)
    );
}

#[test]
fn a_non_numeric_value_is_a_protocol_error() {
    let hook = "if searches == 1:\n        node(m['root']); send({'type': 'result', 'value': 'three', 'action': 'B'}); continue";
    let report = grade_client(&[("SEARCH", hook)], Duration::from_secs(10));
    let first = results(&report)[0];
    assert!(reason(first).contains("must be a finite number"), "{}", reason(first));
}

#[test]
fn grading_is_deterministic() {
    let hook = "if searches == 2:\n        sys.exit(3)";
    let plain = |report: &GradeReport| {
        let mut report = report.clone();
        report.elapsed_ms = 0;
        for question in &mut report.questions {
            for test in &mut question.tests {
                test.header.elapsed_ms = 0;
            }
        }
        render(&report, Format::Json, false)
    };
    let first = plain(&grade_client(&[("SEARCH", hook)], Duration::from_secs(10)));
    let second = plain(&grade_client(&[("SEARCH", hook)], Duration::from_secs(10)));
    assert_eq!(first, second);
}

#[test]
fn a_program_that_dies_at_start_is_not_restarted_forever() {
    let report = grade_client(&[("BEFORE_HELLO", "sys.exit(4)")], Duration::from_secs(10));
    let tests = results(&report);
    assert!(reason(tests[0]).contains("exited with status 4 while starting up"), "{}", reason(tests[0]));
    assert!(!reason(tests[1]).contains("not started again"));
    assert!(
        reason(tests[2]).contains("not started again: it failed to start 2 times in a row"),
        "{}",
        reason(tests[2])
    );
    assert!(tests.iter().all(|t| t.header.status == TestStatus::Error(FailureKind::Crashed)));
    assert!(reason(tests[2]).matches("not started again").count() == 1);
    assert_eq!(
        reason(tests[2]),
        reason(tests[1]).to_string() + " (not started again: it failed to start 2 times in a row)"
    );
}

/// The Python kit reads the grader's replies whether they arrive split
/// across reads or several in one, spinning (`TREEGRADE_SPIN=1`, which the
/// grader sets when a core is spare) or not.
#[test]
fn the_python_kit_reads_split_and_joined_replies_spinning_or_not() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};

    for spin in [true, false] {
        let mut command = Command::new("python3");
        command
            .arg("search.py")
            .current_dir(common::repo().join("reference/python"))
            .env("PYTHONPATH", common::repo().join("grader/kits/python"))
            .env_remove("TREEGRADE_SPIN")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped());
        if spin {
            command.env("TREEGRADE_SPIN", "1");
        }
        let mut program = command.spawn().expect("python3 runs");
        // A kit that stops answering fails the test instead of hanging it
        // (killed only while it is still ours: the test says when it is done).
        let pid = program.id().to_string();
        let (done, finished) = std::sync::mpsc::channel::<()>();
        let watchdog = std::thread::spawn(move || {
            let waited = finished.recv_timeout(Duration::from_secs(30));
            if waited == Err(std::sync::mpsc::RecvTimeoutError::Timeout) {
                let _ = std::process::Command::new("kill").args(["-9", &pid]).status();
            }
        });
        let mut to_kit = program.stdin.take().expect("piped");
        let mut from_kit = BufReader::new(program.stdout.take().expect("piped"));
        let mut next_line = || {
            let mut line = String::new();
            from_kit.read_line(&mut line).expect("the kit writes lines");
            line
        };
        writeln!(to_kit, r#"{{"type":"hello","protocol":1,"grader":"test"}}"#).expect("write");
        assert!(next_line().contains(r#""type":"hello""#));
        let search =
            r#"{"type":"search","test":"t","algorithm":"minimax","depth":null,"prune_on_equal":false,"root":"A"}"#;
        writeln!(to_kit, "{search}").expect("write");
        assert_eq!(next_line().trim(), r#"{"type":"visit","node":"A"}"#, "spin {spin}");
        // The reply about A in two pieces, with a pause longer than any spin.
        let reply = r#"{"type":"node","node":"A","kind":"max","children":["B","C"],"actions":["left","right"]}"#;
        let (first, second) = reply.split_at(30);
        to_kit.write_all(first.as_bytes()).expect("write");
        to_kit.flush().expect("flush");
        std::thread::sleep(Duration::from_millis(50));
        writeln!(to_kit, "{second}").expect("write");
        assert_eq!(next_line().trim(), r#"{"type":"visit","node":"B"}"#, "spin {spin}");
        writeln!(to_kit, r#"{{"type":"node","node":"B","kind":"terminal","value":1}}"#).expect("write");
        assert_eq!(next_line().trim(), r#"{"type":"visit","node":"C"}"#, "spin {spin}");
        // The last reply and the goodbye in one write.
        let last =
            concat!(r#"{"type":"node","node":"C","kind":"terminal","value":2.5}"#, "\n", r#"{"type":"bye"}"#, "\n");
        to_kit.write_all(last.as_bytes()).expect("write");
        assert_eq!(next_line().trim(), r#"{"type":"result","value":2.5,"action":"right"}"#, "spin {spin}");
        drop(to_kit);
        let status = program.wait().expect("the kit exits");
        drop(done);
        watchdog.join().expect("the watchdog ends");
        assert!(status.success(), "spin {spin}");
    }
}
