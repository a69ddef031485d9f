"""TVM ``tests/python/arith/test_arith_modular_set.py``, integer floor cases (no casts, truncdiv/truncmod,
shifts, bitwise, lets), as data: ``(id, expression, TVM's (coeff, base), constraints)``.
Ours is ``Facts.modular_set`` (constraints learned as facts, congruences combined)."""

from __future__ import annotations

import pytest

from ._algebra import mn, mx, var
from ._compare import BETTER, SAME, judge_modular
from .gaps import marks

x, y, a, b = (var(n) for n in "xyab")

CASES = [
    ("ms-add-1", x * 6 + y * 4, (2, 0), ()),
    ("ms-add-2", 1 - y, (4, 0), ((y).eq(x * 4 + 1),)),
    ("ms-mul", (x * 4 + 2) * (y * 6 + 1), (4, 2), ()),
    ("ms-flm-1", (x * 128 + y * 4) % 256, (4, 0), ()),
    ("ms-fld-1", (x * 4 + 2) // 2, (2, 1), ()),
    ("ms-flm-2", (x * 4 + 3) % 2, (2, 1), ()),
    ("ms-flm-3", (x * 4 + 3) % 8, (4, 3), ()),
    ("ms-min", mn(x * 3, y * 9), (3, 0), ()),
    ("ms-max", mx(x * 3 + 1, y * 9 + 4), (3, 1), ()),
    ("ms-mix-1", a * 4 + b * 6 + 7, (2, 1), ()),
    ("ms-mix-2", (a * 4 + 1) * (b * 8 + 3), (4, 3), ()),
    ("ms-mix-3", (a * 4 + 1) * ((b * 8) // 4), (2, 0), ()),
    ("ms-mix-4", (a * 12 + 1) - (b * 3 * 7 + 2), (3, 2), ()),
    ("ms-mix-5", a * 12 + mn(b * 3 * 7, 2), (1, 0), ()),
    ("ms-scope-1", b + 1, (4, 3), ((b % 4).eq(2),)),
    ("ms-scope-2", b + a * 2, (4, 0), ((b % 4).eq(2), (a % 2).eq(1))),
    ("ms-scope-3", b + a * 2, (2, 0), ((b % 4).eq(2),)),
    ("ms-scope-4", b + 1, (1, 0), ()),
    ("ms-intersect-1", a, (12, 1), ((a % 4).eq(1), (a % 3).eq(1))),
    ("ms-intersect-2", a, (105, 23), ((a % 3).eq(2), (a % 5).eq(3), (a % 7).eq(2))),
]


@pytest.mark.parametrize("case", marks(CASES), ids=lambda c: c[0])
def test_modular_set(case):
    cid, expr, expected, constraints = case
    status, ours = judge_modular(expr, expected, constraints)
    assert status in (SAME, BETTER), f"{cid}: ours {ours}, TVM {expected}"
