//! Pictures of game trees, drawn by treegrade itself (no Graphviz).
//!
//! Pure functions: a [`Picture`] (a tree, optionally the reference search and
//! a student's visited order) becomes an SVG string. [`layout`] places the
//! nodes, [`svg`] writes the XML, and this module works out what to mark on
//! each node: its visit step, the alpha-beta window it was entered with,
//! whether it was pruned or lies below the depth limit, and where a student's
//! order leaves the reference's ([`mark`]).
//!
//! What the reference did comes from the [`Recording`] its one search made
//! (the engine reports to a [`crate::engine::Recorder`] as it searches):
//! nothing here runs a search, so a picture shows the search that was
//! watched, and the children a cutoff pruned are the ones the engine skipped.

pub mod layout;
pub mod replay;
pub mod stepper;
pub mod svg;

use std::collections::HashMap;

pub use svg::render_svg;

use crate::engine::{Cut, NodeDetail, Recording, SearchExtra, SearchOutcome, SearchSettings};
use crate::tree::{GameTree, NodeIndex, Tree, locate};

/// Nodes drawn at most before deeper plies are summarised as "+N nodes" boxes.
pub const DEFAULT_MAX_NODES: usize = 400;

/// The reference search a picture shows: its settings and what it did.
#[derive(Clone, Copy, Debug)]
pub struct Reference<'a> {
    /// The settings searched with.
    pub settings: &'a SearchSettings,
    /// The engine's result with them.
    pub outcome: &'a SearchOutcome,
    /// What the same search reported as it ran (windows, values, cutoffs).
    pub recording: &'a Recording,
}

impl Reference<'_> {
    /// The cutoffs of a search drawn as one pass (none for iterative
    /// deepening, whose passes are not drawn one by one).
    pub fn cuts(&self) -> &[Cut] {
        self.recording.whole_search().map_or(&[], |pass| pass.pruned())
    }

    /// Per node of a tree of `len` nodes, the window and value the search
    /// entered it with and returned (`None` where it never entered, or for
    /// a search drawn without windows).
    pub fn details(&self, len: usize) -> Vec<Option<NodeDetail>> {
        match self.recording.whole_search() {
            Some(pass) => pass.details_by_node(len),
            None => vec![None; len],
        }
    }
}

/// Everything one picture shows.
#[derive(Clone, Copy, Debug)]
pub struct Picture<'a> {
    /// The tree.
    pub tree: &'a Tree,
    /// The reference search, numbered by visit step; `None` draws the bare tree.
    pub reference: Option<Reference<'a>>,
    /// A student's visited order, compared with the reference's.
    pub student: Option<&'a [NodeIndex]>,
    /// Nodes drawn at most (see [`draw_depth_among`]).
    pub max_nodes: usize,
}

impl<'a> Picture<'a> {
    /// A picture of the bare tree.
    pub fn new(tree: &'a Tree) -> Picture<'a> {
        Picture { tree, reference: None, student: None, max_nodes: DEFAULT_MAX_NODES }
    }

    /// The same picture with the reference search: its settings, its
    /// outcome and what it reported as it ran.
    pub fn with_reference(
        self,
        settings: &'a SearchSettings,
        outcome: &'a SearchOutcome,
        recording: &'a Recording,
    ) -> Picture<'a> {
        Picture { reference: Some(Reference { settings, outcome, recording }), ..self }
    }

    /// The same picture with a student's visited order.
    pub fn with_student(self, visited: &'a [NodeIndex]) -> Picture<'a> {
        Picture { student: Some(visited), ..self }
    }
}

/// What the picture shows on one node.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Mark {
    /// 1-based step in the reference's visited order.
    pub step: Option<usize>,
    /// 1-based step in the student's visited order.
    pub student_step: Option<usize>,
    /// The recorded window and value, for entered nodes.
    pub entry: Option<NodeDetail>,
    /// Within the depth limit, but the reference never entered it.
    pub pruned: bool,
    /// The root of a pruned subtree: its edge gets a cut mark.
    pub pruned_root: bool,
    /// Below the reference's depth limit: never searched.
    pub below_cut: bool,
    /// The reference stopped searching this node's children early.
    pub cutoff: bool,
    /// The first node where the student's order leaves the reference's.
    pub wrong: bool,
    /// The student entered it; the reference does not.
    pub extra: bool,
    /// The reference enters it; the student did not.
    pub skipped: bool,
}

