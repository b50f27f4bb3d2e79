#!/usr/bin/env python3
"""MIT 6.034's own verdicts on a corpus of games-lab files, one per test.

For each file, runs MIT's offline tester (``python3 tester.py``) on a fresh
copy of the lab with the file saved as ``lab2.py`` (a Fall 2017-2019
``lab3.py`` runs unchanged under that name), with no input and a time limit,
and records what the tester printed for each of the 44 tests:
``correct``, ``incorrect``, ``error`` or ``not-implemented`` (the tester
prints and does not count these), or ``missing`` when its output has no line
for the test (the tester crashed or timed out). The run time of each file
is recorded too, for the speed comparison.

    bench/mit6034_verdicts.py ../shared/mit6034-lab3 FILE... > mit-verdicts.json

The output is one JSON object: ``{"lab": DIR, "python": VERSION, "files":
{FILE: {"verdicts": {"1": ..., ..., "44": ...}, "passed": N, "seconds": S,
"status": EXIT or "timeout", "cannot_run": null or why, "details": {N: what
the tester printed for a test it did not pass}}}}``. ``treegrade import mit6034`` names its
tests ``NN-function`` after these numbers, so a treegrade report compares
one to one.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import warnings

TESTS = 44
TIME_LIMIT = 300  # seconds per file: MIT's tester takes 3-20 s on a correct one
_LINE = re.compile(r"^Test (\d+)/(\d+): (Correct|Incorrect|Error)\.")
_NOT_IMPLEMENTED = re.compile(r"^(\d+): \(.*not yet implemented")
_STUDENT_LINE = re.compile(r'File ".*lab[23]\.py", line (\d+)')
_MISSING_MODULE = re.compile(r"ModuleNotFoundError: No module named '([\w.]+)'")
_LAB_MODULES = ("game_api", "boards", "toytree", "lab2", "lab3", "tests", "tester")
_DETAIL_CHARS = 600  # enough for MIT's "Got:" and "Expected:" lines


def verdicts(output):
    """Test number to verdict, from the tester's output."""
    found = {}
    for line in output.splitlines():
        match = _LINE.match(line)
        if match:
            found[int(match.group(1))] = match.group(3).lower()
            continue
        match = _NOT_IMPLEMENTED.match(line)
        if match:
            found[int(match.group(1))] = "not-implemented"
    return dict((str(number), found.get(number, "missing")) for number in range(1, TESTS + 1))


def details(output):
    """Test number to what the tester printed under a test it did not pass."""
    found, number, lines = {}, None, []
    for line in output.splitlines() + ["Test 0/0: Correct."]:
        match = _LINE.match(line)
        if match:
            if number is not None and lines:
                found[str(number)] = "\n".join(lines).strip()[:_DETAIL_CHARS]
            number = int(match.group(1)) if match.group(3) != "Correct" else None
            lines = [line] if number is not None else []
        elif number is not None:
            lines.append(line)
    return found


def cannot_run(path, output):
    """Why MIT's tester could not run the file at all, or None.

    ``{"kind": "syntax", "environment" or "import", "message": ...}``. A
    file Python 3 cannot compile (a Python 2 ``print`` statement) stops the
    tester before its first test: an accident of the tester's Python
    version, not a verdict on the student's searches; so is a package the
    file imports that this machine lacks (``numpy``). A file that raises on
    import for a reason of its own (a name the tester imports is missing)
    fails every test.
    """
    try:
        with open(path, "rb") as source, warnings.catch_warnings():
            warnings.simplefilter("ignore")  # compiled only, never run here
            compile(source.read(), path, "exec")
    except SyntaxError as error:
        why = "MIT's tester cannot run this file under Python 3: %s at line %s" % (type(error).__name__, error.lineno)
        return {"kind": "syntax", "message": why}
    if _LINE.search(output) or "Traceback" not in output:
        return None
    lines = [line for line in output.splitlines() if line.strip()]
    where = _STUDENT_LINE.findall(output)
    at = " at line %s" % where[-1] if where else ""
    error = lines[-1].strip()
    missing = _MISSING_MODULE.match(error)
    if missing and missing.group(1) not in _LAB_MODULES:
        # A package the student used and this machine lacks: not a verdict either.
        why = "MIT's tester cannot import this file here: %s%s (not installed on this machine)" % (error, at)
        return {"kind": "environment", "message": why}
    why = "MIT's tester cannot import this file under Python 3: %s%s" % (error, at)
    return {"kind": "import", "message": why}


def run_one(lab, path, time_limit=TIME_LIMIT):
    with tempfile.TemporaryDirectory(prefix="mit6034-") as scratch:
        copy = os.path.join(scratch, "lab")
        shutil.copytree(lab, copy)
        for root, _, files in os.walk(copy):
            for name in files:
                os.chmod(os.path.join(root, name), 0o644)
        shutil.copyfile(path, os.path.join(copy, "lab2.py"))
        start = time.monotonic()
        try:
            done = subprocess.run(
                [sys.executable, "-W", "ignore", "tester.py"],
                cwd=copy,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                timeout=time_limit,
            )
            output, status = done.stdout.decode("utf-8", "replace"), done.returncode
        except subprocess.TimeoutExpired as expired:
            output, status = (expired.stdout or b"").decode("utf-8", "replace"), "timeout"
        seconds = round(time.monotonic() - start, 3)
    found = verdicts(output)
    passed = sum(1 for verdict in found.values() if verdict == "correct")
    return {
        "verdicts": found,
        "passed": passed,
        "seconds": seconds,
        "status": status,
        "cannot_run": cannot_run(path, output),
        "details": details(output),
    }


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    lab, files = argv[1], argv[2:]
    if not os.path.isfile(os.path.join(lab, "tester.py")):
        sys.stderr.write("%s has no tester.py: give the lab's folder first\n" % lab)
        return 2
    results = {}
    for path in files:
        results[path] = run_one(lab, path)
        sys.stderr.write("%s: %d of %d correct in %.1f s\n" % (path, results[path]["passed"], TESTS, results[path]["seconds"]))
    version = "%d.%d.%d" % sys.version_info[:3]
    json.dump({"lab": lab, "python": version, "files": results}, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
