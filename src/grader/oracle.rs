//! The oracle: serves one tree to one search and records what the student enters.
//!
//! Pure state, no I/O: the session feeds it the program's requests and sends
//! back the lines it returns. The visited order is whatever the oracle saw
//! first named, so a program cannot report or tidy its own trace, and the
//! expected answer is never in reach of the program.

use std::collections::HashMap;

use super::protocol::{NodeReply, ToProgram, encode};
use crate::engine::SearchSettings;
use crate::tree::{NodeIndex, NodeKind, Tree};

/// Node ids to arena indices, built once per tree and shared by its searches.
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
#[derive(Clone, Debug, PartialEq)]
pub struct StudentAnswer {
    /// The root value; `None` only where a tree taken from a game allows a
    /// kit that cannot observe it (CS188's `getAction` returns an action).
    pub value: Option<f64>,
    /// The chosen action, if any.
    pub action: Option<String>,
}

/// One search's view of the tree.
#[derive(Debug)]
pub struct Oracle<'t> {
    tree: &'t Tree,
    ids: &'t IdIndex<'t>,
    settings: SearchSettings,
    entered: Vec<bool>,
    listed: Vec<bool>,
    visited: Vec<NodeIndex>,
}

impl<'t> Oracle<'t> {
    /// A fresh search of `tree`: only the root is known to the student.
    pub fn new(tree: &'t Tree, ids: &'t IdIndex<'t>, settings: SearchSettings) -> Oracle<'t> {
        let mut listed = vec![false; tree.len()];
        listed[NodeIndex::ROOT.get()] = true;
        Oracle { tree, ids, settings, entered: vec![false; tree.len()], listed, visited: Vec::new() }
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
    pub fn visit(&mut self, id: &str) -> Result<String, String> {
        let node = self.enter(id)?;
        Ok(self.describe(node))
    }

    /// Answers `evaluate`: the eval line, or a protocol violation.
    pub fn evaluate(&mut self, id: &str) -> Result<String, String> {
        let node = self.enter(id)?;
        let data = self.tree.node(node);
        let ply = data.ply;
        let problem = match (data.kind, self.settings.depth) {
            (NodeKind::Terminal, _) => Some(format!("{id}, which is a terminal: use its utility instead")),
            (_, None) => Some(format!(
                "{id}, but this search has no depth limit, so nothing is evaluated: search down to the terminals"
            )),
            (_, Some(depth)) if ply < depth => Some(format!(
                "{id} at ply {ply}, but the depth limit is {depth}: only nodes at ply {depth} are evaluated (the root is ply 0)"
            )),
            (_, Some(depth)) if ply > depth => Some(format!(
                "{id} at ply {ply}, below the depth limit {depth}: the search should have stopped at ply {depth}"
            )),
            _ => None,
        };
        if let Some(problem) = problem {
            return Err(format!("you asked for the evaluation of {problem}"));
        }
        let value = data.eval.unwrap_or(0.0);
        Ok(encode(&ToProgram::Eval { node: self.tree.id(node), value }))
    }

    /// Checks a `result` for shape: a finite number and a string or null.
    pub fn answer(&self, value: &serde_json::Value, action: Option<String>) -> Result<StudentAnswer, String> {
        match value.as_f64() {
            Some(number) if number.is_finite() => Ok(StudentAnswer { value: Some(number), action }),
            None if value.is_null() && self.tree.game().is_some() => Ok(StudentAnswer { value: None, action }),
            _ => Err(format!("your result's value must be a finite number, but it was {value}")),
        }
    }

    /// Records the first entry of a node the student may know about.
    fn enter(&mut self, id: &str) -> Result<NodeIndex, String> {
        let Some(node) = self.ids.get(id) else {
            return Err(format!("you asked about node {id:?}, which does not exist in this tree"));
        };
        if !self.listed[node.get()] {
            return Err(format!(
                "you asked about node {id:?} before it was listed as a child of a node you visited; \
                 reach nodes through game.children(...) from the root"
            ));
        }
        if !self.entered[node.get()] {
            self.entered[node.get()] = true;
            self.visited.push(node);
        }
        Ok(node)
    }

    /// The `node` reply: kind, children and whatever the node's kind carries.
    fn describe(&mut self, node: NodeIndex) -> String {
        let tree = self.tree;
        let data = tree.node(node);
        let internal = data.kind != NodeKind::Terminal;
        if internal {
            for child in tree.child_range(node) {
                self.listed[child as usize] = true;
            }
        }
        // A tree taken from a game serves every evaluation it has, as the
        // game would (CS188's getScore() answers wherever the test gives one).
        let game = tree.game();
        let at_cut = internal && (self.settings.depth == Some(data.ply) || game.is_some());
        let reply = NodeReply {
            node: tree.id(node),
            kind: data.kind.name(),
            children: internal.then(|| tree.children(node).map(|child| tree.id(child)).collect()),
            actions: internal.then(|| tree.children(node).map(|child| tree.action(child)).collect()),
            probs: (data.kind == NodeKind::Chance)
                .then(|| tree.children(node).map(|child| tree.node(child).probability).collect()),
            value: (!internal).then_some(data.utility),
            eval: if at_cut { data.eval } else { None },
            outcome: game.and_then(|game| game.outcomes.get(&node)).map(|outcome| outcome.name()),
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

    #[test]
    fn unknown_and_unlisted_nodes_are_violations() {
        let tree = tree();
        let ids = IdIndex::new(&tree);
        let mut oracle = Oracle::new(&tree, &ids, SearchSettings::new(Algorithm::Minimax));
        assert!(oracle.visit("Z").unwrap_err().contains("does not exist"));
        assert!(oracle.visit("B").unwrap_err().contains("before it was listed"));
        assert!(oracle.visited().is_empty(), "a refused request enters nothing");
    }

    #[test]
    fn evaluation_only_at_the_cut() {
        let tree = tree();
        let ids = IdIndex::new(&tree);
        let mut settings = SearchSettings::new(Algorithm::Expectimax);
        settings.depth = Some(1);
        let mut oracle = Oracle::new(&tree, &ids, settings);
        assert!(oracle.evaluate("A").unwrap_err().contains("evaluation of A at ply 0, but the depth limit is 1"));
        oracle.visit("A").unwrap();
        let reply = oracle.visit("B").unwrap();
        assert!(reply.contains("\"eval\":2.0"), "the reply at the cut carries the eval: {reply}");
        assert_eq!(oracle.evaluate("B").unwrap(), "{\"type\":\"eval\",\"node\":\"B\",\"value\":2.0}\n");
        assert!(oracle.evaluate("C").unwrap_err().contains("evaluation of C, which is a terminal"));
        let mut unlimited = Oracle::new(&tree, &ids, SearchSettings::new(Algorithm::Expectimax));
        unlimited.visit("A").unwrap();
        assert!(unlimited.evaluate("B").unwrap_err().contains("no depth limit"));
    }

    #[test]
    fn results_must_be_finite_numbers() {
        let tree = tree();
        let ids = IdIndex::new(&tree);
        let oracle = Oracle::new(&tree, &ids, SearchSettings::new(Algorithm::Minimax));
        assert_eq!(
            oracle.answer(&serde_json::json!(2.5), Some("left".into())),
            Ok(StudentAnswer { value: Some(2.5), action: Some("left".into()) })
        );
        assert!(oracle.answer(&serde_json::json!("3"), None).unwrap_err().contains("finite number"));
        assert!(oracle.answer(&serde_json::Value::Null, None).unwrap_err().contains("finite number"));
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
