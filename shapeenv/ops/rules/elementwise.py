"""Elementwise ops: broadcasting, dtype promotion, unary ops, clone and in-place updates.

>>> from shapeenv import ShapeEnv, ops
>>> env = ShapeEnv()
>>> x = env.fake_tensor((5, 1), name="x"); y = env.fake_tensor((3,), name="y")
>>> (x + y).shape, (x < y).dtype, ops.eq(x, 1).shape
((s0, s1), bool, (s0, 1))
"""

from __future__ import annotations

from typing import Any

from symint import SymBool, SymFloat, SymInt

from shapeenv.errors import ShapeError
from shapeenv.tensor.dtypes import DType, as_dtype, bool_, float32, int64, promote
from shapeenv.tensor import layout
from shapeenv.tensor.tensor import FakeTensor
from shapeenv.core.messages import hint_text, short_repr, user_label
from shapeenv.ops.common import check_inplace
from shapeenv.ops.dispatch import is_tensor
from shapeenv.ops.registry import rule, rule_family

__all__ = ["broadcast_shapes", "broadcast_dim", "maximum_impl", "minimum_impl", "pointwise_strides", "format_strides"]


def _is_one(size: Any) -> bool:
    env = getattr(getattr(size, "node", None), "env", None)
    if isinstance(size, SymInt):
        return env.guard_or_false(size == 1) if env is not None else False
    return size == 1


def _known_equal(a: Any, b: Any) -> bool:
    if isinstance(a, SymInt) or isinstance(b, SymInt):
        env = getattr((a if isinstance(a, SymInt) else b).node, "env", None)
        return env is not None and env.statically_known_true(a == b)
    return a == b


def _data_dependent(cond: SymBool) -> bool:
    """Whether ``cond`` is undecided and its value is not known for the traced example (it reads unbacked sizes)."""
    env = cond.node.env
    return env.decider.static(cond) is None and env.hint_of(env.simplify(cond.node.expr)) is None


def broadcast_dim(a: Any, b: Any, op: str = "broadcast", where: str = "") -> Any:
    """The broadcast of two sizes: equal, or one of them 1 (decided statically if possible, else guarded).

    Provably equal sizes broadcast to themselves whatever their value, so that is asked
    first: ``s0`` against ``s0`` needs no guard even when ``s0`` may be 1; then a side that
    is provably 1 (``s0`` against a static 1 is ``s0``, 1 or not, as torch has it).

    >>> from shapeenv import ShapeEnv
    >>> from guards import Source
    >>> env = ShapeEnv(); b = env.create_symint(3, Source.size("x", 0), min=1, max=64)
    >>> broadcast_dim(b, 1), broadcast_dim(1, b), len(env.guards)
    (s0, s0, 0)
    """
    if a is b or _known_equal(a, b):
        return a
    if _known_equal(b, 1):  # a static 1 first: no question about the other side (Note [Sizes that may be 0 or 1])
        return a
    if _known_equal(a, 1):
        return b
    if _is_one(a):
        return b
    if _is_one(b):
        return a
    same = a == b
    if isinstance(same, SymBool) and same.node.env is not None and _data_dependent(same):
        # torch's rule: an unbacked size is assumed not to be 1 when broadcasting, so the sizes
        # must be equal; that is deferred as a runtime assert (torch._check), not guarded.
        same.node.env.check(same, f"{op}: a data-dependent size is assumed not to be 1 when broadcasting{where}, "
                                  f"so {a} must equal {b}")
        return b if isinstance(a, SymInt) and a.node.hint is None else a
    if bool(same):  # statically or by the hints, recording a guard that unifies them
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
    if isinstance(value, (float, SymFloat)):  # a SymFloat scalar (x / n ** 0.5): a float operand, as in torch
        return float32
    raise ShapeError(f"unsupported operand {short_repr(value)} of type {type(value).__name__}",
                     fix="pass a tensor, an int, a SymInt or a float (convert arrays to inputs of the traced function)")


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
        raise ShapeError(f"{op}: expected at least one tensor, got {short_repr(a)} and {short_repr(b)}")
    try:
        shape = broadcast_shapes(*(t.shape for t in tensors), op=op)
    except ShapeError as e:
        if e.fix is None and len(tensors) == 2:
            e.fix = _broadcast_fix(*tensors)
        raise
    return FakeTensor(tensors[0].env, shape, dtype or _result_dtype(a, b), stride=pointwise_strides(shape, tensors))


