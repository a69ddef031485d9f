"""Shape rules of the recurrent cells: ``torch.lstm_cell``, ``gru_cell``, ``rnn_tanh_cell``, ``rnn_relu_cell``.

These are what ``nn.LSTMCell``, ``nn.GRUCell`` and ``nn.RNNCell`` call (``torch._VF``): one
step of the recurrence, ``gates = input @ w_ih.T + b_ih + h @ w_hh.T + b_hh`` with ``G``
gate blocks of the hidden size (LSTM 4, GRU 3, RNN 1). Both products are checked as
:func:`~shapeenv.rules.linalg.linear` checks them, and must agree: the same batch (inputs are
2-D for the op itself: ``nn.LSTMCell`` unsqueezes a 1-D input first) and ``G * hidden`` gates.
The new state has the shape of the old one.

>>> from shapeenv import ShapeEnv
>>> env = ShapeEnv()
>>> x = env.fake_tensor((8, 6), dynamic={0}, name="x")
>>> h, c = env.fake_tensor((8, 5), dynamic={0}, name="h"), env.fake_tensor((8, 5), dynamic={0}, name="c")
>>> w_ih, w_hh = env.fake_tensor((20, 6), dynamic=False, name="w_ih"), env.fake_tensor((20, 5), dynamic=False, name="w_hh")
>>> [t.shape for t in lstm_cell(x, (h, c), w_ih, w_hh)]
[(s0, 5), (s0, 5)]
>>> lstm_cell(x, (h, c), w_hh, w_hh)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
shapeenv.errors.ShapeError: linear: shapes [s0, 6] and [5, 20] cannot be multiplied (the inner sizes 6 and 5 differ)...
"""

from __future__ import annotations

from typing import Any

from ..errors import ShapeError
from ..fake.tensor import FakeTensor
from .common import check_tensor, fmt_shape, new_tensor, require
from .linalg import linear
from .registry import rule

__all__ = ["lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell"]


def _step(op: str, gates: int, input: FakeTensor, h: FakeTensor, w_ih: FakeTensor, w_hh: FakeTensor,  # noqa: A002
          b_ih: FakeTensor | None, b_hh: FakeTensor | None) -> None:
    """Validate one recurrent step: ``input`` and ``h`` 1-D or 2-D alike, both products the same ``gates * hidden`` shape."""
    check_tensor(input, op, "input")
    check_tensor(h, op, "hx")
    if input.ndim != 2 or h.ndim != 2:  # nn.LSTMCell & co. unsqueeze unbatched inputs before calling the op
        raise ShapeError(f"{op}: input {fmt_shape(input.shape)} and hidden state {fmt_shape(h.shape)} must both be "
                         "2-D (batch, features)", fix="add the batch dim: x.unsqueeze(0)")
    from_input = linear(input, w_ih, b_ih).shape
    from_hidden = linear(h, w_hh, b_hh).shape
    hidden = h.shape[-1]
    require(from_input[-1] == gates * hidden, lambda: (
        f"{op}: w_ih gives {from_input[-1]} gates, expected {gates} x hidden size {hidden}"))
    for a, b, what in zip(from_input, from_hidden, ("batch size", "gate count")):
        require(a == b, lambda a=a, b=b, what=what: (
            f"{op}: input {fmt_shape(input.shape)} and hidden state {fmt_shape(h.shape)} disagree on the {what}: {a} vs {b}"))


def _state_pair(hx: Any, op: str) -> tuple[FakeTensor, FakeTensor]:
    if not isinstance(hx, (tuple, list)) or len(hx) != 2:
        raise ShapeError(f"{op}: hx must be a pair (h, c) of tensors, got {type(hx).__name__}")
    return hx[0], hx[1]


@rule("lstm_cell")
def lstm_cell(input: FakeTensor, hx: Any, w_ih: FakeTensor, w_hh: FakeTensor,  # noqa: A002  (torch's names)
              b_ih: FakeTensor | None = None, b_hh: FakeTensor | None = None) -> tuple[FakeTensor, FakeTensor]:
    """``torch.lstm_cell(input, (h, c), w_ih, w_hh, b_ih, b_hh)``: the next ``(h, c)``, each shaped as ``h``.

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv()
    >>> x, h = env.fake_tensor((3, 6), dynamic={0}, name="x"), env.fake_tensor((3, 5), dynamic={0}, name="h")
    >>> wi, wh = env.fake_tensor((20, 6), dynamic=False, name="wi"), env.fake_tensor((20, 5), dynamic=False, name="wh")
    >>> lstm_cell(x, (h, h), wi, wh)[1].shape
    (s0, 5)
    """
    h, c = _state_pair(hx, "lstm_cell")
    _step("lstm_cell", 4, input, h, w_ih, w_hh, b_ih, b_hh)
    check_tensor(c, "lstm_cell", "cell state")
    if c.ndim != h.ndim:
        raise ShapeError(f"lstm_cell: cell state {fmt_shape(c.shape)} must have the shape of h {fmt_shape(h.shape)}")
    for a, b in zip(c.shape, h.shape):
        require(a == b, lambda: f"lstm_cell: cell state {fmt_shape(c.shape)} must have the shape of h {fmt_shape(h.shape)}")
    return new_tensor(h.env, h.shape, input.dtype), new_tensor(h.env, h.shape, input.dtype)


def _single(op: str, gates: int):
    def cell(input: FakeTensor, hx: FakeTensor, w_ih: FakeTensor, w_hh: FakeTensor,  # noqa: A002
             b_ih: FakeTensor | None = None, b_hh: FakeTensor | None = None) -> FakeTensor:
        _step(op, gates, input, hx, w_ih, w_hh, b_ih, b_hh)
        return new_tensor(hx.env, hx.shape, input.dtype)

    cell.__name__ = cell.__qualname__ = op
    cell.__doc__ = (f"``torch.{op}(input, hx, w_ih, w_hh, b_ih, b_hh)``: the next hidden state, shaped as ``hx`` "
                    f"({gates} gate block{'s' if gates > 1 else ''}).")
    return rule(op)(cell)


gru_cell = _single("gru_cell", 3)
rnn_tanh_cell = _single("rnn_tanh_cell", 1)
rnn_relu_cell = _single("rnn_relu_cell", 1)
