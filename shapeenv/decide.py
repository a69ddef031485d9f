"""The decision pipeline behind ``bool(SymBool)`` and ``int(SymInt)``.

In order, stopping at the first that answers: constant folding (done when the
expression was built) -> replacements and divisibility -> value ranges (a
relation compares the bound of ``lhs - rhs`` with 0) -> known facts (guards and
asserts so far) -> Z3 with all facts (bounded by a timeout and a per-environment
budget; memoised) -> otherwise the hint decides and a guard is recorded.
Nothing statically known ever becomes a guard.
"""

from __future__ import annotations

import logging
import math
from typing import TYPE_CHECKING

import sympy

from guards.incremental import IncrementalProver
from guards.printers import to_source_text
from symint import SymBool, build
from valueranges import ValueRanges

from .errors import GuardOnDataDependentSymNode
from .messages import annotate
from .provenance import user_frame

if TYPE_CHECKING:  # pragma: no cover
    from .env import ShapeEnv

__all__ = ["Decider"]

_solver_log = logging.getLogger("shapeenv.solver")  # a topic of SHAPEENV_LOGS (shapeenv.logs); off by default


class Decider:
    """Decides boolean and integer questions for one :class:`~shapeenv.env.ShapeEnv`."""

    def __init__(self, env: "ShapeEnv"):
        self.env = env
        settings = env.settings
        self.prover = IncrementalProver(**settings.prover_limits()) if settings.use_z3 else None
        if self.prover is not None:
            env.facts.on_new_fact(self.prover.add_fact)
        self._memo: dict[tuple[sympy.Basic, int, bool], bool | None] = {}

    # -- static answers (record nothing) -------------------------------------------------------------
    def static(self, value: SymBool | bool, size_oblivious: bool = False) -> bool | None:
        """True/False when ``value`` is decided by what is known, else None."""
        if not isinstance(value, SymBool):
            return bool(value)
        return self.static_expr(value.node.expr, size_oblivious)

    def static_expr(self, expr: sympy.Basic, size_oblivious: bool = False, hint: bool | None = None) -> bool | None:
        """Like :meth:`static` for a boolean sympy expression.

        ``hint``: the expression's value for the traced example, if known. The hints
        satisfy every fact, so only the hint's answer can be provable: Z3 checks just that.
        """
        facts = self.env.facts
        e = facts.simplify(expr)
        if e is sympy.true or e is sympy.false:
            return bool(e)
        key = (e, facts.version, size_oblivious)
        if key in self._memo:
            return self._memo[key]
        ranges = self._oblivious_ranges(e) if size_oblivious else None
        answer = facts.static_value(e, ranges)
        if answer is None and self.prover is not None and not facts.intervals_are_exact(e):
            expect = None if size_oblivious else hint
            answer = self.prover.decide(e, extra=self._oblivious_facts(e) if size_oblivious else (), expect=expect)
            if _solver_log.isEnabledFor(logging.INFO):
                said = {True: "true", False: "false", None: "not decided"}[answer]
                _solver_log.info("Z3: %s is %s (%s)  # %s", e, said, self.prover.last_outcome, user_frame())
        self._memo[key] = answer
        return answer

    def _oblivious_symbols(self, e: sympy.Basic) -> list[sympy.Symbol]:
        symbols = self.env.symbols
        return [s for s in e.free_symbols if s in symbols and not symbols[s].backed and symbols[s].size_like]

    def _oblivious_ranges(self, e: sympy.Basic) -> dict:
        ranges = dict(self.env.facts.ranges)
        for s in self._oblivious_symbols(e):
            rng = ranges.get(s) or ValueRanges.unknown()
            if rng.upper >= 2:
                ranges[s] = rng & ValueRanges.of(2, math.inf)
        return ranges

    def _oblivious_facts(self, e: sympy.Basic) -> tuple:
        return tuple(build.ge(s, 2) for s in self._oblivious_symbols(e))

    # -- guarded answers -------------------------------------------------------------------------------
    def guard_bool(self, expr: sympy.Basic, hint: bool | None, *, reason: str, size_oblivious: bool = False) -> bool:
        """Decide ``expr``; if only the hint can, record a guard and return the hint's answer."""
        env = self.env
        if hint is None:
            hint = env.hint_of(env.facts.simplify(expr))
        answer = self.static_expr(expr, size_oblivious, hint)
        if answer is not None:
            return answer
        e = env.facts.simplify(expr)
        if hint is None:
            raise self._data_dependent(expr, e)
        guard = e if hint else build.not_(e)
        env.record_guard(guard, expr if hint else build.not_(expr), self._why(e, reason))
        return bool(hint)

    def guard_value(self, expr: sympy.Basic, hint, *, reason: str):
        """Make an integer (or float) expression concrete: its static value, else ``Eq(expr, hint)`` as a guard."""
        env = self.env
        e = env.facts.simplify(expr)
        if e.is_Number:
            return int(e) if isinstance(e, sympy.Integer) else float(e)
        rng = env.bound(e)
        if rng.is_singleton():
            return rng.lower
        if hint is None:
            hint = env.hint_of(e)
        if hint is None:
            raise self._data_dependent(expr, e, value=True)
        env.record_guard(build.eq(e, hint), build.eq(expr, hint), f"{reason}() needs a concrete value; specialised to the hint {hint}")
        return hint

    def _why(self, e: sympy.Basic, reason: str) -> str:
        parts = []
        for s in sorted(e.free_symbols, key=lambda s: s.name):
            parts.append(f"{s} in {self.env.facts.range_of(s)}")
        ranges = ", ".join(parts) or "no symbols"
        solver = "" if self.prover is None else f"; Z3: {self.prover.last_outcome}"
        return f"{reason}: not decided by ranges ({ranges}) or known facts{solver}"

    def _data_dependent(self, stated: sympy.Basic, e: sympy.Basic, value: bool = False) -> GuardOnDataDependentSymNode:
        env = self.env
        unbacked = sorted((s for s in e.free_symbols if s in env.symbols and not env.symbols[s].backed), key=lambda s: s.name)
        where = user_frame()
        names = ", ".join(map(str, unbacked)) or "a data-dependent value"
        ranges = ", ".join(f"{s} in {env.facts.range_of(s)}" for s in unbacked)
        text = to_source_text(e)
        if value:
            suggestion = f"check({text} == <expected>)"
            what = f"needs the concrete value of {text}"
        else:
            suggestion = f"check({text})"
            what = f"branches on {text}"
            negated = to_source_text(build.not_(e))
        stated_text = to_source_text(stated)
        restated = f" (stated as {stated_text})" if stated_text != text else ""
        message = (
            f"Could not guard on a data-dependent expression: the program {what}{restated} "
            f"at {where or '<unknown location>'}, but {names} has no hint ({ranges}) "
            f"and the known facts do not decide it. If it always holds, tell the environment with "
            f"{suggestion} before this point{'' if value else f' (or check({negated}) if it never holds)'}; "
            f"if either outcome is possible, use guard_or_false/guard_or_true to take a branch that is "
            f"correct for both."
        )
        error = GuardOnDataDependentSymNode(message, expr=e, unbacked=unbacked, origin=where, suggestion=suggestion)
        annotate(error, env)  # where each unbacked symbol came from
        return error
