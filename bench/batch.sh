#!/usr/bin/env bash
# Batch throughput: 200 generated submissions of the bundled assignment
# (copies of the Python reference and of its broken variants in
# tests/fixtures/mutants.yaml), graded with `treegrade batch --jobs 2`.
# Prints submissions per minute and the grader's share of the CPU time.
#
#   bash bench/batch.sh [COUNT] [JOBS]
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-200}
jobs=${2:-2}
work=bench/out/batch
rm -rf "$work" && mkdir -p "$work/class"
cargo build --release --quiet
mutants=$(python3 tests/fixtures/apply_mutant.py --list | cut -d" " -f1)
mapfile -t names <<<"$mutants"
for i in $(seq 1 "$count"); do
  student=$(printf 'student-%03d' "$i")
  if (( i % 2 == 0 )); then
    mkdir -p "$work/class/$student" && cp reference/python/search.py "$work/class/$student/"
  else
    name=${names[$(( (i / 2) % ${#names[@]} ))]}
    python3 tests/fixtures/apply_mutant.py "$name" "$work/class/$student" >/dev/null
  fi
done
echo "$count submissions ($(( count / 2 )) correct, the rest broken in ${#names[@]} ways), --jobs $jobs, $(nproc) cores"
start=$(date +%s.%N)
CI=true ./target/release/treegrade batch "$work/class" --out "$work/out" --jobs "$jobs" --force 2>"$work/log" >/dev/null
end=$(date +%s.%N)
grep "CPU time" "$work/log"
python3 - "$start" "$end" "$count" <<'PY'
import sys
start, end, count = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
wall = end - start
print(f"wall time {wall:.1f} s: {count / wall * 60:.0f} submissions per minute (target: at least 400)")
PY
start=$(date +%s.%N)
./target/release/treegrade batch "$work/class" --out "$work/out" --jobs "$jobs" 2>/dev/null >/dev/null
end=$(date +%s.%N)
python3 -c "import sys; print(f're-run with nothing changed: {float(sys.argv[2]) - float(sys.argv[1]):.2f} s')" "$start" "$end"
