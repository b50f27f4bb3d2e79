#!/usr/bin/env python3
"""Game search on real games: minimax, alpha-beta and expectimax.

Write the bodies of the three functions below. Each one receives a ``game``
and returns a pair ``(value, action)``: the value of the root, and the
action of the root's best child (``None`` when the root has no choice: a
terminal, a chance node, or a depth limit of 0).

The trees are real games: tic-tac-toe (q1), connect-four (q2), Pig (q3),
and tic-tac-toe and connect-four again with move ordering (q4). A node is
the path of moves from the root (``"b2-a1"``: X took the centre, then O the
bottom-left corner); you never need to read it. What ``game`` offers::

    game.root                  # the root ("root"), at ply 0
    game.depth                 # the depth limit in plies, or None for no limit
    game.prune_on_equal        # the alpha-beta pruning convention
    game.move_ordering         # "eval" when children go by static value (q4), else None
    game.player(node)          # "max", "min", "chance" or "terminal"
    game.is_terminal(node)     # True when the game is over
    game.utility(node)         # a terminal's value for MAX (X, or Pig's player 0)
    game.successors(node)      # [(action, child), ...] in the game's order
    game.probabilities(node)   # a chance node's probabilities (Pig's die)
    game.evaluate(node)        # the evaluation of a node at the depth limit
    game.static_values(node)   # q4: each child's static value, same order
    game.state(node)           # the position: {"board": [...], "to_move": "x"}, ...
    game.board(node)           # an m,n,k-game's rows, top row first

The grader checks your value, your action and the exact order in which your
search enters nodes (the first time you ask ``game`` about a node). Search
children in the game's order (or, in q4, by static value), depth first, and
enter a node only when your search gets to it. Run ``treegrade check`` in
this folder to test your code; README.md says more.
"""

from treegrade_kit import Game, TimeUp, run  # noqa: F401  (Game: for your type hints; TimeUp: for choose_move)


def minimax(game):
    """Minimax: ``(value, action)`` of the root.

    A terminal is worth ``game.utility(node)``; a node at ply ``game.depth``
    that is not a terminal is worth ``game.evaluate(node)``; a max node the
    greatest child value, a min node the least. On a tie, keep the first
    child. Tic-tac-toe's utility already prefers quicker wins (10 minus the
    ply of the win): you need not count plies for that.
    """
    raise NotImplementedError("TODO: write minimax(game) in search.py")


def alphabeta(game):
    """Alpha-beta: minimax's answer, entering only the nodes it must.

    At a max node, after each child: stop when the value reaches beta
    (``>= beta`` when ``game.prune_on_equal``, else ``> beta``), otherwise
    raise alpha; a min node the other way round. When ``game.move_ordering
    == "eval"``, take the children of a max node in order of
    ``game.static_values(node)`` greatest first (least first at a min node),
    equal values keeping their order (``sorted`` is stable), and return the
    action of the best child in that order.
    """
    raise NotImplementedError("TODO: write alphabeta(game) in search.py")


def expectimax(game):
    """Expectimax: a chance node is worth the sum of p * value over its children.

    Add the terms in the children's order, starting from 0. Pig's roll is a
    chance node with six children, each with probability 1/6.
    """
    raise NotImplementedError("TODO: write expectimax(game) in search.py")


def choose_move(game):
    """For questions that play whole games: the action to play from ``game.root``.

    ``game.root`` is the position to move from; ``game.side`` says whether
    you play ``"max"`` or ``"min"``, and ``game.actions(game.root)`` lists
    the legal moves. Search as you like (no depth limit is set: cut where
    you choose, and value a cut position by ``game.evaluate(node)`` when
    ``game.evaluation`` names one). ``game.budget`` is the number of nodes
    you may enter for this move: past it the kit raises ``TimeUp``; catch it
    and return the best move found so far (iterative deepening keeps the
    move of the last depth that finished).
    """
    raise NotImplementedError("TODO: write choose_move(game) in search.py")


if __name__ == "__main__":
    run(minimax=minimax, alphabeta=alphabeta, expectimax=expectimax, choose_move=choose_move)
