//! Running a course's rules program (docs/format.md 7.3) as the grader runs
//! a student's: in the same sandbox (a private copy of its folder, its own
//! user, namespaces and limits where the machine allows them), with the
//! students' environment, a time limit on every answer and capped output.
//! The game layer speaks the protocol; this is only the pipe.

use std::path::Path;
use std::time::{Duration, Instant};

use super::runner::{Interrupted, RunningProgram};
use super::sandbox::{PrepareError, Prepared, RunPlan, Sandbox};
use crate::game::program::{Launcher, Transport, TransportError};

/// How long a rules program may take over one answer.
pub const ANSWER_LIMIT: Duration = Duration::from_secs(10);

/// A program of the course's (a rules program, the MIT 6.034 lab reader)
/// running in the sandbox a student's program would, with the folders it
/// lives in: they are removed when this is dropped.
pub struct SandboxedProgram {
    /// The program.
    pub program: RunningProgram,
    _prepared: Prepared,
    _kits: tempfile::TempDir,
}

/// Which step of starting a course's program failed.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// No temporary folder for the kits.
    #[error("could not get a folder to run in")]
    Folder(#[source] std::io::Error),
    /// The sandbox could not be set up.
    #[error("could not be sandboxed")]
    Sandbox(#[source] PrepareError),
    /// The program could not be started.
    #[error("could not be started")]
    Start(#[source] std::io::Error),
}

/// Starts `command` on a private copy of `dir` in `sandbox`, with
/// `per_answer` as its limit on one exchange (the sandbox's CPU budget).
pub fn start_sandboxed(
    sandbox: &Sandbox,
    command: &[String],
    dir: &Path,
    per_answer: Duration,
) -> Result<SandboxedProgram, StartError> {
    let kits = tempfile::tempdir().map_err(StartError::Folder)?;
    let plan = RunPlan { submission: dir, kits: kits.path(), tests: 1, per_test: per_answer, build_time_limit: None };
    let prepared = sandbox.prepare(&plan).map_err(StartError::Sandbox)?;
    let spec = super::submission::program_spec(
        command,
        &prepared.submission,
        None,
        &prepared.kits,
        prepared.run.as_ref(),
        &prepared.home,
    );
    let program = RunningProgram::start(&spec).map_err(StartError::Start)?;
    Ok(SandboxedProgram { program, _prepared: prepared, _kits: kits })
}

/// The launcher the command line installs ([`crate::game::program::set_launcher`]):
/// each rules program starts in `sandbox`, as a student's program would.
pub fn launcher(sandbox: Sandbox) -> Box<Launcher> {
    Box::new(move |command: &[String], dir: &Path| {
        let dir = super::submission::absolute(dir);
        let started = start_sandboxed(&sandbox, command, &dir, ANSWER_LIMIT).map_err(|error| match error {
            StartError::Folder(error) => {
                TransportError::caused(format!("could not get a folder to run in: {error}"), error)
            }
            StartError::Sandbox(error) => TransportError::caused(format!("could not be sandboxed: {error}"), error),
            StartError::Start(error) => {
                let message = format!("`{}` could not be started in {}: {error}", command.join(" "), dir.display());
                TransportError::caused(message, error)
            }
        })?;
        Ok(Box::new(RulesProcess { started }) as Box<dyn Transport>)
    })
}

/// One running rules program.
struct RulesProcess {
    started: SandboxedProgram,
}

impl Transport for RulesProcess {
    fn ask(&mut self, request: &str) -> Result<String, TransportError> {
        let deadline = Instant::now() + ANSWER_LIMIT;
        let mut line = String::with_capacity(request.len() + 1);
        line.push_str(request);
        line.push('\n');
        let exchange = self.started.program.send(&line, deadline).and_then(|()| self.started.program.receive(deadline));
        exchange.map_err(|interrupted| {
            let stderr = self.started.program.take_stderr().text();
            let stderr = stderr.trim();
            let tail = if stderr.is_empty() { String::new() } else { format!(" (its stderr: {})", last_lines(stderr)) };
            self.started.program.kill();
            match interrupted {
                Interrupted::TimedOut => {
                    TransportError::new(format!("did not answer within {} s{tail}", ANSWER_LIMIT.as_secs()))
                }
                Interrupted::Ended(how) => TransportError::new(format!("{how}{tail}")),
                Interrupted::LineTooLong => TransportError::new(format!("printed a line longer than 1 MiB{tail}")),
                Interrupted::Io(error) => {
                    TransportError::caused(format!("could not be talked to ({error}){tail}"), error)
                }
            }
        })
    }
}

impl Drop for RulesProcess {
    fn drop(&mut self) {
        self.started.program.kill();
    }
}

/// The last three lines of a program's stderr, for a message.
pub fn last_lines(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(3)..].join(" / ")
}
