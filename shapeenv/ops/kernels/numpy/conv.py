"""numpy kernels of the ops of :mod:`shapeenv.ops.rules.conv` (torch's semantics; see :mod:`shapeenv.ops.kernels.numpy`).

Sliding-window ops use ``sliding_window_view`` and torch's output-size formulas, including
``ceil_mode``'s rule that the last window must start inside the input or its left padding, and
``avg_pool2d``'s divisor (padding counted, overhang not).

>>> import numpy as np
>>> x = np.arange(25.0).reshape(1, 1, 5, 5)
>>> max_pool2d(x, 2, ceil_mode=True)[0, 0]
array([[ 6.,  8.,  9.],
       [16., 18., 19.],
       [21., 23., 24.]])
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from shapeenv.ops.kernels.numpy.common import axis, kernel

__all__: list[str] = ["pool_output_size"]


# -- sliding windows ---------------------------------------------------------------------------------
def _tuple(value: Any, n: int) -> tuple[int, ...]:
    items = tuple(value) if isinstance(value, (list, tuple)) else (value,)
    return tuple(int(v) for v in (items * n if len(items) == 1 else items))


def _windows(x: np.ndarray, n: int, kernel_: Sequence[int], strides: Sequence[int], dilations: Sequence[int],
             outs: Sequence[int]) -> np.ndarray:
    """``(..., *outs, *kernel)`` windows over the last ``n`` dims of an already padded ``x``."""
    spans = [d * (k - 1) + 1 for k, d in zip(kernel_, dilations)]
    win = sliding_window_view(x, spans, axis=tuple(range(x.ndim - n, x.ndim)))
    lead = (slice(None),) * (x.ndim - n)
    index = lead + tuple(slice(0, max((o - 1) * s + 1, 0), s) for o, s in zip(outs, strides)) + tuple(slice(None, None, d) for d in dilations)
    return win[index]


def _conv(n: int, x: np.ndarray, weight: np.ndarray, bias: np.ndarray | None, stride: Any, padding: Any,
          dilation: Any, groups: int) -> np.ndarray:
    batched = x.ndim == n + 2
    xb = x if batched else x[None]
    kernel_ = weight.shape[2:]
    strides, dilations = _tuple(stride, n), _tuple(dilation, n)
    if isinstance(padding, str):
        totals = [d * (k - 1) if padding == "same" else 0 for k, d in zip(kernel_, dilations)]
        pads = [(t // 2, t - t // 2) for t in totals]  # torch puts the odd extra on the right
    else:
        pads = [(p, p) for p in _tuple(padding, n)]
    xp = np.pad(xb, [(0, 0), (0, 0)] + pads)
    outs = [(xp.shape[2 + i] - dilations[i] * (kernel_[i] - 1) - 1) // strides[i] + 1 for i in range(n)]
    win = _windows(xp, n, kernel_, strides, dilations, outs)  # (N, C, *outs, *k)
    batch, channels = xb.shape[:2]
    cg, cout = channels // groups, weight.shape[0]
    win = win.reshape(batch, groups, cg, *outs, *kernel_)
    w = weight.reshape(groups, cout // groups, cg, *kernel_)
    pos, ker = "pqr"[:n], "klm"[:n]
    out = np.einsum(f"ngc{pos}{ker},goc{ker}->ngo{pos}", win, w).reshape(batch, cout, *outs)
    if bias is not None:
        out = out + bias.reshape((cout,) + (1,) * n)
    return out if batched else out[0]


@kernel("conv1d")
def conv1d(x: np.ndarray, weight: np.ndarray, bias: np.ndarray | None = None, stride: Any = 1, padding: Any = 0,
           dilation: Any = 1, groups: int = 1) -> np.ndarray:
    """``torch.nn.functional.conv1d``."""
    return _conv(1, x, weight, bias, stride, padding, dilation, groups)


@kernel("conv2d")
def conv2d(x: np.ndarray, weight: np.ndarray, bias: np.ndarray | None = None, stride: Any = 1, padding: Any = 0,
           dilation: Any = 1, groups: int = 1) -> np.ndarray:
    """``torch.nn.functional.conv2d``."""
    return _conv(2, x, weight, bias, stride, padding, dilation, groups)


def pool_output_size(size: int, k: int, s: int, p: int, d: int, ceil_mode: bool) -> int:
    """torch's ``pooling_output_shape`` on ints.

    >>> pool_output_size(5, 2, 2, 0, 1, True), pool_output_size(5, 2, 2, 0, 1, False)
    (3, 2)
    """
    out = (size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def _pool_setup(x: np.ndarray, kernel_size: Any, stride: Any, padding: Any, dilation: Any, ceil_mode: bool, fill):
    kernel_ = _tuple(kernel_size, 2)
    strides = kernel_ if stride is None or (isinstance(stride, (list, tuple)) and not stride) else _tuple(stride, 2)
    pads, dilations = _tuple(padding, 2), _tuple(dilation, 2)
    outs = [pool_output_size(n, k, s, p, d, ceil_mode)
            for n, k, s, p, d in zip(x.shape[-2:], kernel_, strides, pads, dilations)]
    widths = [(0, 0)] * (x.ndim - 2)
    for n, k, s, p, d, o in zip(x.shape[-2:], kernel_, strides, pads, dilations, outs):
        needed = (o - 1) * s + d * (k - 1) + 1
        widths.append((p, max(needed - n - p, 0)))
    xp = np.pad(x, widths, constant_values=fill)
    return _windows(xp, 2, kernel_, strides, dilations, outs), kernel_, strides, pads, dilations, outs


@kernel("max_pool2d")
def max_pool2d(x: np.ndarray, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
               ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """``torch.nn.functional.max_pool2d``; indices are flat positions in each input plane."""
    low = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    win, kernel_, strides, pads, dilations, outs = _pool_setup(x, kernel_size, stride, padding, dilation, ceil_mode, low)
    flat = win.reshape(*win.shape[:-2], -1)
    values = np.max(flat, axis=-1)
    if not return_indices:
        return values
    k = np.argmax(flat, axis=-1)
    rows = np.arange(outs[0]).reshape(-1, 1) * strides[0] - pads[0] + (k // kernel_[1]) * dilations[0]
    cols = np.arange(outs[1]).reshape(1, -1) * strides[1] - pads[1] + (k % kernel_[1]) * dilations[1]
    return values, (rows * x.shape[-1] + cols).astype(np.int64)


@kernel("avg_pool2d")
def avg_pool2d(x: np.ndarray, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: int | None = None) -> np.ndarray:
    """``torch.nn.functional.avg_pool2d`` with torch's divisor (see the module docstring)."""
    win, kernel_, strides, pads, _, outs = _pool_setup(x, kernel_size, stride, padding, 1, ceil_mode, 0)
    total = np.sum(win, axis=(-2, -1))
    if divisor_override:
        return total / divisor_override
    extent = []
    for n, k, s, p, o in zip(x.shape[-2:], kernel_, strides, pads, outs):
        start = np.arange(o) * s - p
        end = np.minimum(start + k, n + p)
        extent.append(end - start if count_include_pad else np.minimum(end, n) - np.maximum(start, 0))
    return total / (extent[0].reshape(-1, 1) * extent[1].reshape(1, -1))


@kernel("pad")
def pad(x: np.ndarray, pad: Sequence[int], mode: str = "constant", value: Any = None) -> np.ndarray:
    """``torch.nn.functional.pad``: pairs from the last dim backwards; negative pads crop; ``reflect``,
    ``replicate`` and ``circular`` are numpy's ``reflect``, ``edge`` and ``wrap``."""
    out, widths = x, [(0, 0)] * x.ndim
    for i in range(len(pad) // 2):
        d = x.ndim - 1 - i
        left, right = int(pad[2 * i]), int(pad[2 * i + 1])
        out = out[(slice(None),) * d + (slice(max(-left, 0), out.shape[d] - max(-right, 0)),)]
        widths[d] = (max(left, 0), max(right, 0))
    if mode == "constant":
        return np.pad(out, widths, constant_values=0 if value is None else value)
    return np.pad(out, widths, mode={"reflect": "reflect", "replicate": "edge", "circular": "wrap"}[mode])
