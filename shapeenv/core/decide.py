"""The decision pipeline behind ``bool(SymBool)`` and ``int(SymInt)``.

Everything works on canonical forms (:mod:`symint.form.logic`). In order, stopping
at the first that answers: constant folding and normalisation (done when the
relation was built: ``2*a < 2*b`` is ``a - b + 1 <= 0``) -> replacements and
divisibility -> value ranges, of factored forms too (``s*s - s``) -> known facts ->
the linear procedure over guards, asserts and the definitions of Max/Min/floor
division (:mod:`valueranges.linear_facts`, a bounded count of steps) -> case
splits on Max/Min and multiples of known divisors -> Z3, only where no hint can
answer (Note [Z3 while tracing]; deterministic ``rlimit`` and a count budget;
memoised) -> otherwise the hint decides and a guard is recorded. Nothing
statically known ever becomes a guard; definite answers are memoised for good
(facts only grow).
"""

from __future__ import annotations

import logging
import math
from typing import TYPE_CHECKING

from symint.lazy_sympy import lazy_module, sympy

from guards.solver.incremental import IncrementalProver
from guards.text.printers import to_source_text
from symint import SymBool, build
from symint.form import logic as B
from symint import form as F
from symint.form.logic import BoolForm

from .errors import GuardOnDataDependentSymNode, ShapeEnvTypeError
from .messages import annotate
from .provenance import sympy_of, bool_form_of, user_frame

if TYPE_CHECKING:  # pragma: no cover
    from .state import DecisionState

_io = lazy_module("symint.sympy_io")  # Note [sympy on first use] in symint.lazy_sympy

__all__ = ["Decider"]

_solver_log = logging.getLogger("shapeenv.solver")  # a topic of SHAPEENV_LOGS (shapeenv.logs); off by default


