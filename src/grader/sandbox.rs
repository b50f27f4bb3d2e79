//! Layered defences around student programs, and which of them this machine allows.
//!
//! Student code is untrusted. Some defences are always on and live in the
//! [`runner`](super::runner): each program runs in its own process group,
//! killed as a whole; the grader is a child subreaper and reaps escaped
//! processes; every test has a wall-clock limit; output is capped; the
//! environment is empty but for a few variables; `HOME` and `TMPDIR` are a
//! fresh scratch folder.
//!
//! The other layers depend on what the kernel allows, so they are probed once
//! per process ([`Sandbox::probe`]) and applied by a trampoline: the runner
//! starts `treegrade __sandbox-exec` instead of the student's command, a fresh
//! single-threaded process that applies the [`Policy`] to itself, in this
//! order, and only then `exec`s the student's program ([`apply`]):
//!
//! 1. resource limits: CPU seconds, memory (`RLIMIT_DATA`, not `RLIMIT_AS`,
//!    which breaks the JVM and Go), file size, open files, no core dumps;
//! 2. no network: a new network namespace (inside a new user namespace when
//!    the grader is not root);
//! 3. a process-count limit, meaningful only for a user of its own (the
//!    dedicated user below, or the user namespace);
//! 4. landlock: read the submission, the kits and the toolchain, write only the
//!    scratch folder; signals and abstract sockets stay inside the sandbox;
//! 5. when the grader runs as root: a dedicated unprivileged user and group,
//!    unique to the grading run, so that the process limit counts only this
//!    run's processes and everything it left behind can be killed by user.
//!
//! Every report records which layers were active ([`Layers`]). `--sandbox
//! strict` refuses to grade when a layer is missing; `auto` uses what the
//! probe found; `off` keeps only the built-in defences.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::scratch::{self, Scratch};

/// The hidden subcommand of the treegrade binary that applies a policy and `exec`s.
pub const TRAMPOLINE_SUBCOMMAND: &str = "__sandbox-exec";

/// The exit status of the trampoline when it cannot apply a layer it was asked for.
pub const SETUP_FAILED_STATUS: i32 = 121;

/// The exit status of the trampoline when the student's program cannot be executed.
pub const EXEC_FAILED_STATUS: i32 = 127;

/// First uid (and gid) of the range given to student programs when the grader runs as root.
/// Far above any account's, below `i32::MAX`: `1e9 + (pid << 8 | counter)` stays unique
/// across graders running at once.
pub const DEDICATED_ID_BASE: u32 = 1_000_000_000;

/// What the memory limit does not count: there is no per-run cgroup yet.
pub const SHARED_MEMORY_NOTE: &str =
    "memory limit: RLIMIT_DATA counts private memory only; shared memory (MAP_SHARED) is not counted";

/// Why root graders have no process limit without a dedicated user.
const ROOT_NEEDS_SEPARATE_USER: &str = "process limit: root ignores RLIMIT_NPROC, so it needs the separate user";

/// How much sandboxing to ask for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum SandboxMode {
    /// Every layer this machine allows (probed at start-up).
    #[default]
    Auto,
    /// Every layer, or refuse to grade.
    Strict,
    /// Only the built-in defences (process group, time limits, output caps,
    /// empty environment, scratch folder).
    Off,
}

impl SandboxMode {
    /// `auto`, `strict` or `off`.
    pub fn name(self) -> &'static str {
        match self {
            SandboxMode::Auto => "auto",
            SandboxMode::Strict => "strict",
            SandboxMode::Off => "off",
        }
    }
}

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

/// What the trampoline applies before it `exec`s the student's program.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Policy {
    /// The treegrade binary that serves as the trampoline (not sent to it).
    #[serde(skip)]
    pub helper: PathBuf,
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
    pub fn session_only(helper: PathBuf) -> Policy {
        Policy {
            helper,
            limits: Limits::unlimited(),
            user_namespace: false,
            isolate_network: false,
            block_tcp: false,
            fs: None,
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
    pub fn from_json(text: &str) -> Result<Policy, String> {
        serde_json::from_str(text).map_err(|error| format!("the sandbox policy is not valid: {error}"))
    }
}

/// What the probe found this machine allows (the trampoline's own answer, as JSON).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Probe {
    /// The trampoline ran and answered (resource limits can be applied).
    pub trampoline: bool,
    /// The grader runs as root.
    pub root: bool,
    /// A new user namespace can be created (only tried when not root).
    pub user_namespace: bool,
    /// A new network namespace can be created.
    pub network_namespace: bool,
    /// A new PID namespace can be created.
    #[serde(default)]
    pub pid_namespace: bool,
    /// A seccomp filter can be installed.
    #[serde(default)]
    pub syscall_filter: bool,
    /// The landlock ABI version, when a ruleset could be enforced.
    pub landlock_abi: Option<u32>,
    /// Root could switch to a dedicated uid and gid.
    pub separate_user: bool,
    /// Why layers are unavailable, one line each.
    pub problems: Vec<String>,
}

