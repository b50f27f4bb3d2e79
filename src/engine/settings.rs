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
    /// two-player tree is checked under when its file expects nothing.
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
        matches!(self, Algorithm::AlphaBeta | Algorithm::IterativeDeepening)
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An algorithm name that is not one of [`Algorithm::ALL`].
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("unknown algorithm `{0}` (expected minimax, alphabeta, expectimax, iterative-deepening, maxn or mcts)")]
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
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchSettings {
    /// Which search.
    pub algorithm: Algorithm,
    /// Depth limit in plies (root = ply 0); `None` searches to the terminals.
    /// Iterative deepening's deepest iteration (8.2).
    pub depth: Option<u32>,
    /// Alpha-beta prunes when the value reaches the bound (`true`, AIMA) or
    /// only when it passes it (`false`, CS188).
    pub prune_on_equal: bool,
    /// The order of children (docs/format.md 8.1).
    pub move_ordering: MoveOrdering,
    /// The most nodes iterative deepening may enter in all its iterations
    /// (8.2); `None`: no budget. Other searches ignore it.
    pub budget: Option<u64>,
    /// MCTS's number of iterations (8.4); required there, ignored elsewhere.
    pub iterations: Option<u32>,
    /// The seed of the SplitMix64 stream MCTS draws from (8.4).
    pub seed: u64,
    /// UCT's exploration constant c (8.4).
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
        self
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
