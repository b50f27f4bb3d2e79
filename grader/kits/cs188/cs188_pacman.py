"""cs188_pacman: Pacman games for treegrade's CS188 kit.

Written for treegrade (no Berkeley code). In CS188's Pacman tests the
student's agent plays real games; here the grader plays them
(docs/protocol.md, "Pacman games"): it sends each state, and the kit gives
the agent a ``GameState`` with CS188's methods. The grader is the only
source of successors: ``generateSuccessor`` asks it for the state after a
move, so the grader sees every state a search explores and counts them as
CS188's ``GameState.explored`` does.

States arrive once in full and then by their id; equal states (as CS188
compares them) share an ``eq`` number. A game's states, food grids and
successors are kept for the whole game, except that where the grader counts
explored states the successors are asked for again at every move.
"""

import random

import _random

import game as _game
from game import AgentState, Configuration, GameStateData, Grid
from util import manhattanDistance

__all__ = ["GameState", "Game", "Layout", "SharedRandom", "install_random"]

# The protocol's letters for moves (docs/protocol.md).
_NAMES = {"W": "West", "X": "Stop", "E": "East", "N": "North", "S": "South"}
_LEGAL = {}  # letters -> tuple of names


def _legal_names(letters):
    names = _LEGAL.get(letters)
    if names is None:
        names = _LEGAL[letters] = tuple(_NAMES[letter] for letter in letters)
    return names


class SharedRandom(random.Random):
    """Python's ``random.Random``, whose numbers can come from the grader.

    CS188's ``EvalAgentTest`` plays its games in one process, where the
    student's ``random`` and the ghosts draw from one Mersenne Twister,
    seeded once. In such games (``shared_random``) the grader owns that
    stream: :meth:`random` and :meth:`getrandbits` ask it for their numbers
    (``py_random``), and everything else ``random`` offers (``choice``,
    ``randint``, ``shuffle``, ``sample``, ``uniform``...) is CPython's own
    code on top of them, so every draw is the number CS188's process would
    give. ``seed`` and ``setstate`` set the grader's stream (the generator's
    state computed here by CPython itself), ``getstate`` reads it. Outside
    such games (graph tests, CS188's game tests, ``per-game`` play tests)
    it is an ordinary generator.
    """

    # The channel while the grader serves the numbers; None otherwise.
    _served = None

    def random(self):
        channel = self._served
        if channel is None:
            return super().random()
        return _ask(channel, b'{"type":"py_random","op":"random"}\n')["value"]

    def getrandbits(self, k):
        channel = self._served
        if channel is None:
            return super().getrandbits(k)
        k = k.__index__()
        if k < 0:
            raise ValueError("number of bits must be non-negative")
        if k == 0:
            return 0
        words = _ask(channel, ('{"type":"py_random","op":"bits","k":%d}\n' % k).encode("ascii"))["bits"]
        value = 0
        for word in reversed(words):
            value = (value << 32) | word
        return value

    def seed(self, a=None, version=2):
        super().seed(a, version)
        self._push_state()

    def setstate(self, state):
        super().setstate(state)
        self._push_state()

    def getstate(self):
        channel = self._served
        if channel is None:
            return super().getstate()
        state = _ask(channel, b'{"type":"py_random","op":"get_state"}\n')["state"]
        return (self.VERSION, tuple(state), self.gauss_next)

    def _push_state(self):
        """The generator's state as set here, made the grader's stream's."""
        channel = self._served
        if channel is not None:
            words = ",".join(str(word) for word in _random.Random.getstate(self))
            _ask(channel, ('{"type":"py_random","op":"set_state","state":[%s]}\n' % words).encode("ascii"))


def _ask(channel, request):
    channel.send(request)
    reply = channel.receive(True)
    if reply.get("type") != "py_random":
        import treegrade_kit

        treegrade_kit._fatal("expected the grader's py_random, got %r" % (reply,))
    return reply


_SHARED = None


