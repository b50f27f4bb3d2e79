//! Random game trees, deterministic per seed, with `expect` blocks from the
//! reference.
//!
//! Trees are made from a ChaCha stream (identical on every platform and
//! release) seeded by the seed and the tree's index. With
//! `discriminating`, up to [`DISCRIMINATING_ATTEMPTS`] candidates are drawn
//! and the first on which every known mistake (see
//! [`crate::engine::mistakes`]) changes the result is kept, so a wrong
//! searcher cannot pass it by luck; when none does, the one that exposes the
//! most is returned and [`mistakes_passing`] names what it lets through
//! (`treegrade gen` then refuses it; a course's `generate` block keeps it).

use std::collections::BTreeMap;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::engine::mistakes::{passing_mistakes, undetected_mistakes};
use crate::engine::{self, Algorithm, SearchSettings};
use crate::tree::{
    ChildSpec, Expectation, NodeBody, NodeKind, NodeSpec, PlayerSpecs, SearchDefaults, Site, Tree, TreeBuilder,
};

/// How to make trees.
#[derive(Clone, Debug, PartialEq)]
pub struct GenOptions {
    /// The seed; the same seed always gives the same trees.
    pub seed: u64,
    /// Plies from the root to the leaves.
    pub depth: u32,
    /// Children per internal node, drawn from this inclusive range.
    pub branching: (u32, u32),
    /// The kind of each ply, repeated (`[Max, Min, Min]`: Pacman and two ghosts).
    pub kinds: Vec<NodeKind>,
    /// Leaf values, drawn from this inclusive range of integers.
    pub values: (i64, i64),
    /// Probability that a leaf repeats its left sibling's value (ties make
    /// pruning conventions and tie-breaking visible).
    pub ties: f64,
    /// Give every internal node an `eval`.
    pub evals: bool,
    /// A depth limit written into the file's `search` block (implies evals).
    pub cut: Option<u32>,
    /// The pruning convention written into the file's `search` block.
    pub prune_on_equal: Option<bool>,
    /// Keep drawing until every known mistake changes the result.
    pub discriminating: bool,
    /// Draw a max^n tree of this many players (docs/format.md 8.3): the
    /// plies that `kinds` makes max or min are the players' in turn
    /// (p1, p2, ..., pN, p1, ...), and leaves and evals are vectors.
    pub players: Option<u32>,
    /// Searches of section 8 whose answers the `expect` block also holds
    /// (iterative deepening at depth `cut`, MCTS with `iterations`).
    pub more: Vec<Algorithm>,
    /// The other settings written into each file's `search` block, as
    /// `gen`'s flags give them (a node budget, MCTS's iterations, seed and
    /// exploration, forward pruning's N, ...); `cut` and `prune_on_equal`
    /// stand over their keys here.
    pub settings: SearchDefaults,
}

impl Default for GenOptions {
    fn default() -> GenOptions {
        GenOptions {
            seed: 0,
            depth: 3,
            branching: (2, 3),
            kinds: vec![NodeKind::Max, NodeKind::Min],
            values: (-9, 9),
            ties: 0.2,
            evals: false,
            cut: None,
            prune_on_equal: None,
            discriminating: false,
            players: None,
            more: Vec::new(),
            settings: SearchDefaults::default(),
        }
    }
}

impl GenOptions {
    /// The `search:` block the options write into each tree.
    pub fn search_defaults(&self) -> SearchDefaults {
        let mut defaults = self.settings;
        for (key, value) in SearchDefaults::of(self.cut, self.prune_on_equal).iter() {
            defaults.set(key, value);
        }
        defaults
    }

    /// Whether every internal node needs an `eval`: with `evals`, a depth
    /// cut, or a setting that searches children by static value (forward
    /// pruning, 8.5).
    fn needs_evals(&self) -> bool {
        let defaults = self.search_defaults();
        self.evals
            || defaults.depth().is_some()
            || SearchSettings::resolve(Algorithm::Minimax, defaults, None, None).orders_by_static_value()
    }

    /// Every search whose answer a generated tree's `expect` block holds:
    /// those of section 3 that accept it, or max^n for a tree with
    /// players, then [`GenOptions::more`].
    fn algorithms(&self, has_chance: bool) -> Vec<Algorithm> {
        let mut algorithms = match self.players {
            Some(_) => vec![Algorithm::Maxn],
            None if has_chance => vec![Algorithm::AlphaBeta, Algorithm::Expectimax],
            None => vec![Algorithm::Minimax, Algorithm::AlphaBeta, Algorithm::Expectimax],
        };
        for &algorithm in &self.more {
            if !algorithms.contains(&algorithm) {
                algorithms.push(algorithm);
            }
        }
        algorithms
    }
}

