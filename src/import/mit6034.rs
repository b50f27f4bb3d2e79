//! MIT 6.034's games lab ("lab 3" in Fall 2017-2019, "lab 2" from Fall
//! 2020): its 44 offline tests, turned into a course graded through the MIT
//! 6.034 kit (`grader/kits/mit6034`).
//!
//! # Reading the lab
//!
//! The lab's `tests.py` is Python code, so it is read by running it:
//! [`copy_lab`] copies the lab's folder with `read_lab.py` (carried in the
//! binary, [`READ_LAB`]), which `treegrade import mit6034` runs in the
//! sandbox a student's program gets, never in this process. It prints JSON lines (see its docstring):
//! a header, one line per test in MIT's order, the lab's named fixtures.
//! [`parse_lab`] reads them.
//!
//! # The conversion
//!
//! Each of MIT's tests becomes a test named `NN-function` after MIT's number
//! (01 to 44), or is listed as not graded yet with the reason, never dropped.
//! A rule-function test (1-22) or a multiple-choice answer (41-44) becomes a
//! call test (the `calls` module): the call, and a check of the returned value that
//! the lab reader derived and verified against MIT's `testanswer`.
//! A search test (`dfs_maximizing`, `minimax_endgame_search`,
//! `minimax_search`, `minimax_search_alphabeta`, `progressive_deepening`)
//! becomes a written tree ([`convert`]):
//!
//! - a toy tree keeps its shape; node ids are MIT's labels when every node
//!   has a distinct one, and otherwise `root` and the path of child indexes
//!   (`1.0`, as MIT's `move_sequence` writes it); a Connect Four board
//!   becomes Connect Four's own tree from it (the lab reader walks it with
//!   the lab's `ConnectFourBoard`), to the test's depth limit, node ids the
//!   columns played joined by `-` (`d-e`, as treegrade's games name them),
//!   each edge's action its column;
//! - kinds alternate from the root, which is MAX's when the test passes
//!   `maximize=True` (MIT's root is MAX's whoever is to move on the board);
//!   `dfs_maximizing` plays every node as MAX;
//! - a leaf's utility is the endgame score the lab's game gives it with the
//!   right flag; the lab's toy trees score leaves whatever the flag (the
//!   kit's `fixed`), Connect Four and `NEGATE_GAME` score them for the player
//!   to move (`mover`: the wrong flag negates the score), which the course
//!   tells the kit in `TREEGRADE_MIT6034_MOVER`; a Connect Four position with
//!   a chain of four is lost by the player to move (-1000 when MAX is to
//!   move, 1000 when MIN is), a full board without one is 0;
//! - a node at the depth cut carries the test's heuristic with the right
//!   flag as its `eval` (`always_zero`: 0; `toytree_heuristic_fn`: the node's
//!   score; a test's own heuristic: its answers, which the reader records
//!   for every node);
//! - `depth_limit=INF` is no depth limit;
//! - progressive deepening is FORMAT 8.2's iterative deepening with
//!   `reorder_root: false` and `stop_when_complete: false` (each depth in
//!   the tree's order, every depth run), and every node from ply 1 to the
//!   limit carries the heuristic, since each ply is some depth's cut; MIT's
//!   answer is each depth's score and own count ([`MitAnswer::by_depth`]).
//!
//! The reference then searches each tree (alpha-beta pruning on equality,
//! as MIT's does) and the import prints its value, action and count of
//! static evaluations, which MIT's tests check.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use crate::engine::{self, Algorithm, SearchSettings};
use crate::load::write::yaml_string;
use crate::tree::{GameTree, NodeIndex, NodeKind};

mod calls;
pub use calls::CallTest;

/// The lab reader, run on a copy of the lab to describe its tests.
pub const READ_LAB: &str = include_str!("../../grader/kits/mit6034/read_lab.py");

/// How long the lab reader may take (MIT's tests build boards to depth 5).
pub const READ_LIMIT: Duration = Duration::from_secs(300);

/// The lab's search functions this import grades, in MIT's order, with the
/// algorithm each is graded as.
pub const SEARCHES: [(&str, Algorithm); 5] = [
    ("dfs_maximizing", Algorithm::Minimax),
    ("minimax_endgame_search", Algorithm::Minimax),
    ("minimax_search", Algorithm::Minimax),
    ("minimax_search_alphabeta", Algorithm::AlphaBeta),
    // MIT's progressive deepening: FORMAT 8.2's iterative deepening with
    // `reorder_root: false` and `stop_when_complete: false`.
    ("progressive_deepening", Algorithm::IterativeDeepening),
];

/// The lab's files the reader needs, and the student file's two names.
const LAB_FILES: [&str; 5] = ["tests.py", "tester.py", "game_api.py", "toytree.py", "boards.py"];
const STUDENT_FILES: [&str; 2] = ["lab2.py", "lab3.py"];

/// How the lab reader begins the reason a rule or answer test's check cannot be a calls check.
pub const UNEXPRESSIBLE: &str = "its check is not one treegrade can express";

/// Connect Four's score of a won game, as the lab's `endgame_score_connectfour` gives it.
const WIN: f64 = 1000.0;

