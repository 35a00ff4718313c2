"""The ``search`` planner's turns on larger boards: many games, each in turn, longer each round.

The games (``analysis.games``): the open goal's own game (``Part.OPEN``: one search for every
survivor at once), each class-compatible survivor's game, each game's time-reversed game (a
plan of it, reversed, is a plan here, and its refutation refutes the game), or for a fixed
goal the problem itself and its reversal (``Part.ITSELF``); and a beam (``Part.BEAM``,
``engine.beam``), which proves nothing but finds plans the depth-first games leave open for
minutes. Every one takes a turn of ``FIRST_TURN`` seconds, then longer each round; each keeps
its dead table and pagodas (``game.State``), so a turn resumes the last. Between turns a
game still open after long turns, and the open goal's game after every turn, mines new
pagodas from its own dead table (``analysis.pagoda.mine``) while its table grows on another
thread; both happen just before the game's next turn, so a problem another game settles
meanwhile never pays for them. From the second round on the open goal's game gets
``WHOLE_TURN`` times the others' turns together and half the memory for its table: its
exhaustion is the one proof that covers every survivor, and the largest.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from enum import Enum

import numpy as np

from ..analysis import games, pagoda
from ..deadline import Deadline
from ..engine import dfs as D
from ..engine.beam import Ladder
from ..engine.drive import SEED
from ..engine.kernel import words
from ..limits import memory_budget
from ..model.problem import Problem, dual
from ..model.result import Proof, Result, Stats, Status, summed
from . import beam, game
from .config import Config

NAME = "search"
FIRST_TURN = 2.0  # seconds of every game's first turn ...
#: ... 1.5 times longer each round up to LONG_TURN seconds, then twice as long: growing
#: slowly, the game that answers first waits less for the others' overshoot; past LONG_TURN
#: a minutes-long exhaustion's per-turn overheads (restarted descents, mining) weigh more
TURN_GROWTH, LONG_TURN = 1.5, 16.0
#: from the second round on, the open goal's game gets a turn this many times as long as all
#: the other open games' turns together (its exhaustion settles every survivor at once)
WHOLE_TURN = 4
GROW_AT = 0.5  # a game's dead table this full is made four times larger between turns
MAX_TABLE_BITS = 28  # 2 GB of one-word slots at most (grown 4x: from 2^25, 2^27 is the last)
#: ``prove``'s open game (``alone``) may grow its table twice more, to 4 GB, within the memory
#: budget: a certificate is the table's positions, and a table more than half full has lost
#: some to overwriting, each a repair (diamond e1's open game: 2.5 x 10^8 dead positions
#: filled 2^28 slots to 94%)
PROVE_TABLE_BITS = 29
MINE_FROM = 8.0  # seconds: after turns this long (a game still open after a few rounds) ...
MINE_SAMPLE = 20_000  # dead positions drawn from a game's table between turns ...
MINE_KEEP = 8  # ... the new pagodas kept from them per turn ...
MAX_PAGODAS = 40  # ... while the game has fewer than this many


class Part(Enum):
    """The turns that are not a survivor's game."""

    OPEN = "the open goal's game"  # first in every round
    ITSELF = "the problem's own game"  # a fixed goal: the problem and its reversal
    BEAM = "the beam"  # after the open goal's game, else last


Key = int | Part  # a survivor's hole, or a part


@dataclass
class Turn:
    """One game taking turns, and what it keeps between them."""

    key: Key
    problem: Problem
    reverse: bool = False
    state: game.State = field(default_factory=game.State)
    mine_after: float | None = None  # mine pagodas before the next turn (the last turn's span)
    ladder: Ladder | None = None  # the beam's, once built
    spent: bool = False  # the beam's ladder is at its widest

    @property
    def decides(self) -> bool:
        """A depth-first game, whose answer decides (the beam's never refutes)."""
        return self.key is not Part.BEAM

    @property
    def needed(self) -> bool:
        """A game whose refutation the verdict needs: a survivor's, or the problem's own
        (the open goal's game is refuted once every survivor is)."""
        return isinstance(self.key, int) or self.key is Part.ITSELF


