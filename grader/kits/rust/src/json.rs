//! A small JSON reader and writer for the protocol's subset of JSON.
//!
//! The protocol exchanges one JSON object per line: objects, arrays,
//! strings (with every escape, `\uXXXX` and surrogate pairs included),
//! numbers, booleans and `null`. This module reads such a line into a
//! [`Json`] value and writes the few messages the kit sends, without any
//! dependency.

use std::fmt;

/// A parsed JSON value: what the grader says, and a game's position
/// ([`crate::Game::state`]).
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number (JSON numbers are read as IEEE doubles, exactly as Rust's `f64` parser rounds them).
    Number(f64),
    /// A string, escapes decoded.
    String(String),
    /// An array.
    Array(Vec<Json>),
    /// An object, keys in the order written (the last of duplicate keys wins in [`Json::get`]).
    Object(Vec<(String, Json)>),
}

/// Why a line is not valid JSON.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ParseError {
    /// Byte offset of the problem in the input.
    pub(crate) offset: usize,
    /// The problem in words.
    pub(crate) message: &'static str,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.message, self.offset)
    }
}

/// Nesting deeper than this is refused (protocol messages are two levels deep).
const MAX_DEPTH: usize = 64;

impl Json {
    /// Parses one JSON value; surrounding whitespace (including the line's `\n`) is allowed.
    pub(crate) fn parse(text: &str) -> Result<Json, ParseError> {
        let mut parser = Parser { bytes: text.as_bytes(), text, pos: 0 };
        parser.skip_whitespace();
        let value = parser.value(0)?;
        parser.skip_whitespace();
        if parser.pos != parser.bytes.len() {
            return Err(parser.error("unexpected text after the JSON value"));
        }
        Ok(value)
    }

    /// The value of `key` in an object (`None` for a missing key or a non-object).
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(members) => members.iter().rev().find(|(name, _)| name == key).map(|(_, value)| value),
            _ => None,
        }
    }

    /// The string, if this is a string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(text) => Some(text),
            _ => None,
        }
    }

    /// The number, if this is a number.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Json::Number(number) => Some(*number),
            _ => None,
        }
    }

    /// The boolean, if this is a boolean.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Json::Bool(flag) => Some(*flag),
            _ => None,
        }
    }

    /// The elements, if this is an array.
    pub fn as_array(&self) -> Option<&[Json]> {
        match self {
            Json::Array(items) => Some(items),
            _ => None,
        }
    }

    /// Takes the string out of a string value.
    pub(crate) fn into_string(self) -> Option<String> {
        match self {
            Json::String(text) => Some(text),
            _ => None,
        }
    }

    /// Removes `key` from an object and returns its value (avoids copying large arrays).
    pub(crate) fn take(&mut self, key: &str) -> Option<Json> {
        match self {
            Json::Object(members) => {
                let index = members.iter().rposition(|(name, _)| name == key)?;
                Some(members.swap_remove(index).1)
            }
            _ => None,
        }
    }
}

impl fmt::Display for Json {
    /// Writes compact JSON (no spaces), on one line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        write_value(&mut out, self);
        f.write_str(&out)
    }
}

/// Appends `value` as compact JSON.
pub(crate) fn write_value(out: &mut String, value: &Json) {
    match value {
        Json::Null => out.push_str("null"),
        Json::Bool(flag) => out.push_str(if *flag { "true" } else { "false" }),
        Json::Number(number) => write_number(out, *number),
        Json::String(text) => write_string(out, text),
        Json::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                write_value(out, item);
            }
            out.push(']');
        }
        Json::Object(members) => {
            out.push('{');
            for (index, (name, item)) in members.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                write_string(out, name);
                out.push(':');
                write_value(out, item);
            }
            out.push('}');
        }
    }
}

