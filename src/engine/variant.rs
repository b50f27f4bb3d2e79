//! The search as students write it, mistakes included.
//!
//! A plain recursion, shaped like the `max_value` / `min_value` functions of
//! textbooks and handouts, with one switch per classic mistake ([`Slips`]).
//! With every switch off it is the reference search of docs/format.md sections 2
//! and 3, node for node (a property test holds it to that); with one on, it
//! reproduces the exact trace of a student who made that mistake, so that
//! the diagnosis can name it. It is slower than the reference engine and
//! recursive, so it only runs on trees of bounded height ([`MAX_HEIGHT`]).

use super::{SearchExtra, SearchSettings};
use crate::tree::{GameTree, NodeIndex, NodeKind};

/// Deeper trees are not searched by the variants (the recursion would be
/// as deep as the tree).
pub const MAX_HEIGHT: u32 = 2_000;

/// How a node's alpha-beta window is handled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WindowSlip {
    /// As the reference: tightened after each child, passed down as is.
    #[default]
    None,
    /// Not tightened at the root (each root child searched with the full
    /// window); right below it.
    RootNotUpdated,
    /// A max node lowers beta and a min node raises alpha.
    SwappedUpdates,
    /// Children are called with (beta, alpha).
    SwappedArguments,
    /// The node takes its window in swapped order (declared `(beta,
    /// alpha)`, called with `(alpha, beta)`): it reads the bounds swapped,
    /// then prunes, tightens and passes them on as if they were right.
    SwappedParameters,
    /// A max node raises beta (`beta = max(beta, v)`) and a min node lowers
    /// alpha: each moves the other's bound away, so the window never
    /// tightens.
    SwappedUpdatesWidening,
    /// Neither bound is ever updated: each node prunes only against the
    /// window it was given (with `spare_root`, the root's own loop
    /// tightens its bound and nothing below it does).
    NeverTightened,
}

/// How a chance node is valued.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ChanceSlip {
    /// The expectation, with the node's probabilities.
    #[default]
    None,
    /// The plain average of the children.
    Uniform,
    /// The greatest child value.
    AsMax,
    /// The least child value.
    AsMin,
    /// The expectation divided again by the number of children.
    DividedByCount,
    /// Searched as a max node (alpha-beta's window and pruning included).
    AsMaxNode,
    /// Searched as a min node (alpha-beta's window and pruning included).
    AsMinNode,
    /// The sum of the children's values, never divided (CS188's classic).
    Summed,
}

/// How plies are counted for the depth limit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DepthSlip {
    /// One ply per edge; a node at ply `depth` is cut.
    #[default]
    None,
    /// In rounds of all agents, as Pacman's: the count goes up only on the
    /// way into a MAX node, and only MAX nodes are cut.
    Rounds,
    /// An edge out of a chance node does not count as a ply.
    ChanceNotAPly,
    /// No depth limit at all: the search goes down to the terminals.
    Ignored,
    /// A depth limit of 0 read as no limit (`if depth and ply == depth`);
    /// any other limit kept.
    ZeroIsNone,
}

/// How the value at the depth cut is taken from `evaluate`, which gives it
/// in MAX's view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EvalSlip {
    /// As it is.
    #[default]
    None,
    /// Negated where MIN is to move (taken as if it were the mover's view).
    MoverView,
    /// Negated everywhere (taken for the other side).
    Negated,
    /// Negated wherever MAX is not to move, chance nodes included (`eval if
    /// player(node) == "max" else -eval`).
    NotMaxView,
}

/// How the children are ordered under move ordering (docs/format.md 8.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OrderingSlip {
    /// By static value: greatest first at a max node, least first at a min
    /// node, ties in the tree's order.
    #[default]
    None,
    /// Least first at every node (right at a min node only).
    AscendingEverywhere,
    /// Greatest first at every node (right at a max node only).
    DescendingEverywhere,
    /// Only the root's children are sorted; below it the tree's order.
    RootOnly,
    /// Sorted by (value, action) pairs: ties by action, greatest action
    /// first at a max node (a reverse sort), least first at a min node.
    TupleTies,
    /// Sorted by (value, action) pairs with ties by action, least first at
    /// every node (the value negated at a max node, the action not).
    TupleTiesAscending,
    /// Searched sorted, but the action returned is the one at the best
    /// child's position in the unsorted list.
    ActionFromUnsorted,
}

