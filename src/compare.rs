//! Comparing a search result with an expected one: value, action, visited order.
//!
//! Shared by `treegrade validate` (a file's `expect` block against the
//! reference) and the grader (a student against the reference), so both
//! apply the same tolerance and describe a difference the same way.

pub use crate::engine::{VALUE_TOLERANCE, values_match};

/// Where two visited orders first differ.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Divergence {
    /// 0-based step of the first difference.
    pub step: usize,
    /// The expected node at that step, if the expected order is that long.
    pub expected: Option<String>,
    /// The actual node at that step, if the actual order is that long.
    pub actual: Option<String>,
}

/// The first step at which `actual` leaves `expected`, if it does.
pub fn first_divergence<E: AsRef<str>, A: AsRef<str>>(expected: &[E], actual: &[A]) -> Option<Divergence> {
    let common = expected.iter().zip(actual).take_while(|(e, a)| e.as_ref() == a.as_ref()).count();
    if common == expected.len() && common == actual.len() {
        return None;
    }
    Some(Divergence {
        step: common,
        expected: expected.get(common).map(|id| id.as_ref().to_string()),
        actual: actual.get(common).map(|id| id.as_ref().to_string()),
    })
}

impl Divergence {
    /// One sentence: what was expected at the step and what happened instead.
    pub fn describe(&self, actual_subject: &str) -> String {
        let step = self.step + 1;
        match (&self.expected, &self.actual) {
            (Some(expected), Some(actual)) => {
                format!("at step {step} the expected order enters {expected}, but {actual_subject} entered {actual}")
            }
            (Some(expected), None) => {
                format!(
                    "{actual_subject} stopped after {}; step {step} should enter {expected}",
                    count_nodes(self.step)
                )
            }
            (None, Some(actual)) => {
                format!(
                    "the expected order ends after {}, but {actual_subject} went on to enter {actual}",
                    count_nodes(self.step)
                )
            }
            (None, None) => "the orders are identical".to_string(),
        }
    }
}

/// Whether `actual` is `expected` with each node's children taken in
/// another order: the same nodes, each entered once, first the root, and
/// every node's descendants entered after it and before anything outside
/// it (depth first). The search that shuffles its moves passes; one that
/// leaves a subtree and comes back, or enters other nodes, does not.
pub fn same_search_in_another_child_order(
    tree: &(impl crate::tree::GameTree + ?Sized),
    expected: &[crate::tree::NodeIndex],
    actual: &[crate::tree::NodeIndex],
) -> bool {
    let mut unentered: std::collections::HashSet<_> = expected.iter().copied().collect();
    if expected.len() != actual.len() || unentered.len() != expected.len() || expected.first() != actual.first() {
        return false;
    }
    // The path from the root to the last node entered.
    let mut path = Vec::new();
    for &node in actual {
        if !unentered.remove(&node) {
            return false;
        }
        if let Some(parent) = tree.parent(node) {
            while path.last().is_some_and(|&last| last != parent) {
                path.pop();
            }
            if path.is_empty() {
                return false; // its parent's subtree was left already
            }
        }
        path.push(node);
    }
    true
}

/// "1 node", "3 nodes".
pub fn count_nodes(count: usize) -> String {
    if count == 1 { "1 node".to_string() } else { format!("{count} nodes") }
}

/// "1 test", "3 tests": a count with its noun, plural but for one.
pub fn counted(count: usize, noun: &str) -> String {
    if count == 1 { format!("1 {noun}") } else { format!("{count} {noun}s") }
}

/// Formats a value the way reports print it: shortest round-trip form.
pub fn format_value(value: f64) -> String {
    format!("{value}")
}

/// Whether two max^n vectors (docs/format.md 8.3) have the same length and
/// agree component by component within the value tolerance.
pub fn vectors_match(expected: &[f64], actual: &[f64]) -> bool {
    expected.len() == actual.len() && expected.iter().zip(actual).all(|(&e, &a)| values_match(e, a))
}

/// A vector as students read it: `[3, -1, 2]`.
pub fn format_vector(vector: &[f64]) -> String {
    let parts: Vec<String> = vector.iter().map(|&value| format_value(value)).collect();
    format!("[{}]", parts.join(", "))
}

