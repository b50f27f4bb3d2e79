//! The conversation of a Pacman game with the student's program: a game's
//! start, each move (with the successor requests it makes), its end; the
//! program started again after a failure that stops it.

use std::time::{Duration, Instant};

use super::server::{Serving, StateServer};
use crate::game::pacman::test::PacmanTest;
use crate::game::python_random::PythonRandom;
use crate::grader::protocol::{
    FromProgram, PacmanGame, decode, encode_final, encode_illegal, encode_move, encode_pacman_game, encode_py_random,
    encode_states,
};
use crate::grader::runner::{ProgramSpec, RunningProgram};
use crate::grader::session::{
    FailureKind, ProgramFailure, failure, interruption_failure, start_and_greet, student_error,
};

/// The student's program across the games of a run of Pacman tests.
pub struct Player<'s> {
    spec: &'s ProgramSpec,
    program: Option<RunningProgram>,
    /// What the program wrote on stderr since the last [`Player::take_stderr`].
    stderr: String,
}

/// Which game of which test starts.
#[derive(Clone, Copy, Debug)]
pub struct GameStart<'a> {
    /// The test's name.
    pub name: &'a str,
    /// The game's number, 1 first.
    pub game: u32,
    /// Games the test plays.
    pub games: u32,
    /// The seed of the student's `random` for this game.
    pub seed: i64,
    /// Whether the student's `random` draws from the grader's stream
    /// instead (the `stream` the exchanges of the game are given).
    pub shared_random: bool,
}

/// Why a game's exchange ended without the answer it waited for.
#[derive(Clone, Debug)]
pub struct Stopped {
    /// What went wrong, for the student.
    pub failure: ProgramFailure,
}

impl Stopped {
    /// Whether the time ran out.
    pub fn timed_out(&self) -> bool {
        self.failure.kind == FailureKind::TimedOut
    }
}

