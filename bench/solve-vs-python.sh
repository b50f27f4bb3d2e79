#!/usr/bin/env bash
# Times `treegrade solve` end to end against a straightforward Python
# alpha-beta (bench/python_baseline.py: PyYAML with libyaml's CLoader and a
# recursive search) on the same generated tree, side by side in one run.
#
# Usage: bash bench/solve-vs-python.sh
# Environment: BRANCHING (4), DEPTH (9), SEED (42), RUST_RUNS (10), PY_RUNS (3).
# Needs only cargo, python3 and pip; uses hyperfine when it is installed.
# Writes into bench/out/ (gitignored). Exits non-zero if the two disagree.
set -euo pipefail

cd "$(dirname "$0")/.."
BRANCHING=${BRANCHING:-4}
DEPTH=${DEPTH:-9}
SEED=${SEED:-42}
RUST_RUNS=${RUST_RUNS:-10}
PY_RUNS=${PY_RUNS:-3}
OUT=bench/out
mkdir -p "$OUT"

echo "== building treegrade (release)" >&2
cargo build --release --bin treegrade
BIN="${CARGO_TARGET_DIR:-target}/release/treegrade"
[ -x "$BIN" ] || { echo "error: $BIN was not built" >&2; exit 1; }

TREE="$OUT/uniform-b${BRANCHING}-d${DEPTH}.yaml"
echo "== generating $TREE" >&2
python3 bench/gen_uniform.py "$BRANCHING" "$DEPTH" "$SEED" "$TREE"

# PyYAML with libyaml (the C loader). Wheels on PyPI bundle libyaml.
PY=python3
has_cloader() { "$1" -c 'import sys, yaml; sys.exit(0 if getattr(yaml, "__with_libyaml__", False) else 1)' 2>/dev/null; }
if ! has_cloader "$PY"; then
    echo "== installing PyYAML (with libyaml) for the baseline" >&2
    if ! { python3 -m pip install --quiet --only-binary=:all: pyyaml && has_cloader python3; }; then
        # Externally managed Pythons refuse global installs: use a private venv.
        python3 -m venv "$OUT/venv" >&2
        "$OUT/venv/bin/python" -m pip install --quiet --only-binary=:all: pyyaml >&2
        PY="$OUT/venv/bin/python"
    fi
fi
if ! has_cloader "$PY"; then
    echo "error: PyYAML is installed without libyaml (yaml.CLoader); reinstall it from a binary wheel:" >&2
    echo "       python3 -m pip install --force-reinstall --only-binary=:all: pyyaml" >&2
    exit 1
fi

echo "== checking that both agree (value, action, visited order)" >&2
"$BIN" solve "$TREE" --algorithm alphabeta --format json >"$OUT/treegrade.json"
"$PY" bench/python_baseline.py "$TREE" --json >"$OUT/python.json"

RUST_CMD="$BIN solve $TREE --algorithm alphabeta --format json"
PY_CMD="$PY bench/python_baseline.py $TREE"
HYPERFINE=""
if command -v hyperfine >/dev/null 2>&1; then
    echo "== timing with hyperfine" >&2
    hyperfine --style basic --warmup 1 --runs "$RUST_RUNS" --export-json "$OUT/hyperfine-treegrade.json" "$RUST_CMD" >&2
    hyperfine --style basic --runs "$PY_RUNS" --export-json "$OUT/hyperfine-python.json" "$PY_CMD" >&2
    HYPERFINE=1
else
    echo "== timing with a perf_counter loop (hyperfine not installed): $RUST_RUNS + $PY_RUNS runs, interleaved" >&2
fi

export TREE OUT RUST_RUNS PY_RUNS RUST_CMD PY_CMD HYPERFINE
exec "$PY" - <<'PYEOF'
import json, math, os, resource, shlex, statistics, subprocess, sys, time

tree, out = os.environ["TREE"], os.environ["OUT"]
rust_runs, py_runs = int(os.environ["RUST_RUNS"]), int(os.environ["PY_RUNS"])
rust_cmd, py_cmd = shlex.split(os.environ["RUST_CMD"]), shlex.split(os.environ["PY_CMD"])

