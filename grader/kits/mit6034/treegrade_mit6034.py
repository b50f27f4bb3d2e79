"""treegrade_mit6034: runs an unchanged MIT 6.034 games-lab file under treegrade.

The grader starts this script in the student's folder, which holds the
student's ``lab2.py`` (Fall 2020 on) or ``lab3.py`` (Fall 2017-2019). For
each search test the kit calls the lab function the test names (its name
is ``NN-function``, after MIT's test number: ``23-dfs_maximizing``,
``31-minimax_search_alphabeta``...; without one, the function of the
search's algorithm) with the arguments MIT's tests pass, on an
``AbstractGameState`` whose every successor comes from the grader:

- ``generate_next_states()`` and ``is_game_over()`` ask the grader about
  the state (the first question *enters* it: the grader records the order);
- ``get_endgame_score(maximize)`` at a game-over state, and the heuristic
  the test passes (``heuristic_fn(snapshot, maximize)``, answered by the
  grader's ``evaluate``) are the *static evaluations* MIT counts; the kit
  records them in order.

The snapshot of a written tree is a ``ToyTree`` (label, score, children,
served lazily); of a Connect Four tree, a ``ConnectFourBoard`` built from
the grader's position. The test's root is MAX's or MIN's by its kind,
which gives ``maximize``.

Each static evaluation is declared to the grader as it is made (the
protocol's ``static``), so that the grader itself knows which states were
evaluated, in order. The kit sends back the search's answer as the
protocol's ``result``: the score as ``value``, the action of the path's
first move as ``action``, the path (node ids) as ``path`` and the count the
search returned as ``returned``; for the report, the evaluations it saw
(``evaluations``, ``evaluated``). The grader judges them (the course's
``verdict:``); the kit only refuses an answer that is not the lab's triple.

On a test whose game MIT builds from the student's own rule functions
(``TREEGRADE_MIT6034_RULES``), the kit also calls the student's
``is_game_over_connectfour``, ``next_boards_connectfour`` and
``endgame_score_connectfour`` on each position the search entered, and
reports the first one where they disagree with what the grader served
(``rules``), for the grader to check and tell.

A calls question's test (``call``) calls a function of the student's
file with the test's arguments (a board becomes the lab API's
``ConnectFourBoard``), once per list of arguments, or reads a module-level
answer (``ANSWER_1``), and sends back what came out as ``returned``; the
grader judges it.

The kit is written for treegrade; it uses the standard library only, and
the ``game_api``, ``toytree`` and ``boards`` modules beside it stand in for
the lab's.
"""

import math
import numbers
import os
import re
import sys

_KIT_DIR = os.path.dirname(os.path.abspath(__file__))
_STUDENT_DIR = os.path.abspath(os.getcwd())
# The kit's game_api, toytree and boards come first, so that a student
# folder that holds the lab's whole distribution still searches the
# grader's states.
sys.path[:] = [_KIT_DIR, _STUDENT_DIR] + [p for p in sys.path if p not in ("", _KIT_DIR, _STUDENT_DIR)]

import game_api  # noqa: E402
import toytree  # noqa: E402
import treegrade_kit as _base  # noqa: E402  (the Python kit: channel, serving, tracebacks)

KIT = "treegrade-mit6034/1"
_HELLO = ('{"type":"hello","protocol":%d,"kit":"%s"}\n' % (_base.PROTOCOL, KIT)).encode("ascii")
# The student's file, under its Fall 2020 name or its Fall 2017-2019 one.
_MODULES = ("lab2", "lab3")
_INF = float("inf")
# The search functions of the lab, and the algorithm each one is graded as.
_FUNCTIONS = {
    "dfs_maximizing": "minimax",
    "minimax_endgame_search": "minimax",
    "minimax_search": "minimax",
    "minimax_search_alphabeta": "alphabeta",
    "progressive_deepening": "iterative-deepening",
}
_BY_ALGORITHM = {
    "minimax": "minimax_search",
    "alphabeta": "minimax_search_alphabeta",
    "iterative-deepening": "progressive_deepening",
}
# The tests whose scores are the mover's (see _endgame_convention).
_MOVER_ENV = "TREEGRADE_MIT6034_MOVER"
# The tests whose heuristic is the lab's always_zero (see _Heuristic).
_ALWAYS_ZERO_ENV = "TREEGRADE_MIT6034_ALWAYS_ZERO"
# The tests whose game MIT builds from the student's rules: JSON, test name to its root
# board (the reader's ``{"rows", "players"}``), or null when the grader serves boards.
_RULES_ENV = "TREEGRADE_MIT6034_RULES"
_TEST_NAME = re.compile(r"(?:^|/)\d+-([A-Za-z_][A-Za-z0-9_]*)$")

_base._KIT_FILES.update(
    os.path.normcase(os.path.join(_KIT_DIR, name))
    for name in ("treegrade_mit6034.py", "game_api.py", "toytree.py", "boards.py", "_fixtures.py")
)


