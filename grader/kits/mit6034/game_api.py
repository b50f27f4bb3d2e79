"""game_api: the API of MIT 6.034's games lab, written for treegrade.

A student's ``lab2.py`` (``lab3.py`` in Fall 2017-2019) starts with
``from game_api import *``; this module gives it every name the lab's
``game_api`` offers (``AbstractGameState``, ``ConnectFourBoard``,
``AnytimeValue``, ``always_zero``, ``is_class_instance``,
``is_AbstractGameState_instance``, ``is_dfs_return_type``,
``pretty_print_dfs_type``, ``pretty_format_dfs_type``, ``move_sequence``,
``reduce``, ``deepcopy``, ``INF``), with the same behaviour, so that the
student's file runs unchanged.

Under the grader, the states a search is given are served ones
(``treegrade_mit6034``): their ``generate_next_states`` asks the grader,
and ``get_endgame_score`` is recorded as a static evaluation. The classes
here are what the student's own rule functions and the lab's fixtures use.
"""

from copy import deepcopy
from functools import reduce

INF = float("inf")

__all__ = [
    "INF",
    "AbstractGameState",
    "ConnectFourBoard",
    "AnytimeValue",
    "always_zero",
    "is_class_instance",
    "is_AbstractGameState_instance",
    "is_dfs_return_type",
    "pretty_print_dfs_type",
    "pretty_format_dfs_type",
    "move_sequence",
    "reduce",
    "deepcopy",
]


def always_zero(state, maximize=True):
    """The heuristic that knows nothing: 0 for every state."""
    return 0


class AbstractGameState(object):
    """A game position (its ``snapshot``) with the game's three rule functions.

    ``is_game_over_fn(snapshot)``, ``generate_next_states_fn(snapshot)`` (a
    list of snapshots, in move order) and ``endgame_score_fn(snapshot,
    is_current_player_maximizer)`` define the game.
    """

    def __init__(self, snapshot, is_game_over_fn, generate_next_states_fn, endgame_score_fn):
        self.snapshot = snapshot
        self.starting_state = snapshot
        self.is_game_over_fn = is_game_over_fn
        self.generate_next_states_fn = generate_next_states_fn
        self.endgame_score_fn = endgame_score_fn

    def __str__(self):
        return "\n<AbstractGameState representing:\n%s\n>" % (self.snapshot,)

    __repr__ = __str__

    def __eq__(self, other):
        return is_class_instance(other, "AbstractGameState") and self.snapshot == other.snapshot

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = None

    def wrap(self, snapshot):
        """A state of the same game at another snapshot."""
        return AbstractGameState(snapshot, self.is_game_over_fn, self.generate_next_states_fn, self.endgame_score_fn)

    def get_snapshot(self):
        return self.snapshot

    def is_game_over(self):
        """True when the game's rule says so, or when there is no move left."""
        return len(self.generate_next_states()) == 0 or bool(self.is_game_over_fn(self.snapshot))

    def generate_next_states(self):
        return [self.wrap(snapshot) for snapshot in self.generate_next_states_fn(self.snapshot)]

    def describe_previous_move(self):
        return self.snapshot.describe_previous_move()

    def get_endgame_score(self, is_current_player_maximizer=True):
        """The score of a finished game; a ``ValueError`` anywhere else."""
        if not self.is_game_over():
            raise ValueError("Only endgame states have endgame score defined.")
        return self.endgame_score_fn(self.snapshot, is_current_player_maximizer)

    def restart(self):
        self.snapshot = self.starting_state
        return self

    def copy(self):
        return deepcopy(self)


