//! CS188 multiagent `GraphGameTreeTest` files (`.test` and `.solution`).
//!
//! # The source format
//!
//! A `.test` file is a list of `key: "value"` lines and `key: """` blocks
//! closed by a line holding only `"""`, read exactly as CS188's
//! `testParser.py` reads them: anything after a `#` is a comment (except
//! inside a block, whose lines are kept verbatim), blank lines are skipped.
//! A game-tree test has `class: "GraphGameTreeTest"`, `alg` (`MinimaxAgent`,
//! `AlphaBetaAgent` or `ExpectimaxAgent`), `depth` (in rounds), `num_agents`,
//! `start_state`, `win_states`, `lose_states`, `successors` (lines `STATE
//! ACTION NEXT`, in the order of `getLegalActions`) and `evaluation` (lines
//! `STATE VALUE`). The sibling `.solution` file gives the chosen `action` and
//! `generated`, the sorted set of states the search entered.
//!
//! # The conversion
//!
//! - The tree is the successor graph unrolled from `start_state`, children in
//!   successor order, each edge labelled with its action.
//! - A node's kind is its ply mod `num_agents`: 0 is `max` (Pacman), any other
//!   ply `min` (a ghost), or a uniform `chance` node for `ExpectimaxAgent`.
//! - Win and lose states are terminals valued by their `evaluation`, and so is
//!   a state without successors (CS188's suite lists every such state as a win
//!   or lose state). The successors of a win or lose state are ignored.
//! - `depth` counts rounds of `num_agents` moves: the tree's `search` block
//!   gets `depth: depth * num_agents` plies and `prune_on_equal: false` (CS188
//!   prunes only on strict inequality). A state at the cut carries its
//!   `evaluation` as `eval`; so does every other internal state that has one.
//! - Below the cut the subtree is kept (so that the tree can be searched with
//!   another `--depth`) as long as it is finite, every leaf in it has an
//!   evaluation and it stays within [`MAX_NODES_BELOW_CUT`]; otherwise the cut
//!   state becomes a terminal valued by its evaluation, which every search at
//!   the file's depth values and visits the same way.
//! - `expect` holds the `.solution`'s action for the file's algorithm.
//!
//! # Repeated states
//!
//! A state reachable along several paths (or around a cycle, which the depth
//! limit unrolls) becomes one node per path, since a tree gives each node one
//! parent. The first node in search order (depth-first, successors in order)
//! keeps the state's name as its id; the later ones are named `STATE~2`,
//! `STATE~3`, ... in search order, skipping any name that is already a state
//! of the file. [`Cs188Import::state_of`] maps an id back to its state, which
//! is how the set of entered nodes is compared with `generated`.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};

use thiserror::Error;

use crate::engine::{self, Algorithm, SearchSettings};
use crate::tree::{
    ChildSpec, Expectation, GameRules, NodeBody, NodeIndex, NodeKind, NodeSpec, Outcome, SearchDefaults, Tree,
    TreeBuilder,
};

/// Most nodes an import may have at or above the depth cut.
pub const MAX_NODES: usize = 1_000_000;

/// Most nodes an import keeps below the depth cut, over all cut states.
pub const MAX_NODES_BELOW_CUT: usize = 1_000_000;

/// Joins a repeated state's name and its occurrence number (`b1~2`).
pub const REPEAT_SEPARATOR: char = '~';

/// The only test class that describes a game tree.
pub const GRAPH_TEST_CLASS: &str = "GraphGameTreeTest";

/// Why a CS188 file could not be imported: the file, the line when there is
/// one, and the problem.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub struct ImportError {
    /// The `.test` or `.solution` file the problem is in.
    pub file: PathBuf,
    /// The 1-based line, when the problem has one.
    pub line: Option<u32>,
    /// What is wrong.
    pub kind: ImportErrorKind,
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}", self.file.display(), self.kind),
            None => write!(f, "{}: {}", self.file.display(), self.kind),
        }
    }
}

