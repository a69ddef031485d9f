"""Adaptive pooling, 1-d pooling, and resampling: ``adaptive_{avg,max}_pool{1,2}d``, ``avg_pool1d``,
``max_pool1d``, ``interpolate`` (``upsample``).

* Adaptive pools take ``output_size`` (an int, or a pair whose ``None`` entries keep the input's
  size); the pooled dims must be non-empty. 1-d variants are computed by torch on the input
  unsqueezed to 2-d, so their layouts follow the 2-d kernels'.
* ``avg_pool1d``/``max_pool1d`` use the window arithmetic of :mod:`shapeenv.ops.rules.conv`
  (``ceil_mode`` included); the padding may not exceed half the kernel; at least one output.
* ``interpolate(input, size=None, scale_factor=None, mode='nearest', ...)``: one of ``size`` and
  ``scale_factor``; the output size is ``floor(in * scale)`` with the product rounded to a double,
  as torch computes it: for a plain int size that is Python's float product; for a symbolic size
  and a float ``p / 2**k`` with ``2**k <= 65536`` (0.5, 1.5, 2.0, 0.25 ...) it is exactly
  ``(in * p) // 2**k``; other floats (0.7) and ``SymFloat`` scales give ``FloorToInt(in * scale)``,
  whose rounding near an integer may differ from the double's (documented imprecision). Every
  output size must be positive. ``align_corners`` only
  with the interpolating modes, ``antialias`` only for 4-d ``bilinear``/``bicubic``.

Layouts are torch's CPU kernels': 4-d (and 5-d) outputs are channels-last when the input's
``suggest_memory_format`` is, else contiguous.

>>> from shapeenv import ShapeEnv
>>> env = ShapeEnv(); x = env.fake_tensor((2, 3, 8, 6), name="x")
>>> interpolate(x, scale_factor=1.5).shape, adaptive_avg_pool2d(x, (None, 1)).shape
((s0, s1, FloorDiv(3*s2, 2), FloorDiv(3*s3, 2)), (s0, s1, s2, 1))
"""

from __future__ import annotations

import math
from typing import Any, Sequence

from symint import SymFloat, SymInt, sym_float

from shapeenv.errors import ShapeError
from shapeenv.tensor import layout
from shapeenv.tensor.dtypes import int64, uint8
from shapeenv.tensor.tensor import FakeTensor
from shapeenv.ops.common import check_size, check_tensor, fmt_shape, new_tensor, require
from shapeenv.ops.rules.conv import pool_output_size
from shapeenv.ops.registry import rule

__all__ = ["adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_max_pool1d", "adaptive_max_pool2d",
           "avg_pool1d", "max_pool1d", "interpolate", "scaled_size"]


def _ints(value: Any, n: int, op: str, what: str, allow_none: bool = False) -> tuple:
    items = tuple(value) if isinstance(value, (list, tuple)) else (value,) * n
    if len(items) != n:
        raise ShapeError(f"{op}: {what} must be an int or a tuple of {n}, got {value!r}")
    for v in items:
        if not (allow_none and v is None):
            check_size(v, op, what)
    return items


def _layout(shape: tuple, like: tuple, like_strides: tuple) -> tuple | None:
    """Channels-last strides for ``shape`` if the (4-d/5-d) input ``like`` suggests channels-last, else None."""
    if len(like) in (4, 5):
        fmt = layout.suggest_memory_format(like, like_strides)
        if fmt != "contiguous_format":
            return layout.format_strides(shape, fmt)
    return None


def _unsqueezed(x: FakeTensor) -> tuple[tuple, tuple]:
    """The shape and strides of ``x.unsqueeze(-2)`` (how torch runs a 1-d pool on the 2-d kernel)."""
    d = x.ndim - 1
    stride = x.shape[d] * x.stride(d)
    return x.shape[:d] + (1,) + x.shape[d:], x.stride()[:d] + (stride,) + x.stride()[d:]


