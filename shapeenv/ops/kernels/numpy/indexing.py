"""numpy kernels of the ops of :mod:`shapeenv.ops.rules.indexing` (torch's semantics; see :mod:`shapeenv.ops.kernels.numpy`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from shapeenv.errors import IndexOutOfBoundsError
from shapeenv.ops.kernels.numpy.common import axis, kernel
from shapeenv.ops.kernels.numpy.data_dependent import item

__all__ = ["split_index"]


# -- indexing ----------------------------------------------------------------------------------------
@kernel("select")
def select(input: np.ndarray, dim: int, index: int) -> np.ndarray:
    """``input.select(dim, index)``."""
    d = axis(dim, input.ndim)
    if not -input.shape[d] <= index < input.shape[d]:
        raise IndexOutOfBoundsError(f"index {index} is out of bounds for dimension {d} with size {input.shape[d]}")
    return input[(slice(None),) * d + (index, Ellipsis)]  # Ellipsis: a 0-d view, not a scalar


@kernel("narrow")
def narrow(input: np.ndarray, dim: int, start: int, length: int) -> np.ndarray:
    """``input.narrow(dim, start, length)``."""
    d = axis(dim, input.ndim)
    start = start + input.shape[d] if start < 0 else start
    if start < 0 or length < 0 or start + length > input.shape[d]:
        raise IndexOutOfBoundsError(f"narrow: start {start} + length {length} exceeds dimension size {input.shape[d]}")
    return input[(slice(None),) * d + (slice(start, start + length),)]


@kernel("slice")
def slice_(t: np.ndarray, dim: int = 0, start: Any = None, stop: Any = None, step: Any = 1) -> np.ndarray:
    """``t[..., start:stop:step]`` along ``dim`` (positive steps, bounds clamped as in Python)."""
    return t[(slice(None),) * axis(dim, t.ndim) + (slice(start, stop, step),)]


@kernel("getitem")
def getitem(t: Any, index: Any) -> Any:
    """``t[index]`` with torch's order: integer indices select first, then advanced indices gather.

    numpy treats an int next to an index array as one more advanced index, which moves the
    gathered dims to the front; torch applies the int as ``select`` first. On a tuple or list
    (a multi-output op's results) this is plain item access.
    """
    if isinstance(t, (tuple, list)):
        return t[index]
    view, rest = split_index(t, index)
    return view[rest]


@kernel("index_select")
def index_select(input: np.ndarray, dim: int, index: np.ndarray) -> np.ndarray:
    """``input.index_select(dim, index)``."""
    if input.ndim == 0:
        return input.reshape(1)[index.reshape(-1)].reshape(())
    return np.take(input, index.reshape(-1), axis=axis(dim, input.ndim))


@kernel("gather")
def gather(input: np.ndarray, dim: int, index: np.ndarray) -> np.ndarray:
    """``torch.gather``: ``index`` may be smaller than ``t`` in the other dims (their leading part is read)."""
    if input.ndim == 0:
        return input.reshape(1)[index.reshape(-1)].reshape(index.shape)
    d = axis(dim, input.ndim)
    part = input[tuple(slice(None) if k == d else slice(0, index.shape[k]) for k in range(input.ndim))]
    return np.take_along_axis(part, index, axis=d)


def _consumed(item: Any) -> int:
    if item is None or item is Ellipsis or isinstance(item, (bool, np.bool_)):
        return 0
    if isinstance(item, np.ndarray) and item.dtype in (np.bool_, np.uint8):
        return item.ndim
    return 1


def split_index(t: np.ndarray, index: Any) -> tuple[np.ndarray, tuple]:
    """``t`` with the integer indices of ``index`` applied as ``select`` (torch's order), and the rest of the index.

    >>> view, rest = split_index(np.zeros((2, 3, 4)), (1, slice(None), np.array([0, 2])))
    >>> view.shape, len(rest)
    ((3, 4), 2)
    """
    items = list(index) if isinstance(index, tuple) else [index]
    items = [i.astype(np.bool_) if isinstance(i, np.ndarray) and i.dtype == np.uint8 else i for i in items]
    consumed = sum(_consumed(i) for i in items)
    if consumed > t.ndim:
        raise IndexOutOfBoundsError(f"too many indices for a tensor of dimension {t.ndim}")
    rest, selects, d = [], [], 0
    for item in items:
        if isinstance(item, (int, np.integer)) and not isinstance(item, (bool, np.bool_)):
            selects.append((d, int(item)))
            d += 1
            continue
        rest.append(item)
        d += t.ndim - consumed if item is Ellipsis else _consumed(item)
    for dim, i in reversed(selects):  # highest dim first, so the others keep their position
        t = select(t, dim, i)
    return t, tuple(rest) if rest else (Ellipsis,)
