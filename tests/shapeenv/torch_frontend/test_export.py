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
