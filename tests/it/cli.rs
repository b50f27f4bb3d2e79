//! End-to-end tests of the `treegrade` command: every kind of invalid input
//! of docs/format.md section 1 (exit status 2, nothing on stdout, a located
//! message on stderr), and `solve` / `validate` on valid input.

use crate::common;

use std::path::Path;
use std::process::Output;

use assert_cmd::Command;
use common::{FORMAT_EXAMPLE, Scratch};

const FULL_ORDER: [&str; 12] = ["A", "B", "B.1", "B.2", "B.3", "C", "H", "D", "K", "L", "L.1", "L.2"];
const DEPTH_2_ORDER: [&str; 10] = ["A", "B", "B.1", "B.2", "B.3", "C", "H", "D", "K", "L"];

fn treegrade(args: &[&str]) -> Output {
    Command::cargo_bin("treegrade").expect("the binary is built").env("NO_COLOR", "1").args(args).output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("UTF-8 output")
}

fn solve(path: &Path, args: &[&str]) -> Output {
    let mut all = vec!["solve", path.to_str().unwrap()];
    all.extend_from_slice(args);
    treegrade(&all)
}

fn solve_json(path: &Path, args: &[&str]) -> serde_json::Value {
    let mut all = args.to_vec();
    all.extend_from_slice(&["--format", "json"]);
    let output = solve(path, &all);
    assert_eq!(output.status.code(), Some(0), "stderr: {}", text(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("one JSON object")
}

fn strings(value: &serde_json::Value) -> Vec<String> {
    value.as_array().expect("an array").iter().map(|v| v.as_str().expect("a string").to_string()).collect()
}

/// Where an error must point: a line, and a column if the test pins one.
#[derive(Clone, Copy)]
enum At {
    Line(u32),
    LineColumn(u32, u32),
    /// The problem has no place in the file (an unreadable file).
    Nowhere,
}

/// Asserts exit status 2, an empty stdout, and a stderr naming the file,
/// the place and every word of `words`. Returns stderr.
fn assert_rejected(output: &Output, path: &Path, at: At, words: &[&str]) -> String {
    let stderr = text(&output.stderr);
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(2), "exit status; stderr:\n{stderr}");
    assert!(stdout.is_empty(), "stdout must be empty, got:\n{stdout}");
    assert!(!stderr.contains("panicked"), "a panic:\n{stderr}");
    let path = path.display().to_string();
    assert!(stderr.contains(&path), "stderr does not name {path}:\n{stderr}");
    match at {
        At::LineColumn(line, column) => {
            let place = format!("{path}:{line}:{column}");
            assert!(stderr.contains(&place), "stderr does not point at {place}:\n{stderr}");
        }
        At::Line(line) => {
            let place = format!("{path}:{line}:");
            let column = stderr.split(&place).nth(1).map(|rest| rest.chars().next());
            assert!(
                matches!(column, Some(Some(c)) if c.is_ascii_digit()),
                "stderr does not point at {place}COLUMN:\n{stderr}"
            );
        }
        At::Nowhere => {}
    }
    // The words must be in the message itself, not only in the quoted source line.
    let messages: Vec<&str> = stderr.lines().filter(|line| line.starts_with("error:")).collect();
    assert!(!messages.is_empty(), "no `error:` line:\n{stderr}");
    for word in words {
        assert!(messages.iter().any(|m| m.contains(word)), "the message does not say `{word}`:\n{stderr}");
    }
    stderr
}

/// A file that is invalid on its own: `solve` (any algorithm) and `validate` reject it.
fn assert_invalid_file(yaml: &str, at: At, words: &[&str]) {
    let scratch = Scratch::new();
    let path = scratch.write("tree.yaml", yaml);
    for algorithm in ["alphabeta", "expectimax"] {
        assert_rejected(&solve(&path, &["--algorithm", algorithm]), &path, at, words);
    }
    let output = treegrade(&["validate", path.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2), "validate: {}", text(&output.stderr));
    let stdout = text(&output.stdout);
    assert!(stdout.starts_with("error  "), "validate reports the file as invalid: {stdout}");
    assert!(stdout.contains(&path.display().to_string()), "{stdout}");
}

/// A file searched with settings that make it invalid: `solve FILE ARGS` rejects it.
fn assert_invalid_search(yaml: &str, args: &[&str], at: At, words: &[&str]) {
    let scratch = Scratch::new();
    let path = scratch.write("tree.yaml", yaml);
    assert_rejected(&solve(&path, args), &path, at, words);
}

macro_rules! invalid_file {
    ($($name:ident: $yaml:expr, $at:expr, [$($word:expr),* $(,)?];)*) => {$(
        #[test]
        fn $name() {
            assert_invalid_file($yaml, $at, &[$($word),*]);
        }
    )*};
}

invalid_file! {
    broken_yaml_syntax: "root: A\nnodes:\n  A: {max: [1, 2}\n", At::Line(3), ["bracket"];
    unclosed_flow_sequence: "root: A\nnodes:\n  A: {max: [1,\n", At::Line(3), ["unclosed"];
    unknown_top_level_key: "root: A\nnodes: {A: 1}\nbogus: 1\n", At::LineColumn(3, 1), ["unknown", "bogus"];
    unknown_search_key: "root: A\nnodes: {A: 1}\nsearch: {deep: 1}\n", At::Line(3), ["unknown", "deep"];
    unknown_node_key: "root: A\nnodes:\n  A: {max: [1], weight: 3}\n", At::Line(3), ["unknown key", "weight"];
    two_kinds_on_one_node: "root: A\nnodes:\n  A: {max: [1], min: [2]}\n", At::LineColumn(3, 3),
        ["node `A`", "two kinds", "max", "min"];
    value_plus_a_kind: "root: A\nnodes:\n  A: {value: 1, max: [2]}\n", At::LineColumn(3, 3),
        ["node `A`", "value", "max"];
    a_node_with_neither_kind_nor_value: "root: A\nnodes:\n  A: {max: [B]}\n  B: {eval: 2}\n", At::LineColumn(4, 3),
        ["node `B`", "none of"];
    duplicate_ids_written_the_same_way: "root: A\nnodes:\n  A: {max: [B]}\n  B: 1\n  B: 2\n", At::LineColumn(5, 3),
        ["duplicate", "`B`"];
    duplicate_ids_written_as_number_and_string: "root: A\nnodes:\n  A: {max: [\"1\"]}\n  1: 1\n  \"1\": 2\n",
        At::LineColumn(5, 3), ["duplicate", "`1`"];
    explicit_id_colliding_with_an_inline_leaf: "root: A\nnodes:\n  A: {max: [B, C]}\n  B: {min: [1, 2]}\n  C: {max: [B.1]}\n  B.1: 5\n",
        At::Line(4), ["duplicate", "`B.1`"];
    duplicate_actions_among_siblings: "root: A\nnodes:\n  A: {max: [{go: B}, {go: C}]}\n  B: 1\n  C: 2\n",
        At::LineColumn(3, 22), ["node `A`", "action `go`", "unique"];
    duplicate_action_from_a_label_and_an_id: "root: A\nnodes:\n  A: {max: [{C: B}, C]}\n  B: 1\n  C: 2\n",
        At::LineColumn(3, 21), ["action `C`"];
    missing_child: "root: A\nnodes:\n  A: {max: [B, Z]}\n  B: 1\n", At::LineColumn(3, 16), ["`Z`", "not defined"];
    missing_root: "root: R\nnodes:\n  A: {max: [1]}\n", At::LineColumn(1, 7), ["root `R`", "not defined"];
    missing_root_key: "nodes: {A: 1}\n", At::Line(1), ["missing", "root"];
    missing_nodes_key: "root: A\n", At::Line(1), ["missing", "nodes"];
    empty_nodes: "root: A\nnodes: {}\n", At::Line(2), ["`nodes` is empty"];
    root_listed_as_a_child: "root: A\nnodes:\n  A: {max: [B]}\n  B: {min: [A]}\n", At::LineColumn(4, 13),
        ["root `A`", "child of `B`"];
    a_node_with_two_parents: "root: A\nnodes:\n  A: {max: [B, C]}\n  B: {min: [D]}\n  C: {min: [D]}\n  D: 1\n",
        At::LineColumn(5, 13), ["`D`", "two parents", "`B`", "`C`"];
    an_unreachable_node: "root: A\nnodes:\n  A: {max: [B]}\n  B: 1\n  E: 3\n", At::LineColumn(5, 3), ["`E`", "unreachable"];
    an_unquoted_numeric_id_is_an_inline_leaf: "root: A\nnodes:\n  A: {max: [1]}\n  1: 5\n", At::Line(4),
        ["`1`", "unreachable"];
    a_cycle: "root: A\nnodes:\n  A: {max: [B]}\n  B: 1\n  C: {max: [D]}\n  D: {min: [C]}\n", At::LineColumn(5, 3),
        ["cycle", "C -> D -> C"];
    an_internal_node_with_no_children: "root: A\nnodes:\n  A: {max: [B]}\n  B: {min: []}\n", At::LineColumn(4, 3),
        ["`B`", "no children"];
    nan_utility: "root: A\nnodes:\n  A: {max: [B]}\n  B: .nan\n", At::Line(4), ["nan", "finite"];
    nan_inline_leaf: "root: A\nnodes:\n  A: {max: [1, .NaN]}\n", At::Line(3), ["finite"];
    infinite_utility: "root: A\nnodes:\n  A: {max: [B, 1]}\n  B: .inf\n", At::Line(4), ["inf", "finite"];
    negative_infinite_inline_leaf: "root: A\nnodes:\n  A: {max: [1, -.inf]}\n", At::Line(3), ["inf", "finite"];
    infinite_eval: "root: A\nnodes:\n  A: {max: [1], eval: .inf}\n", At::Line(3), ["eval", "finite"];
    probs_count_mismatch: "root: A\nnodes:\n  A: {chance: [1, 2], probs: [1]}\n", At::LineColumn(3, 30),
        ["2 children", "1 probabilities"];
    a_prob_above_1: "root: A\nnodes:\n  A: {chance: [1, 2], probs: [1.5, -0.5]}\n", At::Line(3),
        ["1.5", "outside [0, 1]"];
    a_negative_prob: "root: A\nnodes:\n  A: {chance: [1, 2, 3], probs: [0.5, 0.75, -0.25]}\n", At::Line(3),
        ["-0.25", "outside [0, 1]"];
    a_nan_prob: "root: A\nnodes:\n  A: {chance: [1, 2], probs: [.nan, 0.5]}\n", At::Line(3), ["NaN"];
    probs_not_summing_to_1: "root: A\nnodes:\n  A: {chance: [1, 2], probs: [0.5, 0.6]}\n", At::Line(3),
        ["sum to 1.1", "not 1"];
    probs_on_a_max_node: "root: A\nnodes:\n  A: {max: [1, 2], probs: [0.5, 0.5]}\n", At::Line(3),
        ["node `A`", "probs", "not a chance node"];
    a_depth_cut_without_eval_from_the_file: "root: A\nnodes:\n  A: {max: [B]}\n  B: {min: [1]}\nsearch: {depth: 1}\n",
        At::LineColumn(4, 3), ["depth", "`B`", "no `eval`"];
    a_negative_depth_in_the_file: "root: A\nnodes:\n  A: {max: [1]}\nsearch: {depth: -1}\n", At::Line(4), ["invalid"];
    minimax_expected_on_a_tree_with_chance_nodes:
        "root: A\nnodes:\n  A: {max: [B]}\n  B: {chance: [1]}\nexpect:\n  minimax: {value: 1}\n",
        At::LineColumn(4, 3), ["minimax", "chance", "`B`"];
    an_expectation_for_an_unknown_algorithm: "root: A\nnodes: {A: 1}\nexpect:\n  negamax: {value: 1}\n",
        At::LineColumn(4, 3), ["unknown algorithm", "negamax"];
    a_non_finite_expected_value: "root: A\nnodes: {A: 1}\nexpect:\n  alphabeta: {value: .nan}\n", At::Line(4),
        ["finite"];
    a_labelled_edge_with_two_entries: "root: A\nnodes:\n  A: {max: [{x: 1, y: 2}]}\n", At::Line(3), ["exactly one entry"];
    // An empty file has no place to point at; see also `bug_an_empty_file_is_reported_as_empty`.
    an_empty_file: "", At::Nowhere, [];
    a_file_with_only_a_comment: "# nothing here\n", At::Nowhere, [];
    two_yaml_documents: "root: A\nnodes: {A: 1}\n---\nroot: B\nnodes: {B: 1}\n", At::Line(4), ["document"];
}

/// BUG (src/load/mod.rs, `yaml_diagnostic` / `in_our_words`): an empty or
/// comment-only file is reported as "unexpected end of input" (serde-saphyr's
/// `Error::Eof`), which does not say what is wrong: the file is empty.
#[test]
fn bug_an_empty_file_is_reported_as_empty() {
    for yaml in ["", "\n\n", "# nothing here\n"] {
        assert_invalid_file(yaml, At::Nowhere, &["empty"]);
    }
}

/// BUG (src/load/mod.rs, `in_our_words`): a file with two YAML documents is
/// reported as "multiple YAML documents detected; use from_str_multiple or
/// from_str_multiple_with_options", advice meant for the parser's callers.
#[test]
fn bug_two_yaml_documents_are_explained_to_the_author() {
    let yaml = "root: A\nnodes: {A: 1}\n---\nroot: B\nnodes: {B: 1}\n";
    let scratch = Scratch::new();
    let path = scratch.write("tree.yaml", yaml);
    let stderr = assert_rejected(&solve(&path, &["-a", "alphabeta"]), &path, At::Line(4), &["document"]);
    assert!(!stderr.contains("from_str"), "the message speaks of the parser's API:\n{stderr}");
}

#[test]
fn a_missing_file() {
    let scratch = Scratch::new();
    let path = scratch.path().join("absent.yaml");
    assert_rejected(&solve(&path, &["--algorithm", "alphabeta"]), &path, At::Nowhere, &["cannot read"]);
}

#[test]
fn a_depth_cut_without_eval_from_the_flag() {
    let yaml = "root: A\nnodes:\n  A: {max: [B]}\n  B: {min: [1]}\n";
    assert_invalid_search(yaml, &["-a", "alphabeta", "--depth", "1"], At::LineColumn(4, 3), &["depth", "`B`", "eval"]);
    // The root itself cut by depth 0.
    assert_invalid_search(yaml, &["-a", "minimax", "--depth", "0"], At::LineColumn(3, 3), &["depth", "`A`", "eval"]);
}

#[test]
fn the_depth_flag_reaches_a_node_without_eval_in_the_format_example() {
    // Ply 1 holds B (no eval), C (eval 4) and D (no eval).
    assert_invalid_search(FORMAT_EXAMPLE, &["-a", "alphabeta", "--depth", "1"], At::LineColumn(6, 3), &["`B`", "eval"]);
}

#[test]
fn minimax_on_a_tree_with_chance_nodes() {
    assert_invalid_search(FORMAT_EXAMPLE, &["-a", "minimax"], At::LineColumn(8, 3), &["minimax", "chance", "`D`"]);
}

#[test]
fn bad_flags_are_usage_errors() {
    let scratch = Scratch::new();
    let path = scratch.write("tree.yaml", FORMAT_EXAMPLE);
    for args in [
        vec!["--algorithm", "negamax"],
        vec![],
        vec!["-a", "alphabeta", "--depth", "-1"],
        vec!["-a", "alphabeta", "--prune-on-equal", "maybe"],
        vec!["-a", "alphabeta", "--format", "xml"],
    ] {
        let output = solve(&path, &args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(output.stdout.is_empty(), "{args:?}");
        assert!(!text(&output.stderr).is_empty(), "{args:?}");
    }
}

// ---------------------------------------------------------------------------
// solve on valid input
// ---------------------------------------------------------------------------

#[test]
fn solve_the_format_example_as_text() {
    let scratch = Scratch::new();
    let path = scratch.write("example.yaml", FORMAT_EXAMPLE);
    let output = solve(&path, &["--algorithm", "alphabeta"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(output.stderr.is_empty());
    let stdout = text(&output.stdout);
    assert!(stdout.contains("value      7.25\n"), "{stdout}");
    assert!(stdout.contains("action     D\n"), "{stdout}");
    assert!(stdout.contains(&format!("order      {}\n", FULL_ORDER.join(" "))), "{stdout}");
}

#[test]
fn solve_the_format_example_as_json() {
    let scratch = Scratch::new();
    let path = scratch.write("example.yaml", FORMAT_EXAMPLE);
    let output = solve(&path, &["--algorithm", "alphabeta", "--format", "json"]);
    assert_eq!(output.status.code(), Some(0));
    let stdout = text(&output.stdout);
    assert_eq!(stdout.lines().count(), 1, "one JSON object on one line: {stdout}");
    // The four keys of docs/format.md 4 come first, in this order.
    assert!(stdout.starts_with(r#"{"algorithm":"alphabeta","value":7.25,"action":"D","visited":["#), "{stdout}");
    let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(json["value"], 7.25);
    assert_eq!(json["action"], "D");
    assert_eq!(strings(&json["visited"]), FULL_ORDER);

    let json = solve_json(&path, &["-a", "expectimax"]);
    assert_eq!(
        (json["algorithm"].as_str(), json["value"].as_f64(), json["action"].as_str()),
        (Some("expectimax"), Some(7.25), Some("D"))
    );
    // Expectimax prunes nothing: all 14 nodes.
    assert_eq!(strings(&json["visited"]).len(), 14);
}

#[test]
fn solve_with_depth_2_from_the_flag_and_from_the_file() {
    let scratch = Scratch::new();
    let plain = scratch.write("example.yaml", FORMAT_EXAMPLE);
    let json = solve_json(&plain, &["-a", "alphabeta", "--depth", "2"]);
    assert_eq!(json["value"], 4.25);
    assert_eq!(json["action"], "D");
    assert_eq!(strings(&json["visited"]), DEPTH_2_ORDER);

    let with_depth = FORMAT_EXAMPLE
        .replace("  # depth: 2 ", "  depth: 2   ")
        .replace("{value: 7.25, action: D, visited: [A, B, B.1, B.2, B.3, C, H, D, K, L, L.1, L.2]}", "{value: 4.25}")
        .replace("{value: 7.25, action: D}", "{value: 4.25}");
    let path = scratch.write("example-depth-2.yaml", &with_depth);
    let json = solve_json(&path, &["-a", "alphabeta"]);
    assert_eq!(json["value"], 4.25);
    assert_eq!(json["action"], "D");
    assert_eq!(json["depth"], 2);
    assert_eq!(strings(&json["visited"]), DEPTH_2_ORDER);

    // The flag overrides the file: depth 3 cuts nothing in this tree.
    let json = solve_json(&path, &["-a", "alphabeta", "--depth", "3"]);
    assert_eq!(json["value"], 7.25);
    assert_eq!(strings(&json["visited"]), FULL_ORDER);
    // Depth 0 would cut the root, which has no eval.
    assert_eq!(solve(&path, &["-a", "alphabeta", "--depth", "0"]).status.code(), Some(2));

    let output = solve(&path, &["-a", "alphabeta"]);
    let stdout = text(&output.stdout);
    assert!(stdout.contains("value      4.25\n"), "{stdout}");
    assert!(stdout.contains("depth limit 2"), "{stdout}");
}

/// max(min(3), min(3, 9)): C.1 = 3 reaches alpha = 3 without passing it.
fn equality_tree(prune_on_equal: bool) -> String {
    format!(
        "root: A\nnodes:\n  A: {{max: [B, C]}}\n  B: {{min: [3]}}\n  C: {{min: [3, 9]}}\nsearch: {{prune_on_equal: {prune_on_equal}}}\n"
    )
}

#[test]
fn solve_prune_on_equal_flag_overrides_the_file() {
    let scratch = Scratch::new();
    let on_equal = scratch.write("on-equal.yaml", &equality_tree(true));
    let strict = scratch.write("strict.yaml", &equality_tree(false));
    let pruned = ["A", "B", "B.1", "C", "C.1"];
    let unpruned = ["A", "B", "B.1", "C", "C.1", "C.2"];
    for (path, flag, expected) in [
        (&on_equal, None, &pruned[..]),
        (&on_equal, Some("false"), &unpruned[..]),
        (&on_equal, Some("true"), &pruned[..]),
        (&strict, None, &unpruned[..]),
        (&strict, Some("true"), &pruned[..]),
        (&strict, Some("false"), &unpruned[..]),
    ] {
        let mut args = vec!["-a", "alphabeta"];
        if let Some(flag) = flag {
            args.extend(["--prune-on-equal", flag]);
        }
        let json = solve_json(path, &args);
        assert_eq!(strings(&json["visited"]), expected, "{} {flag:?}", path.display());
        assert_eq!(json["value"], 3.0);
        assert_eq!(json["action"], "B", "the first child that strictly improved the root");
        assert_eq!(json["prune_on_equal"], flag.map_or(path == &on_equal, |f| f == "true"));
    }
}

#[test]
fn solve_a_terminal_root_and_a_chance_root_have_no_action() {
    let scratch = Scratch::new();
    let leaf = scratch.write("leaf.yaml", "root: A\nnodes:\n  A: 5\n");
    let json = solve_json(&leaf, &["-a", "minimax"]);
    assert_eq!((json["value"].as_f64(), json["action"].is_null()), (Some(5.0), true));
    let chance = scratch.write("chance.yaml", "root: A\nnodes:\n  A: {chance: [8, 24, -12]}\n");
    let json = solve_json(&chance, &["-a", "expectimax"]);
    assert!(json["action"].is_null());
    assert_eq!(json["value"], 0.0 + (1.0 / 3.0) * 8.0 + (1.0 / 3.0) * 24.0 + (1.0 / 3.0) * -12.0);
    let output = solve(&chance, &["-a", "expectimax"]);
    assert!(text(&output.stdout).contains("action     none"), "{}", text(&output.stdout));
}

#[test]
fn solve_numeric_ids() {
    let scratch = Scratch::new();
    let path = scratch.write("numeric.yaml", "root: 1\nnodes:\n  1: {max: [\"2\", 5]}\n  \"2\": {min: [4, 7]}\n");
    let json = solve_json(&path, &["-a", "alphabeta"]);
    assert_eq!(json["value"], 5.0);
    assert_eq!(json["action"], "1.2");
    assert_eq!(strings(&json["visited"]), ["1", "2", "2.1", "2.2", "1.2"]);
}

// ---------------------------------------------------------------------------
// validate
// ---------------------------------------------------------------------------

#[test]
fn validate_accepts_good_files() {
    let scratch = Scratch::new();
    let example = scratch.write("example.yaml", FORMAT_EXAMPLE);
    let leaf = scratch.write("leaf.yml", "root: A\nnodes: {A: 1}\n");
    let output = treegrade(&["validate", example.to_str().unwrap(), leaf.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(output.stderr.is_empty(), "{}", text(&output.stderr));
    let stdout = text(&output.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert_eq!(lines[0], format!("ok     {} (tree: 14 nodes; alphabeta, expectimax)", example.display()));
    assert_eq!(lines[1], format!("ok     {} (tree: 1 node; no expectations)", leaf.display()));
}

#[test]
fn validate_shows_how_an_expectation_disagrees() {
    let scratch = Scratch::new();
    let wrong = FORMAT_EXAMPLE
        .replace("{value: 7.25, action: D, visited: [A, B, B.1, B.2, B.3, C, H, D, K, L, L.1, L.2]}", "{value: 7}")
        .replace("{value: 7.25, action: D}", "{action: C, visited: [A, B, C]}");
    let path = scratch.write("wrong.yaml", &wrong);
    let output = treegrade(&["validate", path.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    let stdout = text(&output.stdout);
    let line = stdout.lines().next().unwrap_or_default();
    assert!(line.starts_with(&format!("FAIL   {}: ", path.display())), "{stdout}");
    assert!(line.contains("expect.alphabeta.value: expected 7, the reference gives 7.25"), "{line}");
    assert!(line.contains("expect.expectimax.action: expected C, the reference chooses D"), "{line}");
    assert!(
        line.contains(
            "expect.expectimax.visited: at step 3 the expected order enters C, but the reference entered B.1"
        ),
        "{line}"
    );
    assert!(text(&output.stderr).contains("1 of 1 file is invalid or disagrees"), "{}", text(&output.stderr));
}

#[test]
fn validate_a_folder() {
    let scratch = Scratch::new();
    let good = scratch.write("a-good.yaml", FORMAT_EXAMPLE);
    let wrong = scratch.write("b-wrong.yaml", &FORMAT_EXAMPLE.replace("{value: 7.25, action: D}", "{value: 8}"));
    let broken = scratch.write("c-broken.yml", "root: A\nnodes:\n  A: {max: [B]}\n");
    scratch.write("notes.txt", "not a tree");
    let folder = scratch.path().to_str().unwrap();
    let output = treegrade(&["validate", folder]);
    assert_eq!(output.status.code(), Some(2));
    let stdout = text(&output.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "the .txt file is skipped: {stdout}");
    assert!(lines[0].starts_with(&format!("ok     {}", good.display())), "{stdout}");
    assert!(
        lines[1].starts_with(&format!("FAIL   {}: expect.expectimax.value: expected 8", wrong.display())),
        "{stdout}"
    );
    assert!(lines[2].starts_with(&format!("error  {}:3:", broken.display())), "{stdout}");
    let stderr = text(&output.stderr);
    assert!(stderr.contains("`B`"), "{stderr}");
    assert!(stderr.contains("2 of 3 files"), "{stderr}");

    // A folder of good files passes.
    std::fs::remove_file(&wrong).unwrap();
    std::fs::remove_file(&broken).unwrap();
    let output = treegrade(&["validate", folder]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stdout));
}

#[test]
fn validate_checks_an_assignment_folder() {
    let bundled = common::repo().join("assignments/adversarial-search");
    let output = treegrade(&["validate", bundled.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let stdout = text(&output.stdout);
    assert!(stdout.starts_with("ok     ") && stdout.contains("(assignment: 4 questions,"), "{stdout}");
    assert!(stdout.contains("20 points)"), "{stdout}");
}

/// Validating an assignment checks every file it would run against its own
/// `expect` blocks, as validating the files one by one does: a course whose
/// test expects a wrong answer is not `ok`.
#[test]
fn validate_an_assignment_checks_each_tests_expectations() {
    let scratch = Scratch::new();
    let course = scratch.path();
    std::fs::create_dir_all(course.join("tests")).unwrap();
    std::fs::write(
        course.join("assignment.yaml"),
        "tests_dir: tests\nquestions:\n  - {id: q1, points: 5, algorithm: expectimax, tests: [\"*.yaml\"]}\n",
    )
    .unwrap();
    std::fs::write(course.join("tests/a-good.yaml"), FORMAT_EXAMPLE).unwrap();
    let wrong = FORMAT_EXAMPLE.replace("{value: 7.25, action: D}", "{value: 8}");
    std::fs::write(course.join("tests/b-wrong.yaml"), wrong).unwrap();
    std::fs::write(
        course.join("tests/c-game.yaml"),
        "rules: tic-tac-toe\nposition: \"xo./.x./...\"\nexpect:\n  minimax: {value: -1}\n",
    )
    .unwrap();
    let output = treegrade(&["validate", course.to_str().unwrap()]);
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(2), "{stdout}{}", text(&output.stderr));
    let bad: Vec<&str> = stdout.lines().filter(|line| line.starts_with("FAIL")).collect();
    assert_eq!(bad.len(), 3, "each bad file, then the assignment: {stdout}");
    assert!(bad[0].contains("b-wrong.yaml: expect.expectimax.value: expected 8"), "{stdout}");
    assert!(bad[1].contains("c-game.yaml: expect.minimax.value: expected -1"), "{stdout}");
    assert!(bad[2].contains("2 of 3 test files are invalid or disagree with the reference"), "{stdout}");
    assert!(!stdout.contains("a-good.yaml"), "a good file is not listed: {stdout}");
    assert!(!stdout.contains("ok "), "{stdout}");
}

#[test]
fn validate_reports_each_kind_of_assignment_problem() {
    let cases = [
        ("questions:\n  - {id: q1, points: 5, algorithm: minimax, tests: [missing.yaml]}\n", "does not exist"),
        ("questions:\n  - {id: q1, points: -1, algorithm: minimax, tests: [tree.yaml]}\n", "points must be"),
        (
            "questions:\n  - {id: q1, points: 5, algorithm: minimax, tests: [\"/**/*.yaml\"]}\n",
            "leaves the tests folder",
        ),
        ("questions:\n  - {id: q1, points: 5, algorithm: minimax, depth: 1, tests: [tree.yaml]}\n", "has no `eval`"),
        ("questions:\n  - {id: q1, points: 5, algorithm: minimax, tests: [broken.yaml]}\n", "broken.yaml"),
        ("title: [unclosed\n", "assignment.yaml"),
    ];
    for (assignment, because) in cases {
        let scratch = Scratch::new();
        scratch.write("tree.yaml", "root: A\nnodes: {A: {max: [B, 2]}, B: {min: [1, 3]}}\n");
        scratch.write("broken.yaml", "root: A\nnodes: {A: {max: [Z]}}\n");
        scratch.write("assignment.yaml", assignment);
        let output = treegrade(&["validate", scratch.path().to_str().unwrap()]);
        assert_eq!(output.status.code(), Some(2), "{assignment}");
        assert!(text(&output.stdout).starts_with("error  "), "{}", text(&output.stdout));
        assert!(text(&output.stderr).contains(because), "{assignment}: {}", text(&output.stderr));
    }
}

/// `treegrade validate $(find course -name '*.yaml')`: the assignment file is
/// read as an assignment (by its name, or by its `questions` key), every
/// other file as a tree or a game, and each line says which.
#[test]
fn validate_reads_each_file_as_what_it_is() {
    let scratch = Scratch::new();
    let course = scratch.path().join("course");
    std::fs::create_dir_all(course.join("tests")).unwrap();
    let assignment = "title: Search\nquestions:\n  - {id: q1, points: 5, algorithm: minimax, tests: [tree.yaml]}\n";
    std::fs::write(course.join("assignment.yaml"), assignment).unwrap();
    std::fs::write(course.join("midterm.yml"), assignment.replace("tree.yaml", "tests/t.yaml")).unwrap();
    std::fs::write(course.join("tree.yaml"), "root: A\nnodes: {A: {max: [B, 2]}, B: {min: [1, 3]}}\n").unwrap();
    std::fs::write(course.join("tests/t.yaml"), "root: A\nnodes: {A: 1}\n").unwrap();
    std::fs::write(course.join("tests/ttt.yaml"), "rules: tic-tac-toe\nposition: \"xo./.x./...\"\n").unwrap();
    let mut files: Vec<String> = ["assignment.yaml", "midterm.yml", "tree.yaml", "tests/t.yaml", "tests/ttt.yaml"]
        .iter()
        .map(|f| course.join(f).to_string_lossy().into_owned())
        .collect();
    files.sort();
    let args: Vec<&str> = std::iter::once("validate").chain(files.iter().map(String::as_str)).collect();
    let output = treegrade(&args);
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}{}", text(&output.stderr));
    let kind_of = |file: &str| {
        let line = stdout.lines().find(|line| line.contains(file)).unwrap_or_else(|| panic!("{file}: {stdout}"));
        assert!(line.starts_with("ok     "), "{line}");
        line.split('(').nth(1).unwrap_or_default().split([':', ';']).next().unwrap_or_default().to_string()
    };
    assert_eq!(kind_of("assignment.yaml"), "assignment");
    assert_eq!(kind_of("midterm.yml"), "assignment", "a `questions` key makes an assignment");
    assert_eq!(kind_of("course/tree.yaml"), "tree");
    assert_eq!(kind_of("tests/t.yaml"), "tree");
    assert_eq!(kind_of("ttt.yaml"), "game");
    assert!(stdout.contains("(game: tic-tac-toe;"), "{stdout}");

    // A broken assignment file is reported as an assignment, not as a tree
    // with unknown fields.
    std::fs::write(course.join("assignment.yaml"), "title: Search\nquestions: [{id: q1}]\n").unwrap();
    let output = treegrade(&["validate", course.join("assignment.yaml").to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stdout).contains("the assignment is invalid"), "{}", text(&output.stdout));
    assert!(!text(&output.stderr).contains("unknown field `title`"), "{}", text(&output.stderr));
}

#[test]
fn validate_refuses_a_fragile_tree_naming_the_node_and_the_values() {
    let scratch = Scratch::new();
    let tree = "root: R\nnodes:\n  R: {max: [B, C]}\n  B: 0.15\n  C: {chance: [0.1, 0.2]}\n";
    let path = scratch.write("near-tie.yaml", tree);
    let output = treegrade(&["validate", path.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stdout));
    let stderr = text(&output.stderr);
    assert!(stderr.contains("fragile tree for minimax") || stderr.contains("fragile tree for alphabeta"), "{stderr}");
    assert!(stderr.contains("at node `R`"), "{stderr}");
    assert!(stderr.contains("0.15000000000000002") && stderr.contains("with 0.15,"), "{stderr}");
    assert!(stderr.contains("near-tie.yaml:3:3"), "located at R: {stderr}");
}

#[test]
fn validate_accepts_an_exact_tie_between_a_chance_value_and_a_leaf() {
    let path = common::repo().join("test-cases/tie-chance-value-equals-earlier-child.yaml");
    let output = treegrade(&["validate", path.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
}

#[test]
fn a_node_without_eval_that_alphabeta_prunes_is_no_error() {
    let scratch = Scratch::new();
    let tree = "root: A\nnodes:\n  A: {max: [B, C]}\n  B: {min: [3], eval: 0}\n  C: {min: [2, D], eval: 0}\n  \
                D: {max: [9]}\nsearch: {depth: 2}\n";
    let path = scratch.write("pruned-cut.yaml", tree);
    let output = solve(&path, &["-a", "alphabeta", "--format", "json"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["visited"], serde_json::json!(["A", "B", "B.1", "C", "C.1"]));
    let output = solve(&path, &["-a", "minimax"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = text(&output.stderr);
    assert!(stderr.contains("node `D`, which has no `eval`") && stderr.contains("pruned-cut.yaml:6:3"), "{stderr}");
}

/// A negative number given to a number flag reaches its parser, which says
/// what the flag takes, instead of clap's tip to write `-- -1` (which
/// would make `-1` a positional argument).
#[test]
fn a_negative_number_is_told_what_the_flag_takes() {
    let scratch = Scratch::new();
    let tree = scratch.write("tree.yaml", FORMAT_EXAMPLE);
    let out = scratch.path().join("out");
    let cases: [(Vec<&str>, &str); 5] = [
        (vec!["gen", "--seed", "-1", "-o", out.to_str().unwrap()], "'--seed <SEED>': expects a whole number from 0 to"),
        (vec!["solve", tree.to_str().unwrap(), "-a", "expectimax", "--depth", "-1"], "expects a whole number from 0"),
        (vec!["render", tree.to_str().unwrap(), "--depth", "-1", "-o", "x.svg"], "expects a whole number from 0"),
        (vec!["play", "tic-tac-toe", "--seed", "-1"], "'--seed <S>': expects a whole number from 0"),
        (
            vec!["batch", scratch.path().to_str().unwrap(), "--timeout", "-1"],
            "time limit in seconds, more than 0 and at most 3600",
        ),
    ];
    for (args, says) in cases {
        let output = treegrade(&args);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
        assert!(!stderr.contains("-- -1"), "{args:?}: {stderr}");
    }
    assert!(!out.exists(), "nothing was generated");
}

/// A game or an assignment that does not exist is named as such, with the
/// ones there are, rather than as a file that cannot be read.
#[test]
fn an_unknown_game_or_assignment_lists_the_ones_there_are() {
    let scratch = Scratch::new();
    let games = "`chess` is neither a built-in game (mnk, tic-tac-toe, connect-four, gomoku, pig";
    for args in [vec!["play", "chess"], vec!["tournament", scratch.path().to_str().unwrap(), "--game", "chess"]] {
        let mut args = args;
        let out = scratch.path().join("out");
        if args[0] == "tournament" {
            args.extend(["--out", out.to_str().unwrap()]);
        }
        let output = treegrade(&args);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(games) && stderr.contains(") nor a game file"), "{stderr}");
        assert!(!stderr.contains("cannot read"), "{stderr}");
    }
    let folder = scratch.path().join("student");
    let output = treegrade(&["init", "--assignment", "nosuch", folder.to_str().unwrap()]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(
            "no assignment `nosuch`: it is neither a folder nor a bundled assignment (the bundled ones are \
                         adversarial-search, games, more-searches)"
        ),
        "{stderr}"
    );
    assert!(!folder.exists(), "nothing was written");
}

/// `play`'s built-in agent that searches to the end of a big game stops at
/// its node limit and says how to spell an agent that can play it (`play`
/// has no `--max-nodes` to point to).
#[test]
fn a_built_in_agent_at_its_node_limit_says_to_give_it_a_depth() {
    let output = Command::cargo_bin("treegrade")
        .unwrap()
        .env("NO_COLOR", "1")
        .args(["play", "connect-four", "--against", "alphabeta", "--as", "second"])
        .write_stdin("")
        .timeout(std::time::Duration::from_secs(300))
        .output()
        .unwrap();
    let all = format!("{}{}", text(&output.stdout), text(&output.stderr));
    assert!(all.contains("alphabeta searches to the end of the game, which made more than 2000000 nodes"), "{all}");
    assert!(all.contains("give it a depth, e.g. alphabeta:4"), "{all}");
    assert!(!all.contains("--max-nodes"), "{all}");
}

/// Counts agree with their nouns: one question, one test file.
#[test]
fn one_of_a_thing_is_not_plural() {
    let scratch = Scratch::new();
    scratch.write("tree.yaml", "root: A\nnodes: {A: {max: [B, 2]}, B: {min: [1, 3]}}\n");
    scratch.write("assignment.yaml", "questions:\n  - {id: q1, points: 5, algorithm: minimax, tests: [tree.yaml]}\n");
    let output = treegrade(&["validate", scratch.path().to_str().unwrap()]);
    let stdout = text(&output.stdout);
    assert!(stdout.contains("(assignment: 1 question, 1 test file, 5 points)"), "{stdout}");
}
