//! Play tests (CS188's `EvalAgentTest`): the student's agent plays whole
//! games against the ghosts; points go by thresholds on the average score,
//! the games not timed out and the wins, nothing when a minimum is missed.
//!
//! Unlike CS188, whose ghosts and students share one stream of random
//! numbers that no other run can repeat, each game has its own seed (the
//! test's seed plus the game's number minus one): the grader's ghosts draw
//! from Python's Mersenne Twister seeded with it, and the kit seeds the
//! student's `random` with it before the game. The same agent gets the same
//! games, and the same grade, on every run and every machine.

use std::time::{Duration, Instant};

use super::channel::{GameStart, Player, Stopped};
use super::outcome::{CriterionOutcome, Frame, GameEnd, GameSummary, PlayOutcome};
use super::server::{Serving, StateServer};
use crate::game::pacman::test::{PacmanTest, PlaySpec};
use crate::game::pacman::{Board, Direction, PacmanState};
use crate::game::python_random::PythonRandom;
use crate::grader::session::ProgramFailure;
use crate::stats::{Rate, mean_interval};

/// Pacman moves after which a game that has not ended counts as timed out:
/// CS188 stops such a game when its 120 s run out, which its own speed
/// reaches after tens of thousands of moves.
pub const MOST_MOVES: u32 = 20_000;

/// Plays the test's games; the failures that ended games come back beside
/// the outcome (the first is shown in full).
pub fn play(
    test: &PacmanTest,
    spec: &PlaySpec,
    name: &str,
    player: &mut Player<'_>,
) -> (PlayOutcome, Vec<ProgramFailure>) {
    let board = Board::new(test.layout.clone(), test.ghosts.len());
    let mut games = Vec::new();
    let mut failures = Vec::new();
    for game in 1..=spec.games {
        let seed = test.seed.saturating_add(i64::from(game) - 1);
        let (summary, failure) = play_game(test, &board, name, game, spec.games, seed, player);
        games.push(summary);
        failures.extend(failure);
        if minimum_out_of_reach(spec, &games) {
            // The test earns nothing whatever the other games give: an agent
            // that times out every game would otherwise cost every game's limit.
            break;
        }
    }
    (score(test, spec, games), failures)
}

/// Whether a minimum can no longer be met, whatever the games still to play
/// give: more timeouts than the minimum of games without one allows, or
/// too few games left to reach the minimum of wins. (An average score has
/// no bound, so its minimum is always within reach.)
fn minimum_out_of_reach(spec: &PlaySpec, games: &[GameSummary]) -> bool {
    let left = spec.games - games.len() as u32;
    let most_not_timed_out = spec.games - ended(games, GameEnd::TimedOut);
    let most_wins = ended(games, GameEnd::Won) + left;
    spec.not_timed_out.misses_minimum(f64::from(most_not_timed_out)) || spec.wins.misses_minimum(f64::from(most_wins))
}

/// How many of `games` ended as `end`.
fn ended(games: &[GameSummary], end: GameEnd) -> u32 {
    games.iter().filter(|game| game.end == end).count() as u32
}

/// One game, to its end.
fn play_game(
    test: &PacmanTest,
    board: &Board,
    name: &str,
    game: u32,
    games: u32,
    seed: i64,
    player: &mut Player<'_>,
) -> (GameSummary, Option<ProgramFailure>) {
    let mut server = StateServer::new(board, Serving::Prefetched);
    let mut random = PythonRandom::seeded(i128::from(seed));
    let mut state = board.initial_state();
    let mut id = server.intern(state.clone());
    let mut frames = vec![frame(&state, None)];
    let mut clock = Clock { used: Duration::ZERO, test };
    let mut moves = 0u32;
    let ended = |end: GameEnd, how: String, state: &PacmanState, moves: u32, frames: Vec<Frame>| GameSummary {
        game,
        seed,
        end,
        score: state.score,
        moves,
        how,
        frames,
    };
    let started = Instant::now();
    let start = GameStart { name, game, games, seed };
    let start = player.start_game(test, start, &mut server, id, clock.deadline(test.game_time_limit));
    clock.charge(started);
    if let Err(stopped) = start {
        let (end, how) = stopped_end(&stopped, "before the first move (registerInitialState)");
        return (ended(end, how, &state, 0, frames), Some(stopped.failure));
    }
    'game: loop {
        if moves >= MOST_MOVES {
            let how = format!("timed out: the game had not ended after {MOST_MOVES} Pacman moves");
            return (ended(GameEnd::TimedOut, how, &state, moves, frames), None);
        }
        let asked = Instant::now();
        let answer = player.ask_move(&mut server, moves, id, None, clock.deadline(test.move_time_limit));
        clock.charge(asked);
        let action = match answer {
            Ok(action) => action,
            Err(stopped) => {
                let (end, how) = stopped_end(&stopped, &format!("at move {}", moves + 1));
                return (ended(end, how, &state, moves, frames), Some(stopped.failure));
            }
        };
        if clock.used > test.game_time_limit {
            let how =
                format!("timed out: the agent's moves took more than {} s in all", test.game_time_limit.as_secs_f64());
            return (ended(GameEnd::TimedOut, how, &state, moves, frames), None);
        }
        let next = action.as_str().and_then(Direction::parse).and_then(|d| board.successor(&state, 0, d).ok());
        let Some(next) = next else {
            let how = format!(
                "crashed at move {}: getAction returned {}, which is not one of the legal actions {}",
                moves + 1,
                action.as_str().map_or_else(|| action.to_string(), str::to_string),
                legal_names(board, &state, 0)
            );
            return (ended(GameEnd::Crashed, how, &state, moves, frames), None);
        };
        moves += 1;
        let eaten = eaten_cell(&state, &next);
        state = next;
        frames.push(frame(&state, eaten));
        for ghost in 1..board.agents {
            if state.is_over() {
                break 'game;
            }
            let Ok(Some(action)) = test.ghosts[ghost - 1].choose(board, &state, ghost, &mut random) else {
                let how = format!("ended at move {moves}: ghost {ghost} had no legal move");
                return (ended(GameEnd::Crashed, how, &state, moves, frames), None);
            };
            state = board.successor(&state, ghost, action).expect("a ghost draws among its legal moves");
            frames.push(frame(&state, None));
        }
        if state.is_over() {
            break;
        }
        id = server.intern(state.clone());
    }
    let id = server.intern(state.clone());
    // CS188 tells the agent the game is over (`final`); what it does then changes nothing.
    if player.running() {
        let _ = player.end_game(&mut server, id, Instant::now() + test.move_time_limit);
    }
    let how = if state.win {
        format!("won: ate the last food at move {moves}")
    } else {
        let ghost = catcher(&state).map_or_else(String::new, |ghost| format!("ghost {ghost} "));
        format!("lost: {ghost}caught Pacman at move {moves}")
    };
    let end = if state.win { GameEnd::Won } else { GameEnd::Lost };
    (ended(end, how, &state, moves, frames), None)
}

