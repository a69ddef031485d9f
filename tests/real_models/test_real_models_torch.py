"""Real models from torchvision, timm and transformers: ``shapeenv.torch`` against ``torch.export`` and eager torch.

For each model of :mod:`tests.real_models.models` (tiny configs, random init, a dynamic batch and,
for text and audio, a dynamic sequence, ``Dim(min=1, max=...)``):

* torch.export exports it, and so does ``shapeenv.torch.export``, with the same outputs (count,
  dtypes, ranks) and each input dim's range at least as general as torch's range constraint;
* at seeded random sizes inside the Dims (their min and max included) our guards accept the
  inputs, and our predicted output shapes equal torch.export's (its graph's symbolic shapes) and
  a real eager run's; just past a Dim's max we refuse, as torch.export's range constraints do;
* ``shapeenv.torch.compile`` returns what eager returns, at three sizes;
* tracing leaves the model as it was: its eager output after our export and compile equals its
  output before (issue 26), even when a trace fails.

Models that fail today for a known reason are listed in :data:`KNOWN` with that reason, as strict
xfails: when the fix lands they pass, and the entry must go.
"""

from __future__ import annotations

import functools
import importlib
import os
import random
from dataclasses import dataclass

import pytest

torch = pytest.importorskip("torch", reason="differential tests need torch (pip install torch==2.13.0)")
pytestmark = pytest.mark.torch
for _lib in ("torchvision", "timm", "transformers"):  # CI installs them (.ci/run): there a missing one fails
    importlib.import_module(_lib) if os.environ.get("CI") == "true" else pytest.importorskip(
        _lib, reason="the real-model suite needs pip install -e '.[models]'")

import sympy  # noqa: E402
from torch.utils._pytree import tree_leaves  # noqa: E402

import shapeenv.torch as st  # noqa: E402
from guards import Source  # noqa: E402
from shapeenv.errors import ShapeEnvError  # noqa: E402

from ..torch_models.compare import evaluate, our_outputs, rename_to, symbol_values  # noqa: E402
from ..torch_models.torch_side import export_outputs, source_symbols  # noqa: E402
from .models import CASES  # noqa: E402


@dataclass(frozen=True)
class Known:
    """A model that fails today for a known reason, and which tests fail: ``export`` (the two export tests),
    ``compile`` (``shapeenv.torch.compile`` fails too), ``state`` (a trace leaves the model changed)."""

    reason: str
    fails: frozenset = frozenset({"export"})


#: The models ours does not export yet at a size of 1, and why (the first failure). Delete an entry when
#: its fix lands: the strict xfails then fail as XPASS. Empty: the branches of transformers' code on a size that
#: may be 1 and MobileViT's reshape (a view only at batch 1) are traced at 1 too and compared (Note [Sizes 0 and 1
#: in export] in shapeenv.export.small).
KNOWN: dict[str, Known] = {}

NAMES = list(CASES)


def params(kind: str) -> list:
    """The case names, those KNOWN to fail ``kind`` (``export``, ``compile`` or ``state``) as strict xfails."""
    out = []
    for name in NAMES:
        known = KNOWN.get(name)
        fails = known is not None and kind in known.fails
        out.append(pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=known.reason)) if fails else name)
    return out


def eager(model, kwargs) -> list:
    """The model's outputs on real inputs, flattened (a ModelOutput's tensors in its keys' order)."""
    with torch.no_grad():
        return [t for t in tree_leaves(model(**kwargs)) if isinstance(t, torch.Tensor)]


class Exported:
    """One model exported by torch.export and by ``shapeenv.torch.export`` with the case's Dims (ours may have failed)."""

    def __init__(self, name: str):
        self.case = CASES[name]
        self.model = self.case.build()
        example = self.case.kwargs()
        self.theirs = torch.export.export(self.model, (), example, dynamic_shapes=self.case.dynamic_shapes())
        try:
            self._ours, self._error = st.export(self.model, (), example, dynamic_shapes=self.case.dynamic_shapes()), None
        except ShapeEnvError as e:
            self._ours, self._error = None, e

    @property
    def ours(self):
        if self._error is not None:
            raise self._error
        return self._ours

    def torch_predicted(self, kwargs) -> list[tuple[int, ...]]:
        """torch.export's output shapes at the sizes of ``kwargs`` (its graph's symbolic shapes, evaluated)."""
        values = {sym: kwargs[src.base].shape[src.index] for sym, src in source_symbols(self.theirs).items()}
        return [tuple(evaluate(d, values) for d in o.shape) for o in export_outputs(self.theirs)]

    def our_predicted(self, kwargs) -> list[tuple[int, ...]]:
        """Our program's output shapes at the sizes of ``kwargs``."""
        values = symbol_values(self.ours, self.ours.bindings(**kwargs))
        return [tuple(evaluate(d, values) for d in o.shape) for o in our_outputs(self.ours)]


