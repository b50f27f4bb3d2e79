//! One student program serving a list of searches.
//!
//! A program is started once and serves test after test, so an interpreter
//! starts once per submission. A crash, a hang, a protocol violation, the
//! memory limit, or any failure once the search had asked the grader
//! something costs only the test it happened in: the program is killed and
//! a fresh one serves the remaining tests.

use std::time::{Duration, Instant};

use super::oracle::{IdIndex, Oracle, StudentAnswer, Violation};
use super::plan::{PlannedTest, Served};
use super::protocol::{FromProgram, PROTOCOL_VERSION, ToProgram, WireSettings, decode, encode};
use super::runner::{Interrupted, ProgramSpec, RunningProgram};
use crate::engine::SearchSettings;
use crate::tree::NodeIndex;

/// The grader's name and version, sent in `hello`.
pub const GRADER_NAME: &str = concat!("treegrade ", env!("CARGO_PKG_VERSION"));

/// One search for the program to run.
#[derive(Clone, Copy)]
pub struct SearchJob<'a> {
    /// The name sent in `search` (the program may log it).
    pub name: &'a str,
    /// The tree to serve (a game's is this search's own).
    pub tree: &'a Served<'a>,
    /// The settings to search with.
    pub settings: SearchSettings,
    /// The most nodes the program may enter (a clock counted in nodes), or
    /// `None` when only the wall clock bounds the search.
    pub budget: Option<u32>,
}

impl<'a> SearchJob<'a> {
    /// The search a program runs for `test`, over `tree` (the test's tree
    /// as [`PlannedTest::served`] gives it).
    pub fn for_test(test: &'a PlannedTest, tree: &'a Served<'a>) -> SearchJob<'a> {
        // Iterative deepening's budget is the grader's clock (docs/format.md 8.2).
        let budget = (test.settings.budget)
            .filter(|_| test.settings.algorithm.takes_budget())
            .map(|budget| u32::try_from(budget).unwrap_or(u32::MAX));
        SearchJob { name: &test.name, tree, settings: test.settings, budget }
    }
}

pub use super::result::FailureKind;

/// A search the program did not answer, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgramFailure {
    /// What kind of failure.
    pub kind: FailureKind,
    /// One line for the student.
    pub message: String,
    /// More detail, e.g. a traceback.
    pub details: Option<String>,
    /// What the kit says went wrong, where it knows (docs/protocol.md,
    /// `error`'s `kind`).
    pub cause: Option<FailureCause>,
}

/// A failure whose cause the kit knows, beyond an exception.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailureCause {
    /// Iterative deepening started an iteration after its budget was
    /// spent (`iteration_after_time_up`): the search took the budget to
    /// start again with each iteration.
    IterationAfterTimeUp,
    /// The program used up its memory limit: the grader saw one of its
    /// processes hold nearly all the memory the limit allows, and then the
    /// search failed (whatever the program said of it).
    OutOfMemory,
}

/// What happened in one search.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchRecord {
    /// The answer, or why there is none.
    pub answer: Result<StudentAnswer, ProgramFailure>,
    /// The nodes the program entered, in order (recorded by the grader).
    pub visited: Vec<NodeIndex>,
    /// Whether the grader refused an entry because the search's budget was
    /// spent (the program then answered, or failed, after its time was up).
    pub time_up: bool,
    /// What the grader saw of the searches of docs/format.md 8.2 and 8.4.
    pub steps: SearchSteps,
    /// What the program wrote on stderr during this search (head and tail).
    pub stderr: String,
    /// Wall-clock time of the search.
    pub elapsed: Duration,
    /// How many searches the same program served before this one (0: a
    /// fresh program). A test that fails after others but passes alone
    /// shows state kept between tests.
    pub earlier_in_program: usize,
}

/// What the grader saw of a search besides the nodes it entered: the
/// iterations iterative deepening declared and the random draws MCTS took
/// (docs/format.md 8.2, 8.4); empty for other searches.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchSteps {
    /// Where each declared iteration starts in the visited order.
    pub iteration_starts: Vec<usize>,
    /// The random draws served.
    pub draws: u64,
    /// The static evaluations the program declared, in order (the MIT
    /// 6.034 kit's `static`; empty from other kits).
    pub evaluated: Vec<NodeIndex>,
    /// Where each declared iteration starts in `evaluated`.
    pub evaluated_starts: Vec<usize>,
}

