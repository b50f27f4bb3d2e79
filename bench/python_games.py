#!/usr/bin/env python3
"""A straightforward Python search of an m,n,k-game: the baseline that
bench/games-vs-python.sh times `treegrade solve` on game files against.

Usage: python_games.py WIDTH HEIGHT K GRAVITY ALGORITHM DEPTH [--json]

The board is a list of rows (lists of "x", "o", "."), the top row first;
moves are tried in docs/format.md 7.1's order (reading order, or columns
left to right with gravity), each made on the board and undone after the
recursion, the usual way students write it. ALGORITHM is minimax or
alphabeta (prune on equality); DEPTH is a number or "none", and a depth
cut is valued by the `lines` evaluation. It records the visited order with
7's ids (the actions from the root joined by "-"), because that is what
`treegrade solve` computes too. Prints value, action and the number of
visited nodes; `--json` prints {"value", "action", "visited"} instead.
"""

import json
import math
import sys


def main():
    width, height, k = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    gravity = sys.argv[4] == "true"
    algorithm = sys.argv[5]
    depth = None if sys.argv[6] == "none" else int(sys.argv[6])
    board = [["."] * width for _ in range(height)]
    segments = []
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        for r in range(height):
            for c in range(width):
                er, ec = r + dr * (k - 1), c + dc * (k - 1)
                if 0 <= er < height and 0 <= ec < width:
                    segments.append([(r + dr * i, c + dc * i) for i in range(k)])
    visited = []

    def moves():
        if gravity:
            for c in range(width):
                for r in range(height - 1, -1, -1):
                    if board[r][c] == ".":
                        yield chr(97 + c), r, c
                        break
        else:
            for r in range(height):
                for c in range(width):
                    if board[r][c] == ".":
                        yield chr(97 + c) + str(height - r), r, c

    def wins(r, c, piece):
        for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
            count = 1
            for sign in (1, -1):
                rr, cc = r + sign * dr, c + sign * dc
                while 0 <= rr < height and 0 <= cc < width and board[rr][cc] == piece:
                    count += 1
                    rr, cc = rr + sign * dr, cc + sign * dc
            if count >= k:
                return True
        return False

    def lines():
        total = 0
        for segment in segments:
            xs = sum(1 for r, c in segment if board[r][c] == "x")
            os_ = sum(1 for r, c in segment if board[r][c] == "o")
            if xs and not os_:
                total += 10 ** (xs - 1)
            elif os_ and not xs:
                total -= 10 ** (os_ - 1)
        return float(total)

    def search(node_id, ply, last, alpha, beta, filled):
        visited.append(node_id)
        if last is not None and wins(last[0], last[1], board[last[0]][last[1]]):
            return (1.0 if board[last[0]][last[1]] == "x" else -1.0), None
        if filled == width * height:
            return 0.0, None
        if depth is not None and ply == depth:
            return lines(), None
        maximizing = ply % 2 == 0
        best, best_action = (-math.inf if maximizing else math.inf), None
        for action, r, c in list(moves()):
            board[r][c] = "x" if maximizing else "o"
            child = action if node_id == "root" else node_id + "-" + action
            value, _ = search(child, ply + 1, (r, c), alpha, beta, filled + 1)
            board[r][c] = "."
            if (value > best) if maximizing else (value < best):
                best, best_action = value, action
            if algorithm == "alphabeta":
                if maximizing:
                    if best >= beta:
                        break
                    alpha = max(alpha, best)
                else:
                    if best <= alpha:
                        break
                    beta = min(beta, best)
        return best, best_action

    sys.setrecursionlimit(10000)
    value, action = search("root", 0, None, -math.inf, math.inf, 0)
    if "--json" in sys.argv:
        print(json.dumps({"value": value, "action": action, "visited": visited}))
    else:
        print(value, action, len(visited))


if __name__ == "__main__":
    main()
