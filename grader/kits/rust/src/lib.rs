//! The Rust side of the treegrade grader: explore a game tree that the grader
//! serves one node at a time.
//!
//! You write three functions that take a [`Game`] and return an [`Answer`],
//! and hand them to [`serve`] from `main`:
//!
//! ```no_run
//! use treegrade_kit::{serve, Answer, Game, Solutions};
//!
//! fn minimax(game: &Game) -> Answer {
//!     todo!("minimax")
//! }
//! # fn alphabeta(game: &Game) -> Answer { todo!() }
//! # fn expectimax(game: &Game) -> Answer { todo!() }
//!
//! fn main() {
//!     serve(Solutions { minimax, alphabeta, expectimax });
//! }
//! ```
//!
//! # How the grader sees your search
//!
//! You never get the whole tree. The grader tells you about a node only when
//! your code asks about it through the [`Game`] ([`Game::player`],
//! [`Game::children`], [`Game::is_terminal`], ...). The first time you ask
//! anything about a node, the node is *entered*, and the grader writes it
//! down. The list of entered nodes, in order, is your visited order, and it
//! must match the reference search exactly. So ask about a node only when your
//! search really enters it; asking again about an entered node is free.
//!
//! # Two traps
//!
//! - One program answers every test, one after the other: anything kept in
//!   a `static` or a `thread_local!` (a cache, a memo table, a counter)
//!   survives from one test to the next, and node ids repeat across trees.
//!   Keep all state inside your search functions. The grader reruns a test
//!   that failed after others alone, and tells you when it passes there.
//! - [`Game::depth`] is `None` without a depth limit, and `Some(0)` is a real
//!   limit (the root itself is evaluated): compare `game.depth() == Some(ply)`
//!   rather than treating 0 as "no limit".
//!
//! # Debug output
//!
//! While [`serve`] runs, `println!` writes to standard error (standard output
//! carries the protocol with the grader), and the grader shows it in the
//! report. `eprintln!` and `dbg!` work as usual.
//!
//! # Failures
//!
//! A panic in your code fails that test only and the grader goes on with the
//! next one: `todo!()` is reported as "not implemented yet", any other panic
//! with its message, location and a backtrace. The kit itself panics, with a
//! message that says why, when you call a method on the wrong kind of node
//! (the utility of a max node, the probabilities of a min node).
//!
//! The protocol the kit speaks is described in `docs/protocol.md` of the
//! treegrade repository.

#![warn(missing_docs)]

mod json;

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, Write};
use std::panic::{self, AssertUnwindSafe};
use std::rc::Rc;

pub use json::Json;

/// The version of the oracle protocol this kit speaks.
pub const PROTOCOL: u32 = 1;

/// The name this kit gives in its `hello`.
pub const KIT: &str = "treegrade-rust/1";

/// Stack size of the thread that runs your searches: deep trees need deep recursion.
const STACK_SIZE: usize = 512 << 20;
/// The stack tried when the large one is refused (a tight memory limit).
const SMALL_STACK_SIZE: usize = 32 << 20;

/// Longest `message` and `details` the kit sends (longer text is shortened in the middle).
const MAX_MESSAGE: usize = 4000;
const MAX_DETAILS: usize = 64 << 10;

// ---------------------------------------------------------------------------
// Public types
// ---------------------------------------------------------------------------

/// A node of the game tree: a cheap, clonable id such as `A` or `B.2`.
///
/// You get nodes from [`Game::root`], [`Game::children`] and
/// [`Game::successors`]; you cannot make one up. Cloning a `Node` copies a
/// pointer, not the text. It prints as its id.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Node(Rc<str>);

impl Node {
    /// The node's id.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Node {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for Node {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl AsRef<str> for Node {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

/// Whose turn it is at a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Player {
    /// MAX moves: the node's value is the greatest child value.
    Max,
    /// MIN moves: the node's value is the least child value.
    Min,
    /// Chance moves: the node's value is the probability-weighted sum of its children's values.
    Chance,
    /// The game is over: the node's value is its utility.
    Terminal,
}

impl Player {
    /// The protocol's name: `"max"`, `"min"`, `"chance"` or `"terminal"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Player::Max => "max",
            Player::Min => "min",
            Player::Chance => "chance",
            Player::Terminal => "terminal",
        }
    }

    fn parse(text: &str) -> Option<Player> {
        match text {
            "max" => Some(Player::Max),
            "min" => Some(Player::Min),
            "chance" => Some(Player::Chance),
            "terminal" => Some(Player::Terminal),
            _ => None,
        }
    }
}

impl fmt::Display for Player {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The algorithm a test asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// Plain minimax (the tree has no chance nodes).
    Minimax,
    /// Alpha-beta pruning, with the convention of [`Game::prune_on_equal`].
    AlphaBeta,
    /// Expectimax (max, min and chance nodes).
    Expectimax,
    /// Iterative deepening: alpha-beta at depth 1, 2, ..., [`Game::depth`],
    /// on a budget of nodes ([`Game::start_iteration`], [`Game::within_budget`]).
    IterativeDeepening,
    /// Max^n: every player maximises its own component of a utility vector
    /// ([`Game::mover`], [`Game::utilities`]).
    Maxn,
    /// Monte Carlo tree search (UCT) with the grader's random numbers ([`Game::random`]).
    Mcts,
}

