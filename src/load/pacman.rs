//! Pacman test files (docs/format.md section 10): a top-level `pacman` key
//! holding the board, the ghosts, the student's agent and either `play`
//! (whole games scored by thresholds) or `replay` (the staff's path,
//! checked step by step).

use std::path::Path;
use std::time::Duration;

use serde::Deserialize;
use serde_saphyr::Spanned;

use super::{Diagnostic, LoadError, Position, parser_options, spanned_position, yaml_diagnostic};
use crate::engine::Algorithm;
use crate::game::pacman::test::{AgentSpec, PacmanTest, PacmanTestKind, PlayRandom, PlaySpec, ReplaySpec, ReplayStep};
use crate::game::pacman::{Direction, GhostKind, Layout};
use crate::thresholds::Thresholds;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    name: Option<String>,
    description: Option<String>,
    pacman: Spanned<RawPacman>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPacman {
    layout_name: Option<String>,
    layout: Spanned<String>,
    ghosts: Vec<Spanned<String>>,
    agent: String,
    #[serde(default)]
    agent_args: serde_json::Map<String, serde_json::Value>,
    #[serde(default)]
    seed: i64,
    time_limit: Option<RawTimeLimit>,
    play: Option<Spanned<RawPlay>>,
    replay: Option<Spanned<RawReplay>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTimeLimit {
    #[serde(rename = "move")]
    per_move: Option<f64>,
    game: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPlay {
    games: u32,
    #[serde(default)]
    score: RawCriterion,
    #[serde(default)]
    not_timed_out: RawCriterion,
    #[serde(default)]
    wins: RawCriterion,
    random: Option<Spanned<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCriterion {
    minimum: Option<f64>,
    #[serde(default)]
    thresholds: Vec<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawReplay {
    algorithm: Spanned<String>,
    depth: u32,
    steps: Vec<Spanned<RawStep>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStep {
    play: String,
    best: Vec<Vec<String>>,
    explored: Vec<usize>,
    #[serde(default)]
    other_depths: Vec<Vec<String>>,
    #[serde(default)]
    partial_ply: Vec<Vec<String>>,
}

/// CS188's limit on a move and on a game (its tests give 120 s each).
const DEFAULT_LIMIT: f64 = 120.0;

/// Whether a file's text is a Pacman test: a top-level `pacman` key.
pub fn is_pacman_file(text: &str) -> bool {
    text.lines().any(|line| line.starts_with("pacman:"))
}

/// Reads a Pacman test file; its name defaults to the file's stem.
pub fn load_pacman_file(path: &Path) -> Result<PacmanTest, LoadError> {
    let text = std::fs::read_to_string(path).map_err(|error| {
        LoadError::new(path, vec![Diagnostic::at(None, format!("cannot read the file: {error}"))], None)
    })?;
    load_pacman_str(&text, path)
}

/// Reads a Pacman test from its text; `path` names it in errors and gives the default name.
pub fn load_pacman_str(text: &str, path: &Path) -> Result<PacmanTest, LoadError> {
    let raw: RawFile = serde_saphyr::from_str_with_options(text, parser_options())
        .map_err(|error| LoadError::new(path, vec![yaml_diagnostic(&error)], Some(text)))?;
    let fail =
        |at: Option<Position>, message: String| LoadError::new(path, vec![Diagnostic::at(at, message)], Some(text));
    let name = raw.name.clone().unwrap_or_else(|| {
        path.file_stem().map_or_else(|| "pacman".to_string(), |stem| stem.to_string_lossy().into_owned())
    });
    let at = spanned_position(&raw.pacman);
    let pacman = raw.pacman.value;
    let layout = Layout::parse(&pacman.layout.value)
        .map_err(|error| fail(spanned_position(&pacman.layout), format!("the layout: {error}")))?;
    let mut ghosts = Vec::new();
    for ghost in &pacman.ghosts {
        let kind = GhostKind::from_class_name(&ghost.value).ok_or_else(|| {
            fail(spanned_position(ghost), format!("unknown ghost `{}` (RandomGhost or DirectionalGhost)", ghost.value))
        })?;
        ghosts.push(kind);
    }
    let limit = |value: Option<f64>, key: &str| {
        let seconds = value.unwrap_or(DEFAULT_LIMIT);
        Duration::try_from_secs_f64(seconds)
            .ok()
            .filter(|limit| !limit.is_zero())
            .ok_or_else(|| fail(at, format!("`time_limit.{key}` must be a positive number of seconds, not {seconds}")))
    };
    let limits = pacman.time_limit.as_ref();
    let move_time_limit = limit(limits.and_then(|l| l.per_move), "move")?;
    let game_time_limit = limit(limits.and_then(|l| l.game), "game")?;
    let kind = match (pacman.play, pacman.replay) {
        (Some(play), None) => PacmanTestKind::Play(play_spec(play, &fail)?),
        (None, Some(replay)) => PacmanTestKind::Replay(replay_spec(replay, &fail)?),
        _ => {
            return Err(fail(
                at,
                "a Pacman test has either `play` (whole games) or `replay` (the staff's path)".into(),
            ));
        }
    };
    Ok(PacmanTest {
        name,
        description: raw.description,
        layout_name: pacman.layout_name.unwrap_or_else(|| "layout".to_string()),
        layout,
        ghosts,
        agent: AgentSpec { class: pacman.agent, arguments: pacman.agent_args.into_iter().collect() },
        seed: pacman.seed,
        move_time_limit,
        game_time_limit,
        kind,
    })
}

fn play_spec(
    raw: Spanned<RawPlay>,
    fail: &impl Fn(Option<Position>, String) -> LoadError,
) -> Result<PlaySpec, LoadError> {
    let at = spanned_position(&raw);
    let raw = raw.value;
    if raw.games == 0 {
        return Err(fail(at, "`play.games` must be at least 1".into()));
    }
    let criterion = |raw: RawCriterion| Thresholds { minimum: raw.minimum, at: raw.thresholds };
    let random = match &raw.random {
        None => PlayRandom::default(),
        Some(name) => PlayRandom::from_name(&name.value).ok_or_else(|| {
            fail(
                spanned_position(name),
                format!("`play.random` is `shared` (CS188's one stream) or `per-game`, not `{}`", name.value),
            )
        })?,
    };
    Ok(PlaySpec {
        random,
        games: raw.games,
        score: criterion(raw.score),
        not_timed_out: criterion(raw.not_timed_out),
        wins: criterion(raw.wins),
    })
}

fn replay_spec(
    raw: Spanned<RawReplay>,
    fail: &impl Fn(Option<Position>, String) -> LoadError,
) -> Result<ReplaySpec, LoadError> {
    let at = spanned_position(&raw);
    let raw = raw.value;
    let algorithm: Algorithm = raw.algorithm.value.parse().map_err(|error: crate::engine::ParseAlgorithmError| {
        fail(spanned_position(&raw.algorithm), error.to_string())
    })?;
    if raw.steps.is_empty() {
        return Err(fail(at, "`replay.steps` lists no step".into()));
    }
    let mut steps = Vec::with_capacity(raw.steps.len());
    for (number, step) in raw.steps.into_iter().enumerate() {
        let at = spanned_position(&step);
        let step = step.value;
        let direction = |name: &String| {
            Direction::parse(name).ok_or_else(|| fail(at, format!("step {}: `{name}` is not a direction", number + 1)))
        };
        let directions = |lists: &Vec<Vec<String>>| -> Result<Vec<Vec<Direction>>, LoadError> {
            lists.iter().map(|list| list.iter().map(direction).collect()).collect()
        };
        let best = directions(&step.best)?;
        if best.is_empty() || best.len() != step.explored.len() {
            return Err(fail(
                at,
                format!("step {}: `best` and `explored` give one entry per staff agent, as many of each", number + 1),
            ));
        }
        steps.push(ReplayStep {
            play: direction(&step.play)?,
            best,
            explored: step.explored,
            other_depths: directions(&step.other_depths)?,
            partial_ply: directions(&step.partial_ply)?,
        });
    }
    Ok(ReplaySpec { algorithm, depth: raw.depth, steps })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAY: &str = "description: ten games\npacman:\n  layout_name: tiny\n  layout: |\n    %%%%%\n    %P.G%\n    %%%%%\n  \
                        ghosts: [RandomGhost]\n  agent: ReflexAgent\n  seed: 3\n  time_limit: {move: 2, game: 5}\n  \
                        play:\n    games: 10\n    score: {thresholds: [500, 1000]}\n    wins: {minimum: 1, thresholds: [5]}\n";

    #[test]
    fn a_play_test_reads_with_its_criteria() {
        let test = load_pacman_str(PLAY, Path::new("q1/tiny.yaml")).unwrap();
        assert_eq!((test.name.as_str(), test.layout_name.as_str(), test.seed), ("tiny", "tiny", 3));
        assert_eq!((test.move_time_limit, test.game_time_limit), (Duration::from_secs(2), Duration::from_secs(5)));
        let PacmanTestKind::Play(play) = &test.kind else { panic!("{:?}", test.kind) };
        assert_eq!((play.games, play.points()), (10, 3));
        assert_eq!(play.wins, Thresholds { minimum: Some(1.0), at: vec![5.0] });
        assert!(is_pacman_file(PLAY));
    }

    #[test]
    fn a_replay_test_reads_its_steps() {
        let text = PLAY.replace(
            "  play:\n    games: 10\n    score: {thresholds: [500, 1000]}\n    wins: {minimum: 1, thresholds: [5]}\n",
            "  replay:\n    algorithm: minimax\n    depth: 2\n    steps:\n      - {play: East, best: [[East], [East]], explored: [3, 2]}\n",
        );
        let test = load_pacman_str(&text, Path::new("t.yaml")).unwrap();
        let PacmanTestKind::Replay(replay) = &test.kind else { panic!() };
        assert_eq!(replay.steps[0].play, Direction::East);
        assert_eq!(replay.steps[0].explored, [3, 2]);
    }

    #[test]
    fn mistakes_are_placed() {
        let ghost = load_pacman_str(&PLAY.replace("[RandomGhost]", "[BlueGhost]"), Path::new("t.yaml")).unwrap_err();
        assert!(ghost.to_string().contains("unknown ghost `BlueGhost`"), "{ghost}");
        let layout = load_pacman_str(&PLAY.replace("%P.G%", "%..G%"), Path::new("t.yaml")).unwrap_err();
        assert!(layout.to_string().contains("0 Pacman starts"), "{layout}");
        let both = load_pacman_str(
            &PLAY.replace("ghosts:", "replay: {algorithm: minimax, depth: 1, steps: []}\n  ghosts:"),
            Path::new("t.yaml"),
        );
        assert!(both.unwrap_err().to_string().contains("either `play`"));
    }
}