/// Every way a CS188 test or solution can be unusable.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ImportErrorKind {
    /// The file could not be read.
    #[error("cannot read the file: {message}")]
    Unreadable {
        /// The operating system's message.
        message: String,
    },
    /// A line that is neither `key: "value"` nor `key: """`.
    #[error("expected `key: \"value\"` or `key: \"\"\"` (a multi-line value), found `{text}`")]
    Syntax {
        /// The line, comments removed.
        text: String,
    },
    /// A `key: """` block without its closing line.
    #[error("the multi-line value of `{key}` has no closing `\"\"\"` line")]
    Unterminated {
        /// The block's key.
        key: String,
    },
    /// A key given twice.
    #[error("`{key}` is given twice (first on line {first})")]
    DuplicateKey {
        /// The repeated key.
        key: String,
        /// Line of its first occurrence.
        first: u32,
    },
    /// A required key is absent.
    #[error("missing `{key}`")]
    MissingKey {
        /// The absent key.
        key: String,
    },
    /// A test of another class (a Pacman game, an evaluation-function test...).
    #[error("class `{class}` is not a GraphGameTreeTest: only game-tree tests can be imported")]
    UnsupportedClass {
        /// The file's class.
        class: String,
    },
    /// An `alg` other than the three agents.
    #[error("unknown alg `{alg}` (expected MinimaxAgent, AlphaBetaAgent or ExpectimaxAgent)")]
    UnknownAlgorithm {
        /// The file's alg.
        alg: String,
    },
    /// `depth` or `num_agents` is not a whole number.
    #[error("`{key}` must be a whole number, found `{text}`")]
    BadInteger {
        /// Which key.
        key: String,
        /// Its value.
        text: String,
    },
    /// `num_agents: "0"`.
    #[error("`num_agents` must be at least 1 (Pacman)")]
    NoAgents,
    /// `depth * num_agents` does not fit a ply count.
    #[error("depth {depth} x {agents} agents is too many plies")]
    DepthOverflow {
        /// Rounds.
        depth: u32,
        /// Agents.
        agents: u32,
    },
    /// `start_state` that is not one state name.
    #[error("`start_state` must be one state name, found `{text}`")]
    BadStartState {
        /// Its value.
        text: String,
    },
    /// A successor line without exactly three words.
    #[error("a successor line is `STATE ACTION NEXT`, found `{text}`")]
    BadSuccessor {
        /// The line.
        text: String,
    },
    /// An evaluation line without exactly two words.
    #[error("an evaluation line is `STATE VALUE`, found `{text}`")]
    BadEvaluation {
        /// The line.
        text: String,
    },
    /// An evaluation that is not a finite number.
    #[error("the evaluation of `{state}` is `{text}`, not a finite number")]
    BadValue {
        /// The state.
        state: String,
        /// The value as written.
        text: String,
    },
    /// One state with the same action twice.
    #[error("state `{state}` has the action `{action}` twice (first on line {first})")]
    DuplicateAction {
        /// The state.
        state: String,
        /// The repeated action.
        action: String,
        /// Line of the first.
        first: u32,
    },
    /// One state evaluated twice.
    #[error("state `{state}` is evaluated twice (first on line {first})")]
    DuplicateEvaluation {
        /// The state.
        state: String,
        /// Line of the first.
        first: u32,
    },
    /// A state the search values has no evaluation.
    #[error("state `{state}` {reason}, but `evaluation` gives it no value")]
    MissingEvaluation {
        /// The state.
        state: String,
        /// Why it needs one ("is a win state", "is cut by the depth limit ...").
        reason: String,
    },
    /// The solution's action is not a move of the start state.
    #[error("the solution's action `{action}` is not a move of the start state `{state}` (its moves: {})", available.join(", "))]
    UnknownSolutionAction {
        /// The solution's action.
        action: String,
        /// The start state.
        state: String,
        /// The start state's actions.
        available: Vec<String>,
    },
    /// The solution names an action where the root chooses none.
    #[error("the solution's action is `{action}`, but the start state `{state}` chooses no move (it is {why})")]
    NoRootAction {
        /// The solution's action.
        action: String,
        /// The start state.
        state: String,
        /// "terminal", "cut at depth 0".
        why: String,
    },
    /// Unrolling the successor graph gives too large a tree.
    #[error("unrolling the successors into a tree gives more than {limit} nodes within the depth limit")]
    TooLarge {
        /// The limit, [`MAX_NODES`].
        limit: usize,
    },
    /// A Pacman test (`EvalAgentTest`, `PacmanGameTreeTest`) that cannot be used.
    #[error("{message}")]
    Pacman {
        /// What is wrong.
        message: String,
    },
    /// The converted tree breaks a rule of docs/format.md (a bug of the importer).
    #[error("the converted tree is invalid: {message}")]
    InvalidTree {
        /// The builder's message.
        message: String,
    },
}

/// One value of a CS188 file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    /// The value: the text between the quotes, or a block's lines joined by `\n`.
    pub value: String,
    /// 1-based line of the key.
    pub line: u32,
    /// Whether the value is a `"""` block (its first line is `line + 1`).
    pub block: bool,
}

impl Field {
    /// The line of the value's `k`-th line (0-based).
    pub fn value_line(&self, k: usize) -> u32 {
        if self.block { self.line + 1 + k as u32 } else { self.line }
    }

    /// The value's lines with their file line numbers.
    fn lines(&self) -> impl Iterator<Item = (u32, &str)> {
        self.value.split('\n').enumerate().map(|(k, line)| (self.value_line(k), line))
    }
}

/// The keys and values of a CS188 `.test` or `.solution` file, in file order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fields {
    file: PathBuf,
    entries: Vec<(String, Field)>,
}

impl Fields {
    /// The field under `key`.
    pub fn get(&self, key: &str) -> Option<&Field> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, field)| field)
    }

    /// Every key and field, in file order.
    pub fn entries(&self) -> &[(String, Field)] {
        &self.entries
    }

    fn require(&self, key: &str) -> Result<&Field, ImportError> {
        self.get(key).ok_or_else(|| error(&self.file, None, ImportErrorKind::MissingKey { key: key.to_string() }))
    }
}

fn error(file: &Path, line: Option<u32>, kind: ImportErrorKind) -> ImportError {
    ImportError { file: file.to_path_buf(), line, kind }
}

/// Parses the `key: "value"` / `key: """` syntax that CS188's `testParser.py`
/// reads; `file` only names the file in errors.
pub fn parse_fields(text: &str, file: &Path) -> Result<Fields, ImportError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let lines: Vec<&str> = text.split('\n').collect();
    let mut entries: Vec<(String, Field)> = Vec::new();
    let mut at = 0;
    while at < lines.len() {
        let line = at as u32 + 1;
        let code = strip_comment(lines[at]);
        at += 1;
        if code.trim().is_empty() {
            continue;
        }
        let (key, field) = if let Some((key, value)) = one_line_entry(code) {
            (key, Field { value: value.to_string(), line, block: false })
        } else if let Some(key) = block_opening(code) {
            let mut value = Vec::new();
            loop {
                let Some(raw) = lines.get(at) else {
                    return Err(error(file, Some(line), ImportErrorKind::Unterminated { key: key.to_string() }));
                };
                at += 1;
                if strip_comment(raw).trim() == "\"\"\"" {
                    break;
                }
                value.push(raw.strip_suffix('\r').unwrap_or(raw));
            }
            (key, Field { value: value.join("\n"), line, block: true })
        } else {
            let text = code.trim().to_string();
            return Err(error(file, Some(line), ImportErrorKind::Syntax { text }));
        };
        if let Some((_, first)) = entries.iter().find(|(k, _)| k == key) {
            let kind = ImportErrorKind::DuplicateKey { key: key.to_string(), first: first.line };
            return Err(error(file, Some(line), kind));
        }
        entries.push((key.to_string(), field));
    }
    Ok(Fields { file: file.to_path_buf(), entries })
}

/// A line without its `#` comment.
fn strip_comment(line: &str) -> &str {
    line.find('#').map_or(line, |at| &line[..at])
}

/// `KEY: "VALUE"` (no quote in the key or the value) as key and value.
fn one_line_entry(code: &str) -> Option<(&str, &str)> {
    let open = code.find('"')?;
    let key = code[..open].trim_end().strip_suffix(':')?;
    let rest = &code[open + 1..];
    let close = rest.find('"')?;
    rest[close + 1..].trim().is_empty().then(|| (key.trim(), &rest[..close]))
}

