//! The runner's Unix side: non-blocking pipes waited on with `poll(2)`,
//! process groups and signals, and `/proc` for CPU time, memory and the
//! processes a program left behind.

use std::io::{self, Read};
use std::os::fd::AsFd;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec, poll};
use rustix::process::{Pid, Signal, WaitOptions, kill_process, kill_process_group, waitpid};

use super::{Interrupted, MAX_LINE_BYTES, Open, READ_CHUNK_BYTES, Stream, core_spare_for, spawned_children};
use crate::grader::sandbox::{self, Policy};

/// Whether a wait for a program's reply may spin before it sleeps (see [`SPIN`]).
pub(super) const SPIN_WAITS: bool = true;

/// The most processes whose memory is looked at (the first ones below the
/// program's first process, where the program and its helpers are): a
/// program that forks without end is not worth walking in full each time.
const MEMORY_SAMPLE_PROCESSES: usize = 8;

/// The grader's hold on a started program's output: its stdout and stderr
/// pipes, non-blocking, and one read buffer.
#[derive(Debug)]
pub(super) struct Handles {
    stdout: ChildStdout,
    stderr: ChildStderr,
    /// Read buffer, allocated once: zero-filling a fresh one per read would
    /// cost more than the round trip it serves.
    scratch: Vec<u8>,
}

impl Handles {
    /// Makes the program's three pipes non-blocking and keeps its output ones.
    pub(super) fn new(
        _child: &Child,
        stdin: &ChildStdin,
        stdout: ChildStdout,
        stderr: ChildStderr,
    ) -> io::Result<Handles> {
        for fd in [stdin.as_fd(), stdout.as_fd(), stderr.as_fd()] {
            rustix::io::ioctl_fionbio(fd, true)?;
        }
        Ok(Handles { stdout, stderr, scratch: vec![0; READ_CHUNK_BYTES] })
    }

    /// Waits up to `wait` for output on the `open` streams (or for room in
    /// `stdin`, when given), then hands what arrived to `arrived`: bytes, or
    /// `None` for a stream that closed. At most about `stdout_budget` bytes
    /// of stdout are read per call, so a flood is noticed before it fills memory.
    pub(super) fn read(
        &mut self,
        wait: Duration,
        open: Open,
        stdin: Option<&ChildStdin>,
        stdout_budget: usize,
        arrived: &mut dyn FnMut(Stream, Option<&[u8]>),
    ) -> Result<(), Interrupted> {
        let ready = self.wait_ready(duration_to_timespec(wait), open, stdin)?;
        if ready.stdout
            && !read_available(&mut self.stdout, &mut self.scratch, stdout_budget, |bytes| {
                arrived(Stream::Stdout, Some(bytes))
            })?
        {
            arrived(Stream::Stdout, None);
        }
        if ready.stderr
            && !read_available(&mut self.stderr, &mut self.scratch, MAX_LINE_BYTES, |bytes| {
                arrived(Stream::Stderr, Some(bytes))
            })?
        {
            arrived(Stream::Stderr, None);
        }
        Ok(())
    }

