"""The independent checker: every certificate kind's check, sharing no search code.

``certificate`` holds the format and the one registry of kinds (``KINDS``: kind -> its
checker, the modules that write it, the files it names); each kind is checked in its own
module (``simple``, ``sat``, ``exhaustive``, ``deadset``, ``levels``, ``moves``,
``wrappers``); every check answers with a ``verdict.Verdict``. The shared kit: ``closure``
(least images, exclusion by pagodas, the set operations), ``kit`` (partitions, buckets, the
journal, the step loop), ``positions`` (files of positions), ``evidence`` (the files a
certificate names, the check's context); the hot loops in C (``_check.c``, a source of its
own), with numpy's the reference the tests hold them to.

May import: everything below ``proofs`` but the search itself (``engine`` but its bitboard
jump rule; ``planners`` only for the exhaustive kind's route 1, which re-runs its search and
says so). The producers of certificates (``proofs``) sit above and import from here.
"""
