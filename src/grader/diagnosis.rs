//! Naming a failing student's bug by its trace.
//!
//! The reference engine is run again with one classic mistake at a time
//! (pruning convention flipped, no pruning, children reversed, probabilities
//! ignored, ...). When one of these runs reproduces the student's value,
//! action and visited order exactly, the report names that mistake in the
//! student's words. Nothing matches: the report falls back to the first
//! divergence, which it shows anyway.

use crate::compare::values_match;
pub use crate::engine::mistakes::{Candidate, candidates, undetected_mistakes};
use crate::engine::{SearchSettings, search_with_quirks};
use crate::tree::{NodeIndex, Tree};

/// What a student's search produced.
#[derive(Clone, Copy, Debug)]
pub struct StudentTrace<'a> {
    /// The value returned.
    pub value: f64,
    /// The action returned.
    pub action: Option<&'a str>,
    /// The order recorded by the grader.
    pub visited: &'a [NodeIndex],
}

/// A recognised mistake.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Diagnosis {
    /// A stable name for the mistake (`reverse-children`, ...).
    pub bug: &'static str,
    /// What the student did and what to do instead; when several mistakes
    /// reproduce the trace, it names each ("either ..., or ...").
    pub explanation: String,
    /// Other mistakes that reproduce the trace just as exactly.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub alternatives: Vec<&'static str>,
}

