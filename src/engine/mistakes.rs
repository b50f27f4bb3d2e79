//! The classic mistakes of students, as variants of the reference search.
//!
//! Each [`Candidate`] is a mistake the engine can reproduce on purpose (a
//! [`Quirks`] flag or other settings). The grader's diagnosis runs them to
//! name a failing student's bug by its trace; the generator uses
//! [`undetected_mistakes`] to keep only trees on which every one of them
//! shows.

use super::{Algorithm, Quirks, SearchSettings, search_with_quirks, values_match};
use crate::tree::Tree;

/// A known mistake: how the reference reproduces it, and how to explain it.
#[derive(Clone, Debug)]
pub struct Candidate {
    /// A stable name for the mistake.
    pub bug: &'static str,
    /// The settings the mistaken search runs with.
    pub settings: SearchSettings,
    /// The quirks it runs with.
    pub quirks: Quirks,
    /// What the student did and what to do instead.
    pub explanation: String,
}

/// How many known mistakes produce exactly the reference's result on this
/// tree (so a student making them would pass it): 0 for a tree that catches
/// every one of them.
pub fn undetected_mistakes(tree: &Tree, settings: &SearchSettings) -> usize {
    let Ok(reference) = search_with_quirks(tree, settings, Quirks::default()) else { return 0 };
    candidates(tree, settings)
        .iter()
        .filter(|candidate| {
            search_with_quirks(tree, &candidate.settings, candidate.quirks).is_ok_and(|outcome| {
                outcome.visited == reference.visited
                    && values_match(outcome.value, reference.value)
                    && outcome.action == reference.action
            })
        })
        .count()
}

/// The mistakes that make sense for these settings, most specific first.
pub fn candidates(tree: &Tree, settings: &SearchSettings) -> Vec<Candidate> {
    let quirk = |bug, quirks, explanation: &str| Candidate {
        bug,
        settings: *settings,
        quirks,
        explanation: explanation.to_string(),
    };
    let setting =
        |bug, settings, explanation: String| Candidate { bug, settings, quirks: Quirks::default(), explanation };
    let mut list = Vec::new();
    if settings.algorithm == Algorithm::AlphaBeta {
        let flipped = SearchSettings { prune_on_equal: !settings.prune_on_equal, ..*settings };
        let explanation = if settings.prune_on_equal {
            "your trace is what alpha-beta gives when it prunes only on strict inequality (v > beta); \
             this assignment also prunes on equality (v >= beta at a max node, v <= alpha at a min node)"
        } else {
            "your trace is what alpha-beta gives when it prunes on equality (v >= beta); \
             this assignment prunes only when v > beta at a max node (v < alpha at a min node)"
        };
        list.push(setting("prune-on-equal", flipped, explanation.to_string()));
        let full = if tree.has_chance_nodes() { Algorithm::Expectimax } else { Algorithm::Minimax };
        list.push(setting(
            "no-pruning",
            SearchSettings { algorithm: full, ..*settings },
            "no pruning at all: this is plain minimax; stop searching a node's children once its value \
             passes the bound"
                .to_string(),
        ));
    }
    if settings.algorithm == Algorithm::Minimax {
        for prune_on_equal in [true, false] {
            list.push(setting(
                "prunes-in-minimax",
                SearchSettings { algorithm: Algorithm::AlphaBeta, prune_on_equal, ..*settings },
                "you prune: this is alpha-beta, but this question asks for plain minimax, which searches \
                 every child"
                    .to_string(),
            ));
        }
    }
    list.push(quirk(
        "reverse-children",
        Quirks { reverse_children: true, ..Quirks::default() },
        "you search children in reverse order; search them in the order the game lists them",
    ));
    list.push(quirk(
        "eager-children",
        Quirks { eager_children: true, ..Quirks::default() },
        "you evaluate every child before recursing: you look at all children of a node (with is_terminal, \
         player or utility) before searching the first; look at a child only when you search it",
    ));
    if tree.has_chance_nodes() {
        list.push(quirk(
            "ignore-probabilities",
            Quirks { uniform_chance: true, ..Quirks::default() },
            "your chance node ignores the probabilities: weight each child's value by its probability \
             instead of averaging",
        ));
    }
    list.push(quirk(
        "first-best-last",
        Quirks { last_best_at_root: true, ..Quirks::default() },
        "ties at the root go to your last best action; when actions tie, the first in order should win",
    ));
    if let Some(depth) = settings.depth {
        list.push(setting(
            "depth-too-deep",
            SearchSettings { depth: Some(depth + 1), ..*settings },
            format!(
                "your depth limit is one ply too deep: with depth {depth}, evaluate the nodes at ply {depth} \
                 (the root is ply 0) instead of searching their children"
            ),
        ));
        if depth > 0 {
            list.push(setting(
                "depth-too-shallow",
                SearchSettings { depth: Some(depth - 1), ..*settings },
                format!(
                    "your depth limit is one ply too shallow: with depth {depth}, search down to ply {depth} \
                     and evaluate there (the root is ply 0)"
                ),
            ));
        }
    }
    list
}
