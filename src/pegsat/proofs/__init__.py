"""Proofs: what makes certificates: the cheap proofs tried first, dead sets, and ``prove``.

May import: everything below ``apps``, the checker (``checks``) included: every certificate
made here is checked by it before it is kept (the exhaustive proof runs the ``layers``
planner, the SAT proof the ``sat`` planner's solver process).
"""
