"""numpy kernels of the ops of :mod:`shapeenv.ops.rules.views` (torch's semantics; see :mod:`shapeenv.ops.kernels.numpy`)."""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from guards.source import storage_offset_of
from shapeenv.errors import IndexOutOfBoundsError, ShapeError
from shapeenv.tensor import layout
from shapeenv.ops.kernels.numpy.common import as_sizes, axis, copy_in_format, element_strides, kernel

__all__: list[str] = []


# -- views -------------------------------------------------------------------------------------------
def _infer(shape: Sequence[int], numel: int) -> tuple:
    shape = list(shape)
    if -1 in shape:
        i = shape.index(-1)
        known = math.prod(s for j, s in enumerate(shape) if j != i)
        if known == 0 or numel % known:
            raise ShapeError(f"shape {shape} is invalid for input of size {numel}")
        shape[i] = numel // known
    if math.prod(shape) != numel:
        raise ShapeError(f"shape {shape} is invalid for input of size {numel}")
    return tuple(shape)


@kernel("view")
def view(t: np.ndarray, *shape: Any) -> np.ndarray:
    """``t.view(*shape)``: never copies; raises when the strides do not allow it (as torch does)."""
    return t.reshape(_infer(as_sizes(shape), t.size), copy=False)


@kernel("reshape")
def reshape(t: np.ndarray, *shape: Any) -> np.ndarray:
    """``t.reshape(*shape)``: a view when possible, else a copy."""
    return t.reshape(_infer(as_sizes(shape), t.size))


@kernel("flatten")
def flatten(input: np.ndarray, start_dim: int = 0, end_dim: int = -1) -> np.ndarray:
    """``input.flatten(start_dim, end_dim)``."""
    if input.ndim == 0:
        return input.reshape(1)
    a, b = axis(start_dim, input.ndim), axis(end_dim, input.ndim)
    if a == b:
        return input
    return input.reshape(input.shape[:a] + (math.prod(input.shape[a:b + 1]),) + input.shape[b + 1:])


@kernel("unflatten")
def unflatten(input: np.ndarray, dim: int, sizes: Sequence[int]) -> np.ndarray:
    """``input.unflatten(dim, sizes)``."""
    d = axis(dim, input.ndim)
    return input.reshape(input.shape[:d] + _infer(as_sizes(tuple(sizes)), input.shape[d]) + input.shape[d + 1:])


@kernel("contiguous")
def contiguous(t: np.ndarray, memory_format: Any = "contiguous_format") -> np.ndarray:
    """``t.contiguous(memory_format)``: ``t`` itself when already contiguous in that format, else a copy laid out so."""
    fmt = layout.memory_format_name(memory_format)
    if layout.is_contiguous(t.shape, element_strides(t), fmt):
        return t
    return copy_in_format(t, fmt)


# -- strided views -----------------------------------------------------------------------------------
def _owner(t: np.ndarray) -> np.ndarray:
    root = t
    while isinstance(root.base, np.ndarray):
        root = root.base
    return root


@kernel("as_strided")
def as_strided(input: np.ndarray, size: Sequence[int], stride: Sequence[int], storage_offset: Any = None) -> np.ndarray:
    """``torch.as_strided``: a view of the memory ``t`` lives in; refuses to reach outside it."""
    root = _owner(input)
    if not root.flags.c_contiguous:
        raise ShapeError("as_strided needs the array owning the memory to be contiguous", fix="np.ascontiguousarray(x)")
    offset = storage_offset_of(input) if storage_offset is None else int(storage_offset)
    size, stride = as_sizes(size), as_sizes(stride)
    last = offset + sum((n - 1) * s for n, s in zip(size, stride)) if all(size) else offset - 1
    if last >= root.size:
        raise IndexOutOfBoundsError(f"as_strided: sizes {list(size)} and strides {list(stride)} at offset {offset} are out of "
                         f"bounds for storage of {root.size} elements")
    flat = root.reshape(-1)[offset:] if root.size else root.reshape(-1)
    return np.lib.stride_tricks.as_strided(flat, shape=size, strides=[s * input.itemsize for s in stride])


@kernel("unfold")
def unfold(t: np.ndarray, dimension: int, size: int, step: int) -> np.ndarray:
    """``t.unfold(dimension, size, step)``: sliding windows (a view)."""
    if t.ndim == 0:
        return t.reshape(1)[:size]
    d = axis(dimension, t.ndim)
    windows = np.lib.stride_tricks.sliding_window_view(t, size, axis=d)
    return windows[(slice(None),) * d + (slice(None, None, step),)]
