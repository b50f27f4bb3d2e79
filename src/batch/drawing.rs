//! The grader's planned searches as the HTML report draws them: the one
//! place that knows both the plan and the report, so that neither knows
//! the other (`check` and `batch` both hand planned tests to the report).

use std::path::Path;

use crate::engine::{Recording, SearchOutcome, SearchSettings};
use crate::grader::plan::PlannedTest;
use crate::report::Drawable;
use crate::tree::{AnyTree, Tree};

impl Drawable for PlannedTest {
    fn name(&self) -> &str {
        &self.name
    }

    fn path(&self) -> &Path {
        &self.path
    }

    fn settings(&self) -> SearchSettings {
        self.settings
    }

    fn reference(&self) -> &SearchOutcome {
        &self.reference
    }

    fn recording(&self) -> &Recording {
        &self.recording
    }

    fn written(&self) -> Option<&Tree> {
        self.tree.written()
    }

    fn served(&self) -> AnyTree<'_> {
        PlannedTest::served(self)
    }
}

/// The planned searches as the HTML report takes them.
pub fn drawables<'a>(tests: impl IntoIterator<Item = &'a PlannedTest>) -> Vec<&'a dyn Drawable> {
    tests.into_iter().map(|test| test as &dyn Drawable).collect()
}
