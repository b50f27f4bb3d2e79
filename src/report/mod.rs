//! Grading reports: one [`GradeReport`], many formats.
//!
//! Renderers only read results; a new format touches nothing else: it is a
//! module here with its `FORMAT`, and one line in [`FORMATS`]. What a
//! student sees is rendered from [`student_view`], where hidden tests carry
//! whether they passed and which check failed, never the tree's expected
//! answers, the student's trace of it or what the program printed there.

mod calls;
mod diff;
mod drawable;
mod formats;
mod gradescope;
mod html;
pub mod json;
mod junit;
mod markdown;
mod pacman;
mod prairielearn;
mod text;
mod view;

use serde::Serialize;

pub use diff::{DIFF_HEADER, DiffLine, DiffTag, order_diff};
pub use drawable::Drawable;
pub use formats::{CHECK_AND_BATCH, Entry, Format, Offer, Rendering};
pub use html::render_html;
pub use prairielearn::render_not_gradable as render_prairielearn_not_gradable;
pub use view::student_view;

use crate::grader::result::{Check, GradeReport, QuestionResult, TestResult, TestStatus};

/// Every report format, in the order `--help` lists them: the registry
/// that `check`, `batch` and the Gradescope package read. A new format is a
/// module here with its `FORMAT`, and one line in this list.
pub const FORMATS: &[Format] = &[
    text::FORMAT,
    json::FORMAT,
    junit::FORMAT,
    gradescope::FORMAT,
    markdown::FORMAT,
    prairielearn::FORMAT,
    html::FORMAT,
];

// The formats code names; any other is reached through `FORMATS`. Named as
// the enum's variants once were, so that callers read the same.
#[allow(non_upper_case_globals)]
impl Format {
    /// Human-readable text.
    pub const Text: Format = text::FORMAT;
    /// treegrade's own JSON.
    pub const Json: Format = json::FORMAT;
    /// JUnit XML.
    pub const Junit: Format = junit::FORMAT;
    /// Gradescope's `results.json`.
    pub const Gradescope: Format = gradescope::FORMAT;
    /// Markdown.
    pub const Markdown: Format = markdown::FORMAT;
    /// PrairieLearn's `results.json`.
    pub const Prairielearn: Format = prairielearn::FORMAT;
    /// A self-contained HTML page.
    pub const Html: Format = html::FORMAT;
}

/// How much of a run the text report shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Detail {
    /// The total line only (`--quiet`).
    TotalOnly,
    /// Every test's line, and what went wrong in each failed one.
    #[default]
    Failures,
    /// Also each passed test's value, action and nodes entered (`--verbose`).
    Everything,
}

pub use text::HTML_HINTS;

/// The text report at a level of detail.
pub fn render_text(report: &GradeReport, color: bool, detail: Detail) -> String {
    text::render_with(report, color, detail)
}

/// Renders `report` in `format`; `color` applies to text only. HTML needs the
/// planned tests for its pictures: this gives a page without them (see
/// [`render_html`], or [`Format::render`] with the tests).
pub fn render(report: &GradeReport, format: Format, color: bool) -> String {
    format.render(&Rendering { color, ..Rendering::plain(report) })
}

/// Indented JSON with a final newline, as every JSON report file is written.
fn pretty_json(value: &impl Serialize) -> String {
    let mut out = serde_json::to_string_pretty(value).expect("reports are plain data");
    out.push('\n');
    out
}

/// A play test's results in one line: `6 games against random: won 5,
/// drew 1, lost 0; not lost 100% (95% CI 61-100%)`.
fn play_line(play: &crate::grader::result::PlayDetails) -> String {
    let tally = &play.tally;
    format!(
        "{} games against {}: won {}, drew {}, lost {}; not lost {}",
        tally.games,
        play.opponent,
        tally.wins,
        tally.draws,
        tally.losses,
        tally.not_lost_rate().percent_text()
    )
}

/// How every report heads a question: `Question q2: Minimax`.
fn question_heading(question: &QuestionResult) -> String {
    format!("Question {}: {}", question.id, question.title)
}

