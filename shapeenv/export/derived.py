"""Constraint violations of derived dims (``2 * dim``, ``dim + 1``) in :func:`shapeenv.export.export.export`.

A derived dim is an affine function of its root Dim, so its declared range is the
one it inherits from the root's: ``dim1`` in ``[2, 5]`` makes ``2 * dim1`` range over
``[4, 10]``. A guard that specialises it or narrows that range is a violation, and
the message names the inherited range and the root (``2 <= dim1 <= 5``), and the fix
is stated for the root (a derived dim has no bounds of its own).

>>> from shapeenv import Dim, export
>>> dim1 = Dim("dim1", min=2, max=5)
>>> try:
...     export(lambda y: y if y.shape[0] > 6 else y, ((6,),), dynamic_shapes=({0: 2 * dim1},))
... except Exception as e:
...     print(str(e).splitlines()[1].strip())
- not all values of y.size()[0] = 2*dim1 in its inherited range [4, 10] (inherited from 2 <= dim1 <= 5) satisfy the guard s0 <= 6: only [4, 6] do
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from symint.lazy_sympy import sympy

from guards import Source
from valueranges import bound

from shapeenv.core.provenance import GuardRecord
from shapeenv.tensor.dims import Dim

if TYPE_CHECKING:  # pragma: no cover
    from valueranges.facts import Facts

__all__ = ["Declared", "Violation", "judge_derived", "inherited_range_text"]


@dataclass(frozen=True, slots=True)
class Violation:
    """One dim declared dynamic that tracing constrained more than its declaration allows.

    Attributes:
        label: the Dim's name, or the source text for ``Dim.DYNAMIC``.
        source: the input dim (``x.size()[0]``).
        kind: ``"zero_one"``, ``"specialised"``, ``"unified"``, ``"narrowed"`` or ``"divisible"``.
        detail: what happened, in words.
        suggestion: what to change.
        guard: the recorded guard that caused it (None for 0/1 specialisation of the example).
    """

    label: str
    source: Source
    kind: str
    detail: str
    suggestion: str
    guard: GuardRecord | None = None

    def __str__(self) -> str:
        where = f"\n    the guard was recorded at {self.guard.provenance}" if self.guard is not None else ""
        return f"{self.detail}{where}"


@dataclass(frozen=True, slots=True)
class Declared:
    """An input dim (or int) the caller declared dynamic, and the symbol it got."""

    source: Source
    spec: Dim
    symbol: sympy.Symbol

    @property
    def label(self) -> str:
        return self.spec.name if self.spec.is_named else self.source.text()

    @property
    def where(self) -> str:
        src = self.source
        return f"dynamic_shapes[{src.base!r}][{src.index}]" if src.kind == "size" else f"dynamic_shapes[{src.base!r}]"


def _fmt(v) -> str:
    return "oo" if v == math.inf else str(int(v))


def inherited_range_text(spec) -> str:
    """``[4, 10] (inherited from 2 <= dim1 <= 5)`` for ``2 * Dim("dim1", min=2, max=5)``.

    >>> from shapeenv.tensor.dims import Dim
    >>> inherited_range_text(2 * Dim("dim1", min=2, max=5))
    '[4, 10] (inherited from 2 <= dim1 <= 5)'
    """
    lo, hi = spec.range
    rlo, rhi = spec.root.range
    root = f"{rlo} <= {spec.root.name}" + ("" if rhi == math.inf else f" <= {rhi}")
    return f"[{_fmt(lo)}, {_fmt(hi)}] (inherited from {root})"


def judge_derived(env, facts: "Facts", d: Declared, record: GuardRecord, roots: set[str]):
    """The violation ``record`` causes for the derived dim ``d``, or None.

    ``roots``: the names of the named Dims that are input dims themselves; a guard that
    narrows such a root is reported for the root only (as torch does).
    """
    spec = d.spec
    value = facts.simplify(d.symbol)
    label = f"{d.source.text()} = {spec!r}"
    if value.is_Number:
        return Violation(
            spec.root.name, d.source, "specialised",
            f"{label} was declared dynamic, with the range {inherited_range_text(spec)}, but the guard "
            f"{record.expr} specialised it to the constant {value}",
            f"{spec.root.name} = {(int(value) - spec.offset) // spec.coeff}   # the root of {d.where} = {spec!r}; "
            f"or change the code that pins it",
            record,
        )
    lo, hi = spec.range
    now = bound(value, facts.ranges)
    if (now.lower > lo or now.upper < hi) and spec.root.name not in roots:
        rlo = math.ceil((now.lower - spec.offset) / spec.coeff)
        rhi = None if now.upper == math.inf else (int(now.upper) - spec.offset) // spec.coeff
        bounds = f"min={rlo}" + ("" if rhi is None else f", max={rhi}")
        return Violation(
            spec.root.name, d.source, "narrowed",
            f"not all values of {label} in its inherited range {inherited_range_text(spec)} satisfy the guard "
            f"{record.expr}: only [{_fmt(now.lower)}, {_fmt(now.upper)}] do",
            f"{spec.root.name} = Dim({spec.root.name!r}, {bounds})   # {d.where} = {spec!r} then ranges over the values allowed",
            record,
        )
    return None
