//! How sure a result is: Wilson score intervals for a share of successes
//! (wins out of games played), and Bradley-Terry ratings with confidence
//! intervals for players who met in games, in one place for every report
//! that gives them. Pure arithmetic on counts; points are never computed
//! here.

use serde::{Deserialize, Serialize};

/// The normal quantile of a two-sided 95% interval.
pub const Z_95: f64 = 1.959_963_984_540_054;

/// A rate with its confidence interval, all as fractions in `[0, 1]`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rate {
    /// Successes.
    pub successes: u64,
    /// Trials.
    pub trials: u64,
    /// `successes / trials` (0 when there were no trials).
    pub rate: f64,
    /// The interval's lower end.
    pub low: f64,
    /// The interval's upper end.
    pub high: f64,
}

impl Rate {
    /// `successes` out of `trials` with its 95% Wilson interval.
    pub fn wilson(successes: u64, trials: u64) -> Rate {
        let (low, high) = wilson_interval(successes, trials, Z_95);
        let rate = if trials == 0 { 0.0 } else { successes as f64 / trials as f64 };
        Rate { successes, trials, rate, low, high }
    }

    /// `80% (95% CI 56-94%)`: the rate and its interval in whole percents.
    pub fn percent_text(&self) -> String {
        if self.trials == 0 {
            return "no games".to_string();
        }
        format!("{} (95% CI {}-{}%)", percent(self.rate), percent_number(self.low), percent_number(self.high))
    }

    /// `80%, 95% CI 56-94%`: the same, for inside parentheses.
    pub fn interval_text(&self) -> String {
        if self.trials == 0 {
            return "no games".to_string();
        }
        format!("{}, 95% CI {}-{}%", percent(self.rate), percent_number(self.low), percent_number(self.high))
    }
}

/// `80%`.
pub fn percent(fraction: f64) -> String {
    format!("{}%", percent_number(fraction))
}

fn percent_number(fraction: f64) -> String {
    format!("{:.0}", (fraction * 100.0).clamp(0.0, 100.0))
}

/// The Wilson score interval of `successes` out of `trials` at normal
/// quantile `z`: `[0, 1]` when there were no trials. Unlike the normal
/// approximation it stays inside `[0, 1]` and is not degenerate at 0 or
/// all successes (20 wins of 20 is not a certainty).
pub fn wilson_interval(successes: u64, trials: u64, z: f64) -> (f64, f64) {
    if trials == 0 {
        return (0.0, 1.0);
    }
    let n = trials as f64;
    let p = successes.min(trials) as f64 / n;
    let z2 = z * z;
    let denominator = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denominator;
    let half = z / denominator * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// One player's Bradley-Terry rating on the Elo scale, with its 95%
/// comparison interval: two players whose intervals do not overlap differ
/// at about the 5% level.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rating {
    /// The estimate: the field's average is 1500, and 400 points are a
    /// factor of 10 in the odds of winning.
    pub rating: f64,
    /// The interval's lower end.
    pub low: f64,
    /// The interval's upper end.
    pub high: f64,
}

/// A game's result between two players, by their numbers: the score of the
/// first (1 a win, 0.5 a draw, 0 a loss).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Meeting {
    /// The first player.
    pub first: usize,
    /// The second player.
    pub second: usize,
    /// The first player's score.
    pub score: f64,
}

/// The rating of the field's average player.
pub const MEAN_RATING: f64 = 1500.0;

/// Elo points per natural-log unit of strength (400 per factor of 10 in the odds).
const ELO_PER_LOG: f64 = 400.0 / std::f64::consts::LN_10;

