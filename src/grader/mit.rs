//! Judging what the MIT 6.034 kit reports: the lab's `(path, score,
//! evaluations)` and the student's own Connect Four rules.
//!
//! The kit runs the student's lab function and reports what it returned;
//! nothing here is taken on trust. The path is walked on the grader's tree,
//! the count is compared with the reference's (or with the static
//! evaluations the grader recorded, `static`), and a claim that the
//! student's rules disagree with Connect Four's is checked against the
//! grader's own rules before it is told.

use serde_json::Value;

use super::plan::PlannedTest;
use super::result::Board;
use crate::assignment::Verdict;
use crate::compare::{counted, first_divergence, format_value};
use crate::engine::Algorithm;
use crate::tree::{GameTree, NodeIndex, NodeKind};

use super::oracle::MitReport;

/// What the MIT checks found: failures, warnings, boards to draw.
#[derive(Debug, Default)]
pub struct MitFindings {
    /// Why the test fails, one sentence each.
    pub failures: Vec<String>,
    /// What differs but does not fail the test in this mode.
    pub warnings: Vec<String>,
    /// Positions to draw (the rule claim's, the paths' ends).
    pub boards: Vec<Board>,
    /// Whether the path was judged (and so the action alone needs no reason).
    pub path_judged: bool,
    /// MIT's answer and the student's, side by side, for a failed test.
    pub summary: Vec<String>,
}

/// The lab function a test runs, from its name (`q/NN-function`).
pub fn function_of(test: &PlannedTest) -> &str {
    let stem = test.name.rsplit('/').next().unwrap_or(&test.name);
    stem.split_once('-').map_or(stem, |(_, function)| function)
}

/// MIT's answer on the tree: the path from the root to the node whose
/// static value is the score (first best child, strict comparisons; alpha-
/// beta stops a node as the reference does), and the nodes evaluated, in
/// order. `None` for searches the lab has no such answer for.
pub fn reference_answer(test: &PlannedTest, tree: &dyn GameTree) -> Option<(Vec<NodeIndex>, Vec<NodeIndex>)> {
    let settings = &test.settings;
    let window = match settings.algorithm {
        Algorithm::Minimax => None,
        Algorithm::AlphaBeta => Some((f64::NEG_INFINITY, f64::INFINITY)),
        _ => return None,
    };
    let mut evaluated = Vec::new();
    let found = line(tree, NodeIndex::ROOT, settings.depth, window, settings.prune_on_equal, &mut evaluated)?;
    Some((found.0, evaluated))
}

/// One node's MIT search: its path and score.
fn line(
    tree: &dyn GameTree,
    node: NodeIndex,
    depth: Option<u32>,
    window: Option<(f64, f64)>,
    prune_on_equal: bool,
    evaluated: &mut Vec<NodeIndex>,
) -> Option<(Vec<NodeIndex>, f64)> {
    let maximize = match tree.kind(node) {
        NodeKind::Terminal => {
            evaluated.push(node);
            return Some((vec![node], tree.utility(node)));
        }
        _ if depth.is_some_and(|d| tree.ply(node) >= d) => {
            evaluated.push(node);
            return Some((vec![node], tree.eval(node).unwrap_or(0.0)));
        }
        NodeKind::Max => true,
        NodeKind::Min => false,
        NodeKind::Chance => return None,
    };
    let (mut alpha, mut beta) = window.unwrap_or((f64::NEG_INFINITY, f64::INFINITY));
    let mut best: Option<(Vec<NodeIndex>, f64)> = None;
    for child in tree.children(node) {
        let found = line(tree, child, depth, window.map(|_| (alpha, beta)), prune_on_equal, evaluated)?;
        let score = found.1;
        if best.as_ref().is_none_or(|b| if maximize { score > b.1 } else { score < b.1 }) {
            best = Some(found);
        }
        if window.is_some() {
            if maximize {
                alpha = alpha.max(score);
            } else {
                beta = beta.min(score);
            }
            if alpha > beta || (prune_on_equal && alpha == beta) {
                break;
            }
        }
    }
    let (mut path, score) = best?;
    path.insert(0, node);
    Some((path, score))
}

/// What the grader recorded of the search beside its answer.
#[derive(Clone, Copy, Debug)]
pub struct Recorded<'a> {
    /// The nodes the search entered, in order of first entry.
    pub visited: &'a [NodeIndex],
    /// The static evaluations the kit declared (`static`), in order.
    pub declared: &'a [NodeIndex],
    /// Where each declared iteration starts in `declared` (progressive deepening).
    pub declared_starts: &'a [usize],
}

