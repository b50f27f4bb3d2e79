#!/usr/bin/env python3
"""Side by side: MIT 6.034's offline tester and treegrade on one games-lab file.

    python3 bench/mit6034_speed.py LAB [SUBMISSION_DIR] [RUNS]

LAB is the lab's folder as MIT hands it out (``../shared/mit6034-lab3``);
SUBMISSION_DIR holds the ``lab2.py`` or ``lab3.py`` both grade (default
``tests/fixtures/mit6034-kit/students/correct-helpers``, a correct file of
ours: it must pass every test in both); RUNS defaults to 5. The script
imports the lab with ``treegrade import mit6034`` once, copies the lab to a
scratch folder with the file saved as ``lab2.py``, then alternates, RUNS
times, on the same machine in the same run:

- MIT's tester as a student runs it (``python3 tester.py``: all 44 tests);
- MIT's tester on the tests the imported course grades, and on those only
  (its own ``test_offline`` over ``tests.get_tests()`` filtered to those
  numbers, from a driver written into the scratch copy);
- ``treegrade check`` of the same file on the imported course.

Every figure is a median of wall-clock times, start-up included. The
tests the course grades are listed by name: as more of MIT's tests are
imported, the same command compares more.
"""

import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TREEGRADE = os.path.join(ROOT, "target", "release", "treegrade")
DEFAULT_SUBMISSION = os.path.join(ROOT, "tests", "fixtures", "mit6034-kit", "students", "correct-helpers")
_NUMBER = re.compile(r"(?:^|/)(\d+)-[A-Za-z_]\w*$")

# Runs MIT's own offline loop over the tests whose numbers are given.
DRIVER = """
import sys
import tests
import tester
keep = set(int(number) for number in sys.argv[1].split(","))
every = tests.get_tests()
tests.get_tests = lambda: [test for index, test in enumerate(every) if index + 1 in keep]
sys.exit(0 if tester.test_offline() else 1)
"""


def timed(command, cwd=None):
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)
    return time.perf_counter() - start, done.stdout


def student_file(submission):
    for name in ("lab2.py", "lab3.py"):
        if os.path.isfile(os.path.join(submission, name)):
            return os.path.join(submission, name)
    raise SystemExit("%s has no lab2.py or lab3.py" % submission)


def graded_tests(course, submission):
    """The names of the tests the course grades, in MIT's order, checking that all pass."""
    done = subprocess.run([TREEGRADE, "check", "--assignment", course, "--submission", submission,
                           "--format", "json"], capture_output=True, text=True)
    report = json.loads(done.stdout)
    names = [test["name"].split("/")[-1] for question in report["questions"] for test in question["tests"]]
    assert report["score"] == report["max_score"], "the file must pass every test: %s" % done.stdout[-2000:]
    return sorted((name for name in names if _NUMBER.search(name)), key=lambda name: int(name.split("-")[0]))


def prepare(lab, submission, scratch):
    copy = os.path.join(scratch, "lab")
    shutil.copytree(lab, copy, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(student_file(submission), os.path.join(copy, "lab2.py"))
    with open(os.path.join(copy, "only_these_tests.py"), "w") as driver:
        driver.write(DRIVER)
    course = os.path.join(scratch, "course")
    imported = subprocess.run([TREEGRADE, "import", "mit6034", lab, "-o", course], capture_output=True, text=True)
    assert imported.returncode == 0, imported.stdout + imported.stderr
    return copy, course


def measure(copy, course, submission, numbers, runs):
    times = {"mit-all": [], "mit-same": [], "treegrade": []}
    python = [sys.executable, "-W", "ignore"]
    for _ in range(runs):
        seconds, output = timed(python + ["tester.py"], cwd=copy)
        assert "Passed 44 of 44 tests." in output, output[-2000:]
        times["mit-all"].append(seconds)
        seconds, output = timed(python + ["only_these_tests.py", ",".join(numbers)], cwd=copy)
        assert "Passed %d of %d tests." % (len(numbers), len(numbers)) in output, output[-2000:]
        times["mit-same"].append(seconds)
        seconds, output = timed([TREEGRADE, "check", "--assignment", course, "--submission", submission, "--quiet"])
        assert re.search(r"Total: (\d+)/\1\b", output), output
        times["treegrade"].append(seconds)
    return dict((key, statistics.median(values)) for key, values in times.items())


def main():
    lab = os.path.abspath(sys.argv[1])
    submission = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else DEFAULT_SUBMISSION
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    scratch = tempfile.mkdtemp(prefix="mit6034-speed-")
    try:
        copy, course = prepare(lab, submission, scratch)
        names = graded_tests(course, submission)
        numbers = [name.split("-")[0].lstrip("0") for name in names]
        median = measure(copy, course, submission, numbers, runs)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print("the tests treegrade grades so far (%d): %s" % (len(names), ", ".join(names)))
    print("MIT's offline tester, all 44 tests:         %6.2f s" % median["mit-all"])
    print("MIT's offline tester, the same %2d tests:     %6.2f s" % (len(names), median["mit-same"]))
    print("treegrade check, those %2d tests:             %6.2f s  (%.1f times as fast as MIT's on the same tests)"
          % (len(names), median["treegrade"], median["mit-same"] / median["treegrade"]))
    version = subprocess.run([sys.executable, "--version"], capture_output=True, text=True).stdout.strip()
    print("medians of %d runs, alternating; %s, %d CPUs; %s" % (runs, version, os.cpu_count() or 0,
                                                              os.path.relpath(student_file(submission), ROOT)))


if __name__ == "__main__":
    main()
