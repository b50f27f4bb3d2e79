#!/usr/bin/env python3
"""Nim as a treegrade rules program (docs/rules-protocol.md).

A position is {"heaps": [3, 4, 5], "to_move": 0}. A move takes one or more
objects from one heap; the player who takes the last object wins (normal
play). Player 0 is MAX, player 1 MIN; the utility is 1 when player 0 wins,
-1 when player 1 does. The evaluation `nim-sum` says who wins with perfect
play: a position whose heaps XOR to 0 is lost for the player to move.

Parameters (beside `program:` in a tree file): `heaps`, the start position's
heaps (default [1, 2, 3]). treegrade asks one question per line on standard
input and reads one JSON answer per line on standard output.
"""

import json
import sys
from functools import reduce


def kind(position):
    if not any(position["heaps"]):
        return "terminal"
    return "max" if position["to_move"] == 0 else "min"


def moves(position):
    out = []
    for index, heap in enumerate(position["heaps"]):
        for take in range(1, heap + 1):
            heaps = list(position["heaps"])
            heaps[index] -= take
            out.append({
                "action": "heap%d:%d" % (index + 1, take),
                "position": {"heaps": heaps, "to_move": 1 - position["to_move"]},
            })
    return out


def utility(position):
    # The player who took the last object moved just before: the other one is "to move".
    return 1 if position["to_move"] == 1 else -1


def nim_sum(position):
    winning_for_mover = reduce(lambda a, b: a ^ b, position["heaps"], 0) != 0
    mover_is_max = position["to_move"] == 0
    return 1.0 if winning_for_mover == mover_is_max else -1.0


def check(position):
    heaps = position.get("heaps") if isinstance(position, dict) else None
    if not isinstance(heaps, list) or not all(isinstance(h, int) and h >= 0 for h in heaps):
        return "heaps must be a list of whole numbers from 0"
    if position.get("to_move") not in (0, 1):
        return "to_move must be 0 or 1"
    return None


def answer(request, params):
    kind_of = request["type"]
    if kind_of == "hello":
        params.update(request.get("params", {}))
        return {"type": "hello", "protocol": 1, "name": "nim", "evaluations": ["nim-sum"]}
    if kind_of == "start":
        return {"type": "position", "position": {"heaps": params.get("heaps", [1, 2, 3]), "to_move": 0}}
    position = request.get("position")
    if kind_of == "check":
        problem = check(position)
        return {"type": "ok"} if problem is None else {"type": "invalid", "message": problem}
    if kind_of == "kind":
        return {"type": "kind", "kind": kind(position)}
    if kind_of == "moves":
        return {"type": "moves", "moves": moves(position)}
    if kind_of == "utility":
        return {"type": "value", "value": utility(position)}
    if kind_of == "evaluate":
        return {"type": "value", "value": nim_sum(position)}
    return {"type": "error", "message": "unknown request %r" % kind_of}


def main():
    params = {}
    for line in sys.stdin:
        request = json.loads(line)
        if request.get("type") == "bye":
            break
        sys.stdout.write(json.dumps(answer(request, params)) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
