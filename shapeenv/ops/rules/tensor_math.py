"""More ops real models call: ``outer``, ``logsumexp``, ``roll``, ``diff``, ``isnan``/``isinf``/``isfinite``,
``all``/``any`` and ``lerp``/``lerp_``.

* ``outer(input, vec2)``: two 1-d tensors, a contiguous ``(n, m)`` result of the promoted dtype.
* ``logsumexp(input, dim, keepdim=False)``: ``dim`` is required (an int or a list); integer and bool
  inputs give float32 (torch's default dtype); contiguous. ``dim=()`` reduces nothing and fails
  (torch: the keepdim-ed max does not broadcast to the result) unless ``keepdim`` or a 0-d input.
* ``roll(input, shifts, dims=None)``: the input's shape and dtype, contiguous (channels-last when the
  input suggests it and ``dims`` is given, as torch's ``cat`` of the two pieces does); ``shifts`` and
  ``dims`` must have the same length (``dims=None`` flattens: one shift).
* ``diff(input, n=1, dim=-1, prepend=None, append=None)``: ``n`` forward differences along ``dim``; the
  size becomes ``max(size - n, 0)`` (no guard: the max stays symbolic when it is not provable);
  ``prepend``/``append`` are concatenated first (same rank, the same sizes off ``dim``), so the dtype
  and layout are ``cat``'s. Bool inputs stay bool (``logical_xor``), others keep their dtype; strides
  are TensorIterator's on the narrowed input.
* ``isnan``/``isinf``/``isfinite``: bool, pointwise strides.
* ``all``/``any(input, dim=None, keepdim=False)``: bool (uint8 for uint8 inputs, as torch and numpy),
  contiguous; ``dim`` an int, a tuple or None (all dims).
* ``lerp(input, end, weight)``: floating-point ``input``; ``end`` a tensor of the same dtype and
  ``weight`` a float or a tensor of the same dtype (a 0-d weight of any float dtype passes); the three
  broadcast; pointwise strides. ``lerp_``: the broadcast shape must be ``input``'s.

>>> from shapeenv import ShapeEnv
>>> env = ShapeEnv(); x = env.fake_tensor((4, 6), name="x")
>>> diff(x).shape, logsumexp(x, 1).shape, all(x > 0, 0).shape, outer(x[0], x[:, 0]).shape
((s0, s1 - 1), (s0,), (s1,), (s1, s0))
"""

from __future__ import annotations

import builtins
from typing import Any

from shapeenv.errors import ShapeError
from shapeenv.tensor import layout
from shapeenv.tensor.dtypes import bool_, float32, uint8
from shapeenv.tensor.tensor import FakeTensor
from shapeenv.ops.common import canonical_dim, canonical_dims, check_tensor, fmt_shape, is_contiguous, like_strides, new_tensor, require, smax
from shapeenv.ops.rules.elementwise import _result_dtype, broadcast_shapes, pointwise_strides
from shapeenv.ops.rules.reductions import reduced_dims, reduced_shape
from shapeenv.ops.dispatch import is_tensor
from shapeenv.ops.registry import rule
from shapeenv.ops.rules.shape_ops import cat

__all__ = ["outer", "logsumexp", "roll", "diff", "isnan", "isinf", "isfinite", "all", "any", "lerp", "lerp_"]


@rule("outer")
def outer(input: FakeTensor, vec2: FakeTensor) -> FakeTensor:  # noqa: A002
    """``torch.outer(input, vec2)``: ``(len(input), len(vec2))``.

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); outer(env.fake_tensor((3,), name="a"), env.fake_tensor((5,), "int64", name="b")).dtype
    float32
    """
    for what, t in (("self", input), ("vec2", vec2)):
        check_tensor(t, "outer", what)
        if t.ndim != 1:
            raise ShapeError(f"outer: Expected 1-D argument {what}, but got {t.ndim}-D",
                             fix="flatten it first: torch.outer(a.flatten(), b.flatten())")
    return new_tensor(input.env, (input.shape[0], vec2.shape[0]), _result_dtype(input, vec2))


@rule("logsumexp")
def logsumexp(input: FakeTensor, dim: Any, keepdim: bool = False) -> FakeTensor:  # noqa: A002
    """``torch.logsumexp(input, dim, keepdim=False)``.

    >>> from shapeenv import ShapeEnv
    >>> logsumexp(ShapeEnv().fake_tensor((2, 3), "int64"), [0, 1], keepdim=True).shape
    (1, 1)
    """
    check_tensor(input, "logsumexp")
    if dim is None:
        raise ShapeError("logsumexp: dim is required", fix="pass the dims to reduce: torch.logsumexp(x, dim=-1)")
    dims = canonical_dims(dim, input.ndim, "logsumexp")
    if not dims:
        if input.ndim and not keepdim:
            raise ShapeError(f"logsumexp: dim=() on a {input.ndim}-d input reduces all dims for the max but none for "
                             f"the sum (torch: output with shape [] doesn't match the broadcast shape)",
                             fix="pass the dims to reduce explicitly: torch.logsumexp(x, dim=tuple(range(x.ndim)))")
        dims = list(range(input.ndim))
    dtype = input.dtype if input.dtype.is_floating_point else float32
    return new_tensor(input.env, reduced_shape(input, dims if input.ndim else [], bool(keepdim)), dtype)


