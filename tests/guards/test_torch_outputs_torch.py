"""Differential: TORCH_TRACE, printed export programs, diffs, value guards and ``advise`` against torch 2.13 itself.

* one run writes both TORCH_LOGS text and TORCH_TRACE: both read as the same entries;
* a printed ``torch.export`` program with a derived dim: every input our guard set accepts runs
  in ``ep.module()``, and an odd sequence is rejected by both;
* float/bool values (``eps``, ``scale``, ``training``): our reuse verdict equals torch's
  (``fail_on_recompile``) when the module's attributes change;
* ``advise``'s proposal, applied to the real model (padding, ``mark_dynamic`` /
  ``maybe_mark_dynamic``), compiles once for every recorded call.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

torch = pytest.importorskip("torch", reason="differential tests need torch (pip install torch==2.13.0)")
pytestmark = pytest.mark.torch

from torch.export import Dim, export  # noqa: E402

from guards import GuardSet  # noqa: E402
from shapeenv.cli.guards_diff import compare  # noqa: E402
from shapeenv.cli.guards_torch import read_text  # noqa: E402
from guards.guardset import read_torch_output  # noqa: E402
from guards.torchlog.torch_check import explain_call, load_torch_guards  # noqa: E402
from guards.torchlog.torch_log import read_torch_log  # noqa: E402
from guards.torchlog.torch_trace import read_torch_trace  # noqa: E402
from shapeenv.compile.advise import advise, read_calls  # noqa: E402
from tests.guards.torch_models import capture_calls  # noqa: E402
from tests.guards.torch_run_models import RUNS, Block, Mask, arguments  # noqa: E402

DATA = Path(__file__).parent / "data"


def _recorder():
    spec = importlib.util.spec_from_file_location("make_torch_runs", DATA / "make_torch_runs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def test_one_run_writes_the_same_entries_to_text_and_trace(tmp_path) -> None:
    log_path, trace_path = _recorder().record("mask", tmp_path)
    text, trace = read_torch_log(log_path.read_text()), read_torch_trace(trace_path.read_text())
    assert [e.compile_id for e in trace.entries] == [e.compile_id for e in text.entries] == ["0/0", "0/1", "0/2"]
    for t, x in zip(trace.entries, text.entries):
        gt, gx = GuardSet.from_torch_entry(t), GuardSet.from_torch_entry(x)
        assert gt.exprs == gx.exprs and [re.sub(r"^line \d+ ", "", g.origin) for g in gt] == [
            re.sub(r"^line \d+ ", "", g.origin) for g in gx]  # fmt: skip
    strip = [(r.function, r.where, r.compile_id, [(f.compile_id, f.text) for f in r.failures]) for r in text.recompiles]
    assert [(r.function, r.where, r.compile_id, [(f.compile_id, f.text) for f in r.failures]) for r in trace.recompiles] == strip


def _export_mask():
    s_half = Dim("_S", min=1, max=32)
    b = Dim("B", min=1, max=16)
    args = (torch.randn(4, 10, 16), torch.zeros(4, 10, dtype=torch.bool))
    shapes = {"x": {0: b, 1: 2 * s_half}, "mask": {0: b, 1: 2 * s_half}}
    return export(Mask(), args, dynamic_shapes=shapes), args, shapes


def _runs(module, x, mask) -> bool:
    try:
        module(x, mask)
        return True
    except Exception:  # noqa: BLE001 - torch's input checks raise several types
        return False


def test_export_program_accepts_only_inputs_torch_runs() -> None:
    ep, _, _ = _export_mask()
    [gs] = GuardSet.from_torch_log(str(ep))
    module = ep.module()
    state = {"self._modules['proj']._parameters['weight'].size()[0]": 8, "self._modules['proj']._parameters['weight'].size()[1]": 16,
             "self._modules['proj']._parameters['bias'].size()[0]": 8}  # fmt: skip
    accepted = 0
    for b in (1, 4, 16, 17):
        for s in (2, 3, 4, 10, 11, 12, 64, 66):
            ours = gs.holds({**state, "x.size()[0]": b, "x.size()[1]": s, "x.size()[2]": 16, "mask.size()[0]": b, "mask.size()[1]": s})
            theirs = _runs(module, torch.randn(b, s, 16), torch.zeros(b, s, dtype=torch.bool))
            assert not ours or theirs, (b, s)  # what we accept, torch runs
            accepted += ours
            if s % 2:
                assert not ours and not theirs, (b, s)  # an odd S is no 2*_S for either
    assert accepted >= 8


def test_diff_of_our_export_and_torchs_by_meaning(tmp_path) -> None:
    import shapeenv.torch as st

    ep, args, shapes = _export_mask()
    ours = st.export(Mask(), args, dynamic_shapes=shapes).guards
    theirs = GuardSet.from_exported_program(str(ep))
    result = compare(ours, theirs)
    assert result.b_implies_a.verdict.value == "yes"  # every input torch's program accepts, ours accepts
    assert len(result.fixed) == 3 and not result.conflicts
    if result.counterexample is not None:
        assert not any("self" in k or k.startswith("p_") for k in result.counterexample["inputs"])


def _torch_reuses(compiled, args) -> bool:
    try:
        with torch.compiler.set_stance("fail_on_recompile"):
            compiled(*args)
        return True
    except RuntimeError as exc:
        if "recompile" not in str(exc):
            raise
        return False


def test_float_and_bool_attributes_decide_reuse_as_torch_does() -> None:
    model = Block().eval()
    text, compiled = capture_calls(model, [(torch.randn(2, 8, 16),), (torch.randn(3, 8, 16),)])
    entries = load_torch_guards(text)
    assert any(v.value == 1e-05 for v in entries[-1].entry.values)
    x = torch.randn(5, 8, 16)
    changes = [lambda m: None, lambda m: setattr(m, "scale", 0.25), lambda m: m.train(),
               lambda m: setattr(m.ln1, "eps", 1e-6), lambda m: setattr(m, "scale", 0.5)]  # fmt: skip
    for change in changes:
        model.eval()
        change(model)
        ours = explain_call(entries, {"self": model, "x": x}).reused is not None
        assert ours == _torch_reuses(compiled, (x,)), (change, model.scale, model.training, model.ln1.eps)


@pytest.mark.parametrize("name", sorted(RUNS))
def test_advice_applied_in_torch_compiles_once(name: str) -> None:
    runs = DATA / "torch_runs"
    log = read_torch_output(read_text(str(runs / f"{name}.log")))
    calls = read_calls((runs / f"{name}.calls.json").read_text())
    best = advise(log, calls).best
    assert best.proven and len(log.entries) > 1
    compiles = []

    def backend(gm, _):
        compiles.append(gm)
        return gm.forward

    torch._dynamo.reset()
    make, _, names = RUNS[name]
    compiled = torch.compile(make(), backend=backend)
    for call in best.padded:
        shapes = call.shape_map()
        args = arguments([shapes[n] for n in names])
        by_name = dict(zip(names, args))
        for d in best.dims:
            if d.strict:
                torch._dynamo.mark_dynamic(by_name[d.base], d.index, min=d.low, max=d.high)
            else:
                torch._dynamo.maybe_mark_dynamic(by_name[d.base], d.index)
        compiled(*args)
    assert len(compiles) == 1, f"{name}: {len(compiles)} compiles with the advice {best.changes}"
