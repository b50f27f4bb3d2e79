#!/usr/bin/env python3
"""treegrade's trees given by a game (FORMAT 7) checked against DeepMind's OpenSpiel.

    pip install open_spiel pyyaml
    python3 bench/openspiel_games.py [--treegrade target/release/treegrade] [--positions N] [--seed S] [-v]

Positions are reached by seeded random play in OpenSpiel (tic_tac_toe,
connect_four, mnk(m,n,k), gomoku, pig), converted to FORMAT's position strings
and written as temporary game files. For each, `treegrade solve FILE
--algorithm A --format json` runs, and its result is compared with a value
that OpenSpiel's own states give:

- m,n,k-games solved to the end: the value and chosen action of OpenSpiel's
  alpha_beta_search (win 1, draw 0), against treegrade's minimax and
  alphabeta; the root's children in treegrade's visited list (ids without
  '-') against OpenSpiel's legal moves, as a set; with minimax, also the
  children of every root child (ids `A-B`) against the legal moves there.
- m,n,k-games cut at a depth with `eval: lines`: a depth-limited minimax of
  this script's own over OpenSpiel's states, with FORMAT's `lines`
  evaluation, against treegrade's minimax (value, action and the number of
  nodes entered) and alphabeta (value, action).
- Pig (`pig(winscore=T)`): expectiminimax of this script's own over
  OpenSpiel's states, with plies counting chance levels as FORMAT does and
  the `score` evaluation at the cut, against treegrade's expectimax (value,
  action, nodes entered, the root's children) and alphabeta (value, action);
  and `--algorithm minimax` on Pig must exit with status 2.

Mapping (checked by the legal-move comparison): OpenSpiel's grid action
r*width + c (r = 0 the top row) is FORMAT's `{letter c}{height - r}`;
connect_four's column c is the letter alone; gomoku's b/w are x/o; pig's
action 0/1 is roll/stop and chance outcome i the face i+1.

Prints one line per failure, then `N passed, M failed` as the last line.
Exit 0 when everything passed, 1 on any failure, 2 when open_spiel cannot be
imported or the treegrade binary is missing (no check was made).
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

try:
    import pyspiel
    from open_spiel.python.algorithms import minimax as os_minimax
except ImportError as e:  # no real check is possible
    print(f"open_spiel is not importable ({e}); install it with `pip install open_spiel` "
          f"(Python 3.10-3.12 wheels). No check was made.")
    sys.exit(2)

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Tally:
    def __init__(self, verbose):
        self.passed = self.failed = 0
        self.verbose = verbose

    def check(self, ok, what):
        if ok:
            self.passed += 1
            if self.verbose:
                print(f"ok   {what}")
        else:
            self.failed += 1
            print(f"FAIL {what}")
        return ok


def close(a, b):
    if a is None or b is None:
        return a is b
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


# ------------------------------------------------------------------ treegrade

class Treegrade:
    def __init__(self, path, workdir):
        self.path = path
        self.workdir = workdir
        self.count = 0

    def write(self, text):
        self.count += 1
        path = os.path.join(self.workdir, f"game{self.count}.yaml")
        with open(path, "w") as f:
            f.write(text)
        return path

    def solve(self, path, algorithm, *flags):
        cmd = [self.path, "solve", path, "--algorithm", algorithm, *flags, "--format", "json"]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        except subprocess.TimeoutExpired:
            return None, "timed out after 300 s"
        if p.returncode != 0:
            return p.returncode, (p.stderr or p.stdout).strip()[:300]
        try:
            return 0, json.loads(p.stdout)
        except json.JSONDecodeError as e:
            return None, f"output is not JSON ({e}): {p.stdout[:200]!r}"


def game_file(rules, position, search=None):
    lines = ["# written by bench/openspiel_games.py", f"rules: {rules}"]
    if position is not None:
        lines.append(position if position.startswith("position:") else f'position: "{position}"')
    if search:
        lines.append("search: {" + ", ".join(f"{k}: {v}" for k, v in search.items()) + "}")
    return "\n".join(lines) + "\n"


def root_children(visited):
    return {v for v in visited if v != "root" and "-" not in v}


# ------------------------------------------------------------------ m,n,k games

class Grid:
    """An OpenSpiel grid game and its FORMAT rules."""

    def __init__(self, os_name, width, height, k, gravity, rules):
        self.game = pyspiel.load_game(os_name)
        self.os_name, self.w, self.h, self.k, self.gravity, self.rules = os_name, width, height, k, gravity, rules
        self.gomoku = os_name.startswith("gomoku")
        self.segments = []
        for r in range(height):
            for c in range(width):
                for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                    er, ec = r + dr * (k - 1), c + dc * (k - 1)
                    if 0 <= er < height and 0 <= ec < width:
                        seg = frozenset((r + dr * i, c + dc * i) for i in range(k))
                        if k > 1 or seg not in self.segments:
                            self.segments.append(seg)

    def rows(self, state):
        lines = [ln for ln in str(state).strip().split("\n") if ln]
        if self.gomoku:
            lines = [ln.replace("b", "x").replace("w", "o") for ln in lines[1:]]
        assert len(lines) == self.h and all(len(ln) == self.w for ln in lines), lines
        return lines

    def position(self, state):
        return "/".join(self.rows(state))

    def action(self, a):
        if self.gravity:
            return chr(ord("a") + a)
        r, c = divmod(a, self.w)
        return f"{chr(ord('a') + c)}{self.h - r}"

    def lines_eval(self, state):
        rows = self.rows(state)
        total = 0
        for seg in self.segments:
            cells = [rows[r][c] for r, c in seg]
            x, o = cells.count("x"), cells.count("o")
            if x and not o:
                total += 10 ** (x - 1)
            elif o and not x:
                total -= 10 ** (o - 1)
        return float(total)

    def minimax(self, state, ply, depth, counter):
        """Depth-limited minimax over OpenSpiel's states, `lines` at the cut; (value, first best action)."""
        counter[0] += 1
        if state.is_terminal():
            return state.returns()[0], None
        if ply == depth:
            return self.lines_eval(state), None
        best = best_action = None
        maximizing = state.current_player() == 0
        for a in state.legal_actions():
            v, _ = self.minimax(state.child(a), ply + 1, depth, counter)
            if best is None or (v > best if maximizing else v < best):
                best, best_action = v, self.action(a)
        return best, best_action


