//! What a search tells whoever watches it, as it goes (ripgrep's `Sink`).
//!
//! The engine's searches of docs/format.md sections 3 and 8.2 report each
//! step to a [`SearchObserver`]: a node entered with its window, a static
//! evaluation used at the depth limit, a value returned, children pruned
//! at a cutoff, an iteration of iterative deepening begun. The search is
//! generic over the observer and monomorphised, so [`Unobserved`] (every
//! method a no-op) costs the plain search nothing: `solve`, the oracle and
//! the grader's reference run with it.
//!
//! A [`Recorder`] keeps every report as a [`Recording`]: pictures and the
//! step-through read what the one search they show did, instead of running
//! it again, and the children a cutoff pruned are the ones the search itself
//! skipped (in its searched order, move ordering included).
//!
//! ```
//! use treegrade::engine::{Algorithm, Recorder, SearchSettings, search_observed};
//! use treegrade::tree::{ChildSpec, NodeKind, NodeSpec, TreeBuilder};
//!
//! let mut builder = TreeBuilder::new("aima", "A");
//! builder.add(NodeSpec::internal("A", NodeKind::Max, vec![ChildSpec::id("B"), ChildSpec::id("C")]));
//! builder.add(NodeSpec::internal("B", NodeKind::Min, vec![ChildSpec::leaf(3.0), ChildSpec::leaf(12.0)]));
//! builder.add(NodeSpec::internal("C", NodeKind::Min, vec![ChildSpec::leaf(2.0), ChildSpec::leaf(4.0)]));
//! let tree = builder.build().unwrap();
//!
//! let mut recorder = Recorder::new();
//! let outcome = search_observed(&tree, &SearchSettings::new(Algorithm::AlphaBeta), &mut recorder).unwrap();
//! let recording = recorder.finish();
//! let pass = recording.whole_search().unwrap();
//! assert_eq!(pass.visited().collect::<Vec<_>>(), outcome.visited);
//! assert_eq!(tree.ids_of(&pass.pruned()[0].children), ["C.2"]);
//! ```

use super::NodeDetail;
use crate::tree::NodeIndex;

/// The alpha-beta window a node is entered with: `(-inf, +inf)` outside
/// alpha-beta and below chance nodes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Window {
    /// Alpha: the best value MAX is assured of on the path to the node.
    pub alpha: f64,
    /// Beta: the best value MIN is assured of on the path to the node.
    pub beta: f64,
}

/// The children of a node that a cutoff left unsearched, in the order the
/// search would have taken them (docs/format.md 3.2, 8.1).
#[derive(Clone, Copy, Debug)]
pub struct PrunedChildren<'a> {
    /// The searched order, when move ordering (or iterative deepening's
    /// previous choice) changed it from the tree's.
    pub(super) order: Option<&'a [u32]>,
    /// The first child's index (children are consecutive in the tree's order).
    pub(super) first_child: u32,
    /// How many children the node has.
    pub(super) child_count: u32,
    /// How many it searched before the cutoff.
    pub(super) searched: u32,
}

impl PrunedChildren<'_> {
    /// How many children the node searched before the cutoff.
    pub fn searched(&self) -> u32 {
        self.searched
    }

    /// The pruned children, in the searched order.
    pub fn iter(&self) -> impl Iterator<Item = NodeIndex> + '_ {
        (self.searched..self.child_count).map(move |position| match self.order {
            Some(order) => NodeIndex(order[position as usize]),
            None => NodeIndex(self.first_child + position),
        })
    }
}

/// Whoever watches a search. Every method does nothing unless implemented,
/// so an observer implements only what it reads.
///
/// For each node the search enters, in visited order: [`entered`], then,
/// for a node the depth limit cuts, [`evaluated`], and once its value is
/// known (at once for terminals and cut nodes, after its children
/// otherwise) [`returned`]. A search that fails or runs out of budget may
/// leave entered nodes without a return.
///
/// [`entered`]: SearchObserver::entered
/// [`evaluated`]: SearchObserver::evaluated
/// [`returned`]: SearchObserver::returned
pub trait SearchObserver {
    /// Iterative deepening begins its iteration with depth limit `depth` (8.2).
    fn iteration_began(&mut self, depth: u32) {
        let _ = depth;
    }

    /// The search enters `node` with `window`.
    fn entered(&mut self, node: NodeIndex, window: Window) {
        let _ = (node, window);
    }

