//! Helpers shared by the integration tests.

#![allow(dead_code)] // not every module uses every helper

use std::path::{Path, PathBuf};

use tempfile::TempDir;

/// The example of the format contract (docs/format.md section 1), as a file.
pub const FORMAT_EXAMPLE: &str = include_str!("../../test-cases/mixed-example.yaml");

/// The repository's root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A temporary folder to write files into; removed when dropped.
pub struct Scratch {
    dir: TempDir,
}

impl Scratch {
    /// A fresh empty folder.
    pub fn new() -> Scratch {
        Scratch { dir: tempfile::tempdir().expect("a temporary folder") }
    }

    /// Writes `text` to `name` inside the folder and returns its path.
    pub fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.dir.path().join(name);
        std::fs::write(&path, text).expect("write a file");
        path
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

/// A minimal protocol client doing plain minimax, written by hand (no kit),
/// with hooks for misbehaviour: `#BEFORE_HELLO` and `#SEARCH` (where `m` is
/// the search message and `searches` counts them) are replaced by code.
pub const MINIMAX_CLIENT: &str = r#"
import sys, json, time
out = sys.stdout
def send(m):
    out.write(json.dumps(m) + "\n"); out.flush()
def recv():
    line = sys.stdin.readline()
    if not line:
        sys.exit(0)
    return json.loads(line)
cache = {}
def node(n):
    if n not in cache:
        send({"type": "visit", "node": n})
        cache[n] = recv()
    return cache[n]
def value(n):
    d = node(n)
    if d["kind"] == "terminal":
        return d["value"]
    vals = [value(c) for c in d["children"]]
    return max(vals) if d["kind"] == "max" else min(vals)
#BEFORE_HELLO
recv()
send({"type": "hello", "protocol": 1})
searches = 0
while True:
    m = recv()
    if m["type"] == "bye":
        break
    searches += 1
    cache = {}
    #SEARCH
    root = node(m["root"])
    if root["kind"] == "terminal":
        send({"type": "result", "value": root["value"], "action": None})
        continue
    vals = [value(c) for c in root["children"]]
    best = max(vals)
    send({"type": "result", "value": best, "action": root["actions"][vals.index(best)]})
"#;

/// A client script with its `#MARKER` hooks replaced by code.
pub fn with_hooks(script: &str, hooks: &[(&str, &str)]) -> String {
    let mut script = script.to_string();
    for (marker, code) in hooks {
        script = script.replace(&format!("#{marker}"), code);
    }
    script
}

/// A test that needs something this machine lacks: under CI (`CI=true`),
/// where everything is installed on purpose, that is a failure; elsewhere
/// the test says what it did not check and passes.
pub fn unavailable(what: &str) {
    assert!(std::env::var("CI").as_deref() != Ok("true"), "CI must have {what}");
    eprintln!("note: {what} is missing here; this check is skipped");
}
