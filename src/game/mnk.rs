//! m,n,k-games (docs/format.md 7.1): `mnk`, and the presets `tic-tac-toe`,
//! `connect-four` and `gomoku`.
//!
//! A board is two bit sets, X's cells and O's, indexed in reading order (the
//! top row first). Boards of up to 64 cells (tic-tac-toe, connect-four) take
//! one machine word per player; larger ones take as many as they need, up to
//! 26 by 26.

use std::fmt;

use serde_json::json;

use super::{ArgError, ArgSite, Configured, Family, Game, GameArgs, Move, Params, Rules};
use crate::tree::NodeKind;

/// `mnk` and its presets.
pub static FAMILY: Family = Family { names: &["mnk", "tic-tac-toe", "connect-four", "gomoku"], make };

/// The largest width and height.
const MAX_SIDE: u64 = 26;

/// How a preset fixes the board: width, height, k, gravity.
fn preset(name: &str) -> Option<(u64, u64, u64, bool)> {
    match name {
        "tic-tac-toe" => Some((3, 3, 3, false)),
        "connect-four" => Some((7, 6, 4, true)),
        "gomoku" => Some((15, 15, 5, false)),
        _ => None,
    }
}

fn make(args: &GameArgs<'_>) -> Result<Box<dyn Game>, ArgError> {
    let config = Config::read(args)?;
    let cells = config.width * config.height;
    // One monomorphised game per board size, so a small board costs a word.
    match cells {
        0..=32 => build::<u32>(args, config),
        33..=64 => build::<[u64; 1]>(args, config),
        65..=128 => build::<[u64; 2]>(args, config),
        129..=256 => build::<[u64; 4]>(args, config),
        _ => build::<[u64; 11]>(args, config),
    }
}

fn build<B: Bits>(args: &GameArgs<'_>, config: Config) -> Result<Box<dyn Game>, ArgError> {
    let rules = Mnk::<B>::new(config);
    let start = match args.position {
        Some(position) => rules.parse_position(position)?,
        None => Board::empty(),
    };
    Ok(Box::new(Configured::new(args.name, rules, start)))
}

/// What the file fixes about the game.
#[derive(Clone, Debug, PartialEq)]
struct Config {
    width: usize,
    height: usize,
    k: usize,
    gravity: bool,
    center_first: bool,
    win: f64,
    draw: f64,
    per_ply: f64,
}

impl Config {
    fn read(args: &GameArgs<'_>) -> Result<Config, ArgError> {
        let (width, height, k, gravity, order) = match preset(args.name) {
            Some((width, height, k, gravity)) => {
                let params = Params::new(args, &["order"])?;
                (width, height, k, gravity, params.choice("order", &["natural", "center-first"])?)
            }
            None => {
                let params = Params::new(args, &["width", "height", "k", "gravity", "order"])?;
                let width = params.integer("width", 1, MAX_SIDE, None)?;
                let height = params.integer("height", 1, MAX_SIDE, None)?;
                let k = params.integer("k", 1, u64::MAX, None)?;
                let gravity = params.boolean("gravity", false)?;
                (width, height, k, gravity, params.choice("order", &["natural", "center-first"])?)
            }
        };
        let (win, draw, per_ply) = read_utility(args.utility)?;
        Ok(Config {
            width: width as usize,
            height: height as usize,
            k: usize::try_from(k).unwrap_or(usize::MAX),
            gravity,
            center_first: order == "center-first",
            win,
            draw,
            per_ply,
        })
    }
}

/// `utility: {win: W, draw: D, per_ply: P}`, defaults 1, 0 and 0.
fn read_utility(block: Option<&[(String, serde_json::Value)]>) -> Result<(f64, f64, f64), ArgError> {
    let (mut win, mut draw, mut per_ply) = (1.0, 0.0, 0.0);
    for (key, value) in block.unwrap_or_default() {
        let slot = match key.as_str() {
            "win" => &mut win,
            "draw" => &mut draw,
            "per_ply" => &mut per_ply,
            _ => {
                return Err(ArgError::new(
                    ArgSite::Utility(Some(key.clone())),
                    format!("unknown key `{key}` in `utility` (it takes win, draw, per_ply)"),
                ));
            }
        };
        *slot = value.as_f64().filter(|number| number.is_finite()).ok_or_else(|| {
            ArgError::new(ArgSite::Utility(Some(key.clone())), format!("`{key}` must be a finite number, not {value}"))
        })?;
    }
    Ok((win, draw, per_ply))
}