/// Bradley-Terry ratings of `players` players from their `meetings`, with
/// 95% comparison intervals from the fit's Fisher information.
///
/// Player i beats player j with probability `g_i / (g_i + g_j)`; a draw
/// counts half a win to each. Every player also meets a virtual opponent of
/// strength 1 in two games worth one win: a weak prior that keeps a player
/// who won (or lost) everything at a finite rating. Ratings are given
/// relative to the field's average, 1500. The fit is Hunter's (2004) minorisation-maximisation,
/// iterated in a fixed order to convergence, so the same meetings give the
/// same ratings on every machine.
pub fn bradley_terry(players: usize, meetings: &[Meeting]) -> Vec<Rating> {
    if players == 0 {
        return Vec::new();
    }
    // games[i][j]: games between i and j; scores[i]: i's total score, the prior's included.
    let mut games = vec![vec![0.0f64; players]; players];
    let mut scores = vec![PRIOR_SCORE; players];
    for meeting in meetings.iter().filter(|m| m.first != m.second && m.first < players && m.second < players) {
        games[meeting.first][meeting.second] += 1.0;
        games[meeting.second][meeting.first] += 1.0;
        scores[meeting.first] += meeting.score;
        scores[meeting.second] += 1.0 - meeting.score;
    }
    let mut strength = vec![1.0f64; players];
    for _ in 0..MAX_ITERATIONS {
        let mut largest_change = 0.0f64;
        for i in 0..players {
            let mut denominator = PRIOR_GAMES / (strength[i] + 1.0);
            for j in 0..players {
                if games[i][j] > 0.0 {
                    denominator += games[i][j] / (strength[i] + strength[j]);
                }
            }
            let updated = scores[i] / denominator;
            largest_change = largest_change.max((updated.ln() - strength[i].ln()).abs());
            strength[i] = updated;
        }
        if largest_change < 1e-12 {
            break;
        }
    }
    // Ratings relative to the field (its mean log-strength is 1500), each
    // with a comparison interval from quasi-variances: one variance per
    // player whose sums approach the variances of every difference, so that
    // two players whose intervals do not overlap differ at about the 5%
    // level, which is what a table of standings is read for.
    let covariance = invert(&fisher_information(&games, &strength));
    let logs: Vec<f64> = strength.iter().map(|s| s.ln()).collect();
    let mean = logs.iter().sum::<f64>() / players as f64;
    let quasi = quasi_variances(&covariance);
    (0..players)
        .map(|i| {
            let centre = MEAN_RATING + ELO_PER_LOG * (logs[i] - mean);
            let half = Z_95 * quasi[i].sqrt() * ELO_PER_LOG;
            Rating { rating: centre, low: centre - half, high: centre + half }
        })
        .collect()
}

/// Quasi-variances (Firth and de Menezes, 2004): the q_i for which
/// q_i + q_j is nearest the variance d_ij of the difference of players i
/// and j, over every pair, in relative terms (least squares on
/// (q_i + q_j - d_ij) / d_ij, so that a player known only roughly does not
/// widen everyone's interval). The normal equations are solved directly.
/// One player alone keeps its own variance; two share their difference's.
fn quasi_variances(covariance: &[Vec<f64>]) -> Vec<f64> {
    let n = covariance.len();
    let difference = |i: usize, j: usize| (covariance[i][i] + covariance[j][j] - 2.0 * covariance[i][j]).max(1e-300);
    match n {
        0 => Vec::new(),
        1 => vec![covariance[0][0].max(0.0)],
        2 => vec![difference(0, 1) / 2.0; 2],
        _ => {
            // For each k: sum over j of w_kj (q_k + q_j - d_kj) = 0, w_kj = 1 / d_kj^2.
            let mut system = vec![vec![0.0; n]; n];
            let mut right = vec![0.0; n];
            for k in 0..n {
                for j in (0..n).filter(|&j| j != k) {
                    let d = difference(k, j);
                    let weight = 1.0 / (d * d);
                    system[k][k] += weight;
                    system[k][j] += weight;
                    right[k] += weight * d;
                }
            }
            let inverse = invert(&system);
            (0..n)
                .map(|k| {
                    let q: f64 = (0..n).map(|j| inverse[k][j] * right[j]).sum();
                    // A negative solution (a player far better known than all
                    // others) keeps a quarter of its smallest difference's variance.
                    let floor =
                        (0..n).filter(|&j| j != k).map(|j| difference(k, j)).fold(f64::INFINITY, f64::min) / 4.0;
                    q.max(floor)
                })
                .collect()
        }
    }
}

/// Games each player plays against the prior's virtual opponent, and the score it gets there.
const PRIOR_GAMES: f64 = 2.0;
const PRIOR_SCORE: f64 = 1.0;

/// The most rounds of the fit (it converges in far fewer for any real tournament).
const MAX_ITERATIONS: usize = 100_000;

/// The Fisher information of the log-strengths at `strength`, the prior's
/// virtual opponent held fixed (which makes it invertible).
fn fisher_information(games: &[Vec<f64>], strength: &[f64]) -> Vec<Vec<f64>> {
    let players = strength.len();
    let mut information = vec![vec![0.0; players]; players];
    for i in 0..players {
        let against_prior = strength[i] / (strength[i] + 1.0);
        information[i][i] += PRIOR_GAMES * against_prior * (1.0 - against_prior);
        for j in 0..players {
            if i != j && games[i][j] > 0.0 {
                let p = strength[i] / (strength[i] + strength[j]);
                let weight = games[i][j] * p * (1.0 - p);
                information[i][i] += weight;
                information[i][j] -= weight;
            }
        }
    }
    information
}

