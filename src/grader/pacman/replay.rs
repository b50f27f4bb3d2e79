//! Replay tests (CS188's `PacmanGameTreeTest`): the staff's path, and at
//! every Pacman move the student's agent asked for its move on the way.
//!
//! As in CS188: the student's answers never change the path (the staff's
//! move is played); the ghosts draw from Python's Mersenne Twister seeded
//! with the test's seed before the game and with seed + k after Pacman's
//! k-th move; the states the agent explores are counted as CS188's
//! `GameState.explored` counts them. The test passes when every count is
//! one of the staff agents' counts and every action is among the tied-best
//! of the same staff agent all along; otherwise CS188's names apply, in its
//! order: wrong number of states expanded, partial ply bug, search depth
//! off by one, suboptimal moves.

use std::time::{Duration, Instant};

use super::channel::{GameStart, Player};
use super::outcome::{ReplayOutcome, ReplayVerdict, StepCheck};
use super::server::{Serving, StateServer};
use crate::game::pacman::test::{PacmanTest, ReplaySpec, ReplayStep};
use crate::game::pacman::{Board, Direction, MoveError, PacmanState};
use crate::game::python_random::PythonRandom;
use crate::grader::session::ProgramFailure;

/// What the agent answered at one step.
struct Answer {
    action: String,
    explored: usize,
    board: String,
}

