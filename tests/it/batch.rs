//! `treegrade batch` and `treegrade merge` on a mixed class: a correct
//! student, a broken one, an empty starter, an empty folder, a program that
//! dies at once and one that hangs.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

use assert_cmd::Command;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A small assignment over three curated trees, so the class grades fast.
fn small_assignment(dir: &Path) -> PathBuf {
    let assignment = dir.join("assignment");
    std::fs::create_dir_all(&assignment).unwrap();
    std::fs::write(
        assignment.join("assignment.yaml"),
        format!(
            "title: Small\ntime_limit: 2\ntests_dir: {}\nlanguages:\n  - {{name: python, detect: [search.py], run: [python3, -u, search.py], env: {{PYTHONPATH: \"{{kits}}/python\"}}}}\nquestions:\n  - {{id: q1, points: 2, algorithm: minimax, tests: [aima-fig5-2.yaml, three-bin-minimax.yaml]}}\n  - {{id: q2, points: 2, algorithm: alphabeta, prune_on_equal: false, tests: [aima-fig5-2.yaml, alphabeta-deep-cutoff.yaml]}}\n",
            repo().join("test-cases").display()
        ),
    )
    .unwrap();
    assignment
}

fn write_class(dir: &Path) -> PathBuf {
    let class = dir.join("class");
    let reference = std::fs::read_to_string(repo().join("reference/python/search.py")).unwrap();
    let student = |name: &str, source: &str| {
        std::fs::create_dir_all(class.join(name)).unwrap();
        std::fs::write(class.join(name).join("search.py"), source).unwrap();
    };
    student("alice", &reference);
    let no_pruning = reference.replace("return high >= low if game.prune_on_equal else high > low", "return False");
    assert_ne!(no_pruning, reference, "the mutation applies");
    student("bob", &no_pruning);
    student(
        "carol",
        &std::fs::read_to_string(repo().join("assignments/adversarial-search/starter/python/search.py")).unwrap(),
    );
    std::fs::create_dir_all(class.join("dave")).unwrap();
    student("erin", "import sys\nsys.exit(4)\n");
    student("frank", &reference.replace("def minimax(game", "import time\ntime.sleep(60)\ndef minimax(game"));
    class
}

fn batch(assignment: &Path, class: &Path, out: &Path, extra: &[&str]) -> Output {
    Command::cargo_bin("treegrade")
        .unwrap()
        .env("CI", "true")
        .arg("batch")
        .arg(class)
        .arg("--assignment")
        .arg(assignment)
        .arg("--out")
        .arg(out)
        .args(["--jobs", "2"])
        .args(extra)
        .timeout(Duration::from_secs(300))
        .output()
        .unwrap()
}

fn gradebook(out: &Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(out.join("gradebook.csv")).unwrap();
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let header: Vec<String> = reader.headers().unwrap().iter().map(str::to_string).collect();
    assert_eq!(header, ["student", "total", "max", "q1", "q2", "status", "wall_time_s", "message"]);
    reader.records().map(|r| r.unwrap().iter().map(str::to_string).collect()).collect()
}

/// student, total, q1, q2, status
fn essentials(rows: &[Vec<String>]) -> Vec<[String; 5]> {
    rows.iter().map(|r| [r[0].clone(), r[1].clone(), r[3].clone(), r[4].clone(), r[5].clone()]).collect()
}

