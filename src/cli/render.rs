//! `treegrade render`: draw a tree, optionally with a search and a student's trace.

use std::path::{Path, PathBuf};

use clap::Args;

use super::{Failure, algorithm_parser, emit};
use crate::engine::{self, Algorithm, Recording, SearchOutcome, SearchSettings};
use crate::load::{Loaded, LoadedGame, LoadedTree, load_file};
use crate::render::{self, DEFAULT_MAX_NODES, Picture};
use crate::report::json::v1;
use crate::tree::{NodeIndex, Tree};

/// Flags of `treegrade render`.
#[derive(Debug, Args)]
pub struct RenderArgs {
    /// The tree file.
    file: PathBuf,
    /// Search to draw (repeatable: HTML shows one picture per algorithm, SVG the first).
    #[arg(long, short, value_name = "ALGORITHM", value_parser = algorithm_parser())]
    algorithm: Vec<Algorithm>,
    /// Depth limit in plies (root = ply 0); overrides the file's `search.depth`.
    #[arg(long)]
    depth: Option<u32>,
    /// Alpha-beta pruning on equality; overrides the file's `search.prune_on_equal`.
    #[arg(long, value_name = "true|false", action = clap::ArgAction::Set)]
    prune_on_equal: Option<bool>,
    /// A student's visited order to compare: one node id per line, a JSON list
    /// of ids, `solve --format json` output, or a `check --format json` report.
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
    /// Nodes drawn at most; deeper plies are summarised as "+N nodes" boxes.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_NODES)]
    max_nodes: usize,
    /// Write the picture to FILE: `.svg` or `.html` (default: SVG on stdout).
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
}

/// What to write, by the output's extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Output {
    Svg,
    Html,
}

pub fn run(args: &RenderArgs) -> Result<(), Failure> {
    let output = output_kind(args.output.as_deref())?;
    let input = |error| Failure::Input(vec![error]);
    let snapshot;
    let (tree, searches, trace) = match load_file(&args.file).map_err(input)? {
        Loaded::Written(loaded) => {
            let searches = searches(args, &loaded)?;
            if searches.is_empty()
                && let Some(path) = &args.trace
            {
                return Err(Failure::Usage(format!(
                    "--trace {} needs --algorithm: the trace is compared with the reference search",
                    path.display()
                )));
            }
            let trace = match &args.trace {
                Some(path) => Some(read_trace(path, &loaded)?),
                None => None,
            };
            snapshot = loaded.tree;
            (&snapshot, searches, trace)
        }
        Loaded::Game(game) => {
            let (tree, searches, trace) = game_part(args, &game)?;
            snapshot = tree;
            (&snapshot, searches, trace)
        }
    };
    draw(args, output, tree, &searches, trace)
}

/// One search to draw: its settings, its outcome and what it reported as it ran.
type Searched = (SearchSettings, SearchOutcome, Recording);

/// A game's picture: the part of its tree the searches entered (and the
/// nodes the trace names), as a written tree, with the searches carried over.
type Drawn = (Tree, Vec<Searched>, Option<Vec<NodeIndex>>);

fn game_part(args: &RenderArgs, game: &LoadedGame) -> Result<Drawn, Failure> {
    if args.algorithm.is_empty() {
        return Err(Failure::Usage(format!(
            "{} gives a game, whose tree is never made whole: name the search to draw with --algorithm",
            args.file.display()
        )));
    }
    let unfolded = game.unfold(None, None).map_err(|error| Failure::Input(vec![error]))?;
    let mut all_settings = Vec::new();
    let mut watched = Vec::new();
    for algorithm in algorithms(args) {
        let settings = SearchSettings::resolve(algorithm, game.defaults().search, args.depth, args.prune_on_equal);
        let searched = engine::search_recorded(&*unfolded, &settings)
            .map_err(|error| Failure::Input(vec![game.search_error(&*unfolded, &error)]))?;
        all_settings.push(settings);
        watched.push(searched);
    }
    let (trace_ids, trace_path) = match &args.trace {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|error| Failure::from_io(Some(format!("cannot read the trace {}", path.display())), error))?;
            let ids = trace_ids(&text, &args.file, game.name())
                .map_err(|message| Failure::Usage(format!("trace {}: {message}", path.display())))?;
            (ids, path.display().to_string())
        }
        None => (Vec::new(), String::new()),
    };
    let borrowed: Vec<_> = watched.iter().map(|(outcome, recording)| (outcome, recording)).collect();
    let part = render::game_part(&*unfolded, &borrowed, &trace_ids)
        .map_err(|message| Failure::Usage(format!("trace {trace_path}: {message}")))?;
    let searches = all_settings.into_iter().zip(part.searches).map(|(s, (o, r))| (s, o, r)).collect();
    let trace = args.trace.is_some().then_some(part.trace);
    Ok((part.tree, searches, trace))
}

