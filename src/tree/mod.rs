//! The game-tree model: an arena of nodes, pure data.
//!
//! A [`Tree`] is built once (by [`TreeBuilder`]) and never changes. Nodes live
//! in one `Vec` in breadth-first order, so the children of a node are a
//! contiguous range of indices and a tree of millions of nodes costs a few
//! allocations, not millions. Nothing here knows about YAML, files or
//! processes: the loader, the importers and the generators all produce a
//! [`TreeBuilder`], and the engine and the grader only read a [`Tree`].

mod build;
mod game_tree;
mod players;

pub use game_tree::{AnyTree, GameTree, locate};

pub use players::{PlayerSpecs, Players};

pub use build::{BuildError, BuildErrorKind, ChildSpec, ChildTarget, NodeBody, NodeSpec, Site, TreeBuilder};

use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;
use std::str::FromStr;

/// Index of a node in its tree's arena. The root is always index 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeIndex(pub u32);

impl NodeIndex {
    /// The root of every tree.
    pub const ROOT: NodeIndex = NodeIndex(0);

    /// The index as a `usize`, for indexing slices.
    pub fn get(self) -> usize {
        self.0 as usize
    }
}

/// Who moves at a node, or that the game is over there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NodeKind {
    /// The maximising player moves: the value is the greatest child value.
    Max,
    /// A minimising player moves: the value is the least child value.
    Min,
    /// Nature moves: the value is the probability-weighted sum.
    Chance,
    /// The game is over: the value is the node's utility.
    Terminal,
}

impl NodeKind {
    /// The word used for this kind in tree files and reports.
    pub fn name(self) -> &'static str {
        match self {
            NodeKind::Max => "max",
            NodeKind::Min => "min",
            NodeKind::Chance => "chance",
            NodeKind::Terminal => "terminal",
        }
    }
}

impl fmt::Display for NodeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One node of the arena. Labels (id, action) live beside it in [`Tree`].
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// Who moves here.
    pub kind: NodeKind,
    /// Index of the first child; children are `first_child..first_child + child_count`.
    pub first_child: u32,
    /// Number of children (0 for terminals).
    pub child_count: u32,
    /// Utility for a terminal, 0 otherwise.
    pub utility: f64,
    /// Heuristic value used when a depth limit cuts the search here.
    pub eval: Option<f64>,
    /// Probability of the edge from the parent (only meaningful under a chance node).
    pub probability: f64,
    /// Distance from the root in plies (the root is ply 0).
    pub ply: u32,
    /// The parent, or `None` for the root.
    pub parent: Option<NodeIndex>,
}

/// The order in which a search takes a node's children (docs/format.md 8.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum MoveOrdering {
    /// The tree's own order.
    #[default]
    Tree,
    /// At max and min nodes above the depth cut, by static value, best for
    /// the mover first (`move_ordering: eval`).
    Eval,
}

impl MoveOrdering {
    /// The name used in files and flags (`tree` is the default, never written).
    pub fn name(self) -> &'static str {
        match self {
            MoveOrdering::Tree => "tree",
            MoveOrdering::Eval => "eval",
        }
    }
}

/// A move ordering's name that is not one.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown move ordering `{0}` (expected `eval`)")]
pub struct UnknownOrdering(pub String);

impl FromStr for MoveOrdering {
    type Err = UnknownOrdering;

    fn from_str(name: &str) -> Result<MoveOrdering, UnknownOrdering> {
        match name {
            "eval" => Ok(MoveOrdering::Eval),
            "tree" | "none" => Ok(MoveOrdering::Tree),
            other => Err(UnknownOrdering(other.to_string())),
        }
    }
}

/// One setting's value as a file's `search:` block gives it (docs/format.md
/// sections 1 and 8); which settings exist, and of which kind, is the
/// engine's table (`engine::settings::SETTINGS`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SettingValue {
    /// `true` or `false`.
    Flag(bool),
    /// A whole number, 0 or more.
    Whole(u64),
    /// A number.
    Real(f64),
    /// A move ordering (8.1).
    Ordering(MoveOrdering),
}

