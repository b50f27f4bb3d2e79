//! A calls question's tests (docs/format.md, "Calls questions"): a function
//! of the student's program called with given arguments (or a module-level
//! value read), and a check of what it returned. Plain data: the loader
//! (`load::calls`) fills it, the grader (`grader::calls`) sends the call and
//! judges the answer.

/// One call test, as its file gives it.
#[derive(Clone, Debug, PartialEq)]
pub struct CallTest {
    /// The test's name (the file's stem).
    pub name: String,
    /// What the test is about (`description:`), for the report.
    pub description: Option<String>,
    /// What is called, or read.
    pub target: CallTarget,
    /// How the report writes the call for a student
    /// (`is_game_over_connectfour(boards.PLAYER_ONE1_WON)`).
    pub shown: String,
    /// What the returned values must satisfy.
    pub check: CallCheck,
    /// The text shown as what was expected (MIT's `expected_val`).
    pub expected: Option<String>,
}

impl CallTest {
    /// How many values the program answers: one per call, one for a variable.
    pub fn answers(&self) -> usize {
        match &self.target {
            CallTarget::Function { calls, .. } => calls.len(),
            CallTarget::Variable(_) => 1,
        }
    }
}

/// What a call test asks of the student's module.
#[derive(Clone, Debug, PartialEq)]
pub enum CallTarget {
    /// A function, called once per list of arguments (MIT's MULTIFUNCTION
    /// tests call it several times and check the answers together).
    Function {
        /// The function's name.
        name: String,
        /// The arguments of each call, in order.
        calls: Vec<Vec<CallArg>>,
    },
    /// A module-level value (MIT's multiple-choice `ANSWER_1`).
    Variable(String),
}

/// One argument of a call.
#[derive(Clone, Debug, PartialEq)]
pub enum CallArg {
    /// A Connect Four board (the kit builds the lab API's `ConnectFourBoard`).
    Board(BoardSpec),
    /// `True` or `False`.
    Bool(bool),
    /// A number (infinities included).
    Number(f64),
    /// A string.
    Text(String),
}

/// A Connect Four position as a call test writes it (and as a kit returns
/// a board): 6 rows of 7 cells, top row first, 0 empty, 1 and 2 the
/// players' pieces.
#[derive(Clone, Debug, PartialEq)]
pub struct BoardSpec {
    /// The cells, top row first.
    pub rows: Vec<Vec<u8>>,
    /// The two players (names or numbers), the one to move first.
    pub players: Vec<serde_json::Value>,
    /// The player to move, when the test names it apart from `players[0]`.
    pub whose_turn: Option<serde_json::Value>,
    /// The description of the move that made the position, when given.
    pub prev_move: Option<String>,
}

impl BoardSpec {
    /// The player to move: `whose_turn`, else the first of `players`.
    pub fn to_move(&self) -> Option<&serde_json::Value> {
        self.whose_turn.as_ref().or_else(|| self.players.first())
    }
}

/// How two boards are compared by a `boards` check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoardCompare {
    /// Their cells alone (MIT's `same_board_array`).
    Cells,
    /// Cells, players, the player to move and the previous move where the
    /// expected board gives one (MIT's `ConnectFourBoard.__eq__`).
    Whole,
}

/// Bounds on one returned number; each is optional.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Bounds {
    /// The number must be greater than this.
    pub above: Option<f64>,
    /// The number must be less than this.
    pub below: Option<f64>,
    /// The number must be at least this.
    pub at_least: Option<f64>,
    /// The number must be at most this.
    pub at_most: Option<f64>,
}

/// The order of consecutive calls' numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NumberOrder {
    /// Each greater than the one before.
    Increasing,
    /// Each less than the one before.
    Decreasing,
}

/// What a call test's returned values must satisfy.
#[derive(Clone, Debug, PartialEq)]
pub enum CallCheck {
    /// Equal to this value as Python's `==` compares (numbers numerically,
    /// a bool as 1 or 0, lists element by element, boards whole), one
    /// value per call: a single call's value, or the list of a
    /// multi-call test's values.
    Equals(serde_json::Value),
    /// `str(value)` is this text (MIT's multiple-choice answers); an empty
    /// answer is "not answered yet".
    EqualsText(String),
    /// A list of boards, each equal to the expected one at its place.
    Boards {
        /// The expected boards, in order.
        boards: Vec<BoardSpec>,
        /// How each pair is compared.
        compare: BoardCompare,
    },
    /// Numbers within bounds, one entry per call, and optionally in order.
    Numbers {
        /// Each call's bounds.
        bounds: Vec<Bounds>,
        /// The order of consecutive values, strict.
        order: Option<NumberOrder>,
        /// Whether `True`/`False` count as the numbers 1 and 0 (Python's
        /// `isinstance(True, int)` is true).
        bool_is_number: bool,
    },
}