fn draw(
    args: &RenderArgs,
    output: Output,
    tree: &Tree,
    searches: &[Searched],
    trace: Option<Vec<NodeIndex>>,
) -> Result<(), Failure> {
    let pictures: Vec<Picture<'_>> = if searches.is_empty() {
        vec![Picture { max_nodes: args.max_nodes, ..Picture::new(tree) }]
    } else {
        searches
            .iter()
            .map(|(settings, outcome, recording)| {
                let picture = Picture { max_nodes: args.max_nodes, ..Picture::new(tree) };
                let picture = picture.with_reference(settings, outcome, recording);
                match &trace {
                    Some(visited) => picture.with_student(visited),
                    None => picture,
                }
            })
            .collect()
    };
    let text = match output {
        Output::Svg => render::render_svg(&pictures[0]),
        Output::Html => html(tree, &pictures),
    };
    match &args.output {
        Some(path) => std::fs::write(path, text)
            .map_err(|error| Failure::runtime(format!("cannot write {}", path.display()), error)),
        None => {
            emit(&text);
            Ok(())
        }
    }
}

/// SVG or HTML by the output's extension; stdout gets SVG.
fn output_kind(path: Option<&Path>) -> Result<Output, Failure> {
    let Some(path) = path else { return Ok(Output::Svg) };
    let extension = path.extension().map(|e| e.to_string_lossy().to_ascii_lowercase());
    match extension.as_deref() {
        Some("svg") => Ok(Output::Svg),
        Some("html" | "htm") => Ok(Output::Html),
        _ => Err(Failure::Usage(format!(
            "cannot tell the picture format of {}: name the output `.svg` or `.html`",
            path.display()
        ))),
    }
}

/// The requested algorithms, each once, in the order given.
fn algorithms(args: &RenderArgs) -> Vec<Algorithm> {
    let mut algorithms: Vec<Algorithm> = Vec::new();
    for &algorithm in &args.algorithm {
        if !algorithms.contains(&algorithm) {
            algorithms.push(algorithm);
        }
    }
    algorithms
}

/// Runs each requested algorithm (each once, in the order given), recording
/// what it reports for the picture.
fn searches(args: &RenderArgs, loaded: &LoadedTree) -> Result<Vec<Searched>, Failure> {
    algorithms(args)
        .into_iter()
        .map(|algorithm| {
            let defaults = loaded.tree.search_defaults();
            let settings = SearchSettings::resolve(algorithm, defaults, args.depth, args.prune_on_equal);
            let (outcome, recording) = engine::search_recorded(&loaded.tree, &settings)
                .map_err(|error| Failure::Input(vec![loaded.error_at(error.node(), error.to_string())]))?;
            Ok((settings, outcome, recording))
        })
        .collect()
}

/// Reads a student's visited order and finds its nodes in `tree`.
fn read_trace(path: &Path, loaded: &LoadedTree) -> Result<Vec<NodeIndex>, Failure> {
    let tree = &loaded.tree;
    let text = std::fs::read_to_string(path)
        .map_err(|error| Failure::from_io(Some(format!("cannot read the trace {}", path.display())), error))?;
    let ids = trace_ids(&text, loaded.path(), tree.name())
        .map_err(|message| Failure::Usage(format!("trace {}: {message}", path.display())))?;
    render::indices_of(tree, &ids).map_err(|unknown| Failure::Usage(format!("trace {}: {unknown}", path.display())))
}

