//! CS188's Pacman tests: `EvalAgentTest` (q1, q5: whole games scored by
//! thresholds) and `PacmanGameTreeTest` (the game test of q2, q3 and q4:
//! the staff's path with its recorded answers), as treegrade Pacman tests
//! (docs/format.md section 10).
//!
//! - `EvalAgentTest`: `agentName` and `agentArgs` (CS188's
//!   `parseAgentArgs`: `evalFn=better,depth=3`, values kept as strings, a
//!   key alone worth 1), `layoutName` (read from the distribution's
//!   `layouts/` folder, as CS188's `getLayout` finds it), `ghosts` (a list
//!   such as `[RandomGhost(1), DirectionalGhost(2)]`, numbered from 1 in
//!   order), `numGames`, `randomSeed`, `maxTime` (per move and per game),
//!   and `scoreMinimum`/`scoreThresholds`, `nonTimeoutMinimum`/
//!   `nonTimeoutThresholds`, `winsMinimum`/`winsThresholds`.
//! - `PacmanGameTreeTest`: `alg`, `depth`, `seed`, `layoutName` and the
//!   inline `layout`, against two `DirectionalGhost`s; its `.solution`
//!   gives, per Pacman move, the staff agents' tied-best actions and
//!   explored counts (`optimalActions`: with Stop, then without), and the
//!   answers of agents one round shallower and deeper (`altDepthActions`)
//!   and of CS188's "partial ply" agents (`partialPlyBugActions`). The move
//!   played is the first of the first tied-best list.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::cs188::{Fields, ImportError, ImportErrorKind, parse_fields};
use crate::engine::Algorithm;
use crate::game::pacman::staff::staff_answer;
use crate::game::pacman::test::{AgentSpec, PacmanTest, PacmanTestKind, PlayRandom, PlaySpec, ReplaySpec, ReplayStep};
use crate::game::pacman::{Board, Direction, GhostKind, Layout, StopRule};
use crate::game::python_random::PythonRandom;
use crate::thresholds::Thresholds;

/// CS188's class of whole-game tests.
pub const EVAL_AGENT_CLASS: &str = "EvalAgentTest";
/// CS188's class of the Pacman game test of q2 to q4.
pub const GAME_TREE_CLASS: &str = "PacmanGameTreeTest";

/// `PacmanGameTreeTest`'s limit on a game (CS188 runs it with `timeout=120`).
const GAME_TREE_LIMIT: Duration = Duration::from_secs(120);

fn error(file: &Path, line: Option<u32>, message: String) -> ImportError {
    ImportError { file: file.to_path_buf(), line, kind: ImportErrorKind::Pacman { message } }
}

fn require<'f>(fields: &'f Fields, file: &Path, key: &str) -> Result<&'f super::cs188::Field, ImportError> {
    fields.get(key).ok_or_else(|| ImportError {
        file: file.to_path_buf(),
        line: None,
        kind: ImportErrorKind::MissingKey { key: key.to_string() },
    })
}

fn number<T: std::str::FromStr>(fields: &Fields, file: &Path, key: &str) -> Result<T, ImportError> {
    let field = require(fields, file, key)?;
    field.value.trim().parse().map_err(|_| ImportError {
        file: file.to_path_buf(),
        line: Some(field.line),
        kind: ImportErrorKind::BadInteger { key: key.to_string(), text: field.value.clone() },
    })
}

/// The name a test takes: its folder and stem (`q1-grade-agent`).
fn name_of(file: &Path) -> String {
    super::cs188::test_name(&std::path::absolute(file).unwrap_or_else(|_| file.to_path_buf()))
}

