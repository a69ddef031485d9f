"""``Guard``: one boolean condition on input sizes, with where it came from.

>>> from symint.build import symbol_expr, ge
>>> g = Guard.of(ge(symbol_expr("s0"), 2), origin="model.py:12 in view")
>>> g, g.origin
(Guard(s0 >= 2), 'model.py:12 in view')
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sympy

from symint.build import is_bool_expr

from guards.errors import GuardTypeError
from guards.text.escape import sympy_str as _sympy_str

__all__ = ["Guard"]


@dataclass(frozen=True, slots=True)
class Guard:
    """A boolean sympy expression over symbols, plus optional provenance.

    Two guards are equal when their expressions are; ``origin`` is commentary
    (file:line, the op that asked, why it could not be decided statically).
    """

    expr: sympy.Basic
    origin: str | None = field(default=None, compare=False)

    @classmethod
    def of(cls, expr: sympy.Basic, origin: str | None = None) -> "Guard":
        """A guard for the boolean expression ``expr``.

        Raises:
            GuardTypeError: ``expr`` is not a boolean sympy expression.
        """
        if not isinstance(expr, sympy.Basic) or not is_bool_expr(expr):
            raise GuardTypeError(f"a guard must be a boolean expression (a comparison, And/Or/Not), got {expr!r}")
        return cls(expr, origin)

    @property
    def free_symbols(self) -> frozenset[sympy.Symbol]:
        """The symbols the guard reads."""
        return frozenset(self.expr.free_symbols)

    def __repr__(self) -> str:
        return f"Guard({_sympy_str(self.expr)})"
