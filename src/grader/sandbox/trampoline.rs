//! The trampoline's side: the only code that applies a policy to a process.
//!
//! It runs in `treegrade __sandbox-exec`, a fresh single-threaded process
//! started by the runner, never in the multi-threaded grader.

use std::path::PathBuf;
use std::time::Duration;

use super::policy::{FsRules, Limits, Policy};
use super::view;
use super::{DEDICATED_ID_BASE, Probe, dedicated_id};

/// Why the trampoline could not apply a layer.
#[derive(Debug)]
pub struct SetupError {
    /// The layer, as [`Layers`](super::Layers) names it.
    pub layer: &'static str,
    /// What failed.
    pub message: String,
}

impl std::fmt::Display for SetupError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot set up the {} layer: {}", self.layer, self.message)
    }
}

fn setup_error(layer: &'static str) -> impl Fn(String) -> SetupError {
    move |message| SetupError { layer, message }
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
        rustix::process::setsid().map_err(|error| format!("setsid: {error}")).map_err(setup_error("own session"))?;
        if policy.user_namespace {
            enter_user_namespace().map_err(setup_error("user namespace"))?;
        }
        if policy.isolate_network {
            unshare(rustix::thread::UnshareFlags::NEWNET).map_err(setup_error("network isolation"))?;
            // System V message queues and semaphores of its own, not shared
            // with other students; where the kernel has no IPC namespaces,
            // the seccomp filter still refuses System V shared memory.
            let _ = unshare(rustix::thread::UnshareFlags::NEWIPC);
        }
        if let Some(view) = &policy.view {
            let owner = policy.run_as.unwrap_or_else(|| rustix::process::getuid().as_raw());
            view::enter(view, owner).map_err(setup_error("filesystem view"))?;
        }
        if policy.pid_namespace {
            // The next child is the namespace's first process; when it dies,
            // the kernel kills everything else in the namespace. The limits
            // are the second stage's: this one must still start it.
            unshare(rustix::thread::UnshareFlags::NEWPID).map_err(setup_error("pid namespace"))?;
            die_with(parent).map_err(setup_error("own session"))?;
            return Ok(Next::StartInner);
        }
    }
    if policy.inner && policy.view.is_some() && rustix::process::geteuid().is_root() {
        // Only the sandbox's own processes in `/proc`: not the grader, not other students.
        view::mount_own_proc().map_err(setup_error("filesystem view"))?;
    }
    set_limits(&policy.limits).map_err(setup_error("resource limits"))?;
    if let Some(processes) = policy.limits.processes {
        // After the user namespace: the count is then this sandbox's alone.
        lower_limit(rustix::process::Resource::Nproc, processes, processes).map_err(setup_error("process limit"))?;
    }
    rustix::thread::set_no_new_privs(true)
        .map_err(|error| format!("no_new_privs: {error}"))
        .map_err(setup_error("resource limits"))?;
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

/// Installs a seccomp filter on this process and everything it starts:
/// `socket(AF_UNIX)` fails (a search needs no Unix sockets, and a pathname
/// socket could reach a server or another student outside the sandbox),
/// `memfd_create`, System V `shmget` and anonymous `MAP_SHARED` mappings
/// fail (shared memory escapes the memory limit), and so does
/// `ioctl(TIOCSTI)`.
fn deny_escape_syscalls() -> Result<(), String> {
    use seccompiler::{
        BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule,
        TargetArch,
    };
    let condition = |arg: u8, op: SeccompCmpOp, value: u64| {
        SeccompCondition::new(arg, SeccompCmpArgLen::Dword, op, value).map_err(|e| e.to_string())
    };
    let rule = |conditions: Vec<SeccompCondition>| SeccompRule::new(conditions).map_err(|e| e.to_string());
    let shared_anonymous = (libc::MAP_SHARED | libc::MAP_ANONYMOUS) as u64;
    let rules = vec![
        (libc::SYS_socket, vec![rule(vec![condition(0, SeccompCmpOp::Eq, libc::AF_UNIX as u64)?])?]),
        (libc::SYS_memfd_create, Vec::new()),
        (libc::SYS_shmget, Vec::new()),
        (libc::SYS_mmap, vec![rule(vec![condition(3, SeccompCmpOp::MaskedEq(shared_anonymous), shared_anonymous)?])?]),
        (libc::SYS_ioctl, vec![rule(vec![condition(1, SeccompCmpOp::Eq, libc::TIOCSTI)?])?]),
    ];
    let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(|e| e.to_string())?;
    let filter = SeccompFilter::new(
        rules.into_iter().collect(),
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EACCES as u32),
        arch,
    )
    .map_err(|e| e.to_string())?;
    let program: BpfProgram = filter.try_into().map_err(|e: seccompiler::BackendError| e.to_string())?;
    seccompiler::apply_filter(&program).map_err(|e| e.to_string())
}

