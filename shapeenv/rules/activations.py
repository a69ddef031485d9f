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

from ..errors import ShapeError
from ..fake.dtypes import bool_, float32
from ..fake.tensor import FakeTensor
from .common import check_tensor, decide, like_strides, new_tensor
from .elementwise import pointwise_strides
from .registry import rule

__all__ = ["gelu", "silu", "softplus", "hardswish", "hardsigmoid", "leaky_relu", "elu", "selu", "celu", "mish",
           "relu6", "hardtanh", "logsigmoid", "softsign", "dropout"]


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


@rule("silu")
def silu(input: FakeTensor, inplace: bool = False) -> FakeTensor:
    """``F.silu(input, inplace=False)``: ``x * sigmoid(x)``.

    >>> from shapeenv import ShapeEnv
    >>> x = ShapeEnv().fake_tensor((2, 3)); silu(x, inplace=True) is x, x.version
    (True, 1)
    """
    return _pointwise("silu", input, inplace=inplace)


@rule("softplus")
def softplus(input: FakeTensor, beta: Any = 1, threshold: Any = 20) -> FakeTensor:
    """``F.softplus(input, beta=1, threshold=20)``.

    >>> from shapeenv import ShapeEnv
    >>> softplus(ShapeEnv().fake_tensor((2,)), 2.0).dtype
    float32
    """
    return _pointwise("softplus", input)


@rule("hardswish")
def hardswish(input: FakeTensor, inplace: bool = False) -> FakeTensor:
    """``F.hardswish(input, inplace=False)``.

    >>> from shapeenv import ShapeEnv
    >>> hardswish(ShapeEnv().fake_tensor((2,), "float16")).dtype
    float16
    """
    return _pointwise("hardswish", input, inplace=inplace)


@rule("hardsigmoid")
def hardsigmoid(input: FakeTensor, inplace: bool = False) -> FakeTensor:
    """``F.hardsigmoid(input, inplace=False)``.

    >>> from shapeenv import ShapeEnv
    >>> hardsigmoid(ShapeEnv().fake_tensor((2,))).shape
    (s0,)
    """
    return _pointwise("hardsigmoid", input, inplace=inplace)


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


@rule("mish")
def mish(input: FakeTensor, inplace: bool = False) -> FakeTensor:
    """``F.mish(input, inplace=False)``.

    >>> from shapeenv import ShapeEnv
    >>> mish(ShapeEnv().fake_tensor((2,))).shape
    (s0,)
    """
    return _pointwise("mish", input, inplace=inplace)


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
    check_tensor(input, "dropout")
    if isinstance(p, bool) or not isinstance(p, (int, float)):
        raise ShapeError(f"dropout: p must be a float, got {p!r}")
    if p < 0.0 or p > 1.0:
        raise ShapeError(f"dropout: dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0 or decide(input.numel() == 0):
        return input
    if p == 1:  # input * zeros(()): any dtype
        if inplace:
            input.storage.version += 1
            return input
        return FakeTensor(input.env, input.shape, input.dtype, stride=pointwise_strides(input.shape, [input]))
    if not input.dtype.is_floating_point:
        raise ShapeError(f"dropout: result type Float can't be cast to the desired output type {input.dtype} "
                         "(dropout with 0 < p < 1 needs a floating-point input)", fix="convert the input first: x.float()")
    if inplace:
        input.storage.version += 1
        return input
    noise = new_tensor(input.env, input.shape, input.dtype, like_strides(input))  # empty_like(input).bernoulli_()
    return FakeTensor(input.env, input.shape, input.dtype, stride=pointwise_strides(input.shape, [input, noise]))