/// Search defaults a tree file may carry (docs/format.md sections 1 and 8,
/// `search:`): each setting the file gives, by its key; a setting the file
/// leaves out is absent, and the search takes its default.
///
/// The keys are those of the engine's table of settings, which this layer
/// does not know; the entries are kept sorted by key, so two defaults with
/// the same settings are equal whatever order they were set in.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SearchDefaults {
    entries: [Option<(&'static str, SettingValue)>; SearchDefaults::CAPACITY],
}

impl SearchDefaults {
    /// The most settings a file may carry (the engine's table holds fewer:
    /// a test checks it).
    pub const CAPACITY: usize = 16;
    /// Section 1's depth limit (in plies), which every search reads.
    pub const DEPTH: &'static str = "depth";
    /// Section 1's pruning convention (3.2).
    pub const PRUNE_ON_EQUAL: &'static str = "prune_on_equal";

    /// Defaults of section 1's two keys only: a depth limit and a pruning
    /// convention, each when given.
    pub fn of(depth: Option<u32>, prune_on_equal: Option<bool>) -> SearchDefaults {
        let mut defaults = SearchDefaults::default();
        if let Some(depth) = depth {
            defaults.set(SearchDefaults::DEPTH, SettingValue::Whole(u64::from(depth)));
        }
        if let Some(prune_on_equal) = prune_on_equal {
            defaults.set(SearchDefaults::PRUNE_ON_EQUAL, SettingValue::Flag(prune_on_equal));
        }
        defaults
    }

    /// The value the file gives `key`, if any.
    pub fn get(&self, key: &str) -> Option<SettingValue> {
        self.iter().find(|(known, _)| *known == key).map(|(_, value)| value)
    }

    /// Sets `key` to `value`, replacing what was there.
    ///
    /// # Panics
    /// With more than [`SearchDefaults::CAPACITY`] keys (the engine's table
    /// has fewer).
    pub fn set(&mut self, key: &'static str, value: SettingValue) {
        let taken = self.iter().count();
        let slot = self.entries[..taken].iter().position(|entry| entry.is_some_and(|(known, _)| known >= key));
        match slot {
            Some(at) if self.entries[at].is_some_and(|(known, _)| known == key) => {
                self.entries[at] = Some((key, value));
            }
            _ => {
                assert!(taken < SearchDefaults::CAPACITY, "more search settings than SearchDefaults::CAPACITY");
                let at = slot.unwrap_or(taken);
                self.entries[at..=taken].rotate_right(1);
                self.entries[at] = Some((key, value));
            }
        }
    }

    /// These defaults with `key` set to `value`.
    pub fn with(mut self, key: &'static str, value: SettingValue) -> SearchDefaults {
        self.set(key, value);
        self
    }

    /// Every setting given, by key in alphabetical order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, SettingValue)> + '_ {
        self.entries.iter().map_while(|entry| *entry)
    }

    /// The depth limit given, if any.
    pub fn depth(&self) -> Option<u32> {
        match self.get(SearchDefaults::DEPTH) {
            Some(SettingValue::Whole(depth)) => u32::try_from(depth).ok(),
            _ => None,
        }
    }

    /// The pruning convention given, if any.
    pub fn prune_on_equal(&self) -> Option<bool> {
        match self.get(SearchDefaults::PRUNE_ON_EQUAL) {
            Some(SettingValue::Flag(flag)) => Some(flag),
            _ => None,
        }
    }
}

/// How a terminal ended a multi-agent game (the `game:` block), for kits
/// that model a game's API and ask whether a state is won or lost.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Outcome {
    /// MAX won here.
    Win,
    /// MAX lost here.
    Lose,
}

impl Outcome {
    /// The name the protocol and the tree file use (`win`, `lose`).
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Win => "win",
            Outcome::Lose => "lose",
        }
    }
}

