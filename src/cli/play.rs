//! `treegrade play GAME`: a game in the terminal against an agent (the
//! board, the legal moves, undo), or `--watch A B`: two agents playing.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, ValueEnum};

use super::check::load_play_game;
use super::source::AssignmentSource;
use super::{Context, Failure};
use crate::assignment::PlayGame;
use crate::engine::random::{SplitMix64, chance_pick};
use crate::game::Game;
use crate::grader::player::ProgramAgent;
use crate::grader::sandbox::SandboxMode;
use crate::grader::{Staged, Target, stage, submission};
use crate::load::assignment::load_assignment;
use crate::play::builtin::BuiltIn;
use crate::play::position::Position;
use crate::play::{Agent, MoveLimits, Seat, Turn};
use crate::tree::NodeKind;

/// Flags of `treegrade play`.
#[derive(Debug, Args)]
pub struct PlayArgs {
    /// The game: a built-in one (tic-tac-toe, connect-four, gomoku, pig) or a game file.
    game: String,
    /// Your opponent: a built-in agent (random, greedy, minimax:D, alphabeta:D, alphabeta) or
    /// the folder of an agent's program (default: alphabeta:4 with the game's evaluation).
    #[arg(long, value_name = "AGENT", conflicts_with = "watch")]
    against: Option<String>,
    /// Which side you play.
    #[arg(long = "as", value_enum, default_value = "first", value_name = "SIDE")]
    side: Side,
    /// Watch two agents play instead (built-in agents or folders).
    #[arg(long, num_args = 2, value_names = ["A", "B"])]
    watch: Option<Vec<String>>,
    /// Pause between the plies of a watched game, in milliseconds.
    #[arg(long, value_name = "MS", default_value = "400")]
    delay: u64,
    /// The game's evaluation served to agents (default: its first, if any).
    #[arg(long, value_name = "NAME")]
    eval: Option<String>,
    /// Nodes an agent's program may enter per move.
    #[arg(long, value_name = "NODES")]
    budget: Option<u32>,
    /// The wall-clock limit of an agent's move, in seconds.
    #[arg(long, value_name = "S", default_value = "10")]
    move_time_limit: f64,
    /// The seed of the agents' random choices and of chance moves.
    #[arg(long, value_name = "S", default_value = "0")]
    seed: u64,
    /// The assignment whose languages an agent's folder may be written in.
    #[arg(long, value_name = "DIR")]
    assignment: Option<PathBuf>,
    /// How an agent's program is sandboxed.
    #[arg(long, value_enum, default_value = "auto")]
    sandbox: SandboxMode,
}

/// Which side a person plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Side {
    /// MAX: X in an m,n,k-game, player 0 in Pig.
    First,
    /// MIN.
    Second,
}

/// Who plays a seat.
enum Player {
    /// Someone at the keyboard.
    Person,
    /// An agent, and the sandbox its program runs in (kept while it plays).
    Agent { agent: Box<dyn Agent>, _staged: Option<Box<Staged>> },
}

pub fn run(args: &PlayArgs, context: &Context) -> Result<(), Failure> {
    let game = load_play_game(&game_source(&args.game)?)?;
    let eval = args.eval.clone().or_else(|| game.evaluations().into_iter().next());
    let time = Duration::try_from_secs_f64(args.move_time_limit)
        .ok()
        .filter(|limit| !limit.is_zero())
        .ok_or_else(|| Failure::Usage("--move-time-limit: give a positive number of seconds".to_string()))?;
    let limits = MoveLimits { budget: args.budget, time, eval };
    let makers = AgentMaker::new(args, context)?;
    let (players, delay) = match &args.watch {
        Some(agents) => {
            // One agent watched against itself: its two copies get their sides' names.
            let (a, b) = if agents[0] == agents[1] { (" (MAX)", " (MIN)") } else { ("", "") };
            let first = makers.make(&agents[0], &*game, &limits, a)?;
            let second = makers.make(&agents[1], &*game, &limits, b)?;
            ([first, second], Duration::from_millis(args.delay))
        }
        None => {
            let spelled = args.against.clone().unwrap_or_else(|| "alphabeta:4".to_string());
            let agent = makers.make(&spelled, &*game, &limits, "")?;
            match args.side {
                Side::First => ([Player::Person, agent], Duration::ZERO),
                Side::Second => ([agent, Player::Person], Duration::ZERO),
            }
        }
    };
    let stdin = std::io::stdin();
    let mut session = Session { players, limits, seed: args.seed, delay, input: stdin.lock(), out: std::io::stdout() };
    let ending = session.play(game).map_err(|error| Failure::runtime("cannot write to the terminal", error))?;
    match ending {
        Ending::Over => Ok(()),
        // Not a usage error: the game was played, and an agent failed in it.
        Ending::Failed => Err(Failure::ChecksFailed),
    }
}

