//! Packaging an assignment for the platforms courses grade on.
//!
//! `gradescope_zip` writes a Gradescope autograder: Gradescope unpacks it in
//! `/autograder/source`, runs `setup.sh` once when it builds the image, and
//! `run_autograder` for every submission. The zip carries the treegrade
//! binary (never a source tree: nothing is compiled on Gradescope), the
//! assignment with copies of exactly the tests it uses (hidden ones
//! included), and the course secret for generated questions.
//! `run_autograder` always leaves a `results.json`, even when grading itself
//! fails.

use std::io::{self, Write};
use std::path::Path;

use zip::CompressionMethod;
use zip::write::{SimpleFileOptions, ZipWriter};

pub mod elf;

use crate::grader::plan::Assignment;
use crate::load::{self, assignment::ASSIGNMENT_FILE};
use crate::report::{Format, Offer};

/// Gradescope's setup script: the shipped binary needs nothing but Python
/// (for the kit) and glibc 2.31 or later; nothing is downloaded or built.
pub const SETUP_SH: &str = r#"#!/usr/bin/env bash
# Gradescope runs this once, as root, in /autograder/source.
set -euo pipefail
cd "$(dirname "$0")"
command -v python3 >/dev/null || { apt-get update -qq && apt-get install -y -qq python3 >/dev/null; }
chmod +x treegrade run_autograder
if ! ./treegrade --version; then
  echo "the shipped treegrade does not run on this image (it needs Linux x86_64 with glibc 2.31 or later);" >&2
  echo "package the autograder with the treegrade of the Linux wheel (pip install treegrade)" >&2
  exit 1
fi
"#;

/// Gradescope's per-submission script, with the format and file of
/// [`gradescope_format`] in place of `{FORMAT}` and `{RESULTS}`. It never
/// fails to write that file.
const RUN_AUTOGRADER: &str = r#"#!/usr/bin/env bash
# Gradescope runs this for every submission; AUTOGRADER_ROOT is for testing.
root=${AUTOGRADER_ROOT:-/autograder}
cd "$root/source"
mkdir -p "$root/results"
results="$root/results/{RESULTS}"
rm -f "$results"
hidden=()
[ -d hidden ] && hidden=(--hidden hidden)
secret=""
[ -f secret ] && secret=$(cat secret)
student=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["users"][0]["email"])' \
  "$root/submission_metadata.json" 2>/dev/null || echo submission)
TREEGRADE_SECRET="$secret" ./treegrade check --assignment assignment "${hidden[@]}" \
  --submission "$root/submission" --student "$student" \
  --format {FORMAT} --output "$results" >"$root/results/log.txt" 2>&1
status=$?
if [ ! -s "$results" ]; then
  # Grading itself failed (no submission found, a broken assignment...):
  # still give Gradescope a result, with the reason for the student.
  python3 - "$results" "$root/results/log.txt" "$status" <<'PY'
import json, sys
path, log, status = sys.argv[1], sys.argv[2], sys.argv[3]
try:
    text = open(log, encoding="utf-8", errors="replace").read()[-4000:]
except OSError:
    text = ""
message = "The autograder could not grade this submission (treegrade exited with status %s).\n%s" % (status, text)
json.dump({"score": 0, "output": message, "tests": []}, open(path, "w"))
PY
fi
exit 0
"#;

/// The report format Gradescope reads, from the report registry: the one it
/// offers the Gradescope autograder.
fn gradescope_format() -> Format {
    Format::offered_by(Offer::Gradescope).next().expect("the report registry offers Gradescope a format")
}

/// Gradescope's per-submission script: `check` writes Gradescope's format
/// to the file Gradescope reads.
pub fn run_autograder() -> String {
    let format = gradescope_format();
    RUN_AUTOGRADER.replace("{FORMAT}", format.name()).replace("{RESULTS}", format.file())
}

/// What goes into an autograder zip besides the scripts and the binary.
#[derive(Debug)]
pub struct GradescopeBundle<'a> {
    /// The assignment (its tests are resolved already).
    pub assignment: &'a Assignment,
    /// Where the hidden tests came from, if not from the tests folder.
    pub hidden_dir: Option<&'a Path>,
    /// The treegrade binary to ship.
    pub binary: &'a Path,
    /// The course secret for generated questions, if any.
    pub secret: Option<&'a str>,
}

