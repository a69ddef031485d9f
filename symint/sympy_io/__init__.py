"""The boundary between canonical forms (:mod:`symint.form`) and sympy: the only place that converts.

Integers and booleans are forms; sympy is a view of them, built once per form for
printing, guard text, Z3 translation and export (:func:`to_sympy`, cached on the
form), and the representation of what forms do not cover: floats, true division and
opaque functions (:mod:`symint.sympy_io.floats`). sympy converts to forms through a
memo table (:func:`from_sympy`, :func:`bool_from_sympy`), so a guard parsed from text
joins the hot path at the cost of one walk.

Submodules, each importing only those before it: :mod:`~symint.sympy_io.evaluate` (the
evaluator of sympy expressions with floats), :mod:`~symint.sympy_io.connectives` (``and``/``or``
in the written order), :mod:`~symint.sympy_io.functions` (the printable sympy nodes
``FloorDiv``, ``Mod``, ..., and the conversions both ways: Note [Nodes and conversions in
one module] there),
:mod:`~symint.sympy_io.limits` (the limits on sympy folds),
:mod:`~symint.sympy_io.substitute`, :mod:`~symint.sympy_io.floats` (bitwise and float
functions). This package imports :mod:`symint.form`; the forms import nothing of it
(Note [Forms import no sympy] in :mod:`symint.form`).

Note [Where the view went]
    ``Form.sympy()``, ``Atom.sympy()`` and ``BoolForm.sympy()`` are gone: ``to_sympy(f)``
    says the same. ``symint.sympy_io.view`` is gone (its functions are private parts of
    :func:`to_sympy`); ``symint.form.opaque(expr)`` and ``symint.form.opaque_bool(expr)``
    take what forms need of the wrapped expression and are called through
    :func:`opaque_from_sympy` and :func:`opaque_bool_from_sympy`; ``check_folded`` and
    ``check_fold_power`` moved from :mod:`symint.limits` to :mod:`symint.sympy_io.limits`;
    the memo tables ``SYMPY_TO_FORM``/``SYMPY_TO_BOOL`` moved from ``symint.form.terms`` to
    :mod:`symint.sympy_io.functions`; ``OrderedAnd``, ``OrderedOr``, ``ordered_and`` and
    ``ordered_or`` moved from :mod:`symint.sympy_io.functions` to :mod:`symint.sympy_io.connectives`.

>>> import sympy
>>> from symint.build import symbol_expr
>>> x = symbol_expr("x")
>>> f = from_sympy(2 * x + 3)
>>> f.const, to_sympy(f) == 2 * x + 3
(3, True)
"""

from .functions import (NotAnIntegerForm, bool_from_sympy, division_by_forms, from_sympy, opaque_bool_from_sympy,
                        opaque_from_sympy, to_sympy, view_symbol)
from .substitute import substitute

__all__ = ["to_sympy", "from_sympy", "bool_from_sympy", "opaque_from_sympy", "opaque_bool_from_sympy", "division_by_forms",
           "substitute", "NotAnIntegerForm", "view_symbol"]
