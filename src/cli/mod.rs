//! The `treegrade` command line: parses flags and wires the layers together.
//!
//! Exit status: 0 success, 1 a check failed (`check`: a test; `play`: an
//! agent lost by failing), 2 a usage or input error, 3 a runtime failure
//! (an output that could not be written, a disk that filled up: the input
//! was fine), 130 interrupted (a batch or tournament stopped by Ctrl-C or
//! SIGTERM, its finished work kept). README's "Exit status" says what
//! success is for each command. Errors go to stderr; stdout carries only
//! results; a runtime failure prints its cause chain (`error: ...`, then
//! `  caused by: ...` lines).

mod batch;
mod check;
mod color;
mod completions;
mod context;
mod generate;
mod gradescope;
mod import;
mod init;
mod play;
mod render;
mod report_format;
mod sandbox_exec;
mod setting_flags;
mod solve;
mod source;
mod tournament;
mod validate;

use std::error::Error;
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};

pub use context::{Context, SECRET_VARIABLE};

use crate::engine::Algorithm;
use crate::load::LoadError;

/// What each exit status means, for `--help` and the manual page (README's
/// "Exit status" has the same as a table).
const EXIT_STATUS: &str = "Exit status:
  0    success: check, every test passed; batch, every submission graded (whatever its grade);
       play, the game played to its end; tournament, every pair played; the others, done
  1    check, a test failed; play, an agent lost by failing (a crash, a time out, an illegal move)
  2    a usage or input error (a bad flag, an invalid file, a refused merge)
  3    a runtime failure: the input was fine, but something could not be done (an output not
       written, a folder not read, a disk full); the error and its causes are printed
  130  batch or tournament stopped by Ctrl-C or SIGTERM; the finished work is kept: run it again";

/// Reference engine and autograder for adversarial search over YAML game trees.
#[derive(Debug, Parser)]
#[command(name = "treegrade", version, about, max_term_width = 100, after_help = EXIT_STATUS)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
    /// When to colour output: auto (on a terminal, unless NO_COLOR is set; CLICOLOR_FORCE forces it), always, never.
    #[arg(long, global = true, value_enum, default_value = "auto", value_name = "WHEN")]
    color: color::ColorChoice,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Search a tree with the reference engine and print value, action and visited order.
    Solve(solve::SolveArgs),
    /// Check tree files and their `expect` blocks against the reference engine.
    Validate(validate::ValidateArgs),
    /// Grade a submission: run it, compare value, action and visited order, report.
    Check(check::CheckArgs),
    /// Grade a folder of submissions in parallel into a gradebook, reports and a summary.
    Batch(batch::BatchArgs),
    /// Combine the outputs of `batch` runs (e.g. shards) into one gradebook, or of `tournament` runs into one standings.
    Merge(batch::MergeArgs),
    /// Play every agent against every other and baselines; rate them into standings.csv and standings.html.
    Tournament(tournament::TournamentArgs),
    /// Play a game in the terminal against an agent (board, legal moves, undo), or `--watch A B`.
    Play(play::PlayArgs),
    /// Generate random trees with `expect` blocks, deterministic per seed.
    Gen(generate::GenArgs),
    /// Package an assignment as a Gradescope autograder zip.
    Gradescope(gradescope::GradescopeArgs),
    /// Set up a folder with the starter code, the kit and the handout.
    Init(init::InitArgs),
    /// Convert another autograder's tests into tree files (`import cs188 PATH... -o DIR`).
    Import(import::ImportArgs),
    /// Draw a tree as SVG or HTML: shapes, visit steps, pruning, windows, a student's trace.
    Render(render::RenderArgs),
    /// Print a shell completion script: `treegrade completions bash > /etc/bash_completion.d/treegrade`.
    Completions(completions::CompletionsArgs),
    /// Print the manual page (roff): `treegrade man > treegrade.1`.
    Man,
    /// The sandbox's trampoline: applies a policy, then runs a student's command (internal).
    #[command(name = "__sandbox-exec", hide = true)]
    SandboxExec(sandbox_exec::SandboxExecArgs),
}

