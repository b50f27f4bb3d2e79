//! Playing whole games: agents, a referee, and series of games between two
//! sides, every result attributed.
//!
//! A game is any [`Game`] (built-in or a course's own); a position is the
//! same game advanced by the moves played ([`Game::advanced`]), so an agent
//! is handed a game whose start is the position it must move from, and
//! searches it through the same [`GameTree`](crate::tree::GameTree) seam as
//! everything else. An [`Agent`] chooses moves: the built-in ones here
//! ([`builtin`]: uniformly random, greedy on an evaluation, minimax or
//! alpha-beta at a depth), and programs, which the grader runs in its
//! sandbox and serves each position node by node (`grader::player`).
//!
//! The [`referee`] plays one game: seeded random opening moves, the sides
//! alternating, chance moves drawn from the game's own seeded stream, every
//! move checked. It never lets a failure of one side cost the other: a
//! timeout, an illegal move, a crash or a protocol error ends the game as a
//! loss of the side that caused it, with the reason ([`Ending::Fault`]). A
//! [`series`] plays many games with colours alternating and tallies each
//! side's results with Wilson intervals.
//!
//! Every random number comes from [`crate::engine::random::SplitMix64`] streams
//! derived from one seed, so the same seed plays the same games on every
//! machine, as long as the agents are deterministic (built-in ones are, and
//! programs get a seed for their own randomness with every move).

pub mod builtin;
pub mod position;
pub mod referee;
pub mod series;

use std::time::Duration;

use serde::Serialize;

use crate::game::Game;
use crate::tree::NodeKind;

/// Which side of a two-player game: MAX moves first in every built-in game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Seat {
    /// The player whose utility the game gives (X in an m,n,k-game, player 0 in Pig).
    Max,
    /// The other player.
    Min,
}

impl Seat {
    /// Both seats, MAX first.
    pub const BOTH: [Seat; 2] = [Seat::Max, Seat::Min];

    /// The opponent's seat.
    pub fn other(self) -> Seat {
        match self {
            Seat::Max => Seat::Min,
            Seat::Min => Seat::Max,
        }
    }

    /// `MAX` or `MIN`.
    pub fn name(self) -> &'static str {
        match self {
            Seat::Max => "MAX",
            Seat::Min => "MIN",
        }
    }

    /// The seat that moves at a node of `kind`, if a player moves there.
    pub fn to_move(kind: NodeKind) -> Option<Seat> {
        match kind {
            NodeKind::Max => Some(Seat::Max),
            NodeKind::Min => Some(Seat::Min),
            NodeKind::Chance | NodeKind::Terminal => None,
        }
    }

    /// A utility in MAX's view turned into this seat's view (the games are
    /// zero-sum: what MAX wins, MIN loses).
    pub fn view(self, utility: f64) -> f64 {
        match self {
            Seat::Max => utility,
            Seat::Min => -utility,
        }
    }

    /// 0 for MAX, 1 for MIN: an index into per-seat arrays.
    pub fn index(self) -> usize {
        match self {
            Seat::Max => 0,
            Seat::Min => 1,
        }
    }
}

/// What bounds each move of the agents.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveLimits {
    /// The most nodes a program may enter through the grader per move (the
    /// clock counted in nodes); `None`: no node budget.
    pub budget: Option<u32>,
    /// The wall-clock limit of one move, the safety net.
    pub time: Duration,
    /// The game's evaluation served with every node (`None`: none served).
    pub eval: Option<String>,
}

impl MoveLimits {
    /// The time limit of a move (the agent's CPU time) unless a question says otherwise.
    pub const DEFAULT_TIME: Duration = Duration::from_secs(10);
}

impl Default for MoveLimits {
    fn default() -> MoveLimits {
        MoveLimits { budget: None, time: MoveLimits::DEFAULT_TIME, eval: None }
    }
}

