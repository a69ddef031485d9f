"""Compare our W1 guard set with torch's: implication by Z3, and agreement on random sizes.

Used by ``w1_propagate.py --check``; slow (nonlinear Z3 questions), so it is opt-in.
"""

from __future__ import annotations

import math
import random

from symint.sympy_io import to_sympy


def torch_guard_set(tenv, program: dict):
    """torch's recorded guards as one of our GuardSets over the same sources (sizes assumed >= 2)."""
    from guards import GuardSet, Source
    from guards.text.parse import parse_guard
    from symint.build import symbol_expr
    from symint.sympy_io import substitute
    from valueranges import ValueRanges

    torch_symbols = sorted(tenv.var_to_val, key=lambda s: int(str(s)[1:]))
    ours = [symbol_expr(f"s{i}") for i in range(len(torch_symbols))]
    rename = {symbol_expr(str(t)): o for t, o in zip(torch_symbols, ours)}
    exprs = [substitute(to_sympy(parse_guard(str(g.expr), dialect="sympy")), rename) for g in tenv.guards]
    sources = {o: Source.size(s["name"], 0) for o, s in zip(ours, program["symbols"])}
    return GuardSet.of(exprs, sources, {o: ValueRanges.of(2, math.inf) for o in ours})


def compare_with_torch(ours: dict, theirs: dict, program: dict, samples: int = 20000) -> str:
    """Z3: torch's guards imply ours (we never reject what torch accepts); random sizes: agreement with asserts."""
    from guards import SolverConfig

    produced, env = ours["produced"], ours["env"]
    torch_set = torch_guard_set(theirs["env"], program)
    config = SolverConfig(rlimit=20_000_000, budget_rlimit=200_000_000)
    weaker = torch_set.implies(produced, config)
    with_asserts = produced.with_guards(list(produced.exprs) + [a.expr for a in env.runtime_asserts])
    proof = with_asserts.equivalent(torch_set, config)
    rng = random.Random(0)
    hints = [s["hint"] for s in program["symbols"]]
    names = [f"{s['name']}.size()[0]" for s in program["symbols"]]
    disagree = accepted = 0
    for _ in range(samples):
        sizes = [h if rng.random() < 0.5 else rng.randint(2, 2 * h) for h in hints]
        bind = dict(zip(names, sizes))
        a, b = with_asserts.holds(bind), torch_set.holds(bind)
        accepted += a
        disagree += a != b
    return (f"torch's guards imply ours: {weaker.verdict.value}; ours + runtime asserts equivalent to torch's: "
            f"{proof.verdict.value}; {samples} random size vectors: {accepted} accepted, {disagree} disagreements")