/// Limits applied to every search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SessionLimits {
    /// Wall-clock limit per search; the handshake counts towards the first.
    pub per_search: Duration,
    /// The limit on the whole submission's grading, if any.
    pub submission: Option<SubmissionLimit>,
}

/// The most time a whole submission's grading may take (`batch
/// --submission-timeout`): once it has passed, no further test starts. A
/// test already running keeps its own limit, so a submission takes at most
/// this plus one test's limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SubmissionLimit {
    /// When the time is up.
    pub until: Instant,
    /// The time it allowed.
    pub limit: Duration,
}

impl SubmissionLimit {
    /// A limit of `limit` from `started`.
    pub fn new(started: Instant, limit: Duration) -> SubmissionLimit {
        SubmissionLimit { until: started + limit, limit }
    }

    /// Whether the time is up: the next test is not run.
    pub fn passed(&self) -> bool {
        Instant::now() >= self.until
    }

    /// Why a test was not run, for the student.
    pub fn not_run(&self) -> ProgramFailure {
        failure(
            FailureKind::TimedOut,
            format!(
                "not run: the tests before this one used up the {} that grading one submission may take in all \
                 (the batch's --submission-timeout), so the tests left were not run; make each test \
                 finish well within its own time limit",
                format_limit(self.limit)
            ),
        )
    }
}

