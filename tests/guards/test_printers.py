"""Tests of the guard printers (guards/text/printers.py): expected text, round trips, notebook rendering.

Expected strings are written by hand from torch's and sympy's conventions; the
round-trip property builds random guards with ``symint.build``, prints them in
every style and parses them back, and the result must be the same expression.
"""

from __future__ import annotations

import re

import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from guards import Guard, GuardSet, GuardTypeError, Source, parse_guard, parse_guards
from guards.text.parse import MAX_DEPTH
from symint import evaluate
from symint import form as F
from guards.text.printers import latex_text, render_html, render_latex, to_source_text, to_sympy_text, to_text, to_torch_text
from symint.build import (abs_, add, and_, ceildiv, eq, floordiv, ge, gt, ite, le, lt, max_, min_, mod, mul, ne, neg,
                          not_, or_, pow_, sub, symbol_expr, truediv)
from symint.sympy_io import to_sympy
from symint.sympy_io.functions import CeilToInt, FloorToInt

s0, s1, s2, s3, n = (symbol_expr(x) for x in ("s0", "s1", "s2", "s3", "n"))
X0, Y0 = Source.size("x", 0), Source.size("y", 0)
SOURCES = {s0: X0, s1: Y0, s2: Source.stride("x", 0), n: Source.value("n")}


def _check(got: str, expected: str | set[str], expr) -> None:
    options = {expected} if isinstance(expected, str) else expected
    assert got in options, f"{expr!r}: expected one of {sorted(options)}, got {got!r}"


# Where sympy's canonical argument order decides the order of And/Or, both orders are accepted.
SYMPY_TEXT = [
    (eq(s0, s1), "Eq(s0, s1)"),
    (ne(mod(s0, 2), 0), "Ne(Mod(s0, 2), 0)"),
    (ge(s0, 2), "s0 >= 2"),
    (le(2, s0), "2 <= s0"),
    (eq(floordiv(s0, 2), 3), "Eq(FloorDiv(s0, 2), 3)"),
    (gt(max_(s0, 4), s1), "Max(4, s0) > s1"),
    (lt(sub(s0, mul(2, s1)), 3), "s0 - 2*s1 < 3"),
    (lt(add(s0, neg(mod(s1, 3))), 3), "s0 - Mod(s1, 3) < 3"),
    (and_(lt(s0, 3), gt(s1, 2)), {"(s0 < 3) & (s1 > 2)", "(s1 > 2) & (s0 < 3)"}),
    (or_(eq(s0, 3), gt(s1, 2)), {"Eq(s0, 3) | (s1 > 2)", "(s1 > 2) | Eq(s0, 3)"}),
    (not_(and_(eq(s0, 3), eq(s1, 2))), {"~(Eq(s0, 3) & Eq(s1, 2))", "~(Eq(s1, 2) & Eq(s0, 3))"}),
    (ge(pow_(s0, 2), 4), "s0**2 >= 4"),
    (ge(pow_(add(s0, 1), 2), 4), "(s0 + 1)**2 >= 4"),
    (ge(pow_(2, s0), 4), "PowByNatural(2, s0) >= 4"),
    (ge(truediv(s0, 2), 1), "IntTrueDiv(s0, 2) >= 1"),
    (ge(neg(floordiv(s0, 2)), 1), "-FloorDiv(s0, 2) >= 1"),
    (ge(ceildiv(s0, 4), 1), "CeilDiv(s0, 4) >= 1"),
    (ge(CeilToInt(truediv(s0, 2)), 1), "CeilToInt(IntTrueDiv(s0, 2)) >= 1"),
    (eq(ite(lt(s0, 3), s1, 2), 2), "Eq(IfThenElse(s0 < 3, s1, 2), 2)"),
    (ge(s0, -3), "s0 >= -3"),
    (sympy.true, "True"),
    (sympy.false, "False"),
]

