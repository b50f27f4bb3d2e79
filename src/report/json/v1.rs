//! Version 1 of the JSON report, as written and as read back (`render
//! --trace` reads a report's visited order through it).
//!
//! Every type here mirrors what version 1 promises, field for field, in the
//! order it is written. The conversions from the grader's types are the only
//! place the two meet.

use serde::{Deserialize, Serialize};

use crate::grader::result::{self, GradeReport};
use crate::grader::sandbox::Layers;
use crate::points::Points;

/// The value of `"format"`.
pub const FORMAT: &str = "treegrade-report";

/// The value of `"version"`.
pub const VERSION: u32 = 1;

/// A whole grading run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Always [`FORMAT`].
    pub format: String,
    /// Always [`VERSION`].
    pub version: u32,
    /// The assignment's name.
    pub assignment: String,
    /// The assignment's title.
    pub title: String,
    /// What the report calls the submission.
    pub submission: String,
    /// The language detected (or `command`).
    pub language: Option<String>,
    /// The questions graded, in order.
    pub questions: Vec<Question>,
    /// Points earned.
    pub score: Points,
    /// Points possible.
    pub max_score: Points,
    /// Wall-clock time of the run, in milliseconds.
    pub elapsed_ms: u64,
    /// Which sandbox layers were active.
    pub sandbox: Sandbox,
}

/// The sandbox layers of a run: each `true` when it was active.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sandbox {
    /// `auto`, `strict` or `off`.
    pub mode: String,
    /// Each program in its own process group, killed as a whole.
    pub process_group: bool,
    /// The grader reaps processes that left the group.
    pub subreaper: bool,
    /// A wall-clock limit per test.
    pub time_limits: bool,
    /// Output is capped.
    pub output_caps: bool,
    /// An empty environment.
    pub empty_environment: bool,
    /// A fresh scratch home.
    pub scratch_folder: bool,
    /// CPU, memory, file-size, open-file and core limits.
    pub resource_limits: bool,
    /// A process-count limit.
    pub process_limit: bool,
    /// The first process of a PID namespace of its own.
    pub pid_namespace: bool,
    /// A seccomp filter.
    pub syscall_filter: bool,
    /// A user id of its own.
    pub separate_user: bool,
    /// No network.
    pub network_isolation: bool,
    /// A filesystem of its own (mount namespace).
    #[serde(default)]
    pub filesystem_view: bool,
    /// Landlock.
    pub filesystem_isolation: bool,
    /// The landlock ABI in force.
    pub landlock_abi: Option<u32>,
    /// Why a layer is off, one line each.
    pub notes: Vec<String>,
}

/// How a test ended: `"passed"`, `"failed"`, or `{"error": KIND}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Value, action and order all right.
    Passed,
    /// The program answered wrongly.
    Failed,
    /// The program did not answer: `timed-out`, `crashed`, `build-failed`, ...
    Error(String),
}

/// One question.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Question {
    /// `q2`.
    pub id: String,
    /// Its title.
    pub title: String,
    /// `per-test` or `all-or-nothing`.
    pub scoring: String,
    /// Points earned.
    pub score: Points,
    /// Points possible.
    pub max_score: Points,
    /// Its tests, in order.
    pub tests: Vec<Test>,
}

/// One test.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Test {
    /// `q2/aima-fig5-2`.
    pub name: String,
    /// The tree file (its name alone in a student's view).
    pub path: String,
    /// A hidden test.
    pub hidden: bool,
    /// How it ended.
    pub status: Status,
    /// The three checks: `passed`, `failed` or `not-run` each.
    pub checks: Checks,
    /// What went wrong, in one line.
    pub reason: Option<String>,
    /// The mistake named, if any.
    pub diagnosis: Option<Diagnosis>,
    /// The tree's own description (absent for hidden tests in a student's view).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// More detail (a traceback).
    pub details: Option<String>,
    /// Where the visited orders first differ.
    pub divergence: Option<Divergence>,
    /// What the reference did.
    pub expected: Search,
    /// What the student did.
    pub actual: Search,
    /// The program's stderr during the test.
    pub stderr: String,
    /// Points earned.
    pub score: Points,
    /// Points possible.
    pub max_score: Points,
    /// Wall-clock time, in milliseconds.
    pub elapsed_ms: u64,
    /// The games of a play test (absent for searches).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub play: Option<Play>,
    /// Threshold points, for a test that earns points by thresholds (a Pacman play test).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credit: Option<Credit>,
    /// A Pacman test's games or steps (docs/report-json.md, "Pacman tests").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pacman: Option<serde_json::Value>,
    /// A call test's call, check and answer (docs/report-json.md, "Call tests").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<Call>,
}

