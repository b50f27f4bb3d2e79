//! Preparing a grading run: the assignment's files loaded once, each
//! selected question's tests planned (the reference's answers, the games
//! loaded and checked), resolved into one [`Plan`] that `check`, `batch`,
//! `validate` and `gradescope` all grade or inspect.
//!
//! Loading is the loader's ([`crate::load`]); this module pairs what it
//! loads with the questions and says, as a [`PlanningError`], why an
//! assignment cannot be graded.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::plan::{
    self, Assignment, GameTest, PlanError, Planned, PlannedCall, PlannedPacman, PlannedPlay, PlannedTest, Templates,
    TestTree,
};
use crate::assignment::{OpponentAgent, PlayGame};
use crate::game::Game;
use crate::game::pacman::test::PacmanTest;
use crate::load::pacman::load_pacman_file;
use crate::load::{LoadError, Loaded, load_file};

/// Why an assignment cannot be planned. Every variant is a problem with the
/// assignment or the request (its files, its questions, the names asked
/// for): the loader reports a file it cannot read as a [`LoadError`] too.
#[derive(Debug, thiserror::Error)]
pub enum PlanningError {
    /// Files that cannot be loaded, each with its place.
    #[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))]
    Load(Vec<LoadError>),
    /// Tests that do not fit their questions (a depth limit without evals, a fragile tree, ...).
    #[error("the assignment's tests do not fit their questions:\n  {}", lines(.0))]
    Unfit(Vec<PlanError>),
    /// A course's rules program answered a question two ways.
    #[error("{}: {error}", .path.display())]
    Unsteady {
        /// The game file.
        path: PathBuf,
        /// What it answered.
        #[source]
        error: crate::game::GameError,
    },
    /// A built-in game that cannot be made with the question's settings.
    #[error("game `{name}`: {message}")]
    BuiltInGame {
        /// The game's name.
        name: String,
        /// Why.
        message: String,
    },
    /// A play question's file is a written tree, not a game.
    #[error("{}: a play question plays a game (a file with `rules:`), not a written tree", .0.display())]
    NotAGame(PathBuf),
    /// A play question whose evaluation or opponents do not fit its game.
    #[error("question `{question}`: {message}")]
    Play {
        /// The question's id.
        question: String,
        /// What does not fit.
        message: String,
    },
    /// `-q` names no question of the assignment.
    #[error("no question `{wanted}` in this assignment (it has {})", .known.join(", "))]
    NoQuestion {
        /// The id asked for.
        wanted: String,
        /// The assignment's question ids.
        known: Vec<String>,
    },
    /// `--test` names no test of the questions graded.
    #[error("no test `{wanted}` in the questions graded (they have {}{})", .known.join(", "), if *.more { ", ..." } else { "" })]
    NoTest {
        /// The name asked for.
        wanted: String,
        /// The first few tests' names.
        known: Vec<String>,
        /// Whether there are more than `known`.
        more: bool,
    },
}

fn lines(errors: &[PlanError]) -> String {
    errors.iter().map(|e| format!("{}: {}", e.name, e.message)).collect::<Vec<_>>().join("\n  ")
}

/// Everything a grading run grades, loaded and planned once: the questions
/// selected and their tests of every kind, in the order they are graded.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Indices of the questions graded.
    pub selected: Vec<usize>,
    /// The tests of the selected questions, each kind's in question order.
    pub tests: Vec<Planned>,
    /// The game files whose positions are generated per student.
    pub templates: Templates,
}

impl Plan {
    /// A plan of search tests already planned (a library caller's).
    pub fn of_searches(selected: &[usize], tests: &[PlannedTest]) -> Plan {
        Plan {
            selected: selected.to_vec(),
            tests: tests.iter().cloned().map(Planned::Search).collect(),
            templates: Templates::new(),
        }
    }

    /// The search tests, in order.
    pub fn searches(&self) -> impl Iterator<Item = &PlannedTest> {
        self.tests.iter().filter_map(|test| match test {
            Planned::Search(test) => Some(test),
            Planned::Play(_) | Planned::Pacman(_) | Planned::Call(_) => None,
        })
    }