/// `KEY: """` as its key.
fn block_opening(code: &str) -> Option<&str> {
    let open = code.find('"')?;
    let key = code[..open].trim_end().strip_suffix(':')?;
    (code[open..].trim_end() == "\"\"\"").then(|| key.trim())
}

/// The three CS188 agents a game-tree test can ask for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Agent {
    /// `MinimaxAgent`: minimax.
    Minimax,
    /// `AlphaBetaAgent`: alpha-beta, pruning only on strict inequality.
    AlphaBeta,
    /// `ExpectimaxAgent`: ghosts are uniform chance nodes.
    Expectimax,
}

impl Agent {
    /// The class name CS188 files use.
    pub fn class_name(self) -> &'static str {
        match self {
            Agent::Minimax => "MinimaxAgent",
            Agent::AlphaBeta => "AlphaBetaAgent",
            Agent::Expectimax => "ExpectimaxAgent",
        }
    }

    /// The treegrade algorithm that searches as this agent does.
    pub fn algorithm(self) -> Algorithm {
        match self {
            Agent::Minimax => Algorithm::Minimax,
            Agent::AlphaBeta => Algorithm::AlphaBeta,
            Agent::Expectimax => Algorithm::Expectimax,
        }
    }

    fn from_class_name(name: &str) -> Option<Agent> {
        [Agent::Minimax, Agent::AlphaBeta, Agent::Expectimax].into_iter().find(|agent| agent.class_name() == name)
    }
}

/// One `STATE ACTION NEXT` line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Successor {
    /// The state moved from.
    pub state: String,
    /// The move.
    pub action: String,
    /// The state moved to.
    pub next: String,
    /// 1-based line in the `.test` file.
    pub line: u32,
}

/// One `STATE VALUE` line.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    /// The state.
    pub state: String,
    /// Its value (finite).
    pub value: f64,
    /// 1-based line in the `.test` file.
    pub line: u32,
}

/// A parsed `GraphGameTreeTest` `.test` file.
#[derive(Clone, Debug, PartialEq)]
pub struct Cs188Test {
    /// The file, for errors.
    pub file: PathBuf,
    /// The agent under test.
    pub agent: Agent,
    /// Search depth in rounds (each agent moves once per round).
    pub depth: u32,
    /// Pacman plus the ghosts.
    pub num_agents: u32,
    /// The root state.
    pub start_state: String,
    /// Line of `start_state`.
    pub start_line: u32,
    /// Terminal states won by Pacman.
    pub win_states: Vec<String>,
    /// Terminal states lost by Pacman.
    pub lose_states: Vec<String>,
    /// Successor lines, in file order.
    pub successors: Vec<Successor>,
    /// Evaluation lines, in file order.
    pub evaluation: Vec<Evaluation>,
    /// The drawing of the tree, if the file has one.
    pub diagram: Option<String>,
}

impl Cs188Test {
    /// The depth limit in plies: `depth * num_agents`.
    pub fn ply_limit(&self) -> u32 {
        self.depth * self.num_agents
    }
}

/// A parsed `.solution` file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cs188Solution {
    /// The file, for errors.
    pub file: PathBuf,
    /// The action the agent must choose at the start state.
    pub action: String,
    /// Line of `action`.
    pub action_line: u32,
    /// The states the search must enter (a set), if the file gives them.
    pub generated: Option<BTreeSet<String>>,
}

/// Parses a `.test` file's text; `file` only names it in errors.
pub fn parse_test(text: &str, file: &Path) -> Result<Cs188Test, ImportError> {
    let fields = parse_fields(text, file)?;
    let err = |line: u32, kind| Err(error(file, Some(line), kind));
    let class = fields.require("class")?;
    if class.value.trim() != GRAPH_TEST_CLASS {
        return err(class.line, ImportErrorKind::UnsupportedClass { class: class.value.trim().to_string() });
    }
    let alg = fields.require("alg")?;
    let Some(agent) = Agent::from_class_name(alg.value.trim()) else {
        return err(alg.line, ImportErrorKind::UnknownAlgorithm { alg: alg.value.trim().to_string() });
    };
    let depth = whole_number(&fields, "depth")?;
    let num_agents = whole_number(&fields, "num_agents")?;
    if num_agents == 0 {
        return err(fields.require("num_agents")?.line, ImportErrorKind::NoAgents);
    }
    if depth.checked_mul(num_agents).is_none() {
        return err(fields.require("depth")?.line, ImportErrorKind::DepthOverflow { depth, agents: num_agents });
    }
    let start = fields.require("start_state")?;
    let start_words: Vec<&str> = start.value.split_whitespace().collect();
    let [start_state] = start_words.as_slice() else {
        return err(start.line, ImportErrorKind::BadStartState { text: start.value.clone() });
    };
    let words = |key: &str| -> Vec<String> {
        fields.get(key).map_or_else(Vec::new, |f| f.value.split_whitespace().map(str::to_string).collect())
    };
    let mut successors: Vec<Successor> = Vec::new();
    let mut first_move: HashMap<(String, String), u32> = HashMap::new();
    // Fall semesters call the edges `successors`, Spring 2021-2022 `children`.
    let edges = match fields.get("successors").or_else(|| fields.get("children")) {
        Some(edges) => edges,
        None => fields.require("successors")?,
    };
    for (line, text) in edges.lines() {
        let words: Vec<&str> = text.split_whitespace().collect();
        match words.as_slice() {
            [] => continue,
            [state, action, next] => {
                let key = (state.to_string(), action.to_string());
                if let Some(&first) = first_move.get(&key) {
                    let (state, action) = key;
                    return err(line, ImportErrorKind::DuplicateAction { state, action, first });
                }
                first_move.insert(key, line);
                successors.push(Successor {
                    state: state.to_string(),
                    action: action.to_string(),
                    next: next.to_string(),
                    line,
                });
            }
            _ => return err(line, ImportErrorKind::BadSuccessor { text: text.trim().to_string() }),
        }
    }
    let mut evaluation: Vec<Evaluation> = Vec::new();
    let mut first_value: HashMap<String, u32> = HashMap::new();
    for (line, text) in fields.require("evaluation")?.lines() {
        let words: Vec<&str> = text.split_whitespace().collect();
        match words.as_slice() {
            [] => continue,
            [state, value] => {
                let Some(value) = value.parse::<f64>().ok().filter(|v| v.is_finite()) else {
                    let kind = ImportErrorKind::BadValue { state: state.to_string(), text: value.to_string() };
                    return err(line, kind);
                };
                if let Some(&first) = first_value.get(*state) {
                    return err(line, ImportErrorKind::DuplicateEvaluation { state: state.to_string(), first });
                }
                first_value.insert(state.to_string(), line);
                evaluation.push(Evaluation { state: state.to_string(), value, line });
            }
            _ => return err(line, ImportErrorKind::BadEvaluation { text: text.trim().to_string() }),
        }
    }
    Ok(Cs188Test {
        file: file.to_path_buf(),
        agent,
        depth,
        num_agents,
        start_state: start_state.to_string(),
        start_line: start.line,
        win_states: words("win_states"),
        lose_states: words("lose_states"),
        successors,
        evaluation,
        diagram: fields.get("diagram").map(|f| f.value.clone()),
    })
}

