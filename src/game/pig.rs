//! Pig (docs/format.md 7.2): a dice game with chance nodes, as DeepMind's
//! OpenSpiel implements it (a win only on `stop`).

use serde_json::json;

use super::{ArgError, ArgSite, Configured, Family, Game, GameArgs, Move, Params, Rules};
use crate::tree::NodeKind;

/// `pig`.
pub static FAMILY: Family = Family { names: &["pig"], make };

/// The die's faces, each with probability 1/6.
const FACES: u8 = 6;

fn make(args: &GameArgs<'_>) -> Result<Box<dyn Game>, ArgError> {
    let params = Params::new(args, &["target"])?;
    let target = params.integer("target", 2, 100, Some(20))? as u32;
    if args.utility.is_some() {
        return Err(ArgError::new(
            ArgSite::Utility(None),
            "pig's utility is fixed (1 if player 0 wins, -1 if player 1 wins): remove `utility`",
        ));
    }
    let rules = Pig { target };
    let start = match args.position {
        Some(position) => rules.parse_position(position)?,
        None => State { scores: [0, 0], turn_total: 0, to_move: 0, phase: Phase::Deciding },
    };
    Ok(Box::new(Configured::new(args.name, rules, start)))
}

/// Where a turn stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// The player to move chooses `roll` or `stop`.
    Deciding,
    /// The die is in the air (a chance node).
    Rolled,
    /// The game is over; this player won.
    Won(u8),
}

/// A position of Pig.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct State {
    scores: [u32; 2],
    turn_total: u32,
    to_move: u8,
    phase: Phase,
}

/// A move of Pig.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Action {
    Roll,
    Stop,
    Face(u8),
}

/// The rules of Pig to a target score.
struct Pig {
    target: u32,
}

impl Pig {
    fn parse_position(&self, position: &serde_json::Value) -> Result<State, ArgError> {
        let wrong = |message: String| ArgError::new(ArgSite::Position, message);
        let map = position.as_object().ok_or_else(|| {
            wrong(format!(
                "pig's position is a mapping `{{scores: [S0, S1], turn_total: T, to_move: 0 or 1}}`, not {position}"
            ))
        })?;
        let mut state = State { scores: [0, 0], turn_total: 0, to_move: 0, phase: Phase::Deciding };
        for (key, value) in map {
            match key.as_str() {
                "scores" => {
                    let scores = value
                        .as_array()
                        .filter(|scores| scores.len() == 2)
                        .ok_or_else(|| wrong(format!("`scores` must be a list of two whole numbers, not {value}")))?;
                    for (player, score) in scores.iter().enumerate() {
                        state.scores[player] = score
                            .as_u64()
                            .filter(|&score| score < u64::from(self.target))
                            .ok_or_else(|| {
                                wrong(format!(
                                    "player {player}'s score must be a whole number from 0 to {} (the target is {}), not {score}",
                                    self.target - 1,
                                    self.target
                                ))
                            })? as u32;
                    }
                }
                "turn_total" => {
                    state.turn_total = value
                        .as_u64()
                        .and_then(|total| u32::try_from(total).ok())
                        .ok_or_else(|| wrong(format!("`turn_total` must be a whole number from 0, not {value}")))?;
                }
                "to_move" => {
                    state.to_move = match value.as_u64() {
                        Some(0) => 0,
                        Some(1) => 1,
                        _ => return Err(wrong(format!("`to_move` must be 0 or 1, not {value}"))),
                    };
                }
                other => {
                    return Err(wrong(format!(
                        "unknown key `{other}` in pig's position (it takes scores, turn_total, to_move)"
                    )));
                }
            }
        }
        Ok(state)
    }

    /// The position after the player to move stops: a win, or the other's turn.
    fn stop(&self, state: &State) -> State {
        let mover = usize::from(state.to_move);
        let mut next = State { turn_total: 0, ..*state };
        next.scores[mover] += state.turn_total;
        if next.scores[mover] >= self.target {
            next.phase = Phase::Won(state.to_move);
        } else {
            next.to_move = 1 - state.to_move;
        }
        next
    }
}