/// Works out the marks of every node of a picture.
pub fn mark(picture: &Picture<'_>) -> Vec<Mark> {
    let tree = picture.tree;
    let mut marks = vec![Mark::default(); tree.len()];
    let Some(reference) = picture.reference else {
        if let Some(student) = picture.student {
            number(&mut marks, student, |mark| &mut mark.student_step);
        }
        return marks;
    };
    // The windows and values come from the engine itself, recorded as it searched.
    for (mark, detail) in marks.iter_mut().zip(reference.details(tree.len())) {
        mark.entry = detail;
    }
    number(&mut marks, &reference.outcome.visited, |mark| &mut mark.step);
    mark_unsearched(tree, reference, &mut marks);
    if let Some(student) = picture.student {
        mark_student(&reference.outcome.visited, student, &mut marks);
    }
    marks
}

/// Numbers nodes by their first position in `order` (out-of-range indices are skipped).
fn number(marks: &mut [Mark], order: &[NodeIndex], slot: fn(&mut Mark) -> &mut Option<usize>) {
    for (step, node) in order.iter().enumerate() {
        if let Some(mark) = marks.get_mut(node.get()) {
            slot(mark).get_or_insert(step + 1);
        }
    }
}

/// Marks cut-off nodes, pruned subtrees and nodes below the depth limit.
fn mark_unsearched(tree: &Tree, reference: Reference<'_>, marks: &mut [Mark]) {
    for cut in reference.cuts() {
        let Some(mark) = marks.get_mut(cut.node.get()) else { continue };
        mark.cutoff = true;
        for child in &cut.children {
            if let Some(mark) = marks.get_mut(child.get()) {
                mark.pruned_root = true;
            }
        }
    }
    let depth = reference.settings.depth;
    for (index, node) in tree.nodes().iter().enumerate() {
        if marks[index].step.is_some() {
            continue;
        }
        if depth.is_some_and(|depth| node.ply > depth) {
            marks[index].below_cut = true;
        } else {
            marks[index].pruned = true;
        }
    }
}

/// Marks where the student's order differs from the reference's.
fn mark_student(reference: &[NodeIndex], student: &[NodeIndex], marks: &mut [Mark]) {
    number(marks, student, |mark| &mut mark.student_step);
    for mark in marks.iter_mut() {
        mark.extra = mark.student_step.is_some() && mark.step.is_none();
        mark.skipped = mark.step.is_some() && mark.student_step.is_none();
    }
    let common = reference.iter().zip(student).take_while(|(a, b)| a == b).count();
    if common < reference.len().max(student.len()) {
        let wrong = student.get(common).or(reference.get(common));
        if let Some(mark) = wrong.and_then(|node| marks.get_mut(node.get())) {
            mark.wrong = true;
        }
    }
}

/// The deepest ply drawn so that at most `max_nodes` boxes are drawn, nodes
/// and the "+N nodes" summaries below the last drawn ply together (at least
/// the root is drawn).
#[cfg(test)]
pub fn draw_depth(tree: &Tree, max_nodes: usize) -> u32 {
    draw_depth_among(tree, &vec![true; tree.len()], max_nodes)
}

/// The deepest ply drawn so that at most `max_nodes` boxes are drawn,
/// counting only the nodes `shown` marks (at least the root is drawn).
pub fn draw_depth_among(tree: &Tree, shown: &[bool], max_nodes: usize) -> u32 {
    // Per ply: nodes shown, and how many of them have children (a summary each if the drawing stops there).
    let mut per_ply: Vec<(usize, usize)> = Vec::new();
    for (node, _) in tree.nodes().iter().zip(shown).filter(|(_, shown)| **shown) {
        let ply = node.ply as usize;
        if per_ply.len() <= ply {
            per_ply.resize(ply + 1, (0, 0));
        }
        per_ply[ply].0 += 1;
        per_ply[ply].1 += usize::from(node.child_count > 0);
    }
    let mut drawn = 0;
    for (ply, (nodes, parents)) in per_ply.iter().enumerate() {
        drawn += nodes;
        if drawn + parents > max_nodes {
            return ply.saturating_sub(1) as u32;
        }
    }
    per_ply.len().saturating_sub(1) as u32
}

