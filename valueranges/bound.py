"""Interval bounds of canonical forms (:mod:`symint.form`): the cheapest analysis, asked first.

The arithmetic on endpoints is that of the operators on ranges (:mod:`valueranges.endpoints`,
:func:`~valueranges.division.floordiv_ends`, :func:`~valueranges.division.mod_ends`); only
the walk over forms is here. The public ``valueranges.bound`` (:mod:`valueranges.sympy_bound`)
converts a sympy expression to its form and bounds it here; it walks only what forms do not
represent (floats, opaque functions), which an opaque atom's ``opaque`` callback reaches.

Bounds are ``(lo, hi)`` pairs of ints, with ``-math.inf`` / ``math.inf`` for an
unbounded end (the same convention as :class:`~valueranges.ValueRanges`).
``ranges`` maps symbol names to such pairs; a missing symbol is unbounded.
Each call takes a ``memo`` dict that the caller keeps while ``ranges`` is
unchanged, so shared sub-forms are bounded once.

Besides plain interval arithmetic, :func:`bound_form` tries the *factored* form of
a sum whose terms share an atom (``s*s - s`` is ``s*(s - 1)``, which is ``>= 2``
for ``s >= 2``, where term by term the bound is ``[-oo, oo]``): this decides the
monotone nonlinear questions that shape code asks.

>>> from symint import form as F
>>> s = F.sym("s")
>>> bound_form(F.sub(F.mul(s, s), s), {"s": (2, math.inf)}, {})
(2, inf)
>>> bound_form(F.floordiv(s, F.const(2)), {"s": (2, 9)}, {})
(1, 4)
"""

from __future__ import annotations

import math
from typing import Mapping

from symint import form as F
from symint.form.terms import make_form

from .division import floordiv_ends, mod_ends
from .endpoints import int_ends, mul_end, pow_ends
from .modular import mod_bound_by_residue

__all__ = ["bound_form", "bound_atom", "mono_bound", "Bound", "interval_mul", "UNBOUNDED"]

INF = math.inf
Bound = tuple  # (lo, hi)
UNBOUNDED = (-INF, INF)


def interval_mul(a: Bound, b: Bound) -> Bound:
    """The product of two intervals (``0 * oo`` is 0: the values themselves are finite).

    >>> interval_mul((-2, 3), (4, INF))
    (-inf, inf)
    """
    if a == (1, 1):
        return b
    if b == (1, 1):
        return a
    products = [mul_end(x, y) for x in a for y in b]
    return (min(products), max(products))


def _scale(b: Bound, k: int) -> Bound:
    lo, hi = b
    if type(lo) is int and type(hi) is int:  # mul_end's common case, inlined (hot)
        return (lo * k, hi * k) if k >= 0 else (hi * k, lo * k)
    lo, hi = mul_end(lo, k), mul_end(hi, k)
    return (lo, hi) if k >= 0 else (hi, lo)


def _power(b: Bound, p: int) -> Bound:
    try:
        return pow_ends(b[0], b[1], p)
    except OverflowError:  # a bound past the bits limit of valueranges.endpoints: sound without it
        return UNBOUNDED


def _floordiv_bound(a: Bound, b: Bound) -> Bound:
    return floordiv_ends(*int_ends(*a), *int_ends(*b)) or UNBOUNDED


def _mod_bound(a: Bound, b: Bound) -> Bound:
    return mod_ends(*int_ends(*a), *int_ends(*b)) or UNBOUNDED


def _minmax_bound(kind: str, forms: tuple, bounds: list) -> Bound:
    """The interval of ``max``/``min`` of ``forms``; ``Max(e, -e)`` is ``abs(e)`` (how ``symint`` spells it),
    ``Min(e, -e)`` is ``-abs(e)``, each bounded from ``e``'s interval alone (Note [Repeated symbols] in
    :mod:`valueranges.sympy_bound`).

    >>> from symint import form as F
    >>> x = F.sym("x")
    >>> _minmax_bound("max", (x, F.neg(x)), [(-3, 5), (-5, 3)]), _minmax_bound("min", (x, F.const(2)), [(-3, 5), (2, 2)])
    ((0, 5), (-3, 2))
    """
    position = {f: i for i, f in enumerate(forms)}
    paired: set[int] = set()
    parts = []
    for i, f in enumerate(forms):
        if i in paired:
            continue
        j = position.get(F.neg(f)) if len(forms) > 1 else None
        if j is not None and j != i and j not in paired:
            paired.update((i, j))
            lo, hi = bounds[i]
            top = max(-lo, hi)
            low = 0 if lo <= 0 <= hi else min(abs(lo), abs(hi))
            parts.append((low, top) if kind == "max" else (-top, -low))
        else:
            parts.append(bounds[i])
    pick = max if kind == "max" else min
    return (pick(p[0] for p in parts), pick(p[1] for p in parts))


