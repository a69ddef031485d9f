"""Bitwise and logical ops: ``bitwise_and/or/xor/not`` (the operators ``& | ^ ~``) and ``logical_and/or/xor/not``.

Bitwise ops take bool and integer tensors (and Python ints/bools); their dtype is torch's
``result_type`` (a bool tensor ``& 3`` is int64, ``& True`` stays bool), floats are refused.
Logical ops take two tensors (no Python scalars, as in torch) of any dtypes and give bool. Operands broadcast; outputs are laid out as
``TensorIterator`` lays them out.

>>> from shapeenv import ShapeEnv
>>> env = ShapeEnv(); m = env.fake_tensor((4, 3), "bool", name="m"); k = env.fake_tensor((3,), "int32", name="k")
>>> (m & k).dtype, (~m).dtype, logical_and(m, k.float()).dtype, (m | True).shape
(int32, bool, bool, (s0, s1))
"""

from __future__ import annotations

from typing import Any

from shapeenv.errors import ShapeError
from shapeenv.tensor.dtypes import bool_
from shapeenv.tensor.tensor import FakeTensor
from shapeenv.core.messages import short_repr
from shapeenv.ops.common import check_inplace, check_tensor
from shapeenv.ops.rules.elementwise import broadcast_shapes, pointwise_strides
from shapeenv.ops.promotion import result_type
from shapeenv.ops.dispatch import is_tensor
from shapeenv.ops.registry import rule

__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "logical_and", "logical_or", "logical_xor",
           "logical_not", "bitwise_and_", "bitwise_or_", "bitwise_xor_", "logical_not_"]

def _operands(op: str, a: Any, b: Any) -> list:
    tensors = [t for t in (a, b) if is_tensor(t)]
    if not tensors:
        raise ShapeError(f"{op}: expected at least one tensor, got {short_repr(a)} and {short_repr(b)}")
    return tensors


def _bitwise(op: str, a: Any, b: Any) -> FakeTensor:
    tensors = _operands(op, a, b)
    dtype = result_type(a, b, op=op)
    if dtype.is_floating_point:
        raise ShapeError(f'{op}: "{op}_cpu" not implemented for {dtype}: bitwise ops need bool or integer tensors',
                         fix="use logical_and/logical_or for truth values, or convert: x.bool() / x.long()")
    shape = broadcast_shapes(*(t.shape for t in tensors), op=op)
    return FakeTensor(tensors[0].env, shape, dtype, stride=pointwise_strides(shape, tensors))


def _logical(op: str, a: Any, b: Any) -> FakeTensor:
    check_tensor(a, op, "input")
    check_tensor(b, op, "other")  # torch.logical_* take no Python scalars
    tensors = [a, b]
    shape = broadcast_shapes(*(t.shape for t in tensors), op=op)
    return FakeTensor(tensors[0].env, shape, bool_, stride=pointwise_strides(shape, tensors))


@rule("bitwise_and")
def bitwise_and(input: Any, other: Any) -> FakeTensor:
    """``torch.bitwise_and(input, other)`` (``input & other``).

    >>> from shapeenv import ShapeEnv
    >>> m = ShapeEnv().fake_tensor((2,), "bool"); bitwise_and(m, 3).dtype
    int64
    """
    return _bitwise("bitwise_and", input, other)


@rule("bitwise_or")
def bitwise_or(input: Any, other: Any) -> FakeTensor:
    """``torch.bitwise_or(input, other)`` (``input | other``).

    >>> from shapeenv import ShapeEnv
    >>> m = ShapeEnv().fake_tensor((2,), "bool"); bitwise_or(m, m).dtype
    bool
    """
    return _bitwise("bitwise_or", input, other)


@rule("bitwise_xor")
def bitwise_xor(input: Any, other: Any) -> FakeTensor:
    """``torch.bitwise_xor(input, other)`` (``input ^ other``).

    >>> from shapeenv import ShapeEnv
    >>> k = ShapeEnv().fake_tensor((2,), "int8"); bitwise_xor(k, 1).dtype
    int8
    """
    return _bitwise("bitwise_xor", input, other)


