"""Helpers shared by the ``symint`` tests: Python reference semantics and a fake environment."""

from __future__ import annotations

import math
import operator

import sympy
from hypothesis import strategies as st

from symint import SymNode


class FakeEnv:
    """The smallest :class:`symint.SymbolicEnv`: answers with the hint and records every question."""

    def __init__(self, name: str = "env"):
        self.name = name
        self.calls: list[tuple[sympy.Basic, str]] = []

    def evaluate_sym_node(self, node: SymNode, *, reason: str):
        self.calls.append((node.expr, reason))
        if node.hint is None:
            raise LookupError(f"{self.name}: {node.expr} has no hint")
        return node.hint

    def __repr__(self) -> str:
        return f"FakeEnv({self.name!r})"


def py_ceildiv(a, b):
    return -(-a // b)


def outcome(fn, *args):
    """``("ok", value)`` or ``("raise", exception type)``: compares Python with symint, errors included."""
    try:
        return ("ok", fn(*args))
    except (ZeroDivisionError, ValueError, OverflowError) as e:
        return ("raise", type(e))


def to_python(value):
    """A sympy number (or bool) as the Python number it stands for."""
    if value is sympy.true or value is sympy.false:
        return bool(value)
    if isinstance(value, sympy.Integer):
        return int(value)
    if isinstance(value, sympy.Float):
        return float(value)
    return value


def same_value(expected, got, *, float_tol: bool = False) -> bool:
    """Equal values of the same kind (bool / int / float); floats optionally up to rounding."""
    if isinstance(expected, bool) or isinstance(got, bool):
        return isinstance(expected, bool) and isinstance(got, bool) and expected == got
    if isinstance(expected, float) or isinstance(got, float):
        if float_tol:
            return math.isclose(expected, got, rel_tol=1e-12, abs_tol=1e-300) or expected == got
        return expected == got
    return expected == got


def msg(what: str, inputs, expected, got) -> str:
    return f"{what}\n  input:    {inputs}\n  expected: {expected!r}\n  got:      {got!r}"


#: Integers with every sign, zero, and values past the float range of exact integers.
small_ints = st.integers(-40, 40)
any_ints = st.one_of(
    small_ints,
    st.sampled_from([0, 1, -1, 2, -2]),
    st.integers(-(2**80), 2**80),
)

#: Binary integer operations of Python, by name.
PY_BINARY = {
    "add": operator.add,
    "sub": operator.sub,
    "mul": operator.mul,
    "floordiv": operator.floordiv,
    "mod": operator.mod,
    "ceildiv": py_ceildiv,
    "max": max,
    "min": min,
}