def pointwise_strides(shape: tuple, tensors: list) -> tuple:
    """The output strides of a pointwise op on ``tensors`` (torch's TensorIterator; see :mod:`shapeenv.tensor.layout`).

    >>> from shapeenv import ShapeEnv
    >>> x = ShapeEnv().fake_tensor((4, 3), dynamic=False)
    >>> pointwise_strides((3, 4), [x.t()]), (x.t() + 1).stride()
    ((1, 3), (1, 3))
    """
    return layout.elementwise_strides(shape, [(t.shape, t.stride()) for t in tensors])


def _fits(big: tuple, small: tuple, offset: int) -> bool:
    """Whether ``small`` broadcasts against ``big`` when aligned ``offset`` dims left of the right end (by hints)."""
    end = len(big) - offset
    if end - len(small) < 0:
        return False
    return all(s == 1 or s == g for s, g in zip(small, big[end - len(small):end]))


def _broadcast_fix(a: FakeTensor, b: FakeTensor) -> str:
    """An unsqueeze that aligns the smaller operand, if one does (by the hints); else what must agree."""
    (big, bn), (small, sn) = sorted(((a, user_label(a, "a")), (b, user_label(b, "b"))), key=lambda p: -p[0].ndim)
    hb = tuple(int(hint_text(d)) if hint_text(d).lstrip("-").isdigit() else -2 for d in big.shape)
    hs = tuple(int(hint_text(d)) if hint_text(d).lstrip("-").isdigit() else -3 for d in small.shape)
    for offset in range(1, len(hb) - len(hs) + 1):
        if _fits(hb, hs, offset):
            index = ", ".join(["..."] + ["None"] * offset)
            return f"align {sn} with {bn} by adding {offset} trailing size-1 dim(s): {sn}[{index}]"
    for i in range(min(len(hb), len(hs)), 0, -1):
        if hb[-i] != hs[-i] and 1 not in (hb[-i], hs[-i]):
            return (f"sizes broadcast only if equal or one of them is 1: make {sn}.shape[{-i}] ({hs[-i]}) equal "
                    f"{bn}.shape[{-i}] ({hb[-i]}), or reduce it to 1 with {sn}.sum({-i}, keepdim=True)")
    return "make the sizes equal, or one of them 1, at the dimension named above"


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
    return FakeTensor(a.env, a.shape, a.dtype, stride=pointwise_strides(a.shape, [a]))


@rule("clone")
def clone(a: FakeTensor, memory_format: Any = None) -> FakeTensor:
    """A copy of ``a`` with its own storage: ``preserve_format`` keeps a dense layout (else infers one),
    ``contiguous_format``/``channels_last`` lay it out so.

    >>> from shapeenv import ShapeEnv
    >>> x = ShapeEnv().fake_tensor((2, 3, 4, 5), dynamic=False)
    >>> clone(x.transpose(0, 1)).stride(), clone(x, "channels_last").stride()
    ((20, 60, 5, 1), (60, 1, 15, 3))
    """
    return FakeTensor(a.env, a.shape, a.dtype, stride=format_strides(a, memory_format, "clone"))


def format_strides(a: FakeTensor, memory_format: Any, op: str) -> tuple:
    """The strides of a copy of ``a`` in ``memory_format`` (None: ``preserve_format``)."""
    try:
        fmt = layout.memory_format_name(memory_format)
        if fmt == "preserve_format":
            return layout.like_strides(a.shape, a.stride())
        return layout.format_strides(a.shape, fmt)
    except ValueError as e:
        raise ShapeError(f"{op}: {getattr(e, 'message', e)}") from None  # the message without the inner error's location


@rule("add_")
def add_(a: FakeTensor, b: Any) -> FakeTensor:
    """In-place ``a += b``: ``b`` must broadcast to ``a``'s shape; bumps ``a``'s version counter."""
    return _inplace("add_", a, b)


# -- comparisons, where, unary math, pow, maximum/minimum, dtype conversion, more in-place ops --------
def _compare(op: str, a: Any, b: Any) -> FakeTensor:
    return _binary(op, a, b, bool_)


