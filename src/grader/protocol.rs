//! The wire format of docs/protocol.md: the only module that knows it.
//!
//! Messages are one JSON object per line. Outgoing messages are encoded from
//! borrowed data; incoming lines are decoded into [`FromProgram`], with a
//! message for the student when a line is not a protocol message at all.

use serde::{Deserialize, Serialize};

/// The protocol version this grader speaks.
pub const PROTOCOL_VERSION: u32 = 1;

/// Longest line accepted from a program; longer is a protocol error.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// A message from the grader to the program.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToProgram<'a> {
    /// First line of every session.
    Hello {
        /// Always [`PROTOCOL_VERSION`].
        protocol: u32,
        /// The grader's name and version.
        grader: &'a str,
    },
    /// Start one search.
    Search {
        /// The test's name, for the program's own logs.
        test: &'a str,
        /// `minimax`, `alphabeta` or `expectimax`.
        algorithm: &'a str,
        /// Depth limit in plies, or null.
        depth: Option<u32>,
        /// The alpha-beta pruning convention.
        prune_on_equal: bool,
        /// The root's id.
        root: &'a str,
        /// Agents taking turns (MAX first), for trees taken from a game
        /// (CS188-style kits); absent otherwise.
        #[serde(skip_serializing_if = "Option::is_none")]
        agents: Option<u32>,
        /// `"eval"` when children are searched by static value
        /// (docs/format.md 8.1); absent for the tree's order.
        #[serde(skip_serializing_if = "Option::is_none")]
        move_ordering: Option<&'static str>,
        /// The most nodes the program may enter in this search (a clock
        /// counted in nodes); absent when only the wall clock bounds it.
        #[serde(skip_serializing_if = "Option::is_none")]
        budget: Option<u32>,
    },
    /// The reply to `visit` or `evaluate` of a node past the budget: the
    /// node is not entered, and the program must send its result at once.
    Timeup {
        /// The node that was not entered.
        node: &'a str,
        /// The search's budget, all of it spent.
        budget: u32,
    },
    /// The reply to `visit`.
    Node(NodeReply<'a>),
    /// The reply to `evaluate`.
    Eval {
        /// The node's id.
        node: &'a str,
        /// Its heuristic value.
        value: f64,
    },
    /// The program broke the protocol; it is stopped after this line.
    Error {
        /// What went wrong, for the student.
        message: &'a str,
    },
    /// No more tests.
    Bye,
}

/// What the grader tells about one node.
#[derive(Debug, Serialize)]
pub struct NodeReply<'a> {
    /// The node's id.
    pub node: &'a str,
    /// `max`, `min`, `chance` or `terminal`.
    pub kind: &'static str,
    /// Children ids, in search order (internal nodes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub children: Option<Vec<&'a str>>,
    /// Edge labels, in the same order (internal nodes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub actions: Option<Vec<&'a str>>,
    /// Probabilities (chance nodes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub probs: Option<Vec<f64>>,
    /// Utility (terminals).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<f64>,
    /// Heuristic value (nodes at the depth cut, or any node that has one in
    /// a tree taken from a game).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub eval: Option<f64>,
    /// `win` or `lose` (terminals of a tree taken from a game).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<&'static str>,
    /// The position (trees given by a game, docs/format.md 7).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<serde_json::Value>,
    /// The children's static values, in the order of `children` (max and
    /// min nodes above the depth cut, under move ordering, 8.1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub static_values: Option<Vec<f64>>,
}

/// A message from the program to the grader.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FromProgram {
    /// The handshake reply.
    Hello {
        /// The version the kit speaks.
        protocol: u32,
        /// The kit's name, if given.
        #[serde(default)]
        kit: Option<String>,
    },
    /// Enter a node.
    Visit {
        /// The node's id.
        node: String,
    },
    /// Ask for the eval of a node at the depth cut.
    Evaluate {
        /// The node's id.
        node: String,
    },
    /// The search's answer.
    Result {
        /// The root value (checked to be a finite number).
        value: serde_json::Value,
        /// The chosen action, or null.
        #[serde(default)]
        action: Option<String>,
    },
    /// The student's code failed.
    Error {
        /// `not_implemented` or `exception`.
        #[serde(default)]
        kind: String,
        /// What failed.
        #[serde(default)]
        message: String,
        /// A traceback or similar.
        #[serde(default)]
        details: Option<String>,
    },
}

/// Encodes a message as one line, newline included.
pub fn encode(message: &ToProgram<'_>) -> String {
    let mut line = serde_json::to_string(message).expect("protocol messages are plain data");
    line.push('\n');
    line
}

