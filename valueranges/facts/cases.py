"""Cases: deciding a relation with a ``max``/``min`` by splitting on its arguments.

``c*Max(a, b) + r <= 0`` (``c > 0``) holds iff ``c*a + r <= 0`` and ``c*b + r <= 0``;
``Min`` with ``c < 0`` alike. TVM's analyzer splits the same way when it meets a
``max``/``min`` it cannot bound tightly. The split is bounded (``depth``), and only a
proof that every case holds answers (True); anything else is None.

>>> from symint import form as F
>>> from symint.form import logic as B
>>> x = F.sym("x")
>>> decide_by_cases(B.rel("<=", F.max_(x, F.const(3)), F.const(5)).norm, lambda case: True)
True
"""

from __future__ import annotations

from typing import Callable

from symint.form import logic as B
from symint import form as F
from symint.form.logic import BoolForm, Norm

__all__ = ["decide_by_cases", "mentions_max_min", "has_function_atoms"]


def decide_by_cases(n: Norm, decide: Callable[[BoolForm], "bool | None"], depth: int = 2) -> bool | None:
    """True when every case of the first splittable ``max``/``min`` of ``n`` (``<=``) is proven by ``decide``.

    ``decide(case)`` is asked with the case expected to hold; a case it leaves open is
    split again, ``depth`` levels at most. None when some case is not proven.
    """
    if depth == 0:
        return None
    for m, c in n.p.terms:
        atom = m.single
        if atom is None or not ((atom.kind == "max" and c > 0) or (atom.kind == "min" and c < 0)):
            continue
        rest = F.sub(n.p, F.scale(F.atom_form(atom), c))
        for arg in atom.args:
            case = B.rel("<=", F.add(rest, F.scale(arg, c)), F.const(0))
            if case.kind == "const":
                if not case.value:
                    return None
                continue
            answer = decide(case)
            if answer is None and case.norm.op == "<=":
                answer = decide_by_cases(case.norm, decide, depth - 1)
            if answer is not True:
                return None
        return True
    return None


def mentions_max_min(f: "F.Form") -> bool:
    """Whether a max or min occurs at the top of ``f`` or in the arguments of its divisions
    (``(b - max(0, b - a)) // 2 >= 0``: the rewriter makes it ``min(a, b) // 2 >= 0``).
    """
    for m, _ in f.terms:
        for a, _ in m.factors:
            if a.kind in ("max", "min") or (a.kind in ("floordiv", "mod") and any(map(mentions_max_min, a.args))):
                return True
    return False


def has_function_atoms(f: "F.Form", kinds: tuple = ("max", "min", "floordiv", "mod")) -> bool:
    """Whether an atom of ``kinds`` (max, min, floor division, modulo) occurs at the top of ``f``."""
    return any(a.kind in kinds for m, _ in f.terms for a, _ in m.factors)
