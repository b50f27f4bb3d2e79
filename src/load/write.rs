//! Writing a [`Tree`] back as a tree file (docs/format.md section 1).
//!
//! [`tree_to_yaml`] is the inverse of [`load_tree_str`](super::load_tree_str):
//! loading what it writes gives the same ids, kinds, actions, utilities,
//! probabilities, evals, search defaults and expectations, bit for bit. It
//! writes only the core format of section 1 (no extension of section 6), so
//! that any reader of that format can read the result:
//!
//! - `name`, `description`, `root`, then `nodes` in breadth-first order, one
//!   node a line in flow style (`A: {max: [B, C], eval: 4}`), then `search`
//!   and `expect`;
//! - a terminal whose id is `PARENT.K` (K its position) and whose action is
//!   its id is written inline as a number in its parent's child list; every
//!   other terminal gets its own line (`H: 2`);
//! - an edge is a bare id when its action is the child's id, else `{ACTION: ID}`;
//! - `probs` only when they are not exactly the uniform `1.0 / n`;
//! - numbers in the shortest form that reads back as the same double
//!   (integers without a fraction, `-0.0` keeping its sign, exponents only for
//!   magnitudes of 1e15 and more or for very long fractions);
//! - strings (ids, actions, the name) plain only when every YAML reader takes
//!   them as that same string (an ASCII letter, then letters, digits, `_`,
//!   `.` or `-`, and not a word such as `null`, `true`, `yes` or `nan`),
//!   double-quoted with escapes otherwise; a multi-line description is a
//!   literal block (`|2-`) when that keeps it exact.

use std::fmt::Write as _;

use crate::tree::{Expectation, GameRules, NodeIndex, NodeKind, Outcome, Tree};

/// Writes `tree` as a docs/format.md tree file that loads back as the same tree.
///
/// ```
/// use std::path::Path;
/// use treegrade::load::{load_tree_str, write::tree_to_yaml};
///
/// let text = "root: A\nnodes:\n  A: {max: [B, 3]}\n  B: {min: [{left: \"1\"}, 2]}\n  \"1\": -0.5\n";
/// let tree = load_tree_str(text.to_string(), Path::new("t.yaml")).unwrap().tree;
/// let yaml = tree_to_yaml(&tree);
/// assert_eq!(yaml, "name: t\nroot: A\nnodes:\n  A: {max: [B, 3]}\n  B: {min: [{left: \"1\"}, 2]}\n  \"1\": -0.5\n");
/// ```
pub fn tree_to_yaml(tree: &Tree) -> String {
    let mut out = String::with_capacity(64 + tree.len() * 24);
    out.push_str("name: ");
    push_string(&mut out, tree.name());
    out.push('\n');
    if let Some(description) = tree.description() {
        out.push_str("description:");
        push_description(&mut out, description);
    }
    if let Some(players) = tree.players() {
        let _ = writeln!(out, "players: {}", players.count());
    }
    out.push_str("root: ");
    push_string(&mut out, tree.id(NodeIndex::ROOT));
    out.push_str("\nnodes:\n");
    for index in (0..tree.len() as u32).map(NodeIndex) {
        if index != NodeIndex::ROOT && is_inline_leaf(tree, index) {
            continue;
        }
        push_node(&mut out, tree, index);
    }
    push_search(&mut out, tree.search_defaults());
    if let Some(game) = tree.game() {
        push_game(&mut out, tree, game);
    }
    if !tree.expectations().is_empty() {
        out.push_str("expect:\n");
        for (algorithm, expectation) in tree.expectations() {
            out.push_str("  ");
            push_string(&mut out, algorithm);
            out.push_str(": ");
            push_expectation(&mut out, expectation);
            out.push('\n');
        }
    }
    out
}

/// The `search:` block, with the keys the file sets, in the order of the
/// engine's table of settings.
fn push_search(out: &mut String, search: crate::tree::SearchDefaults) {
    use crate::tree::{MoveOrdering, SettingValue};
    let mut lines = Vec::new();
    for setting in &crate::engine::SETTINGS {
        let written = match search.get(setting.key) {
            None | Some(SettingValue::Ordering(MoveOrdering::Tree)) => continue,
            Some(SettingValue::Flag(flag)) => flag.to_string(),
            Some(SettingValue::Whole(n)) => n.to_string(),
            Some(SettingValue::Real(x)) => yaml_number(x),
            Some(SettingValue::Ordering(ordering)) => ordering.name().to_string(),
        };
        lines.push(format!("{}: {written}", setting.key));
    }
    if !lines.is_empty() {
        out.push_str("search:\n");
        for line in lines {
            let _ = writeln!(out, "  {line}");
        }
    }
}

