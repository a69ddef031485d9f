"""Transposed convolutions: ``conv_transpose1d``, ``conv_transpose2d``.

The weight is ``(C_in, C_out / groups, *kernel)``; an input of ``C_in`` channels gives
``C_out = weight.size(1) * groups`` channels and, per spatial dim,
``(n - 1) * stride - 2 * padding + dilation * (kernel - 1) + output_padding + 1``, which must be
positive. ``output_padding`` must be smaller than the stride or the dilation. Every condition is a
:func:`~shapeenv.ops.common.require` (a guard only where the hints alone decide).

Layouts (torch's CPU kernels): a 4-d result is channels-last when the input or the weight
suggests channels-last, else contiguous; 1-d results are contiguous.

>>> from shapeenv import ShapeEnv
>>> env = ShapeEnv(); x = env.fake_tensor((2, 8, 16, 16), name="x", dynamic={0, 2, 3})
>>> w = env.fake_tensor((8, 4, 2, 2), name="w", dynamic=False)
>>> conv_transpose2d(x, w, stride=2).shape, len(env.guards)
((s0, 4, 2*s1, 2*s1), 0)
"""

from __future__ import annotations

from typing import Any

from shapeenv.tensor import layout
from shapeenv.tensor.tensor import FakeTensor
from shapeenv.ops.common import fmt_shape, new_tensor, require
from shapeenv.ops.rules.conv import check_bias, check_conv_operands, size_tuple
from shapeenv.ops.registry import rule

__all__ = ["conv_transpose1d", "conv_transpose2d", "conv_transpose_output_size"]


def conv_transpose_output_size(size: Any, kernel: Any, stride: Any, padding: Any, output_padding: Any,
                               dilation: Any) -> Any:
    """``(size - 1) * stride - 2 * padding + dilation * (kernel - 1) + output_padding + 1``.

    >>> conv_transpose_output_size(7, 3, 2, 1, 1, 1)
    14
    """
    return (size - 1) * stride - 2 * padding + dilation * (kernel - 1) + output_padding + 1


def _conv_transpose(op: str, n: int, x: FakeTensor, weight: FakeTensor, bias: Any, stride: Any, padding: Any,
                    output_padding: Any, groups: Any, dilation: Any) -> FakeTensor:
    check_conv_operands(op, n, x, weight, groups, "in_channels, out_channels/groups, *kernel")
    batched = x.ndim == n + 2
    xb = x.shape if batched else (1,) + x.shape
    strides = size_tuple(stride, n, op, "stride")
    pads = size_tuple(padding, n, op, "padding")
    out_pads = size_tuple(output_padding, n, op, "output_padding")
    dilations = size_tuple(dilation, n, op, "dilation")
    for v in strides + dilations:
        require(v > 0, lambda: f"{op}: stride and dilation must be positive, got stride={strides}, dilation={dilations}")
    for p in pads + out_pads:
        require(p >= 0, lambda: f"{op}: negative padding is not supported, got padding={pads}, output_padding={out_pads}")
    for op_, s, d in zip(out_pads, strides, dilations):
        require((op_ < s) | (op_ < d), lambda: (
            f"{op}: output padding must be smaller than either stride or dilation, but got output_padding={out_pads}, "
            f"stride={strides}, dilation={dilations}"))
    c_in = weight.shape[0]
    require(c_in % groups == 0, lambda: (f"{op}: given groups={groups}, expected weight to be divisible by {groups} at "
                                         f"dimension 0, but got weight of size {fmt_shape(weight.shape)} instead"))
    require(xb[1] == c_in, lambda: (f"{op}: Given transposed=1, weight of size {fmt_shape(weight.shape)}, expected "
                                    f"input{fmt_shape(x.shape)} to have {c_in} channels, but got {xb[1]} channels instead"))
    c_out = weight.shape[1] * groups
    check_bias(op, bias, c_out, weight, transposed=True)
    spatial = [conv_transpose_output_size(size, k, s, p, o, d)
               for size, k, s, p, o, d in zip(xb[2:], weight.shape[2:], strides, pads, out_pads, dilations)]
    for o in spatial:
        require(o > 0, lambda: (f"{op}: Given input size per channel: {fmt_shape(xb[2:])}. Calculated output size per "
                                f"channel: {fmt_shape(spatial)}. Output size is too small"))
    shape = (xb[0], c_out, *spatial)
    if not batched:
        return new_tensor(x.env, shape[1:], x.dtype)
    strides_out = None
    if n == 2 and any(layout.suggest_memory_format(t.shape, t.stride()) == "channels_last" for t in (x, weight)):
        strides_out = layout.channels_last_strides(shape)
    return new_tensor(x.env, shape, x.dtype, strides_out)


@rule("conv_transpose1d")
def conv_transpose1d(input: FakeTensor, weight: FakeTensor, bias: FakeTensor | None = None, stride: Any = 1,
                     padding: Any = 0, output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> FakeTensor:
    """``F.conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1)``.

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); x = env.fake_tensor((2, 3, 10), name="x", dynamic=False)
    >>> conv_transpose1d(x, env.fake_tensor((3, 5, 4), name="w", dynamic=False), None, 3, 1, 2).shape
    (2, 5, 31)
    """
    return _conv_transpose("conv_transpose1d", 1, input, weight, bias, stride, padding, output_padding, groups, dilation)


@rule("conv_transpose2d")
def conv_transpose2d(input: FakeTensor, weight: FakeTensor, bias: FakeTensor | None = None, stride: Any = 1,
                     padding: Any = 0, output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> FakeTensor:
    """``F.conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1)``.

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); x = env.fake_tensor((2, 3, 7, 9), name="x", dynamic=False)
    >>> conv_transpose2d(x, env.fake_tensor((3, 4, 3, 3), name="w", dynamic=False), None, 2, 1, 1).shape
    (2, 4, 14, 18)
    """
    return _conv_transpose("conv_transpose2d", 2, input, weight, bias, stride, padding, output_padding, groups, dilation)
