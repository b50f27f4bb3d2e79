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

/// One line of an order diff, with its 1-based step in each order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiffLine {
    /// Which side(s).
    pub tag: DiffTag,
    /// Step in the reference's order, if the line belongs to it.
    pub expected_step: Option<usize>,
    /// Step in the student's order, if the line belongs to it.
    pub your_step: Option<usize>,
    /// The node id.
    pub node: String,
}

/// The header that names the two step columns, and what the signs mean.
pub const DIFF_HEADER: &str = "    expected  yours   (-: the expected order only, +: yours only)";

impl DiffLine {
    /// `        5      5  B.3`, `-       6         C.1`, `+              7  C.2`.
    pub fn plain(&self) -> String {
        let column = |step: Option<usize>| step.map_or(String::new(), |s| s.to_string());
        let sign = match self.tag {
            DiffTag::Same => ' ',
            DiffTag::Expected => '-',
            DiffTag::Yours => '+',
            DiffTag::Gap => return "    ...".to_string(),
        };
        format!("  {sign} {:>8} {:>6}  {}", column(self.expected_step), column(self.your_step), self.node)
    }

    /// The line with its sign at the margin, as a unified diff has it (a
    /// Markdown ```diff block colours only lines that start with `+` or
    /// `-`); the columns line up with [`DiffLine::plain`]'s.
    pub fn unified(&self) -> String {
        let plain = self.plain();
        match self.tag {
            DiffTag::Expected | DiffTag::Yours => format!("{}  {}", &plain[2..3], &plain[3..]),
            DiffTag::Same | DiffTag::Gap => plain,
        }
    }
}

/// Changed lines shown at most, after which the diff is cut.
const MAX_CHANGED: usize = 12;

/// Lines shown of one run found in one order only: a long run (a reversed
/// search enters a whole subtree first) is cut short, so that the other
/// order's nodes appear too.
const MAX_RUN: usize = 4;

/// The diff around the first difference: `context` equal steps before it,
/// then the differing run and a little after, then a gap marker.
pub fn order_diff(expected: &[String], actual: &[String], context: usize) -> Vec<DiffLine> {
    // Only the first few lines after the first difference are shown, so only
    // a window around it is diffed: a game's search may enter millions of
    // nodes, and a diff of the whole orders would take minutes.
    let prefix = expected.iter().zip(actual).take_while(|(a, b)| a == b).count();
    let start = prefix.saturating_sub(context);
    let window = |order: &[String]| start..(prefix + DIFF_WINDOW).min(order.len());
    let ops: Vec<DiffOp> = capture_diff_slices(Algorithm::Myers, &expected[window(expected)], &actual[window(actual)])
        .into_iter()
        .map(|op| shifted(op, start))
        .collect();
    let Some(first_change) = ops.iter().position(|op| !matches!(op, DiffOp::Equal { .. })) else {
        return Vec::new();
    };
    let mut lines = Vec::new();
    if let Some(&DiffOp::Equal { old_index, new_index, len }) = first_change.checked_sub(1).map(|i| &ops[i]) {
        let skip = len.saturating_sub(context);
        if old_index + skip > 0 {
            lines.push(gap());
        }
        lines.extend(same(expected, old_index + skip, new_index + skip, len - skip));
    }
    let mut shown = 0;
    for op in &ops[first_change..] {
        if shown >= MAX_CHANGED {
            break;
        }
        match *op {
            DiffOp::Equal { old_index, new_index, len } => {
                lines.extend(same(expected, old_index, new_index, len.min(context)));
                shown += len.min(context);
                if len > context {
                    break;
                }
            }
            DiffOp::Delete { old_index, old_len, .. } => {
                shown += one_side(&mut lines, DiffTag::Expected, expected, old_index, old_len, MAX_CHANGED - shown);
            }
            DiffOp::Insert { new_index, new_len, .. } => {
                shown += one_side(&mut lines, DiffTag::Yours, actual, new_index, new_len, MAX_CHANGED - shown);
            }
            DiffOp::Replace { old_index, old_len, new_index, new_len } => {
                shown += one_side(&mut lines, DiffTag::Expected, expected, old_index, old_len, MAX_CHANGED - shown);
                shown += one_side(&mut lines, DiffTag::Yours, actual, new_index, new_len, MAX_CHANGED - shown);
            }
        }
    }
    let last_expected = lines.iter().filter_map(|l| l.expected_step).max().unwrap_or(0);
    let last_yours = lines.iter().filter_map(|l| l.your_step).max().unwrap_or(0);
    let ends_in_gap = lines.last().is_some_and(|line| line.tag == DiffTag::Gap);
    if (last_expected < expected.len() || last_yours < actual.len()) && !ends_in_gap {
        lines.push(gap());
    }
    lines
}