/// What the lab reader found.
#[derive(Clone, Debug)]
pub struct Lab {
    /// `lab2` or `lab3`: the student file's name in this copy.
    pub student: Option<String>,
    /// MIT's tests, in order (number 1 first).
    pub tests: Vec<Value>,
    /// The lab's named trees and boards, in the kit's `_fixtures` form.
    pub fixtures: Value,
}

/// Why MIT's lab could not be read.
#[derive(Debug, thiserror::Error)]
pub enum LabError {
    /// A file the lab's tests need is not in the folder.
    #[error(
        "{} has no {name}: give the folder of MIT 6.034's games lab (tests.py, tester.py, game_api.py, \
         toytree.py, boards.py and lab2.py or lab3.py)",
        .dist.display()
    )]
    MissingFile {
        /// The folder given.
        dist: PathBuf,
        /// The file it lacks.
        name: &'static str,
    },
    /// Neither student file is there, and the lab's tests.py imports one.
    #[error("{} has no lab2.py or lab3.py, which the lab's tests.py imports", .0.display())]
    NoStudentFile(PathBuf),
    /// A file could not be copied or written for the reader.
    #[error("cannot copy {} for the lab reader", .path.display())]
    Copy {
        /// The file.
        path: PathBuf,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// The reader's output is not what it prints.
    #[error("the lab reader's output: {0}")]
    Unreadable(String),
}

/// Reads the lab reader's output: the header, one line per test, the fixtures.
pub fn parse_lab(text: &str) -> Result<Lab, LabError> {
    parse_lines(text).map_err(LabError::Unreadable)
}

fn parse_lines(text: &str) -> Result<Lab, String> {
    let mut lines = text.lines().filter(|line| !line.trim().is_empty());
    let parse = |line: &str| serde_json::from_str::<Value>(line).map_err(|e| format!("unreadable line: {e}"));
    let header = parse(lines.next().ok_or("the lab reader printed nothing")?)?;
    let count = header["tests"].as_u64().ok_or("the lab reader's first line gives no number of tests")? as usize;
    let student = header["lab"].as_str().map(str::to_string);
    let tests: Vec<Value> = lines.by_ref().take(count).map(parse).collect::<Result<_, _>>()?;
    if tests.len() != count {
        return Err(format!("the lab reader announced {count} tests and described {}", tests.len()));
    }
    let fixtures = parse(lines.next().ok_or("the lab reader gave no fixtures")?)?["fixtures"].clone();
    Ok(Lab { student, tests, fixtures })
}

/// Copies the lab's files the reader needs, and the reader (`read_lab.py`,
/// to be run as the lab's own code is, in the sandbox), into `into`.
pub fn copy_lab(dist: &Path, into: &Path) -> Result<(), LabError> {
    let copy = |from: &Path, to: PathBuf| {
        std::fs::copy(from, to).map(drop).map_err(|source| LabError::Copy { path: from.to_path_buf(), source })
    };
    for name in LAB_FILES {
        let from = dist.join(name);
        if !from.is_file() {
            return Err(LabError::MissingFile { dist: dist.to_path_buf(), name });
        }
        copy(&from, into.join(name))?;
    }
    let student = STUDENT_FILES.iter().find(|name| dist.join(name).is_file());
    let Some(student) = student else {
        return Err(LabError::NoStudentFile(dist.to_path_buf()));
    };
    copy(&dist.join(student), into.join(student))?;
    std::fs::write(into.join("read_lab.py"), READ_LAB)
        .map_err(|source| LabError::Copy { path: into.join("read_lab.py"), source })
}

/// One of MIT's tests, as the import treats it.
#[derive(Clone, Debug, PartialEq)]
pub enum Converted {
    /// A search test, written as a tree.
    Search(SearchTest),
    /// A rule-function or multiple-choice test, written as a call test.
    Call(CallTest),
    /// A test treegrade does not grade yet, and why.
    NotGraded {
        /// `NN-function`.
        name: String,
        /// Why, in words.
        reason: String,
    },
}

/// A search test of the lab, as a treegrade test.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchTest {
    /// MIT's test number (1-based).
    pub number: usize,
    /// The lab function it runs, which is also its question.
    pub function: String,
    /// `NN-function`: the tree's name and file stem.
    pub name: String,
    /// The graded search.
    pub algorithm: Algorithm,
    /// The tree file's text.
    pub yaml: String,
    /// Whether the tree's scores are the mover's (the kit's `mover`).
    pub mover: bool,
    /// Nodes in the tree.
    pub nodes: usize,
    /// What MIT's tests expect, searched as the lab's searches do.
    pub mit: MitAnswer,
    /// Whether the test's heuristic is the lab's `always_zero`, which takes anything.
    pub always_zero: bool,
    /// The lab's board, when MIT builds the test's game from the student's
    /// own rule functions (`rules: student`): the kit checks those rules on
    /// the positions the search enters, from this board.
    pub student_rules: Option<Value>,
}

/// A search's answer as MIT's tests check it: `(path, score, evaluations)`.
#[derive(Clone, Debug, PartialEq)]
pub struct MitAnswer {
    /// The node ids from the root to the node whose static value is the score.
    pub path: Vec<String>,
    /// The score.
    pub score: f64,
    /// The number of static evaluations.
    pub evaluations: usize,
    /// Progressive deepening: each depth's score and own count of static
    /// evaluations, from depth 1 (the last is the answer above); empty for
    /// the other searches.
    pub by_depth: Vec<(f64, usize)>,
}

