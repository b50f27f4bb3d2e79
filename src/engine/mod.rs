//! The reference search engine: minimax, alpha-beta and expectimax exactly as
//! docs/format.md sections 2, 3 and 8.1 define them.
//!
//! Pure functions over any [`GameTree`]: a written tree or a game unfolded as
//! the search enters it. No I/O, no processes, no allocation per node beyond
//! the visited list (and, with move ordering, each expanded node's order).
//! The search is iterative (an explicit stack of frames) so that a degenerate
//! tree a million plies deep cannot overflow the thread's stack.

mod deepening;
mod fragile;
mod maxn;
mod mcts;
pub mod mistakes;
mod observe;
pub mod random;
pub mod settings;
pub mod variant;

pub use fragile::FragileComparison;
pub use mcts::{MctsTrace, Selection, trace as mcts_trace};
pub use observe::{Cut, Entry, Pass, PrunedChildren, Recorder, Recording, SearchObserver, Unobserved, Window};

pub use settings::{
    Algorithm, BadExploration, DEFAULT_EXPLORATION, MoveOrdering, ParseAlgorithmError, SETTINGS, SearchSettings,
    Setting, SettingBeside, SettingOverrides, check_exploration,
};

use thiserror::Error;

use crate::tree::{GameTree, NodeIndex, NodeKind};
use variant::BeyondSlip;

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
    /// The root's value (for max^n, player 1's component of the root's
    /// vector, which [`SearchExtra::Vector`] holds whole).
    pub value: f64,
    /// The root child whose action is chosen, if the root has an action (docs/format.md 3.3).
    pub action: Option<NodeIndex>,
    /// Every entered node once, in order of first entry (docs/format.md 3.4);
    /// for iterative deepening, each iteration's order one after the other.
    pub visited: Vec<NodeIndex>,
    /// Where alpha-beta stopped searching a node's remaining children
    /// (iterative deepening keeps them per iteration instead).
    pub cutoffs: Vec<Cutoff>,
    /// What a search of docs/format.md section 8 finds besides.
    pub extra: SearchExtra,
}

impl SearchOutcome {
    /// Iterative deepening's iterations (8.2), empty for other searches.
    pub fn iterations(&self) -> &[Iteration] {
        match &self.extra {
            SearchExtra::Iterations(iterations) => iterations,
            _ => &[],
        }
    }

    /// Each iteration with its own visited order (a slice of `visited`).
    pub fn iterations_with_visits(&self) -> impl Iterator<Item = (&Iteration, &[NodeIndex])> {
        let mut start = 0;
        self.iterations().iter().map(move |iteration| {
            let end = (start + iteration.entries).min(self.visited.len());
            let visits = &self.visited[start..end];
            start = end;
            (iteration, visits)
        })
    }

    /// Max^n's value vector (8.3).
    pub fn vector(&self) -> Option<&[f64]> {
        match &self.extra {
            SearchExtra::Vector(vector) => Some(vector),
            _ => None,
        }
    }

    /// MCTS's counts at the root and draws (8.4).
    pub fn mcts(&self) -> Option<&MctsSummary> {
        match &self.extra {
            SearchExtra::Mcts(summary) => Some(summary),
            _ => None,
        }
    }
}

/// What the searches of docs/format.md section 8 find beyond a value, an
/// action and a visited order.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum SearchExtra {
    /// Nothing (the searches of section 3).
    #[default]
    None,
    /// Iterative deepening's iterations, in order (8.2).
    Iterations(Vec<Iteration>),
    /// Max^n's vector at the root (8.3).
    Vector(Vec<f64>),
    /// MCTS's statistics (8.4).
    Mcts(MctsSummary),
}

/// One iteration of iterative deepening (docs/format.md 8.2).
#[derive(Clone, Debug, PartialEq)]
pub struct Iteration {
    /// Its depth limit.
    pub depth: u32,
    /// The root's value; `None` for an iteration the budget cut short.
    pub value: Option<f64>,
    /// The chosen child (`None` also where the root has no action).
    pub action: Option<NodeIndex>,
    /// How many entries of the search's `visited` are this iteration's.
    pub entries: usize,
    /// Whether it ran to its end (the budget cuts the last one short).
    pub complete: bool,
    /// Where it stopped searching a node's remaining children.
    pub cutoffs: Vec<Cutoff>,
}

/// MCTS's counts at the root (docs/format.md 8.4).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MctsSummary {
    /// The root's children in order, each with its N and W.
    pub children: Vec<ChildCount>,
    /// The number of random draws the search took.
    pub draws: u64,
}

/// One node's MCTS statistics.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChildCount {
    /// The node (a root child).
    pub node: NodeIndex,
    /// Iterations whose selection passed through it or stopped at it.
    pub n: u64,
    /// The sum of their rewards, in MAX's view.
    pub w: f64,
}

