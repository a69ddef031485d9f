"""numpy implementations of the recurrent cells: ``lstm_cell``, ``gru_cell``, ``rnn_tanh_cell``, ``rnn_relu_cell``.

Same contract as :mod:`shapeenv.backends.numpy_kernels`; the gate order is torch's (LSTM: input,
forget, cell, output; GRU: reset, update, new), computed in float64 and cast back.

>>> import numpy as np
>>> x, h = np.zeros((1, 2), np.float32), np.zeros((1, 1), np.float32)
>>> h1, c1 = KERNELS["lstm_cell"](x, (h, h), np.zeros((4, 2), np.float32), np.zeros((4, 1), np.float32))
>>> h1.shape, float(c1[0, 0])
((1, 1), 0.0)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .numpy_kernels import KERNELS, kernel  # noqa: F401  (KERNELS: for the doctest)

__all__: list[str] = []


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def _gates(x: np.ndarray, w: np.ndarray, b: Any) -> np.ndarray:
    out = x.astype(np.float64) @ np.asarray(w, np.float64).T
    return out if b is None else out + np.asarray(b, np.float64)


@kernel("lstm_cell")
def lstm_cell(input: np.ndarray, hx: Any, w_ih: np.ndarray, w_hh: np.ndarray, b_ih: Any = None,  # noqa: A002
              b_hh: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """``torch.lstm_cell``: ``(h', c')``."""
    h, c = hx
    i, f, g, o = np.split(_gates(input, w_ih, b_ih) + _gates(h, w_hh, b_hh), 4, axis=-1)
    c1 = _sigmoid(f) * np.asarray(c, np.float64) + _sigmoid(i) * np.tanh(g)
    h1 = _sigmoid(o) * np.tanh(c1)
    return h1.astype(input.dtype), c1.astype(input.dtype)


@kernel("gru_cell")
def gru_cell(input: np.ndarray, hx: np.ndarray, w_ih: np.ndarray, w_hh: np.ndarray, b_ih: Any = None,  # noqa: A002
             b_hh: Any = None) -> np.ndarray:
    """``torch.gru_cell``: ``h'``."""
    ir, iz, in_ = np.split(_gates(input, w_ih, b_ih), 3, axis=-1)
    hr, hz, hn = np.split(_gates(hx, w_hh, b_hh), 3, axis=-1)
    r, z = _sigmoid(ir + hr), _sigmoid(iz + hz)
    n = np.tanh(in_ + r * hn)
    return ((1.0 - z) * n + z * hx.astype(np.float64)).astype(input.dtype)


@kernel("rnn_tanh_cell")
def rnn_tanh_cell(input: np.ndarray, hx: np.ndarray, w_ih: np.ndarray, w_hh: np.ndarray, b_ih: Any = None,  # noqa: A002
                  b_hh: Any = None) -> np.ndarray:
    """``torch.rnn_tanh_cell``: ``tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)``."""
    return np.tanh(_gates(input, w_ih, b_ih) + _gates(hx, w_hh, b_hh)).astype(input.dtype)


@kernel("rnn_relu_cell")
def rnn_relu_cell(input: np.ndarray, hx: np.ndarray, w_ih: np.ndarray, w_hh: np.ndarray, b_ih: Any = None,  # noqa: A002
                  b_hh: Any = None) -> np.ndarray:
    """``torch.rnn_relu_cell``: ``relu(x W_ih^T + b_ih + h W_hh^T + b_hh)``."""
    return np.maximum(_gates(input, w_ih, b_ih) + _gates(hx, w_hh, b_hh), 0.0).astype(input.dtype)
