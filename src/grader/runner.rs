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

use std::collections::{BTreeSet, VecDeque};
use std::ffi::OsString;
#[cfg(unix)]
use std::io::Read;
use std::io::{self, Write};
#[cfg(unix)]
use std::os::fd::AsFd;
#[cfg(unix)]
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
#[cfg(unix)]
use std::process::{ChildStderr, ChildStdout};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

#[cfg(unix)]
use rustix::event::{PollFd, PollFlags, Timespec, poll};
#[cfg(unix)]
use rustix::process::{Pid, Signal, WaitOptions, kill_process, kill_process_group, waitpid};

use super::protocol::MAX_LINE_BYTES;
use super::sandbox::{self, Policy};

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
    #[cfg(unix)]
    stdout: ChildStdout,
    #[cfg(unix)]
    stderr: ChildStderr,
    /// What the reader threads read (Windows has no `poll` over pipes).
    #[cfg(windows)]
    output: std::sync::mpsc::Receiver<(Stream, Option<Vec<u8>>)>,
    /// The job object holding the program and what it starts, Windows's
    /// process group (`None` where the system refused one).
    #[cfg(windows)]
    job: Option<windows::Job>,
    stdout_buffer: Vec<u8>,
    stdout_open: bool,
    stderr_open: bool,
    stderr_capture: OutputCapture,
    exit_status: Option<ExitStatus>,
    /// For builds: stdout joins stderr in one capture instead of being read as lines.
    merge_stdout: bool,
    /// Read buffer, allocated once: zero-filling a fresh one per read would
    /// cost more than the round trip it serves.
    #[cfg_attr(windows, allow(dead_code))]
    scratch: Vec<u8>,
    /// The sandbox it runs in, to kill what it leaves behind.
    #[cfg_attr(windows, allow(dead_code))]
    policy: Option<Policy>,
    /// While set, a deadline counts the program's own CPU time (see
    /// [`RunningProgram::count_cpu`]).
    #[cfg_attr(windows, allow(dead_code))]
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
#[cfg_attr(windows, allow(dead_code))]
const MEMORY_SAMPLE_EVERY: Duration = Duration::from_millis(50);

/// The most processes whose memory is looked at (the first ones below the
/// program's first process, where the program and its helpers are): a
/// program that forks without end is not worth walking in full each time.
#[cfg(unix)]
const MEMORY_SAMPLE_PROCESSES: usize = 8;

