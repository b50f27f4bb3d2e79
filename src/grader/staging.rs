//! Staging a submission: its language detected, a private copy made in
//! its sandbox, built, and the command that starts it. What grading
//! searches and playing games both start from.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::sandbox::{self, RunPlan, Sandbox};
use super::{runner, scratch, submission};
use crate::assignment::Language;

/// What to grade: a submission folder, optionally with an explicit command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// The submission folder (the working directory of the program).
    pub dir: PathBuf,
    /// A command to run instead of the detected language's.
    pub command: Option<Vec<String>>,
    /// What reports and messages call the submission (default: its folder),
    /// e.g. the student id when the folder is a scratch copy.
    pub name: Option<String>,
}

impl Target {
    /// What reports and messages call the submission.
    pub fn name(&self) -> String {
        self.name.clone().unwrap_or_else(|| self.dir.display().to_string())
    }
}

/// A submission that cannot be graded at all (exit status 2, or 3 when the
/// grader's own scratch space failed: [`NotGradable::is_input`]).
#[derive(Debug, thiserror::Error)]
pub enum NotGradable {
    /// The folder is not there.
    #[error("the submission folder {0} does not exist")]
    MissingFolder(String),
    /// No language's files are in the folder, and no command was given.
    #[error("{}", no_language_message(.expected, .submission))]
    NoLanguage {
        /// The submission's name.
        submission: String,
        /// What each language looks for (`search.py (python)`).
        expected: Vec<String>,
    },
    /// The sandbox refused, or its scratch folder could not be made.
    #[error(transparent)]
    Prepare(#[from] sandbox::PrepareError),
    /// The kit could not be put beside the submission.
    #[error(transparent)]
    Files(#[from] scratch::PathError),
}

impl NotGradable {
    /// Whether the submission or the flags are at fault (exit status 2):
    /// no folder, no language's files, a folder staging refuses, `--sandbox
    /// strict` on a machine without a layer. Otherwise the grader's own
    /// scratch space failed, a runtime failure (exit status 3).
    pub fn is_input(&self) -> bool {
        match self {
            NotGradable::MissingFolder(_) | NotGradable::NoLanguage { .. } => true,
            NotGradable::Prepare(sandbox::PrepareError::StrictMissing { .. }) => true,
            NotGradable::Prepare(sandbox::PrepareError::Files(error)) | NotGradable::Files(error) => error.is_input(),
        }
    }
}

/// A submission staged in its sandbox: a private copy, built, with the
/// command that starts it, or why its build failed.
#[derive(Debug)]
pub struct Staged {
    /// The sandbox's scratch folder, layers and policies (the copy lives as long as this).
    pub prepared: sandbox::Prepared,
    /// The language detected (`None` when a command was given).
    pub language: Option<String>,
    /// How to start the program, or why it could not be built.
    pub program: Result<runner::ProgramSpec, submission::BuildFailure>,
}

impl Staged {
    /// The language reports give: the detected one, or `command`.
    pub fn language_name(&self, target: &Target) -> Option<String> {
        self.language.clone().or_else(|| target.command.as_ref().map(|_| "command".to_string()))
    }
}

/// Detects the submission's language among `languages` (unless a command
/// is given), copies it into a sandbox of its own and builds it there:
/// what grading and playing a program both start from. `searches` and
/// `per_search` size the program's CPU budget.
pub fn stage(
    languages: &[Language],
    target: &Target,
    kits: &Path,
    sandbox: &Sandbox,
    searches: usize,
    per_search: Duration,
) -> Result<Staged, NotGradable> {
    let dir = submission::absolute(&target.dir);
    if !dir.is_dir() {
        return Err(NotGradable::MissingFolder(target.name()));
    }
    let language = languages.iter().find(|language| language.detect.iter().all(|file| dir.join(file).exists()));
    let command = match (&target.command, language) {
        (Some(command), _) => command.clone(),
        (None, Some(language)) => language.run.clone(),
        (None, None) => {
            let expected = languages.iter().map(|l| format!("{} ({})", l.detect.join(" + "), l.name));
            return Err(NotGradable::NoLanguage { submission: target.name(), expected: expected.collect() });
        }
    };
    let builds = language.filter(|_| target.command.is_none());
    let prepared = sandbox.prepare(&RunPlan {
        submission: &dir,
        kits,
        tests: searches,
        per_test: per_search,
        build_time_limit: builds.filter(|l| l.build.is_some()).map(|l| l.build_time_limit),
    })?;
    // The program and its build see the staged copy, never the original folder.
    let dir = prepared.submission.clone();
    provide_rust_kit(&dir, &prepared)?;
    let build = builds.map(|l| submission::build(l, &dir, prepared.build.as_ref(), &prepared.home));
    let program = match build {
        Some(Err(failure)) => Err(failure),
        _ => Ok(submission::program_spec(
            &command,
            &dir,
            language,
            &prepared.kits,
            prepared.run.as_ref(),
            &prepared.home,
        )),
    };
    Ok(Staged { language: language.map(|l| l.name.clone()), prepared, program })
}

/// A Rust submission builds against the kit in its `kit` folder; where the
/// copy has none (a link, say, which staging does not follow), the grader's
/// own kit is put there.
fn provide_rust_kit(dir: &Path, prepared: &sandbox::Prepared) -> Result<(), scratch::PathError> {
    if !dir.join("Cargo.toml").is_file() || dir.join("kit").exists() {
        return Ok(());
    }
    let owner = prepared.run.as_ref().and_then(|policy| policy.run_as);
    scratch::stage(&prepared.kits.join("rust"), &dir.join("kit"), owner)
}

fn no_language_message(expected: &[String], submission: &str) -> String {
    if expected.is_empty() {
        return format!(
            "this assignment declares no languages, so give the command to run after `--` (in {})",
            submission
        );
    }
    format!("found no submission in {}: expected {}, or give a command after `--`", submission, expected.join(" or "))
}
