"""Masks and bounds: ``masked_fill``, ``tril``/``triu`` and ``clamp``/``clip`` (and their in-place forms).

* ``masked_fill(input, mask, value)``: ``mask`` is a bool tensor; out of place, ``input`` and
  ``mask`` broadcast together (the result may be larger than ``input``) and the result is a
  contiguous copy with ``input``'s dtype, as ATen's ``expand_outplace`` + ``clone`` give. In
  place, ``mask`` must broadcast to ``input``'s shape. ``value`` is a number or a 0-d tensor.
* ``tril``/``triu(input, diagonal=0)``: at least 2-d; a contiguous result.
* ``clamp(input, min=None, max=None)``: scalar bounds or tensor bounds (not mixed, not both
  None); tensor bounds broadcast with ``input``; the dtype is torch's ``result_type`` over all
  three (an integer tensor clamped to ``0.5`` is float32) and the layout is ``TensorIterator``'s.

Broadcasting decides sizes as :func:`~shapeenv.ops.rules.elementwise.broadcast_shapes` does: a
guard only when the sizes are neither provably equal nor provably 1.

>>> from shapeenv import ShapeEnv
>>> env = ShapeEnv(); x = env.fake_tensor((4, 3), name="x"); m = env.fake_tensor((3,), "bool", name="m")
>>> masked_fill(x.t(), m[:, None], 0.0).stride(), tril(x, -1).shape, clamp(x.long(), 0.5).dtype
((s0, 1), (s0, s1), float32)
"""

from __future__ import annotations

import math
from typing import Any

from symint import SymFloat, SymInt

from shapeenv.errors import ShapeError
from shapeenv.tensor.dtypes import bool_
from shapeenv.tensor.tensor import FakeTensor
from shapeenv.ops.common import check_inplace, check_tensor, fmt_shape, new_tensor
from shapeenv.ops.rules.elementwise import broadcast_shapes, pointwise_strides
from shapeenv.ops.promotion import result_type
from shapeenv.ops.dispatch import is_tensor
from shapeenv.ops.registry import rule

__all__ = ["masked_fill", "masked_fill_", "tril", "triu", "tril_", "triu_", "clamp", "clamp_"]



def _check_mask(op: str, mask: Any) -> FakeTensor:
    check_tensor(mask, op, "mask")
    if mask.dtype != bool_:
        raise ShapeError(f"{op}: only supports boolean masks, but got mask with dtype {mask.dtype}",
                         fix="compare to get a bool mask: mask != 0")
    return mask


def _check_value(op: str, input: FakeTensor, value: Any) -> None:
    if is_tensor(value):
        if value.ndim:
            raise ShapeError(f"{op}: only supports a 0-dimensional value tensor, but got tensor with {value.ndim} "
                             f"dimension(s)", fix="pass a number or a 0-d tensor (value.reshape(()) if it has one element)")
        return
    if isinstance(value, bool) or isinstance(value, (int, SymInt)):
        return
    if isinstance(value, SymFloat):
        return
    if isinstance(value, float):
        if not input.dtype.is_floating_point and input.dtype != bool_ and not math.isfinite(value):
            raise ShapeError(f"{op}: value cannot be converted to type {input.dtype} without overflow (got {value})",
                             fix="fill an integer tensor with an integer, e.g. its dtype's minimum")
        return
    raise ShapeError(f"{op}: value must be a number or a 0-d tensor, got {value!r} of type {type(value).__name__}")


@rule("masked_fill")
def masked_fill(input: FakeTensor, mask: FakeTensor, value: Any) -> FakeTensor:
    """``torch.masked_fill(input, mask, value)`` (see the module docstring).

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); x = env.fake_tensor((3,), name="x"); m = env.fake_tensor((2, 3), "bool", name="m")
    >>> masked_fill(x, m, float("-inf")).shape
    (s1, s0)
    """
    check_tensor(input, "masked_fill")
    _check_mask("masked_fill", mask)
    _check_value("masked_fill", input, value)
    shape = broadcast_shapes(input.shape, mask.shape, op="masked_fill")
    return new_tensor(input.env, shape, input.dtype)


@rule("masked_fill_")
def masked_fill_(input: FakeTensor, mask: FakeTensor, value: Any) -> FakeTensor:
    """``input.masked_fill_(mask, value)``: ``mask`` broadcasts to ``input``'s shape; returns ``input``.

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); x = env.fake_tensor((2, 3), name="x")
    >>> masked_fill_(x, x > 0, 1.0) is x, x.version
    (True, 1)
    """
    check_tensor(input, "masked_fill_")
    _check_mask("masked_fill_", mask)
    _check_value("masked_fill_", input, value)
    check_inplace("masked_fill_", input, broadcast_shapes(input.shape, mask.shape, op="masked_fill_"))
    input.storage.version += 1
    return input


