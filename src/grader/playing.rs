//! Grading a play question: the submission plays a series of games against
//! each opponent, and its points come by thresholds on what it made of them.
//!
//! Each opponent is one test (`q5/random`): passed when the submission
//! reached every threshold of its measures. The question's points are
//! shared among all its thresholds (every opponent's), earned one share per
//! threshold reached; a measure below its minimum makes the whole question
//! 0, as CS188 scores its games. Opponents that are programs (a course's
//! reference or "secret" agent) run in a sandbox of their own, never the
//! submission's.

use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use super::plan::PlannedPlay;
use super::player::ProgramAgent;
use super::result::{MeasureResult, PlayDetails, TestDetail, TestResult, TestStatus};
use super::runner::ProgramSpec;
use super::sandbox::Sandbox;
use super::session::FailureKind;
use super::staging::{Staged, Target, stage};
use super::submission::BuildFailure;
use crate::assignment::{Assignment, MeasureKind, Opponent, OpponentAgent, Play};
use crate::game::Game;
use crate::play::{Agent, MoveLimits, SeriesSetup, Tally, play_series, tally};
use crate::points::Points;
use crate::shown::shown;
use crate::stats::Rate;
use crate::thresholds::{self, Thresholds};

/// What the submission is called in its games.
pub const SUBMISSION: &str = "you";

/// Moves a program is expected to make per game, to size its CPU budget.
const MOVES_PER_GAME: usize = 50;

/// How many moves the submission may be asked for in `play`'s games, for its CPU budget.
pub fn expected_moves(play: &Play) -> usize {
    play.games as usize * play.opponents.len() * MOVES_PER_GAME
}

/// Where the games are played: the submission's program (or why it has none),
/// and what opponents' programs need.
pub struct Arena<'a> {
    /// The assignment (its languages run the opponents' programs).
    pub assignment: &'a Assignment,
    /// The submission's program, or its build failure.
    pub submission: Result<&'a ProgramSpec, &'a BuildFailure>,
    /// The kits folder.
    pub kits: &'a Path,
    /// The sandbox every program runs in (each in its own).
    pub sandbox: &'a Sandbox,
    /// The submission's time in all: once up, no opponent's games start.
    pub time: Option<super::session::SubmissionLimit>,
}

/// Plays one play question: one test per opponent, scored.
pub fn grade_play(arena: &Arena<'_>, planned: &PlannedPlay) -> Vec<TestResult> {
    let question = &arena.assignment.questions[planned.question];
    let play = question.play().expect("a planned play is a play question");
    let mut submission = arena.submission.ok().map(|spec| ProgramAgent::new(SUBMISSION, spec.clone()));
    let mut results: Vec<(TestResult, Vec<Measured>)> = Vec::new();
    for opponent in &play.opponents {
        let name = format!("{}/{}", question.id, opponent.name);
        let started = Instant::now();
        let out_of_time = arena.time.filter(super::session::SubmissionLimit::passed).map(|time| time.not_run());
        let outcome = match (out_of_time, &mut submission, arena.submission) {
            (Some(failure), _, _) => Err((failure.kind, failure.message, None)),
            (None, Some(agent), _) => play_opponent(arena, planned, play, opponent, &name, agent),
            (None, None, Err(failure)) => Err(build_failed(failure)),
            (None, None, Ok(_)) => unreachable!("a program exists when the submission built"),
        };
        let result = match outcome {
            Ok((details, measured)) => {
                let mut result = bare_result(&name, &planned.game, TestStatus::Passed);
                result.header.details = Some(summary(&details));
                result.detail = TestDetail::Play(Some(Box::new(details)));
                results.push((result, measured));
                continue;
            }
            Err((kind, message, details)) => {
                let mut result = bare_result(&name, &planned.game, TestStatus::Error(kind));
                result.header.reason = Some(message);
                result.header.details = details;
                result
            }
        };
        // Nothing was played: every measure is at its lowest.
        let measured = opponent
            .measures
            .iter()
            .map(|m| Measured { kind: m.kind, thresholds: m.thresholds.clone(), value: f64::NEG_INFINITY })
            .collect();
        let mut result = result;
        result.header.elapsed_ms = started.elapsed().as_millis() as u64;
        results.push((result, measured));
    }
    score(question.points, results)
}

/// Why an opponent's games could not be played: the kind, a line, details.
type NotPlayed = (FailureKind, String, Option<String>);

