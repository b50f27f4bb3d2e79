//! A game's tree, made node by node as a search enters it.
//!
//! The nodes made so far live in an arena in the order they were made; a
//! node's children are made together, the first time anyone asks for them,
//! so they are contiguous and their indices never change. Ids are not
//! stored: they are the actions on the path from the root (docs/format.md 7),
//! spelled when asked for. A node costs its record, its position and its
//! action, a few dozen bytes for an m,n,k-game.

use std::borrow::Cow;
use std::cell::RefCell;
use std::ops::Range;
use std::sync::Arc;

use super::{Move, Rules};
use crate::tree::{GameTree, NodeIndex, NodeKind};

/// The most nodes a game's tree makes for one search unless told otherwise:
/// enough for every tic-tac-toe position from the empty board many times
/// over, and well under a gigabyte for any built-in game.
pub const DEFAULT_MAX_NODES: usize = 5_000_000;

/// Children not made yet.
const UNEXPANDED: u32 = u32::MAX;

/// What the arena keeps of a node besides its position and action.
#[derive(Clone, Copy, Debug)]
struct Record {
    parent: u32,
    first_child: u32,
    child_count: u32,
    ply: u32,
    kind: NodeKind,
}

/// The nodes made so far.
struct Arena<R: Rules> {
    records: Vec<Record>,
    states: Vec<R::State>,
    /// The action into each node (the root's is never read).
    actions: Vec<R::Action>,
    /// The probability into each node, kept only for games with chance moves.
    probabilities: Vec<f64>,
    /// Why the tree stopped growing.
    fault: Option<String>,
    /// Reused for each expansion.
    scratch: Vec<Move<R::Action, R::State>>,
}

impl<R: Rules> Clone for Arena<R> {
    fn clone(&self) -> Arena<R> {
        Arena {
            records: self.records.clone(),
            states: self.states.clone(),
            actions: self.actions.clone(),
            probabilities: self.probabilities.clone(),
            fault: self.fault.clone(),
            scratch: Vec::new(),
        }
    }
}

/// A game's tree from a start position, unfolded on demand.
pub struct Unfolding<R: Rules> {
    name: String,
    game: String,
    rules: Arc<R>,
    eval: Option<usize>,
    max_nodes: usize,
    arena: RefCell<Arena<R>>,
}

impl<R: Rules> Clone for Unfolding<R> {
    fn clone(&self) -> Unfolding<R> {
        Unfolding {
            name: self.name.clone(),
            game: self.game.clone(),
            rules: Arc::clone(&self.rules),
            eval: self.eval,
            max_nodes: self.max_nodes,
            arena: RefCell::new(self.arena.borrow().clone()),
        }
    }
}

impl<R: Rules> Unfolding<R> {
    /// The tree of `rules` (of the game named `game`) from `start`, valuing
    /// depth cuts with evaluation number `eval`, refusing to make more than
    /// `max_nodes` nodes. The tree takes the game's name until [`Unfolding::named`].
    pub fn new(game: String, rules: Arc<R>, start: R::State, eval: Option<usize>, max_nodes: usize) -> Unfolding<R> {
        let kind = rules.kind(&start);
        let root = Record { parent: UNEXPANDED, first_child: UNEXPANDED, child_count: 0, ply: 0, kind };
        // The root's action is never read; any move's would do, but there may
        // be none, so the first child's stands in once one is made.
        let arena = Arena {
            records: vec![root],
            states: vec![start],
            actions: Vec::new(),
            probabilities: if rules.has_chance() { vec![1.0] } else { Vec::new() },
            fault: None,
            scratch: Vec::new(),
        };
        Unfolding { name: game.clone(), game, rules, eval, max_nodes, arena: RefCell::new(arena) }
    }

    /// The same tree under the name of the file that gives it.
    pub fn named(mut self, name: impl Into<String>) -> Unfolding<R> {
        self.name = name.into();
        self
    }

    fn record(&self, node: NodeIndex) -> Record {
        self.arena.borrow().records[node.get()]
    }

