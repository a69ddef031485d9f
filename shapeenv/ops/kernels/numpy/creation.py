"""numpy kernels of the ops of :mod:`shapeenv.ops.rules.creation` (torch's semantics; see :mod:`shapeenv.ops.kernels.numpy`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from shapeenv.ops.kernels.numpy.common import as_sizes, kernel, np_dtype

__all__: list[str] = []


# -- creation ----------------------------------------------------------------------------------------
def _created(fill, size: tuple, dtype: Any, default: str = "float32") -> np.ndarray:
    return np.full(as_sizes(size), fill, np_dtype(default if dtype is None else dtype))


@kernel("zeros", "empty")
def zeros(*size: Any, dtype: Any = None, env: Any = None) -> np.ndarray:
    """``torch.zeros`` (also ``empty``: zero-filled, which is one valid ``empty``)."""
    return _created(0, size, dtype)


@kernel("ones")
def ones(*size: Any, dtype: Any = None, env: Any = None) -> np.ndarray:
    """``torch.ones``."""
    return _created(1, size, dtype)


@kernel("full")
def full(size: Any, fill_value: Any, dtype: Any = None, env: Any = None) -> np.ndarray:
    """``torch.full``: the dtype defaults to the fill value's."""
    default = "bool" if isinstance(fill_value, bool) else "int64" if isinstance(fill_value, int) else "float32"
    return _created(fill_value, size if isinstance(size, (list, tuple)) else (size,), dtype, default)


@kernel("arange")
def arange(start: Any, end: Any = None, step: Any = 1, dtype: Any = None, env: Any = None) -> np.ndarray:
    """``torch.arange``."""
    if end is None:
        start, end = 0, start
    return np.arange(start, end, step)


@kernel("rand")
def rand(*size: Any, dtype: Any = None, env: Any = None, _rng: np.random.Generator) -> np.ndarray:
    """``torch.rand``: uniform in ``[0, 1)`` from the program's generator."""
    return _rng.random(as_sizes(size))


@kernel("randn")
def randn(*size: Any, dtype: Any = None, env: Any = None, _rng: np.random.Generator) -> np.ndarray:
    """``torch.randn``: standard normal from the program's generator."""
    return _rng.standard_normal(as_sizes(size))


def _like(fill, t: np.ndarray, dtype: Any) -> np.ndarray:
    return np.full_like(t, fill, dtype=None if dtype is None else np_dtype(dtype))


@kernel("zeros_like", "empty_like")
def zeros_like(input: np.ndarray, dtype: Any = None) -> np.ndarray:
    """``torch.zeros_like`` (also ``empty_like``)."""
    return _like(0, input, dtype)


@kernel("ones_like")
def ones_like(input: np.ndarray, dtype: Any = None) -> np.ndarray:
    """``torch.ones_like``."""
    return _like(1, input, dtype)


@kernel("full_like")
def full_like(input: np.ndarray, fill_value: Any, dtype: Any = None) -> np.ndarray:
    """``torch.full_like``."""
    return _like(fill_value, input, dtype)


@kernel("rand_like")
def rand_like(input: np.ndarray, dtype: Any = None, *, _rng: np.random.Generator) -> np.ndarray:
    """``torch.rand_like``."""
    return _rng.random(input.shape)


@kernel("randn_like")
def randn_like(input: np.ndarray, dtype: Any = None, *, _rng: np.random.Generator) -> np.ndarray:
    """``torch.randn_like``."""
    return _rng.standard_normal(input.shape)
