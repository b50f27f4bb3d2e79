//! One row per student: the stored result of grading a submission, and the
//! gradebook CSV made from all of them.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::grader::plan::Assignment;
use crate::grader::result::{GradeReport, TestStatus};
use crate::grader::session::FailureKind;
use crate::points::Points;

/// How grading a submission went, whatever its score.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GradingStatus {
    /// The program ran every test (its answers may still be wrong).
    Ok,
    /// The build failed.
    CompileError,
    /// The program crashed or could not start in some test.
    Crashed,
    /// The program ran past the time limit in some test.
    TimedOut,
    /// The program broke the protocol in some test.
    ProtocolError,
    /// The submission could not be graded at all (no known language, ...).
    NotGradable,
}

impl GradingStatus {
    /// The word in the gradebook.
    pub fn name(self) -> &'static str {
        match self {
            GradingStatus::Ok => "ok",
            GradingStatus::CompileError => "compile-error",
            GradingStatus::Crashed => "crashed",
            GradingStatus::TimedOut => "timed-out",
            GradingStatus::ProtocolError => "protocol-error",
            GradingStatus::NotGradable => "not-gradable",
        }
    }

    /// The worst thing that happened in a report, in this order of precedence.
    fn of(report: &GradeReport) -> GradingStatus {
        let failed = |wanted: &[FailureKind]| {
            report.tests().any(|test| matches!(test.header.status, TestStatus::Error(kind) if wanted.contains(&kind)))
        };
        if failed(&[FailureKind::BuildFailed]) {
            GradingStatus::CompileError
        } else if failed(&[FailureKind::TimedOut]) {
            GradingStatus::TimedOut
        } else if failed(&[FailureKind::Crashed, FailureKind::NotStarted]) {
            GradingStatus::Crashed
        } else if failed(&[FailureKind::ProtocolError]) {
            GradingStatus::ProtocolError
        } else {
            GradingStatus::Ok
        }
    }
}

/// Points on one question.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct QuestionScore {
    /// The question id.
    pub id: String,
    /// Points earned.
    pub score: Points,
    /// Points possible.
    pub max_score: Points,
}

/// A test a student failed, with the named mistake if one was recognised.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FailedTest {
    /// `q2/aima-fig5-2`.
    pub name: String,
    /// The diagnosed mistake (`reverse-children`, ...).
    pub diagnosis: Option<String>,
}

/// What a batch keeps of one submission's grading (results/STUDENT.json).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoredResult {
    /// The student id (the folder name).
    pub student: String,
    /// Hash of the submission's files and the assignment.
    pub fingerprint: String,
    /// How grading went.
    pub status: GradingStatus,
    /// Points earned.
    pub score: Points,
    /// Points possible.
    pub max_score: Points,
    /// Points per question, in assignment order.
    pub questions: Vec<QuestionScore>,
    /// Tests passed.
    pub passed_tests: usize,
    /// Tests failed, with diagnoses.
    pub failed_tests: Vec<FailedTest>,
    /// Wall-clock time of the grading, in milliseconds.
    pub wall_time_ms: u64,
    /// For a submission that could not be graded, or did not build: why.
    pub message: Option<String>,
}

impl StoredResult {
    /// The row of a graded submission.
    pub fn from_report(student: &str, fingerprint: &str, report: &GradeReport, elapsed: Duration) -> StoredResult {
        let status = GradingStatus::of(report);
        let message = match status {
            GradingStatus::Ok => None,
            _ => report
                .tests()
                .find(|t| matches!(t.header.status, TestStatus::Error(_)))
                .and_then(|t| t.header.reason.clone()),
        };
        StoredResult {
            student: student.to_string(),
            fingerprint: fingerprint.to_string(),
            status,
            score: report.score,
            max_score: report.max_score,
            questions: report
                .questions
                .iter()
                .map(|q| QuestionScore { id: q.id.clone(), score: q.score, max_score: q.max_score })
                .collect(),
            passed_tests: report.tests().filter(|t| t.header.status == TestStatus::Passed).count(),
            failed_tests: report
                .tests()
                .filter(|t| t.header.status != TestStatus::Passed)
                .map(|t| FailedTest {
                    name: t.header.name.clone(),
                    diagnosis: t.diagnosis().as_ref().map(|d| d.bug.to_string()),
                })
                .collect(),
            wall_time_ms: elapsed.as_millis() as u64,
            message,
        }
    }

