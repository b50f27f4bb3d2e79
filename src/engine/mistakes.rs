//! The classic mistakes of students, as variants of the reference search.
//!
//! Each [`Candidate`] is a mistake the [`variant`] search reproduces on
//! purpose (a [`Slips`] switch or other settings). The grader's diagnosis runs them to
//! name a failing student's bug by its trace; the generator uses
//! [`undetected_mistakes`] to keep only trees on which every one of them
//! shows.

use super::variant::{
    self, Alternation, BeyondSlip, ChanceSlip, DepthSlip, EvalSlip, OrderingSlip, Slips, VariantOutcome, WindowSlip,
};
use super::{Algorithm, SearchSettings, search, values_match};
use crate::tree::{GameTree, NodeIndex, NodeKind, Tree};

/// A known mistake: how the variant search reproduces it, and how to explain it.
#[derive(Clone, Debug)]
pub struct Candidate {
    /// A stable name for the mistake.
    pub bug: &'static str,
    /// What the student does, the same on every test: `bug`, or `bug` and
    /// the convention where the bug's name alone does not say it (a student
    /// who always prunes on equality fails only where a tree asks for the
    /// strict convention, and passes the others).
    pub key: &'static str,
    /// The settings the mistaken search runs with.
    pub settings: SearchSettings,
    /// The mistakes it runs with.
    pub slips: Slips,
    /// What the student did and what to do instead.
    pub explanation: String,
    /// One of the first nine mistakes, which the generator's
    /// `--discriminating` trees must each expose.
    pub classic: bool,
    /// The mistake whose trace this one always reproduces, node for node
    /// (two ways of writing one search): named together, they count as one
    /// toward the most a diagnosis names.
    pub same_trace_as: Option<&'static str>,
    /// The behaviour this mistake shares with others that always leave the
    /// same trace (a [`BEHAVIOURS`] id), and the code shape by which this
    /// one produces it: when several fit, the diagnosis names the
    /// behaviour and lists the shapes, and claims none of them.
    pub behaviour: Option<(&'static str, &'static str)>,
}

/// Behaviours that several mistakes produce alike, trace for trace: an id,
/// the narrower behaviours it includes (what a test that shows only part of
/// it can still confirm), and what the search does, in a student's words.
pub const BEHAVIOURS: &[(&str, &[&str], &str)] = &[
    (
        "never-prunes",
        &[],
        "your alpha-beta never prunes: it searches every child, as plain minimax does; stop searching a \
         node's children once its value passes the bound, and give each child the window its earlier \
         siblings tightened (a max node raises alpha, a min node lowers beta)",
    ),
    (
        "window-never-tightens-below-root",
        &["max-window-never-tightens-below-root", "min-window-never-tightens-below-root"],
        "alpha and beta never tighten below the root: every node below it prunes only against the window \
         its parent passed down, and does not raise alpha (at a max node) or lower beta (at a min node) as \
         its children return their values, so later children get a window that is too wide",
    ),
    (
        "max-window-never-tightens-below-root",
        &[],
        "your max nodes below the root never raise alpha as their children return their values: they prune \
         only against the window their parent passed down, so their later children get a window that is \
         too wide; a max node raises alpha (alpha = max(alpha, v)) after each child",
    ),
    (
        "min-window-never-tightens-below-root",
        &[],
        "your min nodes below the root never lower beta as their children return their values: they prune \
         only against the window their parent passed down, so their later children get a window that is \
         too wide; a min node lowers beta (beta = min(beta, v)) after each child",
    ),
    (
        "prunes-on-equal",
        &["max-prunes-on-equal", "min-prunes-on-equal"],
        "your search prunes on equality (v >= beta at a max node, v <= alpha at a min node), but this test \
         has game.prune_on_equal false: prune only when v > beta at a max node, v < alpha at a min node",
    ),
    (
        "prunes-strictly",
        &["max-prunes-strictly", "min-prunes-strictly"],
        "your search prunes only on strict inequality (v > beta, v < alpha), but this test has \
         game.prune_on_equal true: prune when v >= beta at a max node, v <= alpha at a min node",
    ),
    (
        "max-prunes-on-equal",
        &[],
        "your max nodes prune on equality (v >= beta), but this test has game.prune_on_equal false: a max \
         node prunes only when v > beta",
    ),
    (
        "min-prunes-on-equal",
        &[],
        "your min nodes prune on equality (v <= alpha), but this test has game.prune_on_equal false: a min \
         node prunes only when v < alpha",
    ),
    (
        "max-prunes-strictly",
        &[],
        "your max nodes prune only when v > beta, but this test has game.prune_on_equal true: a max node \
         prunes when v >= beta",
    ),
    (
        "min-prunes-strictly",
        &[],
        "your min nodes prune only when v < alpha, but this test has game.prune_on_equal true: a min node \
         prunes when v <= alpha",
    ),
];

/// What a behaviour of [`BEHAVIOURS`] does (`None` for an unknown id).
pub fn behaviour(id: &str) -> Option<&'static str> {
    BEHAVIOURS.iter().find(|(known, _, _)| *known == id).map(|(_, _, text)| *text)
}

/// A behaviour and the narrower ones it includes, broadest first.
pub fn behaviour_and_parts(id: &'static str) -> Vec<&'static str> {
    let parts = BEHAVIOURS.iter().find(|(known, _, _)| *known == id).map_or(&[][..], |(_, parts, _)| *parts);
    std::iter::once(id).chain(parts.iter().copied()).collect()
}

impl Candidate {
    /// The trace a student making this mistake produces, if the mistake
    /// lets the search finish on this tree.
    pub fn run(&self, tree: &(impl GameTree + ?Sized)) -> Option<VariantOutcome> {
        variant::search(tree, &self.settings, self.slips).ok()
    }
}

/// How many classic mistakes produce exactly the reference's result on this
/// tree (so a student making them would pass it): 0 for a tree that catches
/// every one of them.
pub fn undetected_mistakes(tree: &Tree, settings: &SearchSettings) -> usize {
    passing_mistakes(tree, settings).len()
}

/// The classic mistakes (their keys, e.g. `first-best-last`) that produce
/// exactly the reference's value, action and visited order on this tree: a
/// student making one of them would pass it.
pub fn passing_mistakes(tree: &Tree, settings: &SearchSettings) -> Vec<&'static str> {
    let Ok(reference) = search(tree, settings) else { return Vec::new() };
    candidates(tree, settings)
        .iter()
        .filter(|candidate| candidate.classic)
        .filter(|candidate| {
            candidate.run(tree).is_some_and(|outcome| {
                outcome.visited == reference.visited
                    && values_match(outcome.value, reference.value)
                    && outcome.action == reference.action
            })
        })
        .map(|candidate| candidate.key)
        .collect()
}

