//! Running a course's rules program (docs/format.md 7.3) as the grader runs
//! a student's: in the same sandbox (a private copy of its folder, its own
//! user, namespaces and limits where the machine allows them), with the
//! students' environment, a time limit on every answer and capped output.
//! The game layer speaks the protocol; this is only the pipe.

use std::path::Path;
use std::time::{Duration, Instant};

use super::runner::{Interrupted, RunningProgram};
use super::sandbox::{Prepared, RunPlan, Sandbox};
use crate::game::program::{Launcher, Transport, TransportError};

/// How long a rules program may take over one answer.
pub const ANSWER_LIMIT: Duration = Duration::from_secs(10);

/// The launcher the command line installs ([`crate::game::program::set_launcher`]):
/// each rules program starts in `sandbox`, as a student's program would.
pub fn launcher(sandbox: Sandbox) -> Box<Launcher> {
    Box::new(move |command: &[String], dir: &Path| {
        let dir = super::submission::absolute(dir);
        let kits = tempfile::tempdir()
            .map_err(|error| TransportError::caused(format!("could not get a folder to run in: {error}"), error))?;
        let plan =
            RunPlan { submission: &dir, kits: kits.path(), tests: 1, per_test: ANSWER_LIMIT, build_time_limit: None };
        let prepared = sandbox
            .prepare(&plan)
            .map_err(|error| TransportError::caused(format!("could not be sandboxed: {error}"), error))?;
        let spec = super::submission::program_spec(
            command,
            &prepared.submission,
            None,
            &prepared.kits,
            prepared.run.as_ref(),
            &prepared.home,
        );
        let program = RunningProgram::start(&spec).map_err(|error| {
            let message = format!("`{}` could not be started in {}: {error}", command.join(" "), dir.display());
            TransportError::caused(message, error)
        })?;
        Ok(Box::new(RulesProcess { program, _prepared: prepared, _kits: kits }) as Box<dyn Transport>)
    })
}

/// One running rules program, and the sandbox's folders it lives in.
struct RulesProcess {
    program: RunningProgram,
    _prepared: Prepared,
    _kits: tempfile::TempDir,
}

impl Transport for RulesProcess {
    fn ask(&mut self, request: &str) -> Result<String, TransportError> {
        let deadline = Instant::now() + ANSWER_LIMIT;
        let mut line = String::with_capacity(request.len() + 1);
        line.push_str(request);
        line.push('\n');
        let exchange = self.program.send(&line, deadline).and_then(|()| self.program.receive(deadline));
        exchange.map_err(|interrupted| {
            let stderr = self.program.take_stderr().text();
            let stderr = stderr.trim();
            let tail = if stderr.is_empty() { String::new() } else { format!(" (its stderr: {})", last_lines(stderr)) };
            self.program.kill();
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
        self.program.kill();
    }
}

/// The last three lines of a program's stderr, for a message.
fn last_lines(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(3)..].join(" / ")
}
