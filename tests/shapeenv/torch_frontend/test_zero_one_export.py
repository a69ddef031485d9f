"""A declared ``Dim(min=0)`` / ``Dim(min=1)``: broadcasting, layouts and views, compared with torch.export and eager.

torch.export traces such a dim with the range ``[2, oo]`` and reports the declared range; we trace with
the declared range and settle the layout questions only 0 and 1 leave open by cases (Note [Sizes that
may be 0 or 1] in :mod:`shapeenv.tensor.layout`). Each case exports both ways with the same Dims, checks
that both accept the declared range, and runs the function in torch eager at 0 (where declared), 1, 2
and a few other sizes: every size our guards accept must give the predicted output shapes and (on dims
not of size 1, in non-empty outputs: torch's significant strides) the predicted strides.
"""

from __future__ import annotations

import pytest
import sympy

torch = pytest.importorskip("torch", reason="the torch frontend needs torch (pip install torch==2.13.0)")
pytestmark = pytest.mark.torch

import torch.nn.functional as F  # noqa: E402
from torch.export import Dim  # noqa: E402

import shapeenv.torch as st  # noqa: E402
from shapeenv.export.export import ExportConstraintError  # noqa: E402
from shapeenv.tensor.dims import Dim as SeDim  # noqa: E402
from shapeenv.ops.dispatch import is_tensor  # noqa: E402

from .helpers import as_module  # noqa: E402


def _flat(value):
    if isinstance(value, (list, tuple)):
        for v in value:
            yield from _flat(v)
    else:
        yield value


def _predicted(program, values: dict) -> list[tuple[tuple, tuple]]:
    """Each output tensor's (shape, strides) with the program's symbols set to ``values``."""
    out = []
    for t in (v for v in _flat(program.outputs) if is_tensor(v)):
        def ev(x):
            if isinstance(x, int):
                return x
            e = program.env.simplify(x.node.expr).xreplace({s: sympy.Integer(v) for s, v in values.items()})
            return int(e)
        out.append((tuple(ev(d) for d in t.shape), tuple(ev(s) for s in t.stride())))
    return out


def check(fn, args: tuple, dims: dict, sizes=(0, 1, 2, 3, 7)) -> tuple:
    """Export ``fn`` both ways with ``dims`` ({arg index: {dim: Dim}}); compare ranges and eager runs. Returns both.

    A torch ``Dim(min=0)`` is torch's default Dim, which :mod:`shapeenv.torch.dims` reads as ours (Note
    [A default Dim]); the min-0 cases declare it with this library's ``Dim(min=0)``, which keeps 0 and 1.
    """
    specs = tuple(dims.get(i) for i in range(len(args)))
    ep = torch.export.export(as_module(fn), args, dynamic_shapes=specs)
    ours_specs = tuple(None if s is None else {k: (SeDim(v.__name__, min=0, max=v.max) if v.min == 0 else v)
                                               for k, v in s.items()} for s in specs)
    ours = st.export(fn, args, dynamic_shapes=ours_specs)
    theirs = sorted((int(r.lower), r.upper) for r in ep.range_constraints.values())
    mine = sorted((int(r.lower), r.upper) for r in ours.range_constraints.values())
    assert [lo for lo, _ in mine] == [lo for lo, _ in theirs], (mine, theirs, ours.guards.to_text("torch"))
    (i, spec), = dims.items()
    syms = {d: ours.inputs[i].value.shape[d].node.expr for d in spec}
    for n in sizes:
        if any(n < dim.min for dim in spec.values()):
            continue
        inputs = tuple(_resize(a, spec, n) if k == i else a for k, a in enumerate(args))
        assert ours.accepts(*inputs), (n, ours.guards.to_text("torch"))
        got = [(tuple(o.shape), o.stride()) for o in _flat(fn(*inputs)) if isinstance(o, torch.Tensor)]
        for (shape, strides), (real_shape, real_strides) in zip(_predicted(ours, {s: n for s in syms.values()}), got):
            assert shape == real_shape, (n, shape, real_shape)
            if 0 in shape:
                continue
            significant = [(a, b) for a, b, size in zip(strides, real_strides, shape) if size != 1]
            assert all(a == b for a, b in significant), (n, strides, real_strides, shape)
    return ours, ep


def _resize(a, dims, n: int):
    shape = [n if d in dims else size for d, size in enumerate(a.shape)]
    out = torch.randn(shape)
    if a.dim() == 4 and a.is_contiguous(memory_format=torch.channels_last) and not a.is_contiguous():
        out = out.contiguous(memory_format=torch.channels_last)
    return out


B1 = Dim("b", min=1, max=64)
B0 = Dim("b", min=0, max=64)


