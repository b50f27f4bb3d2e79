//! Property tests: the reference engine against a deliberately naive
//! implementation written straight from docs/format.md sections 2 and 3.
//!
//! Random trees mix max, min and chance nodes at any level, use values from a
//! narrow range (so ties and equality cutoffs are frequent), inline leaves,
//! named terminals in both spellings, labelled edges, non-uniform
//! probabilities and evals. Each tree is built through [`TreeBuilder`]; the
//! YAML property also renders it as a tree file and loads it back.
//!
//! The naive searches below share no code with the engine: they are plain
//! recursions over their own node list, built from the generated description,
//! and they speak in ids and action strings.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::path::Path;

use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::Config;
use treegrade::engine::{Algorithm, SearchError, SearchOutcome, SearchSettings, search};
use treegrade::load::load_tree_str;
use treegrade::tree::{ChildSpec, ChildTarget, NodeBody, NodeIndex, NodeKind, NodeSpec, Tree, TreeBuilder};

// ---------------------------------------------------------------------------
// Generated descriptions
// ---------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Max,
    Min,
    Chance,
}

/// How a leaf is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LeafStyle {
    /// A number in its parent's child list (id `PARENT.K`).
    Inline,
    /// A named terminal, `ID: 3`.
    Short,
    /// A named terminal, `ID: {value: 3}`.
    Long,
}

#[derive(Clone, Debug)]
enum Gen {
    Leaf {
        value: f64,
        style: LeafStyle,
    },
    Inner {
        kind: Kind,
        /// Children with a flag: does the edge carry an explicit action label?
        children: Vec<(bool, Gen)>,
        /// For chance nodes: each slot is worth 1/len of probability and goes
        /// to child `slot % n`, so the probabilities sum to exactly 1.
        slots: Option<Vec<usize>>,
        eval: Option<f64>,
        /// Render this node in YAML block style rather than flow style.
        block: bool,
    },
}

/// A generated test case: the tree and how to spell it.
#[derive(Clone, Debug)]
struct Case {
    root: Gen,
    /// 0: ids `n0, n1...`; 1: numeric ids; 2: both, alternating.
    id_style: u8,
    /// List the nodes of the YAML file in reverse order (forward references).
    reverse: bool,
}

fn value() -> impl Strategy<Value = f64> {
    prop_oneof![
        12 => (-3i32..=3).prop_map(f64::from),
        2 => (-12i32..=12).prop_map(|q| f64::from(q) / 4.0),
        1 => prop::sample::select(vec![0.1, 0.2, 0.3, 0.7, -0.1, -0.3, 1.1]),
    ]
}

fn kind() -> impl Strategy<Value = Kind> {
    prop_oneof![Just(Kind::Max), Just(Kind::Min), Just(Kind::Chance)]
}

/// Small trees (often shallow, sometimes a bare terminal) and larger ones up to 6 plies deep.
fn gen_tree() -> impl Strategy<Value = Gen> {
    prop_oneof![1 => gen_tree_sized(96, 4), 2 => gen_tree_sized(300, 2)]
}

fn gen_tree_sized(desired_size: u32, expected_branch_size: u32) -> impl Strategy<Value = Gen> {
    let leaf =
        (value(), prop_oneof![3 => Just(LeafStyle::Inline), 1 => Just(LeafStyle::Short), 1 => Just(LeafStyle::Long)])
            .prop_map(|(value, style)| Gen::Leaf { value, style });
    leaf.prop_recursive(6, desired_size, expected_branch_size, |inner| {
        (
            kind(),
            prop::collection::vec((prop::bool::weighted(0.2), inner), 1..=4),
            prop::option::weighted(
                0.5,
                prop_oneof![prop::collection::vec(0..4usize, 4), prop::collection::vec(0..4usize, 8)],
            ),
            prop::option::weighted(0.9, value()),
            prop::bool::weighted(0.2),
        )
            .prop_map(|(kind, children, slots, eval, block)| Gen::Inner {
                kind,
                children,
                slots: if kind == Kind::Chance { slots } else { None },
                eval,
                block,
            })
    })
}

/// Replaces chance nodes by max or min nodes (for the minimax properties).
fn without_chance(node_gen: Gen) -> Gen {
    match node_gen {
        Gen::Leaf { .. } => node_gen,
        Gen::Inner { kind, children, slots, eval, block } => Gen::Inner {
            kind: match kind {
                Kind::Chance if slots.is_some() => Kind::Max,
                Kind::Chance => Kind::Min,
                other => other,
            },
            children: children.into_iter().map(|(labelled, child)| (labelled, without_chance(child))).collect(),
            slots: None,
            eval,
            block,
        },
    }
}

fn case() -> impl Strategy<Value = Case> {
    (gen_tree(), prop::bool::weighted(0.4), 0u8..3, any::<bool>()).prop_map(|(root, strip, id_style, reverse)| Case {
        root: if strip { without_chance(root) } else { root },
        id_style,
        reverse,
    })
}

// ---------------------------------------------------------------------------
// The naive model: its own nodes, ids and actions, straight from docs/format.md
// ---------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NKind {
    Max,
    Min,
    Chance,
    Terminal,
}

