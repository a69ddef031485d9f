"""sympy on first use: the one home of the lazy access to sympy (Note [sympy on first use]).

Modules outside :mod:`symint.sympy_io` write ``from symint.lazy_sympy import sympy`` and use
``sympy.Basic``, ``sympy.Integer(3)``, ... inside their functions as before: the first
attribute read imports sympy. A module that needs one of sympy's users (the nodes of
:mod:`symint.sympy_io`) writes ``_io = lazy_module("symint.sympy_io")`` the same way. The
checks below answer without importing sympy.

>>> from symint.lazy_sympy import is_sympy, sympy
>>> is_sympy(3), is_sympy("x")
(False, False)
>>> is_sympy(sympy.Integer(3)), "sympy" in __import__("sys").modules
(True, True)

Note [sympy on first use]
    Integers and booleans are canonical forms (:mod:`symint.form`); sympy is a view of
    them (printing, floats, opaque functions). Importing sympy costs ~0.5 s and leaves
    ~38,000 objects in the heap, which every full collection of the user's process then
    scans (~35 ms each, against ~2 ms for a bare interpreter). So importing ``symint``,
    ``valueranges``, ``guards`` and ``shapeenv`` imports no sympy: a module that needs sympy
    at import (it subclasses sympy's classes: :mod:`symint.sympy_io`) is read through
    :func:`lazy_module` or imported inside the functions that build a view, tables keyed by
    sympy's classes are built on first use, and the other modules read sympy through
    :data:`sympy` below. No object can be a sympy instance before sympy is imported, so
    :func:`is_sympy`, :func:`is_sympy_bool` and :func:`is_relational` answer ``False``
    without importing it. ``tests/test_layering.py`` imports the packages in a fresh
    interpreter and checks that sympy was not imported. Not yet: a ``ShapeEnv`` names its
    symbols by sympy Symbols (and a ``GuardSet`` keys its sources by them), so the first
    ``create_symint`` imports sympy (an ``xfail`` there says so).
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

__all__ = ["sympy", "lazy_module", "load", "loaded", "is_sympy", "is_sympy_bool", "is_relational"]


def load():
    """The sympy module, imported on the first call.

    >>> load().__name__
    'sympy'
    """
    return importlib.import_module("sympy")


def loaded() -> bool:
    """Whether sympy has been imported in this process (asking does not import it).

    >>> isinstance(loaded(), bool)
    True
    """
    return "sympy" in sys.modules


class LazyModule:
    """Stands for the module ``name``: the first attribute read imports it, and each value read is kept.

    The layering tests read ``lazy_module("...")`` as an import of that module.

    >>> m = LazyModule("fractions")
    >>> m.Fraction(1, 2)
    Fraction(1, 2)
    """

    def __init__(self, name: str):
        self.__dict__["_LazyModule__name"] = name

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__"):  # copy, pickle, doctest and inspect probe dunders: they answer without importing
            raise AttributeError(attr)
        value = getattr(importlib.import_module(self.__name), attr)
        self.__dict__[attr] = value  # read once: later reads are an instance attribute
        return value

    def __repr__(self) -> str:
        name = self.__name
        return f"<module {name!r}, imported on first use>" if name not in sys.modules else repr(sys.modules[name])


def lazy_module(name: str) -> Any:
    """The module ``name``, imported when an attribute is first read (for sympy and the modules that need it at import).

    >>> lazy_module("fractions").Fraction(3, 6)
    Fraction(1, 2)
    """
    return LazyModule(name)


#: sympy, imported when an attribute is first read (``sympy.Basic``, ``sympy.core.relational``).
sympy: Any = lazy_module("sympy")


def _module():
    return sys.modules.get("sympy")


def is_sympy(x: object) -> bool:
    """Whether ``x`` is a sympy object (``sympy.Basic``); ``False`` without importing sympy.

    >>> is_sympy(None)
    False
    """
    mod = _module()
    return mod is not None and isinstance(x, mod.Basic)


def is_sympy_bool(x: object) -> bool:
    """Whether ``x`` is a sympy boolean (``sympy.logic.boolalg.Boolean``: relations, ``And``, ``true``).

    >>> is_sympy_bool(True), is_sympy_bool(sympy.true), is_sympy_bool(sympy.Integer(1))
    (False, True, False)
    """
    mod = _module()
    return mod is not None and isinstance(x, mod.logic.boolalg.Boolean)


def is_relational(x: object) -> bool:
    """Whether ``x`` is a sympy relation (``x < y``, ``Eq(x, y)``, ...); ``False`` without importing sympy.

    >>> is_relational(1 < 2), is_relational(sympy.Lt(sympy.Symbol("x"), 2))
    (False, True)
    """
    mod = _module()
    return mod is not None and isinstance(x, mod.core.relational.Relational)
