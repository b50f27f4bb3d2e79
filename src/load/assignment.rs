//! Loading `assignment.yaml` into the grader's plain [`Assignment`].
//!
//! ```yaml
//! title: Adversarial search
//! time_limit: 10                  # seconds per test (default 10)
//! tests_dir: ../../test-cases     # where test paths and globs start (default: this folder)
//! languages:
//!   - {name: python, detect: [search.py], run: [python3, -u, search.py], env: {PYTHONPATH: "{kits}/python"}}
//! questions:
//!   - {id: q1, title: Minimax, points: 5, algorithm: minimax, scoring: all-or-nothing,
//!      tests: [aima-fig5-2.yaml, "minimax-*.yaml"], hidden_tests: ["hidden/q1-*.yaml"]}
//!   - {id: q5, title: Evaluation function, points: 6, pacman: [q5-grade-agent.yaml]}   # Pacman games
//! ```

use std::collections::{BTreeMap, HashSet};
use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use serde_saphyr::Spanned;

use super::{Diagnostic, LoadError, Position, parser_options, spanned_position, yaml_diagnostic};
use crate::assignment::{
    Assignment, ChildOrder, GameGeneration, Generated, Language, Question, QuestionKind, Scoring, Searches, TestFile,
    Verdict,
};
use crate::engine::{Algorithm, SettingOverrides};
use crate::generator::GenOptions;
use crate::points::Points;
use crate::tree::NodeKind;

