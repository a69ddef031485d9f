"""Canonical forms: every construction agrees with Python on concrete values, interning, normal forms.

Soundness is checked against concrete evaluation: hypothesis builds random expression
trees over three symbols, and the form's value (by :func:`symint.form_eval.evaluate_form`)
and its sympy expression's value must equal Python's for random values, errors included.
"""

from __future__ import annotations

import operator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from symint.form import logic as B
from symint import evaluate
from symint import form as F
from symint.form import arith
from symint.build import symbol_expr
from symint.sympy_io import from_sympy, to_sympy

NAMES = ("x", "y", "z")
BINARY = {
    "add": (F.add, operator.add),
    "sub": (F.sub, operator.sub),
    "mul": (F.mul, operator.mul),
    "floordiv": (F.floordiv, operator.floordiv),
    "ceildiv": (F.ceildiv, lambda a, b: -(-a // b)),
    "mod": (F.mod, operator.mod),
    "max": (F.max_, max),
    "min": (F.min_, min),
}
RELATIONS = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}


def _leaf():
    return st.one_of(
        st.sampled_from(NAMES).map(lambda n: ("sym", n)),
        st.integers(-9, 9).map(lambda k: ("const", k)),
    )


def _tree():
    return st.recursive(
        _leaf(),
        lambda inner: st.tuples(st.sampled_from(sorted(BINARY)), inner, inner),
        max_leaves=8,
    )


class _Raised(Exception):
    pass


def _python(tree, values):
    kind = tree[0]
    if kind == "sym":
        return values[tree[1]]
    if kind == "const":
        return tree[1]
    a, b = _python(tree[1], values), _python(tree[2], values)
    try:
        return BINARY[kind][1](a, b)
    except ZeroDivisionError as e:
        raise _Raised from e


def _form(tree):
    kind = tree[0]
    if kind == "sym":
        return F.sym(tree[1])
    if kind == "const":
        return F.const(tree[1])
    return BINARY[kind][0](_form(tree[1]), _form(tree[2]))


VALUES = st.fixed_dictionaries({n: st.integers(-12, 12) for n in NAMES})


@settings(max_examples=400, deadline=None)
@given(tree=_tree(), values=VALUES)
def test_form_value_equals_python(tree, values) -> None:
    # The canonical rewrites are exact wherever Python gives a value (Note [Canonical forms]:
    # a rewrite may give a value where the original divides by zero, never a different one).
    try:
        expected = _python(tree, values)
    except _Raised:
        return
    try:
        f = _form(tree)
    except ZeroDivisionError:
        pytest.fail(f"building {tree} raised although Python evaluates it at {values}")
    assert f.value(values) == expected, (tree, values, f)
    sym_values = {symbol_expr(n): v for n, v in values.items() if n in f.symbols}
    assert int(evaluate(to_sympy(f), sym_values)) == expected, (tree, to_sympy(f))


@settings(max_examples=200, deadline=None)
@given(tree=_tree())
def test_sympy_round_trip_is_the_same_form(tree) -> None:
    try:
        f = _form(tree)
    except ZeroDivisionError:
        return
    assert from_sympy(to_sympy(f)) is f


@settings(max_examples=300, deadline=None)
@given(a=_tree(), b=_tree(), op=st.sampled_from(sorted(RELATIONS)), values=VALUES)
def test_relation_and_its_normal_form_agree_with_python(a, b, op, values) -> None:
    try:
        fa, fb = _form(a), _form(b)
        expected = RELATIONS[op](_python(a, values), _python(b, values))
    except (ZeroDivisionError, _Raised):
        return
    r = B.rel(op, fa, fb)
    if r.kind == "const":
        assert r.value == expected, (a, op, b)
        return
    assert r.evaluate(values) == expected
    assert r.norm.holds_for(r.norm.p.value(values)) == expected, (r, r.norm)
    assert B.not_(r).evaluate(values) == (not expected)
    assert r.norm.negated().holds_for(r.norm.negated().p.value(values)) == (not expected)


@settings(max_examples=300, deadline=None)
@given(a=_tree(), b=_tree(), op=st.sampled_from(sorted(RELATIONS)))
def test_negation_has_the_normal_form_of_the_negated_relation(a, b, op) -> None:
    # not_ takes the relation's normal form negated (Norm.negated) instead of normalising the
    # negated relation again: both must be the one interned normal form.
    try:
        fa, fb = _form(a), _form(b)
    except ZeroDivisionError:
        return
    r = B.rel(op, fa, fb)
    if r.kind == "const":
        return
    negated = B.not_(r)
    assert negated.norm is B.relation_norm(negated.args[0], fa, fb), (a, op, b)
    assert negated.symbols is r.symbols


def test_interning_makes_equal_forms_identical() -> None:
    x, y = F.sym("x"), F.sym("y")
    assert F.add(F.mul(x, F.const(2)), y) is F.add(y, F.add(x, x))
    assert F.mul(F.add(x, y), F.add(x, y)) is F.add(F.add(F.mul(x, x), F.scale(F.mul(x, y), 2)), F.mul(y, y))
    assert F.max_(x, y) is F.max_(y, x) and F.max_(x, F.max_(y, x)) is F.max_(x, y)


@pytest.mark.parametrize(
    "left, right, same",
    [
        (("<", "x", "y"), ("<=", ("x", 1), "y"), True),      # x < y  <=>  x + 1 <= y
        (("<", ("2x",), ("2y",)), ("<", "x", "y"), True),    # common factors cancel
        ((">=", "x", 3), ("<", "x", 3), False),
        (("==", ("2x",), ("2y",)), ("==", "x", "y"), True),
        (("==", "y", "x"), ("==", "x", "y"), True),          # sign-normalised
    ],
)
def test_equivalent_relations_share_a_normal_form(left, right, same) -> None:
    def side(v):
        if v == ("2x",):
            return F.scale(F.sym("x"), 2)
        if v == ("2y",):
            return F.scale(F.sym("y"), 2)
        if isinstance(v, tuple):
            return F.add(F.sym(v[0]), F.const(v[1]))
        return F.sym(v) if isinstance(v, str) else F.const(v)

    a = B.rel(left[0], side(left[1]), side(left[2]))
    b = B.rel(right[0], side(right[1]), side(right[2]))
    assert (a.norm is b.norm) == same, (a, b, a.norm, b.norm)


def test_relations_fold_when_the_sides_differ_by_a_constant_or_have_no_integer_solution() -> None:
    x = F.sym("x")
    assert B.rel("<", x, F.add(x, F.const(1))) is B.TRUE
    assert B.rel("==", F.scale(x, 2), F.const(3)) is B.FALSE   # 2*x == 3 has no integer solution
    assert B.rel("!=", F.scale(x, 2), F.const(3)) is B.TRUE


def test_connectives_keep_the_written_order() -> None:
    x = F.sym("x")
    a, b = B.rel("<", x, F.const(3)), B.rel(">", x, F.const(0))
    assert B.and_(a, b).args == (a, b) and B.and_(b, a).args == (b, a)
    assert B.or_(b, a).args == (b, a)


def test_division_by_a_constant_zero_raises_like_python() -> None:
    with pytest.raises(ZeroDivisionError):
        F.floordiv(F.sym("x"), F.const(0))
    with pytest.raises(ZeroDivisionError):
        F.mod(F.sym("x"), F.const(0))


def test_size_limits_refuse_huge_constructions() -> None:
    with pytest.raises(F.FormLimitError):
        F.pow_nat(F.const(3), 10**6)
    big = F.const(0)
    for i in range(40):
        big = F.add(big, F.sym(f"t{i}"))
    with pytest.raises(F.FormLimitError):
        F.pow_nat(big, 100)


def test_term_order_is_structural_not_by_creation() -> None:
    # Building in a different order gives the same interned form with the same term order.
    a = F.add(F.sym("b"), F.sym("a"))
    assert [m.factors[0][0].name for m, _ in a.terms] == ["a", "b"]


def test_a_monomial_divided_by_itself_is_a_constant_not_a_term() -> None:
    # Found by the view rules: FloorDiv(s0*s1, 2*s1) divided 2*s1 by s1 and kept "2" as a term.
    x, y = F.sym("x"), F.sym("y")
    assert F.floordiv(F.scale(F.mul(x, y), 6), F.mul(x, y)) is F.const(6)
    q = F.floordiv(F.scale(F.mul(x, y), 2), y)
    assert q is F.scale(x, 2)
    assert F.floordiv(F.scale(y, 2), y).is_const and F.floordiv(F.scale(y, 2), y).const == 2


@settings(max_examples=300, deadline=None)
@given(a=_tree(), b=_tree(), op=st.sampled_from(sorted(RELATIONS)))
def test_normal_forms_built_directly_are_the_relations_own(a, b, op) -> None:
    try:
        fa, fb = _form(a), _form(b)
    except ZeroDivisionError:
        return
    r = B.rel(op, fa, fb)
    n = B.relation_norm(op, fa, fb)
    if r.kind == "const":
        assert n is r.value, (a, op, b, n)
        return
    assert n is r.norm, (a, op, b, n, r.norm)
    assert B.normalise(n.op, n.p) is n                     # a normal form is its own normal form
    assert n.negated().negated() is n                      # negation is an involution on normal forms
    assert B.normalise(n.op, F.scale(n.p, 3)) is n or n.op != "<="  # a common factor goes away


def test_interning_tables_hold_no_keys_the_garbage_collector_tracks() -> None:
    # Note [Keys the garbage collector skips]: the interning and memo tables live as long as the
    # process, so their keys must be ints or tuples of ints (untracked after a collection), never
    # tuples of forms, which every full collection would walk again.
    import gc

    from symint.form import terms as FT

    x, y = F.sym("x"), F.sym("y")
    f = F.add(F.mul(F.floordiv(x, F.const(3)), y), F.max_(x, F.sub(y, F.const(2))))
    for op in RELATIONS:
        B.rel(op, f, F.mod(y, x))
    F.scale(f, 5)
    gc.collect()
    tables = {"_FORMS": FT._FORMS, "_MONOS": FT._MONOS, "_MONO_MUL": FT._MONO_MUL, "_PAIRS": FT._PAIRS,
              "_ADD": arith._ADD, "_SUB": arith._SUB, "_MUL": arith._MUL, "_SCALE": arith._SCALE, "_FLOORDIV": arith._FLOORDIV,
              "_MOD": arith._MOD, "_MAX": arith._MAX, "_NORMS": B._NORMS, "_RELS": B._RELS}
    for name, table in tables.items():
        assert table, name
        tracked = [k for k in table if gc.is_tracked(k)]
        assert not tracked, (name, tracked[:3])
    atoms = [k for k in FT._ATOMS if k[0] != "opaque" and gc.is_tracked(k)]  # an opaque atom's key holds its sympy
    assert not atoms, atoms[:3]
    # values are shared: one pair object per (monomial, coefficient), one set per set of symbol names
    pairs = [p for t in FT._TERMS.values() for p in t]
    assert len({id(p) for p in pairs}) == len({(m.uid, c) for m, c in pairs})
    assert F.add(x, y).symbols is B.rel("<", x, y).symbols


def test_forms_built_by_several_threads_at_once_are_one_object_with_the_right_terms() -> None:
    # Note [Interning from several threads]: the deferred simplification builds forms in a worker
    # thread while tracing builds them in the caller's. Fresh names, so that every thread races to
    # intern the same new atoms, monomials, tuples of terms and forms.
    import random
    import sys
    import threading

    names = [f"race{i}" for i in range(6)]
    rng = random.Random(5)
    recipes = [(rng.randrange(6), rng.randrange(6), rng.randrange(1, 5), rng.randrange(-3, 4)) for _ in range(300)]

    def build():
        out = []
        for i, j, k, c in recipes:
            a, b = F.sym(names[i]), F.sym(names[j])
            f = F.add(F.mul(F.scale(a, k), b), F.floordiv(F.add(a, F.const(c)), F.const(k + 1)))
            out.append((f, B.rel("<", f, F.max_(a, b)).norm))
        return out

    results: list = [None] * 4
    start = threading.Barrier(len(results))

    def worker(n: int) -> None:
        start.wait()
        results[n] = build()

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=worker, args=(n,)) for n in range(len(results))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    values = {n: v for n, v in zip(names, (3, -2, 5, 7, -4, 2))}
    for (i, j, k, c), *built in zip(recipes, *results):
        a, b = values[names[i]], values[names[j]]
        expected = k * a * b + (a + c) // (k + 1)
        for f, norm in built:
            assert f is built[0][0] and norm is built[0][1], (i, j, k, c)
            assert f.value(values) == expected, (f, expected)


