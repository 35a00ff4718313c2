"""Whole-board surveys: every single-vacancy -> single-survivor problem, classified.

Each problem is settled by the cheapest means that works: the cheap proofs (position classes,
then a pagoda function, both exact certificates: ``proofs.cheap``), then a planner (``auto``
finds a plan or exhausts the search; ``moves`` gives the fewest moves), and when the planner runs
out of time, the same planner on the time-reversed game (``problem.dual``: vacancy s ->
survivor v), whose plan reversed is a plan here, and last the exhaustive search by jumps
(``planners.layers``), which decides what is left given time. Only one problem per orbit of
the board's symmetry group and time reversal is solved (vacancy up to the group, survivor up
to the vacancy's stabilizer, and of v -> s and s -> v only one: they are solvable together);
the table is filled by symmetry, a reversed cell's plan replayed by the verifier (solving both
of a reversed pair would pay twice: the search already plays each game both ways).

Results are appended to a JSON-lines file as each problem is settled, flushed to disk; a
rerun reads the file and skips what is done, so an interrupted survey loses at most the
problem in progress (a torn last line is ignored).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from .. import sealed
from ..analysis import games
from ..deadline import Deadline
from ..engine.bitboard import replay, replay_plan
from ..errors import PegsatError
from ..files import JsonLines, read_jsonl
from ..formats.notation import format_plan, parse_plan
from ..formats.report import record
from ..model.board import Board
from ..model.problem import Goal, single_vacancy
from ..model.result import Proof, Status
from .solve import solve

#: a problem is tried again only with this many times the seconds of its last try
RETRY_GROWTH = 1.5
#: how the survey names a proof (classes and pagoda are the cheap proofs' certificate kinds)
PROOF_NAME = {Proof.INVARIANT: "classes", Proof.PAGODA: "pagoda"}


@dataclass(frozen=True)
class Entry:
    vacancy: str
    survivor: str
    status: str  # solved / unsolvable / unknown / error
    proof: str | None  # classes / pagoda / the planner's proof kind; "dual": via the reversed game
    moves: int | None = None
    optimal: bool | None = None  # with min_moves: the move count is proven optimal
    plan: str | None = None
    seconds: float = 0.0


def orbit_pairs(board: Board, reversal: bool = False) -> Iterator[tuple[int, int]]:
    """(vacancy, survivor) representatives: one per orbit of the symmetry group on pairs (the
    least pair of its orbit); with ``reversal``, one per orbit of the group and time reversal
    ((v, s) and (s, v) are solvable together: ``model.problem.dual``)."""
    group = board.symmetries
    for v in range(board.n):
        if min(p[v] for p in group) != v:
            continue
        stab = [p for p in group if p[v] == v]
        for s in range(board.n):
            if min(p[s] for p in stab) == s and not (reversal and min((p[s], p[v]) for p in group) < (v, s)):
                yield v, s


def reversed_entry(board: Board, e: Entry) -> Entry:
    """The entry of the time-reversed problem (vacancy and survivor swapped): a plan is
    reversed and replayed by the verifier there (a PlanError if it does not replay), a proof
    holds for both (named ``dual-...`` on the side that was not searched). Moves are the
    reversed plan's, never called optimal: a chain of jumps by one peg reversed is not one
    peg's chain (triangle-5 a1 -> a1: 12 moves one way, 11 the other), so the fewest moves of
    the two problems differ and a min-moves survey solves both."""
    v, s = board.hole(e.vacancy), board.hole(e.survivor)
    moves = plan = None
    if e.status == "solved" and e.plan is not None:
        problem = single_vacancy(board, s, Goal.survivor(board, v))
        rep = replay(problem, reversed(parse_plan(board, e.plan, "names")))
        plan, moves = format_plan(board, rep.plan), rep.moves
    proof = e.proof
    if e.status == "unsolvable" and proof is not None:
        proof = proof[len("dual-"):] if proof.startswith("dual-") else f"dual-{proof}"
    return replace(e, vacancy=e.survivor, survivor=e.vacancy, proof=proof, plan=plan, moves=moves,
                   optimal=None)


def settle(board: Board, v: int, s: int, planner: str, time_limit: float | None,
           layers_limit: float | None = None, cap: Deadline | None = None,
           spill: Path | None = None, scheduler: str | None = None) -> Entry:
    """``layers_limit``: seconds for the last, exhaustive step (default ``time_limit``);
    ``cap``: a deadline no step outlasts (the survey's budget); ``spill``: the level searches
    (the exhaustive step, and ``moves``) go on to disk past the memory budget, in
    ``spill/V-S``, kept while the problem is unknown (a rerun goes on from them:
    ``planners.ondisk``), on the Dask cluster at ``scheduler`` (default: a local one)."""
    t = time.perf_counter()
    problem = single_vacancy(board, v, Goal.survivor(board, s))
    names = board.names

    def entry(status: str, proof: str | None, **kw) -> Entry:
        return Entry(names[v], names[s], status, proof, seconds=round(time.perf_counter() - t, 3), **kw)

    def budget(seconds: float | None) -> Deadline:
        if cap is not None:
            return cap.within(seconds) if seconds else cap
        return Deadline(seconds) if seconds else Deadline()

    def level_search(name: str, deadline: Deadline):
        """The level search ``name`` on to disk past the memory budget, in ``spill/V-S``."""
        from ..planners.config import Config, Disk

        assert spill is not None
        where = Disk(spill / f"{board.slugs[v]}-{board.slugs[s]}", scheduler=scheduler)
        return solve(problem, name, Config(disk=where), deadline)

    if planner == "moves" and spill is not None:
        r = level_search("moves", budget(time_limit))
    else:
        r = solve(problem, planner, deadline=budget(time_limit))
    if r.status is Status.UNSOLVABLE and r.proof in PROOF_NAME:
        return entry("unsolvable", PROOF_NAME[r.proof])
    if r.plan is not None and r.status is not Status.ERROR:  # verified: solvable, optimum maybe open
        rec = record(r)
        return entry("solved", None, moves=rec["moves"], plan=rec["plan"], optimal=rec["optimal"])
    if r.status is Status.UNKNOWN and planner != "moves":
        # The time-reversed game (vacancy s -> survivor v) is solvable exactly when this one
        # is, and is sometimes much easier (French c1 -> e4: unknown after 60 s; e4 -> c1:
        # found). On large boards the search already took turns on it (``analysis.games``),
        # and a self-dual game would only be played again: not then.
        reverse = games.reversed_game(problem)
        if reverse is not None and not games.large(problem):
            d = solve(reverse.problem, planner, deadline=budget(time_limit))
            if d.plan is not None:
                rep = replay_plan(problem, reverse.lift(d.plan))  # verified before it is kept
                return entry("solved", "dual", moves=rep.moves, plan=format_plan(board, rep.plan))
            if d.status is Status.UNSOLVABLE:
                return entry("unsolvable", f"dual-{d.proof.value if d.proof else 'proof'}")
        # Last, the exhaustive search by jumps: complete, and it settles what the racing
        # planners cannot (French d3 -> d5: a plan in 10 minutes on 2 cores).
        last = budget(time_limit if layers_limit is None else layers_limit)
        x = solve(problem, "layers", deadline=last) if spill is None else level_search("layers", last)
        if x.plan is not None:
            return entry("solved", "layers", moves=x.moves, plan=format_plan(board, x.plan))
        if x.status is Status.UNSOLVABLE:
            return entry("unsolvable", "layers")
    status = "unknown" if r.status is Status.UNKNOWN else r.status.value
    return entry(status, r.proof.value if r.proof else None)


def stamp(board: Board, planner: str) -> str:
    """What a results line belongs to: the board's holes and lines, and the planner (a
    min-moves survey's entries mean more than a plain one's)."""
    return sealed.digest(board.names, board.lines, planner, "survey", 1)[:16]


def read_results(path: Path, board: Board | None = None,
                 planner: str = "auto") -> dict[tuple[str, str], Entry]:
    """Finished entries of an earlier run of this survey (its ``stamp``). A line is skipped,
    and its problem solved again, when it is torn (killed mid-write), belongs to another
    board or planner, or holds a plan that does not replay. ``board`` None: every finished
    entry, unchecked (for reading a results file, not for resuming)."""
    done: dict[tuple[str, str], Entry] = {}
    mark = stamp(board, planner) if board is not None else None
    for d in read_jsonl(path):
        if mark is not None and d.pop("stamp", None) != mark:
            continue
        d.pop("stamp", None)
        try:
            e = Entry(**d)
        except TypeError:
            continue
        if e.status not in ("solved", "unsolvable"):
            continue
        if board is not None and not _replays(board, e):
            continue
        done[(e.vacancy, e.survivor)] = e
    return done


def _replays(board: Board, e: Entry) -> bool:
    """The entry names holes of the board, and a solved one's plan replays (its moves too)."""
    if not (board.has_hole(e.vacancy) and board.has_hole(e.survivor)):
        return False
    if e.status != "solved":
        return True
    v, s = board.hole(e.vacancy), board.hole(e.survivor)
    problem = single_vacancy(board, v, Goal.survivor(board, s))
    try:
        return e.plan is not None and replay(problem, parse_plan(board, e.plan)).moves == e.moves
    except PegsatError:
        return False