/// The test's name: MIT's number on two digits and the function.
pub fn test_name(number: usize, function: &str) -> String {
    format!("{number:02}-{function}")
}

/// Converts one of MIT's tests, as the lab reader described it.
pub fn convert(test: &Value) -> Converted {
    let number = test["number"].as_u64().unwrap_or(0) as usize;
    let function = test["function"].as_str().unwrap_or("?").to_string();
    let name = test_name(number, &function);
    let not_graded = |reason: String| Converted::NotGraded { name: name.clone(), reason };
    if let Some(why) = test["unusable"].as_str() {
        // The reader's own verdict on a check reads as it is; anything else is the reader failing.
        if why.starts_with(UNEXPRESSIBLE) {
            return not_graded(why.to_string());
        }
        return not_graded(format!("the lab reader could not describe it: {why}"));
    }
    if matches!(test["kind"].as_str(), Some("rule" | "answer")) {
        return match calls::call_test(test, number, &function, &name) {
            Ok(call) => Converted::Call(call),
            Err(reason) => not_graded(reason.to_string()),
        };
    }
    let Some(&(_, algorithm)) = SEARCHES.iter().find(|(known, _)| *known == function) else {
        return not_graded(format!("`{function}` is not one of the lab's functions the import knows"));
    };
    match search_tree(test, &function, &name) {
        Ok((yaml, mover, nodes, mit)) => {
            let always_zero = test["args"].as_array().into_iter().flatten().any(|arg| {
                arg.get("heuristic").and_then(|h| h.get("name")).and_then(Value::as_str) == Some("always_zero")
            });
            let game = test["args"].as_array().and_then(|args| args.iter().find_map(|arg| arg.get("game")));
            let student_rules = game
                .filter(|game| game["rules"] == "student")
                .map(|game| serde_json::json!({"rows": game["board"]["rows"], "players": game["board"]["players"]}));
            Converted::Search(SearchTest {
                number,
                function,
                name,
                algorithm,
                yaml,
                mover,
                nodes,
                mit,
                always_zero,
                student_rules,
            })
        }
        Err(reason) => not_graded(reason),
    }
}

/// The arguments of a search test: game, heuristic, depth limit, `maximize`.
struct Arguments<'a> {
    game: &'a Value,
    heuristic: Option<&'a Value>,
    depth: Option<u32>,
    maximize: bool,
}

/// Reads a search's arguments by the lab function's signature.
fn arguments<'a>(test: &'a Value, function: &str) -> Result<Arguments<'a>, String> {
    let args = test["args"].as_array().ok_or("the lab reader gave no arguments")?;
    let arg = |index: usize, key: &str| args.get(index).and_then(|arg| arg.get(key));
    let shape = match function {
        "dfs_maximizing" => (None, None, None, 1),
        "minimax_endgame_search" => (None, None, Some(1), 2),
        "minimax_search" | "progressive_deepening" => (Some(1), Some(2), Some(3), 4),
        _ => (Some(3), Some(4), Some(5), 6),
    };
    let (heuristic, depth, maximize, count) = shape;
    if args.len() != count {
        return Err(format!("{function} takes {count} arguments, and the test passes {}", args.len()));
    }
    if function == "minimax_search_alphabeta"
        && (arg(1, "number") != Some(&Value::from("-inf")) || arg(2, "number") != Some(&Value::from("inf")))
    {
        return Err("the test starts alpha-beta with a window other than (-INF, INF), as treegrade never does".into());
    }
    let depth = match depth.and_then(|index| arg(index, "number")) {
        None => None,
        Some(Value::String(inf)) if inf == "inf" => None,
        Some(number) => match number.as_f64() {
            Some(d) if d >= 0.0 && d.fract() == 0.0 && d <= f64::from(u32::MAX) => Some(d as u32),
            _ => return Err(format!("the depth limit {number} is not a whole number of plies")),
        },
    };
    if function == "progressive_deepening" && depth.is_none() {
        return Err("progressive deepening without a depth limit never ends, at MIT as here".to_string());
    }
    Ok(Arguments {
        game: arg(0, "game").ok_or("the test's first argument is not a game")?,
        heuristic: heuristic.map(|index| arg(index, "heuristic").ok_or("the test passes no heuristic")).transpose()?,
        depth,
        maximize: maximize
            .map(|index| arg(index, "bool").and_then(Value::as_bool))
            .unwrap_or(Some(true))
            .ok_or("the test's `maximize` is not True or False")?,
    })
}

/// Where a tree being written carries the test's heuristic.
#[derive(Clone, Copy)]
struct Cut {
    /// The test's depth limit (`None`: none).
    depth: Option<u32>,
    /// Progressive deepening: every node from ply 1 to the limit is at some
    /// iteration's cut, so each carries an `eval`.
    every_ply: bool,
}

impl Cut {
    /// Whether an inner node at `ply` carries the heuristic.
    fn evaluates(self, ply: usize) -> bool {
        let ply = ply as u32;
        self.depth.is_some_and(|d| ply == d || (self.every_ply && (1..d).contains(&ply)))
    }