/// Why a test's staff path cannot be replayed: the test is wrong, not the
/// student (the report says "this test cannot be run: ...").
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum NotAGame {
    /// The staff's move at this step (from 1) is refused by the rules.
    #[error("the test's path is not a game: step {step}: {source}")]
    Step {
        /// The step, from 1.
        step: usize,
        /// What the rules said.
        #[source]
        source: MoveError,
    },
    /// A ghost with no move after this step.
    #[error("the test's path is not a game: ghost {ghost} has no move after step {step}")]
    GhostStuck {
        /// The ghost's agent index.
        ghost: usize,
        /// The step, from 1.
        step: usize,
    },
    /// A ghost's chosen move refused by the rules.
    #[error(transparent)]
    GhostMove(#[from] MoveError),
}

/// Runs the staff's path; a failure that stopped it comes back beside the outcome.
pub fn replay(
    test: &PacmanTest,
    spec: &ReplaySpec,
    name: &str,
    player: &mut Player<'_>,
) -> Result<(ReplayOutcome, Option<ProgramFailure>), NotAGame> {
    let board = Board::new(test.layout.clone(), test.ghosts.len());
    let mut server = StateServer::new(&board, Serving::Counted);
    let mut state = board.initial_state();
    let mut id = server.intern(state.clone());
    let mut answers: Vec<Answer> = Vec::new();
    let mut used = Duration::ZERO;
    let deadline = |used: Duration, limit: Duration| {
        Instant::now() + limit.min(test.game_time_limit.saturating_sub(used) + Duration::from_millis(1))
    };
    let started = Instant::now();
    let start = GameStart { name, game: 1, games: 1, seed: test.seed, shared_random: false };
    let start = player.start_game(test, start, &mut server, None, id, deadline(used, test.game_time_limit));
    used += started.elapsed();
    let mut stopped = start.err();
    // CS188 seeds Python's one generator before the game and after each Pacman
    // move, and its ghosts draw from it before the agent's next move.
    let mut reseed = (test.seed, 0u32);
    for (k, step) in spec.steps.iter().enumerate() {
        if stopped.is_some() {
            break;
        }
        server.begin_move();
        let asked = Instant::now();
        match player.ask_move(&mut server, None, k as u32, id, Some(reseed), deadline(used, test.move_time_limit)) {
            Ok(action) => {
                let action = action.as_str().map_or_else(|| action.to_string(), str::to_string);
                answers.push(Answer { action, explored: server.explored(), board: board.draw(&state) });
            }
            Err(failure) => stopped = Some(failure),
        }
        used += asked.elapsed();
        if stopped.is_none() && used > test.game_time_limit {
            let message = format!("the agent's moves took more than {} s in all", test.game_time_limit.as_secs_f64());
            let failure = crate::grader::session::failure(crate::grader::session::FailureKind::TimedOut, message);
            stopped = Some(super::channel::Stopped { failure });
        }
        let draws;
        (state, draws) = advance(&board, test, &state, step, k)?;
        reseed = (test.seed.saturating_add(k as i64 + 1), draws);
        if state.is_over() {
            break;
        }
        id = server.intern(state.clone());
    }
    if stopped.is_none() && player.running() {
        let last = server.intern(state.clone());
        let _ = player.end_game(&mut server, None, last, Instant::now() + test.move_time_limit);
    }
    let outcome = judge(test, spec, &answers, stopped.as_ref().map(|s| s.timed_out()));
    Ok((outcome, stopped.map(|s| s.failure)))
}

/// The state after the staff's move at step `k` and the ghosts' answers,
/// with how many numbers the ghosts drew.
fn advance(
    board: &Board,
    test: &PacmanTest,
    state: &PacmanState,
    step: &ReplayStep,
    k: usize,
) -> Result<(PacmanState, u32), NotAGame> {
    let mut state = board.successor(state, 0, step.play).map_err(|source| NotAGame::Step { step: k + 1, source })?;
    let mut random = PythonRandom::seeded(i128::from(test.seed) + k as i128 + 1);
    let mut draws = 0;
    for ghost in 1..board.agents {
        if state.is_over() {
            break;
        }
        let Ok(Some(action)) = test.ghosts[ghost - 1].choose(board, &state, ghost, &mut random) else {
            return Err(NotAGame::GhostStuck { ghost, step: k + 1 });
        };
        draws += 1;
        state = board.successor(&state, ghost, action)?;
    }
    Ok((state, draws))
}

/// CS188's conclusion (`GradingAgent.checkFailure`) from the answers.
fn judge(test: &PacmanTest, spec: &ReplaySpec, answers: &[Answer], stopped: Option<bool>) -> ReplayOutcome {
    let names = |set: &Vec<Direction>| set.iter().map(|d| d.name().to_string()).collect::<Vec<_>>();
    let check = |k: usize| {
        let (answer, step) = (&answers[k], &spec.steps[k]);
        StepCheck {
            step: k as u32 + 1,
            action: answer.action.clone(),
            explored: answer.explored,
            best: step.best.iter().map(names).collect(),
            expected_explored: step.explored.clone(),
            board: answer.board.clone(),
        }
    };
    let among = |action: &str, set: &Vec<Direction>| set.iter().any(|d| d.name() == action);
    let right_count = |k: usize| spec.steps[k].explored.contains(&answers[k].explored);
    let optimal = |k: usize| spec.steps[k].best.iter().any(|set| among(&answers[k].action, set));
    let first_wrong_count = (0..answers.len()).find(|&k| !right_count(k)).map(check);
    let first_wrong_action = (0..answers.len()).find(|&k| !optimal(k)).map(check);
    let suboptimal_moves = (0..answers.len()).filter(|&k| !optimal(k)).count() as u32;
    // A staff agent is consistent when every answer is among its actions (CS188 keeps one flag per agent).
    let consistent = |lists: &dyn Fn(&ReplayStep) -> &Vec<Vec<Direction>>| {
        let agents = spec.steps.first().map_or(0, |step| lists(step).len());
        (0..agents).any(|agent| {
            answers
                .iter()
                .zip(&spec.steps)
                .all(|(answer, step)| lists(step).get(agent).is_some_and(|set| among(&answer.action, set)))
        })
    };
    let verdict = match stopped {
        Some(true) => ReplayVerdict::TimedOut,
        Some(false) => ReplayVerdict::Crashed,
        None if first_wrong_count.is_some() => ReplayVerdict::WrongStatesExpanded,
        None if consistent(&|step| &step.best) => ReplayVerdict::Passed,
        None if consistent(&|step| &step.partial_ply) => ReplayVerdict::PartialPly,
        None if consistent(&|step| &step.other_depths) => ReplayVerdict::DepthOffByOne,
        None => ReplayVerdict::SuboptimalMoves,
    };
    ReplayOutcome {
        layout: test.layout_name.clone(),
        algorithm: spec.algorithm.name().to_string(),
        depth: spec.depth,
        steps: spec.steps.len() as u32,
        answered: answers.len() as u32,
        verdict,
        first_wrong_action,
        first_wrong_count,
        suboptimal_moves,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Algorithm;
    use crate::game::pacman::Layout;
    use crate::game::pacman::test::{AgentSpec, PacmanTestKind};
    use Direction::{East, North, Stop, West};

    fn spec() -> (PacmanTest, ReplaySpec) {
        let step = |best: [Vec<Direction>; 2], other: Vec<Direction>, partial: Vec<Direction>| ReplayStep {
            play: best[0][0],
            best: best.to_vec(),
            explored: vec![10, 7],
            other_depths: vec![other.clone(), other.clone(), other.clone(), other],
            partial_ply: vec![partial.clone(), partial],
        };
        let replay = ReplaySpec {
            algorithm: Algorithm::Minimax,
            depth: 2,
            steps: vec![
                step([vec![Stop, East], vec![East]], vec![West], vec![North]),
                step([vec![West], vec![West]], vec![East], vec![North]),
            ],
        };
        let test = PacmanTest {
            name: "t".into(),
            description: None,
            layout_name: "tiny".into(),
            layout: Layout::parse("%%%%\n%P.%\n%%%%").unwrap(),
            ghosts: Vec::new(),
            agent: AgentSpec { class: "MinimaxAgent".into(), arguments: Vec::new() },
            seed: 0,
            move_time_limit: Duration::from_secs(1),
            game_time_limit: Duration::from_secs(1),
            kind: PacmanTestKind::Replay(replay.clone()),
        };
        (test, replay)
    }

    fn verdict(answers: &[(&str, usize)]) -> ReplayOutcome {
        let (test, replay) = spec();
        let answers: Vec<Answer> = answers
            .iter()
            .map(|&(action, explored)| Answer { action: action.into(), explored, board: String::new() })
            .collect();
        judge(&test, &replay, &answers, None)
    }

    #[test]
    fn a_path_that_is_not_a_game_says_where_and_keeps_the_rules_error() {
        use std::error::Error as _;
        let step = NotAGame::Step { step: 3, source: MoveError::GameOver };
        assert_eq!(
            step.to_string(),
            "the test's path is not a game: step 3: Can't generate a successor of a terminal state."
        );
        assert_eq!(step.source().map(ToString::to_string), Some(MoveError::GameOver.to_string()));
        let stuck = NotAGame::GhostStuck { ghost: 2, step: 4 };
        assert_eq!(stuck.to_string(), "the test's path is not a game: ghost 2 has no move after step 4");
    }

    #[test]
    fn verdicts_follow_cs188s_order_of_checks() {
        assert_eq!(verdict(&[("Stop", 10), ("West", 7)]).verdict, ReplayVerdict::Passed, "counts of either agent");
        assert_eq!(verdict(&[("East", 7), ("West", 7)]).verdict, ReplayVerdict::Passed);
        let wrong = verdict(&[("Stop", 10), ("West", 8)]);
        assert_eq!(wrong.verdict, ReplayVerdict::WrongStatesExpanded, "the count first, whatever the actions");
        assert_eq!(wrong.first_wrong_count.as_ref().map(|s| s.step), Some(2));
        assert_eq!(verdict(&[("North", 10), ("North", 10)]).verdict, ReplayVerdict::PartialPly);
        assert_eq!(verdict(&[("West", 10), ("East", 10)]).verdict, ReplayVerdict::DepthOffByOne);
        let sub = verdict(&[("North", 10), ("East", 10)]);
        assert_eq!((sub.verdict, sub.suboptimal_moves), (ReplayVerdict::SuboptimalMoves, 2));
        assert_eq!(sub.first_wrong_action.map(|s| (s.step, s.action)), Some((1, "North".to_string())));
    }

    #[test]
    fn one_staff_agent_must_hold_every_answer() {
        // Stop is only the Stop agent's best, and the second step's West is both: consistent with Stop's agent.
        assert_eq!(verdict(&[("Stop", 10), ("West", 10)]).verdict, ReplayVerdict::Passed);
        let (test, replay) = spec();
        let stopped = judge(&test, &replay, &[], Some(true));
        assert_eq!(stopped.verdict, ReplayVerdict::TimedOut);
        assert_eq!(stopped.verdict.cs188_message("smallClassic"), "Agent timed out on smallClassic.  No credit");
    }
}
