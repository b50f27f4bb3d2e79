//! A CS188 course as a treegrade assignment.
//!
//! `treegrade import cs188 DISTRIBUTION -o COURSE` writes the trees, the
//! Pacman tests and an `assignment.yaml` that grades an unchanged
//! `multiAgents.py` as CS188 does: one question per test folder (`q1` to
//! `q5`), worth the points its `CONFIG` gives, all-or-nothing where CS188's
//! class is `PassAllTestsQuestion` (a Pacman game test beside the graph
//! tests), partial credit by thresholds for whole games, strict pruning
//! (CS188 never prunes on equality), and one language entry that runs the
//! CS188 kit (`grader/kits/cs188/treegrade_cs188.py`) on a folder holding
//! `multiAgents.py`.

use std::collections::BTreeMap;
use std::path::Path;

use super::cs188::{Agent, ImportError, parse_fields};
use crate::assignment::{ChildOrder, Language, Scoring};
use crate::load::write::{AssignmentDraft, QuestionDraft};
use crate::points::Points;

/// CS188's question class whose points go to a question whose tests all pass.
pub const ALL_OR_NOTHING_CLASS: &str = "PassAllTestsQuestion";

/// One imported test, as the course lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CourseTest {
    /// The question it belongs to: the name of the folder the `.test` file is in.
    pub question: String,
    /// What kind of test, and for which agent.
    pub kind: CourseTestKind,
    /// The file's name inside the course's tests folder.
    pub file_name: String,
}

/// What an imported test is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CourseTestKind {
    /// A game tree (`GraphGameTreeTest`) searched by this agent.
    Tree(Agent),
    /// The staff's Pacman path checked step by step (`PacmanGameTreeTest`) for this agent.
    Replay(Agent),
    /// Whole Pacman games (`EvalAgentTest`); the question's title.
    Play(String),
}

impl CourseTestKind {
    /// The search agent, for tree and replay tests.
    fn agent(&self) -> Option<Agent> {
        match self {
            CourseTestKind::Tree(agent) | CourseTestKind::Replay(agent) => Some(*agent),
            CourseTestKind::Play(_) => None,
        }
    }
}

/// A question folder's `CONFIG` file: `max_points` and `class`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QuestionConfig {
    /// `max_points`, when given.
    pub max_points: Option<f64>,
    /// `class` (`PassAllTestsQuestion`, ...), when given.
    pub class: Option<String>,
}

/// Parses a `CONFIG` file's text; `file` only names it in errors.
pub fn parse_config(text: &str, file: &Path) -> Result<QuestionConfig, ImportError> {
    let fields = parse_fields(text, file)?;
    Ok(QuestionConfig {
        max_points: fields.get("max_points").and_then(|field| field.value.trim().parse().ok()),
        class: fields.get("class").map(|field| field.value.trim().to_string()),
    })
}

/// The language entry that runs the CS188 kit on a folder holding `multiAgents.py`.
pub fn cs188_language() -> Language {
    Language {
        name: "python-cs188".to_string(),
        detect: vec!["multiAgents.py".to_string()],
        build: None,
        build_time_limit: std::time::Duration::from_secs(0),
        run: ["python3", "-S", "-u", "{kits}/cs188/treegrade_cs188.py"].map(String::from).to_vec(),
        // The same set and dict orders on every run: a student's grade never depends on Python's hash seed.
        env: vec![
            ("PYTHONPATH".to_string(), "{kits}/python".to_string()),
            ("PYTHONHASHSEED".to_string(), "0".to_string()),
        ],
    }
}

/// A question's `CONFIG` whose `max_points` is not a number of points.
#[derive(Debug, thiserror::Error, PartialEq)]
#[error("the CONFIG of `{id}` gives max_points {points}, which is not a number of points")]
pub struct PointsError {
    /// The question.
    pub id: String,
    /// What it gives.
    pub points: f64,
}

