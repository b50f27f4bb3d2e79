//! `treegrade render` and the HTML report, end to end: SVG and HTML outputs,
//! a student trace in each accepted form, usage and input errors (exit 2),
//! a snapshot of a small SVG, and a real browser: when `/usr/bin/chromium`
//! exists, pages are rendered to PNG (kept under the target folder for a
//! person to look at); without it the browser test prints a note and passes.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command as Process, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::Command;
use common::{Scratch, repo};

const AIMA: &str = "\
root: A
nodes:
  A: {max: [B, C, D]}
  B: {min: [3, 12, 8]}
  C: {min: [2, 4, 6]}
  D: {min: [14, 5, 2]}
";

/// A minimax order of AIMA figure 5.2 cut short: C.2 and C.3 entered (no pruning), D.3 never.
const NO_PRUNING_TRACE: &str = "A\nB\nB.1\nB.2\nB.3\nC\nC.1\nC.2\nC.3\nD\nD.1\nD.2\n";

/// Runs `treegrade ARGS`: exit status, stdout, stderr.
fn treegrade(args: &[&str]) -> (i32, String, String) {
    let output = Command::cargo_bin("treegrade").unwrap().env("NO_COLOR", "1").args(args).output().unwrap();
    let text = |bytes: Vec<u8>| String::from_utf8(bytes).expect("UTF-8");
    (output.status.code().expect("an exit status"), text(output.stdout), text(output.stderr))
}

/// Runs `treegrade render ARGS`, which must succeed; returns stdout.
fn render_ok(args: &[&str]) -> String {
    let mut all = vec!["render"];
    all.extend_from_slice(args);
    let (status, stdout, stderr) = treegrade(&all);
    assert_eq!(status, 0, "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");
    stdout
}

/// `treegrade render ARGS` that must fail with exit 2; returns stderr.
fn render_error(args: &[&str]) -> String {
    let mut all = vec!["render"];
    all.extend_from_slice(args);
    let (status, stdout, stderr) = treegrade(&all);
    assert_eq!(status, 2, "stdout: {stdout}\nstderr: {stderr}");
    assert!(stdout.is_empty(), "{stdout}");
    stderr
}

/// The class list of the node drawn for `id`.
fn classes_of<'s>(svg: &'s str, id: &str) -> &'s str {
    let marker = format!("data-id=\"{id}\"");
    let at = svg.find(&marker).unwrap_or_else(|| panic!("node {id} is drawn"));
    let start = svg[..at].rfind("class=\"").unwrap() + 7;
    &svg[start..start + svg[start..].find('"').unwrap()]
}

#[test]
fn svg_output_draws_the_search() {
    let scratch = Scratch::new();
    let tree = scratch.write("aima.yaml", AIMA);
    let out = scratch.path().join("aima.svg");
    let stdout = render_ok(&[tree.to_str().unwrap(), "-a", "alphabeta", "-o", out.to_str().unwrap()]);
    assert!(stdout.is_empty(), "the picture goes to the file");
    let svg = std::fs::read_to_string(&out).unwrap();
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(svg.trim_end().ends_with("</svg>"));
    assert_eq!(classes_of(&svg, "A"), "node max visited");
    assert_eq!(classes_of(&svg, "C"), "node min visited cutoff");
    assert_eq!(classes_of(&svg, "C.2"), "node terminal pruned");
    assert!(svg.contains("[3, ∞]"), "windows are drawn");
}

#[test]
fn svg_goes_to_stdout_without_an_output_file() {
    let scratch = Scratch::new();
    let tree = scratch.write("aima.yaml", AIMA);
    let svg = render_ok(&[tree.to_str().unwrap()]);
    assert!(svg.starts_with("<svg"));
    assert_eq!(classes_of(&svg, "B"), "node min", "no algorithm: the bare tree");
    let first = render_ok(&[tree.to_str().unwrap(), "-a", "minimax", "-a", "alphabeta"]);
    assert_eq!(classes_of(&first, "C.2"), "node terminal visited", "SVG takes the first algorithm");
}

