//! What each layer asks of the kernel: Linux's namespaces, landlock,
//! seccomp, parent-death signals and user switches, behind one set of
//! functions. Other systems get the same functions, which say that the
//! layer is not available there (the probe reports it, and `auto` grades
//! with the layers that remain: resource limits, a session and process
//! group of its own, time limits).

use std::error::Error;

use super::policy::Policy;

/// A step of the sandbox that the system refused, or a layer it lacks. The
/// text is the step and the system's own words (`setresuid(1234000): ...`),
/// as the probe's problems and the trampoline's errors say it; the system's
/// error is kept as the source.
#[derive(Debug, thiserror::Error)]
pub enum SysError {
    /// A step that failed with the system's (or a kernel library's) error.
    #[error("{step}: {source}")]
    Failed {
        /// What was being done (`unshare(NEWNET)`, `mounting /proc`).
        step: String,
        /// What the system said.
        #[source]
        source: Box<dyn Error + Send + Sync>,
    },
    /// Refused by a kernel library (seccomp, landlock), in its own words.
    #[error(transparent)]
    Library(Box<dyn Error + Send + Sync>),
    /// Not available here, or not as asked, with no error of the system's
    /// (`landlock is not available on this system ...`).
    #[error("{0}")]
    Refused(String),
}

impl SysError {
    /// `step` failed with `source`.
    pub fn failed(step: impl Into<String>, source: impl Into<Box<dyn Error + Send + Sync>>) -> SysError {
        SysError::Failed { step: step.into(), source: source.into() }
    }

    /// A kernel library's error.
    pub fn library(source: impl Into<Box<dyn Error + Send + Sync>>) -> SysError {
        SysError::Library(source.into())
    }

    /// A refusal in words.
    pub fn refused(text: impl Into<String>) -> SysError {
        SysError::Refused(text.into())
    }
}

/// A namespace the trampoline can enter.
#[cfg_attr(not(unix), allow(dead_code))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Namespace {
    /// Its own user ids.
    User,
    /// No network interfaces but loopback.
    Network,
    /// Its own System V IPC objects.
    Ipc,
    /// Its own mount table (the filesystem view).
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    Mount,
    /// Its own process ids; the next child is its first process.
    Pid,
}

#[cfg(target_os = "linux")]
pub use linux::*;
#[cfg(not(target_os = "linux"))]
pub use other::*;

#[cfg(target_os = "linux")]
mod linux {
    use super::{Namespace, Policy, SysError};

    /// Installs a seccomp filter on this process and everything it starts:
    /// `socket(AF_UNIX)` fails (a search needs no Unix sockets, and a pathname
    /// socket could reach a server or another student outside the sandbox),
    /// `memfd_create`, System V `shmget` and anonymous `MAP_SHARED` mappings
    /// fail (shared memory escapes the memory limit), and so does
    /// `ioctl(TIOCSTI)`.
    pub(in crate::grader::sandbox) fn deny_escape_syscalls() -> Result<(), SysError> {
        use seccompiler::{
            BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule,
            TargetArch,
        };
        let condition = |arg: u8, op: SeccompCmpOp, value: u64| {
            SeccompCondition::new(arg, SeccompCmpArgLen::Dword, op, value).map_err(SysError::library)
        };
        let rule = |conditions: Vec<SeccompCondition>| SeccompRule::new(conditions).map_err(SysError::library);
        let shared_anonymous = (libc::MAP_SHARED | libc::MAP_ANONYMOUS) as u64;
        let rules = vec![
            (libc::SYS_socket, vec![rule(vec![condition(0, SeccompCmpOp::Eq, libc::AF_UNIX as u64)?])?]),
            (libc::SYS_memfd_create, Vec::new()),
            (libc::SYS_shmget, Vec::new()),
            (
                libc::SYS_mmap,
                vec![rule(vec![condition(3, SeccompCmpOp::MaskedEq(shared_anonymous), shared_anonymous)?])?],
            ),
            (libc::SYS_ioctl, vec![rule(vec![condition(1, SeccompCmpOp::Eq, libc::TIOCSTI)?])?]),
        ];
        let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(SysError::library)?;
        let filter = SeccompFilter::new(
            rules.into_iter().collect(),
            SeccompAction::Allow,
            SeccompAction::Errno(libc::EACCES as u32),
            arch,
        )
        .map_err(SysError::library)?;
        let program: BpfProgram = filter.try_into().map_err(|e: seccompiler::BackendError| SysError::library(e))?;
        seccompiler::apply_filter(&program).map_err(SysError::library)
    }

