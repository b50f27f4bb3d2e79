//! `treegrade check` from the outside: exit codes, formats, question
//! selection, explicit commands and bad input.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn check() -> Command {
    let mut command = Command::cargo_bin("treegrade").unwrap();
    command.current_dir(repo()).env("NO_COLOR", "1").env_remove("TREEGRADE_ASSIGNMENT");
    command.arg("check");
    command
}

fn stdout(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn the_python_reference_gets_full_marks_and_exit_0() {
    let output = check().args(["--submission", "reference/python"]).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}{}", stdout(&output), stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("Total: 20/20"), "{text}");
    for question in ["q1", "q2", "q3", "q4"] {
        assert!(text.contains(&format!("Question {question}: 5/5")), "{text}");
    }
    assert!(!text.contains("FAIL") && !text.contains("ERROR"));
}

#[test]
fn the_empty_starter_gets_zero_with_a_message_per_test_and_exit_1() {
    let output = check().args(["--submission", "assignments/adversarial-search/starter/python"]).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    assert!(text.contains("Total: 0/20"), "{text}");
    let errors = text.lines().filter(|l| l.trim_start().starts_with("ERROR")).count();
    let not_implemented = text.lines().filter(|l| l.contains("not implemented")).count();
    assert!(errors > 30, "{text}");
    assert_eq!(errors, not_implemented, "every test says which function to write:\n{text}");
}

#[test]
fn one_question_can_be_selected() {
    let output = check().args(["--submission", "reference/python", "-q", "q3"]).output().unwrap();
    let text = stdout(&output);
    assert!(text.contains("Question q3") && !text.contains("Question q1"), "{text}");
    assert!(text.contains("Total: 5/5"));
}

#[test]
fn an_unknown_question_is_a_usage_error() {
    let output = check().args(["--submission", "reference/python", "-q", "q9"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("no question `q9` in this assignment (it has q1, q2, q3, q4)"));
    assert!(stdout(&output).is_empty());
}

#[test]
fn json_goes_to_stdout_and_parses() {
    let output = check().args(["--submission", "reference/python", "-q", "q1", "--format", "json"]).output().unwrap();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("stdout is one JSON document");
    assert_eq!(report["format"], "treegrade-report");
    assert_eq!(report["score"], 5.0);
    assert_eq!(report["questions"][0]["tests"][0]["checks"]["order"], "passed");
}

#[test]
fn output_writes_the_format_and_keeps_text_on_stdout() {
    let scratch = tempfile::tempdir().unwrap();
    let junit = scratch.path().join("junit.xml");
    let output = check()
        .args(["--submission", "reference/python", "-q", "q2", "--format", "junit", "--output"])
        .arg(&junit)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.starts_with("<?xml") && xml.contains("<testsuite name=\"q2 "), "{xml}");
    assert!(stdout(&output).contains("Question q2: 5/5"));
    assert!(stdout(&output).ends_with(&format!("The junit report is in {}\n", junit.display())));
}

#[test]
fn a_command_after_double_dash_is_run_as_given() {
    let output =
        check().args(["--submission", "reference/python", "-q", "q1", "--", "python3", "search.py"]).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
}

#[test]
fn a_folder_without_a_known_language_is_explained() {
    let scratch = tempfile::tempdir().unwrap();
    let output = check().arg("--submission").arg(scratch.path()).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert!(message.contains("found no submission in"), "{message}");
    assert!(message.contains("search.py (python) or Cargo.toml (rust)"), "{message}");
}