/// Whether a node is written inline in its parent's child list: a terminal
/// whose id is the `PARENT.K` the loader would give it, with that id as action.
fn is_inline_leaf(tree: &Tree, index: NodeIndex) -> bool {
    let node = tree.node(index);
    let Some(parent) = node.parent else { return false };
    if node.kind != NodeKind::Terminal || tree.action(index) != tree.id(index) {
        return false;
    }
    let position = index.0 - tree.node(parent).first_child;
    let Some(k) = tree.id(index).strip_prefix(tree.id(parent)).and_then(|rest| rest.strip_prefix('.')) else {
        return false;
    };
    // `K` exactly as the loader spells it: decimal, no sign, no leading zero.
    !k.starts_with('0') && k.bytes().all(|b| b.is_ascii_digit()) && k.parse::<u64>() == Ok(u64::from(position) + 1)
}

/// One line of the `nodes:` block.
fn push_node(out: &mut String, tree: &Tree, index: NodeIndex) {
    let node = tree.node(index);
    out.push_str("  ");
    push_string(out, tree.id(index));
    out.push_str(": ");
    let players = tree.players();
    if node.kind == NodeKind::Terminal {
        match players.and_then(|players| players.vector(index.get())) {
            Some(vector) => {
                out.push_str("{utility: ");
                push_numbers(out, vector);
                out.push('}');
            }
            None => push_number(out, node.utility),
        }
        out.push('\n');
        return;
    }
    out.push('{');
    match players.and_then(|players| players.mover(index.get())) {
        Some(player) => {
            let _ = write!(out, "p{player}");
        }
        None => out.push_str(node.kind.name()),
    }
    out.push_str(": [");
    let children: Vec<NodeIndex> = tree.children(index).collect();
    for (position, &child) in children.iter().enumerate() {
        if position > 0 {
            out.push_str(", ");
        }
        if is_inline_leaf(tree, child) {
            match players.and_then(|players| players.vector(child.get())) {
                Some(vector) => push_numbers(out, vector),
                None => push_number(out, tree.node(child).utility),
            }
        } else if tree.action(child) == tree.id(child) {
            push_string(out, tree.id(child));
        } else {
            out.push('{');
            push_string(out, tree.action(child));
            out.push_str(": ");
            push_string(out, tree.id(child));
            out.push('}');
        }
    }
    out.push(']');
    if node.kind == NodeKind::Chance {
        let uniform = 1.0 / children.len() as f64;
        if children.iter().any(|&child| tree.node(child).probability.to_bits() != uniform.to_bits()) {
            out.push_str(", probs: [");
            for (position, &child) in children.iter().enumerate() {
                if position > 0 {
                    out.push_str(", ");
                }
                push_number(out, tree.node(child).probability);
            }
            out.push(']');
        }
    }
    if let Some(eval) = node.eval {
        out.push_str(", eval: ");
        match players.and_then(|players| players.vector(index.get())) {
            Some(vector) => push_numbers(out, vector),
            None => push_number(out, eval),
        }
    }
    out.push_str("}\n");
}

/// `{value: V, action: A, visited: [...]}` with the parts present.
/// The `game:` block: agents, then the wins and the losses in arena order.
fn push_game(out: &mut String, tree: &Tree, game: &GameRules) {
    let _ = writeln!(out, "game:\n  agents: {}", game.agents);
    for (key, outcome) in [("wins", Outcome::Win), ("losses", Outcome::Lose)] {
        let ids: Vec<NodeIndex> = game.outcomes.iter().filter(|(_, o)| **o == outcome).map(|(&n, _)| n).collect();
        if ids.is_empty() {
            continue;
        }
        let _ = write!(out, "  {key}: [");
        for (i, &node) in ids.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            push_string(out, tree.id(node));
        }
        out.push_str("]\n");
    }
}

fn push_expectation(out: &mut String, expectation: &Expectation) {
    let mut parts = Vec::new();
    if let Some(value) = expectation.value {
        parts.push(format!("value: {}", yaml_number(value)));
    }
    if let Some(vector) = &expectation.vector {
        let mut list = String::new();
        push_numbers(&mut list, vector);
        parts.push(format!("value: {list}"));
    }
    if let Some(action) = &expectation.action {
        parts.push(match action {
            Some(action) => format!("action: {}", yaml_string(action)),
            None => "action: null".to_string(),
        });
    }
    if let Some(visited) = &expectation.visited {
        let ids: Vec<String> = visited.iter().map(|id| yaml_string(id)).collect();
        parts.push(format!("visited: [{}]", ids.join(", ")));
    }
    out.push('{');
    out.push_str(&parts.join(", "));
    out.push('}');
}