    /// The row of a submission that could not be graded: zero points.
    pub fn not_gradable(
        student: &str,
        fingerprint: &str,
        assignment: &Assignment,
        selected: &[usize],
        message: String,
        elapsed: Duration,
    ) -> StoredResult {
        let questions: Vec<QuestionScore> = selected
            .iter()
            .map(|&i| QuestionScore {
                id: assignment.questions[i].id.clone(),
                score: Points::ZERO,
                max_score: assignment.questions[i].points,
            })
            .collect();
        StoredResult {
            student: student.to_string(),
            fingerprint: fingerprint.to_string(),
            status: GradingStatus::NotGradable,
            score: Points::ZERO,
            max_score: questions.iter().map(|q| q.max_score).sum(),
            questions,
            passed_tests: 0,
            failed_tests: Vec::new(),
            wall_time_ms: elapsed.as_millis() as u64,
            message: Some(message),
        }
    }
}

/// Writes the gradebook: one row per student, a column per question.
pub fn write_csv(results: &[StoredResult], question_ids: &[String], out: impl std::io::Write) -> csv::Result<()> {
    let mut writer = csv::Writer::from_writer(out);
    let mut header = vec!["student".to_string(), "total".to_string(), "max".to_string()];
    header.extend(question_ids.iter().cloned());
    header.extend(["status", "wall_time_s", "message"].map(str::to_string));
    writer.write_record(&header)?;
    for result in results {
        let mut row = vec![text_cell(&result.student), result.score.to_string(), result.max_score.to_string()];
        for id in question_ids {
            let score = result.questions.iter().find(|q| &q.id == id).map_or(String::new(), |q| q.score.to_string());
            row.push(score);
        }
        row.push(result.status.name().to_string());
        row.push(format!("{:.2}", result.wall_time_ms as f64 / 1000.0));
        row.push(text_cell(result.message.as_deref().unwrap_or_default()));
        writer.write_record(&row)?;
    }
    writer.flush()?;
    Ok(())
}

/// A text cell that a spreadsheet shows as text: one that starts like a
/// formula (`=`, `+`, `-`, `@`, a tab or a carriage return) gets a leading
/// apostrophe, so a student id such as `=1+1` is never evaluated.
fn text_cell(text: &str) -> String {
    if text.starts_with(['=', '+', '-', '@', '\t', '\r']) { format!("'{text}") } else { text.to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(student: &str, score: f64, status: GradingStatus) -> StoredResult {
        let score = Points::from_decimal(score).unwrap();
        let ten = Points::whole(10);
        StoredResult {
            student: student.into(),
            fingerprint: "f".into(),
            status,
            score,
            max_score: ten,
            questions: vec![QuestionScore { id: "q1".into(), score, max_score: ten }],
            passed_tests: 1,
            failed_tests: Vec::new(),
            wall_time_ms: 1234,
            message: (status != GradingStatus::Ok).then(|| "the build `cargo build` failed, \"quoted\"".into()),
        }
    }

    #[test]
    fn the_csv_has_a_column_per_question_and_quotes_messages() {
        let mut out = Vec::new();
        let rows = [row("alice", 10.0, GradingStatus::Ok), row("bob", 2.5, GradingStatus::CompileError)];
        write_csv(&rows, &["q1".into(), "q2".into()], &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "student,total,max,q1,q2,status,wall_time_s,message");
        assert_eq!(lines[1], "alice,10,10,10,,ok,1.23,");
        assert_eq!(lines[2], "bob,2.5,10,2.5,,compile-error,1.23,\"the build `cargo build` failed, \"\"quoted\"\"\"");
    }

    #[test]
    fn formula_looking_cells_are_neutralised_and_scores_stay_exact_numbers() {
        let mut out = Vec::new();
        let mut rows = [row("=1+1", 10.0, GradingStatus::Ok), row("@SUM(A1)", 0.416667, GradingStatus::Ok)];
        rows[1].message = Some("-cmd|' /C calc'!A0".into());
        write_csv(&rows, &["q1".into()], &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[1], "'=1+1,10,10,10,ok,1.23,");
        assert_eq!(lines[2], "'@SUM(A1),0.416667,10,0.416667,ok,1.23,'-cmd|' /C calc'!A0");
        for cell in ["+1", "-2", "\tx", "\rx"] {
            assert!(text_cell(cell).starts_with('\''), "{cell:?}");
        }
        assert_eq!(text_cell("alice-2"), "alice-2");
    }
}