def plan_turns(problem: Problem) -> tuple[list[Turn], dict[Key, tuple[Proof, bool]], int] | None:
    """(the turns to take; survivors already refuted: how, and whether on the reversed game;
    holes ruled out by the classes), or None when the goal is neither one peg anywhere nor
    an exact pattern (no survivors to split, no reversed game). A single game (self-dual)
    still takes turns: its dead table can grow between them."""
    refuted: dict[Key, tuple[Proof, bool]] = {}
    ruled_out = 0
    survivors = games.split(problem)
    pairs: list[tuple[Key, list[games.Game]]]
    if survivors is not None:
        ruled_out = len(survivors.ruled_out)
        pairs = [(h, survivors.games(h)) for h in survivors.survivors]
        whole = [Turn(Part.OPEN, problem)]  # one search for every survivor at once
    elif dual(problem) is not None:
        back = games.reversed_game(problem)
        pairs, whole = [(Part.ITSELF, [games.Game(problem)] + ([back] if back is not None else []))], []
    else:
        return None
    turns = list(whole)
    for key, pair in pairs:
        for g in pair:  # a pagoda may rule out one direction and not the other
            # (the problem's own pagoda was tried before)
            if g.problem is not problem and pagoda.find(g.problem) is not None:
                refuted[key] = (Proof.PAGODA, g.reverse)
                break
        else:
            turns.extend(Turn(key, g.problem, g.reverse) for g in pair)
    if not turns and not refuted:
        return None
    if whole and not turns[1:]:  # every survivor refuted by a pagoda already
        turns = []
    elif turns and beam.supports(problem) is None:
        # right after the open goal's game (a first beam often settles the open goal); last
        # for a fixed goal, whose games mostly answer in their first turn
        turns.insert(1 if whole else len(turns), Turn(Part.BEAM, problem))
    return turns, refuted, ruled_out


def in_turns(problem: Problem, turns: list[Turn], refuted: dict[Key, tuple[Proof, bool]], ruled_out: int,
             deadline: Deadline, config: Config) -> Result:
    """Every game in turn, for FIRST_TURN seconds, then longer each round (TURN_GROWTH times,
    from LONG_TURN seconds on twice), until a plan, until every survivor is refuted (in
    either direction), or the deadline: the time lost to the wrong games is at most the right
    one's."""
    t0 = time.perf_counter()
    names = problem.board.names
    for t in turns:  # with many games the tables are halved
        t.state.smaller = int(len(turns) > 4)
    totals: Stats = {}
    span_now = FIRST_TURN
    while True:
        live = [t for t in turns if t.key not in refuted and not (t.key is Part.BEAM and t.spent)]
        if not any(t.needed for t in live):  # the beam, or the open game alone, decides nothing new
            break
        for t in live:
            if t.key in refuted:
                continue
            left = deadline.remaining()
            if left is not None and left <= 0:
                break
            span = span_now
            if t.key is Part.OPEN and span_now > FIRST_TURN:  # WHOLE_TURN times the other open games'
                span *= WHOLE_TURN * max(1, sum(1 for u in live if u.key not in refuted) - 1)
            last, t.mine_after = t.mine_after, None
            if last is not None:  # between its last turn and this one, only if due
                prepare(t.problem, t.state, deadline.within(min(span / 16, pagoda.LEARN_SECONDS)),
                        share(turns, refuted, t), span / last)
            if t.key is Part.BEAM:  # the pagodas its own problem's game learned, if it has
                known = next((u.state.pagodas for u in turns if u.decides and u.problem is t.problem
                              and u.state.pagodas is not None), None)
                r = beam_turn(t, deadline.within(span), known)
            else:
                r = game.whole(t.problem, deadline.within(span), config, t.state)
            if r.status is Status.UNKNOWN and (span >= MINE_FROM or t.key is Part.OPEN):
                t.mine_after = span
            totals = summed(totals, r.stats, latest=("pagodas", "workers"))  # the latest turn's, not a sum
            if r.status is Status.SOLVED and r.plan is not None:
                plan = tuple(reversed(r.plan)) if t.reverse else r.plan
                how = " (found on the time-reversed game)" if t.reverse else ""
                if t.key is Part.BEAM:
                    how = f" (from a beam of {r.stats['beam_width']} positions)"
                stats: Stats = {**totals, "solve_s": round(time.perf_counter() - t0, 3),
                                         "games": len(turns)}
                if isinstance(t.key, int):
                    stats["survivor"] = names[t.key]
                return Result(Status.SOLVED, problem, NAME, plan=plan, stats=stats,
                              detail=f"plan{how}" if how else "")
            if r.status is Status.UNSOLVABLE and t.key is Part.OPEN:
                return games.Game(t.problem, None, t.reverse).lift_result(
                    replace(r, stats=totals), problem, games=len(turns))
            if r.status is Status.UNSOLVABLE:
                refuted[t.key] = (r.proof or Proof.EXHAUSTED, t.reverse)
                t.state.table = None  # its memory goes back to the others
            elif r.status is Status.ERROR:
                return games.Game(t.problem, None, t.reverse).lift_result(r, problem)
        if deadline.expired():
            break
        span_now *= TURN_GROWTH if span_now < LONG_TURN else 2
    return _verdict(problem, turns, refuted, ruled_out, deadline,
                    {**totals, "solve_s": round(time.perf_counter() - t0, 3), "games": len(turns)})


