//! Student programs as processes: start, talk line by line with deadlines, stop.
//!
//! The only module that knows about processes. One thread drives each program
//! with `poll(2)` over its stdout and stderr, so stderr is always drained (a
//! chatty program never blocks), a program that stops reading cannot block
//! the grader, and every wait has a deadline. Each program runs in its own
//! process group, killed as a whole.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io::{self, Read, Write};
use std::os::fd::AsFd;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec, poll};
use rustix::process::{Pid, Signal, kill_process_group};

use super::protocol::MAX_LINE_BYTES;

/// Size of one read from a program's pipes.
const READ_CHUNK_BYTES: usize = 64 * 1024;

/// Bytes of stderr kept from the start and from the end of each test's output.
pub const STDERR_KEEP_BYTES: usize = 32 * 1024;

/// How to start a student program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgramSpec {
    /// The program and its arguments.
    pub command: Vec<String>,
    /// Working directory.
    pub dir: PathBuf,
    /// The whole environment of the program (it inherits nothing else).
    pub env: Vec<(OsString, OsString)>,
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

/// A started student program.
#[derive(Debug)]
pub struct RunningProgram {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: ChildStdout,
    stderr: ChildStderr,
    stdout_buffer: Vec<u8>,
    stdout_open: bool,
    stderr_open: bool,
    stderr_capture: OutputCapture,
    exit_status: Option<ExitStatus>,
    /// For builds: stdout joins stderr in one capture instead of being read as lines.
    merge_stdout: bool,
    /// Read buffer, allocated once: zero-filling a fresh one per read would
    /// cost more than the round trip it serves.
    scratch: Vec<u8>,
}

impl RunningProgram {
    /// Starts the program in its own process group with exactly `spec.env`.
    pub fn start(spec: &ProgramSpec) -> io::Result<RunningProgram> {
        let (program, args) = spec
            .command
            .split_first()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "the command to run is empty"))?;
        let mut child = Command::new(program)
            .args(args)
            .current_dir(&spec.dir)
            .env_clear()
            .envs(spec.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()?;
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr = child.stderr.take().expect("stderr is piped");
        for fd in [stdin.as_fd(), stdout.as_fd(), stderr.as_fd()] {
            rustix::io::ioctl_fionbio(fd, true)?;
        }
        Ok(RunningProgram {
            child,
            stdin: Some(stdin),
            stdout,
            stderr,
            stdout_buffer: Vec::new(),
            stdout_open: true,
            stderr_open: true,
            stderr_capture: OutputCapture::default(),
            exit_status: None,
            merge_stdout: false,
            scratch: vec![0; READ_CHUNK_BYTES],
        })
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
        while self.exit_status.is_none() && Instant::now() < deadline {
            if self.pump(deadline, false).is_err() && !self.stdout_open && !self.stderr_open {
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
        while program.stdout_open || program.stderr_open {
            match program.pump(deadline, false) {
                Ok(()) => {}
                Err(Interrupted::TimedOut) => {
                    timed_out = true;
                    break;
                }
                Err(_) => break,
            }
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

    /// Kills the whole process group and reaps the program.
    pub fn kill(&mut self) {
        if let Some(pid) = Pid::from_raw(self.child.id() as i32) {
            // The group may already be gone; nothing to do then.
            let _ = kill_process_group(pid, Signal::KILL);
        }
        let _ = self.child.kill();
        if let Ok(status) = self.child.wait() {
            self.exit_status.get_or_insert(status);
        }
    }

    /// Waits for readable output (or writable stdin when `writing`) until
    /// `deadline`, then reads whatever arrived.
    fn pump(&mut self, deadline: Instant, writing: bool) -> Result<(), Interrupted> {
        let now = Instant::now();
        if now >= deadline {
            return Err(Interrupted::TimedOut);
        }
        let ready = self.wait_ready(duration_to_timespec(deadline - now), writing)?;
        if ready.contains(&Stream::Stdout) {
            let (buffer, capture) = (&mut self.stdout_buffer, &mut self.stderr_capture);
            let merge = self.merge_stdout;
            // Read at most a little more than one line's worth per wake-up, so
            // a flood is noticed (and refused) before it fills memory.
            let budget = if merge { usize::MAX } else { MAX_LINE_BYTES + 1 };
            self.stdout_open = read_available(&mut self.stdout, &mut self.scratch, budget, |bytes| {
                if merge { capture.push(bytes) } else { buffer.extend_from_slice(bytes) }
            })?;
        }
        if ready.contains(&Stream::Stderr) {
            let capture = &mut self.stderr_capture;
            self.stderr_open =
                read_available(&mut self.stderr, &mut self.scratch, usize::MAX, |bytes| capture.push(bytes))?;
        }
        Ok(())
    }

    /// Polls the open streams; returns those that are ready.
    fn wait_ready(&self, timeout: Timespec, writing: bool) -> Result<Vec<Stream>, Interrupted> {
        let mut streams = Vec::with_capacity(3);
        let mut fds = Vec::with_capacity(3);
        if self.stdout_open {
            streams.push(Stream::Stdout);
            fds.push(PollFd::new(&self.stdout, PollFlags::IN));
        }
        if self.stderr_open {
            streams.push(Stream::Stderr);
            fds.push(PollFd::new(&self.stderr, PollFlags::IN));
        }
        if let (Some(stdin), true) = (&self.stdin, writing) {
            streams.push(Stream::Stdin);
            fds.push(PollFd::new(stdin, PollFlags::OUT));
        }
        if fds.is_empty() {
            return Err(Interrupted::Ended("closed its output".to_string()));
        }
        match poll(&mut fds, Some(&timeout)) {
            Ok(_) => {}
            Err(rustix::io::Errno::INTR) => return Ok(Vec::new()),
            Err(error) => return Err(Interrupted::Io(error.into())),
        }
        Ok(streams.into_iter().zip(&fds).filter(|(_, fd)| !fd.revents().is_empty()).map(|(s, _)| s).collect())
    }

    fn poll_exit(&mut self) {
        if self.exit_status.is_none()
            && let Ok(Some(status)) = self.child.try_wait()
        {
            self.exit_status = Some(status);
        }
    }

    /// Says how the program ended, waiting briefly for it to exit.
    fn describe_end(&mut self) -> String {
        let deadline = Instant::now() + Duration::from_millis(500);
        while self.exit_status.is_none() && Instant::now() < deadline {
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

/// The program's standard streams, as the poll loop names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stream {
    Stdin,
    Stdout,
    Stderr,
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

fn duration_to_timespec(duration: Duration) -> Timespec {
    Timespec { tv_sec: duration.as_secs() as _, tv_nsec: duration.subsec_nanos() as _ }
}

/// "exited with status 1", "was killed by signal 9 (SIGKILL)".
pub fn describe_status(status: ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("exited with status {code}");
    }
    match status.signal() {
        Some(signal) => format!("was killed by signal {signal}{}", signal_name(signal)),
        None => "ended in an unknown way".to_string(),
    }
}

fn signal_name(signal: i32) -> &'static str {
    match signal {
        6 => " (SIGABRT, e.g. a failed assertion)",
        9 => " (SIGKILL, e.g. out of memory or a limit)",
        11 => " (SIGSEGV, a crash)",
        15 => " (SIGTERM)",
        24 => " (SIGXCPU, CPU time limit)",
        25 => " (SIGXFSZ, file size limit)",
        _ => "",
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

    #[test]
    fn missing_programs_fail_to_start() {
        let spec = ProgramSpec { command: vec!["/no/such/program".into()], ..shell("") };
        assert!(RunningProgram::start(&spec).is_err());
    }
}
