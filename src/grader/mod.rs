//! The grader: runs student searchers as processes and judges their searches.
//!
//! A grading run is a pipeline of plain values: [`prepare`] loads an
//! assignment's files and plans each selected question's tests, of every
//! kind, into one [`prepare::Plan`]; the [`submission`] is staged, built
//! and started ([`stage`]); [`grade_all`] grades the plan a [`Stage`] at
//! a time: searches served to the program through the [`oracle`] over the
//! [`protocol`] by the [`runner`] in a [`session`] and judged by
//! [`verdict`], then calls questions' calls ([`calls`]), then play
//! questions' games ([`playing`]), then Pacman games ([`pacman`]);
//! [`scoring`] awards points, and the [`result`] is
//! what reports read. Nothing here knows YAML: the loader does.

pub mod calls;
pub mod diagnosis;
mod explain;
mod fsmode;
mod interpreter;
pub mod oracle;
pub mod pacman;
pub mod plan;
pub mod player;
pub mod playing;
pub mod prepare;
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

use plan::{Assignment, Planned, PlannedCall, PlannedPacman, PlannedTest};
use prepare::Plan;
use result::{GradeReport, TestResult};
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
    grade_all(assignment, &Plan::of_searches(selected, tests), target, kits, sandbox, None)
}

/// The stages of a grading run, one per kind of test, in the order they run:
/// the searches first, then the games.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Searches served against the reference.
    Searches,
    /// Calls of the program's functions, their answers checked.
    Calls,
    /// Play questions' games against their opponents.
    Plays,
    /// Pacman games (docs/format.md 10).
    Pacman,
}

impl Stage {
    /// Every stage, in the order a run grades them.
    pub const ALL: [Stage; 4] = [Stage::Searches, Stage::Calls, Stage::Plays, Stage::Pacman];

    /// The stage that grades `test`.
    pub fn of(test: &Planned) -> Stage {
        match test {
            Planned::Search(_) => Stage::Searches,
            Planned::Play(_) => Stage::Plays,
            Planned::Pacman(_) => Stage::Pacman,
            Planned::Call(_) => Stage::Calls,
        }
    }
}

/// What the program's CPU budget counts for `test`: how many searches (a
/// move of a game, a whole Pacman game, which may take its test's whole
/// limit) and the longest one may take.
fn budget(assignment: &Assignment, test: &Planned) -> (usize, Duration) {
    match test {
        Planned::Search(_) | Planned::Call(_) => (1, assignment.time_limit),
        Planned::Play(planned) => match assignment.questions[planned.question].play() {
            Some(play) => (playing::expected_moves(play), play.move_time_limit),
            None => (0, assignment.time_limit),
        },
        Planned::Pacman(test) => (test.games(), test.test.game_time_limit),
    }
}

/// One submission's grading run, shared by its stages.
struct Run<'a> {
    assignment: &'a Assignment,
    staged: &'a Staged,
    kits: &'a Path,
    sandbox: &'a Sandbox,
    /// The whole submission's limit, if any.
    submission: Option<SubmissionLimit>,
}