def run(board: Board, results: Path, *, planner: str = "auto", time_limit: float | None = 60.0,
        layers_limit: float | None = None, budget: Deadline | None = None,
        progress: Callable[[Entry, int, int], None] | None = None,
        spill: Path | None = None, scheduler: str | None = None) -> dict[tuple[str, str], Entry]:
    """Settle every orbit representative not already in ``results``; return them all
    (``spill``, ``scheduler``: where the level searches go on past the memory budget: ``settle``).

    ``budget``: the deadline of the whole survey. The first pass gives each problem
    ``time_limit`` (less if the budget runs short); then what is left of the budget is
    shared evenly among the problems still unknown, each solved once more with its share (a
    solve starts afresh: one long run decides more than several short ones), and again while
    what is left gives some of them ``RETRY_GROWTH`` times their last try (then to as many as
    it can, shortest tries first, so no time is left unused while a problem is unknown).
    Without a budget, one pass."""
    if board.n > 64:
        raise PegsatError(f"survey: board {board.name} has {board.n} holes; at most 64")
    limited = budget is not None and budget.remaining() is not None
    whole = budget if budget is not None else Deadline()
    done = read_results(results, board, planner)
    mark = stamp(board, planner)
    reversal = planner != "moves"  # the fewest moves of v -> s and s -> v differ
    pairs = list(orbit_pairs(board, reversal=reversal))
    names = board.names
    for v, s in pairs if reversal else ():  # a file that has only the reversed problem: it will do
        if (names[v], names[s]) not in done and (names[s], names[v]) in done:
            done[(names[v], names[s])] = reversed_entry(board, done[(names[s], names[v])])

    with JsonLines(results) as out:
        given: dict[int, float] = {}  # pair index -> seconds its last solve was handed

        def one(i: int, v: int, s: int, seconds: float | None, layers: float | None) -> None:
            e = settle(board, v, s, planner, seconds, layers, cap=whole if limited else None, spill=spill,
                       scheduler=scheduler)
            given[i] = e.seconds if seconds is None else seconds + (seconds if layers is None else layers)
            out.write({**asdict(e), "stamp": mark})
            if e.status in ("solved", "unsolvable"):
                done[(names[v], names[s])] = e
            if progress:
                progress(e, i, len(pairs))

        for i, (v, s) in enumerate(pairs, start=1):
            if (names[v], names[s]) not in done and not whole.expired():
                one(i, v, s, time_limit, layers_limit)
        while limited and not whole.expired():
            left = sorted((given[i], i, v, s) for i, (v, s) in enumerate(pairs, start=1)
                          if i in given and (names[v], names[s]) not in done)
            rem = whole.remaining() or 0
            # the most problems (shortest tries first) that can each have RETRY_GROWTH times longer
            k = max((k for k in range(1, len(left) + 1) if rem / k > RETRY_GROWTH * left[k - 1][0]),
                    default=0)
            if k == 0:
                break
            for n, (before, i, v, s) in enumerate(sorted(left[:k], key=lambda x: x[1])):
                share = (whole.remaining() or 0) / (k - n)  # time saved goes to the rest
                if share <= before:  # no longer than its last try: no use (a solve starts afresh)
                    continue
                layers = min(layers_limit, share / 2) if layers_limit else share / 2
                one(i, v, s, share - layers, layers)
    return {k: done[k] for k in ((names[v], names[s]) for v, s in pairs) if k in done}