def random_state(grid, rnd, plies, allow_terminal=False):
    for _ in range(200):
        state = grid.game.new_initial_state()
        for _ in range(plies):
            if state.is_terminal():
                break
            state.apply_action(rnd.choice(state.legal_actions()))
        if allow_terminal or not state.is_terminal():
            return state
    return state


def check_full_solve(tally, tg, grid, state, tag):
    pos = grid.position(state)
    path = tg.write(game_file(grid.rules, pos))
    ov, oa = os_minimax.alpha_beta_search(grid.game, state=state.clone(), maximizing_player_id=0,
                                          maximum_depth=grid.w * grid.h + 1)
    oa = None if state.is_terminal() else grid.action(oa)
    legal = set() if state.is_terminal() else {grid.action(a) for a in state.legal_actions()}
    empties = pos.count(".")
    for alg in (["minimax"] if empties <= 9 else []) + ["alphabeta"]:
        rc, res = tg.solve(path, alg)
        what = f"{tag} {alg} {grid.rules} {pos}"
        if not tally.check(rc == 0, f"{what}: exit {rc}: {res}"):
            continue
        tally.check(close(res.get("value"), ov), f"{what}: value {res.get('value')}, OpenSpiel {ov}")
        tally.check(res.get("action") == oa, f"{what}: action {res.get('action')}, OpenSpiel {oa}")
        tally.check(root_children(res["visited"]) == legal,
                    f"{what}: root children {sorted(root_children(res['visited']))}, OpenSpiel legal {sorted(legal)}")
        if alg == "minimax" and not state.is_terminal():
            for a in state.legal_actions():
                child = state.child(a)
                name = grid.action(a)
                got = {v.split("-", 1)[1] for v in res["visited"] if v.count("-") == 1 and v.startswith(name + "-")}
                want = set() if child.is_terminal() else {grid.action(b) for b in child.legal_actions()}
                tally.check(got == want, f"{what}: children of {name} {sorted(got)}, OpenSpiel legal {sorted(want)}")