/// Who moves at even plies when turns are alternated by ply.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Alternation {
    /// MAX, whatever the root.
    #[default]
    MaxAtEven,
    /// The root's player (a flag set from the root and flipped at every
    /// level); a chance root counts as MAX.
    RootAtEven,
    /// The root's player, a chance root counting as MIN (`root_is_max =
    /// player(root) == "max"`).
    RootAtEvenChanceAsMin,
}

/// The classic mistakes, each a switch; all off is the reference.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Slips {
    /// Children searched last to first.
    pub reverse_children: bool,
    /// With `reverse_children`: at max and min nodes only (a stack in
    /// `max_value` and `min_value`, a loop in order at chance nodes).
    pub reverse_skips_chance: bool,
    /// Every child entered (asked about) before the first is searched.
    pub eager_children: bool,
    /// Only at nodes of this kind (a check written into `max_value` alone,
    /// say); `None`: at every node.
    pub eager_only_at: Option<NodeKind>,
    /// At max and min nodes every child is entered first, then the
    /// terminal children are searched before the others (a stable sort).
    pub terminals_first: bool,
    /// Ties at the root go to the last best child.
    pub last_best_at_root: bool,
    /// Ties at the root go to the greatest action at a max root, the least
    /// at a min root (`max` / `min` over `(value, action)` pairs).
    pub ties_by_action: bool,
    /// Alpha-beta's window.
    pub window: WindowSlip,
    /// The window slip only at nodes of this kind (`max_value` written
    /// wrong, `min_value` right, say); `None`: at every node.
    pub window_only_at: Option<NodeKind>,
    /// Under alpha-beta, chance nodes' children get the chance node's
    /// window instead of (-inf, +inf).
    pub chance_gets_window: bool,
    /// How chance nodes are valued.
    pub chance: ChanceSlip,
    /// How the depth limit counts.
    pub depth: DepthSlip,
    /// Whose turn it is by ply (MAX at even plies, MIN at odd), not by node.
    pub strict_alternation: bool,
    /// With `strict_alternation`: who moves at even plies.
    pub alternation: Alternation,
    /// MIN nodes averaged as chance nodes (ghosts taken for random movers).
    pub min_as_chance: bool,
    /// Whose turn it is by ply in a cycle of this many agents, not by node:
    /// MAX at multiples of it, a ghost (MIN, or a uniform chance node under
    /// expectimax) elsewhere. A CS188 agents loop that skips the last ghost
    /// cycles through one agent too few.
    pub turn_cycle: Option<u32>,
    /// The root is searched as MAX even when it is a MIN node.
    pub root_as_max: bool,
    /// A chance root returns the action of its best child.
    pub action_at_chance_root: bool,
    /// The search runs with depth 1, 2, ... before the real one, and the
    /// first entries of all of them make the visited order. The shallower
    /// searches value the nodes at their cut 0: the grader evaluates only
    /// at the test's own depth.
    pub iterative_deepening: bool,
    /// The root is searched by a loop of its own, written right: the
    /// window, turn and children slips apply below it only (many students
    /// write the root's loop apart from `max_value` / `min_value`).
    pub spare_root: bool,
    /// Under move ordering (docs/format.md 8.1), the children are searched
    /// in the tree's order all the same.
    pub ignores_move_ordering: bool,
    /// A mistake of the searches of docs/format.md section 8.
    pub beyond: BeyondSlip,
    /// How the evaluation at the depth cut is read.
    pub eval: EvalSlip,
    /// How the children are sorted under move ordering.
    pub ordering: OrderingSlip,
    /// Under forward pruning (docs/format.md 8.5), a max or min node at
    /// the depth cut is cut forward too: the student enters its children
    /// to read their values (the grader serves no static values there),
    /// keeps the N best and takes the best of them instead of the node's
    /// own evaluation. Reproducible where those children are terminals
    /// (the grader evaluates no node below the cut).
    pub forward_below_cut: bool,
    /// Max nodes prune by this convention (`true`: on equality) whatever
    /// the test says; `None`: the test's.
    pub max_convention: Option<bool>,
    /// Min nodes prune by this convention whatever the test says; `None`:
    /// the test's.
    pub min_convention: Option<bool>,
}

