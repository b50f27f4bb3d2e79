//! Reference solutions of the more-searches assignment (assignments/more-searches):
//! iterative deepening on a node budget, max^n, Monte Carlo tree search and
//! alpha-beta with forward pruning, exactly as docs/format.md section 8
//! defines them.

use std::collections::HashMap;

use treegrade_kit::{
    serve_more, Answer, Game, MctsAnswer, MoreSolutions, Node, Player, Solutions, VectorAnswer,
};

// -- iterative deepening (8.2) --------------------------------------------------

/// One iteration: alpha-beta with depth limit `limit`, the root child `first` first.
struct Iteration<'g> {
    game: &'g Game,
    limit: u32,
    first: Option<String>,
    /// A non-terminal node was valued at the depth limit: the tree was not seen whole.
    cut: bool,
}

impl Iteration<'_> {
    fn value(&mut self, node: &Node, ply: u32, mut alpha: f64, mut beta: f64) -> (f64, Option<String>) {
        let game = self.game;
        if game.is_terminal(node) {
            return (game.utility(node), None);
        }
        if ply == self.limit {
            self.cut = true;
            return (game.evaluate(node), None);
        }
        let player = game.player(node);
        let mut pairs = game.successors(node);
        if ply == 0 {
            if let Some(first) = &self.first {
                pairs.sort_by_key(|(action, _)| action != first);
            }
        }
        if player == Player::Chance {
            let mut total = 0.0;
            for (p, (_, child)) in game.probabilities(node).into_iter().zip(pairs) {
                total += p * self.value(&child, ply + 1, f64::NEG_INFINITY, f64::INFINITY).0;
            }
            return (total, None);
        }
        let maximising = player == Player::Max;
        let mut best = if maximising { f64::NEG_INFINITY } else { f64::INFINITY };
        let mut best_action = None;
        for (action, child) in pairs {
            let (value, _) = self.value(&child, ply + 1, alpha, beta);
            if maximising {
                if value > best {
                    best = value;
                    best_action = Some(action);
                }
                if if game.prune_on_equal() { best >= beta } else { best > beta } {
                    break;
                }
                alpha = alpha.max(best);
            } else {
                if value < best {
                    best = value;
                    best_action = Some(action);
                }
                if if game.prune_on_equal() { best <= alpha } else { best < alpha } {
                    break;
                }
                beta = beta.min(best);
            }
        }
        (best, best_action)
    }
}

fn iterative_deepening(game: &Game) -> Answer {
    let deepest = game.depth().unwrap_or(1);
    let mut answer: Option<Answer> = None;
    for depth in 1..=deepest {
        let first = answer.as_ref().and_then(|answer| answer.action.clone());
        let finished = game.within_budget(|| {
            game.start_iteration(depth);
            let mut iteration = Iteration { game, limit: depth, first, cut: false };
            let (value, action) = iteration.value(&game.root(), 0, f64::NEG_INFINITY, f64::INFINITY);
            (Answer { value, action }, iteration.cut)
        });
        let Some((found, cut)) = finished else { break };
        answer = Some(found);
        if !cut {
            break; // this iteration saw the whole tree
        }
    }
    answer.expect("the budget allows the first iteration")
}

// -- max^n (8.3) ------------------------------------------------------------------

fn maxn_value(game: &Game, node: &Node, ply: u32) -> (Vec<f64>, Option<String>) {
    if game.is_terminal(node) {
        return (game.utilities(node), None);
    }
    if game.depth() == Some(ply) {
        return (game.evaluate_vector(node), None);
    }
    if game.player(node) == Player::Chance {
        let mut total = vec![0.0; game.players().unwrap_or(2) as usize];
        for (p, child) in game.probabilities(node).into_iter().zip(game.children(node)) {
            let (vector, _) = maxn_value(game, &child, ply + 1);
            for (sum, value) in total.iter_mut().zip(vector) {
                *sum += p * value;
            }
        }
        return (total, None);
    }
    let i = game.mover(node).expect("a player moves here") as usize - 1;
    let mut best: Option<(Vec<f64>, String)> = None;
    for (action, child) in game.successors(node) {
        let (vector, _) = maxn_value(game, &child, ply + 1);
        if best.as_ref().is_none_or(|(best, _)| vector[i] > best[i]) {
            best = Some((vector, action));
        }
    }
    let (value, action) = best.expect("a player's node has children");
    (value, Some(action))
}

