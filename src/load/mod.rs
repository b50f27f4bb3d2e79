//! Loading YAML tree files (docs/format.md section 1): the only module that knows YAML.
//!
//! Parsing happens in two steps. serde-saphyr reads the text into raw,
//! located types (rejecting YAML errors, unknown keys and duplicate keys with
//! their line and column); then they are turned into a [`TreeBuilder`],
//! which enforces the structural rules. Large machine-written files take a
//! fast path for their `nodes:` block and fall back to this one for
//! anything unusual. Every error of
//! either step becomes a [`Diagnostic`] at the place it concerns.

pub mod assignment;
pub mod calls;
mod diagnostic;
mod fast;
pub mod files;
mod game;
pub mod pacman;
mod play;
mod raw;
pub mod write;

pub use diagnostic::{Diagnostic, LoadError, Position};
pub use game::{GameSearchDefaults, LoadedGame};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_saphyr::{Location, Spanned};

use crate::engine::{self, Algorithm, SearchError, SearchSettings};
use crate::tree::{
    AnyTree, BuildError, BuildErrorKind, ChildSpec, ChildTarget, Expectation, GameRules, MoveOrdering, NodeBody,
    NodeIndex, NodeKind, NodeSpec, Outcome, PlayerSpecs, SearchDefaults, Site, Tree, TreeBuilder,
};
use raw::{RawChild, RawExpectMap, RawFile, RawGame, RawKind, RawNode, RawNodeFields, RawNumbers};

/// A tree together with where its nodes are written, for later errors.
#[derive(Clone, Debug)]
pub struct LoadedTree {
    /// The validated tree.
    pub tree: Tree,
    path: PathBuf,
    source: String,
    /// Position of each arena node's definition (its key, or its inline entry).
    positions: Vec<Option<Position>>,
}

impl LoadedTree {
    /// The file the tree was read from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Where a node is defined in the file.
    pub fn position(&self, node: NodeIndex) -> Option<Position> {
        self.positions.get(node.get()).copied().flatten()
    }

    /// An error about a node, pointing at its definition.
    pub fn error_at(&self, node: NodeIndex, message: impl Into<String>) -> LoadError {
        LoadError::new(&self.path, vec![Diagnostic::at(self.position(node), message)], Some(&self.source))
    }

    /// Checks that `settings` can search this tree, as a located error if not.
    pub fn check_settings(&self, settings: &SearchSettings) -> Result<(), LoadError> {
        engine::check(&self.tree, settings).map_err(|error| self.error_at(error.node(), error.to_string()))
    }

    /// The reference search with `settings`; an error (minimax over chance
    /// nodes, a node cut by the depth limit without an `eval`) points at the
    /// node in the file.
    pub fn search(&self, settings: &SearchSettings) -> Result<engine::SearchOutcome, LoadError> {
        engine::search(&self.tree, settings).map_err(|error| self.error_at(error.node(), error.to_string()))
    }

    /// The first fragile comparison of the reference search with `settings`
    /// (docs/format.md 2.1), as a located error naming the node and the two values.
    pub fn check_fragility(&self, settings: &SearchSettings) -> Result<(), LoadError> {
        match engine::fragility(&self.tree, settings) {
            Ok(None) => Ok(()),
            Ok(Some(fragile)) => Err(self.error_at(fragile.node, fragile.describe(&self.tree, settings))),
            Err(error) => Err(self.error_at(error.node(), error.to_string())),
        }
    }
}

/// A tree file of either kind: written node by node, or given by a game.
#[derive(Clone, Debug)]
pub enum Loaded {
    /// `root` and `nodes` (docs/format.md section 1).
    Written(LoadedTree),
    /// `rules` and a position (docs/format.md section 7).
    Game(LoadedGame),
}

impl Loaded {
    /// The file it was read from.
    pub fn path(&self) -> &Path {
        match self {
            Loaded::Written(loaded) => loaded.path(),
            Loaded::Game(loaded) => loaded.path(),
        }
    }

    /// The file's `expect` block, by algorithm name.
    pub fn expectations(&self) -> &BTreeMap<String, Expectation> {
        match self {
            Loaded::Written(loaded) => loaded.tree.expectations(),
            Loaded::Game(loaded) => loaded.expectations(),
        }
    }

    /// The reference search with `settings` (a game's tree unfolded afresh,
    /// with its file's evaluation), as a located error if it cannot run.
    pub fn solve(&self, settings: &SearchSettings) -> Result<Solved<'_>, LoadError> {
        match self {
            Loaded::Written(loaded) => {
                Ok(Solved { tree: AnyTree::Written(&loaded.tree), outcome: loaded.search(settings)? })
            }
            Loaded::Game(loaded) => {
                let (tree, outcome) = loaded.search(settings, None, None)?;
                Ok(Solved { tree: AnyTree::Game(tree), outcome })
            }
        }
    }

    /// The first fragile comparison of the reference search with `settings`
    /// (docs/format.md 2.1), as a located error naming the node and the two values.
    pub fn check_fragility(&self, settings: &SearchSettings) -> Result<(), LoadError> {
        match self {
            Loaded::Written(loaded) => loaded.check_fragility(settings),
            Loaded::Game(loaded) => loaded.check_fragility(settings),
        }
    }

    /// A written max^n tree's number of players (docs/format.md 8.3).
    pub fn players(&self) -> Option<u32> {
        match self {
            Loaded::Written(loaded) => crate::tree::GameTree::players(&loaded.tree),
            Loaded::Game(_) => None,
        }
    }

    /// The file's `search:` defaults (without a game's `eval`).
    pub fn search_defaults(&self) -> SearchDefaults {
        match self {
            Loaded::Written(loaded) => loaded.tree.search_defaults(),
            Loaded::Game(loaded) => loaded.defaults().search,
        }
    }
}

