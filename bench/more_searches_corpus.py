#!/usr/bin/env python3
"""Measures grading and diagnosis on a corpus of more-searches programs.

The corpus is a folder of programs for `assignments/more-searches`, one
folder each, named AUTHOR-N, each with a file `BUG` naming its one mistake
in the corpus's own words (or `correct`). Every folder is graded with
`treegrade check --format json` (or, with `--from-reports`, its
`report.json` is read as it was graded before), and the programs are
tallied in two halves: the authors the diagnosis was tuned on (`--tuned`)
and the others, measured only.

For each half it gives: correct programs at full marks; broken programs
that lost points; and for each test a broken program did not pass (a wrong
answer, or an error other than "not implemented"), whether the diagnosis
names the mistake (right: the `BUG`'s diagnosis id is its `bug` or one of
its alternatives), names only others (wrong), or nothing (silent).

Usage: bench/more_searches_corpus.py CORPUS [--tuned alice,bob,chen]
       [--half tuned|measured|all] [--treegrade BIN] [--assignment DIR]
       [--from-reports] [--verbose]
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from diagnosis import grade  # noqa: E402

# The corpus's names for its mistakes, and the diagnosis ids that name them.
DIAGNOSIS_IDS = {
    "id-root-tree-order": ["id-tree-order-at-root"],
    "id-keeps-cut-short": ["id-keeps-cut-short-answer"],
    "id-budget-per-iteration": ["id-budget-per-iteration"],
    "id-no-early-stop": ["id-no-early-stop"],
    "id-prune-convention": ["prune-on-equal"],
    "maxn-wrong-component": ["maxn-wrong-component"],
    "maxn-off-by-one": ["maxn-mover-off-by-one"],
    "maxn-last-tie": ["maxn-last-tie"],
    "maxn-chance-ignored": ["ignore-probabilities", "chance-as-max"],
    "mcts-ucb-sign": ["mcts-ucb-sign-not-flipped"],
    "mcts-ln-wrong-count": ["mcts-ln-of-wrong-count"],
    "mcts-no-exploration": ["mcts-no-exploration"],
    "mcts-random-expansion": ["mcts-random-expansion"],
    "mcts-reward-side": ["mcts-rewards-wrong-side"],
    "mcts-final-by-value": ["mcts-final-by-value"],
    "mcts-rollout-draw": ["mcts-rollout-draw"],
}


def not_passed(report):
    """The tests a program answered and did not pass (errors included, "not implemented" left out)."""
    for question in report["questions"]:
        for test in question["tests"]:
            status = test["status"]
            if status == "passed" or status == {"error": "not-implemented"}:
                continue
            yield test


def verdict(test, ids):
    diagnosis = test.get("diagnosis")
    if not diagnosis:
        return "silent"
    named = [diagnosis["bug"]] + diagnosis.get("alternatives", [])
    return "right" if any(bug in named for bug in ids) else "wrong"


def empty_half():
    return {"correct": 0, "full": 0, "broken": 0, "lost": 0, "failed": 0, "right": 0, "wrong": 0, "silent": 0}


def row(name, half):
    failed = max(half["failed"], 1)
    share = lambda key: "%d (%.0f%%)" % (half[key], 100.0 * half[key] / failed)
    return "%-30s %3d/%-3d %5d/%-5d %6d  %-10s %-10s %-10s" % (
        name,
        half["full"],
        half["correct"],
        half["lost"],
        half["broken"],
        half["failed"],
        share("right"),
        share("wrong"),
        share("silent"),
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus")
    parser.add_argument("--tuned", default="alice,bob,chen", help="the authors the diagnosis was tuned on")
    parser.add_argument("--treegrade", default="target/release/treegrade")
    parser.add_argument("--assignment", default="assignments/more-searches")
    parser.add_argument("--from-reports", action="store_true", help="tally each folder's report.json instead of grading")
    parser.add_argument("--verbose", action="store_true", help="print every test that was not passed")
    parser.add_argument("--half", choices=["tuned", "measured", "all"], default="all", help="grade only this half")
    args = parser.parse_args()
    tuned = set(args.tuned.split(","))
    halves = {"tuned": empty_half(), "measured": empty_half()}
    folders = sorted(
        entry for entry in os.listdir(args.corpus) if os.path.isfile(os.path.join(args.corpus, entry, "BUG"))
    )
    for name in folders:
        folder = os.path.join(args.corpus, name)
        bug = open(os.path.join(folder, "BUG")).read().strip()
        if bug != "correct" and bug not in DIAGNOSIS_IDS:
            sys.exit("%s: no diagnosis id is known for the mistake %r" % (name, bug))
        which = "tuned" if name.split("-")[0] in tuned else "measured"
        if args.half not in ("all", which):
            continue
        if args.from_reports:
            report = json.load(open(os.path.join(folder, "report.json")))
        else:
            report = grade(args.treegrade, folder, args.assignment)
        half = halves[which]
        full = report["score"] == report["max_score"]
        tests = list(not_passed(report))
        if bug == "correct":
            half["correct"] += 1
            half["full"] += int(full)
            print("%-10s %-24s score %s/%s" % (name, bug, report["score"], report["max_score"]))
            continue
        half["broken"] += 1
        half["lost"] += int(not full)
        verdicts = [(test, verdict(test, DIAGNOSIS_IDS[bug])) for test in tests]
        for _, said in verdicts:
            half["failed"] += 1
            half[said] += 1
        tally = {key: sum(1 for _, said in verdicts if said == key) for key in ("right", "wrong", "silent")}
        print(
            "%-10s %-24s score %s/%s  not passed %d: right %d, wrong %d, silent %d"
            % (name, bug, report["score"], report["max_score"], len(tests), tally["right"], tally["wrong"], tally["silent"])
        )
        for test, said in verdicts:
            if args.verbose or said == "wrong":
                named = (test.get("diagnosis") or {}).get("bug")
                print("    %-6s %s: %s" % (said, test["name"], named))
    print()
    print("%-30s %7s %11s %6s  %-10s %-10s %-10s" % ("half", "correct", "broken", "tests", "right", "wrong", "silent"))
    print("%-30s %7s %11s %6s" % ("", "at full", "lost points", "failed"))
    print(row("tuned (%s)" % ", ".join(sorted(tuned)), halves["tuned"]))
    print(row("measured (the others)", halves["measured"]))
    total = {key: halves["tuned"][key] + halves["measured"][key] for key in halves["tuned"]}
    print(row("all", total))


if __name__ == "__main__":
    main()