/// The file name of an assignment inside its folder.
pub const ASSIGNMENT_FILE: &str = "assignment.yaml";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAssignment {
    name: Option<String>,
    title: Option<String>,
    time_limit: Option<f64>,
    tests_dir: Option<Spanned<String>>,
    #[serde(default)]
    languages: Vec<RawLanguage>,
    questions: Vec<Spanned<RawQuestion>>,
    /// `mit6034` or `strict` (docs/format.md, assignments); absent: value, action and order.
    verdict: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLanguage {
    name: String,
    detect: Vec<String>,
    build: Option<Vec<String>>,
    build_time_limit: Option<f64>,
    run: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawQuestion {
    id: Spanned<String>,
    title: Option<String>,
    points: f64,
    algorithm: Option<Spanned<String>>,
    depth: Option<u32>,
    prune_on_equal: Option<bool>,
    /// The settings of docs/format.md 8.2 and 8.4, over each tree's own.
    budget: Option<Spanned<u64>>,
    iterations: Option<Spanned<u32>>,
    seed: Option<u64>,
    exploration: Option<Spanned<f64>>,
    scoring: Option<Spanned<String>>,
    child_order: Option<Spanned<String>>,
    #[serde(default)]
    tests: Vec<Spanned<String>>,
    #[serde(default)]
    hidden_tests: Vec<Spanned<String>>,
    generate: Option<Spanned<RawGenerate>>,
    play: Option<Spanned<super::play::RawPlay>>,
    /// Pacman test files (docs/format.md section 10).
    #[serde(default)]
    pacman: Vec<Spanned<String>>,
    /// Call test files (docs/format.md, "Calls questions").
    #[serde(default)]
    calls: Vec<Spanned<String>>,
}

/// `generate: {seed_from: student, count: 3, depth: 4, ...}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGenerate {
    seed_from: Option<Spanned<String>>,
    seed: Option<u64>,
    #[serde(default = "default_count")]
    count: u32,
    depth: Option<u32>,
    branching: Option<[u32; 2]>,
    kinds: Option<Vec<Spanned<String>>>,
    values: Option<[i64; 2]>,
    ties: Option<f64>,
    evals: Option<bool>,
    cut: Option<u32>,
    #[serde(default)]
    discriminating: bool,
    /// A game file whose start is advanced by random moves (docs/courses.md).
    game: Option<Spanned<String>>,
    plies: Option<[u32; 2]>,
    max_nodes: Option<usize>,
}

fn default_count() -> u32 {
    3
}

/// Whether the file is an assignment rather than a tree: named
/// `assignment.yaml` (or `.yml`), or a YAML mapping with the key only an
/// assignment has (`questions`). A file that cannot be read or parsed is
/// not: the tree loader then says what is wrong.
pub fn is_assignment_file(file: &Path) -> bool {
    #[derive(serde::Deserialize)]
    struct Probe {
        questions: Option<serde::de::IgnoredAny>,
    }
    if matches!(file.file_name().and_then(|n| n.to_str()), Some("assignment.yaml" | "assignment.yml")) {
        return true;
    }
    let Ok(text) = std::fs::read_to_string(file) else { return false };
    serde_saphyr::from_str::<Probe>(&text).is_ok_and(|probe| probe.questions.is_some())
}

/// Reads `DIR/assignment.yaml` (or a file path given directly).
pub fn load_assignment(path: &Path) -> Result<Assignment, LoadError> {
    load_assignment_with_hidden(path, None)
}

/// The folder an assignment's test paths and globs start from (its
/// `tests_dir`, from the folder of `assignment.yaml`).
pub fn tests_dir(dir: &Path) -> Result<PathBuf, LoadError> {
    let file = dir.join(ASSIGNMENT_FILE);
    let text = std::fs::read_to_string(&file).map_err(|error| {
        LoadError::new(&file, vec![Diagnostic::at(None, format!("cannot read the assignment: {error}"))], None)
    })?;
    let raw: RawAssignment = serde_saphyr::from_str_with_options(&text, parser_options())
        .map_err(|error| LoadError::new(&file, vec![yaml_diagnostic(&error)], Some(&text)))?;
    Ok(dir.join(raw.tests_dir.as_ref().map_or(".", |spanned| spanned.value.as_str())))
}

/// The text of an assignment file with its `tests_dir` set to `folder`,
/// everything else as written: the value is replaced where the YAML has it
/// (block or flow style, quoted or not), or the key added when absent.
pub fn with_tests_dir(text: &str, folder: &str, file: &Path) -> Result<String, LoadError> {
    let raw: RawAssignment = serde_saphyr::from_str_with_options(text, parser_options())
        .map_err(|error| LoadError::new(file, vec![yaml_diagnostic(&error)], Some(text)))?;
    let value = super::write::yaml_string(folder);
    match raw.tests_dir.as_ref().and_then(spanned_position) {
        Some(position) => Ok(replace_at(text, position, &value)),
        None => Ok(add_top_level_key(text, &format!("tests_dir: {value}"))),
    }
}

/// `text` with the token at `position` (a 1-based line and column, a width
/// in characters) replaced by `replacement`.
fn replace_at(text: &str, position: Position, replacement: &str) -> String {
    let mut out = String::with_capacity(text.len() + replacement.len());
    for (number, line) in text.split_inclusive('\n').enumerate() {
        if number + 1 != position.line as usize {
            out.push_str(line);
            continue;
        }
        let chars: Vec<char> = line.chars().collect();
        let start = (position.column as usize).saturating_sub(1).min(chars.len());
        let end = (start + position.width as usize).min(chars.len());
        out.extend(&chars[..start]);
        out.push_str(replacement);
        out.extend(&chars[end..]);
    }
    out
}

/// `text` with `entry` added to its top-level mapping: inside the braces of
/// a flow mapping, else as the first line after comments and a `---`.
fn add_top_level_key(text: &str, entry: &str) -> String {
    let mut lines: Vec<&str> = text.lines().collect();
    let first = lines.iter().position(|line| {
        let code = line.trim();
        !code.is_empty() && !code.starts_with('#') && code != "---"
    });
    match first {
        Some(index) if lines[index].trim_start().starts_with('{') => {
            let line = lines[index];
            let brace = line.find('{').expect("the line starts with a brace");
            let edited = format!("{}{{{entry}, {}", &line[..brace], &line[brace + 1..]);
            lines[index] = "";
            let mut out: Vec<String> = lines.iter().map(|line| line.to_string()).collect();
            out[index] = edited;
            out.join("\n") + "\n"
        }
        Some(index) => {
            let mut out: Vec<String> = lines.iter().map(|line| line.to_string()).collect();
            out.insert(index, entry.to_string());
            out.join("\n") + "\n"
        }
        None => format!("{text}{entry}\n"),
    }
}

/// Like [`load_assignment`], with `hidden_tests` looked up in `hidden_dir`
/// instead of the tests folder: instructors keep hidden tests out of the
/// repository students see.
pub fn load_assignment_with_hidden(path: &Path, hidden_dir: Option<&Path>) -> Result<Assignment, LoadError> {
    let file = if path.is_dir() { path.join(ASSIGNMENT_FILE) } else { path.to_path_buf() };
    let dir = file.parent().map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    let text = std::fs::read_to_string(&file).map_err(|error| {
        LoadError::new(&file, vec![Diagnostic::at(None, format!("cannot read the assignment: {error}"))], None)
    })?;
    let raw: RawAssignment = serde_saphyr::from_str_with_options(&text, parser_options())
        .map_err(|error| LoadError::new(&file, vec![yaml_diagnostic(&error)], Some(&text)))?;
    let mut diagnostics = Vec::new();
    let assignment = translate(raw, &dir, hidden_dir, &mut diagnostics);
    if diagnostics.is_empty() { Ok(assignment) } else { Err(LoadError::new(&file, diagnostics, Some(&text))) }
}

fn translate(
    raw: RawAssignment,
    dir: &Path,
    hidden_dir: Option<&Path>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Assignment {
    let name = raw.name.unwrap_or_else(|| {
        dir.canonicalize()
            .ok()
            .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_default()
    });
    let tests_dir = dir.join(raw.tests_dir.as_ref().map_or(".", |spanned| spanned.value.as_str()));
    let verdict = match raw.verdict.as_ref().map(|spelled| spelled.value.as_str()) {
        None | Some("order") => Verdict::Order,
        Some("mit6034") => Verdict::Mit6034,
        Some("strict") => Verdict::Strict,
        Some(other) => {
            let at = raw.verdict.as_ref().and_then(spanned_position);
            diagnostics
                .push(Diagnostic::at(at, format!("unknown verdict `{other}` (expected order, mit6034 or strict)")));
            Verdict::Order
        }
    };
    let folders = TestFolders { assignment: dir, public: &tests_dir, hidden: hidden_dir.unwrap_or(&tests_dir) };
    let mut seen_ids = HashSet::new();
    let mut questions = Vec::new();
    for question in raw.questions {
        let position = spanned_position(&question);
        let question = question.value;
        if !seen_ids.insert(question.id.value.clone()) {
            diagnostics.push(Diagnostic::at(
                spanned_position(&question.id),
                format!("duplicate question id `{}`", question.id.value),
            ));
        }
        if let Some(question) = translate_question(question, position, &folders, diagnostics) {
            questions.push(question);
        }
    }
    Assignment {
        title: raw.title.unwrap_or_else(|| name.clone()),
        name,
        dir: dir.to_path_buf(),
        time_limit: seconds(raw.time_limit, 10.0),
        languages: if raw.languages.is_empty() {
            default_languages()
        } else {
            raw.languages.into_iter().map(translate_language).collect()
        },
        questions,
        verdict,
    }
}

/// Python and Rust with the shipped kits, for assignments that declare no languages.
fn default_languages() -> Vec<Language> {
    let words = |words: &[&str]| words.iter().map(|w| w.to_string()).collect::<Vec<_>>();
    vec![
        Language {
            name: "python".into(),
            detect: words(&["search.py"]),
            build: None,
            build_time_limit: Duration::from_secs(600),
            run: words(&["python3", "-u", "search.py"]),
            env: vec![("PYTHONPATH".into(), "{kits}/python".into())],
        },
        Language {
            name: "rust".into(),
            detect: words(&["Cargo.toml"]),
            build: Some(words(&["cargo", "build", "--release", "--offline", "--quiet"])),
            build_time_limit: Duration::from_secs(600),
            run: words(&["target/release/search"]),
            env: Vec::new(),
        },
    ]
}

fn translate_language(raw: RawLanguage) -> Language {
    Language {
        name: raw.name,
        detect: raw.detect,
        build: raw.build,
        build_time_limit: seconds(raw.build_time_limit, 600.0),
        run: raw.run,
        env: raw.env.into_iter().collect(),
    }
}

fn seconds(value: Option<f64>, default: f64) -> Duration {
    Duration::try_from_secs_f64(value.unwrap_or(default)).unwrap_or(Duration::from_secs_f64(default))
}

/// Where paths start: the assignment's own folder, public tests, and hidden ones.
struct TestFolders<'a> {
    assignment: &'a Path,
    public: &'a Path,
    hidden: &'a Path,
}

fn translate_question(
    raw: RawQuestion,
    position: Option<Position>,
    folders: &TestFolders<'_>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<Question> {
    if raw.play.is_some() {
        return translate_play_question(raw, position, folders, diagnostics);
    }
    if !raw.calls.is_empty() {
        return translate_calls_question(raw, position, folders, diagnostics);
    }
    let searches_trees = !raw.tests.is_empty() || !raw.hidden_tests.is_empty() || raw.generate.is_some();
    let algorithm = match raw.algorithm.as_ref() {
        Some(spelled) => match spelled.value.parse::<Algorithm>() {
            Ok(algorithm) => Some(algorithm),
            Err(error) => {
                diagnostics.push(Diagnostic::at(spanned_position(spelled), error.to_string()));
                return None;
            }
        },
        // A question of Pacman tests alone searches no tree.
        None if !searches_trees && !raw.pacman.is_empty() => None,
        None => {
            diagnostics.push(Diagnostic::at(
                position,
                format!(
                    "question `{}` needs an `algorithm` (or a `play:` block, to play games, `pacman:` tests, or \
                     `calls:` of the program's functions)",
                    raw.id.value
                ),
            ));
            return None;
        }
    };
    let scoring = match raw.scoring.as_ref().map(|s| s.value.as_str()) {
        None | Some("per-test") => Scoring::PerTest,
        Some("all-or-nothing") => Scoring::AllOrNothing,
        Some("thresholds") => {
            let at = raw.scoring.as_ref().and_then(spanned_position);
            diagnostics.push(Diagnostic::at(at, "scoring `thresholds` is for questions that `play:` games"));
            return None;
        }
        Some(other) => {
            let at = raw.scoring.as_ref().and_then(spanned_position);
            diagnostics
                .push(Diagnostic::at(at, format!("unknown scoring `{other}` (expected per-test or all-or-nothing)")));
            return None;
        }
    };
    let child_order = match raw.child_order.as_ref().map(|s| s.value.as_str()) {
        None | Some("given") => ChildOrder::Given,
        Some("any") => ChildOrder::Any,
        Some(other) => {
            let at = raw.child_order.as_ref().and_then(spanned_position);
            diagnostics.push(Diagnostic::at(at, format!("unknown child_order `{other}` (expected given or any)")));
            return None;
        }
    };
    if child_order == ChildOrder::Any
        && let Some(algorithm) = algorithm
        && algorithm.order_decides_search()
    {
        let at = raw.child_order.as_ref().and_then(spanned_position);
        diagnostics.push(Diagnostic::at(
            at,
            match algorithm.window_per_node() {
                true => format!(
                    "question `{}`: child_order: any is for minimax and expectimax; in alpha-beta the order of the \
                     children decides what is pruned",
                    raw.id.value
                ),
                _ => format!(
                    "question `{}`: child_order: any is for minimax, expectimax and maxn; in {algorithm} the order \
                     of the children decides what is searched",
                    raw.id.value
                ),
            },
        ));
        return None;
    }
    let overrides = read_overrides(&raw, diagnostics)?;
    let points = Points::from_decimal(raw.points);
    if points.is_none() {
        diagnostics.push(Diagnostic::at(
            position,
            format!(
                "question `{}`: points must be a number >= 0 in millionths at most (such as 5 or 2.5)",
                raw.id.value
            ),
        ));
    }
    let mut tests = Vec::new();
    for (patterns, hidden, folder) in [(&raw.tests, false, folders.public), (&raw.hidden_tests, true, folders.hidden)] {
        for pattern in patterns {
            match expand_pattern(folder, &pattern.value) {
                Ok(paths) => tests.extend(paths.into_iter().map(|path| TestFile { path, hidden })),
                Err(message) => diagnostics.push(Diagnostic::at(spanned_position(pattern), message)),
            }
        }
    }
    // Overlapping globs (a file named alone and matched by a glob) list a test once.
    let mut listed = HashSet::new();
    tests.retain(|test| listed.insert(test.path.clone()));
    let mut pacman = Vec::new();
    for pattern in &raw.pacman {
        match expand_pattern(folders.public, &pattern.value) {
            Ok(paths) => pacman.extend(paths.into_iter().map(|path| TestFile { path, hidden: false })),
            Err(message) => diagnostics.push(Diagnostic::at(spanned_position(pattern), message)),
        }
    }
    pacman.retain(|test| listed.insert(test.path.clone()));
    let generate = raw.generate.and_then(|spec| translate_generate(spec, folders.public, diagnostics));
    if !searches_trees && generate.is_none() && raw.pacman.is_empty() {
        diagnostics.push(Diagnostic::at(position, format!("question `{}` has no tests", raw.id.value)));
    }
    let kind = match algorithm {
        Some(algorithm) => QuestionKind::Search(Searches {
            algorithm,
            depth: raw.depth,
            prune_on_equal: raw.prune_on_equal,
            overrides,
            child_order,
            tests,
            generate,
            pacman,
        }),
        None => QuestionKind::Pacman(pacman),
    };
    Some(Question {
        title: raw.title.unwrap_or_else(|| raw.id.value.clone()),
        id: raw.id.value,
        points: points.unwrap_or(Points::ZERO),
        scoring,
        kind,
    })
}

/// The keys of searching (and Pacman) questions that `raw` gives, in the
/// order the refusals list them: a play or calls question takes none.
fn search_keys_given(raw: &RawQuestion) -> Vec<&'static str> {
    let keys = [
        ("algorithm", raw.algorithm.is_some()),
        ("depth", raw.depth.is_some()),
        ("prune_on_equal", raw.prune_on_equal.is_some()),
        ("budget", raw.budget.is_some()),
        ("iterations", raw.iterations.is_some()),
        ("seed", raw.seed.is_some()),
        ("exploration", raw.exploration.is_some()),
        ("child_order", raw.child_order.is_some()),
        ("tests", !raw.tests.is_empty()),
        ("hidden_tests", !raw.hidden_tests.is_empty()),
        ("generate", raw.generate.is_some()),
        ("pacman", !raw.pacman.is_empty()),
    ];
    keys.iter().filter(|(_, given)| *given).map(|(key, _)| *key).collect()
}