/// A limit counted in the CPU time a program's processes use, with a
/// wall-clock deadline as the last net: a program slowed by others' work on a
/// busy machine (another game in parallel, a neighbour's fork bomb) still
/// gets its whole limit of thinking, and one that waits without computing is
/// stopped at the net.
#[derive(Clone, Copy, Debug)]
#[cfg_attr(windows, allow(dead_code))]
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
#[cfg(unix)]
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
        #[cfg(unix)]
        if spec.policy.is_none() {
            // The trampoline makes its own session (and so its own group);
            // a program started directly gets a group of its own here.
            command.process_group(0);
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
        #[cfg(unix)]
        for fd in [stdin.as_fd(), stdout.as_fd(), stderr.as_fd()] {
            rustix::io::ioctl_fionbio(fd, true)?;
        }
        #[cfg(windows)]
        let output = windows::read_in_threads(stdout, stderr);
        #[cfg(windows)]
        let job = windows::Job::holding(&child).ok();
        Ok(RunningProgram {
            child,
            stdin: Some(stdin),
            #[cfg(unix)]
            stdout,
            #[cfg(unix)]
            stderr,
            #[cfg(windows)]
            output,
            #[cfg(windows)]
            job,
            stdout_buffer: Vec::new(),
            stdout_open: true,
            stderr_open: true,
            stderr_capture: OutputCapture::default(),
            exit_status: None,
            merge_stdout: false,
            scratch: vec![0; READ_CHUNK_BYTES],
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
    /// everything below it, and the children they have reaped.
    #[cfg(unix)]
    fn cpu_time(&self) -> Option<Duration> {
        let root = self.child.id();
        let mut ticks = process_cpu_ticks(root)?;
        for pid in descendants(root) {
            ticks += process_cpu_ticks(pid).unwrap_or(0);
        }
        let per_second = rustix::param::clock_ticks_per_second().max(1);
        Some(Duration::from_secs_f64(ticks as f64 / per_second as f64))
    }

    #[cfg(windows)]
    fn cpu_time(&self) -> Option<Duration> {
        None
    }

    /// Where a passed `deadline` is extended by the CPU clock: the instant
    /// to wait until instead, or `None` when the program has had its time.
    #[cfg(unix)]
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
    #[cfg(unix)]
    fn sample_memory(&mut self) {
        self.memory.last = Some(Instant::now());
        if self.exit_status.is_some() {
            return;
        }
        let trampoline = self.policy.as_ref().and_then(|policy| policy.trampoline.file_name()).map(|name| {
            // The kernel keeps the first 15 bytes of a command's name.
            let name = name.to_string_lossy();
            name.chars().take(15).collect::<String>()
        });
        let root = self.child.id();
        for pid in std::iter::once(root).chain(descendants_up_to(root, MEMORY_SAMPLE_PROCESSES)) {
            let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else { continue };
            let field = |key: &str| status.lines().find_map(|line| line.strip_prefix(key)).map(str::trim);
            if trampoline.is_some() && field("Name:") == trampoline.as_deref() {
                continue;
            }
            let data = field("VmData:").and_then(|value| value.trim_end_matches("kB").trim().parse::<u64>().ok());
            self.memory.peak_kib = self.memory.peak_kib.max(data.unwrap_or(0));
        }
    }

    #[cfg(windows)]
    fn sample_memory(&mut self) {}

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
        #[cfg(unix)]
        self.signal_everything(Signal::STOP);
    }

    /// Lets a paused program run again (SIGCONT to the same processes).
    pub fn resume(&self) {
        #[cfg(unix)]
        self.signal_everything(Signal::CONT);
    }

    #[cfg(unix)]
    fn signal_everything(&self, signal: Signal) {
        let root = self.child.id();
        if let Some(pid) = Pid::from_raw(root as i32) {
            let _ = kill_process_group(pid, signal);
        }
        for pid in descendants(root) {
            if let Some(pid) = Pid::from_raw(pid as i32) {
                let _ = kill_process(pid, signal);
            }
        }
    }

    /// Kills the whole process group and reaps the program; then kills and
    /// reaps whatever escaped the group (see [`reap_orphans`]).
    pub fn kill(&mut self) {
        #[cfg(unix)]
        if let Some(pid) = Pid::from_raw(self.child.id() as i32) {
            // The group may already be gone; nothing to do then.
            let _ = kill_process_group(pid, Signal::KILL);
        }
        #[cfg(windows)]
        if let Some(job) = &self.job {
            job.kill_all();
        }
        let _ = self.child.kill();
        if let Ok(status) = self.child.wait() {
            self.exit_status.get_or_insert(status);
        }
        spawned_children().remove(&self.child.id());
        #[cfg(unix)]
        {
            let dedicated = self.policy.as_ref().and_then(|policy| Some((&policy.trampoline, policy.run_as?)));
            reap_orphans(dedicated);
        }
    }

    /// Waits for readable output (or writable stdin when `writing`) until
    /// `deadline`, then reads whatever arrived.
    #[cfg(unix)]
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
        let ready = self.wait_ready(duration_to_timespec(until_stop_check(until - now)), writing)?;
        if ready.stdout {
            let (buffer, capture) = (&mut self.stdout_buffer, &mut self.stderr_capture);
            let merge = self.merge_stdout;
            // Read at most a little more than one line's worth per wake-up, so
            // a flood is noticed (and refused) before it fills memory.
            let budget = if merge { usize::MAX } else { MAX_LINE_BYTES + 1 };
            self.stdout_open = read_available(&mut self.stdout, &mut self.scratch, budget, |bytes| {
                if merge { capture.push(bytes) } else { buffer.extend_from_slice(bytes) }
            })?;
        }
        if ready.stderr {
            let capture = &mut self.stderr_capture;
            self.stderr_open =
                read_available(&mut self.stderr, &mut self.scratch, MAX_LINE_BYTES, |bytes| capture.push(bytes))?;
        }
        if self.stderr_capture.total_bytes() > STDERR_LIMIT_BYTES {
            let what = if self.merge_stdout { "output" } else { "stderr" };
            return Err(Interrupted::Ended(format!(
                "was stopped for writing more than {} MiB to {what} (the limit)",
                STDERR_LIMIT_BYTES >> 20
            )));
        }
        Ok(())
    }

    /// Waits for output from the reader threads until `deadline`, then takes
    /// whatever arrived. Writes to stdin block on Windows, so `writing`
    /// never has to wait here.
    #[cfg(windows)]
    fn pump(&mut self, deadline: Instant, _writing: bool) -> Result<(), Interrupted> {
        use std::sync::mpsc::RecvTimeoutError;
        if stopping() {
            return Err(stopped());
        }
        let now = Instant::now();
        if now >= deadline {
            return Err(Interrupted::TimedOut);
        }
        let mut next = match self.output.recv_timeout(until_stop_check(deadline - now)) {
            Ok(arrived) => Some(arrived),
            Err(RecvTimeoutError::Timeout) => return Ok(()),
            Err(RecvTimeoutError::Disconnected) => {
                (self.stdout_open, self.stderr_open) = (false, false);
                return Ok(());
            }
        };
        while let Some((stream, bytes)) = next {
            match (stream, bytes) {
                (Stream::Stdout, Some(bytes)) if self.merge_stdout => self.stderr_capture.push(&bytes),
                (Stream::Stdout, Some(bytes)) => self.stdout_buffer.extend_from_slice(&bytes),
                (Stream::Stdout, None) => self.stdout_open = false,
                (_, Some(bytes)) => self.stderr_capture.push(&bytes),
                (_, None) => self.stderr_open = false,
            }
            next = self.output.try_recv().ok();
        }
        if self.stderr_capture.total_bytes() > STDERR_LIMIT_BYTES {
            let what = if self.merge_stdout { "output" } else { "stderr" };
            return Err(Interrupted::Ended(format!(
                "was stopped for writing more than {} MiB to {what} (the limit)",
                STDERR_LIMIT_BYTES >> 20
            )));
        }
        Ok(())
    }

    /// Polls the open streams; returns those that are ready.
    #[cfg(unix)]
    fn wait_ready(&self, timeout: Timespec, writing: bool) -> Result<Ready, Interrupted> {
        // Fixed arrays: this runs once per entered node, so no allocation.
        let idle = PollFd::new(&self.stdout, PollFlags::empty());
        let mut fds = [idle.clone(), idle.clone(), idle];
        let mut streams = [Stream::Stdout; 3];
        let mut count = 0;
        if self.stdout_open {
            watch(&mut fds, &mut streams, &mut count, PollFd::new(&self.stdout, PollFlags::IN), Stream::Stdout);
        }
        if self.stderr_open {
            watch(&mut fds, &mut streams, &mut count, PollFd::new(&self.stderr, PollFlags::IN), Stream::Stderr);
        }
        if let (Some(stdin), true) = (&self.stdin, writing) {
            watch(&mut fds, &mut streams, &mut count, PollFd::new(stdin, PollFlags::OUT), Stream::Stdin);
        }
        if count == 0 {
            return Err(Interrupted::Ended("closed its output".to_string()));
        }
        let ready_early = spin_poll(&mut fds[..count]);
        match if ready_early { Ok(1) } else { poll(&mut fds[..count], Some(&timeout)) } {
            Ok(_) => {}
            Err(rustix::io::Errno::INTR) => return Ok(Ready::default()),
            Err(error) => return Err(Interrupted::Io(error.into())),
        }
        let mut ready = Ready::default();
        for (fd, stream) in fds[..count].iter().zip(streams) {
            if !fd.revents().is_empty() {
                match stream {
                    Stream::Stdout => ready.stdout = true,
                    Stream::Stderr => ready.stderr = true,
                    Stream::Stdin => {}
                }
            }
        }
        Ok(ready)
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

/// Adds a stream to the next free slot of a poll set.
#[cfg(unix)]
fn watch<'a>(fds: &mut [PollFd<'a>; 3], streams: &mut [Stream; 3], count: &mut usize, fd: PollFd<'a>, stream: Stream) {
    fds[*count] = fd;
    streams[*count] = stream;
    *count += 1;
}

