"""The recurrent cell rules (shapeenv.ops.rules.rnn_cells: what nn.LSTMCell / GRUCell / RNNCell call) against torch: shapes, errors, numpy kernel values."""

from __future__ import annotations

import pytest

from shapeenv import ShapeEnv, ShapeError, ops

torch = pytest.importorskip("torch", reason="differential tests need torch (pip install torch==2.13.0)")
pytestmark = pytest.mark.torch

CELLS = [("lstm_cell", 4), ("gru_cell", 3), ("rnn_tanh_cell", 1), ("rnn_relu_cell", 1)]


def _run_torch(name, x, h, w_ih, w_hh, b_ih, b_hh):
    hx = (h, h.clone()) if name == "lstm_cell" else h
    out = getattr(torch, name)(x, hx, w_ih, w_hh, b_ih, b_hh)
    return [tuple(t.shape) for t in (out if isinstance(out, tuple) else (out,))]


@pytest.mark.parametrize("name, gates", CELLS)
@pytest.mark.parametrize("batch", [2, 3, 7])
@pytest.mark.parametrize("bias", [True, False])
def test_cells_have_torchs_output_shapes(name, gates, batch, bias) -> None:
    features, hidden = 6, 5
    lead = (batch,)
    real = [torch.randn(*lead, features), torch.randn(*lead, hidden), torch.randn(gates * hidden, features),
            torch.randn(gates * hidden, hidden)]
    real += [torch.randn(gates * hidden), torch.randn(gates * hidden)] if bias else [None, None]
    env = ShapeEnv()
    fake = [None if t is None else env.fake_tensor(tuple(t.shape), dynamic={0} if k < 2 else False, name=f"a{k}")
            for k, t in enumerate(real)]
    hx = (fake[1], fake[1]) if name == "lstm_cell" else fake[1]
    out = getattr(ops, name)(fake[0], hx, *fake[2:])
    shapes = [tuple(int(d.node.hint) if hasattr(d, "node") else d for d in t.shape) for t in (out if isinstance(out, tuple) else (out,))]
    assert shapes == _run_torch(name, *real)


@pytest.mark.parametrize("name, gates", CELLS)
@pytest.mark.parametrize("wrong", ["batch", "gates", "features", "unbatched"])
def test_cells_reject_what_torch_rejects(name, gates, wrong) -> None:
    features, hidden = 6, 5
    shapes = {"x": (3, features), "h": (3, hidden), "w_ih": (gates * hidden, features), "w_hh": (gates * hidden, hidden)}
    if wrong == "batch":
        shapes["h"] = (4, hidden)
    elif wrong == "gates":
        shapes["w_ih"] = (gates * hidden + 1, features)
    elif wrong == "features":
        shapes["w_ih"] = (gates * hidden, features + 1)
    else:  # the op takes 2-D inputs only (nn.LSTMCell unsqueezes a 1-D one before calling it)
        shapes["x"], shapes["h"] = (features,), (hidden,)
    real = {k: torch.randn(*v) for k, v in shapes.items()}
    with pytest.raises((RuntimeError, IndexError)):
        _run_torch(name, real["x"], real["h"], real["w_ih"], real["w_hh"], None, None)
    env = ShapeEnv()
    fake = {k: env.fake_tensor(v, dynamic=False, name=k) for k, v in shapes.items()}
    hx = (fake["h"], fake["h"]) if name == "lstm_cell" else fake["h"]
    with pytest.raises(ShapeError):
        getattr(ops, name)(fake["x"], hx, fake["w_ih"], fake["w_hh"])


@pytest.mark.parametrize("name, gates", CELLS)
@pytest.mark.parametrize("bias", [True, False])
def test_numpy_kernels_compute_what_torch_computes(name, gates, bias) -> None:
    from shapeenv.backends import numpy_backend  # noqa: F401  (registers the kernels)
    from shapeenv.ops.kernels.numpy import KERNELS

    torch.manual_seed(0)
    features, hidden, batch = 6, 5, 3
    real = [torch.randn(batch, features), torch.randn(batch, hidden), torch.randn(gates * hidden, features),
            torch.randn(gates * hidden, hidden)]
    real += [torch.randn(gates * hidden), torch.randn(gates * hidden)] if bias else [None, None]
    c = torch.randn(batch, hidden)
    hx = (real[1], c) if name == "lstm_cell" else real[1]
    want = getattr(torch, name)(real[0], hx, *real[2:])
    as_np = [None if t is None else t.numpy() for t in real]
    got = KERNELS[name](as_np[0], (as_np[1], c.numpy()) if name == "lstm_cell" else as_np[1], *as_np[2:])
    want, got = (want, got) if isinstance(want, tuple) else ((want,), (got,))
    for w, g in zip(want, got):
        assert g.dtype == w.numpy().dtype and g.shape == tuple(w.shape)
        assert abs(g - w.numpy()).max() < 1e-5, (name, abs(g - w.numpy()).max())
