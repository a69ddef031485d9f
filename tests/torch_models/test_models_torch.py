"""The eight-model differential suite: ``shapeenv.torch.export`` against ``torch.export`` on real torch models.

For each model of :mod:`tests.torch_models.models` (plain ``nn.Module`` code), exported both ways
with the same ``torch.export.Dim`` specs:

* outputs: shapes, strides and dtypes equal torch.export's, as expressions over the input dims
  (proven equal by Z3 on every input torch's contract accepts) and at concrete sizes against a
  real run;
* random sizes (seeded, 0, 1 and out-of-range sizes included): every input our guards accept runs
  in real torch with the shapes and strides we predicted; every input we reject, torch.export's
  contract rejects too;
* guard sets: ours is Z3-equivalent to torch.export's contract or provably more general (torch's
  implies ours, and the input Z3 finds only ours accepts runs in torch), as recorded with the
  reason in :data:`tests.torch_models.differences.EXPORT`; the same against the guard dump of
  ``torch.compile(backend="eager", dynamic=True)`` with torch's default Dims, strides included
  (:data:`~tests.torch_models.differences.COMPILE`: this covers the models whose natural range
  torch.export refuses); and, recorded as a known imprecision, torch.export with default Dims
  promises sizes 0 and 1 where we specialise them (:data:`~tests.torch_models.differences.ZERO_ONE`);
* ``shapeenv.torch.compile``: the guarded cache over real tensors gives the model's own results,
  tracing twice (static, then automatic dynamic) and hitting after;
* our export and compile leave the model as they found it (:mod:`shapeenv.export.state`): its eager
  output and state afterwards equal an untouched copy's, and none of these models writes state in
  forward (no ``TraceStateWarning``).
"""

from __future__ import annotations

import copy
import functools
import random
import warnings

import pytest

torch = pytest.importorskip("torch", reason="differential tests need torch (pip install torch==2.13.0)")
pytestmark = pytest.mark.torch

import shapeenv.torch as st  # noqa: E402
from shapeenv.errors import TraceStateWarning  # noqa: E402
from guards import GuardSet, Source  # noqa: E402
from symint.build import ge  # noqa: E402

from .compare import SOLVER, equal_under, evaluate, our_outputs, rename_to, state_inputs, symbol_values, user_guards  # noqa: E402
from .differences import COMPILE, EXPORT, ZERO_ONE  # noqa: E402
from .models import CASES  # noqa: E402
from .torch_side import compile_guard_log, export_guards, export_outputs, source_symbols, torch_export  # noqa: E402

NAMES = list(CASES)
DRAWS = 40


class Ours:
    """One model exported by ``shapeenv.torch.export``, and what its program predicts for real inputs."""

    def __init__(self, case, model, style: str = "bounded"):
        self.case, self.model = case, model
        self.program = st.export(model, case.args(), dynamic_shapes=case.dynamic_shapes(style))
        self.state = state_inputs(model)  # parameters and buffers: static inputs of our program

    def guards(self, layout: bool = False) -> GuardSet:
        """The guards on the user inputs (sizes; with ``layout``, strides and offsets too)."""
        return user_guards(self.program.all_guards if layout else self.program.guards, self.case.inputs)

    def bindings(self, sizes) -> dict:
        """Input sources -> values for (contiguous) inputs at ``sizes``, the module's state included."""
        return self.program.bindings(*self.case.args(sizes), **self.state)

    def accepts(self, sizes) -> bool:
        """Whether our program's guards (layout guards included) accept real inputs at ``sizes``."""
        return self.program.accepts(*self.case.args(sizes), **self.state)

    def predicted(self, sizes) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
        """Each output's (shape, strides) at ``sizes``, from our program's symbolic outputs."""
        values = symbol_values(self.program, self.bindings(sizes))
        return [(tuple(evaluate(d, values) for d in o.shape), tuple(evaluate(s, values) for s in o.stride))
                for o in our_outputs(self.program)]

    def check_runs(self, sizes, seed: int = 0) -> None:
        """A real run at ``sizes`` has the output shapes and strides we predict."""
        real = [(tuple(t.shape), t.stride()) for t in real_outputs(self.model, self.case.args(sizes, seed=seed))]
        assert self.predicted(sizes) == real, (self.case.name, sizes)