/// A reference search and the tree it searched.
pub struct Solved<'a> {
    /// The tree: the file's own, or a game's unfolded for this search.
    pub tree: AnyTree<'a>,
    /// What the search did.
    pub outcome: engine::SearchOutcome,
}

/// Reads and validates a tree file of either kind.
pub fn load_file(path: &Path) -> Result<Loaded, LoadError> {
    let text = read(path)?;
    if game::is_game_file(&text) {
        game::load_game_str(text, path, &stem_of(path)).map(Loaded::Game)
    } else {
        load_tree_str(text, path).map(Loaded::Written)
    }
}

fn read(path: &Path) -> Result<String, LoadError> {
    std::fs::read_to_string(path).map_err(|error| {
        LoadError::new(path, vec![Diagnostic::at(None, format!("cannot read the file: {error}"))], None)
    })
}

fn stem_of(path: &Path) -> String {
    path.file_stem().map_or_else(|| "tree".to_string(), |s| s.to_string_lossy().into_owned())
}

/// Reads and validates a tree written node by node; a game file is refused
/// with a message that says so (for the commands that take only written trees).
pub fn load_tree_file(path: &Path) -> Result<LoadedTree, LoadError> {
    let text = read(path)?;
    if game::is_game_file(&text) {
        let message = "this file gives a game (`rules`), and this command takes only trees written node by node \
                       (`root` and `nodes`)";
        return Err(LoadError::new(path, vec![Diagnostic::at(None, message)], None));
    }
    load_tree_str(text, path)
}

/// Validates a tree file's text; `path` names it in errors and gives the default name.
pub fn load_tree_str(text: String, path: &Path) -> Result<LoadedTree, LoadError> {
    if is_blank(&text) {
        let message = "the file is empty: a tree file needs at least `root` and `nodes`";
        return Err(LoadError::new(path, vec![Diagnostic::at(None, message)], None));
    }
    let stem = stem_of(path);
    // Large machine-written files take a fast path; it hands back anything it cannot take.
    let text = match fast::load(text, path, &stem) {
        Ok(loaded) => return Ok(loaded),
        Err(text) => text,
    };
    let raw: RawFile = match serde_saphyr::from_str_with_options(&text, parser_options()) {
        Ok(raw) => raw,
        Err(error) => return Err(LoadError::new(path, vec![yaml_diagnostic(&error)], Some(&text))),
    };
    match translate(raw, &stem, None) {
        Ok((tree, positions)) => {
            let loaded = LoadedTree { tree, path: path.to_path_buf(), source: text, positions };
            check_own_settings(&loaded)?;
            Ok(loaded)
        }
        Err(diagnostics) => Err(LoadError::new(path, diagnostics, Some(&text))),
    }
}

/// Only whitespace and comments: the parser would say "unexpected end of input".
fn is_blank(text: &str) -> bool {
    text.lines().all(|line| matches!(line.trim_start().chars().next(), None | Some('#')))
}

/// YAML 1.2 scalars (`yes`, `n`, `on` are strings, as ids must be) and
/// parser limits sized for trees of many millions of nodes.
fn parser_options() -> serde_saphyr::Options {
    serde_saphyr::options! {
        strict_booleans: true,
        budget: serde_saphyr::budget! {
            max_events: 400_000_000,
            max_nodes: 200_000_000,
        },
    }
}

fn yaml_diagnostic(error: &serde_saphyr::Error) -> Diagnostic {
    let position = error.location().and_then(|location| position_of(&location));
    let message = error.without_snippet().to_string();
    Diagnostic::at(position, in_our_words(&strip_location_suffix(&message)))
}

/// Rewrites parser messages that speak of the parser's configuration.
fn in_our_words(message: &str) -> String {
    if let Some(rest) = message.strip_prefix("duplicate mapping key: ") {
        let key = rest.split(',').next().unwrap_or(rest).trim();
        return format!(
            "duplicate key `{key}`: a key may appear only once in a mapping, and every node needs its own id"
        );
    }
    if message.starts_with("multiple YAML documents") {
        return "the file holds more than one YAML document (a second `---`): a tree file is one document".to_string();
    }
    if let Some(rest) = message.strip_prefix("non-finite float ") {
        let value = rest.split(' ').next().unwrap_or(rest);
        return format!("{value} is not a finite number: utilities, evals and probabilities must be finite");
    }
    message.to_string()
}

/// serde-saphyr appends "at line L, column C" to messages; the prefix already says it.
fn strip_location_suffix(message: &str) -> String {
    let trimmed = match message.rfind(" at line ") {
        Some(at) if message[at..].contains("column") => &message[..at],
        _ => message,
    };
    trimmed.trim().to_string()
}

fn position_of(location: &Location) -> Option<Position> {
    let (line, column) = raw::line_column(location)?;
    Some(Position { line, column, width: (location.span().len() as u32).max(1) })
}

fn spanned_position<T>(spanned: &Spanned<T>) -> Option<Position> {
    position_of(&spanned.referenced)
}

/// Where each spec's parts are written, indexed like the builder's specs.
#[derive(Default)]
struct SpecPositions {
    root: Option<Position>,
    keys: Vec<Option<Position>>,
    children: Vec<Vec<Option<Position>>>,
    probs: Vec<Option<Position>>,
}

impl SpecPositions {
    fn of(&self, site: Site) -> Option<Position> {
        match site {
            Site::Root => self.root,
            Site::Node(node) => self.keys[node],
            Site::Child { node, child } => self.children[node].get(child).copied().flatten(),
            Site::Probs(node) => self.probs[node].or(self.keys[node]),
        }
    }
}

type Translated = (Tree, Vec<Option<Position>>);