/// Runs every job, in order, restarting the program after fatal failures.
pub fn run_searches(spec: &ProgramSpec, jobs: &[SearchJob<'_>], limits: SessionLimits) -> Vec<SearchRecord> {
    let mut program: Option<RunningProgram> = None;
    let mut records = Vec::with_capacity(jobs.len());
    let mut failed_starts = 0;
    let mut last_start_failure: Option<ProgramFailure> = None;
    let mut served = 0;
    for job in jobs {
        let started = Instant::now();
        let deadline = started + limits.per_search;
        if let Some(limit) = limits.submission.filter(SubmissionLimit::passed) {
            records.push(failed_record(limit.not_run()));
            continue;
        }
        if program.is_none() {
            if failed_starts >= MAX_FAILED_STARTS {
                records.push(not_restarted(last_start_failure.as_ref()));
                continue;
            }
            match start_and_greet(spec, deadline, limits.per_search) {
                Ok(started_program) => {
                    program = Some(started_program);
                    failed_starts = 0;
                    served = 0;
                }
                Err((failure, stderr)) => {
                    failed_starts += 1;
                    last_start_failure = Some(failure.clone());
                    records.push(SearchRecord {
                        answer: Err(failure),
                        visited: Vec::new(),
                        time_up: false,
                        steps: SearchSteps::default(),
                        stderr,
                        elapsed: started.elapsed(),
                        earlier_in_program: 0,
                    });
                    continue;
                }
            }
        }
        let running = program.as_mut().expect("started above");
        let ServedSearch { answer, visited, time_up, steps } = serve(running, job, deadline, limits.per_search);
        let fatal = needs_fresh_program(&answer, &visited, &steps);
        if fatal {
            running.kill();
        }
        let stderr = running.take_stderr().text();
        if fatal {
            program = None;
        }
        records.push(SearchRecord {
            answer,
            visited,
            time_up,
            steps,
            stderr,
            elapsed: started.elapsed(),
            earlier_in_program: served,
        });
        served += 1;
    }
    if let Some(mut running) = program {
        let _ = running.send(&encode(&ToProgram::Bye), Instant::now() + Duration::from_secs(1));
        running.finish(Duration::from_secs(1));
    }
    records
}

/// Whether the next test needs a fresh program after this one: after any
/// search that did not end with a result, but for one that failed in the
/// student's own code (an exception, a function not written) before it
/// asked the grader anything. Past a first request a failure may have cut
/// the kit's conversation short (an exception, such as a `MemoryError`,
/// raised while it read a reply), leaving a reply unread that the next test
/// would take for its own; and out of memory or a crash, the program's own
/// state is not to be trusted either. A test's verdict never depends on how
/// the test before it ended.
fn needs_fresh_program(
    answer: &Result<StudentAnswer, ProgramFailure>,
    visited: &[NodeIndex],
    steps: &SearchSteps,
) -> bool {
    let Err(failure) = answer else { return false };
    let asked = !visited.is_empty() || steps.draws > 0 || !steps.iteration_starts.is_empty();
    let in_own_code = matches!(failure.kind, FailureKind::NotImplemented | FailureKind::Exception);
    !in_own_code || asked || failure.cause == Some(FailureCause::OutOfMemory)
}

pub(super) type StartFailure = (ProgramFailure, String);

/// A program that fails to start this many times in a row is not started again.
pub(super) const MAX_FAILED_STARTS: usize = 2;

/// The remaining tests of a program that keeps failing to start fail the same way.
fn not_restarted(last: Option<&ProgramFailure>) -> SearchRecord {
    let (kind, message) = match last {
        Some(failure) => (failure.kind, failure.message.clone()),
        None => (FailureKind::NotStarted, "your program did not start".to_string()),
    };
    failed_record(ProgramFailure {
        kind,
        message: format!("{message} (not started again: it failed to start {MAX_FAILED_STARTS} times in a row)"),
        details: None,
        cause: None,
    })
}

/// The record of a search that was not served, and why.
fn failed_record(failure: ProgramFailure) -> SearchRecord {
    SearchRecord {
        answer: Err(failure),
        visited: Vec::new(),
        time_up: false,
        steps: SearchSteps::default(),
        stderr: String::new(),
        elapsed: Duration::ZERO,
        earlier_in_program: 0,
    }
}

/// Starts the program and checks its `hello`.
pub(super) fn start_and_greet(
    spec: &ProgramSpec,
    deadline: Instant,
    limit: Duration,
) -> Result<RunningProgram, StartFailure> {
    let mut program = RunningProgram::start(spec).map_err(|error| {
        let command = abbreviate_command(&spec.command);
        let message = format!("could not start your program (`{command}` in {}): {error}", spec.dir.display());
        (failure(FailureKind::NotStarted, message), String::new())
    })?;
    let hello = encode(&ToProgram::Hello { protocol: PROTOCOL_VERSION, grader: GRADER_NAME });
    let greeting = program.send(&hello, deadline).and_then(|()| program.receive(deadline));
    let problem = match greeting {
        Ok(line) => match decode(&line) {
            Ok(FromProgram::Hello { protocol: PROTOCOL_VERSION, .. }) => return Ok(program),
            Ok(FromProgram::Hello { protocol, .. }) => failure(
                FailureKind::ProtocolError,
                format!(
                    "your program speaks protocol version {protocol}, but this grader speaks version {PROTOCOL_VERSION}: update the kit"
                ),
            ),
            Ok(other) => failure(
                FailureKind::ProtocolError,
                format!(
                    "your program did not start with the handshake (it sent {other:?}); run it through the treegrade kit"
                ),
            ),
            Err(error) => failure(FailureKind::ProtocolError, error.to_string()),
        },
        Err(interrupted) => interruption_failure(interrupted, limit, None, "while starting up"),
    };
    program.kill();
    let stderr = program.take_stderr().text();
    Err((problem, stderr))
}

/// What the grader saw of one search the program served.
struct ServedSearch {
    answer: Result<StudentAnswer, ProgramFailure>,
    visited: Vec<NodeIndex>,
    time_up: bool,
    steps: SearchSteps,
}

/// Serves one search until the program answers or fails.
fn serve(program: &mut RunningProgram, job: &SearchJob<'_>, deadline: Instant, limit: Duration) -> ServedSearch {
    let ids;
    let (oracle, agents) = match job.tree {
        Served::Written(tree) => {
            ids = IdIndex::new(tree);
            (Oracle::new(tree, &ids, job.settings), tree.game().map(|game| game.agents))
        }
        Served::Game(tree) => (Oracle::for_game(&**tree, job.settings), None),
    };
    let mut oracle = oracle.with_budget(job.budget);
    let root = job.tree.id(NodeIndex::ROOT);
    // The budget served is the job's (the grader's clock), as the oracle counts it.
    let wired = SearchSettings { budget: job.budget.map(u64::from), ..job.settings };
    let search = encode(&ToProgram::Search {
        test: job.name,
        algorithm: job.settings.algorithm.name(),
        depth: job.settings.depth,
        prune_on_equal: job.settings.prune_on_equal,
        root: &root,
        agents,
        settings: WireSettings(&wired),
        players: job.settings.algorithm.vector_values().then(|| job.tree.players().unwrap_or(2)),
    });
    let result = converse(program, &mut oracle, &search, deadline).map_err(|stop| match stop {
        Stop::Failure(failure) => failure,
        Stop::Interrupted(interrupted) => {
            let last = oracle.visited().last().map(|&node| (oracle.visited().len(), job.tree.id(node)));
            let last = last.as_ref().map(|(count, id)| (*count, id.as_ref()));
            interruption_failure(interrupted, limit, last, "during this test")
        }
    });
    let result = result.map_err(|failure| match out_of_memory(program, &failure) {
        Some((peak_mib, limit_mb)) => {
            let last = oracle.visited().last().map(|&node| job.tree.id(node));
            out_of_memory_failure(failure, peak_mib, limit_mb, oracle.visited().len(), last.as_deref())
        }
        None => failure,
    });
    let time_up = oracle.time_up();
    let steps = SearchSteps {
        iteration_starts: oracle.iteration_starts().to_vec(),
        draws: oracle.draws(),
        evaluated: oracle.statics().to_vec(),
        evaluated_starts: oracle.static_starts().to_vec(),
    };
    ServedSearch { answer: result, visited: oracle.into_visited(), time_up, steps }
}

/// How close to its memory limit a program must have been seen for a
/// failure to be put down to the limit, in MiB: one allocation (a list or a
/// table that doubles) may be refused this far below it.
const MEMORY_MARGIN_MB: u64 = 64;

/// Whether `failure` is the memory limit's doing, as the grader itself saw
/// it: the program's sandbox limits its memory, and one of its processes was
/// seen within [`MEMORY_MARGIN_MB`] (or a tenth of the limit, if less) of
/// it. What the program printed (a `MemoryError`, or CPython's "error return
/// without exception set") is not proof, and is not read. A time-out stays a
/// time-out. Gives the memory seen and the limit, in MiB.
fn out_of_memory(program: &mut RunningProgram, failure: &ProgramFailure) -> Option<(u64, u64)> {
    if !matches!(failure.kind, FailureKind::Crashed | FailureKind::Exception | FailureKind::ProtocolError) {
        return None;
    }
    let limit_mb = program.memory_limit_mb()?;
    let peak_mib = program.memory_peak_kib() / 1024;
    let margin = MEMORY_MARGIN_MB.min(limit_mb / 10);
    (peak_mib + margin >= limit_mb).then_some((peak_mib, limit_mb))
}

/// The failure of a search that used up its memory limit, for the student:
/// the limit, where the search was, and what to look at. What the program
/// said (its exception, its exit status) stays in the details.
fn out_of_memory_failure(
    failure: ProgramFailure,
    peak_mib: u64,
    limit_mb: u64,
    entered: usize,
    last: Option<&str>,
) -> ProgramFailure {
    let place = match last {
        Some(last) => format!(" after entering {entered} nodes (the last was {last})"),
        None => String::new(),
    };
    let message = format!(
        "your program ran out of memory: it reached {peak_mib} MiB of its {limit_mb} MiB memory limit{place}. \
         Your search kept going: check that it stops at the depth limit (a depth of 0 is a limit, not \
         \"no limit\") and at terminals, and that no cache or list grows without end"
    );
    let said = match failure.details {
        Some(details) => format!("{}\n{details}", failure.message),
        None => failure.message,
    };
    ProgramFailure {
        kind: FailureKind::Crashed,
        message,
        details: Some(format!("what was seen of the failure: {said}")),
        cause: Some(FailureCause::OutOfMemory),
    }
}

/// Why a conversation stopped before a result.
pub(super) enum Stop {
    /// The program failed (or broke the protocol).
    Failure(ProgramFailure),
    /// Talking to it was cut short.
    Interrupted(Interrupted),
}

impl From<Interrupted> for Stop {
    fn from(interrupted: Interrupted) -> Stop {
        Stop::Interrupted(interrupted)
    }
}

/// The request-reply loop of one search.
pub(super) fn converse(
    program: &mut RunningProgram,
    oracle: &mut Oracle<'_>,
    search: &str,
    deadline: Instant,
) -> Result<StudentAnswer, Stop> {
    program.send(search, deadline)?;
    loop {
        let line = program.receive(deadline)?;
        let reply = match decode(&line) {
            Ok(FromProgram::Visit { node }) => oracle.visit(&node),
            Ok(FromProgram::Evaluate { node }) => oracle.evaluate(&node),
            Ok(FromProgram::Static { node }) => oracle.static_eval(&node),
            Ok(FromProgram::Random {}) => oracle.random(),
            Ok(FromProgram::Iteration { depth }) => oracle.start_iteration(&depth),
            Ok(FromProgram::Result {
                value,
                action,
                children,
                path,
                returned,
                rules,
                history,
                heuristic_on_terminal,
            }) => {
                let mut answer = oracle
                    .answer_with(&value, action, children.as_deref())
                    .map_err(|violation| Stop::Failure(failure(FailureKind::ProtocolError, violation.to_string())))?;
                answer.mit = mit_report(path, returned, rules, history, heuristic_on_terminal);
                return Ok(answer);
            }
            Ok(FromProgram::Error { kind, message, details }) => {
                return Err(Stop::Failure(student_error(&kind, message, details)));
            }
            Ok(FromProgram::Hello { .. }) => Err(Violation::HelloAgain),
            Ok(FromProgram::Successor { .. }) => Err(Violation::GameMessage("successor")),
            Ok(FromProgram::Action { .. }) => Err(Violation::GameMessage("action")),
            Ok(FromProgram::Ready {}) => Err(Violation::GameMessage("ready")),
            Ok(FromProgram::PyRandom { .. }) => Err(Violation::GameMessage("py_random")),
            Ok(FromProgram::Returned { .. }) => {
                let message = "your program sent `returned`, the answer to a call, in the middle of a tree's search";
                return Err(Stop::Failure(failure(FailureKind::ProtocolError, message.to_string())));
            }
            Err(error) => return Err(Stop::Failure(failure(FailureKind::ProtocolError, error.to_string()))),
        };
        match reply {
            Ok(reply) => program.send(&reply, deadline)?,
            Err(violation) => {
                // Tell the program why it is stopped; it may log it.
                let violation = violation.to_string();
                let _ = program.send(&encode(&ToProgram::Error { message: &violation }), deadline);
                return Err(Stop::Failure(failure(FailureKind::ProtocolError, violation)));
            }
        }
    }
}

/// What the MIT 6.034 kit sent beside a result, when it sent any of it.
fn mit_report(
    path: Option<Vec<serde_json::Value>>,
    returned: Option<serde_json::Value>,
    rules: Option<serde_json::Value>,
    history: Option<Vec<serde_json::Value>>,
    heuristic_on_terminal: Option<Vec<serde_json::Value>>,
) -> Option<super::oracle::MitReport> {
    if path.is_none() && returned.is_none() && rules.is_none() && history.is_none() {
        return None;
    }
    let path = path.unwrap_or_default().into_iter().map(|id| id.as_str().map(str::to_string)).collect();
    let heuristic_on_terminal =
        heuristic_on_terminal.unwrap_or_default().iter().filter_map(|id| id.as_str().map(str::to_string)).collect();
    Some(super::oracle::MitReport {
        path,
        returned: returned.unwrap_or(serde_json::Value::Null),
        rules,
        history,
        heuristic_on_terminal,
    })
}

pub(crate) fn student_error(kind: &str, message: String, details: Option<String>) -> ProgramFailure {
    let cause = (kind == "iteration_after_time_up").then_some(FailureCause::IterationAfterTimeUp);
    // `stopped`: the kit stopped the search itself and says why; nothing was
    // raised. The words stay the program's, said to be its own.
    let stopped = kind == "stopped" && !message.is_empty();
    let kind = if kind == "not_implemented" { FailureKind::NotImplemented } else { FailureKind::Exception };
    let message = match kind {
        FailureKind::NotImplemented if message.is_empty() => "this function is not implemented yet".to_string(),
        FailureKind::NotImplemented => message,
        _ if stopped => format!("your program stopped the search: {message}"),
        _ if message.is_empty() => "your code raised an error".to_string(),
        _ => format!("your code raised an error: {message}"),
    };
    ProgramFailure { kind, message, details, cause }
}

pub(super) fn interruption_failure(
    interrupted: Interrupted,
    limit: Duration,
    progress: Option<(usize, &str)>,
    when: &str,
) -> ProgramFailure {
    match interrupted {
        Interrupted::TimedOut => {
            // The grader stopped it: say so, and what keeps a search from answering.
            let (progress, hint) = match progress {
                Some((count, last)) => (
                    format!(" (it had entered {count} nodes; the last was {last})"),
                    "; the grader stopped it there: check that your search stops at the depth limit and at \
                     terminals (a depth of 0 is a limit), and that no loop runs without end",
                ),
                None => (
                    " (it had not entered any node)".to_string(),
                    "; the grader stopped it before it asked for any node: check for a loop or a wait (input(), \
                     a sleep) before the search starts",
                ),
            };
            failure(
                FailureKind::TimedOut,
                format!("your program did not answer within {}{progress}{hint}", format_limit(limit)),
            )
        }
        Interrupted::Ended(how) => failure(FailureKind::Crashed, format!("your program {how} {when}")),
        Interrupted::LineTooLong => failure(
            FailureKind::ProtocolError,
            format!("your program printed a line longer than {} MiB on stdout", super::protocol::MAX_LINE_BYTES >> 20),
        ),
        Interrupted::Io(error) => {
            failure(FailureKind::Crashed, format!("talking to your program failed {when}: {error}"))
        }
    }
}

/// A command as a one-line reminder: long or multi-line arguments are cut.
fn abbreviate_command(command: &[String]) -> String {
    const LIMIT: usize = 40;
    let words: Vec<String> = command
        .iter()
        .map(|word| {
            let first_line = word.trim().lines().next().unwrap_or_default();
            if first_line.len() < word.trim().len() || first_line.chars().count() > LIMIT {
                format!("{}...", first_line.chars().take(LIMIT).collect::<String>())
            } else {
                first_line.to_string()
            }
        })
        .collect();
    words.join(" ")
}

fn format_limit(limit: Duration) -> String {
    if limit.subsec_millis() == 0 { format!("{} s", limit.as_secs()) } else { format!("{:.1} s", limit.as_secs_f64()) }
}

pub(super) fn failure(kind: FailureKind, message: String) -> ProgramFailure {
    ProgramFailure { kind, message, details: None, cause: None }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A search that failed after asking the grader anything leaves the
    /// conversation in an unknown state: the next test gets a fresh program.
    /// One that failed in the student's code before its first request, or
    /// that answered, keeps it.
    #[test]
    fn a_fresh_program_follows_any_failure_after_a_request() {
        let exception = || Err(student_error("exception", "MemoryError".into(), None));
        let nothing = SearchSteps::default();
        let one = [NodeIndex::ROOT];
        assert!(!needs_fresh_program(&exception(), &[], &nothing), "nothing asked: the program is in step");
        assert!(needs_fresh_program(&exception(), &one, &nothing), "a reply may be left unread");
        let drew = SearchSteps { draws: 1, ..SearchSteps::default() };
        assert!(needs_fresh_program(&exception(), &[], &drew), "a random draw is a request too");
        let not_yet = Err(student_error("not_implemented", String::new(), None));
        assert!(!needs_fresh_program(&not_yet, &[], &nothing));
        let crashed = Err(failure(FailureKind::Crashed, "your program exited with status 1".into()));
        assert!(needs_fresh_program(&crashed, &[], &nothing));
        let memory = out_of_memory_failure(student_error("exception", "MemoryError".into(), None), 99, 100, 0, None);
        assert!(needs_fresh_program(&Err(memory), &[], &nothing));
    }

    /// Out of memory says the limit, where the search was and what to look
    /// at; what the program said stays in the details.
    #[test]
    fn out_of_memory_is_told_with_the_limit_and_the_place() {
        let said = student_error("exception", "SystemError: error return without exception set".into(), None);
        let told = out_of_memory_failure(said, 1019, 1024, 4340, Some("d-d-c"));
        assert_eq!((told.kind, told.cause), (FailureKind::Crashed, Some(FailureCause::OutOfMemory)));
        assert!(
            told.message.starts_with(
                "your program ran out of memory: it reached 1019 MiB of its 1024 MiB memory limit after entering 4340 \
                 nodes (the last was d-d-c). Your search kept going: check that it stops at the depth limit"
            ),
            "{}",
            told.message
        );
        assert!(!told.message.contains("SystemError"));
        assert!(told.details.unwrap().contains("error return without exception set"));
    }

    #[test]
    fn an_error_of_a_kind_the_grader_knows_carries_its_cause() {
        let failure = student_error("iteration_after_time_up", "iteration 3 after the budget".into(), None);
        assert_eq!((failure.kind, failure.cause), (FailureKind::Exception, Some(FailureCause::IterationAfterTimeUp)));
        assert_eq!(failure.message, "your code raised an error: iteration 3 after the budget");
        let stopped = student_error("stopped", "depth_limit=0".into(), None);
        assert_eq!(
            (stopped.kind, stopped.message.as_str()),
            (FailureKind::Exception, "your program stopped the search: depth_limit=0")
        );
        let other = student_error("some_new_kind", String::new(), None);
        assert_eq!(
            (other.kind, other.cause, other.message.as_str()),
            (FailureKind::Exception, None, "your code raised an error")
        );
        assert_eq!(student_error("not_implemented", String::new(), None).kind, FailureKind::NotImplemented);
    }
}
