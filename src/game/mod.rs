//! Trees given by a game (docs/format.md section 7): rules, a position, and
//! the tree they make, unfolded only as far as a search goes.
//!
//! A game is a [`Rules`] implementation: the kind of a position, its moves
//! in the tree's order, a terminal's utility, named evaluations and the
//! position as JSON. [`Unfolding`] turns any rules and a start position into
//! a [`GameTree`], the seam the engine and the grader read, making a node's
//! children the first time they are asked for. Memory follows what a search
//! touches, never the size of the game.
//!
//! Built-in games are registered in [`GAMES`]: adding one is a new file in
//! this folder and one line there.

mod mnk;
pub mod pacman;
mod pig;
pub mod program;
pub mod python_random;
mod unfolding;

pub use unfolding::{DEFAULT_MAX_NODES, Unfolding, is_node_limit_fault};

use std::fmt;
use std::sync::Arc;

use crate::tree::{GameTree, NodeKind};

/// Every built-in game, one line each.
pub static GAMES: &[&Family] = &[&mnk::FAMILY, &pig::FAMILY, &pacman::rules::FAMILY];

/// The rules of a game, over its positions.
///
/// Positions are plain values ([`Rules::State`]); the rules are shared by
/// every search of the game and never change. Everything here is
/// deterministic: the same position always gives the same answers, in the
/// same order.
pub trait Rules: Send + Sync + 'static {
    /// A position, with whatever the rules need to know about it.
    type State: Clone + Send;
    /// A move, small and copyable; [`Rules::action_name`] spells it.
    type Action: Copy + Send;

    /// Who moves in `state`, or [`NodeKind::Terminal`] when the game is over.
    fn kind(&self, state: &Self::State) -> NodeKind;

    /// The moves from `state`, in the tree's order: each action, the position
    /// it leads to and its probability (1 for a player's move).
    fn moves(&self, state: &Self::State, out: &mut Vec<Move<Self::Action, Self::State>>);

    /// A terminal's utility in MAX's view, at `ply` plies below the file's position.
    fn utility(&self, state: &Self::State, ply: u32) -> f64;

    /// The names of the game's evaluations, in the order [`Rules::evaluate`] numbers them.
    fn evaluations(&self) -> &[&'static str];

    /// The value of evaluation number `which` at `state`.
    fn evaluate(&self, which: usize, state: &Self::State) -> f64;

    /// Writes the name of `action` (`b2`, `roll`, ...) into `out`.
    fn action_name(&self, action: Self::Action, out: &mut String);

    /// The position as the JSON value served with the node (docs/format.md 7).
    fn state_json(&self, state: &Self::State) -> serde_json::Value;

    /// The position drawn as text for reports, when it has a board.
    fn board(&self, _state: &Self::State) -> Option<String> {
        None
    }

    /// Whether the game has chance moves.
    fn has_chance(&self) -> bool {
        false
    }

    /// Whether the game can go on forever, so that only a depth-limited
    /// search may enter it.
    fn unbounded(&self) -> bool {
        false
    }

    /// Why the rules could not answer (a course's program failed); the
    /// answers given since are stand-ins, and the search stops.
    fn fault(&self) -> Option<String> {
        None
    }
}

/// One move of a position: its action, the position it leads to, and its
/// probability under a chance node.
#[derive(Clone, Debug)]
pub struct Move<A, S> {
    /// The move.
    pub action: A,
    /// The position after it.
    pub state: S,
    /// Its probability (1 for a player's move).
    pub probability: f64,
}

/// Why a game could not be unfolded, advanced or verified. The text is
/// what treegrade has always said; a rules program's failure keeps the
/// error behind it as its source.
#[derive(Debug, thiserror::Error)]
pub enum GameError {
    /// An evaluation the game does not define (the text says which it has).
    #[error("{0}")]
    UnknownEvaluation(String),
    /// A path that leaves the game's moves.
    #[error("there is no move {index} at ply {ply} of the path")]
    NoSuchMove {
        /// The move's index among the position's moves.
        index: usize,
        /// The ply, from 0.
        ply: usize,
    },
    /// The game's rules failed (a course's rules program stopped, answered
    /// out of protocol or differently when asked again).
    #[error("{message}")]
    Rules {
        /// What failed, naming the file.
        message: String,
        /// The rules program's error behind it, if any.
        #[source]
        source: Option<program::TransportError>,
    },
}