class Pair:
    """One model exported both ways, with the case's bounded Dims."""

    def __init__(self, name: str):
        self.case = CASES[name]
        self.model = self.case.build()
        self.ours = Ours(self.case, self.model)
        self.theirs = torch_export(self.case, self.model)
        self.torch_guards = export_guards(self.theirs)
        self.torch_sources = source_symbols(self.theirs)
        self.rename = rename_to(self.ours.program, self.torch_sources)

    def accepted_by_torch(self, sizes) -> bool:
        """Whether torch.export's contract (ranges, static and equal dims, ``_guards_code``) accepts inputs at ``sizes``."""
        return holds(self.torch_guards, self.ours.bindings(sizes))


def holds(gs: GuardSet, bindings) -> bool:
    """``gs`` on the bindings of the sources it knows."""
    known = {src for _, src in gs.sources}
    return gs.holds({s: v for s, v in bindings.items() if s in known})


@pytest.fixture(scope="module")
def pairs():
    """``pairs(name)``: the ``Pair`` of one model, built once per name in this module."""
    return functools.cache(Pair)


def real_outputs(model, args) -> list:
    """The model's outputs on real inputs, flattened."""
    with torch.no_grad():
        out = model(*args)
    return list(out) if isinstance(out, (tuple, list)) else [out]


# -- (a) outputs -------------------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_output_dtypes_and_ranks_match_torch_export(pairs, name) -> None:
    p = pairs(name)
    ours, theirs = our_outputs(p.ours.program), export_outputs(p.theirs)
    assert [(o.dtype, len(o.shape)) for o in ours] == [(t.dtype, len(t.shape)) for t in theirs]


@pytest.mark.parametrize("name", NAMES)
def test_output_shapes_and_strides_equal_torch_exports_on_every_accepted_input(pairs, name) -> None:
    """Z3: under torch's contract each output size and stride of ours equals torch's expression for it."""
    p = pairs(name)
    both = []
    for o, t in zip(our_outputs(p.ours.program), export_outputs(p.theirs)):
        both += [(d.xreplace(p.rename), e) for d, e in zip(o.shape + o.stride, t.shape + t.stride)]
    verdict, witness = equal_under(both, p.torch_guards)
    assert verdict == "yes", (name, [(a, b) for a, b in both if a != b], witness)


@pytest.mark.parametrize("name", NAMES)
def test_output_shapes_at_concrete_sizes_match_a_real_run(pairs, name) -> None:
    p = pairs(name)
    rng = random.Random(f"concrete-{name}")
    tried = 0
    for _ in range(200):
        sizes = p.case.draw(rng)
        if p.ours.accepts(sizes) and p.accepted_by_torch(sizes):
            p.ours.check_runs(sizes)
            tried += 1
            if tried == 4:
                break
    assert tried == 4, f"{name}: fewer than 4 drawn sizes accepted by both"


# -- (b) random sizes ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_every_input_we_accept_runs_in_torch_with_the_predicted_shape(pairs, name) -> None:
    """Random sizes (seeded), 0 and 1 and out-of-range ones included: what we accept runs; what we reject torch does too."""
    p = pairs(name)
    rng = random.Random(f"draws-{name}")
    accepted, rejected = 0, 0
    for _ in range(DRAWS):
        sizes = p.case.draw(rng)
        if p.ours.accepts(sizes):
            p.ours.check_runs(sizes, seed=accepted)
            accepted += 1
        else:
            rejected += 1
            assert not p.accepted_by_torch(sizes), f"{name}: we reject {sizes}, which torch.export's contract accepts"
    assert accepted >= 5 and rejected >= 1, (name, accepted, rejected)


# -- (c) guard sets -------------------------------------------------------------------------------
def verdict_of(ours: GuardSet, theirs: GuardSet) -> str:
    """``equivalent``, ``more general`` (theirs implies ours), ``narrower`` (ours implies theirs) or ``incomparable``."""
    if ours.equivalent(theirs, SOLVER).verdict.value == "yes":
        return "equivalent"
    if theirs.implies(ours, SOLVER).verdict.value == "yes":
        return "more general"
    if ours.implies(theirs, SOLVER).verdict.value == "yes":
        return "narrower"
    return "incomparable"


def check_more_general(ours: Ours, mine: GuardSet, theirs: GuardSet) -> None:
    """Z3's input accepted by ``mine`` only runs in torch, with the shapes and strides ``ours`` predicts."""
    witness = mine.counterexample(theirs, SOLVER)
    assert witness.verdict.value == "yes" and witness.accepted_by == "self", witness
    sizes = ours.case.sizes_from(dict(witness.witness))
    assert ours.accepts(sizes) and not holds(theirs, ours.bindings(sizes)), (ours.case.name, sizes)
    ours.check_runs(sizes)


