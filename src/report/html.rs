//! The HTML report: one self-contained page (inline CSS, inline SVG, one
//! inline script for the step-throughs, nothing fetched), with a picture of
//! the tree for each failed test and a step-through of both searches.
//!
//! The picture numbers the reference's visited order and highlights where the
//! student's order leaves it (see [`crate::render`]). Hidden tests get no
//! picture and no expected data, exactly as in the other formats.

use std::fmt::Write as _;

use super::drawable::Drawable;
use super::{
    DIFF_HEADER, DiffTag, about_the_tree, likely_cause, order_diff, shows_diff, status_word, stderr_tail,
    visible_boards, visible_reason,
};
use crate::grader::result::{Check, GradeReport, QuestionResult, TestResult, TestStatus};
use crate::render::{self, Picture, escape};

/// The `html` format's entry in the registry (`report::FORMATS`).
pub(super) const FORMAT: super::Format = super::Format::of(&super::Entry {
    name: "html",
    help: "A self-contained HTML page with a picture of each failed test's tree",
    file: "report.html",
    render: |rendering| render_html(rendering.report, rendering.tests),
    offered_by: super::CHECK_AND_BATCH,
});

/// Renders `report` as an HTML page; `tests` are the planned tests the report
/// graded (matched by name and path), whose trees give the pictures. With no
/// tests the page has no pictures.
pub fn render_html(report: &GradeReport, tests: &[&dyn Drawable]) -> String {
    let mut body = String::new();
    let mark = if report.all_passed() { "pass" } else { "fail" };
    let _ = writeln!(
        body,
        "<header><h1>{}</h1><p class=\"total {mark}\">{} / {}</p></header>",
        escape(&report.title),
        report.score,
        report.max_score
    );
    let language = report.language.as_deref().map(|l| format!(" ({})", escape(l))).unwrap_or_default();
    let _ = writeln!(body, "<p class=\"meta\">Submission <code>{}</code>{language}</p>", escape(&report.submission));
    summary_table(&mut body, report);
    for question in &report.questions {
        question_section(&mut body, question, tests);
    }
    // The step-throughs' and replays' scripts, only where there is one.
    let mut script = String::new();
    if body.contains("<section class=\"stepper\"") {
        script.push_str(&format!("<script>{}</script>\n", render::stepper::SCRIPT));
    }
    if body.contains("<section class=\"replay\"") {
        script.push_str(&format!("<script>{}</script>\n", render::replay::SCRIPT));
    }
    if super::pacman::has_replays(&body) {
        script.push_str(&format!("<script>{}</script>\n", super::pacman::SCRIPT));
    }
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{}</title>\n\
         <style>{STYLE}{}{}{}</style>\n</head>\n<body>\n{body}{script}</body>\n</html>\n",
        escape(&format!("{}: {}/{}", report.title, report.score, report.max_score)),
        render::stepper::STYLE,
        if body.contains("<section class=\"replay\"") { render::replay::STYLE } else { "" },
        if super::pacman::has_replays(&body) { super::pacman::STYLE } else { "" }
    )
}

/// One row per question: score and passed tests.
fn summary_table(out: &mut String, report: &GradeReport) {
    let _ = writeln!(
        out,
        "<table class=\"summary\">\n<thead><tr><th>Question</th><th>Score</th><th>Passed</th></tr></thead>\n<tbody>"
    );
    for question in &report.questions {
        let passed = question.tests.iter().filter(|t| t.header.status == TestStatus::Passed).count();
        let class = if passed == question.tests.len() { "pass" } else { "fail" };
        let _ = writeln!(
            out,
            "<tr class=\"{class}\"><td><a href=\"#{}\">{} {}</a></td>\
             <td class=\"num\">{} / {}</td><td class=\"num\">{passed} / {}</td></tr>",
            anchor(&question.id),
            escape(&question.id),
            escape(&question.title),
            question.score,
            question.max_score,
            question.tests.len()
        );
    }
    let _ = writeln!(out, "</tbody>\n</table>");
}

