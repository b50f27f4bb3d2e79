//! Which search to run, and with which limits.

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

pub use crate::tree::MoveOrdering;
use crate::tree::{SearchDefaults, SettingValue};

/// The searches of docs/format.md sections 3 and 8.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Algorithm {
    /// Plain minimax (no chance nodes).
    Minimax,
    /// Minimax with alpha-beta pruning.
    AlphaBeta,
    /// Expectiminimax: max, min and chance nodes.
    Expectimax,
    /// Alpha-beta at depth 1, 2, ..., D, the previous best move first, on a node budget (8.2).
    IterativeDeepening,
    /// Max^n: N players, each maximising its own component of a utility vector (8.3).
    Maxn,
    /// Monte Carlo tree search (UCT) with the grader's random numbers (8.4).
    Mcts,
}

impl Algorithm {
    /// Every algorithm, in a stable order.
    pub const ALL: [Algorithm; 6] = [
        Algorithm::Minimax,
        Algorithm::AlphaBeta,
        Algorithm::Expectimax,
        Algorithm::IterativeDeepening,
        Algorithm::Maxn,
        Algorithm::Mcts,
    ];

    /// The three searches of docs/format.md section 3, which every written
    /// two-player tree is checked under when its file expects nothing: those
    /// of [`Algorithm::ALL`] that are [`Algorithm::is_classic`] (a test
    /// holds the two together).
    pub const CLASSIC: [Algorithm; 3] = [Algorithm::Minimax, Algorithm::AlphaBeta, Algorithm::Expectimax];

