"""numpy kernels of the ops of :mod:`shapeenv.ops.rules.shape_ops` (torch's semantics; see :mod:`shapeenv.ops.kernels.numpy`)."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from shapeenv.errors import ShapeError
from shapeenv.tensor import layout
from shapeenv.ops.kernels.numpy.common import as_sizes, axis, element_strides, in_layout, kernel

__all__: list[str] = []


# -- joining, splitting, rearranging -----------------------------------------------------------------
@kernel("cat")
def cat(tensors: Sequence[np.ndarray], dim: int = 0) -> np.ndarray:
    """``torch.cat``: 1-d empty tensors are skipped whatever the others' rank."""
    kept = [t for t in tensors if not (t.ndim == 1 and t.shape[0] == 0)]
    if not kept:
        return np.zeros((0,), np.result_type(*tensors))
    return np.concatenate(kept, axis=axis(dim, kept[0].ndim))


@kernel("stack")
def stack(tensors: Sequence[np.ndarray], dim: int = 0) -> np.ndarray:
    """``torch.stack``."""
    return np.stack(tensors, axis=axis(dim, tensors[0].ndim + 1))


def _pieces(t: np.ndarray, d: int, lengths: Sequence[int]) -> tuple:
    out, start = [], 0
    for n in lengths:
        out.append(t[(slice(None),) * d + (slice(start, start + n),)])
        start += n
    return tuple(out)


@kernel("split")
def split(t: np.ndarray, split_size_or_sections: Any, dim: int = 0) -> tuple:
    """``torch.split``: views of ``split_size`` (the last one smaller) or of the given sizes."""
    d = axis(dim, t.ndim)
    size = t.shape[d]
    if isinstance(split_size_or_sections, (list, tuple)):
        if sum(split_size_or_sections) != size:
            raise ShapeError(f"split sizes {list(split_size_or_sections)} do not sum to {size}, the size of dim {d}")
        return _pieces(t, d, split_size_or_sections)
    step = int(split_size_or_sections)
    if step == 0:
        return _pieces(t, d, [0])
    count = max(-(-size // step), 1)
    return _pieces(t, d, [step] * (count - 1) + [size - step * (count - 1)])


@kernel("chunk")
def chunk(t: np.ndarray, chunks: int, dim: int = 0) -> tuple:
    """``torch.chunk``: pieces of ``ceil(size / chunks)``; an empty dim gives ``chunks`` empty pieces."""
    d = axis(dim, t.ndim)
    if t.shape[d] == 0:
        return _pieces(t, d, [0] * chunks)
    return split(t, -(-t.shape[d] // chunks), d)


@kernel("unbind")
def unbind(t: np.ndarray, dim: int = 0) -> tuple:
    """``torch.unbind``: the slices along ``dim`` (views)."""
    d = axis(dim, t.ndim)
    return tuple(t[(slice(None),) * d + (i, Ellipsis)] for i in range(t.shape[d]))


@kernel("unsqueeze")
def unsqueeze(t: np.ndarray, dim: int) -> np.ndarray:
    """``t.unsqueeze(dim)``."""
    return np.expand_dims(t, axis(dim, t.ndim + 1))


@kernel("squeeze")
def squeeze(t: np.ndarray, dim: Any = None) -> np.ndarray:
    """``t.squeeze(dim)``: drop the given (or all) dims of size 1; others are kept silently."""
    if t.ndim == 0:
        return t[...]
    dims = range(t.ndim) if dim is None else [dim] if isinstance(dim, int) else dim
    return np.squeeze(t, tuple(d for d in (axis(d, t.ndim) for d in dims) if t.shape[d] == 1))


@kernel("expand")
def expand(t: np.ndarray, *sizes: Any) -> np.ndarray:
    """``t.expand(*sizes)``: ``-1`` keeps a size; a read-only broadcast view (in-place writes raise, as in torch)."""
    new = as_sizes(sizes)
    lead = len(new) - t.ndim
    target = tuple(t.shape[i - lead] if i >= lead and n == -1 else n for i, n in enumerate(new))
    return np.broadcast_to(t, target)


@kernel("permute")
def permute(t: np.ndarray, *dims: Any) -> np.ndarray:
    """``t.permute(*dims)``."""
    return np.transpose(t, as_sizes(dims))


@kernel("transpose")
def transpose(t: np.ndarray, dim0: int, dim1: int) -> np.ndarray:
    """``t.transpose(dim0, dim1)``."""
    return t[...] if t.ndim == 0 else np.swapaxes(t, axis(dim0, t.ndim), axis(dim1, t.ndim))


@kernel("t")
def t_(x: np.ndarray) -> np.ndarray:
    """``x.t()``: 0-d and 1-d tensors come back as views of themselves."""
    return x.T if x.ndim == 2 else x[...]


@kernel("movedim")
def movedim(input: np.ndarray, source: Any, destination: Any) -> np.ndarray:
    """``torch.movedim``."""
    return np.moveaxis(input, source, destination)


@kernel("flip")
def flip(input: np.ndarray, dims: Any) -> np.ndarray:
    """``torch.flip``: a copy in ``t``'s (preserved) layout."""
    flipped = np.flip(input, axis=tuple(dims) if isinstance(dims, (list, tuple)) else dims)
    return in_layout(flipped.copy(), layout.like_strides(input.shape, element_strides(input))) if input.ndim >= 2 else flipped.copy()


@kernel("repeat")
def repeat(t: np.ndarray, *repeats: Any) -> np.ndarray:
    """``t.repeat(*repeats)`` (numpy's ``tile``, which also prepends dims)."""
    return np.tile(t, as_sizes(repeats))
