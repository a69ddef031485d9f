"""TVM ``tests/python/arith/test_arith_canonical_simplify.py``, integer floordiv/floormod cases (truncdiv
cases only where every argument is provably non-negative, where they are floor division), as data:
``(id, before, TVM's after, ranges)``. Ours is ``valueranges.rewrite.simplify`` on the engine's form."""

from __future__ import annotations

import math

import pytest

from symint.sympy_io import to_sympy

from ._algebra import const, mx, mn, var
from ._compare import BETTER, SAME, judge_bool, judge_form
from .gaps import marks

INF = math.inf
x, y, z, d_tile, i, v = (var(n) for n in ("x", "y", "z", "d_tile", "i", "v"))
x1, x2, ty, tx, vec, n = (var(n) for n in ("x1", "x2", "ty", "tx", "vec", "n"))

CASES = [
    ("cs-sum-1", 2 + (3 * x + z + y + 1) * 4 + x, x * 13 + z * 4 + y * 4 + 6, {}),
    ("cs-sum-2", x * 3 - 4 * x + 1, 1 - x, {}),
    ("cs-sum-3", y + x * 3 - 5 * x + 1 + y, y * 2 + 1 - x * 2, {}),
    ("cs-fl-1", (x + x + y * 3) % 2, (y * 3) % 2, {}),
    ("cs-fl-2", (x + y + x + y * 3) // 2, y * 2 + x, {}),
    ("cs-fl-3", (x + y + x + y * 3) % 2, const(0), {}),
    ("cs-fl-4", (x + x + y * 3) // 2, (y * 3) // 2 + x, {}),
    ("cs-split-1", (x * 5) // 2, (x * 5) // 2, {}),
    ("cs-split-2", (x // 3) * 3 + x % 3, x, {}),
    ("cs-split-3", (x // 6) * 6 + ((x // 3) % 2) * 3 + x % 3, x, {}),
    ("cs-split-4", (((x % 16) // 2) * 2) // 4, (x % 16) // 4, {}),
    ("cs-split-5", (x % 2) // 8, const(0), {}),
    ("cs-split-6", (x % 2) // 7, const(0), {}),
    ("cs-split-7", (((x % 16) // 2) * 2) // 6, (x % 16) // 6, {}),
    ("cs-split-8", ((d_tile * 16 + i * 8 + v) % 64) // 8, (d_tile * 2 + i) % 8,
     {"d_tile": (0, 7), "i": (0, 1), "v": (0, 7)}),
    ("cs-split-9", (x * 4 + y) // 2 * 2 + (x * 4 + y) % 2, x * 4 + y, {"x": (0, 1000), "y": (0, 1000)}),
    ("cs-split-10", (z * 9 + y) // 2 * 2 + (z * 9 + y) % 2, z * 9 + y, {"x": (0, 1000), "y": (0, 1000)}),
    ("cs-div-1", (16 + 48 * x) // 16, x * 3 + 1, {"x": (-1000, 10000)}),
    ("cs-div-2", (17 + 48 * x) // 16, x * 3 + 1, {"x": (-1000, 10000)}),
    ("cs-div-3", (17 + 47 * x) // 16, (x * 47 + 17) // 16, {"x": (-1000, 10000)}),
    ("cs-flm-1", ((x * 4 + y - 466036) % 24528 - 24512) % 16, (x * 4 + y + 12) % 16, {}),
    ("cs-flm-2", ((x * 4) % 16) % 8, (x % 2) * 4, {}),
    ("cs-flm-3", (-x) % 2, (x % -2) * -1, {}),
    ("cs-mixed-1", x // 9 - x // 9, const(0), {}),
    ("cs-mixed-2", x // 6 - x // 6, const(0), {}),
    ("cs-mixed-3", mx(x, 1) - mx(x, 1), const(0), {}),
    ("cs-mixed-4", mn(x, 1) - mn(x, 1), const(0), {}),
    ("cs-mixed-5", x * x - x * x, const(0), {}),
    ("cs-mixed-6", (((x % 20) // 2) * 2) % 4, ((x % 4) // 2) * 2, {}),
    ("cs-complex-1", ((((x * 128 + y) % 1296) // 36) * 2 + 1) // 2 * 36 + (((x * 128 + y) % 36) * 2 + 1) // 2
     - (x * 128 + y) % 1296 + 1, const(1), {"x": (0, 5), "y": (0, 127)}),
    ("cs-complex-2", (x * 1024 + y) // 65536 + ((x * 1024 + y) % 65536) // 256 + ((x * 1024 + y) % 256) // 16
     + (x * 1024 + y) % 16 - y // 256 - (y % 256) // 16 - y % 16 - x * 4,
     (x * 1024 + y) // 256 - y // 256 - x * 4, {"x": (0, 5), "y": (0, 1024)}),
    ("cs-cast-flm", ((var("axis") % 7) * 2 + 1) + 1 - (var("axis") % 7) * 2, const(2), {"axis": (0, 42)}),
    ("cs-prod-1", (x * 32 * x) % x, const(0), {}),
    ("cs-prod-2", (z * x * 32 * x * y) % (x * z), const(0), {}),
    ("cs-prod-3", (z * x * 32 * x * y) % (x * z * y * 8 * x), const(0), {}),
    ("cs-prod-4", (z * x * 32 * (x * y)) % (6 * x * z), ((x * y * 16) % 3) * (x * z * 2), {}),
    ("cs-prod-5", (x * 32 * x) % (x * z), ((x * 32) % z) * x, {}),
    ("cs-prod-6", (x * 2 * x * z) // (4 * x * x * x), z // (x * 2), {}),
    ("cs-prod-7", (x * (2 * y) * 3) // (3 * y), x * 2, {}),
    ("cs-prod-8", (x * (2 * y) * 3) // (3 * y * z), (x * 2) // z, {}),
    ("cs-flm-two", (x * 10 + 1 + y * 2 + 2) % 2, const(1), {}),
]

LE_CASES = [
    ("cs-le-1", x * 8 + y < 16, x < 2, {"y": (0, 7), "z": (0, 1)}),
    ("cs-le-2", x * 8 + z * 4 < 16, x < 2, {"y": (0, 7), "z": (0, 1)}),
    ("cs-le-3", x * -8 + y < 16, x > -2, {"y": (0, 7), "z": (0, 1)}),
    ("cs-le-4", x * -8 + z * 4 < 16, x > -2, {"y": (0, 7), "z": (0, 1)}),
    ("cs-le-5", x * 8 + y + z < 16, x * 8 + y + z < 16, {"y": (0, 7), "z": (0, 1)}),
    ("cs-le-6", x * 8 + y < n, x * 8 + y < n, {"y": (0, 7), "z": (0, 1), "n": (0, INF)}),
    ("cs-le-7", x1 * 5632 + (((x2 * 8 + ty) * 32 + tx) * 8 + vec) % 5632 < 11008, x1 * 22 + (x2 * 8 + ty) % 22 < 43,
     {"x1": (0, 1), "x2": (0, 2), "ty": (0, 7), "tx": (0, 31), "vec": (0, 7)}),
    ("cs-le-8", (tx // 2) % 8 + vec < 8, (tx % 16) // 2 + vec < 8, {"tx": (0, 31), "vec": (0, 7)}),
    ("cs-le-9", x * 1024 + y < z * 7168, x - z * 7 < 0, {"y": (0, 1023)}),
    ("cs-mixed-le", x - 2 < 3, x < 5, {}),
]


@pytest.mark.parametrize("case", marks(CASES), ids=lambda c: c[0])
def test_canonical_simplify(case):
    cid, before, expected, ranges = case
    status, ours = judge_form(before, expected, ranges)
    assert status in (SAME, BETTER), f"{cid}: ours {to_sympy(ours)}, TVM {to_sympy(expected.form)}"


@pytest.mark.parametrize("case", marks(LE_CASES), ids=lambda c: c[0])
def test_canonical_simplify_relations(case):
    cid, before, expected, ranges = case
    status, ours = judge_bool(before, expected, ranges)
    assert status in (SAME, BETTER), f"{cid}: ours {to_sympy(ours)}, TVM {to_sympy(expected)}"
