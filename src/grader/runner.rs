//! Student programs as processes: start, talk line by line with deadlines, stop.
//!
//! The only module that knows about processes. One thread drives each program
//! with `poll(2)` over its stdout and stderr, so stderr is always drained (a
//! chatty program never blocks), a program that stops reading cannot block
//! the grader, and every wait has a deadline. Each program runs in its own
//! process group, killed as a whole.
//!
//! A program with a sandbox [`Policy`] is started through the trampoline
//! (`treegrade __sandbox-exec`), which applies the policy and `exec`s it. After
//! a kill, the processes that left the group are killed too: all those of the
//! program's dedicated user, and any orphan the grader (a child subreaper)
//! inherited; then they are reaped.
//!
//! What differs between systems (waiting on the pipes, process groups,
//! signals, `/proc`) is behind one module, `os` (`runner/unix.rs`,
//! `runner/windows.rs`), which this file calls through one interface.

use std::collections::{BTreeSet, VecDeque};
use std::ffi::OsString;
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use super::protocol::MAX_LINE_BYTES;
use super::sandbox::{self, Policy};

#[cfg(unix)]
#[path = "runner/unix.rs"]
mod os;
#[cfg(windows)]
#[path = "runner/windows.rs"]
mod os;

pub use os::processes_of_user;

/// Size of one read from a program's pipes.
const READ_CHUNK_BYTES: usize = 64 * 1024;

/// Bytes of stderr kept from the start and from the end of each test's output.
pub const STDERR_KEEP_BYTES: usize = 32 * 1024;

/// Bytes of stderr a program may write during one test (or a build in all):
/// past that it is stopped, so that a flood costs neither time nor memory.
pub const STDERR_LIMIT_BYTES: u64 = 16 * 1024 * 1024;

/// How to start a student program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgramSpec {
    /// The program and its arguments.
    pub command: Vec<String>,
    /// Working directory.
    pub dir: PathBuf,
    /// The whole environment of the program (it inherits nothing else).
    pub env: Vec<(OsString, OsString)>,
    /// The sandbox to start it in (`None`: started directly, with only the built-in defences).
    pub policy: Option<Policy>,
}

/// Why a read or write with the program did not complete.
#[derive(Debug)]
pub enum Interrupted {
    /// The deadline passed.
    TimedOut,
    /// The program closed its stdout or exited; the text describes how.
    Ended(String),
    /// A stdout line longer than [`MAX_LINE_BYTES`].
    LineTooLong,
    /// An unexpected I/O error talking to the program.
    Io(io::Error),
}

/// Output kept from a stream: its head and its tail, with the total size.
#[derive(Debug, Default)]
pub struct OutputCapture {
    head: Vec<u8>,
    tail: VecDeque<u8>,
    total: u64,
}

impl OutputCapture {
    fn push(&mut self, bytes: &[u8]) {
        self.total += bytes.len() as u64;
        let room = STDERR_KEEP_BYTES.saturating_sub(self.head.len());
        let (head, rest) = bytes.split_at(room.min(bytes.len()));
        self.head.extend_from_slice(head);
        let rest = &rest[rest.len().saturating_sub(STDERR_KEEP_BYTES)..];
        self.tail.extend(rest);
        let excess = self.tail.len().saturating_sub(STDERR_KEEP_BYTES);
        self.tail.drain(..excess);
    }

    /// The kept text, with a marker where bytes were dropped.
    pub fn text(&self) -> String {
        let mut text = String::from_utf8_lossy(&self.head).into_owned();
        let kept = (self.head.len() + self.tail.len()) as u64;
        if self.total > kept {
            text.push_str(&format!("\n[... {} bytes of output omitted ...]\n", self.total - kept));
        }
        let (first, second) = self.tail.as_slices();
        text.push_str(&String::from_utf8_lossy(&[first, second].concat()));
        text
    }

    /// Bytes written in all, kept or not.
    pub fn total_bytes(&self) -> u64 {
        self.total
    }
}

/// The flag that, once set, stops every program at once (see [`stop_all_when`]).
static STOP_ALL: OnceLock<Arc<AtomicBool>> = OnceLock::new();