/// The mistakes that make sense for these settings, most specific first.
/// (A course's own mistakes, CS188's, are listed where its tests are
/// imported: `import::cs188_mistakes`.)
pub fn candidates(tree: &dyn GameTree, settings: &SearchSettings) -> Vec<Candidate> {
    if !settings.algorithm.is_classic() {
        return beyond_mistakes(settings);
    }
    let mut list = classic(tree, settings);
    list.extend(window_mistakes(settings));
    list.extend(turn_mistakes(tree, settings));
    list.extend(depth_mistakes(tree, settings));
    list.extend(chance_mistakes(tree, settings));
    list.extend(convention_mistakes(settings));
    list.extend(eval_mistakes(settings));
    list.extend(ordering_mistakes(settings));
    list.extend(forward_mistakes(settings));
    let halves: Vec<Candidate> = list.iter().flat_map(at_one_kind_only).collect();
    list.extend(halves);
    let twins: Vec<Candidate> = list.iter().filter_map(below_the_root).collect();
    list.extend(twins);
    list
}

/// The mistake in `max_value` only, or in `min_value` only (the variants
/// of a mistake that a student may make in one of the two).
pub fn at_one_kind_only(candidate: &Candidate) -> Vec<Candidate> {
    let keys = match candidate.key {
        "eager-children" => ["eager-children/max", "eager-children/min"],
        "swapped-updates" => ["swapped-updates/max", "swapped-updates/min"],
        "swapped-window-arguments" => ["swapped-window-arguments/max", "swapped-window-arguments/min"],
        "swapped-window-arguments/declared" => {
            ["swapped-window-arguments/declared/max", "swapped-window-arguments/declared/min"]
        }
        "swapped-updates/widening" => ["swapped-updates/widening/max", "swapped-updates/widening/min"],
        "window-never-tightened" => ["window-never-tightened/max", "window-never-tightened/min"],
        _ => return Vec::new(),
    };
    [NodeKind::Max, NodeKind::Min]
        .into_iter()
        .zip(keys)
        .map(|(kind, key)| {
            let slips = if candidate.slips.eager_children {
                Slips { eager_only_at: Some(kind), ..candidate.slips }
            } else {
                Slips { window_only_at: Some(kind), ..candidate.slips }
            };
            Candidate { key, slips, same_trace_as: None, behaviour: None, ..candidate.clone() }
        })
        .collect()
}

/// The same mistake made below the root only, by a student whose root has
/// a loop of its own; `None` where that changes nothing (the variants of a
/// mistake that a student may make below the root only).
pub fn below_the_root(candidate: &Candidate) -> Option<Candidate> {
    let key = match candidate.key {
        "swapped-updates" => "swapped-updates/below-root",
        "swapped-window-arguments" => "swapped-window-arguments/below-root",
        "strict-alternation" => "strict-alternation/below-root",
        "reverse-children" => "reverse-children/below-root",
        "reverse-children/choice-nodes" => "reverse-children/choice-nodes/below-root",
        "eager-children" => "eager-children/below-root",
        "eager-children/max" => "eager-children/max/below-root",
        "eager-children/min" => "eager-children/min/below-root",
        "swapped-updates/max" => "swapped-updates/max/below-root",
        "swapped-updates/min" => "swapped-updates/min/below-root",
        "swapped-window-arguments/max" => "swapped-window-arguments/max/below-root",
        "swapped-window-arguments/min" => "swapped-window-arguments/min/below-root",
        "swapped-window-arguments/declared" => "swapped-window-arguments/declared/below-root",
        "swapped-window-arguments/declared/max" => "swapped-window-arguments/declared/max/below-root",
        "swapped-window-arguments/declared/min" => "swapped-window-arguments/declared/min/below-root",
        "swapped-updates/widening" => "swapped-updates/widening/below-root",
        "min-as-chance" => "min-as-chance/below-root",
        "eager-children/terminals-first" => "eager-children/terminals-first/below-root",
        "chance-as-max" => "chance-as-max/below-root",
        "chance-as-min" => "chance-as-min/below-root",
        "chance-as-max/node" => "chance-as-max/node/below-root",
        "chance-as-min/node" => "chance-as-min/node/below-root",
        "ignore-probabilities" => "ignore-probabilities/below-root",
        "expectation-divided" => "expectation-divided/below-root",
        "swapped-updates/widening/max" => "swapped-updates/widening/max/below-root",
        "swapped-updates/widening/min" => "swapped-updates/widening/min/below-root",
        "window-never-tightened" => "window-never-tightened/below-root",
        "window-never-tightened/max" => "window-never-tightened/max/below-root",
        "window-never-tightened/min" => "window-never-tightened/min/below-root",
        _ => return None,
    };
    // The below-root twins of a window that widens and of one never
    // updated leave one trace: a window that never tightens below the root.
    let behaviour = match key {
        "window-never-tightened/below-root" => Some((WINDOW_BELOW_ROOT, NEVER_UPDATED_BELOW_ROOT)),
        "swapped-updates/widening/below-root" => Some((WINDOW_BELOW_ROOT, WIDENING)),
        "window-never-tightened/max/below-root" => Some(("max-window-never-tightens-below-root", NEVER_UPDATED_AT_MAX)),
        "window-never-tightened/min/below-root" => Some(("min-window-never-tightens-below-root", NEVER_UPDATED_AT_MIN)),
        "swapped-updates/widening/max/below-root" => Some(("max-window-never-tightens-below-root", WIDENING_AT_MAX)),
        "swapped-updates/widening/min/below-root" => Some(("min-window-never-tightens-below-root", WIDENING_AT_MIN)),
        _ => None,
    };
    Some(Candidate {
        key,
        slips: Slips { spare_root: true, ..candidate.slips },
        same_trace_as: None,
        behaviour,
        ..candidate.clone()
    })
}

/// The behaviour of a window that never tightens below the root.
const WINDOW_BELOW_ROOT: &str = "window-never-tightens-below-root";
/// The shape of code that never updates the window below the root.
const NEVER_UPDATED_BELOW_ROOT: &str = "max_value and min_value never update alpha or beta (only the root's own \
     loop tightens its bound)";