/// Node indices for a list of ids; the first unknown id is the error.
pub fn indices_of<S: AsRef<str>>(tree: &Tree, ids: &[S]) -> Result<Vec<NodeIndex>, NotInTree> {
    let by_id: HashMap<&str, NodeIndex> =
        (0..tree.len()).map(|i| NodeIndex(i as u32)).map(|index| (tree.id(index), index)).collect();
    ids.iter().map(|id| by_id.get(id.as_ref()).copied().ok_or_else(|| NotInTree(id.as_ref().to_string()))).collect()
}

/// A node of a student's trace that is not in the written tree.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("there is no node `{0}` in the tree")]
pub struct NotInTree(pub String);

/// A game's tree drawn as far as searches went, as a written snapshot.
pub struct GamePart {
    /// Every node made, in breadth-first order.
    pub tree: Tree,
    /// The searches, in the snapshot's indices, in the order given.
    pub searches: Vec<(SearchOutcome, Recording)>,
    /// The trace's nodes in the snapshot.
    pub trace: Vec<NodeIndex>,
}

/// A node of a student's trace that is not in the game.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("there is no node `{0}` in the game")]
pub struct UnknownNode(pub String);

/// The part of a game's tree to draw: `tree` is a game's tree on which the
/// `searches` ran (each an outcome and what its observer recorded); the
/// `trace`'s ids are found (made) in it, everything made is snapshotted,
/// and the searches are carried over to the snapshot, whose indices differ
/// from the game's (every node a search entered or pruned was made, so each
/// has its place). Nothing is searched again. `Err` names an id of the
/// trace that is no node of the game.
pub fn game_part(
    tree: &dyn GameTree,
    searches: &[(&SearchOutcome, &Recording)],
    trace: &[String],
) -> Result<GamePart, UnknownNode> {
    if let Some(id) = trace.iter().find(|id| locate(tree, id).is_none()) {
        return Err(UnknownNode(id.clone()));
    }
    let (snapshot, order) = Tree::snapshot_with_order(tree);
    let index: HashMap<NodeIndex, NodeIndex> =
        order.iter().enumerate().map(|(at, &node)| (node, NodeIndex(at as u32))).collect();
    let place = |node: NodeIndex| index.get(&node).copied();
    let searches =
        searches.iter().map(|(outcome, recording)| (reindexed(outcome, &place), recording.reindexed(place))).collect();
    let trace = known_indices(&snapshot, trace);
    Ok(GamePart { tree: snapshot, searches, trace })
}

/// `outcome` with every node index `place` gives; indices it has no place
/// for are dropped (none are, for a snapshot of everything made).
fn reindexed(outcome: &SearchOutcome, place: &impl Fn(NodeIndex) -> Option<NodeIndex>) -> SearchOutcome {
    let cutoffs = |cutoffs: &[crate::engine::Cutoff]| {
        cutoffs
            .iter()
            .filter_map(|cutoff| Some(crate::engine::Cutoff { node: place(cutoff.node)?, ..*cutoff }))
            .collect()
    };
    let extra = match &outcome.extra {
        SearchExtra::Iterations(iterations) => SearchExtra::Iterations(
            iterations
                .iter()
                .map(|iteration| crate::engine::Iteration {
                    action: iteration.action.and_then(place),
                    cutoffs: cutoffs(&iteration.cutoffs),
                    ..iteration.clone()
                })
                .collect(),
        ),
        SearchExtra::Mcts(summary) => {
            let mut summary = summary.clone();
            summary.children.retain_mut(|child| place(child.node).map(|node| child.node = node).is_some());
            SearchExtra::Mcts(summary)
        }
        other => other.clone(),
    };
    SearchOutcome {
        value: outcome.value,
        action: outcome.action.and_then(place),
        visited: outcome.visited.iter().filter_map(|&node| place(node)).collect(),
        cutoffs: cutoffs(&outcome.cutoffs),
        extra,
    }
}

/// Node indices for the ids that exist in `tree`, skipping the others.
pub fn known_indices<S: AsRef<str>>(tree: &Tree, ids: &[S]) -> Vec<NodeIndex> {
    let by_id: HashMap<&str, NodeIndex> =
        (0..tree.len()).map(|i| NodeIndex(i as u32)).map(|index| (tree.id(index), index)).collect();
    ids.iter().filter_map(|id| by_id.get(id.as_ref()).copied()).collect()
}