/// Judges what the kit reported, in the course's mode.
pub fn judge(
    test: &PlannedTest,
    tree: &dyn GameTree,
    report: &MitReport,
    recorded: Recorded,
    verdict: Verdict,
    scores: (Option<f64>, Option<f64>),
) -> MitFindings {
    let mut findings = MitFindings::default();
    let declared = recorded.declared;
    if let Some(claim) = &report.rules {
        judge_rules(&mut findings, tree, claim, recorded.visited);
    }
    judge_heuristic_on_terminal(&mut findings, tree, &report.heuristic_on_terminal, declared, verdict);
    if test.settings.algorithm.deepens() {
        if let Some(history) = &report.history {
            let made = per_iteration(declared, recorded.declared_starts);
            match verdict.is_mit() {
                true => judge_progressive(&mut findings, test, tree, history, &made, verdict),
                false => judge_counts_made(&mut findings, history, &made),
            }
        }
        return findings;
    }
    if !verdict.is_mit() {
        // The count returned is the count made.
        if count_of(&report.returned) != Some(declared.len()) {
            findings.failures.push(format!(
                "{} returned {} as its number of static evaluations, but it made {} (one per get_endgame_score at a \
                 game-over state and one per heuristic_fn call at depth 0)",
                function_of(test),
                count_text(&report.returned),
                declared.len()
            ));
        }
        return findings;
    }
    let Some((expected_path, expected_evaluated)) = reference_answer(test, tree) else { return findings };
    findings.path_judged = true;
    let connect_four = is_connect_four(test, tree);
    let actual_path = walk(tree, &report.path);
    judge_path(&mut findings, tree, &expected_path, actual_path.as_deref(), &report.path, connect_four);
    judge_count(&mut findings, &report.returned, expected_evaluated.len(), declared.len());
    let score = |value: Option<f64>| value.map_or_else(|| "none".to_string(), format_value);
    let yours = match &actual_path {
        Some(path) => describe_path(tree, path, connect_four),
        None => "not a path of the tree".to_string(),
    };
    findings.summary = vec![
        format!(
            "MIT's answer: path {}, score {}, {}",
            describe_path(tree, &expected_path, connect_four),
            score(scores.0),
            counted(expected_evaluated.len(), "static evaluation")
        ),
        format!(
            "your answer:  path {yours}, score {}, {} static evaluations returned ({} made)",
            score(scores.1),
            count_text(&report.returned),
            declared.len()
        ),
    ];
    if let Some(sentence) = evaluations_difference(&mut findings, tree, &expected_evaluated, declared) {
        push_evaluations(&mut findings, sentence, verdict);
    }
    findings
}

/// A heuristic asked about a finished game (the depth limit checked before
/// whether the game is over), where the grader saw that node declared as a
/// static evaluation and it is a terminal: a failure, but a warning in
/// MIT's mode, whose tester passes a search whose answer comes out right.
fn judge_heuristic_on_terminal(
    findings: &mut MitFindings,
    tree: &dyn GameTree,
    said: &[String],
    declared: &[NodeIndex],
    verdict: Verdict,
) {
    let Some(node) = declared
        .iter()
        .copied()
        .find(|&n| tree.kind(n) == NodeKind::Terminal && said.iter().any(|id| *id == tree.id(n)))
    else {
        return;
    };
    let sentence = format!(
        "you asked heuristic_fn about {}, a finished game (a terminal) at the depth limit: check whether the game \
         is over before the depth limit, and score a finished game with get_endgame_score",
        tree.id(node)
    );
    match verdict {
        Verdict::Mit6034 => {
            findings.warnings.push(format!("{sentence} (MIT's tester passes this when the score comes out the same)"))
        }
        Verdict::Order | Verdict::Strict => findings.failures.push(sentence),
    }
}

/// The declared static evaluations split by iteration (one list before any
/// iteration was declared).
fn per_iteration<'a>(declared: &'a [NodeIndex], starts: &[usize]) -> Vec<&'a [NodeIndex]> {
    if starts.is_empty() {
        return vec![declared];
    }
    let ends = starts.iter().skip(1).copied().chain([declared.len()]);
    starts.iter().zip(ends).map(|(&start, end)| &declared[start.min(end)..end]).collect()
}

/// One depth of MIT's progressive deepening: alpha-beta to `depth` from the
/// root, in the tree's order.
struct DepthAnswer {
    path: Vec<NodeIndex>,
    score: f64,
    evaluated: Vec<NodeIndex>,
}

