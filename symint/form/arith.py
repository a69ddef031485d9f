"""Canonical integer forms: hash-consed polynomials over interned atoms (the sympy-free hot path).

A :class:`Form` is ``const + sum(coeff * monomial)`` with integer coefficients; a
monomial is a product of powers of :class:`Atom` s; an atom is a symbol or an
opaque integer function of forms (``floordiv``, ``ceildiv``, ``mod``, ``max``,
``min``, ``pow`` with a symbolic exponent) or, for anything else, a wrapped sympy
expression (Note [Opaque atoms carry their own meaning] in :mod:`symint.form.terms`). Every atom, monomial and form is *interned*: building a form that was
built before returns the same object, so equality is identity, hashing is a
stored integer, and the operations below are memoised by their arguments'
identities (a seen ``a + b`` costs one dictionary lookup).

The rewrites applied when building are the exact ones of
:mod:`symint.sympy_io.functions` (Note [Canonical forms] there): they hold for every
integer value of the symbols, so no facts are needed. sympy is built only on
request (:func:`symint.sympy_io.to_sympy`), once per form.

Note [Deterministic order]
    Terms and arguments are ordered by a structural key (a symbol's name, or a
    digest of the structure for other atoms), never by ``id()`` or by Python's
    seeded ``hash``, so iterating a form gives the same order in every process.

Note [Interning tables]
    The tables below are caches of pure constructions: an entry is the unique
    object for its structure. They grow with the number of distinct expressions a
    process builds; the memo tables of operations are bounded and cleared when
    full (clearing one changes no result, only speed).

>>> x, y = sym("x"), sym("y")
>>> e = add(mul(x, const(2)), y)
>>> e is add(y, mul(const(2), x)), e
(True, Form(2*x + y))
>>> floordiv(add(mul(x, const(4)), const(3)), const(2))
Form(2*x + 1)
"""

from __future__ import annotations

import math
from typing import Callable

__all__ = [
    "Atom",
    "Mono",
    "Form",
    "FormLimitError",
    "const",
    "sym",
    "atom_form",
    "form_from_dict",
    "add",
    "sub",
    "neg",
    "scale",
    "mul",
    "pow_nat",
    "pow_sym",
    "floordiv",
    "ceildiv",
    "mod",
    "max_",
    "min_",
    "opaque",
    "MAX_TERMS",
]

from .terms import (
    register_cache,
    MAX_BITS,
    MAX_TERMS,
    MEMO_LIMIT,
    Atom,
    Form,
    FormLimitError,
    Mono,
    atom_form,
    const,
    form_from_dict,
    make_atom,
    make_form,
    make_mono,
    make_opaque_atom,
    mono_mul,
    sym,
)
from ..limits import MAX_EXPONENT


def _memo2(table: dict, a: Form, b: Form, build: Callable[[Form, Form], Form]) -> Form:
    key = a.uid << 32 | b.uid  # Note [Keys the garbage collector skips] (symint.form.terms)
    found = table.get(key)
    if found is None:
        found = _built(table, key, build(a, b))
    return found


def _built(table: dict, key: int, found: Form) -> Form:
    """Store a result built on a miss of an operation's memo (the public operations look up inline: hot)."""
    if len(table) > MEMO_LIMIT:
        table.clear()
    table[key] = found
    return found


_ADD: dict = {}
_SUB: dict = {}
_MUL: dict = {}
_SCALE: dict = {}
_FLOORDIV: dict = {}
_CEILDIV: dict = {}
_MOD: dict = {}
_MAX: dict = {}
_MIN: dict = {}
for _table in (_ADD, _SUB, _MUL, _SCALE, _FLOORDIV, _CEILDIV, _MOD, _MAX, _MIN):
    register_cache(_table)  # Note [Sweeping the interning tables] (symint.form.terms)
del _table


def _sum(a: Form, b: Form, k: int) -> Form:
    """``a + k*b`` for ``k`` in (1, -1), in one pass over the terms (``k*b`` is not built on the way)."""
    if b.is_const:
        return const(a.const + k * b.const) if a.is_const else make_form(a.terms, a.const + k * b.const)
    if a.is_const and k == 1:
        return make_form(b.terms, b.const + a.const)
    coeffs = dict(a.terms)
    for m, c in b.terms:
        coeffs[m] = coeffs.get(m, 0) + k * c
    return form_from_dict(coeffs, a.const + k * b.const)


def _add(a: Form, b: Form) -> Form:
    return _sum(a, b, 1)