/// Turns the raw file into a validated tree, collecting every problem. The
/// fast path passes the nodes it has read in `fast` (and none in `raw`).
fn translate(raw: RawFile, stem: &str, fast: Option<fast::FastNodes>) -> Result<Translated, Vec<Diagnostic>> {
    let mut diagnostics = Vec::new();
    let mut positions = SpecPositions { root: spanned_position(&raw.root), ..SpecPositions::default() };
    let mut builder = TreeBuilder::new(raw.name.clone().unwrap_or_else(|| stem.to_string()), raw.root.value.0.clone());
    let nodes_position = spanned_position(&raw.nodes);
    if let Some(nodes) = fast {
        nodes.add_to(&mut builder, &mut positions);
    }
    let players = read_players(raw.players, &mut diagnostics);
    let mut player_specs = players.map(|count| PlayerSpecs { count, ..PlayerSpecs::default() });
    for (id, node) in raw.nodes.value.0 {
        positions.keys.push(spanned_position(&id));
        let mut child_positions = Vec::new();
        let mut probs_position = None;
        let id = id.value.0;
        match node_spec(id.clone(), node, players, &mut child_positions, &mut probs_position) {
            Ok((spec, vectors)) => {
                let index = builder.add(spec);
                if let Some(table) = player_specs.as_mut() {
                    table.add(index, vectors);
                }
            }
            Err(message) => {
                diagnostics.push(Diagnostic::at(positions.keys.last().copied().flatten(), message));
                // A stand-in under the same id keeps references to it from
                // producing follow-on errors (missing child, unreachable).
                builder.add(NodeSpec::terminal(id, 0.0));
            }
        }
        positions.children.push(child_positions);
        positions.probs.push(probs_position);
    }
    if positions.keys.is_empty() {
        diagnostics.push(Diagnostic::at(nodes_position, "`nodes` is empty: a tree needs at least its root"));
        return Err(diagnostics);
    }
    let forward_at = raw.search.as_ref().and_then(|search| search.forward_pruning.as_ref()).and_then(spanned_position);
    let (search, search_eval) = match raw.search {
        None => (SearchDefaults::default(), None),
        Some(search) => {
            let move_ordering = read_move_ordering(search.move_ordering, &mut diagnostics);
            let more = MoreSettings {
                forward_pruning: search.forward_pruning,
                budget: search.budget,
                iterations: search.iterations,
                seed: search.seed,
                exploration: search.exploration,
            };
            let defaults = SearchDefaults {
                prune_on_equal: search.prune_on_equal,
                depth: search.depth,
                move_ordering,
                ..SearchDefaults::default()
            };
            (more.read(defaults, &mut diagnostics), search.eval)
        }
    };
    if let Some(eval) = search_eval {
        diagnostics.push(Diagnostic::at(
            spanned_position(&eval),
            "in `search`: `eval` names a game's evaluation (docs/format.md 7); a written tree's nodes carry their own `eval`",
        ));
    }
    let expect = translate_expectations(raw.expect.unwrap_or_default(), &mut diagnostics);
    check_forward_beside(forward_at, &expect, player_specs.is_some(), &mut diagnostics);
    if let Some(table) = player_specs {
        builder.set_players(table);
    }
    let built = builder.build_with_origins();
    let (tree, origins) = match built {
        Ok(built) if diagnostics.is_empty() => built,
        Ok(_) => return Err(diagnostics),
        Err(errors) => {
            diagnostics.extend(errors.into_iter().map(|e| build_diagnostic(e, &positions)));
            diagnostics.sort_by_key(|d| d.position.map(|p| (p.line, p.column)));
            return Err(diagnostics);
        }
    };
    let game = match raw.game {
        Some(game) => Some(translate_game(&tree, game)?),
        None => None,
    };
    let tree = tree.with_metadata(raw.description, search, expect).with_game(game);
    let node_positions = origins.into_iter().map(|site| positions.of(site)).collect();
    Ok((tree, node_positions))
}

/// Checks the `game:` block against the built tree: at least one agent, and
/// every win or loss a terminal listed once.
fn translate_game(tree: &Tree, raw: Spanned<RawGame>) -> Result<GameRules, Vec<Diagnostic>> {
    let block = spanned_position(&raw);
    let raw = raw.value;
    let mut diagnostics = Vec::new();
    if raw.agents == 0 {
        diagnostics.push(Diagnostic::at(block, "in `game`: `agents` must be at least 1 (MAX itself)"));
    }
    let mut outcomes = BTreeMap::new();
    let listed = raw.wins.iter().map(|id| (id, Outcome::Win)).chain(raw.losses.iter().map(|id| (id, Outcome::Lose)));
    for (id, outcome) in listed {
        let at = spanned_position(id);
        let list = if outcome == Outcome::Win { "wins" } else { "losses" };
        match tree.find(&id.value.0) {
            None => {
                diagnostics.push(Diagnostic::at(at, format!("in `game.{list}`: no node has the id `{}`", id.value.0)))
            }
            Some(node) if tree.node(node).kind != NodeKind::Terminal => diagnostics.push(Diagnostic::at(
                at,
                format!("in `game.{list}`: `{}` is not a terminal; only terminals end the game", id.value.0),
            )),
            Some(node) => {
                if outcomes.insert(node, outcome).is_some() {
                    diagnostics.push(Diagnostic::at(
                        at,
                        format!(
                            "in `game.{list}`: `{}` is listed twice (in `wins` and `losses` together counts)",
                            id.value.0
                        ),
                    ));
                }
            }
        }
    }
    if diagnostics.is_empty() { Ok(GameRules { agents: raw.agents, outcomes }) } else { Err(diagnostics) }
}