/// The course's assignment: one question per folder, in folder-name order.
///
/// A folder without a `CONFIG` gets one point per test, scored per test. A
/// folder whose tests run different agents becomes one question per agent
/// (`FOLDER-minimax`, ...), since a question checks one algorithm; whole-game
/// tests join the folder's first question.
///
/// Fails on a question's `CONFIG` whose points are not a number of points.
pub fn course_draft(
    name: &str,
    tests: &[CourseTest],
    configs: &BTreeMap<String, QuestionConfig>,
) -> Result<AssignmentDraft, PointsError> {
    let mut by_folder: BTreeMap<&str, BTreeMap<Option<Agent>, Vec<&CourseTest>>> = BTreeMap::new();
    for test in tests {
        by_folder.entry(&test.question).or_default().entry(test.kind.agent()).or_default().push(test);
    }
    let mut questions = Vec::new();
    for (folder, by_agent) in &mut by_folder {
        let config = configs.get(*folder).cloned().unwrap_or_default();
        // Whole games join the folder's first search question, if it has one.
        if by_agent.len() > 1
            && let Some(games) = by_agent.remove(&None)
        {
            by_agent.values_mut().next().expect("another question").extend(games);
        }
        let searches = by_agent.len();
        for (agent, tests) in by_agent.iter() {
            let id = match (searches, agent) {
                (1, _) | (_, None) => folder.to_string(),
                (_, Some(agent)) => format!("{folder}-{}", agent.algorithm().name()),
            };
            questions.push(question(id, *agent, tests, &config)?);
        }
    }
    Ok(AssignmentDraft {
        comment: vec![
            "CS188 multiagent tests, imported by `treegrade import cs188`.".to_string(),
            "Students hand in their unchanged multiAgents.py; the CS188 kit runs its agents.".to_string(),
            "Depths in the trees are plies (CS188's depth x agents); CS188 prunes only on strict inequality."
                .to_string(),
        ],
        name: name.to_string(),
        title: "CS188 multiagent search: minimax, alpha-beta, expectimax".to_string(),
        tests_dir: "tests".to_string(),
        languages: vec![cs188_language()],
        questions,
    })
}

/// One question: its tests, worth the folder's `CONFIG` points.
fn question(
    id: String,
    agent: Option<Agent>,
    tests: &[&CourseTest],
    config: &QuestionConfig,
) -> Result<QuestionDraft, PointsError> {
    {
        let points = config.max_points.unwrap_or(tests.len() as f64);
        let Some(points) = Points::from_decimal(points) else {
            return Err(PointsError { id, points });
        };
        let scoring = match config.class.as_deref() {
            Some(ALL_OR_NOTHING_CLASS) => Scoring::AllOrNothing,
            _ => Scoring::PerTest,
        };
        let files = |tree: bool| {
            let mut files: Vec<String> = tests
                .iter()
                .filter(|test| matches!(test.kind, CourseTestKind::Tree(_)) == tree)
                .map(|test| test.file_name.clone())
                .collect();
            files.sort();
            files
        };
        let title = match (
            agent,
            tests.iter().find_map(|test| match &test.kind {
                CourseTestKind::Play(title) => Some(title.as_str()),
                _ => None,
            }),
        ) {
            (Some(agent), _) => question_title(agent).to_string(),
            (None, Some(title)) => title.to_string(),
            (None, None) => id.clone(),
        };
        Ok(QuestionDraft {
            id,
            title,
            points,
            algorithm: agent.map(Agent::algorithm),
            prune_on_equal: agent.map(|_| false),
            scoring,
            // CS188's graph tests check which states a search generates, not
            // in which order; where the order changes no result, neither
            // does treegrade: a search that shuffles its moves still passes
            // if it is depth-first. Alpha-beta's order decides its pruning.
            child_order: if agent == Some(Agent::AlphaBeta) || agent.is_none() {
                ChildOrder::Given
            } else {
                ChildOrder::Any
            },
            tests: files(true),
            pacman: files(false),
            calls: Vec::new(),
        })
    }
}

