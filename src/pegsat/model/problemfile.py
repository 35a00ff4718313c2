"""Problems from TOML files.

A problem file (``instances/*.toml``)::

    name = "English central game"
    board = "english"          # catalogue name, or a board file relative to this file
    [start]                    # one of: vacant = [...], pegs = [...], drawing = '''...'''
    vacant = ["d4"]            # default: the board's centre (else its first hole)
    [goal]                     # one of the forms below; default: one peg anywhere
    survivor = "d4"            # one peg, on this hole
    # pegs = 1                 # this many pegs, anywhere
    # at_most = 3              # at most this many pegs
    # pattern = ["d4", "e4"]   # exactly these holes (or drawing = '''...''')
    # full = ["g4"]            # partial: these full, these empty, the rest free
    # empty = []
    # special = "7"            # top level: the peg starting here must be the survivor

An ``[expect]`` table may record what is known (status, survivors, plans); the loader
ignores it and the regression tests read it. Command-line options override the file's
tables group by group (a ``--survivor`` replaces the whole ``[goal]``).

Drawings list every hole in reading order, ``o`` (or ``* x @ O``) for a peg and ``.`` for
an empty hole, in the board's own layout or as ``pegsat show`` prints it.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import PegsatError, ProblemError
from ..files import parse_toml, read_text
from .boardfile import load_board
from .options import ProblemOptions
from .problem import Problem

TOP_KEYS = ("name", "board", "start", "goal", "special", "expect")


def read_problem_file(path: Path, overrides: ProblemOptions | None = None) -> Problem:
    """A problem from a TOML file, with ``overrides`` replacing its tables group by group."""
    text = read_text(path, "problem file", ProblemError)
    data = parse_toml(text, f"{path}", ProblemError)
    unknown = sorted(set(data) - set(TOP_KEYS))
    if unknown:
        raise ProblemError(f"{path}: unknown key(s) {unknown}; a problem file has {list(TOP_KEYS)}")
    board_spec = data.get("board")
    if not isinstance(board_spec, str):
        raise ProblemError(f"{path}: 'board' must name a catalogue board or a board file")
    if (path.parent / board_spec).is_file():
        board_spec = str(path.parent / board_spec)
    name = data.get("name", path.stem)
    if not isinstance(name, str):
        raise ProblemError(f"{path}: 'name' must be a string")
    try:
        options = ProblemOptions.from_tables(data, str(path))
        if overrides is not None:
            options = options.overridden_by(overrides)
        return options.pose(load_board(board_spec), name=name)
    except PegsatError as exc:
        msg = str(exc)
        raise type(exc)(msg if msg.startswith(str(path)) else f"{path}: {msg}") from None
