#!/usr/bin/env python3
"""A straightforward Python alpha-beta over a treegrade YAML tree: the baseline
that bench/solve-vs-python.sh times `treegrade solve` against.

Usage: python_baseline.py FILE [--json] [--timings]

Reads the file with PyYAML's libyaml loader (`yaml.load(f, Loader=yaml.CLoader)`)
and runs the textbook recursive alpha-beta of docs/format.md section 3.2 on the
resulting dicts and lists, with the file's `search: {prune_on_equal}` (default
true). It records the visited order as docs/format.md 3.4 defines it (inline leaves
are `PARENT.K`), because that is what `treegrade solve` computes too, and the
chosen action of 3.3. Prints the value, the action and the number of visited
nodes; `--json` prints {"value", "action", "visited"} with the whole visited
list instead; `--timings` adds load and search times on stderr. No depth limit.
"""

import json
import math
import sys
import time

import yaml

NUMBER = (int, float)


def child_list(node_id, spec):
    """(kind, [(child id, action, child spec)], probs) of an internal node."""
    for kind in ("max", "min", "chance"):
        if kind in spec:
            entries = spec[kind]
            break
    else:
        raise ValueError(f"node {node_id} has no kind")
    children = []
    for k, entry in enumerate(entries, 1):
        if isinstance(entry, dict):
            ((action, target),) = entry.items()
            action = str(action)
        else:
            action, target = None, entry
        if isinstance(target, NUMBER) and not isinstance(target, bool):
            child_id, child_spec = f"{node_id}.{k}", target
        else:
            child_id = str(target)
            child_spec = NODES[child_id]
        children.append((child_id, action if action is not None else child_id, child_spec))
    return kind, children, spec.get("probs")


def alphabeta(node_id, spec, alpha, beta, root=False):
    VISITED.append(node_id)
    if isinstance(spec, NUMBER):
        return spec
    if "value" in spec:
        return spec["value"]
    kind, children, probs = child_list(node_id, spec)
    if kind == "max":
        v = -math.inf
        for child_id, action, child_spec in children:
            child_value = alphabeta(child_id, child_spec, alpha, beta)
            if child_value > v:
                v = child_value
                if root:
                    BEST[0] = action
            if v >= beta if PRUNE_ON_EQUAL else v > beta:
                break
            alpha = max(alpha, v)
        return v
    if kind == "min":
        v = math.inf
        for child_id, action, child_spec in children:
            child_value = alphabeta(child_id, child_spec, alpha, beta)
            if child_value < v:
                v = child_value
                if root:
                    BEST[0] = action
            if v <= alpha if PRUNE_ON_EQUAL else v < alpha:
                break
            beta = min(beta, v)
        return v
    acc = 0.0
    for i, (child_id, _, child_spec) in enumerate(children):
        p = probs[i] if probs is not None else 1.0 / len(children)
        acc = acc + p * alphabeta(child_id, child_spec, -math.inf, math.inf)
    return acc


def main(argv):
    global NODES, VISITED, BEST, PRUNE_ON_EQUAL
    path = argv[0]
    started = time.perf_counter()
    with open(path, "rb") as f:
        doc = yaml.load(f, Loader=yaml.CLoader)
    loaded = time.perf_counter()
    NODES = {str(k): v for k, v in doc["nodes"].items()}
    PRUNE_ON_EQUAL = (doc.get("search") or {}).get("prune_on_equal", True)
    VISITED, BEST = [], [None]
    sys.setrecursionlimit(max(10000, 4 * len(NODES) + 100))
    root = str(doc["root"])
    value = float(alphabeta(root, NODES[root], -math.inf, math.inf, root=True))
    searched = time.perf_counter()
    if "--json" in argv:
        print(json.dumps({"value": value, "action": BEST[0], "visited": VISITED}))
    else:
        print(f"value {value}\naction {BEST[0]}\nvisited {len(VISITED)}")
    if "--timings" in argv:
        print(f"load {loaded - started:.3f} s, search {searched - loaded:.3f} s", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
