"""CS188's own autograder and treegrade on a corpus of student files: all five questions.

    python3 bench/cs188_project_compare.py CS188_DIST STUDENTS_DIR [--verdicts FILE] [--jobs N]
                                          [--students a,b] [--rerun] [--twice]

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
points by thresholds over 10 games, and treegrade plays CS188's own games:
one Python Mersenne Twister seeded once per test, owned by the grader, the
student's `random` served from it in CS188's order (docs/format.md section
10, `random: shared`). So they must agree exactly too: the points, the
average score, the wins, and each game's score and result (CS188's
`Scores:` and `Record:` lines against treegrade's games). A student whose
CS188 run did not complete within its limits (a timed-out game: CS188's
limits are wall-clock) can differ; such differences are marked. --twice
grades each student twice with treegrade and checks that the games are the
same. The script prints one line per student, the questions where they
differ, and the totals.
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
                scores = re.search(r"^Scores:\s*(.*)$", block[0], re.M)
                record = re.search(r"^Record:\s*(.*)$", block[0], re.M)
                details[question] = {
                    "average": float(average.group(1)) if average else None,
                    "wins": int(wins.group(1)) if wins else None,
                    "scores": [float(x) for x in scores.group(1).split(", ")] if scores else None,
                    "record": record.group(1).split(", ") if record else None,
                    # CS188's own words (on stderr) when its time rules end a game.
                    "timed_out": any(
                        words in block[0]
                        for words in ("timed out on a single move", "ran out of time", "exceeded the maximum number of warnings")
                    ),
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
                wins = sum(1 for game in games if game["end"] == "won")
                details[question["id"]] = {
                    "average": average,
                    "wins": wins,
                    "scores": [float(game["score"]) for game in games],
                    "record": ["Win" if game["end"] == "won" else "Loss" for game in games],
                    "games": [(game["score"], game["end"], game["moves"]) for game in games],
                }
    return {"points": points, "details": details}


def play_differences(question, ours, theirs):
    """How treegrade's games of q1 or q5 differ from CS188's (its points, average, wins, scores, record)."""
    mine, cs188 = ours["details"].get(question), theirs.get("details", {}).get(question)
    if not mine or not cs188:
        return []
    differences = []
    for key in ("average", "wins", "scores", "record"):
        if cs188.get(key) is not None and mine[key] != cs188[key]:
            differences.append("%s %s %s vs CS188's %s" % (question, key, mine[key], cs188[key]))
    return differences


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dist")
    parser.add_argument("students")
    parser.add_argument("--verdicts")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--students", dest="only")
    parser.add_argument("--rerun", action="store_true")
    parser.add_argument("--timeout", type=int, default=2700)
    parser.add_argument("--twice", action="store_true")
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
    exact = {question: 0 for question in QUESTIONS}
    games_exact = {question: 0 for question in ("q1", "q5")}
    timed_out = 0
    rerun_same = 0
    for name in names:
        theirs = verdicts[name]
        ours = treegrade_verdict(course, os.path.join(students, name))
        if args.twice:
            again = treegrade_verdict(course, os.path.join(students, name))
            rerun_same += again == ours
        differences = []
        for question in QUESTIONS:
            mine, cs188 = ours["points"].get(question, 0), theirs["points"].get(question, 0)
            if mine == cs188:
                exact[question] += 1
            else:
                differences.append("%s %d vs CS188's %d" % (question, mine, cs188))
            if question in games_exact:
                games = play_differences(question, ours, theirs)
                games_exact[question] += not games
                differences.extend(games)
        slow = any(d.get("timed_out") for d in theirs.get("details", {}).values())
        timed_out += slow
        total = (sum(ours["points"].values()), sum(theirs["points"].get(q, 0) for q in QUESTIONS))
        note = " (CS188 timed a game out: its limits are wall-clock)" if slow and differences else ""
        print("%-28s treegrade %2d, CS188 %2d  %s%s" % (name, total[0], total[1], "; ".join(differences), note), flush=True)
    print()
    for question in QUESTIONS:
        games = ""
        if question in games_exact:
            games = "; the same average, wins and games for %d" % games_exact[question]
        print("%s: same points for %d of %d students%s" % (question, exact[question], len(names), games))
    if timed_out:
        print("%d students had a game that CS188 timed out" % timed_out)
    if args.twice:
        print("a second treegrade run gave the same games and points for %d of %d students" % (rerun_same, len(names)))
    shutil.rmtree(course, ignore_errors=True)


if __name__ == "__main__":
    main()
