"""The text of a form, for ``repr`` and messages: printed from the form itself, without sympy.

Terms are printed in the form's canonical order (Note [Deterministic order] in
:mod:`symint.form.arith`) and the constant last, so ``-x + 2`` prints as it is stored;
the atoms print as the sympy functions that spell them (``FloorDiv(x, 2)``), an opaque
atom as its wrapped expression. For the sympy view of a form use
:func:`symint.sympy_io.to_sympy`; for Python or guard text, :mod:`guards.text.printers`.

>>> from symint.form import add, const, floordiv, mul, rel, scale, sym
>>> x, y = sym("x"), sym("y")
>>> form_text(add(scale(floordiv(x, const(2)), -3), const(1))), form_text(mul(x, mul(x, y)))
('-3*FloorDiv(x, 2) + 1', 'x**2*y')
>>> bool_text(rel("<", x, y))
'x < y'
"""

from __future__ import annotations

__all__ = ["form_text", "atom_text", "bool_text"]

#: The sympy function that spells each atom kind (the view of :mod:`symint.sympy_io` builds the same).
FUNCTION_NAMES = {"floordiv": "FloorDiv", "ceildiv": "CeilDiv", "mod": "Mod", "max": "Max", "min": "Min", "pow": "PowByNatural"}


def atom_text(atom) -> str:
    """The text of an atom: its name, ``FloorDiv(a, b)``-like, or the text of what an opaque atom wraps.

    >>> from symint.form import const, mod, sym
    >>> atom_text(mod(sym("x"), const(4)).atom())
    'Mod(x, 4)'
    """
    kind = atom.kind
    if kind == "sym":
        return atom.name
    if kind == "opaque":
        return str(atom.args[0])
    return f"{FUNCTION_NAMES[kind]}({', '.join(form_text(a) for a in atom.args)})"


def _term_text(mono, c: int) -> str:
    factors = "*".join(atom_text(a) if p == 1 else f"{atom_text(a)}**{p}" for a, p in mono.factors)
    if c == 1:
        return factors
    if c == -1:
        return f"-{factors}"
    return f"{c}*{factors}"


def form_text(f) -> str:
    """The text of an integer form (terms in canonical order, then the constant).

    >>> from symint.form import const, sub, sym
    >>> form_text(sub(const(2), sym("x"))), form_text(const(-5))
    ('-x + 2', '-5')
    """
    if f.is_const:
        return str(f.const)
    out = ""
    for m, c in f.terms:
        t = _term_text(m, c)
        out = t if not out else (f"{out} - {t[1:]}" if t.startswith("-") else f"{out} + {t}")
    if f.const:
        out += f" - {-f.const}" if f.const < 0 else f" + {f.const}"
    return out


def bool_text(b) -> str:
    """The text of a boolean form (relations as written; ``&``, ``|``, ``~`` for the connectives).

    >>> from symint.form import and_, const, not_, or_, rel, sym
    >>> x = sym("x")
    >>> bool_text(and_(rel(">", x, const(2)), not_(or_(rel("==", x, const(5)), rel("<", x, const(0))))))
    '(x > 2) & ~((x == 5) | (x < 0))'
    """
    kind = b.kind
    if kind == "const":
        return str(b.value)
    if kind == "rel":
        op, lhs, rhs = b.args
        return f"{form_text(lhs)} {op} {form_text(rhs)}"
    if kind == "not":
        return f"~({bool_text(b.args[0])})"
    if kind in ("and", "or"):
        return (" & " if kind == "and" else " | ").join(bool_text(a) if a.kind == "not" else f"({bool_text(a)})" for a in b.args)
    return str(b.args[0])
