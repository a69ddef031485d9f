"""``Dim``: how a dimension of an input is made symbolic, as in ``torch.export``.

``Dim("batch", min=2, max=64)`` names a dynamic dim (dims with the same name in
different inputs are the same symbol); ``Dim.DYNAMIC`` is a dynamic dim of its
own; ``Dim.STATIC`` keeps the example's size; ``Dim.AUTO`` is dynamic where tracing
allows it and silently specialised where it does not (torch's ``Dim.AUTO``: no
constraint violation is ever reported for it); ``Dim.UNBACKED`` is a data-dependent size
with no hint (what torch's ``mark_unbacked`` makes of a dim).

Two extensions of torch's spec:

* **Derived dims** (torch has them too): ``2 * dim``, ``dim + 1``, ``4 * Dim("np") - 2``
  are :class:`DerivedDim` s, an affine function ``a * root + b`` of a root Dim. The input
  dim is that expression of the root's symbol, and its range is the one it inherits
  from the root's (``dim`` in ``[2, 5]`` makes ``2 * dim`` range over ``[4, 10]``).
* **Set-valued dims**: ``Dim("b", choices=(1, 8, 16))`` is a dynamic dim that may only
  take those values; the produced guards say ``x.size()[0] in (1, 8, 16)``, and since
  the choices are declared, 1 (or 0) among them is not specialised.

>>> Dim("batch", min=2, max=64), Dim.DYNAMIC, Dim.STATIC, Dim.AUTO
(Dim('batch', min=2, max=64), Dim.DYNAMIC, Dim.STATIC, Dim.AUTO)
>>> d = Dim("d", min=2, max=5); 2 * d, d + 1, 4 * Dim("np") - 2, Dim("b", choices=(16, 1, 8))
(2*d, d + 1, 4*np - 2, Dim('b', choices=(1, 8, 16)))
>>> (2 * d).range
(4, 10)
"""

from __future__ import annotations

import difflib
import math
from dataclasses import dataclass

from shapeenv.errors import DimSpecError, DimSpecTypeError, UnknownDimSpecError

__all__ = ["Dim", "DerivedDim"]

_SPECIAL = ("<dynamic>", "<static>", "<auto>", "<duck>", "<unbacked>")