/// The shapes of code that never updates the window at one kind of node.
const NEVER_UPDATED_AT_MAX: &str = "max_value never updates alpha";
const NEVER_UPDATED_AT_MIN: &str = "min_value never updates beta";
/// The shapes of code whose update at one kind of node moves the other bound away.
const WIDENING_AT_MAX: &str = "max_value updates beta instead of alpha, widening it (beta = max(beta, v))";
const WIDENING_AT_MIN: &str = "min_value updates alpha instead of beta, widening it (alpha = min(alpha, v))";
/// The shape of code whose updates move the other bound away.
const WIDENING: &str = "the two updates swapped in a way that widens the window (beta = max(beta, v) at a max \
     node, alpha = min(alpha, v) at a min node)";

/// A candidate with the question's settings and one slip.
fn slip(bug: &'static str, settings: &SearchSettings, slips: Slips, explanation: &str) -> Candidate {
    Candidate {
        bug,
        key: bug,
        settings: *settings,
        slips,
        explanation: explanation.to_string(),
        classic: false,
        same_trace_as: None,
        behaviour: None,
    }
}

/// Mistakes in carrying alpha-beta's window.
pub fn window_mistakes(settings: &SearchSettings) -> Vec<Candidate> {
    if !settings.algorithm.window_per_node() {
        return Vec::new();
    }
    let window = |window| Slips { window, ..Slips::default() };
    vec![
        slip(
            "root-window-not-updated",
            settings,
            window(WindowSlip::RootNotUpdated),
            "at the root you search every child with the full window (-inf, +inf): carry the root's window \
             from child to child as at any other node (raise alpha at a max root, lower beta at a min root)",
        ),
        slip(
            "swapped-updates",
            settings,
            window(WindowSlip::SwappedUpdates),
            "your max nodes lower beta and your min nodes raise alpha: it is the other way round, a max node \
             raises alpha (alpha = max(alpha, v)) and a min node lowers beta (beta = min(beta, v))",
        ),
        slip(
            "swapped-window-arguments",
            settings,
            window(WindowSlip::SwappedArguments),
            "you pass alpha and beta to the recursive call in swapped order: pass them in the order your \
             function takes them, (alpha, beta)",
        ),
        Candidate {
            key: "swapped-window-arguments/declared",
            ..slip(
                "swapped-window-arguments",
                settings,
                window(WindowSlip::SwappedParameters),
                "a function of your search takes its window in one order and is called with it in the other \
                 (declared (beta, alpha), called with (alpha, beta), say), so it reads alpha as beta: declare \
                 and pass the bounds in the same order",
            )
        },
        Candidate {
            key: "swapped-updates/widening",
            same_trace_as: Some("no-pruning"),
            behaviour: Some(("never-prunes", WIDENING)),
            ..slip(
                "swapped-updates",
                settings,
                window(WindowSlip::SwappedUpdatesWidening),
                "your max nodes update beta and your min nodes alpha (beta = max(beta, v), alpha = min(alpha, \
                 v)), which never tightens the window, so nothing is pruned: a max node raises alpha (alpha = \
                 max(alpha, v)) and a min node lowers beta (beta = min(beta, v))",
            )
        },
        Candidate {
            same_trace_as: Some("no-pruning"),
            behaviour: Some(("never-prunes", "alpha and beta never updated, not even at the root")),
            ..slip(
                "window-never-tightened",
                settings,
                window(WindowSlip::NeverTightened),
                "your search never updates alpha or beta: a max node must raise alpha (alpha = max(alpha, v)) \
                 and a min node lower beta (beta = min(beta, v)) after each child, so that the later children \
                 get the tightened window",
            )
        },
    ]
}

/// Mistakes in deciding whose turn it is.
fn turn_mistakes(tree: &dyn GameTree, settings: &SearchSettings) -> Vec<Candidate> {
    let with = |bug, slips, explanation: &str| slip(bug, settings, slips, explanation);
    let mut list = vec![
        with(
            "strict-alternation",
            Slips { strict_alternation: true, ..Slips::default() },
            "you decide whose turn it is by depth (MAX, MIN, MAX, ...) instead of asking game.player(node); \
             this tree does not alternate (a MIN root, or several MIN levels in a row, as with two ghosts): \
             ask each node's player",
        ),
        Candidate {
            key: "strict-alternation/from-root",
            ..with(
                "strict-alternation",
                Slips { strict_alternation: true, alternation: Alternation::RootAtEven, ..Slips::default() },
                "you decide whose turn it is by alternating from the root's player at every level (a flag \
                 flipped on the way down, or the ply's parity) instead of asking game.player(node); this \
                 tree does not alternate (several MIN levels in a row, as with two ghosts, or a chance \
                 level between turns): ask each node's player",
            )
        },
        Candidate {
            key: "strict-alternation/from-root/chance-as-min",
            ..with(
                "strict-alternation",
                Slips { strict_alternation: true, alternation: Alternation::RootAtEvenChanceAsMin, ..Slips::default() },
                "you decide whose turn it is by alternating from the root's player at every level (a flag \
                 flipped on the way down, or the ply's parity) instead of asking game.player(node); this \
                 tree does not alternate (several MIN levels in a row, as with two ghosts, or a chance \
                 level between turns): ask each node's player",
            )
        },
    ];
    if settings.algorithm.models_chance() {
        list.push(with(
            "min-as-chance",
            Slips { min_as_chance: true, ..Slips::default() },
            "your MIN nodes average their children, as chance nodes do (ghosts taken to move at random): a \
             MIN node takes its least child's value; only chance nodes average, weighted by their \
             probabilities",
        ));
    }
    if tree.kind(NodeIndex(0)) == NodeKind::Min {
        list.push(with(
            "min-root-as-max",
            Slips { root_as_max: true, ..Slips::default() },
            "you search the root as a MAX node, but this root is a MIN node: ask game.player(root), and at a \
             MIN root choose the least value",
        ));
    }
    list
}

