//! What a grading run found, as plain values: each test's outcome, each
//! question's score, the whole run. Judging ([`super::verdict`]), scoring
//! ([`super::scoring`]) and the reports read and fill these types; they
//! depend on nothing of the grader above them.

use serde::Serialize;

use super::pacman::outcome::PacmanOutcome;
use crate::assignment::Scoring;
use crate::compare::Divergence;
use crate::points::Points;

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

impl Checks {
    /// No check run: the program gave no answer, or the test searched nothing.
    pub const NOT_RUN: Checks =
        Checks { value: Check::NotRun, action: Check::NotRun, order: Check::NotRun, counts: None };
}

impl Default for Checks {
    fn default() -> Checks {
        Checks::NOT_RUN
    }
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

/// The outcome of one test: what every test has, and what its kind found.
#[derive(Clone, Debug, PartialEq)]
pub struct TestResult {
    /// Name, status, reason, points, output: the same for every kind.
    pub header: TestHeader,
    /// What the test's kind found.
    pub detail: TestDetail,
}

/// What every test has, whatever its kind.
#[derive(Clone, Debug, PartialEq)]
pub struct TestHeader {
    /// `q2/aima-fig5-2`.
    pub name: String,
    /// The tree file.
    pub path: String,
    /// Whether students may see the details.
    pub hidden: bool,
    /// How it ended.
    pub status: TestStatus,
    /// One line saying what went wrong, for the student.
    pub reason: Option<String>,
    /// What the tree is (its `description:`), so that a student learns it
    /// has two MIN levels, say, or a chance root; absent for hidden tests
    /// in a student's view.
    pub description: Option<String>,
    /// More detail (a traceback, say).
    pub details: Option<String>,
    /// The student's stderr during the test.
    pub stderr: String,
    /// Points earned. In an all-or-nothing question a test carries no points
    /// of its own (its question does), so both are 0.
    pub score: Points,
    /// Points possible (see `score`).
    pub max_score: Points,
    /// Wall-clock time in milliseconds.
    pub elapsed_ms: u64,
}

/// What a test of each kind found beyond its header.
#[derive(Clone, Debug, PartialEq)]
pub enum TestDetail {
    /// A search judged against the reference.
    Search(Box<SearchDetail>),
    /// A play test (one opponent of a play question): its games, absent
    /// when none could be played.
    Play(Option<Box<PlayDetails>>),
    /// A Pacman test.
    Pacman(Box<PacmanDetail>),
    /// A call test of a calls question.
    Call(Box<CallDetail>),
}

/// What a call test found (docs/format.md, "Calls questions").
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CallDetail {
    /// The call as the test writes it for a student.
    pub shown: String,
    /// What was expected, in the test's words (absent when it gives none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<String>,
    /// The check in words: `equal to True`, `a number > 0 and < 1000`.
    pub check: String,
    /// What each call returned, written as Python writes it (`True`,
    /// `[1, 2]`, `<ConnectFourBoard>`); empty when nothing came back.
    pub returned: Vec<String>,
    /// Boards drawn for a failed test: a returned board, or the first
    /// returned board that differs beside the expected one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub boards: Vec<Board>,
}

/// What judging a search found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SearchDetail {
    /// The three checks.
    pub checks: Checks,
    /// The classic mistake that reproduces the student's trace exactly, if any.
    pub diagnosis: Option<Diagnosis>,
    /// Where the visited orders first differ.
    pub divergence: Option<Divergence>,
    /// What the reference did.
    pub expected: SearchView,
    /// What the student did (the order as recorded by the grader).
    pub actual: SearchView,
    /// A game's positions drawn as boards, for a failed test: the start, and
    /// where the orders first differ (the reference's node and the
    /// student's); empty for written trees and in a student's view of a
    /// hidden test.
    pub boards: Vec<Board>,
}