impl<'s> Player<'s> {
    /// A player that starts the program when first needed.
    pub fn new(spec: &'s ProgramSpec) -> Player<'s> {
        Player { spec, program: None, stderr: String::new() }
    }

    /// Sends a game's start (the kit creates the agent if it has none for
    /// this test, seeds the student's `random` or has it draw from
    /// `stream`, and calls `registerInitialState`), and waits for `ready`.
    /// In this and the other exchanges, `stream` (where the grader owns the
    /// student's random numbers) serves the kit's `py_random` requests.
    pub fn start_game(
        &mut self,
        test: &PacmanTest,
        start: GameStart<'_>,
        server: &mut StateServer<'_>,
        stream: Option<&mut PythonRandom>,
        state: u32,
        deadline: Instant,
    ) -> Result<(), Stopped> {
        let GameStart { name, game, games, seed, shared_random } = start;
        let args: serde_json::Map<String, serde_json::Value> = test.agent.arguments.iter().cloned().collect();
        let starts: Vec<(u16, u16)> =
            std::iter::once(test.layout.pacman).chain(test.layout.ghosts.iter().copied()).collect();
        let mut encoded = String::new();
        server.push(state, &mut encoded);
        let line = encode_pacman_game(
            &PacmanGame {
                test: name,
                agent: &test.agent.class,
                args: &args,
                game,
                games,
                seed,
                explored: server.serving() == Serving::Counted,
                shared_random,
                layout_name: &test.layout_name,
                layout: &test.layout.rows,
                starts: &starts[..server.state(state).agents.len()],
            },
            &encoded,
        );
        match self.exchange(&line, server, stream, deadline)? {
            Answer::Ready => Ok(()),
            Answer::Action(_) => Err(self.protocol("your program answered a game's start with an `action`")),
        }
    }

    /// Asks for the agent's move at `state`; the successors it asks for are
    /// served from `server`. The answer is what `getAction` returned.
    /// `reseed` is the seed of the student's `random` and the draws to make
    /// before the move, where the test fixes them.
    pub fn ask_move(
        &mut self,
        server: &mut StateServer<'_>,
        stream: Option<&mut PythonRandom>,
        step: u32,
        state: u32,
        reseed: Option<(i64, u32)>,
        deadline: Instant,
    ) -> Result<serde_json::Value, Stopped> {
        let mut encoded = String::new();
        server.push(state, &mut encoded);
        match self.exchange(&encode_move(step, &encoded, reseed), server, stream, deadline)? {
            Answer::Action(action) => Ok(action),
            Answer::Ready => Err(self.protocol("your program answered a move with `ready` instead of an `action`")),
        }
    }

    /// Tells the kit that the game is over (it calls the agent's `final`).
    pub fn end_game(
        &mut self,
        server: &mut StateServer<'_>,
        stream: Option<&mut PythonRandom>,
        state: u32,
        deadline: Instant,
    ) -> Result<(), Stopped> {
        let mut encoded = String::new();
        server.push(state, &mut encoded);
        match self.exchange(&encode_final(&encoded), server, stream, deadline)? {
            Answer::Ready => Ok(()),
            Answer::Action(_) => Err(self.protocol("your program answered a game's end with an `action`")),
        }
    }

    /// Whether a program is running (a game in progress can go on).
    pub fn running(&self) -> bool {
        self.program.is_some()
    }

    /// The program's stderr since the last call.
    pub fn take_stderr(&mut self) -> String {
        if let Some(program) = &mut self.program {
            self.stderr.push_str(&program.take_stderr().text());
        }
        std::mem::take(&mut self.stderr)
    }

    /// Says goodbye to the program, if one runs.
    pub fn finish(mut self) {
        if let Some(mut program) = self.program.take() {
            let bye = crate::grader::protocol::encode(&crate::grader::protocol::ToProgram::Bye);
            let _ = program.send(&bye, Instant::now() + Duration::from_secs(1));
            program.finish(Duration::from_secs(1));
        }
    }

    fn protocol(&mut self, message: &str) -> Stopped {
        self.stop();
        Stopped { failure: failure(FailureKind::ProtocolError, message.to_string()) }
    }

    /// Kills the program (a fresh one starts for the next game).
    fn stop(&mut self) {
        if let Some(mut program) = self.program.take() {
            program.kill();
            self.stderr.push_str(&program.take_stderr().text());
        }
    }

    fn program(&mut self, deadline: Instant) -> Result<&mut RunningProgram, Stopped> {
        if self.program.is_none() {
            let limit = deadline.saturating_duration_since(Instant::now());
            match start_and_greet(self.spec, deadline, limit) {
                Ok(program) => self.program = Some(program),
                Err((failure, stderr)) => {
                    self.stderr.push_str(&stderr);
                    return Err(Stopped { failure });
                }
            }
        }
        Ok(self.program.as_mut().expect("started above"))
    }

    /// Sends `line` and serves the program's successor requests until it answers.
    fn exchange(
        &mut self,
        line: &str,
        server: &mut StateServer<'_>,
        stream: Option<&mut PythonRandom>,
        deadline: Instant,
    ) -> Result<Answer, Stopped> {
        let limit = deadline.saturating_duration_since(Instant::now());
        let program = self.program(deadline)?;
        let outcome = converse(program, line, server, stream, deadline);
        match outcome {
            Ok(answer) => Ok(answer),
            Err(Trouble::Student(failure)) => Err(Stopped { failure }),
            Err(Trouble::Fatal(failure)) => {
                self.stop();
                Err(Stopped { failure })
            }
            Err(Trouble::Interrupted(interrupted)) => {
                self.stop();
                Err(Stopped { failure: interruption_failure(interrupted, limit, None, "during this game") })
            }
        }
    }
}

/// What the program answered.
enum Answer {
    Ready,
    Action(serde_json::Value),
}

/// Serves a `py_random` request from `stream`: the reply's fields.
fn draw(stream: &mut PythonRandom, op: &str, k: Option<u64>, state: Option<&[u64]>) -> Result<String, String> {
    match (op, k, state) {
        ("random", _, _) => Ok(format!("\"value\":{}", serde_json::Value::from(stream.random()))),
        ("bits", Some(bits), _) if bits <= 1 << 20 => {
            let words: Vec<String> = stream.getrandbits_words(bits).iter().map(ToString::to_string).collect();
            Ok(format!("\"bits\":[{}]", words.join(",")))
        }
        ("bits", _, _) => Err("`bits` needs `k`, a number of bits up to 1048576".to_string()),
        ("get_state", _, _) => {
            let words: Vec<String> = stream.state().iter().map(ToString::to_string).collect();
            Ok(format!("\"state\":[{}]", words.join(",")))
        }
        ("set_state", _, Some(state)) => stream.set_state(state).map(|()| String::new()).map_err(|e| e.to_string()),
        ("set_state", _, None) => Err("`set_state` needs `state`".to_string()),
        (other, _, _) => Err(format!("unknown `op` `{other}` (random, bits, get_state or set_state)")),
    }
}

enum Trouble {
    /// The student's code raised: the program goes on.
    Student(ProgramFailure),
    /// The program broke the protocol: it is stopped.
    Fatal(ProgramFailure),
    Interrupted(crate::grader::runner::Interrupted),
}

impl From<crate::grader::runner::Interrupted> for Trouble {
    fn from(interrupted: crate::grader::runner::Interrupted) -> Trouble {
        Trouble::Interrupted(interrupted)
    }
}

fn converse(
    program: &mut RunningProgram,
    line: &str,
    server: &mut StateServer<'_>,
    mut stream: Option<&mut PythonRandom>,
    deadline: Instant,
) -> Result<Answer, Trouble> {
    program.send(line, deadline)?;
    let mut reply = String::new();
    loop {
        let line = program.receive(deadline)?;
        let message =
            decode(&line).map_err(|error| Trouble::Fatal(failure(FailureKind::ProtocolError, error.to_string())))?;
        let answer = match message {
            FromProgram::Successor { state, agent, action } => {
                reply.clear();
                match server.successor(state, agent, &action) {
                    Ok(ids) => {
                        for (index, id) in ids.into_iter().enumerate() {
                            if index > 0 {
                                reply.push(',');
                            }
                            server.push(id, &mut reply);
                        }
                        program.send(&encode_states(&reply), deadline)?;
                    }
                    Err(refused) => program.send(&encode_illegal(&refused.to_string()), deadline)?,
                }
                continue;
            }
            FromProgram::PyRandom { op, k, state } => {
                let Some(stream) = stream.as_deref_mut() else {
                    return Err(Trouble::Fatal(failure(
                        FailureKind::ProtocolError,
                        "your program sent `py_random` in a game whose random numbers the grader does not serve"
                            .to_string(),
                    )));
                };
                let fields = draw(stream, &op, k, state.as_deref()).map_err(|message| {
                    Trouble::Fatal(failure(FailureKind::ProtocolError, format!("a malformed `py_random`: {message}")))
                })?;
                program.send(&encode_py_random(&fields), deadline)?;
                continue;
            }
            FromProgram::Action { action } => Answer::Action(action),
            FromProgram::Ready {} => Answer::Ready,
            FromProgram::Error { kind, message, details } => {
                return Err(Trouble::Student(student_error(&kind, message, details)));
            }
            other => {
                let kind = match other {
                    FromProgram::Hello { .. } => "hello",
                    FromProgram::Visit { .. } => "visit",
                    FromProgram::Evaluate { .. } => "evaluate",
                    FromProgram::Static { .. } => "static",
                    _ => "result",
                };
                return Err(Trouble::Fatal(failure(
                    FailureKind::ProtocolError,
                    format!("your program sent `{kind}` in a Pacman game, where it may ask only for `successor`s"),
                )));
            }
        };
        return Ok(answer);
    }
}