#[test]
fn a_broken_assignment_is_located() {
    let scratch = tempfile::tempdir().unwrap();
    let assignment = scratch.path().join("assignment.yaml");
    std::fs::write(&assignment, "questions:\n  - id: q1\n    points: 5\n    algorithm: negamax\n    tests: [x.yaml]\n")
        .unwrap();
    let output =
        check().arg("--assignment").arg(scratch.path()).args(["--submission", "reference/python"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert!(message.contains("assignment.yaml:4:16"), "{message}");
    assert!(message.contains("unknown algorithm `negamax`"), "{message}");
}

#[test]
fn a_test_glob_that_matches_nothing_is_an_error() {
    let scratch = tempfile::tempdir().unwrap();
    std::fs::write(
        scratch.path().join("assignment.yaml"),
        "questions:\n  - {id: q1, points: 5, algorithm: minimax, tests: [\"nothing-*.yaml\"]}\n",
    )
    .unwrap();
    let output =
        check().arg("--assignment").arg(scratch.path()).args(["--submission", "reference/python"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("`nothing-*.yaml` matches no file"), "{}", stderr(&output));
}

#[test]
fn the_assignment_is_found_in_the_current_folder() {
    let scratch = tempfile::tempdir().unwrap();
    let cases = repo().join("test-cases");
    std::fs::write(
        scratch.path().join("assignment.yaml"),
        format!(
            "tests_dir: {}\nlanguages:\n  - {{name: python, detect: [search.py], run: [python3, search.py], env: {{PYTHONPATH: \"{{kits}}/python\"}}}}\nquestions:\n  - {{id: only, points: 1, algorithm: minimax, tests: [aima-fig5-2.yaml]}}\n",
            cases.display()
        ),
    )
    .unwrap();
    let mut command = Command::cargo_bin("treegrade").unwrap();
    let output = command
        .current_dir(scratch.path())
        .env("NO_COLOR", "1")
        .env_remove("TREEGRADE_ASSIGNMENT")
        .args(["check", "--submission"])
        .arg(repo().join("reference/python"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}{}", stdout(&output), stderr(&output));
    assert!(stdout(&output).contains("Question only: 1/1"));
    assert!(Path::new(&scratch.path().join("assignment.yaml")).exists());
}

#[test]
fn the_rust_reference_gets_full_marks() {
    let output =
        check().args(["--submission", "reference/rust"]).timeout(std::time::Duration::from_secs(600)).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}{}", stdout(&output), stderr(&output));
    assert!(stdout(&output).contains("Total: 20/20"), "{}", stdout(&output));
}

#[test]
fn the_rust_starter_from_init_builds_and_gets_zero_with_a_message_per_test() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path().join("student");
    let mut init = Command::cargo_bin("treegrade").unwrap();
    let output = init.args(["init", "--language", "rust"]).arg(&dir).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(dir.join("kit/src/lib.rs").is_file() && dir.join("src/main.rs").is_file());
    let output = check().arg("--submission").arg(&dir).timeout(std::time::Duration::from_secs(600)).output().unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("Total: 0/20"), "{text}");
    let errors = text.lines().filter(|l| l.trim_start().starts_with("ERROR")).count();
    let explained = text.lines().filter(|l| l.contains("is not implemented yet: write")).count();
    assert!(errors > 30 && errors == explained, "{text}");
}

#[test]
fn init_never_overwrites_a_students_work() {
    let scratch = tempfile::tempdir().unwrap();
    std::fs::write(scratch.path().join("search.py"), "my work").unwrap();
    let mut init = Command::cargo_bin("treegrade").unwrap();
    let output = init.arg("init").arg(scratch.path()).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("already has search.py"), "{}", stderr(&output));
    assert_eq!(std::fs::read_to_string(scratch.path().join("search.py")).unwrap(), "my work");
}

/// An assignment folder holding `assignment.yaml` (languages default to the
/// shipped kits) and the tree of the textbook.
fn course(questions: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(repo().join("test-cases/aima-fig5-2.yaml"), dir.path().join("aima.yaml")).unwrap();
    std::fs::write(dir.path().join("assignment.yaml"), format!("title: Free points?\nquestions:\n{questions}"))
        .unwrap();
    dir
}

/// `check` of the empty starter on an assignment that must be refused.
fn refused(questions: &str, because: &str) {
    let course = course(questions);
    let started = std::time::Instant::now();
    let output = check()
        .args(["--submission", "assignments/adversarial-search/starter/python", "--assignment"])
        .arg(course.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{}{}", stdout(&output), stderr(&output));
    assert!(stderr(&output).contains(because), "{}", stderr(&output));
    assert!(!stdout(&output).contains("Total"), "nothing is graded: {}", stdout(&output));
    assert!(started.elapsed() < std::time::Duration::from_secs(20), "refused promptly");
}

#[test]
fn no_generated_trees_is_an_assignment_error_not_free_points() {
    refused("  - {id: q1, points: 5, algorithm: minimax, generate: {seed: 1, count: 0}}\n", "`count` of at least 1");
}

#[test]
fn generated_trees_the_reference_cannot_search_are_an_assignment_error() {
    refused(
        "  - {id: q1, points: 5, algorithm: alphabeta, depth: 2, generate: {seed: 1, count: 2, depth: 4}}\n",
        "do not fit their questions",
    );
    refused(
        "  - {id: q1, points: 5, algorithm: minimax, generate: {seed: 1, count: 2, kinds: [max, chance]}}\n",
        "do not fit their questions",
    );
}

#[test]
fn a_question_without_tests_is_an_assignment_error() {
    refused("  - {id: q1, points: 5, algorithm: minimax}\n", "has no tests");
}

#[test]
fn test_paths_stay_inside_the_tests_folder() {
    refused("  - {id: q1, points: 5, algorithm: minimax, tests: [\"/**/*.yaml\"]}\n", "leaves the tests folder");
    refused("  - {id: q1, points: 5, algorithm: minimax, tests: [\"../x/aima.yaml\"]}\n", "leaves the tests folder");
}

#[test]
fn points_must_be_whole_millionths() {
    refused("  - {id: q1, points: 0.0000001, algorithm: minimax, tests: [aima.yaml]}\n", "millionths");
}

#[test]
fn prairielearn_always_gets_a_results_file() {
    let empty = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let results = out.path().join("results.json");
    let output = check()
        .args(["--format", "prairielearn", "--output"])
        .arg(&results)
        .arg("--submission")
        .arg(empty.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&results).unwrap()).unwrap();
    assert_eq!(json["gradable"], false);
    assert!(json["message"].as_str().unwrap().contains("found no submission"), "{json}");
}

