#!/usr/bin/env python3
"""MIT 6.034's verdicts beside treegrade's, test by test, on games-lab files.

Imports the lab with ``treegrade import mit6034`` (or takes a course it
wrote, ``--course``), then for each file runs MIT's offline tester on a
fresh copy of the lab (``mit6034_verdicts.run_one``) and ``treegrade check``
on the course (the file alone in a folder, under its own name, ``lab2.py``
or ``lab3.py``), and compares the two verdicts on every test the course
grades: MIT's ``correct`` against a test that keeps its point, anything else
MIT prints (``incorrect``, ``error``, ``not-implemented``, ``missing``)
against a test that scores 0. Tests the course does not grade yet are
counted apart.

    bench/mit6034_compare.py ../shared/mit6034-lab3 FILE... [--treegrade BIN] [--course DIR]

Prints one line per file (the tests where the verdicts differ, and both run
times) and the agreement: ``agree A of N verdicts on T tests x F files``.
Exit 0 when every verdict agrees, 1 otherwise.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mit6034_verdicts  # noqa: E402

_HERE = os.path.dirname(os.path.abspath(__file__))
_NUMBER = re.compile(r"(?:^|/)(\d+)-[A-Za-z_]\w*$")


def import_course(treegrade, lab, into):
    done = subprocess.run([treegrade, "import", "mit6034", lab, "-o", into], capture_output=True, text=True)
    if done.returncode != 0:
        sys.stderr.write(done.stdout + done.stderr)
        raise SystemExit("treegrade import mit6034 failed")
    return into


def treegrade_verdicts(treegrade, course, path):
    """Test number to ``correct`` or ``incorrect``, and the run time."""
    with tempfile.TemporaryDirectory(prefix="mit6034-tg-") as scratch:
        name = os.path.basename(path) if os.path.basename(path) in ("lab2.py", "lab3.py") else "lab2.py"
        shutil.copyfile(path, os.path.join(scratch, name))
        start = time.monotonic()
        done = subprocess.run(
            [treegrade, "check", "--assignment", course, "--submission", scratch, "--format", "json"],
            capture_output=True,
            text=True,
            env=dict(os.environ, NO_COLOR="1"),
        )
        seconds = round(time.monotonic() - start, 3)
    if done.returncode not in (0, 1):
        raise SystemExit("treegrade check failed on %s: %s" % (path, done.stderr))
    report = json.loads(done.stdout)
    verdicts = {}
    for question in report["questions"]:
        for test in question["tests"]:
            found = _NUMBER.search(test["name"])
            if found:
                verdicts[str(int(found.group(1)))] = "correct" if test["score"] == test["max_score"] else "incorrect"
    return verdicts, seconds


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("lab")
    parser.add_argument("files", nargs="+")
    parser.add_argument("--treegrade", default=os.path.join(_HERE, "..", "target", "release", "treegrade"))
    parser.add_argument("--course")
    args = parser.parse_args(argv[1:])
    with tempfile.TemporaryDirectory(prefix="mit6034-course-") as scratch:
        course = args.course or import_course(args.treegrade, args.lab, os.path.join(scratch, "course"))
        agree = total = 0
        graded = None
        for path in args.files:
            mit = mit6034_verdicts.run_one(args.lab, path)
            ours, seconds = treegrade_verdicts(args.treegrade, course, path)
            graded = sorted(ours, key=int)
            differ = []
            for number in graded:
                theirs = "correct" if mit["verdicts"][number] == "correct" else "incorrect"
                total += 1
                if theirs == ours[number]:
                    agree += 1
                else:
                    differ.append("%s (MIT %s, treegrade %s)" % (number, mit["verdicts"][number], ours[number]))
            print(
                "%s: %s; MIT's tester %.1f s (all 44 tests), treegrade %.1f s (%d tests)"
                % (path, "differ on " + ", ".join(differ) if differ else "every verdict agrees", mit["seconds"],
                   seconds, len(graded))
            )
        print("agree %d of %d verdicts on %d tests x %d files" % (agree, total, len(graded or []), len(args.files)))
    return 0 if agree == total else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