    /// Asks the kernel to kill this process when the grader (its parent) dies,
    /// so a killed grader leaves no student running; if the grader is already
    /// gone, stops at once.
    pub(in crate::grader::sandbox) fn die_with(grader: Option<rustix::process::Pid>) -> Result<(), SysError> {
        rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL))
            .map_err(|error| SysError::failed("prctl(PR_SET_PDEATHSIG)", error))?;
        if rustix::process::getppid() != grader {
            return Err(SysError::refused("the grader is gone"));
        }
        Ok(())
    }

    pub(in crate::grader::sandbox) fn unshare(namespace: Namespace) -> Result<(), SysError> {
        let flags = match namespace {
            Namespace::User => rustix::thread::UnshareFlags::NEWUSER,
            Namespace::Network => rustix::thread::UnshareFlags::NEWNET,
            Namespace::Ipc => rustix::thread::UnshareFlags::NEWIPC,
            Namespace::Mount => rustix::thread::UnshareFlags::NEWNS,
            Namespace::Pid => rustix::thread::UnshareFlags::NEWPID,
        };
        // SAFETY: `unshare_unsafe` is unsafe because of `CLONE_FILES` (file
        // descriptors of other threads); namespace flags only affect this
        // single-threaded process and its children.
        unsafe { rustix::thread::unshare_unsafe(flags) }
            .map_err(|error| SysError::failed(format!("unshare({flags:?})"), error))
    }

    /// A new user namespace in which this process keeps its own uid and gid.
    pub(in crate::grader::sandbox) fn enter_user_namespace() -> Result<(), SysError> {
        let uid = rustix::process::getuid().as_raw();
        let gid = rustix::process::getgid().as_raw();
        unshare(Namespace::User)?;
        let write = |file: &str, text: String| {
            std::fs::write(format!("/proc/self/{file}"), text)
                .map_err(|error| SysError::failed(format!("writing /proc/self/{file}"), error))
        };
        write("setgroups", "deny".to_string())?;
        write("uid_map", format!("{uid} {uid} 1"))?;
        write("gid_map", format!("{gid} {gid} 1"))
    }

    pub(in crate::grader::sandbox) fn restrict_with_landlock(policy: &Policy) -> Result<Option<u32>, SysError> {
        use landlock::{
            ABI, Access, AccessFs, AccessNet, LandlockStatus, PathBeneath, PathFd, Ruleset, RulesetAttr,
            RulesetCreatedAttr, RulesetStatus, Scope,
        };
        // The newest ABI this code was tested with; older kernels get what they support.
        let abi = ABI::V6;
        let error = |error: landlock::RulesetError| SysError::library(error);
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
            return Err(SysError::refused("this kernel does not enforce landlock rulesets"));
        }
        Ok(match status.landlock {
            LandlockStatus::Available { effective_abi, kernel_abi } => {
                kernel_abi.map(|abi| abi as u32).or_else(|| effective_abi.to_string().parse().ok())
            }
            _ => None,
        })
    }

    /// Switches to `id` as uid and gid, without supplementary groups.
    pub(in crate::grader::sandbox) fn become_user(id: u32) -> Result<(), SysError> {
        use rustix::process::{Gid, Uid, geteuid, getuid};
        use rustix::thread::{set_thread_groups, set_thread_res_gid, set_thread_res_uid};
        set_thread_groups(&[]).map_err(|error| SysError::failed("setgroups", error))?;
        let (uid, gid) = (Uid::from_raw(id), Gid::from_raw(id));
        set_thread_res_gid(gid, gid, gid).map_err(|error| SysError::failed(format!("setresgid({id})"), error))?;
        set_thread_res_uid(uid, uid, uid).map_err(|error| SysError::failed(format!("setresuid({id})"), error))?;
        if getuid() != uid || geteuid() != uid {
            return Err(SysError::refused(format!("still uid {} after setresuid({id})", getuid().as_raw())));
        }
        Ok(())
    }

    /// Assembles a view of `/usr` in a throw-away folder, as [`apply`] would,
    /// then takes it apart again.
    pub(in crate::grader::sandbox) fn probe_view() -> Result<(), SysError> {
        let folder = tempfile::Builder::new()
            .prefix("treegrade-probe-")
            .tempdir()
            .map_err(|error| SysError::failed("cannot make a folder to try it in", error))?;
        super::super::view::trial(folder.path())
    }

    /// Enters the filesystem view (a mount namespace of its own).
    pub(in crate::grader::sandbox) fn enter_view(
        view: &crate::grader::sandbox::View,
        owner: u32,
    ) -> Result<(), SysError> {
        super::super::view::enter(view, owner)
    }

    /// Mounts a `/proc` that shows only the sandbox's own processes.
    pub(in crate::grader::sandbox) fn mount_own_proc() -> Result<(), SysError> {
        super::super::view::mount_own_proc()
    }

    /// Whether this process runs as root.
    pub(in crate::grader::sandbox) fn is_root() -> bool {
        rustix::process::getuid().is_root()
    }

    /// Forbids gaining privileges through `exec` (set-uid binaries).
    pub(in crate::grader::sandbox) fn no_new_privs() -> Result<(), SysError> {
        rustix::thread::set_no_new_privs(true).map_err(|error| SysError::failed("no_new_privs", error))
    }

    /// Makes this process a child subreaper: orphans of its children become its own.
    pub(in crate::grader::sandbox) fn become_subreaper() -> bool {
        rustix::process::set_child_subreaper(Some(rustix::process::getpid())).is_ok()
    }

    /// Keeps other processes of this user from reading this one's memory.
    pub fn set_not_dumpable() {
        let _ = rustix::process::set_dumpable_behavior(rustix::process::DumpableBehavior::NotDumpable);
    }
}