/// A question: its tests in a table, then the details of each failure.
fn question_section(out: &mut String, question: &QuestionResult, tests: &[&dyn Drawable]) {
    let _ = writeln!(
        out,
        "<section id=\"{}\">\n<h2>Question {}: {} <span class=\"score\">{} / {}</span></h2>",
        anchor(&question.id),
        escape(&question.id),
        escape(&question.title),
        question.score,
        question.max_score
    );
    let _ = writeln!(out, "<table class=\"tests\">\n<tbody>");
    for test in &question.tests {
        let hidden = if test.header.hidden { " <span class=\"hidden\">hidden</span>" } else { "" };
        let reason = visible_reason(test).map(|r| escape(&r)).unwrap_or_default();
        let name = match test.header.status {
            TestStatus::Passed if test.play().is_none() && test.pacman().is_none() => escape(&test.header.name),
            _ => format!("<a href=\"#{}\">{}</a>", anchor(&test.header.name), escape(&test.header.name)),
        };
        let _ =
            writeln!(out, "<tr><td>{}</td><td>{name}{hidden}</td><td class=\"reason\">{reason}</td></tr>", badge(test));
    }
    let _ = writeln!(out, "</tbody>\n</table>");
    for test in question.tests.iter().filter(|t| t.header.status != TestStatus::Passed) {
        failure(out, test, planned_for(test, tests));
    }
    // A passed test's games (a play test's, a Pacman test's) are worth a look too.
    for test in question
        .tests
        .iter()
        .filter(|t| t.header.status == TestStatus::Passed && (t.play().is_some() || t.pacman().is_some()))
    {
        let _ = writeln!(
            out,
            "<article class=\"played\" id=\"{}\">\n<h3>{} {}</h3>",
            anchor(&test.header.name),
            badge(test),
            escape(&test.header.name)
        );
        games(out, test);
        super::pacman::html(out, test);
        let _ = writeln!(out, "</article>");
    }
    let _ = writeln!(out, "</section>");
}

/// The details of a failed test: reason, likely cause, checks, diff, stderr, picture.
fn failure(out: &mut String, test: &TestResult, planned: Option<&dyn Drawable>) {
    let hidden = if test.header.hidden { " <span class=\"hidden\">hidden</span>" } else { "" };
    let _ = writeln!(
        out,
        "<article class=\"failure\" id=\"{}\">\n<h3>{} {}{hidden}</h3>",
        anchor(&test.header.name),
        badge(test),
        escape(&test.header.name)
    );
    if let Some(reason) = visible_reason(test) {
        let _ = writeln!(out, "<p class=\"reason\">{}</p>", escape(&reason));
    }
    if let Some(about) = about_the_tree(test) {
        let _ = writeln!(out, "<p class=\"about\">{}</p>", escape(&about));
    }
    if let Some(cause) = likely_cause(test) {
        let _ = writeln!(out, "<p class=\"cause\">{}</p>", escape(&cause));
    }
    if test.pacman().is_some() {
        super::pacman::html(out, test);
    } else if test.call().is_some() {
        super::calls::html(out, test);
    } else if test.play().is_none() {
        checks(out, test);
    }
    if shows_diff(test) {
        diff_table(out, test);
    }
    if !visible_boards(test).is_empty() {
        let _ = writeln!(out, "<div class=\"boards\">");
        for board in visible_boards(test) {
            let _ = writeln!(
                out,
                "<figure class=\"board\"><figcaption>{}</figcaption>{}</figure>",
                escape(&board.label),
                board_html(&board.text)
            );
        }
        let _ = writeln!(out, "</div>");
    }
    if test.play().is_some() {
        games(out, test);
    } else if let Some(details) = test.header.details.as_deref().filter(|d| !d.trim().is_empty()) {
        let _ = writeln!(out, "<pre class=\"details\">{}</pre>", escape(details.trim_end()));
    }
    if !test.header.stderr.is_empty() {
        let _ = writeln!(
            out,
            "<p class=\"label\">Your program's stderr (last lines):</p>\n<pre class=\"stderr\">{}</pre>",
            escape(stderr_tail(&test.header.stderr, 20).trim_end())
        );
    }
    // A picture shows where a search went wrong; a program that answered
    // nothing and entered no node has no search to show.
    let searched = test.actual().value.is_some() || !test.actual().visited.is_empty();
    if let Some(planned) = planned.filter(|_| !test.header.hidden && searched) {
        picture(out, test, planned);
    }
    let _ = writeln!(out, "</article>");
}