    /// Whether `ply` is the test's depth cut, below which no correct search goes.
    fn at_limit(self, ply: usize) -> bool {
        self.depth.is_some_and(|d| ply as u32 == d)
    }
}

/// One node of a tree being written.
struct Draft {
    id: String,
    /// The edge's action, when it is not the id.
    action: Option<String>,
    kind: NodeKind,
    children: Vec<usize>,
    utility: Option<f64>,
    eval: Option<f64>,
}

/// The test's tree as YAML, whether its scores are the mover's, its node
/// count, and the answer MIT's tests expect on it.
fn search_tree(test: &Value, function: &str, name: &str) -> Result<(String, bool, usize, MitAnswer), String> {
    let args = arguments(test, function)?;
    let all_max = function == "dfs_maximizing";
    let kind_at = |ply: usize| {
        if all_max || ply.is_multiple_of(2) == args.maximize { NodeKind::Max } else { NodeKind::Min }
    };
    // Progressive deepening evaluates at every ply down to its limit, one ply an iteration.
    let deepening = function == "progressive_deepening";
    let cut = Cut { depth: args.depth, every_ply: deepening };
    let (nodes, mover, what) = if let Some(tree) = args.game.get("toytree") {
        let (nodes, mover) = toy_tree(tree, &args.game["endgame"], args.heuristic, cut, &kind_at)?;
        (nodes, mover, "a toy tree of the lab".to_string())
    } else if args.game.get("board").is_some() {
        let nodes = connect_four(&args.game["positions"], args.heuristic, cut, &kind_at)?;
        (nodes, true, "Connect Four from the lab's board".to_string())
    } else {
        return Err("the test's game is neither a toy tree nor a Connect Four board".to_string());
    };
    let depth = args.depth.map(|d| format!(", depth_limit={d}")).unwrap_or_default();
    let description = format!(
        "MIT 6.034 games lab, test {}: {function} on {what} (maximize={}{depth}).",
        test["number"],
        if args.maximize { "True" } else { "False" },
    );
    let window = matches!(function, "minimax_search_alphabeta" | "progressive_deepening")
        .then_some((f64::NEG_INFINITY, f64::INFINITY));
    let depths: Vec<Option<u32>> = match (deepening, args.depth) {
        (true, Some(deepest)) => (1..=deepest).map(Some).collect(),
        _ => vec![args.depth],
    };
    let answers: Vec<Found> = depths.iter().map(|&depth| mit_search(&nodes, 0, depth, window)).collect();
    let found = answers.last().expect("at least one depth");
    let mit = MitAnswer {
        path: found.path.iter().map(|&index| nodes[index].id.clone()).collect(),
        score: found.score,
        evaluations: found.evaluations,
        by_depth: if deepening { answers.iter().map(|a| (a.score, a.evaluations)).collect() } else { Vec::new() },
    };
    Ok((tree_yaml(name, &description, &nodes, cut), mover, nodes.len(), mit))
}

/// A search as the lab's are written: the game-over check first, then the
/// depth limit; the first child that is strictly better keeps the best; with
/// a window, alpha-beta that stops as soon as alpha >= beta. Written apart
/// from the engine, so that the import checks one against the other.
struct Found {
    path: Vec<usize>,
    score: f64,
    evaluations: usize,
}

fn mit_search(nodes: &[Draft], index: usize, depth: Option<u32>, window: Option<(f64, f64)>) -> Found {
    let node = &nodes[index];
    if node.children.is_empty() {
        return Found { path: vec![index], score: node.utility.unwrap_or(0.0), evaluations: 1 };
    }
    if depth == Some(0) {
        return Found { path: vec![index], score: node.eval.unwrap_or(0.0), evaluations: 1 };
    }
    let maximize = node.kind == NodeKind::Max;
    let (mut alpha, mut beta) = window.unwrap_or((f64::NEG_INFINITY, f64::INFINITY));
    let mut best: Option<Found> = None;
    let mut evaluations = 0;
    for &child in &node.children {
        let found = mit_search(nodes, child, depth.map(|d| d - 1), window.map(|_| (alpha, beta)));
        evaluations += found.evaluations;
        let score = found.score;
        let better = best.as_ref().is_none_or(|b| if maximize { score > b.score } else { score < b.score });
        if better {
            best = Some(found);
        }
        if window.is_some() {
            if maximize {
                alpha = alpha.max(score)
            } else {
                beta = beta.min(score)
            }
            if alpha >= beta {
                break;
            }
        }
    }
    let mut best = best.expect("an internal node has a child");
    best.path.insert(0, index);
    best.evaluations = evaluations;
    best
}

/// The answer of a both-flags pair (`[as MIN, as MAX]`) for the node's kind.
fn for_kind(pair: &Value, kind: NodeKind) -> Option<f64> {
    pair.get(usize::from(kind == NodeKind::Max)).and_then(Value::as_f64)
}

