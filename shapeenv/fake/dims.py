"""``Dim``: how a dimension of an input is made symbolic, as in ``torch.export``.

``Dim("batch", min=2, max=64)`` names a dynamic dim (dims with the same name in
different inputs are the same symbol); ``Dim.DYNAMIC`` is a dynamic dim of its
own; ``Dim.STATIC`` keeps the example's size.

>>> Dim("batch", min=2, max=64), Dim.DYNAMIC, Dim.STATIC
(Dim('batch', min=2, max=64), Dim.DYNAMIC, Dim.STATIC)
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from ..errors import UnknownDimSpecError

__all__ = ["Dim"]


class _DimSpecs(type):
    """Dim's metaclass: ``Dim.<NAME>`` for a spec this library lacks is a typed error listing the ones it has."""

    def __getattr__(cls, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        specs = [n for n in sorted(vars(cls)) if n.isupper()]
        have = ", ".join(f"Dim.{n}" for n in specs)
        close = difflib.get_close_matches(name, specs, n=1)
        if name == "AUTO":
            fix = "Dim.DYNAMIC (a dynamic dim of its own; tracing may add guards on it)"
        elif close:
            fix = f"Dim.{close[0]}"
        else:
            fix = "Dim('name', min=..., max=...) for a named dynamic dim, or one of " + have
        raise UnknownDimSpecError(
            f"Dim.{name} is not supported by this version of shapeenv (torch.export's specs it has: "
            f"Dim('name', min=, max=), {have})",
            fix=f"use {fix}",
        )


@dataclass(frozen=True, slots=True)
class Dim(metaclass=_DimSpecs):
    """A dynamic-dimension spec; see the module docstring."""

    name: str
    min: int | None = None
    max: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"a Dim needs a non-empty name, got {self.name!r}")
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(f"Dim {self.name!r}: min {self.min} is greater than max {self.max}")

    @property
    def is_named(self) -> bool:
        """Whether this is a user-named dim (shared by name), not DYNAMIC/STATIC."""
        return self.name not in ("<dynamic>", "<static>")

    def __repr__(self) -> str:
        if self.name == "<dynamic>":
            return "Dim.DYNAMIC"
        if self.name == "<static>":
            return "Dim.STATIC"
        bounds = "".join(f", {k}={v}" for k, v in (("min", self.min), ("max", self.max)) if v is not None)
        return f"Dim({self.name!r}{bounds})"


Dim.DYNAMIC = Dim("<dynamic>")  # type: ignore[attr-defined]
Dim.STATIC = Dim("<static>")  # type: ignore[attr-defined]
