//! A batch's output folder:
//!
//! ```text
//! OUT/gradebook.csv            one row per student
//! OUT/summary.md               histogram, pass rates, the tests most students fail
//! OUT/results/STUDENT.json     what was kept of each grading (and its fingerprint)
//! OUT/reports/STUDENT/         every format the report registry offers batches, as the student
//!                              may see it: report.txt, report.json, junit.xml, results.json
//!                              (Gradescope), report.md, prairielearn.json, report.html (safe
//!                              to hand out)
//! OUT/instructor/STUDENT/      instructor-report.json, the full report with hidden tests'
//!                              expectations and traces (never for students)
//! ```
//!
//! Instructor-only files live in their own tree so that an instructor who
//! hands each student their `reports/STUDENT/` folder hands over nothing of
//! the hidden tests.
//!
//! Every file is written to a temporary name and renamed, so a run killed at
//! any moment leaves whole files behind.

use std::io;
use std::path::{Path, PathBuf};

use super::gradebook::{StoredResult, write_csv};
use super::summary::summary_markdown;
use crate::grader::plan::Assignment;
use crate::grader::plan::PlannedTest;
use crate::grader::result::GradeReport;
use crate::outdir::{read_json_files, write_atomically};
use crate::report::{Format, Offer, Rendering, render, render_prairielearn_not_gradable, student_view};

