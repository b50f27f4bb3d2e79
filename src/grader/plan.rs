//! What to grade: an assignment's questions and the tests they run.
//!
//! Plain data. The YAML loader fills an [`Assignment`]; [`plan_tests`] pairs
//! each test with its tree, its settings and the reference's answer.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::engine::{self, Algorithm, SearchOutcome, SearchSettings};
use crate::tree::Tree;

/// An assignment: questions worth points, and how submissions are run.
#[derive(Clone, Debug, PartialEq)]
pub struct Assignment {
    /// Short name (folder name by default).
    pub name: String,
    /// Title for reports.
    pub title: String,
    /// The folder holding `assignment.yaml`.
    pub dir: PathBuf,
    /// Wall-clock limit per test.
    pub time_limit: Duration,
    /// Languages a submission may be written in, tried in order.
    pub languages: Vec<Language>,
    /// The questions, in report order.
    pub questions: Vec<Question>,
}

/// How submissions in one language are recognised, built and run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Language {
    /// `python`, `rust`, ...
    pub name: String,
    /// Files whose presence in a submission selects this language.
    pub detect: Vec<String>,
    /// Build command, run once in the submission folder.
    pub build: Option<Vec<String>>,
    /// Limit for the build.
    pub build_time_limit: Duration,
    /// Command that starts the searcher.
    pub run: Vec<String>,
    /// Extra environment; `{kits}` in values is replaced by the kits folder.
    pub env: Vec<(String, String)>,
}

/// How a question's points are earned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scoring {
    /// Each test is worth an equal share of the points.
    PerTest,
    /// The points go to a question whose tests all pass (as in CS188).
    AllOrNothing,
}

/// One question of an assignment.
#[derive(Clone, Debug, PartialEq)]
pub struct Question {
    /// Short id (`q1`), used by `-q`.
    pub id: String,
    /// Title for reports.
    pub title: String,
    /// Points the question is worth.
    pub points: f64,
    /// The search students implement.
    pub algorithm: Algorithm,
    /// Overrides each tree's `search.depth`.
    pub depth: Option<u32>,
    /// Overrides each tree's `search.prune_on_equal`.
    pub prune_on_equal: Option<bool>,
    /// How points are earned.
    pub scoring: Scoring,
    /// The tree files, resolved and sorted.
    pub tests: Vec<TestFile>,
}

/// One tree file a question runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestFile {
    /// Where the tree is.
    pub path: PathBuf,
    /// Hidden tests show students only whether they passed.
    pub hidden: bool,
}

/// A test ready to run: the tree, the settings and the reference's answer.
#[derive(Clone, Debug)]
pub struct PlannedTest {
    /// Index of the question in the assignment.
    pub question: usize,
    /// `q2/aima-fig5-2`.
    pub name: String,
    /// The tree file.
    pub path: PathBuf,
    /// Whether students see details.
    pub hidden: bool,
    /// The tree.
    pub tree: Arc<Tree>,
    /// The settings the student searches with.
    pub settings: SearchSettings,
    /// What the reference engine does with them.
    pub reference: SearchOutcome,
}

/// Why a test cannot be planned (the tree does not fit the question).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanError {
    /// The test.
    pub name: String,
    /// What is wrong.
    pub message: String,
}

/// Pairs every test of the selected questions with its tree and reference answer.
///
/// `tree_for` gives the loaded tree of a test file (loading is the caller's
/// business: the grader knows nothing of YAML).
pub fn plan_tests(
    assignment: &Assignment,
    selected: &[usize],
    mut tree_for: impl FnMut(&TestFile) -> Arc<Tree>,
) -> Result<Vec<PlannedTest>, Vec<PlanError>> {
    let mut planned = Vec::new();
    let mut errors = Vec::new();
    for &index in selected {
        let question = &assignment.questions[index];
        for test in &question.tests {
            let tree = tree_for(test);
            let name = format!("{}/{}", question.id, test_stem(test));
            let settings = SearchSettings::resolve(
                question.algorithm,
                tree.search_defaults(),
                question.depth,
                question.prune_on_equal,
            );
            match engine::search(&tree, &settings) {
                Ok(reference) => planned.push(PlannedTest {
                    question: index,
                    name,
                    path: test.path.clone(),
                    hidden: test.hidden,
                    tree,
                    settings,
                    reference,
                }),
                Err(error) => errors.push(PlanError { name, message: error.to_string() }),
            }
        }
    }
    if errors.is_empty() { Ok(planned) } else { Err(errors) }
}

fn test_stem(test: &TestFile) -> String {
    test.path.file_stem().map_or_else(|| test.path.display().to_string(), |s| s.to_string_lossy().into_owned())
}
