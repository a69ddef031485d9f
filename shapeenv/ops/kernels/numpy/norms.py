"""numpy kernels of the ops of :mod:`shapeenv.ops.rules.norms` (torch's semantics; see :mod:`shapeenv.ops.kernels.numpy`).

Statistics are computed in float64 and the result cast back to the input's dtype; ``batch_norm``
in training (and ``instance_norm`` with running stats) updates the running statistics in place,
with torch's unbiased variance for the running estimate.

>>> import numpy as np
>>> y = layer_norm(np.array([[1.0, 3.0], [2.0, 2.0]]), (2,))
>>> np.round(y, 3).tolist()
[[-1.0, 1.0], [0.0, 0.0]]
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from shapeenv.ops.kernels.numpy.common import KERNELS, axis, kernel

__all__: list[str] = []


def _affine(y: np.ndarray, weight: Any, bias: Any, shape: Sequence[int]) -> np.ndarray:
    if weight is not None:
        y = y * np.asarray(weight, np.float64).reshape(shape)
    if bias is not None:
        y = y + np.asarray(bias, np.float64).reshape(shape)
    return y


@kernel("layer_norm")
def layer_norm(input: np.ndarray, normalized_shape: Any, weight: Any = None, bias: Any = None,
               eps: float = 1e-05) -> np.ndarray:
    """``F.layer_norm`` (biased variance over the trailing dims)."""
    x = input.astype(np.float64)
    axes = tuple(range(x.ndim - len(normalized_shape), x.ndim))
    y = (x - x.mean(axes, keepdims=True)) / np.sqrt(x.var(axes, keepdims=True) + eps)
    return np.ascontiguousarray(_affine(y, weight, bias, tuple(normalized_shape)).astype(input.dtype))


@kernel("rms_norm")
def rms_norm(input: np.ndarray, normalized_shape: Any, weight: Any = None, eps: float | None = None) -> np.ndarray:
    """``F.rms_norm``: ``x / sqrt(mean(x**2) + eps)`` (``eps`` defaults to the dtype's epsilon)."""
    x = input.astype(np.float64)
    axes = tuple(range(x.ndim - len(normalized_shape), x.ndim))
    e = np.finfo(input.dtype).eps if eps is None else eps
    y = x / np.sqrt((x * x).mean(axes, keepdims=True) + e)
    return _affine(y, weight, None, tuple(normalized_shape)).astype(input.dtype)


def _channel_shape(x: np.ndarray) -> tuple:
    return (1, x.shape[1]) + (1,) * (x.ndim - 2)


@kernel("group_norm")
def group_norm(input: np.ndarray, num_groups: Any, weight: Any = None, bias: Any = None,
               eps: float = 1e-05) -> np.ndarray:
    """``F.group_norm``."""
    x = input.astype(np.float64)
    n, c = x.shape[0], x.shape[1]
    g = x.reshape(n, num_groups, -1)
    y = ((g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + eps)).reshape(x.shape)
    return _affine(y, weight, bias, _channel_shape(x)).astype(input.dtype)


def _update(stat: Any, value: np.ndarray, momentum: float) -> None:
    if stat is not None:
        stat[...] = (1 - momentum) * stat + momentum * value


def _stats_norm(x: np.ndarray, axes: tuple, running_mean: Any, running_var: Any, use_batch: bool,
                momentum: float, eps: float) -> tuple[np.ndarray, np.ndarray]:
    """Mean and (biased) variance to normalise with; updates the running stats when using the batch's."""
    if use_batch:
        mean, var = x.mean(axes), x.var(axes)
        count = x.size // max(mean.size, 1)
        _update(running_mean, mean, momentum)
        _update(running_var, var * count / max(count - 1, 1), momentum)
        return mean, var
    return np.asarray(running_mean, np.float64), np.asarray(running_var, np.float64)


@kernel("batch_norm")
def batch_norm(input: np.ndarray, running_mean: Any, running_var: Any, weight: Any = None, bias: Any = None,
               training: bool = False, momentum: float = 0.1, eps: float = 1e-05) -> np.ndarray:
    """``F.batch_norm``."""
    x = input.astype(np.float64)
    axes = (0,) + tuple(range(2, x.ndim))
    mean, var = _stats_norm(x, axes, running_mean, running_var, training, momentum, eps)
    shape = _channel_shape(x)
    y = (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps)
    return _affine(y, weight, bias, shape).astype(input.dtype)


@kernel("instance_norm")
def instance_norm(input: np.ndarray, running_mean: Any = None, running_var: Any = None, weight: Any = None,
                  bias: Any = None, use_input_stats: bool = True, momentum: float = 0.1,
                  eps: float = 1e-05) -> np.ndarray:
    """``F.instance_norm``: per sample and channel; running stats get the batch-averaged update."""
    x = input.astype(np.float64)
    axes = tuple(range(2, x.ndim))
    if use_input_stats:
        mean, var = x.mean(axes, keepdims=True), x.var(axes, keepdims=True)
        count = int(np.prod(x.shape[2:]))
        _update(running_mean, mean.reshape(x.shape[:2]).mean(0), momentum)
        _update(running_var, (var * count / max(count - 1, 1)).reshape(x.shape[:2]).mean(0), momentum)
    else:
        shape = _channel_shape(x)
        mean, var = np.asarray(running_mean, np.float64).reshape(shape), np.asarray(running_var, np.float64).reshape(shape)
    y = (x - mean) / np.sqrt(var + eps)
    return np.ascontiguousarray(_affine(y, weight, bias, _channel_shape(x)).astype(input.dtype))


@kernel("_weight_norm")
def weight_norm(v: np.ndarray, g: np.ndarray, dim: int = 0) -> np.ndarray:
    """``torch._weight_norm``: ``v * (g / norm_except_dim(v, 2, dim))`` (one norm over ``v`` for ``dim=-1``)."""
    x = v.astype(np.float64)
    axes = tuple(d for d in range(x.ndim) if d != dim) if dim != -1 else tuple(range(x.ndim))
    norm = np.sqrt((x * x).sum(axis=axes, keepdims=True))
    return (x * (np.asarray(g, np.float64) / norm)).astype(v.dtype)
