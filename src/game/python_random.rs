//! Python's `random` module, number for number: the Mersenne Twister
//! (MT19937) seeded as CPython seeds it from an integer, and the draws
//! built on it.
//!
//! CS188's Pacman ghosts draw from Python's global `random` (a ghost's
//! move is the first cumulative probability at least `random.random()`),
//! and CS188's game tests reseed it at every Pacman move, so replaying their
//! fixed paths needs CPython's numbers exactly. The generator is the
//! reference MT19937 of Matsumoto and Nishimura; `random.seed(n)` for an
//! integer `n` is `init_by_array` over the 32-bit words of `|n|`, least
//! significant first (one zero word for 0); `random.random()` joins 27 and
//! 26 bits of two outputs into a double in [0, 1). Checked against CPython
//! in the unit tests below and, seed by seed, in `tests/it/pacman.rs`.

/// The generator's state size in words.
const N: usize = 624;
/// The middle word of the recurrence.
const M: usize = 397;
const MATRIX_A: u32 = 0x9908_b0df;
const UPPER_MASK: u32 = 0x8000_0000;
const LOWER_MASK: u32 = 0x7fff_ffff;

/// CPython's `random.Random`: the same seed gives the same numbers.
#[derive(Clone)]
pub struct PythonRandom {
    state: Box<[u32; N]>,
    index: usize,
}

impl std::fmt::Debug for PythonRandom {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PythonRandom").field("index", &self.index).finish_non_exhaustive()
    }
}

/// A state `setstate` refuses, in CPython's words where it has them.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StateError {
    /// No numbers at all.
    #[error("the state is empty")]
    Empty,
    /// Not 625 numbers (this many).
    #[error("a state has {expected} numbers, not {0}", expected = N + 1)]
    Length(usize),
    /// An index past 624, or a word past 32 bits.
    #[error("invalid state")]
    Invalid,
}

impl PythonRandom {
    /// `random.seed(seed)` for an integer seed (its sign is ignored, as CPython does).
    pub fn seeded(seed: i128) -> PythonRandom {
        let mut magnitude = seed.unsigned_abs();
        let mut key = Vec::new();
        while magnitude != 0 {
            key.push(magnitude as u32);
            magnitude >>= 32;
        }
        if key.is_empty() {
            key.push(0);
        }
        PythonRandom::from_key(&key)
    }

    /// MT19937's `init_by_array` with `key` (at least one word).
    pub fn from_key(key: &[u32]) -> PythonRandom {
        let mut generator = PythonRandom::from_u32(19_650_218);
        let state = &mut generator.state;
        let length = key.len().max(1);
        let (mut i, mut j) = (1usize, 0usize);
        for _ in 0..N.max(length) {
            let previous = state[i - 1] ^ (state[i - 1] >> 30);
            state[i] = (state[i] ^ previous.wrapping_mul(1_664_525))
                .wrapping_add(key.get(j).copied().unwrap_or(0))
                .wrapping_add(j as u32);
            i += 1;
            j += 1;
            if i >= N {
                state[0] = state[N - 1];
                i = 1;
            }
            if j >= length {
                j = 0;
            }
        }
        for _ in 0..N - 1 {
            let previous = state[i - 1] ^ (state[i - 1] >> 30);
            state[i] = (state[i] ^ previous.wrapping_mul(1_566_083_941)).wrapping_sub(i as u32);
            i += 1;
            if i >= N {
                state[0] = state[N - 1];
                i = 1;
            }
        }
        state[0] = 0x8000_0000;
        generator
    }

    /// MT19937's `init_genrand`: the state from one 32-bit seed.
    fn from_u32(seed: u32) -> PythonRandom {
        let mut state = Box::new([0u32; N]);
        state[0] = seed;
        for i in 1..N {
            state[i] = 1_812_433_253u32.wrapping_mul(state[i - 1] ^ (state[i - 1] >> 30)).wrapping_add(i as u32);
        }
        PythonRandom { state, index: N }
    }

    /// The next 32-bit output (`genrand_uint32`).
    pub fn next_u32(&mut self) -> u32 {
        if self.index >= N {
            self.twist();
        }
        let mut y = self.state[self.index];
        self.index += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }

    fn twist(&mut self) {
        let state = &mut self.state;
        for k in 0..N {
            let y = (state[k] & UPPER_MASK) | (state[(k + 1) % N] & LOWER_MASK);
            let magic = if y & 1 == 1 { MATRIX_A } else { 0 };
            state[k] = state[(k + M) % N] ^ (y >> 1) ^ magic;
        }
        self.index = 0;
    }

    /// `random.random()`: a double in [0, 1) from 53 random bits.
    pub fn random(&mut self) -> f64 {
        let high = f64::from(self.next_u32() >> 5);
        let low = f64::from(self.next_u32() >> 6);
        (high * 67_108_864.0 + low) * (1.0 / 9_007_199_254_740_992.0)
    }

    /// `random.getrandbits(bits)` for 1 to 32 bits.
    pub fn getrandbits(&mut self, bits: u32) -> u32 {
        assert!((1..=32).contains(&bits), "getrandbits takes 1 to 32 bits here");
        self.next_u32() >> (32 - bits)
    }