/// The mistakes of iterative deepening, max^n and MCTS (docs/format.md 8.2
/// to 8.4), one at a time. Their searches honour them (`engine::search_with_slip`);
/// `None` is the reference.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BeyondSlip {
    /// No mistake.
    #[default]
    None,
    /// Iterative deepening: every iteration takes the root's children in the
    /// tree's order, not the previous choice first.
    NoPreviousFirst,
    /// Iterative deepening: the answer of the iteration cut short, as far
    /// as it got (its root's best child so far, once one was searched).
    KeepsCutShortAnswer,
    /// Iterative deepening: every depth up to the deepest, even after an
    /// iteration saw the whole tree.
    NoEarlyStop,
    /// Iterative deepening: max nodes prune by the other convention than
    /// the test's (`v >= beta` where it prunes only on `v > beta`, or the
    /// other way round); min nodes by the right one.
    ConventionInvertedAtMax,
    /// Iterative deepening: min nodes prune by the other convention than
    /// the test's; max nodes by the right one.
    ConventionInvertedAtMin,
    /// Max^n: every node compares player 1's component.
    FirstComponent,
    /// Max^n: every node compares the component of the root's player.
    RootComponent,
    /// Max^n: player i compares component i + 1 (`vector[player]`); a
    /// node of player N makes it crash.
    ComponentAfterMover,
    /// Max^n: player i compares component i - 1 (`vector[player - 2]`,
    /// which reads player N's for player 1, as Python's indexing wraps).
    ComponentBeforeMover,
    /// Max^n: player i compares component i + 1, and player N player 1's
    /// (`vector[player % N]`).
    ComponentAfterMoverWrapping,
    /// Max^n: player i compares component i + 1, and player N its own
    /// (`vector[min(player, N - 1)]`).
    ComponentAfterMoverClamped,
    /// Max^n: the player to move taken from the ply, player 1 at ply 0,
    /// player 2 at ply 1, ... (`ply % N`), whoever the tree says moves.
    MoverByPly,
    /// Max^n: the player to move taken from the ply, counting on from the
    /// root's player (`(root's player - 1 + ply) % N`).
    MoverByPlyFromRoot,
    /// Max^n: every node keeps the last of its equal best children (`>=`).
    LastOfEqual,
    /// Max^n: chance nodes average their children, each weighted 1/n.
    ChanceUniform,
    /// Max^n: chance nodes choose a child as player 1's nodes do.
    ChanceAsPlayerOne,
    /// MCTS: q = W/N at min nodes too.
    UcbSignNotFlipped,
    /// MCTS: the logarithm of the child's N instead of the node's.
    LnOfChildCount,
    /// MCTS: the logarithm of the root's N instead of the node's.
    LnOfRootCount,
    /// MCTS: no exploration term (c taken as 0).
    NoExploration,
    /// MCTS: an untried child picked with a draw, not the first one.
    RandomExpansion,
    /// MCTS: rewards backed up in MIN's view (negated) while q is taken as
    /// if W were MAX's.
    RewardsNegated,
    /// MCTS: rewards backed up negated when the root is a min node (taken
    /// as the reward of the player to move at the root).
    RewardsNegatedAtMinRoot,
    /// MCTS: each node's W kept in the view of the player who moved into
    /// it (negated below a min node) and q taken as W/N everywhere: the
    /// same search, but a min root's children report W negated.
    WInMoversView,
    /// MCTS: the final action by the best W/N instead of the greatest N.
    FinalByValue,
    /// MCTS: the final action by the greatest W/N, in MAX's view even at a
    /// min root.
    FinalByValueNaive,
    /// MCTS: a rollout at a max or min node with a single child takes it
    /// without a draw.
    RolloutNoDrawAtSingleChild,
    /// MCTS: a rollout takes child number `round(r * (n - 1))` (Python's
    /// `round`, halves to even).
    RolloutRounded,
    /// MCTS: a rollout takes child number `floor(r * (n - 1))`, never the
    /// last (a draw taken as `randint`'s inclusive range).
    RolloutNeverLast,
}

/// A variant search's result, as a student's program would give it.
#[derive(Clone, Debug, PartialEq)]
pub struct VariantOutcome {
    /// The root's value.
    pub value: f64,
    /// The chosen root child.
    pub action: Option<NodeIndex>,
    /// First entries, in order.
    pub visited: Vec<NodeIndex>,
    /// What a search of docs/format.md section 8 finds besides (a max^n
    /// vector, whose first component is `value`; iterative deepening's
    /// iterations; MCTS's root counts and draws).
    pub extra: SearchExtra,
}

