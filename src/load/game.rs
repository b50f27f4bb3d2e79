//! Tree files given by a game (docs/format.md section 7): `rules`,
//! `position` and `utility` instead of `root` and `nodes`.
//!
//! The file is read into located raw values, the game is made by its
//! registered family ([`crate::game::make`]), and every problem the game
//! finds with its arguments is pointed back at the key it concerns.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde_saphyr::Spanned;

use super::raw::{RawExpectMap, RawSearch};
use super::{
    Diagnostic, LoadError, Position, check_refused_beside, parser_options, read_settings, spanned_position,
    translate_expectations, yaml_diagnostic,
};
use crate::engine::Setting;
use crate::engine::{self, Algorithm, SearchError, SearchOutcome, SearchSettings};
use crate::game::program::ProgramArgs;
use crate::game::{ArgError, ArgSite, DEFAULT_MAX_NODES, Game, GameArgs, UnfoldOptions};
use crate::tree::{Expectation, GameTree, SearchDefaults};

/// A whole game file, as YAML spells it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGameFile {
    name: Option<String>,
    description: Option<String>,
    rules: Spanned<RawRules>,
    position: Option<Spanned<serde_json::Value>>,
    utility: Option<Spanned<RawParams>>,
    search: Option<Spanned<RawGameSearch>>,
    expect: Option<RawExpectMap>,
    // Written trees' keys, read only to say that they do not go with `rules`.
    root: Option<Spanned<serde_json::Value>>,
    nodes: Option<Spanned<serde_json::Value>>,
    game: Option<Spanned<serde_json::Value>>,
}

/// The `search:` block of a game file: the settings of written trees, and `eval`.
#[derive(Debug, Default)]
struct RawGameSearch(RawSearch);

impl<'de> Deserialize<'de> for RawGameSearch {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<RawGameSearch, D::Error> {
        RawSearch::read(deserializer, "RawGameSearch").map(RawGameSearch)
    }
}

/// `rules: NAME` or `rules: {game: NAME, PARAM: VALUE, ...}`.
#[derive(Debug)]
enum RawRules {
    Name(String),
    Map(Vec<(Spanned<String>, Spanned<serde_json::Value>)>),
}

impl<'de> Deserialize<'de> for RawRules {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<RawRules, D::Error> {
        struct RulesVisitor;
        impl<'de> Visitor<'de> for RulesVisitor {
            type Value = RawRules;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a game's name (`tic-tac-toe`) or a mapping `{game: NAME, PARAM: VALUE, ...}`")
            }
            fn visit_str<E: de::Error>(self, name: &str) -> Result<RawRules, E> {
                Ok(RawRules::Name(name.to_string()))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawRules, A::Error> {
                let mut entries = Vec::new();
                while let Some(key) = map.next_key::<Spanned<String>>()? {
                    entries.push((key, map.next_value()?));
                }
                Ok(RawRules::Map(entries))
            }
        }
        deserializer.deserialize_any(RulesVisitor)
    }
}

/// A mapping of names to plain values, in file order (`utility:`).
#[derive(Debug, Default)]
struct RawParams(Vec<(Spanned<String>, Spanned<serde_json::Value>)>);

impl<'de> Deserialize<'de> for RawParams {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<RawParams, D::Error> {
        struct ParamsVisitor;
        impl<'de> Visitor<'de> for ParamsVisitor {
            type Value = RawParams;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a mapping such as `{win: 10, draw: 0, per_ply: 1}`")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawParams, A::Error> {
                let mut entries = Vec::new();
                while let Some(key) = map.next_key::<Spanned<String>>()? {
                    entries.push((key, map.next_value()?));
                }
                Ok(RawParams(entries))
            }
        }
        deserializer.deserialize_map(ParamsVisitor)
    }
}

/// Whether a file's text gives a game: a top-level `rules` key.
pub(super) fn is_game_file(text: &str) -> bool {
    text.lines().any(|line| line.starts_with("rules:") || line.starts_with("\"rules\":"))
}

/// The file's defaults for searches of its game (docs/format.md 7 and 8).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GameSearchDefaults {
    /// `depth`, `prune_on_equal` and `move_ordering`, as for written trees.
    pub search: SearchDefaults,
    /// `eval`: the evaluation that values depth cuts.
    pub eval: Option<String>,
}