/// The longest a wait on a program sleeps between looks at the stop flag,
/// once one is installed: how soon a batch stops after Ctrl-C.
const STOP_CHECK: Duration = Duration::from_millis(50);

/// From now on, once `flag` is set (a batch's Ctrl-C or SIGTERM), every
/// running program is stopped at its next wait (within 50 ms):
/// its wait ends as if the program had died, and the program is killed
/// with its process group and sandbox as after any end; no program starts
/// any more. Grading that was cut short is not a grade: the caller must
/// throw its result away. Installed once per process.
pub fn stop_all_when(flag: Arc<AtomicBool>) {
    let _ = STOP_ALL.set(flag);
}

/// Whether [`stop_all_when`]'s flag is set.
pub fn stopping() -> bool {
    STOP_ALL.get().is_some_and(|flag| flag.load(Ordering::SeqCst))
}

/// How long a wait may sleep before the stop flag is looked at again.
fn until_stop_check(wait: Duration) -> Duration {
    if STOP_ALL.get().is_some() { wait.min(STOP_CHECK) } else { wait }
}

/// What a program's wait ends with when grading is stopped.
fn stopped() -> Interrupted {
    Interrupted::Ended("was stopped because grading was interrupted".to_string())
}

/// A started student program.
#[derive(Debug)]
pub struct RunningProgram {
    child: Child,
    stdin: Option<ChildStdin>,
    /// The system's hold on its output (and, on Windows, its job object).
    handles: os::Handles,
    stdout_buffer: Vec<u8>,
    stdout_open: bool,
    stderr_open: bool,
    stderr_capture: OutputCapture,
    exit_status: Option<ExitStatus>,
    /// For builds: stdout joins stderr in one capture instead of being read as lines.
    merge_stdout: bool,
    /// The sandbox it runs in, to kill what it leaves behind.
    policy: Option<Policy>,
    /// While set, a deadline counts the program's own CPU time (see
    /// [`RunningProgram::count_cpu`]).
    cpu_clock: Option<CpuClock>,
    /// What the grader saw of the program's memory.
    memory: MemoryWatch,
}

/// The most memory the grader saw one of the program's processes hold, of
/// the kind its memory limit counts (`VmData`: private writable memory, as
/// `RLIMIT_DATA`), looked at every [`MEMORY_SAMPLE_EVERY`] while the grader
/// waits for the program, and whenever asked.
#[derive(Clone, Copy, Debug, Default)]
struct MemoryWatch {
    /// The largest `VmData` seen, in KiB.
    peak_kib: u64,
    /// When it was last looked at.
    last: Option<Instant>,
}

/// How often the grader looks at a program's memory while it waits for it:
/// a search that runs away grows by a few MiB in this time.
const MEMORY_SAMPLE_EVERY: Duration = Duration::from_millis(50);

/// A limit counted in the CPU time a program's processes use, with a
/// wall-clock deadline as the last net: a program slowed by others' work on a
/// busy machine (another game in parallel, a neighbour's fork bomb) still
/// gets its whole limit of thinking, and one that waits without computing is
/// stopped at the net.
#[derive(Clone, Copy, Debug)]
struct CpuClock {
    /// CPU time the program may use.
    limit: Duration,
    /// Its processes' CPU time when counting began.
    started: Duration,
    /// The wall-clock deadline that holds whatever the CPU time says.
    net: Instant,
}

/// How often a program past its wall-clock deadline but within its CPU
/// time is looked at again.
const CPU_CLOCK_RECHECK: Duration = Duration::from_millis(50);

