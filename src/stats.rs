//! How sure a rate is: Wilson score intervals for a share of successes
//! (wins out of games played), in one place for every report that gives a
//! rate. Pure arithmetic on counts; points are never computed here.

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
}
