//! The seam between trees and everything that searches or serves them.
//!
//! A written tree ([`Tree`], an arena built up front) and a game's tree (an
//! [`crate::game::Unfolding`], made node by node as a search enters it) both
//! implement [`GameTree`]. The engine, the oracle, the verdict and the
//! pictures read trees only through it, the way a searcher is generic over
//! the thing that matches.
//!
//! Both sides share one addressing scheme: a node is a [`NodeIndex`], the
//! root is [`NodeIndex::ROOT`], and a node's children are a contiguous range
//! of indices. A lazy tree hands out that range the first time it is asked
//! for a node's children and keeps it from then on, so an index, once given,
//! names the same node for the tree's whole life.

use std::borrow::Cow;
use std::ops::Range;

use super::{NodeIndex, NodeKind, Tree};

/// What a search may ask about a tree: kinds, children, values, labels.
///
/// Every method takes `&self`; a lazy implementation grows behind it. Asking
/// about a node that has not been handed out (an index past those a parent's
/// [`GameTree::child_range`] gave) is a bug of the caller and may panic.
pub trait GameTree {
    /// The tree's name (the file stem unless the file names it).
    fn name(&self) -> &str;

    /// The game a tree is given by (`tic-tac-toe`, `pig`); `None` for a written tree.
    fn game_name(&self) -> Option<&str> {
        None
    }

    /// Who moves at `node`, or that the game is over there.
    fn kind(&self, node: NodeIndex) -> NodeKind;

    /// The indices of `node`'s children, in the tree's order (empty for a
    /// terminal). A lazy tree makes them on the first call.
    fn child_range(&self, node: NodeIndex) -> Range<u32>;

    /// The indices of `node`'s children if they are made already, without
    /// making them (`None` for a game's node whose children were never asked
    /// for). Pictures of a game draw only what was made.
    fn made_children(&self, node: NodeIndex) -> Option<Range<u32>> {
        Some(self.child_range(node))
    }

    /// A terminal's utility, in MAX's view (0 for other nodes).
    fn utility(&self, node: NodeIndex) -> f64;

    /// The heuristic value used when a depth limit cuts the search at `node`:
    /// a written node's `eval`, or the game's evaluation named by the file's
    /// `search.eval`. `None` when there is none.
    fn eval(&self, node: NodeIndex) -> Option<f64>;

    /// The number of players of a max^n tree (docs/format.md 8.3); `None`
    /// for a tree of MAX and MIN (written, or a two-player game).
    fn players(&self) -> Option<u32> {
        None
    }

    /// The player to move at `node`, counted from 1 (8.3): a max^n tree's
    /// own, else MAX is player 1 and MIN player 2; `None` at chance nodes
    /// and terminals.
    fn player(&self, node: NodeIndex) -> Option<u32> {
        match self.kind(node) {
            NodeKind::Max => Some(1),
            NodeKind::Min => Some(2),
            NodeKind::Chance | NodeKind::Terminal => None,
        }
    }

    /// A terminal's utility vector (8.3): a max^n tree's own, else the
    /// utility u read as [u, -u].
    fn utility_vector(&self, node: NodeIndex) -> Vec<f64> {
        let utility = self.utility(node);
        vec![utility, -utility]
    }

    /// An internal node's evaluation as a vector (8.3): a max^n tree's own
    /// `eval`, else the evaluation e read as [e, -e]. `None` when there is none.
    fn eval_vector(&self, node: NodeIndex) -> Option<Vec<f64>> {
        self.eval(node).map(|eval| vec![eval, -eval])
    }

    /// The probability of the edge into `node` (meaningful under a chance node).
    fn probability(&self, node: NodeIndex) -> f64;

    /// Plies from the root (the root is ply 0).
    fn ply(&self, node: NodeIndex) -> u32;

    /// The node's parent, `None` for the root.
    fn parent(&self, node: NodeIndex) -> Option<NodeIndex>;

    /// The node's id: as written in a tree file, or the path of actions from
    /// the root for a game (docs/format.md 7).
    fn id(&self, node: NodeIndex) -> Cow<'_, str>;

