//! One game between two agents, from the start to its end, every move checked.
//!
//! The referee holds the position as a game advanced by the moves played,
//! and at each ply unfolds it to learn whose turn it is and the legal moves:
//! opening moves are drawn at random (the same for both games of a pair),
//! chance moves are drawn with their probabilities, and players' moves are
//! asked of the agent in that seat. A move that is not legal, or no move at
//! all, ends the game as a loss of the side that caused it.

use std::sync::Arc;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::position::Position;
use super::{Agent, Clock, Fault, FaultKind, MoveLimits, Seat, Turn};
use crate::engine::random::{SplitMix64, chance_pick, uniform_pick};
use crate::game::{Game, UnfoldOptions};
use crate::tree::{NodeIndex, NodeKind};

/// The most nodes one ply's unfolding may make (the referee makes only the
/// root's children; a game whose position has more moves is not playable).
const REFEREE_NODES: usize = 100_000;

/// How many times an opening is drawn again when it ends the game.
const OPENING_DRAWS: u64 = 100;

/// Labels of the streams derived from a game's seed.
const CHANCE_STREAM: u64 = 1;
const OPENING_STREAM: u64 = 2;
const AGENT_STREAM: u64 = 3;

/// What one game is: its name, its seed, its openings and limits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameSetup {
    /// The name reports give it (`q5/random/3`).
    pub label: String,
    /// Its number in its series: its chance moves and agents' seeds derive from it.
    pub index: u64,
    /// The series' seed.
    pub seed: u64,
    /// Games with the same key get the same opening (the two games of a pair).
    pub opening_key: u64,
    /// Random plies played before the agents take over.
    pub openings: u32,
    /// A game still going after this many plies ends as a draw.
    pub max_plies: u32,
    /// What bounds each move.
    pub limits: MoveLimits,
}

impl GameSetup {
    /// Plies a game may last unless a question says otherwise.
    pub const DEFAULT_MAX_PLIES: u32 = 1000;
}

/// Who made a ply.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mover {
    /// A random opening move.
    Opening,
    /// Nature (a chance node).
    Chance,
    /// The agent playing MAX.
    Max,
    /// The agent playing MIN.
    Min,
}

impl Mover {
    fn of(seat: Seat) -> Mover {
        match seat {
            Seat::Max => Mover::Max,
            Seat::Min => Mover::Min,
        }
    }

    /// The seat of an agent's move, `None` for an opening or chance move.
    pub fn seat(self) -> Option<Seat> {
        match self {
            Mover::Max => Some(Seat::Max),
            Mover::Min => Some(Seat::Min),
            Mover::Opening | Mover::Chance => None,
        }
    }
}

/// One ply of a game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlyRecord {
    /// The action played.
    pub action: String,
    /// Who played it.
    pub by: Mover,
    /// Nodes the agent entered to choose it (0 for openings and chance).
    #[serde(default)]
    pub entered: u64,
    /// What bounded the agent's move (absent for openings and chance).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<Clock>,
    /// Wall-clock time of the agent's move, in milliseconds.
    #[serde(default)]
    pub elapsed_ms: u64,
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum Ending {
    /// The game reached its end by its rules.
    Terminal,
    /// A side failed to move and lost: the failure is charged to it alone.
    Fault {
        /// The side that failed.
        seat: Seat,
        /// What happened.
        fault: StoredFault,
    },
    /// The game went on past the ply limit: a draw.
    MoveLimit,
    /// The game's own rules failed (a course's rules program): nobody's
    /// result, counted apart.
    Void {
        /// Why.
        message: String,
    },
}

/// A fault as a game's record keeps it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoredFault {
    /// What kind of failure.
    pub kind: FaultKind,
    /// One line.
    pub message: String,
    /// More detail.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<String>,
    /// The program's stderr during the move.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub stderr: String,
}

impl From<Fault> for StoredFault {
    fn from(fault: Fault) -> StoredFault {
        StoredFault { kind: fault.kind, message: fault.message, details: fault.details, stderr: fault.stderr }
    }
}

/// A game's result for one side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GameResult {
    /// It won (by the rules, or because the other side failed).
    Win,
    /// Neither won.
    Draw,
    /// It lost.
    Loss,
    /// The game's rules failed: no result.
    Void,
}

