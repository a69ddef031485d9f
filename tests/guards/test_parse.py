"""Tests of the safe guard parser (guards/text/lexer.py, guards/text/parse.py) and of reading guard files.

Expected expressions are built independently with ``symint.build``; error cases
check the typed error, the 1-based column and the offending fragment.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import sympy

from guards import Guard, GuardParseError, GuardSet, GuardTypeError, Source, load_guards, parse_guard, parse_guards, parse_source
from guards.text.parse import MAX_DEPTH, parse_expression, parse_guards_text
from symint.build import (abs_, add, and_, as_expr, ceildiv, eq, floordiv, ge, gt, ite, le, lt, max_, min_, mod, mul,
                          ne, neg, not_, or_, pow_, sub, symbol_expr, truediv)
from symint.form import BoolForm, Form
from symint.sympy_io import NotAnIntegerForm, from_sympy
from symint.sympy_io.functions import CeilToInt, FloorToInt
from valueranges import ValueRanges

s0, s1, s2, a, b, c, n = (symbol_expr(x) for x in ("s0", "s1", "s2", "a", "b", "c", "n"))


def canonical(value):
    """What a parsed value is compared by: its guard (conditions) or its form (numbers); built
    the same way from the parser's forms and from the expected sympy, built independently."""
    if isinstance(value, (tuple, list)):
        return tuple(canonical(v) for v in value)
    if isinstance(value, (BoolForm, sympy.logic.boolalg.Boolean)) and not isinstance(value, sympy.Symbol):
        return Guard.of(value)
    if isinstance(value, Form):
        return value
    try:
        return from_sympy(value)
    except NotAnIntegerForm:
        return value  # a float stays sympy
W2 = Path(__file__).resolve().parents[2] / "benchmarks" / "workloads" / "w2_guards.json"

# -- valid text: (text, expected expression, expected sources) ----------------------------------------------

