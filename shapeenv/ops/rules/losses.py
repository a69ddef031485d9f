"""Losses: ``mse_loss``, ``l1_loss``, ``smooth_l1_loss``, ``cross_entropy``, ``nll_loss``.

``reduction`` is ``"none"`` (the per-element loss), ``"mean"`` or ``"sum"`` (0-d); the legacy
``size_average``/``reduce`` flags map to it as in torch. An empty batch's mean is nan in torch, not
an error, so no size is asked about.

* ``mse_loss``/``l1_loss``/``smooth_l1_loss(input, target, ...)``: ``input`` and ``target``
  broadcast (torch warns); the promoted dtype, pointwise strides for ``"none"``. Integer-only
  inputs are refused (``l1_loss`` with ``"none"`` keeps them, as torch's ``abs(sub)``); a ``weight``
  must have the input's shape (its dtype promotes the result; the mean is weighted); ``beta`` must be
  non-negative.
* ``cross_entropy(input, target, weight=None, ..., ignore_index=-100, reduction="mean", label_smoothing=0.0)``:
  ``input`` is ``(C,)``, ``(N, C)`` or ``(N, C, d1, ...)``, floating point. A target of the input's
  shape holds class probabilities (floating point; the result dtype is the promoted one; no
  ``ignore_index``); otherwise it holds class indices (int64 or uint8) of shape ``()``, ``(N,)`` or
  ``(N, d1, ...)``. Deciding which is a guard on the sizes' equality, as torch's check is. ``weight``
  has ``C`` elements of the input's dtype. ``"none"`` gives a contiguous ``(N, d1, ...)``.
* ``nll_loss``: the class-index form of ``cross_entropy`` (on log-probabilities).
* ``binary_cross_entropy(input, target, weight=None, ...)``: ``target`` has exactly the input's shape
  and dtype; ``weight`` broadcasts to the input's shape (it may not grow it); the input's dtype.
* ``binary_cross_entropy_with_logits(..., pos_weight=None)``: ``target`` has the input's shape; the
  dtype is the promoted one of two floating-point tensors; ``weight``/``pos_weight`` broadcast to the
  input's shape.
* ``kl_div(input, target, ..., reduction="mean", log_target=False)``: ``input`` and ``target``
  broadcast; floating point only; ``"batchmean"`` is a reduction too.

>>> from shapeenv import ShapeEnv
>>> env = ShapeEnv(); x = env.fake_tensor((8, 10), name="x"); t = env.fake_tensor((8,), "int64", name="t")
>>> cross_entropy(x, t).shape, cross_entropy(x, t, reduction="none").shape, mse_loss(x, x, reduction="sum").shape
((), (s0,), ())
"""

from __future__ import annotations

from typing import Any

from shapeenv.errors import ShapeError
from shapeenv.tensor.dtypes import int64, uint8
from shapeenv.tensor.tensor import FakeTensor
from shapeenv.ops.common import check_inplace, check_tensor, fmt_shape, decide, new_tensor, require
from shapeenv.ops.rules.elementwise import _result_dtype, broadcast_shapes, pointwise_strides
from shapeenv.ops.registry import rule

__all__ = ["mse_loss", "l1_loss", "smooth_l1_loss", "cross_entropy", "nll_loss", "binary_cross_entropy",
           "binary_cross_entropy_with_logits", "kl_div"]

REDUCTIONS = ("none", "mean", "sum")


def reduction_of(op: str, size_average: Any, reduce: Any, reduction: Any, allowed: tuple = REDUCTIONS) -> str:
    """The reduction, the legacy flags first (torch's ``_Reduction.legacy_get_string``).

    >>> reduction_of("mse_loss", None, False, "mean"), reduction_of("mse_loss", False, None, "mean")
    ('none', 'sum')
    """
    if size_average is not None or reduce is not None:
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        return ("mean" if size_average else "sum") if reduce else "none"
    if reduction not in allowed:
        raise ShapeError(f"{op}: {reduction} is not a valid value for reduction",
                         fix='pass reduction="none", "mean" or "sum"')
    return reduction


