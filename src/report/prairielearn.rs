//! PrairieLearn's external-grader `results.json`: `score` in 0..1 and a
//! test list with `points` and `max_points`.

use serde::Serialize;

use super::{details_plain, points, pretty_json, round_score};
use crate::grader::verdict::{GradeReport, TestStatus};

#[derive(Serialize)]
struct Results<'a> {
    gradable: bool,
    score: f64,
    message: String,
    output: String,
    tests: Vec<PrairieTest<'a>>,
}

#[derive(Serialize)]
struct PrairieTest<'a> {
    name: &'a str,
    description: String,
    points: f64,
    max_points: f64,
    message: String,
    output: String,
}

pub fn render(report: &GradeReport) -> String {
    let tests = report
        .questions
        .iter()
        .flat_map(|question| question.tests.iter().map(move |test| (question, test)))
        .map(|(question, test)| {
            let output = if test.status == TestStatus::Passed { String::new() } else { details_plain(test) };
            let message = match output.lines().next() {
                _ if test.status == TestStatus::Passed => "passed".to_string(),
                Some(first) => first.to_string(),
                None => "failed".to_string(),
            };
            PrairieTest {
                name: &test.name,
                description: format!("{} {}", question.id, question.title),
                points: round_score(test.score),
                max_points: round_score(test.max_score),
                message,
                output,
            }
        })
        .collect();
    let results = Results {
        gradable: true,
        score: if report.max_score > 0.0 { round_score(report.score / report.max_score) } else { 0.0 },
        message: format!("{}: {}/{} points", report.title, points(report.score), points(report.max_score)),
        output: String::new(),
        tests,
    };
    pretty_json(&results)
}