/// The multi-agent game a written tree was taken from (the `game:` block,
/// docs/format.md section 6): how many agents take turns, and which
/// terminals are wins or losses. Pure data of the format: searches do not
/// use it, the grader serves it to kits that model a game's API, and what a
/// course makes of it (CS188's) lives with that course's importer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameRules {
    /// Agents taking turns, MAX first (Pacman and its ghosts).
    pub agents: u32,
    /// Terminals that are wins or losses; any other terminal is neither.
    pub outcomes: BTreeMap<NodeIndex, Outcome>,
}

/// What the reference must produce for one algorithm (docs/format.md section 5).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Expectation {
    /// Expected root value.
    pub value: Option<f64>,
    /// Expected root vector of a max^n search (docs/format.md 8.3), written
    /// as a list in `value`.
    pub vector: Option<Vec<f64>>,
    /// Expected chosen action: `Some(None)` means "no action" (`null`).
    pub action: Option<Option<String>>,
    /// Expected visited order, as node ids.
    pub visited: Option<Vec<String>>,
}

/// An immutable game tree.
#[derive(Clone, Debug)]
pub struct Tree {
    name: String,
    description: Option<String>,
    nodes: Vec<Node>,
    ids: Vec<Box<str>>,
    /// Edge labels that differ from the child's id (`{ACTION: ID}` edges).
    actions: Vec<Option<Box<str>>>,
    search: SearchDefaults,
    expect: BTreeMap<String, Expectation>,
    game: Option<GameRules>,
    /// Whether any node is a chance node (asked before every minimax search).
    has_chance: bool,
    /// A game's positions drawn as text, per node (snapshots of a game only).
    boards: Option<Vec<Option<Box<str>>>>,
    /// The players of a max^n tree (docs/format.md 8.3); `None` for MAX and MIN.
    players: Option<Box<Players>>,
}

