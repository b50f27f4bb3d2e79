//! Near ties and fragile trees (docs/format.md section 2.1).
//!
//! A chance value can differ in its last bits between correct
//! implementations (another summation order, a fused multiply-add, Python's
//! `math.fsum`). A tree on which a search decision rests on such bits would
//! grade the same code differently on two machines, so it is refused. The
//! search carries an error bound beside every value, as 2.1 defines it, and
//! reports the first comparison whose two sides' intervals overlap while not
//! both being exact.
//!
//! The bookkeeping lives here, beside the search's frames, and runs only when
//! asked for ([`super::fragility`]): the plain search's hot path is unchanged.

use super::SearchSettings;
use crate::tree::{GameTree, NodeIndex};

/// A comparison of the search that a last-bit difference could turn around.
#[derive(Clone, Debug, PartialEq)]
pub struct FragileComparison {
    /// The max or min node where the comparison is made.
    pub node: NodeIndex,
    /// What is compared: "a child's value against the best so far", or the cutoff test.
    pub comparison: &'static str,
    /// The two values compared.
    pub values: (f64, f64),
    /// Their error bounds.
    pub bounds: (f64, f64),
    /// For an MCTS selection (8.4): the iteration (from 1), the child
    /// chosen and the child whose UCB value is too close to its own.
    pub selection: Option<(u32, NodeIndex, NodeIndex)>,
}

impl FragileComparison {
    /// Says, for an instructor, which search makes the comparison, where,
    /// on which values, and what to do.
    pub fn describe(&self, tree: &(impl GameTree + ?Sized), settings: &SearchSettings) -> String {
        if let Some((iteration, chosen, other)) = self.selection {
            let how = if self.values.0 == self.values.1 {
                "are equal while the two children's N or W differ"
            } else {
                "differ by less than 1e-9 of their size"
            };
            return format!(
                "fragile selection for mcts (seed {}, exploration {}): in iteration {iteration}, at node `{}`, the \
                 UCB values of `{}` ({:?}) and `{}` ({:?}) {how}, so another `ln` or `sqrt` could select the other \
                 (docs/format.md 8.4); change the seed, the exploration constant, the iterations or the values",
                settings.seed,
                settings.exploration,
                tree.id(self.node),
                tree.id(chosen),
                self.values.0,
                tree.id(other),
                self.values.1
            );
        }
        let convention = match settings.algorithm.prunes() {
            true => format!(" (prune_on_equal: {})", settings.prune_on_equal),
            false => String::new(),
        };
        format!(
            "fragile tree for {}{convention}: at node `{}`, {} compares {:?} with {:?}, which differ by \
             less than the rounding error of a chance value (bounds {:.1e} and {:.1e}), so correct programs \
             that sum in another order can decide differently (docs/format.md 2.1); change the values or probabilities",
            settings.algorithm,
            tree.id(self.node),
            self.comparison,
            self.values.0,
            self.values.1,
            self.bounds.0,
            self.bounds.1
        )
    }
}

/// Error bounds of the open frames of a search, parallel to its stack.
#[derive(Default)]
pub(super) struct Bounds {
    frames: Vec<FrameBounds>,
    /// The first fragile comparison met.
    pub(super) fragile: Option<FragileComparison>,
}

/// The bounds of one open frame: of its value so far and of its window.
struct FrameBounds {
    value: f64,
    alpha: f64,
    beta: f64,
    chance: Option<ChanceSum>,
}

/// What a chance node needs to know whether its double is its exact value.
#[derive(Clone, Default)]
pub(super) struct ChanceSum {
    /// The exact sum of p_i * v_i so far, as a nonoverlapping expansion.
    exact: Vec<f64>,
    /// Some term could not be represented exactly (a tiny product).
    inexact: bool,
    /// sum p_i * bound_i.
    weighted_bounds: f64,
    /// sum |p_i * v_i|.
    magnitude: f64,
    children: u32,
}

/// 2^-52: the spacing of doubles at 1.
const EPSILON: f64 = f64::EPSILON;

