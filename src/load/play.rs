//! A question's `play:` block (docs/courses.md, "Play questions") into the
//! assignment's [`Play`].
//!
//! ```yaml
//! play:
//!   game: tic-tac-toe          # a built-in game, or a game file in the tests folder
//!   eval: lines                # served with every node; built-in opponents' by default
//!   games: 10                  # against each opponent
//!   openings: 1                # random plies at the start of each game
//!   seed: 2026
//!   budget: 5000               # nodes per move
//!   move_time_limit: 5         # seconds per move, the safety net
//!   opponents: [random, greedy, "alphabeta:3", {program: agents/secret, name: secret}]
//!   thresholds: {not_lost: {minimum: 10, at: [10]}}
//! ```

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use serde::Deserialize;
use serde_saphyr::Spanned;

use super::{Diagnostic, Position, spanned_position};
use crate::assignment::{Measure, MeasureKind, Opponent, OpponentAgent, Play, PlayGame};
use crate::play::builtin::BuiltIn;
use crate::play::referee::GameSetup;
use crate::thresholds::Thresholds;

/// Games against each opponent unless the block says otherwise.
const DEFAULT_GAMES: u32 = 10;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawPlay {
    game: Spanned<String>,
    eval: Option<String>,
    opponents: Vec<Spanned<RawOpponent>>,
    games: Option<u32>,
    #[serde(default)]
    openings: u32,
    #[serde(default)]
    seed: u64,
    budget: Option<u32>,
    move_time_limit: Option<f64>,
    max_plies: Option<u32>,
    #[serde(default)]
    thresholds: BTreeMap<String, RawThresholds>,
}

/// `random`, or `{agent: "alphabeta:3", name: ab3, thresholds: {...}}`, or
/// `{program: agents/secret}`.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum RawOpponent {
    Spelled(String),
    Detailed(RawOpponentDetail),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawOpponentDetail {
    agent: Option<String>,
    program: Option<String>,
    name: Option<String>,
    thresholds: Option<BTreeMap<String, RawThresholds>>,
}

/// `[5, 10]`, or `{minimum: 1, at: [5, 10]}`.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum RawThresholds {
    At(Vec<f64>),
    Full {
        minimum: Option<f64>,
        #[serde(default)]
        at: Vec<f64>,
    },
}