impl BoardSpec {
    /// Reads a board from its JSON form, `{rows, players, whose_turn?,
    /// prev_move?}` (as a call test writes it and a kit returns it); the
    /// error says which key is wrong. A cell may be 0 or null (empty), 1 or 2.
    pub fn from_json(value: &serde_json::Value) -> Result<BoardSpec, BoardError> {
        let object = value.as_object().ok_or(BoardError::NotAMapping)?;
        if let Some(key) =
            object.keys().find(|key| !["rows", "players", "whose_turn", "prev_move"].contains(&key.as_str()))
        {
            return Err(BoardError::UnknownKey(key.clone()));
        }
        let rows = object.get("rows").and_then(|rows| rows.as_array()).ok_or(BoardError::NoRows)?;
        if rows.len() != 6 {
            return Err(BoardError::RowCount(rows.len()));
        }
        let mut cells = Vec::with_capacity(6);
        for (number, row) in rows.iter().enumerate() {
            let row = row.as_array().filter(|row| row.len() == 7).ok_or(BoardError::RowShape(number + 1))?;
            let mut read = Vec::with_capacity(7);
            for cell in row {
                match cell {
                    serde_json::Value::Null => read.push(0),
                    serde_json::Value::Number(n) if matches!(n.as_u64(), Some(0..=2)) => {
                        read.push(n.as_u64().unwrap_or(0) as u8)
                    }
                    other => return Err(BoardError::Cell { row: number + 1, cell: other.clone() }),
                }
            }
            cells.push(read);
        }
        let players = match object.get("players") {
            None => vec![serde_json::json!("Player One"), serde_json::json!("Player Two")],
            Some(serde_json::Value::Array(players)) if players.len() == 2 && players.iter().all(is_scalar) => {
                players.clone()
            }
            Some(other) => return Err(BoardError::Players(other.clone())),
        };
        let whose_turn = match object.get("whose_turn") {
            None | Some(serde_json::Value::Null) => None,
            Some(player) if players.contains(player) => Some(player.clone()),
            Some(other) => return Err(BoardError::WhoseTurn(other.clone())),
        };
        let prev_move = match object.get("prev_move") {
            None | Some(serde_json::Value::Null) => None,
            Some(serde_json::Value::String(text)) => Some(text.clone()),
            Some(other) => return Err(BoardError::PrevMove(other.clone())),
        };
        Ok(BoardSpec { rows: cells, players, whose_turn, prev_move })
    }

    /// The board's JSON form, as [`BoardSpec::from_json`] reads it.
    pub fn to_json(&self) -> serde_json::Value {
        let mut object = serde_json::Map::new();
        object.insert("rows".into(), serde_json::json!(self.rows));
        object.insert("players".into(), serde_json::Value::Array(self.players.clone()));
        if let Some(player) = &self.whose_turn {
            object.insert("whose_turn".into(), player.clone());
        }
        if let Some(text) = &self.prev_move {
            object.insert("prev_move".into(), serde_json::Value::String(text.clone()));
        }
        serde_json::Value::Object(object)
    }
}

fn is_scalar(value: &serde_json::Value) -> bool {
    matches!(value, serde_json::Value::String(_) | serde_json::Value::Number(_))
}

impl CallArg {
    /// The argument as the protocol's `call` message carries it: `{"board":
    /// BOARD}`, `{"bool": b}`, `{"number": x}` (`"inf"`, `"-inf"` for
    /// infinities) or `{"text": s}`.
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            CallArg::Board(board) => serde_json::json!({ "board": board.to_json() }),
            CallArg::Bool(value) => serde_json::json!({ "bool": value }),
            CallArg::Number(value) if value.is_infinite() => {
                serde_json::json!({ "number": if *value > 0.0 { "inf" } else { "-inf" } })
            }
            CallArg::Number(value) => serde_json::json!({ "number": value }),
            CallArg::Text(text) => serde_json::json!({ "text": text }),
        }
    }

    /// Reads an argument from its form in a call test (the same as
    /// [`CallArg::to_json`]'s); the error says what is wrong.
    pub fn from_json(value: &serde_json::Value) -> Result<CallArg, ArgError> {
        let object = value
            .as_object()
            .filter(|object| object.len() == 1)
            .ok_or_else(|| ArgError::NotAnArgument(value.clone()))?;
        let (key, inner) = object.iter().next().expect("one entry");
        match (key.as_str(), inner) {
            ("board", board) => Ok(CallArg::Board(BoardSpec::from_json(board)?)),
            ("bool", serde_json::Value::Bool(b)) => Ok(CallArg::Bool(*b)),
            ("number", serde_json::Value::Number(n)) => Ok(CallArg::Number(n.as_f64().unwrap_or(0.0))),
            ("number", serde_json::Value::String(text)) if text == "inf" => Ok(CallArg::Number(f64::INFINITY)),
            ("number", serde_json::Value::String(text)) if text == "-inf" => Ok(CallArg::Number(f64::NEG_INFINITY)),
            ("text", serde_json::Value::String(text)) => Ok(CallArg::Text(text.clone())),
            ("bool" | "number" | "text", other) => Err(ArgError::WrongKind { key: key.clone(), value: other.clone() }),
            (other, _) => Err(ArgError::UnknownKind(other.to_string())),
        }
    }
}

