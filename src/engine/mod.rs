//! The reference search engine: minimax, alpha-beta and expectimax exactly as
//! docs/format.md sections 2 and 3 define them.
//!
//! Pure functions over a [`Tree`]: no I/O, no processes, no allocation per
//! node beyond the visited list. The search is iterative (an explicit stack of
//! frames) so that a degenerate tree a million plies deep cannot overflow the
//! thread's stack.

mod fragile;
pub mod mistakes;
mod settings;
pub mod variant;

pub use fragile::FragileComparison;

pub use settings::{Algorithm, ParseAlgorithmError, SearchSettings};

use thiserror::Error;

use crate::tree::{NodeIndex, NodeKind, Tree};

/// Values agree within 1e-9, relative or absolute (docs/format.md section 4).
pub const VALUE_TOLERANCE: f64 = 1e-9;

/// Whether two root values agree within [`VALUE_TOLERANCE`].
pub fn values_match(expected: f64, actual: f64) -> bool {
    let difference = (expected - actual).abs();
    difference <= VALUE_TOLERANCE || difference <= VALUE_TOLERANCE * expected.abs().max(actual.abs())
}

/// The result of one search.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchOutcome {
    /// The root's value.
    pub value: f64,
    /// The root child whose action is chosen, if the root has an action (docs/format.md 3.3).
    pub action: Option<NodeIndex>,
    /// Every entered node once, in order of first entry (docs/format.md 3.4).
    pub visited: Vec<NodeIndex>,
    /// Where alpha-beta stopped searching a node's remaining children.
    pub cutoffs: Vec<Cutoff>,
}

/// An alpha-beta cutoff: `node` searched only its first `searched` children.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cutoff {
    /// The node whose remaining children were pruned.
    pub node: NodeIndex,
    /// How many children it searched before the cutoff.
    pub searched: u32,
}

/// Why a search cannot run on a tree with given settings (invalid input).
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum SearchError {
    /// Minimax is only defined without chance nodes.
    #[error("minimax cannot search a tree with chance nodes (node `{id}` is a chance node); use expectimax")]
    ChanceUnderMinimax {
        /// The first chance node.
        node: NodeIndex,
        /// Its id.
        id: String,
    },
    /// A depth cut reaches an internal node that has no `eval`.
    #[error("depth limit {depth} cuts the search at node `{id}`, which has no `eval`")]
    MissingEval {
        /// The node without eval.
        node: NodeIndex,
        /// Its id.
        id: String,
        /// The depth limit.
        depth: u32,
    },
}

impl SearchError {
    /// The node the error is about.
    pub fn node(&self) -> NodeIndex {
        match self {
            SearchError::ChanceUnderMinimax { node, .. } | SearchError::MissingEval { node, .. } => *node,
        }
    }
}

/// What a search knew about one node it entered: the alpha-beta window it
/// was entered with and the value it returned (a bound where it was cut off).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NodeDetail {
    /// Alpha on entry (`-inf` outside alpha-beta).
    pub alpha: f64,
    /// Beta on entry (`+inf` outside alpha-beta).
    pub beta: f64,
    /// The value the node returned.
    pub value: f64,
    /// Valued by its `eval` because the depth limit cut it.
    pub depth_cut: bool,
}

/// Runs a search and also records, per node (by arena index), what it knew
/// on entry and what it returned; `None` for nodes it never entered. For
/// pictures and teaching; [`search`] skips this bookkeeping.
pub fn search_with_details(
    tree: &Tree,
    settings: &SearchSettings,
) -> Result<(SearchOutcome, Vec<Option<NodeDetail>>), SearchError> {
    check(tree, settings)?;
    let mut search = Search::new(tree, settings, Quirks::default());
    search.details = Some(vec![None; tree.len()]);
    let (value, action) = search.explore();
    search.valued_only_by_evals(settings.depth)?;
    let details = search.details.take().unwrap_or_default();
    Ok((search.finish(value, action), details))
}

