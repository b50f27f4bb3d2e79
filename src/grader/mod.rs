//! The grader: runs student searchers as processes and judges their searches.
//!
//! A grading run is a pipeline of plain values: an assignment's questions
//! become [`plan::PlannedTest`]s; the [`submission`] is built and started;
//! each test is served to the program through the [`oracle`] over the
//! [`protocol`] by the [`runner`] in a [`session`]; [`verdict`] compares the
//! recorded searches with the reference and awards points. Nothing here
//! knows YAML: trees and assignments arrive as plain data.

pub mod diagnosis;
mod explain;
mod fsmode;
mod interpreter;
pub mod oracle;
pub mod pacman;
pub mod plan;
pub mod player;
pub mod playing;
pub mod protocol;
pub mod result;
pub mod rules_program;
pub mod runner;
pub mod sandbox;
pub mod scoring;
pub mod scratch;
pub mod session;
mod staging;
pub mod submission;
pub mod usage;
pub mod verdict;

use std::path::Path;
use std::time::{Duration, Instant};

use plan::{Assignment, PlannedTest};
use result::GradeReport;
use sandbox::{Sandbox, SandboxMode};
use session::{FailureKind, ProgramFailure, SearchJob, SearchRecord, SessionLimits, SubmissionLimit};
pub use staging::{NotGradable, Staged, Target, stage};

/// Grades one submission on the planned tests with the built-in defences
/// only (process group, time limits, output caps, empty environment,
/// scratch folder): a library caller has no trampoline. The command line
/// grades through [`grade_sandboxed`], with the treegrade binary as one.
pub fn grade(
    assignment: &Assignment,
    selected: &[usize],
    tests: &[PlannedTest],
    target: &Target,
    kits: &Path,
) -> Result<GradeReport, NotGradable> {
    grade_sandboxed(assignment, selected, tests, target, kits, &Sandbox::new(SandboxMode::Auto, None))
}

/// Grades one submission on the planned tests in `sandbox`. In strict mode,
/// a missing layer makes the submission not gradable, naming the layer.
pub fn grade_sandboxed(
    assignment: &Assignment,
    selected: &[usize],
    tests: &[PlannedTest],
    target: &Target,
    kits: &Path,
    sandbox: &Sandbox,
) -> Result<GradeReport, NotGradable> {
    let planned = Planned { tests, plays: &[], pacman: &[], submission_time_limit: None };
    grade_all(assignment, selected, &planned, target, kits, sandbox)
}

/// What a grading run does: searches against the reference, and games.
#[derive(Clone, Copy, Debug)]
pub struct Planned<'a> {
    /// The tests of search questions, with the reference's answers.
    pub tests: &'a [PlannedTest],
    /// The play questions, with their games loaded.
    pub plays: &'a [plan::PlannedPlay],
    /// The Pacman tests (docs/format.md 10), played after the searches.
    pub pacman: &'a [plan::PlannedPacman],
    /// The most time the whole grading may take (`batch
    /// --submission-timeout`); `None`: no limit beyond each test's.
    pub submission_time_limit: Option<Duration>,
}

/// Grades one submission on the planned tests and plays in `sandbox`: the
/// searches first, then the games.
pub fn grade_all(
    assignment: &Assignment,
    selected: &[usize],
    planned: &Planned<'_>,
    target: &Target,
    kits: &Path,
    sandbox: &Sandbox,
) -> Result<GradeReport, NotGradable> {
    let started = Instant::now();
    let tests = planned.tests;
    let moves = playing::expected_moves(assignment, planned.plays);
    let per_search = planned
        .plays
        .iter()
        .filter_map(|planned| assignment.questions[planned.question].play())
        .map(|play| play.move_time_limit)
        .chain(planned.pacman.iter().map(|test| test.test.game_time_limit))
        .fold(assignment.time_limit, Duration::max);
    // A Pacman game may take its test's whole limit: the budget counts each game as a search.
    let games: usize = planned.pacman.iter().map(plan::PlannedPacman::games).sum();
    let staged = stage(&assignment.languages, target, kits, sandbox, tests.len() + moves + games, per_search)?;
    let submission = planned.submission_time_limit.map(|limit| SubmissionLimit::new(started, limit));
    let limits = SessionLimits { per_search: assignment.time_limit, submission };
    // Each test's tree for its search; a game's is unfolded for this submission alone.
    let served: Vec<plan::Served<'_>> = tests.iter().map(PlannedTest::served).collect();
    let records = match &staged.program {
        Err(failure) => vec![build_failure_record(failure); tests.len()],
        Ok(spec) => serve_public_then_hidden(spec, tests, &served, limits),
    };
    let spec = staged.program.as_ref().ok();
    let earlier: Vec<usize> = records.iter().map(|record| record.earlier_in_program).collect();
    let mut results: Vec<_> = (tests.iter().zip(&served))
        .zip(records)
        .map(|((test, tree), record)| verdict::judge(test, &**tree, record))
        .collect();
    diagnosis::diagnose_submission(tests, &served, &mut results);
    if let Some(spec) = spec {
        recheck_alone(spec, tests, &earlier, &mut results, limits);
    }
    let arena = playing::Arena { assignment, submission: staged.program.as_ref(), kits, sandbox, time: submission };
    let mut played: Vec<(usize, result::TestResult)> = planned
        .plays
        .iter()
        .filter(|planned| selected.contains(&planned.question))
        .flat_map(|planned| playing::grade_play(&arena, planned).into_iter().map(|result| (planned.question, result)))
        .collect();
    let pacman_results = match &staged.program {
        _ if planned.pacman.is_empty() => Vec::new(),
        Ok(spec) => pacman::run_tests(spec, planned.pacman, submission),
        Err(failure) => planned.pacman.iter().map(|test| pacman::not_run(test, failure)).collect(),
    };
    played.extend(planned.pacman.iter().map(|test| test.question).zip(pacman_results));
    let questions = scoring::score(assignment, selected, tests, results, played);
    let (score, max_score) = scoring::totals(&questions);
    Ok(GradeReport {
        assignment: assignment.name.clone(),
        title: assignment.title.clone(),
        submission: target.name(),
        language: staged.language_name(target),
        questions,
        score,
        max_score,
        elapsed_ms: started.elapsed().as_millis() as u64,
        sandbox: staged.prepared.layers.clone(),
    })
}