/// MIT's progressive deepening on the tree: one alpha-beta search a depth,
/// from 1 to the test's depth limit. Empty where the tree has no such answer.
fn progressive_answers(test: &PlannedTest, tree: &dyn GameTree) -> Vec<DepthAnswer> {
    let deepest = test.settings.depth.unwrap_or(0);
    let window = Some((f64::NEG_INFINITY, f64::INFINITY));
    let mut answers = Vec::new();
    for depth in 1..=deepest {
        let mut evaluated = Vec::new();
        let Some((path, score)) =
            line(tree, NodeIndex::ROOT, Some(depth), window, test.settings.prune_on_equal, &mut evaluated)
        else {
            return Vec::new();
        };
        answers.push(DepthAnswer { path, score, evaluated });
    }
    answers
}

/// One entry of the history the kit reported: its path, score and count.
struct Entry {
    path: Vec<Option<String>>,
    score: Option<f64>,
    returned: Value,
}

fn entries(history: &[Value]) -> Vec<Entry> {
    history
        .iter()
        .map(|entry| Entry {
            path: entry["path"].as_array().into_iter().flatten().map(|id| id.as_str().map(str::to_string)).collect(),
            score: entry["score"].as_f64(),
            returned: entry["returned"].clone(),
        })
        .collect()
}

/// Progressive deepening as MIT's test checks it: one `(path, score,
/// evaluations)` a depth from 1, each depth's score and its own count; the
/// paths and the evaluated states warn (or, strict, the states fail).
fn judge_progressive(
    findings: &mut MitFindings,
    test: &PlannedTest,
    tree: &dyn GameTree,
    history: &[Value],
    made: &[&[NodeIndex]],
    verdict: Verdict,
) {
    let expected = progressive_answers(test, tree);
    if expected.is_empty() {
        return;
    }
    findings.path_judged = true;
    let yours = entries(history);
    let expected_scores: Vec<String> = expected.iter().map(|d| format_value(d.score)).collect();
    let expected_counts: Vec<usize> = expected.iter().map(|d| d.evaluated.len()).collect();
    let your_scores: Vec<String> =
        yours.iter().map(|e| e.score.map_or_else(|| "none".to_string(), format_value)).collect();
    let your_counts: Vec<String> = yours.iter().map(|e| count_text(&e.returned)).collect();
    let made_counts: Vec<usize> = made.iter().map(|m| m.len()).collect();
    let list = |items: &[String]| format!("[{}]", items.join(", "));
    let numbers = |items: &[usize]| list(&items.iter().map(usize::to_string).collect::<Vec<_>>());
    findings.summary = vec![
        format!(
            "MIT's answer: scores by depth {}, static evaluations by depth {}",
            list(&expected_scores),
            numbers(&expected_counts)
        ),
        format!(
            "your answer:  scores by depth {}, static evaluations by depth {} returned ({} made)",
            list(&your_scores),
            list(&your_counts),
            numbers(&made_counts)
        ),
    ];
    if yours.len() != expected.len() {
        findings.failures.push(format!(
            "progressive deepening: MIT's test expects the AnytimeValue's history to hold one (path, score, \
             evaluations) for each depth from 1 to {}, {} in all; yours holds {} (call set_value once for each \
             depth, even when the answer is the same as the depth before's)",
            expected.len(),
            expected.len(),
            yours.len()
        ));
    } else if your_scores != expected_scores {
        let depth = your_scores.iter().zip(&expected_scores).position(|(a, b)| a != b).unwrap_or(0) + 1;
        findings.failures.push(format!(
            "scores by depth: MIT's test expects {}, you returned {} (depth {depth} is the first that differs)",
            list(&expected_scores),
            list(&your_scores)
        ));
    }
    let counts_right =
        yours.iter().zip(&expected_counts).all(|(entry, &count)| count_of(&entry.returned) == Some(count));
    if yours.len() == expected.len() && !counts_right {
        let mut sentence = format!(
            "static evaluations by depth: MIT's test expects {}, you returned {}",
            numbers(&expected_counts),
            list(&your_counts)
        );
        if running_totals(&yours, &expected_counts) {
            sentence.push_str(
                ": these are running totals; MIT's test counts each depth's own static evaluations, one \
                 minimax_search_alphabeta call's count each (the AnytimeValue keeps the sum in total_evaluations)",
            );
        }
        findings.failures.push(sentence);
    }
    for (number, (entry, depth)) in yours.iter().zip(&expected).enumerate() {
        let actual = walk(tree, &entry.path);
        if actual.as_deref() != Some(&depth.path[..]) {
            let connect_four = is_connect_four(test, tree);
            let shown = match &actual {
                Some(path) => describe_path(tree, path, connect_four),
                None => "a list that is not a path of the tree from its root".to_string(),
            };
            findings.warnings.push(format!(
                "path at depth {}: the reference's is {}, yours {shown} (MIT's tester does not check the paths of \
                 progressive deepening)",
                number + 1,
                describe_path(tree, &depth.path, connect_four)
            ));
            break;
        }
    }
    for (number, depth) in expected.iter().enumerate() {
        let mine = made.get(number).copied().unwrap_or(&[]);
        if let Some(sentence) = evaluations_difference(findings, tree, &depth.evaluated, mine) {
            push_evaluations(findings, format!("at depth {}, {sentence}", number + 1), verdict);
            break;
        }
    }
}

