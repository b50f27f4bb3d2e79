//! The Gradescope autograder zip, unpacked into a Gradescope-like folder
//! layout and run the way Gradescope runs it: no Rust toolchain on `PATH`
//! and no network.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The autograder zip, built once for every test of this module.
fn autograder_zip() -> &'static Path {
    static ZIP: std::sync::OnceLock<(tempfile::TempDir, PathBuf)> = std::sync::OnceLock::new();
    let (_, path) = ZIP.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let zip_path = dir.path().join("autograder.zip");
        let output = Command::cargo_bin("treegrade")
            .unwrap()
            .current_dir(dir.path())
            .env("TREEGRADE_SECRET", "course-secret")
            .env_remove("TREEGRADE_ASSIGNMENT")
            .args(["gradescope", "--glibc", &host_glibc(), "--out"])
            .arg(&zip_path)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
        (dir, zip_path)
    });
    path
}

/// This machine's glibc version (`2.36`): the tests run the zip's binary
/// here, a test build linked against it, so it is the image's `--glibc`.
fn host_glibc() -> String {
    let output = std::process::Command::new("getconf").arg("GNU_LIBC_VERSION").output().expect("getconf runs");
    let text = String::from_utf8_lossy(&output.stdout);
    text.split_whitespace().nth(1).expect("`glibc 2.NN`").to_string()
}

/// The newest `GLIBC_` version a binary's dynamic symbols ask for, as
/// binutils reads it (`None` where objdump is missing, outside CI).
fn objdump_newest_glibc(binary: &Path) -> Option<Vec<u32>> {
    let Ok(output) = std::process::Command::new("objdump").arg("-T").arg(binary).output() else {
        crate::common::unavailable("objdump (binutils), to read a binary's glibc needs");
        return None;
    };
    let listing = String::from_utf8_lossy(&output.stdout);
    let versions = listing.split(|c: char| c.is_whitespace() || c == '(' || c == ')');
    let parsed = versions.filter_map(|word| {
        let parts: Option<Vec<u32>> = word.strip_prefix("GLIBC_")?.split('.').map(|p| p.parse().ok()).collect();
        parts
    });
    Some(parsed.max().expect("a glibc binary asks for glibc versions"))
}

/// The zip's binary runs on every image docs/courses.md names (Ubuntu
/// 20.04: glibc 2.31): `gradescope` refuses to pack a treegrade that needs
/// a newer glibc, saying which and how to get one that runs there, and what
/// it packs needs nothing newer.
#[test]
fn the_zips_treegrade_needs_no_glibc_newer_than_2_31() {
    let this = assert_cmd::cargo::cargo_bin("treegrade");
    let Some(needed) = objdump_newest_glibc(&this) else { return };
    let dir = tempfile::tempdir().unwrap();
    let zip_path = dir.path().join("autograder.zip");
    let output = Command::cargo_bin("treegrade")
        .unwrap()
        .env_remove("TREEGRADE_ASSIGNMENT")
        .args(["gradescope", "--out"])
        .arg(&zip_path)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    if needed > vec![2, 31] {
        let version: Vec<String> = needed.iter().map(u32::to_string).collect();
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains(&format!("needs glibc {}, newer than the image's 2.31", version.join("."))),
            "{stderr}"
        );
        assert!(stderr.contains("scripts/gradescope-binary") && stderr.contains("--binary"), "{stderr}");
        assert!(!zip_path.exists(), "no zip is left behind");
    } else {
        assert_eq!(output.status.code(), Some(0), "{stderr}");
        let mut archive = zip::ZipArchive::new(std::fs::File::open(&zip_path).unwrap()).unwrap();
        let zipped = dir.path().join("zipped-treegrade");
        let mut binary = archive.by_name("treegrade").unwrap();
        std::io::copy(&mut binary, &mut std::fs::File::create(&zipped).unwrap()).unwrap();
        let zipped_needs = objdump_newest_glibc(&zipped).unwrap();
        assert!(zipped_needs <= vec![2, 31], "{zipped_needs:?}");
    }
    // A binary built for glibc 2.31 (scripts/gradescope-binary) is packed as it is.
    let built = repo().join("target/gradescope/treegrade");
    if built.is_file() {
        let output = Command::cargo_bin("treegrade")
            .unwrap()
            .env_remove("TREEGRADE_ASSIGNMENT")
            .args(["gradescope", "--binary"])
            .arg(&built)
            .arg("--out")
            .arg(&zip_path)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
        assert!(String::from_utf8_lossy(&output.stdout).contains("needs glibc 2."), "the report names its glibc");
        assert!(objdump_newest_glibc(&built).unwrap() <= vec![2, 31]);
    }
}

/// `ROOT/source` holds the unpacked zip, as `/autograder/source` would.
fn autograder_root() -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    let mut archive = zip::ZipArchive::new(std::fs::File::open(autograder_zip()).unwrap()).unwrap();
    archive.extract(root.path().join("source")).unwrap();
    root
}