impl Tree {
    /// The tree's name (the file stem unless the file names it).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The free-text description, if any.
    pub fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }

    /// Number of nodes, inline leaves included.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// A tree always has a root, so it is never empty.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The node at `index`.
    pub fn node(&self, index: NodeIndex) -> &Node {
        &self.nodes[index.get()]
    }

    /// All nodes in arena (breadth-first) order.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// The children of `index`, in the order searches visit them.
    pub fn children(&self, index: NodeIndex) -> impl DoubleEndedIterator<Item = NodeIndex> + ExactSizeIterator + use<> {
        self.child_range(index).map(NodeIndex)
    }

    /// The arena range holding the children of `index`.
    pub fn child_range(&self, index: NodeIndex) -> Range<u32> {
        let node = &self.nodes[index.get()];
        node.first_child..node.first_child + node.child_count
    }

    /// The id of a node as written in the tree file (`B.3` for inline leaves).
    pub fn id(&self, index: NodeIndex) -> &str {
        &self.ids[index.get()]
    }

    /// The action on the edge into `index`: its label, or else the child's id.
    pub fn action(&self, index: NodeIndex) -> &str {
        self.actions[index.get()].as_deref().unwrap_or_else(|| self.id(index))
    }

    /// Looks a node up by id (a linear scan: for tools and tests, not hot paths).
    pub fn find(&self, id: &str) -> Option<NodeIndex> {
        self.ids.iter().position(|candidate| &**candidate == id).map(|i| NodeIndex(i as u32))
    }

    /// The file's search defaults.
    pub fn search_defaults(&self) -> SearchDefaults {
        self.search
    }

    /// The file's `game:` block, when the tree was taken from a multi-agent game.
    pub fn game(&self) -> Option<&GameRules> {
        self.game.as_ref()
    }

    /// The file's `expect` block, by algorithm name.
    pub fn expectations(&self) -> &BTreeMap<String, Expectation> {
        &self.expect
    }

    /// Whether any node is a chance node (such trees are invalid for minimax).
    pub fn has_chance_nodes(&self) -> bool {
        self.has_chance
    }

    /// The deepest ply of any node.
    pub fn height(&self) -> u32 {
        // Breadth-first order: the last node is among the deepest.
        self.nodes.last().map_or(0, |node| node.ply)
    }

    /// Ids for a list of indices (for reports and JSON).
    pub fn ids_of(&self, indices: &[NodeIndex]) -> Vec<String> {
        indices.iter().map(|&index| self.id(index).to_string()).collect()
    }

    /// Replaces the metadata a file carries beside its nodes.
    pub fn with_metadata(
        mut self,
        description: Option<String>,
        search: SearchDefaults,
        expect: BTreeMap<String, Expectation>,
    ) -> Tree {
        self.description = description;
        self.search = search;
        self.expect = expect;
        self
    }

    /// The part of `tree` made so far as a written tree, for pictures: every
    /// node made, in breadth-first order, with its kind, utility, evaluation,
    /// probability, id and action. A node whose children were never made
    /// (a game's node at a depth cut, or pruned) is kept without children:
    /// the one exception to "a `Tree` is valid", which searches that only
    /// enter what was entered before never notice.
    pub fn snapshot(tree: &dyn GameTree) -> Tree {
        Tree::snapshot_with_order(tree).0
    }

    /// [`Tree::snapshot`], with the node of `tree` that each of the
    /// snapshot's nodes copies (by the snapshot's index), so that what a
    /// search of `tree` found can be carried over to the snapshot.
    pub fn snapshot_with_order(tree: &dyn GameTree) -> (Tree, Vec<NodeIndex>) {
        let mut order = vec![NodeIndex::ROOT];
        let mut new_index = std::collections::HashMap::new();
        let mut at = 0;
        while at < order.len() {
            let node = order[at];
            new_index.insert(node, at as u32);
            if let Some(children) = tree.made_children(node) {
                order.extend(children.map(NodeIndex));
            }
            at += 1;
        }
        let mut nodes = Vec::with_capacity(order.len());
        let mut next_child = 1u32;
        for &node in &order {
            let kind = tree.kind(node);
            let child_count = tree.made_children(node).map_or(0, |children| children.len() as u32);
            nodes.push(Node {
                kind,
                first_child: next_child,
                child_count,
                utility: if kind == NodeKind::Terminal { tree.utility(node) } else { 0.0 },
                eval: if kind == NodeKind::Terminal { None } else { tree.eval(node) },
                probability: tree.probability(node),
                ply: tree.ply(node),
                parent: tree.parent(node).map(|parent| NodeIndex(new_index[&parent])),
            });
            next_child += child_count;
        }
        let ids = order.iter().map(|&node| tree.id(node).into_owned().into_boxed_str()).collect();
        let actions = order.iter().map(|&node| Some(tree.action(node).into_owned().into_boxed_str())).collect();
        let has_chance = nodes.iter().any(|node: &Node| node.kind == NodeKind::Chance);
        let boards = order.iter().map(|&node| tree.board(node).map(String::into_boxed_str)).collect::<Vec<_>>();
        let boards = boards.iter().any(Option::is_some).then_some(boards);
        let snapshot = Tree {
            name: tree.name().to_string(),
            description: None,
            nodes,
            ids,
            actions,
            search: SearchDefaults::default(),
            expect: BTreeMap::new(),
            game: None,
            has_chance,
            boards,
            players: None,
        };
        (snapshot, order)
    }

    /// The position at `node` drawn as text, for a snapshot of a game.
    pub fn board_text(&self, node: NodeIndex) -> Option<&str> {
        self.boards.as_ref()?.get(node.get())?.as_deref()
    }

    /// The players of a max^n tree (docs/format.md 8.3), `None` for a
    /// two-player tree of max and min nodes.
    pub fn players(&self) -> Option<&Players> {
        self.players.as_deref()
    }

    /// Makes the tree a max^n tree with these players.
    pub(crate) fn with_players(mut self, players: Players) -> Tree {
        self.players = Some(Box::new(players));
        self
    }

    /// Replaces the `game:` block.
    pub fn with_game(mut self, game: Option<GameRules>) -> Tree {
        self.game = game;
        self
    }
}

