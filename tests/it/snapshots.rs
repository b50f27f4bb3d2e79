//! Snapshot tests of what `treegrade` prints: `solve` as text and JSON,
//! `validate`, and a rendered error. Temporary paths are replaced by `[TMP]`.
//!
//! Update with `INSTA_UPDATE=always cargo test --test snapshots` (or
//! `cargo insta review`), then read the changed `.snap` files.

use crate::common;

use std::path::Path;

use assert_cmd::Command;
use common::Scratch;

const FORMAT_EXAMPLE: &str = "\
name: mixed-example
description: a small tree
root: A
nodes:
  A: {max: [B, C, D]}
  B: {min: [3, 12, 8]}
  C: {min: [{c1: H}, {c2: I}, {c3: J}], eval: 4}
  D: {chance: [K, L], probs: [0.25, 0.75]}
  H: 2
  I: {value: 4}
  J: 6
  K: 14
  L: {max: [5, 2], eval: 1}
search:
  prune_on_equal: true
expect:
  alphabeta:  {value: 7.25, action: D, visited: [A, B, B.1, B.2, B.3, C, H, D, K, L, L.1, L.2]}
  expectimax: {value: 7.25, action: D}
";

/// AIMA figure 5.2.
const AIMA_FIG_5_2: &str = "\
root: A
nodes:
  A: {max: [{a1: B}, {a2: C}, {a3: D}]}
  B: {min: [3, 12, 8]}
  C: {min: [2, 4, 6]}
  D: {min: [14, 5, 2]}
";

/// Chance nodes with uniform and non-uniform probabilities under a max root.
const CHANCE_TREE: &str = "\
name: two-dice
root: R
nodes:
  R: {max: [{safe: A}, {risky: B}, {fair: C}]}
  A: {chance: [10, -10], probs: [0.9, 0.1]}
  B: {chance: [20, -5, 0], probs: [0.1, 0.6, 0.3]}
  C: {chance: [8, 24, -3]}
";

/// Running treegrade in a scratch folder, with its paths replaced by `[TMP]`.
impl Scratch {
    fn run(&self, args: &[&str]) -> (i32, String, String) {
        let output = Command::cargo_bin("treegrade")
            .expect("the binary is built")
            .env("NO_COLOR", "1")
            .args(args)
            .output()
            .expect("treegrade runs");
        let folder = self.path().display().to_string();
        let clean = |bytes: &[u8]| String::from_utf8(bytes.to_vec()).expect("UTF-8").replace(&folder, "[TMP]");
        (output.status.code().expect("an exit status"), clean(&output.stdout), clean(&output.stderr))
    }

    /// `treegrade solve FILE ARGS` that must succeed; returns stdout.
    fn solve(&self, file: &Path, args: &[&str]) -> String {
        let mut all = vec!["solve", file.to_str().unwrap()];
        all.extend_from_slice(args);
        let (status, stdout, stderr) = self.run(&all);
        assert_eq!(status, 0, "{stderr}");
        assert!(stderr.is_empty(), "{stderr}");
        stdout
    }

    /// `treegrade solve FILE ARGS --format json`, parsed.
    fn solve_json(&self, file: &Path, args: &[&str]) -> serde_json::Value {
        let mut all = args.to_vec();
        all.extend_from_slice(&["--format", "json"]);
        serde_json::from_str(&self.solve(file, &all)).expect("one JSON object")
    }
}

#[test]
fn solve_format_example() {
    let scratch = Scratch::new();
    let file = scratch.write("mixed-example.yaml", FORMAT_EXAMPLE);
    insta::assert_snapshot!("format_example_alphabeta_text", scratch.solve(&file, &["-a", "alphabeta"]));
    insta::assert_json_snapshot!("format_example_alphabeta_json", scratch.solve_json(&file, &["-a", "alphabeta"]));
    insta::assert_snapshot!("format_example_expectimax_text", scratch.solve(&file, &["-a", "expectimax"]));
}

#[test]
fn solve_format_example_with_depth_2() {
    let scratch = Scratch::new();
    let file = scratch.write("mixed-example.yaml", FORMAT_EXAMPLE);
    let args = ["-a", "alphabeta", "--depth", "2"];
    insta::assert_snapshot!("format_example_depth_2_alphabeta_text", scratch.solve(&file, &args));
    insta::assert_json_snapshot!("format_example_depth_2_alphabeta_json", scratch.solve_json(&file, &args));
}

