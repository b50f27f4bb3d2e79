//! `--shard K/N`: a deterministic slice of the submissions (or of a
//! tournament's pairs), so that a course can fan a run out over a CI matrix,
//! indexed Kubernetes Jobs or a Slurm array and `treegrade merge` the outputs.

use std::fmt;
use std::str::FromStr;

use sha2::{Digest, Sha256};

/// Shard `index` (1-based) of `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// 1-based shard number.
    pub index: u32,
    /// Number of shards.
    pub count: u32,
}

impl Shard {
    /// Whether `student` belongs to this shard. A hash of the id, not its
    /// position, decides: adding a submission moves no one else.
    pub fn contains(&self, student: &str) -> bool {
        let digest = Sha256::digest(student.as_bytes());
        let bucket = u32::from_le_bytes([digest[0], digest[1], digest[2], digest[3]]) % self.count;
        bucket + 1 == self.index
    }
}

/// Why text could not be read as a shard.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ShardError {
    /// Text that is not `K/N`.
    #[error("`{0}` is not a shard: write K/N with 1 <= K <= N, e.g. 2/4")]
    NotAShard(String),
}

impl FromStr for Shard {
    type Err = ShardError;

    fn from_str(text: &str) -> Result<Shard, ShardError> {
        let problem = || ShardError::NotAShard(text.to_string());
        let (index, count) = text.split_once('/').ok_or_else(problem)?;
        let index: u32 = index.trim().parse().map_err(|_| problem())?;
        let count: u32 = count.trim().parse().map_err(|_| problem())?;
        if index == 0 || count == 0 || index > count {
            return Err(problem());
        }
        Ok(Shard { index, count })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_student_is_in_exactly_one_shard() {
        let shards: Vec<Shard> = (1..=4).map(|index| Shard { index, count: 4 }).collect();
        let mut sizes = [0; 4];
        for student in (0..400).map(|i| format!("student-{i}")) {
            let owners: Vec<usize> = (0..4).filter(|&i| shards[i].contains(&student)).collect();
            assert_eq!(owners.len(), 1, "{student}");
            sizes[owners[0]] += 1;
        }
        assert!(sizes.iter().all(|&size| size > 60), "shards are roughly even: {sizes:?}");
    }

    #[test]
    fn shards_parse_strictly() {
        assert_eq!("2/4".parse::<Shard>(), Ok(Shard { index: 2, count: 4 }));
        for bad in ["0/4", "5/4", "2", "a/b", "1/0"] {
            assert_eq!(bad.parse::<Shard>(), Err(ShardError::NotAShard(bad.to_string())), "{bad}");
        }
        let message = "2".parse::<Shard>().unwrap_err().to_string();
        assert_eq!(message, "`2` is not a shard: write K/N with 1 <= K <= N, e.g. 2/4");
    }
}