/// Writes the autograder zip; returns the paths it contains.
pub fn gradescope_zip(bundle: &GradescopeBundle<'_>, out: impl Write + io::Seek) -> io::Result<Vec<String>> {
    let mut zip = Archive { writer: ZipWriter::new(out), names: Vec::new() };
    zip.add("setup.sh", SETUP_SH.as_bytes(), true)?;
    zip.add("run_autograder", run_autograder().as_bytes(), true)?;
    zip.add("treegrade", &std::fs::read(bundle.binary)?, true)?;
    let file = bundle.assignment.dir.join(ASSIGNMENT_FILE);
    let assignment_text = std::fs::read_to_string(&file)?;
    // The loader knows YAML: it rewrites `tests_dir` wherever and however it is written.
    let rewritten = load::assignment::with_tests_dir(&assignment_text, "tests", &file).map_err(io::Error::other)?;
    zip.add("assignment/assignment.yaml", rewritten.as_bytes(), false)?;
    let tests_dir = load::assignment::tests_dir(&bundle.assignment.dir).map_err(io::Error::other)?;
    for question in &bundle.assignment.questions {
        // A calls question's files go where its trees would (docs/format.md 11).
        for test in question.tree_tests().iter().chain(question.call_tests()) {
            let (root, folder) = match (test.hidden, bundle.hidden_dir) {
                (true, Some(hidden)) => (hidden.to_path_buf(), "hidden"),
                _ => (tests_dir.clone(), "assignment/tests"),
            };
            let relative =
                test.path.strip_prefix(&root).unwrap_or(Path::new(test.path.file_name().unwrap_or_default()));
            zip.add(&format!("{folder}/{}", relative.display()), &std::fs::read(&test.path)?, false)?;
        }
    }
    for play in bundle.assignment.questions.iter().filter_map(|question| question.play()) {
        add_play(&mut zip, play, &bundle.assignment.dir, &tests_dir)?;
    }
    if let Some(secret) = bundle.secret.filter(|s| !s.is_empty()) {
        zip.add("secret", secret.as_bytes(), false)?;
    }
    zip.writer.finish().map_err(io::Error::other)?;
    Ok(zip.names)
}

/// What a play question needs beside the assignment: its game file (in the
/// tests folder) and its opponents' programs (folders inside the
/// assignment's, copied to the same places, so that the paths of
/// `assignment.yaml` hold).
fn add_play<W: Write + io::Seek>(
    zip: &mut Archive<W>,
    play: &crate::assignment::Play,
    assignment_dir: &Path,
    tests_dir: &Path,
) -> io::Result<()> {
    if let crate::assignment::PlayGame::File(game) = &play.game {
        let relative = game.strip_prefix(tests_dir).unwrap_or(Path::new(game.file_name().unwrap_or_default()));
        if !zip.names.contains(&format!("assignment/tests/{}", relative.display())) {
            zip.add(&format!("assignment/tests/{}", relative.display()), &std::fs::read(game)?, false)?;
        }
    }
    for opponent in &play.opponents {
        let crate::assignment::OpponentAgent::Program(folder) = &opponent.agent else { continue };
        let inside = std::fs::canonicalize(folder)?;
        let relative = inside.strip_prefix(std::fs::canonicalize(assignment_dir)?).map_err(|_| {
            io::Error::other(format!(
                "the opponent {}'s folder {} is outside the assignment's folder: move it inside to package it",
                opponent.name,
                folder.display()
            ))
        })?;
        let skipped = |name: &std::ffi::OsStr| matches!(name.to_str(), Some("target" | "__pycache__" | ".git"));
        for file in crate::walk::files(&inside, skipped).map_err(|error| io::Error::other(error.to_string()))? {
            let within = file.strip_prefix(&inside).expect("the walker lists files under its root");
            let name = format!("assignment/{}", relative.join(within).display());
            if !zip.names.contains(&name) {
                zip.add(&name, &std::fs::read(&file)?, false)?;
            }
        }
    }
    Ok(())
}

struct Archive<W: Write + io::Seek> {
    writer: ZipWriter<W>,
    names: Vec<String>,
}

impl<W: Write + io::Seek> Archive<W> {
    fn add(&mut self, name: &str, contents: &[u8], executable: bool) -> io::Result<()> {
        if self.names.iter().any(|existing| existing == name) {
            return Ok(());
        }
        let options = SimpleFileOptions::default()
            .compression_method(CompressionMethod::Deflated)
            .unix_permissions(if executable { 0o755 } else { 0o644 });
        self.writer.start_file(name, options).map_err(io::Error::other)?;
        self.writer.write_all(contents)?;
        self.names.push(name.to_string());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_autograder_asks_check_for_gradescope_s_results_json() {
        let script = run_autograder();
        assert!(script.contains("results=\"$root/results/results.json\""), "{script}");
        assert!(script.contains("--format gradescope --output \"$results\""), "{script}");
        assert!(!script.contains("{FORMAT}") && !script.contains("{RESULTS}"), "{script}");
        assert!(gradescope_format().is_offered_by(Offer::Check), "check must be able to write it");
    }
}