class _Served(object):
    """One test's tree as the grader serves it, and what the search did with it.

    ``evaluated`` lists ``(node, kind)`` for every static evaluation, in
    order; in progressive deepening, ``iterations`` holds one such list per
    depth.
    """

    def __init__(self, game, endgame):
        self.game = game
        self.endgame = endgame  # "fixed": the score ignores the flag; "mover": the wrong flag negates it; None: see start
        self.ply = {game.root: 0}
        self.root_kind = None
        self.boards = False
        self.evaluated = []
        self.iterations = []
        self.snapshots = {}
        self.parents = {}
        self.test = ""  # the test's name, NN-function
        self.earlier_nodes = {}  # progressive deepening: what earlier iterations were served
        self.heuristic_on_terminal = []  # finished games the heuristic was asked about
        self.connect_four = False  # see start

    def remember_nodes(self):
        """Keeps what this iteration was served before the next iteration forgets it (``start_iteration``)."""
        self.earlier_nodes.update(self.game._nodes)

    def served_nodes(self):
        """Every node served in this search, with the grader's reply, in the order first served."""
        nodes = dict(self.earlier_nodes)
        nodes.update(self.game._nodes)
        return nodes

    def snapshot(self, node):
        """The snapshot of ``node`` (one object per node, so that identity and equality hold).

        Making it enters nothing: the node is entered when the search first
        asks about it (its successors, whether the game is over, its board).
        """
        known = self.snapshots.get(node)
        if known is None:
            known = _ServedBoard(self, node) if self.boards else _ServedTree(self, node)
            self.snapshots[node] = known
        return known

    def start(self):
        """Enters the root, as every search does first: its side and whether it is a board."""
        game = self.game
        self.root_kind = game.player(game.root)
        state = game.state(game.root)
        self.boards = isinstance(state, dict) and isinstance(state.get("board"), list)
        if self.endgame is None:  # Connect Four's scores are the mover's; a toy tree's are fixed
            self.endgame = "mover" if self.boards else "fixed"
        # Connect Four: served as boards, or an imported test MIT runs on the student's rules.
        self.connect_four = self.boards or self.test in _rules_boards()

    def children(self, node):
        children = self.game.children(node)
        for child in children:
            self.ply.setdefault(child, self.ply.get(node, 0) + 1)
            self.parents.setdefault(child, node)
        return children

    def declare(self, node):
        """Tells the grader that ``node`` is statically evaluated now (``static``); its value."""
        channel = self.game._channel
        channel.send(('{"type":"static","node":%s}\n' % _base._to_json(node)).encode("ascii"))
        reply = channel.receive(True)
        self.game._raise_on_time_up(reply)
        if reply.get("type") != "eval" or reply.get("node") != node:
            _base._fatal("expected the grader's value of node %r, got %r" % (node, reply))
        return reply["value"]

    def is_max(self, node):
        """Whether MAX moves at ``node``: the root's side on even plies."""
        return (self.ply.get(node, 0) % 2 == 0) == (self.root_kind != "min")

    def endgame_score(self, node, maximize):
        value = self.game.utility(node)  # a state that is not over raises here, as in the lab
        self.evaluated.append((node, "endgame"))
        return self._as_asked(node, self.declare(node), maximize)

    def heuristic(self, node, maximize):
        if not self.connect_four and self.game.is_terminal(node):
            return self._heuristic_on_terminal(node, maximize)
        self.game.evaluate(node)  # a state above the depth cut is refused here
        self.evaluated.append((node, "heuristic"))
        return self._as_asked(node, self.declare(node), maximize)

    def _as_asked(self, node, value, maximize):
        """A served score as the lab's game gives it for the ``maximize`` flag asked with."""
        if self.endgame == "mover" and bool(maximize) != self.is_max(node):
            return -value
        return value

    def _heuristic_on_terminal(self, node, maximize):
        """The heuristic asked about a finished game (the depth limit checked before whether the game is over).

        MIT's run calls the lab's heuristic there and counts it; on a toy
        tree the lab's heuristic gives a leaf its score, ``always_zero``
        gives 0. The kit declares it as the static evaluation it is, answers
        as the lab's would, and tells the grader (``heuristic_on_terminal``).
        On a Connect Four board the test's heuristic on a finished game is
        not known here: there the grader refuses the evaluation, as before.
        """
        self.heuristic_on_terminal.append(node)
        self.evaluated.append((node, "heuristic"))
        value = self.declare(node)
        if self.test in _listed(_ALWAYS_ZERO_ENV):
            return 0
        return self._as_asked(node, value, maximize)

    def state(self, node):
        return game_api.AbstractGameState(
            self.snapshot(node), _served_is_game_over, _served_next_states, _served_endgame_score
        )


