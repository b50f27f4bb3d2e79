//! `treegrade tournament`: round robins rated by a Bradley-Terry fit, with
//! hostile agents contained, build failures not entered, and the same
//! standings on a rerun, from shards merged, and after an interruption.

use std::path::{Path, PathBuf};

use crate::common::{Scratch, repo};

fn treegrade(args: &[&str]) -> (Option<i32>, String) {
    let output = assert_cmd::Command::cargo_bin("treegrade")
        .unwrap()
        .current_dir(repo())
        .env("NO_COLOR", "1")
        .env_remove("TREEGRADE_ASSIGNMENT")
        .args(args)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout).into_owned() + &String::from_utf8_lossy(&output.stderr);
    (output.status.code(), text)
}

/// The rows of a `standings.csv`, as maps of column to value.
fn standings(out: &Path) -> Vec<std::collections::BTreeMap<String, String>> {
    let mut reader = csv::Reader::from_path(out.join("standings.csv")).expect("standings.csv");
    let headers = reader.headers().unwrap().clone();
    reader
        .records()
        .map(|record| headers.iter().zip(record.unwrap().iter()).map(|(h, v)| (h.to_string(), v.to_string())).collect())
        .collect()
}

fn number(row: &std::collections::BTreeMap<String, String>, column: &str) -> f64 {
    row[column].parse().unwrap_or_else(|_| panic!("{column} of {row:?}"))
}

