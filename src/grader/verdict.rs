//! Judging searches against the reference.
//!
//! The value, the action and the visited order are checked separately, so a
//! report can say "right value, wrong order": the signature of a pruning bug.

use super::explain;
use super::plan::{ChildOrder, PlannedTest};
use super::result::{
    Board, Check, Checks, ChildCountView, SearchDetail, SearchView, TestDetail, TestHeader, TestResult, TestStatus,
};
use super::session::{FailureCause, SearchRecord};
use crate::assignment::Verdict;
use crate::compare::{
    Divergence, first_divergence, format_value, format_vector, same_search_in_another_child_order, values_match,
    vectors_match,
};
use crate::points::Points;
use crate::shown::{shown, shown_line};
use crate::tree::{GameTree, NodeIndex};
/// Where the student's order leaves the reference's, unless the question
/// lets children come in any order and the search is the reference's so.
fn divergence(
    test: &PlannedTest,
    tree: &dyn GameTree,
    entered: &[NodeIndex],
    expected: &[String],
    actual: &[String],
) -> Option<Divergence> {
    let divergence = first_divergence(expected, actual)?;
    let reordered = test.child_order == ChildOrder::Any
        && same_search_in_another_child_order(tree, &test.reference.visited, entered);
    (!reordered).then_some(divergence)
}

/// Judges one search against the reference (scores are filled in by
/// [`super::scoring::score`]); `tree` is the one the search was served (for a game, its own
/// unfolding, where the reference's nodes have the same indices).
pub fn judge(test: &PlannedTest, tree: &dyn GameTree, record: SearchRecord) -> TestResult {
    judge_with(test, tree, record, Verdict::Order)
}

/// [`judge`] in the course's verdict mode (`verdict:`): in MIT's modes the
/// path, score and returned count the MIT 6.034 kit reports decide, and a
/// visited order unlike the reference's is a warning.
pub fn judge_with(test: &PlannedTest, tree: &dyn GameTree, record: SearchRecord, mode: Verdict) -> TestResult {
    let expected = explain::reference_view(test, tree);
    let visited = tree.ids_of(&record.visited);
    let mut search = SearchDetail {
        divergence: divergence(test, tree, &record.visited, &expected.visited, &visited),
        expected,
        actual: SearchView {
            visited,
            iteration_starts: record.steps.iteration_starts.clone(),
            draws: test.settings.algorithm.draws_random().then_some(record.steps.draws),
            ..SearchView::default()
        },
        ..SearchDetail::default()
    };
    let mut header = TestHeader {
        name: test.name.clone(),
        path: test.path.display().to_string(),
        hidden: test.hidden,
        status: TestStatus::Passed,
        reason: None,
        description: test.tree.description().map(shown),
        details: None,
        stderr: shown(&record.stderr),
        score: Points::ZERO,
        max_score: Points::ZERO,
        elapsed_ms: record.elapsed.as_millis() as u64,
    };
    match record.answer {
        Err(failure) => {
            header.status = TestStatus::Error(failure.kind);
            header.reason = Some(shown(&failure.message));
            header.details = failure.details.as_deref().map(shown);
            // The kit's word alone names nothing: the grader must have seen the budget spent.
            if failure.cause == Some(FailureCause::IterationAfterTimeUp) && record.time_up {
                search.diagnosis = Some(super::diagnosis::budget_per_iteration(test.settings.budget));
            }
        }
        Ok(mut answer) => {
            let report = answer.mit.take();
            search.actual.value = answer.value;
            search.actual.action = answer.action;
            search.actual.vector = answer.vector;
            search.actual.counts = answer.children.map(|children| {
                children.into_iter().map(|c| ChildCountView { action: shown_line(&c.action), n: c.n, w: c.w }).collect()
            });
            // The diagnosis weighs every test of the question: see
            // `diagnosis::diagnose_submission`, which runs once all are judged.
            let mut findings = match &report {
                Some(report) => {
                    let scores = (search.expected.value, search.actual.value);
                    let recorded = super::mit::Recorded {
                        visited: &record.visited,
                        declared: &record.steps.evaluated,
                        declared_starts: &record.steps.evaluated_starts,
                    };
                    super::mit::judge(test, tree, report, recorded, mode, scores)
                }
                None => super::mit::MitFindings::default(),
            };
            let (mut reasons, mut warnings) = judge_answer(&mut search, test, tree, findings.path_judged);
            reasons.splice(0..0, findings.failures.drain(..));
            warnings.append(&mut findings.warnings);
            if !reasons.is_empty() {
                header.status = TestStatus::Failed;
                if !findings.summary.is_empty() {
                    header.details = Some(findings.summary.join("\n"));
                }
                let mut reason = reasons.join("; ");
                if !warnings.is_empty() {
                    reason.push_str(&format!("; also: {}", warnings.join("; ")));
                }
                header.reason = Some(reason);
            } else if !warnings.is_empty() {
                header.reason = Some(format!("warning: {}", warnings.join("; ")));
            }
            search.boards = findings.boards;
        }
    }
    if header.status == TestStatus::Failed {
        let mut drawn = boards(tree, &test.reference.visited, &record.visited, search.divergence.as_ref());
        drawn.append(&mut search.boards);
        search.boards = drawn;
    } else {
        search.boards.clear();
    }
    TestResult { header, detail: TestDetail::Search(Box::new(search)) }
}