/// Everything an agent is told about the position it must move from.
pub struct Turn<'a> {
    /// The position, as a game whose start it is: unfold it to search.
    pub game: &'a dyn Game,
    /// The game's name in reports and logs (`q5/random/3`).
    pub label: &'a str,
    /// Which side the agent plays.
    pub seat: Seat,
    /// Plies played so far (opening moves and chance moves included).
    pub ply: u32,
    /// The actions played so far, from the game's start.
    pub history: &'a [String],
    /// The legal actions here, in the tree's order.
    pub actions: &'a [String],
    /// The position as the game's JSON (what a program is served as `state`).
    pub state: Option<&'a serde_json::Value>,
    /// A seed for the agent's own random choices at this move.
    pub seed: u64,
    /// What bounds the move.
    pub limits: &'a MoveLimits,
}

/// What bounded an agent's move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Clock {
    /// A built-in agent: the reference engine, bounded by its depth.
    Engine,
    /// A program that searched the grader's tree: bounded by the node
    /// budget (and the wall clock, a safety net).
    Nodes,
    /// A program that searched the grader's tree until its node budget ran
    /// out and answered on being told so.
    BudgetSpent,
    /// A program that entered no node of the grader's tree: it searched a
    /// copy of the rules of its own, bounded by the wall clock only.
    Wall,
}

/// An agent's move.
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    /// The action chosen (checked by the referee against the legal ones).
    pub action: String,
    /// Nodes entered to choose it (through the grader, or the engine's).
    pub entered: u64,
    /// What bounded the move.
    pub clock: Clock,
    /// What the program wrote on stderr during the move (empty for built-ins).
    pub stderr: String,
}

/// How a side failed to make a move; it loses the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FaultKind {
    /// No move within the move's wall-clock limit.
    TimedOut,
    /// A move that is not legal in the position (or none).
    IllegalMove,
    /// The program could not start, exited, was killed, or its code raised.
    Crashed,
    /// The program broke the protocol (garbage on stdout, a guessed node, ...).
    ProtocolError,
}

impl FaultKind {
    /// Every kind, in the order reports list them.
    pub const ALL: [FaultKind; 4] =
        [FaultKind::TimedOut, FaultKind::IllegalMove, FaultKind::Crashed, FaultKind::ProtocolError];

    /// `timed-out`, `illegal-move`, `crashed`, `protocol-error`.
    pub fn name(self) -> &'static str {
        match self {
            FaultKind::TimedOut => "timed-out",
            FaultKind::IllegalMove => "illegal-move",
            FaultKind::Crashed => "crashed",
            FaultKind::ProtocolError => "protocol-error",
        }
    }

    /// Words for reports: `timeout`, `illegal move`, ...
    pub fn words(self) -> &'static str {
        match self {
            FaultKind::TimedOut => "timeout",
            FaultKind::IllegalMove => "illegal move",
            FaultKind::Crashed => "crash",
            FaultKind::ProtocolError => "protocol error",
        }
    }
}

/// A side's failure to move, with the reason.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Fault {
    /// What kind of failure.
    pub kind: FaultKind,
    /// One line saying what happened (escaped for display where it quotes the program).
    pub message: String,
    /// More detail (a traceback).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<String>,
    /// The program's stderr during the move.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub stderr: String,
}

impl Fault {
    /// A fault with a message only.
    pub fn new(kind: FaultKind, message: impl Into<String>) -> Fault {
        Fault { kind, message: message.into(), details: None, stderr: String::new() }
    }
}

/// Something that chooses moves.
pub trait Agent {
    /// What reports call it (unique within a series).
    fn name(&self) -> &str;

    /// Chooses a move from the position of `turn`, or says why it cannot.
    fn choose(&mut self, turn: &Turn<'_>) -> Result<Choice, Fault>;

    /// The game it was playing is over (a program that failed is restarted
    /// for the next game, not in the middle of one).
    fn game_over(&mut self) {}
}

pub use referee::{Ending, GameRecord, GameResult, GameSetup, Mover, PlyRecord, play_game};
pub use series::{SeriesSetup, Tally, play_series, tally};
