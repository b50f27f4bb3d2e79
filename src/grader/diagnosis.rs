//! Naming a failing student's bug by its trace.
//!
//! The reference engine is run again with one classic mistake at a time
//! (pruning convention flipped, no pruning, children reversed, probabilities
//! ignored, ...). When one of these runs reproduces the student's value,
//! action and visited order exactly, the report names that mistake in the
//! student's words. Nothing matches: the report falls back to the first
//! divergence, which it shows anyway.

use super::plan::{PlannedTest, Served};
use super::result::{ChildCountView, SearchView, TestResult, TestStatus};
use crate::compare::values_match;
pub use crate::engine::mistakes::{Candidate, candidates, undetected_mistakes};
use crate::engine::variant::VariantOutcome;
use crate::engine::{SearchExtra, SearchSettings};
use crate::tree::{GameRules, GameTree, NodeIndex, Tree};

/// What a student's search produced.
#[derive(Clone, Copy, Debug, Default)]
pub struct StudentTrace<'a> {
    /// The value returned, when the kit could observe it.
    pub value: Option<f64>,
    /// The action returned.
    pub action: Option<&'a str>,
    /// The order recorded by the grader.
    pub visited: &'a [NodeIndex],
    /// A max^n search's root vector.
    pub vector: Option<&'a [f64]>,
    /// Iterative deepening: where each iteration the program declared
    /// starts in `visited` (empty for the other searches).
    pub iteration_starts: &'a [usize],
    /// MCTS: each root child's action, N and W, as the program reported
    /// them (`None`: not reported).
    pub counts: Option<&'a [ChildCountView]>,
    /// MCTS: the random draws the program took.
    pub draws: Option<u64>,
}

pub use super::result::Diagnosis;

/// The mistake whose trace equals the student's, if any. When several
/// mistakes reproduce it exactly, the behaviour they share is named, or
/// nothing: the trace cannot tell them apart, so none is presented as the
/// fact.
pub fn diagnose(tree: &Tree, settings: &SearchSettings, student: &StudentTrace<'_>) -> Option<Diagnosis> {
    describe(&reproducing(tree, tree.game(), settings, student, None), 1)
}

/// The diagnosis of a test that failed after `before` (most recent first)
/// in the same program, and passed when served alone.
pub fn state_between_tests(before: &[&str]) -> Diagnosis {
    let earlier = earlier_tests(before);
    Diagnosis {
        bug: "state-between-tests",
        explanation: format!(
            "this test passes when your program runs it alone, in a fresh process, so your program keeps \
             state from one test to the next (a global variable, or a cache or memo table that is never \
             cleared) and it changed this answer; before this test, the same process ran {earlier}: keep \
             all state inside the search function, or clear it at its start"
        ),
        alternatives: Vec::new(),
    }
}

/// The diagnosis of a test that failed after `before` in the same program,
/// when `confirmed` other such tests passed alone and this one was not run
/// again (the grader reruns a bounded number).
pub fn state_between_tests_seen_elsewhere(before: &[&str], confirmed: usize) -> Diagnosis {
    let earlier = earlier_tests(before);
    Diagnosis {
        bug: "state-between-tests",
        explanation: format!(
            "your program keeps state from one test to the next (a global variable, or a cache or memo \
             table that is never cleared): {confirmed} of your failed tests pass when your program runs \
             them alone, in a fresh process (this one was not run again); before this test, the same \
             process ran {earlier}: keep all state inside the search function, or clear it at its start"
        ),
        alternatives: Vec::new(),
    }
}

/// The diagnosis of an iterative deepening that started an iteration
/// after the grader refused a node for its `budget` (the kit said so in
/// its error, and the grader saw the time up).
pub fn budget_per_iteration(budget: Option<u64>) -> Diagnosis {
    let budget = budget.map_or_else(|| "the budget".to_string(), |budget| format!("the budget of {budget} nodes"));
    Diagnosis {
        bug: "id-budget-per-iteration",
        explanation: format!(
            "your search started another iteration after {budget} was spent, as if each iteration had a \
             budget of its own: the budget counts the nodes of all iterations together; once the time is up \
             (TimeUp in Python, None from game.within_budget in Rust), stop and return the answer of the last \
             iteration that finished"
        ),
        alternatives: Vec::new(),
    }
}

/// Up to three test names, most recent first, and how many more.
fn earlier_tests(before: &[&str]) -> String {
    let (shown, more) = if before.len() > 3 { (&before[..3], before.len() - 3) } else { (before, 0) };
    let mut earlier = shown.join(", ");
    if more > 0 {
        earlier.push_str(&format!(" and {more} more"));
    }
    earlier
}

/// The mistakes to try on a tree: CS188's for a tree imported from its
/// tests (`cs188`, its `game:` block), the engine's general ones otherwise.
fn candidates_for(tree: &dyn GameTree, cs188: Option<&GameRules>, settings: &SearchSettings) -> Vec<Candidate> {
    match cs188 {
        Some(game) => crate::import::cs188_mistakes::candidates(tree, settings, game),
        None => candidates(tree, settings),
    }
}

/// The candidates (one per mistake) whose trace equals the student's.
/// With the `reference`'s answer, a candidate that gives it in everything
/// the student's answer shows is left out: the student failed, so the
/// mistake that explains it must differ from the reference where the
/// student's answer can be seen (a program that did not report MCTS's
/// counts failed for that, and no mistake of the counts explains it).
fn reproducing(
    tree: &dyn GameTree,
    cs188: Option<&GameRules>,
    settings: &SearchSettings,
    student: &StudentTrace<'_>,
    reference: Option<&StudentTrace<'_>>,
) -> Vec<Candidate> {
    let seen = reference.map(|reference| StudentTrace {
        value: student.value.and(reference.value),
        vector: student.vector.and(reference.vector),
        counts: student.counts.and(reference.counts),
        draws: student.draws.and(reference.draws),
        ..*reference
    });
    let mut matching: Vec<Candidate> = Vec::new();
    for candidate in candidates_for(tree, cs188, settings) {
        let Some(outcome) = candidate.run(tree) else { continue };
        let same = gives(tree, &outcome, student) && seen.is_none_or(|seen| !gives(tree, &outcome, &seen));
        if same && !matching.iter().any(|known| known.key == candidate.key) {
            matching.push(candidate);
        }
    }
    matching
}

