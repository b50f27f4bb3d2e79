//! Batch grading: many submissions in parallel, into one gradebook.
//!
//! A batch is the grading pipeline applied to a folder of submissions (one
//! subfolder per student). Workers grade submissions in parallel, each in a
//! scratch copy of its folder; one thread writes every result as soon as it
//! arrives: the student's reports, a result file, and the whole gradebook
//! again, so that an interrupted run keeps every finished row. A result
//! carries a fingerprint of the submission and the assignment, so a re-run
//! skips whatever has not changed.

pub mod gradebook;
pub mod output;
pub mod shard;
pub mod summary;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use sha2::{Digest, Sha256};

use crate::grader::plan::{Assignment, PlannedTest, generated_tests};
use crate::grader::sandbox::Sandbox;
use crate::grader::{NotGradable, Target, grade_sandboxed};
use gradebook::StoredResult;

/// One student's folder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Submission {
    /// The folder name, used as the student id.
    pub student: String,
    /// The folder.
    pub dir: PathBuf,
}

/// Lists the subfolders of `dir`, sorted by name; files and hidden folders are ignored.
pub fn list_submissions(dir: &Path) -> std::io::Result<Vec<Submission>> {
    let mut submissions = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if entry.file_type()?.is_dir() && !name.starts_with('.') {
            submissions.push(Submission { student: name, dir: entry.path() });
        }
    }
    submissions.sort_by(|a, b| a.student.cmp(&b.student));
    Ok(submissions)
}

/// What happened to one submission, for progress display.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// Its result was already up to date.
    Skipped(StoredResult),
    /// It was graded now.
    Graded(StoredResult),
}

/// What every submission is graded on.
#[derive(Clone, Copy, Debug)]
pub struct Plan<'a> {
    /// The assignment.
    pub assignment: &'a Assignment,
    /// Indices of the questions graded.
    pub selected: &'a [usize],
    /// The tests with their reference answers.
    pub tests: &'a [PlannedTest],
    /// The folder holding the kits (`{kits}` in the assignment's env).
    pub kits: &'a Path,
    /// The course's secret, from which each student's generated trees derive.
    pub secret: &'a str,
    /// How student programs are confined.
    pub sandbox: &'a Sandbox,
}

/// How a batch runs.
#[derive(Clone, Debug)]
pub struct BatchConfig {
    /// Submissions graded at once.
    pub jobs: usize,
    /// Where results, reports and the gradebook go.
    pub out: PathBuf,
    /// Regrade even unchanged submissions.
    pub force: bool,
    /// Extra text that changes the fingerprint when grading settings change.
    pub settings_key: String,
}

