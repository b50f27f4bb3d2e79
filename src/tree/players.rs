//! The players of a max^n tree (docs/format.md 8.3): how many there are,
//! who moves at each node, and each node's utility vector (a terminal's
//! utilities, an internal node's `eval`).
//!
//! A written max^n tree is an ordinary [`super::Tree`] beside this table:
//! player 1's nodes are max nodes and every other player's are min nodes
//! (so that pictures and the two-player reading agree), a terminal's scalar
//! utility is its first component, and the table says the rest.

use std::collections::HashMap;

use super::build::{BuildError, BuildErrorKind, Site};

/// The players of a written max^n tree, per arena node.
#[derive(Clone, Debug, PartialEq)]
pub struct Players {
    count: u32,
    /// The player to move (1-based) at each node; 0 at chance nodes and terminals.
    movers: Vec<u32>,
    /// A terminal's utilities or an internal node's eval, per node.
    vectors: Vec<Option<Box<[f64]>>>,
}

impl Players {
    /// How many players (2 or more).
    pub fn count(&self) -> u32 {
        self.count
    }

    /// The player to move at arena node `index` (1-based), if a player moves there.
    pub fn mover(&self, index: usize) -> Option<u32> {
        self.movers.get(index).copied().filter(|&player| player > 0)
    }

    /// The vector of arena node `index`: a terminal's utilities or an internal node's eval.
    pub fn vector(&self, index: usize) -> Option<&[f64]> {
        self.vectors.get(index).and_then(|vector| vector.as_deref())
    }
}

/// What a producer says of a max^n tree's nodes, by [`Site`]: the mover
/// of a node spec, and the vector of a node spec or of an inline leaf.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PlayerSpecs {
    /// How many players.
    pub count: u32,
    /// The mover (1-based) of each player node's spec, by spec index.
    pub movers: HashMap<usize, u32>,
    /// Vectors by where they are written: `Site::Node` for a node spec (a
    /// terminal's utilities or an eval), `Site::Child` for an inline leaf.
    pub vectors: HashMap<Site, Vec<f64>>,
}

impl PlayerSpecs {
    /// Checks every vector's length and numbers, and every mover's range.
    pub(super) fn check(&self, ids: impl Fn(Site) -> String, errors: &mut Vec<BuildError>) {
        for (&spec, &player) in &self.movers {
            if player == 0 || player > self.count {
                let site = Site::Node(spec);
                errors.push(BuildError {
                    site,
                    kind: BuildErrorKind::NoSuchPlayer { id: ids(site), player, players: self.count },
                });
            }
        }
        for (&site, vector) in &self.vectors {
            if vector.len() != self.count as usize {
                errors.push(BuildError {
                    site,
                    kind: BuildErrorKind::VectorLength { id: ids(site), length: vector.len(), players: self.count },
                });
            }
            if let Some(&value) = vector.iter().find(|value| !value.is_finite()) {
                errors.push(BuildError {
                    site,
                    kind: BuildErrorKind::NotFinite { id: ids(site), what: "a vector's component".into(), value },
                });
            }
        }
    }

    /// The table by arena node, given where each node came from.
    pub(super) fn lay_out(mut self, origins: &[Site]) -> Players {
        let movers = origins
            .iter()
            .map(|site| match site {
                Site::Node(spec) => self.movers.get(spec).copied().unwrap_or(0),
                _ => 0,
            })
            .collect();
        let vectors = origins.iter().map(|site| self.vectors.remove(site).map(Vec::into_boxed_slice)).collect();
        Players { count: self.count, movers, vectors }
    }
}