/// What a Pacman test found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PacmanDetail {
    /// Its games, or its steps (absent when it could not run).
    pub outcome: Option<PacmanOutcome>,
    /// The thresholds it reached, for a test that earns points by them (a
    /// Pacman play test): its share of the question is scaled by it.
    pub credit: Option<Credit>,
    /// The position where a replay left the staff's path.
    pub boards: Vec<Board>,
    /// The staff's best actions where a replay left their path (the action alone).
    pub expected: SearchView,
    /// The agent's action there (the action alone).
    pub actual: SearchView,
}

/// The reports' view of a test of any kind that searched nothing.
static UNSEARCHED: SearchView = SearchView {
    value: None,
    action: None,
    visited: Vec::new(),
    vector: None,
    iteration_starts: Vec::new(),
    counts: None,
    draws: None,
};

impl TestResult {
    /// A test of `detail`'s kind: its name, file and status, nothing else
    /// filled in yet.
    pub fn new(name: String, path: String, hidden: bool, status: TestStatus, detail: TestDetail) -> TestResult {
        let header = TestHeader {
            name,
            path,
            hidden,
            status,
            reason: None,
            description: None,
            details: None,
            stderr: String::new(),
            score: Points::ZERO,
            max_score: Points::ZERO,
            elapsed_ms: 0,
        };
        TestResult { header, detail }
    }

    /// The search's judgement, for a search test.
    pub fn search(&self) -> Option<&SearchDetail> {
        match &self.detail {
            TestDetail::Search(search) => Some(search),
            TestDetail::Play(_) | TestDetail::Pacman(_) | TestDetail::Call(_) => None,
        }
    }

    /// A call test's call, check and answer.
    pub fn call(&self) -> Option<&CallDetail> {
        match &self.detail {
            TestDetail::Call(call) => Some(call),
            TestDetail::Search(_) | TestDetail::Play(_) | TestDetail::Pacman(_) => None,
        }
    }

    /// The search's judgement, to fill in.
    pub fn search_mut(&mut self) -> Option<&mut SearchDetail> {
        match &mut self.detail {
            TestDetail::Search(search) => Some(search),
            TestDetail::Play(_) | TestDetail::Pacman(_) | TestDetail::Call(_) => None,
        }
    }

    /// The three checks; none run for a test that searched nothing.
    pub fn checks(&self) -> Checks {
        self.search().map_or(Checks::NOT_RUN, |search| search.checks)
    }

    /// The mistake named, for a search test.
    pub fn diagnosis(&self) -> Option<&Diagnosis> {
        self.search().and_then(|search| search.diagnosis.as_ref())
    }

    /// Where the visited orders first differ, for a search test.
    pub fn divergence(&self) -> Option<&Divergence> {
        self.search().and_then(|search| search.divergence.as_ref())
    }

    /// What the reference did (for a Pacman replay, the staff's best
    /// actions where the agent left their path; nothing for a play test).
    pub fn expected(&self) -> &SearchView {
        match &self.detail {
            TestDetail::Search(search) => &search.expected,
            TestDetail::Pacman(pacman) => &pacman.expected,
            TestDetail::Play(_) | TestDetail::Call(_) => &UNSEARCHED,
        }
    }

    /// What the student did (for a Pacman replay, the agent's action where
    /// it left the staff's path; nothing for a play test).
    pub fn actual(&self) -> &SearchView {
        match &self.detail {
            TestDetail::Search(search) => &search.actual,
            TestDetail::Pacman(pacman) => &pacman.actual,
            TestDetail::Play(_) | TestDetail::Call(_) => &UNSEARCHED,
        }
    }

    /// The boards drawn for a failed search, Pacman replay or call.
    pub fn boards(&self) -> &[Board] {
        match &self.detail {
            TestDetail::Search(search) => &search.boards,
            TestDetail::Pacman(pacman) => &pacman.boards,
            TestDetail::Call(call) => &call.boards,
            TestDetail::Play(_) => &[],
        }
    }

