//! The oracle: serves one tree to one search and records what the student enters.
//!
//! Pure state, no I/O: the session feeds it the program's requests and sends
//! back the lines it returns. The visited order is whatever the oracle saw
//! first named, so a program cannot report or tidy its own trace, and the
//! expected answer is never in reach of the program. It serves any
//! [`GameTree`]: a written tree, or a game unfolded as the student goes.

use std::collections::HashMap;
use std::fmt;

use super::protocol::{NodeReply, Numbers, ReportedChild, ToProgram, encode};
use crate::engine::SearchSettings;
use crate::engine::random::SplitMix64;
use crate::tree::{GameTree, NodeIndex, NodeKind, Tree};

/// Node ids to arena indices, built once per written tree and shared by its searches.
#[derive(Debug)]
pub struct IdIndex<'t>(HashMap<&'t str, NodeIndex>);

impl<'t> IdIndex<'t> {
    /// Indexes every id of `tree`.
    pub fn new(tree: &'t Tree) -> IdIndex<'t> {
        IdIndex((0..tree.len() as u32).map(|i| (tree.id(NodeIndex(i)), NodeIndex(i))).collect())
    }

    fn get(&self, id: &str) -> Option<NodeIndex> {
        self.0.get(id).copied()
    }
}

/// What the student answered, once checked for shape.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StudentAnswer {
    /// The root value; `None` only where a tree taken from a game allows a
    /// kit that cannot observe it (CS188's `getAction` returns an action).
    /// In a max^n search, player 1's component of `vector`.
    pub value: Option<f64>,
    /// The chosen action, if any.
    pub action: Option<String>,
    /// A max^n search's root vector (docs/format.md 8.3).
    pub vector: Option<Vec<f64>>,
    /// MCTS: each root child's action, N and W as the program reported
    /// them (docs/format.md 8.4); `None` when it reported none.
    pub children: Option<Vec<ChildReport>>,
    /// What the MIT 6.034 kit reported beside the answer; `None` from other kits.
    pub mit: Option<MitReport>,
}

/// What the MIT 6.034 kit reports with a search's answer: the lab's
/// `(path, score, evaluations)` as the search returned them, and where the
/// student's own rules disagree with the grader's. The grader judges it
/// (`verdict`); none of it is taken on trust.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MitReport {
    /// The node ids of the returned path, root first (`None` for a state
    /// that is not one the grader served).
    pub path: Vec<Option<String>>,
    /// The count of static evaluations the search returned, as it returned it.
    pub returned: serde_json::Value,
    /// The kit's claim about the student's Connect Four rules, unchecked.
    pub rules: Option<serde_json::Value>,
    /// Progressive deepening: the `AnytimeValue`'s history as the search
    /// returned it, one `{path, score, returned}` a depth (unchecked).
    pub history: Option<Vec<serde_json::Value>>,
    /// The finished games the search asked the heuristic about, as the kit
    /// says (unchecked).
    pub heuristic_on_terminal: Vec<String>,
}

/// A root child's counts as an MCTS program reported them.
#[derive(Clone, Debug, PartialEq)]
pub struct ChildReport {
    /// The child's action.
    pub action: String,
    /// Its N.
    pub n: u64,
    /// Its W.
    pub w: f64,
}

