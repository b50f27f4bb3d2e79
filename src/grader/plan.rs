//! What to grade: an assignment's questions and the tests they run.
//!
//! Plain data. The YAML loader fills an [`Assignment`]; [`plan_tests`] pairs
//! each test with its tree, its settings and the reference's answer.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use sha2::{Digest, Sha256};

use crate::engine::{self, Algorithm, SearchOutcome, SearchSettings};
use crate::generator::{GenOptions, generate};
use crate::points::Points;
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
    pub points: Points,
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
    /// Trees generated for each student, in addition to `tests`.
    pub generate: Option<Generated>,
}

/// A question's generated trees.
#[derive(Clone, Debug, PartialEq)]
pub struct Generated {
    /// How the trees are made (the seed is derived, see [`generated_tests`]).
    pub options: GenOptions,
    /// Trees per student.
    pub count: u32,
    /// `seed_from: student`: every student gets their own trees; otherwise
    /// everyone gets the trees of `options.seed`.
    pub per_student: bool,
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
            match plan_one(assignment, index, name, test.path.clone(), test.hidden, tree) {
                Ok(test) => planned.push(test),
                Err(error) => errors.push(error),
            }
        }
    }
    if errors.is_empty() { Ok(planned) } else { Err(errors) }
}

/// Plans one test, file or generated alike: the question's settings applied
/// to the tree, and the reference's search of it. Every test of an
/// assignment passes here, so every test meets the same checks.
fn plan_one(
    assignment: &Assignment,
    question: usize,
    name: String,
    path: PathBuf,
    hidden: bool,
    tree: Arc<Tree>,
) -> Result<PlannedTest, PlanError> {
    let spec = &assignment.questions[question];
    let settings = SearchSettings::resolve(spec.algorithm, tree.search_defaults(), spec.depth, spec.prune_on_equal);
    let refused = |message: String| PlanError { name: name.clone(), message };
    let reference = engine::search(&tree, &settings).map_err(|error| refused(error.to_string()))?;
    match engine::fragility(&tree, &settings) {
        Ok(None) => Ok(PlannedTest { question, name, path, hidden, tree, settings, reference }),
        Ok(Some(fragile)) => Err(refused(fragile.describe(&tree, &settings))),
        Err(error) => Err(refused(error.to_string())),
    }
}

/// The generated tests of the selected questions for one student.
///
/// A student's trees derive from a hash of the assignment's `secret`, the
/// student id and the question: answers cannot be shared between students
/// nor memorised, and an instructor who knows the secret can reproduce any
/// student's trees. Without the secret (a student's own machine) the same
/// call gives practice trees that differ from the graded ones.
///
/// A tree the reference cannot search with the question's settings (a depth
/// limit without evals, minimax over chance nodes) is an error, as for a file
/// test: `check` and `batch` plan the generated tests once before grading
/// anyone, so such an assignment is refused instead of giving free points.
pub fn generated_tests(
    assignment: &Assignment,
    selected: &[usize],
    student: &str,
    secret: &str,
) -> Result<Vec<PlannedTest>, Vec<PlanError>> {
    let mut planned = Vec::new();
    let mut errors = Vec::new();
    for &index in selected {
        let question = &assignment.questions[index];
        let Some(generated) = &question.generate else { continue };
        let seed =
            if generated.per_student { student_seed(secret, student, &question.id) } else { generated.options.seed };
        let options = GenOptions { seed, ..generated.options.clone() };
        for n in 0..generated.count {
            let name = format!("{}/generated-{}", question.id, n + 1);
            let tree = Arc::new(generate(&options, u64::from(n), &name));
            let path = PathBuf::from(format!("(generated for {student})"));
            match plan_one(assignment, index, name, path, false, tree) {
                Ok(test) => planned.push(test),
                Err(error) => errors.push(error),
            }
        }
    }
    if errors.is_empty() { Ok(planned) } else { Err(errors) }
}

/// Whether any selected question generates trees.
pub fn has_generated(assignment: &Assignment, selected: &[usize]) -> bool {
    selected.iter().any(|&index| assignment.questions[index].generate.is_some())
}

fn student_seed(secret: &str, student: &str, question: &str) -> u64 {
    let digest = Sha256::new()
        .chain_update(secret)
        .chain_update([0])
        .chain_update(student)
        .chain_update([0])
        .chain_update(question)
        .finalize();
    u64::from_le_bytes(digest[..8].try_into().expect("a SHA-256 digest has 32 bytes"))
}

fn test_stem(test: &TestFile) -> String {
    test.path.file_stem().map_or_else(|| test.path.display().to_string(), |s| s.to_string_lossy().into_owned())
}
