"""Interval bounds of canonical forms and the linear procedure: sound against brute force.

* ``bound_form``: for random forms and ranges, every value at every point of the box lies
  inside the computed interval;
* ``LinearFacts`` / ``decide_norm``: on random facts and questions over a small box, a
  definite answer must agree with every point of the box that satisfies the facts;
* ``propagate``: a derived bound holds at every point satisfying the fact.
"""

from __future__ import annotations

import itertools
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from symint.form import logic as B
from symint import form as F
from valueranges.bound import bound_form
from valueranges.linear_facts import LinearFacts, atom_facts, decide_norm, propagate

INF = math.inf
NAMES = ("x", "y")
OPS = {
    "add": F.add,
    "sub": F.sub,
    "mul": F.mul,
    "floordiv": F.floordiv,
    "mod": F.mod,
    "max": F.max_,
    "min": F.min_,
}


def _tree():
    leaf = st.one_of(st.sampled_from(NAMES).map(F.sym), st.integers(-4, 4).map(F.const))
    return st.recursive(
        leaf,
        lambda inner: st.builds(lambda op, a, b: (op, a, b), st.sampled_from(sorted(OPS)), inner, inner),
        max_leaves=6,
    )


def _build(t):
    if isinstance(t, tuple):
        return OPS[t[0]](_build(t[1]), _build(t[2]))
    return t


RANGE = st.tuples(st.integers(-5, 5), st.integers(0, 6)).map(lambda t: (t[0], t[0] + t[1]))


def _points(ranges):
    return [dict(zip(NAMES, p)) for p in itertools.product(*(range(lo, hi + 1) for lo, hi in (ranges[n] for n in NAMES)))]


def _value(f, point):
    try:
        return f.value(point)
    except ZeroDivisionError:
        return None


@settings(max_examples=300, deadline=None)
@given(tree=_tree(), rx=RANGE, ry=RANGE)
def test_bound_form_contains_every_value(tree, rx, ry) -> None:
    try:
        f = _build(tree)
    except ZeroDivisionError:
        return
    ranges = {"x": rx, "y": ry}
    lo, hi = bound_form(f, ranges, {})
    for p in _points(ranges):
        v = _value(f, p)
        if v is not None:
            assert lo <= v <= hi, (f, ranges, p, v, (lo, hi))


def _linear():
    coeff = st.integers(-3, 3)
    return st.builds(
        lambda a, b, c: F.add(F.add(F.scale(F.sym("x"), a), F.scale(F.sym("y"), b)), F.const(c)),
        coeff, coeff, st.integers(-6, 6),
    )


@settings(max_examples=300, deadline=None)
@given(
    facts=st.lists(st.tuples(st.sampled_from(["<=", "=="]), _linear()), max_size=3),
    query=st.tuples(st.sampled_from(["<=", "==", "!="]), st.one_of(_linear(), _tree().map(lambda t: t))),
    rx=RANGE, ry=RANGE,
)
def test_linear_procedure_never_contradicts_brute_force(facts, query, rx, ry) -> None:
    ranges = {"x": rx, "y": ry}
    norms = []
    for op, p in facts:
        r = B.rel(op, p, F.const(0))
        if r.kind == "const":
            if not r.value:
                return  # an unsatisfiable fact: nothing to check
            continue
        norms.append(r.norm)
    op, q = query
    try:
        q = _build(q) if isinstance(q, tuple) else q
    except ZeroDivisionError:
        return
    r = B.rel(op, q, F.const(0))
    if r.kind == "const":
        return
    lf = LinearFacts(norms)
    memo: dict = {}
    for m, _ in q.terms:
        for atom, _ in m.factors:
            for fact in atom_facts(atom, ranges, memo):
                lf.add(fact)
    answer = decide_norm(r.norm, lf, ranges, memo)
    if answer is None:
        return
    for p in _points(ranges):
        if all(n.holds_for(n.p.value(p)) for n in norms):
            v = _value(q, p)
            if v is not None:
                assert r.norm.holds_for(r.norm.p.value(p)) == answer, (norms, r, p, answer)


@settings(max_examples=200, deadline=None)
@given(op=st.sampled_from(["<=", "=="]), p=_linear(), rx=RANGE, ry=RANGE)
def test_propagated_bounds_hold_wherever_the_fact_does(op, p, rx, ry) -> None:
    r = B.rel(op, p, F.const(0))
    if r.kind == "const":
        return
    ranges = {"x": rx, "y": ry}
    derived = propagate(r.norm, ranges)
    for point in _points(ranges):
        if r.norm.holds_for(r.norm.p.value(point)):
            for name, lo, hi in derived:
                assert lo <= point[name] <= hi, (r.norm, ranges, point, derived)


def test_bound_of_a_factored_sum() -> None:
    s = F.sym("s")
    assert bound_form(F.sub(F.mul(s, s), s), {"s": (2, INF)}, {}) == (2, INF)       # s*(s-1)
    assert bound_form(F.sub(F.mul(s, s), s), {"s": (-INF, INF)}, {})[0] == -INF       # no sign: no help


def test_elimination_chains_two_facts() -> None:
    a, b, c = F.sym("a"), F.sym("b"), F.sym("c")
    facts = LinearFacts([B.rel("<", a, b).norm, B.rel("<", b, c).norm])
    ranges = {n: (0, INF) for n in "abc"}
    assert decide_norm(B.rel("<", F.add(a, F.const(1)), c).norm, facts, ranges) is True
    assert decide_norm(B.rel(">=", a, c).norm, facts, ranges) is False
    assert decide_norm(B.rel("<", a, F.const(5)).norm, facts, ranges) is None