    /// The depth limit cuts the search at `node`, valued by its static
    /// evaluation `value` (0 stands in for a missing one; the search then fails).
    fn evaluated(&mut self, node: NodeIndex, value: f64) {
        let _ = (node, value);
    }

    /// `node` returns `value` to its parent: a terminal's utility, an
    /// evaluation at the depth limit, or its searched value (a bound where
    /// a cutoff stopped it).
    fn returned(&mut self, node: NodeIndex, value: f64) {
        let _ = (node, value);
    }

    /// Alpha-beta stops searching `node`'s children: `children` are pruned.
    fn pruned(&mut self, node: NodeIndex, children: PrunedChildren<'_>) {
        let _ = (node, children);
    }
}

/// The observer of a search nobody watches: every report is dropped, and
/// the monomorphised search does no work for it.
#[derive(Clone, Copy, Debug, Default)]
pub struct Unobserved;

impl SearchObserver for Unobserved {}

impl<O: SearchObserver + ?Sized> SearchObserver for &mut O {
    fn iteration_began(&mut self, depth: u32) {
        (**self).iteration_began(depth);
    }

    fn entered(&mut self, node: NodeIndex, window: Window) {
        (**self).entered(node, window);
    }

    fn evaluated(&mut self, node: NodeIndex, value: f64) {
        (**self).evaluated(node, value);
    }

    fn returned(&mut self, node: NodeIndex, value: f64) {
        (**self).returned(node, value);
    }

    fn pruned(&mut self, node: NodeIndex, children: PrunedChildren<'_>) {
        (**self).pruned(node, children);
    }
}

/// One entry of a recorded pass: the node and what the search knew of it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Entry {
    /// The node entered.
    pub node: NodeIndex,
    /// Its window on entry, the value it returned and whether the depth
    /// limit cut it (`value` is NaN for a node that never returned).
    pub detail: NodeDetail,
}

/// A cutoff as the search made it.
#[derive(Clone, Debug, PartialEq)]
pub struct Cut {
    /// The node whose remaining children were pruned.
    pub node: NodeIndex,
    /// How many children it searched first.
    pub searched: u32,
    /// The pruned children, in the searched order.
    pub children: Vec<NodeIndex>,
    /// The 0-based entry of the pass after which the cutoff happened (the
    /// last entry of the last searched child's subtree).
    pub after: usize,
}

/// One pass of a search: the whole search, or one iteration of iterative
/// deepening.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Pass {
    /// The iteration's depth limit; `None` for a search that is not iterative.
    pub iteration: Option<u32>,
    entries: Vec<Entry>,
    cuts: Vec<Cut>,
}

impl Pass {
    /// Every entry, in visited order.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The visited order.
    pub fn visited(&self) -> impl Iterator<Item = NodeIndex> + '_ {
        self.entries.iter().map(|entry| entry.node)
    }

    /// Every cutoff, in the order the search made them.
    pub fn pruned(&self) -> &[Cut] {
        &self.cuts
    }

    /// Per node index (up to `len` nodes), the detail of its first entry;
    /// `None` for nodes never entered.
    pub fn details_by_node(&self, len: usize) -> Vec<Option<NodeDetail>> {
        let mut details = vec![None; len];
        for entry in &self.entries {
            if let Some(slot) = details.get_mut(entry.node.get()) {
                slot.get_or_insert(entry.detail);
            }
        }
        details
    }

    /// The same pass with every node index `f` gives (for a snapshot of a
    /// game's tree, whose indices differ); entries and pruned children `f`
    /// has no index for are dropped.
    pub fn reindexed(&self, f: impl Fn(NodeIndex) -> Option<NodeIndex>) -> Pass {
        let entries = self
            .entries
            .iter()
            .filter_map(|entry| Some(Entry { node: f(entry.node)?, detail: entry.detail }))
            .collect();
        let cuts = self
            .cuts
            .iter()
            .filter_map(|cut| {
                let children = cut.children.iter().filter_map(|&child| f(child)).collect();
                Some(Cut { node: f(cut.node)?, searched: cut.searched, children, after: cut.after })
            })
            .collect();
        Pass { iteration: self.iteration, entries, cuts }
    }
}

/// What a [`Recorder`] kept: one pass per search, or per iteration.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Recording {
    passes: Vec<Pass>,
}

