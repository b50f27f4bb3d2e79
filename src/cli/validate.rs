//! `treegrade validate`: check tree files and their `expect` blocks.

use std::path::{Path, PathBuf};

use clap::Args;

use super::{Failure, emit, report_load_error};
use crate::compare::{count_nodes, expectation_differences};
use crate::engine::{self, Algorithm, SearchSettings};
use crate::load::{LoadError, LoadedTree, load_tree_file};

/// Flags of `treegrade validate`.
#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// Tree files, or folders whose `*.yaml` / `*.yml` files are checked.
    #[arg(required = true)]
    files: Vec<PathBuf>,
}

/// What checking one file found.
enum FileVerdict {
    Valid { nodes: usize, checked: Vec<String> },
    Invalid(LoadError),
    Disagrees(Vec<String>),
}

pub fn run(args: &ValidateArgs) -> Result<(), Failure> {
    let files = expand(&args.files).map_err(Failure::Usage)?;
    let mut bad = 0;
    for file in &files {
        let verdict = check_file(file);
        match &verdict {
            FileVerdict::Valid { nodes, checked } => {
                let checked = if checked.is_empty() { "no expectations".to_string() } else { checked.join(", ") };
                emit(&format!("ok     {} ({}; {checked})\n", file.display(), count_nodes(*nodes)));
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
        eprintln!("{bad} of {} files are invalid or disagree with the reference", files.len());
        return Err(Failure::Input(Vec::new()));
    }
    Ok(())
}

fn check_file(path: &Path) -> FileVerdict {
    let loaded = match load_tree_file(path) {
        Ok(loaded) => loaded,
        Err(error) => return FileVerdict::Invalid(error),
    };
    let mut differences = Vec::new();
    let mut checked = Vec::new();
    for (name, expectation) in loaded.tree.expectations() {
        let algorithm: Algorithm = name.parse().expect("the loader accepts only known algorithms");
        let settings = SearchSettings::resolve(algorithm, loaded.tree.search_defaults(), None, None);
        match search(&loaded, &settings) {
            Ok(outcome) => {
                let found = expectation_differences(&loaded.tree, expectation, &outcome, "the reference");
                differences.extend(found.into_iter().map(|d| format!("expect.{name}.{d}")));
                checked.push(name.clone());
            }
            Err(error) => return FileVerdict::Invalid(error),
        }
    }
    if differences.is_empty() {
        FileVerdict::Valid { nodes: loaded.tree.len(), checked }
    } else {
        FileVerdict::Disagrees(differences)
    }
}

fn search(loaded: &LoadedTree, settings: &SearchSettings) -> Result<engine::SearchOutcome, LoadError> {
    loaded.check_settings(settings)?;
    Ok(engine::search(&loaded.tree, settings).expect("settings were checked above"))
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
