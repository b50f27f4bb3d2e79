#!/usr/bin/env python3
"""Reference solutions of the more-searches assignment (assignments/more-searches).

Three searches beyond minimax, alpha-beta and expectimax, exactly as
docs/format.md section 8 defines them:

* ``iterative_deepening``: alpha-beta at depth 1, 2, ..., ``game.depth``,
  the previous iteration's choice searched first at the root, on a budget of
  node entries (``game.budget``); the answer of the last complete iteration;
* ``maxn``: every player maximises its own component of a utility vector;
* ``mcts``: UCT whose every random number is ``game.random()``;
* ``alphabeta``: alpha-beta with forward pruning (section 8.5): only the
  ``game.forward_pruning`` best children by static value searched.

Run it through the grader (``treegrade check --assignment
assignments/more-searches --submission reference/more-searches/python``).
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


# -- iterative deepening (8.2) ---------------------------------------------------


def alphabeta_to(game, limit, first):
    """Alpha-beta with depth limit ``limit``, root child ``first`` searched first.

    Returns ``(value, action, cut)``: ``cut`` says whether a non-terminal node
    was valued at the depth limit (else the iteration saw the whole tree).
    """
    cut = [False]

    def value(node, ply, alpha, beta):
        if game.is_terminal(node):
            return game.utility(node), None
        if ply == limit:
            cut[0] = True
            return game.evaluate(node), None
        player = game.player(node)
        pairs = game.successors(node)
        if ply == 0 and first is not None:
            pairs = [pair for pair in pairs if pair[0] == first] + [pair for pair in pairs if pair[0] != first]
        if player == "chance":
            total = 0.0
            for p, (_, child) in zip(game.probabilities(node), game.successors(node)):
                total = total + p * value(child, ply + 1, -INF, INF)[0]
            return total, None
        best, best_action = (-INF if player == "max" else INF), None
        for action, child in pairs:
            v, _ = value(child, ply + 1, alpha, beta)
            if player == "max":
                if v > best:
                    best, best_action = v, action
                if best >= beta if game.prune_on_equal else best > beta:
                    break
                alpha = max(alpha, best)
            else:
                if v < best:
                    best, best_action = v, action
                if best <= alpha if game.prune_on_equal else best < alpha:
                    break
                beta = min(beta, best)
        return best, best_action

    v, action = value(game.root, 0, -INF, INF)
    return v, action, cut[0]


def iterative_deepening(game):
    answer = None
    for depth in range(1, game.depth + 1):
        try:
            game.start_iteration(depth)
            value, action, cut = alphabeta_to(game, depth, answer[1] if answer else None)
        except TimeUp:
            break
        answer = (value, action)
        if not cut:
            break  # this iteration saw the whole tree
    return answer


# -- max^n (8.3) -------------------------------------------------------------------


def maxn(game):
    def value(node, ply):
        if game.is_terminal(node):
            return game.utility(node), None
        if game.depth is not None and ply == game.depth:
            return game.evaluate(node), None
        player = game.player(node)
        if player == "chance":
            total = [0.0] * game.players
            for p, child in zip(game.probabilities(node), game.children(node)):
                vector = value(child, ply + 1)[0]
                total = [t + p * v for t, v in zip(total, vector)]
            return total, None
        best, best_action = None, None
        for action, child in game.successors(node):
            vector = value(child, ply + 1)[0]
            if best is None or vector[player - 1] > best[player - 1]:
                best, best_action = vector, action
        return best, best_action

    return value(game.root, 0)


# -- Monte Carlo tree search (8.4) --------------------------------------------------


def mcts(game):
    counts = {}  # node -> [n, w]
    depth = game.depth

    def stops(node, ply):
        return game.is_terminal(node) or (depth is not None and ply == depth)

    def by_chance(node):
        r = game.random()
        total = 0.0
        children = game.children(node)
        for p, child in zip(game.probabilities(node), children):
            total += p
            if r < total:
                return child
        return children[-1]

    def n_of(node):
        return counts.get(node, (0, 0.0))[0]

    for _ in range(game.iterations):
        node, ply, path = game.root, 0, [game.root]
        while not stops(node, ply):
            if game.player(node) == "chance":
                node = by_chance(node)
                ply += 1
                path.append(node)
                if n_of(node) == 0:
                    break
                continue
            children = game.children(node)
            fresh = [child for child in children if n_of(child) == 0]
            if fresh:
                node = fresh[0]
                ply += 1
                path.append(node)
                break
            sign = 1.0 if game.player(node) == "max" else -1.0
            log_n = math.log(counts[node][0])
            best, best_ucb = None, -INF
            for child in children:
                n, w = counts[child]
                ucb = sign * (w / n) + game.exploration * math.sqrt(log_n / n)
                if ucb > best_ucb:
                    best, best_ucb = child, ucb
            node = best
            ply += 1
            path.append(node)
        while True:  # the rollout, from where selection stopped
            if game.is_terminal(node):
                reward = game.utility(node)
                break
            if depth is not None and ply == depth:
                reward = game.evaluate(node)
                break
            if game.player(node) == "chance":
                node = by_chance(node)
            else:
                children = game.children(node)
                node = children[int(game.random() * len(children))]
            ply += 1
        for visited in path:
            entry = counts.setdefault(visited, [0, 0.0])
            entry[0] += 1
            entry[1] += reward
    root_n, root_w = counts[game.root]
    action = None
    children = [] if stops(game.root, 0) else game.successors(game.root)
    pairs = [tuple(counts.get(child, (0, 0.0))) for _, child in children]
    if children and game.player(game.root) != "chance":
        most = max(n for n, _ in pairs)
        action = next(a for (a, _), (n, _) in zip(children, pairs) if n == most)
    return root_w / root_n, action, pairs


# -- forward pruning (8.5) -------------------------------------------------------


def searched(game, node, ply):
    """``node``'s ``(action, child)`` pairs in the order alpha-beta searches them.

    At a max or min node above the depth limit under forward pruning: by static
    value, best for the mover first (a stable sort keeps equal values in
    order), and only the first ``game.forward_pruning``.
    """
    pairs = game.successors(node)
    kind = game.player(node)
    above = game.depth is None or ply < game.depth
    if kind in ("max", "min") and above and game.move_ordering == "eval":
        values = game.static_values(node)
        order = sorted(range(len(pairs)), key=lambda i: values[i], reverse=kind == "max")
        pairs = [pairs[i] for i in order]
        if game.forward_pruning is not None:
            pairs = pairs[: game.forward_pruning]
    return pairs


def alphabeta(game):
    """Alpha-beta with forward pruning: only the N best children searched."""

    def value(node, ply, alpha, beta):
        kind = game.player(node)
        if kind == "terminal":
            return game.utility(node), None
        if game.depth is not None and ply == game.depth:
            return game.evaluate(node), None
        pairs = searched(game, node, ply)
        if kind == "chance":
            total = 0.0
            for p, (_, child) in zip(game.probabilities(node), pairs):
                total += p * value(child, ply + 1, -INF, INF)[0]
            return total, None
        best, best_action = (-INF if kind == "max" else INF), None
        for action, child in pairs:
            v = value(child, ply + 1, alpha, beta)[0]
            if kind == "max":
                if v > best:
                    best, best_action = v, action
                if (best >= beta) if game.prune_on_equal else (best > beta):
                    break
                alpha = max(alpha, best)
            else:
                if v < best:
                    best, best_action = v, action
                if (best <= alpha) if game.prune_on_equal else (best < alpha):
                    break
                beta = min(beta, best)
        return best, best_action

    return value(game.root, 0, -INF, INF)


if __name__ == "__main__":
    run(alphabeta=alphabeta, iterative_deepening=iterative_deepening, maxn=maxn, mcts=mcts)