/// A question that plays games: the keys of a search question have no part in it.
fn translate_play_question(
    raw: RawQuestion,
    position: Option<Position>,
    folders: &TestFolders<'_>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<Question> {
    let id = raw.id.value.clone();
    let mut given = search_keys_given(&raw);
    if !raw.calls.is_empty() {
        given.push("calls");
    }
    if !given.is_empty() {
        diagnostics.push(Diagnostic::at(
            position,
            format!(
                "question `{id}` plays games, so it takes no {} (those are for questions that search trees)",
                given.join(", ")
            ),
        ));
        return None;
    }
    if let Some(scoring) = raw.scoring.as_ref().filter(|scoring| scoring.value != "thresholds") {
        diagnostics.push(Diagnostic::at(
            spanned_position(scoring),
            format!("question `{id}` plays games: its points go by `thresholds`, not `{}`", scoring.value),
        ));
        return None;
    }
    let Some(points) = Points::from_decimal(raw.points) else {
        diagnostics.push(Diagnostic::at(
            position,
            format!("question `{id}`: points must be a number >= 0 in millionths at most (such as 5 or 2.5)"),
        ));
        return None;
    };
    let play = super::play::translate_play(raw.play?, &id, folders.assignment, folders.public, diagnostics)?;
    Some(Question {
        title: raw.title.unwrap_or_else(|| id.clone()),
        id,
        points,
        scoring: Scoring::Thresholds,
        kind: QuestionKind::Play(play),
    })
}