    /// The play questions, in order.
    pub fn plays(&self) -> impl Iterator<Item = &PlannedPlay> {
        self.tests.iter().filter_map(|test| match test {
            Planned::Play(play) => Some(play),
            Planned::Search(_) | Planned::Pacman(_) | Planned::Call(_) => None,
        })
    }

    /// The Pacman tests, in order.
    pub fn pacman(&self) -> impl Iterator<Item = &PlannedPacman> {
        self.tests.iter().filter_map(|test| match test {
            Planned::Pacman(test) => Some(test),
            Planned::Search(_) | Planned::Play(_) | Planned::Call(_) => None,
        })
    }

    /// The call tests, in order.
    pub fn calls(&self) -> impl Iterator<Item = &PlannedCall> {
        self.tests.iter().filter_map(|test| match test {
            Planned::Call(test) => Some(test),
            Planned::Search(_) | Planned::Play(_) | Planned::Pacman(_) => None,
        })
    }

    /// The plan with one student's generated tests added after the others.
    pub fn for_student(&self, assignment: &Assignment, student: &str, secret: &str) -> Result<Plan, Vec<PlanError>> {
        let generated = plan::generated_tests(assignment, &self.selected, student, secret, &self.templates)?;
        let mut plan = self.clone();
        plan.tests.extend(generated.into_iter().map(Planned::Search));
        Ok(plan)
    }

    /// Keeps the tests `wanted` names (all of them when none is named): a
    /// full name (`q2/aima-fig5-2`), or a tree's name in any question; the
    /// questions none of whose tests is named are no longer graded.
    pub fn keep_named(&mut self, wanted: &[String]) -> Result<(), PlanningError> {
        if wanted.is_empty() {
            return Ok(());
        }
        let matches = |test: &str, name: &str| {
            test.eq_ignore_ascii_case(name)
                || test.rsplit_once('/').is_some_and(|(_, tree)| tree.eq_ignore_ascii_case(name))
        };
        let names: Vec<&str> = self.tests.iter().filter_map(Planned::name).collect();
        if let Some(missing) = wanted.iter().find(|name| !names.iter().any(|test| matches(test, name))) {
            return Err(PlanningError::NoTest {
                wanted: missing.clone(),
                known: names.iter().take(6).map(|name| name.to_string()).collect(),
                more: names.len() > 6,
            });
        }
        // A play question has no test of its own to name: it goes with its question.
        self.tests.retain(|test| test.name().is_some_and(|test| wanted.iter().any(|name| matches(test, name))));
        let tests = &self.tests;
        self.selected.retain(|&question| tests.iter().any(|test| test.question() == question));
        Ok(())
    }
}

/// The questions `wanted` names (any case), or every question when none is named.
pub fn select(assignment: &Assignment, wanted: &[String]) -> Result<Vec<usize>, PlanningError> {
    if wanted.is_empty() {
        return Ok((0..assignment.questions.len()).collect());
    }
    wanted
        .iter()
        .map(|id| {
            assignment.questions.iter().position(|q| q.id.eq_ignore_ascii_case(id)).ok_or_else(|| {
                PlanningError::NoQuestion {
                    wanted: id.clone(),
                    known: assignment.questions.iter().map(|q| q.id.clone()).collect(),
                }
            })
        })
        .collect()
}

/// Loads every test file of the selected questions once and plans each
/// kind's tests: searches with the reference's answers, play questions
/// with their games, Pacman tests. Generated trees are planned once for a
/// stand-in student, so that settings the reference cannot search are
/// refused before anyone is graded.
pub fn prepare(assignment: &Assignment, selected: &[usize]) -> Result<Plan, PlanningError> {
    let (searches, templates) = plan_searches(assignment, selected)?;
    let plays = plan_plays(assignment, selected)?;
    let pacman = plan_pacman(assignment, selected)?;
    let calls = plan_calls(assignment, selected)?;
    let tests = (searches.into_iter().map(Planned::Search))
        .chain(calls.into_iter().map(Planned::Call))
        .chain(plays.into_iter().map(Planned::Play))
        .chain(pacman.into_iter().map(Planned::Pacman))
        .collect();
    Ok(Plan { selected: selected.to_vec(), tests, templates })
}