/// A request that breaks the protocol's rules (docs/protocol.md), with the
/// sentence the student reads.
#[derive(Clone, Debug, PartialEq)]
pub enum Violation {
    /// No node has this id.
    UnknownNode(String),
    /// The node exists but no reply has listed it yet.
    NotListed(String),
    /// `evaluate` of a terminal.
    EvalOfTerminal(String),
    /// `evaluate` in a search without a depth limit.
    EvalWithoutLimit(String),
    /// `evaluate` above the depth cut.
    EvalAboveCut {
        /// The node.
        id: String,
        /// Its ply.
        ply: u32,
        /// The depth limit.
        depth: u32,
    },
    /// `evaluate` below the depth cut.
    EvalBelowCut {
        /// The node.
        id: String,
        /// Its ply.
        ply: u32,
        /// The depth limit.
        depth: u32,
    },
    /// A `result` whose value is not a finite number.
    BadValue(serde_json::Value),
    /// `evaluate` in a move of a game that names no evaluation.
    NoEvaluation(String),
    /// A max^n result whose value is not a vector of one finite number per player.
    BadVector {
        /// What the program sent.
        value: serde_json::Value,
        /// The search's players.
        players: u32,
    },
    /// MCTS counts that are not a list of `{action, n, w}`.
    BadChildren(String),
    /// `evaluate` in iterative deepening before any iteration started.
    NoIteration(String),
    /// `iteration` with a depth that is not one of the search's.
    BadIteration {
        /// What the program sent.
        depth: serde_json::Value,
        /// The deepest iteration allowed.
        deepest: u32,
    },
    /// `random` in a search that draws nothing.
    RandomOutsideMcts,
    /// A second `hello` during a search.
    HelloAgain,
    /// A message of a Pacman game (`successor`, `action`, `ready`) during a tree's search.
    GameMessage(&'static str),
    /// The game's own rules program failed (the course's, not the student's).
    Rules(String),
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Violation::UnknownNode(id) => write!(f, "you asked about node {id:?}, which does not exist in this tree"),
            Violation::NotListed(id) => write!(
                f,
                "you asked about node {id:?} before it was listed as a child of a node you visited; \
                 reach nodes through game.children(...) from the root"
            ),
            Violation::EvalOfTerminal(id) => {
                write!(f, "you asked for the evaluation of {id}, which is a terminal: use its utility instead")
            }
            Violation::EvalWithoutLimit(id) => write!(
                f,
                "you asked for the evaluation of {id}, but this search has no depth limit, so nothing is evaluated: \
                 search down to the terminals"
            ),
            Violation::EvalAboveCut { id, ply, depth } => write!(
                f,
                "you asked for the evaluation of {id} at ply {ply}, but the depth limit is {depth}: only nodes at \
                 ply {depth} are evaluated (the root is ply 0)"
            ),
            Violation::EvalBelowCut { id, ply, depth } => write!(
                f,
                "you asked for the evaluation of {id} at ply {ply}, below the depth limit {depth}: the search \
                 should have stopped at ply {depth}"
            ),
            Violation::BadValue(value) => write!(f, "your result's value must be a finite number, but it was {value}"),
            Violation::NoEvaluation(id) => write!(
                f,
                "you asked for the evaluation of {id}, but this game is played without one: search to the \
                 terminals, or write an evaluation of your own from game.state(node)"
            ),
            Violation::BadVector { value, players } => write!(
                f,
                "your result's value must be a list of {players} finite numbers, one per player (the root's \
                 utility vector), but it was {value}"
            ),
            Violation::BadChildren(problem) => write!(
                f,
                "your result's root children counts must be a list of {{action, n, w}}, one per root child: {problem}"
            ),
            Violation::NoIteration(id) => write!(
                f,
                "you asked for the evaluation of {id} before starting an iteration: call \
                 game.start_iteration(depth) at the start of each iteration, so that the grader knows its depth \
                 limit"
            ),
            Violation::BadIteration { depth, deepest } => write!(
                f,
                "you started an iteration with depth {depth}, but this search's iterations go from depth 1 to \
                 {deepest}"
            ),
            Violation::RandomOutsideMcts => {
                f.write_str("you asked for a random number, but only Monte Carlo tree search (mcts) draws them")
            }
            Violation::HelloAgain => f.write_str("your program sent `hello` again in the middle of a search"),
            Violation::GameMessage(kind) => {
                write!(f, "your program sent `{kind}`, a message of Pacman games, in the middle of a tree's search")
            }
            Violation::Rules(message) => write!(
                f,
                "the game's rules could not answer (this is not your program's fault; tell your instructor): {message}"
            ),
        }
    }
}