/// The ids of a trace, in any of the accepted forms.
fn trace_ids(text: &str, file: &Path, name: &str) -> Result<Vec<String>, String> {
    let trimmed = text.trim_start();
    if !(trimmed.starts_with('{') || trimmed.starts_with('[')) {
        return Ok(text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(String::from)
            .collect());
    }
    let json: serde_json::Value = serde_json::from_str(text).map_err(|error| format!("invalid JSON: {error}"))?;
    if let Some(ids) = id_list(&json) {
        return Ok(ids);
    }
    if let Some(visited) = json.get("visited") {
        return id_list(visited).ok_or_else(|| "`visited` must be a list of node ids".to_string());
    }
    if json.get("questions").is_some() {
        return report_trace(text, file, name);
    }
    Err("expected a list of ids, an object with `visited`, or a treegrade JSON report".to_string())
}

/// A JSON list of ids (strings, or numbers for numeric ids).
fn id_list(json: &serde_json::Value) -> Option<Vec<String>> {
    json.as_array()?
        .iter()
        .map(|id| match id {
            serde_json::Value::String(id) => Some(id.clone()),
            serde_json::Value::Number(n) => Some(n.to_string()),
            _ => None,
        })
        .collect()
}

/// The student's order of the one test in a treegrade report that ran this
/// tree (same file stem or tree name), or of its only test.
fn report_trace(text: &str, file: &Path, name: &str) -> Result<Vec<String>, String> {
    let report = v1::Report::from_json(text).map_err(|error| error.to_string())?;
    let own_stem = file.file_stem().map(|s| s.to_string_lossy().into_owned());
    let tests: Vec<&v1::Test> = report.tests().collect();
    let stem_of = |test: &&v1::Test| Path::new(&test.path).file_stem().map(|s| s.to_string_lossy().into_owned());
    let matching: Vec<&v1::Test> = tests
        .iter()
        .filter(|test| stem_of(test) == own_stem || stem_of(test).as_deref() == Some(name))
        .copied()
        .collect();
    let test = match (matching.as_slice(), tests.as_slice()) {
        ([one], _) | ([], [one]) => one,
        ([], _) => return Err(format!("the report has no test of the tree `{name}`")),
        _ => {
            let names: Vec<&str> = matching.iter().map(|t| t.name.as_str()).collect();
            return Err(format!("the report tests the tree `{name}` more than once ({})", names.join(", ")));
        }
    };
    Ok(test.actual.visited.clone())
}

/// A page with one picture per search, side by side.
fn html(tree: &Tree, pictures: &[Picture<'_>]) -> String {
    let mut body = format!("<h1>{}</h1>\n", render::escape(tree.name()));
    if let Some(description) = tree.description() {
        body.push_str(&format!("<p>{}</p>\n", render::escape(description)));
    }
    body.push_str("<div class=\"pictures\">\n");
    let svgs: Vec<String> = pictures.iter().map(render::render_svg).collect();
    for svg in &svgs {
        body.push_str(&format!("<figure>\n{svg}</figure>\n"));
    }
    body.push_str("</div>\n");
    // With a trace: step through it beside each reference search.
    let mut steppers = false;
    for (picture, svg) in pictures.iter().zip(&svgs) {
        if let (Some(reference), Some(student)) = (picture.reference, picture.student) {
            let stepper = render::stepper::section(tree, reference, student, svg);
            body.push_str(&format!("<h2>Step through: {}</h2>\n{stepper}\n", reference.settings.algorithm));
            steppers = true;
        }
    }
    if steppers {
        body.push_str(&format!(
            "<style>{}</style>\n<script>{}</script>\n",
            render::stepper::STYLE,
            render::stepper::SCRIPT
        ));
    }
    render::html_page(&format!("{}: treegrade render", tree.name()), &body)
}
