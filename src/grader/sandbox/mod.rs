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
//! 1. a session of its own (no controlling terminal), then, for an
//!    unprivileged grader, a user namespace (what allows the rest);
//! 2. no network: a new network namespace;
//! 3. a filesystem view ([`View`]): a mount namespace whose root holds only
//!    the submission's copy, the kits and the toolchain, read-only, and the
//!    scratch home;
//! 4. a PID namespace: the trampoline starts itself again as its first
//!    process, which mounts the namespace's own `/proc` (root graders) and,
//!    once every layer is applied to it, runs the program as its child
//!    rather than `exec`ing it: process 1 of a namespace gets no signal it
//!    has no handler for, so the program's own `abort()` would not kill it.
//!    It reaps the namespace and says on a pipe how the program ended, and
//!    the first stage ends the same way (same status, or same signal);
//! 5. resource limits: CPU seconds, memory (`RLIMIT_DATA`, not `RLIMIT_AS`,
//!    which breaks the JVM and Go), file size, open files, no core dumps,
//!    and a process-count limit, meaningful only for a user of its own;
//! 6. landlock: read the submission, the kits and the toolchain, write only the
//!    scratch folder; signals and abstract sockets stay inside the sandbox;
//! 7. when the grader runs as root: a dedicated unprivileged user and group,
//!    unique to the grading run, so that the process limit counts only this
//!    run's processes and everything it left behind can be killed by user;
//! 8. death with the grader, and a seccomp filter: no Unix sockets, no
//!    anonymous shared memory, no `TIOCSTI`.
//!
//! Every report records which layers were active ([`Layers`]). `--sandbox
//! strict` refuses to grade when a layer is missing; `auto` uses what the
//! probe found; `off` keeps only the built-in defences.

mod kernel;
mod layers;
mod paths;
mod policy;
#[cfg(unix)]
mod trampoline;
#[cfg(not(unix))]
#[path = "no_trampoline.rs"]
mod trampoline;
#[cfg(target_os = "linux")]
mod view;

use std::collections::HashMap;
use std::ffi::OsStr;
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use serde::{Deserialize, Serialize};

pub use kernel::{SysError, set_not_dumpable};
pub use layers::{Layers, Probe};
pub use paths::toolchain_paths;
use paths::{copy_readable, existing};
pub use policy::{FsRules, Limits, Policy, View};
#[cfg(unix)]
pub use trampoline::{ProgramEnd, die_of_signal, init_program, status_channel};
pub use trampoline::{apply, kill_all_of_user, probe_here};

use super::fsmode::{set_mode, set_owner};
use super::scratch::{self, PathError, Scratch};

/// Why the trampoline could not apply a layer.
#[derive(Debug, thiserror::Error)]
#[error("cannot set up the {layer} layer: {cause}")]
pub struct SetupError {
    /// The layer, as [`Layers`] names it.
    pub layer: &'static str,
    /// What failed.
    #[source]
    pub cause: SysError,
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

/// Why a grading run could not be prepared.
#[derive(Debug, thiserror::Error)]
pub enum PrepareError {
    /// `--sandbox strict` and layers this machine lacks.
    #[error(
        "--sandbox strict: refusing to grade, because these sandbox layers are unavailable: {}; use --sandbox auto \
         to grade with the layers that are available",
        missing.join(", ")
    )]
    StrictMissing {
        /// The layers, as reports name them.
        missing: Vec<String>,
    },
    /// The scratch folder or the copy of the submission failed.
    #[error(transparent)]
    Files(#[from] PathError),
}

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

/// What the memory limit does not count where shared memory cannot be refused.
pub const SHARED_MEMORY_NOTE: &str =
    "memory limit: RLIMIT_DATA counts private memory only; shared memory (MAP_SHARED) is not counted";

/// What the memory limit holds with the seccomp filter and a filesystem
/// view: shared memory is refused, and files live in a bounded home.
pub const BOUNDED_MEMORY_NOTE: &str = "memory limit: RLIMIT_DATA counts private memory; shared memory is refused, \
     and files written live in a home of 64 MiB, counted apart";

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