/// Mistakes in counting plies for the depth limit.
pub fn depth_mistakes(tree: &dyn GameTree, settings: &SearchSettings) -> Vec<Candidate> {
    if settings.depth.is_none() {
        return vec![slip(
            "iterative-deepening",
            settings,
            Slips { iterative_deepening: true, ..Slips::default() },
            "your search runs shallower searches first (depth 1, 2, ...) before the full one: the grader \
             sees every node those searches enter; run one search",
        )];
    }
    let depth = |depth| Slips { depth, ..Slips::default() };
    let mut list = vec![
        slip(
            "depth-in-rounds",
            settings,
            depth(DepthSlip::Rounds),
            "you count the depth limit in rounds of all agents (MAX and every MIN after it, as in Pacman); \
             this assignment counts plies: every level is one ply, whoever moves (the root is ply 0)",
        ),
        slip(
            "iterative-deepening",
            settings,
            Slips { iterative_deepening: true, ..Slips::default() },
            "your search runs shallower searches first (depth 1, 2, ...) before the one the test asks for: \
             the grader sees every node those searches enter; run one search, to the depth the test gives",
        ),
    ];
    list.push(slip(
        "depth-ignored",
        settings,
        depth(DepthSlip::Ignored),
        "your search does not stop at the depth limit: it goes on below the nodes at the limit down to the \
         terminals; at a node at ply game.depth (the root is ply 0) return game.evaluate(node), and mind a \
         limit of 0, which cuts at the root (a test such as `if depth and ...` reads 0 as no limit)",
    ));
    if settings.depth == Some(0) {
        list.push(Candidate {
            key: "depth-ignored/zero-as-none",
            ..slip(
                "depth-ignored",
                settings,
                depth(DepthSlip::ZeroIsNone),
                "your search reads a depth limit of 0 as no limit (a test such as `if depth and ply == depth` \
                 is false for 0), so it searches below the root: with depth 0 the root itself is at the cut, \
                 and its value is game.evaluate(root); compare the depth with `is None` or `== 0`, not by its \
                 truth",
            )
        });
    }
    if tree.has_chance_nodes() {
        list.push(slip(
            "chance-not-a-ply",
            settings,
            depth(DepthSlip::ChanceNotAPly),
            "a chance level does not count as a ply in your search: every level counts, chance levels \
             too, so a node's ply is its distance from the root",
        ));
    }
    list
}

/// Pruning conventions mixed: one kind of node prunes by a convention of
/// its own whatever the test says, or the two kinds by opposite ones; and
/// the test's convention read the wrong way round.
pub fn convention_mistakes(settings: &SearchSettings) -> Vec<Candidate> {
    if !settings.algorithm.window_per_node() {
        return Vec::new();
    }
    let rule = |node: &str, on_equal: bool| match (node, on_equal) {
        ("max", true) => "a max node prunes when v >= beta",
        ("max", false) => "a max node prunes only when v > beta",
        ("min", true) => "a min node prunes when v <= alpha",
        _ => "a min node prunes only when v < alpha",
    };
    let right = "both kinds follow game.prune_on_equal: v >= beta at a max node and v <= alpha at a min node when \
                 it is true, v > beta and v < alpha when it is false";
    let mut list = Vec::new();
    for (key, max, min) in [
        ("mixed-convention/max-strict", Some(false), None),
        ("mixed-convention/max-equal", Some(true), None),
        ("mixed-convention/min-strict", None, Some(false)),
        ("mixed-convention/min-equal", None, Some(true)),
        ("mixed-convention/max-strict-min-equal", Some(false), Some(true)),
        ("mixed-convention/max-equal-min-strict", Some(true), Some(false)),
    ] {
        let fixed: Vec<String> = [("max", max), ("min", min)]
            .into_iter()
            .filter_map(|(node, convention)| convention.map(|on_equal| rule(node, on_equal).to_string()))
            .collect();
        let explanation = format!(
            "in your search {} whatever game.prune_on_equal says (this test has it {}): {right}",
            fixed.join(" and "),
            settings.prune_on_equal
        );
        let slips = Slips { max_convention: max, min_convention: min, ..Slips::default() };
        list.push(Candidate {
            key,
            behaviour: convention_behaviour(settings.prune_on_equal, max, min).map(|id| (id, mixed_shape(key))),
            ..slip("mixed-convention", settings, slips, &explanation)
        });
    }
    let inverted = SearchSettings { prune_on_equal: !settings.prune_on_equal, ..*settings };
    list.push(Candidate {
        key: "prune-on-equal/inverted",
        behaviour: Some((both_wrong(settings.prune_on_equal), "game.prune_on_equal read the wrong way round")),
        ..slip(
            "prune-on-equal",
            &inverted,
            Slips::default(),
            &format!(
                "you read game.prune_on_equal the wrong way round: this test has it {}, so {} and {}",
                settings.prune_on_equal,
                rule("max", settings.prune_on_equal),
                rule("min", settings.prune_on_equal)
            ),
        )
    });
    list
}

/// What a search whose max and min nodes prune by these conventions (`None`:
/// the test's) shows on a test with `prune_on_equal`: the behaviour of the
/// kinds that depart from it (`None` where neither does).
fn convention_behaviour(prune_on_equal: bool, max: Option<bool>, min: Option<bool>) -> Option<&'static str> {
    let max_wrong = max.is_some_and(|on_equal| on_equal != prune_on_equal);
    let min_wrong = min.is_some_and(|on_equal| on_equal != prune_on_equal);
    match (max_wrong, min_wrong, prune_on_equal) {
        (true, true, _) => Some(both_wrong(prune_on_equal)),
        (true, false, true) => Some("max-prunes-strictly"),
        (true, false, false) => Some("max-prunes-on-equal"),
        (false, true, true) => Some("min-prunes-strictly"),
        (false, true, false) => Some("min-prunes-on-equal"),
        (false, false, _) => None,
    }
}

/// The behaviour of a search whose max and min nodes both prune by the
/// other convention than the test's.
fn both_wrong(prune_on_equal: bool) -> &'static str {
    if prune_on_equal { "prunes-strictly" } else { "prunes-on-equal" }
}

/// The code shape of a mixed convention, by its key.
fn mixed_shape(key: &str) -> &'static str {
    match key {
        "mixed-convention/max-strict" => {
            "max nodes always prune only when v > beta, min nodes as game.prune_on_equal says"
        }
        "mixed-convention/max-equal" => "max nodes always prune when v >= beta, min nodes as game.prune_on_equal says",
        "mixed-convention/min-strict" => {
            "min nodes always prune only when v < alpha, max nodes as game.prune_on_equal says"
        }
        "mixed-convention/min-equal" => "min nodes always prune when v <= alpha, max nodes as game.prune_on_equal says",
        "mixed-convention/max-strict-min-equal" => "max nodes always prune when v > beta and min nodes when v <= alpha",
        _ => "max nodes always prune when v >= beta and min nodes when v < alpha",
    }
}

