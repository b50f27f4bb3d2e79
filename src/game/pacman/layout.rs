//! Pacman boards: CS188's `.lay` files, read as CS188's `layout.py` reads them.
//!
//! A layout is rows of characters: `%` a wall, `.` food, `o` a capsule,
//! `P` Pacman, `G` a ghost (`1` to `4`: a numbered ghost); anything else
//! is floor. Each line is trimmed of surrounding spaces, the first line
//! gives the width (longer lines are cut to it), the last line is y = 0:
//! (0, 0) is the bottom-left corner. Agents are numbered as CS188 sorts
//! them: Pacman first, then the ghosts by number (`G` is 1) and position
//! (x, then y).

use std::fmt;

/// A cell of the board: x from the left, y from the bottom.
pub type Cell = (u16, u16);

/// A grid of booleans over the board (walls, or food), x-major as CS188's `Grid`.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Grid {
    width: u16,
    height: u16,
    bits: Vec<u64>,
}

impl Grid {
    /// An all-false grid.
    pub fn new(width: u16, height: u16) -> Grid {
        let cells = usize::from(width) * usize::from(height);
        Grid { width, height, bits: vec![0; cells.div_ceil(64)] }
    }

    /// Columns, as `Grid.width`.
    pub fn width(&self) -> u16 {
        self.width
    }

    /// Rows, as `Grid.height`.
    pub fn height(&self) -> u16 {
        self.height
    }

    fn index(&self, (x, y): Cell) -> usize {
        usize::from(x) * usize::from(self.height) + usize::from(y)
    }

    /// Whether `cell` is set; false outside the board.
    pub fn get(&self, cell: Cell) -> bool {
        if cell.0 >= self.width || cell.1 >= self.height {
            return false;
        }
        let index = self.index(cell);
        self.bits[index / 64] >> (index % 64) & 1 == 1
    }

    /// Sets or clears `cell` (which must be on the board).
    pub fn set(&mut self, cell: Cell, value: bool) {
        let index = self.index(cell);
        let mask = 1u64 << (index % 64);
        if value {
            self.bits[index / 64] |= mask;
        } else {
            self.bits[index / 64] &= !mask;
        }
    }

    /// How many cells are set (`Grid.count()`).
    pub fn count(&self) -> usize {
        self.bits.iter().map(|word| word.count_ones() as usize).sum()
    }

    /// The set cells in CS188's `asList()` order: x, then y.
    pub fn cells(&self) -> impl Iterator<Item = Cell> + '_ {
        (0..self.width).flat_map(move |x| (0..self.height).map(move |y| (x, y))).filter(|&cell| self.get(cell))
    }

    /// Each column (x = 0 first) as `0` and `1` from y = 0 up: how the protocol sends a grid.
    pub fn columns(&self) -> Vec<String> {
        (0..self.width).map(|x| (0..self.height).map(|y| if self.get((x, y)) { '1' } else { '0' }).collect()).collect()
    }
}

impl fmt::Debug for Grid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Grid({}x{}, {} set)", self.width, self.height, self.count())
    }
}

/// A board as a layout file gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// The rows as read (trimmed, cut to the width), top row first.
    pub rows: Vec<String>,
    /// The walls.
    pub walls: Grid,
    /// The food at the start.
    pub food: Grid,
    /// The capsules, in the order the file gives them (rows from the bottom, then x).
    pub capsules: Vec<Cell>,
    /// Pacman's start.
    pub pacman: Cell,
    /// The ghosts' starts, in agent order (ghost 1 first).
    pub ghosts: Vec<Cell>,
}

/// Why a layout cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    /// No rows.
    #[error("the layout has no rows")]
    Empty,
    /// A row shorter than the first, which CS188 would read past.
    #[error("row {row} (from the top) has {found} characters, fewer than the first row's {width}")]
    ShortRow {
        /// 1-based row from the top.
        row: usize,
        /// Its length.
        found: usize,
        /// The first row's.
        width: usize,
    },
    /// A board too large for the grids.
    #[error("the layout is {width} x {height}; at most 1000 x 1000 is supported")]
    TooLarge {
        /// Columns.
        width: usize,
        /// Rows.
        height: usize,
    },
    /// Not exactly one `P`.
    #[error("the layout has {count} Pacman starts (`P`); it needs exactly one")]
    Pacmen {
        /// How many.
        count: usize,
    },
    /// An open cell on the border, through which an agent would leave the board.
    #[error("the border cell ({x}, {y}) is not a wall (`%`): a board must be walled in")]
    OpenBorder {
        /// Column.
        x: u16,
        /// Row from the bottom.
        y: u16,
    },
}

