#!/usr/bin/env bash
# Play throughput: games between Python agents (the games reference's
# choose_move, iterative deepening through the grader) at a budget of 1,000
# nodes per move, every agent in its own sandbox.
#
#   - tic-tac-toe and connect-four: one match of two agents (one game at a
#     time), and four agents in a round robin with --jobs 2 (two matches at
#     once, one per core): games per minute;
#   - a 30-agent connect-four round robin, 2 games per pair: wall time.
#
#   bash bench/play.sh [GAMES_PER_PAIR] [AGENTS]
set -euo pipefail
cd "$(dirname "$0")/.."
games=${1:-40}
agents=${2:-30}
work=bench/out/play
rm -rf "$work" && mkdir -p "$work"
cargo build --release --quiet
treegrade=./target/release/treegrade
class() { # FOLDER COUNT: COUNT copies of the reference agent
  mkdir -p "$1"
  for i in $(seq 1 "$2"); do
    mkdir -p "$1/$(printf 'agent-%02d' "$i")" && cp reference/games/python/search.py "$1/$(printf 'agent-%02d' "$i")/"
  done
}
rate() { # LABEL GAMES START END
  python3 -c "import sys; g, s, e = int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]); print(f'{sys.argv[1]}: {g} games in {e - s:.1f} s: {g / (e - s) * 60:.0f} games per minute')" "$@"
}
class "$work/two" 2
class "$work/four" 4
echo "$(nproc) cores; budget 1000 nodes per move; $games games per pair"
for game in tic-tac-toe connect-four; do
  for setup in "two 1" "four 2"; do
    set -- $setup
    start=$(date +%s.%N)
    CI=true $treegrade tournament "$work/$1" --game "$game" --eval lines --budget 1000 --games-per-pair "$games" \
      --seed 1 --jobs "$2" --out "$work/out-$game-$1" >/dev/null 2>"$work/log-$game-$1"
    end=$(date +%s.%N)
    pairs=$(( $( [ "$1" = two ] && echo 1 || echo 6 ) ))
    rate "$game, $( [ "$1" = two ] && echo "one match" || echo "4 agents, --jobs 2" )" $(( pairs * games )) "$start" "$end"
  done
done
class "$work/class" "$agents"
start=$(date +%s.%N)
CI=true $treegrade tournament "$work/class" --game connect-four --eval lines --budget 1000 --games-per-pair 2 \
  --seed 1 --jobs 2 --out "$work/out-class" >/dev/null 2>"$work/log-class"
end=$(date +%s.%N)
pairs=$(( agents * (agents - 1) / 2 ))
python3 -c "import sys; s, e = float(sys.argv[1]), float(sys.argv[2]); print(f'connect-four round robin of {sys.argv[3]} agents, 2 games per pair ({sys.argv[4]} games), --jobs 2: {e - s:.1f} s')" \
  "$start" "$end" "$agents" $(( pairs * 2 ))