/// Loads every call test of the selected questions (docs/format.md, "Calls questions").
fn plan_calls(assignment: &Assignment, selected: &[usize]) -> Result<Vec<PlannedCall>, PlanningError> {
    let mut loaded: HashMap<PathBuf, Arc<crate::assignment::calls::CallTest>> = HashMap::new();
    let mut errors: Vec<LoadError> = Vec::new();
    for &index in selected {
        for file in assignment.questions[index].call_tests() {
            if loaded.contains_key(&file.path) {
                continue;
            }
            match crate::load::calls::load_call_file(&file.path) {
                Ok(test) => {
                    loaded.insert(file.path.clone(), Arc::new(test));
                }
                Err(error) => errors.push(error),
            }
        }
    }
    if !errors.is_empty() {
        return Err(PlanningError::Load(errors));
    }
    Ok(plan::plan_calls(assignment, selected, |file| Arc::clone(&loaded[&file.path])))
}

/// Loads every Pacman test of the selected questions (docs/format.md 10).
fn plan_pacman(assignment: &Assignment, selected: &[usize]) -> Result<Vec<PlannedPacman>, PlanningError> {
    let mut loaded: HashMap<PathBuf, Arc<PacmanTest>> = HashMap::new();
    let mut errors: Vec<LoadError> = Vec::new();
    for &index in selected {
        for file in assignment.questions[index].pacman_tests() {
            if loaded.contains_key(&file.path) {
                continue;
            }
            match load_pacman_file(&file.path) {
                Ok(test) => {
                    loaded.insert(file.path.clone(), Arc::new(test));
                }
                Err(error) => errors.push(error),
            }
        }
    }
    if !errors.is_empty() {
        return Err(PlanningError::Load(errors));
    }
    Ok(plan::plan_pacman(assignment, selected, |file| Arc::clone(&loaded[&file.path])))
}

/// A loaded file as a test's tree.
pub fn test_tree(loaded: Loaded) -> TestTree {
    match loaded {
        Loaded::Written(written) => TestTree::Written(Arc::new(written.tree)),
        Loaded::Game(game) => TestTree::Game(Arc::new(GameTest {
            name: game.name().to_string(),
            description: game.description().map(str::to_string),
            game: Arc::clone(&game.game),
            defaults: game.defaults().search,
            options: game.unfold_options(),
        })),
    }
}

/// The game files that the selected questions generate positions of.
fn load_templates(assignment: &Assignment, selected: &[usize]) -> Result<Templates, PlanningError> {
    let mut templates = Templates::new();
    for &index in selected {
        let Some(game) = assignment.questions[index].generate().and_then(|g| g.game.as_ref()) else { continue };
        if !templates.contains_key(&game.template) {
            let loaded = load_file(&game.template).map_err(|error| PlanningError::Load(vec![error]))?;
            templates.insert(game.template.clone(), test_tree(loaded));
        }
    }
    Ok(templates)
}

/// The games of the selected play questions, loaded, each checked against
/// its question (built-in opponents have the evaluations they need).
fn plan_plays(assignment: &Assignment, selected: &[usize]) -> Result<Vec<PlannedPlay>, PlanningError> {
    let mut plays = Vec::new();
    for &index in selected {
        let question = &assignment.questions[index];
        let Some(play) = question.play() else { continue };
        let game = load_play_game(&play.game)?;
        let refuse = |message: String| PlanningError::Play { question: question.id.clone(), message };
        if let Some(eval) = &play.eval
            && !game.evaluations().contains(eval)
        {
            return Err(refuse(crate::game::unknown_evaluation(
                game.name(),
                eval,
                &game.evaluations().iter().map(String::as_str).collect::<Vec<_>>(),
            )));
        }
        for opponent in &play.opponents {
            if let OpponentAgent::BuiltIn(builtin) = &opponent.agent {
                builtin.check(&*game, play.eval.as_deref()).map_err(|refused| refuse(refused.to_string()))?;
            }
        }
        plays.push(PlannedPlay { question: index, game });
    }
    Ok(plays)
}

/// A play question's game: a built-in one from its start, or a game file.
pub fn load_play_game(game: &PlayGame) -> Result<Arc<dyn Game>, PlanningError> {
    match game {
        PlayGame::BuiltIn(name) => {
            crate::game::make(&crate::game::GameArgs { name, params: &[], position: None, utility: None })
                .map(Arc::from)
                .map_err(|error| PlanningError::BuiltInGame { name: name.clone(), message: error.message })
        }
        PlayGame::File(path) => match load_file(path).map_err(|error| PlanningError::Load(vec![error]))? {
            Loaded::Game(loaded) => {
                loaded.verify().map_err(|error| PlanningError::Load(vec![error]))?;
                Ok(Arc::clone(&loaded.game))
            }
            Loaded::Written(_) => Err(PlanningError::NotAGame(path.clone())),
        },
    }
}

