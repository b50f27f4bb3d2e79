//! `treegrade check`: grade one submission and print the report.

use std::collections::HashMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::{Args, ValueEnum};

use super::source::AssignmentSource;
use super::{Context, Failure, emit};
use crate::assignment::PlayGame;
use crate::game::Game;
use crate::game::pacman::test::PacmanTest;
use crate::grader::plan::PlannedPacman;
use crate::grader::plan::PlannedPlay;
use crate::grader::plan::{self, Assignment, GameTest, PlannedTest, TestTree};
use crate::grader::sandbox::SandboxMode;
use crate::grader::{self, Target, submission};
use crate::load::assignment::load_assignment_with_hidden;
use crate::load::pacman::load_pacman_file;
use crate::load::{LoadError, Loaded, load_file};
use crate::report::{self, Format};

/// Flags of `treegrade check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The assignment folder, or `games` or `more-searches` for a bundled assignment (default:
    /// $TREEGRADE_ASSIGNMENT, ./assignment.yaml, the one `init` wrote into the submission folder, or the
    /// bundled assignment).
    #[arg(long, value_name = "DIR")]
    assignment: Option<PathBuf>,
    /// The submission folder (default: the current folder).
    #[arg(long, value_name = "DIR", default_value = ".")]
    submission: PathBuf,
    /// Grade only these questions (repeatable, any case), e.g. `-q q2`.
    #[arg(short = 'q', long = "question", value_name = "QUESTION")]
    questions: Vec<String>,
    /// Report format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// Write the report to FILE (the text report still goes to stdout, saying where the report is); `-` is
    /// stdout.
    #[arg(long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Sandbox student programs with every layer this machine allows (auto), refuse to grade
    /// when one is missing (strict), or keep only the built-in defences (off).
    #[arg(long, value_enum, default_value = "auto")]
    sandbox: SandboxMode,
    /// Where the assignment's hidden tests are (instead of its tests folder).
    #[arg(long, value_name = "DIR")]
    hidden: Option<PathBuf>,
    /// The student id that generated questions derive trees from (default: the submission folder's name).
    #[arg(long, value_name = "ID")]
    student: Option<String>,
    /// Also write the report in FORMAT to FILE, from the same run (repeatable): `--report junit=junit.xml`.
    #[arg(long = "report", value_name = "FORMAT=FILE", value_parser = parse_report)]
    pub reports: Vec<(Format, PathBuf)>,
    /// Grade only this test (repeatable): `q2/aima-fig5-2`, or `aima-fig5-2` in every question that has it.
    #[arg(long = "test", value_name = "NAME")]
    pub tests: Vec<String>,
    /// Print only the total (text report).
    #[arg(long, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Also show, for each passed test, the value, action and number of nodes entered (text report).
    #[arg(long)]
    pub verbose: bool,
    /// Run this command instead of detecting the submission's language.
    #[arg(last = true, value_name = "COMMAND")]
    command: Vec<String>,
}

/// A submission folder's name, as the student id.
pub(super) fn student_id(dir: &Path) -> String {
    let absolute = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    let normal: PathBuf = absolute.components().collect();
    normal.file_name().map_or_else(|| "student".to_string(), |n| n.to_string_lossy().into_owned())
}