/// A call test: the call, what was expected, what came back.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Call {
    /// The call as the test writes it.
    pub shown: String,
    /// What was expected, in the test's words (absent when it gives none,
    /// and for hidden tests in a student's view).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected: Option<String>,
    /// The check in words.
    pub check: String,
    /// What each call returned, as Python writes it.
    pub returned: Vec<String>,
    /// Boards drawn for a failed test, each with its label and its text.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub boards: Vec<CallBoard>,
}

/// A board drawn as text.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CallBoard {
    /// What it shows (`board 3 (expected, and yours)`).
    pub label: String,
    /// Its rows, one a line.
    pub text: String,
}

/// Threshold points: `earned` of `possible`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Credit {
    /// Thresholds reached.
    pub earned: u32,
    /// Thresholds in all.
    pub possible: u32,
}

/// The games of a play test: the submission against one opponent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Play {
    /// The game's name.
    pub game: String,
    /// The opponent.
    pub opponent: String,
    /// The seed the games derive from: the same seed plays the same games.
    pub seed: u64,
    /// Random plies at the start of each game.
    pub openings: u32,
    /// Nodes per move (null: no node budget).
    pub budget: Option<u32>,
    /// The time limit of a move (the agent's CPU time), in milliseconds.
    pub move_time_limit_ms: u64,
    /// The submission's results.
    pub results: PlayResults,
    /// Each measure scored, with its thresholds and what it earned.
    pub measures: Vec<PlayMeasure>,
    /// Every game.
    pub games: Vec<PlayedGame>,
}

/// The submission's results over a play test's games.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlayResults {
    /// Games played.
    pub games: u64,
    /// Won (by the rules, or by the opponent's failure).
    pub wins: u64,
    /// Drawn.
    pub draws: u64,
    /// Lost (by the rules, or by its own failure).
    pub losses: u64,
    /// Games whose rules failed, with no result.
    pub void: u64,
    /// Of the wins, those by the opponent's failure.
    pub wins_by_fault: u64,
    /// Failures charged to the submission, by kind: `timed-out`,
    /// `illegal-move`, `crashed`, `protocol-error`.
    pub faults: std::collections::BTreeMap<String, u64>,
    /// The average utility, in the submission's view.
    pub average_utility: f64,
    /// The share of games won, with its 95% Wilson interval.
    pub win_rate: crate::stats::Rate,
    /// The share of games not lost, with its interval.
    pub not_lost_rate: crate::stats::Rate,
    /// Moves made.
    pub moves: u64,
    /// Nodes entered in all.
    pub entered: u64,
    /// Moves that entered no node of the grader's tree (bounded by the wall clock only).
    pub wall_clock_moves: u64,
    /// Moves answered after the node budget ran out.
    pub budget_spent_moves: u64,
}

/// One measure of a play test.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlayMeasure {
    /// `wins`, `draws`, `not_lost`, `utility`, `no_timeout` or `clean`.
    pub measure: String,
    /// The measured value.
    pub value: f64,
    /// Below it, the question earns 0.
    pub minimum: Option<f64>,
    /// Each reached earns a share of the points.
    pub thresholds: Vec<f64>,
    /// How many were reached.
    pub reached: usize,
    /// Whether the value is below the minimum.
    pub missed_minimum: bool,
    /// Points earned.
    pub score: Points,
    /// Points its thresholds are worth.
    pub max_score: Points,
}

/// One game, as replayed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlayedGame {
    /// Its name (`q5/random/3`).
    pub label: String,
    /// Its number in the series, from 0 (with the seed, it replays the game).
    pub index: u64,
    /// The agent playing MAX (moving first).
    pub max: String,
    /// The agent playing MIN.
    pub min: String,
    /// How many of the first plies were random openings.
    pub openings: u32,
    /// Every ply's action, in order (openings and chance moves included).
    pub moves: Vec<String>,
    /// `max`, `min`, or null for a draw or a void game.
    pub winner: Option<String>,
    /// `terminal`, `fault`, `move-limit` or `void`.
    pub ending: String,
    /// The failure that ended it, if one did: who, what, and the message.
    pub fault: Option<PlayFault>,
    /// MAX's utility at the end (null when a failure ended it).
    pub utility: Option<f64>,
    /// One line: who won and how.
    pub summary: String,
}

/// A failure that ended a game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlayFault {
    /// `max` or `min`: the side charged.
    pub seat: String,
    /// `timed-out`, `illegal-move`, `crashed` or `protocol-error`.
    pub kind: String,
    /// What happened.
    pub message: String,
}

/// The three checks of a test, and MCTS's fourth.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checks {
    /// The root's value.
    pub value: String,
    /// The chosen action.
    pub action: String,
    /// The visited order.
    pub order: String,
    /// MCTS only: the random draws and the root children's N and W.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counts: Option<String>,
}

