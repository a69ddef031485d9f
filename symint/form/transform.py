"""Rewriting canonical forms atom by atom: substitution and re-canonicalisation.

:func:`transform` (integers) and :func:`transform_bool` (booleans) are how facts apply
replacements and divisibility, and how :func:`symint.sympy_io.substitute` substitutes;
the rebuilt atoms and relations go through the constructors of :mod:`symint.form`
again, so the result is canonical (a relation that became constant folds).

>>> from symint.form import add, const, sym
>>> x, y = sym("x"), sym("y")
>>> transform(add(x, const(1)), lambda a: y if a.kind == "sym" and a.name == "x" else None, {})
Form(y + 1)
"""

from __future__ import annotations

from typing import Callable, Iterable

from .arith import Atom, Form, atom_form, ceildiv, const, floordiv, form_from_dict, max_, min_, mod, mul, pow_nat, pow_sym, scale
from .logic import BoolForm, and_, not_, or_, rel

__all__ = ["transform", "transform_bool", "rebuild_atom"]


def rebuild_atom(atom: Atom, args: Iterable[Form]) -> Form:
    """``atom``'s function applied to new arguments (canonicalised again).

    >>> from symint.form import sym
    >>> a = floordiv(sym("x"), const(4)).atom()
    >>> rebuild_atom(a, [const(9), const(4)]).const
    2
    """
    args = tuple(args)
    kind = atom.kind
    if kind == "floordiv":
        return floordiv(*args)
    if kind == "ceildiv":
        return ceildiv(*args)
    if kind == "mod":
        return mod(*args)
    if kind in ("max", "min"):
        op = max_ if kind == "max" else min_
        result = args[0]
        for other in args[1:]:
            result = op(result, other)
        return result
    if kind == "pow":
        return pow_sym(*args)
    raise ValueError(f"cannot rebuild a {kind} atom from forms")


def transform(form: Form, on_atom: Callable[[Atom], Form | None], memo: dict) -> Form:
    """``form`` with each atom replaced by ``on_atom(atom)`` (None keeps it, arguments transformed first).

    ``memo`` caches results for this ``on_atom`` (the caller keeps it while the mapping is unchanged).

    >>> from symint.form import add, sym
    >>> x, y = sym("x"), sym("y")
    >>> subst = {"x": add(y, const(1))}
    >>> def on_atom(a):
    ...     return subst.get(a.name) if a.kind == "sym" else None
    >>> transform(mul(x, const(2)), on_atom, {})
    Form(2*y + 2)
    """
    found = memo.get(form)
    if found is not None:
        return found
    if form.is_const:
        return form
    # Unchanged terms go straight into the coefficients; only changed ones are multiplied out,
    # so no intermediate sums are built (and interned).
    coeffs: dict = {}
    const_ = form.const
    changed = False
    for m, c in form.terms:
        factors = m.factors
        if len(factors) == 1:  # one atom (to some power), the common case: no list is built
            atom, p = factors[0]
            new = memo[atom] if atom in memo else _transform_atom(atom, on_atom, memo)
            if new is None:
                coeffs[m] = coeffs.get(m, 0) + c
                continue
            changed = True
            if p != 1:
                new = pow_nat(new, p)
            # c * new, added term by term: the scaled form is not built (nor interned)
            const_ += c * new.const
            for tm, tc in new.terms:
                coeffs[tm] = coeffs.get(tm, 0) + c * tc
            continue
        news = [_transform_atom(atom, on_atom, memo) for atom, _ in factors]
        if not any(n is not None for n in news):
            coeffs[m] = coeffs.get(m, 0) + c
            continue
        changed = True
        term = None
        for (atom, p), new in zip(factors, news):
            factor = pow_nat(atom_form(atom) if new is None else new, p)
            term = factor if term is None else mul(term, factor)
        const_ += c * term.const
        for tm, tc in term.terms:
            coeffs[tm] = coeffs.get(tm, 0) + c * tc
    result = form_from_dict(coeffs, const_) if changed else form
    memo[form] = result
    return result


def _transform_atom(atom: Atom, on_atom: Callable[[Atom], Form | None], memo: dict) -> Form | None:
    if atom in memo:  # atoms and forms are distinct objects with identity hashes: one table holds both
        return memo[atom]
    new = None
    if atom.kind not in ("sym", "opaque"):
        args = [transform(a, on_atom, memo) for a in atom.args]
        changed = False
        for x, y in zip(args, atom.args):  # a loop, not any() over a generator: hot
            if x is not y:
                changed = True
                break
        if changed:
            new = rebuild_atom(atom, args)
            replaced = new.atom()
            if replaced is not None:
                new2 = on_atom(replaced)
                new = new if new2 is None else new2
        else:
            new = on_atom(atom)
    else:
        new = on_atom(atom)
    memo[atom] = new
    return new


def transform_bool(
    b: BoolForm,
    on_atom: Callable[[Atom], Form | None],
    memo: dict,
    on_opaque: Callable[[BoolForm], BoolForm | None] = lambda b: None,
) -> BoolForm:
    """``b`` with the atoms of its relations transformed (:func:`transform`); connectives keep their order.

    ``on_opaque(b)`` rewrites a wrapped sympy boolean (None keeps it).

    >>> from symint.form import add, rel, sym
    >>> x, y = sym("x"), sym("y")
    >>> on_atom = lambda a: add(y, const(1)) if a.name == "x" else None
    >>> transform_bool(rel("<", x, y), on_atom, {}).value, transform_bool(rel("<=", x, add(y, const(2))), on_atom, {}).value
    (False, True)
    """
    found = memo.get(b)
    if found is not None:
        return found
    kind = b.kind
    if kind == "const":
        return b
    if kind == "rel":
        op, lhs, rhs = b.args
        new_l, new_r = transform(lhs, on_atom, memo), transform(rhs, on_atom, memo)
        result = b if new_l is lhs and new_r is rhs else rel(op, new_l, new_r)
    elif kind in ("and", "or", "not"):
        args = [transform_bool(a, on_atom, memo, on_opaque) for a in b.args]
        if all(x is y for x, y in zip(args, b.args)):
            result = b
        else:
            result = and_(*args) if kind == "and" else or_(*args) if kind == "or" else not_(args[0])
    else:
        result = on_opaque(b) or b
    memo[b] = result
    return result