/// Output formats shared by the commands that print results.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TextOrJson {
    /// Human-readable text.
    Text,
    /// One JSON object.
    Json,
}

/// The `--algorithm` values, read from the engine's one list of algorithms
/// (`Algorithm::ALL`, with each one's name and description).
pub fn algorithm_parser() -> impl clap::builder::TypedValueParser<Value = Algorithm> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    let values = Algorithm::ALL.map(|algorithm| PossibleValue::new(algorithm.name()).help(algorithm.description()));
    PossibleValuesParser::new(values).map(|name| name.parse::<Algorithm>().expect("a listed algorithm's name"))
}

/// The command line as it is parsed: every number flag lets a negative
/// number reach its parser (clap's own tip for `-1`, "use '-- -1'", is
/// wrong for a flag's value), and a whole-number flag without a parser of
/// its own says what it takes ("expects a whole number from 0 to N"). A
/// flag with its own parser and range sets `allow_negative_numbers` itself
/// and is left as it is.
fn command() -> clap::Command {
    with_number_flags(Cli::command())
}

fn with_number_flags(command: clap::Command) -> clap::Command {
    use std::any::TypeId;
    command.mut_subcommands(with_number_flags).mut_args(|arg| {
        if !arg.get_action().takes_values() || arg.is_allow_negative_numbers_set() {
            return arg;
        }
        let kind = arg.get_value_parser().type_id();
        let arg = if kind == TypeId::of::<u64>() {
            arg.value_parser(|text: &str| whole::<u64>(text, u64::MAX.into()))
        } else if kind == TypeId::of::<u32>() {
            arg.value_parser(|text: &str| whole::<u32>(text, u32::MAX.into()))
        } else if kind == TypeId::of::<usize>() {
            arg.value_parser(|text: &str| whole::<usize>(text, usize::MAX as u128))
        } else if kind == TypeId::of::<f64>() {
            arg
        } else {
            return arg;
        };
        arg.allow_negative_numbers(true)
    })
}

/// A whole number from 0 to `max`, or what the flag expects.
fn whole<T: TryFrom<u128>>(text: &str, max: u128) -> Result<T, String> {
    let expected = || format!("expects a whole number from 0 to {max}");
    let number: u128 = text.trim().parse().map_err(|_| expected())?;
    if number > max {
        return Err(expected());
    }
    T::try_from(number).map_err(|_| expected())
}

/// How a command ended.
#[derive(Debug)]
pub enum Failure {
    /// Invalid input, explained by these errors: exit 2.
    Input(Vec<LoadError>),
    /// Invalid input, already reported file by file on stdout (`validate`,
    /// `import`): exit 2.
    Reported,
    /// A usage problem in words, exit 2.
    Usage(String),
    /// Checks ran and some failed (or, for `play`, an agent lost by
    /// failing: a crash, a time out, an illegal move), exit 1.
    ChecksFailed,
    /// Stopped by Ctrl-C or SIGTERM; the message says what was kept and how
    /// to go on. Exit 130, as a shell reports a process ended by SIGINT.
    Interrupted(String),
    /// Something could not be done though the input was fine (an output
    /// not written, a folder not read, a process not started, a disk full):
    /// exit 3, with the error's cause chain.
    Runtime(Box<dyn Error + Send + Sync>),
}

/// What could not be done, and the error that stopped it.
#[derive(Debug, thiserror::Error)]
#[error("{what}")]
pub struct RuntimeError {
    what: String,
    #[source]
    cause: Box<dyn Error + Send + Sync>,
}

impl Failure {
    /// A runtime failure: `what` could not be done because of `cause`.
    pub fn runtime(what: impl Into<String>, cause: impl Into<Box<dyn Error + Send + Sync>>) -> Failure {
        Failure::Runtime(Box::new(RuntimeError { what: what.into(), cause: cause.into() }))
    }

