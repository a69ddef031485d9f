"""Activations and dropout (``torch.nn.functional``): shape-preserving, with torch's dtypes and layouts.

Every op keeps its input's shape. The output is laid out as ``TensorIterator`` lays out a
unary op (a dense input keeps its strides, channels-last included), except ``logsigmoid``,
whose CPU kernel writes a contiguous result. Most activations need a floating-point input, as
their CPU kernels do (``"silu_cpu" not implemented for 'Long'``); ``relu6``/``hardtanh`` also
take integers, and ``softsign`` turns integers into float32. With ``inplace=True`` the input
itself is returned and its version counter bumped.

``dropout`` follows ATen's CPU ``_dropout_impl``: with ``training=False``, ``p == 0`` or an
empty input it returns the input itself (an alias); ``p == 1`` multiplies by a 0-d zero (any
dtype); otherwise it multiplies by a float noise tensor, so integer inputs fail. ``p`` outside
``[0, 1]`` is an error. Whether the input is empty is a shape question: decided without a guard
for backed sizes (which are at least 2), a guard when only the hints tell.

>>> from shapeenv import ShapeEnv
>>> env = ShapeEnv(); x = env.fake_tensor((2, 3, 4, 5), name="x")
>>> gelu(x.contiguous(memory_format="channels_last")).stride(), dropout(x, 0.1, False) is x
((s1*s2*s3, 1, s1*s3, s1), True)
"""

from __future__ import annotations

from typing import Any

from shapeenv.errors import ShapeError
from shapeenv.tensor.dtypes import bool_, float32
from shapeenv.tensor.tensor import FakeTensor
from shapeenv.ops.common import check_tensor, decide, like_strides, new_tensor
from shapeenv.ops.rules.elementwise import pointwise_strides
from shapeenv.ops.registry import rule, rule_family

__all__ = ["gelu", "softplus", "leaky_relu", "elu", "selu", "celu", "relu6", "hardtanh", "logsigmoid", "softsign",
           "dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout"]


def _pointwise(op: str, x: FakeTensor, *, floats_only: bool = True, inplace: bool = False,
               kernel: str | None = None) -> FakeTensor:
    """The output of a unary activation on ``x`` (validated), or ``x`` itself when ``inplace``."""
    check_tensor(x, op)
    if floats_only and not x.dtype.is_floating_point:
        raise ShapeError(f'{op}: "{kernel or op + "_cpu"}" not implemented for {x.dtype} inputs; '
                         "activations need a floating-point tensor",
                         fix="convert the input first: x.float()")
    if not floats_only and x.dtype == bool_:
        raise ShapeError(f"{op}: bool inputs are not supported", fix="convert the input first: x.float()")
    if inplace:
        x.storage.version += 1
        return x
    return FakeTensor(x.env, x.shape, x.dtype, stride=pointwise_strides(x.shape, [x]))


@rule("gelu")
def gelu(input: FakeTensor, approximate: str = "none") -> FakeTensor:
    """``F.gelu(input, approximate='none')``; ``approximate`` is ``'none'`` or ``'tanh'``.

    >>> from shapeenv import ShapeEnv
    >>> gelu(ShapeEnv().fake_tensor((2, 3)), approximate="tanh").shape
    (s0, s1)
    """
    if approximate not in ("none", "tanh"):
        raise ShapeError(f"gelu: approximate argument must be either none or tanh, got {approximate!r}")
    return _pointwise("gelu", input, kernel="GeluKernelImpl")


def _activation(op: str, input: FakeTensor, inplace: bool) -> FakeTensor:
    """A floating-point activation with only ``inplace`` to choose (the family below).

    >>> from shapeenv import ShapeEnv
    >>> x = ShapeEnv().fake_tensor((2, 3)); _activation("silu", x, True) is x, x.version
    (True, 1)
    """
    return _pointwise(op, input, inplace=inplace)


rule_family(_activation, {
    "silu": "``F.silu(input, inplace=False)``: ``x * sigmoid(x)``.",
    "hardswish": "``F.hardswish(input, inplace=False)``.",
    "hardsigmoid": "``F.hardsigmoid(input, inplace=False)``.",
    "mish": "``F.mish(input, inplace=False)``.",
}, ("input", "inplace"), {"inplace": False})


@rule("softplus")
def softplus(input: FakeTensor, beta: Any = 1, threshold: Any = 20) -> FakeTensor:
    """``F.softplus(input, beta=1, threshold=20)``.

    >>> from shapeenv import ShapeEnv
    >>> softplus(ShapeEnv().fake_tensor((2,)), 2.0).dtype
    float32
    """
    return _pointwise("softplus", input)


@rule("leaky_relu")
def leaky_relu(input: FakeTensor, negative_slope: Any = 0.01, inplace: bool = False) -> FakeTensor:
    """``F.leaky_relu(input, negative_slope=0.01, inplace=False)``.

    >>> from shapeenv import ShapeEnv
    >>> leaky_relu(ShapeEnv().fake_tensor((2,)), 0.2).shape
    (s0,)
    """
    return _pointwise("leaky_relu", input, inplace=inplace)


