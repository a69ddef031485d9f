"""Explain, in words, which guards of a set fail on given sizes and what values they saw.

This is the "why did this recompile?" answer: each failing guard is shown in our
source dialect, followed by the values of the sources it reads.

>>> from symint.build import symbol_expr, eq, le
>>> from guards.guardset import GuardSet
>>> from guards.source import Source
>>> s0, s1 = symbol_expr("s0"), symbol_expr("s1")
>>> gs = GuardSet.of([eq(s0, s1), le(2, s0)], {s0: Source.size("x", 0), s1: Source.size("y", 0)})
>>> print(explain(gs, {"x.size()[0]": 1, "y.size()[0]": 4}))
x.size()[0] == y.size()[0] failed: got x.size()[0] = 1, y.size()[0] = 4
2 <= x.size()[0] failed: got 1
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Mapping

from symint.lazy_sympy import lazy_module, sympy


from guards.errors import GuardTypeError, UnknownSourceError
from guards.guard import Guard
from guards.text.escape import sympy_str
from guards.text.printers import to_source_text
from guards.validate import need_guardset, need_mapping

from guards.protocols import Bindings, GuardSetLike

_io = lazy_module("symint.sympy_io")  # Note [sympy on first use] in symint.lazy_sympy

__all__ = ["Failure", "Explanation", "explain", "explain_inputs", "read_inputs"]


@dataclass(frozen=True, slots=True)
class Failure:
    """One guard that does not hold, with the values it was evaluated on.

    Attributes:
        index: the guard's position in the guard set.
        guard: the guard itself.
        text: the guard in our source dialect (``x.size()[0] == 8``).
        values: ``(name, value)`` for each source (or symbol) the guard reads, in the
            order they appear in ``text``.
        error: why evaluation raised (e.g. a division by zero), or None if it was just false.
    """

    index: int
    guard: Guard
    text: str
    values: tuple[tuple[str, int], ...]
    error: str | None = None

    def message(self) -> str:
        """``x.size()[0] == 8 failed: got 9``; names are given when the guard reads several sources.

        >>> from symint.build import symbol_expr, eq
        >>> g = Guard.of(eq(symbol_expr("n"), 8))
        >>> Failure(0, g, "n == 8", (("n", 9),)).message()
        'n == 8 failed: got 9'
        """
        if not self.values:
            got = ": it never holds"
        elif len(self.values) == 1:
            got = f": got {self.values[0][1]}"
        else:
            got = ": got " + ", ".join(f"{name} = {value}" for name, value in self.values)
        why = f" ({self.error})" if self.error else ""
        return f"{self.text} failed{got}{why}"

    def __str__(self) -> str:
        return self.message()


@dataclass(frozen=True, slots=True)
class Explanation:
    """The outcome of :func:`explain`: the failing guards (iterate over it) and a human-readable text.

    Attributes:
        failures: the failing guards, in guard-set order.
        checked: how many guards were evaluated.
    """

    failures: tuple[Failure, ...]
    checked: int

    @property
    def accepted(self) -> bool:
        """Whether every guard holds."""
        return not self.failures

    @property
    def text(self) -> str:
        """One line per failing guard, or a line saying that all guards hold."""
        if not self.failures:
            return f"all {self.checked} guards hold"
        return "\n".join(f.message() for f in self.failures)

    def __iter__(self) -> Iterator[Failure]:
        return iter(self.failures)

    def __len__(self) -> int:
        return len(self.failures)

    def __str__(self) -> str:
        return self.text


def explain(guardset: GuardSetLike, bindings: Bindings, *, first_only: bool = False) -> Explanation:
    """Which guards of ``guardset`` fail for ``bindings``, and on which values.

    Args:
        guardset: the guards.
        bindings: values keyed by symbol, :class:`Source` or text (``"x.size()[0]"``,
            ``"L['x'].size()[0]"`` or a symbol name), as for :meth:`GuardSet.bind`.
        first_only: stop at the first failing guard (what a cache miss reports).

    Returns:
        An :class:`Explanation`; a guard whose evaluation raises (a division by zero)
        counts as failing, with the error in :attr:`Failure.error`.

    Raises:
        UnknownSourceError: a key names nothing in the set, or a guard reads a symbol with no value.

    >>> from symint.build import symbol_expr, eq
    >>> from guards.guardset import GuardSet
    >>> from guards.source import Source
    >>> s0 = symbol_expr("s0")
    >>> gs = GuardSet.of([eq(s0, 8)], {s0: Source.size("x", 0)})
    >>> str(explain(gs, {"x.size()[0]": 9})), explain(gs, {"L['x'].size()[0]": 8}).accepted
    ('x.size()[0] == 8 failed: got 9', True)
    """
    need_guardset(guardset, "explain's guardset")
    values = guardset.bind(bindings)
    return _explain_values(guardset, values, first_only)


def read_inputs(guardset: GuardSetLike, inputs: Mapping[str, object]) -> dict[sympy.Symbol, int]:
    """Read every source of ``guardset`` from ``inputs`` (input name -> int or array-like).

    Raises:
        UnknownSourceError: an input the guards read is missing.
        GuardTypeError: an input has no such size or stride.

    >>> import numpy as np
    >>> from symint.build import symbol_expr, eq
    >>> from guards.guardset import GuardSet
    >>> from guards.source import Source
    >>> s0 = symbol_expr("s0")
    >>> read_inputs(GuardSet.of([eq(s0, 8)], {s0: Source.size("x", 1)}), {"x": np.zeros((2, 9))})
    {s0: 9}
    """
    need_guardset(guardset, "read_inputs' guardset")
    need_mapping(inputs, "inputs (input name -> int or array)")
    out: dict[sympy.Symbol, int] = {}
    for sym, src in guardset.sources:
        if src.base not in inputs:
            bases = ", ".join(sorted({repr(s.base) for _, s in guardset.sources}))
            raise UnknownSourceError(f"no input named {src.base!r} (the guards read inputs {bases})")
        obj = inputs[src.base]
        try:
            out[sym] = src.read(obj)
        except (LookupError, AttributeError, TypeError, ValueError) as exc:
            kind = type(obj).__name__
            raise GuardTypeError(f"cannot read {src.text()} from the input {src.base!r} ({kind}): {exc}") from None
    return out


def explain_inputs(guardset: GuardSetLike, inputs: Mapping[str, object], *, first_only: bool = False) -> Explanation:
    """:func:`explain` on sizes read from objects (input name -> int or array-like with ``.shape``).

    >>> import numpy as np
    >>> from symint.build import symbol_expr, le
    >>> from guards.guardset import GuardSet
    >>> from guards.source import Source
    >>> s0 = symbol_expr("s0")
    >>> print(explain_inputs(GuardSet.of([le(2, s0)], {s0: Source.size("x", 0)}), {"x": np.zeros(1)}))
    2 <= x.size()[0] failed: got 1
    """
    return _explain_values(guardset, read_inputs(guardset, inputs), first_only)


def _explain_values(guardset: GuardSetLike, values: dict[sympy.Symbol, int], first_only: bool) -> Explanation:
    sources = guardset.source_map
    missing = sorted({s for g in guardset.guards for s in g.free_symbols if s not in values}, key=lambda s: s.name)
    if missing:
        raise UnknownSourceError(f"no value given for {', '.join(_label(s, sources) for s in missing)}")
    by_name = {s.name: v for s, v in values.items()}  # forms name their symbols by name
    failures: list[Failure] = []
    checked = 0
    for index, g in enumerate(guardset.guards):
        checked += 1
        error = None
        try:
            ok = bool(g.form.evaluate(by_name))  # left to right, as GuardSet.failures and the compiled checker
        except (ArithmeticError, ValueError) as exc:
            ok, error = False, f"evaluating it raised {type(exc).__name__}: {exc}"
        if ok:
            continue
        failures.append(_failure(index, g, values, sources, error))
        if first_only:
            break
    return Explanation(tuple(failures), checked)


def _failure(index, g: Guard, values, sources, error) -> Failure:
    text = _text(g.form, sources)
    labelled = [(_label(s, sources), values[s]) for s in g.free_symbols]
    # In the order the names appear in the printed guard (ties and misses: by name).
    labelled.sort(key=lambda kv: (text.find(kv[0]) if kv[0] in text else len(text), kv[0]))
    return Failure(index, g, text, tuple(labelled), error)


def _text(e, sources) -> str:
    """``e`` (a form, or a sympy symbol) in source text, or sympy's text when guard text cannot spell it."""
    try:
        return to_source_text(e, sources)
    except GuardTypeError:  # e.g. a symbol name guard text cannot spell
        return sympy_str(e if isinstance(e, sympy.Basic) else _io.to_sympy(e))


def _label(sym: sympy.Symbol, sources) -> str:
    return _text(sym, sources)
