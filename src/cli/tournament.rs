//! `treegrade tournament`: every agent of a class against every other and
//! against reference baselines, rated, into `standings.csv` and
//! `standings.html`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Args;

use super::batch::stop_on_interrupt;
use super::check::load_play_game;
use super::source::AssignmentSource;
use super::{Context, Failure, emit};
use crate::assignment::OpponentAgent;
use crate::batch::list_submissions;
use crate::batch::shard::Shard;
use crate::grader::sandbox::SandboxMode;
use crate::grader::submission;
use crate::load::assignment::load_assignment;
use crate::play::builtin::BuiltIn;
use crate::play::referee::GameSetup;
use crate::tournament::{self, Arena, Config, Entrant, PairEvent, Settings, Standings};

/// Flags of `treegrade tournament`.
#[derive(Debug, Args)]
pub struct TournamentArgs {
    /// A folder with one subfolder per agent (as for `batch`); the subfolder's name is the agent's.
    submissions: PathBuf,
    /// The game: a built-in one (tic-tac-toe, connect-four, gomoku, pig) or a game file.
    #[arg(long, value_name = "GAME")]
    game: String,
    /// Reference baselines that play everyone, comma-separated: built-in agents (random, greedy,
    /// greedy:EVAL, minimax:D, alphabeta:D, alphabeta:D:EVAL, alphabeta) or folders of programs.
    #[arg(long, value_name = "AGENTS", value_delimiter = ',')]
    opponents: Vec<String>,
    /// Games each pair plays, colours alternating (pairs of games share an opening).
    #[arg(long, value_name = "N", default_value = "2")]
    games_per_pair: u32,
    /// Nodes an agent may enter per move (the clock counted in nodes); none by default.
    #[arg(long, value_name = "NODES")]
    budget: Option<u32>,
    /// The time limit of a move in seconds, the safety net: the agent's own CPU
    /// time, and at most three times that of wall clock.
    #[arg(long, value_name = "S", default_value = "10")]
    move_time_limit: f64,
    /// Random plies at the start of each game.
    #[arg(long, value_name = "N", default_value = "2")]
    openings: u32,
    /// The game's evaluation served with every node (and the baselines').
    #[arg(long, value_name = "NAME")]
    eval: Option<String>,
    /// The seed every random number derives from: the same seed plays the same games.
    #[arg(long, value_name = "S", default_value = "0")]
    seed: u64,
    /// Pairs played at once (default: the number of cores).
    #[arg(long, short, value_name = "J")]
    jobs: Option<usize>,
    /// Where `standings.csv`, `standings.html` and the games go.
    #[arg(long, value_name = "DIR", default_value = "tournament-output")]
    out: PathBuf,
    /// Play only shard K of N of the pairs (K/N); combine the outputs with `treegrade merge`.
    #[arg(long, value_name = "K/N")]
    shard: Option<Shard>,
    /// Play every pair again, even those played already with the same inputs.
    #[arg(long)]
    force: bool,
    /// The assignment whose languages the agents may be written in (default: Python and Rust with the kits).
    #[arg(long, value_name = "DIR")]
    assignment: Option<PathBuf>,
    /// Memory limit of an agent, in MB.
    #[arg(long, value_name = "MB", default_value = "1024")]
    memory: u64,
    /// Sandbox agents with every layer this machine allows (auto), refuse to play when one is
    /// missing (strict), or keep only the built-in defences (off).
    #[arg(long, value_enum, default_value = "auto")]
    sandbox: SandboxMode,
}