rule_family(_compare, {
    "eq": "``a == b`` elementwise: a bool tensor of the broadcast shape.",
    "ne": "``a != b`` elementwise: a bool tensor of the broadcast shape.",
    "lt": "``a < b`` elementwise: a bool tensor of the broadcast shape.",
    "le": "``a <= b`` elementwise: a bool tensor of the broadcast shape.",
    "gt": "``a > b`` elementwise: a bool tensor of the broadcast shape.",
    "ge": "``a >= b`` elementwise: a bool tensor of the broadcast shape.",
}, ("a", "b"))


@rule("where")
def where(cond: FakeTensor, a: Any, b: Any) -> FakeTensor:
    """``torch.where(cond, a, b)``: ``cond`` is a bool tensor; the three shapes broadcast.

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); c = env.fake_tensor((4, 1), "bool", name="c")
    >>> where(c, env.fake_tensor((3,), name="a"), 0.0).shape
    (s0, s1)
    """
    if not is_tensor(cond) or cond.dtype != bool_:
        got = cond.dtype if is_tensor(cond) else type(cond).__name__
        raise ShapeError(f"where: expected the condition to be a bool tensor, got {got}")
    tensors = [t for t in (cond, a, b) if is_tensor(t)]
    shape = broadcast_shapes(*(t.shape for t in tensors), op="where")
    return FakeTensor(cond.env, shape, _result_dtype(a, b), stride=pointwise_strides(shape, tensors))


def _unary(op: str, a: FakeTensor, *, to_float: bool, allow_bool: bool = True) -> FakeTensor:
    if not is_tensor(a):
        raise ShapeError(f"{op}: expected a tensor, got {a!r}")
    if not allow_bool and a.dtype == bool_:
        raise ShapeError(f"{op}: bool inputs are not supported")
    dtype = float32 if to_float and not a.dtype.is_floating_point else a.dtype
    return FakeTensor(a.env, a.shape, dtype, stride=pointwise_strides(a.shape, [a]))


def _same_dtype_unary(op: str, a: FakeTensor) -> FakeTensor:
    return _unary(op, a, to_float=False, allow_bool=False)


rule_family(_same_dtype_unary, {name: f"``torch.{name}``: same shape and dtype (not for bool)." for name in ("relu", "abs")},
            ("a",))


def _float_unary(op: str, a: FakeTensor) -> FakeTensor:
    return _unary(op, a, to_float=True)


rule_family(_float_unary, {name: f"``torch.{name}``: same shape; integer and bool inputs give float32."
                           for name in ("exp", "log", "sqrt", "cos", "sin", "tan", "sigmoid", "tanh")}, ("a",))


@rule("pow")
def pow_(a: Any, b: Any) -> FakeTensor:
    """``a ** b`` with broadcasting; an integer tensor cannot take a negative integer scalar power.

    >>> from shapeenv import ShapeEnv
    >>> pow_(ShapeEnv().fake_tensor((2,), "int64"), 0.5).dtype
    float32
    """
    if is_tensor(a) and a.dtype.kind != "float" and isinstance(b, int) and not isinstance(b, bool) and b < 0:
        raise ShapeError(f"pow: integers to negative integer powers are not allowed (exponent {b}, base dtype {a.dtype})")
    return _binary("pow", a, b)


def maximum_impl(a: FakeTensor, b: FakeTensor, op: str = "maximum") -> FakeTensor:
    """Elementwise maximum/minimum of two tensors, without graph recording."""
    if not (is_tensor(a) and is_tensor(b)):
        raise ShapeError(f"{op}: expected two tensors, got {type(a).__name__} and {type(b).__name__}")
    return _binary(op, a, b)


minimum_impl = maximum_impl


@rule("maximum")
def maximum(a: FakeTensor, b: FakeTensor) -> FakeTensor:
    """``torch.maximum(a, b)``: two tensors, broadcast.

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); maximum(env.fake_tensor((4, 1), name="a"), env.fake_tensor((3,), name="b")).shape
    (s0, s1)
    """
    return maximum_impl(a, b, "maximum")


@rule("minimum")
def minimum(a: FakeTensor, b: FakeTensor) -> FakeTensor:
    """``torch.minimum(a, b)``: two tensors, broadcast.

    >>> from shapeenv import ShapeEnv
    >>> x = ShapeEnv().fake_tensor((2,)); minimum(x, x.long()).dtype
    float32
    """
    return maximum_impl(a, b, "minimum")


