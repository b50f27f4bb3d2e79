//! The states of one Pacman game as the grader serves them to the kit.
//!
//! The grader is the only source of successors: the kit asks for the state
//! after an agent's move, and the grader computes it with the game's rules
//! ([`Board::successor`]), numbers it, and sends it. A state is sent in full
//! the first time, and by its id afterwards; equal states (as CS188 compares
//! them) share an `eq` number, which is what the kit's `==` and `hash` use and
//! what CS188's `explored` set counts: in a move where the grader counts, each
//! successor request adds the state it is asked on and the state it returns.

use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};

use crate::game::pacman::{Board, Direction, Grid, MoveError, OwnedValue, PacmanState};
use crate::grader::protocol::{WireAgent, WireState, push_pacman_state, push_pacman_state_id};

/// The exception CS188's `GameState` raises where the kit asks for a
/// successor it has not, as its message: the grader sends it to the
/// student's program, whose code sees it raised.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SuccessorError {
    /// An id the grader never sent.
    #[error("there is no state {0} in this game")]
    NoState(u64),
    /// An agent index the game does not have.
    #[error("Invalid index passed to getGhostState: agent {agent} (this game has agents 0 to {})", .agents - 1)]
    NoAgent {
        /// The index asked for.
        agent: i64,
        /// How many agents play (at least Pacman).
        agents: usize,
    },
    /// A move that is not the agent's to make, as the kit spelled it.
    #[error("{} {action}", if *.ghost { "Illegal ghost action" } else { "Illegal action" })]
    Illegal {
        /// Whether a ghost (not Pacman) was to move.
        ghost: bool,
        /// The action asked for.
        action: String,
    },
    /// Any other refusal of the game's rules (a successor of a finished game).
    #[error(transparent)]
    Move(#[from] MoveError),
}

/// How the kit asks for successors in a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Serving {
    /// One request per successor, asked again at every move: the grader
    /// counts the states each move explores (CS188's game tests).
    Counted,
    /// One request gives the successors of every legal move of that agent,
    /// which the kit keeps for the whole game (games scored by their outcome).
    Prefetched,
}

/// A state the way the kit must see it: its value, and also which
/// positions Python holds as integers and whether the game is over.
#[derive(Clone, Debug)]
struct Exact(PacmanState);

impl PartialEq for Exact {
    fn eq(&self, other: &Exact) -> bool {
        let (a, b) = (&self.0, &other.0);
        a.value() == b.value()
            && (a.win, a.lose) == (b.win, b.lose)
            && a.agents.iter().zip(&b.agents).all(|(x, y)| x.configuration.integral == y.configuration.integral)
    }
}

impl Eq for Exact {}

impl Hash for Exact {
    fn hash<H: Hasher>(&self, hasher: &mut H) {
        self.0.value().hash(hasher);
        (self.0.win, self.0.lose).hash(hasher);
    }
}

struct Entry {
    state: PacmanState,
    eq: u32,
    food: u32,
    sent: bool,
}

/// One game's states.
pub struct StateServer<'b> {
    board: &'b Board,
    serving: Serving,
    states: Vec<Entry>,
    ids: HashMap<Exact, u32>,
    values: HashMap<OwnedValue, u32>,
    foods: HashMap<Grid, u32>,
    food_sent: Vec<bool>,
    explored: HashSet<u32>,
}