/// Candidates drawn per tree when looking for a discriminating one.
pub const DISCRIMINATING_ATTEMPTS: u64 = 200;

/// Candidates drawn per tree when looking for one that is not fragile.
const ROBUST_ATTEMPTS: u64 = 100;

/// Tree number `index` of the seed, named `name`, with its `expect` block.
///
/// Never a fragile tree (docs/format.md 2.1): probabilities are multiples of a
/// power of two, so with whole-number values every chance value is exact,
/// and a candidate that is fragile all the same (huge values) is drawn again.
pub fn generate(options: &GenOptions, index: u64, name: &str) -> Tree {
    let attempts = if options.discriminating { DISCRIMINATING_ATTEMPTS } else { ROBUST_ATTEMPTS };
    let mut best: Option<(usize, Tree)> = None;
    for attempt in 0..attempts {
        let mut rng = ChaCha8Rng::seed_from_u64(mix(options.seed, index, attempt));
        let tree = with_expectations(draw(options, &mut rng, name), options);
        if is_fragile(&tree) || tree.expectations().is_empty() {
            best.get_or_insert((usize::MAX, tree));
            continue;
        }
        let undetected = if options.discriminating { mistakes_left(&tree) } else { 0 };
        if best.as_ref().is_none_or(|(fewest, _)| undetected < *fewest) {
            best = Some((undetected, tree));
        }
        if undetected == 0 {
            break;
        }
    }
    best.expect("at least one attempt").1
}

/// Whether a search that accepts the tree (alpha-beta under both pruning
/// conventions, and the searches its `expect` block names) makes a fragile
/// comparison (docs/format.md 2.1, 8.4).
pub fn is_fragile(tree: &Tree) -> bool {
    let defaults = tree.search_defaults();
    let mut settings = vec![
        SearchSettings::resolve(Algorithm::Minimax, defaults, None, None),
        SearchSettings::resolve(Algorithm::AlphaBeta, defaults, None, Some(true)),
        SearchSettings::resolve(Algorithm::AlphaBeta, defaults, None, Some(false)),
        SearchSettings::resolve(Algorithm::Expectimax, defaults, None, None),
    ];
    let named = tree.expectations().keys().filter_map(|name| name.parse::<Algorithm>().ok());
    settings.extend(named.map(|algorithm| SearchSettings::resolve(algorithm, defaults, None, None)));
    settings.iter().any(|settings| matches!(engine::fragility(tree, settings), Ok(Some(_))))
}

/// Known mistakes that a tree fails to expose, over every algorithm it expects.
pub fn mistakes_left(tree: &Tree) -> usize {
    classic_expectations(tree).map(|settings| undetected_mistakes(tree, &settings)).sum()
}

/// The settings of each search of section 3 that the tree's `expect` block holds.
fn classic_expectations(tree: &Tree) -> impl Iterator<Item = SearchSettings> + '_ {
    let expected = tree.expectations().keys().filter_map(|name| name.parse::<Algorithm>().ok());
    expected
        .filter(|algorithm| algorithm.is_classic())
        .map(|algorithm| SearchSettings::resolve(algorithm, tree.search_defaults(), None, None))
}

