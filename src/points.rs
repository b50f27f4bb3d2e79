//! Exact points.
//!
//! A grade must add up to the last digit in every place a course reads it,
//! so points are never floats while they are computed: a [`Points`] is a
//! whole number of millionths of a point. A question's points are shared
//! among its tests by the largest-remainder method ([`Points::share`]), so
//! the shares add up to the question's points exactly; totals are sums of
//! such exact parts, and nothing can exceed its maximum. Reports print them
//! as short decimals (`0.416667`, `5`, `2.5`), which every JSON reader turns
//! into the nearest double of that same decimal.

use std::fmt;
use std::iter::Sum;
use std::ops::Add;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Millionths of a point in one point.
const MICROS_PER_POINT: u64 = 1_000_000;

/// The largest number of points an assignment may give (far above any course's).
const MAX_POINTS: f64 = 1e9;

/// An exact number of points: a whole number of millionths of a point.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Points(u64);

impl Points {
    /// No points.
    pub const ZERO: Points = Points(0);

    /// `micros` millionths of a point.
    pub const fn from_micros(micros: u64) -> Points {
        Points(micros)
    }

    /// A whole number of points.
    pub const fn whole(points: u64) -> Points {
        Points(points * MICROS_PER_POINT)
    }

    /// The number of millionths of a point.
    pub const fn micros(self) -> u64 {
        self.0
    }

    /// Points written as a decimal number (in `assignment.yaml`, or a stored
    /// result), if it is finite, not negative, not absurdly large, and a whole
    /// number of millionths (`0.0000001` is not).
    pub fn from_decimal(value: f64) -> Option<Points> {
        if !(value.is_finite() && (0.0..=MAX_POINTS).contains(&value)) {
            return None;
        }
        let micros = (value * MICROS_PER_POINT as f64).round();
        let exact = (micros / MICROS_PER_POINT as f64 - value).abs() <= 1e-9 * value.max(1.0);
        exact.then_some(Points(micros as u64))
    }

    /// The nearest double, for formats that carry numbers (JSON, XML).
    pub fn as_f64(self) -> f64 {
        // Whole points and millionths are each exact in a double, and the
        // division is correctly rounded: the result is the double nearest to
        // the decimal that `Display` prints.
        let whole = (self.0 / MICROS_PER_POINT) as f64;
        let fraction = (self.0 % MICROS_PER_POINT) as f64 / MICROS_PER_POINT as f64;
        whole + fraction
    }

    /// These points shared among `parts` as evenly as exact millionths allow:
    /// the shares add up to `self` exactly, differ by at most a millionth,
    /// and the larger ones come first (largest-remainder method). No parts:
    /// an empty list.
    pub fn share(self, parts: usize) -> Vec<Points> {
        if parts == 0 {
            return Vec::new();
        }
        let count = parts as u64;
        let (base, remainder) = (self.0 / count, self.0 % count);
        (0..count).map(|index| Points(base + u64::from(index < remainder))).collect()
    }

    /// The fraction `self / total` in 0..=1 (0 when `total` is zero).
    pub fn fraction_of(self, total: Points) -> f64 {
        if total.0 == 0 { 0.0 } else { self.0 as f64 / total.0 as f64 }
    }
}

impl Add for Points {
    type Output = Points;

    fn add(self, other: Points) -> Points {
        Points(self.0.saturating_add(other.0))
    }
}

impl Sum for Points {
    fn sum<I: Iterator<Item = Points>>(parts: I) -> Points {
        parts.fold(Points::ZERO, Add::add)
    }
}

impl<'a> Sum<&'a Points> for Points {
    fn sum<I: Iterator<Item = &'a Points>>(parts: I) -> Points {
        parts.copied().sum()
    }
}

impl fmt::Display for Points {
    /// The shortest exact decimal: `5`, `2.5`, `0.416667`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (whole, fraction) = (self.0 / MICROS_PER_POINT, self.0 % MICROS_PER_POINT);
        if fraction == 0 {
            return write!(f, "{whole}");
        }
        let digits = format!("{fraction:06}");
        write!(f, "{whole}.{}", digits.trim_end_matches('0'))
    }
}

impl Serialize for Points {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_f64(self.as_f64())
    }
}

impl<'de> Deserialize<'de> for Points {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Points, D::Error> {
        let value = f64::deserialize(deserializer)?;
        Points::from_decimal(value).ok_or_else(|| {
            serde::de::Error::custom(format!("{value} is not a number of points (>= 0, in millionths at most)"))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_add_up_exactly_and_differ_by_at_most_a_millionth() {
        let five = Points::whole(5);
        let shares = five.share(12);
        assert_eq!(shares.iter().sum::<Points>(), five);
        assert_eq!(shares[0], Points::from_micros(416_667));
        assert_eq!(shares[11], Points::from_micros(416_666));
        assert_eq!(shares.iter().filter(|share| share.micros() == 416_667).count(), 8);
        for parts in 1..50 {
            let shares = Points::from_micros(1_234_567).share(parts);
            assert_eq!(shares.iter().sum::<Points>(), Points::from_micros(1_234_567), "{parts} parts");
            assert!(shares.windows(2).all(|pair| pair[0] >= pair[1] && pair[0].micros() - pair[1].micros() <= 1));
        }
        assert!(five.share(0).is_empty());
    }

    #[test]
    fn printed_as_the_shortest_exact_decimal() {
        assert_eq!(Points::whole(20).to_string(), "20");
        assert_eq!(Points::from_micros(2_500_000).to_string(), "2.5");
        assert_eq!(Points::from_micros(416_667).to_string(), "0.416667");
        assert_eq!(Points::from_micros(1).to_string(), "0.000001");
        assert_eq!(Points::ZERO.to_string(), "0");
    }

    #[test]
    fn json_numbers_are_the_printed_decimals() {
        let share = Points::from_micros(416_667);
        assert_eq!(serde_json::to_string(&share).unwrap(), "0.416667");
        assert_eq!(serde_json::to_string(&Points::whole(40)).unwrap(), "40.0");
        let back: Points = serde_json::from_str("14.583333").unwrap();
        assert_eq!(back, Points::from_micros(14_583_333));
    }

    #[test]
    fn decimals_must_be_whole_millionths_and_not_negative() {
        assert_eq!(Points::from_decimal(5.0), Some(Points::whole(5)));
        assert_eq!(Points::from_decimal(0.1), Some(Points::from_micros(100_000)));
        assert_eq!(Points::from_decimal(0.000_000_1), None);
        assert_eq!(Points::from_decimal(-1.0), None);
        assert_eq!(Points::from_decimal(f64::NAN), None);
        assert_eq!(Points::from_decimal(f64::INFINITY), None);
        assert!(serde_json::from_str::<Points>("-2").is_err());
    }

    #[test]
    fn forty_points_of_eight_tests_each_add_up_to_forty() {
        // A perfect run of a 40-point assignment once printed 40.000000000000014.
        let questions: Vec<Points> = (0..8).map(|_| Points::whole(5).share(3).into_iter().sum()).collect();
        let total: Points = questions.iter().sum();
        assert_eq!(total, Points::whole(40));
        assert_eq!(total.as_f64(), 40.0);
    }
}
