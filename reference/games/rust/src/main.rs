//! Reference solutions of the games assignment: minimax, alpha-beta (with
//! move ordering by static value) and expectimax on tic-tac-toe,
//! connect-four and Pig.
//!
//! The kit serves a game's tree as it serves a written one, so these are the
//! searches of the written-tree assignment, plus move ordering
//! (docs/format.md 8.1): under `game.move_ordering()`, the children of a max
//! or min node above the depth cut are taken by static value, best for the
//! player to move first, equal values keeping the game's order.
//!
//! Every search is a depth-first recursion that returns `(value, action)` for
//! a node: the node's value and, at a max or min node, the action of the first
//! child that reaches that value. Only the action at the root matters; the
//! recursion returns it everywhere because that keeps the code the same at
//! every level.
//!
//! Three things decide whether a search matches the reference node for node:
//!
//! * the children are searched in the order the game gives them, and a node
//!   is entered (asked about) only when the search gets to it;
//! * a node is valued without looking at its children when it is a terminal
//!   or when it sits at the depth limit (there `game.evaluate` gives its
//!   value);
//! * alpha-beta stops a node's remaining children on the convention the test
//!   asks for (`game.prune_on_equal()`).

use treegrade_kit::{serve_playing, Answer, Game, Node, Player, Solutions};

fn main() {
    serve_playing(Solutions { minimax, alphabeta, expectimax }, choose_move);
}

// ---------------------------------------------------------------------------
// Playing whole games
// ---------------------------------------------------------------------------

/// The move to play from the root: iterative deepening alpha-beta, keeping
/// the move of the deepest search that finished, until the node budget runs
/// out or a search reached every end of the game. Below its depth a
/// position is valued by the game's evaluation when it is played with one,
/// else as 0; an end of the game by its utility times [`DECISIVE`].
fn choose_move(game: &Game) -> String {
    let root = game.root();
    let actions = game.actions(&root);
    let mut best = actions[0].clone();
    if actions.len() == 1 {
        return best;
    }
    for depth in 1.. {
        match game.within_budget(|| deepening_step(game, depth)) {
            Some((action, complete)) => {
                if let Some(action) = action {
                    best = action;
                }
                if complete {
                    break;
                }
            }
            None => break,
        }
    }
    best
}

/// How much more an end of the game weighs than any evaluation, in play: an
/// m,n,k-game's `lines` evaluation runs into the hundreds, a win is worth 1.
const DECISIVE: f64 = 1e9;

/// Alpha-beta to `depth` from the root: the action chosen, and whether no
/// position was cut by the depth.
fn deepening_step(game: &Game, depth: u32) -> (Option<String>, bool) {
    fn search(game: &Game, node: &Node, ply: u32, depth: u32, mut alpha: f64, mut beta: f64, cut: &mut bool) -> Outcome {
        if game.is_terminal(node) {
            return (game.utility(node) * DECISIVE, None);
        }
        if ply == depth {
            *cut = true;
            return (if game.evaluation().is_some() { game.evaluate(node) } else { 0.0 }, None);
        }
        let player = game.player(node);
        if player == Player::Chance {
            let mut total = 0.0;
            for (p, child) in game.probabilities(node).into_iter().zip(game.children(node)) {
                total += p * search(game, &child, ply + 1, depth, f64::NEG_INFINITY, f64::INFINITY, cut).0;
            }
            return (total, None);
        }
        let mut best = if player == Player::Max { f64::NEG_INFINITY } else { f64::INFINITY };
        let mut best_action = None;
        for (action, child) in game.successors(node) {
            let (value, _) = search(game, &child, ply + 1, depth, alpha, beta, cut);
            if improves(player, value, best) {
                best = value;
                best_action = Some(action);
            }
            if player == Player::Max {
                alpha = alpha.max(best);
            } else {
                beta = beta.min(best);
            }
            if alpha >= beta {
                break;
            }
        }
        (best, best_action)
    }
    let mut cut = false;
    let (_, action) = search(game, &game.root(), 0, depth, f64::NEG_INFINITY, f64::INFINITY, &mut cut);
    (action, !cut)
}

/// A node's value and the action of its best child (`None` where it has no choice).
type Outcome = (f64, Option<String>);

// ---------------------------------------------------------------------------
// Rules shared by the three searches
// ---------------------------------------------------------------------------

/// `true` when the depth limit stops the search at this ply.
///
/// The root is at ply 0, its children at ply 1, and so on. With a limit of
/// `d`, a non-terminal node at ply `d` is valued by its evaluation and its
/// children are never searched.
fn at_depth_limit(game: &Game, ply: u32) -> bool {
    game.depth() == Some(ply)
}

/// The value of `node` if the search stops there: a terminal (its utility,
/// at any ply) or a node on the depth limit (its evaluation).
///
/// Asking `is_terminal` is what enters the node: every search calls this
/// first, once per node.
fn stop_value(game: &Game, node: &Node, ply: u32) -> Option<f64> {
    if game.is_terminal(node) {
        Some(game.utility(node))
    } else if at_depth_limit(game, ply) {
        Some(game.evaluate(node))
    } else {
        None
    }
}

/// Is `value` better than `best` for `player` (max or min)?
///
/// Strictly better: on a tie the earlier child keeps its place, so the chosen
/// action is the first child that reaches the best value.
fn improves(player: Player, value: f64, best: f64) -> bool {
    if player == Player::Max {
        value > best
    } else {
        value < best
    }
}

