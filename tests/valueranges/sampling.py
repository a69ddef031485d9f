"""What the sampling soundness tests share: mapping a drawn integer into a range."""

from __future__ import annotations

import math

from valueranges import ValueRanges


def project(raw: int, r: ValueRanges) -> int:
    """Map an arbitrary integer into ``r`` (so that sampling needs one cheap draw per point).

    >>> project(-7, ValueRanges.of(2, 4)), project(-7, ValueRanges.of(-math.inf, 0))
    (4, -7)
    """
    if r.lower == -math.inf and r.upper == math.inf:
        return raw
    if r.lower == -math.inf:
        return r.upper - abs(raw)
    if r.upper == math.inf:
        return r.lower + abs(raw)
    return r.lower + raw % (r.upper - r.lower + 1)
