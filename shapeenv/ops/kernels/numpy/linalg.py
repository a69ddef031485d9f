"""numpy kernels of the ops of :mod:`shapeenv.ops.rules.linalg` (torch's semantics; see :mod:`shapeenv.ops.kernels.numpy`)."""

from __future__ import annotations

import numpy as np

from shapeenv.ops.kernels.numpy.common import _arr, kernel

__all__: list[str] = []


# -- matrix products ---------------------------------------------------------------------------------
@kernel("matmul", "mm", "bmm")
def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` (numpy's matmul has torch's 1-d and batch-broadcasting rules)."""
    return _arr(np.matmul(a, b))


@kernel("linear")
def linear(x: np.ndarray, weight: np.ndarray, bias: np.ndarray | None = None) -> np.ndarray:
    """``x @ weight.T + bias``."""
    out = _arr(np.matmul(x, weight.T if weight.ndim == 2 else weight))
    return out if bias is None else out + bias


@kernel("outer")
def outer(input: np.ndarray, vec2: np.ndarray) -> np.ndarray:
    """``torch.outer``."""
    return np.multiply.outer(input, vec2)