/// Agents of known strength, written apart from the tournament's code and
/// never tuned on it (random, greedy, alpha-beta to depth 2 and to depth 4
/// on connect-four), are ranked in that order, and each one's interval
/// clears its neighbour's.
#[test]
fn agents_of_known_strength_rank_in_order_with_separated_intervals() {
    let scratch = Scratch::new();
    let out = scratch.path().join("out");
    let (status, text) = treegrade(&[
        "tournament",
        "tests/fixtures/tournament/corpus",
        "--game",
        "connect-four",
        "--eval",
        "lines",
        "--games-per-pair",
        "100",
        "--seed",
        "1",
        "--jobs",
        "2",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(status, Some(0), "{text}");
    let rows = standings(&out);
    let order: Vec<&str> = rows.iter().map(|row| row["agent"].as_str()).collect();
    assert_eq!(order, ["depth4", "depth2", "greedy", "random"], "{text}");
    for pair in rows.windows(2) {
        assert!(
            number(&pair[0], "rating_low") > number(&pair[1], "rating_high"),
            "{:?} and {:?} overlap",
            pair[0],
            pair[1]
        );
    }
    for row in &rows {
        assert_eq!(number(row, "games"), 300.0, "{row:?}");
        assert_eq!(number(row, "crashes") + number(row, "timeouts"), 0.0, "no failure in honest agents: {row:?}");
    }
    let html = std::fs::read_to_string(out.join("standings.html")).unwrap();
    assert!(html.contains("<section class=\"replay\"") && html.contains("Head to head"));
}

/// The course's folder of the hostile tournament: two honest agents of the
/// corpus and every hostile agent, one folder each.
fn hostile_class(scratch: &Scratch) -> PathBuf {
    let class = scratch.path().join("class");
    for (from, name) in [("corpus/random", "random"), ("corpus/greedy", "greedy")] {
        copy(&repo().join("tests/fixtures/tournament").join(from), &class.join(name));
    }
    for entry in std::fs::read_dir(repo().join("tests/fixtures/tournament/hostile")).unwrap() {
        let entry = entry.unwrap();
        copy(&entry.path(), &class.join(format!("hostile-{}", entry.file_name().to_string_lossy())));
    }
    class
}

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
}

fn hostile_tournament(class: &Path, out: &Path, extra: &[&str]) -> (Option<i32>, String) {
    let mut args = vec![
        "tournament",
        class.to_str().unwrap(),
        "--game",
        "tic-tac-toe",
        "--eval",
        "lines",
        "--opponents",
        "alphabeta:2:lines",
        "--games-per-pair",
        "2",
        "--move-time-limit",
        "30",
        "--seed",
        "7",
        "--assignment",
        "tests/fixtures/tournament",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    treegrade(&args)
}

/// Every hostile agent plays and loses its games with the reason; the
/// honest agents are never charged; an agent that does not build is not
/// entered, and no one forfeits against it.
#[test]
fn hostile_agents_are_contained_and_a_build_failure_is_not_entered() {
    let scratch = Scratch::new();
    let class = hostile_class(&scratch);
    let out = scratch.path().join("out");
    let (status, text) = hostile_tournament(&class, &out, &[]);
    assert_eq!(status, Some(0), "{text}");
    let rows = standings(&out);
    let row = |name: &str| rows.iter().find(|row| row["agent"] == name).unwrap_or_else(|| panic!("{name}: {rows:?}"));
    let broken = row("hostile-broken");
    assert!(broken["status"].starts_with("not entered: the build"), "{broken:?}");
    assert_eq!(broken["games"], "");
    let entered = rows.iter().filter(|row| row["status"] == "entered").count();
    assert_eq!(entered, 8, "six agents and two baselines play: {rows:?}");
    for honest in ["random", "greedy", "alphabeta:2:lines"] {
        let honest = row(honest);
        let failures: f64 =
            ["timeouts", "illegal_moves", "crashes", "protocol_errors"].iter().map(|c| number(honest, c)).sum();
        assert_eq!(failures, 0.0, "{honest:?}");
        assert_eq!(number(honest, "games"), 14.0, "two games against each of the 7 others: {honest:?}");
    }
    for (hostile, column) in [
        ("hostile-crash", "crashes"),
        ("hostile-illegal", "illegal_moves"),
        ("hostile-flood", "crashes"),
        ("hostile-spy", "illegal_moves"),
        ("hostile-signal", "crashes"),
    ] {
        // It fails at its first or second move, so it loses every game to
        // the three honest agents (and wins only when another hostile agent
        // fails first).
        let hostile = row(hostile);
        assert!(number(hostile, "losses") >= 6.0, "{hostile:?}");
        assert!(number(hostile, column) >= 6.0, "{column} charged to it: {hostile:?}");
    }
    // The hostile agents are below every honest one.
    let lowest_honest =
        ["random", "greedy", "alphabeta:2:lines"].iter().map(|n| number(row(n), "rank")).fold(0.0, f64::max);
    assert!(
        rows.iter()
            .filter(|r| r["agent"].starts_with("hostile-") && r["status"] == "entered")
            .all(|r| number(r, "rank") > lowest_honest)
    );
    assert!(!text.contains("panicked"), "{text}");
}

/// The same seed gives the same standings: on a rerun (which plays nothing
/// again), after an interruption (a pair's file lost), and from two shards
/// merged.
#[test]
fn standings_are_the_same_resumed_and_from_shards() {
    let scratch = Scratch::new();
    let class = scratch.path().join("class");
    for name in ["random", "greedy"] {
        copy(&repo().join("tests/fixtures/tournament/corpus").join(name), &class.join(name));
    }
    copy(&repo().join("tests/fixtures/tournament/hostile/illegal"), &class.join("illegal"));
    let whole = scratch.path().join("whole");
    let (status, text) = hostile_tournament(&class, &whole, &[]);
    assert_eq!(status, Some(0), "{text}");
    let expected = std::fs::read_to_string(whole.join("standings.csv")).unwrap();
    let (_, again) = hostile_tournament(&class, &whole, &[]);
    assert_eq!(again.matches("unchanged").count(), 6, "every pair is kept: {again}");
    assert_eq!(std::fs::read_to_string(whole.join("standings.csv")).unwrap(), expected);
    // An interrupted run: one pair's games were never written.
    let games: Vec<PathBuf> = std::fs::read_dir(whole.join("games")).unwrap().map(|e| e.unwrap().path()).collect();
    std::fs::remove_file(&games[0]).unwrap();
    let (_, resumed) = hostile_tournament(&class, &whole, &[]);
    assert_eq!(resumed.matches("played ").count(), 1, "only the missing pair is played: {resumed}");
    assert_eq!(std::fs::read_to_string(whole.join("standings.csv")).unwrap(), expected);
    let (first, second) = (scratch.path().join("shard-1"), scratch.path().join("shard-2"));
    hostile_tournament(&class, &first, &["--shard", "1/2"]);
    hostile_tournament(&class, &second, &["--shard", "2/2"]);
    let merged = scratch.path().join("merged");
    let (status, text) =
        treegrade(&["merge", first.to_str().unwrap(), second.to_str().unwrap(), "--out", merged.to_str().unwrap()]);
    assert_eq!(status, Some(0), "{text}");
    assert_eq!(std::fs::read_to_string(merged.join("standings.csv")).unwrap(), expected, "{text}");
    // A shard missing or given twice is refused: the standings would lack its games.
    let refused = scratch.path().join("refused");
    let (status, text) =
        treegrade(&["merge", first.to_str().unwrap(), first.to_str().unwrap(), "--out", refused.to_str().unwrap()]);
    assert_eq!(status, Some(2), "{text}");
    assert!(text.contains("is given twice; shard 2/2 is missing"), "{text}");
    assert!(!refused.join("standings.csv").exists());
}
