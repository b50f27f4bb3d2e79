//! The JSON report: a versioned public format, separate from the types that
//! grade. [`v1`] is `"format": "treegrade-report", "version": 1`
//! (docs/report-json.md); renaming a field of the grader changes nothing
//! here, and a change here is a change of the format.

pub mod v1;

use crate::grader::result::GradeReport;

/// The `json` format's entry in the registry (`report::FORMATS`).
pub(super) const FORMAT: super::Format = super::Format::of(&super::Entry {
    name: "json",
    help: "treegrade's own JSON (docs/report-json.md)",
    file: "report.json",
    render: |rendering| render(rendering.report),
    offered_by: super::CHECK_AND_BATCH,
});

/// The report as version 1 of the JSON format, indented, with a final newline.
pub fn render(report: &GradeReport) -> String {
    let mut out = serde_json::to_string_pretty(&v1::Report::from(report)).expect("reports are plain data");
    out.push('\n');
    out
}
