"""Tests of guards/text/order.py and of printing from forms: sympy's print order, computed on forms.

The oracle is sympy itself: the order of a form's terms, factors and Max/Min arguments must
be the order sympy prints the form's sympy view in, and the printers must give the same text
for a form and for its sympy view (two separate walks: the form's, and sympy's own ordering).
"""

from __future__ import annotations

import sympy
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from guards import GuardSet, Source
from guards.text.order import ordered_terms
from guards.text.printers import to_text
from symint import form as F
from symint.build import symbol_expr
from symint.sympy_io import to_sympy

NAMES = ["s0", "s1", "s2", "s10", "a", "n"]
SOURCES = {symbol_expr("s0"): Source.size("x", 0), symbol_expr("s1"): Source.stride("y", 1), symbol_expr("n"): Source.value("n")}


def _safe(op):
    def build(args):
        try:
            return op(*args)
        except (ZeroDivisionError, F.FormLimitError):
            return args[0]

    return build


_leaves = st.one_of(st.sampled_from(NAMES).map(F.sym), st.integers(-9, 9).map(F.const))


def _extend(children):
    pairs = st.tuples(children, children)
    return st.one_of(
        *(pairs.map(_safe(op)) for op in (F.add, F.sub, F.mul, F.mul, F.floordiv, F.ceildiv, F.mod, F.max_, F.min_)),
        st.tuples(children, st.integers(-5, 5)).map(lambda t: F.scale(*t)),
        st.tuples(children, st.integers(0, 3)).map(_safe(F.pow_nat)),
        st.tuples(children, st.sampled_from(NAMES).map(F.sym)).map(_safe(F.pow_sym)),
    )


forms = st.recursive(_leaves, _extend, max_leaves=8)
relations = st.tuples(st.sampled_from(F.OPS), forms, forms).map(lambda t: F.rel(*t))
booleans = st.recursive(
    relations,
    lambda children: st.one_of(
        st.lists(children, min_size=2, max_size=3).map(lambda xs: F.and_(*xs)),
        st.lists(children, min_size=2, max_size=3).map(lambda xs: F.or_(*xs)),
        children.map(F.not_),
    ),
    max_leaves=4,
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(forms)
def test_terms_are_in_sympys_order(f):
    view = to_sympy(f)
    if not isinstance(view, sympy.Add):
        return
    got = [sympy.Integer(c) if m is None else sympy.Integer(c) * _mono(m) for m, c in ordered_terms(f)]
    assert got == list(view.as_ordered_terms()), view


def _mono(m):
    return sympy.Mul(*(to_sympy(a) ** p for a, p in m.factors))


def _folds_in_sympy(b) -> bool:
    """Whether the sympy view folds a connective the form keeps (a repeated or complementary relation)."""
    if b.kind in ("and", "or"):
        norms = [a.norm for a in b.args if a.kind == "rel"]
        if len(set(norms)) < len(norms) or any(n.negated() in norms for n in norms):
            return True
    return b.kind in ("and", "or", "not") and any(_folds_in_sympy(a) for a in b.args)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(booleans, st.sampled_from(["sympy", "torch", "source"]))
def test_a_form_prints_as_its_sympy_view(b, style):
    # Where sympy's connectives fold what the form keeps (x < 3 and x >= 3), the form prints as
    # it is (Note [Printing forms] in guards/text/printers.py).
    assume(not _folds_in_sympy(b))
    assert to_text(b, SOURCES, style) == to_text(to_sympy(b), SOURCES, style)


def test_a_form_prints_as_it_is_where_sympy_folds():
    x = F.sym("s0")
    both = F.and_(F.rel("<", x, F.const(3)), F.rel(">=", x, F.const(3)))
    assert to_sympy(both) is sympy.false
    assert to_text(both, SOURCES, "source") == "x.size()[0] < 3 and x.size()[0] >= 3"


def test_huge_sums_print_in_sympys_order():
    # A sum of 300 sizes: sympy itself prints such a sum in its internal order (too costly to sort,
    # Note [Printing large sums]); a form prints in sympy's order at any size (symbols by name).
    names = [f"s{i}" for i in range(300)]
    total = F.const(0)
    for name in names:
        total = F.add(total, F.sym(name))
    assert to_text(F.rel(">=", total, F.const(1)), style="sympy") == " + ".join(sorted(names)) + " >= 1"


def test_parsing_and_printing_build_no_sympy():
    # The parser builds forms and the printers read forms: no sympy view is built on the way
    # (symbol names used by no other test, since a form's view, once built, is kept).
    gs = GuardSet.parse("q_view // 2 >= 16*k_view + 1\n2 <= q_view <= 64\nr_view % 3 == 1")
    texts = [gs.to_text(style) for style in ("torch", "sympy", "source")]
    assert texts[0].splitlines() == ["q_view // 2 >= 16*k_view + 1", "2 <= q_view <= 64", "(r_view % 3) == 1"]
    assert texts[1].splitlines()[0] == "FloorDiv(q_view, 2) >= 16*k_view + 1"
    for g in gs.guards:
        for rel in (g.form.args if g.form.kind == "and" else (g.form,)):
            sides = [side for side in rel.args[1:] if not side.is_const]  # constants are shared with everything else
            assert rel._sympy is None and sides and all(side._sympy is None for side in sides)
