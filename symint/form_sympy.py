"""Gone: moved to :mod:`symint.sympy_io` (Note [Forwarding modules] in :mod:`symint.boolform`).

>>> from symint.form_sympy import from_sympy
>>> from symint.build import symbol_expr
>>> from_sympy(symbol_expr("x") + 1).const
1
"""

from .sympy_io import NotAnIntegerForm, from_sympy

__all__ = ["from_sympy", "NotAnIntegerForm"]