/// Mistakes in reading the evaluation at the depth cut, which is in MAX's
/// view whoever is to move.
pub fn eval_mistakes(settings: &SearchSettings) -> Vec<Candidate> {
    if settings.depth.is_none() {
        return Vec::new();
    }
    let eval = |eval| Slips { eval, ..Slips::default() };
    vec![
        slip(
            "eval-mover-view",
            settings,
            eval(EvalSlip::MoverView),
            "at the depth cut you negate game.evaluate(node) where MIN is to move, as if it were the mover's \
             score: the evaluation is already in MAX's view at every node, so use it as it is",
        ),
        Candidate {
            key: "eval-mover-view/chance-as-min",
            ..slip(
                "eval-mover-view",
                settings,
                eval(EvalSlip::NotMaxView),
                "at the depth cut you negate game.evaluate(node) wherever MAX is not to move (at MIN's nodes and \
                 at chance nodes), as if it were the mover's score: the evaluation is already in MAX's view at \
                 every node, so use it as it is",
            )
        },
        slip(
            "eval-wrong-player",
            settings,
            eval(EvalSlip::Negated),
            "at the depth cut you take the evaluation for the other side (-game.evaluate(node)): it is \
             already in MAX's view, the view of every value your search compares, so use it as it is",
        ),
    ]
}

/// Mistakes in ordering the children by static value (docs/format.md 8.1).
pub fn ordering_mistakes(settings: &SearchSettings) -> Vec<Candidate> {
    // Under forward pruning a wrong order also picks the wrong children:
    // `forward_mistakes` names those.
    if settings.move_ordering != crate::engine::MoveOrdering::Eval || settings.forward_pruning.is_some() {
        return Vec::new();
    }
    let order = |ordering| Slips { ordering, ..Slips::default() };
    let right = "at a max node greatest static value first, at a min node least first, equal values keeping \
                 the game's order (a stable sort on the value alone)";
    let with = |bug, ordering, wrong: &str| slip(bug, settings, order(ordering), &format!("{wrong}: {right}"));
    vec![
        with(
            "ordering-ascending-at-max",
            OrderingSlip::AscendingEverywhere,
            "you sort every node's children least static value first, which is right at a min node only; a \
             max node searches its greatest first",
        ),
        with(
            "ordering-descending-at-min",
            OrderingSlip::DescendingEverywhere,
            "you sort every node's children greatest static value first, which is right at a max node only; \
             a min node searches its least first",
        ),
        with(
            "ordering-root-only",
            OrderingSlip::RootOnly,
            "you sort the root's children by static value, but below the root you search the children in \
             the game's order: every max and min node above the depth cut sorts its children",
        ),
        with(
            "ordering-tuple-ties",
            OrderingSlip::TupleTies,
            "you sort by (static value, action) pairs, so children of equal value are ordered by their \
             actions rather than kept in the game's order",
        ),
        Candidate {
            key: "ordering-tuple-ties/ascending-actions",
            ..with(
                "ordering-tuple-ties",
                OrderingSlip::TupleTiesAscending,
                "you sort by (value, action) pairs (the value negated at a max node), so children of equal \
                 value are ordered by their actions rather than kept in the game's order",
            )
        },
        with(
            "ordering-action-from-unsorted",
            OrderingSlip::ActionFromUnsorted,
            "you search the root's children sorted by static value, but return the action at the best \
             child's position in the unsorted list (game.successors(root)): return the action of the child \
             you searched",
        ),
    ]
}

/// Mistakes in forward pruning (docs/format.md 8.5): no cut at all, the N
/// greatest taken at a MIN node, and the cut made at the depth cut too.
pub fn forward_mistakes(settings: &SearchSettings) -> Vec<Candidate> {
    let Some(n) = settings.forward_pruning else { return Vec::new() };
    let uncut = |move_ordering| SearchSettings { forward_pruning: None, move_ordering, ..*settings };
    let right = format!(
        "search only the {n} best children of each max or min node above the depth cut by static value \
         (game.static_values): at a max node the {n} greatest, at a min node the {n} least, equal values \
         keeping the game's order, and never enter the others"
    );
    let mut list = vec![
        slip(
            "no-forward-cut",
            &uncut(crate::engine::MoveOrdering::Eval),
            Slips::default(),
            &format!("you sort the children by static value but search all of them: {right}"),
        ),
        Candidate {
            key: "no-forward-cut/tree-order",
            ..slip(
                "no-forward-cut",
                &uncut(crate::engine::MoveOrdering::Tree),
                Slips::default(),
                &format!("you search every child in the game's order, as if game.forward_pruning were unset: {right}"),
            )
        },
        slip(
            "forward-greatest-at-min",
            settings,
            Slips { ordering: OrderingSlip::DescendingEverywhere, ..Slips::default() },
            &format!(
                "at a min node you keep the {n} children of greatest static value, as at a max node: MIN wants \
                 the least values, so a min node keeps its {n} least, least first"
            ),
        ),
    ];
    if settings.depth.is_some() {
        list.push(slip(
            "forward-cut-at-depth-cut",
            settings,
            Slips { forward_below_cut: true, ..Slips::default() },
            &format!(
                "at a node at the depth cut you look at its children to keep the {n} best and take the best of \
                 their values: a node at the depth cut is valued by its own evaluation (game.evaluate(node)), \
                 its children are never entered, and it is never cut forward; only the max and min nodes above \
                 the cut pick {n} children (by game.static_values)"
            ),
        ));
    }
    list
}

/// Mistakes in valuing chance nodes.
pub fn chance_mistakes(tree: &dyn GameTree, settings: &SearchSettings) -> Vec<Candidate> {
    if !tree.has_chance_nodes() {
        return Vec::new();
    }
    let chance = |chance| Slips { chance, ..Slips::default() };
    let mut list = vec![
        slip(
            "chance-as-max",
            settings,
            chance(ChanceSlip::AsMax),
            "your chance node takes its best child's value, as a MAX node would: a chance node's value is \
             the expectation, the sum of probability x value over its children",
        ),
        slip(
            "chance-as-min",
            settings,
            chance(ChanceSlip::AsMin),
            "your chance node takes its worst child's value, as a MIN node would: a chance node's value is \
             the expectation, the sum of probability x value over its children",
        ),
        slip(
            "expectation-divided",
            settings,
            chance(ChanceSlip::DividedByCount),
            "your chance node divides the expectation by the number of children: the sum of probability x \
             value is already the expectation (the probabilities add up to 1), do not divide it again",
        ),
    ];
    if settings.algorithm.window_per_node() {
        list.push(Candidate {
            key: "chance-as-max/node",
            ..slip(
                "chance-as-max",
                settings,
                chance(ChanceSlip::AsMaxNode),
                "your search treats a chance node as a MAX node (its best child's value, with alpha-beta's \
                 window and pruning): a chance node's value is the expectation, the sum of probability x \
                 value over all its children, each searched with the full window",
            )
        });
        list.push(Candidate {
            key: "chance-as-min/node",
            ..slip(
                "chance-as-min",
                settings,
                chance(ChanceSlip::AsMinNode),
                "your search treats a chance node as a MIN node (its worst child's value, with alpha-beta's \
                 window and pruning): a chance node's value is the expectation, the sum of probability x \
                 value over all its children, each searched with the full window",
            )
        });
        list.push(slip(
            "chance-gets-window",
            settings,
            Slips { chance_gets_window: true, ..Slips::default() },
            "under alpha-beta your chance nodes pass their (alpha, beta) window down: a chance node needs \
             the exact value of every child, so search each child with the full window (-inf, +inf)",
        ));
    }
    if tree.kind(NodeIndex(0)) == NodeKind::Chance {
        list.push(slip(
            "action-at-chance-root",
            settings,
            Slips { action_at_chance_root: true, ..Slips::default() },
            "your search returns an action at a chance root: nobody chooses at a chance node, so return \
             its value with no action (None)",
        ));
    }
    list
}