    /// An I/O error from a layer that both refuses input and writes files
    /// (batch, tournament and merge outputs, starters): a refusal (a folder
    /// that is not there or not an output, one already in use, one holding
    /// something else) is an input error, exit 2, worded `{what}: {error}`
    /// as ever; a failure of the system (permission, a full disk, a path
    /// through a file) is a runtime failure, exit 3.
    pub fn from_io(what: Option<String>, error: std::io::Error) -> Failure {
        Failure::from_system(what, error.kind(), error)
    }

    /// As [`Failure::from_io`], for an error that wraps an I/O error of this `kind`.
    pub fn from_system<E: Error + Send + Sync + 'static>(
        what: Option<String>,
        kind: std::io::ErrorKind,
        error: E,
    ) -> Failure {
        use std::io::ErrorKind::*;
        let refused =
            matches!(kind, NotFound | AlreadyExists | InvalidInput | InvalidData | WouldBlock | IsADirectory | Other);
        match (what, refused) {
            (Some(what), true) => Failure::Usage(format!("{what}: {error}")),
            (None, true) => Failure::Usage(error.to_string()),
            (Some(what), false) => Failure::runtime(what, error),
            (None, false) => Failure::Runtime(Box::new(error)),
        }
    }

    /// A submission that cannot be graded: exit 2 when it or the flags are
    /// at fault, a runtime failure when the grader's own scratch space failed.
    pub fn not_gradable(error: crate::grader::NotGradable) -> Failure {
        match error.is_input() {
            true => Failure::Usage(error.to_string()),
            false => Failure::Runtime(Box::new(error)),
        }
    }
}

/// The lines a runtime failure prints: the error, then each cause. A
/// message that ends with its cause's text (`cannot write x: Permission
/// denied`) gives the cause a line of its own; a cause it already spells
/// out elsewhere is not repeated.
fn cause_chain(error: &(dyn Error + 'static)) -> Vec<String> {
    let mut lines = vec![error.to_string()];
    let mut next = error.source();
    while let Some(cause) = next {
        next = cause.source();
        let text = cause.to_string();
        let last = lines.last_mut().expect("the error's own line");
        if let Some(before) = last.strip_suffix(&text).map(|before| before.trim_end_matches([':', ' ']))
            && !before.is_empty()
        {
            *last = before.to_string();
        } else if last.contains(&text) {
            continue;
        }
        lines.push(text);
    }
    lines
}

/// Prints a runtime failure: `error: <what>`, then `  caused by: <cause>` lines.
fn report_runtime(error: &(dyn Error + 'static)) {
    let style = error_style();
    let lines = cause_chain(error);
    anstream::eprintln!("{}error:{} {}", style.render(), style.render_reset(), lines[0]);
    for cause in &lines[1..] {
        anstream::eprintln!("  caused by: {cause}");
    }
}

/// Runs the command line and returns the process exit status.
pub fn main() -> ExitCode {
    let cli = Cli::from_arg_matches(&command().get_matches()).unwrap_or_else(|error| error.exit());
    cli.color.install();
    let context = Context::resolve(cli.color);
    // A course's rules program runs in the sandbox a student's program would.
    let rules_sandbox = context.sandbox(crate::grader::sandbox::SandboxMode::Auto);
    crate::game::program::set_launcher(crate::grader::rules_program::launcher(rules_sandbox));
    if !matches!(cli.command, Command::SandboxExec(_)) {
        // Not the trampoline: it must write its own /proc/self/uid_map.
        keep_memory_private();
    }
    let result = match cli.command {
        Command::Solve(args) => solve::run(&args),
        Command::Validate(args) => validate::run(&args),
        Command::Check(args) => check::run(&args, &context),
        Command::Batch(args) => batch::run(&args, &context),
        Command::Merge(args) => batch::run_merge(&args),
        Command::Tournament(args) => tournament::run(&args, &context),
        Command::Play(args) => play::run(&args, &context),
        Command::Gen(args) => generate::run(&args),
        Command::Gradescope(args) => gradescope::run(&args, &context),
        Command::Init(args) => init::run(&args),
        Command::Import(args) => import::run(&args, &context),
        Command::Render(args) => render::run(&args),
        Command::Completions(args) => completions::run(&args),
        Command::Man => completions::run_man(),
        Command::SandboxExec(args) => return sandbox_exec::run(&args, &context),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::ChecksFailed) => ExitCode::from(1),
        Err(Failure::Reported) => ExitCode::from(2),
        Err(Failure::Input(errors)) => {
            for error in &errors {
                report_load_error(error);
            }
            ExitCode::from(2)
        }
        Err(Failure::Interrupted(message)) => {
            anstream::eprintln!("{message}");
            ExitCode::from(130)
        }
        Err(Failure::Usage(message)) => {
            anstream::eprintln!("{}error:{} {message}", error_style().render(), error_style().render_reset());
            ExitCode::from(2)
        }
        Err(Failure::Runtime(error)) => {
            report_runtime(&*error);
            ExitCode::from(3)
        }
    }
}

/// Makes this process non-dumpable: its memory and environment (the course's
/// `TREEGRADE_SECRET`, the hidden tests it holds) cannot be read through
/// `/proc/PID/mem` or `/proc/PID/environ` by a student program that runs as
/// the same user. The trampoline's `exec` of a student program resets it.
fn keep_memory_private() {
    // Nothing to do where the kernel refuses: the other layers still stand.
    crate::grader::sandbox::set_not_dumpable();
}

/// Writes results to stdout. A reader that went away (`treegrade solve | head`)
/// is not an error: the process ends quietly, as Unix tools do.
pub fn emit(text: &str) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    if let Err(error) = stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()) {
        if error.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        report_runtime(&RuntimeError { what: "cannot write to stdout".to_string(), cause: error.into() });
        std::process::exit(3);
    }
}