impl Algorithm {
    /// The protocol's name: `"minimax"`, `"alphabeta"`, `"expectimax"`,
    /// `"iterative-deepening"`, `"maxn"` or `"mcts"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Algorithm::Minimax => "minimax",
            Algorithm::AlphaBeta => "alphabeta",
            Algorithm::Expectimax => "expectimax",
            Algorithm::IterativeDeepening => "iterative-deepening",
            Algorithm::Maxn => "maxn",
            Algorithm::Mcts => "mcts",
        }
    }

    fn parse(text: &str) -> Option<Algorithm> {
        match text {
            "minimax" => Some(Algorithm::Minimax),
            "alphabeta" => Some(Algorithm::AlphaBeta),
            "expectimax" => Some(Algorithm::Expectimax),
            "iterative-deepening" => Some(Algorithm::IterativeDeepening),
            "maxn" => Some(Algorithm::Maxn),
            "mcts" => Some(Algorithm::Mcts),
            _ => None,
        }
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a search returns: the root's value and the chosen action.
#[derive(Clone, Debug, PartialEq)]
pub struct Answer {
    /// The value of the root (a finite number).
    pub value: f64,
    /// The action (from [`Game::actions`] of the root) of the root's best
    /// child, or `None` when the root has no choice: a terminal root, a
    /// chance root, or a depth limit of 0.
    pub action: Option<String>,
}

impl Answer {
    /// An answer with an action: `Answer::new(3.0, "a1")`.
    pub fn new(value: f64, action: impl Into<String>) -> Answer {
        Answer { value, action: Some(action.into()) }
    }

    /// An answer without an action (the root has no choice).
    pub fn without_action(value: f64) -> Answer {
        Answer { value, action: None }
    }
}

/// What a max^n search returns: the root's utility vector and the chosen action.
#[derive(Clone, Debug, PartialEq)]
pub struct VectorAnswer {
    /// The root's vector: one finite number per player, player 1's first.
    pub value: Vec<f64>,
    /// The action of the root's best child, or `None` when the root has no choice.
    pub action: Option<String>,
}

/// What Monte Carlo tree search returns: the root's value (W/N), the chosen
/// action, and each root child's N and W.
#[derive(Clone, Debug, PartialEq)]
pub struct MctsAnswer {
    /// W/N of the root.
    pub value: f64,
    /// The action of the root child with the greatest N, or `None` when the root has no choice.
    pub action: Option<String>,
    /// `(n, w)` of each root child, in the order of [`Game::children`] of the root.
    pub counts: Vec<(u64, f64)>,
}

/// The searches beyond the three, for [`serve_more`]; each is optional
/// (`..MoreSolutions::default()`): a test of a search you leave out is
/// reported as not implemented.
#[derive(Clone, Copy, Debug, Default)]
pub struct MoreSolutions {
    /// Iterative deepening.
    pub iterative_deepening: Option<fn(&Game) -> Answer>,
    /// Max^n.
    pub maxn: Option<fn(&Game) -> VectorAnswer>,
    /// Monte Carlo tree search.
    pub mcts: Option<fn(&Game) -> MctsAnswer>,
}

/// Your three searches, one per algorithm, for [`serve`].
#[derive(Clone, Copy, Debug)]
pub struct Solutions {
    /// Plain minimax.
    pub minimax: fn(&Game) -> Answer,
    /// Alpha-beta pruning.
    pub alphabeta: fn(&Game) -> Answer,
    /// Expectimax.
    pub expectimax: fn(&Game) -> Answer,
}

/// Your agent, for assignments that play whole games: the action to play
/// from [`Game::root`] (one of `game.actions(&game.root())`). Hand it to
/// [`serve_playing`] beside your searches.
pub type ChooseMove = fn(&Game) -> String;

/// What the grader says of a move of a game (absent in a search).
#[derive(Clone, Debug)]
struct MoveInfo {
    side: Player,
    ply: u32,
    history: Vec<String>,
    position: Option<Json>,
    seed: Option<u64>,
    evaluation: Option<String>,
    time_limit: Option<f64>,
}

// ---------------------------------------------------------------------------
// The game
// ---------------------------------------------------------------------------

/// What the grader told about one node.
#[derive(Debug)]
struct NodeInfo {
    kind: Player,
    children: Vec<Node>,
    actions: Vec<String>,
    probs: Vec<f64>,
    value: f64,
    eval: Option<f64>,
    /// A max^n search's vectors: a terminal's utilities, the eval at the cut.
    values: Option<Vec<f64>>,
    evals: Option<Vec<f64>>,
    /// The player to move, from 1, in a max^n search.
    mover: Option<u32>,
    state: Option<Json>,
    static_values: Option<Vec<f64>>,
}

/// The game tree of one test, which you explore one node at a time.
///
/// Start at [`Game::root`] and move down with [`Game::children`] (or
/// [`Game::successors`], which also gives each edge's action).
///
/// Every method that takes a node *enters* it the first time it is called
/// with it: the grader records that your search entered the node, in that
/// order. Calling methods again on an entered node costs nothing.
pub struct Game {
    root: Node,
    algorithm: Algorithm,
    depth: Option<u32>,
    prune_on_equal: bool,
    move_ordering: bool,
    forward_pruning: Option<u32>,
    test: String,
    budget: Option<u32>,
    players: Option<u32>,
    iterations: Option<u32>,
    exploration: Option<f64>,
    reorder_root: bool,
    stop_when_complete: bool,
    iteration_depth: Cell<Option<u32>>,
    /// An iteration started once the budget was spent (a search that
    /// thought every iteration had a budget of its own).
    iteration_after_time_up: Cell<Option<u32>>,
    time_up: Cell<bool>,
    playing: Option<MoveInfo>,
    channel: RefCell<Channel>,
    nodes: RefCell<HashMap<Node, Rc<NodeInfo>>>,
    evals: RefCell<HashMap<Node, Json>>,
}

/// The budget of a search is spent: what a node method unwinds with when it
/// would enter a node past [`Game::budget`].
///
/// Run a search that may run out of nodes inside [`Game::within_budget`],
/// which turns this into `None`; the search's last complete answer is then
/// the one to return (iterative deepening).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeUp;

impl fmt::Debug for Game {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Game")
            .field("test", &self.test)
            .field("algorithm", &self.algorithm)
            .field("root", &self.root)
            .field("depth", &self.depth)
            .field("prune_on_equal", &self.prune_on_equal)
            .finish_non_exhaustive()
    }
}

impl Game {
    /// The root node, at ply 0.
    pub fn root(&self) -> Node {
        self.root.clone()
    }

    /// The algorithm this test asks for.
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    /// The depth limit in plies, or `None` for no limit.
    ///
    /// The root is at ply 0 and its children at ply 1. A non-terminal node
    /// at ply `depth` is not expanded: its value is [`Game::evaluate`]. A
    /// terminal keeps its utility at any ply.
    pub fn depth(&self) -> Option<u32> {
        self.depth
    }

    /// The alpha-beta pruning condition.
    ///
    /// `true`: a max node stops searching its remaining children as soon as
    /// its value is `>= beta` (a min node: `<= alpha`). `false`: only when it
    /// is strictly `> beta` (`< alpha`).
    pub fn prune_on_equal(&self) -> bool {
        self.prune_on_equal
    }

    /// The name of the test being run (handy in debug output).
    pub fn test(&self) -> &str {
        &self.test
    }

    /// In a move of a game, the side you play ([`Player::Max`] or
    /// [`Player::Min`]); `None` in a search.
    pub fn side(&self) -> Option<Player> {
        self.playing.as_ref().map(|playing| playing.side)
    }

    /// In a move of a game, the plies played so far (0 in a search).
    pub fn ply(&self) -> u32 {
        self.playing.as_ref().map_or(0, |playing| playing.ply)
    }

    /// In a move of a game, the actions played so far from the game's start.
    pub fn history(&self) -> &[String] {
        self.playing.as_ref().map_or(&[], |playing| &playing.history)
    }

    /// In a move of a game, the position to move from, known without
    /// entering the root. An agent with a copy of the rules of its own may
    /// start from it, but then only the wall clock limits it, and the report
    /// says so.
    pub fn position(&self) -> Option<&Json> {
        self.playing.as_ref().and_then(|playing| playing.position.as_ref())
    }

    /// In a move of a game, the seed for your own random choices: using it
    /// plays the same game on every run.
    pub fn seed(&self) -> Option<u64> {
        self.playing.as_ref().and_then(|playing| playing.seed)
    }

    /// In a move of a game, the name of the evaluation every node carries
    /// ([`Game::evaluate`] then works at any ply but a terminal), or `None`
    /// when the game is played without one.
    pub fn evaluation(&self) -> Option<&str> {
        self.playing.as_ref().and_then(|playing| playing.evaluation.as_deref())
    }

    /// In a move of a game, its wall-clock limit in seconds.
    pub fn time_limit(&self) -> Option<f64> {
        self.playing.as_ref().and_then(|playing| playing.time_limit)
    }

    /// The most nodes this search may enter, or `None` when only the wall
    /// clock limits it. A node method that would enter one more unwinds with
    /// [`TimeUp`]: see [`Game::within_budget`].
    pub fn budget(&self) -> Option<u32> {
        self.budget
    }

    /// `true` once this search has asked to enter a node past [`Game::budget`].
    pub fn time_is_up(&self) -> bool {
        self.time_up.get()
    }