/// A set of cells, as small as the board allows.
pub(super) trait Bits: Copy + Eq + Send + Sync + fmt::Debug + 'static {
    /// No cell.
    const EMPTY: Self;
    /// Adds `cell`.
    fn set(&mut self, cell: usize);
    /// Whether `cell` is in the set.
    fn has(&self, cell: usize) -> bool;
    /// How many cells are in the set.
    fn count(&self) -> u32;
    /// How many cells the two sets share.
    fn overlap(&self, other: &Self) -> u32;
}

/// Boards of up to 32 cells (tic-tac-toe, 4 by 4, 5 by 5).
impl Bits for u32 {
    const EMPTY: u32 = 0;

    fn set(&mut self, cell: usize) {
        *self |= 1 << cell;
    }

    fn has(&self, cell: usize) -> bool {
        self & (1 << cell) != 0
    }

    fn count(&self) -> u32 {
        self.count_ones()
    }

    fn overlap(&self, other: &u32) -> u32 {
        (self & other).count_ones()
    }
}

/// Larger boards, 64 cells a word.
impl<const W: usize> Bits for [u64; W] {
    const EMPTY: [u64; W] = [0; W];

    fn set(&mut self, cell: usize) {
        self[cell / 64] |= 1 << (cell % 64);
    }

    fn has(&self, cell: usize) -> bool {
        self[cell / 64] & (1 << (cell % 64)) != 0
    }

    fn count(&self) -> u32 {
        self.iter().map(|word| word.count_ones()).sum()
    }

    fn overlap(&self, other: &[u64; W]) -> u32 {
        self.iter().zip(other).map(|(a, b)| (a & b).count_ones()).sum()
    }
}

fn set<B: Bits>(bits: &mut B, cell: usize) {
    bits.set(cell);
}

fn has<B: Bits>(bits: &B, cell: usize) -> bool {
    bits.has(cell)
}

fn count<B: Bits>(bits: &B) -> u32 {
    bits.count()
}

fn overlap<B: Bits>(a: &B, b: &B) -> u32 {
    a.overlap(b)
}

/// How a position stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    Playing,
    XWon,
    OWon,
    Draw,
}

/// A position: each player's cells and how the game stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Board<B> {
    x: B,
    o: B,
    status: Status,
}

impl<B: Bits> Board<B> {
    fn empty() -> Board<B> {
        Board { x: B::EMPTY, o: B::EMPTY, status: Status::Playing }
    }

    fn x_to_move(&self) -> bool {
        count(&self.x) == count(&self.o)
    }
}

/// A move: a cell (without gravity) or a column (with gravity).
type Action = u16;

/// The rules of one m,n,k-game.
struct Mnk<B> {
    config: Config,
    /// The moves in the tree's order: cells, or columns with gravity.
    order: Vec<usize>,
    /// Every line of `k` cells, for the `lines` evaluation.
    segments: Vec<B>,
    /// Each move's action, spelled once (ids are spelled for every node output).
    names: Vec<String>,
}

impl<B: Bits> Mnk<B> {
    fn new(config: Config) -> Mnk<B> {
        let mut order: Vec<usize> =
            if config.gravity { (0..config.width).collect() } else { (0..config.width * config.height).collect() };
        if config.center_first {
            let width = config.width;
            let column = |m: usize| if config.gravity { m } else { m % width };
            // Twice the distance from the middle, (width - 1) / 2, in whole numbers.
            order.sort_by_key(|&m| (2 * column(m)).abs_diff(width - 1));
        }
        let segments = segments(&config);
        let names = (0..if config.gravity { config.width } else { config.width * config.height })
            .map(|m| {
                if config.gravity {
                    column_letter(m).to_string()
                } else {
                    format!("{}{}", column_letter(m % config.width), config.height - m / config.width)
                }
            })
            .collect();
        Mnk { config, order, segments, names }
    }

    fn cell(&self, row: usize, column: usize) -> usize {
        row * self.config.width + column
    }

