//! Which search to run, and with which limits.

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

pub use crate::tree::MoveOrdering;
use crate::tree::SearchDefaults;

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
/// asked of the [`Algorithm`], never of its name: `prune_on_equal` is read
/// where [`Algorithm::prunes`], `move_ordering` where
/// [`Algorithm::orders_moves`], `forward_pruning` where
/// [`Algorithm::forward_prunes`] (elsewhere it is refused), `budget` where [`Algorithm::takes_budget`],
/// `iterations` where [`Algorithm::takes_iterations`], `seed` and
/// `exploration` where [`Algorithm::draws_random`] (docs/format.md 9: the
/// other searches leave them unread).
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
        }
    }

    /// Settings from a file's `search:` block, then explicit overrides.
    pub fn resolve(
        algorithm: Algorithm,
        defaults: SearchDefaults,
        depth: Option<u32>,
        prune_on_equal: Option<bool>,
    ) -> SearchSettings {
        SearchSettings {
            algorithm,
            depth: depth.or(defaults.depth),
            prune_on_equal: prune_on_equal.or(defaults.prune_on_equal).unwrap_or(true),
            move_ordering: defaults.move_ordering.unwrap_or_default(),
            forward_pruning: defaults.forward_pruning,
            budget: defaults.budget,
            iterations: defaults.iterations,
            seed: defaults.seed.unwrap_or(0),
            exploration: defaults.exploration.unwrap_or(DEFAULT_EXPLORATION),
        }
    }

    /// Applies the settings of section 8 given explicitly (flags, or an
    /// assignment question's keys) over those resolved from a file.
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
        if let Some(ordering) = overrides.move_ordering {
            self.move_ordering = ordering;
        }
        if let Some(n) = overrides.forward_pruning {
            self.forward_pruning = Some(n);
        }
        self
    }

    /// Whether the children of max and min nodes are searched by static
    /// value: under `move_ordering: eval` (8.1) or forward pruning, which
    /// implies it (8.5), for a search that orders at all.
    pub fn orders_by_static_value(&self) -> bool {
        self.algorithm.orders_moves() && (self.move_ordering == MoveOrdering::Eval || self.forward_pruning.is_some())
    }
}

/// Settings of docs/format.md section 8 given explicitly, each overriding
/// the file's `search:` key of the same name when present.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SettingOverrides {
    /// `--budget` (8.2).
    pub budget: Option<u64>,
    /// `--iterations` (8.4).
    pub iterations: Option<u32>,
    /// `--seed` (8.4).
    pub seed: Option<u64>,
    /// `--exploration` (8.4).
    pub exploration: Option<f64>,
    /// `--move-ordering` (8.1).
    pub move_ordering: Option<MoveOrdering>,
    /// `--forward-pruning` (8.5).
    pub forward_pruning: Option<u32>,
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
        let defaults = SearchDefaults { prune_on_equal: Some(false), depth: Some(3), ..SearchDefaults::default() };
        let from_file = SearchSettings::resolve(Algorithm::AlphaBeta, defaults, None, None);
        assert_eq!((from_file.depth, from_file.prune_on_equal), (Some(3), false));
        let overridden = SearchSettings::resolve(Algorithm::AlphaBeta, defaults, Some(1), Some(true));
        assert_eq!((overridden.depth, overridden.prune_on_equal), (Some(1), true));
        let bare = SearchSettings::resolve(Algorithm::AlphaBeta, SearchDefaults::default(), None, None);
        assert_eq!((bare.depth, bare.prune_on_equal), (None, true));
    }
}