/// Which output streams a poll found readable (or closed).
#[cfg(unix)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Ready {
    stdout: bool,
    stderr: bool,
}

/// The program's standard streams, as the poll loop names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stream {
    #[cfg_attr(windows, allow(dead_code))]
    Stdin,
    Stdout,
    Stderr,
}

/// Reads what is available, up to about `budget` bytes; returns whether the
/// stream is still open.
#[cfg(unix)]
fn read_available(
    stream: &mut impl Read,
    chunk: &mut [u8],
    budget: usize,
    mut sink: impl FnMut(&[u8]),
) -> Result<bool, Interrupted> {
    let mut taken = 0usize;
    loop {
        match stream.read(chunk) {
            Ok(0) => return Ok(false),
            Ok(read) => {
                sink(&chunk[..read]);
                taken += read;
                if read < chunk.len() || taken >= budget {
                    return Ok(true);
                }
            }
            Err(error) if error.kind() == io::ErrorKind::WouldBlock => return Ok(true),
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => return Err(Interrupted::Io(error)),
        }
    }
}

/// `TREEGRADE_SPIN=1` for a program about to start when a core is spare
/// for it: the kits then poll briefly for the grader's reply before they
/// sleep, as the grader does for theirs (see [`SPIN`]).
fn spin_env() -> Option<(&'static str, &'static str)> {
    (cfg!(unix) && core_spare_for(spawned_children().len() + 1)).then_some(("TREEGRADE_SPIN", "1"))
}

