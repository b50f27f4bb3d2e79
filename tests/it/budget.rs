//! A clock counted in nodes: a search given a `budget` may enter that many
//! nodes; the grader refuses the next with `timeup`, and the Python kit
//! turns that into `TimeUp` for the student's search to catch.

use std::time::Duration;

use crate::common::{self, Scratch};
use treegrade::engine::{Algorithm, SearchSettings};
use treegrade::grader::plan::Served;
use treegrade::grader::runner::ProgramSpec;
use treegrade::grader::session::{FailureKind, SearchJob, SearchRecord, SessionLimits, run_searches};
use treegrade::load::load_tree_file;

/// Depth-first search of the whole tree until the budget runs out; prints
/// what the kit says about the budget, then answers with how many nodes it
/// reached (the answer of an anytime search, cut short).
const CATCHES_TIME_UP: &str = r#"
import sys
from treegrade_kit import run, TimeUp

def alphabeta(game):
    reached = []
    def walk(node):
        reached.append(node)
        if not game.is_terminal(node):
            for child in game.children(node):
                walk(child)
    try:
        walk(game.root)
    except TimeUp:
        pass
    try:
        game.children(reached[-1])  # asked again after the refusal: still refused
    except TimeUp:
        print("refused again", file=sys.stderr)
    print("budget %s, time is up: %s" % (game.budget, game.time_is_up()), file=sys.stderr)
    return len(reached) - 1, None

run(alphabeta=alphabeta)
"#;

/// The same walk with no `except TimeUp`.
const IGNORES_TIME_UP: &str = r#"
from treegrade_kit import run

def alphabeta(game):
    def walk(node):
        if not game.is_terminal(node):
            for child in game.children(node):
                walk(child)
    try:
        walk(game.root)
    except Exception:  # does not catch the kit's TimeUp, a BaseException
        return 0, None
    return 1, None

run(alphabeta=alphabeta)
"#;

fn serve_with_budget(program: &str, budget: Option<u32>) -> SearchRecord {
    let scratch = Scratch::new();
    scratch.write("search.py", program);
    let loaded = load_tree_file(&common::repo().join("test-cases/aima-fig5-2.yaml")).expect("a valid tree");
    let tree = Served::Written(&loaded.tree);
    let spec = ProgramSpec {
        command: vec!["python3".into(), "search.py".into()],
        dir: scratch.path().to_path_buf(),
        env: vec![("PYTHONPATH".into(), common::repo().join("grader/kits/python").into())],
        policy: None,
    };
    let job = SearchJob { name: "budget", tree: &tree, settings: SearchSettings::new(Algorithm::AlphaBeta), budget };
    let mut records =
        run_searches(&spec, &[job], SessionLimits { per_search: Duration::from_secs(20), submission: None });
    records.pop().expect("one record per search")
}

#[test]
fn a_spent_budget_enters_nothing_more_and_the_search_answers() {
    let record = serve_with_budget(CATCHES_TIME_UP, Some(5));
    let answer = record.answer.as_ref().unwrap_or_else(|failure| panic!("{failure:?}\n{}", record.stderr));
    assert_eq!(record.visited.len(), 5, "exactly the budget was entered");
    assert!(record.time_up, "the grader saw the budget run out");
    // The sixth node was asked for but refused, so the walk reached 6 ids.
    assert_eq!(answer.value, Some(5.0));
    assert!(record.stderr.contains("refused again"), "{}", record.stderr);
    assert!(record.stderr.contains("budget 5, time is up: True"), "{}", record.stderr);
}

#[test]
fn a_budget_the_search_stays_within_is_never_up() {
    let record = serve_with_budget(CATCHES_TIME_UP, Some(1000));
    assert!(!record.time_up);
    assert_eq!(record.visited.len(), 13, "the whole of AIMA's figure 5.2");
    assert!(record.stderr.contains("budget 1000, time is up: False"), "{}", record.stderr);
    let unlimited = serve_with_budget(CATCHES_TIME_UP, None);
    assert!(unlimited.stderr.contains("budget None, time is up: False"), "{}", unlimited.stderr);
}

#[test]
fn a_search_that_lets_time_up_escape_is_told_to_catch_it() {
    let record = serve_with_budget(IGNORES_TIME_UP, Some(3));
    let failure = record.answer.expect_err("no answer");
    assert_eq!(failure.kind, FailureKind::Exception);
    assert!(failure.message.contains("used its whole budget of 3 nodes"), "{}", failure.message);
    assert!(failure.message.contains("except TimeUp"), "{}", failure.message);
    assert_eq!(record.visited.len(), 3);
}
