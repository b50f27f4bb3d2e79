//! The student's view of a grading report.
//!
//! What a student may see is decided here, once, by construction: every
//! report handed to a student (what `check` prints and writes, what `batch`
//! puts in `reports/STUDENT/`, what Gradescope and PrairieLearn show) is
//! rendered from [`student_view`], in which a hidden test carries only its
//! name, whether it passed, which checks failed and how many points it got.
//! Its tree's expected answers, the student's own trace of it (node ids of
//! a tree the student must not learn), its stderr and error details are
//! absent, and no test names the instructor's folders. An instructor's
//! full report is rendered from the report itself, and named as such.

use std::path::Path;

use crate::grader::result::{Check, GradeReport, SearchView, TestDetail, TestResult, TestStatus};
use crate::grader::session::FailureKind;

/// The report as a student may see it (see the module's documentation).
pub fn student_view(report: &GradeReport) -> GradeReport {
    let mut view = report.clone();
    for question in &mut view.questions {
        for test in &mut question.tests {
            test.header.path = file_name(&test.header.path);
            if test.header.hidden {
                redact(test);
            }
        }
    }
    view
}

/// Keeps of a hidden test what the student may know.
fn redact(test: &mut TestResult) {
    test.header.reason = hidden_reason(test);
    test.header.details = None;
    test.header.description = None;
    test.header.stderr = String::new();
    match &mut test.detail {
        TestDetail::Search(search) => {
            search.expected = SearchView::default();
            search.actual = SearchView::default();
            search.divergence = None;
            search.boards = Vec::new();
        }
        TestDetail::Pacman(pacman) => {
            pacman.expected = SearchView::default();
            pacman.actual = SearchView::default();
            pacman.boards = Vec::new();
            pacman.outcome = None;
        }
        TestDetail::Call(call) => {
            call.expected = None;
            call.returned = Vec::new();
            call.boards = Vec::new();
        }
        TestDetail::Play(_) => {}
    }
}

/// One line for a hidden test: which checks failed, or how the program failed,
/// in words that carry nothing the program printed.
fn hidden_reason(test: &TestResult) -> Option<String> {
    match test.header.status {
        TestStatus::Passed => None,
        // The grader's own words, about the student's code, not the tree.
        TestStatus::Error(FailureKind::NotImplemented | FailureKind::BuildFailed) => test.header.reason.clone(),
        TestStatus::Error(kind) => Some(format!("hidden test: {}", failure_words(kind))),
        TestStatus::Failed => {
            let failed: Vec<&str> = [
                ("value", test.checks().value),
                ("action", test.checks().action),
                ("visited order", test.checks().order),
            ]
            .into_iter()
            .filter(|(_, check)| *check == Check::Failed)
            .map(|(name, _)| name)
            .collect();
            Some(format!("hidden test: wrong {}", failed.join(", ")))
        }
    }
}

fn failure_words(kind: FailureKind) -> &'static str {
    match kind {
        FailureKind::BuildFailed => "the submission did not build",
        FailureKind::NotStarted => "your program could not be started",
        FailureKind::Crashed => "your program crashed",
        FailureKind::TimedOut => "your program ran past the time limit",
        FailureKind::ProtocolError => "your program broke the protocol",
        FailureKind::NotImplemented => "a search function is not implemented yet",
        FailureKind::Exception => "your search raised an exception",
    }
}

/// A test's file without the folders above it.
fn file_name(path: &str) -> String {
    Path::new(path).file_name().map_or_else(|| path.to_string(), |name| name.to_string_lossy().into_owned())
}