/// The value of the subtree under `node` with the depth limit of `settings`
/// (plies counted from the tree's root): minimax, or expectimax where there
/// are chance nodes, without pruning, so it is the node's true value. Reports
/// use it to show what a student's chosen action is worth.
pub fn value_of(tree: &Tree, node: NodeIndex, settings: &SearchSettings) -> Result<f64, SearchError> {
    let algorithm = if tree.has_chance_nodes() { Algorithm::Expectimax } else { Algorithm::Minimax };
    let settings = SearchSettings { algorithm, ..*settings };
    let mut search = Search::new(tree, &settings, Quirks::default());
    let (value, _) = search.explore_from(node.0);
    search.valued_only_by_evals(settings.depth)?;
    Ok(value)
}

/// The first fragile comparison (docs/format.md 2.1) the reference search makes
/// with `settings`, if any: a comparison that a last-bit difference in a
/// chance value could turn around. Without chance nodes every value is exact
/// and nothing is fragile, so such trees are not searched again.
pub fn fragility(tree: &Tree, settings: &SearchSettings) -> Result<Option<FragileComparison>, SearchError> {
    check(tree, settings)?;
    if !tree.has_chance_nodes() {
        return Ok(None);
    }
    let mut search = Search::new(tree, settings, Quirks::default());
    search.bounds = Some(fragile::Bounds::default());
    search.explore();
    search.valued_only_by_evals(settings.depth)?;
    Ok(search.bounds.and_then(|bounds| bounds.fragile))
}

/// Deliberate deviations from the reference, each a classic student mistake.
///
/// The grader runs the reference with one quirk at a time to recognise a
/// failing student's bug by its trace. All off (the default) is the
/// reference itself.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Quirks {
    /// Search children last to first.
    pub reverse_children: bool,
    /// Value chance nodes as a plain average, ignoring `probs`.
    pub uniform_chance: bool,
    /// Enter every child of a node before searching the first one.
    pub eager_children: bool,
    /// At the root, let a later child with an equal value take the action.
    pub last_best_at_root: bool,
}

/// Counts that describe how much of the tree a search looked at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchStats {
    /// Nodes in the whole tree.
    pub tree_nodes: usize,
    /// Nodes at or above the depth limit (all nodes without a limit).
    pub within_depth: usize,
    /// Nodes the search entered.
    pub visited: usize,
    /// Nodes within the depth limit that pruning skipped.
    pub pruned: usize,
}

/// Checks that `settings` can be applied to `tree` at all (docs/format.md 3.1).
pub fn check(tree: &Tree, settings: &SearchSettings) -> Result<(), SearchError> {
    if settings.algorithm == Algorithm::Minimax
        && tree.has_chance_nodes()
        && let Some(position) = tree.nodes().iter().position(|node| node.kind == NodeKind::Chance)
    {
        let node = NodeIndex(position as u32);
        return Err(SearchError::ChanceUnderMinimax { node, id: tree.id(node).to_string() });
    }
    // A node cut without an `eval` is an error only when the search enters it
    // (docs/format.md 1): the search itself reports it.
    Ok(())
}

/// Runs the search `settings` describe.
///
/// ```
/// use treegrade::tree::{ChildSpec, NodeKind, NodeSpec, TreeBuilder};
/// use treegrade::engine::{search, Algorithm, SearchSettings};
///
/// let mut builder = TreeBuilder::new("aima", "A");
/// builder.add(NodeSpec::internal("A", NodeKind::Max, vec![ChildSpec::id("B"), ChildSpec::id("C")]));
/// builder.add(NodeSpec::internal("B", NodeKind::Min, vec![ChildSpec::leaf(3.0), ChildSpec::leaf(12.0)]));
/// builder.add(NodeSpec::internal("C", NodeKind::Min, vec![ChildSpec::leaf(2.0), ChildSpec::leaf(4.0)]));
/// let tree = builder.build().unwrap();
///
/// let outcome = search(&tree, &SearchSettings::new(Algorithm::AlphaBeta)).unwrap();
/// assert_eq!(outcome.value, 3.0);
/// assert_eq!(tree.ids_of(&outcome.visited), ["A", "B", "B.1", "B.2", "C", "C.1"]);
/// ```
pub fn search(tree: &Tree, settings: &SearchSettings) -> Result<SearchOutcome, SearchError> {
    search_with_quirks(tree, settings, Quirks::default())
}

