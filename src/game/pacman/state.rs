//! Pacman's positions and moves, as CS188's `pacman.py` and `game.py` make them.
//!
//! Every rule here is CS188's (Fall 2023 distribution), measured on its
//! original code (docs/format.md, "Pacman"):
//!
//! - legal moves in the order West, Stop, East, North, South: each move
//!   whose next cell is not a wall; between two cells only straight on;
//!   a ghost never stops and reverses only where it has no other move;
//! - Pacman moves one cell; eating food is +10, the last food +500 and a
//!   win; a capsule scares every ghost for [`SCARED_TIME`] moves; every
//!   Pacman move costs 1;
//! - a scared ghost moves half a cell; its timer falls by one on each of its
//!   own moves, and on the move that takes it from 1 to 0 the ghost snaps
//!   to the nearest cell;
//! - contact is a Manhattan distance of at most 0.7 between Pacman and a
//!   ghost: a scared ghost is eaten (+200, back to its start, no longer
//!   scared), any other ghost costs 500 and the game (unless Pacman has just
//!   won); after Pacman's move every ghost is checked, after a ghost's move
//!   that ghost.
//!
//! Positions are kept in half cells, exactly as Python's floats hold them,
//! together with whether Python holds them as integers (Pacman always, a
//! ghost at its start or after the snap) or as floats (a ghost that has
//! moved): students' code sees the difference (`(3, 1)` or `(3.0, 1.0)`).

use std::hash::{Hash, Hasher};
use std::sync::Arc;

use super::layout::{Cell, Grid, Layout};

/// Moves a ghost stays scared after Pacman eats a capsule (`SCARED_TIME`).
pub const SCARED_TIME: u32 = 40;
/// Points lost on every Pacman move (`TIME_PENALTY`).
pub const TIME_PENALTY: i64 = 1;

/// A direction, as CS188's `Directions` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Direction {
    /// `North`: y + 1.
    North,
    /// `South`: y - 1.
    South,
    /// `East`: x + 1.
    East,
    /// `West`: x - 1.
    West,
    /// `Stop`: no move.
    Stop,
}

impl Direction {
    /// The order in which `getLegalActions` lists moves.
    pub const LEGAL_ORDER: [Direction; 5] =
        [Direction::West, Direction::Stop, Direction::East, Direction::North, Direction::South];

    /// CS188's name: `North`, `South`, `East`, `West`, `Stop`.
    pub fn name(self) -> &'static str {
        match self {
            Direction::North => "North",
            Direction::South => "South",
            Direction::East => "East",
            Direction::West => "West",
            Direction::Stop => "Stop",
        }
    }

    /// The direction with this CS188 name.
    pub fn parse(name: &str) -> Option<Direction> {
        Direction::LEGAL_ORDER.into_iter().find(|direction| direction.name() == name)
    }

    /// One letter for the protocol: `N`, `S`, `E`, `W`, and `X` for Stop.
    pub fn letter(self) -> char {
        match self {
            Direction::North => 'N',
            Direction::South => 'S',
            Direction::East => 'E',
            Direction::West => 'W',
            Direction::Stop => 'X',
        }
    }

    /// The unit vector (`Actions.directionToVector`).
    pub fn vector(self) -> (i32, i32) {
        match self {
            Direction::North => (0, 1),
            Direction::South => (0, -1),
            Direction::East => (1, 0),
            Direction::West => (-1, 0),
            Direction::Stop => (0, 0),
        }
    }

    /// The opposite direction (`Actions.reverseDirection`; Stop is its own).
    pub fn reverse(self) -> Direction {
        match self {
            Direction::North => Direction::South,
            Direction::South => Direction::North,
            Direction::East => Direction::West,
            Direction::West => Direction::East,
            Direction::Stop => Direction::Stop,
        }
    }
}

/// Where an agent is and which way it faces (CS188's `Configuration`).
#[derive(Clone, Copy, Debug)]
pub struct Configuration {
    /// x in half cells.
    pub x2: i32,
    /// y in half cells.
    pub y2: i32,
    /// Whether Python holds the position as integers (else as floats).
    pub integral: bool,
    /// The direction of the last move (Stop at the start).
    pub direction: Direction,
}

impl Configuration {
    /// An agent standing on `cell`, facing Stop, as a layout starts it.
    pub fn at(cell: Cell) -> Configuration {
        Configuration {
            x2: 2 * i32::from(cell.0),
            y2: 2 * i32::from(cell.1),
            integral: true,
            direction: Direction::Stop,
        }
    }

