//! A fast path for the `nodes:` block of large, machine-written tree files.
//!
//! Programs write big trees one node per line in flow style, e.g.
//! `  n12: {min: [n49, n50, n51, n52]}` or `  n87381: {max: [3, -7, 12, 0]}`.
//! serde-saphyr reads such text at about 10 MB/s, which dominates `treegrade
//! solve` on a tree of a few hundred thousand nodes. This module reads a
//! `nodes:` block of exactly that shape straight into node specs, and leaves
//! the rest of the file (name, root, search, expect) to serde-saphyr, with the
//! block blanked out so that every line keeps its number.
//!
//! It is only an optimisation and never decides anything on its own: it
//! accepts a strict subset of YAML whose meaning is unambiguous (ASCII ids
//! such as `n12` or `B.left`, the same characters in double quotes, which
//! are strings whatever they spell (`"0.1"`, as `treegrade import mit6034`
//! writes every id), decimal numbers, single-line flow collections; no
//! comments, single quotes, escapes, anchors, tags or multi-line values) and gives the
//! text back for the full parser on anything else, and also whenever the
//! file turns out to be invalid, so that every diagnostic comes from the
//! full parser. On valid files it yields what the full parser yields, node
//! positions included.

use std::path::Path;

use crate::tree::{ChildSpec, ChildTarget, NodeBody, NodeKind, NodeSpec, TreeBuilder};

use super::raw::RawFile;
use super::{LoadedTree, Position, SpecPositions, check_own_settings, parser_options, translate};

/// Node specs read by the fast path, with where their parts are written.
pub(super) struct FastNodes {
    specs: Vec<NodeSpec>,
    keys: Vec<Option<Position>>,
    children: Vec<Vec<Option<Position>>>,
}

impl FastNodes {
    /// Adds the specs to `builder` and their places to `positions`, which
    /// must both be empty (the fast path reads all nodes of a file).
    pub(super) fn add_to(self, builder: &mut TreeBuilder, positions: &mut SpecPositions) {
        debug_assert!(builder.spec_count() == 0 && positions.keys.is_empty());
        positions.probs = vec![None; self.specs.len()];
        positions.keys = self.keys;
        positions.children = self.children;
        builder.add_all(self.specs);
    }
}

/// Loads `text` through the fast path, or gives it back if the fast path does not apply.
pub(super) fn load(text: String, path: &Path, stem: &str) -> Result<LoadedTree, String> {
    let Some((nodes, rest, nodes_line)) = split(&text) else { return Err(text) };
    let raw: RawFile = match serde_saphyr::from_str_with_options(&rest, parser_options()) {
        Ok(raw) => raw,
        Err(_) => return Err(text),
    };
    // The blanked block must be the value of the file's own `nodes` key; a
    // max^n tree's nodes (docs/format.md 8.3) are never of the fast shape.
    if raw.players.is_some() || !raw.nodes.value.0.is_empty() || raw.nodes.referenced.line() != nodes_line as u64 {
        return Err(text);
    }
    let Ok((tree, positions)) = translate(raw, stem, Some(nodes)) else { return Err(text) };
    let loaded = LoadedTree { tree, path: path.to_path_buf(), source: text, positions };
    match check_own_settings(&loaded) {
        Ok(()) => Ok(loaded),
        Err(_) => Err(loaded.source),
    }
}

