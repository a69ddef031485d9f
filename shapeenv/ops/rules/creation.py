"""New tensors: ``zeros``, ``ones``, ``empty``, ``full``, ``rand``, ``randn``, ``arange`` and the ``*_like`` ops.

Sizes may be symbolic. The environment comes from a symbolic size, the ``env=`` argument, or
the trace running now (``export``/``compile``); with none of those (plain-int sizes outside a
trace) the tensor is detached until an op meets it with tensors of an environment (Note
[Detached tensors] in :mod:`shapeenv.ops.dispatch`). Default dtypes follow torch: float32, except ``full``
(from the fill value: bool, int64 or float32) and ``arange`` (int64 unless an argument is a float).

>>> from shapeenv import ShapeEnv
>>> env = ShapeEnv(); n = env.fake_tensor((6,), name="x").shape[0]
>>> zeros(n, 3).shape, arange(2, n + 10, 3).shape, full((2,), 7, env=env).dtype
((s0, 3), (CeilDiv(s0 + 8, 3),), int64)
"""

from __future__ import annotations

import math
from typing import Any

from symint import SymBool, SymFloat, SymInt

from shapeenv.ops.dispatch import current_env
from shapeenv.errors import ShapeError
from shapeenv.tensor.dtypes import DType, float32, int64
from shapeenv.tensor.tensor import FakeTensor
from shapeenv.ops.common import as_dtype_arg, ceil_div, check_tensor, decide, fmt_shape, like_strides, new_tensor, require, size_args
from shapeenv.ops.dispatch import env_of
from shapeenv.ops.promotion import scalar_dtype
from shapeenv.ops.registry import rule

__all__ = ["zeros", "ones", "empty", "full", "rand", "randn", "arange",
           "zeros_like", "ones_like", "empty_like", "full_like", "rand_like", "randn_like"]


def _env(op: str, values: Any, env: Any):
    """The environment of a new tensor: of a symbolic size, else ``env=``, else the trace running now,
    else None (a detached tensor: see Note [Detached tensors] in :mod:`shapeenv.ops.dispatch`)."""
    found = env_of(values)
    if found is not None:
        return found
    return env if env is not None else current_env()


def _sized(op: str, size: tuple, dtype: Any, env: Any, default: DType = float32) -> FakeTensor:
    shape = size_args(size, op)
    for s in shape:
        require(s >= 0, lambda s=s: f"{op}: trying to create tensor with negative dimension {s}: {fmt_shape(shape)}")
    return new_tensor(_env(op, shape, env), shape, as_dtype_arg(dtype, op) or default)


@rule("zeros")
def zeros(*size: Any, dtype: Any = None, env: Any = None) -> FakeTensor:
    """``torch.zeros(*size)`` (``size`` as several ints or one sequence).

    >>> from shapeenv import ShapeEnv
    >>> zeros((2, 3), env=ShapeEnv()).shape
    (2, 3)
    """
    return _sized("zeros", size, dtype, env)


@rule("ones")
def ones(*size: Any, dtype: Any = None, env: Any = None) -> FakeTensor:
    """``torch.ones(*size)``.

    >>> from shapeenv import ShapeEnv
    >>> ones(ShapeEnv().fake_tensor((4,)).shape[0], 2).shape
    (s0, 2)
    """
    return _sized("ones", size, dtype, env)


@rule("empty")
def empty(*size: Any, dtype: Any = None, env: Any = None) -> FakeTensor:
    """``torch.empty(*size)``.

    >>> from shapeenv import ShapeEnv
    >>> empty(3, env=ShapeEnv()).shape
    (3,)
    """
    return _sized("empty", size, dtype, env)


@rule("rand")
def rand(*size: Any, dtype: Any = None, env: Any = None) -> FakeTensor:
    """``torch.rand(*size)``.

    >>> from shapeenv import ShapeEnv
    >>> rand((2, 2), env=ShapeEnv(), dtype="float64").dtype
    float64
    """
    return _sized("rand", size, dtype, env)


@rule("randn")
def randn(*size: Any, dtype: Any = None, env: Any = None) -> FakeTensor:
    """``torch.randn(*size)``.

    >>> from shapeenv import ShapeEnv
    >>> randn(1, env=ShapeEnv()).shape
    (1,)
    """
    return _sized("randn", size, dtype, env)


def _fill_dtype(value: Any, op: str) -> DType:
    """The dtype a fill value gives (``scalar_dtype``: bool, int64 or float32); a fill value must be a number."""
    if not isinstance(value, (bool, int, float, SymBool, SymInt, SymFloat)):
        raise ShapeError(f"{op}: the fill value must be a bool, int or float, got {value!r}")
    return scalar_dtype(value, op)


@rule("full")
def full(size: Any, fill_value: Any, dtype: Any = None, env: Any = None) -> FakeTensor:
    """``torch.full(size, fill_value)``: the dtype defaults to the fill value's (bool, int64 or float32).

    >>> from shapeenv import ShapeEnv
    >>> full((2,), 1.5, env=ShapeEnv()).dtype
    float32
    """
    size = tuple(size) if isinstance(size, (list, tuple)) else (size,)
    return _sized("full", size, dtype, env, _fill_dtype(fill_value, "full"))