class _ServedTree(toytree.ToyTree):
    """A ``ToyTree`` whose children the grader serves, when first asked for."""

    def __init__(self, served, node):
        # Not ToyTree.__init__: children and score are served, not stored.
        self.label = None
        self.zipper = []
        self.sibling_index = None
        self.sibling = None
        self._served = served
        self._node = node
        self._children = None

    @property
    def children(self):
        if self._children is None:
            served = self._served
            kids = [served.snapshot(child) for child in served.children(self._node)]
            for index, kid in enumerate(kids):
                kid.sibling_index = index
                kid.sibling = kids[index + 1] if index + 1 < len(kids) else None
            self._children = kids
        return self._children

    @children.setter
    def children(self, value):
        self._children = value

    @property
    def score(self):
        # A leaf's score is its utility; an inner node's, the grader's static value of it.
        game = self._served.game
        if game.is_terminal(self._node):
            return game.utility(self._node)
        return None

    @score.setter
    def score(self, value):
        pass

    def __eq__(self, other):
        # The lab's ToyTree equality (score, label, children, ancestors walked),
        # so that a search comparing states, as some keep an "extended" list,
        # treats two equal leaves as one, as at MIT. Comparing children asks
        # the grader about them; a node is still itself without asking.
        if self is other:
            return True
        if not isinstance(other, toytree.ToyTree):
            return False
        return [self.score, self.label, self.children, self.zipper] == [
            other.score,
            other.label,
            other.children,
            other.zipper,
        ]

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = object.__hash__

    def __repr__(self):
        return "<ToyTree %s>" % self._node


class _ServedBoard(game_api.ConnectFourBoard):
    """A ``ConnectFourBoard`` of the grader's tree: its position is asked for when first read.

    ``x`` of the grader's position (who moved first) is piece 1, as in the
    lab, where the first player's pieces are 1s.
    """

    def __init__(self, served, node):
        self._served = served
        self._node = node
        self._loaded = None

    def _position(self):
        if self._loaded is None:
            state = self._served.game.state(self._node) or {}
            rows = [[{"x": 1, "o": 2}.get(cell) for cell in row] for row in state.get("board") or []]
            pieces = sum(1 for row in rows for cell in row if cell)
            mover = state.get("to_move") or ("x" if pieces % 2 == 0 else "o")
            players = ["Player One", "Player Two"] if mover == "x" else ["Player Two", "Player One"]
            self._loaded = {"board_array": rows, "players": players, "whose_turn": players[0], "prev_move_string": "none"}
        return self._loaded

    def _field(name):  # noqa: N805  (builds the properties below)
        def get(self):
            return self._position()[name]

        def set(self, value):
            self._position()[name] = value

        return property(get, set)

    board_array = _field("board_array")
    players = _field("players")
    whose_turn = _field("whose_turn")
    prev_move_string = _field("prev_move_string")
    del _field

    def __deepcopy__(self, memo):
        # A copy (add_piece, copy) is an ordinary board of the student's own.
        board = game_api.ConnectFourBoard([list(row) for row in self.board_array], list(self.players), self.whose_turn)
        board.prev_move_string = self.prev_move_string
        return board

    __hash__ = object.__hash__

    def __repr__(self):
        return "<ConnectFourBoard %s>" % self._node


# The student's code sees the lab's class names (is_class_instance compares names).
_ServedTree.__name__ = "ToyTree"
_ServedBoard.__name__ = "ConnectFourBoard"


def _node_of(snapshot):
    node = getattr(snapshot, "_node", None)
    if node is None:
        raise ValueError(
            "this state is not one of the test's: search the states that generate_next_states() gives you"
        )
    return node


def _served_is_game_over(snapshot):
    return snapshot._served.game.is_terminal(_node_of(snapshot))


def _served_next_states(snapshot):
    served = snapshot._served
    return [served.snapshot(child) for child in served.children(_node_of(snapshot))]


def _served_endgame_score(snapshot, maximize):
    return snapshot._served.endgame_score(_node_of(snapshot), maximize)


class _Heuristic(object):
    """The heuristic the test passes: the grader's static value, each call a static evaluation."""

    def __init__(self, served):
        self.served = served

    def __call__(self, snapshot, maximize=True):
        served = getattr(snapshot, "_served", None)
        if served is not self.served and self.served.test in _listed(_ALWAYS_ZERO_ENV):
            # MIT's always_zero ignores its argument, so MIT's test passes a search that gives it the state.
            inner = getattr(snapshot, "snapshot", None)
            if getattr(inner, "_served", None) is self.served:
                snapshot, served = inner, self.served
        if served is not self.served:
            given = "an AbstractGameState" if game_api.is_AbstractGameState_instance(snapshot) else _base._describe(snapshot)
            raise TypeError(
                "heuristic_fn was given %s: pass it the state's snapshot, heuristic_fn(state.get_snapshot(), "
                "maximize), as the lab's heuristics take a board or a ToyTree" % given
            )
        return self.served.heuristic(_node_of(snapshot), maximize)


