//! The hostile-submission suite: programs that loop, fork without end, hoard
//! memory, flood their output, read the hidden tests, open the network,
//! delete files, sleep forever, or fake their results. Each is graded in the
//! `auto` sandbox on five trees (the hidden one last); each must fail its own
//! test with a clear status while the others are graded, the grader must come
//! back promptly, and nothing outside the scratch folder may change.
//!
//! The programs are in `tests/fixtures/hostile/`, copied into a fresh folder
//! per test, with the assignment's hidden tests, another student's folder and
//! a canary beside it, all readable and writable by everyone: only the
//! sandbox stands between them and the student.
//!
//! Linux only: the layers under test are the Linux kernel's.
#![cfg(target_os = "linux")]

use std::collections::BTreeMap;
use std::io::ErrorKind;
use std::net::TcpListener;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::{Duration, Instant};

use treegrade::engine::Algorithm;
use treegrade::grader::plan::{Assignment, Question, QuestionKind, Scoring, Searches, TestFile, TestTree, plan_tests};
use treegrade::grader::result::{Check, GradeReport, TestResult, TestStatus};
use treegrade::grader::runner::processes_of_user;
use treegrade::grader::sandbox::{Layers, Sandbox, SandboxMode};
use treegrade::grader::session::FailureKind;
use treegrade::grader::{Target, grade_sandboxed};
use treegrade::load::load_tree_file;
use treegrade::report::{Format, render};

/// The public trees, in order; the hostile programs misbehave on the second.
const TREES: [&str; 4] = ["aima-fig5-2.yaml", "three-bin-minimax.yaml", "tie-at-root-first-wins.yaml", "min-root.yaml"];

/// Per-test wall-clock limit: short, so that hangs cost little, and long
/// enough for an interpreter to start on a loaded 2-core machine.
const TIME_LIMIT: Duration = Duration::from_secs(4);

/// In the hidden test file and in another student's folder: must never reach a report.
const HIDDEN_SECRET: &str = "HIDDEN-TEST-SECRET-7f3a9c";
const OTHER_STUDENT_SECRET: &str = "OTHER-STUDENT-SECRET-51d2e8";

/// The fork bomb and the output flood take the machine for themselves; the others share it.
static MACHINE: RwLock<()> = RwLock::new(());

fn shared() -> RwLockReadGuard<'static, ()> {
    MACHINE.read().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn exclusive() -> RwLockWriteGuard<'static, ()> {
    MACHINE.write().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A layer this machine lacks: a failure under CI, where the machine has
/// every layer; elsewhere the test says what it did not check.
fn unavailable(what: &str) {
    assert!(std::env::var("CI").as_deref() != Ok("true"), "CI machines have {what}");
    eprintln!("note: {what} is missing here; this check is skipped");
}

fn sandbox(mode: SandboxMode) -> Sandbox {
    Sandbox::new(mode, Some(PathBuf::from(env!("CARGO_BIN_EXE_treegrade"))))
}

/// What this machine allows (probed once per process).
fn layers() -> Layers {
    sandbox(SandboxMode::Auto).probe()
}

/// A course folder: the assignment with its hidden test, two submissions
/// (the hostile one and another student's), a canary and a folder outside.
struct Workspace {
    root: tempfile::TempDir,
    assignment: PathBuf,
    hidden: PathBuf,
    submission: PathBuf,
    other_student: PathBuf,
    canary: PathBuf,
    outside: PathBuf,
}

fn workspace() -> Workspace {
    let root = tempfile::tempdir().unwrap();
    let path = root.path();
    let assignment = path.join("assignment");
    let hidden = assignment.join("hidden");
    let submissions = path.join("submissions");
    let submission = submissions.join("hostile");
    let other_student = submissions.join("other-student");
    let outside = path.join("outside");
    for dir in [&hidden, &submission, &other_student, &outside] {
        std::fs::create_dir_all(dir).unwrap();
    }
    let aima = std::fs::read_to_string(repo().join("test-cases/aima-fig5-2.yaml")).unwrap();
    std::fs::write(hidden.join("secret-tree.yaml"), format!("# {HIDDEN_SECRET}\n{aima}")).unwrap();
    std::fs::write(other_student.join("search.py"), format!("# {OTHER_STUDENT_SECRET}\n")).unwrap();
    for entry in std::fs::read_dir(repo().join("tests/fixtures/hostile")).unwrap() {
        let entry = entry.unwrap();
        if entry.path().extension().is_some_and(|ext| ext == "py") {
            std::fs::copy(entry.path(), submission.join(entry.file_name())).unwrap();
        }
    }
    let canary = path.join("canary.txt");
    std::fs::write(&canary, "still here").unwrap();
    std::fs::write(outside.join("keep.txt"), "keep me").unwrap();
    open_to_everyone(path);
    Workspace { root, assignment, hidden, submission, other_student, canary, outside }
}

/// Everyone may read and write everything: only the sandbox protects these files.
fn open_to_everyone(path: &Path) {
    let mode = if path.is_dir() { 0o777 } else { 0o666 };
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    if path.is_dir() {
        for entry in std::fs::read_dir(path).unwrap() {
            open_to_everyone(&entry.unwrap().path());
        }
    }
}

/// What a file or folder is: its contents (files), mode, modification time
/// and extended attributes.
#[derive(Debug, PartialEq, Eq)]
struct Entry {
    contents: Option<Vec<u8>>,
    mode: u32,
    modified: std::time::SystemTime,
    xattrs: Vec<u8>,
}

/// Every file and folder under `dir`, as [`Entry`].
fn contents(dir: &Path) -> BTreeMap<PathBuf, Entry> {
    let mut found = BTreeMap::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(folder) = pending.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            let contents = if meta.is_dir() {
                pending.push(path.clone());
                None
            } else {
                Some(std::fs::read(&path).unwrap())
            };
            let entry = Entry {
                contents,
                mode: meta.permissions().mode(),
                modified: meta.modified().unwrap(),
                xattrs: xattrs(&path),
            };
            found.insert(path, entry);
        }
    }
    found
}

