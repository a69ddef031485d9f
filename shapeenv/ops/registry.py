"""The op registry: one shape rule and (once numpy is loaded) one eager kernel per op name.

A rule is a plain function from fake values to fake values that validates its inputs and
computes output shapes; :func:`shapeenv.ops.dispatch.call` applies it. The public face of each
op (its ``shapeenv.ops`` function, Tensor methods, torch names) is its :class:`OpDef` in
:mod:`shapeenv.ops.table`.

>>> import shapeenv.ops
>>> "add" in registered(), rule_of("add").__name__
(True, 'add')
"""

from __future__ import annotations

from typing import Any, Callable

from ..errors import ShapeEnvValueError

__all__ = ["rule", "registered", "rule_of", "eager_kernel", "eager_kernel_of", "load_eager_kernels",
           "on_first_eager_use", "has_eager_loaders"]

Rule = Callable[..., Any]
_RULES: dict[str, Rule] = {}  # filled once, at import time, by the @rule decorators of shapeenv.ops.rules.*
_EAGER: dict[str, Callable[..., Any]] = {}  # filled by shapeenv.ops.kernels.numpy when it is imported (real arrays)
#: Called once, the first time real arrays reach an op: imports the numpy kernels (so numpy is
#: imported only by programs that use it). Set by ``shapeenv/__init__``.
_EAGER_LOADERS: list[Callable[[], None]] = []


def load_eager_kernels() -> None:
    """Import the eager kernels now if they are not loaded yet (a no-op without numpy)."""
    while _EAGER_LOADERS:
        _EAGER_LOADERS.pop()()


def has_eager_loaders() -> bool:
    """Whether the eager kernels are still to be loaded (:func:`load_eager_kernels` has work to do)."""
    return bool(_EAGER_LOADERS)


def on_first_eager_use(loader: Callable[[], None]) -> None:
    """Run ``loader`` the first time an op is called on real arrays (it registers the eager kernels)."""
    _EAGER_LOADERS.append(loader)


def rule(name: str) -> Callable[[Rule], Rule]:
    """Register ``fn`` as the shape rule of op ``name`` (each name once)."""

    def register(fn: Rule) -> Rule:
        if name in _RULES:
            raise ShapeEnvValueError(f"op {name!r} already has a shape rule ({_RULES[name].__module__})", fix="register the rule under another name")
        _RULES[name] = fn
        return fn

    return register


def rule_of(name: str) -> Rule | None:
    """The shape rule registered as ``name``, or None."""
    return _RULES.get(name)


def eager_kernel(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register the kernel that runs op ``name`` on real arrays when it is called outside a trace.

    This is what lets a function written with :mod:`shapeenv.ops` run eagerly on numpy
    arrays (``compile``'s eager stances, the first call of ``eager_then_compile``).
    """

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        _EAGER.setdefault(name, fn)
        return fn

    return register


def eager_kernel_of(name: str) -> Callable[..., Any] | None:
    """The eager kernel of op ``name`` (None until the kernels are loaded, or when it has none)."""
    return _EAGER.get(name)


def registered() -> tuple[str, ...]:
    """The names of all ops with a shape rule, sorted."""
    return tuple(sorted(_RULES))
