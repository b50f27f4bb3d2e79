//! `treegrade solve`: run the reference engine on one tree file.

use std::fmt::Write as _;
use std::path::PathBuf;

use clap::Args;
use serde::Serialize;

use super::{AlgorithmArg, Failure, TextOrJson, emit};
use crate::compare::format_value;
use crate::engine::{self, SearchOutcome, SearchSettings, SearchStats};
use crate::load::{LoadedTree, load_tree_file};
use crate::tree::Tree;

/// Flags of `treegrade solve` (docs/format.md section 4).
#[derive(Debug, Args)]
pub struct SolveArgs {
    /// The tree file.
    file: PathBuf,
    /// Which search to run.
    #[arg(long, short, value_enum)]
    algorithm: AlgorithmArg,
    /// Depth limit in plies (root = ply 0); overrides the file's `search.depth`.
    #[arg(long)]
    depth: Option<u32>,
    /// Alpha-beta pruning on equality; overrides the file's `search.prune_on_equal`.
    #[arg(long, value_name = "true|false", action = clap::ArgAction::Set)]
    prune_on_equal: Option<bool>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: TextOrJson,
}

/// The JSON of docs/format.md section 4; the first four keys never change meaning.
#[derive(Debug, Serialize)]
pub struct SolveJson<'a> {
    algorithm: &'static str,
    value: f64,
    action: Option<&'a str>,
    visited: Vec<&'a str>,
    depth: Option<u32>,
    prune_on_equal: bool,
    stats: StatsJson,
}

#[derive(Debug, Serialize)]
struct StatsJson {
    tree_nodes: usize,
    visited: usize,
    pruned: usize,
    cutoffs: usize,
}

pub fn run(args: &SolveArgs) -> Result<(), Failure> {
    let loaded = load_tree_file(&args.file).map_err(|error| Failure::Input(vec![error]))?;
    let settings =
        SearchSettings::resolve(args.algorithm.into(), loaded.tree.search_defaults(), args.depth, args.prune_on_equal);
    let outcome = loaded.search(&settings).map_err(|error| Failure::Input(vec![error]))?;
    let output = match args.format {
        TextOrJson::Json => json(&loaded.tree, &settings, &outcome),
        TextOrJson::Text => text(&loaded, &settings, &outcome),
    };
    emit(&output);
    // The process ends now: freeing a large tree node by node would only
    // cost time (milliseconds on a tree of 350,000 nodes).
    std::mem::forget(loaded);
    Ok(())
}

/// The `--format json` object, newline-terminated.
pub fn json(tree: &Tree, settings: &SearchSettings, outcome: &SearchOutcome) -> String {
    let stats = engine::stats(tree, settings, outcome);
    let body = SolveJson {
        algorithm: settings.algorithm.name(),
        value: outcome.value,
        action: outcome.action.map(|child| tree.action(child)),
        visited: outcome.visited.iter().map(|&node| tree.id(node)).collect(),
        depth: settings.depth,
        prune_on_equal: settings.prune_on_equal,
        stats: StatsJson {
            tree_nodes: stats.tree_nodes,
            visited: stats.visited,
            pruned: stats.pruned,
            cutoffs: outcome.cutoffs.len(),
        },
    };
    let mut out = serde_json::to_string(&body).expect("plain data serialises");
    out.push('\n');
    out
}

/// The `--format text` report.
pub fn text(loaded: &LoadedTree, settings: &SearchSettings, outcome: &SearchOutcome) -> String {
    let tree = &loaded.tree;
    let stats = engine::stats(tree, settings, outcome);
    let mut out = String::new();
    let _ = writeln!(out, "tree       {} ({})", tree.name(), loaded.path().display());
    let _ = writeln!(out, "algorithm  {}", describe_settings(settings));
    let _ = writeln!(out, "value      {}", format_value(outcome.value));
    let action = outcome.action.map_or("none (the root does not choose)", |child| tree.action(child));
    let _ = writeln!(out, "action     {action}");
    let _ = writeln!(out, "visited    {}", describe_stats(settings, &stats));
    let visited: Vec<&str> = outcome.visited.iter().map(|&node| tree.id(node)).collect();
    let _ = writeln!(out, "order      {}", visited.join(" "));
    for cutoff in &outcome.cutoffs {
        let node = tree.node(cutoff.node);
        let skipped: Vec<&str> =
            tree.children(cutoff.node).skip(cutoff.searched as usize).map(|c| tree.id(c)).collect();
        let _ = writeln!(
            out,
            "cutoff     at {} after {} of {} children: skipped {}",
            tree.id(cutoff.node),
            cutoff.searched,
            node.child_count,
            skipped.join(", ")
        );
    }
    out
}

fn describe_settings(settings: &SearchSettings) -> String {
    let depth = settings.depth.map_or("no depth limit".to_string(), |d| format!("depth limit {d}"));
    match settings.algorithm {
        engine::Algorithm::AlphaBeta => {
            let rule = if settings.prune_on_equal { "prunes on equality" } else { "prunes only on strict inequality" };
            format!("alphabeta ({rule}, {depth})")
        }
        algorithm => format!("{algorithm} ({depth})"),
    }
}

fn describe_stats(settings: &SearchSettings, stats: &SearchStats) -> String {
    let mut line = format!("{} of {} nodes", stats.visited, stats.tree_nodes);
    let below_cut = stats.tree_nodes - stats.within_depth;
    if settings.algorithm == engine::Algorithm::AlphaBeta {
        let _ = write!(line, ", {} pruned", stats.pruned);
    }
    if below_cut > 0 {
        let _ = write!(line, ", {below_cut} below the depth cut");
    }
    line
}