class _Student(object):
    """The student's module, imported once, at the first test (prints then go to stderr)."""

    def __init__(self):
        self.module = None
        self.failure = None
        self.loaded = False

    def load(self):
        if self.loaded:
            return
        self.loaded = True
        names = [name for name in _MODULES if os.path.isfile(os.path.join(_STUDENT_DIR, name + ".py"))]
        if not names:
            self.failure = "there is no lab2.py (or lab3.py) in your submission's folder"
            return
        try:
            self.module = __import__(names[0])
        except SystemExit as exc:
            self.failure = "%s.py called sys.exit(%r) while it was being imported" % (names[0], exc.code)
        except BaseException as exc:  # a syntax error, a missing module, a crash at import
            self.failure = "%s.py could not be imported: %s" % (names[0], _import_error(exc))


def _import_error(exc):
    import traceback

    message = "".join(traceback.format_exception_only(type(exc), exc)).strip().splitlines()[-1]
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename.startswith(_STUDENT_DIR)]
    if isinstance(exc, SyntaxError) and exc.lineno:
        message += " (line %d of %s)" % (exc.lineno, os.path.basename(exc.filename or ""))
    elif frames:
        message += " (line %d of %s)" % (frames[-1].lineno, os.path.basename(frames[-1].filename))
    return message.replace(_KIT_DIR + os.sep, "treegrade's ")


def _function_of(message):
    """The lab function a search test runs: from its name, or else from its algorithm."""
    found = _TEST_NAME.search(str(message.get("test", "")))
    if found and found.group(1) in _FUNCTIONS:
        return found.group(1)
    return _BY_ALGORITHM.get(message.get("algorithm"))


def _search(channel, message, student):
    """Runs one search test through the student's function; returns the line to send."""
    name = _function_of(message)
    if name is None:
        return _base._error_line("not_implemented", "the lab has no function for the algorithm %r" % (message.get("algorithm"),))
    student.load()
    if student.failure:
        return _base._error_line("exception", student.failure)
    function = getattr(student.module, name, None)
    if not callable(function):
        return _base._error_line("not_implemented", "%s.py has no function %s" % (student.module.__name__, name))
    game = _base.Game(channel, message)
    served = _Served(game, _endgame_convention(message))
    served.test = str(message.get("test", "")).rsplit("/", 1)[-1]
    if name == "progressive_deepening":
        game.start_iteration(1)  # the root is entered in the first iteration
    served.start()
    root = served.state(game.root)
    maximize = served.is_max(game.root)
    heuristic = _Heuristic(served)
    depth = _INF if game.depth is None else game.depth
    if name == "dfs_maximizing":
        args = (root,)
    elif name == "minimax_endgame_search":
        args = (root, maximize)
    elif name == "minimax_search":
        args = (root, heuristic, depth, maximize)
    elif name == "minimax_search_alphabeta":
        args = (root, -_INF, _INF, heuristic, depth, maximize)
    else:
        return _progressive(student, function, served, root, heuristic, depth, maximize)
    try:
        answer = function(*args)
    except NotImplementedError:
        return _base._error_line("not_implemented", "%s is not implemented yet" % name)
    except Exception as exc:  # the student's bug: report it and serve the next test
        return _base._exception_line(name, exc)

    def rerun(state, heuristic_fn):  # the same call on another game, as MIT's test makes it
        changed = list(args)
        changed[0] = state
        at = {"minimax_search": 1, "minimax_search_alphabeta": 3}.get(name)
        if at is not None:
            changed[at] = heuristic_fn
        return function(*changed)

    return _answer(name, answer, served, served.evaluated, lambda: _same_on_student_rules(served, answer, rerun))


def _endgame_convention(message):
    """How a score answers the wrong ``maximize`` flag, when the test says; None: from the game.

    ``fixed``: the flag is ignored (the lab's toy trees); ``mover``: the
    score is the mover's, so the wrong flag negates it (Connect Four, whose
    trees are served with boards). A course made by ``treegrade import
    mit6034`` lists its ``mover`` tests (``NN-function``, space-separated)
    in ``TREEGRADE_MIT6034_MOVER``: their trees are written, so the game
    cannot tell.
    """
    convention = message.get("endgame")
    if convention in ("fixed", "mover"):
        return convention
    test = str(message.get("test", "")).rsplit("/", 1)[-1]
    if os.environ.get(_MOVER_ENV) is not None:
        return "mover" if test in _listed(_MOVER_ENV) else "fixed"
    return None


def _listed(variable):
    """The test names a course lists in an environment variable, space-separated."""
    return os.environ.get(variable, "").split()