TORCH_TEXT = [
    (eq(s0, s1), "L['x'].size()[0] == L['y'].size()[0]"),
    (le(2, s0), "2 <= L['x'].size()[0]"),
    (eq(mod(s0, 8), 0), "(L['x'].size()[0] % 8) == 0"),
    (ne(floordiv(s0, 2), 1), "L['x'].size()[0] // 2 != 1"),
    (eq(s2, mul(16, s1)), "L['x'].stride()[0] == 16*L['y'].size()[0]"),
    (eq(n, 3), "L['n'] == 3"),
    (and_(le(2, s0), le(s0, 1024)), "2 <= L['x'].size()[0] <= 1024"),
    (and_(gt(1024, s0), ge(s0, 2)), "1024 > L['x'].size()[0] >= 2"),
    (and_(ge(s0, 2), le(s0, 1024)), {"L['x'].size()[0] >= 2 and L['x'].size()[0] <= 1024",
                                    "L['x'].size()[0] <= 1024 and L['x'].size()[0] >= 2"}),
    (and_(ge(s0, 11), ge(11, s1)), {"L['x'].size()[0] >= 11 and 11 >= L['y'].size()[0]",
                                     "11 >= L['y'].size()[0] and L['x'].size()[0] >= 11"}),  # no chain through a constant
    (and_(le(2, s0), le(s0, s1), le(s1, 9)), {"2 <= L['x'].size()[0] <= L['y'].size()[0] and L['y'].size()[0] <= 9",
                                              "2 <= L['x'].size()[0] and L['x'].size()[0] <= L['y'].size()[0] <= 9",
                                              "L['x'].size()[0] <= L['y'].size()[0] <= 9 and 2 <= L['x'].size()[0]"}),
    (eq(mul(2, floordiv(s0, 2)), s1), "2*(L['x'].size()[0] // 2) == L['y'].size()[0]"),
    (eq(neg(floordiv(s0, 2)), s1), "-(L['x'].size()[0] // 2) == L['y'].size()[0]"),
    (eq(floordiv(add(s0, 1), 2), s1), "(L['x'].size()[0] + 1) // 2 == L['y'].size()[0]"),
    (eq(floordiv(s0, add(s1, 1)), 0), "L['x'].size()[0] // (L['y'].size()[0] + 1) == 0"),
    (lt(truediv(s0, add(s1, 1)), 2), "L['x'].size()[0] / (L['y'].size()[0] + 1) < 2"),
    (ge(CeilToInt(truediv(s0, 2)), 1), "math.ceil(L['x'].size()[0] / 2) >= 1"),
    (ge(FloorToInt(truediv(s0, 2)), 1), "math.floor(L['x'].size()[0] / 2) >= 1"),
    (gt(max_(s0, s1), 2), "max(L['x'].size()[0], L['y'].size()[0]) > 2"),
    (gt(min_(s0, 7), 2), "min(7, L['x'].size()[0]) > 2"),
    (gt(abs_(s0), 2), {"max(L['x'].size()[0], -L['x'].size()[0]) > 2", "max(-L['x'].size()[0], L['x'].size()[0]) > 2"}),
    (ge(pow_(s0, s1), 2), "L['x'].size()[0]**L['y'].size()[0] >= 2"),
    (not_(and_(eq(s0, 3), eq(s1, 2))), {"not (L['x'].size()[0] == 3 and L['y'].size()[0] == 2)",
                                        "not (L['y'].size()[0] == 2 and L['x'].size()[0] == 3)"}),
    (or_(lt(s0, 2), and_(gt(s1, 3), gt(s0, 9))), {
        "L['x'].size()[0] < 2 or L['y'].size()[0] > 3 and L['x'].size()[0] > 9",
        "L['x'].size()[0] < 2 or L['x'].size()[0] > 9 and L['y'].size()[0] > 3",
        "L['y'].size()[0] > 3 and L['x'].size()[0] > 9 or L['x'].size()[0] < 2",
        "L['x'].size()[0] > 9 and L['y'].size()[0] > 3 or L['x'].size()[0] < 2",
    }),
    (ge(s3, 2), "s3 >= 2"),  # no source: the symbol's name
]