/// An alpha-beta cutoff: `node` searched only its first `searched` children
/// (in the searched order, which move ordering may change).
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
    /// Minimax on a game that has chance moves (docs/format.md 7).
    #[error("minimax cannot search {game}, a game with chance moves; use expectimax (or alphabeta)")]
    ChanceGameUnderMinimax {
        /// The game's name.
        game: String,
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
    /// A depth cut reaches a game's node and the file names no evaluation.
    #[error(
        "depth limit {depth} cuts the search at node `{id}`, but no evaluation is named: \
         add `eval` to the file's `search:` block or pass --eval ({available})"
    )]
    NoEvaluation {
        /// The first node cut.
        node: NodeIndex,
        /// Its id.
        id: String,
        /// The depth limit.
        depth: u32,
        /// The game's evaluations, in words.
        available: String,
    },
    /// Move ordering needs a static value for every child it sorts (8.1),
    /// and so does forward pruning (8.5).
    #[error(
        "{} needs the static value of node `{id}`, which is neither a terminal nor has an `eval` \
         (docs/format.md {})",
        if *.forward { "forward pruning" } else { "move ordering" },
        if *.forward { "8.5" } else { "8.1" }
    )]
    MissingStaticValue {
        /// The child without a static value.
        node: NodeIndex,
        /// Its id.
        id: String,
        /// Whether forward pruning (not move ordering alone) sorted it.
        forward: bool,
    },
    /// A setting beside a search that does not take it and refuses it
    /// (forward pruning, 8.5).
    #[error(transparent)]
    SettingBeside(#[from] SettingBeside),
    /// Iterative deepening needs its deepest depth (8.2).
    #[error(
        "iterative deepening needs its deepest iteration's depth, at least 1: set `search: {{depth: N}}` or --depth"
    )]
    DeepeningWithoutDepth,
    /// MCTS needs its number of iterations (8.4).
    #[error("mcts needs its number of iterations, at least 1: set `search: {{iterations: N}}` or --iterations")]
    MctsWithoutIterations,
    /// A budget that the first iteration of iterative deepening overruns (8.2).
    #[error(
        "a budget of {budget} nodes is smaller than the first iteration's {needed} entries (depth 1), so \
         iterative deepening would have no answer: give a budget of at least {needed}"
    )]
    BudgetTooSmall {
        /// The budget.
        budget: u64,
        /// The first iteration's entries.
        needed: usize,
    },
    /// A max^n tree searched by a two-player search.
    #[error("this tree has {players} players (`players`), so only maxn searches it; {algorithm} needs MAX and MIN")]
    PlayersUnderTwoPlayerSearch {
        /// The tree's players.
        players: u32,
        /// The search asked for.
        algorithm: Algorithm,
    },
    /// A game that can go on forever searched without a depth limit.
    #[error(
        "{game} can go on forever, so it is searched only with a depth limit: set `search: {{depth: N}}` or --depth"
    )]
    Unbounded {
        /// The game's name.
        game: String,
    },
    /// The tree could not give a node (a game's program failed, or the
    /// search grew past its node limit).
    #[error("{message}")]
    Unfolding {
        /// The node being expanded when it failed.
        node: NodeIndex,
        /// What went wrong.
        message: String,
    },
}

