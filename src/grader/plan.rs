//! What to grade: each test of an assignment paired with its tree, its
//! settings and the reference's answer.
//!
//! The assignment itself is plain data ([`crate::assignment`]), filled by
//! the YAML loader; [`plan_tests`] and [`generated_tests`] plan file tests
//! and generated tests through one function, with the same checks.

use std::path::PathBuf;
use std::sync::Arc;

use sha2::{Digest, Sha256};

use crate::engine::random::SplitMix64;
use crate::engine::{self, Recording, SearchOutcome, SearchSettings};
use crate::game::UnfoldOptions;
use crate::generator::{GenOptions, generate};
use crate::tree::{SearchDefaults, Tree};

pub use crate::assignment::{
    Assignment, ChildOrder, Generated, Language, Question, QuestionKind, Scoring, Searches, TestFile,
};

/// The tree of a test: written out, or given by a game (docs/format.md 7).
#[derive(Clone, Debug)]
pub enum TestTree {
    /// A tree written node by node, searched and served as it is.
    Written(Arc<Tree>),
    /// A game and its position, unfolded afresh for every search.
    Game(Arc<GameTest>),
}

/// A game as a test gives it: the game with its start position, and how to
/// unfold it.
#[derive(Clone, Debug)]
pub struct GameTest {
    /// The tree's name (the file's).
    pub name: String,
    /// The file's description.
    pub description: Option<String>,
    /// The game with its start position.
    pub game: Arc<dyn crate::game::Game>,
    /// The file's search defaults.
    pub defaults: SearchDefaults,
    /// The evaluation that values depth cuts, and the node limit.
    pub options: UnfoldOptions,
}

impl TestTree {
    /// The tree's name.
    pub fn name(&self) -> &str {
        match self {
            TestTree::Written(tree) => tree.name(),
            TestTree::Game(game) => &game.name,
        }
    }

    /// The file's description.
    pub fn description(&self) -> Option<&str> {
        match self {
            TestTree::Written(tree) => tree.description(),
            TestTree::Game(game) => game.description.as_deref(),
        }
    }

    /// The file's search defaults.
    pub fn search_defaults(&self) -> SearchDefaults {
        match self {
            TestTree::Written(tree) => tree.search_defaults(),
            TestTree::Game(game) => game.defaults,
        }
    }

    /// The written tree, when it is one (pictures and the diagnosis read it whole).
    pub fn written(&self) -> Option<&Tree> {
        match self {
            TestTree::Written(tree) => Some(tree),
            TestTree::Game(_) => None,
        }
    }

    /// A fresh tree for one search: the written tree itself, or the game
    /// unfolded anew.
    pub fn unfold(&self) -> Result<Served<'_>, crate::game::GameError> {
        match self {
            TestTree::Written(tree) => Ok(Served::Written(tree)),
            TestTree::Game(game) => game.game.unfold(&game.options).map(Served::Game),
        }
    }
}

/// The tree one search is served, and read afterwards to judge it: a
/// written tree, or the game's tree unfolded for that search.
pub use crate::tree::AnyTree as Served;

impl PlannedTest {
    /// The tree to serve this test's search on. A game's tree is unfolded
    /// anew and the reference search run on it again first: the unfolding
    /// is deterministic, so the reference's node indices hold in it, and
    /// the student's nodes are added beside them.
    pub fn served(&self) -> Served<'_> {
        let served = self.tree.unfold().expect("the tree unfolded when the test was planned");
        if let Served::Game(tree) = &served {
            let replay = engine::search(&**tree, &self.settings).expect("the reference searched it when planned");
            debug_assert_eq!(replay.visited, self.reference.visited);
        }
        served
    }
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
    pub tree: TestTree,
    /// The settings the student searches with.
    pub settings: SearchSettings,
    /// What the reference engine does with them.
    pub reference: SearchOutcome,
    /// What the same search reported as it ran (windows, values, pruned
    /// children), for the report's picture and step-through.
    pub recording: Recording,
    /// Whether the order of a node's children is checked (the question's).
    pub child_order: ChildOrder,
}