    /// What it is, in a few words (for `--help`).
    pub fn description(self) -> &'static str {
        match self {
            Algorithm::Minimax => "Plain minimax",
            Algorithm::AlphaBeta => "Alpha-beta pruning",
            Algorithm::Expectimax => "Expectimax (max, min and chance nodes)",
            Algorithm::IterativeDeepening => "Iterative deepening: alpha-beta at depth 1, 2, ... on a node budget",
            Algorithm::Maxn => "Max^n: each of N players maximises its own component of a utility vector",
            Algorithm::Mcts => "Monte Carlo tree search (UCT) with the grader's random numbers",
        }
    }

    /// The name used in files, flags and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Minimax => "minimax",
            Algorithm::AlphaBeta => "alphabeta",
            Algorithm::Expectimax => "expectimax",
            Algorithm::IterativeDeepening => "iterative-deepening",
            Algorithm::Maxn => "maxn",
            Algorithm::Mcts => "mcts",
        }
    }

    /// Whether the search prunes with an alpha-beta window (and so has a
    /// pruning convention, docs/format.md 3.2).
    pub fn prunes(self) -> bool {
        match self {
            Algorithm::AlphaBeta | Algorithm::IterativeDeepening => true,
            Algorithm::Minimax | Algorithm::Expectimax | Algorithm::Maxn | Algorithm::Mcts => false,
        }
    }

    /// Whether it is one of the depth-first searches of docs/format.md
    /// section 3, run by the engine's main loop (whose nodes keep a window
    /// and a value) and reproduced mistake by mistake by the variant search.
    pub fn is_classic(self) -> bool {
        match self {
            Algorithm::Minimax | Algorithm::AlphaBeta | Algorithm::Expectimax => true,
            Algorithm::IterativeDeepening | Algorithm::Maxn | Algorithm::Mcts => false,
        }
    }

    /// Whether every node it expands carries an alpha-beta window of its own
    /// (section 3.2): what pictures draw and the window mistakes are about.
    /// Iterative deepening prunes too, but is pictured and diagnosed by
    /// iteration.
    pub fn window_per_node(self) -> bool {
        match self {
            Algorithm::AlphaBeta => true,
            Algorithm::Minimax
            | Algorithm::Expectimax
            | Algorithm::IterativeDeepening
            | Algorithm::Maxn
            | Algorithm::Mcts => false,
        }
    }

    /// Whether `move_ordering: eval` orders its children (docs/format.md
    /// 8.1); iterative deepening has its own order at the root, and max^n
    /// and MCTS keep the tree's.
    pub fn orders_moves(self) -> bool {
        self.is_classic()
    }

    /// Whether it takes `forward_pruning: N` (docs/format.md 8.5): only the
    /// N best children by static value searched at each max or min node.
    /// Beside any other search the setting is invalid input.
    pub fn forward_prunes(self) -> bool {
        match self {
            Algorithm::Minimax | Algorithm::AlphaBeta | Algorithm::Expectimax => true,
            Algorithm::IterativeDeepening | Algorithm::Maxn | Algorithm::Mcts => false,
        }
    }

    /// Whether it draws random numbers from the grader's stream (8.4), and
    /// so has a seed, an exploration constant, per-child counts and a
    /// number of draws to report.
    pub fn draws_random(self) -> bool {
        match self {
            Algorithm::Mcts => true,
            Algorithm::Minimax
            | Algorithm::AlphaBeta
            | Algorithm::Expectimax
            | Algorithm::IterativeDeepening
            | Algorithm::Maxn => false,
        }
    }

    /// Whether it runs a number of iterations the settings give
    /// (`iterations`, required: MCTS, 8.4).
    pub fn takes_iterations(self) -> bool {
        self.draws_random()
    }

    /// Whether its values are vectors, one component per player, and the
    /// grader serves the number of players and each node's mover (8.3).
    /// It is also the only search that accepts a tree with `players`.
    pub fn vector_values(self) -> bool {
        match self {
            Algorithm::Maxn => true,
            Algorithm::Minimax
            | Algorithm::AlphaBeta
            | Algorithm::Expectimax
            | Algorithm::IterativeDeepening
            | Algorithm::Mcts => false,
        }
    }

    /// Whether it searches depth after depth (8.2): it needs a `depth` of
    /// at least 1, takes a node `budget` (the grader's clock), and its
    /// result lists its iterations.
    pub fn deepens(self) -> bool {
        match self {
            Algorithm::IterativeDeepening => true,
            Algorithm::Minimax | Algorithm::AlphaBeta | Algorithm::Expectimax | Algorithm::Maxn | Algorithm::Mcts => {
                false
            }
        }
    }

    /// Whether it takes a node budget (`budget`, 8.2).
    pub fn takes_budget(self) -> bool {
        self.deepens()
    }

    /// Whether it accepts a tree with chance nodes (3.1: minimax does not).
    pub fn accepts_chance(self) -> bool {
        match self {
            Algorithm::Minimax => false,
            Algorithm::AlphaBeta
            | Algorithm::Expectimax
            | Algorithm::IterativeDeepening
            | Algorithm::Maxn
            | Algorithm::Mcts => true,
        }
    }

    /// Whether it is the search written for chance nodes, whose MIN nodes a
    /// student can mistake for chance nodes (expectimax; CS188's ghosts at
    /// random).
    pub fn models_chance(self) -> bool {
        match self {
            Algorithm::Expectimax => true,
            Algorithm::Minimax
            | Algorithm::AlphaBeta
            | Algorithm::IterativeDeepening
            | Algorithm::Maxn
            | Algorithm::Mcts => false,
        }
    }

    /// Whether the order of a node's children decides what it searches
    /// (pruning, a previous choice first, or selection), so that a question
    /// may not let a program take them in any order.
    pub fn order_decides_search(self) -> bool {
        match self {
            Algorithm::AlphaBeta | Algorithm::IterativeDeepening | Algorithm::Mcts => true,
            Algorithm::Minimax | Algorithm::Expectimax | Algorithm::Maxn => false,
        }
    }

    /// Whether its root values are exact (no chance sums, no vectors, no
    /// counts), so a tie among the root's children is decided by 3.3 alone
    /// and a test can plant one: minimax and alphabeta.
    pub fn exact_root_ties(self) -> bool {
        match self {
            Algorithm::Minimax | Algorithm::AlphaBeta => true,
            Algorithm::Expectimax | Algorithm::IterativeDeepening | Algorithm::Maxn | Algorithm::Mcts => false,
        }
    }

    /// The same search with pruning, when a student may prune by mistake
    /// (minimax: alphabeta).
    pub fn pruned_form(self) -> Option<Algorithm> {
        match self {
            Algorithm::Minimax => Some(Algorithm::AlphaBeta),
            Algorithm::AlphaBeta
            | Algorithm::Expectimax
            | Algorithm::IterativeDeepening
            | Algorithm::Maxn
            | Algorithm::Mcts => None,
        }
    }

    /// The same search without pruning, when a student may forget to prune
    /// (alphabeta: minimax, or expectimax on a tree with chance nodes).
    pub fn unpruned_form(self, chance: bool) -> Option<Algorithm> {
        match self {
            Algorithm::AlphaBeta if chance => Some(Algorithm::Expectimax),
            Algorithm::AlphaBeta => Some(Algorithm::Minimax),
            Algorithm::Minimax
            | Algorithm::Expectimax
            | Algorithm::IterativeDeepening
            | Algorithm::Maxn
            | Algorithm::Mcts => None,
        }
    }

    /// Every name, in [`Algorithm::ALL`]'s order, as an error lists them:
    /// `minimax, alphabeta, ... or mcts`.
    pub fn listing() -> String {
        let names = Algorithm::ALL.map(Algorithm::name);
        let (last, rest) = names.split_last().expect("there are algorithms");
        format!("{} or {last}", rest.join(", "))
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An algorithm name that is not one of [`Algorithm::ALL`].
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("unknown algorithm `{0}` (expected {list})", list = Algorithm::listing())]
pub struct ParseAlgorithmError(pub String);

impl FromStr for Algorithm {
    type Err = ParseAlgorithmError;

    fn from_str(name: &str) -> Result<Algorithm, ParseAlgorithmError> {
        Algorithm::ALL
            .into_iter()
            .find(|algorithm| algorithm.name() == name)
            .ok_or_else(|| ParseAlgorithmError(name.to_string()))
    }
}

/// The exploration constant c of UCT when a file names none (docs/format.md 8.4): sqrt(2).
pub const DEFAULT_EXPLORATION: f64 = std::f64::consts::SQRT_2;

