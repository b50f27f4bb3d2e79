//! The trampoline's side: the only code that applies a policy to a process.
//!
//! It runs in `treegrade __sandbox-exec`, a fresh single-threaded process
//! started by the runner, never in the multi-threaded grader.

use std::path::PathBuf;
use std::time::Duration;

use super::kernel::{
    Namespace, SysError, become_user, deny_escape_syscalls, die_with, enter_user_namespace, enter_view, mount_own_proc,
    no_new_privs, probe_view, restrict_with_landlock, unshare,
};
use super::policy::{FsRules, Limits, Policy};
use super::{DEDICATED_ID_BASE, Next, Probe, SetupError, dedicated_id};

fn setup_error(layer: &'static str) -> impl Fn(SysError) -> SetupError {
    move |cause| SetupError { layer, cause }
}

/// Applies `policy` to the calling process, in the order the module
/// describes. Call it only in a fresh single-threaded process (the
/// trampoline): namespaces and user switches apply to the calling thread.
pub fn apply(policy: &Policy) -> Result<Next, SetupError> {
    // The grader, or the first stage in a PID namespace's second.
    let parent = rustix::process::getppid();
    if !policy.inner {
        // A session of its own: no controlling terminal (no TIOCSTI into the
        // instructor's shell), and a process group the runner kills as a whole.
        rustix::process::setsid()
            .map_err(|error| SysError::failed("setsid", error))
            .map_err(setup_error("own session"))?;
        if policy.user_namespace {
            enter_user_namespace().map_err(setup_error("user namespace"))?;
        }
        if policy.isolate_network {
            unshare(Namespace::Network).map_err(setup_error("network isolation"))?;
            // System V message queues and semaphores of its own, not shared
            // with other students; where the kernel has no IPC namespaces,
            // the seccomp filter still refuses System V shared memory.
            let _ = unshare(Namespace::Ipc);
        }
        if let Some(view) = &policy.view {
            let owner = policy.run_as.unwrap_or_else(|| rustix::process::getuid().as_raw());
            enter_view(view, owner).map_err(setup_error("filesystem view"))?;
        }
        if policy.pid_namespace {
            // The next child is the namespace's first process; when it dies,
            // the kernel kills everything else in the namespace. The limits
            // are the second stage's: this one must still start it.
            unshare(Namespace::Pid).map_err(setup_error("pid namespace"))?;
            die_with(parent).map_err(setup_error("own session"))?;
            return Ok(Next::StartInner);
        }
    }
    if policy.inner && policy.view.is_some() && rustix::process::geteuid().is_root() {
        // Only the sandbox's own processes in `/proc`: not the grader, not other students.
        mount_own_proc().map_err(setup_error("filesystem view"))?;
    }
    set_limits(&policy.limits).map_err(setup_error("resource limits"))?;
    if let Some(processes) = policy.limits.processes {
        // After the user namespace: the count is then this sandbox's alone.
        lower_limit(rustix::process::Resource::Nproc, processes, processes).map_err(setup_error("process limit"))?;
    }
    no_new_privs().map_err(setup_error("resource limits"))?;
    if policy.fs.is_some() || policy.block_tcp {
        let layer = if policy.fs.is_some() { "filesystem isolation" } else { "network isolation" };
        restrict_with_landlock(policy).map_err(setup_error(layer))?;
    }
    if let Some(id) = policy.run_as {
        become_user(id).map_err(setup_error("separate user"))?;
    }
    // Last: a change of user clears the parent-death signal.
    die_with(parent).map_err(setup_error("own session"))?;
    if policy.syscall_filter {
        deny_escape_syscalls().map_err(setup_error("syscall filter"))?;
    }
    Ok(Next::Exec)
}

fn set_limits(limits: &Limits) -> Result<(), SysError> {
    use rustix::process::Resource;
    const MIB: u64 = 1 << 20;
    let memory = limits.memory_mb.saturating_mul(MIB);
    let file_size = limits.file_size_mb.saturating_mul(MIB);
    lower_limit(Resource::Cpu, limits.cpu_seconds, limits.cpu_seconds.saturating_add(1))?;
    lower_limit(Resource::Data, memory, memory)?;
    lower_limit(Resource::Fsize, file_size, file_size)?;
    lower_limit(Resource::Nofile, limits.open_files, limits.open_files)?;
    // The main thread's stack is not counted by RLIMIT_DATA: its hard limit
    // keeps a program from raising it without end; the soft one is kept.
    let stack = limits.memory_mb.min(Limits::STACK_MB).saturating_mul(MIB);
    let soft = rustix::process::getrlimit(Resource::Stack).current.unwrap_or(stack);
    lower_limit(Resource::Stack, soft, stack)?;
    lower_limit(Resource::Core, 0, 0)
}

