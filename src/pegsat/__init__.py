"""pegsat: peg solitaire by SAT, constraint programming and search.

The library's functions and types (``pegsat.api``) are reached from here and loaded on first
use, so that ``import pegsat`` and ``pegsat --help`` stay instant::

    >>> import pegsat
    >>> pegsat.solve(pegsat.problem("english")).status.value
    'solved'

The package is layered; a module imports only from its own layer and the layers above it in
this list (``tests/test_architecture.py`` fails on a back-edge):

=============  ==========================================================================
foundation     ``errors``, ``deadline``, ``files``, ``process``, ``limits``, ``sealed``,
               ``progress``
``model``      boards, problems, problem files and options, the Problem codec, results
``engine``     bitboards: the verifier, symmetry, bulk level operations, the level search
``analysis``   invariants, pagoda functions, Merson regions: the mathematics of proofs
``formats``    plan notations, PDDL, text and SVG pictures
``encoding``   the time-indexed SAT formula and DIMACS files (imports no solver)
``planners``   one module per backend, registered once by name
``checks``     the independent checker: the certificate format, one registry of kinds, one
               module a kind, one ``Verdict``; no search code
``proofs``     what makes certificates: cheap proofs, dead sets and ``prove``
``apps``       posing problems, the solve pipeline, surveys, batches on Dask
``api``        the library's functions (``import pegsat``), and its pictures in Jupyter
``cli``        the command line: parses, calls ``apps``/``proofs``/``checks``, prints
=============  ==========================================================================
"""

from typing import Any

__all__ = ["Board", "Hints", "Position", "Problem", "Result", "Status", "board", "check", "count", "hint",
           "position", "problem", "prove", "solve", "survey", "verify"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module 'pegsat' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
