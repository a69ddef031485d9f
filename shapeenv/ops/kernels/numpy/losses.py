"""numpy kernels of the ops of :mod:`shapeenv.ops.rules.losses` (torch's semantics; see :mod:`shapeenv.ops.kernels.numpy`).

The losses follow torch's formulas (``ignore_index`` targets count neither in the sum nor in the
weighted mean; label smoothing mixes in the uniform distribution).

>>> import numpy as np
>>> float(nll_loss(np.log(np.full((2, 4), 0.25)), np.array([0, 3])))
1.3862943611198906
"""

from __future__ import annotations

from typing import Any

import numpy as np

from shapeenv.ops.rules.losses import reduction_of
from shapeenv.ops.kernels.numpy.common import KERNELS, axis, kernel

__all__: list[str] = []


def _reduce(loss: np.ndarray, reduction: str) -> np.ndarray:
    if reduction == "none":
        return loss
    return np.asarray(np.sum(loss) if reduction == "sum" else np.mean(loss))


def _weighted(loss: np.ndarray, weight: Any, reduction: str) -> np.ndarray:
    if weight is None:
        return _reduce(loss, reduction)
    loss = loss * np.asarray(weight)
    if reduction == "mean":  # a weighted mean (torch's Python)
        return np.asarray(np.sum(loss) / np.sum(weight))
    return _reduce(loss, reduction)


@kernel("mse_loss")
def mse_loss(input: np.ndarray, target: np.ndarray, size_average: Any = None, reduce: Any = None,
             reduction: str = "mean", weight: Any = None) -> np.ndarray:
    """``F.mse_loss``."""
    r = reduction_of("mse_loss", size_average, reduce, reduction)
    return _weighted((np.asarray(input) - np.asarray(target)) ** 2, weight, r)


@kernel("l1_loss")
def l1_loss(input: np.ndarray, target: np.ndarray, size_average: Any = None, reduce: Any = None,
            reduction: str = "mean", weight: Any = None) -> np.ndarray:
    """``F.l1_loss``."""
    r = reduction_of("l1_loss", size_average, reduce, reduction)
    return _weighted(np.abs(np.asarray(input) - np.asarray(target)), weight, r)


@kernel("smooth_l1_loss")
def smooth_l1_loss(input: np.ndarray, target: np.ndarray, size_average: Any = None, reduce: Any = None,
                   reduction: str = "mean", beta: float = 1.0) -> np.ndarray:
    """``F.smooth_l1_loss``: quadratic below ``beta``, linear above (``beta=0``: l1)."""
    r = reduction_of("smooth_l1_loss", size_average, reduce, reduction)
    d = np.abs(np.asarray(input) - np.asarray(target))
    loss = d if beta == 0 else np.where(d < beta, 0.5 * d * d / (beta or 1.0), d - 0.5 * beta)
    return _reduce(loss, r)


def _log_softmax(x: np.ndarray, d: int) -> np.ndarray:
    x = x.astype(np.float64)
    m = np.max(x, axis=d, keepdims=True)
    return x - m - np.log(np.sum(np.exp(x - m), axis=d, keepdims=True))


def _nll(logp: np.ndarray, target: np.ndarray, weight: Any, ignore_index: int, reduction: str) -> np.ndarray:
    """Class-index negative log likelihood; ``logp`` is ``(C,)`` or ``(N, C, ...)``."""
    if logp.ndim == 1:
        logp, target = logp[None], np.asarray(target).reshape(1)
        squeeze = True
    else:
        squeeze = False
    c = logp.shape[1]
    t = np.asarray(target).astype(np.int64)
    valid = t != ignore_index
    safe = np.where(valid, t, 0)
    picked = np.take_along_axis(logp, safe[:, None], 1)[:, 0]
    w = np.ones(c) if weight is None else np.asarray(weight, np.float64)
    wt = np.where(valid, w[safe], 0.0)
    loss = -picked * wt
    if reduction == "none":
        return loss[0] if squeeze else loss
    if reduction == "sum":
        return np.asarray(np.sum(loss))
    return np.asarray(np.sum(loss) / np.sum(wt))


@kernel("nll_loss")
def nll_loss(input: np.ndarray, target: np.ndarray, weight: Any = None, size_average: Any = None,
             ignore_index: int = -100, reduce: Any = None, reduction: str = "mean") -> np.ndarray:
    """``F.nll_loss``."""
    r = reduction_of("nll_loss", size_average, reduce, reduction)
    return _nll(np.asarray(input, np.float64), target, weight, ignore_index, r)