    /// A play test's games.
    pub fn play(&self) -> Option<&PlayDetails> {
        match &self.detail {
            TestDetail::Play(play) => play.as_deref(),
            TestDetail::Search(_) | TestDetail::Pacman(_) | TestDetail::Call(_) => None,
        }
    }

    /// A Pacman test's games or steps.
    pub fn pacman(&self) -> Option<&PacmanOutcome> {
        match &self.detail {
            TestDetail::Pacman(pacman) => pacman.outcome.as_ref(),
            TestDetail::Search(_) | TestDetail::Play(_) | TestDetail::Call(_) => None,
        }
    }

    /// The thresholds a test scored by them reached.
    pub fn credit(&self) -> Option<Credit> {
        match &self.detail {
            TestDetail::Pacman(pacman) => pacman.credit,
            TestDetail::Search(_) | TestDetail::Play(_) | TestDetail::Call(_) => None,
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
#[derive(Clone, Debug, PartialEq)]
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
#[derive(Clone, Debug, PartialEq)]
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
        self.tests().all(|test| test.header.status == TestStatus::Passed)
    }

    /// Every test, in report order.
    pub fn tests(&self) -> impl Iterator<Item = &TestResult> {
        self.questions.iter().flat_map(|question| &question.tests)
    }
}

/// How a search ended when the program did not answer it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FailureKind {
    /// The submission did not build.
    BuildFailed,
    /// The program could not be started.
    NotStarted,
    /// It exited or was killed during the search.
    Crashed,
    /// It did not answer within the time limit.
    TimedOut,
    /// It broke the protocol (garbage on stdout, a guessed id, ...).
    ProtocolError,
    /// The student's function is still a TODO.
    NotImplemented,
    /// The student's function raised an exception or panicked.
    Exception,
}

/// A recognised mistake.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Diagnosis {
    /// A stable name for the mistake (`reverse-children`, ...).
    pub bug: &'static str,
    /// What the student did and what to do instead; when several mistakes
    /// reproduce the evidence alike, the behaviour they share and the code
    /// shapes that produce it.
    pub explanation: String,
    /// When `bug` is a behaviour several mistakes share, those mistakes
    /// (the code shapes its explanation lists); empty otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub alternatives: Vec<&'static str>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_test_that_searched_nothing_reads_as_no_check_run_and_empty_searches() {
        let play = TestResult::new("q1/random".into(), "pig".into(), false, TestStatus::Passed, TestDetail::Play(None));
        assert_eq!(play.checks(), Checks::NOT_RUN);
        assert_eq!(play.expected(), &SearchView::default());
        assert_eq!(play.actual(), &SearchView::default());
        assert!(play.diagnosis().is_none() && play.divergence().is_none() && play.boards().is_empty());
        assert!(play.search().is_none() && play.play().is_none() && play.pacman().is_none());
        let credit = Credit { earned: 1, possible: 2 };
        let pacman = TestDetail::Pacman(Box::new(PacmanDetail { credit: Some(credit), ..PacmanDetail::default() }));
        let pacman = TestResult::new("q5/grade".into(), "q5.yaml".into(), false, TestStatus::Passed, pacman);
        assert_eq!(pacman.credit(), Some(credit));
        assert_eq!(pacman.checks(), Checks::NOT_RUN);
    }

    #[test]
    fn a_search_reads_its_own_detail() {
        let checks = Checks { value: Check::Passed, action: Check::Failed, order: Check::Passed, counts: None };
        let search = SearchDetail { checks, ..SearchDetail::default() };
        let mut test = TestResult::new(
            "q1/t".into(),
            "t.yaml".into(),
            false,
            TestStatus::Failed,
            TestDetail::Search(Box::new(search)),
        );
        assert_eq!(test.checks(), checks);
        test.search_mut().unwrap().actual.action = Some("L".into());
        assert_eq!(test.actual().action.as_deref(), Some("L"));
        assert!(test.credit().is_none() && test.play().is_none());
    }
}
