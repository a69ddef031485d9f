"""Modular sets (issue 24, B2): each rule of ``valueranges.modular`` checked by brute force, the bound it gives
to ``%``, the Chinese-remainder combination, and the congruences ``Facts`` learns from guards."""

from __future__ import annotations

import itertools
import random

import pytest

from valueranges.errors import ContradictoryFactsError
from valueranges.facts import Facts
from symint.form import logic as B
from symint import form as F
from symint.sympy_io import to_sympy
from valueranges.bound import bound_form
from valueranges.modular import combine_congruences, mod_bound_by_residue, modular_set

x, y = F.sym("x"), F.sym("y")
k = F.const


def _holds(f, coeff, base, points):
    for env in points:
        v = f.value(env)
        if coeff == 0:
            assert v == base, (to_sympy(f), env, v, base)
        else:
            assert (v - base) % coeff == 0, (to_sympy(f), env, v, coeff, base)


def _random_form(rng: random.Random, depth: int) -> F.Form:
    if depth == 0 or rng.random() < 0.25:
        return rng.choice([x, y, k(rng.randint(-9, 9))])
    op = rng.choice(["add", "scale", "mul", "floordiv", "mod", "lin", "max", "min"])
    a = _random_form(rng, depth - 1)
    if op == "add":
        return F.add(a, _random_form(rng, depth - 1))
    if op in ("max", "min"):
        return (F.max_ if op == "max" else F.min_)(a, _random_form(rng, depth - 1))
    if op == "scale":
        return F.scale(a, rng.choice([2, 3, 4, 6, 8, -4, 12]))
    if op == "mul":
        return F.mul(a, _random_form(rng, depth - 1))
    if op == "lin":
        return F.add(F.scale(a, rng.choice([4, 6, 8, 64, 320])), k(rng.randint(-300, 300)))
    d = k(rng.choice([2, 3, 4, 8, 16]))
    return F.floordiv(a, d) if op == "floordiv" else F.mod(a, d)


POINTS = [{"x": a, "y": b} for a, b in itertools.product(range(-20, 21), range(-6, 7))]


@pytest.mark.parametrize("seed", range(40))
def test_modular_set_rules_by_brute_force(seed):
    """Every rule (sum, multiple, product, // and % by a constant) on random forms: each value is base mod coeff."""
    rng = random.Random(seed)
    for _ in range(25):
        f = _random_form(rng, 3)
        _holds(f, *modular_set(f), POINTS)


def test_modular_set_with_known_residues_by_brute_force():
    residues = {"x": (4, 1), "y": (6, 3)}
    points = [{"x": 4 * i + 1, "y": 6 * j + 3} for i in range(-8, 9) for j in range(-5, 6)]
    for f in (F.add(x, y), F.mul(x, y), F.floordiv(F.scale(x, 8), k(4)), F.mod(F.add(x, y), k(8)), F.scale(F.mul(x, x), 3)):
        _holds(f, *modular_set(f, residues), points)
    assert modular_set(F.mul(x, y), residues) == (6, 3)


ANCHORS = [
    # TVM test_arith_const_int_bound / modular_set: (x, d, expected residue bound)
    (F.add(F.scale(x, 320), k(255)), 256, (63, 255)),
    (F.add(F.scale(x, 64), k(61)), 256, (61, 253)),
    (F.scale(x, 8), 6, (0, 4)),
    (F.add(F.scale(x, 10), k(3)), 5, (3, 3)),
    (F.add(F.scale(x, 6), F.scale(y, 9)), 12, (0, 9)),
]


@pytest.mark.parametrize("form, d, expected", ANCHORS, ids=[str(i) for i in range(len(ANCHORS))])
def test_mod_bound_by_residue(form, d, expected):
    got = mod_bound_by_residue(form, d)
    assert got == expected
    values = {(form.value(env)) % d for env in POINTS}
    assert got[0] <= min(values) and max(values) <= got[1]
    assert bound_form(F.mod(form, k(d)), {}, {}) == expected  # the form bound uses it


@pytest.mark.parametrize("m1, m2", [(4, 3), (4, 6), (6, 10), (8, 12), (5, 5), (1, 7), (9, 6)])
def test_combine_congruences_by_brute_force(m1, m2):
    for r1, r2 in itertools.product(range(m1), range(m2)):
        both = [v for v in range(-200, 200) if v % m1 == r1 and v % m2 == r2]
        got = combine_congruences((m1, r1), (m2, r2))
        if not both:
            assert got is None
        else:
            m, r = got
            assert both == [v for v in range(-200, 200) if v % m == r], (m1, r1, m2, r2, got)


a = F.sym("a")


def _congruence(modulus: int, residue: int) -> B.BoolForm:
    return B.rel("==", F.mod(a, k(modulus)), k(residue))


def _facts(*learned: tuple[int, int]) -> Facts:
    facts = Facts()
    for modulus, residue in learned:
        facts.learn_form(_congruence(modulus, residue))
    return facts


CONGRUENCE_CASES = [
    # (learned congruences of a, asked a % m == r, expected decide answer)
    (((4, 1), (3, 1)), (12, 1), True),  # a = 1 mod 4 and a = 1 mod 3 proves a = 1 mod 12 (was: only mod 4)
    (((4, 1), (3, 1)), (6, 1), True),
    (((4, 1), (3, 1)), (24, 1), None),
    (((4, 1), (3, 1)), (2, 0), False),
    (((2, 0), (3, 1)), (6, 4), True),  # a divisibility fact combines with a residue
]


@pytest.mark.parametrize("learned, asked, expected", CONGRUENCE_CASES, ids=str)
def test_facts_combine_congruences(learned, asked, expected):
    got = _facts(*learned).decide(_congruence(*asked))
    assert got is expected, f"learned {learned}, asked a % {asked[0]} == {asked[1]}: got {got}, expected {expected}"


def test_facts_refuse_a_contradicting_congruence():
    with pytest.raises(ContradictoryFactsError):
        _facts((4, 1), (3, 1), (6, 2))
