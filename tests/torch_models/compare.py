"""Comparing this project's exported programs with torch's: outputs over input sources, predicted shapes, guard sets.

Output shapes and strides are compared as expressions over the input *sources*: each of our
symbols is renamed to the torch symbol of the same input dim (both sides know which dim a symbol
stands for), so ``(s0 - 1)//2 + 1`` of ours and torch's ``((s53 - 1)//2) + 1`` become questions
about the same variable. :func:`equal_under` asks Z3 whether two such expressions agree on every
input a guard set accepts; :func:`predicted` evaluates our outputs at concrete sizes.

No torch import here: the values come from :mod:`tests.torch_models.torch_side`.

>>> from symint.build import add, floordiv, symbol_expr
>>> s0, s1 = symbol_expr("s0"), symbol_expr("s1")
>>> evaluate(add(floordiv(s0, 2), s1), {s0: 9, s1: 1})
5
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

import sympy

from guards import GuardSet, Source, SolverConfig
from symint import SymInt
from symint.build import eq
from symint.sympy_io.evaluate import evaluate as _evaluate
from shapeenv.hops.pytree import flatten

from .torch_side import Outputs

__all__ = ["our_outputs", "rename_to", "evaluate", "equal_under", "symbol_values", "user_guards", "state_inputs", "SOLVER"]

#: Solver limits for the comparisons (deterministic counts; the products of floor divisions of
#: the ViT need more than the default).
SOLVER = SolverConfig(rlimit=20_000_000, budget_rlimit=400_000_000)


def _final(program, value: Any) -> sympy.Basic:
    if isinstance(value, SymInt):
        return program.env.simplify(value.node.expr)
    return sympy.Integer(int(value))


def our_outputs(program) -> list[Outputs]:
    """The output tensors of one of our ExportedPrograms, flattened in order, over our (final) symbols."""
    out = []
    for leaf in flatten(program.outputs)[0]:
        fake = getattr(leaf, "fake", leaf)  # a TracedTensor wraps the fake tensor
        out.append(Outputs(tuple(_final(program, d) for d in fake.shape), tuple(_final(program, s) for s in fake.stride()),
                           fake.dtype.name))
    return out


def _by_source(program, table: Mapping[Source, Any]) -> dict[sympy.Symbol, Any]:
    """Our symbol -> ``table``'s entry for the first of its sources that ``table`` has (symbols with none left out)."""
    out = {}
    for sym, info in program.env.symbols.items():
        found = next((src for src in info.sources if src in table), None)
        if found is not None:
            out[sym] = table[found]
    return out


def rename_to(program, torch_sources: Mapping[sympy.Symbol, Source]) -> dict[sympy.Symbol, sympy.Symbol]:
    """Our symbol -> the torch symbol of the same input dim (by any of our symbol's sources)."""
    return _by_source(program, {src: sym for sym, src in torch_sources.items()})


def symbol_values(program, bindings: Mapping[Source, int]) -> dict[sympy.Symbol, int]:
    """Our symbols' values for concrete input bindings (``program.bindings(...)``)."""
    return _by_source(program, bindings)


def evaluate(expr: sympy.Basic, values: Mapping[sympy.Symbol, int]) -> int:
    """``expr`` at concrete symbol values (an int)."""
    return int(_evaluate(expr, values))


def equal_under(pairs: Iterable[tuple[sympy.Basic, sympy.Basic]], guards: GuardSet) -> tuple[str, Any]:
    """Whether every pair of expressions is equal on every input ``guards`` accepts (Z3): (verdict, counterexample)."""
    wanted = GuardSet.of([eq(a, b) for a, b in pairs if a != b], guards.source_map)
    if not len(wanted):
        return "yes", None
    result = guards.implies(wanted, SOLVER)
    return result.verdict.value, getattr(result, "witness", None)


def user_guards(gs: GuardSet, users: Iterable[str]) -> GuardSet:
    """The guards of ``gs`` over the inputs named ``users`` only (parameters and module attributes dropped)."""
    users = set(users)
    sources = gs.source_map
    kept = {s: src for s, src in sources.items() if src.base in users}
    keep = [g for g in gs.guards if g.expr.free_symbols <= set(kept)]
    return GuardSet.of(keep, kept, {s: r for s, r in gs.domain if s in kept})


def state_inputs(model) -> dict[str, Any]:
    """A module's parameters and buffers by the input names our programs give them (``self._modules['fc']._parameters['weight']``)."""
    out = {}
    for path, module in model.named_modules():
        prefix = "self" + "".join(f"._modules[{part!r}]" for part in path.split(".") if part)
        for kind, tensors in (("_parameters", module._parameters), ("_buffers", module._buffers)):
            for key, tensor in tensors.items():
                if tensor is not None:
                    out[f"{prefix}.{kind}[{key!r}]"] = tensor
    return out