/// The description after `description:`: a literal block when it spans lines
/// and a block keeps it exact (only printable characters, no line ending in
/// blanks, which editors strip), else one scalar on the key's line.
fn push_description(out: &mut String, description: &str) {
    let block_safe =
        |c: char| c == '\n' || (is_printable(c) && !matches!(c, '\u{85}' | '\u{2028}' | '\u{2029}' | '\u{feff}'));
    let trailing_blank = description.split('\n').any(|line| line.ends_with([' ', '\t']));
    if description.contains('\n') && description.chars().all(block_safe) && !trailing_blank {
        // `|2`: content indented by two spaces whatever its own leading spaces;
        // `-` strips the final line break, `+` keeps every trailing one.
        let (body, chomping) = match description.strip_suffix('\n') {
            Some(body) => (body, '+'),
            None => (description, '-'),
        };
        out.push_str(" |2");
        out.push(chomping);
        out.push('\n');
        for line in body.split('\n') {
            if !line.is_empty() {
                out.push_str("  ");
                out.push_str(line);
            }
            out.push('\n');
        }
        return;
    }
    out.push(' ');
    push_string(out, description);
    out.push('\n');
}

/// An `assignment.yaml` to write: what an importer knows of a course.
#[derive(Clone, Debug, PartialEq)]
pub struct AssignmentDraft {
    /// A comment for the top of the file (one `#` line each).
    pub comment: Vec<String>,
    /// Short name.
    pub name: String,
    /// Title for reports.
    pub title: String,
    /// The tests folder, relative to the file.
    pub tests_dir: String,
    /// Languages, in detection order.
    pub languages: Vec<crate::assignment::Language>,
    /// Questions, in report order.
    pub questions: Vec<QuestionDraft>,
}

/// One question of an [`AssignmentDraft`].
#[derive(Clone, Debug, PartialEq)]
pub struct QuestionDraft {
    /// Short id (`q2`).
    pub id: String,
    /// Title for reports.
    pub title: String,
    /// Points, exact.
    pub points: crate::points::Points,
    /// The search the question checks (none for Pacman tests alone).
    pub algorithm: Option<crate::engine::Algorithm>,
    /// The pruning convention, when the question fixes one.
    pub prune_on_equal: Option<bool>,
    /// How points are earned.
    pub scoring: crate::assignment::Scoring,
    /// Whether the order of a node's children is checked.
    pub child_order: crate::assignment::ChildOrder,
    /// Test paths or globs, relative to `tests_dir`.
    pub tests: Vec<String>,
    /// Pacman test paths, relative to `tests_dir`.
    pub pacman: Vec<String>,
    /// Call test paths (a calls question), relative to `tests_dir`.
    pub calls: Vec<String>,
}

/// Writes an `assignment.yaml` that `load::assignment` reads back as `draft` says.
pub fn assignment_to_yaml(draft: &AssignmentDraft) -> String {
    let mut out = String::new();
    for line in &draft.comment {
        let _ = writeln!(out, "# {line}");
    }
    let _ = writeln!(out, "name: {}", yaml_string(&draft.name));
    let _ = writeln!(out, "title: {}", yaml_string(&draft.title));
    let _ = writeln!(out, "tests_dir: {}", yaml_string(&draft.tests_dir));
    out.push_str("\nlanguages:\n");
    for language in &draft.languages {
        let _ = writeln!(out, "  - name: {}", yaml_string(&language.name));
        let _ = writeln!(out, "    detect: {}", yaml_list(&language.detect));
        if let Some(build) = &language.build {
            let _ = writeln!(out, "    build: {}", yaml_list(build));
        }
        let _ = writeln!(out, "    run: {}", yaml_list(&language.run));
        if !language.env.is_empty() {
            out.push_str("    env:\n");
            for (key, value) in &language.env {
                let _ = writeln!(out, "      {}: {}", yaml_string(key), yaml_string(value));
            }
        }
    }
    out.push_str("\nquestions:\n");
    for question in &draft.questions {
        let _ = writeln!(out, "  - id: {}", yaml_string(&question.id));
        let _ = writeln!(out, "    title: {}", yaml_string(&question.title));
        let _ = writeln!(out, "    points: {}", question.points);
        if let Some(algorithm) = question.algorithm {
            let _ = writeln!(out, "    algorithm: {}", algorithm.name());
        }
        if let Some(prune_on_equal) = question.prune_on_equal {
            let _ = writeln!(out, "    prune_on_equal: {prune_on_equal}");
        }
        let scoring = match question.scoring {
            crate::assignment::Scoring::PerTest => "per-test",
            crate::assignment::Scoring::AllOrNothing => "all-or-nothing",
            crate::assignment::Scoring::Thresholds => "thresholds",
        };
        let _ = writeln!(out, "    scoring: {scoring}");
        if question.child_order == crate::assignment::ChildOrder::Any {
            let _ = writeln!(out, "    child_order: any");
        }
        for (key, files) in [("tests", &question.tests), ("pacman", &question.pacman), ("calls", &question.calls)] {
            if files.is_empty() {
                continue;
            }
            let _ = writeln!(out, "    {key}:");
            for file in files {
                let _ = writeln!(out, "      - {}", yaml_string(file));
            }
        }
    }
    out
}

