//! Beyond minimax: iterative deepening, max^n, Monte Carlo tree search and
//! forward pruning.
//!
//! Write the bodies of the four functions below. README.md says exactly
//! what each search must do; the grader checks your value, your action and
//! the exact order in which your search enters nodes (the first time you
//! ask `game` about a node), and for MCTS also the random numbers you draw
//! and each root child's N and W. What `game` offers (and `cargo doc --open`):
//!
//! ```text
//! game.root()                   // the root Node, at ply 0
//! game.depth()                  // Option<u32> (iterative deepening: the deepest iteration's)
//! game.prune_on_equal()         // the alpha-beta pruning convention
//! game.player(&node)            // Player::Max, Min, Chance or Terminal
//! game.is_terminal(&node)       // true when the game is over
//! game.utility(&node)           // a terminal's value for MAX
//! game.successors(&node)        // Vec<(String, Node)> in the tree's order
//! game.children(&node)          // Vec<Node> in the same order
//! game.probabilities(&node)     // a chance node's probabilities
//! game.evaluate(&node)          // the evaluation at the depth limit
//!
//! // iterative deepening (q1, q2)
//! game.budget()                 // Option<u32>: the most nodes your iterations may enter
//! game.start_iteration(depth)   // call it at the start of every iteration
//! game.within_budget(|| ...)    // None when the search ran out of the budget
//!
//! // max^n (q3)
//! game.players()                // Option<u32>: the number of players
//! game.mover(&node)             // Option<u32>: the player to move (1, 2, ...)
//! game.utilities(&node)         // Vec<f64>: a terminal's utility vector
//! game.evaluate_vector(&node)   // Vec<f64>: the evaluation vector at the depth limit
//!
//! // Monte Carlo tree search (q4, q5)
//! game.iterations()             // Option<u32>: how many iterations to run
//! game.exploration()            // Option<f64>: UCB's constant c
//! game.random()                 // the next random number in [0, 1): use no other
//!
//! // alpha-beta with forward pruning (q6)
//! game.forward_pruning()        // Option<u32>: search only the N best children of a max or min node
//! game.static_values(&node)     // Option<Vec<f64>>: each child's static value, in the order of children
//! ```
//!
//! Run `treegrade check` in this folder to test your code.

#![allow(unused_variables)] // remove once your searches are written

use treegrade_kit::{serve_more, Answer, Game, MctsAnswer, MoreSolutions, Solutions, VectorAnswer};

fn main() {
    let more = MoreSolutions { iterative_deepening: Some(iterative_deepening), maxn: Some(maxn), mcts: Some(mcts) };
    serve_more(Solutions { minimax: unused, alphabeta, expectimax: unused }, more);
}

/// Alpha-beta with forward pruning: the value and action of the root.
///
/// At every max or min node above `game.depth()`, sort the children by
/// `game.static_values(&node)` (greatest first at a max node, least first
/// at a min node, equal values keeping their order) and search only the
/// first `game.forward_pruning()` of them, with alpha-beta's pruning among
/// those. Chance nodes and nodes at the depth limit are never cut.
fn alphabeta(game: &Game) -> Answer {
    todo!("alphabeta")
}

/// Alpha-beta at depth 1, 2, ..., `game.depth()`: the answer of the last complete iteration.
///
/// Start each iteration with `game.start_iteration(depth)`, inside
/// `game.within_budget(|| ...)`. At the root, search first the child whose
/// action the previous iteration chose, then the others in order. Stop
/// early when an iteration valued no node by `game.evaluate` (it saw the
/// whole tree).
fn iterative_deepening(game: &Game) -> Answer {
    todo!("iterative_deepening")
}

/// Max^n: the root's utility vector and the action of its best child.
///
/// At a node of player i (`game.mover(&node) == Some(i)`), take the first
/// child whose vector has the greatest i-th component (`vector[i - 1]`); a
/// chance node's vector is the sum of p * vector, component by component.
fn maxn(game: &Game) -> VectorAnswer {
    todo!("maxn")
}

/// UCT with `game.iterations()` iterations: W/N of the root, the root child
/// with the greatest N (the first on ties; `None` at a chance root), and
/// `(n, w)` of each root child in the order of `game.children(&root)`.
/// Every random number comes from `game.random()`.
fn mcts(game: &Game) -> MctsAnswer {
    todo!("mcts")
}

fn unused(_: &Game) -> Answer {
    unreachable!("this assignment asks for iterative deepening, max^n and MCTS only")
}