/// A question of call tests (`calls:`): the keys of the other kinds have no part in it.
fn translate_calls_question(
    raw: RawQuestion,
    position: Option<Position>,
    folders: &TestFolders<'_>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<Question> {
    let id = raw.id.value.clone();
    let given = search_keys_given(&raw);
    if !given.is_empty() {
        diagnostics.push(Diagnostic::at(
            position,
            format!(
                "question `{id}` has `calls:`, so it takes no {} (a question is one kind: `algorithm` searches, \
                 `play:` games, `pacman:` tests or `calls:`)",
                given.join(", ")
            ),
        ));
        return None;
    }
    let scoring = match raw.scoring.as_ref().map(|s| s.value.as_str()) {
        None | Some("per-test") => Scoring::PerTest,
        Some("all-or-nothing") => Scoring::AllOrNothing,
        Some(other) => {
            let at = raw.scoring.as_ref().and_then(spanned_position);
            diagnostics.push(Diagnostic::at(
                at,
                format!("question `{id}`: unknown scoring `{other}` for calls (expected per-test or all-or-nothing)"),
            ));
            return None;
        }
    };
    let Some(points) = Points::from_decimal(raw.points) else {
        diagnostics.push(Diagnostic::at(
            position,
            format!("question `{id}`: points must be a number >= 0 in millionths at most (such as 5 or 2.5)"),
        ));
        return None;
    };
    let mut tests = Vec::new();
    let mut ok = true;
    for pattern in &raw.calls {
        match expand_pattern(folders.public, &pattern.value) {
            Ok(paths) => tests.extend(paths.into_iter().map(|path| TestFile { path, hidden: false })),
            Err(message) => {
                diagnostics.push(Diagnostic::at(spanned_position(pattern), message));
                ok = false;
            }
        }
    }
    let mut listed = HashSet::new();
    tests.retain(|test| listed.insert(test.path.clone()));
    ok.then(|| Question {
        title: raw.title.unwrap_or_else(|| id.clone()),
        id,
        points,
        scoring,
        kind: QuestionKind::Calls(tests),
    })
}