/// Reads an `EvalAgentTest`; its layout is looked for as CS188 looks for
/// it, in a `layouts` folder above the test file.
pub fn import_eval_agent_test(text: &str, file: &Path) -> Result<PacmanTest, ImportError> {
    let fields = parse_fields(text, file)?;
    let layout_name = require(&fields, file, "layoutName")?.value.trim().to_string();
    let (layout_file, layout) = find_layout(file, &layout_name)?;
    let ghosts_field = require(&fields, file, "ghosts")?;
    let ghosts = parse_ghosts(&ghosts_field.value).ok_or_else(|| {
        error(
            file,
            Some(ghosts_field.line),
            format!(
                "`ghosts` must be a list such as `[RandomGhost(1), DirectionalGhost(2)]` numbered from 1, not `{}`",
                ghosts_field.value
            ),
        )
    })?;
    let max_time: u64 = number(&fields, file, "maxTime")?;
    let games: u32 = number(&fields, file, "numGames")?;
    if games == 0 {
        return Err(error(file, None, "`numGames` must be at least 1".to_string()));
    }
    let criterion = |minimum: &str, thresholds: &str| -> Result<Thresholds, ImportError> {
        let minimum = match fields.get(minimum) {
            Some(field) => Some(field.value.trim().parse::<f64>().map_err(|_| {
                error(file, Some(field.line), format!("`{minimum}` must be a number, not `{}`", field.value))
            })?),
            None => None,
        };
        let thresholds = match fields.get(thresholds) {
            Some(field) => {
                field.value.split_whitespace().map(|word| word.parse::<f64>()).collect::<Result<Vec<_>, _>>().map_err(
                    |_| error(file, Some(field.line), format!("`{thresholds}` must be numbers, not `{}`", field.value)),
                )?
            }
            None => Vec::new(),
        };
        Ok(Thresholds { minimum, at: thresholds })
    };
    let agent_args = fields.get("agentArgs").map_or("", |field| field.value.as_str());
    let description = format!(
        "CS188 EvalAgentTest {}: {} plays {games} games on {layout_name} ({}) against {}, {} s per move and per game.",
        file.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
        require(&fields, file, "agentName")?.value.trim(),
        short_path(&layout_file),
        ghosts.iter().map(|g| g.class_name()).collect::<Vec<_>>().join(", "),
        max_time,
    );
    Ok(PacmanTest {
        name: name_of(file),
        description: Some(description),
        layout_name,
        layout,
        ghosts,
        agent: AgentSpec {
            class: require(&fields, file, "agentName")?.value.trim().to_string(),
            arguments: parse_agent_args(agent_args),
        },
        seed: number(&fields, file, "randomSeed")?,
        move_time_limit: Duration::from_secs(max_time.max(1)),
        game_time_limit: Duration::from_secs(max_time.max(1)),
        kind: PacmanTestKind::Play(PlaySpec {
            random: PlayRandom::Shared,
            games,
            score: criterion("scoreMinimum", "scoreThresholds")?,
            not_timed_out: criterion("nonTimeoutMinimum", "nonTimeoutThresholds")?,
            wins: criterion("winsMinimum", "winsThresholds")?,
        }),
    })
}

/// A file's last two path components (`layouts/smallClassic.lay`): where
/// in a distribution, without the machine's folders.
pub fn short_path(path: &Path) -> String {
    let parts: Vec<String> =
        path.components().rev().take(2).map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
    parts.into_iter().rev().collect::<Vec<_>>().join("/")
}

/// CS188's `pacman.parseAgentArgs`: `a=1,b` is `{a: "1", b: 1}`.
pub fn parse_agent_args(text: &str) -> Vec<(String, serde_json::Value)> {
    if text.trim().is_empty() {
        return Vec::new();
    }
    text.split(',')
        .map(|piece| match piece.split_once('=') {
            Some((key, value)) => (key.to_string(), serde_json::Value::String(value.to_string())),
            None => (piece.to_string(), serde_json::json!(1)),
        })
        .collect()
}

/// `[RandomGhost(1), DirectionalGhost(2)]`: each a known ghost, numbered 1, 2, ... in order.
fn parse_ghosts(text: &str) -> Option<Vec<GhostKind>> {
    let inner = text.trim().strip_prefix('[')?.strip_suffix(']')?.trim();
    if inner.is_empty() {
        return Some(Vec::new());
    }
    inner
        .split(',')
        .enumerate()
        .map(|(index, item)| {
            let (class, rest) = item.trim().split_once('(')?;
            let number: usize = rest.strip_suffix(')')?.trim().parse().ok()?;
            (number == index + 1).then_some(())?;
            GhostKind::from_class_name(class.trim())
        })
        .collect()
}

/// `layouts/NAME.lay` (or `NAME.lay`) in the test's folder or above it, as
/// CS188's `getLayout` looks from the distribution's folder.
fn find_layout(file: &Path, name: &str) -> Result<(PathBuf, Layout), ImportError> {
    let file_name = if name.ends_with(".lay") { name.to_string() } else { format!("{name}.lay") };
    let absolute = std::path::absolute(file).unwrap_or_else(|_| file.to_path_buf());
    let mut looked = Vec::new();
    for folder in absolute.ancestors().skip(1).take(4) {
        for candidate in [folder.join("layouts").join(&file_name), folder.join(&file_name)] {
            if candidate.is_file() {
                let text = std::fs::read_to_string(&candidate)
                    .map_err(|e| error(file, None, format!("cannot read {}: {e}", candidate.display())))?;
                let layout = Layout::parse(&text)
                    .map_err(|e| error(file, None, format!("the layout {}: {e}", candidate.display())))?;
                return Ok((candidate, layout));
            }
            looked.push(candidate.display().to_string());
        }
    }
    Err(error(
        file,
        None,
        format!(
            "the layout `{name}` is not in the distribution (looked for {}): give the whole distribution folder, \
             with its `layouts` beside `test_cases`",
            looked.join(", ")
        ),
    ))
}

