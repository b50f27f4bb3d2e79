#!/usr/bin/env bash
# Times `treegrade solve` on two game files against a straightforward Python
# search of the same game (bench/python_games.py), side by side in one run,
# and reports peak memory:
#   - full minimax on tic-tac-toe from the empty board (549,946 nodes);
#   - alpha-beta on connect-four at depth 7 from the start, `lines` evaluation.
# Checks first that both agree on value, action and the whole visited order.
#
# Usage: bash bench/games-vs-python.sh
# Environment: RUST_RUNS (5), PY_RUNS (1). Needs cargo, python3, /usr/bin/time.
# Writes into bench/out/ (gitignored). Exits non-zero if the two disagree.
set -euo pipefail

cd "$(dirname "$0")/.."
RUST_RUNS=${RUST_RUNS:-5}
PY_RUNS=${PY_RUNS:-1}
OUT=bench/out
mkdir -p "$OUT"

echo "== building treegrade (release)" >&2
cargo build --release --bin treegrade >&2
BIN="${CARGO_TARGET_DIR:-target}/release/treegrade"

printf 'rules: tic-tac-toe\n' > "$OUT/ttt-empty.yaml"
printf 'rules: connect-four\nsearch: {depth: 7, eval: lines}\n' > "$OUT/c4-depth7.yaml"

# name | treegrade arguments | python_games.py arguments
CASES=(
  "tic-tac-toe minimax|$OUT/ttt-empty.yaml --algorithm minimax|3 3 3 false minimax none"
  "connect-four alphabeta depth 7|$OUT/c4-depth7.yaml --algorithm alphabeta|7 6 4 true alphabeta 7"
)

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

# Wall seconds and peak resident kilobytes of one run, as "SECONDS KB".
measure() {
  local stats
  stats=$( { /usr/bin/time -f '%e %M' "$@" >/dev/null; } 2>&1 | tail -1)
  echo "$stats"
}

printf '| search | nodes entered | treegrade median | treegrade peak memory | Python median | Python peak memory | speed-up |\n'
printf '|---|---:|---:|---:|---:|---:|---:|\n'
for case in "${CASES[@]}"; do
  IFS='|' read -r name rust_args py_args <<< "$case"
  # shellcheck disable=SC2086
  "$BIN" solve $rust_args --format json > "$OUT/rust.json"
  # shellcheck disable=SC2086
  python3 bench/python_games.py $py_args --json > "$OUT/python.json"
  python3 - "$OUT/rust.json" "$OUT/python.json" <<'PY'
import json, sys
rust, python = (json.load(open(path)) for path in sys.argv[1:3])
for key in ("value", "action", "visited"):
    if rust[key] != python[key]:
        sys.exit(f"treegrade and Python disagree on {key}")
PY
  nodes=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["visited"]))' "$OUT/rust.json")
  rust_times=(); rust_kb=0
  for _ in $(seq "$RUST_RUNS"); do
    # shellcheck disable=SC2086
    read -r seconds kb < <(measure "$BIN" solve $rust_args --format json)
    rust_times+=("$seconds"); (( kb > rust_kb )) && rust_kb=$kb
  done
  py_times=(); py_kb=0
  for _ in $(seq "$PY_RUNS"); do
    # shellcheck disable=SC2086
    read -r seconds kb < <(measure python3 bench/python_games.py $py_args --json)
    py_times+=("$seconds"); (( kb > py_kb )) && py_kb=$kb
  done
  rust_median=$(printf '%s\n' "${rust_times[@]}" | median)
  py_median=$(printf '%s\n' "${py_times[@]}" | median)
  speedup=$(awk -v p="$py_median" -v r="$rust_median" 'BEGIN { printf "%.0fx", p / (r > 0 ? r : 0.005) }')
  printf '| %s | %s | %s s | %.1f MB | %s s | %.1f MB | %s |\n' "$name" "$nodes" "$rust_median" \
    "$(awk -v k="$rust_kb" 'BEGIN{print k/1024}')" "$py_median" "$(awk -v k="$py_kb" 'BEGIN{print k/1024}')" "$speedup"
done