def add(a: Form, b: Form) -> Form:
    """``a + b``.

    >>> add(sym("x"), neg(sym("x")))
    Form(0)
    """
    key = a.uid << 32 | b.uid  # _memo2, inlined
    found = _ADD.get(key)
    return found if found is not None else _built(_ADD, key, _add(a, b))


def scale(a: Form, k: int) -> Form:
    """``k * a`` for an integer ``k``.

    >>> scale(add(sym("x"), const(1)), 3)
    Form(3*x + 3)
    """
    if k == 1:
        return a
    key = (a.uid, k)
    found = _SCALE.get(key)
    if found is None:
        if k == 0:
            found = const(0)
        else:
            found = make_form(tuple((m, c * k) for m, c in a.terms), a.const * k)
        if len(_SCALE) > MEMO_LIMIT:
            _SCALE.clear()
        _SCALE[key] = found
    return found


def neg(a: Form) -> Form:
    """``-a``."""
    return scale(a, -1)


def _sub(a: Form, b: Form) -> Form:
    return _sum(a, b, -1)


def sub(a: Form, b: Form) -> Form:
    """``a - b`` (built directly: ``-b`` is not built on the way).

    >>> sub(sym("x"), sym("x")) is const(0)
    True
    """
    key = a.uid << 32 | b.uid  # _memo2, inlined
    found = _SUB.get(key)
    return found if found is not None else _built(_SUB, key, _sub(a, b))


def _mul(a: Form, b: Form) -> Form:
    if a.is_const:
        return scale(b, a.const)
    if b.is_const:
        return scale(a, b.const)
    if len(a.terms) * len(b.terms) > MAX_TERMS * 4:
        raise FormLimitError(f"multiplying sums of {len(a.terms)} and {len(b.terms)} terms exceeds the term limit")
    coeffs: dict[Mono, int] = {}
    for ma, ca in a.terms:
        for mb, cb in b.terms:
            m = mono_mul(ma, mb)
            coeffs[m] = coeffs.get(m, 0) + ca * cb
    if b.const:
        for ma, ca in a.terms:
            coeffs[ma] = coeffs.get(ma, 0) + ca * b.const
    if a.const:
        for mb, cb in b.terms:
            coeffs[mb] = coeffs.get(mb, 0) + cb * a.const
    return form_from_dict(coeffs, a.const * b.const)


def mul(a: Form, b: Form) -> Form:
    """``a * b``, expanded.

    >>> mul(add(sym("x"), const(1)), sym("x"))
    Form(x + x**2)
    """
    key = a.uid << 32 | b.uid  # _memo2, inlined
    found = _MUL.get(key)
    return found if found is not None else _built(_MUL, key, _mul(a, b))


def pow_nat(a: Form, n: int) -> Form:
    """``a ** n`` for a natural ``n`` (``0 ** 0 == 1``), expanded.

    >>> pow_nat(sym("x"), 3), pow_nat(const(0), 0).const
    (Form(x**3), 1)
    """
    if n < 0:
        raise ValueError(f"pow_nat needs a natural exponent, got {n}")
    if a.is_const:
        if a.const not in (0, 1, -1) and n * max(1, a.const.bit_length()) > MAX_BITS:
            raise FormLimitError(f"{a.const} ** {n} has more than {MAX_BITS} bits")
        return const(a.const**n)
    if n > MAX_EXPONENT:
        raise FormLimitError(f"the exponent {n} is larger than {MAX_EXPONENT}")
    if n > 64 and (len(a.terms) > 1 or a.const):
        raise FormLimitError(f"expanding a sum to the power {n} is refused (term limit)")
    result = const(1)
    base = a
    while n:
        if n & 1:
            result = mul(result, base)
        n >>= 1
        if n:
            base = mul(base, base)
    return result


def pow_sym(a: Form, b: Form) -> Form:
    """``a ** b`` for a symbolic natural exponent ``b`` (an opaque ``pow`` atom).

    >>> pow_sym(sym("x"), sym("n"))
    Form(PowByNatural(x, n))
    """
    if b.is_const:
        return pow_nat(a, b.const)
    if a.is_const and a.const == 1:
        return const(1)
    return atom_form(make_atom("pow", (a, b)))


def _content(a: Form) -> int:
    g = abs(a.const)
    for _, c in a.terms:
        g = math.gcd(g, c)
        if g == 1:
            return 1
    return g


def _single_term(b: Form) -> tuple[Mono, int] | None:
    if b.const == 0 and len(b.terms) == 1:
        return b.terms[0]
    return None