#[test]
fn a_fragile_test_is_an_assignment_error() {
    let course = course("  - {id: q1, points: 5, algorithm: expectimax, tests: [near-tie.yaml]}\n");
    std::fs::write(
        course.path().join("near-tie.yaml"),
        "root: R\nnodes:\n  R: {max: [B, C]}\n  B: 0.15\n  C: {chance: [0.1, 0.2]}\n",
    )
    .unwrap();
    let output =
        check().args(["--submission", "reference/python", "--assignment"]).arg(course.path()).output().unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", stdout(&output));
    assert!(stderr(&output).contains("q1/near-tie: fragile tree for expectimax"), "{}", stderr(&output));
}

/// `--quiet`, `--verbose`, `--test`, `-q` in any case and `--output -`:
/// the conventions students expect from a command line.
#[test]
fn quiet_verbose_one_test_and_stdout_as_output() {
    let quiet = check().args(["--submission", "reference/python", "--quiet"]).output().unwrap();
    assert_eq!(quiet.status.code(), Some(0));
    insta::assert_snapshot!("check_quiet", stdout(&quiet));

    let verbose = check()
        .args(["--submission", "reference/python", "--sandbox", "off", "-q", "Q2", "--test", "aima-fig5-2"])
        .arg("--verbose")
        .output()
        .unwrap();
    assert_eq!(verbose.status.code(), Some(0), "{}", stderr(&verbose));
    // The time varies from run to run.
    let text: String = stdout(&verbose)
        .lines()
        .map(|line| match line.rsplit_once(", ") {
            Some((head, tail)) if tail.ends_with(" ms") => format!("{head}, (time)\n"),
            _ => format!("{line}\n"),
        })
        .collect();
    insta::assert_snapshot!("check_verbose_one_test", text);

    let missing = check().args(["--submission", "reference/python", "--test", "no-such-tree"]).output().unwrap();
    assert_eq!(missing.status.code(), Some(2));
    insta::assert_snapshot!("check_unknown_test", stderr(&missing));

    let json = check()
        .args(["--submission", "reference/python", "-q", "q1", "--format", "json", "--output", "-"])
        .output()
        .unwrap();
    let parsed: serde_json::Value = serde_json::from_slice(&json.stdout).expect("the JSON report on stdout");
    assert_eq!(parsed["format"], "treegrade-report");
    assert!(!Path::new(&repo()).join("-").exists(), "`-` is stdout, not a file");
}

#[test]
fn color_follows_the_flag_and_the_environment() {
    let run = |args: &[&str], envs: &[(&str, &str)]| {
        let mut command = Command::cargo_bin("treegrade").unwrap();
        command.current_dir(repo()).env_remove("NO_COLOR").env_remove("CLICOLOR_FORCE");
        command.args(["check", "--submission", "reference/python", "--quiet"]).args(args);
        for (key, value) in envs {
            command.env(key, value);
        }
        stdout(&command.output().unwrap())
    };
    let escape = "\u{1b}[";
    assert!(!run(&[], &[]).contains(escape), "a pipe gets no colour");
    assert!(run(&["--color", "always"], &[("NO_COLOR", "1")]).contains(escape));
    assert!(run(&[], &[("CLICOLOR_FORCE", "1")]).contains(escape));
    assert!(!run(&["--color", "never"], &[("CLICOLOR_FORCE", "1")]).contains(escape));
}

