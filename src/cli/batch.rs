//! `treegrade batch` and `treegrade merge`: grade a folder of submissions
//! into a gradebook, and combine the outputs of shards.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};

use super::check::planning_failure;
use super::source::AssignmentSource;
use super::{Context, Failure, emit};
use crate::batch::gradebook::{GradingStatus, StoredResult};
use crate::batch::shard::Shard;
use crate::batch::{BatchConfig, Event, Grading, GradingSettings, list_submissions, output, run_batch};
use crate::grader::prepare;
use crate::grader::sandbox::SandboxMode;
use crate::grader::{submission, usage};
use crate::load::assignment::load_assignment_with_hidden;

/// Flags of `treegrade batch`.
#[derive(Debug, Args)]
pub struct BatchArgs {
    /// A folder with one subfolder per submission; the subfolder's name is the student id.
    submissions: PathBuf,
    /// The assignment folder (default: $TREEGRADE_ASSIGNMENT, ./assignment.yaml, or the bundled assignment).
    #[arg(long, value_name = "DIR")]
    assignment: Option<PathBuf>,
    /// Submissions graded at once (default: the number of cores).
    #[arg(long, short, value_name = "N")]
    jobs: Option<usize>,
    /// Where the gradebook, summary and reports go.
    #[arg(long, value_name = "DIR", default_value = "grading-output")]
    out: PathBuf,
    /// Where the assignment's hidden tests are (instead of its tests folder).
    #[arg(long, value_name = "DIR")]
    hidden: Option<PathBuf>,
    /// Per-test time limit in seconds, more than 0 and at most 3600 (overrides the assignment's).
    #[arg(long, value_name = "S", value_parser = parse_timeout, allow_negative_numbers = true)]
    timeout: Option<f64>,
    /// The most time one submission's grading may take in all, in seconds (more than 0, at most 86400): past it,
    /// its remaining tests are not run, and its report says which and why.
    #[arg(long, value_name = "S", default_value = "300", value_parser = parse_submission_timeout, allow_negative_numbers = true)]
    submission_timeout: f64,
    /// Memory limit of a student program, in MB (32 to 65536).
    #[arg(long, value_name = "MB", default_value = "1024", value_parser = parse_memory, allow_negative_numbers = true)]
    memory: u64,
    /// Sandbox student programs with every layer this machine allows (auto), refuse to grade
    /// when one is missing (strict), or keep only the built-in defences (off).
    #[arg(long, value_enum, default_value = "auto")]
    sandbox: SandboxMode,
    /// Grade only shard K of N (K/N), for fanning out over CI jobs; see `merge`.
    #[arg(long, value_name = "K/N")]
    shard: Option<Shard>,
    /// Regrade every submission, even those unchanged since the last run.
    #[arg(long)]
    force: bool,
}

/// Flags of `treegrade merge`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Output folders of `treegrade batch` runs, or of `treegrade tournament` runs (e.g. one per shard).
    #[arg(required = true)]
    outputs: Vec<PathBuf>,
    /// The merged output folder.
    #[arg(long, short, value_name = "DIR", default_value = "grading-output")]
    out: PathBuf,
    /// The assignment the outputs were graded on (default: $TREEGRADE_ASSIGNMENT, ./assignment.yaml, or the bundled one).
    #[arg(long, value_name = "DIR")]
    assignment: Option<PathBuf>,
    /// Where the assignment's hidden tests are.
    #[arg(long, value_name = "DIR")]
    hidden: Option<PathBuf>,
}

