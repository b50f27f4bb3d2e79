//! `treegrade gen`: deterministic, valid, discriminating trees.

use assert_cmd::Command;

fn run_gen(out: &std::path::Path, extra: &[&str]) -> std::process::Output {
    Command::cargo_bin("treegrade").unwrap().arg("gen").args(extra).arg("-o").arg(out).output().unwrap()
}

#[test]
fn the_same_seed_writes_the_same_files_and_they_validate() {
    let scratch = tempfile::tempdir().unwrap();
    let (first, second) = (scratch.path().join("a"), scratch.path().join("b"));
    let flags = ["--seed", "9", "--count", "4", "--depth", "4", "--kinds", "max,chance,min", "--cut", "3"];
    assert_eq!(run_gen(&first, &flags).status.code(), Some(0));
    assert_eq!(run_gen(&second, &flags).status.code(), Some(0));
    for n in 1..=4 {
        let name = format!("gen-9-{n:03}.yaml");
        assert_eq!(std::fs::read(first.join(&name)).unwrap(), std::fs::read(second.join(&name)).unwrap(), "{name}");
    }
    let validate = Command::cargo_bin("treegrade").unwrap().arg("validate").arg(&first).output().unwrap();
    assert_eq!(validate.status.code(), Some(0), "{}", String::from_utf8_lossy(&validate.stdout));
    assert_eq!(String::from_utf8_lossy(&validate.stdout).lines().filter(|l| l.starts_with("ok")).count(), 4);
}

/// `--players` draws max^n trees, `--algorithm` adds the searches of
/// docs/format.md 8 to the `expect` block; every file validates.
#[test]
fn max_n_trees_and_the_searches_of_section_8_are_generated_and_validate() {
    let scratch = tempfile::tempdir().unwrap();
    let maxn = scratch.path().join("maxn");
    let flags = ["--seed", "4", "--count", "3", "--players", "4", "--kinds", "max,chance", "--depth", "3"];
    assert_eq!(run_gen(&maxn, &flags).status.code(), Some(0));
    let text = std::fs::read_to_string(maxn.join("gen-4-001.yaml")).unwrap();
    assert!(text.contains("players: 4\n") && text.contains("{p1: [") && text.contains("  maxn: {value: ["), "{text}");
    let more = scratch.path().join("more");
    let flags = [
        "--seed",
        "6",
        "--count",
        "3",
        "--cut",
        "2",
        "--budget",
        "12",
        "--iterations",
        "25",
        "--search-seed",
        "9",
        "--algorithm",
        "iterative-deepening",
        "--algorithm",
        "mcts",
    ];
    assert_eq!(run_gen(&more, &flags).status.code(), Some(0));
    let text = std::fs::read_to_string(more.join("gen-6-001.yaml")).unwrap();
    assert!(text.contains("  budget: 12\n  iterations: 25\n  seed: 9\n"), "{text}");
    assert!(text.contains("  iterative-deepening: {") && text.contains("  mcts: {"), "{text}");
    for folder in [&maxn, &more] {
        let validate = Command::cargo_bin("treegrade").unwrap().arg("validate").arg(folder).output().unwrap();
        let stdout = String::from_utf8_lossy(&validate.stdout);
        assert_eq!(validate.status.code(), Some(0), "{stdout}");
        assert_eq!(stdout.lines().filter(|l| l.starts_with("ok")).count(), 3, "{stdout}");
    }
    let missing = run_gen(scratch.path(), &["--seed", "1", "--algorithm", "mcts"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("--algorithm mcts needs --iterations"));
}

#[test]
fn discriminating_trees_say_so() {
    let scratch = tempfile::tempdir().unwrap();
    let output =
        run_gen(scratch.path(), &["--seed", "5", "--count", "2", "--depth", "4", "--discriminating", "--ties", "0.4"]);
    let text = String::from_utf8_lossy(&output.stdout);
    assert_eq!(text.matches("exposes every known mistake").count(), 2, "{text}");
}

#[test]
fn bad_options_are_usage_errors() {
    let scratch = tempfile::tempdir().unwrap();
    for flags in [
        &["--seed", "1", "--kinds", "max,maybe"][..],
        &["--seed", "1", "--values", "9..-9"],
        &["--seed", "1", "--ties", "2"],
    ] {
        let output = run_gen(scratch.path(), flags);
        assert_eq!(output.status.code(), Some(2), "{flags:?}");
        assert!(!output.stderr.is_empty());
    }
}

#[test]
fn generated_trees_are_never_fragile() {
    use treegrade::generator::{GenOptions, generate, is_fragile};
    use treegrade::tree::NodeKind;
    let kinds = [
        vec![NodeKind::Max, NodeKind::Chance],
        vec![NodeKind::Max, NodeKind::Min, NodeKind::Chance],
        vec![NodeKind::Chance, NodeKind::Max],
    ];
    for (k, kinds) in kinds.iter().enumerate() {
        for seed in 0..150 {
            let options = GenOptions { seed, depth: 4, kinds: kinds.clone(), ties: 0.5, ..GenOptions::default() };
            let tree = generate(&options, seed % 3, &format!("t{k}-{seed}"));
            assert!(!is_fragile(&tree), "seed {seed}, kinds {kinds:?}");
        }
    }
}
