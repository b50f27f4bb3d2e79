"""treegrade_kit: the Python side of the treegrade grader.

You do not need to read this file to do the assignment. Write your three
search functions in ``search.py``; each one receives a :class:`Game` and
returns a pair ``(value, action)``. The last lines of ``search.py`` hand them
to :func:`run`, which talks to the grader for you::

    from treegrade_kit import run

    def minimax(game):
        ...
        return value, action

    if __name__ == "__main__":
        run(minimax=minimax, alphabeta=alphabeta, expectimax=expectimax)

How the grader sees your search
-------------------------------
You never get the whole tree. The grader tells you about a node only when
your code asks about it through ``game`` (``game.player(node)``,
``game.children(node)``, ``game.is_terminal(node)``, ...). The first time you
ask anything about a node, the node is *entered*, and the grader writes it
down. The list of entered nodes, in order, is your visited order, and it must
match the reference search exactly. So:

* ask about a node only when your search really enters it (looking at the
  kind of every child before recursing into the first one enters them all);
* asking again about a node you already entered is free and changes nothing.

Two traps
---------
* One program answers every test, one after the other. Anything kept at
  module level (a global dictionary used as a cache or memo table, a
  counter, a ``best`` variable) survives from one test to the next, and node
  ids repeat across trees (``A`` in one tree is not ``A`` in the next). Keep
  all state inside your search functions, or clear it when a search starts.
  The grader reruns a test that failed after others alone, and tells you
  when it passes there.
* ``game.depth`` is ``None`` when there is no depth limit, and ``0`` is a
  real limit (the root itself is evaluated). Write
  ``if game.depth is not None and ply == game.depth:``, never
  ``if game.depth and ...``, which treats a limit of 0 as no limit.

``print()`` works as usual for debugging: while :func:`run` is serving, your
output goes to standard error (the protocol with the grader uses standard
output), and the grader shows it in the report.

This module uses the standard library only and works on Python 3.8 and later.
"""

import _thread
import io
import math
import numbers
import os
import sys
import time

try:
    # CPython's C scanner and string encoder, used without the json package,
    # whose import (regular expressions, enums) costs milliseconds of every run.
    from _json import encode_basestring_ascii as _json_string
    from _json import make_scanner as _make_scanner
except ImportError:  # another Python: the json package's own
    from json.encoder import encode_basestring_ascii as _json_string

    _make_scanner = None

# Start-up time is paid on every run, so what only an error or a type checker
# needs is imported where it is used (traceback, sysconfig) or not at all
# (typing: the names below exist for type checkers only).
MYPY = False
if MYPY:  # pragma: no cover
    import traceback
    from typing import Any, Callable, Dict, List, Optional, Set, Tuple

__all__ = ["Game", "TimeUp", "run", "PROTOCOL", "KIT"]

#: The version of the oracle protocol this kit speaks.
PROTOCOL = 1

#: The name this kit gives in its ``hello``.
KIT = "treegrade-python/1"

# Frames in these files are the kit's, left out of the tracebacks students see
# (kits built on this one add their own files).
_KIT_FILES = {os.path.normcase(os.path.abspath(__file__))}
_library_dirs_cache = []  # type: List[Tuple[str, ...]]


def _library_dirs():
    # type: () -> Tuple[str, ...]
    """The standard library's folders, whose frames tracebacks leave out (computed once)."""
    if not _library_dirs_cache:
        import sysconfig

        paths = sysconfig.get_paths()
        _library_dirs_cache.append(
            tuple(
                os.path.normcase(os.path.abspath(path)) + os.sep
                for path in {paths.get("stdlib"), paths.get("platstdlib")}
                if path
            )
        )
    return _library_dirs_cache[0]


