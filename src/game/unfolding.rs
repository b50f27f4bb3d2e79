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
/// the whole of tic-tac-toe from the empty board (549,946) more than three
/// times over, and a few hundred megabytes at most for any built-in game.
pub const DEFAULT_MAX_NODES: usize = 2_000_000;

/// Children not made yet.
const UNEXPANDED: u32 = u32::MAX;

/// The most children one node may have (a count is kept in 16 bits).
const MAX_CHILDREN: usize = u16::MAX as usize;

/// What the arena keeps of a node besides its position and action (16 bytes).
#[derive(Clone, Copy, Debug)]
struct Record {
    parent: u32,
    first_child: u32,
    ply: u32,
    child_count: u16,
    kind: NodeKind,
}

/// Log2 of the number of items in one chunk of a [`Chunked`].
const CHUNK_BITS: u32 = 15;

/// A vector grown in fixed chunks: pushing never moves what is stored, so a
/// tree of half a million nodes never holds two copies of its arena while
/// it grows (as a doubling vector would), and memory is what is stored.
#[derive(Clone)]
struct Chunked<T> {
    chunks: Vec<Vec<T>>,
    len: usize,
}

impl<T> Chunked<T> {
    fn new() -> Chunked<T> {
        Chunked { chunks: Vec::new(), len: 0 }
    }

    fn push(&mut self, item: T) {
        if self.len >> CHUNK_BITS == self.chunks.len() {
            self.chunks.push(Vec::with_capacity(1 << CHUNK_BITS));
        }
        self.chunks[self.len >> CHUNK_BITS].push(item);
        self.len += 1;
    }

    #[inline]
    fn get(&self, index: usize) -> &T {
        &self.chunks[index >> CHUNK_BITS][index & ((1 << CHUNK_BITS) - 1)]
    }

    #[inline]
    fn get_mut(&mut self, index: usize) -> &mut T {
        &mut self.chunks[index >> CHUNK_BITS][index & ((1 << CHUNK_BITS) - 1)]
    }

    fn len(&self) -> usize {
        self.len
    }

    fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// The nodes made so far.
struct Arena<R: Rules> {
    records: Chunked<Record>,
    states: Chunked<R::State>,
    /// The action into each node (the root's is never read).
    actions: Chunked<R::Action>,
    /// The probability into each node, kept only for games with chance moves.
    probabilities: Chunked<f64>,
    /// Why the tree stopped growing.
    fault: Option<String>,
    /// Reused for each expansion.
    scratch: Vec<Move<R::Action, R::State>>,
    /// The last id spelled, and the nodes on its path with the length of
    /// each one's id in it (index = ply): ids are mostly asked for in depth-first
    /// order, so the next one usually shares all but its last action.
    last_id: String,
    last_path: Vec<(u32, usize)>,
    /// Reused for each id spelled: the nodes not on the last path.
    climb: Vec<u32>,
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
            last_id: String::new(),
            last_path: vec![(0, 0)],
            climb: Vec::new(),
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
        let mut arena = Arena {
            records: Chunked::new(),
            states: Chunked::new(),
            actions: Chunked::new(),
            probabilities: Chunked::new(),
            fault: None,
            scratch: Vec::new(),
            last_id: String::new(),
            last_path: vec![(0, 0)],
            climb: Vec::new(),
        };
        arena.records.push(root);
        arena.states.push(start);
        if rules.has_chance() {
            arena.probabilities.push(1.0);
        }
        Unfolding { name: game.clone(), game, rules, eval, max_nodes, arena: RefCell::new(arena) }
    }

    /// The same tree under the name of the file that gives it.
    pub fn named(mut self, name: impl Into<String>) -> Unfolding<R> {
        self.name = name.into();
        self
    }

    /// The position at `node` (a node already made).
    pub fn position(&self, node: NodeIndex) -> R::State {
        self.arena.borrow().states.get(node.get()).clone()
    }

    fn record(&self, node: NodeIndex) -> Record {
        *self.arena.borrow().records.get(node.get())
    }