/// A question's `budget`, `iterations`, `seed` and `exploration`, checked as
/// a file's `search:` keys are.
fn read_overrides(raw: &RawQuestion, diagnostics: &mut Vec<Diagnostic>) -> Option<SettingOverrides> {
    let mut ok = true;
    let mut refuse = |at: Option<Position>, message: String| {
        diagnostics.push(Diagnostic::at(at, format!("question `{}`: {message}", raw.id.value)));
        ok = false;
    };
    if let Some(budget) = raw.budget.as_ref().filter(|budget| budget.value == 0) {
        refuse(spanned_position(budget), "`budget` is the most nodes a search may enter, at least 1".to_string());
    }
    if let Some(iterations) = raw.iterations.as_ref().filter(|iterations| iterations.value == 0) {
        refuse(spanned_position(iterations), "`iterations` (of MCTS) must be at least 1".to_string());
    }
    if let Some(exploration) = &raw.exploration
        && let Err(error) = crate::load::check_exploration(exploration.value)
    {
        refuse(spanned_position(exploration), error.to_string());
    }
    ok.then(|| SettingOverrides {
        budget: raw.budget.as_ref().map(|budget| budget.value),
        iterations: raw.iterations.as_ref().map(|iterations| iterations.value),
        seed: raw.seed,
        exploration: raw.exploration.as_ref().map(|exploration| exploration.value),
    })
}

