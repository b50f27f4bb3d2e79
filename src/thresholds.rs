//! Points by thresholds, as CS188 scores its game-playing tests: a measure
//! (wins, average score, games without a timeout, ...) earns one share of
//! the points for each threshold it reaches, and a measure below its
//! minimum gives nothing at all. Plain data and exact points; what is
//! measured is the caller's business.

use serde::Serialize;

use crate::points::Points;

/// How one measure is scored: the thresholds it earns a share at, and the
/// minimum below which the whole award is 0.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Thresholds {
    /// Below this, nothing is earned at all (`None`: no minimum).
    pub minimum: Option<f64>,
    /// Each one reached (the measure at or above it) earns a share, in any order.
    pub at: Vec<f64>,
}

impl Thresholds {
    /// How many thresholds `value` reaches.
    pub fn reached(&self, value: f64) -> usize {
        self.at.iter().filter(|&&threshold| value >= threshold).count()
    }

    /// Whether `value` is below the minimum.
    pub fn misses_minimum(&self, value: f64) -> bool {
        self.minimum.is_some_and(|minimum| value < minimum)
    }
}

/// What one measure earned.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MeasureAward {
    /// The measured value.
    pub value: f64,
    /// How many of its thresholds it reached.
    pub reached: usize,
    /// How many it has.
    pub of: usize,
    /// Whether it is below its minimum.
    pub missed_minimum: bool,
    /// Points earned by this measure (0 when any measure missed its minimum).
    pub score: Points,
    /// Points its thresholds are worth.
    pub max_score: Points,
}

/// Awards `points` to measures scored by thresholds: each threshold of every
/// measure is worth an equal share (largest remainder, so the shares add up
/// exactly); a measure earns the shares of the thresholds it reaches; any
/// measure below its minimum makes every score 0. With no threshold at all,
/// the points go whole to meeting every minimum.
pub fn award(points: Points, measures: &[(&Thresholds, f64)]) -> Vec<MeasureAward> {
    let total: usize = measures.iter().map(|(thresholds, _)| thresholds.at.len()).sum();
    let any_missed = measures.iter().any(|(thresholds, value)| thresholds.misses_minimum(*value));
    let mut shares = points.share(total.max(1)).into_iter();
    let mut awards: Vec<MeasureAward> = measures
        .iter()
        .map(|(thresholds, value)| {
            let mine: Vec<Points> = shares.by_ref().take(thresholds.at.len()).collect();
            let reached = thresholds.reached(*value);
            // The measure's shares in order: which ones are "reached" does not
            // matter, as shares differ by a millionth at most.
            let earned: Points = mine.iter().take(reached).sum();
            MeasureAward {
                value: *value,
                reached,
                of: thresholds.at.len(),
                missed_minimum: thresholds.misses_minimum(*value),
                score: if any_missed { Points::ZERO } else { earned },
                max_score: mine.iter().sum(),
            }
        })
        .collect();
    if total == 0
        && let Some(first) = awards.first_mut()
    {
        first.max_score = points;
        first.score = if any_missed { Points::ZERO } else { points };
    }
    awards
}

/// The total of an award.
pub fn total(awards: &[MeasureAward]) -> Points {
    awards.iter().map(|award| award.score).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn thresholds(minimum: Option<f64>, at: &[f64]) -> Thresholds {
        Thresholds { minimum, at: at.to_vec() }
    }

    /// CS188's q1: 4 points, average score thresholds 500 and 1000, wins 5
    /// and 10, at least one win and no timeout in all 10 games.
    #[test]
    fn scores_cs188s_reflex_question() {
        let score = thresholds(None, &[500.0, 1000.0]);
        let wins = thresholds(Some(1.0), &[5.0, 10.0]);
        let clean = thresholds(Some(10.0), &[]);
        let awards = award(Points::whole(4), &[(&score, 1200.0), (&wins, 7.0), (&clean, 10.0)]);
        assert_eq!(total(&awards), Points::whole(3));
        assert_eq!((awards[0].reached, awards[1].reached), (2, 1));
        let timed_out = award(Points::whole(4), &[(&score, 1200.0), (&wins, 7.0), (&clean, 9.0)]);
        assert_eq!(total(&timed_out), Points::ZERO, "a minimum missed gives 0");
        assert!(timed_out[2].missed_minimum && !timed_out[0].missed_minimum);
        assert_eq!(timed_out[0].max_score, Points::whole(2));
    }

    #[test]
    fn shares_are_exact_and_minimums_alone_are_all_or_nothing() {
        let three = thresholds(None, &[1.0, 2.0, 3.0]);
        let awards = award(Points::whole(1), &[(&three, 3.0)]);
        assert_eq!(total(&awards), Points::whole(1));
        let only = thresholds(Some(20.0), &[]);
        assert_eq!(total(&award(Points::whole(2), &[(&only, 20.0)])), Points::whole(2));
        assert_eq!(total(&award(Points::whole(2), &[(&only, 19.0)])), Points::ZERO);
    }
}