pub fn run(args: &TournamentArgs, context: &Context) -> Result<(), Failure> {
    let sandbox = context.sandbox(args.sandbox).with_memory_mb(args.memory);
    sandbox.start_probe();
    let game_source = super::play::game_source(&args.game)?;
    let game = load_play_game(&game_source)?;
    let languages = match &args.assignment {
        Some(dir) => {
            load_assignment(AssignmentSource::resolve(Some(dir))?.dir())
                .map_err(|error| Failure::Input(vec![error]))?
                .languages
        }
        None => {
            load_assignment(AssignmentSource::resolve(None)?.dir())
                .map_err(|error| Failure::Input(vec![error]))?
                .languages
        }
    };
    let entrants = entrants(&args.submissions, &args.opponents)?;
    let move_time_limit =
        Duration::try_from_secs_f64(args.move_time_limit).ok().filter(|limit| !limit.is_zero()).ok_or_else(|| {
            Failure::Usage(format!("--move-time-limit {}: give a positive number of seconds", args.move_time_limit))
        })?;
    if args.games_per_pair == 0 || args.budget == Some(0) {
        return Err(Failure::Usage("--games-per-pair and --budget must be at least 1".to_string()));
    }
    if let Some(eval) = &args.eval
        && !game.evaluations().contains(eval)
    {
        let evaluations = game.evaluations();
        let known: Vec<&str> = evaluations.iter().map(String::as_str).collect();
        return Err(Failure::Usage(crate::game::unknown_evaluation(game.name(), eval, &known)));
    }
    let kits = submission::write_kits().map_err(|e| Failure::runtime("cannot write the starter kits", e))?;
    let config = Config {
        settings: Settings {
            game: args.game.clone(),
            games_per_pair: args.games_per_pair,
            openings: args.openings,
            seed: args.seed,
            budget: args.budget,
            move_time_limit_ms: move_time_limit.as_millis() as u64,
            eval: args.eval.clone(),
            max_plies: GameSetup::DEFAULT_MAX_PLIES,
        },
        jobs: args.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get())),
        out: args.out.clone(),
        shard: args.shard,
        force: args.force,
    };
    let arena = Arena { game, languages: &languages, kits: kits.path(), sandbox: &sandbox };
    let stop = stop_on_interrupt()?;
    let standings = tournament::run(&arena, &entrants, &config, &stop, |event| match event {
        PairEvent::Kept(a, b) => eprintln!("unchanged {a} vs {b}"),
        PairEvent::Played(a, b, [w, d, l]) => eprintln!("played {a} vs {b}: {w}-{d}-{l}"),
    })
    .map_err(|error| Failure::from_io(Some(format!("tournament into {}", args.out.display())), error))?;
    if stop.load(std::sync::atomic::Ordering::SeqCst) {
        return Err(Failure::Interrupted(format!(
            "interrupted: the games finished are kept in {}; run the same command again to play the pairs \
             left (those played are not played again)",
            args.out.display()
        )));
    }
    emit(&closing(&standings, &args.out));
    Ok(())
}

/// The submissions' folders and the baselines, each under a name of its own.
fn entrants(submissions: &Path, opponents: &[String]) -> Result<Vec<Entrant>, Failure> {
    let listing = list_submissions(submissions).map_err(|e| Failure::from_system(None, e.kind(), e))?;
    for (entry, reason) in &listing.skipped {
        eprintln!("skipped {entry}: {reason}");
    }
    let mut entrants: Vec<Entrant> = listing
        .submissions
        .into_iter()
        .map(|submission| Entrant {
            name: submission.student,
            agent: OpponentAgent::Program(submission.dir),
            baseline: false,
        })
        .collect();
    for spelled in opponents.iter().map(|text| text.trim()).filter(|text| !text.is_empty()) {
        let (name, agent) = if spelled.contains('/') || Path::new(spelled).is_dir() {
            let dir = PathBuf::from(spelled);
            if !dir.is_dir() {
                return Err(Failure::Usage(format!("--opponents: {spelled} is neither a built-in agent nor a folder")));
            }
            let name = dir.file_name().map_or_else(|| spelled.to_string(), |name| name.to_string_lossy().into_owned());
            (name, OpponentAgent::Program(dir))
        } else {
            let builtin =
                BuiltIn::parse(spelled).map_err(|message| Failure::Usage(format!("--opponents: {message}")))?;
            (builtin.spelling(), OpponentAgent::BuiltIn(builtin))
        };
        if entrants.iter().any(|entrant| entrant.name == name) {
            return Err(Failure::Usage(format!(
                "two agents would be called `{name}` (a submission's folder and a baseline): rename the folder"
            )));
        }
        entrants.push(Entrant { name, agent, baseline: true });
    }
    if entrants.len() < 2 {
        return Err(Failure::Usage(format!(
            "a tournament needs two agents at least; {} has {} (add baselines with --opponents)",
            submissions.display(),
            entrants.len()
        )));
    }
    Ok(entrants)
}

/// The last lines: the top of the standings and where they are.
fn closing(standings: &Standings, out: &Path) -> String {
    let mut text = String::new();
    for row in standings.rows.iter().take(10) {
        text.push_str(&format!(
            "{:>3}. {:<24} {:>6.0}  [{:.0} to {:.0}]  {}-{}-{}\n",
            row.rank,
            row.agent,
            row.rating.rating,
            row.rating.low,
            row.rating.high,
            row.tally.wins,
            row.tally.draws,
            row.tally.losses
        ));
    }
    if standings.rows.len() > 10 {
        text.push_str(&format!("     ... {} more\n", standings.rows.len() - 10));
    }
    for (name, why) in &standings.not_entered {
        text.push_str(&format!("not entered: {name}: {why}\n"));
    }
    let (csv, html) = (out.join("standings.csv"), out.join("standings.html"));
    text.push_str(&format!("standings: {}, {}\n", csv.display(), html.display()));
    text
}
