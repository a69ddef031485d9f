"""Errors raised by the ``symint`` package.

Every error subclasses :class:`SymIntError` and the built-in exception it most
resembles, so callers may catch either.
"""

from __future__ import annotations

__all__ = [
    "SymIntError",
    "NoEnvironmentError",
    "MixedEnvironmentError",
    "SymbolicTypeError",
    "ExpressionLimitError",
]


class SymIntError(Exception):
    """Base class of every error raised by ``symint``."""


class NoEnvironmentError(SymIntError, RuntimeError):
    """A symbolic value had to be made concrete but no environment is attached.

    Pure expressions (built with :func:`symint.symbol`) can be printed, combined
    and evaluated at given values with :func:`symint.evaluate`, but ``bool()``,
    ``int()`` and ``float()`` need an environment (a ``ShapeEnv``) that can record
    the guard such a decision implies.
    """


class MixedEnvironmentError(SymIntError, ValueError):
    """Two symbolic values from different environments were combined."""


class SymbolicTypeError(SymIntError, TypeError):
    """An operation is not defined for the symbolic types involved."""


class ExpressionLimitError(SymIntError, OverflowError):
    """Folding or evaluating an expression would build something larger than :mod:`symint.limits` allows.

    An ``OverflowError``, hence an ``ArithmeticError``: a guard whose evaluation hits a
    limit fails, as one that divides by zero does.

    Attributes:
        what: what was too large, in words.
    """

    def __init__(self, what: str):
        self.what = what
        super().__init__(what)
