"""numpy kernels of the ops of :mod:`shapeenv.ops.rules.statistics` (torch's semantics; see :mod:`shapeenv.ops.kernels.numpy`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from shapeenv.ops.kernels.numpy.common import _axes, axis, kernel

__all__: list[str] = []


def _ddof(dim: Any, unbiased: Any, correction: Any) -> tuple[Any, int]:
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    if correction is not None:
        return dim, correction
    return dim, 0 if unbiased is False else 1


@kernel("var")
def var(input: np.ndarray, dim: Any = None, unbiased: Any = None, keepdim: bool = False,
        correction: Any = None) -> np.ndarray:
    """``torch.var``."""
    dim, ddof = _ddof(dim, unbiased, correction)
    return np.var(input.astype(np.float64), axis=_axes(input, dim), ddof=ddof, keepdims=bool(keepdim))


@kernel("std")
def std(input: np.ndarray, dim: Any = None, unbiased: Any = None, keepdim: bool = False,
        correction: Any = None) -> np.ndarray:
    """``torch.std``."""
    dim, ddof = _ddof(dim, unbiased, correction)
    return np.std(input.astype(np.float64), axis=_axes(input, dim), ddof=ddof, keepdims=bool(keepdim))


@kernel("var_mean")
def var_mean(input: np.ndarray, dim: Any = None, unbiased: Any = None, keepdim: bool = False,
             correction: Any = None) -> tuple:
    """``torch.var_mean``."""
    d, _ = _ddof(dim, unbiased, correction)
    return var(input, dim, unbiased, keepdim, correction), np.mean(input, axis=_axes(input, d), keepdims=bool(keepdim))


@kernel("std_mean")
def std_mean(input: np.ndarray, dim: Any = None, unbiased: Any = None, keepdim: bool = False,
             correction: Any = None) -> tuple:
    """``torch.std_mean``."""
    d, _ = _ddof(dim, unbiased, correction)
    return std(input, dim, unbiased, keepdim, correction), np.mean(input, axis=_axes(input, d), keepdims=bool(keepdim))
