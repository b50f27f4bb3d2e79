//! From a submission folder to a command the runner can start.
//!
//! Picks the language by the files present, builds compiled languages, and
//! sets up the program's environment, including the starter kits, which the
//! binary carries so that grading works wherever treegrade is installed.

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Instant;

use super::runner::{ProgramSpec, RunningProgram};
use super::sandbox::Policy;
use crate::assignment::{Assignment, Language};

/// The Python kit, as shipped to students.
pub const PYTHON_KIT: &str = include_str!("../../grader/kits/python/treegrade_kit.py");

/// The Rust kit crate, as shipped to students: (path inside `kit/`, contents).
pub const RUST_KIT: [(&str, &str); 4] = [
    ("Cargo.toml", include_str!("../../grader/kits/rust/Cargo.toml")),
    ("README.md", include_str!("../../grader/kits/rust/README.md")),
    ("src/lib.rs", include_str!("../../grader/kits/rust/src/lib.rs")),
    ("src/json.rs", include_str!("../../grader/kits/rust/src/json.rs")),
];

/// The CS188 kit, which runs an unchanged CS188 `multiAgents.py` (it imports
/// the Python kit): (file name inside `cs188/`, contents).
pub const CS188_KIT: [(&str, &str); 6] = [
    ("treegrade_cs188.py", include_str!("../../grader/kits/cs188/treegrade_cs188.py")),
    ("pacman.py", include_str!("../../grader/kits/cs188/pacman.py")),
    ("game.py", include_str!("../../grader/kits/cs188/game.py")),
    ("util.py", include_str!("../../grader/kits/cs188/util.py")),
    ("cs188_absent.py", include_str!("../../grader/kits/cs188/cs188_absent.py")),
    ("cs188_pacman.py", include_str!("../../grader/kits/cs188/cs188_pacman.py")),
];

/// The MIT 6.034 games-lab kit (`{kits}/mit6034`): the runner and its stand-ins for the lab's modules.
pub const MIT6034_KIT: [(&str, &str); 5] = [
    ("treegrade_mit6034.py", include_str!("../../grader/kits/mit6034/treegrade_mit6034.py")),
    ("game_api.py", include_str!("../../grader/kits/mit6034/game_api.py")),
    ("toytree.py", include_str!("../../grader/kits/mit6034/toytree.py")),
    ("boards.py", include_str!("../../grader/kits/mit6034/boards.py")),
    ("_fixtures.py", include_str!("../../grader/kits/mit6034/_fixtures.py")),
];

/// Sets up a student's folder: the assignment's starter for `language`, the
/// kit beside it, the handout, and `extra` files. Refuses to overwrite
/// existing files.
pub fn write_starter(
    assignment_dir: &Path,
    language: &str,
    dest: &Path,
    extra: Vec<(PathBuf, Vec<u8>)>,
) -> io::Result<Vec<PathBuf>> {
    let starter = assignment_dir.join("starter").join(language);
    if !starter.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!("this assignment has no {language} starter ({} is missing)", starter.display()),
        ));
    }
    let mut files: Vec<(PathBuf, Vec<u8>)> = Vec::new();
    let skipped = |name: &std::ffi::OsStr| matches!(name.to_str(), Some("target" | "__pycache__" | "kit"));
    for path in crate::walk::files(&starter, skipped).map_err(|e| io::Error::new(e.source.kind(), e.to_string()))? {
        let relative = path.strip_prefix(&starter).expect("the walker lists paths under its root").to_path_buf();
        files.push((relative, std::fs::read(&path)?));
    }
    match language {
        "python" => files.push(("treegrade_kit.py".into(), PYTHON_KIT.as_bytes().to_vec())),
        "rust" => {
            files.extend(RUST_KIT.iter().map(|(path, text)| (Path::new("kit").join(path), text.as_bytes().to_vec())))
        }
        _ => {}
    }
    let handout = assignment_dir.join("README.md");
    if handout.is_file() {
        files.push(("README.md".into(), std::fs::read(handout)?));
    }
    files.extend(extra);
    let existing: Vec<String> =
        files.iter().filter(|(path, _)| dest.join(path).exists()).map(|(path, _)| path.display().to_string()).collect();
    if !existing.is_empty() {
        return Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!("{} already has {}; nothing was written", dest.display(), existing.join(", ")),
        ));
    }
    for (path, contents) in &files {
        let target = dest.join(path);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(target, contents)?;
    }
    Ok(files.into_iter().map(|(path, _)| path).collect())
}

/// Writes the kits into a fresh temporary folder (`{kits}` in an assignment's
/// `run` and `env` values).
pub fn write_kits() -> io::Result<tempfile::TempDir> {
    let dir = tempfile::Builder::new().prefix("treegrade-kits-").tempdir()?;
    write_kit(&dir.path().join("python"), &[("treegrade_kit.py", PYTHON_KIT)])?;
    write_kit(&dir.path().join("cs188"), &CS188_KIT)?;
    write_kit(&dir.path().join("mit6034"), &MIT6034_KIT)?;
    write_kit(&dir.path().join("rust"), &RUST_KIT)?;
    Ok(dir)
}

