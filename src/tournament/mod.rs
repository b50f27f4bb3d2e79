//! Class tournaments: every agent against every other and against reference
//! baselines, colours alternating, rated by a Bradley-Terry fit.
//!
//! ```text
//! OUT/tournament.json      the settings, the entrants and those not entered (why)
//! OUT/games/PAIR.json      every game of one pair, as played (written when the pair is done)
//! OUT/standings.csv        one row per agent, best first: rating, interval, results, failures
//! OUT/standings.html       the table, head-to-head results, and every game to step through
//! ```
//!
//! Each program entrant is staged once in a sandbox of its own (its own
//! copy, its own user where the machine allows), so agents cannot see,
//! signal or slow each other; a build failure means the agent is not
//! entered, never a forfeit of its opponents' games. Pairs are independent:
//! they are played in parallel, each written whole when done, so an
//! interrupted tournament resumes where it stopped (a pair whose settings
//! and entrants' files are unchanged is not played again), and `--shard K/N`
//! plays a deterministic slice of the pairs for [`merge`] to combine. The
//! same seed plays the same games, so gives the same standings.

pub mod standings;
mod store;

use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::assignment::{Language, OpponentAgent};
use crate::game::Game;
use crate::grader::player::ProgramAgent;
use crate::grader::runner::ProgramSpec;
use crate::grader::sandbox::Sandbox;
use crate::grader::{Staged, Target, stage};
use crate::outdir::{BUILD_IDENTITY, Shard, hex, submission_fingerprint, write_atomically};
use crate::play::{Agent, MoveLimits, SeriesSetup, play_series};
use crate::pool::{AfterStop, Jobs, Pool, map_ordered};

pub use standings::Standings;
pub use store::{Manifest, PairFile, is_tournament, read_manifest};

/// Everything that decides a tournament's games (and so its fingerprints).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    /// The game, as given (a built-in name or a game file).
    pub game: String,
    /// Games each pair plays, colours alternating.
    pub games_per_pair: u32,
    /// Random plies at the start of each game.
    pub openings: u32,
    /// The seed every random number derives from.
    pub seed: u64,
    /// Nodes per move (the clock counted in nodes).
    pub budget: Option<u32>,
    /// The time limit of a move (the agent's CPU time), in milliseconds.
    pub move_time_limit_ms: u64,
    /// The evaluation served with every node.
    pub eval: Option<String>,
    /// A game still going after this many plies is a draw.
    pub max_plies: u32,
}

impl Settings {
    /// The limits of every move.
    fn limits(&self) -> MoveLimits {
        MoveLimits {
            budget: self.budget,
            time: Duration::from_millis(self.move_time_limit_ms),
            eval: self.eval.clone(),
        }
    }

    /// A fingerprint of the settings and of this build of treegrade.
    fn key(&self) -> String {
        let text = format!("{BUILD_IDENTITY}; {self:?}");
        hex(&Sha256::digest(text.as_bytes()))
    }
}

/// An agent that may take part.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entrant {
    /// Its name in the standings (a submission's folder name, or a baseline's).
    pub name: String,
    /// A built-in agent or a program's folder.
    pub agent: OpponentAgent,
    /// A reference baseline rather than a student.
    pub baseline: bool,
}

/// How a tournament runs.
#[derive(Clone, Debug)]
pub struct Config {
    /// What decides the games.
    pub settings: Settings,
    /// Pairs played at once.
    pub jobs: usize,
    /// The output folder.
    pub out: PathBuf,
    /// Play only this slice of the pairs.
    pub shard: Option<Shard>,
    /// Play every pair again, even those already played with the same inputs.
    pub force: bool,
}

/// Where the games are played: the game, and what programs need to run.
pub struct Arena<'a> {
    /// The game, from its start.
    pub game: Arc<dyn Game>,
    /// The languages programs may be written in.
    pub languages: &'a [Language],
    /// The kits folder.
    pub kits: &'a Path,
    /// The sandbox every program runs in, each in its own.
    pub sandbox: &'a Sandbox,
}

/// What happened to one pair, for progress display.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PairEvent {
    /// Already played with the same inputs.
    Kept(String, String),
    /// Played now: the two agents and the first one's wins, draws and losses.
    Played(String, String, [u64; 3]),
}

/// An entrant ready to play: how to make its agent.
enum Ready {
    BuiltIn(crate::play::builtin::BuiltIn),
    Program(Box<ProgramSpec>),
}

impl Ready {
    fn agent(&self, name: &str) -> Box<dyn Agent + Send> {
        match self {
            Ready::BuiltIn(builtin) => builtin.agent(name),
            Ready::Program(spec) => Box::new(ProgramAgent::new(name, (**spec).clone())),
        }
    }
}

