//! `treegrade init`: set up a student's folder with the starter code and kit.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::source::{AssignmentSource, MARKER_FILE};
use super::{Failure, emit};
use crate::grader::submission::write_starter;

/// Flags of `treegrade init`.
#[derive(Debug, Args)]
pub struct InitArgs {
    /// The folder to set up (created if missing).
    #[arg(default_value = ".")]
    dir: PathBuf,
    /// The language to write the starter in.
    #[arg(long, short, value_enum, default_value = "python")]
    language: Language,
    /// The assignment whose starter to use: a folder, or `games` or `more-searches` for a bundled assignment
    /// (default: $TREEGRADE_ASSIGNMENT, ./assignment.yaml, or the bundled one).
    #[arg(long, value_name = "DIR")]
    assignment: Option<PathBuf>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Language {
    Python,
    Rust,
}

pub fn run(args: &InitArgs) -> Result<(), Failure> {
    let source = AssignmentSource::resolve(args.assignment.as_deref())?;
    let assignment = source.dir().to_path_buf();
    let language = match args.language {
        Language::Python => "python",
        Language::Rust => "rust",
    };
    // The folder names its assignment, so that `check` in it grades that one.
    let marker = vec![(PathBuf::from(MARKER_FILE), source.marker().into_bytes())];
    let written =
        write_starter(&assignment, language, &args.dir, marker).map_err(|error| Failure::from_io(None, error))?;
    let mut out = format!("wrote a {language} starter to {}:\n", args.dir.display());
    for path in written {
        out.push_str(&format!("  {}\n", path.display()));
    }
    let assignment_flag =
        args.assignment.as_ref().map_or(String::new(), |dir| format!("--assignment {} ", dir.display()));
    out.push_str(&format!(
        "next: write the TODOs, then run `treegrade check {assignment_flag}--submission {}`\n",
        args.dir.display()
    ));
    emit(&out);
    Ok(())
}
