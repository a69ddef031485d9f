"""Indexing: ``select``, ``narrow``, ``slice``, ``x[...]`` (``getitem``), ``index_select``, ``gather``.

Note [Slice lengths without guards]
    ``x[a:b:c]`` on a dim of size ``n`` follows torch: a negative bound gets ``n`` added, then
    ``a`` is clamped to ``[0, n]`` and ``b`` to ``[a, n]``; the length is ``ceil((b - a) / c)``,
    that is ``max(0, ceil((min(b, n) - min(a, n)) / c))`` for non-negative bounds. When the sign
    of a bound is known (a Python int, or a provably non-negative size) each clamp is a
    ``smin``/``smax`` that simplifies when provable and is otherwise a ``Min``/``Max`` expression,
    never a guard: ``x[2:]`` on ``s0 >= 2`` is ``s0 - 2``, ``x[:5]`` is ``Min(5, s0)``. A symbolic
    bound of unknown sign becomes ``IfThenElse(a < 0, ..., ...)``, also without a guard.

Integer indices are applied first (as ``select``, the way torch does), then advanced indices
(integer or boolean tensors, and lists) are gathered; their result dims go where the indexed dims
were if those are adjacent, else in front.

>>> from shapeenv import ShapeEnv
>>> env = ShapeEnv(); x = env.fake_tensor((8, 5), name="x")
>>> getitem(x, (slice(2, None), 0)).shape, getitem(x, (None, Ellipsis, slice(None, None, 2))).shape
((s0 - 2,), (1, s0, CeilDiv(s1, 2)))
>>> len(env.guards)
0
"""

from __future__ import annotations

from typing import Any

from symint import SymInt, sym_ite

from shapeenv.errors import ShapeError
from shapeenv.tensor.dtypes import bool_, int32, int64, uint8
from shapeenv.tensor.tensor import FakeTensor
from shapeenv.ops.common import (canonical_dim, ceil_div, check_size, check_tensor, decide, fmt_shape, known_true,
                                 make_view, new_tensor, require, smax, smin, unsqueeze_view)
from shapeenv.ops.rules.data_dependent import need_env, unbacked_count
from shapeenv.ops.rules.elementwise import broadcast_shapes
from shapeenv.ops.dispatch import is_tensor
from shapeenv.ops.registry import rule

__all__ = ["select", "narrow", "slice_", "getitem", "index_select", "gather", "normalize_slice"]


def _wrap_negative(index: Any, size: Any) -> Any:
    """``index + size`` if ``index < 0`` else ``index``: decided (a guard at most), or an ``IfThenElse``
    when ``index`` is unbacked."""
    negative = decide(index < 0)
    if negative is None:
        return sym_ite(index < 0, index + size, index)
    return index + size if negative else index


def select_impl(t: FakeTensor, dim: int, index: Any, op: str = "select") -> FakeTensor:
    """``select`` without graph recording."""
    if t.ndim == 0:
        raise ShapeError(f"{op}: cannot be applied to a 0-dim tensor")
    d = canonical_dim(dim, t.ndim, op)
    check_size(index, op, "index")
    size = t.shape[d]
    message = lambda: f"{op}: index {index} is out of bounds for dimension {d} with size {size} (tensor of size {fmt_shape(t.shape)})"  # noqa: E731
    require(index >= -size, message)
    require(index < size, message)
    index = _wrap_negative(index, size)
    keep = [k for k in range(t.ndim) if k != d]
    return make_view(t, [t.shape[k] for k in keep], [t.stride(k) for k in keep], t.storage_offset() + index * t.stride(d))


@rule("select")
def select(input: FakeTensor, dim: int, index: Any) -> FakeTensor:  # noqa: A002
    """``input.select(dim, index)``: drop dim ``dim`` at ``index`` (negative counts from the end); a view.

    >>> from shapeenv import ShapeEnv
    >>> y = select(ShapeEnv().fake_tensor((4, 3)), 0, -1); y.shape, y.storage_offset()
    ((s1,), s0*s1 - s1)
    """
    check_tensor(input, "select")
    return select_impl(input, dim, index)