    /// Polls the open streams; returns those that are ready.
    fn wait_ready(&self, timeout: Timespec, open: Open, stdin: Option<&ChildStdin>) -> Result<Ready, Interrupted> {
        // Fixed arrays: this runs once per entered node, so no allocation.
        let idle = PollFd::new(&self.stdout, PollFlags::empty());
        let mut fds = [idle.clone(), idle.clone(), idle];
        let mut slots = [Slot::Stdout; 3];
        let mut count = 0;
        if open.stdout {
            watch(&mut fds, &mut slots, &mut count, PollFd::new(&self.stdout, PollFlags::IN), Slot::Stdout);
        }
        if open.stderr {
            watch(&mut fds, &mut slots, &mut count, PollFd::new(&self.stderr, PollFlags::IN), Slot::Stderr);
        }
        if let Some(stdin) = stdin {
            watch(&mut fds, &mut slots, &mut count, PollFd::new(stdin, PollFlags::OUT), Slot::Stdin);
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
        for (fd, slot) in fds[..count].iter().zip(slots) {
            if !fd.revents().is_empty() {
                match slot {
                    Slot::Stdout => ready.stdout = true,
                    Slot::Stderr => ready.stderr = true,
                    Slot::Stdin => {}
                }
            }
        }
        Ok(ready)
    }

    /// Kills the program's whole process group.
    pub(super) fn kill_all(&self, root: u32) {
        if let Some(pid) = Pid::from_raw(root as i32) {
            // The group may already be gone; nothing to do then.
            let _ = kill_process_group(pid, Signal::KILL);
        }
    }
}

/// Gives a program started directly a process group of its own (the
/// trampoline makes its own session, and so its own group).
pub(super) fn own_process_group(command: &mut Command) {
    command.process_group(0);
}

/// Stops (`pause`) or continues every process of the program: its process
/// group and every process below its first one.
pub(super) fn signal_everything(root: u32, pause: bool) {
    let signal = if pause { Signal::STOP } else { Signal::CONT };
    if let Some(pid) = Pid::from_raw(root as i32) {
        let _ = kill_process_group(pid, signal);
    }
    for pid in descendants(root) {
        if let Some(pid) = Pid::from_raw(pid as i32) {
            let _ = kill_process(pid, signal);
        }
    }
}

/// After a program's group was killed: kills and reaps what escaped it (see [`reap_orphans`]).
pub(super) fn reap_escaped(policy: Option<&Policy>) {
    let dedicated = policy.and_then(|policy| Some((&policy.trampoline, policy.run_as?)));
    reap_orphans(dedicated);
}

/// CPU time (user and system) of the program's processes: the first one,
/// everything below it, and the children they have reaped.
pub(super) fn cpu_time(root: u32) -> Option<Duration> {
    let mut ticks = process_cpu_ticks(root)?;
    for pid in descendants(root) {
        ticks += process_cpu_ticks(pid).unwrap_or(0);
    }
    let per_second = rustix::param::clock_ticks_per_second().max(1);
    Some(Duration::from_secs_f64(ticks as f64 / per_second as f64))
}

/// The most memory one of the program's processes holds now, in KiB, of
/// the kind its memory limit counts (`VmData`), not counting the sandbox's
/// own trampolines, whose allocator reserves memory it never uses.
pub(super) fn largest_data_kib(root: u32, policy: Option<&Policy>) -> u64 {
    let trampoline = policy.and_then(|policy| policy.trampoline.file_name()).map(|name| {
        // The kernel keeps the first 15 bytes of a command's name.
        let name = name.to_string_lossy();
        name.chars().take(15).collect::<String>()
    });
    let mut largest = 0;
    for pid in std::iter::once(root).chain(descendants_up_to(root, MEMORY_SAMPLE_PROCESSES)) {
        let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else { continue };
        let field = |key: &str| status.lines().find_map(|line| line.strip_prefix(key)).map(str::trim);
        if trampoline.is_some() && field("Name:") == trampoline.as_deref() {
            continue;
        }
        let data = field("VmData:").and_then(|value| value.trim_end_matches("kB").trim().parse::<u64>().ok());
        largest = largest.max(data.unwrap_or(0));
    }
    largest
}

/// "was killed by signal 9 (SIGKILL: ...)", for a program a signal ended.
pub(super) fn describe_signal(status: ExitStatus) -> Option<String> {
    let signal = status.signal()?;
    Some(format!("was killed by signal {signal}{}", signal_name(signal)))
}

/// Which of the program's streams a poll slot watches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    Stdin,
    Stdout,
    Stderr,
}

/// Adds a stream to the next free slot of a poll set.
fn watch<'a>(fds: &mut [PollFd<'a>; 3], slots: &mut [Slot; 3], count: &mut usize, fd: PollFd<'a>, slot: Slot) {
    fds[*count] = fd;
    slots[*count] = slot;
    *count += 1;
}

/// Which output streams a poll found readable (or closed).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Ready {
    stdout: bool,
    stderr: bool,
}

/// Reads what is available, up to about `budget` bytes; returns whether the
/// stream is still open.
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

/// How long a wait for a program's reply spins before it sleeps in `poll`.
///
/// A searcher answers within tens of microseconds, and a grader that sleeps
/// in the meantime lets its (virtual) CPU halt, whose wake-up can cost more
/// than the reply itself: spinning briefly takes a third off a whole `check`
/// on a two-core virtual machine. It is done only when a core is spare for
/// it (a core for each running program and one more for the grader), so
/// that spinning never takes a core from a student's program in a batch.
const SPIN: Duration = Duration::from_micros(50);

/// Polls `fds` without sleeping for up to [`SPIN`], where a core is spare;
/// whether one became ready.
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

/// Kills and reaps what a program left behind after its group was killed.
///
/// With a dedicated user (root graders), the trampoline kills every process of
/// that user (`kill(-1)` as that user), even those that called `setsid`.
/// Then the orphans the grader inherited as child subreaper are killed and
/// reaped, each by its pid. A plain `waitpid(-1)` would also reap the children
/// that other threads' `Child` handles are waiting for; so an orphan is a child
/// of this process that `start` did not register and that is in another
/// process group or user namespace than the grader (a student process that
/// escaped its group), or runs as the dedicated user.
fn reap_orphans(dedicated: Option<(&PathBuf, u32)>) {
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
struct ProcStat {
    parent: u32,
    group: i32,
}

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
fn descendants(root: u32) -> Vec<u32> {
    descendants_up_to(root, 100_000)
}

/// The first `most` processes below `root`, nearest first.
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

fn duration_to_timespec(duration: Duration) -> Timespec {
    Timespec { tv_sec: duration.as_secs() as _, tv_nsec: duration.subsec_nanos() as _ }
}

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
