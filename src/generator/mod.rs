//! Random game trees, deterministic per seed, with `expect` blocks from the
//! reference.
//!
//! Trees are made from a ChaCha stream (identical on every platform and
//! release) seeded by the seed and the tree's index. With
//! `discriminating`, several candidates are drawn and the first on which
//! every known mistake (see [`crate::engine::mistakes`]) changes the result
//! is kept, so a wrong searcher cannot pass it by luck.

use std::collections::BTreeMap;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::engine::mistakes::undetected_mistakes;
use crate::engine::{self, Algorithm, SearchSettings};
use crate::tree::{ChildSpec, Expectation, NodeBody, NodeKind, NodeSpec, SearchDefaults, Tree, TreeBuilder};

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
        }
    }
}

/// Candidates drawn per tree when looking for a discriminating one.
const DISCRIMINATING_ATTEMPTS: u64 = 200;

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
        if is_fragile(&tree) {
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
/// conventions) makes a fragile comparison (docs/format.md 2.1).
pub fn is_fragile(tree: &Tree) -> bool {
    let defaults = tree.search_defaults();
    let settings = [
        SearchSettings::resolve(Algorithm::Minimax, defaults, None, None),
        SearchSettings::resolve(Algorithm::AlphaBeta, defaults, None, Some(true)),
        SearchSettings::resolve(Algorithm::AlphaBeta, defaults, None, Some(false)),
        SearchSettings::resolve(Algorithm::Expectimax, defaults, None, None),
    ];
    settings.iter().any(|settings| matches!(engine::fragility(tree, settings), Ok(Some(_))))
}

/// Known mistakes that a tree fails to expose, over every algorithm it expects.
pub fn mistakes_left(tree: &Tree) -> usize {
    tree.expectations()
        .keys()
        .filter_map(|name| name.parse::<Algorithm>().ok())
        .map(|algorithm| {
            undetected_mistakes(tree, &SearchSettings::resolve(algorithm, tree.search_defaults(), None, None))
        })
        .sum()
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
    let evals = options.evals || options.cut.is_some();
    while let Some((id, ply)) = queue.pop_front() {
        let kind = options.kinds[ply as usize % options.kinds.len().max(1)];
        let count = rng.random_range(options.branching.0.max(1)..=options.branching.1.max(options.branching.0).max(1));
        let mut children = Vec::with_capacity(count as usize);
        let mut previous_leaf: Option<f64> = None;
        for _ in 0..count {
            if ply + 1 >= options.depth {
                let value = match previous_leaf {
                    Some(value) if rng.random_bool(options.ties.clamp(0.0, 1.0)) => value,
                    _ => rng.random_range(options.values.0..=options.values.1.max(options.values.0)) as f64,
                };
                previous_leaf = Some(value);
                children.push(ChildSpec::leaf(value));
            } else {
                let child = format!("n{next_id}");
                next_id += 1;
                queue.push_back((child.clone(), ply + 1));
                children.push(ChildSpec::id(child));
            }
        }
        let probs = (kind == NodeKind::Chance).then(|| probabilities(rng, children.len()));
        let eval = evals.then(|| rng.random_range(options.values.0..=options.values.1.max(options.values.0)) as f64);
        builder.add(NodeSpec { id, body: NodeBody::Internal { kind, children, probs, eval } });
    }
    builder.build().expect("generated trees are valid by construction")
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
    let defaults =
        SearchDefaults { prune_on_equal: options.prune_on_equal, depth: options.cut, ..SearchDefaults::default() };
    let mut algorithms = vec![Algorithm::AlphaBeta, Algorithm::Expectimax];
    if !tree.has_chance_nodes() {
        algorithms.insert(0, Algorithm::Minimax);
    }
    let mut expect = BTreeMap::new();
    for algorithm in algorithms {
        let settings = SearchSettings::resolve(algorithm, defaults, None, None);
        if let Ok(outcome) = engine::search(&tree, &settings) {
            expect.insert(
                algorithm.name().to_string(),
                Expectation {
                    value: Some(outcome.value),
                    action: Some(outcome.action.map(|child| tree.action(child).to_string())),
                    visited: Some(tree.ids_of(&outcome.visited)),
                    vector: outcome.vector().map(<[f64]>::to_vec),
                },
            );
        }
    }
    let description = format!(
        "generated by treegrade gen: depth {}, branching {}..{}, kinds {}",
        options.depth,
        options.branching.0,
        options.branching.1,
        options.kinds.iter().map(|k| k.name()).collect::<Vec<_>>().join(",")
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
        assert_eq!(tree.search_defaults().depth, Some(2));
        assert!(tree.expectations().contains_key("expectimax") && !tree.expectations().contains_key("minimax"));
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