/// Whether a mistake's search gives `answer` in everything a test checks
/// (docs/format.md 8): the value (when observed), the max^n vector, the
/// action, the visited order, iterative deepening's iterations, and MCTS's
/// draws and root counts (when reported).
fn gives(tree: &dyn GameTree, outcome: &VariantOutcome, answer: &StudentTrace<'_>) -> bool {
    let action = outcome.action.map(|child| tree.action(child));
    outcome.visited == answer.visited
        && answer.value.is_none_or(|value| values_match(outcome.value, value))
        && same_vector(outcome.vector(), answer.vector)
        && action.as_deref() == answer.action
        && iteration_starts(outcome) == answer.iteration_starts
        && same_mcts(tree, outcome, answer)
}

/// Where each of a search's iterations starts in its visited order (none
/// for a search without iterations).
fn iteration_starts(outcome: &VariantOutcome) -> Vec<usize> {
    let SearchExtra::Iterations(iterations) = &outcome.extra else { return Vec::new() };
    iterations
        .iter()
        .scan(0, |at, iteration| {
            let start = *at;
            *at += iteration.entries;
            Some(start)
        })
        .collect()
}

/// Whether a mistake's MCTS draws and root counts are the answer's (true
/// where the answer has none, or the search is not MCTS).
fn same_mcts(tree: &dyn GameTree, outcome: &VariantOutcome, answer: &StudentTrace<'_>) -> bool {
    let SearchExtra::Mcts(summary) = &outcome.extra else { return true };
    let draws_ok = answer.draws.is_none_or(|draws| draws == summary.draws);
    let counts_ok = answer.counts.is_none_or(|counts| {
        counts.len() == summary.children.len()
            && counts.iter().zip(&summary.children).all(|(reported, child)| {
                reported.action == tree.action(child.node) && reported.n == child.n && values_match(child.w, reported.w)
            })
    });
    draws_ok && counts_ok
}

/// Whether a mistake's max^n vector is the student's (true where either has none).
fn same_vector(mistake: Option<&[f64]>, student: Option<&[f64]>) -> bool {
    match (mistake, student) {
        (Some(mistake), Some(student)) => crate::compare::vectors_match(mistake, student),
        _ => true,
    }
}

/// The reference's answer to a test, as the diagnosis compares answers.
fn reference_trace(test: &PlannedTest, tree: &dyn GameTree) -> OwnedTrace {
    OwnedTrace::of_view(super::explain::reference_view(test, tree), test.reference.visited.clone())
}

/// The mistakes that would fail this test: a student making one of them
/// could not have passed it.
fn failing_here(test: &PlannedTest, tree: &dyn GameTree) -> Vec<&'static str> {
    // By key: what the student does, the same on every test.
    let reference = reference_trace(test, tree);
    let reference = reference.borrow();
    let cs188 = test.tree.written().and_then(Tree::game);
    candidates_for(tree, cs188, &test.settings)
        .into_iter()
        .filter(|candidate| candidate.run(tree).is_none_or(|outcome| !gives(tree, &outcome, &reference)))
        .map(|candidate| candidate.key)
        .collect()
}

/// Names the mistake of each failed test, weighing every test of its
/// question. A name is a claim about the program, so a mistake is named
/// only where it explains the program's whole observed behaviour on the
/// question: it reproduces the trace of every failed test (a failed test
/// whose trace no mistake reproduces is evidence too, against them all),
/// and it would have passed every test the program passed. Where several
/// mistakes explain it alike, the behaviour they share is named with the
/// code shapes that produce it; where they share none, or none explains
/// it, nothing is named and the report shows where the search first left
/// the reference's. Tests that ended without an answer (crashes, time,
/// protocol errors) show no trace, and weigh on nothing.
///
/// `served` are the trees the searches were served (a game's, this
/// submission's own unfolding), where the mistakes are replayed.
pub fn diagnose_submission(tests: &[PlannedTest], served: &[Served<'_>], results: &mut [TestResult]) {
    let questions: std::collections::BTreeSet<usize> = tests.iter().map(|test| test.question).collect();
    for question in questions {
        let indices: Vec<usize> = (0..tests.len()).filter(|&index| tests[index].question == question).collect();
        diagnose_question(tests, served, results, &indices);
    }
}

fn diagnose_question(tests: &[PlannedTest], served: &[Served<'_>], results: &mut [TestResult], indices: &[usize]) {
    // A test already explained (state kept between tests) is no evidence of a search mistake.
    let failed: Vec<usize> = indices
        .iter()
        .copied()
        .filter(|&index| results[index].header.status == TestStatus::Failed && results[index].diagnosis().is_none())
        .collect();
    if failed.is_empty() {
        return;
    }
    let ruled_out: Vec<&'static str> = indices
        .iter()
        .filter(|&&index| results[index].header.status == TestStatus::Passed)
        .flat_map(|&index| failing_here(&tests[index], &*served[index]))
        .collect();
    let fits: Vec<(usize, Vec<Candidate>)> = failed
        .iter()
        .map(|&index| {
            let tree = &*served[index];
            let cs188 = tests[index].tree.written().and_then(Tree::game);
            let reference = reference_trace(&tests[index], tree);
            let candidates = student_trace(tree, &results[index])
                .map(|trace| {
                    reproducing(tree, cs188, &tests[index].settings, &trace.borrow(), Some(&reference.borrow()))
                })
                .unwrap_or_default();
            (index, candidates.into_iter().filter(|candidate| !ruled_out.contains(&candidate.key)).collect())
        })
        .collect();
    // A test where the grader refused what the program asked (an evaluation
    // away from the cut, a guessed node) is evidence too: only a mistake in
    // the depth limit asks for an evaluation elsewhere, and no mistake of
    // the list guesses nodes.
    let refusals: Vec<Vec<Candidate>> = indices
        .iter()
        .filter(|&&index| results[index].header.status == TestStatus::Error(super::session::FailureKind::ProtocolError))
        .map(|&index| {
            let test = &tests[index];
            let cs188 = test.tree.written().and_then(Tree::game);
            let tree = &*served[index];
            // Entered below the cut: it went too deep; else too shallow.
            let deeper = student_trace(tree, &results[index]).is_some_and(|trace| {
                trace.visited.iter().any(|&node| test.settings.depth.is_some_and(|depth| tree.ply(node) > depth))
            });
            candidates_for(tree, cs188, &test.settings)
                .into_iter()
                .filter(|candidate| misplaces_evaluations(candidate, &test.settings, deeper))
                .collect()
        })
        .collect();
    // What the program does, the same on every test: a key found on all of them.
    let everywhere = keys_in_all(fits.iter().map(|(_, list)| list).chain(&refusals));
    if std::env::var_os("TREEGRADE_DEBUG_DIAGNOSIS").is_some() {
        for (index, list) in &fits {
            let keys: Vec<&str> = list.iter().map(|c| c.key).collect();
            eprintln!("{}: fits {keys:?}; everywhere {everywhere:?}; ruled out {ruled_out:?}", tests[*index].name);
        }
    }
    for (index, list) in fits {
        let named: Vec<Candidate> = list.into_iter().filter(|candidate| everywhere.contains(&candidate.key)).collect();
        if let Some(search) = results[index].search_mut() {
            search.diagnosis = describe(&named, failed.len());
        }
    }
}

/// Whether a mistake asks for evaluations below the cut of a test with
/// `settings` (`deeper`), or above it, which the grader refuses: a depth
/// limit counted otherwise.
fn misplaces_evaluations(candidate: &Candidate, settings: &SearchSettings, deeper: bool) -> bool {
    use crate::engine::variant::DepthSlip;
    let Some(depth) = settings.depth else { return false };
    let own = candidate.settings.depth;
    if deeper {
        own.is_some_and(|own| own > depth)
            || matches!(candidate.slips.depth, DepthSlip::Rounds | DepthSlip::ChanceNotAPly)
    } else {
        own.is_some_and(|own| own < depth) || candidate.slips.iterative_deepening
    }
}

/// The keys of the candidates found in every one of `lists` (none for no lists).
fn keys_in_all<'a>(lists: impl IntoIterator<Item = &'a Vec<Candidate>>) -> Vec<&'static str> {
    let lists: Vec<&Vec<Candidate>> = lists.into_iter().collect();
    let Some(first) = lists.first() else { return Vec::new() };
    first
        .iter()
        .map(|candidate| candidate.key)
        .filter(|key| lists.iter().all(|list| list.iter().any(|candidate| candidate.key == *key)))
        .collect()
}