impl Recording {
    /// Every pass, in order.
    pub fn passes(&self) -> &[Pass] {
        &self.passes
    }

    /// The one pass of a search that is not iterative; `None` for iterative
    /// deepening (one pass per iteration) and for searches that report no
    /// nodes (max^n, MCTS).
    pub fn whole_search(&self) -> Option<&Pass> {
        match self.passes.as_slice() {
            [pass] if pass.iteration.is_none() => Some(pass),
            _ => None,
        }
    }

    /// The same recording with every node index `f` gives (see [`Pass::reindexed`]).
    pub fn reindexed(&self, f: impl Fn(NodeIndex) -> Option<NodeIndex>) -> Recording {
        Recording { passes: self.passes.iter().map(|pass| pass.reindexed(&f)).collect() }
    }
}

/// The observer that keeps everything it is told (see [`Recording`]).
#[derive(Debug, Default)]
pub struct Recorder {
    recording: Recording,
    /// Entries whose node has not returned yet, innermost last.
    open: Vec<usize>,
}

impl Recorder {
    /// A recorder that has seen nothing yet.
    pub fn new() -> Recorder {
        Recorder::default()
    }

    /// What it recorded.
    pub fn finish(self) -> Recording {
        self.recording
    }

    /// The pass being recorded (one is begun for a search that is not iterative).
    fn pass(&mut self) -> &mut Pass {
        if self.recording.passes.is_empty() {
            self.recording.passes.push(Pass::default());
        }
        self.recording.passes.last_mut().expect("a pass was just begun")
    }
}

impl SearchObserver for Recorder {
    fn iteration_began(&mut self, depth: u32) {
        self.open.clear();
        self.recording.passes.push(Pass { iteration: Some(depth), ..Pass::default() });
    }

    fn entered(&mut self, node: NodeIndex, window: Window) {
        let detail = NodeDetail { alpha: window.alpha, beta: window.beta, value: f64::NAN, depth_cut: false };
        let pass = self.pass();
        pass.entries.push(Entry { node, detail });
        let at = pass.entries.len() - 1;
        self.open.push(at);
    }

    fn evaluated(&mut self, _node: NodeIndex, _value: f64) {
        if let Some(&at) = self.open.last() {
            self.pass().entries[at].detail.depth_cut = true;
        }
    }

    fn returned(&mut self, node: NodeIndex, value: f64) {
        if let Some(at) = self.open.pop() {
            let entry = &mut self.pass().entries[at];
            debug_assert_eq!(entry.node, node, "nodes return in the reverse order of entry");
            entry.detail.value = value;
        }
    }