# -- forms are the core: no sympy (Note [Forms import no sympy]) ---------------------------------------
def test_an_opaque_atom_is_evaluated_by_what_it_carries_whatever_it_wraps() -> None:
    """Forms know nothing of what an opaque atom wraps: any hashable value, with its digest, symbols and value."""
    parity = F.opaque(("parity", "n"), b"parity n", frozenset({"n"}), lambda wrapped, values: values["n"] % 2)
    assert parity is F.opaque(("parity", "n"), b"parity n", frozenset({"n"}), None)  # interned by the wrapped value
    f = F.add(F.scale(parity, 3), F.sym("m"))
    assert [f.value({"n": n, "m": 10}) for n in (-3, 0, 7)] == [13, 10, 13]
    assert f.symbols == {"n", "m"}
    odd = F.opaque_bool(("odd", "n"), frozenset({"n"}), lambda wrapped, values: values["n"] % 2 == 1)
    assert [F.and_(odd, F.rel(">", F.sym("n"), F.const(0))).evaluate({"n": n}) for n in (-3, 3, 4)] == [False, True, False]
    with pytest.raises(ValueError):
        arith.make_atom("opaque", ("parity", "n"))  # an opaque atom must be told what it means


def test_an_opaque_sympy_atom_keeps_the_digest_it_had_when_forms_computed_it() -> None:
    """The digest sympy_io gives is the one forms computed from ``srepr`` before (the term order must not move)."""
    import hashlib

    import sympy

    from symint import IfThenElse

    x = symbol_expr("x")
    expr = IfThenElse(x > 0, x, -x)
    atom = from_sympy(expr).atom()
    assert atom.kind == "opaque" and atom.args == (expr,)
    assert atom.digest == hashlib.blake2b(b"opaque\x00" + sympy.srepr(expr).encode(), digest_size=8).digest()
    assert [atom.opaque_value(atom.args[0], {"x": v}) for v in (-4, 5)] == [4, 5]