def install_random():
    """Puts a :class:`SharedRandom` behind the ``random`` module's functions.

    ``random.random``, ``random.choice`` and the others are the methods of
    one hidden instance; they are rebound to an instance of ours before the
    student's code is imported, so that ``from random import choice`` gets
    ours too.
    """
    global _SHARED
    if _SHARED is not None:
        return _SHARED
    hidden = getattr(random, "_inst", None)
    shared = SharedRandom()
    if hidden is not None:
        shared.setstate(hidden.getstate())
    for name in dir(random):
        bound = getattr(random, name)
        if getattr(bound, "__self__", None) is hidden and hidden is not None and callable(bound):
            setattr(random, name, getattr(shared, name))
    random._inst = shared
    _SHARED = shared
    return shared


def serve_random(channel):
    """The student's ``random`` draws from the grader's stream (``channel``), or (None) is its own again."""
    shared = install_random()
    shared._served = channel


class _Data(object):
    """One state as the grader sent it."""

    __slots__ = ("id", "eq", "agents", "food", "food_key", "capsules", "score", "win", "lose", "legal", "value_hash")

    def value(self):
        """What CS188's ``==`` compares: agents, food, capsules, score (hashable)."""
        agents = tuple((agent[0], agent[1], agent[2], agent[3]) for agent in self.agents)
        return (agents, self.food_key, tuple(self.capsules), self.score)


class Game(object):
    """One game: its board, the states received and the successors asked for."""

    def __init__(self, channel, message, fatal):
        self.channel = channel
        self.fatal = fatal
        self.counted = bool(message.get("explored"))
        rows = list(message.get("layout") or [])
        self.layout = Layout(rows)
        self.walls = self.layout.walls
        starts = [tuple(start) for start in message.get("starts") or []]
        self.starts = [Configuration(start, _game.Directions.STOP) for start in starts]
        self.states = {}
        self.grids = {}
        self.grid_keys = {}
        self.successors = {}

    def new_move(self):
        """A move starts: where the grader counts explored states, every successor is asked for anew."""
        if self.counted:
            self.successors.clear()

    def data(self, raw):
        """The state for a state object of the protocol (in full, or an id already received)."""
        known = self.states.get(raw.get("id"))
        if known is not None:
            return known
        if "agents" not in raw:
            self.fatal("the grader sent state %r by its id before sending it in full" % (raw.get("id"),))
        data = _Data()
        data.id = raw["id"]
        data.eq = raw["eq"]
        data.agents = raw["agents"]
        grid = raw.get("grid")
        if grid is not None:
            self.grids[raw["food"]] = Grid._from_columns(grid)
            self.grid_keys[raw["food"]] = tuple(grid)
        data.food = self.grids[raw["food"]]
        data.food_key = self.grid_keys[raw["food"]]
        data.capsules = [tuple(capsule) for capsule in raw["capsules"]]
        data.score = raw["score"]
        data.win = raw["win"]
        data.lose = raw["lose"]
        data.legal = raw["legal"]
        data.value_hash = None
        self.states[data.id] = data
        return data

    def state(self, raw):
        return GameState._of(self, self.data(raw))

    def successor(self, data, agent, action):
        """The state after ``agent`` takes the legal ``action`` in ``data`` (asked of the grader)."""
        key = (data.id, agent, action)
        known = self.successors.get(key)
        if known is not None:
            return known
        channel = self.channel
        channel.send(
            ('{"type":"successor","state":%d,"agent":%d,"action":"%s"}\n' % (data.id, agent, action)).encode("ascii")
        )
        reply = channel.receive(True)
        kind = reply.get("type")
        if kind == "illegal":
            raise Exception(reply.get("message"))
        if kind != "states":
            self.fatal("expected the grader's states, got %r" % (reply,))
        states = [self.data(raw) for raw in reply["states"]]
        if self.counted or len(states) == 1:
            self.successors[key] = states[0]
            return states[0]
        for name, state in zip(_legal_names(data.legal[agent]), states):
            self.successors[(data.id, agent, name)] = state
        return self.successors[key]

    def agent_index(self, agentIndex, agents):
        """CS188's index of an agent (negative ones count from the end, as Python's lists do)."""
        if not isinstance(agentIndex, int):
            raise TypeError("list indices must be integers or slices, not %s" % type(agentIndex).__name__)
        index = agentIndex + agents if agentIndex < 0 else agentIndex
        if index < 0 or index >= agents or (agentIndex != 0 and index == 0):
            raise Exception("Invalid index passed to getGhostState")
        return index


