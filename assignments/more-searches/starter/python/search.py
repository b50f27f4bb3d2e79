#!/usr/bin/env python3
"""Beyond minimax: iterative deepening, max^n, Monte Carlo tree search, forward pruning.

Write the bodies of the four functions below. README.md says exactly what
each search must do; the grader checks your value, your action and the
exact order in which your search enters nodes (the first time you ask
``game`` about a node), and for MCTS also the random numbers you draw and
each root child's N and W. What ``game`` offers::

    game.root                   # the root, at ply 0
    game.depth                  # the depth limit (iterative deepening: the deepest iteration's)
    game.prune_on_equal         # the alpha-beta pruning convention
    game.player(node)           # "max", "min", "chance", "terminal";
                                #   in maxn, the number of the player to move (1, 2, ...)
    game.is_terminal(node)      # True when the game is over
    game.utility(node)          # a terminal's value for MAX (maxn: a list, one per player)
    game.successors(node)       # [(action, child), ...] in the tree's order
    game.children(node)         # [child, ...] in the same order
    game.probabilities(node)    # a chance node's probabilities
    game.evaluate(node)         # the evaluation at the depth limit (maxn: a list)

    # iterative deepening (q1, q2)
    game.budget                 # the most nodes your iterations may enter in all, or None
    game.start_iteration(depth) # call it at the start of every iteration
    TimeUp                      # raised when a call would enter a node past the budget

    # max^n (q3)
    game.players                # the number of players

    # Monte Carlo tree search (q4, q5)
    game.iterations             # how many iterations to run
    game.exploration            # UCB's constant c
    game.random()               # the next random number in [0, 1): use no other

    # alpha-beta with forward pruning (q6)
    game.forward_pruning        # N: search only the N best children of a max or min node
    game.static_values(node)    # each child's static value, in the order of game.children(node)

Run ``treegrade check`` in this folder to test your code.
"""

import math  # noqa: F401  (math.log, math.sqrt: UCB needs them)

from treegrade_kit import Game, TimeUp, run  # noqa: F401  (Game: for your type hints)


def iterative_deepening(game):
    """Alpha-beta at depth 1, 2, ..., ``game.depth``: ``(value, action)`` of the last complete iteration.

    Start each iteration with ``game.start_iteration(depth)``. At the root,
    search first the child whose action the previous iteration chose, then
    the others in order. Stop early when an iteration valued no node by
    ``game.evaluate`` (it saw the whole tree). When a call raises
    ``TimeUp``, the budget is spent: return the last complete answer.
    """
    raise NotImplementedError("TODO: write iterative_deepening(game) in search.py")


def maxn(game):
    """Max^n: ``(vector, action)``, the root's utility vector and the action of its best child.

    At a node of player i (``game.player(node) == i``), take the first child
    whose vector has the greatest i-th component (``vector[i - 1]``); a
    chance node's vector is the sum of p * vector, component by component.
    """
    raise NotImplementedError("TODO: write maxn(game) in search.py")


def mcts(game):
    """UCT with ``game.iterations`` iterations: ``(value, action, counts)``.

    ``value`` is W/N of the root, ``action`` the root child with the greatest
    N (the first on ties; None at a chance root), and ``counts`` the list of
    ``(n, w)`` of each root child, in the order of ``game.children(game.root)``.
    Every random number comes from ``game.random()``.
    """
    raise NotImplementedError("TODO: write mcts(game) in search.py")


def alphabeta(game):
    """Alpha-beta with forward pruning: ``(value, action)`` of the root.

    At every max or min node above ``game.depth``, sort the children by
    ``game.static_values(node)`` (greatest first at a max node, least first at
    a min node, equal values keeping their order) and search only the first
    ``game.forward_pruning`` of them, with alpha-beta's pruning among those.
    Chance nodes and nodes at the depth limit are never cut.
    """
    raise NotImplementedError("TODO: write alphabeta(game) in search.py")


if __name__ == "__main__":
    run(alphabeta=alphabeta, iterative_deepening=iterative_deepening, maxn=maxn, mcts=mcts)