/// Loads every test tree once and pairs it with the reference's answer; the
/// game files that generated questions advance come back beside the tests.
fn plan_searches(assignment: &Assignment, selected: &[usize]) -> Result<(Vec<PlannedTest>, Templates), PlanningError> {
    let mut trees: HashMap<PathBuf, TestTree> = HashMap::new();
    let mut errors: Vec<LoadError> = Vec::new();
    for &index in selected {
        for test in assignment.questions[index].tree_tests() {
            if trees.contains_key(&test.path) {
                continue;
            }
            match load_file(&test.path) {
                Ok(loaded) => {
                    trees.insert(test.path.clone(), test_tree(loaded));
                }
                Err(error) => errors.push(error),
            }
        }
    }
    if !errors.is_empty() {
        return Err(PlanningError::Load(errors));
    }
    let tests =
        plan::plan_tests(assignment, selected, |test| trees[&test.path].clone()).map_err(PlanningError::Unfit)?;
    verify_games(&trees)?;
    // Generated trees depend on the student; planning them once for a stand-in
    // student finds the settings the reference cannot search before anyone is graded.
    let templates = load_templates(assignment, selected)?;
    plan::generated_tests(assignment, selected, "(assignment check)", "", &templates).map_err(PlanningError::Unfit)?;
    Ok((tests, templates))
}

/// A course's rules program must have answered every question the same way twice.
fn verify_games(trees: &HashMap<PathBuf, TestTree>) -> Result<(), PlanningError> {
    for (path, tree) in trees {
        if let TestTree::Game(game) = tree
            && let Err(error) = game.game.verify()
        {
            return Err(PlanningError::Unsteady { path: Path::to_path_buf(path), error });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assignment::{Question, QuestionKind, Scoring};
    use crate::points::Points;

    fn assignment(ids: &[&str]) -> Assignment {
        let question = |id: &&str| Question {
            id: id.to_string(),
            title: id.to_string(),
            points: Points::whole(1),
            scoring: Scoring::PerTest,
            kind: QuestionKind::Pacman(Vec::new()),
        };
        Assignment {
            name: "a".into(),
            title: "A".into(),
            dir: PathBuf::from("."),
            time_limit: std::time::Duration::from_secs(1),
            languages: Vec::new(),
            questions: ids.iter().map(question).collect(),
        }
    }

    #[test]
    fn questions_are_selected_in_any_case_and_an_unknown_one_names_the_others() {
        let assignment = assignment(&["q1", "q2"]);
        assert_eq!(select(&assignment, &[]).unwrap(), [0, 1]);
        assert_eq!(select(&assignment, &["Q2".to_string()]).unwrap(), [1]);
        let error = select(&assignment, &["q9".to_string()]).unwrap_err();
        assert_eq!(error.to_string(), "no question `q9` in this assignment (it has q1, q2)");
    }

    #[test]
    fn a_test_named_that_no_question_has_is_refused() {
        let assignment = assignment(&["q1"]);
        let mut plan = prepare(&assignment, &[0]).unwrap();
        assert!(plan.keep_named(&[]).is_ok(), "no name keeps everything");
        let error = plan.keep_named(&["missing".to_string()]).unwrap_err();
        assert!(matches!(error, PlanningError::NoTest { ref wanted, .. } if wanted == "missing"), "{error:?}");
        assert_eq!(error.to_string(), "no test `missing` in the questions graded (they have )");
    }

    #[test]
    fn unfit_tests_are_listed_one_a_line() {
        let unfit = PlanningError::Unfit(vec![
            PlanError { name: "q1/a".into(), message: "needs evals".into() },
            PlanError { name: "q1/b".into(), message: "fragile".into() },
        ]);
        assert_eq!(
            unfit.to_string(),
            "the assignment's tests do not fit their questions:\n  q1/a: needs evals\n  q1/b: fragile"
        );
    }
}