impl Layout {
    /// Reads a layout's text, as `layout.py` reads a file or a test's inline layout.
    pub fn parse(text: &str) -> Result<Layout, LayoutError> {
        let mut rows: Vec<String> = text.split('\n').map(|line| line.trim().to_string()).collect();
        // A file's final newline ends its last row rather than starting another.
        while rows.last().is_some_and(String::is_empty) {
            rows.pop();
        }
        let width = rows.first().map(|row| row.chars().count()).ok_or(LayoutError::Empty)?;
        if width == 0 {
            return Err(LayoutError::Empty);
        }
        let height = rows.len();
        if width > 1000 || height > 1000 {
            return Err(LayoutError::TooLarge { width, height });
        }
        for (row, line) in rows.iter_mut().enumerate() {
            let found = line.chars().count();
            if found < width {
                return Err(LayoutError::ShortRow { row: row + 1, found, width });
            }
            *line = line.chars().take(width).collect();
        }
        let (width, height) = (width as u16, height as u16);
        let mut walls = Grid::new(width, height);
        let mut food = Grid::new(width, height);
        let mut capsules = Vec::new();
        // (0 for Pacman or the ghost's number, cell), sorted as CS188 sorts them.
        let mut agents: Vec<(u8, Cell)> = Vec::new();
        for y in 0..height {
            let line: Vec<char> = rows[usize::from(height - 1 - y)].chars().collect();
            for x in 0..width {
                let cell = (x, y);
                match line[usize::from(x)] {
                    '%' => walls.set(cell, true),
                    '.' => food.set(cell, true),
                    'o' => capsules.push(cell),
                    'P' => agents.push((0, cell)),
                    'G' => agents.push((1, cell)),
                    digit @ '1'..='4' => agents.push((digit as u8 - b'0', cell)),
                    _ => {}
                }
            }
        }
        agents.sort();
        let pacmen = agents.iter().filter(|(number, _)| *number == 0).count();
        if pacmen != 1 {
            return Err(LayoutError::Pacmen { count: pacmen });
        }
        for x in 0..width {
            for y in 0..height {
                let border = x == 0 || y == 0 || x == width - 1 || y == height - 1;
                if border && !walls.get((x, y)) {
                    return Err(LayoutError::OpenBorder { x, y });
                }
            }
        }
        Ok(Layout {
            rows,
            walls,
            food,
            capsules,
            pacman: agents[0].1,
            ghosts: agents[1..].iter().map(|&(_, cell)| cell).collect(),
        })
    }

    /// Columns.
    pub fn width(&self) -> u16 {
        self.walls.width()
    }

    /// Rows.
    pub fn height(&self) -> u16 {
        self.walls.height()
    }

    /// The text of the layout, one row a line.
    pub fn text(&self) -> String {
        self.rows.join("\n")
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) const SMALL: &str = "%%%%%%%%%%%%%%%%%%%%\n\
                                    %......%G  G%......%\n\
                                    %.%%...%%  %%...%%.%\n\
                                    %.%o.%........%.o%.%\n\
                                    %.%%.%.%%%%%%.%.%%.%\n\
                                    %........P.........%\n\
                                    %%%%%%%%%%%%%%%%%%%%\n";

    #[test]
    fn small_classic_reads_as_cs188_reads_it() {
        let layout = Layout::parse(SMALL).unwrap();
        assert_eq!((layout.width(), layout.height()), (20, 7));
        assert_eq!(layout.pacman, (9, 1));
        assert_eq!(layout.ghosts, [(8, 5), (11, 5)], "ghosts in (x, y) order");
        assert_eq!(layout.capsules, [(3, 3), (16, 3)]);
        assert_eq!(layout.food.count(), 55);
        assert!(layout.walls.get((0, 0)) && !layout.walls.get((1, 1)) && layout.walls.get((2, 2)));
        assert_eq!(layout.food.cells().next(), Some((1, 1)), "asList order: x, then y");
        assert_eq!(layout.walls.columns()[1], "1000001");
    }

    #[test]
    fn numbered_ghosts_come_after_g_and_rows_are_cut_to_the_first() {
        let layout = Layout::parse("%%%%%\n%2G1%\n%P..%%\n%%%%%").unwrap();
        assert_eq!(layout.ghosts, [(2, 2), (3, 2), (1, 2)]);
        assert_eq!(layout.rows[2], "%P..%");
    }

    #[test]
    fn unusable_layouts_say_why() {
        assert_eq!(Layout::parse("\n\n"), Err(LayoutError::Empty));
        assert_eq!(Layout::parse("%%%\n%P\n%%%"), Err(LayoutError::ShortRow { row: 2, found: 2, width: 3 }));
        assert_eq!(Layout::parse("%%%\n%.%\n%%%"), Err(LayoutError::Pacmen { count: 0 }));
        assert_eq!(Layout::parse("%%%%\n%P..\n%%%%"), Err(LayoutError::OpenBorder { x: 3, y: 1 }));
    }
}
