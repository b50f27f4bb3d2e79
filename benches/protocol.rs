//! Protocol cost per entered node, next to the physical floor.
//!
//! `cargo bench --bench protocol` prints, in microseconds:
//! - the floor: one line to `cat` and back over two pipes, with plain
//!   blocking reads and writes (what any two processes pay);
//! - the same round trip through the grader's runner (poll loop, deadlines);
//! - a whole minimax search of a 111,111-node tree (branching 10, depth 5)
//!   served to the Python and the Rust reference solutions through their
//!   kits, divided by the nodes they entered;
//! - full minimax on tic-tac-toe from the empty board (549,946 nodes), a
//!   game's tree made as it is served, to the Python reference of the games
//!   assignment: what grading a student's whole tic-tac-toe search costs.
//!
//! Each figure is the median of several runs.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use treegrade::engine::{Algorithm, SearchSettings};
use treegrade::game::{GameArgs, UnfoldOptions};
use treegrade::grader::plan::Served;
use treegrade::grader::runner::{ProgramSpec, RunningProgram};
use treegrade::grader::session::{SearchJob, SessionLimits, run_searches};
use treegrade::grader::submission;
use treegrade::tree::{ChildSpec, NodeKind, NodeSpec, Tree, TreeBuilder};

const ROUND_TRIPS: usize = 100_000;
const RUNS: usize = 5;
/// A typical reply line: a max node with ten children.
const LINE: &str = "{\"type\":\"node\",\"node\":\"n123\",\"kind\":\"max\",\"children\":[\"n1\",\"n2\",\"n3\",\"n4\",\"n5\",\"n6\",\"n7\",\"n8\",\"n9\",\"n10\"]}\n";

fn main() {
    if !std::env::args().any(|arg| arg == "--bench") {
        println!("protocol benchmark: run it with `cargo bench --bench protocol`");
        return;
    }
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tree = uniform_tree(10, 5);
    println!("tree: {} nodes (branching 10, depth 5), minimax; medians of {RUNS} runs\n", tree.len());
    let floor = median(bare_pipe_round_trip);
    let runner = median(runner_round_trip);
    println!("{:<44} {:>10}", "what", "us/node");
    println!("{:<44} {:>10.2}", "bare pipe round trip (blocking I/O, cat)", floor);
    println!("{:<44} {:>10.2}", "round trip through the grader's runner", runner);
    let kits = submission::write_kits().expect("temporary folder");
    let python = ProgramSpec {
        command: vec!["python3".into(), "-u".into(), "search.py".into()],
        dir: repo.join("reference/python"),
        env: vec![
            ("PATH".into(), std::env::var_os("PATH").unwrap_or_default()),
            ("PYTHONPATH".into(), kits.path().join("python").into_os_string()),
        ],
        policy: None,
    };
    let python_cost = median(|| per_node(&python, &tree));
    println!("{:<44} {:>10.2}", "Python kit + reference/python (whole search)", python_cost);
    match build_rust_reference(repo) {
        Some(binary) => {
            let rust = ProgramSpec {
                command: vec![binary.display().to_string()],
                dir: repo.join("reference/rust"),
                env: vec![],
                policy: None,
            };
            let rust_cost = median(|| per_node(&rust, &tree));
            println!("{:<44} {:>10.2}", "Rust kit + reference/rust (whole search)", rust_cost);
            println!("\nRust kit: {:.2}x the floor (target: within 3x)", rust_cost / floor);
        }
        None => println!("Rust reference did not build; skipped"),
    }
    println!("Python kit: {python_cost:.1} us per node (target: under 20 us)");
    let games = ProgramSpec { dir: repo.join("reference/games/python"), ..python };
    let (nodes, seconds) = tic_tac_toe(&games);
    println!(
        "\nPython kit + reference/games/python, full tic-tac-toe minimax: {nodes} nodes in {seconds:.2} s, \
         {:.2} us per node ({:.1}x the floor)",
        seconds * 1e6 / nodes as f64,
        seconds * 1e6 / nodes as f64 / floor
    );
}

