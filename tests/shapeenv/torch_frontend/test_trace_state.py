"""A trace of ``shapeenv.torch.export`` / ``compile`` leaves the user's model and program state as it found them.

Each module below writes to state outside its forward's frame (LeViT's bias cache in a dict
attribute, a lazily set tensor attribute, a list it appends to, a global). After our export
(succeeding, failing inside the trace, failing after it, interrupted) and our compile, the
model's eager output equals the output of an untouched copy, and a
:class:`~shapeenv.errors.TraceStateWarning` names each write; for tensor attributes the paths
are the ones ``torch.export`` names in its own warning.
"""

from __future__ import annotations

import copy
import re
import sys
import types
import warnings

import pytest

torch = pytest.importorskip("torch", reason="the torch frontend needs torch (pip install torch==2.13.0)")
pytestmark = pytest.mark.torch

import torch.nn as nn  # noqa: E402
from torch.export import Dim  # noqa: E402

import shapeenv.torch as st  # noqa: E402
from shapeenv import ExportConstraintError  # noqa: E402
from shapeenv.errors import TraceStateWarning  # noqa: E402
from shapeenv.export.state import is_traced  # noqa: E402

#: written by GlobalScale.forward (``global``) and read by it
SCALE = None
#: an item of it is written by GlobalCache.forward
GLOBAL_CACHE: dict = {}


class BiasCache(nn.Module):
    """LeViT's attention bias: cached in a plain dict attribute, per device, in eval mode."""

    def __init__(self, n: int = 5):
        super().__init__()
        self.biases = nn.Parameter(torch.randn(1, n))
        self.register_buffer("idxs", torch.randint(0, n, (n, n)), persistent=False)
        self.bias_cache: dict[str, torch.Tensor] = {}

    def get_bias(self, device: torch.device) -> torch.Tensor:
        if self.training:
            return self.biases[:, self.idxs]
        key = str(device)
        if key not in self.bias_cache:
            self.bias_cache[key] = self.biases[:, self.idxs]
        return self.bias_cache[key]

    def forward(self, x):
        return x @ x.transpose(-1, -2) + self.get_bias(x.device)


class Blocks(nn.Module):
    """Two BiasCache blocks under a Sequential, so paths have the depth of LeViT's (``self.blocks.1.attn``)."""

    def __init__(self):
        super().__init__()
        self.blocks = nn.Sequential(*[nn.Module() for _ in range(2)])
        for block in self.blocks:
            block.attn = BiasCache()

    def forward(self, x):
        for block in self.blocks:
            x = block.attn(x)
        return x


class LazyScale(nn.Module):
    """Sets a tensor attribute in forward, on first use."""

    def __init__(self):
        super().__init__()
        self.scale = None

    def forward(self, x):
        if self.scale is None:
            self.scale = torch.full((x.shape[-1],), 2.0)
        return x * self.scale


class History(nn.Module):
    """Appends to a list attribute, and its output depends on how long the list is."""

    def __init__(self):
        super().__init__()
        self.history: list = []
        self.calls = 0

    def forward(self, x):
        self.history.append(x.sum())
        self.calls += 1
        return x + len(self.history)


class GlobalScale(nn.Module):
    """Writes a module global (``global SCALE``) on first use."""

    def forward(self, x):
        global SCALE
        if SCALE is None:
            SCALE = torch.full((x.shape[-1],), 3.0)
        return x * SCALE


class GlobalCache(nn.Module):
    """Writes an item of a global dict on first use."""

    def forward(self, x):
        if "scale" not in GLOBAL_CACHE:
            GLOBAL_CACHE["scale"] = torch.full((x.shape[-1],), 4.0)
        return x * GLOBAL_CACHE["scale"]


def _x(model: nn.Module) -> torch.Tensor:
    torch.manual_seed(0)
    return torch.randn(3, 5, 5) if isinstance(model, (Blocks, BiasCache)) else torch.randn(3, 5)


#: each model, and the paths of the writes its first trace makes
CASES = {
    "levit_like_dict_cache": (Blocks, ["self.blocks.0.attn.bias_cache['cpu']", "self.blocks.1.attn.bias_cache['cpu']"]),
    "tensor_attribute": (LazyScale, ["self.scale"]),
    "list_append": (History, ["self.history[0]", "self.calls"]),
    "global_statement": (GlobalScale, [f"{__name__}.SCALE"]),
    "global_dict_item": (GlobalCache, [f"{__name__}.GLOBAL_CACHE['scale']"]),
}


@pytest.fixture(autouse=True)
def _fresh_globals():
    global SCALE
    SCALE = None
    GLOBAL_CACHE.clear()
    yield
    SCALE = None
    GLOBAL_CACHE.clear()