/// Appends a number. JSON has no NaN or infinity: those become `null`
/// (the kit checks answers before they get here).
pub(crate) fn write_number(out: &mut String, number: f64) {
    use fmt::Write as _;
    if number.is_finite() {
        // `{:?}` is the shortest text that reads back as the same double,
        // with an exponent for very large or small magnitudes: valid JSON.
        let _ = write!(out, "{number:?}");
    } else {
        out.push_str("null");
    }
}

/// Appends a string literal with the escapes JSON requires.
pub(crate) fn write_string(out: &mut String, text: &str) {
    out.push('"');
    let mut start = 0;
    for (index, byte) in text.bytes().enumerate() {
        let escape = match byte {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0x00..=0x1f => "",
            _ => continue,
        };
        out.push_str(&text[start..index]);
        if escape.is_empty() {
            use fmt::Write as _;
            let _ = write!(out, "\\u{byte:04x}");
        } else {
            out.push_str(escape);
        }
        start = index + 1;
    }
    out.push_str(&text[start..]);
    out.push('"');
}

struct Parser<'a> {
    bytes: &'a [u8],
    text: &'a str,
    pos: usize,
}

impl<'a> Parser<'a> {
    fn error(&self, message: &'static str) -> ParseError {
        ParseError { offset: self.pos, message }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_whitespace(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    fn expect_word(&mut self, word: &'static str, value: Json) -> Result<Json, ParseError> {
        if self.bytes[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(value)
        } else {
            Err(self.error("invalid literal (expected true, false or null)"))
        }
    }

    fn value(&mut self, depth: usize) -> Result<Json, ParseError> {
        match self.peek() {
            None => Err(self.error("unexpected end of input")),
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => self.string().map(Json::String),
            Some(b't') => self.expect_word("true", Json::Bool(true)),
            Some(b'f') => self.expect_word("false", Json::Bool(false)),
            Some(b'n') => self.expect_word("null", Json::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(self.error("unexpected character")),
        }
    }

    fn object(&mut self, depth: usize) -> Result<Json, ParseError> {
        if depth >= MAX_DEPTH {
            return Err(self.error("nesting too deep"));
        }
        self.pos += 1; // '{'
        let mut members = Vec::new();
        self.skip_whitespace();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(Json::Object(members));
        }
        loop {
            self.skip_whitespace();
            if self.peek() != Some(b'"') {
                return Err(self.error("expected a string key"));
            }
            let key = self.string()?;
            self.skip_whitespace();
            if self.peek() != Some(b':') {
                return Err(self.error("expected ':' after an object key"));
            }
            self.pos += 1;
            self.skip_whitespace();
            let value = self.value(depth + 1)?;
            members.push((key, value));
            self.skip_whitespace();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Json::Object(members));
                }
                _ => return Err(self.error("expected ',' or '}' in an object")),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Json, ParseError> {
        if depth >= MAX_DEPTH {
            return Err(self.error("nesting too deep"));
        }
        self.pos += 1; // '['
        let mut items = Vec::new();
        self.skip_whitespace();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(Json::Array(items));
        }
        loop {
            self.skip_whitespace();
            items.push(self.value(depth + 1)?);
            self.skip_whitespace();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Json::Array(items));
                }
                _ => return Err(self.error("expected ',' or ']' in an array")),
            }
        }
    }

    fn number(&mut self) -> Result<Json, ParseError> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(self.error("expected a digit")),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.error("expected a digit after '.'"));
            }
            self.digits();
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.error("expected a digit in the exponent"));
            }
            self.digits();
        }
        // The grammar above is a subset of what `f64::from_str` accepts.
        self.text[start..self.pos]
            .parse::<f64>()
            .map(Json::Number)
            .map_err(|_| ParseError { offset: start, message: "invalid number" })
    }

    fn digits(&mut self) {
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
    }

    fn string(&mut self) -> Result<String, ParseError> {
        self.pos += 1; // opening quote
        let mut out = String::new();
        let mut start = self.pos;
        loop {
            match self.peek() {
                None => return Err(self.error("unterminated string")),
                Some(b'"') => {
                    out.push_str(&self.text[start..self.pos]);
                    self.pos += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    out.push_str(&self.text[start..self.pos]);
                    self.pos += 1;
                    self.escape(&mut out)?;
                    start = self.pos;
                }
                Some(0x00..=0x1f) => return Err(self.error("control character in a string")),
                // Multi-byte UTF-8 sequences never contain '"', '\\' or bytes
                // below 0x20, so the run is copied as is at the end.
                Some(_) => self.pos += 1,
            }
        }
    }

    fn escape(&mut self, out: &mut String) -> Result<(), ParseError> {
        let simple = match self.peek() {
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'/') => '/',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{c}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(b'u') => {
                self.pos += 1;
                let first = self.hex4()?;
                let code = if (0xD800..0xDC00).contains(&first) {
                    if !self.bytes[self.pos..].starts_with(b"\\u") {
                        return Err(self.error("unpaired surrogate in \\u escape"));
                    }
                    self.pos += 2;
                    let second = self.hex4()?;
                    if !(0xDC00..0xE000).contains(&second) {
                        return Err(self.error("unpaired surrogate in \\u escape"));
                    }
                    0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                } else if (0xDC00..0xE000).contains(&first) {
                    return Err(self.error("unpaired surrogate in \\u escape"));
                } else {
                    first
                };
                out.push(char::from_u32(code).ok_or_else(|| self.error("invalid \\u escape"))?);
                return Ok(());
            }
            _ => return Err(self.error("invalid escape in a string")),
        };
        self.pos += 1;
        out.push(simple);
        Ok(())
    }

    fn hex4(&mut self) -> Result<u32, ParseError> {
        let digits = self.bytes.get(self.pos..self.pos + 4).ok_or_else(|| self.error("short \\u escape"))?;
        let mut code = 0;
        for &digit in digits {
            let value = match digit {
                b'0'..=b'9' => digit - b'0',
                b'a'..=b'f' => digit - b'a' + 10,
                b'A'..=b'F' => digit - b'A' + 10,
                _ => return Err(self.error("invalid hex digit in \\u escape")),
            };
            code = code * 16 + u32::from(value);
        }
        self.pos += 4;
        Ok(code)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Json {
        Json::parse(text).unwrap_or_else(|e| panic!("{text:?}: {e}"))
    }

    fn s(text: &str) -> Json {
        Json::String(text.to_string())
    }

    #[test]
    fn scalars() {
        assert_eq!(parse("null"), Json::Null);
        assert_eq!(parse(" true "), Json::Bool(true));
        assert_eq!(parse("false\n"), Json::Bool(false));
        assert_eq!(parse("0"), Json::Number(0.0));
        assert_eq!(parse("-0"), Json::Number(-0.0));
        assert_eq!(parse("12"), Json::Number(12.0));
        assert_eq!(parse("-3.25"), Json::Number(-3.25));
        assert_eq!(parse("1e3"), Json::Number(1000.0));
        assert_eq!(parse("2.5E-2"), Json::Number(0.025));
        assert_eq!(parse("1e+2"), Json::Number(100.0));
        assert_eq!(parse("0.1"), Json::Number(0.1));
        assert_eq!(parse("3.6666666666666665"), Json::Number(3.6666666666666665));
    }

    #[test]
    fn strings_and_escapes() {
        assert_eq!(parse(r#""""#), s(""));
        assert_eq!(parse(r#""B.2""#), s("B.2"));
        assert_eq!(parse(r#""a\"b\\c\/d""#), s("a\"b\\c/d"));
        assert_eq!(parse(r#""\b\f\n\r\t""#), s("\u{8}\u{c}\n\r\t"));
        assert_eq!(parse(r#""\u0041\u00e9\u20AC""#), s("Aé€"));
        assert_eq!(parse(r#""\ud83d\ude00!""#), s("😀!"));
        assert_eq!(parse("\"héllo ☃\""), s("héllo ☃"));
        assert_eq!(parse(r#""x\u0000y""#), s("x\0y"));
    }

    #[test]
    fn containers() {
        assert_eq!(parse("[]"), Json::Array(vec![]));
        assert_eq!(parse("{}"), Json::Object(vec![]));
        assert_eq!(
            parse(r#" [1, "a", [true, null], {"k": -1}] "#),
            Json::Array(vec![
                Json::Number(1.0),
                s("a"),
                Json::Array(vec![Json::Bool(true), Json::Null]),
                Json::Object(vec![("k".to_string(), Json::Number(-1.0))]),
            ])
        );
        let reply =
            parse(r#"{"type":"node","node":"A","kind":"max","children":["B","C"],"actions":["a1","a2"],"eval":null}"#);
        assert_eq!(reply.get("type").and_then(Json::as_str), Some("node"));
        assert_eq!(reply.get("children").and_then(Json::as_array).map(<[Json]>::len), Some(2));
        assert_eq!(reply.get("eval"), Some(&Json::Null));
        assert_eq!(reply.get("missing"), None);
        assert_eq!(parse(r#"{"a":1,"a":2}"#).get("a"), Some(&Json::Number(2.0)));
    }

    #[test]
    fn take_removes_a_member() {
        let mut object = parse(r#"{"a":[1],"b":"x"}"#);
        assert_eq!(object.take("a"), Some(Json::Array(vec![Json::Number(1.0)])));
        assert_eq!(object.take("a"), None);
        assert_eq!(object.get("b").and_then(Json::as_str), Some("x"));
    }

    #[test]
    fn rejects_invalid_json() {
        for text in [
            "",
            " ",
            "{",
            "[1,]",
            "[1 2]",
            "{\"a\" 1}",
            "{\"a\":}",
            "{1:2}",
            "tru",
            "nul",
            "01",
            "1.",
            ".5",
            "-",
            "1e",
            "+1",
            "\"abc",
            "\"a\\x\"",
            "\"\\u12\"",
            "\"\\u12G4\"",
            "\"\\ud800\"",
            "\"\\udc00\"",
            "\"\\ud800\\u0041\"",
            "\"tab\there\"",
            "1 2",
            "{}x",
            "NaN",
            "Infinity",
        ] {
            assert!(Json::parse(text).is_err(), "accepted {text:?}");
        }
        let deep = "[".repeat(100) + &"]".repeat(100);
        assert!(Json::parse(&deep).is_err());
    }

    #[test]
    fn writes_compact_json_that_reads_back() {
        let value = Json::Object(vec![
            ("type".to_string(), s("result")),
            ("value".to_string(), Json::Number(7.25)),
            ("action".to_string(), Json::Null),
            ("list".to_string(), Json::Array(vec![Json::Bool(false), Json::Number(-0.5)])),
            ("odd".to_string(), s("q\"b\\s/\n\t\u{1}é😀")),
        ]);
        let text = value.to_string();
        assert_eq!(
            text,
            r#"{"type":"result","value":7.25,"action":null,"list":[false,-0.5],"odd":"q\"b\\s/\n\t\u0001é😀"}"#
        );
        assert_eq!(Json::parse(&text), Ok(value));
    }

    #[test]
    fn numbers_round_trip_exactly() {
        for number in
            [0.0, -0.0, 1.0, -3.0, 0.1, 1.0 / 3.0, 7.25, 1e21, 1e-7, 123456789.125, f64::MAX, f64::MIN_POSITIVE]
        {
            let mut out = String::new();
            write_number(&mut out, number);
            assert_eq!(Json::parse(&out), Ok(Json::Number(number)), "{out}");
        }
        let mut out = String::new();
        write_number(&mut out, f64::NAN);
        assert_eq!(out, "null");
    }
}
