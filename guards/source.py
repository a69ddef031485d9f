"""``Source``: where a symbol's value comes from when a guarded function is called.

A source names an input (``base``, the argument's name) and what is read from it:
its value (an int argument), one of its sizes or strides, its storage offset or
its number of elements. Sources print in two dialects: ours (``x.size()[0]``)
and torch's guard text (``L['x'].size()[0]``).

>>> s = Source.size("x", 0)
>>> s.text(), s.torch_text()
('x.size()[0]', "L['x'].size()[0]")
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from guards.errors import GuardTypeError, GuardValueError
from guards.text.torch_sources import torch_base

__all__ = ["Source", "SourceKind", "storage_offset_of", "contiguous_strides_of"]

SourceKind = Literal["value", "size", "stride", "storage_offset", "numel"]
_KINDS = ("value", "size", "stride", "storage_offset", "numel")
_INDEXED = ("size", "stride")


@dataclass(frozen=True, slots=True, order=True)
class Source:
    """An input and the integer read from it.

    Attributes:
        base: the input's name as the caller binds it (any non-empty string; code
            generation never splices it into source code).
        kind: ``"value"``, ``"size"``, ``"stride"``, ``"storage_offset"`` or ``"numel"``.
        index: the dimension, for sizes and strides; None otherwise.
    """

    base: str
    kind: SourceKind = "value"
    index: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.base, str) or not self.base:
            raise GuardValueError(f"a source needs a non-empty base name, got {self.base!r}")
        if self.kind not in _KINDS:
            raise GuardValueError(f"unknown source kind {self.kind!r}; expected one of {', '.join(_KINDS)}")
        if (self.kind in _INDEXED) != (self.index is not None):
            raise GuardValueError(f"a {self.kind} source {'needs' if self.kind in _INDEXED else 'takes no'} an index")
        if self.index is not None and (isinstance(self.index, bool) or not isinstance(self.index, int) or self.index < 0):
            raise GuardValueError(f"a dimension index must be an int >= 0, got {self.index!r}")

    @classmethod
    def value(cls, base: str) -> "Source":
        """An int argument: ``Source.value("n").text() == "n"``."""
        return cls(base, "value")

    @classmethod
    def size(cls, base: str, dim: int) -> "Source":
        """Size ``dim`` of input ``base``.

        >>> Source.size("x", 1).text()
        'x.size()[1]'
        """
        return cls(base, "size", dim)

    @classmethod
    def stride(cls, base: str, dim: int) -> "Source":
        """Stride ``dim`` of input ``base``.

        >>> Source.stride("x", 0).torch_text()
        "L['x'].stride()[0]"
        """
        return cls(base, "stride", dim)

    @property
    def is_size_like(self) -> bool:
        """Sizes, strides, offsets and element counts are never negative."""
        return self.kind != "value"

    def _suffix(self) -> str:
        if self.kind == "size":
            return f".size()[{self.index}]"
        if self.kind == "stride":
            return f".stride()[{self.index}]"
        if self.kind == "storage_offset":
            return ".storage_offset()"
        if self.kind == "numel":
            return ".numel()"
        return ""

    def text(self) -> str:
        """Our dialect: ``x.size()[0]``, ``x.stride()[1]``, ``n``."""
        return self.base + self._suffix()

    def torch_text(self) -> str:
        """Torch's guard dialect: ``L['x'].size()[0]``, ``L['n']``, ``L['xs'][0].size()[0]`` (see :mod:`guards.text.torch_sources`)."""
        return torch_base(self.base) + self._suffix()

    def read(self, obj: object) -> int:
        """Read this source's integer from the bound object ``obj`` (an array-like or an int).

        Sizes are read from ``obj.shape``; strides from ``obj.stride()`` (torch) or
        ``obj.strides`` divided by ``obj.itemsize`` (numpy); storage offsets as
        :func:`storage_offset_of` says.

        Raises:
            GuardTypeError: ``obj`` has no such size, stride or value.

        >>> class A: shape = (3, 4)
        >>> Source.size("x", 1).read(A())
        4
        """
        try:
            return self._read(obj)
        except (LookupError, AttributeError, TypeError, ValueError) as exc:
            raise GuardTypeError(f"cannot read {self.text()} from {type(obj).__name__}: {exc}") from None

    def _read(self, obj: object) -> int:
        if self.kind == "value":
            if isinstance(obj, (float, str, bytes)):  # int(1e-05) would read 0: a non-int is not this source's value
                raise GuardTypeError(f"the value is a {type(obj).__name__} ({obj!r}), not an int")
            return int(obj)  # type: ignore[call-overload]
        if self.kind == "size":
            return int(obj.shape[self.index])  # type: ignore[attr-defined]
        if self.kind == "numel":
            n = 1
            for d in obj.shape:  # type: ignore[attr-defined]
                n *= int(d)
            return n
        if self.kind == "stride":
            stride = getattr(obj, "stride", None)
            if callable(stride):
                return int(stride()[self.index])
            if not hasattr(obj, "strides") or getattr(obj, "size", 1) == 0:
                # a shape spec (no data), or an empty numpy array (numpy gives those strides 0): laid out as torch would
                return int(contiguous_strides_of(obj.shape)[self.index])  # type: ignore[attr-defined]
            return int(obj.strides[self.index]) // int(obj.itemsize)  # type: ignore[attr-defined]
        return storage_offset_of(obj)

    def __str__(self) -> str:
        return self.text()


def contiguous_strides_of(shape) -> tuple[int, ...]:
    """Row-major strides in elements (sizes 0 count as 1, as torch lays out empty tensors).

    >>> contiguous_strides_of((2, 3, 4))
    (12, 4, 1)
    """
    out, acc = [], 1
    for size in reversed(tuple(shape)):
        out.append(acc)
        acc *= max(int(size), 1)
    return tuple(reversed(out))


def storage_offset_of(obj: object) -> int:
    """The storage offset of an array-like in elements: torch's ``storage_offset()``; for a numpy
    view, the distance of its first element from the start of the array owning the memory; else 0.

    >>> import numpy as np
    >>> a = np.zeros((4, 3), np.float32)
    >>> storage_offset_of(a), storage_offset_of(a[1:]), storage_offset_of(a[1:, 2:][::2])
    (0, 3, 5)
    """
    offset = getattr(obj, "storage_offset", None)
    if callable(offset):
        return int(offset())
    root = obj
    while getattr(root, "base", None) is not None and hasattr(root.base, "__array_interface__"):
        root = root.base  # type: ignore[attr-defined]
    if root is obj:
        return 0
    start = obj.__array_interface__["data"][0]  # type: ignore[attr-defined]
    return (start - root.__array_interface__["data"][0]) // int(obj.itemsize)  # type: ignore[attr-defined]