def check_depth_cut(tally, tg, grid, state, depth, tag):
    pos = grid.position(state)
    path = tg.write(game_file(grid.rules, pos, {"depth": depth, "eval": "lines"}))
    counter = [0]
    ov, oa = grid.minimax(state, 0, depth, counter)
    for alg in ("minimax", "alphabeta"):
        rc, res = tg.solve(path, alg)
        what = f"{tag} {alg} depth {depth} {grid.rules} {pos}"
        if not tally.check(rc == 0, f"{what}: exit {rc}: {res}"):
            continue
        tally.check(close(res.get("value"), ov), f"{what}: value {res.get('value')}, OpenSpiel states + lines {ov}")
        tally.check(res.get("action") == oa, f"{what}: action {res.get('action')}, OpenSpiel states + lines {oa}")
        if alg == "minimax":
            tally.check(len(res["visited"]) == counter[0],
                        f"{what}: {len(res['visited'])} nodes entered, OpenSpiel states {counter[0]}")
            legal = set() if state.is_terminal() else {grid.action(a) for a in state.legal_actions()}
            tally.check(root_children(res["visited"]) == legal,
                        f"{what}: root children {sorted(root_children(res['visited']))}, OpenSpiel legal {sorted(legal)}")


def run_grids(tally, tg, rnd, n):
    ttt = Grid("tic_tac_toe", 3, 3, 3, False, "tic-tac-toe")
    c4 = Grid("connect_four", 7, 6, 4, True, "connect-four")
    gomoku = Grid("gomoku", 15, 15, 5, False, "gomoku")
    small = [Grid(f"mnk(m={w},n={h},k={k})", w, h, k, False, f"{{game: mnk, width: {w}, height: {h}, k: {k}}}")
             for w, h, k in ((3, 4, 3), (4, 3, 3), (2, 2, 2), (5, 1, 2), (1, 5, 2), (3, 3, 1), (3, 3, 4), (4, 4, 3))]
    for i in range(n):
        check_full_solve(tally, tg, ttt, random_state(ttt, rnd, rnd.randrange(0, 9), allow_terminal=True),
                         "tic-tac-toe")
    for i in range(n):
        g = small[i % len(small)]
        fill = g.w * g.h
        plies = rnd.randrange(max(0, fill - 9) if fill > 12 else min(3, fill), fill + 1)
        check_full_solve(tally, tg, g, random_state(g, rnd, plies, allow_terminal=True), "mnk")
    for i in range(max(1, n // 2)):
        check_full_solve(tally, tg, c4, random_state(c4, rnd, rnd.randrange(32, 40), allow_terminal=True),
                         "connect-four endgame")
    for i in range(n):
        check_depth_cut(tally, tg, c4, random_state(c4, rnd, rnd.randrange(0, 25)), rnd.randrange(1, 4),
                        "connect-four")
    for i in range(n):
        g = small[i % len(small)]
        check_depth_cut(tally, tg, g, random_state(g, rnd, rnd.randrange(0, 3)), rnd.randrange(1, 4), "mnk")
    for i in range(max(1, n // 4)):
        check_depth_cut(tally, tg, gomoku, random_state(gomoku, rnd, rnd.randrange(0, 12)), 1, "gomoku")


# ------------------------------------------------------------------ Pig

def pig_fields(state):
    """(s0, s1, turn total, player) of an OpenSpiel pig state that is not terminal."""
    lines = str(state).strip().split("\n")
    scores, total = lines[0][len("Scores: "):].split(", Turn total: ")
    s0, s1 = (int(x) for x in scores.split())
    player = int(lines[1].split(":")[1].split()[0])
    return s0, s1, int(total), player


def score_eval(state, target):
    s0, s1, t, p = pig_fields(state)
    return (s0 - s1 + t) / target if p == 0 else (s0 - s1 - t) / target


def expectimax(state, ply, depth, target, counter):
    """FORMAT's expectimax over OpenSpiel's states: chance levels are plies; `score` at the cut."""
    counter[0] += 1
    if state.is_terminal():
        return state.returns()[0], None
    if ply == depth:
        return score_eval(state, target), None
    if state.is_chance_node():
        acc = 0.0
        for outcome, p in state.chance_outcomes():
            v, _ = expectimax(state.child(outcome), ply + 1, depth, target, counter)
            acc = acc + p * v
        return acc, None
    best = best_action = None
    maximizing = state.current_player() == 0
    for a in state.legal_actions():
        v, _ = expectimax(state.child(a), ply + 1, depth, target, counter)
        if best is None or (v > best if maximizing else v < best):
            best, best_action = v, state.action_to_string(a)
    return best, best_action


def run_pig(tally, tg, rnd, n):
    for i in range(n):
        target = rnd.choice([2, 3, 5, 6, 10, 20, 50, 100])
        game = pyspiel.load_game(f"pig(winscore={target},players=2,diceoutcomes=6)")
        state = game.new_initial_state()
        for _ in range(rnd.randrange(0, 40)):
            if state.is_terminal():
                break
            if state.is_chance_node():
                state.apply_action(rnd.choice([o for o, _ in state.chance_outcomes()]))
            else:
                acts = state.legal_actions()
                state.apply_action(acts[0] if rnd.random() < 0.75 else acts[-1])
        if state.is_terminal() or state.is_chance_node():
            continue
        s0, s1, t, p = pig_fields(state)
        depth = rnd.randrange(0, 7)
        pos = f"position: {{scores: [{s0}, {s1}], turn_total: {t}, to_move: {p}}}"
        path = tg.write(game_file(f"{{game: pig, target: {target}}}", pos, {"depth": depth, "eval": "score"}))
        counter = [0]
        ov, oa = expectimax(state, 0, depth, target, counter)
        legal = {state.action_to_string(a) for a in state.legal_actions()} if depth > 0 else set()
        for alg in ("expectimax", "alphabeta"):
            rc, res = tg.solve(path, alg)
            what = f"pig {alg} target {target} {pos} depth {depth}"
            if not tally.check(rc == 0, f"{what}: exit {rc}: {res}"):
                continue
            tally.check(close(res.get("value"), ov), f"{what}: value {res.get('value')!r}, OpenSpiel states {ov!r}")
            tally.check(res.get("action") == oa, f"{what}: action {res.get('action')}, OpenSpiel states {oa}")
            tally.check(root_children(res["visited"]) == legal,
                        f"{what}: root children {sorted(root_children(res['visited']))}, OpenSpiel legal {sorted(legal)}")
            if alg == "expectimax":
                tally.check(len(res["visited"]) == counter[0],
                            f"{what}: {len(res['visited'])} nodes entered, OpenSpiel states {counter[0]}")
                faces = {f"roll-{o + 1}" for o, _ in state.child(0).chance_outcomes()} if depth > 1 and "roll" in legal \
                    else set()
                got = {v for v in res["visited"] if v.startswith("roll-") and v.count("-") == 1}
                tally.check(got == faces, f"{what}: roll outcomes {sorted(got)}, OpenSpiel {sorted(faces)}")
        if i % 4 == 0:
            rc, res = tg.solve(path, "minimax")
            tally.check(rc == 2, f"pig minimax target {target} {pos}: exit {rc}, expected 2 (chance moves)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--treegrade", default=os.path.join(REPO, "target", "release", "treegrade"))
    ap.add_argument("--positions", type=int, default=24, help="positions per kind of check")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    if not (os.path.isfile(args.treegrade) and os.access(args.treegrade, os.X_OK)):
        print(f"no treegrade binary at {args.treegrade}: build it (cargo build --release) or pass --treegrade PATH. "
              f"No check was made.")
        sys.exit(2)
    tally = Tally(args.verbose)
    rnd = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="openspiel-games-") as work:
        tg = Treegrade(args.treegrade, work)
        run_grids(tally, tg, rnd, args.positions)
        run_pig(tally, tg, rnd, args.positions * 2)
    print(f"{tally.passed} passed, {tally.failed} failed")
    sys.exit(1 if tally.failed else 0)


if __name__ == "__main__":
    main()