/// A max^n tree's `players` (docs/format.md 8.3): 2 or more.
fn read_players(raw: Option<Spanned<u32>>, diagnostics: &mut Vec<Diagnostic>) -> Option<u32> {
    let raw = raw?;
    if raw.value < 2 {
        let message = format!(
            "`players` is {}, but a max^n tree has 2 or more players (a tree of MAX and MIN leaves `players` out)",
            raw.value
        );
        diagnostics.push(Diagnostic::at(spanned_position(&raw), message));
    }
    Some(raw.value.max(2))
}

impl PlayerSpecs {
    /// Records what node spec `index` says of its player and vectors.
    fn add(&mut self, index: usize, vectors: NodeVectors) {
        if let Some(mover) = vectors.mover {
            self.movers.insert(index, mover);
        }
        if let Some(vector) = vectors.vector {
            self.vectors.insert(Site::Node(index), vector);
        }
        for (child, vector) in vectors.leaves {
            self.vectors.insert(Site::Child { node: index, child }, vector);
        }
    }
}

/// The `search:` keys of docs/format.md 8.2 to 8.4 as written, in
/// written trees and games alike.
pub(crate) struct MoreSettings {
    /// `forward_pruning` (8.5), as written: checked to be a YAML integer.
    pub(crate) forward_pruning: Option<Spanned<serde_json::Value>>,
    pub(crate) budget: Option<Spanned<u64>>,
    pub(crate) iterations: Option<Spanned<u32>>,
    pub(crate) seed: Option<u64>,
    pub(crate) exploration: Option<Spanned<f64>>,
}

impl MoreSettings {
    /// Adds the keys to `defaults`, with a diagnostic at each value out of range.
    fn read(self, mut defaults: SearchDefaults, diagnostics: &mut Vec<Diagnostic>) -> SearchDefaults {
        if let Some(raw) = self.forward_pruning {
            match read_forward_pruning(&raw.value) {
                Ok(n) => defaults.forward_pruning = Some(n),
                Err(message) => diagnostics.push(Diagnostic::at(spanned_position(&raw), message)),
            }
        }
        if let Some(budget) = self.budget {
            if budget.value == 0 {
                let message = "in `search`: `budget` is the most nodes a search may enter, at least 1";
                diagnostics.push(Diagnostic::at(spanned_position(&budget), message));
            }
            defaults.budget = Some(budget.value);
        }
        if let Some(iterations) = self.iterations {
            if iterations.value == 0 {
                let message = "in `search`: `iterations` (of MCTS) must be at least 1";
                diagnostics.push(Diagnostic::at(spanned_position(&iterations), message));
            }
            defaults.iterations = Some(iterations.value);
        }
        defaults.seed = self.seed;
        if let Some(exploration) = self.exploration {
            if let Err(error) = check_exploration(exploration.value) {
                diagnostics.push(Diagnostic::at(spanned_position(&exploration), format!("in `search`: {error}")));
            }
            defaults.exploration = Some(exploration.value);
        }
        defaults
    }
}

/// `forward_pruning`'s N (docs/format.md 8.5): a YAML integer, at least 1
/// (`2`, not `2.0` or `"2"`).
fn read_forward_pruning(raw: &serde_json::Value) -> Result<u32, String> {
    let wrong = |what: String| {
        format!(
            "in `search`: `forward_pruning` is {what}, but it is how many children forward pruning searches at \
             each max or min node: a whole number, at least 1, written as a YAML integer (docs/format.md 8.5)"
        )
    };
    match raw {
        serde_json::Value::Number(number) => match number.as_u64() {
            Some(n) if n >= 1 => u32::try_from(n).map_err(|_| wrong(format!("{n}, too large"))),
            _ => Err(wrong(number.to_string())),
        },
        serde_json::Value::String(text) => Err(wrong(format!("the string \"{text}\""))),
        other => Err(wrong(other.to_string())),
    }
}

/// `forward_pruning` beside a search that does not take it (docs/format.md
/// 8.5: iterative deepening, max^n, MCTS) is invalid input, located at the
/// key: a search the file expects, or max^n for a tree with `players`.
fn check_forward_beside(
    at: Option<Position>,
    expect: &BTreeMap<String, Expectation>,
    players: bool,
    diagnostics: &mut Vec<Diagnostic>,
) {
    if at.is_none() {
        return;
    }
    let mut beside: Vec<Algorithm> = expect.keys().filter_map(|name| name.parse::<Algorithm>().ok()).collect();
    if players {
        beside.push(Algorithm::Maxn);
    }
    if let Some(algorithm) = beside.into_iter().find(|algorithm| !algorithm.forward_prunes()) {
        let error = SearchError::ForwardPruningBeside { algorithm };
        diagnostics.push(Diagnostic::at(at, format!("in `search`: {error}")));
    }
}

/// An exploration constant UCT cannot use.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
#[error("`exploration` is {0}, but UCT's constant c must be a finite number, 0 or more")]
pub struct BadExploration(pub f64);

/// UCT's exploration constant must be a finite number, 0 or more (0: no exploration).
pub fn check_exploration(exploration: f64) -> Result<(), BadExploration> {
    if exploration.is_finite() && exploration >= 0.0 { Ok(()) } else { Err(BadExploration(exploration)) }
}

/// A `search.move_ordering` value, or a diagnostic at it (written trees and games alike).
fn read_move_ordering(raw: Option<Spanned<String>>, diagnostics: &mut Vec<Diagnostic>) -> Option<MoveOrdering> {
    let raw = raw?;
    match raw.value.parse::<MoveOrdering>() {
        Ok(ordering) => Some(ordering),
        Err(message) => {
            diagnostics.push(Diagnostic::at(spanned_position(&raw), format!("in `search`: {message}")));
            None
        }
    }
}