/// A flow-style list of strings: `[a, "b c"]`.
fn yaml_list(items: &[String]) -> String {
    let quoted: Vec<String> = items.iter().map(|item| yaml_string(item)).collect();
    format!("[{}]", quoted.join(", "))
}

fn push_string(out: &mut String, text: &str) {
    out.push_str(&yaml_string(text));
}

fn push_number(out: &mut String, value: f64) {
    out.push_str(&yaml_number(value));
}

/// A max^n vector as a flow list: `[1, -0.5, 2]`.
fn push_numbers(out: &mut String, values: &[f64]) {
    out.push('[');
    for (position, &value) in values.iter().enumerate() {
        if position > 0 {
            out.push_str(", ");
        }
        push_number(out, value);
    }
    out.push(']');
}

/// Words YAML 1.1 or 1.2 resolves to something other than a string (any case).
const RESERVED_WORDS: [&str; 12] =
    ["true", "false", "null", "y", "n", "yes", "no", "on", "off", "nan", "inf", "infinity"];

/// `text` as a YAML scalar that every reader takes as exactly `text`.
pub fn yaml_string(text: &str) -> String {
    if is_plain_safe(text) {
        return text.to_string();
    }
    let mut quoted = String::with_capacity(text.len() + 2);
    quoted.push('"');
    for c in text.chars() {
        match c {
            '"' => quoted.push_str("\\\""),
            '\\' => quoted.push_str("\\\\"),
            '\n' => quoted.push_str("\\n"),
            '\t' => quoted.push_str("\\t"),
            '\r' => quoted.push_str("\\r"),
            '\0' => quoted.push_str("\\0"),
            c if (c as u32) < 0x20 || (0x7f..=0x9f).contains(&(c as u32)) => {
                let _ = write!(quoted, "\\x{:02X}", c as u32);
            }
            c if !is_printable(c) || matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}') => {
                if (c as u32) <= 0xffff {
                    let _ = write!(quoted, "\\u{:04X}", c as u32);
                } else {
                    let _ = write!(quoted, "\\U{:08X}", c as u32);
                }
            }
            c => quoted.push(c),
        }
    }
    quoted.push('"');
    quoted
}

/// An ASCII letter, then letters, digits, `_`, `.` or `-`, and no reserved word.
fn is_plain_safe(text: &str) -> bool {
    let bytes = text.as_bytes();
    !bytes.is_empty()
        && bytes[0].is_ascii_alphabetic()
        && bytes.iter().all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
        && !RESERVED_WORDS.iter().any(|word| text.eq_ignore_ascii_case(word))
}

/// YAML's printable set (tab and line breaks aside).
fn is_printable(c: char) -> bool {
    matches!(c as u32, 0x20..=0x7e | 0x85 | 0xa0..=0xd7ff | 0xe000..=0xfffd | 0x10000..=0x10ffff) || c == '\t'
}

/// Integers up to this magnitude are written without a fraction or exponent.
const PLAIN_INTEGER_LIMIT: f64 = 1e15;

/// A finite double in the shortest YAML spelling that reads back bit for bit.
///
/// Integers below 1e15 are written as integers (`3`, `-12`), other values in
/// Rust's shortest round-trip decimal form (`0.1`, `3.8000000000000003`),
/// and very large or very long ones with an exponent in the spelling that
/// YAML 1.1 and 1.2 both read as a float (`1.0e+300`, `2.5e-320`). Non-finite
/// values, which no tree holds, are written as `.nan`, `.inf` and `-.inf`.
pub fn yaml_number(value: f64) -> String {
    if value.is_nan() {
        return ".nan".to_string();
    }
    if value.is_infinite() {
        return if value > 0.0 { ".inf".to_string() } else { "-.inf".to_string() };
    }
    if value == 0.0 {
        return if value.is_sign_negative() { "-0.0".to_string() } else { "0".to_string() };
    }
    if value.fract() == 0.0 && value.abs() < PLAIN_INTEGER_LIMIT {
        return format!("{value}");
    }
    let plain = format!("{value}");
    if plain.contains('.') && plain.len() <= 24 {
        return plain;
    }
    let exponential = format!("{value:e}");
    let (mantissa, exponent) = exponential.split_once('e').unwrap_or((&exponential, "0"));
    let mut out = String::with_capacity(exponential.len() + 3);
    out.push_str(mantissa);
    if !mantissa.contains('.') {
        out.push_str(".0");
    }
    out.push('e');
    if !exponent.starts_with('-') {
        out.push('+');
    }
    out.push_str(exponent);
    out
}