/// One measure of the games against an opponent, with its thresholds.
struct Measured {
    kind: MeasureKind,
    thresholds: Thresholds,
    value: f64,
}

fn build_failed(failure: &BuildFailure) -> NotPlayed {
    (FailureKind::BuildFailed, failure.message.clone(), Some(failure.output.clone()))
}

/// Plays the series against one opponent: its details and the measured values.
fn play_opponent(
    arena: &Arena<'_>,
    planned: &PlannedPlay,
    play: &Play,
    opponent: &Opponent,
    label: &str,
    submission: &mut ProgramAgent,
) -> Result<(PlayDetails, Vec<Measured>), NotPlayed> {
    let setup = SeriesSetup {
        label: label.to_string(),
        games: play.games,
        openings: play.openings,
        seed: play.seed,
        max_plies: play.max_plies,
        limits: MoveLimits { budget: play.budget, time: play.move_time_limit, eval: play.eval.clone() },
    };
    // The opponent's program is staged in a sandbox of its own, kept while it plays.
    let mut _staged: Option<Staged> = None;
    let mut opponent_agent: Box<dyn Agent> = match &opponent.agent {
        OpponentAgent::BuiltIn(builtin) => {
            builtin.check(&*planned.game, play.eval.as_deref()).map_err(|message| {
                (FailureKind::NotStarted, format!("the opponent {} cannot play: {message}", opponent.name), None)
            })?;
            builtin.agent(&opponent.name)
        }
        OpponentAgent::Program(dir) => {
            let target = Target { dir: dir.clone(), command: None, name: Some(opponent.name.clone()) };
            let moves = play.games as usize * MOVES_PER_GAME;
            let prepared =
                stage(&arena.assignment.languages, &target, arena.kits, arena.sandbox, moves, play.move_time_limit)
                    .map_err(|error| course_failure(opponent, &error.to_string(), None))?;
            let spec = match &prepared.program {
                Ok(spec) => spec.clone(),
                Err(failure) => return Err(course_failure(opponent, &failure.message, Some(failure.output.clone()))),
            };
            _staged = Some(prepared);
            Box::new(ProgramAgent::new(opponent.name.clone(), spec))
        }
    };
    let games = play_series(&planned.game, submission, &mut *opponent_agent, &setup, &mut |_| {});
    let tally = tally(&games, SUBMISSION);
    let measured = opponent
        .measures
        .iter()
        .map(|m| Measured { kind: m.kind, thresholds: m.thresholds.clone(), value: measure(&tally, m.kind) })
        .collect();
    let details = PlayDetails {
        game: planned.game.name().to_string(),
        opponent: opponent.name.clone(),
        seed: play.seed,
        openings: play.openings,
        budget: play.budget,
        move_time_limit_ms: play.move_time_limit.as_millis() as u64,
        tally,
        measures: Vec::new(),
        games,
    };
    Ok((details, measured))
}

/// The opponent is the course's: its failure is not the student's.
fn course_failure(opponent: &Opponent, message: &str, details: Option<String>) -> NotPlayed {
    (
        FailureKind::NotStarted,
        format!(
            "the course's opponent {} could not be prepared (not your program's fault; tell your instructor): {}",
            opponent.name,
            shown(message)
        ),
        details.map(|details| shown(&details)),
    )
}

/// The value of a measure in a tally.
pub fn measure(tally: &Tally, kind: MeasureKind) -> f64 {
    match kind {
        MeasureKind::Wins => tally.wins as f64,
        MeasureKind::Draws => tally.draws as f64,
        MeasureKind::NotLost => (tally.wins + tally.draws) as f64,
        MeasureKind::Utility => tally.average_utility(),
        MeasureKind::NoTimeout => tally.without_timeout() as f64,
        MeasureKind::Clean => tally.clean() as f64,
    }
}