impl SearchError {
    /// The node the error is about.
    pub fn node(&self) -> NodeIndex {
        match self {
            SearchError::ChanceUnderMinimax { node, .. }
            | SearchError::MissingEval { node, .. }
            | SearchError::NoEvaluation { node, .. }
            | SearchError::MissingStaticValue { node, .. }
            | SearchError::Unfolding { node, .. } => *node,
            SearchError::ChanceGameUnderMinimax { .. }
            | SearchError::Unbounded { .. }
            | SearchError::DeepeningWithoutDepth
            | SearchError::MctsWithoutIterations
            | SearchError::BudgetTooSmall { .. }
            | SearchError::SettingBeside(_)
            | SearchError::PlayersUnderTwoPlayerSearch { .. } => NodeIndex::ROOT,
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

/// Runs a search and records everything it reports (see [`Recorder`]):
/// the windows, values, depth cuts and pruned children that pictures and
/// the step-through show. The searches of section 8 other than iterative
/// deepening report no nodes.
pub fn search_recorded<T: GameTree + ?Sized>(
    tree: &T,
    settings: &SearchSettings,
) -> Result<(SearchOutcome, Recording), SearchError> {
    let mut recorder = Recorder::new();
    let outcome = search_observed(tree, settings, &mut recorder)?;
    Ok((outcome, recorder.finish()))
}

/// The value of the subtree under `node` with the depth limit of `settings`
/// (plies counted from the tree's root): minimax, or expectimax where there
/// are chance nodes, without pruning, so it is the node's true value. Reports
/// use it to show what a student's chosen action is worth.
pub fn value_of<T: GameTree + ?Sized>(
    tree: &T,
    node: NodeIndex,
    settings: &SearchSettings,
) -> Result<f64, SearchError> {
    let algorithm = if tree.has_chance_nodes() { Algorithm::Expectimax } else { Algorithm::Minimax };
    let settings = SearchSettings { algorithm, move_ordering: MoveOrdering::Tree, forward_pruning: None, ..*settings };
    let mut search = Search::new(tree, &settings);
    let (value, _) = search.explore_from(node);
    search.succeeded()?;
    Ok(value)
}

/// The first fragile comparison (docs/format.md 2.1) the reference search makes
/// with `settings`, if any: a comparison that a last-bit difference in a
/// chance value could turn around. Without chance nodes every value is exact
/// and nothing is fragile, so such trees are not searched again.
pub fn fragility<T: GameTree + ?Sized>(
    tree: &T,
    settings: &SearchSettings,
) -> Result<Option<FragileComparison>, SearchError> {
    check(tree, settings)?;
    match settings.algorithm {
        // UCB values are never exact: any tree can make a fragile selection.
        Algorithm::Mcts => {
            return mcts::search(tree, settings, Keep::Fragility, BeyondSlip::None).map(|(_, fragile)| fragile);
        }
        _ if !tree.has_chance_nodes() => return Ok(None),
        Algorithm::IterativeDeepening => {
            return deepening::search(tree, settings, Keep::Fragility, BeyondSlip::None).map(|(_, fragile)| fragile);
        }
        Algorithm::Maxn => {
            return maxn::search(tree, settings, maxn::Bounds::Kept, BeyondSlip::None).map(|(_, fragile)| fragile);
        }
        Algorithm::Minimax | Algorithm::AlphaBeta | Algorithm::Expectimax => {}
    }
    let mut search = Search::new(tree, settings);
    search.bounds = Some(fragile::Bounds::default());
    search.explore();
    search.succeeded()?;
    Ok(search.bounds.and_then(|bounds| bounds.fragile))
}

/// Counts that describe how much of the tree a search looked at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchStats {
    /// Nodes in the whole tree, when known (a written tree; not a game's).
    pub tree_nodes: Option<usize>,
    /// Nodes at or above the depth limit (all nodes without a limit), when known.
    pub within_depth: Option<usize>,
    /// Nodes the search entered.
    pub visited: usize,
    /// Nodes within the depth limit that pruning skipped, when known.
    pub pruned: Option<usize>,
}

/// Checks that `settings` can be applied to `tree` at all (docs/format.md
/// 3.1 and 7): minimax needs a tree without chance nodes, and a game that
/// can go on forever needs a depth limit.
pub fn check<T: GameTree + ?Sized>(tree: &T, settings: &SearchSettings) -> Result<(), SearchError> {
    if let Some(players) = tree.players()
        && !settings.algorithm.vector_values()
    {
        return Err(SearchError::PlayersUnderTwoPlayerSearch { players, algorithm: settings.algorithm });
    }
    if !settings.algorithm.accepts_chance() && tree.has_chance_nodes() {
        return Err(match tree.first_chance_node() {
            Some(node) => SearchError::ChanceUnderMinimax { node, id: tree.id(node).into_owned() },
            None => SearchError::ChanceGameUnderMinimax { game: tree.game_name().unwrap_or(tree.name()).to_string() },
        });
    }
    if settings.algorithm.deepens() && settings.depth.is_none_or(|depth| depth == 0) {
        return Err(SearchError::DeepeningWithoutDepth);
    }
    if settings.algorithm.takes_iterations() && settings.iterations.is_none_or(|iterations| iterations == 0) {
        return Err(SearchError::MctsWithoutIterations);
    }
    if let Some(refused) = settings.refused_setting() {
        return Err(SearchError::SettingBeside(refused));
    }
    if tree.unbounded() && settings.depth.is_none() {
        return Err(SearchError::Unbounded { game: tree.game_name().unwrap_or(tree.name()).to_string() });
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
pub fn search<T: GameTree + ?Sized>(tree: &T, settings: &SearchSettings) -> Result<SearchOutcome, SearchError> {
    search_with_slip(tree, settings, BeyondSlip::None)
}

/// Runs the search `settings` describe, reporting each step to `observer`
/// (docs/format.md sections 3 and 8.2; max^n and MCTS report nothing).
pub fn search_observed<T: GameTree + ?Sized, O: SearchObserver>(
    tree: &T,
    settings: &SearchSettings,
    observer: &mut O,
) -> Result<SearchOutcome, SearchError> {
    run(tree, settings, BeyondSlip::None, observer)
}

/// A search of docs/format.md section 8 as a student who makes the mistake
/// `slip` writes it (`BeyondSlip::None`: the reference, [`search`]).
/// The searches of section 3 ignore `slip`.
pub fn search_with_slip<T: GameTree + ?Sized>(
    tree: &T,
    settings: &SearchSettings,
    slip: BeyondSlip,
) -> Result<SearchOutcome, SearchError> {
    run(tree, settings, slip, &mut Unobserved)
}

/// The dispatch of [`search_with_slip`] and [`search_observed`].
fn run<T: GameTree + ?Sized, O: SearchObserver>(
    tree: &T,
    settings: &SearchSettings,
    slip: BeyondSlip,
    observer: &mut O,
) -> Result<SearchOutcome, SearchError> {
    check(tree, settings)?;
    match settings.algorithm {
        Algorithm::IterativeDeepening => {
            deepening::watched(tree, settings, Keep::Values, slip, observer).map(|(outcome, _)| outcome)
        }
        Algorithm::Maxn => maxn::search(tree, settings, maxn::Bounds::Skipped, slip).map(|(outcome, _)| outcome),
        Algorithm::Mcts => mcts::search(tree, settings, Keep::Values, slip).map(|(outcome, _)| outcome),
        Algorithm::Minimax | Algorithm::AlphaBeta | Algorithm::Expectimax => {
            let mut search = Search::watched(tree, settings, observer);
            let (value, action) = search.explore();
            search.succeeded()?;
            Ok(search.finish(value, action))
        }
    }
}

/// What a search keeps besides its values: nothing more, or what it takes
/// to find a fragile comparison (docs/format.md 2.1, 8.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Keep {
    Values,
    Fragility,
}

/// How much of `tree` the `outcome` entered and how much pruning skipped
/// (the whole tree's counts only where its size is known).
pub fn stats<T: GameTree + ?Sized>(tree: &T, settings: &SearchSettings, outcome: &SearchOutcome) -> SearchStats {
    let within_depth = tree.size().map(|size| match settings.depth {
        Some(depth) => (0..size as u32).filter(|&i| tree.ply(NodeIndex(i)) <= depth).count(),
        None => size,
    });
    SearchStats {
        tree_nodes: tree.size(),
        within_depth,
        visited: outcome.visited.len(),
        pruned: within_depth.map(|within| within.saturating_sub(outcome.visited.len())),
    }
}

/// The static value of a node for move ordering (docs/format.md 8.1): a
/// terminal's utility, any other node's evaluation.
pub fn static_value<T: GameTree + ?Sized>(tree: &T, node: NodeIndex) -> Option<f64> {
    match tree.kind(node) {
        NodeKind::Terminal => Some(tree.utility(node)),
        _ => tree.eval(node),
    }
}

/// The order in which a max or min node's children are searched under move
/// ordering (8.1): by static value, best for the mover first, ties keeping
/// the tree's order. `Err` names the first child without a static value.
pub fn ordered_children<T: GameTree + ?Sized>(
    tree: &T,
    node: NodeIndex,
    kind: NodeKind,
) -> Result<Vec<u32>, NodeIndex> {
    let mut keyed = Vec::new();
    for child in tree.child_range(node) {
        let value = static_value(tree, NodeIndex(child)).ok_or(NodeIndex(child))?;
        keyed.push((value, child));
    }
    // A stable sort keeps equal values in the tree's order. Values compare as
    // IEEE doubles do (-0 equals 0, docs/format.md 2); they are never NaN.
    let order = |a: f64, b: f64| a.partial_cmp(&b).unwrap_or(std::cmp::Ordering::Equal);
    match kind {
        NodeKind::Max => keyed.sort_by(|a, b| order(b.0, a.0)),
        _ => keyed.sort_by(|a, b| order(a.0, b.0)),
    }
    Ok(keyed.into_iter().map(|(_, child)| child).collect())
}

/// A game's evaluations in words, for an error that asks for one.
fn describe_evaluations(names: &[String]) -> String {
    match names {
        [] => "this game defines no evaluation, so it is searched only to its terminals".to_string(),
        [one] => format!("this game has `{one}`"),
        many => format!("this game has {}", many.iter().map(|name| format!("`{name}`")).collect::<Vec<_>>().join(", ")),
    }
}

/// A node's children in the order a search with `settings` takes them: by
/// static value under move ordering (8.1), only the N best under forward
/// pruning (8.5), else the tree's order. Pictures and reports use it to say
/// which children a cutoff pruned.
pub fn searched_order<T: GameTree + ?Sized>(tree: &T, settings: &SearchSettings, node: NodeIndex) -> Vec<NodeIndex> {
    let kind = tree.kind(node);
    let above_cut = settings.depth.is_none_or(|depth| tree.ply(node) < depth);
    if settings.orders_by_static_value()
        && matches!(kind, NodeKind::Max | NodeKind::Min)
        && above_cut
        && let Ok(order) = ordered_children(tree, node, kind)
    {
        let kept = settings.forward_pruning.map_or(order.len(), |n| n as usize);
        return order.into_iter().take(kept).map(NodeIndex).collect();
    }
    tree.children(node).collect()
}

/// The root's children with `first` first and the others in the tree's order.
fn previous_choice_first(children: std::ops::Range<u32>, first: u32) -> Box<[u32]> {
    std::iter::once(first).chain(children.filter(|&child| child != first)).collect()
}

/// One node whose children are being searched.
struct Frame {
    node: u32,
    kind: NodeKind,
    first_child: u32,
    child_count: u32,
    /// The searched order of the children, when move ordering changes it.
    order: Option<Box<[u32]>>,
    /// Children searched so far (or all of them, after a cutoff).
    taken: u32,
    value: f64,
    alpha: f64,
    beta: f64,
    best_child: Option<u32>,
}

impl Frame {
    /// The next child to search, in the searched order.
    fn next_child(&self) -> u32 {
        match &self.order {
            Some(order) => order[self.taken as usize],
            None => self.first_child + self.taken,
        }
    }
}

/// What entering a node produced.
enum Entered {
    /// The node was valued at once (terminal or depth cut).
    Valued(f64),
    /// The node's children must be searched.
    Expanding(Frame),
}

/// Why a search stopped before its end (reported once it returns).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stop {
    /// A node cut by the depth limit has no evaluation.
    MissingEval(u32),
    /// A child to be ordered has no static value (`true`: under forward pruning).
    MissingStaticValue(u32, bool),
    /// The tree could not make a node's children.
    Unfolding(u32),
}

/// The error a search that stopped for `stop` reports (`depth`: its limit).
fn stop_error<T: GameTree + ?Sized>(tree: &T, stop: Stop, depth: Option<u32>) -> SearchError {
    let id = |index: u32| tree.id(NodeIndex(index)).into_owned();
    match stop {
        Stop::MissingEval(index) => {
            let node = NodeIndex(index);
            let depth = depth.unwrap_or(0);
            match tree.evaluations() {
                None => SearchError::MissingEval { node, id: id(index), depth },
                Some(names) => {
                    SearchError::NoEvaluation { node, id: id(index), depth, available: describe_evaluations(&names) }
                }
            }
        }
        Stop::MissingStaticValue(index, forward) => {
            SearchError::MissingStaticValue { node: NodeIndex(index), id: id(index), forward }
        }
        Stop::Unfolding(index) => SearchError::Unfolding {
            node: NodeIndex(index),
            message: tree.fault().unwrap_or_else(|| "the tree could not be made".to_string()),
        },
    }
}

/// The pruning test: `high >= low` when pruning on equality, else `high > low`.
fn exceeds(prune_on_equal: bool, high: f64, low: f64) -> bool {
    if prune_on_equal { high >= low } else { high > low }
}

struct Search<'t, T: GameTree + ?Sized, O: SearchObserver = Unobserved> {
    tree: &'t T,
    /// Told each step (a no-op, compiled away, for the plain search).
    observer: O,
    depth: Option<u32>,
    pruning: bool,
    /// Whether max nodes prune on equality (`v >= beta`).
    prune_on_equal_at_max: bool,
    /// Whether min nodes prune on equality (`v <= alpha`); the same as at
    /// max nodes, but for a student's mistake.
    prune_on_equal_at_min: bool,
    ordering: bool,
    /// Forward pruning's N (8.5): only the first N children of the searched
    /// order are searched at a max or min node.
    forward: Option<u32>,
    visited: Vec<NodeIndex>,
    cutoffs: Vec<Cutoff>,
    /// Error bounds beside the frames (docs/format.md 2.1); kept only for [`fragility`].
    bounds: Option<fragile::Bounds>,
    /// The first problem met. A missing `eval` lets the search run on (with
    /// 0) so that it is reported where the first one is; the others stop it.
    stop: Option<Stop>,
    /// The root child searched first, before the others in the tree's
    /// order (iterative deepening's previous choice, 8.2).
    root_first: Option<u32>,
    /// Entries left before the budget is spent (iterative deepening, 8.2).
    budget_left: Option<u64>,
    /// The search asked to enter one node more than its budget allows, and
    /// stopped there (not an error: the iteration is cut short).
    out_of_budget: bool,
    /// Whether a non-terminal node was valued at the depth cut (so the
    /// search did not see the whole tree, 8.2).
    cut_inside: bool,
    /// The root's value and chosen child once a root child was searched:
    /// what a search cut short by the budget had found so far.
    root_best_so_far: Option<(f64, Option<NodeIndex>)>,
}

impl<'t, T: GameTree + ?Sized> Search<'t, T> {
    fn new(tree: &'t T, settings: &SearchSettings) -> Search<'t, T> {
        Search::watched(tree, settings, Unobserved)
    }
}

impl<'t, T: GameTree + ?Sized, O: SearchObserver> Search<'t, T, O> {
    /// A search that reports each step to `observer`.
    fn watched(tree: &'t T, settings: &SearchSettings, observer: O) -> Search<'t, T, O> {
        Search {
            tree,
            observer,
            depth: settings.depth,
            pruning: settings.algorithm.prunes(),
            prune_on_equal_at_max: settings.prune_on_equal,
            prune_on_equal_at_min: settings.prune_on_equal,
            ordering: settings.orders_by_static_value(),
            forward: settings.forward_pruning.filter(|_| settings.algorithm.forward_prunes()),
            visited: Vec::new(),
            cutoffs: Vec::new(),
            bounds: None,
            stop: None,
            root_first: None,
            budget_left: None,
            out_of_budget: false,
            cut_inside: false,
            root_best_so_far: None,
        }
    }

    /// Fails when the search met a problem on its way (docs/format.md 1, 7, 8.1).
    fn succeeded(&self) -> Result<(), SearchError> {
        match self.stop {
            None => Ok(()),
            Some(stop) => Err(stop_error(self.tree, stop, self.depth)),
        }
    }

    /// Whether the search must stop now (a missing eval lets it run on).
    fn halted(&self) -> bool {
        self.out_of_budget || matches!(self.stop, Some(Stop::MissingStaticValue(..) | Stop::Unfolding(_)))
    }

    /// The search loop: the root's value and chosen child.
    fn explore(&mut self) -> (f64, Option<NodeIndex>) {
        self.explore_from(NodeIndex::ROOT)
    }

    /// The search loop from `start` (the root, or a subtree's top node).
    fn explore_from(&mut self, start: NodeIndex) -> (f64, Option<NodeIndex>) {
        let root = match self.enter(start.0, f64::NEG_INFINITY, f64::INFINITY) {
            Entered::Valued(value) => return (value, None),
            Entered::Expanding(frame) => frame,
        };
        if let Some(bounds) = self.bounds.as_mut() {
            bounds.open(root.kind == NodeKind::Chance, (0.0, 0.0));
        }
        let mut stack = vec![root];
        loop {
            if self.halted() {
                return (0.0, None);
            }
            let top = stack.last_mut().expect("the stack holds at least the root");
            if top.taken < top.child_count {
                let child = top.next_child();
                top.taken += 1;
                let (alpha, beta) = match top.kind {
                    NodeKind::Chance => (f64::NEG_INFINITY, f64::INFINITY),
                    _ => (top.alpha, top.beta),
                };
                let window_bounds = self.bounds.as_ref().map(|b| b.child_window(top.kind == NodeKind::Chance));
                match self.enter(child, alpha, beta) {
                    // A spent budget or a failed tree stops the search before
                    // the refused child's stand-in value counts anywhere.
                    Entered::Valued(_) if self.halted() => return (0.0, None),
                    Entered::Valued(value) => {
                        self.absorb(stack.last_mut().expect("parent frame"), child, (value, 0.0));
                        if stack.len() == 1 {
                            self.note_root_best(&stack[0]);
                        }
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
            self.observer.returned(NodeIndex(done.node), done.value);
            let bound = self.bounds.as_mut().map_or(0.0, |bounds| bounds.close(done.value));
            match stack.last_mut() {
                Some(parent) => {
                    self.absorb(parent, done.node, (done.value, bound));
                    if stack.len() == 1 {
                        self.note_root_best(&stack[0]);
                    }
                }
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

    /// Keeps the root's value and choice after one of its children was searched.
    fn note_root_best(&mut self, root: &Frame) {
        let action = match root.kind {
            NodeKind::Max | NodeKind::Min => root.best_child.map(NodeIndex),
            _ => None,
        };
        self.root_best_so_far = Some((root.value, action));
    }

    fn finish(&mut self, value: f64, action: Option<NodeIndex>) -> SearchOutcome {
        SearchOutcome {
            value,
            action,
            visited: std::mem::take(&mut self.visited),
            cutoffs: std::mem::take(&mut self.cutoffs),
            extra: SearchExtra::None,
        }
    }

    /// Enters a node: records the visit and values it or opens a frame.
    fn enter(&mut self, index: u32, alpha: f64, beta: f64) -> Entered {
        let node = NodeIndex(index);
        if let Some(left) = self.budget_left.as_mut() {
            if *left == 0 {
                self.out_of_budget = true;
                return Entered::Valued(0.0);
            }
            *left -= 1;
        }
        self.visited.push(node);
        self.observer.entered(node, Window { alpha, beta });
        let tree = self.tree;
        let kind = tree.kind(node);
        if kind == NodeKind::Terminal {
            let utility = tree.utility(node);
            self.observer.returned(node, utility);
            return Entered::Valued(utility);
        }
        if self.depth == Some(tree.ply(node)) {
            self.cut_inside = true;
            // A cut without an eval fails the search once it ends; 0 keeps it going until then.
            let value = tree.eval(node).unwrap_or_else(|| {
                self.stop.get_or_insert(Stop::MissingEval(index));
                0.0
            });
            self.observer.evaluated(node, value);
            self.observer.returned(node, value);
            return Entered::Valued(value);
        }
        let children = tree.child_range(node);
        if tree.fault().is_some() {
            self.stop = Some(Stop::Unfolding(index));
            return Entered::Valued(0.0);
        }
        let order = if let (Some(first), true, NodeKind::Max | NodeKind::Min) =
            (self.root_first, node == NodeIndex::ROOT, kind)
        {
            Some(previous_choice_first(children.clone(), first))
        } else if self.ordering && matches!(kind, NodeKind::Max | NodeKind::Min) {
            match ordered_children(tree, node, kind) {
                Ok(order) => Some(order.into_boxed_slice()),
                Err(child) => {
                    self.stop = Some(Stop::MissingStaticValue(child.0, self.forward.is_some()));
                    return Entered::Valued(0.0);
                }
            }
        } else {
            None
        };
        let value = match kind {
            NodeKind::Max => f64::NEG_INFINITY,
            NodeKind::Min => f64::INFINITY,
            _ => 0.0,
        };
        let mut child_count = children.end - children.start;
        if let (Some(n), NodeKind::Max | NodeKind::Min) = (self.forward, kind) {
            // Forward pruning (8.5): the children past the N best are never entered.
            child_count = child_count.min(n);
        }
        Entered::Expanding(Frame {
            node: index,
            kind,
            first_child: children.start,
            child_count,
            order,
            taken: 0,
            value,
            alpha,
            beta,
            best_child: None,
        })
    }

    /// Folds a child's value into its parent's frame, pruning where 3.2 says.
    /// `child` is the child's value and its error bound (0 unless bounds are kept).
    fn absorb(&mut self, frame: &mut Frame, child_index: u32, child: (f64, f64)) {
        let value = child.0;
        let before = frame.value;
        let node = NodeIndex(frame.node);
        match frame.kind {
            NodeKind::Max => {
                if value > frame.value {
                    frame.value = value;
                    frame.best_child = Some(child_index);
                }
                if let Some(bounds) = self.bounds.as_mut() {
                    bounds.max_child(node, before, child, frame.value, self.pruning.then_some(frame.beta));
                }
                if self.pruning {
                    if exceeds(self.prune_on_equal_at_max, frame.value, frame.beta) {
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
                if value < frame.value {
                    frame.value = value;
                    frame.best_child = Some(child_index);
                }
                if let Some(bounds) = self.bounds.as_mut() {
                    bounds.min_child(node, before, child, frame.value, self.pruning.then_some(frame.alpha));
                }
                if self.pruning {
                    if exceeds(self.prune_on_equal_at_min, frame.alpha, frame.value) {
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
                let probability = self.tree.probability(NodeIndex(child_index));
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

    fn cut(&mut self, frame: &mut Frame) {
        if frame.taken < frame.child_count {
            let node = NodeIndex(frame.node);
            self.cutoffs.push(Cutoff { node, searched: frame.taken });
            let pruned = PrunedChildren {
                order: frame.order.as_deref(),
                first_child: frame.first_child,
                child_count: frame.child_count,
                searched: frame.taken,
            };
            self.observer.pruned(node, pruned);
            frame.taken = frame.child_count;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::fixtures::{aima, leaves};
    use crate::tree::{ChildSpec, NodeBody, NodeSpec, Tree, TreeBuilder};

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

    /// AIMA figure 5.2 with evals B 2, C 5, D 1 (docs/format.md 8.5's tests).
    fn aima_with_evals() -> Tree {
        let mut builder = TreeBuilder::new("aima-evals", "A");
        builder.add(NodeSpec::internal(
            "A",
            NodeKind::Max,
            vec![ChildSpec::id("B"), ChildSpec::id("C"), ChildSpec::id("D")],
        ));
        for (id, eval, values) in
            [("B", 2.0, [3.0, 12.0, 8.0]), ("C", 5.0, [2.0, 4.0, 6.0]), ("D", 1.0, [14.0, 5.0, 2.0])]
        {
            builder.add(NodeSpec {
                id: id.into(),
                body: NodeBody::Internal {
                    kind: NodeKind::Min,
                    children: leaves(&values),
                    probs: None,
                    eval: Some(eval),
                },
            });
        }
        builder.build().unwrap()
    }

    fn forward(algorithm: Algorithm, n: u32) -> SearchSettings {
        SearchSettings { forward_pruning: Some(n), ..SearchSettings::new(algorithm) }
    }

    #[test]
    fn forward_pruning_searches_only_the_n_best_at_max_and_at_min() {
        let tree = aima_with_evals();
        // One child: C (eval 5) at the root, its least leaf (2) below.
        for algorithm in Algorithm::CLASSIC {
            let (value, action, visited) = run(&tree, forward(algorithm, 1));
            assert_eq!(
                (value, action.as_deref(), visited),
                (2.0, Some("C"), vec!["A", "C", "C.1"].into_iter().map(String::from).collect())
            );
        }
        // Two: C then B at the root; at each MIN node its two least, least first.
        let (value, action, visited) = run(&tree, forward(Algorithm::Minimax, 2));
        assert_eq!((value, action.as_deref()), (3.0, Some("B")));
        assert_eq!(visited, ["A", "C", "C.1", "C.2", "B", "B.1", "B.3"]);
        // Alpha-beta prunes only among the children it searches: B.1 (3) stays above alpha (2), no cut.
        let (_, _, visited) = run(&tree, forward(Algorithm::AlphaBeta, 2));
        assert_eq!(visited, ["A", "C", "C.1", "C.2", "B", "B.1", "B.3"]);
        // N at least the number of children: every child, sorted.
        let (value, _, visited) = run(&tree, forward(Algorithm::Minimax, 3));
        assert_eq!(value, 3.0);
        assert_eq!(visited.len(), 13);
        assert_eq!(&visited[..3], ["A", "C", "C.1"]);
    }

    #[test]
    fn forward_pruning_never_cuts_chance_nodes_or_nodes_at_the_depth_cut() {
        let mut builder = TreeBuilder::new("chance", "A");
        builder.add(NodeSpec::internal("A", NodeKind::Max, vec![ChildSpec::id("B"), ChildSpec::leaf(0.0)]));
        builder.add(NodeSpec {
            id: "B".into(),
            body: NodeBody::Internal {
                kind: NodeKind::Chance,
                children: leaves(&[1.0, 7.0, 4.0]),
                probs: None,
                eval: Some(3.0),
            },
        });
        let tree = builder.build().unwrap();
        let (value, action, visited) = run(&tree, forward(Algorithm::Expectimax, 1));
        assert_eq!((value, action.as_deref()), (4.0, Some("B")));
        assert_eq!(visited, ["A", "B", "B.1", "B.2", "B.3"]);
        // At depth 1, B is cut and valued by its eval: nothing below it is entered.
        let settings = SearchSettings { depth: Some(1), ..forward(Algorithm::Expectimax, 1) };
        assert_eq!(run(&tree, settings), (3.0, Some("B".to_string()), vec!["A".to_string(), "B".to_string()]));
    }

    #[test]
    fn forward_pruning_needs_every_static_value_and_a_search_that_takes_it() {
        let error = search(&aima(), &forward(Algorithm::AlphaBeta, 2)).unwrap_err();
        assert!(matches!(error, SearchError::MissingStaticValue { forward: true, .. }), "{error:?}");
        assert!(error.to_string().starts_with("forward pruning needs the static value of node `B`"), "{error}");
        let error =
            search(&aima(), &SearchSettings { iterations: Some(3), ..forward(Algorithm::Mcts, 2) }).unwrap_err();
        assert_eq!(
            error,
            SearchError::SettingBeside(SettingBeside { key: "forward_pruning", algorithm: Algorithm::Mcts })
        );
        assert_eq!(
            error.to_string(),
            "`forward_pruning` is a setting of minimax, alphabeta and expectimax only (docs/format.md 8.5), not of mcts"
        );
    }

    #[test]
    fn move_ordering_searches_children_by_static_value_and_says_so() {
        // max(B eval 1, C eval 5, D terminal 3): C, D, B under ordering.
        let mut builder = TreeBuilder::new("ordered", "A");
        builder.add(NodeSpec::internal(
            "A",
            NodeKind::Max,
            vec![ChildSpec::id("B"), ChildSpec::id("C"), ChildSpec::id("D")],
        ));
        let with_eval = |id: &str, eval, leaf| NodeSpec {
            id: id.into(),
            body: NodeBody::Internal { kind: NodeKind::Min, children: leaves(&[leaf]), probs: None, eval: Some(eval) },
        };
        builder.add(with_eval("B", 1.0, 4.0));
        builder.add(with_eval("C", 5.0, 2.0));
        builder.add(NodeSpec::terminal("D", 3.0));
        let tree = builder.build().unwrap();
        let settings =
            SearchSettings { move_ordering: MoveOrdering::Eval, ..SearchSettings::new(Algorithm::AlphaBeta) };
        let order = searched_order(&tree, &settings, NodeIndex::ROOT);
        assert_eq!(tree.ids_of(&order), ["C", "D", "B"]);
        let outcome = search(&tree, &settings).unwrap();
        assert_eq!(tree.ids_of(&outcome.visited), ["A", "C", "C.1", "D", "B", "B.1"]);
        assert_eq!((outcome.value, outcome.action.map(|a| tree.id(a))), (4.0, Some("B")));
        let plain = searched_order(&tree, &SearchSettings::new(Algorithm::AlphaBeta), NodeIndex::ROOT);
        assert_eq!(tree.ids_of(&plain), ["B", "C", "D"]);
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

    #[test]
    fn the_recording_holds_each_window_and_value() {
        let tree = aima();
        let (outcome, recording) = search_recorded(&tree, &SearchSettings::new(Algorithm::AlphaBeta)).unwrap();
        assert_eq!(outcome, search(&tree, &SearchSettings::new(Algorithm::AlphaBeta)).unwrap());
        let details = recording.whole_search().expect("one pass").details_by_node(tree.len());
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
        assert_eq!((stats.tree_nodes, stats.visited, stats.pruned), (Some(13), 11, Some(2)));
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
