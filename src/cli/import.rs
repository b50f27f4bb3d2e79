//! `treegrade import`: turn another autograder's tests into tree files.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};

mod mit6034;

use super::{Failure, emit};
use crate::compare::count_nodes;
use crate::game::pacman::test::{PacmanTest, PacmanTestKind};
use crate::import::course::{self, CourseTest, CourseTestKind, QuestionConfig};
use crate::import::cs188::{self, Agent, ImportErrorKind};
use crate::import::cs188_pacman;
use crate::load::load_tree_str;
use crate::load::pacman::load_pacman_str;
use crate::load::write::{assignment_to_yaml, pacman_to_yaml, tree_to_yaml};

/// Flags of `treegrade import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    #[command(subcommand)]
    format: ImportFormat,
}

#[derive(Debug, Subcommand)]
enum ImportFormat {
    /// CS188 multiagent tests: a distribution folder, its `test_cases`, or `.test` files (with
    /// the `.solution` beside each): game trees, Pacman game tests and whole games.
    Cs188(Cs188Args),
    /// MIT 6.034's games lab: its folder (`tests.py`, `lab2.py` or `lab3.py`, ...), whose search
    /// tests become trees graded through the MIT 6.034 kit, named `NN-function` after MIT's tests.
    Mit6034(Mit6034Args),
}

/// Flags of `treegrade import mit6034`.
#[derive(Debug, Args)]
struct Mit6034Args {
    /// The lab's folder, as MIT hands it out (`tests.py`, `tester.py`, `game_api.py`,
    /// `toytree.py`, `boards.py`, and `lab2.py` or `lab3.py`).
    dist: PathBuf,
    /// The course folder to write (created if missing): `assignment.yaml`, a `README.md`
    /// for students, and `tests/NN-function.yaml`, one tree per search test.
    #[arg(long, short)]
    output: PathBuf,
}

/// Flags of `treegrade import cs188`.
#[derive(Debug, Args)]
struct Cs188Args {
    /// A CS188 distribution folder (its `test_cases` and `layouts`), `.test` files, or folders
    /// searched recursively for them.
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
    /// The converted file could not be written: the import stops, a runtime failure.
    Unwritten(PathBuf, std::io::Error),
}

/// Runs `treegrade import`: exit 0 when every test imported (or, for MIT
/// 6.034, was listed as not graded yet), 2 when any failed.
pub fn run(args: &ImportArgs, context: &super::Context) -> Result<(), Failure> {
    match &args.format {
        ImportFormat::Cs188(args) => run_cs188(args),
        ImportFormat::Mit6034(args) => mit6034::run(&args.dist, &args.output, context),
    }
}