@kernel("cross_entropy")
def cross_entropy(input: np.ndarray, target: np.ndarray, weight: Any = None, size_average: Any = None,
                  ignore_index: int = -100, reduce: Any = None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> np.ndarray:
    """``F.cross_entropy`` (class indices or class probabilities)."""
    r = reduction_of("cross_entropy", size_average, reduce, reduction)
    x = np.asarray(input)
    d = 0 if x.ndim == 1 else 1
    logp = _log_softmax(x, d)
    c = x.shape[d]
    shape_w = [1] * x.ndim
    shape_w[d] = c
    w = np.ones(shape_w) if weight is None else np.asarray(weight, np.float64).reshape(shape_w)
    t = np.asarray(target)
    if t.shape == x.shape:  # class probabilities
        p = t.astype(np.float64) * (1 - label_smoothing) + label_smoothing / c
        loss = -np.sum(logp * p * w, axis=d)
        if r == "none":
            return loss
        total = np.sum(loss)
        return np.asarray(total if r == "sum" else total / (loss.size if loss.ndim else 1))
    nll = _nll(logp, t, weight, ignore_index, "none")
    if label_smoothing == 0:
        return _nll(logp, t, weight, ignore_index, r)
    valid = (np.asarray(t) != ignore_index)
    smooth = -np.sum(logp * w, axis=d) * valid
    loss = (1 - label_smoothing) * nll + label_smoothing / c * smooth
    if r == "none":
        return loss
    if r == "sum":
        return np.asarray(np.sum(loss))
    safe = np.where(valid, np.asarray(t).astype(np.int64), 0)
    denom = np.sum(np.where(valid, (np.ones(c) if weight is None else np.asarray(weight, np.float64))[safe], 0.0))
    return np.asarray(np.sum(loss) / denom)


@kernel("binary_cross_entropy")
def binary_cross_entropy(input: np.ndarray, target: np.ndarray, weight: Any = None, size_average: Any = None,
                         reduce: Any = None, reduction: str = "mean") -> np.ndarray:
    """``F.binary_cross_entropy`` (the logs clamped at -100, as torch)."""
    r = reduction_of("binary_cross_entropy", size_average, reduce, reduction)
    x, y = np.asarray(input, np.float64), np.asarray(target, np.float64)
    loss = -(y * np.maximum(np.log(x), -100) + (1 - y) * np.maximum(np.log1p(-x), -100))
    return _reduce(loss if weight is None else loss * np.asarray(weight), r)


@kernel("binary_cross_entropy_with_logits")
def binary_cross_entropy_with_logits(input: np.ndarray, target: np.ndarray, weight: Any = None,
                                     size_average: Any = None, reduce: Any = None, reduction: str = "mean",
                                     pos_weight: Any = None) -> np.ndarray:
    """``F.binary_cross_entropy_with_logits`` (stable: ``log(1 + exp(-|x|))``)."""
    r = reduction_of("binary_cross_entropy_with_logits", size_average, reduce, reduction)
    x, y = np.asarray(input, np.float64), np.asarray(target, np.float64)
    log_sig = np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))  # log(sigmoid(x))
    log_sig_neg = log_sig - x  # log(1 - sigmoid(x))
    pw = 1.0 if pos_weight is None else np.asarray(pos_weight, np.float64)
    loss = -(pw * y * log_sig + (1 - y) * log_sig_neg)
    return _reduce(loss if weight is None else loss * np.asarray(weight), r)


@kernel("kl_div")
def kl_div(input: np.ndarray, target: np.ndarray, size_average: Any = None, reduce: Any = None,
           reduction: str = "mean", log_target: bool = False) -> np.ndarray:
    """``F.kl_div``: ``target * (log(target) - input)`` (0 where ``target`` is 0), ``batchmean`` per row."""
    r = reduction_of("kl_div", size_average, reduce, reduction, ("none", "mean", "sum", "batchmean"))
    x, y = np.broadcast_arrays(np.asarray(input, np.float64), np.asarray(target, np.float64))
    if log_target:
        loss = np.exp(y) * (y - x)
    else:
        loss = np.where(y > 0, y * (np.log(np.where(y > 0, y, 1)) - x), 0.0)
    if r == "batchmean":
        return np.asarray(np.sum(loss) / (x.shape[0] if x.ndim else 1))
    return _reduce(loss, r)