/// A student's reports, rendered (by the worker that graded them): what the
/// student may see, and what only the instructor may.
#[derive(Debug, Default)]
pub struct RenderedReports {
    /// Files for `reports/STUDENT/`, safe to hand out.
    pub student: Vec<(&'static str, String)>,
    /// Files for `instructor/STUDENT/`, with hidden tests' expectations.
    pub instructor: Vec<(&'static str, String)>,
}

/// The folder of a student's reports, safe to hand out.
pub fn student_reports_dir(out: &Path, student: &str) -> PathBuf {
    out.join(STUDENT_REPORTS).join(student)
}

/// The folder of a student's instructor-only files.
pub fn instructor_dir(out: &Path, student: &str) -> PathBuf {
    out.join(INSTRUCTOR_FILES).join(student)
}

/// The tree of reports meant for students.
pub const STUDENT_REPORTS: &str = "reports";

/// The tree of files meant for the instructor alone.
pub const INSTRUCTOR_FILES: &str = "instructor";

/// The instructor's full report of a student: hidden tests' expectations,
/// traces and output included. Not for the student's eyes.
pub const INSTRUCTOR_REPORT: &str = "instructor-report.json";

/// Renders every report file of a graded submission: each format from the
/// student's view (meant to be handed out), and the instructor's full JSON
/// report. HTML draws the failed searches on the trees of `tests`.
pub fn render_reports(report: &GradeReport, tests: &[PlannedTest]) -> RenderedReports {
    let shown = student_view(report);
    let tests = super::drawables(tests);
    let rendering = Rendering { tests: &tests, ..Rendering::plain(&shown) };
    let student = Format::offered_by(Offer::Batch).map(|format| (format.file(), format.render(&rendering))).collect();
    RenderedReports { student, instructor: vec![(INSTRUCTOR_REPORT, render(report, Format::Json, false))] }
}

/// The report files of a submission that could not be graded at all: the
/// reason in plain text, and PrairieLearn's `results.json` with
/// `gradable: false` (PrairieLearn expects one in every case).
pub fn render_not_gradable(reason: &str) -> RenderedReports {
    RenderedReports {
        student: vec![
            (Format::Text.file(), format!("This submission could not be graded: {reason}\n")),
            (Format::Prairielearn.file(), render_prairielearn_not_gradable(reason)),
        ],
        instructor: Vec::new(),
    }
}

/// Creates the output folders.
pub fn prepare(out: &Path) -> io::Result<()> {
    std::fs::create_dir_all(out.join("results"))?;
    std::fs::create_dir_all(out.join(STUDENT_REPORTS))?;
    std::fs::create_dir_all(out.join(INSTRUCTOR_FILES))
}

fn result_path(out: &Path, student: &str) -> PathBuf {
    out.join("results").join(format!("{student}.json"))
}

/// Every result in the folder, sorted by student.
pub fn read_all_results(out: &Path) -> io::Result<Vec<StoredResult>> {
    let mut results: Vec<StoredResult> = read_json_files(&out.join("results"))?;
    results.sort_by(|a, b| a.student.cmp(&b.student));
    Ok(results)
}

/// Writes a student's reports, then their result (the result last: it marks the student done).
pub fn write_result(out: &Path, result: &StoredResult, rendered: Option<&RenderedReports>) -> io::Result<()> {
    let reports = student_reports_dir(out, &result.student);
    std::fs::create_dir_all(&reports)?;
    // An output folder written by an older treegrade kept the instructor's
    // report beside the student's: never leave it there.
    remove_if_present(&reports.join(INSTRUCTOR_REPORT))?;
    match rendered {
        Some(rendered) => {
            for (file, text) in &rendered.student {
                write_atomically(&reports.join(file), text.as_bytes())?;
            }
            if !rendered.instructor.is_empty() {
                let instructor = instructor_dir(out, &result.student);
                std::fs::create_dir_all(&instructor)?;
                for (file, text) in &rendered.instructor {
                    write_atomically(&instructor.join(file), text.as_bytes())?;
                }
            }
        }
        None => {
            let text = format!("{}: not graded: {}\n", result.student, result.message.as_deref().unwrap_or(""));
            write_atomically(&reports.join(Format::Text.file()), text.as_bytes())?;
        }
    }
    let json = serde_json::to_string_pretty(result).expect("results are plain data");
    write_atomically(&result_path(out, &result.student), json.as_bytes())
}

/// Rewrites `gradebook.csv` with `results` (sorted by student).
pub fn write_gradebook(
    out: &Path,
    assignment: &Assignment,
    selected: &[usize],
    results: &[StoredResult],
) -> io::Result<()> {
    let mut csv = Vec::new();
    write_csv(results, &question_ids(assignment, selected), &mut csv).map_err(io::Error::other)?;
    write_atomically(&out.join("gradebook.csv"), &csv)
}

/// Rewrites `summary.md` with `results`.
pub fn write_summary(
    out: &Path,
    assignment: &Assignment,
    selected: &[usize],
    results: &[StoredResult],
) -> io::Result<()> {
    let ids = question_ids(assignment, selected);
    write_atomically(&out.join("summary.md"), summary_markdown(&assignment.title, &ids, results).as_bytes())
}

fn question_ids(assignment: &Assignment, selected: &[usize]) -> Vec<String> {
    selected.iter().map(|&i| assignment.questions[i].id.clone()).collect()
}

/// Combines shard outputs into `target`: results and reports are copied,
/// then the gradebook and summary are rebuilt from all of them. A student
/// found in two shards with different results is an error.
pub fn merge(sources: &[PathBuf], target: &Path, assignment: &Assignment, selected: &[usize]) -> io::Result<usize> {
    prepare(target)?;
    let mut seen: std::collections::BTreeMap<String, String> = std::collections::BTreeMap::new();
    for source in sources {
        if !source.join("results").is_dir() {
            return Err(io::Error::new(io::ErrorKind::NotFound, format!("{} is not a batch output", source.display())));
        }
        for result in read_all_results(source)? {
            if let Some(previous) = seen.get(&result.student)
                && previous != &result.fingerprint
            {
                return Err(io::Error::other(format!(
                    "{} was graded differently in two outputs; regrade it in one",
                    result.student
                )));
            }
            seen.insert(result.student.clone(), result.fingerprint.clone());
            if source != target {
                copy_reports(source, target, &result.student)?;
                let json = serde_json::to_string_pretty(&result).expect("results are plain data");
                write_atomically(&result_path(target, &result.student), json.as_bytes())?;
            }
        }
    }
    let results = read_all_results(target)?;
    write_gradebook(target, assignment, selected, &results)?;
    write_summary(target, assignment, selected, &results)?;
    Ok(seen.len())
}

/// Copies a student's reports and instructor-only files from one output
/// folder to another. An instructor's report that an older treegrade left
/// among the student's reports goes to the instructor's tree.
fn copy_reports(source: &Path, target: &Path, student: &str) -> io::Result<()> {
    for from in [student_reports_dir(source, student), instructor_dir(source, student)] {
        if !from.is_dir() {
            continue;
        }
        for entry in std::fs::read_dir(&from)? {
            let entry = entry?;
            if !entry.file_type()?.is_file() {
                continue;
            }
            let instructor_only =
                entry.file_name() == INSTRUCTOR_REPORT || from.starts_with(source.join(INSTRUCTOR_FILES));
            let to =
                if instructor_only { instructor_dir(target, student) } else { student_reports_dir(target, student) };
            std::fs::create_dir_all(&to)?;
            std::fs::copy(entry.path(), to.join(entry.file_name()))?;
        }
    }
    Ok(())
}

/// Removes a file that may not exist.
fn remove_if_present(path: &Path) -> io::Result<()> {
    match std::fs::remove_file(path) {
        Err(error) if error.kind() != io::ErrorKind::NotFound => {
            Err(io::Error::new(error.kind(), format!("cannot remove {}: {error}", path.display())))
        }
        _ => Ok(()),
    }
}
