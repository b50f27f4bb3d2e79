//! The interpreter a run command starts, found once per grading run.
//!
//! A version manager (pyenv, asdf, ...) puts shims first on `PATH`: shell
//! scripts that work out, at every start, which interpreter to run, and
//! cost more than the interpreter's own start. A grading run starts the same
//! interpreter many times (public tests, hidden tests, reruns, every student
//! of a batch), so a `python*` command is resolved here once, in the
//! grader's own environment and folder, to the executable the shim would
//! start, and that executable is started directly. The program then runs the
//! very interpreter it would have run through the shim; only the shim's own
//! work is saved. Where the answer is not certain, the command stays as
//! written.

use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// The command with its interpreter resolved: a bare `python*` name found
/// on `path` as a shim becomes the interpreter the shim starts.
pub fn resolve(command: &[String], path: &OsStr) -> Vec<String> {
    let mut command = command.to_vec();
    if let Some(program) = command.first_mut()
        && let Some(resolved) = resolved_interpreter(program, path)
    {
        *program = resolved.to_string_lossy().into_owned();
    }
    command
}

/// What each (program, PATH) was resolved to.
type Resolved = HashMap<(String, OsString), Option<PathBuf>>;

/// Each (program, PATH) resolved once per process.
fn resolved_interpreter(program: &str, path: &OsStr) -> Option<PathBuf> {
    if !program.starts_with("python") || program.contains(['/', '\\']) {
        return None;
    }
    static FOUND: OnceLock<Mutex<Resolved>> = OnceLock::new();
    let key = (program.to_string(), path.to_os_string());
    let mut found = FOUND.get_or_init(Default::default).lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    found.entry(key).or_insert_with(|| through_shim(program, path)).clone()
}

/// The interpreter a shim on `path` starts, or `None` where `program` is no
/// shim (a real executable is started as written) or the answer is unsure.
fn through_shim(program: &str, path: &OsStr) -> Option<PathBuf> {
    let found = std::env::split_paths(path).map(|dir| dir.join(program)).find(|file| file.is_file())?;
    if !is_script(&found) {
        return None;
    }
    let here = std::env::current_dir().ok()?;
    let chosen = std::env::var("PYENV_VERSION").ok();
    pyenv_version(&found, chosen.as_deref(), &here).or_else(|| ask_interpreter(&found))
}

/// Whether the file starts with `#!`: a script, not an executable.
fn is_script(file: &Path) -> bool {
    use std::io::Read as _;
    let mut start = [0u8; 2];
    std::fs::File::open(file).and_then(|mut f| f.read_exact(&mut start)).is_ok() && &start == b"#!"
}

/// The interpreter a pyenv shim starts, read the way pyenv reads it (its
/// `PYENV_VERSION`, else the nearest `.python-version` above the current
/// folder, else the global `version` file), when that names one installed
/// version; `None` for anything else (several versions, `system`, a
/// prefix), which [`ask_interpreter`] settles.
fn pyenv_version(shim: &Path, chosen: Option<&str>, here: &Path) -> Option<PathBuf> {
    let script = std::fs::read_to_string(shim).ok()?;
    if !script.contains("libexec/pyenv\" exec") {
        return None;
    }
    let root = script.lines().find_map(|line| line.strip_prefix("export PYENV_ROOT=\""))?.strip_suffix('"')?;
    let root = Path::new(root);
    let version = match chosen {
        Some(version) => version.to_string(),
        None => version_file(root, here)?,
    };
    let version = version.trim();
    if version.is_empty() || version.contains([' ', ':', '/']) || version == "system" {
        return None;
    }
    let interpreter = root.join("versions").join(version).join("bin").join(shim.file_name()?);
    interpreter.is_file().then_some(interpreter)
}