#[test]
fn solve_aima_figure_5_2() {
    let scratch = Scratch::new();
    let file = scratch.write("aima-fig5-2.yaml", AIMA_FIG_5_2);
    insta::assert_snapshot!("aima_minimax_text", scratch.solve(&file, &["-a", "minimax"]));
    insta::assert_snapshot!("aima_alphabeta_text", scratch.solve(&file, &["-a", "alphabeta"]));
    insta::assert_json_snapshot!("aima_alphabeta_json", scratch.solve_json(&file, &["-a", "alphabeta"]));
    // The raw JSON line, to pin the key order of docs/format.md section 4.
    insta::assert_snapshot!(
        "aima_alphabeta_json_line",
        scratch.solve(&file, &["-a", "alphabeta", "--prune-on-equal", "false", "--format", "json"])
    );
}

#[test]
fn solve_chance_tree() {
    let scratch = Scratch::new();
    let file = scratch.write("two-dice.yaml", CHANCE_TREE);
    insta::assert_snapshot!("chance_expectimax_text", scratch.solve(&file, &["-a", "expectimax"]));
    insta::assert_json_snapshot!("chance_expectimax_json", scratch.solve_json(&file, &["-a", "expectimax"]));
    insta::assert_snapshot!("chance_alphabeta_text", scratch.solve(&file, &["-a", "alphabeta"]));
}

/// The searches of docs/format.md section 8 on the curated trees, as text and
/// JSON (forward pruning, 8.5, as a setting of alphabeta).
#[test]
fn solve_the_searches_of_section_8() {
    let scratch = Scratch::new();
    let curated = |name: &str| common::repo().join("test-cases/more-searches").join(name);
    let cases = [
        ("id_budget_cut_short", "id-budget-cut-short.yaml", "iterative-deepening"),
        ("maxn_four_players_chance", "maxn-four-players-chance.yaml", "maxn"),
        ("mcts_chance", "mcts-chance.yaml", "mcts"),
        ("fp_three_levels_alphabeta", "fp-three-levels-alphabeta.yaml", "alphabeta"),
    ];
    for (snapshot, file, algorithm) in cases {
        let text =
            scratch.solve(&curated(file), &["-a", algorithm]).replace(&common::repo().display().to_string(), "[REPO]");
        insta::assert_snapshot!(format!("{snapshot}_text"), text);
        insta::assert_snapshot!(
            format!("{snapshot}_json_line"),
            scratch.solve(&curated(file), &["-a", algorithm, "--format", "json"])
        );
    }
}

#[test]
fn validate_a_folder() {
    let scratch = Scratch::new();
    scratch.write("a-format-example.yaml", FORMAT_EXAMPLE);
    scratch.write("b-aima.yaml", &format!("{AIMA_FIG_5_2}expect:\n  minimax: {{value: 3, action: a1}}\n"));
    scratch.write(
        "c-wrong.yaml",
        &format!("{AIMA_FIG_5_2}expect:\n  alphabeta: {{value: 2, action: a3, visited: [A, B, B.1, B.2, B.3, C, C.1, C.2]}}\n"),
    );
    scratch.write("d-broken.yaml", "root: A\nnodes:\n  A: {max: [B, 1]}\n  B: {min: [2], probs: [1]}\n");
    let folder = scratch.path().display().to_string();
    let (status, stdout, stderr) = scratch.run(&["validate", &folder]);
    assert_eq!(status, 2);
    insta::assert_snapshot!("validate_folder_stdout", stdout);
    insta::assert_snapshot!("validate_folder_stderr", stderr);
}

#[test]
fn rendered_error() {
    let scratch = Scratch::new();
    let file = scratch.write("broken.yaml", "root: A\nnodes:\n  A: {max: [B, Z]}\n  B: {min: [1, 1.5]}\n  C: 4\n");
    let (status, stdout, stderr) = scratch.run(&["solve", file.to_str().unwrap(), "-a", "alphabeta"]);
    assert_eq!(status, 2);
    assert!(stdout.is_empty());
    insta::assert_snapshot!("rendered_error_missing_child_and_unreachable", stderr);
}
