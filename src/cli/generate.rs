//! `treegrade gen`: random trees with `expect` blocks, deterministic per seed.

use std::path::PathBuf;

use clap::{ArgMatches, Args, FromArgMatches};

use super::{Failure, emit, setting_flags};
use crate::engine::settings::{Flag, Setting};
use crate::engine::{Algorithm, SearchSettings};
use crate::game::DEFAULT_MAX_NODES;
use crate::generator::{DISCRIMINATING_ATTEMPTS, GenOptions, generate, mistakes_passing, most_nodes};
use crate::load::write::tree_to_yaml;
use crate::tree::{NodeKind, SearchDefaults};

/// Flags of `treegrade gen`: its own, and a flag for each setting of the
/// engine's table that `gen` writes into each file's `search:` block
/// (`--cut`, `--prune-on-equal`, `--budget`, ...).
#[derive(Debug)]
pub struct GenArgs {
    own: GenOwn,
    /// The settings the flags gave, by key.
    given: SearchDefaults,
}

/// The flags of `gen` that are not settings of searches.
#[derive(Debug, Args)]
struct GenOwn {
    /// The seed: the same seed always gives the same trees.
    #[arg(long)]
    seed: u64,
    /// Plies from the root to the leaves: 1 or more.
    #[arg(long, default_value = "3", value_parser = parse_depth, allow_negative_numbers = true)]
    depth: u32,
    /// Children per internal node: N, or LO..HI, each 1 or more.
    #[arg(long, default_value = "2..3", value_parser = parse_branching, allow_negative_numbers = true)]
    branching: (u32, u32),
    /// The kind of each ply, repeated: e.g. max,min,min (Pacman and two ghosts) or max,chance.
    #[arg(long, default_value = "max,min", value_parser = parse_kinds)]
    kinds: Kinds,
    /// Leaf values: integers in LO..HI.
    #[arg(long, default_value = "-9..9", value_parser = parse_range::<i64>, allow_hyphen_values = true)]
    values: (i64, i64),
    /// Probability that a leaf repeats its left sibling's value.
    #[arg(long, default_value = "0.2")]
    ties: f64,
    /// Give every internal node an `eval`.
    #[arg(long)]
    evals: bool,
    /// Keep only trees on which every known mistake (no pruning, reversed
    /// children, the other pruning convention, ...) changes the result: up
    /// to 200 are drawn for each; when none does, the mistakes the closest
    /// still lets pass are named and nothing more is written (exit 2).
    #[arg(long)]
    discriminating: bool,
    /// Draw max^n trees of N players (docs/format.md 8.3): the max and min
    /// plies of --kinds become the players' in turn, leaves and evals vectors.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(2..), allow_negative_numbers = true)]
    players: Option<u32>,
    /// Also expect the answer of this search of docs/format.md 8
    /// (repeatable): iterative-deepening (up to --cut), maxn, mcts (needs --iterations).
    #[arg(long = "algorithm", value_name = "NAME", value_parser = super::algorithm_parser())]
    algorithms: Vec<Algorithm>,
    /// How many trees.
    #[arg(long, default_value = "1")]
    count: u64,
    /// The most nodes a tree may have (leaves included, at the widest
    /// --branching): larger trees are refused before any is drawn (default
    /// 2,000,000, as for `solve`).
    #[arg(long, value_name = "N")]
    max_nodes: Option<usize>,
    /// The folder to write `gen-SEED-N.yaml` files into.
    #[arg(short, long, value_name = "DIR")]
    out: PathBuf,
}

/// Where `gen`'s own flags stand among the table's (whose ranks are in each
/// entry's `generate` flag).
const OWN_RANKS: [(&str, u8); 13] = [
    ("seed", 0),
    ("depth", 1),
    ("branching", 2),
    ("kinds", 3),
    ("values", 4),
    ("ties", 5),
    ("evals", 6),
    ("discriminating", 20),
    ("players", 21),
    ("algorithms", 22),
    ("count", 40),
    ("max_nodes", 41),
    ("out", 42),
];

/// The table's flags `gen` offers.
fn gen_flag(setting: &Setting) -> Option<Flag> {
    setting.generate
}

