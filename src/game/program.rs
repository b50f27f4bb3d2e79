//! Games of a course's own (docs/format.md 7.3): rules served by a program
//! the course writes, over the protocol of docs/rules-protocol.md.
//!
//! The game layer knows the protocol and caches every answer; it does not
//! start processes. The command line installs a [`Launcher`] (the grader's,
//! which runs the program with a student program's limits) with
//! [`set_launcher`]; tests may install their own. Positions are the JSON
//! values the program chooses, cached by their canonical text, so a
//! question is put to the program once. [`ProgramGame::verify`] asks every
//! question again of a fresh process: an answer that changes is an error.

use std::collections::HashMap;
use std::fmt;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::{Value, json};

use super::{ArgError, ArgSite, Game, GameError, Move, Rules, UnfoldOptions, unfold_rules};
use crate::tree::{GameTree, NodeKind};

/// The version of docs/rules-protocol.md this side speaks.
pub const RULES_PROTOCOL: u64 = 1;

/// A running rules program: one request line in, one reply line out.
pub trait Transport: Send {
    /// Sends `request` (one JSON object, no newline) and returns the reply line.
    fn ask(&mut self, request: &str) -> Result<String, TransportError>;
}

/// Starts a rules program: the command and the folder it runs in.
pub type Launcher = dyn Fn(&[String], &std::path::Path) -> Result<Box<dyn Transport>, TransportError> + Send + Sync;

/// Why a rules program could not be started or did not answer: words that
/// complete "the rules program ..." (`did not answer within 10 s`), and the
/// system's error behind them, if any.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct TransportError {
    message: String,
    #[source]
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

impl TransportError {
    /// A failure in words.
    pub fn new(message: impl Into<String>) -> TransportError {
        TransportError { message: message.into(), source: None }
    }

    /// A failure in words (which already say what `source` says), caused by `source`.
    pub fn caused(
        message: impl Into<String>,
        source: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> TransportError {
        TransportError { message: message.into(), source: Some(source.into()) }
    }
}

impl From<TransportError> for GameError {
    fn from(error: TransportError) -> GameError {
        GameError::Rules { message: error.to_string(), source: Some(error) }
    }
}

static LAUNCHER: OnceLock<Box<Launcher>> = OnceLock::new();

/// Installs how rules programs are started (once per process; later calls are ignored).
pub fn set_launcher(launcher: Box<Launcher>) {
    let _ = LAUNCHER.set(launcher);
}

/// Where a program game comes from: the file's `rules: {program: [...]}`.
#[derive(Clone, Debug, PartialEq)]
pub struct ProgramArgs {
    /// The command, its first word the program.
    pub command: Vec<String>,
    /// The folder it runs in (the game file's).
    pub dir: PathBuf,
    /// The parameters beside `program`, sent in `hello`.
    pub params: Vec<(String, Value)>,
    /// The file's `position`, if any.
    pub position: Option<Value>,
    /// Named to say where an answer came from: the game file.
    pub file: String,
}

/// The conversation with one program, and every answer it gave.
struct Conversation {
    args: ProgramArgs,
    process: Option<Box<dyn Transport>>,
    kinds: HashMap<String, NodeKind>,
    moves: HashMap<String, Vec<(u32, Value, f64)>>,
    values: HashMap<(String, String), f64>,
    /// Interned action names.
    actions: Vec<String>,
    action_ids: HashMap<String, u32>,
    /// The first failure; every later question answers at once with a stand-in.
    fault: Option<String>,
    /// Every question asked, in order, with its reply, for [`ProgramGame::verify`].
    asked: Vec<(String, String)>,
}

/// A course's game: its program, what it said in `hello`, and its start.
pub struct ProgramGame {
    name: String,
    evaluations: Vec<String>,
    /// The same names for [`Rules::evaluations`], made once per game loaded.
    evaluation_names: Vec<&'static str>,
    chance: bool,
    unbounded: bool,
    start: Value,
    conversation: Arc<Mutex<Conversation>>,
}

impl fmt::Debug for ProgramGame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProgramGame").field("name", &self.name).finish_non_exhaustive()
    }
}

