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

from .arith import *  # noqa: F401,F403  (the names of arith.__all__)
from .arith import __all__ as _ARITH
from .evaluate import evaluate_atom, evaluate_bool, evaluate_form
from .logic import *  # noqa: F401,F403  (the names of logic.__all__)
from .logic import __all__ as _LOGIC
from .transform import rebuild_atom, transform, transform_bool

__all__ = [*_ARITH, *_LOGIC, "transform", "transform_bool", "rebuild_atom", "evaluate_atom", "evaluate_form", "evaluate_bool"]
