"""Brute-force agreement on random small guard sets (issue 11), negative values and zero divisors included.

Guard text is generated at random over int inputs ``L['a']``, ``L['b']``, ``L['c']``
with ``+ - * // %``, ``max``/``min``, unary minus, comparisons and ``and``/``or``/``not``
nested in any order, so divisions by zero sit on either side of a short circuit.
Over a grid of values in ``[-3, 3]``:

* codegen: the compiled checker, :meth:`GuardSet.holds` and Python's own evaluation of
  the *written text* agree (a guard that raises in Python fails). The one allowed
  difference is the documented widening (Note [Canonical forms] in symint.sympy_io.functions,
  Note [Folding connectives] in symint.sympy_io.connectives): where Python raises, a folded guard may
  accept. Never the other way round, and never on an input where Python has a value.
* simplify: a simplified set whose proof is YES accepts exactly the same grid points.
* diff: ``implies``/``equivalent`` answers agree with the grid, and a counterexample really
  is accepted by one set and rejected by the other.
"""

from __future__ import annotations

import itertools
import random

import pytest

from guards import GuardError, GuardSet, SolverConfig, Verdict

NAMES = ("a", "b", "c")
GRID = range(-3, 4)
CONFIG = SolverConfig(timeout_ms=2000)


class _Gen:
    """Random guard text (Python syntax, torch's dialect of inputs)."""

    def __init__(self, rng: random.Random, names: tuple[str, ...], powers: bool):
        self.rng, self.names, self.powers = rng, names, powers

    def int_expr(self, depth: int) -> str:
        r = self.rng
        if depth <= 0 or r.random() < 0.3:
            return f"L['{r.choice(self.names)}']" if r.random() < 0.7 else str(r.randint(-3, 3))
        kind = r.choice(["+", "-", "*", "//", "%", "//", "%", "max", "min", "neg"] + (["**"] if self.powers else []))
        a, b = self.int_expr(depth - 1), self.int_expr(depth - 1)
        if kind in ("max", "min"):
            return f"{kind}({a}, {b})"
        if kind == "neg":
            return f"-({a})"
        if kind == "**":
            return f"({a}) ** {r.randint(0, 3)}"
        return f"({a} {kind} {b})"

    def bool_expr(self, depth: int) -> str:
        r = self.rng
        if depth <= 0 or r.random() < 0.4:
            op = r.choice(["==", "!=", "<", "<=", ">", ">="])
            return f"{self.int_expr(2)} {op} {self.int_expr(2)}"
        kind = r.choice(["and", "or", "not", "and", "or"])
        if kind == "not":
            return f"not ({self.bool_expr(depth - 1)})"
        return f"({self.bool_expr(depth - 1)}) {kind} ({self.bool_expr(depth - 1)})"

    def guard_set(self) -> list[str]:
        return [self.bool_expr(2) for _ in range(self.rng.randint(1, 3))]


def _python(lines: list[str], values: dict[str, int]) -> tuple[bool, bool]:
    """(accepted, raised): Python's verdict on the written text (our own generated text: eval is safe here)."""
    raised = False
    for line in lines:
        try:
            if not eval(line, {"__builtins__": {}, "L": values, "max": max, "min": min}):
                return False, raised
        except ArithmeticError:
            return False, True
    return True, raised


def _points(names):
    for combo in itertools.product(GRID, repeat=len(names)):
        yield dict(zip(names, combo))


def _parsed(lines: list[str]) -> GuardSet | None:
    try:
        return GuardSet.parse(lines)
    except GuardError:  # e.g. a constant division by zero, refused when parsed
        return None


def test_codegen_holds_and_python_agree():
    rng = random.Random(11)
    sets = widened = compared = 0
    while sets < 300:
        names = NAMES[: rng.choice((2, 3))]
        lines = _Gen(rng, names, powers=True).guard_set()
        gs = _parsed(lines)
        if gs is None:
            continue
        sets += 1
        checker = gs.compile()
        for values in _points(names):
            want, raised = _python(lines, values)
            bound = {src.base: values[src.base] for _, src in gs.sources}
            got_holds, got_compiled = gs.holds(bound), checker.check(bound)
            assert got_holds == got_compiled, (lines, values)
            compared += 1
            if got_holds != want:
                # the only allowed difference: Python raised, the folded guard accepts (documented widening)
                assert raised and got_holds and not want, (lines, values, want, got_holds)
                widened += 1
    assert compared > 30_000
    assert widened < compared // 50  # widening is the exception, not the rule


def test_simplify_keeps_every_grid_verdict():
    rng = random.Random(12)
    sets = proven = 0
    while sets < 60:
        names = NAMES[:2]
        gs = _parsed(_Gen(rng, names, powers=False).guard_set())
        if gs is None:
            continue
        sets += 1
        simplified, report = gs.simplify_with_report(CONFIG)
        if report.proof is not Verdict.YES:
            continue
        proven += 1
        for values in _points(names):
            bound = {src.base: values[src.base] for _, src in gs.sources}
            kept = {src.base: values[src.base] for _, src in simplified.sources}
            assert simplified.holds(kept) == gs.holds(bound), (gs, simplified, values)
            assert simplified.compile().check(kept) == gs.holds(bound), (gs, simplified, values)
    assert proven >= 30


def test_diff_answers_agree_with_the_grid():
    rng = random.Random(13)
    pairs = decided = 0
    names = NAMES[:2]
    while pairs < 60:
        gen = _Gen(rng, names, powers=False)
        a, b = _parsed(gen.guard_set()), _parsed(gen.guard_set())
        if a is None or b is None:
            continue
        pairs += 1
        verdicts = {(p["a"], p["b"]): (a.holds(_only(a, p)), b.holds(_only(b, p))) for p in _points(names)}
        result = a.implies(b, CONFIG)
        if result.verdict is Verdict.YES:
            decided += 1
            assert all(vb for va, vb in verdicts.values() if va), (a, b)
        elif result.verdict is Verdict.NO:
            decided += 1
            witness = {k: v for k, v in (result.witness or {}).items()}
            values = {name: witness.get(name, 0) for name in names}
            assert a.holds(_only(a, values)) and not b.holds(_only(b, values)), (a, b, witness)
        same = a.equivalent(b, CONFIG)
        if same.verdict is Verdict.YES:
            assert all(va == vb for va, vb in verdicts.values()), (a, b)
    assert decided >= 40


def _only(gs: GuardSet, values: dict[str, int]) -> dict[str, int]:
    return {src.base: values[src.base] for _, src in gs.sources}


@pytest.mark.parametrize(
    "text",
    [
        "L['b'] == 0 or L['a'] // L['b'] == 2",
        "not (L['b'] != 0 and L['a'] % L['b'] == 1)",
        "(L['a'] > 0 or L['a'] // L['b'] > 0) and L['b'] >= -1",
        "max(L['a'], L['b']) // min(L['a'], L['b']) >= 1 or L['a'] == L['b']",
    ],
)
def test_hand_written_short_circuits(text):
    """Division by zero on the far side of a short circuit, every grid point, all three evaluations."""
    gs = GuardSet.parse(text)
    checker = gs.compile()
    for values in _points(("a", "b")):
        want, _ = _python([text], values)
        assert gs.holds(values) is want and checker.check(values) is want, values
