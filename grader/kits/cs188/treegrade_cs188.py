"""treegrade_cs188: runs an unchanged CS188 ``multiAgents.py`` under treegrade.

The grader starts this script in the student's folder. For each test it
builds the agent the test names (``MinimaxAgent``, ``AlphaBetaAgent`` or
``ExpectimaxAgent``) as CS188's graph tests do, with ``depth`` in rounds and
the default ``scoreEvaluationFunction``, and calls ``getAction`` on the start
state. The states are served by the grader through the protocol
(docs/protocol.md), so the grader itself records which states the search
enters, in order; see ``pacman.GameState``.

``getAction`` returns only an action. The root's value is observed instead:
the value that the student's own functions (any function defined in
``multiAgents.py``) return for the start state, from the outermost such call,
or else the best of the values they return for the start state's successors
(or, as a list of ``(value, action)`` pairs, for the start state's moves)
when the chosen action is one of the best. Only floats count as values (the
test's scores are floats; depths and agent indices are ints). When neither
is seen, the result carries no value and the grader checks the action and
the order alone, and says so.

For CS188's Pacman tests the grader plays the games itself and sends the
kit each state at which the agent must move (``pacman``, ``pacman_move``
and ``pacman_final`` messages, docs/protocol.md "Pacman games"); the kit creates the
agent the test names as CS188 does (``ReflexAgent()``,
``ExpectimaxAgent(evalFn='better')``, ``MinimaxAgent(depth=2)``), hands it a
real ``GameState`` (``cs188_pacman``) and sends back the move. Every
successor comes from the grader.

The kit is written for treegrade; it uses the standard library only, and the
``util``, ``game`` and ``pacman`` modules beside it stand in for CS188's.
"""

import math
import numbers
import os
import sys

_KIT_DIR = os.path.dirname(os.path.abspath(__file__))
_STUDENT_DIR = os.path.abspath(os.getcwd())
# The kit's util, game and pacman come first, so that a student folder that
# holds CS188's whole project still searches the grader's states.
sys.path[:] = [_KIT_DIR, _STUDENT_DIR] + [p for p in sys.path if p not in ("", _KIT_DIR, _STUDENT_DIR)]


class _LateSitePackages(object):
    """Sets up site-packages when an import first needs them.

    The grader starts this kit with ``python3 -S``: setting up site-packages
    at start-up (``site``, with every ``.pth`` file of the installation) can
    cost more than grading all of CS188's graph tests, and a ``multiAgents.py``
    rarely imports anything outside the standard library. This finder comes
    last in ``sys.meta_path``; the first import that nothing else finds (say
    ``numpy``) runs what ``-S`` left out, once, and is looked up again.
    """

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if path is not None:  # a submodule: its package was found without us
            return None
        sys.meta_path.remove(cls)
        import importlib.machinery
        import site

        site.main()
        return importlib.machinery.PathFinder.find_spec(name, path, target)


def _defer_site_packages():
    """Under ``-S``: the builtins ``site`` would add, and site-packages on first need."""
    if not sys.flags.no_site:
        return
    import site

    for name in ("setquit", "setcopyright", "sethelper"):  # exit(), quit(), help() as usual
        getattr(site, name, lambda: None)()
    sys.meta_path.append(_LateSitePackages)


_defer_site_packages()

import cs188_absent  # noqa: E402  (the rest of CS188's project, as stand-ins)
import cs188_pacman  # noqa: E402  (the states of Pacman games)
import treegrade_kit as _base  # noqa: E402  (the Python kit: channel, serving, tracebacks)
from pacman import GameState  # noqa: E402

KIT = "treegrade-cs188/1"
_HELLO = ('{"type":"hello","protocol":%d,"kit":"%s"}\n' % (_base.PROTOCOL, KIT)).encode("ascii")
_MODULE = "multiAgents"
_AGENTS = {"minimax": "MinimaxAgent", "alphabeta": "AlphaBetaAgent", "expectimax": "ExpectimaxAgent"}
_UNLIMITED_ROUNDS = 1000000
# What the kit saw the search do that explains a failure, by name; printed to
# standard error (which the report shows) and added to an exception's message.
_HINTS = {
    "wrong-state-successors": "your search called generateSuccessor on the start state (gameState) with a "
    "ghost's agentIndex: inside your recursion, generate successors from the state being expanded, not "
    "from gameState",
}

_base._KIT_FILES.update(
    os.path.normcase(os.path.join(_KIT_DIR, name))
    for name in (
        "treegrade_cs188.py",
        "pacman.py",
        "util.py",
        "game.py",
        "cs188_absent.py",
        "cs188_pacman.py",
    )
)


