//! Gives the binary a build identity: a hash of every source that can change
//! a grade (the crate's sources, the kits, the lock file). A batch keys its
//! fingerprints on it, so a grader rebuilt with a fix regrades everyone even
//! when its version number did not change. Also embeds the bundled
//! assignment (see `src/bundled.rs`).

use std::path::{Path, PathBuf};

/// What goes into the identity, relative to the crate's folder.
const INPUTS: [&str; 6] = ["src", "grader/kits", "assignments", "test-cases", "Cargo.toml", "Cargo.lock"];

fn main() {
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for input in INPUTS {
        println!("cargo:rerun-if-changed={input}");
        collect(&root.join(input), &mut files);
    }
    files.sort();
    let mut hash = Fnv::default();
    for file in &files {
        let relative = file.strip_prefix(&root).unwrap_or(file);
        hash.write(relative.to_string_lossy().as_bytes());
        let contents = std::fs::read(file).unwrap_or_default();
        hash.write(&(contents.len() as u64).to_le_bytes());
        hash.write(&contents);
    }
    println!("cargo:rustc-env=TREEGRADE_BUILD_ID={:016x}", hash.0);
    write_bundle(&root);
}

/// The folders of the bundled assignments, embedded in the binary so that it
/// works from any folder, with nothing else on disk: each assignment (its
/// handout, starters and tests) and the test trees the default one reads
/// through `tests_dir`.
const BUNDLED: [&str; 4] =
    ["assignments/adversarial-search", "assignments/games", "assignments/more-searches", "test-cases"];

/// Writes `$OUT_DIR/bundled.rs`: every bundled file as (relative path, bytes).
fn write_bundle(root: &Path) {
    for folder in BUNDLED {
        println!("cargo:rerun-if-changed={folder}");
    }
    let mut files = Vec::new();
    for folder in BUNDLED {
        collect(&root.join(folder), &mut files);
    }
    files.sort();
    let mut out =
        String::from("/// Every file of the bundled assignment: its path from the repository's root, and its bytes.\n");
    out.push_str("pub const FILES: &[(&str, &[u8])] = &[\n");
    for file in &files {
        let relative = file.strip_prefix(root).unwrap_or(file);
        let name: Vec<String> = relative.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
        out.push_str(&format!("    ({:?}, include_bytes!({:?})),\n", name.join("/"), file.display().to_string()));
    }
    out.push_str("];\n");
    let target = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join("bundled.rs");
    std::fs::write(target, out).expect("OUT_DIR is writable");
}

/// Every regular file under `path` (or `path` itself).
fn collect(path: &Path, files: &mut Vec<PathBuf>) {
    match std::fs::read_dir(path) {
        Ok(entries) => {
            for entry in entries.flatten() {
                let name = entry.file_name();
                if name == "target" || name == "__pycache__" {
                    continue;
                }
                collect(&entry.path(), files);
            }
        }
        Err(_) if path.is_file() => files.push(path.to_path_buf()),
        Err(_) => {}
    }
}

/// 64-bit FNV-1a: enough to tell builds apart, with no dependency.
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0 ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}
