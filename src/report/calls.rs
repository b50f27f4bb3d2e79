//! How reports show a call test (docs/format.md, "Calls questions"): what
//! was expected and what the student's function returned; the boards drawn
//! (a returned board, or the first that differs beside the expected one)
//! are the test's boards, which every format draws as it draws a game's.

use std::fmt::Write as _;

use crate::grader::result::{TestResult, TestStatus};

/// The lines of a failed call test the student may see: what was
/// expected, and what was returned. Nothing for other tests.
pub fn text_lines(test: &TestResult) -> Vec<String> {
    let Some(call) = test.call() else { return Vec::new() };
    if test.header.hidden || test.header.status == TestStatus::Passed {
        return Vec::new();
    }
    // The test's words, with the check's when they say more ("equal to True" after "True" does not).
    let mut lines = vec![match &call.expected {
        Some(expected) if call.check.trim() == format!("equal to {}", expected.trim()) => {
            format!("expected: {expected}")
        }
        Some(expected) => format!("expected: {expected} ({})", call.check),
        None => format!("expected: {}", call.check),
    }];
    if !call.returned.is_empty() {
        lines.push(format!("returned: {}", call.returned.join(", ")));
    }
    lines
}

/// The line of a passed call test with `--verbose`: what it returned.
pub fn passed_line(test: &TestResult) -> Option<String> {
    let call = test.call()?;
    (!test.header.hidden && !call.returned.is_empty()).then(|| format!("returned {}", call.returned.join(", ")))
}

/// The HTML of a failed call test's lines.
pub fn html(out: &mut String, test: &TestResult) {
    let lines = text_lines(test);
    if !lines.is_empty() {
        let _ = writeln!(out, "<pre class=\"call\">{}</pre>", crate::render::escape(&lines.join("\n")));
    }
}
