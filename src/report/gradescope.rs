//! Gradescope's `results.json` (the autograder specification's format).
//!
//! The points of the entries add up to the top-level score exactly. A
//! per-test question's tests carry their shares; an all-or-nothing
//! question's tests carry no points (each says whether it passed) and one
//! entry for the question carries its points, so no passed test ever shows
//! 0 points of a share it could not earn.

use serde::Serialize;

use super::{details_plain, pretty_json, question_heading};
use crate::grader::plan::Scoring;
use crate::grader::result::{GradeReport, QuestionResult, TestStatus};
use crate::points::Points;

#[derive(Serialize)]
struct Results<'a> {
    score: Points,
    execution_time: f64,
    output: String,
    visibility: &'static str,
    stdout_visibility: &'static str,
    tests: Vec<GradescopeTest<'a>>,
}

#[derive(Serialize)]
struct GradescopeTest<'a> {
    name: std::borrow::Cow<'a, str>,
    number: String,
    score: Points,
    max_score: Points,
    status: &'static str,
    output: String,
    visibility: &'static str,
}

/// The `gradescope` format's entry in the registry (`report::FORMATS`).
pub(super) const FORMAT: super::Format = super::Format::of(&super::Entry {
    name: "gradescope",
    help: "Gradescope's `results.json`",
    file: "results.json",
    render: |rendering| render(rendering.report),
    offered_by: &[super::Offer::Check, super::Offer::Batch, super::Offer::Gradescope],
});

/// The `results.json` of a grading run.
pub fn render(report: &GradeReport) -> String {
    let mut tests = Vec::new();
    for (question_number, question) in report.questions.iter().enumerate() {
        if question.scoring == Scoring::AllOrNothing {
            tests.push(question_entry(question, question_number + 1));
        }
        for (test_number, test) in question.tests.iter().enumerate() {
            let passed = test.header.status == TestStatus::Passed;
            tests.push(GradescopeTest {
                name: test.header.name.as_str().into(),
                number: format!("{}.{}", question_number + 1, test_number + 1),
                score: test.header.score,
                max_score: test.header.max_score,
                status: if passed { "passed" } else { "failed" },
                output: if passed { String::new() } else { details_plain(test) },
                visibility: if test.header.hidden { "after_published" } else { "visible" },
            });
        }
    }
    let output = format!(
        "{}: {}/{} points. Run `treegrade check` locally to see the same report with diffs.",
        report.title, report.score, report.max_score
    );
    let results = Results {
        score: report.score,
        execution_time: report.elapsed_ms as f64 / 1000.0,
        output,
        visibility: "visible",
        stdout_visibility: "hidden",
        tests,
    };
    pretty_json(&results)
}

/// The entry that carries an all-or-nothing question's points, named as
/// the text report heads the question (`Question q2: Minimax`), which is
/// also how CS188's own autograder names it.
fn question_entry(question: &QuestionResult, number: usize) -> GradescopeTest<'_> {
    let passed = question.score == question.max_score;
    let failed = question.tests.iter().filter(|test| test.header.status != TestStatus::Passed).count();
    let output = if passed {
        format!("All {} passed.", crate::compare::counted(question.tests.len(), "test"))
    } else {
        format!(
            "All or nothing: {failed} of its {} failed, so the question earns no points. \
             Its tests are listed below.",
            crate::compare::counted(question.tests.len(), "test")
        )
    };
    GradescopeTest {
        name: question_heading(question).into(),
        number: number.to_string(),
        score: question.score,
        max_score: question.max_score,
        status: if passed { "passed" } else { "failed" },
        output,
        visibility: "visible",
    }
}
