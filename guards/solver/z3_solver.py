"""Bounded Z3 sessions: solver limits, contexts, budgets, incremental checks and unsat cores.

This module and :mod:`guards.solver.z3_translate` are the only modules of the library that import
``z3``. :mod:`guards.solver.z3_translate` turns symint expressions into Z3 formulas; this module
checks them: :class:`Z3Solver` runs each check under a deterministic resource limit
(Note [Deterministic limits]), many checks of one question share a :class:`Budget`, and
:func:`minimal_unsat_core` says which formulas conflict. Formulas and solvers that work
together share one :class:`Z3Context`.

>>> from symint.build import symbol_expr, eq, mod
>>> from guards.solver.z3_translate import Translator
>>> s0 = symbol_expr("s0")
>>> solver = Z3Solver(SolverConfig(timeout_ms=500))
>>> t = Translator()
>>> solver.add(t.holds(eq(mod(s0, 8), 3)))
>>> outcome = solver.check(report=[t.variable(s0)])
>>> outcome.status, outcome.values["s0"] % 8
(<SatStatus.SAT: 'sat'>, 3)
"""

from __future__ import annotations

import enum
import time
from dataclasses import dataclass, field
from typing import Iterable, Mapping

import z3

from guards.errors import GuardValueError

__all__ = [
    "SolverConfig",
    "Z3Context",
    "Budget",
    "SatStatus",
    "SolverOutcome",
    "Z3Solver",
    "minimal_unsat_core",
]


@dataclass(frozen=True, slots=True)
class SolverConfig:
    """How Z3 work is bounded: by deterministic resource counts, with a wall clock only as a safety net.

    See Note [Deterministic limits]. Every limit except the safety nets is a count, so the
    same question gets the same answer on any machine under any load.

    Attributes:
        rlimit: Z3 resource units (``rlimit``) of each single ``check``; running out
            gives ``unknown``, never taken as a proof.
        drop_rlimit: the resource units of each optional query of simplification ("is this
            guard implied by its neighbours?"), capped by ``rlimit``; running out only
            means the guard is kept.
        budget_rlimit: the total resource units of one question answered by many checks
            (``redundant``, ``simplify``, a proof guard by guard, see Note [Local premises]
            in ``guards.solver.prove``); past it the remaining goals count as unproven and the
            result says the budget was exhausted.
        max_checks: the total number of checks of one such question (same treatment).
        timeout_ms: a wall-clock *safety net* per check, far above what ``rlimit`` allows
            on any sane machine. When it fires, the check is ``unknown`` and the result
            reports it (``safety_net``), so a result that could differ is never silent.
        random_seed: Z3's seed, fixed for reproducible answers.
        engine: ``"smt"`` (Z3's SMT core, ``z3.SimpleSolver``) or ``"auto"``
            (``z3.Solver``, which picks a tactic by logic). See Note [Solver engine].
        drop_timeout_ms: deprecated (use ``drop_rlimit``); if given, a safety net per drop check.
        budget_ms: deprecated (use ``budget_rlimit`` / ``max_checks``); if given, a wall-clock
            safety net on one question's total, whose firing is reported.

    >>> SolverConfig().rlimit, SolverConfig(rlimit=5_000).rlimit
    (250000, 5000)
    """

    rlimit: int = 250_000
    drop_rlimit: int = 60_000
    budget_rlimit: int = 20_000_000
    max_checks: int = 20_000
    timeout_ms: int = 30_000
    random_seed: int = 0
    engine: str = "smt"
    drop_timeout_ms: int | None = None
    budget_ms: int | None = None

    def __post_init__(self) -> None:
        for name in ("rlimit", "drop_rlimit", "budget_rlimit", "max_checks", "timeout_ms", "drop_timeout_ms", "budget_ms"):
            value = getattr(self, name)
            if value is None and name in ("drop_timeout_ms", "budget_ms"):
                continue
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise GuardValueError(f"{name} must be a positive int, got {value!r}")
        if self.engine not in ("smt", "auto"):
            raise GuardValueError(f"engine must be 'smt' or 'auto', got {self.engine!r}")


# Note [Deterministic limits]
#     A wall-clock timeout makes answers depend on machine load: the same W1 program gave
#     23, 24 or 25 produced guards from run to run. Every check is therefore bounded by
#     Z3's resource limit (``rlimit``: a count of internal steps, the same on every run),
#     and every question made of many checks by a :class:`Budget` of checks and resource
#     units. In Z3 the solver parameter ``rlimit`` bounds each ``check`` relative to the
#     context's running count (the statistic ``rlimit count``, which only grows), so a
#     check's cost is the difference of that count around it. Each entry point (a proof,
#     a simplification, one ShapeEnv's prover) uses its own fresh Z3 context
#     (:class:`Z3Context`): answers do not depend on what else the process asked Z3
#     before, and two threads never share a context (Z3 contexts are not thread-safe).
#     ``timeout_ms`` stays only as a safety net (a check running for seconds means the
#     machine is stalled); its firing is counted and reported on the result, never silent.


