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

/// "1 node", "3 nodes".
pub fn count_nodes(count: usize) -> String {
    if count == 1 { "1 node".to_string() } else { format!("{count} nodes") }
}

/// Formats a value the way reports print it: shortest round-trip form.
pub fn format_value(value: f64) -> String {
    format!("{value}")
}

/// The ways a search result can differ from an [`Expectation`], one sentence each.
///
/// [`Expectation`]: crate::tree::Expectation
pub fn expectation_differences(
    tree: &crate::tree::Tree,
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
    if let Some(expected) = &expectation.action {
        let actual = outcome.action.map(|child| tree.action(child));
        if expected.as_deref() != actual {
            differences.push(format!(
                "action: expected {}, {subject} chooses {}",
                expected.as_deref().unwrap_or("none"),
                actual.unwrap_or("none")
            ));
        }
    }
    if let Some(expected) = &expectation.visited {
        let actual: Vec<&str> = outcome.visited.iter().map(|&node| tree.id(node)).collect();
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