#[derive(Clone, Debug)]
struct NNode {
    id: String,
    /// The action on the edge into this node.
    action: String,
    kind: NKind,
    utility: f64,
    eval: Option<f64>,
    ply: u32,
    children: Vec<usize>,
    /// One probability per child (chance nodes only).
    probs: Vec<f64>,
}

/// Everything derived from a [`Case`]: the naive nodes (index 0 is the root),
/// the builder specs, and the YAML text.
struct Prepared {
    nodes: Vec<NNode>,
    specs: Vec<NodeSpec>,
    yaml: String,
}

impl Prepared {
    fn has_chance(&self) -> bool {
        self.nodes.iter().any(|n| n.kind == NKind::Chance)
    }

    fn height(&self) -> u32 {
        self.nodes.iter().map(|n| n.ply).max().unwrap_or(0)
    }

    /// Whether a depth cut at `depth` reaches only nodes that have an eval.
    fn depth_is_valid(&self, depth: u32) -> bool {
        self.nodes.iter().all(|n| n.ply != depth || n.kind == NKind::Terminal || n.eval.is_some())
    }

    fn build(&self) -> Tree {
        let mut builder = TreeBuilder::new("generated", self.nodes[0].id.clone());
        for spec in &self.specs {
            builder.add(spec.clone());
        }
        builder.build().unwrap_or_else(|errors| panic!("generated tree is invalid: {errors:?}\n{}", self.yaml))
    }
}

struct Preparer<'c> {
    case: &'c Case,
    named: usize,
    nodes: Vec<NNode>,
    specs: Vec<NodeSpec>,
    /// YAML entries under `nodes:`, one string per named node.
    entries: Vec<String>,
}

fn number(value: f64) -> String {
    // Display gives the shortest text that parses back to the same double.
    format!("{value}")
}

fn is_numeric(id: &str) -> bool {
    id.bytes().all(|b| b.is_ascii_digit())
}

/// An id as written in a child list: numeric ids must be quoted there.
fn id_in_list(id: &str) -> String {
    if is_numeric(id) { format!("\"{id}\"") } else { id.to_string() }
}

impl<'c> Preparer<'c> {
    fn prepare(case: &'c Case) -> Prepared {
        let mut preparer = Preparer { case, named: 0, nodes: Vec::new(), specs: Vec::new(), entries: Vec::new() };
        let root_id = preparer.fresh_id();
        preparer.add_named(&case.root, root_id.clone(), root_id, 0);
        let mut yaml = String::from("name: generated\ndescription: a random tree\n");
        let _ = writeln!(yaml, "root: {}", id_in_list(&preparer.nodes[0].id));
        yaml.push_str("nodes:\n");
        if case.reverse {
            preparer.entries.reverse();
        }
        for entry in &preparer.entries {
            yaml.push_str(entry);
        }
        Prepared { nodes: preparer.nodes, specs: preparer.specs, yaml }
    }

    fn fresh_id(&mut self) -> String {
        let n = self.named;
        self.named += 1;
        let numeric = self.case.id_style == 1 || (self.case.id_style == 2 && n % 2 == 1);
        if numeric { format!("{}", n + 1) } else { format!("n{n}") }
    }

    /// A YAML mapping key for an id; numeric ids are written bare or quoted.
    fn key(&self, id: &str) -> String {
        if is_numeric(id) && id.len().is_multiple_of(2) { format!("\"{id}\"") } else { id.to_string() }
    }

