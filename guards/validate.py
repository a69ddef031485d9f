"""Argument checks shared by the public entry points of ``guards``: wrong types become typed errors.

Each check raises :class:`~guards.errors.GuardTypeError` (a ``TypeError``) or
:class:`~guards.errors.GuardValueError` (a ``ValueError``) naming the argument,
so that no public function answers a wrong argument with a raw ``AttributeError``
or ``IndexError`` from deep inside.

>>> need_mapping({"n": 3}, "bindings")
{'n': 3}
>>> need_mapping([("n", 3)], "bindings")
Traceback (most recent call last):
    ...
guards.errors.GuardTypeError: bindings must be a mapping (a dict), got list
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from typing import Any

from symint.build import symbol_name

from .errors import GuardTypeError, GuardValueError

__all__ = ["need_mapping", "need_iterable", "need_guardset", "need_config", "need_choice", "short"]


def short(obj: object, limit: int = 80) -> str:
    """``repr(obj)`` cut to ``limit`` characters (user values can be huge).

    >>> short("x" * 100, 10)
    "'xxxxxx..."
    """
    text = repr(obj)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def need_mapping(obj: Any, what: str, optional: bool = False) -> Any:
    """``obj`` if it is a Mapping (or None when ``optional``), else a :class:`GuardTypeError`."""
    if (optional and obj is None) or isinstance(obj, Mapping):
        return obj
    raise GuardTypeError(f"{what} must be a mapping (a dict), got {type(obj).__name__}")


def by_symbol_name(obj: Any, what: str, value_type: type, value_what: str, optional: bool = False) -> dict[str, Any]:
    """``obj``, a mapping keyed by symbols (sympy Symbols or their names), keyed by name.

    Raises:
        GuardTypeError: ``obj`` is not a mapping, a key is not a symbol, a value is not a
            ``value_type``, or a Symbol and its name are given different values.

    >>> by_symbol_name({"n": 1}, "sizes", int, "ints")
    {'n': 1}
    >>> by_symbol_name({"n": 1, 2: 3}, "sizes", int, "ints")
    Traceback (most recent call last):
        ...
    guards.errors.GuardTypeError: sizes must map symbols (sympy Symbols or names) to ints, got 2: 3
    """
    out: dict[str, Any] = {}
    for key, value in (need_mapping(obj, what, optional) or {}).items():
        name = symbol_name(key)
        if name is None or not isinstance(value, value_type):
            raise GuardTypeError(f"{what} must map symbols (sympy Symbols or names) to {value_what}, got {short(key)}: {short(value)}")
        if out.setdefault(name, value) is not value and out[name] != value:
            raise GuardTypeError(f"{what} give the symbol {name} two values ({short(out[name])} and {short(value)})")
    return out


def need_iterable(obj: Any, what: str) -> Any:
    """``obj`` if it is an iterable other than a str/bytes, else a :class:`GuardTypeError`.

    >>> need_iterable("abc", "guards")
    Traceback (most recent call last):
        ...
    guards.errors.GuardTypeError: guards must be an iterable (a list or tuple), got str
    """
    if isinstance(obj, Iterable) and not isinstance(obj, (str, bytes, bytearray)):
        return obj
    raise GuardTypeError(f"{what} must be an iterable (a list or tuple), got {type(obj).__name__}")


def need_guardset(obj: Any, what: str) -> Any:
    """``obj`` if it is a :class:`~guards.guardset.GuardSet`, else a :class:`GuardTypeError`.

    The class is looked up when called (``guardset`` imports the modules that use this).
    """
    cls = getattr(sys.modules.get("guards.guardset"), "GuardSet", None)
    if cls is not None and isinstance(obj, cls):
        return obj
    raise GuardTypeError(f"{what} must be a GuardSet, got {type(obj).__name__}")


def need_config(obj: Any, what: str = "config") -> Any:
    """A :class:`~guards.solver.z3_solver.SolverConfig`: ``obj`` itself, or the default for None."""
    cls = sys.modules["guards.solver.z3_solver"].SolverConfig
    if obj is None:
        return cls()
    if isinstance(obj, cls):
        return obj
    raise GuardTypeError(f"{what} must be a SolverConfig, got {type(obj).__name__}")


def need_choice(value: Any, choices: tuple[str, ...], what: str) -> str:
    """``value`` if it is one of ``choices``, else a :class:`GuardValueError` listing them.

    >>> need_choice("tex", ("torch", "sympy"), "style")
    Traceback (most recent call last):
        ...
    guards.errors.GuardValueError: unknown style 'tex'; expected one of torch, sympy
    """
    if isinstance(value, str) and value in choices:
        return value
    raise GuardValueError(f"unknown {what} {short(value)}; expected one of {', '.join(choices)}")