/// Whether every returned count is the sum of the depths' own counts so far
/// (and so differs from the depth's own somewhere): the cumulative mistake.
fn running_totals(yours: &[Entry], expected: &[usize]) -> bool {
    let mut total = 0;
    let totals: Vec<usize> = expected
        .iter()
        .map(|count| {
            total += count;
            total
        })
        .collect();
    totals != expected && yours.iter().zip(&totals).all(|(entry, &total)| count_of(&entry.returned) == Some(total))
}

/// In the order mode: each depth's returned count against the count it
/// made, as for the other searches.
fn judge_counts_made(findings: &mut MitFindings, history: &[Value], made: &[&[NodeIndex]]) {
    for (number, entry) in entries(history).iter().enumerate() {
        let Some(made) = made.get(number) else { break };
        if count_of(&entry.returned) != Some(made.len()) {
            findings.failures.push(format!(
                "progressive_deepening's answer at depth {} counts {} static evaluations, but that depth made {} \
                 (count each depth's own: one per get_endgame_score at a game-over state and one per heuristic_fn \
                 call at the depth limit)",
                number + 1,
                count_text(&entry.returned),
                made.len()
            ));
            return;
        }
    }
}

/// The kit's claim about the student's rules, once checked: a failure when
/// the search run on those rules (as MIT's test runs it) answers otherwise,
/// else a warning.
fn judge_rules(findings: &mut MitFindings, tree: &dyn GameTree, claim: &Value, visited: &[NodeIndex]) {
    let Some((told, function, tests, board)) = rules_claim(tree, claim, visited) else { return };
    if claim["same_answer"] == Value::Bool(true) {
        findings.warnings.push(format!(
            "{told}; MIT's test still passes, as your search returns the same on your rules here, but fix \
             {function} ({tests})"
        ));
    } else {
        findings.failures.push(format!(
            "{told}: the search test fails because MIT's test runs the search on your rules; fix {function} \
             ({tests}) first"
        ));
        findings.boards.extend(board);
    }
}

/// The returned path against MIT's, with the boards at both ends.
fn judge_path(
    findings: &mut MitFindings,
    tree: &dyn GameTree,
    expected: &[NodeIndex],
    actual: Option<&[NodeIndex]>,
    returned: &[Option<String>],
    connect_four: bool,
) {
    if actual == Some(expected) {
        return;
    }
    let yours = match actual {
        Some(path) => describe_path(tree, path, connect_four),
        None => format!(
            "{}, which is not a path of the tree from its root (each state must be one that \
             generate_next_states() gave for the one before it)",
            returned.iter().map(|id| id.as_deref().unwrap_or("?")).collect::<Vec<_>>().join(" ")
        ),
    };
    findings.failures.push(format!(
        "path: MIT's test expects {}, you returned {yours}: the path goes from the root to the state whose \
         static value is the score, taking at each state the first of its equally good moves",
        describe_path(tree, expected, connect_four)
    ));
    if let Some(path) = actual {
        findings.boards.extend(path_boards(tree, expected, path));
    }
}

/// The returned count against the reference's count of static evaluations.
fn judge_count(findings: &mut MitFindings, returned: &Value, expected: usize, made: usize) {
    let count = count_of(returned);
    if count == Some(expected) {
        return;
    }
    let made = if count == Some(made) {
        String::new()
    } else {
        format!(" (your search made {})", counted(made, "static evaluation"))
    };
    findings.failures.push(format!(
        "number of static evaluations: MIT's test expects {expected}, you returned {}{made}; count one per \
         get_endgame_score at a game-over state and one per heuristic_fn call at depth 0, and none for states \
         you prune",
        count_text(returned)
    ));
}

