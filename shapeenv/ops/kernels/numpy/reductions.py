"""numpy kernels of the ops of :mod:`shapeenv.ops.rules.reductions` (torch's semantics; see :mod:`shapeenv.ops.kernels.numpy`).

A 0-d tensor accepts dim 0 or -1 and reduces nothing, as in torch; ``softmax``, ``log_softmax`` and
``logsumexp`` subtract the maximum first (``logsumexp`` of all -inf is -inf).

>>> import numpy as np
>>> amax(np.arange(6).reshape(2, 3), 1).tolist(), all_(np.array([[1, 0], [1, 1]]), 1).tolist()
([2, 5], [False, True])
"""

from __future__ import annotations

from typing import Any
import warnings

import numpy as np

from shapeenv.ops.kernels.numpy.common import KERNELS, axis, kernel, np_dtype

__all__: list[str] = []


def _dims(t: np.ndarray, dim: Any) -> tuple[int, ...]:
    """The reduced axes; a 0-d tensor accepts dim 0 or -1 and reduces nothing, as in torch."""
    if dim is None or (isinstance(dim, (list, tuple)) and not dim) or t.ndim == 0:
        if t.ndim == 0 and dim is not None:
            for d in [dim] if isinstance(dim, int) else dim:
                axis(d, 0)
        return tuple(range(t.ndim))
    return tuple(axis(d, t.ndim) for d in ([dim] if isinstance(dim, int) else dim))


# -- reductions --------------------------------------------------------------------------------------
@kernel("sum")
def sum_(input: np.ndarray, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> np.ndarray:
    """``input.sum(dim, keepdim, dtype)``."""
    return np.asarray(np.sum(input, axis=_dims(input, dim), keepdims=keepdim, dtype=None if dtype is None else np_dtype(dtype)))


@kernel("mean")
def mean(input: np.ndarray, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> np.ndarray:
    """``input.mean(dim, keepdim, dtype)`` (nan over an empty dim, as in torch, without numpy's warning)."""
    x = input if dtype is None else input.astype(np_dtype(dtype))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.asarray(np.mean(x, axis=_dims(input, dim), keepdims=keepdim))


def _max_min(t: np.ndarray, dim: Any, keepdim: bool, values, args, elementwise) -> Any:
    if isinstance(dim, np.ndarray):
        return elementwise(t, dim)
    if dim is None:
        return np.asarray(values(t))
    if t.ndim == 0:
        return t.copy(), np.zeros((), np.int64)
    d = axis(dim, t.ndim)
    return np.asarray(values(t, axis=d, keepdims=keepdim)), np.asarray(args(t, axis=d, keepdims=keepdim))


@kernel("max")
def max_(t: np.ndarray, dim: Any = None, keepdim: bool = False) -> Any:
    """``torch.max``: of all elements, ``(values, indices)`` along ``dim``, or elementwise with a tensor."""
    return _max_min(t, dim, keepdim, np.max, np.argmax, np.maximum)


@kernel("min")
def min_(t: np.ndarray, dim: Any = None, keepdim: bool = False) -> Any:
    """``torch.min``."""
    return _max_min(t, dim, keepdim, np.min, np.argmin, np.minimum)


@kernel("amax")
def amax(input: np.ndarray, dim: Any = (), keepdim: bool = False) -> np.ndarray:
    """``torch.amax``."""
    return np.asarray(np.max(input, axis=_dims(input, dim), keepdims=keepdim))


@kernel("amin")
def amin(input: np.ndarray, dim: Any = (), keepdim: bool = False) -> np.ndarray:
    """``torch.amin``."""
    return np.asarray(np.min(input, axis=_dims(input, dim), keepdims=keepdim))


def _arg(fn, t: np.ndarray, dim: Any, keepdim: bool) -> np.ndarray:
    if dim is None:
        flat = np.asarray(fn(t.reshape(-1)), np.int64)
        return flat.reshape((1,) * t.ndim) if keepdim else flat
    if t.ndim == 0:
        return np.zeros((), np.int64)
    return np.asarray(fn(t, axis=axis(dim, t.ndim), keepdims=keepdim), np.int64)


@kernel("argmax")
def argmax(input: np.ndarray, dim: Any = None, keepdim: bool = False) -> np.ndarray:
    """``torch.argmax`` (the first maximum)."""
    return _arg(np.argmax, input, dim, keepdim)


@kernel("argmin")
def argmin(input: np.ndarray, dim: Any = None, keepdim: bool = False) -> np.ndarray:
    """``torch.argmin``."""
    return _arg(np.argmin, input, dim, keepdim)


def _shifted(t: np.ndarray, dim: Any, dtype: Any) -> tuple[np.ndarray, int]:
    x = t if dtype is None else t.astype(np_dtype(dtype))
    d = axis(dim, x.ndim)
    if x.ndim == 0:
        return x - x, d
    return x - np.max(x, axis=d, keepdims=True), d


@kernel("softmax")
def softmax(t: np.ndarray, dim: Any = None, dtype: Any = None) -> np.ndarray:
    """``torch.softmax`` (shifted by the maximum for stability)."""
    with np.errstate(all="ignore"):
        z, d = _shifted(t, dim, dtype)
        e = np.exp(z)
        return e / (np.sum(e, axis=d, keepdims=True) if t.ndim else e)


@kernel("log_softmax")
def log_softmax(t: np.ndarray, dim: Any = None, dtype: Any = None) -> np.ndarray:
    """``torch.log_softmax``."""
    with np.errstate(all="ignore"):
        z, d = _shifted(t, dim, dtype)
        return z - (np.log(np.sum(np.exp(z), axis=d, keepdims=True)) if t.ndim else 0)


@kernel("logsumexp")
def logsumexp(input: np.ndarray, dim: Any, keepdim: bool = False) -> np.ndarray:
    """``torch.logsumexp`` (stable: the max is subtracted first; all -inf gives -inf)."""
    a = np.asarray(input) if np.issubdtype(np.asarray(input).dtype, np.floating) else np.asarray(input, np.float32)
    axes = _dims(a, dim)
    m = np.max(a, axis=axes, keepdims=True) if a.size else np.zeros([1] * a.ndim, a.dtype)
    m = np.where(np.isfinite(m), m, 0)
    out = np.log(np.sum(np.exp(a - m), axis=axes, keepdims=True)) + m
    return out if keepdim else np.squeeze(out, axis=axes)


@kernel("all")
def all_(input: np.ndarray, dim: Any = None, keepdim: bool = False) -> np.ndarray:
    """``torch.all``."""
    return np.all(input, axis=_dims(input, dim), keepdims=bool(keepdim))


@kernel("any")
def any_(input: np.ndarray, dim: Any = None, keepdim: bool = False) -> np.ndarray:
    """``torch.any``."""
    return np.any(input, axis=_dims(input, dim), keepdims=bool(keepdim))
