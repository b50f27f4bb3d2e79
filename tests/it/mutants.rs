//! The Python reference, deliberately broken in classic ways
//! (tests/fixtures/mutants.yaml), graded on the bundled assignment: each
//! variant loses points, and the report names its mistake.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;
use treegrade::grader::plan::{TestTree, plan_tests};
use treegrade::grader::result::{GradeReport, TestStatus};
use treegrade::grader::{Target, grade, submission};
use treegrade::load::assignment::load_assignment;
use treegrade::load::load_tree_file;

#[derive(Debug, Deserialize)]
struct Mutant {
    name: String,
    bug: String,
    algorithms: Vec<String>,
    find: String,
    replace: String,
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn mutants() -> Vec<Mutant> {
    let text = std::fs::read_to_string(repo().join("tests/fixtures/mutants.yaml")).unwrap();
    serde_saphyr::from_str(&text).expect("the mutant list parses")
}

/// Writes the reference with one edit applied; the edit must apply exactly once.
fn write_mutant(mutant: &Mutant, dir: &Path) {
    let reference = std::fs::read_to_string(repo().join("reference/python/search.py")).unwrap();
    assert_eq!(reference.matches(&mutant.find).count(), 1, "{}: `find` must occur exactly once", mutant.name);
    std::fs::write(dir.join("search.py"), reference.replacen(&mutant.find, &mutant.replace, 1)).unwrap();
}

fn grade_folder(dir: &Path) -> GradeReport {
    let assignment = load_assignment(&repo().join("assignments/adversarial-search")).unwrap();
    let selected: Vec<usize> = (0..assignment.questions.len()).collect();
    let mut trees = BTreeMap::new();
    let tests = plan_tests(&assignment, &selected, |test| {
        trees
            .entry(test.path.clone())
            .or_insert_with(|| TestTree::Written(Arc::new(load_tree_file(&test.path).unwrap().tree)))
            .clone()
    })
    .unwrap();
    let kits = submission::write_kits().unwrap();
    let target = Target { dir: dir.to_path_buf(), command: None, name: None };
    grade(&assignment, &selected, &tests, &target, kits.path()).unwrap()
}

/// What a report must say for each mutant: a diagnosis, or words of a reason.
fn pointer_for(name: &str) -> (&'static str, &'static str) {
    match name {
        "no-pruning" => ("no-pruning", "never prunes"),
        "prune-on-equal" => ("prune-on-equal", "prunes on equality"),
        "strict-pruning-always" => ("prune-on-equal", "prunes only on strict inequality"),
        "reverse-children" => ("reverse-children", "reverse order"),
        "ignore-probabilities" => ("ignore-probabilities", "ignores the probabilities"),
        "depth-too-deep" => ("depth-too-deep", "below the depth limit"),
        "depth-too-shallow" => ("depth-too-shallow", "but the depth limit is"),
        "eager-children" => ("eager-children", "before recursing"),
        "first-best-last" => ("first-best-last", "ties at the root"),
        other => panic!("no expectation for mutant `{other}`: add one here"),
    }
}

#[test]
fn the_reference_itself_gets_full_marks() {
    let report = grade_folder(&repo().join("reference/python"));
    assert!(report.all_passed());
    assert_eq!(report.score, report.max_score);
}

#[test]
fn every_mutant_loses_points_and_is_named() {
    let mutants = mutants();
    assert!(mutants.len() >= 8, "the fixture list shrank");
    for mutant in &mutants {
        let scratch = tempfile::tempdir().unwrap();
        write_mutant(mutant, scratch.path());
        let report = grade_folder(scratch.path());
        assert!(report.score < report.max_score, "{} ({}) kept full marks", mutant.name, mutant.bug);
        let (bug, words) = pointer_for(&mutant.name);
        let failing: Vec<_> = report.tests().filter(|t| t.header.status != TestStatus::Passed).collect();
        let named = failing.iter().any(|test| {
            // Named as the fact, or as one of the code shapes of a behaviour
            // that mistakes leaving the same trace share.
            test.diagnosis().as_ref().is_some_and(|d| d.bug == bug || d.alternatives.contains(&bug))
                || test.header.reason.as_deref().is_some_and(|r| r.contains(words))
        });
        let said: Vec<_> = failing.iter().map(|test| (&test.header.name, test.diagnosis())).collect();
        assert!(named, "{}: no failing test points at the mistake: {said:#?}", mutant.name);
        for test in &failing {
            if let Some(diagnosis) = &test.diagnosis() {
                // A behaviour may list several mistakes the evidence cannot
                // tell apart, but never leaves out the real one.
                let names_it = diagnosis.bug == bug || diagnosis.alternatives.contains(&bug);
                assert!(
                    names_it,
                    "{}: {} was diagnosed as something else: {diagnosis:?}",
                    mutant.name, test.header.name
                );
            }
        }
        let broken_questions: Vec<&str> =
            report.questions.iter().filter(|q| q.score < q.max_score).map(|q| q.id.as_str()).collect();
        assert!(!broken_questions.is_empty());
        eprintln!(
            "{:<22} {:>5}/{} lost in {:?}; breaks {:?}",
            mutant.name, report.score, report.max_score, broken_questions, mutant.algorithms
        );
    }
}

/// The bundled assignment checks both pruning conventions in each
/// alpha-beta question: a search that ignores `game.prune_on_equal` loses
/// points in both, whichever convention it keeps to.
#[test]
fn ignoring_the_pruning_convention_loses_points_in_both_alphabeta_questions() {
    for name in ["prune-on-equal", "strict-pruning-always"] {
        let mutant = mutants().into_iter().find(|m| m.name == name).expect("the mutant exists");
        let scratch = tempfile::tempdir().unwrap();
        write_mutant(&mutant, scratch.path());
        let report = grade_folder(scratch.path());
        for question in ["q2", "q4"] {
            let q = report.questions.iter().find(|q| q.id == question).unwrap();
            assert!(q.score < q.max_score, "{name} keeps full marks on {question}");
        }
    }
}
