//! MIT's rule-function tests (1-22) and multiple-choice answers (41-44) as
//! call tests: the call the grader makes (a function of the student's
//! module with the lab's boards, or a module-level `ANSWER_n`) and the
//! check the grader applies to what comes back (docs/format.md's calls
//! questions: `equals`, `equals_text`, `boards`, `numbers`).
//!
//! The lab reader derives each check in the sandbox, where MIT's
//! `testanswer` can run, and verifies it there: the check, applied to the
//! JSON form of a value as the grader will apply it, and MIT's `testanswer`
//! agree on every probe value (the right answer, the other bool, 1 for True,
//! numbers around each bound, a list one board short, boards with the other
//! player to move, strings, None, ...); a test where they disagree comes
//! with the reason and is listed as not graded. Here the reader's
//! description is checked for shape and written as the test's YAML.

use std::fmt::Write as _;

use serde_json::{Map, Value};

/// One of MIT's rule or answer tests, as a call test of the course.
#[derive(Clone, Debug, PartialEq)]
pub struct CallTest {
    /// MIT's test number (1-based).
    pub number: usize,
    /// The lab function it calls, or the `ANSWER_n` it reads.
    pub function: String,
    /// `NN-function`: the file stem.
    pub name: String,
    /// Whether it reads a module-level value (an answer) rather than calling a function.
    pub answer: bool,
    /// How a student reads the call (`is_game_over_connectfour(boards.PLAYER_ONE1_WON)`).
    pub shown: String,
    /// The check in words (`== True`).
    pub check: String,
    /// How many probe values the check agreed with MIT's `testanswer` on.
    pub probes: usize,
    /// The test file's text.
    pub yaml: String,
}

/// Why one of MIT's rule or answer tests cannot be a call test: the lab
/// reader's description lacks something, or has a check or an argument the
/// calls format has no form for. The import lists the test as not graded
/// with this reason.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum Unconvertible {
    /// The description has no `check`.
    #[error("the lab reader gave no check")]
    NoCheck,
    /// The description has no `shown`.
    #[error("the lab reader did not say how the call reads")]
    NoShown,
    /// An answer test without its `variable`.
    #[error("the lab reader did not name the answer's variable")]
    NoVariable,
    /// A rule test without a call.
    #[error("the test makes no call")]
    NoCall,
    /// Several calls in a test whose type makes one.
    #[error("a {kind} test with {calls} calls")]
    Calls {
        /// MIT's test type, as the reader gave it.
        kind: Value,
        /// How many calls it lists.
        calls: usize,
    },
    /// A call whose arguments are not a list.
    #[error("a call's arguments are not a list")]
    ArgumentsNotAList,
    /// An argument of no form of the calls format.
    #[error("an argument the calls format has no form for: {0}")]
    Argument(Value),
    /// A check of no form of the calls format.
    #[error("a check the calls format has no form for: {0}")]
    Check(Value),
}

/// The call test of a rule or answer test the lab reader described, or why it cannot be one.
pub fn call_test(test: &Value, number: usize, function: &str, name: &str) -> Result<CallTest, Unconvertible> {
    let answer = test["kind"] == "answer";
    let check = test["check"].as_object().ok_or(Unconvertible::NoCheck)?;
    let shown = test["shown"].as_str().ok_or(Unconvertible::NoShown)?.to_string();
    let words = check_words(check)?;
    // The call's keys in the order a reader wants them: what is called, with what, how it reads.
    let mut call = vec![];
    if answer {
        let variable = test["variable"].as_str().ok_or(Unconvertible::NoVariable)?;
        call.push(("variable", Value::from(variable)));
    } else {
        let calls = test["calls"].as_array().filter(|calls| !calls.is_empty()).ok_or(Unconvertible::NoCall)?;
        for call in calls {
            arguments(call)?;
        }
        call.push(("function", Value::from(function)));
        if test["type"] == "MULTIFUNCTION" {
            call.push(("calls", Value::Array(calls.clone())));
        } else if let [one] = calls.as_slice() {
            call.push(("args", one.clone()));
        } else {
            return Err(Unconvertible::Calls { kind: test["type"].clone(), calls: calls.len() });
        }
    }
    call.push(("shown", Value::from(shown.as_str())));
    let expected = test["expected_val"].as_str().unwrap_or_default();
    let probes = test["probes"].as_u64().unwrap_or(0) as usize;
    let mut yaml = String::new();
    let _ = writeln!(yaml, "# MIT 6.034 test {number}: {shown}");
    let _ = writeln!(yaml, "# Imported by `treegrade import mit6034`: the check is MIT's testanswer's, which agreed");
    let _ = writeln!(yaml, "# with it on {probes} probe values.");
    yaml.push_str("call:\n");
    for (key, value) in call {
        entry(key, &value, 2, &mut yaml);
    }
    yaml.push_str("check:\n");
    block(&Value::Object(check.clone()), 2, &mut yaml);
    let _ = writeln!(yaml, "expected: {}", flow(&Value::from(expected)));
    Ok(CallTest {
        number,
        function: function.to_string(),
        name: name.to_string(),
        answer,
        shown,
        check: words,
        probes,
        yaml,
    })
}

