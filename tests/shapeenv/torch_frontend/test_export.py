"""``shapeenv.torch.export`` on small torch modules and functions, against ``torch.export.export``."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="the torch frontend needs torch (pip install torch==2.13.0)")
pytestmark = pytest.mark.torch

import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.export import Dim  # noqa: E402

import shapeenv.torch as st  # noqa: E402
from shapeenv import ExportConstraintError, ShapeError  # noqa: E402
from shapeenv.compile.trace import output_shapes  # noqa: E402

from .helpers import assert_same_as_torch_export  # noqa: E402


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.fc2 = nn.Linear(16, 4)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.conv2 = nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = self.pool(torch.relu(self.conv1(x)))
        x = F.relu(self.conv2(x))
        return self.fc(x.mean(dim=(2, 3)))


def attention_like(q, k):
    B, T, C = q.shape
    scores = (q @ k.transpose(-2, -1)) / C ** 0.5
    weights = scores.softmax(dim=-1)
    return torch.cat([weights @ k, q], dim=-1).reshape(B * T, 2 * C), weights[:, 1:, ::2]


def test_mlp_matches_torch_export():
    ours, _ = assert_same_as_torch_export(MLP(), (torch.randn(5, 8),), dynamic_shapes={"x": {0: Dim("batch")}})
    assert [str(d) for d in ours.output_shapes] == ["s0", "4"]
    assert ours.signature().startswith("MLP(x: f32[s0, 8], self._modules['fc1']._parameters['weight']: f32[16, 8]")


def test_cnn_matches_torch_export():
    x = torch.randn(2, 3, 16, 16)
    assert_same_as_torch_export(CNN(), (x,), dynamic_shapes=({0: Dim("b")},))
    # spatial dims: torch.export adds a guard of its own (see the issue), so give it Dim.AUTO and ours named dims
    ours, _ = assert_same_as_torch_export(
        CNN(), (x,), dynamic_shapes=({0: Dim("b"), 2: Dim.AUTO, 3: Dim.AUTO},),
        ours_dynamic_shapes=({0: Dim("b"), 2: Dim("h", min=4), 3: Dim("w", min=4)},))
    assert len(ours.range_constraints) == 3


def test_function_with_views_matmul_and_cat_matches_torch_export():
    q, k = torch.randn(2, 6, 4), torch.randn(2, 6, 4)
    b, t = Dim("b"), Dim("t", min=3)  # torch.export guards t - 1 != 1 (the slice) by itself
    ours, _ = assert_same_as_torch_export(attention_like, (q, k), dynamic_shapes={"q": {0: b, 1: t}, "k": {0: b, 1: t}})
    assert [str(d) for d in ours.output_shapes[0]] == ["s0*s1", "8"]


def test_derived_dims_and_dim_auto_translate():
    def f(x, y):
        return torch.cat([x, x], dim=0) + y

    d = Dim("d")
    ours, ep = assert_same_as_torch_export(f, (torch.randn(3, 2), torch.randn(6, 2)), dynamic_shapes=({0: d}, {0: 2 * d}))
    assert "L['y'].size()[0] == 2*L['x'].size()[0]" in ours.guards.to_text("torch")
    auto = st.export(f, (torch.randn(3, 2), torch.randn(6, 2)), dynamic_shapes=({0: Dim.AUTO}, {0: Dim.AUTO}))
    assert str(auto.output_shapes[0]) == "2*s0"


def test_tuple_dynamic_shapes_and_kwargs():
    def f(x, scale, *, bias):
        return x * scale + bias

    p = st.export(f, (torch.randn(4, 3), 2), {"bias": torch.randn(3)},
                  dynamic_shapes=({0: Dim("n")}, None, None))
    assert [str(d) for d in p.output_shapes] == ["s0", "3"]
    assert [s.name for s in p.inputs] == ["x", "scale", "bias"]


def test_control_flow_on_sizes_records_guards_in_the_shapeenv():
    def f(x):
        if x.shape[0] > 4:  # a guard: the example takes this branch
            return x[: x.size(0) // 2]
        return x * 2

    p = st.export(f, (torch.randn(8, 3),), dynamic_shapes={"x": {0: Dim.DYNAMIC}})
    text = p.guards.to_text("torch")
    assert "L['x'].size()[0] >= 5" in text
    (record,) = [g for g in p.env.guards if "> 4" in str(g.expr) or ">= 5" in str(g.expr)]
    assert "test_export.py" in record.provenance.user_frame and " in f" in record.provenance.user_frame
    assert str(p.output_shapes[0]) == "FloorDiv(s0, 2)"


def test_named_dim_narrowed_by_the_model_is_a_constraint_violation():
    def f(x):
        return x[:, 2:] if x.shape[1] > 3 else x

    with pytest.raises(ExportConstraintError) as e:
        st.export(f, (torch.randn(2, 6),), dynamic_shapes={"x": {1: Dim("w")}})
    assert "Dim('w', min=4)" in str(e.value)
    assert "test_export.py" in str(e.value)


def test_parameter_sources_name_the_parameter_in_errors():
    with pytest.raises(ShapeError) as e:
        st.export(MLP(), (torch.randn(5, 7),))
    assert "self._modules['fc1']._parameters['weight']" in str(e.value)
    assert "test_export.py" in str(e.value)


def test_parameters_are_static_inputs_with_torch_sources():
    p = st.export(MLP(), (torch.randn(5, 8),), dynamic_shapes={"x": {0: Dim("batch")}})
    params = [s for s in p.inputs if s.name.startswith("self.")]
    assert [s.name for s in params] == [
        "self._modules['fc1']._parameters['weight']", "self._modules['fc1']._parameters['bias']",
        "self._modules['fc2']._parameters['weight']", "self._modules['fc2']._parameters['bias']"]
    assert all(isinstance(d, int) for s in params for d in s.value.shape)
    assert "L['self']._modules['fc2']._parameters['weight'].size()[0] == 4" in p.guards.to_text("torch")


def test_buffers_and_shared_parameters():
    class Tied(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Linear(4, 4, bias=False)
            self.out = nn.Linear(4, 4, bias=False)
            self.out.weight = self.emb.weight
            self.register_buffer("scale", torch.ones(4))

        def forward(self, x):
            return self.out(self.emb(x)) * self.scale

    p = st.export(Tied(), (torch.randn(3, 4),))
    names = [s.name for s in p.inputs]
    assert names == ["x", "self._buffers['scale']", "self._modules['emb']._parameters['weight']"]  # state_dict order


def test_dtypes_follow_torch():
    def f(x, i):
        return x.half(), (x > 0).sum(dim=1), i.float() * 2, x.to(torch.float64).mean(0), x.type_as(i)

    assert_same_as_torch_export(f, (torch.randn(3, 4), torch.arange(4)), dynamic_shapes=None)


@pytest.mark.parametrize("batch_first", [True, False])
def test_multihead_attention_matches_torch_export(batch_first):
    torch.manual_seed(0)
    mha = nn.MultiheadAttention(16, 4, batch_first=batch_first).eval()
    x = torch.randn(2, 5, 16) if batch_first else torch.randn(5, 2, 16)
    seq = 1 if batch_first else 0
    spec = {seq: Dim("s"), 1 - seq: Dim("b")}
    assert_same_as_torch_export(mha, (x, x, x), dynamic_shapes={"query": spec, "key": spec, "value": spec})


def test_multihead_attention_with_masks_and_separate_weights():
    mha = nn.MultiheadAttention(8, 2, batch_first=True, kdim=6, vdim=6).eval()
    q, kv = torch.randn(2, 3, 8), torch.randn(2, 5, 6)
    padding = torch.zeros(2, 5)  # float masks: added to the scores
    mask = torch.zeros(3, 5)

    def f(q, kv, padding, mask):
        out, weights = mha(q, kv, kv, key_padding_mask=padding, attn_mask=mask, average_attn_weights=False)
        return out, weights

    b, s = Dim("b"), Dim("s")
    ours, _ = assert_same_as_torch_export(f, (q, kv, padding, mask),
                                          dynamic_shapes=({0: b}, {0: b, 1: s}, {0: b, 1: s}, {1: s}))
    batch, src = ours.inputs[1].value.shape[:2]
    assert ours.output_shapes[1] == (batch, 2, 3, src)


@pytest.mark.parametrize("kind,batch_first,bidirectional", [
    ("LSTM", True, False), ("LSTM", False, True), ("GRU", True, True), ("RNN", False, False)])
def test_recurrent_modules_match_torch_export(kind, batch_first, bidirectional):
    torch.manual_seed(0)
    rnn = getattr(nn, kind)(4, 6, num_layers=2, batch_first=batch_first, bidirectional=bidirectional)
    assert_same_as_torch_export(rnn, (torch.randn(3, 5, 4),))  # torch.export specialises the batch and time dims
    ours = st.export(rnn, (torch.randn(3, 5, 4),), dynamic_shapes=({0: Dim("a"), 1: Dim("b")},))
    for a, b in ((2, 7), (9, 3)):
        x = torch.randn(a, b, 4)
        real = rnn(x)
        assert output_shapes(ours, {"input": x, **st.module_state(rnn)}) == torch.utils._pytree.tree_map(lambda t: tuple(t.shape), real)


def test_recurrent_input_size_mismatch_is_a_shape_error():
    with pytest.raises((ShapeError, AssertionError, RuntimeError)) as e:  # nn.LSTM's own check raises RuntimeError
        st.export(nn.LSTM(4, 6), (torch.randn(3, 2, 5),))
    assert "input.size(-1) must be equal to input_size" in str(e.value) or "lstm" in str(e.value)


def test_a_modules_other_method_has_the_module_state_as_inputs():
    class Head(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 2)

        def logits(self, x):
            return self.fc(x).softmax(-1)

    head = Head()
    p = st.export(head.logits, (torch.randn(3, 4),), dynamic_shapes={"x": {0: Dim("b")}})
    assert p.name == "logits" and [s.name for s in p.inputs][1:] == [
        "self._modules['fc']._parameters['weight']", "self._modules['fc']._parameters['bias']"]
    assert [str(d) for d in p.output_shapes] == ["s0", "2"]