/// Sets a limit, never above the current hard limit.
fn lower_limit(resource: rustix::process::Resource, soft: u64, hard: u64) -> Result<(), SysError> {
    use rustix::process::{Rlimit, getrlimit, setrlimit};
    let current = getrlimit(resource);
    let hard = current.maximum.map_or(hard, |maximum| maximum.min(hard));
    let soft = soft.min(hard);
    setrlimit(resource, Rlimit { current: Some(soft), maximum: Some(hard) })
        .map_err(|error| SysError::failed(format!("setrlimit({resource:?})"), error))
}

/// The trampoline's probe: tries each layer on itself, in the order
/// [`apply`] uses, and says which worked.
pub fn probe_here() -> Probe {
    let root = rustix::process::getuid().is_root();
    let mut probe = Probe { trampoline: true, root, ..Probe::default() };
    if !root {
        match enter_user_namespace() {
            Ok(()) => probe.user_namespace = true,
            Err(error) => probe.problems.push(format!("process limit: cannot create a user namespace: {error}")),
        }
    }
    match unshare(Namespace::Network) {
        Ok(()) => probe.network_namespace = true,
        Err(error) => probe.problems.push(format!("network isolation: cannot create a network namespace: {error}")),
    }
    // Affects only the children of this process, of which the probe has none.
    match unshare(Namespace::Pid) {
        Ok(()) => probe.pid_namespace = true,
        Err(error) => probe.problems.push(format!("pid namespace: cannot create a PID namespace: {error}")),
    }
    match probe_view() {
        Ok(()) => probe.mount_namespace = true,
        Err(error) => probe.problems.push(format!("filesystem view: {error}")),
    }
    let policy = Policy {
        trampoline: PathBuf::new(),
        limits: Limits::for_session(1, Duration::from_secs(1)),
        user_namespace: false,
        isolate_network: false,
        block_tcp: true,
        fs: Some(FsRules { read: vec![PathBuf::from("/")], read_write: Vec::new() }),
        view: None,
        run_as: None,
        pid_namespace: false,
        inner: false,
        syscall_filter: false,
    };
    match restrict_with_landlock(&policy) {
        Ok(abi) => probe.landlock_abi = abi.or(Some(1)),
        Err(error) => probe.problems.push(format!("filesystem isolation: landlock: {error}")),
    }
    if root {
        match become_user(dedicated_id()) {
            Ok(()) => probe.separate_user = true,
            Err(error) => probe.problems.push(format!("separate user: {error}")),
        }
    }
    match no_new_privs().and_then(|()| deny_escape_syscalls()) {
        Ok(()) => probe.syscall_filter = true,
        Err(error) => probe.problems.push(format!("syscall filter: seccomp: {error}")),
    }
    probe
}

/// The kill command: becomes `id` and sends SIGKILL to every process of that
/// user (`kill(-1)`), which reaches those that left the process group.
pub fn kill_all_of_user(id: u32) -> Result<(), SysError> {
    if id < DEDICATED_ID_BASE {
        return Err(SysError::refused(format!(
            "refusing to kill the processes of uid {id}, which is not a dedicated student uid"
        )));
    }
    become_user(id)?;
    if rustix::process::getuid().is_root() || rustix::process::geteuid().is_root() {
        return Err(SysError::refused("still root: refusing kill(-1)"));
    }
    let everyone = rustix::process::Pid::from_raw(1).expect("1 is a valid pid");
    // kill(-1, SIGKILL): every process this (unprivileged) user may signal.
    match rustix::process::kill_process_group(everyone, rustix::process::Signal::KILL) {
        Ok(()) | Err(rustix::io::Errno::SRCH) => Ok(()),
        Err(error) => Err(SysError::failed("kill(-1)", error)),
    }
}

/// How the student's program ended, as the first process of its PID
/// namespace saw it and hands it to the first stage (one line on the status
/// pipe: `exited N` or `signal N`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProgramEnd {
    /// It exited with this status.
    Exited(i32),
    /// It was killed by this signal.
    Signaled(i32),
}

impl ProgramEnd {
    /// The line written on the status pipe.
    pub fn to_line(self) -> String {
        match self {
            ProgramEnd::Exited(code) => format!("exited {code}\n"),
            ProgramEnd::Signaled(signal) => format!("signal {signal}\n"),
        }
    }

