//! SplitMix64: the random numbers of docs/format.md 8.4, the same on every
//! machine. MCTS draws from it, the grader serves its draws to a student's
//! program one at a time, and generated positions are picked with it.

/// A SplitMix64 stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// The stream seeded with `seed`.
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    /// A stream of its own for each list of `labels` under one `seed` (a
    /// game's number, a side, a purpose): the same labels give the same
    /// stream, and streams with different labels do not overlap in practice.
    /// Play's openings, chance moves and random agents draw from these.
    pub fn derived(seed: u64, labels: &[u64]) -> SplitMix64 {
        let mut mixed = SplitMix64::new(seed).next_u64();
        for &label in labels {
            mixed = SplitMix64::new(mixed ^ label.wrapping_mul(0x9E37_79B9_7F4A_7C15)).next_u64();
        }
        SplitMix64::new(mixed)
    }

    /// The next 64 bits (all arithmetic modulo 2^64).
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// The next draw, in [0, 1): the top 53 bits of the next 64, times 2^-53.
    pub fn draw(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

/// Child number `floor(r * n)` of `n` children for the draw `r` (counted
/// from 0), as a rollout moves at a max or min node (8.4).
pub fn uniform_pick(r: f64, n: u32) -> u32 {
    // r < 1, so r * n < n; the `min` only guards against a caller's r of 1.
    ((r * f64::from(n)) as u32).min(n.saturating_sub(1))
}

/// The child a chance node gives for the draw `r` (8.4): the first j with
/// r < p_1 + ... + p_j, accumulated in child order, else the last.
pub fn chance_pick(r: f64, probabilities: impl IntoIterator<Item = f64>) -> u32 {
    let mut cumulative = 0.0;
    let mut last = 0;
    for (j, p) in probabilities.into_iter().enumerate() {
        cumulative += p;
        last = j as u32;
        if r < cumulative {
            return j as u32;
        }
    }
    last
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_zero_gives_the_draws_of_the_format() {
        let mut random = SplitMix64::new(0);
        assert_eq!(random.draw(), 0.8833108082136426);
        assert_eq!(random.draw(), 0.43152799704850997);
        assert_eq!(random.draw(), 0.026433771592597743);
    }

    #[test]
    fn the_largest_seed_wraps_around() {
        let mut random = SplitMix64::new(u64::MAX);
        let draw = random.draw();
        assert!((0.0..1.0).contains(&draw));
        assert_ne!(SplitMix64::new(u64::MAX), SplitMix64::new(0));
    }

    /// The published first outputs of SplitMix64 from seed 1234567.
    #[test]
    fn matches_the_reference_outputs() {
        let mut random = SplitMix64::new(1_234_567);
        let first: Vec<u64> = (0..3).map(|_| random.next_u64()).collect();
        assert_eq!(first, [6_457_827_717_110_365_317, 3_203_168_211_198_807_973, 9_817_491_932_198_370_423]);
    }

    #[test]
    fn derived_streams_differ_by_label_and_repeat_by_seed() {
        let a = SplitMix64::derived(3, &[1, 2]).next_u64();
        assert_eq!(a, SplitMix64::derived(3, &[1, 2]).next_u64());
        assert_ne!(a, SplitMix64::derived(3, &[2, 1]).next_u64());
        assert_ne!(a, SplitMix64::derived(4, &[1, 2]).next_u64());
        assert_ne!(SplitMix64::derived(3, &[]).next_u64(), SplitMix64::derived(3, &[0]).next_u64());
    }

    #[test]
    fn picks_follow_the_draw() {
        assert_eq!(uniform_pick(0.0, 3), 0);
        assert_eq!(uniform_pick(0.6666, 3), 1);
        assert_eq!(uniform_pick(0.9999999, 3), 2);
        assert_eq!(uniform_pick(0.5, 1), 0);
        assert_eq!(chance_pick(0.1, [0.25, 0.75]), 0);
        assert_eq!(chance_pick(0.25, [0.25, 0.75]), 1, "r equal to a cumulative sum goes on");
        assert_eq!(chance_pick(0.999, [0.5, 0.5 - 1e-12]), 1, "past the sum: the last child");
        assert_eq!(chance_pick(0.3, [0.0, 1.0]), 1, "a child of probability 0 is never picked");
    }
}