class GameState(object):
    """A state of the Pacman game the grader plays (CS188's ``pacman.GameState``).

    Every ``generateSuccessor`` returns a new object; states compare equal
    when CS188's would (positions, directions, scared timers, food, capsules
    and score).
    """

    __slots__ = ("_game", "_data", "_agents", "_food", "_capsules", "_view")

    @classmethod
    def _of(cls, game, data):
        state = object.__new__(cls)
        state._game = game
        state._data = data
        state._agents = None
        state._food = None
        state._capsules = None
        state._view = None
        return state

    # -- what CS188's GameState offers ----------------------------------------

    def getLegalActions(self, agentIndex=0):
        """The legal moves of ``agentIndex`` (none once the game is won or lost)."""
        data = self._data
        if data.win or data.lose:
            return []
        if agentIndex == 0:
            return list(_legal_names(data.legal[0]))
        index = self._game.agent_index(agentIndex, len(data.agents))
        return list(_legal_names(data.legal[index]))

    def getLegalPacmanActions(self):
        return self.getLegalActions(0)

    def generateSuccessor(self, agentIndex, action):
        """The state after ``agentIndex`` takes ``action``, made by the grader."""
        data = self._data
        if data.win or data.lose:
            raise Exception("Can't generate a successor of a terminal state.")
        index = 0 if agentIndex == 0 else self._game.agent_index(agentIndex, len(data.agents))
        if not isinstance(action, str) or action not in _legal_names(data.legal[index]):
            raise Exception("%s %s" % ("Illegal action" if index == 0 else "Illegal ghost action", action))
        return GameState._of(self._game, self._game.successor(data, index, action))

    def generatePacmanSuccessor(self, action):
        return self.generateSuccessor(0, action)

    def getNextState(self, agentIndex, action):
        """``generateSuccessor`` under its Spring name."""
        return self.generateSuccessor(agentIndex, action)

    def getPacmanNextState(self, action):
        """``generatePacmanSuccessor`` under its Spring name."""
        return self.generateSuccessor(0, action)

    def getPacmanState(self):
        return self._agent_states()[0].copy()

    def getPacmanPosition(self):
        if self._agents is None:
            agent = self._data.agents[0]
            return (agent[0], agent[1])
        return self._agents[0].getPosition()

    def getGhostStates(self):
        return self._agent_states()[1:]

    def getGhostState(self, agentIndex):
        if agentIndex == 0 or agentIndex >= self.getNumAgents():
            raise Exception("Invalid index passed to getGhostState")
        return self._agent_states()[agentIndex]

    def getGhostPosition(self, agentIndex):
        if agentIndex == 0:
            raise Exception("Pacman's index passed to getGhostPosition")
        return self._agent_states()[agentIndex].getPosition()

    def getGhostPositions(self):
        return [ghost.getPosition() for ghost in self.getGhostStates()]

    def getNumAgents(self):
        return len(self._data.agents)

    def getScore(self):
        return float(self._data.score)

    def getCapsules(self):
        if self._capsules is None:
            self._capsules = list(self._data.capsules)
        return self._capsules

    def getNumFood(self):
        return self.getFood().count()

    def getFood(self):
        return self._food if self._food is not None else self._data.food

    def getWalls(self):
        return self._game.walls

    def hasFood(self, x, y):
        return self.getFood()[x][y]

    def hasWall(self, x, y):
        return self._game.walls[x][y]

    def isLose(self):
        return self._data.lose

    def isWin(self):
        return self._data.win

    def deepCopy(self):
        state = GameState._of(self._game, self._data)
        state._food = self.getFood().copy()
        if self._agents is not None:
            state._agents = [agent.copy() for agent in self._agents]
        return state

    @property
    def data(self):
        """The state's data as CS188's ``GameStateData`` holds it."""
        if self._view is None:
            view = GameStateData()
            view.agentStates = self._agent_states()
            view.food = self.getFood()
            view.capsules = self.getCapsules()
            view.layout = self._game.layout
            view.score = self._data.score
            view._win = self._data.win
            view._lose = self._data.lose
            view._eaten = [False] * len(self._data.agents)
            self._view = view
        return self._view

    def __eq__(self, other):
        if not isinstance(other, GameState):
            return hasattr(other, "data") and self.data == other.data
        if other._game is self._game and self._food is None and other._food is None:
            return self._data.eq == other._data.eq
        return self._value() == other._value()

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        data = self._data
        if self._food is not None:
            return hash(self._value())
        if data.value_hash is None:
            data.value_hash = hash(data.value())
        return data.value_hash

    def __str__(self):
        return _game._draw(
            self._game.walls, self.getFood(), self._agent_states(), self.getCapsules(), self._data.score
        )

    def __repr__(self):
        return "GameState(%d)" % self._data.id

    # -- the kit's own -------------------------------------------------------

    def _value(self):
        data = self._data
        if self._food is None:
            return data.value()
        agents = tuple((agent[0], agent[1], agent[2], agent[3]) for agent in data.agents)
        food = tuple("".join("1" if cell else "0" for cell in column) for column in self._food.data)
        return (agents, food, tuple(data.capsules), data.score)

    def _agent_states(self):
        """The agents as CS188's ``AgentState`` objects, made once per state object."""
        agents = self._agents
        if agents is None:
            starts = self._game.starts
            agents = []
            for index, (x, y, direction, scared) in enumerate(self._data.agents):
                agent = AgentState(starts[index] if index < len(starts) else None, index == 0)
                agent.configuration = Configuration((x, y), direction)
                agent.scaredTimer = scared
                agents.append(agent)
            self._agents = agents
        return agents


