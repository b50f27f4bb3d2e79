//! Pacman tests (docs/format.md section 10): the student's agent plays
//! CS188's Pacman through the protocol's Pacman messages (docs/protocol.md,
//! "Pacman games"), the grader serving every state and drawing the ghosts'
//! moves.
//!
//! - [`server`]: one game's states, numbered, sent once, counted as CS188's
//!   `explored` set counts them;
//! - [`channel`]: the conversation with the program (a game's start, each
//!   move with its successor requests, the end);
//! - [`play`]: whole games scored by thresholds (`EvalAgentTest`);
//! - [`replay`]: the staff's path checked step by step (`PacmanGameTreeTest`);
//! - [`outcome`]: what reports show (intervals from [`crate::stats`],
//!   thresholds as [`crate::thresholds`] has them).

pub mod channel;
pub mod outcome;
pub mod play;
pub mod replay;
pub mod server;

use std::time::Instant;

use channel::Player;
use outcome::{GameEnd, PacmanOutcome, PlayOutcome, ReplayOutcome, ReplayVerdict};

use super::plan::PlannedPacman;
use super::result::{Board, Credit, PacmanDetail, TestDetail, TestHeader, TestResult, TestStatus};
use super::runner::ProgramSpec;
use super::session::{FailureKind, ProgramFailure, SubmissionLimit};
use crate::game::pacman::test::PacmanTestKind;
use crate::shown::shown;

/// Runs the tests, public ones in one program and hidden ones in another
/// (as searches are served), and judges each.
/// Once the submission's `time` is up, the tests left are not run.
pub fn run_tests(spec: &ProgramSpec, tests: &[PlannedPacman], time: Option<SubmissionLimit>) -> Vec<TestResult> {
    let mut results: Vec<Option<TestResult>> = vec![None; tests.len()];
    for hidden in [false, true] {
        let group: Vec<usize> = (0..tests.len()).filter(|&index| tests[index].hidden == hidden).collect();
        if group.is_empty() {
            continue;
        }
        let mut player = Player::new(spec);
        for index in group {
            results[index] = Some(match time.filter(SubmissionLimit::passed) {
                Some(time) => not_run_in_time(&tests[index], &time),
                None => run_one(&tests[index], &mut player),
            });
        }
        player.finish();
    }
    results.into_iter().map(|result| result.expect("every test runs once")).collect()
}

/// The result of a test that could not run: the submission did not build.
pub fn not_run(planned: &PlannedPacman, build: &super::submission::BuildFailure) -> TestResult {
    let mut result = blank(planned);
    result.header.status = TestStatus::Error(FailureKind::BuildFailed);
    result.header.reason = Some(shown(&build.message));
    result.header.details = Some(shown(&build.output));
    result
}

/// The result of a test not run because the submission's time was up.
fn not_run_in_time(planned: &PlannedPacman, time: &SubmissionLimit) -> TestResult {
    let failure = time.not_run();
    let mut result = blank(planned);
    result.header.status = TestStatus::Error(failure.kind);
    result.header.reason = Some(shown(&failure.message));
    result
}

fn blank(planned: &PlannedPacman) -> TestResult {
    let path = planned.path.display().to_string();
    let detail = TestDetail::Pacman(Box::default());
    let mut result = TestResult::new(planned.name.clone(), path, planned.hidden, TestStatus::Passed, detail);
    result.header.description = planned.test.description.as_deref().map(shown);
    result
}

fn run_one(planned: &PlannedPacman, player: &mut Player<'_>) -> TestResult {
    let started = Instant::now();
    let test = &planned.test;
    let mut header = blank(planned).header;
    let mut detail = PacmanDetail::default();
    match &test.kind {
        PacmanTestKind::Play(spec) => {
            let (outcome, failures) = play::play(test, spec, &planned.name, player);
            judge_play(&mut header, &mut detail, &outcome, &failures);
            detail.outcome = Some(PacmanOutcome::Play(outcome));
        }
        PacmanTestKind::Replay(spec) => match replay::replay(test, spec, &planned.name, player) {
            Ok((outcome, failure)) => {
                judge_replay(&mut header, &mut detail, &outcome, failure.as_ref());
                detail.outcome = Some(PacmanOutcome::Replay(outcome));
            }
            Err(problem) => {
                header.status = TestStatus::Error(FailureKind::ProtocolError);
                header.reason = Some(shown(&format!("this test cannot be run: {problem}")));
            }
        },
    }
    header.stderr = shown(&player.take_stderr());
    header.elapsed_ms = started.elapsed().as_millis() as u64;
    TestResult { header, detail: TestDetail::Pacman(Box::new(detail)) }
}