/// Plays the tournament's pairs (those of the shard, not played already)
/// and writes the standings of every game in the output folder.
pub fn run(
    arena: &Arena<'_>,
    entrants: &[Entrant],
    config: &Config,
    stop: &AtomicBool,
    mut on_pair: impl FnMut(&PairEvent),
) -> io::Result<Standings> {
    store::prepare(&config.out)?;
    let _lock = crate::outdir::lock(&config.out)?;
    let settings_key = config.settings.key();
    let mut entrants: Vec<&Entrant> = entrants.iter().collect();
    entrants.sort_by(|a, b| a.name.cmp(&b.name));
    let pairs: Vec<(usize, usize)> = (0..entrants.len())
        .flat_map(|i| (i + 1..entrants.len()).map(move |j| (i, j)))
        .filter(|&(i, j)| {
            config.shard.is_none_or(|shard| shard.contains(&store::pair_name(&entrants[i].name, &entrants[j].name)))
        })
        .collect();
    let needed: BTreeSet<usize> = pairs.iter().flat_map(|&(i, j)| [i, j]).collect();
    let prepared = prepare_entrants(arena, &entrants, &needed, config);
    let mut not_entered: BTreeMap<String, String> = BTreeMap::new();
    let mut ready: BTreeMap<usize, (Ready, String)> = BTreeMap::new();
    let mut staged: Vec<Staged> = Vec::new();
    for (index, outcome) in prepared {
        match outcome {
            Ok((entry, key, kept)) => {
                ready.insert(index, (entry, key));
                staged.extend(kept);
            }
            Err(reason) => {
                not_entered.insert(entrants[index].name.clone(), reason);
            }
        }
    }
    let mut pending = Vec::new();
    for &(i, j) in &pairs {
        let (Some((_, key_i)), Some((_, key_j))) = (ready.get(&i), ready.get(&j)) else { continue };
        let key = hex(&Sha256::digest(format!("{settings_key}; {key_i}; {key_j}").as_bytes()));
        match store::read_pair(&config.out, &entrants[i].name, &entrants[j].name) {
            Some(pair) if pair.key == key && !config.force => {
                on_pair(&PairEvent::Kept(entrants[i].name.clone(), entrants[j].name.clone()));
            }
            _ => pending.push((i, j, key)),
        }
    }
    play_pairs(arena, &entrants, &ready, &pending, config, stop, &mut on_pair)?;
    drop(staged);
    store::write_manifest(&config.out, &config.settings, &entrants, &not_entered, config.shard)?;
    let manifest = store::read_manifest(&config.out)?;
    let standings = standings::compute(&config.out, &manifest)?;
    standings::write(&config.out, &manifest, &standings)?;
    Ok(standings)
}

/// Combines the folders of shards into `target`: pair files are copied, the
/// manifests joined (the settings must be the same; an entrant not entered
/// in any shard is not entered), and the standings computed from every game.
pub fn merge(sources: &[PathBuf], target: &Path) -> io::Result<Standings> {
    store::prepare(target)?;
    let mut merged: Option<Manifest> = None;
    for source in sources {
        let manifest = store::read_manifest(source)?;
        match &mut merged {
            None => merged = Some(manifest),
            Some(merged) => {
                if merged.settings != manifest.settings {
                    return Err(io::Error::other(format!(
                        "{} was played with other settings than {}: merge only the shards of one tournament",
                        source.display(),
                        sources[0].display()
                    )));
                }
                for entrant in manifest.entrants {
                    if !merged.entrants.iter().any(|known| known.name == entrant.name) {
                        merged.entrants.push(entrant);
                    }
                }
                merged.not_entered.extend(manifest.not_entered);
            }
        }
        if source != target {
            for pair in store::read_pairs(source)? {
                store::write_pair(target, &pair)?;
            }
        }
    }
    let mut manifest = merged.ok_or_else(|| io::Error::other("no tournament folder to merge"))?;
    manifest.entrants.sort_by(|a, b| a.name.cmp(&b.name));
    manifest.shard = None;
    let json = serde_json::to_string_pretty(&manifest).expect("the manifest is plain data");
    write_atomically(&target.join(store::MANIFEST), json.as_bytes())?;
    let standings = standings::compute(target, &manifest)?;
    standings::write(target, &manifest, &standings)?;
    Ok(standings)
}

type Prepared = Result<(Ready, String, Option<Staged>), String>;

