"""pegsat: peg solitaire by SAT, constraint programming and search.

The package is layered; a module imports only from its own layer and the layers above it in
this list (``tests/test_architecture.py`` fails on a back-edge):

=============  ==========================================================================
foundation     ``errors``, ``deadline``, ``files``, ``process``: no pegsat imports
``model``      boards, problems, problem files and options, the Problem codec, results
``engine``     bitboards: the verifier, symmetry, bulk level operations, the level search
``analysis``   invariants, pagoda functions, Merson regions: the mathematics of proofs
``formats``    plan notations, PDDL, text and SVG pictures
``encoding``   the time-indexed SAT formula and DIMACS files (imports no solver)
``planners``   one module per backend, registered once by name
``proofs``     cheap proofs, certificates and ``prove``
``apps``       posing problems, the solve pipeline, surveys, batches on Dask
``cli``        the command line: parses, calls ``apps``/``proofs``, prints
=============  ==========================================================================
"""
