//! Judging searches against the reference, and scoring questions.
//!
//! The value, the action and the visited order are checked separately, so a
//! report can say "right value, wrong order": the signature of a pruning bug.

use serde::Serialize;

use super::diagnosis::Diagnosis;
use super::explain;
use super::plan::{Assignment, ChildOrder, PlannedTest, Scoring};
use super::session::{FailureCause, FailureKind, SearchRecord};
use crate::compare::{
    Divergence, first_divergence, format_value, format_vector, same_search_in_another_child_order, values_match,
    vectors_match,
};
use crate::points::Points;
use crate::shown::{shown, shown_line};
use crate::tree::{GameTree, NodeIndex};

/// How one test ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TestStatus {
    /// Value, action and order all match.
    Passed,
    /// The program answered, but something differs.
    Failed,
    /// The program did not answer.
    Error(FailureKind),
}

/// The state of one of the three checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Check {
    /// It matched.
    Passed,
    /// It differed.
    Failed,
    /// There was no answer to check.
    NotRun,
}

/// The three checks of a test, and MCTS's fourth.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Checks {
    /// Root value within 1e-9 (each component of a max^n vector).
    pub value: Check,
    /// Chosen action.
    pub action: Check,
    /// Exact visited order (for iterative deepening, every iteration's).
    pub order: Check,
    /// MCTS only (docs/format.md 8.4): the number of random draws, and each
    /// root child's N and W as the program reported them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub counts: Option<Check>,
}

/// A search result as reports show it: ids, not indices.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SearchView {
    /// The root value (absent when the program gave none); player 1's
    /// component of a max^n vector.
    pub value: Option<f64>,
    /// The chosen action.
    pub action: Option<String>,
    /// The visited order.
    pub visited: Vec<String>,
    /// A max^n search's root vector (docs/format.md 8.3).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vector: Option<Vec<f64>>,
    /// Iterative deepening: where each iteration starts in `visited` (8.2).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub iteration_starts: Vec<usize>,
    /// MCTS: each root child's action, N and W (8.4).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub counts: Option<Vec<ChildCountView>>,
    /// MCTS: the number of random draws (8.4).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub draws: Option<u64>,
}

/// One root child's MCTS counts, as reports show them.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ChildCountView {
    /// The child's action.
    pub action: String,
    /// Its N.
    pub n: u64,
    /// Its W.
    pub w: f64,
}

/// A game's position at one node, drawn as text (docs/format.md 7).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Board {
    /// What it is: `the start`, `the reference's next node b3-c3`, ...
    pub label: String,
    /// The board, one line per row.
    pub text: String,
}

/// The outcome of one test.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TestResult {
    /// `q2/aima-fig5-2`.
    pub name: String,
    /// The tree file.
    pub path: String,
    /// Whether students may see the details.
    pub hidden: bool,
    /// How it ended.
    pub status: TestStatus,
    /// The three checks.
    pub checks: Checks,
    /// One line saying what went wrong, for the student.
    pub reason: Option<String>,
    /// The classic mistake that reproduces the student's trace exactly, if any.
    pub diagnosis: Option<Diagnosis>,
    /// What the tree is (its `description:`), so that a student learns it
    /// has two MIN levels, say, or a chance root; absent for hidden tests
    /// in a student's view.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// More detail (a traceback, say).
    pub details: Option<String>,
    /// A game's positions drawn as boards, for a failed test: the start, and
    /// where the orders first differ (the reference's node and the
    /// student's); empty for written trees and in a student's view of a
    /// hidden test.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub boards: Vec<Board>,
    /// Where the visited orders first differ.
    pub divergence: Option<Divergence>,
    /// What the reference did.
    pub expected: SearchView,
    /// What the student did (the order as recorded by the grader).
    pub actual: SearchView,
    /// The student's stderr during the test.
    pub stderr: String,
    /// Points earned. In an all-or-nothing question a test carries no points
    /// of its own (its question does), so both are 0.
    pub score: Points,
    /// Points possible (see `score`).
    pub max_score: Points,
    /// Wall-clock time in milliseconds.
    pub elapsed_ms: u64,
    /// The games of a play test (one opponent of a play question).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub play: Option<Box<PlayDetails>>,
    /// Partial credit, for a test that earns points by thresholds (a
    /// Pacman play test): its share of the question is scaled by it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub credit: Option<Credit>,
    /// What a Pacman test found (its games, or its steps).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pacman: Option<Box<super::pacman::outcome::PacmanOutcome>>,
}

