"""``explain_symbol``: why a symbol is specialised, bounded or equal to another.

The answer is assembled from the environment's records: the symbol's sources and
hint, its initial and current range, any replacement or divisibility fact, and
every guard and runtime assert that mentions it, each with its provenance.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from symint.lazy_sympy import sympy

from symint import SymBool, SymFloat, SymInt

from .errors import ShapeEnvTypeError, UnknownSymbolError

if TYPE_CHECKING:  # pragma: no cover
    from .state import SymbolTable

__all__ = ["explain_symbol"]


def _resolve(env: "SymbolTable", value) -> list[sympy.Symbol]:
    if isinstance(value, (SymInt, SymBool, SymFloat)):
        return sorted(value.node.expr.free_symbols, key=lambda s: s.name)
    if isinstance(value, sympy.Symbol):
        return [value]
    if isinstance(value, str):
        for name, info in env.symbols.by_name.items():
            if value == name or any(value in (src.text(), src.torch_text()) for src in info.sources):
                return [info.symbol]
        for source, pinned in env.specialized.items():
            if value in (source.text(), source.torch_text()):
                return []
        known = list(env.symbols.by_name) + [src.text() for info in env.symbols.values() for src in info.sources]
        raise UnknownSymbolError(
            f"{value!r} is neither a symbol nor a source of this environment; it has {', '.join(known[:12]) or 'none'}"
            + (", ..." if len(known) > 12 else ""),
            fix=f"env.explain({known[0]!r})" if known else None,
        )
    if isinstance(value, int):
        return []
    raise ShapeEnvTypeError(f"cannot explain {value!r}: pass a SymInt, a symbol, a symbol name or a source text",
                            fix="env.explain(x.shape[0]) or env.explain('s0')")


def explain_symbol(env: "SymbolTable", value) -> str:
    """A readable account of what is known about ``value``'s symbols and why.

    >>> from shapeenv import ShapeEnv
    >>> from guards import Source
    >>> env = ShapeEnv(); s = env.create_symint(8, Source.size("x", 0))
    >>> _ = bool(s > 5)
    >>> print(env.explain(s).splitlines()[0])
    s0 = x.size()[0] (hint 8)
    """
    if isinstance(value, str):
        for source, pinned in env.specialized.items():
            if value in (source.text(), source.torch_text()):
                return f"{source.text()} is specialised to the constant {pinned} (0/1 specialisation or a static dim)"
    symbols = _resolve(env, value)
    if not symbols:
        return f"{value} is a constant: nothing symbolic to explain"
    return "\n\n".join(_explain_one(env, s) for s in symbols)


def _explain_one(env: "SymbolTable", sym: sympy.Symbol) -> str:
    info = env.symbols.get(sym)
    facts = env.facts
    lines = []
    if info is None:
        return f"{sym} is not a symbol of this environment"
    if info.sources:
        lines.append(f"{sym} = {', '.join(s.text() for s in info.sources)} (hint {info.hint})")
    else:
        lines.append(f"{sym} is unbacked: a data-dependent value with no hint")
    if len(info.sources) > 1:
        lines.append(f"  shared by {len(info.sources)} sources: duck sizing gave them equal hints ({info.hint})")
    if info.initial_range is not None:
        lines.append(f"  created with range {info.initial_range}")
    current = facts.simplify(sym)
    if current != sym:
        kind = "specialised to" if current.is_Number else "replaced by"
        lines.append(f"  {kind} {current}")
    else:
        lines.append(f"  now in range {facts.range_of(sym)}")
    for k in sorted(facts.divisible.get(sym, ())):
        lines.append(f"  known divisible by {k}")
    cited = 0
    for record in env.guards:
        if sym in record.expr.free_symbols:
            lines.append(f"  guard  {record.expr}   <- {record.provenance}")
            cited += 1
    for record in env.runtime_asserts:
        if sym in record.expr.free_symbols:
            lines.append(f"  assert {record.expr}   <- {record.provenance}")
            cited += 1
    if not cited:
        lines.append("  no guard or assert mentions it")
    return "\n".join(lines)


