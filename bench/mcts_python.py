#!/usr/bin/env python3
"""MCTS through the Python kit: wall time and round trips per iteration.

Grades the Python reference of the more-searches assignment
(reference/more-searches/python) on one test, UCT with ITERATIONS
iterations on tic-tac-toe from the empty board (seed 0), with
`treegrade check`, sandbox as configured:

* wall time: the median of RUNS gradings of the reference as it is (the
  whole `check`, start-up included, and the test's own time from the
  report);
* round trips: one more grading of the same program with a counter in
  front of the kit's pipe, which reports on stderr how many requests of
  each type the program sent. The least a search can send is one `visit`
  per node it enters (the kit never asks twice about a node), one `random`
  per draw, and its `result`: the grader's report gives the entered nodes
  and the draws.

    python3 bench/mcts_python.py [--iterations 10000] [--runs 5] [--treegrade target/release/treegrade]
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

ASSIGNMENT = """name: mcts-bench
title: MCTS through the Python kit
time_limit: 600
tests_dir: tests
questions:
  - {id: q1, title: MCTS on tic-tac-toe, points: 1, algorithm: mcts, tests: ["ttt.yaml"]}
"""

TREE = """name: ttt-empty
rules: tic-tac-toe
search: {iterations: %d, seed: 0}
"""

# Prepended to the reference: counts the requests the kit sends.
COUNTER = r'''
import collections as _collections
import sys as _sys
import treegrade_kit as _kit

_counts = _collections.Counter()
_send = _kit._Channel.send


def _counting_send(self, data):
    kind = data[9:data.index(b'"', 9)].decode() if data.startswith(b'{"type":"') else "other"
    _counts[kind] += 1
    if kind == "result":
        _sys.stderr.write("requests " + repr(dict(_counts)) + "\n")
    _send(self, data)


_kit._Channel.send = _counting_send
'''


def check(treegrade, assignment, submission):
    """One `treegrade check --format json`: its wall time and its report."""
    started = time.perf_counter()
    output = subprocess.run(
        [treegrade, "check", "--assignment", assignment, "--submission", submission, "--format", "json"],
        capture_output=True,
        text=True,
    )
    elapsed = time.perf_counter() - started
    report = json.loads(output.stdout)
    test = report["questions"][0]["tests"][0]
    if test["status"] != "passed":
        sys.exit("the reference did not pass: %s" % test.get("reason"))
    return elapsed, test


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=10000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--treegrade", default=os.path.join(ROOT, "target", "release", "treegrade"))
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="treegrade-mcts-bench-")
    try:
        assignment = os.path.join(work, "assignment")
        os.makedirs(os.path.join(assignment, "tests"))
        with open(os.path.join(assignment, "assignment.yaml"), "w") as out:
            out.write(ASSIGNMENT)
        with open(os.path.join(assignment, "tests", "ttt.yaml"), "w") as out:
            out.write(TREE % args.iterations)
        reference = os.path.join(ROOT, "reference", "more-searches", "python")
        plain = os.path.join(work, "plain")
        shutil.copytree(reference, plain)
        counted = os.path.join(work, "counted")
        os.makedirs(counted)
        with open(os.path.join(reference, "search.py")) as source:
            text = source.read()
        with open(os.path.join(counted, "search.py"), "w") as out:
            out.write(COUNTER + text)

        walls, tests = [], []
        for _ in range(args.runs):
            wall, test = check(args.treegrade, assignment, plain)
            walls.append(wall)
            tests.append(test["elapsed_ms"] / 1000.0)
        _, counted_test = check(args.treegrade, assignment, counted)
        line = [l for l in counted_test["stderr"].splitlines() if l.startswith("requests ")][-1]
        requests = eval(line[len("requests "):], {})  # a dict literal the counter wrote
        entered = len(counted_test["actual"]["visited"])
        draws = counted_test["actual"]["draws"]
        requests.pop("hello", None)  # the session's handshake, not this search's
        sent = sum(requests.values())
        least = entered + draws + 1
        n = args.iterations
        print("MCTS, %d iterations, tic-tac-toe from the empty board, Python reference through the kit" % n)
        print("check, whole run: median %.2f s of %d (%s)" % (statistics.median(walls), args.runs,
                                                             ", ".join("%.2f" % w for w in walls)))
        print("the test alone:   median %.2f s, %.1f us per iteration" % (
            statistics.median(tests), 1e6 * statistics.median(tests) / n))
        print("requests sent: %s = %d, %.2f per iteration" % (requests, sent, sent / n))
        print("the least the search needs: %d entered nodes + %d draws + 1 result = %d, %.2f per iteration"
              % (entered, draws, least, least / n))
        print("round trips over the least: %.3fx" % (sent / least))
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        print("load average when it ended: %.1f on %d cores" % (load, os.cpu_count() or 0))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
