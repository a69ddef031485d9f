"""numpy kernels of the ops of :mod:`shapeenv.ops.rules.attention` (torch's semantics; see :mod:`shapeenv.ops.kernels.numpy`).

``scaled_dot_product_attention`` is torch's math path (``softmax(q k^T * scale + mask) v``, causal
masks aligned top-left, GQA by repeating key/value heads).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from shapeenv.ops.kernels.numpy.common import axis, kernel

__all__: list[str] = []


def _softmax(x: np.ndarray) -> np.ndarray:
    m = np.max(x, axis=-1, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    e = np.exp(x - m)
    return e / e.sum(-1, keepdims=True)


@kernel("scaled_dot_product_attention")
def scaled_dot_product_attention(query: np.ndarray, key: np.ndarray, value: np.ndarray, attn_mask: Any = None,
                                 dropout_p: float = 0.0, is_causal: bool = False, scale: Any = None,
                                 enable_gqa: bool = False) -> np.ndarray:
    """``F.scaled_dot_product_attention`` (math path)."""
    q, k, v = (np.asarray(t, np.float64) for t in (query, key, value))
    if enable_gqa and q.ndim >= 3 and k.shape[-3] != q.shape[-3]:
        rep = q.shape[-3] // k.shape[-3]
        k, v = np.repeat(k, rep, axis=-3), np.repeat(v, rep, axis=-3)
    factor = 1.0 / math.sqrt(q.shape[-1]) if scale is None else float(scale)
    scores = q @ np.swapaxes(k, -1, -2) * factor
    L, S = q.shape[-2], k.shape[-2]
    if is_causal:
        scores = np.where(np.tril(np.ones((L, S), bool)), scores, -np.inf)
    if attn_mask is not None:
        mask = np.asarray(attn_mask)
        scores = np.where(mask, scores, -np.inf) if mask.dtype == np.bool_ else scores + mask
    weights = _softmax(scores)
    if dropout_p > 0:
        weights = weights * (np.random.default_rng().random(weights.shape) >= dropout_p) / (1 - dropout_p)
    return (weights @ v).astype(query.dtype)