#[test]
fn html_output_shows_one_picture_per_algorithm() {
    let scratch = Scratch::new();
    let tree = repo().join("test-cases/chance-under-alphabeta.yaml");
    let out = scratch.path().join("page.HTML");
    render_ok(&[tree.to_str().unwrap(), "-a", "alphabeta", "-a", "expectimax", "-o", out.to_str().unwrap()]);
    let html = std::fs::read_to_string(&out).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert_eq!(html.matches("<svg").count(), 2);
    assert!(!html.contains("<script src") && !html.contains("<link") && !html.contains("src=\"http"), "self-contained");
}

#[test]
fn a_trace_marks_where_the_student_went_wrong() {
    let scratch = Scratch::new();
    let tree = scratch.write("aima.yaml", AIMA);
    let trace = scratch.write("trace.txt", &format!("# my search\n{NO_PRUNING_TRACE}\n"));
    let svg = render_ok(&[tree.to_str().unwrap(), "-a", "alphabeta", "--trace", trace.to_str().unwrap()]);
    assert_eq!(classes_of(&svg, "C.2"), "node terminal pruned wrong extra");
    assert_eq!(classes_of(&svg, "C.3"), "node terminal pruned extra");
    assert_eq!(classes_of(&svg, "D.3"), "node terminal visited skipped");
    assert_eq!(classes_of(&svg, "D"), "node min visited");
    assert!(svg.contains("at step 8 the expected order enters D, but the trace entered C.2"));
    // As a page, with a step-through of both orders.
    let page = scratch.path().join("trace.html");
    let args = [tree.to_str().unwrap(), "-a", "alphabeta", "--trace", trace.to_str().unwrap()];
    render_ok(&[&args[..], &["-o", page.to_str().unwrap()]].concat());
    let html = std::fs::read_to_string(&page).unwrap();
    assert_eq!(html.matches("<section class=\"stepper\"").count(), 1, "one step-through");
    assert!(html.contains("\"divergence\":7"), "it knows the first difference");
}