/// Runs a search with deliberate mistakes (see [`Quirks`]).
pub fn search_with_quirks(
    tree: &Tree,
    settings: &SearchSettings,
    quirks: Quirks,
) -> Result<SearchOutcome, SearchError> {
    check(tree, settings)?;
    Search::new(tree, settings, quirks).run(settings.depth)
}

/// How much of `tree` the `outcome` entered and how much pruning skipped.
pub fn stats(tree: &Tree, settings: &SearchSettings, outcome: &SearchOutcome) -> SearchStats {
    let within_depth = match settings.depth {
        Some(depth) => tree.nodes().iter().filter(|node| node.ply <= depth).count(),
        None => tree.len(),
    };
    SearchStats {
        tree_nodes: tree.len(),
        within_depth,
        visited: outcome.visited.len(),
        pruned: within_depth.saturating_sub(outcome.visited.len()),
    }
}

/// One node whose children are being searched.
struct Frame {
    node: u32,
    kind: NodeKind,
    first_child: u32,
    child_count: u32,
    /// Children searched so far (or all of them, after a cutoff).
    taken: u32,
    value: f64,
    alpha: f64,
    beta: f64,
    best_child: Option<u32>,
}

/// What entering a node produced.
enum Entered {
    /// The node was valued at once (terminal or depth cut).
    Valued(f64),
    /// The node's children must be searched.
    Expanding(Frame),
}

struct Search<'t> {
    tree: &'t Tree,
    depth: Option<u32>,
    pruning: bool,
    prune_on_equal: bool,
    visited: Vec<NodeIndex>,
    cutoffs: Vec<Cutoff>,
    quirks: Quirks,
    /// Nodes already entered; kept only for `eager_children`, which enters
    /// nodes ahead of the search.
    entered: Vec<bool>,
    /// Per node, its window and value; kept only for [`search_with_details`].
    details: Option<Vec<Option<NodeDetail>>>,
    /// Error bounds beside the frames (docs/format.md 2.1); kept only for [`fragility`].
    bounds: Option<fragile::Bounds>,
    /// The first node cut by the depth limit that has no `eval` (docs/format.md 1).
    missing_eval: Option<u32>,
}

