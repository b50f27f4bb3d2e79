//! `treegrade gradescope`: a ready Gradescope autograder zip.

use std::path::{Path, PathBuf};

use clap::Args;

use super::source::AssignmentSource;
use super::{Context, Failure, emit};
use crate::load::assignment::load_assignment_with_hidden;
use crate::package::elf::GlibcVersion;
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
    /// The treegrade to ship (default: this one): a Linux x86-64 binary that needs no glibc newer than
    /// the image's, as the wheel's and `scripts/gradescope-binary`'s are.
    #[arg(long, value_name = "FILE")]
    binary: Option<PathBuf>,
    /// The glibc of the Gradescope image the autograder runs on: 2.31 (Ubuntu 20.04, the oldest base
    /// image) unless the assignment uses a newer one (22.04: 2.35).
    #[arg(long, value_name = "VERSION", default_value = "2.31", value_parser = parse_glibc)]
    glibc: GlibcVersion,
}

/// `--glibc`: a version such as `2.31`.
fn parse_glibc(text: &str) -> Result<GlibcVersion, String> {
    GlibcVersion::parse(text).ok_or_else(|| format!("`{text}` is not a glibc version such as 2.31"))
}

/// Refuses a binary that would not start on the image: not a Linux x86-64
/// program, or linked against a glibc newer than the image's. Gives the
/// newest glibc the binary needs.
fn check_runs_on_the_image(binary: &Path, image: &GlibcVersion) -> Result<Option<GlibcVersion>, Failure> {
    let bytes =
        std::fs::read(binary).map_err(|e| Failure::from_io(Some(format!("cannot read {}", binary.display())), e))?;
    let how = "package a treegrade built for glibc 2.31: the wheel's (`pip install treegrade`, then its \
               `treegrade gradescope`), or `scripts/gradescope-binary` in a checkout, then \
               `--binary target/gradescope/treegrade`";
    match crate::package::elf::newest_glibc(&bytes) {
        Err(why) => Err(Failure::Usage(format!(
            "{} cannot run on Gradescope's Linux x86-64 images: {why}; {how}",
            binary.display()
        ))),
        Ok(Some(needed)) if needed > *image => Err(Failure::Usage(format!(
            "{} needs glibc {needed}, newer than the image's {image} (--glibc; Ubuntu 20.04 has 2.31), so the \
             autograder would not start there; {how} (or, on an image with glibc {needed} or later, say so with \
             --glibc)",
            binary.display()
        ))),
        Ok(needed) => {
            check_is_treegrade(binary)?;
            Ok(needed)
        }
    }
}

/// Refuses another program given as `--binary`, where it runs here
/// (`setup.sh` runs `treegrade --version` on the image).
fn check_is_treegrade(binary: &Path) -> Result<(), Failure> {
    // By its path, never looked up on PATH.
    let path = std::path::absolute(binary).unwrap_or_else(|_| binary.to_path_buf());
    let Ok(output) = std::process::Command::new(path).arg("--version").output() else { return Ok(()) };
    let said = String::from_utf8_lossy(&output.stdout);
    if said.starts_with("treegrade ") {
        return Ok(());
    }
    let first = said.lines().next().unwrap_or("nothing");
    Err(Failure::Usage(format!("{} is not treegrade (`--version` says {first})", binary.display())))
}

/// A stripped release build is well under this.
const LARGE_BINARY: u64 = 24 << 20;

pub fn run(args: &GradescopeArgs, context: &Context) -> Result<(), Failure> {
    let source = AssignmentSource::resolve(args.assignment.as_deref())?;
    let dir = source.dir().to_path_buf();
    let assignment = load_assignment_with_hidden(&dir, args.hidden.as_deref()).map_err(|e| Failure::Input(vec![e]))?;
    let binary = match &args.binary {
        Some(binary) => binary.clone(),
        None => context
            .binary()
            .ok_or_else(|| Failure::Usage("cannot find the treegrade binary to package".to_string()))?
            .to_path_buf(),
    };
    let needed = check_runs_on_the_image(&binary, &args.glibc)?;
    let secret = context.secret();
    let bundle =
        GradescopeBundle { assignment: &assignment, hidden_dir: args.hidden.as_deref(), binary: &binary, secret };
    let file = std::fs::File::create(&args.out)
        .map_err(|e| Failure::runtime(format!("cannot create {}", args.out.display()), e))?;
    let names = gradescope_zip(&bundle, file).map_err(|e| Failure::runtime("cannot write the zip", e))?;
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
        "wrote {} ({} files: setup.sh, run_autograder, treegrade ({}), the assignment and {}{})\n\
         upload it as the autograder of a Gradescope programming assignment\n",
        args.out.display(),
        names.len(),
        needed.map_or_else(|| "static".to_string(), |needed| format!("needs glibc {needed} or later")),
        crate::compare::counted(tests, "test"),
        if names.iter().any(|n| n == "secret") { ", the course secret" } else { "" }
    ));
    Ok(())
}
