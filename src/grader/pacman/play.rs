//! Play tests (CS188's `EvalAgentTest`): the student's agent plays whole
//! games against the ghosts; points go by thresholds on the average score,
//! the games not timed out and the wins, nothing when a minimum is missed.
//!
//! Random numbers ([`PlayRandom`]): by default as CS188 draws them. CS188's
//! `EvalAgentTest` seeds Python's one Mersenne Twister once, then plays all
//! its games in one process, the student's `random` and each `RandomGhost`
//! drawing from it in the order the games ask. Here the grader owns that
//! stream: it seeds it once per test, draws the ghosts' moves from it, and
//! serves the student's `random` from it through the protocol (`py_random`),
//! so that every draw comes in CS188's order: the agent's (during its move,
//! `registerInitialState` or `final`), then each ghost's, game after game.
//! The games are CS188's own, move for move, on every run and every machine.
//! With `per-game`, each game has its own seed (the test's seed plus the
//! game's number minus one) for the ghosts and for the student's own
//! `random`: games stand alone, but are not CS188's.
//!
//! Limits: CS188's, on the agent's wall-clock time (a move, and its moves of
//! one game together; `registerInitialState` counts in the game). CS188 sets
//! no limit on moves; a safety net ends a game after
//! [`SAFETY_NET_MOVES`] Pacman moves, and the report says so wherever it
//! did (per-game keeps its older cut of [`MOST_MOVES`]).

use std::time::{Duration, Instant};

use super::channel::{GameStart, Player, Stopped};
use super::outcome::{CriterionOutcome, Frame, GameEnd, GameSummary, PlayOutcome};
use super::server::{Serving, StateServer};
use crate::game::pacman::test::{PacmanTest, PlayRandom, PlaySpec};
use crate::game::pacman::{Board, Direction, PacmanState};
use crate::game::python_random::PythonRandom;
use crate::grader::session::ProgramFailure;
use crate::stats::{Rate, mean_interval};

/// With `per-game` random numbers, Pacman moves after which a game that
/// has not ended counts as timed out.
pub const MOST_MOVES: u32 = 20_000;

/// With CS188's shared stream, Pacman moves after which treegrade ends a
/// game that neither side has ended, counting it as timed out. CS188 has
/// no such rule (only its time limits): this net keeps a program that never
/// ends a game from holding the grader, and its memory, without end. The
/// games of CS188's own suite end within a few thousand moves.
pub const SAFETY_NET_MOVES: u32 = 100_000;

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
    // CS188's `random.seed(randomSeed)`, once before the first game.
    let mut shared = PythonRandom::seeded(i128::from(test.seed));
    for game in 1..=spec.games {
        let (seed, mut own, random) = match spec.random {
            PlayRandom::Shared => (test.seed, None, &mut shared),
            PlayRandom::PerGame => {
                let seed = test.seed.saturating_add(i64::from(game) - 1);
                (seed, Some(PythonRandom::seeded(i128::from(seed))), &mut shared)
            }
        };
        let random = own.as_mut().unwrap_or(random);
        let game_of = GameOf { test, board: &board, name, game, games: spec.games, seed, mode: spec.random };
        let (summary, failure) = play_game(&game_of, random, player);
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

/// Which game of which test is played, and how.
struct GameOf<'a> {
    test: &'a PacmanTest,
    board: &'a Board,
    name: &'a str,
    game: u32,
    games: u32,
    /// The seed shown for the game (the test's, with the shared stream).
    seed: i64,
    mode: PlayRandom,
}

impl GameOf<'_> {
    /// Pacman moves after which the game is ended, and how that is said.
    fn most_moves(&self) -> (u32, String) {
        match self.mode {
            PlayRandom::PerGame => {
                (MOST_MOVES, format!("timed out: the game had not ended after {MOST_MOVES} Pacman moves"))
            }
            PlayRandom::Shared => (
                SAFETY_NET_MOVES,
                format!(
                    "timed out by treegrade's safety net: the game had not ended after {SAFETY_NET_MOVES} Pacman \
                     moves (CS188 sets no limit on moves and would have played on until the agent's time ran out)"
                ),
            ),
        }
    }
}

/// One game, to its end; the ghosts draw from `random`, and with the shared
/// stream so does the student's `random`.
fn play_game(
    of: &GameOf<'_>,
    random: &mut PythonRandom,
    player: &mut Player<'_>,
) -> (GameSummary, Option<ProgramFailure>) {
    let GameOf { test, board, name, game, games, seed, mode } = *of;
    let shared = mode == PlayRandom::Shared;
    let mut server = StateServer::new(board, Serving::Prefetched);
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
        safety_net: false,
        frames,
    };
    let started = Instant::now();
    let start = GameStart { name, game, games, seed, shared_random: shared };
    let start =
        player.start_game(test, start, &mut server, stream(shared, random), id, clock.deadline(test.game_time_limit));
    clock.charge(started);
    if let Err(stopped) = start {
        let (end, how) = stopped_end(&stopped, "before the first move (registerInitialState)");
        return (ended(end, how, &state, 0, frames), Some(stopped.failure));
    }
    'game: loop {
        let (most, how) = of.most_moves();
        if moves >= most {
            let mut summary = ended(GameEnd::TimedOut, how, &state, moves, frames);
            summary.safety_net = shared;
            return (summary, None);
        }
        let asked = Instant::now();
        let deadline = clock.deadline(test.move_time_limit);
        let answer = player.ask_move(&mut server, stream(shared, random), moves, id, None, deadline);
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
            let Ok(Some(action)) = test.ghosts[ghost - 1].choose(board, &state, ghost, random) else {
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
        let _ = player.end_game(&mut server, stream(shared, random), id, Instant::now() + test.move_time_limit);
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

/// The stream to serve the student's `random` from: `random` itself with
/// the shared stream, none when the student's `random` is its own.
fn stream(shared: bool, random: &mut PythonRandom) -> Option<&mut PythonRandom> {
    shared.then_some(random)
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
    let cs188 = super::outcome::cs188_lines(&games);
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
        random: spec.random.name().to_string(),
        cs188,
        rows: test.layout.rows.clone(),
    }
}