/// Decodes one line from the program, or says in student terms why it is not a message.
pub fn decode(line: &str) -> Result<FromProgram, String> {
    let trimmed = line.trim_end_matches(['\r', '\n']);
    // The common case, a well-formed message, parses once; only a bad line
    // pays for the diagnosis below.
    if let Ok(message) = serde_json::from_str::<FromProgram>(trimmed) {
        return Ok(message);
    }
    if !trimmed.trim_start().starts_with('{') {
        return Err(format!(
            "your program printed {} on stdout, which is reserved for the grader; print debug output to stderr",
            quote_excerpt(trimmed)
        ));
    }
    let value: serde_json::Value = serde_json::from_str(trimmed).map_err(|error| {
        format!("your program sent a line that is not valid JSON ({error}): {}", quote_excerpt(trimmed))
    })?;
    let kind = value.get("type").and_then(|t| t.as_str()).map(str::to_string);
    serde_json::from_value(value).map_err(|error| match kind {
        Some(kind) if !KNOWN_TYPES.contains(&kind.as_str()) => {
            format!("your program sent a message of unknown type `{kind}` (expected one of {})", KNOWN_TYPES.join(", "))
        }
        Some(kind) => format!("your program sent a malformed `{kind}` message ({error}): {}", quote_excerpt(trimmed)),
        None => format!("your program sent a JSON object without a `type`: {}", quote_excerpt(trimmed)),
    })
}

const KNOWN_TYPES: [&str; 5] = ["hello", "visit", "evaluate", "result", "error"];

/// A short, quoted excerpt of what a program printed.
pub fn quote_excerpt(text: &str) -> String {
    const LIMIT: usize = 80;
    let mut excerpt: String = text.chars().take(LIMIT).collect();
    if text.chars().count() > LIMIT {
        excerpt.push_str("...");
    }
    format!("{excerpt:?}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_replies_omit_absent_fields() {
        let line = encode(&ToProgram::Node(NodeReply {
            node: "B.1",
            kind: "terminal",
            children: None,
            actions: None,
            probs: None,
            value: Some(3.0),
            eval: None,
            outcome: None,
            state: None,
            static_values: None,
        }));
        assert_eq!(line, "{\"type\":\"node\",\"node\":\"B.1\",\"kind\":\"terminal\",\"value\":3.0}\n");
    }

    #[test]
    fn search_messages_carry_the_settings() {
        let line = encode(&ToProgram::Search {
            test: "q1/t",
            algorithm: "alphabeta",
            depth: None,
            prune_on_equal: false,
            root: "A",
            agents: None,
            move_ordering: None,
            budget: None,
        });
        assert_eq!(
            line,
            "{\"type\":\"search\",\"test\":\"q1/t\",\"algorithm\":\"alphabeta\",\"depth\":null,\"prune_on_equal\":false,\"root\":\"A\"}\n"
        );
        let game = encode(&ToProgram::Search {
            test: "q2/t",
            algorithm: "minimax",
            depth: Some(6),
            prune_on_equal: false,
            root: "a",
            agents: Some(3),
            move_ordering: None,
            budget: None,
        });
        assert!(game.ends_with(",\"root\":\"a\",\"agents\":3}\n"), "{game}");
        let clocked = encode(&ToProgram::Search {
            test: "q3/t",
            algorithm: "alphabeta",
            depth: Some(2),
            prune_on_equal: true,
            root: "A",
            agents: None,
            move_ordering: None,
            budget: Some(40),
        });
        assert!(clocked.ends_with(",\"root\":\"A\",\"budget\":40}\n"), "{clocked}");
        assert_eq!(
            encode(&ToProgram::Timeup { node: "B.2", budget: 40 }),
            "{\"type\":\"timeup\",\"node\":\"B.2\",\"budget\":40}\n"
        );
    }

    #[test]
    fn requests_decode_and_ignore_unknown_fields() {
        assert_eq!(
            decode("{\"type\":\"visit\",\"node\":\"A\",\"extra\":1}\n"),
            Ok(FromProgram::Visit { node: "A".into() })
        );
        let result = decode("{\"type\":\"result\",\"value\":3,\"action\":null}").unwrap();
        assert!(matches!(result, FromProgram::Result { action: None, .. }));
    }

    #[test]
    fn garbage_is_explained_for_students() {
        let message = decode("checking node A\n").unwrap_err();
        assert!(message.contains("printed \"checking node A\" on stdout"), "{message}");
        assert!(decode("{\"type\":\"dance\"}").unwrap_err().contains("unknown type `dance`"));
        assert!(decode("{\"type\":\"visit\"}").unwrap_err().contains("malformed `visit`"));
        assert!(decode("{\"node\":\"A\"}").unwrap_err().contains("without a `type`"));
        assert!(decode("{nope").unwrap_err().contains("not valid JSON"));
    }
}
