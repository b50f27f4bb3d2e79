"""CS188's own verdicts beside treegrade's, question by question.

    python3 bench/cs188_compare.py CS188_MULTIAGENT_DIR COURSE_DIR STUDENTS_DIR

CS188_MULTIAGENT_DIR is a CS188 multiagent distribution whose test_cases/q2..q4
hold the graph tests only; COURSE_DIR is what `treegrade import cs188` wrote
from the same tests; STUDENTS_DIR holds one folder per student, each with its
multiAgents.py. Each student is graded by CS188's autograder (one run per
question, in a copy of the distribution) and by `treegrade check` (release
build); a question passes when it gets all its points. Prints one line per
student (AGREE or DIFFER, with both verdicts, and for each difference what
treegrade found), and writes every verdict to STUDENTS_DIR-compare.json.
"""

import json, os, re, shutil, subprocess, sys, tempfile

CS188, COURSE, ROOT = (os.path.abspath(path) for path in sys.argv[1:4])
TG = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "target", "release", "treegrade")
def cs188(d):
    work = tempfile.mkdtemp()
    shutil.copytree(CS188, work + "/m")
    shutil.copy(d + "/multiAgents.py", work + "/m/multiAgents.py")
    out = {}
    for q in ("q2", "q3", "q4"):
        try:
            r = subprocess.run(["python3", "autograder.py", "-q", q, "--no-graphics"], cwd=work + "/m", capture_output=True, text=True, timeout=120)
            m = re.search(r"Question %s: (\d+)/(\d+)" % q, r.stdout)
            out[q] = "pass" if m and m.group(1) == m.group(2) else "fail"
        except subprocess.TimeoutExpired:
            out[q] = "timeout"
    shutil.rmtree(work)
    return out
def tg(d):
    r = subprocess.run([TG, "check", "--assignment", COURSE, "--submission", d, "--format", "json"], capture_output=True, text=True, timeout=600)
    rep = json.loads(r.stdout)
    out, notes = {}, {}
    for q in rep["questions"]:
        out[q["id"]] = "pass" if q["score"] == q["max_score"] else "fail"
        failed = [t for t in q["tests"] if t["status"] != "passed"]
        unobs = sum(1 for t in q["tests"] if t["checks"]["value"] == "not-run" and t["status"] in ("passed", "failed"))
        diag = sorted({t["diagnosis"]["bug"] for t in failed if t.get("diagnosis")})
        reasons = [t["reason"][:150] for t in failed[:1]]
        notes[q["id"]] = {"failed": len(failed), "unobserved": unobs, "diagnosis": diag, "first": reasons}
    return out, notes
root = ROOT
rows = {}
for name in sorted(os.listdir(root)):
    d = os.path.join(root, name)
    if not os.path.isfile(os.path.join(d, "multiAgents.py")):
        continue  # notes beside the folders (a SOURCES.txt, say)
    c = cs188(d); t, n = tg(d)
    rows[name] = {"cs188": c, "treegrade": t, "notes": n}
    agree = all(c[q] == t[q] for q in c)
    print(("AGREE   " if agree else "DIFFER  ") + name, c, t, flush=True)
    if not agree:
        for q in c:
            if c[q] != t[q]: print("     ", q, n[q])
json.dump(rows, open(root.rstrip("/") + "-compare.json", "w"), indent=1)
agree = sum(all(row["cs188"][q] == row["treegrade"][q] for q in row["cs188"]) for row in rows.values())
print("%d of %d students get the same verdict on every question" % (agree, len(rows)))
