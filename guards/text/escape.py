"""Escaping user text for line-oriented sinks: CLI text output, SMT-LIB comments, logs.

Input names, origins and file names are user text and may hold a newline (or a
character that some readers take for one: ``\\r``, ``\\x0b``, ``\\x85``, U+2028,
...). Printed raw into a line-oriented format, such text forges lines: a source
named ``"x\\n(assert false)"`` would add an assertion to an SMT-LIB file, and an
origin ``"\\nsatisfiable: no"`` a verdict to the CLI's report. :func:`one_line`
keeps printable text as it is and writes everything else as a Python escape.

>>> one_line("x\\n(assert false)")
'x\\\\n(assert false)'
>>> one_line("model.py:12 in view")
'model.py:12 in view'
"""

from __future__ import annotations

from symint.lazy_sympy import sympy

__all__ = ["one_line", "sympy_str", "sympy_latex", "affordable_sum"]

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def one_line(text: object) -> str:
    """``str(text)`` with every non-printable character (newlines included) escaped, so it stays on one line.

    >>> one_line("a\\u2028b\\tc")
    'a\\\\u2028b\\\\tc'
    """
    s = str(text)
    if s.isprintable():
        return s
    out = []
    for c in s:
        if c.isprintable():
            out.append(c)
        elif c in _NAMED:
            out.append(_NAMED[c])
        else:
            code = ord(c)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
    return "".join(out)


# Note [Printing large sums]
#     Sympy's ``as_ordered_terms`` (behind ``str()`` and ``latex()`` of a sum too) turns the
#     sum into a polynomial over all of its atoms: memory terms x atoms, so one sum of
#     20,000 input sizes needs gigabytes. Sums small enough keep sympy's familiar order
#     (``s0 + 1``); larger ones print their terms in sympy's internal (deterministic,
#     canonical) argument order, in linear memory.
_ORDERED_TERMS_LIMIT = 20_000


def affordable_sum(e: sympy.Basic) -> bool:
    """Whether sympy may order the terms of the sum ``e`` (Note [Printing large sums]).

    >>> affordable_sum(sympy.Add(*sympy.symbols("x0:10")))
    True
    """
    return len(e.args) * len(e.free_symbols) <= _ORDERED_TERMS_LIMIT


def _has_large_sum(e: sympy.Basic) -> bool:
    return any(node.is_Add and not affordable_sum(node) for node in sympy.preorder_traversal(e))


def sympy_str(e: object) -> str:
    """``str(e)``, in linear memory even for a sum of thousands of terms (Note [Printing large sums]).

    >>> x = sympy.Symbol("x")
    >>> sympy_str(x + 1), sympy_str(sympy.Add(*sympy.symbols("y0:20000"))).count("+")
    ('x + 1', 19999)
    """
    if isinstance(e, sympy.Basic) and _has_large_sum(e):
        return sympy.sstr(e, order="none")
    return str(e)


def sympy_latex(e: sympy.Basic) -> str:
    """``sympy.latex(e)``, in linear memory for huge sums.

    >>> sympy_latex(sympy.Symbol("x") + 1)
    'x + 1'
    """
    return sympy.latex(e, order="none") if _has_large_sum(e) else sympy.latex(e)