impl TestResult {
    /// A test that checked no search (a game's): its name, file and status,
    /// every check not run, nothing else filled in yet.
    pub fn unsearched(name: String, path: String, hidden: bool, status: TestStatus) -> TestResult {
        TestResult {
            name,
            path,
            hidden,
            status,
            checks: Checks { value: Check::NotRun, action: Check::NotRun, order: Check::NotRun, counts: None },
            reason: None,
            diagnosis: None,
            description: None,
            details: None,
            boards: Vec::new(),
            divergence: None,
            expected: SearchView::default(),
            actual: SearchView::default(),
            stderr: String::new(),
            score: Points::ZERO,
            max_score: Points::ZERO,
            elapsed_ms: 0,
            play: None,
            credit: None,
            pacman: None,
        }
    }
}

/// Points by thresholds: `earned` of `possible`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Credit {
    /// Thresholds reached.
    pub earned: u32,
    /// Thresholds in all.
    pub possible: u32,
}

impl Credit {
    /// `share` scaled by `earned / possible`, rounded down to a millionth.
    pub fn of(self, share: Points) -> Points {
        if self.possible == 0 {
            return Points::ZERO;
        }
        let micros =
            u128::from(share.micros()) * u128::from(self.earned.min(self.possible)) / u128::from(self.possible);
        Points::from_micros(micros as u64)
    }
}

/// What a play test (the games against one opponent) found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlayDetails {
    /// The game's name.
    pub game: String,
    /// The opponent.
    pub opponent: String,
    /// The seed the games derive from (with each game's number).
    pub seed: u64,
    /// Random plies at the start of each game.
    pub openings: u32,
    /// The node budget of a move.
    pub budget: Option<u32>,
    /// The time limit of a move (the agent's CPU time), in milliseconds.
    pub move_time_limit_ms: u64,
    /// The submission's results.
    pub tally: crate::play::Tally,
    /// Each measure with what it earned.
    pub measures: Vec<MeasureResult>,
    /// Every game, as played.
    pub games: Vec<crate::play::GameRecord>,
}

/// One measure of a play test: its thresholds and what it earned.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MeasureResult {
    /// What is measured.
    pub kind: crate::assignment::MeasureKind,
    /// Its minimum and thresholds.
    pub thresholds: crate::thresholds::Thresholds,
    /// The value, the thresholds reached, the points.
    pub award: crate::thresholds::MeasureAward,
}

/// One question's tests and score.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct QuestionResult {
    /// `q2`.
    pub id: String,
    /// Title.
    pub title: String,
    /// How points are earned.
    pub scoring: Scoring,
    /// Points earned: the sum of its tests' points (per test), or all or
    /// nothing.
    pub score: Points,
    /// Points possible.
    pub max_score: Points,
    /// Its tests.
    pub tests: Vec<TestResult>,
}

/// Everything one grading run found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GradeReport {
    /// The assignment's name.
    pub assignment: String,
    /// The assignment's title.
    pub title: String,
    /// The submission (a folder or a command).
    pub submission: String,
    /// The language used.
    pub language: Option<String>,
    /// Per question.
    pub questions: Vec<QuestionResult>,
    /// Points earned: the sum of the questions' points.
    pub score: Points,
    /// Points possible: the sum of the questions' points.
    pub max_score: Points,
    /// Wall-clock time of the whole run, in milliseconds.
    pub elapsed_ms: u64,
    /// Which sandbox layers were active.
    pub sandbox: super::sandbox::Layers,
}

impl GradeReport {
    /// Whether every test passed.
    pub fn all_passed(&self) -> bool {
        self.tests().all(|test| test.status == TestStatus::Passed)
    }