class ConnectFourBoard(object):
    """An immutable-by-convention 6x7 Connect Four board.

    ``board_array`` is a list of rows, top row first; a cell is ``None``
    (empty), 1 or 2. The player to move places piece 1 when the number of
    pieces on the board is even and piece 2 when it is odd. ``players`` is
    ``[player to move, other player]``.
    """

    num_rows = 6
    num_cols = 7

    def __init__(self, board_array=None, players=["Player One", "Player Two"], whose_turn=None):
        if not isinstance(players, (list, tuple)) or len(players) != 2:
            raise TypeError("Expected list of two players, got " + str(players))
        if not board_array:
            board_array = [[0] * ConnectFourBoard.num_cols for _ in range(ConnectFourBoard.num_rows)]
        self.board_array = [[None if cell == 0 or cell is None else cell for cell in row] for row in board_array]
        self.prev_move_string = "none"
        self.players = list(players)
        self.whose_turn = whose_turn if whose_turn in self.players else self.players[0]
        if self.whose_turn != self.players[0]:
            self.players.reverse()

    # -- players ---------------------------------------------------------------

    def get_current_player_name(self):
        return self.whose_turn

    def set_current_player_name(self, player):
        assert player in self.players
        self.whose_turn = player
        self.players = [player] + [other for other in self.players if other != player]

    def get_other_player_name(self):
        return self.players[1]

    def get_player_name(self, player_number):
        first, second = self.players
        return first if self._piece_of(first) == player_number else second

    def _piece_of(self, player=None):
        """The piece (1 or 2) that ``player`` (default: the one to move) plays."""
        player = player or self.whose_turn
        pieces = sum(1 for row in self.board_array for cell in row if cell)
        return (1, 2)[((player != self.whose_turn) + pieces) % 2]

    # The lab's name for it, which some students call.
    __piece_type__ = _piece_of

    def __whose_piece__(self):
        return dict((self._piece_of(player), player) for player in self.players)

    # -- pieces ----------------------------------------------------------------

    def get_piece(self, col, row):
        return self.board_array[row][col]

    def count_pieces(self, current_player=None):
        """All pieces, or the ones of the player to move (True) or of the other (False)."""
        if current_player not in (True, False, None):
            raise TypeError("Expected boolean value for current_player, got " + str(current_player))
        cells = [cell for row in self.board_array for cell in row if cell]
        if current_player is None:
            return len(cells)
        piece = self._piece_of(self.get_current_player_name() if current_player else self.get_other_player_name())
        return sum(1 for cell in cells if cell == piece)

    def get_column_height(self, col_number):
        height = 0
        for row in reversed(self.board_array):
            if not row[col_number]:
                break
            height += 1
        return height

    def is_column_full(self, col_number):
        return self.get_column_height(col_number) == ConnectFourBoard.num_rows

    def add_piece(self, col_number, player=None):
        """A new board with ``player``'s piece dropped in the column; the turn passes."""
        if self.is_column_full(col_number):
            raise IndexError("Can't add piece to full column " + str(col_number) + ".")
        player = player or self.whose_turn
        piece = self._piece_of(player)
        board = self.copy()
        board.board_array[-(1 + board.get_column_height(col_number))][col_number] = piece
        board.prev_move_string = "Put %s's piece in col %s" % (player, col_number)
        board.set_current_player_name(board.players[1])
        return board

    def describe_previous_move(self):
        return self.prev_move_string

    def copy(self):
        """A deep copy; the board's own fields copied by hand (a deepcopy of each is slow)."""
        if type(self) is not ConnectFourBoard:
            return deepcopy(self)
        board = ConnectFourBoard.__new__(ConnectFourBoard)
        for name, value in self.__dict__.items():
            if name == "board_array" and isinstance(value, list):
                value = [list(row) for row in value]
            elif name == "players" and isinstance(value, list):
                value = list(value)
            elif not isinstance(value, (str, int, float, type(None))):
                value = deepcopy(value)
            board.__dict__[name] = value
        return board

    # -- chains ----------------------------------------------------------------

    def get_all_chains(self, current_player=None):
        """Every maximal run of one player's pieces, in any of the four directions.

        A piece with no neighbour of its own in any of the eight directions
        is a chain of one; longer runs are listed once per direction. With
        ``current_player`` True (False), only the chains of the player to
        move (of the other player).
        """
        if current_player not in (True, False, None):
            raise TypeError("Expected boolean value for current_player, got " + str(current_player))
        chains = (
            self.get_singleton_chains()
            + self.get_horizontal_chains()
            + self.get_vertical_chains()
            + self.get_northeast_chains()
            + self.get_northwest_chains()
        )
        if current_player is None:
            return chains
        piece = self._piece_of(self.get_current_player_name() if current_player else self.get_other_player_name())
        return [chain for chain in chains if chain[0] == piece]

    def get_singleton_chains(self):
        chains = []
        for row in range(self.num_rows):
            for col in range(self.num_cols):
                piece = self.get_piece(col, row)
                if piece is not None and not self._has_neighbour(col, row, piece):
                    chains.append([piece])
        return chains

    def _has_neighbour(self, col, row, piece):
        for x in (col - 1, col, col + 1):
            for y in (row - 1, row, row + 1):
                inside = 0 <= x < self.num_cols and 0 <= y < self.num_rows
                if inside and (x, y) != (col, row) and self.get_piece(x, y) == piece:
                    return True
        return False

    def get_horizontal_chains(self, includeSingletons=False):
        lines = [[(col, row) for col in range(self.num_cols)] for row in range(self.num_rows)]
        return self._chains(lines, includeSingletons)

    def get_vertical_chains(self, includeSingletons=False):
        lines = [[(col, row) for row in range(self.num_rows)] for col in range(self.num_cols)]
        return self._chains(lines, includeSingletons)

    def get_northeast_chains(self, includeSingletons=False):
        return self._chains(self._diagonals(+1), includeSingletons)

    def get_northwest_chains(self, includeSingletons=False):
        return self._chains(self._diagonals(-1), includeSingletons)

    def _diagonals(self, dx):
        """The cells of every diagonal going up (row - 1) and sideways by ``dx``."""
        starts = [(0 if dx > 0 else self.num_cols - 1, row) for row in range(self.num_rows - 1)]
        starts += [(col, self.num_rows - 1) for col in range(self.num_cols)]
        lines = []
        for col, row in starts:
            line = []
            while 0 <= col < self.num_cols and 0 <= row < self.num_rows:
                line.append((col, row))
                col, row = col + dx, row - 1
            lines.append(line)
        return lines

    def _chains(self, lines, include_singletons):
        chains = []
        for line in lines:
            run = []
            for col, row in line:
                piece = self.get_piece(col, row)
                if run and piece != run[0]:
                    chains.append(run)
                    run = []
                if piece is not None:
                    run.append(piece)
            if run:
                chains.append(run)
        return [chain for chain in chains if include_singletons or len(chain) > 1]

    # -- comparing and printing ------------------------------------------------

    def same_board_array(self, other):
        return is_class_instance(other, "ConnectFourBoard") and self.board_array == other.board_array

    def __eq__(self, other):
        return (
            is_class_instance(other, "ConnectFourBoard")
            and self.board_array == other.board_array
            and self.prev_move_string == other.prev_move_string
            and self.players == other.players
            and self.whose_turn == other.whose_turn
        )

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = None

    def __str__(self):
        return "".join("".join({1: "1 ", 2: "2 "}.get(cell, "_ ") for cell in row) + "\n" for row in self.board_array)


