"""``shapeenv.torch.compile``: the guarded cache over real torch tensors, running the model in torch."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="the torch frontend needs torch (pip install torch==2.13.0)")
pytestmark = pytest.mark.torch

import torch.nn as nn  # noqa: E402

import shapeenv.torch as st  # noqa: E402
from shapeenv import ExportedProgram  # noqa: E402

from .test_export import CNN, MLP  # noqa: E402


def test_serves_real_tensors_with_the_models_own_results():
    torch.manual_seed(0)
    model = MLP()
    f = st.compile(model)
    x = torch.randn(5, 8)
    assert torch.equal(f(x), model(x))
    assert len(f.cache_info().entries) == 1


def test_recompiles_on_a_new_static_size_then_goes_automatic_dynamic():
    model = CNN()
    f = st.compile(model)
    for n in (16, 17, 18, 20):
        x = torch.randn(2, 3, n, n)
        assert f(x).shape == model(x).shape == (2, 10)
    info = f.cache_info()
    assert len(info.entries) == 2
    assert info.entries[1].reason.text == "x.size()[2] == 16 failed: got 17"
    assert info.entries[1].hits == 2  # 18 and 20: served by the dynamic entry
    text = info.entries[1].guards.to_text("torch")
    assert "L['x'].size()[2] >= " in text and "L['x'].size()[0] == 2" in text


def test_parameter_sources_in_guard_text():
    f = st.compile(MLP(), dynamic=True)
    f(torch.randn(3, 8))
    text = f.cache_info().entries[0].guards.to_text("torch")
    assert "L['self']._modules['fc1']._parameters['weight'].size()[0] == 16" in text
    assert "L['self']._modules['fc1']._parameters['weight'].stride()[0] == 8" in text
    assert "L['x'].size()[0] >= 2" in text  # dynamic=True: inputs dynamic, parameters static


def test_a_replaced_parameter_fails_its_guard():
    model = MLP()
    f = st.compile(model)
    f(torch.randn(3, 8))
    model.fc2 = nn.Linear(16, 6)
    assert f(torch.randn(3, 8)).shape == (3, 6)
    info = f.cache_info()
    assert len(info.entries) == 2
    assert info.entries[1].reason.text.startswith("L['self']._modules['fc2']._parameters['weight'].size()[0] == 4 failed: got 6")


def test_training_flag_is_part_of_the_key():
    class Noisy(nn.Module):
        def forward(self, x):
            return x * 2 if self.training else x[:1]

    model = Noisy().eval()
    f = st.compile(model, dynamic=False)
    assert f(torch.randn(3, 4)).shape == (1, 4)
    model.train()
    assert f(torch.randn(3, 4)).shape == (3, 4)
    info = f.cache_info()
    assert len(info.entries) == 2
    assert "self.training == False failed: got True" in info.entries[1].reason.text


def test_control_flow_on_sizes_recompiles_when_the_branch_changes():
    def f(x):
        if x.shape[0] > 4:
            return x.sum(0)
        return x * 2

    g = st.compile(f, dynamic=True)
    assert g(torch.ones(6, 2)).shape == (2,)
    assert g(torch.ones(8, 2)).shape == (2,)
    assert g(torch.ones(3, 2)).shape == (3, 2)
    info = g.cache_info()
    assert len(info.entries) == 2
    assert "x.size()[0] >= 5 failed: got 3" in info.entries[1].reason.text


def test_backend_receives_the_program_and_its_artifact_runs():
    seen = []

    def backend(program):
        seen.append(program)
        return lambda x: ("artifact", tuple(x.shape))

    f = st.compile(MLP(), backend=backend)
    assert f(torch.randn(2, 8)) == ("artifact", (2, 8))
    assert isinstance(seen[0], ExportedProgram) and [str(d) for d in seen[0].output_shapes] == ["2", "4"]


def test_decorator_form_and_a_non_contiguous_input():
    @st.compile(dynamic=True)
    def f(x):
        return x.transpose(0, 1).contiguous().view(-1)

    a = torch.randn(3, 4)
    assert torch.equal(f(a), a.t().contiguous().view(-1))
    assert torch.equal(f(a.t()), a.contiguous().view(-1))
    assert len(f.cache_info().entries) == 2  # strides are guarded: the transposed input is a new entry


def test_torch_marks_are_adopted():
    import torch._dynamo

    f = st.compile(lambda x: x * 2)
    x = torch.randn(6, 3)
    torch._dynamo.mark_dynamic(x, 0, min=2, max=16)
    f(x)
    text = f.cache_info().entries[0].guards.to_text("torch")
    assert "L['x'].size()[0] <= 16" in text and "L['x'].size()[1] == 3" in text
    assert f(torch.randn(9, 3)).shape == (9, 3) and len(f.cache_info().entries) == 2  # unmarked: a new key