/// The question's title, as CS188's project page names it.
fn question_title(agent: Agent) -> &'static str {
    match agent {
        Agent::Minimax => "Minimax",
        Agent::AlphaBeta => "Alpha-Beta Pruning",
        Agent::Expectimax => "Expectimax",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn test(question: &str, agent: Agent, file: &str) -> CourseTest {
        CourseTest { question: question.to_string(), kind: CourseTestKind::Tree(agent), file_name: file.to_string() }
    }

    #[test]
    fn one_question_per_folder_with_cs188_points() {
        let tests = [
            test("q3", Agent::AlphaBeta, "q3-b.yaml"),
            test("q2", Agent::Minimax, "q2-a.yaml"),
            test("q3", Agent::AlphaBeta, "q3-a.yaml"),
        ];
        let config = parse_config("max_points: \"5\"\nclass: \"PassAllTestsQuestion\"\n", Path::new("CONFIG")).unwrap();
        let configs = BTreeMap::from([("q3".to_string(), config)]);
        let draft = course_draft("course", &tests, &configs).unwrap();
        let [q2, q3] = draft.questions.as_slice() else { panic!("{:?}", draft.questions) };
        assert_eq!((q2.id.as_str(), q2.points.to_string(), q2.scoring), ("q2", "1".to_string(), Scoring::PerTest));
        assert_eq!(
            (q3.title.as_str(), q3.points.to_string(), q3.scoring),
            ("Alpha-Beta Pruning", "5".to_string(), Scoring::AllOrNothing)
        );
        assert_eq!(q3.tests, ["q3-a.yaml", "q3-b.yaml"]);
        assert_eq!(q3.prune_on_equal, Some(false));
        assert_eq!((q2.child_order, q3.child_order), (ChildOrder::Any, ChildOrder::Given), "alpha-beta's order counts");
    }

    #[test]
    fn a_folder_mixing_agents_gives_one_question_per_agent() {
        let tests = [test("q2", Agent::Expectimax, "b.yaml"), test("q2", Agent::Minimax, "a.yaml")];
        let draft = course_draft("c", &tests, &BTreeMap::new()).unwrap();
        let ids: Vec<&str> = draft.questions.iter().map(|q| q.id.as_str()).collect();
        assert_eq!(ids, ["q2-minimax", "q2-expectimax"]);
    }

    #[test]
    fn pacman_tests_join_their_folders_question() {
        let game = |question: &str, kind: CourseTestKind, file: &str| CourseTest {
            question: question.to_string(),
            kind,
            file_name: file.to_string(),
        };
        let tests = [
            test("q2", Agent::Minimax, "q2-a.yaml"),
            game("q2", CourseTestKind::Replay(Agent::Minimax), "q2-game.yaml"),
            game("q1", CourseTestKind::Play("Reflex Agent".into()), "q1-grade-agent.yaml"),
        ];
        let configs = BTreeMap::from([
            (
                "q1".to_string(),
                parse_config("max_points: \"4\"\nclass: \"PartialCreditQuestion\"\n", Path::new("C")).unwrap(),
            ),
            (
                "q2".to_string(),
                parse_config("max_points: \"5\"\nclass: \"PassAllTestsQuestion\"\n", Path::new("C")).unwrap(),
            ),
        ]);
        let draft = course_draft("c", &tests, &configs).unwrap();
        let [q1, q2] = draft.questions.as_slice() else { panic!("{:?}", draft.questions) };
        assert_eq!((q1.title.as_str(), q1.algorithm, q1.scoring), ("Reflex Agent", None, Scoring::PerTest));
        assert_eq!((q1.tests.len(), q1.pacman.as_slice()), (0, &["q1-grade-agent.yaml".to_string()][..]));
        assert_eq!(
            (q2.tests.as_slice(), q2.pacman.as_slice()),
            (&["q2-a.yaml".to_string()][..], &["q2-game.yaml".to_string()][..])
        );
        assert_eq!(q2.scoring, Scoring::AllOrNothing);
        let yaml = crate::load::write::assignment_to_yaml(&draft);
        assert!(
            yaml.contains("    pacman:\n      - q1-grade-agent.yaml\n")
                && !yaml.contains("algorithm: minimax\n    prune_on_equal: false\n    scoring: per-test"),
            "{yaml}"
        );
    }
}
