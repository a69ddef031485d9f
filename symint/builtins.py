"""Symbolic counterparts of ``max``, ``min``, ``not``, ``and``, ``or`` and the conditional expression.

Python's ``max(a, b)`` compares its arguments, which for symbolic values means a
guard; ``sym_max`` builds ``Max(a, b)`` instead and decides nothing. Each helper
returns a plain value when its arguments are plain.

>>> from symint import symbol
>>> s = symbol("s", hint=3)
>>> sym_max(s, 2), sym_max(4, 2), sym_not(s > 2), sym_ite(s > 2, s, 0)
(Max(2, s), 4, s <= 2, IfThenElse(s > 2, s, 0))
"""

from __future__ import annotations

from . import build
from . import form as F
from .errors import SymbolicTypeError
from .node import SymbolicEnv, SymNode, compute_hint, merge_envs
from .values import SymBool, SymFloat, SymInt, _env_of, _int_operand, unwrap, wrap

__all__ = ["sym_max", "sym_min", "sym_not", "sym_and", "sym_or", "sym_ite", "symbol", "is_symbolic"]


def is_symbolic(value: object) -> bool:
    """Whether ``value`` is a ``SymInt``, ``SymBool`` or ``SymFloat``.

    >>> is_symbolic(3), is_symbolic(symbol("s"))
    (False, True)
    """
    return isinstance(value, (SymInt, SymBool, SymFloat))


def symbol(name: str, hint: int | None = None, *, env: SymbolicEnv | None = None) -> SymInt:
    """A pure ``SymInt`` for the integer symbol ``name`` (an environment is optional).

    Without an environment the value can be combined, printed and evaluated but
    not made concrete (``bool()`` raises :class:`~symint.errors.NoEnvironmentError`).

    >>> s = symbol("batch", hint=8)
    >>> s * 2, (s * 2).node.hint
    (2*batch, 16)
    """
    if hint is not None and (isinstance(hint, bool) or not isinstance(hint, int)):
        raise TypeError(f"a hint must be an int, got {hint!r}")
    if not isinstance(name, str) or not name.isidentifier():  # as symbol_expr: the view is symbol_expr(name)
        raise ValueError(f"symbol names must be Python identifiers, got {name!r}")
    return SymInt(SymNode.of_form(F.sym(name), int, hint, env))


def _operands(args: tuple, what: str):
    unpacked = [unwrap(a) for a in args]
    for arg, u in zip(args, unpacked):
        if u is None:
            raise SymbolicTypeError(f"{what}: unsupported argument {arg!r} of type {type(arg).__name__}")
    return unpacked


def _minmax(args: tuple, builder, pick, what: str):
    if not args:
        raise TypeError(f"{what} expected at least 1 argument, got 0")
    if not any(is_symbolic(a) for a in args):
        return pick(args)
    fast = _form_minmax(args, F.max_ if pick is max else F.min_, pick)
    if fast is not None:
        return fast
    ops = _operands(args, what)
    if any(t is bool for _, _, t, _ in ops):
        raise SymbolicTypeError(f"{what}: arguments must be numbers, not booleans")
    expr = ops[0][0]
    for e, _, _, _ in ops[1:]:
        expr = builder(expr, e)
    pytype = float if any(t is float for _, _, t, _ in ops) else int
    hint = compute_hint(lambda *hs: pick(hs), *(h for _, h, _, _ in ops))
    env = merge_envs(*(n for _, _, _, n in ops if n is not None))
    return wrap(expr, pytype, hint, env)


def _form_minmax(args: tuple, fop, pick):
    """Max/Min on canonical forms when every argument is an int or a SymInt with a form, else None."""
    ops = [_int_operand(a) for a in args]
    if None in ops:  # ops are tuples or None: the comparison is by identity for None
        return None
    form, hint, node = ops[0]
    env_node = node
    for f, h, n in ops[1:]:
        form = fop(form, f)
        hint = None if hint is None or h is None else pick(hint, h)
        if n is not None:
            env_node = n if env_node is None else env_node
            if n.env is not env_node.env:
                merge_envs(env_node, n)
    if form.is_const:
        return form.const
    return SymInt(SymNode.of_form(form, int, hint, env_node.env if env_node else None))


def sym_max(*args):
    """``max`` without a guard: a ``Max`` expression when any argument is symbolic.

    >>> sym_max(symbol("a"), symbol("b"), 3)
    Max(3, a, b)
    """
    return _minmax(args, build.max_, max, "sym_max")


def sym_min(*args):
    """``min`` without a guard: a ``Min`` expression when any argument is symbolic.

    >>> sym_min(symbol("a"), 0)
    Min(0, a)
    """
    return _minmax(args, build.min_, min, "sym_min")


def _bool_operands(args: tuple, what: str):
    ops = _operands(args, what)
    for arg, (_, _, t, _) in zip(args, ops):
        if t is not bool:
            raise SymbolicTypeError(f"{what}: expected a bool or SymBool, got {arg!r}")
    return ops


def _connective(values: tuple, builder, pick, what: str):
    """``all``/``any`` of bools and SymBools: ``builder`` (``build.and_``/``or_``) on their expressions, ``pick`` on their hints."""
    ops = _bool_operands(values, what)
    env = merge_envs(*(n for _, _, _, n in ops if n is not None))
    return wrap(builder(*(e for e, _, _, _ in ops)), bool, compute_hint(lambda *hs: pick(hs), *(h for _, h, _, _ in ops)), env)


def sym_not(value):
    """``not value`` without a guard.

    >>> sym_not(True), sym_not(symbol("a") < 3)
    (False, a >= 3)
    """
    ((e, h, _, n),) = _bool_operands((value,), "sym_not")
    return wrap(build.not_(e), bool, compute_hint(lambda x: not x, h), n.env if n else None)


def sym_and(*values):
    """``all(values)`` without a guard.

    >>> sym_and(symbol("a") < 3, True)
    a < 3
    """
    return _connective(values, build.and_, all, "sym_and")


def sym_or(*values):
    """``any(values)`` without a guard.

    >>> sym_or(symbol("a") < 3, False)
    a < 3
    """
    return _connective(values, build.or_, any, "sym_or")


def sym_ite(cond, if_true, if_false):
    """``if_true if cond else if_false`` without a guard.

    >>> sym_ite(symbol("a") < 3, 1, 2)
    IfThenElse(a < 3, 1, 2)
    """
    ((ec, hc, tc, nc),) = _operands((cond,), "sym_ite")
    if tc is not bool:
        raise SymbolicTypeError(f"sym_ite: the condition must be a bool or SymBool, got {cond!r}")
    if not isinstance(cond, SymBool):
        return if_true if cond else if_false
    (ea, ha, ta, na), (eb, hb, tb, nb) = _operands((if_true, if_false), "sym_ite")
    if (ta is bool) != (tb is bool):
        raise SymbolicTypeError("sym_ite: both branches must be booleans or both numbers")
    env = merge_envs(*(n for n in (nc, na, nb) if n is not None))
    hint = compute_hint(lambda c, a, b: a if c else b, hc, ha, hb)
    if ta is bool:
        expr = build.or_(build.and_(ec, ea), build.and_(build.not_(ec), eb))
        return wrap(expr, bool, hint, env)
    pytype = float if float in (ta, tb) else int
    return wrap(build.ite(ec, ea, eb), pytype, hint, env)