def _squeezed_layout(x: FakeTensor, out_shape: tuple) -> tuple | None:
    """Strides of a 1-d pool's output: the 2-d kernel's on the unsqueezed input, with the size-1 dim dropped."""
    shape4, strides4 = _unsqueezed(x)
    wide = out_shape[:-1] + (1,) + out_shape[-1:]
    strides = _layout(wide, shape4, strides4)
    return None if strides is None else strides[:-2] + strides[-1:]


def _floating(op: str, x: FakeTensor) -> None:
    if not x.dtype.is_floating_point:
        raise ShapeError(f'{op}: "{op}" not implemented for {x.dtype}', fix="convert the input first: x.float()")


def _adaptive(op: str, x: FakeTensor, output_size: Any, n: int) -> tuple:
    check_tensor(x, op)
    if x.ndim not in (n + 1, n + 2):
        raise ShapeError(f"{op}(): Expected {n + 1}D or {n + 2}D tensor, but got {fmt_shape(x.shape)}")
    _floating(op, x)
    for size in x.shape[-n:]:
        require(size != 0, lambda: (f"{op}(): Expected input to have non-zero size for non-batch dimensions, but "
                                    f"input has sizes {fmt_shape(x.shape)}"))
    if output_size is None and n == 1:
        raise ShapeError(f"{op}: output_size must be an int or a 1-tuple, got None")
    sizes = _ints(output_size, n, op, "output_size", allow_none=n > 1)
    out = tuple(x.shape[x.ndim - n + i] if s is None else s for i, s in enumerate(sizes))
    for s in out:
        require(s >= 0, lambda: f"{op}: output_size must be non-negative, got {output_size!r}")
    return x.shape[:-n] + out


@rule("adaptive_avg_pool2d")
def adaptive_avg_pool2d(input: FakeTensor, output_size: Any) -> FakeTensor:
    """``F.adaptive_avg_pool2d(input, output_size)``.

    >>> from shapeenv import ShapeEnv
    >>> adaptive_avg_pool2d(ShapeEnv().fake_tensor((2, 3, 7, 9), dynamic=False), 1).shape
    (2, 3, 1, 1)
    """
    shape = _adaptive("adaptive_avg_pool2d", input, output_size, 2)
    return new_tensor(input.env, shape, input.dtype, _layout(shape, input.shape, input.stride()))


@rule("adaptive_max_pool2d")
def adaptive_max_pool2d(input: FakeTensor, output_size: Any, return_indices: bool = False) -> Any:
    """``F.adaptive_max_pool2d(input, output_size, return_indices=False)``.

    >>> from shapeenv import ShapeEnv
    >>> [t.dtype for t in adaptive_max_pool2d(ShapeEnv().fake_tensor((3, 7, 9)), (2, None), True)]
    [float32, int64]
    """
    shape = _adaptive("adaptive_max_pool2d", input, output_size, 2)
    strides = _layout(shape, input.shape, input.stride())
    out = new_tensor(input.env, shape, input.dtype, strides)
    return (out, new_tensor(input.env, shape, int64, strides)) if return_indices else out


@rule("adaptive_avg_pool1d")
def adaptive_avg_pool1d(input: FakeTensor, output_size: Any) -> FakeTensor:
    """``F.adaptive_avg_pool1d(input, output_size)``.

    >>> from shapeenv import ShapeEnv
    >>> adaptive_avg_pool1d(ShapeEnv().fake_tensor((2, 3, 10)), 4).shape
    (s0, s1, 4)
    """
    shape = _adaptive("adaptive_avg_pool1d", input, output_size, 1)
    return new_tensor(input.env, shape, input.dtype, _squeezed_layout(input, shape))


@rule("adaptive_max_pool1d")
def adaptive_max_pool1d(input: FakeTensor, output_size: Any, return_indices: bool = False) -> Any:
    """``F.adaptive_max_pool1d(input, output_size, return_indices=False)``.

    >>> from shapeenv import ShapeEnv
    >>> adaptive_max_pool1d(ShapeEnv().fake_tensor((3, 10)), 5).shape
    (s0, 5)
    """
    shape = _adaptive("adaptive_max_pool1d", input, output_size, 1)
    strides = _squeezed_layout(input, shape)
    out = new_tensor(input.env, shape, input.dtype, strides)
    return (out, new_tensor(input.env, shape, int64, strides)) if return_indices else out