/// A play test passes with every threshold point; it earns its share of them.
fn judge_play(header: &mut TestHeader, detail: &mut PacmanDetail, outcome: &PlayOutcome, failures: &[ProgramFailure]) {
    detail.credit = Some(Credit { earned: outcome.earned, possible: outcome.possible });
    let no_move = outcome.games.iter().all(|game| game.moves == 0);
    if let (true, Some(first)) = (no_move, failures.first()) {
        // Not a single move anywhere: the agent does not run at all (not written yet, does not import, ...).
        header.status = TestStatus::Error(first.kind);
        header.reason = Some(shown(&first.message));
        header.details = first.details.as_deref().map(shown);
        return;
    }
    let mut parts = vec![format!("{} of {} points", outcome.earned, outcome.possible)];
    for criterion in &outcome.criteria {
        let value = if criterion.kind == crate::game::pacman::test::CriterionKind::AverageScore {
            format!("{:.1}", criterion.value)
        } else {
            format!("{}", criterion.value)
        };
        let label = criterion.kind.label();
        match (criterion.met_minimum, criterion.minimum) {
            (false, Some(minimum)) => parts.push(format!("{label} {value}, below the minimum {minimum}: no points")),
            _ => {
                if let Some(missed) = criterion.thresholds.iter().find(|&&t| criterion.value < t) {
                    parts.push(format!("{label} {value}, short of {missed}"));
                }
            }
        }
    }
    let troubled: Vec<String> = outcome
        .games
        .iter()
        .filter(|game| matches!(game.end, GameEnd::Crashed | GameEnd::TimedOut))
        .map(|game| format!("game {} {}", game.game, game.how))
        .collect();
    if let Some(first) = troubled.first() {
        parts.push(if troubled.len() > 1 {
            format!("{first} (and {} more)", troubled.len() - 1)
        } else {
            first.clone()
        });
    }
    let (head, rest) = parts.split_first().expect("the points come first");
    let reason = if rest.is_empty() { head.clone() } else { format!("{head}: {}", rest.join("; ")) };
    header.reason = Some(shown(&reason));
    header.details = failures.first().and_then(|failure| failure.details.as_deref()).map(shown);
    if outcome.earned < outcome.possible || outcome.possible == 0 && outcome.criteria.iter().any(|c| !c.met_minimum) {
        header.status = TestStatus::Failed;
    }
}

fn judge_replay(
    header: &mut TestHeader,
    found: &mut PacmanDetail,
    outcome: &ReplayOutcome,
    failure: Option<&ProgramFailure>,
) {
    let cs188 = outcome.verdict.cs188_message(&outcome.layout);
    match outcome.verdict {
        ReplayVerdict::Passed => return,
        ReplayVerdict::Crashed | ReplayVerdict::TimedOut => {
            let failure = failure.cloned().unwrap_or_else(|| ProgramFailure {
                kind: FailureKind::Crashed,
                message: "the agent stopped".to_string(),
                details: None,
                cause: None,
            });
            let step = outcome.answered + 1;
            let kind = if failure.kind == FailureKind::Exception || failure.kind == FailureKind::NotImplemented {
                failure.kind
            } else if outcome.verdict == ReplayVerdict::TimedOut {
                FailureKind::TimedOut
            } else {
                failure.kind
            };
            header.status = TestStatus::Error(kind);
            header.reason = Some(shown(&format!("{cs188}: at step {step} of {}, {}", outcome.steps, failure.message)));
            header.details = failure.details.as_deref().map(shown);
            return;
        }
        _ => {}
    }
    header.status = TestStatus::Failed;
    let detail = match outcome.verdict {
        ReplayVerdict::WrongStatesExpanded => outcome.first_wrong_count.as_ref().map(|step| {
            format!(
                "at step {} your search explored {} states; a correct {} of depth {} explores {}",
                step.step,
                step.explored,
                outcome.algorithm,
                outcome.depth,
                alternatives(&step.expected_explored.iter().map(ToString::to_string).collect::<Vec<_>>())
            )
        }),
        _ => outcome.first_wrong_action.as_ref().map(|step| {
            let sets: Vec<String> = step.best.iter().map(|set| set.join(" or ")).collect();
            format!(
                "{} of {} moves are not among the best; the first is at step {}: you chose {}, the best are {}",
                outcome.suboptimal_moves,
                outcome.answered,
                step.step,
                step.action,
                alternatives(&sets)
            )
        }),
    };
    let step = match outcome.verdict {
        ReplayVerdict::WrongStatesExpanded => outcome.first_wrong_count.as_ref(),
        _ => outcome.first_wrong_action.as_ref(),
    };
    if let Some(step) = step {
        found.boards.push(Board { label: format!("the position at step {}", step.step), text: step.board.clone() });
        found.expected.action = Some(step.best.first().map(|set| set.join(" or ")).unwrap_or_default());
        found.actual.action = Some(shown(&step.action));
    }
    header.reason = Some(shown(&match detail {
        Some(detail) => format!("{cs188} ({detail})"),
        None => cs188,
    }));
}

/// `59 (with Stop) or 35 (without Stop)`: what the two staff agents give.
fn alternatives(items: &[String]) -> String {
    match items {
        [with, without] if with == without => with.clone(),
        [with, without] => format!("{with} (with Stop) or {without} (without Stop)"),
        other => other.join(" or "),
    }
}