fn whole_number(fields: &Fields, key: &str) -> Result<u32, ImportError> {
    let field = fields.require(key)?;
    field.value.trim().parse().map_err(|_| {
        let kind = ImportErrorKind::BadInteger { key: key.to_string(), text: field.value.clone() };
        error(&fields.file, Some(field.line), kind)
    })
}

/// Parses a `.solution` file's text; `file` only names it in errors.
pub fn parse_solution(text: &str, file: &Path) -> Result<Cs188Solution, ImportError> {
    let fields = parse_fields(text, file)?;
    let action = fields.require("action")?;
    let words: Vec<&str> = action.value.split_whitespace().collect();
    let [word] = words.as_slice() else {
        return Err(error(file, Some(action.line), ImportErrorKind::MissingKey { key: "action (one word)".into() }));
    };
    Ok(Cs188Solution {
        file: file.to_path_buf(),
        action: word.to_string(),
        action_line: action.line,
        generated: fields.get("generated").map(|f| f.value.split_whitespace().map(str::to_string).collect()),
    })
}

/// A converted test: the tree, and how its ids map back to CS188 states.
#[derive(Clone, Debug)]
pub struct Cs188Import {
    /// The tree, with `search` and (given a solution) `expect` filled in.
    pub tree: Tree,
    /// The algorithm of the test's agent.
    pub algorithm: Algorithm,
    /// The test's agent.
    pub agent: Agent,
    /// The solution the `expect` block came from.
    pub solution: Option<Cs188Solution>,
    /// The state of every node, by arena index.
    states: Vec<String>,
    /// Nodes whose id is not their state's name (repeated states).
    repeats: usize,
    /// Cut states that became terminals (their subtree could not be kept).
    dropped_subtrees: usize,
}

impl Cs188Import {
    /// The CS188 state a node stands for.
    pub fn state(&self, node: NodeIndex) -> &str {
        &self.states[node.get()]
    }

    /// The CS188 state of the node with this id, if there is one.
    pub fn state_of(&self, id: &str) -> Option<&str> {
        self.tree.find(id).map(|node| self.state(node))
    }

    /// The set of states that a list of nodes (a visited order) stands for.
    pub fn states_of(&self, nodes: &[NodeIndex]) -> BTreeSet<String> {
        nodes.iter().map(|&node| self.state(node).to_string()).collect()
    }

    /// How many nodes repeat a state that an earlier node already stands for.
    pub fn repeated_states(&self) -> usize {
        self.repeats
    }

    /// How many states at the depth cut became terminals because the subtree
    /// below them was infinite, too large or lacked evaluations.
    pub fn dropped_subtrees(&self) -> usize {
        self.dropped_subtrees
    }

    /// The settings the test searches with (the tree's `search` block).
    pub fn settings(&self) -> SearchSettings {
        SearchSettings::resolve(self.algorithm, self.tree.search_defaults(), None, None)
    }

    /// Runs the reference engine as CS188's autograder would check it, and
    /// lists how it differs from the solution: the chosen action and the set
    /// of states entered (`generated`). Empty when they agree or there is no
    /// solution.
    pub fn reference_differences(&self) -> Vec<String> {
        let Some(solution) = &self.solution else { return Vec::new() };
        let outcome = match engine::search(&self.tree, &self.settings()) {
            Ok(outcome) => outcome,
            Err(error) => return vec![error.to_string()],
        };
        let mut differences = Vec::new();
        let action = outcome.action.map(|child| self.tree.action(child));
        if action != Some(solution.action.as_str()) {
            differences.push(format!(
                "the reference chooses {}, the solution {}",
                action.unwrap_or("no action"),
                solution.action
            ));
        }
        if let Some(generated) = &solution.generated {
            let entered = self.states_of(&outcome.visited);
            if &entered != generated {
                let extra: Vec<&str> = entered.difference(generated).map(String::as_str).collect();
                let missing: Vec<&str> = generated.difference(&entered).map(String::as_str).collect();
                differences.push(format!(
                    "the reference enters [{}] beyond the solution's generated states and not [{}]",
                    extra.join(" "),
                    missing.join(" ")
                ));
            }
        }
        differences
    }
}

/// The successor graph with its lookups.
struct Graph<'t> {
    test: &'t Cs188Test,
    moves: HashMap<&'t str, Vec<&'t Successor>>,
    values: HashMap<&'t str, f64>,
    wins: HashSet<&'t str>,
    loses: HashSet<&'t str>,
}

impl<'t> Graph<'t> {
    fn new(test: &'t Cs188Test) -> Graph<'t> {
        let mut moves: HashMap<&str, Vec<&Successor>> = HashMap::new();
        for successor in &test.successors {
            moves.entry(successor.state.as_str()).or_default().push(successor);
        }
        Graph {
            test,
            moves,
            values: test.evaluation.iter().map(|e| (e.state.as_str(), e.value)).collect(),
            wins: test.win_states.iter().map(String::as_str).collect(),
            loses: test.lose_states.iter().map(String::as_str).collect(),
        }
    }

    /// Why a state is a terminal, if it is one.
    fn terminal_reason(&self, state: &str) -> Option<&'static str> {
        if self.wins.contains(state) {
            Some("is a win state")
        } else if self.loses.contains(state) {
            Some("is a lose state")
        } else if !self.moves.contains_key(state) {
            Some("has no successors")
        } else {
            None
        }
    }