SOURCE_TEXT = [
    (eq(s0, s1), {s0: X0, s1: Y0}, "x.size()[0] == y.size()[0]"),
    (eq(n, 3), {n: Source.value("n")}, "n == 3"),
    (ge(s0, 2), {s0: Source.size("a b", 0)}, "L['a b'].size()[0] >= 2"),
    (eq(n, 1), {n: Source.value("if")}, "L['if'] == 1"),
    (eq(n, 1), {n: Source.value("__x")}, "L['__x'] == 1"),
    (eq(s0, 0), {s0: Source("x", "storage_offset")}, "x.storage_offset() == 0"),
    (ge(s0, 1), {s0: Source("x", "numel")}, "x.numel() >= 1"),
    (ne(s0, 1), {s0: Source.stride("x", 1)}, "x.stride()[1] != 1"),
]


@pytest.mark.parametrize("expr, expected", SYMPY_TEXT)
def test_sympy_text(expr, expected):
    text = to_sympy_text(expr)
    _check(text, expected, expr)
    assert Guard.of(parse_guard(text)) == Guard.of(expr)


@pytest.mark.parametrize("expr, expected", TORCH_TEXT)
def test_torch_text(expr, expected):
    text = to_torch_text(expr, SOURCES)
    _check(text, expected, expr)
    assert Guard.of(parse_guard(text, SOURCES)) == Guard.of(expr)


@pytest.mark.parametrize("expr, sources, expected", SOURCE_TEXT)
def test_source_text(expr, sources, expected):
    text = to_source_text(expr, sources)
    _check(text, expected, expr)
    assert Guard.of(parse_guard(text, sources, dialect="source")) == Guard.of(expr)


@pytest.mark.parametrize(
    "expr, words",
    [
        (sympy.oo, "no guard syntax"),
        (sympy.Lt(s0, sympy.oo, evaluate=False), "no guard syntax"),
        (ge(s0, sympy.Float("inf")), "no guard syntax"),
        (sympy.sin(s0) > 0, "cannot print"),
        (ge(symbol_expr("lambda"), 1), "cannot be written"),
        (ge(symbol_expr("True"), 1), "cannot be written"),
        (ge(symbol_expr("__x"), 1), "cannot be written"),
    ],
)
def test_unprintable(expr, words):
    with pytest.raises(GuardTypeError, match=words):
        to_sympy_text(expr)


def test_unknown_style():
    with pytest.raises(ValueError, match="style"):
        to_text(eq(s0, 1), style="python")  # type: ignore[arg-type]


def test_deep_expression_prints_and_reads_back():
    expr = s0
    for i in range(MAX_DEPTH - 2):
        expr = truediv(expr, add(s1, i))
    guard = gt(expr, 0)
    for text, kwargs in ((to_sympy_text(guard), {}), (to_torch_text(guard, SOURCES), {"symbols": SOURCES})):
        back = parse_guard(text, **kwargs)
        # Inside a float, an integer operand is its canonical form: the product of the 98
        # denominators reads back expanded (Note [Parsed forms and the sympy builders]).
        assert back.kind == "opaque" and back.symbols == {"s0", "s1"}
        for v0, v1 in ((1, 1), (-3, 2), (5, 7)):
            assert evaluate(to_sympy(back), {s0: v0, s1: v1}) == evaluate(guard, {s0: v0, s1: v1})


# -- round trip, property-based ----------------------------------------------------------------------------------

SYMBOLS = [s0, s1, s2, s3]
ALL_SOURCES = {s0: X0, s1: Source.stride("y", 1), s2: Source.value("k"), s3: Source.size("odd name", 2)}
TORCH_SOURCES = {s0: X0, s1: Source.stride("y", 1)}  # s2 and s3 print as bare names