/// One game, as it was played: enough to replay it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    /// Its name (`q5/random/3`).
    pub label: String,
    /// Its number in its series.
    pub index: u64,
    /// The series' seed (with the index, it replays the game).
    pub seed: u64,
    /// The agent playing MAX.
    pub max: String,
    /// The agent playing MIN.
    pub min: String,
    /// How many of the first plies were random openings.
    pub openings: u32,
    /// Every ply, in order.
    pub moves: Vec<PlyRecord>,
    /// How it ended.
    pub ending: Ending,
    /// MAX's utility at the end, as the game values the final position
    /// (0 after the ply limit); absent when a side failed or the rules did.
    pub utility: Option<f64>,
    /// The board at the start and after each ply, where the game draws one
    /// (for replays); empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub boards: Vec<String>,
}

impl GameRecord {
    /// The seat of the agent named `name`, if it played.
    pub fn seat_of(&self, name: &str) -> Option<Seat> {
        if self.max == name {
            Some(Seat::Max)
        } else if self.min == name {
            Some(Seat::Min)
        } else {
            None
        }
    }

    /// The agent in `seat`.
    pub fn agent(&self, seat: Seat) -> &str {
        match seat {
            Seat::Max => &self.max,
            Seat::Min => &self.min,
        }
    }

    /// Who won, if anyone.
    pub fn winner(&self) -> Option<Seat> {
        match &self.ending {
            Ending::Terminal => {
                let utility = self.utility.unwrap_or(0.0);
                if utility > 0.0 {
                    Some(Seat::Max)
                } else if utility < 0.0 {
                    Some(Seat::Min)
                } else {
                    None
                }
            }
            Ending::Fault { seat, .. } => Some(seat.other()),
            Ending::MoveLimit | Ending::Void { .. } => None,
        }
    }

    /// The result for the agent in `seat`.
    pub fn result(&self, seat: Seat) -> GameResult {
        if matches!(self.ending, Ending::Void { .. }) {
            return GameResult::Void;
        }
        match self.winner() {
            None => GameResult::Draw,
            Some(winner) if winner == seat => GameResult::Win,
            Some(_) => GameResult::Loss,
        }
    }

    /// The failure charged to `seat`, if it failed.
    pub fn fault_of(&self, seat: Seat) -> Option<&StoredFault> {
        match &self.ending {
            Ending::Fault { seat: failed, fault } if *failed == seat => Some(fault),
            _ => None,
        }
    }

    /// The actions in order, joined by spaces (a replay's move list).
    pub fn move_list(&self) -> String {
        self.moves.iter().map(|ply| ply.action.as_str()).collect::<Vec<_>>().join(" ")
    }

    /// One line: who won and how.
    pub fn summary(&self) -> String {
        match (&self.ending, self.winner()) {
            (Ending::Void { message }, _) => format!("void: the game's rules failed ({message})"),
            (Ending::Fault { seat, fault }, _) => {
                format!("{} lost by {}: {}", self.agent(*seat), fault.kind.words(), fault.message)
            }
            (Ending::MoveLimit, _) => format!("draw: still going after {} plies", self.moves.len()),
            (Ending::Terminal, None) => "draw".to_string(),
            (Ending::Terminal, Some(seat)) => format!("{} ({}) won", self.agent(seat), seat.name()),
        }
    }
}

