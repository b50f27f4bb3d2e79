//! `treegrade __sandbox-exec` (hidden): the sandbox's trampoline.
//!
//! The runner starts this binary instead of a student's command, so that
//! limits, namespaces, landlock and the user switch are applied in a fresh,
//! single-threaded process rather than between `fork` and `exec` of the
//! multi-threaded grader (cargo-nextest's "double spawn"). It then `exec`s
//! the student's program, which inherits everything: same pid, same process
//! group, same pipes, same environment. In a PID namespace the second stage
//! runs the program as its child instead, and says how it ended (see
//! [`sandbox::init_program`]).
//!
//! Also: `--probe` tries every layer on itself and prints what worked (JSON);
//! `--kill-user UID` becomes that dedicated user and kills all its processes.

#[cfg(unix)]
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, ExitCode};

use clap::Args;

use crate::grader::sandbox::{self, EXEC_FAILED_STATUS, Next, Policy, SETUP_FAILED_STATUS, TRAMPOLINE_SUBCOMMAND};

/// Flags of `treegrade __sandbox-exec`.
#[derive(Debug, Args)]
pub struct SandboxExecArgs {
    /// The policy to apply, as JSON.
    #[arg(long, value_name = "JSON", conflicts_with_all = ["probe", "kill_user"])]
    policy: Option<String>,
    /// Try each layer and print what this machine allows, as JSON.
    #[arg(long, conflicts_with = "kill_user")]
    probe: bool,
    /// Kill every process of this dedicated uid.
    #[arg(long, value_name = "UID")]
    kill_user: Option<u32>,
    /// The second stage's pipe to the first, on which it says how the
    /// student's program ended (given by the first stage).
    #[arg(long, value_name = "FD", hide = true)]
    status_fd: Option<i32>,
    /// The student's command.
    #[arg(last = true, value_name = "COMMAND")]
    command: Vec<String>,
}

pub fn run(args: &SandboxExecArgs, context: &super::Context) -> ExitCode {
    if args.probe {
        super::emit(&format!("{}\n", serde_json::to_string(&sandbox::probe_here()).expect("plain data")));
        return ExitCode::SUCCESS;
    }
    if let Some(uid) = args.kill_user {
        return match sandbox::kill_all_of_user(uid) {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => fail(SETUP_FAILED_STATUS, &format!("cannot kill the processes of uid {uid}: {error}")),
        };
    }
    let Some(policy) = &args.policy else {
        return fail(SETUP_FAILED_STATUS, "no policy given (--policy JSON)");
    };
    let policy = match Policy::from_json(policy) {
        Ok(policy) => policy,
        Err(error) => return fail(SETUP_FAILED_STATUS, &error.to_string()),
    };
    let Some((program, program_args)) = args.command.split_first() else {
        return fail(SETUP_FAILED_STATUS, "no command given after `--`");
    };
    // Found (by `main`) before a filesystem view replaces the machine's: the
    // view shows this binary at the same path, for the PID namespace's second stage.
    let trampoline = context.binary().ok_or("the system does not say where this binary is");
    match sandbox::apply(&policy) {
        Err(error) => fail(SETUP_FAILED_STATUS, &error.to_string()),
        Ok(Next::StartInner) => match trampoline {
            Ok(trampoline) => start_inner(trampoline, &policy, &args.command),
            Err(error) => fail(SETUP_FAILED_STATUS, &format!("cannot find the sandbox trampoline: {error}")),
        },
        Ok(Next::Exec) if policy.inner => serve_as_init(program, program_args, args.status_fd),
        Ok(Next::Exec) => exec(program, program_args),
    }
}

/// The second stage, first process of the PID namespace: runs the program
/// as its child and says on the status pipe how it ended, which the first
/// stage repeats to the grader (this process, as process 1 of its
/// namespace, cannot die of a signal it sends itself).
#[cfg(unix)]
fn serve_as_init(program: &str, args: &[String], status_fd: Option<i32>) -> ExitCode {
    use std::io::Write;
    let mut channel = status_fd.and_then(sandbox::status_channel);
    match sandbox::init_program(program, args) {
        Err(error) => fail(EXEC_FAILED_STATUS, &error.to_string()),
        Ok(end) => {
            if let Some(channel) = channel.as_mut() {
                let _ = channel.write_all(end.to_line().as_bytes());
            }
            match end {
                sandbox::ProgramEnd::Exited(code) => ExitCode::from(code as u8),
                sandbox::ProgramEnd::Signaled(signal) => ExitCode::from((128 + signal) as u8),
            }
        }
    }
}