/// A game file, loaded: the game, its defaults, and where each key is written.
#[derive(Clone, Debug)]
pub struct LoadedGame {
    /// The game with its start position.
    pub game: Arc<dyn Game>,
    name: String,
    description: Option<String>,
    defaults: GameSearchDefaults,
    expect: BTreeMap<String, Expectation>,
    path: PathBuf,
    source: String,
    rules_at: Option<Position>,
    search_at: Option<Position>,
}

impl LoadedGame {
    /// The tree's name (the file stem unless the file names it).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The free-text description, if any.
    pub fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }

    /// The file the game was read from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file's search defaults.
    pub fn defaults(&self) -> &GameSearchDefaults {
        &self.defaults
    }

    /// The file's `expect` block, by algorithm name.
    pub fn expectations(&self) -> &BTreeMap<String, Expectation> {
        &self.expect
    }

    /// How to unfold the game for a search with the file's own settings.
    pub fn unfold_options(&self) -> UnfoldOptions {
        UnfoldOptions { name: Some(self.name.clone()), eval: self.defaults.eval.clone(), max_nodes: DEFAULT_MAX_NODES }
    }

    /// A fresh tree of the game for one search, with evaluation `eval`
    /// (the file's unless given) and the default node limit unless given.
    pub fn unfold(&self, eval: Option<&str>, max_nodes: Option<usize>) -> Result<Box<dyn GameTree + Send>, LoadError> {
        let options = UnfoldOptions {
            name: Some(self.name.clone()),
            eval: eval.map(str::to_string).or_else(|| self.defaults.eval.clone()),
            max_nodes: max_nodes.unwrap_or(DEFAULT_MAX_NODES),
        };
        self.game.unfold(&options).map_err(|error| self.error(self.search_at.or(self.rules_at), error.to_string()))
    }

    /// The reference search of a fresh tree with `settings`, as a located error if it fails.
    pub fn search(
        &self,
        settings: &SearchSettings,
        eval: Option<&str>,
        max_nodes: Option<usize>,
    ) -> Result<(Box<dyn GameTree + Send>, SearchOutcome), LoadError> {
        let tree = self.unfold(eval, max_nodes)?;
        let outcome = engine::search(&*tree, settings).map_err(|error| self.search_error(&*tree, &error))?;
        self.verify()?;
        Ok((tree, outcome))
    }

    /// Checks that the game's rules answer every question asked so far the
    /// same way again (a course's program; docs/format.md 7.3).
    pub fn verify(&self) -> Result<(), LoadError> {
        self.game.verify().map_err(|error| self.error(self.rules_at, error.to_string()))
    }

    /// The first fragile comparison of the reference search with `settings`
    /// (docs/format.md 2.1), as a located error naming the node and the two values.
    pub fn check_fragility(&self, settings: &SearchSettings) -> Result<(), LoadError> {
        let tree = self.unfold(None, None)?;
        match engine::fragility(&*tree, settings) {
            Ok(None) => Ok(()),
            Ok(Some(fragile)) => Err(self.error(self.rules_at, fragile.describe(&*tree, settings))),
            Err(error) => Err(self.search_error(&*tree, &error)),
        }
    }

    /// A search error placed where the file can fix it: the `search` block
    /// for a depth or an evaluation, the `rules` otherwise.
    pub fn search_error(&self, tree: &dyn GameTree, error: &SearchError) -> LoadError {
        let at = match error {
            SearchError::Unbounded { .. }
            | SearchError::NoEvaluation { .. }
            | SearchError::MissingStaticValue { .. } => self.search_at.or(self.rules_at),
            _ => self.rules_at,
        };
        let message = match error {
            SearchError::Unfolding { node, message } => {
                let id = tree.id(*node);
                if id.len() <= 60 {
                    format!("at node `{id}`: {message}")
                } else {
                    format!("at a node at ply {}: {message}", tree.ply(*node))
                }
            }
            other => other.to_string(),
        };
        self.error(at, message)
    }

    fn error(&self, at: Option<Position>, message: impl Into<String>) -> LoadError {
        LoadError::new(&self.path, vec![Diagnostic::at(at, message)], Some(&self.source))
    }
}

/// Reads a game file's text; `path` names it in errors, `stem` is the default name.
pub(super) fn load_game_str(text: String, path: &Path, stem: &str) -> Result<LoadedGame, LoadError> {
    let raw: RawGameFile = match serde_saphyr::from_str_with_options(&text, parser_options()) {
        Ok(raw) => raw,
        Err(error) => return Err(LoadError::new(path, vec![yaml_diagnostic(&error)], Some(&text))),
    };
    match translate(raw, stem, path) {
        Ok(parts) => {
            let loaded = LoadedGame { path: path.to_path_buf(), source: text, ..parts };
            check_own_settings(&loaded)?;
            Ok(loaded)
        }
        Err(diagnostics) => Err(LoadError::new(path, diagnostics, Some(&text))),
    }
}

