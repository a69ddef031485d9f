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

from .core import errors as _core_errors
from .core.errors import (
    FIND_WHERE,
    CheckFailedError,
    ConstraintViolationError,
    ContradictionError,
    GuardOnDataDependentSymNode,
    SettingsError,
    ShapeEnvError,
    ShapeEnvTypeError,
    ShapeEnvValueError,
    UnknownSymbolError,
)
from .core.provenance import user_frame

__all__ = [
    "ShapeError",
    "HigherOrderOpError",
    "DynamicShapesError",
    "DynamicShapesTypeError",
    "SignatureError",
    "UnknownDimSpecError",
    "DimSpecError",
    "DimSpecTypeError",
    "TorchInteropError",
    "UnsupportedTorchOpError",
    "TracedTensorError",
    "DimOutOfRangeError",
    "IndexOutOfBoundsError",
    "InputsError",
    "TraceStateWarning",
]
__all__ += _core_errors.__all__  # the core's errors, re-exported: their one list is the core's


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


class DimSpecError(DynamicShapesError):
    """A ``Dim`` declaration is invalid: an empty name, ``min > max``, choices outside ``[min, max]``,
    a derived dim of a set-valued or special dim, a coefficient that is not positive."""


class DimSpecTypeError(DimSpecError, DynamicShapesTypeError):
    """A ``Dim`` declaration has an argument of the wrong type (``2.5 * Dim("b")``, a choice that is not an int)."""


class UnknownDimSpecError(ShapeEnvError, AttributeError):
    """``Dim.<NAME>`` names a spec this library does not have (the message lists the ones it has)."""


class TorchInteropError(ShapeEnvError, TypeError):
    """torch and this library's values were mixed where they cannot be.

    A torch function called on this library's fake tensors (which are not ``torch.Tensor`` s;
    trace torch code with :mod:`shapeenv.torch`), or a symbolic size of torch's own ShapeEnv
    reaching ``shapeenv.torch`` (tracing inside ``torch.compile`` / ``torch.export``).
    """


class UnsupportedTorchOpError(ShapeEnvError, NotImplementedError):
    """A torch op reached while tracing torch code (``shapeenv.torch``) has no shape rule or no mapping.

    Not a ``TypeError``: torch turns a ``TypeError`` raised inside a Tensor operator (``x + y``)
    into ``NotImplemented``, which would lose this message.

    Attributes:
        op: the torch op as the user would write it (``torch.nn.functional.foo``).
    """

    def __init__(self, message: str, *, op: str, fix: str | None = None, where: object = FIND_WHERE):
        super().__init__(message, fix=fix, where=user_frame(2) if where is FIND_WHERE else where)
        self.op = op


class TracedTensorError(ShapeEnvError, RuntimeError):
    """A tensor seen while tracing torch code (``shapeenv.torch``) was used outside the trace: it has no data."""


class DimOutOfRangeError(ShapeEnvError, IndexError):
    """A dimension index is outside ``[-ndim, ndim - 1]`` of the tensor it is applied to."""

    def __str__(self) -> str:  # IndexError would not repr it, but be explicit like UnknownSourceError
        return ShapeEnvError.__str__(self)


class IndexOutOfBoundsError(ShapeError, IndexError):
    """An index (or a start and length) lies outside the dimension it indexes, on real values (numpy kernels)."""

    def __str__(self) -> str:
        return ShapeEnvError.__str__(self)


class InputsError(ShapeEnvError, ValueError):
    """Inputs given to an exported program do not match the ones it was exported with (names, kinds, ranks),
    or an input cannot be traced at all (a numpy view with negative strides)."""



class TraceStateWarning(UserWarning):
    """A trace wrote to the user's state (a module attribute, a container it owns, a global, an argument's
    attribute); the writes were undone after the trace (:mod:`shapeenv.export.state`).

    As ``torch.export`` words it, tensors a module keeps must be registered as buffers.

    Attributes:
        title: the traced program's name.
        writes: one :class:`~shapeenv.export.state.StateWrite` per write (``path``, ``what``, ``value``, ...).
        summary: one line naming the writes.

    >>> from shapeenv.export.state import StateWrite
    >>> w = TraceStateWarning.of("M", (StateWrite("self.cache['cpu']", "added", "a traced tensor f32[4]", True, True),))
    >>> print(str(w)[:99])
    The tensor attribute self.cache['cpu'] (added: a traced tensor f32[4]) was assigned while tracing M
    >>> "register_buffer" in str(w), w.writes[0].traced
    (True, True)
    """

    def __init__(self, message: str, title: str = "", writes: tuple = (), summary: str = ""):
        super().__init__(message)
        self.title, self.writes, self.summary = title, tuple(writes), summary or message

    @classmethod
    def of(cls, title: str, writes: tuple, truncated: bool = False) -> "TraceStateWarning":
        """The warning for ``writes`` made while tracing ``title`` (see the class docstring)."""
        undone = [w for w in writes if w.restored]
        state = [w for w in undone if w.kind in ("buffer", "parameter", "submodule")]
        tensors = [w for w in undone if w.tensor and w not in state]
        others = [w for w in undone if w not in state and w not in tensors]
        parts = []
        if tensors:
            noun, verb = ("attributes", "were") if len(tensors) > 1 else ("attribute", "was")
            them = "them" if len(tensors) > 1 else "it"
            parts.append(
                f"The tensor {noun} {_listed(tensors)} {verb} assigned while tracing {title}; shapeenv restored {them} "
                f"after the trace (the traced program does not keep {them}). Such attributes must be registered as "
                "buffers using the `register_buffer` API (self.register_buffer(name, tensor, persistent=False) for a "
                "cache), or computed without being stored."
            )
        if state:
            noun = ", ".join(dict.fromkeys(f"{w.kind}s" for w in state)) if len(state) > 1 else state[0].kind
            them = "them" if len(state) > 1 else "it"
            parts.append(
                f"The {noun} {_listed(state)} {'were' if len(state) > 1 else 'was'} reassigned while tracing {title}; "
                f"shapeenv restored {them}: the traced program does not reassign a module's state. Update a buffer in "
                "place instead (self.steps.add_(1), as BatchNorm updates its running statistics)."
            )
        if others:
            noun = "writes" if len(others) > 1 else "write"
            them = "them" if len(others) > 1 else "it"
            parts.append(
                f"{'The trace also made' if tensors or state else f'Tracing {title} made'} the {noun} {_listed(others)} "
                f"to the user's state; shapeenv undid {them} after the trace: the traced program does not perform "
                f"{them}. Return such values instead of storing them (in globals, closures, arguments or the module)."
            )
        failed = [w for w in writes if not w.restored]
        if failed:
            parts.append(f"{_listed(failed)} could not be restored: the value the trace left is still there (a traced "
                         "value fails when used outside the trace). Keep state the traced code writes where the trace "
                         "restores it: on the module, its arguments, or a global or closure variable itself.")
        if truncated:
            parts.append("(The state was larger than the snapshot limit: writes past it were neither seen nor undone.)")
        summary = (f"tracing {title} wrote {len(writes)} {'entries' if len(writes) > 1 else 'entry'} of the user's "
                   f"state, undone: {', '.join(w.path for w in writes[:4])}{', ...' if len(writes) > 4 else ''}")
        return cls(" ".join(parts), title, writes, summary)


def _listed(writes: list, limit: int = 12) -> str:
    shown = ", ".join(str(w) for w in writes[:limit])
    return shown + (f", and {len(writes) - limit} more" if len(writes) > limit else "")