def add_param(x, p):
    return x + p


def test_a_static_one_broadcasts_without_a_guard():
    """x(B,5,4) + p(1,5,4): torch adds no guard; we used to guard B != 1 before seeing the static 1."""
    ours, _ = check(add_param, (torch.randn(3, 5, 4), torch.randn(1, 5, 4)), {0: {0: B1}})
    assert not any("!= 1" in g or ">= 2" in g for g in ours.guards.to_text("source").splitlines())


def test_a_static_one_on_the_left():
    check(lambda p, x: p * x, (torch.randn(1, 4), torch.randn(3, 4)), {1: {0: B1}})


def test_min_zero_keeps_zero():
    check(add_param, (torch.randn(3, 5, 4), torch.randn(1, 5, 4)), {0: {0: B0}})


@pytest.mark.parametrize("name, fn", [
    ("transpose then add", lambda x: x.transpose(0, 1) + 1),
    ("permuted clone", lambda x: x.permute(2, 0, 1).clone()),
    ("contiguous of a transpose", lambda x: x.transpose(0, 2).contiguous()),
    ("mixed layouts", lambda x: x + x.transpose(1, 2).contiguous().transpose(1, 2)),
    ("empty_like of a permute", lambda x: torch.empty_like(x.permute(1, 0, 2)).fill_(1.0)),
])
@pytest.mark.parametrize("dim", [B1, B0], ids=["min1", "min0"])
def test_layouts_at_zero_and_one(name, fn, dim):
    check(fn, (torch.randn(3, 4, 5),), {0: {0: dim}})


def test_channels_last_conv():
    w = torch.randn(6, 3, 3, 3)
    x = torch.randn(3, 3, 8, 8).contiguous(memory_format=torch.channels_last)
    check(lambda x, w: F.conv2d(x, w, padding=1) + 1, (x, w), {0: {0: B1}})


def test_adaptive_pool_then_flatten():
    check(lambda x: torch.flatten(F.adaptive_avg_pool2d(x, 1), 1), (torch.randn(3, 4, 5, 5),), {0: {0: B1}})


@pytest.mark.parametrize("name, fn", [
    ("view(B, -1)", lambda x: x.view(x.shape[0], -1)),
    ("flatten of a transpose", lambda x: x.transpose(1, 2).reshape(x.shape[0], -1)),
    ("split heads", lambda x: x.view(x.shape[0], 4, 2, 5).transpose(1, 2)),
    ("merge batch into rows", lambda x: x.reshape(-1, 5)),
])
def test_views(name, fn):
    check(fn, (torch.randn(3, 8, 5),), {0: {0: B1}})


def test_a_user_branch_on_one_is_refused_where_torch_drops_it():
    """torch.export traces [2, 64] and drops the branch (its program is wrong at 1); we keep the declared
    range and refuse, naming the guard."""

    def f(x):
        return x * 2 if x.shape[0] == 1 else x

    x = torch.ones(3, 4)
    ep = torch.export.export(as_module(f), (x,), dynamic_shapes=({0: B1},))
    assert torch.equal(ep.module()(torch.ones(1, 4)), torch.ones(1, 4))  # eager gives 2s: torch is wrong here
    with pytest.raises(ExportConstraintError, match="Ne"):
        st.export(f, (x,), dynamic_shapes=({0: B1},))


def test_a_reshape_that_is_a_view_only_at_one_is_refused():
    """(B, C, N, P) -> transpose(1, 3) -> reshape(B * P, N, C): a view at B == 1, a copy above, so the
    strides differ in significant dims (mobilevit); torch.export assumes B >= 2 and predicts the copy's."""

    def f(x):
        return x.transpose(1, 3).reshape(x.shape[0] * 4, 6, 3)

    x = torch.randn(3, 3, 6, 4)
    one = f(torch.randn(1, 3, 6, 4))
    assert one.stride() != torch.empty(one.shape).stride()  # eager: a view at B == 1
    with pytest.raises(ExportConstraintError):
        st.export(f, (x,), dynamic_shapes=({0: B1},))
    assert st.export(f, (x,), dynamic_shapes=({0: Dim("b", min=2, max=64)},)).range_constraints


def test_two_dims_that_may_be_one():
    check(lambda x, y: (x.transpose(0, 1) * 2).sum(1) + y, (torch.randn(3, 5), torch.randn(5)), {0: {0: B1}})
    both = {0: Dim("a", min=1, max=9), 1: Dim("c", min=1, max=9)}
    ours, _ = check(lambda x: x.transpose(0, 1).contiguous() + 1, (torch.randn(3, 4),), {0: both})
    assert sorted(int(r.lower) for r in ours.range_constraints.values()) == [1, 1]