def _safe(fn, fallback=None):
    """``fn(*args)``, or ``fallback`` (default: the first argument) when a constant divisor is 0."""

    def build(args):
        try:
            return fn(*args)
        except ZeroDivisionError:
            return args[0] if fallback is None else fallback

    return build


_leaves = st.one_of(st.sampled_from(SYMBOLS), st.integers(-20, 20).map(sympy.Integer))


def _extend(children):
    pairs = st.tuples(children, children)
    return st.one_of(
        st.tuples(st.sampled_from([add, sub, mul, max_, min_]), children, children).map(lambda t: t[0](t[1], t[2])),
        children.map(neg),
        children.map(abs_),
        pairs.map(_safe(floordiv)),
        pairs.map(_safe(mod)),
        pairs.map(_safe(ceildiv)),
        st.tuples(children, st.integers(0, 3)).map(lambda t: pow_(t[0], t[1])),
        st.tuples(st.integers(-3, 3), st.sampled_from(SYMBOLS)).map(lambda t: pow_(t[0], t[1])),
        pairs.map(_safe(lambda a, b: FloorToInt(truediv(a, b)))),
        pairs.map(_safe(lambda a, b: CeilToInt(truediv(a, b)))),
        st.tuples(children, children, children).map(lambda t: ite(lt(t[0], 0), t[1], t[2])),
    )


int_exprs = st.recursive(_leaves, _extend, max_leaves=5)
_relations = st.tuples(st.sampled_from([eq, ne, lt, le, gt, ge]), int_exprs, int_exprs).map(lambda t: t[0](t[1], t[2]))
_true_div_relations = st.tuples(st.sampled_from([lt, ge]), st.sampled_from(SYMBOLS), int_exprs).map(
    _safe(lambda rel, a, b: rel(truediv(a, b), 1), fallback=sympy.true)
)
bool_exprs = st.recursive(
    st.one_of(_relations, _true_div_relations, st.sampled_from([sympy.true, sympy.false])),
    lambda children: st.one_of(
        st.lists(children, min_size=2, max_size=3).map(lambda xs: and_(*xs)),
        st.lists(children, min_size=2, max_size=3).map(lambda xs: or_(*xs)),
        children.map(not_),
        st.tuples(children, children).map(lambda t: eq(t[0], t[1])),
        st.tuples(st.sampled_from(SYMBOLS), st.integers(-5, 5), st.integers(-5, 5)).map(
            lambda t: and_(le(t[1], t[0]), le(t[0], t[2]))  # bounds, printed as chains in torch text
        ),
    ),
    max_leaves=4,
)

def _same(parsed, expr) -> bool:
    """Structurally equal, or (when sympy's Or/And folded e.g. ``a | ~a`` only on re-parsing) equal on every point."""
    if Guard.of(parsed) == Guard.of(expr):
        return True
    parsed = to_sympy(parsed)
    import itertools

    from symint import evaluate

    for values in itertools.product(range(-3, 4), repeat=len(SYMBOLS)):
        env = dict(zip(SYMBOLS, values))
        try:
            want = evaluate(expr, env)
        except (ArithmeticError, ValueError):
            continue
        if evaluate(parsed, env) != want:
            return False
    return True


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bool_exprs)
def test_round_trip_in_every_style(expr):
    text = to_sympy_text(expr)
    assert _same(parse_guard(text), expr), text
    text = to_torch_text(expr, TORCH_SOURCES)
    assert _same(parse_guard(text, TORCH_SOURCES), expr), text
    text = to_source_text(expr, ALL_SOURCES)
    assert _same(parse_guard(text, ALL_SOURCES, dialect="source"), expr), text