/// Finds a top-level `nodes:` line followed by an indented block of one-line
/// nodes; returns the nodes, the text with `nodes: {}` and blank lines in
/// their place, and the (1-based) line of `nodes:`.
fn split(text: &str) -> Option<(FastNodes, String, usize)> {
    const KEY: &str = "nodes:\n";
    let key_start = if text.starts_with(KEY) { 0 } else { text.find("\nnodes:\n")? + 1 };
    let block_start = key_start + KEY.len();
    let nodes_line = 1 + count_newlines(&text[..key_start]);
    // About one node per 30 bytes in generated files; a guess only saves regrowing.
    let guess = (text.len() - block_start) / 30;
    let mut nodes = FastNodes {
        specs: Vec::with_capacity(guess),
        keys: Vec::with_capacity(guess),
        children: Vec::with_capacity(guess),
    };
    let mut indent = None;
    let mut line_number = nodes_line;
    let mut offset = block_start;
    while offset < text.len() {
        let rest = &text[offset..];
        let line = &rest[..rest.find('\n').unwrap_or(rest.len())];
        if !line.is_empty() && !line.starts_with(' ') {
            break; // the next top-level key (or document marker) ends the block
        }
        line_number += 1;
        offset += line.len() + 1;
        if line.bytes().all(|b| b == b' ') {
            continue;
        }
        read_node(line, line_number as u32, &mut indent, &mut nodes)?;
    }
    let block_end = offset.min(text.len());
    if nodes.specs.is_empty() {
        return None;
    }
    let blank_lines = count_newlines(&text[block_start..block_end]);
    let mut rest = String::with_capacity(key_start + text.len() - block_end + blank_lines + 16);
    rest.push_str(&text[..key_start]);
    rest.push_str("nodes: {}\n");
    rest.extend(std::iter::repeat_n('\n', blank_lines));
    rest.push_str(&text[block_end..]);
    Some((nodes, rest, nodes_line))
}

fn count_newlines(text: &str) -> usize {
    text.bytes().filter(|&b| b == b'\n').count()
}

/// A cursor over one line of the block.
struct Line<'a> {
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
    number: u32,
}

impl<'a> Line<'a> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn skip_spaces(&mut self) {
        while self.peek() == Some(b' ') {
            self.at += 1;
        }
    }

    /// Consumes `byte` if it is next.
    fn eat(&mut self, byte: u8) -> bool {
        let found = self.peek() == Some(byte);
        self.at += usize::from(found);
        found
    }

    /// `:` followed by at least one space (and the spaces).
    fn colon(&mut self) -> Option<()> {
        (self.eat(b':') && self.peek() == Some(b' ')).then(|| self.skip_spaces())
    }

    /// A plain scalar made of `[A-Za-z0-9_.-]` and where it starts.
    fn token(&mut self) -> Option<(&'a str, Position)> {
        let start = self.at;
        while matches!(self.peek(), Some(b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'_' | b'.' | b'-')) {
            self.at += 1;
        }
        let token = &self.text[start..self.at];
        let position = Position { line: self.number, column: start as u32 + 1, width: token.len() as u32 };
        (!token.is_empty()).then_some((token, position))
    }

    /// `"..."` around a token: a string, whatever it spells. Its position
    /// spans the quotes, as the full parser gives it.
    fn quoted(&mut self) -> Option<(&'a str, Position)> {
        let start = self.at;
        if !self.eat(b'"') {
            return None;
        }
        let (token, _) = self.token()?;
        self.eat(b'"').then_some(())?;
        let position = Position { line: self.number, column: start as u32 + 1, width: (self.at - start) as u32 };
        Some((token, position))
    }

    /// An id: a plain one, or any token in double quotes.
    fn id(&mut self) -> Option<(String, Position)> {
        if self.peek() == Some(b'"') {
            return self.quoted().map(|(token, position)| (token.to_string(), position));
        }
        let (token, position) = self.token()?;
        is_plain_id(token).then(|| (token.to_string(), position))
    }

    fn number(&mut self) -> Option<f64> {
        let (token, _) = self.token()?;
        number(token)
    }

    /// `[x, y, ...]` with at least one item, each read by `item`.
    fn list<T>(&mut self, mut item: impl FnMut(&mut Self) -> Option<T>) -> Option<Vec<T>> {
        if !self.eat(b'[') {
            return None;
        }
        self.skip_spaces();
        let mut items = Vec::with_capacity(4);
        loop {
            items.push(item(self)?);
            self.skip_spaces();
            if self.eat(b']') {
                return Some(items);
            }
            if !self.eat(b',') {
                return None;
            }
            self.skip_spaces();
        }
    }

    /// One entry of a child list: an id, a number, or `{ACTION: ID-OR-NUMBER}`.
    fn child(&mut self) -> Option<(ChildSpec, Position)> {
        if self.peek() == Some(b'{') {
            let position = Position { line: self.number, column: self.at as u32 + 1, width: 1 };
            self.at += 1;
            self.skip_spaces();
            let (action, _) = self.id()?;
            self.colon()?;
            let (target, _) = self.child_target()?;
            self.skip_spaces();
            self.eat(b'}').then_some(())?;
            return Some((ChildSpec { action: Some(action), target }, position));
        }
        let (target, position) = self.child_target()?;
        Some((ChildSpec { action: None, target }, position))
    }

    fn child_target(&mut self) -> Option<(ChildTarget, Position)> {
        if self.peek() == Some(b'"') {
            let (id, position) = self.id()?;
            return Some((ChildTarget::Id(id), position));
        }
        let (token, position) = self.token()?;
        let target =
            if is_plain_id(token) { ChildTarget::Id(token.to_string()) } else { ChildTarget::Leaf(number(token)?) };
        Some((target, position))
    }
}

