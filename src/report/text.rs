//! The text report: `PASS`/`FAIL` per test, a reason in one line, then the diff.

use std::fmt::Write as _;

use anstyle::{AnsiColor, Style};

use super::{
    DIFF_HEADER, Detail, DiffTag, about_the_tree, details_plain, likely_cause, order_diff, question_heading,
    shows_diff, status_word, stderr_tail, visible_boards, visible_reason,
};
use crate::grader::result::{Check, GradeReport, QuestionResult, TestResult, TestStatus};

/// The `text` format's entry in the registry (`report::FORMATS`).
pub(super) const FORMAT: super::Format = super::Format::of(&super::Entry {
    name: "text",
    help: "Human-readable, in the spirit of CS188's autograder, with diffs",
    file: "report.txt",
    render: |rendering| render_with(rendering.report, rendering.color, rendering.detail),
    offered_by: super::CHECK_AND_BATCH,
});

pub fn render_with(report: &GradeReport, color: bool, detail: Detail) -> String {
    let paint = Painter { color };
    let total = paint.bold(&format!("Total: {}/{}", report.score, report.max_score));
    if detail == Detail::TotalOnly {
        return format!("{total}\n");
    }
    let mut out = String::new();
    let language = report.language.as_deref().map(|l| format!(" ({l})")).unwrap_or_default();
    let sandbox = paint.dim(&report.sandbox.summary());
    let _ = writeln!(out, "{}: {}{language} [{sandbox}]", paint.bold(&report.title), report.submission);
    for question in &report.questions {
        out.push('\n');
        question_block(&mut out, question, &paint, detail);
    }
    let _ = writeln!(out, "\n{total}");
    let unobserved = report.tests().filter(|test| value_unobserved(test)).count();
    if unobserved > 0 {
        let _ = writeln!(
            out,
            "The value of {unobserved} test(s) was not checked: your program gives only an action, and none of \
             your functions returned a value for the start state (as CS188's getAction does); their action \
             and visited order were checked."
        );
    }
    let games = |test: &TestResult| test.play().is_some() || test.pacman().is_some();
    let searched = |test: &TestResult| !games(test) && test.call().is_none();
    if report.tests().any(|test| test.header.status == TestStatus::Failed && !test.header.hidden && searched(test)) {
        let _ = writeln!(out, "{}", HTML_HINTS[0]);
    }
    if report.tests().any(|test| test.header.status != TestStatus::Passed && games(test)) {
        let _ = writeln!(out, "{}", HTML_HINTS[1]);
    }
    out
}

/// The closing lines that point to the HTML report; `check` leaves them
/// out when it writes that report itself, and says where it went instead.
pub const HTML_HINTS: [&str; 2] = [
    "To see each failed search drawn on its tree: treegrade check --format html --output report.html",
    "To step through each game on its board: treegrade check --format html --output report.html",
];

fn question_block(out: &mut String, question: &QuestionResult, paint: &Painter, detail: Detail) {
    let _ = writeln!(out, "{}", question_heading(question));
    let mut previous: Option<&TestResult> = None;
    for test in &question.tests {
        let word = status_word(test);
        let styled = match test.header.status {
            TestStatus::Passed => paint.green(word),
            _ => paint.red(word),
        };
        let hidden = if test.header.hidden { " (hidden)" } else { "" };
        let unobserved = if value_unobserved(test) { " (value not observed)" } else { "" };
        let points = super::pacman::points_note(test).unwrap_or_default();
        let _ = writeln!(out, "  {styled:<5} {}{hidden}{unobserved}{points}", test.header.name);
        if repeats_the_error_of(test, previous) {
            // A program that fails the same way before it enters any node
            // (it does not import, say) gets the error once in full.
            let reason = visible_reason(test).unwrap_or_default();
            let _ = writeln!(out, "        {reason}");
        } else if test.header.status != TestStatus::Passed {
            failure_details(out, test, paint);
        } else if test.pacman().is_some() {
            // A passed Pacman test: how its games went, in one line (all of them with --verbose).
            let lines = super::pacman::text_lines(test);
            let shown = if detail == Detail::Everything { lines.len() } else { 1 };
            for line in lines.iter().take(shown) {
                let _ = writeln!(out, "        {}", paint.dim(line));
            }
        } else if let Some(play) = &test.play() {
            let _ = writeln!(out, "        {}", paint.dim(&super::play_line(play)));
        } else if test.call().is_some() {
            if let Some(line) = super::calls::passed_line(test).filter(|_| detail == Detail::Everything) {
                let _ = writeln!(out, "        {}", paint.dim(&line));
            }
        } else if detail == Detail::Everything && !test.header.hidden {
            let action = test.actual().action.as_deref().unwrap_or("none");
            let value = match &test.actual().vector {
                Some(vector) => crate::compare::format_vector(vector),
                None => test.actual().value.map_or_else(|| "none".to_string(), crate::compare::format_value),
            };
            let line = format!(
                "value {value}, action {action}, {} nodes entered, {} ms",
                test.actual().visited.len(),
                test.header.elapsed_ms
            );
            let _ = writeln!(out, "        {}", paint.dim(&line));
        }
        previous = Some(test);
    }
    let _ = writeln!(out, "Question {}: {}/{}", question.id, question.score, question.max_score);
}

