"""Which guards conflict: a minimal unsatisfiable subset of a guard set (Z3's unsat core, shrunk).

"satisfiable: no" alone does not say what to fix; the conflict names the few guards (and the
implicit ranges of the domain) that cannot hold together, each with where it came from.

>>> from symint.build import symbol_expr, ge, lt, eq, mod
>>> from guards import GuardSet, Source
>>> n = symbol_expr("s0")
>>> gs = GuardSet.of([ge(n, 8), eq(mod(n, 2), 0), lt(n, 6)], {n: Source.size("x", 0)})
>>> c = conflict(gs)
>>> c.found, c.indices, c.minimal
(True, (0, 2), True)
>>> print(c.text())
these 2 guards cannot all hold:
  [0] x.size()[0] >= 8
  [2] x.size()[0] < 6
"""

from __future__ import annotations

from dataclasses import dataclass

from symint.lazy_sympy import sympy

from valueranges import ValueRanges

from guards.guard import Guard
from guards.text.printers import to_source_text
from guards.solver.z3_solver import Budget, SatStatus, SolverConfig, Z3Context, minimal_unsat_core
from guards.solver.z3_translate import Translator

from guards.protocols import GuardSetLike

__all__ = ["Conflict", "conflict"]


@dataclass(frozen=True, slots=True)
class Conflict:
    """The outcome of :func:`conflict`.

    Attributes:
        status: ``"unsat"`` (a conflict was found), ``"sat"`` (the guards can all hold: no conflict)
            or ``"unknown"`` (Z3 could not tell within its budget).
        indices: positions in the guard set of the conflicting guards (sorted).
        guards: those guards.
        domain: ``(symbol, range)`` of the implicit domain ranges that take part in the conflict.
        minimal: whether every member was shown to be needed (dropping any one makes the rest satisfiable).
        sources: symbol -> source, for printing.
    """

    status: str
    indices: tuple[int, ...] = ()
    guards: tuple[Guard, ...] = ()
    domain: tuple[tuple[sympy.Symbol, ValueRanges], ...] = ()
    minimal: bool = False
    sources: tuple = ()

    @property
    def found(self) -> bool:
        """Whether the guards conflict (the set is unsatisfiable)."""
        return self.status == "unsat"

    def lines(self) -> list[str]:
        """One line per member: ``[i] guard  # origin``, then the domain ranges involved."""
        src = dict(self.sources)
        out = []
        for i, g in zip(self.indices, self.guards):
            origin = f"  # {g.origin}" if g.origin else ""
            out.append(f"[{i}] {to_source_text(g.form, src)}{origin}")
        for sym, rng in self.domain:
            out.append(f"{to_source_text(sym, src)} in {rng} (the domain of the guard set)")
        return out

    def text(self) -> str:
        """The conflict in words (or why there is none)."""
        if self.status == "sat":
            return "no conflict: the guards can all hold"
        if self.status == "unknown":
            return "unknown: Z3 could not decide within its budget"
        n = len(self.lines())
        head = f"these {n} guards cannot all hold" if not self.domain else f"these {n} constraints cannot all hold"
        note = "" if self.minimal else " (not shown minimal: a check was undecided)"
        return f"{head}{note}:\n" + "\n".join(f"  {line}" for line in self.lines())

    def __str__(self) -> str:
        return self.text()


def conflict(gs: GuardSetLike, config: SolverConfig = SolverConfig()) -> Conflict:
    """A minimal subset of ``gs`` (guards and domain ranges) that cannot hold together, if any.

    Args:
        gs: the guard set.
        config: bounds every Z3 check (at most one per guard and domain range, plus one).

    Returns:
        A :class:`Conflict`; ``found`` is False when the guards are satisfiable or Z3 cannot tell.
    """
    context = Z3Context()  # its own context and budget (see Note [Deterministic limits] in z3_solver)
    t = Translator(context=context)
    guards = list(gs.guards)
    ranges = [(sym, rng) for sym, rng in gs.domain if not rng.is_bool]
    formulas = [t.holds(g.form) for g in guards] + [t.in_range(sym, rng) for sym, rng in ranges]
    status, core, minimal = minimal_unsat_core(formulas, (), config, context, Budget.of(config))
    if status is not SatStatus.UNSAT:
        return Conflict(status.value, sources=tuple(gs.sources))
    picked = [i for i in core if i < len(guards)]
    domain = tuple(ranges[i - len(guards)] for i in core if i >= len(guards))
    return Conflict("unsat", tuple(picked), tuple(guards[i] for i in picked), domain, minimal, tuple(gs.sources))
