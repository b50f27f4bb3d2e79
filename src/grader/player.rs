//! Programs as players: a student's agent, or a course's, chooses each move
//! of a game over the protocol (docs/protocol.md, "Playing games").
//!
//! For every move the grader unfolds the game from the current position
//! and serves it through an [`Oracle`] for moves, with the move's node
//! budget: the program enters nodes as in any search (the grader counts
//! them), is told `timeup` when the budget is spent, and answers with its
//! move. The time limit of a move stays as a safety net; it counts the
//! program's own CPU time, so that an agent is not charged for a machine
//! kept busy by other games, with [`WALL_CLOCK_NET`] times the limit of
//! wall clock as the last net (for a program that waits). A program
//! that enters no node searched a copy of the rules of its own: only the
//! wall clock bounded it, and its moves say so ([`Clock::Wall`]).
//!
//! One program serves every move of every game it plays, so an interpreter
//! starts once. Between its moves it is stopped (SIGSTOP), so it can
//! neither think on its opponent's time nor slow the opponent down. A
//! failure that stops it (a crash, a timeout, a protocol error) costs the
//! game it happened in; a fresh program plays the next.

use std::time::{Duration, Instant};

use super::oracle::Oracle;
use super::protocol::{ToProgram, encode};
use super::runner::{ProgramSpec, RunningProgram};
use super::session::{self, FailureKind, ProgramFailure, Stop};
use crate::game::{DEFAULT_MAX_NODES, UnfoldOptions};
use crate::play::{Agent, Choice, Clock, Fault, FaultKind, Turn};
use crate::shown::shown;
use crate::tree::NodeIndex;

/// Seeds sent to programs fit in 53 bits, so that every language's JSON
/// numbers (JavaScript's, the Rust kit's doubles) read them exactly.
const SEED_BITS: u64 = (1 << 53) - 1;

/// A move ends at this many times its time limit of wall clock, whatever
/// CPU time the program has used.
pub const WALL_CLOCK_NET: u32 = 3;

/// A program at play, started on its first move.
pub struct ProgramAgent {
    name: String,
    spec: ProgramSpec,
    program: Option<RunningProgram>,
    failed_starts: usize,
}

impl ProgramAgent {
    /// The program `spec` starts, under the name reports give it.
    pub fn new(name: impl Into<String>, spec: ProgramSpec) -> ProgramAgent {
        ProgramAgent { name: name.into(), spec, program: None, failed_starts: 0 }
    }

    /// The running program, started (and greeted) if it is not yet.
    fn running(&mut self, deadline: Instant, limit: Duration) -> Result<&mut RunningProgram, Fault> {
        if self.program.is_none() {
            if self.failed_starts >= session::MAX_FAILED_STARTS {
                return Err(Fault::new(
                    FaultKind::Crashed,
                    format!(
                        "your program was not started again: it failed to start {} times in a row",
                        session::MAX_FAILED_STARTS
                    ),
                ));
            }
            match session::start_and_greet(&self.spec, deadline, limit) {
                Ok(program) => {
                    self.program = Some(program);
                    self.failed_starts = 0;
                }
                Err((failure, stderr)) => {
                    self.failed_starts += 1;
                    return Err(fault_of(failure, stderr));
                }
            }
        }
        Ok(self.program.as_mut().expect("started above"))
    }
}

impl Agent for ProgramAgent {
    fn name(&self) -> &str {
        &self.name
    }

    fn choose(&mut self, turn: &Turn<'_>) -> Result<Choice, Fault> {
        let limit = turn.limits.time;
        let deadline = Instant::now() + limit;
        let options = UnfoldOptions { name: None, eval: turn.limits.eval.clone(), max_nodes: DEFAULT_MAX_NODES };
        let tree = turn
            .game
            .unfold(&options)
            .map_err(|message| Fault::new(FaultKind::Crashed, format!("the game could not be served: {message}")))?;
        let program = self.running(deadline, limit)?;
        program.resume();
        // The limit is the agent's own CPU time: on a machine busy with other
        // games (or a neighbour's fork bomb) it is not charged for waiting.
        program.count_cpu(limit, deadline + limit * (WALL_CLOCK_NET - 1));
        let mut oracle = Oracle::for_move(&*tree).with_budget(turn.limits.budget);
        let root = tree.id(NodeIndex::ROOT);
        let request = encode(&ToProgram::Move {
            game: turn.game.name(),
            label: turn.label,
            root: &root,
            player: if turn.seat == crate::play::Seat::Max { "max" } else { "min" },
            ply: turn.ply,
            moves: turn.history,
            state: turn.state,
            seed: turn.seed & SEED_BITS,
            eval: turn.limits.eval.as_deref(),
            budget: turn.limits.budget,
            time_limit: limit.as_secs_f64(),
        });
        let outcome = session::converse(program, &mut oracle, &request, deadline);
        program.stop_counting_cpu();
        let entered = oracle.visited().len() as u64;
        let clock = if entered == 0 {
            Clock::Wall
        } else if oracle.time_up() {
            Clock::BudgetSpent
        } else {
            Clock::Nodes
        };
        let outcome = outcome.map_err(|stop| match stop {
            Stop::Failure(failure) => failure,
            Stop::Interrupted(interrupted) => {
                let last = oracle.visited().last().map(|&node| (oracle.visited().len(), tree.id(node)));
                let last = last.as_ref().map(|(count, id)| (*count, id.as_ref()));
                session::interruption_failure(interrupted, limit, last, "during this move")
            }
        });
        // A failure of the student's code leaves the program serving; any other stops it.
        let fatal =
            matches!(&outcome, Err(f) if !matches!(f.kind, FailureKind::NotImplemented | FailureKind::Exception));
        if fatal {
            program.kill();
        }
        let stderr = program.take_stderr().text();
        if fatal {
            self.program = None;
        } else {
            // Between its moves an agent is stopped: it cannot think on its
            // opponent's time, nor slow the opponent with work left running.
            program.pause();
        }
        match outcome {
            Ok(answer) => Ok(Choice { action: answer.action.unwrap_or_default(), entered, clock, stderr }),
            Err(failure) => Err(fault_of(failure, stderr)),
        }
    }
}

impl Drop for ProgramAgent {
    fn drop(&mut self) {
        if let Some(mut program) = self.program.take() {
            program.resume();
            let _ = program.send(&encode(&ToProgram::Bye), Instant::now() + Duration::from_secs(1));
            program.finish(Duration::from_secs(1));
        }
    }
}

/// A program's failure as the fault of its side.
fn fault_of(failure: ProgramFailure, stderr: String) -> Fault {
    let kind = match failure.kind {
        FailureKind::TimedOut => FaultKind::TimedOut,
        FailureKind::ProtocolError => FaultKind::ProtocolError,
        FailureKind::BuildFailed
        | FailureKind::NotStarted
        | FailureKind::Crashed
        | FailureKind::NotImplemented
        | FailureKind::Exception => FaultKind::Crashed,
    };
    // What the program wrote reaches reports: made safe to show here, once.
    Fault {
        kind,
        message: shown(&failure.message),
        details: failure.details.as_deref().map(shown),
        stderr: shown(&stderr),
    }
}