/// Reads `  ID: NODE` into `nodes`; `None` if the line is not of the fast shape.
fn read_node(line: &str, number: u32, indent: &mut Option<usize>, nodes: &mut FastNodes) -> Option<()> {
    let mut line = Line { text: line, bytes: line.as_bytes(), at: 0, number };
    line.skip_spaces();
    if *indent.get_or_insert(line.at) != line.at {
        return None;
    }
    let (id, key) = line.id()?;
    line.colon()?;
    let (spec, children) = if line.peek() == Some(b'{') {
        node_mapping(&mut line, id)?
    } else {
        (NodeSpec::terminal(id, line.number()?), Vec::new())
    };
    line.skip_spaces();
    if line.peek().is_some() {
        return None;
    }
    nodes.specs.push(spec);
    nodes.keys.push(Some(key));
    nodes.children.push(children);
    Some(())
}

/// `{max: [...]}` (or min, chance) with optional `probs` and `eval`, or `{value: N}`.
fn node_mapping(line: &mut Line, id: String) -> Option<(NodeSpec, Vec<Option<Position>>)> {
    line.eat(b'{');
    line.skip_spaces();
    let mut kind = None;
    let mut children = Vec::with_capacity(4);
    let mut positions = Vec::with_capacity(4);
    let (mut value, mut probs, mut eval) = (None, None, None);
    loop {
        let (key, _) = line.token()?;
        line.colon()?;
        match key {
            "max" | "min" | "chance" if kind.is_none() => {
                kind = Some(match key {
                    "max" => NodeKind::Max,
                    "min" => NodeKind::Min,
                    _ => NodeKind::Chance,
                });
                line.list(|line| {
                    let (child, position) = line.child()?;
                    children.push(child);
                    positions.push(Some(position));
                    Some(())
                })?;
            }
            "value" if value.is_none() => value = Some(line.number()?),
            "eval" if eval.is_none() => eval = Some(line.number()?),
            "probs" if probs.is_none() => probs = Some(line.list(Line::number)?),
            _ => return None, // unknown or repeated key, or a second kind
        }
        line.skip_spaces();
        if line.eat(b'}') {
            break;
        }
        if !line.eat(b',') {
            return None;
        }
        line.skip_spaces();
    }
    match (kind, value) {
        (Some(kind), None) => {
            Some((NodeSpec { id, body: NodeBody::Internal { kind, children, probs, eval } }, positions))
        }
        (None, Some(value)) if probs.is_none() && eval.is_none() => Some((NodeSpec::terminal(id, value), positions)),
        _ => None,
    }
}

/// An id YAML reads as a string however it is resolved: an ASCII letter,
/// then letters, digits, `_`, `.` or `-`, and not a word YAML gives another
/// meaning (YAML 1.1 or 1.2 booleans, null, the spellings Rust parses as
/// non-finite floats).
fn is_plain_id(token: &str) -> bool {
    const RESERVED: [&str; 12] =
        ["true", "false", "null", "y", "n", "yes", "no", "on", "off", "nan", "inf", "infinity"];
    token.as_bytes()[0].is_ascii_alphabetic() && !RESERVED.iter().any(|word| token.eq_ignore_ascii_case(word))
}