/// Writes a Pacman test file (docs/format.md section 10) that
/// `load::pacman` reads back as `test`; `comment` lines go first, as `#` lines.
pub fn pacman_to_yaml(test: &crate::game::pacman::test::PacmanTest, comment: &[String]) -> String {
    use crate::game::pacman::test::PacmanTestKind;
    use crate::thresholds::Thresholds;
    let mut out = String::new();
    for line in comment {
        let _ = writeln!(out, "# {line}");
    }
    let _ = writeln!(out, "name: {}", yaml_string(&test.name));
    if let Some(description) = &test.description {
        let _ = writeln!(out, "description: {}", yaml_string(description));
    }
    out.push_str("pacman:\n");
    let _ = writeln!(out, "  layout_name: {}", yaml_string(&test.layout_name));
    out.push_str("  layout: |\n");
    for row in &test.layout.rows {
        let _ = writeln!(out, "    {row}");
    }
    let ghosts: Vec<String> = test.ghosts.iter().map(|ghost| ghost.class_name().to_string()).collect();
    let _ = writeln!(out, "  ghosts: {}", yaml_list(&ghosts));
    let _ = writeln!(out, "  agent: {}", yaml_string(&test.agent.class));
    if !test.agent.arguments.is_empty() {
        let arguments: Vec<String> = test
            .agent
            .arguments
            .iter()
            .map(|(key, value)| format!("{}: {}", yaml_string(key), yaml_json(value)))
            .collect();
        let _ = writeln!(out, "  agent_args: {{{}}}", arguments.join(", "));
    }
    let _ = writeln!(out, "  seed: {}", test.seed);
    let _ = writeln!(
        out,
        "  time_limit: {{move: {}, game: {}}}",
        yaml_number(test.move_time_limit.as_secs_f64()),
        yaml_number(test.game_time_limit.as_secs_f64())
    );
    let criterion = |out: &mut String, key: &str, criterion: &Thresholds| {
        let mut parts = Vec::new();
        if let Some(minimum) = criterion.minimum {
            parts.push(format!("minimum: {}", yaml_number(minimum)));
        }
        if !criterion.at.is_empty() {
            let thresholds: Vec<String> = criterion.at.iter().map(|&t| yaml_number(t)).collect();
            parts.push(format!("thresholds: [{}]", thresholds.join(", ")));
        }
        if !parts.is_empty() {
            let _ = writeln!(out, "    {key}: {{{}}}", parts.join(", "));
        }
    };
    match &test.kind {
        PacmanTestKind::Play(play) => {
            out.push_str("  play:\n");
            let _ = writeln!(out, "    games: {}", play.games);
            criterion(&mut out, "score", &play.score);
            criterion(&mut out, "not_timed_out", &play.not_timed_out);
            criterion(&mut out, "wins", &play.wins);
            let _ = writeln!(out, "    random: {}", play.random.name());
        }
        PacmanTestKind::Replay(replay) => {
            out.push_str("  replay:\n");
            let _ = writeln!(out, "    algorithm: {}", replay.algorithm.name());
            let _ = writeln!(out, "    depth: {}", replay.depth);
            out.push_str("    steps:\n");
            let sets = |sets: &[Vec<crate::game::pacman::Direction>]| {
                let inner: Vec<String> = sets
                    .iter()
                    .map(|set| format!("[{}]", set.iter().map(|d| d.name()).collect::<Vec<_>>().join(", ")))
                    .collect();
                format!("[{}]", inner.join(", "))
            };
            for step in &replay.steps {
                let explored: Vec<String> = step.explored.iter().map(ToString::to_string).collect();
                let _ = write!(
                    out,
                    "      - {{play: {}, best: {}, explored: [{}]",
                    step.play.name(),
                    sets(&step.best),
                    explored.join(", ")
                );
                if !step.other_depths.is_empty() {
                    let _ = write!(out, ", other_depths: {}", sets(&step.other_depths));
                }
                if !step.partial_ply.is_empty() {
                    let _ = write!(out, ", partial_ply: {}", sets(&step.partial_ply));
                }
                out.push_str("}\n");
            }
        }
    }
    out
}

