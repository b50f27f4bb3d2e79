//! `treegrade solve`: run the reference engine on one tree file, written or
//! given by a game.

use std::fmt::Write as _;
use std::path::PathBuf;

use clap::Args;
use serde::Serialize;

use super::{Failure, TextOrJson, algorithm_parser, emit};
use crate::compare::format_value;
use crate::compare::format_vector;
use crate::engine::{self, Algorithm, MoveOrdering, SearchOutcome, SearchSettings, SearchStats, SettingOverrides};
use crate::load::{Loaded, load_file};
use crate::tree::GameTree;

/// Flags of `treegrade solve` (docs/format.md sections 4 and 8).
#[derive(Debug, Args)]
pub struct SolveArgs {
    /// The tree file.
    file: PathBuf,
    /// Which search to run.
    #[arg(long, short, value_parser = algorithm_parser())]
    algorithm: Algorithm,
    /// Depth limit in plies (root = ply 0); overrides the file's `search.depth`.
    #[arg(long)]
    depth: Option<u32>,
    /// Alpha-beta pruning on equality; overrides the file's `search.prune_on_equal`.
    #[arg(long, value_name = "true|false", action = clap::ArgAction::Set)]
    prune_on_equal: Option<bool>,
    /// Search children by static value (`eval`, docs/format.md 8.1) or in
    /// the tree's order (`tree`); overrides the file's `search.move_ordering`.
    #[arg(long, value_name = "eval|tree")]
    move_ordering: Option<MoveOrdering>,
    /// Forward pruning: search only the N best children of each max or min
    /// node by static value (docs/format.md 8.5; minimax, alphabeta and
    /// expectimax); overrides the file's `search.forward_pruning`.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..), allow_negative_numbers = true)]
    forward_pruning: Option<u32>,
    /// The game's evaluation for depth cuts (`lines`, `score`); overrides the
    /// file's `search.eval`. Games only.
    #[arg(long, value_name = "NAME")]
    eval: Option<String>,
    /// The most nodes a game's tree may make before the search is refused
    /// (default 2,000,000). Games only.
    #[arg(long, value_name = "N")]
    max_nodes: Option<usize>,
    /// Iterative deepening's node budget: the most nodes its iterations may
    /// enter in all (docs/format.md 8.2); overrides the file's `search.budget`.
    #[arg(long, value_name = "NODES", value_parser = clap::value_parser!(u64).range(1..), allow_negative_numbers = true)]
    budget: Option<u64>,
    /// MCTS's number of iterations (8.4); overrides the file's `search.iterations`.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..), allow_negative_numbers = true)]
    iterations: Option<u32>,
    /// The seed of MCTS's SplitMix64 draws, 0 to 2^64 - 1 (8.4); overrides
    /// the file's `search.seed` (default 0).
    #[arg(long, value_name = "S", allow_negative_numbers = true)]
    seed: Option<u64>,
    /// UCT's exploration constant c (8.4); overrides the file's
    /// `search.exploration` (default sqrt(2)).
    #[arg(long, value_name = "C", value_parser = parse_exploration, allow_negative_numbers = true)]
    exploration: Option<f64>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: TextOrJson,
}

/// The JSON of docs/format.md section 4 after the visited list (which is
/// written first, id by id); the first four keys never change meaning.
#[derive(Debug, Serialize)]
struct SolveTail {
    depth: Option<u32>,
    prune_on_equal: bool,
    /// Written only when the search ordered children by static value (8.1).
    #[serde(skip_serializing_if = "Option::is_none")]
    move_ordering: Option<&'static str>,
    /// Forward pruning's N (8.5), when the search cut forward.
    #[serde(skip_serializing_if = "Option::is_none")]
    forward_pruning: Option<u32>,
    /// Iterative deepening's node budget (8.2), when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    budget: Option<u64>,
    /// MCTS's settings (8.4).
    #[serde(skip_serializing_if = "Option::is_none")]
    seed: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    exploration: Option<f64>,
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
    let loaded = load_file(&args.file).map_err(|error| Failure::Input(vec![error]))?;
    let defaults = loaded.search_defaults();
    let overrides = SettingOverrides {
        budget: args.budget,
        iterations: args.iterations,
        seed: args.seed,
        exploration: args.exploration,
        move_ordering: args.move_ordering,
        forward_pruning: args.forward_pruning,
    };
    let settings =
        SearchSettings::resolve(args.algorithm, defaults, args.depth, args.prune_on_equal).with_overrides(&overrides);
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
    let is_mcts = settings.algorithm.draws_random();
    let tail = SolveTail {
        depth: settings.depth,
        prune_on_equal: settings.prune_on_equal,
        move_ordering: (settings.move_ordering == MoveOrdering::Eval || settings.forward_pruning.is_some())
            .then_some("eval"),
        forward_pruning: settings.forward_pruning,
        budget: settings.budget.filter(|_| settings.algorithm.takes_budget()),
        seed: is_mcts.then_some(settings.seed),
        exploration: is_mcts.then_some(settings.exploration),
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
    let _ = writeln!(out, "algorithm  {}", describe_settings(settings));
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

fn describe_settings(settings: &SearchSettings) -> String {
    let depth = settings.depth.map_or("no depth limit".to_string(), |d| format!("depth limit {d}"));
    let ordering = match (settings.forward_pruning, settings.move_ordering) {
        (Some(n), _) => format!(", forward pruning: the {n} best children by static value"),
        (None, MoveOrdering::Eval) => ", children by static value".to_string(),
        (None, MoveOrdering::Tree) => String::new(),
    };
    let rule = if settings.prune_on_equal { "prunes on equality" } else { "prunes only on strict inequality" };
    match settings.algorithm {
        Algorithm::AlphaBeta => format!("alphabeta ({rule}, {depth}{ordering})"),
        Algorithm::IterativeDeepening => {
            let deepest = settings.depth.map_or("no depth".to_string(), |d| format!("depths 1 to {d}"));
            let budget = settings.budget.map_or("no budget".to_string(), |b| format!("a budget of {b} nodes"));
            format!("iterative-deepening ({rule}, {deepest}, {budget})")
        }
        Algorithm::Maxn => format!("maxn ({depth})"),
        Algorithm::Mcts => format!(
            "mcts ({} iterations, seed {}, exploration {}, {depth})",
            settings.iterations.unwrap_or(0),
            settings.seed,
            settings.exploration
        ),
        algorithm @ (Algorithm::Minimax | Algorithm::Expectimax) => format!("{algorithm} ({depth}{ordering})"),
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

/// `--exploration`: a finite number, 0 or more.
fn parse_exploration(text: &str) -> Result<f64, String> {
    let value: f64 = text.parse().map_err(|_| format!("`{text}` is not a number"))?;
    crate::load::check_exploration(value).map(|()| value).map_err(|error| error.to_string())
}