/// The known mistakes that a tree fails to expose, each with the searches
/// of its `expect` block that it would still pass
/// (`first-best-last (alphabeta, minimax)`).
pub fn mistakes_passing(tree: &Tree) -> Vec<String> {
    let mut passing: Vec<(&'static str, Vec<Algorithm>)> = Vec::new();
    for settings in classic_expectations(tree) {
        for key in passing_mistakes(tree, &settings) {
            match passing.iter_mut().find(|(known, _)| *known == key) {
                Some((_, algorithms)) => algorithms.push(settings.algorithm),
                None => passing.push((key, vec![settings.algorithm])),
            }
        }
    }
    let names = |algorithms: Vec<Algorithm>| algorithms.iter().map(|a| a.name()).collect::<Vec<_>>().join(", ");
    passing.into_iter().map(|(key, algorithms)| format!("{key} ({})", names(algorithms))).collect()
}

/// The most nodes (leaves included) a tree of these options can have: every
/// internal node with the most children `branching` allows. Saturates
/// rather than overflows (a depth of 40 is far past any limit).
pub fn most_nodes(options: &GenOptions) -> u128 {
    let widest = u128::from(options.branching.1.max(options.branching.0).max(1));
    let mut level = 1u128;
    let mut total = 1u128;
    for _ in 0..options.depth {
        level = level.saturating_mul(widest);
        total = total.saturating_add(level);
    }
    total
}

/// One stream per (seed, tree, attempt).
fn mix(seed: u64, index: u64, attempt: u64) -> u64 {
    seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ attempt.wrapping_mul(0xC2B2_AE3D_27D4_EB4F).rotate_left(17)
}

/// Draws the nodes: internal nodes `n0`, `n1`, ... breadth first; leaves inline.
fn draw(options: &GenOptions, rng: &mut ChaCha8Rng, name: &str) -> Tree {
    let mut builder = TreeBuilder::new(name, "n0");
    let mut queue = std::collections::VecDeque::from([("n0".to_string(), 0u32)]);
    let mut next_id = 1;
    let evals = options.needs_evals();
    let width = options.players.unwrap_or(1) as usize;
    let mut players = options.players.map(|count| PlayerSpecs { count, ..PlayerSpecs::default() });
    let (low, high) = (options.values.0, options.values.1.max(options.values.0));
    let numbers =
        |rng: &mut ChaCha8Rng| -> Vec<f64> { (0..width).map(|_| rng.random_range(low..=high) as f64).collect() };
    while let Some((id, ply)) = queue.pop_front() {
        let kind = options.kinds[ply as usize % options.kinds.len().max(1)];
        let count = rng.random_range(options.branching.0.max(1)..=options.branching.1.max(options.branching.0).max(1));
        let mut children = Vec::with_capacity(count as usize);
        let mut leaves = Vec::new();
        let mut previous_leaf: Option<Vec<f64>> = None;
        for position in 0..count as usize {
            if ply + 1 >= options.depth {
                let value = match previous_leaf {
                    Some(value) if rng.random_bool(options.ties.clamp(0.0, 1.0)) => value,
                    _ => numbers(rng),
                };
                previous_leaf = Some(value.clone());
                children.push(ChildSpec::leaf(value[0]));
                leaves.push((position, value));
            } else {
                let child = format!("n{next_id}");
                next_id += 1;
                queue.push_back((child.clone(), ply + 1));
                children.push(ChildSpec::id(child));
            }
        }
        let probs = (kind == NodeKind::Chance).then(|| probabilities(rng, children.len()));
        let eval = evals.then(|| numbers(rng));
        let (kind, mover) = match (options.players, kind) {
            (Some(count), NodeKind::Max | NodeKind::Min) => {
                let player = mover_at(options, ply, count);
                (if player == 1 { NodeKind::Max } else { NodeKind::Min }, Some(player))
            }
            _ => (kind, None),
        };
        let spec = builder.add(NodeSpec {
            id,
            body: NodeBody::Internal { kind, children, probs, eval: eval.as_ref().map(|e| e[0]) },
        });
        if let Some(table) = players.as_mut() {
            if let Some(mover) = mover {
                table.movers.insert(spec, mover);
            }
            if let Some(eval) = eval {
                table.vectors.insert(Site::Node(spec), eval);
            }
            for (child, vector) in leaves {
                table.vectors.insert(Site::Child { node: spec, child }, vector);
            }
        }
    }
    if let Some(table) = players {
        builder.set_players(table);
    }
    builder.build().expect("generated trees are valid by construction")
}

/// The player who moves at `ply` of a max^n tree: the plies that are not
/// chance plies take the players in turn, player 1 first.
fn mover_at(options: &GenOptions, ply: u32, count: u32) -> u32 {
    let kinds = &options.kinds;
    let turns = (0..ply).filter(|&p| kinds[p as usize % kinds.len().max(1)] != NodeKind::Chance).count() as u32;
    turns % count + 1
}

/// Probabilities that are multiples of a power of two (eighths for three
/// children): each child gets at least one unit and the rest are dealt at
/// random. They sum to 1 exactly, and p * v is exact for whole numbers v.
fn probabilities(rng: &mut ChaCha8Rng, count: usize) -> Vec<f64> {
    let total = (2 * count.max(1)).next_power_of_two();
    let mut weights = vec![1usize; count];
    for _ in count..total {
        weights[rng.random_range(0..count)] += 1;
    }
    weights.iter().map(|&w| w as f64 / total as f64).collect()
}

/// Attaches the search defaults and the reference's answers.
fn with_expectations(tree: Tree, options: &GenOptions) -> Tree {
    let defaults = options.search_defaults();
    let mut expect = BTreeMap::new();
    for algorithm in options.algorithms(tree.has_chance_nodes()) {
        let settings = SearchSettings::resolve(algorithm, defaults, None, None);
        if let Ok(outcome) = engine::search(&tree, &settings) {
            let vector = outcome.vector().map(<[f64]>::to_vec);
            expect.insert(
                algorithm.name().to_string(),
                Expectation {
                    value: if vector.is_some() { None } else { Some(outcome.value) },
                    action: Some(outcome.action.map(|child| tree.action(child).to_string())),
                    visited: Some(tree.ids_of(&outcome.visited)),
                    vector,
                },
            );
        }
    }
    let kinds: Vec<String> = match options.players {
        Some(count) => (0..options.depth)
            .map(|ply| match options.kinds[ply as usize % options.kinds.len().max(1)] {
                NodeKind::Chance => "chance".to_string(),
                _ => format!("p{}", mover_at(options, ply, count)),
            })
            .collect(),
        None => options.kinds.iter().map(|k| k.name().to_string()).collect(),
    };
    let description = format!(
        "generated by treegrade gen: depth {}, branching {}..{}, kinds {}",
        options.depth,
        options.branching.0,
        options.branching.1,
        kinds.join(",")
    );
    tree.with_metadata(Some(description), defaults, expect)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_tree() {
        let options = GenOptions { seed: 7, ..GenOptions::default() };
        let first = crate::load::write::tree_to_yaml(&generate(&options, 0, "t"));
        let again = crate::load::write::tree_to_yaml(&generate(&options, 0, "t"));
        let other = crate::load::write::tree_to_yaml(&generate(&options, 1, "t"));
        assert_eq!(first, again);
        assert_ne!(first, other);
    }

    #[test]
    fn trees_follow_the_options() {
        let options = GenOptions {
            seed: 3,
            depth: 4,
            branching: (2, 2),
            kinds: vec![NodeKind::Max, NodeKind::Chance, NodeKind::Min],
            cut: Some(2),
            ..GenOptions::default()
        };
        let tree = generate(&options, 0, "t");
        assert_eq!(tree.len(), 1 + 2 + 4 + 8 + 16);
        assert_eq!(tree.height(), 4);
        assert!(tree.nodes().iter().filter(|n| n.ply == 1).all(|n| n.kind == NodeKind::Chance));
        assert!(tree.nodes().iter().filter(|n| n.kind != NodeKind::Terminal).all(|n| n.eval.is_some()));
        assert_eq!(tree.search_defaults().depth(), Some(2));
        assert!(tree.expectations().contains_key("expectimax") && !tree.expectations().contains_key("minimax"));
    }

    #[test]
    fn the_most_nodes_counts_every_level_at_the_widest_branching() {
        let options = |depth, branching| GenOptions { depth, branching, ..GenOptions::default() };
        assert_eq!(most_nodes(&options(1, (2, 3))), 1 + 3);
        assert_eq!(most_nodes(&options(6, (50, 50))), (0..=6).map(|p| 50u128.pow(p)).sum::<u128>());
        assert_eq!(most_nodes(&options(3, (1, 1))), 4);
        assert_eq!(most_nodes(&options(u32::MAX, (3, 3))), u128::MAX);
    }

    #[test]
    fn a_shape_that_cannot_expose_a_mistake_names_it() {
        // MAX is only the root, and MIN nodes' children are leaves: eager
        // evaluation at MAX nodes below the root cannot show.
        let options = GenOptions {
            seed: 7,
            kinds: vec![NodeKind::Max, NodeKind::Min, NodeKind::Min],
            discriminating: true,
            ..GenOptions::default()
        };
        let passing = mistakes_passing(&generate(&options, 0, "t"));
        assert!(passing.iter().any(|name| name.starts_with("eager-children/max/below-root (")), "{passing:?}");
        assert!(passing.iter().any(|name| name.contains("minimax")), "{passing:?}");
    }

    #[test]
    fn discriminating_trees_expose_every_known_mistake() {
        let options = GenOptions {
            seed: 11,
            depth: 4,
            branching: (2, 3),
            ties: 0.4,
            prune_on_equal: Some(false),
            discriminating: true,
            ..GenOptions::default()
        };
        for index in 0..3 {
            let tree = generate(&options, index, "t");
            assert_eq!(mistakes_left(&tree), 0, "tree {index}:\n{}", crate::load::write::tree_to_yaml(&tree));
        }
    }
}