/// The alpha-beta cutoff test.
///
/// A max node stops when its value `high` reaches beta (`low`); a min node
/// stops when alpha (`high`) reaches its value (`low`). With
/// `prune_on_equal` (AIMA's convention) equality is enough; without it (UC
/// Berkeley CS188's), the bound must be strictly passed.
fn prunes(game: &Game, high: f64, low: f64) -> bool {
    if game.prune_on_equal() {
        high >= low
    } else {
        high > low
    }
}

/// The value of a chance node: the sum of `p * v` over its children.
///
/// `value_of(child)` searches one child. The sum starts at 0 and adds the
/// children in order, exactly as FORMAT.md says, so that every correct
/// implementation gets the same double, bit for bit (Rust never fuses
/// `total + p * v` into a multiply-add on its own).
fn expected_value(game: &Game, node: &Node, mut value_of: impl FnMut(&Node) -> f64) -> f64 {
    let mut total = 0.0;
    for (p, child) in game.probabilities(node).into_iter().zip(game.children(node)) {
        total += p * value_of(&child);
    }
    total
}

/// The `(action, child)` pairs in the order the search takes them: the
/// game's, or under move ordering by static value (a stable sort, so equal
/// values keep the game's order). Reading static values enters no child.
fn searched_successors(game: &Game, node: &Node, player: Player) -> Vec<(String, Node)> {
    let pairs = game.successors(node);
    let ordered = game.move_ordering() && matches!(player, Player::Max | Player::Min);
    let Some(values) = game.static_values(node).filter(|_| ordered) else { return pairs };
    let mut keyed: Vec<(f64, (String, Node))> = values.into_iter().zip(pairs).collect();
    if player == Player::Max {
        keyed.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap_or(std::cmp::Ordering::Equal));
    } else {
        keyed.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap_or(std::cmp::Ordering::Equal));
    }
    keyed.into_iter().map(|(_, pair)| pair).collect()
}

/// The starting value of a max or min node, which any child improves.
fn worst_for(player: Player) -> f64 {
    if player == Player::Max {
        f64::NEG_INFINITY
    } else {
        f64::INFINITY
    }
}

// ---------------------------------------------------------------------------
// Minimax
// ---------------------------------------------------------------------------

/// Plain minimax from the root.
fn minimax(game: &Game) -> Answer {
    let (value, action) = minimax_search(game, &game.root(), 0);
    Answer { value, action }
}

/// `(value, action)` of `node` at `ply` under minimax.
fn minimax_search(game: &Game, node: &Node, ply: u32) -> Outcome {
    if let Some(value) = stop_value(game, node, ply) {
        return (value, None);
    }
    let player = game.player(node);
    let (mut best_value, mut best_action) = (worst_for(player), None);
    for (action, child) in searched_successors(game, node, player) {
        let (value, _) = minimax_search(game, &child, ply + 1);
        if improves(player, value, best_value) {
            (best_value, best_action) = (value, Some(action));
        }
    }
    (best_value, best_action)
}

// ---------------------------------------------------------------------------
// Alpha-beta
// ---------------------------------------------------------------------------

/// Alpha-beta from the root, with the window (-inf, +inf).
fn alphabeta(game: &Game) -> Answer {
    let (value, action) = alphabeta_search(game, &game.root(), 0, f64::NEG_INFINITY, f64::INFINITY);
    Answer { value, action }
}

/// `(value, action)` of `node` at `ply` under alpha-beta.
///
/// `alpha` is the best value MAX can already force above this node, `beta`
/// the best MIN can. Once a node's value is outside that window, the player
/// above will never let the game reach it, so its remaining children need not
/// be searched.
fn alphabeta_search(game: &Game, node: &Node, ply: u32, mut alpha: f64, mut beta: f64) -> Outcome {
    if let Some(value) = stop_value(game, node, ply) {
        return (value, None);
    }
    let player = game.player(node);
    if player == Player::Chance {
        // A chance node is valued in full: each child is searched with a
        // fresh window (-inf, +inf), and nothing is pruned on its account.
        let value = expected_value(game, node, |child| {
            alphabeta_search(game, child, ply + 1, f64::NEG_INFINITY, f64::INFINITY).0
        });
        return (value, None);
    }
    let (mut best_value, mut best_action) = (worst_for(player), None);
    for (action, child) in searched_successors(game, node, player) {
        let (value, _) = alphabeta_search(game, &child, ply + 1, alpha, beta);
        if improves(player, value, best_value) {
            (best_value, best_action) = (value, Some(action));
        }
        if player == Player::Max {
            if prunes(game, best_value, beta) {
                break; // MIN above already has something better than this node
            }
            alpha = alpha.max(best_value);
        } else {
            if prunes(game, alpha, best_value) {
                break; // MAX above already has something better than this node
            }
            beta = beta.min(best_value);
        }
    }
    (best_value, best_action)
}

// ---------------------------------------------------------------------------
// Expectimax
// ---------------------------------------------------------------------------

/// Expectimax from the root (no action at a chance root).
fn expectimax(game: &Game) -> Answer {
    let (value, action) = expectimax_search(game, &game.root(), 0);
    Answer { value, action }
}

/// `(value, action)` of `node` at `ply`: minimax with chance nodes.
fn expectimax_search(game: &Game, node: &Node, ply: u32) -> Outcome {
    if let Some(value) = stop_value(game, node, ply) {
        return (value, None);
    }
    let player = game.player(node);
    if player == Player::Chance {
        let value = expected_value(game, node, |child| expectimax_search(game, child, ply + 1).0);
        return (value, None);
    }
    let (mut best_value, mut best_action) = (worst_for(player), None);
    for (action, child) in searched_successors(game, node, player) {
        let (value, _) = expectimax_search(game, &child, ply + 1);
        if improves(player, value, best_value) {
            (best_value, best_action) = (value, Some(action));
        }
    }
    (best_value, best_action)
}