def _answer(name, answer, served, evaluated, same_answer=None, extra=None):
    """The ``result`` line for a ``(path, score, evaluations)`` answer, or the error that explains it.

    The path and the count are reported as the search returned them: the
    grader judges them. ``extra`` adds fields (progressive deepening's
    ``history``); ``same_answer``, called only when the student's rules
    disagree with the grader's, tells whether MIT's test would pass on
    them all the same (None: it cannot be told).
    """
    if not game_api.is_dfs_return_type(answer):
        return _base._error_line(
            "exception",
            "%s returned %s; it must return (path, score, evaluations): a list of states from the root, "
            "the score, and the number of static evaluations" % (name, _base._describe(answer)),
        )
    path, score, count = answer
    if isinstance(score, bool) or not isinstance(score, numbers.Real) or not math.isfinite(score):
        return _base._error_line("exception", "%s returned the score %s, not a finite number" % (name, _base._describe(score)))
    nodes = _path_nodes(path)
    game = served.game
    action = None
    if len(nodes) > 1 and nodes[0] == game.root:
        successors = dict((child, action) for action, child in game.successors(game.root))
        action = successors.get(nodes[1])
    result = {
        "type": "result",
        "value": float(score),
        "action": action,
        "path": nodes,
        "returned": _returned(count),
        "evaluations": len(evaluated),
        "evaluated": [node for node, _ in evaluated],
    }
    if served.heuristic_on_terminal:
        result["heuristic_on_terminal"] = served.heuristic_on_terminal
    result.update(extra or {})
    claim = _rules_claim(served)
    if claim is not None:
        claim["same_answer"] = same_answer() if same_answer is not None else None
        result["rules"] = claim
    return (_base._to_json(result) + "\n").encode("ascii")


def _path_nodes(path):
    """The served node ids of a returned path's states (None for a state the grader never served)."""
    return [getattr(getattr(state, "snapshot", None), "_node", None) for state in path]


def _returned(count):
    """The count as JSON: a number as it is (a float stays one), anything else described."""
    if isinstance(count, numbers.Real) and not isinstance(count, bool) and math.isfinite(count):
        return count
    return _count_text(count)


def _rules_boards():
    """The tests whose game MIT builds from the student's rules (see ``_RULES_ENV``)."""
    import json

    try:
        listed = json.loads(os.environ.get(_RULES_ENV) or "{}")
    except ValueError:
        return {}
    return listed if isinstance(listed, dict) else {}


_PIECES = {None: ".", 0: ".", 1: "x", 2: "o"}


def _rows(board):
    """A board as rows of ``.``, ``x`` (piece 1) and ``o`` (piece 2), top first."""
    return ["".join(_PIECES.get(cell, "?") for cell in row) for row in board.board_array]


class _Boards(object):
    """The Connect Four position of each served node: the root's, then each move played on it.

    The root's is the grader's (or the lab's board the course gives); a
    child's is made from its parent's by the move on the edge (its column),
    so that no node is asked about, and none entered, for the check. Kept
    as cells and players (cheap to copy), made into a fresh
    ``ConnectFourBoard`` for each call of a student's function.
    """

    def __init__(self, served, root):
        self.served = served
        self.known = {}
        if root is None and served.boards:
            snapshot = served.snapshot(served.game.root)
            root = {"rows": snapshot.board_array, "players": [snapshot.whose_turn] + [
                p for p in snapshot.players if p != snapshot.whose_turn]}
        if root is not None:
            cells = tuple(tuple(cell or None for cell in row) for row in root.get("rows") or [])
            players = tuple(root.get("players") or ("Player One", "Player Two"))
            self.known[served.game.root] = (cells, players)

    def position(self, node):
        """The cells (rows, top first) and the players (to move first) at ``node``."""
        known = self.known.get(node)
        if known is not None:
            return known
        served = self.served
        parent = served.parents[node]
        action = dict((child, action) for action, child in served.game.successors(parent))[node]
        cells, players = self.position(parent)
        column = ord(str(action)[:1]) - ord("a")
        pieces = sum(1 for row in cells for cell in row if cell)
        rows = [list(row) for row in cells]
        for row in reversed(rows):
            if not row[column]:
                row[column] = 1 if pieces % 2 == 0 else 2
                break
        else:
            raise IndexError("column %d is full" % column)
        known = (tuple(tuple(row) for row in rows), (players[1], players[0]))
        self.known[node] = known
        return known

    def of(self, node):
        """A fresh board of ``node``, for a student's function."""
        cells, players = self.position(node)
        return game_api.ConnectFourBoard([list(row) for row in cells], list(players), players[0])

    def key(self, node):
        """What ``_key`` gives for the board of ``node``."""
        cells, players = self.position(node)
        return (tuple("".join(_PIECES.get(cell, "?") for cell in row) for row in cells), players[0])


def _call(function, *args):
    """What a rule function of the student's gives: its answer, or ``{"error": ...}``."""
    if not callable(function):
        return {"error": "nothing: your file has no such function"}
    try:
        return function(*args)
    except Exception as exc:  # the student's bug: reported as the answer
        return {"error": "%s: %s" % (type(exc).__name__, exc)}