def narrow_impl(t: FakeTensor, dim: int, start: Any, length: Any, op: str = "narrow") -> FakeTensor:
    """``narrow`` without graph recording."""
    if t.ndim == 0:
        raise ShapeError(f"{op}: cannot be applied to a 0-dim tensor")
    d = canonical_dim(dim, t.ndim, op)
    check_size(start, op, "start")
    check_size(length, op, "length")
    size = t.shape[d]
    require(length >= 0, lambda: f"{op}: length must be non-negative, got {length}")
    require(start >= -size, lambda: f"{op}: start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    require(start <= size, lambda: f"{op}: start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    start = _wrap_negative(start, size)
    require(start + length <= size, lambda: f"{op}: start ({start}) + length ({length}) exceeds dimension size ({size})")
    shape = t.shape[:d] + (length,) + t.shape[d + 1:]
    return make_view(t, shape, t.stride(), t.storage_offset() + start * t.stride(d))


@rule("narrow")
def narrow(input: FakeTensor, dim: int, start: Any, length: Any) -> FakeTensor:  # noqa: A002
    """``input.narrow(dim, start, length)``: ``length`` elements from ``start`` along ``dim``; a view.

    >>> from shapeenv import ShapeEnv
    >>> narrow(ShapeEnv().fake_tensor((6, 3), dynamic=False), 0, -4, 3).shape
    (3, 3)
    """
    check_tensor(input, "narrow")
    return narrow_impl(input, dim, start, length)


def _clamp_bound(value: Any, size: Any) -> Any:
    """A slice bound after torch's normalisation: ``+size`` if negative, then clamped to ``[0, size]``."""
    if known_true(value >= 0):
        return smin(value, size)
    if known_true(value < 0):
        return smax(value + size, 0)
    return sym_ite(value < 0, smax(value + size, 0), smin(value, size))


def normalize_slice(size: Any, start: Any, stop: Any, step: Any, op: str = "slice") -> tuple[Any, Any]:
    """``(start, length)`` of ``[start:stop:step]`` on a dim of ``size``; see Note [Slice lengths without guards].

    >>> normalize_slice(10, -3, None, 1), normalize_slice(10, 2, 100, 3), normalize_slice(10, 7, 2, 1)
    ((7, 3), (2, 3), (7, 0))
    """
    step = 1 if step is None else check_size(step, op, "step")
    require(step > 0, lambda: f"{op}: step must be greater than zero, got {step}")
    lo = 0 if start is None else _clamp_bound(check_size(start, op, "start"), size)
    hi = size if stop is None else _clamp_bound(check_size(stop, op, "stop"), size)
    length = smax(hi - lo, 0)
    return lo, length if (isinstance(step, int) and step == 1) else ceil_div(length, step)


def slice_impl(t: FakeTensor, dim: int, start: Any = None, stop: Any = None, step: Any = 1, op: str = "slice") -> FakeTensor:
    """``slice`` without graph recording."""
    if t.ndim == 0:
        raise ShapeError(f"{op}: cannot slice a 0-dim tensor")
    d = canonical_dim(dim, t.ndim, op)
    lo, length = normalize_slice(t.shape[d], start, stop, step, op)
    step = 1 if step is None else step
    shape = t.shape[:d] + (length,) + t.shape[d + 1:]
    strides = t.stride()[:d] + (t.stride(d) * step,) + t.stride()[d + 1:]
    return make_view(t, shape, strides, t.storage_offset() + lo * t.stride(d))


@rule("slice")
def slice_(t: FakeTensor, dim: int = 0, start: Any = None, stop: Any = None, step: Any = 1) -> FakeTensor:
    """``aten.slice``: ``t[..., start:stop:step]`` along ``dim``; a view.

    >>> from shapeenv import ShapeEnv
    >>> slice_(ShapeEnv().fake_tensor((9,)), 0, 1, -1, 2).shape
    (CeilDiv(s0, 2) - 1,)
    """
    check_tensor(t, "slice")
    return slice_impl(t, dim, start, stop, step)


def _is_index_tensor(value: Any) -> bool:
    return is_tensor(value) or isinstance(value, list)


def _dims_consumed(item: Any) -> int:
    if item is None or item is Ellipsis or isinstance(item, bool):
        return 0
    if is_tensor(item) and item.dtype in (bool_, uint8):
        return item.ndim
    if isinstance(item, list) and item and all(isinstance(v, bool) for v in item):
        return 1
    return 1


def _as_index_tensor(t: FakeTensor, item: Any) -> FakeTensor:
    if is_tensor(item):
        if item.dtype not in (int64, int32, bool_, uint8):
            raise ShapeError(f"getitem: tensors used as indices must be long, int, byte or bool tensors, got {item.dtype}")
        return item
    values = list(item)
    if values and all(isinstance(v, bool) for v in values):
        return new_tensor(t.env, (len(values),), bool_)
    for v in values:
        if isinstance(v, bool) or not isinstance(v, (int, SymInt)):
            raise ShapeError(f"getitem: a list index must hold ints (or only bools), got {item!r}")
    return new_tensor(t.env, (len(values),), int64)


def _advanced(v: FakeTensor, indexed: list[tuple[int, FakeTensor]]) -> FakeTensor:
    """Gather ``v`` at the advanced indices: ``(dim of v, index tensor)`` pairs in order."""
    dims: list[int] = []
    shapes: list[tuple] = []
    for d, idx in indexed:
        if idx.dtype in (bool_, uint8):
            for k in range(idx.ndim):
                require(idx.shape[k] == v.shape[d + k], lambda k=k, d=d, idx=idx: (
                    f"getitem: the shape of the mask {fmt_shape(idx.shape)} at index {k} does not match the shape "
                    f"of the indexed tensor {fmt_shape(v.shape)} at index {d + k}"))
            count = unbacked_count(v.env, idx.numel(), "getitem (boolean mask)")
            dims.extend(range(d, d + idx.ndim))
            shapes.extend([(count,)] * idx.ndim)
        else:
            dims.append(d)
            shapes.append(idx.shape)
    batch = broadcast_shapes(*shapes, op="getitem")
    rest = [k for k in range(v.ndim) if k not in dims]
    if dims and dims == list(range(dims[0], dims[0] + len(dims))):
        shape = v.shape[:dims[0]] + batch + v.shape[dims[-1] + 1:]
    else:
        shape = batch + tuple(v.shape[k] for k in rest)
    return new_tensor(v.env, shape, v.dtype)


@rule("getitem")
def getitem(t: Any, index: Any) -> Any:
    """``t[index]`` for ints, slices, None, Ellipsis, bools, lists and index tensors (see the module docstring).

    On a tuple or list (the outputs of a multi-output op in a traced graph), ``getitem`` is plain
    item access.

    >>> from shapeenv import ShapeEnv
    >>> x = ShapeEnv().fake_tensor((5, 6, 7), dynamic=False)
    >>> getitem(x, (0, slice(None), [1, 2])).shape, getitem(x, (Ellipsis, None)).shape
    ((6, 2), (5, 6, 7, 1))
    """
    if isinstance(t, (tuple, list)):
        return t[index]
    check_tensor(t, "getitem")
    items = list(index) if isinstance(index, tuple) else [index]
    consumed = sum(_dims_consumed(i) for i in items)
    if consumed > t.ndim:
        raise ShapeError(f"getitem: too many indices for tensor of dimension {t.ndim} (index {index!r})")
    if sum(1 for i in items if i is Ellipsis) > 1:
        raise ShapeError(f"getitem: an index can only have a single ellipsis ('...'), got {index!r}")
    v = make_view(t, t.shape, t.stride())
    d = 0
    indexed: list[tuple[int, FakeTensor]] = []
    for item in items:
        if item is None:
            v = unsqueeze_view(v, d)
            d += 1
        elif isinstance(item, bool):  # torch: a new dim indexed by a 1- or 0-element index (a copy)
            v = unsqueeze_view(v, d)
            indexed.append((d, new_tensor(t.env, (1 if item else 0,), int64)))
            d += 1
        elif item is Ellipsis:
            d += t.ndim - consumed
        elif isinstance(item, slice):
            v = slice_impl(v, d, item.start, item.stop, item.step, "getitem")
            d += 1
        elif isinstance(item, (int, SymInt)):
            v = select_impl(v, d, item, "getitem")
        elif is_tensor(item) and item.ndim == 0 and item.dtype in (int32, int64):
            # torch reads a 0-d integer index as a Python int: a select at a data-dependent position
            v = select_impl(v, d, need_env(t.env, "getitem").create_unbacked_symint(), "getitem")
        elif is_tensor(item) and item.ndim == 0 and item.dtype in (bool_, uint8):
            # a 0-d mask is a new size-1 dim indexed by a 1-element mask: size 0 or 1, data-dependent
            v = unsqueeze_view(v, d)
            indexed.append((d, new_tensor(t.env, (1,), bool_)))
            d += 1
        elif _is_index_tensor(item):
            idx = _as_index_tensor(t, item)
            indexed.append((d, idx))
            d += idx.ndim if idx.dtype in (bool_, uint8) else 1
        else:
            raise ShapeError(f"getitem: unsupported index {item!r} of type {type(item).__name__}; use ints, slices, "
                             "None, Ellipsis, lists or integer/boolean tensors")
    return _advanced(v, indexed) if indexed else v


@rule("index_select")
def index_select(input: FakeTensor, dim: int, index: FakeTensor) -> FakeTensor:  # noqa: A002
    """``input.index_select(dim, index)``: ``index`` (1-d, int32/int64) picks entries along ``dim``; a new tensor.

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); x = env.fake_tensor((5, 3), name="x"); i = env.fake_tensor((7,), "int64", name="i")
    >>> index_select(x, 0, i).shape
    (s2, s1)
    """
    check_tensor(input, "index_select")
    check_tensor(index, "index_select", "index")
    if index.ndim > 1:
        raise ShapeError(f"index_select: index is supposed to be a vector, got shape {fmt_shape(index.shape)}")
    if index.dtype not in (int32, int64):
        raise ShapeError(f"index_select: expected dtype int32 or int64 for index, got {index.dtype}")
    d = canonical_dim(dim, input.ndim, "index_select")
    n = index.numel()
    if input.ndim == 0:
        require(n == 1, lambda: f"index_select: index to a scalar can have only 1 value, got {n} value(s)")
        return new_tensor(input.env, (), input.dtype)
    return new_tensor(input.env, input.shape[:d] + (n,) + input.shape[d + 1:], input.dtype)


@rule("gather")
def gather(input: FakeTensor, dim: int, index: FakeTensor) -> FakeTensor:  # noqa: A002
    """``torch.gather(input, dim, index)``: the result has ``index``'s shape, which may not exceed ``input``'s off ``dim``.

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); x = env.fake_tensor((5, 3), name="x"); i = env.fake_tensor((7, 2), "int64", name="i")
    >>> gather(x, 0, i).shape
    (s2, s3)
    """
    check_tensor(input, "gather")
    check_tensor(index, "gather", "index")
    if index.dtype != int64:
        raise ShapeError(f"gather: expected dtype int64 for index, got {index.dtype}")
    d = canonical_dim(dim, input.ndim, "gather")
    if max(index.ndim, 1) != max(input.ndim, 1):
        raise ShapeError(f"gather: index tensor must have the same number of dimensions as input tensor, got "
                         f"index {fmt_shape(index.shape)} and input {fmt_shape(input.shape)}")
    for k in range(index.ndim):
        if k != d and input.ndim:
            require(index.shape[k] <= input.shape[k], lambda k=k: (
                f"gather: size does not match at dimension {k}: expected index {fmt_shape(index.shape)} to be no "
                f"larger than self {fmt_shape(input.shape)} apart from dimension {d}"))
    return new_tensor(input.env, index.shape, input.dtype)
