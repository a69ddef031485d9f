"""``SymNode``: an immutable symbolic value, and the protocol it uses to reach its environment.

A node is an expression, the Python type it stands for (``int``, ``bool`` or
``float``), the value it takes under the environment's hints (``None`` when some
symbol has no hint, as for data-dependent sizes), and the environment that must
be asked whenever the value has to become concrete. ``symint`` never imports an
environment: anything satisfying :class:`SymbolicEnv` will do (``ShapeEnv`` does).
"""

from __future__ import annotations

from typing import Callable, Protocol, runtime_checkable

from symint.lazy_sympy import sympy

from symint.errors import MixedEnvironmentError, NoEnvironmentError


__all__ = ["SymbolicEnv", "SymNode", "Hint", "merge_envs", "compute_hint"]

Hint = int | bool | float | None


@runtime_checkable
class SymbolicEnv(Protocol):
    """What a :class:`SymNode` needs from the environment that created its symbols."""

    def evaluate_sym_node(self, node: "SymNode", *, reason: str) -> int | bool | float:
        """Make ``node`` concrete: decide it statically, or by its hint while recording a guard.

        ``reason`` says why the value was needed (``"bool"``, ``"int"``, ``"index"``, ...).
        """
        ...  # pragma: no cover


class SymNode:
    """An immutable symbolic value: ``expr`` of Python type ``pytype`` with value ``hint``.

    Integer and boolean values are held as canonical forms (:mod:`symint.form`,
    :mod:`symint.form.logic`: ``form``); the sympy ``expr`` is built from the form
    on first request, once. A node may also be created from a sympy expression,
    whose form is then derived on first request (float expressions have none).

    Nodes compare by identity; compare their ``form`` (or ``expr``) for structural equality.

    >>> from symint.build import symbol_expr
    >>> n = SymNode(symbol_expr("s0"), int, 4)
    >>> n.expr, n.pytype.__name__, n.hint, n.env is None, n.form.atom().name
    (s0, 'int', 4, True, 's0')
    """

    __slots__ = ("_expr", "_form", "pytype", "hint", "env")

    def __init__(self, expr: sympy.Basic | None = None, pytype: type = int, hint: Hint = None,
                 env: "SymbolicEnv | None" = None, *, form=None):
        if expr is None and form is None:
            raise TypeError("a SymNode needs an expression or a form")
        setattr_ = object.__setattr__
        setattr_(self, "_expr", expr)
        setattr_(self, "_form", form)
        setattr_(self, "pytype", pytype)
        setattr_(self, "hint", hint)
        setattr_(self, "env", env)

    @classmethod
    def of_form(cls, form, pytype: type, hint: Hint, env: "SymbolicEnv | None") -> "SymNode":
        """The node of a canonical ``form`` (its sympy expression built on first use).

        What ``SymNode(None, pytype, hint, env, form=form)`` builds, without the checks and
        the attribute lookups by name: every operation of a trace makes one.

        >>> from symint import form as F
        >>> n = SymNode.of_form(F.sym("s0"), int, 4, None)
        >>> n.expr, n.hint
        (s0, 4)
        """
        node = _new(cls)
        _SET_EXPR(node, None)
        _SET_FORM(node, form)
        _SET_PYTYPE(node, pytype)
        _SET_HINT(node, hint)
        _SET_ENV(node, env)
        return node

    def __setattr__(self, name, value):
        raise AttributeError(f"SymNode is immutable (cannot set {name})")

    @property
    def expr(self) -> sympy.Basic:
        """The sympy expression (built from the form on first use)."""
        e = self._expr
        if e is None:
            from symint.sympy_io import to_sympy  # the view: sympy on first use (Note [sympy on first use] in symint.lazy_sympy)

            e = to_sympy(self._form)
            object.__setattr__(self, "_expr", e)
        return e

    @property
    def form(self):
        """The canonical form (``Form`` for ints, ``BoolForm`` for bools), or None for floats."""
        f = self._form
        if f is None:
            f = _form_of(self._expr, self.pytype)
            object.__setattr__(self, "_form", f)
        return f or None

    def current_expr(self) -> sympy.Basic:
        """``expr``, or its value when the environment has pinned it since: for display.

        A guard or assert may pin symbols after the node was built (``x + ones(6)`` pins
        ``s0 = 6``); printing shows the value, as torch prints ``torch.Size([6])``. An
        expression that is not pinned keeps its own symbols (``u0`` after ``check(u0 == 4*u1)``
        still prints ``u0``, as in torch). An environment offers this with a ``simplify`` method
        taking an expression (``ShapeEnv`` has one); without one, this is ``expr``. Records nothing.

        >>> from symint.build import symbol_expr
        >>> SymNode(symbol_expr("s0"), int, 4).current_expr()
        s0
        """
        e = self.expr
        as_known = getattr(self.env, "simplify", None)
        if as_known is None or e.is_number or self.pytype is float:
            return e
        known = as_known(e)
        return known if known.is_number or known in (sympy.true, sympy.false) else e  # a symbol keeps its own name

    def concrete(self, reason: str) -> int | bool | float:
        """Ask the environment for a concrete value (recording a guard if it must).

        Raises:
            NoEnvironmentError: the node is a pure expression with no environment.
        """
        if self.env is None:
            raise NoEnvironmentError(
                f"cannot make {self.expr} concrete ({reason}): this symbolic value has no environment. "
                "Create it through a ShapeEnv (env.create_symint(...)) to let branches record guards, "
                "or use symint.evaluate(expr, {symbol: value}) to evaluate a pure expression."
            )
        return self.env.evaluate_sym_node(self, reason=reason)

    def __repr__(self) -> str:
        return f"SymNode({self.expr}, {self.pytype.__name__}, hint={self.hint})"


_new = object.__new__
# the slots' own setters (SymNode.__setattr__ refuses every assignment: the node is immutable)
_SET_EXPR, _SET_FORM, _SET_PYTYPE, _SET_HINT, _SET_ENV = (SymNode.__dict__[n].__set__ for n in SymNode.__slots__)


def _form_of(expr: sympy.Basic, pytype: type):
    """The form of a sympy expression, or False when it has none (floats)."""
    if pytype is float:
        return False
    from symint.sympy_io import NotAnIntegerForm, bool_from_sympy, from_sympy  # a sympy node: sympy is loaded

    if pytype is bool:
        return bool_from_sympy(expr)
    try:
        return from_sympy(expr)
    except NotAnIntegerForm:
        return False


def merge_envs(*nodes: SymNode) -> SymbolicEnv | None:
    """The one environment shared by ``nodes`` (ignoring nodes without one).

    Raises:
        MixedEnvironmentError: two nodes belong to different environments.
    """
    env = None
    for node in nodes:
        if node.env is None:
            continue
        if env is None:
            env = node.env
        elif node.env is not env:
            raise MixedEnvironmentError(
                f"cannot combine {nodes[0].expr} and {node.expr}: they come from different environments; "
                "create all symbolic sizes of one program from the same ShapeEnv"
            )
    return env


def compute_hint(op: Callable[..., Hint], *hints: Hint) -> Hint:
    """Apply ``op`` to the hints, or return None when any hint is unknown."""
    if any(h is None for h in hints):
        return None
    return op(*hints)
