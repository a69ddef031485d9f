"""Bitwise and logical ops: ``bitwise_and/or/xor/not`` (the operators ``& | ^ ~``) and ``logical_and/or/xor/not``.

Bitwise ops take bool and integer tensors (and Python ints/bools); their dtype is torch's
``result_type`` (a bool tensor ``& 3`` is int64, ``& True`` stays bool), floats are refused.
Logical ops take two tensors (no Python scalars, as in torch) of any dtypes and give bool. Operands broadcast; outputs are laid out as
``TensorIterator`` lays them out.

>>> from shapeenv import ShapeEnv, ops
>>> env = ShapeEnv(); m = env.fake_tensor((4, 3), "bool", name="m"); k = env.fake_tensor((3,), "int32", name="k")
>>> (m & k).dtype, (~m).dtype, ops.logical_and(m, k.float()).dtype, (m | True).shape, (m ^ 3).dtype
(int32, bool, bool, (s0, s1), int64)
>>> m &= m[0]; m.version
1
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
from shapeenv.ops.registry import rule, rule_family

__all__ = ["bitwise_not", "logical_not", "logical_not_"]


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


rule_family(_bitwise, {
    f"bitwise_{name}": f"``torch.bitwise_{name}(input, other)`` (``input {symbol} other``)."
    for name, symbol in (("and", "&"), ("or", "|"), ("xor", "^"))
}, ("input", "other"))


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


rule_family(_logical, {
    f"logical_{name}": f"``torch.logical_{name}(input, other)``: bool, any input dtypes." for name in ("and", "or", "xor")
}, ("input", "other"))


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


rule_family(_bitwise_inplace, {
    f"bitwise_{name}_": f"``input {symbol}= other`` in place." for name, symbol in (("and", "&"), ("or", "|"), ("xor", "^"))
}, ("input", "other"))


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
