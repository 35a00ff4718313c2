"""The encodings: the time-indexed propositional formula of a problem, and DIMACS files.

May import: the foundation, ``model``, ``engine``. Imports no solver: python-sat is used for
its variable pool, cardinality encoders and CNF writer only, and only when a formula is built.
"""