impl VariantOutcome {
    /// A max^n search's root vector.
    pub fn vector(&self) -> Option<&[f64]> {
        match &self.extra {
            SearchExtra::Vector(vector) => Some(vector),
            _ => None,
        }
    }
}

/// Why a variant cannot reproduce a trace on this tree: a student making
/// the mistake would have crashed (an `eval` it needs is missing), or the
/// tree is too deep for the recursion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unreproducible;

/// On a game's tree (never made whole), a variant that enters more nodes
/// than this is given up: a student making that mistake would not finish
/// either, and the diagnosis stays fast.
pub const MOST_GAME_ENTRIES: usize = 200_000;

/// Runs the search of `settings` with the mistakes in `slips`.
pub fn search<T: GameTree + ?Sized>(
    tree: &T,
    settings: &SearchSettings,
    slips: Slips,
) -> Result<VariantOutcome, Unreproducible> {
    if !settings.algorithm.is_classic() {
        let outcome = crate::engine::search_with_slip(tree, settings, slips.beyond).map_err(|_| Unreproducible)?;
        return Ok(VariantOutcome {
            value: outcome.value,
            action: outcome.action,
            visited: outcome.visited,
            extra: outcome.extra,
        });
    }
    let height = GameTree::height(tree).unwrap_or(MAX_HEIGHT);
    if height > MAX_HEIGHT {
        return Err(Unreproducible);
    }
    let budget = if tree.size().is_some() { usize::MAX } else { MOST_GAME_ENTRIES };
    let entered = vec![false; tree.made()];
    let mut run = Run { tree, settings, slips, entered, visited: Vec::new(), limit: None, shallow: false, budget };
    if slips.iterative_deepening {
        if tree.size().is_none() && settings.depth.is_none() {
            return Err(Unreproducible);
        }
        let last = settings.depth.unwrap_or(height);
        run.shallow = true;
        for limit in 1..last {
            run.limit = Some(limit);
            run.root()?;
        }
        run.shallow = false;
    }
    run.limit = match slips.depth {
        DepthSlip::Ignored => None,
        DepthSlip::ZeroIsNone => settings.depth.filter(|&depth| depth > 0),
        _ => settings.depth,
    };
    let (value, action) = run.root()?;
    Ok(VariantOutcome { value, action, visited: run.visited, extra: SearchExtra::None })
}

struct Run<'t, T: GameTree + ?Sized> {
    tree: &'t T,
    settings: &'t SearchSettings,
    slips: Slips,
    entered: Vec<bool>,
    visited: Vec<NodeIndex>,
    /// The depth limit of the search under way.
    limit: Option<u32>,
    /// The search under way is one of iterative deepening's shallower ones.
    shallow: bool,
    /// Entries allowed before the variant is given up.
    budget: usize,
}

/// Whose turn it is, as the student's code decides it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Turn {
    Max,
    Min,
    Chance,
}

