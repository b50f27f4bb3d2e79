"""A class tournament of agents of known strength and hostile ones: does it rank and contain them?

    python3 bench/tournament_ranking.py AGENTS_DIR [--ranked random,greedy,ab2,ab4]
        [--hostile crash,hang,...] [--game connect-four] [--games-per-pair N]
        [--openings N] [--budget NODES] [--move-time-limit S] [--seed S] [--jobs J]
        [--out DIR]

AGENTS_DIR holds one folder per agent, as `treegrade tournament` takes them.
`--ranked` names, weakest first, the agents whose order is known; `--hostile`
names the others to enter (by default every other folder of AGENTS_DIR). The
script copies them into a scratch folder, runs `treegrade tournament` on it
(no baselines: the agents play each other), and checks, from
`standings.csv`:

- the ranked agents' ratings rise in the given order;
- each ranked agent's 95% comparison interval is disjoint from its
  neighbour's (the two differ at about the 5% level);
- every hostile agent is entered and has a row;
- no ranked agent is charged a failure (a timeout, crash, illegal move or
  protocol error): a hostile opponent never harms the other side.

It prints the standings, the wall time and one line per check, and exits 1
when a check fails.
"""

import argparse
import csv
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TREEGRADE = os.path.join(ROOT, "target", "release", "treegrade")
FAILURES = ("timeouts", "illegal_moves", "crashes", "protocol_errors")


def arguments():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("agents")
    parser.add_argument("--ranked", default="random,greedy,ab2,ab4")
    parser.add_argument("--hostile", default=None)
    parser.add_argument("--game", default="connect-four")
    parser.add_argument("--games-per-pair", type=int, default=40)
    parser.add_argument("--openings", type=int, default=3)
    parser.add_argument("--budget", type=int, default=5000)
    parser.add_argument("--move-time-limit", type=float, default=2.0)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", default=None)
    return parser.parse_args()


def entrants(args):
    ranked = [name for name in args.ranked.split(",") if name]
    if args.hostile is None:
        hostile = sorted(
            name
            for name in os.listdir(args.agents)
            if os.path.isdir(os.path.join(args.agents, name)) and name not in ranked
        )
    else:
        hostile = [name for name in args.hostile.split(",") if name]
    return ranked, hostile


def run_tournament(args, names, out):
    field = tempfile.mkdtemp(prefix="tournament-field-")
    for name in names:
        shutil.copytree(os.path.join(args.agents, name), os.path.join(field, name))
    command = [
        TREEGRADE, "tournament", field, "--game", args.game,
        "--games-per-pair", str(args.games_per_pair), "--openings", str(args.openings),
        "--budget", str(args.budget), "--move-time-limit", str(args.move_time_limit),
        "--seed", str(args.seed), "--jobs", str(args.jobs), "--out", out, "--force",
    ]
    start = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    elapsed = time.perf_counter() - start
    shutil.rmtree(field, ignore_errors=True)
    return done, elapsed


def checks(rows, ranked, hostile):
    """Each check as (passed, line)."""
    results = []
    missing = [name for name in ranked + hostile if name not in rows]
    results.append((not missing, f"every agent has a row (missing: {', '.join(missing) or 'none'})"))
    present = [name for name in ranked if name in rows]
    for weaker, stronger in zip(present, present[1:]):
        low, high = rows[weaker], rows[stronger]
        ordered = float(high["rating"]) > float(low["rating"])
        results.append((ordered, f"{stronger} ({high['rating']}) rated above {weaker} ({low['rating']})"))
        apart = float(high["rating_low"]) > float(low["rating_high"])
        results.append((
            apart,
            f"{stronger}'s interval [{high['rating_low']}, {high['rating_high']}] clear of "
            f"{weaker}'s [{low['rating_low']}, {low['rating_high']}]",
        ))
    for name in hostile:
        if name in rows:
            entered = rows[name]["status"] == "entered"
            results.append((entered, f"hostile {name} entered and played {rows[name]['games']} games ({rows[name]['status']})"))
    for name in present:
        charged = {kind: rows[name][kind] for kind in FAILURES if rows[name][kind] != "0"}
        results.append((not charged, f"{name} charged no failure ({charged or 'none'})"))
    return results


def main():
    args = arguments()
    ranked, hostile = entrants(args)
    out = args.out or tempfile.mkdtemp(prefix="tournament-out-")
    done, elapsed = run_tournament(args, ranked + hostile, out)
    standings = os.path.join(out, "standings.csv")
    if done.returncode != 0 or not os.path.exists(standings):
        print(done.stdout)
        print(f"treegrade tournament failed (exit {done.returncode})")
        return 1
    with open(standings, newline="") as file:
        table = list(csv.DictReader(file))
    rows = {row["agent"]: row for row in table}
    print(f"{len(table)} agents, {args.games_per_pair} games a pair, {args.openings} random plies, "
          f"budget {args.budget}, seed {args.seed}: {elapsed:.0f} s wall clock; standings in {out}")
    for row in table:
        failures = ", ".join(f"{kind} {row[kind]}" for kind in FAILURES if row[kind] != "0")
        print(f"  {row['rank']:>2} {row['agent']:<16} {row['rating']:>7} [{row['rating_low']}, {row['rating_high']}]"
              f"  {row['wins']}-{row['draws']}-{row['losses']}  {failures}")
    results = checks(rows, ranked, hostile)
    for passed, line in results:
        print(("ok    " if passed else "FAIL  ") + line)
    return 0 if all(passed for passed, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
