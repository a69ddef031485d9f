"""The one table of anchor cases where ours is worse than the anchor's answer (sound, but looser or larger).

Each entry is ``case id -> why``; the tables mark these ``xfail(strict=True)``, so a case that
improves fails until it is taken off this list, and the count of gaps stays visible
(``python -m tests.anchors.report`` prints same / better / worse per table).
"""

from __future__ import annotations

import pytest

GAPS: dict[str, str] = {
    "rw-add-23": "ours stops at FloorDiv(x, 2) + Mod(x, 2) + 3: folding a floordiv and a mod back into one "
                 "floordiv ((x + 1) // 2) is not a rule we have",
    "rw-two-8": "the same fold: x // 2 + x % 2 -> (x + 1) // 2",
    "rw-min-26": "needs 4*((x + 3) // 4) >= max(4, x) for x > 0: a case split on the max inside the rewrite "
                 "(the decision procedure has it, the rewriter's dominance test does not)",
    "rw-cmp-36": "recognising 0 <= x - 5*y < 5 as the definition of y == x // 5 is not a rule we have",
    "rw-cmp-39": "narrowing a range by a known floormod bound inside a conjunction (TVM's 'merge a known floordiv "
                 "and an upper bound of floormod') is not a rule we have",
    "rw-cmp-40": "as rw-cmp-39, for a lower bound of the floormod",
    "rw-cmp-53": "nonlinear: x*y < (x + y)*2048 for 0 < x < 2048 needs TVM's ComparisonOfProductAndSum "
                 "extension (ours: Z3 decides it)",
    "rw-cmp-54": "as rw-cmp-53",
}


def marks(cases):
    """The cases as pytest params, the known gaps marked xfail(strict=True) with their reason."""
    return [pytest.param(c, marks=pytest.mark.xfail(strict=True, reason=GAPS[c[0]])) if c[0] in GAPS else c
            for c in cases]