# Agreement on the full result, not only the counts.
rust = json.load(open(f"{out}/treegrade.json"))
py = json.load(open(f"{out}/python.json"))
problems = []
if not math.isclose(rust["value"], py["value"], rel_tol=1e-9, abs_tol=1e-9):
    problems.append(f"value: treegrade {rust['value']}, python {py['value']}")
if rust["action"] != py["action"]:
    problems.append(f"action: treegrade {rust['action']}, python {py['action']}")
if len(rust["visited"]) != len(py["visited"]):
    problems.append(f"visited count: treegrade {len(rust['visited'])}, python {len(py['visited'])}")
elif rust["visited"] != py["visited"]:
    first = next(i for i, (a, b) in enumerate(zip(rust["visited"], py["visited"])) if a != b)
    problems.append(f"visited order differs at position {first}: {rust['visited'][first]} vs {py['visited'][first]}")
if problems:
    print("DISAGREEMENT between treegrade and the Python baseline:", *problems, sep="\n  ", file=sys.stderr)
    sys.exit(1)


def cpu_of_children():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(cmd, cpu_times):
    """Wall time of one run; its CPU time (user + sys) goes to `cpu_times`."""
    cpu = cpu_of_children()
    started = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - started
    cpu_times.append(cpu_of_children() - cpu)
    return wall


if os.environ.get("HYPERFINE"):
    rust_result = json.load(open(f"{out}/hyperfine-treegrade.json"))["results"][0]
    py_result = json.load(open(f"{out}/hyperfine-python.json"))["results"][0]
    rust_times, py_times = rust_result["times"], py_result["times"]
    # hyperfine reports mean user and system times only.
    rust_cpu = [rust_result["user"] + rust_result["system"]]
    py_cpu = [py_result["user"] + py_result["system"]]
    timer = "hyperfine (CPU: mean user + sys)"
else:
    run(rust_cmd, [])  # warm the page cache and the binary
    rust_times, py_times, rust_cpu, py_cpu = [], [], [], []
    for i in range(max(rust_runs, py_runs)):
        if i < py_runs:
            py_times.append(run(py_cmd, py_cpu))
        if i < rust_runs:
            rust_times.append(run(rust_cmd, rust_cpu))
    timer = "time.perf_counter around subprocess.run, runs interleaved (CPU: user + sys from getrusage)"

import yaml  # noqa: E402  (only for its version in the table)

size = os.path.getsize(tree)
stats = rust.get("stats", {})
rust_median, py_median = statistics.median(rust_times), statistics.median(py_times)
ratio = py_median / rust_median


def row(name, times, cpu):
    ms = lambda seconds: f"{seconds * 1000:,.1f} ms"  # noqa: E731
    return (
        f"| {name} | {len(times)} | {ms(statistics.median(times))} | {ms(min(times))} | {ms(max(times))}"
        f" | {ms(statistics.median(cpu))} |"
    )


print(f"tree:      {tree}")
print(f"file size: {size:,} bytes ({size / 1e6:.2f} MB)")
print(f"nodes:     {stats.get('tree_nodes', '?'):,}")
print(f"alphabeta: value {rust['value']}, action {rust['action']}, visited {len(rust['visited']):,} nodes (both agree, same order)")
print(f"machine:   {os.cpu_count()} CPUs, {time.strftime('%Y-%m-%d')}, Python {sys.version.split()[0]}, PyYAML {yaml.__version__} (libyaml)")
print(f"timer:     {timer}")
print()
print("| command | runs | median wall | min wall | max wall | median CPU |")
print("|---|---:|---:|---:|---:|---:|")
print(row("`treegrade solve --algorithm alphabeta --format json`", rust_times, rust_cpu))
print(row("`python_baseline.py` (PyYAML CLoader + recursive alpha-beta)", py_times, py_cpu))
print()
cpu_ratio = statistics.median(py_cpu) / statistics.median(rust_cpu)
print(f"speed-up, median wall time (python / treegrade): {ratio:.1f}x (target: at least 50x)")
print(f"speed-up, median CPU time (python / treegrade):  {cpu_ratio:.1f}x (less sensitive to other load on the machine)")
PYEOF