/// How to sandbox a grading run: the mode, and the treegrade binary that
/// serves as the trampoline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sandbox {
    /// Auto, strict or off.
    pub mode: SandboxMode,
    /// The treegrade binary (`None`: only the built-in defences are possible).
    pub trampoline: Option<PathBuf>,
    /// Memory limit of a student program, in MB.
    pub memory_mb: u64,
}

impl Sandbox {
    /// A sandbox in `mode` whose trampoline is the treegrade binary `trampoline`.
    pub fn new(mode: SandboxMode, trampoline: Option<PathBuf>) -> Sandbox {
        Sandbox { mode, trampoline, memory_mb: Limits::MEMORY_MB }
    }

    /// The same sandbox with another memory limit for student programs.
    pub fn with_memory_mb(self, memory_mb: u64) -> Sandbox {
        Sandbox { memory_mb: memory_mb.max(16), ..self }
    }

    /// Starts probing the machine in the background, so that the probe's
    /// process runs while the caller loads and plans; [`Sandbox::probe`]
    /// then waits for its answer instead of starting another.
    pub fn start_probe(&self) {
        if self.mode == SandboxMode::Off {
            return; // `off` asks the machine nothing
        }
        if let Some(trampoline) = self.trampoline.clone() {
            std::thread::spawn(move || probe_with(&trampoline));
        }
    }