class Z3Context:
    """A Z3 context of its own, with the running resource count of its checks.

    Translators and solvers that work together must share one context; an entry point
    creates one per question (see Note [Deterministic limits]).

    >>> from guards.solver.z3_translate import Translator
    >>> ctx = Z3Context()
    >>> Translator(context=ctx).variable(__import__("symint.build").build.symbol_expr("n")).ctx is ctx.ctx
    True
    """

    __slots__ = ("ctx", "last_count", "__weakref__")

    def __init__(self, shared: bool = False):
        self.ctx = z3.main_ctx() if shared else z3.Context()
        self.last_count: int | None = None if shared else 0  # the context's "rlimit count" after its last check

    def __deepcopy__(self, memo: dict) -> "Z3Context":
        # A Z3 context cannot be copied; a deep copy (of a ShapeEnv, say) shares it, as Z3 objects
        # themselves do when deep-copied. The copy must then stay in the same thread as the original.
        return self


class Budget:
    """The deterministic allowance of one question made of many Z3 checks: checks and resource units.

    Z3 solvers given a budget refuse to check once it is spent (answering ``unknown``
    with reason ``"budget exhausted"``) and cap each check's ``rlimit`` at what is left.

    Attributes:
        checks: checks run so far.
        spent: resource units spent so far.
        exhausted: a check was refused (or the wall-clock safety net of the whole question fired).
        safety_net: how many times a wall-clock safety net fired (each made a check ``unknown``).

    >>> b = Budget(rlimit=None, checks=1)
    >>> b.allows(), b.charge(10), b.allows(), b.exhausted
    (True, None, False, True)
    """

    __slots__ = ("rlimit", "max_checks", "checks", "spent", "exhausted", "safety_net", "_deadline")

    def __init__(self, rlimit: int | None, checks: int | None, wall_ms: int | None = None):
        self.rlimit, self.max_checks = rlimit, checks
        self.checks = self.spent = self.safety_net = 0
        self.exhausted = False
        self._deadline = None if wall_ms is None else time.perf_counter() + wall_ms / 1000

    @classmethod
    def of(cls, config: "SolverConfig", share: int = 1) -> "Budget":
        """The budget of one question under ``config`` (``1/share`` of it, for one of ``share`` phases).

        >>> Budget.of(SolverConfig(budget_rlimit=100, max_checks=10), share=2).rlimit
        50
        """
        return cls(config.budget_rlimit // share, max(1, config.max_checks // share), config.budget_ms)

    def left(self) -> int | None:
        """Resource units left (None: no cap)."""
        return None if self.rlimit is None else self.rlimit - self.spent

    def allows(self) -> bool:
        """Whether one more check may run (if not, the budget is marked exhausted)."""
        if self.exhausted:
            return False
        if (self.max_checks is not None and self.checks >= self.max_checks) or (self.rlimit is not None and self.spent >= self.rlimit):
            self.exhausted = True
        elif self._deadline is not None and time.perf_counter() > self._deadline:
            self.exhausted = True
            self.safety_net += 1
        return not self.exhausted

    def charge(self, units: int) -> None:
        """Account for one check that used ``units`` resource units."""
        self.checks += 1
        self.spent += units

    def describe(self) -> str:
        """``"12 checks, 34,000 rlimit units"`` (and what ran out)."""
        what = f"{self.checks} checks, {self.spent:,} rlimit units"
        if self.exhausted:
            what += " (budget exhausted)"
        if self.safety_net:
            what += f" (wall-clock safety net fired {self.safety_net}x)"
        return what


# Note [Solver engine]
#     ``z3.Solver()`` classifies a problem by logic; guards with products of sizes
#     (``Eq(s8, 16*s1*s7)``) make it QF_NIA, for which it runs a tactic pipeline that
#     took 1.8 s on a 12-guard problem whose conflict is linear (``s7 >= 420`` against
#     ``s7 <= 324``). The SMT core alone (``z3.SimpleSolver()``) answers the same
#     question in about 1 ms, and also answers the satisfiable queries of simplification
#     (a guard not implied by its neighbours) in about 2 ms instead of 200. It is the default.


class SatStatus(enum.Enum):
    """Z3's answer to one ``check``."""

    SAT = "sat"
    UNSAT = "unsat"
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class SolverOutcome:
    """The result of :meth:`Z3Solver.check`.

    Attributes:
        status: sat, unsat or unknown.
        values: for ``sat``, the value of each reported variable, by variable name.
        elapsed: seconds spent in Z3 (informational: no answer depends on it).
        reason: why the answer is unknown (``"rlimit"``, ``"budget exhausted"``,
            ``"wall-clock safety net"``, ...), else ``""``.
        rlimit: the resource units the check used (0 when not measured).
        safety_net: the wall-clock safety net fired (see Note [Deterministic limits]).
    """

    status: SatStatus
    values: Mapping[str, int] = field(default_factory=dict)
    elapsed: float = 0.0
    reason: str = ""
    rlimit: int = 0
    safety_net: bool = False


# -- solving -------------------------------------------------------------------------------------
class Z3Solver:
    """An incremental Z3 solver whose every check is bounded by a resource limit (see Note [Deterministic limits]).

    Formulas added with :meth:`add` hold in every check; :meth:`track` returns a
    fresh literal that switches a formula on only in the checks that assume it
    (so one solver answers many related queries without being rebuilt).

    Args:
        config: ``config.rlimit`` bounds each check, ``config.timeout_ms`` is the safety net.
        context: the :class:`Z3Context` (that of the formulas' :class:`~guards.solver.z3_translate.Translator`).
        budget: a :class:`Budget` shared with the other checks of the same question.
        rlimit: this solver's per-check resource limit, if not ``config.rlimit``.

    >>> from symint.build import symbol_expr, ge, lt
    >>> from guards.solver.z3_translate import Translator
    >>> t, s = Translator(), Z3Solver()
    >>> x = symbol_expr("x")
    >>> s.add(t.holds(ge(x, 5)))
    >>> small = s.track(t.holds(lt(x, 3)))
    >>> s.check().status.value, s.check([small]).status.value
    ('sat', 'unsat')
    """

    def __init__(
        self,
        config: SolverConfig = SolverConfig(),
        context: Z3Context | None = None,
        budget: Budget | None = None,
        rlimit: int | None = None,
    ):
        self.config = config
        self.context = context if context is not None else Z3Context(shared=True)
        ctx = self.context.ctx
        self._solver = z3.SimpleSolver(ctx=ctx) if config.engine == "smt" else z3.Solver(ctx=ctx)
        self._solver.set("timeout", config.timeout_ms)
        self._solver.set("random_seed", config.random_seed)
        self._rlimit = min(rlimit, config.rlimit) if rlimit is not None else config.rlimit
        self._set_rlimit: int | None = None
        self.budget = budget
        self._literals = 0
        self.checks = 0  # how many checks ran (for reports and benchmarks)
        self.safety_net = 0  # how many checks the wall-clock safety net cut short

    def add(self, *formulas: z3.BoolRef) -> None:
        """Assert ``formulas`` in every later check."""
        self._solver.add(*formulas)

    def track(self, formula: z3.BoolRef) -> z3.BoolRef:
        """A fresh literal ``p`` with ``p -> formula`` asserted; pass ``p`` to :meth:`check` to assume it."""
        self._literals += 1
        literal = z3.Bool(f"__track{self._literals}", self.context.ctx)
        self._solver.add(z3.Implies(literal, formula))
        return literal

    def _count(self) -> int:
        stats = self._solver.statistics()
        for key in stats.keys():
            if key == "rlimit count":
                return int(stats.get_key_value(key))
        return 0

    def check(self, assumptions: Iterable[z3.BoolRef] = (), report: Iterable[z3.ArithRef] = ()) -> SolverOutcome:
        """Check satisfiability under ``assumptions`` (literals from :meth:`track`).

        Args:
            assumptions: literals assumed true in this check only.
            report: variables whose values a ``sat`` outcome lists (completed with
                arbitrary values when the formulas do not constrain them).
        """
        budget, limit = self.budget, self._rlimit
        if budget is not None:
            if not budget.allows():
                return SolverOutcome(SatStatus.UNKNOWN, {}, 0.0, "budget exhausted")
            left = budget.left()
            if left is not None:
                limit = max(1, min(limit, left))
        capped = limit < self._rlimit  # the budget, not the per-check limit, bounds this check
        if limit != self._set_rlimit:
            self._solver.set("rlimit", limit)
            self._set_rlimit = limit
        measure = budget is not None
        ctx = self.context
        if measure and ctx.last_count is None:
            ctx.last_count = self._count()
        start = time.perf_counter()
        self.checks += 1
        try:
            answer = self._solver.check(*assumptions)
        except z3.Z3Exception as exc:  # e.g. interrupted or out of memory: not a proof either way
            answer, error = None, f"z3 error: {exc}"
        elapsed = time.perf_counter() - start
        used = 0
        if measure:
            count = self._count()
            used, ctx.last_count = count - (ctx.last_count or 0), count
            budget.charge(used)
        if answer is None:
            return SolverOutcome(SatStatus.UNKNOWN, {}, elapsed, error, used)
        if answer == z3.unsat:
            return SolverOutcome(SatStatus.UNSAT, {}, elapsed, rlimit=used)
        if answer == z3.unknown:
            reason = self._solver.reason_unknown() or "unknown"
            if reason in ("canceled", "timeout"):  # Z3 says "canceled" for both limits
                fired = elapsed * 1000 >= 0.9 * self.config.timeout_ms and not (measure and used >= limit)
                if fired:
                    self.safety_net += 1
                    if budget is not None:
                        budget.safety_net += 1
                    return SolverOutcome(SatStatus.UNKNOWN, {}, elapsed, "wall-clock safety net", used, True)
                reason = "rlimit"
                if capped and budget is not None:
                    budget.exhausted = True
                    reason = "budget exhausted"
            return SolverOutcome(SatStatus.UNKNOWN, {}, elapsed, reason, used)
        report = list(report)
        if not report:  # fetching a model costs as much as a small check: only when values are wanted
            return SolverOutcome(SatStatus.SAT, {}, elapsed, rlimit=used)
        model = self._solver.model()
        values = {}
        for var in report:
            val = model.eval(var, model_completion=True)
            if not z3.is_int_value(val):
                return SolverOutcome(SatStatus.UNKNOWN, {}, elapsed, f"the model gives {var} no integer value", used)
            values[str(var)] = val.as_long()
        return SolverOutcome(SatStatus.SAT, values, elapsed, rlimit=used)


# -- unsat cores ---------------------------------------------------------------------------------
def minimal_unsat_core(
    formulas: list[z3.BoolRef],
    background: Iterable[z3.BoolRef] = (),
    config: SolverConfig = SolverConfig(),
    context: Z3Context | None = None,
    budget: Budget | None = None,
) -> tuple[SatStatus, tuple[int, ...], bool]:
    """Which ``formulas`` conflict: the indices of an irreducible subset unsatisfiable with ``background``.

    Z3's unsat core is shrunk by deletion (drop one member; if the rest is still unsat, keep it
    dropped), so every member of the answer is needed: the answer is *minimal* unless a check of
    the shrinking came back unknown (then that member is kept and ``minimal`` is False).
    At most ``len(formulas) + 1`` checks, each bounded like any other check of ``config``,
    all spending from ``budget`` (the formulas' ``context`` must be given with them).

    Returns:
        ``(status, indices, minimal)``: ``status`` is that of the whole set (indices are empty
        unless it is UNSAT); indices are sorted.

    >>> from symint.build import symbol_expr, ge, lt, gt
    >>> from guards.solver.z3_translate import Translator
    >>> t, x, y = Translator(), symbol_expr("x"), symbol_expr("y")
    >>> status, core, minimal = minimal_unsat_core([t.holds(e) for e in (ge(x, 5), gt(y, 0), lt(x, 3))])
    >>> status.value, core, minimal
    ('unsat', (0, 2), True)
    """
    solver = Z3Solver(config, context, budget)
    solver.add(*background)
    literals = [solver.track(f) for f in formulas]
    position = {lit.get_id(): i for i, lit in enumerate(literals)}
    outcome = solver.check(literals)
    if outcome.status is not SatStatus.UNSAT:
        return outcome.status, (), False

    def core_of(among: list[int]) -> list[int]:
        found = {position[c.get_id()] for c in solver._solver.unsat_core() if c.get_id() in position}
        return [i for i in among if i in found]

    core = core_of(list(range(len(formulas))))
    minimal, k = True, 0
    while k < len(core):
        trial = core[:k] + core[k + 1:]
        outcome = solver.check([literals[i] for i in trial])
        if outcome.status is SatStatus.UNSAT:
            shrunk = core_of(trial)  # members before k were needed in a superset, so they stay (if proven)
            k = sum(1 for i in core[:k] if i in shrunk)
            core = shrunk
        else:
            minimal = minimal and outcome.status is SatStatus.SAT
            k += 1
    return SatStatus.UNSAT, tuple(core), minimal