def test_forms_print_without_sympy() -> None:
    """Terms print in canonical order (symbols before function atoms: Note [Deterministic order]), the constant last."""
    x, y = F.sym("pa"), F.sym("pb")  # names no other test uses: no view of these forms was built before
    f = F.add(F.sub(F.scale(F.floordiv(x, F.const(4)), -2), F.mul(x, y)), F.const(-7))
    assert repr(f) == "Form(-pa*pb - 2*FloorDiv(pa, 4) - 7)" and f._sympy is None  # no view was built to print it
    b = B.or_(B.rel("<", x, y), B.not_(B.and_(B.rel("==", x, F.const(1)), B.rel(">=", y, F.const(2)))))
    assert repr(b) == "BoolForm((pa < pb) | ~((pa == 1) & (pb >= 2)))" and b._sympy is None
    assert to_sympy(f) == -2 * to_sympy(F.floordiv(x, F.const(4))) - symbol_expr("pa") * symbol_expr("pb") - 7


def test_the_view_is_built_once_and_cached_on_the_form() -> None:
    f = F.add(F.mod(F.sym("view_once"), F.const(6)), F.const(2))
    first = to_sympy(f)
    assert to_sympy(f) is first and f._sympy is first and from_sympy(first) is f
    b = B.rel("<", f, F.sym("z"))
    assert to_sympy(b) is to_sympy(b) and to_sympy(f.atom() or f.terms[0][0].factors[0][0]) == to_sympy(F.mod(F.sym("view_once"), F.const(6)))
    with pytest.raises(TypeError):
        to_sympy(3)


def test_the_view_does_not_depend_on_what_was_converted_first():
    # Note [A view does not remember its source]: a form met first as an unexpanded power prints
    # as the canonical sum, like the same form built directly.
    import sympy
    from symint.sympy_io import bool_from_sympy, from_sympy, to_sympy

    s = sympy.Symbol("view_src", integer=True, positive=True)
    square = from_sympy((s + 1) ** 2)
    assert str(to_sympy(square)) == "view_src**2 + 2*view_src + 1"
    assert str(to_sympy(bool_from_sympy(sympy.Eq(s, (s + 1) ** 2)))) == "Eq(view_src, view_src**2 + 2*view_src + 1)"
