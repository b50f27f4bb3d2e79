//! PrairieLearn's external-grader `results.json`: `score` in 0..1 and a
//! test list with `points` and `max_points`.
//!
//! As in the Gradescope format, the tests' points add up to the total
//! exactly: an all-or-nothing question's tests carry no points and one entry
//! for the question carries them. A submission that could not be graded at
//! all still gets a `results.json`, with `gradable: false` and the reason.

use serde::Serialize;

use super::{details_plain, pretty_json};
use crate::grader::plan::Scoring;
use crate::grader::result::{GradeReport, QuestionResult, TestResult, TestStatus};
use crate::grader::session::FailureKind;
use crate::points::Points;

#[derive(Serialize)]
struct Results {
    gradable: bool,
    score: f64,
    message: String,
    output: String,
    tests: Vec<PrairieTest>,
}

#[derive(Serialize)]
struct PrairieTest {
    name: String,
    description: String,
    points: Points,
    max_points: Points,
    message: String,
    output: String,
}

/// The `prairielearn` format's entry in the registry (`report::FORMATS`).
pub(super) const FORMAT: super::Format = super::Format::of(&super::Entry {
    name: "prairielearn",
    help: "PrairieLearn's external-grader `results.json`",
    file: "prairielearn.json",
    render: |rendering| render(rendering.report),
    offered_by: super::CHECK_AND_BATCH,
});

/// The `results.json` of a grading run.
pub fn render(report: &GradeReport) -> String {
    if let Some(reason) = build_failure(report) {
        return render_not_gradable(&reason);
    }
    let mut tests = Vec::new();
    for question in &report.questions {
        if question.scoring == Scoring::AllOrNothing {
            tests.push(question_entry(question));
        }
        tests.extend(question.tests.iter().map(|test| test_entry(question, test)));
    }
    let results = Results {
        gradable: true,
        score: report.score.fraction_of(report.max_score),
        message: format!("{}: {}/{} points", report.title, report.score, report.max_score),
        output: String::new(),
        tests,
    };
    pretty_json(&results)
}

/// The `results.json` of a submission that could not be graded at all (no
/// program found, say): not gradable, with the reason for the student.
pub fn render_not_gradable(reason: &str) -> String {
    let results = Results {
        gradable: false,
        score: 0.0,
        message: reason.to_string(),
        output: reason.to_string(),
        tests: Vec::new(),
    };
    pretty_json(&results)
}

/// The build's message, when the submission did not build (nothing ran).
fn build_failure(report: &GradeReport) -> Option<String> {
    let mut tests = report.tests();
    let first = tests.next()?;
    let not_built = |test: &TestResult| test.header.status == TestStatus::Error(FailureKind::BuildFailed);
    if !(not_built(first) && tests.all(not_built)) {
        return None;
    }
    let reason = first.header.reason.clone().unwrap_or_else(|| "the submission did not build".to_string());
    Some(match &first.header.details {
        Some(details) => format!("{reason}\n{details}"),
        None => reason,
    })
}

fn test_entry(question: &QuestionResult, test: &TestResult) -> PrairieTest {
    let output = if test.header.status == TestStatus::Passed { String::new() } else { details_plain(test) };
    let message = match output.lines().next() {
        _ if test.header.status == TestStatus::Passed => "passed".to_string(),
        Some(first) => first.to_string(),
        None => "failed".to_string(),
    };
    PrairieTest {
        name: test.header.name.clone(),
        description: format!("{} {}", question.id, question.title),
        points: test.header.score,
        max_points: test.header.max_score,
        message,
        output,
    }
}

/// The entry that carries an all-or-nothing question's points.
fn question_entry(question: &QuestionResult) -> PrairieTest {
    let failed = question.tests.iter().filter(|test| test.header.status != TestStatus::Passed).count();
    let message = if failed == 0 {
        format!("all {} passed", crate::compare::counted(question.tests.len(), "test"))
    } else {
        format!("all or nothing: {failed} of its {} failed", crate::compare::counted(question.tests.len(), "test"))
    };
    PrairieTest {
        name: question.id.clone(),
        description: format!("{} {} (all or nothing)", question.id, question.title),
        points: question.score,
        max_points: question.max_score,
        message,
        output: String::new(),
    }
}
