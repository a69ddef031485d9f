"""An exported module's program binds the module's parameters and buffers: ``p.accepts(x)`` takes the user's arguments alone.

Note [Bound inputs] in :mod:`shapeenv.program.program`: the state is read from the module at each check,
so a parameter replaced after export is checked as it is now.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="the torch frontend needs torch (pip install torch==2.13.0)")
pytestmark = pytest.mark.torch

import torch.nn as nn  # noqa: E402
from torch.export import Dim  # noqa: E402

import shapeenv.torch as st  # noqa: E402
from guards import Source  # noqa: E402
from shapeenv import InputsError  # noqa: E402


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 4)
        self.register_buffer("scale", torch.ones(4))

    def forward(self, x):
        return self.fc(x) * self.scale


def exported():
    model = Net()
    return model, st.export(model, (torch.randn(3, 8),), dynamic_shapes={"x": {0: Dim("b", min=1, max=64)}})


def test_accepts_bindings_and_explain_take_the_users_arguments_alone() -> None:
    model, p = exported()
    assert p.accepts(torch.randn(5, 8)) and p.accepts(torch.randn(1, 8)) and p.accepts(torch.randn(64, 8))
    assert not p.accepts(torch.randn(65, 8)) and not p.accepts(torch.randn(5, 7))
    b = p.bindings(torch.randn(5, 8))
    assert b[Source.size("x", 0)] == 5
    assert b[Source.size("self._modules['fc']._parameters['weight']", 1)] == 8
    assert b[Source.size("self._buffers['scale']", 0)] == 4
    assert not p.explain_inputs(torch.randn(5, 8)).failures
    assert [f.message() for f in p.explain_inputs(torch.randn(65, 8)).failures] == ["x.size()[0] <= 64 failed: got 65"]
    # torch's own program agrees on what runs
    ep = torch.export.export(model, (torch.randn(3, 8),), dynamic_shapes={"x": {0: Dim("b", min=1, max=64)}})
    assert ep.module()(torch.randn(5, 8)).shape == (5, 4)


def test_passing_the_state_explicitly_still_works_and_wins() -> None:
    model, p = exported()
    state = st.module_state(model)
    assert p.accepts(torch.randn(5, 8), **state)
    wrong = {**state, "self._buffers['scale']": torch.ones(3)}
    assert not p.accepts(torch.randn(5, 8), **wrong)
    assert p.bindings(torch.randn(5, 8), **wrong)[Source.size("self._buffers['scale']", 0)] == 3


def test_a_parameter_replaced_after_export_is_checked_as_it_is_now() -> None:
    model, p = exported()
    model.fc.weight = nn.Parameter(torch.randn(6, 8))  # another shape: the program no longer fits the module
    assert not p.accepts(torch.randn(5, 8))
    failures = [f.message() for f in p.explain_inputs(torch.randn(5, 8)).failures]
    assert failures == ["L['self']._modules['fc']._parameters['weight'].size()[0] == 4 failed: got 6"]
    model.fc.weight = nn.Parameter(torch.randn(4, 8))  # the same shape again
    assert p.accepts(torch.randn(5, 8))


def test_a_parameter_removed_after_export_is_a_missing_input() -> None:
    model, p = exported()
    del model.fc.bias
    model.fc.bias = None
    assert not p.accepts(torch.randn(5, 8))
    with pytest.raises(InputsError, match=r"self\._modules\['fc'\]\._parameters\['bias'\]"):
        p.bindings(torch.randn(5, 8))


def test_a_plain_functions_program_binds_nothing() -> None:
    p = st.export(lambda x: x * 2, (torch.randn(3, 8),), dynamic_shapes=({0: Dim("b")},))
    assert p.bound_inputs is None and p.accepts(torch.randn(5, 8))