SYMPY_STYLE = [
    ("Eq(s0, s1)", eq(s0, s1)),
    ("Ne(Mod(s0, 2), 0)", ne(mod(s0, 2), 0)),
    ("s0 >= 2", ge(s0, 2)),
    ("2*s0 <= s1 + 3", le(mul(2, s0), add(s1, 3))),
    ("s0 // 2 == 1", eq(floordiv(s0, 2), 1)),
    ("Max(s0, 4) > s1", gt(max_(s0, 4), s1)),
    ("Min(s0, s1, 3) < 2", lt(min_(min_(s0, s1), 3), 2)),
    ("FloorDiv(s0, s1) == CeilDiv(s1, 3)", eq(floordiv(s0, s1), ceildiv(s1, 3))),
    ("PowByNatural(s0, 3) != s0 ** 2", ne(pow_(s0, 3), pow_(s0, 2))),
    ("PowByNatural(s0, s1) > 1", gt(pow_(s0, s1), 1)),
    ("Lt(s0, 3)", lt(s0, 3)),
    ("Le(s0, 3)", le(s0, 3)),
    ("Gt(s0, 3)", gt(s0, 3)),
    ("Ge(s0, 3)", ge(s0, 3)),
    ("And(s0 > 1, Or(s1 < 2, Not(Eq(s0, s1))))", and_(gt(s0, 1), or_(lt(s1, 2), not_(eq(s0, s1))))),
    ("(s0 > 1) & (s1 < 2) | ~(s0 < 5)", or_(and_(gt(s0, 1), lt(s1, 2)), not_(lt(s0, 5)))),
    ("True", sympy.true),
    ("False", sympy.false),
    ("-s0 < -(s1 - 2)", lt(neg(s0), neg(sub(s1, 2)))),
    ("+s0 > 0", gt(s0, 0)),
    ("s0 / 2 > 1", gt(truediv(s0, 2), 1)),
    ("s0 % 3 != s1", ne(mod(s0, 3), s1)),
    # A symbolic exponent is Python's `**` (sympy's Pow: a float when negative), unless it is a size.
    ("2 ** s0 >= s1", ge(sympy.Pow(2, s0), s1)),
    ("-s0 ** 2 < 0", lt(neg(pow_(s0, 2)), 0)),
    ("2 ** -1 < s0", lt(pow_(2, -1), s0)),
    ("s0 ** 2 ** 2 > 1", gt(pow_(s0, 4), 1)),
    ("s0 - s1 - s2 == 0", eq(sub(sub(s0, s1), s2), 0)),
    ("s0 // 2 * 3 == s1", eq(mul(floordiv(s0, 2), 3), s1)),
    ("s0 * 3 // 2 == s1", eq(floordiv(mul(s0, 3), 2), s1)),
    ("s0 // s1 // 3 == 0", eq(floordiv(floordiv(s0, s1), 3), 0)),
    ("IfThenElse(s0 > 2, s1, 3) == 3", eq(ite(gt(s0, 2), s1, 3), 3)),
    ("Identity(s0) == 3", eq(s0, 3)),
    ("Abs(s0 - s1) <= 1", le(abs_(sub(s0, s1)), 1)),
    ("Eq(s0 < 2, s1 < 3)", eq(lt(s0, 2), lt(s1, 3))),
    ("Ne(s0 < 2, True)", ne(lt(s0, 2), True)),
    ("s0 >= 1.5", ge(s0, as_expr(1.5))),
    ("s0 * 2.5e1 >= 0", ge(mul(s0, as_expr(25.0)), 0)),
    ("FloorToInt(s0 / 3) < 2", lt(FloorToInt(truediv(s0, 3)), 2)),
    ("Max(s0,) > 0", gt(s0, 0)),
    ("  s0   >=2  # a comment", ge(s0, 2)),
    ("L > 2", gt(symbol_expr("L"), 2)),  # a bare L is a symbol like any other
    ("Max > 2", gt(symbol_expr("Max"), 2)),  # so is a function name that is not called
    ("2 <= a <= 1024", and_(le(2, a), le(a, 1024))),
    ("a < b < c", and_(lt(a, b), lt(b, c))),
    ("1 < 2 < a", lt(2, a)),
    ("not a < 3 and (a > 5 or a == 4)", and_(ge(a, 3), or_(gt(a, 5), eq(a, 4)))),
    ("not (a < 3 and b < 3)", not_(and_(lt(a, 3), lt(b, 3)))),
    ("a < 3 or b < 3 and c < 3", or_(lt(a, 3), and_(lt(b, 3), lt(c, 3)))),
    ("torch.sym_max(a, 3) == torch.sym_min(b, 8)", eq(max_(a, 3), min_(b, 8))),
    ("sym_max(a, b) == max(a, b, 3)", eq(max_(a, b), max_(max_(a, b), 3))),
    ("math.floor(a / 3) <= math.ceil(b / 2)", le(FloorToInt(truediv(a, 3)), CeilToInt(truediv(b, 2)))),
    ("PythonMod(a, 4) == 0", eq(mod(a, 4), 0)),
]

