"""``FakeTensor``: a tensor with a (symbolic) shape, strides and dtype but no data.

Views share a :class:`Storage` with their base; ``clone()`` makes a new one.
In-place ops bump the storage's version counter, so higher-order ops can tell
whether a body mutated or aliased its inputs.

Methods mirror torch's names and dispatch to the shape rules in
:mod:`shapeenv.ops.rules` (one rule per op, see :func:`shapeenv.ops.dispatch.call`).

>>> from shapeenv import ShapeEnv
>>> env = ShapeEnv()
>>> x = env.fake_tensor((4, 3), name="x")
>>> x.shape, x.stride(), x.dtype, x.numel(), x.is_contiguous(), x.t().is_contiguous()
((s0, s1), (s1, 1), float32, s0*s1, True, False)
"""

from __future__ import annotations

import itertools
from typing import Any

from shapeenv.errors import DimOutOfRangeError, ShapeError, TorchInteropError
from shapeenv.core.messages import user_label
from shapeenv.ops.dispatch import env_of
from shapeenv.ops.registry import registered
from shapeenv.tensor import layout
from shapeenv.tensor.dtypes import DType
from shapeenv.tensor.layout import contiguous_strides
from shapeenv.tensor.methods import TensorMethods

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


class FakeTensor(TensorMethods):
    """A tensor's metadata: ``shape``, ``stride()``, ``dtype``, storage identity and offset.

    Create inputs with ``ShapeEnv.fake_tensor``; ops create the rest.
    """

    __slots__ = ("shape", "_stride", "dtype", "storage", "_offset", "env", "name")
    _is_fake_tensor = True

    def __init__(self, env, shape: tuple, dtype: DType, *, stride: tuple | None = None,
                 storage: Storage | None = None, storage_offset: Any = 0, name: str | None = None):
        self.env = env
        self.shape = tuple(shape)
        self.dtype = dtype
        self._stride = tuple(stride) if stride is not None else contiguous_strides(self.shape)
        self.storage = storage if storage is not None else Storage()
        self._offset = storage_offset
        self.name = name

    # -- metadata --------------------------------------------------------------------------------
    def size(self, dim: int | None = None):
        """The shape, or the size of one dimension (negative ``dim`` counts from the end)."""
        return self.shape if dim is None else self.shape[self._dim(dim)]

    def stride(self, dim: int | None = None):
        """The strides, or the stride of one dimension."""
        return self._stride if dim is None else self._stride[self._dim(dim)]

    def storage_offset(self):
        """The offset of element ``[0, ..., 0]`` in the storage, in elements (a SymInt for a dynamic input)."""
        return self._offset

    def is_contiguous(self, memory_format="contiguous_format") -> bool:
        """Whether ``self`` is contiguous in ``memory_format`` (row-major by default; also ``channels_last``).

        Decided as torch decides it for the traced sizes and strides: a question that is not
        provable is answered by the example and recorded as a guard, so the trace's answer holds
        for every input its guard set accepts.
        """
        return layout.is_contiguous(self.shape, self._stride, layout.memory_format_name(memory_format))

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
            name = user_label(self, "the tensor")
            raise DimOutOfRangeError(f"dimension {dim} is out of range for {name}, a tensor with {n} dimensions "
                                     f"(shape {list(self.shape)})",
                                     fix=f"use a dim in [{-n}, {n - 1}], e.g. {name}.size(-1) for the last" if n else
                                     f"{name} is 0-d: it has no sizes")
        return dim % n if n else 0

    def __repr__(self) -> str:
        dims = ", ".join(str(d) for d in self.shape)
        return f"FakeTensor({self.dtype}[{dims}])"

    # -- torch interop ----------------------------------------------------------------------------
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        """torch functions do not run on these tensors: a typed error naming the ``shapeenv.ops`` equivalent."""
        name = getattr(func, "__name__", str(func))
        ours = f"shapeenv.ops.{name}" if name in registered() else None
        hint = f"call {ours}(...) (same arguments)" if ours else f"shapeenv.ops has no {name}; see dir(shapeenv.ops)"
        raise TorchInteropError(
            f"torch.{name} was called on a shapeenv FakeTensor, which is not a torch.Tensor",
            fix=f"{hint}: FakeTensors go through shapeenv.ops and their own methods (x.view, x.sum, ...), "
                "not through torch functions",
        )

    def __bool__(self):
        name = user_label(self, "")
        code = name or "t"
        raise ShapeError(
            f"bool() of a fake tensor {name + ' ' if name else ''}({self!r}) depends on its data, which a FakeTensor "
            "does not have",
            fix=f"branch on sizes instead (if {code}.shape[0] > 2: ...), or take {code}.item() of an integer tensor "
                "and check(...) it",
        )

    def _new_kwargs(self, size) -> dict:
        # the environment is passed only when no size carries it, so traced graphs do not print it
        return {"dtype": self.dtype} if env_of(size) is not None else {"dtype": self.dtype, "env": self.env}

    def __hash__(self) -> int:
        return id(self)
