//! Call test files (docs/format.md, "Calls questions"): what function of the
//! student's program is called with which arguments (or which module-level
//! value is read), and the check its answer must pass.
//!
//! ```yaml
//! call:
//!   function: is_game_over_connectfour
//!   args: [{board: {rows: [[0,0,0,0,0,0,0], ...], players: [Player One, Player Two]}}]
//!   shown: "is_game_over_connectfour(boards.PLAYER_ONE1_WON)"
//! check: {equals: true}
//! expected: "True"
//! ```

use std::path::Path;

use serde::{Deserialize, Deserializer};
use serde_saphyr::Spanned;

use super::{Diagnostic, LoadError, Position, parser_options, spanned_position, yaml_diagnostic};
use crate::assignment::calls::{
    BoardCompare, BoardSpec, Bounds, CallArg, CallCheck, CallTarget, CallTest, NumberOrder,
};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    description: Option<String>,
    call: Spanned<RawCall>,
    check: Spanned<RawCheck>,
    expected: Option<Spanned<serde_json::Value>>,
}

/// One call's arguments, each where it is written.
type RawArgs = Vec<Spanned<serde_json::Value>>;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCall {
    function: Option<Spanned<String>>,
    variable: Option<Spanned<String>>,
    args: Option<Spanned<RawArgs>>,
    calls: Option<Spanned<Vec<Spanned<RawArgs>>>>,
    shown: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCheck {
    /// Present even when null (a function that must return `None`).
    #[serde(default, deserialize_with = "present")]
    equals: Option<serde_json::Value>,
    equals_text: Option<Spanned<serde_json::Value>>,
    boards: Option<Spanned<Vec<Spanned<serde_json::Value>>>>,
    compare: Option<Spanned<String>>,
    numbers: Option<Spanned<Vec<RawBounds>>>,
    order: Option<Spanned<String>>,
    bool_is_number: Option<bool>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBounds {
    above: Option<f64>,
    below: Option<f64>,
    at_least: Option<f64>,
    at_most: Option<f64>,
}

fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<serde_json::Value>, D::Error> {
    serde_json::Value::deserialize(deserializer).map(Some)
}

/// Whether a YAML text is a call test: a top-level `call` key.
pub fn is_call_file(text: &str) -> bool {
    #[derive(Deserialize)]
    struct Probe {
        call: Option<serde::de::IgnoredAny>,
        check: Option<serde::de::IgnoredAny>,
    }
    serde_saphyr::from_str::<Probe>(text).is_ok_and(|probe| probe.call.is_some() && probe.check.is_some())
}

/// Reads a call test file.
pub fn load_call_file(path: &Path) -> Result<CallTest, LoadError> {
    let text = std::fs::read_to_string(path).map_err(|error| {
        LoadError::new(path, vec![Diagnostic::at(None, format!("cannot read the call test: {error}"))], None)
    })?;
    load_call_str(&text, path)
}

/// Reads a call test from its text; `path` names it in errors and gives its name.
pub fn load_call_str(text: &str, path: &Path) -> Result<CallTest, LoadError> {
    let raw: RawFile = serde_saphyr::from_str_with_options(text, parser_options())
        .map_err(|error| LoadError::new(path, vec![yaml_diagnostic(&error)], Some(text)))?;
    let fail =
        |(at, message): (Option<Position>, String)| LoadError::new(path, vec![Diagnostic::at(at, message)], Some(text));
    let name = path.file_stem().map_or_else(|| "call".to_string(), |stem| stem.to_string_lossy().into_owned());
    let (target, shown) = read_call(&raw.call).map_err(fail)?;
    let check = read_check(&raw.check, target_calls(&target)).map_err(fail)?;
    let expected = match &raw.expected {
        None => None,
        Some(spanned) => Some(scalar_text(&spanned.value).ok_or_else(|| {
            fail((
                spanned_position(spanned),
                "`expected` is the text shown as what was expected, not a list or mapping".into(),
            ))
        })?),
    };
    Ok(CallTest { name, description: raw.description, target, shown, check, expected })
}

type Problem = (Option<Position>, String);

fn target_calls(target: &CallTarget) -> Option<usize> {
    match target {
        CallTarget::Function { calls, .. } => Some(calls.len()),
        CallTarget::Variable(_) => None,
    }
}

/// The call's target and how the report writes it.
fn read_call(call: &Spanned<RawCall>) -> Result<(CallTarget, String), Problem> {
    let at = spanned_position(call);
    let raw = &call.value;
    match (&raw.function, &raw.variable) {
        (Some(_), Some(variable)) => {
            Err((spanned_position(variable), "`call` names a `function` or a `variable`, not both".to_string()))
        }
        (None, None) => Err((at, "`call` needs a `function` (to call) or a `variable` (to read)".to_string())),
        (None, Some(variable)) => {
            if let Some(args) = &raw.args {
                return Err((spanned_position(args), "a `variable` is read, not called: it takes no `args`".into()));
            }
            if let Some(calls) = &raw.calls {
                return Err((spanned_position(calls), "a `variable` is read, not called: it takes no `calls`".into()));
            }
            let name = identifier(variable)?;
            let shown = raw.shown.clone().unwrap_or_else(|| name.clone());
            Ok((CallTarget::Variable(name), shown))
        }
        (Some(function), None) => {
            let name = identifier(function)?;
            let calls = match (&raw.args, &raw.calls) {
                (Some(_), Some(calls)) => {
                    return Err((
                        spanned_position(calls),
                        "`call` has `args` (one call) or `calls` (a list of calls' arguments), not both".into(),
                    ));
                }
                (Some(args), None) => vec![read_args(&args.value)?],
                (None, Some(calls)) if calls.value.is_empty() => {
                    return Err((spanned_position(calls), "`calls` lists at least one call's arguments".into()));
                }
                (None, Some(calls)) => {
                    calls.value.iter().map(|args| read_args(&args.value)).collect::<Result<_, _>>()?
                }
                (None, None) => vec![Vec::new()],
            };
            let shown = raw.shown.clone().unwrap_or_else(|| {
                calls
                    .iter()
                    .map(|args| format!("{name}({})", args.iter().map(arg_text).collect::<Vec<_>>().join(", ")))
                    .collect::<Vec<_>>()
                    .join("; ")
            });
            Ok((CallTarget::Function { name, calls }, shown))
        }
    }
}

fn identifier(name: &Spanned<String>) -> Result<String, Problem> {
    let text = &name.value;
    let valid = text.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && text.chars().all(|c| c.is_alphanumeric() || c == '_');
    if valid {
        Ok(text.clone())
    } else {
        Err((spanned_position(name), format!("`{text}` is not a name a Python module can define")))
    }
}

fn read_args(args: &[Spanned<serde_json::Value>]) -> Result<Vec<CallArg>, Problem> {
    args.iter()
        .map(|arg| CallArg::from_json(&arg.value).map_err(|error| (spanned_position(arg), error.to_string())))
        .collect()
}

/// An argument as a report writes it when the test gives no `shown`.
fn arg_text(arg: &CallArg) -> String {
    match arg {
        CallArg::Board(_) => "<board>".to_string(),
        CallArg::Bool(true) => "True".to_string(),
        CallArg::Bool(false) => "False".to_string(),
        CallArg::Number(value) if value.is_infinite() => if *value > 0.0 { "INF" } else { "-INF" }.to_string(),
        CallArg::Number(value) => crate::compare::format_value(*value),
        CallArg::Text(text) => format!("{text:?}"),
    }
}

fn scalar_text(value: &serde_json::Value) -> Option<String> {
    match value {
        serde_json::Value::String(text) => Some(text.clone()),
        serde_json::Value::Bool(true) => Some("True".into()),
        serde_json::Value::Bool(false) => Some("False".into()),
        serde_json::Value::Number(number) => Some(number.to_string()),
        serde_json::Value::Null => Some("None".into()),
        _ => None,
    }
}

/// The check, exactly one of its forms; `calls` is the number of calls
/// (`None` for a variable, which is read once).
fn read_check(check: &Spanned<RawCheck>, calls: Option<usize>) -> Result<CallCheck, Problem> {
    let at = spanned_position(check);
    let raw = &check.value;
    let forms = [
        ("equals", raw.equals.is_some()),
        ("equals_text", raw.equals_text.is_some()),
        ("boards", raw.boards.is_some()),
        ("numbers", raw.numbers.is_some()),
    ];
    let given: Vec<&str> = forms.iter().filter(|(_, given)| *given).map(|(name, _)| *name).collect();
    if given.len() != 1 {
        let found = if given.is_empty() { "none".to_string() } else { given.join(" and ") };
        return Err((
            at,
            format!("`check` has exactly one of equals, equals_text, boards or numbers (it has {found})"),
        ));
    }
    let stray = |key: &str, given: bool, form: &str| -> Result<(), Problem> {
        if given { Err((at, format!("`{key}` goes with `{form}`, not `{}`", given_form(raw)))) } else { Ok(()) }
    };
    if raw.boards.is_none() {
        stray("compare", raw.compare.is_some(), "boards")?;
    }
    if raw.numbers.is_none() {
        stray("order", raw.order.is_some(), "numbers")?;
        stray("bool_is_number", raw.bool_is_number.is_some(), "numbers")?;
    }
    if let Some(value) = &raw.equals {
        check_value(value).map_err(|message| (at, format!("`equals`: {message}")))?;
        return Ok(CallCheck::Equals(value.clone()));
    }
    if let Some(text) = &raw.equals_text {
        let text = scalar_text(&text.value)
            .ok_or_else(|| (spanned_position(text), "`equals_text` is a text (such as \"4\")".to_string()))?;
        return Ok(CallCheck::EqualsText(text));
    }
    if let Some(boards) = &raw.boards {
        let compare = match raw.compare.as_ref().map(|c| c.value.as_str()) {
            Some("cells") => BoardCompare::Cells,
            Some("whole") => BoardCompare::Whole,
            Some(other) => {
                let at = raw.compare.as_ref().and_then(spanned_position);
                return Err((at, format!("unknown compare `{other}` (cells or whole)")));
            }
            None => return Err((at, "`boards` needs `compare: cells` (the pieces alone) or `compare: whole`".into())),
        };
        let boards = boards
            .value
            .iter()
            .map(|board| {
                let inner = board.value.get("board").unwrap_or(&board.value);
                BoardSpec::from_json(inner).map_err(|error| (spanned_position(board), error.to_string()))
            })
            .collect::<Result<_, _>>()?;
        return Ok(CallCheck::Boards { boards, compare });
    }
    let numbers = raw.numbers.as_ref().expect("the one form left");
    let expected = calls.unwrap_or(1);
    if numbers.value.len() != expected {
        return Err((
            spanned_position(numbers),
            format!(
                "`numbers` has one entry per call: this test makes {expected}, and `numbers` has {}",
                numbers.value.len()
            ),
        ));
    }
    let order = match raw.order.as_ref().map(|o| o.value.as_str()) {
        None => None,
        Some("increasing") => Some(NumberOrder::Increasing),
        Some("decreasing") => Some(NumberOrder::Decreasing),
        Some(other) => {
            let at = raw.order.as_ref().and_then(spanned_position);
            return Err((at, format!("unknown order `{other}` (increasing or decreasing)")));
        }
    };
    let bounds = numbers
        .value
        .iter()
        .map(|b| Bounds { above: b.above, below: b.below, at_least: b.at_least, at_most: b.at_most })
        .collect();
    Ok(CallCheck::Numbers { bounds, order, bool_is_number: raw.bool_is_number.unwrap_or(true) })
}

fn given_form(raw: &RawCheck) -> &'static str {
    if raw.equals.is_some() {
        "equals"
    } else if raw.equals_text.is_some() {
        "equals_text"
    } else if raw.boards.is_some() {
        "boards"
    } else {
        "numbers"
    }
}

/// An `equals` value holds only the forms a returned value may take:
/// scalars, lists, `{board: BOARD}` and `{float: inf}`.
fn check_value(value: &serde_json::Value) -> Result<(), String> {
    match value {
        serde_json::Value::Array(items) => items.iter().try_for_each(check_value),
        serde_json::Value::Object(object) => match object.iter().next() {
            Some((key, board)) if object.len() == 1 && key == "board" => {
                BoardSpec::from_json(board).map(|_| ()).map_err(|error| error.to_string())
            }
            Some((key, serde_json::Value::String(text)))
                if object.len() == 1 && key == "float" && ["inf", "-inf", "nan"].contains(&text.as_str()) =>
            {
                Ok(())
            }
            _ => Err(format!(
                "{value} is not a value a function returns ({{board: ...}} and {{float: inf}} are the mappings)"
            )),
        },
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> Result<CallTest, LoadError> {
        load_call_str(text, Path::new("tests/07-f.yaml"))
    }

    const BOARD: &str = "{rows: [[0,0,0,0,0,0,0],[0,0,0,0,0,0,0],[0,0,0,0,0,0,0],[0,0,0,0,0,0,0],[0,0,0,0,0,0,0],\
                         [1,2,0,0,0,0,0]], players: [Player One, Player Two]}";

    #[test]
    fn a_call_reads_its_target_arguments_and_check() {
        let test = load(&format!(
            "call:\n  function: f\n  args: [{{board: {BOARD}}}, {{bool: true}}, {{number: \"-inf\"}}]\ncheck: {{equals: null}}\nexpected: None\n"
        ))
        .unwrap();
        assert_eq!(test.name, "07-f");
        let CallTarget::Function { name, calls } = &test.target else { panic!("a function") };
        assert_eq!((name.as_str(), calls.len(), calls[0].len()), ("f", 1, 3));
        assert_eq!(calls[0][2], CallArg::Number(f64::NEG_INFINITY));
        assert_eq!(test.check, CallCheck::Equals(serde_json::Value::Null));
        assert_eq!(test.shown, "f(<board>, True, -INF)");
        assert_eq!(test.expected.as_deref(), Some("None"));
    }

    #[test]
    fn several_calls_and_numbers_go_together() {
        let test = load(
            "call: {function: g, calls: [[{number: 1}], [{number: 2}]]}\ncheck: {numbers: [{above: 0}, {below: 5}], order: increasing}\n",
        )
        .unwrap();
        assert_eq!(test.answers(), 2);
        let CallCheck::Numbers { bounds, order, bool_is_number } = &test.check else { panic!("numbers") };
        assert_eq!(
            (bounds[0].above, bounds[1].below, *order, *bool_is_number),
            (Some(0.0), Some(5.0), Some(NumberOrder::Increasing), true)
        );
        let short =
            load("call: {function: g, calls: [[], []]}\ncheck: {numbers: [{above: 0}]}\n").unwrap_err().to_string();
        assert!(short.contains("07-f.yaml:2:") && short.contains("this test makes 2, and `numbers` has 1"), "{short}");
    }

    #[test]
    fn broken_call_files_say_where_and_what() {
        let cases = [
            ("call: {function: f, variable: V}\ncheck: {equals: 1}\n", ":1:", "not both"),
            ("call: {variable: ANSWER_1, args: []}\ncheck: {equals_text: '4'}\n", ":1:", "takes no `args`"),
            ("call: {function: f}\ncheck: {equals: 1, equals_text: '1'}\n", ":2:", "exactly one of"),
            ("call: {function: f}\ncheck: {}\n", ":2:", "(it has none)"),
            (
                "call:\n  function: f\n  args:\n    - {board: {rows: [[0]]}}\ncheck: {equals: 1}\n",
                ":4:",
                "6 rows of 7 cells",
            ),
            (
                "call:\n  function: f\n  args:\n    - {dice: 3}\ncheck: {equals: 1}\n",
                ":4:",
                "unknown argument kind `dice`",
            ),
            ("call: {function: f}\ncheck: {boards: []}\n", ":2:", "needs `compare: cells`"),
            ("call: {function: f}\ncheck: {numbers: [{}], order: sideways}\n", ":2:", "unknown order `sideways`"),
            ("call: {function: f}\ncheck: {equals: {x: 1}}\n", ":2:", "not a value a function returns"),
            ("call: {function: 'no such'}\ncheck: {equals: 1}\n", ":1:", "is not a name"),
            ("call: {function: f}\ncheck: {equals: 1}\nexpect: x\n", ":3:", "expect"),
        ];
        for (text, line, words) in cases {
            let error = load(text).unwrap_err().to_string();
            assert!(error.contains(&format!("07-f.yaml{line}")) && error.contains(words), "{text:?}: {error}");
        }
    }

    #[test]
    fn call_files_are_told_from_others() {
        assert!(is_call_file("call: {function: f}\ncheck: {equals: 1}\n"));
        assert!(!is_call_file("root: A\nnodes: {A: 1}\n"));
    }
}