/// Serves full minimax on tic-tac-toe from the empty board: nodes entered and seconds.
fn tic_tac_toe(spec: &ProgramSpec) -> (usize, f64) {
    let game = treegrade::game::make(&GameArgs { name: "tic-tac-toe", params: &[], position: None, utility: None })
        .expect("tic-tac-toe is built in");
    let tree = Served::Game(game.unfold(&UnfoldOptions::default()).expect("it unfolds"));
    let job = SearchJob { name: "ttt", tree: &tree, settings: SearchSettings::new(Algorithm::Minimax), budget: None };
    let started = Instant::now();
    let records = run_searches(spec, &[job], SessionLimits { per_search: Duration::from_secs(600), submission: None });
    let elapsed = started.elapsed().as_secs_f64();
    let record = &records[0];
    assert!(record.answer.is_ok(), "the reference must answer: {:?}\n{}", record.answer, record.stderr);
    assert_eq!(record.visited.len(), 549_946, "full minimax enters every node");
    (record.visited.len(), elapsed)
}

/// A uniform max/min tree; leaf values from a fixed sequence.
fn uniform_tree(branching: usize, depth: u32) -> Tree {
    let mut builder = TreeBuilder::new("uniform", "n0");
    let mut next_id = 1usize;
    let mut frontier = vec![("n0".to_string(), 0u32)];
    let mut seed = 42u64;
    while let Some((id, ply)) = frontier.pop() {
        let kind = if ply % 2 == 0 { NodeKind::Max } else { NodeKind::Min };
        let mut children = Vec::with_capacity(branching);
        for _ in 0..branching {
            if ply + 1 == depth {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                children.push(ChildSpec::leaf(((seed >> 33) % 2001) as f64 - 1000.0));
            } else {
                let child = format!("n{next_id}");
                next_id += 1;
                frontier.push((child.clone(), ply + 1));
                children.push(ChildSpec::id(child));
            }
        }
        builder.add(NodeSpec::internal(id, kind, children));
    }
    builder.build().expect("a uniform tree is valid")
}

fn median(mut measure: impl FnMut() -> f64) -> f64 {
    let mut samples: Vec<f64> = (0..RUNS).map(|_| measure()).collect();
    samples.sort_by(f64::total_cmp);
    samples[RUNS / 2]
}

/// Microseconds per round trip of [`LINE`] through `cat` with blocking I/O.
fn bare_pipe_round_trip() -> f64 {
    let mut child = Command::new("cat").stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().expect("cat");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    let started = Instant::now();
    for _ in 0..ROUND_TRIPS {
        stdin.write_all(LINE.as_bytes()).unwrap();
        stdin.flush().unwrap();
        line.clear();
        stdout.read_line(&mut line).unwrap();
    }
    let elapsed = started.elapsed();
    drop(stdin);
    let _ = child.wait();
    elapsed.as_secs_f64() * 1e6 / ROUND_TRIPS as f64
}

/// The same round trip through [`RunningProgram`] (poll, deadlines, line splitting).
fn runner_round_trip() -> f64 {
    let spec = ProgramSpec { command: vec!["cat".into()], dir: std::env::temp_dir(), env: vec![], policy: None };
    let mut program = RunningProgram::start(&spec).expect("cat");
    let deadline = Instant::now() + Duration::from_secs(120);
    let started = Instant::now();
    for _ in 0..ROUND_TRIPS {
        program.send(LINE, deadline).unwrap();
        program.receive(deadline).unwrap();
    }
    let elapsed = started.elapsed();
    program.kill();
    elapsed.as_secs_f64() * 1e6 / ROUND_TRIPS as f64
}

/// Microseconds per entered node for one full search served to `spec`.
fn per_node(spec: &ProgramSpec, tree: &Tree) -> f64 {
    let served = Served::Written(tree);
    let job =
        SearchJob { name: "bench", tree: &served, settings: SearchSettings::new(Algorithm::Minimax), budget: None };
    let started = Instant::now();
    let records = run_searches(spec, &[job], SessionLimits { per_search: Duration::from_secs(600), submission: None });
    let elapsed = started.elapsed();
    let record = &records[0];
    assert!(record.answer.is_ok(), "the reference must answer: {:?}\n{}", record.answer, record.stderr);
    assert_eq!(record.visited.len(), tree.len(), "minimax enters every node");
    elapsed.as_secs_f64() * 1e6 / record.visited.len() as f64
}

fn build_rust_reference(repo: &Path) -> Option<PathBuf> {
    let manifest = repo.join("reference/rust/Cargo.toml");
    let status = Command::new("cargo")
        .args(["build", "--release", "--offline", "--quiet", "--manifest-path"])
        .arg(&manifest)
        .status()
        .ok()?;
    status.success().then(|| repo.join("reference/rust/target/release/search"))
}