/// The mistakes of iterative deepening, max^n and MCTS (docs/format.md 8.2
/// to 8.4), each a [`BeyondSlip`] of their searches.
pub fn beyond_mistakes(settings: &SearchSettings) -> Vec<Candidate> {
    let beyond = |bug, key, mistake, explanation: &str| beyond(settings, bug, key, mistake, explanation);
    match settings.algorithm {
        Algorithm::IterativeDeepening => {
            let mut list = vec![
                beyond(
                    "id-tree-order-at-root",
                    "id-tree-order-at-root",
                    BeyondSlip::NoPreviousFirst,
                    "every iteration of yours searches the root's children in the tree's order: from the second \
                     iteration on, search first the child whose action the previous iteration chose, then the \
                     others in order (so that on a tie the previous choice stays)",
                ),
                beyond(
                    "id-no-early-stop",
                    "id-no-early-stop",
                    BeyondSlip::NoEarlyStop,
                    "you go on to deeper iterations after one that valued no node by game.evaluate: such an \
                     iteration reached only terminals, so it saw the whole tree and a deeper one would repeat \
                     it; stop there",
                ),
            ];
            if settings.budget.is_some() {
                list.push(beyond(
                    "id-keeps-cut-short-answer",
                    "id-keeps-cut-short-answer",
                    BeyondSlip::KeepsCutShortAnswer,
                    "when the budget runs out you return what the interrupted iteration had found so far: an \
                     iteration cut short counts for nothing, return the answer of the last iteration that \
                     finished (keep the iteration's best move apart until the iteration ends)",
                ));
            }
            list.extend(deepening_conventions(settings));
            list
        }
        Algorithm::Maxn => maxn_mistakes(settings),
        Algorithm::Mcts => mcts_mistakes(settings),
        Algorithm::Minimax | Algorithm::AlphaBeta | Algorithm::Expectimax => Vec::new(),
    }
}

/// A candidate of docs/format.md section 8 with one [`BeyondSlip`].
fn beyond(
    settings: &SearchSettings,
    bug: &'static str,
    key: &'static str,
    mistake: BeyondSlip,
    explanation: &str,
) -> Candidate {
    Candidate { key, ..slip(bug, settings, Slips { beyond: mistake, ..Slips::default() }, explanation) }
}

/// Iterative deepening's pruning conventions, each a key of its own (what
/// the student does, the same on every test): never on equality, always on
/// equality, and the other convention at one kind of node only.
fn deepening_conventions(settings: &SearchSettings) -> Vec<Candidate> {
    let flipped = SearchSettings { prune_on_equal: !settings.prune_on_equal, ..*settings };
    let (key, convention) = if settings.prune_on_equal {
        (
            "prune-on-equal/never",
            "your iterations prune only on strict inequality (v > beta); this test also prunes on equality \
             (v >= beta at a max node, v <= alpha at a min node): prune on equality when game.prune_on_equal \
             is true",
        )
    } else {
        (
            "prune-on-equal/always",
            "your iterations prune on equality (v >= beta); this test prunes only when v > beta at a max \
             node (v < alpha at a min node): prune on equality only when game.prune_on_equal is true",
        )
    };
    let mut list = vec![Candidate { key, ..slip("prune-on-equal", &flipped, Slips::default(), convention) }];
    let (right_max, right_min, wrong_max, wrong_min) = if settings.prune_on_equal {
        ("v >= beta", "v <= alpha", "v > beta", "v < alpha")
    } else {
        ("v > beta", "v < alpha", "v >= beta", "v <= alpha")
    };
    let setting = settings.prune_on_equal;
    // One convention at one kind of node, the other at the other.
    let inverted = |node: &str, other: &str, right: &str, wrong: &str| {
        format!(
            "your {node} nodes prune by the other convention than your {other} nodes: with game.prune_on_equal \
             {setting}, as in this test, a {node} node prunes when {right} (you prune when {wrong}); the \
             two go together, v >= beta at a max node with v <= alpha at a min node when game.prune_on_equal \
             is true, v > beta with v < alpha when it is false"
        )
    };
    for (key, slip, explanation) in [
        (
            "prune-on-equal/inverted-at-max",
            BeyondSlip::ConventionInvertedAtMax,
            inverted("max", "min", right_max, wrong_max),
        ),
        (
            "prune-on-equal/inverted-at-min",
            BeyondSlip::ConventionInvertedAtMin,
            inverted("min", "max", right_min, wrong_min),
        ),
    ] {
        list.push(beyond(settings, "prune-on-equal", key, slip, &explanation));
    }
    list
}

