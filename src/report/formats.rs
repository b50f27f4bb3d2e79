//! The report formats, in one registry: what each is called, the file a
//! batch writes it to, how it is rendered and which commands offer it.
//! `treegrade check --format` and `--report`, a batch's per-student reports
//! and the Gradescope autograder all read [`FORMATS`]; the command line
//! builds its flag values from it. A new format is a module of `report`
//! with its `FORMAT` and one line in [`FORMATS`] (in `report/mod.rs`, which
//! alone names the renderers' modules).

use std::fmt;

use super::{Detail, FORMATS};
use crate::grader::result::GradeReport;

/// A report format: a handle on its entry in [`FORMATS`].
#[derive(Clone, Copy)]
pub struct Format(&'static Entry);

/// What the registry says of one format.
pub struct Entry {
    /// Its name on the command line (`--format NAME`, `--report NAME=FILE`).
    pub name: &'static str,
    /// What it is, for `--help`.
    pub help: &'static str,
    /// The file a batch writes it to, in each student's reports folder.
    pub file: &'static str,
    /// Renders a report in this format.
    pub render: fn(&Rendering<'_>) -> String,
    /// The commands that offer it.
    pub offered_by: &'static [Offer],
}

/// Where a format is offered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offer {
    /// `treegrade check --format` and `--report`.
    Check,
    /// A batch's per-student reports (`reports/STUDENT/FILE`).
    Batch,
    /// The Gradescope autograder's `run_autograder`, which writes
    /// Gradescope's `results.json` (one format offers it).
    Gradescope,
}

/// Offered by `check` and written by every batch.
pub const CHECK_AND_BATCH: &[Offer] = &[Offer::Check, Offer::Batch];

/// What a renderer is given: the report and how to show it.
#[derive(Clone, Copy)]
pub struct Rendering<'a> {
    /// The report (for students, their view: see [`super::student_view`]).
    pub report: &'a GradeReport,
    /// The planned tests, whose trees HTML draws (none: no pictures).
    pub tests: &'a [&'a dyn super::drawable::Drawable],
    /// Terminal colours (text only).
    pub color: bool,
    /// How much the text report shows.
    pub detail: Detail,
}

impl<'a> Rendering<'a> {
    /// `report` with no pictures, no colours and the usual detail.
    pub fn plain(report: &'a GradeReport) -> Rendering<'a> {
        Rendering { report, tests: &[], color: false, detail: Detail::default() }
    }
}

impl Format {
    /// The handle of a registry entry (for the renderers' `FORMAT`s).
    pub(super) const fn of(entry: &'static Entry) -> Format {
        Format(entry)
    }

    /// Every format of the registry.
    pub fn all() -> impl Iterator<Item = Format> {
        FORMATS.iter().copied()
    }

    /// The formats `offer` offers, in the registry's order.
    pub fn offered_by(offer: Offer) -> impl Iterator<Item = Format> {
        Format::all().filter(move |format| format.0.offered_by.contains(&offer))
    }

    /// The format of this name, as written (`--format`).
    pub fn named(name: &str) -> Option<Format> {
        Format::all().find(|format| format.name() == name)
    }

    /// The format of this name in any case (`--report JSON=FILE`).
    pub fn named_in_any_case(name: &str) -> Option<Format> {
        Format::all().find(|format| format.name().eq_ignore_ascii_case(name))
    }

    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        self.0.name
    }

    /// What it is, for `--help`.
    pub fn help(self) -> &'static str {
        self.0.help
    }

    /// The file a batch writes it to.
    pub fn file(self) -> &'static str {
        self.0.file
    }

    /// Whether `offer` offers it.
    pub fn is_offered_by(self, offer: Offer) -> bool {
        self.0.offered_by.contains(&offer)
    }

    /// The report in this format.
    pub fn render(self, rendering: &Rendering<'_>) -> String {
        (self.0.render)(rendering)
    }
}

impl PartialEq for Format {
    fn eq(&self, other: &Format) -> bool {
        self.name() == other.name()
    }
}

impl Eq for Format {}

impl fmt::Debug for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_files_are_each_given_once() {
        for (position, format) in FORMATS.iter().enumerate() {
            for other in &FORMATS[..position] {
                assert_ne!(format.name(), other.name());
                assert_ne!(format.file(), other.file());
            }
            assert!(!format.help().is_empty(), "{format}");
        }
    }

    #[test]
    fn formats_are_found_by_name() {
        assert_eq!(Format::named("junit"), Some(Format::Junit));
        assert_eq!(Format::named("JUnit"), None);
        assert_eq!(Format::named_in_any_case("JUnit"), Some(Format::Junit));
        assert_eq!(Format::named("xml"), None);
    }

    #[test]
    fn check_and_batch_offer_every_format_and_gradescope_its_own() {
        assert_eq!(Format::offered_by(Offer::Check).count(), FORMATS.len());
        assert_eq!(Format::offered_by(Offer::Batch).count(), FORMATS.len());
        let gradescope: Vec<Format> = Format::offered_by(Offer::Gradescope).collect();
        assert_eq!(gradescope, [Format::Gradescope]);
        assert_eq!(Format::Gradescope.file(), "results.json");
    }
}
