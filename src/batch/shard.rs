//! `--shard K/N` in a batch: the marker that says which shard an output
//! folder graded, and the check that `treegrade merge` is given every shard
//! of one split once. The slice itself is [`crate::outdir::Shard`].

use std::path::{Path, PathBuf};

pub use crate::outdir::{Shard, ShardError};

/// A marker file that could not be read.
#[derive(Debug, thiserror::Error)]
pub enum MarkerError {
    /// It holds something else than a shard.
    #[error("{}: {error}", path.display())]
    Bad {
        /// The marker file.
        path: PathBuf,
        /// What is wrong with it.
        #[source]
        error: ShardError,
    },
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
            MarkerError::Bad { .. } => std::io::ErrorKind::InvalidData,
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
        Ok(text) => Ok(Some(text.trim().parse().map_err(|error| MarkerError::Bad { path, error })?)),
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
}
