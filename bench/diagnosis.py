#!/usr/bin/env python3
"""Measures the diagnosis on a corpus of student programs.

Each folder of the corpus holds a submission and a file `BUG` naming its one
mistake (a diagnosis id, such as `swapped-updates`). Every folder is graded
with `treegrade check --format json` on the bundled assignment, or the one
given with `--assignment` (the instructor's view, hidden tests included); for each test the program failed
(a wrong value, action or order, not a crash), the diagnosis is counted as

- right: it names the folder's mistake (alone, or among "either ... or");
- wrong: it names only other mistakes;
- silent: it names none.

Usage: bench/diagnosis.py [--treegrade BIN] [--assignment DIR] [--min-right PCT] [--max-wrong PCT] FOLDER...
Prints a table per folder and the totals; exits 1 when the totals miss the
targets given.
"""
import argparse
import json
import os
import subprocess
import sys


def grade(treegrade, folder, assignment=None):
    env = dict(os.environ, NO_COLOR="1")
    env.pop("TREEGRADE_ASSIGNMENT", None)
    command = [treegrade, "check", "--submission", folder, "--format", "json"]
    if assignment:
        command += ["--assignment", assignment]
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if done.returncode not in (0, 1):
        sys.exit("%s: treegrade check exited %d:\n%s" % (folder, done.returncode, done.stderr))
    return json.loads(done.stdout)


def tally(report, bug):
    counts = {"failed": 0, "right": 0, "wrong": 0, "silent": 0}
    wrong = []
    for question in report["questions"]:
        for test in question["tests"]:
            if test["status"] != "failed":
                continue
            counts["failed"] += 1
            diagnosis = test.get("diagnosis")
            if not diagnosis:
                counts["silent"] += 1
            elif bug == diagnosis["bug"] or bug in diagnosis.get("alternatives", []):
                counts["right"] += 1
            else:
                counts["wrong"] += 1
                wrong.append("%s: %s" % (test["name"], diagnosis["bug"]))
    return counts, wrong


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--treegrade", default="target/release/treegrade")
    parser.add_argument("--min-right", type=float, default=None)
    parser.add_argument("--max-wrong", type=float, default=None)
    parser.add_argument("--assignment", default=None, help="grade on this assignment instead of the bundled one")
    parser.add_argument("folders", nargs="+")
    args = parser.parse_args()
    totals = {"failed": 0, "right": 0, "wrong": 0, "silent": 0}
    print("%-34s %-26s %6s %6s %6s %6s" % ("program", "mistake", "failed", "right", "wrong", "silent"))
    for folder in sorted(args.folders):
        bug_file = os.path.join(folder, "BUG")
        if not os.path.isfile(bug_file):
            continue
        bug = open(bug_file).read().strip()
        if bug == "correct":
            continue
        counts, wrong = tally(grade(args.treegrade, folder, args.assignment), bug)
        for key in totals:
            totals[key] += counts[key]
        name = os.path.basename(os.path.normpath(folder))
        print("%-34s %-26s %6d %6d %6d %6d" % (name, bug, counts["failed"], counts["right"], counts["wrong"], counts["silent"]))
        for line in wrong:
            print("    wrong: " + line)
    failed = max(totals["failed"], 1)
    right, wrong = 100.0 * totals["right"] / failed, 100.0 * totals["wrong"] / failed
    print(
        "total: %d failed tests; right %d (%.1f%%), wrong %d (%.1f%%), silent %d (%.1f%%)"
        % (totals["failed"], totals["right"], right, totals["wrong"], wrong, totals["silent"], 100.0 * totals["silent"] / failed)
    )
    missed = (args.min_right is not None and right < args.min_right) or (args.max_wrong is not None and wrong > args.max_wrong)
    sys.exit(1 if missed else 0)


if __name__ == "__main__":
    main()