def bound_atom(atom: "F.Atom", ranges: Mapping[str, Bound], memo: dict, opaque=None) -> Bound:
    """The interval of one atom.

    ``opaque(expr)`` bounds a wrapped sympy expression (the caller's slow path);
    without it an opaque atom is unbounded.
    """
    kind = atom.kind
    if kind == "sym":
        return ranges.get(atom.name, UNBOUNDED)
    found = memo.get(atom)  # the atom itself is the key: forms, monomials and atoms are distinct objects
    if found is not None:
        return found
    if kind == "opaque":
        result = opaque(atom.args[0]) if opaque is not None else UNBOUNDED
    else:
        args = [bound_form(a, ranges, memo, opaque) for a in atom.args]
        if kind == "floordiv":
            result = _floordiv_bound(args[0], args[1])
        elif kind == "ceildiv":
            lo, hi = _floordiv_bound((-args[0][1], -args[0][0]), args[1])
            result = (-hi, -lo)
        elif kind == "mod":
            result = _mod_bound(args[0], args[1])
            d = atom.args[1]
            if d.is_const and d.const > 1 and result[1] - result[0] + 1 >= d.const and not atom.args[0].is_const:
                lo, hi = mod_bound_by_residue(atom.args[0], d.const, None, memo)  # (320n + 255) % 256 is in [63, 255]
                result = (max(result[0], lo), min(result[1], hi))
        elif kind == "max" or kind == "min":
            result = _minmax_bound(kind, atom.args, args)
        elif kind == "pow":
            base, exp = args
            if base[0] >= 1 and exp[0] >= 0:
                try:
                    hi = INF if base[1] == INF or exp[1] == INF else base[1] ** exp[1]
                except OverflowError:  # a float base: sound without an upper bound
                    hi = INF
                result = (1 if exp[0] == 0 else base[0] ** exp[0], hi)
            elif base[0] >= 0:
                result = (0, INF)
            else:
                result = UNBOUNDED
        else:
            result = UNBOUNDED
    memo[atom] = result
    return result


def mono_bound(m: "F.Mono", ranges: Mapping[str, Bound], memo: dict, opaque=None) -> Bound:
    """The interval of one monomial (a product of atom powers).

    >>> from symint import form as F
    >>> mono_bound(F.mul(F.sym("x"), F.sym("y")).terms[0][0], {"x": (1, 2), "y": (-3, 4)}, {})
    (-6, 8)
    """
    factors = m.factors
    if len(factors) == 1:
        atom, p = factors[0]
        b = ranges.get(atom.name, UNBOUNDED) if atom.kind == "sym" else bound_atom(atom, ranges, memo, opaque)
        return b if p == 1 else _power(b, p)
    term = (1, 1)
    for atom, p in factors:
        term = interval_mul(term, _power(bound_atom(atom, ranges, memo, opaque), p))
    return term


def _plain_bound(f: "F.Form", ranges, memo, opaque) -> Bound:
    lo = hi = f.const
    for m, c in f.terms:
        factors = m.factors
        if len(factors) == 1 and factors[0][1] == 1:  # one atom: mono_bound's common case, inlined (hot)
            atom = factors[0][0]
            term = ranges.get(atom.name, UNBOUNDED) if atom.kind == "sym" else bound_atom(atom, ranges, memo, opaque)
        else:
            term = mono_bound(m, ranges, memo, opaque)
        tlo, thi = term if c == 1 else _scale(term, c)
        lo, hi = lo + tlo, hi + thi
        if lo == -INF and hi == INF:
            break
    return (lo, hi)


def _common_atom(f: "F.Form") -> "F.Atom | None":
    if len(f.terms) < 2:
        return None
    common = None
    for m, _ in f.terms:
        atoms = {a for a, _ in m.factors}
        common = atoms if common is None else common & atoms
        if not common:
            return None
    return min(common, key=lambda a: a.key)


def bound_form(f: "F.Form", ranges: Mapping[str, Bound], memo: dict, opaque=None) -> Bound:
    """The interval of ``f`` given symbol ``ranges`` (see the module docstring).

    >>> from symint import form as F
    >>> bound_form(F.add(F.sym("x"), F.const(1)), {"x": (0, 5)}, {})
    (1, 6)
    """
    if f.is_const:
        return (f.const, f.const)
    found = memo.get(f)
    if found is not None:
        return found
    result = _plain_bound(f, ranges, memo, opaque)
    if result[0] == -INF or result[1] == INF:
        atom = _common_atom(f)
        if atom is not None:
            # f = atom * rest + const: bound the product of the two intervals.
            terms = make_form(f.terms, 0)
            rest = F.floordiv(terms, F.atom_form(atom))  # exact: atom divides every term
            lo, hi = interval_mul(bound_atom(atom, ranges, memo, opaque), bound_form(rest, ranges, memo, opaque))
            result = (max(result[0], lo + f.const), min(result[1], hi + f.const))
    memo[f] = result
    return result
