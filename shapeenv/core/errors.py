"""Errors raised by the ShapeEnv core (symbols, facts, decisions, runtime asserts).

Each subclasses :class:`ShapeEnvError` and the built-in it resembles. Every error knows
the user's line that raised it (the innermost frame outside the library) and, where there
is one, a fix to paste; both are printed under the message. The tensor world's errors
(shape rules, higher-order ops, dynamic_shapes specs) subclass the same base in
:mod:`shapeenv.errors`, which also re-exports these.

>>> try:
...     raise ContradictionError("s0 >= 5 contradicts s0 in [2, 4]", fix="drop the check")
... except ValueError as e:
...     print(str(e).replace(e.where, "<here>"))
s0 >= 5 contradicts s0 in [2, 4]
  at <here>
  fix: drop the check
"""

from __future__ import annotations

from valueranges.errors import ContradictoryFactsError

from .provenance import user_frame

__all__ = [
    "ShapeEnvError",
    "ConstraintViolationError",
    "GuardOnDataDependentSymNode",
    "CheckFailedError",
    "ContradictionError",
    "ShapeEnvTypeError",
    "ShapeEnvValueError",
    "SettingsError",
    "UnknownSymbolError",
]


FIND_WHERE = object()  #: the default of ``where=``: find the user's frame when the error is made


class ShapeEnvError(Exception):
    """Base class of every error raised by ``shapeenv``.

    Args:
        *args: the message (what happened), as for any exception.
        fix: what to do, preferably code the user can paste (printed as ``fix: ...``).
        where: the user's ``file:line in function``; found from the call stack when omitted.

    Attributes:
        where: the user's line that raised it (None outside user code, e.g. in the CLI).
        fix: what to do, or None.
        context: lines that word the inputs in the user's terms (tensor names, sizes and the
            sources of the symbols the message mentions), added by the op that raised.
    """

    def __init__(self, *args: object, fix: str | None = None, where: object = FIND_WHERE):
        super().__init__(*args)
        self.fix = fix
        self.where = user_frame(2) if where is FIND_WHERE else where
        self._context: tuple[str, ...] | None = ()
        self._make_context = None  # set by shapeenv.core.messages.annotate; run only when the error is printed

    @property
    def context(self) -> tuple[str, ...]:
        """The lines wording the inputs in the user's terms (built when first asked for)."""
        if self._context is None:
            self._context = tuple(self._make_context())
        return self._context

    @context.setter
    def context(self, lines) -> None:
        self._context = tuple(lines)

    def __reduce__(self):
        """Pickle with the context built (the function that builds it is not picklable)."""
        state = {**self.__dict__, "_context": self.context, "_make_context": None}
        return self.__class__, self.args, state

    def add_context(self, make) -> None:
        """Let ``make()`` build the context lines when the error is printed (errors caught on a path cost nothing)."""
        if self._context == () and self._make_context is None:
            self._context, self._make_context = None, make

    @property
    def message(self) -> str:
        """What happened, without the location, context and fix lines."""
        return self.args[0] if len(self.args) == 1 and isinstance(self.args[0], str) else Exception.__str__(self)

    def __str__(self) -> str:
        text = self.message
        lines = [text, *(f"  {c}" for c in self.context)]
        if self.where and self.where not in text:
            lines.append(f"  at {self.where}")
        if self.fix and self.fix not in text:
            lines.append(f"  fix: {self.fix}")
        return "\n".join(lines)


class ConstraintViolationError(ShapeEnvError, ValueError):
    """A dimension's value violates the range it was declared with, or a declared-dynamic dim was specialised."""


class GuardOnDataDependentSymNode(ShapeEnvError, RuntimeError):
    """A branch depends on a data-dependent (unbacked) size that no fact decides.

    Attributes:
        expr: the undecided expression (after known replacements).
        unbacked: the unbacked symbols in it, which have no hint.
        origin: the user's ``file:line`` that asked.
        suggestion: the ``check(...)`` call that would decide it.
    """

    def __init__(self, message: str, *, expr=None, unbacked=(), origin=None, suggestion=None):
        super().__init__(message)
        self.expr, self.unbacked, self.origin, self.suggestion = expr, tuple(unbacked), origin, suggestion


class CheckFailedError(ShapeEnvError, AssertionError):
    """A ``check(...)`` is false: statically, or for the hints of the sizes being traced."""


class ContradictionError(ShapeEnvError, ContradictoryFactsError):
    """A new fact contradicts what the environment already knows (e.g. an empty range).

    The facts engine raises :class:`valueranges.errors.ContradictoryFactsError`; the
    environment re-raises it as this error (which is also one, and a ``ValueError``) with
    the user's line.
    """


class ShapeEnvTypeError(ShapeEnvError, TypeError):
    """An argument has the wrong type (a hint that is not an int, a source that is not a ``Source``,
    a non-callable where a function belongs); the message names the argument and what it takes."""


class ShapeEnvValueError(ShapeEnvError, ValueError):
    """An argument has the right type but a value that means nothing here (an unknown stance name,
    a negative limit, a source given a symbol twice); the message names it and the values allowed."""


class SettingsError(ShapeEnvValueError):
    """A :class:`~shapeenv.core.settings.ShapeEnvSettings` field has a value it cannot take."""


class UnknownSymbolError(ShapeEnvError, KeyError):
    """A symbol name or source text names nothing in this environment (the message says what it has)."""
