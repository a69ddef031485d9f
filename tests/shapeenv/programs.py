"""Random straight-line shape programs over a few sizes, runnable on ints, SymInts or torch SymInts."""

from __future__ import annotations

import operator
import random

from guards import Source
from shapeenv import CheckFailedError, DimDynamic, ShapeEnv, check
from symint import sym_max, sym_min

ARITH = [operator.add, operator.sub, operator.mul, operator.floordiv, operator.mod, sym_max, sym_min]
RELS = [operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge]


def random_program(rng: random.Random, n_inputs: int, n_ops: int) -> list[tuple]:
    """Ops over a pool that starts with the inputs: ('arith', f, i, j|const), ('cmp', rel, i, j|const), ('check', ...)."""
    prog, pool = [], n_inputs
    for _ in range(n_ops):
        kind = rng.choices(["arith", "cmp", "check"], [5, 4, 1])[0]
        a = rng.randrange(pool)
        b = rng.randrange(pool) if rng.random() < 0.6 else ("c", rng.randint(-3, 9))
        if kind == "arith":
            prog.append(("arith", rng.randrange(len(ARITH)), a, b))
            pool += 1
        else:
            prog.append((kind, rng.randrange(len(RELS)), a, b))
    return prog


def run(prog: list[tuple], inputs: list, check_fn, arith: list = ARITH) -> list[bool]:
    """Execute ``prog``; returns its branch decisions. Raises ZeroDivisionError/CheckFailedError like the program."""
    pool = list(inputs)
    decisions = []
    for kind, f, a, b in prog:
        x = pool[a]
        y = b[1] if isinstance(b, tuple) else pool[b]
        if kind == "arith":
            pool.append(arith[f](x, y))
        elif kind == "cmp":
            decisions.append(bool(RELS[f](x, y)))
        else:
            check_fn(RELS[f](x, y))
    return decisions


def concrete_check(cond) -> None:
    if not cond:
        raise CheckFailedError("runtime assert failed")


def trace(prog, hints, use_z3, duck=True):
    env = ShapeEnv(duck_shape=duck, use_z3=use_z3)
    dyn = DimDynamic.DUCK if duck else DimDynamic.DYNAMIC
    inputs = [env.create_symint(h, Source.size(f"x{i}", 0), dynamic=dyn) for i, h in enumerate(hints)]
    decisions = run(prog, inputs, check)
    return env, decisions
