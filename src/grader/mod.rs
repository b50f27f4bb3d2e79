//! The grader: runs student searchers as processes and judges their searches.
//!
//! A grading run is a pipeline of plain values: an assignment's questions
//! become test plans, each plan is served to the student program through the
//! [`oracle`] over the [`protocol`] by the [`runner`], and the recorded
//! searches are compared with the reference engine's. Nothing here knows YAML.

pub mod oracle;
pub mod protocol;
pub mod runner;
