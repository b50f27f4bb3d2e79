"""pacman: the ``GameState`` a CS188 ``multiAgents.py`` searches, served by treegrade.

Written for treegrade's CS188 kit (no Berkeley code). A ``GameState`` here is
one node of the test's game tree, which the grader serves one node at a time
(docs/protocol.md): the grader records the order in which states are first
*asked about*, and that order is compared with the reference search's.

A state is entered the first time the search asks it anything:
``getLegalActions``, ``generateSuccessor``/``getNextState`` (of its own
successors), ``isWin``, ``isLose`` or ``getScore``. Generating a successor does
not enter the successor; asking it something does. ``getNumAgents`` asks
nothing about a state. As in CS188's own graph tests, the tree decides whose
turn it is, so ``agentIndex`` does not change the successors.
"""

__all__ = ["GameState", "SCARED_TIME", "COLLISION_TOLERANCE", "TIME_PENALTY"]

# CS188's constants of the game (the grader plays by them).
SCARED_TIME = 40
COLLISION_TOLERANCE = 0.7
TIME_PENALTY = 1

_API = "getLegalActions, generateSuccessor (or getNextState), getNumAgents, isWin, isLose and getScore"


class GameState(object):
    """One state of the test's game tree (a node).

    As in CS188's graph tests, every ``generateSuccessor`` returns a new
    object, and states compare by identity.
    """

    __slots__ = ("_search", "_node")

    def __init__(self, search, node):
        self._search = search
        self._node = node

    def __repr__(self):
        return "GameState(%s)" % self._node

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise AttributeError(
            "GameState has no %s here: the graded tests are game trees, not Pacman boards, so a state offers "
            "only %s (positions, food and ghosts exist in the Pacman game, which these tests do not play)"
            % (name, _API)
        )

    # The methods look a state's node up in the search's cache themselves
    # rather than through a helper: the kit watches the student's calls with
    # a trace function, which every Python call pays for, on every node.

    def getLegalActions(self, agentIndex=0):
        """The actions available in this state, in the order the search must try them."""
        return list((self._search.nodes.get(self._node) or self._search.info(self._node)).get("actions") or ())

    def generateSuccessor(self, agentIndex, action):
        """The state reached by taking ``action`` here (it is not entered until asked something)."""
        return self._search.successor(self, agentIndex, action)

    def getNextState(self, agentIndex, action):
        """``generateSuccessor`` under its Spring 2022 name."""
        return self._search.successor(self, agentIndex, action)

    def generatePacmanSuccessor(self, action):
        """The successor for Pacman's (agent 0's) ``action``."""
        return self._search.successor(self, 0, action)

    def getNumAgents(self):
        """Pacman plus the ghosts."""
        return self._search.agents

    def isWin(self):
        """True when Pacman has won in this state (the game is over)."""
        return (self._search.nodes.get(self._node) or self._search.info(self._node)).get("outcome") == "win"

    def isLose(self):
        """True when Pacman has lost in this state (the game is over)."""
        return (self._search.nodes.get(self._node) or self._search.info(self._node)).get("outcome") == "lose"

    def getScore(self):
        """The test's evaluation of this state: its score where the game ends or the depth limit cuts."""
        info = self._search.nodes.get(self._node) or self._search.info(self._node)
        if info.get("kind") == "terminal":
            return float(info["value"])
        if info.get("eval") is not None:
            return float(info["eval"])
        raise Exception(
            "getScore() was called on state %s, which this test does not evaluate: it is neither a win or a "
            "loss nor a state at the depth limit (check where your search stops: at isWin(), isLose(), and "
            "when the depth reaches self.depth after the last ghost's move)" % self._node
        )


def __getattr__(name):
    """Any other name of CS188's ``pacman``: a stand-in, so that importing it works (see cs188_absent)."""
    import cs188_absent

    return cs188_absent.module_attribute(__name__, name)