#[cfg(not(target_os = "linux"))]
// Without Unix there is no trampoline to call these (see `no_trampoline.rs`).
#[cfg_attr(not(unix), allow(dead_code))]
mod other {
    use super::{Namespace, Policy, SysError};

    const LINUX_ONLY: &str = "not available on this system (it is a Linux kernel feature)";

    pub(in crate::grader::sandbox) fn deny_escape_syscalls() -> Result<(), SysError> {
        Err(SysError::refused(format!("seccomp is {LINUX_ONLY}")))
    }

    /// Without a parent-death signal, a killed grader cannot take its
    /// students with it; the runner still kills each program's group.
    #[cfg(unix)]
    pub(in crate::grader::sandbox) fn die_with(_grader: Option<rustix::process::Pid>) -> Result<(), SysError> {
        Ok(())
    }

    pub(in crate::grader::sandbox) fn unshare(namespace: Namespace) -> Result<(), SysError> {
        Err(SysError::refused(format!("a {namespace:?} namespace is {LINUX_ONLY}")))
    }

    pub(in crate::grader::sandbox) fn enter_user_namespace() -> Result<(), SysError> {
        unshare(Namespace::User)
    }

    pub(in crate::grader::sandbox) fn restrict_with_landlock(_policy: &Policy) -> Result<Option<u32>, SysError> {
        Err(SysError::refused(format!("landlock is {LINUX_ONLY}")))
    }

    /// Switches to `id` as uid and gid, without supplementary groups.
    #[cfg(unix)]
    pub(in crate::grader::sandbox) fn become_user(id: u32) -> Result<(), SysError> {
        // SAFETY: plain system calls on this single-threaded process.
        unsafe {
            if libc::setgroups(0, std::ptr::null()) != 0 {
                return Err(SysError::failed("setgroups", std::io::Error::last_os_error()));
            }
            if libc::setgid(id as libc::gid_t) != 0 {
                return Err(SysError::failed(format!("setgid({id})"), std::io::Error::last_os_error()));
            }
            if libc::setuid(id as libc::uid_t) != 0 {
                return Err(SysError::failed(format!("setuid({id})"), std::io::Error::last_os_error()));
            }
            if libc::getuid() != id || libc::geteuid() != id {
                return Err(SysError::refused(format!("still uid {} after setuid({id})", libc::getuid())));
            }
        }
        Ok(())
    }

    #[cfg(not(unix))]
    pub(in crate::grader::sandbox) fn become_user(_id: u32) -> Result<(), SysError> {
        Err(SysError::refused("switching users is not available on this system"))
    }

    pub(in crate::grader::sandbox) fn probe_view() -> Result<(), SysError> {
        Err(SysError::refused(format!("a mount namespace is {LINUX_ONLY}")))
    }

    pub(in crate::grader::sandbox) fn no_new_privs() -> Result<(), SysError> {
        Ok(())
    }

    /// Whether this process runs as root (on Windows: never, as far as
    /// handing files to another user goes).
    pub(in crate::grader::sandbox) fn is_root() -> bool {
        #[cfg(unix)]
        {
            rustix::process::getuid().is_root()
        }
        #[cfg(not(unix))]
        {
            false
        }
    }

    pub(in crate::grader::sandbox) fn enter_view(
        _view: &crate::grader::sandbox::View,
        _owner: u32,
    ) -> Result<(), SysError> {
        Err(SysError::refused(format!("a filesystem view is {LINUX_ONLY}")))
    }

    pub(in crate::grader::sandbox) fn mount_own_proc() -> Result<(), SysError> {
        Err(SysError::refused(format!("a /proc of its own is {LINUX_ONLY}")))
    }

    pub(in crate::grader::sandbox) fn become_subreaper() -> bool {
        false
    }

    /// Nothing to do: other systems keep other users out of a process's memory.
    pub fn set_not_dumpable() {}
}
