//! What the HTML report needs of a graded search to draw it: the tree, the
//! settings and the reference's recorded search, asked through a trait so
//! that the report names no planning type of the grader.

use crate::engine::{Recording, SearchOutcome, SearchSettings};
use crate::tree::{AnyTree, Tree};

/// A search test as the HTML report draws it: the tree, the settings and
/// the reference's search. The grader's planned tests are one; the report
/// asks for no more than this.
pub trait Drawable {
    /// The test's name (`q2/aima-fig5-2`), as its result has it.
    fn name(&self) -> &str;
    /// The tree file, as its result has it.
    fn path(&self) -> &std::path::Path;
    /// The settings searched with.
    fn settings(&self) -> SearchSettings;
    /// The reference's search.
    fn reference(&self) -> &SearchOutcome;
    /// What the engine reported as it ran the reference's search.
    fn recording(&self) -> &Recording;
    /// The written tree, when it is one (drawn whole).
    fn written(&self) -> Option<&Tree>;
    /// A fresh tree to find the student's nodes in (a game's, unfolded anew,
    /// where the reference's nodes keep their indices).
    fn served(&self) -> AnyTree<'_>;
}
