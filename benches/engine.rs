//! Load and search throughput on a uniform tree of about 1.4 million nodes.
//!
//! The tree has branching 4 and its leaves at ply 10: 1,398,101 nodes, of
//! which the 1,048,576 leaves are written inline on the last internal layer
//! (`n87381: {min: [3, -7, 12, 0]}`). Max and min layers alternate; the
//! expectimax variant makes every third ply (2, 5, 8) a chance layer. The text
//! is generated here exactly as `bench/gen_uniform.py 4 10 42 OUT` writes it
//! (splitmix64 values in -1000..1000), so no fixture is checked in.
//!
//! Groups:
//! - `load/uniform-b4-d10`: YAML text to validated `Tree` (`load_tree_str`),
//!   reported as nodes/s (`nodes`) and as bytes/s (`bytes`, the same work);
//! - `search/minimax`, `search/alphabeta` (prune on equality),
//!   `search/alphabeta-strict` (prune only on strict inequality) and
//!   `search/expectimax` (on the chance variant): one `engine::search` each,
//!   with the throughput set to the nodes that search visits.
//!
//! Run with `cargo bench --bench engine`; `cargo bench --bench engine -- --test`
//! runs every benchmark once as a smoke test.

use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use criterion::{BatchSize, Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use treegrade::engine::{Algorithm, SearchSettings, search};
use treegrade::load::load_tree_str;
use treegrade::tree::Tree;

const BRANCHING: u64 = 4;
const DEPTH: u32 = 10;
const SEED: u64 = 42;
/// Every ply P with P % 3 == 2 is a chance layer in the expectimax variant.
const CHANCE_EVERY: u32 = 3;

/// One step of splitmix64: advances `state` and returns the next output.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn kind_of(ply: u32, chance_every: u32) -> &'static str {
    if chance_every > 0 && ply % chance_every == chance_every - 1 {
        "chance"
    } else if ply.is_multiple_of(2) {
        "max"
    } else {
        "min"
    }
}

/// The uniform tree's YAML text, byte for byte as `bench/gen_uniform.py` writes it.
fn generate(branching: u64, depth: u32, seed: u64, chance_every: u32) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(16 << 20);
    let suffix = if chance_every > 0 { format!("-chance{chance_every}") } else { String::new() };
    let _ = writeln!(out, "name: uniform-b{branching}-d{depth}{suffix}");
    let _ = write!(out, "description: uniform tree, branching {branching}, depth {depth}, seed {seed}");
    if chance_every > 0 {
        let _ = write!(out, ", chance on plies P with P % {chance_every} == {}", chance_every - 1);
    }
    out.push_str("\nroot: n0\nnodes:\n");
    let mut state = seed;
    let (mut first, mut width) = (0u64, 1u64);
    for ply in 0..depth {
        let kind = kind_of(ply, chance_every);
        for node in first..first + width {
            let _ = write!(out, "  n{node}: {{{kind}: [");
            for k in 1..=branching {
                if k > 1 {
                    out.push_str(", ");
                }
                if ply == depth - 1 {
                    let value = (splitmix64(&mut state) % 2001) as i64 - 1000;
                    let _ = write!(out, "{value}");
                } else {
                    let _ = write!(out, "n{}", branching * node + k);
                }
            }
            out.push_str("]}\n");
        }
        first += width;
        width *= branching;
    }
    out
}

fn load(text: &str, name: &str) -> Tree {
    load_tree_str(text.to_string(), Path::new(name)).expect("the generated tree is valid").tree
}

fn settings(algorithm: Algorithm, prune_on_equal: bool) -> SearchSettings {
    let mut settings = SearchSettings::new(algorithm);
    settings.prune_on_equal = prune_on_equal;
    settings
}

fn benches(c: &mut Criterion) {
    let name = format!("uniform-b{BRANCHING}-d{DEPTH}");
    let file = format!("{name}.yaml");
    let text = generate(BRANCHING, DEPTH, SEED, 0);
    let nodes = (BRANCHING.pow(DEPTH + 1) - 1) / (BRANCHING - 1);
    eprintln!("{name}: {nodes} nodes, {} bytes of YAML ({:.2} MB)", text.len(), text.len() as f64 / 1e6);

    // Loading runs first, with no other tree alive in the process: with
    // glibc's allocator, two live trees of this size make it about twice as
    // slow (heap fragmentation), which is not what `treegrade solve` sees.
    let mut group = c.benchmark_group(format!("load/{name}"));
    group.sample_size(10).sampling_mode(SamplingMode::Flat).warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(8));
    let throughputs = [("nodes", Throughput::Elements(nodes)), ("bytes", Throughput::BytesDecimal(text.len() as u64))];
    for (id, throughput) in throughputs {
        group.throughput(throughput);
        group.bench_function(id, |b| {
            b.iter_batched(
                || text.clone(),
                |text| load_tree_str(text, Path::new(&file)).expect("valid"),
                BatchSize::PerIteration,
            )
        });
    }
    group.finish();

    let tree = load(&text, &file);
    assert_eq!(tree.len() as u64, nodes);
    drop(text);
    let chance_text = generate(BRANCHING, DEPTH, SEED, CHANCE_EVERY);
    let chance_tree = load(&chance_text, &format!("{name}-chance{CHANCE_EVERY}.yaml"));
    drop(chance_text);
    let searches = [
        ("minimax", &tree, settings(Algorithm::Minimax, true)),
        ("alphabeta", &tree, settings(Algorithm::AlphaBeta, true)),
        ("alphabeta-strict", &tree, settings(Algorithm::AlphaBeta, false)),
        ("expectimax", &chance_tree, settings(Algorithm::Expectimax, true)),
    ];
    for (id, tree, settings) in searches {
        let outcome = search(tree, &settings).expect("searchable");
        let visited = outcome.visited.len() as u64;
        eprintln!(
            "search/{id}: value {}, visited {visited} of {} nodes, {} cutoffs",
            outcome.value,
            tree.len(),
            outcome.cutoffs.len()
        );
        let mut group = c.benchmark_group(format!("search/{id}"));
        group.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
        group.throughput(Throughput::Elements(visited));
        group.bench_function(name.as_str(), |b| b.iter(|| search(black_box(tree), black_box(&settings))));
        group.finish();
    }
}

criterion_group!(engine, benches);
criterion_main!(engine);