    /// Adds a named node (and its subtree); returns its naive index.
    fn add_named(&mut self, node_gen: &Gen, id: String, action: String, ply: u32) -> usize {
        let index = self.nodes.len();
        match node_gen {
            Gen::Leaf { value, style } => {
                self.nodes.push(NNode {
                    id: id.clone(),
                    action,
                    kind: NKind::Terminal,
                    utility: *value,
                    eval: None,
                    ply,
                    children: Vec::new(),
                    probs: Vec::new(),
                });
                self.specs.push(NodeSpec::terminal(id.clone(), *value));
                let entry = match style {
                    LeafStyle::Long => format!("  {}: {{value: {}}}\n", self.key(&id), number(*value)),
                    _ => format!("  {}: {}\n", self.key(&id), number(*value)),
                };
                self.entries.push(entry);
            }
            Gen::Inner { kind, children, slots, eval, block } => {
                self.nodes.push(NNode {
                    id: id.clone(),
                    action,
                    kind: match kind {
                        Kind::Max => NKind::Max,
                        Kind::Min => NKind::Min,
                        Kind::Chance => NKind::Chance,
                    },
                    utility: 0.0,
                    eval: *eval,
                    ply,
                    children: Vec::new(),
                    probs: Vec::new(),
                });
                // Reserve this node's YAML entry now so that entries are in preorder.
                let entry_slot = self.entries.len();
                self.entries.push(String::new());
                let n = children.len();
                let probs: Option<Vec<f64>> = slots.as_ref().map(|slots| {
                    let mut counts = vec![0usize; n];
                    for &slot in slots {
                        counts[slot % n] += 1;
                    }
                    counts.iter().map(|&c| c as f64 / slots.len() as f64).collect()
                });
                let mut child_specs = Vec::new();
                let mut child_texts = Vec::new();
                let mut child_indices = Vec::new();
                for (position, (labelled, child)) in children.iter().enumerate() {
                    let label = labelled.then(|| format!("go{}", position + 1));
                    let (child_index, target, text) = match child {
                        Gen::Leaf { value, style: LeafStyle::Inline } => {
                            let leaf_id = format!("{id}.{}", position + 1);
                            let child_index = self.nodes.len();
                            self.nodes.push(NNode {
                                id: leaf_id.clone(),
                                action: label.clone().unwrap_or(leaf_id),
                                kind: NKind::Terminal,
                                utility: *value,
                                eval: None,
                                ply: ply + 1,
                                children: Vec::new(),
                                probs: Vec::new(),
                            });
                            (child_index, ChildTarget::Leaf(*value), number(*value))
                        }
                        _ => {
                            let child_id = self.fresh_id();
                            let child_action = label.clone().unwrap_or_else(|| child_id.clone());
                            let text = id_in_list(&child_id);
                            let child_index = self.add_named(child, child_id.clone(), child_action, ply + 1);
                            (child_index, ChildTarget::Id(child_id), text)
                        }
                    };
                    child_indices.push(child_index);
                    child_specs.push(ChildSpec { action: label.clone(), target });
                    child_texts.push(match &label {
                        Some(label) => format!("{{{label}: {text}}}"),
                        None => text,
                    });
                }
                let node = &mut self.nodes[index];
                node.children = child_indices;
                if node.kind == NKind::Chance {
                    // docs/format.md 1 and 2: absent probs are uniform, p = 1.0 / n.
                    node.probs = probs.clone().unwrap_or_else(|| vec![1.0 / n as f64; n]);
                }
                let kind_name = match kind {
                    Kind::Max => "max",
                    Kind::Min => "min",
                    Kind::Chance => "chance",
                };
                let key = self.key(&id);
                let probs_text = probs
                    .as_ref()
                    .map(|p| format!("[{}]", p.iter().map(|&x| number(x)).collect::<Vec<_>>().join(", ")));
                let entry = if *block {
                    let mut entry = format!("  {key}:\n    {kind_name}:\n");
                    for text in &child_texts {
                        let _ = writeln!(entry, "      - {text}");
                    }
                    if let Some(probs) = &probs_text {
                        let _ = writeln!(entry, "    probs: {probs}");
                    }
                    if let Some(eval) = eval {
                        let _ = writeln!(entry, "    eval: {}", number(*eval));
                    }
                    entry
                } else {
                    let mut entry = format!("  {key}: {{{kind_name}: [{}]", child_texts.join(", "));
                    if let Some(probs) = &probs_text {
                        let _ = write!(entry, ", probs: {probs}");
                    }
                    if let Some(eval) = eval {
                        let _ = write!(entry, ", eval: {}", number(*eval));
                    }
                    entry.push_str("}\n");
                    entry
                };
                self.entries[entry_slot] = entry;
                self.specs.push(NodeSpec {
                    id,
                    body: NodeBody::Internal {
                        kind: match kind {
                            Kind::Max => NodeKind::Max,
                            Kind::Min => NodeKind::Min,
                            Kind::Chance => NodeKind::Chance,
                        },
                        children: child_specs,
                        probs,
                        eval: *eval,
                    },
                });
            }
        }
        index
    }
}

/// A naive search result in the terms of docs/format.md: ids and action strings.
#[derive(Clone, Debug, PartialEq)]
struct NaiveOutcome {
    value: f64,
    action: Option<String>,
    visited: Vec<String>,
}

/// docs/format.md 2: a non-terminal at ply `depth` is valued by its eval.
fn is_cut(node: &NNode, depth: Option<u32>) -> bool {
    node.kind != NKind::Terminal && depth == Some(node.ply)
}

/// docs/format.md 3.1: plain minimax.
fn naive_minimax(nodes: &[NNode], depth: Option<u32>) -> NaiveOutcome {
    fn value(nodes: &[NNode], i: usize, depth: Option<u32>, visited: &mut Vec<String>) -> f64 {
        let node = &nodes[i];
        visited.push(node.id.clone());
        if node.kind == NKind::Terminal {
            return node.utility;
        }
        if is_cut(node, depth) {
            return node.eval.expect("a cut node has an eval");
        }
        let values: Vec<f64> = node.children.iter().map(|&c| value(nodes, c, depth, visited)).collect();
        match node.kind {
            NKind::Max => values.into_iter().fold(f64::NEG_INFINITY, |a, b| if b > a { b } else { a }),
            NKind::Min => values.into_iter().fold(f64::INFINITY, |a, b| if b < a { b } else { a }),
            _ => panic!("minimax on a chance node"),
        }
    }
    let mut visited = Vec::new();
    let root = &nodes[0];
    if root.kind == NKind::Terminal || is_cut(root, depth) {
        let v = value(nodes, 0, depth, &mut visited);
        return NaiveOutcome { value: v, action: None, visited };
    }
    visited.push(root.id.clone());
    let values: Vec<f64> = root.children.iter().map(|&c| value(nodes, c, depth, &mut visited)).collect();
    let best = match root.kind {
        NKind::Max => values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        NKind::Min => values.iter().copied().fold(f64::INFINITY, f64::min),
        _ => panic!("minimax on a chance node"),
    };
    // docs/format.md 3.3: the first child (in order) whose value is best.
    let chosen = values.iter().position(|&v| v == best).expect("the best value is some child's");
    NaiveOutcome { value: best, action: Some(nodes[root.children[chosen]].action.clone()), visited }
}