/// Whether a both-flags pair ignores the flag (`Some(false)`), negates with it (`Some(true)`), or either (zero).
fn pair_convention(pair: &Value) -> Result<Option<bool>, String> {
    let (Some(min), Some(max)) = (pair.get(0).and_then(Value::as_f64), pair.get(1).and_then(Value::as_f64)) else {
        return Err(format!("the lab's function answered {pair} rather than a number"));
    };
    match (min == max, min == -max) {
        (true, true) => Ok(None),
        (true, false) => Ok(Some(false)),
        (false, true) => Ok(Some(true)),
        _ => Err(format!(
            "the lab's score answers {min} as MIN and {max} as MAX: neither the same nor negated, which the kit \
             cannot serve"
        )),
    }
}

/// The one convention of all these pairs (false when none decides).
fn convention<'a>(pairs: impl Iterator<Item = &'a Value>) -> Result<bool, String> {
    let mut found = None;
    for pair in pairs {
        match (found, pair_convention(pair)?) {
            (_, None) => {}
            (None, decided) => found = decided,
            (Some(a), Some(b)) if a != b => {
                return Err("the test's scores ignore the `maximize` flag at some nodes and follow it at others, \
                            which the kit cannot serve"
                    .to_string());
            }
            _ => {}
        }
    }
    Ok(found.unwrap_or(false))
}

/// The heuristic's value at a node (by path key) for the node's kind.
fn heuristic_at(heuristic: Option<&Value>, key: &str, score: &Value, kind: NodeKind) -> Result<f64, String> {
    let heuristic = heuristic.ok_or("a node at the depth cut and no heuristic")?;
    match heuristic.get("name").and_then(Value::as_str) {
        Some("always_zero") => return Ok(0.0),
        Some("toytree_heuristic_fn") => {
            return score.as_f64().ok_or_else(|| format!("toytree_heuristic_fn at a node without a score ({key})"));
        }
        Some(other) => return Err(format!("the heuristic `{other}` is not one the import can answer")),
        None => {}
    }
    let pair = heuristic.get("values").and_then(|values| values.get(key));
    pair.and_then(|pair| for_kind(pair, kind))
        .ok_or_else(|| format!("the test's heuristic has no number for the node at path [{key}]"))
}

/// The path key of a child: `0.1` under `0`.
fn child_key(key: &str, index: usize) -> String {
    if key.is_empty() { index.to_string() } else { format!("{key}.{index}") }
}

/// A toy tree's nodes, and whether its scores are the mover's.
fn toy_tree(
    tree: &Value,
    endgame: &Value,
    heuristic: Option<&Value>,
    cut: Cut,
    kind_at: &dyn Fn(usize) -> NodeKind,
) -> Result<(Vec<Draft>, bool), String> {
    let endgame = endgame.as_object().ok_or("the toy tree's endgame scores are missing")?;
    let mut pairs: Vec<&Value> = endgame.values().collect();
    if let Some(values) = heuristic.and_then(|h| h.get("values")).and_then(Value::as_object) {
        pairs.extend(values.values().filter(|pair| pair.get(0).is_some_and(|v| !v.is_null())));
    }
    let mover = convention(pairs.into_iter())?;
    let mut flat = Vec::new();
    flatten(tree, String::new(), 0, &mut flat);
    let labels: Vec<Option<&str>> = flat.iter().map(|(_, node, _)| node["label"].as_str()).collect();
    let mut distinct: Vec<&str> = labels.iter().flatten().copied().collect();
    distinct.sort_unstable();
    distinct.dedup();
    // Labels become ids only when they are distinct words (an id lists in the kit's paths).
    let word = |label: &&str| !label.is_empty() && label.chars().all(|c| c.is_alphanumeric() || c == '_');
    let use_labels = distinct.len() == flat.len() && distinct.iter().all(word);
    let mut nodes: Vec<Draft> = Vec::new();
    let mut index_of: BTreeMap<String, usize> = BTreeMap::new();
    for (key, node, ply) in &flat {
        let id = match (use_labels, labels[nodes.len()]) {
            (true, Some(label)) => label.to_string(),
            _ if key.is_empty() => "root".to_string(),
            _ => key.clone(),
        };
        let kind = kind_at(*ply);
        let children = node["children"].as_array().map(Vec::len).unwrap_or(0);
        let mut draft = Draft { id, action: None, kind, children: Vec::new(), utility: None, eval: None };
        if children == 0 {
            let pair = endgame.get(key.as_str()).ok_or_else(|| format!("no endgame score for the leaf [{key}]"))?;
            draft.utility = Some(for_kind(pair, kind).ok_or_else(|| format!("the leaf [{key}]'s score is {pair}"))?);
        } else if cut.evaluates(*ply) {
            draft.eval = Some(heuristic_at(heuristic, key, &node["score"], kind)?);
        }
        if !key.is_empty() {
            let parent = key.rsplit_once('.').map(|(parent, _)| parent).unwrap_or("");
            let index = nodes.len();
            nodes[index_of[parent]].children.push(index);
        }
        index_of.insert(key.clone(), nodes.len());
        nodes.push(draft);
    }
    Ok((nodes, mover))
}

/// Every node of a toy tree in depth-first order: its path key, JSON and ply.
fn flatten<'a>(node: &'a Value, key: String, ply: usize, out: &mut Vec<(String, &'a Value, usize)>) {
    out.push((key.clone(), node, ply));
    for (index, child) in node["children"].as_array().into_iter().flatten().enumerate() {
        flatten(child, child_key(&key, index), ply + 1, out);
    }
}