    /// Makes `node`'s children if they are not made yet.
    fn expand(&self, node: NodeIndex) -> Range<u32> {
        let mut arena = self.arena.borrow_mut();
        let arena = &mut *arena;
        let record = *arena.records.get(node.get());
        if record.first_child != UNEXPANDED {
            return record.first_child..record.first_child + u32::from(record.child_count);
        }
        if record.kind == NodeKind::Terminal || arena.fault.is_some() {
            return 0..0;
        }
        let mut moves = std::mem::take(&mut arena.scratch);
        moves.clear();
        self.rules.moves(arena.states.get(node.get()), &mut moves);
        if self.rules.fault().is_some() {
            // The rules say why themselves (GameTree::fault asks them).
            arena.scratch = moves;
            return 0..0;
        }
        let first = arena.records.len();
        if first + moves.len() > self.max_nodes {
            arena.fault = Some(node_limit_fault(self.max_nodes, &self.game));
            arena.scratch = moves;
            return 0..0;
        }
        if moves.len() > MAX_CHILDREN {
            arena.fault = Some(format!(
                "{}'s rules give {} moves from one position, more than the {MAX_CHILDREN} a node may have",
                self.game,
                moves.len()
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
        let count = (arena.records.len() - first) as u16;
        let first = first as u32;
        let slot = arena.records.get_mut(node.get());
        slot.first_child = first;
        slot.child_count = count;
        first..first + u32::from(count)
    }
}

impl<R: Rules> GameTree for Unfolding<R> {
    fn name(&self) -> &str {
        &self.name
    }

    fn game_name(&self) -> Option<&str> {
        Some(&self.game)
    }

    #[inline]
    fn kind(&self, node: NodeIndex) -> NodeKind {
        self.record(node).kind
    }

    fn child_range(&self, node: NodeIndex) -> Range<u32> {
        self.expand(node)
    }

    fn made_children(&self, node: NodeIndex) -> Option<Range<u32>> {
        let record = self.record(node);
        if record.kind == NodeKind::Terminal {
            return Some(0..0);
        }
        (record.first_child != UNEXPANDED)
            .then(|| record.first_child..record.first_child + u32::from(record.child_count))
    }

    fn utility(&self, node: NodeIndex) -> f64 {
        let arena = self.arena.borrow();
        let record = *arena.records.get(node.get());
        if record.kind != NodeKind::Terminal {
            return 0.0;
        }
        self.rules.utility(arena.states.get(node.get()), record.ply)
    }

    fn eval(&self, node: NodeIndex) -> Option<f64> {
        let which = self.eval?;
        let arena = self.arena.borrow();
        Some(self.rules.evaluate(which, arena.states.get(node.get())))
    }

    fn probability(&self, node: NodeIndex) -> f64 {
        let arena = self.arena.borrow();
        if node.get() < arena.probabilities.len() { *arena.probabilities.get(node.get()) } else { 1.0 }
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
        let mut id = String::new();
        self.write_id(node, &mut id);
        Cow::Owned(id)
    }

    fn write_id(&self, node: NodeIndex, out: &mut String) {
        if node == NodeIndex::ROOT {
            out.push_str("root");
            return;
        }
        let mut arena = self.arena.borrow_mut();
        let arena = &mut *arena;
        // Climb to the deepest node shared with the last id's path.
        arena.climb.clear();
        let mut at = node.0;
        loop {
            let ply = arena.records.get(at as usize).ply as usize;
            if arena.last_path.get(ply).is_some_and(|&(on_path, _)| on_path == at) {
                arena.last_path.truncate(ply + 1);
                let length = arena.last_path[ply].1;
                arena.last_id.truncate(length);
                break;
            }
            arena.climb.push(at);
            at = arena.records.get(at as usize).parent;
        }
        for &below in arena.climb.iter().rev() {
            if !arena.last_id.is_empty() {
                arena.last_id.push('-');
            }
            self.rules.action_name(*arena.actions.get(below as usize), &mut arena.last_id);
            arena.last_path.push((below, arena.last_id.len()));
        }
        out.push_str(&arena.last_id);
    }

    fn action(&self, node: NodeIndex) -> Cow<'_, str> {
        if node == NodeIndex::ROOT {
            return Cow::Borrowed("root");
        }
        let mut name = String::new();
        self.rules.action_name(*self.arena.borrow().actions.get(node.get()), &mut name);
        Cow::Owned(name)
    }

    fn state(&self, node: NodeIndex) -> Option<serde_json::Value> {
        Some(self.rules.state_json(self.arena.borrow().states.get(node.get())))
    }

    fn board(&self, node: NodeIndex) -> Option<String> {
        self.rules.board(self.arena.borrow().states.get(node.get()))
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
        self.arena.borrow().fault.clone().or_else(|| self.rules.fault())
    }
}

/// The words a search stopped at its node limit starts with.
const NODE_LIMIT_START: &str = "the search made more than";

/// Why a search was stopped at its node limit, and where the limit is set:
/// a file's depth, or `solve`'s flags (the only command that takes one).
fn node_limit_fault(max_nodes: usize, game: &str) -> String {
    format!(
        "{NODE_LIMIT_START} {max_nodes} nodes of {game}'s tree, so it was stopped rather than left to run for \
         hours: set a depth limit (`search: {{depth: N}}` in a file, `--depth N` with `solve`), or raise the \
         limit with `solve --max-nodes N`"
    )
}

/// Whether a fault is the one an unfolding gives when it reaches its node limit.
pub fn is_node_limit_fault(message: &str) -> bool {
    message.starts_with(NODE_LIMIT_START)
}