fn build_diagnostic(error: BuildError, positions: &SpecPositions) -> Diagnostic {
    let mut message = error.kind.to_string();
    if let BuildErrorKind::Unreachable { id } = &error.kind
        && id.parse::<f64>().is_ok()
    {
        // The classic slip: `[1, 2]` in a child list are inline leaves, not ids.
        message
            .push_str(&format!(" (to name it in a child list, quote it: \"{id}\"; a bare number is an inline leaf)"));
    }
    Diagnostic::at(positions.of(error.site), message)
}

/// What a node of a max^n tree adds to its players table (docs/format.md 8.3).
#[derive(Default)]
struct NodeVectors {
    /// The player to move (1-based).
    mover: Option<u32>,
    /// A terminal's utilities or an internal node's eval.
    vector: Option<Vec<f64>>,
    /// Inline leaves' utility vectors, by 0-based child position.
    leaves: Vec<(usize, Vec<f64>)>,
}

/// Checks the shape of one node and converts it; `players` is the tree's
/// number of players when it is a max^n tree.
fn node_spec(
    id: String,
    node: Spanned<RawNode>,
    players: Option<u32>,
    child_positions: &mut Vec<Option<Position>>,
    probs_position: &mut Option<Position>,
) -> Result<(NodeSpec, NodeVectors), String> {
    let fields = match node.value {
        RawNode::Terminal(_) if players.is_some() => {
            return Err(format!(
                "node `{id}` is a number, but a terminal of a tree with `players` is `{{utility: [U1, ..., U{}]}}` \
                 (docs/format.md 8.3)",
                players.unwrap_or(2)
            ));
        }
        RawNode::Terminal(value) => return Ok((NodeSpec::terminal(id, value), NodeVectors::default())),
        RawNode::Mapping(fields) => fields,
    };
    let RawNodeFields { mut kinds, value, probs, eval, utility } = fields;
    if value.is_some() || utility.is_some() {
        let key = if value.is_some() { "value" } else { "utility" };
        let extra: Vec<String> = kinds
            .iter()
            .map(|(kind, _)| kind.key())
            .chain(probs.as_ref().map(|_| "probs".to_string()))
            .chain(eval.as_ref().map(|_| "eval".to_string()))
            .chain((value.is_some() && utility.is_some()).then(|| "utility".to_string()))
            .collect();
        if !extra.is_empty() {
            return Err(format!("node `{id}` has `{key}` (a terminal) and also `{}`", extra.join("`, `")));
        }
        return match (value, utility, players) {
            (Some(value), _, None) => Ok((NodeSpec::terminal(id, value), NodeVectors::default())),
            (Some(_), _, Some(count)) => Err(format!(
                "node `{id}` has `value`, but a terminal of a tree with `players` is `{{utility: [U1, ..., U{count}]}}` \
                 (docs/format.md 8.3)"
            )),
            (None, Some(_), None) => Err(format!(
                "node `{id}` has `utility`, a vector that only a tree with `players` has (docs/format.md 8.3); \
                 here a terminal is a number or `{{value: N}}`"
            )),
            (None, Some(utility), Some(_)) => {
                let first = utility.first().copied().unwrap_or(0.0);
                Ok((NodeSpec::terminal(id, first), NodeVectors { vector: Some(utility), ..NodeVectors::default() }))
            }
            (None, None, _) => unreachable!("one of value and utility is present"),
        };
    }
    if kinds.len() > 1 {
        let names: Vec<String> = kinds.iter().map(|(kind, _)| kind.key()).collect();
        let choices = if players.is_some() { "a player's (p1, p2, ...) or chance" } else { "max, min or chance" };
        return Err(format!(
            "node `{id}` has two kinds, `{}`: a node is exactly one of {choices}",
            names.join("` and `")
        ));
    }
    let Some((raw_kind, raw_children)) = kinds.pop() else {
        return Err(match players {
            None => format!("node `{id}` has none of `max`, `min`, `chance` or `value`"),
            Some(count) => format!("node `{id}` has none of `p1` ... `p{count}`, `chance` or `utility`"),
        });
    };
    let (kind, mover) = node_kind(&id, raw_kind, players)?;
    let mut vectors = NodeVectors { mover, ..NodeVectors::default() };
    let mut children = Vec::with_capacity(raw_children.len());
    for (position, child) in raw_children.into_iter().enumerate() {
        child_positions.push(spanned_position(&child));
        let (spec, vector) = child_spec(child.value);
        match (vector, players) {
            (Some(_), None) => {
                return Err(format!(
                    "node `{id}`: child {} is a list of numbers, a utility vector that only a tree with `players` has \
                     (docs/format.md 8.3)",
                    position + 1
                ));
            }
            (None, Some(count)) if matches!(spec.target, ChildTarget::Leaf(_)) => {
                return Err(format!(
                    "node `{id}`: child {} is a number, but an inline leaf of a tree with `players` is a list of \
                     {count} numbers, one utility per player (docs/format.md 8.3)",
                    position + 1
                ));
            }
            (Some(vector), Some(_)) => vectors.leaves.push((position, vector)),
            (None, _) => {}
        }
        children.push(spec);
    }
    *probs_position = probs.as_ref().and_then(spanned_position);
    let probs = probs.map(|p| p.value);
    let eval = match (eval, players) {
        (None, _) => None,
        (Some(RawNumbers::One(eval)), None) => Some(eval),
        (Some(RawNumbers::Many(_)), None) => {
            return Err(format!(
                "node `{id}` has a list as `eval`, a vector that only a tree with `players` has (docs/format.md 8.3)"
            ));
        }
        (Some(RawNumbers::One(_)), Some(count)) => {
            return Err(format!(
                "node `{id}`: in a tree with `players`, `eval` is a list of {count} numbers, one per player \
                 (docs/format.md 8.3)"
            ));
        }
        (Some(RawNumbers::Many(vector)), Some(_)) => {
            let first = vector.first().copied().unwrap_or(0.0);
            vectors.vector = Some(vector);
            Some(first)
        }
    };
    Ok((NodeSpec { id, body: NodeBody::Internal { kind, children, probs, eval } }, vectors))
}

