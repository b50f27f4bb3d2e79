//! Pacman as a game tree (docs/format.md, "Pacman"): Pacman is MAX, each
//! ghost in turn MIN (or a uniform chance node, as CS188's
//! `ExpectimaxAgent` sees them), one ply per agent's move, terminals where
//! the game is won or lost, valued by the score; depth cuts valued by the
//! score too (`scoreEvaluationFunction`).
//!
//! ```yaml
//! rules: pacman
//! layout: |
//!   %%%%%%%
//!   %P . G%
//!   %%%%%%%
//! ghosts: 1            # how many of the layout's ghosts play (default: all)
//! ghost_nodes: chance  # min (default) or chance
//! stop: false          # whether Pacman may Stop (default true)
//! search: {depth: 4}
//! ```

use std::sync::Arc;

use serde_json::json;

use super::layout::Layout;
use super::state::{Board, Direction, PacmanState};
use crate::game::{ArgError, ArgSite, Configured, Family, Game, GameArgs, Move, Params, Rules};
use crate::tree::NodeKind;

/// `pacman`.
pub static FAMILY: Family = Family { names: &["pacman"], make };

fn make(args: &GameArgs<'_>) -> Result<Box<dyn Game>, ArgError> {
    let params = Params::new(args, &["layout", "ghosts", "ghost_nodes", "stop"])?;
    let Some(text) = args.params.iter().find(|(key, _)| key == "layout").map(|(_, value)| value) else {
        return Err(ArgError::new(ArgSite::Rules, "pacman needs the parameter `layout` (the text of a .lay file)"));
    };
    let text = text
        .as_str()
        .ok_or_else(|| ArgError::new(ArgSite::Param("layout".into()), "`layout` is the text of a .lay file"))?;
    let layout =
        Layout::parse(text).map_err(|error| ArgError::new(ArgSite::Param("layout".into()), error.to_string()))?;
    let most = layout.ghosts.len() as u64;
    let ghosts = params.integer("ghosts", 0, most, Some(most))? as usize;
    let ghost_nodes = match params.choice("ghost_nodes", &["min", "chance"])? {
        "chance" => NodeKind::Chance,
        _ => NodeKind::Min,
    };
    let stop = if params.boolean("stop", true)? { StopRule::Allowed } else { StopRule::Removed };
    if args.position.is_some() {
        return Err(ArgError::new(
            ArgSite::Position,
            "pacman starts where its layout places every agent: remove `position`",
        ));
    }
    if args.utility.is_some() {
        return Err(ArgError::new(ArgSite::Utility(None), "pacman's utility is the score: remove `utility`"));
    }
    let rules = PacmanRules::new(Board::new(layout, ghosts), ghost_nodes, stop);
    let start = rules.start();
    Ok(Box::new(Configured::new(args.name, rules, start)))
}

/// Whether Pacman's Stop is among his moves (CS188's staff agents search
/// both ways; its game tests accept the explored count of either).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopRule {
    /// Stop is a move, as `getLegalActions` lists it.
    Allowed,
    /// Stop is left out of Pacman's moves.
    Removed,
}

/// A state with the agent to move.
#[derive(Clone, Debug)]
pub struct Turn {
    /// The state.
    pub state: PacmanState,
    /// Who moves: 0 is Pacman.
    pub agent: usize,
}

/// Pacman's rules over a board, as a tree.
#[derive(Clone, Debug)]
pub struct PacmanRules {
    board: Arc<Board>,
    ghost_nodes: NodeKind,
    stop: StopRule,
}

impl PacmanRules {
    /// The rules of `board`, ghosts as `ghost_nodes` (min or chance).
    pub fn new(board: Board, ghost_nodes: NodeKind, stop: StopRule) -> PacmanRules {
        PacmanRules { board: Arc::new(board), ghost_nodes, stop }
    }

    /// The board.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The layout's start, Pacman to move.
    pub fn start(&self) -> Turn {
        Turn { state: self.board.initial_state(), agent: 0 }
    }

    /// `state` with Pacman to move.
    pub fn pacman_to_move(&self, state: PacmanState) -> Turn {
        Turn { state, agent: 0 }
    }
}

impl Rules for PacmanRules {
    type State = Turn;
    type Action = Direction;

