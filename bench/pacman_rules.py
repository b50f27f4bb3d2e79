"""Differential check of treegrade's Pacman against CS188's own Python.

    python3 bench/pacman_rules.py CS188_MULTIAGENT_DIR [GAMES] [SEED]

Plays GAMES seeded games (default 300) with CS188's own `pacman.py`,
`game.py`, `ghostAgents.py` and `layout.py`, on every layout of the
distribution's `layouts/` folder, with RandomGhosts and DirectionalGhosts
in varying numbers, and ghosts drawing from Python's global `random` either
seeded once per game (as CS188's evaluation tests do) or reseeded after
every Pacman move (as its game tests do). Pacman moves at random (his own
`random.Random`, so that his draws leave the ghosts' stream alone), leaning
towards capsules, scared ghosts and food so that every rule comes up.

At every state along each game it records the state (positions as Python
holds them, int or float; directions; scared timers; food; capsules;
score; win; lose), every agent's legal actions, the successor for every
legal action of every agent, each ghost's distribution and its draw. Then
it runs `cargo run --release --example pacman_trace` on the record, which
replays the same Pacman moves with treegrade's rules and ghosts and compares
everything, and prints the figures.
"""

import json
import os
import random
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def state_record(state):
    data = state.data
    return {
        "agents": [
            [list(a.configuration.pos), a.configuration.direction, a.scaredTimer] for a in data.agentStates
        ],
        "food": [list(cell) for cell in data.food.asList()],
        "capsules": [list(cell) for cell in data.capsules],
        "score": data.score,
        "win": data._win,
        "lose": data._lose,
    }


def successors(state):
    """Every agent's legal actions and the successor of each (or the error CS188 raises)."""
    out = []
    for agent in range(state.getNumAgents()):
        legal = state.getLegalActions(agent)
        moves = {}
        for action in legal:
            moves[action] = state_record(state.generateSuccessor(agent, action))
        out.append({"legal": legal, "successors": moves})
    return out


def pacman_move(state, own, cs188):
    """A random legal move, or half the time a step towards capsules and scared ghosts, else food."""
    legal = state.getLegalActions(0)
    if own.random() < 0.5:
        targets = list(state.getCapsules()) + [
            g.getPosition() for g in state.getGhostStates() if g.scaredTimer > 0
        ]
        targets = targets or state.getFood().asList()
        if targets:
            def distance(action):
                x, y = cs188.Actions.getSuccessor(state.getPacmanPosition(), action)
                return min(abs(x - tx) + abs(y - ty) for tx, ty in targets)

            return min(legal, key=distance)
    return own.choice(legal)


def play(cs188, layout_name, ghost_kinds, seeding, seed, max_moves):
    lay = cs188.layout.getLayout(layout_name)
    ghosts = [getattr(cs188.ghostAgents, kind)(i + 1) for i, kind in enumerate(ghost_kinds)]
    state = cs188.pacman.GameState()
    state.initialize(lay, len(ghosts))
    agents = state.getNumAgents()
    own = random.Random(seed * 7919 + 1)
    random.seed(seed)
    record = {
        "layout": "\n".join(lay.layoutText),
        "ghosts": ghost_kinds[: agents - 1],
        "seeding": seeding,
        "seed": seed,
        "frames": [],
    }
    frames = record["frames"]
    moves = 0
    agent = 0
    while not (state.isWin() or state.isLose()) and moves < max_moves:
        frame = {"agent": agent, "state": state_record(state), "moves": successors(state)}
        if agent == 0:
            action = pacman_move(state, own, cs188)
            moves += 1
        else:
            ghost = ghosts[agent - 1]
            frame["distribution"] = [[k, v] for k, v in ghost.getDistribution(state).items()]
            action = ghost.getAction(state)
        frame["action"] = action
        frames.append(frame)
        state = state.generateSuccessor(agent, action)
        if agent == 0 and seeding == "per-move":
            random.seed(seed + moves)
        agent = (agent + 1) % agents
    frames.append({"agent": agent, "state": state_record(state), "moves": successors(state)})
    return record


def coverage(records):
    """How often the rules a re-implementation could get wrong came up along the games."""
    frames = [frame for record in records for frame in record["frames"]]
    states = [frame["state"] for frame in frames]
    scared = sum(1 for s in states if any(agent[2] > 0 for agent in s["agents"][1:]))
    halves = sum(1 for s in states if any(isinstance(agent[0][0], float) and agent[0][0] % 1 for agent in s["agents"]))
    ends = [record["frames"][-1]["state"] for record in records]
    eaten = 0
    for record in records:
        for before, after in zip(record["frames"], record["frames"][1:]):
            if after["state"]["score"] - before["state"]["score"] in (199, 200, 209):
                eaten += 1
    return (
        "CS188 played %d games (%d states): %d with a scared ghost, %d with a ghost between cells, "
        "%d ghosts eaten, %d won, %d lost, %d stopped after 150 Pacman moves"
        % (
            len(records),
            len(states),
            scared,
            halves,
            eaten,
            sum(1 for s in ends if s["win"]),
            sum(1 for s in ends if s["lose"]),
            sum(1 for s in ends if not s["win"] and not s["lose"]),
        )
    )


class CS188(object):
    def __init__(self, folder):
        sys.path.insert(0, folder)
        os.chdir(folder)
        import game
        import ghostAgents
        import layout
        import pacman

        self.layout, self.ghostAgents, self.pacman, self.Actions = layout, ghostAgents, pacman, game.Actions


def main():
    folder = os.path.abspath(sys.argv[1])
    games = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    first_seed = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    cs188 = CS188(folder)
    layouts = sorted(name[:-4] for name in os.listdir(os.path.join(folder, "layouts")) if name.endswith(".lay"))
    chooser = random.Random(first_seed)
    records = []
    for g in range(games):
        name = layouts[g % len(layouts)]
        count = chooser.randint(1, 4)
        kinds = [chooser.choice(["RandomGhost", "DirectionalGhost"]) for _ in range(count)]
        seeding = "per-move" if g % 2 else "once"
        records.append(play(cs188, name, kinds, seeding, first_seed + g, 150))
    print(coverage(records))
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(records, handle)
        path = handle.name
    try:
        command = ["cargo", "run", "--quiet", "--release", "--example", "pacman_trace", "--", path]
        done = subprocess.run(command, cwd=ROOT)
    finally:
        os.unlink(path)
    sys.exit(done.returncode)


if __name__ == "__main__":
    main()
