"""More pointwise ops: float math (``rsqrt``, ``erf``, ``log1p`` ...), rounding (``floor``, ``round`` ...),
``square``/``sign``, integer-aware division (``floor_divide``/``//``, ``remainder``/``%``, ``fmod``), ``atan2``,
``normalize``/``norm``/``linalg.vector_norm``, the predicates ``isnan``/``isinf``/``isfinite`` and ``lerp``/``lerp_``.

Dtypes as torch's CPU kernels give them: the float math turns integers and bools into float32;
rounding keeps floats and integers (bool refused); ``square`` of bool is int64, ``sign`` keeps
bool; the divisions follow ``result_type`` (bool refused); ``atan2`` takes two tensors. Layouts
are ``TensorIterator``'s. ``normalize`` divides by a keepdim norm expanded to the input, so its
layout is that of ``input / denom``; norms are reductions (contiguous). The predicates give bool.
``lerp(input, end, weight)``: floating-point ``input``; ``end`` a tensor of the same dtype and
``weight`` a float or a tensor of the same dtype (a 0-d weight of any float dtype passes); the three
broadcast. ``lerp_``: the broadcast shape must be ``input``'s.

>>> from shapeenv import ShapeEnv, ops
>>> env = ShapeEnv(); x = env.fake_tensor((4, 3), "int64", name="x")
>>> ops.rsqrt(x).dtype, (x // 2).dtype, ops.floor(x.float().t()).stride(), normalize(x.float(), dim=-1).shape
(float32, int64, (1, s1), (s0, s1))
>>> ops.sign(x).dtype, (x % 3).dtype, ops.fmod(x.float(), 2.0).dtype, ops.floor_divide(7, x.float()).dtype
(int64, int64, float32, float32)
>>> ops.isnan(x.t()).stride(), ops.isinf(x).dtype
((1, s1), bool)
"""

from __future__ import annotations

from typing import Any

from shapeenv.errors import ShapeError
from shapeenv.tensor.dtypes import bool_, float32, int64
from shapeenv.tensor.tensor import FakeTensor
from shapeenv.ops.common import as_dtype_arg, check_inplace, check_tensor, fmt_shape, new_tensor
from shapeenv.ops.rules.elementwise import broadcast_shapes, pointwise_strides
from shapeenv.ops.promotion import result_type
from shapeenv.ops.rules.reductions import reduced_dims, reduced_shape
from shapeenv.ops.dispatch import is_tensor
from shapeenv.ops.registry import rule, rule_family

__all__ = ["FLOAT_UNARY", "ROUNDING", "atan2", "square", "normalize", "norm", "linalg_vector_norm", "lerp",
           "lerp_"]

FLOAT_UNARY = ("rsqrt", "erf", "erfc", "log1p", "expm1", "log2", "log10", "exp2", "reciprocal", "asin", "acos",
               "atan", "sinh", "cosh", "asinh", "atanh")
ROUNDING = ("floor", "ceil", "trunc")


def _like(x: FakeTensor, dtype) -> FakeTensor:
    return FakeTensor(x.env, x.shape, dtype, stride=pointwise_strides(x.shape, [x]))


def _float_math(op: str, input: FakeTensor) -> FakeTensor:
    check_tensor(input, op)
    return _like(input, input.dtype if input.dtype.is_floating_point else float32)


def _rounding(op: str, input: FakeTensor) -> FakeTensor:
    check_tensor(input, op)
    if input.dtype == bool_:
        raise ShapeError(f'{op}: "{op}_vml_cpu" not implemented for bool', fix="convert the input: x.int()")
    return _like(input, input.dtype)


def _same_dtype(op: str, input: FakeTensor) -> FakeTensor:
    check_tensor(input, op)
    return _like(input, input.dtype)


rule_family(_float_math, {name: f"``torch.{name}(input)``: integers and bools give float32." for name in FLOAT_UNARY},
            ("input",))
rule_family(_rounding, {name: f"``torch.{name}(input)``: the input's dtype (integers unchanged); bool is refused."
                        for name in ROUNDING}, ("input",))
rule_family(_same_dtype, {"sign": "``torch.sign(input)``: the input's dtype.",
                          "sgn": "``torch.sgn(input)``: like ``sign`` for real dtypes."}, ("input",))


@rule("round")
def round_(input: FakeTensor, decimals: int = 0) -> FakeTensor:
    """``torch.round(input, *, decimals=0)``: the input's dtype; bool is refused.

    >>> from shapeenv import ShapeEnv
    >>> round_(ShapeEnv().fake_tensor((2,), "int64")).dtype
    int64
    """
    check_tensor(input, "round")
    if input.dtype == bool_:
        raise ShapeError('round: "round_vml_cpu" not implemented for bool', fix="convert the input: x.int()")
    return _like(input, input.dtype)


@rule("frac")
def frac(input: FakeTensor) -> FakeTensor:
    """``torch.frac(input)``: floating point only.

    >>> from shapeenv import ShapeEnv
    >>> frac(ShapeEnv().fake_tensor((2,))).dtype
    float32
    """
    check_tensor(input, "frac")
    if not input.dtype.is_floating_point:
        raise ShapeError(f'frac: "frac_cpu" not implemented for {input.dtype}', fix="convert the input: x.float()")
    return _like(input, input.dtype)