/// Trees the unit tests of several layers share.
#[cfg(test)]
pub(crate) mod fixtures {
    use super::{ChildSpec, NodeKind, NodeSpec, Tree, TreeBuilder};

    /// Inline leaves with these values.
    pub(crate) fn leaves(values: &[f64]) -> Vec<ChildSpec> {
        values.iter().map(|&v| ChildSpec::leaf(v)).collect()
    }

    /// AIMA figure 5.2: max(min(3,12,8), min(2,4,6), min(14,5,2)) = 3.
    pub(crate) fn aima() -> Tree {
        let mut builder = TreeBuilder::new("aima", "A");
        builder.add(NodeSpec::internal(
            "A",
            NodeKind::Max,
            vec![ChildSpec::id("B"), ChildSpec::id("C"), ChildSpec::id("D")],
        ));
        builder.add(NodeSpec::internal("B", NodeKind::Min, leaves(&[3.0, 12.0, 8.0])));
        builder.add(NodeSpec::internal("C", NodeKind::Min, leaves(&[2.0, 4.0, 6.0])));
        builder.add(NodeSpec::internal("D", NodeKind::Min, leaves(&[14.0, 5.0, 2.0])));
        builder.build().expect("a valid tree")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_defaults_are_the_same_whatever_order_they_are_set_in() {
        let one = SearchDefaults::default().with("seed", SettingValue::Whole(3)).with("depth", SettingValue::Whole(2));
        let other = SearchDefaults::of(Some(2), None).with("seed", SettingValue::Whole(3));
        assert_eq!(one, other);
        assert_eq!(one.iter().map(|(key, _)| key).collect::<Vec<_>>(), ["depth", "seed"]);
        assert_eq!((one.depth(), one.prune_on_equal()), (Some(2), None));
        let replaced = one.with("depth", SettingValue::Whole(5));
        assert_eq!((replaced.depth(), replaced.iter().count()), (Some(5), 2));
        assert_eq!(replaced.get("budget"), None);
    }

    fn leaf(value: f64) -> ChildSpec {
        ChildSpec { action: None, target: ChildTarget::Leaf(value) }
    }

    fn small_tree() -> Tree {
        let mut builder = TreeBuilder::new("small", "A");
        builder.add(NodeSpec::internal(
            "A",
            NodeKind::Max,
            vec![ChildSpec::id("B"), ChildSpec::labelled("right", "C")],
        ));
        builder.add(NodeSpec::internal("B", NodeKind::Min, vec![leaf(3.0), leaf(12.0)]));
        builder.add(NodeSpec::terminal("C", 5.0));
        builder.build().expect("valid tree")
    }

    #[test]
    fn children_are_contiguous_in_breadth_first_order() {
        let tree = small_tree();
        let ids: Vec<&str> = (0..tree.len() as u32).map(|i| tree.id(NodeIndex(i))).collect();
        assert_eq!(ids, ["A", "B", "C", "B.1", "B.2"]);
        let children: Vec<&str> = tree.children(NodeIndex::ROOT).map(|c| tree.id(c)).collect();
        assert_eq!(children, ["B", "C"]);
    }

    #[test]
    fn actions_default_to_child_ids() {
        let tree = small_tree();
        let b = tree.find("B").unwrap();
        let c = tree.find("C").unwrap();
        assert_eq!(tree.action(b), "B");
        assert_eq!(tree.action(c), "right");
        assert_eq!(tree.action(tree.find("B.2").unwrap()), "B.2");
    }

    #[test]
    fn plies_and_parents_are_recorded() {
        let tree = small_tree();
        let leaf = tree.find("B.2").unwrap();
        assert_eq!(tree.node(leaf).ply, 2);
        assert_eq!(tree.node(leaf).parent, tree.find("B"));
        assert_eq!(tree.height(), 2);
        assert_eq!(tree.node(NodeIndex::ROOT).parent, None);
    }
}
