#!/usr/bin/env python3
"""MIT 6.034's verdicts beside treegrade's on a folder of games-lab students.

    bench/mit6034_corpus.py LAB STUDENTS [--treegrade BIN] [--course DIR]
                            [--json OUT] [--mit-json FILE] [--reuse-mit]
                            [--mit-time-limit S]

LAB is the lab's folder as MIT hands it out (``../shared/mit6034-lab3``).
STUDENTS is a folder with one folder per student, each holding the
student's ``lab2.py`` or ``lab3.py`` unchanged (the layout of
``tests/fixtures/mit6034-kit/students``). For each student it:

1. runs MIT's offline tester on a throwaway copy of the lab
   (``mit6034_verdicts.run_one``: the file saved as ``lab2.py``, no input, a
   time limit) and records its verdict on each of the 44 tests; a file
   Python 3 cannot compile (a Python 2 file: "MIT's tester cannot run this
   file under Python 3: SyntaxError at line N") is reported as that, with
   treegrade's result, and kept out of the agreement, as is a file that
   imports a package this machine lacks; a file that raises on import for a
   reason of its own is reported too, and compared (MIT's tester fails every
   test);
2. runs ``treegrade check`` of the file on the course that ``treegrade
   import mit6034 LAB`` wrote once for the whole run (or ``--course``).

The comparison is per test name, ``NN-function`` after MIT's test number:
every test the imported course grades is compared (whatever the import
writes: today 23-38), MIT's ``correct`` against a test that keeps all its
points, anything else MIT prints (``incorrect``, ``error``,
``not-implemented``, ``missing``) against a test that does not. MIT's tests
the course does not grade are listed as not compared, with the import's
reason. It prints each student's line, the agreement (overall and per
test) and every disagreement with both verdicts, MIT's output and
treegrade's message. ``--json`` writes everything, MIT's per-test verdicts
(1..44) included; ``--mit-json`` writes MIT's verdicts alone, and with
``--reuse-mit`` reads them back instead of running MIT's tester again.
Exit 0 when every compared verdict agrees, 1 otherwise.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import shutil
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mit6034_verdicts  # noqa: E402

_HERE = os.path.dirname(os.path.abspath(__file__))
_TEST_NAME = re.compile(r"(?:^|/)((\d+)-[A-Za-z_]\w*)$")
_NOT_GRADED = re.compile(r"^not graded by treegrade yet: (\d+)-(\S+) \((.*)\)$")
_STUDENT_FILES = ("lab2.py", "lab3.py")
CHECK_TIME_LIMIT = 600  # seconds per student for treegrade check


def students(folder):
    """(name, file) for every student folder holding lab2.py or lab3.py, and the folders without."""
    found, without = [], []
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if not os.path.isdir(path):
            continue
        files = [os.path.join(path, file) for file in _STUDENT_FILES if os.path.isfile(os.path.join(path, file))]
        if files:
            found.append((name, files[0]))
        else:
            without.append(name)
    return found, without


def import_course(treegrade, lab, into):
    """Runs the import once; returns MIT's test number to why the course does not grade it."""
    done = subprocess.run([treegrade, "import", "mit6034", lab, "-o", into], capture_output=True, text=True)
    if done.returncode != 0:
        sys.stderr.write(done.stdout + done.stderr)
        raise SystemExit("treegrade import mit6034 failed")
    reasons = {}
    for line in (done.stdout + done.stderr).splitlines():
        match = _NOT_GRADED.match(line.strip())
        if match:
            reasons[str(int(match.group(1)))] = "%s-%s: %s" % (match.group(1), match.group(2), match.group(3))
    return reasons


def test_message(test):
    """treegrade's words on one test: its reason and the diagnosis, if any."""
    parts = [test.get("reason") or ""]
    diagnosis = test.get("diagnosis")
    if diagnosis:
        parts.append("diagnosis %s: %s" % (diagnosis.get("bug"), diagnosis.get("explanation")))
    warnings = test.get("warnings")
    if warnings:
        parts.append("warnings: %s" % json.dumps(warnings))
    return "; ".join(part for part in parts if part)