impl Rules for Pig {
    type State = State;
    type Action = Action;

    fn kind(&self, state: &State) -> NodeKind {
        match state.phase {
            Phase::Won(_) => NodeKind::Terminal,
            Phase::Rolled => NodeKind::Chance,
            Phase::Deciding if state.to_move == 0 => NodeKind::Max,
            Phase::Deciding => NodeKind::Min,
        }
    }

    fn moves(&self, state: &State, out: &mut Vec<Move<Action, State>>) {
        match state.phase {
            Phase::Won(_) => {}
            Phase::Deciding => {
                let mover = usize::from(state.to_move);
                if state.scores[mover] + state.turn_total < self.target {
                    let rolled = State { phase: Phase::Rolled, ..*state };
                    out.push(Move { action: Action::Roll, state: rolled, probability: 1.0 });
                }
                out.push(Move { action: Action::Stop, state: self.stop(state), probability: 1.0 });
            }
            Phase::Rolled => {
                let probability = 1.0 / f64::from(FACES);
                for face in 1..=FACES {
                    let next = if face == 1 {
                        State { turn_total: 0, to_move: 1 - state.to_move, phase: Phase::Deciding, ..*state }
                    } else {
                        State { turn_total: state.turn_total + u32::from(face), phase: Phase::Deciding, ..*state }
                    };
                    out.push(Move { action: Action::Face(face), state: next, probability });
                }
            }
        }
    }

    fn utility(&self, state: &State, _ply: u32) -> f64 {
        match state.phase {
            Phase::Won(0) => 1.0,
            Phase::Won(_) => -1.0,
            _ => 0.0,
        }
    }

    fn evaluations(&self) -> &[&'static str] {
        &["score"]
    }

    /// `score`: (S0 - S1 +- T) / target, the turn total counting for the
    /// player whose turn it is; one division of two whole numbers.
    fn evaluate(&self, _which: usize, state: &State) -> f64 {
        let lead = i64::from(state.scores[0]) - i64::from(state.scores[1]);
        let total = i64::from(state.turn_total);
        let numerator = if state.to_move == 0 { lead + total } else { lead - total };
        numerator as f64 / f64::from(self.target)
    }

    fn action_name(&self, action: Action, out: &mut String) {
        match action {
            Action::Roll => out.push_str("roll"),
            Action::Stop => out.push_str("stop"),
            Action::Face(face) => out.push(char::from(b'0' + face)),
        }
    }

    fn state_json(&self, state: &State) -> serde_json::Value {
        let to_move = match state.phase {
            Phase::Won(_) => serde_json::Value::Null,
            _ => json!(state.to_move),
        };
        json!({"scores": state.scores, "turn_total": state.turn_total, "to_move": to_move, "target": self.target})
    }

    fn board(&self, state: &State) -> Option<String> {
        let turn = match state.phase {
            Phase::Won(player) => format!("player {player} won"),
            Phase::Rolled => format!("player {} rolled, turn total {}", state.to_move, state.turn_total),
            Phase::Deciding => format!("player {} to move, turn total {}", state.to_move, state.turn_total),
        };
        Some(format!("scores {} - {} (target {}), {turn}", state.scores[0], state.scores[1], self.target))
    }

    fn has_chance(&self) -> bool {
        true
    }

    fn unbounded(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Algorithm, SearchError, SearchSettings, search};
    use crate::game::{UnfoldOptions, make};
    use crate::tree::{GameTree, NodeIndex};

    fn pig(target: u64, position: Option<serde_json::Value>) -> Box<dyn GameTree + Send> {
        let params = [("target".to_string(), json!(target))];
        let args = GameArgs { name: "pig", params: &params, position: position.as_ref(), utility: None };
        make(&args).unwrap().unfold(&UnfoldOptions { eval: Some("score".into()), ..UnfoldOptions::default() }).unwrap()
    }