/// Where the static evaluations the grader recorded first leave the
/// reference's, as a sentence, with both lists in the summary; `None` when
/// they agree.
fn evaluations_difference(
    findings: &mut MitFindings,
    tree: &dyn GameTree,
    expected: &[NodeIndex],
    declared: &[NodeIndex],
) -> Option<String> {
    let expected_ids: Vec<String> = expected.iter().map(|&n| tree.id(n).into_owned()).collect();
    let declared_ids: Vec<String> = declared.iter().map(|&n| tree.id(n).into_owned()).collect();
    let divergence = first_divergence(&expected_ids, &declared_ids)?;
    let sentence = format!(
        "evaluated states: your static evaluations left the reference's at evaluation {}: {} ({} in all, the \
         reference {})",
        divergence.step + 1,
        match (&divergence.expected, &divergence.actual) {
            (Some(expected), Some(actual)) => format!("the reference evaluates {expected}, you evaluated {actual}"),
            (Some(expected), None) => format!("the reference evaluates {expected} next, and you stopped"),
            (None, Some(actual)) => format!("the reference had stopped, and you evaluated {actual}"),
            (None, None) => String::new(),
        },
        declared.len(),
        expected.len()
    );
    findings.summary.push(format!("your evaluations: {}", shortened(&declared_ids, divergence.step)));
    findings.summary.push(format!("the reference's:  {}", shortened(&expected_ids, divergence.step)));
    Some(sentence)
}

/// The evaluations' difference: a failure in the strict mode, a warning in MIT's.
fn push_evaluations(findings: &mut MitFindings, sentence: String, verdict: Verdict) {
    if verdict == Verdict::Strict {
        findings.failures.push(sentence);
    } else {
        findings.warnings.push(format!("{sentence} (MIT's tester does not check this)"));
    }
}

/// Evaluations to show: a dozen from a little before where the two lists
/// part, and how many there are in all when some are left out.
fn shortened(ids: &[String], step: usize) -> String {
    const SHOWN: usize = 12;
    let start = step.saturating_sub(4).min(ids.len());
    let end = (start + SHOWN).min(ids.len());
    let mut text = if start > 0 { format!("... {}", ids[start..end].join(" ")) } else { ids[start..end].join(" ") };
    if start > 0 || end < ids.len() {
        text.push_str(&format!(" ... ({} in all)", ids.len()));
    }
    text
}

/// The count the search returned, when it is a whole number.
fn count_of(returned: &Value) -> Option<usize> {
    returned.as_u64().and_then(|n| usize::try_from(n).ok())
}

/// The count as the student returned it.
fn count_text(returned: &Value) -> String {
    match returned {
        Value::Number(n) => n.to_string(),
        Value::String(text) => format!("the string {text:?}"),
        Value::Null => "nothing".to_string(),
        other => other.to_string(),
    }
}

/// Whether the tree is Connect Four's (a game's, or one imported from the lab's boards).
fn is_connect_four(test: &PlannedTest, tree: &dyn GameTree) -> bool {
    tree.game_name() == Some("connect-four") || test.tree.description().is_some_and(|d| d.contains("Connect Four"))
}

/// The returned path on the grader's tree: each id a child of the one before, from the root.
fn walk(tree: &dyn GameTree, ids: &[Option<String>]) -> Option<Vec<NodeIndex>> {
    let (first, rest) = ids.split_first()?;
    if first.as_deref()? != tree.id(NodeIndex::ROOT) {
        return None;
    }
    let mut path = vec![NodeIndex::ROOT];
    for id in rest {
        let id = id.as_deref()?;
        let last = *path.last().expect("the root is in");
        path.push(tree.children(last).find(|&child| tree.id(child) == id)?);
    }
    Some(path)
}

/// `root 1 1.0 (move_sequence [1, 0])`, with the columns on Connect Four.
fn describe_path(tree: &dyn GameTree, path: &[NodeIndex], connect_four: bool) -> String {
    let ids: Vec<String> = path.iter().map(|&n| tree.id(n).into_owned()).collect();
    let indexes: Vec<String> = path
        .windows(2)
        .map(|pair| tree.children(pair[0]).position(|child| child == pair[1]).unwrap_or(0).to_string())
        .collect();
    let columns = if connect_four && path.len() > 1 {
        let moves: Vec<String> = path[1..].iter().map(|&n| tree.action(n).into_owned()).collect();
        format!(", columns {}", moves.join(" "))
    } else {
        String::new()
    };
    format!("{} (move_sequence [{}]{columns})", ids.join(" "), indexes.join(", "))
}