impl FromArgMatches for GenArgs {
    fn from_arg_matches(matches: &ArgMatches) -> Result<GenArgs, clap::Error> {
        Ok(GenArgs { own: GenOwn::from_arg_matches(matches)?, given: setting_flags::given(matches, gen_flag) })
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = GenArgs::from_arg_matches(matches)?;
        Ok(())
    }
}

impl Args for GenArgs {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        let own = GenOwn::augment_args(clap::Command::new("gen"));
        setting_flags::augment(cmd, own, &OWN_RANKS, gen_flag)
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        GenArgs::augment_args(cmd)
    }
}

/// Ply kinds as parsed from the command line.
#[derive(Clone, Debug)]
struct Kinds(Vec<NodeKind>);

pub fn run(args: &GenArgs) -> Result<(), Failure> {
    let (args, given) = (&args.own, &args.given);
    if !(0.0..=1.0).contains(&args.ties) {
        return Err(Failure::Usage(format!("--ties {}: give a probability between 0 and 1", args.ties)));
    }
    for (setting, flag) in setting_flags::given_flags(given, gen_flag) {
        if let Some(value) = given.get(setting.key) {
            setting.check_flag(flag.long, value).map_err(|error| Failure::Usage(error.to_string()))?;
        }
    }
    // Settings that searches refuse beside those that do not take them (8.5).
    let refusable: Vec<(&Setting, Flag)> =
        setting_flags::given_flags(given, gen_flag).filter(|(setting, _)| setting.refused.is_some()).collect();
    for &algorithm in &args.algorithms {
        let resolved = SearchSettings::resolve(algorithm, *given, None, None);
        let missing = if algorithm.deepens() && resolved.depth.is_none() {
            Some("--cut (its deepest depth)")
        } else if algorithm.takes_iterations() && resolved.iterations.is_none() {
            Some("--iterations")
        } else {
            None
        };
        if let Some(missing) = missing {
            return Err(Failure::Usage(format!("--algorithm {algorithm} needs {missing}")));
        }
        if let Some((setting, flag)) = refusable.iter().find(|(setting, _)| !(setting.takes)(algorithm)) {
            return Err(Failure::Usage(format!(
                "--{} is a setting of {} (docs/format.md {}); --algorithm {algorithm} does not take it",
                flag.long,
                setting.searches(),
                setting.refused.unwrap_or("8")
            )));
        }
        if args.players.is_some() && !algorithm.vector_values() {
            return Err(Failure::Usage(format!(
                "--players draws max^n trees, which only maxn searches; --algorithm {algorithm} needs MAX and MIN"
            )));
        }
    }
    if args.players.is_some()
        && let Some((setting, flag)) = refusable.iter().find(|(setting, _)| !(setting.takes)(Algorithm::Maxn))
    {
        return Err(Failure::Usage(format!(
            "--{} is not a setting of maxn (docs/format.md {}), which --players draws trees for",
            flag.long,
            setting.refused.unwrap_or("8")
        )));
    }
    let options = GenOptions {
        seed: args.seed,
        depth: args.depth,
        branching: args.branching,
        kinds: args.kinds.0.clone(),
        values: args.values,
        ties: args.ties,
        evals: args.evals,
        cut: given.depth(),
        prune_on_equal: given.prune_on_equal(),
        discriminating: args.discriminating,
        players: args.players,
        more: args.algorithms.clone(),
        settings: *given,
    };
    check_size(&options, args.max_nodes.unwrap_or(DEFAULT_MAX_NODES))?;
    std::fs::create_dir_all(&args.out)
        .map_err(|e| Failure::runtime(format!("cannot create {}", args.out.display()), e))?;
    let mut out = String::new();
    for index in 0..args.count {
        let name = format!("gen-{}-{:03}", args.seed, index + 1);
        let tree = generate(&options, index, &name);
        let note = if args.discriminating {
            let left = mistakes_passing(&tree);
            if !left.is_empty() {
                // What was written stands (each exposes every mistake); say so before refusing.
                emit(&out);
                return Err(not_discriminating(&name, &left, index));
            }
            ", exposes every known mistake"
        } else {
            ""
        };
        let path = args.out.join(format!("{name}.yaml"));
        std::fs::write(&path, tree_to_yaml(&tree))
            .map_err(|e| Failure::runtime(format!("cannot write {}", path.display()), e))?;
        out.push_str(&format!("wrote {} ({} nodes{note})\n", path.display(), tree.len()));
    }
    emit(&out);
    Ok(())
}