/// The inverse of a symmetric positive definite matrix, by Gauss-Jordan
/// elimination with partial pivoting.
fn invert(matrix: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let n = matrix.len();
    let mut left: Vec<Vec<f64>> = matrix.to_vec();
    let mut right: Vec<Vec<f64>> = (0..n).map(|i| (0..n).map(|j| f64::from(u8::from(i == j))).collect()).collect();
    for column in 0..n {
        let pivot = (column..n)
            .max_by(|&a, &b| left[a][column].abs().total_cmp(&left[b][column].abs()))
            .expect("a column has rows");
        left.swap(column, pivot);
        right.swap(column, pivot);
        let divisor = left[column][column];
        if divisor == 0.0 {
            continue;
        }
        for k in 0..n {
            left[column][k] /= divisor;
            right[column][k] /= divisor;
        }
        for row in 0..n {
            if row != column && left[row][column] != 0.0 {
                let factor = left[row][column];
                for k in 0..n {
                    left[row][k] -= factor * left[column][k];
                    right[row][k] -= factor * right[column][k];
                }
            }
        }
    }
    right
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 5e-5
    }

    /// Values from Wilson (1927) as tabulated by Newcombe (1998), method 3.
    #[test]
    fn matches_published_intervals() {
        let (low, high) = wilson_interval(81, 263, Z_95);
        assert!(close(low, 0.2553) && close(high, 0.3662), "{low} {high}");
        let (low, high) = wilson_interval(15, 148, Z_95);
        assert!(close(low, 0.0624) && close(high, 0.1605), "{low} {high}");
        let (low, high) = wilson_interval(0, 20, Z_95);
        assert!(close(low, 0.0) && close(high, 0.1611), "{low} {high}");
        let (low, high) = wilson_interval(1, 29, Z_95);
        assert!(close(low, 0.0061) && close(high, 0.1718), "{low} {high}");
    }

    #[test]
    fn all_successes_is_not_certain_and_no_trials_says_nothing() {
        let all = Rate::wilson(20, 20);
        assert_eq!(all.rate, 1.0);
        assert!(all.low < 0.9 && all.high == 1.0, "{all:?}");
        assert_eq!(Rate::wilson(0, 0).low, 0.0);
        assert_eq!(Rate::wilson(0, 0).high, 1.0);
        assert_eq!(Rate::wilson(0, 0).percent_text(), "no games");
        assert_eq!(Rate::wilson(16, 20).percent_text(), "80% (95% CI 58-92%)");
        assert_eq!(Rate::wilson(16, 20).interval_text(), "80%, 95% CI 58-92%");
    }

    #[test]
    fn bradley_terry_orders_players_by_results_and_is_sure_with_more_games() {
        // 0 beats 1 three times in four, 1 beats 2 three times in four.
        let mut meetings = Vec::new();
        for game in 0..40 {
            meetings.push(Meeting { first: 0, second: 1, score: if game % 4 == 0 { 0.0 } else { 1.0 } });
            meetings.push(Meeting { first: 1, second: 2, score: if game % 4 == 0 { 0.0 } else { 1.0 } });
        }
        let ratings = bradley_terry(3, &meetings);
        assert!(ratings[0].rating > ratings[1].rating && ratings[1].rating > ratings[2].rating, "{ratings:?}");
        assert!(ratings[0].low > ratings[1].high && ratings[1].low > ratings[2].high, "separated: {ratings:?}");
        // Three to one in the odds is about 191 Elo points; the prior pulls a little towards 1500.
        let gap = ratings[0].rating - ratings[1].rating;
        assert!((150.0..200.0).contains(&gap), "{gap}");
        let few = bradley_terry(3, &meetings[..8]);
        assert!(few[0].high - few[0].low > ratings[0].high - ratings[0].low, "fewer games, wider intervals");
        assert_eq!(bradley_terry(3, &meetings), ratings, "the same meetings, the same ratings");
    }

    /// Quasi-variances reproduce the variances of differences when they are additive.
    #[test]
    fn quasi_variances_add_up_to_the_differences() {
        // Independent estimates with variances 1, 2, 3: differences 3, 4, 5.
        let covariance = vec![vec![1.0, 0.0, 0.0], vec![0.0, 2.0, 0.0], vec![0.0, 0.0, 3.0]];
        let quasi = quasi_variances(&covariance);
        for (value, expected) in quasi.iter().zip([1.0, 2.0, 3.0]) {
            assert!((value - expected).abs() < 1e-12, "{quasi:?}");
        }
        assert_eq!(quasi_variances(&[vec![2.0, 1.0], vec![1.0, 4.0]]), vec![2.0, 2.0]);
    }

    #[test]
    fn a_player_who_always_wins_stays_finite_and_a_draw_is_half() {
        let meetings: Vec<Meeting> = (0..10).map(|_| Meeting { first: 0, second: 1, score: 1.0 }).collect();
        let ratings = bradley_terry(2, &meetings);
        assert!(ratings[0].rating.is_finite() && ratings[0].high.is_finite());
        assert!(ratings[0].rating > ratings[1].rating);
        let draws: Vec<Meeting> = (0..10).map(|_| Meeting { first: 0, second: 1, score: 0.5 }).collect();
        let even = bradley_terry(2, &draws);
        assert!((even[0].rating - even[1].rating).abs() < 1e-6, "{even:?}");
        assert!((even[0].rating - MEAN_RATING).abs() < 1e-6);
        assert!(bradley_terry(0, &[]).is_empty());
    }
}