impl<'t> Search<'t> {
    fn new(tree: &'t Tree, settings: &SearchSettings, quirks: Quirks) -> Search<'t> {
        Search {
            tree,
            depth: settings.depth,
            pruning: settings.algorithm == Algorithm::AlphaBeta,
            prune_on_equal: settings.prune_on_equal,
            visited: Vec::new(),
            cutoffs: Vec::new(),
            quirks,
            entered: if quirks.eager_children { vec![false; tree.len()] } else { Vec::new() },
            details: None,
            bounds: None,
            missing_eval: None,
        }
    }

    fn run(mut self, depth: Option<u32>) -> Result<SearchOutcome, SearchError> {
        let (value, action) = self.explore();
        self.valued_only_by_evals(depth)?;
        Ok(self.finish(value, action))
    }

    /// Fails when the search had to value a node by an `eval` it does not have.
    fn valued_only_by_evals(&self, depth: Option<u32>) -> Result<(), SearchError> {
        match self.missing_eval {
            Some(index) => {
                let node = NodeIndex(index);
                Err(SearchError::MissingEval { node, id: self.tree.id(node).to_string(), depth: depth.unwrap_or(0) })
            }
            None => Ok(()),
        }
    }

    /// The search loop: the root's value and chosen child.
    fn explore(&mut self) -> (f64, Option<NodeIndex>) {
        self.explore_from(0)
    }

    /// The search loop from `start` (the root, or a subtree's top node).
    fn explore_from(&mut self, start: u32) -> (f64, Option<NodeIndex>) {
        let root = match self.enter(start, f64::NEG_INFINITY, f64::INFINITY) {
            Entered::Valued(value) => return (value, None),
            Entered::Expanding(frame) => frame,
        };
        if let Some(bounds) = self.bounds.as_mut() {
            bounds.open(root.kind == NodeKind::Chance, (0.0, 0.0));
        }
        let mut stack = vec![root];
        loop {
            let top = stack.last_mut().expect("the stack holds at least the root");
            if top.taken < top.child_count {
                let child = if self.quirks.reverse_children {
                    top.first_child + top.child_count - 1 - top.taken
                } else {
                    top.first_child + top.taken
                };
                top.taken += 1;
                let (alpha, beta) = match top.kind {
                    NodeKind::Chance => (f64::NEG_INFINITY, f64::INFINITY),
                    _ => (top.alpha, top.beta),
                };
                let window_bounds = self.bounds.as_ref().map(|b| b.child_window(top.kind == NodeKind::Chance));
                match self.enter(child, alpha, beta) {
                    Entered::Valued(value) => {
                        let at_root = stack.len() == 1;
                        self.absorb(stack.last_mut().expect("parent frame"), child, (value, 0.0), at_root);
                    }
                    Entered::Expanding(frame) => {
                        if let (Some(bounds), Some(window)) = (self.bounds.as_mut(), window_bounds) {
                            bounds.open(frame.kind == NodeKind::Chance, window);
                        }
                        stack.push(frame);
                    }
                }
                continue;
            }
            let done = stack.pop().expect("the loop only pops non-empty stacks");
            if let Some(detail) = self.details.as_mut().and_then(|details| details[done.node as usize].as_mut()) {
                detail.value = done.value;
            }
            let bound = self.bounds.as_mut().map_or(0.0, |bounds| bounds.close(done.value));
            let at_root = stack.len() == 1;
            match stack.last_mut() {
                Some(parent) => self.absorb(parent, done.node, (done.value, bound), at_root),
                None => {
                    let action = match done.kind {
                        NodeKind::Max | NodeKind::Min => done.best_child.map(NodeIndex),
                        _ => None,
                    };
                    return (done.value, action);
                }
            }
        }
    }

    fn finish(&mut self, value: f64, action: Option<NodeIndex>) -> SearchOutcome {
        SearchOutcome {
            value,
            action,
            visited: std::mem::take(&mut self.visited),
            cutoffs: std::mem::take(&mut self.cutoffs),
        }
    }

    /// Enters a node: records the visit and values it or opens a frame.
    fn enter(&mut self, index: u32, alpha: f64, beta: f64) -> Entered {
        self.record(index);
        let node = self.tree.node(NodeIndex(index));
        if node.kind == NodeKind::Terminal {
            self.note(index, NodeDetail { alpha, beta, value: node.utility, depth_cut: false });
            return Entered::Valued(node.utility);
        }
        if self.depth == Some(node.ply) {
            // A cut without an eval fails the search once it ends; 0 keeps it going until then.
            let value = node.eval.unwrap_or_else(|| {
                self.missing_eval.get_or_insert(index);
                0.0
            });
            self.note(index, NodeDetail { alpha, beta, value, depth_cut: true });
            return Entered::Valued(value);
        }
        if self.quirks.eager_children {
            for child in node.first_child..node.first_child + node.child_count {
                self.record(child);
            }
        }
        let value = match node.kind {
            NodeKind::Max => f64::NEG_INFINITY,
            NodeKind::Min => f64::INFINITY,
            _ => 0.0,
        };
        // The value is set again when the node's frame closes.
        self.note(index, NodeDetail { alpha, beta, value, depth_cut: false });
        Entered::Expanding(Frame {
            node: index,
            kind: node.kind,
            first_child: node.first_child,
            child_count: node.child_count,
            taken: 0,
            value,
            alpha,
            beta,
            best_child: None,
        })
    }

    /// Records what the search knows of a node it enters, when asked to.
    fn note(&mut self, index: u32, detail: NodeDetail) {
        if let Some(details) = self.details.as_mut() {
            details[index as usize] = Some(detail);
        }
    }

    /// Appends a first entry to the visited order.
    fn record(&mut self, index: u32) {
        if self.quirks.eager_children {
            if self.entered[index as usize] {
                return;
            }
            self.entered[index as usize] = true;
        }
        self.visited.push(NodeIndex(index));
    }

    /// Folds a child's value into its parent's frame, pruning where 3.2 says.
    /// `child` is the child's value and its error bound (0 unless bounds are kept).
    fn absorb(&mut self, frame: &mut Frame, child_index: u32, child: (f64, f64), at_root: bool) {
        let value = child.0;
        let later_ties_win = at_root && self.quirks.last_best_at_root;
        let before = frame.value;
        let node = NodeIndex(frame.node);
        match frame.kind {
            NodeKind::Max => {
                if value > frame.value || (later_ties_win && value == frame.value) {
                    frame.value = value;
                    frame.best_child = Some(child_index);
                }
                if let Some(bounds) = self.bounds.as_mut() {
                    bounds.max_child(node, before, child, frame.value, self.pruning.then_some(frame.beta));
                }
                if self.pruning {
                    if self.exceeds(frame.value, frame.beta) {
                        self.cut(frame);
                    } else {
                        let old = frame.alpha;
                        frame.alpha = frame.alpha.max(frame.value);
                        if let Some(bounds) = self.bounds.as_mut() {
                            bounds.window_update(true, old, frame.value);
                        }
                    }
                }
            }
            NodeKind::Min => {
                if value < frame.value || (later_ties_win && value == frame.value) {
                    frame.value = value;
                    frame.best_child = Some(child_index);
                }
                if let Some(bounds) = self.bounds.as_mut() {
                    bounds.min_child(node, before, child, frame.value, self.pruning.then_some(frame.alpha));
                }
                if self.pruning {
                    if self.exceeds(frame.alpha, frame.value) {
                        self.cut(frame);
                    } else {
                        let old = frame.beta;
                        frame.beta = frame.beta.min(frame.value);
                        if let Some(bounds) = self.bounds.as_mut() {
                            bounds.window_update(false, old, frame.value);
                        }
                    }
                }
            }
            NodeKind::Chance => {
                let probability = if self.quirks.uniform_chance {
                    1.0 / frame.child_count as f64
                } else {
                    self.tree.node(NodeIndex(child_index)).probability
                };
                // docs/format.md 2: acc = acc + p_i * v_i in child order; Rust
                // never fuses this into a multiply-add on its own.
                frame.value += probability * value;
                if let Some(bounds) = self.bounds.as_mut() {
                    bounds.chance_child(probability, child);
                }
            }
            NodeKind::Terminal => unreachable!("terminals never open a frame"),
        }
    }

    /// The pruning test: `high >= low` or `high > low` by convention.
    fn exceeds(&self, high: f64, low: f64) -> bool {
        if self.prune_on_equal { high >= low } else { high > low }
    }

    fn cut(&mut self, frame: &mut Frame) {
        if frame.taken < frame.child_count {
            self.cutoffs.push(Cutoff { node: NodeIndex(frame.node), searched: frame.taken });
            frame.taken = frame.child_count;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::fixtures::{aima, leaves};
    use crate::tree::{ChildSpec, NodeBody, NodeSpec, TreeBuilder};

    fn run(tree: &Tree, settings: SearchSettings) -> (f64, Option<String>, Vec<String>) {
        let outcome = search(tree, &settings).unwrap();
        (outcome.value, outcome.action.map(|a| tree.action(a).to_string()), tree.ids_of(&outcome.visited))
    }

    #[test]
    fn minimax_visits_everything_in_order() {
        let (value, action, visited) = run(&aima(), SearchSettings::new(Algorithm::Minimax));
        assert_eq!(value, 3.0);
        assert_eq!(action.as_deref(), Some("B"));
        assert_eq!(visited.len(), 13);
        assert_eq!(&visited[..5], ["A", "B", "B.1", "B.2", "B.3"]);
    }

    #[test]
    fn alphabeta_prunes_c_after_its_first_leaf() {
        let tree = aima();
        let outcome = search(&tree, &SearchSettings::new(Algorithm::AlphaBeta)).unwrap();
        assert_eq!(outcome.value, 3.0);
        assert_eq!(
            tree.ids_of(&outcome.visited),
            ["A", "B", "B.1", "B.2", "B.3", "C", "C.1", "D", "D.1", "D.2", "D.3"]
        );
        assert_eq!(outcome.cutoffs, [Cutoff { node: tree.find("C").unwrap(), searched: 1 }]);
    }

    #[test]
    fn pruning_conventions_differ_on_equality() {
        // max(min(3), min(3, 9)): with prune-on-equal C stops after C.1 = 3 <= alpha = 3.
        let mut builder = TreeBuilder::new("eq", "A");
        builder.add(NodeSpec::internal("A", NodeKind::Max, vec![ChildSpec::id("B"), ChildSpec::id("C")]));
        builder.add(NodeSpec::internal("B", NodeKind::Min, leaves(&[3.0])));
        builder.add(NodeSpec::internal("C", NodeKind::Min, leaves(&[3.0, 9.0])));
        let tree = builder.build().unwrap();
        let mut settings = SearchSettings::new(Algorithm::AlphaBeta);
        let (_, _, on_equal) = run(&tree, settings);
        settings.prune_on_equal = false;
        let (_, _, strict) = run(&tree, settings);
        assert_eq!(on_equal, ["A", "B", "B.1", "C", "C.1"]);
        assert_eq!(strict, ["A", "B", "B.1", "C", "C.1", "C.2"]);
    }

    #[test]
    fn expectimax_accumulates_in_child_order() {
        let mut builder = TreeBuilder::new("chance", "A");
        builder.add(NodeSpec {
            id: "A".into(),
            body: NodeBody::Internal {
                kind: NodeKind::Chance,
                children: leaves(&[8.0, 24.0, -12.0]),
                probs: Some(vec![0.5, 1.0 / 3.0, 1.0 / 6.0]),
                eval: None,
            },
        });
        let tree = builder.build().unwrap();
        let (value, action, _) = run(&tree, SearchSettings::new(Algorithm::Expectimax));
        let expected = 0.0 + 0.5 * 8.0 + (1.0 / 3.0) * 24.0 + (1.0 / 6.0) * -12.0;
        assert_eq!(value, expected);
        assert!((value - 10.0).abs() < 1e-9);
        assert_eq!(action, None, "a chance root has no action");
    }

    #[test]
    fn depth_cut_uses_eval_and_checks_for_it() {
        let mut builder = TreeBuilder::new("cut", "A");
        builder.add(NodeSpec::internal("A", NodeKind::Max, vec![ChildSpec::id("B"), ChildSpec::id("C")]));
        builder.add(NodeSpec {
            id: "B".into(),
            body: NodeBody::Internal { kind: NodeKind::Min, children: leaves(&[1.0]), probs: None, eval: Some(7.0) },
        });
        builder.add(NodeSpec::internal("C", NodeKind::Min, leaves(&[5.0])));
        let tree = builder.build().unwrap();
        let mut settings = SearchSettings::new(Algorithm::Minimax);
        settings.depth = Some(1);
        let error = search(&tree, &settings).unwrap_err();
        assert_eq!(error, SearchError::MissingEval { node: tree.find("C").unwrap(), id: "C".into(), depth: 1 });
        settings.depth = Some(2);
        assert_eq!(run(&tree, settings).0, 5.0);
        settings.depth = Some(0);
        let outcome = search(&tree, &settings);
        assert!(outcome.is_err(), "the root has no eval");
    }

    #[test]
    fn a_terminal_root_has_no_action() {
        let mut builder = TreeBuilder::new("leaf", "A");
        builder.add(NodeSpec::terminal("A", 4.0));
        let tree = builder.build().unwrap();
        assert_eq!(run(&tree, SearchSettings::new(Algorithm::AlphaBeta)), (4.0, None, vec!["A".to_string()]));
    }

    #[test]
    fn minimax_rejects_chance_nodes() {
        let mut builder = TreeBuilder::new("c", "A");
        builder.add(NodeSpec::internal("A", NodeKind::Chance, leaves(&[1.0, 2.0])));
        let tree = builder.build().unwrap();
        assert!(matches!(
            search(&tree, &SearchSettings::new(Algorithm::Minimax)),
            Err(SearchError::ChanceUnderMinimax { .. })
        ));
    }

    fn quirky(tree: &Tree, settings: SearchSettings, quirks: Quirks) -> (f64, Option<String>, Vec<String>) {
        let outcome = search_with_quirks(tree, &settings, quirks).unwrap();
        (outcome.value, outcome.action.map(|a| tree.action(a).to_string()), tree.ids_of(&outcome.visited))
    }

    #[test]
    fn quirks_reproduce_classic_mistakes() {
        let tree = aima();
        let alphabeta = SearchSettings::new(Algorithm::AlphaBeta);
        let reversed = quirky(&tree, alphabeta, Quirks { reverse_children: true, ..Quirks::default() });
        assert_eq!(reversed.2[..5], ["A", "D", "D.3", "D.2", "D.1"]);
        assert_eq!(reversed.0, 3.0, "the value survives, the order does not");
        let eager = quirky(&tree, alphabeta, Quirks { eager_children: true, ..Quirks::default() });
        assert_eq!(eager.2[..5], ["A", "B", "C", "D", "B.1"]);
        assert_eq!(eager.2.len(), 13, "every child is entered before its siblings' subtrees are searched");
    }

    #[test]
    fn quirks_for_chance_and_ties() {
        let mut builder = TreeBuilder::new("t", "A");
        builder.add(NodeSpec::internal("A", NodeKind::Max, vec![ChildSpec::id("B"), ChildSpec::id("C")]));
        builder.add(NodeSpec {
            id: "B".into(),
            body: NodeBody::Internal {
                kind: NodeKind::Chance,
                children: leaves(&[0.0, 4.0]),
                probs: Some(vec![0.75, 0.25]),
                eval: None,
            },
        });
        builder.add(NodeSpec::internal("C", NodeKind::Min, leaves(&[1.0])));
        let tree = builder.build().unwrap();
        let expectimax = SearchSettings::new(Algorithm::Expectimax);
        assert_eq!(quirky(&tree, expectimax, Quirks::default()).0, 1.0);
        let uniform = quirky(&tree, expectimax, Quirks { uniform_chance: true, ..Quirks::default() });
        assert_eq!((uniform.0, uniform.1.as_deref()), (2.0, Some("B")));
        let ties = quirky(&tree, expectimax, Quirks { last_best_at_root: true, ..Quirks::default() });
        assert_eq!(ties.1.as_deref(), Some("C"), "B and C tie at 1: the quirk takes the last");
        assert_eq!(quirky(&tree, expectimax, Quirks::default()).1.as_deref(), Some("B"));
    }

    #[test]
    fn details_record_each_window_and_value() {
        let tree = aima();
        let (outcome, details) = search_with_details(&tree, &SearchSettings::new(Algorithm::AlphaBeta)).unwrap();
        assert_eq!(outcome, search(&tree, &SearchSettings::new(Algorithm::AlphaBeta)).unwrap());
        let window = |id: &str| {
            let detail = details[tree.find(id).unwrap().get()].unwrap();
            (detail.alpha, detail.beta, detail.value)
        };
        let inf = f64::INFINITY;
        assert_eq!(window("A"), (-inf, inf, 3.0));
        assert_eq!(window("B"), (-inf, inf, 3.0));
        assert_eq!(window("C"), (3.0, inf, 2.0), "C is entered with alpha = 3 and cut after C.1");
        assert_eq!(window("D.2"), (3.0, 14.0, 5.0));
        assert_eq!(details[tree.find("C.2").unwrap().get()], None, "pruned nodes have no details");
        let visited = details.iter().filter(|d| d.is_some()).count();
        assert_eq!(visited, outcome.visited.len());
    }

    #[test]
    fn stats_count_pruned_nodes_within_the_depth_limit() {
        let tree = aima();
        let settings = SearchSettings::new(Algorithm::AlphaBeta);
        let outcome = search(&tree, &settings).unwrap();
        let stats = stats(&tree, &settings, &outcome);
        assert_eq!((stats.tree_nodes, stats.visited, stats.pruned), (13, 11, 2));
    }

    /// max(B, C): B a terminal, C a chance node over `leaves` with `probs`.
    fn near_tie(b: f64, leaves_of_c: &[f64], probs: &[f64]) -> Tree {
        let mut builder = TreeBuilder::new("near-tie", "R");
        builder.add(NodeSpec::internal("R", NodeKind::Max, vec![ChildSpec::id("B"), ChildSpec::id("C")]));
        builder.add(NodeSpec { id: "B".into(), body: NodeBody::Terminal(b) });
        builder.add(NodeSpec {
            id: "C".into(),
            body: NodeBody::Internal {
                kind: NodeKind::Chance,
                children: leaves(leaves_of_c),
                probs: Some(probs.to_vec()),
                eval: None,
            },
        });
        builder.build().unwrap()
    }

    #[test]
    fn a_decision_resting_on_rounding_is_fragile() {
        // 0.5*0.1 + 0.5*0.2 is the double 0.15000000000000002, a hair above B = 0.15.
        let tree = near_tie(0.15, &[0.1, 0.2], &[0.5, 0.5]);
        for settings in [SearchSettings::new(Algorithm::Expectimax), SearchSettings::new(Algorithm::AlphaBeta)] {
            let fragile = fragility(&tree, &settings).unwrap().expect("fragile");
            assert_eq!(tree.id(fragile.node), "R");
            assert_eq!(fragile.values, (0.15000000000000002, 0.15));
            assert!(fragile.describe(&tree, &settings).contains("at node `R`"));
        }
        // 0.1, 0.2, 0.7 weights: C is 0.1*1 + 0.2*1 + 0.7*1, within rounding of B = 1.
        let tree = near_tie(1.0, &[1.0, 1.0, 1.0], &[0.1, 0.2, 0.7]);
        assert!(fragility(&tree, &SearchSettings::new(Algorithm::Expectimax)).unwrap().is_some());
    }

    #[test]
    fn exact_ties_and_clear_gaps_are_not_fragile() {
        // Quarters are exact: C = 0.25*1 + 0.75*3 = 2.5 ties B = 2.5 exactly.
        let tree = near_tie(2.5, &[1.0, 3.0], &[0.25, 0.75]);
        assert_eq!(fragility(&tree, &SearchSettings::new(Algorithm::Expectimax)).unwrap(), None);
        // Thirds are not exact, but C = 2 is far from B = 5.
        let tree = near_tie(5.0, &[1.0, 2.0, 3.0], &[1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0]);
        assert_eq!(fragility(&tree, &SearchSettings::new(Algorithm::AlphaBeta)).unwrap(), None);
        // Without chance nodes nothing is fragile, even on ties.
        assert_eq!(fragility(&aima(), &SearchSettings::new(Algorithm::AlphaBeta)).unwrap(), None);
    }

    #[test]
    fn an_inexact_value_carries_its_bound_up_through_max_and_min() {
        // R = max(B, M), M = min(C, 9): M takes C's inexact value, so R's
        // comparison of M with B = 0.15 is fragile two levels above C.
        let mut builder = TreeBuilder::new("carried", "R");
        builder.add(NodeSpec::internal("R", NodeKind::Max, vec![ChildSpec::id("B"), ChildSpec::id("M")]));
        builder.add(NodeSpec { id: "B".into(), body: NodeBody::Terminal(0.15) });
        builder.add(NodeSpec::internal("M", NodeKind::Min, vec![ChildSpec::id("C"), ChildSpec::leaf(9.0)]));
        builder.add(NodeSpec::internal("C", NodeKind::Chance, leaves(&[0.1, 0.2])));
        let tree = builder.build().unwrap();
        let fragile = fragility(&tree, &SearchSettings::new(Algorithm::Expectimax)).unwrap().expect("fragile");
        assert_eq!(tree.id(fragile.node), "R");
        assert!(fragile.bounds.0 > 0.0 && fragile.bounds.1 == 0.0, "{fragile:?}");
    }

    #[test]
    fn a_missing_eval_matters_only_where_the_search_cuts() {
        // Depth 1 cuts B (eval 0) and C (no eval): the search must value C by
        // an eval it lacks. At depth 2 only terminals are reached: no eval is needed.
        let mut builder = TreeBuilder::new("cut", "A");
        builder.add(NodeSpec::internal("A", NodeKind::Max, vec![ChildSpec::id("B"), ChildSpec::id("C")]));
        builder.add(NodeSpec {
            id: "B".into(),
            body: NodeBody::Internal { kind: NodeKind::Min, children: leaves(&[1.0]), probs: None, eval: Some(0.0) },
        });
        builder.add(NodeSpec::internal("C", NodeKind::Min, leaves(&[2.0])));
        let tree = builder.build().unwrap();
        let settings = SearchSettings { depth: Some(1), ..SearchSettings::new(Algorithm::Minimax) };
        let error = search(&tree, &settings).unwrap_err();
        assert_eq!(error, SearchError::MissingEval { node: tree.find("C").unwrap(), id: "C".into(), depth: 1 });
        let shallow = SearchSettings { depth: Some(2), ..settings };
        assert_eq!(search(&tree, &shallow).unwrap().value, 2.0);
    }
}
