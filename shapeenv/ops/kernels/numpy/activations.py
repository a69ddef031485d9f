"""numpy kernels of the ops of :mod:`shapeenv.ops.rules.activations` (torch's semantics; see :mod:`shapeenv.ops.kernels.numpy`).

``inplace=True`` writes into the input and returns it. Results are computed in the input's floating
dtype; the interpreter casts each result to the dtype the program predicts.

>>> import numpy as np
>>> hardtanh(np.array([-3.0, 0.5, 3.0]), -1.0, 2.0).tolist()
[-1.0, 0.5, 2.0]
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from shapeenv.ops.registry import eager_kernel
from shapeenv.ops.kernels.numpy.common import KERNELS, as_float, erf, kernel

__all__: list[str] = []


def _out(x: np.ndarray, value: np.ndarray, inplace: bool) -> np.ndarray:
    if inplace:
        x[...] = value
        return x
    return np.asarray(value, dtype=x.dtype if x.dtype.kind == "f" else None)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def _softplus(x: np.ndarray, beta: float = 1.0, threshold: float = 20.0) -> np.ndarray:
    bx = beta * x
    return np.where(bx > threshold, x, np.log1p(np.exp(np.minimum(bx, threshold))) / beta)


@kernel("gelu")
def gelu(input: np.ndarray, approximate: str = "none") -> np.ndarray:
    """``F.gelu``: exact (erf) or the tanh approximation."""
    x = as_float(input).astype(np.float64)
    if approximate == "tanh":
        y = 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))
    else:
        y = 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))
    return y.astype(input.dtype)


def _activation(name: str, fn: Callable[..., np.ndarray]) -> None:
    """Register ``name(input, inplace=False)``."""

    def run(input: np.ndarray, inplace: bool = False) -> np.ndarray:
        return _out(input, fn(as_float(input)), inplace)

    run.__name__ = run.__qualname__ = name
    run.__doc__ = f"``F.{name}``."
    kernel(name)(run)


_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772, 1.0507009873554805


_activation("silu", lambda x: x * _sigmoid(x))


_activation("hardswish", lambda x: x * np.clip(x + 3.0, 0.0, 6.0) / 6.0)


_activation("hardsigmoid", lambda x: np.clip(x + 3.0, 0.0, 6.0) / 6.0)


_activation("selu", lambda x: _SELU_SCALE * np.where(x > 0, x, _SELU_ALPHA * np.expm1(x)))


_activation("mish", lambda x: x * np.tanh(_softplus(x)))


@kernel("relu6")
def relu6(input: np.ndarray, inplace: bool = False) -> np.ndarray:
    """``F.relu6`` (integers stay integers)."""
    return _out(input, np.clip(input, 0, 6).astype(input.dtype), inplace)


@kernel("softplus")
def softplus(input: np.ndarray, beta: Any = 1, threshold: Any = 20) -> np.ndarray:
    """``F.softplus``: ``log(1 + exp(beta x)) / beta``, linear above ``threshold``."""
    return _softplus(as_float(input), beta, threshold).astype(as_float(input).dtype)


@kernel("leaky_relu")
def leaky_relu(input: np.ndarray, negative_slope: Any = 0.01, inplace: bool = False) -> np.ndarray:
    """``F.leaky_relu``."""
    x = as_float(input)
    return _out(input, np.where(x > 0, x, x * negative_slope), inplace)


@kernel("elu")
def elu(input: np.ndarray, alpha: Any = 1.0, inplace: bool = False) -> np.ndarray:
    """``F.elu``."""
    x = as_float(input)
    return _out(input, np.where(x > 0, x, alpha * np.expm1(x)), inplace)


@kernel("celu")
def celu(input: np.ndarray, alpha: Any = 1.0, inplace: bool = False) -> np.ndarray:
    """``F.celu``."""
    x = as_float(input)
    return _out(input, np.maximum(x, 0) + np.minimum(0, alpha * np.expm1(x / alpha)), inplace)


@kernel("hardtanh")
def hardtanh(input: np.ndarray, min_val: Any = -1.0, max_val: Any = 1.0, inplace: bool = False) -> np.ndarray:
    """``F.hardtanh`` (integers stay integers)."""
    return _out(input, np.clip(input, min_val, max_val).astype(input.dtype), inplace)


@kernel("logsigmoid")
def logsigmoid(input: np.ndarray) -> np.ndarray:
    """``F.logsigmoid``: ``-softplus(-x)``, contiguous."""
    x = as_float(input)
    return np.ascontiguousarray(-_softplus(-x))


@kernel("softsign")
def softsign(input: np.ndarray) -> np.ndarray:
    """``F.softsign``: ``x / (1 + |x|)`` (float32 for integers)."""
    x = as_float(input)
    return x / (1 + np.abs(x))


@kernel("dropout")
def dropout(input: np.ndarray, p: Any = 0.5, training: bool = True, inplace: bool = False, *,
            _rng: np.random.Generator | None = None) -> np.ndarray:
    """``F.dropout``: zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)``."""
    if not training or p == 0 or input.size == 0:
        return input
    if p == 1:
        return _out(input, np.zeros_like(input), inplace)
    rng = _rng if _rng is not None else np.random.default_rng()
    keep = rng.random(input.shape) >= p
    return _out(input, input * keep / (1.0 - p), inplace)


eager_kernel("dropout")(dropout)  # eager calls draw from a fresh generator, as torch's unseeded eager dropout


def _feature_dropout(input: np.ndarray, p: Any, training: bool, inplace: bool, rng: Any, alpha: bool,
                     feature: bool) -> np.ndarray:
    if not training or p == 0 or input.size == 0:
        return input
    if p == 1:
        return _out(input, np.zeros_like(input), inplace)
    rng = rng if rng is not None else np.random.default_rng()
    shape = input.shape[:2] + (1,) * (input.ndim - 2) if feature else input.shape
    keep = (rng.random(shape) >= p).astype(np.float64)
    if alpha:  # ATen: b = (keep - 1) * alpha * a + alpha * a * p; out = input * keep * a + b
        alpha_, a = 1.7580993408473766, 1.0 / math.sqrt((1.7580993408473766 ** 2 * p + 1) * (1 - p))
        return _out(input, input * keep * a + (keep - 1) * alpha_ * a + alpha_ * a * p, inplace)
    return _out(input, input * keep / (1.0 - p), inplace)


def _channel_kernel(name: str, unsqueeze: Any, alpha: bool, feature: bool, training_default: bool) -> None:
    def run(input: np.ndarray, p: Any = 0.5, training: bool = training_default, inplace: bool = False, *,
            _rng: np.random.Generator | None = None) -> np.ndarray:
        x = input[None] if unsqueeze(input.ndim) else input
        out = _feature_dropout(x, p, training, inplace, _rng, alpha, feature)
        return out[0] if unsqueeze(input.ndim) else out

    run.__name__ = run.__qualname__ = name
    run.__doc__ = f"``F.{name}``."
    kernel(name)(run)
    eager_kernel(name)(run)


_channel_kernel("dropout1d", lambda n: n == 2, False, True, True)


_channel_kernel("dropout2d", lambda n: False, False, True, True)


_channel_kernel("dropout3d", lambda n: n != 5, False, True, True)


_channel_kernel("alpha_dropout", lambda n: False, True, False, False)


_channel_kernel("feature_alpha_dropout", lambda n: False, True, True, False)
