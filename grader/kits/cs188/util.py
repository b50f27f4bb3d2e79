"""util: the helpers a CS188 ``multiAgents.py`` imports, for treegrade's CS188 kit.

Written for treegrade (no Berkeley code), with the behaviour of CS188's
``util`` module: distances, ``Counter``, the queues, sampling from
distributions, ``nearestPoint``, ``TimeoutFunction`` and the rest. Importing
a name that CS188's ``util`` has and this one lacks gives a stand-in
(``cs188_absent``) that explains itself when called.
"""

import heapq
import random
import signal
import sys
import time

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
    "nearestPoint",
    "sign",
    "arrayInvert",
    "matrixAsList",
    "normalize",
    "nSample",
    "sample",
    "sampleFromCounter",
    "getProbability",
    "chooseFromDistribution",
    "pause",
    "TimeoutFunctionException",
    "TimeoutFunction",
    "mutePrint",
    "unmutePrint",
    "WritableNull",
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
        """The key with the largest value, the first such (None when empty)."""
        if not self:
            return None
        items = list(self.items())
        values = [value for _, value in items]
        return items[values.index(max(values))][0]

    def sortedKeys(self):
        """Keys by value, largest first (equal values keep their order)."""
        return [key for key, _ in sorted(self.items(), key=lambda item: -item[1])]

    def totalCount(self):
        return sum(self.values())

    def normalize(self):
        """Scales the values to add up to 1 (nothing happens when they add up to 0)."""
        total = float(self.totalCount())
        if total == 0:
            return
        for key in list(self.keys()):
            self[key] = self[key] / total

    def divideAll(self, divisor):
        divisor = float(divisor)
        for key in self:
            self[key] /= divisor

    def copy(self):
        return Counter(dict.copy(self))

    def __mul__(self, other):
        """The dot product: the sum of value times value over the keys both have."""
        total = 0
        small, large = (self, other) if len(self) <= len(other) else (other, self)
        for key in small:
            if key in large:
                total += small[key] * large[key]
        return total

    def __radd__(self, other):
        for key, value in other.items():
            self[key] += value

    def __add__(self, other):
        added = Counter()
        for key in self:
            added[key] = self[key] + (other[key] if key in other else 0)
        for key in other:
            if key not in self:
                added[key] = other[key]
        return added

    def __sub__(self, other):
        subtracted = Counter()
        for key in self:
            subtracted[key] = self[key] - (other[key] if key in other else 0)
        for key in other:
            if key not in self:
                subtracted[key] = -1 * other[key]
        return subtracted


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


def nearestPoint(pos):
    """The grid point nearest ``pos`` (each coordinate rounded half up, as ints)."""
    row, col = pos
    return (int(row + 0.5), int(col + 0.5))


def sign(x):
    """1 for x >= 0, else -1."""
    return 1 if x >= 0 else -1


def arrayInvert(array):
    """The transpose of a list of equal-length lists."""
    result = [[] for _ in array]
    for outer in range(len(array)):
        for inner in range(len(array[outer])):
            result[inner].append(array[outer][inner])
    return result


def matrixAsList(matrix, value=True):
    """The ``(row, col)`` cells of a list of lists that hold ``value``."""
    return [(row, col) for row in range(len(matrix)) for col in range(len(matrix[0])) if matrix[row][col] == value]


def normalize(vectorOrCounter):
    """A counter (or a list) scaled to add up to 1; unchanged when it adds up to 0."""
    if type(vectorOrCounter) is Counter:
        counter = vectorOrCounter
        total = float(counter.totalCount())
        if total == 0:
            return counter
        normalized = Counter()
        for key in list(counter.keys()):
            normalized[key] = counter[key] / total
        return normalized
    total = float(sum(vectorOrCounter))
    if total == 0:
        return vectorOrCounter
    return [value / total for value in vectorOrCounter]


def nSample(distribution, values, n):
    """``n`` values drawn with replacement from ``distribution`` over ``values``."""
    if sum(distribution) != 1:
        distribution = normalize(distribution)
    draws = sorted(random.random() for _ in range(n))
    samples = []
    at, total = 0, distribution[0]
    for draw in draws:
        while draw >= total:
            at += 1
            total += distribution[at]
        samples.append(values[at])
    return samples


def sample(distribution, values=None):
    """One value drawn from ``distribution`` (a Counter, keys sorted; or probabilities over ``values``)."""
    if type(distribution) is Counter:
        items = sorted(distribution.items())
        distribution = [probability for _, probability in items]
        values = [key for key, _ in items]
    if sum(distribution) != 1:
        distribution = normalize(distribution)
    choice = random.random()
    at, total = 0, distribution[0]
    while choice > total:
        at += 1
        total += distribution[at]
    return values[at]


def sampleFromCounter(counter):
    items = sorted(counter.items())
    return sample([value for _, value in items], [key for key, _ in items])


def getProbability(value, distribution, values):
    """The probability of ``value`` under ``distribution`` over ``values``."""
    return sum(probability for probability, other in zip(distribution, values) if other == value) + 0.0


def chooseFromDistribution(distribution):
    """One key drawn from a Counter or dict, or from a list of ``(probability, key)`` pairs."""
    if isinstance(distribution, dict):
        return sample(Counter(distribution) if type(distribution) is not Counter else distribution)
    choice = random.random()
    total = 0.0
    for probability, element in distribution:
        total += probability
        if choice <= total:
            return element


def pause():
    """Waits for Enter (under the grader, input is empty: it returns at once)."""
    print("<Press enter/return to continue>")
    try:
        input()
    except EOFError:
        pass


class TimeoutFunctionException(Exception):
    """Raised when a TimeoutFunction runs out of time."""


class TimeoutFunction(object):
    """Calls ``function`` and raises TimeoutFunctionException past ``timeout`` seconds."""

    def __init__(self, function, timeout):
        self.timeout = timeout
        self.function = function

    def handle_timeout(self, signum, frame):
        raise TimeoutFunctionException()

    def __call__(self, *args, **keyArgs):
        if hasattr(signal, "SIGALRM"):
            try:
                old = signal.signal(signal.SIGALRM, self.handle_timeout)
            except ValueError:  # not the main thread (the kit serves from a thread): time it instead
                old = None
            if old is not None:
                signal.alarm(self.timeout)
                try:
                    return self.function(*args, **keyArgs)
                finally:
                    signal.signal(signal.SIGALRM, old)
                    signal.alarm(0)
        start = time.time()
        result = self.function(*args, **keyArgs)
        if time.time() - start >= self.timeout:
            self.handle_timeout(None, None)
        return result


class WritableNull(object):
    """A stream that drops everything written to it."""

    def write(self, string):
        pass


_MUTED = []


def mutePrint():
    """Sends ``print`` output nowhere until ``unmutePrint``."""
    if not _MUTED:
        _MUTED.append(sys.stdout)
        sys.stdout = WritableNull()


def unmutePrint():
    if _MUTED:
        sys.stdout = _MUTED.pop()


def __getattr__(name):
    """Any other name of CS188's ``util``: a stand-in, so that importing it works (see cs188_absent)."""
    import cs188_absent

    return cs188_absent.module_attribute(__name__, name)