@rule("square")
def square(input: FakeTensor) -> FakeTensor:
    """``torch.square(input)``: ``input ** 2`` (bool gives int64).

    >>> from shapeenv import ShapeEnv
    >>> square(ShapeEnv().fake_tensor((2,), "bool")).dtype
    int64
    """
    check_tensor(input, "square")
    return _like(input, int64 if input.dtype == bool_ else input.dtype)


def _division(op: str, a: Any, b: Any, *, tensors_only: bool = False) -> FakeTensor:
    tensors = [t for t in (a, b) if is_tensor(t)]
    if not tensors:
        raise ShapeError(f"{op}: expected at least one tensor")
    if tensors_only and len(tensors) != 2:
        raise ShapeError(f"{op}: both arguments must be tensors", fix=f"wrap the number: ops.full_like(x, value)")
    dtype = result_type(a, b, op=op)
    if dtype == bool_:
        raise ShapeError(f'{op}: not implemented for bool', fix="convert the inputs: x.int()")
    if tensors_only and not dtype.is_floating_point:
        dtype = float32
    shape = broadcast_shapes(*(t.shape for t in tensors), op=op)
    return FakeTensor(tensors[0].env, shape, dtype, stride=pointwise_strides(shape, tensors))


rule_family(_division, {
    "floor_divide": "``torch.floor_divide(input, other)`` (``input // other``).",
    "remainder": "``torch.remainder(input, other)`` (``input % other``; Python's sign convention).",
    "fmod": "``torch.fmod(input, other)`` (C's sign convention).",
}, ("input", "other"))


@rule("atan2")
def atan2(input: FakeTensor, other: FakeTensor) -> FakeTensor:
    """``torch.atan2(input, other)``: two tensors; integers give float32.

    >>> from shapeenv import ShapeEnv
    >>> x = ShapeEnv().fake_tensor((2,), "int64"); atan2(x, x).dtype
    float32
    """
    return _division("atan2", input, other, tensors_only=True)


def _norm_shape(op: str, input: FakeTensor, dim: Any, keepdim: bool) -> tuple:
    check_tensor(input, op)
    return reduced_shape(input, reduced_dims(input, dim, op), bool(keepdim))


def _norm_dtype(op: str, input: FakeTensor, dtype: Any):
    out = as_dtype_arg(dtype, op) or input.dtype
    if not out.is_floating_point:
        raise ShapeError(f"{op}: Expected a floating point or complex tensor as input. Got {input.dtype}",
                         fix="convert the input first: x.float()")
    return out


@rule("linalg_vector_norm")
def linalg_vector_norm(x: FakeTensor, ord: Any = 2, dim: Any = None, keepdim: bool = False,  # noqa: A002
                       dtype: Any = None) -> FakeTensor:
    """``torch.linalg.vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None)``: a contiguous reduction.

    >>> from shapeenv import ShapeEnv
    >>> linalg_vector_norm(ShapeEnv().fake_tensor((4, 3)), 2, -1, True).shape
    (s0, 1)
    """
    shape = _norm_shape("linalg.vector_norm", x, dim, keepdim)
    return new_tensor(x.env, shape, _norm_dtype("linalg.vector_norm", x, dtype))


@rule("norm")
def norm(input: FakeTensor, p: Any = "fro", dim: Any = None, keepdim: bool = False, dtype: Any = None) -> FakeTensor:
    """``torch.norm(input, p='fro', dim=None, keepdim=False, dtype=None)`` (vector norms over ``dim``).

    >>> from shapeenv import ShapeEnv
    >>> norm(ShapeEnv().fake_tensor((4, 3)), dim=0).shape
    (s1,)
    """
    shape = _norm_shape("norm", input, dim, keepdim)
    return new_tensor(input.env, shape, _norm_dtype("norm", input, dtype))


@rule("normalize")
def normalize(input: FakeTensor, p: Any = 2.0, dim: Any = 1, eps: float = 1e-12) -> FakeTensor:
    """``F.normalize(input, p=2.0, dim=1, eps=1e-12)``: ``input / norm(input, dim, keepdim=True).expand_as(input)``.

    >>> from shapeenv import ShapeEnv
    >>> x = ShapeEnv().fake_tensor((4, 3)); normalize(x.t(), dim=0).stride()
    (1, s1)
    """
    check_tensor(input, "normalize")
    denom_shape = _norm_shape("normalize", input, dim, True)
    _norm_dtype("normalize", input, None)
    denom = new_tensor(input.env, denom_shape, input.dtype)
    expanded = tuple(0 if d is not s else st for d, s, st in zip(denom.shape, input.shape, denom.stride()))
    operands = [input, FakeTensor(input.env, input.shape, input.dtype, stride=expanded)]
    return FakeTensor(input.env, input.shape, input.dtype, stride=pointwise_strides(input.shape, operands))


def _predicate(op: str, input: FakeTensor) -> FakeTensor:
    check_tensor(input, op)
    return _like(input, bool_)


rule_family(_predicate, {name: f"``torch.{name}(input)``: bool, any dtype." for name in ("isnan", "isinf", "isfinite")},
            ("input",))


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
    check_inplace("lerp_", input, shape, fix="use the out-of-place torch.lerp(x, end, weight)")
    input.storage.version += 1
    return input
