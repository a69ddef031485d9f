"""Read the guards of a printed ``torch.export`` program: its input shapes, range constraints and runtime asserts.

``print(exported_program)`` shows each input with its symbolic shape
(``x: "f32[s77, 3]"``), the ``Range constraints: {s77: VR[2, 64], ...}`` line, and any
``_assert_scalar`` runtime asserts ("Runtime assertion failed for expression u0 >= 0").
:func:`read_exported_program` turns that into the guard set an input must satisfy: each
symbol stands for the first input dim that uses it (later uses become equalities), static
dims become ``==`` guards, dims that are expressions (``2*s77``) become equalities, ranges
become bounds and asserts become guards. Inputs are named as the program's placeholders
(``ys_0`` for ``ys[0]``: export flattens the names; the user binds them so).

Note [Range constraints are the contract]
    This is the program's documented contract. ``exported_program.module()`` checks fewer
    things when called: with torch 2.13, an attention block exported with
    ``Dim("seq", min=2, max=512)`` rejects a sequence of 600 (``Guard failed: x.size()[1] <= 512``)
    but runs one of length 1. So a call this guard set rejects may still run; one it
    accepts is inside the range torch promised.

>>> text = '''def forward(self, x: "f32[s77, 3]", y: "f32[s77]"):
... Range constraints: {s77: VR[2, 64]}'''
>>> print(read_exported_program(text))
L['x'].size()[1] == 3
L['y'].size()[0] == L['x'].size()[0]
2 <= L['x'].size()[0]
L['x'].size()[0] <= 64
"""

from __future__ import annotations

import re

import sympy

from symint.build import eq, le, symbol_expr

from .errors import GuardParseError
from .guard import Guard
from .guardset import GuardSet
from .parse import parse_expression, parse_guard
from .source import Source

__all__ = ["read_exported_program"]

_PLACEHOLDER = re.compile(r'(?P<name>\w+): "(?P<dtype>[a-z]+\d*)\[(?P<dims>[^\]]*)\](?:\[[^\]]*\])?"')
_FORWARD = re.compile(r"def forward\(self(?P<args>.*)\):")
_RANGES = re.compile(r"Range constraints: \{(?P<body>.*)\}")
_RANGE = re.compile(r"(?P<sym>\w+): VR\[(?P<lo>-?\w+), (?P<hi>-?\w+)\]")
_ASSERT = re.compile(r"Runtime assertion failed for expression (?P<expr>.+?) on node")
_INT = re.compile(r"^-?\d+$")


def read_exported_program(text: str) -> GuardSet:
    """The guard set of a printed ExportedProgram (see the module docstring).

    Raises:
        GuardParseError: no ``def forward(self, ...)`` line, or a shape or assert that cannot be read.
    """
    lines = text.splitlines()
    forward = next(((n, m) for n, line in enumerate(lines, 1) if (m := _FORWARD.search(line))), None)
    if forward is None:
        raise GuardParseError("no 'def forward(self, ...)' line: paste the whole print(exported_program) output", text[:80], 1, "")
    line_no, m = forward
    sources: dict[sympy.Symbol, Source] = {}
    guards: list[Guard] = []
    origin = f"line {line_no} input shapes"
    for p in _PLACEHOLDER.finditer(m.group("args")):
        dims = [d.strip() for d in p.group("dims").split(",") if d.strip()]
        for i, dim in enumerate(dims):
            src = Source.size(p.group("name"), i)
            if _INT.match(dim):
                guards.append(Guard(eq(_sym(src, sources), int(dim)), origin))
                continue
            if re.fullmatch(r"[su]\d+", dim) and symbol_expr(dim) not in sources:
                sources[symbol_expr(dim)] = src
                continue
            try:
                value = parse_expression(dim, dialect="sympy")
            except GuardParseError as exc:
                raise GuardParseError(f"an input dim that cannot be read: {exc.message}", lines[line_no - 1], 0, dim, line_no) from None
            guards.append(Guard(eq(_sym(src, sources), value), origin))
    for n, line in enumerate(lines, 1):
        r = _RANGES.search(line)
        if r:
            for v in _RANGE.finditer(r.group("body")):
                sym = symbol_expr(v.group("sym"))
                if _INT.match(v.group("lo")):
                    guards.append(Guard(le(int(v.group("lo")), sym), f"line {n} range constraints"))
                if _INT.match(v.group("hi")):
                    guards.append(Guard(le(sym, int(v.group("hi"))), f"line {n} range constraints"))
        a = _ASSERT.search(line)
        if a:
            guards.append(Guard(parse_guard(a.group("expr"), dialect="sympy"), f"line {n} runtime assert"))
    return GuardSet.of(guards, sources)


def _sym(src: Source, sources: dict[sympy.Symbol, Source]) -> sympy.Symbol:
    """A fresh symbol for a dim that has no symbol of its own (a static or derived dim)."""
    for sym, s in sources.items():
        if s == src:
            return sym
    k = 0
    while symbol_expr(f"d{k}") in sources:
        k += 1
    sym = symbol_expr(f"d{k}")
    sources[sym] = src
    return sym
