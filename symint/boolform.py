"""Gone: boolean forms are :mod:`symint.form` (``symint.form.logic``); ``bool_from_sympy`` is in :mod:`symint.sympy_io`.

Note [Forwarding modules]
    ``symint.boolform``, ``symint.form_sympy`` and ``symint.form_transform`` forward to
    their new homes only for ``shapeenv/core/facts.py`` and ``valueranges/linear_facts.py``,
    which another change is moving into ``valueranges/facts/`` at the same time; that change
    imports the new names, and these three modules are deleted with it. New code imports
    :mod:`symint.form` and :mod:`symint.sympy_io`.

>>> from symint.boolform import rel, BoolForm
>>> from symint.form import sym, const
>>> isinstance(rel("<", sym("x"), const(3)), BoolForm)
True
"""

from .form.logic import *  # noqa: F401,F403
from .form.logic import __all__ as _logic_all
from .sympy_io import bool_from_sympy

__all__ = [*_logic_all, "bool_from_sympy"]