    /// Whether the player with `bits` has `k` in a line through `cell`.
    fn wins_through(&self, bits: &B, cell: usize) -> bool {
        let (width, height, k) = (self.config.width as isize, self.config.height as isize, self.config.k);
        let (row, column) = ((cell / self.config.width) as isize, (cell % self.config.width) as isize);
        [(0, 1), (1, 0), (1, 1), (1, -1)].into_iter().any(|(dr, dc)| {
            let run = |sign: isize| {
                let mut length = 0;
                let (mut r, mut c) = (row + sign * dr, column + sign * dc);
                while r >= 0 && r < height && c >= 0 && c < width && has(bits, (r * width + c) as usize) {
                    length += 1;
                    r += sign * dr;
                    c += sign * dc;
                }
                length
            };
            1 + run(1) + run(-1) >= k
        })
    }

    /// Whether the player with `bits` has `k` in a line anywhere.
    fn wins_anywhere(&self, bits: &B) -> bool {
        (0..self.config.width * self.config.height).any(|cell| has(bits, cell) && self.wins_through(bits, cell))
    }

    fn is_full(&self, board: &Board<B>) -> bool {
        (count(&board.x) + count(&board.o)) as usize == self.config.width * self.config.height
    }

    /// Plays `cell` for the player to move.
    fn play(&self, board: &Board<B>, cell: usize) -> Board<B> {
        let mut next = board.clone();
        let x = board.x_to_move();
        let mover = if x { &mut next.x } else { &mut next.o };
        set(mover, cell);
        next.status = if self.wins_through(if x { &next.x } else { &next.o }, cell) {
            if x { Status::XWon } else { Status::OWon }
        } else if self.is_full(&next) {
            Status::Draw
        } else {
            Status::Playing
        };
        next
    }

    /// The lowest empty cell of `column`, if it is not full.
    fn landing(&self, board: &Board<B>, column: usize) -> Option<usize> {
        (0..self.config.height)
            .rev()
            .map(|row| self.cell(row, column))
            .find(|&cell| !has(&board.x, cell) && !has(&board.o, cell))
    }

    fn parse_position(&self, position: &serde_json::Value) -> Result<Board<B>, ArgError> {
        let wrong = |message: String| ArgError::new(ArgSite::Position, message);
        let text = position.as_str().ok_or_else(|| {
            wrong(format!("the position must be a string of rows from the top, separated by `/`, not {position}"))
        })?;
        let (width, height) = (self.config.width, self.config.height);
        let rows: Vec<&str> = text.split('/').collect();
        if rows.len() != height {
            return Err(wrong(format!("the position has {} rows, but the board is {height} high", rows.len())));
        }
        let mut board = Board::empty();
        for (r, row) in rows.iter().enumerate() {
            let cells: Vec<char> = row.chars().collect();
            if cells.len() != width {
                return Err(wrong(format!(
                    "row {} of the position (`{row}`, counted from the top) has {} cells, but the board is {width} wide",
                    r + 1,
                    cells.len()
                )));
            }
            for (c, symbol) in cells.into_iter().enumerate() {
                match symbol {
                    'x' => set(&mut board.x, self.cell(r, c)),
                    'o' => set(&mut board.o, self.cell(r, c)),
                    '.' => {}
                    other => {
                        return Err(wrong(format!(
                            "row {} of the position has `{other}`: cells are `x`, `o` or `.` (empty)",
                            r + 1
                        )));
                    }
                }
            }
        }
        self.check_position(&mut board).map_err(wrong)?;
        Ok(board)
    }

    /// Checks the counts, the winners and gravity; sets how the game stands.
    fn check_position(&self, board: &mut Board<B>) -> Result<(), String> {
        let (xs, os) = (count(&board.x), count(&board.o));
        if xs != os && xs != os + 1 {
            return Err(format!(
                "the position has {xs} x and {os} o: X moves first, so x must equal o (X to move) or be one more (O to move)"
            ));
        }
        if self.config.gravity {
            for cell in 0..self.config.width * (self.config.height - 1) {
                let below = cell + self.config.width;
                let occupied = |cell| has(&board.x, cell) || has(&board.o, cell);
                if occupied(cell) && !occupied(below) {
                    return Err(format!(
                        "the piece at {} floats above an empty cell, which gravity does not allow",
                        self.cell_name(cell)
                    ));
                }
            }
        }
        let (x_wins, o_wins) = (self.wins_anywhere(&board.x), self.wins_anywhere(&board.o));
        let x_to_move = board.x_to_move();
        board.status = match (x_wins, o_wins) {
            (true, true) => return Err(format!("both players have {} in a row", self.config.k)),
            (true, false) if x_to_move => {
                return Err(format!(
                    "X has {} in a row but is to move: the game ended before O's last move",
                    self.config.k
                ));
            }
            (false, true) if !x_to_move => {
                return Err(format!(
                    "O has {} in a row but is to move: the game ended before X's last move",
                    self.config.k
                ));
            }
            (true, false) => Status::XWon,
            (false, true) => Status::OWon,
            (false, false) if self.is_full(board) => Status::Draw,
            (false, false) => Status::Playing,
        };
        Ok(())
    }