impl RunningProgram {
    /// Starts the program in its own process group (its own session through
    /// the trampoline) with exactly `spec.env` (and `TREEGRADE_SPIN`, see
    /// `spin_env`), through the sandbox's trampoline when `spec.policy` asks
    /// for one.
    pub fn start(spec: &ProgramSpec) -> io::Result<RunningProgram> {
        if stopping() {
            return Err(io::Error::new(io::ErrorKind::Interrupted, "grading was interrupted"));
        }
        let (program, args) = spec
            .command
            .split_first()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "the command to run is empty"))?;
        let mut command = match &spec.policy {
            Some(policy) => {
                // The trampoline can only say "cannot exec" by exiting: find the program first.
                if !sandbox::program_exists(program, &spec.env, &spec.dir) {
                    return Err(io::Error::new(io::ErrorKind::NotFound, "No such file or directory"));
                }
                let mut command = Command::new(&policy.trampoline);
                command.args([sandbox::TRAMPOLINE_SUBCOMMAND, "--policy", &policy.to_json(), "--", program]);
                command
            }
            None => Command::new(program),
        };
        command
            .args(args)
            .current_dir(&spec.dir)
            .env_clear()
            .envs(spec.env.iter().map(|(k, v)| (k, v)))
            .envs(spin_env())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if spec.policy.is_none() {
            // The trampoline makes its own session (and so its own group);
            // a program started directly gets a group of its own here.
            os::own_process_group(&mut command);
        }
        let mut child = {
            // Registered before any orphan sweep can see it (see `reap_orphans`).
            let mut spawned = spawned_children();
            let child = command.spawn()?;
            spawned.insert(child.id());
            child
        };
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr = child.stderr.take().expect("stderr is piped");
        let handles = os::Handles::new(&child, &stdin, stdout, stderr)?;
        Ok(RunningProgram {
            child,
            stdin: Some(stdin),
            handles,
            stdout_buffer: Vec::new(),
            stdout_open: true,
            stderr_open: true,
            stderr_capture: OutputCapture::default(),
            exit_status: None,
            merge_stdout: false,
            policy: spec.policy.clone(),
            cpu_clock: None,
            memory: MemoryWatch::default(),
        })
    }

    /// From now until [`stop_counting_cpu`], a deadline that passes while
    /// the program's processes have used less than `limit` of CPU time since
    /// this call is extended, up to `net`: the limit is the program's own
    /// thinking, not the machine's load. Where CPU time cannot be read (no
    /// `/proc`), deadlines stay wall-clock ones.
    ///
    /// [`stop_counting_cpu`]: RunningProgram::stop_counting_cpu
    pub fn count_cpu(&mut self, limit: Duration, net: Instant) {
        self.cpu_clock = self.cpu_time().map(|started| CpuClock { limit, started, net });
    }

    /// Deadlines are wall-clock ones again.
    pub fn stop_counting_cpu(&mut self) {
        self.cpu_clock = None;
    }

    /// CPU time (user and system) of the program's processes: the first one,
    /// everything below it, and the children they have reaped (`None` where
    /// the system does not say).
    fn cpu_time(&self) -> Option<Duration> {
        os::cpu_time(self.child.id())
    }

    /// Where a passed `deadline` is extended by the CPU clock: the instant
    /// to wait until instead, or `None` when the program has had its time.
    fn extended(&self, now: Instant) -> Option<Instant> {
        let clock = self.cpu_clock?;
        if now >= clock.net {
            return None;
        }
        let used = self.cpu_time()?.saturating_sub(clock.started);
        let left = clock.limit.checked_sub(used).filter(|left| !left.is_zero())?;
        Some((now + left.min(CPU_CLOCK_RECHECK)).min(clock.net))
    }

    /// The memory limit of each of the program's processes, in MiB, where
    /// its sandbox sets one.
    pub fn memory_limit_mb(&self) -> Option<u64> {
        self.policy.as_ref().map(|policy| policy.limits.memory_mb).filter(|&limit| limit != u64::MAX)
    }

    /// The most memory the grader has seen one of the program's processes
    /// hold, in KiB, of the kind its memory limit counts (looked at once
    /// more now, when it still runs).
    pub fn memory_peak_kib(&mut self) -> u64 {
        self.sample_memory();
        self.memory.peak_kib
    }

    /// Looks at the memory of the program's processes (not the sandbox's own
    /// trampolines, whose allocator reserves memory it never uses).
    fn sample_memory(&mut self) {
        self.memory.last = Some(Instant::now());
        if self.exit_status.is_some() {
            return;
        }
        let largest = os::largest_data_kib(self.child.id(), self.policy.as_ref());
        self.memory.peak_kib = self.memory.peak_kib.max(largest);
    }

    /// Sends one line (newline included), giving up at `deadline`.
    pub fn send(&mut self, line: &str, deadline: Instant) -> Result<(), Interrupted> {
        let mut pending = line.as_bytes();
        while !pending.is_empty() {
            let Some(stdin) = self.stdin.as_mut() else {
                return Err(Interrupted::Ended(self.describe_end()));
            };
            match stdin.write(pending) {
                Ok(written) => pending = &pending[written..],
                Err(error) if error.kind() == io::ErrorKind::WouldBlock => self.pump(deadline, true)?,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(error) if error.kind() == io::ErrorKind::BrokenPipe => {
                    self.stdin = None;
                    return Err(Interrupted::Ended(self.describe_end()));
                }
                Err(error) => return Err(Interrupted::Io(error)),
            }
        }
        Ok(())
    }

    /// Receives one stdout line (without its newline), giving up at `deadline`.
    pub fn receive(&mut self, deadline: Instant) -> Result<String, Interrupted> {
        loop {
            if let Some(end) = self.stdout_buffer.iter().position(|&b| b == b'\n') {
                if end > MAX_LINE_BYTES {
                    return Err(Interrupted::LineTooLong);
                }
                let line: Vec<u8> = self.stdout_buffer.drain(..=end).collect();
                return Ok(String::from_utf8_lossy(&line[..end]).into_owned());
            }
            if self.stdout_buffer.len() > MAX_LINE_BYTES {
                return Err(Interrupted::LineTooLong);
            }
            if !self.stdout_open {
                if !self.stdout_buffer.is_empty() {
                    // A last line without a newline still counts as a line.
                    let line = std::mem::take(&mut self.stdout_buffer);
                    return Ok(String::from_utf8_lossy(&line).into_owned());
                }
                return Err(Interrupted::Ended(self.describe_end()));
            }
            self.pump(deadline, false)?;
        }
    }

    /// The stderr written since the last call, as kept text.
    pub fn take_stderr(&mut self) -> OutputCapture {
        std::mem::take(&mut self.stderr_capture)
    }

    /// Asks the program to exit (closes its stdin), waits up to `grace`, then kills its group.
    pub fn finish(mut self, grace: Duration) -> OutputCapture {
        self.stdin = None;
        let deadline = Instant::now() + grace;
        while self.exit_status.is_none() && Instant::now() < deadline && !stopping() {
            // In slices: a process it left behind may hold its pipes open after it exited.
            let slice = (Instant::now() + Duration::from_millis(10)).min(deadline);
            if self.pump(slice, false).is_err() && !self.stdout_open && !self.stderr_open {
                break;
            }
            self.poll_exit();
        }
        self.kill();
        self.take_stderr()
    }

    /// Runs a command to completion (a build): its stdout and stderr are
    /// kept together; past `deadline` the whole group is killed.
    pub fn run_to_completion(spec: &ProgramSpec, deadline: Instant) -> io::Result<Completion> {
        let mut program = RunningProgram::start(spec)?;
        program.merge_stdout = true;
        program.stdin = None;
        let mut timed_out = false;
        let mut stopped = None;
        while program.stdout_open || program.stderr_open {
            match program.pump(deadline, false) {
                Ok(()) => {}
                Err(Interrupted::TimedOut) => {
                    timed_out = true;
                    break;
                }
                Err(Interrupted::Ended(why)) => {
                    stopped = Some(why);
                    break;
                }
                Err(_) => break,
            }
        }
        if let Some(why) = stopped {
            program.kill();
            return Ok(Completion { success: false, timed_out: false, status: why, output: program.take_stderr() });
        }
        if !timed_out {
            while program.exit_status.is_none() && Instant::now() < deadline {
                program.poll_exit();
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        timed_out |= program.exit_status.is_none();
        program.kill();
        let status = program.exit_status.expect("kill reaps the program");
        Ok(Completion {
            success: status.success() && !timed_out,
            timed_out,
            status: describe_status(status),
            output: program.take_stderr(),
        })
    }

    /// Stops every process of the program (SIGSTOP) until [`resume`]: an
    /// agent waiting for its opponent's move can neither think on the
    /// opponent's time nor slow it down with work left running. Its process
    /// group and every process below its first one are stopped; in a PID
    /// namespace that is all of them, since the namespace's orphans stay
    /// below its first process (without one, a process that left the
    /// session and lost its parent is not found).
    ///
    /// [`resume`]: RunningProgram::resume
    pub fn pause(&self) {
        os::signal_everything(self.child.id(), true);
    }

    /// Lets a paused program run again (SIGCONT to the same processes).
    pub fn resume(&self) {
        os::signal_everything(self.child.id(), false);
    }

    /// Kills the whole process group and reaps the program; then kills and
    /// reaps whatever escaped the group (see `os::reap_escaped`).
    pub fn kill(&mut self) {
        self.handles.kill_all(self.child.id());
        let _ = self.child.kill();
        if let Ok(status) = self.child.wait() {
            self.exit_status.get_or_insert(status);
        }
        spawned_children().remove(&self.child.id());
        os::reap_escaped(self.policy.as_ref());
    }

    /// Waits for readable output (or writable stdin when `writing`) until
    /// `deadline`, then reads whatever arrived; stops a program past its
    /// output limit.
    fn pump(&mut self, deadline: Instant, writing: bool) -> Result<(), Interrupted> {
        if stopping() {
            return Err(stopped());
        }
        let now = Instant::now();
        let until = if now < deadline { deadline } else { self.extended(now).ok_or(Interrupted::TimedOut)? };
        if self.memory.last.is_none_or(|last| now.duration_since(last) >= MEMORY_SAMPLE_EVERY) {
            self.sample_memory();
        }
        // Woken at least as often as memory is looked at, and as a stop is checked.
        let until = until.min(now + MEMORY_SAMPLE_EVERY);
        let open = Open { stdout: self.stdout_open, stderr: self.stderr_open };
        let stdin = self.stdin.as_ref().filter(|_| writing);
        let merge = self.merge_stdout;
        // Read at most a little more than one line's worth per wake-up, so
        // a flood is noticed (and refused) before it fills memory.
        let budget = if merge { usize::MAX } else { MAX_LINE_BYTES + 1 };
        let (buffer, capture) = (&mut self.stdout_buffer, &mut self.stderr_capture);
        let (stdout_open, stderr_open) = (&mut self.stdout_open, &mut self.stderr_open);
        let mut arrived = |stream: Stream, bytes: Option<&[u8]>| match (stream, bytes) {
            (Stream::Stdout, Some(bytes)) if merge => capture.push(bytes),
            (Stream::Stdout, Some(bytes)) => buffer.extend_from_slice(bytes),
            (Stream::Stdout, None) => *stdout_open = false,
            (Stream::Stderr, Some(bytes)) => capture.push(bytes),
            (Stream::Stderr, None) => *stderr_open = false,
        };
        self.handles.read(until_stop_check(until - now), open, stdin, budget, &mut arrived)?;
        self.check_output_limit()
    }

    /// Stops a program that wrote more than [`STDERR_LIMIT_BYTES`] to stderr
    /// (to its output, for a build).
    fn check_output_limit(&self) -> Result<(), Interrupted> {
        if self.stderr_capture.total_bytes() <= STDERR_LIMIT_BYTES {
            return Ok(());
        }
        let what = if self.merge_stdout { "output" } else { "stderr" };
        Err(Interrupted::Ended(format!(
            "was stopped for writing more than {} MiB to {what} (the limit)",
            STDERR_LIMIT_BYTES >> 20
        )))
    }

    fn poll_exit(&mut self) {
        if self.exit_status.is_none()
            && let Ok(Some(status)) = self.child.try_wait()
        {
            self.exit_status = Some(status);
            spawned_children().remove(&self.child.id());
        }
    }

    /// Says how the program ended, waiting briefly for it to exit.
    fn describe_end(&mut self) -> String {
        let deadline = Instant::now() + Duration::from_millis(500);
        while self.exit_status.is_none() && Instant::now() < deadline && !stopping() {
            self.poll_exit();
            if self.exit_status.is_none() {
                // Drain stderr meanwhile: the last words usually explain the end.
                let _ = self.pump(Instant::now() + Duration::from_millis(10), false);
            }
        }
        match self.exit_status {
            Some(status) => describe_status(status),
            None => "closed its standard output but kept running".to_string(),
        }
    }
}

impl Drop for RunningProgram {
    fn drop(&mut self) {
        if self.exit_status.is_none() {
            self.kill();
        }
    }
}

/// How a command run to completion ended.
#[derive(Debug)]
pub struct Completion {
    /// It exited with status 0 in time.
    pub success: bool,
    /// It was killed at the deadline.
    pub timed_out: bool,
    /// "exited with status 101", ...
    pub status: String,
    /// Its stdout and stderr together (head and tail).
    pub output: OutputCapture,
}

/// A program's output streams, as the system side reports them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stream {
    Stdout,
    Stderr,
}