/// docs/format.md 3.1 and 2: expectimax (expectiminimax).
fn naive_expectimax(nodes: &[NNode], depth: Option<u32>) -> NaiveOutcome {
    fn value(nodes: &[NNode], i: usize, depth: Option<u32>, visited: &mut Vec<String>) -> f64 {
        let node = &nodes[i];
        visited.push(node.id.clone());
        if node.kind == NKind::Terminal {
            return node.utility;
        }
        if is_cut(node, depth) {
            return node.eval.expect("a cut node has an eval");
        }
        match node.kind {
            NKind::Max => {
                let mut best = f64::NEG_INFINITY;
                for &c in &node.children {
                    let v = value(nodes, c, depth, visited);
                    if v > best {
                        best = v;
                    }
                }
                best
            }
            NKind::Min => {
                let mut best = f64::INFINITY;
                for &c in &node.children {
                    let v = value(nodes, c, depth, visited);
                    if v < best {
                        best = v;
                    }
                }
                best
            }
            NKind::Chance => {
                // acc = acc + p_i * v_i, from 0, in child order.
                let mut acc = 0.0;
                for (k, &c) in node.children.iter().enumerate() {
                    let v = value(nodes, c, depth, visited);
                    acc += node.probs[k] * v;
                }
                acc
            }
            NKind::Terminal => unreachable!(),
        }
    }
    let mut visited = Vec::new();
    let root = &nodes[0];
    if matches!(root.kind, NKind::Terminal | NKind::Chance) || is_cut(root, depth) {
        let v = value(nodes, 0, depth, &mut visited);
        return NaiveOutcome { value: v, action: None, visited };
    }
    visited.push(root.id.clone());
    let values: Vec<f64> = root.children.iter().map(|&c| value(nodes, c, depth, &mut visited)).collect();
    let best = match root.kind {
        NKind::Max => values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        _ => values.iter().copied().fold(f64::INFINITY, f64::min),
    };
    let chosen = values.iter().position(|&v| v == best).expect("the best value is some child's");
    NaiveOutcome { value: best, action: Some(nodes[root.children[chosen]].action.clone()), visited }
}

/// docs/format.md 3.2: alpha-beta with both pruning conventions; chance nodes are
/// valued fully, each child with the window (-inf, +inf).
fn naive_alphabeta(nodes: &[NNode], depth: Option<u32>, prune_on_equal: bool) -> NaiveOutcome {
    struct Ctx<'a> {
        nodes: &'a [NNode],
        depth: Option<u32>,
        prune_on_equal: bool,
        visited: Vec<String>,
    }
    impl Ctx<'_> {
        fn prunes(&self, high: f64, low: f64) -> bool {
            if self.prune_on_equal { high >= low } else { high > low }
        }
        /// Returns the node's value and the child that last strictly improved it.
        fn value(&mut self, i: usize, mut alpha: f64, mut beta: f64) -> (f64, Option<usize>) {
            let node = &self.nodes[i];
            self.visited.push(node.id.clone());
            if node.kind == NKind::Terminal {
                return (node.utility, None);
            }
            if is_cut(node, self.depth) {
                return (node.eval.expect("a cut node has an eval"), None);
            }
            match node.kind {
                NKind::Max => {
                    let mut v = f64::NEG_INFINITY;
                    let mut best = None;
                    for &c in &node.children {
                        let (cv, _) = self.value(c, alpha, beta);
                        if cv > v {
                            v = cv;
                            best = Some(c);
                        }
                        if self.prunes(v, beta) {
                            break;
                        }
                        if v > alpha {
                            alpha = v;
                        }
                    }
                    (v, best)
                }
                NKind::Min => {
                    let mut v = f64::INFINITY;
                    let mut best = None;
                    for &c in &node.children {
                        let (cv, _) = self.value(c, alpha, beta);
                        if cv < v {
                            v = cv;
                            best = Some(c);
                        }
                        if self.prunes(alpha, v) {
                            break;
                        }
                        if v < beta {
                            beta = v;
                        }
                    }
                    (v, best)
                }
                NKind::Chance => {
                    let mut acc = 0.0;
                    for (k, &c) in node.children.iter().enumerate() {
                        let (cv, _) = self.value(c, f64::NEG_INFINITY, f64::INFINITY);
                        acc += node.probs[k] * cv;
                    }
                    (acc, None)
                }
                NKind::Terminal => unreachable!(),
            }
        }
    }
    let mut ctx = Ctx { nodes, depth, prune_on_equal, visited: Vec::new() };
    let (value, best) = ctx.value(0, f64::NEG_INFINITY, f64::INFINITY);
    NaiveOutcome { value, action: best.map(|c| nodes[c].action.clone()), visited: ctx.visited }
}

fn naive(nodes: &[NNode], settings: &SearchSettings) -> NaiveOutcome {
    match settings.algorithm {
        Algorithm::Minimax => naive_minimax(nodes, settings.depth),
        Algorithm::Expectimax => naive_expectimax(nodes, settings.depth),
        Algorithm::AlphaBeta => naive_alphabeta(nodes, settings.depth, settings.prune_on_equal),
        other => unreachable!("the naive searches are those of section 3, not {other}"),
    }
}

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