/// Refuses, before any tree is drawn, options whose trees could be larger
/// than `max_nodes`: a tree is built whole in memory (50 children over 6
/// plies is 16 billion nodes), and its expectations searched whole.
fn check_size(options: &GenOptions, max_nodes: usize) -> Result<(), Failure> {
    let most = most_nodes(options);
    if most <= max_nodes as u128 {
        return Ok(());
    }
    let size = if most == u128::MAX { "more nodes than can be counted".to_string() } else { grouped(most) + " nodes" };
    Err(Failure::Usage(format!(
        "--depth {} with --branching up to {} makes trees of up to {size}, more than the limit of {} nodes: \
         lower --depth or --branching, or raise the limit with --max-nodes N",
        options.depth,
        options.branching.1,
        grouped(max_nodes as u128)
    )))
}

/// The refusal of a `--discriminating` tree that, after every draw, still
/// lets known mistakes pass.
fn not_discriminating(name: &str, passing: &[String], index: u64) -> Failure {
    let written = match index {
        0 => String::new(),
        1 => " (the tree before it was written: it exposes every known mistake)".to_string(),
        n => format!(" (the {n} trees before it were written: each exposes every known mistake)"),
    };
    Failure::Usage(format!(
        "--discriminating: none of the {DISCRIMINATING_ATTEMPTS} trees drawn for {name} exposes every known \
         mistake; the closest still passes a student who makes {}{written}. Deeper or wider trees \
         (--depth, --branching) and more ties (--ties) expose more mistakes; without --discriminating the \
         trees are written as drawn",
        passing.join(", ")
    ))
}

/// A count with thousands separated by commas: 15,943,877,551.
fn grouped(number: u128) -> String {
    let digits = number.to_string();
    let mut text = String::new();
    for (position, digit) in digits.chars().enumerate() {
        if position > 0 && (digits.len() - position).is_multiple_of(3) {
            text.push(',');
        }
        text.push(digit);
    }
    text
}

fn parse_depth(text: &str) -> Result<u32, String> {
    match text.trim().parse::<u32>() {
        Ok(depth) if depth >= 1 => Ok(depth),
        _ => Err("give the plies from the root to the leaves, a whole number from 1 (a root and its leaves)".into()),
    }
}

fn parse_branching(text: &str) -> Result<(u32, u32), String> {
    let accepted = "give the children of each internal node, N or LO..HI, whole numbers from 1";
    match parse_range::<u32>(text) {
        Ok((low, high)) if low >= 1 => Ok((low, high)),
        Ok(_) => Err(format!("an internal node has at least 1 child: {accepted}")),
        Err(problem) => Err(format!("{problem}: {accepted}")),
    }
}

fn parse_range<T: std::str::FromStr + PartialOrd + Copy>(text: &str) -> Result<(T, T), String> {
    let problem = || format!("`{text}` is not a number or a range LO..HI");
    let (low, high) = match text.split_once("..") {
        Some((low, high)) => (low.trim().parse().map_err(|_| problem())?, high.trim().parse().map_err(|_| problem())?),
        None => {
            let value = text.trim().parse().map_err(|_| problem())?;
            (value, value)
        }
    };
    if low > high {
        return Err(format!("`{text}`: the low end is above the high end"));
    }
    Ok((low, high))
}

fn parse_kinds(text: &str) -> Result<Kinds, String> {
    text.split(',')
        .map(|kind| match kind.trim() {
            "max" => Ok(NodeKind::Max),
            "min" => Ok(NodeKind::Min),
            "chance" => Ok(NodeKind::Chance),
            other => Err(format!("unknown kind `{other}` (expected max, min or chance)")),
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Kinds)
}