impl GameError {
    /// The rules failed, as `message` says.
    pub fn rules(message: impl Into<String>) -> GameError {
        GameError::Rules { message: message.into(), source: None }
    }
}

/// A game with its parameters and its start position, ready to be unfolded
/// into a tree for each search. Shared between threads; each search gets
/// its own [`GameTree`].
pub trait Game: Send + Sync + fmt::Debug {
    /// The name the file gave (`tic-tac-toe`, `mnk`, `pig`).
    fn name(&self) -> &str;

    /// The game's evaluations.
    fn evaluations(&self) -> Vec<String>;

    /// Whether the game has chance moves (minimax refuses it).
    fn has_chance(&self) -> bool;

    /// Whether only a depth-limited search may enter it.
    fn unbounded(&self) -> bool;

    /// A fresh tree from the start position, valuing depth cuts with the
    /// evaluation named `eval`.
    fn unfold(&self, options: &UnfoldOptions) -> Result<Box<dyn GameTree + Send>, GameError>;

    /// Checks that the rules answer the same when asked again (a course's
    /// program, docs/format.md 7.3); built-in rules always do.
    fn verify(&self) -> Result<(), GameError> {
        Ok(())
    }

    /// The same game started from the position reached by `path`: at each
    /// step, the move with that index in the tree's order. Generated tests
    /// start from such positions, reachable by construction.
    fn advanced(&self, path: &[usize]) -> Result<Arc<dyn Game>, GameError>;
}

/// How to unfold a game for one search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnfoldOptions {
    /// The tree's name (the file's); the game's name when absent.
    pub name: Option<String>,
    /// The evaluation that values depth cuts (`search.eval`), if any.
    pub eval: Option<String>,
    /// The most nodes the tree may make before a search is refused.
    pub max_nodes: usize,
}

impl Default for UnfoldOptions {
    fn default() -> UnfoldOptions {
        UnfoldOptions { name: None, eval: None, max_nodes: DEFAULT_MAX_NODES }
    }
}

/// Rules with a start position: the [`Game`] every built-in game is.
pub struct Configured<R: Rules> {
    name: String,
    rules: Arc<R>,
    start: R::State,
}

impl<R: Rules> Configured<R>
where
    R::State: Sync,
{
    /// Pairs rules with a start position under the name the file gave.
    pub fn new(name: impl Into<String>, rules: R, start: R::State) -> Configured<R> {
        Configured { name: name.into(), rules: Arc::new(rules), start }
    }
}

impl<R: Rules> fmt::Debug for Configured<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Configured").field("name", &self.name).finish_non_exhaustive()
    }
}

impl<R: Rules> Game for Configured<R>
where
    R::State: Sync,
{
    fn name(&self) -> &str {
        &self.name
    }

    fn evaluations(&self) -> Vec<String> {
        self.rules.evaluations().iter().map(|name| name.to_string()).collect()
    }

    fn has_chance(&self) -> bool {
        self.rules.has_chance()
    }

    fn unbounded(&self) -> bool {
        self.rules.unbounded()
    }

    fn unfold(&self, options: &UnfoldOptions) -> Result<Box<dyn GameTree + Send>, GameError> {
        unfold_rules(&self.name, Arc::clone(&self.rules), self.start.clone(), options)
    }

    fn advanced(&self, path: &[usize]) -> Result<Arc<dyn Game>, GameError> {
        let mut state = self.start.clone();
        let mut moves = Vec::new();
        for (ply, &index) in path.iter().enumerate() {
            moves.clear();
            self.rules.moves(&state, &mut moves);
            if index >= moves.len() {
                return Err(GameError::NoSuchMove { index, ply });
            }
            state = moves.swap_remove(index).state;
        }
        Ok(Arc::new(Configured { name: self.name.clone(), rules: Arc::clone(&self.rules), start: state }))
    }
}