/// A named mistake.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnosis {
    /// Its id (`swapped-updates`).
    pub bug: String,
    /// The explanation for the student.
    pub explanation: String,
    /// Other mistakes that fit the trace as well.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub alternatives: Vec<String>,
}

/// The first step where two visited orders differ.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Divergence {
    /// 0-based step.
    pub step: usize,
    /// The expected node there, if the expected order is that long.
    pub expected: Option<String>,
    /// The student's node there, if the student's order is that long.
    pub actual: Option<String>,
}

/// A search's result: value, action and visited order, and what the
/// searches of docs/format.md section 8 add.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Search {
    /// The root's value (player 1's component of a max^n vector).
    pub value: Option<f64>,
    /// The chosen action.
    pub action: Option<String>,
    /// The visited node ids, in order.
    pub visited: Vec<String>,
    /// Max^n: the root's vector.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vector: Option<Vec<f64>>,
    /// Iterative deepening: the 0-based step of `visited` where each iteration starts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub iteration_starts: Vec<usize>,
    /// MCTS: each root child's action, N and W.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counts: Option<Vec<ChildCount>>,
    /// MCTS: the number of random draws.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draws: Option<u64>,
}

/// One root child's MCTS counts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChildCount {
    /// The child's action.
    pub action: String,
    /// Its N.
    pub n: u64,
    /// Its W.
    pub w: f64,
}

/// An enum of the grader's as the kebab-case name it has in reports.
fn name_of(value: &impl Serialize) -> String {
    match serde_json::to_value(value).expect("plain data") {
        serde_json::Value::String(name) => name,
        other => other.to_string(),
    }
}

impl From<&GradeReport> for Report {
    fn from(report: &GradeReport) -> Report {
        Report {
            format: FORMAT.to_string(),
            version: VERSION,
            assignment: report.assignment.clone(),
            title: report.title.clone(),
            submission: report.submission.clone(),
            language: report.language.clone(),
            questions: report.questions.iter().map(Question::from).collect(),
            score: report.score,
            max_score: report.max_score,
            elapsed_ms: report.elapsed_ms,
            sandbox: Sandbox::from(&report.sandbox),
        }
    }
}

impl From<&Layers> for Sandbox {
    fn from(layers: &Layers) -> Sandbox {
        Sandbox {
            mode: layers.mode.name().to_string(),
            process_group: layers.process_group,
            subreaper: layers.subreaper,
            time_limits: layers.time_limits,
            output_caps: layers.output_caps,
            empty_environment: layers.empty_environment,
            scratch_folder: layers.scratch_folder,
            resource_limits: layers.resource_limits,
            process_limit: layers.process_limit,
            pid_namespace: layers.pid_namespace,
            syscall_filter: layers.syscall_filter,
            separate_user: layers.separate_user,
            network_isolation: layers.network_isolation,
            filesystem_view: layers.filesystem_view,
            filesystem_isolation: layers.filesystem_isolation,
            landlock_abi: layers.landlock_abi,
            notes: layers.notes.clone(),
        }
    }
}

impl From<&result::QuestionResult> for Question {
    fn from(question: &result::QuestionResult) -> Question {
        Question {
            id: question.id.clone(),
            title: question.title.clone(),
            scoring: name_of(&question.scoring),
            score: question.score,
            max_score: question.max_score,
            tests: question.tests.iter().map(Test::from).collect(),
        }
    }
}

impl From<&result::TestResult> for Test {
    fn from(test: &result::TestResult) -> Test {
        let search = |view: &result::SearchView| Search {
            value: view.value,
            action: view.action.clone(),
            visited: view.visited.clone(),
            vector: view.vector.clone(),
            iteration_starts: view.iteration_starts.clone(),
            counts: view
                .counts
                .as_ref()
                .map(|counts| counts.iter().map(|c| ChildCount { action: c.action.clone(), n: c.n, w: c.w }).collect()),
            draws: view.draws,
        };
        Test {
            name: test.header.name.clone(),
            path: test.header.path.clone(),
            hidden: test.header.hidden,
            status: match test.header.status {
                result::TestStatus::Passed => Status::Passed,
                result::TestStatus::Failed => Status::Failed,
                result::TestStatus::Error(kind) => Status::Error(name_of(&kind)),
            },
            checks: Checks {
                value: name_of(&test.checks().value),
                action: name_of(&test.checks().action),
                order: name_of(&test.checks().order),
                counts: test.checks().counts.as_ref().map(name_of),
            },
            reason: test.header.reason.clone(),
            diagnosis: test.diagnosis().as_ref().map(|diagnosis| Diagnosis {
                bug: diagnosis.bug.to_string(),
                explanation: diagnosis.explanation.clone(),
                alternatives: diagnosis.alternatives.iter().map(|bug| bug.to_string()).collect(),
            }),
            description: test.header.description.clone(),
            details: test.header.details.clone(),
            divergence: test.divergence().as_ref().map(|divergence| Divergence {
                step: divergence.step,
                expected: divergence.expected.clone(),
                actual: divergence.actual.clone(),
            }),
            expected: search(test.expected()),
            actual: search(test.actual()),
            stderr: test.header.stderr.clone(),
            score: test.header.score,
            max_score: test.header.max_score,
            elapsed_ms: test.header.elapsed_ms,
            play: test.play().map(Play::from),
            credit: test.credit().map(|credit| Credit { earned: credit.earned, possible: credit.possible }),
            pacman: test.pacman().as_ref().map(|outcome| serde_json::to_value(outcome).expect("plain data")),
            call: test.call().map(|call| Call {
                shown: call.shown.clone(),
                expected: call.expected.clone(),
                check: call.check.clone(),
                returned: call.returned.clone(),
                boards: call
                    .boards
                    .iter()
                    .map(|board| CallBoard { label: board.label.clone(), text: board.text.clone() })
                    .collect(),
            }),
        }
    }
}

