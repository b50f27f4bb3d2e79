//! Failures told with their real cause, each charged to its own test only,
//! under every sandbox setting: a search that runs away until the memory
//! limit (or the time limit, without one) must not cost the test after it; a
//! reply left unread by a failed search never reaches the next test; and an
//! abort or a segmentation fault is named by its signal, with what to look
//! at, whether or not the program runs in a PID namespace of its own.
//!
//! Each case is graded by `treegrade batch`, which takes the memory limit
//! (`--memory`), on a small course written here.

use std::path::Path;
use std::process::Command;

use crate::common::{Scratch, repo, unavailable};

/// The sandbox settings every case is graded under.
#[derive(Clone, Copy, Debug)]
enum Sandbox {
    Off,
    Auto,
    Strict,
}

impl Sandbox {
    fn flag(self) -> &'static str {
        match self {
            Sandbox::Off => "off",
            Sandbox::Auto => "auto",
            Sandbox::Strict => "strict",
        }
    }
}

/// The memory limit of these courses' programs, in MiB: small, so that a
/// runaway search reaches it in seconds.
const MEMORY_MB: &str = "100";

/// A course of one question on `tests` (files of the games assignment, in
/// this order) whose program is `search.py`, run with the Python kit.
fn course(scratch: &Scratch, tests: &[&str], algorithm: &str, time_limit: u32) {
    let dir = scratch.path().join("course");
    std::fs::create_dir_all(dir.join("tests")).unwrap();
    for test in tests {
        std::fs::copy(repo().join("assignments/games/tests").join(test), dir.join("tests").join(test)).unwrap();
    }
    let files = tests.iter().map(|test| format!("\"{test}\"")).collect::<Vec<_>>().join(", ");
    std::fs::write(
        dir.join("assignment.yaml"),
        format!(
            "name: failures\ntitle: Failures\ntime_limit: {time_limit}\ntests_dir: tests\nlanguages:\n  - name: python\n    \
             detect: [search.py]\n    run: [python3, -u, search.py]\n    env: {{PYTHONPATH: \"{{kits}}/python\"}}\n\
             questions:\n  - id: q1\n    title: One question\n    points: {}\n    algorithm: {algorithm}\n    \
             scoring: per-test\n    tests: [{files}]\n",
            tests.len()
        ),
    )
    .unwrap();
}

/// Grades `program` (written as the student's `search.py`) in the course,
/// under `sandbox`: its text report, or `None` where `strict` refuses for a
/// layer this machine lacks (a failure under CI).
fn grade(scratch: &Scratch, program: &str, sandbox: Sandbox) -> Option<String> {
    let student = scratch.path().join("class/student");
    std::fs::create_dir_all(&student).unwrap();
    std::fs::write(student.join("search.py"), program).unwrap();
    let out = scratch.path().join(format!("out-{}", sandbox.flag()));
    let output = Command::new(env!("CARGO_BIN_EXE_treegrade"))
        .arg("batch")
        .arg(scratch.path().join("class"))
        .arg("--assignment")
        .arg(scratch.path().join("course"))
        .arg("--out")
        .arg(&out)
        .args(["--memory", MEMORY_MB, "--jobs", "1", "--force", "--sandbox", sandbox.flag()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    if matches!(sandbox, Sandbox::Strict) && stderr.contains("--sandbox strict: refusing") {
        unavailable(&format!("every sandbox layer ({stderr})"));
        return None;
    }
    let report = std::fs::read_to_string(out.join("reports/student/report.txt"))
        .unwrap_or_else(|error| panic!("no report ({error}); batch said:\n{stderr}"));
    eprintln!("under --sandbox {}:\n{report}", sandbox.flag());
    Some(report)
}

/// The lines of one test in a text report: its status line and what follows.
fn test_lines<'a>(report: &'a str, test: &str) -> &'a str {
    let start = report.find(&format!("q1/{test}")).unwrap_or_else(|| panic!("{test} is reported:\n{report}"));
    let line_start = report[..start].rfind('\n').map_or(0, |at| at + 1);
    let rest = &report[line_start..];
    let end = rest[1..].find("\n  PASS").or_else(|| rest[1..].find("\n  FAIL")).or_else(|| rest[1..].find("\n  ERROR"));
    let end = end.map_or(rest.len(), |end| end + 1).min(rest.find("\nQuestion").unwrap_or(rest.len()));
    &rest[..end]
}

