"""What the numpy kernels share: the kernel table (:data:`KERNELS`, :func:`kernel`), dtypes, dims and layouts.

One kernel per op name (the names of :func:`shapeenv.ops.registry.registered`), with the same
parameters as the op's shape rule, registered with :func:`kernel` in the module of
:mod:`shapeenv.ops.kernels.numpy` named like the rule's family.

>>> np_dtype("float32"), axis(-1, 3)
(dtype('float32'), 2)
"""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import numpy as np

from guards.source import contiguous_strides_of
from shapeenv.errors import DimOutOfRangeError, IndexOutOfBoundsError, ShapeEnvTypeError, ShapeEnvValueError
from shapeenv.tensor import layout
from shapeenv.tensor.dtypes import as_dtype, DType
from shapeenv.ops.registry import eager_kernel

__all__ = ["KERNELS", "RANDOM_OPS", "kernel", "np_dtype", "axis", "as_sizes", "element_strides", "in_layout",
           "as_float", "erf"]


Kernel = Callable[..., Any]


KERNELS: dict[str, Kernel] = {}


RANDOM_OPS = frozenset({"rand", "randn", "rand_like", "randn_like", "dropout", "dropout1d", "dropout2d", "dropout3d",
                        "alpha_dropout", "feature_alpha_dropout"})  # these take the program's generator as _rng


def kernel(*names: str) -> Callable[[Kernel], Kernel]:
    """Register ``fn`` as the numpy implementation of the ops ``names``."""

    def register(fn: Kernel) -> Kernel:
        for name in names:
            if name in KERNELS:
                raise ShapeEnvValueError(f"op {name!r} already has a numpy kernel", fix="register the kernel under another name")
            KERNELS[name] = fn
            if name not in RANDOM_OPS:  # those take the program's generator
                eager_kernel(name)(fn)
        return fn

    return register


_BY_NAME = {name: np.dtype(t) for name, t in {
    "bool": np.bool_, "uint8": np.uint8, "int8": np.int8, "int16": np.int16, "int32": np.int32,
    "int64": np.int64, "float16": np.float16, "float32": np.float32, "float64": np.float64,
}.items()}


def np_dtype(dtype: Any) -> np.dtype:
    """The numpy dtype of a shapeenv dtype (a DType, a name, or an array whose dtype to copy).

    Raises:
        TypeError: ``bfloat16``, which numpy does not have.

    >>> np_dtype("float"), np_dtype(np.zeros(2, np.int32))
    (dtype('float32'), dtype('int32'))
    """
    if isinstance(dtype, DType):
        known = _BY_NAME.get(dtype.name)
        if known is not None:
            return known
    elif isinstance(dtype, np.ndarray):
        return dtype.dtype
    elif isinstance(dtype, np.dtype):
        return dtype
    d: DType = as_dtype(dtype)
    if d.name not in _BY_NAME:
        raise ShapeEnvTypeError(f"numpy has no {d.name}; convert to float32 before running the program on numpy",
                                fix="x.to(float32) in the traced function, or pass float32 inputs")
    return _BY_NAME[d.name]


def axis(dim: int, ndim: int) -> int:
    """``dim`` canonicalised for a tensor with ``ndim`` dims (a 0-d tensor accepts 0 and -1)."""
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise DimOutOfRangeError(f"dimension {dim} is out of range for a {ndim}-d tensor (expected to be in [{-n}, {n - 1}])")
    return dim % n


def as_sizes(args: Sequence[Any]) -> tuple:
    """Sizes given as ``f(2, 3)`` or ``f((2, 3))``.

    >>> as_sizes((2, 3)), as_sizes(([2, 3],))
    ((2, 3), (2, 3))
    """
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = tuple(args[0])
    return tuple(int(a) for a in args)


def as_float(x: np.ndarray) -> np.ndarray:
    """``x`` itself if it is floating point, else ``x`` as float32 (torch's float math on integers and bools).

    >>> as_float(np.array([1, 2])).dtype, as_float(np.zeros(2, np.float16)).dtype
    (dtype('float32'), dtype('float16'))
    """
    return x if x.dtype.kind == "f" else x.astype(np.float32)


def erf(x: np.ndarray) -> np.ndarray:
    """The error function, elementwise, in float64 (numpy has none).

    >>> erf(np.array([0.0, 10.0])).tolist()
    [0.0, 1.0]
    """
    return np.vectorize(math.erf, otypes=[np.float64])(x)


def _arr(x: Any) -> np.ndarray:
    return np.asarray(x)


# -- layouts (torch's, see shapeenv.tensor.layout: numpy picks its own for new arrays) -----------------
def element_strides(a: np.ndarray) -> tuple[int, ...]:
    """numpy's byte strides in elements (torch's ``stride()``; an empty array, whose numpy strides are 0, is
    laid out as torch lays it out)."""
    if a.size == 0:
        return contiguous_strides_of(a.shape)
    return tuple(s // a.itemsize for s in a.strides)


def empty_strided(shape: Sequence[int], strides: Sequence[int], dtype: Any) -> np.ndarray:
    """A new array with the given shape and element strides (``torch.empty_strided``)."""
    dtype = np.dtype(dtype)
    extent = 1 + sum((n - 1) * s for n, s in zip(shape, strides)) if all(shape) else 0
    buffer = np.empty(max(extent, 0), dtype)
    return np.lib.stride_tricks.as_strided(buffer, shape=tuple(shape), strides=[s * dtype.itemsize for s in strides])


def in_layout(result: np.ndarray, strides: Sequence[int]) -> np.ndarray:
    """``result`` itself if it has ``strides`` (in elements), else a copy laid out so."""
    if result.ndim < 2 or element_strides(result) == tuple(strides):
        return result
    out = empty_strided(result.shape, strides, result.dtype)
    out[...] = result
    return out


def copy_in_format(a: np.ndarray, memory_format: Any = None, dtype: Any = None) -> np.ndarray:
    """A copy of ``a`` (converted to ``dtype``) laid out in ``memory_format`` (None: torch's ``preserve_format``)."""
    fmt = layout.memory_format_name(memory_format)
    shape, strides = a.shape, element_strides(a)
    target = layout.like_strides(shape, strides) if fmt == "preserve_format" else layout.format_strides(shape, fmt)
    out = empty_strided(shape, target, a.dtype if dtype is None else dtype)
    out[...] = a
    return out


def _axes(x: np.ndarray, dim: Any) -> Any:
    if dim is None or (isinstance(dim, (list, tuple)) and not dim):
        return None
    return tuple(axis(d, x.ndim) for d in ([dim] if isinstance(dim, int) else dim))
