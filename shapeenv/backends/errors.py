"""Errors raised when a backend runs a traced program.

Each subclasses :class:`BackendError` (itself a :class:`~shapeenv.errors.ShapeEnvError`) and the
built-in it resembles.
"""

from __future__ import annotations

from ..errors import ShapeEnvError

__all__ = ["BackendError", "MissingKernelError", "InputMismatchError", "ShapeMismatchError", "KernelError"]


class BackendError(ShapeEnvError, RuntimeError):
    """Base class of every error raised while preparing or running a program on a backend."""


class MissingKernelError(BackendError, NotImplementedError):
    """The program uses an op that the backend has no implementation for (the message names it)."""


class InputMismatchError(BackendError, ValueError):
    """The inputs do not fit the program: structure, rank, dtype, a specialised size, or a failing guard."""


class ShapeMismatchError(BackendError, AssertionError):
    """An op produced a shape (or dtype) other than the one the program predicts for these sizes.

    This means the program's guards admitted inputs on which tracing would have decided differently:
    a soundness bug in a shape rule, never a user error.
    """


class KernelError(BackendError):
    """An op's implementation raised on the actual inputs (the message names the node, the op and the shapes)."""
