"""numpy kernels of the ops of :mod:`shapeenv.ops.rules.setitem` (torch's semantics; see :mod:`shapeenv.ops.kernels.numpy`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from shapeenv.ops.kernels.numpy.common import kernel
from shapeenv.ops.kernels.numpy.indexing import split_index

__all__: list[str] = []


# -- writes through an index -------------------------------------------------------------------------
@kernel("setitem")
def setitem(input: np.ndarray, index: Any, value: Any) -> np.ndarray:
    """``input[index] = value`` in place."""
    view, rest = split_index(input, index)
    view[rest] = value
    return input


@kernel("index_put_")
def index_put_(input: np.ndarray, indices: Any, values: np.ndarray, accumulate: bool = False) -> np.ndarray:
    """``input.index_put_(indices, values, accumulate)``."""
    index = tuple(slice(None) if i is None else i for i in indices)
    if accumulate:
        np.add.at(input, index, values)
    else:
        input[index] = values
    return input


@kernel("index_put")
def index_put(input: np.ndarray, indices: Any, values: np.ndarray, accumulate: bool = False) -> np.ndarray:
    """``torch.index_put``: a copy."""
    return index_put_(input.copy(), indices, values, accumulate)
