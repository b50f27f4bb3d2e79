//! Pacman, CS188's game, as a built-in game: its boards, rules and ghosts,
//! exactly as CS188's Python plays them.
//!
//! - [`layout`]: `.lay` boards;
//! - [`state`]: positions, legal moves and successors ([`Board::successor`]);
//! - [`ghosts`]: `RandomGhost` and `DirectionalGhost`, drawing from
//!   [`PythonRandom`](crate::game::python_random::PythonRandom);
//! - [`rules`]: Pacman as a game tree (`rules: pacman`), searched by the
//!   reference engine as CS188's staff agents search it.

pub mod ghosts;
pub mod layout;
pub mod rules;
pub mod staff;
pub mod state;
pub mod test;

pub use ghosts::GhostKind;
pub use layout::{Cell, Grid, Layout, LayoutError};
pub use rules::{PacmanRules, StopRule, Turn};
pub use state::{AgentState, Board, Configuration, Direction, MoveError, OwnedValue, PacmanState, StateValue};
