"""Stances: how compiled functions behave right now (``torch.compiler.set_stance``).

======================  =================================================================
stance                  what a compiled function does
======================  =================================================================
``default``             compile on a cache miss, run the cached entry on a hit
``force_eager``         never compile and never look up: run the function eagerly
``eager_on_recompile``  use existing entries; run eagerly instead of recompiling
``fail_on_recompile``   use existing entries; raise :class:`RecompileError` instead of
                        recompiling (the first compilation is allowed)
``eager_then_compile``  run the first call eagerly and compile from the second on;
                        dims that differ between the first two calls are traced dynamic
======================  =================================================================

:func:`set_stance` works as a plain call (the stance holds until changed), as a
context manager (restored on exit) and as a decorator (held only while the
decorated function runs).

Note [Where the stance lives]
    The stance is held by one :class:`contextvars.ContextVar`, not a module global:
    it is per thread (a new thread starts at ``default``, whatever other threads set)
    and per asyncio task, and ``with set_stance(...)`` restores exactly what was set
    before. Code that hands work to a thread pool and wants the caller's stance runs
    it under ``contextvars.copy_context().run``. Compiled functions read it on every
    call (one ``ContextVar.get``).

>>> current_stance()
<Stance.DEFAULT: 'default'>
>>> with set_stance("force_eager"):
...     current_stance().value
'force_eager'
>>> current_stance().value
'default'
"""

from __future__ import annotations

import contextvars
import difflib
import enum
import functools
from typing import Any, Callable

from shapeenv.errors import ShapeEnvTypeError, ShapeEnvValueError

__all__ = ["Stance", "set_stance", "current_stance", "StanceSetting"]


class Stance(str, enum.Enum):
    """The stances (see the module docstring)."""

    DEFAULT = "default"
    FORCE_EAGER = "force_eager"
    EAGER_ON_RECOMPILE = "eager_on_recompile"
    FAIL_ON_RECOMPILE = "fail_on_recompile"
    EAGER_THEN_COMPILE = "eager_then_compile"

    @classmethod
    def parse(cls, value: "Stance | str") -> "Stance":
        """The stance named ``value``.

        Raises:
            ValueError: no stance has that name (the message lists them).

        >>> Stance.parse("fail_on_recompile")
        <Stance.FAIL_ON_RECOMPILE: 'fail_on_recompile'>
        """
        if isinstance(value, Stance):
            return value
        try:
            return cls(value)
        except ValueError:
            names = ", ".join(repr(s.value) for s in cls)
            close = difflib.get_close_matches(str(value), [s.value for s in cls], n=1)
            raise ShapeEnvValueError(f"unknown stance {value!r}; the stances are {names}",
                                     fix=f"set_stance({close[0]!r})" if close else None) from None


_STANCE: contextvars.ContextVar[Stance] = contextvars.ContextVar("shapeenv_stance", default=Stance.DEFAULT)

#: The bound ``get`` of the context variable: what compiled functions call on every call.
stance_now: Callable[[], Stance] = _STANCE.get


def current_stance() -> Stance:
    """The stance of the calling thread (or task).

    >>> current_stance().value
    'default'
    """
    return _STANCE.get()


class StanceSetting:
    """What :func:`set_stance` returns: the stance is already set; use it as a context manager or decorator.

    Attributes:
        stance: the stance that was set.
        previous: the stance before it.
    """

    __slots__ = ("stance", "previous", "_token")

    def __init__(self, stance: Stance):
        self.stance = stance
        self.previous = _STANCE.get()
        self._token: contextvars.Token | None = _STANCE.set(stance)

    def __enter__(self) -> "StanceSetting":
        _STANCE.set(self.stance)
        return self

    def __exit__(self, *exc: object) -> None:
        self._restore()

    def _restore(self) -> None:
        token, self._token = self._token, None
        try:
            if token is not None:
                _STANCE.reset(token)
                return
        except ValueError:  # the token belongs to another context (e.g. exited in another thread)
            pass
        _STANCE.set(self.previous)

    def __call__(self, fn: Callable) -> Callable:
        """Decorate ``fn``: undo the immediate setting, and hold the stance only while ``fn`` runs."""
        self._restore()
        if not callable(fn):
            raise ShapeEnvTypeError(f"set_stance(...) decorates a callable, got {fn!r}",
                                    fix='@set_stance("eager_on_recompile") above a def, or `with set_stance(...):`')
        stance = self.stance

        @functools.wraps(fn)
        def with_stance(*args: Any, **kwargs: Any) -> Any:
            token = _STANCE.set(stance)
            try:
                return fn(*args, **kwargs)
            finally:
                _STANCE.reset(token)

        return with_stance

    def __repr__(self) -> str:
        return f"set_stance({self.stance.value!r})"


def set_stance(stance: Stance | str = Stance.DEFAULT) -> StanceSetting:
    """Set the stance of compiled functions in this thread (see the module docstring).

    Args:
        stance: a :class:`Stance` or its name.

    Returns:
        A :class:`StanceSetting`: ignore it to keep the stance, use it in a ``with``
        statement to restore the previous stance on exit, or as a decorator.

    Raises:
        ValueError: unknown stance name.

    >>> @set_stance("eager_on_recompile")
    ... def peek():
    ...     return current_stance().value
    >>> peek(), current_stance().value
    ('eager_on_recompile', 'default')
    >>> _ = set_stance("fail_on_recompile"); current_stance().value
    'fail_on_recompile'
    >>> _ = set_stance("default")
    """
    return StanceSetting(Stance.parse(stance))