/// "PASS", "FAIL" or "ERROR".
fn status_word(test: &TestResult) -> &'static str {
    match test.header.status {
        TestStatus::Passed => "PASS",
        TestStatus::Failed => "FAIL",
        TestStatus::Error(_) => "ERROR",
    }
}

/// The one-line reason a student may see (redacted for hidden tests).
fn visible_reason(test: &TestResult) -> Option<String> {
    if !test.header.hidden || matches!(test.header.status, TestStatus::Error(_)) {
        return test.header.reason.clone();
    }
    let failed: Vec<&str> =
        [("value", test.checks().value), ("action", test.checks().action), ("visited order", test.checks().order)]
            .into_iter()
            .filter(|(_, check)| *check == Check::Failed)
            .map(|(name, _)| name)
            .collect();
    (!failed.is_empty()).then(|| format!("hidden test: wrong {}", failed.join(", ")))
}

/// The detail block of a failed test: reason, diff, stderr tail (plain text).
fn details_plain(test: &TestResult) -> String {
    details_with(test, DiffLine::plain)
}

/// [`details_plain`] with the diff's signs at the margin (Markdown).
fn details_unified(test: &TestResult) -> String {
    details_with(test, DiffLine::unified)
}

/// The detail block, each diff line written by `diff_line`.
fn details_with(test: &TestResult, diff_line: fn(&DiffLine) -> String) -> String {
    let mut out = String::new();
    if let Some(reason) = visible_reason(test) {
        out.push_str(&reason);
        out.push('\n');
    }
    if let Some(about) = about_the_tree(test) {
        out.push_str(&about);
        out.push('\n');
    }
    if let Some(cause) = likely_cause(test) {
        out.push_str(&cause);
        out.push('\n');
    }
    for line in pacman::text_lines(test).into_iter().chain(calls::text_lines(test)) {
        out.push_str(&line);
        out.push('\n');
    }
    if shows_diff(test) {
        out.push_str(DIFF_HEADER);
        out.push('\n');
        for line in order_diff(&test.expected().visited, &test.actual().visited, 3) {
            out.push_str(&diff_line(&line));
            out.push('\n');
        }
    }
    for board in visible_boards(test) {
        out.push_str(&format!("{}:\n", board.label));
        for line in board.text.lines() {
            out.push_str(&format!("  {line}\n"));
        }
    }
    if let Some(details) = test.header.details.as_deref().filter(|d| !d.is_empty()) {
        out.push_str(details.trim_end());
        out.push('\n');
    }
    if !test.header.stderr.is_empty() && test.header.status != TestStatus::Passed {
        out.push_str("your program's stderr:\n");
        out.push_str(stderr_tail(&test.header.stderr, 20).trim_end());
        out.push('\n');
    }
    out
}

/// A game's boards of a failed test the student may see.
pub fn visible_boards(test: &TestResult) -> &[crate::grader::result::Board] {
    if test.header.hidden || test.header.status == TestStatus::Passed { &[] } else { test.boards() }
}

/// The tree's own description, for a failed test the student may see.
pub fn about_the_tree(test: &TestResult) -> Option<String> {
    let description = test
        .header
        .description
        .as_deref()
        .filter(|_| !test.header.hidden && test.header.status != TestStatus::Passed)?;
    let what = if test.pacman().is_some() { "the test" } else { "the tree" };
    Some(format!("{what}: {}", description.trim()))
}

/// The named mistake, as a sentence for the student.
fn likely_cause(test: &TestResult) -> Option<String> {
    test.diagnosis().as_ref().map(|diagnosis| format!("likely cause: {}", diagnosis.explanation))
}

/// A diff helps when the program entered nodes; an empty trace is no news.
fn shows_diff(test: &TestResult) -> bool {
    !test.header.hidden && test.divergence().is_some() && !test.actual().visited.is_empty()
}

/// The last `lines` lines of a program's stderr.
fn stderr_tail(stderr: &str, lines: usize) -> String {
    let all: Vec<&str> = stderr.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}