/// Which defences were active for a grading run, as reports show them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Layers {
    /// The mode asked for.
    pub mode: SandboxMode,
    /// Each program in its own process group, killed as a whole.
    pub process_group: bool,
    /// The grader is a child subreaper: processes that escape the group (setsid) are still reaped.
    pub subreaper: bool,
    /// A wall-clock limit per test.
    pub time_limits: bool,
    /// stdout lines and stderr are capped.
    pub output_caps: bool,
    /// An empty environment, but for a few variables.
    pub empty_environment: bool,
    /// `HOME` and `TMPDIR` are a fresh scratch folder, removed afterwards.
    pub scratch_folder: bool,
    /// CPU, memory (`RLIMIT_DATA`), file-size, open-files and core-dump limits.
    pub resource_limits: bool,
    /// A process-count limit (a fork bomb stops there).
    pub process_limit: bool,
    /// The program is the first process of a PID namespace: everything it
    /// starts dies with it, whatever the user it runs as.
    pub pid_namespace: bool,
    /// A seccomp filter: no Unix-domain sockets, no anonymous shared memory.
    pub syscall_filter: bool,
    /// Student programs run as a dedicated unprivileged user (root graders).
    pub separate_user: bool,
    /// No network.
    pub network_isolation: bool,
    /// Landlock: read only the submission, kits and toolchain; write only the scratch folder.
    pub filesystem_isolation: bool,
    /// The landlock ABI version in force.
    pub landlock_abi: Option<u32>,
    /// Why a layer is off, one line each.
    pub notes: Vec<String>,
    /// The grader runs as root (then a dedicated user is required in strict mode).
    #[serde(skip)]
    pub root: bool,
    /// No network through a network namespace (rather than landlock's TCP rules).
    #[serde(skip)]
    pub network_namespace: bool,
}

impl Layers {
    /// Only the built-in defences (`--sandbox off`, or no trampoline).
    pub fn built_in(mode: SandboxMode) -> Layers {
        Layers {
            mode,
            process_group: true,
            subreaper: false,
            time_limits: true,
            output_caps: true,
            empty_environment: true,
            scratch_folder: true,
            resource_limits: false,
            process_limit: false,
            pid_namespace: false,
            syscall_filter: false,
            separate_user: false,
            network_isolation: false,
            filesystem_isolation: false,
            landlock_abi: None,
            notes: Vec::new(),
            root: false,
            network_namespace: false,
        }
    }

    /// The layers a probe allows (the grader's subreaper flag is set separately).
    pub fn from_probe(mode: SandboxMode, probe: &Probe) -> Layers {
        let mut layers = Layers::built_in(mode);
        layers.root = probe.root;
        layers.resource_limits = probe.trampoline;
        layers.separate_user = probe.root && probe.separate_user;
        layers.network_namespace = probe.network_namespace;
        layers.pid_namespace = probe.pid_namespace;
        layers.syscall_filter = probe.syscall_filter;
        layers.network_isolation = probe.network_namespace || probe.landlock_abi.is_some_and(|abi| abi >= 4);
        layers.process_limit = layers.separate_user || (!probe.root && probe.user_namespace);
        layers.filesystem_isolation = probe.landlock_abi.is_some();
        layers.landlock_abi = probe.landlock_abi;
        layers.notes = probe.problems.clone();
        if probe.trampoline {
            // Said in every report, so that nobody reads more into the memory limit than it holds.
            layers.notes.push(SHARED_MEMORY_NOTE.to_string());
        }
        if !probe.network_namespace && layers.network_isolation {
            layers.notes.push("network isolation: TCP only, through landlock (no network namespace)".to_string());
        }
        if !probe.root {
            layers.notes.push("separate user: not needed, the grader does not run as root".to_string());
        } else if probe.trampoline && !layers.separate_user {
            layers.notes.push(ROOT_NEEDS_SEPARATE_USER.to_string());
        }
        layers
    }

