//! `treegrade validate`: check tree files and their `expect` blocks, and
//! assignment folders (a folder holding `assignment.yaml`): its schema, test
//! paths and globs, points, every file it would run checked as `validate
//! FILE` checks it (its `expect` blocks against the reference), and every
//! question's tests searched by the reference with that question's settings.

use std::path::{Path, PathBuf};

use clap::Args;

use super::{Failure, emit, report_load_error};
use crate::compare::{count_nodes, counted, expectation_differences};
use crate::engine::{Algorithm, SearchSettings};
use crate::load::assignment::{ASSIGNMENT_FILE, load_assignment};
use crate::load::{LoadError, Loaded, files, load_file};
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
    /// Valid, read as `kind` (`tree: 14 nodes`, `game: tic-tac-toe`).
    Valid {
        kind: String,
        checked: Vec<String>,
    },
    Invalid(LoadError),
    Disagrees(Vec<String>),
}

pub fn run(args: &ValidateArgs) -> Result<(), Failure> {
    let entries = expand(&args.files)?;
    let mut bad = 0;
    for entry in &entries {
        let valid = match entry {
            Entry::Assignment(path) => check_assignment(path),
            Entry::Tree(file) if files::is_pacman(file) => report_file(file, check_pacman(file)),
            Entry::Tree(file) if files::is_call(file) => report_file(file, check_call(file)),
            Entry::Tree(file) => report_file(file, check_file(file)),
        };
        bad += usize::from(!valid);
    }
    if bad > 0 {
        let assignments = entries.iter().filter(|entry| matches!(entry, Entry::Assignment(_))).count();
        let what = match (assignments, entries.len() - assignments) {
            (0, _) => counted(entries.len(), "file"),
            (_, 0) => counted(entries.len(), "assignment"),
            _ => format!("{} files and assignments", entries.len()),
        };
        eprintln!("{bad} of {what} {}", is_invalid(bad));
        return Err(Failure::Reported);
    }
    Ok(())
}

/// What `count` bad files are, agreeing with the count.
fn is_invalid(count: usize) -> &'static str {
    if count == 1 { "is invalid or disagrees with the reference" } else { "are invalid or disagree with the reference" }
}

/// One thing to validate, and what it was read as.
enum Entry {
    /// An assignment: a folder holding `assignment.yaml`, or a YAML file that
    /// is one (named `assignment.yaml`, or with a `questions` key).
    Assignment(PathBuf),
    /// A tree file: written node by node, or given by a game.
    Tree(PathBuf),
}

/// Says what checking one tree file found; true when it is valid.
fn report_file(file: &Path, verdict: FileVerdict) -> bool {
    match verdict {
        FileVerdict::Valid { kind, checked } => {
            let checked = if checked.is_empty() { "no expectations".to_string() } else { checked.join(", ") };
            emit(&format!("ok     {} ({kind}; {checked})\n", file.display()));
            true
        }
        FileVerdict::Invalid(error) => {
            let first = error.to_string().lines().next().unwrap_or_default().to_string();
            emit(&format!("error  {first}\n"));
            report_load_error(&error);
            false
        }
        FileVerdict::Disagrees(differences) => {
            emit(&format!("FAIL   {}: {}\n", file.display(), differences.join("; ")));
            false
        }
    }
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
    match crate::grader::prepare::prepare(&assignment, &selected).map_err(super::check::planning_failure) {
        Ok(plan) => {
            let files = test_files(&assignment);
            let bad = files.iter().filter(|file| !check_test_file(file)).count();
            if bad > 0 {
                emit(&format!(
                    "FAIL   {}: {bad} of {} {}\n",
                    dir.display(),
                    counted(files.len(), "test file"),
                    is_invalid(bad)
                ));
                return false;
            }
            let points: Points = assignment.questions.iter().map(|q| q.points).sum();
            let generated: u32 = assignment.questions.iter().filter_map(|q| q.generate()).map(|g| g.count).sum();
            let generated =
                if generated > 0 { format!(" and {generated} generated per student") } else { String::new() };
            emit(&format!(
                "ok     {} (assignment: {}, {}{generated}{}, {points} points)\n",
                dir.display(),
                counted(assignment.questions.len(), "question"),
                counted(plan.searches().count() + plan.pacman().count() + plan.calls().count(), "test file"),
                match plan.plays().count() {
                    0 => String::new(),
                    plays => format!(", {plays} played"),
                }
            ));
            true
        }
        Err(failure) => {
            emit(&format!("error  {}: the assignment's tests are invalid\n", dir.display()));
            match failure {
                Failure::Input(errors) => errors.iter().for_each(report_load_error),
                Failure::Usage(message) => eprintln!("error: {message}"),
                Failure::Runtime(error) => super::report_runtime(error.as_ref()),
                Failure::ChecksFailed | Failure::Reported | Failure::Interrupted(_) => {}
            }
            false
        }
    }
}

