#!/usr/bin/env python3
"""Write a uniform game tree in the treegrade YAML format (docs/format.md section 1).

Usage: gen_uniform.py BRANCHING DEPTH SEED OUTPUT [--chance-every K]

The tree has every internal node with BRANCHING children and its leaves at ply
DEPTH, so it holds (B**(DEPTH+1) - 1) / (B - 1) nodes (4 and 10: 1,398,101).
Internal nodes are numbered breadth-first, `n0` (the root) to `n{I-1}`; the
children of `nK` are `n{B*K+1}` .. `n{B*K+B}`. The last internal layer lists
its leaves inline, e.g. `n123: {min: [3, -7, 12, 0]}`. Layers alternate max
(even plies) and min (odd plies); with `--chance-every K`, every ply P with
P % K == K - 1 is a chance layer instead (uniform probabilities). Leaf
utilities are integers in -1000..1000 drawn from splitmix64(SEED) in file
order, so the output is byte-for-byte deterministic; benches/engine.rs
generates the same text.

Standard library only.
"""

import argparse
import sys

MASK = (1 << 64) - 1


def splitmix64(state):
    """Returns (next state, output) of splitmix64."""
    state = (state + 0x9E3779B97F4A7C15) & MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return state, z ^ (z >> 31)


def kind_of(ply, chance_every):
    if chance_every and ply % chance_every == chance_every - 1:
        return "chance"
    return "max" if ply % 2 == 0 else "min"


def generate(branching, depth, seed, out, chance_every=0):
    if branching < 1 or depth < 1:
        raise ValueError("branching and depth must be at least 1")
    suffix = f"-chance{chance_every}" if chance_every else ""
    out.write(f"name: uniform-b{branching}-d{depth}{suffix}\n")
    out.write(
        f"description: uniform tree, branching {branching}, depth {depth}, seed {seed}"
        f"{f', chance on plies P with P % {chance_every} == {chance_every - 1}' if chance_every else ''}\n"
    )
    out.write("root: n0\nnodes:\n")
    state = seed & MASK
    first = 0  # id of the first node on the current ply
    width = 1
    lines = []
    for ply in range(depth):
        kind = kind_of(ply, chance_every)
        last_ply = ply == depth - 1
        for node in range(first, first + width):
            if last_ply:
                values = []
                for _ in range(branching):
                    state, z = splitmix64(state)
                    values.append(str(z % 2001 - 1000))
                children = ", ".join(values)
            else:
                base = branching * node
                children = ", ".join(f"n{base + k}" for k in range(1, branching + 1))
            lines.append(f"  n{node}: {{{kind}: [{children}]}}\n")
            if len(lines) >= 65536:
                out.write("".join(lines))
                lines.clear()
        first += width
        width *= branching
    out.write("".join(lines))


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("branching", type=int)
    parser.add_argument("depth", type=int)
    parser.add_argument("seed", type=int)
    parser.add_argument("output", help="output path, or - for stdout")
    parser.add_argument("--chance-every", type=int, default=0, metavar="K", help="make every K-th ply a chance layer")
    args = parser.parse_args(argv)
    if args.output == "-":
        generate(args.branching, args.depth, args.seed, sys.stdout, args.chance_every)
    else:
        with open(args.output, "w", encoding="utf-8", newline="\n") as out:
            generate(args.branching, args.depth, args.seed, out, args.chance_every)


if __name__ == "__main__":
    main(sys.argv[1:])
