"""This library's SymInt / SymFloat / SymBool as torch's, so torch's argument parser takes them.

torch's C++ argument parser accepts, where an int or a number goes, only Python numbers
and ``torch.SymInt`` / ``torch.SymFloat`` / ``torch.SymBool``; it checks the argument
types *before* any ``__torch_function__`` handler runs, so ``torch.arange(T)`` or
``x * T`` with this library's own SymInt would fail in torch. torch's symbolic values are
thin Python wrappers around a *node* object that implements their arithmetic (torch's own
ShapeEnv supplies one, ``torch.fx.experimental.sym_node.SymNode``); :class:`TorchSymNode`
is such a node over this library's values. So during a trace, ``x.shape`` is a
``torch.Size`` of ``torch.SymInt`` s whose every operation is computed by this library's
SymInts, and whose every decision (``bool``, ``int``, ``guard_*``) is this library's
ShapeEnv deciding and recording a guard: Python control flow on sizes records guards
exactly as on this library's SymInts (which :func:`to_ours` recovers at each op).

>>> from shapeenv import ShapeEnv
>>> from guards import Source
>>> env = ShapeEnv()
>>> s = env.create_symint(8, Source.size("x", 0))
>>> t = to_torch(s); type(t).__name__, str(t * 2 + 1), to_ours(t // 2)
('SymInt', '2*s0 + 1', FloorDiv(s0, 2))
>>> bool(t > 4), [str(g.expr) for g in env.guards]
(True, ['s0 > 4'])
"""

from __future__ import annotations

import math
import operator
from typing import Any, Callable

import torch

import symint
from symint import SymBool, SymFloat, SymInt

from ..errors import TorchInteropError
from ..api import check, guard_or_false, guard_or_true, guard_size_oblivious, statically_known_true

__all__ = ["TorchSymNode", "to_torch", "to_ours"]

_OURS = (SymInt, SymFloat, SymBool)


def to_torch(value: Any) -> Any:
    """One of this library's symbolic values as torch's (plain numbers unchanged)."""
    if isinstance(value, SymInt):
        return torch.SymInt(TorchSymNode(value))
    if isinstance(value, SymBool):
        return torch.SymBool(TorchSymNode(value))
    if isinstance(value, SymFloat):
        return torch.SymFloat(TorchSymNode(value))
    return value


def to_ours(value: Any) -> Any:
    """A torch symbolic value made by :func:`to_torch` back as this library's (anything else unchanged).

    Raises:
        TorchInteropError: a torch SymInt of another ShapeEnv (torch's own), which this library cannot reason about.
    """
    if isinstance(value, (torch.SymInt, torch.SymFloat, torch.SymBool)):
        node = value.node
        if isinstance(node, TorchSymNode):
            return node.value
        raise TorchInteropError(
            f"{value} is a symbolic value of torch's own ShapeEnv, not of shapeenv's",
            fix="trace with shapeenv.torch.export / shapeenv.torch.compile only, not inside torch.compile or torch.export",
        )
    return value


def _value(node: Any) -> Any:
    return node.value if isinstance(node, TorchSymNode) else node


def _binary(op: Callable[[Any, Any], Any]) -> Callable[["TorchSymNode", Any], "TorchSymNode"]:
    def method(self: "TorchSymNode", other: Any) -> "TorchSymNode":
        return TorchSymNode(op(self.value, _value(other)))

    return method


def _unary(op: Callable[[Any], Any]) -> Callable[["TorchSymNode"], "TorchSymNode"]:
    def method(self: "TorchSymNode") -> "TorchSymNode":
        return TorchSymNode(op(self.value))

    return method


def _floor(v):
    return math.floor(v) if not isinstance(v, (int, SymInt)) else v


def _ceil(v):
    return math.ceil(v) if not isinstance(v, (int, SymInt)) else v