    /// The layers this run lacks, each with why (what `--sandbox strict` refuses).
    pub fn missing(&self) -> Vec<String> {
        let mut missing = Vec::new();
        let checks = [
            (self.subreaper, "child subreaper"),
            (self.resource_limits, "resource limits"),
            (self.process_limit, "process limit"),
            (self.pid_namespace, "pid namespace"),
            (self.syscall_filter, "syscall filter"),
            (self.separate_user || !self.root, "separate user"),
            (self.network_isolation, "network isolation"),
            (self.filesystem_isolation, "filesystem isolation"),
        ];
        for (active, name) in checks {
            if !active {
                let why: Vec<&str> = self
                    .notes
                    .iter()
                    .filter_map(|note| note.strip_prefix(name).and_then(|rest| rest.strip_prefix(": ")))
                    .collect();
                missing.push(if why.is_empty() { name.to_string() } else { format!("{name} ({})", why.join("; ")) });
            }
        }
        missing
    }

    /// One line for a report's header: `sandbox auto: limits, own user, no network, landlock v7`.
    pub fn summary(&self) -> String {
        if self.mode == SandboxMode::Off {
            return "sandbox off".to_string();
        }
        let mut active = Vec::new();
        if self.resource_limits {
            active.push("limits".to_string());
        }
        if self.process_limit {
            active.push("process limit".to_string());
        }
        if self.pid_namespace {
            active.push("own pids".to_string());
        }
        if self.syscall_filter {
            active.push("no unix sockets".to_string());
        }
        if self.separate_user {
            active.push("own user".to_string());
        }
        if self.network_isolation {
            active.push("no network".to_string());
        }
        if self.filesystem_isolation {
            active.push(match self.landlock_abi {
                Some(abi) => format!("landlock v{abi}"),
                None => "landlock".to_string(),
            });
        }
        if active.is_empty() {
            return format!("sandbox {}: built-in defences only", self.mode.name());
        }
        format!("sandbox {}: {}", self.mode.name(), active.join(", "))
    }
}

/// How to sandbox a grading run: the mode, and the treegrade binary that
/// serves as the trampoline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sandbox {
    /// Auto, strict or off.
    pub mode: SandboxMode,
    /// The treegrade binary (`None`: only the built-in defences are possible).
    pub helper: Option<PathBuf>,
    /// Memory limit of a student program, in MB.
    pub memory_mb: u64,
}

static HELPER_PROGRAM: OnceLock<PathBuf> = OnceLock::new();

/// Registers the treegrade binary as this process's trampoline (the command
/// line does it at start-up); [`Sandbox::from_process`] uses it.
pub fn set_helper_program(path: PathBuf) {
    let _ = HELPER_PROGRAM.set(path);
}

impl Sandbox {
    /// A sandbox in `mode` with `helper` as the trampoline.
    pub fn new(mode: SandboxMode, helper: Option<PathBuf>) -> Sandbox {
        Sandbox { mode, helper, memory_mb: Limits::MEMORY_MB }
    }

    /// The same sandbox with another memory limit for student programs.
    pub fn with_memory_mb(self, memory_mb: u64) -> Sandbox {
        Sandbox { memory_mb: memory_mb.max(16), ..self }
    }

    /// `auto`, with the trampoline registered by [`set_helper_program`], if any.
    pub fn from_process() -> Sandbox {
        Sandbox::new(SandboxMode::Auto, HELPER_PROGRAM.get().cloned())
    }

    /// What this machine allows, as layers (probed once per helper and
    /// process). Makes this process a child subreaper on the way.
    pub fn probe(&self) -> Layers {
        let mut layers = match &self.helper {
            Some(helper) => Layers::from_probe(self.mode, &probe_with(helper)),
            None => {
                let mut layers = Layers::built_in(self.mode);
                layers.root = rustix::process::getuid().is_root();
                layers.notes.push(
                    "resource limits: no sandbox helper (the treegrade binary) is known to this process".to_string(),
                );
                layers
            }
        };
        layers.subreaper = become_subreaper();
        if !layers.subreaper {
            layers.notes.push("child subreaper: prctl(PR_SET_CHILD_SUBREAPER) failed".to_string());
        }
        layers
    }
}

