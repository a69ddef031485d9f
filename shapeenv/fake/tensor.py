"""``FakeTensor``: a tensor with a (symbolic) shape, strides and dtype but no data.

Views share a :class:`Storage` with their base; ``clone()`` makes a new one.
In-place ops bump the storage's version counter, so higher-order ops can tell
whether a body mutated or aliased its inputs.

Methods mirror torch's names and dispatch to the shape rules in
:mod:`shapeenv.rules` (one rule per op, see :func:`shapeenv.rules.registry.call`).

>>> from shapeenv import ShapeEnv
>>> env = ShapeEnv()
>>> x = env.fake_tensor((4, 3), name="x")
>>> x.shape, x.stride(), x.dtype, x.numel()
((s0, s1), (s1, 1), float32, s0*s1)
"""

from __future__ import annotations

import itertools
from typing import Any

from ..rules.registry import call
from .dtypes import DType

__all__ = ["FakeTensor", "Storage", "contiguous_strides"]

_storage_ids = itertools.count()


class Storage:
    """The identity of a tensor's memory, and its version counter (bumped by in-place ops)."""

    __slots__ = ("id", "version")

    def __init__(self) -> None:
        self.id = next(_storage_ids)
        self.version = 0

    def __repr__(self) -> str:
        return f"Storage({self.id}, version={self.version})"


def contiguous_strides(shape: tuple) -> tuple:
    """Row-major strides of ``shape`` (ints or SymInts).

    >>> contiguous_strides((2, 3, 4))
    (12, 4, 1)
    """
    strides = []
    acc: Any = 1
    for size in reversed(shape):
        strides.append(acc)
        acc = acc * size
    return tuple(reversed(strides))


class FakeTensor:
    """A tensor's metadata: ``shape``, ``stride()``, ``dtype``, storage identity and offset.

    Create inputs with ``ShapeEnv.fake_tensor``; ops create the rest.
    """

    __slots__ = ("shape", "_stride", "dtype", "storage", "storage_offset", "env", "name")
    _is_fake_tensor = True

    def __init__(self, env, shape: tuple, dtype: DType, *, stride: tuple | None = None,
                 storage: Storage | None = None, storage_offset: Any = 0, name: str | None = None):
        self.env = env
        self.shape = tuple(shape)
        self.dtype = dtype
        self._stride = tuple(stride) if stride is not None else contiguous_strides(self.shape)
        self.storage = storage if storage is not None else Storage()
        self.storage_offset = storage_offset
        self.name = name

    # -- metadata --------------------------------------------------------------------------------
    def size(self, dim: int | None = None):
        """The shape, or the size of one dimension (negative ``dim`` counts from the end)."""
        return self.shape if dim is None else self.shape[self._dim(dim)]

    def stride(self, dim: int | None = None):
        """The strides, or the stride of one dimension."""
        return self._stride if dim is None else self._stride[self._dim(dim)]

    def dim(self) -> int:
        """The number of dimensions."""
        return len(self.shape)

    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return len(self.shape)

    def numel(self):
        """The number of elements (a SymInt when the shape is symbolic)."""
        n: Any = 1
        for d in self.shape:
            n = n * d
        return n

    @property
    def version(self) -> int:
        """The version counter of the storage (bumped by in-place ops on any view of it)."""
        return self.storage.version

    def is_view_of(self, other: "FakeTensor") -> bool:
        """Whether both tensors share storage (one is a view of the other, or both of a third)."""
        return self.storage is other.storage

    def _dim(self, dim: int) -> int:
        n = len(self.shape)
        if not -n <= dim < n if n else dim not in (0, -1):
            raise IndexError(f"dimension {dim} is out of range for a tensor with {n} dimensions")
        return dim % n if n else 0

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __repr__(self) -> str:
        dims = ", ".join(str(d) for d in self.shape)
        return f"FakeTensor({self.dtype}[{dims}])"

    # -- elementwise arithmetic and comparisons (shape rules in shapeenv.rules.elementwise) -------
    def __add__(self, other):
        return call("add", self, other)

    def __radd__(self, other):
        return call("add", other, self)

    def __sub__(self, other):
        return call("sub", self, other)

    def __rsub__(self, other):
        return call("sub", other, self)

    def __mul__(self, other):
        return call("mul", self, other)

    def __rmul__(self, other):
        return call("mul", other, self)

    def __truediv__(self, other):
        return call("div", self, other)

    def __rtruediv__(self, other):
        return call("div", other, self)

    def __neg__(self):
        return call("neg", self)

    def add(self, other):
        """Elementwise ``self + other`` with broadcasting."""
        return call("add", self, other)

    def mul(self, other):
        """Elementwise ``self * other`` with broadcasting."""
        return call("mul", self, other)

    def add_(self, other):
        """In-place ``self += other`` (bumps the version counter)."""
        return call("add_", self, other)

    def clone(self):
        """A copy with its own storage."""
        return call("clone", self)

    def __hash__(self) -> int:
        return id(self)