/// Reads a `PacmanGameTreeTest` and its `.solution`.
pub fn import_game_tree_test(
    text: &str,
    file: &Path,
    solution: Option<(&str, &Path)>,
) -> Result<PacmanTest, ImportError> {
    let fields = parse_fields(text, file)?;
    let alg = require(&fields, file, "alg")?;
    let algorithm = match alg.value.trim() {
        "MinimaxAgent" => Algorithm::Minimax,
        "AlphaBetaAgent" => Algorithm::AlphaBeta,
        "ExpectimaxAgent" => Algorithm::Expectimax,
        other => {
            return Err(ImportError {
                file: file.to_path_buf(),
                line: Some(alg.line),
                kind: ImportErrorKind::UnknownAlgorithm { alg: other.to_string() },
            });
        }
    };
    let depth: u32 = number(&fields, file, "depth")?;
    let seed: i64 = number(&fields, file, "seed")?;
    let layout_field = require(&fields, file, "layout")?;
    let layout = Layout::parse(&layout_field.value)
        .map_err(|e| error(file, Some(layout_field.line), format!("the layout: {e}")))?;
    let layout_name = fields.get("layoutName").map_or_else(|| "layout".to_string(), |f| f.value.trim().to_string());
    let Some((solution_text, solution_file)) = solution else {
        return Err(error(file, None, "a PacmanGameTreeTest needs its .solution (the staff's path)".to_string()));
    };
    let solution = parse_fields(solution_text, solution_file)?;
    let optimal: Vec<Vec<(Vec<String>, usize)>> = json_lines(&solution, solution_file, "optimalActions")?;
    let other_depths: Vec<Vec<Vec<String>>> = json_lines(&solution, solution_file, "altDepthActions")?;
    let partial_ply: Vec<Vec<Vec<String>>> = json_lines(&solution, solution_file, "partialPlyBugActions")?;
    if other_depths.len() != optimal.len() || partial_ply.len() != optimal.len() {
        return Err(error(solution_file, None, "the solution's three lists do not have one line per move each".into()));
    }
    let direction = |name: &String| {
        Direction::parse(name).ok_or_else(|| error(solution_file, None, format!("`{name}` is not a direction")))
    };
    let sets = |lists: &Vec<Vec<String>>| -> Result<Vec<Vec<Direction>>, ImportError> {
        lists.iter().map(|list| list.iter().map(direction).collect()).collect()
    };
    let mut steps = Vec::with_capacity(optimal.len());
    for (k, agents) in optimal.iter().enumerate() {
        let first = agents
            .first()
            .and_then(|(actions, _)| actions.first())
            .ok_or_else(|| error(solution_file, None, format!("optimalActions line {} gives no action", k + 1)))?;
        let best: Vec<Vec<String>> = agents.iter().map(|(actions, _)| actions.clone()).collect();
        steps.push(ReplayStep {
            play: direction(first)?,
            best: sets(&best)?,
            explored: agents.iter().map(|&(_, count)| count).collect(),
            other_depths: sets(&other_depths[k])?,
            partial_ply: sets(&partial_ply[k])?,
        });
    }
    if steps.is_empty() {
        return Err(error(solution_file, None, "optimalActions lists no move".to_string()));
    }
    let description = format!(
        "CS188 PacmanGameTreeTest {}: the staff's {} moves on {layout_name} against two DirectionalGhosts; at each, \
         your {} of depth {depth} must choose one of the best moves and explore as many states as a correct one.",
        file.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
        steps.len(),
        alg.value.trim(),
    );
    Ok(PacmanTest {
        name: name_of(file),
        description: Some(description),
        layout_name,
        layout,
        ghosts: vec![GhostKind::Directional, GhostKind::Directional],
        agent: AgentSpec {
            class: alg.value.trim().to_string(),
            arguments: vec![("depth".to_string(), serde_json::json!(depth))],
        },
        seed,
        move_time_limit: GAME_TREE_LIMIT,
        game_time_limit: GAME_TREE_LIMIT,
        kind: PacmanTestKind::Replay(ReplaySpec { algorithm, depth, steps }),
    })
}