/// The agent's time in one game.
struct Clock<'t> {
    used: Duration,
    test: &'t PacmanTest,
}

impl Clock<'_> {
    /// When the next answer is due: `limit` from now, or when the game's
    /// time runs out, whichever comes first.
    fn deadline(&self, limit: Duration) -> Instant {
        let left = self.test.game_time_limit.saturating_sub(self.used);
        Instant::now() + limit.min(left + Duration::from_millis(1))
    }

    fn charge(&mut self, since: Instant) {
        self.used += since.elapsed();
    }
}

fn stopped_end(stopped: &Stopped, when: &str) -> (GameEnd, String) {
    if stopped.timed_out() {
        (GameEnd::TimedOut, format!("timed out {when}: {}", stopped.failure.message))
    } else {
        (GameEnd::Crashed, format!("crashed {when}: {}", stopped.failure.message))
    }
}

fn legal_names(board: &Board, state: &PacmanState, agent: usize) -> String {
    let legal = board.legal_actions(state, agent).unwrap_or_default();
    let names: Vec<&str> = legal.iter().map(|direction| direction.name()).collect();
    format!("[{}]", names.join(", "))
}

/// The ghost touching Pacman in a lost state.
fn catcher(state: &PacmanState) -> Option<usize> {
    let pacman = state.agents[0].configuration;
    (1..state.agents.len()).find(|&ghost| {
        let at = state.agents[ghost].configuration;
        (pacman.x2 - at.x2).abs() + (pacman.y2 - at.y2).abs() <= 1
    })
}

/// The cell whose food or capsule Pacman's move into `after` ate.
pub(super) fn eaten_cell(before: &PacmanState, after: &PacmanState) -> Option<(u16, u16)> {
    let ate = after.food.count() < before.food.count() || after.capsules.len() < before.capsules.len();
    let (x, y) = after.agents[0].configuration.nearest();
    ate.then_some((x as u16, y as u16))
}

pub(super) fn frame(state: &PacmanState, eaten: Option<(u16, u16)>) -> Frame {
    Frame {
        agents: state
            .agents
            .iter()
            .map(|agent| {
                (agent.configuration.x2, agent.configuration.y2, agent.scared, agent.configuration.direction.letter())
            })
            .collect(),
        score: state.score,
        eaten,
    }
}

/// The games' figures against the test's criteria, as CS188's `EvalAgentTest` grades them.
fn score(test: &PacmanTest, spec: &PlaySpec, games: Vec<GameSummary>) -> PlayOutcome {
    let scores: Vec<f64> = games.iter().map(|game| game.score as f64).collect();
    let (average_score, score_interval) = mean_interval(&scores);
    let wins = ended(&games, GameEnd::Won);
    let not_played = spec.games.saturating_sub(games.len() as u32);
    let not_timed_out = games.len() as u32 - ended(&games, GameEnd::TimedOut);
    let mut criteria = Vec::new();
    for (kind, criterion) in spec.criteria() {
        if criterion.minimum.is_none() && criterion.at.is_empty() {
            continue;
        }
        let value = match kind {
            crate::game::pacman::test::CriterionKind::AverageScore => average_score,
            crate::game::pacman::test::CriterionKind::NotTimedOut => f64::from(not_timed_out),
            crate::game::pacman::test::CriterionKind::Wins => f64::from(wins),
        };
        let met_minimum = !criterion.misses_minimum(value);
        let points = if met_minimum { criterion.reached(value) as u32 } else { 0 };
        criteria.push(CriterionOutcome {
            kind,
            value,
            minimum: criterion.minimum,
            thresholds: criterion.at.clone(),
            met_minimum,
            points,
        });
    }
    let earned = if criteria.iter().all(|c| c.met_minimum) { criteria.iter().map(|c| c.points).sum() } else { 0 };
    let win_rate = Rate::wilson(u64::from(wins), games.len() as u64);
    PlayOutcome {
        layout: test.layout_name.clone(),
        games,
        average_score,
        score_interval,
        wins,
        win_rate_interval: Some([win_rate.low, win_rate.high]),
        not_timed_out,
        not_played,
        criteria,
        earned,
        possible: spec.points(),
        rows: test.layout.rows.clone(),
    }
}
