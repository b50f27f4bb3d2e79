//! What every command needs from the process, resolved once: as ripgrep
//! builds `HiArgs` once from the parsed flags, `main` builds a [`Context`]
//! and hands it to the commands, which then read neither the environment
//! nor `current_exe` themselves.

use std::path::{Path, PathBuf};

use super::color::ColorChoice;
use crate::grader::sandbox::{Sandbox, SandboxMode};

/// The environment variable that holds the course's secret (per-student
/// trees, fingerprints).
pub const SECRET_VARIABLE: &str = "TREEGRADE_SECRET";

/// The process-wide settings of one run of the command line.
#[derive(Clone, Debug)]
pub struct Context {
    /// `--color`.
    pub color: ColorChoice,
    /// This treegrade binary: the sandbox's trampoline, and what a
    /// Gradescope zip ships. `None` where the system cannot say.
    binary: Option<PathBuf>,
    /// `TREEGRADE_SECRET`, when set and not empty.
    secret: Option<String>,
}

impl Context {
    /// Reads the process's binary and environment.
    pub fn resolve(color: ColorChoice) -> Context {
        Context {
            color,
            binary: std::env::current_exe().ok(),
            secret: std::env::var(SECRET_VARIABLE).ok().filter(|secret| !secret.is_empty()),
        }
    }

    /// A context with exactly these parts (for tests and library callers).
    pub fn new(color: ColorChoice, binary: Option<PathBuf>, secret: Option<String>) -> Context {
        Context { color, binary, secret }
    }

    /// This treegrade binary, if known.
    pub fn binary(&self) -> Option<&Path> {
        self.binary.as_deref()
    }

    /// The course's secret, if one is set.
    pub fn secret(&self) -> Option<&str> {
        self.secret.as_deref()
    }

    /// The sandbox of `--sandbox MODE`, with this binary as its trampoline.
    pub fn sandbox(&self, mode: SandboxMode) -> Sandbox {
        Sandbox::new(mode, self.binary.clone())
    }
}