    fn moves(&self, state: &str) -> &[&'t Successor] {
        self.moves.get(state).map_or(&[], Vec::as_slice)
    }

    /// Every name the file gives a state.
    fn names(&self) -> HashSet<&'t str> {
        let test = self.test;
        let mut names: HashSet<&str> = HashSet::new();
        names.insert(&test.start_state);
        names.extend(test.win_states.iter().chain(&test.lose_states).map(String::as_str));
        names.extend(test.successors.iter().flat_map(|s| [s.state.as_str(), s.next.as_str()]));
        names.extend(test.evaluation.iter().map(|e| e.state.as_str()));
        names
    }

    /// Size of the tree unrolled from `root`, if it is finite and every leaf
    /// in it has an evaluation (iterative: a chain may be long).
    fn complete_size(&self, root: &'t str, memo: &mut HashMap<&'t str, Size>) -> Option<usize> {
        if let Some(size) = memo.get(root) {
            return size.known();
        }
        let mut stack: Vec<(&'t str, usize)> = vec![(root, 0)];
        memo.insert(root, Size::OnPath);
        while let Some(&mut (state, ref mut next)) = stack.last_mut() {
            if self.terminal_reason(state).is_some() {
                let size = self.values.contains_key(state).then_some(1);
                memo.insert(state, Size::Known(size));
                stack.pop();
                continue;
            }
            let moves = self.moves(state);
            if let Some(successor) = moves.get(*next) {
                *next += 1;
                let child = successor.next.as_str();
                if !memo.contains_key(child) {
                    memo.insert(child, Size::OnPath);
                    stack.push((child, 0));
                }
                continue;
            }
            // A child still on the path closes a cycle: infinite.
            let size = moves.iter().try_fold(1usize, |total, successor| {
                memo.get(successor.next.as_str()).and_then(|size| size.known()).map(|size| total.saturating_add(size))
            });
            memo.insert(state, Size::Known(size));
            stack.pop();
        }
        memo.get(root).and_then(|size| size.known())
    }
}

/// What [`Graph::complete_size`] knows about a state.
#[derive(Clone, Copy)]
enum Size {
    OnPath,
    Known(Option<usize>),
}

impl Size {
    fn known(self) -> Option<usize> {
        match self {
            Size::Known(size) => size,
            Size::OnPath => None,
        }
    }
}

/// One node of the unrolled tree, in search (depth-first) order.
struct Instance<'t> {
    state: &'t str,
    body: InstanceBody,
    /// Children as (instance, action), in successor order.
    children: Vec<(usize, &'t str)>,
}

enum InstanceBody {
    Terminal(f64),
    Internal { kind: NodeKind, eval: Option<f64> },
}

/// A node waiting to be unrolled: state, ply, parent and edge, and the line that names it.
struct Pending<'t> {
    state: &'t str,
    ply: u32,
    parent: Option<(usize, &'t str)>,
    line: u32,
}

/// Converts a parsed test (and its solution, for `expect`) into a tree named `name`.
pub fn convert(test: &Cs188Test, solution: Option<&Cs188Solution>, name: &str) -> Result<Cs188Import, ImportError> {
    let graph = Graph::new(test);
    let limit = test.ply_limit();
    let fail = |line: u32, kind| Err(error(&test.file, Some(line), kind));
    let mut instances: Vec<Instance> = Vec::new();
    let mut memo = HashMap::new();
    let (mut within_limit, mut below_budget, mut dropped) = (0usize, MAX_NODES_BELOW_CUT, 0usize);
    let mut stack = vec![Pending { state: test.start_state.as_str(), ply: 0, parent: None, line: test.start_line }];
    while let Some(Pending { state, ply, parent, line }) = stack.pop() {
        let index = instances.len();
        if let Some((parent, action)) = parent {
            instances[parent].children.push((index, action));
        }
        if ply <= limit {
            within_limit += 1;
            if within_limit > MAX_NODES {
                return fail(test.start_line, ImportErrorKind::TooLarge { limit: MAX_NODES });
            }
        }
        let value = graph.values.get(state).copied();
        let missing = |reason: String| ImportErrorKind::MissingEvaluation { state: state.to_string(), reason };
        if let Some(reason) = graph.terminal_reason(state) {
            let Some(value) = value else { return fail(line, missing(reason.to_string())) };
            instances.push(Instance { state, body: InstanceBody::Terminal(value), children: Vec::new() });
            continue;
        }
        if ply == limit {
            let Some(eval) = value else {
                let reason = format!(
                    "is cut by the depth limit (ply {limit} = depth {} x {} agents)",
                    test.depth, test.num_agents
                );
                return fail(line, missing(reason));
            };
            // Keep the subtree below the cut if it is finite, fully evaluated and fits.
            match graph.complete_size(state, &mut memo) {
                Some(size) if size - 1 <= below_budget => below_budget -= size - 1,
                _ => {
                    dropped += 1;
                    instances.push(Instance { state, body: InstanceBody::Terminal(eval), children: Vec::new() });
                    continue;
                }
            }
        }
        let kind = match (ply % test.num_agents, test.agent) {
            (0, _) => NodeKind::Max,
            (_, Agent::Expectimax) => NodeKind::Chance,
            _ => NodeKind::Min,
        };
        instances.push(Instance { state, body: InstanceBody::Internal { kind, eval: value }, children: Vec::new() });
        for successor in graph.moves(state).iter().rev() {
            stack.push(Pending {
                state: &successor.next,
                ply: ply + 1,
                parent: Some((index, &successor.action)),
                line: successor.line,
            });
        }
    }
    let (ids, repeats) = assign_ids(&instances, &graph.names());
    let mut builder = TreeBuilder::new(name, ids[0].clone());
    for (instance, id) in instances.iter().zip(&ids) {
        let body = match instance.body {
            InstanceBody::Terminal(value) => NodeBody::Terminal(value),
            InstanceBody::Internal { kind, eval } => {
                let children = instance
                    .children
                    .iter()
                    .map(|&(child, action)| {
                        if action == ids[child] {
                            ChildSpec::id(action)
                        } else {
                            ChildSpec::labelled(action, ids[child].clone())
                        }
                    })
                    .collect();
                NodeBody::Internal { kind, children, probs: None, eval }
            }
        };
        builder.add(NodeSpec { id: id.clone(), body });
    }
    let tree = builder.build().map_err(|errors| {
        let message = errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ");
        error(&test.file, None, ImportErrorKind::InvalidTree { message })
    })?;
    let root_actions: Vec<String> = instances[0].children.iter().map(|&(_, action)| action.to_string()).collect();
    let mut expect = std::collections::BTreeMap::new();
    if let Some(solution) = solution {
        check_solution_action(test, solution, &instances[0], &root_actions)?;
        expect.insert(
            test.agent.algorithm().name().to_string(),
            Expectation { action: Some(Some(solution.action.clone())), ..Expectation::default() },
        );
    }
    let search = SearchDefaults::of(Some(limit), Some(false));
    let tree = tree.with_metadata(Some(describe(test, repeats > 0)), search, expect);
    let game = game_rules(test, &graph, &tree, &instances, &ids);
    let tree = tree.with_game(Some(game));
    let by_id: HashMap<&str, &str> = ids.iter().map(String::as_str).zip(instances.iter().map(|i| i.state)).collect();
    let states = (0..tree.len() as u32).map(|i| by_id[tree.id(NodeIndex(i))].to_string()).collect();
    Ok(Cs188Import {
        tree,
        algorithm: test.agent.algorithm(),
        agent: test.agent,
        solution: solution.cloned(),
        states,
        repeats,
        dropped_subtrees: dropped,
    })
}