/// A fresh tree of `rules` from `start`, valuing depth cuts with the
/// evaluation `options` names (one of the rules' own, or an error saying
/// which they have): what every [`Game`] does to unfold.
pub(crate) fn unfold_rules<R: Rules>(
    game: &str,
    rules: Arc<R>,
    start: R::State,
    options: &UnfoldOptions,
) -> Result<Box<dyn GameTree + Send>, GameError> {
    let eval = match &options.eval {
        None => None,
        Some(name) => Some(
            rules
                .evaluations()
                .iter()
                .position(|known| known == name)
                .ok_or_else(|| GameError::UnknownEvaluation(unknown_evaluation(game, name, rules.evaluations())))?,
        ),
    };
    let tree = Unfolding::new(game.to_string(), rules, start, eval, options.max_nodes);
    Ok(Box::new(tree.named(options.name.clone().unwrap_or_else(|| game.to_string()))))
}

/// The message for an evaluation the game does not define.
pub fn unknown_evaluation(game: &str, name: &str, known: &[&str]) -> String {
    if known.is_empty() {
        format!("unknown evaluation `{name}`: {game} defines none")
    } else {
        format!("unknown evaluation `{name}` for {game} (it has: {})", known.join(", "))
    }
}

/// A built-in game: the names it answers to and how to make it.
pub struct Family {
    /// Names a file may give in `rules:` (a game and its presets).
    pub names: &'static [&'static str],
    /// Makes the game from what the file says.
    pub make: fn(&GameArgs<'_>) -> Result<Box<dyn Game>, ArgError>,
}

/// What a file says about its game, as plain values.
#[derive(Clone, Debug)]
pub struct GameArgs<'a> {
    /// The name given (`tic-tac-toe`, or `mnk` with parameters).
    pub name: &'a str,
    /// The parameters beside `game:`, in the file's order.
    pub params: &'a [(String, serde_json::Value)],
    /// The file's `position`, if any.
    pub position: Option<&'a serde_json::Value>,
    /// The file's `utility` block, if any.
    pub utility: Option<&'a [(String, serde_json::Value)]>,
}

/// Where in the file a game's argument is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArgSite {
    /// The `rules` key as a whole.
    Rules,
    /// One parameter of `rules`.
    Param(String),
    /// The `position`.
    Position,
    /// The `utility` block, or one of its keys.
    Utility(Option<String>),
}

/// A game's argument that does not fit its rules: where, and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgError {
    /// Where.
    pub site: ArgSite,
    /// What is wrong, in words.
    pub message: String,
}

impl ArgError {
    /// An error at `site`.
    pub fn new(site: ArgSite, message: impl Into<String>) -> ArgError {
        ArgError { site, message: message.into() }
    }
}

/// Makes the game a file names, or says why it cannot.
pub fn make(args: &GameArgs<'_>) -> Result<Box<dyn Game>, ArgError> {
    match GAMES.iter().find(|family| family.names.contains(&args.name)) {
        Some(family) => (family.make)(args),
        None => Err(ArgError::new(
            ArgSite::Rules,
            format!("unknown game `{}` (built in: {})", args.name, built_in_names().join(", ")),
        )),
    }
}

/// The names of every built-in game, as `rules:` takes them.
pub fn built_in_names() -> Vec<&'static str> {
    GAMES.iter().flat_map(|family| family.names.iter().copied()).collect()
}

/// Reads the parameters of a game: each known once, none unknown.
pub(crate) struct Params<'a> {
    game: &'a str,
    params: &'a [(String, serde_json::Value)],
}

