//! Points are exact in every format: a question's parts add up to it, the
//! questions add up to the total, nothing exceeds its maximum, and an
//! all-or-nothing question never shows a passed test with points it could
//! not earn. The run mixes a 5-point question of 12 tests (shares of
//! 0.416667 and 0.416666), a half-passed one, and two all-or-nothing ones.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use treegrade::batch::gradebook::{StoredResult, write_csv};
use treegrade::engine::Algorithm;
use treegrade::grader::plan::{Assignment, Question, QuestionKind, Scoring, Searches, TestFile, TestTree, plan_tests};
use treegrade::grader::result::GradeReport;
use treegrade::grader::{Target, grade};
use treegrade::load::load_tree_file;
use treegrade::points::Points;
use treegrade::report::{Format, render};

use crate::common::MINIMAX_CLIENT;

/// Twelve trees that plain minimax searches exactly as alpha-beta does on
/// some and not on others.
const TREES: [&str; 12] = [
    "aima-fig5-2.yaml",
    "single-terminal-root.yaml",
    "three-bin-minimax.yaml",
    "inline-leaves-mixed-with-ids.yaml",
    "tie-at-root-first-wins.yaml",
    "tie-all-children-equal.yaml",
    "numeric-ids.yaml",
    "labelled-actions.yaml",
    "negative-fractional-values.yaml",
    "two-ghosts-minimax.yaml",
    "alphabeta-deep-cutoff.yaml",
    "prune-on-equal-true-skips-sibling.yaml",
];

fn question(id: &str, algorithm: Algorithm, scoring: Scoring, trees: &[&str]) -> Question {
    let cases = Path::new(env!("CARGO_MANIFEST_DIR")).join("test-cases");
    Question {
        id: id.into(),
        title: format!("Question {id}"),
        points: Points::whole(5),
        scoring,
        kind: QuestionKind::Search(Searches {
            algorithm,
            depth: None,
            prune_on_equal: Some(true),
            overrides: Default::default(),
            child_order: Default::default(),
            tests: trees.iter().map(|tree| TestFile { path: cases.join(tree), hidden: false }).collect(),
            generate: None,
            pacman: Vec::new(),
        }),
    }
}

/// A minimax program graded on minimax and alpha-beta questions.
fn mixed_run() -> GradeReport {
    let cases = Path::new(env!("CARGO_MANIFEST_DIR")).join("test-cases");
    let assignment = Assignment {
        name: "points".into(),
        title: "Exact points".into(),
        dir: cases.clone(),
        time_limit: Duration::from_secs(10),
        languages: Vec::new(),
        verdict: Default::default(),
        questions: vec![
            question("q1", Algorithm::Minimax, Scoring::PerTest, &TREES),
            question("q2", Algorithm::AlphaBeta, Scoring::PerTest, &TREES),
            question("q3", Algorithm::AlphaBeta, Scoring::AllOrNothing, &TREES[..3]),
            question("q4", Algorithm::Minimax, Scoring::AllOrNothing, &TREES[..3]),
        ],
    };
    let selected = [0, 1, 2, 3];
    let tests =
        plan_tests(&assignment, &selected, |t| TestTree::Written(Arc::new(load_tree_file(&t.path).unwrap().tree)))
            .unwrap();
    let kits = tempfile::tempdir().unwrap();
    let command = vec!["python3".to_string(), "-c".to_string(), MINIMAX_CLIENT.to_string()];
    let target = Target { dir: cases, command: Some(command), name: Some("student".into()) };
    grade(&assignment, &selected, &tests, &target, kits.path()).unwrap()
}

fn points(value: &Value) -> Points {
    Points::from_decimal(value.as_f64().expect("a number")).expect("whole millionths")
}

fn sum(values: impl Iterator<Item = Points>) -> Points {
    values.sum()
}

#[test]
fn the_report_adds_up_exactly() {
    let report = mixed_run();
    let q = &report.questions;
    assert_eq!(q[0].score, Points::whole(5), "every minimax test passes");
    assert!(Points::ZERO < q[1].score && q[1].score < Points::whole(5), "some alpha-beta tests fail: {}", q[1].score);
    assert_eq!(q[2].score, Points::ZERO, "all or nothing, and something failed");
    assert_eq!(q[3].score, Points::whole(5));
    for question in &report.questions[..2] {
        assert_eq!(sum(question.tests.iter().map(|t| t.header.max_score)), question.max_score);
        assert_eq!(sum(question.tests.iter().map(|t| t.header.score)), question.score);
        assert!(question.tests.iter().all(|t| t.header.score <= t.header.max_score));
    }
    assert_eq!(report.max_score, Points::whole(20));
    assert_eq!(report.score, sum(report.questions.iter().map(|q| q.score)));
}