def _check_int(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise DimSpecTypeError(f"{what} must be an int, got {value!r}")
    return value


class _DimSpecs(type):
    """Dim's metaclass: ``Dim.<NAME>`` for a spec this library lacks is a typed error listing the ones it has."""

    def __getattr__(cls, name: str):
        if name.startswith("_"):
            raise AttributeError(name)  # private names: hasattr/copy/pickle probes expect the plain AttributeError
        specs = [n for n in sorted(vars(cls)) if n.isupper()]
        have = ", ".join(f"Dim.{n}" for n in specs)
        close = difflib.get_close_matches(name, specs, n=1)
        if close:
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
    """A dynamic-dimension spec; see the module docstring.

    Attributes:
        name: the Dim's name (dims with the same name are one symbol).
        min / max: declared bounds (None: unbounded).
        choices: the only values the dim may take, or None (:attr:`values` has them sorted).
    """

    name: str
    min: int | None = None
    max: int | None = None
    choices: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise DimSpecError(f"a Dim needs a non-empty name, got {self.name!r}", fix='Dim("batch", min=1, max=64)')
        if self.min is not None and self.max is not None and self.min > self.max:
            raise DimSpecError(f"Dim {self.name!r}: min {self.min} is greater than max {self.max}", fix=f"Dim({self.name!r}, min={self.max}, max={self.min})")
        if self.choices is not None:
            values = self.values
            if not values:
                raise DimSpecError(f"Dim {self.name!r}: choices must name at least one value", fix=f"Dim({self.name!r}, choices=(1, 8))")
            if any(v < 0 for v in values):
                raise DimSpecError(f"Dim {self.name!r}: sizes cannot be negative, got choices {values}", fix=f"Dim({self.name!r}, choices={tuple(v for v in values if v >= 0)})")
            if (self.min is not None and values[0] < self.min) or (self.max is not None and values[-1] > self.max):
                raise DimSpecError(f"Dim {self.name!r}: choices {values} lie outside [min, max] = [{self.min}, {self.max}]", fix=f"Dim({self.name!r}, choices={values})  # choices alone bound the dim")

    @property
    def values(self) -> tuple[int, ...] | None:
        """The choices, sorted and without repeats (None for a dim without choices)."""
        if self.choices is None:
            return None
        return tuple(sorted({_check_int(v, f"Dim {self.name!r}: a choice") for v in self.choices}))

    @property
    def is_named(self) -> bool:
        """Whether this is a user-named dim (shared by name), not DYNAMIC/STATIC/AUTO."""
        return self.name not in _SPECIAL

    @property
    def range(self) -> tuple[int | float, int | float]:
        """``(lower, upper)`` of the values the dim may take (a backed size is at least 2 unless declared)."""
        if self.choices is not None:
            return self.values[0], self.values[-1]
        return (2 if self.min is None else self.min), (math.inf if self.max is None else self.max)

    # -- derived dims -----------------------------------------------------------------------------
    def _derive(self, a: int, b: int) -> "DerivedDim":
        if not self.is_named:
            raise DimSpecTypeError(f"only a named Dim can be derived from, not {self!r}", fix='d = Dim("d"); 2 * d')
        if self.choices is not None:
            raise DimSpecTypeError(f"a set-valued Dim ({self!r}) cannot be derived from; list the derived values as choices")
        return DerivedDim(self, a, b)

    def __mul__(self, k):
        return self._derive(_check_int(k, "a derived Dim's coefficient"), 0)

    __rmul__ = __mul__

    def __add__(self, k):
        return self._derive(1, _check_int(k, "a derived Dim's offset"))

    __radd__ = __add__

    def __sub__(self, k):
        return self._derive(1, -_check_int(k, "a derived Dim's offset"))

    def __repr__(self) -> str:
        special = {"<dynamic>": "Dim.DYNAMIC", "<static>": "Dim.STATIC", "<auto>": "Dim.AUTO", "<unbacked>": "Dim.UNBACKED"}
        if self.name in special:
            return special[self.name]
        if self.choices is not None:
            return f"Dim({self.name!r}, choices={self.values})"
        bounds = "".join(f", {k}={v}" for k, v in (("min", self.min), ("max", self.max)) if v is not None)
        return f"Dim({self.name!r}{bounds})"


@dataclass(frozen=True, slots=True)
class DerivedDim:
    """``coeff * root + offset`` for a named root :class:`Dim` (see the module docstring).

    >>> d = Dim("d", max=8); e = 2 * (d + 1); e, e.range, e.of(3)
    (2*d + 2, (6, 18), 8)
    """

    root: Dim
    coeff: int
    offset: int

    def __post_init__(self) -> None:
        if self.coeff <= 0:
            raise DimSpecError(f"a derived Dim needs a positive coefficient (sizes grow with the root), got {self.coeff}")

    @property
    def name(self) -> str:
        """The expression as text (``2*d + 1``), used in messages."""
        return repr(self)

    @property
    def is_named(self) -> bool:
        """Derived dims are named by their root."""
        return True

    @property
    def range(self) -> tuple[int | float, int | float]:
        """The range inherited from the root's: ``coeff * [lo, hi] + offset``."""
        lo, hi = self.root.range
        return self.of(lo), (math.inf if hi == math.inf else self.of(hi))

    def of(self, root_value: int) -> int:
        """The dim's value when the root is ``root_value``."""
        return self.coeff * root_value + self.offset

    def root_value(self, value: int) -> int | None:
        """The root's value for which the dim is ``value``, or None if there is none."""
        q, r = divmod(value - self.offset, self.coeff)
        return q if r == 0 else None

    def __mul__(self, k):
        k = _check_int(k, "a derived Dim's coefficient")
        return DerivedDim(self.root, self.coeff * k, self.offset * k)

    __rmul__ = __mul__

    def __add__(self, k):
        return DerivedDim(self.root, self.coeff, self.offset + _check_int(k, "a derived Dim's offset"))

    __radd__ = __add__

    def __sub__(self, k):
        return DerivedDim(self.root, self.coeff, self.offset - _check_int(k, "a derived Dim's offset"))

    def __repr__(self) -> str:
        core = self.root.name if self.coeff == 1 else f"{self.coeff}*{self.root.name}"
        if self.offset == 0:
            return core
        return f"{core} {'+' if self.offset > 0 else '-'} {abs(self.offset)}"


Dim.DYNAMIC = Dim("<dynamic>")  # type: ignore[attr-defined]
Dim.STATIC = Dim("<static>")  # type: ignore[attr-defined]
Dim.AUTO = Dim("<auto>")  # type: ignore[attr-defined]
Dim.UNBACKED = Dim("<unbacked>")  # type: ignore[attr-defined]
