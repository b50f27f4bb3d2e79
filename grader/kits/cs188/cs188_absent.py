"""cs188_absent: stand-ins for the parts of CS188's project that the kit leaves out.

Written for treegrade's CS188 kit (no Berkeley code). A ``multiAgents.py``
often imports more of CS188's project than its searches use: ``from util
import nearestPoint`` for its evaluation function, ``import layout`` or
``from ghostAgents import RandomGhost`` left from experiments. Under CS188's
own autograder these imports work, because its whole project is on disk, so
here they must not fail either. Each such name is a stand-in that can be
imported, named and subclassed, and that says what it is only when the
search calls it, which graded game trees never need.
"""

import sys
import types

# The modules of CS188's multiagent project besides util, game and pacman,
# which the kit provides itself.
PROJECT_MODULES = frozenset(
    (
        "autograder",
        "ghostAgents",
        "grading",
        "graphicsDisplay",
        "graphicsUtils",
        "keyboardAgents",
        "layout",
        "multiagentTestClasses",
        "pacmanAgents",
        "projectParams",
        "testClasses",
        "testParser",
        "textDisplay",
    )
)


# The other names that CS188's util, game and pacman define or import, so
# that importing one works here as it does there, and a misspelt one fails
# as it does there.
PROJECT_NAMES = {
    "util": frozenset("FixedRandom inspect heapq io signal time".split()),
    "game": frozenset(
        "Game nearestPoint manhattanDistance Counter Stack Queue PriorityQueue raiseNotDefined lookup flipCoin "
        "time os traceback sys".split()
    ),
    "pacman": frozenset(
        "ClassicGameRules PacmanRules GhostRules default parseAgentArgs readCommand loadAgent replayGame "
        "runGames GameStateData Game Directions Actions nearestPoint manhattanDistance util layout sys types "
        "time random os".split()
    ),
}
# Those of the names above that are modules CS188's modules import.
IMPORTED_MODULES = frozenset("inspect heapq io signal time os traceback sys types random util layout".split())


def module_attribute(module, name):
    """``module.name`` for a name CS188's module has and the kit's lacks (module ``__getattr__``).

    A name that CS188's module imports from another (``pacman.Directions``)
    is the kit's own; a module it imports (``pacman.layout``) is that module;
    anything else (``util.sample``, ``pacman.default``) is a stand-in.
    """
    if name not in PROJECT_NAMES.get(module, ()):
        raise AttributeError("module %r has no attribute %r" % (module, name))
    for source in ("util", "game"):
        if source != module:
            kit_module = __import__(source)
            if name in kit_module.__all__:
                return getattr(kit_module, name)
    if name in IMPORTED_MODULES:
        return __import__(name)
    return stand_in(module, name)


def stand_in(module, name):
    """A stand-in for ``module.name``: a class whose every use says what it stands for."""
    if name.startswith("_"):  # __path__, __wrapped__...: the import system's questions
        raise AttributeError("module %r has no attribute %r" % (module, name))
    message = (
        "%s.%s is part of CS188's Pacman game, which the graded tests do not play in your program: the grader "
        "runs the game itself (its rules, ghosts and game loop), and your code uses the GameState it is given "
        "(getLegalActions, generateSuccessor or getNextState, getPacmanPosition, getFood, getGhostStates, "
        "getScore, isWin, isLose...)" % (module, name)
    )

    def refuse(*args, **kwargs):
        raise Exception(message)

    return type(name, (object,), {"__init__": refuse, "__doc__": message, "__module__": module})


class ProjectModules(object):
    """Finds a stand-in for a module of CS188's project that the student's folder lacks.

    It comes first in ``sys.meta_path`` but answers only for the names in
    ``PROJECT_MODULES``, and only when the student's folder (or anything
    else on ``sys.path``) has no such module: a real one is always used.
    """

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if path is not None or name not in PROJECT_MODULES:
            return None
        import importlib.machinery
        import importlib.util

        if importlib.machinery.PathFinder.find_spec(name, path) is not None:
            return None
        return importlib.util.spec_from_loader(name, cls)

    @staticmethod
    def create_module(spec):
        module = types.ModuleType(spec.name, "A stand-in for CS188's %s (treegrade's CS188 kit)" % spec.name)
        module.__getattr__ = lambda attribute: stand_in(spec.name, attribute)
        return module

    @staticmethod
    def exec_module(module):
        return None


def install():
    """Makes the project's other modules importable from any ``multiAgents.py``."""
    if ProjectModules not in sys.meta_path:
        sys.meta_path.insert(0, ProjectModules)
