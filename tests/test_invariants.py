from pegsat.analysis.invariants import (
    check_witness,
    class_basis,
    position_class,
    possible_survivors,
    separating_weight,
)
from pegsat.model.catalogue import get_board
from pegsat.model.problem import holes_of


def test_basis_is_even_on_every_line():
    for name in ["english", "french", "triangle-7", "hopping-dots", "english-diagonal"]:
        b = get_board(name)
        for w in class_basis(b):
            for a, m, c in b.lines:
                assert ((1 << a | 1 << m | 1 << c) & w).bit_count() % 2 == 0


def test_english_has_16_classes_and_d4_survivors():
    b = get_board("english")
    assert len(class_basis(b)) == 4
    got = {b.names[h] for h in possible_survivors(b, b.full & ~(1 << b.hole("d4")))}
    assert got == {"d1", "a4", "d4", "g4", "d7"}


def test_french_21_vacancies_never_one_peg():
    b = get_board("french")
    hopeless = [v for v in range(b.n) if not possible_survivors(b, b.full & ~(1 << v))]
    assert len(hopeless) == 21
    assert b.hole("d4") in hopeless and b.hole("c1") not in hopeless


def test_witness_checks_and_tamper():
    b = get_board("english")
    start = b.full & ~(1 << b.hole("d4"))
    w = separating_weight(b, start, 1 << b.hole("c4"))
    assert w is not None and check_witness(b, start, 1 << b.hole("c4"), w.weights)
    tampered = type(w)(w.weights ^ (1 << holes_of(w.weights)[0]), w.start_parity, w.goal_parity)
    assert not check_witness(b, start, 1 << b.hole("c4"), tampered.weights)
    assert separating_weight(b, start, 1 << b.hole("d1")) is None


def test_class_is_invariant_under_jumps():
    from pegsat.engine.bitboard import engine
    b = get_board("triangle-6")
    eng = engine(b)
    pos = b.full & ~1
    for _ in range(10):
        legal = eng.legal(pos)
        if not legal:
            break
        nxt = eng.apply(pos, legal[len(legal) // 2])
        assert position_class(b, nxt) == position_class(b, pos)
        pos = nxt