fn maxn(game: &Game) -> VectorAnswer {
    let (value, action) = maxn_value(game, &game.root(), 0);
    VectorAnswer { value, action }
}

// -- Monte Carlo tree search (8.4) ------------------------------------------------

struct Tree<'g> {
    game: &'g Game,
    counts: HashMap<Node, (u64, f64)>,
}

impl Tree<'_> {
    fn n(&self, node: &Node) -> u64 {
        self.counts.get(node).map_or(0, |counts| counts.0)
    }

    fn stops(&self, node: &Node, ply: u32) -> bool {
        self.game.is_terminal(node) || self.game.depth() == Some(ply)
    }

    fn by_chance(&self, node: &Node) -> Node {
        let r = self.game.random();
        let children = self.game.children(node);
        let mut total = 0.0;
        for (p, child) in self.game.probabilities(node).into_iter().zip(&children) {
            total += p;
            if r < total {
                return child.clone();
            }
        }
        children.last().expect("a chance node has children").clone()
    }

    /// Selection and expansion: the path from the root, and the ply where it stops.
    fn select(&self) -> (Vec<Node>, u32) {
        let game = self.game;
        let (mut node, mut ply) = (game.root(), 0);
        let mut path = vec![node.clone()];
        while !self.stops(&node, ply) {
            ply += 1;
            if game.player(&node) == Player::Chance {
                node = self.by_chance(&node);
                path.push(node.clone());
                if self.n(&node) == 0 {
                    break;
                }
                continue;
            }
            let children = game.children(&node);
            if let Some(fresh) = children.iter().find(|child| self.n(child) == 0) {
                path.push(fresh.clone());
                node = fresh.clone();
                break;
            }
            let sign = if game.player(&node) == Player::Max { 1.0 } else { -1.0 };
            let log_n = (self.n(&node) as f64).ln();
            let c = game.exploration().unwrap_or(std::f64::consts::SQRT_2);
            let mut best = (f64::NEG_INFINITY, children[0].clone());
            for child in &children {
                let (n, w) = self.counts[child];
                let ucb = sign * (w / n as f64) + c * (log_n / n as f64).sqrt();
                if ucb > best.0 {
                    best = (ucb, child.clone());
                }
            }
            node = best.1;
            path.push(node.clone());
        }
        (path, ply)
    }

    /// The rollout from `node` at `ply`: random moves to a terminal or the depth limit.
    fn roll_out(&self, mut node: Node, mut ply: u32) -> f64 {
        let game = self.game;
        loop {
            if game.is_terminal(&node) {
                return game.utility(&node);
            }
            if game.depth() == Some(ply) {
                return game.evaluate(&node);
            }
            node = if game.player(&node) == Player::Chance {
                self.by_chance(&node)
            } else {
                let children = game.children(&node);
                children[(game.random() * children.len() as f64) as usize].clone()
            };
            ply += 1;
        }
    }
}

fn mcts(game: &Game) -> MctsAnswer {
    let mut tree = Tree { game, counts: HashMap::new() };
    for _ in 0..game.iterations().unwrap_or(1) {
        let (path, ply) = tree.select();
        let reward = tree.roll_out(path.last().expect("the path holds the root").clone(), ply);
        for node in path {
            let counts = tree.counts.entry(node).or_insert((0, 0.0));
            counts.0 += 1;
            counts.1 += reward;
        }
    }
    let root = game.root();
    let (n, w) = tree.counts[&root];
    let successors = if tree.stops(&root, 0) { Vec::new() } else { game.successors(&root) };
    let counts: Vec<(u64, f64)> =
        successors.iter().map(|(_, child)| tree.counts.get(child).copied().unwrap_or((0, 0.0))).collect();
    let mut action: Option<(u64, String)> = None;
    if game.player(&root) != Player::Chance {
        for ((name, _), &(n, _)) in successors.iter().zip(&counts) {
            if action.as_ref().is_none_or(|(most, _)| n > *most) {
                action = Some((n, name.clone()));
            }
        }
    }
    MctsAnswer { value: w / n as f64, action: action.map(|(_, name)| name), counts }
}