fn translate_generate(
    spec: Spanned<RawGenerate>,
    tests_dir: &Path,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<Generated> {
    let position = spanned_position(&spec);
    let raw = spec.value;
    let game = match &raw.game {
        None => None,
        Some(file) => {
            let template = tests_dir.join(&file.value);
            if !template.is_file() {
                let message = format!("`generate: game` names {}, which is not a file", template.display());
                diagnostics.push(Diagnostic::at(spanned_position(file), message));
                return None;
            }
            let tree_keys = [raw.depth.is_some(), raw.branching.is_some(), raw.kinds.is_some(), raw.values.is_some()];
            if tree_keys.into_iter().any(|given| given)
                || raw.ties.is_some()
                || raw.evals.is_some()
                || raw.cut.is_some()
            {
                diagnostics.push(Diagnostic::at(
                    position,
                    "`generate` with `game` draws positions of that game: it takes `plies` and `max_nodes`, \
                     not the shape of a written tree (depth, branching, kinds, values, ties, evals, cut)",
                ));
                return None;
            }
            let [low, high] = raw.plies.unwrap_or([2, 4]);
            Some(GameGeneration {
                template,
                plies: (low.min(high), high.max(low)),
                max_nodes: raw.max_nodes.unwrap_or(20_000).max(1),
            })
        }
    };
    if game.is_none() && (raw.plies.is_some() || raw.max_nodes.is_some()) {
        diagnostics.push(Diagnostic::at(position, "`plies` and `max_nodes` go with `game: FILE`"));
        return None;
    }
    let per_student = match raw.seed_from.as_ref().map(|s| s.value.as_str()) {
        Some("student") => true,
        None => false,
        Some(other) => {
            let at = raw.seed_from.as_ref().and_then(spanned_position);
            diagnostics.push(Diagnostic::at(at, format!("unknown seed_from `{other}` (the one choice is `student`)")));
            return None;
        }
    };
    if !per_student && raw.seed.is_none() {
        diagnostics.push(Diagnostic::at(position, "`generate` needs `seed_from: student` or a fixed `seed`"));
        return None;
    }
    let defaults = GenOptions::default();
    let mut kinds = Vec::new();
    for kind in raw.kinds.unwrap_or_default() {
        match kind.value.as_str() {
            "max" => kinds.push(NodeKind::Max),
            "min" => kinds.push(NodeKind::Min),
            "chance" => kinds.push(NodeKind::Chance),
            other => {
                diagnostics.push(Diagnostic::at(spanned_position(&kind), format!("unknown kind `{other}`")));
                return None;
            }
        }
    }
    let options = GenOptions {
        seed: raw.seed.unwrap_or(0),
        depth: raw.depth.unwrap_or(defaults.depth).max(1),
        branching: raw.branching.map_or(defaults.branching, |[low, high]| (low.min(high).max(1), high.max(low).max(1))),
        kinds: if kinds.is_empty() { defaults.kinds } else { kinds },
        values: raw.values.map_or(defaults.values, |[low, high]| (low.min(high), high.max(low))),
        ties: raw.ties.unwrap_or(defaults.ties).clamp(0.0, 1.0),
        evals: raw.evals.unwrap_or(false),
        cut: raw.cut,
        prune_on_equal: None,
        discriminating: raw.discriminating,
        ..GenOptions::default()
    };
    if raw.count == 0 {
        diagnostics
            .push(Diagnostic::at(position, "`generate` needs `count` of at least 1 (0 trees would be free points)"));
        return None;
    }
    Some(Generated { options, count: raw.count, per_student, game })
}

/// A path or glob relative to the tests folder; it must match something.
fn expand_pattern(tests_dir: &Path, pattern: &str) -> Result<Vec<PathBuf>, String> {
    let relative = Path::new(pattern);
    if relative.is_absolute() || relative.components().any(|part| part == Component::ParentDir) {
        return Err(format!(
            "test path `{pattern}` leaves the tests folder {}: write it relative to that folder, without `..`",
            tests_dir.display()
        ));
    }
    let full = tests_dir.join(pattern);
    let text = full.to_string_lossy();
    if !pattern.contains(['*', '?', '[']) {
        return if full.is_file() {
            Ok(vec![full])
        } else {
            Err(format!("test file {} does not exist", full.display()))
        };
    }
    let entries = glob::glob(&text).map_err(|error| format!("bad glob `{pattern}`: {error}"))?;
    let mut paths: Vec<PathBuf> = entries.filter_map(Result::ok).filter(|path| path.is_file()).collect();
    paths.sort();
    if paths.is_empty() {
        return Err(format!("`{pattern}` matches no file in {}", tests_dir.display()));
    }
    Ok(paths)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> Result<Assignment, LoadError> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(ASSIGNMENT_FILE), text).unwrap();
        load_assignment(dir.path())
    }

    #[test]
    fn a_test_named_twice_is_listed_once() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.yaml"), "root: A\nnodes: {A: 1}\n").unwrap();
        let text = "questions:\n  - {id: q1, points: 1, algorithm: minimax, tests: [a.yaml, \"?.yaml\"]}\n";
        std::fs::write(dir.path().join(ASSIGNMENT_FILE), text).unwrap();
        let assignment = load_assignment(dir.path()).unwrap();
        assert_eq!(assignment.questions[0].tree_tests().len(), 1);
    }

    #[test]
    fn generated_questions_need_no_test_files() {
        let assignment = load(
            "questions:\n  - {id: q1, points: 1, algorithm: minimax, generate: {seed_from: student, count: 2, kinds: [max, min, min], branching: [3, 2]}}\n",
        )
        .unwrap();
        let generated = assignment.questions[0].generate().unwrap();
        assert!(generated.per_student);
        assert_eq!(generated.count, 2);
        assert_eq!(generated.options.kinds, [NodeKind::Max, NodeKind::Min, NodeKind::Min]);
        assert_eq!(generated.options.branching, (2, 3));
        assert_eq!(assignment.languages.len(), 2, "Python and Rust by default");
    }

    #[test]
    fn child_order_is_given_unless_any_and_never_any_for_alpha_beta() {
        let question = |extra: &str, algorithm: &str| {
            format!("questions:\n  - {{id: q1, points: 1, algorithm: {algorithm}, generate: {{seed: 1}}{extra}}}\n")
        };
        let order = |text: String| load(&text).map(|a| a.questions[0].searches().unwrap().child_order);
        assert_eq!(order(question("", "minimax")).unwrap(), ChildOrder::Given);
        assert_eq!(order(question(", child_order: any", "expectimax")).unwrap(), ChildOrder::Any);
        let unknown = order(question(", child_order: shuffled", "minimax")).unwrap_err().to_string();
        assert!(unknown.contains("unknown child_order `shuffled` (expected given or any)"), "{unknown}");
        let pruning = order(question(", child_order: any", "alphabeta")).unwrap_err().to_string();
        assert!(pruning.contains("in alpha-beta the order of the children decides what is pruned"), "{pruning}");
    }

    #[test]
    fn a_question_sets_the_searches_of_section_8() {
        let assignment = load(
            "questions:\n  - {id: q1, points: 1, algorithm: mcts, iterations: 30, seed: 4, exploration: 0.5, \
             generate: {seed: 1}}\n  - {id: q2, points: 1, algorithm: iterative-deepening, budget: 50, depth: 3, \
             generate: {seed: 1}}\n",
        )
        .unwrap();
        let mcts = assignment.questions[0].searches().unwrap().overrides;
        assert_eq!((mcts.iterations, mcts.seed, mcts.exploration), (Some(30), Some(4), Some(0.5)));
        assert_eq!(assignment.questions[1].searches().unwrap().overrides.budget, Some(50));
        let zero = load("questions:\n  - {id: q1, points: 1, algorithm: mcts, iterations: 0, generate: {seed: 1}}\n")
            .unwrap_err()
            .to_string();
        assert!(zero.contains("question `q1`: `iterations` (of MCTS) must be at least 1"), "{zero}");
        let ordered =
            load("questions:\n  - {id: q1, points: 1, algorithm: mcts, child_order: any, generate: {seed: 1}}\n")
                .unwrap_err()
                .to_string();
        assert!(ordered.contains("in mcts the order of the children decides what is searched"), "{ordered}");
    }

    #[test]
    fn a_calls_question_lists_its_call_files_and_takes_no_search_keys() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("01-f.yaml"), "call: {function: f}\ncheck: {equals: 1}\n").unwrap();
        let write = |text: &str| {
            std::fs::write(dir.path().join(ASSIGNMENT_FILE), text).unwrap();
            load_assignment(dir.path())
        };
        let assignment =
            write("questions:\n  - {id: rules, points: 2, scoring: all-or-nothing, calls: [\"0?-f.yaml\"]}\n").unwrap();
        let question = &assignment.questions[0];
        assert_eq!((question.call_tests().len(), question.scoring), (1, Scoring::AllOrNothing));
        assert!(question.tree_tests().is_empty() && question.searches().is_none());
        let mixed = write("questions:\n  - {id: rules, points: 2, algorithm: minimax, calls: [01-f.yaml]}\n")
            .unwrap_err()
            .to_string();
        assert!(mixed.contains(":2:") && mixed.contains("has `calls:`, so it takes no algorithm"), "{mixed}");
        let missing = write("questions:\n  - {id: rules, points: 2, calls: [02-g.yaml]}\n").unwrap_err().to_string();
        assert!(missing.contains(":2:") && missing.contains("02-g.yaml does not exist"), "{missing}");
        let none = write("questions:\n  - {id: rules, points: 2}\n").unwrap_err().to_string();
        assert!(["`algorithm`", "`play:`", "`pacman:`", "`calls:`"].iter().all(|key| none.contains(key)), "{none}");
    }

    #[test]
    fn the_verdict_is_order_unless_the_course_names_an_mit_mode() {
        let question = "questions:\n  - {id: q1, points: 1, algorithm: minimax, generate: {seed: 1}}\n";
        assert_eq!(load(question).unwrap().verdict, Verdict::Order);
        assert_eq!(load(&format!("verdict: mit6034\n{question}")).unwrap().verdict, Verdict::Mit6034);
        assert_eq!(load(&format!("verdict: strict\n{question}")).unwrap().verdict, Verdict::Strict);
        let unknown = load(&format!("verdict: lenient\n{question}")).unwrap_err().to_string();
        assert!(unknown.contains(":1:") && unknown.contains("unknown verdict `lenient`"), "{unknown}");
    }

    #[test]
    fn generate_blocks_are_checked() {
        let error = load("questions:\n  - {id: q1, points: 1, algorithm: minimax, generate: {seed_from: teacher}}\n")
            .unwrap_err();
        assert!(
            error.to_string().contains(":2:") && error.to_string().contains("unknown seed_from `teacher`"),
            "{error}"
        );
        let error =
            load("questions:\n  - {id: q1, points: 1, algorithm: minimax, generate: {count: 2}}\n").unwrap_err();
        assert!(error.to_string().contains("needs `seed_from: student` or a fixed `seed`"), "{error}");
        let error =
            load("questions:\n  - {id: q1, points: 1, algorithm: minimax, generate: {seed: 1, kinds: [max, dice]}}\n")
                .unwrap_err();
        assert!(error.to_string().contains("unknown kind `dice`"), "{error}");
    }
}

