//! Calls questions (docs/format.md, "Calls questions"): each test's `call`
//! sent to the student's program (docs/protocol.md, "Calls"), and what it
//! returned judged here, by the grader, against the test's check. The
//! student's code never judges itself.
//!
//! The checks are Python's meaning of the course's tests, on the JSON forms
//! a kit returns: `equals` is Python's `==` (numbers numerically, a bool as
//! 1 or 0, lists element by element, boards whole), `equals_text` is
//! `str(value) == text`, `boards` compares lists of boards by their cells
//! or whole, `numbers` checks bounds and the order of several calls' values.

use std::time::{Duration, Instant};

use super::plan::PlannedCall;
use super::protocol::{FromProgram, ToProgram, decode, encode};
use super::result::{Board, CallDetail, TestDetail, TestResult, TestStatus};
use super::runner::{Interrupted, ProgramSpec, RunningProgram};
use super::session::{
    FailureKind, MAX_FAILED_STARTS, ProgramFailure, SubmissionLimit, failure, interruption_failure, start_and_greet,
    student_error,
};
use crate::assignment::calls::{
    BoardCompare, BoardError, BoardSpec, Bounds, CallCheck, CallTarget, CallTest, NumberOrder,
};
use crate::shown::shown;

/// A returned value in Python's terms, read from its JSON form.
#[derive(Clone, Debug, PartialEq)]
pub enum Returned {
    /// `None`.
    None,
    /// `True` or `False` (equal to 1 and 0, as in Python).
    Bool(bool),
    /// An int (written without a point).
    Int(f64),
    /// A float (infinities and NaN included).
    Float(f64),
    /// A string.
    Text(String),
    /// A list or a tuple.
    List(Vec<Returned>),
    /// A Connect Four board.
    Board(BoardSpec),
    /// Anything else, as its `repr`: equal to nothing.
    Object(String),
}

impl Returned {
    /// Reads a value in the protocol's JSON forms: null, bool, number,
    /// `{"float": "inf"}`, string, list, `{"board": BOARD}`, `{"object": "repr"}`.
    pub fn from_json(value: &serde_json::Value) -> Result<Returned, ReturnedError> {
        use serde_json::Value;
        Ok(match value {
            Value::Null => Returned::None,
            Value::Bool(b) => Returned::Bool(*b),
            Value::Number(n) if n.is_f64() => Returned::Float(n.as_f64().unwrap_or(f64::NAN)),
            Value::Number(n) => Returned::Int(n.as_f64().unwrap_or(f64::NAN)),
            Value::String(text) => Returned::Text(text.clone()),
            Value::Array(items) => Returned::List(items.iter().map(Returned::from_json).collect::<Result<_, _>>()?),
            Value::Object(object) => match object.iter().next() {
                Some((key, inner)) if object.len() == 1 && key == "board" => {
                    Returned::Board(BoardSpec::from_json(inner)?)
                }
                Some((key, Value::String(text))) if object.len() == 1 && key == "float" => {
                    Returned::Float(match text.as_str() {
                        "inf" => f64::INFINITY,
                        "-inf" => f64::NEG_INFINITY,
                        "nan" => f64::NAN,
                        other => return Err(ReturnedError::Float(other.to_string())),
                    })
                }
                Some((key, Value::String(text))) if object.len() == 1 && key == "object" => {
                    Returned::Object(text.clone())
                }
                _ => return Err(ReturnedError::Form(value.clone())),
            },
        })
    }

    /// The value as a number, where Python's comparisons take it for one.
    fn number(&self, bool_is_number: bool) -> Option<f64> {
        match self {
            Returned::Int(x) | Returned::Float(x) => Some(*x),
            Returned::Bool(b) if bool_is_number => Some(f64::from(u8::from(*b))),
            _ => None,
        }
    }

    /// Python's `repr`, shortened for a report (a board as `<ConnectFourBoard>`).
    pub fn repr(&self) -> String {
        let text = self.full_repr();
        if text.chars().count() > 300 { format!("{}...", text.chars().take(297).collect::<String>()) } else { text }
    }

    fn full_repr(&self) -> String {
        match self {
            Returned::None => "None".to_string(),
            Returned::Bool(true) => "True".to_string(),
            Returned::Bool(false) => "False".to_string(),
            Returned::Int(x) => format!("{x}"),
            Returned::Float(x) => python_float(*x),
            Returned::Text(text) => python_string(text),
            Returned::List(items) => {
                format!("[{}]", items.iter().map(Returned::full_repr).collect::<Vec<_>>().join(", "))
            }
            Returned::Board(_) => "<ConnectFourBoard>".to_string(),
            Returned::Object(text) => text.clone(),
        }
    }