/// A node's kind, and its mover in a max^n tree: player 1's nodes are max
/// nodes and the other players' min nodes (`tree::Players`).
fn node_kind(id: &str, raw: RawKind, players: Option<u32>) -> Result<(NodeKind, Option<u32>), String> {
    match (raw, players) {
        (RawKind::Chance, _) => Ok((NodeKind::Chance, None)),
        (RawKind::Max, None) => Ok((NodeKind::Max, None)),
        (RawKind::Min, None) => Ok((NodeKind::Min, None)),
        (RawKind::Max | RawKind::Min, Some(count)) => Err(format!(
            "node `{id}` is a `{}` node, but in a tree with `players` a node is moved by a player, `p1` to \
             `p{count}`, or is `chance` (docs/format.md 8.3)",
            raw.key()
        )),
        (RawKind::Player(player), None) => Err(format!(
            "node `{id}` has `p{player}`, a player of a tree with `players: N` (docs/format.md 8.3); add `players` \
             at the top of the file, or use `max` and `min`"
        )),
        (RawKind::Player(player), Some(count)) if player > count => {
            Err(format!("node `{id}` is moved by player {player} (`p{player}`), but the tree has players 1 to {count}"))
        }
        (RawKind::Player(player), Some(_)) => {
            Ok((if player == 1 { NodeKind::Max } else { NodeKind::Min }, Some(player)))
        }
    }
}

/// An edge, and the vector of an inline leaf of a max^n tree.
fn child_spec(child: RawChild) -> (ChildSpec, Option<Vec<f64>>) {
    match child {
        RawChild::Id(id) => (ChildSpec { action: None, target: ChildTarget::Id(id) }, None),
        RawChild::Leaf(value) => (ChildSpec::leaf(value), None),
        RawChild::Vector(vector) => (ChildSpec::leaf(vector.first().copied().unwrap_or(0.0)), Some(vector)),
        RawChild::Labelled(action, target) => {
            let (spec, vector) = child_spec(*target);
            (ChildSpec { action: Some(action), target: spec.target }, vector)
        }
    }
}

fn translate_expectations(raw: RawExpectMap, diagnostics: &mut Vec<Diagnostic>) -> BTreeMap<String, Expectation> {
    let mut expect = BTreeMap::new();
    for (name, entry) in raw.0 {
        let position = spanned_position(&name);
        if let Err(error) = name.value.parse::<Algorithm>() {
            diagnostics.push(Diagnostic::at(position, format!("in `expect`: {error}")));
            continue;
        }
        let entry = entry.value;
        let (value, vector) = match entry.value {
            None => (None, None),
            Some(RawNumbers::One(value)) => (Some(value), None),
            Some(RawNumbers::Many(vector)) => (None, Some(vector)),
        };
        let numbers = value.iter().chain(vector.iter().flatten());
        if let Some(value) = numbers.copied().find(|v| !v.is_finite()) {
            diagnostics.push(Diagnostic::at(
                position,
                format!("in `expect.{}`: the value {value} is not a finite number", name.value),
            ));
            continue;
        }
        expect.insert(
            name.value,
            Expectation {
                value,
                vector,
                action: entry.action.map(|action| action.map(|id| id.0)),
                visited: entry.visited.map(|ids| ids.into_iter().map(|id| id.0).collect()),
            },
        );
    }
    expect
}

