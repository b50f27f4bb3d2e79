#!/usr/bin/env python3
"""Measures the diagnosis on a corpus of student programs.

Each program folder holds a submission and a file `BUG` whose first line
names its one mistake: a diagnosis id (such as `swapped-updates`) in the
committed corpus, or an author's label (such as `never-tighten`) in a corpus
written from the handouts alone; LABELS maps each label to the diagnosis
ids that name that very mistake. Every folder is graded with
`treegrade check --format json` (the instructor's view, hidden tests
included); for each test the program failed (a wrong value, action or
order, not a crash), the diagnosis is counted as

- right: it names the folder's mistake (alone, or as one of the code shapes
  a named behaviour lists);
- wrong: it names only other mistakes;
- unnamed: it names none.

A correct program (`BUG` = `correct`) must get full marks.

Usage:
  bench/diagnosis.py [--assignment DIR] FOLDER...          programs of one assignment
  bench/diagnosis.py --corpus CORPUS [--corpus CORPUS]...  CORPUS/<assignment>/<program>/

With `--corpus`, each program is graded on its folder's assignment
(`adversarial-search` is the bundled default; `games` and `more-searches`
are under assignments/) and the totals are printed per assignment.
Exits 1 when a total misses `--min-right` or `--max-wrong`, or a correct
program loses points.
"""
import argparse
import json
import os
import subprocess
import sys

# A label -> the diagnosis ids that name that very mistake. A label that is
# a diagnosis id names itself; only what differs is listed.
LABELS = {
    "never-tighten": ["window-never-tightened"],
    "depth-ignored": ["depth-ignored"],
    "turn-by-depth": ["strict-alternation"],
    "eval-mover-view": ["eval-mover-view"],
    "eval-wrong-player": ["eval-wrong-player"],
    "own-rules": ["own-rules"],
    "terminal-root-crash": ["terminal-root-crash"],
}

ASSIGNMENTS = {"adversarial-search": None, "games": "assignments/games", "more-searches": "assignments/more-searches"}


def accepted(label):
    return set(LABELS.get(label, [label]))


def grade(treegrade, folder, assignment=None):
    env = dict(os.environ, NO_COLOR="1")
    env.pop("TREEGRADE_ASSIGNMENT", None)
    command = [treegrade, "check", "--submission", folder, "--format", "json"]
    if assignment:
        command += ["--assignment", assignment]
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    if done.returncode not in (0, 1):
        sys.exit("%s: treegrade check exited %d:\n%s" % (folder, done.returncode, done.stderr))
    return json.loads(done.stdout)


def named(diagnosis):
    """The ids a diagnosis names: its own and its alternatives (a behaviour's code shapes)."""
    if not diagnosis:
        return []
    return [diagnosis["bug"]] + list(diagnosis.get("alternatives", []))


def tally(report, label):
    counts = {"failed": 0, "right": 0, "wrong": 0, "unnamed": 0}
    wrong = []
    for question in report["questions"]:
        for test in question["tests"]:
            if test["status"] != "failed":
                continue
            counts["failed"] += 1
            ids = named(test.get("diagnosis"))
            if not ids:
                counts["unnamed"] += 1
            elif accepted(label) & set(ids):
                counts["right"] += 1
            else:
                counts["wrong"] += 1
                wrong.append("%s: %s" % (test["name"], "/".join(ids)))
    return counts, wrong


def label_of(folder):
    bug_file = os.path.join(folder, "BUG")
    if not os.path.isfile(bug_file):
        return None
    lines = open(bug_file).read().strip().splitlines()
    return lines[0].strip() if lines else None


def measure(treegrade, folders, assignment, title):
    """Grades `folders` on `assignment`; prints a table; returns the totals and the programs that broke a rule."""
    totals = {"failed": 0, "right": 0, "wrong": 0, "unnamed": 0}
    broken = []
    print("== %s" % title)
    print("%-34s %-26s %6s %6s %6s %7s" % ("program", "mistake", "failed", "right", "wrong", "unnamed"))
    for folder in sorted(folders):
        label = label_of(folder)
        if label is None:
            continue
        report = grade(treegrade, folder, assignment)
        name = os.path.basename(os.path.normpath(folder))
        if label == "correct":
            if report["score"] != report["max_score"]:
                broken.append("%s: a correct program got %s of %s" % (name, report["score"], report["max_score"]))
            continue
        counts, wrong = tally(report, label)
        for key in totals:
            totals[key] += counts[key]
        print("%-34s %-26s %6d %6d %6d %7d" % (name, label, counts["failed"], counts["right"], counts["wrong"], counts["unnamed"]))
        for line in wrong:
            print("    wrong: " + line)
    failed = max(totals["failed"], 1)
    print(
        "%s: %d failed tests; right %d (%.1f%%), wrong %d (%.1f%%), unnamed %d (%.1f%%)"
        % (
            title,
            totals["failed"],
            totals["right"],
            100.0 * totals["right"] / failed,
            totals["wrong"],
            100.0 * totals["wrong"] / failed,
            totals["unnamed"],
            100.0 * totals["unnamed"] / failed,
        )
    )
    for line in broken:
        print("    " + line)
    return totals, broken


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--treegrade", default="target/release/treegrade")
    parser.add_argument("--min-right", type=float, default=None)
    parser.add_argument("--max-wrong", type=float, default=None)
    parser.add_argument("--assignment", default=None, help="grade FOLDERs on this assignment instead of the bundled one")
    parser.add_argument("--corpus", action="append", default=[], help="a corpus laid out as CORPUS/<assignment>/<program>/")
    parser.add_argument("folders", nargs="*")
    args = parser.parse_args()
    runs = []
    if args.folders:
        runs.append((args.assignment or "adversarial-search", args.folders, args.assignment))
    for corpus in args.corpus:
        for assignment, path in ASSIGNMENTS.items():
            root = os.path.join(corpus, assignment)
            if os.path.isdir(root):
                folders = [os.path.join(root, name) for name in os.listdir(root) if not name.startswith("_")]
                runs.append(("%s (%s)" % (assignment, corpus), folders, path))
    if not runs:
        parser.error("give program folders or --corpus")
    missed = False
    for title, folders, assignment in runs:
        totals, broken = measure(args.treegrade, folders, assignment, title)
        failed = max(totals["failed"], 1)
        right, wrong = 100.0 * totals["right"] / failed, 100.0 * totals["wrong"] / failed
        missed |= bool(broken)
        missed |= args.min_right is not None and right < args.min_right
        missed |= args.max_wrong is not None and wrong > args.max_wrong
    sys.exit(1 if missed else 0)


if __name__ == "__main__":
    main()