/// An answer as a report holds it (the student's, or the reference's),
/// with node ids read back.
struct OwnedTrace {
    view: SearchView,
    visited: Vec<NodeIndex>,
}

impl OwnedTrace {
    fn of_view(view: SearchView, visited: Vec<NodeIndex>) -> OwnedTrace {
        OwnedTrace { view, visited }
    }

    fn borrow(&self) -> StudentTrace<'_> {
        let view = &self.view;
        StudentTrace {
            value: view.value,
            action: view.action.as_deref(),
            visited: &self.visited,
            vector: view.vector.as_deref(),
            iteration_starts: &view.iteration_starts,
            counts: view.counts.as_deref(),
            draws: view.draws,
        }
    }
}

fn student_trace(tree: &dyn GameTree, result: &TestResult) -> Option<OwnedTrace> {
    // Every node the student entered was made in the tree served.
    let ids: std::collections::HashMap<String, NodeIndex> =
        (0..tree.made() as u32).map(|i| (tree.id(NodeIndex(i)).into_owned(), NodeIndex(i))).collect();
    let visited = result.actual().visited.iter().map(|id| ids.get(id).copied()).collect::<Option<Vec<_>>>()?;
    Some(OwnedTrace::of_view(result.actual().clone(), visited))
}

/// The diagnosis that names `named` (the mistakes that explain the
/// evidence): one mistake as a fact; several that share a behaviour as
/// that behaviour, with the code shapes that produce it (none of them
/// claimed); several that share none as nothing, since the evidence cannot
/// say which the program makes.
fn describe(named: &[Candidate], explained: usize) -> Option<Diagnosis> {
    let mut distinct: Vec<&Candidate> = Vec::new();
    for candidate in named {
        if !distinct.iter().any(|known| known.bug == candidate.bug) {
            distinct.push(candidate);
        }
    }
    let (first, others) = distinct.split_first()?;
    let (bug, mut explanation, alternatives) = if others.is_empty() {
        let texts = ways_of_writing(first, named);
        let explanation = match texts.split_first() {
            Some((only, [])) => only.to_string(),
            _ => format!("your answer fits one mistake written in more than one way: either {}", texts.join("; or ")),
        };
        (first.bug, explanation, Vec::new())
    } else {
        shared_behaviour(named)?
    };
    if explained > 1 {
        explanation.push_str(&format!(" (this explains all {explained} failed tests of this question)"));
    }
    Some(Diagnosis { bug, explanation, alternatives })
}

/// The behaviour every one of `named` produces (the broadest that all of
/// them include), its words with the code shapes listed, and the mistakes
/// it lists (`None` when two of them share no behaviour).
fn shared_behaviour(named: &[Candidate]) -> Option<(&'static str, String, Vec<&'static str>)> {
    use crate::engine::mistakes::behaviour_and_parts;
    let mut common = behaviour_and_parts(named.first()?.behaviour?.0);
    let mut shapes: Vec<&str> = Vec::new();
    let mut bugs: Vec<&'static str> = Vec::new();
    for candidate in named {
        let (behaviour, shape) = candidate.behaviour?;
        let parts = behaviour_and_parts(behaviour);
        common.retain(|id| parts.contains(id));
        if !shapes.contains(&shape) {
            shapes.push(shape);
        }
        if !bugs.contains(&candidate.bug) {
            bugs.push(candidate.bug);
        }
    }
    let id = *common.first()?;
    let text = crate::engine::mistakes::behaviour(id)?;
    let explanation = format!("{text}; code that does this: {}", shapes.join("; or "));
    Some((id, explanation, bugs))
}