/// A built-in game's name, else a game file; neither is a usage error
/// that lists the built-in games.
pub(super) fn game_source(game: &str) -> Result<PlayGame, Failure> {
    let built_in = crate::game::built_in_names();
    if built_in.contains(&game) {
        Ok(PlayGame::BuiltIn(game.to_string()))
    } else if Path::new(game).exists() {
        Ok(PlayGame::File(PathBuf::from(game)))
    } else {
        Err(Failure::Usage(format!("`{game}` is neither a built-in game ({}) nor a game file", built_in.join(", "))))
    }
}

/// Makes agents from their spellings: built in, or a program's folder.
struct AgentMaker {
    languages: Vec<crate::assignment::Language>,
    kits: tempfile::TempDir,
    sandbox: crate::grader::sandbox::Sandbox,
}

impl AgentMaker {
    fn new(args: &PlayArgs, context: &Context) -> Result<AgentMaker, Failure> {
        let source = AssignmentSource::resolve(args.assignment.as_deref())?;
        let languages = load_assignment(source.dir()).map_err(|error| Failure::Input(vec![error]))?.languages;
        let kits = submission::write_kits().map_err(|e| Failure::runtime("cannot write the starter kits", e))?;
        Ok(AgentMaker { languages, kits, sandbox: context.sandbox(args.sandbox) })
    }

    /// The agent `spelled` (`suffix` tells two copies of one agent apart).
    fn make(&self, spelled: &str, game: &dyn Game, limits: &MoveLimits, suffix: &str) -> Result<Player, Failure> {
        let folder = Path::new(spelled);
        if folder.is_dir() {
            let name = folder.file_name().map_or_else(|| spelled.to_string(), |n| n.to_string_lossy().into_owned());
            let target = Target { dir: folder.to_path_buf(), command: None, name: Some(name.clone()) };
            let staged = stage(&self.languages, &target, self.kits.path(), &self.sandbox, 1000, limits.time)
                .map_err(Failure::not_gradable)?;
            let spec = match &staged.program {
                Ok(spec) => spec.clone(),
                Err(failure) => return Err(Failure::Usage(format!("{name}: {}\n{}", failure.message, failure.output))),
            };
            let agent = Box::new(ProgramAgent::new(format!("{name}{suffix}"), spec));
            return Ok(Player::Agent { agent, _staged: Some(Box::new(staged)) });
        }
        let builtin = BuiltIn::parse(spelled).map_err(|refused| Failure::Usage(refused.to_string()))?;
        builtin.check(game, limits.eval.as_deref()).map_err(|refused| Failure::Usage(refused.to_string()))?;
        Ok(Player::Agent { agent: builtin.agent(&format!("{}{suffix}", builtin.spelling())), _staged: None })
    }
}

/// One game at the terminal.
struct Session<I, O> {
    players: [Player; 2],
    limits: MoveLimits,
    seed: u64,
    delay: Duration,
    input: I,
    out: O,
}

/// How a game in the terminal ended.
#[derive(Debug, PartialEq, Eq)]
enum Ending {
    /// Played to its end (won, lost or drawn), or the person quit.
    Over,
    /// An agent lost by failing (a crash, a time out, an illegal move), or
    /// the game's rules failed: exit status 1.
    Failed,
}

/// What the person typed.
enum Command {
    Move(usize),
    Undo,
    Quit,
}