def _pointwise_loss(op: str, input: FakeTensor, target: FakeTensor, reduction: str, *, int_ok: bool,
                    weight: Any = None) -> FakeTensor:
    check_tensor(input, op)
    check_tensor(target, op, "target")
    dtype = _result_dtype(input, target)
    if not dtype.is_floating_point and not (int_ok and reduction == "none"):
        raise ShapeError(f"{op}: not implemented for {dtype} inputs (input {input.dtype}, target {target.dtype})",
                         fix="convert the input first: input.float()")
    shape = broadcast_shapes(input.shape, target.shape, op=op)
    if weight is not None:
        check_tensor(weight, op, "weight")
        if weight.ndim != input.ndim:
            raise ShapeError(f"{op}: Weights and input must have the same size: weight {fmt_shape(weight.shape)}, "
                             f"input {fmt_shape(input.shape)}")
        for a, b in zip(weight.shape, input.shape):
            require(a == b, lambda: (f"{op}: Weights and input must have the same size: weight "
                                     f"{fmt_shape(weight.shape)}, input {fmt_shape(input.shape)}"))
        dtype = _result_dtype(new_tensor(input.env, shape, dtype), weight)  # the errors times the weight (torch's Python)
    if reduction != "none":
        return new_tensor(input.env, (), dtype)
    return new_tensor(input.env, shape, dtype, pointwise_strides(shape, [input, target]))


@rule("mse_loss")
def mse_loss(input: FakeTensor, target: FakeTensor, size_average: Any = None, reduce: Any = None,  # noqa: A002
             reduction: str = "mean", weight: Any = None) -> FakeTensor:
    """``F.mse_loss``.

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); x = env.fake_tensor((4, 3), name="x"); mse_loss(x.t(), x.t(), reduction="none").stride()
    (1, s1)
    """
    r = reduction_of("mse_loss", size_average, reduce, reduction)
    return _pointwise_loss("mse_loss", input, target, r, int_ok=False, weight=weight)


@rule("l1_loss")
def l1_loss(input: FakeTensor, target: FakeTensor, size_average: Any = None, reduce: Any = None,  # noqa: A002
            reduction: str = "mean", weight: Any = None) -> FakeTensor:
    """``F.l1_loss``.

    >>> from shapeenv import ShapeEnv
    >>> x = ShapeEnv().fake_tensor((4, 3), "int64"); l1_loss(x, x, reduction="none").dtype
    int64
    """
    r = reduction_of("l1_loss", size_average, reduce, reduction)
    return _pointwise_loss("l1_loss", input, target, r, int_ok=True, weight=weight)


@rule("smooth_l1_loss")
def smooth_l1_loss(input: FakeTensor, target: FakeTensor, size_average: Any = None, reduce: Any = None,  # noqa: A002
                   reduction: str = "mean", beta: float = 1.0) -> FakeTensor:
    """``F.smooth_l1_loss``.

    >>> from shapeenv import ShapeEnv
    >>> x = ShapeEnv().fake_tensor((4, 3)); smooth_l1_loss(x, x, beta=0.5).shape
    ()
    """
    r = reduction_of("smooth_l1_loss", size_average, reduce, reduction)
    if beta < 0:
        raise ShapeError("smooth_l1_loss does not support negative values for beta.", fix="pass beta >= 0")
    return _pointwise_loss("smooth_l1_loss", input, target, r, int_ok=False)


def _class_weight(op: str, input: FakeTensor, weight: Any, c: Any) -> None:
    if weight is None:
        return
    check_tensor(weight, op, "weight")
    message = lambda: (f"{op}: weight tensor should be defined either for all {c} classes or no classes but got "  # noqa: E731
                       f"weight tensor of shape: {fmt_shape(weight.shape)}")
    if weight.ndim != 1:
        raise ShapeError(message())
    require(weight.shape[0] == c, message)
    if weight.dtype != input.dtype:
        raise ShapeError(f"{op}: expected scalar type {input.dtype} but found {weight.dtype} (the weight)",
                         fix=f"convert the weight first: weight.to({input.dtype})")


