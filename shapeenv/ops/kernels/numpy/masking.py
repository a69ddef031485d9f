"""numpy kernels of the ops of :mod:`shapeenv.ops.rules.masking` (torch's semantics; see :mod:`shapeenv.ops.kernels.numpy`).

>>> import numpy as np
>>> tril(np.ones((2, 3)), 0).tolist()
[[1.0, 0.0, 0.0], [1.0, 1.0, 0.0]]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from shapeenv.ops.kernels.numpy.common import kernel

__all__: list[str] = []


# -- masks and bounds ---------------------------------------------------------------------------------
def _value(value: Any) -> Any:
    return np.asarray(value).item() if isinstance(value, np.ndarray) else value


@kernel("masked_fill")
def masked_fill(input: np.ndarray, mask: np.ndarray, value: Any) -> np.ndarray:
    """``torch.masked_fill``: ``input`` and ``mask`` broadcast together; a contiguous copy."""
    shape = np.broadcast_shapes(input.shape, mask.shape)
    out = np.array(np.broadcast_to(input, shape), copy=True)
    out[np.broadcast_to(mask, shape)] = _value(value)
    return out


@kernel("masked_fill_")
def masked_fill_(input: np.ndarray, mask: np.ndarray, value: Any) -> np.ndarray:
    """``input.masked_fill_(mask, value)``."""
    input[np.broadcast_to(mask, input.shape)] = _value(value)
    return input


@kernel("tril")
def tril(input: np.ndarray, diagonal: Any = 0) -> np.ndarray:
    """``torch.tril`` (over the last two dims)."""
    return np.ascontiguousarray(np.tril(input, diagonal))


@kernel("triu")
def triu(input: np.ndarray, diagonal: Any = 0) -> np.ndarray:
    """``torch.triu``."""
    return np.ascontiguousarray(np.triu(input, diagonal))


@kernel("tril_")
def tril_(input: np.ndarray, diagonal: Any = 0) -> np.ndarray:
    """``input.tril_()``."""
    input[...] = np.tril(input, diagonal)
    return input


@kernel("triu_")
def triu_(input: np.ndarray, diagonal: Any = 0) -> np.ndarray:
    """``input.triu_()``."""
    input[...] = np.triu(input, diagonal)
    return input


def _clamped(input: np.ndarray, min: Any, max: Any) -> np.ndarray:  # noqa: A002
    out = input
    if min is not None:
        out = np.maximum(out, min)
    if max is not None:
        out = np.minimum(out, max)
    return out


@kernel("clamp")
def clamp(input: np.ndarray, min: Any = None, max: Any = None) -> np.ndarray:  # noqa: A002
    """``torch.clamp`` (tensor bounds broadcast)."""
    return _clamped(input, min, max)


@kernel("clamp_")
def clamp_(input: np.ndarray, min: Any = None, max: Any = None) -> np.ndarray:  # noqa: A002
    """``input.clamp_()``."""
    input[...] = _clamped(input, min, max)
    return input