/// The games assignment's reference, with the mistake the kit warns about:
/// `if game.depth and ...` reads a depth limit of 0 as no limit at all, so on
/// `c4-depth-zero` it searches connect-four without end; and, as a student
/// who keeps a scratch copy of every position it reaches, 16 KiB more for
/// each node, so that the memory limit comes in seconds on a busy machine.
fn runaway_program() -> String {
    let reference = std::fs::read_to_string(repo().join("reference/games/python/search.py")).unwrap();
    let runaway = reference.replace(
        "    if game.depth is not None and ply == game.depth:",
        "    KEPT.append([0] * 2048)\n    if game.depth and ply == game.depth:",
    );
    assert_ne!(runaway, reference, "the reference's depth check is where this test expects it");
    runaway.replacen("\ndef stop_value(", "\nKEPT = []\n\n\ndef stop_value(", 1)
}

/// The runaway search fails its own test, with its cause, and the program
/// that serves the next test is a fresh one, which passes it.
fn runaway_then_pass(sandbox: Sandbox) {
    let scratch = Scratch::new();
    // Without a memory limit the grader stops it at 10 s; with one, the limit comes first.
    let time_limit = if matches!(sandbox, Sandbox::Off) { 10 } else { 90 };
    course(&scratch, &["c4-depth-zero.yaml", "c4-win-in-one.yaml"], "alphabeta", time_limit);
    let Some(report) = grade(&scratch, &runaway_program(), sandbox) else { return };
    let runaway = test_lines(&report, "c4-depth-zero");
    assert!(runaway.trim_start().starts_with("ERROR"), "{report}");
    assert!(test_lines(&report, "c4-win-in-one").trim_start().starts_with("PASS"), "{report}");
    assert!(!runaway.contains("error return without exception set") || runaway.contains("out of memory"), "{report}");
    match sandbox {
        // No memory limit: the grader stops it at the time limit.
        Sandbox::Off => assert!(runaway.contains("did not answer within 10 s"), "{report}"),
        _ if !report.contains(" limits,") => unavailable("resource limits"),
        _ => {
            assert!(runaway.contains("your program ran out of memory: it reached"), "{report}");
            assert!(runaway.contains(&format!("of its {MEMORY_MB} MiB memory limit after entering")), "{report}");
            assert!(runaway.contains("check that it stops at the depth limit"), "{report}");
        }
    }
}

#[test]
fn a_runaway_search_costs_only_its_own_test_without_a_sandbox() {
    runaway_then_pass(Sandbox::Off);
}

#[test]
fn a_runaway_search_costs_only_its_own_test_in_the_default_sandbox() {
    runaway_then_pass(Sandbox::Auto);
}

#[test]
fn a_runaway_search_costs_only_its_own_test_in_the_strict_sandbox() {
    runaway_then_pass(Sandbox::Strict);
}

/// A program (no kit) that fails its first search after asking for the
/// root, with the reply still unread, as a kit whose read of a reply raised
/// (a `MemoryError`, a `RecursionError`) does; like the kits, it stops on a
/// message it does not expect between searches. The test after the failed
/// one must get a program that never saw that reply.
const UNREAD_REPLY_CLIENT: &str = r#"
import json, sys
def send(m):
    sys.stdout.write(json.dumps(m) + "\n"); sys.stdout.flush()
def recv():
    line = sys.stdin.readline()
    if not line:
        sys.exit(0)
    return json.loads(line)
