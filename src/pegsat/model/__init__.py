"""The model: boards, problems, the files and options that pose them, results.

May import: the foundation (``errors``, ``deadline``, ``files``, ``process``). Nothing here
searches or solves: a ``Board`` is holes and lines, a ``Problem`` a start and a goal on one,
a ``Result`` what a planner or a proof says about it.
"""
