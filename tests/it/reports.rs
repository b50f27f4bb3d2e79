//! Snapshots of every report format for one mixed grading run: a pass, a
//! wrong visited order, a crash, and a hidden test. Reviewed as diffs with
//! insta; timings are zeroed so the snapshots are stable.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use crate::common;

use common::{MINIMAX_CLIENT, with_hooks};
use treegrade::engine::Algorithm;
use treegrade::grader::plan::{Assignment, Question, Scoring, TestFile, plan_tests};
use treegrade::grader::verdict::GradeReport;
use treegrade::grader::{Target, grade};
use treegrade::load::load_tree_file;
use treegrade::report::{Format, render};

/// Alpha-beta done wrong: no pruning at all (the plain minimax client), and
/// a crash on the three-bin game.
fn no_pruning_client() -> String {
    let crash = "if \"three-bin\" in m[\"test\"]:\n        \
                 sys.stderr.write(\"Traceback (most recent call last):\\nZeroDivisionError: division by zero\\n\")\n        \
                 sys.exit(1)";
    with_hooks(MINIMAX_CLIENT, &[("SEARCH", crash)])
}

fn mixed_report() -> GradeReport {
    let cases = Path::new(env!("CARGO_MANIFEST_DIR")).join("test-cases");
    let test = |name: &str, hidden: bool| TestFile { path: cases.join(name), hidden };
    let assignment = Assignment {
        name: "snapshots".into(),
        title: "Report snapshots".into(),
        dir: cases.clone(),
        time_limit: Duration::from_secs(10),
        languages: Vec::new(),
        questions: vec![Question {
            id: "q2".into(),
            title: "Alpha-beta".into(),
            points: treegrade::points::Points::whole(4),
            algorithm: Algorithm::AlphaBeta,
            depth: None,
            prune_on_equal: Some(false),
            scoring: Scoring::PerTest,
            tests: vec![
                test("single-terminal-root.yaml", false),
                test("aima-fig5-2.yaml", false),
                test("three-bin-minimax.yaml", false),
                test("alphabeta-deep-cutoff.yaml", true),
            ],
            generate: None,
        }],
    };
    let tests = plan_tests(&assignment, &[0], |t| Arc::new(load_tree_file(&t.path).unwrap().tree)).unwrap();
    let kits = tempfile::tempdir().unwrap();
    let command = vec!["python3".to_string(), "-c".to_string(), no_pruning_client()];
    let target = Target { dir: cases, command: Some(command), name: Some("submissions/student-42".into()) };
    let mut report = grade(&assignment, &[0], &tests, &target, kits.path()).unwrap();
    report.elapsed_ms = 0;
    for question in &mut report.questions {
        for test in &mut question.tests {
            test.elapsed_ms = 0;
            test.path = Path::new(&test.path).file_name().unwrap().to_string_lossy().into_owned();
        }
    }
    report
}

#[test]
fn every_format_renders_the_same_run() {
    let report = mixed_report();
    insta::assert_snapshot!("text", render(&report, Format::Text, false));
    insta::assert_snapshot!("markdown", render(&report, Format::Markdown, false));
    insta::assert_snapshot!("junit", render(&report, Format::Junit, false));
    insta::assert_snapshot!("gradescope", render(&report, Format::Gradescope, false));
    insta::assert_snapshot!("json", render(&report, Format::Json, false));
}

#[test]
fn gradescope_results_have_the_required_fields() {
    let report = mixed_report();
    let results: serde_json::Value = serde_json::from_str(&render(&report, Format::Gradescope, false)).unwrap();
    assert_eq!(results["score"], 1.0);
    let tests = results["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 4);
    for test in tests {
        for key in ["name", "number", "score", "max_score", "status", "output", "visibility"] {
            assert!(test.get(key).is_some(), "missing {key} in {test}");
        }
    }
    assert_eq!(tests[3]["visibility"], "after_published");
    assert_eq!(tests[0]["status"], "passed");
    assert_eq!(tests[1]["status"], "failed");
}

#[test]
fn hidden_tests_never_show_expected_answers() {
    let report = mixed_report();
    for format in [Format::Text, Format::Markdown, Format::Junit, Format::Gradescope] {
        let rendered = render(&report, format, false);
        assert!(rendered.contains("hidden test: wrong visited order"), "{format:?}: {rendered}");
    }
}

#[test]
fn prairielearn_results_score_in_zero_to_one() {
    let report = mixed_report();
    let results: serde_json::Value = serde_json::from_str(&render(&report, Format::Prairielearn, false)).unwrap();
    assert_eq!(results["gradable"], true);
    assert_eq!(results["score"], 0.25);
    let tests = results["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 4);
    assert_eq!((tests[0]["points"].as_f64(), tests[0]["max_points"].as_f64()), (Some(1.0), Some(1.0)));
    assert_eq!(tests[1]["points"], 0.0);
    assert!(tests[1]["output"].as_str().unwrap().contains("likely cause: no pruning"));
}
