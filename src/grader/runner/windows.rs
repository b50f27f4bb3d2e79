//! The runner's Windows side. Windows has no `poll` over pipes: a thread per
//! output stream reads it into a bounded channel (a program that floods its
//! output then waits, as a full pipe would make it), and the grader waits on
//! the channel. A job object stands for the process group. CPU time, memory
//! and signals are not looked at: deadlines stay wall-clock ones.

use std::io::{self, Read};
use std::os::windows::io::AsRawHandle;
use std::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command, ExitStatus};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, sync_channel};
use std::time::Duration;

use windows_sys::Win32::Foundation::{CloseHandle, HANDLE};
use windows_sys::Win32::System::JobObjects::{
    AssignProcessToJobObject, CreateJobObjectW, JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION, JobObjectExtendedLimitInformation, SetInformationJobObject,
    TerminateJobObject,
};

use super::{Interrupted, Open, READ_CHUNK_BYTES, Stream};
use crate::grader::sandbox::Policy;

/// Whether a wait for a program's reply may spin before it sleeps: not here.
pub(super) const SPIN_WAITS: bool = false;

/// The grader's hold on a started program: what its reader threads read,
/// and the job object holding it and what it starts (`None` where the
/// system refused one).
#[derive(Debug)]
pub(super) struct Handles {
    output: Receiver<(Stream, Option<Vec<u8>>)>,
    job: Option<Job>,
}

impl Handles {
    /// Starts a reader thread per output stream and puts the program in a job.
    pub(super) fn new(
        child: &Child,
        _stdin: &ChildStdin,
        stdout: ChildStdout,
        stderr: ChildStderr,
    ) -> io::Result<Handles> {
        Ok(Handles { output: read_in_threads(stdout, stderr), job: Job::holding(child).ok() })
    }

    /// Waits up to `wait` for output from the reader threads, then hands
    /// whatever arrived to `arrived`: bytes, or `None` for a stream that
    /// closed. Writes to stdin block on Windows, so `stdin` never has to be
    /// waited for, and the reader threads read in chunks, so no budget applies.
    pub(super) fn read(
        &mut self,
        wait: Duration,
        _open: Open,
        _stdin: Option<&ChildStdin>,
        _stdout_budget: usize,
        arrived: &mut dyn FnMut(Stream, Option<&[u8]>),
    ) -> Result<(), Interrupted> {
        let mut next = match self.output.recv_timeout(wait) {
            Ok(message) => Some(message),
            Err(RecvTimeoutError::Timeout) => return Ok(()),
            Err(RecvTimeoutError::Disconnected) => {
                arrived(Stream::Stdout, None);
                arrived(Stream::Stderr, None);
                return Ok(());
            }
        };
        while let Some((stream, bytes)) = next {
            arrived(stream, bytes.as_deref());
            next = self.output.try_recv().ok();
        }
        Ok(())
    }

    /// Kills every process in the program's job.
    pub(super) fn kill_all(&self, _root: u32) {
        if let Some(job) = &self.job {
            job.kill_all();
        }
    }
}

/// Nothing to do: the job object is the program's group.
pub(super) fn own_process_group(_command: &mut Command) {}

/// Not done on Windows: a paused program keeps running.
pub(super) fn signal_everything(_root: u32, _pause: bool) {}

/// Nothing to reap: closing the job kills what the program started.
pub(super) fn reap_escaped(_policy: Option<&Policy>) {}

/// Not read on Windows: deadlines stay wall-clock ones.
pub(super) fn cpu_time(_root: u32) -> Option<Duration> {
    None
}

/// Not read on Windows.
pub(super) fn largest_data_kib(_root: u32, _policy: Option<&Policy>) -> u64 {
    0
}

/// No signals on Windows.
pub(super) fn describe_signal(_status: ExitStatus) -> Option<String> {
    None
}

/// A job object: Windows's way to kill a program with every process it
/// started, as a process group is on Unix. Closing it (dropping this, or
/// the grader dying) kills them too.
///
/// The program is assigned just after it starts, so a process it starts
/// in its very first instructions would escape; an interpreter or a
/// compiled searcher takes far longer than that to reach its own code.
#[derive(Debug)]
struct Job(HANDLE);

// The handle is a kernel object's, usable from any thread.
unsafe impl Send for Job {}
unsafe impl Sync for Job {}

impl Job {
    /// A new job holding `child`, set to kill everything in it when closed.
    fn holding(child: &Child) -> io::Result<Job> {
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
    fn kill_all(&self) {
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

fn read_in_threads(stdout: ChildStdout, stderr: ChildStderr) -> Receiver<(Stream, Option<Vec<u8>>)> {
    let (sender, receiver) = sync_channel(16);
    spawn_reader(stdout, Stream::Stdout, sender.clone());
    spawn_reader(stderr, Stream::Stderr, sender);
    receiver
}

fn spawn_reader(mut stream: impl Read + Send + 'static, name: Stream, sender: SyncSender<(Stream, Option<Vec<u8>>)>) {
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

/// How many processes run as `uid`: none that treegrade can see here (no
/// dedicated users on Windows).
pub fn processes_of_user(_uid: u32) -> usize {
    0
}
