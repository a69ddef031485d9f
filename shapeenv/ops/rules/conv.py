"""Sliding windows and padding: ``conv1d``, ``conv2d``, ``max_pool2d``, ``avg_pool2d``, ``pad``.

A window of ``k`` taps ``dilation`` apart spans ``d*(k-1) + 1`` elements; over an input of ``n``
padded by ``p`` on each side with stride ``s`` it fits ``(n + 2p - d*(k-1) - 1) // s + 1`` times.
Convolutions need the padded input to hold one window, pooling needs at least one output; each
such condition is a :func:`~shapeenv.ops.common.require` (a guard only when the hints alone
decide it, e.g. ``n >= 3`` for a 3-tap kernel on a size in ``[2, oo]``).

Note [ceil_mode]
    With ``ceil_mode`` pooling rounds up, ``(n + 2p - d*(k-1) - 1 + (s-1)) // s + 1``, but torch
    drops the last window when it would start past the input and its left padding:
    ``(out - 1) * s >= n + p``. When that is not provable either way the size is
    ``IfThenElse(..., out - 1, out)`` rather than a guard.

>>> from shapeenv import ShapeEnv
>>> env = ShapeEnv(); x = env.fake_tensor((8, 3, 32, 32), name="x", dynamic={0})
>>> w = env.fake_tensor((16, 3, 3, 3), name="w", dynamic=False)
>>> conv2d(x, w, padding=1).shape, max_pool2d(x, 2).shape, len(env.guards)
((s0, 16, 32, 32), (s0, 3, 16, 16), 0)
"""

from __future__ import annotations

from typing import Any, Sequence

from symint import sym_ite

from shapeenv.errors import ShapeError
from shapeenv.tensor.dtypes import int64
from shapeenv.tensor.tensor import FakeTensor
from shapeenv.tensor import layout
from shapeenv.ops.common import check_size, check_tensor, fmt_shape, known_false, known_true, new_tensor, require
from shapeenv.ops.registry import rule

__all__ = ["check_bias", "check_conv_operands", "size_tuple", "conv1d", "conv2d", "max_pool2d", "avg_pool2d", "pad", "pool_output_size", "conv_output_size"]


def size_tuple(value: Any, n: int, op: str, what: str) -> tuple:
    """``value`` (an int, or a list/tuple of 1 or ``n``) as ``n`` sizes, as torch reads ``stride=``, ``padding=``...

    >>> size_tuple(2, 3, "conv3d", "stride"), size_tuple([1, 2], 2, "conv2d", "padding")
    ((2, 2, 2), (1, 2))
    """
    items = tuple(value) if isinstance(value, (list, tuple)) else (value,)
    if len(items) == 1:
        items = items * n
    if len(items) != n:
        raise ShapeError(f"{op}: {what} must be an int or a tuple of {n} ints, got {value!r}")
    return tuple(check_size(v, op, what) for v in items)


def conv_output_size(size: Any, kernel: Any, stride: Any, padding: Any, dilation: Any) -> Any:
    """``(size + 2*padding - dilation*(kernel-1) - 1) // stride + 1``.

    >>> conv_output_size(32, 3, 2, 1, 1)
    16
    """
    return (size + 2 * padding - dilation * (kernel - 1) - 1) // stride + 1


def pool_output_size(size: Any, kernel: Any, stride: Any, padding: Any, dilation: Any, ceil_mode: bool) -> Any:
    """torch's ``pooling_output_shape`` (see Note [ceil_mode]).

    >>> pool_output_size(5, 2, 2, 0, 1, True), pool_output_size(5, 2, 2, 0, 1, False)
    (3, 2)
    """
    out = (size + 2 * padding - dilation * (kernel - 1) - 1 + (stride - 1 if ceil_mode else 0)) // stride + 1
    if not ceil_mode:
        return out
    starts_outside = (out - 1) * stride >= size + padding
    if known_true(starts_outside):
        return out - 1
    if known_false(starts_outside):
        return out
    return sym_ite(starts_outside, out - 1, out)


def check_bias(op: str, bias: Any, c_out: Any, weight: FakeTensor, transposed: bool = False) -> None:
    """A convolution's optional bias: 1-d with ``c_out`` elements (torch's messages)."""
    if bias is None:
        return
    check_tensor(bias, op, "bias")
    if bias.ndim != 1:
        raise ShapeError(f"{op}: expected bias to be 1-dimensional with {c_out} elements, got {fmt_shape(bias.shape)}")
    given = "given transposed=1, weight" if transposed else "given weight"
    require(bias.shape[0] == c_out, lambda: (
        f"{op}: {given} of size {fmt_shape(weight.shape)}, expected bias to be 1-dimensional with {c_out} "
        f"elements, but got bias of size {fmt_shape(bias.shape)} instead"))


