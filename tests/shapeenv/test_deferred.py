"""Simplification off the critical path: the reduced set serves at once, the simplified one is swapped in once proven."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from guards import GuardSet, Source, Verdict
from shapeenv.core import deferred
from shapeenv.compile import compile
from shapeenv.core.deferred import ProducedGuards
from symint import build

s0, s1, s2 = (build.symbol_expr(f"s{i}") for i in range(3))
SOURCES = {s0: Source.size("x", 0), s1: Source.size("x", 1), s2: Source.size("y", 0)}
# s0 + s1 > 5 and the transitive guard need Z3 to drop: the exact reduction keeps them.
RAW = GuardSet.of(
    [build.gt(s0, s1), build.gt(s1, s2), build.gt(s0, s2), build.gt(build.add(s0, s1), 5), build.gt(build.add(s0, s1), 10)],
    SOURCES,
)


class Held:
    """A simplifier that waits for ``release`` before doing the real work (so a test controls when it ends)."""

    def __init__(self):
        self.started, self.release, self.calls = threading.Event(), threading.Event(), 0
        self.real = deferred.simplify_with_report  # taken before a test patches it

    def __call__(self, gs, config):
        self.calls += 1
        self.started.set()
        assert self.release.wait(120), "the test never released the simplifier"
        return self.real(gs, config)


def test_reduced_set_at_once_then_the_proven_simplified_set():
    held = Held()
    p = ProducedGuards(RAW, background=True, simplifier=held)
    assert held.started.wait(60)
    assert p.current is RAW and not p.is_simplified and not p.done and p.proof is None
    assert p.wait(timeout=0.01) is RAW  # a bounded wait returns what is installed
    seen = []
    p.on_simplified(seen.append)
    held.release.set()
    final = p.wait()
    assert p.is_simplified and p.done and p.proof is Verdict.YES and held.calls == 1
    assert len(final) < len(RAW) and seen == [final] and p.current is final
    assert RAW.equivalent(final).verdict is Verdict.YES  # an independent Z3 proof of what was swapped in
    late = []
    p.on_simplified(late.append)  # registered after the swap: called at once
    assert late == [final]


def test_a_disproved_simplification_is_not_installed():
    wrong = GuardSet.of([build.gt(s0, 100)], SOURCES)

    def bad(gs, config):
        out, report = deferred.simplify_with_report(gs, config)
        return wrong, type(report)(proof=Verdict.NO)

    p = ProducedGuards(RAW, background=False, simplifier=bad)
    assert p.wait() is RAW and not p.is_simplified and p.done and p.proof is Verdict.NO


def test_a_failing_simplifier_keeps_the_reduced_set():
    def boom(gs, config):
        raise RuntimeError("boom")

    p = ProducedGuards(RAW, background=True, simplifier=boom)
    assert p.wait() is RAW and not p.is_simplified and isinstance(p.error, RuntimeError)


def test_lazy_mode_runs_the_simplification_in_the_first_waiter():
    calls = []

    def record(gs, config):
        calls.append(threading.current_thread())
        return deferred.simplify_with_report(gs, config)

    p = ProducedGuards(RAW, background=False, simplifier=record)
    assert not calls and p.current is RAW
    p.wait()
    p.wait()
    assert calls == [threading.current_thread()] and p.is_simplified


def _pairs(x, y):
    """Branches whose guards only Z3 simplifies: x0 > x1 > y0 and x0 + x1 above two thresholds."""
    a, b, c = x.shape[0], x.shape[1], y.shape[0]
    out = x
    if a > b:
        out = out * 2
    if b > c:
        out = out + 1
    if a > c:
        out = out - 1
    if a + b > 5:
        out = out * 3
    if a + b > 10:
        out = out + 2
    return out


def test_compiled_function_serves_calls_before_simplification_finishes(monkeypatch):
    held = Held()
    monkeypatch.setattr(deferred, "simplify_with_report", held)
    f = compile(_pairs, dynamic=True)
    x, y = np.ones((9, 7)), np.ones((5,))
    expected = _pairs(x, y)
    assert np.array_equal(f(x, y), expected)  # compiled; the simplification is held back
    assert held.started.wait(60)
    installed = f.cache_info().entries[0].guards
    for shape in [(9, 7), (12, 8), (30, 6)]:  # served from the entry with the reduced set
        xs = np.ones(shape)
        assert np.array_equal(f(xs, y), _pairs(xs, y))
    info = f.cache_info()
    assert info.compilations == 1 and info.entries[0].hits == 3 and info.entries[0].guards is installed
    assert not f.wait_simplified(timeout=0.01)
    held.release.set()
    assert f.wait_simplified()
    swapped = f.cache_info().entries[0].guards
    assert swapped is not installed and len(swapped) < len(installed)  # Z3 dropped x.size()[0] >= 2
    assert installed.equivalent(swapped).verdict is Verdict.YES  # the swapped-in set is proven equivalent
    for shape, ok in [((9, 7), True), ((40, 9), True), ((6, 7), False)]:  # (6, 7): x0 > x1 fails, recompiles
        xs = np.ones(shape)
        assert np.array_equal(f(xs, y), _pairs(xs, y))
    assert f.cache_info().compilations == 2 and f.cache_info().entries[0].hits == 5


@pytest.mark.parametrize("background", [True, False])
def test_export_returns_before_simplifying(background, monkeypatch):
    from shapeenv import Dim, ShapeEnvSettings, export

    held = Held()
    held.release.set()
    monkeypatch.setattr(deferred, "simplify_with_report", held)
    p = export(_pairs, ((9, 7), (5,)), dynamic_shapes={"x": {0: Dim.DYNAMIC, 1: Dim.DYNAMIC}, "y": {0: Dim.DYNAMIC}},
               settings=ShapeEnvSettings(simplify_in_background=background))  # fmt: skip
    assert p.produced is not None and p.guards is p.produced.reduced
    simplified = p.simplified_guards()
    assert held.calls == 1 and p.produced.proof is Verdict.YES
    assert p.guards.equivalent(simplified).verdict is Verdict.YES


def test_waiters_return_after_the_listeners_have_run():
    """``wait()`` and ``done`` come after every listener: a caller never sees the new set without the swaps it causes."""
    held = Held()
    p = ProducedGuards(RAW, background=True, simplifier=held)
    seen = []
    p.on_simplified(lambda out: seen.append((p.done, out is p.current)))
    held.release.set()
    final = p.wait()
    assert seen == [(False, True)]  # ran before `done`, with the new set already current
    assert p.done and final is p.current and final is not RAW
    late = []
    p.on_simplified(lambda out: late.append(out))  # registered after the end: runs at once
    assert late == [final]