/// The names of a path's extended attributes, as the kernel lists them.
fn xattrs(path: &Path) -> Vec<u8> {
    let name = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    let mut buffer = vec![0u8; 4096];
    // SAFETY: `name` is NUL-terminated and `buffer` is writable for its length.
    let length = unsafe { libc::llistxattr(name.as_ptr(), buffer.as_mut_ptr().cast(), buffer.len()) };
    buffer.truncate(length.max(0) as usize);
    buffer
}

fn assignment(ws: &Workspace) -> Assignment {
    let cases = repo().join("test-cases");
    let mut tests: Vec<TestFile> =
        TREES.iter().map(|name| TestFile { path: cases.join(name), hidden: false }).collect();
    tests.push(TestFile { path: ws.hidden.join("secret-tree.yaml"), hidden: true });
    Assignment {
        name: "hostile".into(),
        title: "Hostile submissions".into(),
        dir: ws.assignment.clone(),
        time_limit: TIME_LIMIT,
        languages: Vec::new(),
        verdict: Default::default(),
        questions: vec![Question {
            id: "q1".into(),
            title: "Minimax".into(),
            points: treegrade::points::Points::whole(5),
            scoring: Scoring::PerTest,
            kind: QuestionKind::Search(Searches {
                algorithm: Algorithm::Minimax,
                depth: None,
                prune_on_equal: None,
                overrides: Default::default(),
                child_order: Default::default(),
                tests,
                generate: None,
                pacman: Vec::new(),
            }),
        }],
    }
}

/// A graded hostile program.
struct Graded {
    report: GradeReport,
    elapsed: Duration,
    text: String,
    json: String,
}

impl Graded {
    fn tests(&self) -> Vec<&TestResult> {
        self.report.tests().collect()
    }

    fn statuses(&self) -> Vec<TestStatus> {
        self.report.tests().map(|test| test.header.status).collect()
    }

    /// The second test, the one the hostile programs attack on.
    fn attacked(&self) -> &TestResult {
        self.tests()[1]
    }

    fn all_stderr(&self) -> String {
        self.report.tests().map(|test| test.header.stderr.as_str()).collect::<Vec<_>>().join("\n")
    }

    /// The others were graded as usual.
    fn assert_others_pass(&self, attacked: &[usize]) {
        for (index, test) in self.tests().iter().enumerate() {
            if !attacked.contains(&index) {
                assert_eq!(test.header.status, TestStatus::Passed, "{}: {}", test.header.name, self.text);
            }
        }
    }

    /// The dedicated uid the program printed on stderr (`... uid=N`).
    fn printed_uid(&self) -> Option<u32> {
        let stderr = self.all_stderr();
        let at = stderr.find("uid=")? + 4;
        stderr[at..].split(|c: char| !c.is_ascii_digit()).next()?.parse().ok()
    }
}

fn grade_hostile(ws: &Workspace, script: &str, args: &[String]) -> Graded {
    let assignment = assignment(ws);
    let tests =
        plan_tests(&assignment, &[0], |test| TestTree::Written(Arc::new(load_tree_file(&test.path).unwrap().tree)))
            .unwrap();
    let kits = tempfile::tempdir().unwrap();
    let mut command = vec!["python3".to_string(), "-u".to_string(), script.to_string()];
    command.extend_from_slice(args);
    let target = Target { dir: ws.submission.clone(), command: Some(command), name: None };
    let started = Instant::now();
    let report = grade_sandboxed(&assignment, &[0], &tests, &target, kits.path(), &sandbox(SandboxMode::Auto))
        .expect("a command is always gradable");
    let elapsed = started.elapsed();
    let text = render(&report, Format::Text, false);
    let json = render(&report, Format::Json, false);
    // Shown with --nocapture, or when the test fails.
    eprintln!("{script} graded in {elapsed:?}:\n{text}");
    Graded { report, elapsed, text, json }
}

/// No slower than its hangs: one time limit per hung test, and a few seconds.
fn assert_prompt(graded: &Graded, hung_tests: u32) {
    let bound = TIME_LIMIT * hung_tests + Duration::from_secs(6);
    assert!(graded.elapsed < bound, "took {:?} (bound {bound:?})\n{}", graded.elapsed, graded.text);
}

fn reason(test: &TestResult) -> &str {
    test.header.reason.as_deref().unwrap_or("")
}

/// Nothing of the dedicated user is left (root graders), and the machine still starts processes.
fn assert_nothing_left(graded: &Graded) {
    match graded.printed_uid() {
        Some(uid) if graded.report.sandbox.separate_user => {
            assert_eq!(processes_of_user(uid), 0, "processes of uid {uid} are left behind");
        }
        _ => eprintln!("note: no separate user on this machine; leftover processes not counted by uid"),
    }
    assert!(std::process::Command::new("true").status().unwrap().success());
}

#[test]
fn the_probe_says_which_layers_this_machine_allows() {
    let layers = layers();
    eprintln!("sandbox layers here: {}\n{layers:#?}", layers.summary());
    assert!(layers.process_group && layers.time_limits && layers.output_caps && layers.empty_environment);
    assert!(layers.resource_limits, "the trampoline runs: {:?}", layers.notes);
    let report = {
        let _machine = shared();
        let ws = workspace();
        grade_hostile(&ws, "fake_results.py", &[]).report
    };
    assert!(report.sandbox.subreaper);
    assert_eq!(report.sandbox.mode, SandboxMode::Auto);
    assert_eq!(report.sandbox.missing(), layers.missing(), "an open folder keeps every layer the machine allows");
}

