//! `treegrade gradescope`: a ready Gradescope autograder zip.

use std::path::PathBuf;

use clap::Args;

use super::source::AssignmentSource;
use super::{Context, Failure, emit};
use crate::load::assignment::load_assignment_with_hidden;
use crate::package::{GradescopeBundle, gradescope_zip};

/// Flags of `treegrade gradescope`.
#[derive(Debug, Args)]
pub struct GradescopeArgs {
    /// The assignment folder (default: $TREEGRADE_ASSIGNMENT, ./assignment.yaml, or the bundled assignment).
    #[arg(long, value_name = "DIR")]
    assignment: Option<PathBuf>,
    /// Where the assignment's hidden tests are (they are packed too).
    #[arg(long, value_name = "DIR")]
    hidden: Option<PathBuf>,
    /// The zip to write.
    #[arg(long, value_name = "FILE", default_value = "autograder.zip")]
    out: PathBuf,
}

/// A stripped release build is well under this.
const LARGE_BINARY: u64 = 24 << 20;

pub fn run(args: &GradescopeArgs, context: &Context) -> Result<(), Failure> {
    let source = AssignmentSource::resolve(args.assignment.as_deref())?;
    let dir = source.dir().to_path_buf();
    let assignment = load_assignment_with_hidden(&dir, args.hidden.as_deref()).map_err(|e| Failure::Input(vec![e]))?;
    let binary = context
        .binary()
        .ok_or_else(|| Failure::Usage("cannot find the treegrade binary to package".to_string()))?
        .to_path_buf();
    let secret = context.secret();
    let bundle =
        GradescopeBundle { assignment: &assignment, hidden_dir: args.hidden.as_deref(), binary: &binary, secret };
    let file = std::fs::File::create(&args.out)
        .map_err(|e| Failure::Usage(format!("cannot create {}: {e}", args.out.display())))?;
    let names = gradescope_zip(&bundle, file).map_err(|e| Failure::Usage(format!("cannot write the zip: {e}")))?;
    let size = std::fs::metadata(&binary).map_or(0, |meta| meta.len());
    if size > LARGE_BINARY {
        eprintln!(
            "note: the treegrade packaged is {} MB, a debug build or one with debug information; the release \
             build and the wheel's treegrade are stripped (about a third of that)",
            size >> 20
        );
    }
    let tests = names.iter().filter(|n| n.starts_with("assignment/tests/") || n.starts_with("hidden/")).count();
    emit(&format!(
        "wrote {} ({} files: setup.sh, run_autograder, treegrade, the assignment and {tests} tests{})\n\
         upload it as the autograder of a Gradescope programming assignment\n",
        args.out.display(),
        names.len(),
        if names.iter().any(|n| n == "secret") { ", the course secret" } else { "" }
    ));
    Ok(())
}