/// Serves the public tests in one program, then the hidden tests in a fresh
/// one, and gives the records back in the tests' order. A program that has
/// seen a hidden tree never serves a public test after it, so nothing it
/// learnt there can reach a public test's output (the student's view of a
/// hidden test shows none of its output either).
fn serve_public_then_hidden(
    spec: &runner::ProgramSpec,
    tests: &[PlannedTest],
    served: &[plan::Served<'_>],
    limits: SessionLimits,
) -> Vec<SearchRecord> {
    let (public, hidden): (Vec<usize>, Vec<usize>) = (0..tests.len()).partition(|&index| !tests[index].hidden);
    let mut records: Vec<Option<SearchRecord>> = (0..tests.len()).map(|_| None).collect();
    for group in [public, hidden] {
        if group.is_empty() {
            continue;
        }
        let jobs: Vec<SearchJob<'_>> =
            group.iter().map(|&index| SearchJob::for_test(&tests[index], &served[index])).collect();
        for (index, record) in group.into_iter().zip(session::run_searches(spec, &jobs, limits)) {
            records[index] = Some(record);
        }
    }
    records.into_iter().map(|record| record.expect("every test is served once")).collect()
}

/// At most this many failed tests are served again, alone, per submission
/// (a program start and one search each); past them, once state is
/// confirmed, the others are told so without a rerun of their own.
const MOST_RECHECKS: usize = 12;

/// Serves each failed test that no search mistake explains and that ran
/// after others in the same program again, alone, in a fresh program. One
/// that passes there failed because of state the program kept from the
/// earlier tests (a global, a memo table that is never cleared): the
/// diagnosis says so and names those tests. The grade stands; the student
/// learns why. The first test that fails alone too ends the rechecks: its
/// program's trouble is not state, and the others likely share it.
fn recheck_alone(
    spec: &runner::ProgramSpec,
    tests: &[PlannedTest],
    earlier: &[usize],
    results: &mut [result::TestResult],
    limits: SessionLimits,
) {
    let suspects = (0..tests.len())
        .filter(|&index| earlier[index] > 0 && results[index].diagnosis.is_none())
        .filter(|&index| results[index].status != result::TestStatus::Passed)
        .collect::<Vec<_>>();
    let mut confirmed = 0;
    for (rank, &index) in suspects.iter().enumerate() {
        let test = &tests[index];
        // Public and hidden tests each have their programs, served in order.
        let before: Vec<&str> = tests[..index]
            .iter()
            .rev()
            .filter(|other| other.hidden == test.hidden)
            .take(earlier[index])
            .map(|other| other.name.as_str())
            .collect();
        if rank >= MOST_RECHECKS {
            results[index].diagnosis = Some(diagnosis::state_between_tests_seen_elsewhere(&before, confirmed));
            continue;
        }
        let tree = test.served();
        let Some(alone) = session::run_searches(spec, &[SearchJob::for_test(test, &tree)], limits).pop() else { break };
        if verdict::judge(test, &*tree, alone).status != result::TestStatus::Passed {
            break;
        }
        confirmed += 1;
        results[index].diagnosis = Some(diagnosis::state_between_tests(&before));
    }
}

fn build_failure_record(failure: &submission::BuildFailure) -> SearchRecord {
    SearchRecord {
        answer: Err(ProgramFailure {
            kind: FailureKind::BuildFailed,
            message: failure.message.clone(),
            details: Some(failure.output.clone()),
            cause: None,
        }),
        visited: Vec::new(),
        time_up: false,
        steps: session::SearchSteps::default(),
        stderr: String::new(),
        elapsed: Duration::ZERO,
        earlier_in_program: 0,
    }
}