/// A play test's games: rates with intervals, the seed, and each game to
/// step through on its board.
fn games(out: &mut String, test: &TestResult) {
    let Some(play) = &test.play() else { return };
    let tally = &play.tally;
    let _ = writeln!(out, "<p class=\"about\">{}</p>", escape(&super::play_line(play)));
    let budget = play.budget.map_or_else(|| "no node budget".to_string(), |budget| format!("{budget} nodes per move"));
    let _ = writeln!(
        out,
        "<p class=\"meta\">{} of {}, seed {}, {} random opening plies per game, {budget}, {} s per move; \
         wins {}; failures charged to you: {}; average utility {:.3}</p>",
        tally.games,
        escape(&play.game),
        play.seed,
        play.openings,
        play.move_time_limit_ms as f64 / 1000.0,
        escape(&tally.win_rate().percent_text()),
        if tally.faults.is_empty() {
            "none".to_string()
        } else {
            tally.faults.iter().map(|(kind, count)| format!("{count} {}", kind.words())).collect::<Vec<_>>().join(", ")
        },
        tally.average_utility()
    );
    if tally.wall_clock_moves > 0 {
        let _ = writeln!(
            out,
            "<p class=\"cause\">{} of your {} moves entered no node of the grader's tree: your agent searched a \
             copy of the rules of its own, which only the wall clock bounds.</p>",
            tally.wall_clock_moves, tally.moves
        );
    }
    for record in &play.games {
        let _ = writeln!(
            out,
            "<details class=\"game\"><summary>{}: {}</summary>\n{}</details>",
            escape(&record.label),
            escape(&record.summary()),
            render::replay::section(record)
        );
    }
}

/// Value, action and order (and MCTS's counts), each passed, failed or not run.
fn checks(out: &mut String, test: &TestResult) {
    let _ = write!(out, "<p class=\"checks\">");
    let counts = test.checks().counts.map(|check| ("counts", check));
    let all = [("value", test.checks().value), ("action", test.checks().action), ("order", test.checks().order)];
    for (name, check) in all.into_iter().chain(counts) {
        let (class, sign) = match check {
            Check::Passed => ("pass", "✓"),
            Check::Failed => ("fail", "✗"),
            Check::NotRun => ("notrun", "–"),
        };
        let _ = write!(out, "<span class=\"check {class}\">{sign} {name}</span> ");
    }
    let _ = writeln!(out, "</p>");
}

/// The visited-order diff around the first difference, as a table.
fn diff_table(out: &mut String, test: &TestResult) {
    let _ = writeln!(
        out,
        "<p class=\"label\">Visited order, around the first difference:</p>\n<table class=\"diff\" title=\"{}\">\n\
         <thead><tr><th></th><th>expected</th><th>yours</th><th>node</th></tr></thead>\n<tbody>",
        escape(DIFF_HEADER.trim())
    );
    for line in order_diff(&test.expected().visited, &test.actual().visited, 3) {
        let (class, sign) = match line.tag {
            DiffTag::Same => ("same", " "),
            DiffTag::Expected => ("expected", "−"),
            DiffTag::Yours => ("yours", "+"),
            DiffTag::Gap => ("gap", "…"),
        };
        let step = |step: Option<usize>| step.map_or(String::new(), |s| s.to_string());
        let _ = writeln!(
            out,
            "<tr class=\"{class}\"><td>{sign}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td></tr>",
            step(line.expected_step),
            step(line.your_step),
            escape(&line.node)
        );
    }
    let _ = writeln!(out, "</tbody>\n</table>");
}