    /// Appends the node's id to `out`: the same text as [`GameTree::id`],
    /// without an allocation of its own where the tree can help it (a game's
    /// search may enter half a million nodes, each spelled once for output).
    fn write_id(&self, node: NodeIndex, out: &mut String) {
        out.push_str(&self.id(node));
    }

    /// The action on the edge into `node`.
    fn action(&self, node: NodeIndex) -> Cow<'_, str>;

    /// The node's state as a JSON value (a game's position, docs/format.md 7);
    /// `None` for written trees, whose nodes have none.
    fn state(&self, _node: NodeIndex) -> Option<serde_json::Value> {
        None
    }

    /// The position drawn as text, one line per board row, for reports; `None`
    /// where there is no board.
    fn board(&self, _node: NodeIndex) -> Option<String> {
        None
    }

    /// The names of a game's evaluations (`lines`, `score`, ...); `None` for
    /// a written tree, whose evaluations are its nodes' `eval` values.
    fn evaluations(&self) -> Option<Vec<String>> {
        None
    }

    /// Whether the tree has chance nodes (minimax refuses such trees). A game
    /// answers for its rules, without unfolding anything.
    fn has_chance_nodes(&self) -> bool;

    /// The first chance node of a written tree, to name in an error; `None`
    /// for a game, whose chance nodes are not made in advance.
    fn first_chance_node(&self) -> Option<NodeIndex> {
        None
    }

    /// Whether the tree can go on forever (Pig), so that only a search with a
    /// depth limit may enter it.
    fn unbounded(&self) -> bool {
        false
    }

    /// The number of nodes of the whole tree, when it is known (a written
    /// tree); `None` for a game.
    fn size(&self) -> Option<usize>;

    /// The deepest ply of the whole tree, when it is known (a written tree).
    fn height(&self) -> Option<u32> {
        None
    }

    /// The number of nodes made so far (all of them for a written tree).
    fn made(&self) -> usize;

    /// Why the tree could not give a node the search asked for (a game's
    /// program failed, or the tree grew past its limit). A search stops as
    /// soon as this is set and reports it.
    fn fault(&self) -> Option<String> {
        None
    }

    /// The children of `node` as indices.
    fn children(&self, node: NodeIndex) -> std::iter::Map<Range<u32>, fn(u32) -> NodeIndex> {
        self.child_range(node).map(NodeIndex as fn(u32) -> NodeIndex)
    }

    /// Ids for a list of indices (for reports and JSON).
    fn ids_of(&self, indices: &[NodeIndex]) -> Vec<String> {
        indices.iter().map(|&index| self.id(index).into_owned()).collect()
    }
}

impl GameTree for Tree {
    fn name(&self) -> &str {
        Tree::name(self)
    }

    #[inline]
    fn kind(&self, node: NodeIndex) -> NodeKind {
        self.node(node).kind
    }

    #[inline]
    fn child_range(&self, node: NodeIndex) -> Range<u32> {
        Tree::child_range(self, node)
    }

    #[inline]
    fn utility(&self, node: NodeIndex) -> f64 {
        self.node(node).utility
    }

    #[inline]
    fn eval(&self, node: NodeIndex) -> Option<f64> {
        self.node(node).eval
    }

    #[inline]
    fn probability(&self, node: NodeIndex) -> f64 {
        self.node(node).probability
    }

    #[inline]
    fn ply(&self, node: NodeIndex) -> u32 {
        self.node(node).ply
    }

    fn parent(&self, node: NodeIndex) -> Option<NodeIndex> {
        self.node(node).parent
    }

