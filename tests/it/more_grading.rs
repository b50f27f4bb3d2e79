//! Grading the searches of docs/format.md section 8 end to end: the
//! more-searches assignment's references get full marks in Python and
//! Rust, its starters 0 with a message per test, and programs that go
//! wrong are told where, in the search's own terms.

use crate::common::{self, Scratch};

use std::path::Path;

use assert_cmd::Command;

fn treegrade(args: &[&str]) -> (i32, String, String) {
    let output = Command::cargo_bin("treegrade")
        .expect("the binary is built")
        .env("NO_COLOR", "1")
        .args(args)
        .timeout(std::time::Duration::from_secs(600))
        .output()
        .expect("treegrade runs");
    let text = |bytes: Vec<u8>| String::from_utf8(bytes).expect("UTF-8");
    (output.status.code().expect("an exit status"), text(output.stdout), text(output.stderr))
}

/// `check` of a submission on the more-searches assignment (of the repository).
pub fn check_more(submission: &Path, extra: &[&str]) -> (i32, String, String) {
    let assignment = common::repo().join("assignments/more-searches");
    let mut args =
        vec!["check", "--assignment", assignment.to_str().unwrap(), "--submission", submission.to_str().unwrap()];
    args.extend_from_slice(extra);
    treegrade(&args)
}

/// A Python submission of `search.py` with the text given, in a scratch folder.
pub fn python_submission(scratch: &Scratch, program: &str) -> std::path::PathBuf {
    let dir = scratch.path().join("submission");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("search.py"), program).unwrap();
    dir
}

#[test]
fn the_references_get_full_marks_in_python_and_rust() {
    for reference in ["reference/more-searches/python", "reference/more-searches/rust"] {
        let (status, stdout, stderr) = check_more(&common::repo().join(reference), &[]);
        assert_eq!(status, 0, "{reference}: {stdout}{stderr}");
        assert!(stdout.contains("Total: 30/30"), "{reference}: {stdout}");
    }
}

#[test]
fn the_starters_get_zero_with_a_message_per_test() {
    let scratch = Scratch::new();
    let dir = scratch.path().join("my-searches");
    let (status, stdout, stderr) = treegrade(&["init", "--assignment", "more-searches", dir.to_str().unwrap()]);
    assert_eq!(status, 0, "{stderr}");
    assert!(stdout.contains("treegrade check --assignment more-searches --submission"), "{stdout}");
    let handout = std::fs::read_to_string(dir.join("README.md")).expect("the handout is written");
    assert!(handout.contains("Monte Carlo tree search"), "the more-searches handout");
    let (status, stdout, _) =
        treegrade(&["check", "--assignment", "more-searches", "--submission", dir.to_str().unwrap()]);
    assert_eq!(status, 1, "{stdout}");
    assert!(stdout.contains("Total: 0/30"), "{stdout}");
    let errors = stdout.lines().filter(|line| line.trim_start().starts_with("ERROR")).count();
    let explained = stdout.lines().filter(|line| line.contains("is not implemented yet")).count();
    assert_eq!(errors, 33, "{stdout}");
    assert_eq!(errors, explained, "{stdout}");
    let rust = common::repo().join("assignments/more-searches/starter/rust");
    let rust_copy = scratch.path().join("rust");
    copy_folder(&rust, &rust_copy);
    std::os::unix::fs::symlink(common::repo().join("grader/kits/rust"), rust_copy.join("kit")).unwrap();
    let (status, stdout, stderr) = check_more(&rust_copy, &[]);
    assert_eq!(status, 1, "{stdout}{stderr}");
    assert!(stdout.contains("Total: 0/30"), "{stdout}");
    assert_eq!(stdout.lines().filter(|line| line.contains("is not implemented yet")).count(), 33, "{stdout}");
}

