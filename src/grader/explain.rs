//! Differences of the searches of docs/format.md section 8, explained in
//! their own terms: the iteration of iterative deepening in which two
//! orders part, the MCTS iteration in which the first wrong node was
//! entered and the UCB values the reference compared there, and MCTS's
//! draws and root counts.

use super::plan::PlannedTest;
use super::result::{ChildCountView, SearchView};
use crate::compare::{Divergence, format_value, values_match};
use crate::engine::{self, Algorithm};
use crate::tree::GameTree;

/// What the reference did, as reports show it, with what its search finds
/// beyond a value, an action and an order.
pub fn reference_view(test: &PlannedTest, tree: &dyn GameTree) -> SearchView {
    let reference = &test.reference;
    let mut starts = Vec::new();
    let mut at = 0;
    for iteration in reference.iterations() {
        starts.push(at);
        at += iteration.entries;
    }
    SearchView {
        value: Some(reference.value),
        action: reference.action.map(|child| tree.action(child).into_owned()),
        visited: tree.ids_of(&reference.visited),
        vector: reference.vector().map(<[f64]>::to_vec),
        iteration_starts: starts,
        counts: reference.mcts().map(|summary| {
            summary
                .children
                .iter()
                .map(|child| ChildCountView { action: tree.action(child.node).into_owned(), n: child.n, w: child.w })
                .collect()
        }),
        draws: reference.mcts().map(|summary| summary.draws),
    }
}

/// Where the orders part, in the search's own terms: the iteration of
/// iterative deepening, or the MCTS iteration that first entered the node
/// expected there and the UCB values the reference compared in it.
pub fn divergence_context(
    test: &PlannedTest,
    tree: &dyn GameTree,
    expected: &SearchView,
    actual: &SearchView,
    divergence: &Divergence,
) -> Option<String> {
    match test.settings.algorithm {
        Algorithm::IterativeDeepening => Some(iteration_context(test, expected, actual, divergence.step)),
        Algorithm::Mcts => mcts_context(test, tree, divergence.step),
        Algorithm::Minimax | Algorithm::AlphaBeta | Algorithm::Expectimax | Algorithm::Maxn => None,
    }
}

/// The iteration (1-based) holding `step` when iterations start at `starts`.
fn iteration_at(starts: &[usize], step: usize) -> Option<usize> {
    starts.iter().rposition(|&start| start <= step).map(|index| index + 1)
}

fn iteration_context(test: &PlannedTest, expected: &SearchView, actual: &SearchView, step: usize) -> String {
    let Some(iteration) = iteration_at(&expected.iteration_starts, step) else { return String::new() };
    let start = expected.iteration_starts[iteration - 1];
    let depth = test.reference.iterations().get(iteration - 1).map_or(iteration as u32, |i| i.depth);
    let mut context =
        format!(" (in iteration {iteration}, of depth limit {depth}: its step {} of the reference)", step - start + 1);
    match iteration_at(&actual.iteration_starts, step) {
        None if actual.iteration_starts.is_empty() => context.push_str(
            "; you never told the grader that an iteration started: call game.start_iteration(depth) at the start \
             of each one, so that its nodes are entered again",
        ),
        Some(yours) if yours != iteration => {
            context.push_str(&format!("; at that step you were in your iteration {yours}"));
        }
        _ => {}
    }
    if iteration > 1 && step == start + 1 {
        context.push_str(
            "; an iteration after the first searches first the root child that the previous iteration chose, \
             then the others in the tree's order",
        );
    }
    context
}

/// The MCTS iteration that first entered the reference's node at `step`,
/// and the UCB values its selections compared.
fn mcts_context(test: &PlannedTest, tree: &dyn GameTree, step: usize) -> Option<String> {
    let first = engine::mcts_trace(tree, &test.settings, 1).ok()?;
    let iteration = iteration_at(&first.entered_before, step)? as u32;
    let trace = engine::mcts_trace(tree, &test.settings, iteration).ok()?;
    let mut context = format!(" (the reference entered that node in its iteration {iteration}");
    if trace.selections.is_empty() {
        context.push_str(", where it compared no UCB values: it went to a child never tried, or picked by chance");
    }
    for selection in &trace.selections {
        let values: Vec<String> = selection
            .children
            .iter()
            .map(|&(child, n, w, ucb)| {
                format!("{} {} (N {n}, W {})", tree.action(child), format_value(ucb), format_value(w))
            })
            .collect();
        let q = match tree.kind(selection.node) {
            crate::tree::NodeKind::Min => " (a min node: q = -W/N)",
            _ => " (a max node: q = W/N)",
        };
        context.push_str(&format!(
            "; at {}{q} it compared the UCB values {} and took {}",
            tree.id(selection.node),
            values.join(", "),
            tree.action(selection.chosen)
        ));
    }
    context.push(')');
    Some(context)
}