/// Plays one game of `game` from its start: `agents[0]` plays MAX,
/// `agents[1]` MIN.
pub fn play_game(game: &Arc<dyn Game>, agents: [&mut dyn Agent; 2], setup: &GameSetup) -> GameRecord {
    let [max, min] = agents;
    let mut record = GameRecord {
        label: setup.label.clone(),
        index: setup.index,
        seed: setup.seed,
        max: max.name().to_string(),
        min: min.name().to_string(),
        openings: 0,
        moves: Vec::new(),
        ending: Ending::Terminal,
        utility: None,
        boards: Vec::new(),
    };
    let opening = match draw_opening(game, setup) {
        Ok(opening) => opening,
        Err(message) => {
            record.ending = Ending::Void { message };
            return record;
        }
    };
    record.openings = opening.len() as u32;
    let agents: [&mut dyn Agent; 2] = [max, min];
    let mut chance = SplitMix64::derived(setup.seed, &[CHANCE_STREAM, setup.index]);
    let mut game = Arc::clone(game);
    let mut history: Vec<String> = Vec::new();
    let ending = loop {
        let position = match Position::of(Arc::clone(&game)) {
            Ok(position) => position,
            Err(error) => break Ending::Void { message: error.to_string() },
        };
        if history.is_empty() {
            record.boards.extend(position.board());
        }
        let kind = position.kind();
        if kind == NodeKind::Terminal {
            record.utility = Some(position.utility());
            break Ending::Terminal;
        }
        let ply = history.len() as u32;
        if ply >= setup.max_plies {
            record.utility = Some(0.0);
            break Ending::MoveLimit;
        }
        let actions = position.actions();
        let (pick, ply_record) = if let Some(&pick) = opening.get(ply as usize) {
            (pick, PlyRecord { action: String::new(), by: Mover::Opening, entered: 0, clock: None, elapsed_ms: 0 })
        } else if kind == NodeKind::Chance {
            let pick = chance_pick(chance.draw(), position.probabilities()) as usize;
            (pick, PlyRecord { action: String::new(), by: Mover::Chance, entered: 0, clock: None, elapsed_ms: 0 })
        } else {
            let seat = Seat::to_move(kind).expect("a player moves at a max or min node");
            let state = position.state();
            let turn = Turn {
                game: &*game,
                label: &setup.label,
                seat,
                ply,
                history: &history,
                actions: &actions,
                state: state.as_ref(),
                seed: SplitMix64::derived(setup.seed, &[AGENT_STREAM, setup.index, u64::from(ply)]).next_u64(),
                limits: &setup.limits,
            };
            let started = Instant::now();
            let choice = agents[seat.index()].choose(&turn);
            let elapsed_ms = started.elapsed().as_millis() as u64;
            let choice = match choice {
                Ok(choice) => choice,
                Err(fault) => break Ending::Fault { seat, fault: fault.into() },
            };
            let Some(pick) = actions.iter().position(|action| *action == choice.action) else {
                let fault = Fault { stderr: choice.stderr, ..illegal(&choice.action, &actions) };
                break Ending::Fault { seat, fault: fault.into() };
            };
            let ply_record = PlyRecord {
                action: String::new(),
                by: Mover::of(seat),
                entered: choice.entered,
                clock: Some(choice.clock),
                elapsed_ms,
            };
            (pick, ply_record)
        };
        let action = actions[pick].clone();
        record.boards.extend(position.board_after(pick));
        game = match position.after(pick) {
            Ok(next) => next,
            Err(error) => break Ending::Void { message: error.to_string() },
        };
        record.moves.push(PlyRecord { action: action.clone(), ..ply_record });
        history.push(action);
    };
    record.ending = ending;
    for agent in agents {
        agent.game_over();
    }
    record
}

/// The fault of a move that is not among `legal`.
fn illegal(action: &str, legal: &[String]) -> Fault {
    const SHOWN: usize = 12;
    let mut listed = legal.iter().take(SHOWN).map(String::as_str).collect::<Vec<_>>().join(", ");
    if legal.len() > SHOWN {
        listed.push_str(&format!(", ... ({} in all)", legal.len()));
    }
    Fault::new(
        FaultKind::IllegalMove,
        if action.is_empty() {
            format!("answered no move, but there are legal moves here ({listed})")
        } else {
            format!("played `{}`, which is not a legal move here (legal: {listed})", crate::shown::shown_line(action))
        },
    )
}

