"""``export`` against ``torch.export.export``: the same range constraints, and the same constraint violations."""

from __future__ import annotations

import math

import pytest

from shapeenv import Dim, ExportConstraintError, export

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch


def double(x):
    return x * 2


def gt5(x):
    return x * 2 if x.shape[0] > 5 else x + 1


def add(x, y):
    return x + y


def mult4(x):
    return x * 2 if x.shape[0] % 4 == 0 else x + 1


def to_torch_dim(spec):
    if spec is Dim.DYNAMIC:
        return torch.export.Dim.DYNAMIC
    if spec is None or spec is Dim.STATIC:
        return None
    return torch.export.Dim(spec.name, min=2 if spec.min is None else spec.min, max=spec.max)


def torch_export(fn, shapes, specs):
    class Module(torch.nn.Module):
        def forward(self, *args):
            return fn(*args)

    args = tuple(torch.randn(*s) for s in shapes)
    dynamic = tuple({d: to_torch_dim(s) for d, s in spec.items()} if spec else None for spec in specs)
    return torch.export.export(Module(), args, dynamic_shapes=(dynamic,))


def torch_ranges(ep, names):
    """{source text: (lower, upper)} for every dynamic input dim of a torch ExportedProgram."""
    out = {}
    placeholders = [n for n in ep.graph.nodes if n.op == "placeholder"]
    for name, node in zip(names, placeholders):
        for i, size in enumerate(node.meta["val"].shape):
            if isinstance(size, torch.SymInt):
                vr = ep.range_constraints[size.node.expr]
                upper = math.inf if str(vr.upper) in ("int_oo", "oo") else int(vr.upper)
                out[f"{name}.size()[{i}]"] = (int(vr.lower), upper)
    return out


def our_ranges(program):
    out = {}
    for spec in program.inputs:
        for i, size in enumerate(spec.value.shape):
            if not isinstance(size, int):
                rng = program.range_constraints[program.env.simplify(size.node.expr)]
                out[f"{spec.name}.size()[{i}]"] = (int(rng.lower), rng.upper if rng.upper == math.inf else int(rng.upper))
    return out


CASES = [
    (double, [(8, 3)], [{0: Dim.DYNAMIC, 1: Dim.DYNAMIC}]),
    (gt5, [(8, 3)], [{0: Dim.DYNAMIC}]),
    (gt5, [(3, 3)], [{0: Dim.DYNAMIC}]),
    (gt5, [(8, 3)], [{0: Dim("n", min=6, max=64)}]),
    (add, [(4, 3), (4, 3)], [{0: Dim.DYNAMIC}, {0: Dim.DYNAMIC}]),
    (add, [(4, 3), (4, 3)], [{0: Dim("b", max=100)}, {0: Dim("b", max=100)}]),
    (mult4, [(8, 3)], [{0: Dim.DYNAMIC}]),
]


@pytest.mark.parametrize("fn, shapes, specs", CASES, ids=lambda v: getattr(v, "__name__", None))
def test_range_constraints_match_torch(fn, shapes, specs) -> None:
    names = ["x", "y"][: len(shapes)]
    ep = export(fn, tuple(shapes), dynamic_shapes=tuple(specs))
    ours = our_ranges(ep)
    theirs = torch_ranges(torch_export(fn, shapes, specs), names)
    # We round the range of a known multiple of k to multiples of k (x % 4 == 0 and x >= 2: x >= 4);
    # torch keeps [2, oo] next to the divisibility guard. With the divisibility both say the same.
    multiples = {text: k for text, k in _divisors(ep).items()}
    assert ours == {src: _round(rng, multiples.get(src)) for src, rng in theirs.items()}, (fn.__name__, shapes, specs)


def _divisors(ep) -> dict[str, int]:
    import math

    out = {}
    for sym, ks in ep.env.facts.divisible.items():
        info = ep.env.symbols.get(sym)
        if info is not None and info.sources and ks:
            out[info.sources[0].text()] = math.lcm(*ks)
    return out


def _round(rng, k):
    if not k:
        return rng
    lo, hi = rng
    return (-((-lo) // k) * k if lo != -math.inf else lo, (hi // k) * k if hi != math.inf else hi)


VIOLATIONS = [
    (add, [(4, 3), (4, 3)], [{0: Dim.DYNAMIC}, None]),  # specialised to 4 by the static y
    (add, [(4, 3), (4, 3)], [{0: Dim("b")}, None]),
    (add, [(4, 3), (4, 3)], [{0: Dim("a")}, {0: Dim("b")}]),  # two named dims unified
    (gt5, [(8, 3)], [{0: Dim("n")}]),  # a named dim narrowed
    (mult4, [(8, 3)], [{0: Dim("n")}]),  # a named dim made a multiple of 4
]


@pytest.mark.parametrize("fn, shapes, specs", VIOLATIONS, ids=lambda v: getattr(v, "__name__", None))
def test_constraint_violations_match_torch(fn, shapes, specs) -> None:
    with pytest.raises(ExportConstraintError):
        export(fn, tuple(shapes), dynamic_shapes=tuple(specs))
    with pytest.raises(Exception, match="Constraints violated"):
        torch_export(fn, shapes, specs)