    #[test]
    fn a_turn_is_roll_or_stop_and_a_roll_has_six_faces() {
        let tree = pig(20, None);
        let root = NodeIndex::ROOT;
        let children: Vec<String> = tree.children(root).map(|c| tree.id(c).into_owned()).collect();
        assert_eq!(children, ["roll", "stop"]);
        let roll = NodeIndex(1);
        assert_eq!(tree.kind(roll), NodeKind::Chance);
        let faces: Vec<String> = tree.children(roll).map(|c| tree.id(c).into_owned()).collect();
        assert_eq!(faces, ["roll-1", "roll-2", "roll-3", "roll-4", "roll-5", "roll-6"]);
        let one = NodeIndex(3);
        assert_eq!(tree.kind(one), NodeKind::Min, "a one passes the turn");
        assert_eq!(tree.probability(one), 1.0 / 6.0);
        let four = NodeIndex(6);
        assert_eq!(tree.state(four).unwrap(), json!({"scores": [0, 0], "turn_total": 4, "to_move": 0, "target": 20}));
        assert_eq!(tree.eval(four), Some(0.2));
    }

    #[test]
    fn reaching_the_target_leaves_only_stop_and_stopping_wins() {
        let tree = pig(10, Some(json!({"scores": [8, 3], "turn_total": 2, "to_move": 0})));
        let children: Vec<String> = tree.children(NodeIndex::ROOT).map(|c| tree.id(c).into_owned()).collect();
        assert_eq!(children, ["stop"]);
        let stop = NodeIndex(1);
        assert_eq!((tree.kind(stop), tree.utility(stop)), (NodeKind::Terminal, 1.0));
    }

    #[test]
    fn pig_needs_a_depth_limit_and_refuses_minimax() {
        let tree = pig(20, None);
        let unlimited = search(&*tree, &SearchSettings::new(Algorithm::Expectimax)).unwrap_err();
        assert!(matches!(unlimited, SearchError::Unbounded { .. }), "{unlimited}");
        let minimax = SearchSettings { depth: Some(2), ..SearchSettings::new(Algorithm::Minimax) };
        assert!(matches!(search(&*tree, &minimax).unwrap_err(), SearchError::ChanceGameUnderMinimax { .. }));
    }

    #[test]
    fn expectimax_at_depth_two_averages_the_faces() {
        let tree = pig(20, None);
        let settings = SearchSettings { depth: Some(2), ..SearchSettings::new(Algorithm::Expectimax) };
        let outcome = search(&*tree, &settings).unwrap();
        // roll: faces valued by score at ply 2: 1 -> player 1 to move, T 0: 0;
        // f -> f / 20. Summed in order from 0 with p = 1/6.
        let mut expected = 0.0;
        for value in [0.0, 0.1, 0.15, 0.2, 0.25, 0.3] {
            expected += (1.0 / 6.0) * value;
        }
        assert_eq!(outcome.value, expected);
        assert_eq!(tree.action(outcome.action.unwrap()), "roll");
    }

    #[test]
    fn bad_positions_are_refused() {
        let refuse = |position: serde_json::Value| {
            let params = [("target".to_string(), json!(10))];
            make(&GameArgs { name: "pig", params: &params, position: Some(&position), utility: None })
                .unwrap_err()
                .message
        };
        assert!(refuse(json!({"scores": [10, 0]})).contains("from 0 to 9"));
        assert!(refuse(json!({"to_move": 2})).contains("0 or 1"));
        assert!(refuse(json!({"turn_total": -1})).contains("turn_total"));
        assert!(refuse(json!({"score": [1, 2]})).contains("unknown key `score`"));
        assert!(refuse(json!("x..")).contains("mapping"));
    }
}