/// Steps after the common prefix that the diff looks at.
const DIFF_WINDOW: usize = 2_000;

/// `op` with its indices moved by `by` (from a window back to the whole orders).
fn shifted(op: DiffOp, by: usize) -> DiffOp {
    match op {
        DiffOp::Equal { old_index, new_index, len } => {
            DiffOp::Equal { old_index: old_index + by, new_index: new_index + by, len }
        }
        DiffOp::Delete { old_index, old_len, new_index } => {
            DiffOp::Delete { old_index: old_index + by, old_len, new_index: new_index + by }
        }
        DiffOp::Insert { old_index, new_index, new_len } => {
            DiffOp::Insert { old_index: old_index + by, new_index: new_index + by, new_len }
        }
        DiffOp::Replace { old_index, old_len, new_index, new_len } => {
            DiffOp::Replace { old_index: old_index + by, old_len, new_index: new_index + by, new_len }
        }
    }
}

fn gap() -> DiffLine {
    DiffLine { tag: DiffTag::Gap, expected_step: None, your_step: None, node: String::new() }
}

/// Lines both orders share: `len` steps from `old` (expected) and `new` (yours).
fn same(expected: &[String], old: usize, new: usize, len: usize) -> impl Iterator<Item = DiffLine> + '_ {
    expected[old..old + len].iter().enumerate().map(move |(k, id)| DiffLine {
        tag: DiffTag::Same,
        expected_step: Some(old + k + 1),
        your_step: Some(new + k + 1),
        node: id.clone(),
    })
}

/// Appends up to `room` (and [`MAX_RUN`]) lines found in one order only,
/// with a gap marker where the run goes on; returns how many.
fn one_side(lines: &mut Vec<DiffLine>, tag: DiffTag, ids: &[String], start: usize, len: usize, room: usize) -> usize {
    let take = len.min(room).min(MAX_RUN);
    lines.extend(ids[start..start + take].iter().enumerate().map(|(k, id)| {
        let step = Some(start + k + 1);
        let (expected_step, your_step) = if tag == DiffTag::Expected { (step, None) } else { (None, step) };
        DiffLine { tag, expected_step, your_step, node: id.clone() }
    }));
    if take < len && take == MAX_RUN {
        lines.push(gap());
    }
    take
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
                "           6      6  C",
                "           7      7  C.1",
                "  +               8  C.2",
                "  +               9  C.3",
                "           8     10  D",
                "           9     11  D.1",
                "    ...",
            ]
        );
    }

    /// A game's orders may be millions of steps long: the diff looks only at a
    /// window after the common prefix, and numbers the steps of the whole orders.
    #[test]
    fn long_orders_are_diffed_around_their_first_difference() {
        let expected: Vec<String> = (0..1_000_000).map(|i| format!("n{i}")).collect();
        let mut actual: Vec<String> = (0..900_000).map(|i| format!("n{i}")).collect();
        actual[750_000] = "x".to_string();
        let lines = order_diff(&expected, &actual, 1);
        let plain: Vec<String> = lines.iter().take(4).map(DiffLine::plain).collect();
        assert_eq!(
            plain,
            ["    ...", "      750000 750000  n749999", "  -   750001         n750000", "  +          750001  x",]
        );
    }

    #[test]
    fn identical_orders_have_no_diff() {
        assert!(order_diff(&ids("A B"), &ids("A B"), 3).is_empty());
    }

    #[test]
    fn a_reversed_search_shows_the_expected_nodes_too() {
        let expected = ids("A B B.1 B.2 B.3 C C.1 C.2 C.3 D D.1 D.2 D.3");
        let actual = ids("A D D.3 D.2 D.1 C C.3 C.2 C.1 B B.3 B.2 B.1");
        let lines = order_diff(&expected, &actual, 3);
        let plain: Vec<String> = lines.iter().map(DiffLine::plain).collect();
        assert!(lines.iter().any(|l| l.tag == DiffTag::Expected), "{plain:#?}");
        assert!(lines.iter().filter(|l| l.tag == DiffTag::Yours).count() <= MAX_CHANGED, "{plain:#?}");
        insta::assert_snapshot!(format!("{DIFF_HEADER}\n{}", plain.join("\n")));
    }

    #[test]
    fn a_reversed_order_shows_both_sides() {
        let lines = order_diff(&ids("A B C"), &ids("A C B"), 3);
        assert!(lines.iter().any(|l| l.tag == DiffTag::Expected));
        assert!(lines.iter().any(|l| l.tag == DiffTag::Yours));
        assert_eq!(lines[0].node, "A");
        assert_eq!((lines[0].expected_step, lines[0].your_step), (Some(1), Some(1)));
    }
}
