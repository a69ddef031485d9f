"""Soundness fuzzing: a guard set that accepts some sizes must mean tracing would decide the same on them.

Random programs (elementwise ops with broadcasting, cat, view/reshape/flatten, slicing with size-derived
bounds, matmul, reductions, ``if`` on sizes, on ``is_contiguous()`` and on strides, ``contiguous()``,
``check``, scan/map/switch) on inputs of random layouts are exported with dynamic dims and compared
with concrete numpy runs at other sizes and layouts (see :mod:`tests.shapeenv.fuzz_check`).
The long run is ``python3 benchmarks/fuzz_soundness.py --seconds 300``.
"""

from __future__ import annotations

import dataclasses
import random

import pytest

from guards import GuardSet
from tests.shapeenv.fuzz_check import Report, Violation, check_program, check_sample, export_program, reproduce
from tests.shapeenv.fuzz_programs import Program, generate

PROGRAMS = 40
ALL_KINDS = {"binary", "scalar", "cat", "view", "reshape_t", "slice", "matmul", "reduce", "unsqueeze", "transpose",
             "branch", "check", "scan", "scan_len", "map", "switch", "contig_branch", "stride_branch", "contiguous",
             "flatten"}


def test_random_programs_are_sound() -> None:
    report = Report()
    for seed in range(PROGRAMS):
        rng = random.Random(seed)
        report.merge(check_program(generate(rng, 8), rng, samples=8))
    assert not report.violations, "\n\n".join(str(reproduce(v)) for v in report.violations)
    # the run exercised what it claims to (otherwise zero violations would mean little)
    assert set(report.ops) == ALL_KINDS, report.summary()
    assert report.accepted >= 100 and report.decisions >= 50 and report.assert_rejected >= 3, report.summary()
    assert report.layouts_accepted >= 30, report.summary()  # non-contiguous inputs were accepted and checked
    assert len(report.export_errors) <= 3, report.summary() + "\n" + "\n".join(report.export_errors)


def test_random_programs_with_sizes_0_and_1_declared_are_sound() -> None:
    """Dims declared ``min=0`` / ``min=1``: layout questions settled by cases (Note [Sizes that may be 0 or 1]
    in shapeenv.tensor.layout) must hold at the sizes 0 and 1 the guards now accept."""
    report = Report()
    kept = 0
    for seed in range(30):
        rng = random.Random(1000 + seed)
        program = dataclasses.replace(generate(rng, 8), min_size=rng.choice([0, 1]))
        try:
            exported = export_program(program)[0]
        except Exception:  # noqa: BLE001  (counted by check_program below)
            exported = None
        if exported is not None and any(r.lower < 2 for r in exported.range_constraints.values()):
            kept += 1
        report.merge(check_program(program, rng, samples=8))
    assert not report.violations, "\n\n".join(str(reproduce(v)) for v in report.violations)
    assert kept >= 15 and report.accepted >= 80, (kept, report.summary())


def _prog(shape: tuple, dims: tuple, *instructions: tuple) -> Program:
    return Program((shape,), (dims,), instructions)


SIZE_OF_X0 = ("size", 0, 0)

# (name, program, [(input sizes, accepted by the guards?)]): each accepted size must also be sound.
TARGETED = [
    ("view(-1, 4) needs a multiple of 4", _prog((8,), ("",), ("view", 0, (-1, ("c", 4)))),
     [([(12,)], True), ([(6,)], False), ([(4,)], True), ([(0,)], False)]),
    ("a branch on the size", _prog((8,), ("",), ("branch", ("gt", SIZE_OF_X0, ("c", 5)), 0, ("scale", 2.0), ("head", 2))),
     [([(6,)], True), ([(5,)], False), ([(100,)], True)]),
    ("slice bounds from the size: no guard",
     _prog((8, 3), ("", None), ("slice", 0, 0, ("div", SIZE_OF_X0, 2), ("sub", SIZE_OF_X0, 1), 2)),
     [([(2, 3)], True), ([(9, 3)], True), ([(9, 4)], False)]),
    ("cat with itself then view", _prog((6,), ("",), ("cat", (0, 0), 0), ("view", 1, (-1, ("c", 3)))),
     [([(9,)], True), ([(4,)], False)]),
    ("scan reversed over dim 1", _prog((3, 5), ("", ""), ("scan", 0, None, "rnn", 1, True)),
     [([(2, 2)], True), ([(7, 9)], True)]),
    ("map with a closure", Program(((4, 3), (3,)), (("", ""), ("",)), (("map", 0, 1, "affine"),)),
     [([(5, 3), (3,)], True), ([(5, 4), (4,)], True), ([(5, 4), (3,)], False)]),
    ("switch on size // 2 (a runtime choice)",
     _prog((4, 2), ("", None), ("switch", ("div", SIZE_OF_X0, 2), 0, (("scale", 2.0), ("neg",), ("scale", 0.5)))),
     [([(2, 2)], True), ([(5, 2)], True), ([(50, 2)], True)]),
    ("a check is a runtime assert, not a guard", _prog((6,), ("",), ("check", ("mod0", SIZE_OF_X0, 2))),
     [([(8,)], True), ([(7,)], True)]),
]