def _pool1d(op: str, x: FakeTensor, kernel_size: Any, stride: Any, padding: Any, dilation: Any,
            ceil_mode: bool) -> tuple:
    check_tensor(x, op)
    if x.ndim not in (2, 3):
        raise ShapeError(f"{op}: Expected 2D or 3D (batch mode) tensor for input, got {fmt_shape(x.shape)}")
    for size in x.shape[1:] if x.ndim == 3 else x.shape:
        require(size != 0, lambda: f"{op}: Expected non-empty non-batch dims for input, got {fmt_shape(x.shape)}")
    (k,) = _ints(kernel_size, 1, op, "kernel_size")
    s = k if stride is None or (isinstance(stride, (list, tuple)) and not stride) else _ints(stride, 1, op, "stride")[0]
    (p,) = _ints(padding, 1, op, "padding")
    (d,) = _ints(dilation, 1, op, "dilation")
    for what, v in (("kernel_size", k), ("stride", s), ("dilation", d)):
        require(v > 0, lambda what=what, v=v: f"{op}() {what} must be greater than zero, but got {what}={v}")
    require(p >= 0, lambda: f"{op}() padding must be non-negative, but got padding={p}")
    require(p <= k // 2, lambda: f"{op}() padding should be at most half of kernel size, but got padding={p} and "
                                 f"kernel_size={k}")
    out = pool_output_size(x.shape[-1], k, s, p, d, ceil_mode)
    require(out >= 1, lambda: f"{op}() Invalid computed output size: {out} (input of size {fmt_shape(x.shape)})")
    return x.shape[:-1] + (out,)


@rule("avg_pool1d")
def avg_pool1d(input: FakeTensor, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
               count_include_pad: bool = True) -> FakeTensor:
    """``F.avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True)``.

    >>> from shapeenv import ShapeEnv
    >>> avg_pool1d(ShapeEnv().fake_tensor((2, 3, 10), dynamic=False), 3, 2, 1, True).shape
    (2, 3, 6)
    """
    shape = _pool1d("avg_pool1d", input, kernel_size, stride, padding, 1, ceil_mode)
    return new_tensor(input.env, shape, input.dtype, _squeezed_layout(input, shape))