/// One planned test of any kind of question: what grading it needs,
/// resolved. A play question is one entry (it becomes a test per opponent
/// when played). A new kind of question adds a variant here and its stage
/// in [`super::grade_all`].
#[derive(Clone, Debug)]
pub enum Planned {
    /// A search, with the reference's answer.
    Search(PlannedTest),
    /// A play question, with its game loaded.
    Play(PlannedPlay),
    /// A Pacman test, loaded.
    Pacman(PlannedPacman),
    /// A call test of a calls question, loaded.
    Call(PlannedCall),
}

impl Planned {
    /// The index of its question in the assignment.
    pub fn question(&self) -> usize {
        match self {
            Planned::Search(test) => test.question,
            Planned::Play(play) => play.question,
            Planned::Pacman(test) => test.question,
            Planned::Call(test) => test.question,
        }
    }

    /// The name `--test` knows it by (`q2/aima-fig5-2`); a play question has none.
    pub fn name(&self) -> Option<&str> {
        match self {
            Planned::Search(test) => Some(&test.name),
            Planned::Pacman(test) => Some(&test.name),
            Planned::Call(test) => Some(&test.name),
            Planned::Play(_) => None,
        }
    }
}

/// A call test ready to run: the call and its check, loaded.
#[derive(Clone, Debug)]
pub struct PlannedCall {
    /// Index of the question in the assignment.
    pub question: usize,
    /// `rules/01-is_game_over_connectfour`.
    pub name: String,
    /// The test file.
    pub path: PathBuf,
    /// Whether students see details.
    pub hidden: bool,
    /// The call and its check.
    pub test: Arc<crate::assignment::calls::CallTest>,
}

/// Pairs every call test of the selected questions with its loaded file
/// (`test_for`: loading is the caller's business).
pub fn plan_calls(
    assignment: &Assignment,
    selected: &[usize],
    mut test_for: impl FnMut(&TestFile) -> Arc<crate::assignment::calls::CallTest>,
) -> Vec<PlannedCall> {
    selected_files(assignment, selected, Question::call_tests)
        .map(|(question, name, file)| PlannedCall {
            question,
            name,
            path: file.path.clone(),
            hidden: file.hidden,
            test: test_for(file),
        })
        .collect()
}

/// The test files `files_of` gives for each selected question, in order,
/// each with its question's index and the name `--test` knows it by.
fn selected_files<'a>(
    assignment: &'a Assignment,
    selected: &'a [usize],
    files_of: fn(&Question) -> &[TestFile],
) -> impl Iterator<Item = (usize, String, &'a TestFile)> + 'a {
    selected.iter().flat_map(move |&index| {
        let question = &assignment.questions[index];
        files_of(question).iter().map(move |file| (index, format!("{}/{}", question.id, test_stem(file)), file))
    })
}

/// A Pacman test ready to run.
#[derive(Clone, Debug)]
pub struct PlannedPacman {
    /// Index of the question in the assignment.
    pub question: usize,
    /// `q1/grade-agent`.
    pub name: String,
    /// The test file.
    pub path: PathBuf,
    /// Whether students see details.
    pub hidden: bool,
    /// The test.
    pub test: Arc<crate::game::pacman::test::PacmanTest>,
}

impl PlannedPacman {
    /// Games the test plays (for the sandbox's budget).
    pub fn games(&self) -> usize {
        match &self.test.kind {
            crate::game::pacman::test::PacmanTestKind::Play(play) => play.games as usize,
            crate::game::pacman::test::PacmanTestKind::Replay(_) => 1,
        }
    }
}

/// A play question ready to be played: its index and its game, loaded.
#[derive(Clone, Debug)]
pub struct PlannedPlay {
    /// The question's index in the assignment.
    pub question: usize,
    /// The game, from its start position.
    pub game: Arc<dyn crate::game::Game>,
}

/// Why a test cannot be planned (the tree does not fit the question).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanError {
    /// The test.
    pub name: String,
    /// What is wrong.
    pub message: String,
}

/// Every Pacman test of the selected questions, in question order;
/// `test_for` gives the loaded test of a file (loading is the caller's).
pub fn plan_pacman(
    assignment: &Assignment,
    selected: &[usize],
    mut test_for: impl FnMut(&TestFile) -> Arc<crate::game::pacman::test::PacmanTest>,
) -> Vec<PlannedPacman> {
    selected_files(assignment, selected, Question::pacman_tests)
        .map(|(question, name, file)| PlannedPacman {
            question,
            name,
            path: file.path.clone(),
            hidden: file.hidden,
            test: test_for(file),
        })
        .collect()
}