/// Shares the question's points among every threshold and fills in each
/// test's score, status and reason.
fn score(points: Points, results: Vec<(TestResult, Vec<Measured>)>) -> Vec<TestResult> {
    let all: Vec<(&Thresholds, f64)> =
        results.iter().flat_map(|(_, measured)| measured.iter().map(|m| (&m.thresholds, m.value))).collect();
    let mut awards = thresholds::award(points, &all).into_iter();
    let any_missed = all.iter().any(|(thresholds, value)| thresholds.misses_minimum(*value));
    let mut scored = Vec::with_capacity(results.len());
    for (mut result, measured) in results {
        let mine: Vec<MeasureResult> = measured
            .into_iter()
            .map(|m| MeasureResult {
                kind: m.kind,
                thresholds: m.thresholds,
                award: awards.next().expect("one award per measure"),
            })
            .collect();
        result.header.score = mine.iter().map(|m| m.award.score).sum();
        result.header.max_score = mine.iter().map(|m| m.award.max_score).sum();
        let TestResult { header, detail } = &mut result;
        if let TestDetail::Play(Some(details)) = detail {
            let short = mine.iter().filter(|m| m.award.reached < m.award.of || m.award.missed_minimum);
            let reasons: Vec<String> = short.map(|m| shortfall(m, &details.tally)).collect();
            if !reasons.is_empty() {
                header.status = TestStatus::Failed;
                header.reason = Some(reasons.join("; "));
            } else if any_missed {
                header.reason = Some(
                    "every threshold reached here, but a minimum against another opponent was missed, so the \
                     question earns 0"
                        .to_string(),
                );
            }
            details.measures = mine;
        }
        scored.push(result);
    }
    scored
}

/// What a measure fell short of, in words.
fn shortfall(result: &MeasureResult, tally: &Tally) -> String {
    let value = result.award.value;
    let measured = match result.kind {
        MeasureKind::Utility => format!("your average utility was {}", format_number(value)),
        kind => {
            let rate = Rate::wilson(value as u64, tally.games);
            format!("{} of {} games {} ({})", value as u64, tally.games, kind.counted(), rate.interval_text())
        }
    };
    let needed = match (result.award.missed_minimum, result.thresholds.minimum) {
        (true, Some(minimum)) => format!("at least {} needed, or the question earns 0", format_number(minimum)),
        _ => {
            let missing: Vec<String> = result
                .thresholds
                .at
                .iter()
                .filter(|&&threshold| value < threshold)
                .map(|&threshold| format_number(threshold))
                .collect();
            format!("thresholds not reached: {}", missing.join(", "))
        }
    };
    format!("{measured}: {needed}")
}

fn format_number(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 { format!("{value:.0}") } else { format!("{value:.3}") }
}

/// A play test with nothing filled in but its name and status.
fn bare_result(name: &str, game: &Arc<dyn Game>, status: TestStatus) -> TestResult {
    TestResult::new(name.to_string(), game.name().to_string(), false, status, TestDetail::Play(None))
}

/// The games in a few lines: results, rates with intervals, failures, the
/// clock, and each game's moves (what text reports and JUnit show).
pub fn summary(details: &PlayDetails) -> String {
    let tally = &details.tally;
    let mut out = String::new();
    let _ = write!(
        out,
        "{} games of {} against {} (seed {}, {} random opening {} per game",
        tally.games,
        details.game,
        details.opponent,
        details.seed,
        details.openings,
        if details.openings == 1 { "ply" } else { "plies" }
    );
    match details.budget {
        Some(budget) => {
            let _ = write!(out, ", {budget} nodes per move");
        }
        None => out.push_str(", no node budget"),
    }
    let _ = writeln!(out, ", {} s per move)", details.move_time_limit_ms as f64 / 1000.0);
    let _ = writeln!(
        out,
        "won {}, drew {}, lost {}: wins {}, not lost {}",
        tally.wins,
        tally.draws,
        tally.losses,
        tally.win_rate().percent_text(),
        tally.not_lost_rate().percent_text()
    );
    let faults: Vec<String> = tally.faults.iter().map(|(kind, count)| format!("{count} {}", kind.words())).collect();
    let _ = writeln!(
        out,
        "failures charged to you: {}; average utility {}",
        if faults.is_empty() { "none".to_string() } else { faults.join(", ") },
        format_number(tally.average_utility())
    );
    if tally.wall_clock_moves > 0 {
        let _ = writeln!(
            out,
            "{} of your {} moves entered no node of the grader's tree (a copy of the rules of your own): only the \
             wall clock bounded them",
            tally.wall_clock_moves, tally.moves
        );
    } else if tally.budget_spent_moves > 0 {
        let _ = writeln!(out, "your node budget ran out in {} of your {} moves", tally.budget_spent_moves, tally.moves);
    }
    for record in &details.games {
        let _ = writeln!(out, "{}: {}: {}", record.label, shown(&record.summary()), shown(&record.move_list()));
    }
    out
}