X0, Y0 = Source.size("x", 0), Source.size("y", 0)
TORCH_STYLE = [
    ("L['x'].size()[0] == L['y'].size()[0]", eq(s0, s1), {s0: X0, s1: Y0}),
    ("L['y'].size()[0] == L['x'].size()[0]", eq(s0, s1), {s0: Y0, s1: X0}),  # named by first appearance
    ("2 <= L['x'].size()[0]", le(2, s0), {s0: X0}),
    ("(L['x'].size()[0] % 8) == 0", eq(mod(s0, 8), 0), {s0: X0}),
    ("L['x'].size()[0] // 2 != 1", ne(floordiv(s0, 2), 1), {s0: X0}),
    ("L['x'].stride()[0] == L['x'].size()[1]", eq(s0, s1), {s0: Source.stride("x", 0), s1: Source.size("x", 1)}),
    ("L['x'].storage_offset() == 0", eq(s0, 0), {s0: Source("x", "storage_offset")}),
    ("L['x'].numel() >= 4", ge(s0, 4), {s0: Source("x", "numel")}),
    ("L['n'] == 3", eq(s0, 3), {s0: Source.value("n")}),
    ('L["n"] == 3', eq(s0, 3), {s0: Source.value("n")}),
    ("2 <= L['x'].size()[0] <= 1024", and_(le(2, s0), le(s0, 1024)), {s0: X0}),
    ("2 <= L['x'].size()[0] and L['x'].size()[0] <= 1024", and_(le(2, s0), le(s0, 1024)), {s0: X0}),
    ("Eq(L['x'].size()[0], 4)", eq(s0, 4), {s0: X0}),
    ("CeilToInt(IntTrueDiv(L['x'].size()[0], 2)) >= 3", ge(CeilToInt(truediv(s0, 2)), 3), {s0: X0}),
    ("PythonMod(L['x'].size()[0], 4) == 0", eq(mod(s0, 4), 0), {s0: X0}),
    ("torch.sym_max(L['x'].size()[0], 3) == 4", eq(max_(s0, 3), 4), {s0: X0}),
    ("not L['x'].size()[0] == 1 or L['y'].size()[0] > 2", or_(ne(s0, 1), gt(s1, 2)), {s0: X0, s1: Y0}),
    # our dialect, and the same source in several spellings
    ("x.size()[0] == y.size()[0]", eq(s0, s1), {s0: X0, s1: Y0}),
    ("x.shape[0] == L['x'].size()[0] + x.size(0) - x.size()[0]", sympy.true, {s0: X0}),
    ("x.stride()[1] == x.stride(0)", eq(s0, s1), {s0: Source.stride("x", 1), s1: Source.stride("x", 0)}),
    ("x.storage_offset() + x.numel() > 0", gt(add(s0, s1), 0), {s0: Source("x", "storage_offset"), s1: Source("x", "numel")}),
    ("torch.size()[0] > 1", gt(s0, 1), {s0: Source.size("torch", 0)}),  # an input may be called torch
    # names with quotes, newlines and odd characters
    ("L[\"x'y\"].size()[0] > 1", gt(s0, 1), {s0: Source.size("x'y", 0)}),
    ("L['x\\'y'].size()[0] > 1", gt(s0, 1), {s0: Source.size("x'y", 0)}),
    ("L['a\\nb'].size()[0] > 1", gt(s0, 1), {s0: Source.size("a\nb", 0)}),
    ("L['\\x41\\u00e9\\U0001F600\\\\'].size()[0] > 1", gt(s0, 1), {s0: Source.size("A\u00e9\U0001F600\\", 0)}),
    ("L['#'].size()[0] > 1  # the first # is in a name", gt(s0, 1), {s0: Source.size("#", 0)}),
    ("L['self.w'].size()[0] > 1", gt(s0, 1), {s0: Source.size("self.w", 0)}),
    # a generated name never captures a bare symbol of the text
    ("L['x'].size()[0] == s0", eq(s1, s0), {s1: X0}),
    ("L['x'].size()[0] == s0 + s1 + s3", eq(s2, add(add(s0, s1), symbol_expr("s3"))), {s2: X0}),
]


@pytest.mark.parametrize("text, expected", SYMPY_STYLE)
def test_sympy_style(text, expected):
    got = parse_guard(text)
    assert canonical(got) == canonical(expected), f"{text!r}: expected {expected}, got {got}"


@pytest.mark.parametrize("text, expected, sources", TORCH_STYLE)
def test_torch_style_and_sources(text, expected, sources):
    parsed = parse_guards_text([text])
    assert canonical(parsed.forms) == canonical((expected,)), f"{text!r}: expected {expected}, got {parsed.exprs}"
    assert parsed.source_map == sources, f"{text!r}: expected sources {sources}, got {parsed.source_map}"


def test_caller_symbols_are_reused_and_skipped_when_naming():
    # s0 is taken by the caller, so y's size becomes s1 (never s0).
    parsed = parse_guards_text(["L['x'].size()[0] == L['y'].size()[0]"], symbols={s0: X0})
    assert canonical(parsed.forms) == canonical((eq(s0, s1),))
    assert parsed.source_map == {s0: X0, s1: Y0}
    assert canonical(parse_guard("x.shape[0] >= 2", {n: X0})) == canonical(ge(n, 2))


def test_names_are_reserved_across_lines():
    # the bare s0 on line 2 must not be captured by the source met first on line 1
    parsed = parse_guards_text("L['x'].size()[0] >= 2\ns0 <= 7")
    assert canonical(parsed.forms) == canonical((ge(s1, 2), le(s0, 7)))
    assert parsed.source_map == {s1: X0}