    /// Runs `search`, or returns `None` if it ran out of the budget.
    ///
    /// Every node method unwinds with [`TimeUp`] once the budget is spent;
    /// this catches that and only that (any other panic goes on). An
    /// iterative deepening keeps the answer of the last depth that finished:
    ///
    /// ```no_run
    /// # use treegrade_kit::{Answer, Game};
    /// # fn alphabeta_to(game: &Game, depth: u32) -> Answer { todo!() }
    /// fn iterative_deepening(game: &Game, max_depth: u32) -> Option<Answer> {
    ///     let mut best = None;
    ///     for depth in 1..=max_depth {
    ///         match game.within_budget(|| alphabeta_to(game, depth)) {
    ///             Some(answer) => best = Some(answer),
    ///             None => break,
    ///         }
    ///     }
    ///     best
    /// }
    /// ```
    pub fn within_budget<T>(&self, search: impl FnOnce() -> T) -> Option<T> {
        match panic::catch_unwind(AssertUnwindSafe(search)) {
            Ok(answer) => Some(answer),
            Err(payload) if payload.is::<TimeUp>() => None,
            Err(payload) => panic::resume_unwind(payload),
        }
    }

    /// Unwinds with [`TimeUp`] when the grader refused a node, or refuses
    /// every node once it has.
    fn check_time(&self, reply: Option<&Json>) {
        if reply.is_some_and(|reply| reply.get("type").and_then(Json::as_str) == Some("timeup")) {
            self.time_up.set(true);
        }
        if self.time_up.get() {
            panic::panic_any(TimeUp);
        }
    }

    /// Whose turn it is at `node`.
    ///
    /// A node at the depth limit still reports its real kind; use your own
    /// ply count and [`Game::depth`] to know where to stop. In a max^n
    /// search player 1's nodes are [`Player::Max`] and every other
    /// player's [`Player::Min`]: ask [`Game::mover`] for the number.
    pub fn player(&self, node: &Node) -> Player {
        self.info(node).kind
    }

    /// In a max^n search, the number of players (2 for a tree of MAX and
    /// MIN, read as players 1 and 2); `None` in other searches.
    pub fn players(&self) -> Option<u32> {
        self.players
    }

    /// In a max^n search, the number of the player to move at `node`, from
    /// 1 to [`Game::players`]; `None` at chance nodes, terminals, and in
    /// other searches.
    pub fn mover(&self, node: &Node) -> Option<u32> {
        self.info(node).mover
    }

    /// In a max^n search, a terminal's utility vector: one number per
    /// player, player 1's first.
    ///
    /// # Panics
    ///
    /// If `node` is not a terminal, or outside a max^n search.
    #[track_caller]
    pub fn utilities(&self, node: &Node) -> Vec<f64> {
        let info = self.info(node);
        match (&info.values, info.kind) {
            (Some(values), Player::Terminal) => values.clone(),
            (_, Player::Terminal) => {
                panic!("game.utilities({node}): utility vectors are served in max^n searches only")
            }
            (_, kind) => {
                panic!("game.utilities({node}): {node} is a {kind} node, not a terminal; only terminals have a utility")
            }
        }
    }

    /// In a max^n search, the evaluation vector of a non-terminal node at
    /// the depth limit (see [`Game::evaluate`]).
    pub fn evaluate_vector(&self, node: &Node) -> Vec<f64> {
        if let Some(evals) = self.nodes.borrow().get(node).and_then(|info| info.evals.clone()) {
            return evals;
        }
        match self.request_eval(node).as_array() {
            Some(items) => items.iter().map(|item| item.as_f64().unwrap_or(f64::NAN)).collect(),
            None => vec![self.evaluate(node)],
        }
    }

    /// In Monte Carlo tree search, the number of iterations to run; `None` in other searches.
    pub fn iterations(&self) -> Option<u32> {
        self.iterations
    }

    /// In Monte Carlo tree search, the exploration constant c of UCB; `None` in other searches.
    pub fn exploration(&self) -> Option<f64> {
        self.exploration
    }

    /// The next random number of this search, in [0, 1), drawn by the grader.
    ///
    /// Monte Carlo tree search takes every random number from here, so that
    /// the grader can follow it step by step: one draw to pick a chance
    /// node's child (the first child j whose probabilities up to j add up
    /// to more than the draw), one draw per move of a rollout at a max or
    /// min node (child number `(r * n as f64) as usize`).
    pub fn random(&self) -> f64 {
        let mut channel = self.channel.borrow_mut();
        channel.send("{\"type\":\"random\"}\n");
        let reply = channel.receive().unwrap_or_else(|| fatal("the grader closed the connection during a search"));
        match (reply.get("type").and_then(Json::as_str), reply.get("value").and_then(Json::as_f64)) {
            (Some("random"), Some(value)) => value,
            _ => fatal(&format!("expected a random number from the grader, got {reply}")),
        }
    }

    /// Tells the grader that iterative deepening starts its iteration of
    /// depth limit `depth` (from 1 to [`Game::depth`]).
    ///
    /// Call it at the start of every iteration, before the iteration's
    /// search enters any node. Each iteration enters nodes afresh: the
    /// grader records every iteration's visited order one after the other,
    /// and every entry, in every iteration, counts against
    /// [`Game::budget`]. Unwinds with [`TimeUp`] once the time is up.
    pub fn start_iteration(&self, depth: u32) {
        if self.time_up.get() {
            self.iteration_after_time_up.set(Some(depth));
        }
        self.check_time(None);
        let mut channel = self.channel.borrow_mut();
        channel.send(&format!("{{\"type\":\"iteration\",\"depth\":{depth}}}\n"));
        let reply = channel.receive().unwrap_or_else(|| fatal("the grader closed the connection during a search"));
        if reply.get("type").and_then(Json::as_str) != Some("iteration") {
            fatal(&format!("expected the grader's reply to the start of iteration {depth}, got {reply}"));
        }
        self.iteration_depth.set(Some(depth));
        // Every node is entered again in the new iteration: ask the grader again.
        self.nodes.borrow_mut().clear();
        self.evals.borrow_mut().clear();
    }

    /// In iterative deepening, the depth limit of the iteration started last.
    pub fn iteration_depth(&self) -> Option<u32> {
        self.iteration_depth.get()
    }

    /// `true` when `node` is a terminal (a leaf of the game, with a utility).
    pub fn is_terminal(&self, node: &Node) -> bool {
        self.info(node).kind == Player::Terminal
    }

    /// The value of a terminal node for MAX.
    ///
    /// # Panics
    ///
    /// If `node` is not a terminal: check [`Game::is_terminal`] first.
    #[track_caller]
    pub fn utility(&self, node: &Node) -> f64 {
        let info = self.info(node);
        if info.kind != Player::Terminal {
            panic!(
                "game.utility({node}): {node} is a {} node, not a terminal; only terminals have a utility \
                 (check game.is_terminal(&node) first)",
                info.kind
            );
        }
        info.value
    }

    /// The children of `node`, in the order your search must visit them.
    ///
    /// Empty for a terminal. Getting the list does not enter the children:
    /// only asking about a child enters it.
    pub fn children(&self, node: &Node) -> Vec<Node> {
        self.info(node).children.clone()
    }

    /// The action (edge label) of each child of `node`, in the order of [`Game::children`].
    ///
    /// The action of the root's best child is what your search returns.
    /// Empty for a terminal.
    pub fn actions(&self, node: &Node) -> Vec<String> {
        self.info(node).actions.clone()
    }

    /// The pairs `(action, child)` of `node`, in search order.
    ///
    /// `for (action, child) in game.successors(&node) { ... }`. Empty for a
    /// terminal. Like [`Game::children`], this does not enter the children.
    pub fn successors(&self, node: &Node) -> Vec<(String, Node)> {
        let info = self.info(node);
        info.actions.iter().cloned().zip(info.children.iter().cloned()).collect()
    }

