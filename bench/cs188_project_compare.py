"""CS188's own autograder and treegrade on a corpus of student files: all five questions.

    python3 bench/cs188_project_compare.py CS188_DIST STUDENTS_DIR [--verdicts FILE] [--jobs N]
                                          [--students a,b] [--rerun]

CS188_DIST is a runnable CS188 multiagent distribution (its code, test_cases/
and layouts/); STUDENTS_DIR holds one folder per student with its
multiAgents.py. For each student the script records CS188's own verdict
(`autograder.py --no-graphics` in a fresh copy of the distribution, all five
questions in one process, as a student runs it) into the verdicts file
(default: STUDENTS_DIR/../cs188-verdicts.json; kept between runs, --rerun
records again), then grades the same file with treegrade on the course that
`treegrade import cs188 CS188_DIST` writes, and compares the points of each
question.

q2 to q4 are all-or-nothing in both and must agree exactly. q1 and q5 are
points by thresholds over 10 games whose random numbers differ between the
two graders (CS188's ghosts and students share one stream that treegrade
cannot replay). Where they differ, the student's q1 or q5 is graded again
with NOISE other seeds (default 9: seeds 100, 200, ...): the two agree
within the noise of 10 random games when CS188's points lie within the
range treegrade gives over those seeds. The script prints one line per
student, the questions where they differ, and the totals.
"""

import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TREEGRADE = os.path.join(ROOT, "target", "release", "treegrade")
QUESTIONS = ("q1", "q2", "q3", "q4", "q5")