#[test]
fn json_parts_add_up_to_the_whole() {
    let report = mixed_run();
    let json: Value = serde_json::from_str(&render(&report, Format::Json, false)).unwrap();
    let questions = json["questions"].as_array().unwrap();
    for question in questions {
        let tests = question["tests"].as_array().unwrap();
        assert!(points(&question["score"]) <= points(&question["max_score"]));
        if question["scoring"] == "per-test" {
            assert_eq!(sum(tests.iter().map(|t| points(&t["score"]))), points(&question["score"]));
            assert_eq!(sum(tests.iter().map(|t| points(&t["max_score"]))), points(&question["max_score"]));
        }
    }
    assert_eq!(sum(questions.iter().map(|q| points(&q["score"]))), points(&json["score"]));
    assert_eq!(json["max_score"], 20.0);
}

#[test]
fn gradescope_entries_add_up_and_all_or_nothing_is_honest() {
    let report = mixed_run();
    let results: Value = serde_json::from_str(&render(&report, Format::Gradescope, false)).unwrap();
    let tests = results["tests"].as_array().unwrap();
    assert_eq!(sum(tests.iter().map(|t| points(&t["score"]))), points(&results["score"]));
    assert_eq!(sum(tests.iter().map(|t| points(&t["max_score"]))), Points::whole(20));
    for test in tests {
        let passed_without_points = test["status"] == "passed" && points(&test["score"]) < points(&test["max_score"]);
        assert!(!passed_without_points, "a passed entry without its points: {test}");
        assert!(points(&test["score"]) <= points(&test["max_score"]));
    }
    let q3 = tests
        .iter()
        .find(|t| t["name"] == "Question q3: Question q3")
        .expect("an entry for the all-or-nothing question");
    assert_eq!((points(&q3["score"]), points(&q3["max_score"])), (Points::ZERO, Points::whole(5)));
    assert_eq!(q3["status"], "failed");
    assert!(q3["output"].as_str().unwrap().contains("All or nothing"), "{q3}");
}

#[test]
fn prairielearn_entries_add_up_and_all_or_nothing_is_honest() {
    let report = mixed_run();
    let results: Value = serde_json::from_str(&render(&report, Format::Prairielearn, false)).unwrap();
    let tests = results["tests"].as_array().unwrap();
    let earned = sum(tests.iter().map(|t| points(&t["points"])));
    assert_eq!(earned, report.score);
    assert_eq!(sum(tests.iter().map(|t| points(&t["max_points"]))), Points::whole(20));
    assert_eq!(results["score"].as_f64().unwrap(), report.score.fraction_of(Points::whole(20)));
    for test in tests {
        let passed_without_points =
            test["message"] == "passed" && points(&test["points"]) < points(&test["max_points"]);
        assert!(!passed_without_points, "a passed entry without its points: {test}");
    }
}

#[test]
fn text_markdown_html_and_gradebook_show_the_same_exact_numbers() {
    let report = mixed_run();
    let q2 = report.questions[1].score;
    let total = report.score;
    let text = render(&report, Format::Text, false);
    assert!(text.contains(&format!("Question q2: {q2}/5")), "{text}");
    assert!(text.contains(&format!("Total: {total}/20")), "{text}");
    let markdown = render(&report, Format::Markdown, false);
    assert!(markdown.contains(&format!("{total}/20")), "{markdown}");
    let html = treegrade::report::render_html(&report, &[]);
    assert!(html.contains(&format!("{total} / 20")) || html.contains(&format!("{total}/20")), "{html}");
    let stored = StoredResult::from_report("student", "f", &report, Duration::ZERO);
    let mut csv = Vec::new();
    write_csv(&[stored], &["q1".into(), "q2".into(), "q3".into(), "q4".into()], &mut csv).unwrap();
    let csv = String::from_utf8(csv).unwrap();
    assert!(csv.lines().nth(1).unwrap().starts_with(&format!("student,{total},20,5,{q2},0,5,")), "{csv}");
}