/// Escapes text for XML and HTML content and attribute values. Characters XML
/// cannot carry at all (most control characters) become U+FFFD.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || matches!(c, '\u{7f}' | '\u{fffe}' | '\u{ffff}') => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// A self-contained HTML page (inline CSS, no scripts) around `body`.
pub fn html_page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n\
         <style>\n{PAGE_CSS}</style>\n</head>\n<body>\n{body}</body>\n</html>\n",
        escape(title)
    )
}

/// The stylesheet of [`html_page`].
const PAGE_CSS: &str = "\
body { font-family: system-ui, -apple-system, 'Segoe UI', Roboto, 'DejaVu Sans', sans-serif; margin: 24px; color: #0f172a; background: #f8fafc; }
h1 { font-size: 20px; margin: 0 0 16px; }
.pictures { display: flex; flex-wrap: wrap; gap: 24px; align-items: flex-start; }
figure { margin: 0; background: #fff; border: 1px solid #e2e8f0; border-radius: 8px; padding: 8px; max-width: 100%; overflow: auto; }
figcaption { font-weight: 600; margin: 4px 8px 8px; }
svg { display: block; }
";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Algorithm, search_recorded};
    use crate::tree::fixtures::aima;

    #[test]
    fn marks_show_pruning_and_a_student_divergence() {
        let tree = aima();
        let settings = SearchSettings::new(Algorithm::AlphaBeta);
        let (outcome, recording) = search_recorded(&tree, &settings).unwrap();
        let ids = ["A", "B", "B.1", "B.2", "B.3", "C", "C.1", "C.2", "C.3", "D", "D.1", "D.2"];
        let student = indices_of(&tree, &ids).unwrap();
        let marks = mark(&Picture::new(&tree).with_reference(&settings, &outcome, &recording).with_student(&student));
        let at = |id: &str| marks[tree.find(id).unwrap().get()];
        assert_eq!(at("C").step, Some(6));
        assert!(at("C").cutoff);
        assert!(at("C.2").pruned && at("C.2").pruned_root && at("C.2").extra && at("C.2").wrong);
        assert!(at("C.3").extra && !at("C.3").wrong);
        assert!(at("D.3").skipped);
        assert_eq!(at("D").student_step, Some(10));
        assert!(!at("B").extra && !at("B").skipped && !at("B").wrong);
    }

    #[test]
    fn a_student_who_stops_early_is_wrong_at_the_missing_node() {
        let tree = aima();
        let settings = SearchSettings::new(Algorithm::AlphaBeta);
        let (outcome, recording) = search_recorded(&tree, &settings).unwrap();
        let student = indices_of(&tree, &["A", "B"]).unwrap();
        let marks = mark(&Picture::new(&tree).with_reference(&settings, &outcome, &recording).with_student(&student));
        let b1 = marks[tree.find("B.1").unwrap().get()];
        assert!(b1.wrong && b1.skipped);
    }

    /// A game's tree that counts the nodes expanded through it: every
    /// search asks for the children of each node it expands; a snapshot
    /// reads only what was made.
    struct Counting {
        inner: Box<dyn GameTree + Send>,
        expanded: std::cell::Cell<usize>,
    }

    impl GameTree for Counting {
        fn name(&self) -> &str {
            self.inner.name()
        }
        fn game_name(&self) -> Option<&str> {
            self.inner.game_name()
        }
        fn kind(&self, node: NodeIndex) -> crate::tree::NodeKind {
            self.inner.kind(node)
        }
        fn child_range(&self, node: NodeIndex) -> std::ops::Range<u32> {
            self.expanded.set(self.expanded.get() + 1);
            self.inner.child_range(node)
        }
        fn made_children(&self, node: NodeIndex) -> Option<std::ops::Range<u32>> {
            self.inner.made_children(node)
        }
        fn utility(&self, node: NodeIndex) -> f64 {
            self.inner.utility(node)
        }
        fn eval(&self, node: NodeIndex) -> Option<f64> {
            self.inner.eval(node)
        }
        fn probability(&self, node: NodeIndex) -> f64 {
            self.inner.probability(node)
        }
        fn ply(&self, node: NodeIndex) -> u32 {
            self.inner.ply(node)
        }
        fn parent(&self, node: NodeIndex) -> Option<NodeIndex> {
            self.inner.parent(node)
        }
        fn id(&self, node: NodeIndex) -> std::borrow::Cow<'_, str> {
            self.inner.id(node)
        }
        fn action(&self, node: NodeIndex) -> std::borrow::Cow<'_, str> {
            self.inner.action(node)
        }
        fn board(&self, node: NodeIndex) -> Option<String> {
            self.inner.board(node)
        }
        fn evaluations(&self) -> Option<Vec<String>> {
            self.inner.evaluations()
        }
        fn has_chance_nodes(&self) -> bool {
            self.inner.has_chance_nodes()
        }
        fn unbounded(&self) -> bool {
            self.inner.unbounded()
        }
        fn size(&self) -> Option<usize> {
            self.inner.size()
        }
        fn made(&self) -> usize {
            self.inner.made()
        }
        fn fault(&self) -> Option<String> {
            self.inner.fault()
        }
    }

    fn tic_tac_toe(position: &str) -> Counting {
        let position = serde_json::json!(position);
        let args = crate::game::GameArgs { name: "tic-tac-toe", params: &[], position: Some(&position), utility: None };
        let options = crate::game::UnfoldOptions { eval: Some("lines".into()), ..Default::default() };
        let inner = crate::game::make(&args).unwrap().unfold(&options).unwrap();
        Counting { inner, expanded: std::cell::Cell::new(0) }
    }

    #[test]
    fn a_games_picture_carries_the_one_search_over_without_searching_again() {
        let ordered = SearchSettings {
            depth: Some(3),
            move_ordering: crate::engine::MoveOrdering::Eval,
            ..SearchSettings::new(Algorithm::AlphaBeta)
        };
        let all = [SearchSettings::new(Algorithm::AlphaBeta), ordered, SearchSettings::new(Algorithm::Minimax)];
        for settings in all {
            let game = tic_tac_toe("x../.o./...");
            let (outcome, recording) = search_recorded(&game, &settings).unwrap();
            let expanded = game.expanded.get();
            assert!(expanded > 0);
            assert_eq!(outcome.cutoffs.is_empty(), !settings.algorithm.prunes(), "alpha-beta cuts here");
            let part = game_part(&game, &[(&outcome, &recording)], &[]).unwrap();
            assert_eq!(game.expanded.get(), expanded, "drawing the part expands nothing: no search runs again");
            // What was carried over is what a search of the snapshot finds.
            let (carried, carried_recording) = &part.searches[0];
            let (again, again_recording) = search_recorded(&part.tree, &settings).unwrap();
            assert_eq!(carried, &again, "{settings:?}");
            assert_eq!(carried_recording, &again_recording, "{settings:?}");
            assert_eq!(part.tree.ids_of(&carried.visited), game.ids_of(&outcome.visited));
        }
    }

    #[test]
    fn nothing_in_render_runs_a_search() {
        // The API takes the recording of the search shown; this keeps it so.
        let sources = [include_str!("mod.rs"), include_str!("stepper.rs"), include_str!("svg.rs")];
        let calls = [
            "search(",
            "search_recorded(",
            "search_with_details(",
            "search_observed(",
            "search_with_slip(",
            "searched_order(",
        ];
        for source in sources.map(|source| source.split("#[cfg(test)]").next().unwrap()) {
            for call in calls {
                // A call of the function itself, not of a method whose name ends the same.
                let called = source
                    .match_indices(call)
                    .any(|(at, _)| !source[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_'));
                assert!(!called, "render calls {call}");
            }
        }
    }

    #[test]
    fn draw_depth_keeps_at_most_max_nodes() {
        let tree = aima();
        assert_eq!(draw_depth(&tree, 400), 2);
        assert_eq!(draw_depth(&tree, 12), 1);
        assert_eq!(draw_depth(&tree, 3), 0);
        assert_eq!(draw_depth(&tree, 0), 0);
    }

    #[test]
    fn unknown_ids_are_named() {
        let unknown = indices_of(&aima(), &["A", "Z"]).unwrap_err();
        assert_eq!(unknown, NotInTree("Z".to_string()));
        assert_eq!(unknown.to_string(), "there is no node `Z` in the tree");
    }

    #[test]
    fn escaping_keeps_xml_well_formed() {
        assert_eq!(escape("<a & 'b' \"c\">\u{1}"), "&lt;a &amp; &#39;b&#39; &quot;c&quot;&gt;\u{fffd}");
    }
}
