"""game: the board's building blocks a CS188 ``multiAgents.py`` uses.

Written for treegrade's CS188 kit (no Berkeley code), with the behaviour of
CS188's ``game`` module: ``Agent``, ``Directions``, ``Actions``,
``Configuration``, ``AgentState``, ``Grid`` and ``GameStateData``. In a
graded game tree, actions are the tree's own labels (``Left``,
``Center``...); in a Pacman game (CS188's Pacman tests), states hold these
objects, and the grader alone makes successors.
"""

__all__ = [
    "Agent",
    "Directions",
    "Actions",
    "Configuration",
    "AgentState",
    "Grid",
    "GameStateData",
    "reconstituteGrid",
]


class Agent(object):
    """An agent: ``getAction(state)`` returns the action it takes."""

    def __init__(self, index=0):
        self.index = index

    def getAction(self, state):
        raise NotImplementedError("getAction is not implemented yet")


class Directions(object):
    """The names of Pacman's moves."""

    NORTH = "North"
    SOUTH = "South"
    EAST = "East"
    WEST = "West"
    STOP = "Stop"

    LEFT = {NORTH: WEST, SOUTH: EAST, EAST: NORTH, WEST: SOUTH, STOP: STOP}
    RIGHT = {y: x for x, y in LEFT.items()}
    REVERSE = {NORTH: SOUTH, SOUTH: NORTH, EAST: WEST, WEST: EAST, STOP: STOP}


class Configuration(object):
    """Where an agent is, ``pos`` = (x, y) with (0, 0) the bottom-left cell, and which way it faces."""

    def __init__(self, pos, direction):
        self.pos = pos
        self.direction = direction

    def getPosition(self):
        return self.pos

    def getDirection(self):
        return self.direction

    def isInteger(self):
        x, y = self.pos
        return x == int(x) and y == int(y)

    def __eq__(self, other):
        if other is None:
            return False
        return self.pos == other.pos and self.direction == other.direction

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash((self.pos, self.direction))

    def __str__(self):
        return "(x,y)=%s, %s" % (self.pos, self.direction)

    __repr__ = __str__

    def generateSuccessor(self, vector):
        """The configuration moved by ``vector`` (facing the way it moves; a Stop keeps the direction)."""
        x, y = self.pos
        dx, dy = vector
        direction = Actions.vectorToDirection(vector)
        if direction == Directions.STOP:
            direction = self.direction
        return Configuration((x + dx, y + dy), direction)


class AgentState(object):
    """An agent in a state: its configuration, its start, whether it is Pacman, its scared timer."""

    def __init__(self, startConfiguration, isPacman):
        self.start = startConfiguration
        self.configuration = startConfiguration
        self.isPacman = isPacman
        self.scaredTimer = 0
        self.numCarrying = 0
        self.numReturned = 0

    def __str__(self):
        return ("Pacman: " if self.isPacman else "Ghost: ") + str(self.configuration)

    __repr__ = __str__

    def __eq__(self, other):
        if other is None:
            return False
        return self.configuration == other.configuration and self.scaredTimer == other.scaredTimer

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash((self.configuration, self.scaredTimer))

    def copy(self):
        state = AgentState(self.start, self.isPacman)
        state.configuration = self.configuration
        state.scaredTimer = self.scaredTimer
        state.numCarrying = self.numCarrying
        state.numReturned = self.numReturned
        return state

    def getPosition(self):
        if self.configuration is None:
            return None
        return self.configuration.getPosition()

    def getDirection(self):
        return self.configuration.getDirection()