@dataclass(frozen=True)
class Table:
    """The full vacancy x survivor table, filled by symmetry and time reversal from the
    representatives."""

    board: Board
    cells: dict[tuple[int, int], Entry]  # (vacancy, survivor) hole ids -> entry of its orbit
    unknown: int  # problems (not orbits) left unsettled

    def survivors(self, v: int) -> list[int]:
        """The survivors vacancy ``v`` can end on."""
        cells = self.cells
        return [s for s in range(self.board.n) if (v, s) in cells and cells[(v, s)].status == "solved"]

    def proof_shares(self) -> Counter:
        """Problems per kind of argument; a proof on the time-reversed game (``dual-pagoda``)
        counts as its kind."""
        c: Counter = Counter()
        for e in self.cells.values():
            kind = "plan" if e.status == "solved" else e.proof or e.status
            c[kind.removeprefix("dual-")] += 1
        c["unknown"] += self.unknown
        return c

    def lines(self, with_moves: bool = False) -> list[str]:
        """The printed table: per vacancy, its survivors (with the fewest moves)."""
        names = self.board.names
        out = [f"{'vacancy':<8} {'#':>3}  survivors" + (" (fewest moves)" if with_moves else "")]
        for v in range(self.board.n):
            surv = self.survivors(v)
            cells = [f"{names[s]}({self.cells[(v, s)].moves})" if with_moves else names[s] for s in surv]
            out.append(f"{names[v]:<8} {len(surv):>3}  {' '.join(cells)}")
        total = self.board.n ** 2
        shares = self.proof_shares()
        out.append("settled by: " + ", ".join(f"{k} {n} ({100 * n / total:.0f}%)"
                                              for k, n in shares.most_common() if n))
        return out

    def to_dict(self) -> dict:
        """The table as plain JSON values (``to_json``)."""
        return self.to_json()

    def to_json(self) -> dict:
        """The table as ``survey --json`` writes it."""
        names = self.board.names
        return {
            "board": self.board.name, "unknown": self.unknown, "shares": dict(self.proof_shares()),
            "vacancies": {names[v]: {names[s]: {"status": e.status, "proof": e.proof, "moves": e.moves}
                                     for (vv, s), e in sorted(self.cells.items()) if vv == v}
                          for v in range(self.board.n)},
        }


def picture(t: Table) -> str:
    """The survey picture: each hole coloured by how many survivors its vacancy allows."""
    from ..formats.svg import board_svg

    return board_svg(t.board, values={v: len(t.survivors(v)) for v in range(t.board.n)},
                     title=f"{t.board.name}: survivors per vacancy",
                     legend="on each hole: how many holes can hold the last peg when it starts empty")


def table(board: Board, reps: dict[tuple[str, str], Entry]) -> Table:
    """The full table from the orbit representatives, filled by symmetry and time reversal."""
    cells: dict[tuple[int, int], Entry] = {}
    for (vn, sn), e in reps.items():
        v, s = board.hole(vn), board.hole(sn)
        for p in board.symmetries:
            cells[(p[v], p[s])] = e
    for (vn, sn), e in reps.items():
        v, s = board.hole(vn), board.hole(sn)
        if (s, v) in cells:  # its own entry (a min-moves survey solves both): no reversed one
            continue
        back = reversed_entry(board, e)
        for p in board.symmetries:
            cells[(p[s], p[v])] = back
    return Table(board, cells, board.n * board.n - len(cells))