recv()
send({"type": "hello", "protocol": 1})
while True:
    m = recv()
    if m["type"] == "bye":
        break
    if m["type"] != "search":
        sys.stderr.write("not a search: %r\n" % (m,))
        sys.exit(3)
    if m["test"].endswith("c4-depth-zero"):
        send({"type": "visit", "node": m["root"]})
        send({"type": "error", "kind": "exception", "message": "MemoryError"})
        continue
    send({"type": "visit", "node": m["root"]})
    root = recv()
    send({"type": "result", "value": root["value"], "action": None})
"#;

fn unread_reply_is_never_the_next_tests(sandbox: Sandbox) {
    let scratch = Scratch::new();
    // Two searches whose roots are cut at depth 0 (valued by their evaluation).
    course(&scratch, &["c4-depth-zero.yaml"], "alphabeta", 10);
    let dir = scratch.path().join("course");
    let first = std::fs::read_to_string(dir.join("tests/c4-depth-zero.yaml")).unwrap();
    std::fs::write(dir.join("tests/again.yaml"), first.replace("name: c4-depth-zero", "name: again")).unwrap();
    let yaml = std::fs::read_to_string(dir.join("assignment.yaml")).unwrap();
    std::fs::write(
        dir.join("assignment.yaml"),
        yaml.replace("[\"c4-depth-zero.yaml\"]", "[c4-depth-zero.yaml, again.yaml]"),
    )
    .unwrap();
    let program = UNREAD_REPLY_CLIENT.replace("root[\"value\"]", "root.get(\"eval\", root.get(\"value\"))");
    let Some(report) = grade(&scratch, &program, sandbox) else { return };
    assert!(test_lines(&report, "c4-depth-zero").trim_start().starts_with("ERROR"), "{report}");
    let next = test_lines(&report, "again");
    assert!(next.trim_start().starts_with("PASS"), "the next test got a fresh program:\n{report}");
}

#[test]
fn a_reply_left_unread_never_reaches_the_next_test_without_a_sandbox() {
    unread_reply_is_never_the_next_tests(Sandbox::Off);
}

#[test]
fn a_reply_left_unread_never_reaches_the_next_test_in_the_default_sandbox() {
    unread_reply_is_never_the_next_tests(Sandbox::Auto);
}

/// A search that dies of a signal after entering the root, in the kit.
fn dying_program(death: &str) -> String {
    format!(
        "import ctypes, os\nfrom treegrade_kit import run\n\ndef alphabeta(game):\n    game.children(game.root)\n    \
         {death}\n\nrun(alphabeta=alphabeta)\n"
    )
}

/// Each death is reported with its signal and its hint, the same way
/// under every sandbox setting.
fn signals_are_named(sandbox: Sandbox) {
    let scratch = Scratch::new();
    course(&scratch, &["c4-win-in-one.yaml"], "alphabeta", 20);
    let deaths = [
        ("os.abort()", "was killed by signal 6 (SIGABRT: the program aborted itself"),
        ("ctypes.string_at(0)", "was killed by signal 11 (SIGSEGV, a segmentation fault: a native extension"),
    ];
    for (death, said) in deaths {
        let Some(report) = grade(&scratch, &dying_program(death), sandbox) else { return };
        let test = test_lines(&report, "c4-win-in-one");
        assert!(test.contains(&format!("your program {said}")), "{death}:\n{report}");
        assert!(!test.contains("exited with status 1"), "{death}:\n{report}");
    }
}

#[test]
fn signal_deaths_are_named_without_a_sandbox() {
    signals_are_named(Sandbox::Off);
}

#[test]
fn signal_deaths_are_named_in_the_default_sandbox() {
    signals_are_named(Sandbox::Auto);
}

#[test]
fn signal_deaths_are_named_in_the_strict_sandbox() {
    signals_are_named(Sandbox::Strict);
}

/// The course files these tests read are where they expect them.
#[test]
fn the_games_tests_used_here_exist() {
    for test in ["c4-depth-zero.yaml", "c4-win-in-one.yaml"] {
        assert!(Path::new(&repo().join("assignments/games/tests").join(test)).is_file(), "{test}");
    }
}