/// The tree with the reference's order numbered and the student's divergence marked.
fn picture(out: &mut String, test: &TestResult, planned: &dyn Drawable) {
    // A game's tree is drawn as far as the two searches went: the reference's
    // nodes made again on a fresh unfolding (with the indices the planned
    // search recorded), the student's nodes found in it.
    let part;
    let (tree, outcome, recording, student) = match planned.written() {
        Some(tree) => {
            (tree, planned.reference(), planned.recording(), render::known_indices(tree, &test.actual().visited))
        }
        None => {
            let served = planned.served();
            let searched = [(planned.reference(), planned.recording())];
            let Ok(drawn) = render::game_part(&*served, &searched, &test.actual().visited) else { return };
            part = drawn;
            let (outcome, recording) = &part.searches[0];
            (&part.tree, outcome, recording, part.trace.clone())
        }
    };
    let settings = planned.settings();
    let reference = render::Reference { settings: &settings, outcome, recording };
    let base = Picture { reference: Some(reference), ..Picture::new(tree) };
    let picture = if student.is_empty() { base } else { base.with_student(&student) };
    let svg = render::render_svg(&picture);
    let _ = writeln!(
        out,
        "<figure class=\"picture\">\n<figcaption>The reference search, numbered by visit step; \
         red: your first wrong node, orange: nodes you entered but should not have, \
         dashed: nodes you skipped. Hover a node for its details.</figcaption>\n\
         <div class=\"scroll\">\n{svg}</div>\n</figure>"
    );
    if !student.is_empty() {
        let _ = writeln!(
            out,
            "<p class=\"label\">Step through both searches (buttons, or the arrow keys, Home, End and D once \
             the step-through has the focus):</p>\n{}",
            render::stepper::section(tree, reference, &student, &svg)
        );
    }
}

/// The planned test a result came from: same name, and same path when names repeat.
fn planned_for<'t>(test: &TestResult, tests: &[&'t dyn Drawable]) -> Option<&'t dyn Drawable> {
    let mut named = tests.iter().copied().filter(|planned| planned.name() == test.header.name);
    let first = named.next()?;
    let same_path = |planned: &&dyn Drawable| planned.path().display().to_string() == test.header.path;
    if same_path(&first) { Some(first) } else { named.find(same_path).or(Some(first)) }
}

/// The PASS / FAIL / ERROR badge of a test.
fn badge(test: &TestResult) -> String {
    let class = match test.header.status {
        TestStatus::Passed => "pass",
        TestStatus::Failed => "fail",
        TestStatus::Error(_) => "error",
    };
    format!("<span class=\"badge {class}\">{}</span>", status_word(test))
}

/// An id attribute value made of safe characters only.
fn anchor(name: &str) -> String {
    let safe: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect();
    format!("t-{safe}")
}

/// The page's stylesheet.
/// A board as a grid of cells when it is an m,n,k-game's (rows of `x`, `o`
/// and `.` under their numbers, then the column letters), else as text.
fn board_html(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let Some((letters, rows)) = lines.split_last() else { return String::new() };
    let grid: Option<Vec<(&str, &str)>> = rows
        .iter()
        .map(|line| line.trim().split_once(' ').filter(|(_, cells)| cells.chars().all(|c| "xo.".contains(c))))
        .collect();
    let Some(grid) = grid.filter(|grid| !grid.is_empty()) else {
        return format!("<pre>{}</pre>", escape(text));
    };
    let mut out = String::from("<table class=\"grid\">");
    for (number, cells) in grid {
        out.push_str(&format!("<tr><th>{}</th>", escape(number)));
        for cell in cells.chars() {
            let (class, mark) = match cell {
                'x' => ("x", "X"),
                'o' => ("o", "O"),
                _ => ("empty", ""),
            };
            out.push_str(&format!("<td class=\"{class}\">{mark}</td>"));
        }
        out.push_str("</tr>");
    }
    out.push_str("<tr><th></th>");
    for letter in letters.trim().chars() {
        out.push_str(&format!("<th>{letter}</th>"));
    }
    out.push_str("</tr></table>");
    out
}