def check_conv_operands(op: str, n: int, x: FakeTensor, weight: FakeTensor, groups: Any, weight_dims: str) -> None:
    """The checks every ``n``-d convolution makes of its input, weight and ``groups`` (torch's messages).

    ``weight_dims`` words the weight's expected dims for the message.

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv()
    >>> try:
    ...     check_conv_operands("conv2d", 2, env.fake_tensor((1, 3, 8, 8), name="x"),
    ...                         env.fake_tensor((4, 3, 3), dynamic=False, name="w"), 1, "out_channels, in_channels/groups, *kernel")
    ... except ShapeError as e:
    ...     print(e.message)
    conv2d: expected a 4D weight (out_channels, in_channels/groups, *kernel), got [4, 3, 3]
    """
    check_tensor(x, op, "input")
    check_tensor(weight, op, "weight")
    if x.ndim not in (n + 1, n + 2):
        raise ShapeError(f"{op}: expected {n + 1}D (unbatched) or {n + 2}D (batched) input, but got input of size "
                         f"{fmt_shape(x.shape)}")
    if weight.ndim != n + 2:
        raise ShapeError(f"{op}: expected a {n + 2}D weight ({weight_dims}), got {fmt_shape(weight.shape)}")
    if x.dtype != weight.dtype:
        raise ShapeError(f"{op}: input type ({x.dtype}) and weight type ({weight.dtype}) should be the same")
    if isinstance(groups, bool) or not isinstance(groups, int) or groups <= 0:
        raise ShapeError(f"{op}: groups must be a positive int, got {groups!r}")


def _conv(op: str, n: int, x: FakeTensor, weight: FakeTensor, bias: FakeTensor | None,
          stride: Any, padding: Any, dilation: Any, groups: int) -> FakeTensor:
    check_conv_operands(op, n, x, weight, groups, "out_channels, in_channels/groups, *kernel")
    batched = x.ndim == n + 2
    xb = x.shape if batched else (1,) + x.shape
    c_out, c_in_per_group = weight.shape[0], weight.shape[1]
    kernel = weight.shape[2:]
    strides = size_tuple(stride, n, op, "stride")
    dilations = size_tuple(dilation, n, op, "dilation")
    for v in strides + dilations:
        require(v > 0, lambda: f"{op}: stride and dilation must be positive, got stride={strides}, dilation={dilations}")
    same = padding == "same"
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise ShapeError(f"{op}: invalid padding string {padding!r}; expected 'same' or 'valid'")
        if same and any(not known_true(s == 1) for s in strides):
            raise ShapeError(f"{op}: padding='same' is not supported for strided convolutions (stride={strides})")
        pads: tuple = (0,) * n
    else:
        pads = size_tuple(padding, n, op, "padding")
        for p in pads:
            require(p >= 0, lambda: f"{op}: negative padding is not supported, got {pads}")
    require(c_out % groups == 0, lambda: (
        f"{op}: given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but got weight "
        f"of size {fmt_shape(weight.shape)} instead"))
    require(xb[1] == c_in_per_group * groups, lambda: (
        f"{op}: given groups={groups}, weight of size {fmt_shape(weight.shape)}, expected input{fmt_shape(x.shape)} "
        f"to have {c_in_per_group * groups} channels, but got {xb[1]} channels instead"))
    check_bias(op, bias, c_out, weight)
    spatial = []
    for size, k, s, p, d in zip(xb[2:], kernel, strides, pads, dilations):
        if same:
            spatial.append(size)
            continue
        require(size + 2 * p >= d * (k - 1) + 1, lambda: (
            f"{op}: calculated padded input size per channel: {fmt_shape([a + 2 * b for a, b in zip(xb[2:], pads)])}. "
            f"Kernel size: {fmt_shape(kernel)}. Kernel size can't be greater than actual input size"))
        spatial.append(conv_output_size(size, k, s, p, d))
    shape = (xb[0], c_out, *spatial)
    if not batched:
        return new_tensor(x.env, shape[1:], x.dtype)
    return new_tensor(x.env, shape, x.dtype, _format_like(x, shape, weight))


