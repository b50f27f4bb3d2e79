//! `treegrade solve`: run the reference engine on one tree file, written or
//! given by a game.

use std::fmt::Write as _;
use std::path::PathBuf;

use clap::{ArgMatches, Args, FromArgMatches};
use serde::Serialize;

use super::{Failure, TextOrJson, algorithm_parser, emit, setting_flags};
use crate::compare::format_value;
use crate::compare::format_vector;
use crate::engine::settings::{Flag, Setting};
use crate::engine::{self, Algorithm, SETTINGS, SearchOutcome, SearchSettings, SearchStats};
use crate::load::{Loaded, load_file};
use crate::tree::{GameTree, SearchDefaults};

/// Flags of `treegrade solve` (docs/format.md sections 4 and 8): its own,
/// and a flag for each setting of the engine's table that `solve` offers
/// (`--depth`, `--prune-on-equal`, `--budget`, ...), each overriding the
/// file's `search:` key.
#[derive(Debug)]
pub struct SolveArgs {
    own: SolveOwn,
    /// The settings the flags gave, by key.
    given: SearchDefaults,
}

/// The flags of `solve` that are not settings of searches.
#[derive(Debug, Args)]
struct SolveOwn {
    /// The tree file.
    file: PathBuf,
    /// Which search to run.
    #[arg(long, short, value_parser = algorithm_parser())]
    algorithm: Algorithm,
    /// The game's evaluation for depth cuts (`lines`, `score`); overrides the
    /// file's `search.eval`. Games only.
    #[arg(long, value_name = "NAME")]
    eval: Option<String>,
    /// The most nodes a game's tree may make before the search is refused
    /// (default 2,000,000). Games only.
    #[arg(long, value_name = "N")]
    max_nodes: Option<usize>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: TextOrJson,
}

/// Where `solve`'s own flags stand among the table's (whose ranks are in
/// each entry's `solve` flag): the file and the search, the settings of
/// section 3's searches, the game's, the settings of section 8's, the format.
const OWN_RANKS: [(&str, u8); 5] = [("file", 0), ("algorithm", 1), ("eval", 20), ("max_nodes", 21), ("format", 40)];

/// The table's flags `solve` offers.
fn solve_flag(setting: &Setting) -> Option<Flag> {
    setting.solve
}

impl FromArgMatches for SolveArgs {
    fn from_arg_matches(matches: &ArgMatches) -> Result<SolveArgs, clap::Error> {
        Ok(SolveArgs { own: SolveOwn::from_arg_matches(matches)?, given: setting_flags::given(matches, solve_flag) })
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = SolveArgs::from_arg_matches(matches)?;
        Ok(())
    }
}

impl Args for SolveArgs {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        let own = SolveOwn::augment_args(clap::Command::new("solve"));
        setting_flags::augment(cmd, own, &OWN_RANKS, solve_flag)
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        SolveArgs::augment_args(cmd)
    }
}

/// The JSON of docs/format.md section 4 after the settings (which are
/// written first, `depth`, `prune_on_equal`, then each of the table's that
/// the search shows); the first four keys never change meaning.
#[derive(Debug, Serialize)]
struct SolveTail {
    /// MCTS's root children (8.4): action, N and W, in the tree's order.
    #[serde(skip_serializing_if = "Option::is_none")]
    children: Option<Vec<ChildJson>>,
    /// MCTS's number of random draws (8.4).
    #[serde(skip_serializing_if = "Option::is_none")]
    draws: Option<u64>,
    stats: StatsJson,
}

/// One root child of an MCTS search.
#[derive(Debug, Serialize)]
struct ChildJson {
    action: String,
    n: u64,
    w: f64,
}

#[derive(Debug, Serialize)]
struct StatsJson {
    /// Nodes of the whole tree; null for a game, whose tree is never made whole.
    tree_nodes: Option<usize>,
    visited: usize,
    pruned: Option<usize>,
    cutoffs: usize,
    /// Nodes a game's tree made (entered, or listed as a child of an entered node).
    #[serde(skip_serializing_if = "Option::is_none")]
    made: Option<usize>,
}

pub fn run(args: &SolveArgs) -> Result<(), Failure> {
    let (args, given) = (&args.own, &args.given);
    let loaded = load_file(&args.file).map_err(|error| Failure::Input(vec![error]))?;
    // The flags' settings over the file's.
    let mut defaults = loaded.search_defaults();
    for (key, value) in given.iter() {
        defaults.set(key, value);
    }
    let settings = SearchSettings::resolve(args.algorithm, defaults, None, None);
    let input = |error| Failure::Input(vec![error]);
    let game_tree: Box<dyn GameTree + Send>;
    let (tree, outcome): (&dyn GameTree, SearchOutcome) = match &loaded {
        Loaded::Written(written) => {
            if args.eval.is_some() {
                let message = "--eval names a game's evaluation; a written tree's nodes carry their own `eval`";
                return Err(Failure::Usage(message.to_string()));
            }
            (&written.tree, written.search(&settings).map_err(input)?)
        }
        Loaded::Game(game) => {
            let (unfolded, outcome) = game.search(&settings, args.eval.as_deref(), args.max_nodes).map_err(input)?;
            game_tree = unfolded;
            (&*game_tree, outcome)
        }
    };
    match args.format {
        TextOrJson::Json => emit_json(tree, &settings, &outcome),
        TextOrJson::Text => emit(&text(&loaded, tree, &settings, &outcome)),
    }
    // The process ends now: freeing a large tree node by node would only
    // cost time (milliseconds on a tree of 350,000 nodes).
    std::mem::forget(outcome);
    std::mem::forget(loaded);
    Ok(())
}