def _triangle(op: str, input: FakeTensor, diagonal: Any) -> None:
    check_tensor(input, op)
    if input.ndim < 2:
        raise ShapeError(f"{op}: input tensor must have at least 2 dimensions, got shape {fmt_shape(input.shape)}")
    if isinstance(diagonal, bool) or not isinstance(diagonal, (int, SymInt)):
        raise ShapeError(f"{op}: diagonal must be an int, got {diagonal!r}")


@rule("tril")
def tril(input: FakeTensor, diagonal: Any = 0) -> FakeTensor:
    """``torch.tril(input, diagonal=0)``: the lower triangle of the last two dims; a contiguous copy.

    >>> from shapeenv import ShapeEnv
    >>> tril(ShapeEnv().fake_tensor((3, 4)).t()).stride()
    (s0, 1)
    """
    _triangle("tril", input, diagonal)
    return new_tensor(input.env, input.shape, input.dtype)


@rule("triu")
def triu(input: FakeTensor, diagonal: Any = 0) -> FakeTensor:
    """``torch.triu(input, diagonal=0)``: the upper triangle; a contiguous copy.

    >>> from shapeenv import ShapeEnv
    >>> triu(ShapeEnv().fake_tensor((2, 3, 4)), 1).shape
    (s0, s1, s2)
    """
    _triangle("triu", input, diagonal)
    return new_tensor(input.env, input.shape, input.dtype)


@rule("tril_")
def tril_(input: FakeTensor, diagonal: Any = 0) -> FakeTensor:
    """``input.tril_(diagonal=0)``: in place, returns ``input``.

    >>> from shapeenv import ShapeEnv
    >>> x = ShapeEnv().fake_tensor((3, 3)); tril_(x) is x
    True
    """
    _triangle("tril_", input, diagonal)
    input.storage.version += 1
    return input


@rule("triu_")
def triu_(input: FakeTensor, diagonal: Any = 0) -> FakeTensor:
    """``input.triu_(diagonal=0)``: in place, returns ``input``.

    >>> from shapeenv import ShapeEnv
    >>> x = ShapeEnv().fake_tensor((3, 3)); triu_(x).version
    1
    """
    _triangle("triu_", input, diagonal)
    input.storage.version += 1
    return input


def _clamp_args(op: str, input: FakeTensor, min: Any, max: Any) -> list:
    check_tensor(input, op)
    if min is None and max is None:
        raise ShapeError(f"{op}: At least one of 'min' or 'max' must not be None",
                         fix=f"pass a bound: {op}(x, min=0)")
    bounds = [b for b in (min, max) if b is not None]
    tensors = [b for b in bounds if is_tensor(b)]
    if tensors and len(tensors) != len(bounds):
        raise ShapeError(f"{op}: min and max must both be tensors or both be numbers (or None), got "
                         f"{type(min).__name__} and {type(max).__name__}")
    for b in bounds:
        if not is_tensor(b) and (isinstance(b, str) or not isinstance(b, (bool, int, float, SymInt, SymFloat))):
            raise ShapeError(f"{op}: min and max must be numbers or tensors, got {b!r}")
    if result_type(input, *bounds, op=op) == bool_:
        raise ShapeError(f'{op}: "clamp" is not implemented for bool', fix="convert the input first: x.int()")
    return tensors


@rule("clamp")
def clamp(input: FakeTensor, min: Any = None, max: Any = None) -> FakeTensor:  # noqa: A002  (torch's names)
    """``torch.clamp(input, min=None, max=None)`` (also ``clip``, ``clamp_min``, ``clamp_max``).

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); x = env.fake_tensor((4,), name="x"); lo = env.fake_tensor((3, 1), name="lo")
    >>> clamp(x, lo).shape, clamp(x, max=1).dtype
    ((s1, s0), float32)
    """
    tensors = _clamp_args("clamp", input, min, max)
    operands = [input, *tensors]
    shape = broadcast_shapes(*(t.shape for t in operands), op="clamp")
    return FakeTensor(input.env, shape, result_type(input, min, max, op="clamp"),
                      stride=pointwise_strides(shape, operands))


@rule("clamp_")
def clamp_(input: FakeTensor, min: Any = None, max: Any = None) -> FakeTensor:  # noqa: A002
    """``input.clamp_(min=None, max=None)``: in place; the bounds broadcast to ``input`` and their dtype casts to it.

    >>> from shapeenv import ShapeEnv
    >>> x = ShapeEnv().fake_tensor((2, 3)); clamp_(x, 0) is x
    True
    """
    tensors = _clamp_args("clamp_", input, min, max)
    check_inplace("clamp_", input, broadcast_shapes(input.shape, *(t.shape for t in tensors), op="clamp_"),
                  result_type(input, min, max, op="clamp_"))
    input.storage.version += 1
    return input
