//! `summary.md`: what an instructor reads first after a batch.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::gradebook::{GradingStatus, StoredResult};
use crate::points::Points;

/// The summary of a batch: scores, statuses, questions, hardest tests.
pub fn summary_markdown(title: &str, question_ids: &[String], results: &[StoredResult]) -> String {
    let mut out = format!("# {title}: batch summary\n\n");
    if results.is_empty() {
        out.push_str("No submissions were graded.\n");
        return out;
    }
    scores(&mut out, results);
    statuses(&mut out, results);
    questions(&mut out, question_ids, results);
    hardest_tests(&mut out, results);
    handing_out(&mut out);
    out
}

/// Which folders may go to students, and which must stay with the instructor.
fn handing_out(out: &mut String) {
    out.push_str(
        "## Handing reports back\n\n\
         Safe to hand out: `reports/STUDENT/`, each student's own reports in every format (hidden tests \
         appear there by name, status and points only).\n\
         Instructor only: `instructor/STUDENT/` (the full reports, with hidden tests' expected answers and \
         traces) and `results/`. Never hand these out.\n",
    );
}

fn scores(out: &mut String, results: &[StoredResult]) {
    let mut percentages: Vec<f64> = results.iter().map(|r| 100.0 * r.score.fraction_of(r.max_score)).collect();
    percentages.sort_by(f64::total_cmp);
    let mean = percentages.iter().sum::<f64>() / percentages.len() as f64;
    let median = percentages[percentages.len() / 2];
    let _ = writeln!(out, "{} submissions; mean {mean:.1}%, median {median:.1}%.\n", results.len());
    let _ = writeln!(out, "## Scores\n\n| score | students | |\n|---|---:|---|");
    let mut buckets = [0usize; 11];
    for p in &percentages {
        buckets[(p / 10.0).floor().clamp(0.0, 10.0) as usize] += 1;
    }
    let widest = buckets.iter().copied().max().unwrap_or(1).max(1);
    for (bucket, &count) in buckets.iter().enumerate().rev() {
        let label = if bucket == 10 { "100%".to_string() } else { format!("{}-{}%", bucket * 10, bucket * 10 + 9) };
        let bar = "█".repeat((count * 30).div_ceil(widest));
        let _ = writeln!(out, "| {label} | {count} | {bar} |");
    }
    out.push('\n');
}

fn statuses(out: &mut String, results: &[StoredResult]) {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for result in results {
        *counts.entry(result.status.name()).or_default() += 1;
    }
    let _ = writeln!(out, "## Grading status\n\n| status | students |\n|---|---:|");
    for (status, count) in counts {
        let _ = writeln!(out, "| {status} | {count} |");
    }
    let problems: Vec<&StoredResult> = results.iter().filter(|r| r.status != GradingStatus::Ok).collect();
    if !problems.is_empty() {
        out.push('\n');
        for result in problems.iter().take(20) {
            let message = result.message.as_deref().unwrap_or("").lines().next().unwrap_or("");
            let _ = writeln!(out, "- `{}` ({}): {}", result.student, result.status.name(), message);
        }
    }
    out.push('\n');
}

fn questions(out: &mut String, question_ids: &[String], results: &[StoredResult]) {
    let _ = writeln!(out, "## Questions\n\n| question | full marks | mean score |\n|---|---:|---:|");
    for id in question_ids {
        let scores: Vec<(Points, Points)> = results
            .iter()
            .filter_map(|r| r.questions.iter().find(|q| &q.id == id))
            .map(|q| (q.score, q.max_score))
            .collect();
        let full = scores.iter().filter(|(score, max)| score >= max).count();
        let mean = scores.iter().map(|(score, _)| score.as_f64()).sum::<f64>() / scores.len().max(1) as f64;
        let max = scores.first().map_or(Points::ZERO, |(_, max)| *max);
        let _ =
            writeln!(out, "| {id} | {full}/{} ({:.0}%) | {mean:.2}/{max} |", scores.len(), percent(full, scores.len()));
    }
    out.push('\n');
}

fn hardest_tests(out: &mut String, results: &[StoredResult]) {
    let mut failures: BTreeMap<&str, (usize, BTreeMap<&str, usize>)> = BTreeMap::new();
    for test in results.iter().flat_map(|r| &r.failed_tests) {
        let entry = failures.entry(&test.name).or_default();
        entry.0 += 1;
        if let Some(diagnosis) = &test.diagnosis {
            *entry.1.entry(diagnosis).or_default() += 1;
        }
    }
    let mut ranked: Vec<_> = failures.into_iter().collect();
    ranked.sort_by(|a, b| b.1.0.cmp(&a.1.0).then(a.0.cmp(b.0)));
    let _ =
        writeln!(out, "## Tests most students fail\n\n| test | failed by | most common diagnosis |\n|---|---:|---|");
    for (name, (count, diagnoses)) in ranked.into_iter().take(10) {
        let common =
            diagnoses.iter().max_by_key(|(_, n)| **n).map_or("-".to_string(), |(bug, n)| format!("{bug} ({n})"));
        let _ = writeln!(out, "| {name} | {count} ({:.0}%) | {common} |", percent(count, results.len()));
    }
}

fn percent(part: usize, whole: usize) -> f64 {
    if whole == 0 { 0.0 } else { 100.0 * part as f64 / whole as f64 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::gradebook::{FailedTest, QuestionScore};

    fn result(student: &str, score: f64, failed: &[(&str, Option<&str>)]) -> StoredResult {
        let score = Points::from_decimal(score).unwrap();
        let ten = Points::whole(10);
        StoredResult {
            student: student.into(),
            fingerprint: String::new(),
            status: GradingStatus::Ok,
            score,
            max_score: ten,
            questions: vec![QuestionScore { id: "q1".into(), score, max_score: ten }],
            passed_tests: 0,
            failed_tests: failed
                .iter()
                .map(|(name, bug)| FailedTest { name: name.to_string(), diagnosis: bug.map(str::to_string) })
                .collect(),
            wall_time_ms: 0,
            message: None,
        }
    }

    #[test]
    fn summarises_scores_questions_and_hard_tests() {
        let results = [
            result("a", 10.0, &[]),
            result("b", 5.0, &[("q1/aima", Some("no-pruning")), ("q1/ties", None)]),
            result("c", 0.0, &[("q1/aima", Some("no-pruning"))]),
        ];
        let text = summary_markdown("T", &["q1".into()], &results);
        assert!(text.contains("3 submissions; mean 50.0%, median 50.0%."), "{text}");
        assert!(text.contains("| 100% | 1 |"), "{text}");
        assert!(text.contains("| q1 | 1/3 (33%) | 5.00/10 |"), "{text}");
        assert!(text.contains("| q1/aima | 2 (67%) | no-pruning (2) |"), "{text}");
        assert!(text.find("q1/aima").unwrap() < text.find("q1/ties").unwrap());
    }
}
