"""numpy kernels of the ops of :mod:`shapeenv.ops.rules.rnn_cells` (torch's semantics; see :mod:`shapeenv.ops.kernels.numpy`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from shapeenv.ops.kernels.numpy.common import axis, kernel

__all__: list[str] = []


# -- recurrent cells ----------------------------------------------------------------------------------
def _sig(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def _gates(input: np.ndarray, h: np.ndarray, w_ih: np.ndarray, w_hh: np.ndarray, b_ih: Any, b_hh: Any) -> tuple:
    gi = input.astype(np.float64) @ w_ih.T.astype(np.float64) + (0 if b_ih is None else b_ih)
    gh = h.astype(np.float64) @ w_hh.T.astype(np.float64) + (0 if b_hh is None else b_hh)
    return gi, gh


@kernel("lstm_cell")
def lstm_cell(input: np.ndarray, hx: Any, w_ih: np.ndarray, w_hh: np.ndarray, b_ih: Any = None,
              b_hh: Any = None) -> tuple:
    """``torch.lstm_cell``: gates ``i, f, g, o``."""
    h, c = hx
    gi, gh = _gates(input, h, w_ih, w_hh, b_ih, b_hh)
    i, f, g, o = np.split(gi + gh, 4, axis=1)
    c2 = _sig(f) * c + _sig(i) * np.tanh(g)
    return (_sig(o) * np.tanh(c2)).astype(input.dtype), c2.astype(input.dtype)


@kernel("gru_cell")
def gru_cell(input: np.ndarray, hx: np.ndarray, w_ih: np.ndarray, w_hh: np.ndarray, b_ih: Any = None,
             b_hh: Any = None) -> np.ndarray:
    """``torch.gru_cell``: gates ``r, z, n``."""
    gi, gh = _gates(input, hx, w_ih, w_hh, b_ih, b_hh)
    ir, iz, i_n = np.split(gi, 3, axis=1)
    hr, hz, hn = np.split(gh, 3, axis=1)
    r, z = _sig(ir + hr), _sig(iz + hz)
    n = np.tanh(i_n + r * hn)
    return ((1 - z) * n + z * hx).astype(input.dtype)


@kernel("rnn_tanh_cell")
def rnn_tanh_cell(input: np.ndarray, hx: np.ndarray, w_ih: np.ndarray, w_hh: np.ndarray, b_ih: Any = None,
                  b_hh: Any = None) -> np.ndarray:
    """``torch.rnn_tanh_cell``."""
    gi, gh = _gates(input, hx, w_ih, w_hh, b_ih, b_hh)
    return np.tanh(gi + gh).astype(input.dtype)


@kernel("rnn_relu_cell")
def rnn_relu_cell(input: np.ndarray, hx: np.ndarray, w_ih: np.ndarray, w_hh: np.ndarray, b_ih: Any = None,
                  b_hh: Any = None) -> np.ndarray:
    """``torch.rnn_relu_cell``."""
    gi, gh = _gates(input, hx, w_ih, w_hh, b_ih, b_hh)
    return np.maximum(gi + gh, 0).astype(input.dtype)
