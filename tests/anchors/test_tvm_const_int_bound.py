"""TVM ``tests/python/arith/test_arith_const_int_bound.py``, integer cases (floordiv/floormod; no dtypes,
casts, truncdiv, shifts, vectors), as data: ``(id, expression, ranges, TVM's (lo, hi), constraints)``.
``None`` for an end TVM does not check. Ours is ``Facts.bound``; see ``_compare`` for the judging."""

from __future__ import annotations

import math

import pytest

from ._algebra import mn, mx, var
from ._compare import BETTER, SAME, judge_bound
from .gaps import marks

INF = math.inf
x, y, a, b, bx, tx = (var(n) for n in ("x", "y", "a", "b", "bx", "tx"))

CASES = [
    ("cib-add-1", x + y, {}, (-INF, INF), ()),
    ("cib-add-2", x + y, {"x": (0, 4), "y": (1, 10)}, (1, 14), ()),
    ("cib-sub-1", x - y, {"x": (0, 4), "y": (1, 10)}, (-10, 3), ()),
    ("cib-sub-2", x - y, {"x": (0, INF), "y": (1, 10)}, (-10, INF), ()),
    ("cib-sub-3", 1 - x, {"x": (0, INF), "y": (1, 10)}, (-INF, 1), ()),
    ("cib-mul-1", x * y + 20, {"x": (-2, 4), "y": (4, 10)}, (0, 60), ()),
    ("cib-mul-2", x * y, {"x": (-3, 4), "y": (-8, 2)}, (-32, 24), ()),
    ("cib-mul-3", x * y, {"x": (-INF, 4), "y": (-8, 2)}, (-INF, INF), ()),
    ("cib-fld-1", x // y, {"x": (-9, 4), "y": (4, 10)}, (-9 // 4, None), ()),
    ("cib-fld-2", x // y, {"x": (-9, 4), "y": (-2, 0)}, (-4, 9), ()),
    ("cib-fld-3", x // y, {"x": (-INF, 4), "y": (-2, 1)}, (-INF, INF), ()),
    ("cib-fld-4", x // y, {"x": (-9, 4), "y": (-4, 12)}, (-9, 9), ()),
    ("cib-flm-1", x % y, {"x": (-9, 4), "y": (4, 10)}, (0, 9), ()),
    ("cib-flm-2", x % y, {"y": (4, 10)}, (0, 9), ()),
    ("cib-flm-3", x % y, {"x": (1, INF), "y": (4, 10)}, (0, 9), ()),
    ("cib-min-1", mn(x, y), {"x": (-9, 11), "y": (4, 10)}, (-9, 10), ()),
    ("cib-min-2", mn(x, y), {"y": (4, 10)}, (-INF, 10), ()),
    ("cib-max-1", mx(x, y), {"y": (4, 10)}, (4, INF), ()),
    ("cib-max-2", mx(x, y), {"x": (1, INF), "y": (4, 10)}, (4, INF), ()),
    ("cib-mix-1", x % 8 + (x // 8) * 8, {"x": (0, 23), "y": (0, 2)}, (0, 23), ()),
    ("cib-mix-2", y + x * 3, {"x": (0, 23), "y": (0, 2)}, (0, 71), ()),
    ("cib-mix-3", x % 7 + (x // 7) * 7, {"x": (0, 23), "y": (0, 2)}, (0, (23 // 7) * 7 + 6), ()),
    ("cib-negdiv", a % b, {"a": (0, 6), "b": (-5, 7)}, (-4, 6), ()),
    ("cib-nozero-1", a // b, {"a": (0, 6), "b": (0, INF)}, (0, 6), ()),
    ("cib-nozero-2", a % b, {"a": (0, 6), "b": (0, INF)}, (0, 6), ()),
    ("cib-cond", a % 58 - 1, {"a": (0, 128)}, (0, None), (1 <= a % 58, a % 58 < 57)),
    ("cib-modset", (bx * 2048 + tx * 16) % 7168, {"bx": (0, 3584), "tx": (0, 128)}, (0, 7152), ()),
]


@pytest.mark.parametrize("case", marks(CASES), ids=lambda c: c[0])
def test_const_int_bound(case):
    cid, expr, ranges, expected, constraints = case
    status, ours = judge_bound(expr, ranges, expected, constraints)
    assert status in (SAME, BETTER), f"{cid}: ours {ours}, TVM {expected}"