/// The explanations of `candidate`'s mistake among `named`: its own, and
/// for a search of docs/format.md section 8, those of the other ways of
/// writing the same mistake that fit the trace too (the previous player's
/// component or the next one's, say), which it cannot tell apart.
fn ways_of_writing<'a>(candidate: &'a Candidate, named: &'a [Candidate]) -> Vec<&'a str> {
    let mut texts = vec![candidate.explanation.as_str()];
    if candidate.settings.algorithm.is_classic() {
        return texts;
    }
    for other in named.iter().filter(|other| other.bug == candidate.bug) {
        if !texts.contains(&other.explanation.as_str()) {
            texts.push(&other.explanation);
        }
    }
    texts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::variant::{self, ChanceSlip, Slips, VariantOutcome};
    use crate::engine::{Algorithm, search};
    use crate::grader::plan::TestTree;
    use crate::tree::fixtures::leaves;
    use crate::tree::{ChildSpec, NodeBody, NodeKind, NodeSpec, TreeBuilder};

    /// max(min(3, 12, 8), min(3, 4, 6), min(14, 5, 2)): C ties B at 3.
    fn tree() -> Tree {
        let mut builder = TreeBuilder::new("t", "A");
        builder.add(NodeSpec::internal(
            "A",
            NodeKind::Max,
            vec![ChildSpec::id("B"), ChildSpec::id("C"), ChildSpec::id("D")],
        ));
        builder.add(NodeSpec::internal("B", NodeKind::Min, leaves(&[3.0, 12.0, 8.0])));
        builder.add(NodeSpec::internal("C", NodeKind::Min, leaves(&[3.0, 4.0, 6.0])));
        builder.add(NodeSpec::internal("D", NodeKind::Min, leaves(&[14.0, 5.0, 2.0])));
        builder.build().unwrap()
    }

    /// The trace of a student whose search returned `value` and `action`
    /// after entering `visited` (the engine's outcome or a variant's).
    fn trace_of<'t>(
        tree: &'t Tree,
        value: f64,
        action: Option<NodeIndex>,
        visited: &'t [NodeIndex],
    ) -> StudentTrace<'t> {
        StudentTrace {
            value: Some(value),
            action: action.map(|child| tree.action(child)),
            visited,
            ..Default::default()
        }
    }

    /// The diagnosis of a student who ran `student_settings` with `slips`
    /// on a question of several trees: the one mistake named on its failed
    /// tests, if any (two would fail the test).
    fn diagnosis_of(settings: SearchSettings, student_settings: SearchSettings, slips: Slips) -> Option<&'static str> {
        let trees = [std::sync::Arc::new(tree()), std::sync::Arc::new(crate::tree::fixtures::aima())];
        let trees = trees.into_iter().chain(drawn(vec![NodeKind::Max, NodeKind::Min], 12));
        let tests = trees.map(|tree| (tree, settings, student_settings, slips)).collect();
        let mut bugs: Vec<&'static str> = diagnosed_with(tests).into_iter().flatten().map(|d| d.bug).collect();
        bugs.dedup();
        assert!(bugs.len() <= 1, "{bugs:?}");
        bugs.pop()
    }

    fn strict_alphabeta() -> SearchSettings {
        SearchSettings { prune_on_equal: false, ..SearchSettings::new(Algorithm::AlphaBeta) }
    }

    #[test]
    fn names_the_pruning_convention() {
        let student = SearchSettings::new(Algorithm::AlphaBeta);
        assert_eq!(diagnosis_of(strict_alphabeta(), student, Slips::default()), Some("prune-on-equal"));
    }

    #[test]
    fn names_missing_pruning() {
        // On so small a tree several window mistakes look alike; no pruning is among them.
        let tree = tree();
        let outcome = search(&tree, &SearchSettings::new(Algorithm::Minimax)).unwrap();
        let trace = trace_of(&tree, outcome.value, outcome.action, &outcome.visited);
        let fitting = reproducing(&tree, None, &strict_alphabeta(), &trace, None);
        assert!(fitting.iter().any(|candidate| candidate.bug == "no-pruning"), "{fitting:?}");
    }

    #[test]
    fn names_reversed_children_and_eager_children() {
        let reversed = Slips { reverse_children: true, ..Slips::default() };
        assert_eq!(diagnosis_of(strict_alphabeta(), strict_alphabeta(), reversed), Some("reverse-children"));
        let eager = Slips { eager_children: true, ..Slips::default() };
        assert_eq!(diagnosis_of(strict_alphabeta(), strict_alphabeta(), eager), Some("eager-children"));
    }

    /// A question of two tests, the student's search on each made with its
    /// own slips, judged and diagnosed as the grader does.
    fn diagnosed_question(slips: [Slips; 2]) -> Vec<Option<&'static str>> {
        let trees = [std::sync::Arc::new(tree()), std::sync::Arc::new(crate::tree::fixtures::aima())];
        let tests = trees.into_iter().zip(slips).map(|(tree, slips)| (tree, strict_alphabeta(), slips)).collect();
        diagnosed(tests).into_iter().map(|diagnosis| diagnosis.map(|d| d.bug)).collect()
    }

    /// A question of tests, each a tree, its settings and the slips of the
    /// student's search on it, judged and diagnosed as the grader does.
    fn diagnosed(tests: Vec<(std::sync::Arc<Tree>, SearchSettings, Slips)>) -> Vec<Option<Diagnosis>> {
        diagnosed_with(tests.into_iter().map(|(tree, settings, slips)| (tree, settings, settings, slips)).collect())
    }

    /// A question of tests, each a tree, its settings, and the settings and
    /// slips the student's search ran with.
    fn diagnosed_with(
        tests: Vec<(std::sync::Arc<Tree>, SearchSettings, SearchSettings, Slips)>,
    ) -> Vec<Option<Diagnosis>> {
        let mut planned = Vec::new();
        let mut results = Vec::new();
        for (index, (tree, settings, student, slips)) in tests.into_iter().enumerate() {
            let test = PlannedTest {
                question: 0,
                name: format!("q/{index}"),
                path: format!("{index}.yaml").into(),
                hidden: false,
                reference: search(&*tree, &settings).unwrap(),
                recording: Default::default(),
                settings,
                child_order: crate::assignment::ChildOrder::Given,
                tree: TestTree::Written(tree.clone()),
            };
            results.push(judged_as(&test, &*tree, student, slips));
            planned.push(test);
        }
        let served: Vec<Served<'_>> = planned.iter().map(PlannedTest::served).collect();
        diagnose_submission(&planned, &served, &mut results);
        results.into_iter().map(|result| result.diagnosis().cloned()).collect()
    }

    /// The verdict on a student whose search made `slips` on `test`.
    fn judged_as(test: &PlannedTest, tree: &dyn GameTree, student: SearchSettings, slips: Slips) -> TestResult {
        judged_outcome(test, tree, variant::search(tree, &student, slips).unwrap())
    }

    /// The verdict on a student whose search gave `outcome` on `test`.
    fn judged_outcome(test: &PlannedTest, tree: &dyn GameTree, outcome: VariantOutcome) -> TestResult {
        let answer = crate::grader::oracle::StudentAnswer {
            value: Some(outcome.value),
            action: outcome.action.map(|child| tree.action(child).to_string()),
            ..Default::default()
        };
        let record = crate::grader::session::SearchRecord {
            answer: Ok(answer),
            visited: outcome.visited,
            time_up: false,
            steps: Default::default(),
            stderr: String::new(),
            elapsed: std::time::Duration::ZERO,
            earlier_in_program: 0,
        };
        crate::grader::verdict::judge(test, tree, record)
    }

    #[test]
    fn an_iteration_after_the_time_is_up_is_named_where_the_grader_saw_the_time_up() {
        use crate::grader::session::{FailureCause, FailureKind, ProgramFailure, SearchRecord};
        let mut builder = TreeBuilder::new("evals", "A");
        builder.add(NodeSpec::internal("A", NodeKind::Max, vec![ChildSpec::id("B"), ChildSpec::id("C")]));
        for (id, eval) in [("B", 5.0), ("C", 1.0)] {
            let children = leaves(&[2.0, 8.0]);
            builder.add(NodeSpec {
                id: id.into(),
                body: NodeBody::Internal { kind: NodeKind::Min, children, probs: None, eval: Some(eval) },
            });
        }
        let tree = std::sync::Arc::new(builder.build().unwrap());
        let settings =
            SearchSettings { depth: Some(2), budget: Some(6), ..SearchSettings::new(Algorithm::IterativeDeepening) };
        let test = PlannedTest {
            question: 0,
            name: "q/id".into(),
            path: "id.yaml".into(),
            hidden: false,
            reference: search(&*tree, &settings).unwrap(),
            recording: Default::default(),
            settings,
            child_order: crate::assignment::ChildOrder::Given,
            tree: TestTree::Written(tree.clone()),
        };
        let judged = |time_up| {
            let failure = ProgramFailure {
                kind: FailureKind::Exception,
                message: "your code raised an error: TimeUp".into(),
                details: None,
                cause: Some(FailureCause::IterationAfterTimeUp),
            };
            let record = SearchRecord {
                answer: Err(failure),
                visited: Vec::new(),
                time_up,
                steps: Default::default(),
                stderr: String::new(),
                elapsed: std::time::Duration::ZERO,
                earlier_in_program: 0,
            };
            crate::grader::verdict::judge(&test, &*tree, record).diagnosis().map(|d| (d.bug, d.explanation.clone()))
        };
        let (bug, explanation) = judged(true).expect("named");
        assert_eq!(bug, "id-budget-per-iteration");
        assert!(explanation.contains("after the budget of 6 nodes was spent"), "{explanation}");
        assert_eq!(judged(false), None, "the kit's word alone names nothing");
    }

    #[test]
    fn tests_that_fit_different_mistakes_name_none() {
        let reversed = Slips { reverse_children: true, ..Slips::default() };
        let eager = Slips { eager_children: true, ..Slips::default() };
        assert_eq!(diagnosed_question([reversed, reversed]), [Some("reverse-children"), Some("reverse-children")]);
        assert_eq!(diagnosed_question([eager, eager]), [Some("eager-children"), Some("eager-children")]);
        assert_eq!(diagnosed_question([reversed, eager]), [None, None], "no one mistake: none is named");
    }

    /// Generated trees of `kinds`, every internal node with an eval.
    fn drawn(kinds: Vec<NodeKind>, count: u64) -> Vec<std::sync::Arc<Tree>> {
        let options = crate::generator::GenOptions { depth: 4, kinds, evals: true, ties: 0.3, ..Default::default() };
        (0..count)
            .map(|index| std::sync::Arc::new(crate::generator::generate(&options, index, &format!("t{index}"))))
            .collect()
    }

    /// The mistakes a diagnosis names: its own and a behaviour's shapes.
    fn names(diagnosis: &Diagnosis) -> Vec<&'static str> {
        std::iter::once(diagnosis.bug).chain(diagnosis.alternatives.iter().copied()).collect()
    }

    /// Every named diagnosis of `diagnoses` names `bug` (as itself or as a
    /// behaviour's shape), and at least one does.
    fn only_named_as(diagnoses: &[Option<Diagnosis>], bug: &str) {
        let named: Vec<&Diagnosis> = diagnoses.iter().flatten().collect();
        assert!(!named.is_empty(), "{bug} is named somewhere: {diagnoses:#?}");
        for diagnosis in named {
            assert!(names(diagnosis).contains(&bug), "{bug}: {diagnosis:#?}");
        }
    }

    #[test]
    fn a_window_never_tightened_below_the_root_is_named_as_that_behaviour() {
        // Only the root's loop tightens its bound: it leaves the trace of
        // updates that widen the window, and neither is claimed.
        let slips =
            Slips { window: crate::engine::variant::WindowSlip::NeverTightened, spare_root: true, ..Slips::default() };
        let mut tests = Vec::new();
        for tree in drawn(vec![NodeKind::Max, NodeKind::Min], 6) {
            for prune_on_equal in [true, false] {
                tests.push((
                    tree.clone(),
                    SearchSettings { prune_on_equal, ..SearchSettings::new(Algorithm::AlphaBeta) },
                    slips,
                ));
            }
        }
        let diagnoses = diagnosed(tests);
        only_named_as(&diagnoses, "window-never-tightened");
        for diagnosis in diagnoses.iter().flatten() {
            assert_eq!(diagnosis.bug, "window-never-tightens-below-root", "{diagnosis:#?}");
            assert!(!diagnosis.explanation.contains("your max nodes"), "{diagnosis:#?}");
        }
    }

    /// A tree whose every internal node has an eval: a `root` root over two
    /// nodes of the other kind, each over two of `root`'s kind, over leaves.
    fn evals_tree(root: NodeKind) -> std::sync::Arc<Tree> {
        let other = if root == NodeKind::Max { NodeKind::Min } else { NodeKind::Max };
        let mut builder = TreeBuilder::new("evals", "A");
        let with_eval = |id: &str, kind, children, eval| NodeSpec {
            id: id.into(),
            body: NodeBody::Internal { kind, children, probs: None, eval: Some(eval) },
        };
        builder.add(with_eval("A", root, vec![ChildSpec::id("B"), ChildSpec::id("C")], 0.0));
        builder.add(with_eval("B", other, vec![ChildSpec::id("B1"), ChildSpec::id("B2")], 5.0));
        builder.add(with_eval("C", other, vec![ChildSpec::id("C1"), ChildSpec::id("C2")], 1.0));
        for (id, eval, leaf) in
            [("B1", 7.0, [2.0, -3.0]), ("B2", -8.0, [9.0, 4.0]), ("C1", 6.0, [4.0, 0.0]), ("C2", -2.0, [3.0, 8.0])]
        {
            builder.add(with_eval(id, root, leaves(&leaf), eval));
        }
        std::sync::Arc::new(builder.build().unwrap())
    }

    fn at_depth(depth: u32) -> SearchSettings {
        SearchSettings { depth: Some(depth), ..SearchSettings::new(Algorithm::AlphaBeta) }
    }

    #[test]
    fn a_depth_limit_ignored_or_read_as_none_at_0_is_not_called_depth_in_rounds() {
        use crate::engine::variant::DepthSlip;
        let (min_root, max_root) = (evals_tree(NodeKind::Min), evals_tree(NodeKind::Max));
        for slip in [DepthSlip::Ignored, DepthSlip::ZeroIsNone] {
            let slips = Slips { depth: slip, ..Slips::default() };
            let tests = vec![
                (min_root.clone(), at_depth(0), slips),
                (max_root.clone(), at_depth(0), slips),
                (min_root.clone(), at_depth(2), slips),
                (max_root.clone(), at_depth(1), slips),
            ];
            let diagnoses = diagnosed(tests);
            only_named_as(&diagnoses, "depth-ignored");
        }
    }

    #[test]
    fn an_evaluation_read_from_the_movers_view_is_named_so_not_as_turns_by_depth() {
        use crate::engine::variant::EvalSlip;
        let (min_root, max_root) = (evals_tree(NodeKind::Min), evals_tree(NodeKind::Max));
        for (slip, bug) in [(EvalSlip::MoverView, "eval-mover-view"), (EvalSlip::Negated, "eval-wrong-player")] {
            let slips = Slips { eval: slip, ..Slips::default() };
            let tests = vec![
                (max_root.clone(), at_depth(1), slips),
                (max_root.clone(), at_depth(2), slips),
                (min_root.clone(), at_depth(1), slips),
                (min_root.clone(), at_depth(2), slips),
            ];
            only_named_as(&diagnosed(tests), bug);
        }
    }

    #[test]
    fn max_nodes_that_always_prune_strictly_get_no_wrong_name() {
        // The first bug a new user planted: max nodes cut only on v > beta,
        // whatever the test says; min nodes as the test says. On a MIN
        // root it was told that it searches the root as a MAX node.
        let slips = Slips { max_convention: Some(false), ..Slips::default() };
        let mut tests = Vec::new();
        let trees = [
            std::sync::Arc::new(tree()),
            std::sync::Arc::new(crate::tree::fixtures::aima()),
            evals_tree(NodeKind::Min),
        ];
        for tree in trees.into_iter().chain(drawn(vec![NodeKind::Min, NodeKind::Max], 4)) {
            for prune_on_equal in [true, false] {
                tests.push((
                    tree.clone(),
                    SearchSettings { prune_on_equal, ..SearchSettings::new(Algorithm::AlphaBeta) },
                    slips,
                ));
            }
        }
        let diagnoses = diagnosed(tests);
        for diagnosis in diagnoses.iter().flatten() {
            assert_eq!(names(diagnosis), ["mixed-convention"], "{diagnosis:#?}");
        }
    }

    /// The bundled assignment's questions, each a list of planned tests.
    fn bundled_questions() -> Vec<Vec<PlannedTest>> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assignments/adversarial-search");
        let assignment = crate::load::assignment::load_assignment(&dir).unwrap();
        let selected: Vec<usize> = (0..assignment.questions.len()).collect();
        let tests = crate::grader::plan::plan_tests(&assignment, &selected, |test| {
            TestTree::Written(std::sync::Arc::new(crate::load::load_tree_file(&test.path).unwrap().tree))
        })
        .unwrap();
        selected.iter().map(|&q| tests.iter().filter(|t| t.question == q).cloned().collect()).collect()
    }

    /// The diagnoses of a program whose search gives `outcome(test)` on
    /// each test of a question (the reference's where it gives `None`).
    fn diagnosed_by(
        tests: &[PlannedTest],
        outcome: impl Fn(&PlannedTest, &Tree) -> Option<VariantOutcome>,
    ) -> Vec<Option<Diagnosis>> {
        let mut results = Vec::new();
        for test in tests {
            let tree = test.tree.written().unwrap();
            let outcome =
                outcome(test, tree).unwrap_or_else(|| variant::search(tree, &test.settings, Slips::default()).unwrap());
            results.push(judged_outcome(test, tree, outcome));
        }
        let served: Vec<Served<'_>> = tests.iter().map(PlannedTest::served).collect();
        diagnose_submission(tests, &served, &mut results);
        results.into_iter().map(|result| result.diagnosis().cloned()).collect()
    }

    #[test]
    fn no_mistake_of_the_catalogue_is_named_for_a_program_that_does_not_make_it() {
        // The rule every mistake must pass, on the bundled assignment: a
        // program making one mistake of the catalogue is told that mistake
        // or nothing (a behaviour it shares lists it), never another's name;
        // a program making two at once is never told a third.
        for tests in bundled_questions() {
            let mut keys: Vec<&'static str> = Vec::new();
            for test in &tests {
                for candidate in candidates(test.tree.written().unwrap(), &test.settings) {
                    if !keys.contains(&candidate.key) {
                        keys.push(candidate.key);
                    }
                }
            }
            let making = |key: &'static str| {
                move |test: &PlannedTest, tree: &Tree| {
                    candidates(tree, &test.settings).into_iter().find(|c| c.key == key).and_then(|c| c.run(tree))
                }
            };
            for key in &keys {
                let bug = tests
                    .iter()
                    .flat_map(|test| candidates(test.tree.written().unwrap(), &test.settings))
                    .find(|c| c.key == *key)
                    .unwrap()
                    .bug;
                for diagnosis in diagnosed_by(&tests, making(key)).iter().flatten() {
                    assert!(names(diagnosis).contains(&bug), "{key} named as {diagnosis:#?}");
                }
            }
            let pairs = [
                Slips { reverse_children: true, last_best_at_root: true, ..Slips::default() },
                Slips {
                    eager_children: true,
                    window: crate::engine::variant::WindowSlip::SwappedUpdates,
                    ..Slips::default()
                },
                Slips { reverse_children: true, max_convention: Some(true), ..Slips::default() },
                Slips { root_as_max: true, depth: crate::engine::variant::DepthSlip::Rounds, ..Slips::default() },
                Slips {
                    strict_alternation: true,
                    chance: crate::engine::variant::ChanceSlip::Uniform,
                    ..Slips::default()
                },
                Slips {
                    eval: crate::engine::variant::EvalSlip::MoverView,
                    last_best_at_root: true,
                    ..Slips::default()
                },
            ];
            let allowed = [
                ["reverse-children", "first-best-last"],
                ["eager-children", "swapped-updates"],
                ["reverse-children", "mixed-convention"],
                ["min-root-as-max", "depth-in-rounds"],
                ["strict-alternation", "ignore-probabilities"],
                ["eval-mover-view", "first-best-last"],
            ];
            for (slips, allowed) in pairs.into_iter().zip(allowed) {
                let both = |test: &PlannedTest, tree: &Tree| variant::search(tree, &test.settings, slips).ok();
                for diagnosis in diagnosed_by(&tests, both).iter().flatten() {
                    assert!(
                        names(diagnosis).iter().all(|bug| allowed.contains(bug)),
                        "{allowed:?} named as {diagnosis:#?}"
                    );
                }
            }
        }
    }

    #[test]
    fn names_pruning_in_a_minimax_question() {
        let minimax = SearchSettings::new(Algorithm::Minimax);
        assert_eq!(diagnosis_of(minimax, strict_alphabeta(), Slips::default()), Some("prunes-in-minimax"));
    }

    #[test]
    fn names_ties_resolved_to_the_last_child() {
        let minimax = SearchSettings::new(Algorithm::Minimax);
        let last = Slips { last_best_at_root: true, ..Slips::default() };
        assert_eq!(diagnosis_of(minimax, minimax, last), Some("first-best-last"));
    }

    #[test]
    fn names_ignored_probabilities() {
        let mut builder = TreeBuilder::new("c", "A");
        builder.add(NodeSpec {
            id: "A".into(),
            body: NodeBody::Internal {
                kind: NodeKind::Chance,
                children: leaves(&[8.0, 24.0, -12.0]),
                probs: Some(vec![0.5, 0.25, 0.25]),
                eval: None,
            },
        });
        let tree = builder.build().unwrap();
        let settings = SearchSettings::new(Algorithm::Expectimax);
        let outcome =
            variant::search(&tree, &settings, Slips { chance: ChanceSlip::Uniform, ..Slips::default() }).unwrap();
        let trace = StudentTrace { action: None, ..trace_of(&tree, outcome.value, outcome.action, &outcome.visited) };
        assert_eq!(diagnose(&tree, &settings, &trace).map(|d| d.bug), Some("ignore-probabilities"));
    }

    #[test]
    fn names_depth_off_by_one() {
        let trees = [evals_tree(NodeKind::Max), evals_tree(NodeKind::Min)];
        for (off, bug) in [(1, "depth-too-deep"), (-1, "depth-too-shallow")] {
            let mut tests = Vec::new();
            for tree in &trees {
                for depth in [1u32, 2] {
                    let student = at_depth(depth.saturating_add_signed(off));
                    tests.push((tree.clone(), at_depth(depth), student, Slips::default()));
                }
            }
            only_named_as(&diagnosed_with(tests), bug);
        }
    }

    #[test]
    fn an_unknown_mistake_is_not_named() {
        let tree = tree();
        let outcome = search(&tree, &strict_alphabeta()).unwrap();
        let trace = StudentTrace {
            value: Some(42.0),
            action: Some("B"),
            ..trace_of(&tree, outcome.value, outcome.action, &outcome.visited)
        };
        assert_eq!(diagnose(&tree, &strict_alphabeta(), &trace), None);
    }

    /// max(min(3, 3), min(3, 3)) under AIMA's convention prunes C.2.
    fn tied_tree() -> Tree {
        let mut builder = TreeBuilder::new("ties", "A");
        builder.add(NodeSpec::internal("A", NodeKind::Max, vec![ChildSpec::id("B"), ChildSpec::id("C")]));
        builder.add(NodeSpec::internal("B", NodeKind::Min, leaves(&[3.0, 3.0])));
        builder.add(NodeSpec::internal("C", NodeKind::Min, leaves(&[3.0, 3.0])));
        builder.build().unwrap()
    }

    #[test]
    fn a_trace_two_mistakes_explain_that_share_no_behaviour_names_none() {
        // A search that never prunes and one that prunes only on strict
        // inequality both enter C.2: the trace cannot tell them apart, and
        // naming either would be a guess.
        let tree = tied_tree();
        let settings = SearchSettings::new(Algorithm::AlphaBeta);
        let minimax = search(&tree, &SearchSettings::new(Algorithm::Minimax)).unwrap();
        let trace = trace_of(&tree, minimax.value, minimax.action, &minimax.visited);
        let fitting = reproducing(&tree, None, &settings, &trace, None);
        let both: Vec<Candidate> =
            fitting.into_iter().filter(|c| c.key == "no-pruning" || c.key == "prune-on-equal/never").collect();
        assert_eq!(both.len(), 2, "both reproduce the trace");
        assert_eq!(describe(&both, 1), None);
        assert_eq!(diagnose(&tree, &settings, &trace), None);
    }

    #[test]
    fn mistakes_that_leave_one_trace_are_named_by_their_behaviour() {
        let tree = tree();
        let settings = strict_alphabeta();
        let minimax = search(&tree, &SearchSettings::new(Algorithm::Minimax)).unwrap();
        let trace = trace_of(&tree, minimax.value, minimax.action, &minimax.visited);
        let never: Vec<Candidate> = reproducing(&tree, None, &settings, &trace, None)
            .into_iter()
            .filter(|c| matches!(c.key, "no-pruning" | "swapped-updates/widening" | "window-never-tightened"))
            .collect();
        assert_eq!(never.len(), 3, "{never:?}");
        let diagnosis = describe(&never, 1).expect("a diagnosis");
        assert_eq!(diagnosis.bug, "never-prunes");
        let mut shapes = diagnosis.alternatives.clone();
        shapes.sort();
        assert_eq!(shapes, ["no-pruning", "swapped-updates", "window-never-tightened"]);
        assert!(diagnosis.explanation.starts_with("your alpha-beta never prunes"), "{diagnosis:?}");
        assert!(diagnosis.explanation.contains("code that does this: "), "{diagnosis:?}");
        assert!(!diagnosis.explanation.contains("your max nodes"), "no shape is claimed: {diagnosis:?}");
    }

    /// MCTS over min(max(3, 9, -2), 4, max(1)), 40 iterations: a min root.
    fn mcts_min_root() -> (Tree, SearchSettings) {
        let mut builder = TreeBuilder::new("min-root", "A");
        let children = vec![ChildSpec::id("B"), ChildSpec::leaf(4.0), ChildSpec::id("D")];
        builder.add(NodeSpec::internal("A", NodeKind::Min, children));
        builder.add(NodeSpec::internal("B", NodeKind::Max, leaves(&[3.0, 9.0, -2.0])));
        builder.add(NodeSpec::internal("D", NodeKind::Max, leaves(&[1.0])));
        let settings = SearchSettings { iterations: Some(40), ..SearchSettings::new(Algorithm::Mcts) };
        (builder.build().unwrap(), settings)
    }

    /// The reference's MCTS answer with the root children's W as `w` makes them.
    fn reported(tree: &Tree, outcome: &crate::engine::SearchOutcome, w: impl Fn(f64) -> f64) -> Vec<ChildCountView> {
        let summary = outcome.mcts().unwrap();
        summary
            .children
            .iter()
            .map(|child| ChildCountView { action: tree.action(child.node).to_string(), n: child.n, w: w(child.w) })
            .collect()
    }

    #[test]
    fn an_mcts_mistake_must_give_the_root_counts_too() {
        // The reference's search, with W negated at the min root: only the counts differ.
        let (tree, settings) = mcts_min_root();
        let reference = search(&tree, &settings).unwrap();
        let counts = reported(&tree, &reference, |w| -w);
        let trace = StudentTrace {
            counts: Some(&counts),
            draws: Some(reference.mcts().unwrap().draws),
            ..trace_of(&tree, reference.value, reference.action, &reference.visited)
        };
        let diagnosis = diagnose(&tree, &settings, &trace).expect("a diagnosis");
        assert_eq!((diagnosis.bug, diagnosis.alternatives.len()), ("mcts-rewards-wrong-side", 0), "{diagnosis:?}");
        assert!(diagnosis.explanation.contains("the W you report for a min root's children"), "{diagnosis:?}");
    }

    #[test]
    fn a_mistake_that_gives_the_reference_is_not_named_for_a_failed_test() {
        // Right in all but the counts, which the program did not report: a
        // mistake that only changes the counts would fit, were it not that
        // it gives the reference's answer wherever the program was checked.
        let (tree, settings) = mcts_min_root();
        let reference = search(&tree, &settings).unwrap();
        let trace = StudentTrace {
            draws: Some(reference.mcts().unwrap().draws),
            ..trace_of(&tree, reference.value, reference.action, &reference.visited)
        };
        let counts = reported(&tree, &reference, |w| w);
        let expected = StudentTrace { counts: Some(&counts), ..trace };
        let unguarded: Vec<&str> = reproducing(&tree, None, &settings, &trace, None).iter().map(|c| c.key).collect();
        assert!(unguarded.contains(&"mcts-rewards-wrong-side/mover-view"), "{unguarded:?}");
        assert!(reproducing(&tree, None, &settings, &trace, Some(&expected)).is_empty());
    }

    #[test]
    fn ways_of_writing_one_mistake_that_the_trace_cannot_tell_apart_are_each_worded() {
        let settings = SearchSettings::new(Algorithm::Maxn);
        let off_by_one: Vec<Candidate> = crate::engine::mistakes::beyond_mistakes(&settings)
            .into_iter()
            .filter(|c| matches!(c.key, "maxn-mover-off-by-one/before" | "maxn-mover-off-by-one/after-wrapping"))
            .collect();
        assert_eq!(off_by_one.len(), 2);
        let diagnosis = describe(&off_by_one, 1).expect("a diagnosis");
        assert_eq!((diagnosis.bug, diagnosis.alternatives.len()), ("maxn-mover-off-by-one", 0));
        assert!(diagnosis.explanation.contains("the previous player's component"), "{diagnosis:?}");
        assert!(
            diagnosis.explanation.contains("; or at a node of player i you compare the next player's"),
            "{diagnosis:?}"
        );
        let alone = describe(&off_by_one[1..], 1).expect("a diagnosis");
        assert!(!alone.explanation.contains("previous"), "{alone:?}");
    }

    #[test]
    fn new_mistakes_are_named_on_trees_that_show_them() {
        // A MIN root over two MAX nodes: searched as MAX, it picks C.
        let mut builder = TreeBuilder::new("min-root", "A");
        builder.add(NodeSpec::internal("A", NodeKind::Min, vec![ChildSpec::id("B"), ChildSpec::id("C")]));
        builder.add(NodeSpec::internal("B", NodeKind::Max, leaves(&[3.0, 1.0])));
        builder.add(NodeSpec::internal("C", NodeKind::Max, leaves(&[8.0, 2.0])));
        let tree = builder.build().unwrap();
        let settings = SearchSettings::new(Algorithm::Minimax);
        let slips = crate::engine::variant::Slips { root_as_max: true, ..Default::default() };
        let outcome = crate::engine::variant::search(&tree, &settings, slips).unwrap();
        let trace = trace_of(&tree, outcome.value, outcome.action, &outcome.visited);
        let diagnosis = diagnose(&tree, &settings, &trace).expect("a diagnosis");
        let mut named = vec![diagnosis.bug];
        named.extend(&diagnosis.alternatives);
        assert!(named.contains(&"min-root-as-max"), "{diagnosis:?}");
    }
}
