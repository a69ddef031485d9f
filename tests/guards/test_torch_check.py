"""Real arguments against torch's dumps (guards/torchlog/torch_check.py): numpy arrays, nested inputs, strides, recompile logs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from guards import GuardSet
from guards.torchlog.torch_check import dynamic_guard_set, explain_call, explain_recompiles, load_torch_guards, pinned_values, read_arguments
from guards.torchlog.torch_log import read_torch_log

DUMPS = Path(__file__).parent / "data" / "torch_dumps"


def _dump(name: str) -> str:
    return (DUMPS / f"{name}.log").read_text(encoding="utf-8")


def _x(shape, *, transpose=None, step=None, dtype=np.float32):
    if transpose is not None:
        a, b = transpose
        full = list(shape)
        full[a], full[b] = full[b], full[a]
        return np.zeros(full, dtype).swapaxes(a, b)
    if step is not None:
        full = list(shape)
        full[-1] *= step
        return np.zeros(full, dtype)[..., ::step]
    return np.zeros(shape, dtype)


def _pad_pool_entries():
    return load_torch_guards(_dump("pad_pool"))


def _values_for_x(entry, x) -> dict:
    """The entry's sources read from x, the module's pins as traced."""
    pins = pinned_values(entry.guards)
    values = {s: v for s, v in pins.items() if not entry.guards.source_map[s].base == "x"}
    values.update({s: v for s, v in read_arguments(GuardSet.of((), {s: src for s, src in entry.guards.sources if src.base == "x"}), {"x": x}).items()})
    return values


def test_pad_pool_entries_accept_and_reject_as_torch_would() -> None:
    e0, e1, e2 = _pad_pool_entries()
    # entry 0/0: static (2, 3, 10), contiguous
    assert e0.explain_values(_values_for_x(e0, _x((2, 3, 10)))).accepted
    assert not e0.explain_values(_values_for_x(e0, _x((3, 3, 10)))).accepted
    # entry 0/1: dynamic contiguous; a strided slice (stride()[2] == 2) is rejected by its stride guards
    assert e1.explain_values(_values_for_x(e1, _x((3, 4, 15)))).accepted
    rejected = e1.explain_values(_values_for_x(e1, _x((3, 4, 15), step=2)))
    assert not rejected.accepted and any("stride" in r for r in rejected.reasons), rejected
    # entry 0/2 was compiled for the strided input
    assert e2.explain_values(_values_for_x(e2, _x((3, 4, 15), step=2))).accepted


def test_rank_and_dtype_reject_before_sizes() -> None:
    [entry] = load_torch_guards(
        "TREE_GUARD_MANAGER:\n+- TENSOR_MATCH: check_tensor(L['x'], Tensor, DispatchKeySet(CPU), torch.float32, "
        "device=None, requires_grad=False, size=[None, 3], stride=[3, 1])"
    )
    assert entry.accepts({"x": np.zeros((5, 3), np.float32)})
    assert "rank mismatch. expected 2, actual 1" in str(entry.explain({"x": np.zeros(3, np.float32)}))
    assert "dtype mismatch. expected torch.float32, actual torch.float64" in str(entry.explain({"x": np.zeros((5, 3))}))
    assert "stride" in str(entry.explain({"x": np.zeros((3, 5), np.float32).T}))  # non-contiguous: strides (1, 5)


def test_nested_arguments_are_bound() -> None:
    [_, dyn] = load_torch_guards(_dump("patchify"))
    model = {"p": 4}
    img, extra = np.zeros((3, 3, 12, 16), np.float32), np.zeros((3, 2, 8), np.float32)
    pins = pinned_values(dyn.guards)
    values = {s: v for s, v in pins.items()}
    values.update(read_arguments(GuardSet.of((), {s: src for s, src in dyn.guards.sources if src.base.startswith("xs")}), {"xs": [img, extra]}))
    assert dyn.explain_values(values).accepted, dyn.explain_values(values)
    # H = 13 is not divisible by 4: rejected, and the reason names the nested source in torch's spelling
    values.update(read_arguments(GuardSet.of((), {s: src for s, src in dyn.guards.sources if src.base.startswith("xs")}), {"xs": [np.zeros((3, 3, 13, 16), np.float32), extra]}))
    verdict = dyn.explain_values(values)
    assert not verdict.accepted and "L['xs'][0].size()[2]" in str(verdict), verdict


def test_why_did_this_recompile_over_all_entries() -> None:
    entries = load_torch_guards(
        "TREE_GUARD_MANAGER:\n+- LAMBDA_GUARD: L['x'].size()[0] == 2\n"
        "TREE_GUARD_MANAGER:\n+- LAMBDA_GUARD: 2 <= L['x'].size()[0] <= 8  # conv"
    )
    assert explain_call(entries, {"x": np.zeros(5)}).reused == "#1"
    assert explain_call(entries, {"x": np.zeros(2)}).reused == "#1"  # newest first, as torch checks
    text = str(explain_call(entries, {"x": np.zeros(1)}))
    assert text.startswith("recompile: none of the 2 entries") and "got 1" in text and "# conv" in text


def test_recompiles_log_is_explained_with_the_guard_lines() -> None:
    [first, second] = explain_recompiles(read_torch_log(_dump("pad_pool")))
    assert str(first).splitlines()[1].startswith("  entry 0/0: L['x'].size()[0] == 2 failed: got 3  (guard at line ")
    assert "L['x'].stride()[2] == 1 failed: got 2" in str(second)
    [router] = explain_recompiles(read_torch_log(_dump("router")))
    assert "L['n'] == 2 failed" in str(router) and "(guard at line 38)" in str(router)


def test_dynamic_log_makes_sympy_guards_evaluable() -> None:
    [env] = read_torch_log(_dump("cnn")).dynamic
    gs = dynamic_guard_set(env)
    assert "L['x'].size()[0] < 16" in gs.to_text()
    assert gs.holds({"L['x'].size()[0]": 3, "L['x'].size()[2]": 20, "L['x'].size()[3]": 24})
    assert not gs.holds({"L['x'].size()[0]": 3, "L['x'].size()[2]": 5, "L['x'].size()[3]": 24})


class _Linear:
    def __init__(self, w: np.ndarray):
        self._parameters = {"weight": w}


class _Model:
    def __init__(self):
        self._modules = {"fc": _Linear(np.zeros((4, 3), np.float32))}
        self.heads = 2


def test_objects_with_attributes_are_bound() -> None:
    [entry] = load_torch_guards(
        "TREE_GUARD_MANAGER:\n"
        "+- TENSOR_MATCH: check_tensor(L['self']._modules['fc']._parameters['weight'], Parameter, DispatchKeySet(CPU), "
        "torch.float32, device=None, requires_grad=False, size=[4, 3], stride=[3, 1])\n"
        "+- EQUALS_MATCH: L['self'].heads == 2\n"
        "+- LAMBDA_GUARD: L['x'].size()[1] == L['self']._modules['fc']._parameters['weight'].size()[1]"
    )
    model = _Model()
    assert entry.accepts({"self": model, "x": np.zeros((5, 3), np.float32)})
    assert not entry.accepts({"self": model, "x": np.zeros((5, 4), np.float32)})
    model.heads = 3
    assert "L['self'].heads == 2 failed: got 3" in str(entry.explain({"self": model, "x": np.zeros((5, 3), np.float32)}))
    # the module not given: assumed as traced
    assert explain_call([entry], {"x": np.zeros((5, 3), np.float32)}, assume_traced=True).reused == "#0"