/// How long a wait for a program's reply spins before it sleeps in `poll`.
///
/// A searcher answers within tens of microseconds, and a grader that sleeps
/// in the meantime lets its (virtual) CPU halt, whose wake-up can cost more
/// than the reply itself: spinning briefly takes a third off a whole `check`
/// on a two-core virtual machine. It is done only when a core is spare for
/// it (a core for each running program and one more for the grader), so
/// that spinning never takes a core from a student's program in a batch.
#[cfg(unix)]
const SPIN: Duration = Duration::from_micros(50);

/// Polls `fds` without sleeping for up to [`SPIN`], where a core is spare;
/// whether one became ready.
#[cfg(unix)]
fn spin_poll(fds: &mut [PollFd<'_>]) -> bool {
    if !core_spare_for(spawned_children().len().max(1)) {
        return false;
    }
    let start = Instant::now();
    let now = Timespec { tv_sec: 0, tv_nsec: 0 };
    while start.elapsed() < SPIN {
        if poll(fds, Some(&now)).is_ok_and(|ready| ready > 0) {
            return true;
        }
        std::hint::spin_loop();
    }
    false
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

/// Kills and reaps what a program left behind after its group was killed.
#[cfg(unix)]
///
/// With a dedicated user (root graders), the trampoline kills every process of
/// that user (`kill(-1)` as that user), even those that called `setsid`.
/// Then the orphans the grader inherited as child subreaper are killed and
/// reaped, each by its pid. A plain `waitpid(-1)` would also reap the children
/// that other threads' `Child` handles are waiting for; so an orphan is a child
/// of this process that `start` did not register and that is in another
/// process group or user namespace than the grader (a student process that
/// escaped its group), or runs as the dedicated user.
pub fn reap_orphans(dedicated: Option<(&PathBuf, u32)>) {
    let deadline = Instant::now() + Duration::from_secs(2);
    for round in 0.. {
        if let Some((trampoline, uid)) = dedicated
            && (round == 0 || processes_of_user(uid) > 0)
        {
            let _ = Command::new(trampoline)
                .args([sandbox::TRAMPOLINE_SUBCOMMAND, "--kill-user", &uid.to_string()])
                .env_clear()
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
        }
        let pending = sweep_orphans(dedicated.map(|(_, uid)| uid));
        let lingering = dedicated.map_or(0, |(_, uid)| processes_of_user(uid));
        if (pending == 0 && lingering == 0) || Instant::now() >= deadline {
            break;
        }
        std::thread::sleep(Duration::from_millis(if round < 10 { 2 } else { 20 }));
    }
}

/// One pass over this process's children: kills and reaps the orphans; returns how many are not reaped yet.
#[cfg(unix)]
fn sweep_orphans(dedicated_uid: Option<u32>) -> usize {
    let me = std::process::id();
    let my_group = rustix::process::getpgrp().as_raw_nonzero().get();
    let my_namespace = std::fs::read_link("/proc/self/ns/user").ok();
    let spawned = spawned_children();
    let mut pending = 0;
    let Ok(entries) = std::fs::read_dir("/proc") else { return 0 };
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|name| name.parse::<u32>().ok()) else { continue };
        let Some(stat) = ProcStat::read(pid) else { continue };
        if stat.parent != me || spawned.contains(&pid) {
            continue;
        }
        let namespace = std::fs::read_link(format!("/proc/{pid}/ns/user")).ok();
        let escaped = stat.group != my_group
            || (namespace.is_some() && namespace != my_namespace)
            || dedicated_uid.is_some_and(|uid| process_uid(pid) == Some(uid));
        if !escaped {
            continue;
        }
        let Some(process) = Pid::from_raw(pid as i32) else { continue };
        let _ = kill_process(process, Signal::KILL);
        match waitpid(Some(process), WaitOptions::NOHANG) {
            Ok(Some(_)) | Err(_) => {}
            Ok(None) => pending += 1,
        }
    }
    pending
}

