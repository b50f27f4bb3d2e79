//! What a Pacman test found, as reports show it.

use serde::Serialize;

use crate::game::pacman::test::CriterionKind;

/// A Pacman test's findings.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum PacmanOutcome {
    /// Whole games, scored by thresholds.
    Play(PlayOutcome),
    /// The staff's path, checked step by step.
    Replay(ReplayOutcome),
}

/// The games of a play test and what they earned.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlayOutcome {
    /// The board's name.
    pub layout: String,
    /// Each game.
    pub games: Vec<GameSummary>,
    /// The average score.
    pub average_score: f64,
    /// Its 95% interval (Student's t over the games; none for one game).
    pub score_interval: Option<[f64; 2]>,
    /// Games won.
    pub wins: u32,
    /// The 95% interval of the rate of wins (Wilson's).
    pub win_rate_interval: Option<[f64; 2]>,
    /// Games that did not time out.
    pub not_timed_out: u32,
    /// Games left unplayed because a minimum could no longer be met: the
    /// test earns nothing whatever they would give (absent when 0).
    #[serde(skip_serializing_if = "is_zero")]
    pub not_played: u32,
    /// Each criterion of the test.
    pub criteria: Vec<CriterionOutcome>,
    /// Threshold points earned.
    pub earned: u32,
    /// Threshold points possible.
    pub possible: u32,
    /// Where the games' random numbers came from: `shared` (CS188's one
    /// stream) or `per-game`.
    pub random: String,
    /// CS188's own summary of the games, line for line as its `runGames`
    /// prints it (`Average Score:`, `Scores:`, `Win Rate:`, `Record:`).
    pub cs188: Vec<String>,
    /// The board, for replays: the layout's rows, top first.
    #[serde(skip)]
    pub rows: Vec<String>,
}

/// The lines CS188's `pacman.runGames` prints after its games, for `games`.
pub fn cs188_lines(games: &[GameSummary]) -> Vec<String> {
    if games.is_empty() {
        return Vec::new();
    }
    let scores: Vec<f64> = games.iter().map(|game| game.score as f64).collect();
    let average = scores.iter().sum::<f64>() / scores.len() as f64;
    let wins = games.iter().filter(|game| game.end == GameEnd::Won).count();
    let record: Vec<&str> = games.iter().map(|game| if game.end == GameEnd::Won { "Win" } else { "Loss" }).collect();
    vec![
        format!("Average Score: {}", python_float(average)),
        format!("Scores:        {}", scores.iter().map(|&score| python_float(score)).collect::<Vec<_>>().join(", ")),
        format!("Win Rate:      {wins}/{} ({:.2})", games.len(), wins as f64 / games.len() as f64),
        format!("Record:        {}", record.join(", ")),
    ]
}

/// A float as Python's `str` writes it (`1251.0`, `1000.9`), for the
/// magnitudes scores have (Python turns to exponents from 1e16).
fn python_float(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e16 { format!("{value:.1}") } else { format!("{value}") }
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum GameEnd {
    /// Pacman ate the last food.
    Won,
    /// A ghost caught Pacman.
    Lost,
    /// The agent failed: an exception, an illegal move, a crash.
    Crashed,
    /// The agent ran out of time (or the game of moves).
    TimedOut,
}

/// One game of a play test.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GameSummary {
    /// 1 first.
    pub game: u32,
    /// The seed of its ghosts and of the student's `random` (with the
    /// shared stream: the test's, seeded once before game 1).
    pub seed: i64,
    /// How it ended.
    pub end: GameEnd,
    /// The final score.
    pub score: i64,
    /// Pacman's moves.
    pub moves: u32,
    /// How it ended, in words.
    pub how: String,
    /// Whether treegrade's safety net ended it, not a rule of CS188's (absent when not).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub safety_net: bool,
    /// Every position of the game, for the HTML replay.
    #[serde(skip)]
    pub frames: Vec<Frame>,
}

/// One position of a game, for replays.
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    /// Each agent: x and y in half cells, scared timer, and the letter of
    /// its direction (`N`, `S`, `E`, `W`, `X` for Stop).
    pub agents: Vec<(i32, i32, u32, char)>,
    /// The score.
    pub score: i64,
    /// The cell whose food or capsule was eaten on the move into this position.
    pub eaten: Option<(u16, u16)>,
}

