//! `treegrade import`: turn another autograder's tests into tree files.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};

use super::{Failure, emit};
use crate::compare::count_nodes;
use crate::import::course::{self, CourseTest, QuestionConfig};
use crate::import::cs188::{self, ImportErrorKind};
use crate::load::load_tree_str;
use crate::load::write::{assignment_to_yaml, tree_to_yaml};

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
    /// The course folder to write (created if missing): `assignment.yaml`, a
    /// `README.md` for students, and `tests/FOLDER-STEM.yaml`, one tree per test.
    #[arg(long, short)]
    output: PathBuf,
}

/// What importing one file came to.
enum Outcome {
    Written(CourseTest),
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
    let files = expand(&args.paths)?;
    if files.is_empty() {
        return Err(Failure::Usage("no `.test` files found in the given paths".to_string()));
    }
    let tests_dir = args.output.join(TESTS_DIR);
    std::fs::create_dir_all(&tests_dir)
        .map_err(|e| Failure::Usage(format!("cannot create {}: {e}", tests_dir.display())))?;
    let mut written: HashMap<PathBuf, PathBuf> = HashMap::new();
    let (mut imported, mut skipped, mut failed) = (Vec::new(), 0, 0);
    for file in &files {
        match import_one(file, &tests_dir, &mut written) {
            Outcome::Written(test) => imported.push(test),
            Outcome::Skipped => skipped += 1,
            Outcome::Failed => failed += 1,
        }
    }
    eprintln!("imported {} of {} files ({skipped} skipped, {failed} failed)", imported.len(), files.len());
    if !imported.is_empty() {
        write_course(&args.output, &files, &imported)?;
    }
    if failed > 0 {
        return Err(Failure::Reported);
    }
    Ok(())
}

/// The course's folder for its trees.
const TESTS_DIR: &str = "tests";

/// Writes `assignment.yaml` and the students' `README.md` beside the trees.
fn write_course(output: &Path, files: &[PathBuf], imported: &[CourseTest]) -> Result<(), Failure> {
    let configs = question_configs(files)?;
    let name = std::path::absolute(output)
        .ok()
        .and_then(|path| path.file_name().map(|name| name.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "cs188".to_string());
    let draft = course::course_draft(&name, imported, &configs).map_err(Failure::Usage)?;
    let target = output.join("assignment.yaml");
    let yaml = assignment_to_yaml(&draft);
    let written =
        std::fs::write(&target, &yaml).and_then(|()| std::fs::write(output.join("README.md"), handout(&draft)));
    written.map_err(|e| Failure::Usage(format!("cannot write {}: {e}", target.display())))?;
    // The assignment must load back; anything else is a bug worth reporting.
    crate::load::assignment::load_assignment(&target).map_err(|error| Failure::Input(vec![error]))?;
    let questions: Vec<String> =
        draft.questions.iter().map(|q| format!("{} ({} tests, {} points)", q.id, q.tests.len(), q.points)).collect();
    eprintln!("wrote {}: {}", target.display(), questions.join(", "));
    Ok(())
}

/// Each question folder's `CONFIG`, where there is one.
fn question_configs(files: &[PathBuf]) -> Result<BTreeMap<String, QuestionConfig>, Failure> {
    let mut configs = BTreeMap::new();
    for folder in files.iter().filter_map(|file| file.parent()) {
        let (Some(question), config) = (question_of(folder), folder.join("CONFIG")) else { continue };
        if configs.contains_key(&question) || !config.is_file() {
            continue;
        }
        let text = std::fs::read_to_string(&config)
            .map_err(|e| Failure::Usage(format!("cannot read {}: {e}", config.display())))?;
        let parsed = course::parse_config(&text, &config).map_err(|e| Failure::Usage(e.to_string()))?;
        configs.insert(question, parsed);
    }
    Ok(configs)
}

/// A question's id: the name of the folder its `.test` files are in.
fn question_of(folder: &Path) -> Option<String> {
    let absolute = std::path::absolute(folder).ok()?;
    Some(absolute.file_name()?.to_string_lossy().into_owned())
}

/// The course's `README.md`: what students hand in and how they check it.
fn handout(draft: &crate::load::write::AssignmentDraft) -> String {
    let questions: Vec<String> =
        draft.questions.iter().map(|q| format!("- {} {}: {} points", q.id, q.title, q.points)).collect();
    format!(
        "# {}\n\nHand in your `multiAgents.py`, unchanged from what you would hand in to CS188's own \
         autograder.\n\n{}\n\nTo check it, put it alone in a folder and run, from this course folder:\n\n\
         ```sh\ntreegrade check --assignment . --submission path/to/your/folder\n```\n\n\
         treegrade runs your MinimaxAgent, AlphaBetaAgent and ExpectimaxAgent on the same game trees as CS188's \
         graph tests. It checks the action, the states your search enters and the order it enters them in, \
         and the value your search gives the start state: a state counts as entered the first time your \
         code asks it anything (getLegalActions, generateSuccessor, isWin, isLose, getScore).\n",
        draft.title,
        questions.join("\n")
    )
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
    let test = CourseTest {
        question: file.parent().and_then(question_of).unwrap_or_else(|| "tests".to_string()),
        agent: import.agent,
        file_name: format!("{}.yaml", import.tree.name()),
    };
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
        Outcome::Written(test)
    } else {
        emit(&format!("FAIL   {} -> {}: {}\n", file.display(), target.display(), differences.join("; ")));
        Outcome::Failed
    }
}

/// Files as given, folders searched recursively for `*.test` (in name
/// order, for a stable order).
fn expand(paths: &[PathBuf]) -> Result<Vec<PathBuf>, Failure> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            let found = crate::walk::files(path, |_| false).map_err(|e| Failure::Usage(e.to_string()))?;
            files.extend(found.into_iter().filter(|file| file.extension().is_some_and(|e| e == "test")));
        } else {
            files.push(path.clone());
        }
    }
    Ok(files)
}
