"""Errors raised by the ``guards`` package.

Each subclasses :class:`GuardError` and the built-in it resembles.
"""

from __future__ import annotations

__all__ = [
    "GuardError",
    "GuardParseError",
    "UnknownSourceError",
    "AmbiguousSourceError",
    "UnknownEntryError",
    "GuardTypeError",
    "GuardValueError",
    "SolverError",
    "CodegenError",
]


class GuardError(Exception):
    """Base class of every error raised by ``guards``."""


class GuardParseError(GuardError, ValueError):
    """Guard text could not be parsed.

    Attributes:
        text: the whole input line.
        column: 1-based column of the offending character.
        fragment: the offending text.
        line: 1-based line number in a multi-line input (0 when not known).
        message: the message without the location.
        path: the file the text came from ("" when not from a file).
    """

    def __init__(self, message: str, text: str = "", column: int = 0, fragment: str = "", line: int = 0,
                 path: str = ""):
        self.message, self.text, self.column, self.fragment, self.line = message, text, column, fragment, line
        self.path = path
        where = ", ".join(([path] if path else []) + ([f"line {line}"] if line else []) + ([f"column {column}"] if column else []))
        where = f" at {where}" if where else ""
        shown = f": {fragment[:60]!r}{'...' if len(fragment) > 60 else ''}" if fragment else ""
        pointer = ""
        if text and column:
            # Show at most ~70 characters around the column, so a 100k-character line stays readable;
            # control characters become '?' so that the caret stays under its column.
            start = max(0, column - 40)
            window = "".join(c if c.isprintable() else "?" for c in text[start : start + 70])
            shown_text = ("..." if start else "") + window + ("..." if start + 70 < len(text) else "")
            pointer = f"\n  {shown_text}\n  {' ' * (column - 1 - start + (3 if start else 0))}^"
        super().__init__(f"{message}{where}{shown}{pointer}")

    def in_file(self, path: "str | object") -> "GuardParseError":
        """The same error, naming the file it was read from.

        >>> print(GuardParseError("unexpected character", "x === 1", 4, "=", line=2).in_file("g.txt"))
        unexpected character at g.txt, line 2, column 4: '='
          x === 1
             ^
        """
        if self.path:
            return self
        return GuardParseError(self.message, self.text, self.column, self.fragment, self.line, path=str(path))


class UnknownSourceError(GuardError, KeyError):
    """A binding or query names a source or symbol the guard set does not know."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


class UnknownEntryError(GuardError, KeyError):
    """A torch log has no guard tree with the compile id asked for (the message lists the ids it has)."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


class AmbiguousSourceError(GuardError, ValueError):
    """Two inputs (or a symbol and an input) answer to the same name, e.g. an int input called
    ``x.size()[0]`` next to the size of ``x``: a binding or witness keyed by that name would be ambiguous."""


class GuardTypeError(GuardError, TypeError):
    """A guard is not a boolean expression, or an operand has the wrong type."""


class GuardValueError(GuardError, ValueError):
    """An argument has the right type but a value that means nothing (an unknown dialect, a bad index)."""


class SolverError(GuardError, RuntimeError):
    """Z3 failed in a way that is not a plain ``unknown`` (e.g. an unsupported expression)."""


class CodegenError(GuardError, ValueError):
    """A guard set cannot be compiled to a checker (e.g. an unsupported expression)."""
