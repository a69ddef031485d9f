"""Elementwise ops: broadcasting, dtype promotion, unary ops, clone and in-place updates.

>>> from shapeenv import ShapeEnv
>>> env = ShapeEnv()
>>> x = env.fake_tensor((5, 1), name="x"); y = env.fake_tensor((3,), name="y")
>>> (x + y).shape
(s0, s1)
"""

from __future__ import annotations

from typing import Any

from symint import SymInt

from ..errors import ShapeError
from ..fake.dtypes import DType, bool_, float32, int64, promote
from ..fake.tensor import FakeTensor
from .registry import is_tensor, rule

__all__ = ["broadcast_shapes", "broadcast_dim"]


def _is_one(size: Any) -> bool:
    env = getattr(getattr(size, "node", None), "env", None)
    if isinstance(size, SymInt):
        return env.guard_or_false(size == 1) if env is not None else False
    return size == 1


def broadcast_dim(a: Any, b: Any, op: str = "broadcast", where: str = "") -> Any:
    """The broadcast of two sizes: equal, or one of them 1 (decided statically if possible, else guarded)."""
    if _is_one(a):
        return b
    if _is_one(b):
        return a
    if a is b or (isinstance(a, int) and isinstance(b, int) and a == b):
        return a
    if bool(a == b):  # statically or by the hints, recording a guard that unifies them
        return a
    raise ShapeError(f"{op}: sizes {a} and {b} cannot be broadcast together{where} (they differ and neither is 1)")


def broadcast_shapes(*shapes: tuple, op: str = "broadcast") -> tuple:
    """The broadcast of several shapes, aligned from the right.

    >>> broadcast_shapes((2, 1), (3,))
    (2, 3)
    """
    ndim = max((len(s) for s in shapes), default=0)
    out: list[Any] = [1] * ndim
    for shape in shapes:
        for i, size in enumerate(shape):
            j = ndim - len(shape) + i
            out[j] = broadcast_dim(out[j], size, op, f" at dimension {j - ndim}")
    return tuple(out)


def _dtype_of(value: Any) -> DType:
    if is_tensor(value):
        return value.dtype
    if isinstance(value, bool):
        return bool_
    if isinstance(value, (int, SymInt)):
        return int64
    if isinstance(value, float):
        return float32
    raise ShapeError(f"unsupported operand {value!r} of type {type(value).__name__}")


def _result_dtype(a: Any, b: Any) -> DType:
    # A Python scalar does not widen a tensor of the same category (torch's rule).
    if is_tensor(a) and not is_tensor(b):
        da, db = a.dtype, _dtype_of(b)
        return da if da.kind == db.kind or da.is_floating_point else promote(da, db)
    if is_tensor(b) and not is_tensor(a):
        return _result_dtype(b, a)
    return promote(_dtype_of(a), _dtype_of(b))


def _binary(op: str, a: Any, b: Any, dtype: DType | None = None) -> FakeTensor:
    tensors = [t for t in (a, b) if is_tensor(t)]
    if not tensors:
        raise ShapeError(f"{op}: expected at least one tensor, got {a!r} and {b!r}")
    shape = broadcast_shapes(*(t.shape for t in tensors), op=op)
    return FakeTensor(tensors[0].env, shape, dtype or _result_dtype(a, b))


@rule("add")
def add(a: Any, b: Any) -> FakeTensor:
    """``a + b`` with broadcasting."""
    return _binary("add", a, b)


@rule("sub")
def sub(a: Any, b: Any) -> FakeTensor:
    """``a - b`` with broadcasting."""
    return _binary("sub", a, b)


@rule("mul")
def mul(a: Any, b: Any) -> FakeTensor:
    """``a * b`` with broadcasting."""
    return _binary("mul", a, b)


@rule("div")
def div(a: Any, b: Any) -> FakeTensor:
    """``a / b`` with broadcasting; integer inputs give float32, as in torch."""
    dtype = _result_dtype(a, b)
    return _binary("div", a, b, dtype if dtype.is_floating_point else float32)


@rule("neg")
def neg(a: FakeTensor) -> FakeTensor:
    """``-a``."""
    return FakeTensor(a.env, a.shape, a.dtype)


@rule("clone")
def clone(a: FakeTensor) -> FakeTensor:
    """A copy of ``a`` with new, contiguous storage."""
    return FakeTensor(a.env, a.shape, a.dtype)


@rule("add_")
def add_(a: FakeTensor, b: Any) -> FakeTensor:
    """In-place ``a += b``: ``b`` must broadcast to ``a``'s shape; bumps ``a``'s version counter."""
    shape = broadcast_shapes(a.shape, b.shape if is_tensor(b) else (), op="add_")
    if len(shape) != len(a.shape):
        raise ShapeError(f"add_: the result shape {shape} does not match the in-place target {a.shape}")
    a.storage.version += 1
    return a
