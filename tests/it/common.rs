//! Helpers shared by the integration tests.

#![allow(dead_code)] // not every module uses every helper

use std::path::{Path, PathBuf};

use tempfile::TempDir;

/// The example of the format contract (docs/format.md section 1), as a file.
pub const FORMAT_EXAMPLE: &str = include_str!("../../test-cases/mixed-example.yaml");

/// `treegrade check --format json` of the submission `dir` on `assignment`,
/// with no colour and no `$TREEGRADE_ASSIGNMENT`: the report, after checking
/// that the grading itself succeeded (exit 0 or 1).
pub fn check_json(assignment: &Path, dir: &Path) -> serde_json::Value {
    let output = assert_cmd::Command::cargo_bin("treegrade")
        .unwrap()
        .env("NO_COLOR", "1")
        .env_remove("TREEGRADE_ASSIGNMENT")
        .arg("check")
        .arg("--assignment")
        .arg(assignment)
        .arg("--submission")
        .arg(dir)
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert!(matches!(output.status.code(), Some(0 | 1)), "{dir:?}: {}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).unwrap()
}

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

/// An outline of an HTML page for snapshots: one line per element (its
/// name, id and classes) and per text, indented by nesting. A `<style>` or
/// `<script>` is shown by its size and an `<svg>` by how many of each
/// element it holds, so the outline changes when the page's structure or
/// words change, not when a picture moves by a pixel.
pub fn html_outline(html: &str) -> String {
    const VOID: [&str; 6] = ["meta", "br", "img", "input", "link", "hr"];
    let mut out = String::new();
    let mut depth = 0usize;
    let mut rest = html;
    while let Some(start) = rest.find('<') {
        push_text(&mut out, depth, &rest[..start]);
        rest = &rest[start..];
        let end = rest.find('>').expect("every tag is closed") + 1;
        let tag = &rest[..end];
        rest = &rest[end..];
        if tag.starts_with("<!") {
            continue;
        }
        if tag.starts_with("</") {
            depth = depth.saturating_sub(1);
            continue;
        }
        let name = tag_name(tag);
        let line = format!("{}{}{}", "  ".repeat(depth), name, attributes(tag));
        if matches!(name, "style" | "script" | "svg") {
            let close = format!("</{name}>");
            let body_end = rest.find(&close).expect("the element is closed");
            let summary = if name == "svg" {
                svg_summary(&rest[..body_end])
            } else {
                format!("{} bytes", rest[..body_end].len())
            };
            out.push_str(&format!("{line} [{summary}]\n"));
            rest = &rest[body_end + close.len()..];
            continue;
        }
        out.push_str(&line);
        out.push('\n');
        if !tag.ends_with("/>") && !VOID.contains(&name) {
            depth += 1;
        }
    }
    push_text(&mut out, depth, rest);
    out
}

fn tag_name(tag: &str) -> &str {
    let inner = tag.trim_start_matches('<');
    let end = inner.find(|c: char| c.is_whitespace() || c == '>' || c == '/').unwrap_or(inner.len());
    &inner[..end]
}

/// ` #id .class .class` of a start tag.
fn attributes(tag: &str) -> String {
    let value = |name: &str| {
        let key = format!(" {name}=\"");
        tag.find(&key).map(|at| {
            let from = at + key.len();
            tag[from..from + tag[from..].find('"').unwrap()].to_string()
        })
    };
    let mut shown = String::new();
    if let Some(id) = value("id") {
        shown.push_str(&format!(" #{id}"));
    }
    for class in value("class").unwrap_or_default().split_whitespace() {
        shown.push_str(&format!(" .{class}"));
    }
    shown
}

fn push_text(out: &mut String, depth: usize, text: &str) {
    let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if !words.is_empty() {
        out.push_str(&format!("{}\"{words}\"\n", "  ".repeat(depth)));
    }
}

/// `circle 12, text 30` for the elements of an SVG body.
fn svg_summary(body: &str) -> String {
    let mut counts = std::collections::BTreeMap::<String, usize>::new();
    for piece in body.split('<').skip(1) {
        if !piece.starts_with('/') {
            *counts.entry(tag_name(&format!("<{piece}")).to_string()).or_default() += 1;
        }
    }
    counts.iter().map(|(name, count)| format!("{name} {count}")).collect::<Vec<_>>().join(", ")
}