    fn kind(&self, turn: &Turn) -> NodeKind {
        match (turn.state.is_over(), turn.agent) {
            (true, _) => NodeKind::Terminal,
            (false, 0) => NodeKind::Max,
            (false, _) => self.ghost_nodes,
        }
    }

    fn moves(&self, turn: &Turn, out: &mut Vec<Move<Direction, Turn>>) {
        let Ok(mut legal) = self.board.legal_actions(&turn.state, turn.agent) else { return };
        if turn.agent == 0 && self.stop == StopRule::Removed {
            legal.retain(|&direction| direction != Direction::Stop);
        }
        let next = (turn.agent + 1) % self.board.agents;
        let probability = 1.0 / legal.len() as f64;
        for action in legal {
            if let Ok(state) = self.board.successor(&turn.state, turn.agent, action) {
                out.push(Move { action, state: Turn { state, agent: next }, probability });
            }
        }
    }

    fn utility(&self, turn: &Turn, _ply: u32) -> f64 {
        turn.state.score as f64
    }

    fn evaluations(&self) -> &[&'static str] {
        &["score"]
    }

    fn evaluate(&self, _which: usize, turn: &Turn) -> f64 {
        turn.state.score as f64
    }

    fn action_name(&self, action: Direction, out: &mut String) {
        out.push_str(action.name());
    }

    fn state_json(&self, turn: &Turn) -> serde_json::Value {
        let state = &turn.state;
        let agents: Vec<serde_json::Value> = state
            .agents
            .iter()
            .map(|agent| {
                let (x, y) = agent.configuration.position();
                json!({"position": [x, y], "direction": agent.configuration.direction.name(), "scared": agent.scared})
            })
            .collect();
        json!({
            "agents": agents,
            "food": state.food.count(),
            "capsules": state.capsules,
            "score": state.score,
            "to_move": (!state.is_over()).then_some(turn.agent),
        })
    }

    fn board(&self, turn: &Turn) -> Option<String> {
        Some(self.board.draw(&turn.state))
    }

    fn has_chance(&self) -> bool {
        self.ghost_nodes == NodeKind::Chance
    }

    fn unbounded(&self) -> bool {
        // Pacman may stop, and ghosts may circle, for ever.
        true
    }
}

/// A Pacman game from its layout's start, as a [`Game`].
pub fn game(name: &str, rules: PacmanRules) -> Box<dyn Game> {
    let start = rules.start();
    Box::new(Configured::new(name, rules, start))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Algorithm, SearchSettings};
    use crate::game::pacman::layout::tests::SMALL;
    use crate::game::{UnfoldOptions, make};

    #[test]
    fn a_pacman_file_is_a_game_searched_at_a_depth() {
        let params = vec![("layout".to_string(), json!(SMALL)), ("ghost_nodes".to_string(), json!("chance"))];
        let game = make(&GameArgs { name: "pacman", params: &params, position: None, utility: None }).unwrap();
        assert!(game.has_chance() && game.unbounded());
        let options = UnfoldOptions { eval: Some("score".into()), ..UnfoldOptions::default() };
        let tree = game.unfold(&options).unwrap();
        let settings = SearchSettings { depth: Some(3), ..SearchSettings::new(Algorithm::Expectimax) };
        let outcome = crate::engine::search(&*tree, &settings).unwrap();
        let actions: Vec<String> =
            tree.children(crate::tree::NodeIndex::ROOT).map(|c| tree.action(c).into_owned()).collect();
        assert_eq!(actions, ["West", "Stop", "East"]);
        assert!(outcome.action.is_some());
        assert!(tree.board(crate::tree::NodeIndex::ROOT).unwrap().ends_with("Score: 0\n"));
    }

    #[test]
    fn wrong_parameters_are_placed() {
        let bad = |params: Vec<(String, serde_json::Value)>| {
            make(&GameArgs { name: "pacman", params: &params, position: None, utility: None }).unwrap_err()
        };
        assert_eq!(bad(vec![]).site, ArgSite::Rules);
        let open = bad(vec![("layout".into(), json!("%%%\n%P.\n%%%"))]);
        assert_eq!(open.site, ArgSite::Param("layout".into()));
        assert!(open.message.contains("not a wall"), "{}", open.message);
        let too_many = bad(vec![("layout".into(), json!(SMALL)), ("ghosts".into(), json!(3))]);
        assert_eq!(too_many.site, ArgSite::Param("ghosts".into()));
    }
}