/// A decimal number in the one spelling every YAML reader agrees on:
/// `-?(0|[1-9][0-9]*)(\.[0-9]+)?`, at most 15 integer digits, never `-0`.
fn number(token: &str) -> Option<f64> {
    let unsigned = token.strip_prefix('-').unwrap_or(token);
    let bytes = unsigned.as_bytes();
    if (1..=15).contains(&bytes.len()) && bytes.iter().all(u8::is_ascii_digit) {
        // An integer (the common case), exact in an f64 at 15 digits.
        if bytes.len() > 1 && bytes[0] == b'0' {
            return None;
        }
        let magnitude = bytes.iter().fold(0i64, |acc, &digit| acc * 10 + i64::from(digit - b'0'));
        return match (token.len() > unsigned.len(), magnitude) {
            (false, _) => Some(magnitude as f64),
            (true, 0) => None,
            (true, _) => Some(-(magnitude as f64)),
        };
    }
    let (whole, fraction) = match unsigned.split_once('.') {
        Some((whole, fraction)) => (whole, Some(fraction)),
        None => (unsigned, None),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(whole) || whole.len() > 15 || (whole.len() > 1 && whole.starts_with('0')) {
        return None;
    }
    if fraction.is_some_and(|f| !digits(f) || f.len() > 17) {
        return None;
    }
    let value: f64 = token.parse().ok()?;
    (value != 0.0 || !token.starts_with('-')).then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::load_tree_str;
    use crate::tree::NodeIndex;

    /// The full parser's result, for comparison.
    fn slow(text: &str) -> LoadedTree {
        let stem = "t";
        let raw: RawFile = serde_saphyr::from_str_with_options(text, parser_options()).expect("valid YAML");
        let (tree, positions) = translate(raw, stem, None).expect("valid tree");
        LoadedTree { tree, path: "t.yaml".into(), source: text.to_string(), positions }
    }

    fn fast(text: &str) -> Option<LoadedTree> {
        load(text.to_string(), Path::new("t.yaml"), "t").ok()
    }

    fn assert_same(text: &str) {
        let (slow, fast) = (slow(text), fast(text).expect("the fast path applies"));
        let (a, b) = (&slow.tree, &fast.tree);
        assert_eq!(a.len(), b.len());
        assert_eq!((a.name(), a.description(), a.search_defaults()), (b.name(), b.description(), b.search_defaults()));
        assert_eq!(a.expectations(), b.expectations());
        assert_eq!(a.nodes(), b.nodes());
        for i in 0..a.len() as u32 {
            let node = NodeIndex(i);
            assert_eq!((a.id(node), a.action(node)), (b.id(node), b.action(node)));
            assert_eq!(slow.position(node), fast.position(node), "position of {}", a.id(node));
        }
    }

    #[test]
    fn agrees_with_the_full_parser() {
        assert_same("root: n0\nnodes:\n  n0: {max: [n1, n2]}\n  n1: {min: [3, -7, 12, 0]}\n  n2: {min: [4, 5]}\n");
        assert_same(
            "name: x\ndescription: a tree\n\nroot: A\nnodes:\n  A: {max: [B,   C1, -7, 3.25, {lab: 5}, {x: D}, 12345]}\n\
             \n  B: 3\n  C1:   {min: [ 1 , 2 ], eval: 4}   \n  D:   {value: -2.5}\nsearch:\n  prune_on_equal: false\n\
             expect:\n  alphabeta: {value: 3, action: B}\n",
        );
        assert_same(
            "nodes:\n    r: {chance: [a.b, c-d], probs: [0.25, 0.75], eval: 0.5}\n    a.b: 1\n    c-d: 0.1\nroot: r\n",
        );
        assert_same("root: r\nnodes:\n  r: {max: [0, 1.5, -0.25, 999999999999999]}\n");
        // Quoted ids, as `treegrade import mit6034` writes them: strings whatever they spell.
        assert_same(
            "root: \"root\"\nnodes:\n  \"root\": {max: [{\"a\": \"a-b\"}, \"0.1\", \"yes\"], eval: 2}\n  \"a-b\": 3\n  \"0.1\": {min: [\"2\"]}\n  \"2\": -1\n  \"yes\": 0\n",
        );
    }

    #[test]
    fn agrees_on_generated_and_curated_trees() {
        // A uniform tree as bench/gen_uniform.py writes it (branching 3, depth 5), with chance layers.
        let mut text = String::from("name: g\nroot: n0\nnodes:\n");
        let (mut first, mut width, mut value) = (0, 1, 7i64);
        for ply in 0..5 {
            let kind = ["max", "min", "chance"][ply % 3];
            for node in first..first + width {
                let children: Vec<String> = (1..=3)
                    .map(
                        |k| if ply == 4 { (value * k % 2001 - 1000).to_string() } else { format!("n{}", 3 * node + k) },
                    )
                    .collect();
                value = (value * 48271) % 2_147_483_647;
                text.push_str(&format!("  n{node}: {{{kind}: [{}]}}\n", children.join(", ")));
            }
            first += width;
            width *= 3;
        }
        assert_same(&text);
        // Every curated tree the fast path takes must come out as the full parser has it.
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("test-cases");
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
            if fast(&text).is_some() {
                assert_same(&text);
            }
        }
    }

    #[test]
    fn gives_up_on_anything_else() {
        for text in [
            "root: A\nnodes:\n  A: {max: [B]}  # comment\n  B: 1\n",
            "root: A\nnodes:\n  A: {max: ['B']}\n  B: 1\n",
            "root: A\nnodes:\n  A: {max: [\"B\\t\"]}\n  B: 1\n",
            "root: A\nnodes:\n  A: {max: [\"B C\"]}\n  B: 1\n",
            "root: A\nnodes:\n  A: {max: [\"B]}\n  B: 1\n",
            "root: A\nnodes:\n  A:\n    max: [B]\n  B: 1\n",
            "root: A\nnodes:\n  A: {max: [B]}\n   B: 1\n",
            "root: A\nnodes:\n  A: {max: [B, -0]}\n  B: 1\n",
            "root: A\nnodes:\n  A: {max: [B, 1e3]}\n  B: 1\n",
            "root: A\nnodes:\n  A: {max: [B, 012]}\n  B: 1\n",
            "root: A\nnodes:\n  A: {max: [B, yes]}\n  B: 1\n  yes: 2\n",
            "root: A\nnodes:\n  A: {max: [B], min: [C]}\n  B: 1\n  C: 2\n",
            "root: A\nnodes:\n  A: {max: [B], max: [B]}\n  B: 1\n",
            "root: A\nnodes:\n  A: {max: [B]}\n  B: 1\n  B: 2\n",
            "root: A\nnodes:\n  A: {max: [B]}\n",
            "root: A\nnodes: {A: 1}\n",
            "root: A\nnodes:\r\n  A: 1\r\n",
            "root: A\nnodes:\n  A: &x {max: [B]}\n  B: 1\n",
        ] {
            assert!(fast(text).is_none(), "{text}");
            // Whatever the full parser says stands.
            let _ = load_tree_str(text.to_string(), Path::new("t.yaml"));
        }
    }

    #[test]
    fn numbers_are_read_as_yaml_reads_them() {
        assert_eq!(number("0"), Some(0.0));
        assert_eq!(number("-12"), Some(-12.0));
        assert_eq!(number("3.25"), Some(3.25));
        assert_eq!(number("0.1"), Some(0.1));
        for rejected in ["-0", "-0.0", "01", "1.", ".5", "1e3", "+1", "0x10", "1_000", "--1", "1-2", "1.2.3", ""] {
            assert_eq!(number(rejected), None, "{rejected}");
        }
    }
}
