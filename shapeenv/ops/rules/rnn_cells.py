"""Recurrent cells: ``lstm_cell``, ``gru_cell``, ``rnn_tanh_cell``, ``rnn_relu_cell`` (what ``nn.LSTMCell`` & co. call).

``input (B, I)``, hidden ``(B, H)`` (for ``lstm_cell`` the pair ``(h, c)``), ``w_ih (G*H, I)``,
``w_hh (G*H, H)`` and optional biases ``(G*H,)``, with ``G`` gates (4 for LSTM, 3 for GRU, 1 for
the plain RNN cells). The input must be 2-d (``nn.LSTMCell`` unsqueezes an unbatched input before
calling). The new hidden state(s) are contiguous ``(B, H)`` tensors of the input's dtype. Every
size equality is a :func:`~shapeenv.ops.common.require` (a guard only when the hints decide).

>>> from shapeenv import ShapeEnv
>>> env = ShapeEnv(); x = env.fake_tensor((5, 6), name="x", dynamic={0}); h = env.fake_tensor((5, 8), name="h", dynamic={0})
>>> w_ih = env.fake_tensor((32, 6), name="w_ih", dynamic=False); w_hh = env.fake_tensor((32, 8), name="w_hh", dynamic=False)
>>> [t.shape for t in lstm_cell(x, (h, h), w_ih, w_hh)], len(env.guards)
([(s0, 8), (s0, 8)], 0)
>>> from shapeenv import ops
>>> ops.gru_cell(x, h, w_ih[:24], w_hh[:24]).shape, ops.rnn_tanh_cell(x, h, w_ih[:8], w_hh[:8], b_hh=w_ih[:8, 0]).shape
((s0, 8), (s0, 8))
"""

from __future__ import annotations

from typing import Any

from shapeenv.errors import ShapeError
from shapeenv.tensor.tensor import FakeTensor
from shapeenv.ops.common import check_tensor, fmt_shape, new_tensor, require
from shapeenv.ops.registry import rule, rule_family

__all__ = ["lstm_cell"]


def _cell(op: str, gates: int, input: FakeTensor, hiddens: list, w_ih: FakeTensor, w_hh: FakeTensor,
          b_ih: Any, b_hh: Any) -> tuple:
    check_tensor(input, op, "input")
    if input.ndim != 2:
        raise ShapeError(f"{op}: expected a 2-D input (batch, input_size), got shape {fmt_shape(input.shape)}",
                         fix="add the batch dim: x.unsqueeze(0) (nn.LSTMCell does this for an unbatched input)")
    for what, t in (("w_ih", w_ih), ("w_hh", w_hh)):
        check_tensor(t, op, what)
        if t.ndim != 2:
            raise ShapeError(f"{op}: {what} must be 2-D, got shape {fmt_shape(t.shape)}")
    batch, features = input.shape
    rows = w_ih.shape[0]
    require(features == w_ih.shape[1], lambda: (f"{op}: input has inconsistent input_size: got {features} expected "
                                                f"{w_ih.shape[1]}"))
    hidden = w_hh.shape[1]
    require(w_hh.shape[0] == rows, lambda: (f"{op}: w_hh has {w_hh.shape[0]} rows but w_ih has {rows} "
                                            f"(both are {gates} * hidden_size)"))
    require(rows == gates * hidden, lambda: (f"{op}: the weights have {rows} rows, expected {gates} * hidden_size = "
                                             f"{gates} * {hidden}"))
    for k, h in enumerate(hiddens):
        check_tensor(h, op, f"hidden{k}")
        if h.ndim != 2:
            raise ShapeError(f"{op}: hidden{k} must be 2-D (batch, hidden_size), got shape {fmt_shape(h.shape)}")
        require(h.shape[0] == batch, lambda h=h, k=k: (f"{op}: Input batch size {batch} doesn't match hidden{k} batch "
                                                       f"size {h.shape[0]}"))
        require(h.shape[1] == hidden, lambda h=h, k=k: (f"{op}: hidden{k} has inconsistent hidden_size: got "
                                                        f"{h.shape[1]}, expected {hidden}"))
    for what, b in (("b_ih", b_ih), ("b_hh", b_hh)):
        if b is not None:
            check_tensor(b, op, what)
            if b.ndim != 1:
                raise ShapeError(f"{op}: {what} must be 1-D, got shape {fmt_shape(b.shape)}")
            require(b.shape[0] == rows, lambda b=b, what=what: f"{op}: {what} has {b.shape[0]} elements, expected {rows}")
    return tuple(new_tensor(input.env, (batch, hidden), input.dtype) for _ in hiddens)


@rule("lstm_cell")
def lstm_cell(input: FakeTensor, hx: Any, w_ih: FakeTensor, w_hh: FakeTensor, b_ih: Any = None,
              b_hh: Any = None) -> tuple:
    """``torch.lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None)``: ``hx = (h, c)``; returns ``(h', c')``.

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); x = env.fake_tensor((2, 3), name="x", dynamic=False)
    >>> h = env.fake_tensor((2, 4), name="h", dynamic=False)
    >>> w = env.fake_tensor((16, 3), name="w", dynamic=False); u = env.fake_tensor((16, 4), name="u", dynamic=False)
    >>> [t.shape for t in lstm_cell(x, (h, h), w, u)]
    [(2, 4), (2, 4)]
    """
    if not isinstance(hx, (tuple, list)) or len(hx) != 2:
        raise ShapeError(f"lstm_cell: hx must be a pair (h, c) of tensors, got {hx!r}")
    return _cell("lstm_cell", 4, input, list(hx), w_ih, w_hh, b_ih, b_hh)


_GATES = {"gru_cell": 3, "rnn_tanh_cell": 1, "rnn_relu_cell": 1}


def _one_hidden(op: str, input: FakeTensor, hx: FakeTensor, w_ih: FakeTensor, w_hh: FakeTensor, b_ih: Any,
                b_hh: Any) -> FakeTensor:
    return _cell(op, _GATES[op], input, [hx], w_ih, w_hh, b_ih, b_hh)[0]


rule_family(_one_hidden, {
    "gru_cell": "``torch.gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None)``: the new hidden state.",
    "rnn_tanh_cell": "``torch.rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None)``: the new hidden state.",
    "rnn_relu_cell": "``torch.rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None)``: the new hidden state.",
}, ("input", "hx", "w_ih", "w_hh", "b_ih", "b_hh"), {"b_ih": None, "b_hh": None})
