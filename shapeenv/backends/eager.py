"""``EagerTensor``: a numpy array with torch's tensor methods, for running compiled functions eagerly.

Under ``force_eager``, ``eager_on_recompile``, past the recompile limit and on the first call of
``eager_then_compile``, a compiled function runs the user's own code on the real inputs. That
code was written for the traced semantics (``x.transpose(0, 1)``, ``x.is_contiguous()``,
``x.view(-1)``, ``x.stride(1)``), which numpy arrays do not have. So each numpy input is
wrapped in an :class:`EagerTensor`: its methods are those of
:class:`~shapeenv.tensor.methods.TensorMethods`, which dispatch to the numpy kernels of
:mod:`shapeenv.ops.kernels.numpy` (with torch's layouts: views where torch views,
torch's output strides otherwise), and its metadata (``shape``, ``stride()``,
``storage_offset()``, ``is_contiguous()``) reads the array as torch would. Results are
unwrapped back to numpy arrays.

>>> import numpy as np
>>> x = EagerTensor(np.arange(6, dtype=np.float32).reshape(2, 3))
>>> y = x.transpose(0, 1)
>>> y.shape, y.stride(), y.is_contiguous(), y.contiguous().is_contiguous()
((3, 2), (1, 3), False, True)
>>> unwrap(y * 2).tolist()
[[0.0, 6.0], [2.0, 8.0], [4.0, 10.0]]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from guards.source import storage_offset_of

from shapeenv.hops.pytree import tree_map
from shapeenv.ops.dispatch import activated
from shapeenv.tensor import layout
from shapeenv.tensor.dtypes import DType, as_dtype
from shapeenv.tensor.methods import TensorMethods
from shapeenv.ops.kernels.numpy import element_strides, np_dtype

__all__ = ["EagerTensor", "wrap", "unwrap", "wrap_call"]


class EagerTensor(TensorMethods):
    """A real numpy array behind torch-like tensor methods (see the module docstring).

    Attributes:
        array: the wrapped ``numpy.ndarray``.
    """

    __slots__ = ("array",)
    _is_eager_tensor = True

    def __init__(self, array: np.ndarray):
        self.array = array

    # -- metadata, read from the array as torch reads it -------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        """The sizes."""
        return tuple(self.array.shape)

    @property
    def dtype(self) -> DType:
        """The dtype, as shapeenv names it (``float32``)."""
        return as_dtype(self.array.dtype.name)

    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return self.array.ndim

    def dim(self) -> int:
        """The number of dimensions."""
        return self.array.ndim

    def size(self, dim: int | None = None):
        """The shape, or the size of one dimension."""
        return self.shape if dim is None else self.shape[dim]

    def stride(self, dim: int | None = None):
        """The strides in elements, or the stride of one dimension."""
        strides = element_strides(self.array)
        return strides if dim is None else strides[dim]

    def storage_offset(self) -> int:
        """The offset of the first element in the memory the array views, in elements."""
        return storage_offset_of(self.array)

    def numel(self) -> int:
        """The number of elements."""
        return int(self.array.size)

    def is_contiguous(self, memory_format="contiguous_format") -> bool:
        """torch's contiguity of the array's strides (``channels_last`` too)."""
        return layout.is_contiguous(self.shape, self.stride(), layout.memory_format_name(memory_format))

    def is_view_of(self, other: "EagerTensor") -> bool:
        """Whether both share memory."""
        return np.shares_memory(self.array, getattr(other, "array", other))

    # -- values ---------------------------------------------------------------------------------
    def item(self):
        """The single element as a Python number."""
        return self.array.item()

    def tolist(self):
        """The elements as nested lists."""
        return self.array.tolist()

    def numpy(self) -> np.ndarray:
        """The wrapped array."""
        return self.array

    def __array__(self, dtype=None, copy=None):
        return self.array if dtype is None else self.array.astype(dtype)

    def __bool__(self) -> bool:
        return bool(self.array)

    def __float__(self) -> float:
        return float(self.array)

    def __int__(self) -> int:
        return int(self.array)

    def __index__(self) -> int:
        return int(self.array)

    def __repr__(self) -> str:
        return f"EagerTensor({self.array!r})"

    def __hash__(self) -> int:
        return id(self)

    def __getattr__(self, name: str) -> Any:
        # numpy-style code (x.astype, x.sum(axis=0)) keeps working on the array itself
        if name.startswith("__"):
            raise AttributeError(name)  # dunder probes (copy, pickle, numpy) expect the plain AttributeError
        return getattr(self.array, name)

    # -- new tensors ------------------------------------------------------------------------------
    def _new(self, size: tuple, fill: Any) -> "EagerTensor":
        shape = tuple(int(s) for s in (size[0] if len(size) == 1 and isinstance(size[0], (tuple, list)) else size))
        return EagerTensor(np.full(shape, fill, dtype=np_dtype(self.dtype)))

    def new_zeros(self, *size):
        """Zeros of ``size`` with this tensor's dtype."""
        return self._new(size, 0)

    def new_ones(self, *size):
        """Ones of ``size`` with this tensor's dtype."""
        return self._new(size, 1)

    def new_empty(self, *size):
        """A tensor of ``size`` with this tensor's dtype (zero-filled)."""
        return self._new(size, 0)

    def new_full(self, size, fill_value):
        """A tensor of ``size`` filled with ``fill_value``."""
        return self._new((size,), fill_value)

    @staticmethod
    def stack(items: list, dim: int = 0) -> "EagerTensor":
        """``torch.stack`` of eager tensors (used by the eager loops of scan and map)."""
        return EagerTensor(np.stack([unwrap(i) for i in items], axis=dim))


def wrap(value: Any) -> Any:
    """``value`` with every numpy array (nested in lists, tuples, dicts) wrapped in an :class:`EagerTensor`."""
    return tree_map(lambda v: EagerTensor(v) if isinstance(v, np.ndarray) else v, value)


def unwrap(value: Any) -> Any:
    """``value`` with every :class:`EagerTensor` (nested) replaced by its array."""
    return tree_map(lambda v: v.array if isinstance(v, EagerTensor) else v, value)


def wrap_call(fn: Any, args: tuple, kwargs: dict) -> Any:
    """Run ``fn`` on wrapped inputs and return its results unwrapped (what the eager stances do).

    >>> wrap_call(lambda x: x.t().contiguous().stride(), (np.zeros((2, 3)),), {})
    (2, 1)
    >>> from shapeenv import ops
    >>> wrap_call(lambda x: x + ops.ones(2, 3), (np.zeros((2, 3)),), {}).tolist()
    [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]
    """
    with activated(EagerTensor):  # creation ops with plain-int sizes make real arrays too (shapeenv.ops.dispatch)
        return unwrap(fn(*wrap(args), **wrap(kwargs)))