#[test]
fn an_infinite_loop_times_out_and_the_rest_is_graded() {
    let _machine = shared();
    let ws = workspace();
    let graded = grade_hostile(&ws, "infinite_loop.py", &[]);
    assert_eq!(graded.attacked().header.status, TestStatus::Error(FailureKind::TimedOut), "{}", graded.text);
    assert!(reason(graded.attacked()).contains("did not answer within 4 s"), "{}", graded.text);
    graded.assert_others_pass(&[1]);
    assert_prompt(&graded, 1);
}

#[test]
fn a_fork_bomb_is_bounded_and_killed_to_the_last_process() {
    let _machine = exclusive();
    let ws = workspace();
    let graded = grade_hostile(&ws, "fork_bomb.py", &[]);
    assert!(
        matches!(graded.attacked().header.status, TestStatus::Error(FailureKind::TimedOut | FailureKind::Crashed)),
        "{}",
        graded.text
    );
    graded.assert_others_pass(&[1]);
    assert_prompt(&graded, 1);
    assert_nothing_left(&graded);
}

#[test]
fn a_memory_hog_fails_without_taking_the_machine_down() {
    let _machine = shared();
    let ws = workspace();
    let graded = grade_hostile(&ws, "memory_hog.py", &[]);
    let test = graded.attacked();
    assert_eq!(test.header.status, TestStatus::Error(FailureKind::Crashed), "{}", graded.text);
    if graded.report.sandbox.resource_limits {
        assert!(reason(test).contains("exited with status 1 during this test"), "{}", graded.text);
        assert!(test.header.stderr.contains("MemoryError"), "{}", graded.text);
    }
    graded.assert_others_pass(&[1]);
    assert_prompt(&graded, 0);
}

#[test]
fn a_program_filling_the_disk_is_stopped_at_the_file_size_limit() {
    let _machine = shared();
    let ws = workspace();
    let graded = grade_hostile(&ws, "disk_filler.py", &[]);
    let test = graded.attacked();
    assert_ne!(test.header.status, TestStatus::Passed, "{}", graded.text);
    if graded.report.sandbox.resource_limits {
        // Python ignores SIGXFSZ, so the write fails with "File too large" at the limit.
        let written: u64 = test
            .header
            .stderr
            .lines()
            .find_map(|line| line.strip_prefix("filler wrote ")?.strip_suffix(" MiB")?.parse().ok())
            .unwrap_or_else(|| panic!("the filler reports how far it got:\n{}", graded.text));
        assert!(written <= 64, "wrote {written} MiB past a 64 MiB file-size limit");
    }
    graded.assert_others_pass(&[1]);
    assert_prompt(&graded, 0);
}

#[test]
fn gigabytes_of_output_are_cut_short_with_bounded_memory() {
    let _machine = exclusive();
    let ws = workspace();
    let peak_before = peak_memory_kib();
    let graded = grade_hostile(&ws, "output_flood.py", &[]);
    let grown_mib = peak_memory_kib().saturating_sub(peak_before) / 1024;
    let tests = graded.tests();
    assert_eq!(tests[1].header.status, TestStatus::Error(FailureKind::Crashed), "{}", graded.text);
    assert!(reason(tests[1]).contains("more than 16 MiB to stderr (the limit)"), "{}", graded.text);
    assert!(tests[1].header.stderr.len() < 128 * 1024, "the kept stderr is capped");
    assert_eq!(tests[2].header.status, TestStatus::Error(FailureKind::ProtocolError), "{}", graded.text);
    assert!(reason(tests[2]).contains("longer than 1 MiB"), "{}", graded.text);
    graded.assert_others_pass(&[1, 2]);
    assert_prompt(&graded, 0);
    assert!(grown_mib < 128, "the grader's peak memory grew by {grown_mib} MiB");
}

#[test]
fn the_hidden_tests_and_other_students_stay_unreadable() {
    let _machine = shared();
    let ws = workspace();
    let folders = [ws.hidden.display().to_string(), ws.other_student.display().to_string()];
    let graded = grade_hostile(&ws, "read_hidden.py", &folders);
    let sandbox = &graded.report.sandbox;
    if !sandbox.filesystem_isolation && !sandbox.filesystem_view {
        unavailable("filesystem isolation (a filesystem view or landlock)");
        return;
    }
    let test = graded.attacked();
    assert_eq!(test.header.status, TestStatus::Error(FailureKind::Crashed), "{}", graded.text);
    // In a filesystem view the folders do not exist; under landlock alone they are refused.
    let refusal = if sandbox.filesystem_view { "FileNotFoundError" } else { "PermissionError" };
    assert!(test.header.stderr.contains(refusal), "{}", graded.text);
    for secret in [HIDDEN_SECRET, OTHER_STUDENT_SECRET] {
        for output in [&graded.text, &graded.json, &graded.all_stderr()] {
            assert!(!output.contains(secret), "{secret} leaked:\n{output}");
        }
    }
    graded.assert_others_pass(&[1]);
    assert_prompt(&graded, 0);
}

#[test]
fn the_network_is_out_of_reach() {
    let _machine = shared();
    let ws = workspace();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port().to_string();
    let graded = grade_hostile(&ws, "network.py", &[port]);
    assert_eq!(graded.tests().len(), 5, "every test is graded");
    if !graded.report.sandbox.network_isolation {
        unavailable("network isolation");
        return;
    }
    assert_eq!(graded.attacked().header.status, TestStatus::Error(FailureKind::Crashed), "{}", graded.text);
    assert!(graded.attacked().header.stderr.contains("Error"), "{}", graded.text);
    match listener.accept() {
        Err(error) if error.kind() == ErrorKind::WouldBlock => {}
        other => panic!("the listener saw a connection: {other:?}"),
    }
    graded.assert_others_pass(&[1]);
    assert_prompt(&graded, 0);
}