    /// The probability of each child of a chance node, in the order of [`Game::children`].
    ///
    /// # Panics
    ///
    /// If `node` is not a chance node.
    #[track_caller]
    pub fn probabilities(&self, node: &Node) -> Vec<f64> {
        let info = self.info(node);
        if info.kind != Player::Chance {
            panic!("game.probabilities({node}): {node} is a {} node; only chance nodes have probabilities", info.kind);
        }
        info.probs.clone()
    }

    /// Whether this search takes the children of every max and min node
    /// above the depth limit by static value ([`Game::static_values`]), best
    /// for the player to move first, instead of in the order of [`Game::children`].
    pub fn move_ordering(&self) -> bool {
        self.move_ordering
    }

    /// Forward pruning's N (docs/format.md 8.5): at every max and min node
    /// above the depth limit, search only the first N children of the order
    /// [`Game::static_values`] gives (best for the player to move first,
    /// equal values keeping their order) and never touch the others; a node
    /// with N children or fewer searches them all, still in that order.
    /// Chance nodes and nodes at the depth limit are never cut. `None` when
    /// every child is searched; [`Game::move_ordering`] is then true.
    pub fn forward_pruning(&self) -> Option<u32> {
        self.forward_pruning
    }

    /// In iterative deepening: whether each iteration searches first the
    /// root child the previous one chose (true, docs/format.md 8.2) or keeps
    /// the tree's order at the root too (false: MIT 6.034's progressive
    /// deepening).
    pub fn reorder_root(&self) -> bool {
        self.reorder_root
    }

    /// In iterative deepening: whether to stop once an iteration saw the
    /// whole tree (true) or to run every depth up to [`Game::depth`] (false).
    pub fn stop_when_complete(&self) -> bool {
        self.stop_when_complete
    }

    /// The static value of each child of `node`, in the order of
    /// [`Game::children`]: a terminal child's utility, any other child's
    /// evaluation. Served only under [`Game::move_ordering`], for max and
    /// min nodes above the depth limit (`None` elsewhere). Getting them does
    /// not enter the children. Sort the children by them (greatest first at
    /// a max node, least first at a min node, equal values keeping their
    /// order: a stable sort) and search them in that order.
    pub fn static_values(&self, node: &Node) -> Option<Vec<f64>> {
        self.info(node).static_values.clone()
    }

    /// The position at `node`, for trees given by a game; `None` otherwise.
    ///
    /// For an m,n,k-game (tic-tac-toe, connect-four, gomoku) it is the object
    /// `{"board": ["x.o", ".x.", "o.."], "to_move": "x"}`: the rows from the
    /// top, and whose turn it is (`null` once the game is over). For Pig it
    /// is `{"scores": [S0, S1], "turn_total": T, "to_move": 0, "target":
    /// 20}`. Asking for the state enters the node. Use it to write your own
    /// evaluation function.
    pub fn state(&self, node: &Node) -> Option<Json> {
        self.info(node).state.clone()
    }

    /// The rows of an m,n,k-game's board at `node`, top row first (`x`, `o`
    /// or `.` in each); `None` without a board. Enters the node.
    pub fn board(&self, node: &Node) -> Option<Vec<String>> {
        let state = self.state(node)?;
        let rows = state.get("board")?.as_array()?;
        rows.iter().map(|row| row.as_str().map(str::to_string)).collect()
    }

    /// The heuristic value of a non-terminal node at the depth limit.
    ///
    /// Call it only for a node at ply [`Game::depth`] that is not a terminal
    /// (a terminal at the limit keeps its utility). Asking for the
    /// evaluation of any other node is an error that stops the test.
    pub fn evaluate(&self, node: &Node) -> f64 {
        if let Some(eval) = self.nodes.borrow().get(node).and_then(|info| info.eval) {
            return eval;
        }
        match self.request_eval(node).as_f64() {
            Some(value) => value,
            None => fatal(&format!("the grader's evaluation of node {node} has no number `value`")),
        }
    }

    /// The grader's `value` for `evaluate` of `node`, asked once per node.
    fn request_eval(&self, node: &Node) -> Json {
        if let Some(value) = self.evals.borrow().get(node) {
            return value.clone();
        }
        self.check_time(None);
        let mut reply = self.channel.borrow_mut().request("evaluate", node);
        self.check_time(Some(&reply));
        if reply.get("type").and_then(Json::as_str) != Some("eval")
            || reply.get("node").and_then(Json::as_str) != Some(node.as_str())
        {
            fatal(&format!("expected the grader's evaluation of node {node}, got {reply}"));
        }
        let value =
            reply.take("value").unwrap_or_else(|| fatal(&format!("the grader's evaluation of {node} has no `value`")));
        self.evals.borrow_mut().insert(node.clone(), value.clone());
        value
    }

    /// The cached reply about `node`, asking the grader (entering the node) the first time.
    fn info(&self, node: &Node) -> Rc<NodeInfo> {
        if let Some(info) = self.nodes.borrow().get(node) {
            return Rc::clone(info);
        }
        self.check_time(None);
        let reply = self.channel.borrow_mut().request("visit", node);
        self.check_time(Some(&reply));
        let info = Rc::new(node_info(node, reply));
        self.nodes.borrow_mut().insert(node.clone(), Rc::clone(&info));
        info
    }
}

/// Reads a `node` reply.
fn node_info(node: &Node, mut reply: Json) -> NodeInfo {
    if reply.get("type").and_then(Json::as_str) != Some("node")
        || reply.get("node").and_then(Json::as_str) != Some(node.as_str())
    {
        fatal(&format!("expected the grader's reply about node {node}, got {reply}"));
    }
    let bad = |what: &str| -> ! { fatal(&format!("the grader's reply about node {node} has {what}")) };
    let kind = match reply.get("kind").and_then(Json::as_str).and_then(Player::parse) {
        Some(kind) => kind,
        None => bad("no valid `kind`"),
    };
    let strings = |value: Option<Json>, what: &str| -> Option<Vec<String>> {
        match value {
            None | Some(Json::Null) => None,
            Some(Json::Array(items)) => {
                Some(items.into_iter().map(|item| item.into_string().unwrap_or_else(|| bad(what))).collect())
            }
            Some(_) => bad(what),
        }
    };
    let children: Vec<Node> = strings(reply.take("children"), "a bad `children` list")
        .unwrap_or_default()
        .into_iter()
        .map(|id| Node(Rc::from(id)))
        .collect();
    let actions = strings(reply.take("actions"), "a bad `actions` list")
        .unwrap_or_else(|| children.iter().map(|child| child.as_str().to_string()).collect());
    if actions.len() != children.len() {
        bad("as many `actions` as `children`");
    }
    let probs = match reply.take("probs") {
        None | Some(Json::Null) if kind == Player::Chance => vec![1.0 / children.len() as f64; children.len()],
        None | Some(Json::Null) => Vec::new(),
        Some(Json::Array(items)) => {
            items.iter().map(|item| item.as_f64().unwrap_or_else(|| bad("a bad `probs` list"))).collect()
        }
        Some(_) => bad("a bad `probs` list"),
    };
    let vector = |value: Option<&Json>| -> Option<Vec<f64>> {
        let items = value?.as_array()?;
        Some(items.iter().map(|item| item.as_f64().unwrap_or_else(|| bad("a bad vector"))).collect())
    };
    let values = vector(reply.get("value"));
    let evals = vector(reply.get("eval"));
    let value = match (kind, reply.get("value").and_then(Json::as_f64), &values) {
        (Player::Terminal, None, None) => bad("no number `value` for a terminal"),
        (_, value, values) => value.or_else(|| values.as_ref().and_then(|v| v.first().copied())).unwrap_or(0.0),
    };
    let eval = reply.get("eval").and_then(Json::as_f64).or_else(|| evals.as_ref().and_then(|v| v.first().copied()));
    let mover = reply.get("player").and_then(Json::as_f64).map(|player| player as u32);
    let state = match reply.take("state") {
        None | Some(Json::Null) => None,
        Some(state) => Some(state),
    };
    let static_values = match reply.take("static_values") {
        None | Some(Json::Null) => None,
        Some(Json::Array(items)) => {
            Some(items.iter().map(|item| item.as_f64().unwrap_or_else(|| bad("a bad `static_values` list"))).collect())
        }
        Some(_) => bad("a bad `static_values` list"),
    };
    NodeInfo { kind, children, actions, probs, value, eval, values, evals, mover, state, static_values }
}