def alone(problem: Problem, deadline: Deadline, config: Config) -> tuple[Result, game.State]:
    """One game in turns of its own, as ``in_turns`` gives the open goal's game: each turn
    longer, and between turns its table grown and new pagodas mined (``prepare``), until a
    plan, exhaustion or the deadline. Returns the last turn's answer and the game's state:
    its dead table and pagodas, what ``proofs.deadset.close`` makes a certificate of."""
    state = game.State()
    span, last = FIRST_TURN, None
    while True:
        if last is not None:
            prepare(problem, state, deadline.within(min(span / 16, pagoda.LEARN_SECONDS)), 1.0, span / last,
                    PROVE_TABLE_BITS)
        r = game.whole(problem, deadline.within(span), config, state)
        if r.status is not Status.UNKNOWN or deadline.expired():
            return r, state
        last = span
        span *= TURN_GROWTH if span < LONG_TURN else 2


def _verdict(problem: Problem, turns: list[Turn], refuted: dict[Key, tuple[Proof, bool]], ruled_out: int,
             deadline: Deadline, stats: Stats) -> Result:
    """"Unknown" while a deciding game is open, else the refutation: the problem itself (on
    its reversed game: ``dual``), or every survivor (``split``)."""
    names = problem.board.names
    open_keys = {t.key for t in turns if t.key not in refuted and t.needed}
    if open_keys or not refuted:
        why = deadline.reason()
        holes = sorted(k for k in open_keys if isinstance(k, int))
        if holes:
            why += "; survivor undecided at " + " ".join(names[k] for k in holes)
        return Result(Status.UNKNOWN, problem, NAME, stats=stats, detail=why)

    def said(proof: Proof, reverse: bool) -> str:
        return proof.value + (" on the time-reversed game" if reverse else "")

    if list(refuted) == [Part.ITSELF]:
        proof, reverse = refuted[Part.ITSELF]
        return Result(Status.UNSOLVABLE, problem, NAME, proof=Proof.DUAL if reverse else proof, stats=stats,
                      detail=f"refuted by {said(proof, reverse)}")
    survivors = sorted((k, v) for k, v in refuted.items() if isinstance(k, int))
    parts = ", ".join(f"{names[k]} by {said(*v)}" for k, v in survivors)
    return Result(Status.UNSOLVABLE, problem, NAME, proof=Proof.SPLIT, stats=stats,
                  detail=f"{ruled_out} holes ruled out by position classes; survivors (up to "
                  f"symmetry) refuted: {parts}")