/// The boards a failed game test shows: the start, and the two nodes where
/// the orders part (none for a written tree).
fn boards(
    tree: &dyn GameTree,
    expected: &[NodeIndex],
    actual: &[NodeIndex],
    divergence: Option<&Divergence>,
) -> Vec<Board> {
    let Some(start) = tree.board(NodeIndex::ROOT) else { return Vec::new() };
    let mut boards = vec![Board { label: "the start position".to_string(), text: start }];
    if let Some(divergence) = divergence {
        let sides = [(expected, "the reference's node"), (actual, "your node")];
        for (order, whose) in sides {
            if let Some(&node) = order.get(divergence.step)
                && let Some(text) = tree.board(node)
            {
                boards
                    .push(Board { label: format!("{whose} at step {}, {}", divergence.step + 1, tree.id(node)), text });
            }
        }
    }
    boards
}

/// The value, action and order checks: the reasons the test fails, and the
/// warnings. `mit` when the MIT kit's path and count were judged in MIT's
/// modes: then the order only warns, and a wrong first move is told with
/// the path.
fn judge_answer(
    result: &mut SearchDetail,
    test: &PlannedTest,
    tree: &dyn GameTree,
    mit: bool,
) -> (Vec<String>, Vec<String>) {
    // The action is compared as the program sent it, and shown escaped.
    let action_ok = result.expected.action == result.actual.action;
    result.actual.action = result.actual.action.as_deref().map(shown_line);
    let (expected, actual) = (&result.expected, &result.actual);
    // No value at all is allowed only where the kit cannot observe it (a tree
    // taken from a game): then the value is not checked, and the report says so.
    let value_observed = actual.value.is_some();
    let value_ok = match (&expected.vector, &actual.vector) {
        (Some(expected), Some(actual)) => vectors_match(expected, actual),
        (Some(_), None) => false,
        _ => !value_observed || values_match(expected.value.unwrap_or(f64::NAN), actual.value.unwrap_or(f64::NAN)),
    };
    let iterations_ok = expected.iteration_starts == actual.iteration_starts;
    let order_ok = result.divergence.is_none() && iterations_ok;
    let mut reasons = Vec::new();
    let mut warnings = Vec::new();
    // MIT's progressive deepening is judged by its scores depth by depth, the last among them.
    let told_by_depth = mit && test.settings.algorithm.deepens();
    if !value_ok && !told_by_depth {
        reasons.push(match (&expected.vector, &actual.vector) {
            (Some(expected), Some(actual)) => {
                format!("value: expected {}, you returned {}", format_vector(expected), format_vector(actual))
            }
            _ => format!(
                "value: expected {}, you returned {}",
                format_value(expected.value.unwrap_or(f64::NAN)),
                format_value(actual.value.unwrap_or(f64::NAN))
            ),
        });
    }
    // In MIT's modes a wrong first move is told with the whole path.
    if !action_ok && !mit {
        let expected_action = describe_action(expected.action.as_deref(), test, tree);
        let chosen = describe_choice(result.actual.action.as_deref(), test, tree);
        reasons.push(format!("action: expected {expected_action}, you chose {chosen}"));
    }
    if let Some(divergence) = &result.divergence {
        let mut reason = format!("visited order: {}", divergence.describe("you"));
        if let Some(context) = explain::divergence_context(test, tree, &result.expected, &result.actual, divergence) {
            reason.push_str(&context);
        }
        if let Some(skipped) = divergence.expected.as_ref().filter(|node| !actual.visited.contains(node)) {
            reason.push_str(&format!(", and you never entered {skipped}"));
        } else if same_nodes_in_another_order(&expected.visited, &actual.visited) {
            reason.push_str(if test.settings.move_ordering == crate::engine::MoveOrdering::Eval {
                " (you entered the same nodes, in another order: this test searches each max and min node's \
                 children by their static value, best first, and enters a node only when the search reaches it)"
            } else {
                " (you entered the same nodes, in another order: enter a node only when your search reaches it, \
                 and search each node's children in the order they are given, without reordering or shuffling them)"
            });
        }
        if mit {
            warnings.push(format!("{reason} (MIT's tester does not check the visited order)"));
        } else {
            reasons.push(reason);
        }
    }
    if result.divergence.is_none() && !iterations_ok {
        let difference = explain::iterations_difference(&result.expected, &result.actual);
        if mit { warnings.push(difference) } else { reasons.push(difference) }
    }
    let counts =
        test.settings.algorithm.draws_random().then(|| explain::counts_difference(&result.expected, &result.actual));
    if let Some(Some(difference)) = &counts {
        reasons.push(difference.clone());
    }
    let check = |ok: bool| if ok { Check::Passed } else { Check::Failed };
    let value = if value_observed { check(value_ok) } else { Check::NotRun };
    let counts = counts.map(|difference| check(difference.is_none()));
    // In MIT's modes the order is not a check of the test (it only warns).
    let order = if mit { Check::NotRun } else { check(order_ok) };
    result.checks = Checks { value, action: check(action_ok), order, counts };
    (reasons, warnings)
}