/// The opening of a game: `setup.openings` plies drawn at random (chance
/// moves with their probabilities), the same for every game with the same
/// key, and never one that ends the game. A game too short for that many
/// plies gets the longest opening that leaves it going.
fn draw_opening(game: &Arc<dyn Game>, setup: &GameSetup) -> Result<Vec<usize>, String> {
    if setup.openings == 0 {
        return Ok(Vec::new());
    }
    let options = UnfoldOptions { name: None, eval: None, max_nodes: REFEREE_NODES };
    let tree = game.unfold(&options).map_err(|error| error.to_string())?;
    let mut longest = Vec::new();
    for draw in 0..OPENING_DRAWS {
        let mut random = SplitMix64::derived(setup.seed, &[OPENING_STREAM, setup.opening_key, draw]);
        let mut node = NodeIndex::ROOT;
        let mut path = Vec::new();
        let mut going = Vec::new();
        for _ in 0..setup.openings {
            let children: Vec<NodeIndex> = tree.children(node).collect();
            if children.is_empty() || tree.made() >= REFEREE_NODES {
                break;
            }
            let pick = if tree.kind(node) == NodeKind::Chance {
                chance_pick(random.draw(), children.iter().map(|&child| tree.probability(child)))
            } else {
                uniform_pick(random.draw(), children.len() as u32)
            } as usize;
            path.push(pick);
            node = children[pick];
            if tree.kind(node) != NodeKind::Terminal {
                going = path.clone();
            }
        }
        if let Some(message) = tree.fault() {
            return Err(message);
        }
        if going.len() == setup.openings as usize {
            return Ok(going);
        }
        if going.len() > longest.len() {
            longest = going;
        }
    }
    Ok(longest)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::game::{GameArgs, make};
    use crate::play::builtin::BuiltIn;

    pub(crate) fn game(name: &str) -> Arc<dyn Game> {
        Arc::from(make(&GameArgs { name, params: &[], position: None, utility: None }).unwrap())
    }

    fn setup(openings: u32) -> GameSetup {
        GameSetup {
            label: "t/0".into(),
            index: 0,
            seed: 42,
            opening_key: 0,
            openings,
            max_plies: GameSetup::DEFAULT_MAX_PLIES,
            limits: MoveLimits { eval: Some("lines".into()), ..MoveLimits::default() },
        }
    }

    /// An agent that always answers the same action.
    struct Stubborn(&'static str);

    impl Agent for Stubborn {
        fn name(&self) -> &str {
            "stubborn"
        }

        fn choose(&mut self, _turn: &Turn<'_>) -> Result<Choice, Fault> {
            Ok(Choice { action: self.0.into(), entered: 0, clock: Clock::Wall, stderr: String::new() })
        }
    }

    use super::super::Choice;

    #[test]
    fn a_game_between_random_agents_ends_and_replays_the_same() {
        let game = game("tic-tac-toe");
        let play = || {
            let mut a = BuiltIn::parse("random").unwrap().agent("a");
            let mut b = BuiltIn::parse("random").unwrap().agent("b");
            play_game(&game, [&mut *a, &mut *b], &setup(2))
        };
        let record = play();
        assert_eq!(record, play(), "the same seed plays the same game");
        assert!(matches!(record.ending, Ending::Terminal));
        assert_eq!(record.openings, 2);
        assert_eq!(record.moves[0].by, Mover::Opening);
        assert!(record.moves.len() >= 5 && record.moves.len() <= 9);
        assert_eq!(record.boards.len(), record.moves.len() + 1, "a board before and after every ply");
        assert!(record.utility.is_some());
    }

    #[test]
    fn an_illegal_move_loses_for_the_side_that_played_it() {
        let game = game("tic-tac-toe");
        let mut good = BuiltIn::parse("random").unwrap().agent("good");
        let mut bad = Stubborn("z9");
        let record = play_game(&game, [&mut *good, &mut bad], &setup(0));
        assert_eq!(record.winner(), Some(Seat::Max));
        assert_eq!(record.result(Seat::Min), GameResult::Loss);
        let fault = record.fault_of(Seat::Min).expect("charged to MIN");
        assert_eq!(fault.kind, FaultKind::IllegalMove);
        assert!(fault.message.contains("played `z9`") && fault.message.contains("legal: a3"), "{}", fault.message);
        assert!(record.fault_of(Seat::Max).is_none(), "never charged to the opponent");
    }

    #[test]
    fn openings_are_shared_by_a_pair_and_never_end_the_game() {
        let game = game("tic-tac-toe");
        let opening = |key, index| {
            let setup = GameSetup { opening_key: key, index, openings: 8, ..setup(8) };
            draw_opening(&game, &setup).unwrap()
        };
        assert_eq!(opening(3, 6), opening(3, 7));
        assert_ne!(opening(3, 6), opening(4, 8));
        assert_eq!(opening(3, 6).len(), 8, "eight plies leave tic-tac-toe going in some draws");
    }

    #[test]
    fn chance_moves_are_drawn_and_long_games_stop() {
        let game = game("pig");
        let mut a = BuiltIn::parse("random").unwrap().agent("a");
        let mut b = BuiltIn::parse("random").unwrap().agent("b");
        let short = GameSetup { max_plies: 30, limits: MoveLimits::default(), ..setup(0) };
        let record = play_game(&game, [&mut *a, &mut *b], &short);
        assert!(record.moves.iter().any(|ply| ply.by == Mover::Chance));
        if matches!(record.ending, Ending::MoveLimit) {
            assert_eq!(record.moves.len(), 30);
            assert_eq!(record.winner(), None);
        }
        assert_eq!(record.boards.len(), record.moves.len() + 1, "pig draws its scores");
    }
}
