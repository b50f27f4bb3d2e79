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
  function on named boards: ``calls``, each call's arguments as
  ``{"board": BOARD}`` with ``whose_turn``, ``{"bool": b}``, ``{"number": x}``)
  or ``answer`` (a multiple-choice ``ANSWER_n``: ``variable``); a rule or
  answer test also has ``shown`` (the call as a student reads it), ``check``
  (a check of docs/format.md's calls questions, derived with the lab's own
  classes) and ``probes`` (how many values the check and MIT's
  ``testanswer`` agreed on; see "Rule and answer tests" below).
  A test the script cannot describe, or whose check no calls check can
  express, carries ``unusable`` with the reason, so that the importer
  reports it rather than skipping it silently;
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


# ---- Rule and answer tests: the call, its check, and the check verified against MIT's testanswer.
#
# A rule test (tests 1-22) or an answer test (41-44) becomes a call the
# grader makes and a check the GRADER applies to the returned value (the
# forms of docs/format.md's calls questions: equals, equals_text, boards,
# numbers). The check is derived here, where MIT's testanswer can run, and
# then verified: the check (applied, as the grader will, to the JSON form of
# a value) and MIT's testanswer must agree on every probe value, else the
# test carries `unusable` with the reason. Nothing is dropped silently.

_NOT_IMPLEMENTED = "not implemented"
_CHECK_FORMS = {
    "is_game_over_connectfour": "equals",
    "endgame_score_connectfour": "equals",
    "next_boards_connectfour": "boards",
    "endgame_score_connectfour_faster": "numbers",
    "heuristic_connectfour": "numbers",
}
# Connect Four's score of a won game, as the lab's endgame_score_connectfour gives it.
_WIN = 1000


def _call_board(board):
    described = _board(board)
    described["whose_turn"] = board.whose_turn
    return described


def _call_arg(arg):
    import game_api

    if game_api.is_class_instance(arg, "ConnectFourBoard"):
        return {"board": _call_board(arg)}
    if isinstance(arg, bool):
        return {"bool": arg}
    if isinstance(arg, (int, float)):
        return {"number": _inf(arg)}
    if isinstance(arg, str):
        return {"text": arg}
    raise ValueError("an argument %r the importer does not know" % (arg,))


def _shown(arg):
    """How a student reads the argument: the lab's name for a named board (boards.NAME), else Python's repr."""
    import boards

    for name, value in sorted(vars(boards).items()):
        if value is arg and name[:1].isupper():
            return "boards." + name
    if hasattr(arg, "board_array"):
        return "ConnectFourBoard(...)"
    return repr(arg)


def _json(value):
    """A returned value's JSON form, as the kit sends it to the grader (docs/protocol.md's `returned`)."""
    import game_api

    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, float)):
        if value != value or value in (float("inf"), float("-inf")):
            return {"float": "nan" if value != value else _inf(value)}
        return value
    if isinstance(value, (list, tuple)):
        return [_json(item) for item in value]
    if game_api.is_class_instance(value, "ConnectFourBoard"):
        return {"board": _call_board(value)}
    return {"object": repr(value)}


def _number(value, bool_is_number):
    """The number a JSON value is, or None."""
    if isinstance(value, bool):
        return int(value) if bool_is_number else None
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, dict) and value.get("float") in ("inf", "-inf"):
        return float(value["float"])
    return None


def _equal(a, b):
    """Python's == on JSON values: numbers numerically (a bool is 1 or 0), strings exactly, lists item by item."""
    if isinstance(a, list) or isinstance(b, list):
        return isinstance(a, list) and isinstance(b, list) and len(a) == len(b) and all(map(_equal, a, b))
    if isinstance(a, dict) or isinstance(b, dict):
        na, nb = _number(a, True), _number(b, True)
        if na is not None and nb is not None:
            return na == nb
        return a == b
    return a == b


def _text(value):
    """Python's str of a JSON scalar, or None for anything else."""
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, (int, float, str)):
        return str(value)
    return None


_WHOLE = ("rows", "players", "whose_turn", "prev_move")


def _accepts(check, values):
    """What the grader's check says of the returned values (one per call): True, False or 'not implemented'."""
    value = values[0] if values else None
    if "equals" in check:
        return _equal(value, check["equals"])
    if "equals_text" in check:
        return _NOT_IMPLEMENTED if value == "" else _text(value) == check["equals_text"]
    if "boards" in check:
        fields = _WHOLE if check["compare"] == "whole" else ("rows",)
        expected = check["boards"]
        return (isinstance(value, list) and len(value) == len(expected)
                and all(isinstance(got, dict) and "board" in got
                        and all(got["board"].get(f) == want[f] for f in fields)
                        for got, want in zip(value, expected)))
    entries = check["numbers"]
    numbers = [_number(v, check.get("bool_is_number", False)) for v in values]
    if len(numbers) != len(entries) or any(n is None or n != n for n in numbers):
        return False
    for n, entry in zip(numbers, entries):
        if ("above" in entry and not n > entry["above"]) or ("below" in entry and not n < entry["below"]):
            return False
        if ("at_least" in entry and not n >= entry["at_least"]) or ("at_most" in entry and not n <= entry["at_most"]):
            return False
    steps = list(zip(numbers, numbers[1:]))
    if check.get("order") == "increasing":
        return all(a < b for a, b in steps)
    if check.get("order") == "decreasing":
        return all(a > b for a, b in steps)
    return True


