"""Symbolic integers: sympy functions with Python semantics and int-like symbolic values.

>>> from symint import symbol, evaluate
>>> s0 = symbol("s0", hint=10)
>>> n = (s0 + 3) // 4
>>> n, n.node.hint, evaluate(n.node.expr, {s0.node.expr: -10})
(FloorDiv(s0 + 3, 4), 3, -2)

Integers and booleans have one representation, the canonical forms of :mod:`symint.form`;
:mod:`symint.sympy_io` is the only place that converts to and from sympy (printing, floats,
opaque functions). Importing this package imports no sympy: the sympy names below
(``FloorDiv``, ``Mod``, ..., ``evaluate``, ``UnboundSymbolError``) are read on first use
(Note [sympy on first use] in :mod:`symint.lazy_sympy`).

Note [Where the old modules went]
    ``symint.form`` (module) is the package :mod:`symint.form` (same names, plus the booleans);
    ``symint.form_terms`` -> ``symint.form.terms``; ``symint.boolform`` -> ``symint.form.logic``
    (``bool_from_sympy`` -> ``symint.sympy_io``); ``symint.form_transform`` -> ``symint.form.transform``;
    ``symint.form_sympy`` -> ``symint.sympy_io``; ``symint.functions`` -> ``symint.sympy_io.functions``;
    ``symint.logic`` (``OrderedAnd``, ``ordered_and``, ...) -> ``symint.sympy_io.connectives``;
    ``symint.opaque`` -> ``symint.sympy_io.floats``; the module ``symint.evaluate`` ->
    ``symint.sympy_io.evaluate`` (the function ``symint.evaluate`` stays); ``Form.sympy()`` and
    the other ``.sympy()`` methods of forms -> ``symint.sympy_io.to_sympy`` (Note [Where the view
    went] in :mod:`symint.sympy_io`); ``symint.substitute``
    -> ``symint.sympy_io.substitute`` (through forms); ``symint.linear.linear_form`` is gone:
    ``from_sympy(expr).linear()`` and ``.const`` say the same. The old module names are gone
    (no forwarding modules). In :mod:`valueranges`:
    ``valueranges._endpoints`` -> ``valueranges.endpoints``, the form bounds
    ``valueranges.form_bound`` -> ``valueranges.bound``, the sympy
    walk ``valueranges.bound`` -> ``valueranges.sympy_bound`` (the function
    ``valueranges.bound`` stays).
"""

from symint import build
from symint.build import symbol_expr
from symint.builtins import is_symbolic, sym_and, sym_ite, sym_max, sym_min, sym_not, sym_or, symbol
from symint.errors import ExpressionLimitError, MixedEnvironmentError, NoEnvironmentError, SymbolicTypeError, SymIntError
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

#: The names that live in a sympy module, imported when first read (Note [sympy on first use] in :mod:`symint.lazy_sympy`).
_SYMPY_NAMES = {
    "evaluate": "symint.sympy_io.evaluate",
    "UnboundSymbolError": "symint.sympy_io.evaluate",
    **dict.fromkeys(["FloorDiv", "CeilDiv", "Mod", "Max", "Min", "PowByNatural", "IntTrueDiv", "FloorToInt", "CeilToInt",
                     "IfThenElse", "modular_indexing"], "symint.sympy_io.functions"),
}


def __getattr__(name: str):
    """``symint.FloorDiv``, ``symint.evaluate``, ...: the sympy names, imported on first use (PEP 562)."""
    module = _SYMPY_NAMES.get(name)
    if module is None:
        raise AttributeError(f"module 'symint' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # read once: later reads find the global
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_SYMPY_NAMES))