// ---------------------------------------------------------------------------
// The pipe to the grader
// ---------------------------------------------------------------------------

/// The protocol's line-based request and reply over the program's stdin and (the real) stdout.
struct Channel {
    input: io::StdinLock<'static>,
    output: File,
    line: String,
    out: String,
}

impl Channel {
    /// Sends `{"type":KIND,"node":NODE}` and returns the reply.
    fn request(&mut self, kind: &str, node: &Node) -> Json {
        self.out.clear();
        self.out.push_str("{\"type\":\"");
        self.out.push_str(kind);
        self.out.push_str("\",\"node\":");
        json::write_string(&mut self.out, node.as_str());
        self.out.push_str("}\n");
        self.send_out();
        match self.receive() {
            Some(reply) => reply,
            None => fatal("the grader closed the connection in the middle of a search"),
        }
    }

    /// Writes the line in `self.out` with one system call (usually).
    fn send_out(&mut self) {
        if let Err(error) = self.output.write_all(self.out.as_bytes()) {
            fatal(&format!("cannot write to the grader ({error}); it has probably stopped this program"));
        }
    }

    /// Sends one line (built elsewhere).
    fn send(&mut self, line: &str) {
        self.out.clear();
        self.out.push_str(line);
        self.send_out();
    }

    /// Reads one message; `None` at the end of input. A grader `error` stops the program.
    fn receive(&mut self) -> Option<Json> {
        self.line.clear();
        match self.input.read_line(&mut self.line) {
            Ok(0) => return None,
            Ok(_) => {}
            Err(error) => fatal(&format!("cannot read from the grader: {error}")),
        }
        let message = match Json::parse(&self.line) {
            Ok(message @ Json::Object(_)) => message,
            Ok(_) => fatal(&format!("the grader sent a line that is not a JSON object: {}", self.line.trim_end())),
            Err(error) => {
                fatal(&format!("the grader sent a line that is not JSON ({error}): {}", self.line.trim_end()))
            }
        };
        if message.get("type").and_then(Json::as_str) == Some("error") {
            let text = message.get("message").and_then(Json::as_str).unwrap_or("(no message)");
            fatal(&format!("the grader reported an error: {text}"));
        }
        Some(message)
    }
}

/// Reports a broken connection with the grader on stderr and exits with status 3.
fn fatal(message: &str) -> ! {
    let _ = io::stdout().flush();
    eprintln!("treegrade-kit: {message}");
    std::process::exit(3)
}

/// Opens the protocol's output and points the program's stdout at stderr.
#[cfg(unix)]
fn protocol_output() -> File {
    use std::os::unix::io::FromRawFd;
    extern "C" {
        fn dup(fd: i32) -> i32;
        fn dup2(from: i32, to: i32) -> i32;
    }
    let _ = io::stdout().flush();
    // SAFETY: dup and dup2 only act on the process's file descriptor table;
    // fd 1 and 2 are open for the whole life of the program, the new fd
    // returned by dup is checked and owned by nobody else, and `File` becomes
    // its only owner. After dup2, fd 1 is a second name for stderr, so that
    // `println!` (which writes to fd 1) no longer reaches the grader.
    unsafe {
        let fd = dup(1);
        if fd < 0 {
            fatal(&format!("cannot duplicate standard output: {}", io::Error::last_os_error()));
        }
        if dup2(2, 1) < 0 {
            fatal(&format!("cannot redirect standard output to stderr: {}", io::Error::last_os_error()));
        }
        File::from_raw_fd(fd)
    }
}

/// Opens the protocol's output (other platforms: stdout itself; `println!` must not be used there).
#[cfg(not(unix))]
fn protocol_output() -> File {
    fatal("the treegrade Rust kit runs on Unix-like systems only (Linux, macOS, WSL)")
}

// ---------------------------------------------------------------------------
// Serving the grader
// ---------------------------------------------------------------------------

/// The panic of the student's code being run, as the hook saw it.
struct PanicReport {
    message: String,
    location: String,
    backtrace: Option<String>,
}

thread_local! {
    static IN_STUDENT_CODE: Cell<bool> = const { Cell::new(false) };
    static LAST_PANIC: RefCell<Option<PanicReport>> = const { RefCell::new(None) };
}

fn is_todo(message: &str) -> bool {
    message.starts_with("not yet implemented") || message.starts_with("not implemented")
}

fn install_panic_hook() {
    let default_hook = panic::take_hook();
    panic::set_hook(Box::new(move |info| {
        if !IN_STUDENT_CODE.with(Cell::get) {
            default_hook(info);
            return;
        }
        let payload = info.payload();
        if payload.is::<TimeUp>() {
            return; // the budget is spent: not a bug, and caught by `within_budget` or reported as such
        }
        let message = payload
            .downcast_ref::<&str>()
            .map(|text| text.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "(a panic without a message)".to_string());
        let location =
            info.location().map(|at| format!("{}:{}:{}", at.file(), at.line(), at.column())).unwrap_or_default();
        let backtrace = if is_todo(&message) {
            None
        } else {
            Some(student_frames(&std::backtrace::Backtrace::force_capture().to_string()))
        };
        LAST_PANIC.with(|last| *last.borrow_mut() = Some(PanicReport { message, location, backtrace }));
    }));
}