fn translate(raw: RawGameFile, stem: &str, path: &Path) -> Result<LoadedGame, Vec<Diagnostic>> {
    let mut diagnostics = Vec::new();
    for (key, spanned) in [("root", &raw.root), ("nodes", &raw.nodes), ("game", &raw.game)] {
        if let Some(spanned) = spanned {
            diagnostics.push(Diagnostic::at(
                spanned_position(spanned),
                format!("`{key}` cannot stand beside `rules`: a file gives either a game (`rules`) or its nodes (`root` and `nodes`)"),
            ));
        }
    }
    let rules_at = spanned_position(&raw.rules);
    let (source, params, param_at) = match raw.rules.value {
        RawRules::Name(name) => (Source::BuiltIn(name), Vec::new(), Vec::new()),
        RawRules::Map(entries) => split_rules(entries, rules_at, &mut diagnostics),
    };
    let utility: Option<Vec<(String, serde_json::Value)>> = raw
        .utility
        .as_ref()
        .map(|utility| utility.value.0.iter().map(|(k, v)| (k.value.clone(), v.value.clone())).collect());
    let made = match source {
        Source::BuiltIn(name) => {
            let args = GameArgs {
                name: &name,
                params: &params,
                position: raw.position.as_ref().map(|position| &position.value),
                utility: utility.as_deref(),
            };
            crate::game::make(&args).map(Arc::<dyn Game>::from)
        }
        Source::Program(command) if diagnostics.is_empty() => {
            if utility.is_some() {
                let at = raw.utility.as_ref().and_then(spanned_position);
                diagnostics.push(Diagnostic::at(at, "a course's game gives its own utilities: remove `utility`"));
            }
            let args = ProgramArgs {
                command,
                dir: path.parent().filter(|dir| !dir.as_os_str().is_empty()).unwrap_or(Path::new(".")).to_path_buf(),
                params: params.clone(),
                position: raw.position.as_ref().map(|position| position.value.clone()),
                file: path.display().to_string(),
            };
            crate::game::program::make(args).map(|game| Arc::new(game) as Arc<dyn Game>)
        }
        Source::Program(_) => Err(ArgError::new(ArgSite::Rules, "the rules program was not started")),
    };
    let game = match made {
        Ok(game) => Some(game),
        Err(error) => {
            let at = locate(&error, rules_at, &param_at, &raw.position, &raw.utility);
            diagnostics.push(Diagnostic::at(at, error.message));
            None
        }
    };
    let search_at = raw.search.as_ref().and_then(spanned_position);
    let (defaults, refusable) = read_search(raw.search.map(|s| s.value.0), game.as_deref(), &mut diagnostics);
    let expect = translate_expectations(raw.expect.unwrap_or_default(), &mut diagnostics);
    check_refused_beside(&refusable, &expect, false, &mut diagnostics);
    match game {
        Some(game) if diagnostics.is_empty() => Ok(LoadedGame {
            game,
            name: raw.name.unwrap_or_else(|| stem.to_string()),
            description: raw.description,
            defaults,
            expect,
            path: PathBuf::new(),
            source: String::new(),
            rules_at,
            search_at,
        }),
        _ => {
            diagnostics.sort_by_key(|d| d.position.map(|p| (p.line, p.column)));
            Err(diagnostics)
        }
    }
}

/// Where a game's rules come from.
enum Source {
    /// A built-in game, by name.
    BuiltIn(String),
    /// A course's program (docs/format.md 7.3): its command.
    Program(Vec<String>),
}

/// A game's source, its parameters, and where each parameter is written.
type SplitRules = (Source, Vec<(String, serde_json::Value)>, Vec<(String, Option<Position>)>);

