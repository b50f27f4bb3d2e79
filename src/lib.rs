//! treegrade: a reference engine and autograder for adversarial search.
//!
//! The crate is layered so that each layer knows only what it must:
//!
//! - [`tree`]: the game-tree model, an arena of nodes (pure data);
//! - [`engine`]: the reference searches over a tree (pure functions), and the
//!   classic mistakes it can reproduce on purpose;
//! - [`compare`]: value tolerance and visited-order divergence; [`points`]:
//!   exact points, shared among tests so that every sum is exact;
//! - [`assignment`]: the assignment model, plain data below the loader and
//!   the grader;
//! - [`load`]: the only place that knows YAML: tree files, `assignment.yaml`,
//!   and writing trees back;
//! - [`grader`]: the grading pipeline: plan, submission, sandbox, runner,
//!   oracle over the protocol, verdicts and diagnoses; it knows no YAML;
//! - `shown`: student text made safe to show, once, where it enters a report;
//! - [`report`]: renderers of a grading report (text, JSON, JUnit,
//!   Gradescope, Markdown, HTML, PrairieLearn); `render`: tree pictures;
//! - [`batch`]: many submissions into a gradebook; `package`: the Gradescope zip;
//!   `outdir`: what batch and tournament output folders share (lock, atomic
//!   writes, fingerprints, shards); `pool`: the one worker pool;
//! - [`play`]: whole games between agents; [`tournament`]: class tournaments with ratings;
//!   [`stats`]: Wilson intervals and Bradley-Terry ratings; [`thresholds`]: points by thresholds;
//! - [`generator`]: random trees per seed; [`import`]: CS188's test format;
//! - `walk`: the one directory walker; `bundled`: the assignment inside the binary;
//! - [`cli`]: the `treegrade` command, which only wires the layers together.
//!
//! The modules named without a link serve the command line only and are
//! private; the others are the library's interface, which the integration
//! tests (`tests/it/`) use as any caller would.

#![warn(missing_docs)]

pub mod assignment;
pub mod batch;
pub(crate) mod bundled;
pub mod cli;
pub mod compare;
pub mod engine;
pub mod game;
pub mod generator;
pub mod grader;
pub mod import;
pub mod load;
pub(crate) mod outdir;
pub(crate) mod package;
pub mod play;
pub mod points;
pub(crate) mod pool;
pub(crate) mod render;
pub mod report;
pub(crate) mod shown;
pub mod stats;
pub mod thresholds;
pub mod tournament;
pub mod tree;
pub(crate) mod walk;