@pytest.mark.parametrize("name, program, expectations", TARGETED, ids=[t[0] for t in TARGETED])
def test_targeted_programs(name: str, program: Program, expectations: list) -> None:
    exported, decisions, program, _ = export_program(program)
    for shapes, expected in expectations:
        report = Report()
        problem = check_sample(exported, program, decisions, shapes, random.Random(0), report=report)
        assert problem is None, (name, shapes, problem, exported.guards.to_text("torch"))
        assert bool(report.accepted) == expected, (name, shapes, "accepted" if report.accepted else "rejected",
                                                   exported.guards.to_text("torch"))


BRANCHY = _prog((8,), ("",), ("scalar", "mul", 0, 2.0), ("branch", ("gt", SIZE_OF_X0, ("c", 5)), 0, ("scale", 2.0), ("head", 2)),
                ("binary", "add", 0, 0))


def _without_guards(exported):
    return dataclasses.replace(exported, guards=GuardSet.of([], dict(exported.guards.sources)), layout_guards=GuardSet.of([]))


def test_the_check_catches_a_missing_guard() -> None:
    exported, decisions, program, _ = export_program(BRANCHY)
    assert check_sample(exported, program, decisions, [(3,)], random.Random(0)) is None  # rejected: s0 > 5
    problem = check_sample(_without_guards(exported), program, decisions, [(3,)], random.Random(0))
    assert problem == "branch decisions differ: traced [True], concrete [False]"


def test_a_violation_shrinks_to_a_minimal_reproducer() -> None:
    violation = Violation(BRANCHY, [(3,)], "planted", "")
    shrunk = reproduce(violation, weaken=_without_guards)
    assert [ins[0] for ins in shrunk.program.instructions] == ["branch"]
    text = str(shrunk)
    for needle in ("SOUNDNESS VIOLATION: branch decisions differ", "if x0.size(0) > 5:", "t1 = x0 * 2.0",
                   "example sizes: [[8]]", "failing sizes: [[3]]", "(no guards)"):
        assert needle in text, text


@pytest.mark.parametrize("instruction, line", [
    (("binary", "mul", 0, 0), "t1 = x0 * x0"),
    (("view", 0, (-1, ("c", 4))), "t1 = x0.view(-1, 4)"),
    (("slice", 0, 0, ("div", SIZE_OF_X0, 2), None, 2), "t1 = x0[(x0.size(0) // 2)::2]"),
    (("check", ("mod0", SIZE_OF_X0, 2)), "check(x0.size(0) % 2 == 0)"),
    (("scan", 0, None, "cumsum", 0, True), "t1, t2 = scan(cumsum, zeros_like(x0.select(0, 0)), x0, dim=0, reverse=True)"),
])
def test_reproducers_read_like_python(instruction: tuple, line: str) -> None:
    assert _prog((8,), ("",), instruction).source().splitlines()[2].strip() == line


# -- layouts ----------------------------------------------------------------------------------------------
CONTIG_BRANCH = Program(((3, 4),), ((None, None),), (("contig_branch", 0, ("scale", 2.0), ("scale", 3.0)),))
FLAT_VIEW = Program(((3, 4),), (("", ""),), (("view", 0, (-1,)),))


@pytest.mark.parametrize("program, layout, expectations", [
    # the example: a contiguity branch traced on a contiguous input rejects a transposed one
    (CONTIG_BRANCH, ("contig",), [((3, 4), ("contig",), True), ((3, 4), ("t",), False), ((3, 4), ("offset",), True),
                                  ((3, 4), ("step", 1), False)]),
    (CONTIG_BRANCH, ("t",), [((3, 4), ("t",), True), ((3, 4), ("contig",), False), ((3, 4), ("perm", (1, 0)), True)]),
    # view(-1) of a dynamic contiguous input: any size, contiguous layouts only
    (FLAT_VIEW, ("contig",), [((5, 7), ("contig",), True), ((5, 7), ("offset",), True), ((5, 7), ("t",), False),
                              ((5, 7), ("expand", 0), False)]),
])
def test_layouts_are_guarded(program: Program, layout: tuple, expectations: list) -> None:
    program = dataclasses.replace(program, layouts=(layout,))
    exported, decisions, program, _ = export_program(program)
    for shape, spec, expected in expectations:
        report = Report()
        problem = check_sample(exported, program, decisions, [shape], random.Random(0), report=report, layouts=(spec,))
        assert problem is None, (shape, spec, problem, exported.all_guards.to_text("torch"))
        assert bool(report.accepted) == expected, (shape, spec, exported.all_guards.to_text("torch"))


def test_the_check_catches_a_missing_layout_guard() -> None:
    exported, decisions, program, _ = export_program(CONTIG_BRANCH)
    weak = dataclasses.replace(exported, layout_guards=GuardSet.of([], {}))
    problem = check_sample(weak, program, decisions, [(3, 4)], random.Random(0), layouts=(("t",),))
    assert problem == "branch decisions differ: traced [True], concrete [False]"
