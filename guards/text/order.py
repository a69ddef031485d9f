"""The order guard text prints terms, factors and ``Max``/``Min`` arguments in, computed on forms.

Guard text has always printed in sympy's order (``s0 + 1``, ``16*s1*s2``, ``Max(3, n)``,
``s0**2 + s0*s1 + s0``), which is also the order torch prints its guards in. The printers
now print from canonical forms (:mod:`symint.form`), whose own order is by structural
digest, so this module computes sympy's order from the form alone (Note [Sympy's print
order on forms]); the sympy view is built only for an opaque atom (a float or bitwise
function), whose key is sympy's own.

Note [Sympy's print order on forms]
    sympy orders by ``default_sort_key``: a class key (numbers, then symbols, then
    products, sums and powers, then ``Max``/``Min``, then the other functions, each by
    name), then the arguments' keys, the exponent and the coefficient. :func:`sort_key`
    builds the same tuple from a form: ``c*x**p`` keys as ``x`` with exponent ``p`` and
    coefficient ``c``; a product of several powers as a ``Mul`` of its sorted factors; a sum
    as an ``Add`` of its ordered terms. A sum's terms (:func:`ordered_terms`) follow
    ``as_ordered_terms``: the distinct atoms (its generators) sorted by key, each term's
    exponents over them compared in descending lexicographic order, the constant last,
    except that ``k - x`` (a positive constant and one negated power) prints the constant
    first. That order is computed from the sparse exponents, in O(n log n) for n terms,
    where sympy builds a dense exponent vector per term (memory terms x atoms: the reason
    huge sums used to print in sympy's internal order, Note [Printing large sums] in
    :mod:`guards.text.escape`); a sum of forms therefore prints in the same order at any size.
    tests/guards/test_printers.py compares this order with sympy's on random forms.

>>> from symint import form as F
>>> x, y = F.sym("x"), F.sym("y")
>>> f = F.add(F.mul(x, y), F.add(F.mul(x, x), F.const(3)))
>>> [([(a.name, p) for a, p in m.factors] if m else [], c) for m, c in ordered_terms(f)]
[([('x', 2)], 1), ([('x', 1), ('y', 1)], 1), ([], 3)]
>>> from symint.sympy_io import to_sympy
>>> to_sympy(f).as_ordered_terms()
[x**2, x*y, 3]
"""

from __future__ import annotations

from symint.lazy_sympy import sympy

from symint.form import Atom, Form, Mono

__all__ = ["sort_key", "atom_key", "ordered_terms", "ordered_factors", "ordered_args"]

_NUMBER = (1, 0, "Number")
_SYMBOL = (2, 0, "Symbol")
_MUL = (3, 0, "Mul")
_ADD = (3, 1, "Add")
# sympy's Function.class_key: (4, 0, name) for a variable number of arguments (Max, Min), else (4, 10000, name)
_CLASS = {
    "max": (4, 0, "Max"),
    "min": (4, 0, "Min"),
    "floordiv": (4, 10000, "FloorDiv"),
    "ceildiv": (4, 10000, "CeilDiv"),
    "mod": (4, 10000, "Mod"),
    "pow": (4, 10000, "PowByNatural"),
}
_INF = float("inf")


def _int_key(n: int) -> tuple:
    return (_NUMBER, (0, ()), (), n)


_ONE = _int_key(1)


def atom_key(atom: Atom, memo: dict) -> tuple:
    """``(class key, argument keys)``: the first half of sympy's key of ``atom`` (memoised in ``memo``)."""
    found = memo.get(atom)
    if found is None:
        if atom.kind == "sym":
            found = (_SYMBOL, (1, (atom.name,)))
        elif atom.kind == "opaque":
            found = tuple(sympy.default_sort_key(atom.args[0])[:2])
        else:
            args = ordered_args(atom, memo)
            found = (_CLASS[atom.kind], (len(args), tuple(sort_key(a, memo) for a in args)))
        memo[atom] = found
    return found


def ordered_args(atom: Atom, memo: dict) -> tuple[Form, ...]:
    """The arguments of ``atom`` in print order: ``Max``/``Min`` sorted by key (as sympy stores them), others as written."""
    if atom.kind in ("max", "min"):
        return tuple(sorted(atom.args, key=lambda a: sort_key(a, memo)))
    return atom.args


def _factor_key(atom: Atom, p: int, coeff: int, memo: dict) -> tuple:
    cls, args = atom_key(atom, memo)
    return (cls, args, _ONE if p == 1 else _int_key(p), coeff)


def ordered_factors(mono: Mono, memo: dict) -> list[tuple[Atom, int]]:
    """``mono``'s ``(atom, power)`` factors in print order (sympy's ``as_ordered_factors``)."""
    if len(mono.factors) < 2:
        return list(mono.factors)
    return sorted(mono.factors, key=lambda f: atom_key(f[0], memo))


def _term_key(mono: Mono, coeff: int, memo: dict) -> tuple:
    if len(mono.factors) == 1:
        atom, p = mono.factors[0]
        return _factor_key(atom, p, coeff, memo)
    factors = tuple(_factor_key(a, p, 1, memo) for a, p in ordered_factors(mono, memo))
    return (_MUL, (len(factors), factors), _ONE, coeff)


def sort_key(f: Form, memo: dict) -> tuple:
    """sympy's ``default_sort_key`` of ``f``'s sympy view, computed from the form (Note [Sympy's print order on forms]).

    >>> from symint import form as F
    >>> sort_key(F.sym("x"), {}) < sort_key(F.floordiv(F.sym("a"), F.const(2)), {})
    True
    """
    if f.is_const:
        return _int_key(f.const)
    if len(f.terms) == 1 and not f.const:
        return _term_key(*f.terms[0], memo)
    terms = tuple(_int_key(c) if m is None else _term_key(m, c, memo) for m, c in ordered_terms(f, memo))
    return (_ADD, (len(terms), terms), _ONE, 1)


def ordered_terms(f: Form, memo: dict | None = None) -> list[tuple[Mono | None, int]]:
    """``f``'s terms in print order, the constant (if nonzero) as ``(None, const)`` (Note [Sympy's print order on forms])."""
    memo = {} if memo is None else memo
    terms: list[tuple[Mono | None, int]] = list(f.terms)
    if f.const:
        if len(terms) == 1 and f.const > 0 and terms[0][1] < 0 and len(terms[0][0].factors) == 1:
            return [(None, f.const), terms[0]]  # ``k - x``, as sympy prints it
        terms.append((None, f.const))
    if len(f.terms) < 2:
        return terms
    ranks = {a: r for r, a in enumerate(sorted({a for m, _ in f.terms for a, _ in m.factors}, key=lambda a: atom_key(a, memo)))}

    def descending(term: tuple) -> tuple:
        m = term[0]
        if m is None:
            return ((_INF, 0),)
        return (*sorted((ranks[a], -p) for a, p in m.factors), (_INF, 0))

    return sorted(terms, key=descending)
