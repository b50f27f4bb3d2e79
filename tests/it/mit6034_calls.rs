//! Calls questions (docs/format.md, "Calls questions") through the MIT
//! 6.034 kit: a hand-written course (`tests/fixtures/mit6034-calls`) whose
//! tests call the lab's Connect Four rule functions on boards and read its
//! multiple-choice answers, one test of each check form. Correct files
//! under either of the lab's names keep every point; the starter gets 0
//! with a message per test; a wrong rule fails its tests with the first
//! board that differs drawn beside the expected one; a function that ends
//! the program or raises fails its own tests alone.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::common::repo;

fn course() -> PathBuf {
    repo().join("tests/fixtures/mit6034-calls")
}

fn check(student: &str) -> serde_json::Value {
    crate::common::check_json(&course(), &course().join("students").join(student))
}

/// Test name to (status, reason).
fn results(report: &serde_json::Value) -> BTreeMap<String, (String, String)> {
    let tests = report["questions"].as_array().unwrap().iter().flat_map(|q| q["tests"].as_array().unwrap());
    tests
        .map(|t| {
            let status = match &t["status"] {
                serde_json::Value::String(status) => status.clone(),
                other => other["error"].as_str().unwrap().to_string(),
            };
            (t["name"].as_str().unwrap().to_string(), (status, t["reason"].as_str().unwrap_or("").to_string()))
        })
        .collect()
}

/// The tests that did not pass, with their status.
fn not_passed(report: &serde_json::Value) -> Vec<(String, String)> {
    results(report).into_iter().filter(|(_, (status, _))| status != "passed").map(|(name, (s, _))| (name, s)).collect()
}

#[test]
fn correct_files_under_either_name_keep_every_point() {
    for student in ["correct", "correct-lab3"] {
        let report = check(student);
        assert_eq!(not_passed(&report), Vec::<(String, String)>::new(), "{student}");
        assert_eq!((report["score"].as_f64(), report["max_score"].as_f64()), (Some(10.0), Some(10.0)), "{student}");
        assert_eq!(results(&report).len(), 10);
    }
}

#[test]
fn the_starter_gets_nothing_and_a_message_per_test() {
    let report = check("starter");
    assert_eq!(report["score"].as_f64(), Some(0.0));
    for (name, (status, reason)) in results(&report) {
        assert_eq!(status, "not-implemented", "{name}");
        let wanted = if name.starts_with("answers/") { "not answered yet" } else { "not implemented yet" };
        assert!(reason.ends_with(wanted), "{name}: {reason}");
    }
    let reasons: std::collections::BTreeSet<String> =
        results(&report).into_values().map(|(_, reason)| reason).collect();
    assert_eq!(reasons.len(), 10, "each message names its own call: {reasons:?}");
}

#[test]
fn a_wrong_rule_fails_its_tests_with_the_first_board_that_differs() {
    let report = check("wrong-rule");
    let failed = not_passed(&report);
    let wanted = [("rules/03-next_boards_connectfour", "failed"), ("rules/04-next_boards_connectfour", "failed")];
    assert_eq!(failed, wanted.map(|(name, status)| (name.to_string(), status.to_string())));
    assert_eq!(report["score"].as_f64(), Some(8.0));
    let test = &report["questions"][0]["tests"][2];
    let call = &test["call"];
    assert_eq!(call["returned"].as_array().unwrap().len(), 1, "one call, one value");
    let board = call["boards"][0]["text"].as_str().unwrap();
    assert!(board.starts_with("expected") && board.contains("yours"), "{board}");
    let bottom = board.lines().last().unwrap();
    assert!(bottom.starts_with("1 _ _ _ _ _ _ ") && bottom.ends_with(" _ _ _ _ _ _ 1"), "{board}");
}

#[test]
fn a_crashing_or_raising_function_fails_only_its_own_tests() {
    let report = check("crashing");
    let failed = not_passed(&report);
    let wanted = [
        ("heuristic/07-heuristic_connectfour", "exception"),
        ("heuristic/08-heuristic_connectfour", "exception"),
        ("rules/06-endgame_score_connectfour_faster", "crashed"),
    ];
    assert_eq!(failed, wanted.map(|(name, status)| (name.to_string(), status.to_string())));
    let all = results(&report);
    assert!(all["heuristic/07-heuristic_connectfour"].1.contains("ZeroDivisionError"), "{all:?}");
    assert!(all["rules/06-endgame_score_connectfour_faster"].1.contains("exited with status 3"), "{all:?}");
    // After the crash, a fresh program answers the next tests.
    assert_eq!(all["answers/09-ANSWER_1"].0, "passed");
    assert_eq!(report["score"].as_f64(), Some(7.0));
}

#[test]
fn validate_reads_the_call_files_and_refuses_a_broken_one() {
    let validate = |dir: &std::path::Path| {
        assert_cmd::Command::cargo_bin("treegrade").unwrap().arg("validate").arg(dir).output().unwrap()
    };
    let output = validate(&course());
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.contains("3 questions, 10 test files"), "{stdout}");
    let output = validate(&course().join("tests"));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.contains("call: endgame_score_connectfour_faster, 2 calls; check: numbers"), "{stdout}");
    assert!(stdout.contains("call: the value of ANSWER_1; check: equals_text"), "{stdout}");
    let scratch = crate::common::Scratch::new();
    scratch.write("assignment.yaml", "questions:\n  - {id: rules, points: 1, calls: [01-f.yaml]}\n");
    scratch.write("01-f.yaml", "call: {function: f}\ncheck:\n  numbers: [{above: 0}]\n  order: upward\n");
    let output = validate(scratch.path());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("01-f.yaml:4:") && stderr.contains("unknown order `upward`"), "{stderr}");
}

