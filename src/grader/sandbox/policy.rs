//! What the trampoline is asked to apply: limits, paths and namespaces, as
//! plain data that travels to it as JSON.

use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// Resource limits of one sandboxed program (each of its processes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// `RLIMIT_CPU`: CPU seconds of the whole process lifetime (SIGXCPU, then SIGKILL a second later).
    pub cpu_seconds: u64,
    /// `RLIMIT_DATA`, in MiB: heap and other private writable memory.
    pub memory_mb: u64,
    /// `RLIMIT_FSIZE`, in MiB: the largest file it may write.
    pub file_size_mb: u64,
    /// `RLIMIT_NOFILE`: open file descriptors.
    pub open_files: u64,
    /// `RLIMIT_NPROC`: processes and threads of its user. Only meaningful for a
    /// user of its own; `None` leaves the limit alone.
    pub processes: Option<u64>,
}

impl Limits {
    /// Memory of a searcher.
    pub const MEMORY_MB: u64 = 1024;
    /// Largest file a searcher may write.
    pub const FILE_SIZE_MB: u64 = 64;
    /// The hard limit of the main thread's stack, which `RLIMIT_DATA` does
    /// not count (never above the memory limit).
    pub const STACK_MB: u64 = 256;
    /// Open files of a searcher.
    pub const OPEN_FILES: u64 = 256;
    /// Processes and threads of a searcher (a JVM needs a few dozen threads).
    pub const PROCESSES: u64 = 128;
    /// The CPU budget of a session is never above this.
    pub const MAX_CPU_SECONDS: u64 = 3600;

    /// Limits of a searcher. One process serves every test of a session, so
    /// the CPU budget is the whole session's: tests x per-test limit (at least
    /// 10 s, at most an hour). The wall-clock limit of each test stays the
    /// runner's; this only stops CPU burnt where no deadline watches.
    pub fn for_session(tests: usize, per_test: Duration) -> Limits {
        let per_test = per_test.as_secs_f64().ceil().max(1.0) as u64;
        Limits {
            cpu_seconds: per_test.saturating_mul(tests.max(1) as u64).clamp(10, Limits::MAX_CPU_SECONDS),
            memory_mb: Limits::MEMORY_MB,
            file_size_mb: Limits::FILE_SIZE_MB,
            open_files: Limits::OPEN_FILES,
            processes: Some(Limits::PROCESSES),
        }
    }

    /// No limits at all (`--sandbox off`): setting them changes nothing.
    pub fn unlimited() -> Limits {
        Limits {
            cpu_seconds: u64::MAX,
            memory_mb: u64::MAX,
            file_size_mb: u64::MAX,
            open_files: u64::MAX,
            processes: None,
        }
    }

    /// Limits of a build: compilers need more memory, files and processes.
    pub fn for_build(time_limit: Duration) -> Limits {
        Limits {
            cpu_seconds: time_limit.as_secs().max(10),
            memory_mb: 4096,
            file_size_mb: 1024,
            open_files: 4096,
            processes: Some(1024),
        }
    }
}

/// Which paths a sandboxed program may use; everything else is out of reach.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FsRules {
    /// Read and execute, recursively.
    pub read: Vec<PathBuf>,
    /// Read, write, create and delete, recursively.
    pub read_write: Vec<PathBuf>,
}

/// A filesystem view: a fresh root in a mount namespace of its own, holding
/// only the listed paths, each at its own place. Everything else on the
/// machine (other students, the assignment, the grader's home, `/tmp`) does
/// not exist there, and what does exist cannot be changed, not even its
/// modes, times or extended attributes, but for the scratch folders.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct View {
    /// An empty folder, the grader's, where the root is assembled.
    pub root: PathBuf,
    /// Shown read-only (a symbolic link is shown as a link, with its target).
    pub read: Vec<PathBuf>,
    /// Shown writable: the program's home and, for a build, its submission copy.
    pub read_write: Vec<PathBuf>,
    /// A home of its own: a fresh tmpfs of this many MiB at this path
    /// (instead of the scratch folder bound there), owned by the program's
    /// user. Everything the program writes is then bounded in total, not
    /// only file by file, and nothing passes from one program to the next.
    #[serde(default)]
    pub fresh_home: Option<(PathBuf, u64)>,
}

