"""numpy kernels of the ops of :mod:`shapeenv.ops.rules.einsum` (torch's semantics; see :mod:`shapeenv.ops.kernels.numpy`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from shapeenv.ops.kernels.numpy.common import kernel

__all__: list[str] = []


@kernel("einsum")
def einsum(equation: str, *operands: Any) -> np.ndarray:
    """``torch.einsum`` (operands may be one list)."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    return np.einsum(equation.replace(" ", ""), *operands)