#[test]
fn completions_and_the_manual_page_come_from_the_parser() {
    let treegrade = || Command::cargo_bin("treegrade").unwrap();
    for shell in ["bash", "zsh", "fish"] {
        let output = treegrade().args(["completions", shell]).output().unwrap();
        assert_eq!(output.status.code(), Some(0));
        let script = stdout(&output);
        assert!(script.contains("check") && script.contains("submission"), "{shell}: {script}");
    }
    let man = stdout(&treegrade().arg("man").output().unwrap());
    assert!(man.starts_with(".ie") || man.contains(".TH treegrade 1"), "{man}");
    assert!(man.contains("check"), "{man}");
    // Both say what each exit status means.
    let help = stdout(&treegrade().arg("--help").output().unwrap());
    for text in [&man, &help] {
        assert!(text.contains("Exit status:") && text.contains("batch, every submission graded"), "{text}");
        assert!(text.contains("an agent lost by failing") && text.contains("130"), "{text}");
    }
}

/// `--test` alone grades the questions that have the named tests: the
/// others are neither shown nor counted in the total.
#[test]
fn named_tests_grade_only_their_questions() {
    let output = check()
        .args(["--submission", "reference/python", "--sandbox", "off", "--test", "aima-fig5-2"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("Question q1: 5/5") && text.contains("Question q2: 5/5"), "{text}");
    assert!(!text.contains("Question q3") && !text.contains("Question q4"), "{text}");
    assert!(text.contains("Total: 10/10"), "{text}");
}

/// A search that runs out of memory is told so, with where to look (the
/// kit's hint; the sandbox's memory limit raises the same `MemoryError`).
#[test]
fn running_out_of_memory_is_explained() {
    let scratch = crate::common::Scratch::new();
    scratch.write(
        "search.py",
        "from treegrade_kit import run\n\ndef minimax(game):\n    raise MemoryError()\n\nrun(minimax=minimax)\n",
    );
    let output = check()
        .args(["--sandbox", "off", "--test", "aima-fig5-2", "-q", "q1", "--submission"])
        .arg(scratch.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("MemoryError (your program ran out of the memory the grader allows it"), "{text}");
}

/// A program that keeps a cache across tests fails the later one, which
/// passes alone: the report says so and names the test that ran before.
#[test]
fn state_kept_between_tests_is_named_with_the_earlier_test() {
    let output = check()
        .args(["--submission", "tests/fixtures/students/broken-global-cache", "--sandbox", "off", "-q", "q1"])
        .args(["--test", "aima-fig5-2", "--test", "three-bin-minimax"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("PASS  q1/aima-fig5-2"), "{text}");
    insta::assert_snapshot!("check_state_between_tests", text);
}

/// What a student with a pruning bug reads: the failed test, where the
/// orders first differ, the tree's description, the likely cause and the
/// diff, exactly as `check` prints it.
#[test]
fn a_failed_test_reads_as_the_student_sees_it() {
    let output = check()
        .args(["--submission", "tests/fixtures/students/broken-root-alpha", "--sandbox", "off"])
        .args(["-q", "q2", "--test", "aima-fig5-2"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    insta::assert_snapshot!("check_failed_test", stdout(&output));
}

/// A search that enters the right nodes in another order is told so, where
/// the question checks the order of children (the default).
#[test]
fn the_same_nodes_in_another_order_are_named_as_such() {
    let output = check()
        .args(["--submission", "tests/fixtures/students/broken-onefunc-reverse", "--sandbox", "off"])
        .args(["-q", "q1", "--test", "aima-fig5-2"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("(you entered the same nodes, in another order: enter a node only when your search reaches it, and search each node's children"), "{text}");
}

/// A version manager's shim first on `PATH` (pyenv, asdf) is run once per
/// grading, to find the interpreter, and not at every start of the
/// student's program: a shim costs more than the interpreter's own start.
#[cfg(unix)]
#[test]
fn a_shim_on_path_is_run_once_per_grading() {
    use std::os::unix::fs::PermissionsExt as _;
    let found = std::process::Command::new("python3")
        .args(["-c", "import sys; sys.stdout.write(sys.executable)"])
        .output()
        .expect("python3 runs");
    let real = String::from_utf8(found.stdout).unwrap();
    let shims = tempfile::tempdir().unwrap();
    let log = shims.path().join("starts.log");
    let shim = shims.path().join("python3");
    std::fs::write(&shim, format!("#!/bin/sh\necho start >> '{}' 2>/dev/null\nexec '{real}' \"$@\"\n", log.display()))
        .unwrap();
    std::fs::set_permissions(&shim, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", shims.path().display(), std::env::var("PATH").unwrap_or_default());
    let output = check().env("PATH", path).args(["--submission", "reference/python"]).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}{}", stdout(&output), stderr(&output));
    assert!(stdout(&output).contains("Total: 20/20"), "{}", stdout(&output));
    let starts = std::fs::read_to_string(&log).unwrap_or_default();
    assert_eq!(starts.lines().count(), 1, "the shim ran {} times", starts.lines().count());
}
