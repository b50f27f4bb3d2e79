//! Iterative deepening (docs/format.md 8.2): alpha-beta at depth 1, 2, ...,
//! D, the previous iteration's choice searched first at the root (unless
//! `reorder_root: false`), on a budget of node entries counted over all
//! iterations, stopping once an iteration saw the whole tree (unless
//! `stop_when_complete: false`: MIT 6.034's progressive deepening).

use super::fragile::{Bounds, FragileComparison};
use super::variant::BeyondSlip;
use super::{
    Iteration, Keep, Search, SearchError, SearchExtra, SearchObserver, SearchOutcome, SearchSettings, Unobserved,
};
use crate::tree::{GameTree, NodeIndex};

/// The search, and with [`Keep::Fragility`] the first fragile comparison of
/// any of its iterations; `slip` makes one of a student's mistakes.
pub(super) fn search<T: GameTree + ?Sized>(
    tree: &T,
    settings: &SearchSettings,
    keep: Keep,
    slip: BeyondSlip,
) -> Result<(SearchOutcome, Option<FragileComparison>), SearchError> {
    watched(tree, settings, keep, slip, &mut Unobserved)
}

/// [`search`], telling `observer` of each iteration and of every step in it.
pub(super) fn watched<T: GameTree + ?Sized, O: SearchObserver>(
    tree: &T,
    settings: &SearchSettings,
    keep: Keep,
    slip: BeyondSlip,
    observer: &mut O,
) -> Result<(SearchOutcome, Option<FragileComparison>), SearchError> {
    let deepest = settings.depth.ok_or(SearchError::DeepeningWithoutDepth)?;
    let mut left = settings.budget;
    let mut visited = Vec::new();
    let mut iterations = Vec::new();
    let mut answer: Option<(f64, Option<NodeIndex>)> = None;
    let mut fragile = None;
    for depth in 1..=deepest {
        let previous_first = settings.reorder_root && slip != BeyondSlip::NoPreviousFirst;
        let previous_choice = answer.and_then(|(_, action)| action).filter(|_| previous_first);
        observer.iteration_began(depth);
        let mut search = Search::watched(tree, &SearchSettings { depth: Some(depth), ..*settings }, &mut *observer);
        search.root_first = previous_choice.map(|child| child.0);
        search.budget_left = left;
        match slip {
            BeyondSlip::ConventionInvertedAtMax => search.prune_on_equal_at_max = !settings.prune_on_equal,
            BeyondSlip::ConventionInvertedAtMin => search.prune_on_equal_at_min = !settings.prune_on_equal,
            _ => {}
        }
        if keep == Keep::Fragility {
            search.bounds = Some(Bounds::default());
        }
        let (value, action) = search.explore();
        search.succeeded()?;
        if search.out_of_budget && depth == 1 {
            return Err(SearchError::BudgetTooSmall {
                budget: settings.budget.unwrap_or(0),
                needed: first_iteration_entries(tree, settings)?,
            });
        }
        fragile = fragile.or(search.bounds.take().and_then(|bounds| bounds.fragile));
        let entries = search.visited.len();
        left = left.map(|left| left - entries as u64);
        let complete = !search.out_of_budget;
        iterations.push(Iteration {
            depth,
            value: complete.then_some(value),
            action: if complete { action } else { None },
            entries,
            complete,
            cutoffs: std::mem::take(&mut search.cutoffs),
        });
        visited.append(&mut search.visited);
        if !complete {
            if slip == BeyondSlip::KeepsCutShortAnswer
                && let Some(partial) = search.root_best_so_far
            {
                answer = Some(partial);
            }
            break;
        }
        answer = Some((value, action));
        if !search.cut_inside && settings.stop_when_complete && slip != BeyondSlip::NoEarlyStop {
            break; // this iteration saw the whole tree
        }
    }
    let (value, action) = answer.expect("the first iteration is complete, or the budget is refused above");
    let outcome =
        SearchOutcome { value, action, visited, cutoffs: Vec::new(), extra: SearchExtra::Iterations(iterations) };
    Ok((outcome, fragile))
}