    /// Reads a line written by [`ProgramEnd::to_line`].
    pub fn from_line(line: &str) -> Option<ProgramEnd> {
        let (what, number) = line.trim().split_once(' ')?;
        let number = number.parse().ok()?;
        match what {
            "exited" => Some(ProgramEnd::Exited(number)),
            "signal" => Some(ProgramEnd::Signaled(number)),
            _ => None,
        }
    }
}

/// The status pipe the first stage passed to the second by its number: taken
/// over as a file, closed on `exec` so that the student's program never
/// holds it. `None` when `raw` is not an open descriptor.
pub fn status_channel(raw: i32) -> Option<std::fs::File> {
    use std::os::fd::{BorrowedFd, FromRawFd};
    if raw < 3 {
        return None;
    }
    // SAFETY: the descriptor is only borrowed to ask whether it is open.
    let open = rustix::io::fcntl_getfd(unsafe { BorrowedFd::borrow_raw(raw) }).is_ok();
    if !open {
        return None;
    }
    // SAFETY: the first stage opened this descriptor for this process alone,
    // and nothing else in this single-threaded process owns it.
    let file = unsafe { std::fs::File::from_raw_fd(raw) };
    rustix::io::fcntl_setfd(&file, rustix::io::FdFlags::CLOEXEC).ok()?;
    Some(file)
}

/// The first process of the PID namespace: starts the student's program as
/// its child, reaps every process of the namespace that ends, and returns
/// once the program itself has ended, with how it ended. The program is then
/// not process 1, to which the kernel delivers no signal it has no handler
/// for: its own `abort()` or a fault kills it as it would anywhere else.
/// Returning ends the namespace, and the kernel kills what is left in it.
pub fn init_program(program: &str, args: &[String]) -> Result<ProgramEnd, SysError> {
    use std::os::unix::process::CommandExt;
    // fork and exec rather than `Command::spawn`: spawning maps a stack for
    // the child, which the memory limit, already set here and counting this
    // process's allocator's reservations, refuses.
    // SAFETY: this process is single-threaded (the trampoline), so the child
    // may run any code before its `exec`.
    let forked = unsafe { libc::fork() };
    if forked < 0 {
        return Err(SysError::failed(format!("cannot start `{program}`: fork"), std::io::Error::last_os_error()));
    }
    if forked == 0 {
        let error = std::process::Command::new(program).args(args).exec();
        eprintln!("treegrade sandbox: cannot start `{program}`: {error}");
        std::process::exit(super::EXEC_FAILED_STATUS);
    }
    let program_pid = rustix::process::Pid::from_raw(forked).expect("fork gives a positive pid");
    // This process keeps none of the program's pipes: when the program closes
    // its output, the grader sees it closed.
    let (quiet, _writer) = std::io::pipe().map_err(|error| SysError::failed("pipe", error))?;
    let _ = rustix::stdio::dup2_stdin(&quiet);
    let _ = rustix::stdio::dup2_stdout(&_writer);
    loop {
        match rustix::process::wait(rustix::process::WaitOptions::empty()) {
            Ok(Some((pid, status))) if pid == program_pid => {
                if let Some(signal) = status.terminating_signal() {
                    return Ok(ProgramEnd::Signaled(signal));
                }
                return Ok(ProgramEnd::Exited(status.exit_status().unwrap_or(1)));
            }
            Ok(_) | Err(rustix::io::Errno::INTR) => {}
            Err(error) => return Err(SysError::failed("waiting for the program", error)),
        }
    }
}

/// Ends this process by `signal`, as the program it stood for ended: the
/// grader then reads the same wait status as without a sandbox. The
/// signal's default action is restored first (the Rust runtime handles
/// SIGSEGV and ignores SIGPIPE), and no core is written. Returns only when
/// the signal did not end the process.
pub fn die_of_signal(signal: i32) {
    use rustix::process::{Resource, Rlimit, setrlimit};
    let _ = setrlimit(Resource::Core, Rlimit { current: Some(0), maximum: Some(0) });
    // SAFETY: single-threaded, and nothing runs after the signal but the
    // kernel's default action; the sets are plain values on this stack.
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, signal);
        libc::sigprocmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
        libc::raise(signal);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn program_ends_travel_as_lines() {
        for end in [ProgramEnd::Exited(0), ProgramEnd::Exited(139), ProgramEnd::Signaled(6)] {
            assert_eq!(ProgramEnd::from_line(&end.to_line()), Some(end));
        }
        assert_eq!(ProgramEnd::from_line(""), None);
        assert_eq!(ProgramEnd::from_line("signal x"), None);
    }
}
