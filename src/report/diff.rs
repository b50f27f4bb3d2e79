//! The visited-order diff: where the student's search left the reference's.

use similar::{Algorithm, DiffOp, capture_diff_slices};

/// What a diff line shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiffTag {
    /// Both orders enter this node here.
    Same,
    /// The reference enters it; the student does not (here).
    Expected,
    /// The student enters it; the reference does not (here).
    Yours,
    /// Lines left out.
    Gap,
}

/// One line of an order diff.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiffLine {
    /// Which side(s).
    pub tag: DiffTag,
    /// 1-based step in the order this line belongs to.
    pub step: usize,
    /// The node id.
    pub node: String,
}

impl DiffLine {
    /// `   5  B.3`, `-  6  C.1    (expected)`, `+  6  C.2    (yours)`.
    pub fn plain(&self) -> String {
        match self.tag {
            DiffTag::Same => format!("    {:>4}  {}", self.step, self.node),
            DiffTag::Expected => format!("  - {:>4}  {:<12} expected", self.step, self.node),
            DiffTag::Yours => format!("  + {:>4}  {:<12} yours", self.step, self.node),
            DiffTag::Gap => "    ...".to_string(),
        }
    }
}

/// The diff around the first difference: `context` equal steps before it,
/// then the differing run and a little after, then a gap marker.
pub fn order_diff(expected: &[String], actual: &[String], context: usize) -> Vec<DiffLine> {
    let ops = capture_diff_slices(Algorithm::Myers, expected, actual);
    let Some(first_change) = ops.iter().position(|op| !matches!(op, DiffOp::Equal { .. })) else {
        return Vec::new();
    };
    let mut lines = Vec::new();
    if let Some(&DiffOp::Equal { old_index, len, .. }) = first_change.checked_sub(1).map(|i| &ops[i]) {
        let skip = len.saturating_sub(context);
        if skip > 0 {
            lines.push(DiffLine { tag: DiffTag::Gap, step: 0, node: String::new() });
        }
        lines.extend(run(DiffTag::Same, expected, old_index + skip, len - skip));
    }
    const MAX_CHANGED: usize = 8;
    let mut shown = 0;
    for op in &ops[first_change..] {
        if shown >= MAX_CHANGED {
            break;
        }
        match *op {
            DiffOp::Equal { old_index, len, .. } => {
                lines.extend(run(DiffTag::Same, expected, old_index, len.min(context)));
                shown += len.min(context);
                if len > context {
                    break;
                }
            }
            DiffOp::Delete { old_index, old_len, .. } => {
                push_run(&mut lines, DiffTag::Expected, expected, old_index, old_len, &mut shown, MAX_CHANGED);
            }
            DiffOp::Insert { new_index, new_len, .. } => {
                push_run(&mut lines, DiffTag::Yours, actual, new_index, new_len, &mut shown, MAX_CHANGED);
            }
            DiffOp::Replace { old_index, old_len, new_index, new_len } => {
                push_run(&mut lines, DiffTag::Expected, expected, old_index, old_len, &mut shown, MAX_CHANGED);
                push_run(&mut lines, DiffTag::Yours, actual, new_index, new_len, &mut shown, MAX_CHANGED);
            }
        }
    }
    let last_step = lines.iter().filter(|l| l.tag != DiffTag::Gap).map(|l| l.step).max().unwrap_or(0);
    if last_step < expected.len().max(actual.len()) {
        lines.push(DiffLine { tag: DiffTag::Gap, step: 0, node: String::new() });
    }
    lines
}

/// Lines for `ids[start..start + len]`, numbered by their 1-based step.
fn run(tag: DiffTag, ids: &[String], start: usize, len: usize) -> impl Iterator<Item = DiffLine> + '_ {
    ids[start..start + len].iter().enumerate().map(move |(k, id)| DiffLine {
        tag,
        step: start + k + 1,
        node: id.clone(),
    })
}

/// Appends a changed run, stopping once `max` changed lines are shown.
fn push_run(
    lines: &mut Vec<DiffLine>,
    tag: DiffTag,
    ids: &[String],
    start: usize,
    len: usize,
    shown: &mut usize,
    max: usize,
) {
    let take = len.min(max.saturating_sub(*shown));
    lines.extend(run(tag, ids, start, take));
    *shown += take;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn shows_context_then_the_difference() {
        let expected = ids("A B B.1 B.2 B.3 C C.1 D D.1 D.2 D.3");
        let actual = ids("A B B.1 B.2 B.3 C C.1 C.2 C.3 D D.1 D.2 D.3");
        let plain: Vec<String> = order_diff(&expected, &actual, 2).iter().map(DiffLine::plain).collect();
        assert_eq!(
            plain,
            [
                "    ...",
                "       6  C",
                "       7  C.1",
                "  +    8  C.2          yours",
                "  +    9  C.3          yours",
                "       8  D",
                "       9  D.1",
                "    ...",
            ]
        );
    }

    #[test]
    fn identical_orders_have_no_diff() {
        assert!(order_diff(&ids("A B"), &ids("A B"), 3).is_empty());
    }

    #[test]
    fn a_reversed_order_shows_both_sides() {
        let lines = order_diff(&ids("A B C"), &ids("A C B"), 3);
        assert!(lines.iter().any(|l| l.tag == DiffTag::Expected));
        assert!(lines.iter().any(|l| l.tag == DiffTag::Yours));
        assert_eq!(lines[0], DiffLine { tag: DiffTag::Same, step: 1, node: "A".into() });
    }
}