/// Splits `{game: NAME, PARAM: VALUE}` (or `{program: [...], PARAM: VALUE}`)
/// into the source, the parameters and where each is.
fn split_rules(
    entries: Vec<(Spanned<String>, Spanned<serde_json::Value>)>,
    rules_at: Option<Position>,
    diagnostics: &mut Vec<Diagnostic>,
) -> SplitRules {
    let mut name = None;
    let mut program = None;
    let mut params = Vec::new();
    let mut param_at = Vec::new();
    for (key, value) in entries {
        if key.value == "program" {
            let words = value.value.as_array().filter(|words| !words.is_empty()).and_then(|words| {
                words.iter().map(|word| word.as_str().map(str::to_string)).collect::<Option<Vec<String>>>()
            });
            match words {
                Some(words) => program = Some(words),
                None => diagnostics.push(Diagnostic::at(
                    spanned_position(&value),
                    "`program` must be a command as a list of words, such as `[python3, nim.py]`",
                )),
            }
            continue;
        }
        if key.value == "game" {
            match value.value.as_str() {
                Some(text) => name = Some(text.to_string()),
                None => diagnostics
                    .push(Diagnostic::at(spanned_position(&value), "`game` must be a game's name, such as `mnk`")),
            }
            continue;
        }
        param_at.push((key.value.clone(), spanned_position(&key)));
        params.push((key.value, value.value));
    }
    let source = match (name, program) {
        (Some(_), Some(_)) => {
            diagnostics.push(Diagnostic::at(rules_at, "`rules` gives either `game` or `program`, not both"));
            Source::BuiltIn(String::new())
        }
        (Some(name), None) => Source::BuiltIn(name),
        (None, Some(command)) => Source::Program(command),
        (None, None) => {
            diagnostics.push(Diagnostic::at(
                rules_at,
                "`rules` as a mapping needs `game: NAME` (for example `{game: mnk, width: 4, height: 4, k: 3}`) \
                 or `program: [COMMAND...]` for a course's own game",
            ));
            Source::BuiltIn(String::new())
        }
    };
    (source, params, param_at)
}

/// Where a game's complaint about its arguments belongs in the file.
fn locate(
    error: &ArgError,
    rules_at: Option<Position>,
    param_at: &[(String, Option<Position>)],
    position: &Option<Spanned<serde_json::Value>>,
    utility: &Option<Spanned<RawParams>>,
) -> Option<Position> {
    match &error.site {
        ArgSite::Rules => rules_at,
        ArgSite::Param(key) => param_at.iter().find(|(name, _)| name == key).and_then(|(_, at)| *at).or(rules_at),
        ArgSite::Position => position.as_ref().and_then(spanned_position).or(rules_at),
        ArgSite::Utility(key) => {
            let block = utility.as_ref();
            let keyed = key.as_ref().and_then(|key| {
                block?.value.0.iter().find(|(name, _)| &name.value == key).and_then(|(name, _)| spanned_position(name))
            });
            keyed.or_else(|| block.and_then(spanned_position)).or(rules_at)
        }
    }
}

/// The `search:` block: its settings as defaults (checked as a written
/// tree's are), `eval` checked against the game's evaluations, and where
/// each setting a search may refuse is written.
fn read_search(
    raw: Option<RawSearch>,
    game: Option<&dyn Game>,
    diagnostics: &mut Vec<Diagnostic>,
) -> (GameSearchDefaults, Vec<(&'static Setting, Option<Position>)>) {
    let raw = raw.unwrap_or_default();
    let (search, refusable) = read_settings(raw.settings, diagnostics);
    let eval = raw.eval.and_then(|eval| {
        let known = game.map(|game| game.evaluations()).unwrap_or_default();
        if game.is_some() && !known.contains(&eval.value) {
            let known: Vec<&str> = known.iter().map(String::as_str).collect();
            let game_name = game.map_or("", |game| game.name());
            let message = crate::game::unknown_evaluation(game_name, &eval.value, &known);
            diagnostics.push(Diagnostic::at(spanned_position(&eval), format!("in `search`: {message}")));
            return None;
        }
        Some(eval.value)
    });
    (GameSearchDefaults { search, eval }, refusable)
}

/// The file's own settings must be searchable for every algorithm it
/// expects: minimax refuses chance moves, a game that can go on forever
/// needs a depth limit.
fn check_own_settings(loaded: &LoadedGame) -> Result<(), LoadError> {
    let algorithms = loaded.expect.keys().filter_map(|name| name.parse::<Algorithm>().ok());
    let tree = loaded.unfold(None, None)?;
    for algorithm in algorithms {
        let settings = SearchSettings::resolve(algorithm, loaded.defaults.search, None, None);
        if let Err(error) = engine::check(&*tree, &settings) {
            return Err(loaded.search_error(&*tree, &error));
        }
    }
    Ok(())
}