def _mit(testanswer, value):
    """MIT's verdict on a returned value, as its tester reaches it."""
    try:
        return bool(testanswer(value))
    except NotImplementedError:
        return _NOT_IMPLEMENTED
    except Exception:  # noqa: BLE001  (the tester counts an exception in testanswer as incorrect)
        return False


def _right_answer(function, call):
    """The answer the lab's rules give, computed with the lab's own ConnectFourBoard."""
    board = call[0]
    won = any(len(chain) >= 4 for chain in board.get_all_chains())
    if function == "is_game_over_connectfour":
        return _connect_four_over(board)
    if function == "endgame_score_connectfour":
        return (-_WIN if call[1] else _WIN) if won else 0
    if _connect_four_over(board):
        return []
    return [board.add_piece(column) for column in range(board.num_cols) if not board.is_column_full(column)]


def _other_player(board):
    """The same cells with the other player to move."""
    copy = board.copy()
    copy.set_current_player_name(board.players[1])
    return copy


def _renamed(board):
    copy = board.copy()
    copy.prev_move_string = "none" if board.prev_move_string != "none" else "Put a piece in col 0"
    return copy


def _board_probes(right):
    """Lists of boards near the right one: one short, one more, reordered, another player to move, another
    previous move, other cells."""
    import game_api

    empty = game_api.ConnectFourBoard()
    probes = [right, right[:-1], right + [empty], right[::-1], [empty] * len(right), [_other_player(b) for b in right],
              [_renamed(b) for b in right], [b.board_array for b in right], [str(b) for b in right]]
    if right:
        probes.append([right[0]] * len(right))
    return probes


def _scalar_probes():
    return [True, False, 1, 0, 1.0, 0.0, -1, 2, 1000, -1000, 1000.0, 999, 1001, -999, -1001, "True", "1", "",
            None, [], [True], {"a": 1}, float("inf"), float("-inf"), float("nan")]


_GRID = [float("-inf"), -2000, -1001, -1000.5, -1000, -999.5, -999, -500, -1, -0.5, 0, 0.5, 1, 500, 999,
         999.5, 1000, 1000.5, 1001, 2000, float("inf")]
_EDGES = [-1000, 0, 1000]


def _interval(accepted):
    """The tightest bounds at the lab's edges (+-1000, 0) holding every accepted value: an entry of `numbers`."""
    entry = {}
    low, high = min(accepted), max(accepted)
    below = [e for e in _EDGES if e <= low]
    if below:
        edge = below[-1]
        entry["at_least" if edge == low else "above"] = edge
    above = [e for e in _EDGES if e >= high]
    if above:
        edge = above[0]
        entry["at_most" if edge == high else "below"] = edge
    return entry


def _numbers_check(testanswer, count, multi):
    """The numbers check MIT's testanswer makes on `count` calls' values, found on a grid around the lab's edges
    (and agreeing with it on every point of the grid), and the grid's size."""
    import itertools

    grid = _GRID if count < 3 else [-2000, -1000, -999.5, -500, -1, 0, 1, 500, 999.5, 1000, 2000]
    vectors = [list(v) for v in itertools.product(grid, repeat=count)]
    verdicts = [_mit(testanswer, v if multi else v[0]) for v in vectors]
    accepted = [v for v, ok in zip(vectors, verdicts) if ok is True]
    if not accepted:
        return None, 0, "MIT's testanswer accepts none of the probe numbers"
    entries = []
    for i in range(count):
        values = sorted(set(v[i] for v in accepted))
        entries.append(_interval(values))
    candidates = []
    for order in (None, "increasing", "decreasing"):
        check = {"numbers": entries}
        if order:
            check["order"] = order
        candidates.append(check)
    for check in candidates:
        if all(_accepts(check, [_json(x) for x in v]) == ok for v, ok in zip(vectors, verdicts)):
            return check, len(vectors), None
    first = next((v, ok) for v, ok in zip(vectors, verdicts) if _accepts(candidates[0], v) != ok)
    return None, 0, ("no bounds at 0 and +-1000, with or without an order between the calls, give MIT's verdicts: "
                  "on %s MIT's testanswer says %s and the bounds %s say %s" % (
                      _brief(first[0] if multi else first[0][0]), _verdict(first[1]),
                      json.dumps(candidates[0], sort_keys=True), _verdict(not first[1])))


