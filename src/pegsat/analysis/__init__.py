"""The mathematics behind the proofs: position classes, pagoda functions, Merson regions.

May import: the foundation, ``model`` and ``engine``. Each module finds an argument (a
weighting, a region family) and checks one exactly; the planners prune with them and
``proofs`` turns them into certificates.
"""
