"""Canonical forms: THE representation of symbolic integers and booleans (public).

An integer is a :class:`Form` (``const + sum(coeff * monomial)`` over interned
:class:`Atom` s: symbols, ``floordiv``, ``ceildiv``, ``mod``, ``max``, ``min``,
``pow`` and opaque wrapped expressions); a boolean is a :class:`BoolForm`
(relations with a normalised :class:`Norm`, and ordered connectives). Everything is
interned, so equality is identity. sympy is a view built on request by
:func:`symint.sympy_io.to_sympy` (conversions both ways live in :mod:`symint.sympy_io`).

Modules: :mod:`~symint.form.terms` (the interned data, Note [Sweeping the interning
tables]), :mod:`~symint.form.arith` (the rewrite system), :mod:`~symint.form.logic`
(booleans), :mod:`~symint.form.transform` (substitution, re-canonicalisation),
:mod:`~symint.form.evaluate` and :mod:`~symint.form.semantics` (values, Python semantics),
:mod:`~symint.form.text` (``repr``).

Note [Forms import no sympy]
    The forms are the core and :mod:`symint.sympy_io` is the boundary: ``sympy_io`` imports
    ``form``, never the reverse, and nothing in this package imports sympy (the layering test
    checks both). So the view is a function of the boundary, ``to_sympy(f)`` (the methods
    ``Form.sympy()``, ``Atom.sympy()`` and ``BoolForm.sympy()`` are gone), which caches it in
    the form's ``_sympy`` slot: a slot the form declares and only ``sympy_io`` reads or writes.
    A method whose body imported ``sympy_io`` would keep the cycle at run time, and one that
    called a function ``sympy_io`` registers at import would be a global hook. What forms
    cannot represent (an opaque sympy expression) is wrapped by ``sympy_io`` together with
    what forms need of it (Note [Opaque atoms carry their own meaning] in
    :mod:`symint.form.terms`). A form prints itself without sympy (``repr``, :mod:`symint.form.text`).

>>> x, y = sym("x"), sym("y")
>>> e = add(mul(x, const(2)), y)
>>> e is add(y, scale(x, 2)), e.linear(), e.value({"x": 1, "y": 4})
(True, {'x': 2, 'y': 1}, 6)
>>> c = and_(rel(">", x, const(2)), rel("<", x, const(9)))
>>> c, c.evaluate({"x": 3})
(BoolForm((x > 2) & (x < 9)), True)
"""

from .arith import *  # noqa: F401,F403  (the names of arith.__all__)
from .arith import __all__ as _ARITH
from .evaluate import evaluate_atom, evaluate_bool, evaluate_form
from .logic import *  # noqa: F401,F403  (the names of logic.__all__)
from .logic import __all__ as _LOGIC
from .transform import rebuild_atom, transform, transform_bool

__all__ = [*_ARITH, *_LOGIC, "transform", "transform_bool", "rebuild_atom", "evaluate_atom", "evaluate_form", "evaluate_bool"]
