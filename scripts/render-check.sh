#!/usr/bin/env bash
# Renders treegrade's pictures in headless Chromium, for a person to look at.
#
# Usage: scripts/render-check.sh [OUTDIR]     (default /tmp/treegrade-render)
#
# Writes OUTDIR/*.html and OUTDIR/*.png: AIMA figure 5.2 under alpha-beta (also
# with a student trace that does not prune), a
# chance tree, a depth-cut tree, the ~350-node tic-tac-toe-like tree, and the
# HTML check report of a submission that searches children in reverse order.
# Needs /usr/bin/chromium (Debian: apt-get install chromium) and, for the
# report, Python 3 with PyYAML.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-/tmp/treegrade-render}"
mkdir -p "$out"
chromium=/usr/bin/chromium
if [[ ! -x "$chromium" ]]; then
    echo "note: $chromium is missing; nothing to check (apt-get install chromium)" >&2
    exit 0
fi

cargo build --quiet
treegrade=target/debug/treegrade

shot() { # shot PAGE PNG WIDTH,HEIGHT
    local profile
    profile="$(mktemp -d)"
    timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$profile" --hide-scrollbars --screenshot="$2" --window-size="$3" \
        "file://$(realpath "$1")" >/dev/null 2>&1
    rm -rf "$profile"
    local size
    size=$(stat -c %s "$2")
    if ((size < 20000)); then
        echo "error: $2 is only $size bytes" >&2
        exit 1
    fi
    echo "$2"
}

"$treegrade" render test-cases/aima-fig5-2.yaml -a alphabeta -o "$out/aima.html"
shot "$out/aima.html" "$out/aima.png" 1000,700
printf '%s\n' A B B.1 B.2 B.3 C C.1 C.2 C.3 D D.1 D.2 >"$out/no-pruning-trace.txt"
"$treegrade" render test-cases/aima-fig5-2.yaml -a alphabeta --trace "$out/no-pruning-trace.txt" -o "$out/aima-trace.html"
shot "$out/aima-trace.html" "$out/aima-trace.png" 1000,750
"$treegrade" render test-cases/chance-under-alphabeta.yaml -a alphabeta -a expectimax -o "$out/chance.html"
shot "$out/chance.html" "$out/chance.png" 1400,850
"$treegrade" render test-cases/depth-2-eval-cut.yaml -a alphabeta -a minimax -o "$out/depth.html"
shot "$out/depth.html" "$out/depth.png" 1400,750
"$treegrade" render test-cases/tictactoe-like-win-draw-loss.yaml -a alphabeta -o "$out/tictactoe.html"
shot "$out/tictactoe.html" "$out/tictactoe.png" 3300,1000

submission="$(mktemp -d)"
python3 tests/fixtures/apply_mutant.py reverse-children "$submission" >/dev/null
"$treegrade" check --submission "$submission" --format html --output "$out/report.html" >/dev/null || true
rm -rf "$submission"
shot "$out/report.html" "$out/report.png" 1400,1800