/// Keeps the frames of a backtrace that belong to the student's code (not std's, libc's, nor the kit's).
fn student_frames(backtrace: &str) -> String {
    const HIDDEN_SYMBOLS: [&str; 14] = [
        "std::",
        "core::",
        "alloc::",
        "<std::",
        "<core::",
        "<alloc::",
        "rust_begin_unwind",
        "__rust",
        "treegrade_kit::",
        "<treegrade_kit::",
        "__libc",
        "_start",
        "start_thread",
        "clone",
    ];
    let mut frames: Vec<Vec<&str>> = Vec::new();
    for line in backtrace.lines() {
        let trimmed = line.trim_start();
        let is_header = trimmed.split_once(": ").is_some_and(|(number, _)| number.chars().all(|c| c.is_ascii_digit()));
        match frames.last_mut() {
            Some(frame) if !is_header => frame.push(line),
            _ => frames.push(vec![line]),
        }
    }
    let mut out = String::new();
    for frame in frames {
        let symbol = frame[0].trim_start().split_once(": ").map_or("", |(_, symbol)| symbol);
        let hidden_symbol = symbol == "main"
            || HIDDEN_SYMBOLS.iter().any(|prefix| symbol.starts_with(prefix))
            || symbol.contains(" as core::")
            || symbol.contains(" as std::")
            || symbol.contains(" as alloc::");
        let in_library = frame[1..].iter().any(|line| {
            let at = line.trim_start();
            at.starts_with("at /rustc/")
                || at.starts_with("at ./nptl/")
                || at.starts_with("at ./misc/")
                || at.contains("/sysdeps/")
        });
        if !hidden_symbol && !in_library {
            for line in frame {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    if out.is_empty() {
        "(no frames of your code in the backtrace: build with debug info to see them)".to_string()
    } else {
        format!("backtrace (your code only):\n{out}")
    }
}

fn shorten(text: &str, limit: usize) -> String {
    if text.len() <= limit {
        return text.to_string();
    }
    let mut head = limit / 2;
    while !text.is_char_boundary(head) {
        head -= 1;
    }
    let mut tail = text.len() - limit / 2;
    while !text.is_char_boundary(tail) {
        tail += 1;
    }
    format!("{}\n... ({} bytes left out) ...\n{}", &text[..head], tail - head, &text[tail..])
}

fn error_line(kind: &str, message: &str, details: Option<&str>) -> String {
    let mut members = vec![
        ("type".to_string(), Json::String("error".to_string())),
        ("kind".to_string(), Json::String(kind.to_string())),
        ("message".to_string(), Json::String(shorten(message, MAX_MESSAGE))),
    ];
    if let Some(details) = details {
        members.push(("details".to_string(), Json::String(shorten(details, MAX_DETAILS))));
    }
    let mut line = Json::Object(members).to_string();
    line.push('\n');
    line
}

fn result_line(name: &str, answer: &Answer) -> String {
    if !answer.value.is_finite() {
        return error_line(
            "exception",
            &format!(
                "{name} returned the value {}; the value must be a finite number (did a max or min node keep \
                 its initial -inf/inf because it had no child searched?)",
                answer.value
            ),
            None,
        );
    }
    let mut line = String::from("{\"type\":\"result\",\"value\":");
    json::write_number(&mut line, answer.value);
    line.push_str(",\"action\":");
    match &answer.action {
        Some(action) => json::write_string(&mut line, action),
        None => line.push_str("null"),
    }
    line.push_str("}\n");
    line
}

/// The `result` of a max^n search: the vector as a list.
fn vector_line(name: &str, answer: &VectorAnswer, players: Option<u32>) -> String {
    let expected = players.unwrap_or(2) as usize;
    if answer.value.len() != expected || answer.value.iter().any(|value| !value.is_finite()) {
        return error_line(
            "exception",
            &format!(
                "{name} returned the value {:?}; in a max^n search the value is the root's utility vector, \
                 {expected} finite numbers",
                answer.value
            ),
            None,
        );
    }
    let mut line = String::from("{\"type\":\"result\",\"value\":[");
    for (index, &value) in answer.value.iter().enumerate() {
        if index > 0 {
            line.push(',');
        }
        json::write_number(&mut line, value);
    }
    line.push_str("],\"action\":");
    match &answer.action {
        Some(action) => json::write_string(&mut line, action),
        None => line.push_str("null"),
    }
    line.push_str("}\n");
    line
}

/// The `result` of Monte Carlo tree search: value, action and the root children's counts.
fn mcts_line(name: &str, answer: &MctsAnswer, root_actions: &[String]) -> String {
    if answer.counts.len() != root_actions.len() {
        return error_line(
            "exception",
            &format!(
                "{name} returned {} counts, but the root has {} children: give (n, w) for each, in the order \
                 of game.children(&root)",
                answer.counts.len(),
                root_actions.len()
            ),
            None,
        );
    }
    let mut line = result_line(name, &Answer { value: answer.value, action: answer.action.clone() });
    if !line.starts_with("{\"type\":\"result\"") || answer.counts.iter().any(|(_, w)| !w.is_finite()) {
        return line;
    }
    line.truncate(line.len() - 2); // the closing brace and the line break
    line.push_str(",\"children\":[");
    for (index, (action, (n, w))) in root_actions.iter().zip(&answer.counts).enumerate() {
        if index > 0 {
            line.push(',');
        }
        line.push_str("{\"action\":");
        json::write_string(&mut line, action);
        line.push_str(&format!(",\"n\":{n},\"w\":"));
        json::write_number(&mut line, *w);
        line.push('}');
    }
    line.push_str("]}\n");
    line
}

/// Runs one `search` message through the student's function; returns the channel and the line to send.
fn run_search(channel: Channel, search: &Json, solutions: &Solutions, more: &MoreSolutions) -> (Channel, String) {
    let name = search.get("algorithm").and_then(Json::as_str).unwrap_or("");
    let Some(algorithm) = Algorithm::parse(name) else {
        let message = format!(
            "this kit has no search for the algorithm {name:?} (it knows minimax, alphabeta, expectimax, \
             iterative-deepening, maxn, mcts)"
        );
        return (channel, error_line("not_implemented", &message, None));
    };
    let root = match search.get("root").and_then(Json::as_str) {
        Some(root) => Node(Rc::from(root)),
        None => fatal(&format!("the grader's search has no `root`: {search}")),
    };
    let depth = match search.get("depth") {
        None | Some(Json::Null) => None,
        Some(Json::Number(depth)) if *depth >= 0.0 && depth.fract() == 0.0 && *depth <= f64::from(u32::MAX) => {
            Some(*depth as u32)
        }
        Some(other) => fatal(&format!("the grader's search has a bad `depth`: {other}")),
    };
    let budget = match search.get("budget") {
        None | Some(Json::Null) => None,
        Some(Json::Number(budget)) if *budget >= 1.0 && budget.fract() == 0.0 && *budget <= f64::from(u32::MAX) => {
            Some(*budget as u32)
        }
        Some(other) => fatal(&format!("the grader's search has a bad `budget`: {other}")),
    };
    let count = |key: &str| match search.get(key) {
        Some(Json::Number(value)) if *value >= 1.0 && value.fract() == 0.0 && *value <= f64::from(u32::MAX) => {
            Some(*value as u32)
        }
        _ => None,
    };
    let game = Game {
        root,
        algorithm,
        depth,
        budget,
        players: count("players"),
        iterations: count("iterations"),
        exploration: search.get("exploration").and_then(Json::as_f64),
        // Absent unless false: the default is 8.2's iterative deepening.
        reorder_root: search.get("reorder_root").and_then(Json::as_bool) != Some(false),
        stop_when_complete: search.get("stop_when_complete").and_then(Json::as_bool) != Some(false),
        iteration_depth: Cell::new(None),
        iteration_after_time_up: Cell::new(None),
        time_up: Cell::new(false),
        playing: None,
        prune_on_equal: search.get("prune_on_equal").and_then(Json::as_bool).unwrap_or(true),
        move_ordering: search.get("move_ordering").and_then(Json::as_str) == Some("eval"),
        forward_pruning: count("forward_pruning"),
        test: search.get("test").and_then(Json::as_str).unwrap_or("").to_string(),
        channel: RefCell::new(channel),
        nodes: RefCell::new(HashMap::new()),
        evals: RefCell::new(HashMap::new()),
    };
    let missing = |function: &str| {
        let message = format!(
            "no function for {name}: write `fn {function}(game: &Game)` and pass it to serve_more(), as in \
             `serve_more(Solutions {{ minimax, alphabeta, expectimax }}, MoreSolutions {{ {function}: \
             Some({function}), ..MoreSolutions::default() }})`"
        );
        error_line("not_implemented", &message, None)
    };
    let run: Box<dyn Fn(&Game) -> String> = match algorithm {
        Algorithm::Minimax => Box::new(|game: &Game| result_line(name, &(solutions.minimax)(game))),
        Algorithm::AlphaBeta => Box::new(|game: &Game| result_line(name, &(solutions.alphabeta)(game))),
        Algorithm::Expectimax => Box::new(|game: &Game| result_line(name, &(solutions.expectimax)(game))),
        Algorithm::IterativeDeepening => match more.iterative_deepening {
            Some(function) => Box::new(move |game: &Game| result_line(name, &function(game))),
            None => return (game.channel.into_inner(), missing("iterative_deepening")),
        },
        Algorithm::Maxn => match more.maxn {
            Some(function) => Box::new(move |game: &Game| vector_line(name, &function(game), game.players)),
            None => return (game.channel.into_inner(), missing("maxn")),
        },
        Algorithm::Mcts => match more.mcts {
            Some(function) => Box::new(move |game: &Game| {
                let answer = function(game);
                let root_actions = game.nodes.borrow().get(&game.root).map(|info| info.actions.clone());
                mcts_line(name, &answer, &root_actions.unwrap_or_default())
            }),
            None => return (game.channel.into_inner(), missing("mcts")),
        },
    };
    IN_STUDENT_CODE.with(|flag| flag.set(true));
    let outcome = panic::catch_unwind(AssertUnwindSafe(|| run(&game)));
    IN_STUDENT_CODE.with(|flag| flag.set(false));
    drop(run);
    let line = match outcome {
        Ok(line) => line,
        Err(payload) if payload.is::<TimeUp>() && game.iteration_after_time_up.get().is_some() => {
            let budget = game.budget.unwrap_or(0);
            let depth = game.iteration_after_time_up.get().unwrap_or(0);
            let message = format!(
                "{name} started iteration {depth} after its budget of {budget} nodes was spent: the budget counts \
                 the nodes of all iterations together and does not start again with each iteration; once the \
                 time is up, return the answer of the last iteration that finished"
            );
            error_line("iteration_after_time_up", &message, None)
        }
        Err(payload) if payload.is::<TimeUp>() => {
            let budget = game.budget.unwrap_or(0);
            let message = format!(
                "{name} used its whole budget of {budget} nodes and did not answer: run the search inside \
                 game.within_budget(...) and return the best answer found so far"
            );
            error_line("exception", &message, None)
        }
        Err(_) => panic_line(name),
    };
    (game.channel.into_inner(), line)
}

/// Runs one `move` message through the student's `choose_move`; returns the channel and the line to send.
fn run_move(channel: Channel, message: &Json, choose_move: Option<ChooseMove>) -> (Channel, String) {
    let Some(choose_move) = choose_move else {
        let message = "no choose_move: write `fn choose_move(game: &Game) -> String` and serve it with \
                       serve_playing(Solutions { ... }, choose_move)";
        return (channel, error_line("not_implemented", message, None));
    };
    let root = match message.get("root").and_then(Json::as_str) {
        Some(root) => Node(Rc::from(root)),
        None => fatal(&format!("the grader's move has no `root`: {message}")),
    };
    let number = |key: &str| message.get(key).and_then(Json::as_f64);
    let whole = |key: &str| number(key).filter(|n| *n >= 0.0 && n.fract() == 0.0);
    let history = match message.get("moves") {
        Some(Json::Array(moves)) => moves.iter().filter_map(|m| m.as_str().map(str::to_string)).collect(),
        _ => Vec::new(),
    };
    let playing = MoveInfo {
        side: if message.get("player").and_then(Json::as_str) == Some("min") { Player::Min } else { Player::Max },
        ply: whole("ply").map_or(0, |ply| ply as u32),
        history,
        position: message.get("state").cloned(),
        seed: whole("seed").map(|seed| seed as u64),
        evaluation: message.get("eval").and_then(Json::as_str).map(str::to_string),
        time_limit: number("time_limit"),
    };
    let game = Game {
        root,
        algorithm: Algorithm::Minimax,
        depth: None,
        budget: whole("budget").filter(|budget| *budget >= 1.0).map(|budget| budget as u32),
        players: None,
        iterations: None,
        exploration: None,
        reorder_root: true,
        stop_when_complete: true,
        iteration_depth: Cell::new(None),
        iteration_after_time_up: Cell::new(None),
        time_up: Cell::new(false),
        playing: Some(playing),
        prune_on_equal: true,
        move_ordering: false,
        forward_pruning: None,
        test: message.get("label").and_then(Json::as_str).unwrap_or("").to_string(),
        channel: RefCell::new(channel),
        nodes: RefCell::new(HashMap::new()),
        evals: RefCell::new(HashMap::new()),
    };
    IN_STUDENT_CODE.with(|flag| flag.set(true));
    let outcome = panic::catch_unwind(AssertUnwindSafe(|| choose_move(&game)));
    IN_STUDENT_CODE.with(|flag| flag.set(false));
    let line = match outcome {
        Ok(action) => {
            let mut line = String::from("{\"type\":\"result\",\"value\":null,\"action\":");
            json::write_string(&mut line, &action);
            line.push_str("}\n");
            line
        }
        Err(payload) if payload.is::<TimeUp>() => {
            let budget = game.budget.unwrap_or(0);
            let message = format!(
                "choose_move used its whole budget of {budget} nodes and did not answer: run each search inside \
                 game.within_budget(...) and return the best move found so far"
            );
            error_line("exception", &message, None)
        }
        Err(_) => panic_line("choose_move"),
    };
    (game.channel.into_inner(), line)
}

/// The `error` line for a panic in the student's function `name`: "not
/// implemented yet" for `todo!()`, else the message, the location and a
/// backtrace.
fn panic_line(name: &str) -> String {
    let report = LAST_PANIC.with(|last| last.borrow_mut().take()).unwrap_or(PanicReport {
        message: "(unknown panic)".to_string(),
        location: String::new(),
        backtrace: None,
    });
    if is_todo(&report.message) {
        let detail = report.message.split_once(": ").map_or("", |(_, detail)| detail);
        let message = if detail.is_empty() {
            format!("{name} is not implemented yet: write the body of `fn {name}` (todo!() at {})", report.location)
        } else {
            format!("{name} is not implemented yet: {detail} (at {})", report.location)
        };
        error_line("not_implemented", &message, None)
    } else {
        let message = format!("{name} panicked at {}: {}", report.location, report.message);
        error_line("exception", &message, report.backtrace.as_deref())
    }
}

fn serve_loop(solutions: Solutions, more: MoreSolutions, choose_move: Option<ChooseMove>, output: File) -> i32 {
    let mut channel = Channel { input: io::stdin().lock(), output, line: String::new(), out: String::new() };
    loop {
        let Some(message) = channel.receive() else {
            return 0; // the grader is gone; nothing left to do
        };
        match message.get("type").and_then(Json::as_str) {
            Some("search") => {
                let (returned, line) = run_search(channel, &message, &solutions, &more);
                channel = returned;
                channel.send(&line);
            }
            Some("move") => {
                let (returned, line) = run_move(channel, &message, choose_move);
                channel = returned;
                channel.send(&line);
            }
            Some("hello") => {
                channel.send(&format!("{{\"type\":\"hello\",\"protocol\":{PROTOCOL},\"kit\":\"{KIT}\"}}\n"));
            }
            Some("bye") => return 0,
            _ => fatal(&format!("the grader sent a message this kit does not know: {message}")),
        }
    }
}

/// Serves your searches to the grader until it says `bye`, then exits the program.
///
/// Call it from `main`:
///
/// ```no_run
/// # use treegrade_kit::{serve, Answer, Game, Solutions};
/// # fn minimax(game: &Game) -> Answer { todo!() }
/// # fn alphabeta(game: &Game) -> Answer { todo!() }
/// # fn expectimax(game: &Game) -> Answer { todo!() }
/// fn main() {
///     serve(Solutions { minimax, alphabeta, expectimax });
/// }
/// ```
///
/// For every test, the function for that test's algorithm is called with a
/// fresh [`Game`]. A panic fails that test only: `todo!()` is reported as not
/// implemented yet, any other panic with its message and a backtrace.
///
/// While it serves, `println!` writes to standard error; standard output
/// carries the protocol. The searches run on a thread with a 512 MiB stack,
/// so that recursion over deep trees does not overflow. The program is meant
/// to be started by the grader (`treegrade check`), not by hand.
pub fn serve(solutions: Solutions) -> ! {
    serve_more(solutions, MoreSolutions::default())
}

/// Serves your searches and your agent to the grader, for assignments that
/// play whole games: like [`serve`], and every move of a game is asked of
/// `choose_move` ([`serve_agent`] serves it beside [`MoreSolutions`]).
///
/// ```no_run
/// # use treegrade_kit::{serve_playing, Answer, Game, Solutions};
/// # fn minimax(game: &Game) -> Answer { todo!() }
/// # fn alphabeta(game: &Game) -> Answer { todo!() }
/// # fn expectimax(game: &Game) -> Answer { todo!() }
/// fn choose_move(game: &Game) -> String {
///     game.actions(&game.root())[0].clone()
/// }
///
/// fn main() {
///     serve_playing(Solutions { minimax, alphabeta, expectimax }, choose_move);
/// }
/// ```
///
/// In a move, [`Game::root`] is the position to move from; [`Game::side`],
/// [`Game::ply`], [`Game::history`], [`Game::position`], [`Game::seed`]
/// and [`Game::evaluation`] tell more, and [`Game::budget`] is the move's
/// clock counted in nodes (run searches inside [`Game::within_budget`]).
/// A panic loses that game only.
pub fn serve_playing(solutions: Solutions, choose_move: ChooseMove) -> ! {
    serve_agent(solutions, MoreSolutions::default(), choose_move)
}

/// Serves your searches, the searches beyond them and your agent: what
/// [`serve_more`] and [`serve_playing`] do together.
pub fn serve_agent(solutions: Solutions, more: MoreSolutions, choose_move: ChooseMove) -> ! {
    serve_all(solutions, more, Some(choose_move))
}

/// Serves your three searches and the searches beyond them (iterative
/// deepening, max^n, Monte Carlo tree search) until the grader says `bye`,
/// as [`serve`] does.
///
/// ```no_run
/// # use treegrade_kit::{serve_more, Answer, Game, MoreSolutions, Solutions, VectorAnswer};
/// # fn minimax(game: &Game) -> Answer { todo!() }
/// # fn alphabeta(game: &Game) -> Answer { todo!() }
/// # fn expectimax(game: &Game) -> Answer { todo!() }
/// # fn maxn(game: &Game) -> VectorAnswer { todo!() }
/// fn main() {
///     let more = MoreSolutions { maxn: Some(maxn), ..MoreSolutions::default() };
///     serve_more(Solutions { minimax, alphabeta, expectimax }, more);
/// }
/// ```
pub fn serve_more(solutions: Solutions, more: MoreSolutions) -> ! {
    serve_all(solutions, more, None)
}

fn serve_all(solutions: Solutions, more: MoreSolutions, choose_move: Option<ChooseMove>) -> ! {
    let output = protocol_output();
    install_panic_hook();
    // Under a tight memory limit a large stack may be refused: try smaller
    // ones, and at worst search on the main thread.
    let mut status = None;
    for stack_size in [STACK_SIZE, SMALL_STACK_SIZE] {
        let Ok(thread_output) = output.try_clone() else { break };
        let worker = std::thread::Builder::new()
            .name("treegrade-kit".to_string())
            .stack_size(stack_size)
            .spawn(move || serve_loop(solutions, more, choose_move, thread_output));
        if let Ok(handle) = worker {
            status = Some(handle.join().unwrap_or(101));
            break;
        }
    }
    let status = status.unwrap_or_else(|| serve_loop(solutions, more, choose_move, output));
    let _ = io::stdout().flush();
    std::process::exit(status)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn todo_panics_are_recognised() {
        assert!(is_todo("not yet implemented"));
        assert!(is_todo("not yet implemented: minimax"));
        assert!(is_todo("not implemented"));
        assert!(!is_todo("index out of bounds"));
    }

    #[test]
    fn result_lines() {
        assert_eq!(
            result_line("minimax", &Answer::new(3.0, "a1")),
            "{\"type\":\"result\",\"value\":3.0,\"action\":\"a1\"}\n"
        );
        assert_eq!(
            result_line("expectimax", &Answer::without_action(7.25)),
            "{\"type\":\"result\",\"value\":7.25,\"action\":null}\n"
        );
        let line = result_line("minimax", &Answer::without_action(f64::NEG_INFINITY));
        let error = Json::parse(&line).unwrap();
        assert_eq!(error.get("kind").and_then(Json::as_str), Some("exception"));
    }

    #[test]
    fn node_replies() {
        let node = Node(Rc::from("D"));
        let reply =
            Json::parse(r#"{"type":"node","node":"D","kind":"chance","children":["K","L"],"actions":["K","l"],"probs":[0.25,0.75],"eval":2}"#)
                .unwrap();
        let info = node_info(&node, reply);
        assert_eq!(info.kind, Player::Chance);
        assert_eq!(info.children, [Node(Rc::from("K")), Node(Rc::from("L"))]);
        assert_eq!(info.actions, ["K", "l"]);
        assert_eq!(info.probs, [0.25, 0.75]);
        assert_eq!(info.eval, Some(2.0));
        let leaf =
            node_info(&node, Json::parse(r#"{"type":"node","node":"D","kind":"terminal","value":-1.5}"#).unwrap());
        assert_eq!((leaf.kind, leaf.value, leaf.children.len()), (Player::Terminal, -1.5, 0));
    }

    #[test]
    fn shortening_keeps_both_ends() {
        assert_eq!(shorten("abc", 10), "abc");
        let long = "é".repeat(100);
        let short = shorten(&long, 21);
        assert!(short.starts_with("éééé") && short.ends_with("éééé") && short.contains("left out"));
    }

    #[test]
    fn backtrace_filter_keeps_student_frames() {
        let trace = "   0: std::backtrace::Backtrace::force_capture\n             at /rustc/x/std.rs:1:1\n   \
                     1: treegrade_kit::install_panic_hook::{{closure}}\n             at /kit/src/lib.rs:2:2\n   \
                     2: search::alphabeta_value\n             at ./src/main.rs:20:9\n   \
                     3: core::ops::function::FnOnce::call_once\n   \
                     4: <usize as core::slice::index::SliceIndex<[T]>>::index\n             at /rustc/x/index.rs:1:1\n  \
                     33: start_thread\n             at ./nptl/pthread_create.c:442:8\n";
        let kept = student_frames(trace);
        assert!(kept.contains("search::alphabeta_value") && kept.contains("src/main.rs:20:9"));
        assert!(!kept.contains("force_capture") && !kept.contains("treegrade_kit") && !kept.contains("call_once"));
        assert!(!kept.contains("SliceIndex") && !kept.contains("start_thread"), "{kept}");
    }
}
