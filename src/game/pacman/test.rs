//! What a Pacman test asks of a student's agent (plain data, read from a
//! test file by `load::pacman`, run by `grader::pacman`).
//!
//! Two kinds, CS188's two Pacman test classes:
//!
//! - **play** (`EvalAgentTest`): the student's agent plays whole games
//!   against the ghosts, and points go by thresholds on the average score,
//!   the games not timed out and the wins;
//! - **replay** (`PacmanGameTreeTest`): a fixed path of Pacman moves (the
//!   staff's), and at every step the student's agent is asked for its move
//!   on the way: its action must be one of the tied-best, and the number of
//!   states it explores one of the recorded counts.

use std::time::Duration;

use super::ghosts::GhostKind;
use super::layout::Layout;
use super::state::Direction;
use crate::engine::Algorithm;
use crate::thresholds::Thresholds;

/// One Pacman test.
#[derive(Clone, Debug, PartialEq)]
pub struct PacmanTest {
    /// The test's name (its file's).
    pub name: String,
    /// What the test is, for students.
    pub description: Option<String>,
    /// The board's name (`smallClassic`).
    pub layout_name: String,
    /// The board.
    pub layout: Layout,
    /// The ghosts, ghost 1 first; as many play as the layout has starts for.
    pub ghosts: Vec<GhostKind>,
    /// The student's agent: the class in `multiAgents.py` and its keyword arguments.
    pub agent: AgentSpec,
    /// The seed of the ghosts' random numbers (and of the student's `random`).
    pub seed: i64,
    /// Longest a move may take.
    pub move_time_limit: Duration,
    /// Longest the agent may take over one game, its moves together.
    pub game_time_limit: Duration,
    /// Play or replay.
    pub kind: PacmanTestKind,
}

/// The agent a test creates, as CS188 creates it: `Class(**arguments)`.
#[derive(Clone, Debug, PartialEq)]
pub struct AgentSpec {
    /// The class's name in `multiAgents.py` (`ReflexAgent`, `MinimaxAgent`...).
    pub class: String,
    /// Keyword arguments, in order (`evalFn: better`, `depth: 2`).
    pub arguments: Vec<(String, serde_json::Value)>,
}

/// The two kinds of Pacman tests.
#[derive(Clone, Debug, PartialEq)]
pub enum PacmanTestKind {
    /// Whole games, scored by thresholds.
    Play(PlaySpec),
    /// The staff's path, checked step by step.
    Replay(ReplaySpec),
}

/// Games to play and what they earn.
#[derive(Clone, Debug, PartialEq)]
pub struct PlaySpec {
    /// How many games.
    pub games: u32,
    /// On the average score (one point per threshold reached; below the
    /// minimum of any criterion, the test earns nothing).
    pub score: Thresholds,
    /// On the number of games that did not time out.
    pub not_timed_out: Thresholds,
    /// On the number of games won.
    pub wins: Thresholds,
    /// Where the games' random numbers come from.
    pub random: PlayRandom,
}

/// Where a play test's random numbers come from (docs/format.md section 10).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PlayRandom {
    /// CS188's own: one Python Mersenne Twister seeded once with the test's
    /// seed before the first game, owned by the grader, from which the
    /// ghosts and the student's `random` both draw, in the order CS188's
    /// one process draws (the agent's moves, then each ghost in turn, game
    /// after game). The games are CS188's own, move for move; a game
    /// depends on every game before it.
    #[default]
    Shared,
    /// A stream per game (the test's seed plus the game's number minus
    /// one) for the ghosts, and the student's own `random` seeded with it:
    /// each game stands alone, but the games are not CS188's.
    PerGame,
}

impl PlayRandom {
    /// The name test files use.
    pub fn name(self) -> &'static str {
        match self {
            PlayRandom::Shared => "shared",
            PlayRandom::PerGame => "per-game",
        }
    }

    /// The mode with this name.
    pub fn from_name(name: &str) -> Option<PlayRandom> {
        [PlayRandom::Shared, PlayRandom::PerGame].into_iter().find(|mode| mode.name() == name)
    }
}

impl PlaySpec {
    /// The criteria with their names, in CS188's order.
    pub fn criteria(&self) -> [(CriterionKind, &Thresholds); 3] {
        [
            (CriterionKind::AverageScore, &self.score),
            (CriterionKind::NotTimedOut, &self.not_timed_out),
            (CriterionKind::Wins, &self.wins),
        ]
    }

    /// Points the test is worth: one per threshold.
    pub fn points(&self) -> u32 {
        self.criteria().iter().map(|(_, criterion)| criterion.at.len() as u32).sum()
    }
}

/// What a criterion measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CriterionKind {
    /// The average score of the games.
    AverageScore,
    /// Games that did not time out.
    NotTimedOut,
    /// Games won.
    Wins,
}

impl CriterionKind {
    /// As CS188's report words it.
    pub fn label(self) -> &'static str {
        match self {
            CriterionKind::AverageScore => "average score",
            CriterionKind::NotTimedOut => "games not timed out",
            CriterionKind::Wins => "wins",
        }
    }
}

/// The staff's path and what a correct agent does along it.
#[derive(Clone, Debug, PartialEq)]
pub struct ReplaySpec {
    /// The search the agent is asked for.
    pub algorithm: Algorithm,
    /// Its depth, in rounds.
    pub depth: u32,
    /// One per Pacman move.
    pub steps: Vec<ReplayStep>,
}

/// One Pacman move of the staff's path.
#[derive(Clone, Debug, PartialEq)]
pub struct ReplayStep {
    /// The move played (whatever the student answers).
    pub play: Direction,
    /// The staff agents' tied-best actions: with Stop, and without.
    pub best: Vec<Vec<Direction>>,
    /// The states they explore, in the same order.
    pub explored: Vec<usize>,
    /// The tied-best actions one round shallower and one deeper (CS188's
    /// `altDepthActions`: depth - 1 with and without Stop, then depth + 1).
    pub other_depths: Vec<Vec<Direction>>,
    /// Those of CS188's "partial ply" agents (with and without Stop).
    pub partial_ply: Vec<Vec<Direction>>,
}