def _divides_mono(small: Mono, big: Mono) -> Mono | None:
    """``big / small`` when ``small`` divides ``big`` as monomials, else None."""
    powers = dict(big.factors)
    for atom, p in small.factors:
        have = powers.get(atom, 0)
        if have < p:
            return None
        if have == p:
            del powers[atom]
        else:
            powers[atom] = have - p
    return make_mono(tuple(sorted(powers.items(), key=lambda item: item[0].key)))


def _split_divisible(a: Form, b: Form) -> tuple[Form, Form]:
    """``a = b*q + r`` where ``q`` collects the terms of ``a`` that ``b`` divides exactly.

    When ``b`` divides no term (the common case) the answer is ``(0, a)``, returned without
    building either side again.
    """
    quotient: dict[Mono, int] = {}
    rest: dict[Mono, int] = {}
    qconst, rconst = 0, a.const
    if b.is_const:
        k = b.const
        for m, c in a.terms:
            if c % k == 0:
                quotient[m] = c // k
            else:
                rest[m] = c
        if rconst % k == 0:
            qconst, rconst = rconst // k, 0
    else:
        single = _single_term(b)
        if single is None:
            return _ZERO, a
        for m, c in a.terms:
            if c % single[1] == 0:
                q = _divides_mono(single[0], m)
                if q is not None:
                    quotient[q] = quotient.get(q, 0) + c // single[1]
                    continue
            rest[m] = c
    if not quotient and qconst == 0:
        return _ZERO, a
    return form_from_dict(quotient, qconst), form_from_dict(rest, rconst)


_ZERO = const(0)


def _check_divisor(b: Form, what: str) -> None:
    if b.is_const and b.const == 0:
        raise ZeroDivisionError(f"{what}: integer division or modulo by zero")