    /// The position as Python's numbers (halves are exact).
    pub fn position(&self) -> (f64, f64) {
        (f64::from(self.x2) / 2.0, f64::from(self.y2) / 2.0)
    }

    /// The nearest cell (`util.nearestPoint`: `int(x + 0.5)`).
    pub fn nearest(&self) -> (i32, i32) {
        ((self.x2 + 1).div_euclid(2), (self.y2 + 1).div_euclid(2))
    }

    /// Whether the agent stands between two cells.
    pub fn between_cells(&self) -> bool {
        self.x2 % 2 != 0 || self.y2 % 2 != 0
    }

    /// The same agent moved by `direction` at `halves` half cells per move
    /// (`Configuration.generateSuccessor`): a Stop keeps the direction.
    fn moved(&self, direction: Direction, halves: i32, integral: bool) -> Configuration {
        let (dx, dy) = direction.vector();
        Configuration {
            x2: self.x2 + dx * halves,
            y2: self.y2 + dy * halves,
            integral,
            direction: if direction == Direction::Stop { self.direction } else { direction },
        }
    }

    /// Equal as Python compares configurations: position (an int equals the
    /// same float) and direction.
    fn same(&self, other: &Configuration) -> bool {
        self.x2 == other.x2 && self.y2 == other.y2 && self.direction == other.direction
    }
}

/// An agent in a state (CS188's `AgentState`): where, and how long still scared.
#[derive(Clone, Copy, Debug)]
pub struct AgentState {
    /// Where and which way.
    pub configuration: Configuration,
    /// Moves left scared (0: not scared; Pacman's is always 0).
    pub scared: u32,
}

/// The board and the agents' starts: what every state of a game shares.
#[derive(Clone, Debug)]
pub struct Board {
    /// The layout read.
    pub layout: Layout,
    /// Agents in play: Pacman and the first `ghosts` ghosts of the layout.
    pub agents: usize,
}

impl Board {
    /// A board with as many ghosts as the layout has starts for, at most
    /// `ghosts` (CS188 plays `ghostAgents[:layout.getNumGhosts()]`).
    pub fn new(layout: Layout, ghosts: usize) -> Board {
        let agents = 1 + ghosts.min(layout.ghosts.len());
        Board { layout, agents }
    }

    /// Where agent `index` starts.
    pub fn start(&self, index: usize) -> Configuration {
        Configuration::at(if index == 0 { self.layout.pacman } else { self.layout.ghosts[index - 1] })
    }

    fn wall(&self, x: i32, y: i32) -> bool {
        // The border is walled (Layout::parse checks it): a cell off the board is never reached.
        match (u16::try_from(x), u16::try_from(y)) {
            (Ok(x), Ok(y)) => self.layout.walls.get((x, y)),
            _ => true,
        }
    }

    /// The start of a game: food, capsules and agents as the layout places them.
    pub fn initial_state(&self) -> PacmanState {
        PacmanState {
            agents: (0..self.agents).map(|i| AgentState { configuration: self.start(i), scared: 0 }).collect(),
            food: Arc::new(self.layout.food.clone()),
            capsules: self.layout.capsules.clone(),
            score: 0,
            win: false,
            lose: false,
        }
    }

    /// `Actions.getPossibleActions`: straight on between cells, else every
    /// move whose next cell is open, in [`Direction::LEGAL_ORDER`].
    fn possible(&self, configuration: &Configuration) -> Vec<Direction> {
        if configuration.between_cells() {
            return vec![configuration.direction];
        }
        let (x, y) = configuration.nearest();
        Direction::LEGAL_ORDER
            .into_iter()
            .filter(|direction| {
                let (dx, dy) = direction.vector();
                !self.wall(x + dx, y + dy)
            })
            .collect()
    }

    /// `state.getLegalActions(agent)`: none when the game is over; Pacman's
    /// possible moves; a ghost's without Stop and, unless it is its only
    /// move, without turning back.
    pub fn legal_actions(&self, state: &PacmanState, agent: usize) -> Result<Vec<Direction>, MoveError> {
        if agent >= state.agents.len() {
            return Err(MoveError::NoSuchAgent { agent, agents: state.agents.len() });
        }
        if state.is_over() {
            return Ok(Vec::new());
        }
        let configuration = state.agents[agent].configuration;
        let mut possible = self.possible(&configuration);
        if agent > 0 {
            possible.retain(|&direction| direction != Direction::Stop);
            let reverse = configuration.direction.reverse();
            if possible.len() > 1 {
                possible.retain(|&direction| direction != reverse);
            }
        }
        Ok(possible)
    }

