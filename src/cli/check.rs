//! `treegrade check`: grade one submission and print the report.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Args;

use super::source::AssignmentSource;
use super::{Context, Failure, emit};
use crate::assignment::PlayGame;
use crate::game::Game;
use crate::grader::plan;
use crate::grader::prepare::{self, PlanningError};
use crate::grader::sandbox::SandboxMode;
use crate::grader::{self, Target, submission};
use crate::load::assignment::load_assignment_with_hidden;
use crate::report::{self, Format, Offer, Rendering};

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
    #[arg(long, value_parser = super::report_format::parser(Offer::Check), default_value = "text")]
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
    #[arg(long = "report", value_name = "FORMAT=FILE", value_parser = super::report_format::parse_report)]
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
    let selected = prepare::select(&assignment, &args.questions).map_err(planning_failure)?;
    let mut plan = prepare::prepare(&assignment, &selected).map_err(planning_failure)?;
    if plan::has_generated(&assignment, &selected) {
        let student = args.student.clone().unwrap_or_else(|| student_id(&args.submission));
        let secret = context.secret().unwrap_or_default();
        if secret.is_empty() {
            eprintln!(
                "note: generated questions use practice trees for `{student}`; the graded ones use the course's secret"
            );
        }
        plan = plan
            .for_student(&assignment, &student, secret)
            .map_err(|errors| planning_failure(PlanningError::Unfit(errors)))?;
    }
    plan.keep_named(&args.tests).map_err(planning_failure)?;
    let kits = submission::write_kits().map_err(|e| Failure::runtime("cannot write the starter kits", e))?;
    let target = Target {
        dir: args.submission.clone(),
        command: (!args.command.is_empty()).then(|| args.command.clone()),
        name: None,
    };
    let report = match grader::grade_all(&assignment, &plan, &target, kits.path(), &sandbox, None) {
        Ok(report) => report,
        Err(not_gradable) => {
            let reason = not_gradable.to_string();
            // PrairieLearn expects a results.json in every case.
            if args.format == Format::Prairielearn {
                write_or_emit(args.output.as_deref(), &report::render_prairielearn_not_gradable(&reason))?;
            }
            return Err(Failure::not_gradable(not_gradable));
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
    // HTML draws each failed test's tree, so it needs the planned searches.
    let searches = crate::batch::drawables(plan.searches());
    let render =
        |format: Format, color: bool| format.render(&Rendering { report: &shown, tests: &searches, color, detail });
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
    out.push_str(&format!("The {} report is in {}\n", format.name(), path.display()));
    out
}

/// Writes a report to `--output`, or to standard output without one.
fn write_or_emit(output: Option<&Path>, text: &str) -> Result<(), Failure> {
    match output {
        Some(path) => {
            std::fs::write(path, text).map_err(|e| Failure::runtime(format!("cannot write {}", path.display()), e))
        }
        None => {
            emit(text);
            Ok(())
        }
    }
}

/// An assignment that cannot be planned, as the command line reports it:
/// files that do not load with their places, anything else in a line (exit 2).
pub(super) fn planning_failure(error: PlanningError) -> Failure {
    match error {
        PlanningError::Load(errors) => Failure::Input(errors),
        other => Failure::Usage(other.to_string()),
    }
}

/// A play question's game (for `play` and `tournament`, which play one too).
pub(super) fn load_play_game(game: &PlayGame) -> Result<Arc<dyn Game>, Failure> {
    prepare::load_play_game(game).map_err(planning_failure)
}
