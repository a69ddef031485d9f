"""torch's ``result_type``: the dtype of an op over tensors and Python scalars.

Operands fall in three priority classes: tensors with dims, 0-d tensors, and Python scalars
(``bool``, ``int``/``SymInt``, ``float``/``SymFloat``). Each class promotes within itself; a
lower class changes the result only when it is of a higher category (bool < integer < floating),
as c10's ``combine_categories`` does. A Python float counts as the default dtype, float32.

>>> from shapeenv import ShapeEnv
>>> env = ShapeEnv()
>>> x = env.fake_tensor((2, 3), "int32", name="x"); z = env.fake_tensor((), "float64", name="z")
>>> result_type(x, 1), result_type(x, 1.5), result_type(x, z), result_type(x.float(), z)
(int32, float32, float64, float32)
"""

from __future__ import annotations

from typing import Any

from symint import SymBool, SymFloat, SymInt

from shapeenv.errors import ShapeError
from shapeenv.tensor.dtypes import DType, bool_, float32, int64, promote
from shapeenv.core.messages import short_repr
from shapeenv.ops.dispatch import is_tensor

__all__ = ["result_type", "scalar_dtype"]


def scalar_dtype(value: Any, op: str) -> DType:
    """The dtype a Python scalar stands for (``bool``, int64, or the default float32).

    Raises:
        ShapeError: ``value`` is not a number.

    >>> scalar_dtype(True, "f"), scalar_dtype(3, "f"), scalar_dtype(0.5, "f")
    (bool, int64, float32)
    """
    if isinstance(value, (bool, SymBool)):
        return bool_
    if isinstance(value, (int, SymInt)):
        return int64
    if isinstance(value, (float, SymFloat)):
        return float32
    raise ShapeError(f"{op}: expected a tensor or a number, got {short_repr(value)} of type {type(value).__name__}")


def _combine(higher: DType | None, lower: DType | None) -> DType | None:
    """c10's ``combine_categories`` (no complex dtypes here)."""
    if higher is None:
        return lower
    if lower is None or higher.is_floating_point:
        return higher
    if higher == bool_ or lower.is_floating_point:
        return promote(higher, lower)
    return higher


def _join(acc: DType | None, d: DType) -> DType:
    return d if acc is None else promote(acc, d)


def result_type(*operands: Any, op: str = "result_type") -> DType:
    """The dtype torch computes for ``operands`` (tensors and scalars; None entries are skipped).

    Raises:
        ShapeError: no operand, or one that is neither a tensor nor a number.
    """
    dims = zero = wrapped = None
    for v in operands:
        if v is None:
            continue
        if is_tensor(v):
            if v.ndim:
                dims = _join(dims, v.dtype)
            else:
                zero = _join(zero, v.dtype)
        else:
            wrapped = _join(wrapped, scalar_dtype(v, op))
    out = _combine(dims, _combine(zero, wrapped))
    if out is None:
        raise ShapeError(f"{op}: expected at least one operand")
    return out