    /// `state.generateSuccessor(agent, action)`: the state after `agent` takes `action`.
    pub fn successor(&self, state: &PacmanState, agent: usize, action: Direction) -> Result<PacmanState, MoveError> {
        if state.is_over() {
            return Err(MoveError::GameOver);
        }
        let legal = self.legal_actions(state, agent)?;
        if !legal.contains(&action) {
            return Err(MoveError::Illegal { agent, action, legal });
        }
        let mut next = PacmanState { win: false, lose: false, ..state.clone() };
        let mut change = 0i64;
        if agent == 0 {
            let pacman = &mut next.agents[0];
            pacman.configuration = pacman.configuration.moved(action, 2, pacman.configuration.integral);
            next.eat(&mut change);
            change -= TIME_PENALTY;
        } else {
            let ghost = &mut next.agents[agent];
            let halves = if ghost.scared > 0 { 1 } else { 2 };
            ghost.configuration = ghost.configuration.moved(action, halves, false);
            if ghost.scared == 1 {
                let (x, y) = ghost.configuration.nearest();
                ghost.configuration = Configuration { x2: 2 * x, y2: 2 * y, integral: true, ..ghost.configuration };
            }
            ghost.scared = ghost.scared.saturating_sub(1);
        }
        let touched: Vec<usize> = if agent == 0 { (1..next.agents.len()).collect() } else { vec![agent] };
        for ghost in touched {
            self.check_contact(&mut next, ghost, &mut change);
        }
        next.score += change;
        Ok(next)
    }

    /// The state drawn as CS188's `str(state)` draws it: food `.`, walls
    /// `%`, Pacman by the way he faces (`<` `>` `^` `v`), ghosts `G`,
    /// capsules `o` (drawn last), then `Score: N`.
    pub fn draw(&self, state: &PacmanState) -> String {
        let (width, height) = (self.layout.width(), self.layout.height());
        let mut cells: Vec<Vec<char>> = (0..height)
            .map(|y| {
                (0..width)
                    .map(|x| match (state.food.get((x, y)), self.layout.walls.get((x, y))) {
                        (true, _) => '.',
                        (false, true) => '%',
                        (false, false) => ' ',
                    })
                    .collect()
            })
            .collect();
        let mut put = |x: i32, y: i32, symbol: char| {
            if let (Ok(x), Ok(y)) = (usize::try_from(x), usize::try_from(y))
                && let Some(cell) = cells.get_mut(y).and_then(|row| row.get_mut(x))
            {
                *cell = symbol;
            }
        };
        for (index, agent) in state.agents.iter().enumerate() {
            let (x, y) = agent.configuration.nearest();
            let symbol = match (index, agent.configuration.direction) {
                (0, Direction::North) => 'v',
                (0, Direction::South) => '^',
                (0, Direction::West) => '>',
                (0, _) => '<',
                _ => 'G',
            };
            put(x, y, symbol);
        }
        for &(x, y) in &state.capsules {
            put(i32::from(x), i32::from(y), 'o');
        }
        let rows: Vec<String> = cells.iter().rev().map(|row| row.iter().collect()).collect();
        format!("{}\nScore: {}\n", rows.join("\n"), state.score)
    }

    /// `GhostRules.checkDeath` for one ghost: within 0.7 of Pacman, a scared
    /// ghost is eaten and goes home, any other catches Pacman.
    fn check_contact(&self, state: &mut PacmanState, ghost: usize, change: &mut i64) {
        let pacman = state.agents[0].configuration;
        let at = state.agents[ghost].configuration;
        // Half cells are integers: a distance of at most 0.7 is at most one half cell.
        if (pacman.x2 - at.x2).abs() + (pacman.y2 - at.y2).abs() > 1 {
            return;
        }
        let agent = &mut state.agents[ghost];
        if agent.scared > 0 {
            *change += 200;
            agent.configuration = self.start(ghost);
            agent.scared = 0;
        } else if !state.win {
            *change -= 500;
            state.lose = true;
        }
    }
}

/// Why a move cannot be made, in CS188's terms.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    /// A successor of a won or lost state.
    #[error("Can't generate a successor of a terminal state.")]
    GameOver,
    /// An agent index the game does not have.
    #[error("there is no agent {agent} (agents are 0 to {})", agents - 1)]
    NoSuchAgent {
        /// The index asked for.
        agent: usize,
        /// How many agents play.
        agents: usize,
    },
    /// A move that is not among the agent's legal actions.
    #[error("{} {}", if *agent == 0 { "Illegal action" } else { "Illegal ghost action" }, action.name())]
    Illegal {
        /// Who.
        agent: usize,
        /// What.
        action: Direction,
        /// What it could do.
        legal: Vec<Direction>,
    },
}