#[test]
fn files_outside_the_scratch_folder_cannot_be_deleted_or_planted() {
    let _machine = shared();
    let ws = workspace();
    let before = contents(ws.root.path());
    let args = [ws.canary.display().to_string(), ws.outside.display().to_string()];
    let graded = grade_hostile(&ws, "delete_files.py", &args);
    let test = graded.attacked();
    assert_eq!(test.header.status, TestStatus::Error(FailureKind::Crashed), "{}", graded.text);
    assert!(reason(test).contains("exited with status 3 during this test"), "{}", graded.text);
    if !graded.report.sandbox.filesystem_isolation && !graded.report.sandbox.filesystem_view {
        unavailable("filesystem isolation (a filesystem view or landlock)");
        return;
    }
    assert!(!test.header.stderr.contains("DONE"), "{}", test.header.stderr);
    assert_eq!(test.header.stderr.matches("refused:").count(), 6, "{}", test.header.stderr);
    assert_eq!(std::fs::read_to_string(&ws.canary).unwrap(), "still here");
    assert_eq!(contents(ws.root.path()), before, "nothing outside the scratch folder changed");
    graded.assert_others_pass(&[1]);
    assert_prompt(&graded, 0);
}

#[test]
fn modes_times_and_extended_attributes_outside_the_scratch_folder_stay_as_they_were() {
    let _machine = shared();
    let ws = workspace();
    let before = contents(ws.root.path());
    let targets = [&ws.outside, &ws.other_student, &ws.canary, &ws.submission, &ws.hidden];
    let args: Vec<String> = targets.iter().map(|path| path.display().to_string()).collect();
    let graded = grade_hostile(&ws, "tamper.py", &args);
    let test = graded.attacked();
    assert!(reason(test).contains("exited with status 3 during this test"), "{}", graded.text);
    if !graded.report.sandbox.filesystem_view {
        unavailable("a filesystem view (mount namespace)");
        return;
    }
    assert!(!test.header.stderr.contains("DONE"), "{}", test.header.stderr);
    assert_eq!(test.header.stderr.matches("refused:").count(), 15, "{}", test.header.stderr);
    assert_eq!(contents(ws.root.path()), before, "nothing outside the scratch folder changed");
    graded.assert_others_pass(&[1]);
    assert_prompt(&graded, 0);
}

/// What a hostile build may not read or change: hidden tests, another
/// student, a folder outside, `/etc/shadow`, `/root`.
fn build_targets(ws: &Workspace) -> Vec<String> {
    let targets = [&ws.hidden, &ws.other_student, &ws.outside, &PathBuf::from("/etc/shadow"), &PathBuf::from("/root")];
    targets.iter().map(|path| path.display().to_string()).collect()
}

/// Grades `dir` in `language` (detected by its files) and checks that its
/// failing, hostile build changed nothing and leaked nothing.
fn grade_hostile_build(ws: &Workspace, dir: &Path, language: treegrade::assignment::Language) -> String {
    open_to_everyone(ws.root.path());
    let before = contents(ws.root.path());
    let mut assignment = assignment(ws);
    assignment.languages = vec![language];
    let tests =
        plan_tests(&assignment, &[0], |test| TestTree::Written(Arc::new(load_tree_file(&test.path).unwrap().tree)))
            .unwrap();
    let kits = repo().join("grader/kits");
    let target = Target { dir: dir.to_path_buf(), command: None, name: None };
    let report = grade_sandboxed(&assignment, &[0], &tests, &target, &kits, &sandbox(SandboxMode::Auto))
        .expect("a submission in a known language is gradable");
    let text = render(&report, Format::Text, false);
    let json = render(&report, Format::Json, false);
    eprintln!("hostile build graded:\n{text}");
    assert!(text.contains("hostile build done"), "the build log reaches the report:\n{text}");
    assert!(report.tests().all(|test| test.header.status != TestStatus::Passed), "{text}");
    let sandbox = &report.sandbox;
    if !sandbox.filesystem_isolation && !sandbox.filesystem_view {
        unavailable("filesystem isolation (a filesystem view or landlock)");
        return text;
    }
    for secret in [HIDDEN_SECRET, OTHER_STUDENT_SECRET, "READ ", "CHMOD "] {
        for output in [&text, &json] {
            assert!(!output.contains(secret), "{secret} leaked:\n{output}");
        }
    }
    assert_eq!(contents(ws.root.path()), before, "nothing outside the scratch folder changed");
    if sandbox.separate_user && sandbox.filesystem_view {
        let uid: u32 = text
            .split("build uid=")
            .nth(1)
            .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next()?.parse().ok())
            .unwrap_or_else(|| panic!("the build says its uid:\n{text}"));
        assert!(uid >= treegrade::grader::sandbox::DEDICATED_ID_BASE, "the build ran as uid {uid}");
    }
    text
}

#[test]
fn a_hostile_build_step_runs_in_the_same_sandbox_as_the_program() {
    let _machine = shared();
    let ws = workspace();
    let mut build = vec!["python3".to_string(), "build.py".to_string()];
    build.extend(build_targets(&ws));
    let language = treegrade::assignment::Language {
        name: "python-with-build".into(),
        detect: vec!["build.py".into()],
        build: Some(build),
        build_time_limit: Duration::from_secs(30),
        run: vec!["python3".into(), "fake_results.py".into()],
        env: Vec::new(),
    };
    grade_hostile_build(&ws, &ws.submission, language);
}

#[test]
fn a_root_graders_rust_build_runs_as_the_students_user_with_the_toolchain_in_reach() {
    if !rustix::process::getuid().is_root() {
        // The toolchain under a private /root, and the user switch, are a root grader's.
        eprintln!("note: not root; the build-as-a-dedicated-user check is a root grader's");
        return;
    }
    let _machine = shared();
    let ws = workspace();
    let build = ws.root.path().join("submissions/hostile-build");
    copy_folder(&repo().join("tests/fixtures/hostile-build"), &build);
    std::fs::write(build.join("targets.txt"), build_targets(&ws).join("\n")).unwrap();
    let language = treegrade::assignment::Language {
        name: "rust".into(),
        detect: vec!["Cargo.toml".into()],
        build: Some(["cargo", "build", "--release", "--offline", "--quiet"].map(String::from).to_vec()),
        build_time_limit: Duration::from_secs(120),
        run: vec!["target/release/search".into()],
        env: Vec::new(),
    };
    let text = grade_hostile_build(&ws, &build, language);
    assert!(text.contains("build uid="), "cargo ran the build script:\n{text}");
}