class _Search(object):
    """One test's tree as the grader serves it: node replies, one GameState per node."""

    def __init__(self, channel, message):
        self.channel = channel
        self.root = message.get("root")
        agents = message.get("agents")
        self.agents = agents if isinstance(agents, int) and agents > 0 else 1
        self.nodes = {}
        self.hints = set()
        self.ghost_moves_from_start = set()

    def state(self, node):
        return GameState(self, node)

    def info(self, node):
        """The grader's reply about ``node``; the first call enters it."""
        info = self.nodes.get(node)
        if info is not None:
            return info
        self.channel.send(('{"type":"visit","node":%s}\n' % _base._json_string(node)).encode("ascii"))
        reply = self.channel.receive(True)
        if reply.get("type") != "node" or reply.get("node") != node:
            _base._fatal("expected the grader's reply about state %r, got %r" % (node, reply))
        self.nodes[node] = reply
        return reply

    def successor(self, state, agent_index, action):
        # Ghosts move below the start state, never from it. A ghost's index
        # with the start state is harmless once per move (the tree decides
        # whose turn it is), but a move asked twice, or one the start state
        # does not have, means successors of the start state where the
        # search meant the state it is expanding.
        from_start = state._node == self.root and agent_index != 0
        if from_start:
            if (agent_index, action) in self.ghost_moves_from_start:
                self.hints.add("wrong-state-successors")
            self.ghost_moves_from_start.add((agent_index, action))
        info = self.nodes.get(state._node) or self.info(state._node)
        actions = info.get("actions") or []
        if info.get("kind") == "terminal":
            raise Exception(
                "generateSuccessor(%r, %r) was called on state %s, where the game is over (a win, a loss, or "
                "the end of the test's tree): check isWin() and isLose() before expanding a state"
                % (agent_index, action, state._node)
            )
        try:
            index = actions.index(action)
        except ValueError:
            if from_start:
                self.hints.add("wrong-state-successors")
            raise Exception(
                "generateSuccessor(%r, %r): %r is not a legal action in state %s (its legal actions are %s)"
                % (agent_index, action, action, state._node, ", ".join(actions))
            )
        return GameState(self, info["children"][index])


class _Observer(object):
    """Watches the student's functions for the values they return for states.

    A trace function (``sys.settrace``) sees only calls of Python functions,
    and follows only the student's own, without their line events: cheaper
    than a profile function, which would also see every built-in call.
    """

    def __init__(self, student_file):
        self.student_file = student_file
        self.depth = 0
        self.values = {}  # node -> (nesting depth, value) of its outermost call
        self.action_values = {}  # node -> (nesting depth, {action: value}) likewise

    def trace(self, frame, event, arg):
        if frame.f_code.co_filename != self.student_file:
            return None
        frame.f_trace_lines = False
        self.depth += 1
        state = _first_state(frame)
        node, depth = (None if state is None else state._node), self.depth

        def on_return(frame, event, arg):
            if event == "return":
                self.depth -= 1
                if node is not None:
                    self.record(node, depth, arg)
            return on_return

        return on_return

    def record(self, node, depth, result):
        value = _value_in(result)
        known = self.values.get(node)
        if value is not None and (known is None or depth <= known[0]):
            self.values[node] = (depth, value)
        elif value is None and isinstance(result, (list, tuple)):
            pairs = _action_values_in(result)
            known = self.action_values.get(node)
            if pairs and (known is None or depth <= known[0]):
                self.action_values[node] = (depth, pairs)

    def value_of(self, node):
        entry = self.values.get(node)
        return None if entry is None else entry[1]

    def action_values_of(self, node):
        entry = self.action_values.get(node)
        return None if entry is None else entry[1]


def _first_state(frame):
    code = frame.f_code
    local = frame.f_locals
    for name in code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]:
        value = local.get(name)
        if type(value) is GameState:
            return value
    return None


def _value_in(result):
    """The value in a function's result: a float, or the one float of a short tuple or list."""
    if type(result) is float or (isinstance(result, numbers.Real) and not isinstance(result, numbers.Integral)):
        value = float(result)
        return value if math.isfinite(value) else None
    if isinstance(result, (tuple, list)) and 2 <= len(result) <= 3:
        values = [_value_in(item) for item in result if not isinstance(item, (tuple, list))]
        values = [value for value in values if value is not None]
        return values[0] if len(values) == 1 else None
    return None


def _action_values_in(result):
    """``{action: value}`` from a list of ``(value, action)`` (or ``(action, value)``) pairs, or None.

    Some searches return, for a state, the value of each of its moves
    rather than one value; the state's value is then their best.
    """
    values = {}
    for item in result:
        if not isinstance(item, (tuple, list)) or len(item) != 2:
            return None
        action, value = (item[1], item[0]) if isinstance(item[1], str) else item
        value = _value_in(value)
        if not isinstance(action, str) or value is None:
            return None
        values[action] = value
    return values or None


