"""numpy kernels of the ops of :mod:`shapeenv.ops.rules.scans` (torch's semantics; see :mod:`shapeenv.ops.kernels.numpy`).

``sort``/``topk`` are stable (ties keep their order, descending too); ``diff`` of bools is
``logical_xor``; the interpreter casts each result to the dtype the program predicts.

>>> import numpy as np
>>> sort(np.array([3, 1, 3, 2]), -1, True)[1].tolist(), diff(np.array([1, 4, 9, 16]), 2).tolist()
([0, 2, 3, 1], [2, 2])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from shapeenv.ops.kernels.numpy.common import KERNELS, axis, kernel, np_dtype

__all__: list[str] = []


# -- scans, sorting, statistics --------------------------------------------------------------------
def _acc_dtype(input: np.ndarray, dtype: Any) -> Any:
    if dtype is not None:
        return np_dtype(dtype)
    return input.dtype if input.dtype.kind == "f" else np.int64


@kernel("cumsum")
def cumsum(input: np.ndarray, dim: Any, dtype: Any = None) -> np.ndarray:
    """``torch.cumsum``."""
    if input.ndim == 0:
        return input.astype(_acc_dtype(input, dtype))
    return np.cumsum(input, axis=axis(dim, input.ndim), dtype=_acc_dtype(input, dtype))


@kernel("cumprod")
def cumprod(input: np.ndarray, dim: Any, dtype: Any = None) -> np.ndarray:
    """``torch.cumprod``."""
    if input.ndim == 0:
        return input.astype(_acc_dtype(input, dtype))
    return np.cumprod(input, axis=axis(dim, input.ndim), dtype=_acc_dtype(input, dtype))


def _order(x: np.ndarray, d: int, descending: bool) -> np.ndarray:
    """Stable argsort along ``d``; descending keeps equal elements in their original order too."""
    if not descending:
        return np.argsort(x, axis=d, kind="stable")
    n = x.shape[d]
    rev = np.argsort(np.flip(x, d), axis=d, kind="stable")
    return n - 1 - np.flip(rev, d)


@kernel("sort")
def sort(input: np.ndarray, dim: Any = -1, descending: bool = False, stable: bool = False) -> tuple:
    """``torch.sort``: ``(values, indices)``."""
    if input.ndim == 0:
        return input.copy(), np.zeros((), np.int64)
    d = axis(dim, input.ndim)
    idx = _order(input, d, descending)
    return np.take_along_axis(input, idx, d), idx.astype(np.int64)


@kernel("argsort")
def argsort(input: np.ndarray, dim: Any = -1, descending: bool = False, stable: bool = False) -> np.ndarray:
    """``torch.argsort``."""
    return sort(input, dim, descending, stable)[1]


@kernel("topk")
def topk(input: np.ndarray, k: Any, dim: Any = None, largest: bool = True, sorted: bool = True) -> tuple:  # noqa: A002
    """``torch.topk``: ``(values, indices)`` of the ``k`` largest (smallest), in order."""
    if input.ndim == 0:
        return input.copy(), np.zeros((), np.int64)
    d = axis(-1 if dim is None else dim, input.ndim)
    idx = np.take(_order(input, d, bool(largest)), np.arange(int(k)), axis=d)
    return np.take_along_axis(input, idx, d), idx.astype(np.int64)


@kernel("diff")
def diff(input: np.ndarray, n: int = 1, dim: int = -1, prepend: Any = None, append: Any = None) -> np.ndarray:
    """``torch.diff``."""
    d = axis(dim, input.ndim)
    parts = [t for t in (prepend, input, append) if t is not None]
    a = np.concatenate([np.asarray(t) for t in parts], d) if len(parts) > 1 else np.asarray(input)
    for _ in range(min(n, a.shape[d])):
        lo, hi = np.take(a, range(a.shape[d] - 1), d), np.take(a, range(1, a.shape[d]), d)
        a = np.logical_xor(hi, lo) if a.dtype == np.bool_ else hi - lo
    return a.copy() if n == 0 else a
