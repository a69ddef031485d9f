"""Canonical forms: THE representation of symbolic integers and booleans (public).

An integer is a :class:`Form` (``const + sum(coeff * monomial)`` over interned
:class:`Atom` s: symbols, ``floordiv``, ``ceildiv``, ``mod``, ``max``, ``min``,
``pow`` and opaque sympy expressions); a boolean is a :class:`BoolForm`
(relations with a normalised :class:`Norm`, and ordered connectives). Everything is
interned, so equality is identity. sympy is a view built on request
(``f.sympy()``; conversions live in :mod:`symint.sympy_io`).

Modules: :mod:`~symint.form.terms` (the interned data, Note [Sweeping the interning
tables]), :mod:`~symint.form.arith` (the rewrite system), :mod:`~symint.form.logic`
(booleans), :mod:`~symint.form.transform` (substitution, re-canonicalisation),
:mod:`~symint.form.evaluate` and :mod:`~symint.form.semantics` (values, Python semantics).

>>> x, y = sym("x"), sym("y")
>>> e = add(mul(x, const(2)), y)
>>> e is add(y, scale(x, 2)), e.linear(), e.value({"x": 1, "y": 4})
(True, {'x': 2, 'y': 1}, 6)
>>> c = and_(rel(">", x, const(2)), rel("<", x, const(9)))
>>> c.sympy(), c.evaluate({"x": 3})
((x > 2) & (x < 9), True)
"""

from .arith import (
    MAX_TERMS,
    Atom,
    Form,
    FormLimitError,
    Mono,
    add,
    atom_form,
    ceildiv,
    const,
    floordiv,
    form_from_dict,
    max_,
    min_,
    mod,
    mul,
    neg,
    opaque,
    pow_nat,
    pow_sym,
    scale,
    sub,
    sym,
)
from .evaluate import evaluate_atom, evaluate_bool, evaluate_form
from .logic import (
    FALSE,
    OPS,
    TRUE,
    BoolForm,
    Norm,
    and_,
    bool_const,
    normalise,
    not_,
    opaque_bool,
    or_,
    rel,
    relation_norm,
)
from .transform import rebuild_atom, transform, transform_bool

__all__ = [
    "Atom",
    "Mono",
    "Form",
    "FormLimitError",
    "MAX_TERMS",
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
    "BoolForm",
    "Norm",
    "TRUE",
    "FALSE",
    "OPS",
    "rel",
    "relation_norm",
    "normalise",
    "and_",
    "or_",
    "not_",
    "bool_const",
    "opaque_bool",
    "transform",
    "transform_bool",
    "rebuild_atom",
    "evaluate_atom",
    "evaluate_form",
    "evaluate_bool",
]