/// Starts the program, greets it and reads the start position.
pub fn make(args: ProgramArgs) -> Result<ProgramGame, ArgError> {
    let fail = |message: String| ArgError::new(ArgSite::Rules, message);
    let launcher = LAUNCHER.get().ok_or_else(|| fail("this build of treegrade cannot run rules programs".into()))?;
    if args.command.is_empty() {
        return Err(fail("`program` needs a command: `program: [python3, nim.py]`".into()));
    }
    let process = launcher(&args.command, &args.dir).map_err(|e| fail(format!("the rules program {e}")))?;
    let mut conversation = Conversation {
        args,
        process: Some(process),
        kinds: HashMap::new(),
        moves: HashMap::new(),
        values: HashMap::new(),
        actions: Vec::new(),
        action_ids: HashMap::new(),
        fault: None,
        asked: Vec::new(),
    };
    let hello = conversation.ask(hello_request(&conversation.args), "hello").map_err(fail)?;
    let protocol = hello.get("protocol").and_then(Value::as_u64);
    if protocol != Some(RULES_PROTOCOL) {
        return Err(fail(format!(
            "the rules program speaks protocol {}, treegrade speaks {RULES_PROTOCOL} (docs/rules-protocol.md)",
            hello.get("protocol").map_or("none".to_string(), Value::to_string)
        )));
    }
    let name = hello.get("name").and_then(Value::as_str).unwrap_or("the course's game").to_string();
    let evaluations = match hello.get("evaluations") {
        None => Vec::new(),
        Some(Value::Array(names)) if names.iter().all(Value::is_string) => {
            names.iter().filter_map(|name| name.as_str().map(str::to_string)).collect()
        }
        Some(other) => {
            return Err(fail(format!("the rules program's `evaluations` must be a list of names, not {other}")));
        }
    };
    let flag = |key: &str| hello.get(key).and_then(Value::as_bool).unwrap_or(false);
    let (chance, unbounded) = (flag("chance"), flag("unbounded"));
    let start = match conversation.args.position.clone() {
        Some(position) => {
            let reply = conversation.ask(json!({"type": "check", "position": position}), "check").map_err(fail)?;
            match reply.get("type").and_then(Value::as_str) {
                Some("ok") => position,
                _ => {
                    let message = reply.get("message").and_then(Value::as_str).unwrap_or("no reason given");
                    return Err(ArgError::new(
                        ArgSite::Position,
                        format!("the rules program refuses this position: {message}"),
                    ));
                }
            }
        }
        None => {
            let reply = conversation.ask(json!({"type": "start"}), "start").map_err(fail)?;
            reply
                .get("position")
                .cloned()
                .ok_or_else(|| fail("the rules program's `start` reply has no `position`".into()))?
        }
    };
    conversation.asked.clear();
    // A game is loaded once per file and lives as long as the command.
    let evaluation_names = evaluations.iter().map(|name| &*Box::leak(name.clone().into_boxed_str())).collect();
    let conversation = Arc::new(Mutex::new(conversation));
    Ok(ProgramGame { name, evaluations, evaluation_names, chance, unbounded, start, conversation })
}

impl Conversation {
    /// One question and its reply, checked for shape; a failure names the file and what was asked.
    fn ask(&mut self, request: Value, what: &str) -> Result<Value, String> {
        let file = self.args.file.clone();
        let line = request.to_string();
        let Some(process) = self.process.as_mut() else {
            return Err(format!("the rules program of {file} stopped earlier"));
        };
        let reply = match process.ask(&line) {
            Ok(reply) => reply,
            Err(error) => {
                self.process = None;
                return Err(format!("the rules program of {file} {error} when asked `{}`", shorten(&line)));
            }
        };
        let value: Value = serde_json::from_str(&reply).map_err(|error| {
            format!(
                "the rules program of {file} answered `{}` to `{}`, which is not JSON ({error})",
                shorten(&reply),
                shorten(&line)
            )
        })?;
        if value.get("type").and_then(Value::as_str) == Some("error") {
            let message = value.get("message").and_then(Value::as_str).unwrap_or("no message");
            return Err(format!("the rules program of {file} reported an error to `{}`: {message}", shorten(&line)));
        }
        if !value.is_object() {
            return Err(format!(
                "the rules program of {file} answered `{}` to {what}: a reply is a JSON object",
                shorten(&reply)
            ));
        }
        self.asked.push((line, reply));
        Ok(value)
    }

    fn failed(&mut self, message: String) {
        self.fault.get_or_insert(message);
    }