@rule("max_pool1d")
def max_pool1d(input: FakeTensor, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
               ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """``F.max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False)``:
    a contiguous result (torch's 1-d kernel); with indices, the 2-d kernel's layout.

    >>> from shapeenv import ShapeEnv
    >>> max_pool1d(ShapeEnv().fake_tensor((2, 3, 10), dynamic=False), 3).shape
    (2, 3, 3)
    """
    shape = _pool1d("max_pool1d", input, kernel_size, stride, padding, dilation, ceil_mode)
    if not return_indices:
        return new_tensor(input.env, shape, input.dtype)
    strides = _squeezed_layout(input, shape)
    return new_tensor(input.env, shape, input.dtype, strides), new_tensor(input.env, shape, int64, strides)


_MODES = {3: ("nearest", "linear", "area", "nearest-exact"), 4: ("nearest", "bilinear", "bicubic", "area", "nearest-exact"),
          5: ("nearest", "trilinear", "area", "nearest-exact")}
_INTERPOLATING = ("linear", "bilinear", "bicubic", "trilinear")


#: float scales whose denominator (a power of 2) is at most this give exact integer sizes: ``(size * p) // q``
_EXACT_DENOMINATOR = 1 << 16


def scaled_size(size: Any, scale: Any) -> Any:
    """``floor(size * scale)`` as torch computes an output size from a scale factor (exact for float scales).

    >>> scaled_size(7, 1.5), scaled_size(10, 0.7), scaled_size(10, 3.3)
    (10, 7, 33)
    """
    if isinstance(scale, int) and not isinstance(scale, bool):
        return size * scale
    if isinstance(scale, float) and math.isfinite(scale):
        if isinstance(size, int):
            return math.floor(size * scale)  # the double product, rounded as torch rounds it
        p, q = scale.as_integer_ratio()
        if q <= _EXACT_DENOMINATOR:  # 0.5, 1.5, 2.0, 0.125 ...: size * p is exact in a double
            return size * p if q == 1 else (size * p) // q
        return math.floor(sym_float(size) * scale)
    if isinstance(scale, SymFloat):
        return math.floor(sym_float(size) * scale)
    raise ShapeError(f"interpolate: scale_factor must be a float (or SymFloat), got {scale!r}")


@rule("interpolate")
def interpolate(input: FakeTensor, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
                align_corners: Any = None, recompute_scale_factor: Any = None, antialias: bool = False) -> FakeTensor:
    """``F.interpolate(input, size=None, scale_factor=None, mode='nearest', align_corners=None,
    recompute_scale_factor=None, antialias=False)`` (see the module docstring).

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); x = env.fake_tensor((1, 3, 10), name="x")
    >>> interpolate(x, scale_factor=0.5, mode="linear").shape, interpolate(x, size=x.shape[-1] * 2).shape
    ((1, s0, FloorDiv(s1, 2)), (1, s0, 2*s1))
    """
    op = "interpolate"
    check_tensor(input, op)
    n = input.ndim - 2
    if input.ndim not in _MODES or mode not in _MODES[input.ndim]:
        if mode in _INTERPOLATING and input.ndim in _MODES:
            raise ShapeError(f"{op}: Got {input.ndim}D input, but {mode} mode needs "
                             f"{ {'linear': 3, 'bilinear': 4, 'bicubic': 4, 'trilinear': 5}[mode]}D input")
        raise ShapeError(f"{op}: Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for the "
                         f"modes: nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact "
                         f"(got mode={mode!r})")
    if align_corners is not None and mode not in _INTERPOLATING:
        raise ShapeError(f"{op}: align_corners option can only be set with the interpolating modes: linear | bilinear "
                         "| bicubic | trilinear", fix="drop align_corners for mode=" + repr(mode))
    if antialias and not (mode in ("bilinear", "bicubic") and input.ndim == 4):
        raise ShapeError(f"{op}: Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires "
                         "a 4-D tensor as input")
    if not (input.dtype.is_floating_point or (input.dtype == uint8 and mode in ("nearest", "nearest-exact", "bilinear"))):
        raise ShapeError(f'{op}: "upsample_{mode}" not implemented for {input.dtype}', fix="convert the input: x.float()")
    if (size is None) == (scale_factor is None):
        raise ShapeError(f"{op}: only one of size or scale_factor should be defined" if size is not None
                         else f"{op}: either size or scale_factor should be defined")
    spatial = input.shape[2:]
    if size is not None:
        if isinstance(size, (list, tuple)) and len(size) != n:
            raise ShapeError(f"{op}: Input and output must have the same number of spatial dimensions, but got input "
                             f"with spatial dimensions of {fmt_shape(spatial)} and output size of {list(size)}")
        out = _ints(size, n, op, "size")
    else:
        if isinstance(scale_factor, (list, tuple)) and len(scale_factor) != n:
            raise ShapeError(f"{op}: Input and scale_factor must have the same number of spatial dimensions, but got "
                             f"input with spatial dimensions of {fmt_shape(spatial)} and scale_factor of "
                             f"{list(scale_factor)}")
        scales: Sequence[Any] = tuple(scale_factor) if isinstance(scale_factor, (list, tuple)) else (scale_factor,) * n
        out = tuple(scaled_size(s, f) for s, f in zip(spatial, scales))
    message = lambda: (f"{op}: Input and output sizes should be greater than 0, but got input {fmt_shape(spatial)} "  # noqa: E731
                       f"output {fmt_shape(out)}")
    for s in spatial:
        require(s > 0, message)
    for s in out:
        require(s > 0, message)
    shape = input.shape[:2] + tuple(out)
    return new_tensor(input.env, shape, input.dtype, _layout(shape, input.shape, input.stride()))