#[test]
fn a_mixed_class_gets_the_right_gradebook_and_reruns_are_instant() {
    let scratch = tempfile::tempdir().unwrap();
    let assignment = small_assignment(scratch.path());
    let class = write_class(scratch.path());
    let out = scratch.path().join("out");
    let output = batch(&assignment, &class, &out, &[]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let rows = gradebook(&out);
    let expected = [
        ["alice", "4", "2", "2", "ok"],
        ["bob", "2", "2", "0", "ok"],
        ["carol", "0", "0", "0", "ok"],
        ["dave", "0", "0", "0", "not-gradable"],
        ["erin", "0", "0", "0", "crashed"],
        ["frank", "0", "0", "0", "timed-out"],
    ];
    let expected: Vec<[String; 5]> = expected.iter().map(|row| row.map(str::to_string)).collect();
    assert_eq!(essentials(&rows), expected);
    assert!(rows[3][7].contains("found no submission in dave"), "{:?}", rows[3]);
    for file in
        ["report.txt", "report.json", "junit.xml", "results.json", "report.md", "report.html", "prairielearn.json"]
    {
        assert!(out.join("reports/bob").join(file).is_file(), "{file}");
    }
    let page = std::fs::read_to_string(out.join("reports/bob/report.html")).unwrap();
    assert!(page.contains("<svg"), "the HTML report draws bob's failed searches");
    let bob = std::fs::read_to_string(out.join("reports/bob/report.txt")).unwrap();
    assert!(bob.contains("likely cause: your alpha-beta never prunes"), "{bob}");
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(summary.contains("6 submissions") && summary.contains("| timed-out | 1 |"), "{summary}");
    let progress = String::from_utf8_lossy(&output.stderr);
    assert!(progress.contains("[6/6]"), "plain progress lines under CI: {progress}");

    let started = Instant::now();
    let again = batch(&assignment, &class, &out, &[]);
    assert!(started.elapsed() < Duration::from_secs(5), "an unchanged batch is not regraded");
    assert_eq!(String::from_utf8_lossy(&again.stderr).matches("unchanged").count(), 6);
    assert_eq!(essentials(&gradebook(&out)), expected);

    std::fs::write(class.join("carol/search.py"), std::fs::read(repo().join("reference/python/search.py")).unwrap())
        .unwrap();
    let changed = batch(&assignment, &class, &out, &[]);
    let log = String::from_utf8_lossy(&changed.stderr);
    assert!(log.contains("graded carol: 4/4") && log.matches("unchanged").count() == 5, "{log}");
    let forced = batch(&assignment, &class, &out, &["--force"]);
    assert_eq!(String::from_utf8_lossy(&forced.stderr).matches("unchanged").count(), 0);
}

#[test]
fn shards_merge_into_the_full_gradebook() {
    let scratch = tempfile::tempdir().unwrap();
    let assignment = small_assignment(scratch.path());
    let class = write_class(scratch.path());
    std::fs::remove_dir_all(class.join("frank")).unwrap();
    let full = scratch.path().join("full");
    batch(&assignment, &class, &full, &[]);
    let shards: Vec<PathBuf> = (1..=3).map(|k| scratch.path().join(format!("shard-{k}"))).collect();
    for (k, shard) in shards.iter().enumerate() {
        batch(&assignment, &class, shard, &["--shard", &format!("{}/3", k + 1)]);
    }
    let sizes: Vec<usize> = shards.iter().map(|s| gradebook(s).len()).collect();
    assert_eq!(sizes.iter().sum::<usize>(), 5, "every student in exactly one shard: {sizes:?}");
    let merged = scratch.path().join("merged");
    let output = Command::cargo_bin("treegrade")
        .unwrap()
        .arg("merge")
        .args(&shards)
        .arg("--out")
        .arg(&merged)
        .arg("--assignment")
        .arg(&assignment)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(essentials(&gradebook(&merged)), essentials(&gradebook(&full)));
    assert!(merged.join("reports/alice/report.json").is_file());
    // A shard missing, given twice, or a full output among shards: nothing is merged.
    let refused = scratch.path().join("refused");
    let mut messages = String::new();
    for (label, outputs) in [
        ("merge shard-1 shard-1", vec![&shards[0], &shards[0]]),
        ("merge shard-1 shard-3", vec![&shards[0], &shards[2]]),
        ("merge shard-1 shard-2 shard-3 full", vec![&shards[0], &shards[1], &shards[2], &full]),
    ] {
        let output = Command::cargo_bin("treegrade")
            .unwrap()
            .current_dir(scratch.path())
            .arg("merge")
            .args(outputs.iter().map(|path| path.file_name().unwrap()))
            .arg("--out")
            .arg(&refused)
            .arg("--assignment")
            .arg(&assignment)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{label}");
        messages.push_str(&format!("$ {label}\n{}", String::from_utf8_lossy(&output.stderr)));
        assert!(!refused.join("gradebook.csv").exists(), "{label}");
    }
    insta::assert_snapshot!("merge_refuses_incomplete_shards", messages);
}

#[test]
fn a_killed_batch_keeps_its_finished_rows() {
    let scratch = tempfile::tempdir().unwrap();
    let assignment = small_assignment(scratch.path());
    let class = write_class(scratch.path());
    let out = scratch.path().join("out");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("treegrade"))
        .env("CI", "true")
        .arg("batch")
        .arg(&class)
        .arg("--assignment")
        .arg(&assignment)
        .arg("--out")
        .arg(&out)
        .args(["--jobs", "1"])
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // frank hangs for 2 s per test: kill the run once some rows are written.
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        let rows = std::fs::read_to_string(out.join("gradebook.csv")).map(|t| t.lines().count()).unwrap_or(0);
        if rows >= 3 {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let rows = gradebook(&out);
    assert!(rows.len() >= 2, "finished rows survive: {rows:?}");
    assert_eq!(rows[0][0], "alice");
    assert_eq!(rows[0][1], "4");
    let resumed = batch(&assignment, &class, &out, &[]);
    let log = String::from_utf8_lossy(&resumed.stderr);
    assert!(log.matches("unchanged").count() >= rows.len(), "finished students are not regraded: {log}");
    assert_eq!(gradebook(&out).len(), 6);
}

/// The reference, but each search hangs for 100 s once started (after the
/// handshake: a program that never starts is not started again anyway).
fn hanging_in_every_search(reference: &str) -> String {
    let hanging = reference.replace(
        "def at_depth_limit(game, ply):\n",
        "def at_depth_limit(game, ply):\n    import time; time.sleep(100)\n",
    );
    assert_ne!(hanging, reference, "the mutation applies");
    hanging
}

/// SIGTERM (as Ctrl-C) stops a batch at once, even while a student's
/// program hangs in a test with a long limit: the program is ended, the
/// finished rows kept, the hanging student left ungraded, and one message
/// says so and how to go on (exit 130). A rerun grades only what is left.
#[cfg(unix)]
#[test]
fn an_interrupted_batch_stops_at_once_and_says_how_to_go_on() {
    let scratch = tempfile::tempdir().unwrap();
    let assignment = small_assignment(scratch.path());
    let class = scratch.path().join("class");
    let reference = std::fs::read_to_string(repo().join("reference/python/search.py")).unwrap();
    for (name, source) in [("alice", reference.clone()), ("zed", hanging_in_every_search(&reference))] {
        std::fs::create_dir_all(class.join(name)).unwrap();
        std::fs::write(class.join(name).join("search.py"), source).unwrap();
    }
    let out = scratch.path().join("out");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("treegrade"))
        .env("CI", "true")
        .args(["batch".as_ref(), class.as_os_str(), "--assignment".as_ref(), assignment.as_os_str()])
        .args([
            "--out".as_ref(),
            out.as_os_str(),
            "--jobs".as_ref(),
            "1".as_ref(),
            "--timeout".as_ref(),
            "100".as_ref(),
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // alice is graded first; then zed's program hangs for its 100 s.
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline && !out.join("results/alice.json").is_file() {
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(1500));
    let pid = rustix::process::Pid::from_raw(child.id() as i32).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::TERM).unwrap();
    let signalled = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if signalled.elapsed() > Duration::from_secs(20) {
            child.kill().unwrap();
            panic!("the batch was still running 20 s after SIGTERM");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let stopped_in = signalled.elapsed();
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stopped_in < Duration::from_secs(5), "stopped {stopped_in:?} after SIGTERM: {stderr}");
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(output.stdout.is_empty(), "no closing line on stdout: {}", String::from_utf8_lossy(&output.stdout));
    assert_eq!(stderr.matches("interrupted").count(), 1, "one message: {stderr}");
    assert!(!stderr.contains("error:") && !stderr.contains("graded 2 of 2"), "{stderr}");
    let out_name = out.display().to_string();
    let message = stderr.lines().find(|line| line.starts_with("interrupted:")).unwrap().replace(&out_name, "OUT");
    insta::assert_snapshot!("batch_interrupted_message", message);
    let rows = gradebook(&out);
    assert_eq!(rows.iter().map(|row| row[0].as_str()).collect::<Vec<_>>(), ["alice"], "{rows:?}");
    assert!(!out.join("results/zed.json").exists(), "zed's cut-short grading is not a grade");
    // Resumed (with the short limit): alice is kept, zed graded.
    let resumed = batch(&assignment, &class, &out, &["--timeout", "100", "--submission-timeout", "3"]);
    let log = String::from_utf8_lossy(&resumed.stderr);
    assert_eq!(resumed.status.code(), Some(0), "{log}");
    assert_eq!(gradebook(&out).len(), 2, "{log}");
}

/// A hanging student costs the batch at most its --submission-timeout
/// (plus the test then running): the tests left are not run, and the
/// report names each and says why.
#[test]
fn a_hanging_submission_is_stopped_at_its_total_time_limit() {
    let scratch = tempfile::tempdir().unwrap();
    let assignment = small_assignment(scratch.path());
    let class = scratch.path().join("class");
    let reference = std::fs::read_to_string(repo().join("reference/python/search.py")).unwrap();
    let hanging = hanging_in_every_search(&reference);
    std::fs::create_dir_all(class.join("frank")).unwrap();
    std::fs::write(class.join("frank/search.py"), hanging).unwrap();
    let out = scratch.path().join("out");
    let started = Instant::now();
    let output = batch(&assignment, &class, &out, &["--timeout", "2", "--submission-timeout", "3"]);
    let took = started.elapsed();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    // Two tests of 2 s each pass the 3 s; without the limit, four tests take 8 s.
    assert!(took < Duration::from_secs(7), "took {took:?}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("reports/frank/report.json")).unwrap()).unwrap();
    let tests: Vec<&serde_json::Value> =
        report["questions"].as_array().unwrap().iter().flat_map(|q| q["tests"].as_array().unwrap()).collect();
    let not_run: Vec<&str> = tests
        .iter()
        .filter(|test| test["reason"].as_str().is_some_and(|reason| reason.starts_with("not run: ")))
        .map(|test| test["name"].as_str().unwrap())
        .collect();
    assert_eq!(not_run, ["q2/aima-fig5-2", "q2/alphabeta-deep-cutoff"], "{report}");
    let text = std::fs::read_to_string(out.join("reports/frank/report.txt")).unwrap();
    assert!(
        text.contains("not run: the tests before this one used up the 3 s that grading one submission may take in all"),
        "{text}"
    );
}

/// `--timeout`, `--submission-timeout` and `--memory` take a sane range and
/// say it when refused.
#[test]
fn batch_limits_out_of_range_are_refused_with_the_range() {
    let scratch = tempfile::tempdir().unwrap();
    let assignment = small_assignment(scratch.path());
    let class = honest_class(scratch.path(), &["alice".as_ref()]);
    let out = scratch.path().join("out");
    let mut messages = String::new();
    for flags in [
        ["--memory", "0"],
        ["--memory", "100000"],
        ["--timeout", "0"],
        ["--timeout", "1e9"],
        ["--timeout", "-1"],
        ["--submission-timeout", "0"],
    ] {
        let output = batch(&assignment, &class, &out, &flags);
        assert_eq!(output.status.code(), Some(2), "{flags:?}");
        messages.push_str(&format!("$ batch {}\n{}", flags.join(" "), String::from_utf8_lossy(&output.stderr)));
    }
    assert!(!out.exists(), "nothing graded");
    insta::assert_snapshot!("batch_limits_refused", messages);
}

#[test]
fn a_tight_memory_limit_still_grades_a_correct_submission() {
    // The kits ask for a large stack; under a small data limit they must fall back.
    let scratch = tempfile::tempdir().unwrap();
    let assignment = small_assignment(scratch.path());
    let class = scratch.path().join("class");
    std::fs::create_dir_all(class.join("alice")).unwrap();
    std::fs::copy(repo().join("reference/python/search.py"), class.join("alice/search.py")).unwrap();
    let out = scratch.path().join("out");
    let output = batch(&assignment, &class, &out, &["--memory", "200"]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let rows = gradebook(&out);
    assert_eq!((rows[0][0].as_str(), rows[0][1].as_str(), rows[0][5].as_str()), ("alice", "4", "ok"), "{rows:?}");
}

/// A class of three copies of the reference.
fn honest_class(dir: &Path, names: &[&std::ffi::OsStr]) -> PathBuf {
    let class = dir.join("class");
    let reference = std::fs::read_to_string(repo().join("reference/python/search.py")).unwrap();
    for name in names {
        std::fs::create_dir_all(class.join(name)).unwrap();
        std::fs::write(class.join(name).join("search.py"), &reference).unwrap();
    }
    class
}

#[test]
fn a_second_batch_into_the_same_folder_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let assignment = small_assignment(dir.path());
    let class = honest_class(dir.path(), &["alice".as_ref()]);
    let out = dir.path().join("out");
    std::fs::create_dir_all(&out).unwrap();
    // A batch in progress holds the folder's lock.
    let held = std::fs::File::create(out.join(".treegrade-batch.lock")).unwrap();
    held.lock().unwrap();
    let output = batch(&assignment, &class, &out, &[]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("another treegrade batch or tournament is writing into"), "{stderr}");
    drop(held);
    let output = batch(&assignment, &class, &out, &[]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    // What is handed to students names no folder of the instructor's; the full report is named as such.
    let student_report = std::fs::read_to_string(out.join("reports/alice/report.json")).unwrap();
    assert!(!student_report.contains(repo().join("test-cases").to_str().unwrap()), "{student_report}");
    assert!(out.join("instructor/alice/instructor-report.json").is_file());
    assert!(!out.join("reports/alice/instructor-report.json").exists());
}

#[cfg(unix)]
#[test]
fn folder_names_that_are_not_utf8_stay_separate_students() {
    use std::os::unix::ffi::OsStrExt as _;
    let dir = tempfile::tempdir().unwrap();
    let assignment = small_assignment(dir.path());
    let names = [std::ffi::OsStr::from_bytes(b"caf\xe9"), std::ffi::OsStr::from_bytes(b"caf\xe8")];
    let class = honest_class(dir.path(), &names);
    let out = dir.path().join("out");
    let output = batch(&assignment, &class, &out, &[]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let students: Vec<String> = gradebook(&out).iter().map(|row| row[0].clone()).collect();
    assert_eq!(students, ["caf\\xe8", "caf\\xe9"]);
}

#[cfg(unix)]
#[test]
fn every_skipped_entry_is_listed_with_its_reason() {
    let dir = tempfile::tempdir().unwrap();
    let assignment = small_assignment(dir.path());
    let class = honest_class(dir.path(), &["alice".as_ref()]);
    std::fs::write(class.join("notes.txt"), "not a student").unwrap();
    std::fs::create_dir_all(class.join(".git")).unwrap();
    std::os::unix::fs::symlink(class.join("alice"), class.join("mallory")).unwrap();
    let out = dir.path().join("out");
    let output = batch(&assignment, &class, &out, &[]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("skipped notes.txt: not a folder"), "{stderr}");
    assert!(stderr.contains("skipped .git: a hidden folder"), "{stderr}");
    assert!(stderr.contains("skipped mallory: a symbolic link, not followed"), "{stderr}");
    assert_eq!(gradebook(&out).len(), 1);
}

#[test]
fn an_unreadable_folder_costs_only_its_student() {
    let dir = tempfile::tempdir().unwrap();
    let assignment = small_assignment(dir.path());
    let class = honest_class(dir.path(), &["alice".as_ref(), "bob".as_ref(), "carol".as_ref()]);
    // A folder nested past PATH_MAX cannot be listed by its path, even by root.
    let name = "d".repeat(250);
    let script = format!(
        "import os\nfor _ in range(20):\n    os.mkdir('{name}'); os.chdir('{name}')\nopen('f', 'w').write('x')\n"
    );
    let made =
        std::process::Command::new("python3").args(["-c", &script]).current_dir(class.join("bob")).status().unwrap();
    assert!(made.success());
    let out = dir.path().join("out");
    let output = batch(&assignment, &class, &out, &[]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let rows = gradebook(&out);
    assert_eq!(rows.len(), 3, "{rows:?}");
    assert_eq!((rows[0][0].as_str(), rows[0][1].as_str()), ("alice", "4"));
    assert_eq!((rows[2][0].as_str(), rows[2][1].as_str()), ("carol", "4"));
    assert_eq!((rows[1][0].as_str(), rows[1][5].as_str()), ("bob", "not-gradable"));
    assert!(rows[1][7].contains("cannot list") && rows[1][7].contains("dddd"), "{:?}", rows[1]);
}

/// The folder an instructor hands back to each student, `reports/STUDENT/`,
/// carries nothing of a hidden test in any format: not its expected value,
/// action or visited order, not its node names. The full report is kept in
/// `instructor/STUDENT/`, and `summary.md` says which folder is safe.
#[test]
fn the_folder_handed_to_a_student_holds_nothing_of_the_hidden_tests() {
    let dir = tempfile::tempdir().unwrap();
    let assignment = dir.path().join("assignment");
    let hidden = dir.path().join("hidden");
    std::fs::create_dir_all(assignment.join("tests")).unwrap();
    std::fs::create_dir_all(&hidden).unwrap();
    std::fs::write(assignment.join("public.yaml"), "root: A\nnodes: {A: {max: [B, 2]}, B: {min: [1, 3]}}\n").unwrap();
    // Every name, action and value of the hidden tree is a word found nowhere else.
    std::fs::write(
        hidden.join("secret.yaml"),
        "root: Qzroot\nnodes:\n  Qzroot: {max: [{qzgo-left: Qzleft}, {qzgo-right: Qzright}]}\n  \
         Qzleft: {min: [Qzl1, Qzl2]}\n  Qzright: {min: [Qzr1, Qzr2]}\n  Qzl1: 4096.125\n  Qzl2: 8191.375\n  \
         Qzr1: 2047.625\n  Qzr2: 9999.875\n",
    )
    .unwrap();
    std::fs::write(
        assignment.join("assignment.yaml"),
        "title: Secrets\ntime_limit: 2\nlanguages:\n  - {name: python, detect: [search.py], run: [python3, -u, search.py], \
         env: {PYTHONPATH: \"{kits}/python\"}}\nquestions:\n  - {id: q1, points: 2, algorithm: minimax, \
         tests: [public.yaml], hidden_tests: [secret.yaml]}\n",
    )
    .unwrap();
    let class = dir.path().join("class");
    let reference = std::fs::read_to_string(repo().join("reference/python/search.py")).unwrap();
    for (name, source) in [
        ("alice", reference.clone()),
        // Searches children last to first: fails the hidden test's order and action.
        ("bob", reference.replace("in game.successors(node):", "in reversed(list(game.successors(node))):")),
        ("carol", "import sys\nprint('Qzroot? no idea', file=sys.stderr)\nsys.exit(3)\n".to_string()),
    ] {
        std::fs::create_dir_all(class.join(name)).unwrap();
        std::fs::write(class.join(name).join("search.py"), source).unwrap();
    }
    let out = dir.path().join("out");
    let output = Command::cargo_bin("treegrade")
        .unwrap()
        .env("CI", "true")
        .args(["batch".as_ref(), class.as_os_str(), "--assignment".as_ref(), assignment.as_os_str()])
        .args(["--hidden".as_ref(), hidden.as_os_str(), "--out".as_ref(), out.as_os_str()])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let secrets =
        ["Qzl1", "Qzr2", "Qzleft", "qzgo-left", "qzgo-right", "4096.125", "2047.625", "9999.875", "secret.yaml/"];
    let gradebook = std::fs::read_to_string(out.join("gradebook.csv")).unwrap();
    assert!(gradebook.lines().any(|row| row.starts_with("alice,2,")), "{gradebook}");
    assert!(gradebook.lines().any(|row| row.starts_with("bob,0,")), "bob fails the hidden test: {gradebook}");
    for student in ["alice", "bob", "carol"] {
        let handed_out = out.join("reports").join(student);
        let files: Vec<PathBuf> = std::fs::read_dir(&handed_out).unwrap().map(|e| e.unwrap().path()).collect();
        assert!(files.len() >= 2, "{student}: {files:?}");
        for file in &files {
            let text = String::from_utf8_lossy(&std::fs::read(file).unwrap()).into_owned();
            for secret in secrets {
                assert!(!text.contains(secret), "{} shows `{secret}` of the hidden test", file.display());
            }
        }
        assert!(!handed_out.join("instructor-report.json").exists(), "{student}");
    }
    let full = std::fs::read_to_string(out.join("instructor/bob/instructor-report.json")).unwrap();
    assert!(full.contains("qzgo-left") && full.contains("Qzl1"), "the instructor's report is whole: {full}");
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(summary.contains("Safe to hand out: `reports/STUDENT/`"), "{summary}");
    assert!(summary.contains("Instructor only: `instructor/STUDENT/`"), "{summary}");
}

/// The closing lines name real paths, however `--out` is spelled (a
/// trailing slash gave `grades//gradebook.csv`), and a rerun that graded
/// nothing tells no CPU share of the grader (it was 100%: of nothing).
#[test]
fn the_closing_lines_name_the_files_and_a_rerun_tells_no_cpu_share() {
    let dir = tempfile::tempdir().unwrap();
    let assignment = small_assignment(dir.path());
    let class = honest_class(dir.path(), &["alice".as_ref()]);
    let out = format!("{}/", dir.path().join("grades").display());
    let first = batch(&assignment, &class, Path::new(&out), &[]);
    assert_eq!(first.status.code(), Some(0), "{}", String::from_utf8_lossy(&first.stderr));
    let stdout = String::from_utf8_lossy(&first.stdout);
    assert!(stdout.contains(&format!("{out}gradebook.csv, {out}summary.md")), "{stdout}");
    assert!(!stdout.contains("//"), "{stdout}");
    assert!(String::from_utf8_lossy(&first.stderr).contains("CPU time: grader"), "a run that graded tells it");
    let again = batch(&assignment, &class, Path::new(&out), &[]);
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert!(stderr.contains("unchanged alice"), "{stderr}");
    assert!(!stderr.contains("CPU time"), "{stderr}");
}