class Decider:
    """Decides boolean and integer questions for one :class:`~shapeenv.core.env.ShapeEnv`.

    Works on canonical forms (:mod:`symint.form.logic`); sympy is built only for Z3
    (the last resort) and for the text of guards and errors.
    """

    def __init__(self, env: "DecisionState"):
        self.env = env
        self._prover: IncrementalProver | None = None
        self._pending: list[BoolForm] = []
        if env.settings.use_z3:
            env.facts.on_new_fact(self._pending.append)
        self._memo: dict[tuple, bool | None] = {}
        #: Definite answers, kept for good: one table per value of ``size_oblivious`` (keyed by the question alone).
        self._settled: tuple[dict, dict] = ({}, {})
        #: How questions were answered: {"folded", "ranges/facts", "z3", "undecided"} -> count.
        self.stats: dict[str, int] = {"ranges/facts": 0, "z3": 0, "undecided": 0}

    @property
    def prover(self) -> IncrementalProver | None:
        """The Z3 prover (None when ``use_z3`` is off), created on first use: most traces never need it."""
        if self._prover is None and self.env.settings.use_z3:
            settings = self.env.settings
            self._prover = IncrementalProver(**settings.prover_limits())
        return self._prover

    # -- static answers (record nothing) -------------------------------------------------------------
    def static(self, value, size_oblivious: bool = False, hint: bool | None = None) -> bool | None:
        """True/False when ``value`` is decided by what is known, else None (records nothing).

        ``value`` is a boolean form, a SymBool, a plain bool, or a sympy boolean over this
        environment's symbols (converted once: the forms are what is reasoned with).
        ``hint``: the condition's value for the traced example, if known. The hints
        satisfy every fact, so only the hint's answer can be provable: Z3 checks just that.

        The former ``static_expr`` (sympy) and ``static_form`` (forms) are this one method.
        """
        facts = self.env.facts
        e = facts.simplify_bool(_bool_form(value))
        if e.kind == "const":
            return e.value
        # Facts only grow, so a definite answer stays right: it is memoised for good;
        # "undecided" only until the facts change.
        memo = self._memo
        settled = self._settled[bool(size_oblivious)].get(e)
        if settled is not None:
            return settled
        key = (e, facts.version, size_oblivious)
        if key in memo:
            return memo[key]
        ranges = self._oblivious_ranges(e) if size_oblivious else None
        answer = facts.decide(e, ranges, expect=None if size_oblivious else hint)
        if answer is not None:
            self.stats["ranges/facts"] += 1
        elif self._z3_worth_asking(hint, size_oblivious) and not facts.intervals_are_exact(e):
            self._flush()
            expect = None if size_oblivious else hint
            answer = self.prover.decide(e, extra=self._oblivious_facts(e) if size_oblivious else (), expect=expect)
            self.stats["z3" if answer is not None else "undecided"] += 1
            if _solver_log.isEnabledFor(logging.INFO):
                said = {True: "true", False: "false", None: "not decided"}[answer]
                _solver_log.info("Z3: %s is %s (%s)  # %s", _io.to_sympy(e), said, self.prover.last_outcome, user_frame())
        else:
            self.stats["undecided"] += 1
            if _solver_log.isEnabledFor(logging.INFO) and not facts.intervals_are_exact(e):
                _solver_log.info("Z3 not asked: %s is about backed sizes, whose hints decide it (a guard; "
                                 "set z3_on_backed=True to ask)  # %s", _io.to_sympy(e), user_frame())
        if answer is None:
            if len(memo) > 1 << 16:
                memo.clear()
            memo[key] = None
        elif not self.env.assumptions:  # an answer under `assuming` holds only inside the block
            self._settled[bool(size_oblivious)][e] = answer
        return answer

    def _z3_worth_asking(self, hint, size_oblivious: bool) -> bool:
        """Note [Z3 while tracing]
            For a question about backed sizes the hint gives an answer anyway: a guard.
            A guard that Z3 would have proven implied by other guards is removed when the
            produced set is simplified, off the critical path, so asking Z3 here buys
            little and costs much (measured on W1: 64 checks doubled the replay time to
            save 6 of 208 recorded guards). Z3 is asked while tracing only where no hint
            can answer (data-dependent sizes, size-oblivious questions), or when
            ``settings.z3_on_backed`` asks for it; always within ``settings.z3_budget`` checks.
        """
        settings = self.env.settings
        if not settings.use_z3:
            return False
        if hint is not None and not size_oblivious and not settings.z3_on_backed:
            return False
        return self._prover is None or self._prover.checks < self._prover.budget

    def _flush(self) -> None:
        pending, self._pending[:] = list(self._pending), []
        for fact in pending:
            self.prover.add_fact(fact)

    def _oblivious_symbols(self, e: BoolForm) -> list[str]:
        env = self.env
        out = []
        for name in sorted(e.symbols):
            info = env.symbols.by_name.get(name)
            if info is not None and not info.backed and info.size_like:
                out.append(name)
        return out

    def _oblivious_ranges(self, e: BoolForm) -> dict:
        ranges = dict(self.env.facts.bounds())
        for name in self._oblivious_symbols(e):
            lo, hi = ranges.get(name, (-math.inf, math.inf))
            if hi >= 2:
                ranges[name] = (max(lo, 2), hi)
        return ranges

    def _oblivious_facts(self, e: BoolForm) -> tuple:
        return tuple(B.rel(">=", F.sym(n), F.const(2)) for n in self._oblivious_symbols(e))

    # -- guarded answers -------------------------------------------------------------------------------
    def guard_bool(self, cond, hint: bool | None, *, reason: str, size_oblivious: bool = False) -> bool:
        """Decide the boolean ``cond``; if only the hint can, record a guard and return the hint's answer.

        ``cond`` is a boolean form (or a sympy boolean, converted once). The former
        ``guard_form`` is this method.
        """
        env = self.env
        b = _bool_form(cond)
        e = env.facts.simplify_bool(b)
        if e.kind == "const":
            return e.value
        if hint is None:
            hint = env.hint_of_form(e)
        answer = self.static(e, size_oblivious, hint)
        if answer is not None:
            return answer
        if hint is None:
            raise self._data_dependent(b, e)
        guard = e if hint else B.not_(e)
        env.record_guard(guard, b if hint else B.not_(b), self._why(e, reason), undecided=True)
        return bool(hint)

    def guard_value(self, value, hint, *, reason: str):
        """Make an integer (or float) value concrete: its static value, else ``Eq(value, hint)`` as a guard.

        ``value`` is an integer form, or a sympy expression (converted once; a float
        expression, which has no form, is the one kept in sympy). The former
        ``guard_int_form`` is this method.
        """
        f = value
        if not isinstance(value, F.Form):
            try:
                f = _io.from_sympy(value)
            except _io.NotAnIntegerForm:
                return self._guard_float(value, hint, reason=reason)
        return self._guard_int(f, hint, reason=reason)

    def _guard_float(self, expr: sympy.Basic, hint, *, reason: str):
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

    def _guard_int(self, f: "F.Form", hint, *, reason: str) -> int:
        env = self.env
        e = env.facts.simplify_form(f)
        if e.is_const:
            return e.const
        lo, hi = env.facts.bound_form(e)
        if lo == hi:
            return int(lo)
        if hint is None:
            hint = env.hint_of_form(e)
        if hint is None:
            raise self._data_dependent(f, e, value=True)
        env.record_guard(
            B.rel("==", e, F.const(hint)), B.rel("==", f, F.const(hint)),
            f"{reason}() needs a concrete value; specialised to the hint {hint}",
        )
        return hint

    def _why(self, e: BoolForm, reason: str) -> str:
        facts = self.env.facts
        parts = [f"{name} in {facts.range_of(name)}" for name in sorted(e.symbols)]
        ranges = ", ".join(parts) or "no symbols"
        solver = "" if self._prover is None else f"; Z3: {self._prover.last_outcome}"
        return f"{reason}: not decided by ranges ({ranges}) or known facts{solver}"

    def _data_dependent(self, stated, e, value: bool = False) -> GuardOnDataDependentSymNode:
        """The error for a question no hint answers; ``stated`` and ``e`` are forms or sympy (floats)."""
        env = self.env
        stated, e = sympy_of(stated), sympy_of(e)  # the error's text and fields are sympy
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


def _bool_form(value) -> BoolForm:
    """The boolean form of a condition: a form, a SymBool, a bool or a sympy boolean (converted once)."""
    if isinstance(value, BoolForm):
        return value
    if isinstance(value, SymBool):
        return value.node.form
    if isinstance(value, sympy.Basic):
        if not build.is_bool_expr(value):
            raise ShapeEnvTypeError(f"expected a condition, got the sympy expression {value}",
                                    fix=f"compare it, e.g. {value} >= 0")
        return bool_form_of(value)
    return B.bool_const(bool(value))
