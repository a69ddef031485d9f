"""Writes through an index: ``x[index] = value`` (``setitem``), ``index_put`` and ``index_put_``.

The target is what ``x[index]`` reads (:func:`shapeenv.ops.rules.indexing.getitem`: basic indices
give a view, integer and boolean tensors gather, a boolean mask selects a data-dependent count).
``value`` (a number or a tensor of any dtype: it is converted) must *expand* to the target's
shape, as torch's ``copy_``/``index_put_`` require: leading size-1 dims of ``value`` beyond the
target's rank are dropped, and each remaining dim is 1 or the target's size there. A size that
must equal the target's is asked with :func:`~shapeenv.ops.common.require`: a guard when only
the hints decide, a runtime assert when it involves a data-dependent count (``x[mask] = v`` with
a 1-d ``v`` asserts that the mask selects ``len(v)`` elements).

In place, the shape of ``x`` is unchanged and its version counter is bumped (views of ``x``
see the write). ``index_put`` is the out-of-place form: a copy laid out like ``x``.

>>> from shapeenv import ShapeEnv
>>> env = ShapeEnv(); x = env.fake_tensor((4, 5), name="x")
>>> setitem(x, (slice(None), 1), env.fake_tensor((4,), name="v")) is x, x.version, [str(g.expr) for g in env.guards]
(True, 1, [])
"""

from __future__ import annotations

from typing import Any

from symint import SymFloat, SymInt

from shapeenv.errors import ShapeError
from shapeenv.tensor.tensor import FakeTensor
from shapeenv.ops.common import check_tensor, fmt_shape, known_true, like_strides, new_tensor, require
from shapeenv.ops.rules.indexing import getitem
from shapeenv.ops.dispatch import is_tensor
from shapeenv.ops.registry import rule

__all__ = ["setitem", "index_put", "index_put_", "expand_value"]


def expand_value(op: str, value: Any, target: tuple) -> None:
    """Check that ``value`` expands to ``target`` (see the module docstring).

    Raises:
        ShapeError: a dim of ``value`` is neither 1 nor the target's size, or ``value`` has more dims.
    """
    if not is_tensor(value):
        if isinstance(value, (bool, int, float, SymInt, SymFloat)):
            return
        raise ShapeError(f"{op}: the value must be a tensor or a number, got {value!r} of type {type(value).__name__}")
    shape = list(value.shape)
    while len(shape) > len(target) and known_true(shape[0] == 1):
        shape.pop(0)
    message = lambda: (f"{op}: shape mismatch: value tensor of shape {fmt_shape(value.shape)} cannot be broadcast to "  # noqa: E731
                       f"indexing result of shape {fmt_shape(target)}")
    if len(shape) > len(target):
        raise ShapeError(message(), fix="reshape the value to the indexed shape, or drop its leading dims")
    for v, t in zip(shape, target[len(target) - len(shape):]):
        if v is t or known_true(v == 1):
            continue
        require(v == t, message)


@rule("setitem")
def setitem(input: FakeTensor, index: Any, value: Any) -> FakeTensor:
    """``input[index] = value``: in place; returns ``input`` (see the module docstring).

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); x = env.fake_tensor((4, 5), name="x")
    >>> setitem(x, x > 0, 0.0).shape, str(env.bound(env.create_unbacked_symint()))
    ((s0, s1), '[-oo, oo]')
    """
    check_tensor(input, "setitem")
    target = getitem(input, index)
    expand_value("setitem", value, target.shape)
    input.storage.version += 1
    return input


def _put_target(op: str, input: FakeTensor, indices: Any, values: Any) -> None:
    check_tensor(input, op)
    if not isinstance(indices, (tuple, list)):
        raise ShapeError(f"{op}: indices must be a tuple (or list) of tensors, got {indices!r}",
                         fix=f"wrap a single index: {op}((i,), values)")
    for i in indices:
        if not is_tensor(i):
            raise ShapeError(f"{op}: indices must be a tuple of tensors, got {i!r}",
                             fix="index the leading dims you skip with ops.arange(n)[:, None], or use x[:, i] = v")
    check_tensor(values, op, "values")
    target = getitem(input, tuple(indices))
    expand_value(op, values, target.shape)


@rule("index_put_")
def index_put_(input: FakeTensor, indices: Any, values: FakeTensor, accumulate: bool = False) -> FakeTensor:
    """``input.index_put_(indices, values, accumulate=False)``: in place, returns ``input``.

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); x = env.fake_tensor((4, 5), name="x"); i = env.fake_tensor((2,), "int64", name="i")
    >>> index_put_(x, (i,), env.fake_tensor((), name="v")) is x
    True
    """
    _put_target("index_put_", input, indices, values)
    input.storage.version += 1
    return input


@rule("index_put")
def index_put(input: FakeTensor, indices: Any, values: FakeTensor, accumulate: bool = False) -> FakeTensor:
    """``torch.index_put(input, indices, values, accumulate=False)``: a copy laid out like ``input``.

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); x = env.fake_tensor((4, 5), name="x"); i = env.fake_tensor((2,), "int64", name="i")
    >>> index_put(x.t(), (i,), env.fake_tensor((4,), name="v")).stride()
    (1, s1)
    """
    _put_target("index_put", input, indices, values)
    return new_tensor(input.env, input.shape, input.dtype, like_strides(input))