const STYLE: &str = "
body { font-family: system-ui, -apple-system, 'Segoe UI', Roboto, 'DejaVu Sans', 'Liberation Sans', sans-serif; margin: 0 auto; padding: 24px; max-width: 1400px; color: #0f172a; background: #f8fafc; line-height: 1.45; }
header { display: flex; align-items: baseline; gap: 24px; }
h1 { font-size: 24px; margin: 0; }
.boards { display: flex; flex-wrap: wrap; gap: 20px; margin: 10px 0; }
figure.board { margin: 0; }
figure.board figcaption { font-size: 13px; color: #475569; margin-bottom: 4px; }
table.grid { border-collapse: collapse; }
table.grid td { width: 22px; height: 22px; border: 1px solid #94a3b8; text-align: center; font-weight: 700; background: #fff; }
table.grid td.x { color: #1d4ed8; }
table.grid td.o { color: #b91c1c; }
table.grid th { font-size: 11px; color: #64748b; font-weight: 400; padding: 0 4px; }
h2 { font-size: 19px; margin: 32px 0 10px; border-bottom: 1px solid #e2e8f0; padding-bottom: 4px; }
h2 .score { color: #475569; font-weight: normal; margin-left: 8px; }
h3 { font-size: 16px; margin: 0 0 8px; }
.total { font-size: 22px; font-weight: bold; margin: 0; }
.total.pass { color: #15803d; } .total.fail { color: #b91c1c; }
.meta { color: #475569; margin: 4px 0 16px; }
code, pre, .diff { font-family: 'DejaVu Sans Mono', Menlo, Consolas, 'Liberation Mono', monospace; font-size: 13px; }
table { border-collapse: collapse; background: #fff; }
th, td { text-align: left; padding: 4px 12px; border-bottom: 1px solid #e2e8f0; vertical-align: top; }
th { background: #f1f5f9; font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.summary tr.fail td:first-child { border-left: 4px solid #dc2626; }
.summary tr.pass td:first-child { border-left: 4px solid #16a34a; }
.tests { width: 100%; }
.tests td:first-child { width: 56px; }
.tests td:nth-child(2) { width: 38%; }
.tests td.reason { color: #334155; }
a { color: #1d4ed8; text-decoration: none; } a:hover { text-decoration: underline; }
.badge { display: inline-block; min-width: 44px; text-align: center; font-size: 12px; font-weight: bold; padding: 1px 6px; border-radius: 4px; color: #fff; }
.badge.pass { background: #16a34a; } .badge.fail { background: #dc2626; } .badge.error { background: #9333ea; }
.hidden { font-size: 12px; color: #64748b; border: 1px solid #cbd5e1; border-radius: 4px; padding: 0 4px; margin-left: 6px; }
.failure { background: #fff; border: 1px solid #e2e8f0; border-left: 4px solid #dc2626; border-radius: 6px; padding: 14px 16px; margin: 14px 0; }
.reason { margin: 4px 0; }
.cause { margin: 4px 0; font-weight: 600; color: #9a3412; }
.checks .check { display: inline-block; margin-right: 10px; font-size: 14px; }
.check.pass { color: #15803d; } .check.fail { color: #b91c1c; font-weight: bold; } .check.notrun { color: #64748b; }
.label { margin: 10px 0 4px; color: #475569; font-size: 14px; }
.diff td { padding: 1px 10px; border: none; }
.diff tr.expected td { background: #fee2e2; color: #991b1b; }
.diff tr.yours td { background: #dcfce7; color: #166534; }
.diff tr.gap td { color: #94a3b8; }
pre { background: #0f172a; color: #e2e8f0; padding: 10px 12px; border-radius: 6px; overflow: auto; max-height: 320px; }
.picture { margin: 12px 0 0; }
.picture figcaption { color: #475569; font-size: 14px; margin-bottom: 6px; }
.scroll { overflow: auto; max-height: 900px; width: fit-content; max-width: 100%; border: 1px solid #e2e8f0; border-radius: 6px; background: #fff; }
.scroll svg { display: block; }
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_are_safe() {
        assert_eq!(anchor("q2/aima fig<5>"), "t-q2_aima_fig_5_");
    }
}