/// The text report, its first line (the machine's sandbox) left out.
fn text_report(student: &str) -> String {
    let output = assert_cmd::Command::cargo_bin("treegrade")
        .unwrap()
        .env("NO_COLOR", "1")
        .env_remove("TREEGRADE_ASSIGNMENT")
        .arg("check")
        .arg("--assignment")
        .arg(course())
        .arg("--submission")
        .arg(course().join("students").join(student))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    text.split_once('\n').map_or(text.clone(), |(_, rest)| rest.to_string())
}

#[test]
fn reports_of_call_tests() {
    insta::assert_snapshot!("mit6034_calls_text_wrong_rule", text_report("wrong-rule"));
    let report = check("wrong-rule");
    let mut tests: Vec<serde_json::Value> =
        [0, 2].iter().map(|&index| report["questions"][0]["tests"][index].clone()).collect();
    for test in &mut tests {
        test["elapsed_ms"] = serde_json::json!(0);
    }
    insta::assert_snapshot!("mit6034_calls_json_passed_and_failed", serde_json::to_string_pretty(&tests).unwrap());
}

/// A program of its own that answers calls badly in every way but the last.
const MISBEHAVING: &str = r#"
import json, sys, time
for line in sys.stdin:
    message = json.loads(line)
    kind, name = message["type"], message.get("variable")
    if kind == "hello":
        reply = {"type": "hello", "protocol": 1, "kit": "misbehaving"}
    elif kind == "bye":
        break
    elif name == "GARBAGE":
        print("thinking about it...", flush=True)
        continue
    elif name == "TWO":
        reply = {"type": "returned", "values": [1, 2]}
    elif name == "SLEEPY":
        time.sleep(30)
    elif name == "ODD":
        reply = {"type": "returned", "values": [{"shape": "circle"}]}
    else:
        reply = {"type": "returned", "values": ["4"]}
    print(json.dumps(reply), flush=True)
"#;

#[test]
fn a_program_that_breaks_the_protocol_fails_that_test_alone() {
    let scratch = crate::common::Scratch::new();
    let calls = ["GARBAGE", "TWO", "SLEEPY", "ODD", "FINE"];
    for (index, name) in calls.iter().enumerate() {
        scratch.write(
            &format!("0{index}-{name}.yaml"),
            &format!("call: {{variable: {name}}}\ncheck: {{equals_text: '4'}}\n"),
        );
    }
    scratch.write(
        "assignment.yaml",
        "time_limit: 2\nlanguages:\n  - {name: python, detect: [prog.py], run: [python3, -u, prog.py]}\n\
         questions:\n  - {id: q, points: 5, calls: [\"0*.yaml\"]}\n",
    );
    let submission = crate::common::Scratch::new();
    submission.write("prog.py", MISBEHAVING);
    let report = crate::common::check_json(scratch.path(), submission.path());
    let all = results(&report);
    let status = |name: &str| all[&format!("q/0{}-{name}", calls.iter().position(|c| *c == name).unwrap())].clone();
    assert_eq!(status("GARBAGE").0, "protocol-error", "{all:?}");
    assert!(status("GARBAGE").1.contains("printed \"thinking about it...\""), "{all:?}");
    assert_eq!(status("TWO").0, "protocol-error", "{all:?}");
    assert!(status("TWO").1.contains("with 2 values, where it makes 1 call"), "{all:?}");
    assert_eq!(status("SLEEPY").0, "timed-out", "{all:?}");
    assert_eq!(status("ODD").0, "protocol-error", "{all:?}");
    assert_eq!(status("FINE").0, "passed", "a fresh program answers the last test: {all:?}");
    assert_eq!(report["score"].as_f64(), Some(1.0));
}

/// The Gradescope zip carries a calls question's files where its
/// `tests_dir` says, so that the autograder finds them.
#[test]
fn the_gradescope_zip_carries_the_call_files() {
    let glibc = std::process::Command::new("getconf").arg("GNU_LIBC_VERSION").output().expect("getconf runs");
    let glibc = String::from_utf8_lossy(&glibc.stdout).split_whitespace().nth(1).expect("`glibc 2.NN`").to_string();
    let scratch = crate::common::Scratch::new();
    let zip_path = scratch.path().join("autograder.zip");
    let output = assert_cmd::Command::cargo_bin("treegrade")
        .unwrap()
        .env_remove("TREEGRADE_ASSIGNMENT")
        .arg("gradescope")
        .arg("--assignment")
        .arg(course())
        .args(["--glibc", &glibc, "--out"])
        .arg(&zip_path)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let archive = zip::ZipArchive::new(std::fs::File::open(&zip_path).unwrap()).unwrap();
    let names: Vec<String> = archive.file_names().map(|name| name.unwrap().into_owned()).collect();
    for file in std::fs::read_dir(course().join("tests")).unwrap() {
        let name = format!("assignment/tests/{}", file.unwrap().file_name().to_string_lossy());
        assert!(names.contains(&name), "{name} in {names:?}");
    }
}
