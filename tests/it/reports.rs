//! Snapshots of every report format for one mixed grading run: a pass, a
//! wrong visited order, a crash, and a hidden test. Reviewed as diffs with
//! insta; timings are zeroed so the snapshots are stable.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use crate::common;

use common::{MINIMAX_CLIENT, with_hooks};
use treegrade::engine::Algorithm;
use treegrade::grader::plan::{Assignment, Question, QuestionKind, Scoring, Searches, TestFile, TestTree, plan_tests};
use treegrade::grader::result::GradeReport;
use treegrade::grader::{Target, grade};
use treegrade::load::load_tree_file;
use treegrade::report::{Format, render};

/// Alpha-beta done wrong: no pruning at all (the plain minimax client), and
/// a crash on the three-bin game.
fn no_pruning_client() -> String {
    let crash = "if \"three-bin\" in m[\"test\"]:\n        \
                 sys.stderr.write(\"Traceback (most recent call last):\\nZeroDivisionError: division by zero\\n\")\n        \
                 sys.exit(1)";
    with_hooks(MINIMAX_CLIENT, &[("SEARCH", crash)])
}

fn mixed_report() -> GradeReport {
    mixed_run().0
}

/// The mixed run's report with the planned tests it graded (the HTML
/// report's pictures come from their trees).
fn mixed_run() -> (GradeReport, Vec<treegrade::grader::plan::PlannedTest>) {
    let cases = Path::new(env!("CARGO_MANIFEST_DIR")).join("test-cases");
    let test = |name: &str, hidden: bool| TestFile { path: cases.join(name), hidden };
    let assignment = Assignment {
        name: "snapshots".into(),
        title: "Report snapshots".into(),
        dir: cases.clone(),
        time_limit: Duration::from_secs(10),
        languages: Vec::new(),
        verdict: Default::default(),
        questions: vec![Question {
            id: "q2".into(),
            title: "Alpha-beta".into(),
            points: treegrade::points::Points::whole(4),
            scoring: Scoring::PerTest,
            kind: QuestionKind::Search(Searches {
                algorithm: Algorithm::AlphaBeta,
                depth: None,
                prune_on_equal: Some(false),
                overrides: Default::default(),
                child_order: Default::default(),
                tests: vec![
                    test("single-terminal-root.yaml", false),
                    test("aima-fig5-2.yaml", false),
                    test("three-bin-minimax.yaml", false),
                    test("alphabeta-deep-cutoff.yaml", true),
                ],
                generate: None,
                pacman: Vec::new(),
            }),
        }],
    };
    let tests =
        plan_tests(&assignment, &[0], |t| TestTree::Written(Arc::new(load_tree_file(&t.path).unwrap().tree))).unwrap();
    let kits = tempfile::tempdir().unwrap();
    let command = vec!["python3".to_string(), "-c".to_string(), no_pruning_client()];
    let target = Target { dir: cases, command: Some(command), name: Some("submissions/student-42".into()) };
    let mut report = grade(&assignment, &[0], &tests, &target, kits.path()).unwrap();
    report.elapsed_ms = 0;
    for question in &mut report.questions {
        for test in &mut question.tests {
            test.header.elapsed_ms = 0;
            test.header.path = Path::new(&test.header.path).file_name().unwrap().to_string_lossy().into_owned();
        }
    }
    (report, tests)
}

#[test]
fn every_format_renders_the_same_run() {
    let report = mixed_report();
    insta::assert_snapshot!("text", render(&report, Format::Text, false));
    insta::assert_snapshot!("markdown", render(&report, Format::Markdown, false));
    insta::assert_snapshot!("junit", render(&report, Format::Junit, false));
    insta::assert_snapshot!("gradescope", render(&report, Format::Gradescope, false));
    insta::assert_snapshot!("json", render(&report, Format::Json, false));
    insta::assert_snapshot!("prairielearn", render(&report, Format::Prairielearn, false));
}