/// Copies a fixture folder (no links, no `target/`).
fn copy_folder(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_name() == "target" {
            continue;
        }
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_folder(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

#[test]
fn sleeping_forever_after_two_answers_costs_one_test_and_leaves_no_daemon() {
    let _machine = shared();
    let ws = workspace();
    let graded = grade_hostile(&ws, "sleep_forever.py", &[]);
    assert_eq!(
        graded.statuses(),
        [
            TestStatus::Passed,
            TestStatus::Passed,
            TestStatus::Error(FailureKind::TimedOut),
            TestStatus::Passed,
            TestStatus::Passed
        ],
        "{}",
        graded.text
    );
    assert_prompt(&graded, 1);
    assert_nothing_left(&graded);
}

#[test]
fn a_fake_result_without_a_search_fails_on_the_order_and_fakes_no_total() {
    let _machine = shared();
    let ws = workspace();
    let graded = grade_hostile(&ws, "fake_results.py", &[]);
    let first = graded.tests()[0];
    assert_eq!(first.header.status, TestStatus::Failed, "{}", graded.text);
    assert_eq!(
        (first.checks().value, first.checks().action, first.checks().order),
        (Check::Passed, Check::Passed, Check::Failed)
    );
    assert!(graded.report.tests().all(|test| test.header.status != TestStatus::Passed), "{}", graded.text);
    assert_eq!(graded.report.score, treegrade::points::Points::whole(0));
    let totals: Vec<&str> = graded.text.lines().filter(|line| line.starts_with("Total:")).collect();
    assert_eq!(totals, ["Total: 0/5"], "{}", graded.text);
    assert_prompt(&graded, 0);
}

#[test]
fn strict_refuses_to_grade_when_a_layer_is_missing() {
    let ws = workspace();
    let assignment = assignment(&ws);
    let tests =
        plan_tests(&assignment, &[0], |test| TestTree::Written(Arc::new(load_tree_file(&test.path).unwrap().tree)))
            .unwrap();
    let target = Target {
        dir: ws.submission.clone(),
        command: Some(vec!["python3".into(), "fake_results.py".into()]),
        name: None,
    };
    let no_trampoline = Sandbox::new(SandboxMode::Strict, Some(PathBuf::from("/no/such/treegrade")));
    let error =
        grade_sandboxed(&assignment, &[0], &tests, &target, ws.root.path(), &no_trampoline).unwrap_err().to_string();
    assert!(error.contains("--sandbox strict: refusing to grade"), "{error}");
    assert!(error.contains("resource limits (cannot run the sandbox trampoline /no/such/treegrade"), "{error}");
}

#[test]
fn strict_through_the_command_line() {
    let _machine = shared();
    let check = || {
        let mut command = assert_cmd::Command::cargo_bin("treegrade").unwrap();
        command.current_dir(repo()).args(["check", "-q", "q1", "--sandbox", "strict", "--submission"]);
        command
    };
    let missing = layers().missing();
    let output = check().arg("reference/python").output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    if missing.is_empty() {
        assert_eq!(output.status.code(), Some(0), "{stdout}{stderr}");
        assert!(stdout.lines().next().unwrap().contains("[sandbox strict: "), "{stdout}");
    } else {
        assert_eq!(output.status.code(), Some(2), "{stdout}{stderr}");
        assert!(stderr.contains(&missing[0]), "{stderr}");
    }
    if missing.is_empty() {
        // A folder only its owner can read changes nothing: the program gets a private copy.
        let private = tempfile::tempdir().unwrap();
        std::fs::set_permissions(private.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
        std::fs::copy(repo().join("reference/python/search.py"), private.path().join("search.py")).unwrap();
        std::fs::set_permissions(private.path().join("search.py"), std::fs::Permissions::from_mode(0o600)).unwrap();
        let output = check().arg(private.path()).output().unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert_eq!(output.status.code(), Some(0), "{stdout}{}", String::from_utf8_lossy(&output.stderr));
        assert!(stdout.lines().next().unwrap().contains("[sandbox strict: "), "{stdout}");
    }
}

#[test]
fn the_course_secret_and_the_graders_environment_stay_out_of_reach() {
    let _machine = shared();
    let ws = workspace();
    let secret = "COURSE-SECRET-e41b07";
    let output = assert_cmd::Command::cargo_bin("treegrade")
        .unwrap()
        .current_dir(repo())
        .env("TREEGRADE_SECRET", secret)
        .args(["check", "-q", "q1", "--submission"])
        .arg(&ws.submission)
        .args(["--", "python3", "-u", "environ.py"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    eprintln!("{stdout}");
    assert!(stdout.contains("environ scan: "), "the scan ran and its stderr is shown:\n{stdout}");
    assert!(!stdout.contains(secret) && !stdout.contains("LOOT"), "the secret leaked:\n{stdout}");
    if layers().root && layers().filesystem_view && layers().pid_namespace {
        // Its own /proc: the program, its trampoline, nothing else.
        let seen: u32 = stdout
            .split("environ scan: ")
            .nth(1)
            .and_then(|rest| rest.split(' ').next()?.parse().ok())
            .expect("the scan says how many processes it saw");
        assert!(seen <= 3, "saw {seen} processes:\n{stdout}");
    }
}

#[test]
fn links_in_a_submission_are_not_followed_into_hidden_tests_or_other_students() {
    let _machine = shared();
    let ws = workspace();
    std::os::unix::fs::symlink(ws.hidden.join("secret-tree.yaml"), ws.submission.join("tree-link.yaml")).unwrap();
    std::os::unix::fs::symlink(&ws.other_student, ws.submission.join("friend")).unwrap();
    let graded = grade_hostile(&ws, "read_hidden.py", &[".".to_string(), "friend".to_string()]);
    for secret in [HIDDEN_SECRET, OTHER_STUDENT_SECRET] {
        for output in [&graded.text, &graded.json, &graded.all_stderr()] {
            assert!(!output.contains(secret), "{secret} leaked:\n{output}");
        }
    }
    assert!(graded.all_stderr().contains("FileNotFoundError"), "the link was left out of the copy:\n{}", graded.text);
    graded.assert_others_pass(&[1]);
}

/// The peak resident memory of this process (`VmHWM`), in KiB.
fn peak_memory_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|line| line.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// `treegrade check` of the Python reference run under a seccomp shim that
/// makes the landlock system calls fail, as on kernels before 5.13.
fn check_without_landlock(mode: &str) -> std::process::Output {
    let _machine = shared();
    std::process::Command::new("python3")
        .arg(repo().join("tests/fixtures/shims/no-landlock.py"))
        .arg(env!("CARGO_BIN_EXE_treegrade"))
        .args(["check", "--sandbox", mode, "--submission"])
        .arg(repo().join("reference/python"))
        .current_dir(repo())
        .env("NO_COLOR", "1")
        .env_remove("TREEGRADE_ASSIGNMENT")
        .output()
        .unwrap()
}

#[test]
fn without_landlock_auto_grades_with_the_other_layers() {
    let output = check_without_landlock("auto");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.contains("Total: 20/20"), "{stdout}");
    let header = stdout.lines().next().unwrap_or_default();
    assert!(header.contains("no network") && !header.contains("landlock"), "{header}");
}

#[test]
fn without_landlock_strict_refuses_naming_the_layer() {
    let output = check_without_landlock("strict");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("filesystem isolation") && stderr.contains("landlock"), "{stderr}");
}

#[test]
fn every_program_has_a_session_of_its_own_even_with_the_sandbox_off() {
    let _machine = shared();
    let ws = workspace();
    let assignment = assignment(&ws);
    let tests =
        plan_tests(&assignment, &[0], |test| TestTree::Written(Arc::new(load_tree_file(&test.path).unwrap().tree)))
            .unwrap();
    let kits = tempfile::tempdir().unwrap();
    let command = vec!["python3".to_string(), "-u".to_string(), "terminal.py".to_string()];
    let target = Target { dir: ws.submission.clone(), command: Some(command), name: None };
    let report = grade_sandboxed(&assignment, &[0], &tests, &target, kits.path(), &sandbox(SandboxMode::Off)).unwrap();
    let stderr: String = report.tests().map(|test| test.header.stderr.clone()).collect();
    assert!(stderr.contains("own session: True; no controlling terminal"), "{stderr}");
}

/// Processes whose command line holds `marker`, with the CPU time each used (in clock ticks).
fn processes_with(marker: &str) -> Vec<u64> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|entry| {
            let dir = entry.ok()?.path();
            let cmdline = std::fs::read(dir.join("cmdline")).ok()?;
            if !String::from_utf8_lossy(&cmdline).contains(marker) {
                return None;
            }
            let stat = std::fs::read_to_string(dir.join("stat")).ok()?;
            // Fields after the command's closing parenthesis; utime is the 14th field overall.
            let after = &stat[stat.rfind(')')? + 2..];
            after.split(' ').nth(11)?.parse().ok()
        })
        .collect()
}

#[test]
fn killing_the_grader_kills_the_students_it_was_running() {
    let _machine = shared();
    let ws = workspace();
    let marker = format!("spin-{}", std::process::id());
    let mut grader = std::process::Command::new(env!("CARGO_BIN_EXE_treegrade"))
        .args(["check", "--submission"])
        .arg(&ws.submission)
        .args(["--", "python3", "-u", "spin_forever.py", &marker])
        .current_dir(repo())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    // Wait until the student spins (a third of a second of CPU): it has been
    // served its first search, so only the grader's death can stop it now.
    let spinning = || processes_with(&marker).iter().any(|&ticks| ticks >= 30);
    while !spinning() && started.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(spinning(), "the student program spins");
    grader.kill().unwrap();
    grader.wait().unwrap();
    let killed = Instant::now();
    while !processes_with(&marker).is_empty() && killed.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(processes_with(&marker).is_empty(), "the student outlived the grader");
}

#[test]
fn a_private_file_or_folder_never_turns_the_separate_user_off() {
    let _machine = shared();
    let ws = workspace();
    // A submission under a mode-0700 folder, holding a mode-0600 file.
    let private = ws.root.path().join("private");
    let submission = private.join("student");
    std::fs::create_dir_all(&submission).unwrap();
    for file in ["client.py", "identity.py"] {
        std::fs::copy(ws.submission.join(file), submission.join(file)).unwrap();
    }
    std::fs::write(submission.join("notes.txt"), "mine").unwrap();
    std::fs::set_permissions(submission.join("notes.txt"), std::fs::Permissions::from_mode(0o600)).unwrap();
    std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o700)).unwrap();
    let moved = Workspace { submission, ..ws };
    let graded = grade_hostile(&moved, "identity.py", &[]);
    graded.assert_others_pass(&[]);
    let stderr = graded.all_stderr();
    assert!(stderr.contains("copy mode 700"), "the copy is private: {stderr}");
    if layers().root {
        assert!(graded.report.sandbox.separate_user, "{}", graded.text);
        let uid = graded.printed_uid().expect("the program printed its uid");
        assert!(uid >= treegrade::grader::sandbox::DEDICATED_ID_BASE, "ran as uid {uid}");
        assert!(stderr.contains("shadow: denied"), "{stderr}");
        assert!(stderr.contains(&format!("owned by {uid}")), "the copy belongs to the sandbox user: {stderr}");
    }
}

