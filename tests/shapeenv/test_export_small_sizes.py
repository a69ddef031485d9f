"""Branches only sizes 0 and 1 take, in ``export``: traced at those sizes and compared (Note [Sizes 0 and 1 in export]).

Each function branches in Python on a size whose declared ``Dim`` holds 1 (or 0). Where the program
traced at that size is the general one with the size substituted, the declared range is kept and every
size in it is accepted with the right shapes; where it is not, export refuses with a typed error naming
the branch's line, never silently predicting the general program at 1.
"""

from __future__ import annotations

import pytest

import importlib
from shapeenv import Dim, ExportConstraintError, export

export_module = importlib.import_module("shapeenv.export.export")


def _ranges(program) -> list[tuple[int, int]]:
    return sorted((int(r.lower), int(r.upper)) for r in program.range_constraints.values())


def expand_if_needed(x, pos):
    """transformers' ``if batch_size != position_ids.shape[0]: position_ids = position_ids.expand(batch_size, -1)``."""
    if x.shape[0] != pos.shape[0]:
        pos = pos.expand(x.shape[0], -1)
    return x + pos


def test_a_branch_whose_size_one_program_is_the_same_keeps_the_declared_range() -> None:
    p = export(expand_if_needed, ((4, 3), (1, 3)), dynamic_shapes={"x": {0: Dim("b", min=1, max=16)}})
    assert _ranges(p) == [(1, 16)]
    assert all(p.accepts((n, 3), (1, 3)) for n in (1, 2, 5, 16)) and not p.accepts((17, 3), (1, 3))
    assert not any(">= 2" in g or "!= 1" in g for g in p.guards.to_text("source").splitlines())
    (size, three), = [p.output_shapes]
    assert (p.env.simplify(size.node.expr), three) == (p.input_shapes["x"][0].node.expr, 3)


def test_min_zero_traces_zero_and_one() -> None:
    p = export(expand_if_needed, ((4, 3), (1, 3)), dynamic_shapes={"x": {0: Dim("b", min=0, max=16)}})
    assert _ranges(p) == [(0, 16)]
    assert p.accepts((0, 3), (1, 3)) and p.accepts((1, 3), (1, 3))


def sum_at_one(x):
    if x.shape[0] == 1:
        return x.sum(0)  # a rank-1 result at size 1: the general program (x * 2) is wrong there
    return x * 2


def test_a_branch_whose_size_one_program_differs_is_refused_naming_the_line() -> None:
    with pytest.raises(ExportConstraintError) as info:
        export(sum_at_one, ((4, 3),), dynamic_shapes={"x": {0: Dim("b", min=1, max=16)}})
    (v,) = info.value.violations
    assert v.kind == "size_one" and "sum" in v.detail
    assert "test_export_small_sizes.py" in str(v.guard.provenance) and "Dim('b', min=2, max=16)" in v.suggestion
    assert _ranges(export(sum_at_one, ((4, 3),), dynamic_shapes={"x": {0: Dim("b", min=2, max=16)}})) == [(2, 16)]


def same_program_at_one_only_when_wide(x):
    if x.shape[0] == 1:
        if x.shape[1] > 4:  # recorded only by the trace at b == 1
            return x * 2
        return x.sum(1)
    return x * 2


def test_the_size_one_trace_guards_the_other_dims_where_its_size_is_one() -> None:
    """At b == 1 the program is the general one only for n > 4: (1, 3) must be refused, (2, 3) not."""
    p = export(same_program_at_one_only_when_wide, ((4, 8),),
               dynamic_shapes={"x": {0: Dim("b", min=1, max=16), 1: Dim("n", min=1, max=16)}})
    assert _ranges(p)[0] == (1, 16)
    assert p.accepts((1, 8)) and p.accepts((2, 3)) and p.accepts((5, 1))
    assert not p.accepts((1, 3)) and not p.accepts((1, 1))


def test_two_small_dims_share_the_corner_trace_and_a_plain_function_is_traced_once(monkeypatch) -> None:
    calls = []
    trace = export_module._trace
    monkeypatch.setattr(export_module, "_trace", lambda req, pinned: calls.append(dict(pinned)) or trace(req, pinned))

    def broadcast_both(x, p):
        if x.shape[0] != p.shape[0]:
            p = p.expand(x.shape[0], -1)
        if x.shape[1] != p.shape[1]:
            p = p.expand(-1, x.shape[1])
        return x + p

    p = export(broadcast_both, ((4, 5), (1, 1)), dynamic_shapes={"x": {0: Dim("b", min=1, max=9), 1: Dim("n", min=1, max=9)}})
    assert _ranges(p) == [(1, 9), (1, 9)]
    assert all(p.accepts((b, n), (1, 1)) for b in (1, 2, 9) for n in (1, 3, 9))
    assert len(calls) == 4  # the general trace, b = 1, n = 1, and b = n = 1 once
    calls.clear()
    export(expand_if_needed, ((4, 5), (4, 5)), dynamic_shapes={"x": {0: Dim("b", min=1, max=9)}, "pos": {0: Dim("b", min=1, max=9)}})
    assert len(calls) == 1  # no branch on a size that may be 1: no second trace
