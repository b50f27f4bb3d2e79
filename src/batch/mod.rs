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

mod drawing;

pub use drawing::drawables;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use sha2::{Digest, Sha256};

use crate::grader::plan::{Assignment, PlannedTest};
use crate::grader::prepare::Plan;
use crate::grader::sandbox::Sandbox;
use crate::grader::{Target, grade_all};
use crate::outdir::{BUILD_IDENTITY, hex, submission_fingerprint};
use crate::pool::{AfterStop, Each, Pool};
use gradebook::StoredResult;

/// One student's folder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Submission {
    /// The folder name, used as the student id.
    pub student: String,
    /// The folder.
    pub dir: PathBuf,
}

/// The submissions of a folder, and what in it is not one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Listing {
    /// One per subfolder, sorted by student id.
    pub submissions: Vec<Submission>,
    /// Every other entry, with why it is not graded.
    pub skipped: Vec<(String, &'static str)>,
}

/// Why a folder of submissions could not be listed.
#[derive(Debug, thiserror::Error)]
pub enum ListError {
    /// The folder could not be read.
    #[error("cannot list the submissions in {}: {source}", dir.display())]
    Unreadable {
        /// The folder of submissions.
        dir: PathBuf,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// An entry's kind could not be read.
    #[error("cannot inspect {}: {source}", path.display())]
    Uninspectable {
        /// The entry.
        path: PathBuf,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// Two folders would be the same student.
    #[error("two submission folders, {} and {}, would both be student `{student}`: rename one", first.display(), second.display())]
    SameStudent {
        /// The first folder.
        first: PathBuf,
        /// The second folder.
        second: PathBuf,
        /// The id both would have.
        student: String,
    },
}

impl ListError {
    /// The kind of the system's error behind this one (`InvalidInput` for two folders of one student).
    pub fn kind(&self) -> std::io::ErrorKind {
        match self {
            ListError::Unreadable { source, .. } | ListError::Uninspectable { source, .. } => source.kind(),
            ListError::SameStudent { .. } => std::io::ErrorKind::InvalidInput,
        }
    }
}

/// Lists the subfolders of `dir` as submissions, sorted by student id; files,
/// hidden folders and symbolic links are listed as skipped, with the reason.
/// A folder name that is not UTF-8 keeps its other bytes as `\xNN`, so two
/// such names never become one student; two entries that would still share
/// an id are refused.
pub fn list_submissions(dir: &Path) -> Result<Listing, ListError> {
    let cannot = |source: std::io::Error| ListError::Unreadable { dir: dir.to_path_buf(), source };
    let mut listing = Listing::default();
    for entry in std::fs::read_dir(dir).map_err(cannot)? {
        let entry = entry.map_err(cannot)?;
        let student = student_id(&entry.file_name());
        let kind = entry.file_type().map_err(|source| ListError::Uninspectable { path: entry.path(), source })?;
        let reason = if kind.is_symlink() {
            Some("a symbolic link, not followed: copy the folder in instead")
        } else if !kind.is_dir() {
            Some("not a folder")
        } else if student.starts_with('.') {
            Some("a hidden folder")
        } else {
            None
        };
        match reason {
            Some(reason) => listing.skipped.push((student, reason)),
            None => listing.submissions.push(Submission { student, dir: entry.path() }),
        }
    }
    listing.submissions.sort_by(|a, b| a.student.cmp(&b.student));
    listing.skipped.sort();
    if let Some(pair) = listing.submissions.windows(2).find(|pair| pair[0].student == pair[1].student) {
        return Err(ListError::SameStudent {
            first: pair[0].dir.clone(),
            second: pair[1].dir.clone(),
            student: pair[0].student.clone(),
        });
    }
    Ok(listing)
}

/// A folder name as a student id: its UTF-8 text, with any other byte as `\xNN`.
fn student_id(name: &std::ffi::OsStr) -> String {
    let mut id = String::new();
    for chunk in name.as_encoded_bytes().utf8_chunks() {
        id.push_str(chunk.valid());
        for byte in chunk.invalid() {
            id.push_str(&format!("\\x{byte:02x}"));
        }
    }
    id
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
pub struct Grading<'a> {
    /// The assignment.
    pub assignment: &'a Assignment,
    /// The questions graded and their tests of every kind, planned once.
    pub plan: &'a Plan,
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
    /// The settings that change grades, beyond the assignment's files.
    pub settings: GradingSettings,
}

/// Every setting of a batch that can change a grade. The fingerprint hashes
/// all of it, so a setting added here cannot be forgotten there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GradingSettings {
    /// The per-test time limit.
    pub time_limit: std::time::Duration,
    /// The memory limit of a program, in MiB.
    pub memory_mb: u64,
    /// How programs are confined.
    pub sandbox: crate::grader::sandbox::SandboxMode,
    /// The most time one submission's grading may take in all.
    pub submission_time_limit: std::time::Duration,
}

/// Grades every submission not already graded with the same inputs.
///
/// `on_event` is called from the writing thread after each submission's
/// files are on disk. `stop`, once set (e.g. by Ctrl-C), stops new
/// submissions from starting, and the result of any submission still being
/// graded then is thrown away (a caller that stops the programs too, with
/// [`crate::grader::runner::stop_all_when`], ends them at once). The
/// results returned are the submissions finished or unchanged.
pub fn run_batch(
    grading: &Grading<'_>,
    submissions: &[Submission],
    config: &BatchConfig,
    stop: &AtomicBool,
    mut on_event: impl FnMut(&Event),
) -> std::io::Result<Vec<StoredResult>> {
    output::prepare(&config.out)?;
    let _lock = crate::outdir::lock(&config.out)?;
    let secret_key = hex(&Sha256::digest(grading.secret.as_bytes()));
    let assignment_key = assignment_fingerprint(
        BUILD_IDENTITY,
        grading.assignment,
        grading.plan,
        &format!("{:?}; {secret_key}", config.settings),
    )?;
    // Every row of the output folder, this run's and earlier ones', kept in
    // memory so that the gradebook is rewritten without re-reading them.
    let mut book: BTreeMap<String, StoredResult> =
        output::read_all_results(&config.out)?.into_iter().map(|r| (r.student.clone(), r)).collect();
    let mut results = Vec::new();
    let mut pending = Vec::new();
    for submission in submissions {
        // A submission whose files cannot be read gets a not-gradable row
        // naming the file, and is looked at again on every run; the others go on.
        let fingerprint = submission_fingerprint(&assignment_key, &submission.dir).map_err(|e| e.to_string());
        match book.get(&submission.student) {
            Some(stored) if !config.force && Ok(&stored.fingerprint) == fingerprint.as_ref() => {
                on_event(&Event::Skipped(stored.clone()));
                results.push(stored.clone());
            }
            _ => pending.push((submission, fingerprint)),
        }
    }
    // A submission still being graded at Ctrl-C had its programs stopped
    // part-way: not a grade; the next run grades it.
    let pool = Pool { workers: config.jobs, stop, after_stop: AfterStop::Discard };
    let grade = |(_, (submission, fingerprint)): (usize, &(&Submission, Result<String, String>))| {
        grade_one(grading, submission, fingerprint, config.settings.submission_time_limit)
    };
    pool.stream(&Each::new(&pending), grade, |(stored, rendered)| {
        book.insert(stored.student.clone(), stored.clone());
        let rows: Vec<StoredResult> = book.values().cloned().collect();
        output::write_result(&config.out, &stored, rendered.as_ref())?;
        output::write_gradebook(&config.out, grading.assignment, &grading.plan.selected, &rows)?;
        on_event(&Event::Graded(stored.clone()));
        results.push(stored);
        Ok::<(), std::io::Error>(())
    })?;
    let rows: Vec<StoredResult> = book.into_values().collect();
    output::write_gradebook(&config.out, grading.assignment, &grading.plan.selected, &rows)?;
    output::write_summary(&config.out, grading.assignment, &grading.plan.selected, &rows)?;
    results.sort_by(|a, b| a.student.cmp(&b.student));
    Ok(results)
}

/// Grades one submission in a scratch copy of its folder, within
/// `time_limit` in all, and renders its reports.
fn grade_one(
    grading: &Grading<'_>,
    submission: &Submission,
    fingerprint: &Result<String, String>,
    time_limit: std::time::Duration,
) -> (StoredResult, Option<output::RenderedReports>) {
    let Grading { assignment, plan, kits, secret, sandbox } = *grading;
    let selected = &plan.selected;
    let started = Instant::now();
    let fingerprint = match fingerprint {
        Ok(fingerprint) => fingerprint.as_str(),
        Err(unreadable) => {
            let message = format!("the submission cannot be read: {unreadable}");
            let rendered = output::render_not_gradable(&message);
            let elapsed = started.elapsed();
            let stored = StoredResult::not_gradable(&submission.student, "", assignment, selected, message, elapsed);
            return (stored, Some(rendered));
        }
    };
    let plan = match plan.for_student(assignment, &submission.student, secret) {
        Ok(plan) => plan,
        Err(errors) => {
            let lines: Vec<String> = errors.iter().map(|e| format!("{}: {}", e.name, e.message)).collect();
            let message = format!("this student's generated trees do not fit their questions: {}", lines.join("; "));
            let rendered = output::render_not_gradable(&message);
            let elapsed = started.elapsed();
            let stored =
                StoredResult::not_gradable(&submission.student, fingerprint, assignment, selected, message, elapsed);
            return (stored, Some(rendered));
        }
    };
    // The sandbox grades a private copy of the folder; reports name the student.
    let target = Target { dir: submission.dir.clone(), command: None, name: Some(submission.student.clone()) };
    let outcome = grade_all(assignment, &plan, &target, kits, sandbox, Some(time_limit));
    let elapsed = started.elapsed();
    match outcome {
        Ok(report) => {
            let stored = StoredResult::from_report(&submission.student, fingerprint, &report, elapsed);
            let searches: Vec<PlannedTest> = plan.searches().cloned().collect();
            (stored, Some(output::render_reports(&report, &searches)))
        }
        Err(not_gradable) => {
            let message = not_gradable.to_string();
            let rendered = output::render_not_gradable(&message);
            let stored =
                StoredResult::not_gradable(&submission.student, fingerprint, assignment, selected, message, elapsed);
            (stored, Some(rendered))
        }
    }
}

/// A hash of everything about the assignment that can change a grade.
fn assignment_fingerprint(
    identity: &str,
    assignment: &Assignment,
    plan: &Plan,
    settings: &str,
) -> std::io::Result<String> {
    let mut hasher = Sha256::new();
    hasher.update(identity);
    hasher.update(settings.as_bytes());
    let file = assignment.dir.join(crate::load::assignment::ASSIGNMENT_FILE);
    hasher.update(std::fs::read(&file).unwrap_or_default());
    let names = plan.searches().map(|test| (&test.name, &test.path));
    let calls = plan.calls().map(|test| (&test.name, &test.path));
    for (name, path) in names.chain(plan.pacman().map(|test| (&test.name, &test.path))).chain(calls) {
        hasher.update(name.as_bytes());
        hasher.update(std::fs::read(path)?);
    }
    // A play question's game file and its opponents' programs decide its games too.
    for play in assignment.questions.iter().filter_map(|question| question.play()) {
        if let crate::assignment::PlayGame::File(game) = &play.game {
            hasher.update(std::fs::read(game)?);
        }
        for opponent in &play.opponents {
            if let crate::assignment::OpponentAgent::Program(dir) = &opponent.agent {
                let files =
                    submission_fingerprint(&opponent.name, dir).map_err(|e| std::io::Error::other(e.to_string()))?;
                hasher.update(files.as_bytes());
            }
        }
    }
    Ok(hex(&hasher.finalize()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rebuilt_grader_changes_every_fingerprint() {
        let dir = tempfile::tempdir().unwrap();
        let assignment = Assignment {
            name: "a".into(),
            title: "A".into(),
            dir: dir.path().to_path_buf(),
            time_limit: std::time::Duration::from_secs(1),
            languages: Vec::new(),
            questions: Vec::new(),
        };
        let before =
            assignment_fingerprint("treegrade 0.1.0 build 1\n", &assignment, &Plan::of_searches(&[], &[]), "s")
                .unwrap();
        let after = assignment_fingerprint("treegrade 0.1.0 build 2\n", &assignment, &Plan::of_searches(&[], &[]), "s")
            .unwrap();
        assert_ne!(before, after);
    }

    #[cfg(unix)]
    #[test]
    fn student_ids_keep_bytes_that_are_not_utf8() {
        use std::os::unix::ffi::OsStrExt as _;
        assert_eq!(student_id(std::ffi::OsStr::from_bytes(b"caf\xe9")), "caf\\xe9");
        assert_eq!(student_id(std::ffi::OsStr::new("café")), "café");
    }
}