/// Grades every submission not already graded with the same inputs.
///
/// `on_event` is called from the writing thread after each submission's
/// files are on disk. `stop`, once set (e.g. by Ctrl-C), stops new
/// submissions from starting.
pub fn run_batch(
    plan: &Plan<'_>,
    submissions: &[Submission],
    config: &BatchConfig,
    stop: &AtomicBool,
    mut on_event: impl FnMut(&Event),
) -> std::io::Result<Vec<StoredResult>> {
    output::prepare(&config.out)?;
    let secret_key = hex(&Sha256::digest(plan.secret.as_bytes()));
    let assignment_key =
        assignment_fingerprint(plan.assignment, plan.tests, &format!("{}; {secret_key}", config.settings_key))?;
    // Every row of the output folder, this run's and earlier ones', kept in
    // memory so that the gradebook is rewritten without re-reading them.
    let mut book: BTreeMap<String, StoredResult> =
        output::read_all_results(&config.out)?.into_iter().map(|r| (r.student.clone(), r)).collect();
    let mut results = Vec::new();
    let mut pending = Vec::new();
    for submission in submissions {
        let fingerprint = submission_fingerprint(&assignment_key, &submission.dir)?;
        match book.get(&submission.student) {
            Some(stored) if !config.force && stored.fingerprint == fingerprint => {
                on_event(&Event::Skipped(stored.clone()));
                results.push(stored.clone());
            }
            _ => pending.push((submission, fingerprint)),
        }
    }
    let next = AtomicUsize::new(0);
    let (sender, receiver) = mpsc::channel::<(StoredResult, Option<output::RenderedReports>)>();
    let write_error: Mutex<Option<std::io::Error>> = Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..config.jobs.max(1).min(pending.len().max(1)) {
            let sender = sender.clone();
            let (next, pending) = (&next, &pending);
            scope.spawn(move || {
                while !stop.load(Ordering::SeqCst) {
                    let Some((submission, fingerprint)) = pending.get(next.fetch_add(1, Ordering::SeqCst)) else {
                        break;
                    };
                    let graded = grade_one(plan, submission, fingerprint);
                    if sender.send(graded).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        for (stored, rendered) in receiver {
            book.insert(stored.student.clone(), stored.clone());
            let rows: Vec<StoredResult> = book.values().cloned().collect();
            let written = output::write_result(&config.out, &stored, rendered.as_ref())
                .and_then(|()| output::write_gradebook(&config.out, plan.assignment, plan.selected, &rows));
            if let Err(error) = written {
                stop.store(true, Ordering::SeqCst);
                write_error.lock().expect("no panics while holding").get_or_insert(error);
                continue;
            }
            on_event(&Event::Graded(stored.clone()));
            results.push(stored);
        }
    });
    if let Some(error) = write_error.into_inner().expect("threads are done") {
        return Err(error);
    }
    let rows: Vec<StoredResult> = book.into_values().collect();
    output::write_gradebook(&config.out, plan.assignment, plan.selected, &rows)?;
    output::write_summary(&config.out, plan.assignment, plan.selected, &rows)?;
    results.sort_by(|a, b| a.student.cmp(&b.student));
    Ok(results)
}

/// Grades one submission in a scratch copy of its folder, and renders its reports.
fn grade_one(
    plan: &Plan<'_>,
    submission: &Submission,
    fingerprint: &str,
) -> (StoredResult, Option<output::RenderedReports>) {
    let Plan { assignment, selected, tests, kits, secret, sandbox } = *plan;
    let mut tests = tests.to_vec();
    let started = Instant::now();
    match generated_tests(assignment, selected, &submission.student, secret) {
        Ok(generated) => tests.extend(generated),
        Err(errors) => {
            let lines: Vec<String> = errors.iter().map(|e| format!("{}: {}", e.name, e.message)).collect();
            let message = format!("this student's generated trees do not fit their questions: {}", lines.join("; "));
            let rendered = output::render_not_gradable(&message);
            let elapsed = started.elapsed();
            let stored =
                StoredResult::not_gradable(&submission.student, fingerprint, assignment, selected, message, elapsed);
            return (stored, Some(rendered));
        }
    }
    let outcome = tempfile::Builder::new()
        .prefix("treegrade-scratch-")
        .tempdir()
        .map_err(|error| NotGradable(format!("cannot make a scratch folder: {error}")))
        .and_then(|scratch| {
            let copy = scratch.path().join(&submission.student);
            copy_submission(&submission.dir, &copy)
                .map_err(|error| NotGradable(format!("cannot copy the submission: {error}")))?;
            // Reports and messages name the student, not the scratch copy.
            let target = Target { dir: copy, command: None, name: Some(submission.student.clone()) };
            grade_sandboxed(assignment, selected, &tests, &target, kits, sandbox)
        });
    let elapsed = started.elapsed();
    match outcome {
        Ok(report) => {
            let stored = StoredResult::from_report(&submission.student, fingerprint, &report, elapsed);
            (stored, Some(output::render_reports(&report, &tests)))
        }
        Err(NotGradable(message)) => {
            let rendered = output::render_not_gradable(&message);
            let stored =
                StoredResult::not_gradable(&submission.student, fingerprint, assignment, selected, message, elapsed);
            (stored, Some(rendered))
        }
    }
}

/// Folders a copy leaves out: build output, caches and version control.
const SKIPPED_FOLDERS: [&str; 4] = ["target", "__pycache__", ".git", "node_modules"];

/// Copies a submission's regular files; symbolic links are not followed.
fn copy_submission(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let name = entry.file_name();
        if kind.is_dir() && !SKIPPED_FOLDERS.contains(&name.to_string_lossy().as_ref()) {
            copy_submission(&entry.path(), &to.join(&name))?;
        } else if kind.is_file() {
            std::fs::copy(entry.path(), to.join(&name))?;
        }
    }
    Ok(())
}

/// A hash of everything about the assignment that can change a grade.
fn assignment_fingerprint(assignment: &Assignment, tests: &[PlannedTest], settings: &str) -> std::io::Result<String> {
    let mut hasher = Sha256::new();
    hasher.update(concat!("treegrade ", env!("CARGO_PKG_VERSION"), "\n"));
    hasher.update(settings.as_bytes());
    let file = assignment.dir.join(crate::load::assignment::ASSIGNMENT_FILE);
    hasher.update(std::fs::read(&file).unwrap_or_default());
    for test in tests {
        hasher.update(test.name.as_bytes());
        hasher.update(std::fs::read(&test.path)?);
    }
    Ok(hex(&hasher.finalize()))
}

/// A hash of the assignment's fingerprint and every file of the submission.
fn submission_fingerprint(assignment_key: &str, dir: &Path) -> std::io::Result<String> {
    let mut hasher = Sha256::new();
    hasher.update(assignment_key.as_bytes());
    let mut files = Vec::new();
    collect_files(dir, Path::new(""), &mut files)?;
    files.sort();
    for relative in files {
        hasher.update(relative.to_string_lossy().as_bytes());
        hasher.update([0]);
        let contents = std::fs::read(dir.join(&relative))?;
        hasher.update((contents.len() as u64).to_le_bytes());
        hasher.update(contents);
    }
    Ok(hex(&hasher.finalize()))
}

fn collect_files(dir: &Path, relative: &Path, files: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let name = entry.file_name();
        if kind.is_dir() && !SKIPPED_FOLDERS.contains(&name.to_string_lossy().as_ref()) {
            collect_files(&entry.path(), &relative.join(&name), files)?;
        } else if kind.is_file() {
            files.push(relative.join(&name));
        }
    }
    Ok(())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