class Grid(object):
    """Booleans over the board, read ``grid[x][y]`` (x from the left, y from the bottom)."""

    def __init__(self, width, height, initialValue=False, bitRepresentation=None):
        if initialValue not in (False, True):
            raise Exception("Grids can only contain booleans")
        self.CELLS_PER_INT = 30
        self.width = width
        self.height = height
        self.data = [[initialValue] * height for _ in range(width)]
        if bitRepresentation:
            self._unpackBits(bitRepresentation)

    @classmethod
    def _from_columns(cls, columns):
        """A grid from the grader's columns of ``0`` and ``1`` (x = 0 first, each from y = 0 up)."""
        grid = cls.__new__(cls)
        grid.CELLS_PER_INT = 30
        grid.width = len(columns)
        grid.height = len(columns[0]) if columns else 0
        grid.data = [[cell == "1" for cell in column] for column in columns]
        return grid

    def __getitem__(self, i):
        return self.data[i]

    def __setitem__(self, key, item):
        self.data[key] = item

    def __str__(self):
        rows = ["".join(str(self.data[x][y])[0] for x in range(self.width)) for y in range(self.height)]
        return "\n".join(reversed(rows))

    def __eq__(self, other):
        if other is None:
            return False
        return self.data == other.data

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash(tuple(tuple(column) for column in self.data))

    def copy(self):
        grid = Grid(self.width, self.height)
        grid.data = [column[:] for column in self.data]
        return grid

    def deepCopy(self):
        return self.copy()

    def shallowCopy(self):
        grid = Grid(self.width, self.height)
        grid.data = self.data
        return grid

    def count(self, item=True):
        return sum(column.count(item) for column in self.data)

    def asList(self, key=True):
        """The cells holding ``key``, x first, then y."""
        return [(x, y) for x in range(self.width) for y in range(self.height) if self.data[x][y] == key]

    def packBits(self):
        """``(width, height, ints...)``: the cells, 30 to an int, most significant bit first."""
        bits = [self.width, self.height]
        current = 0
        for index in range(self.height * self.width):
            x, y = self._cellIndexToPosition(index)
            if self[x][y]:
                current += 2 ** (self.CELLS_PER_INT - (index % self.CELLS_PER_INT) - 1)
            if (index + 1) % self.CELLS_PER_INT == 0:
                bits.append(current)
                current = 0
        bits.append(current)
        return tuple(bits)

    def _cellIndexToPosition(self, index):
        return index // self.height, index % self.height

    def _unpackBits(self, bits):
        cell = 0
        for packed in bits:
            for bit in self._unpackInt(packed, self.CELLS_PER_INT):
                if cell == self.width * self.height:
                    break
                x, y = self._cellIndexToPosition(cell)
                self[x][y] = bit
                cell += 1

    def _unpackInt(self, packed, size):
        if packed < 0:
            raise ValueError("must be a positive integer")
        return [bool(packed >> (size - i - 1) & 1) for i in range(size)]


def reconstituteGrid(bitRep):
    """A grid from ``packBits``'s tuple (anything else is returned as it is)."""
    if not isinstance(bitRep, tuple):
        return bitRep
    width, height = bitRep[:2]
    return Grid(width, height, bitRepresentation=bitRep[2:])


class Actions(object):
    """Moves as vectors on the board."""

    _directions = {
        Directions.WEST: (-1, 0),
        Directions.STOP: (0, 0),
        Directions.EAST: (1, 0),
        Directions.NORTH: (0, 1),
        Directions.SOUTH: (0, -1),
    }
    _directionsAsList = list(_directions.items())
    TOLERANCE = 0.001

    @staticmethod
    def reverseDirection(action):
        return Directions.REVERSE.get(action, action)

    @staticmethod
    def vectorToDirection(vector):
        dx, dy = vector
        if dy > 0:
            return Directions.NORTH
        if dy < 0:
            return Directions.SOUTH
        if dx < 0:
            return Directions.WEST
        if dx > 0:
            return Directions.EAST
        return Directions.STOP

    @staticmethod
    def directionToVector(direction, speed=1.0):
        dx, dy = Actions._directions[direction]
        return (dx * speed, dy * speed)

    @staticmethod
    def getPossibleActions(config, walls):
        """Straight on between cells; else every move (West, Stop, East, North, South) whose next cell is open."""
        x, y = config.pos
        x_int, y_int = int(x + 0.5), int(y + 0.5)
        if abs(x - x_int) + abs(y - y_int) > Actions.TOLERANCE:
            return [config.getDirection()]
        return [
            direction
            for direction, (dx, dy) in Actions._directionsAsList
            if not walls[x_int + dx][y_int + dy]
        ]

    @staticmethod
    def getLegalNeighbors(position, walls):
        """The open cells one move (or a Stop) from ``position``, in the order of the moves."""
        x, y = position
        x_int, y_int = int(x + 0.5), int(y + 0.5)
        neighbors = []
        for _, (dx, dy) in Actions._directionsAsList:
            next_x, next_y = x_int + dx, y_int + dy
            if next_x < 0 or next_x == walls.width or next_y < 0 or next_y == walls.height:
                continue
            if not walls[next_x][next_y]:
                neighbors.append((next_x, next_y))
        return neighbors

    @staticmethod
    def getSuccessor(position, action):
        dx, dy = Actions.directionToVector(action)
        x, y = position
        return (x + dx, y + dy)