/// The agents and the win and lose terminals, which the CS188 kit serves as
/// `getNumAgents()`, `isWin()` and `isLose()`.
fn game_rules(test: &Cs188Test, graph: &Graph, tree: &Tree, instances: &[Instance], ids: &[String]) -> GameRules {
    let outcomes = instances
        .iter()
        .zip(ids)
        .filter(|(instance, _)| matches!(instance.body, InstanceBody::Terminal(_)))
        .filter_map(|(instance, id)| {
            let outcome = if graph.wins.contains(instance.state) {
                Outcome::Win
            } else if graph.loses.contains(instance.state) {
                Outcome::Lose
            } else {
                return None;
            };
            Some((tree.find(id)?, outcome))
        })
        .collect();
    GameRules { agents: test.num_agents, outcomes }
}

/// Ids in search order: a state's first node gets its name, later ones `STATE~K`.
fn assign_ids(instances: &[Instance], names: &HashSet<&str>) -> (Vec<String>, usize) {
    let mut seen: HashMap<&str, u32> = HashMap::new();
    let mut used: HashSet<String> = HashSet::new();
    let mut repeats = 0;
    let ids = instances
        .iter()
        .map(|instance| {
            let count = seen.entry(instance.state).or_insert(0);
            *count += 1;
            if *count == 1 {
                used.insert(instance.state.to_string());
                return instance.state.to_string();
            }
            repeats += 1;
            loop {
                let id = format!("{}{REPEAT_SEPARATOR}{count}", instance.state);
                if !names.contains(id.as_str()) && used.insert(id.clone()) {
                    return id;
                }
                *count += 1;
            }
        })
        .collect();
    (ids, repeats)
}

fn check_solution_action(
    test: &Cs188Test,
    solution: &Cs188Solution,
    root: &Instance,
    root_actions: &[String],
) -> Result<(), ImportError> {
    let fail = |kind| Err(error(&solution.file, Some(solution.action_line), kind));
    let why = match root.body {
        InstanceBody::Terminal(_) if test.ply_limit() == 0 => Some("cut at depth 0"),
        InstanceBody::Terminal(_) => Some("terminal"),
        InstanceBody::Internal { .. } if test.ply_limit() == 0 => Some("cut at depth 0"),
        InstanceBody::Internal { .. } => None,
    };
    if let Some(why) = why {
        return fail(ImportErrorKind::NoRootAction {
            action: solution.action.clone(),
            state: test.start_state.clone(),
            why: why.to_string(),
        });
    }
    if !root_actions.contains(&solution.action) {
        return fail(ImportErrorKind::UnknownSolutionAction {
            action: solution.action.clone(),
            state: test.start_state.clone(),
            available: root_actions.to_vec(),
        });
    }
    Ok(())
}

/// The tree's description: where it comes from, how it was read, the diagram.
fn describe(test: &Cs188Test, repeats: bool) -> String {
    let file = test.file.file_name().map_or_else(|| test.file.display().to_string(), |f| f.to_string_lossy().into());
    let mut text = format!(
        "CS188 GraphGameTreeTest {file} ({}): {} agents, depth {} = {} plies; win and lose states are terminal.",
        test.agent.class_name(),
        test.num_agents,
        test.depth,
        test.ply_limit(),
    );
    if repeats {
        text.push_str(&format!(
            " States reached along several paths appear once per path: the first in search order keeps the \
             state's name, later ones are STATE{REPEAT_SEPARATOR}2, STATE{REPEAT_SEPARATOR}3, ..."
        ));
    }
    if let Some(diagram) = &test.diagram {
        let lines: Vec<&str> = diagram.lines().map(str::trim_end).collect();
        let first = lines.iter().position(|line| !line.is_empty());
        let last = lines.iter().rposition(|line| !line.is_empty());
        if let (Some(first), Some(last)) = (first, last) {
            text.push_str("\n\n");
            text.push_str(&lines[first..=last].join("\n"));
        }
    }
    text
}

/// The `.solution` file beside a `.test` file.
pub fn solution_path(test: &Path) -> PathBuf {
    test.with_extension("solution")
}

/// The tree name for a test: its folder and stem, `q2-0-lecture-6-tree` for
/// `.../q2/0-lecture-6-tree.test` (tests of different questions share stems).
pub fn test_name(test: &Path) -> String {
    let stem = test.file_stem().map_or_else(|| "test".to_string(), |s| s.to_string_lossy().into_owned());
    match test.parent().and_then(Path::file_name) {
        Some(folder) => format!("{}-{stem}", folder.to_string_lossy()),
        None => stem,
    }
}

