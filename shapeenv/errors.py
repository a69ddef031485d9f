"""Errors raised by the ``shapeenv`` package.

Each subclasses :class:`ShapeEnvError` and the built-in it resembles.
"""

from __future__ import annotations

__all__ = [
    "ShapeEnvError",
    "ConstraintViolationError",
    "GuardOnDataDependentSymNode",
    "CheckFailedError",
    "ContradictionError",
    "ShapeError",
    "HigherOrderOpError",
    "MarkError",
    "MarkIndexError",
]


class ShapeEnvError(Exception):
    """Base class of every error raised by ``shapeenv``."""


class ConstraintViolationError(ShapeEnvError, ValueError):
    """A dimension's value violates the range it was declared with, or a declared-dynamic dim was specialised."""


class GuardOnDataDependentSymNode(ShapeEnvError, RuntimeError):
    """A branch depends on a data-dependent (unbacked) size that no fact decides.

    Attributes:
        expr: the undecided expression (after known replacements).
        unbacked: the unbacked symbols in it, which have no hint.
        origin: the user's ``file:line`` that asked.
        suggestion: the ``check(...)`` call that would decide it.
    """

    def __init__(self, message: str, *, expr=None, unbacked=(), origin=None, suggestion=None):
        super().__init__(message)
        self.expr, self.unbacked, self.origin, self.suggestion = expr, tuple(unbacked), origin, suggestion


class CheckFailedError(ShapeEnvError, AssertionError):
    """A ``check(...)`` is false: statically, or for the hints of the sizes being traced."""


class ContradictionError(ShapeEnvError, ValueError):
    """A new fact contradicts what the environment already knows (e.g. an empty range)."""


class ShapeError(ShapeEnvError, ValueError):
    """An op's inputs violate its shape rule; the message names the op, the arguments and the condition."""


class HigherOrderOpError(ShapeEnvError, ValueError):
    """A scan/map/switch restriction is broken (structure, shapes, dtypes, aliasing or mutation)."""


class MarkError(ShapeEnvError, TypeError):
    """``mark_dynamic``/``maybe_mark_dynamic``/``mark_static`` got something that cannot be marked or a bad argument."""


class MarkIndexError(ShapeEnvError, IndexError):
    """A dim given to ``mark_dynamic``/``maybe_mark_dynamic``/``mark_static`` is out of range."""