/// GitHub colours a ```diff block's lines that start with `+` or `-`: the
/// Markdown report's order diff has its signs at the margin, the column
/// headers and unchanged steps behind a space.
#[test]
fn the_markdown_diff_has_its_signs_at_the_margin() {
    let markdown = render(&mixed_report(), Format::Markdown, false);
    let block = markdown.split("```diff\n").nth(1).and_then(|rest| rest.split("```").next()).unwrap();
    let rows: Vec<&str> = block.lines().skip_while(|line| !line.contains("expected  yours")).skip(1).collect();
    assert!(rows.iter().any(|line| line.starts_with("+ ")), "{block}");
    assert!(rows.iter().all(|line| line.starts_with(['+', '-', ' '])), "{block}");
    assert!(!block.contains("  +"), "no sign is indented: {block}");
}

/// The HTML report's structure: every element with its id and classes and
/// every text, indented by nesting; styles and scripts by size only, and
/// each SVG picture by the count of each kind of element in it, so that the
/// snapshot shows what a student sees without pinning every coordinate.
#[test]
fn the_html_report_has_its_structure() {
    let (report, tests) = mixed_run();
    let html = treegrade::report::render_html(&report, &treegrade::batch::drawables(&tests));
    insta::assert_snapshot!("html_outline", common::html_outline(&html));
}

/// The JSON report reads back into its own version-1 type and writes out
/// the same, byte for byte: the format is that type, not the grader's.
#[test]
fn the_json_report_reads_back_as_version_1() {
    let report = mixed_report();
    let text = render(&report, Format::Json, false);
    let back = treegrade::report::json::v1::Report::from_json(&text).expect("a version-1 report");
    assert_eq!(back.tests().count(), report.tests().count());
    let mut again = serde_json::to_string_pretty(&back).unwrap();
    again.push('\n');
    assert_eq!(again, text);
    let other = text.replace("\"version\": 1", "\"version\": 2");
    let error = treegrade::report::json::v1::Report::from_json(&other).unwrap_err().to_string();
    assert!(error.contains("version 2"), "{error}");
}

#[test]
fn gradescope_results_have_the_required_fields() {
    let report = mixed_report();
    let results: serde_json::Value = serde_json::from_str(&render(&report, Format::Gradescope, false)).unwrap();
    assert_eq!(results["score"], 1.0);
    let tests = results["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 4);
    for test in tests {
        for key in ["name", "number", "score", "max_score", "status", "output", "visibility"] {
            assert!(test.get(key).is_some(), "missing {key} in {test}");
        }
    }
    assert_eq!(tests[3]["visibility"], "after_published");
    assert_eq!(tests[0]["status"], "passed");
    assert_eq!(tests[1]["status"], "failed");
}

#[test]
fn hidden_tests_never_show_expected_answers() {
    let report = mixed_report();
    for format in [Format::Text, Format::Markdown, Format::Junit, Format::Gradescope] {
        let rendered = render(&report, format, false);
        assert!(rendered.contains("hidden test: wrong visited order"), "{format:?}: {rendered}");
    }
}

/// What a student sees of a hidden test is what docs/courses.md says: its
/// name, status and points, which of its checks failed, and the named
/// mistake; none of its tree, expected answers, trace or output.
#[test]
fn a_hidden_test_shows_what_the_course_guide_says() {
    let guide = include_str!("../../docs/courses.md").split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        guide.contains(
            "a hidden test appears there by its name, status and points, with which of its checks failed (value, \
             action, visited order) or how the program failed"
        ),
        "docs/courses.md says what a hidden test shows"
    );
    assert!(guide.contains("never its tree, expected answers, the student's trace of it or its output"));
    let report = mixed_report();
    let view = treegrade::report::student_view(&report);
    let hidden = view.tests().find(|test| test.header.hidden).expect("the mixed report has a hidden test");
    let full = report.tests().find(|test| test.header.hidden).unwrap();
    assert_eq!(
        (&hidden.header.name, &hidden.header.status, hidden.header.score, hidden.checks()),
        (&full.header.name, &full.header.status, full.header.score, full.checks())
    );
    assert_eq!(hidden.header.reason.as_deref(), Some("hidden test: wrong visited order"));
    assert!(
        hidden.expected().visited.is_empty() && hidden.actual().visited.is_empty() && hidden.divergence().is_none()
    );
    assert!(hidden.header.stderr.is_empty() && hidden.header.details.is_none() && hidden.header.description.is_none());
    for format in [Format::Text, Format::Markdown, Format::Junit, Format::Gradescope, Format::Prairielearn] {
        let rendered = render(&view, format, false);
        assert!(rendered.contains("hidden test: wrong visited order"), "{format:?}: {rendered}");
    }
}