/// Which output streams are still open, to be waited on (Windows's
/// reader threads say so themselves).
#[derive(Clone, Copy, Debug)]
#[cfg_attr(windows, allow(dead_code))]
struct Open {
    stdout: bool,
    stderr: bool,
}

/// `TREEGRADE_SPIN=1` for a program about to start when a core is spare
/// for it: the kits then poll briefly for the grader's reply before they
/// sleep, as the grader does for theirs (see `os::SPIN`).
fn spin_env() -> Option<(&'static str, &'static str)> {
    (os::SPIN_WAITS && core_spare_for(spawned_children().len() + 1)).then_some(("TREEGRADE_SPIN", "1"))
}

/// Whether the machine has a core to spare for spinning while `programs`
/// run: one for each program and one more for each program's wait.
fn core_spare_for(programs: usize) -> bool {
    // Asked once: the standard library reads cgroup files on every call,
    // which would cost more than the spin saves.
    static CORES: OnceLock<usize> = OnceLock::new();
    let cores = *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    cores >= 2 * programs
}

/// Children this process started through [`RunningProgram::start`] and has
/// not reaped yet: the orphan sweep leaves them to their `Child`.
fn spawned_children() -> MutexGuard<'static, BTreeSet<u32>> {
    static SPAWNED: Mutex<BTreeSet<u32>> = Mutex::new(BTreeSet::new());
    SPAWNED.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// "exited with status 1", "was killed by signal 9 (SIGKILL)".