class TorchSymNode:
    """A torch SymNode (the object behind ``torch.SymInt``) over one of this library's values; see the module docstring.

    Attributes:
        value: this library's SymInt / SymFloat / SymBool, or a plain int / float / bool constant.
    """

    __slots__ = ("value",)
    _shapeenv_traced = True  # a torch.SymInt over it exists only inside a trace (shapeenv.export.state.is_traced)

    def __init__(self, value: Any):
        self.value = value

    # -- what the value is --------------------------------------------------------------------------
    @property
    def pytype(self) -> type:
        v = self.value
        return bool if isinstance(v, (bool, SymBool)) else int if isinstance(v, (int, SymInt)) else float

    def is_int(self) -> bool:
        return self.pytype is int

    def is_float(self) -> bool:
        return self.pytype is float

    def is_bool(self) -> bool:
        return self.pytype is bool

    def is_nested_int(self) -> bool:
        return False

    def is_symbolic(self) -> bool:
        return isinstance(self.value, _OURS)

    def is_constant(self) -> bool:
        return not isinstance(self.value, _OURS)

    def nested_int(self):
        return None

    def nested_int_coeff(self):
        return None

    def maybe_as_int(self):
        return self.value if self.pytype is int and self.is_constant() else None

    def maybe_as_float(self):
        return self.value if self.pytype is float and self.is_constant() else None

    def maybe_as_bool(self):
        return self.value if self.pytype is bool and self.is_constant() else None

    def constant_int(self):
        return self.maybe_as_int()

    def constant_bool(self):
        return self.maybe_as_bool()

    @property
    def hint(self):
        v = self.value
        return v.node.hint if isinstance(v, _OURS) else v

    def has_hint(self) -> bool:
        return self.hint is not None

    def require_hint(self, fallback=None):
        h = self.hint
        return h if h is not None else fallback

    def wrap_int(self, num: int) -> "TorchSymNode":
        return TorchSymNode(num)

    def wrap_float(self, num: float) -> "TorchSymNode":
        return TorchSymNode(num)

    def wrap_bool(self, num: bool) -> "TorchSymNode":
        return TorchSymNode(num)

    def clone(self) -> "TorchSymNode":
        return self

    def with_shape_env(self, shape_env) -> "TorchSymNode":
        return self

    # -- decisions: this library's ShapeEnv decides (and records a guard where it must) ---------------
    def guard_int(self, file: str = "", line: int = 0) -> int:
        return int(self.value)

    def guard_float(self, file: str = "", line: int = 0) -> float:
        return float(self.value)

    def guard_bool(self, file: str = "", line: int = 0) -> bool:
        return bool(self.value)

    def int_(self) -> int:
        return int(self.value)

    def bool_(self) -> bool:
        return bool(self.value)

    def float_(self) -> float:
        return float(self.value)

    def expect_true(self, file: str = "", line: int = 0) -> bool:
        check(self.value)
        return True

    def expect_size(self, file: str = "", line: int = 0) -> bool:
        check(self.value >= 0)
        return True

    def guard_size_oblivious(self, file: str = "", line: int = 0) -> bool:
        return guard_size_oblivious(self.value)

    def guard_or_false(self, file: str = "", line: int = 0) -> bool:
        return guard_or_false(self.value)

    def guard_or_true(self, file: str = "", line: int = 0) -> bool:
        return guard_or_true(self.value)

    def statically_known_true(self, file: str = "", line: int = 0) -> bool:
        return statically_known_true(self.value)

    # -- arithmetic (Python semantics, computed by this library's values) -----------------------------
    add = _binary(operator.add)
    sub = _binary(operator.sub)
    mul = _binary(operator.mul)
    mod = _binary(operator.mod)
    int_floordiv = _binary(operator.floordiv)
    float_floordiv = _binary(operator.floordiv)
    floordiv = _binary(operator.floordiv)
    int_truediv = _binary(operator.truediv)
    float_truediv = _binary(operator.truediv)
    truediv = _binary(operator.truediv)
    pow_by_natural = _binary(operator.pow)
    float_pow = _binary(operator.pow)
    pow = _binary(operator.pow)
    eq = _binary(operator.eq)
    ne = _binary(operator.ne)
    lt = _binary(operator.lt)
    le = _binary(operator.le)
    gt = _binary(operator.gt)
    ge = _binary(operator.ge)
    sym_min = _binary(symint.sym_min)
    sym_max = _binary(symint.sym_max)
    sym_and = _binary(symint.sym_and)
    sym_or = _binary(symint.sym_or)
    neg = _unary(operator.neg)
    pos = _unary(operator.pos)
    abs = _unary(operator.abs)
    sym_not = _unary(symint.sym_not)
    sym_float = _unary(symint.sym_float)
    floor = _unary(_floor)
    ceil = _unary(_ceil)
    trunc = _unary(math.trunc)
    sym_int = _unary(math.trunc)

    def sym_ite(self, then_node: Any, else_node: Any) -> "TorchSymNode":
        return TorchSymNode(symint.sym_ite(self.value, _value(then_node), _value(else_node)))

    def round(self, ndigits: int | None = None) -> "TorchSymNode":
        return TorchSymNode(round(self.value, ndigits))

    # -- printing ------------------------------------------------------------------------------------
    def str(self) -> str:  # noqa: A003 - torch's name
        return str(self.value)

    def _graph_repr(self) -> str:
        return str(self.value)

    def __str__(self) -> str:
        return str(self.value)

    def __repr__(self) -> str:
        return f"TorchSymNode({self.value})"
