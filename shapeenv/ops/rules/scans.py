"""Ops along one dim: ``cumsum``/``cumprod`` (scans), ``diff`` (their inverse), ``sort``/``argsort`` and ``topk``.

* ``cumsum``/``cumprod(input, dim, dtype=None)``: the input's shape; integer and bool inputs
  accumulate in int64 (unless ``dtype``), as torch does; a contiguous result.
* ``sort``/``argsort(input, dim=-1, descending=False, stable=False)``: values keep the input's
  dtype, indices are int64; both are laid out like the input (``empty_like``'s
  ``preserve_format``).
* ``topk(input, k, dim=None, largest=True, sorted=True)`` (``None``: the last dim): ``k`` may be a SymInt; it must lie in
  ``[0, size]`` (a guard or a runtime assert when that is not provable); the results are
  contiguous with ``k`` in place of the dim. Bool inputs are refused (torch's CPU kernel).
* ``diff(input, n=1, dim=-1, prepend=None, append=None)``: ``n`` forward differences along ``dim``; the
  size becomes ``max(size - n, 0)`` (no guard: the max stays symbolic when it is not provable);
  ``prepend``/``append`` are concatenated first (same rank, the same sizes off ``dim``), so the dtype
  and layout are ``cat``'s. Bool inputs stay bool (``logical_xor``), others keep their dtype; strides
  are TensorIterator's on the narrowed input.

>>> from shapeenv import ShapeEnv
>>> env = ShapeEnv(); x = env.fake_tensor((4, 6), name="x")
>>> topk(x, x.shape[0] // 2).values.shape, sort(x.t(), 0).indices.stride(), cumsum(x.long(), 1).dtype
((s0, FloorDiv(s0, 2)), (1, s1), int64)
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

from symint import SymInt

from shapeenv.errors import ShapeError
from shapeenv.tensor.dtypes import bool_, int64
from shapeenv.tensor.tensor import FakeTensor
from shapeenv.tensor import layout
from shapeenv.ops.common import (as_dtype_arg, canonical_dim, check_tensor, fmt_shape, is_contiguous, like_strides, new_tensor,
                                  require, smax)
from shapeenv.ops.registry import rule
from shapeenv.ops.rules.shape_ops import cat

__all__ = ["cumsum", "cumprod", "diff", "sort", "argsort", "topk"]

SortResult = namedtuple("sort", ["values", "indices"])
TopkResult = namedtuple("topk", ["values", "indices"])


def _scan(op: str, input: FakeTensor, dim: Any, dtype: Any) -> FakeTensor:
    check_tensor(input, op)
    if dim is None:
        raise ShapeError(f"{op}: dim is required", fix=f"pass the dim to accumulate along: {op}(x, dim=-1)")
    canonical_dim(dim, input.ndim, op)
    out = as_dtype_arg(dtype, op) or (input.dtype if input.dtype.is_floating_point else int64)
    return new_tensor(input.env, input.shape, out)


@rule("cumsum")
def cumsum(input: FakeTensor, dim: Any, dtype: Any = None) -> FakeTensor:
    """``torch.cumsum(input, dim, dtype=None)``.

    >>> from shapeenv import ShapeEnv
    >>> cumsum(ShapeEnv().fake_tensor((2, 3), "bool"), -1).dtype
    int64
    """
    return _scan("cumsum", input, dim, dtype)


@rule("cumprod")
def cumprod(input: FakeTensor, dim: Any, dtype: Any = None) -> FakeTensor:
    """``torch.cumprod(input, dim, dtype=None)``.

    >>> from shapeenv import ShapeEnv
    >>> cumprod(ShapeEnv().fake_tensor((2, 3)), 0, dtype="float64").dtype
    float64
    """
    return _scan("cumprod", input, dim, dtype)


def _sorted_like(op: str, input: FakeTensor, dim: Any) -> tuple:
    check_tensor(input, op)
    canonical_dim(dim, input.ndim, op)
    return like_strides(input)


@rule("sort")
def sort(input: FakeTensor, dim: Any = -1, descending: bool = False, stable: bool = False) -> Any:
    """``torch.sort(input, dim=-1, descending=False, stable=False)``: ``(values, indices)``.

    >>> from shapeenv import ShapeEnv
    >>> sort(ShapeEnv().fake_tensor((2, 3), "bool")).indices.dtype
    int64
    """
    strides = _sorted_like("sort", input, dim)
    return SortResult(new_tensor(input.env, input.shape, input.dtype, strides),
                      new_tensor(input.env, input.shape, int64, strides))


@rule("argsort")
def argsort(input: FakeTensor, dim: Any = -1, descending: bool = False, stable: bool = False) -> FakeTensor:
    """``torch.argsort(input, dim=-1, descending=False, stable=False)``: the indices of ``sort``.

    >>> from shapeenv import ShapeEnv
    >>> argsort(ShapeEnv().fake_tensor((2, 3)), 0, True).shape
    (s0, s1)
    """
    return new_tensor(input.env, input.shape, int64, _sorted_like("argsort", input, dim))


@rule("topk")
def topk(input: FakeTensor, k: Any, dim: Any = None, largest: bool = True, sorted: bool = True) -> Any:  # noqa: A002
    """``torch.topk(input, k, dim=None, largest=True, sorted=True)``: ``(values, indices)``; ``dim=None`` is the last
    dim (see the module docstring).

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); r = topk(env.fake_tensor((5, 8), name="x"), 3); r.values.shape, r.indices.dtype
    ((s0, 3), int64)
    """
    check_tensor(input, "topk")
    if isinstance(k, bool) or not isinstance(k, (int, SymInt)):
        raise ShapeError(f"topk: k must be an int or SymInt, got {k!r}")
    if input.dtype == bool_:
        raise ShapeError("topk: topk does not support bool dtypes on CPU", fix="convert the input first: x.int()")
    d = canonical_dim(-1 if dim is None else dim, input.ndim, "topk")
    size = input.shape[d] if input.ndim else 1
    message = lambda: (f"topk: selected index k out of range: k = {k} must be in [0, {size}] "  # noqa: E731
                       f"(the size of dim {d} of the input of size {fmt_shape(input.shape)})")
    require(k >= 0, message)
    require(k <= size, message)
    shape = input.shape[:d] + (k,) + input.shape[d + 1:] if input.ndim else ()
    return TopkResult(new_tensor(input.env, shape, input.dtype), new_tensor(input.env, shape, int64))


def _diff_operand(t: Any, input: FakeTensor, d: int, what: str) -> FakeTensor:
    check_tensor(t, "diff", what)
    if t.ndim != input.ndim:
        raise ShapeError(f"diff expects prepend or append to be the same dimension as input: {what} is {t.ndim}-d, "
                         f"the input {input.ndim}-d", fix=f"give {what} the input's rank, e.g. {what}.unsqueeze({d})")
    for i in range(input.ndim):
        if i != d:
            require(t.shape[i] == input.shape[i], lambda i=i: (
                f"diff expects the shape of tensor to prepend or append to match that of input except along the "
                f"differencing dimension; input.size({i}) = {input.shape[i]}, but got tensor.size({i}) = "
                f"{t.shape[i]} ({what} of size {fmt_shape(t.shape)})"))
    return t


@rule("diff")
def diff(input: FakeTensor, n: int = 1, dim: int = -1, prepend: Any = None, append: Any = None) -> FakeTensor:  # noqa: A002
    """``torch.diff(input, n=1, dim=-1, prepend=None, append=None)``.

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); x = env.fake_tensor((4, 3), name="x")
    >>> diff(x, 2, 0).shape, diff(x, 1, 0, prepend=x).shape
    ((s0 - 2, s1), (2*s0 - 1, s1))
    """
    check_tensor(input, "diff")
    if input.ndim == 0:
        raise ShapeError("diff expects input to be at least one-dimensional", fix="reshape it first: x.reshape(1)")
    if isinstance(n, bool) or not isinstance(n, int):
        raise ShapeError(f"diff: n must be an int, got {n!r}")
    if n < 0:
        raise ShapeError(f"diff: order must be non-negative but got {n}")
    d = canonical_dim(dim, input.ndim, "diff")
    base = input
    extra = [_diff_operand(t, input, d, what) for what, t in (("prepend", prepend), ("append", append)) if t is not None]
    if extra:
        parts = ([prepend] if prepend is not None else []) + [input] + ([append] if append is not None else [])
        base = cat(parts, d)
    if n == 0:
        return base if base is not input else new_tensor(input.env, input.shape, input.dtype, like_strides(input))
    shape = base.shape[:d] + (smax(base.shape[d] - n, 0),) + base.shape[d + 1:]
    if is_contiguous(base):  # a row-major input narrowed along one dim keeps its order: TensorIterator's result is dense
        return new_tensor(input.env, shape, base.dtype)
    if base.ndim == 4 and layout.is_contiguous(base.shape, base.stride(), "channels_last"):
        return new_tensor(input.env, shape, base.dtype, layout.channels_last_strides(shape))
    strides = tuple(base.stride())
    for k in range(1, n + 1):
        step = base.shape[:d] + (smax(base.shape[d] - k, 0),) + base.shape[d + 1:]
        strides = layout.elementwise_strides(step, [(step, strides)])
    return new_tensor(input.env, shape, base.dtype, strides)
