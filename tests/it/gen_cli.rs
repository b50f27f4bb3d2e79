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

/// Options whose trees could outgrow memory are refused before any work,
/// with the size they would have made and the flag that raises the limit;
/// a depth or branching of 0 is refused with what the flag accepts.
#[test]
fn runaway_and_empty_shapes_are_refused_before_any_work() {
    let scratch = tempfile::tempdir().unwrap();
    let out = scratch.path().join("out");
    let mut messages = String::new();
    for flags in [
        &["--seed", "1", "--branching", "50", "--depth", "6"][..],
        &["--seed", "1", "--depth", "40"],
        &["--seed", "1", "--depth", "6", "--branching", "4", "--max-nodes", "5000"],
        &["--seed", "1", "--depth", "0"],
        &["--seed", "1", "--branching", "0"],
        &["--seed", "1", "--branching", "0..3"],
        &["--seed", "1", "--depth", "-1"],
    ] {
        let started = std::time::Instant::now();
        let output = run_gen(&out, flags);
        assert!(started.elapsed() < std::time::Duration::from_secs(20), "{flags:?} took {:?}", started.elapsed());
        assert_eq!(output.status.code(), Some(2), "{flags:?}");
        messages.push_str(&format!("$ gen {}\n{}\n", flags.join(" "), String::from_utf8_lossy(&output.stderr)));
        assert!(!out.exists(), "{flags:?} wrote {}", out.display());
    }
    insta::assert_snapshot!("gen_refused_shapes", messages);
    // The limit raised, the same tree (5,461 nodes at most) is written.
    let raised = run_gen(&out, &["--seed", "1", "--depth", "6", "--branching", "4", "--max-nodes", "6000"]);
    assert_eq!(raised.status.code(), Some(0), "{}", String::from_utf8_lossy(&raised.stderr));
    assert!(String::from_utf8_lossy(&raised.stdout).contains("(5461 nodes)"));
}

/// A tree shape on which a known mistake cannot show (MAX only at the
/// root, MIN nodes' children all leaves) is refused with the mistakes
/// named, and nothing is written; a deeper one exposes every mistake.
#[test]
fn discriminating_trees_that_let_a_mistake_pass_are_refused_naming_it() {
    let scratch = tempfile::tempdir().unwrap();
    let out = scratch.path().join("out");
    let shallow = run_gen(&out, &["--seed", "7", "--count", "5", "--kinds", "max,min,min", "--discriminating"]);
    assert_eq!(shallow.status.code(), Some(2));
    insta::assert_snapshot!("gen_discriminating_refused", String::from_utf8_lossy(&shallow.stderr));
    assert!(std::fs::read_dir(&out).map_or(true, |mut files| files.next().is_none()));
    let deep =
        run_gen(&out, &["--seed", "7", "--count", "2", "--kinds", "max,min,min", "--depth", "5", "--discriminating"]);
    assert_eq!(deep.status.code(), Some(0), "{}", String::from_utf8_lossy(&deep.stderr));
    let text = String::from_utf8_lossy(&deep.stdout);
    assert_eq!(text.matches("exposes every known mistake").count(), 2, "{text}");
    assert!(!text.contains("would still pass"), "{text}");
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