/// Stages the program entrants in `needed` (in parallel), each in a sandbox
/// of its own, and fingerprints every one: why one is not entered, else how
/// to make its agent and its key.
fn prepare_entrants(
    arena: &Arena<'_>,
    entrants: &[&Entrant],
    needed: &BTreeSet<usize>,
    config: &Config,
) -> Vec<(usize, Prepared)> {
    let settings_key = config.settings.key();
    let needed: Vec<usize> = needed.iter().copied().collect();
    let moves = config.settings.games_per_pair as usize * entrants.len() * 50;
    let per_move = Duration::from_millis(config.settings.move_time_limit_ms);
    let prepare = |&index: &usize| {
        let entrant = entrants[index];
        let outcome = match &entrant.agent {
            OpponentAgent::BuiltIn(builtin) => builtin
                .check(&*arena.game, config.settings.eval.as_deref())
                .map_err(|e| e.to_string())
                .map(|()| (Ready::BuiltIn(builtin.clone()), format!("built-in {}", builtin.spelling()), None)),
            OpponentAgent::Program(dir) => {
                let target = Target { dir: dir.clone(), command: None, name: Some(entrant.name.clone()) };
                submission_fingerprint(&settings_key, dir)
                    .map_err(|error| format!("its files cannot be read: {error}"))
                    .and_then(|key| {
                        let staged = stage(arena.languages, &target, arena.kits, arena.sandbox, moves, per_move)
                            .map_err(|error| error.to_string())?;
                        match &staged.program {
                            Ok(spec) => Ok((Ready::Program(Box::new(spec.clone())), key, Some(staged))),
                            Err(failure) => Err(format!("{} ({})", failure.message, first_line(&failure.output))),
                        }
                    })
            }
        };
        (index, outcome)
    };
    map_ordered(config.jobs, &needed, prepare)
}

fn first_line(text: &str) -> String {
    let line = text.lines().find(|line| !line.trim().is_empty()).unwrap_or("no output");
    crate::shown::shown_line(line.trim())
}

/// Plays the pending pairs on `config.jobs` threads, writing each pair's
/// file when it is done. An entrant plays one pair at a time: its programs
/// share its sandbox's user, and ending one (which kills whatever that user
/// left behind) must not end another.
fn play_pairs(
    arena: &Arena<'_>,
    entrants: &[&Entrant],
    ready: &BTreeMap<usize, (Ready, String)>,
    pending: &[(usize, usize, String)],
    config: &Config,
    stop: &AtomicBool,
    on_pair: &mut dyn FnMut(&PairEvent),
) -> io::Result<()> {
    let schedule = Schedule::new(pending);
    // A pair still being played at Ctrl-C is played to its end and kept.
    let pool = Pool { workers: config.jobs, stop, after_stop: AfterStop::Keep };
    let play = |index: usize| {
        let (i, j, key) = &pending[index];
        let (first, second) = (&entrants[*i].name, &entrants[*j].name);
        let mut a = ready[i].0.agent(first);
        let mut b = ready[j].0.agent(second);
        let setup = SeriesSetup {
            label: format!("{first} vs {second}"),
            games: config.settings.games_per_pair,
            openings: config.settings.openings,
            seed: config.settings.seed,
            max_plies: config.settings.max_plies,
            limits: config.settings.limits(),
        };
        let games = play_series(&arena.game, &mut *a, &mut *b, &setup, &mut |_| {});
        // Both programs end before their entrants may play again.
        drop((a, b));
        schedule.done(*i, *j);
        PairFile { first: first.clone(), second: second.clone(), key: key.clone(), games }
    };
    pool.stream(&schedule, play, |pair| {
        store::write_pair(&config.out, &pair)?;
        let tally = crate::play::tally(&pair.games, &pair.first);
        on_pair(&PairEvent::Played(pair.first.clone(), pair.second.clone(), [tally.wins, tally.draws, tally.losses]));
        Ok(())
    })
}

/// Which pairs are left, and which entrants are playing now: a pair is
/// handed out only when both its entrants are free.
struct Schedule<'a> {
    pending: &'a [(usize, usize, String)],
    state: Mutex<(Vec<bool>, BTreeSet<usize>)>,
    changed: Condvar,
}

impl<'a> Schedule<'a> {
    fn new(pending: &'a [(usize, usize, String)]) -> Schedule<'a> {
        Schedule { pending, state: Mutex::new((vec![false; pending.len()], BTreeSet::new())), changed: Condvar::new() }
    }

    /// The pair of `first` and `second` is over: both may play again.
    fn done(&self, first: usize, second: usize) {
        let mut state = self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        state.1.remove(&first);
        state.1.remove(&second);
        drop(state);
        self.changed.notify_all();
    }
}

impl Jobs for Schedule<'_> {
    /// The index of a pending pair.
    type Job = usize;

    fn count(&self) -> usize {
        self.pending.len()
    }

    /// The first pair not taken whose entrants are both free, waiting for
    /// one to become free; `None` when every pair is taken or the run stops.
    fn next(&self, stop: &AtomicBool) -> Option<usize> {
        let pending = self.pending;
        let mut state = self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        loop {
            if stop.load(Ordering::SeqCst) || state.0.iter().all(|taken| *taken) {
                return None;
            }
            let (taken, busy) = &mut *state;
            let free = (0..pending.len())
                .find(|&index| !taken[index] && !busy.contains(&pending[index].0) && !busy.contains(&pending[index].1));
            if let Some(index) = free {
                taken[index] = true;
                busy.insert(pending[index].0);
                busy.insert(pending[index].1);
                return Some(index);
            }
            state = self.changed.wait(state).unwrap_or_else(|poisoned| poisoned.into_inner());
        }
    }

    /// Wakes every waiting thread (to see that the run stops).
    fn wake(&self) {
        self.changed.notify_all();
    }
}
