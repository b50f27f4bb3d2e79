//! A tournament's output folder: the manifest and a file per pair.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{Entrant, Settings};
use crate::assignment::OpponentAgent;
use crate::outdir::{Shard, hex, read_json_files, write_atomically};
use crate::play::GameRecord;

/// The manifest's file name.
pub const MANIFEST: &str = "tournament.json";

/// The folder of pair files.
const GAMES: &str = "games";

/// Every game of one pair.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairFile {
    /// The entrant that played MAX in the pair's first game.
    pub first: String,
    /// The other.
    pub second: String,
    /// A fingerprint of the settings and of both entrants' files: a pair with
    /// the same key would play the same games.
    pub key: String,
    /// Its games, in order.
    pub games: Vec<GameRecord>,
}

/// What a tournament's folder holds besides its games.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// Always `treegrade-tournament`.
    pub format: String,
    /// What decided the games.
    pub settings: Settings,
    /// Every entrant listed, entered or not.
    pub entrants: Vec<ListedEntrant>,
    /// Those not entered (a build failure, unreadable files), with why.
    pub not_entered: BTreeMap<String, String>,
    /// The shard this folder played (`None`: every pair).
    pub shard: Option<String>,
}

/// An entrant as the manifest lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ListedEntrant {
    /// Its name.
    pub name: String,
    /// A reference baseline rather than a student.
    pub baseline: bool,
    /// `built-in SPELLING` or the program's folder.
    pub agent: String,
}

/// The value of the manifest's `format`.
const FORMAT: &str = "treegrade-tournament";

/// Creates the output folders.
pub fn prepare(out: &Path) -> io::Result<()> {
    std::fs::create_dir_all(out.join(GAMES))
}

/// The name that identifies a pair (its entrants' names, sorted, joined),
/// from which shards are drawn.
pub fn pair_name(first: &str, second: &str) -> String {
    let (a, b) = if first <= second { (first, second) } else { (second, first) };
    format!("{a}\u{0}{b}")
}

/// The file of a pair: a hash of its name (entrants' names may hold any character).
fn pair_path(out: &Path, first: &str, second: &str) -> PathBuf {
    let digest = hex(&Sha256::digest(pair_name(first, second).as_bytes()));
    out.join(GAMES).join(format!("{}.json", &digest[..20]))
}

/// The pair's file, if it was played and is whole.
pub fn read_pair(out: &Path, first: &str, second: &str) -> Option<PairFile> {
    let text = std::fs::read_to_string(pair_path(out, first, second)).ok()?;
    serde_json::from_str(&text).ok()
}

/// Writes a pair's file (atomically: an interrupted run leaves none or all of it).
pub fn write_pair(out: &Path, pair: &PairFile) -> io::Result<()> {
    let json = serde_json::to_string(pair).expect("games are plain data");
    write_atomically(&pair_path(out, &pair.first, &pair.second), json.as_bytes())
}

/// Every whole pair file of a folder.
pub fn read_pairs(out: &Path) -> io::Result<Vec<PairFile>> {
    let mut pairs: Vec<PairFile> = read_json_files(&out.join(GAMES))?;
    pairs.sort_by(|a, b| (&a.first, &a.second).cmp(&(&b.first, &b.second)));
    Ok(pairs)
}

/// Writes the manifest of this run.
pub fn write_manifest(
    out: &Path,
    settings: &Settings,
    entrants: &[&Entrant],
    not_entered: &BTreeMap<String, String>,
    shard: Option<Shard>,
) -> io::Result<()> {
    let manifest = Manifest {
        format: FORMAT.to_string(),
        settings: settings.clone(),
        entrants: entrants
            .iter()
            .map(|entrant| ListedEntrant {
                name: entrant.name.clone(),
                baseline: entrant.baseline,
                agent: match &entrant.agent {
                    OpponentAgent::BuiltIn(builtin) => format!("built-in {}", builtin.spelling()),
                    OpponentAgent::Program(dir) => dir.display().to_string(),
                },
            })
            .collect(),
        not_entered: not_entered.clone(),
        shard: shard.map(|shard| shard.to_string()),
    };
    let json = serde_json::to_string_pretty(&manifest).expect("the manifest is plain data");
    write_atomically(&out.join(MANIFEST), json.as_bytes())
}

/// Reads a folder's manifest.
pub fn read_manifest(out: &Path) -> io::Result<Manifest> {
    let path = out.join(MANIFEST);
    let text = std::fs::read_to_string(&path).map_err(|error| {
        io::Error::new(error.kind(), format!("{} is not a tournament's output: {error}", out.display()))
    })?;
    let manifest: Manifest = serde_json::from_str(&text)
        .map_err(|error| io::Error::other(format!("{}: not a tournament manifest: {error}", path.display())))?;
    if manifest.format != FORMAT {
        return Err(io::Error::other(format!("{}: not a tournament manifest", path.display())));
    }
    Ok(manifest)
}

/// Whether a folder is a tournament's output.
pub fn is_tournament(out: &Path) -> bool {
    out.join(MANIFEST).is_file()
}
