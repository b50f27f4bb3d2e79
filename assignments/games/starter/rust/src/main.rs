//! Game search on real games (tic-tac-toe, connect-four, Pig): minimax,
//! alpha-beta and expectimax.
//!
//! Write the bodies of the three functions below. Each one receives a
//! `game` and returns an [`Answer`]:
//!
//! * `value`: the value of the root;
//! * `action`: the action (from `game.actions(&game.root())`, or the first
//!   item of a pair in `game.successors(&game.root())`) of the root's best
//!   child, or `None` when the root has no choice to make (the root is a
//!   terminal, a chance node, or the depth limit is 0).
//!
//! What `game` offers (see README.md and `cargo doc --open` for details):
//!
//! ```text
//! game.root()                 // the root Node, at ply 0
//! game.depth()                // Option<u32>: the depth limit in plies
//! game.prune_on_equal()       // the alpha-beta pruning convention (see alphabeta)
//! game.player(&node)          // Player::Max, Min, Chance or Terminal
//! game.is_terminal(&node)     // true for a terminal
//! game.utility(&node)         // a terminal's value (for MAX)
//! game.children(&node)        // Vec<Node>, in search order
//! game.actions(&node)         // Vec<String>, the action of each child
//! game.successors(&node)      // Vec<(String, Node)>, same order
//! game.probabilities(&node)   // Vec<f64>, a chance node's probabilities
//! game.evaluate(&node)        // the heuristic value of a node at the depth limit
//! game.move_ordering()        // q4: true when children go by static value
//! game.static_values(&node)   // q4: Option<Vec<f64>>, each child's static value
//! game.state(&node)           // Option<Json>: the position
//! game.board(&node)           // Option<Vec<String>>: an m,n,k-game's rows, top first
//! ```
//!
//! In q4 (`game.move_ordering()`), take the children of a max node in order
//! of their static value, greatest first (least first at a min node), equal
//! values keeping their order (a stable sort), and return the action of the
//! best child in that order.
//!
//! What the grader checks, for every test: your value, your action, and the
//! exact order in which your search enters nodes. A node is *entered* the
//! first time your code asks `game` anything about it (its kind, its
//! children, its utility, ...), and the grader records that order itself. It
//! must be the order of the reference search:
//!
//! * search children in the order `game` gives them, depth first;
//! * enter a node only when your search gets to it: do not look at all the
//!   children (not even `game.is_terminal(&child)`) before recursing into
//!   the first one;
//! * never enter a node that your search does not need (pruned children,
//!   nodes below the depth limit).
//!
//! `println!` is fine for debugging: the output goes to standard error and
//! the grader shows it in the report. Run `treegrade check` in this folder to
//! test your code locally.

#![allow(unused_variables)] // remove once your searches are written

use treegrade_kit::{serve_playing, Answer, Game, Solutions};

fn main() {
    serve_playing(Solutions { minimax, alphabeta, expectimax }, choose_move);
}

/// Minimax.
///
/// The value of a node is:
///
/// * a terminal: `game.utility(&node)`;
/// * a node at the depth limit (ply == `game.depth()`, the root being ply 0)
///   that is not a terminal: `game.evaluate(&node)`, without looking at its
///   children;
/// * a max node: the greatest value among its children; a min node: the
///   least. Several min (or max) levels in a row are possible, e.g. one MAX
///   and two ghosts: always ask `game.player(&node)`, never assume the
///   players alternate.
///
/// The action is that of the *first* child (in order) whose value is the
/// root's value: on a tie, keep the earlier child. If the root is a terminal
/// or the depth limit is 0, the answer has no action.
///
/// Minimax tests never contain chance nodes.
fn minimax(game: &Game) -> Answer {
    todo!("write minimax in src/main.rs")
}

/// Alpha-beta pruning.
///
/// The same value and action as minimax (expectimax at chance nodes), found
/// while skipping the children that cannot matter. Call the root with the
/// window `alpha = -inf`, `beta = +inf` (`f64::NEG_INFINITY`,
/// `f64::INFINITY`) and search the children in order. At a max node, after
/// each child:
///
/// * update the node's value: `v = v.max(child_value)`;
/// * stop searching its remaining children if `v >= beta` when
///   `game.prune_on_equal()` is true, or if `v > beta` when it is false (the
///   test says which; both are checked);
/// * otherwise `alpha = alpha.max(v)`.
///
/// A min node is symmetric: stop if `v <= alpha` (`v < alpha` when
/// `game.prune_on_equal()` is false), otherwise `beta = beta.min(v)`.
///
/// A chance node, if the tree has one, is valued in full: search each of its
/// children with a fresh window `(-inf, +inf)` and add up `p * value`.
///
/// The action is that of the first root child that strictly improved the
/// root's value. The depth limit works as in minimax. The grader checks the
/// exact set and order of the nodes you enter, so a search that prunes too
/// little or too much fails even if its value is right.
fn alphabeta(game: &Game) -> Answer {
    todo!("write alphabeta in src/main.rs")
}

/// Expectimax.
///
/// Like minimax, plus chance nodes. The value of a chance node is the sum of
/// `p * value` over its children, with `p` from `game.probabilities(&node)`:
/// start from 0.0 and add the children in order (`total += p * value`), so
/// that your number is exactly the reference's.
///
/// A chance root has no action. The depth limit works as in minimax (a
/// chance node at the limit is evaluated too).
fn expectimax(game: &Game) -> Answer {
    todo!("write expectimax in src/main.rs")
}

/// For questions that play whole games: the action to play from the root.
///
/// `game.root()` is the position to move from; `game.side()` says whether
/// you play `Player::Max` or `Player::Min`, and `game.actions(&root)` lists
/// the legal moves. Search as you like (no depth limit is set: cut where
/// you choose, and value a cut position by `game.evaluate(&node)` when
/// `game.evaluation()` names one). `game.budget()` is the number of nodes
/// you may enter for this move: run each search inside
/// `game.within_budget(|| ...)`, which gives `None` once the budget is
/// spent, and return the best move found so far.
fn choose_move(game: &Game) -> String {
    todo!("write choose_move in src/main.rs")
}
