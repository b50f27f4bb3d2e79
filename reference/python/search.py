#!/usr/bin/env python3
"""Reference solutions: minimax, alpha-beta and expectimax.

These are the instructor's solutions of the adversarial-search assignment,
exactly as the grader's reference engine searches (FORMAT.md, sections 2 and
3). Read them after the deadline to compare with yours.

Every search is a depth-first recursion that returns ``(value, action)`` for
a node: the node's value and, at a max or min node, the action of the first
child that reaches that value. Only the action at the root matters; the
recursion returns it everywhere because that keeps the code the same at
every level.

Three things decide whether a search matches the reference node for node:

* the children are searched in the order the game gives them, and a node is
  entered (asked about) only when the search gets to it;
* a node is valued without looking at its children when it is a terminal or
  when it sits at the depth limit (there ``game.evaluate`` gives its value);
* alpha-beta stops a node's remaining children on the convention the test
  asks for (``game.prune_on_equal``).

Run it through the grader (``treegrade check``), or from a checkout with
``python3 reference/python/search.py`` (it then finds the kit in
``grader/kits/python``).
"""

import math
import os
import sys

try:
    from treegrade_kit import run
except ImportError:  # run from a checkout: the kit sits in grader/kits/python
    sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "grader", "kits", "python"))
    from treegrade_kit import run

INF = math.inf


# ---------------------------------------------------------------------------
# Rules shared by the three searches
# ---------------------------------------------------------------------------


def at_depth_limit(game, ply):
    """True when the depth limit stops the search at this ply.

    The root is at ply 0, its children at ply 1, and so on. With
    ``game.depth == d``, a non-terminal node at ply d is valued by its
    evaluation and its children are never searched.
    """
    return game.depth is not None and ply == game.depth


def stop_value(game, node, ply):
    """The value of ``node`` if the search stops there, else None.

    The search stops at a terminal (its utility, at any ply) and at a node
    on the depth limit (its evaluation). Asking ``is_terminal`` is what
    enters the node: every search calls this first, once per node.
    """
    if game.is_terminal(node):
        return game.utility(node)
    if at_depth_limit(game, ply):
        return game.evaluate(node)
    return None


def improves(player, value, best):
    """Is ``value`` better than ``best`` for ``player`` ("max" or "min")?

    Strictly better: on a tie the earlier child keeps its place, so the
    chosen action is the first child that reaches the best value.
    """
    return value > best if player == "max" else value < best


def prunes(game, high, low):
    """The alpha-beta cutoff test.

    A max node stops when its value ``high`` reaches beta (``low``); a min
    node stops when alpha (``high``) reaches its value (``low``). With
    ``game.prune_on_equal`` (AIMA's convention) equality is enough; without
    it (UC Berkeley CS188's), the bound must be strictly passed.
    """
    return high >= low if game.prune_on_equal else high > low


def expected_value(game, node, value_of):
    """The value of a chance node: the sum of p * v over its children.

    ``value_of(child)`` searches one child. The sum starts at 0 and adds the
    children in order, exactly as FORMAT.md says, so that every correct
    implementation gets the same double, bit for bit.
    """
    children = game.children(node)
    total = 0.0
    for p, child in zip(game.probabilities(node), children):
        total = total + p * value_of(child)
    return total


# ---------------------------------------------------------------------------
# Minimax
# ---------------------------------------------------------------------------


def minimax(game):
    """Plain minimax from the root: returns ``(value, action)``."""
    return minimax_search(game, game.root, 0)


def minimax_search(game, node, ply):
    """``(value, action)`` of ``node`` at ``ply`` under minimax."""
    value = stop_value(game, node, ply)
    if value is not None:
        return value, None
    player = game.player(node)
    best_value, best_action = (-INF if player == "max" else INF), None
    for action, child in game.successors(node):
        value, _ = minimax_search(game, child, ply + 1)
        if improves(player, value, best_value):
            best_value, best_action = value, action
    return best_value, best_action


# ---------------------------------------------------------------------------
# Alpha-beta
# ---------------------------------------------------------------------------


def alphabeta(game):
    """Alpha-beta from the root, with the window (-inf, +inf): returns ``(value, action)``."""
    return alphabeta_search(game, game.root, 0, -INF, INF)


def alphabeta_search(game, node, ply, alpha, beta):
    """``(value, action)`` of ``node`` at ``ply`` under alpha-beta.

    ``alpha`` is the best value MAX can already force above this node,
    ``beta`` the best MIN can. Once a node's value is outside that window,
    the player above will never let the game reach it, so its remaining
    children need not be searched.
    """
    value = stop_value(game, node, ply)
    if value is not None:
        return value, None
    player = game.player(node)
    if player == "chance":
        # A chance node is valued in full: each child is searched with a
        # fresh window (-inf, +inf), and nothing is pruned on its account.
        value = expected_value(game, node, lambda child: alphabeta_search(game, child, ply + 1, -INF, INF)[0])
        return value, None
    best_value, best_action = (-INF if player == "max" else INF), None
    for action, child in game.successors(node):
        value, _ = alphabeta_search(game, child, ply + 1, alpha, beta)
        if improves(player, value, best_value):
            best_value, best_action = value, action
        if player == "max":
            if prunes(game, best_value, beta):
                break  # MIN above already has something better than this node
            alpha = max(alpha, best_value)
        else:
            if prunes(game, alpha, best_value):
                break  # MAX above already has something better than this node
            beta = min(beta, best_value)
    return best_value, best_action


# ---------------------------------------------------------------------------
# Expectimax
# ---------------------------------------------------------------------------


def expectimax(game):
    """Expectimax from the root: returns ``(value, action)`` (action None at a chance root)."""
    return expectimax_search(game, game.root, 0)


def expectimax_search(game, node, ply):
    """``(value, action)`` of ``node`` at ``ply``: minimax with chance nodes."""
    value = stop_value(game, node, ply)
    if value is not None:
        return value, None
    player = game.player(node)
    if player == "chance":
        return expected_value(game, node, lambda child: expectimax_search(game, child, ply + 1)[0]), None
    best_value, best_action = (-INF if player == "max" else INF), None
    for action, child in game.successors(node):
        value, _ = expectimax_search(game, child, ply + 1)
        if improves(player, value, best_value):
            best_value, best_action = value, action
    return best_value, best_action


if __name__ == "__main__":
    run(minimax=minimax, alphabeta=alphabeta, expectimax=expectimax)