    /// Python's `str`: a string is itself, anything else its `repr`.
    fn str(&self) -> String {
        match self {
            Returned::Text(text) => text.clone(),
            other => other.full_repr(),
        }
    }
}

/// A returned value the grader cannot read (docs/protocol.md, "Calls"): the
/// kit sent a form the protocol does not have.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ReturnedError {
    /// A board that is not one (its own message, which names the key).
    #[error(transparent)]
    Board(#[from] BoardError),
    /// `{"float": TEXT}` with a text other than inf, -inf or nan.
    #[error("`{{\"float\": \"{0}\"}}` is not inf, -inf or nan")]
    Float(String),
    /// A mapping that is none of the forms.
    #[error("{0} is not one of the forms of a returned value")]
    Form(serde_json::Value),
}

/// A float as Python's `repr` writes it: `4.0`, `0.5`, `inf`, `nan`.
fn python_float(x: f64) -> String {
    if x.is_nan() {
        "nan".to_string()
    } else if x.is_infinite() {
        if x > 0.0 { "inf" } else { "-inf" }.to_string()
    } else if x.fract() == 0.0 && x.abs() < 1e16 {
        format!("{x:.1}")
    } else {
        format!("{x}")
    }
}

/// A string as Python's `repr` writes it, in single quotes.
fn python_string(text: &str) -> String {
    let mut out = String::from("'");
    for c in text.chars() {
        match c {
            '\'' => out.push_str("\\'"),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            other => out.push(other),
        }
    }
    out.push('\'');
    out
}

/// Python's `==` on two values.
pub fn python_equal(expected: &Returned, actual: &Returned) -> bool {
    match (expected, actual) {
        (Returned::None, Returned::None) => true,
        (Returned::Text(a), Returned::Text(b)) => a == b,
        (Returned::List(a), Returned::List(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| python_equal(a, b))
        }
        (Returned::Board(a), Returned::Board(b)) => boards_equal(a, b, BoardCompare::Whole),
        (Returned::Object(_), _) | (_, Returned::Object(_)) => false,
        (a, b) => match (a.number(true), b.number(true)) {
            (Some(x), Some(y)) => x == y,
            _ => false,
        },
    }
}

/// Whether `actual` is the `expected` board: by cells, or whole (cells,
/// players, the player to move, and the previous move where the expected
/// board gives one).
pub fn boards_equal(expected: &BoardSpec, actual: &BoardSpec, compare: BoardCompare) -> bool {
    let cells = expected.rows == actual.rows;
    match compare {
        BoardCompare::Cells => cells,
        BoardCompare::Whole => {
            cells
                && expected.players == actual.players
                && expected.to_move() == actual.to_move()
                && expected.prev_move.as_ref().is_none_or(|text| actual.prev_move.as_ref() == Some(text))
        }
    }
}

/// The check in words, after "expected": `equal to True`, `a number > 0 and < 1000`.
pub fn check_words(check: &CallCheck) -> String {
    match check {
        CallCheck::Equals(value) => match Returned::from_json(value) {
            Ok(value) => format!("equal to {}", value.repr()),
            Err(_) => format!("equal to {value}"),
        },
        // A multiple-choice answer is never shown: the student would read it off the report.
        CallCheck::EqualsText(_) => "the right answer (compared as text, so '4' and 4 are alike)".to_string(),
        CallCheck::Boards { boards, compare: BoardCompare::Cells } => {
            format!("a list of {} boards with the expected pieces, in order", boards.len())
        }
        CallCheck::Boards { boards, compare: BoardCompare::Whole } => format!(
            "a list of {} boards equal to the expected ones in pieces, players and whose turn, in order",
            boards.len()
        ),
        CallCheck::Numbers { bounds, order, .. } => {
            let each: Vec<String> = bounds.iter().map(bounds_words).collect();
            let mut words = match each.as_slice() {
                [one] => one.clone(),
                many => format!("numbers: {}", many.join("; ")),
            };
            if let Some(order) = order {
                words.push_str(match order {
                    NumberOrder::Increasing => ", each greater than the one before",
                    NumberOrder::Decreasing => ", each less than the one before",
                });
            }
            words
        }
    }
}