    fn kind(&mut self, position: &Value) -> NodeKind {
        let key = position.to_string();
        if let Some(&kind) = self.kinds.get(&key) {
            return kind;
        }
        if self.fault.is_some() {
            return NodeKind::Terminal;
        }
        let kind = self.ask(json!({"type": "kind", "position": position}), "kind").and_then(|reply| {
            match reply.get("kind").and_then(Value::as_str) {
                Some("max") => Ok(NodeKind::Max),
                Some("min") => Ok(NodeKind::Min),
                Some("chance") => Ok(NodeKind::Chance),
                Some("terminal") => Ok(NodeKind::Terminal),
                _ => Err(format!(
                    "the rules program of {} gave no `kind` (max, min, chance or terminal) for position {}",
                    self.args.file,
                    shorten(&key)
                )),
            }
        });
        match kind {
            Ok(kind) => {
                self.kinds.insert(key, kind);
                kind
            }
            Err(message) => {
                self.failed(message);
                NodeKind::Terminal
            }
        }
    }

    fn moves(&mut self, position: &Value) -> Vec<(u32, Value, f64)> {
        let key = position.to_string();
        if let Some(moves) = self.moves.get(&key) {
            return moves.clone();
        }
        if self.fault.is_some() {
            return Vec::new();
        }
        let reply = self.ask(json!({"type": "moves", "position": position}), "moves");
        match reply.and_then(|reply| self.read_moves(&key, &reply)) {
            Ok(moves) => {
                self.moves.insert(key, moves.clone());
                moves
            }
            Err(message) => {
                self.failed(message);
                Vec::new()
            }
        }
    }

    fn read_moves(&mut self, key: &str, reply: &Value) -> Result<Vec<(u32, Value, f64)>, String> {
        let file = self.args.file.clone();
        let bad = |what: String| {
            format!("the rules program of {file} gave {what} for the moves of position {}", shorten(key))
        };
        let list = reply.get("moves").and_then(Value::as_array).ok_or_else(|| bad("no `moves` list".into()))?;
        let mut moves = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for entry in list {
            let action = entry
                .get("action")
                .and_then(Value::as_str)
                .ok_or_else(|| bad("a move without an `action` string".into()))?;
            if !seen.insert(action.to_string()) {
                return Err(bad(format!("the action `{action}` twice")));
            }
            let position =
                entry.get("position").cloned().ok_or_else(|| bad(format!("no `position` after `{action}`")))?;
            let probability = match entry.get("probability") {
                None => 1.0,
                Some(p) => p
                    .as_f64()
                    .filter(|p| (0.0..=1.0).contains(p))
                    .ok_or_else(|| bad(format!("a bad probability {p}")))?,
            };
            let id = self.intern(action);
            moves.push((id, position, probability));
        }
        Ok(moves)
    }

    fn intern(&mut self, action: &str) -> u32 {
        if let Some(&id) = self.action_ids.get(action) {
            return id;
        }
        let id = self.actions.len() as u32;
        self.actions.push(action.to_string());
        self.action_ids.insert(action.to_string(), id);
        id
    }

    fn value(&mut self, request: Value, key: (String, String), what: &str) -> f64 {
        if let Some(&value) = self.values.get(&key) {
            return value;
        }
        if self.fault.is_some() {
            return 0.0;
        }
        let file = self.args.file.clone();
        let read = self.ask(request, what).and_then(|reply| {
            reply.get("value").and_then(Value::as_f64).filter(|v| v.is_finite()).ok_or_else(|| {
                format!(
                    "the rules program of {file} gave no finite `value` as the {what} of position {}",
                    shorten(&key.1)
                )
            })
        });
        match read {
            Ok(value) => {
                self.values.insert(key, value);
                value
            }
            Err(message) => {
                self.failed(message);
                0.0
            }
        }
    }
}

/// The `hello` that opens every conversation with a rules program: the
/// protocol's version and the game file's parameters.
fn hello_request(args: &ProgramArgs) -> Value {
    let params: serde_json::Map<String, Value> = args.params.iter().cloned().collect();
    json!({"type": "hello", "protocol": RULES_PROTOCOL, "params": params})
}

/// A long text cut for a message.
fn shorten(text: &str) -> String {
    const LIMIT: usize = 200;
    if text.chars().count() <= LIMIT {
        text.to_string()
    } else {
        format!("{}...", text.chars().take(LIMIT).collect::<String>())
    }
}

/// The rules a program serves, for one [`Unfolding`].
struct ProgramRules {
    evaluations: Vec<&'static str>,
    chance: bool,
    unbounded: bool,
    conversation: Arc<Mutex<Conversation>>,
}

impl ProgramRules {
    fn talk<T>(&self, f: impl FnOnce(&mut Conversation) -> T) -> T {
        let mut conversation = self.conversation.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        f(&mut conversation)
    }
}