def treegrade_check(treegrade, course, path):
    """MIT's test number to treegrade's verdict on it, and the run time."""
    with tempfile.TemporaryDirectory(prefix="mit6034-tg-") as scratch:
        shutil.copyfile(path, os.path.join(scratch, os.path.basename(path)))
        start = time.monotonic()
        try:
            done = subprocess.run(
                [treegrade, "check", "--assignment", course, "--submission", scratch, "--format", "json"],
                capture_output=True,
                text=True,
                env=dict(os.environ, NO_COLOR="1"),
                timeout=CHECK_TIME_LIMIT,
            )
        except subprocess.TimeoutExpired:
            return {"error": "treegrade check ran past %d s" % CHECK_TIME_LIMIT}, CHECK_TIME_LIMIT
        seconds = round(time.monotonic() - start, 3)
    if done.returncode not in (0, 1):
        return {"error": "treegrade check exited %s: %s" % (done.returncode, done.stderr.strip()[-400:])}, seconds
    return per_test(json.loads(done.stdout)), seconds


def per_test(report):
    """Test number to {name, verdict, status, message} from a JSON v1 report."""
    found = {}
    for question in report["questions"]:
        for test in question["tests"]:
            match = _TEST_NAME.search(test["name"])
            if not match:
                continue
            found[str(int(match.group(2)))] = {
                "name": match.group(1),
                "verdict": "correct" if test["score"] == test["max_score"] else "incorrect",
                "status": test["status"],
                "message": test_message(test),
            }
    return found


def mit_verdicts(lab, roster, previous, time_limit):
    """MIT's tester on every student, or its verdicts read back from an earlier run."""
    results = {}
    for name, path in roster:
        if name in previous:
            results[name] = previous[name]
            continue
        results[name] = mit6034_verdicts.run_one(lab, path, time_limit)
        sys.stderr.write("MIT's tester, %s: %d of 44 in %.1f s\n" % (name, results[name]["passed"], results[name]["seconds"]))
    return results


def compare(mit, ours):
    """Compares one student: (agreements, disagreements) on the tests treegrade graded."""
    agree, differ = [], []
    for number in sorted(ours, key=int):
        theirs = "correct" if mit["verdicts"][number] == "correct" else "incorrect"
        (agree if theirs == ours[number]["verdict"] else differ).append(number)
    return agree, differ


class Tally:
    """Agreement counts, overall and per test."""

    def __init__(self):
        self.per_test = {}
        self.disagreements = []

    def add(self, student, mit, ours):
        agree, differ = compare(mit, ours)
        for number in agree + differ:
            counts = self.per_test.setdefault(number, [0, 0, ours[number]["name"]])
            counts[1] += 1
            counts[0] += number in agree
        for number in differ:
            self.disagreements.append((student, number, mit, ours[number]))
        return agree, differ

    def totals(self):
        return sum(c[0] for c in self.per_test.values()), sum(c[1] for c in self.per_test.values())


def student_line(name, mit, ours, seconds, differ):
    graded = len(ours)
    passed = sum(1 for test in ours.values() if test["verdict"] == "correct")
    mit_passed = sum(1 for number in ours if mit["verdicts"][number] == "correct")
    verdict = "differ on " + ", ".join(ours[n]["name"] for n in differ) if differ else "every verdict agrees"
    return "%s: MIT %d, treegrade %d of %d compared tests; %s (MIT's tester %.1f s for 44 tests, treegrade %.1f s)" % (
        name, mit_passed, passed, graded, verdict, mit["seconds"], seconds)


def not_compared_lines(not_compared):
    """One line per test with the import's reason, or the numbers as ranges when there is none."""
    numbers = sorted((int(n) for n in not_compared), key=int)
    if any(not_compared[str(n)] for n in numbers):
        return [not_compared[str(n)] or "%02d" % n for n in numbers]
    ranges, start = [], None
    for index, number in enumerate(numbers):
        start = number if start is None else start
        if index + 1 == len(numbers) or numbers[index + 1] != number + 1:
            ranges.append("%02d" % start if start == number else "%02d-%02d" % (start, number))
            start = None
    return ["MIT's tests " + ", ".join(ranges)]