    /// Every test, in report order.
    pub fn tests(&self) -> impl Iterator<Item = &TestResult> {
        self.questions.iter().flat_map(|question| &question.tests)
    }
}

/// Where the student's order leaves the reference's, unless the question
/// lets children come in any order and the search is the reference's so.
fn divergence(
    test: &PlannedTest,
    tree: &dyn GameTree,
    entered: &[NodeIndex],
    expected: &[String],
    actual: &[String],
) -> Option<Divergence> {
    let divergence = first_divergence(expected, actual)?;
    let reordered = test.child_order == ChildOrder::Any
        && same_search_in_another_child_order(tree, &test.reference.visited, entered);
    (!reordered).then_some(divergence)
}

/// Judges one search against the reference (scores are filled in by
/// [`score`]); `tree` is the one the search was served (for a game, its own
/// unfolding, where the reference's nodes have the same indices).
pub fn judge(test: &PlannedTest, tree: &dyn GameTree, record: SearchRecord) -> TestResult {
    let expected = explain::reference_view(test, tree);
    let visited = tree.ids_of(&record.visited);
    let mut result = TestResult {
        name: test.name.clone(),
        path: test.path.display().to_string(),
        hidden: test.hidden,
        status: TestStatus::Passed,
        checks: Checks { value: Check::NotRun, action: Check::NotRun, order: Check::NotRun, counts: None },
        reason: None,
        diagnosis: None,
        description: test.tree.description().map(shown),
        details: None,
        boards: Vec::new(),
        divergence: divergence(test, tree, &record.visited, &expected.visited, &visited),
        expected,
        actual: SearchView {
            visited,
            iteration_starts: record.steps.iteration_starts.clone(),
            draws: test.settings.algorithm.draws_random().then_some(record.steps.draws),
            ..SearchView::default()
        },
        stderr: shown(&record.stderr),
        score: Points::ZERO,
        max_score: Points::ZERO,
        elapsed_ms: record.elapsed.as_millis() as u64,
        play: None,
        credit: None,
        pacman: None,
    };
    match record.answer {
        Err(failure) => {
            result.status = TestStatus::Error(failure.kind);
            result.reason = Some(shown(&failure.message));
            result.details = failure.details.as_deref().map(shown);
            // The kit's word alone names nothing: the grader must have seen the budget spent.
            if failure.cause == Some(FailureCause::IterationAfterTimeUp) && record.time_up {
                result.diagnosis = Some(super::diagnosis::budget_per_iteration(test.settings.budget));
            }
        }
        Ok(answer) => {
            result.actual.value = answer.value;
            result.actual.action = answer.action;
            result.actual.vector = answer.vector;
            result.actual.counts = answer.children.map(|children| {
                children.into_iter().map(|c| ChildCountView { action: shown_line(&c.action), n: c.n, w: c.w }).collect()
            });
            // The diagnosis weighs every test of the question: see
            // `diagnosis::diagnose_submission`, which runs once all are judged.
            judge_answer(&mut result, test, tree);
        }
    }
    if result.status == TestStatus::Failed {
        result.boards = boards(tree, &test.reference.visited, &record.visited, result.divergence.as_ref());
    }
    result
}

/// The boards a failed game test shows: the start, and the two nodes where
/// the orders part (none for a written tree).
fn boards(
    tree: &dyn GameTree,
    expected: &[NodeIndex],
    actual: &[NodeIndex],
    divergence: Option<&Divergence>,
) -> Vec<Board> {
    let Some(start) = tree.board(NodeIndex::ROOT) else { return Vec::new() };
    let mut boards = vec![Board { label: "the start position".to_string(), text: start }];
    if let Some(divergence) = divergence {
        let sides = [(expected, "the reference's node"), (actual, "your node")];
        for (order, whose) in sides {
            if let Some(&node) = order.get(divergence.step)
                && let Some(text) = tree.board(node)
            {
                boards
                    .push(Board { label: format!("{whose} at step {}, {}", divergence.step + 1, tree.id(node)), text });
            }
        }
    }
    boards
}

