"""Modular sets of canonical forms: ``f`` is always ``coeff*k + base`` for some integer ``k`` (TVM's ModularSet).

``(coeff, base)`` with ``0 <= base < coeff`` says "``f = base (mod coeff)``"; ``coeff``
0 means ``f`` is the constant ``base``; ``(1, 0)`` says nothing. The rules are exact
identities over the integers (each is checked by brute force in
``tests/valueranges/test_modular.py``):

* a sum: ``(gcd(c1, c2), b1 + b2)``; a multiple ``k*f``: ``(k*c, k*b)``;
* a product: ``(gcd(c1*c2, c1*b2, c2*b1), b1*b2)``;
* ``f // d`` for a constant ``d > 0`` dividing ``coeff``: ``(coeff/d, base // d)``;
* ``f % d`` for a constant ``d > 0``: ``(gcd(coeff, d), base)`` (the residue survives the mod);
* ``max``/``min``: the union of the arguments' sets, ``(gcd(c1, c2, b1 - b2), b1)``.

Its use: ``(320*n + 255) % 256`` is ``255 (mod 64)``, so it lies in ``[63, 255]``, where
intervals give ``[0, 255]`` (:func:`mod_bound_by_residue`).

>>> from symint import form as F
>>> n = F.sym("n")
>>> modular_set(F.add(F.scale(n, 320), F.const(255))), mod_bound_by_residue(F.add(F.scale(n, 320), F.const(255)), 256)
((320, 255), (63, 255))
"""

from __future__ import annotations

import math
from typing import Mapping

from symint import form as F

__all__ = ["modular_set", "mod_bound_by_residue", "combine_congruences"]

_NOTHING = (1, 0)


def _norm(coeff: int, base: int) -> tuple[int, int]:
    coeff = abs(coeff)
    return (coeff, base % coeff) if coeff else (0, base)


def _add(a: tuple, b: tuple) -> tuple:
    return _norm(math.gcd(a[0], b[0]), a[1] + b[1])


def _mul(a: tuple, b: tuple) -> tuple:
    (c1, b1), (c2, b2) = a, b
    return _norm(math.gcd(c1 * c2, c1 * b2, c2 * b1), b1 * b2)


def modular_set(f: "F.Form", residues: Mapping[str, tuple[int, int]] | None = None, memo: dict | None = None) -> tuple[int, int]:
    """``(coeff, base)``: every value of ``f`` is ``base`` modulo ``coeff`` (see the module docstring).

    ``residues``: known congruences of symbols (name -> ``(modulus, residue)``).

    >>> from symint import form as F
    >>> x = F.sym("x")
    >>> modular_set(F.scale(F.floordiv(F.scale(x, 8), F.const(2)), 3)), modular_set(x, {"x": (4, 1)})
    ((12, 0), (4, 1))
    """
    memo = {} if memo is None else memo
    out = (0, f.const)
    for m, c in f.terms:
        term = (0, 1)
        for atom, p in m.factors:
            a = _atom_set(atom, residues or {}, memo)
            for _ in range(p):
                term = _mul(term, a)
        out = _add(out, _mul(term, (0, c)))
        if out == _NOTHING:
            return out
    return out


def _atom_set(atom: "F.Atom", residues: Mapping, memo: dict) -> tuple[int, int]:
    kind = atom.kind
    if kind == "sym":
        return _norm(*residues.get(atom.name, _NOTHING))
    key = ("modular", atom)
    found = memo.get(key)
    if found is not None:
        return found
    result = _NOTHING
    if kind in ("max", "min"):  # the value is one of the arguments: the union of their sets
        sets = [modular_set(a, residues, memo) for a in atom.args]
        c0, b0 = sets[0]
        g = c0
        for c, b in sets[1:]:
            g = math.gcd(g, c, b - b0)
        result = _norm(g, b0)
    elif kind in ("floordiv", "mod"):
        x, d = atom.args
        if d.is_const and d.const > 0:
            c, b = modular_set(x, residues, memo)
            k = d.const
            if kind == "mod":
                result = _norm(math.gcd(c, k), b)
            elif c % k == 0:
                result = _norm(c // k, b // k)
    memo[key] = result
    return result


def mod_bound_by_residue(x: "F.Form", d: int, residues: Mapping | None = None, memo: dict | None = None) -> tuple[int, int]:
    """The interval of ``x % d`` (``d > 0``) that the residue of ``x`` allows: ``r + g*[0, d/g - 1]``
    with ``g = gcd(coeff, d)`` and ``r = base % g``; exact ``base % d`` for a constant.

    >>> from symint import form as F
    >>> mod_bound_by_residue(F.add(F.scale(F.sym("n"), 64), F.const(61)), 256)
    (61, 253)
    """
    c, b = modular_set(x, residues, memo)
    if c == 0:
        return (b % d, b % d)
    g = math.gcd(c, d)
    r = b % g
    return (r, d - g + r)


def combine_congruences(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int] | None:
    """The congruence both ``x = a[1] (mod a[0])`` and ``x = b[1] (mod b[0])`` say (Chinese remainders), or None
    when they contradict.

    >>> combine_congruences((4, 1), (3, 1)), combine_congruences((4, 1), (6, 3)), combine_congruences((4, 1), (6, 2))
    ((12, 1), (12, 9), None)
    """
    (m1, r1), (m2, r2) = a, b
    g = math.gcd(m1, m2)
    if (r2 - r1) % g:
        return None
    lcm = m1 // g * m2
    # x = r1 + m1*t with m1*t = r2 - r1 (mod m2): t = ((r2 - r1)/g) * inv(m1/g) (mod m2/g)
    mg = m2 // g
    t = ((r2 - r1) // g * pow(m1 // g, -1, mg)) % mg if mg > 1 else 0
    return (lcm, (r1 + m1 * t) % lcm)