/// Runs the trampoline's probe once per helper and caches the answer.
fn probe_with(helper: &Path) -> Probe {
    static PROBES: Mutex<Option<HashMap<PathBuf, Probe>>> = Mutex::new(None);
    let mut probes = PROBES.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let probes = probes.get_or_insert_with(HashMap::new);
    if let Some(probe) = probes.get(helper) {
        return probe.clone();
    }
    let probe = run_probe(helper);
    probes.insert(helper.to_path_buf(), probe.clone());
    probe
}

fn run_probe(helper: &Path) -> Probe {
    let unavailable = |why: String| Probe {
        root: rustix::process::getuid().is_root(),
        problems: vec![format!("resource limits: {why}")],
        ..Probe::default()
    };
    let output = Command::new(helper)
        .args([TRAMPOLINE_SUBCOMMAND, "--probe"])
        .env_clear()
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output();
    match output {
        Ok(output) if output.status.success() => serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
            unavailable(format!("the sandbox helper {} gave no probe answer ({error})", helper.display()))
        }),
        Ok(output) => unavailable(format!(
            "the sandbox helper {} failed its probe: {}",
            helper.display(),
            String::from_utf8_lossy(&output.stderr).trim()
        )),
        Err(error) => unavailable(format!("cannot run the sandbox helper {}: {error}", helper.display())),
    }
}

/// What a grading run needs to know to prepare its sandbox.
#[derive(Clone, Debug)]
pub struct RunPlan<'a> {
    /// The submission folder (absolute).
    pub submission: &'a Path,
    /// The kits folder (`{kits}` in the assignment's environment).
    pub kits: &'a Path,
    /// Number of tests the session serves.
    pub tests: usize,
    /// Wall-clock limit per test.
    pub per_test: Duration,
    /// The build's time limit, when the language has a build.
    pub build_time_limit: Option<Duration>,
    /// Folders a build must not read: the assignment's, its tests'.
    pub protected: Vec<PathBuf>,
}

/// A grading run's sandbox: its layers, scratch folder and policies.
#[derive(Debug)]
pub struct Prepared {
    /// Which layers are active.
    pub layers: Layers,
    /// `HOME` and `TMPDIR` of the student's program: writable, removed at the end.
    pub home: PathBuf,
    /// The kits as the program sees them (a readable copy when it runs as another user).
    pub kits: PathBuf,
    /// The policy of the searcher (`None`: start it directly).
    pub run: Option<Policy>,
    /// The policy of the build (`None`: start it directly).
    pub build: Option<Policy>,
    /// The submission as the program sees it: a private copy in the scratch
    /// folder (owned by the dedicated user when there is one), so that file
    /// modes and parent folders of the original never decide the sandbox.
    pub submission: PathBuf,
    /// Owns the scratch folder.
    _scratch: Scratch,
}