    fn cell_name(&self, cell: usize) -> String {
        let (row, column) = (cell / self.config.width, cell % self.config.width);
        format!("{}{}", column_letter(column), self.config.height - row)
    }
}

fn column_letter(column: usize) -> char {
    char::from(b'a' + column as u8)
}

/// Every line of `k` consecutive cells: rows, columns and both diagonals.
fn segments<B: Bits>(config: &Config) -> Vec<B> {
    let (width, height, k) = (config.width as isize, config.height as isize, config.k as isize);
    let mut out = Vec::new();
    for (dr, dc) in [(0, 1), (1, 0), (1, 1), (1, -1)] {
        for row in 0..height {
            for column in 0..width {
                let (end_row, end_column) = (row + dr * (k - 1), column + dc * (k - 1));
                if end_row < 0 || end_row >= height || end_column < 0 || end_column >= width {
                    continue;
                }
                let mut bits = B::EMPTY;
                for step in 0..k {
                    set(&mut bits, ((row + dr * step) * width + column + dc * step) as usize);
                }
                out.push(bits);
            }
        }
    }
    out
}

impl<B: Bits> Rules for Mnk<B> {
    type State = Board<B>;
    type Action = Action;

    fn kind(&self, board: &Board<B>) -> NodeKind {
        match board.status {
            Status::Playing if board.x_to_move() => NodeKind::Max,
            Status::Playing => NodeKind::Min,
            _ => NodeKind::Terminal,
        }
    }

    fn moves(&self, board: &Board<B>, out: &mut Vec<Move<Action, Board<B>>>) {
        if board.status != Status::Playing {
            return;
        }
        for &m in &self.order {
            let cell = if self.config.gravity {
                match self.landing(board, m) {
                    Some(cell) => cell,
                    None => continue,
                }
            } else if has(&board.x, m) || has(&board.o, m) {
                continue;
            } else {
                m
            };
            out.push(Move { action: m as Action, state: self.play(board, cell), probability: 1.0 });
        }
    }

    fn utility(&self, board: &Board<B>, ply: u32) -> f64 {
        let win = self.config.win - self.config.per_ply * f64::from(ply);
        match board.status {
            Status::XWon => win,
            Status::OWon => -win,
            _ => self.config.draw,
        }
    }

    fn evaluations(&self) -> &[&'static str] {
        &["lines"]
    }

    /// `lines`: each segment with c >= 1 pieces of one player and none of
    /// the other adds (or subtracts) 10^(c-1), summed exactly.
    fn evaluate(&self, _which: usize, board: &Board<B>) -> f64 {
        let mut total: i128 = 0;
        for segment in &self.segments {
            let (xs, os) = (overlap(&board.x, segment), overlap(&board.o, segment));
            match (xs, os) {
                (0, 0) => {}
                (c, 0) => total += 10i128.pow(c - 1),
                (0, c) => total -= 10i128.pow(c - 1),
                _ => {}
            }
        }
        total as f64
    }

    fn action_name(&self, action: Action, out: &mut String) {
        out.push_str(&self.names[usize::from(action)]);
    }

    fn state_json(&self, board: &Board<B>) -> serde_json::Value {
        let to_move = match self.kind(board) {
            NodeKind::Max => json!("x"),
            NodeKind::Min => json!("o"),
            _ => serde_json::Value::Null,
        };
        json!({"board": self.rows(board), "to_move": to_move})
    }

    fn board(&self, board: &Board<B>) -> Option<String> {
        let height = self.config.height;
        let mut lines: Vec<String> =
            self.rows(board).into_iter().enumerate().map(|(r, row)| format!("{:>2} {row}", height - r)).collect();
        lines.push(format!("   {}", (0..self.config.width).map(column_letter).collect::<String>()));
        Some(lines.join("\n"))
    }
}