/// Reads a `play:` block; `dir` is the assignment's folder (programs are
/// found from it), `tests_dir` where game files are.
pub(super) fn translate_play(
    raw: Spanned<RawPlay>,
    question: &str,
    dir: &Path,
    tests_dir: &Path,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<Play> {
    let position = spanned_position(&raw);
    let raw = raw.value;
    let before = diagnostics.len();
    let game = if crate::game::built_in_names().contains(&raw.game.value.as_str()) {
        PlayGame::BuiltIn(raw.game.value.clone())
    } else {
        let file = tests_dir.join(&raw.game.value);
        if !file.is_file() {
            diagnostics.push(Diagnostic::at(
                spanned_position(&raw.game),
                format!(
                    "`game` is neither a built-in game ({}) nor a file: {} does not exist",
                    crate::game::built_in_names().join(", "),
                    file.display()
                ),
            ));
        }
        PlayGame::File(file)
    };
    let shared = measures(&raw.thresholds, position, diagnostics);
    let mut opponents: Vec<Opponent> = Vec::new();
    for entry in &raw.opponents {
        let at = spanned_position(entry);
        if let Some(opponent) = opponent(&entry.value, &shared, dir, at, diagnostics) {
            if opponents.iter().any(|other| other.name == opponent.name) {
                diagnostics.push(Diagnostic::at(
                    at,
                    format!("two opponents are called `{}`: give one a `name`", opponent.name),
                ));
            }
            opponents.push(opponent);
        }
    }
    if raw.opponents.is_empty() {
        diagnostics.push(Diagnostic::at(position, format!("question `{question}` plays no one: list `opponents`")));
    }
    if opponents.iter().all(|opponent| opponent.measures.is_empty()) && !opponents.is_empty() {
        diagnostics.push(Diagnostic::at(
            position,
            format!(
                "question `{question}` scores nothing: give `thresholds` (measures: {})",
                MeasureKind::ALL.map(MeasureKind::key).join(", ")
            ),
        ));
    }
    let games = raw.games.unwrap_or(DEFAULT_GAMES);
    if games == 0 {
        diagnostics.push(Diagnostic::at(position, "`games` must be at least 1"));
    }
    if raw.budget == Some(0) {
        diagnostics.push(Diagnostic::at(position, "`budget` must be at least 1 node (leave it out for none)"));
    }
    let move_time_limit = match raw.move_time_limit {
        None => crate::play::MoveLimits::DEFAULT_TIME,
        Some(seconds) => match Duration::try_from_secs_f64(seconds) {
            Ok(limit) if seconds > 0.0 => limit,
            _ => {
                diagnostics.push(Diagnostic::at(position, "`move_time_limit` must be a number of seconds above 0"));
                crate::play::MoveLimits::DEFAULT_TIME
            }
        },
    };
    (diagnostics.len() == before).then_some(Play {
        game,
        eval: raw.eval,
        opponents,
        games,
        openings: raw.openings,
        seed: raw.seed,
        budget: raw.budget,
        move_time_limit,
        max_plies: raw.max_plies.unwrap_or(GameSetup::DEFAULT_MAX_PLIES).max(1),
    })
}

fn opponent(
    raw: &RawOpponent,
    shared: &[Measure],
    dir: &Path,
    at: Option<Position>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<Opponent> {
    let (spelled, program, name, thresholds) = match raw {
        RawOpponent::Spelled(text) => (Some(text), None, None, None),
        RawOpponent::Detailed(detail) => {
            (detail.agent.as_ref(), detail.program.as_ref(), detail.name.as_ref(), detail.thresholds.as_ref())
        }
    };
    let agent = match (spelled, program) {
        (Some(text), None) => match BuiltIn::parse(text) {
            Ok(agent) => OpponentAgent::BuiltIn(agent),
            Err(refused) => {
                diagnostics.push(Diagnostic::at(at, refused.to_string()));
                return None;
            }
        },
        (None, Some(folder)) => {
            let path = dir.join(folder);
            if !path.is_dir() {
                diagnostics.push(Diagnostic::at(
                    at,
                    format!("the opponent's program folder {} does not exist", path.display()),
                ));
                return None;
            }
            OpponentAgent::Program(path)
        }
        _ => {
            diagnostics.push(Diagnostic::at(
                at,
                format!(
                    "an opponent is a built-in agent ({}) or `{{program: FOLDER}}`, one of the two",
                    BuiltIn::SPELLINGS
                ),
            ));
            return None;
        }
    };
    let name = match (name, &agent) {
        (Some(name), _) => name.clone(),
        (None, OpponentAgent::BuiltIn(builtin)) => builtin.spelling(),
        (None, OpponentAgent::Program(path)) => {
            path.file_name().map_or_else(|| "program".to_string(), |name| name.to_string_lossy().into_owned())
        }
    };
    let measures = match thresholds {
        Some(own) => measures(own, at, diagnostics),
        None => shared.to_vec(),
    };
    Some(Opponent { name, agent, measures })
}

/// The measures of a `thresholds:` mapping, in the order of [`MeasureKind::ALL`].
fn measures(
    raw: &BTreeMap<String, RawThresholds>,
    position: Option<Position>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<Measure> {
    for key in raw.keys() {
        if !MeasureKind::ALL.iter().any(|kind| kind.key() == key) {
            diagnostics.push(Diagnostic::at(
                position,
                format!(
                    "unknown measure `{key}` in `thresholds` (measures: {})",
                    MeasureKind::ALL.map(MeasureKind::key).join(", ")
                ),
            ));
        }
    }
    MeasureKind::ALL
        .iter()
        .filter_map(|&kind| {
            let thresholds = match raw.get(kind.key())? {
                RawThresholds::At(at) => Thresholds { minimum: None, at: at.clone() },
                RawThresholds::Full { minimum, at } => Thresholds { minimum: *minimum, at: at.clone() },
            };
            if thresholds.at.iter().chain(&thresholds.minimum).any(|value| !value.is_finite()) {
                diagnostics
                    .push(Diagnostic::at(position, format!("`{}`: thresholds must be finite numbers", kind.key())));
            }
            Some(Measure { kind, thresholds })
        })
        .collect()
}
