//! A position of a game as whoever plays it sees it: whose turn it is, the
//! legal moves in the game's order, and the position each leads to.

use std::sync::Arc;

use crate::game::{Game, GameError, UnfoldOptions};
use crate::tree::{GameTree, NodeIndex, NodeKind};

/// The most nodes one position's unfolding may make: the position and its
/// children only (a game whose position has more moves is not playable).
const POSITION_NODES: usize = 100_000;

/// A position, unfolded one ply deep.
pub struct Position {
    /// The position as a game whose start it is.
    pub game: Arc<dyn Game>,
    tree: Box<dyn GameTree + Send>,
    children: Vec<NodeIndex>,
}

impl Position {
    /// The position `game` starts from; `Err` when its rules fail.
    pub fn of(game: Arc<dyn Game>) -> Result<Position, GameError> {
        let options = UnfoldOptions { name: None, eval: None, max_nodes: POSITION_NODES };
        let tree = game.unfold(&options)?;
        let children: Vec<NodeIndex> = tree.children(NodeIndex::ROOT).collect();
        match tree.fault() {
            Some(message) => Err(GameError::rules(message)),
            None => Ok(Position { game, tree, children }),
        }
    }

    /// Who moves, or that the game is over.
    pub fn kind(&self) -> NodeKind {
        self.tree.kind(NodeIndex::ROOT)
    }

    /// The legal actions, in the game's order (empty at the end).
    pub fn actions(&self) -> Vec<String> {
        self.children.iter().map(|&child| self.tree.action(child).into_owned()).collect()
    }

    /// The probability of each move (chance positions).
    pub fn probabilities(&self) -> impl Iterator<Item = f64> + '_ {
        self.children.iter().map(|&child| self.tree.probability(child))
    }

    /// MAX's utility at the end of the game (0 elsewhere).
    pub fn utility(&self) -> f64 {
        self.tree.utility(NodeIndex::ROOT)
    }

    /// The position as the game's JSON.
    pub fn state(&self) -> Option<serde_json::Value> {
        self.tree.state(NodeIndex::ROOT)
    }

    /// The board, drawn as text, where the game draws one.
    pub fn board(&self) -> Option<String> {
        self.tree.board(NodeIndex::ROOT)
    }

    /// The board after move number `index`.
    pub fn board_after(&self, index: usize) -> Option<String> {
        self.tree.board(*self.children.get(index)?)
    }

    /// The game from the position after move number `index`.
    pub fn after(&self, index: usize) -> Result<Arc<dyn Game>, GameError> {
        self.game.advanced(&[index])
    }
}