/// The assignment's trees that carry an `expect` block (its max^n trees of
/// chance nodes and turns out of order, and its forward-pruning trees)
/// agree with the reference.
#[test]
fn the_assignments_expectations_hold() {
    let folder = common::repo().join("assignments/more-searches/tests");
    let mut files: Vec<_> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| std::fs::read_to_string(path).unwrap().contains("\nexpect:"))
        .collect();
    files.sort();
    assert!(files.len() >= 3, "{files:?}");
    for file in &files {
        let (status, stdout, stderr) = treegrade(&["validate", file.to_str().unwrap()]);
        assert_eq!(status, 0, "{}: {stdout}{stderr}", file.display());
        let forward = file.file_name().unwrap().to_str().unwrap().starts_with("fp-");
        assert!(stdout.contains(if forward { "alphabeta" } else { "maxn" }), "{stdout}");
    }
}

fn copy_folder(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_folder(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// The Python reference with one line changed: `old` becomes `new`.
pub fn reference_with(old: &str, new: &str) -> String {
    let reference = std::fs::read_to_string(common::repo().join("reference/more-searches/python/search.py")).unwrap();
    assert!(reference.contains(old), "the reference has {old:?}");
    reference.replacen(old, new, 1)
}

#[test]
fn a_deepening_without_the_previous_choice_first_is_told_the_iteration() {
    let scratch = Scratch::new();
    let program = reference_with("answer[1] if answer else None)", "None)");
    let dir = python_submission(&scratch, &program);
    let (status, stdout, _) = check_more(&dir, &["--test", "q1/id-previous-choice-first", "--verbose"]);
    assert_eq!(status, 1, "{stdout}");
    assert!(stdout.contains("in iteration 2, of depth limit 2: its step 2 of the reference"), "{stdout}");
    assert!(stdout.contains("searches first the root child that the previous iteration chose"), "{stdout}");
}

#[test]
fn a_deepening_that_never_starts_an_iteration_is_told_how() {
    let scratch = Scratch::new();
    let program = reference_with("            game.start_iteration(depth)\n", "");
    let dir = python_submission(&scratch, &program);
    let (status, stdout, _) = check_more(&dir, &["--test", "q1/id-whole-tree-early"]);
    assert_eq!(status, 1, "{stdout}");
    assert!(stdout.contains("call game.start_iteration(depth) at the start of each iteration"), "{stdout}");
}

#[test]
fn a_max_n_comparing_the_wrong_component_gets_a_vector_difference() {
    let scratch = Scratch::new();
    let program = reference_with("vector[player - 1] > best[player - 1]", "vector[0] > best[0]");
    let dir = python_submission(&scratch, &program);
    let (status, stdout, _) = check_more(&dir, &["--test", "q3/maxn-player-two-root", "--verbose"]);
    assert_eq!(status, 1, "{stdout}");
    assert!(stdout.contains("value: expected [7, 8, 2], you returned [9, 1, 5]"), "{stdout}");
}

#[test]
fn an_mcts_whose_ucb_sign_is_not_flipped_is_shown_the_ucb_values() {
    let scratch = Scratch::new();
    let program = reference_with("sign = 1.0 if game.player(node) == \"max\" else -1.0", "sign = 1.0");
    let dir = python_submission(&scratch, &program);
    let (status, stdout, _) = check_more(&dir, &["--test", "q5/mcts-chance-depth-cut", "--verbose"]);
    assert_eq!(status, 1, "{stdout}");
    assert!(stdout.contains("the reference entered that node in its iteration"), "{stdout}");
    assert!(stdout.contains("it compared the UCB values"), "{stdout}");
    assert!(stdout.contains("counts: "), "{stdout}");
}

#[test]
fn an_mcts_that_does_not_report_counts_fails_that_check_alone() {
    let scratch = Scratch::new();
    let program = reference_with("return root_w / root_n, action, pairs", "return root_w / root_n, action");
    let dir = python_submission(&scratch, &program);
    let (status, stdout, _) = check_more(&dir, &["--test", "q5/mcts-chance-dice", "--format", "json"]);
    assert_eq!(status, 1, "{stdout}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let test = &report["questions"][0]["tests"][0];
    assert_eq!(test["checks"]["value"], "passed", "{test}");
    assert_eq!(test["checks"]["order"], "passed", "{test}");
    assert_eq!(test["checks"]["counts"], "failed", "{test}");
    assert_eq!(test["expected"]["draws"], 62, "{test}");
    assert_eq!(test["actual"]["draws"], 62, "{test}");
    assert!(test["reason"].as_str().unwrap().contains("did not report the root children's N and W"), "{test}");
}

/// A fixture of `tests/fixtures/more-students/`, graded (a Rust one in a
/// scratch copy with the kit beside it, as `init` lays it out).
fn grade_fixture(dir: &Path, scratch: &Scratch) -> serde_json::Value {
    let submission = if dir.join("Cargo.toml").is_file() {
        let copy = scratch.path().join(dir.file_name().unwrap());
        copy_folder(dir, &copy);
        std::os::unix::fs::symlink(common::repo().join("grader/kits/rust"), copy.join("kit")).unwrap();
        copy
    } else {
        dir.to_path_buf()
    };
    let (_, stdout, stderr) = check_more(&submission, &["--format", "json"]);
    serde_json::from_str(&stdout).unwrap_or_else(|error| panic!("{}: {error}: {stderr}", dir.display()))
}

/// Programs written as students write the new searches: correct ones keep
/// every point of their question, broken ones lose points, and the
/// diagnosis names each one's mistake and never a wrong one.
#[test]
fn student_programs_of_the_new_searches_are_graded_and_their_mistakes_named() {
    let folder = common::repo().join("tests/fixtures/more-students");
    let mut dirs: Vec<_> =
        std::fs::read_dir(&folder).unwrap().map(|entry| entry.unwrap().path()).filter(|path| path.is_dir()).collect();
    dirs.sort();
    assert!(dirs.len() >= 15, "{dirs:?}");
    let scratch = Scratch::new();
    let (mut failed, mut right, mut wrong) = (0, 0, Vec::new());
    for dir in &dirs {
        let bug = std::fs::read_to_string(dir.join("BUG")).unwrap().trim().to_string();
        let report = grade_fixture(dir, &scratch);
        let tests: Vec<&serde_json::Value> =
            report["questions"].as_array().unwrap().iter().flat_map(|q| q["tests"].as_array().unwrap()).collect();
        let answered = |t: &&&serde_json::Value| t["status"] != serde_json::json!({"error": "not-implemented"});
        let own: Vec<&&serde_json::Value> = tests.iter().filter(answered).collect();
        assert!(!own.is_empty(), "{}: no test ran its search", dir.display());
        if bug == "correct" {
            assert!(own.iter().all(|t| t["status"] == "passed"), "{}: {own:#?}", dir.display());
            continue;
        }
        assert!(own.iter().any(|t| t["status"] != "passed"), "{} passes every test of its search", dir.display());
        if bug == "id-budget-per-iteration" {
            // The search fails with the kit's error; the diagnosis names it there.
            let told = own.iter().any(|t| {
                t["reason"].as_str().is_some_and(|r| r.contains("does not start again with each iteration"))
                    && t["diagnosis"]["bug"] == "id-budget-per-iteration"
            });
            assert!(told, "{}: {own:#?}", dir.display());
            continue;
        }
        for test in own.iter().filter(|t| t["status"] == "failed") {
            failed += 1;
            let diagnosis = &test["diagnosis"];
            let named = diagnosis["bug"] == bug.as_str()
                || diagnosis["alternatives"].as_array().is_some_and(|list| list.iter().any(|b| b == bug.as_str()));
            if named {
                right += 1;
            } else if !diagnosis.is_null() {
                wrong.push(format!("{}: {} named {}", dir.display(), test["name"], diagnosis["bug"]));
            }
        }
    }
    eprintln!("diagnosis of the new searches: {right} of {failed} failed tests named right, {} wrong", wrong.len());
    assert!(failed >= 40, "{failed}");
    assert!(right * 10 >= failed * 9, "right on {right} of {failed}");
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// What a student reads when the new searches go wrong, as `check` prints it
/// (the first line, which names the machine's sandbox, left out).
#[test]
fn reports_of_the_new_searches() {
    let fixtures = common::repo().join("tests/fixtures/more-students");
    for (snapshot, fixture, test) in [
        ("report_id_tree_order", "id-class-tree-order", "q1/id-previous-choice-first"),
        ("report_mcts_sign", "mcts-class-sign", "q5/mcts-chance-depth-cut"),
        ("report_maxn_first_component", "maxn-class-first-component", "q3/maxn-player-two-root"),
    ] {
        let (status, stdout, _) = check_more(&fixtures.join(fixture), &["--test", test]);
        assert_eq!(status, 1, "{stdout}");
        let report: Vec<&str> = stdout.lines().skip(1).collect();
        insta::assert_snapshot!(snapshot, report.join("\n"));
    }
}

/// The assignment's tests, planned as `check` plans them.
fn planned_more_searches() -> Vec<treegrade::grader::plan::PlannedTest> {
    let assignment =
        treegrade::load::assignment::load_assignment(&common::repo().join("assignments/more-searches")).unwrap();
    let selected: Vec<usize> = (0..assignment.questions.len()).collect();
    let plan = treegrade::grader::prepare::prepare(&assignment, &selected).unwrap();
    plan.searches().cloned().collect()
}

/// Every mistake the diagnosis knows for a search fails at least one of
/// the assignment's tests of that search (a student making it loses
/// points): a chance node ignored or taken for player 1's node, a player to
/// move taken from the ply, as much as the mistakes of MCTS's rollouts and
/// of forward pruning.
#[test]
fn every_known_mistake_fails_a_test_of_its_search() {
    use std::collections::{BTreeMap, BTreeSet};
    use treegrade::engine::mistakes::candidates;
    use treegrade::engine::values_match;
    let tests = planned_more_searches();
    let mut known: BTreeMap<&str, BTreeSet<&'static str>> = BTreeMap::new();
    let mut caught: BTreeMap<&str, BTreeSet<&'static str>> = BTreeMap::new();
    for test in &tests {
        let served = test.served();
        let tree = &*served;
        let reference = &test.reference;
        for candidate in candidates(tree, &test.settings) {
            // Of the searches of section 3 (q6's alphabeta), the mistakes of forward pruning.
            let forward = ["no-forward-cut", "forward-greatest-at-min", "forward-cut-at-depth-cut"];
            if test.settings.algorithm.is_classic() && !forward.contains(&candidate.bug) {
                continue;
            }
            known.entry(test.settings.algorithm.name()).or_default().insert(candidate.key);
            let fails = candidate.run(tree).is_none_or(|outcome| {
                let counts = |extra: &treegrade::engine::SearchExtra| match extra {
                    treegrade::engine::SearchExtra::Mcts(summary) => {
                        summary.children.iter().map(|c| (c.n, c.w.to_bits())).chain([(summary.draws, 0)]).collect()
                    }
                    _ => Vec::new(),
                };
                outcome.visited != reference.visited
                    || !values_match(outcome.value, reference.value)
                    || outcome.vector() != reference.vector()
                    || outcome.action != reference.action
                    || counts(&outcome.extra) != counts(&reference.extra)
            });
            if fails {
                caught.entry(test.settings.algorithm.name()).or_default().insert(candidate.key);
            }
        }
    }
    assert_eq!(known.len(), 4, "iterative deepening, max^n, MCTS and forward pruning: {known:?}");
    assert!(known["maxn"].contains("maxn-wrong-component/by-ply"), "{known:?}");
    assert_eq!(known["alphabeta"].len(), 4, "{known:?}");
    let missed: Vec<(&str, &str)> = known
        .iter()
        .flat_map(|(search, keys)| {
            let caught = caught.get(search).cloned().unwrap_or_default();
            keys.iter().filter(move |key| !caught.contains(*key)).map(move |key| (*search, *key)).collect::<Vec<_>>()
        })
        .collect();
    assert!(missed.is_empty(), "{missed:?}");
}