#[cfg(test)]
mod tests_dir_tests {
    use super::*;

    fn rewritten(text: &str) -> String {
        with_tests_dir(text, "tests", Path::new("assignment.yaml")).unwrap()
    }

    fn tests_dir_of(text: &str) -> Option<String> {
        let raw: RawAssignment = serde_saphyr::from_str_with_options(text, parser_options()).unwrap();
        raw.tests_dir.map(|spanned| spanned.value)
    }

    const QUESTIONS: &str = "questions:\n  - {id: q1, points: 5, algorithm: minimax, tests: [a.yaml]}\n";

    #[test]
    fn tests_dir_is_rewritten_in_every_style_the_loader_reads() {
        let cases = [
            format!("tests_dir: ../../test-cases   # where trees are\n{QUESTIONS}"),
            format!("---\n# the course\ntests_dir: \"../cases\"\n{QUESTIONS}"),
            format!("name: x\n{QUESTIONS}tests_dir: '../cases'\n"),
            QUESTIONS.to_string(),
            format!("---\n{QUESTIONS}"),
            "{tests_dir: ../cases, questions: [{id: q1, points: 5, algorithm: minimax, tests: [a.yaml]}]}\n"
                .to_string(),
            "{questions: [{id: q1, points: 5, algorithm: minimax, tests: [a.yaml]}]}\n".to_string(),
        ];
        for text in cases {
            let out = rewritten(&text);
            assert_eq!(tests_dir_of(&out).as_deref(), Some("tests"), "{text:?} became {out:?}");
            assert!(out.contains("a.yaml"), "the rest stays: {out:?}");
        }
        assert!(rewritten(&cases_comment()).contains("# where trees are"), "comments stay");
    }

    fn cases_comment() -> String {
        format!("tests_dir: ../../test-cases   # where trees are\n{QUESTIONS}")
    }
}