/// The mistakes of max^n (docs/format.md 8.3).
fn maxn_mistakes(settings: &SearchSettings) -> Vec<Candidate> {
    let beyond = |bug, key, mistake, explanation: &str| beyond(settings, bug, key, mistake, explanation);
    let right = "players count from 1 and components from 0, so player i's component is vector[i - 1]";
    vec![
        beyond(
            "maxn-wrong-component",
            "maxn-wrong-component/first",
            BeyondSlip::FirstComponent,
            "every node of yours compares the children's first component, player 1's: at a node of player \
             i, compare component i (vector[i - 1]), the utility of the player who moves there",
        ),
        beyond(
            "maxn-wrong-component",
            "maxn-wrong-component/root",
            BeyondSlip::RootComponent,
            "every node of yours compares the component of the root's player: at a node of player i, \
             compare component i (vector[i - 1]), the utility of the player who moves there",
        ),
        beyond(
            "maxn-wrong-component",
            "maxn-wrong-component/by-ply",
            BeyondSlip::MoverByPly,
            "you take the player to move from the ply (player 1 at the root's ply, then player 2, ...), but \
             in this tree a player may move twice in a row or be skipped: ask game.player(node) at every node \
             and compare that player's component",
        ),
        beyond(
            "maxn-wrong-component",
            "maxn-wrong-component/by-ply-from-root",
            BeyondSlip::MoverByPlyFromRoot,
            "you take the player to move from the ply (the root's player, then the next one at each level), \
             but in this tree a player may move twice in a row or be skipped: ask game.player(node) at every \
             node and compare that player's component",
        ),
        beyond(
            "maxn-mover-off-by-one",
            "maxn-mover-off-by-one/before",
            BeyondSlip::ComponentBeforeMover,
            &format!(
                "at a node of player i you compare the previous player's component (vector[i - 2], which is \
                 player N's at player 1's nodes): {right}"
            ),
        ),
        beyond(
            "maxn-mover-off-by-one",
            "maxn-mover-off-by-one/after",
            BeyondSlip::ComponentAfterMover,
            &format!("at a node of player i you compare the next player's component (vector[i]): {right}"),
        ),
        beyond(
            "maxn-mover-off-by-one",
            "maxn-mover-off-by-one/after-wrapping",
            BeyondSlip::ComponentAfterMoverWrapping,
            &format!(
                "at a node of player i you compare the next player's component (vector[i % N], which is \
                 player 1's at player N's nodes): {right}"
            ),
        ),
        beyond(
            "maxn-mover-off-by-one",
            "maxn-mover-off-by-one/after-clamped",
            BeyondSlip::ComponentAfterMoverClamped,
            &format!(
                "at a node of player i you compare the next player's component (vector[i], and the last one \
                 at player N's nodes): {right}"
            ),
        ),
        beyond(
            "maxn-last-tie",
            "maxn-last-tie",
            BeyondSlip::LastOfEqual,
            "when children tie on the mover's component you keep the last of them (>=): keep the first, \
             replacing the best so far only when a child's component is strictly greater (>)",
        ),
        beyond(
            "ignore-probabilities",
            "ignore-probabilities/maxn",
            BeyondSlip::ChanceUniform,
            "your chance nodes ignore the probabilities (each child weighted 1/n): a chance node's vector is \
             the sum of p times each child's vector, with the p of game.probabilities(node)",
        ),
        beyond(
            "chance-as-max",
            "chance-as-max/maxn",
            BeyondSlip::ChanceAsPlayerOne,
            "your chance nodes choose a child as player 1 would (the greatest first component): nobody \
             chooses at a chance node; its vector is the sum of p times each child's vector, component by \
             component",
        ),
    ]
}

/// The mistakes of MCTS (docs/format.md 8.4).
fn mcts_mistakes(settings: &SearchSettings) -> Vec<Candidate> {
    let beyond = |bug, key, mistake, explanation: &str| beyond(settings, bug, key, mistake, explanation);
    let rollout = "a rollout at a max or min node of n children takes one draw r, even when n is 1, and goes \
                   to child number int(r * n), counted from 0";
    vec![
        beyond(
            "mcts-ucb-sign-not-flipped",
            "mcts-ucb-sign-not-flipped",
            BeyondSlip::UcbSignNotFlipped,
            "at a min node your UCB uses q = W/N, as at a max node: W is in MAX's view, so MIN prefers \
             the child with the least W/N; use q = -W/N at a min node",
        ),
        beyond(
            "mcts-ln-of-wrong-count",
            "mcts-ln-of-wrong-count/child",
            BeyondSlip::LnOfChildCount,
            "your UCB takes the logarithm of the child's N: the exploration term is c * sqrt(ln(N of the \
             node) / N of the child), the logarithm of the parent's visits",
        ),
        beyond(
            "mcts-ln-of-wrong-count",
            "mcts-ln-of-wrong-count/root",
            BeyondSlip::LnOfRootCount,
            "your UCB takes the logarithm of the root's N (the iterations so far) at every node: the \
             exploration term is c * sqrt(ln(N of the node) / N of the child), with the node being chosen from",
        ),
        beyond(
            "mcts-no-exploration",
            "mcts-no-exploration",
            BeyondSlip::NoExploration,
            "your selection has no exploration term (it ranks children by q alone): UCB is q + c * \
             sqrt(ln(N of the node) / N of the child), with c = game.exploration",
        ),
        beyond(
            "mcts-random-expansion",
            "mcts-random-expansion",
            BeyondSlip::RandomExpansion,
            "you pick an untried child at random (with a draw): expand the first child whose N is 0, in \
             the tree's order, without a draw",
        ),
        beyond(
            "mcts-rewards-wrong-side",
            "mcts-rewards-wrong-side",
            BeyondSlip::RewardsNegated,
            "you back up the rewards from MIN's side (negated), so MAX's q prefers MIN's outcomes and the \
             other way round: W is the sum of the rewards in MAX's view, the terminal's utility (or the \
             evaluation) as it is, with q = W/N at a max node and -W/N at a min node",
        ),
        beyond(
            "mcts-rewards-wrong-side",
            "mcts-rewards-wrong-side/min-root",
            BeyondSlip::RewardsNegatedAtMinRoot,
            "at a min root you back up the rewards negated (as the reward of the player to move at the \
             root), so every max node prefers MIN's outcomes and every min node MAX's: W is the sum of the \
             rewards in MAX's view whoever moves at the root, with q = W/N at a max node and -W/N at a min node",
        ),
        beyond(
            "mcts-rewards-wrong-side",
            "mcts-rewards-wrong-side/mover-view",
            BeyondSlip::WInMoversView,
            "your search is right, but the W you report for a min root's children are negated: you keep a \
             node's W in the view of the player who moved into it (MIN's below a min node); report each \
             child's W in MAX's view, the sum of the rewards as they are",
        ),
        beyond(
            "mcts-final-by-value",
            "mcts-final-by-value",
            BeyondSlip::FinalByValue,
            "you choose the final move by its value (W/N): UCT's answer is the root child with the greatest \
             N, the most visited (the first on ties)",
        ),
        beyond(
            "mcts-final-by-value",
            "mcts-final-by-value/naive",
            BeyondSlip::FinalByValueNaive,
            "you choose the final move by the greatest W/N (in MAX's view, even at a min root): UCT's answer \
             is the root child with the greatest N, the most visited (the first on ties)",
        ),
        beyond(
            "mcts-rollout-draw",
            "mcts-rollout-draw/single-child",
            BeyondSlip::RolloutNoDrawAtSingleChild,
            &format!("your rollout takes a node's only child without a draw: {rollout}"),
        ),
        beyond(
            "mcts-rollout-draw",
            "mcts-rollout-draw/rounded",
            BeyondSlip::RolloutRounded,
            &format!("your rollout goes to child number round(r * (n - 1)): {rollout}"),
        ),
        beyond(
            "mcts-rollout-draw",
            "mcts-rollout-draw/never-last",
            BeyondSlip::RolloutNeverLast,
            &format!(
                "your rollout goes to child number int(r * (n - 1)), which never reaches the last child: {rollout}"
            ),
        ),
    ]
}