/// Prints the `--format json` object to stdout in pieces: a game's search
/// may enter half a million nodes, whose ids are spelled only here.
fn emit_json(tree: &dyn GameTree, settings: &SearchSettings, outcome: &SearchOutcome) {
    let mut chunk = String::with_capacity(1 << 16);
    json_in_pieces(
        tree,
        settings,
        outcome,
        |piece: &mut String| {
            emit(piece);
            piece.clear();
        },
        &mut chunk,
    );
}

/// Writes the JSON into `chunk`, handing it to `flush` whenever it is large
/// and at the end.
fn json_in_pieces(
    tree: &dyn GameTree,
    settings: &SearchSettings,
    outcome: &SearchOutcome,
    mut flush: impl FnMut(&mut String),
    chunk: &mut String,
) {
    let stats = engine::stats(tree, settings, outcome);
    let string = |text: &str| serde_json::to_string(text).expect("a string serialises");
    let out = chunk;
    let value = match outcome.vector() {
        Some(vector) => serde_json::to_string(vector),
        None => serde_json::to_string(&outcome.value),
    };
    let _ = write!(
        out,
        "{{\"algorithm\":{},\"value\":{},\"action\":{},\"visited\":",
        string(settings.algorithm.name()),
        value.expect("numbers serialise"),
        outcome.action.map_or("null".to_string(), |child| string(&tree.action(child)))
    );
    push_json_ids(tree, &outcome.visited, out, &mut flush);
    out.push(',');
    if !outcome.iterations().is_empty() {
        out.push_str("\"iterations\":[");
        for (i, (iteration, visits)) in outcome.iterations_with_visits().enumerate() {
            if i > 0 {
                out.push(',');
            }
            let _ = write!(
                out,
                "{{\"depth\":{},\"value\":{},\"action\":{},\"complete\":{},\"visited\":",
                iteration.depth,
                iteration.value.map_or("null".to_string(), |value| serde_json::to_string(&value).expect("a number")),
                iteration.action.map_or("null".to_string(), |child| string(&tree.action(child))),
                iteration.complete
            );
            push_json_ids(tree, visits, out, &mut flush);
            out.push('}');
        }
        out.push_str("],");
    }
    let mcts = outcome.mcts();
    let _ = write!(out, "\"depth\":{},\"prune_on_equal\":{}", json(&settings.depth), settings.prune_on_equal);
    for setting in &SETTINGS {
        if let Some(value) = setting.shown.and_then(|shown| shown(settings)) {
            let _ = write!(out, ",\"{}\":{}", setting.key, json(&value));
        }
    }
    let tail = SolveTail {
        children: mcts.map(|summary| {
            summary
                .children
                .iter()
                .map(|child| ChildJson { action: tree.action(child.node).into_owned(), n: child.n, w: child.w })
                .collect()
        }),
        draws: mcts.map(|summary| summary.draws),
        stats: StatsJson {
            tree_nodes: stats.tree_nodes,
            visited: stats.visited,
            pruned: stats.pruned,
            cutoffs: outcome.cutoffs.len() + outcome.iterations().iter().map(|i| i.cutoffs.len()).sum::<usize>(),
            made: tree.size().is_none().then(|| tree.made()),
        },
    };
    let tail = serde_json::to_string(&tail).expect("plain data serialises");
    out.push(',');
    out.push_str(&tail[1..]);
    out.push('\n');
    flush(out);
}

/// Appends a list of node ids as a JSON array, handing `out` to `flush`
/// whenever it grows large.
fn push_json_ids(
    tree: &dyn GameTree,
    nodes: &[crate::tree::NodeIndex],
    out: &mut String,
    flush: &mut impl FnMut(&mut String),
) {
    out.push('[');
    for (i, &node) in nodes.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_json_id(tree, node, out);
        if out.len() >= 1 << 16 {
            flush(out);
        }
    }
    out.push(']');
}

/// Appends a node's id as a JSON string; ids that need no escaping (every
/// built-in game's) are copied as they are.
fn push_json_id(tree: &dyn GameTree, node: crate::tree::NodeIndex, out: &mut String) {
    out.push('"');
    let start = out.len();
    tree.write_id(node, out);
    if out[start..].bytes().any(|byte| byte == b'"' || byte == b'\\' || byte < 0x20) {
        let id = out.split_off(start);
        let escaped = serde_json::to_string(&id).expect("a string serialises");
        out.push_str(&escaped[1..]);
    } else {
        out.push('"');
    }
}