/// The fields of `/proc/PID/stat` the sweep needs.
#[cfg(unix)]
struct ProcStat {
    parent: u32,
    group: i32,
}

#[cfg(unix)]
impl ProcStat {
    fn read(pid: u32) -> Option<ProcStat> {
        let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // `pid (comm) state ppid pgrp ...`; comm may hold spaces and parentheses.
        let mut fields = text.get(text.rfind(')')? + 1..)?.split_whitespace();
        let _state = fields.next()?;
        Some(ProcStat { parent: fields.next()?.parse().ok()?, group: fields.next()?.parse().ok()? })
    }
}

fn process_uid(pid: u32) -> Option<u32> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status.lines().find_map(|line| line.strip_prefix("Uid:"))?.split_whitespace().next()?.parse().ok()
}

/// Every process below `root` (its children, theirs, ...), from
/// `/proc/PID/task/TID/children`; empty where the system does not list children.
#[cfg(unix)]
fn descendants(root: u32) -> Vec<u32> {
    descendants_up_to(root, 100_000)
}

/// The first `most` processes below `root`, nearest first.
#[cfg(unix)]
fn descendants_up_to(root: u32, most: usize) -> Vec<u32> {
    let mut found = Vec::new();
    let mut pending = std::collections::VecDeque::from([root]);
    while let Some(pid) = pending.pop_front() {
        if found.len() >= most {
            break;
        }
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else { continue };
        for task in tasks.flatten() {
            let Ok(children) = std::fs::read_to_string(task.path().join("children")) else { continue };
            for child in children.split_whitespace().filter_map(|child| child.parse::<u32>().ok()) {
                // A process is listed once, under its one parent; the bound guards against a race.
                if found.len() < most && !found.contains(&child) {
                    found.push(child);
                    pending.push_back(child);
                }
            }
        }
    }
    found
}

/// A process's CPU time in clock ticks: its own user and system time and
/// that of the children it has reaped (`/proc/PID/stat` fields 14 to 17).
#[cfg(unix)]
fn process_cpu_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name, in parentheses, may hold spaces: count from after it.
    let fields: Vec<&str> = stat.get(stat.rfind(')')? + 1..)?.split_whitespace().collect();
    // After the name, field 3 (the state) is at index 0, so field N is at N - 3.
    fields.get(11..15)?.iter().map(|field| field.parse::<u64>().ok()).sum()
}

/// How many processes (zombies included) run as `uid`.
pub fn processes_of_user(uid: u32) -> usize {
    let Ok(entries) = std::fs::read_dir("/proc") else { return 0 };
    entries
        .flatten()
        .filter_map(|entry| entry.file_name().to_str().and_then(|name| name.parse::<u32>().ok()))
        .filter(|&pid| process_uid(pid) == Some(uid))
        .count()
}

#[cfg(unix)]
fn duration_to_timespec(duration: Duration) -> Timespec {
    Timespec { tv_sec: duration.as_secs() as _, tv_nsec: duration.subsec_nanos() as _ }
}

/// "exited with status 1", "was killed by signal 9 (SIGKILL)".
pub fn describe_status(status: ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("exited with status {code}");
    }
    #[cfg(unix)]
    if let Some(signal) = status.signal() {
        return format!("was killed by signal {signal}{}", signal_name(signal));
    }
    "ended in an unknown way".to_string()
}

#[cfg(unix)]
fn signal_name(signal: i32) -> &'static str {
    match signal {
        6 => {
            " (SIGABRT: the program aborted itself, as os.abort(), a failed assertion in C, C++ or Rust code, \
             a Rust panic set to abort, or memory corrupted by a native extension do)"
        }
        7 => " (SIGBUS: a native extension or the program's own code read memory it should not)",
        8 => " (SIGFPE: an arithmetic error in native code, such as an integer division by zero)",
        9 => " (SIGKILL: killed from outside the program, e.g. by the system when memory ran out, or past a limit)",
        11 => {
            " (SIGSEGV, a segmentation fault: a native extension (ctypes, a C library) or the program's own \
             code read memory it should not, or a recursion went deeper than the stack allows; look at the \
             deepest recursion and at any native code)"
        }
        15 => " (SIGTERM)",
        24 => " (SIGXCPU: the CPU time limit of the whole run was used up)",
        25 => " (SIGXFSZ: a file grew past the file size limit)",
        _ => "",
    }
}

