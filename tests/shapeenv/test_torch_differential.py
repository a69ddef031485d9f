"""Differential tests against torch's ShapeEnv (run when torch is installed; `.ci/run` installs it).

On random programs both environments must take the branches the concrete program takes, and every
input our guard set accepts must re-run to the same decisions. Inputs that our set accepts and torch's
rejects are fewer recompiles; the count is printed (run with ``-s`` to see it).
"""

from __future__ import annotations

import operator
import random

import pytest

from shapeenv import CheckFailedError

from .programs import concrete_check, random_program, run, trace

torch = pytest.importorskip("torch", reason="differential tests need torch (pip install torch==2.13.0)")
pytestmark = pytest.mark.torch

from torch._dynamo.source import LocalSource  # noqa: E402
from torch.fx.experimental.symbolic_shapes import DimDynamic, ShapeEnv as TorchShapeEnv  # noqa: E402

TORCH_ARITH = [operator.add, operator.sub, operator.mul, operator.floordiv, operator.mod, torch.sym_max, torch.sym_min]


def torch_trace(prog, hints):
    env = TorchShapeEnv(duck_shape=False)
    inputs, symbols = [], []
    for i, h in enumerate(hints):
        src = LocalSource(f"x{i}")
        sym = env.create_symbol(h, src, dynamic_dim=DimDynamic.DYNAMIC)
        symbols.append(sym)
        inputs.append(env.create_symintnode(sym, hint=h, source=src))
    decisions = run(prog, inputs, torch._check, TORCH_ARITH)
    return env, decisions, symbols


def torch_accepts(env, symbols, sizes) -> bool:
    if any(s < 2 for s in sizes):  # torch's backed sizes live in [2, oo] (0/1 would specialise)
        return False
    binding = dict(zip(symbols, sizes))
    try:
        return all(bool(g.expr.xreplace(binding)) for g in env.guards)
    except ZeroDivisionError:
        return False


def test_random_programs_agree_with_torch_and_stay_sound() -> None:
    rng = random.Random(20261129)
    fewer_recompiles = accepted_both = programs = 0
    for _ in range(45):
        n = rng.randint(1, 3)
        hints = [rng.choice([2, 3, 4, 5, 6, 8, 12, 16]) for _ in range(n)]
        prog = random_program(rng, n, rng.randint(2, 10))
        try:
            expected = run(prog, hints, concrete_check)
        except (ZeroDivisionError, CheckFailedError):
            continue
        programs += 1
        tenv, tdecisions, tsyms = torch_trace(prog, hints)
        env, decisions = trace(prog, hints, use_z3=True, duck=False)
        assert decisions == tdecisions == expected, f"branch outcomes differ on {prog} at {hints}"
        gs = env.produce_guards()
        names = [f"x{i}.size()[0]" for i in range(n)]
        for _ in range(120):
            sizes = [rng.randint(2, 24) for _ in hints]
            ours = gs.holds(dict(zip(names, sizes)))
            theirs = torch_accepts(tenv, tsyms, sizes)
            if not ours:
                continue
            try:
                got = run(prog, sizes, concrete_check)
            except (ZeroDivisionError, CheckFailedError):
                continue
            assert got == expected, f"UNSOUND: {gs} accepts {sizes}; program: {prog}; hints {hints}"
            accepted_both += theirs
            fewer_recompiles += not theirs
    assert programs >= 20
    print(f"\n{programs} programs: inputs accepted by both {accepted_both}, by ours only {fewer_recompiles}")
