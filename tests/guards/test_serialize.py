"""Tests of the JSON form of guard sets and value ranges (guards/text/serialize.py, GuardSet.to_json/from_json)."""

from __future__ import annotations

import json
import math

import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from guards import Guard, GuardParseError, GuardSet, GuardTypeError, Source, ranges_from_json, ranges_to_json
from guards.text.serialize import FORMAT, decode_guards, encode_guards
from symint.build import and_, eq, floordiv, ge, le, lt, mod, ne, or_, symbol_expr, truediv
from tests.guards.test_printers import bool_exprs
from valueranges import ValueRanges

s0, s1, s2, n = (symbol_expr(x) for x in ("s0", "s1", "s2", "n"))
INF = math.inf

# -- value ranges: (range, its JSON) -----------------------------------------------------------------------------

RANGES = [
    (ValueRanges.of(0, INF), {"lower": 0, "upper": "oo"}),
    (ValueRanges.of(-INF, INF), {"lower": "-oo", "upper": "oo"}),
    (ValueRanges.of(-INF, -5), {"lower": "-oo", "upper": -5}),
    (ValueRanges.exact(7), {"lower": 7, "upper": 7}),
    (ValueRanges.of(1.5, 2.25), {"lower": 1.5, "upper": 2.25}),
    (ValueRanges.of(-(10**40), 10**40), {"lower": -(10**40), "upper": 10**40}),
    (ValueRanges.unknown_bool(), {"lower": False, "upper": True, "is_bool": True}),
    (ValueRanges.true(), {"lower": True, "upper": True, "is_bool": True}),
]


@pytest.mark.parametrize("rng, data", RANGES)
def test_ranges_json(rng, data):
    assert ranges_to_json(rng) == data
    back = ranges_from_json(json.loads(json.dumps(data)))
    assert back == rng
    assert (type(back.lower), type(back.upper), back.is_bool) == (type(rng.lower), type(rng.upper), rng.is_bool)


@pytest.mark.parametrize(
    "data, words",
    [
        ({"lower": 0}, "expected"),
        ([0, 1], "expected"),
        ({"lower": "inf", "upper": 1}, "range end"),
        ({"lower": 0, "upper": float("nan")}, "range end"),
        ({"lower": 0, "upper": None}, "range end"),
        ({"lower": 5, "upper": 3}, "5"),
        ({"lower": "oo", "upper": "oo"}, "oo"),
        ({"lower": False, "upper": True}, "is_bool"),
        ({"lower": 0, "upper": 1, "is_bool": True}, "is_bool"),
        ({"lower": False, "upper": 3}, "is_bool"),
        ({"lower": 0, "upper": 1, "is_bool": "yes"}, "is_bool"),
    ],
)
def test_bad_ranges(data, words):
    with pytest.raises(GuardParseError, match=words):
        ranges_from_json(data)


# -- guard sets ----------------------------------------------------------------------------------------------------

X0 = Source.size("x", 0)
GUARD_SETS = {
    "empty": GuardSet.of(),
    "torch-like": GuardSet.of(
        [Guard.of(eq(s0, s1), "model.py:3 in cat"), Guard.of(and_(le(2, s0), le(s0, 1024))), Guard.of(eq(mod(s2, 8), 0), "")],
        {s0: X0, s1: Source.size("y", 0), s2: Source.stride("x", 1)},
    ),
    "values and no sources": GuardSet.of([lt(n, 5), ne(floordiv(s0, 2), n)], {n: Source.value("n")}),
    "custom domain": GuardSet.of(
        [ge(s0, 3), lt(truediv(s0, s1), 2)],
        {s0: X0, s1: Source("x", "numel")},
        {s0: ValueRanges.of(2, 64), s1: ValueRanges.of(-INF, INF), n: ValueRanges.of(0.5, 7.5)},
    ),
    "empty domain": GuardSet.of([ge(s0, 3)], {s0: X0}, {}),
    "hostile names": GuardSet.of(
        [Guard.of(ge(s0, 2), "<script>'\"\n"), Guard.of(ge(s1, 2))],
        {s0: Source.size("'); import os; ('\n\"", 0), s1: Source.value("L['y']")},
    ),
    "always false": GuardSet.of([sympy.false]),
}


@pytest.mark.parametrize("name", list(GUARD_SETS))
def test_json_round_trip_is_exact(name):
    gs = GUARD_SETS[name]
    back = GuardSet.from_json(gs.to_json())
    assert back == gs
    assert (back.guards, back.sources, back.domain) == (gs.guards, gs.sources, gs.domain)
    assert [g.origin for g in back] == [g.origin for g in gs]


def test_json_document_layout():
    data = json.loads(GUARD_SETS["torch-like"].to_json())
    assert data["format"] == FORMAT == "guardset/v1"
    assert data["guards"][0] == {"expr": "Eq(s0, s1)", "origin": "model.py:3 in cat"}
    assert data["guards"][2] == {"expr": "Eq(Mod(s2, 8), 0)", "origin": ""}
    assert data["sources"] == {
        "s0": {"base": "x", "kind": "size", "index": 0},
        "s1": {"base": "y", "kind": "size", "index": 0},
        "s2": {"base": "x", "kind": "stride", "index": 1},
    }
    assert data["domain"]["s0"] == {"lower": 0, "upper": "oo"}