fn run_cs188(args: &Cs188Args) -> Result<(), Failure> {
    let files = expand(&args.paths)?;
    if files.is_empty() {
        return Err(Failure::Usage("no `.test` files found in the given paths".to_string()));
    }
    let tests_dir = args.output.join(TESTS_DIR);
    std::fs::create_dir_all(&tests_dir)
        .map_err(|e| Failure::runtime(format!("cannot create {}", tests_dir.display()), e))?;
    let mut written: HashMap<PathBuf, PathBuf> = HashMap::new();
    let (mut imported, mut skipped, mut failed) = (Vec::new(), 0, 0);
    for file in &files {
        let outcome = match skip_reason(file) {
            Some(reason) => {
                emit(&format!("skip   {}: {reason}\n", file.display()));
                Outcome::Skipped
            }
            None => import_one(file, &tests_dir, &mut written),
        };
        match outcome {
            Outcome::Written(test) => imported.push(test),
            Outcome::Skipped => skipped += 1,
            Outcome::Failed => failed += 1,
            Outcome::Unwritten(path, error) => {
                return Err(Failure::runtime(format!("cannot write {}", path.display()), error));
            }
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
    let draft = course::course_draft(&name, imported, &configs).map_err(|error| Failure::Usage(error.to_string()))?;
    let target = output.join("assignment.yaml");
    let yaml = assignment_to_yaml(&draft);
    let written =
        std::fs::write(&target, &yaml).and_then(|()| std::fs::write(output.join("README.md"), handout(&draft)));
    written.map_err(|e| Failure::runtime(format!("cannot write {}", target.display()), e))?;
    // The assignment must load back; anything else is a bug worth reporting.
    crate::load::assignment::load_assignment(&target).map_err(|error| Failure::Input(vec![error]))?;
    let questions: Vec<String> = draft
        .questions
        .iter()
        .map(|q| {
            format!(
                "{} ({}, {} points)",
                q.id,
                crate::compare::counted(q.tests.len() + q.pacman.len(), "test"),
                q.points
            )
        })
        .collect();
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
            .map_err(|e| Failure::from_io(Some(format!("cannot read {}", config.display())), e))?;
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
         code asks it anything (getLegalActions, generateSuccessor, isWin, isLose, getScore).\n{}",
        draft.title,
        questions.join("\n"),
        if draft.questions.iter().any(|q| !q.pacman.is_empty()) {
            "\nIt plays CS188's Pacman games with your agents too, by CS188's rules: the whole games of your \
             ReflexAgent and of your evaluation function, scored by CS188's thresholds (each game has its own \
             seed, so the same code gets the same games on every run), and the Pacman game test of each search \
             question, where at every move your agent's action must be one of the best and its search must \
             explore as many states as a correct one. The report lists every game; with `--format html` each \
             game can be replayed on its board.\n"
        } else {
            ""
        }
    )
}

/// Why CS188's autograder would not run this test, if it would not: a
/// test marked `disabled`, or a question its `test_cases/CONFIG` leaves
/// out of its `order`.
fn skip_reason(file: &Path) -> Option<String> {
    let text = std::fs::read_to_string(file).ok()?;
    let fields = cs188::parse_fields(&text, file).ok()?;
    if fields.get("disabled").is_some_and(|field| field.value.trim().eq_ignore_ascii_case("true")) {
        return Some("the test is disabled (`disabled: \"true\"`): CS188 does not run it".to_string());
    }
    let question = file.parent()?;
    let config = question.parent()?.join("CONFIG");
    let order = std::fs::read_to_string(&config).ok()?;
    let order = cs188::parse_fields(&order, &config).ok()?.get("order")?.value.clone();
    let name = question.file_name()?.to_string_lossy().into_owned();
    (!order.split_whitespace().any(|listed| listed == name))
        .then(|| format!("{} grades only `{}`, not the folder `{name}`", config.display(), order.trim()))
}

/// Imports one test, of whichever class, and prints one line.
fn import_one(file: &Path, output: &Path, written: &mut HashMap<PathBuf, PathBuf>) -> Outcome {
    let class = std::fs::read_to_string(file)
        .ok()
        .and_then(|text| cs188::parse_fields(&text, file).ok())
        .and_then(|fields| fields.get("class").map(|field| field.value.trim().to_string()));
    match class.as_deref() {
        Some(cs188_pacman::EVAL_AGENT_CLASS | cs188_pacman::GAME_TREE_CLASS) => import_pacman(file, output, written),
        _ => import_tree(file, output, written),
    }
}

/// Imports a game-tree test, writes its tree, prints one line.
fn import_tree(file: &Path, output: &Path, written: &mut HashMap<PathBuf, PathBuf>) -> Outcome {
    let import = match cs188::import_file(file) {
        Ok(import) => import,
        Err(error) => {
            if let ImportErrorKind::UnsupportedClass { class } = &error.kind {
                emit(&format!(
                    "skip   {}: class {class} is not one treegrade runs (it runs {}, {} and {})\n",
                    file.display(),
                    cs188::GRAPH_TEST_CLASS,
                    cs188_pacman::GAME_TREE_CLASS,
                    cs188_pacman::EVAL_AGENT_CLASS
                ));
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
        return Outcome::Unwritten(target, error);
    }
    written.insert(target.clone(), file.to_path_buf());
    let test = CourseTest {
        question: file.parent().and_then(question_of).unwrap_or_else(|| "tests".to_string()),
        kind: CourseTestKind::Tree(import.agent),
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

/// Imports a Pacman test (a whole-game test or a game test with its
/// `.solution`), checks a game test's recorded path against treegrade's
/// reference, writes it, prints one line.
fn import_pacman(file: &Path, output: &Path, written: &mut HashMap<PathBuf, PathBuf>) -> Outcome {
    let fail = |message: String| {
        emit(&format!("error  {message}\n"));
        Outcome::Failed
    };
    let text = match std::fs::read_to_string(file) {
        Ok(text) => text,
        Err(error) => return fail(format!("{}: cannot read the file: {error}", file.display())),
    };
    let solution_file = cs188::solution_path(file);
    let solution = std::fs::read_to_string(&solution_file).ok();
    let imported = match cs188::parse_fields(&text, file) {
        Ok(fields) if fields.get("class").is_some_and(|c| c.value.trim() == cs188_pacman::EVAL_AGENT_CLASS) => {
            cs188_pacman::import_eval_agent_test(&text, file)
        }
        Ok(_) => {
            cs188_pacman::import_game_tree_test(&text, file, solution.as_deref().map(|s| (s, solution_file.as_path())))
        }
        Err(error) => Err(error),
    };
    let test = match imported {
        Ok(test) => test,
        Err(error) => return fail(error.to_string()),
    };
    let target = output.join(format!("{}.yaml", test.name));
    if let Some(first) = written.get(&target) {
        return fail(format!("{}: {} is already written from {}", file.display(), target.display(), first.display()));
    }
    let source = cs188_pacman::short_path(file);
    let yaml = pacman_to_yaml(&test, &[format!("Imported by `treegrade import cs188` from {source}.")]);
    // The file must load back as the same test; anything else is a bug worth reporting.
    match load_pacman_str(&yaml, &target) {
        Ok(back) if back == test => {}
        Ok(_) => return fail(format!("{}: the converted test does not read back the same", file.display())),
        Err(error) => return fail(format!("{}: the converted test does not load: {error}", file.display())),
    }
    let differences = cs188_pacman::replay_differences(&test);
    if let Err(error) = std::fs::write(&target, &yaml) {
        return Outcome::Unwritten(target, error);
    }
    written.insert(target.clone(), file.to_path_buf());
    let (kind, notes) = pacman_kind(&test);
    if !differences.is_empty() {
        let shown: Vec<&str> = differences.iter().take(3).map(String::as_str).collect();
        emit(&format!(
            "FAIL   {} -> {}: treegrade's reference disagrees with the solution at {} places: {}\n",
            file.display(),
            target.display(),
            differences.len(),
            shown.join("; ")
        ));
        return Outcome::Failed;
    }
    emit(&format!("ok     {} -> {} ({notes})\n", file.display(), target.display()));
    let question = file.parent().and_then(question_of).unwrap_or_else(|| "tests".to_string());
    Outcome::Written(CourseTest { question, kind, file_name: format!("{}.yaml", test.name) })
}

/// A Pacman test's kind for the course, and what the import line says of it.
fn pacman_kind(test: &PacmanTest) -> (CourseTestKind, String) {
    match &test.kind {
        PacmanTestKind::Play(play) => {
            let title = if test.agent.arguments.iter().any(|(key, _)| key == "evalFn") {
                "Evaluation Function".to_string()
            } else if test.agent.class == "ReflexAgent" {
                "Reflex Agent".to_string()
            } else {
                test.agent.class.clone()
            };
            let notes = format!(
                "{} games of {} on {}, {} threshold points",
                play.games,
                test.agent.class,
                test.layout_name,
                play.points()
            );
            (CourseTestKind::Play(title), notes)
        }
        PacmanTestKind::Replay(replay) => {
            let agent = match replay.algorithm {
                crate::engine::Algorithm::Minimax => Agent::Minimax,
                crate::engine::Algorithm::AlphaBeta => Agent::AlphaBeta,
                // A replay is CS188's: minimax, alphabeta or expectimax.
                crate::engine::Algorithm::Expectimax
                | crate::engine::Algorithm::IterativeDeepening
                | crate::engine::Algorithm::Maxn
                | crate::engine::Algorithm::Mcts => Agent::Expectimax,
            };
            let notes = format!(
                "the staff's {} moves on {}, {} at depth {}, every step reproduced by the reference",
                replay.steps.len(),
                test.layout_name,
                replay.algorithm,
                replay.depth
            );
            (CourseTestKind::Replay(agent), notes)
        }
    }
}

/// Files as given, folders searched recursively for `*.test` (in name
/// order, for a stable order).
fn expand(paths: &[PathBuf]) -> Result<Vec<PathBuf>, Failure> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            let found =
                crate::walk::files(path, |_| false).map_err(|e| Failure::from_system(None, e.source.kind(), e))?;
            files.extend(found.into_iter().filter(|file| file.extension().is_some_and(|e| e == "test")));
        } else {
            files.push(path.clone());
        }
    }
    Ok(files)
}
