//! Monte Carlo tree search (docs/format.md 8.4): UCT whose every random
//! number is a draw of one SplitMix64 stream, so that the search is the
//! same on every machine and can be checked step by step.
//!
//! Each iteration selects from the root (expanding the first child never
//! tried, picking chance children by a draw), rolls out at random from
//! where selection stopped, and adds the reward to N and W of every node of
//! the selection's path. Rollout nodes keep nothing.

use super::fragile::FragileComparison;
use super::random::{SplitMix64, chance_pick, uniform_pick};
use super::variant::BeyondSlip;
use super::{ChildCount, Keep, MctsSummary, SearchError, SearchExtra, SearchOutcome, SearchSettings, Stop, stop_error};
use crate::tree::{GameTree, NodeIndex, NodeKind};

/// Selections whose best UCB and another's differ by less than this, relatively, are fragile.
const FRAGILE_RELATIVE_GAP: f64 = 1e-9;

/// The search, and with [`Keep::Fragility`] its first fragile selection;
/// `slip` makes one of a student's mistakes.
pub(super) fn search<T: GameTree + ?Sized>(
    tree: &T,
    settings: &SearchSettings,
    keep: Keep,
    slip: BeyondSlip,
) -> Result<(SearchOutcome, Option<FragileComparison>), SearchError> {
    let iterations = settings.iterations.ok_or(SearchError::MctsWithoutIterations)?;
    let mut search = Mcts::new(tree, settings, keep);
    search.slip = slip;
    for iteration in 1..=iterations {
        search.iterate(iteration).map_err(|stop| stop_error(tree, stop, settings.depth))?;
    }
    Ok(search.finish())
}

/// The UCB values a selection compared at one node (for reports that
/// explain where a student's search went another way).
#[derive(Clone, Debug, PartialEq)]
pub struct Selection {
    /// The iteration (from 1).
    pub iteration: u32,
    /// The max or min node choosing among its children.
    pub node: NodeIndex,
    /// Each child with its N, W and UCB value, in the tree's order.
    pub children: Vec<(NodeIndex, u64, f64, f64)>,
    /// The child chosen (the first greatest UCB).
    pub chosen: NodeIndex,
}

/// Where each iteration of the search starts in its visited order, and
/// the UCB selections of one iteration; for reports.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MctsTrace {
    /// For each iteration (from 1), how many nodes were entered before it.
    pub entered_before: Vec<usize>,
    /// The selections of the iteration asked for.
    pub selections: Vec<Selection>,
}

/// Runs the search again and returns where its iterations start in the
/// visited order, and the UCB selections of iteration `iteration`.
pub fn trace<T: GameTree + ?Sized>(
    tree: &T,
    settings: &SearchSettings,
    iteration: u32,
) -> Result<MctsTrace, SearchError> {
    super::check(tree, settings)?;
    let iterations = settings.iterations.ok_or(SearchError::MctsWithoutIterations)?;
    let mut search = Mcts::new(tree, settings, Keep::Values);
    search.watched = Some(iteration);
    let mut trace = MctsTrace::default();
    for number in 1..=iterations {
        trace.entered_before.push(search.visited.len());
        search.iterate(number).map_err(|stop| stop_error(tree, stop, settings.depth))?;
    }
    trace.selections = search.selections;
    Ok(trace)
}

struct Mcts<'t, T: GameTree + ?Sized> {
    tree: &'t T,
    depth: Option<u32>,
    exploration: f64,
    random: SplitMix64,
    draws: u64,
    /// N and W per node index (growing with a game's tree).
    counts: Vec<(u64, f64)>,
    entered: Vec<bool>,
    visited: Vec<NodeIndex>,
    keep: Keep,
    fragile: Option<FragileComparison>,
    /// The iteration whose selections are recorded, if any.
    watched: Option<u32>,
    selections: Vec<Selection>,
    slip: BeyondSlip,
}

