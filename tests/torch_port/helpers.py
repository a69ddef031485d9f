"""What the ported torch tests share: torch's ``create_symint``/``create_symbolic_tensor`` helpers, in our API.

torch's test file builds symbols with ``shape_env.create_symbol(val, ConstantSource(...))``;
ours come from :meth:`ShapeEnv.create_symint` with a value source of the same kind
(a fresh input name per symbol), and tensors from :meth:`ShapeEnv.fake_tensor`.
"""

from __future__ import annotations

from guards import Source
from shapeenv import DimDynamic, ShapeEnv


def create_symint(env: ShapeEnv, hint: int, duck: bool = True):
    """torch's ``create_symint(shape_env, i, duck=...)``: a backed symbol for a constant source."""
    n = len(env.symbols) + len(env.specialized)
    return env.create_symint(hint, Source.value(f"__testing_only{n}"), DimDynamic.DUCK if duck else DimDynamic.DYNAMIC)


def create_symbolic_tensor(name: str, shape: tuple, env: ShapeEnv, dynamic=True):
    """torch's ``create_symbolic_tensor(name, torch.randn(*shape), shape_env)``: duck-sized dims."""
    return env.fake_tensor(shape, "float32", dynamic=dynamic, name=name)


def guard_strs(env: ShapeEnv) -> list[str]:
    """``[str(g.expr) for g in shape_env.guards]`` (torch lists ``guards[i][0]``)."""
    return [str(g.expr) for g in env.guards]