impl<'b> StateServer<'b> {
    /// A game on `board`, its successors served as `serving` says.
    pub fn new(board: &'b Board, serving: Serving) -> StateServer<'b> {
        StateServer {
            board,
            serving,
            states: Vec::new(),
            ids: HashMap::new(),
            values: HashMap::new(),
            foods: HashMap::new(),
            food_sent: Vec::new(),
            explored: HashSet::new(),
        }
    }

    /// How successors are served.
    pub fn serving(&self) -> Serving {
        self.serving
    }

    /// The id of `state`, numbering it if it is new.
    pub fn intern(&mut self, state: PacmanState) -> u32 {
        let exact = Exact(state);
        if let Some(&id) = self.ids.get(&exact) {
            return id;
        }
        let state = exact.0;
        let next_eq = self.values.len() as u32;
        let eq = *self.values.entry(OwnedValue(state.clone())).or_insert(next_eq);
        let next_food = self.foods.len() as u32;
        let food = *self.foods.entry((*state.food).clone()).or_insert(next_food);
        if food as usize == self.food_sent.len() {
            self.food_sent.push(false);
        }
        let id = self.states.len() as u32;
        self.ids.insert(Exact(state.clone()), id);
        self.states.push(Entry { state, eq, food, sent: false });
        id
    }

    /// The state numbered `id`.
    pub fn state(&self, id: u32) -> &PacmanState {
        &self.states[id as usize].state
    }

    /// A new move starts: the explored states are counted afresh.
    pub fn begin_move(&mut self) {
        self.explored.clear();
    }

    /// Distinct states explored in this move so far (CS188's `len(GameState.explored)`).
    pub fn explored(&self) -> usize {
        self.explored.len()
    }

    /// Answers `successor`: the ids to send, or the exception CS188 would
    /// raise (as its message).
    pub fn successor(&mut self, id: u64, agent: i64, action: &str) -> Result<Vec<u32>, SuccessorError> {
        let Some(entry) = usize::try_from(id).ok().and_then(|id| self.states.get(id)) else {
            return Err(SuccessorError::NoState(id));
        };
        let parent = entry.state.clone();
        let parent_eq = entry.eq;
        let agents = parent.agents.len();
        let agent = usize::try_from(agent)
            .ok()
            .filter(|&agent| agent < agents)
            .ok_or(SuccessorError::NoAgent { agent, agents })?;
        let illegal = || SuccessorError::Illegal { ghost: agent != 0, action: action.to_string() };
        let direction = Direction::parse(action).ok_or_else(illegal)?;
        let next = self.board.successor(&parent, agent, direction).map_err(|error| match error {
            MoveError::Illegal { .. } => illegal(),
            other => SuccessorError::Move(other),
        })?;
        match self.serving {
            Serving::Counted => {
                let child = self.intern(next);
                self.explored.insert(parent_eq);
                self.explored.insert(self.states[child as usize].eq);
                Ok(vec![child])
            }
            Serving::Prefetched => {
                let legal = self.board.legal_actions(&parent, agent)?;
                let mut ids = Vec::with_capacity(legal.len());
                for other in legal {
                    let state =
                        if other == direction { next.clone() } else { self.board.successor(&parent, agent, other)? };
                    ids.push(self.intern(state));
                }
                Ok(ids)
            }
        }
    }

    /// Appends state `id` as the protocol sends it: in full the first
    /// time, by its id afterwards.
    pub fn push(&mut self, id: u32, out: &mut String) {
        let entry = &self.states[id as usize];
        if entry.sent {
            push_pacman_state_id(out, id);
            return;
        }
        let state = &entry.state;
        let agents: Vec<WireAgent> = state
            .agents
            .iter()
            .map(|agent| WireAgent {
                x2: agent.configuration.x2,
                y2: agent.configuration.y2,
                integral: agent.configuration.integral,
                direction: agent.configuration.direction.name(),
                scared: agent.scared,
            })
            .collect();
        let legal: Vec<String> = (0..state.agents.len())
            .map(|agent| {
                let moves = self.board.legal_actions(state, agent).unwrap_or_default();
                moves.iter().map(|direction| direction.letter()).collect()
            })
            .collect();
        let food = entry.food;
        let grid = (!self.food_sent[food as usize]).then(|| state.food.columns());
        push_pacman_state(
            out,
            &WireState {
                id,
                eq: entry.eq,
                agents: &agents,
                food,
                grid: grid.as_deref(),
                capsules: &state.capsules,
                score: state.score,
                win: state.win,
                lose: state.lose,
                legal: &legal,
            },
        );
        self.food_sent[food as usize] = true;
        self.states[id as usize].sent = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::pacman::Layout;

    const TINY: &str = "%%%%%%\n%P..G%\n%%%%%%";

    #[test]
    fn counted_moves_count_distinct_states_and_states_go_once_in_full() {
        let board = Board::new(Layout::parse(TINY).unwrap(), 1);
        let mut server = StateServer::new(&board, Serving::Counted);
        let start = server.intern(board.initial_state());
        let mut line = String::new();
        server.push(start, &mut line);
        assert_eq!(
            line,
            "{\"id\":0,\"eq\":0,\"agents\":[[1,1,\"Stop\",0],[4,1,\"Stop\",0]],\"food\":0,\"grid\":[\"000\",\"000\",\"010\",\"010\",\"000\",\"000\"],\
             \"capsules\":[],\"score\":0,\"win\":false,\"lose\":false,\"legal\":[\"XE\",\"W\"]}"
        );
        line.clear();
        server.push(start, &mut line);
        assert_eq!(line, "{\"id\":0}");
        server.begin_move();
        let east = server.successor(0, 0, "East").unwrap();
        assert_eq!(server.successor(0, 0, "East").unwrap(), east, "the same state, the same id");
        let ghost = server.successor(0, 1, "West").unwrap();
        assert_eq!(server.explored(), 3);
        line.clear();
        server.push(ghost[0], &mut line);
        assert!(line.contains("[3.0,1.0,\"West\",0]") && line.contains("\"food\":0,\"capsules\""), "{line}");
        assert_eq!(server.successor(0, 1, "East").unwrap_err().to_string(), "Illegal ghost action East");
        assert_eq!(server.successor(0, 0, "Jump").unwrap_err().to_string(), "Illegal action Jump");
        assert_eq!(
            server.successor(0, 2, "West").unwrap_err().to_string(),
            "Invalid index passed to getGhostState: agent 2 (this game has agents 0 to 1)"
        );
        assert_eq!(server.successor(99, 0, "West").unwrap_err().to_string(), "there is no state 99 in this game");
    }

    #[test]
    fn prefetched_requests_give_every_move_of_the_agent() {
        let board = Board::new(Layout::parse(TINY).unwrap(), 1);
        let mut server = StateServer::new(&board, Serving::Prefetched);
        server.intern(board.initial_state());
        let ids = server.successor(0, 0, "East").unwrap();
        assert_eq!(ids.len(), 2, "Stop and East");
        assert_eq!(server.state(ids[1]).score, 9);
        assert_eq!(server.explored(), 0, "nothing is counted");
    }
}
