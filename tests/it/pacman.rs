//! Pacman (src/game/pacman): Python's random against CPython, and the
//! rules against CS188's own recorded games (`../shared/cs188-project`).

use std::path::{Path, PathBuf};

use treegrade::engine::Algorithm;
use treegrade::game::pacman::staff::staff_answer;
use treegrade::game::pacman::{Board, Direction, GhostKind, Layout, StopRule};
use treegrade::game::python_random::PythonRandom;
use treegrade::import::cs188::parse_fields;

use crate::common::repo;

fn project() -> Option<PathBuf> {
    let root = repo().join("../shared/cs188-project");
    if root.is_dir() {
        Some(root)
    } else {
        crate::common::unavailable(&format!("CS188's whole project at {}", root.display()));
        None
    }
}

fn lines<T: serde::de::DeserializeOwned>(solution: &Path, key: &str) -> Vec<T> {
    let text = std::fs::read_to_string(solution).unwrap();
    let fields = parse_fields(&text, solution).unwrap();
    fields.get(key).unwrap().value.lines().map(|line| serde_json::from_str(line).unwrap()).collect()
}

#[test]
fn the_reference_replays_cs188s_pacman_game_tests() {
    let Some(root) = project() else { return };
    for (test, algorithm) in [
        ("q2/8-pacman-game", Algorithm::Minimax),
        ("q3/8-pacman-game", Algorithm::AlphaBeta),
        ("q4/7-pacman-game", Algorithm::Expectimax),
    ] {
        let base = root.join("test_cases").join(test);
        let text = std::fs::read_to_string(base.with_extension("test")).unwrap();
        let fields = parse_fields(&text, &base).unwrap();
        let layout = Layout::parse(&fields.get("layout").unwrap().value).unwrap();
        let board = Board::new(layout, 2);
        let steps: Vec<Vec<(Vec<String>, usize)>> = lines(&base.with_extension("solution"), "optimalActions");
        let other_depths: Vec<Vec<Vec<String>>> = lines(&base.with_extension("solution"), "altDepthActions");
        assert_eq!((steps.len(), other_depths.len()), (146, 146), "{test}: CS188's recorded path");
        let mut state = board.initial_state();
        let mut random;
        let mut mismatches = Vec::new();
        for (k, step) in steps.iter().enumerate() {
            for (which, stop) in [StopRule::Allowed, StopRule::Removed].into_iter().enumerate() {
                let answer = staff_answer(&board, &state, algorithm, 2, stop).unwrap();
                let best: Vec<&str> = answer.best.iter().map(|d| d.name()).collect();
                let (want_best, want_count) = &step[which];
                if best != *want_best || answer.explored != *want_count {
                    mismatches.push(format!(
                        "{test} step {k} {stop:?}: {best:?} {} vs {want_best:?} {want_count}",
                        answer.explored
                    ));
                }
            }
            // CS188's other agents: depth 1 with and without Stop, then depth 3.
            let depths =
                [(1, StopRule::Allowed), (1, StopRule::Removed), (3, StopRule::Allowed), (3, StopRule::Removed)];
            for (want, (rounds, stop)) in other_depths[k].iter().zip(depths) {
                let answer = staff_answer(&board, &state, algorithm, rounds, stop).unwrap();
                let best: Vec<&str> = answer.best.iter().map(|d| d.name()).collect();
                if best != *want {
                    mismatches.push(format!("{test} step {k} depth {rounds} {stop:?}: {best:?} vs {want:?}"));
                }
            }
            let action = Direction::parse(&step[0].0[0]).unwrap();
            state = board.successor(&state, 0, action).unwrap();
            random = PythonRandom::seeded(k as i128 + 1);
            for ghost in 1..board.agents {
                if state.is_over() {
                    break;
                }
                let action = GhostKind::Directional.choose(&board, &state, ghost, &mut random).unwrap().unwrap();
                state = board.successor(&state, ghost, action).unwrap();
            }
            if state.is_over() {
                assert_eq!(k + 1, steps.len(), "{test}: the game ends at the last step");
            }
        }
        assert!(state.lose && state.score == 84, "{test}: {} {}", state.lose, state.score);
        assert!(
            mismatches.is_empty(),
            "{} mismatches:\n{}",
            mismatches.len(),
            mismatches.iter().take(20).cloned().collect::<Vec<_>>().join("\n")
        );
    }
}

/// Python's own numbers for 300 seeds (small, negative, past 2^32 and 2^64):
/// `random.random()` across a twist of the state, `getrandbits` and `randrange`.
#[test]
fn python_random_is_cpythons_random() {
    // Floats travel as their bits: a JSON reader need not round decimals correctly.
    let script = "import random, json, struct\n\
                  bits = lambda x: struct.unpack('<Q', struct.pack('<d', x))[0]\n\
                  seeds = list(range(-20, 250)) + [2**31, 2**32 - 1, 2**32, 2**33 + 5, 2**63, 2**64 + 1, 10**30]\n\
                  out = []\n\
                  for s in seeds:\n\
                  \x20   random.seed(s)\n\
                  \x20   r = [random.random() for _ in range(700)]\n\
                  \x20   out.append([str(s), bits(r[0]), bits(r[1]), bits(r[699]), random.getrandbits(17), random.randrange(1000)])\n\
                  print(json.dumps(out))\n";
    let output = std::process::Command::new("python3").args(["-c", script]).output().expect("python3 runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let rows: Vec<(String, u64, u64, u64, u32, u32)> = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(rows.len(), 277);
    for (seed, first, second, last, bits, below) in rows {
        let mut random = PythonRandom::seeded(seed.parse::<i128>().unwrap());
        let drawn: Vec<f64> = (0..700).map(|_| random.random()).collect();
        assert_eq!([drawn[0], drawn[1], drawn[699]].map(f64::to_bits), [first, second, last], "{seed}");
        assert_eq!((random.getrandbits(17), random.randbelow(1000)), (bits, below), "seed {seed}");
    }
}