/// Gradescope's image as far as these tests can make it: only the system's
/// folders on `PATH` (no cargo, no rustc, no pyenv), an empty environment
/// and, where the machine allows it (as root, so always under CI), no
/// network either.
fn gradescope_like(script: &Path, root: &Path) -> std::process::Command {
    const PATH: &str = "/usr/sbin:/usr/bin:/sbin:/bin";
    let on_path = |tool: &str| std::env::split_paths(PATH).any(|dir| dir.join(tool).exists());
    assert!(!on_path("cargo") && !on_path("rustc"), "no Rust toolchain on {PATH}");
    let offline = std::process::Command::new("unshare").args(["--net", "true"]).output();
    let mut command = if offline.is_ok_and(|o| o.status.success()) {
        let mut command = std::process::Command::new("unshare");
        command.args(["--net", "bash"]);
        command
    } else {
        crate::common::unavailable("a network namespace (unshare --net) to grade offline");
        std::process::Command::new("bash")
    };
    command.arg(script).env_clear().env("PATH", PATH).env("HOME", root).env("AUTOGRADER_ROOT", root);
    command
}

fn run_autograder(root: &Path) -> serde_json::Value {
    let status = gradescope_like(&root.join("source/run_autograder"), root).status().unwrap();
    assert!(status.success(), "run_autograder always exits 0");
    let text = std::fs::read_to_string(root.join("results/results.json")).expect("results.json is always written");
    serde_json::from_str(&text).unwrap()
}

#[test]
fn the_zip_has_what_gradescope_needs() {
    let root = autograder_root();
    let source = root.path().join("source");
    for file in ["setup.sh", "run_autograder", "treegrade", "assignment/assignment.yaml", "secret"] {
        assert!(source.join(file).is_file(), "{file}");
    }
    assert!(source.join("assignment/tests/aima-fig5-2.yaml").is_file());
    assert!(source.join("assignment/tests/large-b3-d5-alphabeta.yaml").is_file(), "hidden tests are packed");
    assert!(!source.join("source").exists(), "no source tree: nothing is compiled on Gradescope");
    let setup = std::fs::read_to_string(source.join("setup.sh")).unwrap();
    assert!(!setup.contains("rustup") && !setup.contains("cargo"), "setup.sh never builds: {setup}");
    let ran = gradescope_like(&source.join("setup.sh"), root.path()).output().unwrap();
    assert!(ran.status.success(), "setup.sh runs here: {}", String::from_utf8_lossy(&ran.stderr));
    let yaml = std::fs::read_to_string(source.join("assignment/assignment.yaml")).unwrap();
    assert!(yaml.contains("tests_dir: tests\n"), "{yaml}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(source.join("run_autograder")).unwrap().permissions().mode();
        assert!(mode & 0o111 != 0, "run_autograder is executable");
    }
}

#[test]
fn a_submission_in_a_gradescope_layout_is_graded() {
    let root = autograder_root();
    let submission = root.path().join("submission");
    std::fs::create_dir_all(&submission).unwrap();
    std::fs::copy(repo().join("reference/python/search.py"), submission.join("search.py")).unwrap();
    std::fs::write(root.path().join("submission_metadata.json"), r#"{"users": [{"email": "ada@example.edu"}]}"#)
        .unwrap();
    let results = run_autograder(root.path());
    assert_eq!(results["score"], 20.0, "{results}");
    let tests = results["tests"].as_array().unwrap();
    assert!(tests.len() > 40);
    assert!(tests.iter().all(|t| t["status"] == "passed"));
    assert!(tests.iter().any(|t| t["visibility"] == "after_published"), "hidden tests are marked");
}

#[test]
fn results_are_written_even_when_grading_fails() {
    let root = autograder_root();
    std::fs::create_dir_all(root.path().join("submission")).unwrap();
    std::fs::write(root.path().join("submission/notes.txt"), "I forgot the code").unwrap();
    let results = run_autograder(root.path());
    assert_eq!(results["score"], 0);
    let output = results["output"].as_str().unwrap();
    assert!(output.contains("could not grade this submission"), "{output}");
    assert!(output.contains("found no submission"), "the reason reaches the student: {output}");
}

/// A play question's opponent program (inside the assignment's folder) and
/// its game file travel in the zip, at the places `assignment.yaml` names.
#[test]
fn a_play_questions_opponent_and_game_are_packaged() {
    let course = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(course.path().join("agents/secret")).unwrap();
    std::fs::copy(
        repo().join("tests/fixtures/play/agents/perfect/search.py"),
        course.path().join("agents/secret/search.py"),
    )
    .unwrap();
    std::fs::write(course.path().join("small.yaml"), "rules: {game: mnk, width: 3, height: 3, k: 3}\n").unwrap();
    std::fs::write(
        course.path().join("assignment.yaml"),
        "questions:\n  - id: q1\n    points: 1\n    play:\n      game: small.yaml\n      games: 2\n      opponents: \
         [{program: agents/secret, name: secret}]\n      thresholds: {not_lost: [2]}\n",
    )
    .unwrap();
    let zip_path = course.path().join("autograder.zip");
    let output = Command::cargo_bin("treegrade")
        .unwrap()
        .env_remove("TREEGRADE_ASSIGNMENT")
        .args(["gradescope", "--glibc", &host_glibc(), "--assignment"])
        .arg(course.path())
        .arg("--out")
        .arg(&zip_path)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let archive = zip::ZipArchive::new(std::fs::File::open(&zip_path).unwrap()).unwrap();
    let names: Vec<String> = archive.file_names().map(|name| name.unwrap().into_owned()).collect();
    assert!(names.iter().any(|name| name == "assignment/agents/secret/search.py"), "{names:?}");
    assert!(names.iter().any(|name| name == "assignment/tests/small.yaml"), "{names:?}");
}
