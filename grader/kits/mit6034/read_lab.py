"""read_lab: what MIT 6.034's games-lab tests ask, as JSON, for ``treegrade import mit6034``.

The lab's ``tests.py`` is Python code, so it is read by running it: this
script runs in a copy of the lab's folder (its own ``game_api``,
``toytree``, ``boards``, ``tester`` and starter ``lab2.py`` or
``lab3.py``), in the sandbox, never in the grader's process. It imports the
tests, calls each test's ``getargs`` (which builds fixtures and never
calls a student function) and prints JSON lines on standard output (one
per line, so that no line is longer than the grader reads):

- first ``{"lab": "lab2" or "lab3" or null, "tests": N}``;
- then the N tests in MIT's order (``number`` from 1), each with its
  ``function``, MIT's ``type``, ``expected_val`` (MIT's text), and a
  ``kind``: ``search`` (with ``args``, below), ``rule`` (a Connect Four rule
  function on named boards) or ``answer`` (a multiple-choice ``ANSWER_n``).
  A test the script cannot describe carries ``unusable`` with the reason,
  so that the importer reports it rather than skipping it silently;
- last ``{"fixtures": ...}``: the lab's named trees and boards, in the form
  the kit's ``_fixtures`` reads.

A search's ``args`` lists its arguments in order: ``{"game": GAME}``,
``{"number": x}`` (``"inf"`` and ``"-inf"`` for the infinities),
``{"bool": b}`` and ``{"heuristic": H}``. A toy-tree ``GAME`` is ``{"toytree":
TREE, "endgame": E}``: every node of the tree with its ``score``, and ``E``
the endgame function's answers at each leaf for both flags (by the node's
path of child indexes). A Connect Four ``GAME`` is ``{"board": BOARD,
"rules": "student", "positions": {PATH: [COLUMN, END, ...]}}``: MIT builds it
from the student's own rule functions; ``positions`` is Connect Four's own
tree from the board to the test's depth limit (to the end without one):
each position's move column and ``END`` (``win``: the player to move has
lost, ``draw``, or null), and at the depth cut a third item, the columns
that are still open.
A heuristic is ``{"name": ...}`` for the lab's named ones, or its answers
``{"values": {PATH: [for MIN, for MAX]}}`` on the toy tree it is used with.
"""

import json
import os
import sys

_HERE = os.path.abspath(os.getcwd())
sys.path.insert(0, _HERE)
_STUDENT_NAMES = ("lab2", "lab3")


def _inf(value):
    if isinstance(value, float) and value in (float("inf"), float("-inf")):
        return "inf" if value > 0 else "-inf"
    return value


def _tree(tree):
    return {
        "label": tree.label,
        "score": _inf(tree.score),
        "children": [_tree(child) for child in tree.children],
    }


def _board(board):
    return {
        "rows": [[cell or 0 for cell in row] for row in board.board_array],
        "players": list(board.players),
        "prev_move": board.prev_move_string,
    }


def _nodes(tree, path=()):
    yield path, tree
    for index, child in enumerate(tree.children):
        for item in _nodes(child, path + (index,)):
            yield item


def _key(path):
    return ".".join(str(index) for index in path)


def _both_flags(function, snapshot):
    answers = []
    for flag in (False, True):
        try:
            answers.append(_inf(function(snapshot, flag)))
        except Exception as exc:  # noqa: BLE001  (reported, not hidden)
            answers.append({"error": "%s: %s" % (type(exc).__name__, exc)})
    return answers


def _game(state, lab):
    import game_api

    snapshot = state.get_snapshot()
    if game_api.is_class_instance(snapshot, "ToyTree"):
        leaves = dict(
            (_key(path), _both_flags(state.endgame_score_fn, node)) for path, node in _nodes(snapshot) if not node.children
        )
        return {"toytree": _tree(snapshot), "endgame": leaves}
    if game_api.is_class_instance(snapshot, "ConnectFourBoard"):
        student = getattr(state.is_game_over_fn, "__module__", None) in _STUDENT_NAMES
        return {"board": _board(snapshot), "rules": "student" if student else "other"}
    raise ValueError("a game over a %s, which the importer does not know" % type(snapshot).__name__)


def _heuristic(function, toy):
    name = getattr(function, "__name__", "")
    if name in ("always_zero", "toytree_heuristic_fn") or (name != "<lambda>" and not name.startswith("_")):
        return {"name": name}
    if toy is None:
        return {"lambda": True}
    return {"values": dict((_key(path), _both_flags(function, node)) for path, node in _nodes(toy))}


def _connect_four_nodes(board, depth, path=()):
    """Every position of Connect Four's own rules down to ``depth`` moves, by path of move indexes.

    The lab's search tests build their game from the student's rules; the
    grader serves Connect Four's, so the heuristic is answered on those.
    """
    yield path, board
    if depth <= 0 or _connect_four_over(board):
        return
    moves = [column for column in range(board.num_cols) if not board.is_column_full(column)]
    for index, column in enumerate(moves):
        for item in _connect_four_nodes(board.add_piece(column), depth - 1, path + (index,)):
            yield item