@rule("elu")
def elu(input: FakeTensor, alpha: Any = 1.0, inplace: bool = False) -> FakeTensor:
    """``F.elu(input, alpha=1.0, inplace=False)``.

    >>> from shapeenv import ShapeEnv
    >>> elu(ShapeEnv().fake_tensor((2,))).shape
    (s0,)
    """
    return _pointwise("elu", input, inplace=inplace)


@rule("selu")
def selu(input: FakeTensor, inplace: bool = False) -> FakeTensor:
    """``F.selu(input, inplace=False)``.

    >>> from shapeenv import ShapeEnv
    >>> selu(ShapeEnv().fake_tensor((2,))).shape
    (s0,)
    """
    return _pointwise("selu", input, inplace=inplace, kernel="elu_cpu")


@rule("celu")
def celu(input: FakeTensor, alpha: Any = 1.0, inplace: bool = False) -> FakeTensor:
    """``F.celu(input, alpha=1.0, inplace=False)``.

    >>> from shapeenv import ShapeEnv
    >>> celu(ShapeEnv().fake_tensor((2,))).shape
    (s0,)
    """
    return _pointwise("celu", input, inplace=inplace, kernel="elu_cpu")


@rule("relu6")
def relu6(input: FakeTensor, inplace: bool = False) -> FakeTensor:
    """``F.relu6(input, inplace=False)``: integers keep their dtype; bool is refused.

    >>> from shapeenv import ShapeEnv
    >>> relu6(ShapeEnv().fake_tensor((2,), "int64")).dtype
    int64
    """
    return _pointwise("relu6", input, floats_only=False, inplace=inplace)


@rule("hardtanh")
def hardtanh(input: FakeTensor, min_val: Any = -1.0, max_val: Any = 1.0, inplace: bool = False) -> FakeTensor:
    """``F.hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False)``: like :func:`relu6` for dtypes.

    >>> from shapeenv import ShapeEnv
    >>> hardtanh(ShapeEnv().fake_tensor((2,)), -2, 2).shape
    (s0,)
    """
    if isinstance(min_val, (int, float)) and isinstance(max_val, (int, float)) and min_val > max_val:
        raise ShapeError(f"hardtanh: min_val ({min_val}) cannot be greater than max_val ({max_val})")
    return _pointwise("hardtanh", input, floats_only=False, inplace=inplace)


@rule("logsigmoid")
def logsigmoid(input: FakeTensor) -> FakeTensor:
    """``F.logsigmoid(input)``: a contiguous result whatever the input's layout (torch's CPU kernel).

    >>> from shapeenv import ShapeEnv
    >>> logsigmoid(ShapeEnv().fake_tensor((2, 3)).t()).stride()
    (s0, 1)
    """
    _pointwise("logsigmoid", input, kernel="log_sigmoid_cpu")
    return new_tensor(input.env, input.shape, input.dtype)


@rule("softsign")
def softsign(input: FakeTensor) -> FakeTensor:
    """``F.softsign(input)``: ``x / (1 + |x|)``; integers give float32, bool is refused.

    >>> from shapeenv import ShapeEnv
    >>> softsign(ShapeEnv().fake_tensor((2,), "int32")).dtype
    float32
    """
    out = _pointwise("softsign", input, floats_only=False)
    if not input.dtype.is_floating_point:
        return FakeTensor(out.env, out.shape, float32, stride=out.stride())
    return out


@rule("dropout")
def dropout(input: FakeTensor, p: Any = 0.5, training: bool = True, inplace: bool = False) -> FakeTensor:
    """``F.dropout(input, p=0.5, training=True, inplace=False)`` (see the module docstring).

    >>> from shapeenv import ShapeEnv
    >>> x = ShapeEnv().fake_tensor((4, 3)); dropout(x) is x, dropout(x, 0.0) is x, dropout(x).shape
    (False, True, (s0, s1))
    """
    return _dropout_like("dropout", input, p, training, inplace, False)