/// What the trampoline does once [`apply`] has set up its part.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// Execute the student's program.
    Exec,
    /// Start the second stage (this binary again, with [`Policy::inner_stage`])
    /// as the first process of the new PID namespace, and wait for it.
    StartInner,
}

/// Asks the kernel to kill this process when the grader (its parent) dies,
/// so a killed grader leaves no student running; if the grader is already
/// gone, stops at once.
fn die_with(grader: Option<rustix::process::Pid>) -> Result<(), String> {
    rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL))
        .map_err(|error| format!("prctl(PR_SET_PDEATHSIG): {error}"))?;
    if rustix::process::getppid() != grader {
        return Err("the grader is gone".to_string());
    }
    Ok(())
}

fn set_limits(limits: &Limits) -> Result<(), String> {
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
fn lower_limit(resource: rustix::process::Resource, soft: u64, hard: u64) -> Result<(), String> {
    use rustix::process::{Rlimit, getrlimit, setrlimit};
    let current = getrlimit(resource);
    let hard = current.maximum.map_or(hard, |maximum| maximum.min(hard));
    let soft = soft.min(hard);
    setrlimit(resource, Rlimit { current: Some(soft), maximum: Some(hard) })
        .map_err(|error| format!("setrlimit({resource:?}): {error}"))
}

pub(super) fn unshare(flags: rustix::thread::UnshareFlags) -> Result<(), String> {
    // SAFETY: `unshare_unsafe` is unsafe because of `CLONE_FILES` (file
    // descriptors of other threads); namespace flags only affect this
    // single-threaded process and its children.
    unsafe { rustix::thread::unshare_unsafe(flags) }.map_err(|error| format!("unshare({flags:?}): {error}"))
}

/// A new user namespace in which this process keeps its own uid and gid.
fn enter_user_namespace() -> Result<(), String> {
    let uid = rustix::process::getuid().as_raw();
    let gid = rustix::process::getgid().as_raw();
    unshare(rustix::thread::UnshareFlags::NEWUSER)?;
    let write = |file: &str, text: String| {
        std::fs::write(format!("/proc/self/{file}"), text)
            .map_err(|error| format!("writing /proc/self/{file}: {error}"))
    };
    write("setgroups", "deny".to_string())?;
    write("uid_map", format!("{uid} {uid} 1"))?;
    write("gid_map", format!("{gid} {gid} 1"))
}

fn restrict_with_landlock(policy: &Policy) -> Result<Option<u32>, String> {
    use landlock::{
        ABI, Access, AccessFs, AccessNet, LandlockStatus, PathBeneath, PathFd, Ruleset, RulesetAttr,
        RulesetCreatedAttr, RulesetStatus, Scope,
    };
    // The newest ABI this code was tested with; older kernels get what they support.
    let abi = ABI::V6;
    let error = |error: landlock::RulesetError| error.to_string();
    let mut ruleset = Ruleset::default();
    if policy.fs.is_some() {
        ruleset = ruleset.handle_access(AccessFs::from_all(abi)).map_err(error)?;
    }
    if policy.block_tcp {
        ruleset = ruleset.handle_access(AccessNet::from_all(abi)).map_err(error)?;
    }
    let mut created = ruleset.scope(Scope::from_all(abi)).map_err(error)?.create().map_err(error)?;
    if let Some(fs) = &policy.fs {
        let rules = fs
            .read
            .iter()
            .map(|path| (path, AccessFs::from_read(abi)))
            .chain(fs.read_write.iter().map(|path| (path, AccessFs::from_all(abi))));
        for (path, access) in rules {
            let Ok(fd) = PathFd::new(path) else { continue };
            let access = if path.is_dir() { access } else { access & AccessFs::from_file(abi) };
            created = created.add_rule(PathBeneath::new(fd, access)).map_err(error)?;
        }
    }
    let status = created.restrict_self().map_err(error)?;
    if status.ruleset == RulesetStatus::NotEnforced {
        return Err("this kernel does not enforce landlock rulesets".to_string());
    }
    Ok(match status.landlock {
        LandlockStatus::Available { effective_abi, kernel_abi } => {
            kernel_abi.map(|abi| abi as u32).or_else(|| effective_abi.to_string().parse().ok())
        }
        _ => None,
    })
}

/// Switches to `id` as uid and gid, without supplementary groups.
fn become_user(id: u32) -> Result<(), String> {
    use rustix::process::{Gid, Uid, geteuid, getuid};
    use rustix::thread::{set_thread_groups, set_thread_res_gid, set_thread_res_uid};
    set_thread_groups(&[]).map_err(|error| format!("setgroups: {error}"))?;
    let (uid, gid) = (Uid::from_raw(id), Gid::from_raw(id));
    set_thread_res_gid(gid, gid, gid).map_err(|error| format!("setresgid({id}): {error}"))?;
    set_thread_res_uid(uid, uid, uid).map_err(|error| format!("setresuid({id}): {error}"))?;
    if getuid() != uid || geteuid() != uid {
        return Err(format!("still uid {} after setresuid({id})", getuid().as_raw()));
    }
    Ok(())
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
    match unshare(rustix::thread::UnshareFlags::NEWNET) {
        Ok(()) => probe.network_namespace = true,
        Err(error) => probe.problems.push(format!("network isolation: cannot create a network namespace: {error}")),
    }
    // Affects only the children of this process, of which the probe has none.
    match unshare(rustix::thread::UnshareFlags::NEWPID) {
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
    match rustix::thread::set_no_new_privs(true).map_err(|e| e.to_string()).and_then(|()| deny_escape_syscalls()) {
        Ok(()) => probe.syscall_filter = true,
        Err(error) => probe.problems.push(format!("syscall filter: seccomp: {error}")),
    }
    probe
}

/// The kill command: becomes `id` and sends SIGKILL to every process of that
/// user (`kill(-1)`), which reaches those that left the process group.
pub fn kill_all_of_user(id: u32) -> Result<(), String> {
    if id < DEDICATED_ID_BASE {
        return Err(format!("refusing to kill the processes of uid {id}, which is not a dedicated student uid"));
    }
    become_user(id)?;
    if rustix::process::getuid().is_root() || rustix::process::geteuid().is_root() {
        return Err("still root: refusing kill(-1)".to_string());
    }
    let everyone = rustix::process::Pid::from_raw(1).expect("1 is a valid pid");
    // kill(-1, SIGKILL): every process this (unprivileged) user may signal.
    match rustix::process::kill_process_group(everyone, rustix::process::Signal::KILL) {
        Ok(()) | Err(rustix::io::Errno::SRCH) => Ok(()),
        Err(error) => Err(format!("kill(-1): {error}")),
    }
}

/// Assembles a view of `/usr` in a throw-away folder, as [`apply`] would,
/// then takes it apart again.
fn probe_view() -> Result<(), String> {
    let folder = tempfile::Builder::new()
        .prefix("treegrade-probe-")
        .tempdir()
        .map_err(|error| format!("cannot make a folder to try it in: {error}"))?;
    view::trial(folder.path())
}