def test_same_text_same_symbols():
    text = ["L['b'].size()[1] == L['a'].size()[0]", "L['a'].size()[0] >= 2"]
    assert parse_guards_text(text) == parse_guards_text(text)


@pytest.mark.parametrize(
    "dialect, text, expected, sources",
    [
        ("source", "n + x.size()[0] > 3", gt(add(s0, s1), 3), {s0: Source.value("n"), s1: X0}),
        ("sympy", "n + s0 > 3", gt(add(n, s0), 3), {}),
        ("torch", "L['n'] > 3", gt(s0, 3), {s0: Source.value("n")}),
        ("auto", "n > 3", gt(n, 3), {}),
    ],
)
def test_dialects(dialect, text, expected, sources):
    parsed = parse_guards_text([text], dialect=dialect)
    assert (canonical(parsed.forms), parsed.source_map) == (canonical((expected,)), sources), f"{dialect}: {text!r}"


def test_sympy_dialect_rejects_sources():
    with pytest.raises(GuardParseError) as info:
        parse_guard("s0 == L['x'].size()[0]", dialect="sympy")
    assert (info.value.column, info.value.fragment) == (7, "L")


def test_unknown_dialect():
    with pytest.raises(ValueError, match="dialect"):
        parse_guard("s0 > 1", dialect="python")  # type: ignore[arg-type]


def test_parse_expression_allows_numbers():
    assert canonical(parse_expression("x.size()[0] * 2 + n")) == canonical(add(mul(s0, 2), n))


# -- invalid text: (text, column, fragment, words in the message) ---------------------------------------------

PARSE_ERRORS = [
    ("s0 +", 5, "", "expected a value"),
    ("Eq(s0, s1", 10, "", "close the arguments"),
    ("s0 >= 2)", 8, ")", "unexpected text"),
    ("s0 = 1", 4, "=", "=="),
    ("s0 >> 1", 5, ">", "expected a value"),
    ("2s0 > 1", 1, "2s", "runs into a name"),
    ("s0 > 'x'", 6, "'x'", "string"),
    ("L[x].size()[0] > 1", 3, "x", "quoted input name"),
    ("L['x'].size()[-1] > 1", 15, "-", "negative"),
    ("L['x'].__foo > 1", 8, "__foo", "'__'"),
    ("L['x'].size() > 1", 15, ">", "'['"),
    ("L['x'].size()[0][1] > 1", 17, "[", "unsupported source"),
    ("x[y] > 1", 3, "y", "integer index"),
    ("s0 > 1 s1", 8, "s1", "missing operator"),
    ("Foo(s0) > 1", 1, "Foo", "known functions"),
    ("torch.foo(s0) > 1", 1, "torch", "known functions"),
    ("if s0 else s1", 1, "if", "keyword"),
    ("None == s0", 1, "None", "keyword"),
    ("L[''] > 1", 3, "''", "empty"),
    ("L['x > 1", 3, "'x > 1", "unterminated"),
    ("L['x\\q'] > 1", 5, "\\q", "escape"),
    ("L['\\x4'] > 1", 4, "\\x4'", "hex"),
    ("s0 @ s1 > 1", 4, "@", "matrix"),
    ("s0 > 1; s1 < 2", 7, ";", "one guard per line"),
    ("s0 > 1\ns1 < 2", 7, "\n", "one guard per line"),
    ("s\u00e9 > 1", 2, "\u00e9", "unexpected character"),
    ("s0 // 0 > 1", 4, "//", "division by zero"),
    ("Mod(s0, 0) > 1", 1, "Mod", "division by zero"),
    ("2 ** 100000 > s0", 3, "**", "too large"),
    ("s0 ** 100000 > 1", 4, "**", "too large"),
    ("1" * 1001 + " > s0", 1, "1" * 1001, "too long"),
    ("(s0 > 1)(2)", 9, "(", "apply only to inputs"),
    ("(s0).size()[0] > 1", 5, ".", "apply only to inputs"),
    ("s0 == not s1", 7, "not", "parenthesized"),
    ("", 1, "", "empty guard"),
    ("# only a comment", 17, "", "empty guard"),
    ("__class__ > 1", 1, "__class__", "'__'"),
]