/// The first nine mistakes: pruning conventions, pruning where there should
/// be none, children order, ties, probabilities, depth off by one.
pub fn classic(tree: &dyn GameTree, settings: &SearchSettings) -> Vec<Candidate> {
    let quirk = |bug, slips, explanation: &str| Candidate {
        bug,
        key: bug,
        settings: *settings,
        slips,
        explanation: explanation.to_string(),
        classic: true,
        same_trace_as: None,
        behaviour: None,
    };
    let setting = |bug, settings, explanation: String| Candidate {
        bug,
        key: bug,
        settings,
        slips: Slips::default(),
        explanation,
        classic: true,
        same_trace_as: None,
        behaviour: None,
    };
    let mut list = Vec::new();
    if let Some(full) = settings.algorithm.unpruned_form(tree.has_chance_nodes()) {
        let flipped = SearchSettings { prune_on_equal: !settings.prune_on_equal, ..*settings };
        let explanation = if settings.prune_on_equal {
            "your trace is what alpha-beta gives when it prunes only on strict inequality (v > beta); \
             this assignment also prunes on equality (v >= beta at a max node, v <= alpha at a min node)"
        } else {
            "your trace is what alpha-beta gives when it prunes on equality (v >= beta); \
             this assignment prunes only when v > beta at a max node (v < alpha at a min node)"
        };
        let (key, shape) = if settings.prune_on_equal {
            ("prune-on-equal/never", "game.prune_on_equal never read, pruning only on strict inequality")
        } else {
            ("prune-on-equal/always", "game.prune_on_equal never read, pruning on equality")
        };
        list.push(Candidate {
            key,
            behaviour: Some((both_wrong(settings.prune_on_equal), shape)),
            ..setting("prune-on-equal", flipped, explanation.to_string())
        });
        list.push(Candidate {
            behaviour: Some(("never-prunes", "no cut-off test, or one that does not stop the loop over the children")),
            ..setting(
                "no-pruning",
                SearchSettings { algorithm: full, ..*settings },
                "your alpha-beta never prunes, as plain minimax would: stop searching a node's children once \
             its value passes the bound, and give each child the window its earlier siblings tightened, a \
             max node raising alpha and a min node lowering beta (a window never tightened, reset to (-inf, \
             +inf) at every node, or whose bounds are moved the wrong way, never prunes)"
                    .to_string(),
            )
        });
    }
    if let Some(pruned) = settings.algorithm.pruned_form() {
        for prune_on_equal in [true, false] {
            let key = if prune_on_equal { "prunes-in-minimax/on-equal" } else { "prunes-in-minimax/strict" };
            list.push(Candidate {
                key,
                ..setting(
                    "prunes-in-minimax",
                    SearchSettings { algorithm: pruned, prune_on_equal, ..*settings },
                    "you prune: this is alpha-beta, but this question asks for plain minimax, which searches \
                 every child"
                        .to_string(),
                )
            });
        }
    }
    if settings.move_ordering == crate::engine::MoveOrdering::Eval && settings.forward_pruning.is_none() {
        list.push(Candidate {
            classic: false,
            ..quirk(
                "ignores-move-ordering",
                Slips { ignores_move_ordering: true, ..Slips::default() },
                "you search the children in the game's order, but this test orders them by static value \
                 (game.static_values): at a max node greatest first, at a min node least first, equal values \
                 keeping their order (a stable sort)",
            )
        });
    }
    list.push(quirk(
        "reverse-children",
        Slips { reverse_children: true, ..Slips::default() },
        "you search children in reverse order; search them in the order the game lists them",
    ));
    // Listed on every tree: where there is no chance node it is the
    // reversal above, and a key must be found on every test it explains.
    {
        list.push(Candidate {
            key: "reverse-children/choice-nodes",
            classic: false,
            ..quirk(
                "reverse-children",
                Slips { reverse_children: true, reverse_skips_chance: true, ..Slips::default() },
                "your max and min nodes search their children in reverse order (a stack popped from the end, \
                 say), while your chance nodes take them in order: search them in the order the game lists \
                 them at every node",
            )
        });
    }
    list.push(quirk(
        "eager-children",
        Slips { eager_children: true, ..Slips::default() },
        "you evaluate every child before recursing: you look at all children of a node (with is_terminal, \
         player or utility) before searching the first; look at a child only when you search it",
    ));
    list.push(Candidate {
        key: "eager-children/terminals-first",
        classic: false,
        ..quirk(
            "eager-children",
            Slips { terminals_first: true, ..Slips::default() },
            "you look at every child of a max or min node before searching the first, to search the \
             terminal children first: search the children in the order given, looking at each only when \
             you reach it",
        )
    });
    if tree.has_chance_nodes() {
        list.push(quirk(
            "ignore-probabilities",
            Slips { chance: ChanceSlip::Uniform, ..Slips::default() },
            "your chance node ignores the probabilities: weight each child's value by its probability \
             instead of averaging",
        ));
    }
    list.push(quirk(
        "first-best-last",
        Slips { last_best_at_root: true, ..Slips::default() },
        "ties at the root go to your last best action; when actions tie, the first in order should win",
    ));
    list.push(Candidate {
        key: "ties-by-action",
        classic: false,
        ..quirk(
            "first-best-last",
            Slips { ties_by_action: true, ..Slips::default() },
            "ties at the root go to the action that compares greatest (at a MIN root, least), as max() or \
             min() over (value, action) pairs does; when actions tie, the first in order should win: \
             compare values alone",
        )
    });
    if let Some(depth) = settings.depth {
        let too_deep = format!(
            "your depth limit is one ply too deep: with depth {depth}, evaluate the nodes at ply {depth} \
             (the root is ply 0) instead of searching their children"
        );
        list.push(setting("depth-too-deep", SearchSettings { depth: Some(depth + 1), ..*settings }, too_deep.clone()));
        // The root's loop passes its own depth to its children, uncounted:
        // one ply too deep, except that depth 0 still stops at the root.
        let uncounted = if depth == 0 { 0 } else { depth + 1 };
        list.push(Candidate {
            key: "depth-too-deep/root-not-counted",
            classic: false,
            ..setting("depth-too-deep", SearchSettings { depth: Some(uncounted), ..*settings }, too_deep)
        });
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