def _class_indices(op: str, input: FakeTensor, target: FakeTensor, weight: Any, reduction: str) -> FakeTensor:
    if target.dtype not in (int64, uint8):
        raise ShapeError(f"{op}: expected target dtype to be Long or Byte, but got {target.dtype}",
                         fix="convert the target first: target.long()")
    if input.ndim == 0:
        raise ShapeError(f"{op}: input tensor should be 1D or more, got a 0-d input")
    c = input.shape[0] if input.ndim == 1 else input.shape[1]
    if input.ndim <= 2:
        if target.ndim > 1:
            raise ShapeError(f"{op}: 0D or 1D target tensor expected, multi-target not supported (target of size "
                             f"{fmt_shape(target.shape)})")
        if input.ndim == 2:
            if target.ndim != 1:
                raise ShapeError(f"{op}: Expected input batch_size ({input.shape[0]}) to match target batch_size (a 0-d target)")
            require(input.shape[0] == target.shape[0], lambda: (
                f"{op}: Expected input batch_size ({input.shape[0]}) to match target batch_size ({target.shape[0]})."))
        elif target.ndim != 0:
            raise ShapeError(f"{op}: a 1-d input (C,) takes a 0-d target, got one of size {fmt_shape(target.shape)}")
    else:
        message = lambda: (f"{op}: size mismatch (got input: {fmt_shape(input.shape)} , target: "  # noqa: E731
                           f"{fmt_shape(target.shape)})", )[0]
        if target.ndim != input.ndim - 1:
            raise ShapeError(message())
        for a, b in zip((input.shape[0],) + tuple(input.shape[2:]), target.shape):
            require(a == b, message)
    _class_weight(op, input, weight, c)
    if reduction != "none":
        return new_tensor(input.env, (), input.dtype)
    return new_tensor(input.env, tuple(target.shape), input.dtype)


def _check_input(op: str, input: FakeTensor) -> None:
    check_tensor(input, op)
    if not input.dtype.is_floating_point:
        raise ShapeError(f"{op}: not implemented for {input.dtype} inputs (log-probabilities are floating point)",
                         fix="convert the input first: input.float()")