impl From<&result::PlayDetails> for Play {
    fn from(play: &result::PlayDetails) -> Play {
        let tally = &play.tally;
        Play {
            game: play.game.clone(),
            opponent: play.opponent.clone(),
            seed: play.seed,
            openings: play.openings,
            budget: play.budget,
            move_time_limit_ms: play.move_time_limit_ms,
            results: PlayResults {
                games: tally.games,
                wins: tally.wins,
                draws: tally.draws,
                losses: tally.losses,
                void: tally.void,
                wins_by_fault: tally.wins_by_fault,
                faults: tally.faults.iter().map(|(kind, count)| (kind.name().to_string(), *count)).collect(),
                average_utility: tally.average_utility(),
                win_rate: tally.win_rate(),
                not_lost_rate: tally.not_lost_rate(),
                moves: tally.moves,
                entered: tally.entered,
                wall_clock_moves: tally.wall_clock_moves,
                budget_spent_moves: tally.budget_spent_moves,
            },
            measures: play
                .measures
                .iter()
                .map(|measure| PlayMeasure {
                    measure: measure.kind.key().to_string(),
                    value: measure.award.value,
                    minimum: measure.thresholds.minimum,
                    thresholds: measure.thresholds.at.clone(),
                    reached: measure.award.reached,
                    missed_minimum: measure.award.missed_minimum,
                    score: measure.award.score,
                    max_score: measure.award.max_score,
                })
                .collect(),
            games: play.games.iter().map(PlayedGame::from).collect(),
        }
    }
}

impl From<&crate::play::GameRecord> for PlayedGame {
    fn from(record: &crate::play::GameRecord) -> PlayedGame {
        use crate::play::Ending;
        let seat_name = |seat: crate::play::Seat| if seat == crate::play::Seat::Max { "max" } else { "min" };
        PlayedGame {
            label: record.label.clone(),
            index: record.index,
            max: record.max.clone(),
            min: record.min.clone(),
            openings: record.openings,
            moves: record.moves.iter().map(|ply| ply.action.clone()).collect(),
            winner: record.winner().map(|seat| seat_name(seat).to_string()),
            ending: match &record.ending {
                Ending::Terminal => "terminal",
                Ending::Fault { .. } => "fault",
                Ending::MoveLimit => "move-limit",
                Ending::Void { .. } => "void",
            }
            .to_string(),
            fault: match &record.ending {
                Ending::Fault { seat, fault } => Some(PlayFault {
                    seat: seat_name(*seat).to_string(),
                    kind: fault.kind.name().to_string(),
                    message: fault.message.clone(),
                }),
                _ => None,
            },
            utility: record.utility,
            summary: record.summary(),
        }
    }
}

/// Why a text is not a report this treegrade reads.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// Not JSON of a report's shape.
    #[error("not a treegrade report: {0}")]
    NotAReport(#[source] serde_json::Error),
    /// A report of another format or version.
    #[error("a report of format `{format}` version {version}; this treegrade reads `{FORMAT}` version {VERSION}")]
    OtherVersion {
        /// The report's `format`.
        format: String,
        /// The report's `version`.
        version: u32,
    },
}

impl Report {
    /// Reads a report written by any treegrade of version 1.
    pub fn from_json(text: &str) -> Result<Report, ReadError> {
        let report: Report = serde_json::from_str(text).map_err(ReadError::NotAReport)?;
        if report.format != FORMAT || report.version != VERSION {
            return Err(ReadError::OtherVersion { format: report.format, version: report.version });
        }
        Ok(report)
    }

    /// Every test, question by question.
    pub fn tests(&self) -> impl Iterator<Item = &Test> {
        self.questions.iter().flat_map(|question| &question.tests)
    }
}
