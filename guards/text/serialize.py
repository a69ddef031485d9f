"""JSON form of guard sets and value ranges.

A guard set is stored as::

    {
      "format": "guardset/v1",
      "guards": [{"expr": "Eq(s0, s1)", "origin": "model.py:12"}, {"expr": "s0 >= 2"}],
      "sources": {"s0": {"base": "x", "kind": "size", "index": 0}, ...},
      "domain": {"s0": {"lower": 0, "upper": "oo"}, ...}
    }

Guards are sympy-style text (read back by the safe parser), sources are
structured, and infinite range ends are the strings ``"oo"`` / ``"-oo"``. The
encoder checks that every guard text parses back to the very same expression,
so a stored guard set always loads as an equal one (same guards, sources,
domain and origins). When reading, a guard may also be a plain string, and
``sources`` and ``domain`` may be left out (sources are then taken from the
guard text, e.g. torch's ``L['x'].size()[0]``, and the domain is the default);
this reads the workload files in ``w2-guards`` format too.

This module works on the parts of a guard set (guards, sources, domain), so that
:class:`~guards.guardset.GuardSet` can build on it without an import cycle.

>>> import math
>>> from valueranges import ValueRanges
>>> ranges_to_json(ValueRanges.of(2, math.inf))
{'lower': 2, 'upper': 'oo'}
>>> ranges_from_json({"lower": "-oo", "upper": 7}) == ValueRanges.of(-math.inf, 7)
True
"""

from __future__ import annotations

import json
import math
from typing import Any, Mapping, Sequence

from symint.lazy_sympy import sympy

from valueranges import ValueRangeError, ValueRanges

from guards.errors import GuardParseError, GuardTypeError
from guards.guard import Guard, form_key
from guards.text.parse import parse_guards_text
from guards.validate import by_symbol_name
from guards.text.printers import to_text_lines
from guards.source import Source

__all__ = [
    "FORMAT",
    "ranges_to_json",
    "ranges_from_json",
    "encode_guards",
    "decode_guards",
    "loads_json",
]

#: The ``"format"`` tag written by :func:`encode_guards`.
FORMAT = "guardset/v1"


def _end_to_json(v: object) -> Any:
    if isinstance(v, float) and math.isinf(v):
        return "oo" if v > 0 else "-oo"
    return v


def _end_from_json(v: object, where: str) -> int | float | bool:
    if v == "oo" or v == "-oo":
        return math.inf if v == "oo" else -math.inf
    if isinstance(v, (bool, int)) or (isinstance(v, float) and math.isfinite(v)):
        return v
    raise GuardParseError(f"{where}: a range end must be an int, a finite float, a bool, 'oo' or '-oo', got {v!r}")


def ranges_to_json(r: ValueRanges) -> dict[str, Any]:
    """``r`` as a JSON-ready dict; ``"is_bool": true`` marks a boolean range.

    >>> ranges_to_json(ValueRanges.unknown_bool())
    {'lower': False, 'upper': True, 'is_bool': True}
    """
    if not isinstance(r, ValueRanges):
        raise GuardTypeError(f"ranges_to_json takes a ValueRanges, got {type(r).__name__}")
    out: dict[str, Any] = {"lower": _end_to_json(r.lower), "upper": _end_to_json(r.upper)}
    if r.is_bool:
        out["is_bool"] = True
    return out


def ranges_from_json(data: object, where: str = "range") -> ValueRanges:
    """The range a :func:`ranges_to_json` dict describes.

    Raises:
        GuardParseError: ``data`` is not such a dict, or describes an empty or invalid range.

    >>> str(ranges_from_json({"lower": 0, "upper": "oo"}))
    '[0, oo]'
    """
    if not isinstance(data, Mapping) or "lower" not in data or "upper" not in data:
        raise GuardParseError(f"{where}: expected {{'lower': ..., 'upper': ...}}, got {data!r}")
    lo, hi = _end_from_json(data["lower"], where), _end_from_json(data["upper"], where)
    is_bool = data.get("is_bool", False)
    if not isinstance(is_bool, bool) or any((type(v) is bool) != is_bool for v in (lo, hi)):
        raise GuardParseError(f"{where}: the ends must be booleans exactly when 'is_bool' is true")
    try:
        return ValueRanges(lo, hi, is_bool)  # already normalised: keep the stored endpoints exactly
    except (ValueRangeError, TypeError) as exc:
        raise GuardParseError(f"{where}: {exc}") from None


def _source_to_json(src: Source) -> dict[str, Any]:
    out: dict[str, Any] = {"base": src.base, "kind": src.kind}
    if src.index is not None:
        out["index"] = src.index
    return out


def _source_from_json(data: object, where: str) -> Source:
    if not isinstance(data, Mapping) or not isinstance(data.get("base"), str):
        raise GuardParseError(f"{where}: expected {{'base': str, 'kind': str, 'index': int}}, got {data!r}")
    try:
        return Source(data["base"], data.get("kind", "value"), data.get("index"))
    except ValueError as exc:
        raise GuardParseError(f"{where}: {exc}") from None


def _symbol(name: object, where: str) -> str:
    """A stored symbol name, refused unless it is an identifier (what ``symbol_expr`` accepts)."""
    if not isinstance(name, str) or not name.isidentifier():
        raise GuardParseError(f"{where}: symbol names must be identifiers, got {name!r}")
    return name


