"""numpy kernels of the ops of :mod:`shapeenv.ops.rules.data_dependent` (torch's semantics; see :mod:`shapeenv.ops.kernels.numpy`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from shapeenv.errors import ShapeError
from shapeenv.ops.kernels.numpy.common import axis, kernel

__all__: list[str] = []


# -- data-dependent sizes ----------------------------------------------------------------------------
@kernel("nonzero")
def nonzero(input: np.ndarray) -> np.ndarray:
    """``torch.nonzero``: ``(count, ndim)`` int64 indices."""
    return np.argwhere(input).astype(np.int64)


@kernel("masked_select")
def masked_select(input: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``torch.masked_select``: the elements where the broadcast mask is set, 1-d."""
    tb, mb = np.broadcast_arrays(input, mask)
    return tb[mb]


@kernel("unique")
def unique(input: np.ndarray, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False,
           dim: int | None = None) -> Any:
    """``torch.unique`` (always sorted here; torch's CPU ``sorted=False`` order is unspecified anyway)."""
    d = None if dim is None else axis(dim, input.ndim)
    values, inverse, counts = np.unique(input, return_inverse=True, return_counts=True, axis=d)
    inverse = inverse.reshape(input.shape if d is None else (input.shape[d],)).astype(np.int64)
    if not (return_inverse or return_counts):
        return values
    return tuple([values] + ([inverse] if return_inverse else []) + ([counts.astype(np.int64)] if return_counts else []))


@kernel("item")
def item(t: np.ndarray) -> int:
    """``t.item()`` of a one-element integer or bool tensor, as a Python int."""
    if t.size != 1:
        raise ShapeError(f"a tensor with {t.size} elements cannot be converted to a scalar")
    return int(t.reshape(()))