@pytest.mark.parametrize("text, column, fragment, words", PARSE_ERRORS)
def test_parse_errors(text, column, fragment, words):
    with pytest.raises(GuardParseError) as info:
        parse_guard(text)
    err = info.value
    assert (err.column, err.fragment) == (column, fragment), f"{text!r}: {err}"
    assert words in str(err), f"{text!r}: {err}"
    assert err.text == text


def test_caret_points_at_the_column():
    with pytest.raises(GuardParseError) as info:
        parse_guard("s0 >= 2 +* 3")
    *_, shown, caret = str(info.value).splitlines()
    assert shown.strip() == "s0 >= 2 +* 3"
    assert caret.index("^") - shown.index("s") == info.value.column - 1 == 9


TYPE_ERRORS = [
    ("s0 + 1", "not a condition"),
    ("s0", "not a condition"),
    ("s0 > 2 & s1 < 3", "(a < b) & (c < d)"),
    ("(s0 < 1) + 1", "needs a number"),
    ("not s0", "needs a boolean"),
    ("~s0 > 1", "needs a boolean"),
    ("Mod(s0 < 1, 2) == 0", "Mod takes numbers"),
    ("And(s0, s1 < 1)", "And takes booleans"),
    ("Eq(s0)", "takes 2 argument"),
    ("IfThenElse(s0, 1, 2) > 0", "a boolean then two numbers"),
    ("(s0 < 1) < (s1 < 2)", "cannot order booleans"),
    ("(s0 < 1) == 1", "compares a boolean with a number"),
    ("True + 1 > 0", "needs a number"),
    ("s0 and s1", "needs a boolean"),
    ("abs(a) == sym_not(a < 0) | False", "compares a boolean with a number"),
    ("PowByNatural(s0, -1) > 0", "exponent"),
]


@pytest.mark.parametrize("text, words", TYPE_ERRORS)
def test_type_errors(text, words):
    with pytest.raises(GuardTypeError) as info:
        parse_guard(text)
    assert words in str(info.value), f"{text!r}: {info.value}"


# -- hostile input ---------------------------------------------------------------------------------------------