impl<T: GameTree + ?Sized> Run<'_, T> {
    fn pruning(&self) -> bool {
        self.settings.algorithm.window_per_node()
    }

    fn enter(&mut self, node: NodeIndex) {
        if self.entered.len() <= node.get() {
            // A game's tree grows as the variant goes.
            self.entered.resize(self.tree.made().max(node.get() + 1), false);
        }
        if !self.entered[node.get()] {
            self.entered[node.get()] = true;
            self.visited.push(node);
        }
    }

    fn root(&mut self) -> Result<(f64, Option<NodeIndex>), Unreproducible> {
        let root = NodeIndex(0);
        self.node(root, 0, f64::NEG_INFINITY, f64::INFINITY, true)
    }

    /// The depth counter of `child`, given its parent's.
    fn count(&self, parent: NodeIndex, plies: u32, child: NodeIndex) -> u32 {
        match self.slips.depth {
            DepthSlip::None | DepthSlip::Ignored | DepthSlip::ZeroIsNone => plies + 1,
            DepthSlip::Rounds => plies + u32::from(self.tree.kind(child) == NodeKind::Max),
            DepthSlip::ChanceNotAPly => plies + u32::from(self.tree.kind(parent) != NodeKind::Chance),
        }
    }

    fn cut(&self, node: NodeIndex, plies: u32) -> bool {
        let at_limit = self.limit == Some(plies);
        match self.slips.depth {
            DepthSlip::Rounds => at_limit && self.tree.kind(node) == NodeKind::Max,
            _ => at_limit,
        }
    }

    fn turn(&self, node: NodeIndex, at_root: bool) -> Turn {
        let kind = self.tree.kind(node);
        if let Some(cycle) = self.slips.turn_cycle.filter(|&cycle| cycle > 0) {
            return match self.tree.ply(node) % cycle {
                0 => Turn::Max,
                _ if self.settings.algorithm.models_chance() => Turn::Chance,
                _ => Turn::Min,
            };
        }
        if kind == NodeKind::Chance {
            return match self.chance_slip(at_root) {
                ChanceSlip::AsMaxNode => Turn::Max,
                ChanceSlip::AsMinNode => Turn::Min,
                _ => Turn::Chance,
            };
        }
        if self.slips.strict_alternation && !(at_root && self.slips.spare_root) {
            let root = self.tree.kind(NodeIndex(0));
            let even_is_max = match self.slips.alternation {
                Alternation::MaxAtEven => true,
                Alternation::RootAtEven => root != NodeKind::Min,
                Alternation::RootAtEvenChanceAsMin => root == NodeKind::Max,
            };
            return if self.tree.ply(node).is_multiple_of(2) == even_is_max { Turn::Max } else { Turn::Min };
        }
        if kind == NodeKind::Min && self.slips.min_as_chance && !(at_root && self.slips.spare_root) {
            return Turn::Chance;
        }
        if at_root && self.slips.root_as_max {
            return Turn::Max;
        }
        if kind == NodeKind::Max { Turn::Max } else { Turn::Min }
    }

    /// The children in the order the student searches them, entered ahead
    /// of the search when the student looks at them all first.
    ///
    /// `turn` is whose turn the student's code takes it to be, which is
    /// also the way it sorts the children under move ordering.
    fn children(&mut self, node: NodeIndex, at_root: bool, turn: Turn) -> Vec<NodeIndex> {
        let mut children: Vec<NodeIndex> = self.tree.children(node).collect();
        let kind = self.tree.kind(node);
        let sort_as = match turn {
            Turn::Max => NodeKind::Max,
            Turn::Min => NodeKind::Min,
            Turn::Chance => kind,
        };
        let above_cut = self.limit.is_none_or(|limit| self.tree.ply(node) < limit);
        let sorted_here = self.slips.ordering != OrderingSlip::RootOnly || at_root;
        if self.settings.orders_by_static_value()
            && !self.slips.ignores_move_ordering
            && matches!(kind, NodeKind::Max | NodeKind::Min)
            && above_cut
            && sorted_here
            && let Some(order) = self.ordered(node, sort_as)
        {
            children = order;
            if let Some(n) = self.settings.forward_pruning {
                // Forward pruning (8.5): the N first of the student's order.
                children.truncate(n as usize);
            }
        }
        let spared = at_root && self.slips.spare_root;
        let reversed_here = !(self.slips.reverse_skips_chance && kind == NodeKind::Chance);
        if self.slips.reverse_children && !spared && reversed_here {
            children.reverse();
        }
        let kind_matches = self.slips.eager_only_at.is_none_or(|kind| kind == self.tree.kind(node));
        if self.slips.eager_children && !spared && kind_matches {
            for &child in &children {
                self.enter(child);
            }
        }
        if self.slips.terminals_first && !spared && matches!(kind, NodeKind::Max | NodeKind::Min) {
            for &child in &children {
                self.enter(child);
            }
            children.sort_by_key(|&child| self.tree.kind(child) != NodeKind::Terminal);
        }
        children
    }

    /// A max or min node's children sorted as the student sorts them
    /// (`None`: a child has no static value, and the student's sort fails).
    fn ordered(&self, node: NodeIndex, kind: NodeKind) -> Option<Vec<NodeIndex>> {
        let tree = self.tree;
        let by_kind = |kind| crate::engine::ordered_children(tree, node, kind).ok();
        let sort_kind = match self.slips.ordering {
            OrderingSlip::AscendingEverywhere => NodeKind::Min,
            OrderingSlip::DescendingEverywhere => NodeKind::Max,
            OrderingSlip::TupleTies | OrderingSlip::TupleTiesAscending => return self.ordered_by_pairs(node, kind),
            _ => kind,
        };
        Some(by_kind(sort_kind)?.into_iter().map(NodeIndex).collect())
    }

    /// The children sorted by (static value, action) pairs, as a sort with
    /// a tuple key does: equal values ordered by their actions.
    fn ordered_by_pairs(&self, node: NodeIndex, kind: NodeKind) -> Option<Vec<NodeIndex>> {
        let tree = self.tree;
        let mut keyed = Vec::new();
        for child in tree.children(node) {
            keyed.push((crate::engine::static_value(tree, child)?, tree.action(child).into_owned(), child));
        }
        let by_value = |a: f64, b: f64| a.partial_cmp(&b).unwrap_or(std::cmp::Ordering::Equal);
        let max = kind == NodeKind::Max;
        match self.slips.ordering {
            // sorted(key=(v, a), reverse=is_max): at a max node both reversed.
            OrderingSlip::TupleTies if max => keyed.sort_by(|a, b| by_value(b.0, a.0).then_with(|| b.1.cmp(&a.1))),
            // sorted(key=(-v, a)) at a max node: the value reversed, the action not.
            OrderingSlip::TupleTiesAscending if max => {
                keyed.sort_by(|a, b| by_value(b.0, a.0).then_with(|| a.1.cmp(&b.1)));
            }
            _ => keyed.sort_by(|a, b| by_value(a.0, b.0).then_with(|| a.1.cmp(&b.1))),
        }
        Some(keyed.into_iter().map(|(_, _, child)| child).collect())
    }

    /// A node's value and, at a max or min node, its chosen child.
    fn node(
        &mut self,
        node: NodeIndex,
        plies: u32,
        alpha: f64,
        beta: f64,
        at_root: bool,
    ) -> Result<(f64, Option<NodeIndex>), Unreproducible> {
        self.enter(node);
        let tree = self.tree;
        if self.visited.len() > self.budget || tree.ply(node) > MAX_HEIGHT || tree.fault().is_some() {
            return Err(Unreproducible);
        }
        if tree.kind(node) == NodeKind::Terminal {
            return Ok((tree.utility(node), None));
        }
        if self.cut(node, plies) {
            if self.shallow {
                return Ok((0.0, None));
            }
            if self.slips.forward_below_cut
                && self.settings.forward_pruning.is_some()
                && matches!(tree.kind(node), NodeKind::Max | NodeKind::Min)
            {
                return self.forward_cut_at_depth_cut(node);
            }
            let eval = tree.eval(node).ok_or(Unreproducible)?;
            let negated = match self.slips.eval {
                EvalSlip::None => false,
                EvalSlip::MoverView => tree.kind(node) == NodeKind::Min,
                EvalSlip::Negated => true,
                EvalSlip::NotMaxView => tree.kind(node) != NodeKind::Max,
            };
            return Ok((if negated { -eval } else { eval }, None));
        }
        match self.turn(node, at_root) {
            Turn::Chance => self.chance(node, plies, alpha, beta, at_root),
            turn => self.max_or_min(node, plies, alpha, beta, turn == Turn::Max, at_root),
        }
    }

    /// A node at the depth cut cut forward as if above it (the slip
    /// `forward_below_cut`): every child entered in order to read its
    /// utility, and the best of the N best taken (which is the best of all).
    fn forward_cut_at_depth_cut(&mut self, node: NodeIndex) -> Result<(f64, Option<NodeIndex>), Unreproducible> {
        let maximising = self.tree.kind(node) == NodeKind::Max;
        let mut best: Option<f64> = None;
        for child in self.tree.children(node) {
            self.enter(child);
            if self.tree.kind(child) != NodeKind::Terminal {
                return Err(Unreproducible);
            }
            let value = self.tree.utility(child);
            if best.is_none_or(|best| if maximising { value > best } else { value < best }) {
                best = Some(value);
            }
        }
        best.map(|value| (value, None)).ok_or(Unreproducible)
    }

    fn max_or_min(
        &mut self,
        node: NodeIndex,
        plies: u32,
        mut alpha: f64,
        mut beta: f64,
        maximising: bool,
        at_root: bool,
    ) -> Result<(f64, Option<NodeIndex>), Unreproducible> {
        let kind_matches = self.slips.window_only_at.is_none_or(|kind| kind == self.tree.kind(node));
        let window =
            if (at_root && self.slips.spare_root) || !kind_matches { WindowSlip::None } else { self.slips.window };
        if window == WindowSlip::SwappedParameters {
            (alpha, beta) = (beta, alpha);
        }
        let (given_alpha, given_beta) = (alpha, beta);
        let mut best = if maximising { f64::NEG_INFINITY } else { f64::INFINITY };
        let mut best_child: Option<NodeIndex> = None;
        let later_ties_win = at_root && self.slips.last_best_at_root;
        let ties_by_action = at_root && self.slips.ties_by_action;
        let turn = if maximising { Turn::Max } else { Turn::Min };
        let children = self.children(node, at_root, turn);
        for &child in &children {
            let (child_alpha, child_beta) = match window {
                WindowSlip::RootNotUpdated if at_root => (given_alpha, given_beta),
                WindowSlip::SwappedArguments => (beta, alpha),
                _ => (alpha, beta),
            };
            let plies_below = self.count(node, plies, child);
            let (value, _) = self.node(child, plies_below, child_alpha, child_beta, false)?;
            let better = if maximising { value > best } else { value < best };
            let wins_tie = value == best
                && (later_ties_win
                    || (ties_by_action && best_child.is_some_and(|b| self.action_wins(child, b, maximising))));
            if better || wins_tie {
                best = value;
                best_child = Some(child);
            }
            if !self.pruning() {
                continue;
            }
            if maximising {
                if self.exceeds_at_max(best, beta) {
                    break;
                }
                match window {
                    WindowSlip::SwappedUpdates => beta = beta.min(best),
                    WindowSlip::SwappedUpdatesWidening => beta = beta.max(best),
                    WindowSlip::NeverTightened => {}
                    _ => alpha = alpha.max(best),
                }
            } else {
                if self.exceeds_at_min(alpha, best) {
                    break;
                }
                match window {
                    WindowSlip::SwappedUpdates => alpha = alpha.max(best),
                    WindowSlip::SwappedUpdatesWidening => alpha = alpha.min(best),
                    WindowSlip::NeverTightened => {}
                    _ => beta = beta.min(best),
                }
            }
        }
        if at_root && self.slips.ordering == OrderingSlip::ActionFromUnsorted {
            // The best child's position in the searched order, read in the game's.
            let position = best_child.and_then(|best| children.iter().position(|&child| child == best));
            best_child = position.and_then(|position| self.tree.children(node).nth(position));
        }
        Ok((best, best_child))
    }

    /// How a chance node is valued: right at a root the student's own loop
    /// searches.
    fn chance_slip(&self, at_root: bool) -> ChanceSlip {
        if at_root && self.slips.spare_root { ChanceSlip::None } else { self.slips.chance }
    }

    /// Whether `child`'s action beats `best`'s in a comparison of
    /// `(value, action)` pairs: greater at a max node, less at a min node.
    fn action_wins(&self, child: NodeIndex, best: NodeIndex, maximising: bool) -> bool {
        let (child, best) = (self.tree.action(child), self.tree.action(best));
        if maximising { child > best } else { child < best }
    }

    /// Whether a max node whose best is `high` prunes against `low`
    /// (beta), by the convention the student's max nodes use.
    fn exceeds_at_max(&self, high: f64, low: f64) -> bool {
        exceeds(self.slips.max_convention.unwrap_or(self.settings.prune_on_equal), high, low)
    }

    /// Whether a min node whose best is `low` prunes against `high` (alpha).
    fn exceeds_at_min(&self, high: f64, low: f64) -> bool {
        exceeds(self.slips.min_convention.unwrap_or(self.settings.prune_on_equal), high, low)
    }

    fn chance(
        &mut self,
        node: NodeIndex,
        plies: u32,
        alpha: f64,
        beta: f64,
        at_root: bool,
    ) -> Result<(f64, Option<NodeIndex>), Unreproducible> {
        let (child_alpha, child_beta) = if self.slips.chance_gets_window && self.pruning() {
            (alpha, beta)
        } else {
            (f64::NEG_INFINITY, f64::INFINITY)
        };
        let children = self.children(node, at_root, Turn::Chance);
        let count = children.len() as f64;
        let mut expectation = 0.0;
        let (mut highest, mut lowest) = (f64::NEG_INFINITY, f64::INFINITY);
        let mut best_child = None;
        // A MIN node averaged as if it were a chance node has no probabilities.
        let slip = self.chance_slip(at_root);
        let uniform = slip == ChanceSlip::Uniform || self.tree.kind(node) != NodeKind::Chance;
        for child in children {
            let plies_below = self.count(node, plies, child);
            let (value, _) = self.node(child, plies_below, child_alpha, child_beta, false)?;
            let probability = match slip {
                _ if uniform => 1.0 / count,
                ChanceSlip::Summed => 1.0,
                _ => self.tree.probability(child),
            };
            expectation += probability * value;
            if value > highest {
                highest = value;
                best_child = Some(child);
            }
            lowest = lowest.min(value);
        }
        let value = match slip {
            _ if self.tree.kind(node) != NodeKind::Chance => expectation,
            ChanceSlip::None
            | ChanceSlip::Uniform
            | ChanceSlip::Summed
            | ChanceSlip::AsMaxNode
            | ChanceSlip::AsMinNode => expectation,
            ChanceSlip::AsMax => highest,
            ChanceSlip::AsMin => lowest,
            ChanceSlip::DividedByCount => expectation / count,
        };
        let action = best_child.filter(|_| at_root && self.slips.action_at_chance_root);
        Ok((value, action))
    }
}