def _make(case: str) -> tuple[nn.Module, torch.Tensor, torch.Tensor, list[str]]:
    """A model (eval mode), an input, the output an untouched copy gives, and the writes expected."""
    cls, paths = CASES[case]
    torch.manual_seed(1)
    model = cls().eval()
    x = _x(model)
    reference = copy.deepcopy(model)
    with torch.no_grad():
        expected = reference(x)
    _fresh_globals_now()  # the reference's eager call filled the globals
    return model, x, expected, paths


def _fresh_globals_now() -> None:
    global SCALE
    SCALE = None
    GLOBAL_CACHE.clear()


def _written(caught: list) -> list[str]:
    return sorted(w.path for warning in caught if issubclass(warning.category, TraceStateWarning) for w in warning.message.writes)


def _no_traced_values(model: nn.Module) -> None:
    for value in [*vars(model).values(), SCALE, *GLOBAL_CACHE.values()]:
        assert not is_traced(value), value
    for module in model.modules():
        for value in vars(module).values():
            assert not is_traced(value)
            if isinstance(value, dict):
                assert not any(is_traced(v) for v in value.values()), value
            if isinstance(value, list):
                assert not any(is_traced(v) for v in value), value


def _eager_equal(model: nn.Module, x: torch.Tensor, expected: torch.Tensor) -> None:
    _no_traced_values(model)
    with torch.no_grad():
        torch.testing.assert_close(model(x), expected)


@pytest.mark.parametrize("case", list(CASES))
def test_export_restores_the_state_and_names_each_write(case: str) -> None:
    model, x, expected, paths = _make(case)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        st.export(model, (x,))
    assert _written(caught) == sorted(paths)
    warning = next(w for w in caught if issubclass(w.category, TraceStateWarning))
    assert warning.filename == __file__, "the warning points at the user's call"
    if any(w.tensor for w in warning.message.writes):
        assert "register_buffer" in str(warning.message)
    _eager_equal(model, x, expected)


class ThenFails(nn.Module):
    """Runs the inner model, then fails (with ``error``) before the trace ends."""

    def __init__(self, inner: nn.Module, error: BaseException):
        super().__init__()
        self.inner, self.error = inner, error

    def forward(self, x):
        self.inner(x)
        raise self.error


@pytest.mark.parametrize("case", list(CASES))
def test_a_failed_export_restores_the_state(case: str) -> None:
    model, x, expected, paths = _make(case)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(ValueError, match="fails after writing") as info:
            st.export(ThenFails(model, ValueError("fails after writing")), (x,))
    assert _written(caught) == sorted(p.replace("self.", "self.inner.", 1) if p.startswith("self.") else p for p in paths)
    assert any("undone" in note for note in info.value.__notes__)
    _eager_equal(model, x, expected)


def test_an_interrupted_export_restores_the_state() -> None:
    model, x, expected, _ = _make("levit_like_dict_cache")
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        with pytest.raises(KeyboardInterrupt):
            st.export(ThenFails(model, KeyboardInterrupt()), (x,))
    _eager_equal(model, x, expected)


class Specialises(nn.Module):
    """Runs the inner model, then specialises the batch dim declared dynamic: export fails after the trace."""

    def __init__(self, inner: nn.Module):
        super().__init__()
        self.inner = inner

    def forward(self, x):
        y = self.inner(x)
        return y * 2 if x.shape[0] == 3 else y


@pytest.mark.parametrize("case", ["levit_like_dict_cache", "list_append", "global_statement"])
def test_an_export_failing_on_constraints_restores_the_state(case: str) -> None:
    model, x, expected, paths = _make(case)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(ExportConstraintError):
            st.export(Specialises(model), (x,), dynamic_shapes={"x": {0: Dim("batch")}})
    assert _written(caught) == sorted(p.replace("self.", "self.inner.", 1) if p.startswith("self.") else p for p in paths)
    _eager_equal(model, x, expected)


@pytest.mark.parametrize("case", list(CASES))
def test_compile_restores_the_trace_and_runs_the_writes_once(case: str) -> None:
    model, x, expected, paths = _make(case)
    compiled = st.compile(model)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with torch.no_grad():
            out = compiled(x)
    assert _written(caught) == sorted(paths)
    torch.testing.assert_close(out, expected)  # the compiled call ran the model once, on real tensors
    _no_traced_values(model)
    if isinstance(model, History):
        assert model.calls == 1 and len(model.history) == 1  # the real call's writes, not the trace's
    _fresh_globals_now()
    reference = copy.deepcopy(model)
    with torch.no_grad():
        again = reference(x)
    _fresh_globals_now()
    with torch.no_grad():
        torch.testing.assert_close(model(x), again)
        torch.testing.assert_close(compiled(x), reference(x))  # a cache hit: no trace, no warning