HOSTILE = [
    "__import__('os').system('touch /tmp/guards_pwned')",
    "__import__('pathlib').Path('/tmp/guards_pwned').touch() or True",
    "L['x'].__class__",
    "L['x'].__class__.__base__.__subclasses__()",
    "L['x'].size.__globals__ == 1",
    "L['x'].size()[0].__add__(1) == 2",
    "s0.__class__ == 1",
    "().__class__ == 1",
    "[c for c in ()] == 1",
    "lambda: open('/tmp/guards_pwned', 'w')",
    "eval('1') == 1",
    "exec('x') == 1",
    "getattr(s0, 'x') == 1",
    "open('/tmp/guards_pwned', 'w') == 1",
    "f'{s0}' == 1",
    "b'x' == 1",
    "L['x'][0].__class__ > 1",
    "G['x'].__dict__ > 1",
    "L['x'].size()[0] if True else 1",
    "s0 if s0 else s1",
    "s0 is s1",
    "s0 in s1",
    "{s0} == 1",
    "s0 := 1",
    "yield s0",
    "\\\n s0 > 1",
    "s0 > 1 #\n__import__('os')",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_input_is_refused_without_running_anything(text):
    marker = Path("/tmp/guards_pwned")
    marker.unlink(missing_ok=True)
    with pytest.raises((GuardParseError, GuardTypeError)):
        parse_guard(text)
    with pytest.raises((GuardParseError, GuardTypeError)):
        parse_guards([text] if "\n" not in text else text)
    assert not marker.exists()


def test_code_inside_a_name_is_just_a_name():
    text = "L['\\'); __import__(\"os\").system(\"touch /tmp/guards_pwned\"); (\\''].size()[0] > 1"
    Path("/tmp/guards_pwned").unlink(missing_ok=True)
    gs = parse_guards([text])
    (src,) = gs.source_map.values()
    assert src == Source.size("'); __import__(\"os\").system(\"touch /tmp/guards_pwned\"); ('", 0)
    assert not Path("/tmp/guards_pwned").exists()
    assert parse_guards(gs.to_text()) == gs  # and it prints back safely


def _timed(fn, limit_s: float):
    """Run ``fn``. ``limit_s`` documents the expected order of magnitude; timing is not asserted
    (machines are noisy; benchmarks/ is where speed is measured)."""
    return fn()


def test_long_line_of_terms():
    text = "s0 + " * 20_000 + "1 > 0"  # 100k characters
    assert len(text) >= 100_000
    assert canonical(_timed(lambda: parse_guard(text), 10)) == canonical(gt(add(mul(20_000, s0), 1), 0))


def test_long_line_of_conditions():
    text = " and ".join(f"L['x'].size()[{i}] >= {i}" for i in range(1, 1500))
    expr = _timed(lambda: parse_guard(text), 10)
    assert len(expr.args) == 1499


@pytest.mark.parametrize(
    "text, words",
    [
        ("9" * 100_000 + " > s0", "integer literal too long"),
        ("a" * 100_000 + " > 1", "name too long"),
        ("L['" + "x" * 100_000 + "'].size()[0] > 1", None),  # a long name in a string is fine
        ("(" * 10_000 + "s0" + ")" * 10_000 + " > 1", "nested too deeply"),
        ("-" * 100_000 + "s0 > 1", "nested too deeply"),
        ("not " * 25_000 + "s0 > 1", "nested too deeply"),
        ("Max(" * 10_000 + "s0" + ")" * 10_000 + " > 1", "nested too deeply"),
        ("2 " + "** 2 " * 20_000 + "> s0", "nested too deeply"),
        ("s0" + " // 2" * 20_000 + " > 1", "chained divisions"),
        ("s0" + " " * 300_000 + "> 1", "line too long"),
    ],
    ids=["long-literal", "long-name", "long-quoted-name", "parens", "minus", "not", "calls", "powers", "divisions", "long-line"],
)
def test_huge_input_is_bounded(text, words):
    if words is None:
        assert canonical(_timed(lambda: parse_guard(text), 5)) == canonical(gt(s0, 1))
        return
    with pytest.raises(GuardParseError, match=words):
        _timed(lambda: parse_guard(text), 5)


def test_nesting_just_under_the_limit_parses():
    depth = MAX_DEPTH - 1
    text = "(" * depth + "s0" + " + 1)" * depth + " > 0"
    assert canonical(parse_guard(text)) == canonical(gt(add(s0, depth), 0))


# -- sources -------------------------------------------------------------------------------------------------------

SOURCES = [
    ("x.size()[0]", Source.size("x", 0)),
    ("L['x'].size()[0]", Source.size("x", 0)),
    ("x.shape[2]", Source.size("x", 2)),
    ("x.size(1)", Source.size("x", 1)),
    ("x.stride()[1]", Source.stride("x", 1)),
    ("L['x'].stride(0)", Source.stride("x", 0)),
    ("x.storage_offset()", Source("x", "storage_offset")),
    ("x.numel()", Source("x", "numel")),
    ("n", Source.value("n")),
    ("L['n']", Source.value("n")),
    ("L", Source.value("L")),
    (" L['a b'] . size ( ) [ 3 ] ", Source.size("a b", 3)),
]


@pytest.mark.parametrize("text, expected", SOURCES)
def test_parse_source(text, expected):
    assert parse_source(text) == expected


@pytest.mark.parametrize("source", [src for _, src in SOURCES])
def test_parse_source_reads_both_printed_forms(source):
    assert parse_source(source.torch_text()) == source
    if source.base.isidentifier():  # Source.text() of "a b" is not a name; printers use L['a b'] there
        assert parse_source(source.text()) == source


@pytest.mark.parametrize("text", ["", "3", "x + 1", "x.size()", "x.size()[0] + 1", "L[0]", "and", "__x", "x.__len__()", "L['']"])
def test_parse_source_errors(text):
    with pytest.raises(GuardParseError):
        parse_source(text)


# -- several lines, files ------------------------------------------------------------------------------------------


def test_lines_comments_and_blank_lines():
    text = "# guards of f\n\nL['x'].size()[0] >= 2   # lower bound\n  \nEq(L['x'].size()[0], L['y'].size()[0])\n"
    parsed = parse_guards_text(text)
    assert parsed.exprs == (ge(s0, 2), eq(s0, s1))
    assert parsed.lines == (3, 5)


def test_errors_report_the_line():
    with pytest.raises(GuardParseError) as info:
        parse_guards("s0 > 1\n# fine\n\ns0 +\n")
    assert (info.value.line, info.value.column) == (4, 5)
    assert "line 4" in str(info.value)
    with pytest.raises(GuardParseError) as info:
        parse_guards("s0 > 1\nL['x > 1")
    assert info.value.line == 2
    with pytest.raises(GuardTypeError, match="line 2"):
        parse_guards(["s0 > 1", "s0 + 1"])


def test_guardset_parse_keeps_sources_and_default_domain():
    gs = GuardSet.parse("L['x'].size()[0] == L['n']\nL['x'].size()[0] >= 2", origin="f.txt")
    assert gs.exprs == (eq(s0, s1), ge(s0, 2))
    assert gs.source_map == {s0: X0, s1: Source.value("n")}
    assert gs.domain_map == {s0: ValueRanges.of(0, math.inf)}  # sizes are >= 0; values unconstrained
    assert [g.origin for g in gs] == ["f.txt:1", "f.txt:2"]


def test_from_file_text_and_json(tmp_path):
    text_file = tmp_path / "g.txt"
    text_file.write_text("# sizes\nL['x'].size()[0] >= 2\n")
    gs = load_guards(text_file)
    assert gs.exprs == (ge(s0, 2),)
    assert gs.guards[0].origin == f"{text_file}:2"
    json_file = tmp_path / "g.json"
    json_file.write_text("\n  " + gs.to_json())
    assert GuardSet.from_file(json_file) == gs
    bad = tmp_path / "bad.txt"
    bad.write_text("s0 > 1\ns0 >\n")
    with pytest.raises(GuardParseError) as info:
        load_guards(bad)
    assert info.value.line == 2


# -- the W2 workload -------------------------------------------------------------------------------------------------


class _Tensor:
    """A contiguous tensor stand-in: ``shape`` and ``stride()`` as torch has them."""

    def __init__(self, shape):
        self.shape = tuple(shape)

    def stride(self):
        strides, acc = [], 1
        for size in reversed(self.shape):
            strides.append(acc)
            acc *= size
        return tuple(reversed(strides))


def _contiguous_strides(shape):
    return [math.prod(shape[i + 1 :]) for i in range(len(shape))]


@pytest.fixture(scope="module")
def w2():
    return json.loads(W2.read_text())


def test_w2_guards_parse(w2):
    gs = parse_guards(w2["guards"])
    assert len(w2["guards"]) == len(gs) == 19
    assert {src.base for src in gs.source_map.values()} == {"q", "k", "past_k", "mask", "w_o"}
    # the bound guard reads as one guard with both ends
    q2 = next(sym for sym, src in gs.sources if src == Source.size("q", 2))
    assert and_(le(2, q2), le(q2, 512)) in gs.exprs


def test_w2_verdicts(w2):
    gs = parse_guards(w2["guards"])
    verdicts = []
    for inputs in w2["input_sets"]:
        shapes = inputs["shapes"]
        bindings = {}
        for _, src in gs.sources:
            shape = shapes[src.base]
            bindings[src] = shape[src.index] if src.kind == "size" else _contiguous_strides(shape)[src.index]
            assert bindings[src] == src.read(_Tensor(shape))
        verdicts.append(gs.holds(bindings))
    assert verdicts == w2["expected_verdicts"]


def test_w2_one_line_expression_matches_the_guard_list(w2):
    # The same guards as one `and` expression, over inputs renamed t0..t5.
    gs = parse_guards(w2["guards"])
    names = {name: f"t{i}" for i, name in enumerate(w2["input_names"])}
    renamed = {sym: Source(names[src.base], src.kind, src.index) for sym, src in gs.sources}
    assert canonical(parse_guard(w2["guards_expression_t_names"], renamed)) == canonical(and_(*gs.exprs))


def test_w2_reads_as_a_json_guard_file(w2):
    assert GuardSet.from_json(W2.read_text()) == parse_guards(w2["guards"])