class GameStateData(object):
    """What a Pacman state holds: ``agentStates``, ``food``, ``capsules``, ``layout``, ``score``, ``_win``, ``_lose``.

    The kit fills one in for ``state.data``; the grader's rules make every successor.
    """

    def __init__(self, prevState=None):
        self.food = None
        self.capsules = []
        self.agentStates = []
        self.layout = None
        self.score = 0
        self._eaten = []
        if prevState is not None:
            self.food = prevState.food.shallowCopy()
            self.capsules = prevState.capsules[:]
            self.agentStates = [agent.copy() for agent in prevState.agentStates]
            self.layout = prevState.layout
            self._eaten = prevState._eaten
            self.score = prevState.score
        self._foodEaten = None
        self._foodAdded = None
        self._capsuleEaten = None
        self._agentMoved = None
        self._lose = False
        self._win = False
        self.scoreChange = 0

    def deepCopy(self):
        state = GameStateData(self)
        state.food = self.food.deepCopy()
        state._agentMoved = self._agentMoved
        state._foodEaten = self._foodEaten
        state._foodAdded = self._foodAdded
        state._capsuleEaten = self._capsuleEaten
        return state

    def copyAgentStates(self, agentStates):
        return [agent.copy() for agent in agentStates]

    def __eq__(self, other):
        if other is None:
            return False
        return (
            self.agentStates == other.agentStates
            and self.food == other.food
            and self.capsules == other.capsules
            and self.score == other.score
        )

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash((tuple(self.agentStates), self.food, tuple(self.capsules), self.score))

    def __str__(self):
        return _draw(self.layout.walls, self.food, self.agentStates, self.capsules, self.score)


def _draw(walls, food, agentStates, capsules, score):
    """A state as CS188 prints it: food ``.``, walls ``%``, Pacman ``<>^v``, ghosts ``G``, capsules ``o``, the score."""
    cells = [[("." if food[x][y] else "%" if walls[x][y] else " ") for y in range(walls.height)] for x in range(walls.width)]
    for agent in agentStates:
        if agent is None or agent.configuration is None:
            continue
        x, y = (int(value + 0.5) for value in agent.configuration.pos)
        direction = agent.configuration.direction
        if agent.isPacman:
            cells[x][y] = {Directions.NORTH: "v", Directions.SOUTH: "^", Directions.WEST: ">"}.get(direction, "<")
        else:
            cells[x][y] = "G"
    for x, y in capsules:
        cells[x][y] = "o"
    rows = ["".join(cells[x][y] for x in range(walls.width)) for y in range(walls.height)]
    return "\n".join(reversed(rows)) + "\nScore: %d\n" % score


def __getattr__(name):
    """Any other name of CS188's ``game``: a stand-in, so that importing it works (see cs188_absent)."""
    import cs188_absent

    return cs188_absent.module_attribute(__name__, name)