fn bounds_words(bounds: &Bounds) -> String {
    let parts: Vec<String> =
        [("> ", bounds.above), (">= ", bounds.at_least), ("< ", bounds.below), ("<= ", bounds.at_most)]
            .into_iter()
            .filter_map(|(sign, bound)| bound.map(|x| format!("{sign}{}", crate::compare::format_value(x))))
            .collect();
    if parts.is_empty() { "a number".to_string() } else { format!("a number {}", parts.join(" and ")) }
}

/// What judging the returned values found.
#[derive(Clone, Debug, PartialEq)]
pub struct Judgement {
    /// Whether the check passed.
    pub passed: bool,
    /// Why not, in one line (after the call): `returned False`.
    pub why: Option<String>,
    /// The boards to draw.
    pub boards: Vec<Board>,
    /// The variable was never answered (`''`): not implemented yet.
    pub unanswered: bool,
}

impl Judgement {
    fn pass() -> Judgement {
        Judgement { passed: true, why: None, boards: Vec::new(), unanswered: false }
    }

    fn fail(why: String) -> Judgement {
        Judgement { passed: false, why: Some(why), boards: Vec::new(), unanswered: false }
    }
}

/// Judges what a test's calls returned (one value per call) against its check.
pub fn judge(test: &CallTest, values: &[Returned]) -> Judgement {
    // A single call's value, or the list of several calls' values.
    let single = match &test.target {
        CallTarget::Function { calls, .. } if calls.len() != 1 => Returned::List(values.to_vec()),
        _ => values.first().cloned().unwrap_or(Returned::None),
    };
    let mut judgement = match &test.check {
        CallCheck::Equals(expected) => {
            let expected = Returned::from_json(expected).unwrap_or(Returned::Object("?".into()));
            if python_equal(&expected, &single) {
                Judgement::pass()
            } else {
                let mut judgement =
                    Judgement::fail(format!("returned {}, expected {}", single.repr(), expected.repr()));
                judgement.boards = differing_boards(&expected, &single, BoardCompare::Whole);
                judgement
            }
        }
        CallCheck::EqualsText(text) => match &single {
            Returned::Text(given) if given.is_empty() && !text.is_empty() => Judgement {
                unanswered: true,
                ..Judgement::fail("not answered yet (the value is still '')".to_string())
            },
            value if value.str() == *text => Judgement::pass(),
            value => Judgement::fail(format!("gave {}, which is not the expected answer", value.repr())),
        },
        CallCheck::Boards { boards, compare } => judge_boards(boards, *compare, &single),
        CallCheck::Numbers { bounds, order, bool_is_number } => judge_numbers(bounds, *order, *bool_is_number, values),
    };
    if !judgement.passed && judgement.boards.is_empty() {
        judgement.boards =
            first_board(&single).map(|board| vec![drawn("the board returned", board)]).unwrap_or_default();
    }
    judgement
}

fn judge_boards(expected: &[BoardSpec], compare: BoardCompare, returned: &Returned) -> Judgement {
    let Returned::List(items) = returned else {
        return Judgement::fail(format!("returned {}, not a list of boards", returned.repr()));
    };
    if let Some((index, item)) = items.iter().enumerate().find(|(_, item)| !matches!(item, Returned::Board(_))) {
        return Judgement::fail(format!("returned a list whose item {} is {}, not a board", index + 1, item.repr()));
    }
    let boards: Vec<&BoardSpec> =
        items.iter().filter_map(|item| if let Returned::Board(board) = item { Some(board) } else { None }).collect();
    let first_wrong = expected.iter().zip(&boards).position(|(e, a)| !boards_equal(e, a, compare));
    let mut judgement = match first_wrong {
        None if boards.len() == expected.len() => return Judgement::pass(),
        None => Judgement::fail(format!("returned {} boards, expected {}", boards.len(), expected.len())),
        Some(index) => Judgement::fail(format!(
            "board {} of the {} returned differs from the expected one{}",
            index + 1,
            boards.len(),
            if boards.len() == expected.len() {
                String::new()
            } else {
                format!(" (expected {} boards)", expected.len())
            }
        )),
    };
    if let Some(index) = first_wrong {
        judgement.boards = vec![side_by_side(index, &expected[index], boards[index], compare)];
    }
    judgement
}

