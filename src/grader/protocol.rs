//! The wire format of docs/protocol.md: the only module that knows it.
//!
//! Messages are one JSON object per line. Outgoing messages are encoded from
//! borrowed data; incoming lines are decoded into [`FromProgram`], with a
//! message for the student when a line is not a protocol message at all.

use serde::{Deserialize, Serialize};

use crate::engine::{SETTINGS, SearchSettings};

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
        /// The settings of the engine's table that the search reads, each
        /// under its key when the table's `wire` gives it a value
        /// (docs/protocol.md): `move_ordering`, a node `budget`, MCTS's
        /// `iterations` and `exploration`, ...
        #[serde(flatten)]
        settings: WireSettings<'a>,
        /// The number of players of a max^n search (docs/format.md 8.3):
        /// 2 for a tree of MAX and MIN; absent for other searches.
        #[serde(skip_serializing_if = "Option::is_none")]
        players: Option<u32>,
    },
    /// The reply to `random`: the next draw of the search's SplitMix64
    /// stream (docs/format.md 8.4).
    Random {
        /// A number in [0, 1).
        value: f64,
    },
    /// The reply to `iteration`: iterative deepening's next iteration has
    /// started, with this depth limit (8.2).
    Iteration {
        /// The iteration's depth limit.
        depth: u32,
    },
    /// Choose a move of a game from the position at `root` (docs/protocol.md,
    /// "Playing games").
    Move {
        /// The game's name (`connect-four`).
        game: &'a str,
        /// The game being played, for the program's own logs (`q5/random/3`).
        label: &'a str,
        /// The root's id: the position to move from.
        root: &'a str,
        /// The side the program plays: `max` or `min`.
        player: &'static str,
        /// Plies played so far.
        ply: u32,
        /// The actions played so far, from the game's start.
        moves: &'a [String],
        /// The position (as a `node` reply's `state` gives it).
        #[serde(skip_serializing_if = "Option::is_none")]
        state: Option<&'a serde_json::Value>,
        /// A seed for the program's own random choices in this move.
        seed: u64,
        /// The evaluation every node carries (absent: none).
        #[serde(skip_serializing_if = "Option::is_none")]
        eval: Option<&'a str>,
        /// The most nodes the program may enter for this move.
        #[serde(skip_serializing_if = "Option::is_none")]
        budget: Option<u32>,
        /// The move's wall-clock limit, in seconds.
        time_limit: f64,
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
        /// Its heuristic value (a vector in a max^n search).
        value: Numbers,
    },
    /// Call a function of the student's program, or read a module-level
    /// value (docs/protocol.md, "Calls"): a calls question's test.
    Call {
        /// The test's name, for the program's own logs.
        test: &'a str,
        /// The function to call (absent when a variable is read).
        #[serde(skip_serializing_if = "Option::is_none")]
        function: Option<&'a str>,
        /// The arguments of each call, in the JSON form of
        /// `assignment::calls::CallArg::to_json` (with `function`).
        #[serde(skip_serializing_if = "Option::is_none")]
        calls: Option<Vec<Vec<serde_json::Value>>>,
        /// The module-level value to read (absent when a function is called).
        #[serde(skip_serializing_if = "Option::is_none")]
        variable: Option<&'a str>,
    },
    /// The program broke the protocol; it is stopped after this line.
    Error {
        /// What went wrong, for the student.
        message: &'a str,
    },
    /// No more tests.
    Bye,
}

/// The settings a `search` message carries beyond section 1's `depth` and
/// `prune_on_equal`: each entry of [`SETTINGS`] whose `wire` gives a value,
/// in the table's order.
#[derive(Clone, Copy, Debug)]
pub struct WireSettings<'a>(pub &'a SearchSettings);