fn in_terms_of_ids(tree: &Tree, outcome: &SearchOutcome) -> NaiveOutcome {
    NaiveOutcome {
        value: outcome.value,
        action: outcome.action.map(|child| tree.action(child).to_string()),
        visited: tree.ids_of(&outcome.visited),
    }
}

/// Random settings: the depth is `None` or a ply at which every non-terminal has an eval.
#[derive(Clone, Debug)]
struct SettingsPick {
    algorithm: u8,
    depth: Option<Index>,
    prune_on_equal: bool,
}

fn settings_pick() -> impl Strategy<Value = SettingsPick> {
    (0u8..3, prop::option::weighted(0.5, any::<Index>()), any::<bool>())
        .prop_map(|(algorithm, depth, prune_on_equal)| SettingsPick { algorithm, depth, prune_on_equal })
}

fn valid_depths(prepared: &Prepared) -> Vec<u32> {
    (0..=prepared.height() + 1).filter(|&d| prepared.depth_is_valid(d)).collect()
}

fn resolve(pick: &SettingsPick, prepared: &Prepared, algorithm: Option<Algorithm>) -> SearchSettings {
    let algorithm = algorithm.unwrap_or(match pick.algorithm {
        0 if !prepared.has_chance() => Algorithm::Minimax,
        0 | 2 => Algorithm::Expectimax,
        _ => Algorithm::AlphaBeta,
    });
    let depths = valid_depths(prepared);
    let depth = pick.depth.as_ref().map(|index| depths[index.index(depths.len())]);
    SearchSettings { algorithm, depth, prune_on_equal: pick.prune_on_equal, ..SearchSettings::new(algorithm) }
}

/// Whether `small` is a subsequence of `large`.
fn is_subsequence<T: PartialEq>(small: &[T], large: &[T]) -> bool {
    let mut rest = large.iter();
    small.iter().all(|item| rest.any(|candidate| candidate == item))
}

const CASES: u32 = 2000;

fn config(cases: u32) -> Config {
    Config { cases, failure_persistence: None, ..Config::default() }
}

// ---------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------

