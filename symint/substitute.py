"""Gone: substitution is :func:`symint.sympy_io.substitute`, through :func:`symint.form.transform`.

Forwards for ``shapeenv/core/facts.py`` only (Note [Forwarding modules] in :mod:`symint.boolform`).

>>> from symint.substitute import substitute
>>> from symint.build import symbol_expr
>>> substitute(symbol_expr("x") + 1, {symbol_expr("x"): symbol_expr("y")})
y + 1
"""

from .sympy_io import substitute

__all__ = ["substitute"]