/// Connect Four's tree from the lab's board, as the reader walked it.
fn connect_four(
    positions: &Value,
    heuristic: Option<&Value>,
    cut: Cut,
    kind_at: &dyn Fn(usize) -> NodeKind,
) -> Result<Vec<Draft>, String> {
    let positions = positions.as_object().ok_or("the board's positions are missing")?;
    let letter = |column: &Value| char::from(b'a' + column.as_u64().unwrap_or(0).min(25) as u8).to_string();
    let child_id = |id: &str, action: &str| if id == "root" { action.to_string() } else { format!("{id}-{action}") };
    let mut nodes: Vec<Draft> = Vec::new();
    let mut stack = vec![(String::new(), "root".to_string(), None::<String>, None::<usize>, 0usize)];
    while let Some((key, id, action, parent, ply)) = stack.pop() {
        let position = positions.get(&key).ok_or_else(|| format!("no position at path [{key}]"))?;
        let kind = kind_at(ply);
        let index = nodes.len();
        if let Some(parent) = parent {
            nodes[parent].children.push(index);
        }
        let mut draft = Draft { id: id.clone(), action, kind, children: Vec::new(), utility: None, eval: None };
        match position.get(1).and_then(Value::as_str) {
            Some("win") => draft.utility = Some(if kind == NodeKind::Max { -WIN } else { WIN }),
            Some("draw") => draft.utility = Some(0.0),
            _ if cut.at_limit(ply) => {
                draft.eval = Some(heuristic_at(heuristic, &key, &Value::Null, kind)?);
                nodes.push(draft);
                // Below the cut: the moves only, as leaves no correct search enters.
                for column in position.get(2).and_then(Value::as_array).into_iter().flatten() {
                    let action = letter(column);
                    let below_index = nodes.len();
                    nodes[index].children.push(below_index);
                    let below = Draft {
                        id: child_id(&id, &action),
                        action: Some(action),
                        kind,
                        children: Vec::new(),
                        utility: Some(0.0),
                        eval: None,
                    };
                    nodes.push(below);
                }
                if nodes.len() == index + 1 {
                    return Err(format!("the position at path [{key}] is cut by the depth limit and has no moves"));
                }
                continue;
            }
            _ => {
                if cut.evaluates(ply) {
                    draft.eval = Some(heuristic_at(heuristic, &key, &Value::Null, kind)?);
                }
                let children: Vec<String> =
                    (0..).map(|i| child_key(&key, i)).take_while(|child| positions.contains_key(child)).collect();
                if children.is_empty() {
                    return Err(format!("the position at path [{key}] is not over and has no moves"));
                }
                for child in children.iter().rev() {
                    let action = letter(&positions[child][0]);
                    stack.push((child.clone(), child_id(&id, &action), Some(action), Some(index), ply + 1));
                }
            }
        }
        nodes.push(draft);
    }
    Ok(nodes)
}

/// The tree file: name, description, search defaults and nodes, every id quoted.
fn tree_yaml(name: &str, description: &str, nodes: &[Draft], cut: Cut) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# Imported by `treegrade import mit6034`.");
    let _ = writeln!(out, "name: {}", yaml_string(name));
    let _ = writeln!(out, "description: {}", yaml_string(description));
    let _ = writeln!(out, "root: {}", quoted(&nodes[0].id));
    out.push_str("nodes:\n");
    for node in nodes {
        let _ = write!(out, "  {}: ", quoted(&node.id));
        if node.children.is_empty() {
            let _ = writeln!(out, "{}", number(node.utility.unwrap_or(0.0)));
            continue;
        }
        let children: Vec<String> = node
            .children
            .iter()
            .map(|&child| match &nodes[child].action {
                Some(action) => format!("{{{}: {}}}", quoted(action), quoted(&nodes[child].id)),
                None => quoted(&nodes[child].id),
            })
            .collect();
        let kind = if node.kind == NodeKind::Max { "max" } else { "min" };
        let eval = node.eval.map(|e| format!(", eval: {}", number(e))).unwrap_or_default();
        let _ = writeln!(out, "{{{kind}: [{}]{eval}}}", children.join(", "));
    }
    let depth = cut.depth.map(|d| format!("depth: {d}, ")).unwrap_or_default();
    // MIT's progressive deepening: each depth in the tree's order, every depth run.
    let deepening = if cut.every_ply { ", reorder_root: false, stop_when_complete: false" } else { "" };
    let _ = writeln!(out, "search: {{{depth}prune_on_equal: true{deepening}}}");
    out
}

/// An id always as a quoted YAML string (`"0.1"` is an id, never a number).
fn quoted(id: &str) -> String {
    let plain = yaml_string(id);
    if plain.starts_with('"') { plain } else { format!("\"{id}\"") }
}

/// A number as YAML writes it: whole numbers without a fraction.
fn number(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 { format!("{}", value as i64) } else { format!("{value}") }
}

