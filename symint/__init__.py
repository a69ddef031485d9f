"""Symbolic integers: sympy functions with Python semantics and int-like symbolic values.

>>> from symint import symbol, evaluate
>>> s0 = symbol("s0", hint=10)
>>> n = (s0 + 3) // 4
>>> n, n.node.hint, evaluate(n.node.expr, {s0.node.expr: -10})
(FloorDiv(s0 + 3, 4), 3, -2)
"""

from symint import build
from symint.build import symbol_expr
from symint.builtins import is_symbolic, sym_and, sym_ite, sym_max, sym_min, sym_not, sym_or, symbol
from symint.errors import ExpressionLimitError, MixedEnvironmentError, NoEnvironmentError, SymbolicTypeError, SymIntError
from symint.sympy_io.evaluate import UnboundSymbolError, evaluate
from symint.sympy_io.functions import (
    CeilDiv,
    CeilToInt,
    FloorDiv,
    FloorToInt,
    IfThenElse,
    IntTrueDiv,
    Max,
    Min,
    Mod,
    PowByNatural,
    modular_indexing,
)
from symint.mathfns import sym_float, sym_math, sym_sqrt, sym_sum
from symint.node import SymbolicEnv, SymNode
from symint.values import SymBool, SymFloat, SymInt

__all__ = [
    "SymInt",
    "SymBool",
    "SymFloat",
    "SymNode",
    "SymbolicEnv",
    "symbol",
    "symbol_expr",
    "build",
    "sym_float",
    "sym_sum",
    "sym_sqrt",
    "sym_math",
    "is_symbolic",
    "sym_max",
    "sym_min",
    "sym_not",
    "sym_and",
    "sym_or",
    "sym_ite",
    "evaluate",
    "FloorDiv",
    "CeilDiv",
    "Mod",
    "Max",
    "Min",
    "PowByNatural",
    "IntTrueDiv",
    "FloorToInt",
    "CeilToInt",
    "IfThenElse",
    "modular_indexing",
    "SymIntError",
    "NoEnvironmentError",
    "MixedEnvironmentError",
    "SymbolicTypeError",
    "ExpressionLimitError",
    "UnboundSymbolError",
]