/// One state of a game (CS188's `GameStateData` behind a `GameState`).
#[derive(Clone, Debug)]
pub struct PacmanState {
    /// Pacman (index 0), then the ghosts in play.
    pub agents: Vec<AgentState>,
    /// The food left (shared between states until some is eaten).
    pub food: Arc<Grid>,
    /// The capsules left, in the layout's order.
    pub capsules: Vec<Cell>,
    /// The score.
    pub score: i64,
    /// Pacman has eaten the last food.
    pub win: bool,
    /// A ghost has caught Pacman.
    pub lose: bool,
}

impl PacmanState {
    /// Won or lost: no agent moves any more.
    pub fn is_over(&self) -> bool {
        self.win || self.lose
    }

    /// `PacmanRules.consume` at Pacman's nearest cell: food, then a capsule.
    fn eat(&mut self, change: &mut i64) {
        let pacman = self.agents[0].configuration;
        let (x, y) = pacman.nearest();
        // Pacman moves whole cells, so he always stands within 0.5 of the nearest one.
        let Ok(cell) = u16::try_from(x).and_then(|x| u16::try_from(y).map(|y| (x, y))) else { return };
        if self.food.get(cell) {
            *change += 10;
            Arc::make_mut(&mut self.food).set(cell, false);
            if self.food.count() == 0 && !self.lose {
                *change += 500;
                self.win = true;
            }
        }
        if let Some(at) = self.capsules.iter().position(|&capsule| capsule == cell) {
            self.capsules.remove(at);
            for ghost in &mut self.agents[1..] {
                ghost.scared = SCARED_TIME;
            }
        }
    }

    /// The state as CS188 compares states (`GameState.__eq__`): agents'
    /// positions, directions and scared timers, food, capsules and score;
    /// not whose turn it is, nor whether a position is held as integers.
    pub fn value(&self) -> StateValue<'_> {
        StateValue(self)
    }
}

/// A state compared and hashed as CS188 compares states: what its
/// `explored` set counts (see [`PacmanState::value`]).
#[derive(Clone, Copy, Debug)]
pub struct StateValue<'a>(&'a PacmanState);

impl PartialEq for StateValue<'_> {
    fn eq(&self, other: &Self) -> bool {
        let (a, b) = (self.0, other.0);
        a.score == b.score
            && a.agents.len() == b.agents.len()
            && a.agents
                .iter()
                .zip(&b.agents)
                .all(|(x, y)| x.scared == y.scared && x.configuration.same(&y.configuration))
            && a.capsules == b.capsules
            && (Arc::ptr_eq(&a.food, &b.food) || a.food == b.food)
    }
}

impl Eq for StateValue<'_> {}

impl Hash for StateValue<'_> {
    fn hash<H: Hasher>(&self, hasher: &mut H) {
        let state = self.0;
        state.score.hash(hasher);
        for agent in &state.agents {
            let configuration = agent.configuration;
            (configuration.x2, configuration.y2, configuration.direction, agent.scared).hash(hasher);
        }
        state.capsules.hash(hasher);
        state.food.hash(hasher);
    }
}

/// A state's value held on its own, as a key of a map (see [`PacmanState::value`]).
#[derive(Clone, Debug)]
pub struct OwnedValue(pub PacmanState);

impl PartialEq for OwnedValue {
    fn eq(&self, other: &Self) -> bool {
        self.0.value() == other.0.value()
    }
}

impl Eq for OwnedValue {}

impl Hash for OwnedValue {
    fn hash<H: Hasher>(&self, hasher: &mut H) {
        self.0.value().hash(hasher);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::pacman::layout::tests::SMALL;

    fn small(ghosts: usize) -> Board {
        Board::new(Layout::parse(SMALL).unwrap(), ghosts)
    }

    fn step(board: &Board, state: &PacmanState, agent: usize, name: &str) -> PacmanState {
        board.successor(state, agent, Direction::parse(name).unwrap()).unwrap()
    }

    fn names(actions: Vec<Direction>) -> Vec<&'static str> {
        actions.into_iter().map(Direction::name).collect()
    }