/// A JSON value as YAML flow text (strings quoted when they must be).
fn yaml_json(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(text) => yaml_string(text),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::load::load_tree_str;
    use crate::tree::{ChildSpec, NodeBody, NodeSpec, SearchDefaults, TreeBuilder};

    fn load(text: &str) -> Tree {
        match load_tree_str(text.to_string(), Path::new("t.yaml")) {
            Ok(loaded) => loaded.tree,
            Err(error) => panic!("{error}\n--- text ---\n{text}"),
        }
    }

    /// Everything a tree file says, compared field by field (floats by bits).
    fn assert_same_tree(a: &Tree, b: &Tree) {
        assert_eq!(a.name(), b.name());
        assert_eq!(a.description(), b.description());
        assert_eq!(a.len(), b.len());
        assert_eq!(a.search_defaults(), b.search_defaults());
        assert_eq!(a.game(), b.game());
        assert_eq!(a.players(), b.players());
        assert_eq!(a.expectations().len(), b.expectations().len());
        for ((name_a, ea), (name_b, eb)) in a.expectations().iter().zip(b.expectations()) {
            assert_eq!(name_a, name_b);
            assert_eq!(ea.value.map(f64::to_bits), eb.value.map(f64::to_bits), "expect.{name_a}.value");
            assert_eq!(ea.vector, eb.vector, "expect.{name_a}.value");
            assert_eq!((&ea.action, &ea.visited), (&eb.action, &eb.visited), "expect.{name_a}");
        }
        for i in 0..a.len() as u32 {
            let index = NodeIndex(i);
            let (na, nb) = (a.node(index), b.node(index));
            assert_eq!(a.id(index), b.id(index));
            assert_eq!(a.action(index), b.action(index), "action into {}", a.id(index));
            assert_eq!(na.kind, nb.kind, "kind of {}", a.id(index));
            assert_eq!(na.utility.to_bits(), nb.utility.to_bits(), "utility of {}", a.id(index));
            assert_eq!(na.eval.map(f64::to_bits), nb.eval.map(f64::to_bits), "eval of {}", a.id(index));
            assert_eq!(na.probability.to_bits(), nb.probability.to_bits(), "probability of {}", a.id(index));
            assert_eq!(
                (na.first_child, na.child_count, na.ply, na.parent),
                (nb.first_child, nb.child_count, nb.ply, nb.parent)
            );
        }
    }

    fn round_trip(tree: &Tree) -> String {
        let yaml = tree_to_yaml(tree);
        let again = load(&yaml);
        assert_same_tree(tree, &again);
        // Writing is deterministic and a fixed point.
        assert_eq!(tree_to_yaml(&again), yaml);
        yaml
    }

    #[test]
    fn every_curated_tree_round_trips() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("test-cases");
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .expect("test-cases/ exists")
            .flatten()
            .map(|entry| entry.path())
            .filter(|path| path.extension().is_some_and(|e| e == "yaml"))
            .collect();
        files.sort();
        assert!(files.len() >= 40, "found only {} trees", files.len());
        for path in files {
            let text = std::fs::read_to_string(&path).unwrap();
            let tree = load_tree_str(text, &path).unwrap_or_else(|e| panic!("{e}")).tree;
            round_trip(&tree);
        }
    }

    #[test]
    fn a_max_n_tree_and_the_settings_of_section_8_round_trip() {
        let tree = load(
            "players: 3\nroot: A\nnodes:\n  A: {p1: [B, {r: C}]}\n  B: {p2: [[1, 2, 3], [4, -0.5, 2]], eval: [0, 1, 0]}\n  \
             C: {chance: [D, [7, 3, 8]], probs: [0.25, 0.75]}\n  D: {utility: [6, 1, 2]}\n\
             search: {depth: 3, budget: 40, iterations: 100, seed: 18446744073709551615, exploration: 0.5}\n\
             expect:\n  maxn: {value: [5.5, 2.5, 6.5], action: r}\n",
        );
        let yaml = round_trip(&tree);
        assert!(yaml.contains("  B: {p2: [[1, 2, 3], [4, -0.5, 2]], eval: [0, 1, 0]}\n"), "{yaml}");
        assert!(yaml.contains("  D: {utility: [6, 1, 2]}\n"), "{yaml}");
        assert!(yaml.contains("  maxn: {value: [5.5, 2.5, 6.5], action: r}\n"), "{yaml}");
        assert!(yaml.contains("  seed: 18446744073709551615\n  exploration: 0.5\n"), "{yaml}");
    }

    #[test]
    fn the_format_example_is_written_as_in_the_contract() {
        let tree = load(
            "name: mixed-example\nroot: A\nnodes:\n  A: {max: [B, C, D]}\n  B: {min: [3, 12, 8]}\n  \
             C: {min: [{c1: H}, {c2: I}, {c3: J}], eval: 4}\n  D: {chance: [K, L], probs: [0.25, 0.75]}\n  H: 2\n  \
             I: {value: 4}\n  J: 6\n  K: 14\n  L: {max: [5, 2], eval: 1}\nsearch:\n  prune_on_equal: true\n\
             expect:\n  alphabeta:  {value: 7.25, action: D, visited: [A, B, B.1, B.2, B.3, C, H, D, K, L, L.1, L.2]}\n  \
             expectimax: {value: 7.25, action: D}\n",
        );
        let yaml = round_trip(&tree);
        assert_eq!(
            yaml,
            "name: mixed-example\nroot: A\nnodes:\n  A: {max: [B, C, D]}\n  B: {min: [3, 12, 8]}\n  \
             C: {min: [{c1: H}, {c2: I}, {c3: J}], eval: 4}\n  D: {chance: [K, L], probs: [0.25, 0.75]}\n  H: 2\n  \
             I: 4\n  J: 6\n  K: 14\n  L: {max: [5, 2], eval: 1}\nsearch:\n  prune_on_equal: true\nexpect:\n  \
             alphabeta: {value: 7.25, action: D, visited: [A, B, B.1, B.2, B.3, C, H, D, K, L, L.1, L.2]}\n  \
             expectimax: {value: 7.25, action: D}\n"
        );
    }

    #[test]
    fn the_game_block_round_trips() {
        let tree = load(
            "root: a\nnodes:\n  a: {max: [{Left: \"1\"}, {Right: yes}, {Stop: c}]}\n  \"1\": 3\n  yes: -2\n  c: 0\n\
             game: {agents: 2, wins: [\"1\"], losses: [yes]}\n",
        );
        let game = tree.game().expect("a game block");
        assert_eq!(game.agents, 2);
        assert_eq!(game.outcomes.values().copied().collect::<Vec<_>>(), [Outcome::Win, Outcome::Lose]);
        let yaml = round_trip(&tree);
        assert!(yaml.contains("game:\n  agents: 2\n  wins: [\"1\"]\n  losses: [\"yes\"]\n"), "{yaml}");
    }

    /// Ids and actions that YAML would read as something else if written plain.
    const NASTY: [&str; 44] = [
        "1",
        "-1",
        "0.5",
        "1e3",
        ".5",
        "+1",
        "0x1F",
        "0o17",
        "1_000",
        "007",
        "true",
        "False",
        "YES",
        "no",
        "on",
        "Off",
        "y",
        "N",
        "null",
        "Null",
        "~",
        "nan",
        ".NaN",
        "inf",
        "-.inf",
        "",
        " ",
        " lead",
        "trail ",
        "a: b",
        "a #b",
        "#c",
        "[x]",
        "{y}",
        "a,b",
        "\"q\"",
        "'s'",
        "back\\slash",
        "tab\there",
        "new\nline",
        "*star",
        "&amp",
        "!tag",
        "%pct",
    ];

    const MORE_NASTY: [&str; 12] = [
        "@at",
        "`tick",
        "- dash",
        "? q",
        "|",
        ">",
        "é",
        "日本",
        "\u{2028}",
        "\u{feff}bom",
        "ctl\u{1}\u{7f}\u{85}",
        "x~2",
    ];

    #[test]
    fn nasty_ids_and_actions_round_trip() {
        let ids: Vec<&str> = NASTY.iter().chain(MORE_NASTY.iter()).copied().collect();
        let mut builder = TreeBuilder::new("nasty: \"name\"", "root node");
        let mut children = Vec::new();
        for (k, id) in ids.iter().enumerate() {
            // Alternate bare ids and labelled edges whose labels are nasty too.
            children.push(if k % 2 == 0 {
                ChildSpec::id(*id)
            } else {
                ChildSpec::labelled(ids[ids.len() - 1 - k].to_string() + "!", *id)
            });
        }
        builder.add(NodeSpec::internal("root node", NodeKind::Max, children));
        for (k, id) in ids.iter().enumerate() {
            if k % 3 == 0 {
                builder.add(NodeSpec::internal(
                    *id,
                    NodeKind::Min,
                    vec![ChildSpec::leaf(k as f64), ChildSpec::leaf(-0.5)],
                ));
            } else {
                builder.add(NodeSpec::terminal(*id, k as f64 / 7.0));
            }
        }
        let tree = builder.build().expect("a valid tree").with_metadata(
            Some("two\nlines: [x] # not a comment\n".to_string()),
            SearchDefaults::of(None, Some(false)),
            [(
                "minimax".to_string(),
                Expectation {
                    value: Some(1.0 / 3.0),
                    action: Some(Some("0.5".into())),
                    visited: Some(vec!["~".into(), "".into()]),
                    vector: None,
                },
            )]
            .into_iter()
            .collect(),
        );
        round_trip(&tree);
    }

    #[test]
    fn inline_leaf_ids_are_inlined_only_where_the_loader_would_make_them() {
        let mut builder = TreeBuilder::new("t", "A");
        builder.add(NodeSpec::internal(
            "A",
            NodeKind::Max,
            vec![
                ChildSpec::leaf(1.0), // A.1, inline
                ChildSpec::id("A.3"), // id of another position: its own line
                ChildSpec::labelled("go", "A.3x"),
                ChildSpec::labelled("A.4", "Z"),    // an action spelled like an inline id
                ChildSpec::labelled("left", "A.5"), // A.5 with another action: its own line
            ],
        ));
        builder.add(NodeSpec::terminal("A.3", 3.0));
        builder.add(NodeSpec::terminal("A.3x", 4.0));
        builder.add(NodeSpec::terminal("Z", 5.0));
        builder.add(NodeSpec::terminal("A.5", 6.0));
        let tree = builder.build().unwrap();
        let yaml = round_trip(&tree);
        assert!(yaml.contains("  A: {max: [1, A.3, {go: A.3x}, {A.4: Z}, {left: A.5}]}\n"), "{yaml}");
        assert!(yaml.contains("  A.5: 6\n"), "{yaml}");
    }

    #[test]
    fn labelled_inline_leaves_become_labelled_edges() {
        let tree = load("root: R\nnodes:\n  R: {max: [{left: 3}, {right: 5.5}, 2]}\n");
        let yaml = round_trip(&tree);
        assert!(yaml.contains("R: {max: [{left: R.1}, {right: R.2}, 2]}"), "{yaml}");
    }

    #[test]
    fn numbers_round_trip_exactly() {
        let values = [
            0.0,
            -0.0,
            1.0,
            -7.0,
            0.1,
            0.1 + 0.2,
            1.0 / 3.0,
            -2.5e-8,
            1e-7,
            123456.789,
            999_999_999_999_999.0,
            1e15,
            -1e15 - 2.0,
            9_007_199_254_740_993.0,
            1e21,
            1.5e300,
            -1e-300,
            5e-324,
            f64::MAX,
            f64::MIN_POSITIVE,
            f64::EPSILON,
            std::f64::consts::PI,
        ];
        let mut builder = TreeBuilder::new("numbers", "R");
        let children = values.iter().map(|&v| ChildSpec::leaf(v)).collect();
        builder.add(NodeSpec {
            id: "R".into(),
            body: NodeBody::Internal {
                kind: NodeKind::Chance,
                children,
                probs: Some(std::iter::repeat_n(0.1, 10).chain(std::iter::repeat_n(0.0, values.len() - 10)).collect()),
                eval: Some(-0.0),
            },
        });
        let tree = builder.build().unwrap();
        round_trip(&tree);
        for value in values {
            let text = yaml_number(value);
            assert_eq!(text.parse::<f64>().unwrap().to_bits(), value.to_bits(), "{text}");
        }
        assert_eq!(yaml_number(3.0), "3");
        assert_eq!(yaml_number(-0.0), "-0.0");
        assert_eq!(yaml_number(0.30000000000000004), "0.30000000000000004");
        assert_eq!(yaml_number(1e300), "1.0e+300");
        assert_eq!(yaml_number(-2.5e-320), "-2.5e-320");
    }

    #[test]
    fn uniform_probs_are_left_out_and_others_kept() {
        let tree = load(
            "root: R\nnodes:\n  R: {max: [A, B, C]}\n  A: {chance: [1, 2, 3]}\n  \
             B: {chance: [1, 2, 3], probs: [0.3333333333333333, 0.3333333333333333, 0.3333333333333333]}\n  \
             C: {chance: [1, 2], probs: [0.25, 0.75]}\n",
        );
        let yaml = round_trip(&tree);
        assert!(yaml.contains("  A: {chance: [1, 2, 3]}\n"), "{yaml}");
        assert!(yaml.contains("  B: {chance: [1, 2, 3]}\n"), "1/3 written out is the uniform 1.0 / 3: {yaml}");
        assert!(yaml.contains("  C: {chance: [1, 2], probs: [0.25, 0.75]}\n"), "{yaml}");
    }

    #[test]
    fn descriptions_of_every_shape_round_trip() {
        for description in [
            "",
            "plain",
            "one line: with colon",
            "two\nlines",
            "trailing\n",
            "trailing two\n\n",
            "\nleading break",
            "  indented first\nsecond",
            "a\n\n\nb",
            "tabs\tand trailing spaces   \n  x  ",
            "crlf\r\nline",
            "only\n",
            "\n",
            "\n\n",
            "   ",
            "#hash\n- dash\n? key\n",
            "diagram\n   /  \\\n  a    b\n",
        ] {
            let tree = load("root: A\nnodes:\n  A: 1\n").with_metadata(
                Some(description.to_string()),
                SearchDefaults::of(Some(0), None),
                Default::default(),
            );
            round_trip(&tree);
        }
    }
}
