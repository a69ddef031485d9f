"""The one table of anchor cases where ours is worse than the anchor's answer (sound, but looser or larger).

Each entry is ``case id -> why``; the tables mark these ``xfail(strict=True)``, so a case that
improves fails until it is taken off this list, and the count of gaps stays visible
(``python -m tests.anchors.report`` prints same / better / worse per table).
"""

from __future__ import annotations

import pytest

GAPS: dict[str, str] = {}


def marks(cases):
    """The cases as pytest params, the known gaps marked xfail(strict=True) with their reason."""
    return [pytest.param(c, marks=pytest.mark.xfail(strict=True, reason=GAPS[c[0]])) if c[0] in GAPS else c
            for c in cases]