/// Everything a search needs besides the tree.
///
/// One file's `search:` block holds the settings of every search it
/// expects, so the settings travel together; which search reads which is
/// the table's answer ([`SETTINGS`], each entry's `takes`), asked of the
/// [`Algorithm`], never of its name: the other searches leave a setting
/// unread (docs/format.md 9), or refuse it where the entry says so.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchSettings {
    /// Which search.
    pub algorithm: Algorithm,
    /// Depth limit in plies (root = ply 0); `None` searches to the
    /// terminals. Where the search [`Algorithm::deepens`], its deepest
    /// iteration (8.2).
    pub depth: Option<u32>,
    /// Where the search [`Algorithm::prunes`]: prune when the value reaches
    /// the bound (`true`, AIMA) or only when it passes it (`false`, CS188).
    pub prune_on_equal: bool,
    /// Where the search [`Algorithm::orders_moves`]: the order of children
    /// (docs/format.md 8.1).
    pub move_ordering: MoveOrdering,
    /// Where the search [`Algorithm::forward_prunes`]: search only the N
    /// best children of each max or min node above the depth cut, by
    /// static value (docs/format.md 8.5); `None`: all of them.
    pub forward_pruning: Option<u32>,
    /// Where the search [`Algorithm::takes_budget`]: the most nodes it may
    /// enter in all its iterations (8.2); `None`: no budget.
    pub budget: Option<u64>,
    /// Where the search [`Algorithm::takes_iterations`] (MCTS, 8.4): how
    /// many; required there.
    pub iterations: Option<u32>,
    /// Where the search [`Algorithm::draws_random`]: the seed of the
    /// SplitMix64 stream it draws from (8.4).
    pub seed: u64,
    /// Where the search [`Algorithm::draws_random`]: UCT's exploration
    /// constant c (8.4).
    pub exploration: f64,
    /// Where the search [`Algorithm::deepens`]: each iteration searches
    /// first the root child the previous one chose (`true`, 8.2), or every
    /// iteration keeps the tree's order (`false`, MIT 6.034's progressive
    /// deepening).
    pub reorder_root: bool,
    /// Where the search [`Algorithm::deepens`]: no deeper iteration runs
    /// once one saw the whole tree (`true`, 8.2), or every depth to D runs
    /// (`false`).
    pub stop_when_complete: bool,
}

impl SearchSettings {
    /// Settings with docs/format.md's defaults: no depth limit, prune on
    /// equality, no budget, seed 0, exploration sqrt(2).
    pub fn new(algorithm: Algorithm) -> SearchSettings {
        SearchSettings {
            algorithm,
            depth: None,
            prune_on_equal: true,
            move_ordering: MoveOrdering::Tree,
            forward_pruning: None,
            budget: None,
            iterations: None,
            seed: 0,
            exploration: DEFAULT_EXPLORATION,
            reorder_root: true,
            stop_when_complete: true,
        }
    }

    /// Settings from a file's `search:` block (every setting of the table
    /// it gives), then explicit overrides of section 1's two keys.
    pub fn resolve(
        algorithm: Algorithm,
        defaults: SearchDefaults,
        depth: Option<u32>,
        prune_on_equal: Option<bool>,
    ) -> SearchSettings {
        let mut settings = SearchSettings::new(algorithm);
        for (key, value) in defaults.iter() {
            if let Some(setting) = Setting::named(key) {
                (setting.set)(&mut settings, value);
            }
        }
        if let Some(depth) = depth {
            settings.depth = Some(depth);
        }
        if let Some(prune_on_equal) = prune_on_equal {
            settings.prune_on_equal = prune_on_equal;
        }
        settings
    }

    /// Applies the settings an assignment's question gives (its `budget`,
    /// `iterations`, `seed` and `exploration`) over those resolved from a file.
    pub fn with_overrides(mut self, overrides: &SettingOverrides) -> SearchSettings {
        if let Some(budget) = overrides.budget {
            self.budget = Some(budget);
        }
        if let Some(iterations) = overrides.iterations {
            self.iterations = Some(iterations);
        }
        if let Some(seed) = overrides.seed {
            self.seed = seed;
        }
        if let Some(exploration) = overrides.exploration {
            self.exploration = exploration;
        }
        self
    }

    /// Whether the children of max and min nodes are searched by static
    /// value: under `move_ordering: eval` (8.1) or forward pruning, which
    /// implies it (8.5), for a search that orders at all.
    pub fn orders_by_static_value(&self) -> bool {
        self.algorithm.orders_moves() && (self.move_ordering == MoveOrdering::Eval || self.forward_pruning.is_some())
    }

    /// The settings that matter to this search, in words (`solve`'s
    /// `algorithm` line): `alphabeta (prunes on equality, depth limit 2)`.
    pub fn describe(&self) -> String {
        let depth = self.depth.map_or("no depth limit".to_string(), |d| format!("depth limit {d}"));
        let ordering = match (self.forward_pruning, self.move_ordering) {
            (Some(n), _) => format!(", forward pruning: the {n} best children by static value"),
            (None, MoveOrdering::Eval) => ", children by static value".to_string(),
            (None, MoveOrdering::Tree) => String::new(),
        };
        let rule = if self.prune_on_equal { "prunes on equality" } else { "prunes only on strict inequality" };
        match self.algorithm {
            Algorithm::AlphaBeta => format!("alphabeta ({rule}, {depth}{ordering})"),
            Algorithm::IterativeDeepening => {
                let deepest = self.depth.map_or("no depth".to_string(), |d| format!("depths 1 to {d}"));
                let budget = self.budget.map_or("no budget".to_string(), |b| format!("a budget of {b} nodes"));
                let root = if self.reorder_root { "" } else { ", the tree's order at the root" };
                let every = if self.stop_when_complete { "" } else { ", every depth run" };
                format!("iterative-deepening ({rule}, {deepest}, {budget}{root}{every})")
            }
            Algorithm::Maxn => format!("maxn ({depth})"),
            Algorithm::Mcts => format!(
                "mcts ({} iterations, seed {}, exploration {}, {depth})",
                self.iterations.unwrap_or(0),
                self.seed,
                self.exploration
            ),
            algorithm @ (Algorithm::Minimax | Algorithm::Expectimax) => format!("{algorithm} ({depth}{ordering})"),
        }
    }