def _root_value(search, observer, action):
    """The start state's value as the student's functions gave it, if they did."""
    value = observer.value_of(search.root)
    if value is not None:
        return value
    info = search.nodes.get(search.root)
    if not info or info.get("kind") not in ("max", "min"):
        return None
    children = info.get("children") or []
    actions = info.get("actions") or []
    values = [observer.value_of(child) for child in children]
    if not values or any(value is None for value in values) or action not in actions:
        moves = observer.action_values_of(search.root)
        if not moves or set(moves) != set(actions) or action not in moves:
            return None
        values = [moves[move] for move in actions]
    best = max(values) if info["kind"] == "max" else min(values)
    return best if values[actions.index(action)] == best else None


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
        path = os.path.join(_STUDENT_DIR, _MODULE + ".py")
        if not os.path.isfile(path):
            self.failure = "there is no %s.py in your submission's folder" % _MODULE
            return
        try:
            self.module = __import__(_MODULE)
        except SystemExit as exc:
            self.failure = "%s.py called sys.exit(%r) while it was being imported" % (_MODULE, exc.code)
        except BaseException as exc:  # a syntax error, a missing module, a crash at import
            import traceback

            frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename.startswith(_STUDENT_DIR)]
            where = ""
            if isinstance(exc, SyntaxError) and exc.lineno:
                where = " (line %d of %s)" % (exc.lineno, os.path.basename(exc.filename or path))
            elif frames:
                where = " (line %d of %s)" % (frames[-1].lineno, os.path.basename(frames[-1].filename))
            message = "".join(traceback.format_exception_only(type(exc), exc)).strip().splitlines()[-1]
            message = message.replace(_KIT_DIR + os.sep, "treegrade's ")  # not the grader's scratch folder
            if isinstance(exc, SyntaxError):
                where += _conflict_markers(path)
            self.failure = "%s.py could not be imported: %s%s" % (_MODULE, message, where)


def _conflict_markers(path):
    """A note on git's conflict markers in ``path``, which make a syntax error far from their line."""
    try:
        with open(path, encoding="utf-8", errors="replace") as source:
            for number, line in enumerate(source, 1):
                if line.startswith(("<<<<<<< ", ">>>>>>> ")) or line.rstrip("\r\n") == "=======":
                    return (
                        "; line %d holds a conflict marker of git (<<<<<<<, =======, >>>>>>>): finish the merge "
                        "and keep one version of the code" % number
                    )
    except OSError:
        pass
    return ""


def _search(channel, message, student):
    """Runs one test through the student's agent; returns the line to send."""
    algorithm = message.get("algorithm")
    class_name = _AGENTS.get(algorithm)
    if class_name is None:
        return _base._error_line("not_implemented", "CS188 has no agent for the algorithm %r" % (algorithm,))
    student.load()
    if student.failure:
        return _base._error_line("exception", student.failure)
    agent_class = getattr(student.module, class_name, None)
    if agent_class is None:
        return _base._error_line("not_implemented", "%s.py has no class %s" % (_MODULE, class_name))
    search = _Search(channel, message)
    depth = message.get("depth")
    if depth is None:
        rounds = _UNLIMITED_ROUNDS
    elif depth % search.agents:
        return _base._error_line(
            "exception",
            "this test cuts at ply %d, which is not a whole number of rounds of %d agents: a CS188 agent "
            "counts its depth in rounds, so it cannot be graded on this test" % (depth, search.agents),
        )
    else:
        rounds = depth // search.agents
    name = "%s.getAction" % class_name
    observer = _Observer(getattr(student.module, "__file__", None))
    # A search that breaks ties with random.choice gets the same draws on
    # every test and every run, so its grade never changes between runs.
    cs188_pacman.serve_random(None)
    generator = sys.modules.get("random")
    if generator is not None:
        generator.seed(0)
    try:
        agent = agent_class(depth=rounds)
    except Exception as exc:  # CS188's tests create the agent so too: its __init__ must accept it
        created = "creating %s(depth=%d) as CS188's tests do" % (class_name, rounds)
        return _base._exception_line(created, exc)
    try:
        sys.settrace(observer.trace)
        try:
            action = agent.getAction(search.state(search.root))
        finally:
            sys.settrace(None)
    except NotImplementedError as exc:
        text = str(exc) or "write getAction in %s" % class_name
        return _base._error_line("not_implemented", "%s is not implemented yet (%s)" % (name, text))
    except Exception as exc:  # the student's bug: report it and serve the next test
        hints = "; ".join(_HINTS[hint] for hint in sorted(search.hints))
        return _base._exception_line(name, exc, hints)
    for hint in sorted(search.hints):
        sys.stderr.write("treegrade_cs188: hint: %s\n" % _HINTS[hint])
    if action is not None and not isinstance(action, str):
        return _base._error_line(
            "exception",
            "%s returned %s; it must return one of gameState.getLegalActions(0), a string"
            % (name, _base._describe(action)),
        )
    result = {"type": "result", "value": _root_value(search, observer, action), "action": action}
    return (_base._to_json(result) + "\n").encode("ascii")