impl<'t, T: GameTree + ?Sized> Mcts<'t, T> {
    fn new(tree: &'t T, settings: &SearchSettings, keep: Keep) -> Mcts<'t, T> {
        Mcts {
            tree,
            depth: settings.depth,
            exploration: settings.exploration,
            random: SplitMix64::new(settings.seed),
            draws: 0,
            counts: Vec::new(),
            entered: Vec::new(),
            visited: Vec::new(),
            keep,
            fragile: None,
            watched: None,
            selections: Vec::new(),
            slip: BeyondSlip::None,
        }
    }

    fn draw(&mut self) -> f64 {
        self.draws += 1;
        self.random.draw()
    }

    /// Asks about a node: its first entry is recorded (docs/format.md 8.4).
    fn touch(&mut self, node: NodeIndex) {
        let at = node.get();
        if self.entered.len() <= at {
            self.entered.resize(self.tree.made().max(at + 1), false);
        }
        if !self.entered[at] {
            self.entered[at] = true;
            self.visited.push(node);
        }
    }

    fn counts(&self, node: NodeIndex) -> (u64, f64) {
        self.counts.get(node.get()).copied().unwrap_or((0, 0.0))
    }

    /// Whether the search stops at `node`: a terminal, or at the depth cut.
    fn is_leaf(&self, node: NodeIndex) -> bool {
        self.tree.kind(node) == NodeKind::Terminal || self.depth == Some(self.tree.ply(node))
    }

    /// A node's children, or the stop that the tree could not make them.
    fn children(&self, node: NodeIndex) -> Result<std::ops::Range<u32>, Stop> {
        let children = self.tree.child_range(node);
        match self.tree.fault() {
            Some(_) => Err(Stop::Unfolding(node.0)),
            None => Ok(children),
        }
    }

    /// A chance node's child for the next draw.
    fn pick_by_chance(&mut self, children: std::ops::Range<u32>) -> NodeIndex {
        let r = self.draw();
        let tree = self.tree;
        let j = chance_pick(r, children.clone().map(|child| tree.probability(NodeIndex(child))));
        NodeIndex(children.start + j)
    }

    /// One iteration: selection and expansion, rollout, backpropagation.
    fn iterate(&mut self, iteration: u32) -> Result<(), Stop> {
        let path = self.select(iteration)?;
        let reward = self.roll_out(*path.last().expect("the path holds the root"))?;
        let made = self.tree.made();
        if self.counts.len() < made {
            self.counts.resize(made, (0, 0.0));
        }
        // A student backing rewards up from MIN's side adds them negated.
        let min_root = self.tree.kind(NodeIndex::ROOT) == NodeKind::Min;
        let view = match self.slip {
            BeyondSlip::RewardsNegated => -1.0,
            BeyondSlip::RewardsNegatedAtMinRoot if min_root => -1.0,
            _ => 1.0,
        };
        for node in path {
            let counts = &mut self.counts[node.get()];
            counts.0 += 1;
            counts.1 += view * reward;
        }
        Ok(())
    }

    /// Selection and expansion: the path from the root to where it stops.
    fn select(&mut self, iteration: u32) -> Result<Vec<NodeIndex>, Stop> {
        let mut node = NodeIndex::ROOT;
        self.touch(node);
        let mut path = vec![node];
        while !self.is_leaf(node) {
            let children = self.children(node)?;
            let next = match self.tree.kind(node) {
                NodeKind::Chance => {
                    let child = self.pick_by_chance(children);
                    self.touch(child);
                    path.push(child);
                    if self.counts(child).0 == 0 {
                        break;
                    }
                    child
                }
                kind => {
                    let untried: Vec<NodeIndex> =
                        children.clone().map(NodeIndex).filter(|&child| self.counts(child).0 == 0).collect();
                    if !untried.is_empty() {
                        let fresh = match self.slip {
                            BeyondSlip::RandomExpansion => {
                                let r = self.draw();
                                untried[uniform_pick(r, untried.len() as u32) as usize]
                            }
                            _ => untried[0],
                        };
                        self.touch(fresh);
                        path.push(fresh);
                        break;
                    }
                    let child = self.best_ucb(iteration, node, kind, children);
                    self.touch(child);
                    path.push(child);
                    child
                }
            };
            node = next;
        }
        Ok(path)
    }

    /// The child with the greatest UCB (the first on ties), every child tried.
    fn best_ucb(
        &mut self,
        iteration: u32,
        node: NodeIndex,
        kind: NodeKind,
        children: std::ops::Range<u32>,
    ) -> NodeIndex {
        let parent_n = match self.slip {
            BeyondSlip::LnOfRootCount => self.counts(NodeIndex::ROOT).0 as f64,
            _ => self.counts(node).0 as f64,
        };
        let sign = if kind == NodeKind::Max || self.slip == BeyondSlip::UcbSignNotFlipped { 1.0 } else { -1.0 };
        let c = if self.slip == BeyondSlip::NoExploration { 0.0 } else { self.exploration };
        let slip = self.slip;
        let scored: Vec<(NodeIndex, u64, f64, f64)> = children
            .map(NodeIndex)
            .map(|child| {
                let (n, w) = self.counts(child);
                let q = sign * (w / n as f64);
                let log_n = if slip == BeyondSlip::LnOfChildCount { (n as f64).ln() } else { parent_n.ln() };
                (child, n, w, q + c * (log_n / n as f64).sqrt())
            })
            .collect();
        let mut best = 0;
        for (index, scored_child) in scored.iter().enumerate().skip(1) {
            if scored_child.3 > scored[best].3 {
                best = index;
            }
        }
        if self.keep == Keep::Fragility && self.fragile.is_none() {
            self.fragile = fragile_selection(iteration, node, &scored, best);
        }
        if self.watched == Some(iteration) {
            let children = scored.iter().map(|&(child, n, w, ucb)| (child, n, w, ucb)).collect();
            self.selections.push(Selection { iteration, node, children, chosen: scored[best].0 });
        }
        scored[best].0
    }

    /// The rollout from `start`: random moves to a terminal or the depth cut; the reward.
    fn roll_out(&mut self, start: NodeIndex) -> Result<f64, Stop> {
        let mut node = start;
        loop {
            let tree = self.tree;
            if tree.kind(node) == NodeKind::Terminal {
                return Ok(tree.utility(node));
            }
            if self.depth == Some(tree.ply(node)) {
                return tree.eval(node).ok_or(Stop::MissingEval(node.0));
            }
            let children = self.children(node)?;
            node = match tree.kind(node) {
                NodeKind::Chance => self.pick_by_chance(children),
                _ => NodeIndex(children.start + self.rollout_pick(children.end - children.start)),
            };
            self.touch(node);
        }
    }

    /// The rollout's child number at a max or min node of `n` children:
    /// `floor(r * n)` for a draw r, or a student's other formula.
    fn rollout_pick(&mut self, n: u32) -> u32 {
        let last = f64::from(n.saturating_sub(1));
        match self.slip {
            BeyondSlip::RolloutNoDrawAtSingleChild if n == 1 => 0,
            BeyondSlip::RolloutRounded => (self.draw() * last).round_ties_even() as u32,
            BeyondSlip::RolloutNeverLast => (self.draw() * last) as u32,
            _ => uniform_pick(self.draw(), n),
        }
    }

    fn finish(self) -> (SearchOutcome, Option<FragileComparison>) {
        let tree = self.tree;
        let root = NodeIndex::ROOT;
        let (root_n, root_w) = self.counts(root);
        let listed = !self.is_leaf(root);
        let min_root = tree.kind(root) == NodeKind::Min;
        // W kept in the mover's view: a min root's children hold MIN's sums.
        let reported = if self.slip == BeyondSlip::WInMoversView && min_root { -1.0 } else { 1.0 };
        let children: Vec<ChildCount> = if listed {
            tree.children(root)
                .map(|child| {
                    let (n, w) = self.counts(child);
                    ChildCount { node: child, n, w: reported * w }
                })
                .collect()
        } else {
            Vec::new()
        };
        let chooses = listed && matches!(tree.kind(root), NodeKind::Max | NodeKind::Min);
        let sign = match self.slip {
            BeyondSlip::FinalByValue if min_root => -1.0,
            _ => 1.0,
        };
        // A student choosing by value ranks the tried children by q, untried ones last.
        let score = |child: &ChildCount| match self.slip {
            BeyondSlip::FinalByValue | BeyondSlip::FinalByValueNaive if child.n > 0 => sign * child.w / child.n as f64,
            BeyondSlip::FinalByValue | BeyondSlip::FinalByValueNaive => f64::NEG_INFINITY,
            _ => child.n as f64,
        };
        let mut action: Option<&ChildCount> = None;
        for child in children.iter().filter(|_| chooses) {
            if action.is_none_or(|best| score(child) > score(best)) {
                action = Some(child);
            }
        }
        let outcome = SearchOutcome {
            value: root_w / root_n as f64,
            action: action.map(|child| child.node),
            visited: self.visited,
            cutoffs: Vec::new(),
            extra: SearchExtra::Mcts(MctsSummary { children, draws: self.draws }),
        };
        (outcome, self.fragile)
    }
}

/// The selection's fragility (docs/format.md 8.4): the best UCB and
/// another differ by less than 1e-9 of the larger, or are equal while the
/// two children's N or W differ.
fn fragile_selection(
    iteration: u32,
    node: NodeIndex,
    scored: &[(NodeIndex, u64, f64, f64)],
    best: usize,
) -> Option<FragileComparison> {
    let (best_child, best_n, best_w, best_ucb) = scored[best];
    scored.iter().enumerate().filter(|&(index, _)| index != best).find_map(|(_, &(child, n, w, ucb))| {
        let fragile = if ucb == best_ucb {
            n != best_n || w.to_bits() != best_w.to_bits()
        } else {
            (best_ucb - ucb).abs() < FRAGILE_RELATIVE_GAP * best_ucb.abs().max(ucb.abs())
        };
        fragile.then_some(FragileComparison {
            node,
            comparison: "the UCB values of two children",
            values: (best_ucb, ucb),
            bounds: (0.0, 0.0),
            selection: Some((iteration, best_child, child)),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Algorithm;
    use crate::tree::fixtures::{aima, leaves};
    use crate::tree::{ChildSpec, NodeSpec, Tree, TreeBuilder};

    fn settings(iterations: u32) -> SearchSettings {
        SearchSettings { iterations: Some(iterations), ..SearchSettings::new(Algorithm::Mcts) }
    }

    fn run(tree: &Tree, settings: &SearchSettings) -> SearchOutcome {
        search(tree, settings, Keep::Values, BeyondSlip::None).unwrap().0
    }

    #[test]
    fn the_first_iterations_expand_the_root_children_in_order() {
        let tree = aima();
        let outcome = run(&tree, &settings(3));
        let summary = outcome.mcts().unwrap();
        let counts: Vec<u64> = summary.children.iter().map(|child| child.n).collect();
        assert_eq!(counts, [1, 1, 1]);
        // Each iteration: one child expanded, then one draw to roll out to a leaf.
        assert_eq!(summary.draws, 3);
        let visited = tree.ids_of(&outcome.visited);
        assert_eq!(visited[..2], ["A", "B"]);
        assert_eq!(visited.len(), 7, "A, then each child and the leaf its rollout reached: {visited:?}");
        // Seed 0's first draw is 0.883...: B's third leaf (8).
        assert_eq!(visited[2], "B.3");
        assert_eq!(summary.children[0].w, 8.0);
    }

    #[test]
    fn the_value_is_w_over_n_at_the_root_and_the_action_the_most_visited() {
        let tree = aima();
        let outcome = run(&tree, &settings(200));
        let summary = outcome.mcts().unwrap();
        let total: u64 = summary.children.iter().map(|child| child.n).sum();
        assert_eq!(total, 200);
        let w: f64 = summary.children.iter().map(|child| child.w).sum();
        assert_eq!(outcome.value, w / 200.0);
        let most = summary.children.iter().map(|child| child.n).max().unwrap();
        let first_most = summary.children.iter().find(|child| child.n == most).unwrap();
        assert_eq!(outcome.action, Some(first_most.node));
        assert_eq!(tree.id(first_most.node), "B", "B's minimum 3 is best: UCT settles on it");
    }

    #[test]
    fn a_terminal_root_has_no_action_and_its_utility_as_value() {
        let mut builder = TreeBuilder::new("leaf", "A");
        builder.add(NodeSpec::terminal("A", 4.0));
        let tree = builder.build().unwrap();
        let outcome = run(&tree, &settings(5));
        assert_eq!((outcome.value, outcome.action), (4.0, None));
        assert_eq!(outcome.mcts().unwrap(), &MctsSummary { children: Vec::new(), draws: 0 });
    }

    #[test]
    fn chance_nodes_are_picked_by_a_draw_in_selection_and_rollout() {
        let mut builder = TreeBuilder::new("chance", "A");
        builder.add(NodeSpec::internal("A", NodeKind::Chance, leaves(&[1.0, 2.0])));
        let tree = builder.build().unwrap();
        let outcome = run(&tree, &settings(3));
        // Draws 0.88, 0.43, 0.026: children 2, 1, 1 (uniform halves).
        let counts: Vec<(u64, f64)> = outcome.mcts().unwrap().children.iter().map(|c| (c.n, c.w)).collect();
        assert_eq!(counts, [(2, 2.0), (1, 2.0)]);
        assert_eq!(outcome.action, None, "a chance root has no action");
        assert_eq!(outcome.value, 4.0 / 3.0);
        assert_eq!(tree.ids_of(&outcome.visited), ["A", "A.2", "A.1"]);
    }

    #[test]
    fn equal_ucb_with_other_counts_is_a_fragile_selection() {
        let node = NodeIndex(0);
        let scored = [(NodeIndex(1), 2, 1.0, 0.5), (NodeIndex(2), 4, 2.0, 0.5)];
        assert!(fragile_selection(3, node, &scored, 0).is_some());
        let same = [(NodeIndex(1), 2, 1.0, 0.5), (NodeIndex(2), 2, 1.0, 0.5)];
        assert_eq!(fragile_selection(3, node, &same, 0), None, "identical children tie by order");
        let near = [(NodeIndex(1), 2, 1.0, 0.5), (NodeIndex(2), 3, 1.0, 0.5 - 1e-12)];
        assert!(fragile_selection(3, node, &near, 0).is_some());
        let apart = [(NodeIndex(1), 2, 1.0, 0.5), (NodeIndex(2), 3, 1.0, 0.4)];
        assert_eq!(fragile_selection(3, node, &apart, 0), None);
    }

    #[test]
    fn each_mistake_changes_the_search() {
        let options = crate::generator::GenOptions { depth: 4, branching: (2, 3), ..Default::default() };
        let trees: Vec<Tree> = (0..6).map(|index| crate::generator::generate(&options, index, "t")).collect();
        let slips = [
            BeyondSlip::UcbSignNotFlipped,
            BeyondSlip::LnOfChildCount,
            BeyondSlip::LnOfRootCount,
            BeyondSlip::NoExploration,
            BeyondSlip::RandomExpansion,
            BeyondSlip::RewardsNegated,
            BeyondSlip::RolloutRounded,
            BeyondSlip::RolloutNeverLast,
        ];
        for slip in slips {
            let changes = trees.iter().any(|tree| {
                let reference = run(tree, &settings(60));
                let outcome = search(tree, &settings(60), Keep::Values, slip).unwrap().0;
                outcome.visited != reference.visited || outcome.mcts() != reference.mcts()
            });
            assert!(changes, "{slip:?} leaves every search unchanged");
        }
    }

    #[test]
    fn choosing_by_value_can_differ_from_choosing_by_visits() {
        // max(5, chance(0, 12)): the gamble's W/N can exceed 5 while the safe move has more visits.
        let mut builder = TreeBuilder::new("t", "A");
        builder.add(NodeSpec::internal("A", NodeKind::Max, vec![ChildSpec::leaf(5.0), ChildSpec::id("C")]));
        builder.add(NodeSpec::internal("C", NodeKind::Chance, leaves(&[0.0, 12.0])));
        let tree = builder.build().unwrap();
        let differs = (0..40u64).any(|seed| {
            let settings = SearchSettings { seed, ..settings(6) };
            let by_visits = run(&tree, &settings).action;
            let by_value = search(&tree, &settings, Keep::Values, BeyondSlip::FinalByValue).unwrap().0.action;
            by_visits != by_value
        });
        assert!(differs);
    }

    /// min(max(3, 9), 4, max(1)): a min root, a single-child max node.
    fn min_root() -> Tree {
        let mut builder = TreeBuilder::new("min-root", "A");
        builder.add(NodeSpec::internal(
            "A",
            NodeKind::Min,
            vec![ChildSpec::id("B"), ChildSpec::leaf(4.0), ChildSpec::id("D")],
        ));
        builder.add(NodeSpec::internal("B", NodeKind::Max, leaves(&[3.0, 9.0, -2.0])));
        builder.add(NodeSpec::internal("D", NodeKind::Max, leaves(&[1.0])));
        builder.build().unwrap()
    }

    #[test]
    fn the_mistakes_at_a_min_root_change_what_they_should() {
        let tree = min_root();
        let reference = run(&tree, &settings(40));
        let with = |slip| search(&tree, &settings(40), Keep::Values, slip).unwrap().0;
        let counts = |outcome: &SearchOutcome| -> Vec<(u64, f64)> {
            outcome.mcts().unwrap().children.iter().map(|c| (c.n, c.w)).collect()
        };
        // W in the mover's view: the same search, the root children's W negated.
        let mover = with(BeyondSlip::WInMoversView);
        assert_eq!(
            (mover.visited.clone(), mover.action, mover.value),
            (reference.visited.clone(), reference.action, reference.value)
        );
        let negated: Vec<(u64, f64)> = counts(&reference).into_iter().map(|(n, w)| (n, -w)).collect();
        assert_eq!(counts(&mover), negated);
        // Rewards negated at a min root: MIN now seeks MAX's best outcomes.
        let negated_root = with(BeyondSlip::RewardsNegatedAtMinRoot);
        assert_eq!(negated_root, with(BeyondSlip::RewardsNegated), "at a min root the two are one mistake");
        assert_ne!(counts(&negated_root), counts(&reference));
        // The naive final move: the greatest W/N in MAX's view, the worst for MIN.
        let naive = with(BeyondSlip::FinalByValueNaive);
        assert_eq!((naive.visited.clone(), counts(&naive)), (reference.visited.clone(), counts(&reference)));
        let best_for_max = reference
            .mcts()
            .unwrap()
            .children
            .iter()
            .filter(|c| c.n > 0)
            .max_by(|a, b| (a.w / a.n as f64).total_cmp(&(b.w / b.n as f64)))
            .map(|c| c.node);
        assert_eq!(naive.action, best_for_max);
        assert_ne!(naive.action, reference.action);
    }

    #[test]
    fn the_rollout_mistakes_take_fewer_draws_or_other_children() {
        let tree = min_root();
        let reference = run(&tree, &settings(40));
        let with = |slip| search(&tree, &settings(40), Keep::Values, slip).unwrap().0;
        // D's one child needs no draw in the student's rollout: fewer draws in all.
        let single = with(BeyondSlip::RolloutNoDrawAtSingleChild);
        let draws = |outcome: &SearchOutcome| outcome.mcts().unwrap().draws;
        assert!(draws(&single) < draws(&reference), "{} against {}", draws(&single), draws(&reference));
        for slip in [BeyondSlip::RolloutRounded, BeyondSlip::RolloutNeverLast] {
            assert_eq!(draws(&with(slip)), draws(&reference), "{slip:?} takes one draw a move");
        }
        // The first rollout, from B, draws 0.883: child 2 of 3 (B.3), but
        // int(0.883 * 2) = 1 for a student who never takes the last.
        assert_eq!(tree.ids_of(&reference.visited)[..3], ["A", "B", "B.3"]);
        assert_eq!(tree.ids_of(&with(BeyondSlip::RolloutNeverLast).visited)[..3], ["A", "B", "B.2"]);
    }

    #[test]
    fn a_min_root_flips_the_sign_of_q() {
        let mut builder = TreeBuilder::new("min", "A");
        builder.add(NodeSpec::internal("A", NodeKind::Min, vec![ChildSpec::leaf(5.0), ChildSpec::leaf(-5.0)]));
        let tree = builder.build().unwrap();
        let outcome = run(&tree, &SearchSettings { exploration: 0.0, ..settings(10) });
        let counts: Vec<u64> = outcome.mcts().unwrap().children.iter().map(|c| c.n).collect();
        assert_eq!(counts, [1, 9], "without exploration MIN keeps taking -5");
        assert_eq!(tree.id(outcome.action.unwrap()), "A.2");
    }
}
