//! The assignment model: questions worth points, the tests they run, and
//! how submissions are run. Plain data, below both the loader (which fills
//! it from `assignment.yaml`) and the grader (which plans and grades it),
//! as [`crate::tree`] is for trees.

pub mod calls;

use std::path::PathBuf;
use std::time::Duration;

use crate::engine::{Algorithm, SettingOverrides};
use crate::generator::GenOptions;
use crate::play::builtin::BuiltIn;
use crate::points::Points;
use crate::thresholds::Thresholds;

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
    /// Command that starts the searcher; `{kits}` in a word is replaced by the kits folder.
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
    /// A play question: a share of the points per threshold its measures
    /// reach, 0 when one is below its minimum (as CS188 scores its games).
    Thresholds,
}

/// In which order a search may take a node's children (`child_order:`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ChildOrder {
    /// In the order the tree gives them: the visited order must be the
    /// reference's, step for step (the default; how pruning is checked).
    #[default]
    Given,
    /// In any order: the search must still be depth-first and enter exactly
    /// the reference's nodes. For minimax and expectimax, whose results do
    /// not depend on it, in a course (CS188's) that never asked for one.
    Any,
}

/// One question of an assignment: what every question has, and its kind.
#[derive(Clone, Debug, PartialEq)]
pub struct Question {
    /// Short id (`q1`), used by `-q`.
    pub id: String,
    /// Title for reports.
    pub title: String,
    /// Points the question is worth.
    pub points: Points,
    /// How points are earned.
    pub scoring: Scoring,
    /// What the question asks, with the data of its kind alone.
    pub kind: QuestionKind,
}

/// The kinds of question. A kind is added here, in the loader, and in the
/// grader's plan (`grader::plan`), which pairs its tests with what grading
/// them needs; `grader::grade_all` grades each kind's stage in turn.
// An assignment holds a handful of questions: a search question's size is no matter.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum QuestionKind {
    /// The student's search is served trees (written, from games, or
    /// generated) and judged against the reference's.
    Search(Searches),
    /// The student's agent plays whole games against opponents (`play:`).
    Play(Play),
    /// The student's agent plays CS188's Pacman (docs/format.md section 10),
    /// and nothing else.
    Pacman(Vec<TestFile>),
    /// Functions and values of the student's program called and their
    /// answers checked (`calls:`, docs/format.md "Calls questions"): the
    /// call test files.
    Calls(Vec<TestFile>),
}

/// A question whose tests are searches.
#[derive(Clone, Debug, PartialEq)]
pub struct Searches {
    /// The search students implement.
    pub algorithm: Algorithm,
    /// Overrides each tree's `search.depth`.
    pub depth: Option<u32>,
    /// Overrides each tree's `search.prune_on_equal`.
    pub prune_on_equal: Option<bool>,
    /// Override each tree's `search.budget`, `iterations`, `seed` and
    /// `exploration` (docs/format.md 8.2, 8.4).
    pub overrides: SettingOverrides,
    /// Whether the order of a node's children is checked.
    pub child_order: ChildOrder,
    /// The tree files, resolved and sorted.
    pub tests: Vec<TestFile>,
    /// Trees generated for each student, in addition to `tests`.
    pub generate: Option<Generated>,
    /// Pacman test files played after the searches, with the same agent
    /// (CS188's minimax questions check graph searches and Pacman games).
    pub pacman: Vec<TestFile>,
}

impl Searches {
    /// A search question on `tests` with every other setting the default:
    /// each tree's own depth and pruning convention, children in order,
    /// nothing generated, no Pacman tests.
    pub fn new(algorithm: Algorithm, tests: Vec<TestFile>) -> Searches {
        Searches {
            algorithm,
            depth: None,
            prune_on_equal: None,
            overrides: SettingOverrides::default(),
            child_order: ChildOrder::Given,
            tests,
            generate: None,
            pacman: Vec::new(),
        }
    }
}

impl Question {
    /// The searches of a search question.
    pub fn searches(&self) -> Option<&Searches> {
        match &self.kind {
            QuestionKind::Search(searches) => Some(searches),
            QuestionKind::Play(_) | QuestionKind::Pacman(_) | QuestionKind::Calls(_) => None,
        }
    }

    /// The games of a play question.
    pub fn play(&self) -> Option<&Play> {
        match &self.kind {
            QuestionKind::Play(play) => Some(play),
            QuestionKind::Search(_) | QuestionKind::Pacman(_) | QuestionKind::Calls(_) => None,
        }
    }

    /// The call test files of a calls question (none for the other kinds).
    pub fn call_tests(&self) -> &[TestFile] {
        match &self.kind {
            QuestionKind::Calls(tests) => tests,
            QuestionKind::Search(_) | QuestionKind::Play(_) | QuestionKind::Pacman(_) => &[],
        }
    }

    /// The tree files a search question serves (none for the other kinds).
    pub fn tree_tests(&self) -> &[TestFile] {
        self.searches().map_or(&[], |searches| &searches.tests)
    }

    /// The Pacman test files the question plays, of either kind that has them.
    pub fn pacman_tests(&self) -> &[TestFile] {
        match &self.kind {
            QuestionKind::Search(searches) => &searches.pacman,
            QuestionKind::Pacman(tests) => tests,
            QuestionKind::Play(_) | QuestionKind::Calls(_) => &[],
        }
    }