impl<B: Bits> Mnk<B> {
    /// The rows from the top, as the position spells them.
    fn rows(&self, board: &Board<B>) -> Vec<String> {
        (0..self.config.height)
            .map(|row| {
                (0..self.config.width)
                    .map(|column| {
                        let cell = self.cell(row, column);
                        if has(&board.x, cell) {
                            'x'
                        } else if has(&board.o, cell) {
                            'o'
                        } else {
                            '.'
                        }
                    })
                    .collect()
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Algorithm, MoveOrdering, SearchSettings, search};
    use crate::game::{UnfoldOptions, make};
    use crate::tree::{GameTree, NodeIndex};

    fn game(name: &str, params: &[(&str, serde_json::Value)], position: Option<&str>) -> Box<dyn Game> {
        let params: Vec<(String, serde_json::Value)> = params.iter().map(|(k, v)| (k.to_string(), v.clone())).collect();
        let position = position.map(|p| json!(p));
        make(&GameArgs { name, params: &params, position: position.as_ref(), utility: None }).unwrap()
    }

    fn refused(name: &str, params: &[(&str, serde_json::Value)], position: &str) -> ArgError {
        let params: Vec<(String, serde_json::Value)> = params.iter().map(|(k, v)| (k.to_string(), v.clone())).collect();
        let position = json!(position);
        make(&GameArgs { name, params: &params, position: Some(&position), utility: None }).unwrap_err()
    }

    fn children(tree: &dyn GameTree, node: NodeIndex) -> Vec<String> {
        tree.children(node).map(|child| tree.id(child).into_owned()).collect()
    }

    #[test]
    fn tic_tac_toe_starts_with_nine_cells_in_reading_order() {
        let tree = game("tic-tac-toe", &[], None).unfold(&UnfoldOptions::default()).unwrap();
        assert_eq!(tree.kind(NodeIndex::ROOT), NodeKind::Max);
        assert_eq!(children(&*tree, NodeIndex::ROOT), ["a3", "b3", "c3", "a2", "b2", "c2", "a1", "b1", "c1"]);
        let b2 = NodeIndex(5);
        assert_eq!(tree.id(b2), "b2");
        assert_eq!(tree.kind(b2), NodeKind::Min);
        assert_eq!(children(&*tree, b2)[..2], ["b2-a3", "b2-b3"]);
        assert_eq!(tree.state(b2).unwrap(), json!({"board": ["...", ".x.", "..."], "to_move": "o"}));
    }

    #[test]
    fn connect_four_drops_pieces_and_orders_from_the_centre() {
        let natural = game("connect-four", &[], None).unfold(&UnfoldOptions::default()).unwrap();
        assert_eq!(children(&*natural, NodeIndex::ROOT), ["a", "b", "c", "d", "e", "f", "g"]);
        let centre = game("connect-four", &[("order", json!("center-first"))], None);
        let tree = centre.unfold(&UnfoldOptions::default()).unwrap();
        assert_eq!(children(&*tree, NodeIndex::ROOT), ["d", "c", "e", "b", "f", "a", "g"]);
        let d = NodeIndex(1);
        assert_eq!(tree.state(d).unwrap()["board"][5], json!("...x..."), "the piece falls to the bottom row");
    }

    #[test]
    fn the_full_tic_tac_toe_minimax_enters_549946_nodes() {
        let tree = game("tic-tac-toe", &[], None).unfold(&UnfoldOptions::default()).unwrap();
        let outcome = search(&*tree, &SearchSettings::new(Algorithm::Minimax)).unwrap();
        assert_eq!(outcome.value, 0.0);
        assert_eq!(outcome.visited.len(), 549_946);
        assert_eq!(tree.action(outcome.action.unwrap()), "a3", "every first move draws: the first is chosen");
    }

    #[test]
    fn the_format_example_enters_318_nodes_and_answers_b3() {
        let tree = game("tic-tac-toe", &[], Some("x../.o./..x")).unfold(&UnfoldOptions::default()).unwrap();
        let outcome = search(&*tree, &SearchSettings::new(Algorithm::AlphaBeta)).unwrap();
        assert_eq!((outcome.value, tree.action(outcome.action.unwrap()).into_owned()), (0.0, "b3".to_string()));
        assert_eq!(outcome.visited.len(), 318);
        assert_eq!(tree.ids_of(&outcome.visited[..4]), ["root", "b3", "b3-c3", "b3-c3-a2"]);
    }

    #[test]
    fn quicker_wins_are_worth_more_with_per_ply() {
        let utility = [("win".to_string(), json!(10)), ("per_ply".to_string(), json!(1))];
        let position = json!("xx./oo./...");
        let args = GameArgs { name: "tic-tac-toe", params: &[], position: Some(&position), utility: Some(&utility) };
        let tree = make(&args).unwrap().unfold(&UnfoldOptions::default()).unwrap();
        let outcome = search(&*tree, &SearchSettings::new(Algorithm::Minimax)).unwrap();
        assert_eq!(outcome.value, 9.0, "X wins at ply 1: 10 - 1");
        assert_eq!(tree.action(outcome.action.unwrap()), "c3");
    }

    #[test]
    fn lines_counts_open_segments_in_powers_of_ten() {
        let options = UnfoldOptions { eval: Some("lines".into()), ..UnfoldOptions::default() };
        let tree = game("tic-tac-toe", &[], Some("x../.../...")).unfold(&options).unwrap();
        // a3 lies on its row, its column and one diagonal: 3 segments with one X.
        assert_eq!(tree.eval(NodeIndex::ROOT), Some(3.0));
        let tree = game("tic-tac-toe", &[], Some("xx./o../...")).unfold(&options).unwrap();
        // Row 3: 10; column a blocked; column b: 1; diagonal a3-c1: 1; anti-diagonal: none; row 2: -1; column a has both.
        assert_eq!(tree.eval(NodeIndex::ROOT), Some(10.0 + 1.0 + 1.0 - 1.0));
    }

    #[test]
    fn move_ordering_by_lines_changes_what_alphabeta_enters() {
        let options = UnfoldOptions { eval: Some("lines".into()), ..UnfoldOptions::default() };
        let tree = game("tic-tac-toe", &[], None).unfold(&options).unwrap();
        let settings = SearchSettings {
            depth: Some(1),
            move_ordering: MoveOrdering::Eval,
            ..SearchSettings::new(Algorithm::AlphaBeta)
        };
        let outcome = search(&*tree, &settings).unwrap();
        assert_eq!(tree.ids_of(&outcome.visited[..2]), ["root", "b2"], "the centre has the greatest static value");
        assert_eq!(tree.action(outcome.action.unwrap()), "b2");
    }

    #[test]
    fn broken_positions_are_refused_with_the_reason() {
        assert!(refused("tic-tac-toe", &[], "xx/.../...").message.contains("row 1"));
        assert!(refused("tic-tac-toe", &[], "xxx/o../...").message.contains("x must equal o"));
        assert!(refused("tic-tac-toe", &[], "xxx/ooo/x..").message.contains("both players"));
        assert!(refused("tic-tac-toe", &[], "xxx/oo./.o.").message.contains("X has 3 in a row but is to move"));
        assert!(
            refused("connect-four", &[], "......./......./......./......./...x.../.......").message.contains("floats")
        );
        assert!(refused("tic-tac-toe", &[], "x?./.../...").message.contains("`?`"));
        assert!(refused("tic-tac-toe", &[("k", json!(3))], "...").message.contains("unknown parameter `k`"));
        assert!(
            refused("mnk", &[("width", json!(27)), ("height", json!(3)), ("k", json!(3))], "...")
                .message
                .contains("1 to 26")
        );
    }

    #[test]
    fn a_won_position_is_a_terminal() {
        let tree = game("tic-tac-toe", &[], Some("xxx/oo./...")).unfold(&UnfoldOptions::default()).unwrap();
        assert_eq!(tree.kind(NodeIndex::ROOT), NodeKind::Terminal);
        assert_eq!(tree.utility(NodeIndex::ROOT), 1.0);
        assert_eq!(tree.state(NodeIndex::ROOT).unwrap()["to_move"], serde_json::Value::Null);
    }

    #[test]
    fn large_boards_take_several_words() {
        let tree = game("gomoku", &[], None).unfold(&UnfoldOptions::default()).unwrap();
        assert_eq!(tree.child_range(NodeIndex::ROOT).len(), 225);
        let last = NodeIndex(225);
        assert_eq!(tree.id(last), "o1");
        let big = game("mnk", &[("width", json!(26)), ("height", json!(26)), ("k", json!(5))], None);
        let tree = big.unfold(&UnfoldOptions::default()).unwrap();
        assert_eq!(tree.child_range(NodeIndex::ROOT).len(), 676);
        assert_eq!(tree.id(NodeIndex(676)), "z1");
    }
}