class Layout(object):
    """The board (CS188's ``layout.Layout``, ``state.data.layout``): walls, food, capsules, the agents' starts."""

    def __init__(self, layoutText):
        self.width = len(layoutText[0])
        self.height = len(layoutText)
        self.walls = Grid(self.width, self.height, False)
        self.food = Grid(self.width, self.height, False)
        self.capsules = []
        self.agentPositions = []
        self.numGhosts = 0
        self.processLayoutText(layoutText)
        self.layoutText = layoutText
        self.totalFood = len(self.food.asList())

    def getNumGhosts(self):
        return self.numGhosts

    def isWall(self, pos):
        x, y = pos
        return self.walls[x][y]

    def getRandomLegalPosition(self):
        while True:
            x = random.choice(list(range(self.width)))
            y = random.choice(list(range(self.height)))
            if not self.isWall((x, y)):
                return (x, y)

    def _corners(self):
        return [(1, 1), (1, self.height - 2), (self.width - 2, 1), (self.width - 2, self.height - 2)]

    def getRandomCorner(self):
        return random.choice(self._corners())

    def getFurthestCorner(self, pacPos):
        return max((manhattanDistance(corner, pacPos), corner) for corner in self._corners())[1]

    def __str__(self):
        return "\n".join(self.layoutText)

    def deepCopy(self):
        return Layout(self.layoutText[:])

    def processLayoutText(self, layoutText):
        """Reads the rows (the last is y = 0); agents sorted Pacman first, then ghosts by number and position."""
        top = self.height - 1
        for y in range(self.height):
            for x in range(self.width):
                self.processLayoutChar(x, y, layoutText[top - y][x])
        self.agentPositions.sort()
        self.agentPositions = [(number == 0, position) for number, position in self.agentPositions]

    def processLayoutChar(self, x, y, layoutChar):
        if layoutChar == "%":
            self.walls[x][y] = True
        elif layoutChar == ".":
            self.food[x][y] = True
        elif layoutChar == "o":
            self.capsules.append((x, y))
        elif layoutChar == "P":
            self.agentPositions.append((0, (x, y)))
        elif layoutChar == "G":
            self.agentPositions.append((1, (x, y)))
            self.numGhosts += 1
        elif layoutChar in ("1", "2", "3", "4"):
            self.agentPositions.append((int(layoutChar), (x, y)))
            self.numGhosts += 1