/// Why a board's JSON form is not a board; the message says which key is wrong.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum BoardError {
    /// Not a mapping.
    #[error("a board is a mapping {{rows, players, whose_turn, prev_move}}")]
    NotAMapping,
    /// A key a board does not have.
    #[error("a board has no key `{0}` (it has rows, players, whose_turn and prev_move)")]
    UnknownKey(String),
    /// No `rows` list.
    #[error("a board needs `rows`: 6 rows of 7 cells")]
    NoRows,
    /// A number of rows other than 6.
    #[error("a board's `rows` are 6 rows of 7 cells, top row first (these are {0} rows)")]
    RowCount(usize),
    /// A row (numbered from 1) that is not a list of 7 cells.
    #[error("row {0} of the board is not a list of 7 cells (0 empty, 1 or 2 a player's piece)")]
    RowShape(usize),
    /// A cell that is not 0, 1, 2 or null.
    #[error("row {row} of the board has the cell {cell}: a cell is 0 (empty), 1 or 2")]
    Cell {
        /// The row, numbered from 1 (the top row).
        row: usize,
        /// The cell as written.
        cell: serde_json::Value,
    },
    /// `players` that are not two names or numbers.
    #[error("a board's `players` are two names or numbers, not {0}")]
    Players(serde_json::Value),
    /// A `whose_turn` that is none of the players.
    #[error("a board's `whose_turn` is one of its `players`, not {0}")]
    WhoseTurn(serde_json::Value),
    /// A `prev_move` that is not a text.
    #[error("a board's `prev_move` is a text, not {0}")]
    PrevMove(serde_json::Value),
}

/// Why a call test's argument is not one; the message says what is wrong.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ArgError {
    /// Not a mapping of one entry.
    #[error("an argument is one of {{board: ...}}, {{bool: ...}}, {{number: ...}} or {{text: ...}}, not {0}")]
    NotAnArgument(serde_json::Value),
    /// A board argument that is not a board (its own message, which names the key).
    #[error(transparent)]
    Board(#[from] BoardError),
    /// A `bool`, `number` or `text` whose value is not of that kind.
    #[error("the argument `{key}: {value}` is not a {key}")]
    WrongKind {
        /// The kind written.
        key: String,
        /// The value given.
        value: serde_json::Value,
    },
    /// A kind of argument the format does not have.
    #[error("unknown argument kind `{0}` (board, bool, number or text)")]
    UnknownKind(String),
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// Six empty rows of seven cells.
    fn rows() -> serde_json::Value {
        json!(vec![vec![0; 7]; 6])
    }

    #[test]
    fn a_board_that_is_not_one_says_which_key_is_wrong() {
        let board = |extra: serde_json::Value| {
            let mut board = json!({"rows": rows()});
            board.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
            BoardSpec::from_json(&board).unwrap_err().to_string()
        };
        assert_eq!(
            BoardSpec::from_json(&json!([1])).unwrap_err().to_string(),
            "a board is a mapping {rows, players, whose_turn, prev_move}"
        );
        assert_eq!(
            board(json!({"cols": 7})),
            "a board has no key `cols` (it has rows, players, whose_turn and prev_move)"
        );
        assert_eq!(
            board(json!({"rows": [[0]]})),
            "a board's `rows` are 6 rows of 7 cells, top row first (these are 1 rows)"
        );
        let mut bad_cell = vec![vec![json!(0); 7]; 6];
        bad_cell[2][3] = json!(3);
        assert_eq!(
            board(json!({ "rows": bad_cell })),
            "row 3 of the board has the cell 3: a cell is 0 (empty), 1 or 2"
        );
        assert_eq!(board(json!({"players": ["a"]})), "a board's `players` are two names or numbers, not [\"a\"]");
        assert_eq!(board(json!({"whose_turn": "c"})), "a board's `whose_turn` is one of its `players`, not \"c\"");
        assert_eq!(board(json!({"prev_move": 3})), "a board's `prev_move` is a text, not 3");
        assert!(BoardSpec::from_json(&json!({"rows": rows()})).is_ok());
    }

    #[test]
    fn an_argument_that_is_not_one_says_what_it_is() {
        let error = |value: serde_json::Value| CallArg::from_json(&value).unwrap_err();
        assert_eq!(
            error(json!({"bool": true, "text": "x"})).to_string(),
            "an argument is one of {board: ...}, {bool: ...}, {number: ...} or {text: ...}, not \
             {\"bool\":true,\"text\":\"x\"}"
        );
        assert_eq!(error(json!({"number": "many"})).to_string(), "the argument `number: \"many\"` is not a number");
        assert_eq!(error(json!({"tree": 1})).to_string(), "unknown argument kind `tree` (board, bool, number or text)");
        // A board's own message, unchanged.
        assert_eq!(
            error(json!({"board": {"rows": rows(), "prev_move": 1}})).to_string(),
            "a board's `prev_move` is a text, not 1"
        );
        assert_eq!(CallArg::from_json(&json!({"number": "-inf"})), Ok(CallArg::Number(f64::NEG_INFINITY)));
    }
}