    /// `random.getrandbits(bits)` for any number of bits, as CPython
    /// builds it: 32-bit words, least significant first, the last one
    /// shifted down to the bits left (no word for 0 bits).
    pub fn getrandbits_words(&mut self, bits: u64) -> Vec<u32> {
        let mut words = Vec::with_capacity(bits.div_ceil(32) as usize);
        let mut left = bits;
        while left > 0 {
            let word = self.next_u32();
            words.push(if left < 32 { word >> (32 - left) } else { word });
            left = left.saturating_sub(32);
        }
        words
    }

    /// The generator's state as CPython's `getstate()` holds it: the 624
    /// words, then the index of the next one.
    pub fn state(&self) -> Vec<u64> {
        self.state.iter().map(|&word| u64::from(word)).chain(std::iter::once(self.index as u64)).collect()
    }

    /// `setstate` with what [`PythonRandom::state`] gives: 624 words and an
    /// index from 0 to 624 (CPython's "invalid state" otherwise).
    pub fn set_state(&mut self, state: &[u64]) -> Result<(), StateError> {
        let [words @ .., index] = state else { return Err(StateError::Empty) };
        if words.len() != N {
            return Err(StateError::Length(state.len()));
        }
        if *index > N as u64 || words.iter().any(|&word| word > u64::from(u32::MAX)) {
            return Err(StateError::Invalid);
        }
        for (slot, &word) in self.state.iter_mut().zip(words) {
            *slot = word as u32;
        }
        self.index = *index as usize;
        Ok(())
    }

    /// `random.randrange(n)` (and the index `random.choice` takes from a
    /// list of `n`): CPython's rejection sampling over `n.bit_length()` bits.
    pub fn randbelow(&mut self, n: u32) -> u32 {
        assert!(n > 0, "randbelow needs a positive bound");
        let bits = 32 - n.leading_zeros();
        loop {
            let draw = self.getrandbits(bits);
            if draw < n {
                return draw;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Numbers from CPython 3.11, printed by
    /// `python3 -c "import random; random.seed(S); print([random.random() for _ in range(3)],
    /// random.getrandbits(32), random.randrange(7))"` for each seed S.
    const CPYTHON: [(i128, [f64; 3], u32, u32); 8] = [
        (0, [0.8444218515250481, 0.7579544029403025, 0.420571580830845], 1112038970, 4),
        (1, [0.13436424411240122, 0.8474337369372327, 0.763774618976614], 1095513148, 0),
        (5, [0.6229016948897019, 0.7417869892607294, 0.7951935655656966], 4047793130, 6),
        (146, [0.13333516672131096, 0.62332150584572, 0.7726126969414543], 279890316, 1),
        (1 << 32, [0.11299430095636409, 0.41782886486292836, 0.0166763664992291], 2627323657, 6),
        ((1 << 40) + 7, [0.6137037779936511, 0.8149162973309487, 0.9450115087592873], 2449809396, 5),
        (-5, [0.6229016948897019, 0.7417869892607294, 0.7951935655656966], 4047793130, 6),
        ((1 << 64) + 3, [0.9129684455472157, 0.9226991467077957, 0.8296235909088164], 91238088, 1),
    ];

    #[test]
    fn integer_seeds_give_cpythons_numbers() {
        for (seed, randoms, bits, below) in CPYTHON {
            let mut random = PythonRandom::seeded(seed);
            let drawn = [random.random(), random.random(), random.random()];
            assert_eq!(drawn.map(f64::to_bits), randoms.map(f64::to_bits), "seed {seed}");
            assert_eq!((random.getrandbits(32), random.randbelow(7)), (bits, below), "seed {seed}");
        }
    }

    #[test]
    fn wide_getrandbits_and_the_state_are_cpythons() {
        // `random.seed(3); print(random.getrandbits(70), random.getrandbits(0), random.getrandbits(32))`
        let mut random = PythonRandom::seeded(3);
        let wide = random.getrandbits_words(70);
        let value = wide.iter().rev().fold(0u128, |total, &word| (total << 32) | u128::from(word));
        assert_eq!(value, 638_121_593_715_607_420_925);
        assert!(random.getrandbits_words(0).is_empty());
        assert_eq!(random.getrandbits_words(32), [560_161_641]);
        let saved = random.state();
        assert_eq!(saved.len(), 625);
        let next = random.random();
        let mut other = PythonRandom::seeded(99);
        other.set_state(&saved).unwrap();
        assert_eq!(other.random(), next, "a state set continues where it was taken");
        assert!(other.set_state(&saved[..10]).is_err());
        let mut bad = saved.clone();
        bad[624] = 625;
        assert_eq!(other.set_state(&bad).unwrap_err().to_string(), "invalid state");
    }

    #[test]
    fn the_stream_outlasts_one_twist() {
        // `python3 -c "import random; random.seed(0); [random.random() for _ in range(1000)]; print(random.random())"`
        let mut random = PythonRandom::seeded(0);
        for _ in 0..1000 {
            random.random();
        }
        assert_eq!(random.random(), 0.9466893945947962);
        let copy = random.clone();
        assert_eq!(random.next_u32(), copy.clone().next_u32(), "a clone continues the same stream");
    }
}