/// The boards at the end of both paths, where the tree has boards.
fn path_boards(tree: &dyn GameTree, expected: &[NodeIndex], actual: &[NodeIndex]) -> Vec<Board> {
    let sides = [(expected, "the end of MIT's path"), (actual, "the end of your path")];
    sides
        .into_iter()
        .filter_map(|(path, whose)| {
            let end = *path.last()?;
            Some(Board { label: format!("{whose}, {}", tree.id(end)), text: tree.board(end)? })
        })
        .collect()
}

/// The rule functions MIT's Connect Four search tests build their game
/// from, and the tests of each.
const RULES: [(&str, &str); 3] = [
    ("is_game_over_connectfour", "tests 1-6"),
    ("next_boards_connectfour", "tests 7-12"),
    ("endgame_score_connectfour", "tests 13-15"),
];

/// The kit's claim that the student's rules disagree with the grader's at
/// an entered position, checked against the grader's tree: what the rule
/// function gives there, the function, its tests, and the position drawn.
/// `None` when the claim does not hold (it is then not told).
fn rules_claim(
    tree: &dyn GameTree,
    claim: &Value,
    visited: &[NodeIndex],
) -> Option<(String, &'static str, &'static str, Option<Board>)> {
    let function = claim["function"].as_str()?;
    let &(function, tests) = RULES.iter().find(|(name, _)| *name == function)?;
    let id = claim["node"].as_str()?;
    let node = *visited.iter().find(|&&n| tree.id(n) == id)?;
    let (connect_four, yours) = (&claim["connect_four"], &claim["yours"]);
    if connect_four == yours {
        return None;
    }
    let error = yours.get("error").and_then(Value::as_str);
    let terminal = tree.kind(node) == NodeKind::Terminal;
    let told = match function {
        "is_game_over_connectfour" => {
            if connect_four.as_bool()? != terminal {
                return None;
            }
            let state = if terminal { "is over" } else { "goes on" };
            match error {
                Some(error) => {
                    format!("your is_game_over_connectfour raised {error} on a position where the game {state}")
                }
                None => format!(
                    "your is_game_over_connectfour gives {} for a position where Connect Four's game {state}",
                    python(yours)
                ),
            }
        }
        "next_boards_connectfour" => {
            let boards = connect_four.as_array()?;
            let children = if terminal { 0 } else { tree.children(node).count() };
            if boards.len() != children {
                return None;
            }
            match (error, yours.as_array()) {
                (Some(error), _) => format!("your next_boards_connectfour raised {error} on this position"),
                (None, Some(mine)) if mine.len() != boards.len() => format!(
                    "your next_boards_connectfour gives {} for this position where Connect Four has {}",
                    counted(mine.len(), "board"),
                    boards.len()
                ),
                (None, Some(mine)) => {
                    let first = mine.iter().zip(boards).position(|(a, b)| a != b).unwrap_or(0);
                    format!(
                        "your next_boards_connectfour gives {} boards for this position, as Connect Four does, but \
                         board {} is not Connect Four's (one board per column that is not full, in increasing \
                         column order, the player to move's piece dropped in it)",
                        mine.len(),
                        first + 1
                    )
                }
                (None, None) => {
                    format!(
                        "your next_boards_connectfour gives {} for this position, not a list of boards",
                        python(yours)
                    )
                }
            }
        }
        _ => {
            if !terminal || connect_four.as_f64()? != tree.utility(node) {
                return None;
            }
            let flag = if claim["maximize"].as_bool()? { "True" } else { "False" };
            match error {
                Some(error) => format!(
                    "your endgame_score_connectfour raised {error} on this finished game \
                     (is_current_player_maximizer={flag})"
                ),
                None => format!(
                    "your endgame_score_connectfour gives {} for this finished game \
                     (is_current_player_maximizer={flag}) where Connect Four gives {}",
                    python(yours),
                    format_value(tree.utility(node))
                ),
            }
        }
    };
    // The root's board is drawn already, as the start position.
    let start = node == NodeIndex::ROOT && tree.board(node).is_some();
    let text = if start { None } else { tree.board(node).or_else(|| drawn(&claim["board"])) };
    let board = text.map(|text| Board { label: format!("the position, {id}"), text });
    Some((told, function, tests, board))
}

