"""numpy kernels of the ops of :mod:`shapeenv.ops.rules.bitwise` (torch's semantics; see :mod:`shapeenv.ops.kernels.numpy`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from shapeenv.ops.kernels.numpy.common import kernel

__all__: list[str] = []


def _binary(name: str, fn: Any) -> None:
    def run(input: Any, other: Any) -> np.ndarray:
        return fn(input, other)

    run.__doc__ = f"``torch.{name}``."
    kernel(name)(run)


for _name, _fn in {"bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor,
                   "logical_and": np.logical_and, "logical_or": np.logical_or,
                   "logical_xor": np.logical_xor}.items():
    _binary(_name, _fn)


def _inplace_binary(name: str, fn: Any) -> None:
    def run(input: np.ndarray, other: Any) -> np.ndarray:
        fn(input, other, out=input)
        return input

    run.__doc__ = f"``torch.Tensor.{name}``."
    kernel(name)(run)


for _name, _fn in {"bitwise_and_": np.bitwise_and, "bitwise_or_": np.bitwise_or, "bitwise_xor_": np.bitwise_xor}.items():
    _inplace_binary(_name, _fn)


@kernel("logical_not_")
def logical_not_(input: np.ndarray) -> np.ndarray:
    """``input.logical_not_()``."""
    input[...] = np.logical_not(input)
    return input


@kernel("bitwise_not")
def bitwise_not(input: np.ndarray) -> np.ndarray:
    """``~input``."""
    return np.invert(input)


@kernel("logical_not")
def logical_not(input: np.ndarray) -> np.ndarray:
    """``torch.logical_not``."""
    return np.logical_not(input)
