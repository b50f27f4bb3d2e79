//! How sure a few games' figures are: 95% intervals for an average score
//! (Student's t) and for a rate of wins (Wilson's score interval).

/// Student's t at 97.5% for 1 to 30 degrees of freedom; 1.96 beyond.
const T_975: [f64; 30] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
    2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
];

/// z at 97.5%.
const Z_975: f64 = 1.96;

/// The mean of `values` and its 95% interval (none for fewer than two values).
pub fn mean_interval(values: &[f64]) -> (f64, Option<[f64; 2]>) {
    let n = values.len();
    if n == 0 {
        return (0.0, None);
    }
    let mean = values.iter().sum::<f64>() / n as f64;
    if n < 2 {
        return (mean, None);
    }
    let variance = values.iter().map(|value| (value - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    let t = T_975.get(n - 2).copied().unwrap_or(Z_975);
    let half = t * (variance / n as f64).sqrt();
    (mean, Some([mean - half, mean + half]))
}

/// Wilson's 95% interval for `successes` out of `trials` (a rate in 0..=1).
pub fn wilson_interval(successes: u32, trials: u32) -> Option<[f64; 2]> {
    if trials == 0 {
        return None;
    }
    let n = f64::from(trials);
    let rate = f64::from(successes) / n;
    let z2 = Z_975 * Z_975;
    let denominator = 1.0 + z2 / n;
    let centre = (rate + z2 / (2.0 * n)) / denominator;
    let half = Z_975 * (rate * (1.0 - rate) / n + z2 / (4.0 * n * n)).sqrt() / denominator;
    Some([(centre - half).max(0.0), (centre + half).min(1.0)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mean_interval_widens_with_spread() {
        let (mean, interval) = mean_interval(&[1000.0, 1200.0, 800.0, 1000.0]);
        let [low, high] = interval.unwrap();
        assert_eq!(mean, 1000.0);
        // sd = 163.3, t(3) = 3.182: half width 259.8.
        assert!((high - 1000.0 - 259.8).abs() < 0.1 && (1000.0 - low - 259.8).abs() < 0.1, "{low} {high}");
        assert_eq!(mean_interval(&[5.0]), (5.0, None));
    }

    #[test]
    fn wilson_stays_inside_zero_and_one() {
        let [low, high] = wilson_interval(10, 10).unwrap();
        assert!((low - 0.7225).abs() < 1e-3 && high == 1.0, "{low} {high}");
        let [low, high] = wilson_interval(5, 10).unwrap();
        assert!((low - 0.2366).abs() < 1e-3 && (high - 0.7634).abs() < 1e-3, "{low} {high}");
        assert_eq!(wilson_interval(0, 0), None);
    }
}