class AnytimeValue(object):
    """The answers of progressive deepening, one per depth, the last one current."""

    def __init__(self, val=None):
        self.value = val
        self.history = []
        self.total_evaluations = 0
        if val is not None:
            self.set_value(val)

    def set_value(self, val):
        if not is_dfs_return_type(val):
            raise TypeError("AnytimeValue.set_value expected tuple (path, score, number of evaluations)")
        self.value = val
        self.history.append(val)
        self.total_evaluations += val[2]

    def get_value(self):
        return self.value

    def pretty_print(self):
        print("*** Begin printing AnytimeValue history ***\n")
        for val in self.history:
            print("\nProgressive deepening to depth " + str(len(val[0]) - 1) + ":")
            pretty_print_dfs_type(val)
        print("*** Done printing AnytimeValue history ***\n")
        print("Total number of static evaluations:", self.total_evaluations, "\n")

    def __str__(self):
        return "<AnytimeValue object representing %i levels of progressive deepening>" % len(self.history)

    __repr__ = __str__

    def copy(self):
        return deepcopy(self)


def is_class_instance(obj, class_name):
    return hasattr(obj, "__class__") and obj.__class__.__name__ == class_name


def is_AbstractGameState_instance(obj):
    return is_class_instance(obj, "AbstractGameState")


def is_dfs_return_type(val):
    """True for ``(path, score, evaluations)`` whose path is a list of states."""
    return (
        isinstance(val, (tuple, list))
        and len(val) == 3
        and isinstance(val[0], (tuple, list))
        and all(is_AbstractGameState_instance(state) for state in val[0])
    )


def pretty_print_dfs_type(dfs_result):
    print(pretty_format_dfs_type(dfs_result))


def pretty_format_dfs_type(dfs_result):
    if not is_dfs_return_type(dfs_result):
        raise TypeError("expected tuple (path, score, number of evaluations)")
    text = "\nPath:"
    for state in dfs_result[0]:
        text += "\n%s\n%s" % (state.snapshot.__class__, state.snapshot)
    return text + "\nScore: %s\nEvaluations: %s\n" % (dfs_result[1], dfs_result[2])


def move_sequence(state, move_indexes=[]):
    """The states from ``state`` along the moves at these indexes of ``generate_next_states()``."""
    states = [state]
    for index in move_indexes:
        states.append(states[-1].generate_next_states()[index])
    return states
