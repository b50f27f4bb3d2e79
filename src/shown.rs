//! Student text made safe to show.
//!
//! A student's program controls its stderr, the action string it returns and
//! the messages of its exceptions. Reports show that text, never interpret
//! it: a terminal escape sequence could clear the screen, write the clipboard
//! or print a fake "Total: 20/20"; a NUL or U+FFFE makes XML unparseable; a
//! bidirectional override reorders what the reader sees. [`shown`] replaces
//! every such character by a visible escape (`\u{1b}`), once, where student
//! text enters a report, so that every format shows the same safe text.

use std::fmt::Write as _;

/// `text` with every control character (but newline and tab), every
/// character XML cannot carry and every bidirectional control replaced by
/// its visible escape `\u{..}`; a backslash that starts such an escape is
/// kept as it is, as no text is ever unescaped.
pub fn shown(text: &str) -> String {
    if !text.chars().any(needs_escape) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if needs_escape(c) {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        } else {
            out.push(c);
        }
    }
    out
}

/// [`shown`] for one-line text (an action): newlines and tabs are escaped too.
pub fn shown_line(text: &str) -> String {
    shown(text).replace('\n', "\\n").replace('\t', "\\t")
}

fn needs_escape(c: char) -> bool {
    let control = c.is_control() && c != '\n' && c != '\t';
    // A Rust char is never a surrogate; these two are the other characters XML 1.0 excludes.
    let not_xml = matches!(c, '\u{fffe}' | '\u{ffff}');
    let bidi = matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{61c}');
    control || not_xml || bidi
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_are_shown_not_interpreted() {
        assert_eq!(
            shown("\u{1b}[2J\u{1b}]52;c;aGk=\u{7}Total: 20/20"),
            "\\u{1b}[2J\\u{1b}]52;c;aGk=\\u{7}Total: 20/20"
        );
        assert_eq!(shown("a\rb\u{0}c\u{fffe}d\u{202e}e"), "a\\u{d}b\\u{0}c\\u{fffe}d\\u{202e}e");
    }

    #[test]
    fn ordinary_text_is_unchanged() {
        let text = "Traceback (most recent call last):\n\tline 3\nZeroDivisionError: é ü 中";
        assert_eq!(shown(text), text);
    }

    #[test]
    fn a_line_escapes_newlines_and_tabs_too() {
        assert_eq!(shown_line("left\nright\t\u{1b}"), "left\\nright\\t\\u{1b}");
    }
}