/// What the trampoline applies before it `exec`s the student's program.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Policy {
    /// The treegrade binary that serves as the trampoline (not sent to it).
    #[serde(skip)]
    pub trampoline: PathBuf,
    /// Resource limits.
    pub limits: Limits,
    /// Enter a new user namespace first (unprivileged graders: it is what allows the others).
    pub user_namespace: bool,
    /// Enter a new network namespace: no network at all, not even loopback.
    pub isolate_network: bool,
    /// Deny TCP bind and connect with landlock (where no network namespace is possible).
    pub block_tcp: bool,
    /// Landlock filesystem rules; `None` leaves the filesystem alone.
    pub fs: Option<FsRules>,
    /// A filesystem of its own, in which only these paths exist (read-only
    /// but for the scratch folders); `None` keeps the machine's.
    #[serde(default)]
    pub view: Option<View>,
    /// Run as this uid and gid, with no supplementary groups (root graders only).
    pub run_as: Option<u32>,
    /// Start the program as the first process of a PID namespace of its
    /// own, so that every process it starts dies with it, even those that
    /// left its session.
    #[serde(default)]
    pub pid_namespace: bool,
    /// The second stage inside the PID namespace: the session, limits and
    /// namespaces are already in place.
    #[serde(default)]
    pub inner: bool,
    /// A seccomp filter: no Unix-domain sockets (which could reach servers
    /// or other students outside the sandbox), no anonymous shared memory
    /// (which the memory limit does not count), no `TIOCSTI`.
    #[serde(default)]
    pub syscall_filter: bool,
}

impl Policy {
    /// The policy of `--sandbox off`: no confinement, but the program still
    /// gets a session of its own (no controlling terminal, so no keystrokes
    /// pushed into the instructor's shell) and dies with the grader.
    pub fn session_only(trampoline: PathBuf) -> Policy {
        Policy {
            trampoline,
            limits: Limits::unlimited(),
            user_namespace: false,
            isolate_network: false,
            block_tcp: false,
            fs: None,
            view: None,
            run_as: None,
            pid_namespace: false,
            inner: false,
            syscall_filter: false,
        }
    }

    /// The policy as the trampoline's argument.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a policy is plain data")
    }

    /// Reads a policy given to the trampoline.
    pub fn from_json(text: &str) -> Result<Policy, PolicyError> {
        serde_json::from_str(text).map_err(PolicyError)
    }
}

/// A policy the trampoline could not read.
#[derive(Debug, thiserror::Error)]
#[error("the sandbox policy is not valid: {0}")]
pub struct PolicyError(#[source] serde_json::Error);

impl Policy {
    /// The policy of the second stage, inside the PID namespace: what is left
    /// to apply in the process that executes the program.
    pub fn inner_stage(&self) -> Policy {
        Policy { inner: true, pid_namespace: false, ..self.clone() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cpu_budget_is_the_sessions() {
        assert_eq!(Limits::for_session(20, Duration::from_secs(10)).cpu_seconds, 200);
        assert_eq!(Limits::for_session(1, Duration::from_millis(500)).cpu_seconds, 10);
        assert_eq!(Limits::for_session(10_000, Duration::from_secs(10)).cpu_seconds, Limits::MAX_CPU_SECONDS);
    }

    #[test]
    fn policies_survive_the_trip_to_the_trampoline() {
        let policy = Policy {
            trampoline: PathBuf::from("/usr/bin/treegrade"),
            limits: Limits::for_session(3, Duration::from_secs(2)),
            user_namespace: true,
            isolate_network: true,
            block_tcp: true,
            fs: Some(FsRules { read: vec!["/usr".into()], read_write: vec!["/tmp/x".into()] }),
            view: Some(View {
                root: "/tmp/v".into(),
                read: vec!["/usr".into()],
                read_write: vec!["/tmp/x".into()],
                fresh_home: Some(("/tmp/x".into(), 64)),
            }),
            run_as: Some(crate::grader::sandbox::DEDICATED_ID_BASE + 5),
            pid_namespace: true,
            inner: false,
            syscall_filter: true,
        };
        let back = Policy::from_json(&policy.to_json()).unwrap();
        assert_eq!(back, Policy { trampoline: PathBuf::new(), ..policy });
    }
}