def beam_turn(t: Turn, deadline: Deadline, pagodas: list[D.Pagoda] | None) -> Result:
    """One turn of the beam ladder (``engine.beam``): a plan, or "unknown" (never a proof);
    a spent ladder retires from the turns. ``pagodas``: learned for the problem already
    (else learned here)."""
    t0 = time.perf_counter()
    if t.ladder is None:
        t.ladder = Ladder(t.problem, beam.pagodas_for(t.problem, deadline) if pagodas is None else pagodas)
    found = t.ladder.run(deadline)
    t.spent = t.ladder.spent
    stats: Stats = {"beam_s": round(time.perf_counter() - t0, 3)}
    if found is not None:
        stats["beam_width"] = t.ladder.width
        return Result(Status.SOLVED, t.problem, NAME, plan=found[1], stats=stats)
    return Result(Status.UNKNOWN, t.problem, NAME, stats=stats)


def share(turns: list[Turn], refuted: dict, t: Turn) -> float:
    """The part of the memory budget a game's dead table may grow to: half for the open
    goal's own game (its exhaustion is the one proof that settles every survivor, and the
    largest), the rest shared by the other games still open."""
    live = [u for u in turns if u.key not in refuted and u.decides]
    whole = any(u.key is Part.OPEN for u in live)
    if t.key is Part.OPEN:
        return 0.5 if len(live) > 1 else 1.0
    return (0.5 if whole else 1.0) / max(1, len(live) - whole)


def prepare(problem: Problem, state: game.State, deadline: Deadline, part: float, longer: float,
            bits: int = MAX_TABLE_BITS) -> None:
    """A game's work between two turns: its pagoda mining (LPs, one core) and, on another
    thread meanwhile, the growth of its table (the core rehashes without the GIL)."""
    with ThreadPoolExecutor(1) as pool:
        grown = pool.submit(grow, problem, state, part, longer, bits)
        mine(problem, state, deadline)
        grown.result()


def grow(problem: Problem, state: game.State, part: float, longer: float = 1.0,
         bits: int = MAX_TABLE_BITS) -> None:
    """Between turns: a game's dead table more than ``GROW_AT`` full, or that will be by the
    end of a next turn ``longer`` times as long as the last, is replaced by one four times
    larger holding the same positions (or, where that does not fit, twice as large), up to
    2^``bits`` slots and the game's ``part`` of the memory budget."""
    table = state.table
    if table is None or words(problem.board) != 1 or D.filled(table) * max(1.0, longer) < GROW_AT:
        return
    for factor in (4, 2):
        if factor * table.nbytes <= part * memory_budget() and factor * len(table) <= 1 << bits:
            state.table = D.grown(problem, table, factor)
            return


def mine(problem: Problem, state: game.State, deadline: Deadline) -> None:
    """Between turns: pagodas learned from the positions the game's search proved dead the
    hard way (``analysis.pagoda.mine``) join the game's pagodas. Playouts from the start
    find few; most dead positions of a long search fall to a pagoda of their own, and a few
    of those rule out many others."""
    table, known = state.table, state.pagodas
    if table is None or known is None or words(problem.board) != 1 or len(known) >= MAX_PAGODAS:
        return
    rng = np.random.default_rng(SEED + len(known))
    slots = table[rng.integers(0, len(table), size=10 * MINE_SAMPLE)]
    dead = np.unique(slots[slots != 0])
    rng.shuffle(dead)
    dead = dead[:MINE_SAMPLE]
    new = pagoda.mine(problem, dead, [(p.weights, p.floor) for p in known],
                      min(MINE_KEEP, MAX_PAGODAS - len(known)), deadline, pagoda.survivors_of(problem))
    state.pagodas = known + [D.Pagoda(w, floor) for w, floor in new]