fn judge_numbers(
    bounds: &[Bounds],
    order: Option<NumberOrder>,
    bool_is_number: bool,
    values: &[Returned],
) -> Judgement {
    let which = |index: usize| if values.len() == 1 { "it".to_string() } else { format!("call {}'s value", index + 1) };
    let mut numbers = Vec::with_capacity(values.len());
    for (index, (value, bounds)) in values.iter().zip(bounds).enumerate() {
        let Some(x) = value.number(bool_is_number) else {
            return Judgement::fail(format!("returned {}, not a number", value.repr()));
        };
        let checks = [
            (bounds.above.is_some_and(|b| x <= b), bounds.above, "greater than"),
            (bounds.at_least.is_some_and(|b| x < b), bounds.at_least, "at least"),
            (bounds.below.is_some_and(|b| x >= b), bounds.below, "less than"),
            (bounds.at_most.is_some_and(|b| x > b), bounds.at_most, "at most"),
        ];
        if let Some((_, Some(bound), words)) = checks.into_iter().find(|(broken, _, _)| *broken) {
            return Judgement::fail(format!(
                "returned {}; {} must be {words} {}",
                returned_list(values),
                which(index),
                crate::compare::format_value(bound)
            ));
        }
        numbers.push(x);
    }
    let out_of_order = |(a, b): (&f64, &f64)| match order {
        Some(NumberOrder::Increasing) => a >= b,
        Some(NumberOrder::Decreasing) => a <= b,
        None => false,
    };
    if let Some(index) = numbers.iter().zip(numbers.iter().skip(1)).position(out_of_order) {
        let words = if order == Some(NumberOrder::Increasing) { "greater" } else { "less" };
        return Judgement::fail(format!(
            "returned {}; call {}'s value must be {words} than call {}'s",
            returned_list(values),
            index + 2,
            index + 1
        ));
    }
    Judgement::pass()
}

fn returned_list(values: &[Returned]) -> String {
    match values {
        [one] => one.repr(),
        many => many.iter().map(Returned::repr).collect::<Vec<_>>().join(", "),
    }
}

/// The first boards that differ between an expected value and a returned one (`equals`).
fn differing_boards(expected: &Returned, actual: &Returned, compare: BoardCompare) -> Vec<Board> {
    match (expected, actual) {
        (Returned::Board(e), Returned::Board(a)) => vec![side_by_side(0, e, a, compare)],
        (Returned::List(es), Returned::List(as_)) => {
            es.iter().zip(as_).find(|(e, a)| !python_equal(e, a)).map_or_else(Vec::new, |(e, a)| {
                let index = es.iter().zip(as_).position(|(x, y)| !python_equal(x, y)).unwrap_or(0);
                match (e, a) {
                    (Returned::Board(e), Returned::Board(a)) => vec![side_by_side(index, e, a, compare)],
                    _ => differing_boards(e, a, compare),
                }
            })
        }
        _ => Vec::new(),
    }
}

fn first_board(value: &Returned) -> Option<&BoardSpec> {
    match value {
        Returned::Board(board) => Some(board),
        Returned::List(items) => items.iter().find_map(first_board),
        _ => None,
    }
}

/// A board drawn as a 6x7 grid: columns numbered, `_` empty, `1` and `2` the pieces.
pub fn grid(board: &BoardSpec) -> Vec<String> {
    let mut lines = vec!["0 1 2 3 4 5 6".to_string()];
    for row in &board.rows {
        let cells: Vec<&str> =
            row.iter().map(|cell| ["_", "1", "2"].get(usize::from(*cell)).copied().unwrap_or("?")).collect();
        lines.push(cells.join(" "));
    }
    lines
}

/// Who is to move on a board, as a line under its grid.
fn to_move_line(board: &BoardSpec) -> String {
    format!("to move: {}", board.to_move().map_or_else(|| "?".to_string(), player_text))
}

fn player_text(player: &serde_json::Value) -> String {
    match player {
        serde_json::Value::String(text) => shown(text),
        other => other.to_string(),
    }
}

fn drawn(label: &str, board: &BoardSpec) -> Board {
    let mut lines = grid(board);
    lines.push(to_move_line(board));
    Board { label: label.to_string(), text: lines.join("\n") }
}

