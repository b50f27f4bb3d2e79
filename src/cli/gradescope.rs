//! `treegrade gradescope`: a ready Gradescope autograder zip.

use std::path::{Path, PathBuf};

use clap::Args;

use super::check::{BUNDLED_ASSIGNMENT, SECRET_VARIABLE};
use super::{Failure, emit};
use crate::load::assignment::load_assignment_with_hidden;
use crate::package::{GradescopeBundle, gradescope_zip};

/// Flags of `treegrade gradescope`.
#[derive(Debug, Args)]
pub struct GradescopeArgs {
    /// The assignment folder (default: the bundled assignment).
    #[arg(long, value_name = "DIR")]
    assignment: Option<PathBuf>,
    /// Where the assignment's hidden tests are (they are packed too).
    #[arg(long, value_name = "DIR")]
    hidden: Option<PathBuf>,
    /// The zip to write.
    #[arg(long, value_name = "FILE", default_value = "autograder.zip")]
    out: PathBuf,
}

/// The checkout this binary was built from, shipped so that Gradescope can
/// rebuild treegrade if the binary does not run on its image.
const SOURCE_CHECKOUT: &str = env!("CARGO_MANIFEST_DIR");

pub fn run(args: &GradescopeArgs) -> Result<(), Failure> {
    let dir = args.assignment.clone().unwrap_or_else(|| PathBuf::from(BUNDLED_ASSIGNMENT));
    let assignment = load_assignment_with_hidden(&dir, args.hidden.as_deref()).map_err(|e| Failure::Input(vec![e]))?;
    let binary =
        std::env::current_exe().map_err(|e| Failure::Usage(format!("cannot find the treegrade binary: {e}")))?;
    let source = Path::new(SOURCE_CHECKOUT);
    let secret = std::env::var(SECRET_VARIABLE).ok();
    let bundle = GradescopeBundle {
        assignment: &assignment,
        hidden_dir: args.hidden.as_deref(),
        binary: &binary,
        source: source.join("Cargo.toml").is_file().then_some(source),
        secret: secret.as_deref(),
    };
    let file = std::fs::File::create(&args.out)
        .map_err(|e| Failure::Usage(format!("cannot create {}: {e}", args.out.display())))?;
    let names = gradescope_zip(&bundle, file).map_err(|e| Failure::Usage(format!("cannot write the zip: {e}")))?;
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
