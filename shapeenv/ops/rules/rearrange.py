"""Rearranging and comparing ops real models call: ``pixel_shuffle``/``pixel_unshuffle``, ``meshgrid``,
``roll`` and ``cosine_similarity``.

* ``pixel_shuffle(input, upscale_factor)``: ``(*, C * r * r, H, W) -> (*, C, H * r, W * r)``; the
  channel count must be divisible by ``r * r`` (a guard, or a runtime assert on an unbacked size, as
  torch's check must decide it); contiguous, channels-last for a channels-last 4-d input.
* ``pixel_unshuffle(input, downscale_factor)``: the inverse; ``H`` and ``W`` must be divisible by ``r``.
* ``meshgrid(*tensors, indexing=None)``: 0-d or 1-d tensors of one dtype; every result has the
  shape of the sizes (the first two swapped for ``indexing="xy"``; None is torch's default "ij") and is
  an expanded view of its input (stride 0 along the other dims).
* ``cosine_similarity(x1, x2, dim=1, eps=1e-8)``: the broadcast shape without ``dim``; the common
  dtype must be floating point (int with float promotes); contiguous.
* ``roll(input, shifts, dims=None)``: the input's shape and dtype, contiguous (channels-last when the
  input suggests it and ``dims`` is given, as torch's ``cat`` of the two pieces does); ``shifts`` and
  ``dims`` must have the same length (``dims=None`` flattens: one shift).

>>> from shapeenv import ShapeEnv
>>> env = ShapeEnv(); x = env.fake_tensor((2, 12, 3, 5), name="x")
>>> pixel_shuffle(x, 2).shape, [g.shape for g in meshgrid(x[0, :, 0, 0], x[0, 0, :, 0], indexing="xy")]
((s0, FloorDiv(s1, 4), 2*s2, 2*s3), [(s2, s1), (s2, s1)])
"""

from __future__ import annotations

from typing import Any

from shapeenv.errors import ShapeError
from shapeenv.tensor import layout
from shapeenv.tensor.tensor import FakeTensor
from shapeenv.ops.common import canonical_dim, check_tensor, fmt_shape, make_view, new_tensor, require
from shapeenv.ops.rules.elementwise import _result_dtype, broadcast_shapes
from shapeenv.ops.registry import rule
from shapeenv.ops.rules.shape_ops import expand_impl

__all__ = ["pixel_shuffle", "pixel_unshuffle", "meshgrid", "cosine_similarity", "roll"]


def _factor(op: str, input: FakeTensor, r: Any, what: str) -> None:
    check_tensor(input, op)
    if isinstance(r, bool) or not isinstance(r, int):
        raise ShapeError(f"{op}: {what} must be an int, got {r!r}")
    if input.ndim < 3:
        raise ShapeError(f"{op} expects input to have at least 3 dimensions, but got input with {input.ndim} "
                         f"dimension(s)", fix="add a channel dim first: x.unsqueeze(0)")
    if r <= 0:
        raise ShapeError(f"{op} expects a positive {what}, but got {r}")


def _shuffled(input: FakeTensor, shape: tuple) -> FakeTensor:
    cl = input.ndim == 4 and layout.suggest_memory_format(input.shape, input.stride()) == "channels_last"
    return new_tensor(input.env, shape, input.dtype, layout.channels_last_strides(shape) if cl else None)


