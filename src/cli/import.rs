//! `treegrade import`: turn another autograder's tests into tree files.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};

use super::{Failure, emit};
use crate::compare::count_nodes;
use crate::import::cs188::{self, ImportErrorKind};
use crate::load::load_tree_str;
use crate::load::write::tree_to_yaml;

/// Flags of `treegrade import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    #[command(subcommand)]
    format: ImportFormat,
}

#[derive(Debug, Subcommand)]
enum ImportFormat {
    /// CS188 multiagent `GraphGameTreeTest` files (`.test`, with the `.solution` beside it).
    Cs188(Cs188Args),
}

/// Flags of `treegrade import cs188`.
#[derive(Debug, Args)]
struct Cs188Args {
    /// `.test` files, or folders searched recursively for them.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Folder for the tree files (created if missing), one `FOLDER-STEM.yaml` per test.
    #[arg(long, short)]
    output: PathBuf,
}

/// What importing one file came to.
enum Outcome {
    Written,
    Skipped,
    Failed,
}

/// Runs `treegrade import`: exit 0 when every test imported, 2 when any failed.
pub fn run(args: &ImportArgs) -> Result<(), Failure> {
    match &args.format {
        ImportFormat::Cs188(args) => run_cs188(args),
    }
}

fn run_cs188(args: &Cs188Args) -> Result<(), Failure> {
    let files = expand(&args.paths);
    if files.is_empty() {
        return Err(Failure::Usage("no `.test` files found in the given paths".to_string()));
    }
    std::fs::create_dir_all(&args.output)
        .map_err(|e| Failure::Usage(format!("cannot create {}: {e}", args.output.display())))?;
    let mut written: HashMap<PathBuf, PathBuf> = HashMap::new();
    let (mut ok, mut skipped, mut failed) = (0, 0, 0);
    for file in &files {
        match import_one(file, &args.output, &mut written) {
            Outcome::Written => ok += 1,
            Outcome::Skipped => skipped += 1,
            Outcome::Failed => failed += 1,
        }
    }
    eprintln!("imported {ok} of {} files ({skipped} skipped, {failed} failed)", files.len());
    if failed > 0 {
        return Err(Failure::Input(Vec::new()));
    }
    Ok(())
}

/// Imports one test, writes its tree, prints one line.
fn import_one(file: &Path, output: &Path, written: &mut HashMap<PathBuf, PathBuf>) -> Outcome {
    let import = match cs188::import_file(file) {
        Ok(import) => import,
        Err(error) => {
            if let ImportErrorKind::UnsupportedClass { class } = &error.kind {
                emit(&format!("skip   {}: class {class} is not a game-tree test\n", file.display()));
                return Outcome::Skipped;
            }
            emit(&format!("error  {error}\n"));
            return Outcome::Failed;
        }
    };
    let target = output.join(format!("{}.yaml", import.tree.name()));
    if let Some(first) = written.get(&target) {
        emit(&format!("error  {}: {} is already written from {}\n", file.display(), target.display(), first.display()));
        return Outcome::Failed;
    }
    let yaml = tree_to_yaml(&import.tree);
    // The file must load back as valid input; anything else is a bug worth reporting.
    if let Err(error) = load_tree_str(yaml.clone(), &target) {
        emit(&format!("error  {}: the converted tree does not load: {error}\n", file.display()));
        return Outcome::Failed;
    }
    if let Err(error) = std::fs::write(&target, &yaml) {
        emit(&format!("error  {}: cannot write {}: {error}\n", file.display(), target.display()));
        return Outcome::Failed;
    }
    written.insert(target.clone(), file.to_path_buf());
    let mut notes = vec![
        count_nodes(import.tree.len()),
        import.algorithm.to_string(),
        format!("depth {} plies", import.settings().depth.unwrap_or(0)),
    ];
    if import.repeated_states() > 0 {
        notes.push(format!("{} repeated states", import.repeated_states()));
    }
    if import.solution.is_none() {
        notes.push("no .solution: no expect".to_string());
    }
    let differences = import.reference_differences();
    if differences.is_empty() {
        emit(&format!("ok     {} -> {} ({})\n", file.display(), target.display(), notes.join(", ")));
        Outcome::Written
    } else {
        emit(&format!("FAIL   {} -> {}: {}\n", file.display(), target.display(), differences.join("; ")));
        Outcome::Failed
    }
}

/// Files as given, folders searched recursively for `*.test` (sorted, for a stable order).
fn expand(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut found = Vec::new();
            collect_tests(path, &mut found);
            found.sort();
            files.extend(found);
        } else {
            files.push(path.clone());
        }
    }
    files
}

fn collect_tests(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for path in entries.flatten().map(|entry| entry.path()) {
        if path.is_dir() {
            collect_tests(&path, found);
        } else if path.extension().is_some_and(|e| e == "test") {
            found.push(path);
        }
    }
}