fn judge_answer(result: &mut TestResult, test: &PlannedTest, tree: &dyn GameTree) {
    // The action is compared as the program sent it, and shown escaped.
    let action_ok = result.expected.action == result.actual.action;
    result.actual.action = result.actual.action.as_deref().map(shown_line);
    let (expected, actual) = (&result.expected, &result.actual);
    // No value at all is allowed only where the kit cannot observe it (a tree
    // taken from a game): then the value is not checked, and the report says so.
    let value_observed = actual.value.is_some();
    let value_ok = match (&expected.vector, &actual.vector) {
        (Some(expected), Some(actual)) => vectors_match(expected, actual),
        (Some(_), None) => false,
        _ => !value_observed || values_match(expected.value.unwrap_or(f64::NAN), actual.value.unwrap_or(f64::NAN)),
    };
    let iterations_ok = expected.iteration_starts == actual.iteration_starts;
    let order_ok = result.divergence.is_none() && iterations_ok;
    let mut reasons = Vec::new();
    if !value_ok {
        reasons.push(match (&expected.vector, &actual.vector) {
            (Some(expected), Some(actual)) => {
                format!("value: expected {}, you returned {}", format_vector(expected), format_vector(actual))
            }
            _ => format!(
                "value: expected {}, you returned {}",
                format_value(expected.value.unwrap_or(f64::NAN)),
                format_value(actual.value.unwrap_or(f64::NAN))
            ),
        });
    }
    if !action_ok {
        let expected_action = describe_action(expected.action.as_deref(), test, tree);
        let chosen = describe_choice(result.actual.action.as_deref(), test, tree);
        reasons.push(format!("action: expected {expected_action}, you chose {chosen}"));
    }
    if let Some(divergence) = &result.divergence {
        let mut reason = format!("visited order: {}", divergence.describe("you"));
        if let Some(context) = explain::divergence_context(test, tree, &result.expected, &result.actual, divergence) {
            reason.push_str(&context);
        }
        if let Some(skipped) = divergence.expected.as_ref().filter(|node| !actual.visited.contains(node)) {
            reason.push_str(&format!(", and you never entered {skipped}"));
        } else if same_nodes_in_another_order(&expected.visited, &actual.visited) {
            reason.push_str(if test.settings.move_ordering == crate::engine::MoveOrdering::Eval {
                " (you entered the same nodes, in another order: this test searches each max and min node's \
                 children by their static value, best first, and enters a node only when the search reaches it)"
            } else {
                " (you entered the same nodes, in another order: enter a node only when your search reaches it, \
                 and search each node's children in the order they are given, without reordering or shuffling them)"
            });
        }
        reasons.push(reason);
    }
    if result.divergence.is_none() && !iterations_ok {
        reasons.push(explain::iterations_difference(&result.expected, &result.actual));
    }
    let counts =
        test.settings.algorithm.draws_random().then(|| explain::counts_difference(&result.expected, &result.actual));
    if let Some(Some(difference)) = &counts {
        reasons.push(difference.clone());
    }
    let check = |ok: bool| if ok { Check::Passed } else { Check::Failed };
    let value = if value_observed { check(value_ok) } else { Check::NotRun };
    let counts = counts.map(|difference| check(difference.is_none()));
    result.checks = Checks { value, action: check(action_ok), order: check(order_ok), counts };
    if !reasons.is_empty() {
        result.status = TestStatus::Failed;
        result.reason = Some(reasons.join("; "));
    }
}

/// Whether two different visited orders enter exactly the same nodes: the
/// search was right but took children in another order (a shuffle, say).
fn same_nodes_in_another_order(expected: &[String], actual: &[String]) -> bool {
    fn sorted(order: &[String]) -> Vec<&str> {
        let mut nodes: Vec<&str> = order.iter().map(String::as_str).collect();
        nodes.sort_unstable();
        nodes
    }
    expected.len() == actual.len() && expected != actual && sorted(expected) == sorted(actual)
}