/// Grades one submission on `plan` in `sandbox`, a stage at a time;
/// `submission_time_limit` is the most time the whole grading may take
/// (`batch --submission-timeout`; `None`: no limit beyond each test's).
pub fn grade_all(
    assignment: &Assignment,
    plan: &Plan,
    target: &Target,
    kits: &Path,
    sandbox: &Sandbox,
    submission_time_limit: Option<Duration>,
) -> Result<GradeReport, NotGradable> {
    let started = Instant::now();
    let (searches, per_search) = (plan.tests.iter().map(|test| budget(assignment, test)))
        .fold((0, assignment.time_limit), |(count, longest), (n, limit)| (count + n, longest.max(limit)));
    let staged = stage(&assignment.languages, target, kits, sandbox, searches, per_search)?;
    let submission = submission_time_limit.map(|limit| SubmissionLimit::new(started, limit));
    let run = Run { assignment, staged: &staged, kits, sandbox, submission };
    let mut graded = Vec::new();
    for stage in Stage::ALL {
        let tests: Vec<&Planned> = plan.tests.iter().filter(|test| Stage::of(test) == stage).collect();
        graded.extend(grade_stage(&run, stage, &tests));
    }
    let questions = scoring::score(assignment, &plan.selected, graded);
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

/// Grades one stage's tests (all of them of its kind), each result with its question's index.
fn grade_stage(run: &Run<'_>, stage: Stage, tests: &[&Planned]) -> Vec<(usize, TestResult)> {
    match stage {
        Stage::Searches => {
            let tests: Vec<PlannedTest> = tests
                .iter()
                .filter_map(|test| if let Planned::Search(test) = test { Some(test.clone()) } else { None })
                .collect();
            let results = grade_searches(run, &tests);
            tests.iter().map(|test| test.question).zip(results).collect()
        }
        Stage::Calls => {
            let tests: Vec<PlannedCall> = tests
                .iter()
                .filter_map(|test| if let Planned::Call(test) = test { Some(test.clone()) } else { None })
                .collect();
            let results = match &run.staged.program {
                _ if tests.is_empty() => Vec::new(),
                Ok(spec) => calls::run_tests(spec, &tests, run.assignment.time_limit, run.submission),
                Err(failure) => tests.iter().map(|test| calls::not_run(test, failure)).collect(),
            };
            tests.iter().map(|test| test.question).zip(results).collect()
        }
        Stage::Plays => {
            let arena = playing::Arena {
                assignment: run.assignment,
                submission: run.staged.program.as_ref(),
                kits: run.kits,
                sandbox: run.sandbox,
                time: run.submission,
            };
            let plays = tests.iter().filter_map(|test| if let Planned::Play(play) = test { Some(play) } else { None });
            plays
                .flat_map(|play| playing::grade_play(&arena, play).into_iter().map(|result| (play.question, result)))
                .collect()
        }
        Stage::Pacman => {
            let tests: Vec<PlannedPacman> = tests
                .iter()
                .filter_map(|test| if let Planned::Pacman(test) = test { Some(test.clone()) } else { None })
                .collect();
            let results = match &run.staged.program {
                _ if tests.is_empty() => Vec::new(),
                Ok(spec) => pacman::run_tests(spec, &tests, run.submission),
                Err(failure) => tests.iter().map(|test| pacman::not_run(test, failure)).collect(),
            };
            tests.iter().map(|test| test.question).zip(results).collect()
        }
    }
}

/// Serves every search, judges it against the reference, names the
/// mistakes, and serves again alone the failed tests that ran after others.
fn grade_searches(run: &Run<'_>, tests: &[PlannedTest]) -> Vec<TestResult> {
    let limits = SessionLimits { per_search: run.assignment.time_limit, submission: run.submission };
    // Each test's tree for its search; a game's is unfolded for this submission alone.
    let served: Vec<plan::Served<'_>> = tests.iter().map(PlannedTest::served).collect();
    let records = match &run.staged.program {
        Err(failure) => vec![build_failure_record(failure); tests.len()],
        Ok(spec) => serve_public_then_hidden(spec, tests, &served, limits),
    };
    let earlier: Vec<usize> = records.iter().map(|record| record.earlier_in_program).collect();
    let mut results: Vec<_> = (tests.iter().zip(&served))
        .zip(records)
        .map(|((test, tree), record)| verdict::judge(test, &**tree, record))
        .collect();
    diagnosis::diagnose_submission(tests, &served, &mut results);
    if let Ok(spec) = &run.staged.program {
        recheck_alone(spec, tests, &earlier, &mut results, limits);
    }
    results
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
    results: &mut [TestResult],
    limits: SessionLimits,
) {
    let suspects = (0..tests.len())
        .filter(|&index| earlier[index] > 0 && results[index].diagnosis().is_none())
        .filter(|&index| results[index].header.status != result::TestStatus::Passed)
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
            if let Some(search) = results[index].search_mut() {
                search.diagnosis = Some(diagnosis::state_between_tests_seen_elsewhere(&before, confirmed));
            }
            continue;
        }
        let tree = test.served();
        let Some(alone) = session::run_searches(spec, &[SearchJob::for_test(test, &tree)], limits).pop() else { break };
        if verdict::judge(test, &*tree, alone).header.status != result::TestStatus::Passed {
            break;
        }
        confirmed += 1;
        if let Some(search) = results[index].search_mut() {
            search.diagnosis = Some(diagnosis::state_between_tests(&before));
        }
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