def test_missing_domain_means_the_default_and_missing_sources_come_from_text():
    gs = GuardSet.from_json(json.dumps({"guards": ["L['x'].size()[0] >= 2", {"expr": "Eq(s9, 3)", "origin": "a"}]}))
    assert gs.exprs == (ge(s0, 2), eq(symbol_expr("s9"), 3))
    assert gs.source_map == {s0: X0}
    assert gs.domain_map == {s0: ValueRanges.of(0, INF)}


def test_torch_text_in_json_reuses_stored_sources():
    doc = {"guards": ["L['x'].size()[0] >= 2", "L['y'].size()[0] == s0"], "sources": {"s0": {"base": "x", "kind": "size", "index": 0}}}
    guards, sources, domain = decode_guards(doc)
    assert [g.expr for g in guards] == [ge(s0, 2), eq(s1, s0)]
    assert sources == {"s0": X0, "s1": Source.size("y", 0)}  # by name, as GuardSet.of takes them
    assert domain is None


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(bool_exprs, max_size=4), st.dictionaries(st.sampled_from([s0, s1, s2]), st.sampled_from([X0, Source.value("n")])))
def test_json_round_trip_property(exprs, sources):
    gs = GuardSet.of([Guard.of(e, f"line {i}") for i, e in enumerate(exprs)], sources)
    back = GuardSet.from_json(gs.to_json())
    assert back == gs and back.sources == gs.sources and back.domain == gs.domain
    assert [g.origin for g in back] == [g.origin for g in gs]


@pytest.mark.parametrize(
    "text, words",
    [
        ("{", "malformed JSON"),
        ('{"guards": [}', "malformed JSON"),
        ("[]", "'guards' list"),
        ('{"guards": "s0 > 1"}', "'guards' list"),
        ('{"format": "guardset/v9", "guards": []}', "unsupported guard set format"),
        ('{"guards": [3]}', "guard #1"),
        ('{"guards": [{"expr": "s0 > 1", "origin": 3}]}', "guard #1"),
        ('{"guards": ["s0 > 1", ""]}', "guard #2"),
        ('{"guards": ["s0 > 1\\ns1 > 2"]}', "one non-empty line"),
        ('{"guards": ["# only a comment"]}', "only a comment"),
        ('{"guards": ["s0 >"]}', "line 1"),
        ('{"guards": [], "sources": []}', "'sources'"),
        ('{"guards": [], "sources": {"s 0": {"base": "x"}}}', "identifiers"),
        ('{"guards": [], "sources": {"s0": {"base": "x", "kind": "shape", "index": 0}}}', "unknown source kind"),
        ('{"guards": [], "sources": {"s0": {"base": "x", "kind": "size"}}}', "needs an index"),
        ('{"guards": [], "sources": {"s0": "x.size()[0]"}}', "expected"),
        ('{"guards": [], "domain": {"s0": [0, 1]}}', "domain"),
        ('{"guards": [], "domain": []}', "'domain'"),
        ("[" * 100_000 + "]" * 100_000, "JSON"),
    ],
)
def test_bad_json(text, words):
    with pytest.raises(GuardParseError, match=words):
        GuardSet.from_json(text)


def test_malformed_json_reports_line_and_column():
    with pytest.raises(GuardParseError) as info:
        GuardSet.from_json('{\n  "guards": [\n    "s0 > 1",\n  ]\n}')
    assert (info.value.line, info.value.column) == (4, 3)


def test_non_boolean_guard_in_json():
    with pytest.raises(GuardTypeError, match="line 1"):
        GuardSet.from_json('{"guards": ["s0 + 1"]}')


def test_encode_refuses_what_would_not_read_back():
    plain = sympy.Symbol("s0")  # not an integer symbol from symint.build: text would read back as another symbol
    with pytest.raises(GuardTypeError, match="round trip"):
        encode_guards([Guard.of(plain > 1)], {}, {})
    with pytest.raises(GuardTypeError):
        GuardSet.of([sympy.Lt(s0, sympy.oo, evaluate=False)]).to_json()


def test_float_guard_with_an_unexpanded_integer_part_round_trips():
    # A float guard keeps sympy; its integer part is the view of its form, which the parser
    # (building integers as forms) reads back to (Note [Opaque guards are canonical in their
    # integer parts] in guards/guard.py). Found by test_json_round_trip_property.
    from symint.build import add, neg, pow_

    gs = GuardSet.of([lt(truediv(s0, neg(pow_(add(s0, s1), 2))), 1)])
    assert gs.guards[0].form.kind == "opaque"
    back = GuardSet.from_json(gs.to_json())
    assert back == gs and back.to_text("sympy") == gs.to_text("sympy")


def test_a_connective_with_a_relation_kept_as_written_round_trips():
    # ``1 != 2*s0`` folds to True over the integers and is kept as written (it names s0); the
    # connective around it is rebuilt from its operands, as the parser reads its text (found by
    # hypothesis: the whole ``or`` was kept opaque, its text read back as an ``or`` of two).
    for cond, kind in ((or_(eq(s0, s1), ne(1, 2 * s0)), "or"), (and_(eq(s0, s1), eq(1, 2 * s0)), "and")):
        gs = GuardSet.of([Guard.of(cond, "here")], {s0: X0})
        back = GuardSet.from_json(gs.to_json())
        assert back == gs and [g.form.kind for g in back] == [kind]