def _floordiv(a: Form, b: Form, ceil: bool = False) -> Form:
    kind = "ceildiv" if ceil else "floordiv"
    _check_divisor(b, kind)
    if a.is_const and b.is_const:
        return const(-((-a.const) // b.const) if ceil else a.const // b.const)
    if b.is_const and b.const in (1, -1):
        return a if b.const == 1 else neg(a)
    if a.is_const and a.const == 0:
        return const(0)
    if a is b:
        return const(1)
    quotient, rest = _split_divisible(a, b)
    if not (quotient.is_const and quotient.const == 0):
        return add(quotient, _div(rest, b, ceil))
    if b.is_const:
        k = b.const
        g = math.gcd(_content(a), k)
        if g > 1:
            reduced = make_form(tuple((m, c // g) for m, c in a.terms), a.const // g)
            return _div(reduced, const(k // g), ceil)
        inner = a.atom()
        if not ceil and k > 0 and inner is not None and inner.kind == "floordiv" and inner.args[1].is_const:
            return floordiv(inner.args[0], const(inner.args[1].const * k))
    return atom_form(make_atom(kind, (a, b)))


def _div(a: Form, b: Form, ceil: bool) -> Form:
    return ceildiv(a, b) if ceil else floordiv(a, b)


def floordiv(a: Form, b: Form) -> Form:
    """``a // b`` with Python semantics (ZeroDivisionError for a constant 0 divisor).

    >>> floordiv(const(-7), const(2)).const, floordiv(sym("x"), const(2))
    (-4, Form(FloorDiv(x, 2)))
    >>> floordiv(floordiv(sym("x"), const(2)), const(3))
    Form(FloorDiv(x, 6))
    """
    key = a.uid << 32 | b.uid  # _memo2, inlined
    found = _FLOORDIV.get(key)
    return found if found is not None else _built(_FLOORDIV, key, _floordiv(a, b))


def ceildiv(a: Form, b: Form) -> Form:
    """``-(-a // b)``.

    >>> ceildiv(const(7), const(2)).const, ceildiv(sym("x"), const(2))
    (4, Form(CeilDiv(x, 2)))
    """
    return _memo2(_CEILDIV, a, b, lambda x, y: _floordiv(x, y, ceil=True))


def _mod(a: Form, b: Form) -> Form:
    _check_divisor(b, "mod")
    if a.is_const and b.is_const:
        return const(a.const % b.const)
    if (a.is_const and a.const == 0) or a is b or (b.is_const and b.const in (1, -1)):
        return const(0)
    quotient, rest = _split_divisible(a, b)
    changed = not (quotient.is_const and quotient.const == 0)
    if b.is_const:
        k = abs(b.const)
        if not 0 <= rest.const < k or any(c % k != c for _, c in rest.terms):
            # (c*m + r) % k == ((c % k)*m + r % k) % k: coefficients and constant in [0, k)
            reduced = {m: c % k for m, c in rest.terms}
            rest, changed = form_from_dict(reduced, rest.const % k), True
            if rest.is_const:
                return const(rest.const % b.const)
        g = math.gcd(_content(rest), k)
        if g > 1:
            # (g*a) % (g*k') == g * (a % k') for g > 0 (divisibility is then normalised: 3*s % 6 -> 3*(s % 2))
            reduced_a = make_form(tuple((m, c // g) for m, c in rest.terms), rest.const // g)
            return scale(mod(reduced_a, const(b.const // g)), g)
    if rest.is_const:
        return const(rest.const % b.const) if b.is_const else (const(0) if rest.const == 0 else atom_form(make_atom("mod", (rest, b))))
    inner = rest.atom()
    if inner is not None and inner.kind == "mod":
        x, m = inner.args
        if m is b or (m.is_const and b.is_const and m.const % b.const == 0):
            return mod(x, b)
        if m.is_const and b.is_const and (m.const > 0) == (b.const > 0) and abs(m.const) <= abs(b.const):
            return rest
    if changed:
        return mod(rest, b)
    return atom_form(make_atom("mod", (a, b)))


def mod(a: Form, b: Form) -> Form:
    """``a % b`` with Python semantics (the result has the divisor's sign).

    >>> mod(const(-7), const(3)).const, mod(add(mul(const(4), sym("x")), const(5)), const(4)).const
    (2, 1)
    >>> mod(add(sym("x"), const(9)), const(4)), mod(mod(sym("x"), const(8)), const(4))
    (Form(Mod(x + 1, 4)), Form(Mod(x, 4)))
    """
    key = a.uid << 32 | b.uid  # _memo2, inlined
    found = _MOD.get(key)
    return found if found is not None else _built(_MOD, key, _mod(a, b))


def _minmax(kind: str, a: Form, b: Form) -> Form:
    flat: list[Form] = []
    for f in (a, b):
        atom = f.atom()
        flat.extend(atom.args if atom is not None and atom.kind == kind else (f,))
    numbers = [f.const for f in flat if f.is_const]
    symbolic = list(dict.fromkeys(f for f in flat if not f.is_const))
    if numbers:
        best = max(numbers) if kind == "max" else min(numbers)
        if not symbolic:
            return const(best)
        symbolic.append(const(best))
    if len(symbolic) == 1:
        return symbolic[0]
    if len(symbolic) == 2:  # the common case, without calling a key function
        f0, f1 = symbolic
        ordered = (f1, f0) if f1.digest < f0.digest else (f0, f1)
    else:
        ordered = tuple(sorted(symbolic, key=lambda f: f.digest))
    return atom_form(make_atom(kind, ordered))


def max_(a: Form, b: Form) -> Form:
    """The symbolic ``max`` (never a guard).

    >>> max_(sym("x"), max_(const(2), const(5)))
    Form(Max(5, x))
    """
    key = a.uid << 32 | b.uid  # _memo2, inlined
    found = _MAX.get(key)
    return found if found is not None else _built(_MAX, key, _minmax("max", a, b))


def min_(a: Form, b: Form) -> Form:
    """The symbolic ``min`` (never a guard).

    >>> min_(const(4), const(-1)).const
    -1
    """
    key = a.uid << 32 | b.uid  # _memo2, inlined
    found = _MIN.get(key)
    return found if found is not None else _built(_MIN, key, _minmax("min", a, b))


def opaque(wrapped, digest: bytes, symbols: frozenset, value) -> Form:
    """An integer expression forms cannot represent, as an opaque atom (:func:`~symint.form.terms.make_opaque_atom`).

    ``digest`` is a structural digest of ``wrapped``, ``symbols`` the names of its symbols,
    ``value(wrapped, values)`` its value; :func:`symint.sympy_io.from_sympy` wraps the sympy
    expressions it cannot convert (Note [Opaque atoms carry their own meaning] in :mod:`symint.form.terms`).

    >>> f = opaque("2**n", b"2**n", frozenset({"n"}), lambda w, values: 2 ** values["n"])
    >>> f.symbols, add(f, const(1)).value({"n": 3})
    (frozenset({'n'}), 9)
    """
    return atom_form(make_opaque_atom(wrapped, digest, symbols, value))
