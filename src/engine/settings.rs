//! Which search to run, and with which limits.

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

pub use crate::tree::MoveOrdering;
use crate::tree::SearchDefaults;

/// The three searches of docs/format.md section 3.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Algorithm {
    /// Plain minimax (no chance nodes).
    Minimax,
    /// Minimax with alpha-beta pruning.
    AlphaBeta,
    /// Expectiminimax: max, min and chance nodes.
    Expectimax,
}

impl Algorithm {
    /// Every algorithm, in a stable order.
    pub const ALL: [Algorithm; 3] = [Algorithm::Minimax, Algorithm::AlphaBeta, Algorithm::Expectimax];

    /// What it is, in a few words (for `--help`).
    pub fn description(self) -> &'static str {
        match self {
            Algorithm::Minimax => "Plain minimax",
            Algorithm::AlphaBeta => "Alpha-beta pruning",
            Algorithm::Expectimax => "Expectimax (max, min and chance nodes)",
        }
    }

    /// The name used in files, flags and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Minimax => "minimax",
            Algorithm::AlphaBeta => "alphabeta",
            Algorithm::Expectimax => "expectimax",
        }
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An algorithm name that is not one of the three.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("unknown algorithm `{0}` (expected minimax, alphabeta or expectimax)")]
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

/// Everything a search needs besides the tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchSettings {
    /// Which search.
    pub algorithm: Algorithm,
    /// Depth limit in plies (root = ply 0); `None` searches to the terminals.
    pub depth: Option<u32>,
    /// Alpha-beta prunes when the value reaches the bound (`true`, AIMA) or
    /// only when it passes it (`false`, CS188).
    pub prune_on_equal: bool,
    /// The order of children (docs/format.md 8.1).
    pub move_ordering: MoveOrdering,
}

impl SearchSettings {
    /// Settings with docs/format.md's defaults: no depth limit, prune on equality.
    pub fn new(algorithm: Algorithm) -> SearchSettings {
        SearchSettings { algorithm, depth: None, prune_on_equal: true, move_ordering: MoveOrdering::Tree }
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
    fn flags_override_file_defaults() {
        let defaults = SearchDefaults { prune_on_equal: Some(false), depth: Some(3), move_ordering: None };
        let from_file = SearchSettings::resolve(Algorithm::AlphaBeta, defaults, None, None);
        assert_eq!((from_file.depth, from_file.prune_on_equal), (Some(3), false));
        let overridden = SearchSettings::resolve(Algorithm::AlphaBeta, defaults, Some(1), Some(true));
        assert_eq!((overridden.depth, overridden.prune_on_equal), (Some(1), true));
        let bare = SearchSettings::resolve(Algorithm::AlphaBeta, SearchDefaults::default(), None, None);
        assert_eq!((bare.depth, bare.prune_on_equal), (None, true));
    }
}