/// Below this a product's rounding error may not be a double of its own.
const TINY: f64 = 1e-290;

impl Bounds {
    /// The window bounds a child of the innermost frame is entered with.
    pub(super) fn child_window(&self, parent_is_chance: bool) -> (f64, f64) {
        match self.frames.last() {
            Some(frame) if !parent_is_chance => (frame.alpha, frame.beta),
            _ => (0.0, 0.0),
        }
    }

    /// A frame opens for a node entered with the window bounds `window`.
    pub(super) fn open(&mut self, chance: bool, window: (f64, f64)) {
        let chance = chance.then(ChanceSum::default);
        self.frames.push(FrameBounds { value: 0.0, alpha: window.0, beta: window.1, chance });
    }

    /// The innermost frame closes with the double `value`: its bound.
    pub(super) fn close(&mut self, value: f64) -> f64 {
        let frame = self.frames.pop().expect("a frame is open for every frame of the search");
        match frame.chance {
            Some(sum) => sum.bound(value),
            None => frame.value,
        }
    }

    /// A child of a max node is folded in: checks the improvement test and,
    /// with pruning, the cutoff test against beta, and follows the updates.
    pub(super) fn max_child(&mut self, node: NodeIndex, before: f64, child: (f64, f64), after: f64, beta: Option<f64>) {
        self.extreme_child(node, before, child, after, beta, true);
    }

    /// A child of a min node is folded in (see [`Bounds::max_child`]; alpha is the bound).
    pub(super) fn min_child(
        &mut self,
        node: NodeIndex,
        before: f64,
        child: (f64, f64),
        after: f64,
        alpha: Option<f64>,
    ) {
        self.extreme_child(node, before, child, after, alpha, false);
    }

    fn extreme_child(
        &mut self,
        node: NodeIndex,
        before: f64,
        (value, child_bound): (f64, f64),
        after: f64,
        window_value: Option<f64>,
        is_max: bool,
    ) {
        let frame = self.frames.last_mut().expect("the parent's frame is open");
        let mut found =
            fragile(node, "a child's value against the best so far", (value, child_bound), (before, frame.value));
        if after != before || (value == before && child_bound > frame.value) {
            // The node takes the child's value (on an exact tie the larger bound is kept).
            frame.value = if after != before { child_bound } else { frame.value.max(child_bound) };
        }
        if let Some(window) = window_value {
            let window_bound = if is_max { frame.beta } else { frame.alpha };
            let cutoff = fragile(node, "the alpha-beta cutoff test", (after, frame.value), (window, window_bound));
            found = found.or(cutoff);
        }
        if self.fragile.is_none() {
            self.fragile = found;
        }
    }

    /// After a max node's `alpha = max(alpha, value)` or a min node's
    /// `beta = min(beta, value)`: the window's bound follows the value taken.
    pub(super) fn window_update(&mut self, is_max: bool, old: f64, value: f64) {
        let frame = self.frames.last_mut().expect("the frame is open");
        let bound = if is_max { &mut frame.alpha } else { &mut frame.beta };
        let takes_value = if is_max { value > old } else { value < old };
        if takes_value {
            *bound = frame.value;
        } else if value == old {
            *bound = bound.max(frame.value);
        }
    }

    /// A child of a chance node is folded in with probability `p`.
    pub(super) fn chance_child(&mut self, p: f64, (value, child_bound): (f64, f64)) {
        let frame = self.frames.last_mut().expect("the parent's frame is open");
        frame.chance.as_mut().expect("a chance node's frame").add(p, (value, child_bound));
    }
}

impl ChanceSum {
    /// Folds in a child of value `value` with error bound `child_bound`, of probability `p`.
    pub(super) fn add(&mut self, p: f64, (value, child_bound): (f64, f64)) {
        let sum = self;
        let product = p * value;
        // fma gives the product's rounding error exactly, as a double.
        let error = p.mul_add(value, -product);
        if product != 0.0 && product.abs() < TINY {
            sum.inexact = true;
        }
        grow(&mut sum.exact, product);
        grow(&mut sum.exact, error);
        sum.weighted_bounds += p * child_bound;
        sum.magnitude += product.abs();
        sum.children += 1;
        sum.inexact |= child_bound != 0.0;
    }