    /// The first setting given that this search refuses (an entry with
    /// `refused` whose `takes` says no), as the error says it.
    pub fn refused_setting(&self) -> Option<SettingBeside> {
        SETTINGS.iter().find_map(|setting| {
            let refused = setting.refused.is_some() && !(setting.takes)(self.algorithm);
            (refused && (setting.get)(self).is_some())
                .then_some(SettingBeside { key: setting.key, algorithm: self.algorithm })
        })
    }
}

/// Settings an assignment's question gives (docs/format.md section 8 keys
/// of a question), each overriding the file's `search:` key of the same
/// name when present.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SettingOverrides {
    /// `budget` (8.2).
    pub budget: Option<u64>,
    /// `iterations` (8.4).
    pub iterations: Option<u32>,
    /// `seed` (8.4).
    pub seed: Option<u64>,
    /// `exploration` (8.4).
    pub exploration: Option<f64>,
}

/// A setting given beside a search that does not take it and refuses it
/// (its table entry's `refused`): invalid input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
#[error(
    "`{key}` is a setting of {} only (docs/format.md {}), not of {algorithm}",
    Setting::named(.key).map_or(String::new(), Setting::searches),
    Setting::named(.key).and_then(|setting| setting.refused).unwrap_or("8")
)]
pub struct SettingBeside {
    /// The setting's key.
    pub key: &'static str,
    /// The search that does not take it.
    pub algorithm: Algorithm,
}

/// An exploration constant UCT cannot use.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
#[error("`exploration` is {0}, but UCT's constant c must be a finite number, 0 or more")]
pub struct BadExploration(pub f64);

/// UCT's exploration constant must be a finite number, 0 or more (0: no exploration).
pub fn check_exploration(exploration: f64) -> Result<(), BadExploration> {
    if exploration.is_finite() && exploration >= 0.0 { Ok(()) } else { Err(BadExploration(exploration)) }
}

/// What kind of value a setting takes, as a file writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `true` or `false`.
    Flag,
    /// A whole number, 0 to `u32::MAX`.
    Whole32,
    /// A whole number, 0 to `u64::MAX`.
    Whole64,
    /// A whole number from `min` to `u32::MAX`, written as a YAML integer
    /// (`2`, not `2.0` or `"2"`); any other value is refused with
    /// `meaning`, what the number is.
    Integer {
        /// The least value.
        min: u64,
        /// What the number is, for the error: "how many children ...".
        meaning: &'static str,
    },
    /// A number.
    Real,
    /// A move ordering's name (`eval`, `tree`).
    Ordering,
}

/// How a setting travels in one place (the protocol's `search` message,
/// `solve --format json`): the value to write, or nothing.
pub type Shown = fn(&SearchSettings) -> Option<SettingValue>;

/// How one command line (`solve`, `gen`) offers a setting as a flag.
#[derive(Clone, Copy, Debug)]
pub struct Flag {
    /// Where it stands among the command's flags (the command's own flags
    /// have ranks too), so that `--help` lists them in one order.
    pub rank: u8,
    /// The flag's name without `--`.
    pub long: &'static str,
    /// The value's name in `--help` (`N`).
    pub value_name: &'static str,
    /// The line `--help` shows.
    pub help: &'static str,
    /// How the value is parsed.
    pub parse: FlagParse,
}

/// How a flag's value is parsed (beyond its [`Kind`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlagParse {
    /// The kind's own parser (the command line adds its whole-number check).
    Plain,
    /// A whole number of at least this, negative numbers reaching the parser.
    AtLeast(u64),
    /// The kind's own parser, negative numbers reaching it.
    Negative,
    /// A number checked by the setting's `check`, negative numbers reaching it.
    Checked,
}

/// One setting of searches: a key of docs/format.md's `search:` block and
/// everything each layer needs to read, check, carry and offer it. The
/// loader, `SearchDefaults`, the protocol's `search` message, `solve` and
/// `gen` iterate [`SETTINGS`]; adding a setting is an entry there, its field
/// in [`SearchSettings`], and the engine that reads it.
#[derive(Clone, Copy, Debug)]
pub struct Setting {
    /// The key, as in `search:`, the protocol and `solve`'s JSON.
    pub key: &'static str,
    /// What the file writes.
    pub kind: Kind,
    /// One line for the docs: what it is, with its section of docs/format.md.
    pub doc: &'static str,
    /// Which searches read it.
    pub takes: fn(Algorithm) -> bool,
    /// `Some(section)`: beside a search that does not take it, the setting
    /// is invalid input (the loader and the engine refuse it); `None`: the
    /// other searches leave it unread.
    pub refused: Option<&'static str>,
    /// Its range: why a value is out of it (a message without `in \`search\`: `).
    pub check: fn(SettingValue) -> Result<(), OutOfRange>,
    /// Its value in settings; `None` when it is unset (no default value).
    pub get: fn(&SearchSettings) -> Option<SettingValue>,
    /// Sets it in settings (a value of another kind is ignored: the loader
    /// reads each key by its kind).
    pub set: fn(&mut SearchSettings, SettingValue),
    /// What the protocol's `search` message carries (docs/protocol.md),
    /// after section 1's `depth` and `prune_on_equal`, which every message
    /// has; `None`: nothing.
    pub wire: Option<Shown>,
    /// What `solve --format json` writes after `depth` and `prune_on_equal`.
    pub shown: Option<Shown>,
    /// Its flag in `solve`, if any.
    pub solve: Option<Flag>,
    /// Its flag in `gen`, written into each generated file's `search:`.
    pub generate: Option<Flag>,
}