/// The first version named by the nearest `.python-version`, or by pyenv's
/// global `version` file.
fn version_file(root: &Path, here: &Path) -> Option<String> {
    let file = here
        .ancestors()
        .map(|dir| dir.join(".python-version"))
        .find(|file| file.is_file())
        .unwrap_or_else(|| root.join("version"));
    let text = std::fs::read_to_string(file).ok()?;
    let names: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).collect();
    match names.as_slice() {
        [one] => Some((*one).to_string()),
        _ => None,
    }
}

/// Asks the interpreter behind a shim where it is (`sys.executable`).
fn ask_interpreter(shim: &Path) -> Option<PathBuf> {
    let output = std::process::Command::new(shim)
        .args(["-c", "import sys; sys.stdout.write(sys.executable)"])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    let path = PathBuf::from(String::from_utf8(output.stdout).ok()?);
    (output.status.success() && path.is_absolute() && path.is_file() && !is_script(&path)).then_some(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn a_pyenv_shim_resolves_to_the_version_it_names() {
        let root = tempfile::tempdir().unwrap();
        let shim = root.path().join("shims/python3");
        write(
            &shim,
            &format!(
                "#!/usr/bin/env bash\nexport PYENV_ROOT=\"{}\"\nexec \"{}/libexec/pyenv\" exec \"$program\" \"$@\"\n",
                root.path().display(),
                root.path().display()
            ),
        );
        write(&root.path().join("version"), "3.11.7\n");
        let real = root.path().join("versions/3.11.7/bin/python3");
        write(&real, "\x7fELF");
        let project = root.path().join("project/src");
        std::fs::create_dir_all(&project).unwrap();
        assert_eq!(pyenv_version(&shim, None, &project), Some(real.clone()), "the global version");
        assert_eq!(pyenv_version(&shim, Some("3.11.7"), &project), Some(real.clone()), "PYENV_VERSION");
        assert_eq!(pyenv_version(&shim, Some("system"), &project), None, "left to pyenv");
        // The nearest .python-version wins over the global one.
        write(&root.path().join("project/.python-version"), "3.12.1\n");
        let other = root.path().join("versions/3.12.1/bin/python3");
        write(&other, "\x7fELF");
        assert_eq!(pyenv_version(&shim, None, &project), Some(other));
        write(&root.path().join("project/.python-version"), "3.12.1\n3.11.7\n");
        assert_eq!(pyenv_version(&shim, None, &project), None, "several versions are left to pyenv");
        // A version that is not installed is left to pyenv.
        std::fs::remove_file(&real).unwrap();
        assert_eq!(pyenv_version(&shim, Some("3.11.7"), &project), None);
    }

    #[test]
    fn a_real_executable_and_other_commands_stay_as_written() {
        let dir = tempfile::tempdir().unwrap();
        write(&dir.path().join("python3"), "\x7fELF binary");
        let path = dir.path().as_os_str();
        assert_eq!(resolve(&["python3".into(), "-u".into()], path), ["python3", "-u"]);
        assert_eq!(resolve(&["node".into(), "search.js".into()], path), ["node", "search.js"]);
        assert_eq!(resolve(&["./python3".into()], path), ["./python3"]);
    }

    #[test]
    fn an_unknown_shim_is_asked_once_where_its_interpreter_is() {
        let Ok(real) = which_python() else { return };
        let dir = tempfile::tempdir().unwrap();
        let shim = dir.path().join("python3");
        write(&shim, &format!("#!/bin/sh\nexec {} \"$@\"\n", real.display()));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(&shim, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let resolved = resolve(&["python3".into(), "search.py".into()], dir.path().as_os_str());
        assert_ne!(resolved[0], "python3", "the shim is resolved");
        assert!(Path::new(&resolved[0]).is_absolute() && !is_script(Path::new(&resolved[0])), "{resolved:?}");
    }

    /// The real interpreter on this machine's PATH, through any shim.
    fn which_python() -> Result<PathBuf, ()> {
        let output = std::process::Command::new("python3")
            .args(["-c", "import sys; sys.stdout.write(sys.executable)"])
            .output()
            .map_err(|_| ())?;
        Ok(PathBuf::from(String::from_utf8(output.stdout).map_err(|_| ())?))
    }
}