/// The mistake whose trace equals the student's, if any. When several
/// mistakes reproduce it exactly, the diagnosis says so and names each: the
/// trace cannot tell them apart, so none is presented as the fact.
pub fn diagnose(tree: &Tree, settings: &SearchSettings, student: &StudentTrace<'_>) -> Option<Diagnosis> {
    let mut matching: Vec<Candidate> = Vec::new();
    for candidate in candidates(tree, settings) {
        let Ok(outcome) = search_with_quirks(tree, &candidate.settings, candidate.quirks) else { continue };
        let action = outcome.action.map(|child| tree.action(child));
        let same = outcome.visited == student.visited
            && values_match(outcome.value, student.value)
            && action == student.action;
        if same && !matching.iter().any(|known| known.bug == candidate.bug) {
            matching.push(candidate);
        }
    }
    let mut matching = matching.into_iter();
    let first = matching.next()?;
    let others: Vec<Candidate> = matching.collect();
    if others.is_empty() {
        return Some(Diagnosis { bug: first.bug, explanation: first.explanation, alternatives: Vec::new() });
    }
    let mut explanation = format!("your trace fits more than one mistake: either {}", first.explanation);
    for other in &others {
        explanation.push_str(&format!("; or {}", other.explanation));
    }
    Some(Diagnosis { bug: first.bug, explanation, alternatives: others.iter().map(|other| other.bug).collect() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Algorithm, Quirks, search};
    use crate::tree::fixtures::leaves;
    use crate::tree::{ChildSpec, NodeBody, NodeKind, NodeSpec, TreeBuilder};

    /// max(min(3, 12, 8), min(3, 4, 6), min(14, 5, 2)): C ties B at 3.
    fn tree() -> Tree {
        let mut builder = TreeBuilder::new("t", "A");
        builder.add(NodeSpec::internal(
            "A",
            NodeKind::Max,
            vec![ChildSpec::id("B"), ChildSpec::id("C"), ChildSpec::id("D")],
        ));
        builder.add(NodeSpec::internal("B", NodeKind::Min, leaves(&[3.0, 12.0, 8.0])));
        builder.add(NodeSpec::internal("C", NodeKind::Min, leaves(&[3.0, 4.0, 6.0])));
        builder.add(NodeSpec::internal("D", NodeKind::Min, leaves(&[14.0, 5.0, 2.0])));
        builder.build().unwrap()
    }

    /// The diagnosis of a student who ran `student_settings` with `quirks`.
    fn diagnosis_of(
        settings: SearchSettings,
        student_settings: SearchSettings,
        quirks: Quirks,
    ) -> Option<&'static str> {
        let tree = tree();
        let outcome = search_with_quirks(&tree, &student_settings, quirks).unwrap();
        let action = outcome.action.map(|c| tree.action(c));
        let trace = StudentTrace { value: outcome.value, action, visited: &outcome.visited };
        diagnose(&tree, &settings, &trace).map(|d| d.bug)
    }

    fn strict_alphabeta() -> SearchSettings {
        SearchSettings { prune_on_equal: false, ..SearchSettings::new(Algorithm::AlphaBeta) }
    }

    #[test]
    fn names_the_pruning_convention() {
        let student = SearchSettings::new(Algorithm::AlphaBeta);
        assert_eq!(diagnosis_of(strict_alphabeta(), student, Quirks::default()), Some("prune-on-equal"));
    }

    #[test]
    fn names_missing_pruning() {
        let student = SearchSettings::new(Algorithm::Minimax);
        assert_eq!(diagnosis_of(strict_alphabeta(), student, Quirks::default()), Some("no-pruning"));
    }

    #[test]
    fn names_reversed_children_and_eager_children() {
        let reversed = Quirks { reverse_children: true, ..Quirks::default() };
        assert_eq!(diagnosis_of(strict_alphabeta(), strict_alphabeta(), reversed), Some("reverse-children"));
        let eager = Quirks { eager_children: true, ..Quirks::default() };
        assert_eq!(diagnosis_of(strict_alphabeta(), strict_alphabeta(), eager), Some("eager-children"));
    }

    #[test]
    fn names_pruning_in_a_minimax_question() {
        let minimax = SearchSettings::new(Algorithm::Minimax);
        assert_eq!(diagnosis_of(minimax, strict_alphabeta(), Quirks::default()), Some("prunes-in-minimax"));
    }

    #[test]
    fn names_ties_resolved_to_the_last_child() {
        let minimax = SearchSettings::new(Algorithm::Minimax);
        let last = Quirks { last_best_at_root: true, ..Quirks::default() };
        assert_eq!(diagnosis_of(minimax, minimax, last), Some("first-best-last"));
    }

    #[test]
    fn names_ignored_probabilities() {
        let mut builder = TreeBuilder::new("c", "A");
        builder.add(NodeSpec {
            id: "A".into(),
            body: NodeBody::Internal {
                kind: NodeKind::Chance,
                children: leaves(&[8.0, 24.0, -12.0]),
                probs: Some(vec![0.5, 0.25, 0.25]),
                eval: None,
            },
        });
        let tree = builder.build().unwrap();
        let settings = SearchSettings::new(Algorithm::Expectimax);
        let outcome =
            search_with_quirks(&tree, &settings, Quirks { uniform_chance: true, ..Quirks::default() }).unwrap();
        let trace = StudentTrace { value: outcome.value, action: None, visited: &outcome.visited };
        assert_eq!(diagnose(&tree, &settings, &trace).map(|d| d.bug), Some("ignore-probabilities"));
    }

    #[test]
    fn names_depth_off_by_one() {
        let mut builder = TreeBuilder::new("d", "A");
        let with_eval = |id: &str, kind, children, eval| NodeSpec {
            id: id.into(),
            body: NodeBody::Internal { kind, children, probs: None, eval: Some(eval) },
        };
        builder.add(with_eval("A", NodeKind::Max, vec![ChildSpec::id("B"), ChildSpec::id("C")], 0.0));
        builder.add(with_eval("B", NodeKind::Min, vec![ChildSpec::id("B1"), ChildSpec::id("B2")], 5.0));
        builder.add(with_eval("C", NodeKind::Min, vec![ChildSpec::id("C1")], 1.0));
        builder.add(with_eval("B1", NodeKind::Max, leaves(&[2.0]), 7.0));
        builder.add(with_eval("B2", NodeKind::Max, leaves(&[9.0]), 8.0));
        builder.add(with_eval("C1", NodeKind::Max, leaves(&[4.0]), 6.0));
        let tree = builder.build().unwrap();
        let at = |depth| SearchSettings { depth: Some(depth), ..SearchSettings::new(Algorithm::Minimax) };
        for (student_depth, bug) in [(3, "depth-too-deep"), (1, "depth-too-shallow")] {
            let outcome = search(&tree, &at(student_depth)).unwrap();
            let action = outcome.action.map(|c| tree.action(c));
            let trace = StudentTrace { value: outcome.value, action, visited: &outcome.visited };
            assert_eq!(diagnose(&tree, &at(2), &trace).map(|d| d.bug), Some(bug));
        }
    }

    #[test]
    fn an_unknown_mistake_is_not_named() {
        let tree = tree();
        let outcome = search(&tree, &strict_alphabeta()).unwrap();
        let trace = StudentTrace { value: 42.0, action: Some("B"), visited: &outcome.visited };
        assert_eq!(diagnose(&tree, &strict_alphabeta(), &trace), None);
    }

    #[test]
    fn a_trace_two_mistakes_explain_names_both() {
        // max(min(3, 3), min(3, 3)) under AIMA's convention prunes C.2; a
        // search that never prunes and one that prunes only on strict
        // inequality both enter it, so the trace cannot tell them apart.
        let mut builder = TreeBuilder::new("ties", "A");
        builder.add(NodeSpec::internal("A", NodeKind::Max, vec![ChildSpec::id("B"), ChildSpec::id("C")]));
        builder.add(NodeSpec::internal("B", NodeKind::Min, leaves(&[3.0, 3.0])));
        builder.add(NodeSpec::internal("C", NodeKind::Min, leaves(&[3.0, 3.0])));
        let tree = builder.build().unwrap();
        let settings = SearchSettings::new(Algorithm::AlphaBeta);
        let minimax = search(&tree, &SearchSettings::new(Algorithm::Minimax)).unwrap();
        let action = minimax.action.map(|child| tree.action(child));
        let trace = StudentTrace { value: minimax.value, action, visited: &minimax.visited };
        let diagnosis = diagnose(&tree, &settings, &trace).expect("a diagnosis");
        let mut named = vec![diagnosis.bug];
        named.extend(&diagnosis.alternatives);
        named.sort();
        assert_eq!(named, ["no-pruning", "prune-on-equal"]);
        assert!(diagnosis.explanation.starts_with("your trace fits more than one mistake: either "), "{diagnosis:?}");
        assert!(diagnosis.explanation.contains("; or "), "{diagnosis:?}");
    }
}