class CountingBatchNorm(nn.Module):
    """BatchNorm in train mode (its running statistics are buffers updated in place) and a step counter."""

    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm1d(5)
        self.steps = 0

    def forward(self, x):
        self.steps += 1
        return self.bn(x)


def test_compile_in_train_mode_updates_buffers_once_with_real_values() -> None:
    torch.manual_seed(0)
    model = CountingBatchNorm().train()
    reference = copy.deepcopy(model)
    x = torch.randn(8, 5)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = st.compile(model)(x)
    torch.testing.assert_close(out, reference(x))
    assert _written(caught) == ["self.steps"]
    assert model.steps == reference.steps == 1
    for name, buffer in reference.bn.named_buffers():
        torch.testing.assert_close(getattr(model.bn, name), buffer)


def _torch_export_paths(model: nn.Module, x: torch.Tensor) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.export.export(model, (x,))
    found = [re.search(r"The tensor attributes? (.*) (?:was|were) assigned during export", str(w.message)) for w in caught]
    return sorted(p for m in found if m for p in m.group(1).split(", "))


@pytest.mark.parametrize("case", ["levit_like_dict_cache", "tensor_attribute"])
def test_tensor_attribute_paths_are_torch_exports(case: str) -> None:
    model, x, _, _ = _make(case)
    theirs = _torch_export_paths(copy.deepcopy(model), x)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        st.export(model, (x,))
    ours = sorted(w.path for c in caught if issubclass(c.category, TraceStateWarning) for w in c.message.writes if w.tensor)
    assert ours == theirs


def _levit():
    sys.modules.setdefault("torchvision._meta_registrations", types.ModuleType("torchvision._meta_registrations"))
    timm = pytest.importorskip("timm")
    torch.manual_seed(0)
    return timm.create_model("levit_128s", pretrained=False).eval()


def test_timm_levit_works_after_export_and_compile() -> None:
    model = _levit()
    x = torch.randn(1, 3, 224, 224)
    theirs = _torch_export_paths(copy.deepcopy(model), x)
    reference = copy.deepcopy(model)
    with torch.no_grad():
        expected = reference(x)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        st.export(model, (x,))
    assert _written(caught) == theirs  # the 11 attention_bias_cache['cpu'] entries torch.export names
    assert "self.stages.1.downsample.attn_downsample.attention_bias_cache['cpu']" in theirs
    with torch.no_grad():
        torch.testing.assert_close(model(x), expected)
    fresh = _levit()
    with torch.no_grad(), pytest.warns(TraceStateWarning, match="attention_bias_cache"):
        torch.testing.assert_close(st.compile(fresh)(x), expected)
        torch.testing.assert_close(fresh(x), expected)


def test_tensors_traced_inside_are_not_left_in_parameters() -> None:
    """A traced value assigned onto a real parameter object (its ``__dict__``) is removed too."""

    class Tags(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(5, 5)

        def forward(self, x):
            self.fc.weight.last_input = x
            return self.fc(x)

    model = Tags()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        st.export(model, (torch.randn(3, 5),))
    assert _written(caught) == ["self.fc.weight.last_input"]
    assert not hasattr(model.fc.weight, "last_input")
    write = next(c.message for c in caught if issubclass(c.category, TraceStateWarning)).writes[0]
    assert write.traced and write.tensor and write.what == "added"


class ReassignsBuffer(nn.Module):
    """Reassigns a registered buffer in forward (``self.steps = self.steps + 1`` goes to ``_buffers``)."""

    def __init__(self):
        super().__init__()
        self.register_buffer("steps", torch.zeros(()))

    def forward(self, x):
        self.steps = self.steps + 1
        return x + self.steps


def test_a_reassigned_buffer_is_restored_and_named_as_a_buffer() -> None:
    model = ReassignsBuffer()
    x = torch.randn(3, 5)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        st.export(model, (x,))
    (write,) = [w for c in caught if issubclass(c.category, TraceStateWarning) for w in c.message.writes]
    assert (write.path, write.kind, write.what, write.traced) == ("self.steps", "buffer", "assigned", True)
    message = str(next(c.message for c in caught if issubclass(c.category, TraceStateWarning)))
    assert "buffer self.steps" in message and "in place" in message and "register_buffer" not in message
    assert model.steps.item() == 0 and "steps" in model._buffers
    torch.testing.assert_close(model(x), x + 1)