impl Rules for ProgramRules {
    type State = Value;
    type Action = u32;

    fn kind(&self, state: &Value) -> NodeKind {
        self.talk(|c| c.kind(state))
    }

    fn moves(&self, state: &Value, out: &mut Vec<Move<u32, Value>>) {
        for (action, position, probability) in self.talk(|c| c.moves(state)) {
            out.push(Move { action, state: position, probability });
        }
    }

    fn utility(&self, state: &Value, _ply: u32) -> f64 {
        let key = ("utility".to_string(), state.to_string());
        self.talk(|c| c.value(json!({"type": "utility", "position": state}), key, "utility"))
    }

    fn evaluations(&self) -> &[&'static str] {
        &self.evaluations
    }

    fn evaluate(&self, which: usize, state: &Value) -> f64 {
        let name = self.evaluations[which];
        let key = (name.to_string(), state.to_string());
        self.talk(|c| c.value(json!({"type": "evaluate", "evaluation": name, "position": state}), key, "evaluation"))
    }

    fn action_name(&self, action: u32, out: &mut String) {
        self.talk(|c| out.push_str(&c.actions[action as usize]));
    }

    fn state_json(&self, state: &Value) -> Value {
        state.clone()
    }

    fn has_chance(&self) -> bool {
        self.chance
    }

    fn unbounded(&self) -> bool {
        self.unbounded
    }

    fn fault(&self) -> Option<String> {
        self.talk(|c| c.fault.clone())
    }
}

impl ProgramGame {
    /// Asks every question put so far again, of a fresh process, and fails
    /// on the first answer that differs (docs/format.md 7.3: the same
    /// question must always get the same answer).
    pub fn verify(&self) -> Result<(), GameError> {
        let mut conversation = self.conversation.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let launcher =
            LAUNCHER.get().ok_or_else(|| GameError::rules("this build of treegrade cannot run rules programs"))?;
        let mut fresh = launcher(&conversation.args.command, &conversation.args.dir)?;
        fresh.ask(&hello_request(&conversation.args).to_string())?;
        let file = conversation.args.file.clone();
        // In reverse: a program whose answers depend on what it was asked
        // before (a counter, a cache of its own) shows it.
        for (question, first) in conversation.asked.iter().rev() {
            let again = fresh.ask(question)?;
            let same = match (serde_json::from_str::<Value>(first), serde_json::from_str::<Value>(&again)) {
                (Ok(a), Ok(b)) => a == b,
                _ => first == &again,
            };
            if !same {
                return Err(GameError::rules(format!(
                    "the rules program of {file} answered `{}` differently when asked again: first `{}`, then `{}`; \
                     a game's rules must give the same answer every time",
                    shorten(question),
                    shorten(first),
                    shorten(&again)
                )));
            }
        }
        conversation.asked.clear();
        Ok(())
    }
}

impl Game for ProgramGame {
    fn name(&self) -> &str {
        &self.name
    }

    fn evaluations(&self) -> Vec<String> {
        self.evaluations.clone()
    }

    fn has_chance(&self) -> bool {
        self.chance
    }

    fn unbounded(&self) -> bool {
        self.unbounded
    }

    fn unfold(&self, options: &UnfoldOptions) -> Result<Box<dyn GameTree + Send>, GameError> {
        let rules = ProgramRules {
            evaluations: self.evaluation_names.clone(),
            chance: self.chance,
            unbounded: self.unbounded,
            conversation: Arc::clone(&self.conversation),
        };
        unfold_rules(&self.name, Arc::new(rules), self.start.clone(), options)
    }

    fn verify(&self) -> Result<(), GameError> {
        ProgramGame::verify(self)
    }

    fn advanced(&self, path: &[usize]) -> Result<Arc<dyn Game>, GameError> {
        let mut state = self.start.clone();
        let mut conversation = self.conversation.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        for (ply, &index) in path.iter().enumerate() {
            let mut moves = conversation.moves(&state);
            if let Some(fault) = &conversation.fault {
                return Err(GameError::rules(fault.clone()));
            }
            if index >= moves.len() {
                return Err(GameError::NoSuchMove { index, ply });
            }
            state = moves.swap_remove(index).1;
        }
        drop(conversation);
        Ok(Arc::new(ProgramGame {
            name: self.name.clone(),
            evaluations: self.evaluations.clone(),
            evaluation_names: self.evaluation_names.clone(),
            chance: self.chance,
            unbounded: self.unbounded,
            start: state,
            conversation: Arc::clone(&self.conversation),
        }))
    }
}