def _rules_claim(served):
    """The first entered position where the student's rules disagree with what the grader served, or None."""
    boards = _rules_boards()
    if served.test not in boards or _STUDENT.module is None:
        return None
    module = _STUDENT.module
    game = served.game
    positions = _Boards(served, boards[served.test])
    scored = set(node for node, kind in served.evaluated if kind == "endgame")
    seen = set()
    for node in list(served.served_nodes()):
        try:
            board = positions.of(node)
        except Exception:  # a board the kit cannot make: no claim
            return None
        over = game.is_terminal(node)
        key = positions.key(node)
        claim = {"node": node, "board": list(key[0])}
        # A position reached again by other moves (a transposition) is checked once for each use.
        if ("over", key) not in seen:
            seen.add(("over", key))
            theirs = _call(getattr(module, "is_game_over_connectfour", None), board)
        else:
            theirs = over
        if theirs is not over and (isinstance(theirs, dict) or bool(theirs) != over):
            claim.update(function="is_game_over_connectfour", connect_four=over, yours=_json_answer(theirs))
            return claim
        if over and node in scored and ("score", key, served.is_max(node)) not in seen:
            seen.add(("score", key, served.is_max(node)))
            maximize = served.is_max(node)
            theirs = _call(getattr(module, "endgame_score_connectfour", None), board, maximize)
            value = game.utility(node)
            if isinstance(theirs, bool) or not isinstance(theirs, numbers.Real) or theirs != value:
                claim.update(
                    function="endgame_score_connectfour", connect_four=value, yours=_json_answer(theirs), maximize=maximize
                )
                return claim
        # The lab's is_game_over() asks for the next states too: MIT's run uses them at every state.
        if ("next", key) in seen:
            continue
        seen.add(("next", key))
        expected = [] if over else [list(positions.key(child)[0]) for child in served.children(node)]
        theirs = _call(getattr(module, "next_boards_connectfour", None), board)
        mine = _json_answer(theirs)
        if isinstance(theirs, (list, tuple)):
            mine = [_rows(b) if game_api.is_class_instance(b, "ConnectFourBoard") else _base._describe(b) for b in theirs]
        if mine != expected:
            claim.update(function="next_boards_connectfour", connect_four=expected, yours=mine)
            return claim
    return None


class _Unknown(Exception):
    """A position the grader never served: what the test's heuristic gives there is not known."""


def _same_on_student_rules(served, answer, rerun):
    """Whether the search, run as MIT runs it (on the student's own rules), passes as it passed here.

    MIT's tests name the expected path by child indexes on the game built
    from the student's rules (``move_sequence(GAME, [1, 0, 0])``): the
    search run there must return the path those indexes of this answer
    lead to there, board by board, with the same score and count. None
    when it cannot be told (the search reached a position the grader never
    served, whose heuristic value is not known).
    """
    ran = _run_on_student_rules(served, rerun)
    if not ran:
        return ran
    theirs, start = ran
    if not game_api.is_dfs_return_type(theirs):
        return False
    path, score, count = answer
    game = served.game
    nodes = _path_nodes(path)
    try:
        indexes = [game.children(parent).index(child) for parent, child in zip(nodes, nodes[1:])]
    except (KeyError, ValueError, TypeError):
        return None
    expected = [start]
    try:
        for index in indexes:  # move_sequence on the student's rules
            expected.append(expected[-1].generate_next_states()[index])
    except Exception:  # the student's rules fail or give fewer moves there: MIT's test fails
        return False
    boards = [_key(getattr(s, "snapshot", None)) for s in expected]
    return [_key(getattr(s, "snapshot", None)) for s in theirs[0]] == boards and theirs[1] == score and theirs[2] == count


def _run_on_student_rules(served, rerun):
    """The search run again on a game built from the student's own rules, as MIT's test runs it.

    ``(answer, the start state on those rules)``; False when the search fails there (MIT's test
    fails); None when it cannot be told (no rerun, or a position the grader
    never served, whose heuristic value is not known).
    """
    if rerun is None:
        return None
    module = _STUDENT.module
    game = served.game
    positions = _Boards(served, _rules_boards().get(served.test))
    values = {}
    nodes = served.served_nodes()
    for node in list(nodes):
        info = nodes[node]
        if info.get("eval") is not None:
            values[positions.key(node)] = (node, info["eval"])

    def heuristic(board, maximize=True):
        found = values.get(_key(board)) if game_api.is_class_instance(board, "ConnectFourBoard") else None
        if found is None:
            raise _Unknown()
        node, value = found
        if served.endgame == "mover" and bool(maximize) != served.is_max(node):
            return -value
        return value

    state = game_api.AbstractGameState(
        positions.of(game.root),
        getattr(module, "is_game_over_connectfour", None),
        getattr(module, "next_boards_connectfour", None),
        getattr(module, "endgame_score_connectfour", None),
    )
    try:
        theirs = rerun(state, heuristic)
    except _Unknown:
        return None
    except Exception:  # the search fails on the student's rules: MIT's test fails
        return False
    return theirs, state


