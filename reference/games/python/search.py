#!/usr/bin/env python3
"""Reference solutions of the games assignment (assignments/games).

The searches are those of the written-tree assignment (reference/python):
the kit serves a game's tree exactly as it serves a written one, so the
same depth-first recursions pass. One thing is new, move ordering by static
value (docs/format.md 8.1, question q4): at a max or min node above the
depth cut the children are searched by their static value, best for the
player to move first, ties keeping the game's order.

Run it through the grader (``treegrade check --assignment assignments/games
--submission reference/games/python``).
"""

import math
import os
import sys

try:
    from treegrade_kit import TimeUp, run
except ImportError:  # run from a checkout: the kit sits in grader/kits/python
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.append(os.path.join(here, "..", "..", "..", "grader", "kits", "python"))
    from treegrade_kit import TimeUp, run

INF = math.inf

#: How much more an end of the game weighs than any evaluation, in play.
DECISIVE = 1e9


def stop_value(game, node, ply):
    """The value of ``node`` if the search stops there (a terminal, or the depth cut), else None."""
    if game.is_terminal(node):
        return game.utility(node)
    if game.depth is not None and ply == game.depth:
        return game.evaluate(node)
    return None


def searched_successors(game, node, player):
    """The ``(action, child)`` pairs in the order the search takes them.

    Under move ordering, by static value: greatest first at a max node,
    least first at a min node; ``sorted`` is stable, so equal values keep
    the game's order. Reading static values enters no child.
    """
    pairs = game.successors(node)
    if game.move_ordering != "eval" or player not in ("max", "min"):
        return pairs
    keyed = zip(game.static_values(node), pairs)
    ordered = sorted(keyed, key=lambda item: -item[0] if player == "max" else item[0])
    return [pair for _, pair in ordered]


def better(player, value, best):
    return value > best if player == "max" else value < best


def expected(game, node, value_of):
    total = 0.0
    for p, child in zip(game.probabilities(node), game.children(node)):
        total = total + p * value_of(child)
    return total


def minimax(game):
    def search(node, ply):
        value = stop_value(game, node, ply)
        if value is not None:
            return value, None
        player = game.player(node)
        best, best_action = (-INF if player == "max" else INF), None
        for action, child in searched_successors(game, node, player):
            value, _ = search(child, ply + 1)
            if better(player, value, best):
                best, best_action = value, action
        return best, best_action

    return search(game.root, 0)


def alphabeta(game):
    def prunes(high, low):
        return high >= low if game.prune_on_equal else high > low

    def search(node, ply, alpha, beta):
        value = stop_value(game, node, ply)
        if value is not None:
            return value, None
        player = game.player(node)
        if player == "chance":
            return expected(game, node, lambda child: search(child, ply + 1, -INF, INF)[0]), None
        best, best_action = (-INF if player == "max" else INF), None
        for action, child in searched_successors(game, node, player):
            value, _ = search(child, ply + 1, alpha, beta)
            if better(player, value, best):
                best, best_action = value, action
            if player == "max":
                if prunes(best, beta):
                    break
                alpha = max(alpha, best)
            else:
                if prunes(alpha, best):
                    break
                beta = min(beta, best)
        return best, best_action

    return search(game.root, 0, -INF, INF)


def expectimax(game):
    def search(node, ply):
        value = stop_value(game, node, ply)
        if value is not None:
            return value, None
        player = game.player(node)
        if player == "chance":
            return expected(game, node, lambda child: search(child, ply + 1)[0]), None
        best, best_action = (-INF if player == "max" else INF), None
        for action, child in searched_successors(game, node, player):
            value, _ = search(child, ply + 1)
            if better(player, value, best):
                best, best_action = value, action
        return best, best_action

    return search(game.root, 0)


def choose_move(game):
    """The move to play from ``game.root``: iterative deepening alpha-beta.

    Searches to depth 1, 2, 3, ... and keeps the move of the deepest search
    that finished, until the node budget runs out (``TimeUp``) or a search
    reached every end of the game. Below its depth a position is valued by
    the game's evaluation when it is played with one, else as 0; an end of
    the game by its utility times ``DECISIVE``, so that no evaluation (an
    m,n,k-game's ``lines`` runs into the hundreds) outweighs a win.
    """
    actions = game.actions(game.root)
    if len(actions) == 1:
        return actions[0]
    best = actions[0]
    depth = 1
    try:
        while True:
            action, complete = deepening_step(game, depth)
            if action is not None:
                best = action
            if complete:
                return best
            depth += 1
    except TimeUp:
        return best


def deepening_step(game, depth):
    """Alpha-beta to ``depth``: ``(action, complete)``, complete when no position was cut."""
    cut = [False]

    def search(node, ply, alpha, beta):
        if game.is_terminal(node):
            return game.utility(node) * DECISIVE, None
        if ply == depth:
            cut[0] = True
            return (game.evaluate(node) if game.evaluation else 0.0), None
        player = game.player(node)
        if player == "chance":
            return expected(game, node, lambda child: search(child, ply + 1, -INF, INF)[0]), None
        best, best_action = (-INF if player == "max" else INF), None
        for action, child in game.successors(node):
            value, _ = search(child, ply + 1, alpha, beta)
            if better(player, value, best):
                best, best_action = value, action
            if player == "max":
                alpha = max(alpha, best)
            else:
                beta = min(beta, best)
            if alpha >= beta:
                break
        return best, best_action

    _, action = search(game.root, 0, -INF, INF)
    return action, not cut[0]


if __name__ == "__main__":
    run(minimax=minimax, alphabeta=alphabeta, expectimax=expectimax, choose_move=choose_move)