@rule("cross_entropy")
def cross_entropy(input: FakeTensor, target: FakeTensor, weight: Any = None, size_average: Any = None,  # noqa: A002
                  ignore_index: int = -100, reduce: Any = None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> FakeTensor:
    """``F.cross_entropy`` (class indices or class probabilities).

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); x = env.fake_tensor((2, 5, 3, 4), name="x")
    >>> cross_entropy(x, env.fake_tensor((2, 3, 4), "int64", name="t"), reduction="none").shape
    (s0, s2, s3)
    """
    r = reduction_of("cross_entropy", size_average, reduce, reduction)
    _check_input("cross_entropy", input)
    check_tensor(target, "cross_entropy", "target")
    if not 0.0 <= label_smoothing <= 1.0:
        raise ShapeError(f"cross_entropy: label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    same = target.ndim == input.ndim and all(decide(a == b) for a, b in zip(input.shape, target.shape))
    if not same:
        return _class_indices("cross_entropy", input, target, weight, r)
    if not target.dtype.is_floating_point:
        raise ShapeError(f"cross_entropy: Expected floating point type for target with class probabilities, got "
                         f"{target.dtype}", fix="pass class indices of shape (N,) or float probabilities of the input's shape")
    if ignore_index >= 0:
        raise ShapeError("cross_entropy: ignore_index is not supported for floating point target",
                         fix="leave ignore_index at its default (-100) with class probabilities")
    _class_weight("cross_entropy", input, weight, input.shape[0] if input.ndim == 1 else input.shape[1])
    dtype = _result_dtype(input, target)
    if r != "none" or input.ndim <= 1:
        return new_tensor(input.env, (), dtype)
    return new_tensor(input.env, (input.shape[0],) + tuple(input.shape[2:]), dtype)


@rule("nll_loss")
def nll_loss(input: FakeTensor, target: FakeTensor, weight: Any = None, size_average: Any = None,  # noqa: A002
             ignore_index: int = -100, reduce: Any = None, reduction: str = "mean") -> FakeTensor:
    """``F.nll_loss``.

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); nll_loss(env.fake_tensor((4, 5), "float16", name="x"), env.fake_tensor((4,), "int64", name="t")).dtype
    float16
    """
    r = reduction_of("nll_loss", size_average, reduce, reduction)
    _check_input("nll_loss", input)
    check_tensor(target, "nll_loss", "target")
    return _class_indices("nll_loss", input, target, weight, r)




def _same_shape(op: str, input: FakeTensor, target: FakeTensor, message: str) -> None:
    text = lambda: f"{op}: {message} (target {fmt_shape(target.shape)}, input {fmt_shape(input.shape)})"  # noqa: E731
    if target.ndim != input.ndim:
        raise ShapeError(text(), fix="reshape the target to the input's shape: target.view_as(input)")
    for a, b in zip(target.shape, input.shape):
        require(a == b, text, lambda: "reshape the target to the input's shape: target.view_as(input)")


def _fits_input(op: str, input: FakeTensor, extra: Any, what: str) -> list:
    if extra is None:
        return []
    check_tensor(extra, op, what)
    shape = broadcast_shapes(input.shape, extra.shape, op=op)
    check_inplace(op, input, shape, what=what, fix=f"give the {what} a shape that broadcasts to the input's")
    return [extra]


def _float_input(op: str, input: FakeTensor, target: FakeTensor) -> None:
    check_tensor(input, op)
    check_tensor(target, op, "target")
    if not input.dtype.is_floating_point:
        raise ShapeError(f"{op}: not implemented for {input.dtype} inputs", fix="convert the input first: input.float()")


@rule("binary_cross_entropy")
def binary_cross_entropy(input: FakeTensor, target: FakeTensor, weight: Any = None, size_average: Any = None,  # noqa: A002
                         reduce: Any = None, reduction: str = "mean") -> FakeTensor:
    """``F.binary_cross_entropy`` (probabilities in ``input``).

    >>> from shapeenv import ShapeEnv
    >>> x = ShapeEnv().fake_tensor((4, 3)); binary_cross_entropy(x, x, reduction="none").shape
    (s0, s1)
    """
    r = reduction_of("binary_cross_entropy", size_average, reduce, reduction)
    _float_input("binary_cross_entropy", input, target)
    _same_shape("binary_cross_entropy", input, target, "Using a target size that is different to the input size is "
                "deprecated. Please ensure they have the same size.")
    if target.dtype != input.dtype:
        raise ShapeError(f"binary_cross_entropy: Found dtype {target.dtype} but expected {input.dtype} (the target)",
                         fix=f"convert the target first: target.to({input.dtype})")
    extra = _fits_input("binary_cross_entropy", input, weight, "weight")
    if r != "none":
        return new_tensor(input.env, (), input.dtype)
    return new_tensor(input.env, input.shape, input.dtype, pointwise_strides(input.shape, [input, target, *extra]))


@rule("binary_cross_entropy_with_logits")
def binary_cross_entropy_with_logits(input: FakeTensor, target: FakeTensor, weight: Any = None,  # noqa: A002
                                     size_average: Any = None, reduce: Any = None, reduction: str = "mean",
                                     pos_weight: Any = None) -> FakeTensor:
    """``F.binary_cross_entropy_with_logits``.

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); x = env.fake_tensor((4, 3), name="x")
    >>> binary_cross_entropy_with_logits(x, env.fake_tensor((4, 3), "float64", name="y"), reduction="none").dtype
    float64
    """
    op = "binary_cross_entropy_with_logits"
    r = reduction_of(op, size_average, reduce, reduction)
    _float_input(op, input, target)
    _same_shape(op, input, target, "Target size must be the same as input size")
    if not target.dtype.is_floating_point:
        raise ShapeError(f"{op}: result type {input.dtype} can't be cast to the desired output type {target.dtype} "
                         f"(the target)", fix="convert the target first: target.float()")
    extra = _fits_input(op, input, weight, "weight") + _fits_input(op, input, pos_weight, "pos_weight")
    dtype = _result_dtype(input, target)
    if r != "none":
        return new_tensor(input.env, (), dtype)
    return new_tensor(input.env, input.shape, dtype, pointwise_strides(input.shape, [input, target, *extra]))


@rule("kl_div")
def kl_div(input: FakeTensor, target: FakeTensor, size_average: Any = None, reduce: Any = None,  # noqa: A002
           reduction: str = "mean", log_target: bool = False) -> FakeTensor:
    """``F.kl_div`` (log-probabilities in ``input``).

    >>> from shapeenv import ShapeEnv
    >>> x = ShapeEnv().fake_tensor((4, 3)); kl_div(x, x, reduction="batchmean").shape
    ()
    """
    r = reduction_of("kl_div", size_average, reduce, reduction, REDUCTIONS + ("batchmean",))
    check_tensor(input, "kl_div")
    check_tensor(target, "kl_div", "target")
    if not (input.dtype.is_floating_point and target.dtype.is_floating_point):
        raise ShapeError(f"kl_div: Integral inputs not supported (input {input.dtype}, target {target.dtype})",
                         fix="convert them first: input.float(), target.float()")
    shape = broadcast_shapes(input.shape, target.shape, op="kl_div")
    dtype = _result_dtype(input, target)
    if r != "none":
        return new_tensor(input.env, (), dtype)
    return new_tensor(input.env, shape, dtype, pointwise_strides(shape, [input, target]))