@settings(max_examples=100, deadline=None)
@given(int_exprs)
def test_round_trip_integer_expressions(expr):
    text = to_sympy_text(expr)
    assert parse_guard(f"{text} == {text}") is F.TRUE  # parses, and to the same expression on both sides
    assert Guard.of(parse_guard(f"{to_torch_text(expr, TORCH_SOURCES)} < 0", TORCH_SOURCES)) == Guard.of(lt(expr, 0))


# -- GuardSet text ------------------------------------------------------------------------------------------------


def test_guardset_to_text_in_each_dialect():
    gs = GuardSet.of([eq(s0, s1), and_(le(2, s0), le(s0, 64)), eq(mod(s2, 8), 0)], SOURCES)
    assert gs.to_text() == str(gs) == "\n".join(
        [
            "L['x'].size()[0] == L['y'].size()[0]",
            "2 <= L['x'].size()[0] <= 64",
            "(L['x'].stride()[0] % 8) == 0",
        ]
    )
    assert gs.to_text("source").splitlines()[0] == "x.size()[0] == y.size()[0]"
    assert gs.to_text("sympy").splitlines()[0] == "Eq(s0, s1)"
    assert parse_guards(gs.to_text(), symbols=SOURCES) == gs
    assert parse_guards(gs.to_text("sympy")).exprs == gs.exprs


def test_str_falls_back_for_unprintable_guards():
    gs = GuardSet.of([sympy.Lt(s0, sympy.oo, evaluate=False)])
    assert str(gs) == "s0 < oo"


# -- notebook rendering --------------------------------------------------------------------------------------------

HOSTILE_NAME = "<script>alert('x')</script>&\"$_{}\\"


def test_html_table_escapes_user_text():
    sym = symbol_expr("s0")
    gs = GuardSet.of([Guard.of(ge(sym, 2), origin="<b>model.py</b>:3 & more")], {sym: Source.size(HOSTILE_NAME, 0)})
    page = gs._repr_html_()
    assert "<script>" not in page and "<b>" not in page
    assert "&lt;script&gt;" in page and "&lt;b&gt;model.py&lt;/b&gt;:3 &amp; more" in page
    headers = re.findall(r"<th>(.*?)</th>", page)
    assert headers == ["#", "guard (torch)", "sympy", "sources", "origin"]
    cells = re.findall(r"<td>(.*?)</td>", page)
    assert cells[2] == "<code>s0 &gt;= 2</code>"
    assert cells[3].startswith("s0 = &lt;script&gt;")


def test_html_of_an_empty_set():
    assert "no guards" in GuardSet.of()._repr_html_()


def test_latex_escapes_user_text():
    gs = GuardSet.of([ge(s0, 2), eq(s1, s0)], {s0: Source.size(HOSTILE_NAME, 0), s1: Y0})
    latex = gs._repr_latex_()
    assert latex.startswith("$") and latex.endswith("$")
    body = latex[1:-1]
    assert re.search(r"(?<!\\)\$", body) is None  # no unescaped $ inside
    assert body.count("{") - body.count(r"\{") == body.count("}") - body.count(r"\}")  # braces balance
    assert r"\wedge" in body and "s_{1}" in body and r"\texttt{y.size()[0]}" in body


@pytest.mark.parametrize(
    "text, expected",
    [
        ("x.size()[0]", r"\texttt{x.size()[0]}"),
        ("a_b", r"\texttt{a}\_\texttt{b}"),
        ("{$}", r"\{\$\}"),
        ("\\", r"\backslash "),
        ("%&#", r"\%\&\#"),
        ("~^", r"\sim \hat{}"),
        ("\n", r"\texttt{?}"),
        ("\u00e9", r"\texttt{\u00e9}".replace("\\u00e9", "\u00e9")),
    ],
)
def test_latex_text(text, expected):
    assert latex_text(text) == expected


def test_render_functions_take_plain_parts():
    guards = [Guard.of(eq(s0, 3))]
    assert "L[&#x27;x&#x27;].size()[0] == 3" in render_html(guards, SOURCES)
    assert r"s_{0} = 3" in render_latex(guards, SOURCES)