pub fn run(args: &BatchArgs, context: &Context) -> Result<(), Failure> {
    let source = AssignmentSource::resolve(args.assignment.as_deref())?;
    let assignment_dir = source.dir().to_path_buf();
    let mut assignment =
        load_assignment_with_hidden(&assignment_dir, args.hidden.as_deref()).map_err(|e| Failure::Input(vec![e]))?;
    if let Some(seconds) = args.timeout {
        assignment.time_limit = Duration::from_secs_f64(seconds);
    }
    let selected: Vec<usize> = (0..assignment.questions.len()).collect();
    let plan = prepare::prepare(&assignment, &selected).map_err(planning_failure)?;
    let listing = list_submissions(&args.submissions).map_err(|e| Failure::from_system(None, e.kind(), e))?;
    for (entry, reason) in &listing.skipped {
        eprintln!("skipped {entry}: {reason}");
    }
    let mut submissions = listing.submissions;
    if let Some(shard) = args.shard {
        submissions.retain(|s| shard.contains(&s.student));
    }
    crate::batch::shard::write_marker(&args.out, args.shard)
        .map_err(|e| Failure::runtime(format!("cannot record the shard in {}", args.out.display()), e))?;
    let kits = submission::write_kits().map_err(|e| Failure::runtime("cannot write the starter kits", e))?;
    let config = BatchConfig {
        jobs: args.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get())),
        out: args.out.clone(),
        force: args.force,
        settings: GradingSettings {
            time_limit: assignment.time_limit,
            memory_mb: args.memory,
            sandbox: args.sandbox,
            submission_time_limit: Duration::from_secs_f64(args.submission_timeout),
        },
    };
    let stop = stop_on_interrupt()?;
    // Ctrl-C ends the programs being graded at once, not after their tests.
    crate::grader::runner::stop_all_when(Arc::clone(&stop));
    let progress = Progress::new(submissions.len());
    let secret = context.secret().unwrap_or_default().to_string();
    let sandbox = context.sandbox(args.sandbox).with_memory_mb(args.memory);
    let missing = sandbox.probe().missing();
    if args.sandbox == SandboxMode::Strict && !missing.is_empty() {
        return Err(Failure::Usage(format!(
            "--sandbox strict: refusing to grade, because these sandbox layers are unavailable: {}",
            missing.join("; ")
        )));
    }
    let grading =
        Grading { assignment: &assignment, plan: &plan, kits: kits.path(), secret: &secret, sandbox: &sandbox };
    let results = run_batch(&grading, &submissions, &config, &stop, |event| progress.record(event))
        .map_err(|e| Failure::from_io(Some(format!("batch into {}", config.out.display())), e))?;
    progress.finish();
    if stop.load(Ordering::SeqCst) {
        return Err(Failure::Interrupted(interrupted(&results, submissions.len(), &config)));
    }
    emit(&closing_line(&results, submissions.len(), &config));
    // A run that graded nothing (every submission unchanged) has no share to tell.
    if let Some(times) = usage::cpu_times().filter(|_| progress.graded.get() > 0) {
        let total = (times.own + times.children).as_secs_f64().max(f64::EPSILON);
        eprintln!(
            "CPU time: grader {:.2} s, student programs and builds {:.2} s (grader {:.1}%)",
            times.own.as_secs_f64(),
            times.children.as_secs_f64(),
            100.0 * times.own.as_secs_f64() / total
        );
    }
    Ok(())
}

/// The one message of an interrupted batch: what it kept, and how to go on.
fn interrupted(results: &[StoredResult], total: usize, config: &BatchConfig) -> String {
    let left = total - results.len();
    format!(
        "interrupted: the submissions being graded were stopped and left ungraded. Kept in {}/gradebook.csv: \
         {} of {total} submissions, graded. Run the same command again to grade the {left} left (those graded \
         are not graded again).",
        config.out.display(),
        results.len()
    )
}

fn parse_seconds(text: &str, flag: &str, most: f64) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(seconds) if seconds > 0.0 && seconds <= most => Ok(seconds),
        _ => Err(format!("give {flag} in seconds, more than 0 and at most {most}")),
    }
}

fn parse_timeout(text: &str) -> Result<f64, String> {
    parse_seconds(text, "a test's time limit", 3600.0)
}

fn parse_submission_timeout(text: &str) -> Result<f64, String> {
    parse_seconds(text, "a submission's time limit", 86_400.0)
}

fn parse_memory(text: &str) -> Result<u64, String> {
    match text.trim().parse::<u64>() {
        Ok(megabytes) if (32..=65_536).contains(&megabytes) => Ok(megabytes),
        _ => Err("give a student program's memory limit in MB, a whole number from 32 to 65536".to_string()),
    }
}

