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