/// MCTS's reported counts, checked for shape: `{action, n, w}` each, with a
/// string action, a whole n from 0 and a finite w.
fn read_children(children: &[ReportedChild]) -> Result<Vec<ChildReport>, Violation> {
    children
        .iter()
        .enumerate()
        .map(|(index, child)| {
            let at = || format!("entry {} is {{action: {}, n: {}, w: {}}}", index + 1, child.action, child.n, child.w);
            let action = child
                .action
                .as_str()
                .ok_or_else(|| Violation::BadChildren(format!("{}: the action must be a string", at())))?;
            let n = child
                .n
                .as_u64()
                .ok_or_else(|| Violation::BadChildren(format!("{}: n must be a whole number, 0 or more", at())))?;
            let w = child
                .w
                .as_f64()
                .filter(|w| w.is_finite())
                .ok_or_else(|| Violation::BadChildren(format!("{}: w must be a finite number", at())))?;
            Ok(ChildReport { action: action.to_string(), n, w })
        })
        .collect()
}

/// How the oracle finds a node from the id a program names.
#[derive(Debug)]
enum Lookup<'t> {
    /// Every id of a written tree, indexed once.
    Written(&'t IdIndex<'t>),
    /// The ids of a game's nodes listed so far (a game's tree has no index).
    Listed(HashMap<String, NodeIndex>),
}

/// One search's view of the tree.
pub struct Oracle<'t> {
    tree: &'t dyn GameTree,
    /// The written tree, whose `game:` block (CS188's) the oracle serves.
    written: Option<&'t Tree>,
    lookup: Lookup<'t>,
    settings: SearchSettings,
    entered: Vec<bool>,
    listed: Vec<bool>,
    visited: Vec<NodeIndex>,
    /// The most nodes the search may enter (a clock counted in nodes).
    budget: Option<u32>,
    /// Whether an entry was refused because the budget was spent.
    time_up: bool,
    /// MCTS's stream of random numbers (docs/format.md 8.4), and the draws served.
    random: SplitMix64,
    draws: u64,
    /// Iterative deepening: where each declared iteration starts in
    /// `visited`, and the depth of the current one (8.2).
    iteration_starts: Vec<usize>,
    iteration_depth: Option<u32>,
    /// Every static evaluation the program declared (`static`), in order.
    statics: Vec<NodeIndex>,
    /// Where each declared iteration starts in `statics`.
    static_starts: Vec<usize>,
    /// What the program is asked for: a search's answer, or a move.
    purpose: Purpose,
}

/// What a program is served a tree for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Purpose {
    /// A search graded against the reference: evaluations at the depth cut only.
    Search,
    /// A move of a game: the program searches as it likes, so every node
    /// that is not a terminal carries the game's evaluation, `evaluate` is
    /// answered anywhere, and a result needs no value.
    Move,
}

/// What a request for a node came to.
enum Entry {
    /// The node, entered now or before.
    Node(NodeIndex),
    /// The budget is spent: the node was not entered.
    Refused,
}

impl fmt::Debug for Oracle<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Oracle").field("tree", &self.tree.name()).field("visited", &self.visited.len()).finish()
    }
}