pub fn run_merge(args: &MergeArgs) -> Result<(), Failure> {
    let tournament =
        !args.outputs.is_empty() && args.outputs.iter().all(|output| crate::tournament::is_tournament(output));
    check_shards(&args.outputs, tournament)?;
    if tournament {
        let standings = crate::tournament::merge(&args.outputs, &args.out)
            .map_err(|error| Failure::from_io(Some(format!("merge into {}", args.out.display())), error))?;
        emit(&format!(
            "merged {} agents' games from {} outputs into {}\n",
            standings.rows.len(),
            args.outputs.len(),
            args.out.join("standings.csv").display()
        ));
        return Ok(());
    }
    let source = AssignmentSource::resolve(args.assignment.as_deref())?;
    let assignment_dir = source.dir().to_path_buf();
    let assignment =
        load_assignment_with_hidden(&assignment_dir, args.hidden.as_deref()).map_err(|e| Failure::Input(vec![e]))?;
    let selected: Vec<usize> = (0..assignment.questions.len()).collect();
    let count =
        output::merge(&args.outputs, &args.out, &assignment, &selected).map_err(|e| Failure::from_io(None, e))?;
    emit(&format!("merged {count} students from {} outputs into {}\n", args.outputs.len(), args.out.display()));
    Ok(())
}

/// Refuses outputs that are given twice, or shards of which one is missing
/// or doubled: a merged gradebook (or standings) must hold everyone once.
fn check_shards(outputs: &[PathBuf], tournament: bool) -> Result<(), Failure> {
    let mut held = Vec::new();
    for output in outputs {
        let shard = if tournament {
            let manifest = crate::tournament::read_manifest(output).map_err(|e| Failure::from_io(None, e))?;
            manifest.shard.map(|shard| shard.parse::<Shard>()).transpose().map_err(|e| Failure::Usage(e.to_string()))?
        } else {
            crate::batch::shard::read_marker(output).map_err(|e| Failure::from_system(None, e.kind(), e))?
        };
        let resolved = std::fs::canonicalize(output).unwrap_or_else(|_| output.clone());
        held.push((output.clone(), resolved, shard));
    }
    crate::batch::shard::check_complete(&held).map_err(|problems| Failure::Usage(format!("nothing merged: {problems}")))
}

/// The first Ctrl-C (or SIGTERM) lets running submissions finish and starts
/// no more; a second one ends the process at once.
pub(super) fn stop_on_interrupt() -> Result<Arc<AtomicBool>, Failure> {
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register_conditional_shutdown(signal, 130, Arc::clone(&stop))
            .and_then(|_| signal_hook::flag::register(signal, Arc::clone(&stop)))
            .map_err(|e| Failure::runtime("cannot handle interrupts", e))?;
    }
    Ok(stop)
}

fn closing_line(results: &[StoredResult], total: usize, config: &BatchConfig) -> String {
    let problems = results.iter().filter(|r| r.status != GradingStatus::Ok).count();
    format!(
        "graded {} of {total} submissions ({problems} with problems): {}, {}\n",
        results.len(),
        config.out.join("gradebook.csv").display(),
        config.out.join("summary.md").display()
    )
}

/// A progress bar on a terminal; plain lines elsewhere and when `CI` is set.
struct Progress {
    bar: Option<ProgressBar>,
    total: usize,
    done: std::cell::Cell<usize>,
    /// Submissions graded in this run (not skipped as unchanged).
    graded: std::cell::Cell<usize>,
}

impl Progress {
    fn new(total: usize) -> Progress {
        let interactive = std::io::stderr().is_terminal() && std::env::var_os("CI").is_none();
        let bar = interactive.then(|| {
            let bar = ProgressBar::new(total as u64);
            bar.set_style(
                ProgressStyle::with_template("{bar:40} {pos}/{len} graded, ETA {eta} {msg}")
                    .expect("the template is valid"),
            );
            bar
        });
        Progress { bar, total, done: std::cell::Cell::new(0), graded: std::cell::Cell::new(0) }
    }

    fn record(&self, event: &Event) {
        self.done.set(self.done.get() + 1);
        let (verb, result) = match event {
            Event::Skipped(result) => ("unchanged", result),
            Event::Graded(result) => {
                self.graded.set(self.graded.get() + 1);
                ("graded", result)
            }
        };
        let line =
            format!("{verb} {}: {}/{} ({})", result.student, result.score, result.max_score, result.status.name());
        match &self.bar {
            Some(bar) => {
                bar.set_message(line);
                bar.inc(1);
            }
            None => eprintln!("[{}/{}] {line}", self.done.get(), self.total),
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