fn exceeds(on_equal: bool, high: f64, low: f64) -> bool {
    if on_equal { high >= low } else { high > low }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Algorithm;
    use crate::generator::{GenOptions, generate};

    /// Trees of the shapes the generator draws: two and three agents, chance
    /// levels, MIN roots, depth cuts, ties.
    use crate::tree::Tree;

    fn trees() -> Vec<Tree> {
        use NodeKind::{Chance, Max, Min};
        let shapes = [
            (vec![Max, Min], None),
            (vec![Max, Min, Min], Some(3)),
            (vec![Max, Chance, Min], None),
            (vec![Min, Max], Some(2)),
            (vec![Chance, Max, Min], Some(2)),
        ];
        let mut trees = Vec::new();
        for (kinds, cut) in shapes {
            let options = GenOptions { depth: 4, kinds, cut, ties: 0.3, ..GenOptions::default() };
            for index in 0..40 {
                trees.push(generate(&options, index, &format!("t{index}")));
            }
        }
        trees
    }

    /// Asserts that the variant search without slips visits, values and
    /// chooses exactly as the engine; `false` when the engine refuses the
    /// settings (a static value missing), so there was nothing to compare.
    fn reproduces_the_reference(tree: &Tree, settings: &SearchSettings) -> bool {
        let Ok(reference) = crate::engine::search(tree, settings) else { return false };
        let variant = search(tree, settings, Slips::default()).expect("reproducible");
        assert_eq!(variant.visited, reference.visited, "{} {settings:?}", tree.name());
        assert_eq!(variant.value.to_bits(), reference.value.to_bits(), "{} {settings:?}", tree.name());
        assert_eq!(variant.action, reference.action, "{} {settings:?}", tree.name());
        true
    }

    #[test]
    fn with_no_slips_it_is_the_reference_under_forward_pruning_too() {
        let mut compared = 0;
        for tree in trees() {
            for algorithm in Algorithm::CLASSIC {
                for n in [1, 2] {
                    let settings = SearchSettings {
                        forward_pruning: Some(n),
                        ..SearchSettings::resolve(algorithm, tree.search_defaults(), None, None)
                    };
                    if reproduces_the_reference(&tree, &settings) {
                        compared += 1;
                    }
                }
            }
        }
        assert!(compared > 100, "only {compared} trees had every static value");
    }

    #[test]
    fn with_no_slips_it_is_the_reference_node_for_node() {
        for tree in trees() {
            for algorithm in Algorithm::CLASSIC {
                for prune_on_equal in [true, false] {
                    let settings = SearchSettings {
                        prune_on_equal,
                        ..SearchSettings::resolve(algorithm, tree.search_defaults(), None, None)
                    };
                    reproduces_the_reference(&tree, &settings);
                }
            }
        }
    }
}