/// Pairs every test of the selected questions with its tree and reference answer.
///
/// `tree_for` gives the loaded tree of a test file (loading is the caller's
/// business: the grader knows nothing of YAML).
pub fn plan_tests(
    assignment: &Assignment,
    selected: &[usize],
    mut tree_for: impl FnMut(&TestFile) -> TestTree,
) -> Result<Vec<PlannedTest>, Vec<PlanError>> {
    let mut planned = Vec::new();
    let mut errors = Vec::new();
    for &index in selected {
        let question = &assignment.questions[index];
        let Some(searches) = question.searches() else { continue };
        for test in &searches.tests {
            let tree = tree_for(test);
            let name = format!("{}/{}", question.id, test_stem(test));
            match plan_one(searches, index, name, test.path.clone(), test.hidden, tree) {
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
    spec: &Searches,
    question: usize,
    name: String,
    path: PathBuf,
    hidden: bool,
    tree: TestTree,
) -> Result<PlannedTest, PlanError> {
    let settings = SearchSettings::resolve(spec.algorithm, tree.search_defaults(), spec.depth, spec.prune_on_equal)
        .with_overrides(&spec.overrides);
    let refused = |message: String| PlanError { name: name.clone(), message };
    // The reference and the fragility check search one unfolding: a game's
    // tree is the same for both, and the second search reuses its nodes.
    let (reference, recording) = {
        let served = tree.unfold().map_err(|error| refused(error.to_string()))?;
        let reference = engine::search_recorded(&*served, &settings).map_err(|error| refused(error.to_string()))?;
        match engine::fragility(&*served, &settings) {
            Ok(None) => reference,
            Ok(Some(fragile)) => return Err(refused(fragile.describe(&*served, &settings))),
            Err(error) => return Err(refused(error.to_string())),
        }
    };
    let child_order = spec.child_order;
    Ok(PlannedTest { question, name, path, hidden, tree, settings, reference, recording, child_order })
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
    templates: &Templates,
) -> Result<Vec<PlannedTest>, Vec<PlanError>> {
    let mut planned = Vec::new();
    let mut errors = Vec::new();
    for &index in selected {
        let question = &assignment.questions[index];
        let Some(searches) = question.searches() else { continue };
        let Some(generated) = &searches.generate else { continue };
        let seed =
            if generated.per_student { student_seed(secret, student, &question.id) } else { generated.options.seed };
        if let Some(game) = &generated.game {
            for n in 0..generated.count {
                let name = format!("{}/generated-{}", question.id, n + 1);
                match generated_position(searches, index, game, templates, seed, n, name, student) {
                    Ok(test) => planned.push(test),
                    Err(error) => errors.push(error),
                }
            }
            continue;
        }
        let options = GenOptions { seed, ..generated.options.clone() };
        for n in 0..generated.count {
            let name = format!("{}/generated-{}", question.id, n + 1);
            let tree = TestTree::Written(Arc::new(generate(&options, u64::from(n), &name)));
            let path = PathBuf::from(format!("(generated for {student})"));
            match plan_one(searches, index, name, path, false, tree) {
                Ok(test) => planned.push(test),
                Err(error) => errors.push(error),
            }
        }
    }
    if errors.is_empty() { Ok(planned) } else { Err(errors) }
}

/// The loaded game files that `generate: {game: FILE}` advances, by path.
pub type Templates = std::collections::HashMap<PathBuf, TestTree>;

/// Attempts at drawing a position before a question's generation is refused.
const MOST_DRAWS: u64 = 64;

/// One generated position of a game: its template's start advanced by
/// seeded random moves, drawn again while the position is over, fragile,
/// not searchable with the question's settings, or larger than `max_nodes`.
#[allow(clippy::too_many_arguments)]
fn generated_position(
    searches: &Searches,
    question: usize,
    game: &crate::assignment::GameGeneration,
    templates: &Templates,
    seed: u64,
    n: u32,
    name: String,
    student: &str,
) -> Result<PlannedTest, PlanError> {
    let refused = |message: String| PlanError { name: name.clone(), message };
    let Some(TestTree::Game(base)) = templates.get(&game.template) else {
        return Err(refused(format!(
            "`generate: game` names {}, which does not give a game (`rules:`)",
            game.template.display()
        )));
    };
    let mut last = String::from("no position could be drawn");
    for draw in 0..MOST_DRAWS {
        let mut random = SplitMix64::new(seed ^ (u64::from(n) << 32) ^ draw.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let tree = base.game.unfold(&base.options).map_err(|error| refused(error.to_string()))?;
        let span = u64::from(game.plies.1 - game.plies.0) + 1;
        let plies = side_to_move_of(n, game.plies.0 + (random.next_u64() % span) as u32, game.plies);
        let mut node = crate::tree::NodeIndex::ROOT;
        let mut path = Vec::new();
        for _ in 0..plies {
            let children = tree.child_range(node);
            if children.is_empty() {
                break;
            }
            let pick = (random.next_u64() % children.len() as u64) as usize;
            path.push(pick);
            node = crate::tree::NodeIndex(children.start + pick as u32);
        }
        if tree.kind(node) == crate::tree::NodeKind::Terminal || tree.fault().is_some() {
            last = "every position drawn was already over".to_string();
            continue;
        }
        let moves = tree.id(node).into_owned();
        let advanced = base.game.advanced(&path).map_err(|error| refused(error.to_string()))?;
        let test_tree = TestTree::Game(Arc::new(GameTest {
            name: name.clone(),
            description: Some(format!("{} after the moves {moves}", base.name)),
            game: advanced,
            defaults: base.defaults,
            options: base.options.clone(),
        }));
        let path_name = PathBuf::from(format!("(generated for {student})"));
        match plan_one(searches, question, name.clone(), path_name, false, test_tree) {
            Ok(test) if wants_tie(n, draw, &test) && !later_child_ties_best(&test) => {
                last = "no position drawn has a later root child tying the best".to_string();
            }
            Ok(test) if test.reference.visited.len() <= game.max_nodes => return Ok(test),
            Ok(test) => {
                last = format!(
                    "the positions drawn need more than max_nodes ({}) nodes, e.g. {}",
                    game.max_nodes,
                    test.reference.visited.len()
                );
            }
            Err(error) => last = error.message,
        }
    }
    Err(refused(format!("no position of {} fits after {MOST_DRAWS} draws: {last}", base.name)))
}

/// The plies to advance for a question's `n`-th position: each position
/// of a student's set moves the other side from the one before (its parity
/// follows `n`), so that depth cuts fall on positions of both sides to move
/// and a search that values a cut from the wrong side's view is seen.
/// Kept within `range`; a range of one ply keeps its ply.
fn side_to_move_of(n: u32, plies: u32, range: (u32, u32)) -> u32 {
    if plies % 2 == n % 2 {
        plies
    } else if plies < range.1 {
        plies + 1
    } else if plies > range.0 {
        plies - 1
    } else {
        plies
    }
}

/// Whether the draw of a question's `n`-th position must have a later root
/// child tying the best: the first position of each student's set does,
/// for its first half of draws, so that a search keeping the last of equal
/// children is seen (the rest of the draws take any position). Only
/// minimax and alpha-beta choose among the root's children by value.
fn wants_tie(n: u32, draw: u64, test: &PlannedTest) -> bool {
    n == 0 && draw < MOST_DRAWS / 2 && test.settings.algorithm.exact_root_ties()
}

/// Whether a search that keeps the last of equal root children answers
/// `test` differently from the reference (true only for minimax and
/// alpha-beta, whose root chooses among children by value).
fn later_child_ties_best(test: &PlannedTest) -> bool {
    use crate::engine::variant::{self, Slips};
    let Ok(served) = test.tree.unfold() else { return false };
    let slips = Slips { last_best_at_root: true, ..Slips::default() };
    variant::search(&*served, &test.settings, slips).is_ok_and(|outcome| outcome.action != test.reference.action)
}

/// Whether any selected question generates trees.
pub fn has_generated(assignment: &Assignment, selected: &[usize]) -> bool {
    selected.iter().any(|&index| assignment.questions[index].generate().is_some())
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