/// An action of the root with the value of the child behind it:
/// `Stop (value 5)`.
fn describe_action(action: Option<&str>, test: &PlannedTest, tree: &dyn GameTree) -> String {
    let Some(action) = action else { return "no action (null)".to_string() };
    if action.is_empty() {
        return "an empty string (\"\"), which is no action of the root".to_string();
    }
    let child = tree.children(crate::tree::NodeIndex::ROOT).find(|&child| tree.action(child) == action);
    if let (Some(child), Some(summary)) = (child, test.reference.mcts()) {
        // MCTS chooses by visits: the reference's counts say more than a minimax value.
        return match summary.children.iter().find(|count| count.node == child) {
            Some(count) if count.n > 0 => {
                format!("{action} (N {}, W/N {} in the reference)", count.n, format_value(count.w / count.n as f64))
            }
            _ => format!("{action} (never visited by the reference)"),
        };
    }
    if !test.settings.algorithm.is_classic() {
        return action.to_string();
    }
    match child.and_then(|child| crate::engine::value_of(tree, child, &test.settings).ok()) {
        Some(value) => format!("{action} (value {})", format_value(value)),
        None => action.to_string(),
    }
}

/// What the student chose, with its value when it is an action of the
/// root, or what it is when it is the id of a root child instead.
fn describe_choice(chosen: Option<&str>, test: &PlannedTest, tree: &dyn GameTree) -> String {
    let root = crate::tree::NodeIndex::ROOT;
    if let Some(chosen) = chosen
        && !tree.children(root).any(|child| tree.action(child) == chosen)
        && let Some(child) = tree.children(root).find(|&child| tree.id(child) == chosen)
    {
        return format!(
            "{chosen}, which is the id of the child behind the action {}: return the action, not the id",
            tree.action(child)
        );
    }
    describe_action(chosen, test, tree)
}

/// Groups judged tests by question and awards points; `played` are the
/// tests of play questions, already scored, and Pacman tests, each with its
/// question's index (a question lists its searches first).
pub fn score(
    assignment: &Assignment,
    selected: &[usize],
    tests: &[PlannedTest],
    results: Vec<TestResult>,
    played: Vec<(usize, TestResult)>,
) -> Vec<QuestionResult> {
    let mut questions: Vec<QuestionResult> = selected
        .iter()
        .map(|&index| {
            let question = &assignment.questions[index];
            QuestionResult {
                id: question.id.clone(),
                title: question.title.clone(),
                scoring: question.scoring,
                score: Points::ZERO,
                max_score: question.points,
                tests: Vec::new(),
            }
        })
        .collect();
    let judged = tests.iter().map(|test| test.question).zip(results);
    for (question, result) in judged.chain(played) {
        let slot = selected.iter().position(|&index| index == question).expect("tests come from selected questions");
        questions[slot].tests.push(result);
    }
    for question in &mut questions {
        award(question);
    }
    questions
}

/// Awards a question's points. Per test, each test carries an exact share
/// (largest remainder, so the shares add up to the question's points) and the
/// question earns the sum of its passed tests' shares. All or nothing, the
/// tests carry no points and the question earns everything or nothing.
fn award(question: &mut QuestionResult) {
    let passed = |test: &TestResult| test.status == TestStatus::Passed;
    match question.scoring {
        Scoring::PerTest => {
            let shares = question.max_score.share(question.tests.len());
            for (test, share) in question.tests.iter_mut().zip(shares) {
                test.max_score = share;
                test.score = match test.credit {
                    Some(credit) => credit.of(share),
                    None if passed(test) => share,
                    None => Points::ZERO,
                };
            }
            question.score = question.tests.iter().map(|test| test.score).sum();
        }
        Scoring::AllOrNothing => {
            let all_passed = !question.tests.is_empty() && question.tests.iter().all(passed);
            question.score = if all_passed { question.max_score } else { Points::ZERO };
        }
        // Each play test carries the points its measures' thresholds earned.
        Scoring::Thresholds => question.score = question.tests.iter().map(|test| test.score).sum(),
    }
}

/// Total points of a run: earned and possible, each the exact sum of its questions'.
pub fn totals(questions: &[QuestionResult]) -> (Points, Points) {
    (questions.iter().map(|q| q.score).sum(), questions.iter().map(|q| q.max_score).sum())
}