impl<'t> Oracle<'t> {
    /// A fresh search of the written `tree`: only the root is known to the student.
    pub fn new(tree: &'t Tree, ids: &'t IdIndex<'t>, settings: SearchSettings) -> Oracle<'t> {
        let mut oracle = Oracle::over(tree, Lookup::Written(ids), settings);
        oracle.written = Some(tree);
        oracle
    }

    /// A fresh search of a game's tree (ids are the paths of docs/format.md 7).
    pub fn for_game(tree: &'t dyn GameTree, settings: SearchSettings) -> Oracle<'t> {
        let mut ids = HashMap::new();
        ids.insert(tree.id(NodeIndex::ROOT).into_owned(), NodeIndex::ROOT);
        Oracle::over(tree, Lookup::Listed(ids), settings)
    }

    fn over(tree: &'t dyn GameTree, lookup: Lookup<'t>, settings: SearchSettings) -> Oracle<'t> {
        let made = tree.made();
        let mut listed = vec![false; made];
        listed[NodeIndex::ROOT.get()] = true;
        Oracle {
            tree,
            written: None,
            lookup,
            settings,
            entered: vec![false; made],
            listed,
            visited: Vec::new(),
            budget: None,
            time_up: false,
            random: SplitMix64::new(settings.seed),
            draws: 0,
            iteration_starts: Vec::new(),
            iteration_depth: None,
            statics: Vec::new(),
            static_starts: Vec::new(),
            purpose: Purpose::Search,
        }
    }

    /// The number of players a max^n search serves (2 for a tree of MAX
    /// and MIN); `None` for other searches.
    fn players(&self) -> Option<u32> {
        self.settings.algorithm.vector_values().then(|| self.tree.players().unwrap_or(2))
    }

    /// The depth limit that holds now: iterative deepening's current
    /// iteration's (none before the first), any other search's own.
    fn cut_depth(&self) -> Option<u32> {
        match self.settings.algorithm.deepens() {
            true => self.iteration_depth,
            false => self.settings.depth,
        }
    }

    /// Answers `random`: the next draw of the search's stream (MCTS only).
    pub fn random(&mut self) -> Result<String, Violation> {
        if !self.settings.algorithm.draws_random() {
            return Err(Violation::RandomOutsideMcts);
        }
        self.draws += 1;
        Ok(encode(&ToProgram::Random { value: self.random.draw() }))
    }

    /// The random draws served so far.
    pub fn draws(&self) -> u64 {
        self.draws
    }

    /// Answers `iteration`: iterative deepening's next iteration starts with
    /// depth limit `depth`. Every node may be entered again in it, and each
    /// entry counts against the budget (docs/format.md 8.2).
    pub fn start_iteration(&mut self, depth: &serde_json::Value) -> Result<String, Violation> {
        let deepest = self.settings.depth.unwrap_or(0);
        let Some(depth) = depth.as_u64().filter(|&d| d >= 1 && d <= u64::from(deepest)).map(|d| d as u32) else {
            return Err(Violation::BadIteration { depth: depth.clone(), deepest });
        };
        self.entered.iter_mut().for_each(|entered| *entered = false);
        self.iteration_starts.push(self.visited.len());
        self.static_starts.push(self.statics.len());
        self.iteration_depth = Some(depth);
        Ok(encode(&ToProgram::Iteration { depth }))
    }

    /// Where each iteration the program declared starts in the visited order.
    pub fn iteration_starts(&self) -> &[usize] {
        &self.iteration_starts
    }

    /// A move of a game from the position at `tree`'s root (docs/protocol.md,
    /// "Playing games"): no depth limit, the game's evaluation (the one
    /// `tree` was unfolded with) served at every node that is not a terminal.
    pub fn for_move(tree: &'t dyn GameTree) -> Oracle<'t> {
        let mut oracle = Oracle::for_game(tree, SearchSettings::new(crate::engine::Algorithm::Minimax));
        oracle.purpose = Purpose::Move;
        oracle
    }

    /// Limits the search to `budget` entered nodes (docs/protocol.md,
    /// "A clock counted in nodes"); `None` leaves it unlimited.
    pub fn with_budget(mut self, budget: Option<u32>) -> Oracle<'t> {
        self.budget = budget;
        self
    }

    /// Whether the search asked to enter a node past its budget.
    pub fn time_up(&self) -> bool {
        self.time_up
    }

    /// The nodes entered so far, in order of first entry.
    pub fn visited(&self) -> &[NodeIndex] {
        &self.visited
    }

    /// Consumes the oracle, returning the visited order.
    pub fn into_visited(self) -> Vec<NodeIndex> {
        self.visited
    }

    /// Answers `visit`: the node's reply line, or a protocol violation.
    pub fn visit(&mut self, id: &str) -> Result<String, Violation> {
        let Entry::Node(node) = self.enter(id)? else {
            return Ok(self.refusal(id));
        };
        let reply = self.describe(node);
        match self.tree.fault() {
            Some(message) => Err(Violation::Rules(message)),
            None => Ok(reply),
        }
    }

    /// Answers `evaluate`: the eval line, or a protocol violation.
    pub fn evaluate(&mut self, id: &str) -> Result<String, Violation> {
        let Entry::Node(node) = self.enter(id)? else {
            return Ok(self.refusal(id));
        };
        let tree = self.tree;
        let ply = tree.ply(node);
        let id = id.to_string();
        let deepening = self.settings.algorithm.deepens();
        let problem = match (tree.kind(node), self.cut_depth()) {
            (NodeKind::Terminal, _) => Some(Violation::EvalOfTerminal(id)),
            (_, _) if self.purpose == Purpose::Move && tree.eval(node).is_none() => Some(Violation::NoEvaluation(id)),
            (_, _) if self.purpose == Purpose::Move => None,
            (_, None) if deepening => Some(Violation::NoIteration(id)),
            (_, None) => Some(Violation::EvalWithoutLimit(id)),
            (_, Some(depth)) if ply < depth => Some(Violation::EvalAboveCut { id, ply, depth }),
            (_, Some(depth)) if ply > depth => Some(Violation::EvalBelowCut { id, ply, depth }),
            _ => None,
        };
        if let Some(problem) = problem {
            return Err(problem);
        }
        let value = match self.players() {
            Some(players) => Numbers::Many(tree.eval_vector(node).unwrap_or_else(|| vec![0.0; players as usize])),
            None => Numbers::One(tree.eval(node).unwrap_or(0.0)),
        };
        Ok(encode(&ToProgram::Eval { node: &tree.id(node), value }))
    }

    /// Answers `static`: the program scored `id` as a static evaluation (a
    /// terminal's utility, or the evaluation of a node at the depth cut).
    /// The grader records it and answers with the value, as `eval`.
    pub fn static_eval(&mut self, id: &str) -> Result<String, Violation> {
        let Entry::Node(node) = self.enter(id)? else {
            return Ok(self.refusal(id));
        };
        if self.tree.kind(node) != NodeKind::Terminal || self.players().is_some() {
            let reply = self.evaluate(id)?;
            self.statics.push(node);
            return Ok(reply);
        }
        self.statics.push(node);
        let value = Numbers::One(self.tree.utility(node));
        Ok(encode(&ToProgram::Eval { node: &self.tree.id(node), value }))
    }

    /// The static evaluations the program declared, in order.
    pub fn statics(&self) -> &[NodeIndex] {
        &self.statics
    }

    /// Where each declared iteration starts in [`Oracle::statics`].
    pub fn static_starts(&self) -> &[usize] {
        &self.static_starts
    }

    /// Checks a `result` for shape: a finite number and a string or null.
    pub fn answer(&self, value: &serde_json::Value, action: Option<String>) -> Result<StudentAnswer, Violation> {
        self.answer_with(value, action, None)
    }

    /// Checks a `result` for shape: a finite number (a vector of one per
    /// player in a max^n search), a string or null, and MCTS's counts.
    pub fn answer_with(
        &self,
        value: &serde_json::Value,
        action: Option<String>,
        children: Option<&[ReportedChild]>,
    ) -> Result<StudentAnswer, Violation> {
        let from_cs188 = self.written.is_some_and(|tree| tree.game().is_some());
        let children = children.map(read_children).transpose()?;
        if let Some(players) = self.players() {
            let vector: Option<Vec<f64>> = value
                .as_array()
                .filter(|items| items.len() == players as usize)
                .and_then(|items| items.iter().map(|item| item.as_f64().filter(|v| v.is_finite())).collect());
            return match vector {
                Some(vector) => Ok(StudentAnswer {
                    value: vector.first().copied(),
                    action,
                    vector: Some(vector),
                    children,
                    mit: None,
                }),
                None => Err(Violation::BadVector { value: value.clone(), players }),
            };
        }
        match value.as_f64() {
            Some(number) if number.is_finite() => {
                Ok(StudentAnswer { value: Some(number), action, vector: None, children, mit: None })
            }
            None if value.is_null() && (from_cs188 || self.purpose == Purpose::Move) => {
                Ok(StudentAnswer { value: None, action, vector: None, children, mit: None })
            }
            _ => Err(Violation::BadValue(value.clone())),
        }
    }

    /// The `timeup` line for a node the budget did not allow.
    fn refusal(&mut self, id: &str) -> String {
        self.time_up = true;
        encode(&ToProgram::Timeup { node: id, budget: self.budget.unwrap_or(0) })
    }

    /// Records the first entry of a node the student may know about, unless
    /// the budget is spent.
    fn enter(&mut self, id: &str) -> Result<Entry, Violation> {
        let found = match &self.lookup {
            Lookup::Written(ids) => ids.get(id),
            Lookup::Listed(ids) => ids.get(id).copied(),
        };
        let Some(node) = found else {
            return Err(match &self.lookup {
                Lookup::Written(_) => Violation::UnknownNode(id.to_string()),
                // A game's ids are known only once listed: an unknown one was guessed.
                Lookup::Listed(_) => Violation::NotListed(id.to_string()),
            });
        };
        if !self.listed[node.get()] {
            return Err(Violation::NotListed(id.to_string()));
        }
        if !self.entered[node.get()] {
            if self.budget.is_some_and(|budget| self.visited.len() >= budget as usize) {
                return Ok(Entry::Refused);
            }
            self.entered[node.get()] = true;
            self.visited.push(node);
        }
        Ok(Entry::Node(node))
    }

    /// Marks `node`'s children as listed (and, for a game, learns their ids).
    fn list_children(&mut self, node: NodeIndex) -> std::ops::Range<u32> {
        let children = self.tree.child_range(node);
        let made = self.tree.made();
        if self.listed.len() < made {
            self.listed.resize(made, false);
            self.entered.resize(made, false);
        }
        for child in children.clone() {
            self.listed[child as usize] = true;
            if let Lookup::Listed(ids) = &mut self.lookup {
                ids.entry(self.tree.id(NodeIndex(child)).into_owned()).or_insert(NodeIndex(child));
            }
        }
        children
    }

    /// The `node` reply: kind, children and whatever the node's kind carries.
    fn describe(&mut self, node: NodeIndex) -> String {
        let tree = self.tree;
        let kind = tree.kind(node);
        let internal = kind != NodeKind::Terminal;
        let children = if internal { self.list_children(node) } else { 0..0 };
        let child_ids: Vec<String> = children.clone().map(|child| tree.id(NodeIndex(child)).into_owned()).collect();
        let actions: Vec<String> = children.clone().map(|child| tree.action(NodeIndex(child)).into_owned()).collect();
        // A tree taken from a game (CS188's) serves every evaluation it has,
        // as the game would (its getScore() answers wherever the test gives one).
        let cs188 = self.written.and_then(|tree| tree.game());
        let at_cut =
            internal && (self.cut_depth() == Some(tree.ply(node)) || cs188.is_some() || self.purpose == Purpose::Move);
        let ordered = self.settings.orders_by_static_value()
            && matches!(kind, NodeKind::Max | NodeKind::Min)
            && self.settings.depth.is_none_or(|depth| tree.ply(node) < depth);
        let players = self.players();
        let static_values = ordered.then(|| {
            // The reference could order every child, or the test would not be planned.
            children.clone().map(|child| crate::engine::static_value(tree, NodeIndex(child)).unwrap_or(0.0)).collect()
        });
        let id = tree.id(node);
        let reply = NodeReply {
            node: &id,
            kind: kind.name(),
            children: internal.then(|| child_ids.iter().map(String::as_str).collect()),
            actions: internal.then(|| actions.iter().map(String::as_str).collect()),
            probs: (kind == NodeKind::Chance)
                .then(|| children.map(|child| tree.probability(NodeIndex(child))).collect()),
            value: (!internal).then(|| match players {
                Some(_) => Numbers::Many(tree.utility_vector(node)),
                None => Numbers::One(tree.utility(node)),
            }),
            eval: if at_cut {
                match players {
                    Some(_) => tree.eval_vector(node).map(Numbers::Many),
                    None => tree.eval(node).map(Numbers::One),
                }
            } else {
                None
            },
            player: players.and(tree.player(node)),
            outcome: cs188.and_then(|game| game.outcomes.get(&node)).map(|outcome| outcome.name()),
            state: tree.state(node),
            static_values,
        };
        encode(&ToProgram::Node(reply))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Algorithm;
    use crate::tree::{ChildSpec, NodeBody, NodeSpec, TreeBuilder};

    fn tree() -> Tree {
        let mut builder = TreeBuilder::new("t", "A");
        builder.add(NodeSpec::internal("A", NodeKind::Max, vec![ChildSpec::labelled("left", "B"), ChildSpec::id("C")]));
        builder.add(NodeSpec {
            id: "B".into(),
            body: NodeBody::Internal {
                kind: NodeKind::Chance,
                children: vec![ChildSpec::leaf(1.0), ChildSpec::leaf(3.0)],
                probs: Some(vec![0.25, 0.75]),
                eval: Some(2.0),
            },
        });
        builder.add(NodeSpec::terminal("C", 5.0));
        builder.build().unwrap()
    }

    #[test]
    fn records_first_entries_in_order() {
        let tree = tree();
        let ids = IdIndex::new(&tree);
        let mut oracle = Oracle::new(&tree, &ids, SearchSettings::new(Algorithm::Expectimax));
        let reply = oracle.visit("A").unwrap();
        assert_eq!(
            reply,
            "{\"type\":\"node\",\"node\":\"A\",\"kind\":\"max\",\"children\":[\"B\",\"C\"],\"actions\":[\"left\",\"C\"]}\n"
        );
        oracle.visit("C").unwrap();
        oracle.visit("A").unwrap();
        let reply = oracle.visit("B").unwrap();
        assert!(reply.contains("\"probs\":[0.25,0.75]"), "{reply}");
        assert_eq!(tree.ids_of(oracle.visited()), ["A", "C", "B"]);
    }

    /// `static` answers a terminal's utility and a cut node's evaluation,
    /// records every one in order (again when asked again), and is refused
    /// where `evaluate` would be.
    #[test]
    fn static_evaluations_are_recorded_in_order() {
        let tree = tree();
        let ids = IdIndex::new(&tree);
        let mut settings = SearchSettings::new(Algorithm::Minimax);
        settings.depth = Some(1);
        let mut oracle = Oracle::new(&tree, &ids, settings);
        oracle.visit("A").unwrap();
        assert_eq!(oracle.static_eval("C").unwrap(), "{\"type\":\"eval\",\"node\":\"C\",\"value\":5.0}\n");
        assert!(oracle.static_eval("B").unwrap().contains("\"value\":2.0"));
        oracle.static_eval("C").unwrap();
        assert_eq!(tree.ids_of(oracle.statics()), ["C", "B", "C"]);
        assert_eq!(tree.ids_of(oracle.visited()), ["A", "C", "B"]);
        assert!(matches!(oracle.static_eval("A"), Err(Violation::EvalAboveCut { .. })));
    }

    #[test]
    fn unknown_and_unlisted_nodes_are_violations() {
        let tree = tree();
        let ids = IdIndex::new(&tree);
        let mut oracle = Oracle::new(&tree, &ids, SearchSettings::new(Algorithm::Minimax));
        assert!(oracle.visit("Z").unwrap_err().to_string().contains("does not exist"));
        assert!(oracle.visit("B").unwrap_err().to_string().contains("before it was listed"));
        assert!(oracle.visited().is_empty(), "a refused request enters nothing");
    }

    #[test]
    fn evaluation_only_at_the_cut() {
        let tree = tree();
        let ids = IdIndex::new(&tree);
        let mut settings = SearchSettings::new(Algorithm::Expectimax);
        settings.depth = Some(1);
        let mut oracle = Oracle::new(&tree, &ids, settings);
        assert!(
            oracle
                .evaluate("A")
                .unwrap_err()
                .to_string()
                .contains("evaluation of A at ply 0, but the depth limit is 1")
        );
        oracle.visit("A").unwrap();
        let reply = oracle.visit("B").unwrap();
        assert!(reply.contains("\"eval\":2.0"), "the reply at the cut carries the eval: {reply}");
        assert_eq!(oracle.evaluate("B").unwrap(), "{\"type\":\"eval\",\"node\":\"B\",\"value\":2.0}\n");
        assert!(oracle.evaluate("C").unwrap_err().to_string().contains("evaluation of C, which is a terminal"));
        let mut unlimited = Oracle::new(&tree, &ids, SearchSettings::new(Algorithm::Expectimax));
        unlimited.visit("A").unwrap();
        assert!(unlimited.evaluate("B").unwrap_err().to_string().contains("no depth limit"));
    }

    #[test]
    fn a_budget_refuses_entries_past_it_and_enters_nothing_more() {
        let tree = tree();
        let ids = IdIndex::new(&tree);
        let mut oracle = Oracle::new(&tree, &ids, SearchSettings::new(Algorithm::Expectimax)).with_budget(Some(2));
        oracle.visit("A").unwrap();
        oracle.visit("B").unwrap();
        assert!(!oracle.time_up());
        assert_eq!(oracle.visit("C").unwrap(), "{\"type\":\"timeup\",\"node\":\"C\",\"budget\":2}\n");
        assert!(oracle.time_up());
        assert!(oracle.visit("A").unwrap().contains("\"kind\":\"max\""), "an entered node is still served");
        assert!(oracle.visit("B.1").unwrap().starts_with("{\"type\":\"timeup\""), "and every new one refused");
        assert!(oracle.visit("Z").is_err(), "a guessed id is still a violation");
        assert_eq!(tree.ids_of(oracle.visited()), ["A", "B"]);
    }

    /// A move of a game: evaluations everywhere but at terminals, and a
    /// result with an action alone.
    #[test]
    fn a_move_serves_evaluations_anywhere() {
        let game = crate::game::make(&crate::game::GameArgs {
            name: "tic-tac-toe",
            params: &[],
            position: None,
            utility: None,
        })
        .unwrap();
        let options = crate::game::UnfoldOptions { eval: Some("lines".into()), ..Default::default() };
        let tree = game.unfold(&options).unwrap();
        let mut oracle = Oracle::for_move(&*tree).with_budget(Some(3));
        let root = oracle.visit("root").unwrap();
        assert!(root.contains("\"eval\":0.0"), "the root carries its evaluation: {root}");
        let b2 = oracle.evaluate("b2");
        assert!(b2.is_ok(), "{b2:?}");
        assert_eq!(oracle.answer(&serde_json::Value::Null, Some("b2".into())).unwrap().value, None);
        let bare = game.unfold(&crate::game::UnfoldOptions::default()).unwrap();
        let mut oracle = Oracle::for_move(&*bare);
        oracle.visit("root").unwrap();
        assert!(oracle.evaluate("b2").unwrap_err().to_string().contains("played without one"));
    }

    #[test]
    fn results_must_be_finite_numbers() {
        let tree = tree();
        let ids = IdIndex::new(&tree);
        let oracle = Oracle::new(&tree, &ids, SearchSettings::new(Algorithm::Minimax));
        assert_eq!(
            oracle.answer(&serde_json::json!(2.5), Some("left".into())),
            Ok(StudentAnswer { value: Some(2.5), action: Some("left".into()), ..StudentAnswer::default() })
        );
        assert!(oracle.answer(&serde_json::json!("3"), None).unwrap_err().to_string().contains("finite number"));
        assert!(oracle.answer(&serde_json::Value::Null, None).unwrap_err().to_string().contains("finite number"));
    }

    /// A tree taken from a game (CS188's): every eval is served, terminals
    /// say whether they are wins or losses, and a result may lack its value.
    #[test]
    fn game_trees_serve_what_cs188_kits_need() {
        let mut outcomes = std::collections::BTreeMap::new();
        outcomes.insert(NodeIndex(2), crate::tree::Outcome::Lose);
        let tree = tree().with_game(Some(crate::tree::GameRules { agents: 2, outcomes }));
        let ids = IdIndex::new(&tree);
        let mut oracle = Oracle::new(&tree, &ids, SearchSettings::new(Algorithm::Expectimax));
        oracle.visit("A").unwrap();
        let reply = oracle.visit("B").unwrap();
        assert!(reply.contains("\"eval\":2.0"), "no depth limit, yet the game's eval is served: {reply}");
        assert!(oracle.visit("C").unwrap().ends_with(",\"value\":5.0,\"outcome\":\"lose\"}\n"));
        assert_eq!(oracle.answer(&serde_json::Value::Null, Some("left".into())).unwrap().value, None);
    }
}