/// The `--format text` report.
pub fn text(loaded: &Loaded, tree: &dyn GameTree, settings: &SearchSettings, outcome: &SearchOutcome) -> String {
    let stats = engine::stats(tree, settings, outcome);
    let mut out = String::new();
    let _ = writeln!(out, "tree       {} ({})", tree.name(), loaded.path().display());
    let _ = writeln!(out, "algorithm  {}", settings.describe());
    let value = outcome.vector().map_or_else(|| format_value(outcome.value), format_vector);
    let _ = writeln!(out, "value      {value}");
    let action = outcome.action.map_or("none (the root does not choose)".into(), |child| tree.action(child));
    let _ = writeln!(out, "action     {action}");
    let _ = writeln!(out, "visited    {}", describe_stats(tree, settings, &stats));
    if outcome.iterations().is_empty() {
        let visited: Vec<String> = outcome.visited.iter().map(|&node| tree.id(node).into_owned()).collect();
        let _ = writeln!(out, "order      {}", visited.join(" "));
        push_cutoffs(&mut out, tree, settings, &outcome.cutoffs, "cutoff     ");
    }
    for (iteration, visits) in outcome.iterations_with_visits() {
        push_iteration(&mut out, tree, iteration, visits);
    }
    if let Some(summary) = outcome.mcts() {
        for child in &summary.children {
            let mean =
                if child.n > 0 { format!(", W/N {}", format_value(child.w / child.n as f64)) } else { String::new() };
            let _ = writeln!(
                out,
                "child      {}: N {}, W {}{mean}",
                tree.action(child.node),
                child.n,
                format_value(child.w)
            );
        }
        let _ = writeln!(out, "draws      {}", summary.draws);
    }
    out
}

/// One iteration of iterative deepening (8.2): its answer and its order.
fn push_iteration(
    out: &mut String,
    tree: &dyn GameTree,
    iteration: &engine::Iteration,
    visits: &[crate::tree::NodeIndex],
) {
    let answer = match iteration.value {
        Some(value) => {
            let action = iteration.action.map_or("none".into(), |child| tree.action(child));
            format!("value {}, action {action}", format_value(value))
        }
        None => "cut short by the budget, counts for nothing".to_string(),
    };
    let ids: Vec<String> = visits.iter().map(|&node| tree.id(node).into_owned()).collect();
    let _ = writeln!(out, "depth {:<4} {answer}; {}", iteration.depth, crate::compare::count_nodes(visits.len()));
    let order = if ids.is_empty() { "(no node entered)".to_string() } else { ids.join(" ") };
    let _ = writeln!(out, "  order    {order}");
    let settings = SearchSettings { depth: Some(iteration.depth), ..SearchSettings::new(Algorithm::AlphaBeta) };
    push_cutoffs(out, tree, &settings, &iteration.cutoffs, "  cutoff   ");
}

/// The `cutoff` lines, each after `label`: where a search stopped a node's
/// children, and which it skipped.
fn push_cutoffs(
    out: &mut String,
    tree: &dyn GameTree,
    settings: &SearchSettings,
    cutoffs: &[engine::Cutoff],
    label: &str,
) {
    for cutoff in cutoffs {
        let searched_order = engine::searched_order(tree, settings, cutoff.node);
        let count = searched_order.len();
        let skipped: Vec<String> =
            searched_order.iter().skip(cutoff.searched as usize).map(|&c| tree.id(c).into_owned()).collect();
        let _ = writeln!(
            out,
            "{label}at {} after {} of {count} children: skipped {}",
            tree.id(cutoff.node),
            cutoff.searched,
            skipped.join(", ")
        );
    }
}

fn describe_stats(tree: &dyn GameTree, settings: &SearchSettings, stats: &SearchStats) -> String {
    let (Some(tree_nodes), Some(within_depth), Some(pruned)) = (stats.tree_nodes, stats.within_depth, stats.pruned)
    else {
        return format!(
            "{} (a game's tree, made as searched: {} made, the entered ones and their siblings)",
            crate::compare::count_nodes(stats.visited),
            crate::compare::count_nodes(tree.made())
        );
    };
    if settings.algorithm.deepens() {
        return format!("{} entries in all iterations, of a tree of {tree_nodes} nodes", stats.visited);
    }
    let mut line = format!("{} of {tree_nodes} nodes", stats.visited);
    let below_cut = tree_nodes - within_depth;
    if settings.algorithm.window_per_node() {
        let _ = write!(line, ", {pruned} pruned");
    }
    if below_cut > 0 {
        let _ = write!(line, ", {below_cut} below the depth cut");
    }
    line
}

/// A value in JSON.
fn json(value: &impl Serialize) -> String {
    serde_json::to_string(value).expect("plain data serialises")
}
