"""numpy kernels of the ops of :mod:`shapeenv.ops.rules.pooling` (torch's semantics; see :mod:`shapeenv.ops.kernels.numpy`).

Adaptive pools use torch's bins ``[floor(i*n/out), ceil((i+1)*n/out))``; 1-d pools run the 2-d
kernels on the input unsqueezed, as torch does; ``interpolate`` maps output to input coordinates as
torch's CPU kernels do (``nearest``: ``floor(dst * scale)``, the linear modes with and without
``align_corners``, ``bicubic`` with ``A = -0.75``, ``area`` as the adaptive average; ``antialias``
is not implemented and computes the plain interpolation).

>>> import numpy as np
>>> KERNELS["adaptive_avg_pool1d"](np.arange(5.0).reshape(1, 1, 5), 2).tolist()
[[[1.0, 3.0]]]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from shapeenv.ops.kernels.numpy.common import KERNELS, axis, kernel

__all__: list[str] = []


# -- adaptive pooling --------------------------------------------------------------------------------
def _bins(n: int, out: int) -> list[tuple[int, int]]:
    return [(math.floor(i * n / out), math.ceil((i + 1) * n / out)) for i in range(out)]


def _adaptive(x: np.ndarray, output_size: Any, n: int, reduce: str) -> tuple[np.ndarray, np.ndarray]:
    sizes = tuple(output_size) if isinstance(output_size, (list, tuple)) else (output_size,) * n
    sizes = tuple(x.shape[x.ndim - n + i] if s is None else int(s) for i, s in enumerate(sizes))
    lead = x.shape[:-n]
    spatial = x.shape[-n:]
    out = np.zeros(lead + sizes, x.dtype)
    idx = np.zeros(lead + sizes, np.int64)
    grids = [_bins(spatial[i], sizes[i]) for i in range(n)]
    for pos in np.ndindex(*sizes):
        window = tuple(slice(*grids[i][p]) for i, p in enumerate(pos))
        patch = x[(Ellipsis,) + window].reshape(lead + (-1,))
        if reduce == "avg":
            out[(Ellipsis,) + pos] = patch.mean(-1)
            continue
        j = np.argmax(patch, axis=-1)
        out[(Ellipsis,) + pos] = np.take_along_axis(patch, j[..., None], -1)[..., 0]
        local = np.unravel_index(j, tuple(w.stop - w.start for w in window))
        flat = np.zeros_like(j)
        for i, w in enumerate(window):
            flat = flat * spatial[i] + (local[i] + w.start)
        idx[(Ellipsis,) + pos] = flat
    return out, idx


def _register_adaptive(n: int) -> None:
    """Register the kernels of ``adaptive_avg_pool{n}d`` and ``adaptive_max_pool{n}d`` (``F.adaptive_*``; the max's
    indices point into each flattened plane, as torch's do)."""

    @kernel(f"adaptive_avg_pool{n}d")
    def avg_pool(input: np.ndarray, output_size: Any) -> np.ndarray:
        return _adaptive(input, output_size, n, "avg")[0]

    @kernel(f"adaptive_max_pool{n}d")
    def max_pool(input: np.ndarray, output_size: Any, return_indices: bool = False) -> Any:
        out, idx = _adaptive(input, output_size, n, "max")
        return (out, idx) if return_indices else out


for _n in (1, 2):
    _register_adaptive(_n)


def _one(value: Any) -> int:
    return int(value[0]) if isinstance(value, (list, tuple)) else int(value)


@kernel("avg_pool1d")
def avg_pool1d(input: np.ndarray, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
               count_include_pad: bool = True) -> np.ndarray:
    """``F.avg_pool1d``: ``avg_pool2d`` on the input unsqueezed at -2."""
    k = _one(kernel_size)
    s = k if stride is None or (isinstance(stride, (list, tuple)) and not stride) else _one(stride)
    out = KERNELS["avg_pool2d"](input[..., None, :], (1, k), (1, s), (0, _one(padding)), ceil_mode, count_include_pad)
    return out[..., 0, :]


@kernel("max_pool1d")
def max_pool1d(input: np.ndarray, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
               ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """``F.max_pool1d``: ``max_pool2d`` on the input unsqueezed at -2."""
    k = _one(kernel_size)
    s = k if stride is None or (isinstance(stride, (list, tuple)) and not stride) else _one(stride)
    out = KERNELS["max_pool2d"](input[..., None, :], (1, k), (1, s), (0, _one(padding)), (1, _one(dilation)),
                                ceil_mode, return_indices)
    if return_indices:
        return out[0][..., 0, :], out[1][..., 0, :]
    return out[..., 0, :]


# -- interpolation -----------------------------------------------------------------------------------
def _scales(input: np.ndarray, size: Any, scale_factor: Any, recompute: Any) -> tuple[tuple, tuple]:
    n = input.ndim - 2
    spatial = input.shape[2:]
    if size is not None:
        out = tuple(int(s) for s in size) if isinstance(size, (list, tuple)) else (int(size),) * n
        return out, tuple(i / o for i, o in zip(spatial, out))
    factors = tuple(scale_factor) if isinstance(scale_factor, (list, tuple)) else (scale_factor,) * n
    out = tuple(math.floor(float(i) * float(f)) for i, f in zip(spatial, factors))
    if recompute:
        return out, tuple(i / o for i, o in zip(spatial, out))
    return out, tuple(1.0 / float(f) for f in factors)


def _linear_axis(x: np.ndarray, d: int, out: int, scale: float, align: bool) -> np.ndarray:
    n = x.shape[d]
    dst = np.arange(out, dtype=np.float64)
    if align:
        src = dst * ((n - 1) / (out - 1)) if out > 1 else np.zeros(out)
    else:
        src = np.maximum((dst + 0.5) * scale - 0.5, 0.0)
    lo = np.minimum(np.floor(src).astype(np.int64), n - 1)
    hi = np.minimum(lo + 1, n - 1)
    w = (src - lo).reshape((-1,) + (1,) * (x.ndim - d - 1))
    return np.take(x, lo, axis=d) * (1 - w) + np.take(x, hi, axis=d) * w


def _cubic_axis(x: np.ndarray, d: int, out: int, scale: float, align: bool) -> np.ndarray:
    a = -0.75
    n = x.shape[d]
    dst = np.arange(out, dtype=np.float64)
    src = dst * ((n - 1) / (out - 1) if out > 1 else 0.0) if align else (dst + 0.5) * scale - 0.5
    base = np.floor(src).astype(np.int64)
    t = src - base

    def c1(v):
        return ((a + 2) * v - (a + 3)) * v * v + 1

    def c2(v):
        return ((a * v - 5 * a) * v + 8 * a) * v - 4 * a

    weights = [c2(t + 1), c1(t), c1(1 - t), c2(2 - t)]
    shape = (-1,) + (1,) * (x.ndim - d - 1)
    total = 0.0
    for k, wk in zip(range(-1, 3), weights):
        total = total + np.take(x, np.clip(base + k, 0, n - 1), axis=d) * wk.reshape(shape)
    return total


@kernel("interpolate")
def interpolate(input: np.ndarray, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
                align_corners: Any = None, recompute_scale_factor: Any = None, antialias: bool = False) -> np.ndarray:
    """``F.interpolate`` (see the module docstring)."""
    out_sizes, scales = _scales(input, size, scale_factor, recompute_scale_factor)
    if mode == "area":
        return _adaptive(input, out_sizes, len(out_sizes), "avg")[0]
    x = input.astype(np.float64)
    for i, (out, scale) in enumerate(zip(out_sizes, scales)):
        d = 2 + i
        n = x.shape[d]
        if mode in ("nearest", "nearest-exact"):
            dst = np.arange(out, dtype=np.float64) + (0.5 if mode == "nearest-exact" else 0.0)
            src = np.minimum(np.floor(dst * scale).astype(np.int64), n - 1)
            x = np.take(x, src, axis=d)
        elif mode == "bicubic":
            x = _cubic_axis(x, d, out, scale, bool(align_corners))
        else:
            x = _linear_axis(x, d, out, scale, bool(align_corners))
    if input.dtype == np.uint8:
        return np.clip(np.round(x), 0, 255).astype(np.uint8)
    return x.astype(input.dtype)
