"""Side by side: CS188's own autograder and treegrade on CS188's graph tests.

    python3 bench/cs188_speed.py CS188_MULTIAGENT_DIR COURSE_DIR SUBMISSION_DIR [RUNS]

CS188_MULTIAGENT_DIR is a CS188 multiagent distribution whose
test_cases/q2..q4 hold the graph tests only (the Pacman game tests left out);
COURSE_DIR is what `treegrade import cs188` wrote from the same tests;
SUBMISSION_DIR holds the multiAgents.py both grade (it is copied into the
CS188 folder). The runs alternate, so that both see the same machine, and
each figure is a median of wall-clock times, start-up included: CS188's
autograder once per question (`autograder.py -q qN --no-graphics`), treegrade
once for all three questions (`treegrade check`, release build, sandbox auto).
"""

import os
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TREEGRADE = os.path.join(ROOT, "target", "release", "treegrade")


def timed(command, cwd=None):
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return time.perf_counter() - start, done.stdout


def main():
    cs188, course, submission = (os.path.abspath(path) for path in sys.argv[1:4])
    runs = int(sys.argv[4]) if len(sys.argv) > 4 else 20
    shutil.copy(os.path.join(submission, "multiAgents.py"), os.path.join(cs188, "multiAgents.py"))
    cs188_times = {question: [] for question in ("q2", "q3", "q4")}
    treegrade_times = []
    for _ in range(runs):
        for question in cs188_times:
            seconds, output = timed(["python3", "autograder.py", "-q", question, "--no-graphics"], cwd=cs188)
            assert "Question %s: 5/5" % question in output, output
            cs188_times[question].append(seconds)
        seconds, output = timed([TREEGRADE, "check", "--assignment", course, "--submission", submission])
        assert "Total: 15/15" in output, output
        treegrade_times.append(seconds)
    for question, times in cs188_times.items():
        print("CS188 autograder, %s graph tests: median %.3f s" % (question, statistics.median(times)))
    print("CS188 autograder, q2+q3+q4 (three runs): median %.3f s" % sum(statistics.median(t) for t in cs188_times.values()))
    print("treegrade check, q2+q3+q4 (one run):    median %.3f s (%d runs each)" % (statistics.median(treegrade_times), runs))


if __name__ == "__main__":
    main()