def report(tally, not_compared, cannot, broken, without):
    agree, total = tally.totals()
    print("\nagree %d / %d verdicts" % (agree, total))
    for number in sorted(tally.per_test, key=int):
        good, count, name = tally.per_test[number]
        print("  %-30s %d / %d" % (name, good, count))
    for student, number, mit, ours in tally.disagreements:
        print("\nDISAGREE %s on %s: MIT %s, treegrade %s (%s)" % (
            student, ours["name"], mit["verdicts"][number], ours["verdict"], json.dumps(ours["status"])))
        print("  treegrade: %s" % (ours["message"] or "(no message)"))
        print("  MIT: %s" % mit.get("details", {}).get(number, "(passed)").replace("\n", "\n       "))
    if not_compared:
        print("\nnot compared (the imported course does not grade them): %d tests" % len(not_compared))
        for line in not_compared_lines(not_compared):
            print("  %s" % line)
    for name, why in cannot:
        kept_out = "cannot import this file under" not in why
        print("\n%s: %s: %s" % ("not comparable" if kept_out else "compared, all failed by MIT", name, why))
    for name, why in broken:
        print("\ntreegrade could not grade %s: %s" % (name, why))
    for name in without:
        print("\nno lab2.py or lab3.py in %s" % name)
    return agree == total and not broken


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("lab")
    parser.add_argument("students")
    parser.add_argument("--treegrade", default=os.path.join(_HERE, "..", "target", "release", "treegrade"))
    parser.add_argument("--course", help="a course treegrade import mit6034 already wrote")
    parser.add_argument("--json", help="write every verdict and message here")
    parser.add_argument("--mit-json", help="write MIT's per-test verdicts here (read back with --reuse-mit)")
    parser.add_argument("--reuse-mit", action="store_true")
    parser.add_argument("--mit-time-limit", type=float, default=120,
                        help="seconds for MIT's tester on one file (a correct one takes 3-25 s here)")
    args = parser.parse_args(argv[1:])
    roster, without = students(args.students)
    previous = {}
    if args.reuse_mit and args.mit_json and os.path.isfile(args.mit_json):
        previous = json.load(open(args.mit_json))["students"]
    with tempfile.TemporaryDirectory(prefix="mit6034-course-") as scratch:
        reasons = {}
        course = args.course
        if not course:
            course = os.path.join(scratch, "course")
            reasons = import_course(args.treegrade, args.lab, course)
        mit = mit_verdicts(args.lab, roster, previous, args.mit_time_limit)
        if args.mit_json:
            write_json(args.mit_json, {"lab": args.lab, "python": python_version(), "students": mit})
        return grade_and_compare(args, course, roster, mit, reasons, without)


def grade_and_compare(args, course, roster, mit, reasons, without):
    tally, cannot, broken, graded, record = Tally(), [], [], set(), {}
    for name, path in roster:
        ours, seconds = treegrade_check(args.treegrade, course, path)
        record[name] = {"file": path, "mit": mit[name], "treegrade": ours, "treegrade_seconds": seconds}
        if "error" in ours:
            broken.append((name, ours["error"]))
            continue
        graded.update(ours)
        failure = mit[name].get("cannot_run")
        if failure:
            passed = sum(1 for test in ours.values() if test["verdict"] == "correct")
            cannot.append((name, "%s; treegrade passes %d of %d tests" % (failure["message"], passed, len(ours))))
            if failure["kind"] in ("syntax", "environment"):
                continue
        agree, differ = tally.add(name, mit[name], ours)
        print(student_line(name, mit[name], ours, seconds, differ))
    not_compared = dict((str(n), reasons.get(str(n), ""))
                        for n in range(1, 45) if str(n) not in graded)
    if args.json:
        agree, total = tally.totals()
        write_json(args.json, {"lab": args.lab, "python": python_version(), "agree": agree, "total": total,
                               "not_compared": not_compared, "students": record})
    return 0 if report(tally, not_compared, cannot, broken, without) else 1


def python_version():
    return "%d.%d.%d" % sys.version_info[:3]


def write_json(path, data):
    with open(path, "w") as out:
        json.dump(data, out, indent=1, sort_keys=True)
        out.write("\n")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