// -- forward pruning (8.5) ------------------------------------------------------

/// `node`'s (action, child) pairs in the order alpha-beta searches them: at a
/// max or min node above the depth limit under forward pruning, by static
/// value, best for the mover first (a stable sort), the first N only.
fn searched(game: &Game, node: &Node, ply: u32) -> Vec<(String, Node)> {
    let pairs = game.successors(node);
    let player = game.player(node);
    let above = game.depth().map_or(true, |depth| ply < depth);
    let sortable = matches!(player, Player::Max | Player::Min) && above && game.move_ordering();
    let Some(values) = game.static_values(node).filter(|_| sortable) else { return pairs };
    let mut keyed: Vec<(f64, (String, Node))> = values.into_iter().zip(pairs).collect();
    // Compared as doubles (-0 equals 0), never NaN; equal values keep their order.
    let order = |a: f64, b: f64| a.partial_cmp(&b).unwrap_or(std::cmp::Ordering::Equal);
    if player == Player::Max {
        keyed.sort_by(|a, b| order(b.0, a.0));
    } else {
        keyed.sort_by(|a, b| order(a.0, b.0));
    }
    let keep = game.forward_pruning().map_or(keyed.len(), |n| n as usize);
    keyed.into_iter().take(keep).map(|(_, pair)| pair).collect()
}

/// Alpha-beta with forward pruning: the value and the action of the root.
fn forward_value(game: &Game, node: &Node, ply: u32, mut alpha: f64, mut beta: f64) -> (f64, Option<String>) {
    let player = game.player(node);
    if player == Player::Terminal {
        return (game.utility(node), None);
    }
    if game.depth() == Some(ply) {
        return (game.evaluate(node), None);
    }
    let pairs = searched(game, node, ply);
    if player == Player::Chance {
        let mut total = 0.0;
        for (p, (_, child)) in game.probabilities(node).into_iter().zip(pairs) {
            total += p * forward_value(game, &child, ply + 1, f64::NEG_INFINITY, f64::INFINITY).0;
        }
        return (total, None);
    }
    let maximising = player == Player::Max;
    let mut best = if maximising { f64::NEG_INFINITY } else { f64::INFINITY };
    let mut best_action = None;
    for (action, child) in pairs {
        let (value, _) = forward_value(game, &child, ply + 1, alpha, beta);
        if maximising {
            if value > best {
                best = value;
                best_action = Some(action);
            }
            if if game.prune_on_equal() { best >= beta } else { best > beta } {
                break;
            }
            alpha = alpha.max(best);
        } else {
            if value < best {
                best = value;
                best_action = Some(action);
            }
            if if game.prune_on_equal() { best <= alpha } else { best < alpha } {
                break;
            }
            beta = beta.min(best);
        }
    }
    (best, best_action)
}

fn alphabeta(game: &Game) -> Answer {
    let (value, action) = forward_value(game, &game.root(), 0, f64::NEG_INFINITY, f64::INFINITY);
    Answer { value, action }
}

fn unused(_: &Game) -> Answer {
    todo!("this assignment asks for iterative deepening, max^n, MCTS and alpha-beta with forward pruning")
}

fn main() {
    let more = MoreSolutions { iterative_deepening: Some(iterative_deepening), maxn: Some(maxn), mcts: Some(mcts) };
    serve_more(Solutions { minimax: unused, alphabeta, expectimax: unused }, more);
}
