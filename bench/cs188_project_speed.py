"""Side by side: CS188's own autograder and treegrade on CS188's whole multiagent project.

    python3 bench/cs188_project_speed.py CS188_DIST SUBMISSION_DIR [RUNS]

CS188_DIST is a runnable CS188 multiagent distribution (code, test_cases/
with every question, layouts/); SUBMISSION_DIR holds the multiAgents.py both
grade (a correct one: every question must get full marks in both). The
script imports the distribution with `treegrade import cs188`, copies the
distribution to a scratch folder with the submission in it, then alternates,
RUNS times (default 3): CS188's autograder once per question
(`autograder.py -q qN --no-graphics`), treegrade once per question (`check
-q qN`), and treegrade once for all five. Every figure is a median of
wall-clock times, start-up included, on the same machine in the same run.
"""

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TREEGRADE = os.path.join(ROOT, "target", "release", "treegrade")
QUESTIONS = ("q1", "q2", "q3", "q4", "q5")
POINTS = {"q1": 4, "q2": 5, "q3": 5, "q4": 5, "q5": 6}


def timed(command, cwd=None):
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return time.perf_counter() - start, done.stdout


def main():
    dist, submission = (os.path.abspath(path) for path in sys.argv[1:3])
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    scratch = tempfile.mkdtemp(prefix="cs188-speed-")
    cs188 = os.path.join(scratch, "dist")
    shutil.copytree(dist, cs188, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(os.path.join(submission, "multiAgents.py"), os.path.join(cs188, "multiAgents.py"))
    course = os.path.join(scratch, "course")
    imported = subprocess.run([TREEGRADE, "import", "cs188", dist, "-o", course], capture_output=True, text=True)
    assert imported.returncode == 0, imported.stdout + imported.stderr
    times = {("cs188", q): [] for q in QUESTIONS}
    times.update({("treegrade", q): [] for q in QUESTIONS})
    times[("treegrade", "all")] = []
    for _ in range(runs):
        for question in QUESTIONS:
            seconds, output = timed([sys.executable, "autograder.py", "-q", question, "--no-graphics"], cwd=cs188)
            assert "Question %s: %d/%d" % (question, POINTS[question], POINTS[question]) in output, output[-2000:]
            times[("cs188", question)].append(seconds)
            seconds, output = timed(
                [TREEGRADE, "check", "--assignment", course, "--submission", submission, "-q", question, "--quiet"]
            )
            assert "Total: %d/%d" % (POINTS[question], POINTS[question]) in output, output
            times[("treegrade", question)].append(seconds)
        seconds, output = timed([TREEGRADE, "check", "--assignment", course, "--submission", submission, "--quiet"])
        assert "Total: 25/25" in output, output
        times[("treegrade", "all")].append(seconds)
    shutil.rmtree(scratch, ignore_errors=True)
    median = {key: statistics.median(values) for key, values in times.items()}
    print("%-4s %18s %18s" % ("", "CS188 autograder", "treegrade check"))
    for question in QUESTIONS:
        print("%-4s %16.2f s %16.2f s" % (question, median[("cs188", question)], median[("treegrade", question)]))
    total = sum(median[("cs188", q)] for q in QUESTIONS)
    print("%-4s %16.2f s %16.2f s  (five runs each)" % ("sum", total, sum(median[("treegrade", q)] for q in QUESTIONS)))
    print("all  %18s %16.2f s  (treegrade: one run of all five questions; medians of %d runs)" % ("", median[("treegrade", "all")], runs))
    python = subprocess.run([sys.executable, "--version"], capture_output=True, text=True).stdout.strip()
    print("%s, %d CPUs" % (python, os.cpu_count() or 0))


if __name__ == "__main__":
    main()