fn json_lines<T: serde::de::DeserializeOwned>(fields: &Fields, file: &Path, key: &str) -> Result<Vec<T>, ImportError> {
    let field = require(fields, file, key)?;
    field
        .value
        .split('\n')
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(k, line)| {
            serde_json::from_str(line).map_err(|e| {
                error(file, Some(field.value_line(k)), format!("a line of `{key}` is not what CS188 writes: {e}"))
            })
        })
        .collect()
}

/// Plays the test's staff path with treegrade's reference agents and lists
/// where they differ from the recorded answers (tied-best actions and
/// explored counts, with and without Stop, then one round shallower and
/// deeper). Empty when they agree; a replay that breaks the rules is one
/// difference.
pub fn replay_differences(test: &PacmanTest) -> Vec<String> {
    let PacmanTestKind::Replay(replay) = &test.kind else { return Vec::new() };
    let board = Board::new(test.layout.clone(), test.ghosts.len());
    let mut state = board.initial_state();
    let mut differences = Vec::new();
    let names = |set: &[Direction]| set.iter().map(|d| d.name()).collect::<Vec<_>>().join(" ");
    let depths = [
        (replay.depth.saturating_sub(1).max(1), StopRule::Allowed),
        (replay.depth.saturating_sub(1).max(1), StopRule::Removed),
        (replay.depth + 1, StopRule::Allowed),
        (replay.depth + 1, StopRule::Removed),
    ];
    for (k, step) in replay.steps.iter().enumerate() {
        let staff = [StopRule::Allowed, StopRule::Removed].into_iter().map(|stop| (replay.depth, stop));
        let checks = staff.zip(step.best.iter().map(Some).zip(step.explored.iter().map(Some)));
        let deeper = depths.into_iter().zip(step.other_depths.iter().map(Some).zip(std::iter::repeat(None)));
        for ((rounds, stop), (best, explored)) in checks.chain(deeper) {
            let Some(best) = best else { continue };
            match staff_answer(&board, &state, replay.algorithm, rounds, stop) {
                Ok(answer) => {
                    if &answer.best != best || explored.is_some_and(|&count| count != answer.explored) {
                        differences.push(format!(
                            "step {}, depth {rounds} {}: the reference finds [{}] exploring {}, the solution [{}]{}",
                            k + 1,
                            if stop == StopRule::Allowed { "with Stop" } else { "without Stop" },
                            names(&answer.best),
                            answer.explored,
                            names(best),
                            explored.map_or_else(String::new, |count| format!(" exploring {count}")),
                        ));
                    }
                }
                Err(problem) => differences.push(format!("step {}: {problem}", k + 1)),
            }
        }
        match board.successor(&state, 0, step.play) {
            Ok(next) => state = next,
            Err(problem) => {
                differences.push(format!("step {}: the staff's move {}: {problem}", k + 1, step.play.name()));
                return differences;
            }
        }
        let mut random = PythonRandom::seeded(i128::from(test.seed) + k as i128 + 1);
        for ghost in 1..board.agents {
            if state.is_over() {
                break;
            }
            match test.ghosts[ghost - 1].choose(&board, &state, ghost, &mut random) {
                Ok(Some(action)) => state = board.successor(&state, ghost, action).expect("a legal move"),
                _ => {
                    differences.push(format!("step {}: ghost {ghost} has no move", k + 1));
                    return differences;
                }
            }
        }
        if state.is_over() && k + 1 < replay.steps.len() {
            differences.push(format!("the game ends after step {}, before the solution's last move", k + 1));
            return differences;
        }
    }
    if !state.is_over() {
        differences.push("the game is not over after the solution's last move".to_string());
    }
    differences
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agent_args_read_as_cs188_reads_them() {
        assert_eq!(parse_agent_args(""), []);
        assert_eq!(
            parse_agent_args("evalFn=better,depth=3,fast"),
            [
                ("evalFn".to_string(), serde_json::json!("better")),
                ("depth".to_string(), serde_json::json!("3")),
                ("fast".to_string(), serde_json::json!(1)),
            ]
        );
    }

    #[test]
    fn ghosts_are_numbered_in_order() {
        assert_eq!(parse_ghosts("[RandomGhost(1)]"), Some(vec![GhostKind::Random]));
        assert_eq!(
            parse_ghosts("[DirectionalGhost(1), RandomGhost(2)]"),
            Some(vec![GhostKind::Directional, GhostKind::Random])
        );
        assert_eq!(parse_ghosts("[RandomGhost(2)]"), None, "ghost 1 first");
        assert_eq!(parse_ghosts("[BlueGhost(1)]"), None);
        assert_eq!(parse_ghosts("RandomGhost(1)"), None);
        assert_eq!(parse_ghosts("[]"), Some(vec![]));
    }
}