/// Every setting of searches, in the order a file's `search:` block is
/// written (and the protocol and `solve`'s JSON list what they carry).
pub const SETTINGS: [Setting; 10] = [
    Setting {
        key: SearchDefaults::PRUNE_ON_EQUAL,
        kind: Kind::Flag,
        doc: "the pruning convention: prune when a value reaches the bound (true) or only passes it (3.2)",
        takes: Algorithm::prunes,
        refused: None,
        check: accept,
        get: |s| Some(SettingValue::Flag(s.prune_on_equal)),
        set: |s, v| s.prune_on_equal = flag(v).unwrap_or(s.prune_on_equal),
        wire: None,
        shown: None,
        solve: Some(Flag {
            rank: 11,
            long: "prune-on-equal",
            value_name: "true|false",
            help: "Alpha-beta pruning on equality; overrides the file's `search.prune_on_equal`",
            parse: FlagParse::Plain,
        }),
        generate: Some(Flag {
            rank: 11,
            long: "prune-on-equal",
            value_name: "true|false",
            help: "Write a pruning convention into each file's `search` block",
            parse: FlagParse::Plain,
        }),
    },
    Setting {
        key: SearchDefaults::DEPTH,
        kind: Kind::Whole32,
        doc: "the depth limit in plies, root = ply 0; iterative deepening's deepest iteration (1, 8.2)",
        takes: |_| true,
        refused: None,
        check: accept,
        get: |s| s.depth.map(whole),
        set: |s, v| s.depth = whole32(v).or(s.depth),
        wire: None,
        shown: None,
        solve: Some(Flag {
            rank: 10,
            long: "depth",
            value_name: "DEPTH",
            help: "Depth limit in plies (root = ply 0); overrides the file's `search.depth`",
            parse: FlagParse::Plain,
        }),
        generate: Some(Flag {
            rank: 10,
            long: "cut",
            value_name: "PLIES",
            help: "Write a depth limit into each file's `search` block (implies --evals)",
            parse: FlagParse::Plain,
        }),
    },
    Setting {
        key: "move_ordering",
        kind: Kind::Ordering,
        doc: "`eval`: the children of max and min nodes searched by static value, best first (8.1)",
        takes: Algorithm::orders_moves,
        refused: None,
        check: accept,
        get: |s| Some(SettingValue::Ordering(s.move_ordering)),
        set: |s, v| {
            if let SettingValue::Ordering(ordering) = v {
                s.move_ordering = ordering;
            }
        },
        wire: Some(|s| s.orders_by_static_value().then_some(SettingValue::Ordering(MoveOrdering::Eval))),
        shown: Some(|s| {
            (s.move_ordering == MoveOrdering::Eval || s.forward_pruning.is_some())
                .then_some(SettingValue::Ordering(MoveOrdering::Eval))
        }),
        solve: Some(Flag {
            rank: 12,
            long: "move-ordering",
            value_name: "eval|tree",
            help: "Search children by static value (`eval`, docs/format.md 8.1) or in the tree's order (`tree`); \
                   overrides the file's `search.move_ordering`",
            parse: FlagParse::Plain,
        }),
        generate: None,
    },
    Setting {
        key: "forward_pruning",
        kind: Kind::Integer {
            min: 1,
            meaning: "how many children forward pruning searches at each max or min node: a whole number, \
                      at least 1, written as a YAML integer (docs/format.md 8.5)",
        },
        doc: "N: only the N best children of each max or min node above the depth cut searched, by static value (8.5)",
        takes: Algorithm::forward_prunes,
        refused: Some("8.5"),
        check: accept,
        get: |s| s.forward_pruning.map(whole),
        set: |s, v| s.forward_pruning = whole32(v).or(s.forward_pruning),
        wire: Some(|s| s.forward_pruning.map(whole)),
        shown: Some(|s| s.forward_pruning.map(whole)),
        solve: Some(Flag {
            rank: 13,
            long: "forward-pruning",
            value_name: "N",
            help: "Forward pruning: search only the N best children of each max or min node by static value \
                   (docs/format.md 8.5; minimax, alphabeta and expectimax); overrides the file's \
                   `search.forward_pruning`",
            parse: FlagParse::AtLeast(1),
        }),
        generate: Some(Flag {
            rank: 34,
            long: "forward-pruning",
            value_name: "N",
            help: "Forward pruning's N (docs/format.md 8.5), written into each file's `search` block (implies \
                   --evals): minimax, alphabeta and expectimax are expected with only the N best children searched",
            parse: FlagParse::AtLeast(1),
        }),
    },
    Setting {
        key: "budget",
        kind: Kind::Whole64,
        doc: "the most nodes iterative deepening may enter in all its iterations, the grader's clock (8.2)",
        takes: Algorithm::takes_budget,
        refused: None,
        check: |v| at_least(v, 1, "`budget` is the most nodes a search may enter, at least 1"),
        get: |s| s.budget.map(SettingValue::Whole),
        set: |s, v| s.budget = whole64(v).or(s.budget),
        wire: Some(|s| s.budget.map(SettingValue::Whole)),
        shown: Some(|s| s.budget.filter(|_| s.algorithm.takes_budget()).map(SettingValue::Whole)),
        solve: Some(Flag {
            rank: 30,
            long: "budget",
            value_name: "NODES",
            help: "Iterative deepening's node budget: the most nodes its iterations may enter in all \
                   (docs/format.md 8.2); overrides the file's `search.budget`",
            parse: FlagParse::AtLeast(1),
        }),
        generate: Some(Flag {
            rank: 30,
            long: "budget",
            value_name: "NODES",
            help: "Iterative deepening's node budget, written into each file's `search` block",
            parse: FlagParse::AtLeast(1),
        }),
    },
    Setting {
        key: "iterations",
        kind: Kind::Whole32,
        doc: "how many iterations MCTS runs, required there (8.4)",
        takes: Algorithm::takes_iterations,
        refused: None,
        check: |v| at_least(v, 1, "`iterations` (of MCTS) must be at least 1"),
        get: |s| s.iterations.map(whole),
        set: |s, v| s.iterations = whole32(v).or(s.iterations),
        wire: Some(|s| s.iterations.filter(|_| s.algorithm.takes_iterations()).map(whole)),
        shown: None,
        solve: Some(Flag {
            rank: 31,
            long: "iterations",
            value_name: "N",
            help: "MCTS's number of iterations (8.4); overrides the file's `search.iterations`",
            parse: FlagParse::AtLeast(1),
        }),
        generate: Some(Flag {
            rank: 31,
            long: "iterations",
            value_name: "N",
            help: "MCTS's iterations, written into each file's `search` block",
            parse: FlagParse::AtLeast(1),
        }),
    },
    Setting {
        key: "seed",
        kind: Kind::Whole64,
        doc: "the seed of the SplitMix64 stream MCTS draws from, 0 to 2^64 - 1 (8.4)",
        takes: Algorithm::draws_random,
        refused: None,
        check: accept,
        get: |s| Some(SettingValue::Whole(s.seed)),
        set: |s, v| s.seed = whole64(v).unwrap_or(s.seed),
        wire: None,
        shown: Some(|s| s.algorithm.draws_random().then_some(SettingValue::Whole(s.seed))),
        solve: Some(Flag {
            rank: 32,
            long: "seed",
            value_name: "S",
            help: "The seed of MCTS's SplitMix64 draws, 0 to 2^64 - 1 (8.4); overrides the file's `search.seed` \
                   (default 0)",
            parse: FlagParse::Negative,
        }),
        generate: Some(Flag {
            rank: 32,
            long: "search-seed",
            value_name: "S",
            help: "MCTS's seed (the draws' stream, not the trees'), written into each file's `search` block",
            parse: FlagParse::Plain,
        }),
    },
    Setting {
        key: "exploration",
        kind: Kind::Real,
        doc: "UCT's exploration constant c, a finite number, 0 or more (8.4)",
        takes: Algorithm::draws_random,
        refused: None,
        check: |v| match v {
            SettingValue::Real(c) => Ok(check_exploration(c)?),
            _ => Ok(()),
        },
        get: |s| Some(SettingValue::Real(s.exploration)),
        set: |s, v| {
            if let SettingValue::Real(c) = v {
                s.exploration = c;
            }
        },
        wire: Some(|s| s.algorithm.draws_random().then_some(SettingValue::Real(s.exploration))),
        shown: Some(|s| s.algorithm.draws_random().then_some(SettingValue::Real(s.exploration))),
        solve: Some(Flag {
            rank: 33,
            long: "exploration",
            value_name: "C",
            help: "UCT's exploration constant c (8.4); overrides the file's `search.exploration` (default sqrt(2))",
            parse: FlagParse::Checked,
        }),
        generate: Some(Flag {
            rank: 33,
            long: "exploration",
            value_name: "C",
            help: "MCTS's exploration constant, written into each file's `search` block",
            parse: FlagParse::Plain,
        }),
    },
    Setting {
        key: "reorder_root",
        kind: Kind::Flag,
        doc: "false: every iteration of iterative deepening searches the root's children in the tree's order, \
              not the previous choice first (8.2)",
        takes: Algorithm::deepens,
        refused: None,
        check: accept,
        get: |s| Some(SettingValue::Flag(s.reorder_root)),
        set: |s, v| s.reorder_root = flag(v).unwrap_or(s.reorder_root),
        wire: Some(|s| (s.algorithm.deepens() && !s.reorder_root).then_some(SettingValue::Flag(false))),
        shown: Some(|s| (s.algorithm.deepens() && !s.reorder_root).then_some(SettingValue::Flag(false))),
        solve: Some(Flag {
            rank: 34,
            long: "reorder-root",
            value_name: "true|false",
            help: "Iterative deepening: search the previous iteration's choice first at the root (true, \
                   docs/format.md 8.2) or keep the tree's order (false); overrides the file's `search.reorder_root`",
            parse: FlagParse::Plain,
        }),
        generate: None,
    },
    Setting {
        key: "stop_when_complete",
        kind: Kind::Flag,
        doc: "false: iterative deepening runs every depth to D, even after an iteration saw the whole tree (8.2)",
        takes: Algorithm::deepens,
        refused: None,
        check: accept,
        get: |s| Some(SettingValue::Flag(s.stop_when_complete)),
        set: |s, v| s.stop_when_complete = flag(v).unwrap_or(s.stop_when_complete),
        wire: Some(|s| (s.algorithm.deepens() && !s.stop_when_complete).then_some(SettingValue::Flag(false))),
        shown: Some(|s| (s.algorithm.deepens() && !s.stop_when_complete).then_some(SettingValue::Flag(false))),
        solve: Some(Flag {
            rank: 35,
            long: "stop-when-complete",
            value_name: "true|false",
            help: "Iterative deepening: stop once an iteration saw the whole tree (true, docs/format.md 8.2) or \
                   run every depth to --depth (false); overrides the file's `search.stop_when_complete`",
            parse: FlagParse::Plain,
        }),
        generate: None,
    },
];