impl Sandbox {
    /// Probes (once), decides the layers of this run and prepares its scratch
    /// folder. Refuses, naming the missing layers, in strict mode.
    pub fn prepare(&self, plan: &RunPlan<'_>) -> Result<Prepared, String> {
        let layers = match self.mode {
            SandboxMode::Off => Layers { subreaper: become_subreaper(), ..Layers::built_in(SandboxMode::Off) },
            _ => self.probe(),
        };
        let dedicated = layers.separate_user.then(dedicated_id);
        if self.mode == SandboxMode::Strict {
            let missing = layers.missing();
            if !missing.is_empty() {
                return Err(format!(
                    "--sandbox strict: refusing to grade, because these sandbox layers are unavailable: {}; \
                     use --sandbox auto to grade with the layers that are available",
                    missing.join(", ")
                ));
            }
        }
        let run_as = dedicated.filter(|_| layers.separate_user);
        let scratch = Scratch::new("run").map_err(|error| format!("cannot make a scratch folder: {error}"))?;
        let submission = scratch.path().join("submission");
        scratch::stage(plan.submission, &submission, run_as).map_err(|error| error.to_string())?;
        let home = scratch.path().join("home");
        let kits = match run_as {
            Some(_) => scratch.path().join("kits"),
            None => plan.kits.to_path_buf(),
        };
        let setup = || -> io::Result<()> {
            std::fs::create_dir(&home)?;
            if let Some(id) = run_as {
                // The dedicated user reaches its home through the scratch folder, and reads a copy of the kits.
                std::fs::set_permissions(scratch.path(), std::fs::Permissions::from_mode(0o711))?;
                std::os::unix::fs::chown(&home, Some(id), Some(id))?;
                std::fs::set_permissions(&home, std::fs::Permissions::from_mode(0o700))?;
                copy_readable(plan.kits, &kits)?;
            }
            Ok(())
        };
        setup().map_err(|error| format!("cannot prepare the scratch folder {}: {error}", scratch.path().display()))?;
        let helper = self.helper.clone().filter(|_| layers.resource_limits);
        let run = helper.as_ref().filter(|_| self.mode != SandboxMode::Off).map(|helper| Policy {
            helper: helper.clone(),
            limits: Limits {
                processes: Some(Limits::PROCESSES).filter(|_| layers.process_limit),
                memory_mb: self.memory_mb,
                ..Limits::for_session(plan.tests, plan.per_test)
            },
            user_namespace: !layers.root && layers.process_limit,
            isolate_network: layers.network_namespace,
            // Landlock adds TCP rules where it exists; the network namespace never depends on it.
            block_tcp: layers.landlock_abi.is_some_and(|abi| abi >= 4),
            fs: layers.filesystem_isolation.then(|| FsRules {
                read: existing([vec![submission.clone(), kits.clone()], toolchain_paths()].concat()),
                read_write: existing(vec![home.clone(), PathBuf::from("/dev/null")]),
            }),
            run_as,
            pid_namespace: layers.pid_namespace,
            inner: false,
            syscall_filter: layers.syscall_filter,
        });
        let build = match (&run, plan.build_time_limit) {
            (Some(run), Some(limit)) => Some(Policy {
                limits: Limits {
                    // Root keeps its own uid for builds, for which a process limit means nothing.
                    processes: Limits::for_build(limit).processes.filter(|_| run.user_namespace),
                    ..Limits::for_build(limit)
                },
                // Compilers live in the grader's home (~/.cargo, ~/.rustup), which
                // the dedicated user cannot enter: builds keep the grader's user.
                run_as: None,
                user_namespace: run.user_namespace,
                fs: run.fs.as_ref().map(|_| build_fs_rules(plan, &submission, scratch.path(), &home)),
                ..run.clone()
            }),
            _ => None,
        };
        // Off: no confinement, but a session of its own and death with the grader.
        let run = run.or_else(|| self.helper.clone().map(Policy::session_only));
        Ok(Prepared { layers, home, kits, run, build, submission, _scratch: scratch })
    }
}

/// Makes the grader a child subreaper: orphans of its children become its own.
fn become_subreaper() -> bool {
    rustix::process::set_child_subreaper(Some(rustix::process::getpid())).is_ok()
}

/// A uid (and gid) of its own for one grading run.
pub fn dedicated_id() -> u32 {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let counter = NEXT.fetch_add(1, Ordering::Relaxed) & 0xff;
    DEDICATED_ID_BASE + (((std::process::id() & 0x3f_ffff) << 8) | counter)
}

/// Copies a small folder (the kits) so that everyone can read it.
fn copy_readable(from: &Path, to: &Path) -> io::Result<()> {
    std::fs::create_dir_all(to)?;
    std::fs::set_permissions(to, std::fs::Permissions::from_mode(0o755))?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let target = to.join(entry.file_name());
        if kind.is_dir() {
            copy_readable(&entry.path(), &target)?;
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &target)?;
            std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o644))?;
        }
    }
    Ok(())
}

