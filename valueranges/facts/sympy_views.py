"""The sympy boundary of :class:`~valueranges.facts.Facts`: sympy in, sympy views out.

The engine works on forms; these methods convert at the edge, importing
:mod:`symint.sympy_io` only when called (Note [Sympy is imported on first use]).

>>> import sympy
>>> from valueranges.facts import Facts
>>> facts = Facts()
>>> facts.learn(sympy.Eq(sympy.Symbol("b", integer=True), 2 * sympy.Symbol("a", integer=True)))
>>> facts.replacements
{b: 2*a}
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..interval import ValueRanges

if TYPE_CHECKING:
    import sympy


class SympyViews:
    """The sympy half of :class:`~valueranges.facts.Facts` (see the module docstring)."""

    def simplify(self, expr: sympy.Basic) -> sympy.Basic:
        """A sympy expression (integer or boolean) simplified as :meth:`simplify_form` does (the sympy boundary)."""
        import sympy

        from symint import build
        from symint.sympy_io import NotAnIntegerForm, bool_from_sympy, from_sympy, to_sympy

        if expr.is_Number or expr is sympy.true or expr is sympy.false:
            return expr
        if build.is_bool_expr(expr):
            return to_sympy(self.simplify_bool(bool_from_sympy(expr)))
        try:
            return to_sympy(self.simplify_form(from_sympy(expr)))
        except NotAnIntegerForm:
            return self._repl.substitute(expr)

    def learn(self, fact: sympy.Basic) -> None:
        """Take the boolean sympy ``fact`` as true from now on (the sympy boundary of :meth:`learn_form`).

        Raises:
            ContradictoryFactsError: ``fact`` contradicts what is known.
        """
        from symint.sympy_io import bool_from_sympy

        self.learn_form(bool_from_sympy(fact))

    @property
    def ranges(self) -> dict[sympy.Symbol, ValueRanges]:
        """Every symbol's range, as sympy symbol -> ValueRanges (a fresh view; changes to it are ignored)."""
        view = self._views.get("ranges")
        if view is None:
            from symint import build

            view = self._views["ranges"] = {
                build.symbol_expr(n): ValueRanges.of(lo, hi) for n, (lo, hi) in self._ranges.items()
            }
        return view

    @property
    def replacements(self) -> dict[sympy.Symbol, sympy.Expr]:
        """The replacements, as sympy symbol -> sympy expression (a view)."""
        view = self._views.get("replacements")
        if view is None:
            from symint import build
            from symint.sympy_io import to_sympy

            view = self._views["replacements"] = {build.symbol_expr(n): to_sympy(f) for n, f in self._repl.items()}
        return view

    @property
    def divisible(self) -> dict[sympy.Symbol, set[int]]:
        """Known divisors per symbol (a view)."""
        from symint import build

        return {build.symbol_expr(n): set(ks) for n, ks in self._div.items()}

    @property
    def known(self) -> dict[sympy.Basic, bool]:
        """The remembered facts that ranges, replacements and divisibility do not hold, as sympy -> truth."""
        view = self._views.get("known")
        if view is None:
            view = self._views["known"] = self._known.view()
        return view