#[test]
fn unix_sockets_outside_the_sandbox_are_out_of_reach() {
    let _machine = shared();
    let ws = workspace();
    let path = ws.outside.join("server.sock");
    let listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o777)).unwrap();
    listener.set_nonblocking(true).unwrap();
    let graded = grade_hostile(&ws, "unix_socket.py", &[path.display().to_string()]);
    graded.assert_others_pass(&[]);
    let stderr = graded.all_stderr();
    if graded.report.sandbox.syscall_filter {
        assert!(stderr.contains("unix socket: refused"), "{stderr}");
        assert!(listener.accept().is_err(), "nothing connected to the server");
    } else {
        assert!(std::env::var("CI").as_deref() != Ok("true"), "CI machines allow seccomp filters");
    }
}

#[test]
fn the_stack_cannot_be_lifted_past_the_memory_limit() {
    let _machine = shared();
    let ws = workspace();
    let graded = grade_hostile(&ws, "stack_hog.py", &[]);
    let stderr = graded.all_stderr();
    if !graded.report.sandbox.resource_limits {
        unavailable("resource limits");
        return;
    }
    assert!(stderr.contains("stack: refused (hard limit 256 MiB"), "{stderr}");
    graded.assert_others_pass(&[]);
}

#[test]
fn shared_memory_does_not_escape_the_memory_limit() {
    let _machine = exclusive();
    let ws = workspace();
    let bounded_home = layers().filesystem_view;
    let args: Vec<String> = if bounded_home { Vec::new() } else { vec!["--skip-home".into()] };
    let graded = grade_hostile(&ws, "shared_memory.py", &args);
    let stderr = graded.all_stderr();
    let held: Vec<(String, u64)> = stderr
        .lines()
        .filter_map(|line| {
            let rest = line.strip_prefix("shared memory: ")?;
            let (name, size) = rest.split_once(" held ")?;
            Some((name.to_string(), size.strip_suffix(" MiB")?.parse().ok()?))
        })
        .collect();
    if !graded.report.sandbox.syscall_filter {
        unavailable("the seccomp filter");
        return;
    }
    graded.assert_others_pass(&[]);
    for refused in ["anonymous refused", "system-v refused"] {
        assert!(stderr.contains(&format!("shared memory: {refused}")), "{refused}:\n{stderr}");
    }
    // Files: /dev/shm is absent from a view and unwritable under landlock;
    // the home is a tmpfs of 64 MiB, for all files together, not each.
    assert!(held.iter().all(|(_, mib)| *mib <= 64), "{held:?}\n{stderr}");
    if bounded_home {
        assert!(stderr.contains("home stopped after 64 MiB"), "{stderr}");
    }
}

