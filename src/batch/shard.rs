//! `--shard K/N`: a deterministic slice of the submissions, so that a course
//! can fan grading out over a CI matrix, indexed Kubernetes Jobs or a Slurm
//! array and `treegrade merge` the outputs.

use std::fmt;
use std::path::{Path, PathBuf};
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

/// Why a shard, or a batch output's shard marker, could not be read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ShardError {
    /// Text that is not `K/N`.
    #[error("`{0}` is not a shard: write K/N with 1 <= K <= N, e.g. 2/4")]
    NotAShard(String),
    /// A marker file holding something else than a shard.
    #[error("{}: {error}", path.display())]
    BadMarker {
        /// The marker file.
        path: PathBuf,
        /// What is wrong with it.
        #[source]
        error: Box<ShardError>,
    },
}

/// A marker file that could not be read.
#[derive(Debug, thiserror::Error)]
pub enum MarkerError {
    /// It holds no shard.
    #[error(transparent)]
    Bad(#[from] ShardError),
    /// It could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Unreadable {
        /// The marker file.
        path: PathBuf,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
}

impl MarkerError {
    /// The kind of the system's error behind this one (`InvalidData` for a marker holding no shard).
    pub fn kind(&self) -> std::io::ErrorKind {
        match self {
            MarkerError::Bad(_) => std::io::ErrorKind::InvalidData,
            MarkerError::Unreadable { source, .. } => source.kind(),
        }
    }
}

/// The outputs given to `merge` do not make up one whole: the problems, each named.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("{}", problems.join("; "))]
pub struct Incomplete {
    /// Each folder given twice, shard missing or doubled, or split mixed.
    pub problems: Vec<String>,
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

/// The file of a batch's output folder that names the shard it graded
/// (`2/4`); absent when the batch graded every submission.
pub const SHARD_FILE: &str = "shard.txt";

/// Records in a batch's output folder which shard it grades (`None`: every
/// submission), so that `merge` can tell a missing or doubled shard.
pub fn write_marker(out: &Path, shard: Option<Shard>) -> std::io::Result<()> {
    let path = out.join(SHARD_FILE);
    match shard {
        Some(shard) => {
            std::fs::create_dir_all(out)?;
            std::fs::write(&path, format!("{shard}\n"))
        }
        None => match std::fs::remove_file(&path) {
            Err(error) if error.kind() != std::io::ErrorKind::NotFound => Err(error),
            _ => Ok(()),
        },
    }
}

/// The shard a batch's output folder holds, from its marker (`None`: every
/// submission, or a folder an older treegrade wrote).
pub fn read_marker(out: &Path) -> Result<Option<Shard>, MarkerError> {
    let path = out.join(SHARD_FILE);
    match std::fs::read_to_string(&path) {
        Ok(text) => {
            Ok(Some(text.trim().parse().map_err(|error| ShardError::BadMarker { path, error: Box::new(error) })?))
        }
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(MarkerError::Unreadable { path, source }),
    }
}

/// Checks that the outputs given to `merge` are each given once and, when
/// they are shards, make up every shard of one split exactly once. Each
/// output comes with the folder it resolves to (to find one folder given
/// under two names) and the shard it holds. The error names every folder
/// given twice and every shard missing or doubled.
pub fn check_complete(outputs: &[(PathBuf, PathBuf, Option<Shard>)]) -> Result<(), Incomplete> {
    let mut problems = Vec::new();
    let mut once = Vec::new();
    for (position, output @ (given, resolved, _)) in outputs.iter().enumerate() {
        match outputs[..position].iter().find(|(_, other, _)| other == resolved) {
            Some((first, _, _)) if first == given => problems.push(format!("{} is given twice", given.display())),
            Some((first, _, _)) => {
                problems.push(format!("{} and {} are the same folder", first.display(), given.display()))
            }
            None => once.push(output),
        }
    }
    let sharded: Vec<(&PathBuf, Shard)> =
        once.iter().filter_map(|(given, _, shard)| shard.map(|shard| (given, shard))).collect();
    if let Some(&(_, first)) = sharded.first() {
        for (given, _, shard) in &once {
            match shard {
                None => problems.push(format!("{} was graded without --shard, the others with it", given.display())),
                Some(shard) if shard.count != first.count => problems.push(format!(
                    "{} holds shard {shard}, of another split than {first}: merge the shards of one split",
                    given.display()
                )),
                Some(_) => {}
            }
        }
        let held =
            |index: u32| sharded.iter().filter(move |(_, shard)| shard.index == index && shard.count == first.count);
        let missing: Vec<String> = (1..=first.count)
            .filter(|&index| held(index).next().is_none())
            .map(|index| format!("{index}/{}", first.count))
            .collect();
        if !missing.is_empty() {
            problems.push(format!(
                "shard {} {} missing",
                missing.join(", "),
                if missing.len() == 1 { "is" } else { "are" }
            ));
        }
        for index in 1..=first.count {
            let holders: Vec<String> = held(index).map(|(given, _)| given.display().to_string()).collect();
            if holders.len() > 1 {
                problems.push(format!(
                    "shard {index}/{} is given {} times ({})",
                    first.count,
                    holders.len(),
                    holders.join(", ")
                ));
            }
        }
    }
    if problems.is_empty() { Ok(()) } else { Err(Incomplete { problems }) }
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
    fn merging_needs_every_shard_once() {
        let output = |name: &str, shard: Option<&str>| {
            (PathBuf::from(name), PathBuf::from(format!("/abs/{name}")), shard.map(|s| s.parse::<Shard>().unwrap()))
        };
        assert_eq!(check_complete(&[output("a", Some("1/2")), output("b", Some("2/2"))]), Ok(()));
        assert_eq!(check_complete(&[output("a", None), output("b", None)]), Ok(()));
        assert_eq!(
            check_complete(&[output("a", Some("1/2")), output("a", Some("1/2"))]).unwrap_err().to_string(),
            "a is given twice; shard 2/2 is missing"
        );
        assert_eq!(
            check_complete(&[output("a", Some("1/3")), output("b", Some("1/3"))]).unwrap_err().to_string(),
            "shard 2/3, 3/3 are missing; shard 1/3 is given 2 times (a, b)"
        );
        let mixed = check_complete(&[output("a", Some("1/2")), output("b", None), output("c", Some("2/3"))]);
        let mixed = mixed.unwrap_err().to_string();
        assert!(mixed.contains("b was graded without --shard"), "{mixed}");
        assert!(mixed.contains("c holds shard 2/3, of another split than 1/2"), "{mixed}");
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
