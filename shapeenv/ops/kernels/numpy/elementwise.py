"""numpy kernels of the ops of :mod:`shapeenv.ops.rules.elementwise` (torch's semantics; see :mod:`shapeenv.ops.kernels.numpy`)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from shapeenv.tensor import layout
from shapeenv.ops.kernels.numpy.common import Kernel, _arr, copy_in_format, element_strides, in_layout, kernel, np_dtype

__all__: list[str] = []


def _pointwise(result: Any, *operands: Any) -> np.ndarray:
    result = _arr(result)
    arrays = [x for x in operands if isinstance(x, np.ndarray)]
    if result.ndim < 2 or not arrays:
        return result
    return in_layout(result, layout.elementwise_strides(result.shape, [(x.shape, element_strides(x)) for x in arrays]))


# -- elementwise -------------------------------------------------------------------------------------
def _binary(fn: Callable) -> Kernel:
    def run(a: Any, b: Any) -> np.ndarray:
        return _pointwise(fn(a, b), a, b)

    return run


for _name, _fn in {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide,
                   "eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
                   "gt": np.greater, "ge": np.greater_equal, "pow": np.power,
                   "maximum": np.maximum, "minimum": np.minimum}.items():
    kernel(_name)(_binary(_fn))


def _unary(fn: Callable) -> Kernel:
    def run(a: np.ndarray) -> np.ndarray:
        return _pointwise(fn(a), a)

    return run


def _sigmoid(a: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-a.astype(np.result_type(a.dtype, np.float32))))


for _name, _fn in {"neg": np.negative, "abs": np.abs, "exp": np.exp, "log": np.log, "sqrt": np.sqrt,
                   "cos": np.cos, "sin": np.sin, "tan": np.tan, "tanh": np.tanh, "sigmoid": _sigmoid,
                   "relu": lambda a: np.maximum(a, a.dtype.type(0))}.items():
    kernel(_name)(_unary(_fn))


@kernel("clone")
def clone(a: np.ndarray, memory_format: Any = None) -> np.ndarray:
    """A copy with its own memory in ``memory_format`` (torch's ``preserve_format`` by default)."""
    return copy_in_format(np.asarray(a), memory_format)


@kernel("where")
def where(cond: np.ndarray, a: Any, b: Any) -> np.ndarray:
    """``torch.where(cond, a, b)``."""
    return _pointwise(np.where(cond, a, b), cond, a, b)


@kernel("to")
def to(a: np.ndarray, dtype: Any) -> np.ndarray:
    """``a`` itself when the dtype is unchanged, else a converted copy (``dtype`` may be a tensor to copy it from)."""
    target = np_dtype(dtype)
    return a if a.dtype == target else copy_in_format(a, None, target)


def _inplace(fn: Callable) -> Kernel:
    def run(a: np.ndarray, b: Any) -> np.ndarray:
        fn(a, b, out=a)  # same_kind casting: float into an int tensor raises, as in torch
        return a

    return run


for _name, _fn in {"add_": np.add, "sub_": np.subtract, "mul_": np.multiply, "div_": np.true_divide}.items():
    kernel(_name)(_inplace(_fn))


@kernel("copy_")
def copy_(a: np.ndarray, src: np.ndarray) -> np.ndarray:
    """``a.copy_(src)``: broadcast and convert ``src`` into ``a``."""
    np.copyto(a, src, casting="unsafe")
    return a


@kernel("fill_")
def fill_(a: np.ndarray, value: Any) -> np.ndarray:
    """``a.fill_(value)``."""
    a[...] = value
    return a


@kernel("zero_")
def zero_(a: np.ndarray) -> np.ndarray:
    """``a.zero_()``."""
    a[...] = 0
    return a


@kernel("relu_")
def relu_(a: np.ndarray) -> np.ndarray:
    """``a.relu_()``."""
    np.maximum(a, a.dtype.type(0), out=a)
    return a