@rule("pixel_shuffle")
def pixel_shuffle(input: FakeTensor, upscale_factor: int) -> FakeTensor:  # noqa: A002
    """``F.pixel_shuffle(input, upscale_factor)``.

    >>> from shapeenv import ShapeEnv
    >>> pixel_shuffle(ShapeEnv().fake_tensor((8, 3, 5), dynamic=False), 2).shape
    (2, 6, 10)
    """
    _factor("pixel_shuffle", input, upscale_factor, "upscale_factor")
    r = upscale_factor
    *batch, c, h, w = input.shape
    require(c % (r * r) == 0, lambda: (
        f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of upscale_factor, "
        f"but input.size(-3)={c} is not divisible by {r * r} (input of size {fmt_shape(input.shape)})"))
    return _shuffled(input, (*batch, c // (r * r), h * r, w * r))


@rule("pixel_unshuffle")
def pixel_unshuffle(input: FakeTensor, downscale_factor: int) -> FakeTensor:  # noqa: A002
    """``F.pixel_unshuffle(input, downscale_factor)``.

    >>> from shapeenv import ShapeEnv
    >>> pixel_unshuffle(ShapeEnv().fake_tensor((3, 4, 6), dynamic=False), 2).shape
    (12, 2, 3)
    """
    _factor("pixel_unshuffle", input, downscale_factor, "downscale_factor")
    r = downscale_factor
    *batch, c, h, w = input.shape
    for what, d, size in (("height", -2, h), ("width", -1, w)):
        require(size % r == 0, lambda what=what, d=d, size=size: (
            f"pixel_unshuffle expects {what} to be divisible by downscale_factor, but input.size({d})={size} is not "
            f"divisible by {r} (input of size {fmt_shape(input.shape)})"))
    return _shuffled(input, (*batch, c * r * r, h // r, w // r))


@rule("meshgrid")
def meshgrid(*tensors: Any, indexing: Any = None) -> tuple:
    """``torch.meshgrid(*tensors, indexing=None)`` (the tensors also as one list).

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); a, b = env.fake_tensor((3,), name="a"), env.fake_tensor((4,), name="b")
    >>> [g.stride() for g in meshgrid(a, b, indexing="ij")]
    [(1, 0), (0, 1)]
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise ShapeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    if not tensors:
        raise ShapeError("torch.meshgrid: expects a non-empty TensorList", fix="pass at least one tensor")
    for t in tensors:
        check_tensor(t, "meshgrid", "each tensor")
        if t.ndim > 1:
            raise ShapeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got a {t.ndim}-d one "
                             f"of size {fmt_shape(t.shape)}", fix="flatten it first: t.flatten()")
        if t.dtype != tensors[0].dtype:
            raise ShapeError(f"meshgrid expects all tensors to have the same dtype: {tensors[0].dtype} and {t.dtype}",
                             fix=f"convert them first: t.to({tensors[0].dtype})")
    order = list(tensors)
    swap = indexing == "xy" and len(order) >= 2
    if swap:
        order[0], order[1] = order[1], order[0]
    sizes = [t.shape[0] if t.ndim else 1 for t in order]
    grids = []
    for k, t in enumerate(order):
        n, st = sizes[k], (t.stride(0) if t.ndim else 1)
        shape = [1] * k + [n] + [1] * (len(order) - k - 1)
        view = make_view(t, shape, [st * n] * k + [st] + [st] * (len(order) - k - 1))
        grids.append(expand_impl(view, sizes))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


@rule("cosine_similarity")
def cosine_similarity(x1: FakeTensor, x2: FakeTensor, dim: int = 1, eps: float = 1e-8) -> FakeTensor:
    """``F.cosine_similarity(x1, x2, dim=1, eps=1e-8)``.

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); cosine_similarity(env.fake_tensor((4, 1, 3), name="a"), env.fake_tensor((5, 3), name="b"), -1).shape
    (s0, s2)
    """
    check_tensor(x1, "cosine_similarity", "x1")
    check_tensor(x2, "cosine_similarity", "x2")
    dtype = _result_dtype(x1, x2)
    if not dtype.is_floating_point:
        raise ShapeError(f"cosine_similarity: expected common dtype to be floating point, yet common dtype is {dtype}",
                         fix="convert the inputs first: x1.float()")
    shape = broadcast_shapes(x1.shape, x2.shape, op="cosine_similarity")
    d = canonical_dim(dim, len(shape), "cosine_similarity")
    return new_tensor(x1.env, shape[:d] + shape[d + 1:] if shape else (), dtype)


def _int_list(value: Any, op: str, what: str) -> list:
    items = [value] if isinstance(value, int) and not isinstance(value, bool) else value
    if not isinstance(items, (list, tuple)) or any(isinstance(v, bool) or not isinstance(v, int) for v in items):
        raise ShapeError(f"{op}: {what} must be an int or a sequence of ints, got {value!r}")
    return list(items)


@rule("roll")
def roll(input: FakeTensor, shifts: Any, dims: Any = None) -> FakeTensor:  # noqa: A002
    """``torch.roll(input, shifts, dims=None)``.

    >>> from shapeenv import ShapeEnv
    >>> roll(ShapeEnv().fake_tensor((4, 3), name="x").t(), 1, 0).stride()
    (s0, 1)
    """
    check_tensor(input, "roll")
    shift_list = _int_list(shifts, "roll", "shifts")
    dim_list = [] if dims is None else _int_list(dims, "roll", "dims")
    if not shift_list:
        raise ShapeError("roll: `shifts` required", fix="pass at least one shift: torch.roll(x, 1, 0)")
    if dims is None and len(shift_list) == 1:
        return new_tensor(input.env, input.shape, input.dtype)
    if len(shift_list) != len(dim_list):
        raise ShapeError(f"roll: shifts and dimensions must align. shifts: {len(shift_list)}, dims:{len(dim_list)}",
                         fix="pass one dim per shift: torch.roll(x, (1, 2), (0, 1))")
    for d in dim_list:
        canonical_dim(d, input.ndim, "roll")
    cl = input.ndim == 4 and layout.suggest_memory_format(input.shape, input.stride()) == "channels_last"
    return new_tensor(input.env, input.shape, input.dtype, layout.channels_last_strides(input.shape) if cl else None)