/// Every file the assignment's questions would run, each once: their test
/// trees (written or given by a game), their Pacman tests, and the game
/// files that play questions play.
fn test_files(assignment: &crate::grader::plan::Assignment) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = Vec::new();
    for question in &assignment.questions {
        let trees = question.tree_tests().iter().map(|test| test.path.clone());
        let pacman = question.pacman_tests().iter().map(|test| test.path.clone());
        let played = question.play().into_iter().filter_map(|play| match &play.game {
            crate::assignment::PlayGame::File(path) => Some(path.clone()),
            crate::assignment::PlayGame::BuiltIn(_) => None,
        });
        for file in trees.chain(pacman).chain(played) {
            if !files.contains(&file) {
                files.push(file);
            }
        }
    }
    files
}

/// Checks one file of an assignment as `validate FILE` would, against its
/// own `expect` blocks; says only what is wrong. True when it is valid.
fn check_test_file(file: &Path) -> bool {
    let verdict = if files::is_pacman(file) { check_pacman(file) } else { check_file(file) };
    match verdict {
        FileVerdict::Valid { .. } => true,
        bad => report_file(file, bad),
    }
}

/// A call test (docs/format.md 11): it loads; what it calls and how it checks.
fn check_call(path: &Path) -> FileVerdict {
    use crate::assignment::calls::{CallCheck, CallTarget};
    let test = match crate::load::calls::load_call_file(path) {
        Ok(test) => test,
        Err(error) => return FileVerdict::Invalid(error),
    };
    let called = match &test.target {
        CallTarget::Function { name, calls } => format!("call: {name}, {}", counted(calls.len(), "call")),
        CallTarget::Variable(name) => format!("call: the value of {name}"),
    };
    let check = match &test.check {
        CallCheck::Equals(_) => "equals",
        CallCheck::EqualsText(_) => "equals_text",
        CallCheck::Boards { .. } => "boards",
        CallCheck::Numbers { .. } => "numbers",
    };
    FileVerdict::Valid { kind: called, checked: vec![format!("check: {check}")] }
}

/// A Pacman test: it loads, and the reference reproduces a replay's recorded path.
fn check_pacman(path: &Path) -> FileVerdict {
    let test = match crate::load::pacman::load_pacman_file(path) {
        Ok(test) => test,
        Err(error) => return FileVerdict::Invalid(error),
    };
    let differences = crate::import::cs188_pacman::replay_differences(&test);
    if !differences.is_empty() {
        return FileVerdict::Disagrees(differences);
    }
    let (kind, checked) = match &test.kind {
        crate::game::pacman::test::PacmanTestKind::Play(play) => {
            (format!("pacman: {} games on {}", play.games, test.layout_name), Vec::new())
        }
        crate::game::pacman::test::PacmanTestKind::Replay(replay) => (
            format!("pacman: the staff's {} moves on {}", replay.steps.len(), test.layout_name),
            vec![format!("{} at depth {}, every step", replay.algorithm, replay.depth)],
        ),
    };
    FileVerdict::Valid { kind, checked }
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
        let kind = match &loaded {
            Loaded::Written(written) => match loaded.players() {
                Some(players) => format!("tree: {}, {players} players", count_nodes(written.tree.len())),
                None => format!("tree: {}", count_nodes(written.tree.len())),
            },
            Loaded::Game(game) => format!("game: {}", game.game.name()),
        };
        FileVerdict::Valid { kind, checked }
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

/// A tree without expectations: every search of section 3 that accepts it
/// (with its own settings, alpha-beta under both conventions), and max^n
/// for a tree with `players`, must not be fragile, and at least one must
/// accept it.
fn check_accepting_searches(loaded: &Loaded) -> Result<(), LoadError> {
    let defaults = loaded.search_defaults();
    let mut candidates = vec![
        SearchSettings::resolve(Algorithm::Minimax, defaults, None, None),
        SearchSettings::resolve(Algorithm::AlphaBeta, defaults, None, Some(true)),
        SearchSettings::resolve(Algorithm::AlphaBeta, defaults, None, Some(false)),
        SearchSettings::resolve(Algorithm::Expectimax, defaults, None, None),
    ];
    // Max^n too for a tree with `players` (docs/format.md 8); iterative
    // deepening and MCTS only where `expect` names them.
    if loaded.players().is_some() {
        candidates.push(SearchSettings::resolve(Algorithm::Maxn, defaults, None, None));
    }
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

/// Expands folders into what they hold, sorted, so output order is stable:
/// a folder holding `assignment.yaml` is one assignment; any other folder
/// gives its `*.yaml` / `*.yml` files, each read as an assignment or a tree.
fn expand(paths: &[PathBuf]) -> Result<Vec<Entry>, Failure> {
    let mut entries = Vec::new();
    for path in paths {
        if path.join(ASSIGNMENT_FILE).is_file() {
            entries.push(Entry::Assignment(path.clone()));
        } else if path.is_dir() {
            let found = files::yaml_files(path)
                .map_err(|e| Failure::from_io(Some(format!("cannot list {}", path.display())), e))?;
            entries.extend(found.into_iter().map(classify));
        } else {
            entries.push(classify(path.clone()));
        }
    }
    Ok(entries)
}

/// Reads a YAML file as an assignment when the loader says it is one; as a tree otherwise.
fn classify(file: PathBuf) -> Entry {
    match files::kind_of(&file) {
        files::FileKind::Assignment => Entry::Assignment(file),
        files::FileKind::Pacman | files::FileKind::Call | files::FileKind::Tree => Entry::Tree(file),
    }
}
