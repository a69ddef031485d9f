"""numpy implementations of ``outer``, ``logsumexp``, ``roll``, ``diff``, ``isnan``/``isinf``/``isfinite``,
``all``/``any`` and ``lerp``/``lerp_`` (shape rules in :mod:`shapeenv.ops.rules.tensor_math`).

Same contract as :mod:`shapeenv.ops.kernels.numpy`: the shape rule's parameters, torch's
semantics (``diff`` of bools is ``logical_xor``, ``roll`` with ``dims=None`` rolls the flattened
tensor); the interpreter casts each result to the dtype the program predicts.

>>> import numpy as np
>>> KERNELS["diff"](np.array([1, 4, 9, 16]), 2).tolist(), KERNELS["roll"](np.arange(4).reshape(2, 2), 1).tolist()
([2, 2], [[3, 0], [1, 2]])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from shapeenv.ops.kernels.numpy.common import KERNELS, axis, kernel

__all__: list[str] = []


def _axes(a: np.ndarray, dim: Any) -> tuple:
    if dim is None or (isinstance(dim, (list, tuple)) and not dim):
        return tuple(range(a.ndim))
    items = [dim] if isinstance(dim, int) else list(dim)
    return tuple(axis(d, a.ndim) for d in items) if a.ndim else ()


@kernel("outer")
def outer(input: np.ndarray, vec2: np.ndarray) -> np.ndarray:
    """``torch.outer``."""
    return np.multiply.outer(input, vec2)


@kernel("logsumexp")
def logsumexp(input: np.ndarray, dim: Any, keepdim: bool = False) -> np.ndarray:
    """``torch.logsumexp`` (stable: the max is subtracted first; all -inf gives -inf)."""
    a = np.asarray(input) if np.issubdtype(np.asarray(input).dtype, np.floating) else np.asarray(input, np.float32)
    axes = _axes(a, dim)
    m = np.max(a, axis=axes, keepdims=True) if a.size else np.zeros([1] * a.ndim, a.dtype)
    m = np.where(np.isfinite(m), m, 0)
    out = np.log(np.sum(np.exp(a - m), axis=axes, keepdims=True)) + m
    return out if keepdim else np.squeeze(out, axis=axes)


@kernel("roll")
def roll(input: np.ndarray, shifts: Any, dims: Any = None) -> np.ndarray:
    """``torch.roll``."""
    if dims is None:
        shift = shifts if isinstance(shifts, int) else shifts[0]
        return np.roll(input.reshape(-1), shift).reshape(input.shape)
    shifts = [shifts] if isinstance(shifts, int) else list(shifts)
    dims = [dims] if isinstance(dims, int) else list(dims)
    return np.roll(input, shifts, [axis(d, input.ndim) for d in dims])


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


kernel("isnan")(lambda input: np.isnan(input) if np.issubdtype(input.dtype, np.floating)
                else np.zeros(input.shape, np.bool_))


kernel("isinf")(lambda input: np.isinf(input) if np.issubdtype(input.dtype, np.floating)
                else np.zeros(input.shape, np.bool_))


kernel("isfinite")(lambda input: np.isfinite(input) if np.issubdtype(input.dtype, np.floating)
                   else np.ones(input.shape, np.bool_))


for _name in ("isnan", "isinf", "isfinite"):
    KERNELS[_name].__doc__ = f"``torch.{_name}``."


@kernel("all")
def all_(input: np.ndarray, dim: Any = None, keepdim: bool = False) -> np.ndarray:
    """``torch.all``."""
    return np.all(input, axis=_axes(input, dim), keepdims=bool(keepdim))


@kernel("any")
def any_(input: np.ndarray, dim: Any = None, keepdim: bool = False) -> np.ndarray:
    """``torch.any``."""
    return np.any(input, axis=_axes(input, dim), keepdims=bool(keepdim))


@kernel("lerp")
def lerp(input: np.ndarray, end: np.ndarray, weight: Any) -> np.ndarray:
    """``torch.lerp``: ``input + weight * (end - input)``."""
    return input + weight * (end - input)


@kernel("lerp_")
def lerp_(input: np.ndarray, end: np.ndarray, weight: Any) -> np.ndarray:
    """``Tensor.lerp_``."""
    input[...] = input + weight * (end - input)
    return input