proptest! {
    #![proptest_config(config(CASES))]

    /// Value (exactly, as doubles), action and visited order of every
    /// algorithm, depth limit and pruning convention equal the naive ones.
    #[test]
    fn engine_matches_the_naive_implementation(case in case(), pick in settings_pick()) {
        let prepared = Preparer::prepare(&case);
        let tree = prepared.build();
        let settings = resolve(&pick, &prepared, None);
        let outcome = search(&tree, &settings).expect("valid settings");
        let expected = naive(&prepared.nodes, &settings);
        let actual = in_terms_of_ids(&tree, &outcome);
        prop_assert_eq!(actual, expected, "settings {:?}\n{}", settings, prepared.yaml);
    }

    /// Alpha-beta gets the value and action of the full search (minimax
    /// without chance nodes, expectimax with) and visits a subsequence of it.
    #[test]
    fn alphabeta_agrees_with_the_full_search(case in case(), pick in settings_pick()) {
        let prepared = Preparer::prepare(&case);
        let tree = prepared.build();
        let full_algorithm = if prepared.has_chance() { Algorithm::Expectimax } else { Algorithm::Minimax };
        let settings = resolve(&pick, &prepared, Some(Algorithm::AlphaBeta));
        let full_settings = SearchSettings { algorithm: full_algorithm, ..settings };
        let pruned = search(&tree, &settings).expect("valid settings");
        let full = search(&tree, &full_settings).expect("valid settings");
        prop_assert_eq!(pruned.value, full.value, "{:?}\n{}", settings, prepared.yaml);
        prop_assert_eq!(pruned.action, full.action, "{:?}\n{}", settings, prepared.yaml);
        prop_assert!(
            is_subsequence(&pruned.visited, &full.visited),
            "alpha-beta visited {:?}, not a subsequence of {:?}\n{}",
            tree.ids_of(&pruned.visited), tree.ids_of(&full.visited), prepared.yaml
        );
        prop_assert!(full.cutoffs.is_empty(), "{} reported cutoffs", full_algorithm);
        if pruned.cutoffs.is_empty() {
            prop_assert_eq!(&pruned.visited, &full.visited);
        }
    }

    /// Pruning never enters a pruned subtree: parents come first, nothing in
    /// a skipped subtree is visited, and the visited order is exactly the
    /// preorder of the tree without skipped subtrees and below depth cuts.
    #[test]
    fn pruning_never_enters_a_pruned_subtree(case in case(), pick in settings_pick()) {
        let prepared = Preparer::prepare(&case);
        let tree = prepared.build();
        let settings = resolve(&pick, &prepared, Some(Algorithm::AlphaBeta));
        let outcome = search(&tree, &settings).expect("valid settings");

        let mut skipped: HashSet<NodeIndex> = HashSet::new();
        let mut cut_nodes = HashSet::new();
        for cutoff in &outcome.cutoffs {
            let node = tree.node(cutoff.node);
            prop_assert!(matches!(node.kind, NodeKind::Max | NodeKind::Min), "cutoff at a {} node", node.kind);
            prop_assert!(cutoff.searched >= 1 && cutoff.searched < node.child_count, "{:?}", cutoff);
            prop_assert!(cut_nodes.insert(cutoff.node), "two cutoffs at one node");
            skipped.extend(tree.children(cutoff.node).skip(cutoff.searched as usize));
        }

        let mut position: HashMap<NodeIndex, usize> = HashMap::new();
        for (step, &node) in outcome.visited.iter().enumerate() {
            prop_assert!(position.insert(node, step).is_none(), "{} visited twice", tree.id(node));
        }
        prop_assert_eq!(outcome.visited.first().copied(), Some(NodeIndex::ROOT));
        for (step, &node) in outcome.visited.iter().enumerate() {
            if let Some(parent) = tree.node(node).parent {
                let parent_step = position.get(&parent).copied();
                prop_assert!(
                    parent_step.is_some_and(|p| p < step),
                    "{} visited before (or without) its parent {}", tree.id(node), tree.id(parent)
                );
            }
            let mut ancestor = Some(node);
            while let Some(a) = ancestor {
                prop_assert!(!skipped.contains(&a), "{} lies in the pruned subtree of {}", tree.id(node), tree.id(a));
                ancestor = tree.node(a).parent;
            }
        }

        // The preorder of everything neither pruned nor below a depth cut.
        let mut expected = Vec::new();
        let mut stack = vec![NodeIndex::ROOT];
        while let Some(node) = stack.pop() {
            expected.push(node);
            if settings.depth == Some(tree.node(node).ply) {
                continue;
            }
            let children: Vec<NodeIndex> = tree.children(node).filter(|c| !skipped.contains(c)).collect();
            stack.extend(children.into_iter().rev());
        }
        prop_assert_eq!(tree.ids_of(&outcome.visited), tree.ids_of(&expected));
    }

    /// The engine refuses exactly the invalid searches: minimax on a tree
    /// with chance nodes, and a search that enters a node at the depth cut
    /// that has no eval (docs/format.md 1: a node it prunes needs none).
    #[test]
    fn invalid_settings_are_rejected(case in case(), algorithm in 0u8..3, depth in 0u32..8) {
        let prepared = Preparer::prepare(&case);
        let tree = prepared.build();
        let algorithm = Algorithm::CLASSIC[algorithm as usize];
        let settings = SearchSettings { algorithm, depth: Some(depth), prune_on_equal: true, ..SearchSettings::new(algorithm) };
        match search(&tree, &settings) {
            Ok(outcome) => {
                prop_assert!(algorithm != Algorithm::Minimax || !prepared.has_chance());
                for &visited in &outcome.visited {
                    let node = tree.node(visited);
                    prop_assert!(node.ply != depth || node.kind == NodeKind::Terminal || node.eval.is_some());
                }
            }
            Err(SearchError::ChanceUnderMinimax { node, .. }) => {
                prop_assert_eq!(algorithm, Algorithm::Minimax);
                prop_assert_eq!(tree.node(node).kind, NodeKind::Chance);
            }
            Err(SearchError::MissingEval { node, depth: reported, .. }) => {
                prop_assert!(!prepared.depth_is_valid(depth), "every cut node has an eval, yet one is missing");
                prop_assert_eq!(reported, depth);
                let node = tree.node(node);
                prop_assert!(node.ply == depth && node.kind != NodeKind::Terminal && node.eval.is_none());
            }
            Err(other) => prop_assert!(false, "a written tree cannot fail with {other}"),
        }
    }
}

proptest! {
    #![proptest_config(config(CASES / 2))]

    /// Rendering a tree as YAML and loading it gives the same arena as the
    /// builder, and the same search results as the naive implementation.
    #[test]
    fn yaml_round_trip_gives_the_same_tree(case in case(), pick in settings_pick()) {
        let prepared = Preparer::prepare(&case);
        let built = prepared.build();
        let loaded = load_tree_str(prepared.yaml.clone(), Path::new("generated.yaml"))
            .unwrap_or_else(|error| panic!("{error}\n{}", prepared.yaml));
        let tree = &loaded.tree;
        prop_assert_eq!(tree.name(), "generated");
        prop_assert_eq!(tree.len(), built.len());
        prop_assert_eq!(tree.len(), prepared.nodes.len());
        for index in 0..tree.len() as u32 {
            let index = NodeIndex(index);
            prop_assert_eq!(tree.id(index), built.id(index));
            prop_assert_eq!(tree.action(index), built.action(index));
            let (a, b) = (tree.node(index), built.node(index));
            prop_assert_eq!(a, b, "node {}\n{}", tree.id(index), prepared.yaml);
            prop_assert_eq!(a.utility.to_bits(), b.utility.to_bits());
            prop_assert_eq!(a.probability.to_bits(), b.probability.to_bits());
        }
        let settings = resolve(&pick, &prepared, None);
        let outcome = search(tree, &settings).expect("valid settings");
        prop_assert_eq!(in_terms_of_ids(tree, &outcome), naive(&prepared.nodes, &settings), "{}", prepared.yaml);
    }
}

// ---------------------------------------------------------------------------
// Fixed trees
// ---------------------------------------------------------------------------

fn internal(id: &str, kind: NodeKind, children: Vec<ChildSpec>, eval: Option<f64>) -> NodeSpec {
    NodeSpec { id: id.into(), body: NodeBody::Internal { kind, children, probs: None, eval } }
}