/// What the reference does on a converted tree: as MIT's tests check it.
#[derive(Clone, Debug, PartialEq)]
pub struct Reference {
    /// The root's value (MIT's score).
    pub value: f64,
    /// The chosen root action, if any.
    pub action: Option<String>,
    /// Static evaluations: terminals entered and nodes entered at the depth cut.
    pub evaluations: usize,
    /// Nodes entered.
    pub entered: usize,
    /// Iterative deepening: each iteration's value and own count of static
    /// evaluations (its terminals and nodes at its cut entered); empty for
    /// the other searches.
    pub by_depth: Vec<(f64, usize)>,
}

/// Searches a converted tree with the reference, as the test grades it.
pub fn reference(tree: &crate::tree::Tree, algorithm: Algorithm) -> Result<Reference, engine::SearchError> {
    let settings = SearchSettings::resolve(algorithm, tree.search_defaults(), None, Some(true));
    let outcome = engine::search(tree, &settings)?;
    let evaluations = |visited: &[NodeIndex], depth: Option<u32>| {
        let at_cut = |node: NodeIndex| depth.is_some_and(|d| tree.ply(node) == d);
        visited.iter().filter(|&&node| tree.kind(node) == NodeKind::Terminal || at_cut(node)).count()
    };
    let mut by_depth = Vec::new();
    let mut start = 0;
    for iteration in outcome.iterations() {
        let visited = &outcome.visited[start..start + iteration.entries];
        by_depth.push((iteration.value.unwrap_or(f64::NAN), evaluations(visited, Some(iteration.depth))));
        start += iteration.entries;
    }
    Ok(Reference {
        value: outcome.value,
        action: outcome.action.map(|node| tree.action(node).to_string()),
        evaluations: by_depth.last().map_or_else(|| evaluations(&outcome.visited, settings.depth), |d| d.1),
        entered: outcome.visited.len(),
        by_depth,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn toy(number: usize, function: &str, args: Value) -> Value {
        json!({"number": number, "function": function, "kind": "search", "args": args})
    }

    fn load(test: &SearchTest) -> crate::tree::Tree {
        crate::load::load_tree_str(test.yaml.clone(), Path::new("t.yaml")).unwrap().tree
    }

    fn game(tree: Value, endgame: Value) -> Value {
        json!({"game": {"toytree": tree, "endgame": endgame}})
    }

    fn leaf(score: i64) -> Value {
        json!({"label": null, "score": score, "children": []})
    }

    #[test]
    fn a_toy_tree_keeps_its_shape_with_path_ids_and_the_flag_that_negates_scores_is_the_movers() {
        let tree = json!({"label": null, "score": null, "children": [leaf(4), leaf(5)]});
        let args = json!([game(tree, json!({"0": [-4, 4], "1": [-5, 5]})), {"number": "-inf"}, {"number": "inf"},
            {"heuristic": {"name": "toytree_heuristic_fn"}}, {"number": "inf"}, {"bool": true}]);
        let Converted::Search(test) = convert(&toy(37, "minimax_search_alphabeta", args)) else { panic!() };
        assert_eq!(test.name, "37-minimax_search_alphabeta");
        assert!(test.mover);
        assert!(test.yaml.contains("\"root\": {max: [\"0\", \"1\"]}"), "{}", test.yaml);
        let found = reference(&load(&test), Algorithm::AlphaBeta).unwrap();
        // MIT's NEGATE_GAME: -4 with 2 static evaluations.
        assert_eq!((found.value, found.evaluations, found.action.as_deref()), (-4.0, 2, Some("0")));
        assert_eq!((test.mit.path, test.mit.score, test.mit.evaluations), (vec!["root".into(), "0".into()], -4.0, 2));
    }

    #[test]
    fn a_depth_cut_takes_the_heuristic_for_the_nodes_side_and_labels_become_ids() {
        let inner = |label: &str, score: i64| {
            json!({"label": label, "score": score, "children": [
            {"label": format!("{label}x"), "score": score, "children": []}]})
        };
        let tree = json!({"label": "R", "score": null, "children": [inner("C", 1), inner("E", 2)]});
        let values = json!({"": [null, null], "0": [1, 1], "0.0": [1, 1], "1": [2, 2], "1.0": [2, 2]});
        let args = json!([game(tree, json!({"0.0": [1, 1], "1.0": [2, 2]})), {"number": "-inf"},
            {"number": "inf"}, {"heuristic": {"values": values}}, {"number": 1}, {"bool": true}]);
        let Converted::Search(test) = convert(&toy(38, "minimax_search_alphabeta", args)) else { panic!() };
        assert!(!test.mover);
        assert!(test.yaml.contains("\"C\": {min: [\"Cx\"], eval: 1}"), "{}", test.yaml);
        let found = reference(&load(&test), Algorithm::AlphaBeta).unwrap();
        assert_eq!((found.value, found.evaluations), (2.0, 2));
    }

    #[test]
    fn a_connect_four_position_is_lost_by_the_player_to_move() {
        let positions = json!({"": [null, null], "0": [2, "win"], "1": [5, null], "1.0": [0, "draw"]});
        let args = json!([{"game": {"board": {}, "rules": "student", "positions": positions}}, {"bool": true}]);
        let Converted::Search(test) = convert(&toy(26, "minimax_endgame_search", args)) else { panic!() };
        assert!(test.mover);
        // After MAX's move into column c, MIN is to move and has lost: +1000 for MAX.
        assert!(test.yaml.contains("\"c\": 1000"), "{}", test.yaml);
        assert!(test.yaml.contains("{\"f\": \"f\"}"), "{}", test.yaml);
        assert!(test.yaml.contains("\"f-a\": 0"), "{}", test.yaml);
        let found = reference(&load(&test), Algorithm::Minimax).unwrap();
        assert_eq!((found.value, found.action.as_deref(), found.evaluations), (1000.0, Some("c"), 2));
        assert_eq!(test.mit.path, ["root", "c"]);
        assert_eq!(test.student_rules, Some(json!({"rows": null, "players": null})));
    }

    #[test]
    fn unusable_tests_are_listed_with_the_reason() {
        let odd = "its check is not one treegrade can express: on 0.5 MIT's testanswer says wrong";
        let endless = json!([{"game": {"toytree": {"children": []}}}, {"heuristic": {"name": "always_zero"}},
            {"number": "inf"}, {"bool": true}]);
        let cases = [
            (json!({"number": 1, "function": "is_game_over_connectfour", "kind": "rule"}), "no check"),
            (json!({"number": 18, "function": "heuristic_connectfour", "kind": "rule", "unusable": odd}), odd),
            (toy(39, "progressive_deepening", endless), "without a depth limit never ends"),
            (json!({"number": 5, "function": "x", "kind": "rule", "unusable": "ValueError: no"}), "reader could not"),
        ];
        for (test, said) in cases {
            let Converted::NotGraded { name, reason } = convert(&test) else { panic!("{test}") };
            assert!(name.starts_with(&format!("{:02}-", test["number"].as_u64().unwrap())), "{name}");
            assert!(reason.contains(said), "{reason}");
        }
    }

    #[test]
    fn progressive_deepening_carries_an_eval_at_every_ply_and_mits_scores_depth_by_depth() {
        let node = |label: &str, score: i64, children: Vec<Value>| json!({"label": label, "score": score, "children": children});
        let leaf = |label: &str, score: i64| node(label, score, vec![]);
        let tree = json!({"label": "R", "score": null, "children": [
            node("P", 4, vec![leaf("P1", 3), leaf("P2", 5)]), node("Q", 6, vec![leaf("Q1", 2), leaf("Q2", 9)])]});
        let endgame = json!({"0.0": [3, 3], "0.1": [5, 5], "1.0": [2, 2], "1.1": [9, 9]});
        let args = json!([game(tree, endgame), {"heuristic": {"name": "toytree_heuristic_fn"}}, {"number": 2},
            {"bool": true}]);
        let Converted::Search(test) = convert(&toy(39, "progressive_deepening", args)) else { panic!() };
        assert_eq!(test.algorithm, Algorithm::IterativeDeepening);
        assert!(test.yaml.contains("\"P\": {min: [\"P1\", \"P2\"], eval: 4}"), "{}", test.yaml);
        assert!(test.yaml.contains("reorder_root: false, stop_when_complete: false}"), "{}", test.yaml);
        // Depth 1: P 4, Q 6; depth 2: P 3, and Q's first leaf 2 cuts Q.
        assert_eq!(test.mit.by_depth, [(6.0, 2), (3.0, 3)]);
        let found = reference(&load(&test), Algorithm::IterativeDeepening).unwrap();
        assert_eq!((found.by_depth, found.value), (test.mit.by_depth.clone(), 3.0));
    }

    #[test]
    fn rule_and_answer_tests_become_call_tests() {
        let rule = json!({"number": 3, "function": "is_game_over_connectfour", "kind": "rule",
            "type": "FUNCTION_ENCODED_ARGS", "expected_val": "False", "shown": "is_game_over_connectfour(b)",
            "calls": [[{"board": {"rows": [[0]], "players": ["a", "b"], "whose_turn": "a", "prev_move": "none"}}]],
            "check": {"equals": false}, "probes": 26});
        let Converted::Call(call) = convert(&rule) else { panic!() };
        assert_eq!(
            (call.name.as_str(), call.check.as_str(), call.answer),
            ("03-is_game_over_connectfour", "a value == False", false)
        );
        let answer = json!({"number": 44, "function": "ANSWER_4", "kind": "answer", "type": "VALUE",
            "variable": "ANSWER_4", "shown": "ANSWER_4", "expected_val": "5", "check": {"equals_text": "5"}});
        let Converted::Call(call) = convert(&answer) else { panic!() };
        assert_eq!((call.name.as_str(), call.answer), ("44-ANSWER_4", true));
    }

    #[test]
    fn the_reader_output_is_read_line_by_line_and_a_short_one_is_refused() {
        let text = "{\"lab\":\"lab2\",\"tests\":1}\n{\"number\":1}\n{\"fixtures\":{\"trees\":{}}}\n";
        let lab = parse_lab(text).unwrap();
        assert_eq!((lab.student.as_deref(), lab.tests.len()), (Some("lab2"), 1));
        assert!(parse_lab("{\"lab\":\"lab2\",\"tests\":2}\n{\"number\":1}\n").is_err());
    }
}