def test_rewriting_facts_replaces_each_affected_fact_once() -> None:
    # A rewrite whose result is itself "affected" must not be rewritten again (it looped forever).
    x, y = F.sym("x"), F.sym("y")
    facts = LinearFacts([B.rel("<", x, y).norm, B.rel("<", y, F.const(9)).norm])
    facts.rewrite({"x"}, lambda n: B.rel("<", F.add(x, F.const(1)), y).norm)
    assert len(facts) == 2
    assert [str(n) for n in facts.live()] == ["Norm(y - 8 <= 0)", "Norm(x - y + 2 <= 0)"]


def _reference_prove_le0(facts: LinearFacts, p, ranges) -> bool:
    """The search of ``prove_le0`` written plainly: every candidate built as a dict and bounded from scratch.

    ``LinearFacts.prove_le0`` computes each candidate's bound incrementally and builds only the
    candidates it keeps; it must try the same candidates, in the same order, within the same budget.
    """
    from valueranges.bound import mono_bound

    memo: dict = {}

    def bound_of(m):
        if m not in memo:
            memo[m] = mono_bound(m, ranges, memo)
        return memo[m]

    def upper(terms, const_):
        hi = const_
        for m, c in terms.items():
            b = bound_of(m)
            hi += c * b[1] if c > 0 else c * b[0]
            if hi == INF:
                return INF
        return hi

    if bound_form(p, ranges, memo)[1] <= 0:
        return True
    if len(facts) == 0:
        return False
    steps = facts.budget
    frontier = [(dict(p.terms), p.const, (), 1)]
    for level in range(facts.depth):
        found = []
        for terms, const_, used, scale in frontier:
            targets = [(m, c) for m, c in terms.items() if (bound_of(m)[1] if c > 0 else bound_of(m)[0]) in (INF, -INF)]
            for m, c in targets or list(terms.items()):
                for i, d in facts._index.get(m, ()):
                    fact = facts.facts[i]
                    if i in used or fact is None or (fact.op == "<=" and (c > 0) != (d > 0)):
                        continue
                    if steps <= 0:
                        break
                    steps -= 1
                    k = abs(d)
                    lam = c * (1 if d > 0 else -1) if fact.op == "==" else abs(c)
                    out = {mono: coeff * k for mono, coeff in terms.items()}
                    for mono, coeff in fact.p.terms:
                        out[mono] = out.get(mono, 0) - lam * coeff
                        if not out[mono]:
                            del out[mono]
                    out_const = const_ * k - lam * fact.p.const
                    if upper(out, out_const) < scale * k:  # out >= scale*k*p, p an integer
                        return True
                    found.append((len(out), len(found), out, out_const, used + (i,), scale * k))
                else:
                    continue
                break
            if steps <= 0:
                return False
        found.sort(key=lambda t: (t[0], t[1]))
        frontier = [(t, c, used, scale) for _, _, t, c, used, scale in found[:4]]
        if not frontier:
            return False
    return False


def _fact_forms():
    """Linear facts over x, y and one atom each of Max and FloorDiv (so that some terms are unbounded)."""
    x, y = F.sym("x"), F.sym("y")
    parts = [x, y, F.max_(x, y), F.floordiv(x, F.const(3)), F.mul(x, y)]
    return st.builds(
        lambda cs, c: _sum([F.scale(t, k) for t, k in zip(parts, cs)] + [F.const(c)]),
        st.lists(st.integers(-3, 3), min_size=len(parts), max_size=len(parts)), st.integers(-8, 8),
    )


def _sum(forms):
    total = F.const(0)
    for f in forms:
        total = F.add(total, f)
    return total


_OPEN_RANGE = st.one_of(RANGE, st.integers(-5, 5).map(lambda lo: (lo, INF)), st.integers(-5, 5).map(lambda hi: (-INF, hi)))


@settings(max_examples=400, deadline=None)
@given(
    facts=st.lists(st.tuples(st.sampled_from(["<=", "=="]), _fact_forms()), max_size=14),
    query=_fact_forms(), rx=_OPEN_RANGE, ry=_OPEN_RANGE,
    budget=st.integers(1, 40), depth=st.integers(1, 3),
)
def test_prove_le0_agrees_with_the_plain_search(facts, query, rx, ry, budget, depth) -> None:
    norms = []
    for op, p in facts:
        n = B.relation_norm(op, p, F.const(0))
        if not isinstance(n, bool):
            norms.append(n)
    lf = LinearFacts(norms, budget=budget, depth=depth)
    ranges = {"x": rx, "y": ry}
    assert lf.prove_le0(query, ranges, {}) == _reference_prove_le0(lf, query, ranges), (norms, query, ranges)


def test_a_scaled_bound_is_rounded_to_an_integer() -> None:
    # Note [Rounding a scaled bound]: 2*(1 - a + a//2) - (2*(a//2) - a) = 2 - a <= 1 < 2 proves a - a//2 >= 1.
    a = F.sym("a")
    half = F.floordiv(a, F.const(2))
    ranges = {"a": (1, INF)}
    lf = LinearFacts(atom_facts(half.atom(), ranges, {}))
    assert decide_norm(B.rel(">=", F.sub(a, half), F.const(1)).norm, lf, ranges) is True
    # c + 3*d >= 10 and 2*a + 3*b >= 10 style: a + b >= 4 from 2*a + 3*b >= 10 with a >= 1 (3*(a+b) >= 11)
    b = F.sym("b")
    lf = LinearFacts([B.rel(">=", F.add(F.scale(a, 2), F.scale(b, 3)), F.const(10)).norm])
    assert decide_norm(B.rel(">=", F.add(a, b), F.const(4)).norm, lf, {"a": (1, INF), "b": (1, INF)}) is True
