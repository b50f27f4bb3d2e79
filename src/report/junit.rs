//! JUnit XML: one suite per question, one case per test.
//!
//! Written by hand to the attributes that every common JUnit schema accepts
//! (Jenkins xunit's, Ant's, pytest's `xunit2`): `testsuites` and `testsuite`
//! carry `name`, `tests`, `failures`, `errors`, `skipped` and `time`;
//! `testcase` carries `name`, `classname` and `time`. Every text goes through
//! [`escape`] (student text was already made safe to show where it entered
//! the report), so no student text can make the file unparseable.

use std::fmt::Write as _;

use super::{details_plain, visible_reason};
use crate::grader::result::{GradeReport, QuestionResult, TestResult, TestStatus};
use crate::render::escape;

/// The `junit` format's entry in the registry (`report::FORMATS`).
pub(super) const FORMAT: super::Format = super::Format::of(&super::Entry {
    name: "junit",
    help: "JUnit XML for CI test viewers",
    file: "junit.xml",
    render: |rendering| render(rendering.report),
    offered_by: super::CHECK_AND_BATCH,
});

/// The JUnit XML of a grading run.
pub fn render(report: &GradeReport) -> String {
    let count = |wanted: fn(&TestResult) -> bool| report.tests().filter(|t| wanted(t)).count();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" time=\"{}\">",
        escape(&format!("treegrade {}", report.assignment)),
        count(|_| true),
        count(is_failure),
        count(is_error),
        seconds(report.elapsed_ms)
    );
    for question in &report.questions {
        suite(&mut out, report, question);
    }
    out.push_str("</testsuites>\n");
    out
}

fn suite(out: &mut String, report: &GradeReport, question: &QuestionResult) {
    let count = |wanted: fn(&TestResult) -> bool| question.tests.iter().filter(|t| wanted(t)).count();
    let time: u64 = question.tests.iter().map(|t| t.header.elapsed_ms).sum();
    let _ = writeln!(
        out,
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"0\" time=\"{}\">",
        escape(&format!("{} {}", question.id, question.title)),
        question.tests.len(),
        count(is_failure),
        count(is_error),
        seconds(time)
    );
    for test in &question.tests {
        case(out, &format!("{}.{}", report.assignment, question.id), test);
    }
    out.push_str("  </testsuite>\n");
}

fn case(out: &mut String, classname: &str, test: &TestResult) {
    let _ = write!(
        out,
        "    <testcase name=\"{}\" classname=\"{}\" time=\"{}\"",
        escape(&test.header.name),
        escape(classname),
        seconds(test.header.elapsed_ms)
    );
    if test.header.status == TestStatus::Passed && test.header.stderr.is_empty() {
        out.push_str("/>\n");
        return;
    }
    out.push_str(">\n");
    if test.header.status != TestStatus::Passed {
        let element = if is_error(test) { "error" } else { "failure" };
        let _ = writeln!(
            out,
            "      <{element} message=\"{}\" type=\"{}\">{}</{element}>",
            escape(&visible_reason(test).unwrap_or_default()),
            status_type(test.header.status),
            escape(&details_plain(test))
        );
    }
    if !test.header.stderr.is_empty() {
        let _ = writeln!(out, "      <system-err>{}</system-err>", escape(&test.header.stderr));
    }
    out.push_str("    </testcase>\n");
}

fn is_failure(test: &TestResult) -> bool {
    test.header.status == TestStatus::Failed
}

fn is_error(test: &TestResult) -> bool {
    matches!(test.header.status, TestStatus::Error(_))
}

fn seconds(milliseconds: u64) -> String {
    format!("{}.{:03}", milliseconds / 1000, milliseconds % 1000)
}

/// The kind of a failure: `wrong-answer`, or how the program failed (`crashed`, ...).
fn status_type(status: TestStatus) -> String {
    match status {
        TestStatus::Error(kind) => {
            serde_json::to_value(kind).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
        }
        _ => "wrong-answer".to_string(),
    }
}
