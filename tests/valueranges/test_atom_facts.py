"""The definitional facts of atoms (``valueranges.linear_facts.atom_facts``), shared between the facts of a trace.

Note [Definitions of atoms are cached] keys the cache by the atom and one bit of the ranges (the
divisor known positive): the table checks that the bit is honoured both ways, that the facts are
true by brute force, and that a second ``Facts`` asking for the same atom gets the same facts.
"""

from __future__ import annotations

import itertools
import math

import pytest

from symint import form as F
from valueranges.linear_facts import atom_facts

INF = math.inf
x, y = F.sym("x"), F.sym("y")

CASES = [  # (atom, ranges, expected number of facts)
    (F.floordiv(x, y).atom(), {"y": (1, 9)}, 2),
    (F.floordiv(x, y).atom(), {"y": (-3, 9)}, 0),  # a divisor that may be <= 0: no definition
    (F.floordiv(x, y).atom(), {"y": (1, 9)}, 2),  # asked again after the other bit: not the cached 0
    (F.mod(x, y).atom(), {"y": (-3, 9)}, 0),
    (F.mod(x, y).atom(), {"y": (2, 5)}, 3),
    (F.mod(x, F.const(4)).atom(), {}, 3),
    (F.floordiv(x, F.const(-3)).atom(), {}, 2),  # Note [A negative divisor]: k*q + k + 1 <= x <= k*q
    (F.mod(F.add(x, y), F.const(-2)).atom(), {}, 3),
    (F.max_(x, y).atom(), {}, 2),
    (F.min_(x, y).atom(), {"x": (-INF, 0)}, 2),
]


@pytest.mark.parametrize("atom, ranges, count", CASES, ids=[f"{a.kind}-{r}" for a, r, _ in CASES])
def test_atom_facts_follow_the_divisor_bit_and_hold(atom, ranges, count):
    facts = atom_facts(atom, ranges, {})
    assert len(facts) == count, (atom, ranges, facts)
    assert atom_facts(atom, ranges, {}) == facts  # the shared copy is the same list of norms
    for vx, vy in itertools.product(range(-12, 13), range(-6, 7)):
        lo, hi = ranges.get("y", (-INF, INF))
        if not lo <= vy <= hi or (atom.kind in ("floordiv", "mod") and atom.args[1].value({"y": vy}) == 0):
            continue
        values = {"x": vx, "y": vy}
        for n in facts:
            assert n.holds_for(n.p.value(values)), (n, values)


def test_callers_may_modify_the_list_they_get():
    atom = F.floordiv(x, F.const(3)).atom()
    first = atom_facts(atom, {}, {})
    first.clear()
    assert len(atom_facts(atom, {}, {})) == 2