@rule("arange")
def arange(start: Any, end: Any = None, step: Any = 1, dtype: Any = None, env: Any = None) -> FakeTensor:
    """``torch.arange``: ``ceil((end - start) / step)`` elements; ``step`` must point from ``start`` to ``end``.

    Integer (and symbolic integer) arguments give an exact, possibly symbolic length; float arguments
    must be plain Python floats.

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv()
    >>> arange(10, 0, -3, env=env).shape, arange(0.0, 1.0, 0.3, env=env).shape, arange(5, env=env).dtype
    ((4,), (4,), int64)
    """
    if end is None:
        start, end = 0, start
    values = (start, end, step)
    for v in values:
        if isinstance(v, bool) or not isinstance(v, (int, float, SymInt, SymFloat)):
            raise ShapeError(f"arange: start, end and step must be numbers, got {v!r}")
    is_float = any(isinstance(v, (float, SymFloat)) for v in values)
    out_dtype = as_dtype_arg(dtype, "arange") or (float32 if is_float else int64)
    where = _env("arange", values, env)
    if decide(step == 0):
        raise ShapeError("arange: step must be nonzero")
    if is_float:
        if any(isinstance(v, (SymInt, SymFloat)) for v in values):
            raise ShapeError("arange: symbolic float bounds are not supported; use integer bounds or plain floats")
        if not all(math.isfinite(v) for v in values):
            raise ShapeError(f"arange: unsupported range: {start} -> {end} (bounds must be finite)")
        length = math.ceil((end - start) / step)
        if length < 0:
            raise ShapeError(f"arange: upper bound and larger bound inconsistent with step sign ({start}, {end}, {step})")
        return new_tensor(where, (length,), out_dtype)
    positive = decide(step > 0)
    if positive is None:
        raise ShapeError(f"arange: the sign of the step {step} is data-dependent; check(step > 0) first")
    message = lambda: f"arange: upper bound and larger bound inconsistent with step sign (start={start}, end={end}, step={step})"  # noqa: E731
    require(end >= start if positive else end <= start, message)
    length = end - start if isinstance(step, int) and step == 1 else ceil_div(end - start, step)
    return new_tensor(where, (length,), out_dtype)


def _like(op: str, t: FakeTensor, dtype: Any, default: DType | None = None) -> FakeTensor:
    check_tensor(t, op)
    return new_tensor(t.env, t.shape, as_dtype_arg(dtype, op) or default or t.dtype, like_strides(t))


@rule("zeros_like")
def zeros_like(input: FakeTensor, dtype: Any = None) -> FakeTensor:  # noqa: A002
    """``torch.zeros_like(input)``: ``input``'s shape, dtype and (dense, permuted) layout.

    >>> from shapeenv import ShapeEnv
    >>> zeros_like(ShapeEnv().fake_tensor((2, 3)), dtype="int64").dtype
    int64
    """
    return _like("zeros_like", input, dtype)


@rule("ones_like")
def ones_like(input: FakeTensor, dtype: Any = None) -> FakeTensor:  # noqa: A002
    """``torch.ones_like(input)``.

    >>> from shapeenv import ShapeEnv
    >>> ones_like(ShapeEnv().fake_tensor((2, 3))).shape
    (s0, s1)
    """
    return _like("ones_like", input, dtype)


@rule("empty_like")
def empty_like(input: FakeTensor, dtype: Any = None) -> FakeTensor:  # noqa: A002
    """``torch.empty_like(input)``.

    >>> from shapeenv import ShapeEnv
    >>> empty_like(ShapeEnv().fake_tensor((2, 3)).t()).stride()
    (1, s1)
    """
    return _like("empty_like", input, dtype)


@rule("rand_like")
def rand_like(input: FakeTensor, dtype: Any = None) -> FakeTensor:  # noqa: A002
    """``torch.rand_like(input)``.

    >>> from shapeenv import ShapeEnv
    >>> rand_like(ShapeEnv().fake_tensor((2,))).shape
    (s0,)
    """
    return _like("rand_like", input, dtype)


@rule("randn_like")
def randn_like(input: FakeTensor, dtype: Any = None) -> FakeTensor:  # noqa: A002
    """``torch.randn_like(input)``.

    >>> from shapeenv import ShapeEnv
    >>> randn_like(ShapeEnv().fake_tensor((2,)), "float16").dtype
    float16
    """
    return _like("randn_like", input, dtype)


@rule("full_like")
def full_like(input: FakeTensor, fill_value: Any, dtype: Any = None) -> FakeTensor:  # noqa: A002
    """``torch.full_like(input, fill_value)``: ``input``'s dtype unless ``dtype`` is given.

    >>> from shapeenv import ShapeEnv
    >>> full_like(ShapeEnv().fake_tensor((2,), "int32"), 7).dtype
    int32
    """
    _fill_dtype(fill_value, "full_like")
    return _like("full_like", input, dtype)