#[cfg(not(unix))]
fn serve_as_init(program: &str, args: &[String], _status_fd: Option<i32>) -> ExitCode {
    exec(program, args)
}

/// Replaces this process with the student's program; only returns on
/// failure. The environment and working folder are inherited as they are.
#[cfg(unix)]
fn exec(program: &str, args: &[String]) -> ExitCode {
    let error = Command::new(program).args(args).exec();
    fail(EXEC_FAILED_STATUS, &format!("cannot start `{program}`: {error}"))
}

/// No `exec` without Unix: the policy's `apply` already refused.
#[cfg(not(unix))]
fn exec(program: &str, _args: &[String]) -> ExitCode {
    fail(EXEC_FAILED_STATUS, &format!("cannot start `{program}`: the sandbox trampoline needs a Unix system"))
}

/// Runs the second stage as the first process of the new PID namespace
/// and ends as the student's program ended, which the second stage says on
/// a pipe: same exit status, or the same signal. Without word from it (it
/// failed before the program started), ends as the second stage did.
#[cfg(unix)]
fn start_inner(trampoline: &std::path::Path, policy: &Policy, command: &[String]) -> ExitCode {
    use std::io::Read;
    use std::os::fd::AsRawFd;
    let inner = policy.inner_stage().to_json();
    let (mut reader, writer) = match std::io::pipe() {
        Ok(pipe) => pipe,
        Err(error) => return fail(SETUP_FAILED_STATUS, &format!("cannot make the status pipe: {error}")),
    };
    // The second stage inherits the writing end (and closes it on its own `exec`).
    if let Err(error) = rustix::io::fcntl_setfd(&writer, rustix::io::FdFlags::empty()) {
        return fail(SETUP_FAILED_STATUS, &format!("cannot pass the status pipe: {error}"));
    }
    let status_fd = writer.as_raw_fd().to_string();
    let status = Command::new(trampoline)
        .args([TRAMPOLINE_SUBCOMMAND, "--policy", &inner, "--status-fd", &status_fd, "--"])
        .args(command)
        .status();
    drop(writer);
    let status = match status {
        Err(error) => return fail(SETUP_FAILED_STATUS, &format!("cannot start the PID namespace: {error}")),
        Ok(status) => status,
    };
    let mut said = String::new();
    let _ = reader.read_to_string(&mut said);
    match sandbox::ProgramEnd::from_line(&said) {
        Some(sandbox::ProgramEnd::Exited(code)) => ExitCode::from(code as u8),
        Some(sandbox::ProgramEnd::Signaled(signal)) => {
            sandbox::die_of_signal(signal);
            ExitCode::from((128 + signal) as u8)
        }
        None => end_as(status),
    }
}

#[cfg(not(unix))]
fn start_inner(trampoline: &std::path::Path, policy: &Policy, command: &[String]) -> ExitCode {
    let inner = policy.inner_stage().to_json();
    let status =
        Command::new(trampoline).args([TRAMPOLINE_SUBCOMMAND, "--policy", &inner, "--"]).args(command).status();
    match status {
        Err(error) => fail(SETUP_FAILED_STATUS, &format!("cannot start the PID namespace: {error}")),
        Ok(status) => end_as(status),
    }
}

/// Ends as the second stage ended: same exit status, or the same signal.
#[cfg(unix)]
fn end_as(status: std::process::ExitStatus) -> ExitCode {
    match (status.code(), status.signal()) {
        (Some(code), _) => ExitCode::from(code as u8),
        (None, Some(signal)) => {
            // Die of the same signal, so the grader reports it as it happened.
            sandbox::die_of_signal(signal);
            ExitCode::from((128 + signal) as u8)
        }
        (None, None) => ExitCode::from(SETUP_FAILED_STATUS as u8),
    }
}

#[cfg(not(unix))]
fn end_as(status: std::process::ExitStatus) -> ExitCode {
    ExitCode::from(status.code().unwrap_or(SETUP_FAILED_STATUS) as u8)
}

/// Says what failed on stderr (the report shows it) and exits with `status`.
fn fail(status: i32, message: &str) -> ExitCode {
    eprintln!("treegrade sandbox: {message}");
    ExitCode::from(status as u8)
}
