"""Replacements: symbols eliminated by equalities, ``name -> form``, kept fully resolved.

The substitution part of :class:`~valueranges.facts.Facts` (TVM's ``RewriteSimplifier``
keeps variable bindings the same way). ``Eq(s1, s0)`` unifies, ``Eq(s0, 4)`` specialises,
``Eq(s2, 2*s0)`` eliminates ``s2``. No replacement value mentions a replaced symbol.

Note [Choosing the symbol to eliminate]
    ``Eq(a, b)`` can be solved for any symbol that occurs once, with
    coefficient +-1, in ``a - b`` (and not inside a floor division or other atom).
    The caller's ``rank`` orders the candidates, the highest is eliminated: ShapeEnv
    eliminates an unbacked symbol before a backed one (a backed survivor keeps its
    hint) and otherwise the *newest* symbol, so the older symbol survives and the
    choice is deterministic. The eliminated symbol's range becomes a constraint on
    the survivor (the facade narrows it): intersected into its range when the
    replacement is ``t + c``, recorded as a linear fact otherwise.

>>> from symint import form as F
>>> r = Replacements()
>>> name, value = r.solve(F.sub(F.sym("b"), F.add(F.sym("a"), F.const(1))), rank=lambda n: n)
>>> r.add(name, value); r.get("b")
Form(a + 1)
"""

from __future__ import annotations

from typing import Callable

from symint.lazy_sympy import lazy_module, sympy

from symint import form as F
from symint.form.transform import transform

from .table import SymbolTable

_io = lazy_module("symint.sympy_io")  # Note [sympy on first use] in symint.lazy_sympy

__all__ = ["Replacements"]


class Replacements(SymbolTable[F.Form]):
    """``name -> form`` for each eliminated symbol (see the module docstring).

    ``table`` is the mapping itself, for the hot paths of the facade: read it, change it through :meth:`add`.
    """

    def get(self, name: str) -> "F.Form | None":
        """The form ``name`` is replaced by, or None."""
        return self.table.get(name)

    def solve(self, p: "F.Form", rank: Callable[[str], object]) -> tuple[str, "F.Form"] | None:
        """``(name, value)``: ``p == 0`` solved for the symbol of highest ``rank`` it can be solved for, or None.

        See Note [Choosing the symbol to eliminate].
        """
        best = None
        for m, c in p.terms:
            atom = m.single
            if atom is None or atom.kind != "sym" or c not in (1, -1):
                continue
            others = F.sub(p, F.scale(F.atom_form(atom), c))
            if atom.name in others.symbols:
                continue
            key = rank(atom.name)
            if best is None or key > best[0]:
                best = (key, atom.name, F.scale(others, -c))  # c*x + others == 0  =>  x = -others / c
        return None if best is None else (best[1], best[2])

    def add(self, name: str, value: "F.Form") -> None:
        """Record ``name = value`` (``value`` already simplified, without ``name``), resolving the others."""
        single = {name: value}
        memo: dict = {}

        def on_atom(atom):
            return single.get(atom.name) if atom.kind == "sym" else None

        for other, old in list(self.table.items()):
            if name in old.symbols:
                self.table[other] = transform(old, on_atom, memo)
        self.table[name] = value

    def on_atom(self, atom: "F.Atom") -> "F.Form | None":
        """The replacement of a symbol atom, or of an opaque atom whose sympy expression mentions replaced symbols."""
        if atom.kind == "sym":
            return self.table.get(atom.name)
        if atom.kind == "opaque":
            new = self.substitute(atom.args[0])
            if new is atom.args[0]:
                return None
            try:
                return _io.from_sympy(new)
            except _io.NotAnIntegerForm:
                return None
        return None

    def substitute(self, expr: sympy.Basic) -> sympy.Basic:
        """A sympy expression with the replacements applied (``expr`` itself when none applies)."""
        subs = {s: _io.to_sympy(self.table[s.name]) for s in expr.free_symbols if s.name in self.table}
        return _io.substitute(expr, subs) if subs else expr