/// Windows has no `poll` over pipes: a thread per output stream reads it
/// into a bounded channel (a program that floods its output then waits, as
/// a full pipe would make it), and the grader waits on the channel.
#[cfg(windows)]
mod windows {
    use std::io::{self, Read};
    use std::os::windows::io::AsRawHandle;
    use std::process::{Child, ChildStderr, ChildStdout};
    use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

    use windows_sys::Win32::Foundation::{CloseHandle, HANDLE};
    use windows_sys::Win32::System::JobObjects::{
        AssignProcessToJobObject, CreateJobObjectW, JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
        JOBOBJECT_EXTENDED_LIMIT_INFORMATION, JobObjectExtendedLimitInformation, SetInformationJobObject,
        TerminateJobObject,
    };

    use super::{READ_CHUNK_BYTES, Stream};

    /// A job object: Windows's way to kill a program with every process it
    /// started, as a process group is on Unix. Closing it (dropping this, or
    /// the grader dying) kills them too.
    ///
    /// The program is assigned just after it starts, so a process it starts
    /// in its very first instructions would escape; an interpreter or a
    /// compiled searcher takes far longer than that to reach its own code.
    #[derive(Debug)]
    pub(super) struct Job(HANDLE);

    // The handle is a kernel object's, usable from any thread.
    unsafe impl Send for Job {}
    unsafe impl Sync for Job {}

    impl Job {
        /// A new job holding `child`, set to kill everything in it when closed.
        pub(super) fn holding(child: &Child) -> io::Result<Job> {
            // SAFETY: plain Win32 calls on handles this function owns or that
            // `child` keeps open; the limits structure outlives the call that reads it.
            unsafe {
                let handle = CreateJobObjectW(std::ptr::null(), std::ptr::null());
                if handle.is_null() {
                    return Err(io::Error::last_os_error());
                }
                let job = Job(handle);
                let mut limits: JOBOBJECT_EXTENDED_LIMIT_INFORMATION = std::mem::zeroed();
                limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
                let set = SetInformationJobObject(
                    job.0,
                    JobObjectExtendedLimitInformation,
                    (&raw const limits).cast(),
                    std::mem::size_of::<JOBOBJECT_EXTENDED_LIMIT_INFORMATION>() as u32,
                );
                if set == 0 || AssignProcessToJobObject(job.0, child.as_raw_handle() as HANDLE) == 0 {
                    return Err(io::Error::last_os_error());
                }
                Ok(job)
            }
        }

        /// Kills every process in the job.
        pub(super) fn kill_all(&self) {
            // SAFETY: the handle is open until `drop`.
            unsafe {
                TerminateJobObject(self.0, 1);
            }
        }
    }

    impl Drop for Job {
        fn drop(&mut self) {
            // SAFETY: the handle is open and closed only here.
            unsafe {
                CloseHandle(self.0);
            }
        }
    }

    pub(super) fn read_in_threads(stdout: ChildStdout, stderr: ChildStderr) -> Receiver<(Stream, Option<Vec<u8>>)> {
        let (sender, receiver) = sync_channel(16);
        spawn_reader(stdout, Stream::Stdout, sender.clone());
        spawn_reader(stderr, Stream::Stderr, sender);
        receiver
    }

    fn spawn_reader(
        mut stream: impl Read + Send + 'static,
        name: Stream,
        sender: SyncSender<(Stream, Option<Vec<u8>>)>,
    ) {
        std::thread::spawn(move || {
            let mut chunk = vec![0; READ_CHUNK_BYTES];
            loop {
                match stream.read(&mut chunk) {
                    Ok(0) | Err(_) => break,
                    Ok(read) => {
                        if sender.send((name, Some(chunk[..read].to_vec()))).is_err() {
                            return;
                        }
                    }
                }
            }
            let _ = sender.send((name, None));
        });
    }
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
        let escaped = Pid::from_raw(escaped).unwrap();
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