/// The ways a search result can differ from an [`Expectation`], one sentence each.
///
/// [`Expectation`]: crate::tree::Expectation
pub fn expectation_differences(
    tree: &(impl crate::tree::GameTree + ?Sized),
    expectation: &crate::tree::Expectation,
    outcome: &crate::engine::SearchOutcome,
    subject: &str,
) -> Vec<String> {
    let mut differences = Vec::new();
    if let Some(expected) = expectation.value
        && !values_match(expected, outcome.value)
    {
        differences.push(format!(
            "value: expected {}, {subject} gives {}",
            format_value(expected),
            format_value(outcome.value)
        ));
    }
    if let Some(expected) = &expectation.vector {
        let actual = outcome.vector().unwrap_or(&[]);
        if !vectors_match(expected, actual) {
            differences.push(format!(
                "value: expected {}, {subject} gives {}",
                format_vector(expected),
                format_vector(actual)
            ));
        }
    }
    if let Some(expected) = &expectation.action {
        let actual = outcome.action.map(|child| tree.action(child));
        if expected.as_deref() != actual.as_deref() {
            differences.push(format!(
                "action: expected {}, {subject} chooses {}",
                expected.as_deref().unwrap_or("none"),
                actual.as_deref().unwrap_or("none")
            ));
        }
    }
    if let Some(expected) = &expectation.visited {
        let actual: Vec<String> = outcome.visited.iter().map(|&node| tree.id(node).into_owned()).collect();
        if let Some(divergence) = first_divergence(expected, &actual) {
            differences.push(format!("visited: {}", divergence.describe(subject)));
        }
    }
    differences
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_depth_first_search_in_another_child_order_is_the_same_search() {
        use crate::tree::NodeIndex;
        let tree = crate::tree::fixtures::aima();
        // A=0; B, C, D = 1..=3; B's leaves 4..=6, C's 7..=9, D's 10..=12.
        let order = |nodes: &[u32]| nodes.iter().map(|&n| NodeIndex(n)).collect::<Vec<_>>();
        let minimax = order(&[0, 1, 4, 5, 6, 2, 7, 8, 9, 3, 10, 11, 12]);
        let same = |actual: &[u32]| same_search_in_another_child_order(&tree, &minimax, &order(actual));
        assert!(same(&[0, 1, 4, 5, 6, 2, 7, 8, 9, 3, 10, 11, 12]));
        assert!(same(&[0, 2, 9, 7, 8, 1, 5, 4, 6, 3, 10, 12, 11]), "shuffled at every node");
        assert!(!same(&[0, 1, 4, 2, 7, 8, 9, 5, 6, 3, 10, 11, 12]), "B is left and re-entered");
        assert!(!same(&[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]), "breadth first");
        assert!(!same(&[1, 0, 4, 5, 6, 2, 7, 8, 9, 3, 10, 11, 12]), "the root first");
        assert!(!same(&[0, 1, 4, 5, 6, 2, 7, 8, 9, 3, 10, 11]), "a node missing");
        assert!(!same(&[0, 1, 4, 5, 6, 2, 7, 8, 9, 3, 10, 11, 11]), "a node twice");
    }

    #[test]
    fn tolerance_is_relative_or_absolute() {
        assert!(values_match(0.0, 1e-10));
        assert!(!values_match(0.0, 1e-8));
        assert!(values_match(1e12, 1e12 + 1e2));
        assert!(!values_match(1e12, 1e12 + 1e4));
        assert!(values_match(7.25, 7.25));
    }

    #[test]
    fn divergence_finds_the_first_difference() {
        assert_eq!(first_divergence(&["A", "B"], &["A", "B"]), None);
        let d = first_divergence(&["A", "B", "C"], &["A", "C"]).unwrap();
        assert_eq!((d.step, d.expected.as_deref(), d.actual.as_deref()), (1, Some("B"), Some("C")));
        let shorter = first_divergence(&["A", "B"], &["A"]).unwrap();
        assert_eq!(shorter.describe("you"), "you stopped after 1 node; step 2 should enter B");
        let longer = first_divergence(&["A"], &["A", "B"]).unwrap();
        assert!(longer.describe("you").contains("went on to enter B"));
    }
}
