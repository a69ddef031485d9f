"""Module-level helpers that find the environment through their argument, as ``torch._check`` does.

>>> from shapeenv import ShapeEnv
>>> from guards import Source
>>> env = ShapeEnv(); n = env.create_symint(6, Source.size("x", 0))
>>> statically_known_true(n >= 2), guard_or_false(n == 6), len(env.guards)
(True, True, 1)
"""

from __future__ import annotations

from symint.lazy_sympy import sympy

from symint import SymBool
from symint.node import SymbolicEnv

from .errors import CheckFailedError, ShapeEnvTypeError

__all__ = [
    "check",
    "statically_known_true",
    "statically_known_false",
    "guard_or_false",
    "guard_or_true",
    "guard_size_oblivious",
]


def _env_of(value: SymBool) -> SymbolicEnv:
    node = getattr(value, "node", None)
    if node is None:  # e.g. a sympy relation: it carries no environment to ask
        raise ShapeEnvTypeError(
            f"{value!r} ({type(value).__name__}) is not a SymBool, so no ShapeEnv can be found to ask about it",
            fix="env.statically_known_true(expr)  # ask the environment that made its symbols")
    env = node.env
    if env is None or not hasattr(env, "check"):
        raise ShapeEnvTypeError(f"{value} has no ShapeEnv attached: its symbols were not made by a ShapeEnv",
                                fix="x = env.create_symint(hint, Source.size('x', 0))  # then ask about x")
    return env


def check(cond: SymBool | bool, message: str | None = None) -> None:
    """A runtime assert: assume ``cond`` while tracing and check it when the program runs.

    Raises:
        CheckFailedError: ``cond`` is false (a plain False, statically, or for the traced sizes).
    """
    if isinstance(cond, SymBool):
        _env_of(cond).check(cond, message)
    elif not cond:
        raise CheckFailedError(f"check failed{': ' + message if message else ''}")


def _plain(value) -> bool:
    """A plain condition's truth; a sympy condition is a typed error (it names no environment)."""
    if isinstance(value, sympy.Basic):
        _env_of(value)  # raises ShapeEnvTypeError, with the fix
    return bool(value)


def statically_known_true(value: SymBool | bool) -> bool:
    """True only if ``value`` is provably true; records nothing.

    Raises:
        ShapeEnvTypeError: ``value`` is a sympy relation (ask ``env.statically_known_true(expr)``).
    """
    return _env_of(value).statically_known_true(value) if isinstance(value, SymBool) else _plain(value)


def statically_known_false(value: SymBool | bool) -> bool:
    """True only if ``value`` is provably false; records nothing."""
    return _env_of(value).statically_known_false(value) if isinstance(value, SymBool) else not _plain(value)


def guard_or_false(value: SymBool | bool) -> bool:
    """Decide ``value`` (a guard if only the hints decide); False instead of an error for data-dependent sizes."""
    return _env_of(value).guard_or_false(value) if isinstance(value, SymBool) else _plain(value)


def guard_or_true(value: SymBool | bool) -> bool:
    """Decide ``value`` (a guard if only the hints decide); True instead of an error for data-dependent sizes."""
    return _env_of(value).guard_or_true(value) if isinstance(value, SymBool) else _plain(value)


def guard_size_oblivious(value: SymBool | bool) -> bool:
    """Decide ``value`` treating size-like unbacked sizes as ``>= 2`` for this question only."""
    return _env_of(value).guard_size_oblivious(value) if isinstance(value, SymBool) else bool(value)