def _key(board):
    """A board as a key: its rows and whose turn it is."""
    if not game_api.is_class_instance(board, "ConnectFourBoard"):
        return None
    return (tuple(_rows(board)), board.whose_turn)


def _json_answer(answer):
    """A rule function's answer as JSON: booleans and numbers as they are, the rest described."""
    if isinstance(answer, dict) and "error" in answer:
        return answer
    if isinstance(answer, bool) or (isinstance(answer, numbers.Real) and math.isfinite(answer)):
        return answer
    return _base._describe(answer)


def _count_text(count):
    """A count as the student wrote it: ``7``, or its value and type when it is not a whole number."""
    if isinstance(count, numbers.Integral) and not isinstance(count, bool):
        return str(count)
    return _base._describe(count)


class _WrongDepth(BaseException):
    """A search of progressive deepening called with a depth limit outside 1 to the test's.

    A BaseException, so that the student's own ``except Exception`` does not
    swallow it: the kit reports it instead of serving the search.
    """


# The lab's searches progressive deepening may call for each depth, and
# where their depth limit is among the positional arguments after the state.
_DEEPENED = (("minimax_search_alphabeta", 3), ("minimax_search", 1))


def _progressive(student, function, served, root, heuristic, depth, maximize):
    """``progressive_deepening``: each top-level search the student's calls is one iteration, declared to the grader.

    The answer goes to the grader whole: the ``AnytimeValue``'s history,
    each depth's path, score and count as returned. The grader judges the
    scores and counts against its reference depth by depth, and the
    evaluations each iteration declared (``static``).
    """
    module = student.module
    nesting = [0]
    state = {"first": True}

    def deepened(original, at):
        def search(start, *args, **kwargs):
            if nesting[0] == 0:
                limit = args[at] if len(args) > at else kwargs.get("depth_limit")
                _begin_iteration(served, limit, state)
            nesting[0] += 1
            try:
                return original(start, *args, **kwargs)
            finally:
                nesting[0] -= 1

        return search

    originals = dict((name, getattr(module, name, None)) for name, _ in _DEEPENED)
    for name, at in _DEEPENED:
        if callable(originals[name]):
            setattr(module, name, deepened(originals[name], at))
    try:
        answer = function(root, heuristic, depth, maximize)
    except _WrongDepth as wrong:
        return _base._error_line("stopped", str(wrong))
    except NotImplementedError:
        return _base._error_line("not_implemented", "progressive_deepening is not implemented yet")
    except Exception as exc:
        return _base._exception_line("progressive_deepening", exc)
    finally:
        for name, original in originals.items():
            if callable(original):
                setattr(module, name, original)
    served.iterations.append(served.evaluated)
    if not game_api.is_class_instance(answer, "AnytimeValue") or not answer.history:
        return _base._error_line(
            "exception",
            "progressive_deepening returned %s; it must return an AnytimeValue holding one "
            "(path, score, evaluations) per depth, from depth 1" % _base._describe(answer),
        )
    for number, value in enumerate(answer.history, 1):
        if not game_api.is_dfs_return_type(value):
            return _base._error_line(
                "exception",
                "progressive_deepening's AnytimeValue holds %s at depth %d; each depth's entry must be the "
                "(path, score, evaluations) of that depth's search" % (_base._describe(value), number),
            )
    # The search is over: what every iteration was served is known again, so
    # that the rule check below asks the grader about (and enters) nothing.
    served.game._nodes = served.served_nodes()
    def same_answer():  # MIT's test 40 checks each depth's score and count, on the student's rules
        ran = _run_on_student_rules(served, _rerun_progressive(function, depth, maximize))
        return ran[0] == [(value[1], value[2]) for value in answer.history] if ran else ran

    history = {"history": [_history_entry(value) for value in answer.history]}
    return _answer("progressive_deepening", answer.history[-1], served, served.iterations[-1], same_answer, history)


def _begin_iteration(served, limit, state):
    """Declares the iteration a top-level search of depth ``limit`` starts (the first one is declared already)."""
    deepest = served.game.depth
    whole = isinstance(limit, int) and not isinstance(limit, bool)
    if not whole or not 1 <= limit <= (deepest or limit):
        raise _WrongDepth(
            "progressive_deepening searched with depth_limit=%r: progressive deepening searches to depth 1, "
            "then 2, ... up to its own depth_limit (%s), each depth once, and MIT's test expects one "
            "(path, score, evaluations) per depth from depth 1" % (limit, deepest)
        )
    first = state["first"] and limit == served.game.iteration_depth == 1 and not served.evaluated
    state["first"] = False
    if first:
        return
    served.iterations.append(served.evaluated)
    served.evaluated = []
    served.remember_nodes()
    served.game.start_iteration(limit)


