"""The lab's named fixtures (``GAME1``, ``BOARD_EMPTY``, ...), where a course provides them.

A student's file imports names from ``toytree`` and ``boards`` (``from
toytree import GAME1``, ``from boards import *``). The kit does not carry
the lab's data: a course made by ``treegrade import mit6034`` writes it, as
JSON read from the lab's own files, and the language entry names that file
in ``TREEGRADE_MIT6034_FIXTURES``, or gives the JSON itself there (the
sandboxed program sees only its own folder and the kits). Without it, or for a name it does not
have, the name still imports (so the student's file loads) and using it
says what is missing.

The file is ``{"trees": {NAME: TREE}, "boards": {NAME: BOARD}}``: a tree is
``{"label": ..., "score": ..., "children": [TREE, ...]}``, a board
``{"rows": [[0, 1, 2, ...], ...], "players": [to move, other],
"prev_move": "..."}``.
"""

import json
import os

_ENV = "TREEGRADE_MIT6034_FIXTURES"
_loaded = None


def _data():
    global _loaded
    if _loaded is None:
        _loaded = {"trees": {}, "boards": {}}
        value = os.environ.get(_ENV) or ""
        data = None
        if value.lstrip().startswith("{"):  # the JSON itself: a sandboxed program sees no course folder
            data = json.loads(value)
        elif value and os.path.isfile(value):
            with open(value, encoding="utf-8") as source:
                data = json.load(source)
        if isinstance(data, dict):
            _loaded.update((key, value) for key, value in data.items() if isinstance(value, dict))
    return _loaded


def names(kind):
    """The names of the fixtures of this kind (``trees`` or ``boards``) the course provides."""
    return sorted(_data()[kind])


def raw(kind, name):
    """The JSON of one fixture, or None."""
    return _data()[kind].get(name)


class Missing(object):
    """Stands for a fixture the course did not provide: any use of it says so."""

    def __init__(self, module, name):
        object.__setattr__(self, "_what", "%s.%s" % (module, name))

    def _fail(self, *args, **kwargs):
        raise NameError(
            "%s is one of the lab's fixtures, which this course did not provide to treegrade; "
            "your functions should work on the states they are given" % self._what
        )

    __getattr__ = __call__ = __iter__ = __len__ = __eq__ = __str__ = _fail

    def __repr__(self):
        return "<%s (not provided)>" % self._what

    __hash__ = object.__hash__