    /// A search question's generated trees.
    pub fn generate(&self) -> Option<&Generated> {
        self.searches().and_then(|searches| searches.generate.as_ref())
    }
}

/// A question graded by playing whole games against opponents (`play:`).
#[derive(Clone, Debug, PartialEq)]
pub struct Play {
    /// The game.
    pub game: PlayGame,
    /// The evaluation served with every node, and built-in opponents' by default.
    pub eval: Option<String>,
    /// Whom the submission plays, each with the measures it is scored on.
    pub opponents: Vec<Opponent>,
    /// Games against each opponent (pairs share an opening, colours alternating).
    pub games: u32,
    /// Random plies at the start of each game.
    pub openings: u32,
    /// The seed every random number derives from.
    pub seed: u64,
    /// Nodes the submission may enter per move (the clock counted in nodes).
    pub budget: Option<u32>,
    /// The time limit of a move (the agent's CPU time), the safety net.
    pub move_time_limit: Duration,
    /// A game still going after this many plies is a draw.
    pub max_plies: u32,
}

/// The game a play question plays.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlayGame {
    /// A built-in game by name (`tic-tac-toe`, `connect-four`, `pig`).
    BuiltIn(String),
    /// A game file (docs/format.md 7): rules, parameters, a start position.
    File(PathBuf),
}

impl PlayGame {
    /// What reports call it.
    pub fn name(&self) -> String {
        match self {
            PlayGame::BuiltIn(name) => name.clone(),
            PlayGame::File(path) => path.file_stem().map_or_else(String::new, |s| s.to_string_lossy().into_owned()),
        }
    }
}

/// One opponent of a play question and how the submission is scored against it.
#[derive(Clone, Debug, PartialEq)]
pub struct Opponent {
    /// What reports call it (unique in the question).
    pub name: String,
    /// Who it is.
    pub agent: OpponentAgent,
    /// The measures scored, each with its thresholds.
    pub measures: Vec<Measure>,
}

/// A built-in agent, or a program of the course's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OpponentAgent {
    /// One of `play::builtin`'s.
    BuiltIn(BuiltIn),
    /// A program in this folder (the course's reference or "secret" agent),
    /// run in a sandbox of its own like a submission.
    Program(PathBuf),
}

/// What is measured of the submission's games against one opponent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MeasureKind {
    /// Games won.
    Wins,
    /// Games drawn.
    Draws,
    /// Games won or drawn.
    NotLost,
    /// The average utility (the submission's view).
    Utility,
    /// Games without a timeout charged to the submission.
    NoTimeout,
    /// Games without any failure charged to the submission.
    Clean,
}

impl MeasureKind {
    /// Every measure, as `thresholds:` names them.
    pub const ALL: [MeasureKind; 6] = [
        MeasureKind::Wins,
        MeasureKind::Draws,
        MeasureKind::NotLost,
        MeasureKind::Utility,
        MeasureKind::NoTimeout,
        MeasureKind::Clean,
    ];

    /// The key in `thresholds:`.
    pub fn key(self) -> &'static str {
        match self {
            MeasureKind::Wins => "wins",
            MeasureKind::Draws => "draws",
            MeasureKind::NotLost => "not_lost",
            MeasureKind::Utility => "utility",
            MeasureKind::NoTimeout => "no_timeout",
            MeasureKind::Clean => "clean",
        }
    }

    /// What games it counts, after "3 of 10 games": `won`, `not lost`, ...
    pub fn counted(self) -> &'static str {
        match self {
            MeasureKind::Wins => "won",
            MeasureKind::Draws => "drawn",
            MeasureKind::NotLost => "not lost",
            MeasureKind::Utility => "played",
            MeasureKind::NoTimeout => "without a timeout",
            MeasureKind::Clean => "without a failure",
        }
    }

    /// Words for reports.
    pub fn words(self) -> &'static str {
        match self {
            MeasureKind::Wins => "games won",
            MeasureKind::Draws => "games drawn",
            MeasureKind::NotLost => "games not lost",
            MeasureKind::Utility => "average utility",
            MeasureKind::NoTimeout => "games without a timeout",
            MeasureKind::Clean => "games without a failure",
        }
    }
}

/// One measure with its thresholds.
#[derive(Clone, Debug, PartialEq)]
pub struct Measure {
    /// What is measured.
    pub kind: MeasureKind,
    /// Its minimum and thresholds.
    pub thresholds: Thresholds,
}

/// A question's generated trees.
#[derive(Clone, Debug, PartialEq)]
pub struct Generated {
    /// How the trees are made (the seed is derived per student when grading).
    pub options: GenOptions,
    /// Trees per student.
    pub count: u32,
    /// `seed_from: student`: every student gets their own trees; otherwise
    /// everyone gets the trees of `options.seed`.
    pub per_student: bool,
    /// Positions of a game instead of written trees (`game: FILE`).
    pub game: Option<GameGeneration>,
}

/// Positions of a game generated for each student: the game file's start
/// advanced by seeded random moves, so every position is reachable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameGeneration {
    /// The game file (its rules, utility and `search:` block) whose start is advanced.
    pub template: PathBuf,
    /// How many random moves, drawn from this inclusive range.
    pub plies: (u32, u32),
    /// A position whose reference search enters more nodes is drawn again.
    pub max_nodes: usize,
}

/// One tree file a question runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestFile {
    /// Where the tree is.
    pub path: PathBuf,
    /// Hidden tests show students only whether they passed.
    pub hidden: bool,
}
