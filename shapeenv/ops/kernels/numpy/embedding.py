"""numpy kernels of the ops of :mod:`shapeenv.ops.rules.embedding` (torch's semantics; see :mod:`shapeenv.ops.kernels.numpy`).

>>> import numpy as np
>>> repeat_interleave(np.array([2, 0, 1]))
array([0, 0, 2])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from shapeenv.ops.kernels.numpy.common import axis, kernel

__all__: list[str] = []


# -- lookups -----------------------------------------------------------------------------------------
def _renorm(weight: np.ndarray, rows: np.ndarray, max_norm: float, norm_type: float) -> None:
    for r in np.unique(rows):
        norm = np.linalg.norm(weight[r].astype(np.float64), ord=norm_type)
        if norm > max_norm:
            weight[r] = weight[r] * (max_norm / (norm + 1e-7))


@kernel("embedding")
def embedding(input: np.ndarray, weight: np.ndarray, padding_idx: Any = None, max_norm: Any = None,
              norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False) -> np.ndarray:
    """``F.embedding``: ``weight[input]`` (rows renormalised in place first with ``max_norm``)."""
    if max_norm is not None:
        _renorm(weight, np.asarray(input).reshape(-1), max_norm, norm_type)
    return weight[input]


@kernel("embedding_bag")
def embedding_bag(input: np.ndarray, weight: np.ndarray, offsets: Any = None, max_norm: Any = None,
                  norm_type: float = 2, scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights: Any = None, include_last_offset: bool = False,
                  padding_idx: Any = None) -> np.ndarray:
    """``F.embedding_bag``: bags by rows (2-d input) or by ``offsets``; padding entries are skipped."""
    flat = np.asarray(input).reshape(-1)
    psw = None if per_sample_weights is None else np.asarray(per_sample_weights, np.float64).reshape(-1)
    if input.ndim == 2:
        starts = list(range(0, flat.size, input.shape[1])) if input.shape[1] else [0] * input.shape[0]
        if include_last_offset:
            starts = starts[:-1]
        ends = [s + input.shape[1] for s in starts]
    else:
        offs = [int(o) for o in np.asarray(offsets).reshape(-1)]
        starts = offs[:-1] if include_last_offset else offs
        ends = offs[1:] if include_last_offset else offs[1:] + [flat.size]
    if max_norm is not None:
        _renorm(weight, flat, max_norm, norm_type)
    pad = None if padding_idx is None else padding_idx % weight.shape[0]
    out = np.zeros((len(starts), weight.shape[1]), np.float64)
    for b, (s, e) in enumerate(zip(starts, ends)):
        keep = [j for j in range(s, e) if pad is None or flat[j] != pad]
        if not keep:
            continue
        rows = weight[flat[keep]].astype(np.float64)
        if psw is not None:
            rows = rows * psw[keep][:, None]
        out[b] = rows.max(0) if mode == "max" else (rows.mean(0) if mode == "mean" else rows.sum(0))
    return out.astype(weight.dtype)


@kernel("one_hot")
def one_hot(tensor: np.ndarray, num_classes: Any = -1) -> np.ndarray:
    """``F.one_hot``."""
    classes = int(tensor.max()) + 1 if num_classes == -1 else int(num_classes)
    return np.eye(classes, dtype=np.int64)[tensor]


@kernel("repeat_interleave")
def repeat_interleave(input: np.ndarray, repeats: Any = None, dim: Any = None, output_size: Any = None) -> np.ndarray:
    """``torch.repeat_interleave`` (also the ``repeat_interleave(repeats)`` form)."""
    if repeats is None:
        return np.repeat(np.arange(input.shape[0], dtype=np.int64), input)
    r = np.asarray(repeats).reshape(-1) if isinstance(repeats, np.ndarray) else int(repeats)
    if isinstance(r, np.ndarray) and r.size == 1:
        r = int(r[0])
    if dim is None:
        return np.repeat(input.reshape(-1), r)
    x = input.reshape(1) if input.ndim == 0 else input
    return np.repeat(x, r, axis=axis(dim, x.ndim))
