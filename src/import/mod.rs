//! Importers: test suites written for other autograders, turned into trees.
//!
//! An importer parses another format's text (pure functions over strings,
//! with a thin wrapper that reads the files) and produces a [`Tree`] with its
//! `search` defaults and `expect` block filled in from the source's own
//! answers, so that [`load::write::tree_to_yaml`] can save it as a tree file
//! that `treegrade validate` checks against the reference engine.
//!
//! - [`cs188`]: UC Berkeley CS188's multiagent `GraphGameTreeTest` files;
//!   [`course`] turns a folder of them into a ready assignment, and
//!   [`cs188_mistakes`] lists the mistakes of CS188 students for the
//!   diagnosis of the imported trees; [`cs188_pacman`] reads CS188's Pacman
//!   tests (q1, q5 and the game test of q2 to q4) as Pacman tests.
//! - [`mit6034`]: MIT 6.034's games lab, whose `tests.py` is read by running
//!   it in the sandbox; its search tests become trees graded through the MIT
//!   6.034 kit.
//!
//! [`Tree`]: crate::tree::Tree
//! [`load::write::tree_to_yaml`]: crate::load::write::tree_to_yaml

pub mod course;
pub mod cs188;
pub mod cs188_mistakes;
pub mod cs188_pacman;
pub mod mit6034;
