"""``produce_guards``: the recorded decisions of a trace as a :class:`guards.GuardSet` over input sources.

Note [What goes into the produced guard set]
    The set must accept exactly the inputs on which re-tracing would take the same
    decisions, assuming the runtime asserts hold (they are checked when the program
    runs, so they never cause a recompile). It is therefore built from:

    * each source pinned to a constant (0/1 specialisation, STATIC dims);
    * equalities between sources that share a symbol (duck sizing);
    * each symbol's *initial* range (``2 <= x.size()[0]``, declared ``min``/``max``);
    * every recorded guard, as it was recorded.

    Facts learned from runtime asserts are deliberately absent: including them would
    turn an assert into a guard. Replacements are not applied either, so a symbol
    eliminated by a guard still stands for its own source; the guard that eliminated
    it (``Eq(s1, s0)``) is in the set. Finally the set is simplified (implied guards
    dropped, bounds merged), and the simplification is proven equivalent by Z3.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import sympy

from guards import Guard, GuardSet, Source
from symint import build

if TYPE_CHECKING:  # pragma: no cover
    from .env import ShapeEnv

__all__ = ["produce_guards", "source_symbols"]


def source_symbols(env: "ShapeEnv") -> tuple[dict[sympy.Symbol, Source], list[Guard]]:
    """A symbol for every input source, and the guards tying extra and pinned sources to them."""
    sources: dict[sympy.Symbol, Source] = {}
    ties: list[Guard] = []
    for sym, info in env.symbols.items():
        if not info.sources:
            continue
        sources[sym] = info.sources[0]
        for k, extra in enumerate(info.sources[1:], start=1):
            alias = build.symbol_expr(f"{sym.name}_{k}")
            sources[alias] = extra
            ties.append(Guard.of(build.eq(alias, sym), f"{extra.text()} was duck-sized to {info.sources[0].text()}"))
    for k, (source, value) in enumerate(env.specialized.items()):
        pin = build.symbol_expr(f"p{k}")
        sources[pin] = source
        ties.append(Guard.of(build.eq(pin, value), f"{source.text()} was specialised to {value}"))
    return sources, ties


def _range_guards(env: "ShapeEnv") -> list[Guard]:
    out = []
    for sym, info in env.symbols.items():
        rng = info.initial_range
        if not info.sources or rng is None:
            continue
        floor = 0 if info.sources[0].is_size_like else -math.inf
        if rng.lower > floor:
            out.append(Guard.of(build.le(int(rng.lower), sym), f"the initial range of {sym} is {rng}"))
        if rng.upper != math.inf:
            out.append(Guard.of(build.le(sym, int(rng.upper)), f"the initial range of {sym} is {rng}"))
    return out


def produce_guards(env: "ShapeEnv", *, simplify: bool = True) -> GuardSet:
    """The guard set of ``env`` (see Note [What goes into the produced guard set])."""
    sources, ties = source_symbols(env)
    recorded = [Guard.of(r.expr, str(r.provenance)) for r in env.guards]
    raw = GuardSet.of(ties + _range_guards(env) + recorded, sources)
    if not simplify or len(raw) == 0:
        return raw
    return raw.simplify()