@pytest.fixture(scope="module")
def exported():
    """``exported(name)``: the ``Exported`` of one model, built once per name in this module."""
    return functools.cache(Exported)


def sizes_to_try(case, rng: random.Random) -> list[dict[str, int]]:
    """Each Dim's min, each Dim's max, and three seeded random draws."""
    return [{d: 1 for d in case.dims}, dict(case.maxima)] + [case.draw(rng) for _ in range(3)]


@pytest.mark.parametrize("name", params("export"))
def test_ours_exports_what_torch_exports_with_the_same_outputs_and_ranges(exported, name) -> None:
    e = exported(name)
    ours, theirs = our_outputs(e.ours), export_outputs(e.theirs)
    assert [(o.dtype, len(o.shape)) for o in ours] == [(t.dtype, len(t.shape)) for t in theirs]
    # each input dim torch made a symbol: ours is a symbol too, with a range at least as general
    rename = {t: o for o, t in rename_to(e.ours, source_symbols(e.theirs)).items()}
    torch_ranges = {str(sym): r for sym, r in e.theirs.range_constraints.items()}
    for sym, src in source_symbols(e.theirs).items():
        assert sym in rename, f"{name}: {src.text()} is dynamic in torch.export's program, not in ours"
        mine, torchs = e.ours.range_constraints[rename[sym]], torch_ranges[str(sym)]
        assert mine.lower <= int(torchs.lower) and (torchs.upper == sympy.oo or mine.upper >= int(torchs.upper)), \
            (name, src.text(), mine, torchs)


@pytest.mark.parametrize("name", params("export"))
def test_inputs_our_guards_accept_run_in_eager_with_the_predicted_shapes(exported, name) -> None:
    """Seeded sizes in the Dims: we accept them, predict torch.export's shapes, and eager has them; past a max we refuse."""
    e = exported(name)
    rng = random.Random(f"real-{name}")
    for k, sizes in enumerate(sizes_to_try(e.case, rng)):
        kwargs = e.case.kwargs(sizes, seed=k)
        assert e.ours.accepts(**kwargs), (name, sizes, e.ours.explain_inputs(**kwargs).text)
        real = [tuple(t.shape) for t in eager(e.model, kwargs)]
        assert e.our_predicted(kwargs) == e.torch_predicted(kwargs) == real, (name, sizes)
    for dim, hi in e.case.maxima.items():
        past = e.case.kwargs({**e.case.example, dim: hi + 1})
        assert not e.ours.accepts(**past), (name, dim, hi + 1)


@pytest.mark.parametrize("name", params("compile"))
def test_compile_returns_what_eager_returns(name) -> None:
    case = CASES[name]
    model = case.build()
    compiled = st.compile(model)
    rng = random.Random(f"compile-{name}")
    bumped = {d: min(v + 1, case.maxima[d]) for d, v in case.example.items()}
    for k, sizes in enumerate([dict(case.example), bumped, case.draw(rng)]):
        kwargs = case.kwargs(sizes, seed=k)
        with torch.no_grad():
            got = [t for t in tree_leaves(compiled(**kwargs)) if isinstance(t, torch.Tensor)]
        want = eager(model, kwargs)
        assert len(got) == len(want) and all(torch.equal(a, b) for a, b in zip(got, want)), (name, sizes)


@pytest.mark.parametrize("name", params("state"))
def test_tracing_leaves_the_model_as_it_was(name) -> None:
    """After our export and compile (failed or not), the model's eager output is that of an untraced twin (issue 26).

    The model is traced before its first eager call: a module that caches a tensor on first use
    (timm's LeViT) would otherwise trace with the real cached tensor and hide what a trace leaves.
    """
    case = CASES[name]
    model, twin = case.build(), case.build()  # seeded: the same weights
    kwargs = case.kwargs()
    try:  # a trace that fails must leave the model as it was too: failures are the other tests' business
        st.export(model, (), kwargs, dynamic_shapes=case.dynamic_shapes())
    except ShapeEnvError:
        pass
    try:
        compiled = st.compile(model)
        compiled(**case.kwargs({d: min(v + 1, case.maxima[d]) for d, v in case.example.items()}))
    except ShapeEnvError:
        pass
    got, want = eager(model, kwargs), eager(twin, kwargs)
    assert len(got) == len(want) and all(torch.equal(a, b) for a, b in zip(got, want)), name
    state, reference = model.state_dict(), twin.state_dict()
    assert state.keys() == reference.keys() and all(torch.equal(state[k], v) for k, v in reference.items())
    assert not model.training