impl Setting {
    /// The setting whose key is `key`.
    pub fn named(key: &str) -> Option<&'static Setting> {
        SETTINGS.iter().find(|setting| setting.key == key)
    }

    /// The searches that read it, in words: "minimax, alphabeta and expectimax".
    pub fn searches(&self) -> String {
        let names: Vec<&str> = Algorithm::ALL.into_iter().filter(|&a| (self.takes)(a)).map(Algorithm::name).collect();
        match names.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
            _ => names.concat(),
        }
    }

    /// Whether a search of section 3 reads it (`solve` and `gen` list these
    /// flags before those of section 8's searches alone).
    pub fn of_classic_searches(&self) -> bool {
        Algorithm::CLASSIC.into_iter().any(|algorithm| (self.takes)(algorithm))
    }

    /// A value the flag `--LONG` gave, checked against the setting's range
    /// (`--exploration: ...` when it is out of it).
    pub fn check_flag(&self, long: &str, value: SettingValue) -> Result<(), FlagOutOfRange> {
        (self.check)(value).map_err(|source| FlagOutOfRange { long: long.to_string(), source })
    }
}

/// A setting's value out of its range, in words without where it was
/// written (the loader adds `in \`search\`: `, a flag its name).
#[derive(Clone, Copy, Debug, PartialEq, Error)]
pub enum OutOfRange {
    /// A whole number under the least the setting takes.
    #[error("{meaning}")]
    Below {
        /// The least value.
        min: u64,
        /// What the number is and its least value, for the reader.
        meaning: &'static str,
    },
    /// An exploration constant UCT cannot use.
    #[error(transparent)]
    Exploration(#[from] BadExploration),
}

/// A flag's value out of its setting's range: `--LONG: why`.
#[derive(Clone, Debug, PartialEq, Error)]
#[error("--{long}: {source}")]
pub struct FlagOutOfRange {
    /// The flag's name without `--`.
    pub long: String,
    /// Why the value is out of range.
    #[source]
    pub source: OutOfRange,
}

/// A value of any kind is in range.
fn accept(_: SettingValue) -> Result<(), OutOfRange> {
    Ok(())
}

/// A whole number of at least `min`, or `meaning` (what the number is).
fn at_least(value: SettingValue, min: u64, meaning: &'static str) -> Result<(), OutOfRange> {
    match value {
        SettingValue::Whole(n) if n < min => Err(OutOfRange::Below { min, meaning }),
        _ => Ok(()),
    }
}

/// A `u32` as a setting's value.
fn whole(n: u32) -> SettingValue {
    SettingValue::Whole(u64::from(n))
}

fn whole32(value: SettingValue) -> Option<u32> {
    whole64(value).and_then(|n| u32::try_from(n).ok())
}

fn whole64(value: SettingValue) -> Option<u64> {
    match value {
        SettingValue::Whole(n) => Some(n),
        _ => None,
    }
}

fn flag(value: SettingValue) -> Option<bool> {
    match value {
        SettingValue::Flag(flag) => Some(flag),
        _ => None,
    }
}

/// A setting's value in JSON (the protocol's `search` message, `solve`'s
/// output): a number, `true`/`false`, or a move ordering's name.
impl serde::Serialize for SettingValue {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match *self {
            SettingValue::Flag(flag) => serializer.serialize_bool(flag),
            SettingValue::Whole(n) => serializer.serialize_u64(n),
            SettingValue::Real(x) => serializer.serialize_f64(x),
            SettingValue::Ordering(ordering) => serializer.serialize_str(ordering.name()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for algorithm in Algorithm::ALL {
            assert_eq!(algorithm.name().parse::<Algorithm>(), Ok(algorithm));
        }
        assert!("alpha-beta".parse::<Algorithm>().is_err());
    }