/// The expected board and the returned one, side by side.
fn side_by_side(index: usize, expected: &BoardSpec, actual: &BoardSpec, compare: BoardCompare) -> Board {
    let (mut left, mut right) = (grid(expected), grid(actual));
    left.insert(0, "expected".to_string());
    right.insert(0, "yours".to_string());
    if compare == BoardCompare::Whole {
        left.push(to_move_line(expected));
        right.push(to_move_line(actual));
    }
    if compare == BoardCompare::Whole && expected.rows == actual.rows {
        let players = |board: &BoardSpec| board.players.iter().map(player_text).collect::<Vec<_>>().join(", ");
        left.push(format!("players: {}", players(expected)));
        right.push(format!("players: {}", players(actual)));
        if let Some(text) = &expected.prev_move {
            left.push(format!("previous move: {}", shown(text)));
            right.push(format!(
                "previous move: {}",
                actual.prev_move.as_deref().map_or_else(|| "none".to_string(), shown)
            ));
        }
    }
    let width = left.iter().map(|line| line.chars().count()).max().unwrap_or(0);
    let lines: Vec<String> = left.iter().zip(&right).map(|(l, r)| format!("{l:<width$}    {r}")).collect();
    Board { label: format!("board {} (expected, and yours)", index + 1), text: lines.join("\n") }
}

/// Runs the call tests, public ones in one program and hidden ones in
/// another (as searches are served), each test with `limit`; a program that
/// crashes, times out or breaks the protocol is started again for the next
/// test. Once the submission's `time` is up, the tests left are not run.
pub fn run_tests(
    spec: &ProgramSpec,
    tests: &[PlannedCall],
    limit: Duration,
    time: Option<SubmissionLimit>,
) -> Vec<TestResult> {
    let mut results: Vec<Option<TestResult>> = vec![None; tests.len()];
    for hidden in [false, true] {
        let group: Vec<usize> = (0..tests.len()).filter(|&index| tests[index].hidden == hidden).collect();
        if group.is_empty() {
            continue;
        }
        let mut caller = Caller::new(spec);
        for index in group {
            results[index] = Some(match time.filter(SubmissionLimit::passed) {
                Some(time) => failed(&tests[index], &time.not_run(), String::new()),
                None => run_one(&tests[index], &mut caller, limit),
            });
        }
        caller.finish();
    }
    results.into_iter().map(|result| result.expect("every test runs once")).collect()
}

/// The result of a test that could not run: the submission did not build.
pub fn not_run(planned: &PlannedCall, build: &super::submission::BuildFailure) -> TestResult {
    let failure = ProgramFailure {
        kind: FailureKind::BuildFailed,
        message: build.message.clone(),
        details: Some(build.output.clone()),
        cause: None,
    };
    failed(planned, &failure, String::new())
}

fn blank(planned: &PlannedCall, status: TestStatus) -> TestResult {
    let test = &planned.test;
    let detail = CallDetail {
        shown: shown(&test.shown),
        expected: test.expected.as_deref().map(shown),
        check: shown(&check_words(&test.check)),
        returned: Vec::new(),
        boards: Vec::new(),
    };
    let path = planned.path.display().to_string();
    let mut result =
        TestResult::new(planned.name.clone(), path, planned.hidden, status, TestDetail::Call(Box::new(detail)));
    result.header.description = test.description.as_deref().map(shown);
    result
}

/// A test whose call got no answer.
fn failed(planned: &PlannedCall, failure: &ProgramFailure, stderr: String) -> TestResult {
    let mut result = blank(planned, TestStatus::Error(failure.kind));
    result.header.reason = Some(shown(&format!("{}: {}", planned.test.shown, failure.message)));
    result.header.details = failure.details.as_deref().map(shown);
    result.header.stderr = shown(&stderr);
    result
}

fn run_one(planned: &PlannedCall, caller: &mut Caller<'_>, limit: Duration) -> TestResult {
    let started = Instant::now();
    let answer = caller.call(planned, started + limit, limit);
    let stderr = caller.take_stderr();
    let mut result = match answer {
        Err(failure) => failed(planned, &failure, stderr),
        Ok(values) => judged(planned, &values, stderr),
    };
    result.header.elapsed_ms = started.elapsed().as_millis() as u64;
    result
}

