"""util: the helpers a CS188 ``multiAgents.py`` imports, for treegrade's CS188 kit.

Written for treegrade (no Berkeley code): only the names that game-tree
searches use, with the same behaviour. The Pacman game itself is not here,
so helpers about the board (``nearestPoint`` and the like) are left out: importing
one gives a stand-in (``cs188_absent``) that explains itself when called.
"""

import heapq
import random
import sys

__all__ = [
    "manhattanDistance",
    "raiseNotDefined",
    "lookup",
    "Counter",
    "Stack",
    "Queue",
    "PriorityQueue",
    "PriorityQueueWithFunction",
    "flipCoin",
]


def manhattanDistance(xy1, xy2):
    """The Manhattan distance between two points ``(x, y)``."""
    return abs(xy1[0] - xy2[0]) + abs(xy1[1] - xy2[1])


def raiseNotDefined():
    """Marks code still to be written: the grader reports "not implemented yet"."""
    caller = sys._getframe(1).f_code.co_name
    raise NotImplementedError("%s still calls util.raiseNotDefined()" % caller)


def lookup(name, namespace):
    """The object called ``name`` in ``namespace`` (a module's ``globals()``).

    ``MultiAgentSearchAgent`` uses it to turn ``evalFn='scoreEvaluationFunction'``
    into the function of that name.
    """
    if name in namespace:
        return namespace[name]
    matches = [value for value in namespace.values() if getattr(value, "__name__", None) == name]
    if len(matches) == 1:
        return matches[0]
    raise Exception("%s is not defined in this module" % name)


class Counter(dict):
    """A dictionary whose missing keys count 0."""

    def __getitem__(self, key):
        self.setdefault(key, 0)
        return dict.__getitem__(self, key)

    def incrementAll(self, keys, count):
        for key in keys:
            self[key] += count

    def argMax(self):
        """The key with the largest value (None when empty)."""
        if not self:
            return None
        return max(self.items(), key=lambda item: item[1])[0]

    def sortedKeys(self):
        return [key for key, _ in sorted(self.items(), key=lambda item: -item[1])]

    def totalCount(self):
        return sum(self.values())

    def normalize(self):
        total = float(self.totalCount())
        if total != 0:
            for key in list(self.keys()):
                self[key] = self[key] / total

    def copy(self):
        return Counter(dict.copy(self))


class Stack(object):
    """Last in, first out."""

    def __init__(self):
        self.list = []

    def push(self, item):
        self.list.append(item)

    def pop(self):
        return self.list.pop()

    def isEmpty(self):
        return not self.list


class Queue(object):
    """First in, first out."""

    def __init__(self):
        self.list = []

    def push(self, item):
        self.list.insert(0, item)

    def pop(self):
        return self.list.pop()

    def isEmpty(self):
        return not self.list


class PriorityQueue(object):
    """Lowest priority first; equal priorities in insertion order."""

    def __init__(self):
        self.heap = []
        self.count = 0

    def push(self, item, priority):
        heapq.heappush(self.heap, (priority, self.count, item))
        self.count += 1

    def pop(self):
        return heapq.heappop(self.heap)[2]

    def isEmpty(self):
        return not self.heap

    def update(self, item, priority):
        for index, (old, count, existing) in enumerate(self.heap):
            if existing == item:
                if old <= priority:
                    return
                self.heap[index] = (priority, count, item)
                heapq.heapify(self.heap)
                return
        self.push(item, priority)


class PriorityQueueWithFunction(PriorityQueue):
    """A priority queue that asks ``priorityFunction(item)`` for each item's priority."""

    def __init__(self, priorityFunction):
        self.priorityFunction = priorityFunction
        PriorityQueue.__init__(self)

    def push(self, item):
        PriorityQueue.push(self, item, self.priorityFunction(item))


def flipCoin(p):
    """True with probability ``p``."""
    return random.random() < p


def __getattr__(name):
    """Any other name of CS188's ``util``: a stand-in, so that importing it works (see cs188_absent)."""
    import cs188_absent

    return cs188_absent.module_attribute(__name__, name)