def _int_list(value: Any, op: str, what: str) -> list:
    items = [value] if isinstance(value, int) and not isinstance(value, bool) else value
    if not isinstance(items, (list, tuple)) or builtins.any(isinstance(v, bool) or not isinstance(v, int) for v in items):
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


def _predicate(op: str, input: FakeTensor) -> FakeTensor:
    check_tensor(input, op)
    return new_tensor(input.env, input.shape, bool_, pointwise_strides(input.shape, [input]))


@rule("isnan")
def isnan(input: FakeTensor) -> FakeTensor:  # noqa: A002
    """``torch.isnan(input)``: bool, any dtype.

    >>> from shapeenv import ShapeEnv
    >>> isnan(ShapeEnv().fake_tensor((2, 3)).t()).stride()
    (1, s1)
    """
    return _predicate("isnan", input)


@rule("isinf")
def isinf(input: FakeTensor) -> FakeTensor:  # noqa: A002
    """``torch.isinf(input)``.

    >>> from shapeenv import ShapeEnv
    >>> isinf(ShapeEnv().fake_tensor((2, 3), "int64")).dtype
    bool
    """
    return _predicate("isinf", input)


@rule("isfinite")
def isfinite(input: FakeTensor) -> FakeTensor:  # noqa: A002
    """``torch.isfinite(input)``.

    >>> from shapeenv import ShapeEnv
    >>> isfinite(ShapeEnv().fake_tensor((2,), "bool")).shape
    (s0,)
    """
    return _predicate("isfinite", input)


def _all_any(op: str, input: FakeTensor, dim: Any, keepdim: bool) -> FakeTensor:
    check_tensor(input, op)
    dims = reduced_dims(input, dim, op)
    return new_tensor(input.env, reduced_shape(input, dims, bool(keepdim)), uint8 if input.dtype == uint8 else bool_)


@rule("all")
def all(input: FakeTensor, dim: Any = None, keepdim: bool = False) -> FakeTensor:  # noqa: A001,A002
    """``torch.all(input, dim=None, keepdim=False)`` (and ``Tensor.all``).

    >>> from shapeenv import ShapeEnv
    >>> all(ShapeEnv().fake_tensor((2, 3), "uint8"), 1, True).dtype
    uint8
    """
    return _all_any("all", input, dim, keepdim)


@rule("any")
def any(input: FakeTensor, dim: Any = None, keepdim: bool = False) -> FakeTensor:  # noqa: A001,A002
    """``torch.any(input, dim=None, keepdim=False)`` (and ``Tensor.any``).

    >>> from shapeenv import ShapeEnv
    >>> any(ShapeEnv().fake_tensor((2, 3)), (0, 1)).shape
    ()
    """
    return _all_any("any", input, dim, keepdim)


def _lerp_operands(op: str, input: FakeTensor, end: Any, weight: Any) -> list:
    check_tensor(input, op)
    check_tensor(end, op, "end")
    if not input.dtype.is_floating_point:
        raise ShapeError(f"{op}: \"lerp_kernel\" not implemented for {input.dtype} inputs",
                         fix="convert the input first: x.float()")
    if end.dtype != input.dtype:
        raise ShapeError(f"{op}: expected dtype {input.dtype} for `end` but got dtype {end.dtype}",
                         fix=f"convert end first: end.to({input.dtype})")
    tensors = [input, end]
    if is_tensor(weight):
        if weight.dtype != input.dtype and (weight.ndim or not weight.dtype.is_floating_point):
            raise ShapeError(f"{op}: expected dtype {input.dtype} for `weight` but got dtype {weight.dtype}",
                             fix=f"convert weight first: weight.to({input.dtype})")
        tensors.append(weight)
    elif isinstance(weight, bool) or not isinstance(weight, (int, float)) and not hasattr(weight, "node"):
        raise ShapeError(f"{op}: weight must be a float or a tensor, got {weight!r}")
    return tensors


@rule("lerp")
def lerp(input: FakeTensor, end: FakeTensor, weight: Any) -> FakeTensor:  # noqa: A002
    """``torch.lerp(input, end, weight)``.

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); lerp(env.fake_tensor((3,), name="a"), env.fake_tensor((4, 3), name="b"), 0.5).shape
    (s1, s0)
    """
    tensors = _lerp_operands("lerp", input, end, weight)
    shape = broadcast_shapes(*(t.shape for t in tensors), op="lerp")
    return new_tensor(input.env, shape, input.dtype, pointwise_strides(shape, tensors))


@rule("lerp_")
def lerp_(input: FakeTensor, end: FakeTensor, weight: Any) -> FakeTensor:  # noqa: A002
    """``Tensor.lerp_(end, weight)``: in place, the broadcast shape must be ``input``'s.

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); x = env.fake_tensor((4, 3)); lerp_(x, x, 0.25) is x
    True
    """
    tensors = _lerp_operands("lerp_", input, end, weight)
    shape = broadcast_shapes(*(t.shape for t in tensors), op="lerp_")
    if len(shape) != input.ndim or builtins.any(s is not t and not (isinstance(s, int) and s == t)
                                                for s, t in zip(shape, input.shape)):
        raise ShapeError(f"lerp_: output with shape {fmt_shape(input.shape)} doesn't match the broadcast shape "
                         f"{fmt_shape(shape)}", fix="use the out-of-place torch.lerp(x, end, weight)")
    input.storage.version += 1
    return input