/// Whether `test` is an error with no node entered and the same reason as
/// the test before it, which was shown in full.
fn repeats_the_error_of(test: &TestResult, previous: Option<&TestResult>) -> bool {
    let Some(previous) = previous else { return false };
    matches!(test.header.status, TestStatus::Error(_))
        && test.actual().visited.is_empty()
        && previous.header.status == test.header.status
        && previous.header.reason == test.header.reason
        && visible_reason(test).is_some()
}

fn failure_details(out: &mut String, test: &TestResult, paint: &Painter) {
    if !paint.color {
        for line in details_plain(test).lines() {
            let _ = writeln!(out, "        {line}");
        }
        return;
    }
    if let Some(reason) = visible_reason(test) {
        let _ = writeln!(out, "        {reason}");
    }
    if let Some(about) = about_the_tree(test) {
        let _ = writeln!(out, "        {}", paint.dim(&about));
    }
    if let Some(cause) = likely_cause(test) {
        let _ = writeln!(out, "        {}", paint.bold(&cause));
    }
    for line in super::pacman::text_lines(test).into_iter().chain(super::calls::text_lines(test)) {
        let _ = writeln!(out, "        {line}");
    }
    if shows_diff(test) {
        let _ = writeln!(out, "        {}", paint.dim(DIFF_HEADER));
        for line in order_diff(&test.expected().visited, &test.actual().visited, 3) {
            let plain = line.plain();
            let painted = match line.tag {
                DiffTag::Expected => paint.red(&plain),
                DiffTag::Yours => paint.green(&plain),
                DiffTag::Same | DiffTag::Gap => paint.dim(&plain),
            };
            let _ = writeln!(out, "        {painted}");
        }
    }
    for board in visible_boards(test) {
        let _ = writeln!(out, "        {}:", board.label);
        for line in board.text.lines() {
            let _ = writeln!(out, "          {line}");
        }
    }
    if let Some(details) = test.header.details.as_deref().filter(|d| !d.is_empty()) {
        for line in details.lines() {
            let _ = writeln!(out, "        {}", paint.dim(line));
        }
    }
    if !test.header.stderr.is_empty() {
        let _ = writeln!(out, "        your program's stderr:");
        for line in stderr_tail(&test.header.stderr, 20).lines() {
            let _ = writeln!(out, "        {}", paint.dim(line));
        }
    }
}

/// A test that the program answered without a value (allowed only on trees
/// taken from a game, where a CS188 kit may not observe it).
fn value_unobserved(test: &TestResult) -> bool {
    test.play().is_none()
        && test.pacman().is_none()
        && test.call().is_none()
        && test.checks().value == Check::NotRun
        && matches!(test.header.status, TestStatus::Passed | TestStatus::Failed)
}

/// Applies ANSI styles only when colour is on.
struct Painter {
    color: bool,
}

impl Painter {
    fn paint(&self, style: Style, text: &str) -> String {
        if self.color { format!("{}{text}{}", style.render(), style.render_reset()) } else { text.to_string() }
    }

    fn bold(&self, text: &str) -> String {
        self.paint(Style::new().bold(), text)
    }

    fn green(&self, text: &str) -> String {
        self.paint(Style::new().fg_color(Some(AnsiColor::Green.into())), text)
    }

    fn red(&self, text: &str) -> String {
        self.paint(Style::new().fg_color(Some(AnsiColor::Red.into())), text)
    }

    fn dim(&self, text: &str) -> String {
        self.paint(Style::new().dimmed(), text)
    }
}