#[test]
fn prairielearn_results_score_in_zero_to_one() {
    let report = mixed_report();
    let results: serde_json::Value = serde_json::from_str(&render(&report, Format::Prairielearn, false)).unwrap();
    assert_eq!(results["gradable"], true);
    assert_eq!(results["score"], 0.25);
    let tests = results["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 4);
    assert_eq!((tests[0]["points"].as_f64(), tests[0]["max_points"].as_f64()), (Some(1.0), Some(1.0)));
    assert_eq!(tests[1]["points"], 0.0);
    assert!(tests[1]["output"].as_str().unwrap().contains("likely cause: your alpha-beta never prunes"));
}

/// A program whose stderr and action are terminal escapes, NUL, U+FFFE, a
/// bidirectional override and `]]>`.
fn hostile_text_report() -> GradeReport {
    let noise = r#"sys.stderr.write("\x1b[2J\x1b]52;c;aGk=\x07Total: 20/20 \x00 \ufffe ]]> \u202e\r\n")"#;
    let client = with_hooks(MINIMAX_CLIENT, &[("SEARCH", noise)])
        .replace("\"action\": root[\"actions\"][vals.index(best)]", "\"action\": \"\\x1b[31mA\\x00\"");
    let cases = Path::new(env!("CARGO_MANIFEST_DIR")).join("test-cases");
    let assignment = Assignment {
        name: "hostile-text".into(),
        title: "Hostile text".into(),
        dir: cases.clone(),
        time_limit: Duration::from_secs(10),
        languages: Vec::new(),
        verdict: Default::default(),
        questions: vec![Question {
            id: "q1".into(),
            title: "Minimax".into(),
            points: treegrade::points::Points::whole(1),
            scoring: Scoring::PerTest,
            kind: QuestionKind::Search(Searches {
                algorithm: Algorithm::Minimax,
                depth: None,
                prune_on_equal: None,
                overrides: Default::default(),
                child_order: Default::default(),
                tests: vec![TestFile { path: cases.join("aima-fig5-2.yaml"), hidden: false }],
                generate: None,
                pacman: Vec::new(),
            }),
        }],
    };
    let tests =
        plan_tests(&assignment, &[0], |t| TestTree::Written(Arc::new(load_tree_file(&t.path).unwrap().tree))).unwrap();
    let kits = tempfile::tempdir().unwrap();
    let command = vec!["python3".to_string(), "-c".to_string(), client];
    let target = Target { dir: cases, command: Some(command), name: Some("mallory".into()) };
    grade(&assignment, &[0], &tests, &target, kits.path()).unwrap()
}

#[test]
fn student_text_is_shown_never_interpreted() {
    let report = hostile_text_report();
    assert!(report.tests().all(|t| t.header.stderr.contains("Total: 20/20")), "the stderr is kept, escaped");
    for format in
        [Format::Text, Format::Markdown, Format::Junit, Format::Gradescope, Format::Json, Format::Prairielearn]
    {
        let rendered = render(&report, format, false);
        for raw in ['\u{1b}', '\u{0}', '\u{7}', '\u{fffe}', '\u{202e}', '\r'] {
            assert!(!rendered.contains(raw), "{format:?} carries a raw {raw:?}:\n{rendered}");
        }
        assert!(rendered.contains("\\u{1b}[2J"), "{format:?} shows the escape:\n{rendered}");
    }
    let text = render(&report, Format::Text, false);
    assert!(text.contains("you chose \\u{1b}[31mA\\u{0}"), "{text}");
    let html = treegrade::report::render_html(&report, &[]);
    assert!(!html.contains('\u{1b}') && html.contains("\\u{1b}[2J"), "{html}");
}

/// Whether a JUnit file parses with Python's XML parser and, where it is
/// installed, with `junitparser` (required under CI, which installs it).
fn parses_as_junit(xml: &str) -> Result<(), String> {
    let has_junitparser = std::process::Command::new("python3")
        .args(["-c", "import junitparser"])
        .status()
        .is_ok_and(|status| status.success());
    if !has_junitparser {
        assert!(std::env::var("CI").as_deref() != Ok("true"), "CI must install junitparser (pip install junitparser)");
    }
    let script = if has_junitparser {
        "import sys, junitparser, xml.etree.ElementTree as ET\n\
         data = sys.stdin.buffer.read(); ET.fromstring(data)\n\
         import tempfile, os\n\
         f = tempfile.NamedTemporaryFile(suffix='.xml', delete=False); f.write(data); f.close()\n\
         xml = junitparser.JUnitXml.fromfile(f.name); os.unlink(f.name)\n\
         [case for suite in xml for case in suite]\n"
    } else {
        "import sys, xml.etree.ElementTree as ET; ET.fromstring(sys.stdin.buffer.read())"
    };
    let mut child = std::process::Command::new("python3")
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    use std::io::Write as _;
    child.stdin.take().unwrap().write_all(xml.as_bytes()).map_err(|e| e.to_string())?;
    let output = child.wait_with_output().map_err(|e| e.to_string())?;
    if output.status.success() { Ok(()) } else { Err(String::from_utf8_lossy(&output.stderr).into_owned()) }
}

#[test]
fn junit_parses_and_keeps_to_the_common_schema_for_any_student_text() {
    for report in [hostile_text_report(), mixed_report()] {
        let xml = render(&report, Format::Junit, false);
        parses_as_junit(&xml).unwrap_or_else(|error| panic!("{error}\n{xml}"));
        for tag in xml.lines().map(str::trim).filter(|line| line.starts_with("<testsuite ")) {
            let attributes: Vec<&str> =
                tag.split('"').step_by(2).filter_map(|part| part.trim().strip_suffix('=')).map(|a| a.trim()).collect();
            let allowed = ["<testsuite name", "tests", "failures", "errors", "skipped", "time"];
            assert!(attributes.iter().all(|a| allowed.contains(a)), "{tag}: {attributes:?}");
        }
    }
}

/// A program that remembers every tree it is served (in its scratch home)
/// and prints all it remembers on every test.
fn hoarding_client() -> String {
    let hoard = "import os\n    \
                 path = os.path.join(os.environ.get('HOME', '.'), 'seen.txt')\n    \
                 open(path, 'a').write(m['root'] + ' ' + m['test'] + '\\n')\n    \
                 sys.stderr.write('seen so far: ' + open(path).read())";
    with_hooks(MINIMAX_CLIENT, &[("SEARCH", hoard)])
}

#[test]
fn nothing_learnt_from_a_hidden_tree_reaches_the_student() {
    let cases = Path::new(env!("CARGO_MANIFEST_DIR")).join("test-cases");
    let hidden_dir = tempfile::tempdir().unwrap();
    let hidden_tree = hidden_dir.path().join("secret-tree.yaml");
    std::fs::write(
        &hidden_tree,
        "root: HIDDENROOT\nnodes:\n  HIDDENROOT: {max: [HIDDENB, 7]}\n  HIDDENB: {min: [9, 3]}\n",
    )
    .unwrap();
    let question = |id: &str, tests: Vec<TestFile>| Question {
        id: id.into(),
        title: id.into(),
        points: treegrade::points::Points::whole(2),
        scoring: Scoring::PerTest,
        kind: QuestionKind::Search(Searches {
            algorithm: Algorithm::Minimax,
            depth: None,
            prune_on_equal: None,
            overrides: Default::default(),
            child_order: Default::default(),
            tests,
            generate: None,
            pacman: Vec::new(),
        }),
    };
    let assignment = Assignment {
        name: "leak".into(),
        title: "Hidden leak".into(),
        dir: cases.clone(),
        time_limit: Duration::from_secs(10),
        languages: Vec::new(),
        verdict: Default::default(),
        questions: vec![
            // The hidden test comes first in the assignment; public tests follow it.
            question("q1", vec![TestFile { path: hidden_tree.clone(), hidden: true }]),
            question("q2", vec![TestFile { path: cases.join("aima-fig5-2.yaml"), hidden: false }]),
        ],
    };
    let tests =
        plan_tests(&assignment, &[0, 1], |t| TestTree::Written(Arc::new(load_tree_file(&t.path).unwrap().tree)))
            .unwrap();
    let kits = tempfile::tempdir().unwrap();
    let command = vec!["python3".to_string(), "-c".to_string(), hoarding_client()];
    let target = Target { dir: cases, command: Some(command), name: Some("mallory".into()) };
    let report = grade(&assignment, &[0, 1], &tests, &target, kits.path()).unwrap();
    let full = render(&report, Format::Json, false);
    assert!(full.contains("HIDDENROOT"), "the instructor's report has the hidden test: {full}");
    let view = treegrade::report::student_view(&report);
    for format in
        [Format::Text, Format::Markdown, Format::Junit, Format::Gradescope, Format::Json, Format::Prairielearn]
    {
        let rendered = render(&view, format, false);
        assert!(!rendered.contains("HIDDEN"), "{format:?} leaks the hidden tree:\n{rendered}");
        assert!(!rendered.contains(hidden_dir.path().to_str().unwrap()), "{format:?} names the instructor's folder");
    }
    let html = treegrade::report::render_html(&view, &treegrade::batch::drawables(&tests));
    assert!(!html.contains("HIDDEN"), "HTML leaks the hidden tree");
    assert!(view.tests().any(|t| t.header.stderr.contains("seen so far: A q2/aima-fig5-2")), "public output is kept");
}

/// The reason of a minimax test on the tree whose root actions are Left,
/// Right and Stop, graded with the client's action expression replaced.
fn action_reason(action_expression: &str) -> String {
    let client = MINIMAX_CLIENT.replace("root[\"actions\"][vals.index(best)]", action_expression);
    assert_ne!(client, MINIMAX_CLIENT, "the client's action is replaced");
    let cases = Path::new(env!("CARGO_MANIFEST_DIR")).join("test-cases");
    let assignment = Assignment {
        name: "actions".into(),
        title: "Actions".into(),
        dir: cases.clone(),
        time_limit: Duration::from_secs(10),
        languages: Vec::new(),
        verdict: Default::default(),
        questions: vec![Question {
            id: "q1".into(),
            title: "Minimax".into(),
            points: treegrade::points::Points::whole(1),
            scoring: Scoring::PerTest,
            kind: QuestionKind::Search(Searches {
                algorithm: Algorithm::Minimax,
                depth: None,
                prune_on_equal: None,
                overrides: Default::default(),
                child_order: Default::default(),
                tests: vec![TestFile { path: cases.join("labelled-actions.yaml"), hidden: false }],
                generate: None,
                pacman: Vec::new(),
            }),
        }],
    };
    let tests =
        plan_tests(&assignment, &[0], |t| TestTree::Written(Arc::new(load_tree_file(&t.path).unwrap().tree))).unwrap();
    let kits = tempfile::tempdir().unwrap();
    let command = vec!["python3".to_string(), "-c".to_string(), client];
    let target = Target { dir: cases, command: Some(command), name: Some("student".into()) };
    let report = grade(&assignment, &[0], &tests, &target, kits.path()).unwrap();
    report.tests().next().unwrap().header.reason.clone().unwrap_or_default()
}

#[test]
fn a_wrong_action_shows_what_each_action_is_worth() {
    let reason = action_reason("root[\"actions\"][0]");
    assert_eq!(reason, "action: expected Stop (value 7), you chose Left (value 4)");
}

#[test]
fn an_id_returned_for_an_action_is_named_as_such() {
    let reason = action_reason("root[\"children\"][vals.index(best)]");
    assert_eq!(
        reason,
        "action: expected Stop (value 7), you chose c, which is the id of the child behind the action Stop: \
         return the action, not the id"
    );
}

#[test]
fn an_empty_action_is_named_as_such() {
    let reason = action_reason("\"\"");
    assert_eq!(
        reason,
        "action: expected Stop (value 7), you chose an empty string (\"\"), which is no action of the root"
    );
}
