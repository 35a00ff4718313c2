"""The engine: positions as bitboards.

May import: the foundation and ``model``. ``bitboard`` holds the verifier every plan is
replayed by and the symmetry tools; ``kernel`` applies jumps, moves, symmetries and pagodas
to whole arrays of positions in the compiled core (``_core``, C, built with the package);
``dfs`` is the compiled depth-first search and ``reference`` the same searches in plain
Python, the tested reference; ``levels`` is the level-by-level search core shared by the
``moves`` and ``layers`` planners in memory, ``disk`` the one level loop of every search on
disk (over ``spill``'s partition files, on a Dask cluster: ``cluster``).
"""
