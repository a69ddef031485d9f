"""A functional namespace mirroring torch's names, so shape code reads like torch: ``ops.cat([x, y], 0)``.

Every function applies the registered shape rule of the op of the same name
(:func:`shapeenv.rules.registry.call`), which validates, computes the output's
shape, and records a node when a graph is being traced.

>>> from shapeenv import ShapeEnv, ops
>>> env = ShapeEnv()
>>> x = env.fake_tensor((4, 3), name="x")
>>> ops.add(x, 1).shape
(s0, s1)
"""

from __future__ import annotations

from .rules import elementwise  # noqa: F401  (registers the elementwise rules)
from .rules.registry import call

__all__ = ["add", "sub", "mul", "div", "neg", "clone"]


def add(a, b):
    """``a + b`` with broadcasting."""
    return call("add", a, b)


def sub(a, b):
    """``a - b`` with broadcasting."""
    return call("sub", a, b)


def mul(a, b):
    """``a * b`` with broadcasting."""
    return call("mul", a, b)


def div(a, b):
    """``a / b`` with broadcasting."""
    return call("div", a, b)


def neg(a):
    """``-a``."""
    return call("neg", a)


def clone(a):
    """A copy of ``a`` with its own storage."""
    return call("clone", a)
