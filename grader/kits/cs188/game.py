"""game: ``Agent`` and ``Directions``, as a CS188 ``multiAgents.py`` imports them.

Written for treegrade's CS188 kit (no Berkeley code). Actions in a graded
tree are the tree's own labels (``Left``, ``Center``, ``North``...), which the
grader sends; ``Directions`` is here so that the student's module imports.
"""

__all__ = ["Agent", "Directions", "Actions"]


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


class Actions(object):
    """Moves as vectors on the board."""

    _VECTORS = {
        Directions.NORTH: (0, 1),
        Directions.SOUTH: (0, -1),
        Directions.EAST: (1, 0),
        Directions.WEST: (-1, 0),
        Directions.STOP: (0, 0),
    }

    @staticmethod
    def reverseDirection(action):
        return Directions.REVERSE.get(action, action)

    @staticmethod
    def directionToVector(direction, speed=1.0):
        dx, dy = Actions._VECTORS[direction]
        return (dx * speed, dy * speed)


def __getattr__(name):
    """Any other name of CS188's ``game``: a stand-in, so that importing it works (see cs188_absent)."""
    import cs188_absent

    return cs188_absent.module_attribute(__name__, name)
