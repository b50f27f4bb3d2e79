#!/usr/bin/env python3
"""Adversarial search: minimax, alpha-beta and expectimax.

Write the bodies of the three functions below. Each one receives a ``game``
and returns a pair ``(value, action)``:

* ``value``: the value of the root (a number);
* ``action``: the action (a string from ``game.actions(game.root)``, or the
  first item of a pair in ``game.successors(game.root)``) of the root's best
  child, or ``None`` when the root has no choice to make (the root is a
  terminal, a chance node, or the depth limit is 0).

What ``game`` offers (see README.md for the details)::

    game.root                  # the root's id (a string), at ply 0
    game.depth                 # the depth limit in plies, or None for no limit
    game.prune_on_equal        # the alpha-beta pruning convention (see alphabeta)
    game.player(node)          # "max", "min", "chance" or "terminal"
    game.is_terminal(node)     # True for a terminal
    game.utility(node)         # a terminal's value (for MAX)
    game.children(node)        # the children's ids, in search order
    game.actions(node)         # the action of each child, same order
    game.successors(node)      # [(action, child), ...], same order
    game.probabilities(node)   # a chance node's probabilities, same order
    game.evaluate(node)        # the heuristic value of a node at the depth limit

What the grader checks, for every test: your value, your action, and the
exact order in which your search enters nodes. A node is *entered* the first
time your code asks ``game`` anything about it (its kind, its children, its
utility, ...), and the grader records that order itself. It must be the
order of the reference search:

* search children in the order ``game`` gives them, depth first;
* enter a node only when your search gets to it: do not look at all the
  children (not even ``game.is_terminal(child)``) before recursing into the
  first one;
* never enter a node that your search does not need (pruned children, nodes
  below the depth limit).

``print()`` is fine for debugging: the output goes to standard error and the
grader shows it in the report. Run ``treegrade check`` in this folder to test
your code locally.
"""

from treegrade_kit import Game, run  # noqa: F401  (Game: for your type hints)


def minimax(game):
    """Minimax: return ``(value, action)`` for the root of ``game``.

    The value of a node is:

    * a terminal: ``game.utility(node)``;
    * a node at the depth limit (ply == ``game.depth``, the root being ply 0)
      that is not a terminal: ``game.evaluate(node)``, without looking at its
      children;
    * a max node: the greatest value among its children; a min node: the
      least. Several min (or max) levels in a row are possible, e.g. one MAX
      and two ghosts: always ask ``game.player(node)``, never assume the
      players alternate.

    The action is that of the *first* child (in order) whose value is the
    root's value: on a tie, keep the earlier child. If the root is a
    terminal or the depth limit is 0, return ``(value, None)``.

    Minimax tests never contain chance nodes.
    """
    raise NotImplementedError("TODO: write minimax(game) in search.py")


def alphabeta(game):
    """Alpha-beta pruning: return ``(value, action)`` for the root of ``game``.

    The same value and action as minimax (expectimax at chance nodes), found
    while skipping the children that cannot matter. Call the root with the
    window ``alpha = -inf``, ``beta = +inf`` (``math.inf``) and search the
    children in order. At a max node, after each child:

    * update the node's value: ``v = max(v, child_value)``;
    * stop searching its remaining children if ``v >= beta`` when
      ``game.prune_on_equal`` is True, or if ``v > beta`` when it is False
      (the test says which; both are checked);
    * otherwise ``alpha = max(alpha, v)``.

    A min node is symmetric: stop if ``v <= alpha`` (``v < alpha`` when
    ``game.prune_on_equal`` is False), otherwise ``beta = min(beta, v)``.

    A chance node, if the tree has one, is valued in full: search each of its
    children with a fresh window ``(-inf, +inf)`` and add up ``p * value``.

    The action is that of the first root child that strictly improved the
    root's value. The depth limit works as in minimax. The grader checks
    the exact set and order of the nodes you enter, so a search that prunes
    too little or too much fails even if its value is right.
    """
    raise NotImplementedError("TODO: write alphabeta(game) in search.py")


def expectimax(game):
    """Expectimax: return ``(value, action)`` for the root of ``game``.

    Like minimax, plus chance nodes. The value of a chance node is the sum
    of ``p * value`` over its children, with ``p`` from
    ``game.probabilities(node)``: start from 0 and add the children in order
    (``total = total + p * value``), so that your number is exactly the
    reference's.

    A chance root has no action: return ``(value, None)``. The depth limit
    works as in minimax (a chance node at the limit is evaluated too).
    """
    raise NotImplementedError("TODO: write expectimax(game) in search.py")


if __name__ == "__main__":
    run(minimax=minimax, alphabeta=alphabeta, expectimax=expectimax)