def _history_entry(value):
    """One depth of the history as the grader reads it: the path's node ids, the score, the count."""
    path, score, count = value
    nodes = _path_nodes(path)
    finite = isinstance(score, numbers.Real) and not isinstance(score, bool) and math.isfinite(score)
    return {"path": nodes, "score": float(score) if finite else None, "returned": _returned(count)}


def _rerun_progressive(function, depth, maximize):
    """The same progressive deepening on another game, as MIT runs test 40 (on the student's rules).

    Its history's scores and counts: what MIT's test checks.
    """

    def rerun(state, heuristic_fn):
        answer = function(state, heuristic_fn, depth, maximize)
        history = getattr(answer, "history", None) or []
        return [(value[1], value[2]) if game_api.is_dfs_return_type(value) else None for value in history]

    return rerun


def _serve_call(message, student):
    """A calls question's test (docs/protocol.md, "Calls"): the returned line.

    Calls the student's function once per list of arguments in ``calls``
    (MIT's FUNCTION_ENCODED_ARGS and MULTIFUNCTION tests), or reads the
    module-level ``variable`` (MIT's VALUE tests, the multiple-choice
    answers), and sends back each value in its JSON form. The grader
    judges it: nothing here knows what the test expects.
    """
    student.load()
    if student.failure:
        return _base._error_line("exception", student.failure)
    module = student.module
    variable = message.get("variable")
    if variable is not None:
        if not hasattr(module, variable):
            return _base._error_line("not_implemented", "%s.py has no %s" % (module.__name__, variable))
        value = getattr(module, variable)
        if isinstance(value, str) and value == "":
            return _base._error_line("not_implemented", "%s is not answered yet (it is still '')" % variable)
        return _returned_line([value])
    name = str(message.get("function"))
    function = getattr(module, name, None)
    if not callable(function):
        return _base._error_line("not_implemented", "%s.py has no function %s" % (module.__name__, name))
    values = []
    for args in message.get("calls") or [[]]:
        built = [_call_argument(arg) for arg in args]
        try:
            values.append(function(*built))
        except NotImplementedError:
            return _base._error_line("not_implemented", "%s is not implemented yet" % name)
        except Exception as exc:  # the student's bug: report it and serve the next test
            return _base._exception_line(name, exc)
    return _returned_line(values)


def _call_argument(arg):
    """An argument of a ``call`` in the lab's terms: a board becomes the lab API's ``ConnectFourBoard``."""
    kind, value = next(iter(arg.items()))
    if kind == "board":
        board = game_api.ConnectFourBoard(
            [list(row) for row in value["rows"]], list(value.get("players") or ["Player One", "Player Two"]), value.get("whose_turn")
        )
        board.prev_move_string = value.get("prev_move") or "none"
        return board
    if kind == "number" and value in ("inf", "-inf"):
        return _INF if value == "inf" else -_INF
    return value


def _returned_line(values):
    """The ``returned`` line for the values the calls gave."""
    return (_base._to_json({"type": "returned", "values": [_returned_value(v, 0) for v in values]}) + "\n").encode("ascii")


def _returned_value(value, depth):
    """A value in the protocol's JSON forms; anything else as ``{"object": repr}``."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else {"float": "nan" if value != value else ("inf" if value > 0 else "-inf")}
    if isinstance(value, (list, tuple)) and depth < 20:
        return [_returned_value(item, depth + 1) for item in value]
    if game_api.is_class_instance(value, "ConnectFourBoard"):
        board = _board_form(value)
        if board is not None:
            return {"board": board}
    try:
        text = repr(value)
    except Exception as exc:  # a repr that raises still names the value
        text = "<%s whose repr raised %s>" % (type(value).__name__, type(exc).__name__)
    return {"object": text if len(text) <= 300 else text[:297] + "..."}


def _board_form(board):
    """A board's JSON form, or None when it is not a 6x7 board of 0, 1 and 2."""
    try:
        rows = [[cell or 0 for cell in row] for row in board.board_array]
        players = [p if isinstance(p, (str, int)) and not isinstance(p, bool) else str(p) for p in board.players]
        turn = board.whose_turn
    except Exception:
        return None
    shape = len(rows) == 6 and all(len(row) == 7 and all(cell in (0, 1, 2) for cell in row) for row in rows)
    if not shape or len(players) != 2:
        return None
    form = {"rows": [[int(cell) for cell in row] for row in rows], "players": players}
    if turn in players:
        form["whose_turn"] = turn
    prev = getattr(board, "prev_move_string", None)
    if isinstance(prev, str):
        form["prev_move"] = prev
    return form


# The student's module, loaded once (the rule check reads it too).
_STUDENT = _Student()


def main():
    _base._start(
        lambda channel, message: _search(channel, message, _STUDENT),
        _HELLO,
        others={"call": lambda channel, message: _serve_call(message, _STUDENT)},
    )


if __name__ == "__main__":
    main()