/// The file's own search settings must be searchable for every algorithm it
/// expects: a depth cut needs evals, and minimax needs a tree without chance.
fn check_own_settings(loaded: &LoadedTree) -> Result<(), LoadError> {
    let defaults = loaded.tree.search_defaults();
    let mut algorithms: Vec<Algorithm> =
        loaded.tree.expectations().keys().filter_map(|name| name.parse().ok()).collect();
    if algorithms.is_empty() && defaults.depth.is_some() {
        let players = crate::tree::GameTree::players(&loaded.tree);
        algorithms.push(if players.is_some() { Algorithm::Maxn } else { Algorithm::Expectimax });
    }
    for algorithm in algorithms {
        let settings = SearchSettings::resolve(algorithm, defaults, None, None);
        match engine::check(&loaded.tree, &settings) {
            Ok(()) => {}
            Err(error @ SearchError::ChanceUnderMinimax { .. }) => {
                return Err(loaded.error_at(error.node(), format!("`expect` has minimax, but {error}")));
            }
            Err(error) => return Err(loaded.error_at(error.node(), format!("the file's `search: {{depth}}`: {error}"))),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> Result<LoadedTree, LoadError> {
        load_tree_str(text.to_string(), Path::new("t.yaml"))
    }

    fn error(text: &str) -> String {
        load(text).expect_err("should be invalid").to_string()
    }

    const FORMAT_EXAMPLE: &str = include_str!("../../test-cases/mixed-example.yaml");

    #[test]
    fn the_format_example_loads() {
        let loaded = load(FORMAT_EXAMPLE).unwrap();
        let tree = &loaded.tree;
        assert_eq!(tree.name(), "mixed-example");
        assert_eq!(tree.len(), 14);
        let c = tree.find("C").unwrap();
        let actions: Vec<&str> = tree.children(c).map(|child| tree.action(child)).collect();
        assert_eq!(actions, ["c1", "c2", "c3"]);
        assert_eq!(tree.node(c).eval, Some(4.0));
        let expect = &tree.expectations()["alphabeta"];
        assert_eq!(expect.action, Some(Some("D".to_string())));
        assert_eq!(expect.visited.as_ref().unwrap().len(), 12);
        assert_eq!(loaded.position(c).map(|p| p.line), Some(7));
    }

    #[test]
    fn numbers_and_quoted_numbers_are_the_same_id() {
        let loaded = load("root: 1\nnodes:\n  1: {max: [\"2\", 5]}\n  \"2\": 3\n").unwrap();
        assert_eq!(loaded.tree.ids_of(&[NodeIndex(0), NodeIndex(1), NodeIndex(2)]), ["1", "2", "1.2"]);
    }

    #[test]
    fn yaml_1_1_booleans_are_plain_ids() {
        let loaded =
            load("root: r\nnodes:\n  r: {max: [yes, n, Y, off]}\n  yes: 1\n  n: 2\n  Y: 3\n  off: 4\n").unwrap();
        let children: Vec<&str> = loaded.tree.children(NodeIndex::ROOT).map(|c| loaded.tree.id(c)).collect();
        assert_eq!(children, ["yes", "n", "Y", "off"]);
        assert!(error("root: r\nnodes:\n  r: {max: [true]}\n").contains("invalid type: boolean"));
    }

    #[test]
    fn duplicate_ids_are_rejected_not_overwritten() {
        let message = error("root: A\nnodes:\n  A: {max: [B]}\n  B: 1\n  B: 2\n");
        assert!(message.starts_with("t.yaml:5:3:"), "{message}");
        assert!(message.contains("duplicate"), "{message}");
    }

    #[test]
    fn duplicate_ids_spelled_differently_are_rejected() {
        let message = error("root: A\nnodes:\n  A: {max: [\"1\"]}\n  1: 1\n  \"1\": 2\n");
        assert!(message.contains("t.yaml:5:3: duplicate node id `1`"), "{message}");
    }

    #[test]
    fn unknown_keys_are_rejected_with_their_place() {
        assert!(error("root: A\nnodes: {A: 1}\nbogus: 1\n").starts_with("t.yaml:3:"));
        let message = error("root: A\nnodes:\n  A: {max: [1], weight: 3}\n");
        assert!(message.contains("unknown key `weight`"), "{message}");
        assert!(message.starts_with("t.yaml:3:"), "{message}");
    }

    #[test]
    fn shape_errors_name_the_node() {
        assert!(error("root: A\nnodes:\n  A: {max: [1], min: [2]}\n").contains("node `A` has two kinds"));
        assert!(error("root: A\nnodes:\n  A: {eval: 2}\n").contains("none of `max`"));
        assert!(error("root: A\nnodes:\n  A: {value: 2, eval: 1}\n").contains("`value` (a terminal) and also `eval`"));
        assert!(error("root: A\nnodes:\n  A: {max: [B]}\n").starts_with("t.yaml:3:13: node `A` has a child `B`"));
    }

    #[test]
    fn non_finite_numbers_are_rejected() {
        let message = error("root: A\nnodes:\n  A: {max: [.nan, 1]}\n");
        assert!(message.starts_with("t.yaml:3:"), "{message}");
        let message = error("root: A\nnodes:\n  A: .inf\n");
        assert!(message.starts_with("t.yaml:3:"), "{message}");
    }

    #[test]
    fn a_search_that_cuts_a_node_without_eval_is_refused_where_the_node_is() {
        let loaded = load("root: A\nnodes:\n  A: {max: [B]}\n  B: {min: [1]}\nsearch: {depth: 1}\n").unwrap();
        let settings = SearchSettings::resolve(Algorithm::AlphaBeta, loaded.tree.search_defaults(), None, None);
        let message = loaded.search(&settings).unwrap_err().to_string();
        assert!(message.starts_with("t.yaml:4:3:"), "{message}");
        assert!(message.contains("no `eval`"), "{message}");
    }

    #[test]
    fn a_node_without_eval_that_the_search_prunes_is_fine() {
        // Alpha-beta prunes C.2 after C.1 = 2 <= alpha = 3, so C.2's missing eval never matters.
        let text = "root: A\nnodes:\n  A: {max: [B, C]}\n  B: {min: [3], eval: 0}\n  C: {min: [2, D], eval: 0}\n  \
                    D: {max: [9]}\nsearch: {depth: 2}\n";
        let loaded = load(text).unwrap();
        let defaults = loaded.tree.search_defaults();
        let alphabeta = SearchSettings::resolve(Algorithm::AlphaBeta, defaults, None, None);
        let outcome = loaded.search(&alphabeta).unwrap();
        assert_eq!(loaded.tree.ids_of(&outcome.visited), ["A", "B", "B.1", "C", "C.1"]);
        let minimax = SearchSettings::resolve(Algorithm::Minimax, defaults, None, None);
        let message = loaded.search(&minimax).unwrap_err().to_string();
        assert!(message.contains("node `D`, which has no `eval`"), "{message}");
    }

    #[test]
    fn the_game_block_names_terminals_once() {
        let base = "root: A\nnodes:\n  A: {max: [B, C]}\n  B: 1\n  C: 2\n";
        let message = error(&format!("{base}game: {{agents: 2, wins: [A]}}\n"));
        assert!(message.contains(":6:") && message.contains("`A` is not a terminal"), "{message}");
        let message = error(&format!("{base}game: {{agents: 2, wins: [B], losses: [B, Z]}}\n"));
        assert!(message.contains("`B` is listed twice") && message.contains("no node has the id `Z`"), "{message}");
        assert!(error(&format!("{base}game: {{agents: 0}}\n")).contains("at least 1"));
        assert!(error(&format!("{base}game: {{agents: 2, draws: [B]}}\n")).contains("draws"));
        let loaded = load(&format!("{base}game: {{agents: 3, losses: [C]}}\n")).unwrap();
        assert_eq!(loaded.tree.game().unwrap().agents, 3);
    }

    #[test]
    fn expectations_must_name_known_algorithms() {
        let message = error("root: A\nnodes: {A: 1}\nexpect:\n  negamax: {value: 1}\n");
        assert!(message.starts_with("t.yaml:4:3:"), "{message}");
        assert!(message.contains("unknown algorithm `negamax`"), "{message}");
    }

    #[test]
    fn broken_yaml_is_located() {
        let message = error("root: A\nnodes:\n  A: {max: [1, 2}\n");
        assert!(message.starts_with("t.yaml:3:"), "{message}");
    }

    const THREE_PLAYERS: &str = "players: 3\nroot: A\nnodes:\n  A: {p1: [B, C]}\n  B: {p2: [[1, 2, 3], {r: [4, 1, 2]}], \
                                 eval: [0, 0, 1]}\n  C: {chance: [D, E], probs: [0.5, 0.5]}\n  D: {utility: [6, 1, 2]}\n  \
                                 E: {p3: [[7, 3, 8]]}\n";

    #[test]
    fn a_max_n_tree_loads_with_players_and_vectors() {
        use crate::tree::GameTree;
        let tree = load(THREE_PLAYERS).unwrap().tree;
        assert_eq!(GameTree::players(&tree), Some(3));
        let id = |id: &str| tree.find(id).unwrap();
        assert_eq!([id("A"), id("B"), id("E")].map(|node| tree.player(node)), [Some(1), Some(2), Some(3)]);
        assert_eq!(tree.player(id("C")), None, "chance nodes have no player");
        assert_eq!(tree.utility_vector(id("B.1")), [1.0, 2.0, 3.0]);
        assert_eq!(tree.action(id("B.2")), "r", "a labelled inline vector");
        assert_eq!(tree.utility_vector(id("D")), [6.0, 1.0, 2.0]);
        assert_eq!(tree.eval_vector(id("B")), Some(vec![0.0, 0.0, 1.0]));
        assert_eq!(tree.eval_vector(id("E")), None);
        assert_eq!((tree.node(id("A")).kind, tree.node(id("E")).kind), (NodeKind::Max, NodeKind::Min));
    }

    #[test]
    fn max_n_forms_are_checked_where_they_are_written() {
        let players = |nodes: &str| error(&format!("players: 3\nroot: A\nnodes:\n{nodes}"));
        let message = players("  A: {max: [[1, 2, 3]]}\n");
        assert!(message.starts_with("t.yaml:4:3:") && message.contains("`p1` to `p3`"), "{message}");
        let message = players("  A: {p1: [B]}\n  B: 4\n");
        assert!(message.starts_with("t.yaml:5:3:") && message.contains("{utility: [U1, ..., U3]}"), "{message}");
        let message = players("  A: {p1: [[1, 2]]}\n");
        assert!(message.contains("a vector of 2 numbers, but the tree has 3 players"), "{message}");
        assert!(message.starts_with("t.yaml:4:12:"), "the inline leaf itself: {message}");
        let message = players("  A: {p4: [[1, 2, 3]]}\n");
        assert!(message.contains("player 4 (`p4`), but the tree has players 1 to 3"), "{message}");
        let message = players("  A: {p1: [4]}\n");
        assert!(message.contains("child 1 is a number"), "{message}");
        let message = players("  A: {p1: [[1, 2, 3]], eval: 2}\n");
        assert!(message.contains("`eval` is a list of 3 numbers"), "{message}");
        let message = players("  A: {p1: [[1, .nan, 3]]}\n");
        assert!(message.contains("not a finite number") || message.contains("finite"), "{message}");
        let message = error("players: 1\nroot: A\nnodes:\n  A: {utility: [1]}\n");
        assert!(message.starts_with("t.yaml:1:10:") && message.contains("2 or more"), "{message}");
    }

    #[test]
    fn vectors_outside_a_max_n_tree_are_refused() {
        let message = error("root: A\nnodes:\n  A: {max: [[1, -1]]}\n");
        assert!(message.contains("only a tree with `players`"), "{message}");
        let message = error("root: A\nnodes:\n  A: {p1: [1]}\n");
        assert!(message.contains("add `players` at the top"), "{message}");
        let message = error("root: A\nnodes:\n  A: {max: [B]}\n  B: {utility: [1, 2]}\n");
        assert!(message.contains("only a tree with `players`"), "{message}");
    }

    #[test]
    fn a_max_n_expectation_is_a_vector() {
        let text = format!("{THREE_PLAYERS}expect:\n  maxn: {{value: [4.5, 2, 5], action: C}}\n");
        let loaded = load(&text).unwrap();
        let expect = &loaded.tree.expectations()["maxn"];
        assert_eq!((expect.value, expect.vector.as_deref()), (None, Some(&[4.5, 2.0, 5.0][..])));
    }

    #[test]
    fn the_settings_of_section_8_are_read_and_checked() {
        let base = "root: A\nnodes:\n  A: {max: [1, 2]}\n";
        let loaded = load(&format!(
            "{base}search: {{budget: 9, iterations: 40, seed: 18446744073709551615, exploration: 0.5}}\n"
        ))
        .unwrap();
        let defaults = loaded.tree.search_defaults();
        assert_eq!((defaults.budget, defaults.iterations, defaults.seed), (Some(9), Some(40), Some(u64::MAX)));
        assert_eq!(defaults.exploration, Some(0.5));
        assert!(error(&format!("{base}search: {{budget: 0}}\n")).contains("at least 1"));
        assert!(error(&format!("{base}search: {{iterations: 0}}\n")).contains("at least 1"));
        let message = error(&format!("{base}search: {{exploration: -1}}\n"));
        assert!(message.starts_with("t.yaml:4:23:") && message.contains("0 or more"), "{message}");
    }

    #[test]
    fn several_problems_are_all_reported() {
        let loaded = load("root: A\nnodes:\n  A: {max: [B, C]}\n  D: 4\n").expect_err("invalid");
        assert_eq!(loaded.diagnostics().len(), 3, "{loaded}");
    }
}