fn judged(planned: &PlannedCall, values: &[Returned], stderr: String) -> TestResult {
    let judgement = judge(&planned.test, values);
    let status = match (judgement.passed, judgement.unanswered) {
        (true, _) => TestStatus::Passed,
        (false, true) => TestStatus::Error(FailureKind::NotImplemented),
        (false, false) => TestStatus::Failed,
    };
    let mut result = blank(planned, status);
    if let TestDetail::Call(detail) = &mut result.detail {
        detail.returned = values.iter().map(|value| shown(&value.repr())).collect();
        detail.boards = judgement.boards;
    }
    result.header.reason = judgement.why.map(|why| shown(&format!("{}: {why}", planned.test.shown)));
    result.header.stderr = shown(&stderr);
    result
}

/// The student's program across a group of call tests.
struct Caller<'s> {
    spec: &'s ProgramSpec,
    program: Option<RunningProgram>,
    stderr: String,
    failed_starts: usize,
    last_start: Option<ProgramFailure>,
}

impl<'s> Caller<'s> {
    fn new(spec: &'s ProgramSpec) -> Caller<'s> {
        Caller { spec, program: None, stderr: String::new(), failed_starts: 0, last_start: None }
    }

    /// Sends the test's call and reads the values returned, or why there are none.
    fn call(
        &mut self,
        planned: &PlannedCall,
        deadline: Instant,
        limit: Duration,
    ) -> Result<Vec<Returned>, ProgramFailure> {
        if self.program.is_none() {
            if self.failed_starts >= MAX_FAILED_STARTS {
                let last = self.last_start.clone().unwrap_or_else(|| failure(FailureKind::NotStarted, String::new()));
                let message = format!(
                    "{} (not started again: it failed to start {MAX_FAILED_STARTS} times in a row)",
                    last.message
                );
                return Err(ProgramFailure { message, ..last });
            }
            match start_and_greet(self.spec, deadline, limit) {
                Ok(program) => {
                    self.program = Some(program);
                    self.failed_starts = 0;
                }
                Err((failure, stderr)) => {
                    self.stderr.push_str(&stderr);
                    self.failed_starts += 1;
                    self.last_start = Some(failure.clone());
                    return Err(failure);
                }
            }
        }
        let program = self.program.as_mut().expect("started above");
        match converse(program, planned, deadline) {
            Ok(values) => Ok(values),
            Err(Trouble::Student(failure)) => Err(failure),
            Err(Trouble::Fatal(failure)) => {
                self.stop();
                Err(failure)
            }
            Err(Trouble::Interrupted(Interrupted::TimedOut)) => {
                self.stop();
                Err(failure(
                    FailureKind::TimedOut,
                    format!(
                        "your function did not return within {} s; the grader stopped it: look for a loop that never \
                         ends, or a wait (input(), a sleep)",
                        limit.as_secs_f64()
                    ),
                ))
            }
            Err(Trouble::Interrupted(interrupted)) => {
                self.stop();
                Err(interruption_failure(interrupted, limit, None, "during this call"))
            }
        }
    }

    fn take_stderr(&mut self) -> String {
        if let Some(program) = &mut self.program {
            self.stderr.push_str(&program.take_stderr().text());
        }
        std::mem::take(&mut self.stderr)
    }

    /// Kills the program (a fresh one starts for the next test).
    fn stop(&mut self) {
        if let Some(mut program) = self.program.take() {
            program.kill();
            self.stderr.push_str(&program.take_stderr().text());
        }
    }

    fn finish(mut self) {
        if let Some(mut program) = self.program.take() {
            let _ = program.send(&encode(&ToProgram::Bye), Instant::now() + Duration::from_secs(1));
            program.finish(Duration::from_secs(1));
        }
    }
}

enum Trouble {
    /// The student's code raised: the program goes on.
    Student(ProgramFailure),
    /// The program broke the protocol: it is stopped.
    Fatal(ProgramFailure),
    Interrupted(Interrupted),
}

impl From<Interrupted> for Trouble {
    fn from(interrupted: Interrupted) -> Trouble {
        Trouble::Interrupted(interrupted)
    }
}

/// The test's `call` message.
pub fn call_message(planned: &PlannedCall) -> String {
    let message = match &planned.test.target {
        CallTarget::Function { name, calls } => ToProgram::Call {
            test: &planned.name,
            function: Some(name),
            calls: Some(calls.iter().map(|args| args.iter().map(|arg| arg.to_json()).collect()).collect()),
            variable: None,
        },
        CallTarget::Variable(name) => {
            ToProgram::Call { test: &planned.name, function: None, calls: None, variable: Some(name) }
        }
    };
    encode(&message)
}

fn converse(program: &mut RunningProgram, planned: &PlannedCall, deadline: Instant) -> Result<Vec<Returned>, Trouble> {
    program.send(&call_message(planned), deadline)?;
    let line = program.receive(deadline)?;
    let fatal = |message: String| Trouble::Fatal(failure(FailureKind::ProtocolError, message));
    match decode(&line).map_err(|error| fatal(error.to_string()))? {
        FromProgram::Returned { values } => {
            let wanted = planned.test.answers();
            if values.len() != wanted {
                return Err(fatal(format!(
                    "your program answered the call with {} values, where it makes {wanted} call(s): is the kit \
                     treegrade's?",
                    values.len()
                )));
            }
            let read: Result<Vec<Returned>, ReturnedError> = values.iter().map(Returned::from_json).collect();
            read.map_err(|error| fatal(format!("your program sent a value the grader cannot read: {error}")))
        }
        FromProgram::Error { kind, message, details } => {
            let failure = student_error(&kind, message, details);
            let message = match failure.kind {
                FailureKind::NotImplemented => "not implemented yet".to_string(),
                _ => failure.message.clone(),
            };
            let message = match (&planned.test.target, failure.kind) {
                (CallTarget::Variable(_), FailureKind::NotImplemented) => "not answered yet".to_string(),
                _ => message,
            };
            Err(Trouble::Student(ProgramFailure { message, ..failure }))
        }
        other => Err(fatal(format!(
            "your program answered a call with `{}`, where the grader waits for `returned`",
            kind_of(&other)
        ))),
    }
}

fn kind_of(message: &FromProgram) -> &'static str {
    match message {
        FromProgram::Hello { .. } => "hello",
        FromProgram::Visit { .. } => "visit",
        FromProgram::Evaluate { .. } => "evaluate",
        FromProgram::Static { .. } => "static",
        FromProgram::Random {} => "random",
        FromProgram::Iteration { .. } => "iteration",
        FromProgram::Result { .. } => "result",
        FromProgram::Successor { .. } => "successor",
        FromProgram::Action { .. } => "action",
        FromProgram::Ready {} => "ready",
        FromProgram::PyRandom { .. } => "py_random",
        FromProgram::Returned { .. } => "returned",
        FromProgram::Error { .. } => "error",
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::assignment::calls::CallArg;

    fn value(json: serde_json::Value) -> Returned {
        Returned::from_json(&json).unwrap()
    }

    fn board(cells: &[(usize, usize, u8)]) -> BoardSpec {
        let mut rows = vec![vec![0u8; 7]; 6];
        for &(row, col, piece) in cells {
            rows[row][col] = piece;
        }
        BoardSpec { rows, players: vec![json!("Player One"), json!("Player Two")], whose_turn: None, prev_move: None }
    }

    fn test(calls: usize, check: CallCheck) -> CallTest {
        CallTest {
            name: "t".into(),
            description: None,
            target: CallTarget::Function { name: "f".into(), calls: vec![vec![CallArg::Bool(true)]; calls] },
            shown: "f(True)".into(),
            check,
            expected: None,
        }
    }

    #[test]
    fn equals_is_pythons_double_equals() {
        let equal = |a: serde_json::Value, b: serde_json::Value| python_equal(&value(a), &value(b));
        assert!(equal(json!(true), json!(1)) && equal(json!(1), json!(1.0)) && equal(json!(0), json!(false)));
        assert!(equal(json!([1, [2.0, "a"]]), json!([true, [2, "a"]])));
        assert!(!equal(json!("1"), json!(1)) && !equal(json!(null), json!(0)) && !equal(json!([1]), json!([1, 1])));
        assert!(
            equal(json!({"float": "inf"}), json!({"float": "inf"}))
                && !equal(json!({"float": "nan"}), json!({"float": "nan"}))
        );
        assert!(!equal(json!({"object": "<x>"}), json!({"object": "<x>"})), "an object equals nothing");
        let b = board(&[(5, 0, 1)]).to_json();
        assert!(equal(json!({ "board": b }), json!({ "board": b })));
        assert!(!equal(json!({ "board": b }), json!(1)), "a board never equals a non-board");
    }

    #[test]
    fn reprs_are_pythons() {
        assert_eq!(
            value(json!([true, null, 4, 4.0, "it's", {"float": "-inf"}])).repr(),
            "[True, None, 4, 4.0, 'it\\'s', -inf]"
        );
        assert_eq!(value(json!({"object": "<function f>"})).repr(), "<function f>");
    }

    #[test]
    fn a_value_in_no_form_of_the_protocol_says_what_was_sent() {
        let error = |json: serde_json::Value| Returned::from_json(&json).unwrap_err();
        assert_eq!(error(json!([1, {"float": "big"}])).to_string(), "`{\"float\": \"big\"}` is not inf, -inf or nan");
        assert_eq!(error(json!({"set": [1]})).to_string(), "{\"set\":[1]} is not one of the forms of a returned value");
        let board = error(json!({"board": {"rows": []}}));
        assert_eq!(board, ReturnedError::Board(BoardError::RowCount(0)));
        assert_eq!(board.to_string(), "a board's `rows` are 6 rows of 7 cells, top row first (these are 0 rows)");
    }

    #[test]
    fn equals_text_is_str_and_empty_is_unanswered() {
        let check =
            |returned: serde_json::Value| judge(&test(1, CallCheck::EqualsText("4".into())), &[value(returned)]);
        assert!(check(json!("4")).passed && check(json!(4)).passed);
        assert!(!check(json!(4.0)).passed, "str(4.0) is '4.0'");
        let empty = check(json!(""));
        assert!(!empty.passed && empty.unanswered, "{empty:?}");
    }

    #[test]
    fn numbers_check_bounds_types_and_order() {
        let bounds = Bounds { above: Some(0.0), below: Some(1000.0), ..Bounds::default() };
        let one = test(1, CallCheck::Numbers { bounds: vec![bounds], order: None, bool_is_number: true });
        assert!(judge(&one, &[value(json!(3.5))]).passed);
        let high = judge(&one, &[value(json!(1000))]);
        assert_eq!(high.why.as_deref(), Some("returned 1000; it must be less than 1000"));
        assert!(judge(&one, &[value(json!(true))]).passed, "True is the int 1 in Python");
        let strict = test(1, CallCheck::Numbers { bounds: vec![bounds], order: None, bool_is_number: false });
        assert_eq!(judge(&strict, &[value(json!(true))]).why.as_deref(), Some("returned True, not a number"));
        assert!(!judge(&one, &[value(json!("3"))]).passed);
        let two = test(
            2,
            CallCheck::Numbers {
                bounds: vec![Bounds::default(); 2],
                order: Some(NumberOrder::Increasing),
                bool_is_number: true,
            },
        );
        assert!(judge(&two, &[value(json!(-2)), value(json!(3))]).passed);
        let tied = judge(&two, &[value(json!(3)), value(json!(3))]);
        assert_eq!(tied.why.as_deref(), Some("returned 3, 3; call 2's value must be greater than call 1's"));
        assert_eq!(check_words(&two.check), "numbers: a number; a number, each greater than the one before");
        assert_eq!(check_words(&one.check), "a number > 0 and < 1000");
    }

    #[test]
    fn boards_compare_cells_or_whole_and_draw_the_first_that_differs() {
        let expected = vec![board(&[(5, 0, 1)]), board(&[(5, 1, 1)])];
        let cells = test(1, CallCheck::Boards { boards: expected.clone(), compare: BoardCompare::Cells });
        let returned = |boards: &[BoardSpec]| {
            value(serde_json::Value::Array(boards.iter().map(|b| json!({"board": b.to_json()})).collect()))
        };
        let mut turned = expected.clone();
        turned[1].whose_turn = Some(json!("Player Two"));
        assert!(judge(&cells, &[returned(&turned)]).passed, "cells alone");
        let whole = test(1, CallCheck::Boards { boards: expected.clone(), compare: BoardCompare::Whole });
        let judgement = judge(&whole, &[returned(&turned)]);
        assert!(!judgement.passed);
        assert_eq!(judgement.why.as_deref(), Some("board 2 of the 2 returned differs from the expected one"));
        let drawn = &judgement.boards[0].text;
        assert!(
            drawn.contains("expected") && drawn.contains("yours") && drawn.contains("to move: Player Two"),
            "{drawn}"
        );
        let rows = drawn.lines().filter(|line| line.starts_with(['_', '1', '2'])).count();
        assert_eq!(rows, 6, "{drawn}");
        let short = judge(&cells, &[returned(&expected[..1])]);
        assert_eq!(short.why.as_deref(), Some("returned 1 boards, expected 2"));
        assert!(!judge(&cells, &[value(json!(7))]).passed);
    }
}