/// Whether two different visited orders enter exactly the same nodes: the
/// search was right but took children in another order (a shuffle, say).
fn same_nodes_in_another_order(expected: &[String], actual: &[String]) -> bool {
    fn sorted(order: &[String]) -> Vec<&str> {
        let mut nodes: Vec<&str> = order.iter().map(String::as_str).collect();
        nodes.sort_unstable();
        nodes
    }
    expected.len() == actual.len() && expected != actual && sorted(expected) == sorted(actual)
}

/// An action of the root with the value of the child behind it:
/// `Stop (value 5)`.
fn describe_action(action: Option<&str>, test: &PlannedTest, tree: &dyn GameTree) -> String {
    let Some(action) = action else { return "no action (null)".to_string() };
    if action.is_empty() {
        return "an empty string (\"\"), which is no action of the root".to_string();
    }
    let child = tree.children(crate::tree::NodeIndex::ROOT).find(|&child| tree.action(child) == action);
    if let (Some(child), Some(summary)) = (child, test.reference.mcts()) {
        // MCTS chooses by visits: the reference's counts say more than a minimax value.
        return match summary.children.iter().find(|count| count.node == child) {
            Some(count) if count.n > 0 => {
                format!("{action} (N {}, W/N {} in the reference)", count.n, format_value(count.w / count.n as f64))
            }
            _ => format!("{action} (never visited by the reference)"),
        };
    }
    if !test.settings.algorithm.is_classic() {
        return action.to_string();
    }
    match child.and_then(|child| crate::engine::value_of(tree, child, &test.settings).ok()) {
        Some(value) => format!("{action} (value {})", format_value(value)),
        None => action.to_string(),
    }
}

/// What the student chose, with its value when it is an action of the
/// root, or what it is when it is the id of a root child instead.
fn describe_choice(chosen: Option<&str>, test: &PlannedTest, tree: &dyn GameTree) -> String {
    let root = crate::tree::NodeIndex::ROOT;
    if let Some(chosen) = chosen
        && !tree.children(root).any(|child| tree.action(child) == chosen)
        && let Some(child) = tree.children(root).find(|&child| tree.id(child) == chosen)
    {
        return format!(
            "{chosen}, which is the id of the child behind the action {}: return the action, not the id",
            tree.action(child)
        );
    }
    describe_action(chosen, test, tree)
}