pub fn run(args: &CheckArgs, context: &Context) -> Result<(), Failure> {
    let sandbox = context.sandbox(args.sandbox);
    sandbox.start_probe();
    let source = AssignmentSource::resolve_for(args.assignment.as_deref(), Some(&args.submission))?;
    let assignment =
        load_assignment_with_hidden(source.dir(), args.hidden.as_deref()).map_err(|e| Failure::Input(vec![e]))?;
    let mut selected = select_questions(&assignment, &args.questions)?;
    let Plan { mut tests, templates, plays, mut pacman } = load_and_plan(&assignment, &selected)?;
    if plan::has_generated(&assignment, &selected) {
        let student = args.student.clone().unwrap_or_else(|| student_id(&args.submission));
        let secret = context.secret().unwrap_or_default();
        if secret.is_empty() {
            eprintln!(
                "note: generated questions use practice trees for `{student}`; the graded ones use the course's secret"
            );
        }
        tests
            .extend(plan::generated_tests(&assignment, &selected, &student, secret, &templates).map_err(plan_failure)?);
    }
    keep_named_tests(&mut tests, &mut pacman, &args.tests)?;
    if !args.tests.is_empty() {
        // Questions none of whose tests were named are not graded, so neither shown nor counted.
        selected.retain(|&question| {
            tests.iter().any(|test| test.question == question) || pacman.iter().any(|test| test.question == question)
        });
    }
    let kits = submission::write_kits().map_err(|e| Failure::Usage(format!("cannot write the starter kits: {e}")))?;
    let target = Target {
        dir: args.submission.clone(),
        command: (!args.command.is_empty()).then(|| args.command.clone()),
        name: None,
    };
    let planned = grader::Planned { tests: &tests, plays: &plays, pacman: &pacman, submission_time_limit: None };
    let report = match grader::grade_all(&assignment, &selected, &planned, &target, kits.path(), &sandbox) {
        Ok(report) => report,
        Err(not_gradable) => {
            let reason = not_gradable.to_string();
            // PrairieLearn expects a results.json in every case.
            if args.format == Format::Prairielearn {
                write_or_emit(args.output.as_deref(), &report::render_prairielearn_not_gradable(&reason))?;
            }
            return Err(Failure::Usage(reason));
        }
    };
    let color = context.color.colors(std::io::stdout().is_terminal());
    // Whoever runs check may be a student (or Gradescope showing one).
    let shown = report::student_view(&report);
    let detail = match (args.quiet, args.verbose) {
        (true, _) => report::Detail::TotalOnly,
        (_, true) => report::Detail::Everything,
        _ => report::Detail::Failures,
    };
    // HTML draws each failed test's tree, so it needs the planned tests.
    let render = |format: Format, color: bool| match format {
        Format::Html => report::render_html(&shown, &tests),
        Format::Text => report::render_text(&shown, color, detail),
        _ => report::render(&shown, format, color),
    };
    for (format, path) in &args.reports {
        write_or_emit(Some(path), &render(*format, false))?;
    }
    match args.output.as_deref().filter(|path| *path != Path::new("-")) {
        Some(path) => {
            write_or_emit(Some(path), &render(args.format, false))?;
            emit(&text_beside_a_file(&render(Format::Text, color), args.format, path));
        }
        None => emit(&render(args.format, color && args.format == Format::Text)),
    }
    if report.all_passed() { Ok(()) } else { Err(Failure::ChecksFailed) }
}

/// The text report shown while `--output` writes `format` to `path`: it
/// says where that report is, in place of the hint to write an HTML report
/// when that is the one just written.
fn text_beside_a_file(text: &str, format: Format, path: &Path) -> String {
    let mut out: String = text
        .lines()
        .filter(|line| format != Format::Html || !report::HTML_HINTS.iter().any(|hint| line.contains(hint)))
        .flat_map(|line| [line, "\n"])
        .collect();
    let name = format.to_possible_value().map_or_else(String::new, |value| value.get_name().to_string());
    out.push_str(&format!("The {name} report is in {}\n", path.display()));
    out
}

/// `FORMAT=FILE` of `--report`.
fn parse_report(text: &str) -> Result<(Format, PathBuf), String> {
    let (format, file) = text.split_once('=').ok_or_else(|| format!("`{text}` is not FORMAT=FILE"))?;
    let format = Format::from_str(format, true).map_err(|_| {
        let names: Vec<String> = Format::value_variants()
            .iter()
            .filter_map(|f| f.to_possible_value())
            .map(|v| v.get_name().to_string())
            .collect();
        format!("unknown format `{format}` (one of {})", names.join(", "))
    })?;
    if file.is_empty() {
        return Err(format!("`{text}` names no file"));
    }
    Ok((format, PathBuf::from(file)))
}

/// Writes a report to `--output`, or to standard output without one.
fn write_or_emit(output: Option<&Path>, text: &str) -> Result<(), Failure> {
    match output {
        Some(path) => {
            std::fs::write(path, text).map_err(|e| Failure::Usage(format!("cannot write {}: {e}", path.display())))
        }
        None => {
            emit(text);
            Ok(())
        }
    }
}

