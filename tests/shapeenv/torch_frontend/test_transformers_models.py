"""transformers models (tiny random-init configs) through ``shapeenv.torch.export`` / ``compile``, against torch.

While ``shapeenv.torch`` traces, ``torch.compiler.is_compiling()`` / ``is_exporting()`` answer as under
torch's own export and compile (Note [Library trace paths] in :mod:`shapeenv.torch.hops`), so
transformers takes its traced path (no ``bool()`` of a mask); these tests pin that down, then export
each text model with a dynamic batch and sequence length and compare with ``torch.export.export``.
"""

from __future__ import annotations

import sys
import threading
import types

import pytest

torch = pytest.importorskip("torch", reason="the torch frontend needs torch (pip install torch==2.13.0)")
pytestmark = pytest.mark.torch

from torch.export import Dim  # noqa: E402

import shapeenv.torch as st  # noqa: E402
from shapeenv.errors import ShapeError  # noqa: E402

from .helpers import assert_same_as_torch_export  # noqa: E402


def _transformers():
    """transformers, imported without torchvision's meta registrations.

    The torchvision 0.28.0 wheel matching torch 2.13 is built against CUDA torch: its
    ``_meta_registrations`` module fails beside the CPU wheel (``operator torchvision::nms does not
    exist``), and transformers imports torchvision when it is installed. Text models need none of
    torchvision's operators, so that one module is stubbed when those operators are missing.
    """
    if "torchvision" not in sys.modules and not hasattr(torch.ops.torchvision, "nms"):
        sys.modules.setdefault("torchvision._meta_registrations", types.ModuleType("torchvision._meta_registrations"))
    tr = pytest.importorskip("transformers", reason="needs transformers (pip install transformers)")
    tr.logging.set_verbosity_error()
    return tr


# -- library trace paths (Note [Library trace paths]) ---------------------------------------------------
def _flags():
    import torch._dynamo

    return torch.compiler.is_compiling(), torch.compiler.is_exporting(), torch._dynamo.is_compiling()


class _Recorder(torch.nn.Module):
    """Records the flags each time it runs on a traced tensor (compile also runs it eagerly: those are skipped)."""

    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(3, 2)
        self.seen = []

    def forward(self, x):
        if isinstance(x, st.TracedTensor):
            self.seen.append(_flags())
        return self.fc(x)


def test_flags_under_export_and_compile():
    originals = torch.compiler.is_compiling, torch.compiler.is_exporting
    m = _Recorder()
    st.export(m, (torch.randn(4, 3),), dynamic_shapes={"x": {0: Dim("b")}})
    assert m.seen == [(True, True, True)]
    st.compile(m)(torch.randn(4, 3))
    assert m.seen[1:] == [(True, False, True)]
    assert _flags() == (False, False, False)
    assert (torch.compiler.is_compiling, torch.compiler.is_exporting) == originals


def test_flags_restored_when_the_trace_raises():
    def bad(x):
        assert torch.compiler.is_compiling()
        raise KeyError("boom")

    with pytest.raises(KeyError):
        st.export(bad, (torch.randn(4, 3),))
    assert _flags() == (False, False, False)


def test_flags_are_per_thread():
    inside, checked = threading.Event(), threading.Event()
    elsewhere = []

    def traced(x):
        inside.set()
        assert checked.wait(60)
        return x + 1

    def other():
        assert inside.wait(60)
        elsewhere.append(_flags())
        elsewhere.append(float(torch.ones(2).sum()))  # eager torch runs as usual
        checked.set()

    t = threading.Thread(target=other)
    t.start()
    st.export(traced, (torch.randn(4, 3),))
    t.join()
    assert elsewhere == [(False, False, False), 2.0]


def test_data_dependent_check_still_names_the_line():
    def f(x, mask):
        if mask.all():  # the line the error names
            return x
        return x * 2

    with pytest.raises(ShapeError) as info:
        st.export(f, (torch.randn(4, 3), torch.ones(4, dtype=torch.bool)))
    assert f"{__file__}:{f.__code__.co_firstlineno + 1}" in info.value.where
