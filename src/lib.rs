//! treegrade: a reference engine and autograder for adversarial search.
//!
//! The crate is layered so that each layer knows only what it must:
//!
//! - [`tree`]: the game-tree model, an arena of nodes (pure data);
//! - [`engine`]: the reference searches over a tree (pure functions);
//! - [`load`]: the only place that knows the YAML tree format;
//! - [`cli`]: the `treegrade` command, which wires the layers together.

pub mod batch;
pub mod cli;
pub mod compare;
pub mod engine;
pub mod generator;
pub mod grader;
pub mod import;
pub mod load;
pub mod package;
pub mod render;
pub mod report;
pub mod tree;
