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
    "ShapeEnvError",
    "ConstraintViolationError",
    "GuardOnDataDependentSymNode",
    "CheckFailedError",
    "ContradictionError",
    "ShapeEnvTypeError",
    "ShapeEnvValueError",
    "SettingsError",
    "UnknownSymbolError",
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
]


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