fn leaves(values: &[f64]) -> Vec<ChildSpec> {
    values.iter().map(|&v| ChildSpec::leaf(v)).collect()
}

/// A chain 200,000 plies deep; kinds cycle max, min, min, chance, max...
fn deep_chain(plies: usize) -> Tree {
    let mut builder = TreeBuilder::new("chain", "c0");
    let kinds = [NodeKind::Max, NodeKind::Min, NodeKind::Min, NodeKind::Chance];
    for ply in 0..plies {
        let child = if ply + 1 == plies { ChildSpec::leaf(1.5) } else { ChildSpec::id(format!("c{}", ply + 1)) };
        let eval = (ply % 1000 == 0).then_some(-(ply as f64));
        builder.add(internal(&format!("c{ply}"), kinds[ply % 4], vec![child], eval));
    }
    builder.build().expect("a chain is a tree")
}

#[test]
fn a_chain_200_000_plies_deep_does_not_overflow_the_stack() {
    const PLIES: usize = 200_000;
    let tree = deep_chain(PLIES);
    assert_eq!(tree.len(), PLIES + 1);
    assert_eq!(tree.height(), PLIES as u32);
    for algorithm in [Algorithm::AlphaBeta, Algorithm::Expectimax] {
        for prune_on_equal in [true, false] {
            let settings = SearchSettings { algorithm, depth: None, prune_on_equal, ..SearchSettings::new(algorithm) };
            let outcome = search(&tree, &settings).expect("valid settings");
            assert_eq!(outcome.value, 1.5, "{algorithm}");
            assert_eq!(outcome.visited.len(), PLIES + 1);
            assert_eq!(outcome.visited.last(), Some(&NodeIndex(PLIES as u32)));
            assert_eq!(outcome.action.map(|a| tree.id(a).to_string()).as_deref(), Some("c1"));
            assert!(outcome.cutoffs.is_empty());
        }
    }
    // A depth cut deep down the chain, at a ply with an eval.
    let settings = SearchSettings {
        algorithm: Algorithm::AlphaBeta,
        depth: Some(150_000),
        prune_on_equal: true,
        ..SearchSettings::new(Algorithm::AlphaBeta)
    };
    let outcome = search(&tree, &settings).expect("valid settings");
    assert_eq!(outcome.value, -150_000.0);
    assert_eq!(outcome.visited.len(), 150_001);
    // Minimax refuses the chain: it has chance nodes.
    let minimax = SearchSettings::new(Algorithm::Minimax);
    assert!(matches!(search(&tree, &minimax), Err(SearchError::ChanceUnderMinimax { .. })));
}

#[test]
fn a_chain_200_000_plies_deep_loads_from_yaml() {
    const PLIES: usize = 200_000;
    let mut yaml = String::from("root: c0\nnodes:\n");
    for ply in 0..PLIES {
        let kind = if ply % 2 == 0 { "max" } else { "min" };
        let child = if ply + 1 == PLIES { "7".to_string() } else { format!("c{}", ply + 1) };
        let _ = writeln!(yaml, "  c{ply}: {{{kind}: [{child}]}}");
    }
    let loaded = load_tree_str(yaml, Path::new("chain.yaml")).expect("a chain is a tree");
    let tree = &loaded.tree;
    let outcome = search(tree, &SearchSettings::new(Algorithm::Minimax)).expect("valid settings");
    assert_eq!(outcome.value, 7.0);
    assert_eq!(outcome.visited.len(), PLIES + 1);
    assert_eq!(tree.id(*outcome.visited.last().unwrap()), format!("c{}.1", PLIES - 1));
}

/// max over two chains of three min nodes in a row:
/// B = min(D = min(F = min(5, 6), 4), 7) = 4; C = min(G = min(H = min(2, 10), 8), 9) <= 2.
fn three_min_layers() -> Tree {
    let mut builder = TreeBuilder::new("three-mins", "A");
    builder.add(internal("A", NodeKind::Max, vec![ChildSpec::id("B"), ChildSpec::labelled("right", "C")], None));
    builder.add(internal("B", NodeKind::Min, vec![ChildSpec::id("D"), ChildSpec::id("E")], None));
    builder.add(internal("D", NodeKind::Min, vec![ChildSpec::id("F"), ChildSpec::leaf(4.0)], Some(0.5)));
    builder.add(internal("F", NodeKind::Min, leaves(&[5.0, 6.0]), None));
    builder.add(NodeSpec::terminal("E", 7.0));
    builder.add(internal("C", NodeKind::Min, vec![ChildSpec::id("G"), ChildSpec::leaf(9.0)], None));
    builder.add(internal("G", NodeKind::Min, vec![ChildSpec::id("H"), ChildSpec::leaf(8.0)], Some(6.0)));
    builder.add(internal("H", NodeKind::Min, leaves(&[2.0, 10.0]), None));
    builder.build().expect("valid tree")
}