    /// What this machine allows, as layers (probed once per trampoline and
    /// process). Makes this process a child subreaper on the way.
    pub fn probe(&self) -> Layers {
        let mut layers = match &self.trampoline {
            Some(trampoline) => Layers::from_probe(self.mode, &probe_with(trampoline)),
            None => {
                let mut layers = Layers::built_in(self.mode);
                layers.root = kernel::is_root();
                layers.notes.push(
                    "resource limits: no sandbox trampoline (the treegrade binary) is known to this process"
                        .to_string(),
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

/// Runs the probe of each trampoline binary once and caches the answer.
fn probe_with(trampoline: &Path) -> Probe {
    static PROBES: Mutex<Option<HashMap<PathBuf, Probe>>> = Mutex::new(None);
    let mut probes = PROBES.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let probes = probes.get_or_insert_with(HashMap::new);
    if let Some(probe) = probes.get(trampoline) {
        return probe.clone();
    }
    let probe = run_probe(trampoline);
    probes.insert(trampoline.to_path_buf(), probe.clone());
    probe
}

fn run_probe(trampoline: &Path) -> Probe {
    let unavailable = |why: String| Probe {
        root: kernel::is_root(),
        problems: vec![format!("resource limits: {why}")],
        ..Probe::default()
    };
    let output = Command::new(trampoline)
        .args([TRAMPOLINE_SUBCOMMAND, "--probe"])
        .env_clear()
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output();
    match output {
        Ok(output) if output.status.success() => serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
            unavailable(format!("the sandbox trampoline {} gave no probe answer ({error})", trampoline.display()))
        }),
        Ok(output) => unavailable(format!(
            "the sandbox trampoline {} failed its probe: {}",
            trampoline.display(),
            String::from_utf8_lossy(&output.stderr).trim()
        )),
        Err(error) => unavailable(format!("cannot run the sandbox trampoline {}: {error}", trampoline.display())),
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
    pub fn prepare(&self, plan: &RunPlan<'_>) -> Result<Prepared, PrepareError> {
        let layers = self.layers_of_run()?;
        let run_as = layers.separate_user.then(dedicated_id);
        let folders = Folders::make(plan, run_as)?;
        let paths = FsRules {
            read: existing([vec![folders.submission.clone(), folders.kits.clone()], toolchain_paths()].concat()),
            read_write: existing(vec![folders.home.clone(), PathBuf::from("/dev/null")]),
        };
        let view_root = folders.scratch.path().join("view");
        if layers.filesystem_view && self.mode != SandboxMode::Off {
            std::fs::create_dir(&view_root).map_err(|error| PathError::new("make the folder", &view_root, error))?;
        }
        let run = self.run_policy(plan, &layers, &paths, &folders.home, &view_root, run_as);
        let build = build_policy(run.as_ref(), plan.build_time_limit, &layers, &paths, &folders.submission, &view_root);
        // Off: no confinement, but a session of its own and death with the grader.
        let run = run.or_else(|| self.trampoline.clone().map(Policy::session_only));
        let Folders { scratch, submission, home, kits } = folders;
        Ok(Prepared { layers, home, kits, run, build, submission, _scratch: scratch })
    }

    /// The layers this run has: the probe's, or the built-in defences alone
    /// when the sandbox is off; in strict mode, a refusal naming what is missing.
    fn layers_of_run(&self) -> Result<Layers, PrepareError> {
        let layers = match self.mode {
            SandboxMode::Off => Layers { subreaper: become_subreaper(), ..Layers::built_in(SandboxMode::Off) },
            _ => self.probe(),
        };
        if self.mode == SandboxMode::Strict {
            let missing = layers.missing();
            if !missing.is_empty() {
                return Err(PrepareError::StrictMissing { missing });
            }
        }
        Ok(layers)
    }

    /// The searcher's policy (`None` when the sandbox is off or there is no
    /// trampoline to apply one).
    fn run_policy(
        &self,
        plan: &RunPlan<'_>,
        layers: &Layers,
        paths: &FsRules,
        home: &Path,
        view_root: &Path,
        run_as: Option<u32>,
    ) -> Option<Policy> {
        let trampoline =
            self.trampoline.as_ref().filter(|_| layers.resource_limits && self.mode != SandboxMode::Off)?;
        Some(Policy {
            trampoline: trampoline.clone(),
            limits: Limits {
                processes: Some(Limits::PROCESSES).filter(|_| layers.process_limit),
                memory_mb: self.memory_mb,
                ..Limits::for_session(plan.tests, plan.per_test)
            },
            user_namespace: !layers.root && layers.process_limit,
            isolate_network: layers.network_namespace,
            // Landlock adds TCP rules where it exists; the network namespace never depends on it.
            block_tcp: layers.landlock_abi.is_some_and(|abi| abi >= 4),
            fs: layers.filesystem_isolation.then(|| paths.clone()),
            // A searcher's home is a tmpfs as small as its largest file may be.
            view: layers.filesystem_view.then(|| View {
                fresh_home: Some((home.to_path_buf(), Limits::FILE_SIZE_MB)),
                ..view_of(view_root, paths, trampoline)
            }),
            run_as,
            pid_namespace: layers.pid_namespace,
            inner: false,
            syscall_filter: layers.syscall_filter,
        })
    }
}

/// The scratch folder of one run and what it holds: the submission's
/// private copy, the program's home, and the kits as the program reads them.
struct Folders {
    scratch: Scratch,
    submission: PathBuf,
    home: PathBuf,
    kits: PathBuf,
}

impl Folders {
    /// Makes the scratch folder, copies the submission in, and makes the
    /// home (owned by the dedicated user `run_as`, with a readable copy of
    /// the kits, when there is one).
    fn make(plan: &RunPlan<'_>, run_as: Option<u32>) -> Result<Folders, PrepareError> {
        let scratch = Scratch::new("run")
            .map_err(|error| PathError::new("make a scratch folder in", &std::env::temp_dir(), error))?;
        let submission = scratch.path().join("submission");
        scratch::stage(plan.submission, &submission, run_as)?;
        let home = scratch.path().join("home");
        let kits = match run_as {
            Some(_) => scratch.path().join("kits"),
            None => plan.kits.to_path_buf(),
        };
        let setup = || -> io::Result<()> {
            std::fs::create_dir(&home)?;
            if let Some(id) = run_as {
                // The dedicated user reaches its home through the scratch folder, and reads a copy of the kits.
                set_mode(scratch.path(), 0o711)?;
                set_owner(&home, id)?;
                set_mode(&home, 0o700)?;
                copy_readable(plan.kits, &kits)?;
            }
            Ok(())
        };
        setup().map_err(|error| PathError::new("prepare the scratch folder", scratch.path(), error))?;
        Ok(Folders { scratch, submission, home, kits })
    }
}

/// The build's policy, from the searcher's (`None` without one, or for a
/// language without a build): a build writes its own copy (`target/`) and
/// reads the same toolchain and kits.
fn build_policy(
    run: Option<&Policy>,
    time_limit: Option<Duration>,
    layers: &Layers,
    paths: &FsRules,
    submission: &Path,
    view_root: &Path,
) -> Option<Policy> {
    let (run, limit) = (run?, time_limit?);
    let paths = FsRules {
        read: paths.read.iter().filter(|path| *path != submission).cloned().collect(),
        read_write: [vec![submission.to_path_buf()], paths.read_write.clone()].concat(),
    };
    Some(Policy {
        limits: Limits {
            processes: Limits::for_build(limit).processes.filter(|_| layers.process_limit),
            ..Limits::for_build(limit)
        },
        fs: run.fs.as_ref().map(|_| paths.clone()),
        view: run.view.as_ref().map(|_| view_of(view_root, &paths, &run.trampoline)),
        // Toolchains in a private home (~/.cargo under a 0700 /root) are
        // reachable to the dedicated user only through the view.
        run_as: run.run_as.filter(|_| run.view.is_some()),
        ..run.clone()
    })
}

/// The filesystem view of a policy reading and writing `paths`, rooted at `root`.
fn view_of(root: &Path, paths: &FsRules, trampoline: &Path) -> View {
    View {
        root: root.to_path_buf(),
        read: view_paths(&paths.read, trampoline),
        read_write: paths.read_write.clone(),
        fresh_home: None,
    }
}

/// What a view shows read-only: the paths landlock reads, the whole of
/// `/proc` rather than `/proc/self` (landlock narrows it again), and the
/// trampoline itself, which starts the PID namespace's first process from
/// inside the view.
fn view_paths(read: &[PathBuf], trampoline: &Path) -> Vec<PathBuf> {
    let proc_self = Path::new("/proc/self");
    let mut paths: Vec<PathBuf> = read.iter().filter(|path| *path != proc_self).cloned().collect();
    paths.push(PathBuf::from("/proc"));
    paths.push(std::fs::canonicalize(trampoline).unwrap_or_else(|_| trampoline.to_path_buf()));
    existing(paths)
}

/// Makes the grader a child subreaper: orphans of its children become its own.
fn become_subreaper() -> bool {
    kernel::become_subreaper()
}

/// A uid (and gid) of its own for one grading run.
pub fn dedicated_id() -> u32 {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let counter = NEXT.fetch_add(1, Ordering::Relaxed) & 0xff;
    DEDICATED_ID_BASE + (((std::process::id() & 0x3f_ffff) << 8) | counter)
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

    #[test]
    fn without_a_trampoline_only_built_in_layers_remain_and_strict_refuses() {
        let sandbox = Sandbox::new(SandboxMode::Strict, None);
        let kits = tempfile::tempdir().unwrap();
        let submission = tempfile::tempdir().unwrap();
        let plan = RunPlan {
            submission: submission.path(),
            kits: kits.path(),
            tests: 3,
            per_test: Duration::from_secs(1),
            build_time_limit: None,
        };
        let error = sandbox.prepare(&plan).unwrap_err();
        assert!(matches!(error, PrepareError::StrictMissing { .. }), "{error}");
        let error = error.to_string();
        assert!(error.contains("--sandbox strict: refusing to grade"), "{error}");
        assert!(error.contains("resource limits (no sandbox trampoline"), "{error}");
        let off = Sandbox::new(SandboxMode::Off, None).prepare(&plan).unwrap();
        assert!(off.run.is_none() && off.build.is_none());
        assert_eq!(off.layers.summary(), "sandbox off");
        assert!(off.home.is_dir());
    }

    #[test]
    fn dedicated_ids_are_unprivileged_and_distinct() {
        let (first, second) = (dedicated_id(), dedicated_id());
        assert!(first >= DEDICATED_ID_BASE && second >= DEDICATED_ID_BASE && first != second);
        assert!(first < i32::MAX as u32);
        assert!(kill_all_of_user(1000).is_err(), "only dedicated uids may be killed wholesale");
    }
}