/// One criterion of a play test, as the games met it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CriterionOutcome {
    /// What it measures.
    pub kind: CriterionKind,
    /// The games' figure.
    pub value: f64,
    /// Below it, the test earns nothing.
    pub minimum: Option<f64>,
    /// One point each.
    pub thresholds: Vec<f64>,
    /// Whether the minimum is met (true without one).
    pub met_minimum: bool,
    /// Points earned.
    pub points: u32,
}

/// A replay test's findings.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReplayOutcome {
    /// The board's name.
    pub layout: String,
    /// The search asked for (`minimax`).
    pub algorithm: String,
    /// Its depth in rounds.
    pub depth: u32,
    /// Steps of the staff's path.
    pub steps: u32,
    /// Steps the agent answered.
    pub answered: u32,
    /// What the steps show, in CS188's terms.
    pub verdict: ReplayVerdict,
    /// The first step whose action is not among the tied-best of either staff agent.
    pub first_wrong_action: Option<StepCheck>,
    /// The first step whose explored count is neither staff agent's.
    pub first_wrong_count: Option<StepCheck>,
    /// Moves not among the tied-best of either staff agent.
    pub suboptimal_moves: u32,
}

/// What CS188's game test concludes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReplayVerdict {
    /// Every step right.
    Passed,
    /// "Bug: Wrong number of states expanded."
    WrongStatesExpanded,
    /// "Bug: Partial Ply Bug"
    PartialPly,
    /// "Bug: Search depth off by 1"
    DepthOffByOne,
    /// "Bug: Suboptimal moves"
    SuboptimalMoves,
    /// "Agent crashed on LAYOUT.  No credit"
    Crashed,
    /// "Agent timed out on LAYOUT.  No credit"
    TimedOut,
}

impl ReplayVerdict {
    /// CS188's own message for it.
    pub fn cs188_message(self, layout: &str) -> String {
        match self {
            ReplayVerdict::Passed => "PASS".to_string(),
            ReplayVerdict::WrongStatesExpanded => "Bug: Wrong number of states expanded.".to_string(),
            ReplayVerdict::PartialPly => "Bug: Partial Ply Bug".to_string(),
            ReplayVerdict::DepthOffByOne => "Bug: Search depth off by 1".to_string(),
            ReplayVerdict::SuboptimalMoves => "Bug: Suboptimal moves".to_string(),
            ReplayVerdict::Crashed => format!("Agent crashed on {layout}.  No credit"),
            ReplayVerdict::TimedOut => format!("Agent timed out on {layout}.  No credit"),
        }
    }
}

/// One step of the staff's path, as the agent answered it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StepCheck {
    /// 1 first.
    pub step: u32,
    /// The agent's action (as it returned it).
    pub action: String,
    /// The states it explored.
    pub explored: usize,
    /// The tied-best actions of the staff agents (with Stop, without).
    pub best: Vec<Vec<String>>,
    /// Their explored counts.
    pub expected_explored: Vec<usize>,
    /// The position, drawn as CS188 draws it.
    pub board: String,
}

fn is_zero(count: &u32) -> bool {
    *count == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(score: i64, end: GameEnd) -> GameSummary {
        GameSummary {
            game: 1,
            seed: 0,
            end,
            score,
            moves: 1,
            how: String::new(),
            safety_net: false,
            frames: Vec::new(),
        }
    }

    #[test]
    fn the_summary_is_cs188s_line_for_line() {
        // What CS188 printed for q5 of its distribution's own solution (Average Score: 1000.9 ...).
        let games: Vec<GameSummary> =
            [976, 1137, 969].iter().map(|&s| game(s, GameEnd::Won)).chain([game(-488, GameEnd::Lost)]).collect();
        assert_eq!(
            cs188_lines(&games),
            [
                "Average Score: 648.5",
                "Scores:        976.0, 1137.0, 969.0, -488.0",
                "Win Rate:      3/4 (0.75)",
                "Record:        Win, Win, Win, Loss"
            ]
        );
        assert_eq!(python_float(1000.9), "1000.9");
        assert_eq!(python_float(1e16 / 3.0), "3333333333333333.5");
    }
}