    /// The bound of the chance node whose computed double is `value`.
    pub(super) fn bound(mut self, value: f64) -> f64 {
        grow(&mut self.exact, -value);
        let exact = !self.inexact && self.exact.iter().all(|&part| part == 0.0);
        if exact { 0.0 } else { self.weighted_bounds + f64::from(self.children) * EPSILON * self.magnitude }
    }
}

/// The comparison of `left` and `right` (value and bound each), if fragile:
/// their intervals overlap and they are not both exact.
pub(super) fn fragile(
    node: NodeIndex,
    comparison: &'static str,
    left: (f64, f64),
    right: (f64, f64),
) -> Option<FragileComparison> {
    if left.1 == 0.0 && right.1 == 0.0 {
        return None;
    }
    let overlap = left.0 - left.1 <= right.0 + right.1 && right.0 - right.1 <= left.0 + left.1;
    overlap.then_some(FragileComparison {
        node,
        comparison,
        values: (left.0, right.0),
        bounds: (left.1, right.1),
        selection: None,
    })
}

/// Adds `x` to the nonoverlapping expansion `terms` exactly (Shewchuk's
/// grow-expansion with zero elimination): the sum of `terms` stays the exact
/// sum of everything added.
fn grow(terms: &mut Vec<f64>, x: f64) {
    let mut carry = x;
    let mut kept = 0;
    for index in 0..terms.len() {
        let (sum, error) = two_sum(carry, terms[index]);
        if error != 0.0 {
            terms[kept] = error;
            kept += 1;
        }
        carry = sum;
    }
    terms.truncate(kept);
    if carry != 0.0 {
        terms.push(carry);
    }
}

/// `a + b` as a double and its exact rounding error (Knuth's two-sum).
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let sum = a + b;
    let b_virtual = sum - a;
    let a_virtual = sum - b_virtual;
    (sum, (a - a_virtual) + (b - b_virtual))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chance(children: &[(f64, f64)]) -> f64 {
        let mut bounds = Bounds::default();
        bounds.open(true, (0.0, 0.0));
        let mut acc = 0.0;
        for &(p, v) in children {
            acc += p * v;
            bounds.chance_child(p, (v, 0.0));
        }
        bounds.close(acc)
    }

    #[test]
    fn a_sum_that_is_exact_in_binary_has_no_error() {
        assert_eq!(chance(&[(0.5, 3.0), (0.25, 8.0), (0.25, -1.0)]), 0.0);
        assert_eq!(chance(&[(1.0, 7.0)]), 0.0);
    }

    #[test]
    fn a_rounded_sum_has_an_error_bound() {
        let bound = chance(&[(0.1, 1.0), (0.2, 1.0), (0.7, 1.0)]);
        assert!(bound > 0.0 && bound < 1e-15, "{bound}");
    }

    #[test]
    fn the_expansion_keeps_the_exact_sum() {
        let mut terms = Vec::new();
        for x in [1e16, 1.0, -1e16, 0.5, -1.5] {
            grow(&mut terms, x);
        }
        assert!(terms.iter().all(|&t| t == 0.0) || terms.is_empty(), "{terms:?}");
        grow(&mut terms, 1e-30);
        assert_eq!(terms, [1e-30]);
    }

    #[test]
    fn exact_ties_are_not_fragile_and_near_ties_with_error_are() {
        let node = NodeIndex(0);
        assert_eq!(fragile(node, "t", (3.0, 0.0), (3.0, 0.0)), None);
        assert!(fragile(node, "t", (0.3, 1e-16), (0.30000000000000004, 0.0)).is_some());
        assert_eq!(fragile(node, "t", (0.3, 1e-16), (0.4, 0.0)), None);
        assert_eq!(fragile(node, "t", (f64::NEG_INFINITY, 0.0), (0.3, 1e-16)), None);
    }
}