@pytest.mark.parametrize("name", NAMES)
def test_our_guards_are_torch_exports_or_more_general_as_recorded(pairs, name) -> None:
    p = pairs(name)
    mine, recorded = p.ours.guards(), EXPORT[name]
    assert recorded.verdict in ("equivalent", "more general"), f"{name}: {recorded.reason}"
    assert verdict_of(mine, p.torch_guards) == recorded.verdict, (name, mine.to_text(), p.torch_guards.to_text())
    if recorded.verdict == "more general":
        check_more_general(p.ours, mine, p.torch_guards)


@pytest.mark.parametrize("name", NAMES)
def test_our_guards_are_torch_compiles_or_more_general_as_recorded(name) -> None:
    """``Dim.DYNAMIC`` dims (tracing may narrow them) against torch.compile(backend="eager", dynamic=True)'s guard dump."""
    case = CASES[name]
    model = case.build()
    ours = Ours(case, model, style="dynamic")
    [dump] = GuardSet.from_torch_log(compile_guard_log(case, model))
    mine, theirs, recorded = ours.guards(layout=True), user_guards(dump, case.inputs), COMPILE[name]
    assert recorded.verdict in ("equivalent", "more general"), f"{name}: {recorded.reason}"
    assert verdict_of(mine, theirs) == recorded.verdict, (name, mine.to_text(), theirs.to_text())
    if recorded.verdict == "more general":
        check_more_general(ours, mine, theirs)


# -- shapeenv.torch.compile ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_compile_serves_the_models_own_results_from_a_guarded_cache(name) -> None:
    """Automatic dynamic: the example traces static, a second size makes the dims dynamic, then hits."""
    case = CASES[name]
    model = case.build()
    compiled = st.compile(model)
    rng = random.Random(f"compile-{name}")
    sizes = [dict(case.example), {d: v + 1 for d, v in case.example.items()}]
    sizes += [{d: rng.randint(max(v, 8 if d in ("height", "width") else 2), v + 6) for d, v in case.example.items()}
              for _ in range(4)]
    for k, s in enumerate(sizes):
        args = case.args(s, seed=k)
        with torch.no_grad():
            got, want = compiled(*args), model(*args)
        got, want = (got, want) if isinstance(want, tuple) else ((got,), (want,))
        assert len(got) == len(want) and all(torch.equal(a, b) for a, b in zip(got, want)), (name, s)
    info = compiled.cache_info()
    assert info.compilations == 2 and info.hits == len(sizes) - 2, (name, info)


@pytest.mark.parametrize("name", NAMES)
def test_our_export_and_compile_leave_the_model_as_it_was(name) -> None:
    case = CASES[name]
    model = case.build()
    untouched = copy.deepcopy(model)
    with warnings.catch_warnings():
        warnings.simplefilter("error", TraceStateWarning)  # these models keep nothing from forward
        st.export(model, case.args(), dynamic_shapes=case.dynamic_shapes("bounded"))
        with torch.no_grad():
            st.compile(model)(*case.args(seed=1))
    for seed in (1, 2):
        args = case.args(seed=seed)
        with torch.no_grad():
            got, want = model(*args), untouched(*args)
        got, want = (got, want) if isinstance(want, tuple) else ((got,), (want,))
        assert all(torch.equal(a, b) for a, b in zip(got, want)), name
    theirs = untouched.state_dict()
    assert all(torch.equal(v, theirs[k]) for k, v in model.state_dict().items()), name


# -- torch's default Dim (min=0): torch.export promises sizes 0 and 1, we specialise them --------------
@pytest.mark.parametrize("name", sorted(ZERO_ONE))
def test_with_torchs_default_dims_we_differ_from_torch_export_only_on_sizes_0_and_1(name) -> None:
    """Recorded imprecision: ours is narrower, and equal to torch's contract once every dynamic dim is >= 2."""
    case = CASES[name]
    model = case.build()
    ours = Ours(case, model, style="default")
    theirs = export_guards(torch.export.export(model, case.args(), dynamic_shapes=case.dynamic_shapes("default")))
    mine, recorded = ours.guards(), ZERO_ONE[name]
    assert verdict_of(mine, theirs) == recorded.verdict, (name, mine.to_text(), theirs.to_text())
    dynamic = [theirs.symbol_for(Source.size(inp, i)) for inp, pattern in case.inputs.items()
               for i, d in enumerate(pattern) if isinstance(d, str)]
    at_least_2 = GuardSet.of([ge(sym, 2) for sym in dynamic], theirs.source_map)
    assert mine.equivalent(theirs & at_least_2, SOLVER).verdict.value == "yes", (name, mine.to_text(), theirs.to_text())
