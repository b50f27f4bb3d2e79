//! Replays games recorded from CS188's own Python with treegrade's Pacman
//! and compares every state, every legal action, every successor and every
//! ghost's distribution and draw. `bench/pacman_rules.py` records the games
//! and runs this:
//!
//! ```sh
//! cargo run --release --example pacman_trace -- games.json
//! ```

use std::process::ExitCode;

use serde_json::Value;
use treegrade::game::pacman::{Board, Direction, GhostKind, Layout, PacmanState};
use treegrade::game::python_random::PythonRandom;

/// What was compared, and what differed.
#[derive(Default)]
struct Tally {
    games: usize,
    states: usize,
    successors: usize,
    draws: usize,
    mismatches: Vec<String>,
}

impl Tally {
    fn differ(&mut self, what: String) {
        self.mismatches.push(what);
    }
}

/// A state as the Python side records it.
fn record(state: &PacmanState) -> Value {
    let agents: Vec<Value> = state
        .agents
        .iter()
        .map(|agent| {
            let configuration = agent.configuration;
            let (x, y) = configuration.position();
            let position = if configuration.integral {
                serde_json::json!([x as i64, y as i64])
            } else {
                serde_json::json!([x, y])
            };
            serde_json::json!([position, configuration.direction.name(), agent.scared])
        })
        .collect();
    let food: Vec<[u16; 2]> = state.food.cells().map(|(x, y)| [x, y]).collect();
    let capsules: Vec<[u16; 2]> = state.capsules.iter().map(|&(x, y)| [x, y]).collect();
    serde_json::json!({
        "agents": agents, "food": food, "capsules": capsules,
        "score": state.score, "win": state.win, "lose": state.lose,
    })
}

/// Python's record with its numbers as they were written: an int stays an
/// int and a float a float, so the comparison sees int against float.
fn same(ours: &Value, theirs: &Value) -> bool {
    match (ours, theirs) {
        (Value::Number(a), Value::Number(b)) => a.is_f64() == b.is_f64() && a.as_f64() == b.as_f64(),
        (Value::Array(a), Value::Array(b)) => a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y)),
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len() && a.iter().all(|(key, value)| b.get(key).is_some_and(|other| same(value, other)))
        }
        _ => ours == theirs,
    }
}

fn replay(game: &Value, index: usize, tally: &mut Tally) -> Result<(), String> {
    let layout = Layout::parse(game["layout"].as_str().ok_or("no layout")?).map_err(|e| e.to_string())?;
    let kinds: Vec<GhostKind> = game["ghosts"]
        .as_array()
        .ok_or("no ghosts")?
        .iter()
        .map(|kind| GhostKind::from_class_name(kind.as_str().unwrap_or_default()).ok_or("unknown ghost"))
        .collect::<Result<_, _>>()?;
    let board = Board::new(layout, kinds.len());
    let seed = i128::from(game["seed"].as_i64().ok_or("no seed")?);
    let per_move = game["seeding"] == "per-move";
    let mut random = PythonRandom::seeded(seed);
    let mut state = board.initial_state();
    let mut pacman_moves = 0;
    for (step, frame) in game["frames"].as_array().ok_or("no frames")?.iter().enumerate() {
        let at = format!("game {index} step {step}");
        tally.states += 1;
        if !same(&record(&state), &frame["state"]) {
            tally.differ(format!("{at}: state {} against CS188's {}", record(&state), frame["state"]));
            return Ok(());
        }
        for (agent, moves) in frame["moves"].as_array().ok_or("no moves")?.iter().enumerate() {
            let legal: Vec<&str> =
                board.legal_actions(&state, agent).map_err(|e| e.to_string())?.iter().map(|d| d.name()).collect();
            let theirs: Vec<&str> =
                moves["legal"].as_array().ok_or("no legal")?.iter().filter_map(Value::as_str).collect();
            if legal != theirs {
                tally.differ(format!("{at}: agent {agent} legal {legal:?} against CS188's {theirs:?}"));
            }
            for (action, successor) in moves["successors"].as_object().ok_or("no successors")? {
                tally.successors += 1;
                let direction = Direction::parse(action).ok_or("unknown action")?;
                match board.successor(&state, agent, direction) {
                    Ok(ours) if same(&record(&ours), successor) => {}
                    Ok(ours) => {
                        tally.differ(format!("{at}: agent {agent} {action}: {} against {successor}", record(&ours)))
                    }
                    Err(error) => tally.differ(format!("{at}: agent {agent} {action}: {error}")),
                }
            }
        }
        let Some(agent) = frame["agent"].as_u64().map(|a| a as usize) else { continue };
        let Some(action) = frame["action"].as_str() else { continue };
        let action = if agent == 0 {
            pacman_moves += 1;
            Direction::parse(action).ok_or("unknown action")?
        } else {
            let kind = kinds[agent - 1];
            let distribution = kind.distribution(&board, &state, agent).map_err(|e| e.to_string())?;
            let ours: Vec<Value> = distribution.iter().map(|(d, p)| serde_json::json!([d.name(), p])).collect();
            if !same(&Value::Array(ours.clone()), &frame["distribution"]) {
                tally.differ(format!("{at}: ghost {agent} distribution {ours:?} against {}", frame["distribution"]));
            }
            tally.draws += 1;
            let drawn = kind.choose(&board, &state, agent, &mut random).map_err(|e| e.to_string())?;
            let drawn = drawn.ok_or("the ghost has no move")?;
            if drawn.name() != action {
                tally.differ(format!("{at}: ghost {agent} drew {} where CS188's drew {action}", drawn.name()));
                return Ok(());
            }
            drawn
        };
        state = board.successor(&state, agent, action).map_err(|e| e.to_string())?;
        if agent == 0 && per_move {
            random = PythonRandom::seeded(seed + pacman_moves);
        }
    }
    tally.games += 1;
    Ok(())
}

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: pacman_trace GAMES.json (written by bench/pacman_rules.py)");
        return ExitCode::from(2);
    };
    let text = std::fs::read_to_string(&path).expect("read the recorded games");
    let games: Vec<Value> = serde_json::from_str(&text).expect("the recorded games are JSON");
    let mut tally = Tally::default();
    for (index, game) in games.iter().enumerate() {
        if let Err(problem) = replay(game, index, &mut tally) {
            tally.differ(format!("game {index}: {problem}"));
        }
    }
    println!(
        "{} of {} games replayed in full: {} states, {} successors, {} ghost draws compared; {} differences",
        tally.games,
        games.len(),
        tally.states,
        tally.successors,
        tally.draws,
        tally.mismatches.len()
    );
    for mismatch in tally.mismatches.iter().take(10) {
        println!("  {mismatch}");
    }
    if tally.mismatches.is_empty() && tally.games == games.len() { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}