    #[test]
    fn the_unknown_name_error_lists_every_algorithm() {
        let error = "negamax".parse::<Algorithm>().unwrap_err().to_string();
        assert_eq!(
            error,
            "unknown algorithm `negamax` (expected minimax, alphabeta, expectimax, iterative-deepening, maxn or mcts)"
        );
    }

    #[test]
    fn classic_lists_the_classic_searches() {
        let classic: Vec<Algorithm> = Algorithm::ALL.into_iter().filter(|a| a.is_classic()).collect();
        assert_eq!(classic, Algorithm::CLASSIC);
    }

    #[test]
    fn capabilities_say_what_each_search_takes() {
        let with = |capability: fn(Algorithm) -> bool| -> Vec<&str> {
            Algorithm::ALL.into_iter().filter(|&a| capability(a)).map(Algorithm::name).collect()
        };
        assert_eq!(with(Algorithm::prunes), ["alphabeta", "iterative-deepening"]);
        assert_eq!(with(Algorithm::draws_random), ["mcts"]);
        assert_eq!(with(Algorithm::vector_values), ["maxn"]);
        assert_eq!(with(Algorithm::takes_budget), ["iterative-deepening"]);
        assert_eq!(with(Algorithm::accepts_chance).len(), 5);
        assert_eq!(with(Algorithm::exact_root_ties), ["minimax", "alphabeta"]);
        assert_eq!(Algorithm::Minimax.pruned_form(), Some(Algorithm::AlphaBeta));
        assert_eq!(Algorithm::AlphaBeta.unpruned_form(true), Some(Algorithm::Expectimax));
    }