/// Prints a load error to stderr with a snippet, in colour on a terminal.
pub fn report_load_error(error: &LoadError) {
    // `--color` is installed in anstream, which strips styles where they must not show.
    anstream::eprint!("{}", error.render(true));
}

fn error_style() -> anstyle::Style {
    anstyle::Style::new().bold().fg_color(Some(anstyle::AnsiColor::Red.into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn io(text: &str) -> std::io::Error {
        std::io::Error::new(std::io::ErrorKind::PermissionDenied, text.to_string())
    }

    #[test]
    fn a_runtime_failure_prints_each_cause_on_its_own_line() {
        let Failure::Runtime(error) = Failure::runtime("cannot write out.txt", io("Permission denied")) else {
            unreachable!()
        };
        assert_eq!(cause_chain(&*error), ["cannot write out.txt", "Permission denied"]);
    }

    #[test]
    fn a_cause_spelled_out_in_its_message_gets_its_own_line_once() {
        #[derive(Debug, thiserror::Error)]
        #[error("cannot list the submissions in sub: {source}")]
        struct Listing {
            #[source]
            source: std::io::Error,
        }
        let error = Listing { source: io("Permission denied") };
        assert_eq!(cause_chain(&error), ["cannot list the submissions in sub", "Permission denied"]);
        #[derive(Debug, thiserror::Error)]
        #[error("({source}) while listing")]
        struct Inside {
            #[source]
            source: std::io::Error,
        }
        assert_eq!(cause_chain(&Inside { source: io("Permission denied") }), ["(Permission denied) while listing"]);
        let same = Failure::runtime("Permission denied", io("Permission denied"));
        let Failure::Runtime(same) = same else { unreachable!() };
        assert_eq!(cause_chain(&*same), ["Permission denied"]);
    }

    #[test]
    fn refusals_are_input_errors_and_system_failures_runtime_ones() {
        use std::io::{Error, ErrorKind};
        let refused = Failure::from_io(Some("batch into out".into()), Error::other("out holds another assignment"));
        assert!(
            matches!(&refused, Failure::Usage(message) if message == "batch into out: out holds another assignment")
        );
        let full = Failure::from_io(Some("batch into out".into()), Error::from(ErrorKind::StorageFull));
        assert!(matches!(full, Failure::Runtime(_)));
        let not_a_folder = Failure::from_io(None, Error::from(ErrorKind::NotADirectory));
        assert!(matches!(not_a_folder, Failure::Runtime(_)));
    }
}