pub(super) fn select_questions(assignment: &Assignment, wanted: &[String]) -> Result<Vec<usize>, Failure> {
    if wanted.is_empty() {
        return Ok((0..assignment.questions.len()).collect());
    }
    wanted
        .iter()
        .map(|id| {
            assignment.questions.iter().position(|q| q.id.eq_ignore_ascii_case(id)).ok_or_else(|| {
                let known: Vec<&str> = assignment.questions.iter().map(|q| q.id.as_str()).collect();
                Failure::Usage(format!("no question `{id}` in this assignment (it has {})", known.join(", ")))
            })
        })
        .collect()
}

/// Keeps the tests `--test` names (all of them when none is named): a full
/// name (`q2/aima-fig5-2`), or a tree's name in any question.
fn keep_named_tests(
    tests: &mut Vec<PlannedTest>,
    pacman: &mut Vec<PlannedPacman>,
    wanted: &[String],
) -> Result<(), Failure> {
    if wanted.is_empty() {
        return Ok(());
    }
    let matches = |test: &str, name: &str| {
        test.eq_ignore_ascii_case(name)
            || test.rsplit_once('/').is_some_and(|(_, tree)| tree.eq_ignore_ascii_case(name))
    };
    let names: Vec<&str> =
        tests.iter().map(|test| test.name.as_str()).chain(pacman.iter().map(|test| test.name.as_str())).collect();
    if let Some(missing) = wanted.iter().find(|name| !names.iter().any(|test| matches(test, name))) {
        let known: Vec<&str> = names.iter().take(6).copied().collect();
        return Err(Failure::Usage(format!(
            "no test `{missing}` in the questions graded (they have {}{})",
            known.join(", "),
            if names.len() > known.len() { ", ..." } else { "" }
        )));
    }
    tests.retain(|test| wanted.iter().any(|name| matches(&test.name, name)));
    pacman.retain(|test| wanted.iter().any(|name| matches(&test.name, name)));
    Ok(())
}

/// Loads every Pacman test of the selected questions (docs/format.md 10).
pub(super) fn load_pacman(assignment: &Assignment, selected: &[usize]) -> Result<Vec<PlannedPacman>, Failure> {
    let mut loaded: HashMap<PathBuf, Arc<PacmanTest>> = HashMap::new();
    let mut errors: Vec<LoadError> = Vec::new();
    for &index in selected {
        for file in assignment.questions[index].pacman_tests() {
            if loaded.contains_key(&file.path) {
                continue;
            }
            match load_pacman_file(&file.path) {
                Ok(test) => {
                    loaded.insert(file.path.clone(), Arc::new(test));
                }
                Err(error) => errors.push(error),
            }
        }
    }
    if !errors.is_empty() {
        return Err(Failure::Input(errors));
    }
    Ok(plan::plan_pacman(assignment, selected, |file| Arc::clone(&loaded[&file.path])))
}

/// A loaded file as a test's tree.
pub(super) fn test_tree(loaded: Loaded) -> TestTree {
    match loaded {
        Loaded::Written(written) => TestTree::Written(Arc::new(written.tree)),
        Loaded::Game(game) => TestTree::Game(Arc::new(GameTest {
            name: game.name().to_string(),
            description: game.description().map(str::to_string),
            game: Arc::clone(&game.game),
            defaults: game.defaults().search,
            options: game.unfold_options(),
        })),
    }
}

/// The game files that the selected questions generate positions of.
fn load_templates(assignment: &Assignment, selected: &[usize]) -> Result<plan::Templates, Failure> {
    let mut templates = plan::Templates::new();
    for &index in selected {
        let Some(game) = assignment.questions[index].generate().and_then(|g| g.game.as_ref()) else { continue };
        if !templates.contains_key(&game.template) {
            let loaded = load_file(&game.template).map_err(|error| Failure::Input(vec![error]))?;
            templates.insert(game.template.clone(), test_tree(loaded));
        }
    }
    Ok(templates)
}

/// What grading an assignment needs, loaded and planned once.
pub(super) struct Plan {
    /// The tests of search questions, with the reference's answers.
    pub tests: Vec<PlannedTest>,
    /// The game files that generated questions advance.
    pub templates: plan::Templates,
    /// The play questions, with their games loaded.
    pub plays: Vec<PlannedPlay>,
    /// The Pacman tests.
    pub pacman: Vec<PlannedPacman>,
}