#[test]
fn traces_can_be_json() {
    let scratch = Scratch::new();
    let tree = scratch.write("aima.yaml", AIMA);
    let (status, solve, _) = treegrade(&["solve", tree.to_str().unwrap(), "-a", "minimax", "--format", "json"]);
    assert_eq!(status, 0);
    let from_solve = scratch.write("solve.json", &solve);
    let svg = render_ok(&[tree.to_str().unwrap(), "-a", "alphabeta", "--trace", from_solve.to_str().unwrap()]);
    assert_eq!(classes_of(&svg, "C.3"), "node terminal pruned extra");

    let list = scratch.write("list.json", r#"["A", "B", "B.1"]"#);
    let svg = render_ok(&[tree.to_str().unwrap(), "-a", "alphabeta", "--trace", list.to_str().unwrap()]);
    assert_eq!(classes_of(&svg, "B.2"), "node terminal visited wrong skipped");

    // A whole report, as check writes it: the trace of its one test.
    let from_report = scratch.path().join("report.json");
    let graded = assert_cmd::Command::cargo_bin("treegrade")
        .unwrap()
        .current_dir(crate::common::repo())
        .env_remove("TREEGRADE_ASSIGNMENT")
        .args(["check", "--submission", "tests/fixtures/students/broken-onefunc-no-pruning", "-q", "q2"])
        .args(["--test", "aima-fig5-2", "--sandbox", "off", "--format", "json", "--output"])
        .arg(&from_report)
        .output()
        .unwrap();
    assert_eq!(graded.status.code(), Some(1), "{}", String::from_utf8_lossy(&graded.stderr));
    let svg = render_ok(&[tree.to_str().unwrap(), "-a", "alphabeta", "--trace", from_report.to_str().unwrap()]);
    assert_eq!(classes_of(&svg, "C.2"), "node terminal pruned wrong extra");
    // Anything else that looks like a report is refused with the reason.
    let partial = scratch.write("partial.json", r#"{"format": "treegrade-report", "questions": []}"#);
    let (status, _, stderr) =
        treegrade(&["render", tree.to_str().unwrap(), "-a", "alphabeta", "--trace", partial.to_str().unwrap()]);
    assert_eq!(status, 2);
    assert!(stderr.contains("not a treegrade report: missing field"), "{stderr}");
}

#[test]
fn errors_exit_2_with_a_clear_message() {
    let scratch = Scratch::new();
    let tree = scratch.write("aima.yaml", AIMA);
    let tree = tree.to_str().unwrap();
    let png = scratch.path().join("tree.png");
    assert!(render_error(&[tree, "-o", png.to_str().unwrap()]).contains("name the output `.svg` or `.html`"));

    let trace = scratch.write("trace.txt", "A\nB\nZ\n");
    let message = render_error(&[tree, "--trace", trace.to_str().unwrap()]);
    assert!(message.contains("needs --algorithm"), "{message}");
    let message = render_error(&[tree, "-a", "alphabeta", "--trace", trace.to_str().unwrap()]);
    assert!(message.contains("there is no node `Z` in the tree"), "{message}");

    let bad_json = scratch.write("bad.json", "{\"visited\": [1, {}]}");
    let message = render_error(&[tree, "-a", "alphabeta", "--trace", bad_json.to_str().unwrap()]);
    assert!(message.contains("`visited` must be a list of node ids"), "{message}");
    let missing = scratch.path().join("missing.txt");
    assert!(render_error(&[tree, "-a", "alphabeta", "--trace", missing.to_str().unwrap()]).contains("cannot read"));

    let message = render_error(&[scratch.path().join("nope.yaml").to_str().unwrap()]);
    assert!(message.contains("nope.yaml"), "{message}");
    let chance = repo().join("test-cases/chance-root.yaml");
    assert!(render_error(&[chance.to_str().unwrap(), "-a", "minimax"]).contains("chance"));
    let message = render_error(&[tree, "-a", "alphabeta", "--depth", "1"]);
    assert!(message.contains("no `eval`"), "{message}");
}

#[test]
fn large_trees_are_summarised_and_deep_chains_drawn() {
    let large = repo().join("test-cases/large-b4-d4-prune-on-equal-true.yaml");
    let svg = render_ok(&[large.to_str().unwrap(), "-a", "alphabeta", "--max-nodes", "30"]);
    assert!(svg.contains("class=\"summary\""));
    assert!(svg.contains("nodes are summarised in dashed boxes"));
    let chain = repo().join("test-cases/deep-chain-50.yaml");
    let svg = render_ok(&[chain.to_str().unwrap(), "-a", "minimax"]);
    assert!(!svg.contains("class=\"summary\""));
}

#[test]
fn small_svg_snapshot() {
    let scratch = Scratch::new();
    let tree = scratch.write("aima.yaml", AIMA);
    let trace = scratch.write("trace.txt", NO_PRUNING_TRACE);
    let svg = render_ok(&[tree.to_str().unwrap(), "-a", "alphabeta", "--trace", trace.to_str().unwrap()]);
    insta::assert_snapshot!("aima_alphabeta_trace_svg", svg);
}

/// Writes the Python reference with the children searched last to first.
fn reverse_children_submission(dir: &Path) {
    #[derive(serde::Deserialize)]
    struct Mutant {
        name: String,
        find: String,
        replace: String,
    }
    let text = std::fs::read_to_string(repo().join("tests/fixtures/mutants.yaml")).unwrap();
    let mutants: Vec<Mutant> = serde_saphyr::from_str(&text).unwrap();
    let mutant = mutants.iter().find(|m| m.name == "reverse-children").expect("the mutant exists");
    let reference = std::fs::read_to_string(repo().join("reference/python/search.py")).unwrap();
    std::fs::write(dir.join("search.py"), reference.replacen(&mutant.find, &mutant.replace, 1)).unwrap();
}

/// `check --format html` of a failing submission on q2; returns the page.
fn failing_report(scratch: &Scratch) -> PathBuf {
    let submission = scratch.path().join("submission");
    std::fs::create_dir(&submission).unwrap();
    reverse_children_submission(&submission);
    let out = scratch.path().join("report.html");
    let args = ["check", "--submission", submission.to_str().unwrap(), "-q", "q2", "--format", "html"];
    let (status, stdout, stderr) = treegrade(&[&args[..], &["--output", out.to_str().unwrap()]].concat());
    assert_eq!(status, 1, "the submission fails: {stdout}\n{stderr}");
    assert!(stdout.contains("FAIL"), "the text report still goes to stdout");
    // It says where the HTML report went, not to run the command that wrote it.
    assert!(stdout.contains(&format!("The html report is in {}", out.display())), "{stdout}");
    assert!(!stdout.contains("--format html --output report.html"), "{stdout}");
    out
}

/// The `<article>` of one failed test.
fn article<'h>(html: &'h str, name: &str) -> &'h str {
    let start = html.find(&format!("<article class=\"failure\" id=\"t-{name}\"")).expect("the test has an article");
    &html[start..start + html[start..].find("</article>").unwrap()]
}

