"""toytree: the lab's small game trees, written for treegrade.

``ToyTree`` (a labelled, scored node with children, built with ``sub``,
``down``, ``right``, ``up``, ``top``), ``create_toy_tree``,
``wrapper_toytree`` and the four ``toytree_*`` rule functions, with the
behaviour of MIT 6.034's ``toytree``. The lab's named trees (``GAME1``,
``GAME_STATIC_ALL_LEVELS``, ``GAME_EQUALITY_PRUNING``) come from the
course's fixtures (``_fixtures``), as games over ``ToyTree``s.
"""

from copy import deepcopy

import _fixtures
from game_api import AbstractGameState


class ToyTree(object):
    """A node of a toy game tree: ``label``, ``score`` and ``children``."""

    def __init__(self, label=None, score=None):
        self.score = score
        self.label = label
        self.children = []
        self.zipper = []  # the path of ancestors that down()/right() walked
        self.sibling_index = None  # how many left siblings this node has
        self.sibling = None

    def __eq__(self, other):
        return is_toytree(other) and [self.score, self.label, self.children, self.zipper] == [
            other.score,
            other.label,
            other.children,
            other.zipper,
        ]

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = None

    def __str__(self, tab=0):
        name = (self.label or "node") + ("(%s)" % (self.score,) if self.score is not None else "")
        text = "-" * 3 * tab + " " * (tab > 0) + name + "\n"
        return text + "".join(child.__str__(tab + 1) for child in self.children)

    def copy(self):
        return deepcopy(self)

    def describe_previous_move(self):
        return "Took branch %s" % self.sibling_index if self.sibling_index is not None else "[none]"

    def get_score(self):
        return self.score

    def set_score(self, score):
        self.score = score
        return self

    def append(self, child):
        child.zipper = []
        child.sibling_index = len(self.children)
        self.children.append(child)
        if len(self.children) > 1:
            self.children[-2].sibling = child
        return self

    def sub(self, label=None, value=None):
        return self.append(ToyTree(label, value))

    def is_leaf(self):
        return not self.children

    def down(self):
        child = self.children[0]
        child.zipper = self.zipper + [self]
        return child

    def up(self):
        parent = self.zipper[-1]
        parent.zipper = self.zipper[:-1]
        return parent

    def right(self):
        assert self.sibling
        self.sibling.zipper = self.zipper
        return self.sibling

    def top(self):
        return self.zipper[0] if self.zipper else self


def is_toytree(value):
    return hasattr(value, "__class__") and value.__class__.__name__ == "ToyTree"


def create_toy_tree(name_to_score, nested_list):
    """A tree from ``{name: score}`` and ``[name, [subtree, ...]]`` (a missing score is 0)."""
    label, sublists = nested_list
    root = ToyTree(label, name_to_score.get(label, 0))
    for sublist in sublists:
        root.append(create_toy_tree(name_to_score, sublist))
    return root


def toytree_is_game_over(tree):
    return tree.children == []


def toytree_generate_next_states(tree):
    return tree.children


def toytree_endgame_score_fn(tree, is_current_player_maximizer):
    return tree.score


def toytree_heuristic_fn(tree, is_current_player_maximizer):
    return tree.score


def wrapper_toytree(score_dict, nested_list):
    return AbstractGameState(
        create_toy_tree(score_dict, nested_list),
        toytree_is_game_over,
        toytree_generate_next_states,
        toytree_endgame_score_fn,
    )


def tree_from_json(data):
    """A ``ToyTree`` from the fixtures' JSON form."""
    tree = ToyTree(data.get("label"), data.get("score"))
    for child in data.get("children") or []:
        tree.append(tree_from_json(child))
    return tree


def __getattr__(name):
    """The lab's named games, from the course's fixtures (Python 3.7+)."""
    data = _fixtures.raw("trees", name)
    if data is None:
        if name.startswith("_"):
            raise AttributeError(name)
        return _fixtures.Missing("toytree", name)
    game = AbstractGameState(
        tree_from_json(data), toytree_is_game_over, toytree_generate_next_states, toytree_endgame_score_fn
    )
    globals()[name] = game
    return game