// ---------------------------------------------------------------------------
// Hostile agents in games: each plays the careful agent (tests/fixtures/
// hostile/play_careful.py), each in a sandbox of its own. Whatever the
// hostile agent does, it loses its games with the reason, and the careful
// agent is never charged with a failure: its files, its process, its
// sockets and its time are its own.
// ---------------------------------------------------------------------------

use treegrade::game::{Game, GameArgs, make};
use treegrade::grader::player::ProgramAgent;
use treegrade::grader::{Staged, stage};
use treegrade::play::{Ending, FaultKind, GameRecord, MoveLimits, SeriesSetup, play_series, tally};

/// A move's wall-clock limit in these games: short, as hangs cost one each.
const MOVE_LIMIT: Duration = Duration::from_secs(3);

/// A game's agent staged in its own sandbox from the hostile fixtures.
fn staged_agent(ws: &Workspace, folder: &str, script: &str) -> Staged {
    let dir = ws.root.path().join(folder);
    std::fs::create_dir_all(&dir).unwrap();
    for file in ["client.py", "play_client.py", script] {
        std::fs::copy(repo().join("tests/fixtures/hostile").join(file), dir.join(file)).unwrap();
    }
    open_to_everyone(&dir);
    let command = vec!["python3".to_string(), "-u".to_string(), script.to_string()];
    let target = Target { dir, command: Some(command), name: Some(folder.to_string()) };
    let kits = ws.root.path().join("kits");
    std::fs::create_dir_all(&kits).unwrap();
    stage(&[], &target, &kits, &sandbox(SandboxMode::Auto), 100, MOVE_LIMIT).expect("a command is always staged")
}

/// Two games of tic-tac-toe, colours alternating, between the hostile agent
/// and the careful one: the games, how long they took, and the hostile
/// agent's sandbox layers.
fn play_hostile(ws: &Workspace, script: &str) -> (Vec<GameRecord>, Duration, Layers) {
    let hostile = staged_agent(ws, "hostile-agent", script);
    let careful = staged_agent(ws, "careful-agent", "play_careful.py");
    let game: Arc<dyn Game> =
        Arc::from(make(&GameArgs { name: "tic-tac-toe", params: &[], position: None, utility: None }).unwrap());
    let mut hostile_agent = ProgramAgent::new("hostile", hostile.program.clone().unwrap());
    let mut careful_agent = ProgramAgent::new("careful", careful.program.clone().unwrap());
    let setup = SeriesSetup {
        label: script.to_string(),
        games: 2,
        openings: 0,
        seed: 1,
        max_plies: 100,
        limits: MoveLimits { budget: Some(2000), time: MOVE_LIMIT, eval: None },
    };
    let started = Instant::now();
    let records = play_series(&game, &mut hostile_agent, &mut careful_agent, &setup, &mut |_| {});
    drop((hostile_agent, careful_agent));
    let elapsed = started.elapsed();
    for record in &records {
        eprintln!("{}: {}: {}", record.label, record.summary(), record.move_list());
    }
    (records, elapsed, hostile.prepared.layers.clone())
}