@rule("bitwise_not")
def bitwise_not(input: FakeTensor) -> FakeTensor:
    """``torch.bitwise_not(input)`` (``~input``): bool or integer tensors.

    >>> from shapeenv import ShapeEnv
    >>> bitwise_not(ShapeEnv().fake_tensor((2, 3), "bool").t()).stride()
    (1, s1)
    """
    check_tensor(input, "bitwise_not")
    if input.dtype.is_floating_point:
        raise ShapeError(f'bitwise_not: "bitwise_not_cpu" not implemented for {input.dtype}',
                         fix="use logical_not for truth values: x.logical_not(), or ~(x != 0)")
    return FakeTensor(input.env, input.shape, input.dtype, stride=pointwise_strides(input.shape, [input]))


@rule("logical_and")
def logical_and(input: Any, other: Any) -> FakeTensor:
    """``torch.logical_and(input, other)``: bool, any input dtypes.

    >>> from shapeenv import ShapeEnv
    >>> x = ShapeEnv().fake_tensor((2,)); logical_and(x, x).dtype
    bool
    """
    return _logical("logical_and", input, other)


@rule("logical_or")
def logical_or(input: Any, other: Any) -> FakeTensor:
    """``torch.logical_or(input, other)``.

    >>> from shapeenv import ShapeEnv
    >>> x = ShapeEnv().fake_tensor((2,)); logical_or(x, x.long()).dtype
    bool
    """
    return _logical("logical_or", input, other)


@rule("logical_xor")
def logical_xor(input: Any, other: Any) -> FakeTensor:
    """``torch.logical_xor(input, other)``.

    >>> from shapeenv import ShapeEnv
    >>> x = ShapeEnv().fake_tensor((2,)); logical_xor(x, x).dtype
    bool
    """
    return _logical("logical_xor", input, other)


@rule("logical_not")
def logical_not(input: FakeTensor) -> FakeTensor:
    """``torch.logical_not(input)``: bool, any input dtype.

    >>> from shapeenv import ShapeEnv
    >>> logical_not(ShapeEnv().fake_tensor((2,), "int64")).dtype
    bool
    """
    check_tensor(input, "logical_not")
    return FakeTensor(input.env, input.shape, bool_, stride=pointwise_strides(input.shape, [input]))


def _bitwise_inplace(op: str, a: FakeTensor, b: Any) -> FakeTensor:
    """``a op= b``: ``b`` broadcasts to ``a``'s shape and the result dtype casts to ``a``'s (a bool ``&= 3`` fails)."""
    check_tensor(a, op)
    out = _bitwise(op, a, b)
    check_inplace(op, a, out.shape, out.dtype)
    a.storage.version += 1
    return a


@rule("bitwise_and_")
def bitwise_and_(input: FakeTensor, other: Any) -> FakeTensor:
    """``input &= other`` in place.

    >>> from shapeenv import ShapeEnv
    >>> m = ShapeEnv().fake_tensor((2, 3), "bool"); bitwise_and_(m, m[0]) is m, m.version
    (True, 1)
    """
    return _bitwise_inplace("bitwise_and_", input, other)


@rule("bitwise_or_")
def bitwise_or_(input: FakeTensor, other: Any) -> FakeTensor:
    """``input |= other`` in place.

    >>> from shapeenv import ShapeEnv
    >>> m = ShapeEnv().fake_tensor((2, 3), "bool"); bitwise_or_(m, True).dtype
    bool
    """
    return _bitwise_inplace("bitwise_or_", input, other)


@rule("bitwise_xor_")
def bitwise_xor_(input: FakeTensor, other: Any) -> FakeTensor:
    """``input ^= other`` in place.

    >>> from shapeenv import ShapeEnv
    >>> k = ShapeEnv().fake_tensor((2,), "int32"); bitwise_xor_(k, 1).dtype
    int32
    """
    return _bitwise_inplace("bitwise_xor_", input, other)


@rule("logical_not_")
def logical_not_(input: FakeTensor) -> FakeTensor:
    """``input.logical_not_()`` in place (the input keeps its dtype).

    >>> from shapeenv import ShapeEnv
    >>> m = ShapeEnv().fake_tensor((2,), "bool"); logical_not_(m) is m
    True
    """
    check_tensor(input, "logical_not_")
    input.storage.version += 1
    return input