@rule("conv1d")
def conv1d(x: FakeTensor, weight: FakeTensor, bias: FakeTensor | None = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> FakeTensor:
    """``torch.nn.functional.conv1d``: input ``(N, C_in, L)`` or ``(C_in, L)``, weight ``(C_out, C_in/groups, K)``.

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); x = env.fake_tensor((2, 4, 50), name="x", dynamic={2})
    >>> conv1d(x, env.fake_tensor((8, 4, 5), name="w", dynamic=False), stride=2).shape
    (2, 8, FloorDiv(s0 - 5, 2) + 1)
    """
    return _conv("conv1d", 1, x, weight, bias, stride, padding, dilation, groups)


@rule("conv2d")
def conv2d(x: FakeTensor, weight: FakeTensor, bias: FakeTensor | None = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> FakeTensor:
    """``torch.nn.functional.conv2d``: input ``(N, C_in, H, W)`` or ``(C_in, H, W)``; ``padding`` may be
    ``'same'`` or ``'valid'``.

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); x = env.fake_tensor((1, 4, 9, 9), name="x", dynamic=False)
    >>> conv2d(x, env.fake_tensor((6, 2, 3, 3), name="w", dynamic=False), groups=2, dilation=2).shape
    (1, 6, 5, 5)
    """
    return _conv("conv2d", 2, x, weight, bias, stride, padding, dilation, groups)


def _pool2d(op: str, x: FakeTensor, kernel_size: Any, stride: Any, padding: Any, dilation: Any,
            ceil_mode: bool) -> FakeTensor:
    check_tensor(x, op, "input")
    if x.ndim not in (3, 4):
        raise ShapeError(f"{op}: non-empty 3D or 4D (batch mode) tensor expected for input, got {fmt_shape(x.shape)}")
    for size in x.shape[-3:]:
        require(size != 0, lambda: (f"{op}: expected 3D or 4D (batch mode) tensor with optional 0 dim batch size "
                                    f"for input, but got: {fmt_shape(x.shape)}"))
    kernel = size_tuple(kernel_size, 2, op, "kernel_size")
    strides = kernel if stride is None or (isinstance(stride, (list, tuple)) and not stride) else size_tuple(stride, 2, op, "stride")
    pads = size_tuple(padding, 2, op, "padding")
    dilations = size_tuple(dilation, 2, op, "dilation")
    for what, values in (("kernel size", kernel), ("stride", strides), ("dilation", dilations)):
        for v in values:
            require(v > 0, lambda what=what, values=values: f"{op}: {what} should be greater than zero, got {values}")
    for k, p in zip(kernel, pads):
        require(p >= 0, lambda: f"{op}: padding must be non-negative, got {pads}")
        # torch checks pad <= k // 2, and for max pooling pad <= (d*(k-1) + 1) // 2, which that implies
        require(p <= k // 2, lambda p=p, k=k: (
            f"{op}: pad should be smaller than or equal to half of kernel size, but got pad={p}, kernel_size={k}"))
    out = [pool_output_size(n, k, s, p, d, ceil_mode)
           for n, k, s, p, d in zip(x.shape[-2:], kernel, strides, pads, dilations)]
    for o in out:
        require(o >= 1, lambda: (f"{op}: given input size: {fmt_shape(x.shape[-3:])}. Calculated output size: "
                                 f"{fmt_shape([x.shape[-3], *out])}. Output size is too small"))
    shape = x.shape[:-2] + tuple(out)
    return new_tensor(x.env, shape, x.dtype, _format_like(x, shape))


def _format_like(x: FakeTensor, shape: tuple, weight: FakeTensor | None = None) -> tuple | None:
    """Channels-last output strides when a 4-d input (or the weight) suggests channels-last, as torch's CPU kernels do."""
    if len(shape) != 4:
        return None
    if any(t is not None and t.ndim == 4 and layout.suggest_memory_format(t.shape, t.stride()) == "channels_last"
           for t in (x, weight)):
        return layout.channels_last_strides(shape)
    return None


@rule("max_pool2d")
def max_pool2d(x: FakeTensor, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
               ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """``torch.nn.functional.max_pool2d``; with ``return_indices``, ``(output, int64 indices)``.

    >>> from shapeenv import ShapeEnv
    >>> x = ShapeEnv().fake_tensor((1, 1, 5, 5), dynamic=False)
    >>> max_pool2d(x, 2, ceil_mode=True).shape, max_pool2d(x, 3, 2, 1).shape
    ((1, 1, 3, 3), (1, 1, 3, 3))
    """
    out = _pool2d("max_pool2d", x, kernel_size, stride, padding, dilation, ceil_mode)
    if return_indices:
        return out, new_tensor(x.env, out.shape, int64)
    return out


@rule("avg_pool2d")
def avg_pool2d(x: FakeTensor, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: int | None = None) -> FakeTensor:
    """``torch.nn.functional.avg_pool2d`` (no dilation; ``pad <= kernel_size // 2``).

    >>> from shapeenv import ShapeEnv
    >>> avg_pool2d(ShapeEnv().fake_tensor((2, 3, 8, 8), dynamic=False), 3, 2, 1).shape
    (2, 3, 4, 4)
    """
    if divisor_override is not None and divisor_override == 0:
        raise ShapeError("avg_pool2d: divisor must be not zero")
    return _pool2d("avg_pool2d", x, kernel_size, stride, padding, 1, ceil_mode)


_PAD_MODES = ("constant", "reflect", "replicate", "circular")


@rule("pad")
def pad(x: FakeTensor, pad: Sequence[Any], mode: str = "constant", value: Any = None) -> FakeTensor:
    """``torch.nn.functional.pad``: ``(left, right)`` pairs from the last dim backwards; a contiguous result.

    Negative pads crop; a padded size must not be negative. ``constant`` pads any number of dims;
    ``reflect``, ``replicate`` and ``circular`` pad the last 1, 2 or 3 dims of an input with one or
    two more dims (a batch dim optional), as torch's kernels do: ``reflect`` needs each pad smaller
    than the size it pads, ``circular`` at most that size, ``replicate`` non-empty padded dims.

    >>> from shapeenv import ShapeEnv
    >>> x = ShapeEnv().fake_tensor((2, 3, 5))
    >>> pad(x, (1, 2, -1, 0)).shape, pad(x, (2, 2), mode="reflect").shape
    ((s0, s1 - 1, s2 + 3), (s0, s1, s2 + 4))
    """
    check_tensor(x, "pad")
    if mode not in _PAD_MODES:
        raise ShapeError(f"pad: unrecognised padding mode {mode!r}; expected one of {', '.join(_PAD_MODES)}")
    pads = [check_size(p, "pad", "padding") for p in pad]
    if len(pads) % 2:
        raise ShapeError(f"pad: padding length must be divisible by 2, got {len(pads)} ({list(pad)})")
    if len(pads) // 2 > x.ndim:
        raise ShapeError(f"pad: padding length should be less than or equal to two times the input dimension but got "
                         f"padding length {len(pads)} and input of dimension {x.ndim}")
    n = len(pads) // 2
    if mode != "constant":
        if value is not None and value != 0:
            raise ShapeError(f"pad: padding mode {mode!r} doesn't take in value argument")
        if not 1 <= n <= 3 or x.ndim not in (n + 1, n + 2):
            raise ShapeError(f"pad: Padding size {len(pads)} is not supported for {x.ndim}D input tensor; mode "
                             f"{mode!r} pads the last 1, 2 or 3 dims of a {n + 1}D or {n + 2}D input",
                             fix="pad a batched input (unsqueeze(0)), or use mode='constant'")
    if mode == "replicate":  # torch: "possibly 0 batch size and other non-zero dimensions"
        for size in x.shape[1 if x.ndim == n + 2 else 0:]:
            require(size != 0, lambda: (f"pad: replicate padding expects a {n + 1}D or {n + 2}D (batch mode) tensor with "
                                        f"possibly 0 batch size and other non-zero dimensions, got {fmt_shape(x.shape)}"))
    shape = list(x.shape)
    for i in range(n):
        d = x.ndim - 1 - i
        left, right = pads[2 * i], pads[2 * i + 1]
        size = x.shape[d]
        if mode == "reflect":
            for p in (left, right):
                require(p < size, lambda p=p, d=d: (
                    f"pad: Padding size should be less than the corresponding input dimension, but got: padding "
                    f"({left}, {right}) at dimension {d} of input {fmt_shape(x.shape)}"))
        elif mode == "circular":
            for p in (left, right):
                require(p <= size, lambda: "pad: Padding value causes wrapping around more than once.")
        new = size + left + right
        require(new >= 0, lambda d=d, left=left, right=right: (
            f"pad: the input size {x.shape[d]}, plus negative padding {left} and {right} resulted in a negative "
            f"output size, which is invalid. Check dimension {d} of your input"))
        shape[d] = new
    return new_tensor(x.env, shape, x.dtype)