#[test]
fn check_html_report_draws_each_visible_failure() {
    let scratch = Scratch::new();
    let html = std::fs::read_to_string(failing_report(&scratch)).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(!html.contains("<script src") && !html.contains("<link") && !html.contains("src=\"http"), "self-contained");
    assert!(html.contains("<section class=\"stepper\""), "a step-through for each visible failure");
    let aima = article(&html, "q2_aima-fig5-2");
    assert!(aima.contains("likely cause: your max and min nodes search their children in reverse order"), "{aima}");
    assert!(aima.contains("<table class=\"diff\""));
    assert!(aima.contains("<svg") && aima.contains("node min visited wrong"));
    let hidden = article(&html, "q2_large-b3-d5-alphabeta");
    assert!(hidden.contains("hidden test: wrong visited order"));
    assert!(!hidden.contains("<svg") && !hidden.contains("class=\"diff\""), "no picture, no expected data");
}

/// Renders `page` to `png` with headless Chromium; false when Chromium is missing.
fn screenshot(page: &Path, png: &Path, size: &str) -> bool {
    let chromium = Path::new("/usr/bin/chromium");
    if !chromium.exists() {
        return false;
    }
    let profile = tempfile::tempdir().unwrap();
    let mut child = Process::new(chromium)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"])
        .args(["--disable-background-networking", "--disable-component-update", "--disable-sync"])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("--screenshot={}", png.display()))
        .arg(format!("--window-size={size}"))
        .arg(format!("file://{}", page.display()))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromium starts");
    let deadline = Instant::now() + Duration::from_secs(90);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("chromium did not finish rendering {} in 90 s", page.display());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    true
}

/// A PNG that exists, is a PNG, and is more than a blank page.
fn assert_non_trivial_png(png: &Path) {
    let bytes = std::fs::read(png).unwrap_or_else(|e| panic!("{} was not written: {e}", png.display()));
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "{} is a PNG", png.display());
    assert!(bytes.len() > 20_000, "{} is only {} bytes: a blank page?", png.display(), bytes.len());
}

#[test]
fn pages_render_in_a_real_browser() {
    if !Path::new("/usr/bin/chromium").exists() {
        crate::common::unavailable("/usr/bin/chromium (apt-get install chromium)");
        return;
    }
    let scratch = Scratch::new();
    let shots = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("render-check");
    std::fs::create_dir_all(&shots).unwrap();
    let aima = repo().join("test-cases/aima-fig5-2.yaml");
    let page = scratch.path().join("aima.html");
    render_ok(&[aima.to_str().unwrap(), "-a", "alphabeta", "-a", "minimax", "-o", page.to_str().unwrap()]);
    let report = failing_report(&scratch);
    for (page, name, size) in [(page, "aima.png", "1400,900"), (report, "report.png", "1400,1800")] {
        let png = shots.join(name);
        let _ = std::fs::remove_file(&png);
        assert!(screenshot(&page, &png, size));
        assert_non_trivial_png(&png);
        eprintln!("rendered {}", png.display());
    }
}
