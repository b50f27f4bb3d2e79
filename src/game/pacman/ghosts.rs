//! CS188's ghosts, drawing their moves as `ghostAgents.py` does.
//!
//! A ghost builds a distribution over its legal moves (a `util.Counter`,
//! normalised in the order its keys were added), and
//! `util.chooseFromDistribution` samples it: keys sorted by name, the
//! probabilities normalised again when they do not add up to exactly 1,
//! then the first key whose running total is at least one
//! `random.random()`. Every floating-point operation is Python's, in
//! Python's order (`sum` adds left to right, as CPython 3.11 and earlier
//! do), so that the same stream of numbers picks the same moves.

use super::state::{Board, Direction, MoveError, PacmanState};
use crate::game::python_random::PythonRandom;

/// A ghost's policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GhostKind {
    /// `RandomGhost`: every legal move alike.
    Random,
    /// `DirectionalGhost`: 0.8 on the moves that bring it closest to Pacman
    /// (that take it farthest while scared), 0.2 spread over all its moves.
    Directional,
}

/// `DirectionalGhost`'s `prob_attack` and `prob_scaredFlee`.
const DIRECTIONAL_BEST: f64 = 0.8;

impl GhostKind {
    /// CS188's class name.
    pub fn class_name(self) -> &'static str {
        match self {
            GhostKind::Random => "RandomGhost",
            GhostKind::Directional => "DirectionalGhost",
        }
    }

    /// The kind with this class name.
    pub fn from_class_name(name: &str) -> Option<GhostKind> {
        [GhostKind::Random, GhostKind::Directional].into_iter().find(|kind| kind.class_name() == name)
    }

    /// The ghost's distribution over its legal moves, as its
    /// `getDistribution` leaves it: keys in the order they were added,
    /// normalised (`Counter.normalize`).
    pub fn distribution(
        self,
        board: &Board,
        state: &PacmanState,
        ghost: usize,
    ) -> Result<Vec<(Direction, f64)>, MoveError> {
        let legal = board.legal_actions(state, ghost)?;
        let mut weights: Vec<(Direction, f64)> = Vec::with_capacity(legal.len());
        match self {
            GhostKind::Random => weights.extend(legal.iter().map(|&action| (action, 1.0))),
            GhostKind::Directional => {
                let agent = state.agents[ghost];
                let scared = agent.scared > 0;
                let (x, y) = agent.configuration.position();
                let (px, py) = state.agents[0].configuration.position();
                let speed = if scared { 0.5 } else { 1.0 };
                let distances: Vec<f64> = legal
                    .iter()
                    .map(|action| {
                        let (dx, dy) = action.vector();
                        let (nx, ny) = (x + f64::from(dx) * speed, y + f64::from(dy) * speed);
                        (nx - px).abs() + (ny - py).abs()
                    })
                    .collect();
                let pick = if scared { f64::max } else { f64::min };
                let best = distances.iter().copied().reduce(pick).unwrap_or(0.0);
                let best_actions: Vec<Direction> =
                    legal.iter().zip(&distances).filter(|&(_, &d)| d == best).map(|(&action, _)| action).collect();
                for &action in &best_actions {
                    weights.push((action, DIRECTIONAL_BEST / best_actions.len() as f64));
                }
                let spread = (1.0 - DIRECTIONAL_BEST) / legal.len() as f64;
                for &action in &legal {
                    match weights.iter_mut().find(|(key, _)| *key == action) {
                        Some((_, weight)) => *weight += spread,
                        None => weights.push((action, 0.0 + spread)),
                    }
                }
            }
        }
        let total = python_sum(weights.iter().map(|&(_, weight)| weight));
        if total != 0.0 {
            for (_, weight) in &mut weights {
                *weight /= total;
            }
        }
        Ok(weights)
    }

    /// The ghost's move: its distribution sampled with one
    /// `random.random()` (`util.chooseFromDistribution`). `None` when it
    /// has no legal move (CS188's ghost would then try Stop, which is illegal).
    pub fn choose(
        self,
        board: &Board,
        state: &PacmanState,
        ghost: usize,
        random: &mut PythonRandom,
    ) -> Result<Option<Direction>, MoveError> {
        let mut items = self.distribution(board, state, ghost)?;
        if items.is_empty() {
            return Ok(None);
        }
        items.sort_by(|a, b| a.0.name().cmp(b.0.name()).then(a.1.total_cmp(&b.1)));
        let mut probabilities: Vec<f64> = items.iter().map(|&(_, p)| p).collect();
        let sum = python_sum(probabilities.iter().copied());
        if sum != 1.0 && sum != 0.0 {
            for p in &mut probabilities {
                *p /= sum;
            }
        }
        let choice = random.random();
        let mut at = 0;
        let mut total = probabilities[0];
        // Python would raise IndexError if rounding left the total short of
        // the draw; the last move is taken instead.
        while choice > total && at + 1 < probabilities.len() {
            at += 1;
            total += probabilities[at];
        }
        Ok(Some(items[at].0))
    }
}

/// Python's `sum` over floats (an int 0 to start, then left to right).
fn python_sum(values: impl Iterator<Item = f64>) -> f64 {
    values.fold(0.0, |total, value| total + value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::pacman::layout::Layout;
    use crate::game::pacman::layout::tests::SMALL;

    #[test]
    fn directional_ghosts_lean_towards_pacman_and_away_when_scared() {
        let board = Board::new(Layout::parse(SMALL).unwrap(), 2);
        let start = board.initial_state();
        let east = |state: &PacmanState| board.successor(state, 1, Direction::East).unwrap();
        let mut state = east(&east(&start));
        // Ghost 1 at (10, 5) can go East or South; South is closer to Pacman at (9, 1).
        let weights = GhostKind::Directional.distribution(&board, &state, 1).unwrap();
        let keys: Vec<&str> = weights.iter().map(|(d, _)| d.name()).collect();
        assert_eq!(keys, ["South", "East"], "the best moves first, as the Counter gets them");
        assert_eq!(weights[0].1, 0.9);
        assert_eq!(weights[1].1, 0.09999999999999998);
        state.agents[1].scared = 3;
        let scared = GhostKind::Directional.distribution(&board, &state, 1).unwrap();
        assert_eq!(scared[0].0, Direction::East, "a scared ghost flees");
        let random = GhostKind::Random.distribution(&board, &state, 1).unwrap();
        assert_eq!(random, [(Direction::East, 0.5), (Direction::South, 0.5)]);
    }

    #[test]
    fn a_draw_takes_the_first_sorted_move_whose_total_reaches_it() {
        let board = Board::new(Layout::parse(SMALL).unwrap(), 2);
        let start = board.initial_state();
        let east = |state: &PacmanState| board.successor(state, 1, Direction::East).unwrap();
        let state = east(&east(&start));
        // seed 0 draws 0.844...: East (0.09999...) falls short, South is taken.
        let mut random = PythonRandom::seeded(0);
        let pick = GhostKind::Directional.choose(&board, &state, 1, &mut random).unwrap();
        assert_eq!(pick, Some(Direction::South));
        // seed 1 draws 0.134..., within East's 0.5.
        let mut random = PythonRandom::seeded(1);
        assert_eq!(GhostKind::Random.choose(&board, &state, 1, &mut random).unwrap(), Some(Direction::East));
    }
}