#[test]
fn three_min_layers_in_a_row() {
    let tree = three_min_layers();
    let run = |settings: SearchSettings| {
        let outcome = search(&tree, &settings).expect("valid settings");
        (outcome.value, outcome.action.map(|a| tree.action(a).to_string()), tree.ids_of(&outcome.visited))
    };
    let minimax = run(SearchSettings::new(Algorithm::Minimax));
    assert_eq!(minimax.0, 4.0);
    assert_eq!(minimax.1.as_deref(), Some("B"));
    assert_eq!(minimax.2, ["A", "B", "D", "F", "F.1", "F.2", "D.2", "E", "C", "G", "H", "H.1", "H.2", "G.2", "C.2"]);
    // Alpha-beta: alpha = 4 after B; H.1 = 2 <= 4 cuts H, then G, then C.
    for prune_on_equal in [true, false] {
        let settings = SearchSettings {
            algorithm: Algorithm::AlphaBeta,
            depth: None,
            prune_on_equal,
            ..SearchSettings::new(Algorithm::AlphaBeta)
        };
        let alphabeta = run(settings);
        assert_eq!(alphabeta.0, 4.0);
        assert_eq!(alphabeta.1.as_deref(), Some("B"));
        assert_eq!(alphabeta.2, ["A", "B", "D", "F", "F.1", "F.2", "D.2", "E", "C", "G", "H", "H.1"]);
        let outcome = search(&tree, &settings).unwrap();
        let cut: Vec<(&str, u32)> = outcome.cutoffs.iter().map(|c| (tree.id(c.node), c.searched)).collect();
        assert_eq!(cut, [("H", 1), ("G", 1), ("C", 1)]);
    }
    // Depth 2: D = 0.5 and G = 6 by their evals; B = min(0.5, 7), C = min(6, 9) = 6, so right.
    let settings = SearchSettings {
        algorithm: Algorithm::AlphaBeta,
        depth: Some(2),
        prune_on_equal: true,
        ..SearchSettings::new(Algorithm::AlphaBeta)
    };
    let cut = run(settings);
    assert_eq!(cut, (6.0, Some("right".to_string()), ["A", "B", "D", "E", "C", "G", "C.2"].map(String::from).to_vec()));
}

/// The naive model of a loaded tree (arena order: index 0 is the root).
fn naive_nodes_of(tree: &Tree) -> Vec<NNode> {
    (0..tree.len() as u32)
        .map(|i| {
            let index = NodeIndex(i);
            let node = tree.node(index);
            let children: Vec<NodeIndex> = tree.children(index).collect();
            NNode {
                id: tree.id(index).to_string(),
                action: tree.action(index).to_string(),
                kind: match node.kind {
                    NodeKind::Max => NKind::Max,
                    NodeKind::Min => NKind::Min,
                    NodeKind::Chance => NKind::Chance,
                    NodeKind::Terminal => NKind::Terminal,
                },
                utility: node.utility,
                eval: node.eval,
                ply: node.ply,
                probs: if node.kind == NodeKind::Chance {
                    children.iter().map(|&c| tree.node(c).probability).collect()
                } else {
                    Vec::new()
                },
                children: children.into_iter().map(NodeIndex::get).collect(),
            }
        })
        .collect()
}

/// Every curated tree of `test-cases/`: the engine equals the naive searches
/// for every algorithm, pruning convention and valid depth, and the files'
/// own `expect` blocks equal the naive searches under the files' settings.
#[test]
fn curated_test_cases_match_the_naive_implementation() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("test-cases");
    let mut files: Vec<_> = std::fs::read_dir(&folder)
        .expect("the test-cases folder")
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    assert!(files.len() >= 40, "expected the curated trees in {}", folder.display());
    for file in &files {
        let loaded = treegrade::load::load_tree_file(file).unwrap_or_else(|error| panic!("{error}"));
        let tree = &loaded.tree;
        let nodes = naive_nodes_of(tree);
        let has_chance = tree.has_chance_nodes();
        let height = tree.height();
        let depths = std::iter::once(None).chain(
            (0..=height + 1)
                .filter(|&d| nodes.iter().all(|n| n.ply != d || n.kind == NKind::Terminal || n.eval.is_some()))
                .map(Some),
        );
        for depth in depths {
            for algorithm in Algorithm::CLASSIC {
                if algorithm == Algorithm::Minimax && has_chance {
                    continue;
                }
                for prune_on_equal in [true, false] {
                    let settings =
                        SearchSettings { algorithm, depth, prune_on_equal, ..SearchSettings::new(algorithm) };
                    let outcome = search(tree, &settings).expect("valid settings");
                    assert_eq!(
                        in_terms_of_ids(tree, &outcome),
                        naive(&nodes, &settings),
                        "{} with {settings:?}",
                        file.display()
                    );
                }
            }
        }
        let defaults = tree.search_defaults();
        for (name, expectation) in tree.expectations() {
            let algorithm: Algorithm = name.parse().unwrap();
            let settings = SearchSettings::resolve(algorithm, defaults, None, None);
            let result = naive(&nodes, &settings);
            let context = format!("{}: expect.{name}", file.display());
            if let Some(value) = expectation.value {
                assert!(
                    treegrade::compare::values_match(value, result.value),
                    "{context}: {value} vs {}",
                    result.value
                );
            }
            if let Some(action) = &expectation.action {
                assert_eq!(action, &result.action, "{context}");
            }
            if let Some(visited) = &expectation.visited {
                assert_eq!(visited, &result.visited, "{context}");
            }
        }
    }
}