/// How many nodes the first iteration enters without a budget.
fn first_iteration_entries<T: GameTree + ?Sized>(tree: &T, settings: &SearchSettings) -> Result<usize, SearchError> {
    let mut search = Search::new(tree, &SearchSettings { depth: Some(1), budget: None, ..*settings });
    search.explore();
    search.succeeded()?;
    Ok(search.visited.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Algorithm;
    use crate::tree::{ChildSpec, NodeBody, NodeKind, NodeSpec, Tree, TreeBuilder};

    /// max(B, C) over two min nodes, each with its `eval` and its leaves.
    fn max_over_two_mins(name: &str, b: (f64, &[f64]), c: (f64, &[f64])) -> Tree {
        let mut builder = TreeBuilder::new(name, "A");
        builder.add(NodeSpec::internal("A", NodeKind::Max, vec![ChildSpec::id("B"), ChildSpec::id("C")]));
        let min = |id: &str, (eval, leaves): (f64, &[f64])| NodeSpec {
            id: id.into(),
            body: NodeBody::Internal {
                kind: NodeKind::Min,
                children: leaves.iter().map(|&v| ChildSpec::leaf(v)).collect(),
                probs: None,
                eval: Some(eval),
            },
        };
        builder.add(min("B", b));
        builder.add(min("C", c));
        builder.build().unwrap()
    }

    /// max(B eval 5, C eval 1) over min nodes: depth 1 prefers B, depth 2 C.
    fn turning() -> Tree {
        max_over_two_mins("turning", (5.0, &[2.0, 8.0]), (1.0, &[4.0, 6.0]))
    }

    fn settings(depth: u32, budget: Option<u64>) -> SearchSettings {
        SearchSettings { depth: Some(depth), budget, ..SearchSettings::new(Algorithm::IterativeDeepening) }
    }

    fn ids(tree: &Tree, nodes: &[NodeIndex]) -> Vec<String> {
        tree.ids_of(nodes)
    }

    /// max(B eval 1, C eval 5) over min nodes: depth 1 prefers C, the
    /// second child, so that its being searched first shows.
    fn second_best_first() -> Tree {
        max_over_two_mins("second", (1.0, &[4.0, 6.0]), (5.0, &[2.0, 8.0]))
    }

    #[test]
    fn without_reordering_every_iteration_keeps_the_trees_order_and_every_depth_runs() {
        let tree = second_best_first();
        let reordered = search(&tree, &settings(3, None), Keep::Values, BeyondSlip::None).unwrap().0;
        let orders = |outcome: &SearchOutcome| -> Vec<Vec<String>> {
            outcome.iterations_with_visits().map(|(_, visits)| ids(&tree, visits)).collect()
        };
        // 8.2: C (depth 1's choice) first at depth 2, which saw the whole tree: no depth 3.
        assert_eq!(orders(&reordered), [vec!["A", "B", "C"], vec!["A", "C", "C.1", "C.2", "B", "B.1", "B.2"]]);
        let mit = SearchSettings { reorder_root: false, stop_when_complete: false, ..settings(3, None) };
        let outcome = search(&tree, &mit, Keep::Values, BeyondSlip::None).unwrap().0;
        // The tree's order: B = 4, then C.1 = 2 <= 4 prunes C.2; and depth 3 runs all the same.
        let in_order = vec!["A", "B", "B.1", "B.2", "C", "C.1"];
        assert_eq!(orders(&outcome), [vec!["A", "B", "C"], in_order.clone(), in_order]);
        let values: Vec<_> = outcome.iterations().iter().map(|i| (i.value, i.action.map(|a| tree.id(a)))).collect();
        assert_eq!(values, [(Some(5.0), Some("C")), (Some(4.0), Some("B")), (Some(4.0), Some("B"))]);
        assert_eq!((outcome.value, outcome.action.map(|a| tree.id(a))), (4.0, Some("B")));
        // Each flag alone.
        let unordered = SearchSettings { reorder_root: false, ..settings(3, None) };
        let outcome = search(&tree, &unordered, Keep::Values, BeyondSlip::None).unwrap().0;
        assert_eq!(orders(&outcome).len(), 2);
        let every = SearchSettings { stop_when_complete: false, ..settings(3, None) };
        let outcome = search(&tree, &every, Keep::Values, BeyondSlip::None).unwrap().0;
        assert_eq!(orders(&outcome)[2], ["A", "B", "B.1", "B.2", "C", "C.1"], "depth 2 chose B: B first");
    }

    #[test]
    fn each_iteration_searches_the_previous_choice_first() {
        let tree = turning();
        let (outcome, _) = search(&tree, &settings(3, None), Keep::Values, BeyondSlip::None).unwrap();
        let iterations: Vec<_> = outcome.iterations_with_visits().collect();
        assert_eq!(iterations.len(), 2, "depth 2 reached only terminals: no depth 3");
        assert_eq!(ids(&tree, iterations[0].1), ["A", "B", "C"]);
        assert_eq!(iterations[0].0.value, Some(5.0));
        // B first (the previous choice): B = 2, then C.1 = 4 > 2, C.2 = 6: C = 4.
        assert_eq!(ids(&tree, iterations[1].1), ["A", "B", "B.1", "B.2", "C", "C.1", "C.2"]);
        assert_eq!((outcome.value, outcome.action.map(|a| tree.id(a))), (4.0, Some("C")));
        assert!(iterations.iter().all(|(iteration, _)| iteration.complete));
        assert_eq!(outcome.visited.len(), 3 + 7);
    }

    #[test]
    fn a_budget_cuts_the_last_iteration_short_and_it_counts_for_nothing() {
        let tree = turning();
        let (outcome, _) = search(&tree, &settings(2, Some(5)), Keep::Values, BeyondSlip::None).unwrap();
        let iterations = outcome.iterations();
        assert_eq!(iterations.len(), 2);
        assert_eq!((iterations[1].entries, iterations[1].complete, iterations[1].value), (2, false, None));
        assert_eq!((outcome.value, outcome.action.map(|a| tree.id(a))), (5.0, Some("B")), "depth 1's answer");
        assert_eq!(outcome.visited.len(), 5);
    }

    #[test]
    fn a_budget_spent_exactly_lists_an_empty_iteration() {
        let tree = turning();
        let (outcome, _) = search(&tree, &settings(2, Some(3)), Keep::Values, BeyondSlip::None).unwrap();
        let last = outcome.iterations().last().unwrap();
        assert_eq!((last.depth, last.entries, last.complete), (2, 0, false));
        let (whole, _) = search(&tree, &settings(1, Some(3)), Keep::Values, BeyondSlip::None).unwrap();
        assert_eq!(whole.iterations().len(), 1, "no deeper iteration to cut short");
    }

    #[test]
    fn the_mistakes_of_iterative_deepening_change_what_they_should() {
        let tree = turning();
        let run = |depth, budget, slip| search(&tree, &settings(depth, budget), Keep::Values, slip).unwrap().0;
        let tree_order = run(3, None, BeyondSlip::NoPreviousFirst);
        assert_eq!(tree.ids_of(&tree_order.visited[3..]), ["A", "B", "B.1", "B.2", "C", "C.1", "C.2"]);
        // Depth 2 cut short after B (2) was searched: the partial answer is B's.
        let partial = run(2, Some(8), BeyondSlip::KeepsCutShortAnswer);
        let reference = run(2, Some(8), BeyondSlip::None);
        assert_eq!((reference.value, reference.action.map(|a| tree.id(a))), (5.0, Some("B")));
        assert_eq!((partial.value, partial.action.map(|a| tree.id(a))), (2.0, Some("B")));
        assert_eq!(partial.visited, reference.visited);
        let all = run(4, None, BeyondSlip::NoEarlyStop);
        assert_eq!(all.iterations().len(), 4, "depths 3 and 4 repeat depth 2's whole tree");
    }

    /// max(min(3, 3, 9), min(3, 1)) at depth 2: every prune is on an equality.
    fn ties() -> Tree {
        let mut builder = TreeBuilder::new("ties", "A");
        builder.add(NodeSpec::internal("A", NodeKind::Max, vec![ChildSpec::id("B"), ChildSpec::id("C")]));
        let min = |id: &str, leaves: &[f64]| NodeSpec {
            id: id.into(),
            body: NodeBody::Internal {
                kind: NodeKind::Min,
                children: leaves.iter().map(|&v| ChildSpec::leaf(v)).collect(),
                probs: None,
                eval: Some(0.0),
            },
        };
        builder.add(min("B", &[3.0, 3.0, 9.0]));
        builder.add(min("C", &[3.0, 1.0]));
        builder.build().unwrap()
    }

    #[test]
    fn a_convention_inverted_at_one_kind_prunes_there_alone() {
        let tree = ties();
        let visits = |prune_on_equal, slip| {
            let settings = SearchSettings { prune_on_equal, ..settings(2, None) };
            let outcome = search(&tree, &settings, Keep::Values, slip).unwrap().0;
            tree.ids_of(&outcome.visited[3..])
        };
        // Depth 1 values B and C by their evals (0 both) and keeps B, which
        // depth 2 searches first: B = 3, then at C, 3 <= alpha 3 prunes C.2
        // on equality; strictly, C.2 is searched.
        assert_eq!(visits(true, BeyondSlip::None), ["A", "B", "B.1", "B.2", "B.3", "C", "C.1"]);
        assert_eq!(visits(false, BeyondSlip::None), ["A", "B", "B.1", "B.2", "B.3", "C", "C.1", "C.2"]);
        // The prune is a min node's: inverted at min nodes, the two swap.
        assert_eq!(visits(true, BeyondSlip::ConventionInvertedAtMin), visits(false, BeyondSlip::None));
        assert_eq!(visits(false, BeyondSlip::ConventionInvertedAtMin), visits(true, BeyondSlip::None));
        // Inverted at max nodes only, where nothing is pruned, it changes nothing.
        assert_eq!(visits(true, BeyondSlip::ConventionInvertedAtMax), visits(true, BeyondSlip::None));
        assert_eq!(visits(false, BeyondSlip::ConventionInvertedAtMax), visits(false, BeyondSlip::None));
    }

    #[test]
    fn a_budget_below_the_first_iteration_is_refused() {
        let tree = turning();
        let error = search(&tree, &settings(2, Some(2)), Keep::Values, BeyondSlip::None).unwrap_err();
        assert_eq!(error, SearchError::BudgetTooSmall { budget: 2, needed: 3 });
    }
}