fn existing(paths: Vec<PathBuf>) -> Vec<PathBuf> {
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
/// `$HOME` holding each `PATH` entry, such as `~/.pyenv`).
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

/// A build reads everything but the assignment's folders and the other
/// submissions beside this one (it needs the toolchain and whatever path
/// dependencies the submission names), and writes only the submission folder
/// (`target/`) and the scratch folder.
/// A build reads everything but the assignment, the other students beside
/// the original submission and the other grading runs beside this one's
/// scratch folder; it writes only its staged copy and its home.
fn build_fs_rules(plan: &RunPlan<'_>, staged: &Path, scratch: &Path, home: &Path) -> FsRules {
    let real = |path: &Path| std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let mut protected: Vec<PathBuf> = plan.protected.iter().map(|path| real(path)).collect();
    for own in [real(plan.submission), real(scratch)] {
        if let Some(parent) = own.parent()
            && let Ok(entries) = std::fs::read_dir(parent)
        {
            protected.extend(entries.flatten().map(|entry| entry.path()).filter(|path| *path != own));
        }
    }
    let keep = [real(scratch)];
    let mut read = Vec::new();
    readable_except(Path::new("/"), &protected, &keep, &mut read);
    FsRules {
        read: existing([read, vec![plan.kits.to_path_buf()]].concat()),
        read_write: existing(vec![staged.to_path_buf(), home.to_path_buf(), PathBuf::from("/dev/null")]),
    }
}

/// Landlock only allows: to deny the `protected` trees, allow every entry
/// beside the path down to them. A `keep` path inside a protected tree stays
/// readable.
pub fn readable_except(dir: &Path, protected: &[PathBuf], keep: &[PathBuf], out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|entry| entry.path()).collect();
    entries.sort();
    for entry in entries {
        if keep.contains(&entry) {
            out.push(entry);
            continue;
        }
        let leads_to_kept = keep.iter().any(|kept| kept.starts_with(&entry));
        let inside_protected = protected.iter().any(|denied| entry.starts_with(denied));
        let leads_to_protected = protected.iter().any(|denied| denied.starts_with(&entry));
        // Landlock follows symbolic links: one on the way down is left out, not followed.
        let is_real_dir = std::fs::symlink_metadata(&entry).is_ok_and(|meta| meta.is_dir());
        if inside_protected {
            if leads_to_kept && is_real_dir {
                readable_except(&entry, protected, keep, out);
            }
        } else if leads_to_protected {
            if is_real_dir {
                readable_except(&entry, protected, keep, out);
            }
        } else {
            out.push(entry);
        }
    }
}