class _JsonSyntax(object):
    """What the C scanner asks of a decoder: standard JSON, no NaN or Infinity."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int

    @staticmethod
    def parse_constant(name):
        # type: (str) -> Any
        raise ValueError("%s is not JSON" % name)


def _json_scanner():
    # type: () -> Callable[[str, int], Tuple[Any, int]]
    if _make_scanner is not None:
        return _make_scanner(_JsonSyntax)
    import json

    return json.JSONDecoder(parse_constant=_JsonSyntax.parse_constant).scan_once


_scan_json = _json_scanner()


def _from_json(text):
    # type: (str) -> Any
    """One JSON value that fills ``text`` (but for spaces); ValueError otherwise."""
    try:
        value, end = _scan_json(text, 0)
    except StopIteration:
        raise ValueError("no JSON value")
    if text[end:].strip():
        raise ValueError("extra data after the JSON value")
    return value


def _to_json(value):
    # type: (Any) -> str
    """JSON text of the kit's own messages: None, booleans, numbers, strings, lists, dicts."""
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, str):
        return _json_string(value)
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else "null"
    if isinstance(value, dict):
        return "{%s}" % ",".join("%s:%s" % (_json_string(str(k)), _to_json(v)) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return "[%s]" % ",".join(_to_json(item) for item in value)
    raise TypeError("no JSON for %r" % (value,))


_HELLO = ('{"type":"hello","protocol":%d,"kit":"%s"}\n' % (PROTOCOL, KIT)).encode("ascii")
_EMPTY = ()  # type: Tuple[Any, ...]
_ALGORITHMS = ("minimax", "alphabeta", "expectimax", "iterative_deepening", "maxn", "mcts")
_RECURSION_LIMIT = 100000
_THREAD_STACK = 512 * 1024 * 1024
_SMALL_THREAD_STACK = 32 * 1024 * 1024
_MAX_MESSAGE = 4000
_MAX_DETAILS = 64 * 1024


def _fatal(message, status=3):
    # type: (str, int) -> None
    """Reports a broken connection with the grader on stderr and stops the program.

    Uses os._exit: the grader stops the program anyway, and a student's
    ``except:`` must not be able to swallow this.
    """
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    try:
        os.write(2, ("treegrade_kit: %s\n" % message).encode("utf-8", "replace"))
    finally:
        os._exit(status)


class _SpinningReader(object):
    """Reads the grader's lines straight from the pipe, polling briefly before it sleeps.

    The grader replies within microseconds. A read that sleeps at once lets
    the CPU halt, and on a virtual machine waking it again costs more than
    the reply itself, once per node. The grader sets ``TREEGRADE_SPIN=1``
    only when a core is spare for this (as it spins itself only then).
    """

    SPIN_SECONDS = 50e-6
    # After this many spins in a row that the reply outlasted, the grader is
    # busy (a batch on few cores): spinning only takes CPU from other
    # programs, so the reader sleeps at once, and tries a spin again only
    # every RETRY_EVERY reads.
    GIVE_UP_AFTER = 4
    RETRY_EVERY = 64

    def __init__(self, fd, poller):
        # type: (int, Any) -> None
        self.fd = fd
        self.poll = poller.poll
        self.pending = b""
        self.missed = 0
        self.reads = 0

    def readline(self):
        # type: () -> bytes
        while True:
            newline = self.pending.find(b"\n")
            if newline >= 0:
                line, self.pending = self.pending[: newline + 1], self.pending[newline + 1 :]
                return line
            self.reads += 1
            if self.missed < self.GIVE_UP_AFTER or self.reads % self.RETRY_EVERY == 0:
                self.spin()
            chunk = os.read(self.fd, 65536)
            if not chunk:
                line, self.pending = self.pending, b""
                return line
            self.pending += chunk

    def spin(self):
        # type: () -> None
        deadline = time.perf_counter() + self.SPIN_SECONDS
        while not self.poll(0):
            if time.perf_counter() >= deadline:
                self.missed += 1
                return
        self.missed = 0


def _line_reader(stdin):
    # type: (Any) -> Callable[[], bytes]
    """How the kit reads the grader's lines: spinning where the grader allows it and the system can."""
    if os.environ.get("TREEGRADE_SPIN") == "1":
        try:
            import select

            poller = select.poll()
            poller.register(stdin.fileno(), select.POLLIN)
            return _SpinningReader(stdin.fileno(), poller).readline
        except (ImportError, AttributeError, OSError, ValueError):  # no poll on this system (Windows)
            pass
    return stdin.readline


class _Channel(object):
    """The pipe to the grader: one request line out, one reply line back."""

    def __init__(self, readline, fd):
        # type: (Callable[[], bytes], int) -> None
        self.readline = readline
        self.fd = fd

    def send(self, data):
        # type: (bytes) -> None
        """Writes one whole line with as few system calls as possible (usually one)."""
        try:
            written = os.write(self.fd, data)
            while written < len(data):
                data = data[written:]
                written = os.write(self.fd, data)
        except OSError as exc:
            _fatal("cannot write to the grader (%s); it has probably stopped this program" % exc)

    def receive(self, during_search):
        # type: (bool) -> Dict[str, Any]
        """Reads one message; a grader ``error`` or the end of input stops the program."""
        line = self.readline()
        if not line:
            if during_search:
                _fatal("the grader closed the connection in the middle of a search")
            return {"type": "bye"}
        try:
            message = _from_json(line.decode("utf-8"))
        except ValueError:  # UnicodeDecodeError is a ValueError too
            _fatal("the grader sent a line that is not JSON: %r" % line[:200])
        if not isinstance(message, dict):
            _fatal("the grader sent a line that is not a JSON object: %r" % line[:200])
        if message.get("type") == "error":
            _fatal("the grader reported an error: %s" % message.get("message", "(no message)"))
        return message


class TimeUp(BaseException):
    """Raised when a search asks to enter a node past its budget.

    Some searches are limited to ``game.budget`` nodes, a clock counted in
    nodes rather than seconds. The call that would enter one node too many
    (``game.children``, ``game.player``, ``game.evaluate``, ...) raises
    ``TimeUp`` instead; from then on your search must stop and return the
    best answer it has so far (for iterative deepening: the answer of the
    last iteration that finished). It derives from ``BaseException`` so that
    an ``except Exception`` in your search does not swallow it: catch it by
    name, ``except TimeUp:``.
    """


class Game(object):
    """The game tree of one test, which you explore one node at a time.

    A node is identified by its id, a string such as ``"A"`` or ``"B.2"``.
    Start at ``game.root`` and move down with ``game.children(node)`` (or
    ``game.successors(node)``, which also gives each edge's action).

    Attributes:
        root (str): the id of the root node, at ply 0.
        algorithm (str): ``"minimax"``, ``"alphabeta"`` or ``"expectimax"``.
        depth (Optional[int]): the depth limit in plies, or ``None`` for no
            limit. The root is at ply 0 and its children at ply 1. A
            non-terminal node at ply ``depth`` is not expanded: its value is
            ``game.evaluate(node)``. A terminal keeps its utility at any ply.
        prune_on_equal (bool): the alpha-beta pruning condition. ``True``: a
            max node stops searching its remaining children as soon as its
            value is ``>= beta`` (a min node: ``<= alpha``). ``False``: only
            when it is strictly ``> beta`` (``< alpha``).
        test (str): the name of the test being run (handy in debug prints).
        budget (Optional[int]): the most nodes this search may enter, or
            ``None`` when only the wall clock limits it. Entering one more
            raises :class:`TimeUp`.
        move_ordering (Optional[str]): ``"eval"`` when this search takes the
            children of every max and min node above the depth limit by their
            static value, best for the player to move first (see
            ``game.static_values``); ``None`` when it takes them in the order
            ``game.children`` gives.
        forward_pruning (Optional[int]): forward pruning's N (docs/format.md
            8.5): at every max and min node above the depth limit, search
            only the first N children of the order ``game.static_values``
            gives (best for the player to move first, ties keeping their
            order) and never touch the others; a node with N children or
            fewer searches them all, still in that order. Chance nodes and
            nodes at the depth limit are never cut. ``None`` when every
            child is searched. ``game.move_ordering`` is then ``"eval"``.
        players (Optional[int]): in a max^n search, the number of players
            (2 for a tree of MAX and MIN, read as players 1 and 2);
            ``None`` in other searches. Then ``game.player(node)`` is a
            player number, and utilities and evaluations are lists of
            ``game.players`` numbers, one per player.
        iterations (Optional[int]): in Monte Carlo tree search, the number
            of iterations to run; ``None`` in other searches.
        exploration (Optional[float]): in Monte Carlo tree search, the
            constant c of UCB; ``None`` in other searches.
        iteration_depth (Optional[int]): in iterative deepening, the depth
            limit of the iteration started last (``game.start_iteration``);
            ``game.depth`` is the deepest iteration's.
        reorder_root (bool): in iterative deepening, whether each iteration
            searches first the root child the previous one chose (``True``,
            docs/format.md 8.2) or keeps ``game.children``'s order at the
            root too (``False``: MIT 6.034's progressive deepening).
        stop_when_complete (bool): in iterative deepening, whether to stop
            once an iteration saw the whole tree (``True``) or to run every
            depth up to ``game.depth`` (``False``).

    Every method that takes a node *enters* it the first time it is called
    with it: the grader records that your search entered the node, in that
    order. Calling methods again on an entered node costs nothing.

    When the grader plays a game with your agent, ``choose_move(game)`` gets
    a ``Game`` whose root is the position to move from. Every node that is
    not a terminal then carries the game's evaluation (``game.evaluate``
    works at any ply, when the game is played with one), and these
    attributes say more:

        side (Optional[str]): ``"max"`` or ``"min"``, the side you play
            (``None`` in a search).
        ply (int): plies played so far in the game.
        history (List[str]): the actions played so far, from the start.
        position (Any): the position to move from, as ``game.state`` gives
            it, known without entering the root (an agent with a copy of the
            rules of its own may start from it, but then only the wall clock
            limits it, and the report says so).
        seed (Optional[int]): the seed ``random`` was given before your
            ``choose_move`` was called: the same game plays the same on every
            run.
        time_limit (Optional[float]): the move's wall-clock limit, in seconds.
        evaluation (Optional[str]): the name of the evaluation every node
            carries, or ``None`` when the game is played without one (then
            ``game.evaluate`` is an error: write your own from
            ``game.state(node)``).
    """

    def __init__(self, channel, search):
        # type: (_Channel, Dict[str, Any]) -> None
        root = search.get("root")
        depth = search.get("depth")
        self.root = root  # type: str
        self.algorithm = search.get("algorithm")  # type: str
        self.depth = depth if isinstance(depth, int) and not isinstance(depth, bool) else None  # type: Optional[int]
        self.prune_on_equal = bool(search.get("prune_on_equal", True))  # type: bool
        self.test = str(search.get("test", ""))  # type: str
        move_ordering = search.get("move_ordering")
        self.move_ordering = move_ordering if isinstance(move_ordering, str) else None  # type: Optional[str]
        forward = search.get("forward_pruning")
        self.forward_pruning = (
            forward if isinstance(forward, int) and not isinstance(forward, bool) and forward >= 1 else None
        )  # type: Optional[int]
        budget = search.get("budget")
        self.budget = budget if isinstance(budget, int) and not isinstance(budget, bool) else None  # type: Optional[int]
        # Absent unless false: the default is 8.2's iterative deepening.
        self.reorder_root = search.get("reorder_root") is not False  # type: bool
        self.stop_when_complete = search.get("stop_when_complete") is not False  # type: bool
        if search.get("type") == "move":
            self.test = str(search.get("label", ""))
        side = search.get("player")
        self.side = side if side in ("max", "min") else None  # type: Optional[str]
        ply = search.get("ply")
        self.ply = ply if isinstance(ply, int) and not isinstance(ply, bool) else 0  # type: int
        history = search.get("moves")
        self.history = [m for m in history if isinstance(m, str)] if isinstance(history, list) else []  # type: List[str]
        self.position = search.get("state")  # type: Any
        evaluation = search.get("eval")
        self.evaluation = evaluation if isinstance(evaluation, str) else None  # type: Optional[str]
        seed = search.get("seed")
        self.seed = seed if isinstance(seed, int) and not isinstance(seed, bool) else None  # type: Optional[int]
        time_limit = search.get("time_limit")
        self.time_limit = float(time_limit) if isinstance(time_limit, (int, float)) and not isinstance(time_limit, bool) else None  # type: Optional[float]
        players = search.get("players")
        self.players = players if isinstance(players, int) and not isinstance(players, bool) else None  # type: Optional[int]
        iterations = search.get("iterations")
        self.iterations = (
            iterations if isinstance(iterations, int) and not isinstance(iterations, bool) else None
        )  # type: Optional[int]
        exploration = search.get("exploration")
        self.exploration = (
            float(exploration) if isinstance(exploration, numbers.Real) and not isinstance(exploration, bool) else None
        )  # type: Optional[float]
        self.iteration_depth = None  # type: Optional[int]
        self._iteration_after_time_up = None  # type: Optional[int]
        self._time_up = False
        self._channel = channel
        self._nodes = {}  # type: Dict[str, Dict[str, Any]]
        self._evals = {}  # type: Dict[str, float]
        self._known = {root}  # type: Set[str]

    def __repr__(self):
        # type: () -> str
        return "Game(test=%r, algorithm=%r, root=%r, depth=%r, prune_on_equal=%r)" % (
            self.test,
            self.algorithm,
            self.root,
            self.depth,
            self.prune_on_equal,
        )

    # -- talking to the grader -------------------------------------------------

    def _check_node(self, node, method):
        # type: (Any, str) -> None
        """Raises a helpful error for something that is not a node of this game."""
        if not isinstance(node, str):
            raise TypeError(
                "game.%s(%r): a node is a string id such as %r (game.root, or an element of "
                "game.children(node)), not a %s" % (method, node, self.root, type(node).__name__)
            )
        if node not in self._known:
            raise ValueError(
                "game.%s(%r): there is no node %r among the nodes you can reach so far; ask only "
                "about game.root and the ids that game.children() has returned in this search"
                % (method, node, node)
            )

    def _visit(self, node, method):
        # type: (Any, str) -> Dict[str, Any]
        """Enters a node: asks the grader what it is and caches the reply."""
        self._check_node(node, method)
        self._refuse_after_time_up()
        channel = self._channel
        channel.send(('{"type":"visit","node":%s}\n' % _json_string(node)).encode("ascii"))
        reply = channel.receive(True)
        self._raise_on_time_up(reply)
        if reply.get("type") != "node" or reply.get("node") != node:
            _fatal("expected the grader's reply about node %r, got %r" % (node, reply))
        children = reply.get("children")
        if children:
            self._known.update(children)
        self._nodes[node] = reply
        return reply

    def _refuse_after_time_up(self):
        # type: () -> None
        """Once the budget is spent, every new node is refused: say so without asking."""
        if self._time_up:
            raise TimeUp("the budget of %s nodes is spent" % self.budget)

    def _raise_on_time_up(self, reply):
        # type: (Dict[str, Any]) -> None
        if reply.get("type") == "timeup":
            self._time_up = True
            raise TimeUp("the budget of %s nodes is spent" % self.budget)

    def time_is_up(self):
        # type: () -> bool
        """True once this search has asked to enter a node past ``game.budget``."""
        return self._time_up

    def _info(self, node, method):
        # type: (Any, str) -> Dict[str, Any]
        try:
            return self._nodes[node]
        except (KeyError, TypeError):
            return self._visit(node, method)

    # -- the API ---------------------------------------------------------------

    def player(self, node):
        # type: (str) -> Any
        """Whose turn it is at ``node``: ``"max"``, ``"min"``, ``"chance"`` or ``"terminal"``.

        In a max^n search (``game.players`` is set), the number of the
        player to move, from 1 to ``game.players``, at a player's node; still
        ``"chance"`` or ``"terminal"`` elsewhere.

        A node at the depth limit still reports its real kind; use your own
        ply count and ``game.depth`` to know where to stop.
        """
        try:
            info = self._nodes[node]
        except (KeyError, TypeError):
            info = self._visit(node, "player")
        number = info.get("player")
        return number if number is not None else info["kind"]

    def is_terminal(self, node):
        # type: (str) -> bool
        """True when ``node`` is a terminal (a leaf of the game, with a utility)."""
        try:
            return self._nodes[node]["kind"] == "terminal"
        except (KeyError, TypeError):
            return self._visit(node, "is_terminal")["kind"] == "terminal"

    def utility(self, node):
        # type: (str) -> Any
        """The value of a terminal node for MAX.

        In a max^n search, the terminal's utility vector instead: a list of
        ``game.players`` numbers, player 1's first.

        Raises ValueError if ``node`` is not a terminal: check
        ``game.is_terminal(node)`` first.
        """
        info = self._info(node, "utility")
        if info["kind"] != "terminal":
            raise ValueError(
                "game.utility(%r): %r is a %s node, not a terminal; only terminals have a utility "
                "(check game.is_terminal(node) first)" % (node, node, info["kind"])
            )
        return _numbers(info["value"])

    def children(self, node):
        # type: (str) -> List[str]
        """The ids of the children of ``node``, in the order your search must visit them.

        Returns an empty list for a terminal. Getting the list does not enter
        the children: only asking about a child enters it.
        """
        try:
            info = self._nodes[node]
        except (KeyError, TypeError):
            info = self._visit(node, "children")
        return list(info.get("children", _EMPTY))

    def actions(self, node):
        # type: (str) -> List[str]
        """The action (edge label) of each child of ``node``, in the same order as ``children``.

        The action of the root's best child is what your search returns.
        Returns an empty list for a terminal.
        """
        info = self._info(node, "actions")
        actions = info.get("actions")
        if actions is None:
            return list(info.get("children", _EMPTY))
        return list(actions)

    def successors(self, node):
        # type: (str) -> List[Tuple[str, str]]
        """The pairs ``(action, child)`` of ``node``, in search order.

        ``for action, child in game.successors(node): ...``. Returns an empty
        list for a terminal. Like ``children``, this does not enter the
        children.
        """
        info = self._info(node, "successors")
        children = info.get("children", _EMPTY)
        actions = info.get("actions")
        if actions is None:
            actions = children
        return list(zip(actions, children))

    def probabilities(self, node):
        # type: (str) -> List[float]
        """The probability of each child of a chance node, in the order of ``children``.

        Raises ValueError if ``node`` is not a chance node.
        """
        info = self._info(node, "probabilities")
        if info["kind"] != "chance":
            raise ValueError(
                "game.probabilities(%r): %r is a %s node; only chance nodes have probabilities"
                % (node, node, info["kind"])
            )
        probs = info.get("probs")
        if probs is None:
            count = len(info.get("children", _EMPTY))
            return [1.0 / count] * count
        return [float(p) for p in probs]

    def static_values(self, node):
        # type: (str) -> List[float]
        """The static value of each child of ``node``, in the order of ``children``.

        Served only when ``game.move_ordering == "eval"`` (so also under
        ``game.forward_pruning``), for a max or min node above the depth limit: a terminal child's utility, any other
        child's evaluation. Getting them does not enter the children. Sort
        the children by them (greatest first at a max node, least first at a
        min node; equal values keep their order, as Python's ``sorted`` does)
        and search them in that order. Raises ValueError elsewhere.
        """
        info = self._info(node, "static_values")
        values = info.get("static_values")
        if values is None:
            raise ValueError(
                "game.static_values(%r): the grader serves static values only when game.move_ordering is "
                "'eval', for max and min nodes above the depth limit" % (node,)
            )
        return [float(v) for v in values]

    def state(self, node):
        # type: (str) -> Any
        """The position at ``node``, for trees given by a game; ``None`` otherwise.

        For an m,n,k-game (tic-tac-toe, connect-four, gomoku) it is a dict
        ``{"board": ["x.o", ".x.", "o.."], "to_move": "x"}``: the rows from
        the top, ``x``, ``o`` or ``.`` (empty) in each, and whose turn it is
        (``None`` once the game is over). For Pig it is ``{"scores": [S0,
        S1], "turn_total": T, "to_move": 0, "target": 20}``. Asking for the
        state enters the node, like every other question about it. Use it to
        write your own evaluation function.
        """
        return self._info(node, "state").get("state")

    def board(self, node):
        # type: (str) -> Optional[List[str]]
        """The rows of an m,n,k-game's board at ``node``, top row first; ``None`` without a board.

        ``game.board(node)[0][2]`` is the cell in the top row, third column:
        ``"x"``, ``"o"`` or ``"."``. Enters the node.
        """
        state = self.state(node)
        if isinstance(state, dict) and isinstance(state.get("board"), list):
            return list(state["board"])
        return None

    def to_move(self, node):
        # type: (str) -> Any
        """Who moves at ``node`` in the game's own terms (``"x"``/``"o"``, or a player number); ``None`` without a game.

        Enters the node.
        """
        state = self.state(node)
        if isinstance(state, dict):
            return state.get("to_move")
        return None

    def evaluate(self, node):
        # type: (str) -> float
        """The heuristic value of a non-terminal node at the depth limit.

        Call it only for a node at ply ``game.depth`` that is not a terminal
        (a terminal at the limit keeps its utility). Asking for the evaluation
        of any other node is an error that stops the test.
        """
        info = self._nodes.get(node) if isinstance(node, str) else None
        if info is not None:
            value = info.get("eval")
            if value is not None:
                return _numbers(value)
        try:
            return self._evals[node]
        except (KeyError, TypeError):
            pass
        self._check_node(node, "evaluate")
        self._refuse_after_time_up()
        channel = self._channel
        channel.send(('{"type":"evaluate","node":%s}\n' % _json_string(node)).encode("ascii"))
        reply = channel.receive(True)
        self._raise_on_time_up(reply)
        if reply.get("type") != "eval" or reply.get("node") != node:
            _fatal("expected the grader's evaluation of node %r, got %r" % (node, reply))
        value = _numbers(reply["value"])
        self._evals[node] = value
        return value

    # -- iterative deepening and Monte Carlo tree search -------------------------

    def start_iteration(self, depth):
        # type: (int) -> None
        """Tells the grader that iterative deepening starts its iteration of depth limit ``depth``.

        Call it at the start of every iteration, before the iteration's
        search enters any node. Each iteration enters nodes afresh: the
        grader records every iteration's visited order one after the other,
        and every entry, in every iteration, counts against ``game.budget``.
        During the iteration, a non-terminal node at ply ``depth`` is
        evaluated (``game.evaluate``). Raises :class:`TimeUp` once the time
        is up.
        """
        if isinstance(depth, bool) or not isinstance(depth, int):
            raise TypeError("game.start_iteration(%r): the depth is a whole number from 1 to game.depth" % (depth,))
        if self._time_up:
            self._iteration_after_time_up = depth
        self._refuse_after_time_up()
        channel = self._channel
        channel.send(('{"type":"iteration","depth":%d}\n' % depth).encode("ascii"))
        reply = channel.receive(True)
        if reply.get("type") != "iteration":
            _fatal("expected the grader's reply to the start of iteration %d, got %r" % (depth, reply))
        self.iteration_depth = depth
        # Every node is entered again in the new iteration: ask the grader again.
        self._nodes = {}
        self._evals = {}

    def random(self):
        # type: () -> float
        """The next random number of this search, a float in [0, 1), drawn by the grader.

        Monte Carlo tree search takes every random number from here (never
        from Python's ``random`` module), so that the grader can follow it
        step by step: one draw to pick a chance node's child (the first
        child j whose probabilities up to j add up to more than the draw),
        one draw per move of a rollout at a max or min node (child number
        ``int(r * len(children))``).
        """
        channel = self._channel
        channel.send(b'{"type":"random"}\n')
        reply = channel.receive(True)
        value = reply.get("value")
        if reply.get("type") != "random" or not isinstance(value, (int, float)):
            _fatal("expected a random number from the grader, got %r" % (reply,))
        return float(value)


def _numbers(value):
    # type: (Any) -> Any
    """A number of the grader's reply as a float, or a max^n vector as a list of floats."""
    if isinstance(value, list):
        return [float(item) for item in value]
    return float(value)


# -- serving the grader ---------------------------------------------------------


def _shorten(text, limit):
    # type: (str, int) -> str
    if len(text) <= limit:
        return text
    half = limit // 2
    return text[:half] + "\n... (%d characters left out) ...\n" % (len(text) - 2 * half) + text[-half:]


def _describe(value):
    # type: (Any) -> str
    text = repr(value)
    if len(text) > 80:
        text = text[:77] + "..."
    return "%s (of type %s)" % (text, type(value).__name__)


def _student_frames(exc):
    # type: (BaseException) -> List[traceback.FrameSummary]
    import traceback

    frames = traceback.extract_tb(exc.__traceback__)
    return [f for f in frames if os.path.normcase(os.path.abspath(f.filename)) not in _KIT_FILES]


def _error_line(kind, message, details=None):
    # type: (str, str, Optional[str]) -> bytes
    error = {"type": "error", "kind": kind, "message": _shorten(message, _MAX_MESSAGE)}
    if details:
        error["details"] = _shorten(details, _MAX_DETAILS)
    return (_to_json(error) + "\n").encode("ascii")


def _exception_line(name, exc, hint=None, kind="exception"):
    # type: (str, BaseException, Optional[str], str) -> bytes
    """The ``error`` for an exception from the student's code; ``hint`` ends its message.

    ``kind`` is the protocol's: ``exception``, or a cause the kit knows
    (``iteration_after_time_up``).
    """
    import traceback

    frames = _student_frames(exc)
    message = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    if type(exc).__name__ == "BdbQuit":
        message += (
            " (your code started the debugger (pdb.set_trace() or breakpoint()), which nobody can answer "
            "while grading: remove it)"
        )
    if isinstance(exc, MemoryError):
        message += (
            " (your program ran out of the memory the grader allows it: look for a list, cache or memo "
            "table that keeps growing, or a search that never stops)"
        )
    if isinstance(exc, RecursionError):
        message += (
            " (does your search stop at terminals and at the depth limit? Is every recursive call "
            "made on a child, with the ply increased by one?)"
        )
    # Point at the student's own code: the last frame outside the kit and the standard library.
    own = [f for f in frames if not os.path.normcase(os.path.abspath(f.filename)).startswith(_library_dirs())]
    if own or frames:
        last = (own or frames)[-1]
        message += " (in %s, line %d of %s)" % (last.name, last.lineno, os.path.basename(last.filename))
    else:
        message += " (in %s)" % name
    if hint:
        message += " (hint: %s)" % hint
    if not frames:  # nothing of the student's code ran: the message says it all
        return _error_line(kind, message)
    details = "Traceback (most recent call last):\n" + "".join(traceback.format_list(frames))
    details += "".join(traceback.format_exception_only(type(exc), exc))
    return _error_line(kind, message, details)


def _vector_line(name, value, game):
    # type: (str, Any, Game) -> Optional[str]
    """A max^n value as JSON, or None when it is not a list of ``game.players`` finite numbers."""
    if not isinstance(value, (list, tuple)) or len(value) != game.players:
        return None
    if any(isinstance(v, bool) or not isinstance(v, numbers.Real) or not math.isfinite(v) for v in value):
        return None
    return "[%s]" % ",".join(repr(float(v)) for v in value)


def _counts_json(name, counts, game):
    # type: (str, Any, Game) -> str
    """MCTS's root counts as the ``children`` of a ``result``; raises ValueError with the reason."""
    root = game._nodes.get(game.root) or {}
    actions = root.get("actions") or root.get("children") or []
    if isinstance(counts, dict):
        pairs = [(action, counts.get(action, (0, 0.0))) for action in actions]
    elif isinstance(counts, (list, tuple)) and len(counts) == len(actions):
        pairs = list(zip(actions, counts))
    else:
        raise ValueError(
            "%s(game) must return (value, action, counts) with counts a list of (n, w) for each child of "
            "the root, in the order of game.children(game.root), or a dict {action: (n, w)}; it returned %s "
            "for %d children" % (name, _describe(counts), len(actions))
        )
    entries = []
    for action, pair in pairs:
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise ValueError("%s(game): the counts of %r must be a pair (n, w), not %s" % (name, action, _describe(pair)))
        n, w = pair
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise ValueError("%s(game): n of %r must be a whole number, not %s" % (name, action, _describe(n)))
        if isinstance(w, bool) or not isinstance(w, numbers.Real) or not math.isfinite(w):
            raise ValueError("%s(game): w of %r must be a finite number, not %s" % (name, action, _describe(w)))
        entries.append('{"action":%s,"n":%d,"w":%r}' % (_json_string(action), n, float(w)))
    return "[%s]" % ",".join(entries)


def _answer_line(name, answer, game=None):
    # type: (str, Any, Optional[Game]) -> bytes
    """Checks the shape of a student's answer and turns it into a ``result`` (or an ``error``)."""
    counts = None
    if name == "mcts" and isinstance(answer, (tuple, list)) and len(answer) == 3 and game is not None:
        answer, counts = answer[:2], answer[2]
        try:
            counts = _counts_json(name, counts, game)
        except ValueError as exc:
            return _error_line("exception", str(exc))
    if not isinstance(answer, (tuple, list)) or len(answer) != 2:
        shape = "(value, action, counts)" if name == "mcts" else "(value, action)"
        return _error_line(
            "exception",
            "%s(game) must return %s, e.g. `return best_value, best_action`; "
            "it returned %s" % (name, shape, _describe(answer)),
        )
    value, action = answer
    if game is not None and game.players is not None:
        vector = _vector_line(name, value, game)
        if vector is None:
            return _error_line(
                "exception",
                "%s(game) returned (value, action) with value %s; in a max^n search the value is the root's "
                "utility vector, a list of %d finite numbers" % (name, _describe(value), game.players),
            )
        if action is not None and not isinstance(action, str):
            return _error_line(
                "exception",
                "%s(game) returned (value, action) with action %s; the action must be a string or None"
                % (name, _describe(action)),
            )
        return ('{"type":"result","value":%s,"action":%s}\n' % (vector, _to_json(action))).encode("ascii")
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return _error_line(
            "exception",
            "%s(game) returned (value, action) with value %s; the value must be a number"
            % (name, _describe(value)),
        )
    value = float(value)
    if not math.isfinite(value):
        return _error_line(
            "exception",
            "%s(game) returned the value %r; the value must be a finite number (did a max or min "
            "node keep its initial -inf/inf because it had no child searched?)" % (name, value),
        )
    if action is not None and not isinstance(action, str):
        return _error_line(
            "exception",
            "%s(game) returned (value, action) with action %s; the action must be a string taken "
            "from game.actions(game.root) (or game.successors), or None when the root has no choice"
            % (name, _describe(action)),
        )
    if counts is not None:
        return ('{"type":"result","value":%s,"action":%s,"children":%s}\n' % (repr(value), _to_json(action), counts)).encode(
            "ascii"
        )
    return ('{"type":"result","value":%s,"action":%s}\n' % (repr(value), _to_json(action))).encode("ascii")


def _search(channel, search, solutions):
    # type: (_Channel, Dict[str, Any], Dict[str, Any]) -> bytes
    """Runs one ``search`` message through the student's function; returns the line to send."""
    name = search.get("algorithm")
    if name == "iterative-deepening":  # the protocol's name; the function's is a Python name
        name = "iterative_deepening"
    if name not in _ALGORITHMS:
        return _error_line(
            "not_implemented", "this kit has no search for the algorithm %r (it knows %s)" % (name, ", ".join(_ALGORITHMS))
        )
    function = solutions.get(name)
    if function is None:
        return _error_line(
            "not_implemented",
            "no function for %s: write `def %s(game):` in search.py and pass it to run(), "
            "as in `run(minimax=minimax, alphabeta=alphabeta, expectimax=expectimax, %s=%s)`" % (name, name, name, name),
        )
    game = Game(channel, search)
    try:
        answer = function(game)
    except NotImplementedError as exc:
        text = str(exc)
        if text:
            message = "%s is not implemented yet (%s)" % (name, text)
        else:
            message = "%s is not implemented yet: write the body of %s(game) in search.py" % (name, name)
        return _error_line("not_implemented", message)
    except TimeUp as exc:
        if game._iteration_after_time_up is not None:
            return _exception_line(
                name,
                exc,
                "your search started iteration %d after its budget of %s nodes was spent: the budget counts "
                "the nodes of all iterations together and does not start again with each iteration; once "
                "TimeUp is raised, return the answer of the last iteration that finished"
                % (game._iteration_after_time_up, game.budget),
                kind="iteration_after_time_up",
            )
        return _exception_line(
            name,
            exc,
            "your search used its whole budget of %s nodes and did not answer: catch TimeUp "
            "(`except TimeUp:`) and return the best answer found so far" % game.budget,
        )
    except Exception as exc:  # the student's bug: report it and serve the next test
        return _exception_line(name, exc)
    return _answer_line(name, answer, game)


def _move_line(answer):
    # type: (Any) -> bytes
    """Checks the shape of a chosen move and turns it into a ``result`` (or an ``error``)."""
    value = None
    action = answer
    if isinstance(answer, (tuple, list)) and len(answer) == 2:
        value, action = answer
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(float(value)):
            value = None
    if not isinstance(action, str):
        return _error_line(
            "exception",
            "choose_move(game) must return the action to play, a string taken from game.actions(game.root) "
            "(or a pair (value, action)); it returned %s" % _describe(answer),
        )
    value_text = "null" if value is None else repr(float(value))
    return ('{"type":"result","value":%s,"action":%s}\n' % (value_text, _to_json(action))).encode("ascii")


def _move(channel, message, choose_move):
    # type: (_Channel, Dict[str, Any], Optional[Callable[[Game], Any]]) -> bytes
    """Runs one ``move`` message through the student's ``choose_move``; returns the line to send."""
    if choose_move is None:
        return _error_line(
            "not_implemented",
            "no choose_move: write `def choose_move(game):` in search.py and pass it to run(), as in "
            "`run(minimax=minimax, alphabeta=alphabeta, expectimax=expectimax, choose_move=choose_move)`",
        )
    game = Game(channel, message)
    if game.seed is not None:
        import random

        random.seed(game.seed)
    try:
        answer = choose_move(game)
    except NotImplementedError as exc:
        text = str(exc)
        return _error_line(
            "not_implemented",
            "choose_move is not implemented yet (%s)" % text
            if text
            else "choose_move is not implemented yet: write the body of choose_move(game) in search.py",
        )
    except TimeUp as exc:
        return _exception_line(
            "choose_move",
            exc,
            "your agent used its whole budget of %s nodes and did not answer: catch TimeUp "
            "(`except TimeUp:`) and return the best move found so far" % game.budget,
        )
    except Exception as exc:  # the student's bug: this game is lost, the next still played
        return _exception_line("choose_move", exc)
    return _move_line(answer)


def _serve(channel, handle, hello, play=None, others=None):
    # type: (_Channel, Callable[[_Channel, Dict[str, Any]], bytes], bytes, Optional[Callable[[_Channel, Dict[str, Any]], bytes]], Optional[Dict[str, Callable[[_Channel, Dict[str, Any]], bytes]]]) -> int
    """Answers the grader's messages until ``bye``; returns the exit status.

    ``handle(channel, search)`` runs one ``search`` message and returns the
    line to send back; ``play(channel, move)`` does the same for a ``move``
    of a game (a kit without it does not play); ``hello`` is the kit's reply
    to the grader's hello; ``others`` handles more message types the same
    way (a kit built on this one: the CS188 kit's Pacman games).
    """
    while True:
        message = channel.receive(False)
        kind = message.get("type")
        if kind == "search":
            channel.send(handle(channel, message))
        elif others and kind in others:
            channel.send(others[kind](channel, message))
        elif kind == "move":
            if play is None:
                channel.send(_error_line("not_implemented", "this kit does not play games"))
            else:
                channel.send(play(channel, message))
        elif kind == "hello":
            channel.send(hello)
        elif kind == "bye":
            return 0
        else:
            _fatal("the grader sent a message this kit does not know: %r" % (message,))


def run(minimax=None, alphabeta=None, expectimax=None, iterative_deepening=None, maxn=None, mcts=None, choose_move=None):
    # type: (Optional[Callable[[Game], Any]], Optional[Callable[[Game], Any]], Optional[Callable[[Game], Any]], Optional[Callable[[Game], Any]], Optional[Callable[[Game], Any]], Optional[Callable[[Game], Any]], Optional[Callable[[Game], Any]]) -> None
    """Serves your search functions to the grader, then exits the program.

    Call it once, at the end of ``search.py``::

        if __name__ == "__main__":
            run(minimax=minimax, alphabeta=alphabeta, expectimax=expectimax, choose_move=choose_move)

    ``choose_move(game)``, for assignments that play whole games, returns
    the action to play from ``game.root`` (a string of
    ``game.actions(game.root)``); see :class:`Game` for what a move's game
    tells. With a node budget (``game.budget``), catch :class:`TimeUp` and
    return the best move found so far.

    Each function takes a :class:`Game` and returns ``(value, action)``:
    the value of the root, and the action (a string from
    ``game.actions(game.root)``) of the root's best child, or ``None`` when
    the root has no choice (a terminal root, a chance root, or a depth limit
    of 0). The searches beyond the three are given the same way
    (``run(..., iterative_deepening=..., maxn=..., mcts=...)``):
    ``maxn`` returns the root's utility vector as its value, and ``mcts``
    returns ``(value, action, counts)``, with ``counts`` the ``(n, w)`` of
    each root child in the order of ``game.children(game.root)``.

    For every test the grader runs, the function for that test's algorithm
    is called with a fresh ``Game``. If it raises ``NotImplementedError``
    the test is reported as not implemented yet; any other exception fails
    that test with its message and traceback, and the next test still runs.

    While ``run`` serves, ``print()`` writes to standard error (standard
    output carries the grader's protocol), and the grader shows that output
    in the report. The program is meant to be started by the grader
    (``treegrade check``), not by hand.
    """
    solutions = {
        "minimax": minimax,
        "alphabeta": alphabeta,
        "expectimax": expectimax,
        "iterative_deepening": iterative_deepening,
        "maxn": maxn,
        "mcts": mcts,
        "choose_move": choose_move,
    }
    for name, function in solutions.items():
        if function is not None and not callable(function):
            raise TypeError("run(%s=...) needs a function, got %s" % (name, _describe(function)))
    _start(
        lambda channel, search: _search(channel, search, solutions),
        _HELLO,
        lambda channel, move: _move(channel, move, choose_move),
    )


def _start(handle, hello, play=None, others=None):
    # type: (Callable[[_Channel, Dict[str, Any]], bytes], bytes, Optional[Callable[[_Channel, Dict[str, Any]], bytes]], Optional[Dict[str, Callable[[_Channel, Dict[str, Any]], bytes]]]) -> None
    """Serves the grader with ``handle`` for each search, then exits the program.

    The part of :func:`run` that other kits built on this one share (the
    CS188 kit, ``treegrade_cs188``): the protocol keeps the real standard
    output, and the searches run in a thread with a deep stack.
    """
    # Keep the real standard output for the protocol and send everything else
    # that would go there (print, sys.__stdout__, subprocesses) to stderr.
    for stream in (sys.stdout, sys.__stdout__):
        try:
            if stream is not None:
                stream.flush()
        except Exception:
            pass
    protocol_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    stdin = sys.stdin.buffer if sys.stdin is not None else os.fdopen(0, "rb")
    if stdin.isatty():
        sys.stderr.write(
            "treegrade_kit: this program is meant to be run by the grader; run `treegrade check` "
            "in this folder instead (or type protocol messages, one JSON object a line)\n"
        )
    sys.stdin = io.StringIO()  # input() must not eat the grader's messages
    channel = _Channel(_line_reader(stdin), protocol_fd)

    # Deep trees need deep recursion: run in a thread with a large stack.
    sys.setrecursionlimit(max(sys.getrecursionlimit(), _RECURSION_LIMIT))
    status = []  # type: List[int]

    served = _thread.allocate_lock()
    served.acquire()

    def serve():
        # type: () -> None
        try:
            status.append(_serve(channel, handle, hello, play, others))
        except SystemExit as exc:  # sys.exit() in the student's code: honour it
            code = exc.code
            status.append(code if isinstance(code, int) else (0 if code is None else 1))
            if code is not None and not isinstance(code, int):
                sys.stderr.write("%s\n" % (code,))
        finally:
            served.release()

    # Under a tight memory limit a large stack may be refused: try smaller
    # ones, and at worst serve on the main thread. (The low-level _thread:
    # importing threading costs milliseconds of every run.)
    for stack in (_THREAD_STACK, _SMALL_THREAD_STACK):
        try:
            _thread.stack_size(stack)
            _thread.start_new_thread(serve, ())
        except (ValueError, RuntimeError, MemoryError):
            continue
        finally:
            try:
                _thread.stack_size(0)
            except (ValueError, RuntimeError):
                pass
        served.acquire()
        break
    else:
        serve()
    # The grader has every answer: skip the interpreter's shutdown (freeing
    # every object, joining threads), which costs milliseconds per program.
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    os._exit(status[0] if status else 1)