def cs188_verdict(dist, student_dir, timeout):
    """CS188's points per question for one student (its autograder in a scratch copy of the distribution)."""
    with tempfile.TemporaryDirectory() as scratch:
        copy = os.path.join(scratch, "dist")
        shutil.copytree(dist, copy, ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copy(os.path.join(student_dir, "multiAgents.py"), os.path.join(copy, "multiAgents.py"))
        start = time.time()
        try:
            done = subprocess.run(
                [sys.executable, "autograder.py", "--no-graphics"],
                cwd=copy,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                timeout=timeout,
            )
            output = done.stdout
        except subprocess.TimeoutExpired as expired:
            output = (expired.stdout or b"").decode("utf-8", "replace") if isinstance(expired.stdout, bytes) else (expired.stdout or "")
        points = {}
        for question, earned in re.findall(r"^Question (q\d): (\d+)/\d+", output, re.M):
            points[question] = int(earned)
        details = {}
        for question in ("q1", "q5"):
            block = output.split("Question %s" % question)[1:2]
            if block:
                average = re.search(r"([-\d.]+) average score", block[0])
                wins = re.search(r"(\d+) wins", block[0])
                details[question] = {
                    "average": float(average.group(1)) if average else None,
                    "wins": int(wins.group(1)) if wins else None,
                }
        return {"points": points, "details": details, "seconds": round(time.time() - start, 1)}


def treegrade_verdict(course, student_dir):
    done = subprocess.run(
        [TREEGRADE, "check", "--assignment", course, "--submission", student_dir, "--format", "json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    report = json.loads(done.stdout)
    points, details = {}, {}
    for question in report["questions"]:
        points[question["id"]] = round(float(question["score"]))
        for test in question["tests"]:
            games = (test.get("pacman") or {}).get("games")
            if games:
                average = sum(game["score"] for game in games) / len(games)
                interval = test["pacman"].get("score_interval")
                wins = sum(1 for game in games if game["end"] == "won")
                details[question["id"]] = {"average": average, "interval": interval, "wins": wins}
    return {"points": points, "details": details}


def reseeded_course(course, question, seed):
    """A copy of the course whose play test of `question` has another seed."""
    copy = tempfile.mkdtemp(prefix="cs188-seed-")
    shutil.copytree(course, copy, dirs_exist_ok=True)
    tests = os.path.join(copy, "tests")
    for name in os.listdir(tests):
        if name.startswith(question + "-") and "grade-agent" in name:
            path = os.path.join(tests, name)
            text = re.sub(r"(?m)^  seed: -?\d+$", "  seed: %d" % seed, open(path).read())
            open(path, "w").write(text)
    return copy


def noise_range(course, student_dir, question, seeds):
    """treegrade's points for one play question over other seeds: (lowest, highest)."""
    points = []
    for seed in seeds:
        copy = reseeded_course(course, question, seed)
        try:
            done = subprocess.run(
                [TREEGRADE, "check", "--assignment", copy, "--submission", student_dir, "-q", question, "--format", "json"],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            points.append(round(float(json.loads(done.stdout)["score"])))
        finally:
            shutil.rmtree(copy, ignore_errors=True)
    return min(points), max(points)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dist")
    parser.add_argument("students")
    parser.add_argument("--verdicts")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--students", dest="only")
    parser.add_argument("--rerun", action="store_true")
    parser.add_argument("--timeout", type=int, default=2700)
    parser.add_argument("--noise", type=int, default=9)
    args = parser.parse_args()
    dist, students = os.path.abspath(args.dist), os.path.abspath(args.students)
    verdicts_file = args.verdicts or os.path.join(os.path.dirname(students), "cs188-verdicts.json")
    names = sorted(n for n in os.listdir(students) if os.path.isfile(os.path.join(students, n, "multiAgents.py")))
    if args.only:
        names = [n for n in names if n in args.only.split(",")]
    verdicts = json.load(open(verdicts_file)) if os.path.exists(verdicts_file) else {}
    missing = [n for n in names if args.rerun or n not in verdicts]
    if missing:
        print("recording CS188's verdicts of %d students (%d at a time)..." % (len(missing), args.jobs), flush=True)
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            jobs = {pool.submit(cs188_verdict, dist, os.path.join(students, n), args.timeout): n for n in missing}
            for job in concurrent.futures.as_completed(jobs):
                verdicts[jobs[job]] = job.result()
                with open(verdicts_file, "w") as handle:
                    json.dump(verdicts, handle, indent=1, sort_keys=True)
    course = tempfile.mkdtemp(prefix="cs188-course-")
    imported = subprocess.run([TREEGRADE, "import", "cs188", dist, "-o", course], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if imported.returncode != 0:
        sys.exit("import failed:\n" + imported.stdout + imported.stderr)
    agree = {question: 0 for question in QUESTIONS}
    exact = {question: 0 for question in QUESTIONS}
    for name in names:
        theirs = verdicts[name]
        ours = treegrade_verdict(course, os.path.join(students, name))
        differences = []
        for question in QUESTIONS:
            mine, cs188 = ours["points"].get(question, 0), theirs["points"].get(question, 0)
            if mine == cs188:
                exact[question] += 1
                agree[question] += 1
            elif question in ("q1", "q5") and args.noise > 0:
                seeds = [100 * (k + 1) for k in range(args.noise)]
                low, high = noise_range(course, os.path.join(students, name), question, seeds)
                low, high = min(low, mine), max(high, mine)
                within = low <= cs188 <= high
                agree[question] += within
                differences.append(
                    "%s %d vs CS188's %d (%s: treegrade gives %d to %d over %d seeds)"
                    % (question, mine, cs188, "within the noise" if within else "beyond the noise", low, high, args.noise + 1)
                )
            else:
                differences.append("%s %d vs CS188's %d" % (question, mine, cs188))
        total = (sum(ours["points"].values()), sum(theirs["points"].get(q, 0) for q in QUESTIONS))
        print("%-28s treegrade %2d, CS188 %2d  %s" % (name, total[0], total[1], "; ".join(differences)), flush=True)
    print()
    for question in QUESTIONS:
        print("%s: same points for %d of %d students, agreeing (within noise for q1/q5) for %d" % (question, exact[question], len(names), agree[question]))
    shutil.rmtree(course, ignore_errors=True)


if __name__ == "__main__":
    main()
