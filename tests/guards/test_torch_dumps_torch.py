"""Differential: verdicts read from torch's own guard dumps agree with torch's reuse decisions.

For each of six real models (tests/guards/torch_models.py), the model is compiled and called
with its call sequence while its ``TORCH_LOGS=guards`` output is captured; then, for random
inputs (sizes around the traced ones, 1s included, a third of them non-contiguous through a
transpose or a strided slice), torch is asked under ``set_stance("fail_on_recompile")``
whether it reuses an entry, and our verdict is read from the captured dump alone
(:func:`guards.torchlog.torch_check.explain_call`). They must agree on every input.
"""

from __future__ import annotations

import inspect
from dataclasses import replace

import pytest

torch = pytest.importorskip("torch", reason="differential tests need torch (pip install torch==2.13.0)")
pytestmark = pytest.mark.torch

from guards.guardset import GuardSet  # noqa: E402
from guards.torchlog.torch_check import TorchGuards, explain_call, load_torch_guards  # noqa: E402
from guards.torchlog.torch_log import read_torch_log  # noqa: E402
from tests.guards.torch_models import MODELS, capture, random_inputs  # noqa: E402

SAMPLES = 60


def _torch_reuses(compiled, args) -> bool:
    try:
        with torch.compiler.set_stance("fail_on_recompile"):
            compiled(*args)
    except RuntimeError as exc:  # "Detected recompile when torch.compile stance is 'fail_on_recompile'"
        if "Detected recompile" in str(exc):
            return False
        raise
    return True


@pytest.mark.parametrize("name", sorted(MODELS))
def test_verdicts_agree_with_torch_on_random_inputs(name: str) -> None:
    text, compiled = capture(name)
    log = read_torch_log(text)
    assert len(log.entries) >= 2, f"{name}: expected several cache entries, got {len(log.entries)}"
    entries = load_torch_guards(text)
    model = compiled._orig_mod
    params = list(inspect.signature(model.forward).parameters)
    outcomes = {True: 0, False: 0}
    noncontiguous = 0
    for args in random_inputs(name, SAMPLES, seed=7):
        arguments = {"self": model, **dict(zip(params, args))}
        ours = explain_call(entries, arguments)
        theirs = _torch_reuses(compiled, args)
        assert (ours.reused is not None) == theirs, f"{name}: torch reuses={theirs}, we say:\n{ours}\nargs: {args!r}"
        outcomes[theirs] += 1
        leaves = [a for arg in args for a in (arg if isinstance(arg, (list, tuple)) else arg.values() if isinstance(arg, dict) else [arg])]
        noncontiguous += any(isinstance(a, torch.Tensor) and not a.is_contiguous() for a in leaves)
    # the sample exercises both answers and non-contiguous inputs (else the agreement says little)
    assert outcomes[True] > 0 and outcomes[False] > 0, f"{name}: {outcomes}"
    assert noncontiguous > 0


def test_without_tensor_match_the_verdicts_would_disagree() -> None:
    """The shape lines alone over-accept: TENSOR_MATCH's static sizes and strides are needed."""
    text, compiled = capture("transformer")
    entries = load_torch_guards(text)
    model = compiled._orig_mod
    lambda_only = [
        TorchGuards(
            replace(e.entry, tensors=()),
            GuardSet.of([g for g in e.guards.guards if "LAMBDA_GUARD" in (g.origin or "")], e.guards.source_map),
        )
        for e in entries
    ]
    disagree = 0
    for args in random_inputs("transformer", SAMPLES, seed=7):
        ours = explain_call(lambda_only, {"self": model, "x": args[0]}).reused is not None
        disagree += ours != _torch_reuses(compiled, args)
    assert disagree > 0
