//! `treegrade validate`: check tree files and their `expect` blocks, and
//! assignment folders (a folder holding `assignment.yaml`): its schema, test
//! paths and globs, points, every tree, and every question's tests searched
//! by the reference with that question's settings.

use std::path::{Path, PathBuf};

use clap::Args;

use super::{Failure, emit, report_load_error};
use crate::compare::{count_nodes, expectation_differences};
use crate::engine::{Algorithm, SearchSettings};
use crate::load::assignment::load_assignment;
use crate::load::{LoadError, Loaded, load_file};
use crate::points::Points;

/// Flags of `treegrade validate`.
#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// Tree files, folders whose `*.yaml` / `*.yml` files are checked, or
    /// assignment folders (holding `assignment.yaml`).
    #[arg(required = true)]
    files: Vec<PathBuf>,
}

/// What checking one file found.
enum FileVerdict {
    Valid { nodes: Option<usize>, checked: Vec<String> },
    Invalid(LoadError),
    Disagrees(Vec<String>),
}

pub fn run(args: &ValidateArgs) -> Result<(), Failure> {
    let (assignments, others): (Vec<PathBuf>, Vec<PathBuf>) =
        args.files.iter().cloned().partition(|path| path.join("assignment.yaml").is_file());
    let mut bad = assignments.iter().filter(|dir| !check_assignment(dir)).count();
    if others.is_empty() {
        return if bad > 0 { Err(Failure::Reported) } else { Ok(()) };
    }
    let files = expand(&others).map_err(Failure::Usage)?;
    for file in &files {
        let verdict = check_file(file);
        match &verdict {
            FileVerdict::Valid { nodes, checked } => {
                let checked = if checked.is_empty() { "no expectations".to_string() } else { checked.join(", ") };
                let size = nodes.map_or_else(|| "a game".to_string(), count_nodes);
                emit(&format!("ok     {} ({size}; {checked})\n", file.display()));
            }
            FileVerdict::Invalid(error) => {
                bad += 1;
                let first = error.to_string().lines().next().unwrap_or_default().to_string();
                emit(&format!("error  {first}\n"));
                report_load_error(error);
            }
            FileVerdict::Disagrees(differences) => {
                bad += 1;
                emit(&format!("FAIL   {}: {}\n", file.display(), differences.join("; ")));
            }
        }
    }
    if bad > 0 {
        let checked = files.len() + assignments.len();
        let what = if assignments.is_empty() { "files" } else { "files and assignments" };
        eprintln!("{bad} of {checked} {what} are invalid or disagree with the reference");
        return Err(Failure::Reported);
    }
    Ok(())
}

/// Checks an assignment folder and says what it found; true when it is valid.
fn check_assignment(dir: &Path) -> bool {
    let assignment = match load_assignment(dir) {
        Ok(assignment) => assignment,
        Err(error) => {
            emit(&format!("error  {}: the assignment is invalid\n", dir.display()));
            report_load_error(&error);
            return false;
        }
    };
    let selected: Vec<usize> = (0..assignment.questions.len()).collect();
    match super::check::load_and_plan(&assignment, &selected) {
        Ok((tests, _)) => {
            let points: Points = assignment.questions.iter().map(|q| q.points).sum();
            let generated: u32 = assignment.questions.iter().filter_map(|q| q.generate.as_ref()).map(|g| g.count).sum();
            let generated =
                if generated > 0 { format!(" and {generated} generated per student") } else { String::new() };
            emit(&format!(
                "ok     {} (assignment: {} questions, {} test files{generated}, {points} points)\n",
                dir.display(),
                assignment.questions.len(),
                tests.len()
            ));
            true
        }
        Err(failure) => {
            emit(&format!("error  {}: the assignment's tests are invalid\n", dir.display()));
            match failure {
                Failure::Input(errors) => errors.iter().for_each(report_load_error),
                Failure::Usage(message) => eprintln!("error: {message}"),
                Failure::ChecksFailed | Failure::Reported => {}
            }
            false
        }
    }
}

fn check_file(path: &Path) -> FileVerdict {
    let loaded = match load_file(path) {
        Ok(loaded) => loaded,
        Err(error) => return FileVerdict::Invalid(error),
    };
    let mut differences = Vec::new();
    let mut checked = Vec::new();
    for (name, expectation) in loaded.expectations() {
        let algorithm: Algorithm = name.parse().expect("the loader accepts only known algorithms");
        let settings = SearchSettings::resolve(algorithm, loaded.search_defaults(), None, None);
        match search(&loaded, &settings) {
            Ok(solved) => {
                let found = expectation_differences(&*solved.tree, expectation, &solved.outcome, "the reference");
                differences.extend(found.into_iter().map(|d| format!("expect.{name}.{d}")));
                checked.push(name.clone());
            }
            Err(error) => return FileVerdict::Invalid(error),
        }
    }
    if checked.is_empty()
        && let Err(error) = check_accepting_searches(&loaded)
    {
        return FileVerdict::Invalid(error);
    }
    if differences.is_empty() {
        let nodes = match &loaded {
            Loaded::Written(written) => Some(written.tree.len()),
            Loaded::Game(_) => None,
        };
        FileVerdict::Valid { nodes, checked }
    } else {
        FileVerdict::Disagrees(differences)
    }
}

/// The reference search of an expectation: it must be defined and not fragile.
fn search<'a>(loaded: &'a Loaded, settings: &SearchSettings) -> Result<crate::load::Solved<'a>, LoadError> {
    let solved = loaded.solve(settings)?;
    loaded.check_fragility(settings)?;
    Ok(solved)
}

/// A tree without expectations: every search that accepts it (with its own
/// settings, alpha-beta under both conventions) must not be fragile, and at
/// least one must accept it.
fn check_accepting_searches(loaded: &Loaded) -> Result<(), LoadError> {
    let defaults = loaded.search_defaults();
    let candidates = [
        SearchSettings::resolve(Algorithm::Minimax, defaults, None, None),
        SearchSettings::resolve(Algorithm::AlphaBeta, defaults, None, Some(true)),
        SearchSettings::resolve(Algorithm::AlphaBeta, defaults, None, Some(false)),
        SearchSettings::resolve(Algorithm::Expectimax, defaults, None, None),
    ];
    let mut first_refusal = None;
    let mut accepted = false;
    for settings in &candidates {
        match loaded.solve(settings) {
            Ok(_) => {
                accepted = true;
                loaded.check_fragility(settings)?;
            }
            Err(error) => {
                first_refusal.get_or_insert(error);
            }
        }
    }
    match (accepted, first_refusal) {
        (false, Some(error)) => Err(error),
        _ => Ok(()),
    }
}

/// Expands folders into their YAML files, sorted, so output order is stable.
fn expand(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            let entries = std::fs::read_dir(path).map_err(|e| format!("cannot list {}: {e}", path.display()))?;
            let mut found: Vec<PathBuf> = entries
                .filter_map(|entry| entry.ok().map(|e| e.path()))
                .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("yaml" | "yml")))
                .collect();
            found.sort();
            files.extend(found);
        } else {
            files.push(path.clone());
        }
    }
    Ok(files)
}