def _positions(board, depth):
    """Connect Four's tree from ``board`` to ``depth`` moves (None: to the end), by path of move indexes.

    Each position is ``[column, end]``: the column of the move that made it
    (None at the root) and how the game stands: ``win`` (a chain of 4 or more: the player to move
    has lost), ``draw`` (a full board with none) or None (the game goes on).
    """
    positions = {}
    stack = [((), None, board, depth)]
    while stack:
        path, column, node, left = stack.pop()
        if len(positions) >= _MAX_POSITIONS:
            raise ValueError("the game from this board has more than %d positions" % _MAX_POSITIONS)
        chains = any(len(chain) >= 4 for chain in node.get_all_chains())
        full = all(node.is_column_full(c) for c in range(node.num_cols))
        end = "win" if chains else "draw" if full else None
        positions[_key(path)] = [column, end]
        if end:
            continue
        moves = [c for c in range(node.num_cols) if not node.is_column_full(c)]
        if left == 0:  # at the depth cut: its moves, which no correct search makes
            positions[_key(path)].append(moves)
            continue
        for index in reversed(range(len(moves))):
            stack.append((path + (index,), moves[index], node.add_piece(moves[index]), None if left is None else left - 1))
    return positions


# A game searched to its end from a board with this many positions or more is not one of the lab's.
_MAX_POSITIONS = 200000


def _connect_four_over(board):
    full = all(board.is_column_full(column) for column in range(board.num_cols))
    return full or any(len(chain) >= 4 for chain in board.get_all_chains())


def _describe_args(args, lab):
    import game_api

    toy = None
    for arg in args:
        if game_api.is_AbstractGameState_instance(arg) and game_api.is_class_instance(arg.get_snapshot(), "ToyTree"):
            toy = arg.get_snapshot()
    boards = [arg.get_snapshot() for arg in args if game_api.is_AbstractGameState_instance(arg)]
    depths = [arg for arg in args if isinstance(arg, int) and not isinstance(arg, bool)]
    described = []
    for arg in args:
        if game_api.is_AbstractGameState_instance(arg):
            game = _game(arg, lab)
            if "board" in game:
                game["positions"] = _positions(arg.get_snapshot(), depths[-1] if depths else None)
            described.append({"game": game})
        elif isinstance(arg, bool):
            described.append({"bool": arg})
        elif isinstance(arg, (int, float)):
            described.append({"number": _inf(arg)})
        elif callable(arg):
            heuristic = _heuristic(arg, toy)
            if heuristic.get("lambda") and boards and depths and game_api.is_class_instance(boards[0], "ConnectFourBoard"):
                nodes = _connect_four_nodes(boards[0], depths[-1])
                heuristic = {"values": dict((_key(path), _both_flags(arg, node)) for path, node in nodes)}
            described.append({"heuristic": heuristic})
        elif game_api.is_class_instance(arg, "ConnectFourBoard"):
            described.append({"board": _board(arg)})
        else:
            raise ValueError("an argument %r the importer does not know" % (arg,))
    return described


def _test(number, entry, lab):
    name, getargs, _testanswer, expected_val, _, kind = entry
    test = {"number": number, "function": name, "type": kind, "expected_val": str(expected_val)}
    try:
        if kind == "VALUE":
            test["kind"] = "answer"
            test["variable"] = getargs if isinstance(getargs, str) else name
        elif name in ("dfs_maximizing", "minimax_endgame_search", "minimax_search", "minimax_search_alphabeta",
                      "progressive_deepening"):
            test["kind"] = "search"
            test["args"] = _describe_args(getargs(), lab)
        else:
            test["kind"] = "rule"
            args = getargs()
            calls = args if kind == "MULTIFUNCTION" else [args]
            test["calls"] = [_describe_args(call, lab) for call in calls]
    except Exception as exc:  # noqa: BLE001  (the importer reports it)
        test["unusable"] = "%s: %s" % (type(exc).__name__, exc)
    return test


def main():
    import game_api

    lab = None
    for name in _STUDENT_NAMES:
        if os.path.isfile(os.path.join(_HERE, name + ".py")):
            lab = name
            break
    sys.stdout, protocol = sys.stderr, sys.stdout  # the lab's prints must not reach the JSON
    import tests  # noqa: F401  (runs the lab's make_test calls)
    import tester

    entries = tester.get_tests()
    described = [_test(number, entry, lab) for number, entry in enumerate(entries, 1)]
    fixtures = {"trees": {}, "boards": {}}
    for module_name, kind in (("toytree", "trees"), ("boards", "boards")):
        module = sys.modules.get(module_name) or __import__(module_name)
        for name, value in sorted(vars(module).items()):
            if name.startswith("_") or not name[:1].isupper():
                continue
            if kind == "trees" and game_api.is_AbstractGameState_instance(value):
                fixtures["trees"][name] = _tree(value.get_snapshot())
            elif kind == "boards" and game_api.is_class_instance(value, "ConnectFourBoard"):
                fixtures["boards"][name] = _board(value)
    # One line each, so that no line is longer than the grader reads (1 MiB).
    for line in [{"lab": lab, "tests": len(described)}] + described + [{"fixtures": fixtures}]:
        json.dump(line, protocol, sort_keys=True, separators=(",", ":"))
        protocol.write("\n")


if __name__ == "__main__":
    main()