    fn id(&self, node: NodeIndex) -> Cow<'_, str> {
        Cow::Borrowed(Tree::id(self, node))
    }

    fn action(&self, node: NodeIndex) -> Cow<'_, str> {
        Cow::Borrowed(Tree::action(self, node))
    }

    fn has_chance_nodes(&self) -> bool {
        Tree::has_chance_nodes(self)
    }

    fn first_chance_node(&self) -> Option<NodeIndex> {
        if !Tree::has_chance_nodes(self) {
            return None;
        }
        self.nodes().iter().position(|node| node.kind == NodeKind::Chance).map(|i| NodeIndex(i as u32))
    }

    fn size(&self) -> Option<usize> {
        Some(self.len())
    }

    fn made(&self) -> usize {
        self.len()
    }

    fn height(&self) -> Option<u32> {
        Some(Tree::height(self))
    }

    fn ids_of(&self, indices: &[NodeIndex]) -> Vec<String> {
        Tree::ids_of(self, indices)
    }

    fn board(&self, node: NodeIndex) -> Option<String> {
        self.board_text(node).map(str::to_string)
    }

    fn players(&self) -> Option<u32> {
        Tree::players(self).map(|players| players.count())
    }

    fn player(&self, node: NodeIndex) -> Option<u32> {
        match Tree::players(self) {
            Some(players) => players.mover(node.get()),
            None => match self.node(node).kind {
                NodeKind::Max => Some(1),
                NodeKind::Min => Some(2),
                NodeKind::Chance | NodeKind::Terminal => None,
            },
        }
    }

    fn utility_vector(&self, node: NodeIndex) -> Vec<f64> {
        match Tree::players(self).and_then(|players| players.vector(node.get())) {
            Some(vector) => vector.to_vec(),
            None => {
                let utility = self.node(node).utility;
                vec![utility, -utility]
            }
        }
    }

    fn eval_vector(&self, node: NodeIndex) -> Option<Vec<f64>> {
        match Tree::players(self) {
            Some(_) if self.node(node).kind == NodeKind::Terminal => None,
            Some(players) => players.vector(node.get()).map(<[f64]>::to_vec),
            None => self.node(node).eval.map(|eval| vec![eval, -eval]),
        }
    }
}

/// A tree of either kind, held for one search: a written tree, borrowed,
/// or a game's tree, owned (each search unfolds its own).
pub enum AnyTree<'a> {
    /// A written tree, shared by every search.
    Written(&'a Tree),
    /// A game's tree, this search's own.
    Game(Box<dyn GameTree + Send>),
}

impl std::ops::Deref for AnyTree<'_> {
    type Target = dyn GameTree;

    fn deref(&self) -> &(dyn GameTree + 'static) {
        match self {
            AnyTree::Written(tree) => *tree,
            AnyTree::Game(tree) => &**tree,
        }
    }
}

/// Finds a game's node by its id (the actions from the root joined by `-`,
/// docs/format.md 7), making the nodes on the way; an action may itself
/// hold a `-`, so the longest matching action is taken at each step.
pub fn locate(tree: &dyn GameTree, id: &str) -> Option<NodeIndex> {
    let mut node = NodeIndex::ROOT;
    if id == tree.id(node) {
        return Some(node);
    }
    let mut rest = id;
    while !rest.is_empty() {
        let next = tree
            .children(node)
            .filter(|&child| {
                let action = tree.action(child);
                rest.strip_prefix(action.as_ref()).is_some_and(|after| after.is_empty() || after.starts_with('-'))
            })
            .max_by_key(|&child| tree.action(child).len())?;
        let length = tree.action(next).len();
        rest = rest[length..].strip_prefix('-').unwrap_or(&rest[length..]);
        node = next;
    }
    Some(node)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::fixtures::aima;

    /// Reads a tree only through the seam, as the engine does.
    fn leaves_in_order(tree: &dyn GameTree) -> Vec<String> {
        let mut out = Vec::new();
        let mut stack = vec![NodeIndex::ROOT];
        while let Some(node) = stack.pop() {
            if tree.kind(node) == NodeKind::Terminal {
                out.push(format!("{}={}", tree.id(node), tree.utility(node)));
            }
            stack.extend(tree.children(node).rev());
        }
        out
    }

    #[test]
    fn a_written_tree_reads_the_same_through_the_seam() {
        let tree = aima();
        let leaves = leaves_in_order(&tree);
        assert_eq!(leaves[..3], ["B.1=3", "B.2=12", "B.3=8"]);
        assert_eq!(leaves.len(), 9);
        assert_eq!(GameTree::size(&tree), Some(13));
        assert_eq!(tree.state(NodeIndex::ROOT), None);
        assert_eq!(GameTree::first_chance_node(&tree), None);
    }
}