/// Writes one kit's `(file, contents)` pairs under `folder`, making the
/// folders its file names need.
fn write_kit(folder: &Path, files: &[(&str, &str)]) -> io::Result<()> {
    for (file, text) in files {
        let path = folder.join(file);
        std::fs::create_dir_all(path.parent().expect("kit files are in a folder"))?;
        std::fs::write(path, text)?;
    }
    Ok(())
}

/// The language whose `detect` files are all in `dir`, first match wins.
pub fn detect_language<'a>(assignment: &'a Assignment, dir: &Path) -> Option<&'a Language> {
    assignment.languages.iter().find(|language| language.detect.iter().all(|file| dir.join(file).exists()))
}

/// Why a submission could not be built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildFailure {
    /// One line: what failed.
    pub message: String,
    /// The build's output (compiler messages).
    pub output: String,
}

/// Builds the submission if its language has a build step, in the sandbox
/// `policy` when there is one; `scratch` is its `TMPDIR`.
pub fn build(language: &Language, dir: &Path, policy: Option<&Policy>, scratch: &Path) -> Result<(), BuildFailure> {
    let Some(command) = &language.build else { return Ok(()) };
    let mut env = build_env(dir);
    env.push(("TMPDIR".into(), scratch.as_os_str().to_owned()));
    let spec = ProgramSpec { command: command.clone(), dir: dir.to_path_buf(), env, policy: policy.cloned() };
    let deadline = Instant::now() + language.build_time_limit;
    let completion = RunningProgram::run_to_completion(&spec, deadline).map_err(|error| BuildFailure {
        message: format!("could not run the build `{}`: {error}", command.join(" ")),
        output: String::new(),
    })?;
    if completion.success {
        return Ok(());
    }
    let message = if completion.timed_out {
        format!("the build `{}` did not finish within {} s", command.join(" "), language.build_time_limit.as_secs())
    } else {
        format!("the build `{}` failed: it {}", command.join(" "), completion.status)
    };
    Err(BuildFailure { message, output: completion.output.text() })
}

/// The command and environment that start a submission's searcher, in the
/// sandbox `policy` when there is one; `scratch` is its `HOME` and `TMPDIR`.
pub fn program_spec(
    command: &[String],
    dir: &Path,
    language: Option<&Language>,
    kits: &Path,
    policy: Option<&Policy>,
    scratch: &Path,
) -> ProgramSpec {
    let mut env = run_env(dir);
    env.retain(|(key, _)| key != "HOME");
    env.push(("HOME".into(), scratch.as_os_str().to_owned()));
    env.push(("TMPDIR".into(), scratch.as_os_str().to_owned()));
    for (key, value) in language.map(|l| l.env.as_slice()).unwrap_or_default() {
        let value = value.replace("{kits}", &kits.to_string_lossy());
        env.retain(|(existing, _)| existing != key.as_str());
        env.push((key.into(), value.into()));
    }
    let command: Vec<String> = command.iter().map(|word| word.replace("{kits}", &kits.to_string_lossy())).collect();
    let command = super::interpreter::resolve(&command, &search_path());
    ProgramSpec { command: resolve_relative(&command, dir), dir: dir.to_path_buf(), env, policy: policy.cloned() }
}

/// `target/release/search` is relative to the submission, not to the grader's folder.
fn resolve_relative(command: &[String], dir: &Path) -> Vec<String> {
    let mut command = command.to_vec();
    // Python installs itself as `python` on Windows; assignments say `python3`.
    #[cfg(windows)]
    if let Some(program) = command.first_mut()
        && program == "python3"
    {
        *program = "python".to_string();
    }
    if let Some(program) = command.first_mut()
        && program.contains('/')
        && Path::new(program.as_str()).is_relative()
    {
        *program = dir.join(&*program).to_string_lossy().into_owned();
    }
    command
}

/// A small, explicit environment: programs see nothing of the grader's.
fn run_env(dir: &Path) -> Vec<(OsString, OsString)> {
    vec![
        ("PATH".into(), search_path()),
        ("HOME".into(), dir.as_os_str().to_owned()),
        ("LANG".into(), "C.UTF-8".into()),
        ("PYTHONDONTWRITEBYTECODE".into(), "1".into()),
        ("PYTHONIOENCODING".into(), "utf-8".into()),
    ]
}

/// Builds need the toolchain's own settings (cargo's home, rustup's toolchain).
fn build_env(dir: &Path) -> Vec<(OsString, OsString)> {
    let mut env = run_env(dir);
    for key in ["HOME", "CARGO_HOME", "RUSTUP_HOME", "RUSTUP_TOOLCHAIN"] {
        if let Some(value) = std::env::var_os(key) {
            env.retain(|(existing, _)| existing != key);
            env.push((key.into(), value));
        }
    }
    env
}

fn search_path() -> OsString {
    std::env::var_os("PATH").unwrap_or_else(|| "/usr/local/bin:/usr/bin:/bin".into())
}

/// A submission folder as given, made absolute so that commands resolve against it.
pub fn absolute(dir: &Path) -> PathBuf {
    std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf())
}