/// Checks one call's arguments: each is `{board: ...}`, `{bool: b}`, `{number: x}` or `{text: s}`.
fn arguments(call: &Value) -> Result<(), Unconvertible> {
    let args = call.as_array().ok_or(Unconvertible::ArgumentsNotAList)?;
    for arg in args {
        let known = arg.as_object().filter(|arg| arg.len() == 1).and_then(|arg| arg.iter().next()).is_some_and(
            |(key, value)| match key.as_str() {
                "board" => value["rows"].is_array() && value["players"].is_array(),
                "bool" => value.is_boolean(),
                "number" => value.is_number() || value == "inf" || value == "-inf",
                "text" => value.is_string(),
                _ => false,
            },
        );
        if !known {
            return Err(Unconvertible::Argument(arg.clone()));
        }
    }
    Ok(())
}

/// The check in words for the import's output, after checking it has exactly one known form.
pub fn check_words(check: &Map<String, Value>) -> Result<String, Unconvertible> {
    let forms: Vec<&str> =
        ["equals", "equals_text", "boards", "numbers"].into_iter().filter(|form| check.contains_key(*form)).collect();
    let bad = || Unconvertible::Check(Value::Object(check.clone()));
    match forms.as_slice() {
        ["equals"] => Ok(format!("a value == {}", python(&check["equals"]))),
        ["equals_text"] => {
            let text = check["equals_text"].as_str().ok_or_else(bad)?;
            Ok(format!("str(value) == '{text}'"))
        }
        ["boards"] => {
            let count = check["boards"].as_array().ok_or_else(bad)?.len();
            let list = if count == 1 { "a list of 1 board".to_string() } else { format!("a list of {count} boards") };
            match check.get("compare").and_then(Value::as_str) {
                Some("cells" | "whole") if count == 0 => Ok("an empty list ([])".to_string()),
                Some("cells") => Ok(format!("{list} with the expected cells, in column order")),
                Some("whole") => Ok(format!(
                    "{list} equal, board by board, to the expected ones as ConnectFourBoard's == has it (cells, \
                     players, whose turn, previous move)"
                )),
                _ => Err(bad()),
            }
        }
        ["numbers"] => numbers_words(check).ok_or_else(bad),
        _ => Err(bad()),
    }
}

/// `a number > 0 and < 1000`, or for several calls `2 numbers: the first < -1000, the second <= -1000, increasing`.
fn numbers_words(check: &Map<String, Value>) -> Option<String> {
    let entries = check["numbers"].as_array().filter(|entries| !entries.is_empty())?;
    let mut said = Vec::new();
    for entry in entries {
        let mut bounds = Vec::new();
        for (key, value) in entry.as_object()? {
            let sign = match key.as_str() {
                "above" => ">",
                "below" => "<",
                "at_least" => ">=",
                "at_most" => "<=",
                _ => return None,
            };
            bounds.push(format!("{sign} {}", python(value.is_number().then_some(value)?)));
        }
        said.push(bounds.join(" and "));
    }
    let order = match check.get("order").map(|order| order.as_str()) {
        None => String::new(),
        Some(Some(order @ ("increasing" | "decreasing"))) => format!(", in {order} order"),
        Some(_) => return None,
    };
    if check.get("bool_is_number").is_some_and(|flag| !flag.is_boolean()) {
        return None;
    }
    if let [one] = said.as_slice() {
        return Some(format!("a number {one}{order}"));
    }
    let listed: Vec<String> = said.iter().enumerate().map(|(i, s)| format!("#{} {s}", i + 1)).collect();
    Some(format!("{} numbers: {}{order}", said.len(), listed.join(", ")))
}

/// A JSON value as Python writes it (`True`, `1000`, `'4'`).
fn python(value: &Value) -> String {
    match value {
        Value::Bool(true) => "True".to_string(),
        Value::Bool(false) => "False".to_string(),
        Value::Null => "None".to_string(),
        Value::String(text) => format!("'{text}'"),
        Value::Array(items) => format!("[{}]", items.iter().map(python).collect::<Vec<_>>().join(", ")),
        other => other.to_string(),
    }
}