    #[test]
    fn flags_override_file_defaults() {
        let defaults = SearchDefaults::of(Some(3), Some(false));
        let from_file = SearchSettings::resolve(Algorithm::AlphaBeta, defaults, None, None);
        assert_eq!((from_file.depth, from_file.prune_on_equal), (Some(3), false));
        let overridden = SearchSettings::resolve(Algorithm::AlphaBeta, defaults, Some(1), Some(true));
        assert_eq!((overridden.depth, overridden.prune_on_equal), (Some(1), true));
        let bare = SearchSettings::resolve(Algorithm::AlphaBeta, SearchDefaults::default(), None, None);
        assert_eq!((bare.depth, bare.prune_on_equal), (None, true));
    }

    #[test]
    fn the_table_has_one_entry_per_key_and_fits_search_defaults() {
        let mut keys: Vec<&str> = SETTINGS.iter().map(|setting| setting.key).collect();
        assert!(keys.len() < SearchDefaults::CAPACITY);
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), SETTINGS.len());
        let format = include_str!("../../docs/format.md");
        for setting in &SETTINGS {
            assert!(format.contains(&format!("`{}", setting.key)), "docs/format.md names no `{}`", setting.key);
            assert!(
                !setting.doc.is_empty() && setting.doc.contains(')'),
                "{}: the doc line names its section",
                setting.key
            );
        }
    }

    #[test]
    fn each_setting_reads_back_what_it_sets() {
        let given = SearchSettings {
            depth: Some(3),
            prune_on_equal: false,
            move_ordering: MoveOrdering::Eval,
            forward_pruning: Some(2),
            budget: Some(40),
            iterations: Some(9),
            seed: 7,
            exploration: 0.5,
            reorder_root: false,
            stop_when_complete: false,
            ..SearchSettings::new(Algorithm::AlphaBeta)
        };
        let mut defaults = SearchDefaults::default();
        for setting in &SETTINGS {
            let value = (setting.get)(&given).expect("every setting is given");
            defaults.set(setting.key, value);
        }
        assert_eq!(SearchSettings::resolve(Algorithm::AlphaBeta, defaults, None, None), given);
    }

    #[test]
    fn a_refused_setting_is_refused_beside_the_searches_that_do_not_take_it() {
        let forward = SearchSettings { forward_pruning: Some(2), ..SearchSettings::new(Algorithm::Maxn) };
        let refused = forward.refused_setting().expect("max^n refuses forward pruning");
        assert_eq!(
            refused.to_string(),
            "`forward_pruning` is a setting of minimax, alphabeta and expectimax only (docs/format.md 8.5), not of maxn"
        );
        assert_eq!(SearchSettings { algorithm: Algorithm::Minimax, ..forward }.refused_setting(), None);
        // Unread elsewhere, never refused: a budget beside minimax.
        let budget = SearchSettings { budget: Some(9), ..SearchSettings::new(Algorithm::Minimax) };
        assert_eq!(budget.refused_setting(), None);
    }

    #[test]
    fn a_value_out_of_range_says_why_and_a_flag_adds_its_name() {
        use std::error::Error as _;
        let iterations = Setting::named("iterations").expect("a setting");
        let below = (iterations.check)(SettingValue::Whole(0)).unwrap_err();
        assert_eq!(below.to_string(), "`iterations` (of MCTS) must be at least 1");
        assert_eq!((iterations.check)(SettingValue::Whole(1)), Ok(()));
        let exploration = Setting::named("exploration").expect("a setting");
        let flag = exploration.check_flag("exploration", SettingValue::Real(-1.0)).unwrap_err();
        assert_eq!(
            flag.to_string(),
            "--exploration: `exploration` is -1, but UCT's constant c must be a finite number, 0 or more"
        );
        assert_eq!(
            flag.source().map(ToString::to_string),
            Some(OutOfRange::Exploration(BadExploration(-1.0)).to_string())
        );
        assert_eq!(exploration.check_flag("exploration", SettingValue::Real(0.0)), Ok(()));
    }
}