    #[test]
    fn legal_actions_come_in_cs188s_order() {
        let board = small(2);
        let start = board.initial_state();
        assert_eq!(names(board.legal_actions(&start, 0).unwrap()), ["West", "Stop", "East"]);
        // Ghost 1 at (8, 5) faces Stop, walled in but to the East.
        assert_eq!(names(board.legal_actions(&start, 1).unwrap()), ["East"]);
        let moved = step(&board, &start, 1, "East");
        assert_eq!(names(board.legal_actions(&moved, 1).unwrap()), ["East", "South"], "no turning back");
        assert_eq!(board.legal_actions(&start, 3), Err(MoveError::NoSuchAgent { agent: 3, agents: 3 }));
    }

    #[test]
    fn every_pacman_move_costs_one_and_food_gives_ten() {
        let board = small(2);
        let start = board.initial_state();
        let west = step(&board, &start, 0, "West");
        assert_eq!((west.score, west.food.count()), (9, 54));
        assert_eq!(west.agents[0].configuration.direction, Direction::West);
        let stop = step(&board, &west, 0, "Stop");
        assert_eq!(
            (stop.score, stop.agents[0].configuration.direction),
            (8, Direction::West),
            "Stop keeps the direction"
        );
        assert!(Arc::ptr_eq(&stop.food, &west.food), "uneaten food is shared");
        assert!(
            stop.agents[0].configuration.integral && !step(&board, &start, 1, "East").agents[1].configuration.integral
        );
        let error = board.successor(&start, 0, Direction::North).unwrap_err();
        assert_eq!(error.to_string(), "Illegal action North");
        assert_eq!(board.successor(&start, 1, Direction::West).unwrap_err().to_string(), "Illegal ghost action West");
    }

    #[test]
    fn a_capsule_scares_ghosts_who_then_move_half_cells_and_snap_back() {
        let board = small(1);
        let mut state = board.initial_state();
        state.agents[0].configuration = Configuration::at((4, 3));
        let ate = step(&board, &state, 0, "West");
        assert_eq!((ate.capsules.as_slice(), ate.agents[1].scared, ate.score), (&[(16, 3)][..], SCARED_TIME, -1));
        let ghost = step(&board, &ate, 1, "East");
        let configuration = ghost.agents[1].configuration;
        assert_eq!((configuration.position(), ghost.agents[1].scared), ((8.5, 5.0), 39));
        assert_eq!(names(board.legal_actions(&ghost, 1).unwrap()), ["East"], "straight on between cells");
        let mut last = ghost.clone();
        last.agents[1].scared = 1;
        let snapped = step(&board, &last, 1, "East");
        let configuration = snapped.agents[1].configuration;
        assert_eq!((configuration.position(), configuration.integral, snapped.agents[1].scared), ((9.0, 5.0), true, 0));
    }

    #[test]
    fn contact_eats_a_scared_ghost_and_kills_pacman_otherwise() {
        let board = small(1);
        let mut state = board.initial_state();
        state.agents[0].configuration = Configuration::at((9, 4));
        state.agents[1].configuration = Configuration { x2: 18, y2: 10, integral: false, direction: Direction::South };
        state.agents[1].scared = 5;
        let eaten = step(&board, &state, 1, "South");
        assert_eq!(eaten.score, 200);
        assert_eq!((eaten.agents[1].scared, eaten.agents[1].configuration.position()), (0, (8.0, 5.0)));
        state.agents[1].scared = 0;
        state.agents[1].configuration = Configuration::at((9, 5));
        let caught = step(&board, &state, 1, "South");
        assert!(caught.lose && caught.score == -500);
        assert_eq!(board.successor(&caught, 0, Direction::Stop).unwrap_err(), MoveError::GameOver);
        assert!(board.legal_actions(&caught, 0).unwrap().is_empty());
    }

    #[test]
    fn the_last_food_wins_with_500() {
        let board = Board::new(Layout::parse("%%%%%\n%P.G%\n%%%%%").unwrap(), 1);
        let mut state = board.initial_state();
        state.agents[1].configuration = Configuration::at((2, 1));
        let won = step(&board, &state, 0, "East");
        assert!(won.win && !won.lose, "a ghost on the last food does not kill the winner");
        assert_eq!(won.score, 10 + 500 - 1);
    }

    #[test]
    fn states_compare_as_cs188_compares_them() {
        let board = small(2);
        let start = board.initial_state();
        let there = step(&board, &step(&board, &start, 0, "West"), 0, "East");
        assert_ne!(there.value(), start.value(), "the score differs");
        let mut same = start.clone();
        same.agents[0].configuration.integral = false;
        same.food = Arc::new((*start.food).clone());
        assert_eq!(same.value(), start.value(), "an int equals the same float; food by content");
        let mut set = std::collections::HashSet::new();
        set.insert(OwnedValue(start.clone()));
        assert!(set.contains(&OwnedValue(same)));
    }
}