/// Whether a value is written on one line: a scalar, or a list of such (a board's row, its rows).
fn flat(value: &Value) -> bool {
    match value {
        Value::Array(items) => items.iter().all(flat),
        Value::Object(map) => map.is_empty(),
        _ => true,
    }
}

/// A flat value in YAML's flow style, which JSON is.
fn flow(value: &Value) -> String {
    value.to_string()
}

/// `key: value` in a block mapping, indented by `indent`.
fn entry(key: &str, value: &Value, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    if flat(value) && !(key == "rows" && value.as_array().is_some_and(|rows| !rows.is_empty())) {
        let _ = writeln!(out, "{pad}{key}: {}", flow(value));
    } else {
        let _ = writeln!(out, "{pad}{key}:");
        block(value, indent + 2, out);
    }
}

/// A value in YAML's block style, every line indented by `indent`; a board's rows one to a line.
fn block(value: &Value, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    match value {
        Value::Object(map) => {
            for (key, value) in map {
                entry(key, value, indent, out);
            }
        }
        Value::Array(items) => {
            for item in items {
                if flat(item) {
                    let _ = writeln!(out, "{pad}- {}", flow(item));
                } else {
                    // The item's own block, its first line's indent taken by the dash: `- key: ...`.
                    let mut inner = String::new();
                    block(item, indent + 2, &mut inner);
                    out.push_str(&pad);
                    out.push_str("- ");
                    out.push_str(&inner[indent + 2..]);
                }
            }
        }
        scalar => {
            let _ = writeln!(out, "{pad}{}", flow(scalar));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assignment::calls::{CallArg, CallCheck, CallTarget, NumberOrder};
    use serde_json::json;

    fn board() -> Value {
        json!({"rows": [[0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0],
            [0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 1]], "players": ["Player One", "Player Two"],
            "whose_turn": "Player One", "prev_move": "none"})
    }

    /// The test as the grader's loader reads it.
    fn loaded(call: &CallTest) -> crate::assignment::calls::CallTest {
        let path = std::path::PathBuf::from(format!("{}.yaml", call.name));
        crate::load::calls::load_call_str(&call.yaml, &path).unwrap_or_else(|e| panic!("{e}\n{}", call.yaml))
    }

    /// The function a loaded test calls, and each call's arguments.
    fn function(test: &crate::assignment::calls::CallTest) -> (&str, &Vec<Vec<CallArg>>) {
        match &test.target {
            CallTarget::Function { name, calls } => (name, calls),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_rule_test_becomes_a_call_with_its_board_and_check_and_loads_as_written() {
        let test = json!({"number": 1, "function": "is_game_over_connectfour", "kind": "rule",
            "type": "FUNCTION_ENCODED_ARGS", "expected_val": "True", "calls": [[{"board": board()}]],
            "shown": "is_game_over_connectfour(boards.PLAYER_ONE1_WON)", "check": {"equals": true}, "probes": 26});
        let call = call_test(&test, 1, "is_game_over_connectfour", "01-is_game_over_connectfour").unwrap();
        assert!(call.yaml.starts_with("# MIT 6.034 test 1: is_game_over_connectfour(boards.PLAYER_ONE1_WON)\n"));
        assert!(call.yaml.contains("on 26 probe values"), "{}", call.yaml);
        assert!(call.yaml.contains("        - [0,0,0,0,0,0,1]\n"), "{}", call.yaml);
        assert_eq!((call.check.as_str(), call.answer), ("a value == True", false));
        let read = loaded(&call);
        let (name, calls) = function(&read);
        assert_eq!(name, "is_game_over_connectfour");
        let [args] = calls.as_slice() else { panic!("{calls:?}") };
        let [CallArg::Board(board)] = args.as_slice() else { panic!("{args:?}") };
        assert_eq!(
            (board.rows[5][6], board.whose_turn.as_ref(), board.prev_move.as_deref()),
            (1, Some(&json!("Player One")), Some("none"))
        );
        assert_eq!(read.check, CallCheck::Equals(json!(true)));
        assert_eq!(
            (read.shown.as_str(), read.expected.as_deref()),
            ("is_game_over_connectfour(boards.PLAYER_ONE1_WON)", Some("True"))
        );
    }

    #[test]
    fn a_multifunction_test_lists_its_calls_and_its_numbers_check_reads_in_words() {
        let check = json!({"numbers": [{"below": -1000}, {"at_most": -1000}], "order": "increasing"});
        let test = json!({"number": 16, "function": "endgame_score_connectfour_faster", "kind": "rule",
            "type": "MULTIFUNCTION", "expected_val": "(two scores)", "shown": "f(a, True), f(b, True)",
            "calls": [[{"board": board()}, {"bool": true}], [{"board": board()}, {"bool": true}]],
            "check": check, "probes": 62});
        let call = call_test(&test, 16, "endgame_score_connectfour_faster", "16-x").unwrap();
        assert_eq!(call.check, "2 numbers: #1 < -1000, #2 <= -1000, in increasing order");
        let read = loaded(&call);
        assert_eq!(function(&read).1.len(), 2);
        assert!(matches!(function(&read).1[1][1], CallArg::Bool(true)));
        // Without `bool_is_number` the loader counts a bool as a number, as Python does.
        let CallCheck::Numbers { bounds, order, bool_is_number } = &read.check else { panic!("{:?}", read.check) };
        assert_eq!((bounds.len(), *order, *bool_is_number), (2, Some(NumberOrder::Increasing), true));
    }

    #[test]
    fn an_answer_reads_a_variable_and_is_checked_as_text() {
        let test = json!({"number": 41, "function": "ANSWER_1", "kind": "answer", "type": "VALUE",
            "variable": "ANSWER_1", "shown": "ANSWER_1", "expected_val": "correct value of ANSWER_1 ('1', ...)",
            "check": {"equals_text": "4"}, "probes": 19});
        let call = call_test(&test, 41, "ANSWER_1", "41-ANSWER_1").unwrap();
        assert!(call.answer);
        assert_eq!(call.check, "str(value) == '4'");
        let read = loaded(&call);
        assert_eq!(read.target, CallTarget::Variable("ANSWER_1".into()));
        assert_eq!(read.check, CallCheck::EqualsText("4".into()));
        assert_eq!(read.expected.as_deref(), Some("correct value of ANSWER_1 ('1', ...)"));
    }

    #[test]
    fn a_check_or_argument_outside_the_format_is_refused_with_what_it_is() {
        let base = json!({"number": 3, "function": "f", "kind": "rule", "type": "FUNCTION_ENCODED_ARGS",
            "shown": "f(x)", "calls": [[{"bool": true}]], "check": {"equals": 1}});
        let with = |key: &str, value: Value| {
            let mut test = base.clone();
            test[key] = value;
            call_test(&test, 3, "f", "03-f").unwrap_err().to_string()
        };
        assert!(with("check", json!({"equals": 1, "equals_text": "1"})).contains("no form for"));
        assert!(with("check", json!({"boards": [], "compare": "some"})).contains("no form for"));
        assert!(with("check", json!({"numbers": [{"near": 3}]})).contains("no form for"));
        assert!(with("calls", json!([[{"tree": {}}]])).contains("an argument the calls format has no form for"));
        assert!(with("calls", json!([])).contains("makes no call"));
        assert!(call_test(&base, 3, "f", "03-f").is_ok());
    }

    #[test]
    fn each_reason_reads_as_the_import_lists_it() {
        let base = json!({"kind": "rule", "type": "FUNCTION_ENCODED_ARGS", "shown": "f(x)",
            "calls": [[{"bool": true}]], "check": {"equals": 1}});
        let without = |key: &str| {
            let mut test = base.clone();
            test.as_object_mut().unwrap().remove(key);
            call_test(&test, 3, "f", "03-f").unwrap_err()
        };
        assert_eq!(without("check").to_string(), "the lab reader gave no check");
        assert_eq!(without("shown").to_string(), "the lab reader did not say how the call reads");
        let mut answer = base.clone();
        answer["kind"] = json!("answer");
        assert_eq!(
            call_test(&answer, 41, "ANSWER_1", "41-ANSWER_1").unwrap_err().to_string(),
            "the lab reader did not name the answer's variable"
        );
        let mut two = base.clone();
        two["calls"] = json!([[{"bool": true}], [{"bool": false}]]);
        assert_eq!(
            call_test(&two, 3, "f", "03-f").unwrap_err().to_string(),
            "a \"FUNCTION_ENCODED_ARGS\" test with 2 calls"
        );
        let mut loose = base.clone();
        loose["calls"] = json!([{"bool": true}]);
        assert_eq!(call_test(&loose, 3, "f", "03-f").unwrap_err(), Unconvertible::ArgumentsNotAList);
        let check = json!({"equals_text": 4});
        assert_eq!(
            check_words(check.as_object().unwrap()).unwrap_err().to_string(),
            "a check the calls format has no form for: {\"equals_text\":4}"
        );
    }
}