impl Serialize for WireSettings<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(None)?;
        for setting in &SETTINGS {
            if let Some(value) = setting.wire.and_then(|wire| wire(self.0)) {
                map.serialize_entry(setting.key, &value)?;
            }
        }
        map.end()
    }
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
    /// Utility (terminals; a vector in a max^n search).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<Numbers>,
    /// Heuristic value (nodes at the depth cut, or any node that has one in
    /// a tree taken from a game; a vector in a max^n search).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub eval: Option<Numbers>,
    /// The player to move, counted from 1, at a player's node of a max^n
    /// search (docs/format.md 8.3).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub player: Option<u32>,
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

/// A number, or a max^n search's vector of numbers (docs/format.md 8.3).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Numbers {
    /// One number.
    One(f64),
    /// One number per player.
    Many(Vec<f64>),
}

/// A root child's N and W as an MCTS program reports them (docs/format.md 8.4).
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct ReportedChild {
    /// The child's action.
    pub action: serde_json::Value,
    /// Iterations that passed through it.
    pub n: serde_json::Value,
    /// The sum of their rewards.
    pub w: serde_json::Value,
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
    /// A static evaluation as MIT 6.034's lab counts them (docs/protocol.md,
    /// "MIT 6.034's games lab"): the search scored this terminal or this
    /// node at the depth cut. Answered with `eval` (a terminal's utility);
    /// the grader records every one, in order.
    Static {
        /// The node's id.
        node: String,
    },
    /// Ask for the next random draw (MCTS, docs/format.md 8.4).
    Random {},
    /// Iterative deepening starts its next iteration, with this depth limit (8.2).
    Iteration {
        /// The iteration's depth limit.
        depth: serde_json::Value,
    },
    /// The search's answer.
    Result {
        /// The root value (checked to be a finite number, or a vector of
        /// them in a max^n search).
        value: serde_json::Value,
        /// The chosen action, or null.
        #[serde(default)]
        action: Option<String>,
        /// MCTS: each root child's action, N and W (docs/format.md 8.4).
        #[serde(default)]
        children: Option<Vec<ReportedChild>>,
        /// The MIT 6.034 kit: the node ids of the path the search returned, root first.
        #[serde(default)]
        path: Option<Vec<serde_json::Value>>,
        /// The MIT 6.034 kit: the number of static evaluations the search
        /// returned, as it returned it (any JSON value).
        #[serde(default)]
        returned: Option<serde_json::Value>,
        /// The MIT 6.034 kit: the first position where the student's own
        /// Connect Four rules disagree with what the grader served.
        #[serde(default)]
        rules: Option<serde_json::Value>,
        /// The MIT 6.034 kit, progressive deepening: the returned
        /// `AnytimeValue`'s history, one `{path, score, returned}` a depth.
        #[serde(default)]
        history: Option<Vec<serde_json::Value>>,
        /// The MIT 6.034 kit: the finished games the search asked the
        /// heuristic about (the depth limit checked before the game's end).
        #[serde(default)]
        heuristic_on_terminal: Option<Vec<serde_json::Value>>,
    },
    /// A Pacman game's successor request (docs/protocol.md, "Pacman
    /// games"): the state after `agent` takes `action` in state `state`.
    Successor {
        /// The id of a state the grader sent in this game.
        state: u64,
        /// The agent moving (any integer: the grader says which exist).
        agent: i64,
        /// The move.
        action: String,
    },
    /// The student's move in a Pacman game.
    Action {
        /// What `getAction` returned (a string, when it is a move).
        action: serde_json::Value,
    },
    /// A Pacman game's start or end was handled.
    Ready {},
    /// A draw from Python's `random` in a game whose stream the grader
    /// owns (docs/protocol.md, "Pacman games"): `op` is `random`, `bits`
    /// (with `k`), `get_state` or `set_state` (with `state`).
    PyRandom {
        /// What is asked.
        op: String,
        /// `bits`: how many bits.
        #[serde(default)]
        k: Option<u64>,
        /// `set_state`: the 624 words and the index, as CPython's `getstate()` holds them.
        #[serde(default)]
        state: Option<Vec<u64>>,
    },
    /// The answer to a `call`: what each call returned (one value for a
    /// variable), in the JSON forms of docs/protocol.md, "Calls".
    Returned {
        /// One value per call.
        values: Vec<serde_json::Value>,
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

/// Why a line from the program is not a message, in student terms.
#[derive(Debug, thiserror::Error)]
pub enum DecodeError {
    /// Not a JSON object: debug output on stdout.
    #[error("your program printed {excerpt} on stdout, which is reserved for the grader; print debug output to stderr")]
    NotAMessage {
        /// The line, quoted and shortened.
        excerpt: String,
    },
    /// Not valid JSON.
    #[error("your program sent a line that is not valid JSON ({source}): {excerpt}")]
    NotJson {
        /// The parser's error.
        #[source]
        source: serde_json::Error,
        /// The line, quoted and shortened.
        excerpt: String,
    },
    /// A `type` the protocol does not have.
    #[error("your program sent a message of unknown type `{kind}` (expected one of {})", KNOWN_TYPES.join(", "))]
    UnknownType {
        /// The type sent.
        kind: String,
    },
    /// A known `type` with the wrong fields.
    #[error("your program sent a malformed `{kind}` message ({source}): {excerpt}")]
    Malformed {
        /// The type sent.
        kind: String,
        /// The parser's error.
        #[source]
        source: serde_json::Error,
        /// The line, quoted and shortened.
        excerpt: String,
    },
    /// A JSON object without a `type`.
    #[error("your program sent a JSON object without a `type`: {excerpt}")]
    NoType {
        /// The line, quoted and shortened.
        excerpt: String,
    },
}

/// Decodes one line from the program, or says in student terms why it is not a message.
pub fn decode(line: &str) -> Result<FromProgram, DecodeError> {
    let trimmed = line.trim_end_matches(['\r', '\n']);
    // The common case, a well-formed message, parses once; only a bad line
    // pays for the diagnosis below.
    if let Ok(message) = serde_json::from_str::<FromProgram>(trimmed) {
        return Ok(message);
    }
    if !trimmed.trim_start().starts_with('{') {
        return Err(DecodeError::NotAMessage { excerpt: quote_excerpt(trimmed) });
    }
    let value: serde_json::Value = serde_json::from_str(trimmed)
        .map_err(|source| DecodeError::NotJson { source, excerpt: quote_excerpt(trimmed) })?;
    let kind = value.get("type").and_then(|t| t.as_str()).map(str::to_string);
    serde_json::from_value(value).map_err(|source| match kind {
        Some(kind) if !KNOWN_TYPES.contains(&kind.as_str()) => DecodeError::UnknownType { kind },
        Some(kind) => DecodeError::Malformed { kind, source, excerpt: quote_excerpt(trimmed) },
        None => DecodeError::NoType { excerpt: quote_excerpt(trimmed) },
    })
}

const KNOWN_TYPES: [&str; 12] = [
    "hello",
    "visit",
    "evaluate",
    "random",
    "iteration",
    "result",
    "successor",
    "action",
    "ready",
    "error",
    "py_random",
    "returned",
];

/// A Pacman agent in a state, as the protocol sends it.
#[derive(Clone, Copy, Debug)]
pub struct WireAgent {
    /// x in half cells.
    pub x2: i32,
    /// y in half cells.
    pub y2: i32,
    /// Whether Python holds the position as integers.
    pub integral: bool,
    /// The direction's name.
    pub direction: &'static str,
    /// Moves left scared.
    pub scared: u32,
}

/// A Pacman state as the protocol sends it (docs/protocol.md, "Pacman games").
#[derive(Clone, Copy, Debug)]
pub struct WireState<'a> {
    /// The state's id in this game.
    pub id: u32,
    /// Its value class: states with equal `eq` are equal as CS188 compares them.
    pub eq: u32,
    /// Pacman, then the ghosts.
    pub agents: &'a [WireAgent],
    /// The id of its food grid in this game.
    pub food: u32,
    /// The food grid's columns (`0`/`1` from y = 0 up), the first time that grid is sent.
    pub grid: Option<&'a [String]>,
    /// The capsules left.
    pub capsules: &'a [(u16, u16)],
    /// The score.
    pub score: i64,
    /// Won.
    pub win: bool,
    /// Lost.
    pub lose: bool,
    /// Each agent's legal actions as letters (`W`, `X` for Stop, `E`, `N`, `S`).
    pub legal: &'a [String],
}

/// Appends a state in full: `{"id":..,"eq":..,"agents":[[x,y,"West",0],..],"food":..,...}`.
pub fn push_pacman_state(out: &mut String, state: &WireState<'_>) {
    use std::fmt::Write;
    let _ = write!(out, "{{\"id\":{},\"eq\":{},\"agents\":[", state.id, state.eq);
    for (index, agent) in state.agents.iter().enumerate() {
        if index > 0 {
            out.push(',');
        }
        out.push('[');
        push_coordinate(out, agent.x2, agent.integral);
        out.push(',');
        push_coordinate(out, agent.y2, agent.integral);
        let _ = write!(out, ",\"{}\",{}]", agent.direction, agent.scared);
    }
    let _ = write!(out, "],\"food\":{}", state.food);
    if let Some(grid) = state.grid {
        out.push_str(",\"grid\":");
        push_strings(out, grid);
    }
    out.push_str(",\"capsules\":[");
    for (index, (x, y)) in state.capsules.iter().enumerate() {
        if index > 0 {
            out.push(',');
        }
        let _ = write!(out, "[{x},{y}]");
    }
    let _ = write!(out, "],\"score\":{},\"win\":{},\"lose\":{},\"legal\":", state.score, state.win, state.lose);
    push_strings(out, state.legal);
    out.push('}');
}

/// Appends a state the program has had in full in this game: `{"id":N}`.
pub fn push_pacman_state_id(out: &mut String, id: u32) {
    use std::fmt::Write;
    let _ = write!(out, "{{\"id\":{id}}}");
}

/// A coordinate in half cells as Python holds it: `3` or `3.0`, `3.5`.
fn push_coordinate(out: &mut String, halves: i32, integral: bool) {
    use std::fmt::Write;
    let whole = halves.div_euclid(2);
    let _ = match (integral, halves.rem_euclid(2)) {
        (true, _) => write!(out, "{whole}"),
        (false, 0) => write!(out, "{whole}.0"),
        (false, _) => write!(out, "{whole}.5"),
    };
}

fn push_strings(out: &mut String, items: &[String]) {
    out.push('[');
    for (index, item) in items.iter().enumerate() {
        if index > 0 {
            out.push(',');
        }
        out.push_str(&serde_json::to_string(item).expect("a string is JSON"));
    }
    out.push(']');
}

/// What starts a Pacman game (docs/protocol.md, "Pacman games").
#[derive(Debug, Serialize)]
pub struct PacmanGame<'a> {
    /// The test's name.
    pub test: &'a str,
    /// The class in `multiAgents.py` to create.
    pub agent: &'a str,
    /// Its keyword arguments.
    pub args: &'a serde_json::Map<String, serde_json::Value>,
    /// This game's number, 1 first.
    pub game: u32,
    /// How many the test plays.
    pub games: u32,
    /// The seed for the student's `random`.
    pub seed: i64,
    /// Whether the grader counts explored states (then every successor is asked for at each move).
    pub explored: bool,
    /// Whether the student's `random` draws from the grader's stream
    /// (`py_random`) instead of being seeded with `seed` (absent when not).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub shared_random: bool,
    /// The layout's name.
    pub layout_name: &'a str,
    /// The layout's rows, top first.
    pub layout: &'a [String],
    /// Each agent's start, Pacman first.
    pub starts: &'a [(u16, u16)],
}

