"""Tiny functions to export in the tests (the CLI imports this module by name)."""

from __future__ import annotations

from shapeenv import check, ops


def unify(x, y):
    """W4 ``unify``: ``(x + y) * 2 + y``."""
    return (x + y) * 2 + y


def branchy(x):
    """Takes a branch on the batch size: a guard ``x.size()[0] > 4``."""
    if x.shape[0] > 4:
        return x * 2
    return x + 1


def scaled(x, k):
    """``x * k`` for an int ``k``; checks that ``k`` is at most the batch size (a runtime assert)."""
    check(k <= x.shape[0], "k must not exceed the batch")
    return x * k


def mismatch(x, y):
    """``x * y``: a shape error unless the sizes broadcast."""
    return ops.mul(x, y)


def with_default(x, scale=2, *, bias):
    """A parameter with a default and a keyword-only one."""
    return x * scale + bias


not_a_function = 3
