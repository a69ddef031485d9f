"""numpy kernels of the ops of :mod:`shapeenv.ops.rules.rearrange` (torch's semantics; see :mod:`shapeenv.ops.kernels.numpy`).

``roll`` with ``dims=None`` rolls the flattened tensor, as torch does.

>>> import numpy as np
>>> pixel_shuffle(np.arange(8).reshape(8, 1, 1), 2)[0].tolist(), roll(np.arange(4).reshape(2, 2), 1).tolist()
([[0, 1], [2, 3]], [[3, 0], [1, 2]])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from shapeenv.ops.kernels.numpy.common import axis, kernel

__all__: list[str] = []


@kernel("pixel_shuffle")
def pixel_shuffle(input: np.ndarray, upscale_factor: int) -> np.ndarray:
    """``F.pixel_shuffle``."""
    r = upscale_factor
    *b, c, h, w = input.shape
    x = input.reshape(*b, c // (r * r), r, r, h, w)
    n = len(b)
    x = x.transpose(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return np.ascontiguousarray(x).reshape(*b, c // (r * r), h * r, w * r)


@kernel("pixel_unshuffle")
def pixel_unshuffle(input: np.ndarray, downscale_factor: int) -> np.ndarray:
    """``F.pixel_unshuffle``."""
    r = downscale_factor
    *b, c, h, w = input.shape
    x = input.reshape(*b, c, h // r, r, w // r, r)
    n = len(b)
    x = x.transpose(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return np.ascontiguousarray(x).reshape(*b, c * r * r, h // r, w // r)


@kernel("meshgrid")
def meshgrid(*tensors: Any, indexing: Any = None) -> tuple:
    """``torch.meshgrid``."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    return tuple(np.meshgrid(*[np.reshape(t, -1) for t in tensors], indexing=indexing or "ij"))


@kernel("cosine_similarity")
def cosine_similarity(x1: np.ndarray, x2: np.ndarray, dim: int = 1, eps: float = 1e-8) -> np.ndarray:
    """``F.cosine_similarity``: ``sum(x1 * x2) / sqrt(clamp_min(|x1|^2 * |x2|^2, eps^2))``."""
    a, b = np.broadcast_arrays(np.asarray(x1, np.float64), np.asarray(x2, np.float64))
    d = axis(dim, a.ndim)
    if a.ndim == 0:
        return a * b / np.sqrt(np.maximum(a * a * b * b, eps * eps))
    num = np.sum(a * b, axis=d)
    return num / np.sqrt(np.maximum(np.sum(a * a, axis=d) * np.sum(b * b, axis=d), eps * eps))


@kernel("roll")
def roll(input: np.ndarray, shifts: Any, dims: Any = None) -> np.ndarray:
    """``torch.roll``."""
    if dims is None:
        shift = shifts if isinstance(shifts, int) else shifts[0]
        return np.roll(input.reshape(-1), shift).reshape(input.shape)
    shifts = [shifts] if isinstance(shifts, int) else list(shifts)
    dims = [dims] if isinstance(dims, int) else list(dims)
    return np.roll(input, shifts, [axis(d, input.ndim) for d in dims])