/// Loads every test tree once and pairs it with the reference's answer; the
/// game files that generated questions advance, and the games that play
/// questions play, come back beside the tests.
pub(super) fn load_and_plan(assignment: &Assignment, selected: &[usize]) -> Result<Plan, Failure> {
    let (tests, templates) = load_and_plan_tests(assignment, selected)?;
    let plays = plan_plays(assignment, selected)?;
    let pacman = load_pacman(assignment, selected)?;
    Ok(Plan { tests, templates, plays, pacman })
}

/// The games of the selected play questions, loaded, each checked against
/// its question (built-in opponents have the evaluations they need).
pub(super) fn plan_plays(assignment: &Assignment, selected: &[usize]) -> Result<Vec<PlannedPlay>, Failure> {
    let mut plays = Vec::new();
    for &index in selected {
        let question = &assignment.questions[index];
        let Some(play) = question.play() else { continue };
        let game = load_play_game(&play.game)?;
        let refuse = |message: String| Failure::Usage(format!("question `{}`: {message}", question.id));
        if let Some(eval) = &play.eval
            && !game.evaluations().contains(eval)
        {
            return Err(refuse(crate::game::unknown_evaluation(
                game.name(),
                eval,
                &game.evaluations().iter().map(String::as_str).collect::<Vec<_>>(),
            )));
        }
        for opponent in &play.opponents {
            if let crate::assignment::OpponentAgent::BuiltIn(builtin) = &opponent.agent {
                builtin.check(&*game, play.eval.as_deref()).map_err(refuse)?;
            }
        }
        plays.push(PlannedPlay { question: index, game });
    }
    Ok(plays)
}

/// A play question's game: a built-in one from its start, or a game file.
pub(super) fn load_play_game(game: &PlayGame) -> Result<Arc<dyn Game>, Failure> {
    match game {
        PlayGame::BuiltIn(name) => {
            crate::game::make(&crate::game::GameArgs { name, params: &[], position: None, utility: None })
                .map(Arc::from)
                .map_err(|error| Failure::Usage(format!("game `{name}`: {}", error.message)))
        }
        PlayGame::File(path) => match load_file(path).map_err(|error| Failure::Input(vec![error]))? {
            Loaded::Game(loaded) => {
                loaded.verify().map_err(|error| Failure::Input(vec![error]))?;
                Ok(Arc::clone(&loaded.game))
            }
            Loaded::Written(_) => Err(Failure::Usage(format!(
                "{}: a play question plays a game (a file with `rules:`), not a written tree",
                path.display()
            ))),
        },
    }
}

/// Loads every test tree once and pairs it with the reference's answer; the
/// game files that generated questions advance come back beside the tests.
fn load_and_plan_tests(
    assignment: &Assignment,
    selected: &[usize],
) -> Result<(Vec<PlannedTest>, plan::Templates), Failure> {
    let mut trees: HashMap<PathBuf, TestTree> = HashMap::new();
    let mut errors: Vec<LoadError> = Vec::new();
    for &index in selected {
        for test in assignment.questions[index].tree_tests() {
            if trees.contains_key(&test.path) {
                continue;
            }
            match load_file(&test.path) {
                Ok(loaded) => {
                    trees.insert(test.path.clone(), test_tree(loaded));
                }
                Err(error) => errors.push(error),
            }
        }
    }
    if !errors.is_empty() {
        return Err(Failure::Input(errors));
    }
    let tests = plan::plan_tests(assignment, selected, |test| trees[&test.path].clone()).map_err(plan_failure)?;
    // A course's rules program must have answered every question the same way twice.
    for (path, tree) in &trees {
        if let TestTree::Game(game) = tree
            && let Err(message) = game.game.verify()
        {
            return Err(Failure::Usage(format!("{}: {message}", path.display())));
        }
    }
    // Generated trees depend on the student; planning them once for a stand-in
    // student finds the settings the reference cannot search before anyone is graded.
    let templates = load_templates(assignment, selected)?;
    plan::generated_tests(assignment, selected, "(assignment check)", "", &templates).map_err(plan_failure)?;
    Ok((tests, templates))
}

/// Tests that do not fit their questions: an error in the assignment (exit 2).
pub(super) fn plan_failure(errors: Vec<plan::PlanError>) -> Failure {
    let lines: Vec<String> = errors.iter().map(|e| format!("{}: {}", e.name, e.message)).collect();
    Failure::Usage(format!("the assignment's tests do not fit their questions:\n  {}", lines.join("\n  ")))
}