/// `{"type":"pacman",...,"state":STATE}`: a game starts.
pub fn encode_pacman_game(game: &PacmanGame<'_>, state: &str) -> String {
    let mut line = serde_json::to_string(game).expect("plain data");
    line.pop();
    line.insert_str(1, "\"type\":\"pacman\",");
    line.push_str(",\"state\":");
    line.push_str(state);
    line.push_str("}\n");
    line
}

/// `{"type":"pacman_move","step":K,"state":STATE}`: the agent's move is asked
/// for; with `reseed`, `"random":[SEED,DRAWS]` too: the kit seeds the
/// student's `random` with SEED and draws DRAWS numbers first (as CS188's
/// game tests leave Python's shared generator before each move).
pub fn encode_move(step: u32, state: &str, reseed: Option<(i64, u32)>) -> String {
    match reseed {
        Some((seed, draws)) => {
            format!("{{\"type\":\"pacman_move\",\"step\":{step},\"random\":[{seed},{draws}],\"state\":{state}}}\n")
        }
        None => format!("{{\"type\":\"pacman_move\",\"step\":{step},\"state\":{state}}}\n"),
    }
}

/// The reply to `py_random`: `{"type":"py_random",FIELDS}` (`"value":F`,
/// `"bits":[W,...]`, `"state":[...]`, or nothing for `set_state`).
pub fn encode_py_random(fields: &str) -> String {
    if fields.is_empty() {
        "{\"type\":\"py_random\"}\n".to_string()
    } else {
        format!("{{\"type\":\"py_random\",{fields}}}\n")
    }
}

