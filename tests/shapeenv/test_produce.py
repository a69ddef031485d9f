"""produce_guards: what goes in, how it prints, and soundness against concrete re-execution."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from guards import GuardSet, Source
from shapeenv import CheckFailedError, ShapeEnv, check

from .programs import concrete_check, random_program, run, trace


def test_produced_set_has_pins_source_equalities_ranges_and_guards() -> None:
    env = ShapeEnv()
    x0 = env.create_symint(6, Source.size("x", 0))
    env.create_symint(6, Source.size("y", 0))  # duck-sized to x0
    env.create_symint(1, Source.size("x", 1))  # specialised
    assert bool(x0 % 2 == 0)
    gs = env.produce_guards(simplify=False)
    text = gs.to_text("torch").splitlines()
    assert "L['y'].size()[0] == L['x'].size()[0]" in text
    assert "L['x'].size()[1] == 1" in text
    assert "2 <= L['x'].size()[0]" in text
    assert "(L['x'].size()[0] % 2) == 0" in text
    ok = {"x.size()[0]": 8, "y.size()[0]": 8, "x.size()[1]": 1}
    assert gs.holds(ok)
    for key, bad in [("y.size()[0]", 10), ("x.size()[1]", 2), ("x.size()[0]", 9)]:
        assert not gs.holds({**ok, key: bad} if key != "x.size()[0]" else {**ok, key: bad, "y.size()[0]": bad})


def test_asserts_do_not_become_guards() -> None:
    env = ShapeEnv()
    s = env.create_symint(8, Source.size("x", 0))
    check(s < 100)
    assert bool(s < 200)  # decided by the assert: no guard
    gs = env.produce_guards()
    assert gs.holds({"x.size()[0]": 150}), "an assert must never cause a recompile"


def test_simplified_set_is_equivalent_and_not_larger() -> None:
    env = ShapeEnv(use_z3=False)
    a = env.create_symint(10, Source.size("x", 0))
    for k in (3, 4, 5, 6, 7):
        assert bool(a > k)
    raw = env.produce_guards(simplify=False)
    simple = env.produce_guards()
    assert len(simple) < len(raw)
    assert raw.equivalent(simple).proved
    for n in range(0, 20):
        assert raw.holds({"x.size()[0]": n}) == simple.holds({"x.size()[0]": n})


def test_replaced_symbols_keep_their_own_sources() -> None:
    env = ShapeEnv(duck_shape=False)
    a = env.create_symint(3, Source.size("x", 0))
    b = env.create_symint(5, Source.size("y", 0))
    assert bool(b == a + 2)
    gs = env.produce_guards()
    assert gs.holds({"x.size()[0]": 7, "y.size()[0]": 9})
    assert not gs.holds({"x.size()[0]": 7, "y.size()[0]": 8})


# -- soundness: random programs, random inputs ------------------------------------------------------
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), use_z3=st.booleans())
def test_accepted_inputs_take_the_same_decisions(seed: int, use_z3: bool) -> None:
    rng = random.Random(seed)
    n_inputs = rng.randint(1, 3)
    hints = [rng.choice([0, 1, 2, 3, 4, 5, 6, 8, 12, 16]) for _ in range(n_inputs)]
    prog = random_program(rng, n_inputs, rng.randint(1, 12))
    try:
        expected = run(prog, hints, concrete_check)
    except (ZeroDivisionError, CheckFailedError):
        return  # the program itself fails on its example inputs
    env, decisions = trace(prog, hints, use_z3)
    assert decisions == expected, "tracing must decide like the concrete run on the hints"
    report = env.produce_guards_with_report()
    gs = report.produced
    assert not report.proof.refuted, f"produced {gs} is not equivalent to the raw {report.raw}: {report.proof}"
    names = [f"x{i}.size()[0]" for i in range(n_inputs)]
    assert gs.holds(dict(zip(names, hints))), f"the guard set rejects its own example {hints}: {gs}"
    candidates = [[rng.randint(0, 20) for _ in hints] for _ in range(150)]
    candidates += [[h + d for h in hints] for d in (-2, -1, 1, 2, 8)]
    for sizes in candidates:
        if min(sizes) < 0 or not gs.holds(dict(zip(names, sizes))):
            continue
        try:
            got = run(prog, sizes, concrete_check)
        except (ZeroDivisionError, CheckFailedError):
            continue  # a runtime error (division by zero, failed assert) on these inputs is not a decision
        assert got == expected, (
            f"UNSOUND: guards {gs} accept {sizes} but the program decides {got} there, {expected} at {hints}\n"
            f"program: {prog}"
        )


@pytest.mark.parametrize("hints", [[4, 6], [2, 2], [9, 3]])
def test_guard_set_accepts_trace_inputs_on_a_fixed_program(hints) -> None:
    prog = [("arith", 0, 0, 1), ("cmp", 2, 2, ("c", 10)), ("arith", 3, 2, ("c", 2)), ("cmp", 0, 3, 0)]
    env, _ = trace(prog, hints, True)
    gs = env.produce_guards()
    assert isinstance(gs, GuardSet)
    assert gs.holds({"x0.size()[0]": hints[0], "x1.size()[0]": hints[1]})


def test_a_residue_guard_survives_the_reduction() -> None:
    """``z % 2 == 1`` is absorbed by the facts engine as a congruence; the produced set must still state it
    (it was dropped: every odd and even z >= 2 was accepted, though re-tracing at an even z decides otherwise)."""
    env = ShapeEnv()
    z = env.create_symint(7, Source.size("z", 0))
    assert bool(z % 2 == 1)
    gs = env.produce_guards()
    assert gs.holds({"z.size()[0]": 9})
    assert not gs.holds({"z.size()[0]": 8})


def test_produce_reduces_once_without_the_sympy_reducer(monkeypatch) -> None:
    """One reduction, on forms: the sympy passes of ``reduce_exact`` are not run by produce_guards."""
    import guards.simplify.passes as passes

    def refuse(*_args, **_kwargs):
        raise AssertionError("produce_guards ran the second reduction")

    monkeypatch.setattr(passes._Simplifier, "run", refuse)
    env = ShapeEnv(duck_shape=False)
    a = env.create_symint(6, Source.size("a", 0))
    b = env.create_symint(4, Source.size("b", 0))
    assert bool(a > b) and bool(a + b < 20) and bool(a % 2 == 0)
    gs = env.produce_guards()
    assert gs.holds({"a.size()[0]": 8, "b.size()[0]": 3})
    assert not gs.holds({"a.size()[0]": 7, "b.size()[0]": 3})
