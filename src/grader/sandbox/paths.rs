//! Which paths a sandboxed program needs: the toolchains, and a readable
//! copy of the kits.

use std::io;
use std::path::{Path, PathBuf};

use crate::grader::fsmode::set_mode;

/// Copies a small folder (the kits) so that everyone can read it.
pub(super) fn copy_readable(from: &Path, to: &Path) -> io::Result<()> {
    std::fs::create_dir_all(to)?;
    set_mode(to, 0o755)?;
    let files = crate::walk::files(from, |_| false).map_err(|e| io::Error::new(e.source.kind(), e.to_string()))?;
    for file in files {
        let target = to.join(file.strip_prefix(from).expect("the walker lists paths under its root"));
        for folder in target.ancestors().skip(1).take_while(|folder| *folder != to) {
            std::fs::create_dir_all(folder)?;
            set_mode(folder, 0o755)?;
        }
        std::fs::copy(&file, &target)?;
        set_mode(&target, 0o644)?;
    }
    Ok(())
}

/// The paths that exist, each once.
pub(super) fn existing(paths: Vec<PathBuf>) -> Vec<PathBuf> {
    let mut kept: Vec<PathBuf> = Vec::new();
    for path in paths {
        if path.exists() && !kept.contains(&path) {
            kept.push(path);
        }
    }
    kept
}

/// Where interpreters and compilers live: the system folders, and the
/// grader's own toolchains (`~/.cargo`, `~/.rustup`, and the top folder of
/// `$HOME` holding each `PATH` entry, such as `~/.pyenv`, and the virtual
/// environment whose `bin` is on `PATH`, so that its packages import).
pub fn toolchain_paths() -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = [
        "/usr",
        "/lib",
        "/lib64",
        "/lib32",
        "/bin",
        "/sbin",
        "/etc",
        "/opt",
        "/proc/self",
        "/sys/devices/system/cpu",
        "/dev/urandom",
        "/dev/random",
        "/dev/zero",
    ]
    .iter()
    .map(PathBuf::from)
    .collect();
    let home = std::env::var_os("HOME").map(PathBuf::from).filter(|home| home.is_absolute() && home != Path::new("/"));
    if let Some(home) = &home {
        paths.push(home.join(".cargo"));
        paths.push(home.join(".rustup"));
    }
    for entry in std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()) {
        if !entry.is_absolute() {
            continue;
        }
        // A virtual environment's `bin` on PATH: its interpreter needs the
        // environment itself (`pyvenv.cfg`, `lib/`) to find its packages.
        if let Some(venv) = entry.parent().filter(|parent| parent.join("pyvenv.cfg").is_file()) {
            paths.push(venv.to_path_buf());
        }
        match home.as_ref().and_then(|home| entry.strip_prefix(home).ok().map(|rest| (home, rest))) {
            Some((home, rest)) => {
                if let Some(top) = rest.components().next() {
                    paths.push(home.join(top));
                }
            }
            None => paths.push(entry),
        }
    }
    paths
}
