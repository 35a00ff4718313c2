"""Time-indexed propositional encoding of a problem (pure: builds clauses, imports no solver).

The classic SAT-planning encoding (Kautz & Selman, "Planning as satisfiability", 1992, with
explanatory frame axioms), specialised to peg solitaire:

* ``peg(h, t)``   hole h holds a peg after step t, for t = 0..T;
* ``jump(k, t)``  jump k is played at step t, for t = 0..T-1;
* initial state and goal as unit clauses at t = 0 and t = T;
* preconditions ``jump -> peg(a,t), peg(b,t), -peg(c,t)`` and effects at t+1;
* explanatory frame axioms: a hole changes only if some jump at step t touches it;
* the Hopping Dots rule tracks ``special(h, t)``: the marked peg's hole; a jump over it is
  forbidden, a jump from it moves it, and it must hold a peg.

The horizon comes from counting: every jump removes one peg, so a plan has
T = pegs(start) - pegs(goal) jumps. Two step semantics (``EncodeOptions.steps``):

``parallel`` (default) -- a step plays any set of jumps on pairwise disjoint holes (the
  forall-step semantics of Rintanen, Heljanko & Niemela, "Planning as satisfiability:
  parallel plans and algorithms for plan search", AIJ 2006); such jumps commute, so any
  order of a step is a legal sequence; steps may be empty. With T steps every sequential
  plan fits, so SAT and UNSAT are both exact. Fewer steps than jumps can only find plans
  (Madagascar's short horizons, Rintanen 2012), and often find them much faster: measured
  here, French c1 -> e1 in 1-4 s at 13-20 steps against minutes at 35. A chain forcing empty
  steps to the end made things slower and is not used.
  When the goal leaves the peg count open, python-sat cardinality constraints bound the
  pegs at T.
``sequential`` -- exactly one jump per step (at most one with a ``used`` chain when the
  count is open, so a plan may stop early and horizons can be chosen by assumptions). Sound
  reductions: the first jump is one representative of each orbit under the symmetries fixing
  start and goal, and consecutive jumps on disjoint holes after step one come in increasing
  id order.

Redundant constraints from peg solitaire's theory, each an option and each sound (every
position of a plan satisfies it, so the models are still exactly the plans):

``pagodas``  integer pagodas (``analysis.pagoda.for_levels``, the lightest few: ``encodable``,
  given to ``encode``) at every step: no jump raises a pagoda's weight, so a position on a
  plan weighs no more than the start, and no less than the lightest goal position (its
  floor), pseudo-Boolean constraints expanded by python-sat's ``pysat.pb`` (pindakaas);
``classes``  the position class (``analysis.invariants.class_basis``: weightings even on
  every line, whose parity no jump changes) at every step, as XOR constraints;
``count``    sequential steps: the peg count at every step (one jump a step removes one peg);
``process``  (the default; parallel steps only, sequential ones ignore it) every jump after the
  first step shares a hole with a jump of the step before (process semantics, Heljanko 2001;
  Rintanen, Heljanko and Niemela 2006): each plan then has one model, its jumps each at the
  earliest step, where without it a plan of fewer steps than the horizon has many (its empty
  steps anywhere, jumps moved later). The full horizon is solved several times faster.
``lex``      parallel steps: a lex-leader of each orbit of plans under the problem's symmetries
  (``add_lex_leader``), beyond the first step's representative jump.

Cardinality, weighted and XOR constraints are kept as native groups so that the CP-SAT backend
can post them directly; ``to_cnf`` expands them with python-sat's encoders (``pysat.card``,
``pysat.pb``) and XORs as chains of two-input XOR gates.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..analysis.invariants import class_basis
from ..engine.bitboard import engine, stabilizer
from ..errors import PegsatError
from ..model.board import Perm
from ..model.problem import Problem, goal_positions, holes_of
from ..model.result import Plan

if TYPE_CHECKING:
    from pysat.formula import CNF

CARD_ENCODINGS = ("seqcounter", "ladder", "pairwise", "bitwise", "totalizer", "cardnetwrk")
STEPS = ("parallel", "sequential")


class EncodingError(PegsatError, ValueError):
    """Options that describe no encoding (a one-line error; a ValueError to ``encode``'s callers)."""


Pagoda = tuple[tuple[int, ...], int]  # integer weights, one a hole, and the floor


@dataclass(frozen=True)
class EncodeOptions:
    """How a problem is encoded (the module's docstring). ``pagodas``: the planners learn
    pagodas and ``encode`` imposes them; the others are read by ``encode`` alone."""

    steps: str = "parallel"
    symmetry: bool = True
    order: bool = True
    card: str = "seqcounter"
    pagodas: bool = False
    classes: bool = False
    count: bool = False
    process: bool = True
    lex: bool = False

    def __post_init__(self) -> None:
        if self.card not in CARD_ENCODINGS:
            raise EncodingError(f"unknown cardinality encoding {self.card!r}; choose from "
                                f"{', '.join(CARD_ENCODINGS)}")
        if self.steps not in STEPS:
            raise EncodingError(f"unknown step semantics {self.steps!r}")
        if self.count and self.steps != "sequential":
            raise EncodingError("a peg count at every step needs sequential steps")

    def describe(self) -> str:
        """The options as the DIMACS header's ``encoding`` line."""
        return (f"steps={self.steps} symmetry={int(self.symmetry)} order={int(self.order)} "
                f"card={self.card} pagodas={int(self.pagodas)} classes={int(self.classes)} "
                f"count={int(self.count)} process={int(self.process)} lex={int(self.lex)}")


@dataclass
class Formula:
    """Clauses plus cardinality groups, over variables from ``pool``."""

    problem: Problem
    horizon: int
    options: EncodeOptions
    pool: Any  # pysat.formula.IDPool (python-sat is imported when a formula is built)
    clauses: list[list[int]] = field(default_factory=list)
    exactly_one: list[list[int]] = field(default_factory=list)
    at_most_one: list[list[int]] = field(default_factory=list)
    #: (literals, lower bound, upper bound or None)
    bounds: list[tuple[list[int], int, int | None]] = field(default_factory=list)
    #: (literals, integer weights, lower bound or None, upper bound or None)
    weighted: list[tuple[list[int], list[int], int | None, int | None]] = field(default_factory=list)
    #: (literals, parity): the XOR of the literals is the parity
    xors: list[tuple[list[int], int]] = field(default_factory=list)
    #: the pagodas imposed at every step (``options.pagodas``)
    pagodas: tuple[Pagoda, ...] = ()
    #: plan lengths (in jumps) the goal allows
    lengths: range = range(0)

    @property
    def short(self) -> bool:
        """Fewer parallel steps than jumps: a model is a plan, UNSAT proves nothing."""
        return self.horizon < self.problem.horizons.stop - 1

    @property
    def variable_length(self) -> bool:
        return len(self.lengths) > 1

    def peg(self, h: int, t: int) -> int:
        """The variable: hole ``h`` holds a peg after step ``t``."""
        return self.pool.id(("peg", h, t))

    def jump(self, k: int, t: int) -> int:
        """The variable: jump ``k`` is played at step ``t``."""
        return self.pool.id(("jump", k, t))

    def used(self, t: int) -> int:
        """The variable: step ``t`` plays some jump."""
        return self.pool.id(("used", t))

    def length_assumptions(self, length: int) -> list[int]:
        """Sequential steps only: assumptions that accept only plans of ``length`` jumps."""
        out = []
        if length > 0:
            out.append(self.used(length - 1))
        if length < self.horizon:
            out.append(-self.used(length))
        return out

    def to_cnf(self) -> CNF:
        """Expand the cardinality groups with python-sat's encoder ``options.card``."""
        from pysat.card import CardEnc, EncType
        from pysat.formula import CNF

        enc = getattr(EncType, self.options.card)
        cnf = CNF()
        for cl in self.clauses:
            cnf.append(cl)
        for group in self.exactly_one:
            cnf.extend(CardEnc.equals(group, 1, vpool=self.pool, encoding=enc).clauses)
        for group in self.at_most_one:
            if len(group) > 1:
                cnf.extend(CardEnc.atmost(group, 1, vpool=self.pool, encoding=enc).clauses)
        for lits, lo, hi in self.bounds:
            if lo > 0:
                cnf.extend(CardEnc.atleast(lits, lo, vpool=self.pool, encoding=enc).clauses)
            if hi is not None and hi < len(lits):
                cnf.extend(CardEnc.atmost(lits, hi, vpool=self.pool, encoding=enc).clauses)
        for lits, weights, low, high in self.weighted:
            cnf.extend(_weighted_cnf(lits, weights, low, high, self.pool))
        for i, (lits, parity) in enumerate(self.xors):
            cnf.extend(_xor_cnf(lits, parity, lambda j, i=i: self.pool.id(("xor", i, j))))
        return cnf

    def decode(self, true_vars: set[int]) -> Plan:
        """The plan a model describes: steps in order, a parallel step's jumps by id."""
        plan: list[int] = []
        nj = len(self.problem.board.jumps)
        for t in range(self.horizon):
            ks = [k for k in range(nj) if self.pool.id(("jump", k, t)) in true_vars]
            if len(ks) > 1 and self.options.steps == "sequential":
                raise ValueError(f"model plays {len(ks)} jumps at step {t + 1}")
            plan.extend(ks)
        return tuple(plan)


def encode(problem: Problem, options: EncodeOptions | None = None, steps: int | None = None,
           pagodas: Sequence[Pagoda] = ()) -> Formula:
    """Encode ``problem``; ``steps`` < T (parallel only) asks for a plan in fewer steps, which
    may find one faster but cannot refute anything. ``pagodas`` (with ``options.pagodas``):
    integer pagodas imposed at every step, each checked first (ValueError if one is not a
    pagoda of the problem)."""
    options = options or EncodeOptions()
    if pagodas and not options.pagodas:
        raise ValueError("pagodas are given but the options do not impose them")
    board = problem.board
    n, jumps = board.n, board.jumps
    lengths = problem.horizons
    horizon = lengths.stop - 1
    parallel = options.steps == "parallel"
    if steps is not None and steps != horizon:
        if not parallel or not 0 < steps < horizon:
            raise ValueError(f"a horizon of {steps} steps: give 1..{horizon} with parallel steps "
                             f"({horizon} jumps is the full horizon)")
        horizon = steps
    from pysat.formula import IDPool

    f = Formula(problem, horizon, options, IDPool(), lengths=lengths)
    # Named variables first, so their ids do not depend on the cardinality encoding.
    for t in range(horizon + 1):
        for h in range(n):
            f.peg(h, t)
    for t in range(horizon):
        for k in range(len(jumps)):
            f.jump(k, t)
    if f.variable_length and not parallel:
        for t in range(horizon):
            f.used(t)
    if problem.special is not None:
        for t in range(horizon + 1):
            for h in range(n):
                f.pool.id(("special", h, t))

    add_initial(f)
    add_goal(f)
    clashes = clashing_pairs(problem) if parallel else []
    clash: list[list[int]] = [[] for _ in jumps]  # the jumps sharing a hole with each
    for k1, k2 in clashes:
        clash[k1].append(k2)
        clash[k2].append(k1)
    for t in range(horizon):
        step = [f.jump(k, t) for k in range(len(jumps))]
        if parallel:
            for k1, k2 in clashes:
                f.clauses.append([-f.jump(k1, t), -f.jump(k2, t)])
            if options.process and t > 0:  # no jump that could have been played a step earlier
                for k in range(len(jumps)):
                    f.clauses.append([-f.jump(k, t), *(f.jump(k2, t - 1) for k2 in sorted(clash[k]))])
        elif f.variable_length:
            f.at_most_one.append(step)
            add_used_chain(f, t, step)
            if t == lengths.start - 1:
                f.clauses.append([f.used(t)])
        else:
            f.exactly_one.append(step)
        add_transitions(f, t)
    if parallel and (f.variable_length or problem.goal.full | problem.goal.empty != board.full):
        lo = problem.pegs - (lengths.stop - 1)
        hi = problem.pegs - lengths.start
        f.bounds.append(([f.peg(h, horizon) for h in range(n)], lo, hi))
    if problem.special is not None:
        add_special(f)
    if options.symmetry and horizon > 0:
        skip = set(non_representative_first_jumps(problem))
        if parallel:
            # Some plan starts with a representative jump: move empty steps to the end,
            # then map the plan by a symmetry taking a first-step jump to its orbit's
            # representative. So require one in the first step.
            reps = [f.jump(k, 0) for k in engine(board).legal(problem.start) if k not in skip]
            f.clauses.append(reps)
            if options.lex:
                add_lex_leader(f, stabilizer(problem))
        else:
            for k in sorted(skip):
                f.clauses.append([-f.jump(k, 0)])
    if options.order and not parallel:
        pairs = commuting_pairs(problem)
        for t in range(1, horizon - 1):
            for k1, k2 in pairs:
                f.clauses.append([-f.jump(k1, t), -f.jump(k2, t + 1)])
    add_redundant(f, [(tuple(w), int(floor)) for w, floor in pagodas])
    return f


def add_redundant(f: Formula, pagodas: list[Pagoda]) -> None:
    """The options' redundant constraints at every step between the start and the goal."""
    p, n = f.problem, f.problem.board.n
    for w, floor in pagodas:
        why = unsound_pagoda(p, w, floor)
        if why is not None:
            raise ValueError(why)
    f.pagodas = tuple(pagodas)
    steps = range(1, f.horizon)
    for w, floor in f.pagodas:
        holes = [h for h in range(n) if w[h]]
        top = sum(w[h] for h in holes_of(p.start))
        for t in steps:
            f.weighted.append(([f.peg(h, t) for h in holes], [w[h] for h in holes], floor, top))
    if f.options.classes:
        for c in class_basis(p.board):
            parity = (p.start & c).bit_count() & 1
            for t in steps:
                f.xors.append(([f.peg(h, t) for h in holes_of(c)], parity))
    if f.options.count:
        least = f.lengths.start
        for t in steps:
            f.bounds.append(([f.peg(h, t) for h in range(n)], p.pegs - t, p.pegs - min(t, least)))


#: the pagodas an encoding takes at most, the lightest first, and the largest total weight (in
#: absolute value) of one: the pseudo-Boolean encoding of a pagoda at every step grows with its
#: weights (triangle-8's learned pagodas weigh up to 6 x 10^15 a hole: minutes and gigabytes)
ENCODED_PAGODAS, ENCODED_WEIGHT = 8, 64


def encodable(pagodas: Sequence[Pagoda]) -> list[Pagoda]:
    """The pagodas an encoding imposes: at most ``ENCODED_PAGODAS`` of those whose weights
    total at most ``ENCODED_WEIGHT``, the lightest first."""
    light = sorted((sum(abs(x) for x in w), i) for i, (w, _) in enumerate(pagodas))
    return [pagodas[i] for total, i in light if total <= ENCODED_WEIGHT][:ENCODED_PAGODAS]


def unsound_pagoda(problem: Problem, w: Sequence[int], floor: int) -> str | None:
    """Why ``(w, floor)`` may cut a position of a plan, or None: one integer weight a hole, no
    jump raising the weight, and no goal position weighing less than the floor."""
    board = problem.board
    if len(w) != board.n or not all(isinstance(x, int) for x in (*w, floor)):
        return "a pagoda needs one integer weight a hole and an integer floor"
    if any(w[c] > w[a] + w[b] for a, b, c in board.jumps):
        return "a jump raises the pagoda's weight"
    goals = goal_positions(problem)
    if goals is None or any(sum(w[h] for h in holes_of(g)) < floor for g in goals):
        return "a goal position weighs less than the pagoda's floor (or the goal has too many to list)"
    return None


def _weighted_cnf(lits: list[int], weights: list[int], lo: int | None, hi: int | None, pool: Any
                  ) -> list[list[int]]:
    """``lo <= sum(weights * lits) <= hi`` by python-sat's pseudo-Boolean encoder, with the
    negative weights moved onto the negated literals."""
    from pysat.pb import PBEnc

    shift = sum(-x for x in weights if x < 0)
    ls = [v if x > 0 else -v for v, x in zip(lits, weights, strict=True)]
    ws = [abs(x) for x in weights]
    out: list[list[int]] = []
    if lo is not None and lo + shift > 0:
        out += PBEnc.atleast(ls, ws, lo + shift, vpool=pool).clauses
    if hi is not None and hi + shift < sum(ws):
        out += PBEnc.atmost(ls, ws, hi + shift, vpool=pool).clauses
    return out


def _xor_cnf(lits: list[int], parity: int, aux: Any) -> list[list[int]]:
    """``XOR(lits) == parity`` as a chain of two-input XOR gates on auxiliary variables
    ``aux(j)``: four clauses a gate, one unit at the end."""
    if not lits:
        return [] if parity == 0 else [[]]
    out: list[list[int]] = []
    acc = lits[0]
    for j, x in enumerate(lits[1:]):
        y = aux(j)  # y <-> acc xor x
        out += [[-y, acc, x], [-y, -acc, -x], [y, -acc, x], [y, acc, -x]]
        acc = y
    out.append([acc] if parity else [-acc])
    return out


def add_initial(f: Formula) -> None:
    """Clauses fixing the start position at step 0."""
    for h in range(f.problem.board.n):
        f.clauses.append([f.peg(h, 0) if f.problem.start >> h & 1 else -f.peg(h, 0)])


def add_goal(f: Formula) -> None:
    """Clauses for the goal at the last step."""
    g, T = f.problem.goal, f.horizon
    for h in range(f.problem.board.n):
        if g.full >> h & 1:
            f.clauses.append([f.peg(h, T)])
        elif g.empty >> h & 1:
            f.clauses.append([-f.peg(h, T)])


def add_used_chain(f: Formula, t: int, step: list[int]) -> None:
    """used(t) <-> some jump at step t; a used step follows only used steps."""
    u = f.used(t)
    f.clauses.append([-u, *step])
    for j in step:
        f.clauses.append([-j, u])
    if t > 0:
        f.clauses.append([-u, f.used(t - 1)])


def add_transitions(f: Formula, t: int) -> None:
    """Preconditions, effects and explanatory frame axioms between t and t+1."""
    board = f.problem.board
    add = f.clauses.append
    removers: list[list[int]] = [[] for _ in range(board.n)]  # jumps emptying h
    fillers: list[list[int]] = [[] for _ in range(board.n)]  # jumps filling h
    for k, (a, b, c) in enumerate(board.jumps):
        j = f.jump(k, t)
        add([-j, f.peg(a, t)])
        add([-j, f.peg(b, t)])
        add([-j, -f.peg(c, t)])
        add([-j, -f.peg(a, t + 1)])
        add([-j, -f.peg(b, t + 1)])
        add([-j, f.peg(c, t + 1)])
        removers[a].append(j)
        removers[b].append(j)
        fillers[c].append(j)
    for h in range(board.n):
        add([-f.peg(h, t), f.peg(h, t + 1), *removers[h]])
        add([f.peg(h, t), -f.peg(h, t + 1), *fillers[h]])


def add_special(f: Formula) -> None:
    """Track the marked peg; never jump over it (see the module docstring)."""
    p = f.problem
    board = p.board

    def s(h: int, t: int) -> int:
        return f.pool.id(("special", h, t))

    add = f.clauses.append
    assert p.special is not None
    add([s(p.special, 0)])
    for t in range(f.horizon + 1):
        for h in range(board.n):
            add([-s(h, t), f.peg(h, t)])
    for t in range(f.horizon):
        movers: list[list[int]] = [[] for _ in range(board.n)]
        for k, (a, b, c) in enumerate(board.jumps):
            j = f.jump(k, t)
            add([-j, -s(b, t)])
            add([-j, -s(a, t), s(c, t + 1)])
            movers[a].append(j)
        for h in range(board.n):
            add([-s(h, t), s(h, t + 1), *movers[h]])


def add_lex_leader(f: Formula, group: Sequence[Perm]) -> None:
    """Parallel steps: of the plans a symmetry ``s`` of the problem maps onto each other, the
    one whose steps, read as bit strings over the jump ids, are lexicographically largest
    (a lex-leader, Crawford et al. 1996). Imposed where it is cheap: at step ``t``, guarded
    by the steps before it being ``s``-invariant (then the position at ``t`` is), step ``t``
    at least its image. Sound: a plan's image is a plan in the same step form (process
    semantics included), and the largest of an orbit meets every such clause and the first
    step's representative (``non_representative_first_jumps``)."""
    board = f.problem.board
    jumps, index = board.jumps, board.jump_index
    for s_id, perm in enumerate(group):
        image = [index[(perm[a], perm[b], perm[c])] for a, b, c in jumps]  # jump k -> s(k)
        moved = [k for k in range(len(jumps)) if image[k] != k]
        if not moved:  # the identity
            continue
        pre = [0] * len(jumps)
        for k, j in enumerate(image):
            pre[j] = k
        guard: list[int] = []  # [] at step 0: the start and goal are s-invariant
        for t in range(f.horizon):
            eq = guard  # s(step t) agrees with step t on the ids before j
            for i, j in enumerate(moved):
                a, b = f.jump(j, t), f.jump(pre[j], t)  # step t and its image at id j
                f.clauses.append([*eq, a, -b])
                if i + 1 < len(moved):
                    nxt = f.pool.id(("lex-equal", s_id, t, j))
                    f.clauses.extend([[*eq, -a, -b, nxt], [*eq, a, b, nxt]])
                    eq = [-nxt]
            if t + 1 < f.horizon:
                same = f.pool.id(("lex-invariant", s_id, t + 1))
                differ = []
                for k in moved:
                    d = f.pool.id(("lex-differ", s_id, t, k))
                    a, b = f.jump(k, t), f.jump(image[k], t)
                    f.clauses.extend([[-d, a, b], [-d, -a, -b]])
                    differ.append(d)
                f.clauses.append([*guard, same, *differ])
                guard = [-same]


def non_representative_first_jumps(problem: Problem) -> list[int]:
    """Legal first jumps that are images of a smaller one under the problem's symmetries."""
    board = problem.board
    group = stabilizer(problem)
    legal = engine(board).legal(problem.start)
    out = []
    for k in legal:
        a, b, c = board.jumps[k]
        images = [board.jump_index[(p[a], p[b], p[c])] for p in group]
        if min(images) < k:
            out.append(k)
    return out


def clashing_pairs(problem: Problem) -> list[tuple[int, int]]:
    """Pairs of jumps sharing a hole: they may not share a parallel step."""
    jumps = problem.board.jumps
    masks = [1 << a | 1 << b | 1 << c for a, b, c in jumps]
    return [(k1, k2) for k1 in range(len(jumps)) for k2 in range(k1) if masks[k1] & masks[k2]]


def commuting_pairs(problem: Problem) -> list[tuple[int, int]]:
    """Pairs (k1 > k2) of jumps on disjoint holes: k1 then k2 may be swapped."""
    jumps = problem.board.jumps
    masks = [1 << a | 1 << b | 1 << c for a, b, c in jumps]
    return [
        (k1, k2)
        for k1 in range(len(jumps))
        for k2 in range(k1)
        if not masks[k1] & masks[k2]
    ]
