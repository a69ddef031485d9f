"""numpy kernels of the ops of :mod:`shapeenv.ops.rules.pointwise_math` (torch's semantics; see :mod:`shapeenv.ops.kernels.numpy`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from shapeenv.ops.kernels.numpy.common import KERNELS, _axes, as_float, axis, erf, kernel

__all__: list[str] = []


# -- more pointwise math, norms ------------------------------------------------------------------------
def _math(name: str, fn: Any, *, on_float: bool) -> None:
    def run(input: np.ndarray) -> np.ndarray:
        return fn(as_float(input) if on_float else input)

    run.__doc__ = f"``torch.{name}``" + (" (integers and bools as float32)." if on_float else ".")
    kernel(name)(run)


# the float math: integers and bools are computed as float32, as the shape rule predicts
for _name, _fn in {"rsqrt": lambda x: 1.0 / np.sqrt(x), "erf": lambda x: erf(x).astype(x.dtype),
                   "erfc": lambda x: (1.0 - erf(x)).astype(x.dtype), "log1p": np.log1p, "expm1": np.expm1,
                   "log2": np.log2, "log10": np.log10, "exp2": np.exp2, "reciprocal": lambda x: 1.0 / x,
                   "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh,
                   "asinh": np.arcsinh, "atanh": np.arctanh}.items():
    _math(_name, _fn, on_float=True)
for _name, _fn in {"floor": np.floor, "ceil": np.ceil, "trunc": np.trunc, "frac": lambda x: x - np.trunc(x),
                   "square": lambda x: np.square(x.astype(np.int64) if x.dtype == np.bool_ else x),
                   "sign": np.sign, "sgn": np.sign}.items():
    _math(_name, _fn, on_float=False)


@kernel("round")
def round_(input: np.ndarray, decimals: int = 0) -> np.ndarray:
    """``torch.round`` (half to even, as torch)."""
    return np.round(input, decimals)


@kernel("floor_divide")
def floor_divide(input: Any, other: Any) -> np.ndarray:
    """``torch.floor_divide`` (``//``)."""
    return np.floor_divide(input, other)


@kernel("remainder")
def remainder(input: Any, other: Any) -> np.ndarray:
    """``torch.remainder`` (``%``, Python's sign)."""
    return np.remainder(input, other)


@kernel("fmod")
def fmod(input: Any, other: Any) -> np.ndarray:
    """``torch.fmod`` (C's sign)."""
    return np.fmod(input, other)


@kernel("atan2")
def atan2(input: np.ndarray, other: np.ndarray) -> np.ndarray:
    """``torch.atan2``."""
    return np.arctan2(as_float(input), as_float(other))


def _vector_norm(x: np.ndarray, ord: Any, dim: Any, keepdim: bool) -> np.ndarray:  # noqa: A002
    axes = _axes(x, dim)
    a = np.abs(x.astype(np.float64))
    if ord == float("inf"):
        return a.max(axis=axes, keepdims=bool(keepdim))
    if ord == 0:
        return (a != 0).sum(axis=axes, keepdims=bool(keepdim)).astype(np.float64)
    return (a ** ord).sum(axis=axes, keepdims=bool(keepdim)) ** (1.0 / ord)


@kernel("linalg_vector_norm")
def linalg_vector_norm(x: np.ndarray, ord: Any = 2, dim: Any = None, keepdim: bool = False,  # noqa: A002
                       dtype: Any = None) -> np.ndarray:
    """``torch.linalg.vector_norm``."""
    return _vector_norm(x, ord, dim, keepdim)


@kernel("norm")
def norm(input: np.ndarray, p: Any = "fro", dim: Any = None, keepdim: bool = False, dtype: Any = None) -> np.ndarray:
    """``torch.norm`` (``'fro'`` is the 2-norm of the flattened dims)."""
    return _vector_norm(input, 2 if p in ("fro", None) else p, dim, keepdim)


@kernel("normalize")
def normalize(input: np.ndarray, p: Any = 2.0, dim: Any = 1, eps: float = 1e-12) -> np.ndarray:
    """``F.normalize``."""
    return (input / np.maximum(_vector_norm(input, p, dim, True), eps)).astype(input.dtype)


kernel("isnan")(lambda input: np.isnan(input) if np.issubdtype(input.dtype, np.floating)
                else np.zeros(input.shape, np.bool_))


kernel("isinf")(lambda input: np.isinf(input) if np.issubdtype(input.dtype, np.floating)
                else np.zeros(input.shape, np.bool_))


kernel("isfinite")(lambda input: np.isfinite(input) if np.issubdtype(input.dtype, np.floating)
                   else np.ones(input.shape, np.bool_))


for _name in ("isnan", "isinf", "isfinite"):
    KERNELS[_name].__doc__ = f"``torch.{_name}``."


@kernel("lerp")
def lerp(input: np.ndarray, end: np.ndarray, weight: Any) -> np.ndarray:
    """``torch.lerp``: ``input + weight * (end - input)``."""
    return input + weight * (end - input)


@kernel("lerp_")
def lerp_(input: np.ndarray, end: np.ndarray, weight: Any) -> np.ndarray:
    """``Tensor.lerp_``."""
    input[...] = input + weight * (end - input)
    return input
