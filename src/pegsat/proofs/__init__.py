"""Proofs: the cheap proofs tried first, certificates anyone can check, and ``prove``.

May import: everything below ``apps`` (the exhaustive proof runs the ``layers`` planner, the
SAT proof the ``sat`` planner's solver process). A certificate is checked from its own
contents; nothing it says about itself is taken on trust.
"""
