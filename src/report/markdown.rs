//! The Markdown report: a summary table and a section per failed test, fit
//! for `$GITHUB_STEP_SUMMARY`.

use std::fmt::Write as _;

use super::{details_unified, status_word};
use crate::grader::result::{GradeReport, TestStatus};

/// The `markdown` format's entry in the registry (`report::FORMATS`).
pub(super) const FORMAT: super::Format = super::Format::of(&super::Entry {
    name: "markdown",
    help: "Markdown for a GitHub Actions job summary",
    file: "report.md",
    render: |rendering| render(rendering.report),
    offered_by: super::CHECK_AND_BATCH,
});

pub fn render(report: &GradeReport) -> String {
    let mut out = String::new();
    let mark = if report.all_passed() { "✅" } else { "❌" };
    let _ = writeln!(out, "## {mark} {}: {}/{}\n", report.title, report.score, report.max_score);
    let _ = writeln!(out, "| Question | Score | Passed |");
    let _ = writeln!(out, "|---|---:|---:|");
    for question in &report.questions {
        let passed = question.tests.iter().filter(|t| t.header.status == TestStatus::Passed).count();
        let _ = writeln!(
            out,
            "| {} {} | {}/{} | {passed}/{} |",
            question.id,
            escape(&question.title),
            question.score,
            question.max_score,
            question.tests.len()
        );
    }
    for test in report.tests().filter(|t| t.header.status != TestStatus::Passed) {
        let _ = writeln!(out, "\n### {} `{}`\n", status_word(test), test.header.name);
        let _ = writeln!(out, "```diff");
        out.push_str(&details_unified(test).replace("```", "'''"));
        let _ = writeln!(out, "```");
    }
    out
}

fn escape(text: &str) -> String {
    text.replace('|', "\\|")
}