@rule("to")
def to(a: FakeTensor, dtype: Any) -> FakeTensor:
    """``a.to(dtype)`` (or ``a.to(other)``): ``a`` itself if the dtype is unchanged, else a converted copy.

    >>> from shapeenv import ShapeEnv
    >>> x = ShapeEnv().fake_tensor((2,)); to(x, "float32") is x, to(x, "int64").dtype
    (True, int64)
    """
    target = dtype.dtype if is_tensor(dtype) else dtype
    try:
        new = as_dtype(target)
    except TypeError as e:
        raise ShapeError(f"to: {getattr(e, 'message', e)}") from None  # the message without the inner error's location
    return a if new == a.dtype else FakeTensor(a.env, a.shape, new, stride=layout.like_strides(a.shape, a.stride()))


def _inplace(op: str, a: FakeTensor, b: Any, dtype: DType | None = None) -> FakeTensor:
    """Check that ``b`` broadcasts to ``a``'s shape and the result dtype casts to ``a``'s; bump the version."""
    if not is_tensor(a):
        raise ShapeError(f"{op}: the in-place target must be a tensor, got {a!r}")
    shape = broadcast_shapes(a.shape, b.shape, op=op) if is_tensor(b) else None
    check_inplace(op, a, shape, dtype or _result_dtype(a, b))
    a.storage.version += 1
    return a


@rule("sub_")
def sub_(a: FakeTensor, b: Any) -> FakeTensor:
    """In-place ``a -= b``.

    >>> from shapeenv import ShapeEnv
    >>> x = ShapeEnv().fake_tensor((2, 3)); sub_(x, x[0]) is x, x.version
    (True, 1)
    """
    return _inplace("sub_", a, b)


@rule("mul_")
def mul_(a: FakeTensor, b: Any) -> FakeTensor:
    """In-place ``a *= b``.

    >>> from shapeenv import ShapeEnv
    >>> x = ShapeEnv().fake_tensor((2, 3)); mul_(x, 2).version
    1
    """
    return _inplace("mul_", a, b)


@rule("div_")
def div_(a: FakeTensor, b: Any) -> FakeTensor:
    """In-place ``a /= b`` (true division: not for integer targets).

    >>> from shapeenv import ShapeEnv
    >>> x = ShapeEnv().fake_tensor((2, 3)); div_(x, 2).version
    1
    """
    dtype = _result_dtype(a, b)
    return _inplace("div_", a, b, dtype if dtype.is_floating_point else float32)


@rule("copy_")
def copy_(a: FakeTensor, src: FakeTensor) -> FakeTensor:
    """In-place ``a.copy_(src)``: ``src`` broadcasts to ``a``'s shape; any dtype converts.

    >>> from shapeenv import ShapeEnv
    >>> x = ShapeEnv().fake_tensor((2, 3)); copy_(x, x.long()[0]).dtype
    float32
    """
    if not is_tensor(src):
        raise ShapeError(f"copy_: the source must be a tensor, got {src!r}")
    return _inplace("copy_", a, src, a.dtype)


@rule("fill_")
def fill_(a: FakeTensor, value: Any) -> FakeTensor:
    """In-place ``a.fill_(value)`` with a scalar (or 0-d tensor).

    >>> from shapeenv import ShapeEnv
    >>> fill_(ShapeEnv().fake_tensor((2,)), 1.0).version
    1
    """
    if is_tensor(value) and value.ndim:
        raise ShapeError(f"fill_: only supports a 0-dimension value tensor, got shape {list(value.shape)}")
    return _inplace("fill_", a, value, a.dtype)


@rule("zero_")
def zero_(a: FakeTensor) -> FakeTensor:
    """In-place ``a.zero_()``.

    >>> from shapeenv import ShapeEnv
    >>> zero_(ShapeEnv().fake_tensor((2,))).version
    1
    """
    return _inplace("zero_", a, 0, a.dtype)


@rule("relu_")
def relu_(a: FakeTensor) -> FakeTensor:
    """In-place ``a.relu_()``.

    >>> from shapeenv import ShapeEnv
    >>> relu_(ShapeEnv().fake_tensor((2,))).version
    1
    """
    _unary("relu_", a, to_float=False, allow_bool=False)
    return _inplace("relu_", a, 0, a.dtype)