    /// Makes `node`'s children if they are not made yet.
    fn expand(&self, node: NodeIndex) -> Range<u32> {
        let mut arena = self.arena.borrow_mut();
        let arena = &mut *arena;
        let record = arena.records[node.get()];
        if record.first_child != UNEXPANDED {
            return record.first_child..record.first_child + record.child_count;
        }
        if record.kind == NodeKind::Terminal || arena.fault.is_some() {
            return 0..0;
        }
        let mut moves = std::mem::take(&mut arena.scratch);
        moves.clear();
        self.rules.moves(&arena.states[node.get()], &mut moves);
        let first = arena.records.len();
        if first + moves.len() > self.max_nodes {
            arena.fault = Some(format!(
                "the search made more than {} nodes of {}'s tree, so it was stopped rather than left to run \
                 for hours: set a depth limit (`search: {{depth: N}}`), or raise the limit with --max-nodes",
                self.max_nodes, self.game
            ));
            arena.scratch = moves;
            return 0..0;
        }
        if moves.is_empty() {
            arena.fault = Some(format!(
                "{}'s rules give no move from the {} node at ply {}, which is not a terminal",
                self.game, record.kind, record.ply
            ));
            arena.scratch = moves;
            return 0..0;
        }
        if arena.actions.is_empty() {
            arena.actions.push(moves[0].action);
        }
        let keep_probabilities = !arena.probabilities.is_empty();
        for Move { action, state, probability } in moves.drain(..) {
            let kind = self.rules.kind(&state);
            arena.records.push(Record {
                parent: node.0,
                first_child: UNEXPANDED,
                child_count: 0,
                ply: record.ply + 1,
                kind,
            });
            arena.states.push(state);
            arena.actions.push(action);
            if keep_probabilities {
                arena.probabilities.push(probability);
            }
        }
        arena.scratch = moves;
        let count = (arena.records.len() - first) as u32;
        let first = first as u32;
        let slot = &mut arena.records[node.get()];
        slot.first_child = first;
        slot.child_count = count;
        first..first + count
    }
}

impl<R: Rules> GameTree for Unfolding<R> {
    fn name(&self) -> &str {
        &self.name
    }

    fn game(&self) -> Option<&str> {
        Some(&self.game)
    }

    #[inline]
    fn kind(&self, node: NodeIndex) -> NodeKind {
        self.record(node).kind
    }

    fn child_range(&self, node: NodeIndex) -> Range<u32> {
        self.expand(node)
    }

    fn utility(&self, node: NodeIndex) -> f64 {
        let arena = self.arena.borrow();
        let record = arena.records[node.get()];
        if record.kind != NodeKind::Terminal {
            return 0.0;
        }
        self.rules.utility(&arena.states[node.get()], record.ply)
    }

    fn eval(&self, node: NodeIndex) -> Option<f64> {
        let which = self.eval?;
        let arena = self.arena.borrow();
        Some(self.rules.evaluate(which, &arena.states[node.get()]))
    }

    fn probability(&self, node: NodeIndex) -> f64 {
        let arena = self.arena.borrow();
        arena.probabilities.get(node.get()).copied().unwrap_or(1.0)
    }

    fn ply(&self, node: NodeIndex) -> u32 {
        self.record(node).ply
    }

    fn parent(&self, node: NodeIndex) -> Option<NodeIndex> {
        let parent = self.record(node).parent;
        (parent != UNEXPANDED).then_some(NodeIndex(parent))
    }

    fn id(&self, node: NodeIndex) -> Cow<'_, str> {
        if node == NodeIndex::ROOT {
            return Cow::Borrowed("root");
        }
        let arena = self.arena.borrow();
        let mut path = Vec::new();
        let mut at = node.0;
        while at != 0 {
            path.push(arena.actions[at as usize]);
            at = arena.records[at as usize].parent;
        }
        let mut id = String::new();
        for (i, action) in path.into_iter().rev().enumerate() {
            if i > 0 {
                id.push('-');
            }
            self.rules.action_name(action, &mut id);
        }
        Cow::Owned(id)
    }

    fn action(&self, node: NodeIndex) -> Cow<'_, str> {
        if node == NodeIndex::ROOT {
            return Cow::Borrowed("root");
        }
        let mut name = String::new();
        self.rules.action_name(self.arena.borrow().actions[node.get()], &mut name);
        Cow::Owned(name)
    }

    fn state(&self, node: NodeIndex) -> Option<serde_json::Value> {
        Some(self.rules.state_json(&self.arena.borrow().states[node.get()]))
    }

    fn board(&self, node: NodeIndex) -> Option<String> {
        self.rules.board(&self.arena.borrow().states[node.get()])
    }

    fn evaluations(&self) -> Option<Vec<String>> {
        Some(self.rules.evaluations().iter().map(|name| name.to_string()).collect())
    }

    fn has_chance_nodes(&self) -> bool {
        self.rules.has_chance()
    }

    fn unbounded(&self) -> bool {
        self.rules.unbounded()
    }

    fn size(&self) -> Option<usize> {
        None
    }

    fn made(&self) -> usize {
        self.arena.borrow().records.len()
    }

    fn fault(&self) -> Option<String> {
        self.arena.borrow().fault.clone()
    }
}