/// A JSON answer as Python writes it.
fn python(value: &Value) -> String {
    match value {
        Value::Bool(true) => "True".to_string(),
        Value::Bool(false) => "False".to_string(),
        Value::Null => "None".to_string(),
        Value::Number(n) => n.as_f64().map_or_else(|| n.to_string(), format_value),
        other => other.to_string(),
    }
}

/// The kit's board (rows of `.`, `x`, `o`, top first) as a grid, when it is one.
fn drawn(board: &Value) -> Option<String> {
    let rows: Vec<&str> = board.as_array()?.iter().map(Value::as_str).collect::<Option<_>>()?;
    let fits = |row: &&str| row.len() <= 16 && row.chars().all(|c| matches!(c, '.' | 'x' | 'o'));
    (!rows.is_empty() && rows.len() <= 16 && rows.iter().all(fits)).then(|| rows.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::SearchSettings;
    use crate::grader::plan::TestTree;
    use std::sync::Arc;

    /// A planned test of `text`, as the grader plans one.
    fn planned(text: &str, algorithm: Algorithm) -> PlannedTest {
        let tree = Arc::new(crate::load::load_tree_str(text.to_string(), std::path::Path::new("t.yaml")).unwrap().tree);
        let settings = SearchSettings::resolve(algorithm, tree.search_defaults(), None, Some(true));
        PlannedTest {
            question: 0,
            name: "q/31-minimax_search_alphabeta".into(),
            path: "t.yaml".into(),
            hidden: false,
            reference: crate::engine::search(&*tree, &settings).unwrap(),
            recording: Default::default(),
            settings,
            child_order: crate::assignment::ChildOrder::Given,
            tree: TestTree::Written(tree),
        }
    }

    const TIES: &str = "root: R\nnodes:\n  R: {max: [P, Q]}\n  P: {min: [3, 5]}\n  Q: {min: [3, 9]}\n";

    fn ids(tree: &Tree, nodes: &[NodeIndex]) -> Vec<String> {
        nodes.iter().map(|&n| tree.id(n).to_string()).collect()
    }

    use crate::tree::Tree;

    #[test]
    fn mits_path_keeps_the_first_best_child_and_alpha_beta_stops_on_equality() {
        // P and Q tie at 3: the first keeps the path; alpha-beta cuts Q after its first leaf.
        let test = planned(TIES, Algorithm::AlphaBeta);
        let tree = test.tree.written().unwrap();
        let (path, evaluated) = reference_answer(&test, tree).unwrap();
        assert_eq!(ids(tree, &path), ["R", "P", "P.1"]);
        assert_eq!(ids(tree, &evaluated), ["P.1", "P.2", "Q.1"]);
        assert_eq!(function_of(&test), "minimax_search_alphabeta");
    }

    #[test]
    fn the_count_decides_in_mits_mode_and_the_evaluations_in_the_strict_one() {
        let test = planned(TIES, Algorithm::AlphaBeta);
        let tree = test.tree.written().unwrap();
        let (path, evaluated) = reference_answer(&test, tree).unwrap();
        let report = MitReport {
            path: ids(tree, &path).into_iter().map(Some).collect(),
            returned: Value::from(3),
            rules: None,
            history: None,
            heuristic_on_terminal: Vec::new(),
        };
        // The right count, the wrong leaves: P.1, P.2 and Q.2.
        let q = tree.parent(evaluated[2]).unwrap();
        let wrong = [evaluated[0], evaluated[1], tree.children(q).nth(1).unwrap()];
        let recorded = |declared| Recorded { visited: &[], declared, declared_starts: &[] };
        let mit = judge(&test, tree, &report, recorded(&wrong), Verdict::Mit6034, (Some(3.0), Some(3.0)));
        assert!(mit.failures.is_empty(), "{:?}", mit.failures);
        assert!(mit.warnings[0].contains("at evaluation 3: the reference evaluates Q.1, you evaluated Q.2"));
        let strict = judge(&test, tree, &report, recorded(&wrong), Verdict::Strict, (Some(3.0), Some(3.0)));
        assert_eq!(strict.failures.len(), 1, "{:?}", strict.failures);
        let counted = MitReport { returned: Value::from(4), ..report };
        let mit = judge(&test, tree, &counted, recorded(&evaluated), Verdict::Mit6034, (Some(3.0), Some(3.0)));
        assert!(mit.failures[0].starts_with("number of static evaluations: MIT's test expects 3, you returned 4"));
    }

    /// Progressive deepening on a two-ply tree: depth 1 evaluates P and Q,
    /// depth 2 the four leaves less the one alpha-beta cuts.
    const DEEPENING: &str = "root: R\nnodes:\n  R: {max: [P, Q]}\n  P: {min: [3, 5], eval: 4}\n  \
                             Q: {min: [2, 9], eval: 6}\nsearch: {depth: 2, reorder_root: false, \
                             stop_when_complete: false}\n";

    fn history(entries: &[(&[&str], f64, u64)]) -> Option<Vec<Value>> {
        Some(
            entries
                .iter()
                .map(|(path, score, count)| serde_json::json!({"path": path, "score": score, "returned": count}))
                .collect(),
        )
    }

    #[test]
    fn progressive_deepening_is_judged_depth_by_depth_and_running_totals_are_named() {
        let test = planned(DEEPENING, Algorithm::IterativeDeepening);
        let tree = test.tree.written().unwrap();
        let expected = progressive_answers(&test, tree);
        let counts: Vec<usize> = expected.iter().map(|d| d.evaluated.len()).collect();
        let scores: Vec<f64> = expected.iter().map(|d| d.score).collect();
        // Depth 1: P 4, Q 6 (Q best); depth 2: P.1 3, P.2 5 then Q.1 2 cuts Q: 3.
        assert_eq!((scores, counts.clone()), (vec![6.0, 3.0], vec![2, 3]));
        let made: Vec<NodeIndex> = expected.iter().flat_map(|d| d.evaluated.clone()).collect();
        let starts = [0, 2];
        let report = |history| MitReport {
            path: Vec::new(),
            returned: Value::Null,
            rules: None,
            history,
            heuristic_on_terminal: Vec::new(),
        };
        let judged = |report: &MitReport| {
            let recorded = Recorded { visited: &[], declared: &made, declared_starts: &starts };
            judge(&test, tree, report, recorded, Verdict::Mit6034, (Some(3.0), Some(3.0)))
        };
        let right = judged(&report(history(&[(&["R", "Q"], 6.0, 2), (&["R", "P", "P.1"], 3.0, 3)])));
        assert!(right.failures.is_empty() && right.warnings.is_empty(), "{:?} {:?}", right.failures, right.warnings);
        let totals = judged(&report(history(&[(&["R", "Q"], 6.0, 2), (&["R", "P", "P.1"], 3.0, 5)])));
        assert_eq!(totals.failures.len(), 1, "{:?}", totals.failures);
        assert!(totals.failures[0].starts_with(
            "static evaluations by depth: MIT's test expects [2, 3], you returned [2, 5]: these are running totals"
        ));
        // A wrong count that is no running total is not named.
        let wrong = judged(&report(history(&[(&["R", "Q"], 6.0, 2), (&["R", "P", "P.1"], 3.0, 4)])));
        assert!(!wrong.failures[0].contains("running totals"), "{:?}", wrong.failures);
        let short = judged(&report(history(&[(&["R", "P", "P.1"], 3.0, 3)])));
        assert!(
            short.failures[0]
                .contains("one (path, score, evaluations) for each depth from 1 to 2, 2 in all; yours holds 1")
        );
        // In the order mode each depth's count is checked against what that depth made.
        let recorded = Recorded { visited: &[], declared: &made, declared_starts: &starts };
        let order = judge(
            &test,
            tree,
            &report(history(&[(&["R", "Q"], 6.0, 2), (&["R", "P", "P.1"], 3.0, 5)])),
            recorded,
            Verdict::Order,
            (None, None),
        );
        assert!(
            order.failures[0].starts_with(
                "progressive_deepening's answer at depth 2 counts 5 static evaluations, but that depth made 3"
            ),
            "{:?}",
            order.failures
        );
    }

    #[test]
    fn a_rule_claim_is_told_only_when_the_graders_tree_bears_it_out() {
        let test = planned(TIES, Algorithm::AlphaBeta);
        let tree = test.tree.written().unwrap();
        let root = [NodeIndex::ROOT];
        let claim = |connect_four: usize| {
            serde_json::json!({"function": "next_boards_connectfour", "node": "R",
                "connect_four": vec![Value::Null; connect_four], "yours": [null]})
        };
        let (told, function, tests, _) = rules_claim(tree, &claim(2), &root).unwrap();
        assert_eq!((function, tests), ("next_boards_connectfour", "tests 7-12"));
        assert_eq!(told, "your next_boards_connectfour gives 1 board for this position where Connect Four has 2");
        // R has two children, not three; and a node the search never entered is no evidence.
        assert!(rules_claim(tree, &claim(3), &root).is_none());
        assert!(rules_claim(tree, &claim(2), &[]).is_none());
    }
}