_READY = b'{"type":"ready"}\n'


class _Pacman(object):
    """The agent of the Pacman test being run, and the game in progress."""

    def __init__(self):
        self.test = None
        self.agent = None
        self.game = None


def _pacman_game(channel, message, student, pacman):
    """A game starts: the test's agent (created once per test, as CS188 does), its random, registerInitialState."""
    student.load()
    if student.failure:
        return _base._error_line("exception", student.failure)
    class_name = message.get("agent")
    # CS188 creates the agent before it seeds its stream: what __init__ draws is not the games'.
    cs188_pacman.serve_random(None)
    if pacman.test != message.get("test") or pacman.agent is None:
        pacman.test = message.get("test")
        pacman.agent = None
        agent_class = getattr(student.module, class_name, None) if isinstance(class_name, str) else None
        if agent_class is None:
            return _base._error_line("not_implemented", "%s.py has no class %s" % (_MODULE, class_name))
        args = message.get("args") or {}
        created = "creating %s(%s) as CS188's tests do" % (
            class_name,
            ", ".join("%s=%r" % (key, value) for key, value in args.items()),
        )
        try:
            pacman.agent = agent_class(**args)
        except NotImplementedError as exc:
            return _base._error_line("not_implemented", "%s: not implemented yet (%s)" % (created, exc))
        except Exception as exc:
            return _base._exception_line(created, exc)
    if message.get("shared_random"):
        # CS188's one stream, seeded once per test: the grader owns it and serves every draw.
        cs188_pacman.serve_random(channel)
    else:
        import random

        random.seed(message.get("seed", 0))
    pacman.game = cs188_pacman.Game(channel, message, _base._fatal)
    agent = pacman.agent
    if "registerInitialState" in dir(agent):
        state = pacman.game.state(message["state"])
        try:
            agent.registerInitialState(state.deepCopy())
        except NotImplementedError as exc:
            return _base._error_line("not_implemented", "registerInitialState is not implemented yet (%s)" % exc)
        except Exception as exc:
            return _base._exception_line("%s.registerInitialState" % type(agent).__name__, exc)
    else:
        pacman.game.data(message["state"])
    return _READY


def _pacman_move(channel, message, pacman):
    """The agent's move in the state sent: what ``getAction`` returns."""
    game, agent = pacman.game, pacman.agent
    if game is None or agent is None:
        _base._fatal("the grader asked for a move outside a game")
    game.new_move()
    reseed = message.get("random")
    if reseed:
        # CS188's game tests reseed the shared random at every move, then its ghosts draw.
        import random

        random.seed(reseed[0])
        for _ in range(reseed[1]):
            random.random()
    state = game.state(message["state"])
    name = "%s.getAction" % type(agent).__name__
    try:
        action = agent.getAction(state)
    except NotImplementedError as exc:
        text = str(exc) or "write getAction in %s" % type(agent).__name__
        return _base._error_line("not_implemented", "%s is not implemented yet (%s)" % (name, text))
    except Exception as exc:
        return _base._exception_line(name, exc)
    if not isinstance(action, str):
        action = repr(action)
    return ('{"type":"action","action":%s}\n' % _base._json_string(action)).encode("ascii")


def _pacman_final(channel, message, pacman):
    """The game is over: the agent's ``final``, if it has one."""
    game, agent = pacman.game, pacman.agent
    pacman.game = None
    if game is not None and agent is not None and "final" in dir(agent):
        try:
            agent.final(game.state(message["state"]))
        except Exception as exc:
            return _base._exception_line("%s.final" % type(agent).__name__, exc)
    return _READY


def main():
    cs188_absent.install()
    student = _Student()
    pacman = _Pacman()
    cs188_pacman.install_random()
    _base._start(
        lambda channel, message: _search(channel, message, student),
        _HELLO,
        others={
            "pacman": lambda channel, message: _pacman_game(channel, message, student, pacman),
            "pacman_move": lambda channel, message: _pacman_move(channel, message, pacman),
            "pacman_final": lambda channel, message: _pacman_final(channel, message, pacman),
        },
    )


if __name__ == "__main__":
    main()
