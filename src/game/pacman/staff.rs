//! What a correct search finds at a Pacman state, in the terms of CS188's
//! game tests: the tied-best actions at the root and the number of distinct
//! states the search explores.
//!
//! CS188 counts explored states in `GameState.explored`: every
//! `generateSuccessor` adds the state it is called on and the state it
//! returns, and states are equal by value ([`PacmanState::value`]), whoever
//! is to move. A depth-first search that generates a node's successors as
//! it searches them explores exactly the states of the nodes it enters, so
//! the count is the number of distinct values among the reference search's
//! visited nodes (the root too, once it has a successor).

use std::collections::HashSet;
use std::sync::Arc;

use super::rules::{PacmanRules, StopRule, Turn};
use super::state::{Board, Direction, OwnedValue, PacmanState};
use crate::engine::{self, Algorithm, SearchError, SearchSettings};
use crate::game::Unfolding;
use crate::tree::{GameTree, NodeIndex, NodeKind};

/// The most nodes one reference search at a state may make.
const MAX_NODES: usize = 5_000_000;

/// What a correct agent does at one state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StaffAnswer {
    /// Every root action whose value is the best, in `getLegalActions` order.
    pub best: Vec<Direction>,
    /// Distinct states explored by the search (see the module's documentation).
    pub explored: usize,
}

/// The answer of a correct `algorithm` agent of `rounds` rounds at `state`
/// (Pacman to move), ghosts as MIN (or chance nodes for expectimax),
/// valuing cuts and terminals by the score, pruning only on strict
/// inequality as CS188 does.
pub fn staff_answer(
    board: &Board,
    state: &PacmanState,
    algorithm: Algorithm,
    rounds: u32,
    stop: StopRule,
) -> Result<StaffAnswer, SearchError> {
    let ghost_nodes = if algorithm.models_chance() { NodeKind::Chance } else { NodeKind::Min };
    let rules = Arc::new(PacmanRules::new(board.clone(), ghost_nodes, stop));
    let start = Turn { state: state.clone(), agent: 0 };
    let tree = Unfolding::new("pacman".to_string(), rules, start, Some(0), MAX_NODES);
    let settings = SearchSettings {
        depth: Some(rounds * board.agents as u32),
        prune_on_equal: false,
        ..SearchSettings::new(algorithm)
    };
    let outcome = engine::search(&tree, &settings)?;
    let explored: HashSet<OwnedValue> =
        outcome.visited.iter().map(|&node| OwnedValue(tree.position(node).state)).collect();
    let values = tree
        .children(NodeIndex::ROOT)
        .map(|child| engine::value_of(&tree, child, &settings).map(|value| (child, value)))
        .collect::<Result<Vec<_>, _>>()?;
    let top = values.iter().map(|&(_, value)| value).fold(f64::NEG_INFINITY, f64::max);
    let best = values
        .iter()
        .filter(|&&(_, value)| value == top)
        .filter_map(|&(child, _)| Direction::parse(&tree.action(child)))
        .collect();
    let explored = if outcome.visited.len() > 1 { explored.len() } else { 0 };
    Ok(StaffAnswer { best, explored })
}
