"""Errors raised by the ``shapeenv`` package.

Each subclasses :class:`ShapeEnvError` and the built-in it resembles. Every error knows
the user's line that raised it (the innermost frame outside the library) and, where there
is one, a fix to paste; both are printed under the message:

>>> try:
...     raise ShapeError("view: shape '[5]' is invalid for input of size 6", fix="x.view(6)")
... except ValueError as e:
...     print(str(e).replace(e.where, "<here>"))
view: shape '[5]' is invalid for input of size 6
  at <here>
  fix: x.view(6)
"""

from __future__ import annotations

from .provenance import user_frame

__all__ = [
    "ShapeEnvError",
    "ConstraintViolationError",
    "GuardOnDataDependentSymNode",
    "CheckFailedError",
    "ContradictionError",
    "ShapeError",
    "HigherOrderOpError",
    "DynamicShapesError",
    "DynamicShapesTypeError",
    "SignatureError",
    "UnknownDimSpecError",
    "TorchInteropError",
    "UnsupportedTorchOpError",
    "TracedTensorError",
    "DimOutOfRangeError",
    "InputsError",
]


_FIND = object()  # sentinel: find the user's frame when the error is made


class ShapeEnvError(Exception):
    """Base class of every error raised by ``shapeenv``.

    Args:
        *args: the message (what happened), as for any exception.
        fix: what to do, preferably code the user can paste (printed as ``fix: ...``).
        where: the user's ``file:line in function``; found from the call stack when omitted.

    Attributes:
        where: the user's line that raised it (None outside user code, e.g. in the CLI).
        fix: what to do, or None.
        context: lines that word the inputs in the user's terms (tensor names, sizes and the
            sources of the symbols the message mentions), added by the op that raised.
    """

    def __init__(self, *args: object, fix: str | None = None, where: object = _FIND):
        super().__init__(*args)
        self.fix = fix
        self.where = user_frame(2) if where is _FIND else where
        self._context: tuple[str, ...] | None = ()
        self._make_context = None  # set by shapeenv.messages.annotate; run only when the error is printed

    @property
    def context(self) -> tuple[str, ...]:
        """The lines wording the inputs in the user's terms (built when first asked for)."""
        if self._context is None:
            self._context = tuple(self._make_context())
        return self._context

    @context.setter
    def context(self, lines) -> None:
        self._context = tuple(lines)

    def __reduce__(self):
        """Pickle with the context built (the function that builds it is not picklable)."""
        state = {**self.__dict__, "_context": self.context, "_make_context": None}
        return self.__class__, self.args, state

    def add_context(self, make) -> None:
        """Let ``make()`` build the context lines when the error is printed (errors caught on a path cost nothing)."""
        if self._context == () and self._make_context is None:
            self._context, self._make_context = None, make

    @property
    def message(self) -> str:
        """What happened, without the location, context and fix lines."""
        return self.args[0] if len(self.args) == 1 and isinstance(self.args[0], str) else Exception.__str__(self)

    def __str__(self) -> str:
        text = self.message
        lines = [text, *(f"  {c}" for c in self.context)]
        if self.where and self.where not in text:
            lines.append(f"  at {self.where}")
        if self.fix and self.fix not in text:
            lines.append(f"  fix: {self.fix}")
        return "\n".join(lines)


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


class DynamicShapesError(ShapeEnvError, ValueError):
    """A ``dynamic_shapes`` (or ``dynamic=``) spec does not fit the inputs: an unknown input, a dim out of range, ..."""


class DynamicShapesTypeError(DynamicShapesError, TypeError):
    """A ``dynamic_shapes`` entry has the wrong type (e.g. a string where a ``Dim`` belongs)."""


class SignatureError(ShapeEnvError, TypeError):
    """The example inputs (or call arguments) do not fit the function's signature: too many, too few, unknown names."""


class UnknownDimSpecError(ShapeEnvError, AttributeError):
    """``Dim.<NAME>`` names a spec this library does not have (the message lists the ones it has)."""


class TorchInteropError(ShapeEnvError, TypeError):
    """A torch function was called on this library's fake tensors, which are not ``torch.Tensor`` s."""


class UnsupportedTorchOpError(ShapeEnvError, NotImplementedError):
    """A torch op reached while tracing torch code (``shapeenv.torch``) has no shape rule or no mapping.

    Not a ``TypeError``: torch turns a ``TypeError`` raised inside a Tensor operator (``x + y``)
    into ``NotImplemented``, which would lose this message.

    Attributes:
        op: the torch op as the user would write it (``torch.nn.functional.foo``).
    """

    def __init__(self, message: str, *, op: str, fix: str | None = None, where: object = _FIND):
        super().__init__(message, fix=fix, where=user_frame(2) if where is _FIND else where)
        self.op = op


class TracedTensorError(ShapeEnvError, RuntimeError):
    """A tensor seen while tracing torch code (``shapeenv.torch``) was used outside the trace: it has no data."""


class DimOutOfRangeError(ShapeEnvError, IndexError):
    """A dimension index is outside ``[-ndim, ndim - 1]`` of the tensor it is applied to."""

    def __str__(self) -> str:  # IndexError would not repr it, but be explicit like UnknownSourceError
        return ShapeEnvError.__str__(self)


class InputsError(ShapeEnvError, ValueError):
    """Inputs given to an exported program do not match the ones it was exported with (names, kinds, ranks)."""

