//! Gradescope's `results.json` (the autograder specification's format).

use serde::Serialize;

use super::{details_plain, points, pretty_json, round_score};
use crate::grader::verdict::{GradeReport, TestStatus};

#[derive(Serialize)]
struct Results<'a> {
    score: f64,
    execution_time: f64,
    output: String,
    visibility: &'static str,
    stdout_visibility: &'static str,
    tests: Vec<GradescopeTest<'a>>,
}

#[derive(Serialize)]
struct GradescopeTest<'a> {
    name: &'a str,
    number: String,
    score: f64,
    max_score: f64,
    status: &'static str,
    output: String,
    visibility: &'static str,
}

pub fn render(report: &GradeReport) -> String {
    let mut tests = Vec::new();
    for (question_number, question) in report.questions.iter().enumerate() {
        for (test_number, test) in question.tests.iter().enumerate() {
            let passed = test.status == TestStatus::Passed;
            tests.push(GradescopeTest {
                name: &test.name,
                number: format!("{}.{}", question_number + 1, test_number + 1),
                score: round_score(test.score),
                max_score: round_score(test.max_score),
                status: if passed { "passed" } else { "failed" },
                output: if passed { String::new() } else { details_plain(test) },
                visibility: if test.hidden { "after_published" } else { "visible" },
            });
        }
    }
    let output = format!(
        "{}: {}/{} points. Run `treegrade check` locally to see the same report with diffs.",
        report.title,
        points(report.score),
        points(report.max_score)
    );
    let results = Results {
        score: round_score(report.score),
        execution_time: report.elapsed_ms as f64 / 1000.0,
        output,
        visibility: "visible",
        stdout_visibility: "hidden",
        tests,
    };
    pretty_json(&results)
}
