"""Sweeping the interning tables (Note [Sweeping the interning tables] in symint.form.terms).

A long-running process that traces programs with ever new constants must not grow without
bound, and freeing must never break identity equality for anything still held.
"""

from __future__ import annotations

import gc
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from guards import Source
from symint.form import logic as B
from symint import form as F
from symint.form import terms as form_terms
from symint.sympy_io import to_sympy


def _build(recipe):
    """A form from a small recipe (nested tuples), built from scratch each time."""
    op = recipe[0]
    if op == "sym":
        return F.sym(recipe[1])
    if op == "const":
        return F.const(recipe[1])
    a, b = _build(recipe[1]), _build(recipe[2])
    if op == "floordiv":
        return F.floordiv(a, F.const(abs(recipe[2][1]) % 13 + 1 if recipe[2][0] == "const" else 3))
    return {"add": F.add, "mul": F.mul, "max": F.max_, "min": F.min_, "sub": F.sub}[op](a, b)


_leaf = st.one_of(st.tuples(st.just("sym"), st.sampled_from(["p", "q", "r"])),
                  st.tuples(st.just("const"), st.integers(-10**6, 10**6)))
_recipe = st.recursive(_leaf, lambda kids: st.tuples(st.sampled_from(["add", "mul", "max", "min", "sub", "floordiv"]),
                                                      kids, kids), max_leaves=6)


@settings(max_examples=20, deadline=None)
@given(st.lists(_recipe, min_size=1, max_size=6), st.data())
def test_what_is_held_keeps_its_identity_and_what_is_rebuilt_is_the_same(recipes, data) -> None:
    built = [_build(r) for r in recipes]
    keep = data.draw(st.lists(st.booleans(), min_size=len(built), max_size=len(built)))
    held = [f for f, k in zip(built, keep) if k]
    texts = [str(to_sympy(f)) for f in built]
    rels = [B.rel("<", f, F.const(7)) for f in held]
    norms = [r.norm for r in rels if not r.is_const]
    del built
    form_terms.sweep()
    again = [_build(r) for r in recipes]
    assert [str(to_sympy(f)) for f in again] == texts
    for f, r, k in zip(again, recipes, keep):
        if k:  # held through the sweep: rebuilding gives the very same object
            assert f is held.pop(0)
    for r in rels:
        if not r.is_const:
            assert r.norm is B.relation_norm("<", r.args[1], F.const(7))
    assert all(n in norms for n in norms)


def trace_with_new_constants(i: int) -> None:
    """Trace ``i`` of a stream whose guards each bring new constants (what grows the interning tables)."""
    from shapeenv import ShapeEnv

    env = ShapeEnv()
    x = env.create_symint(8, Source.size("x", 0))
    k = 1000 + i * 7
    bool((x * k + i) // (k + 3) * 2 + k > 5)
    env.produce_guards()


def test_objects_nothing_holds_are_freed() -> None:
    import weakref

    f = F.add(F.mul(F.sym("swept_a"), F.sym("swept_b")), F.const(987_654_321))
    g = F.floordiv(f, F.const(77_777))
    ref_f, ref_g = weakref.ref(f), weakref.ref(g)
    atom = g.terms[0][0].factors[0][0]
    ref_atom = weakref.ref(atom)
    del f, g, atom
    gc.collect()
    assert ref_g() is not None  # the interning tables hold it
    form_terms.sweep()
    assert ref_f() is None and ref_g() is None and ref_atom() is None


def test_interned_objects_stay_bounded_over_many_traces(monkeypatch) -> None:
    # Before: every trace with new constants left its forms interned for good (~15 forms a
    # trace, 44,444 forms after 3,000 of these traces; RSS 70 -> 256 MB over 20,000).
    from shapeenv import ShapeEnv

    # What the tests before this one still hold stays interned (``base``): a sweep frees only
    # what nothing holds, and the next one waits until the tables have doubled past what it left.
    form_terms.sweep()
    base = form_terms.interned_count()
    assert base < 15_000, base  # else the bound below would not tell sweeping from not sweeping
    monkeypatch.setattr(form_terms, "SWEEP_MIN", 5_000)
    monkeypatch.setattr(form_terms, "_next_sweep", max(5_000, 2 * base))
    keep_env = ShapeEnv()
    kept = keep_env.create_symint(9, Source.size("x", 0))
    kept_expr = (kept * 1_234_567 + 3) // 11
    peak = 0
    for i in range(1_500):
        trace_with_new_constants(i)
        peak = max(peak, form_terms.interned_count())
    assert peak < max(5_000, 2 * base) + 2_000, (peak, base)  # without sweeping: base + ~22,000
    # what a live environment holds is untouched: rebuilding it gives the same objects
    assert ((kept * 1_234_567 + 3) // 11).node.form is kept_expr.node.form


def test_the_automatic_sweep_waits_while_another_thread_runs(monkeypatch) -> None:
    monkeypatch.setattr(form_terms, "_next_sweep", 0)
    stop = threading.Event()
    t = threading.Thread(target=stop.wait)
    t.start()
    try:
        assert form_terms.maybe_sweep() is False
    finally:
        stop.set()
        t.join()
    assert form_terms.maybe_sweep() is True


_RSS_SCRIPT = """
import sys
from tests.symint.test_form_sweep import trace_with_new_constants
def rss_mb():
    return int(open('/proc/self/statm').read().split()[1]) * 4096 / 2**20
marks = []
for i in range(40_001):
    trace_with_new_constants(i)
    if i % 10_000 == 0:
        marks.append(rss_mb())
print(*marks)
"""


@pytest.mark.slow
def test_rss_is_flat_over_40000_traces_with_new_constants() -> None:
    # Before: 70 -> 228 MB over 40,000 such requests, linear (~4 KB each); now a sawtooth
    # below the sweep threshold.
    import subprocess
    import sys
    from pathlib import Path

    if not Path("/proc/self/statm").exists():
        pytest.skip("RSS is read from /proc")
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", _RSS_SCRIPT], cwd=root, capture_output=True, text=True,
                         check=True, timeout=1800).stdout
    marks = [float(v) for v in out.split()]
    assert marks[-1] - marks[1] < 30, marks  # 30,000 requests after the first 10,000: without sweeping ~+120 MB


def test_a_sweep_keeps_the_symbol_sets_the_survivors_hold_shared() -> None:
    # A form built after a sweep over the same symbols as one held through it shares that form's
    # set of names (symbol_set): before, the sweep emptied the table of sets and the new form got
    # a second, equal set (found by test_interning_tables_hold_no_keys_the_garbage_collector_tracks,
    # which failed whenever an earlier test had built x + y before a sweep).
    x, y = F.sym("kept_sym_x"), F.sym("kept_sym_y")
    kept = F.add(x, F.mul(y, F.const(3)))
    form_terms.sweep()
    rel = B.rel("<", F.sym("kept_sym_x"), F.sym("kept_sym_y"))
    assert rel.symbols == kept.symbols and rel.symbols is kept.symbols
    assert F.mul(x, y).symbols is kept.symbols
