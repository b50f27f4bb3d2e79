//! Which defences a machine allows ([`Probe`]) and which were active for a
//! grading run ([`Layers`]), as every report records them.

use serde::{Deserialize, Serialize};

use super::{BOUNDED_MEMORY_NOTE, SHARED_MEMORY_NOTE, SandboxMode};

/// Why root graders have no process limit without a dedicated user.
const ROOT_NEEDS_SEPARATE_USER: &str = "process limit: root ignores RLIMIT_NPROC, so it needs the separate user";

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
    /// A mount namespace with a root of its own can be assembled.
    #[serde(default)]
    pub mount_namespace: bool,
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
    /// A filesystem of its own (mount namespace): only the submission, kits
    /// and toolchain exist, read-only; only the scratch folder is writable.
    pub filesystem_view: bool,
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
            filesystem_view: false,
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
        layers.filesystem_view = probe.mount_namespace;
        layers.filesystem_isolation = probe.landlock_abi.is_some();
        layers.landlock_abi = probe.landlock_abi;
        layers.notes = probe.problems.clone();
        if probe.trampoline {
            // Said in every report, so that nobody reads more into the memory limit than it holds.
            layers.notes.push(
                if layers.syscall_filter && layers.filesystem_view { BOUNDED_MEMORY_NOTE } else { SHARED_MEMORY_NOTE }
                    .to_string(),
            );
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
            (self.filesystem_view, "filesystem view"),
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
        if self.filesystem_view {
            active.push("own filesystem".to_string());
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
            mount_namespace: true,
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
            "sandbox strict: limits, process limit, own pids, no unix sockets, own user, no network, own filesystem, landlock v7"
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
}