/// Reads a `.test` file and its `.solution` (if present) and converts them.
/// The tree is named by [`test_name`] of the file's absolute path.
pub fn import_file(path: &Path) -> Result<Cs188Import, ImportError> {
    let read = |path: &Path| {
        std::fs::read_to_string(path)
            .map_err(|e| error(path, None, ImportErrorKind::Unreadable { message: e.to_string() }))
    };
    let test = parse_test(&read(path)?, path)?;
    let solution_file = solution_path(path);
    let solution = match solution_file.exists() {
        true => Some(parse_solution(&read(&solution_file)?, &solution_file)?),
        false => None,
    };
    let name = test_name(&std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()));
    convert(&test, solution.as_ref(), &name)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LECTURE: &str = r#"class: "GraphGameTreeTest"
alg: "MinimaxAgent"
depth: "2"

#  Tree from lecture 6 slides
diagram: """
      max   # not a comment here
"""
num_agents: "2"

start_state: "max"
win_states: "A B C D"
lose_states: ""

successors: """
max Left min1
max Right min2
min1 Left A
min1 Right B
min2 Left C
min2 Right D
"""

evaluation: """
A 3.0
B 12.0
C 8.0
D 2
"""
"#;

    fn test(text: &str) -> Result<Cs188Test, ImportError> {
        parse_test(text, Path::new("t.test"))
    }

    fn kind(text: &str) -> (Option<u32>, ImportErrorKind) {
        let error = test(text).and_then(|t| convert(&t, None, "t").map(|_| ())).expect_err("should fail");
        (error.line, error.kind)
    }

    #[test]
    fn fields_follow_cs188_test_parser() {
        let fields = parse_fields(LECTURE, Path::new("t.test")).unwrap();
        let keys: Vec<&str> = fields.entries().iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            keys,
            [
                "class",
                "alg",
                "depth",
                "diagram",
                "num_agents",
                "start_state",
                "win_states",
                "lose_states",
                "successors",
                "evaluation"
            ]
        );
        let diagram = fields.get("diagram").unwrap();
        assert_eq!(
            (diagram.value.as_str(), diagram.line, diagram.block),
            ("      max   # not a comment here", 6, true)
        );
        assert_eq!(fields.get("lose_states").unwrap().value, "");
        assert_eq!(fields.get("successors").unwrap().value_line(0), 16);
        let odd = parse_fields("a:b: \"x\"  # c\r\n k :\"\"\n", Path::new("t")).unwrap();
        assert_eq!(odd.get("a:b").unwrap().value, "x");
        assert_eq!(odd.get("k").unwrap().value, "");
    }

    #[test]
    fn syntax_errors_name_the_line() {
        let error = parse_fields("a: \"1\"\nb: 2\n", Path::new("x.test")).unwrap_err();
        assert_eq!(
            error.to_string(),
            "x.test:2: expected `key: \"value\"` or `key: \"\"\"` (a multi-line value), found `b: 2`"
        );
        let error = parse_fields("a: \"1\"\nb: \"\"\"\nno end\n", Path::new("x.test")).unwrap_err();
        assert_eq!((error.line, error.kind), (Some(2), ImportErrorKind::Unterminated { key: "b".into() }));
        let error = parse_fields("a: \"#1\"\n", Path::new("x.test")).unwrap_err();
        assert_eq!(error.line, Some(1), "a # starts a comment even inside quotes, as in CS188");
        let error = parse_fields("a: \"1\"\n\na: \"2\"\n", Path::new("x.test")).unwrap_err();
        assert_eq!((error.line, error.kind), (Some(3), ImportErrorKind::DuplicateKey { key: "a".into(), first: 1 }));
    }

    #[test]
    fn the_lecture_tree_converts() {
        let parsed = test(LECTURE).unwrap();
        assert_eq!((parsed.agent, parsed.depth, parsed.num_agents, parsed.ply_limit()), (Agent::Minimax, 2, 2, 4));
        let import = convert(&parsed, None, "lecture").unwrap();
        let tree = &import.tree;
        assert_eq!(
            tree.ids_of(&(0..7).map(NodeIndex).collect::<Vec<_>>()),
            ["max", "min1", "min2", "A", "B", "C", "D"]
        );
        let actions: Vec<&str> = tree.children(NodeIndex::ROOT).map(|c| tree.action(c)).collect();
        assert_eq!(actions, ["Left", "Right"]);
        assert_eq!(tree.node(NodeIndex(1)).kind, NodeKind::Min);
        assert_eq!(tree.search_defaults(), SearchDefaults::of(Some(4), Some(false)));
        assert!(tree.expectations().is_empty());
        assert!(tree.description().unwrap().ends_with("\n\n      max   # not a comment here"));
        let outcome = engine::search(tree, &import.settings()).unwrap();
        assert_eq!((outcome.value, outcome.action.map(|c| tree.action(c))), (3.0, Some("Left")));
    }

    /// Spring 2021-2022's test files name the edges `children`; the tree is the same.
    #[test]
    fn spring_files_name_the_edges_children() {
        assert!(LECTURE.contains("successors: \"\"\""));
        let spring = test(&LECTURE.replace("successors: \"\"\"", "children: \"\"\"")).unwrap();
        let fall = test(LECTURE).unwrap();
        let tree = |parsed: &Cs188Test| convert(parsed, None, "lecture").unwrap().tree;
        assert_eq!(crate::load::write::tree_to_yaml(&tree(&spring)), crate::load::write::tree_to_yaml(&tree(&fall)));
        let neither = LECTURE.replace("successors: \"\"\"", "edges: \"\"\"");
        assert_eq!(kind(&neither), (None, ImportErrorKind::MissingKey { key: "successors".into() }));
    }

    #[test]
    fn repeated_states_get_numbered_ids_that_avoid_real_names() {
        let text = LECTURE
            .replace("min2 Left C", "min2 Left A")
            .replace("min1 Right B", "min1 Right A~2")
            .replace("win_states: \"A B C D\"", "win_states: \"A A~2 D\"")
            .replace("B 12.0", "A~2 12.0")
            .replace("C 8.0\n", "");
        let import = convert(&test(&text).unwrap(), None, "t").unwrap();
        let tree = &import.tree;
        let ids: Vec<&str> = (0..tree.len() as u32).map(|i| tree.id(NodeIndex(i))).collect();
        assert_eq!(ids, ["max", "min1", "min2", "A", "A~2", "A~3", "D"]);
        assert_eq!(import.state_of("A~3"), Some("A"));
        assert_eq!(import.state_of("A~2"), Some("A~2"));
        assert_eq!(import.repeated_states(), 1);
        let a3 = tree.find("A~3").unwrap();
        assert_eq!(tree.action(a3), "Left");
        assert!(tree.description().unwrap().contains("STATE~2"));
    }

    #[test]
    fn cycles_are_unrolled_to_the_depth_limit_and_cut() {
        let text = "class: \"GraphGameTreeTest\"\nalg: \"AlphaBetaAgent\"\ndepth: \"1\"\nnum_agents: \"2\"\n\
                    start_state: \"a\"\nwin_states: \"w\"\nlose_states: \"\"\n\
                    successors: \"\"\"\na Go b\na Win w\nb Back a\n\"\"\"\nevaluation: \"\"\"\na 1\nw 5\n\"\"\"\n";
        let import = convert(&test(text).unwrap(), None, "t").unwrap();
        let tree = &import.tree;
        let ids: Vec<&str> = (0..tree.len() as u32).map(|i| tree.id(NodeIndex(i))).collect();
        assert_eq!(ids, ["a", "b", "w", "a~2"]);
        let cut = tree.find("a~2").unwrap();
        assert_eq!((tree.node(cut).kind, tree.node(cut).utility, tree.node(cut).ply), (NodeKind::Terminal, 1.0, 2));
        assert_eq!(import.dropped_subtrees(), 1);
    }

    #[test]
    fn exponential_unrolling_is_refused_not_attempted() {
        // Two moves from each of two states that lead to each other: 2^40 paths within the limit.
        let text = "class: \"GraphGameTreeTest\"\nalg: \"MinimaxAgent\"\ndepth: \"20\"\nnum_agents: \"2\"\n\
                    start_state: \"a\"\nsuccessors: \"\"\"\na l b\na r b\nb l a\nb r a\n\"\"\"\n\
                    evaluation: \"\"\"\na 1\nb 2\n\"\"\"\n";
        assert_eq!(kind(text), (Some(5), ImportErrorKind::TooLarge { limit: MAX_NODES }));
    }

    #[test]
    fn errors_are_typed_and_located() {
        let missing_leaf = LECTURE.replace("C 8.0\n", "");
        assert_eq!(
            kind(&missing_leaf),
            (Some(20), ImportErrorKind::MissingEvaluation { state: "C".into(), reason: "is a win state".into() })
        );
        let unknown = LECTURE.replace("MinimaxAgent", "GreedyAgent");
        assert_eq!(kind(&unknown), (Some(2), ImportErrorKind::UnknownAlgorithm { alg: "GreedyAgent".into() }));
        let cut = LECTURE.replace("depth: \"2\"", "depth: \"0\"");
        let (line, error) = kind(&cut);
        assert_eq!(line, Some(11));
        assert!(error.to_string().contains("state `max` is cut by the depth limit (ply 0 = depth 0 x 2 agents)"));
        let bad_line = LECTURE.replace("min1 Left A", "min1 Left");
        assert_eq!(kind(&bad_line), (Some(18), ImportErrorKind::BadSuccessor { text: "min1 Left".into() }));
        let bad_value = LECTURE.replace("B 12.0", "B twelve");
        assert_eq!(kind(&bad_value).1, ImportErrorKind::BadValue { state: "B".into(), text: "twelve".into() });
        let nan = LECTURE.replace("B 12.0", "B nan");
        assert!(matches!(kind(&nan).1, ImportErrorKind::BadValue { .. }));
        let pacman = LECTURE.replace("GraphGameTreeTest", "PacmanGameTreeTest");
        assert!(matches!(kind(&pacman), (Some(1), ImportErrorKind::UnsupportedClass { .. })));
        let no_depth = LECTURE.replace("depth: \"2\"\n", "");
        assert_eq!(kind(&no_depth), (None, ImportErrorKind::MissingKey { key: "depth".into() }));
        let zero = LECTURE.replace("num_agents: \"2\"", "num_agents: \"0\"");
        assert_eq!(kind(&zero), (Some(9), ImportErrorKind::NoAgents));
        let twice = LECTURE.replace("min2 Right D", "min2 Left D");
        assert!(matches!(kind(&twice), (Some(21), ImportErrorKind::DuplicateAction { first: 20, .. })));
        let huge = LECTURE.replace("depth: \"2\"", "depth: \"4000000000\"");
        assert!(matches!(kind(&huge), (Some(3), ImportErrorKind::DepthOverflow { .. })));
    }

    #[test]
    fn solutions_are_checked_against_the_start_state() {
        let parsed = test(LECTURE).unwrap();
        let solution = |action: &str| {
            parse_solution(
                &format!("# comment\naction: \"{action}\"\ngenerated: \"A B max\"\n"),
                Path::new("t.solution"),
            )
            .unwrap()
        };
        let import = convert(&parsed, Some(&solution("Left")), "t").unwrap();
        let expect = &import.tree.expectations()["minimax"];
        assert_eq!(expect.action, Some(Some("Left".to_string())));
        assert_eq!(import.solution.as_ref().unwrap().generated.as_ref().unwrap().len(), 3);
        assert_eq!(import.reference_differences().len(), 1, "the generated set is incomplete");
        let error = convert(&parsed, Some(&solution("Up")), "t").unwrap_err();
        assert_eq!(
            error.to_string(),
            "t.solution:2: the solution's action `Up` is not a move of the start state `max` (its moves: Left, Right)"
        );
    }

    #[test]
    fn test_names_include_the_folder() {
        assert_eq!(test_name(Path::new("/x/q2/0-lecture-6-tree.test")), "q2-0-lecture-6-tree");
        assert_eq!(test_name(Path::new("a.test")), "a");
        assert_eq!(solution_path(Path::new("q3/6-tied-root.test")), Path::new("q3/6-tied-root.solution"));
    }
}