/// When the orders agree but the iterations were declared elsewhere.
pub fn iterations_difference(expected: &SearchView, actual: &SearchView) -> String {
    let count = |starts: &[usize]| starts.len();
    if actual.iteration_starts.is_empty() {
        return "iterations: you never told the grader that an iteration started; call game.start_iteration(depth) \
                at the start of each one"
            .to_string();
    }
    format!(
        "iterations: the reference ran {} iterations starting at steps {:?}, you declared {} starting at steps {:?}",
        count(&expected.iteration_starts),
        expected.iteration_starts.iter().map(|s| s + 1).collect::<Vec<_>>(),
        count(&actual.iteration_starts),
        actual.iteration_starts.iter().map(|s| s + 1).collect::<Vec<_>>()
    )
}

/// What differs in MCTS's draws and root counts (docs/format.md 8.4), if anything.
pub fn counts_difference(expected: &SearchView, actual: &SearchView) -> Option<String> {
    let mut parts = Vec::new();
    if let (Some(expected), Some(actual)) = (expected.draws, actual.draws)
        && expected != actual
    {
        parts.push(format!("the reference took {expected} random draws, you took {actual}"));
    }
    let reference = expected.counts.as_deref().unwrap_or_default();
    match actual.counts.as_deref() {
        None => parts.push(
            "you did not report the root children's N and W (return them with your answer: (value, action, \
             counts))"
                .to_string(),
        ),
        Some(counts) => {
            let same = counts.len() == reference.len()
                && counts
                    .iter()
                    .zip(reference)
                    .all(|(a, e)| a.action == e.action && a.n == e.n && values_match(e.w, a.w));
            if !same {
                parts.push(format!(
                    "the root children's N and W: expected {}, you reported {}",
                    describe_counts(reference),
                    describe_counts(counts)
                ));
            }
        }
    }
    (!parts.is_empty()).then(|| format!("counts: {}", parts.join("; ")))
}

fn describe_counts(counts: &[ChildCountView]) -> String {
    if counts.is_empty() {
        return "none".to_string();
    }
    let parts: Vec<String> =
        counts.iter().map(|child| format!("{} N {} W {}", child.action, child.n, format_value(child.w))).collect();
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(items: &[(&str, u64, f64)]) -> Option<Vec<ChildCountView>> {
        Some(items.iter().map(|&(action, n, w)| ChildCountView { action: action.into(), n, w }).collect())
    }

    #[test]
    fn an_iteration_is_found_from_its_start() {
        assert_eq!(iteration_at(&[0, 3, 10], 0), Some(1));
        assert_eq!(iteration_at(&[0, 3, 10], 3), Some(2));
        assert_eq!(iteration_at(&[0, 3, 10], 12), Some(3));
        assert_eq!(iteration_at(&[], 2), None);
    }

    #[test]
    fn counts_and_draws_are_compared_and_described() {
        let expected =
            SearchView { draws: Some(5), counts: counts(&[("a", 3, 1.5), ("b", 2, -1.0)]), ..SearchView::default() };
        let same =
            SearchView { draws: Some(5), counts: counts(&[("a", 3, 1.5), ("b", 2, -1.0)]), ..SearchView::default() };
        assert_eq!(counts_difference(&expected, &same), None);
        let off =
            SearchView { draws: Some(4), counts: counts(&[("a", 2, 1.5), ("b", 3, -1.0)]), ..SearchView::default() };
        let message = counts_difference(&expected, &off).unwrap();
        assert!(message.contains("the reference took 5 random draws, you took 4"), "{message}");
        assert!(
            message.contains("expected a N 3 W 1.5, b N 2 W -1, you reported a N 2 W 1.5, b N 3 W -1"),
            "{message}"
        );
        let silent = SearchView { draws: Some(5), ..SearchView::default() };
        assert!(counts_difference(&expected, &silent).unwrap().contains("did not report"));
    }
}