/// `{"type":"pacman_final","state":STATE}`: the game is over.
pub fn encode_final(state: &str) -> String {
    format!("{{\"type\":\"pacman_final\",\"state\":{state}}}\n")
}

/// `{"type":"states","states":[...]}`: the reply to `successor`.
pub fn encode_states(states: &str) -> String {
    format!("{{\"type\":\"states\",\"states\":[{states}]}}\n")
}

/// `{"type":"illegal","message":...}`: a successor that CS188 would refuse with this exception.
pub fn encode_illegal(message: &str) -> String {
    format!("{{\"type\":\"illegal\",\"message\":{}}}\n", serde_json::to_string(message).expect("a string is JSON"))
}

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
            value: Some(Numbers::One(3.0)),
            eval: None,
            player: None,
            outcome: None,
            state: None,
            static_values: None,
        }));
        assert_eq!(line, "{\"type\":\"node\",\"node\":\"B.1\",\"kind\":\"terminal\",\"value\":3.0}\n");
    }

    #[test]
    fn search_messages_carry_the_settings() {
        let plain = SearchSettings::new(crate::engine::Algorithm::AlphaBeta);
        let clocked_settings = SearchSettings { budget: Some(40), ..plain };
        let line = encode(&ToProgram::Search {
            test: "q1/t",
            algorithm: "alphabeta",
            depth: None,
            prune_on_equal: false,
            root: "A",
            agents: None,
            settings: WireSettings(&plain),
            players: None,
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
            settings: WireSettings(&plain),
            players: None,
        });
        assert!(game.ends_with(",\"root\":\"a\",\"agents\":3}\n"), "{game}");
        let clocked = encode(&ToProgram::Search {
            test: "q3/t",
            algorithm: "alphabeta",
            depth: Some(2),
            prune_on_equal: true,
            root: "A",
            agents: None,
            settings: WireSettings(&clocked_settings),
            players: None,
        });
        assert!(clocked.ends_with(",\"root\":\"A\",\"budget\":40}\n"), "{clocked}");
        // MIT 6.034's progressive deepening: each setting carried only when false.
        let progressive = SearchSettings {
            depth: Some(3),
            reorder_root: false,
            stop_when_complete: false,
            ..SearchSettings::new(crate::engine::Algorithm::IterativeDeepening)
        };
        let line = encode(&ToProgram::Search {
            test: "q4/t",
            algorithm: "iterative-deepening",
            depth: Some(3),
            prune_on_equal: true,
            root: "A",
            agents: None,
            settings: WireSettings(&progressive),
            players: None,
        });
        assert!(line.ends_with(",\"root\":\"A\",\"reorder_root\":false,\"stop_when_complete\":false}\n"), "{line}");
        assert_eq!(
            encode(&ToProgram::Timeup { node: "B.2", budget: 40 }),
            "{\"type\":\"timeup\",\"node\":\"B.2\",\"budget\":40}\n"
        );
        assert_eq!(encode(&ToProgram::Random { value: 0.5 }), "{\"type\":\"random\",\"value\":0.5}\n");
        assert_eq!(
            encode(&ToProgram::Eval { node: "B", value: Numbers::Many(vec![1.0, -1.0]) }),
            "{\"type\":\"eval\",\"node\":\"B\",\"value\":[1.0,-1.0]}\n"
        );
    }

    #[test]
    fn move_messages_say_where_and_how_to_move() {
        let moves = ["b2".to_string()];
        let state = serde_json::json!({"to_move": "o"});
        let line = encode(&ToProgram::Move {
            game: "tic-tac-toe",
            label: "q5/random/1",
            root: "root",
            player: "min",
            ply: 1,
            moves: &moves,
            state: Some(&state),
            seed: 7,
            eval: None,
            budget: Some(1000),
            time_limit: 10.0,
        });
        assert_eq!(
            line,
            "{\"type\":\"move\",\"game\":\"tic-tac-toe\",\"label\":\"q5/random/1\",\"root\":\"root\",\
             \"player\":\"min\",\"ply\":1,\"moves\":[\"b2\"],\"state\":{\"to_move\":\"o\"},\"seed\":7,\
             \"budget\":1000,\"time_limit\":10.0}\n"
        );
    }

    #[test]
    fn requests_decode_and_ignore_unknown_fields() {
        assert_eq!(
            decode("{\"type\":\"visit\",\"node\":\"A\",\"extra\":1}\n").unwrap(),
            FromProgram::Visit { node: "A".into() }
        );
        let result = decode("{\"type\":\"result\",\"value\":3,\"action\":null}").unwrap();
        assert!(matches!(result, FromProgram::Result { action: None, children: None, .. }));
        assert_eq!(decode("{\"type\":\"random\"}").unwrap(), FromProgram::Random {});
        assert_eq!(
            decode("{\"type\":\"iteration\",\"depth\":2}").unwrap(),
            FromProgram::Iteration { depth: serde_json::json!(2) }
        );
        let counted = decode(
            "{\"type\":\"result\",\"value\":0.5,\"action\":\"b\",\"children\":[{\"action\":\"a\",\"n\":3,\"w\":1.5}]}",
        )
        .unwrap();
        let FromProgram::Result { children: Some(children), .. } = counted else { panic!("{counted:?}") };
        assert_eq!((children[0].n.as_u64(), children[0].w.as_f64()), (Some(3), Some(1.5)));
    }

    #[test]
    fn garbage_is_explained_for_students() {
        let message = decode("checking node A\n").unwrap_err().to_string();
        assert!(message.contains("printed \"checking node A\" on stdout"), "{message}");
        assert!(decode("{\"type\":\"dance\"}").unwrap_err().to_string().contains("unknown type `dance`"));
        assert!(decode("{\"type\":\"visit\"}").unwrap_err().to_string().contains("malformed `visit`"));
        assert!(decode("{\"node\":\"A\"}").unwrap_err().to_string().contains("without a `type`"));
        let error = decode("{nope").unwrap_err();
        assert!(error.to_string().contains("not valid JSON"), "{error}");
        assert!(std::error::Error::source(&error).is_some(), "the parser's error is kept as the source");
    }
}
