"""The ShapeEnv core: symbols, facts, decisions, runtime asserts and the produced guard set.

Nothing here knows about tensors. The tensor world (fake tensors, op shape rules, the
higher-order ops, export, compile, backends, stores) lives beside it in :mod:`shapeenv`
and calls down into it; nothing in this package imports from there.

>>> from guards import Source
>>> env = ShapeEnv()
>>> s = env.create_symint(6, Source.size("x", 0))
>>> bool(s % 2 == 0), [str(g.expr) for g in env.guards]
(True, ['Eq(Mod(s0, 2), 0)'])
"""

from .env import ShapeEnv
from .settings import ShapeEnvSettings
from .symbols import DimDynamic, SymbolInfo

__all__ = ["ShapeEnv", "ShapeEnvSettings", "DimDynamic", "SymbolInfo"]