def encode_guards(
    guards: Sequence[Guard],
    sources: "Mapping[sympy.Symbol | str, Source]",
    domain: "Mapping[sympy.Symbol | str, ValueRanges]",
) -> dict[str, Any]:
    """The JSON-ready dict of a guard set's parts (``sources`` and ``domain`` keyed by symbol or name).

    Raises:
        GuardTypeError: a guard's text would not read back as the same expression
            (e.g. it uses symbols not made by ``symint.build.symbol_expr``).

    >>> from symint.build import symbol_expr, ge
    >>> s0 = symbol_expr("s0")
    >>> encode_guards([Guard.of(ge(s0, 2), "f.py:1")], {s0: Source.size("x", 0)}, {})["guards"]
    [{'expr': 's0 >= 2', 'origin': 'f.py:1'}]
    """
    texts = to_text_lines([g.form for g in guards], None, "sympy")
    # One parse of all the texts (one symbol table), so that the check is linear in the set's size.
    back = parse_guards_text(texts, "auto", sources).forms if texts else ()
    if len(back) != len(texts):
        raise GuardTypeError("a guard printed as a blank line or a comment; it cannot be stored as text")
    items = []
    for g, text, form in zip(guards, texts, back):
        if form_key(form) != g.key:
            raise GuardTypeError(f"the guard {g.expr} does not survive a round trip through text ({text!r})")
        items.append({"expr": text, "origin": g.origin} if g.origin is not None else {"expr": text})
    return {
        "format": FORMAT,
        "guards": items,
        "sources": {n: _source_to_json(src) for n, src in sorted(by_symbol_name(sources, "sources", Source, "Source objects").items())},
        "domain": {n: ranges_to_json(r) for n, r in sorted(by_symbol_name(domain, "domain", ValueRanges, "ValueRanges").items())},
    }


def decode_guards(
    data: object,
) -> tuple[list[Guard], dict[str, Source], dict[str, ValueRanges] | None]:
    """The guards, sources and domain (None: not stored, use the default) of a decoded JSON dict,
    sources and domain by symbol name (what ``GuardSet.of`` takes).

    Raises:
        GuardParseError: the data is not a guard set (the message names the bad field;
            a bad guard reports its 1-based position as the line).
        GuardTypeError: a guard is not boolean.

    >>> guards, sources, domain = decode_guards({"guards": ["L['x'].size()[0] >= 2"]})
    >>> guards, sources, domain
    ([Guard(s0 >= 2)], {'s0': Source(base='x', kind='size', index=0)}, None)
    """
    if not isinstance(data, Mapping) or not isinstance(data.get("guards"), list):
        raise GuardParseError("a JSON guard set must be an object with a 'guards' list")
    fmt = data.get("format", FORMAT)
    if isinstance(fmt, str) and fmt.startswith("guardset/") and fmt != FORMAT:
        raise GuardParseError(f"unsupported guard set format {fmt!r}; this version reads {FORMAT!r}")
    raw_sources = data.get("sources", {})
    if not isinstance(raw_sources, Mapping):
        raise GuardParseError("'sources' must map symbol names to sources")
    sources = {_symbol(k, f"sources[{k!r}]"): _source_from_json(v, f"sources[{k!r}]") for k, v in raw_sources.items()}
    texts, origins = [], []
    for i, item in enumerate(data["guards"], 1):
        if isinstance(item, Mapping):
            text, origin = item.get("expr"), item.get("origin")
        else:
            text, origin = item, None
        if not isinstance(text, str) or not isinstance(origin, (str, type(None))):
            raise GuardParseError(f"guard #{i}: expected a string or {{'expr': str, 'origin': str}}, got {item!r}")
        if "\n" in text or "\r" in text or not text.strip():
            raise GuardParseError(f"guard #{i} must be one non-empty line, got {text!r}")
        texts.append(text)
        origins.append(origin)
    parsed = parse_guards_text(texts, "auto", sources)
    if len(parsed.forms) != len(texts):  # a guard that is only a comment
        raise GuardParseError("every guard must hold an expression (one is only a comment)")
    guards = [Guard.of(e, o) for e, o in zip(parsed.forms, origins)]
    domain = None
    if "domain" in data:
        raw_domain = data["domain"]
        if not isinstance(raw_domain, Mapping):
            raise GuardParseError("'domain' must map symbol names to ranges")
        domain = {_symbol(k, f"domain[{k!r}]"): ranges_from_json(v, f"domain[{k!r}]") for k, v in raw_domain.items()}
    return guards, dict(parsed.named_sources), domain


def loads_json(text: str) -> object:
    """``json.loads``, with a malformed document reported as a :class:`GuardParseError`.

    >>> loads_json('{"guards": []}')
    {'guards': []}
    """
    if not isinstance(text, str):
        raise GuardTypeError(f"JSON guard text must be a str, got {type(text).__name__}")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        lines = text.splitlines()
        line = lines[exc.lineno - 1] if 0 < exc.lineno <= len(lines) else ""
        raise GuardParseError(f"malformed JSON ({exc.msg})", line, exc.colno, "", exc.lineno) from None
    except RecursionError:
        raise GuardParseError("JSON nested too deeply") from None
    except ValueError as exc:  # e.g. an integer of more than 4,300 digits
        raise GuardParseError(f"malformed JSON ({exc})") from None
