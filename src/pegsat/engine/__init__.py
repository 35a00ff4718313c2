"""The engine: positions as bitboards.

May import: the foundation and ``model``. ``bitboard`` holds the verifier every plan is
replayed by and the symmetry tools; ``vector`` applies jumps, moves and symmetries to whole
arrays of positions; ``levels`` is the level-by-level search core shared by the ``moves`` and
``layers`` planners.
"""