def _dropout_like(op: str, input: FakeTensor, p: Any, training: bool, inplace: bool, feature: bool) -> FakeTensor:
    """ATen's ``_dropout_impl``; ``feature``: one noise draw per ``(N, C)`` (shape ``(N, C, 1, ...)``)."""
    check_tensor(input, op)
    if isinstance(p, bool) or not isinstance(p, (int, float)):
        raise ShapeError(f"{op}: p must be a float, got {p!r}")
    if p < 0.0 or p > 1.0:
        raise ShapeError(f"{op}: dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0 or decide(input.numel() == 0):
        return input
    if p != 1 and not input.dtype.is_floating_point:
        raise ShapeError(f"{op}: result type Float can't be cast to the desired output type {input.dtype} "
                         "(dropout with 0 < p < 1 needs a floating-point input)", fix="convert the input first: x.float()")
    if p != 1 and feature and input.ndim < 2:
        raise ShapeError(f"{op}: Feature dropout requires at least 2 dimensions in the input, got {input.ndim}")
    if inplace:
        input.storage.version += 1
        return input
    if p == 1:  # input * zeros(())
        return FakeTensor(input.env, input.shape, input.dtype, stride=pointwise_strides(input.shape, [input]))
    if feature:
        noise = new_tensor(input.env, input.shape[:2] + (1,) * (input.ndim - 2), input.dtype)
    else:
        noise = new_tensor(input.env, input.shape, input.dtype, like_strides(input))
    return FakeTensor(input.env, input.shape, input.dtype, stride=pointwise_strides(input.shape, [input, noise]))


def _unbatched(op: str, input: FakeTensor, p: Any, training: bool, inplace: bool) -> FakeTensor:
    """Feature dropout on ``input.unsqueeze(0)``, squeezed back: a view of the input when nothing is dropped."""
    wide = FakeTensor(input.env, (1,) + input.shape, input.dtype,
                      stride=((input.shape[0] * input.stride(0)) if input.ndim else 1,) + input.stride(),
                      storage=input.storage, storage_offset=input.storage_offset())
    out = _dropout_like(op, wide, p, training, inplace, True)
    if inplace and out is wide:  # unsqueeze_ / squeeze_ on the input itself
        return input
    return FakeTensor(input.env, input.shape, input.dtype, stride=out.stride()[1:], storage=out.storage,
                      storage_offset=out.storage_offset())


@rule("dropout1d")
def dropout1d(input: FakeTensor, p: Any = 0.5, training: bool = True, inplace: bool = False) -> FakeTensor:
    """``F.dropout1d``: channel-wise on ``(N, C, L)``, or on an unbatched ``(C, L)`` (unsqueezed first, as torch does).

    >>> from shapeenv import ShapeEnv
    >>> x = ShapeEnv().fake_tensor((3, 5)); y = dropout1d(x, training=False); y is x, y.is_view_of(x)
    (False, True)
    """
    check_tensor(input, "dropout1d")
    if input.ndim not in (2, 3):
        raise ShapeError(f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D input. Note that dropout1d "
                         "exists to provide channel-wise dropout on inputs with 1 spatial dimension")
    if input.ndim == 2:
        return _unbatched("dropout1d", input, p, training, inplace)
    return _dropout_like("dropout1d", input, p, training, inplace, True)


@rule("dropout2d")
def dropout2d(input: FakeTensor, p: Any = 0.5, training: bool = True, inplace: bool = False) -> FakeTensor:
    """``F.dropout2d``: channel-wise over dims 0 and 1 of the input as it is (torch 2.13 no longer unsqueezes a 3-d input).

    >>> from shapeenv import ShapeEnv
    >>> x = ShapeEnv().fake_tensor((2, 3, 4, 5)); dropout2d(x, training=False) is x
    True
    """
    return _dropout_like("dropout2d", input, p, training, inplace, True)


@rule("dropout3d")
def dropout3d(input: FakeTensor, p: Any = 0.5, training: bool = True, inplace: bool = False) -> FakeTensor:
    """``F.dropout3d``: channel-wise on ``(N, C, D, H, W)``; any other rank is unsqueezed first (a view in eval mode).

    >>> from shapeenv import ShapeEnv
    >>> dropout3d(ShapeEnv().fake_tensor((2, 3, 4, 5, 6)), 0.2).shape
    (s0, s1, s2, s3, s4)
    """
    check_tensor(input, "dropout3d")
    if input.ndim != 5:
        return _unbatched("dropout3d", input, p, training, inplace)
    return _dropout_like("dropout3d", input, p, training, inplace, True)


@rule("alpha_dropout")
def alpha_dropout(input: FakeTensor, p: Any = 0.5, training: bool = False, inplace: bool = False) -> FakeTensor:
    """``F.alpha_dropout(input, p=0.5, training=False, inplace=False)`` (note: ``training`` defaults to False).

    >>> from shapeenv import ShapeEnv
    >>> x = ShapeEnv().fake_tensor((2, 3)); alpha_dropout(x) is x, alpha_dropout(x, 0.5, True) is x
    (True, False)
    """
    return _dropout_like("alpha_dropout", input, p, training, inplace, False)


@rule("feature_alpha_dropout")
def feature_alpha_dropout(input: FakeTensor, p: Any = 0.5, training: bool = False, inplace: bool = False) -> FakeTensor:
    """``F.feature_alpha_dropout``: channel-wise ``alpha_dropout`` (``training`` defaults to False).

    >>> from shapeenv import ShapeEnv
    >>> feature_alpha_dropout(ShapeEnv().fake_tensor((2, 3, 4)), 0.5, True).shape
    (s0, s1, s2)
    """
    return _dropout_like("feature_alpha_dropout", input, p, training, inplace, True)