    fn pruned(&mut self, node: NodeIndex, children: PrunedChildren<'_>) {
        let pass = self.pass();
        let after = pass.entries.len().saturating_sub(1);
        pass.cuts.push(Cut { node, searched: children.searched(), children: children.iter().collect(), after });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::random::SplitMix64;
    use crate::engine::{Algorithm, MoveOrdering, SearchOutcome, SearchSettings, search, search_recorded};
    use crate::tree::fixtures::{aima, leaves};
    use crate::tree::{ChildSpec, NodeBody, NodeKind, NodeSpec, Tree, TreeBuilder};

    /// A uniform tree, MAX and MIN alternating, `branching` children per node,
    /// leaves `depth` plies down; values from a seeded stream in 0..5 (many
    /// ties, so both pruning conventions matter) and every internal node an `eval`.
    fn uniform(seed: u64, branching: usize, depth: u32) -> Tree {
        let mut draws = SplitMix64::new(seed);
        let mut builder = TreeBuilder::new("uniform", "n");
        let mut level = vec!["n".to_string()];
        for ply in 0..depth {
            let kind = if ply % 2 == 0 { NodeKind::Max } else { NodeKind::Min };
            let mut next = Vec::new();
            for id in &level {
                let children: Vec<String> = (0..branching).map(|i| format!("{id}{i}")).collect();
                let eval = Some((draws.next_u64() % 5) as f64);
                let specs = children.iter().map(ChildSpec::id).collect();
                builder.add(NodeSpec {
                    id: id.clone(),
                    body: NodeBody::Internal { kind, children: specs, probs: None, eval },
                });
                next.extend(children);
            }
            level = next;
        }
        for id in level {
            builder.add(NodeSpec::terminal(&id, (draws.next_u64() % 5) as f64));
        }
        builder.build().unwrap()
    }

    fn recorded(tree: &Tree, settings: &SearchSettings) -> (SearchOutcome, Recording) {
        search_recorded(tree, settings).unwrap()
    }

    #[test]
    fn the_recorder_sees_the_visited_order_of_the_search() {
        for seed in 0..20 {
            let tree = uniform(seed, 3, 4);
            for algorithm in [Algorithm::Minimax, Algorithm::AlphaBeta] {
                for move_ordering in [MoveOrdering::Tree, MoveOrdering::Eval] {
                    for depth in [None, Some(2)] {
                        let settings = SearchSettings { move_ordering, depth, ..SearchSettings::new(algorithm) };
                        let (outcome, recording) = recorded(&tree, &settings);
                        assert_eq!(outcome, search(&tree, &settings).unwrap(), "observing changes nothing");
                        let pass = recording.whole_search().expect("one pass");
                        assert_eq!(pass.visited().collect::<Vec<_>>(), outcome.visited, "{settings:?}, seed {seed}");
                        let cut = |entry: &Entry| entry.detail.depth_cut;
                        let cut_ids: Vec<NodeIndex> =
                            pass.entries().iter().filter(|e| cut(e)).map(|e| e.node).collect();
                        let expected: Vec<NodeIndex> = outcome
                            .visited
                            .iter()
                            .copied()
                            .filter(|&node| depth == Some(tree.node(node).ply) && tree.node(node).child_count > 0)
                            .collect();
                        assert_eq!(cut_ids, expected, "the depth cut's evaluations are reported where they are used");
                        assert!(pass.entries().iter().all(|e| !e.detail.value.is_nan()), "every node returned");
                    }
                }
            }
        }
    }

    #[test]
    fn iterative_deepening_records_one_pass_per_iteration() {
        let tree = uniform(7, 3, 4);
        let settings = SearchSettings { depth: Some(3), ..SearchSettings::new(Algorithm::IterativeDeepening) };
        let (outcome, recording) = recorded(&tree, &settings);
        assert!(recording.whole_search().is_none(), "pictures draw no single pass of iterative deepening");
        let iterations: Vec<(Option<u32>, Vec<NodeIndex>)> =
            recording.passes().iter().map(|pass| (pass.iteration, pass.visited().collect())).collect();
        let expected: Vec<(Option<u32>, Vec<NodeIndex>)> = outcome
            .iterations_with_visits()
            .map(|(iteration, visits)| (Some(iteration.depth), visits.to_vec()))
            .collect();
        assert_eq!(iterations, expected);
        for (pass, iteration) in recording.passes().iter().zip(outcome.iterations()) {
            let cuts: Vec<(NodeIndex, u32)> = pass.pruned().iter().map(|cut| (cut.node, cut.searched)).collect();
            let expected: Vec<(NodeIndex, u32)> = iteration.cutoffs.iter().map(|c| (c.node, c.searched)).collect();
            assert_eq!(cuts, expected);
        }
    }

    #[test]
    fn searches_without_windows_record_no_pass() {
        let tree = uniform(3, 2, 3);
        let settings = SearchSettings { iterations: Some(10), ..SearchSettings::new(Algorithm::Mcts) };
        assert!(recorded(&tree, &settings).1.passes().is_empty());
    }

    /// Checks every cut of an alpha-beta recording against docs/format.md 3.2:
    /// the node's value passed its window (`>=`/`<=` when pruning on
    /// equality, strictly otherwise), its first `searched` children in the
    /// searched order were entered, the others are the pruned ones and none
    /// of them was entered; and the cuts are the outcome's cutoffs.
    fn assert_cuts_follow_the_format(tree: &Tree, settings: &SearchSettings) -> usize {
        let (outcome, recording) = recorded(tree, settings);
        let pass = recording.whole_search().unwrap();
        let entered: std::collections::HashSet<NodeIndex> = outcome.visited.iter().copied().collect();
        for cut in pass.pruned() {
            let order = crate::engine::searched_order(tree, settings, cut.node);
            let (searched, pruned) = order.split_at(cut.searched as usize);
            assert_eq!(cut.children, pruned, "the pruned children, in the searched order");
            assert!(searched.iter().all(|child| entered.contains(child)));
            assert!(pruned.iter().all(|child| !entered.contains(child)), "no pruned child is entered");
            let entry = pass.entries().iter().find(|entry| entry.node == cut.node).unwrap().detail;
            let passes = match (tree.node(cut.node).kind, settings.prune_on_equal) {
                (NodeKind::Max, true) => entry.value >= entry.beta,
                (NodeKind::Max, false) => entry.value > entry.beta,
                (_, true) => entry.value <= entry.alpha,
                (_, false) => entry.value < entry.alpha,
            };
            assert!(
                passes,
                "{} cut with value {} in [{}, {}]",
                tree.id(cut.node),
                entry.value,
                entry.alpha,
                entry.beta
            );
            let last = *searched.last().unwrap();
            let last_entry = (0..outcome.visited.len()).rev().find(|&at| is_under(tree, outcome.visited[at], last));
            assert_eq!(Some(cut.after), last_entry, "a cut comes after its last searched child's subtree");
        }
        let cuts: Vec<(NodeIndex, u32)> = pass.pruned().iter().map(|cut| (cut.node, cut.searched)).collect();
        let cutoffs: Vec<(NodeIndex, u32)> = outcome.cutoffs.iter().map(|c| (c.node, c.searched)).collect();
        assert_eq!(cuts, cutoffs);
        cuts.len()
    }

    fn is_under(tree: &Tree, node: NodeIndex, top: NodeIndex) -> bool {
        std::iter::successors(Some(node), |&n| tree.node(n).parent).any(|n| n == top)
    }

    #[test]
    fn pruned_children_follow_both_conventions() {
        // Cuts made under each convention, over all trees: both must cut, and differently.
        let mut cuts = [0, 0];
        for seed in 0..30 {
            let tree = uniform(seed, 3, 4);
            for (convention, prune_on_equal) in [true, false].into_iter().enumerate() {
                for move_ordering in [MoveOrdering::Tree, MoveOrdering::Eval] {
                    let settings =
                        SearchSettings { prune_on_equal, move_ordering, ..SearchSettings::new(Algorithm::AlphaBeta) };
                    cuts[convention] += assert_cuts_follow_the_format(&tree, &settings);
                }
            }
        }
        assert!(cuts[1] > 0 && cuts[0] > cuts[1], "pruning on equality cuts more often: {cuts:?}");
    }

    #[test]
    fn pruned_children_on_known_trees() {
        let tree = aima();
        let (_, recording) = recorded(&tree, &SearchSettings::new(Algorithm::AlphaBeta));
        let cuts = recording.whole_search().unwrap().pruned();
        assert_eq!(cuts.len(), 1);
        assert_eq!((tree.id(cuts[0].node), tree.ids_of(&cuts[0].children)), ("C", vec!["C.2".into(), "C.3".into()]));
        assert_eq!(cuts[0].after, 6, "after C.1, the 7th entry");
        // max(min(3), min(3, 9)): C stops after C.1 = 3 only when pruning on equality.
        let mut builder = TreeBuilder::new("eq", "A");
        builder.add(NodeSpec::internal("A", NodeKind::Max, vec![ChildSpec::id("B"), ChildSpec::id("C")]));
        builder.add(NodeSpec::internal("B", NodeKind::Min, leaves(&[3.0])));
        builder.add(NodeSpec::internal("C", NodeKind::Min, leaves(&[3.0, 9.0])));
        let tree = builder.build().unwrap();
        let pruned = |prune_on_equal| {
            let settings = SearchSettings { prune_on_equal, ..SearchSettings::new(Algorithm::AlphaBeta) };
            let (_, recording) = recorded(&tree, &settings);
            recording
                .whole_search()
                .unwrap()
                .pruned()
                .iter()
                .flat_map(|cut| tree.ids_of(&cut.children))
                .collect::<Vec<_>>()
        };
        assert_eq!(pruned(true), ["C.2"]);
        assert!(pruned(false).is_empty());
    }

    #[test]
    fn a_reindexed_pass_drops_what_has_no_index() {
        let tree = aima();
        let (_, recording) = recorded(&tree, &SearchSettings::new(Algorithm::AlphaBeta));
        let c3 = tree.find("C.3").unwrap();
        let moved = recording.reindexed(|node| (node != c3).then_some(NodeIndex(node.0 + 100)));
        let cut = &moved.whole_search().unwrap().pruned()[0];
        assert_eq!(cut.children, [NodeIndex(tree.find("C.2").unwrap().0 + 100)]);
        assert_eq!(moved.whole_search().unwrap().entries()[0].node, NodeIndex(100));
    }
}