pub fn describe_status(status: ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("exited with status {code}");
    }
    if let Some(killed) = os::describe_signal(status) {
        return killed;
    }
    "ended in an unknown way".to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shell(script: &str) -> ProgramSpec {
        ProgramSpec {
            command: vec!["/bin/sh".into(), "-c".into(), script.into()],
            dir: std::env::temp_dir(),
            env: vec![("PATH".into(), "/usr/bin:/bin".into())],
            policy: None,
        }
    }

    fn soon(ms: u64) -> Instant {
        Instant::now() + Duration::from_millis(ms)
    }

    #[test]
    fn lines_go_both_ways() {
        let mut program = RunningProgram::start(&shell("read line; echo \"got $line\"")).unwrap();
        program.send("hello\n", soon(2000)).unwrap();
        assert_eq!(program.receive(soon(2000)).unwrap(), "got hello");
        assert!(matches!(program.receive(soon(2000)), Err(Interrupted::Ended(end)) if end == "exited with status 0"));
    }

    /// Waiting costs no CPU time: under the CPU clock a program that sleeps
    /// past its wall-clock deadline still answers, up to the net.
    #[cfg(target_os = "linux")]
    #[test]
    fn the_cpu_clock_does_not_charge_waiting() {
        let mut program = RunningProgram::start(&shell("sleep 0.6; echo late")).unwrap();
        program.count_cpu(Duration::from_millis(200), soon(5000));
        assert_eq!(program.receive(soon(200)).unwrap(), "late");
        program.stop_counting_cpu();
        let mut sleeper = RunningProgram::start(&shell("sleep 30")).unwrap();
        sleeper.count_cpu(Duration::from_millis(200), soon(700));
        let started = Instant::now();
        assert!(matches!(sleeper.receive(soon(200)), Err(Interrupted::TimedOut)));
        assert!(started.elapsed() >= Duration::from_millis(600), "the net, not the deadline: {:?}", started.elapsed());
    }

    /// Computing costs CPU time: a busy program is stopped once it has used
    /// its limit, long before the net.
    #[cfg(target_os = "linux")]
    #[test]
    fn the_cpu_clock_stops_a_busy_program() {
        let mut program = RunningProgram::start(&shell("while :; do :; done")).unwrap();
        program.count_cpu(Duration::from_millis(300), soon(20_000));
        let started = Instant::now();
        assert!(matches!(program.receive(soon(300)), Err(Interrupted::TimedOut)));
        assert!(started.elapsed() < Duration::from_secs(15), "{:?}", started.elapsed());
        assert!(program.cpu_time().unwrap() >= Duration::from_millis(300));
    }

    #[test]
    fn a_silent_program_times_out_and_is_killed() {
        let mut program = RunningProgram::start(&shell("sleep 30")).unwrap();
        let started = Instant::now();
        assert!(matches!(program.receive(soon(200)), Err(Interrupted::TimedOut)));
        assert!(started.elapsed() < Duration::from_secs(2));
        program.kill();
    }

    #[test]
    fn stderr_is_drained_and_capped() {
        // 1 MB on stderr would block a program whose stderr nobody reads.
        let mut program =
            RunningProgram::start(&shell("head -c 1000000 /dev/zero | tr '\\0' x >&2; echo done")).unwrap();
        assert_eq!(program.receive(soon(5000)).unwrap(), "done");
        let capture = program.finish(Duration::from_millis(500));
        assert_eq!(capture.total_bytes(), 1_000_000);
        assert!(capture.text().contains("bytes of output omitted"));
        assert!(capture.text().len() < 3 * STDERR_KEEP_BYTES);
    }

    #[test]
    fn overlong_lines_are_refused() {
        let mut program = RunningProgram::start(&shell("head -c 3000000 /dev/zero | tr '\\0' x")).unwrap();
        assert!(matches!(program.receive(soon(5000)), Err(Interrupted::LineTooLong)));
    }

    #[test]
    fn overlong_lines_are_refused_even_when_they_end() {
        let mut program = RunningProgram::start(&shell("head -c 3000000 /dev/zero | tr '\\0' x; echo")).unwrap();
        assert!(matches!(program.receive(soon(5000)), Err(Interrupted::LineTooLong)));
    }

    #[test]
    fn crashes_are_described() {
        let mut program = RunningProgram::start(&shell("echo oops >&2; kill -SEGV $$")).unwrap();
        let Err(Interrupted::Ended(end)) = program.receive(soon(2000)) else { panic!("expected the end") };
        assert!(end.contains("signal 11"), "{end}");
        assert!(program.take_stderr().text().contains("oops"));
    }

    #[test]
    fn builds_run_to_completion_with_their_output() {
        let done =
            RunningProgram::run_to_completion(&shell("echo compiling; echo oops >&2; exit 3"), soon(5000)).unwrap();
        assert!(!done.success && !done.timed_out);
        assert_eq!(done.status, "exited with status 3");
        assert!(done.output.text().contains("compiling") && done.output.text().contains("oops"));
        let slow = RunningProgram::run_to_completion(&shell("sleep 30"), soon(200)).unwrap();
        assert!(slow.timed_out && !slow.success);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn processes_that_left_the_group_are_killed_and_reaped() {
        // As in a grading run: orphans come to this process, which reaps them.
        rustix::process::set_child_subreaper(Some(rustix::process::getpid())).unwrap();
        let mut program = RunningProgram::start(&shell("setsid sleep 30 & echo $!; read wait")).unwrap();
        let escaped: i32 = program.receive(soon(5000)).unwrap().trim().parse().unwrap();
        let escaped = rustix::process::Pid::from_raw(escaped).unwrap();
        assert!(rustix::process::test_kill_process(escaped).is_ok(), "the escaped process runs");
        program.kill();
        assert_eq!(rustix::process::test_kill_process(escaped), Err(rustix::io::Errno::SRCH), "killed and reaped");
    }

    #[test]
    fn a_stderr_flood_is_stopped() {
        let mut program = RunningProgram::start(&shell("head -c 100000000 /dev/zero >&2; echo done")).unwrap();
        let Err(Interrupted::Ended(end)) = program.receive(soon(10_000)) else { panic!("expected a stop") };
        assert!(end.contains("more than 16 MiB to stderr"), "{end}");
        program.kill();
        assert!(program.take_stderr().total_bytes() < 2 * STDERR_LIMIT_BYTES);
    }

    #[test]
    fn missing_programs_fail_to_start() {
        let spec = ProgramSpec { command: vec!["/no/such/program".into()], ..shell("") };
        assert!(RunningProgram::start(&spec).is_err());
    }
}
