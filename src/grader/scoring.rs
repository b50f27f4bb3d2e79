//! Scoring: judged tests grouped by question, and points awarded as each
//! question's scoring says. Exact: points are never floats here.

use super::result::{QuestionResult, TestResult, TestStatus};
use crate::assignment::{Assignment, Scoring};
use crate::points::Points;

/// Groups graded tests by question and awards points: `graded` are the
/// tests of every stage, each with its question's index, in the order they
/// are reported (a question lists its searches first, then its games).
pub fn score(assignment: &Assignment, selected: &[usize], graded: Vec<(usize, TestResult)>) -> Vec<QuestionResult> {
    let mut questions: Vec<QuestionResult> = selected
        .iter()
        .map(|&index| {
            let question = &assignment.questions[index];
            QuestionResult {
                id: question.id.clone(),
                title: question.title.clone(),
                scoring: question.scoring,
                score: Points::ZERO,
                max_score: question.points,
                tests: Vec::new(),
            }
        })
        .collect();
    for (question, result) in graded {
        let slot = selected.iter().position(|&index| index == question).expect("tests come from selected questions");
        questions[slot].tests.push(result);
    }
    for question in &mut questions {
        award(question);
    }
    questions
}

/// Awards a question's points. Per test, each test carries an exact share
/// (largest remainder, so the shares add up to the question's points) and the
/// question earns the sum of its passed tests' shares. All or nothing, the
/// tests carry no points and the question earns everything or nothing.
fn award(question: &mut QuestionResult) {
    let passed = |test: &TestResult| test.header.status == TestStatus::Passed;
    match question.scoring {
        Scoring::PerTest => {
            let shares = question.max_score.share(question.tests.len());
            for (test, share) in question.tests.iter_mut().zip(shares) {
                test.header.max_score = share;
                test.header.score = match test.credit() {
                    Some(credit) => credit.of(share),
                    None if passed(test) => share,
                    None => Points::ZERO,
                };
            }
            question.score = question.tests.iter().map(|test| test.header.score).sum();
        }
        Scoring::AllOrNothing => {
            let all_passed = !question.tests.is_empty() && question.tests.iter().all(passed);
            question.score = if all_passed { question.max_score } else { Points::ZERO };
        }
        // Each play test carries the points its measures' thresholds earned.
        Scoring::Thresholds => question.score = question.tests.iter().map(|test| test.header.score).sum(),
    }
}

/// Total points of a run: earned and possible, each the exact sum of its questions'.
pub fn totals(questions: &[QuestionResult]) -> (Points, Points) {
    (questions.iter().map(|q| q.score).sum(), questions.iter().map(|q| q.max_score).sum())
}
