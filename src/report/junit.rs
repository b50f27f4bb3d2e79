//! JUnit XML: one suite per question, one case per test.

use std::time::Duration;

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use super::{details_plain, visible_reason};
use crate::grader::verdict::{GradeReport, TestStatus};

pub fn render(report: &GradeReport) -> String {
    let mut junit = Report::new(format!("treegrade {}", report.assignment));
    junit.set_time(Duration::from_millis(report.elapsed_ms));
    for question in &report.questions {
        let mut suite = TestSuite::new(format!("{} {}", question.id, question.title));
        for test in &question.tests {
            let status = match test.status {
                TestStatus::Passed => TestCaseStatus::success(),
                failed => {
                    let kind =
                        if failed == TestStatus::Failed { NonSuccessKind::Failure } else { NonSuccessKind::Error };
                    let mut status = TestCaseStatus::non_success(kind);
                    status.set_message(visible_reason(test).unwrap_or_default());
                    status.set_type(status_type(failed));
                    status.set_description(details_plain(test));
                    status
                }
            };
            let mut case = TestCase::new(test.name.clone(), status);
            case.set_classname(format!("{}.{}", report.assignment, question.id));
            case.set_time(Duration::from_millis(test.elapsed_ms));
            if !test.stderr.is_empty() {
                case.set_system_err_lossy(test.stderr.as_bytes());
            }
            suite.add_test_case(case);
        }
        junit.add_test_suite(suite);
    }
    junit.to_string().expect("JUnit of plain strings serialises")
}

fn status_type(status: TestStatus) -> String {
    match status {
        TestStatus::Error(kind) => {
            serde_json::to_value(kind).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
        }
        _ => "wrong-answer".to_string(),
    }
}