def _derive_check(test, entry, calls):
    """The check of a rule or answer test, the number of probes it was verified on, or why it cannot be one."""
    testanswer = entry[2]
    function = test["function"]
    if test["kind"] == "answer":
        chosen = [text for text in "12345" if _mit(testanswer, text) is True]
        if len(chosen) != 1:
            return None, 0, "MIT's testanswer accepts %s of the choices '1' to '5'" % (len(chosen) or "none")
        check = {"equals_text": chosen[0]}
        probes = (list("012345") + [int(c) for c in "012345"] + [float(chosen[0]), "", " " + chosen[0], None,
                  [chosen[0]], True, "(%s)" % chosen[0]])
        return _verified(check, testanswer, [[p] for p in probes], False)
    form = _CHECK_FORMS.get(function)
    if form is None:
        return None, 0, "%s is not one of the lab's rule functions the importer knows" % function
    multi = test["type"] == "MULTIFUNCTION"
    if form == "numbers":
        check, grid, why = _numbers_check(testanswer, len(calls), multi)
        if why:
            return None, 0, why
        check, count, why = _numbers_verified(check, testanswer, multi)
        return check, grid + count, why
    right = _right_answer(function, calls[0])
    if form == "equals":
        probes = [right] + _scalar_probes()
        return _verified({"equals": _json(right)}, testanswer, [[p] for p in probes], multi)
    probes = [[p] for p in _board_probes(right) + _scalar_probes()]
    found = None
    for compare in ("cells", "whole"):
        check = {"boards": [_call_board(board) for board in right], "compare": compare}
        check, count, why = _verified(check, testanswer, probes, multi)
        found = found or (check, count, why)
        if not why:
            return check, count, None
    return found


def _verified(check, testanswer, probes, multi):
    """The check, how many probes it agrees with MIT's testanswer on, or the first probe where they differ."""
    for values in probes:
        value = values if multi else values[0]
        mit, ours = _mit(testanswer, value), _accepts(check, [_json(v) for v in values])
        if mit != ours:
            return None, 0, "on the value %s MIT's testanswer says %s and the check %s says %s" % (
                _brief(value), _verdict(mit), json.dumps(check, sort_keys=True)[:200], _verdict(ours))
    return check, len(probes), None


def _numbers_verified(check, testanswer, multi):
    """A numbers check verified on a denser set: each bound and around it, bools for 1 and 0, non-numbers; and
    whether a bool counts as a number (`bool_is_number`: false only where MIT's testanswer refuses True for 1)."""
    count = len(check["numbers"])
    base = []
    for entry in check["numbers"]:
        low = entry.get("above", entry.get("at_least"))
        high = entry.get("below", entry.get("at_most"))
        if low is not None and high is not None:
            base.append(low + 1 if high - low > 2 else (low + high) / 2.0)
        else:
            base.append(low + 1 if low is not None else high - 1 if high is not None else 0)
    if check.get("order") == "increasing" and base != sorted(set(base)):
        base = [b + i * 1e-3 for i, b in enumerate(base)]
    if check.get("order") == "decreasing":
        base = [b - i * 1e-3 for i, b in enumerate(base)]
    probes = [base, base[:-1], base + [0], [str(b) for b in base], [None] * count, base[::-1]]
    edges = sorted(set(v for entry in check["numbers"] for v in entry.values()) | {0, 1, -1})
    for i in range(count):
        for edge in edges:
            for near in (edge - 1, edge - 0.5, edge, edge + 0.5, edge + 1, True, False):
                probes.append(base[:i] + [near] + base[i + 1:])
    single = [p for p in probes if len(p) == count] if not multi else probes
    outcomes = {}
    for flag in (False, True):
        outcomes[flag] = _verified(dict(check, bool_is_number=flag), testanswer, single, multi)
    # Written always, true where MIT's testanswer cannot tell (Python's bool is an int).
    return outcomes[True] if not outcomes[True][2] or outcomes[False][2] else outcomes[False]


def _brief(value):
    text = repr(_json(value))
    return text if len(text) <= 80 else text[:77] + "..."


def _verdict(said):
    return {True: "right", False: "wrong"}.get(said, said)


def _test(number, entry, lab):
    name, getargs, _testanswer, expected_val, _, kind = entry
    test = {"number": number, "function": name, "type": kind, "expected_val": str(expected_val)}
    try:
        if kind == "VALUE":
            test["kind"] = "answer"
            test["variable"] = getargs if isinstance(getargs, str) else name
            test["shown"] = test["variable"]
        elif name in ("dfs_maximizing", "minimax_endgame_search", "minimax_search", "minimax_search_alphabeta",
                      "progressive_deepening"):
            test["kind"] = "search"
            test["args"] = _describe_args(getargs(), lab)
        else:
            test["kind"] = "rule"
            args = getargs()
            calls = args if kind == "MULTIFUNCTION" else [args]
            test["calls"] = [[_call_arg(arg) for arg in call] for call in calls]
            test["shown"] = ", ".join("%s(%s)" % (name, ", ".join(_shown(arg) for arg in call)) for call in calls)
        if test["kind"] != "search":
            check, probes, why = _derive_check(test, entry, calls if test["kind"] == "rule" else None)
            if why:
                test["unusable"] = "its check is not one treegrade can express: " + why
            else:
                test["check"], test["probes"] = check, probes
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