/// The hostile agent lost every game by a failure of `kinds`, the careful
/// agent none; the hostile agent's reports (its stderr when it lost).
fn assert_contained(records: &[GameRecord], kinds: &[FaultKind]) -> Vec<String> {
    let careful = tally(records, "careful");
    assert_eq!(careful.clean(), careful.games, "never charged to the careful agent: {careful:?}");
    assert_eq!(careful.wins, records.len() as u64, "it won every game: {careful:?}");
    records
        .iter()
        .map(|record| {
            let seat = record.seat_of("hostile").unwrap();
            let fault = record.fault_of(seat).unwrap_or_else(|| panic!("{}", record.summary()));
            assert!(kinds.contains(&fault.kind), "{}", record.summary());
            format!("{}\n{}", fault.message, fault.stderr)
        })
        .collect()
}

#[test]
fn a_crashing_agent_loses_its_games_and_its_opponent_plays_on() {
    let _machine = shared();
    let ws = workspace();
    let (records, elapsed, _) = play_hostile(&ws, "play_crash.py");
    let reports = assert_contained(&records, &[FaultKind::Crashed]);
    assert!(reports[0].contains("exited with status 1"), "{}", reports[0]);
    assert!(elapsed < Duration::from_secs(20), "{elapsed:?}");
}

#[test]
fn a_hanging_agent_times_out_once_a_game() {
    let _machine = shared();
    let ws = workspace();
    let (records, elapsed, _) = play_hostile(&ws, "play_hang.py");
    let reports = assert_contained(&records, &[FaultKind::TimedOut]);
    assert!(reports[0].contains("did not answer within 3 s"), "{}", reports[0]);
    assert!(elapsed < MOVE_LIMIT * 2 + Duration::from_secs(15), "{elapsed:?}");
}

#[test]
fn an_illegal_move_loses_the_game() {
    let _machine = shared();
    let ws = workspace();
    let (records, _, _) = play_hostile(&ws, "play_illegal.py");
    let reports = assert_contained(&records, &[FaultKind::IllegalMove]);
    assert!(reports.iter().any(|report| report.contains("played `z9`")), "{reports:?}");
}

#[test]
fn a_flooding_agent_is_cut_short_and_loses() {
    let _machine = exclusive();
    let ws = workspace();
    let (records, elapsed, _) = play_hostile(&ws, "play_flood.py");
    let reports = assert_contained(&records, &[FaultKind::Crashed, FaultKind::ProtocolError]);
    assert!(reports[0].contains("16 MiB") || reports[0].contains("1 MiB"), "{}", reports[0]);
    assert!(elapsed < Duration::from_secs(30), "{elapsed:?}");
}

/// The number an attacking agent reported after `what` (`signals delivered: 0`).
fn attack_count(report: &str, what: &str) -> u64 {
    let at = report.find(what).unwrap_or_else(|| panic!("no `{what}` in the attacker's report:\n{report}"));
    report[at + what.len()..].trim_start().split(|c: char| !c.is_ascii_digit()).next().unwrap().parse().unwrap()
}

#[test]
fn an_agent_cannot_signal_its_opponent() {
    let _machine = shared();
    let ws = workspace();
    let (records, _, layers) = play_hostile(&ws, "play_signal.py");
    if !layers.pid_namespace && !layers.separate_user && !layers.filesystem_isolation {
        unavailable("a PID namespace, a user of its own or landlock's signal scope");
        return;
    }
    for report in assert_contained(&records, &[FaultKind::Crashed]) {
        assert_eq!(attack_count(&report, "signals delivered:"), 0, "{report}");
    }
}

#[test]
fn an_agent_cannot_read_its_opponents_files_or_processes() {
    let _machine = shared();
    let ws = workspace();
    let (records, _, layers) = play_hostile(&ws, "play_spy.py");
    if !layers.filesystem_view && !layers.filesystem_isolation {
        unavailable("filesystem isolation (a filesystem view or landlock)");
        return;
    }
    for report in assert_contained(&records, &[FaultKind::Crashed]) {
        assert_eq!(attack_count(&report, "foreign files read:"), 0, "{report}");
    }
}

#[test]
fn filling_the_disk_does_not_reach_the_opponents_files() {
    let _machine = exclusive();
    let ws = workspace();
    let (records, _, _) = play_hostile(&ws, "play_disk.py");
    // The careful agent writes its diary at every move: it never failed.
    for report in assert_contained(&records, &[FaultKind::Crashed, FaultKind::TimedOut]) {
        if report.contains("bytes written:") {
            assert!(attack_count(&report, "bytes written:") <= 1 << 30, "{report}");
        }
    }
}

#[test]
fn an_agent_cannot_open_a_socket_to_its_opponent() {
    let _machine = shared();
    let ws = workspace();
    let (records, _, layers) = play_hostile(&ws, "play_socket.py");
    if !layers.network_isolation {
        unavailable("network isolation");
        return;
    }
    for report in assert_contained(&records, &[FaultKind::Crashed]) {
        assert_eq!(attack_count(&report, "connections made:"), 0, "{report}");
    }
}

/// Processes started to slow the opponent down are stopped with their
/// agent between its moves: the opponent's moves are not slowed, and it is
/// never charged with a timeout.
#[test]
fn an_agent_cannot_slow_its_opponent_with_processes() {
    let _machine = exclusive();
    let ws = workspace();
    let (records, _, _) = play_hostile(&ws, "play_fork.py");
    let careful = tally(&records, "careful");
    assert_eq!(careful.fault_count(FaultKind::TimedOut), 0, "{careful:?}");
    assert_eq!(careful.clean(), careful.games, "{careful:?}");
    for record in &records {
        assert!(
            matches!(record.ending, Ending::Terminal) || record.fault_of(record.seat_of("hostile").unwrap()).is_some(),
            "{}",
            record.summary()
        );
        let careful_seat = record.seat_of("careful").unwrap();
        let slowest = record
            .moves
            .iter()
            .filter(|ply| ply.by.seat() == Some(careful_seat))
            .map(|ply| ply.elapsed_ms)
            .max()
            .unwrap_or(0);
        assert!(slowest < 1500, "the careful agent's slowest move took {slowest} ms: {}", record.summary());
    }
}