/// Why the trampoline could not apply a layer.
#[derive(Debug)]
pub struct SetupError {
    /// The layer, as [`Layers`] names it.
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
/// `memfd_create` and anonymous `MAP_SHARED` mappings fail (shared memory
/// escapes the memory limit), and so does `ioctl(TIOCSTI)`.
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

impl Policy {
    /// The policy of the second stage, inside the PID namespace: what is left
    /// to apply in the process that executes the program.
    pub fn inner_stage(&self) -> Policy {
        Policy { inner: true, pid_namespace: false, ..self.clone() }
    }
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

fn unshare(flags: rustix::thread::UnshareFlags) -> Result<(), String> {
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
    let policy = Policy {
        helper: PathBuf::new(),
        limits: Limits::for_session(1, Duration::from_secs(1)),
        user_namespace: false,
        isolate_network: false,
        block_tcp: true,
        fs: Some(FsRules { read: vec![PathBuf::from("/")], read_write: Vec::new() }),
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

/// The kill helper: becomes `id` and sends SIGKILL to every process of that
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

/// A command's program, found as `exec` will look for it (`PATH` from `env`,
/// relative names against `dir`), so that a missing program is reported as
/// "could not start" before the trampoline runs.
pub fn program_exists(program: &str, env: &[(std::ffi::OsString, std::ffi::OsString)], dir: &Path) -> bool {
    if program.contains('/') {
        return dir.join(program).exists();
    }
    let path = env.iter().find(|(key, _)| key == OsStr::new("PATH")).map(|(_, value)| value.clone());
    std::env::split_paths(&path.unwrap_or_else(|| "/usr/bin:/bin".into())).any(|entry| entry.join(program).is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn everything() -> Probe {
        Probe {
            trampoline: true,
            root: true,
            user_namespace: false,
            network_namespace: true,
            pid_namespace: true,
            syscall_filter: true,
            landlock_abi: Some(7),
            separate_user: true,
            problems: Vec::new(),
        }
    }

    #[test]
    fn a_full_probe_misses_nothing() {
        let mut layers = Layers::from_probe(SandboxMode::Strict, &everything());
        layers.subreaper = true;
        assert_eq!(layers.missing(), Vec::<String>::new());
        assert_eq!(
            layers.summary(),
            "sandbox strict: limits, process limit, own pids, no unix sockets, own user, no network, landlock v7"
        );
    }

    #[test]
    fn strict_names_each_missing_layer_with_its_reason() {
        let probe = Probe {
            network_namespace: false,
            landlock_abi: None,
            problems: vec![
                "network isolation: cannot create a network namespace: Operation not permitted".into(),
                "filesystem isolation: landlock: not supported".into(),
            ],
            ..everything()
        };
        let mut layers = Layers::from_probe(SandboxMode::Strict, &probe);
        layers.subreaper = true;
        let missing = layers.missing();
        assert_eq!(missing.len(), 2, "{missing:?}");
        assert!(missing[0].starts_with("network isolation (cannot create a network namespace"), "{missing:?}");
        assert!(missing[1].starts_with("filesystem isolation (landlock"), "{missing:?}");
    }

    #[test]
    fn an_unprivileged_grader_needs_no_separate_user() {
        let probe = Probe { root: false, user_namespace: true, separate_user: false, ..everything() };
        let mut layers = Layers::from_probe(SandboxMode::Strict, &probe);
        layers.subreaper = true;
        assert!(layers.process_limit && !layers.separate_user);
        assert_eq!(layers.missing(), Vec::<String>::new());
    }

    #[test]
    fn without_a_helper_only_built_in_layers_remain_and_strict_refuses() {
        let sandbox = Sandbox::new(SandboxMode::Strict, None);
        let kits = tempfile::tempdir().unwrap();
        let submission = tempfile::tempdir().unwrap();
        let plan = RunPlan {
            submission: submission.path(),
            kits: kits.path(),
            tests: 3,
            per_test: Duration::from_secs(1),
            build_time_limit: None,
            protected: Vec::new(),
        };
        let error = sandbox.prepare(&plan).unwrap_err();
        assert!(error.contains("--sandbox strict: refusing to grade"), "{error}");
        assert!(error.contains("resource limits (no sandbox helper"), "{error}");
        let off = Sandbox::new(SandboxMode::Off, None).prepare(&plan).unwrap();
        assert!(off.run.is_none() && off.build.is_none());
        assert_eq!(off.layers.summary(), "sandbox off");
        assert!(off.home.is_dir());
    }

    #[test]
    fn the_cpu_budget_is_the_sessions() {
        assert_eq!(Limits::for_session(20, Duration::from_secs(10)).cpu_seconds, 200);
        assert_eq!(Limits::for_session(1, Duration::from_millis(500)).cpu_seconds, 10);
        assert_eq!(Limits::for_session(10_000, Duration::from_secs(10)).cpu_seconds, Limits::MAX_CPU_SECONDS);
    }

    #[test]
    fn policies_survive_the_trip_to_the_trampoline() {
        let policy = Policy {
            helper: PathBuf::from("/usr/bin/treegrade"),
            limits: Limits::for_session(3, Duration::from_secs(2)),
            user_namespace: true,
            isolate_network: true,
            block_tcp: true,
            fs: Some(FsRules { read: vec!["/usr".into()], read_write: vec!["/tmp/x".into()] }),
            run_as: Some(DEDICATED_ID_BASE + 5),
            pid_namespace: true,
            inner: false,
            syscall_filter: true,
        };
        let back = Policy::from_json(&policy.to_json()).unwrap();
        assert_eq!(back, Policy { helper: PathBuf::new(), ..policy });
    }

    #[test]
    fn protected_folders_are_left_out_but_kept_ones_stay() {
        let root = tempfile::tempdir().unwrap();
        let course = root.path().join("course");
        for dir in ["course/tests/hidden", "course/submissions/alice/src", "course/submissions/bob", "course/kit"] {
            std::fs::create_dir_all(root.path().join(dir)).unwrap();
        }
        std::fs::write(course.join("assignment.yaml"), "x").unwrap();
        let alice = course.join("submissions/alice");
        let protected = vec![course.join("tests"), course.join("submissions/bob"), course.join("assignment.yaml")];
        let mut out = Vec::new();
        readable_except(root.path(), &protected, std::slice::from_ref(&alice), &mut out);
        assert_eq!(out, vec![course.join("kit"), alice]);
    }

    #[test]
    fn dedicated_ids_are_unprivileged_and_distinct() {
        let (first, second) = (dedicated_id(), dedicated_id());
        assert!(first >= DEDICATED_ID_BASE && second >= DEDICATED_ID_BASE && first != second);
        assert!(first < i32::MAX as u32);
        assert!(kill_all_of_user(1000).is_err(), "only dedicated uids may be killed wholesale");
    }
}