impl<I: BufRead, O: Write> Session<I, O> {
    /// Plays from the start to the end (or until the person quits).
    fn play(&mut self, start: Arc<dyn Game>) -> std::io::Result<Ending> {
        // The positions before each ply, the plies, and whether a person made each.
        let mut before: Vec<Arc<dyn Game>> = Vec::new();
        let mut history: Vec<String> = Vec::new();
        // Who made each ply, for the board's caption.
        let mut movers: Vec<String> = Vec::new();
        let mut game = start;
        let mut chance = SplitMix64::derived(self.seed, &[1]);
        loop {
            let position = match Position::of(Arc::clone(&game)) {
                Ok(position) => position,
                Err(message) => {
                    writeln!(self.out, "the game's rules failed: {message}")?;
                    return Ok(Ending::Failed);
                }
            };
            let last = history.last().zip(movers.last()).map(|(action, mover)| format!("{mover} played {action}"));
            self.show(&position, last.as_deref())?;
            let kind = position.kind();
            let actions = position.actions();
            let pick = match kind {
                NodeKind::Terminal => return self.end(&position).map(|()| Ending::Over),
                NodeKind::Chance => chance_pick(chance.draw(), position.probabilities()) as usize,
                NodeKind::Max | NodeKind::Min => {
                    let seat = Seat::to_move(kind).expect("a player moves here");
                    match &mut self.players[seat.index()] {
                        Player::Person => match self.ask(&actions, seat)? {
                            Command::Move(pick) => pick,
                            Command::Quit => return Ok(Ending::Over),
                            Command::Undo => {
                                match undo(&mut before, &mut history, &self.players) {
                                    Some(earlier) => {
                                        game = earlier;
                                        movers.truncate(history.len());
                                    }
                                    None => writeln!(self.out, "nothing to undo")?,
                                }
                                continue;
                            }
                        },
                        Player::Agent { agent, .. } => {
                            let state = position.state();
                            let turn = Turn {
                                game: &*game,
                                label: "terminal",
                                seat,
                                ply: history.len() as u32,
                                history: &history,
                                actions: &actions,
                                state: state.as_ref(),
                                seed: SplitMix64::derived(self.seed, &[2, history.len() as u64]).next_u64(),
                                limits: &self.limits,
                            };
                            let name = agent.name().to_string();
                            match agent.choose(&turn) {
                                Ok(choice) => match actions.iter().position(|action| *action == choice.action) {
                                    Some(pick) => pick,
                                    None => {
                                        writeln!(
                                            self.out,
                                            "{name} played `{}`, which is not a legal move: it loses",
                                            crate::shown::shown_line(&choice.action)
                                        )?;
                                        return Ok(Ending::Failed);
                                    }
                                },
                                Err(fault) => {
                                    writeln!(self.out, "{name} loses by {}: {}", fault.kind.words(), fault.message)?;
                                    return Ok(Ending::Failed);
                                }
                            }
                        }
                    }
                }
            };
            std::thread::sleep(self.delay);
            movers.push(match Seat::to_move(kind).map(|seat| &self.players[seat.index()]) {
                None => "chance".to_string(),
                Some(Player::Person) => "you".to_string(),
                Some(Player::Agent { agent, .. }) => agent.name().to_string(),
            });
            before.push(Arc::clone(&game));
            history.push(actions[pick].clone());
            game = position.after(pick).map_err(std::io::Error::other)?;
        }
    }

    /// The board, whose turn it is, and the last move.
    fn show(&mut self, position: &Position, last: Option<&str>) -> std::io::Result<()> {
        if let Some(last) = last {
            writeln!(self.out, "{last}")?;
        }
        if let Some(board) = position.board() {
            writeln!(self.out, "\n{board}\n")?;
        }
        self.out.flush()
    }

    /// Asks the person for a move until a legal one (or undo, or quit) comes.
    fn ask(&mut self, actions: &[String], seat: Seat) -> std::io::Result<Command> {
        loop {
            write!(self.out, "your move as {} ({}; undo; quit): ", seat.name(), actions.join(" "))?;
            self.out.flush()?;
            let mut line = String::new();
            if self.input.read_line(&mut line)? == 0 {
                writeln!(self.out)?;
                return Ok(Command::Quit);
            }
            let typed = line.trim();
            match typed {
                "undo" | "u" => return Ok(Command::Undo),
                "quit" | "q" | "exit" => return Ok(Command::Quit),
                _ => {}
            }
            if let Some(pick) = actions.iter().position(|action| action.eq_ignore_ascii_case(typed)) {
                return Ok(Command::Move(pick));
            }
            writeln!(self.out, "`{}` is not a legal move here", crate::shown::shown_line(typed))?;
        }
    }

    /// Who won.
    fn end(&mut self, position: &Position) -> std::io::Result<()> {
        let utility = position.utility();
        let winner = if utility > 0.0 {
            Some(Seat::Max)
        } else if utility < 0.0 {
            Some(Seat::Min)
        } else {
            None
        };
        let line = match winner {
            None => "a draw".to_string(),
            Some(seat) => match &self.players[seat.index()] {
                Player::Person => "you win".to_string(),
                Player::Agent { agent, .. } => format!("{} ({}) wins", agent.name(), seat.name()),
            },
        };
        writeln!(self.out, "game over: {line}")
    }
}

/// Takes back the plies since the person's last move, that move included:
/// the position before it, or `None` when the person has not moved yet.
fn undo(before: &mut Vec<Arc<dyn Game>>, history: &mut Vec<String>, players: &[Player; 2]) -> Option<Arc<dyn Game>> {
    let person_moved = |game: &Arc<dyn Game>| {
        Position::of(Arc::clone(game))
            .ok()
            .and_then(|position| Seat::to_move(position.kind()))
            .is_some_and(|seat| matches!(players[seat.index()], Player::Person))
    };
    let index = (0..before.len()).rev().find(|&index| person_moved(&before[index]))?;
    let earlier = Arc::clone(&before[index]);
    before.truncate(index);
    history.truncate(index);
    Some(earlier)
}
