//! Load errors that say where and what.
//!
//! Every problem in an input file becomes a [`Diagnostic`]: a message and,
//! where the YAML has one, a line and column. [`LoadError`] prints as
//! `FILE:LINE:COLUMN: message` lines (easy to grep and to jump to from an
//! editor) and can render a rustc-style snippet of the offending line.

use std::fmt;
use std::path::{Path, PathBuf};

use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};

/// One problem in one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// 1-based line and column, when known.
    pub position: Option<Position>,
    /// What is wrong, in words.
    pub message: String,
}

/// A place in a text file: 1-based line, 1-based column in characters, and
/// the length in characters of the thing found there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub column: u32,
    /// Length of the offending token in characters (at least 1).
    pub width: u32,
}

impl Diagnostic {
    /// A diagnostic at a position.
    pub fn at(position: Option<Position>, message: impl Into<String>) -> Diagnostic {
        Diagnostic { position, message: message.into() }
    }
}

/// Why a file could not be loaded: one or more diagnostics.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError {
    path: PathBuf,
    diagnostics: Vec<Diagnostic>,
    /// The file's text, kept to render snippets (absent when unreadable).
    source: Option<String>,
}

impl LoadError {
    /// An error with the file's text available for snippets.
    pub fn new(path: &Path, diagnostics: Vec<Diagnostic>, source: Option<&str>) -> LoadError {
        // Keep only the lines the diagnostics point at: a file may be megabytes.
        let source = source.map(|text| keep_lines(text, &diagnostics));
        LoadError { path: path.to_path_buf(), diagnostics, source }
    }

    /// The file the error is about.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Every problem found, in file order.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// A rustc-style rendering with the offending line and a caret under the problem.
    pub fn render(&self, styled: bool) -> String {
        let renderer = if styled { Renderer::styled() } else { Renderer::plain() };
        let path = self.path.display().to_string();
        let mut out = String::new();
        for diagnostic in &self.diagnostics {
            let line_text = diagnostic.position.and_then(|p| self.line_text(p.line));
            let title = Level::ERROR.primary_title(diagnostic.message.as_str());
            let rendered = match (diagnostic.position, line_text) {
                (Some(position), Some(line_text)) => {
                    let span = char_span_to_bytes(line_text, position);
                    let snippet = Snippet::source(line_text)
                        .line_start(position.line as usize)
                        .path(path.as_str())
                        .annotation(AnnotationKind::Primary.span(span));
                    renderer.render(&[title.element(snippet)])
                }
                _ => {
                    let located = format!("{}: {}", self.location_prefix(diagnostic), diagnostic.message);
                    renderer.render(&[Group::with_title(Level::ERROR.primary_title(located.as_str()))])
                }
            };
            out.push_str(&rendered);
            out.push('\n');
        }
        out
    }

    fn location_prefix(&self, diagnostic: &Diagnostic) -> String {
        match diagnostic.position {
            Some(p) => format!("{}:{}:{}", self.path.display(), p.line, p.column),
            None => self.path.display().to_string(),
        }
    }

    fn line_text(&self, line: u32) -> Option<&str> {
        let source = self.source.as_deref()?;
        source.lines().find_map(|kept| {
            let (number, text) = kept.split_once('\t')?;
            (number.parse::<u32>().ok()? == line).then_some(text)
        })
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, diagnostic) in self.diagnostics.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{}: {}", self.location_prefix(diagnostic), diagnostic.message)?;
        }
        Ok(())
    }
}

impl std::error::Error for LoadError {}

/// Keeps the lines diagnostics point at, as `NUMBER\tTEXT` lines.
fn keep_lines(text: &str, diagnostics: &[Diagnostic]) -> String {
    let mut wanted: Vec<u32> = diagnostics.iter().filter_map(|d| d.position.map(|p| p.line)).collect();
    wanted.sort_unstable();
    wanted.dedup();
    let mut kept = String::new();
    for (number, line) in text.lines().enumerate() {
        let number = number as u32 + 1;
        if wanted.binary_search(&number).is_ok() {
            kept.push_str(&format!("{number}\t{line}\n"));
        }
    }
    kept
}

/// Converts a character column and width into a byte range within `line`.
fn char_span_to_bytes(line: &str, position: Position) -> std::ops::Range<usize> {
    let byte_at = |chars: usize| line.char_indices().nth(chars).map_or(line.len(), |(byte, _)| byte);
    let start = byte_at(position.column.saturating_sub(1) as usize);
    let end = byte_at((position.column.saturating_sub(1) + position.width.max(1)) as usize);
    start..end.max(start)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_is_one_located_line_per_problem() {
        let error = LoadError::new(
            Path::new("t.yaml"),
            vec![
                Diagnostic::at(Some(Position { line: 2, column: 5, width: 1 }), "first"),
                Diagnostic::at(None, "second"),
            ],
            Some("a: 1\nb:  X\n"),
        );
        assert_eq!(error.to_string(), "t.yaml:2:5: first\nt.yaml: second");
    }

    #[test]
    fn render_underlines_the_offending_token() {
        let error = LoadError::new(
            Path::new("t.yaml"),
            vec![Diagnostic::at(Some(Position { line: 2, column: 9, width: 1 }), "missing child `Z`")],
            Some("root: A\nA: {max: [Z]}\n"),
        );
        let rendered = error.render(false);
        assert!(rendered.contains("error: missing child `Z`"), "{rendered}");
        assert!(rendered.contains("t.yaml:2:9"), "{rendered}");
        assert!(rendered.contains("A: {max: [Z]}"), "{rendered}");
    }
}