impl<'a> Params<'a> {
    /// The parameters of `args`, refusing any not in `known`.
    pub(crate) fn new(args: &'a GameArgs<'a>, known: &[&str]) -> Result<Params<'a>, ArgError> {
        for (key, _) in args.params {
            if !known.contains(&key.as_str()) {
                let expected = if known.is_empty() {
                    "it takes none".to_string()
                } else {
                    format!("it takes {}", known.join(", "))
                };
                return Err(ArgError::new(
                    ArgSite::Param(key.clone()),
                    format!("unknown parameter `{key}` for {} ({expected})", args.name),
                ));
            }
        }
        Ok(Params { game: args.name, params: args.params })
    }

    fn get(&self, key: &str) -> Option<&'a serde_json::Value> {
        self.params.iter().find(|(name, _)| name == key).map(|(_, value)| value)
    }

    /// A whole number in `low..=high`, or `default` when absent.
    pub(crate) fn integer(&self, key: &str, low: u64, high: u64, default: Option<u64>) -> Result<u64, ArgError> {
        let Some(value) = self.get(key) else {
            return default
                .ok_or_else(|| ArgError::new(ArgSite::Rules, format!("{} needs the parameter `{key}`", self.game)));
        };
        match value.as_u64() {
            Some(n) if (low..=high).contains(&n) => Ok(n),
            _ => Err(ArgError::new(
                ArgSite::Param(key.to_string()),
                format!("`{key}` must be a whole number from {low} to {high}, not {value}"),
            )),
        }
    }

    /// A boolean, or `default` when absent.
    pub(crate) fn boolean(&self, key: &str, default: bool) -> Result<bool, ArgError> {
        match self.get(key) {
            None => Ok(default),
            Some(serde_json::Value::Bool(value)) => Ok(*value),
            Some(other) => Err(ArgError::new(
                ArgSite::Param(key.to_string()),
                format!("`{key}` must be true or false, not {other}"),
            )),
        }
    }

    /// One of `choices`, or the first when absent.
    pub(crate) fn choice(&self, key: &str, choices: &[&'static str]) -> Result<&'static str, ArgError> {
        match self.get(key) {
            None => Ok(choices[0]),
            Some(value) => {
                value.as_str().and_then(|text| choices.iter().find(|c| **c == text).copied()).ok_or_else(|| {
                    ArgError::new(
                        ArgSite::Param(key.to_string()),
                        format!("`{key}` must be one of {}, not {value}", choices.join(", ")),
                    )
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_is_registered_once() {
        let mut names = built_in_names();
        assert!(names.contains(&"tic-tac-toe") && names.contains(&"pig"));
        let count = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), count, "a name belongs to one game");
    }

    #[test]
    fn an_unknown_game_lists_the_known_ones() {
        let args = GameArgs { name: "chess", params: &[], position: None, utility: None };
        let error = make(&args).unwrap_err();
        assert_eq!(error.site, ArgSite::Rules);
        assert!(error.message.contains("unknown game `chess`") && error.message.contains("connect-four"), "{error:?}");
    }

    /// On games too, with move ordering and chance: no slip is the reference.
    #[test]
    fn with_no_slips_it_is_the_reference_on_games() {
        use crate::engine::variant::{Slips, search};
        use crate::engine::{Algorithm, MoveOrdering, SearchSettings};
        let cases: [(&str, Option<&str>, &str, u32); 3] = [
            ("tic-tac-toe", Some("x../.o./..."), "lines", 3),
            ("connect-four", None, "lines", 3),
            ("pig", None, "score", 3),
        ];
        for (name, position, eval, depth) in cases {
            let position = position.map(|p| serde_json::json!(p));
            let game = make(&GameArgs { name, params: &[], position: position.as_ref(), utility: None }).unwrap();
            let options = UnfoldOptions { eval: Some(eval.into()), ..UnfoldOptions::default() };
            for algorithm in Algorithm::CLASSIC {
                for move_ordering in [MoveOrdering::Tree, MoveOrdering::Eval] {
                    let settings =
                        SearchSettings { depth: Some(depth), move_ordering, ..SearchSettings::new(algorithm) };
                    let tree = game.unfold(&options).unwrap();
                    let Ok(reference) = crate::engine::search(&*tree, &settings) else { continue };
                    let variant = search(&*tree, &settings, Slips::default()).expect("reproducible");
                    assert_eq!(variant.visited, reference.visited, "{name} {settings:?}");
                    assert_eq!(variant.value.to_bits(), reference.value.to_bits(), "{name} {settings:?}");
                    assert_eq!(variant.action, reference.action, "{name} {settings:?}");
                    if move_ordering == MoveOrdering::Eval && name != "pig" {
                        let ignoring = Slips { ignores_move_ordering: true, ..Slips::default() };
                        let plain = search(&*tree, &settings, ignoring).expect("reproducible");
                        assert_ne!(plain.visited, reference.visited, "{name}: ordering changes the order");
                    }
                }
            }
        }
    }
}
