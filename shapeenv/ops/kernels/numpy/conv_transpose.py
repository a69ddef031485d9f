"""numpy kernels of the ops of :mod:`shapeenv.ops.rules.conv_transpose` (torch's semantics; see :mod:`shapeenv.ops.kernels.numpy`).

>>> import numpy as np
>>> conv_transpose1d(np.ones((1, 1, 2)), np.ones((1, 1, 2)), None, 2).tolist()
[[[1.0, 1.0, 1.0, 1.0]]]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from shapeenv.ops.kernels.numpy.common import kernel

__all__: list[str] = []


# -- transposed convolutions -------------------------------------------------------------------------
def _tuple(value: Any, n: int) -> tuple[int, ...]:
    items = tuple(value) if isinstance(value, (list, tuple)) else (value,)
    return tuple(int(v) for v in (items * n if len(items) == 1 else items))


def _conv_transpose(n: int, x: np.ndarray, weight: np.ndarray, bias: Any, stride: Any, padding: Any,
                    output_padding: Any, groups: int, dilation: Any) -> np.ndarray:
    batched = x.ndim == n + 2
    xb = x if batched else x[None]
    s, p, o, d = (_tuple(v, n) for v in (stride, padding, output_padding, dilation))
    c_in, c_out_g = weight.shape[0], weight.shape[1]
    kernel_ = weight.shape[2:]
    spatial = xb.shape[2:]
    out_sizes = [(i - 1) * st - 2 * pd + dl * (k - 1) + op + 1 for i, k, st, pd, op, dl in zip(spatial, kernel_, s, p, o, d)]
    full = [max((i - 1) * st + dl * (k - 1) + 1, pd + size) for i, k, st, dl, pd, size in zip(spatial, kernel_, s, d, p, out_sizes)]
    buf = np.zeros((xb.shape[0], c_out_g * groups, *full), np.float64)
    per = c_in // groups
    for g in range(groups):
        xg = xb[:, g * per:(g + 1) * per].astype(np.float64)
        wg = weight[g * per:(g + 1) * per].astype(np.float64)
        for offs in np.ndindex(*kernel_):
            contrib = np.einsum("nc...,co->no...", xg, wg[(Ellipsis,) + offs])
            index = tuple(slice(k * dl, k * dl + (i - 1) * st + 1, st) for k, dl, i, st in zip(offs, d, spatial, s))
            buf[(slice(None), slice(g * c_out_g, (g + 1) * c_out_g)) + index] += contrib
    crop = tuple(slice(pd, pd + size) for pd, size in zip(p, out_sizes))
    out = buf[(slice(None), slice(None)) + crop]
    if bias is not None:
        out = out + np.asarray(bias, np.float64).reshape((1, -1) + (1,) * n)
    out = out.astype(x.dtype)
    return out if batched else out[0]


@kernel("conv_transpose1d")
def conv_transpose1d(input: np.ndarray, weight: np.ndarray, bias: Any = None, stride: Any = 1, padding: Any = 0,
                     output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> np.ndarray:
    """``F.conv_transpose1d``."""
    return _conv_transpose(1, input, weight, bias, stride, padding, output_padding, groups, dilation)


@kernel("conv_transpose2d")
def conv_transpose2d(input: np.ndarray, weight: np.ndarray, bias: Any = None, stride: Any = 1, padding: Any = 0,
                     output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> np.ndarray:
    """``F.conv_transpose2d``."""
    return _conv_transpose(2, input, weight, bias, stride, padding, output_padding, groups, dilation)
