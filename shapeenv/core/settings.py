"""``ShapeEnvSettings``: every knob of a ShapeEnv in one frozen object.

>>> ShapeEnvSettings().specialize_zero_one, ShapeEnvSettings(duck_shape=False).duck_shape
(True, False)
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import SettingsError

__all__ = ["ShapeEnvSettings"]


@dataclass(frozen=True, slots=True)
class ShapeEnvSettings:
    """How a ShapeEnv allocates symbols and how hard it tries to decide statically.

    Attributes:
        specialize_zero_one: sizes whose hint is 0 or 1 become constants (unless the
            caller allowed them through ``min``); other backed sizes get ``[2, oo]``.
        duck_shape: ``DimDynamic.DUCK`` dims with equal hints share one symbol.
        use_z3: ask Z3 when ranges, replacements and known facts do not decide.
        solver_rlimit: the Z3 resource limit (``rlimit``, a deterministic count) of one
            query in linear arithmetic while tracing (about 7 ms of Z3 at most).
        nonlinear_rlimit: the resource limit of one query with products of sizes or
            division by a size while tracing; 0 (the default) does not ask such queries:
            they are rarely decided cheaply, and the guards they would have saved are
            removed anyway when ``produce_guards`` simplifies the set with a larger budget.
        solver_timeout_ms: only a wall-clock safety net per query (see Note [Deterministic
            limits] in ``guards.solver.z3_solver``); its firings are counted on the prover.
        nonlinear_timeout_ms: deprecated (use ``nonlinear_rlimit``); a positive value with
            ``nonlinear_rlimit=0`` asks nonlinear queries with ``solver_rlimit``.
        z3_on_backed: also ask Z3 about questions whose answer the hints give (off by
            default: see Note [Z3 while tracing] in :mod:`shapeenv.core.decide`).
        z3_budget: at most this many Z3 checks per environment while tracing (then an
            undecided question becomes a guard, which the simplification of the produced
            set can still remove). A count, so decisions do not depend on machine load.
            Most questions never reach Z3: ranges, normal forms and the linear procedure
            of :mod:`valueranges.linear_facts` decide them first.
        simplify_guards: ``produce_guards`` reduces the set exactly at once and starts the
            Z3 simplification (proven equivalent) off the critical path.
        simplify_in_background: run that Z3 simplification in a worker thread as soon as the
            set is produced (True), or only when a caller asks for it (False).
        specialize_printing: ``str``/``repr``/``format`` of a SymInt in the user's code give its value
            and record a guard, as under ``torch.compile`` (Note [Printing a SymInt] in
            ``symint.values``); off: they give the expression (``export``, as torch's does).
    """

    specialize_zero_one: bool = True
    duck_shape: bool = True
    use_z3: bool = True
    solver_rlimit: int = 10_000
    nonlinear_rlimit: int = 0
    solver_timeout_ms: int = 10_000
    nonlinear_timeout_ms: int = 0
    z3_on_backed: bool = False
    z3_budget: int = 64
    simplify_guards: bool = True
    simplify_in_background: bool = True
    specialize_printing: bool = False

    def __post_init__(self) -> None:
        if self.solver_timeout_ms <= 0 or self.nonlinear_timeout_ms < 0:
            raise SettingsError(
                f"solver_timeout_ms must be > 0 and nonlinear_timeout_ms >= 0, "
                f"got {self.solver_timeout_ms} and {self.nonlinear_timeout_ms}",
                fix="ShapeEnvSettings(solver_timeout_ms=10_000, nonlinear_timeout_ms=0)  # the defaults",
            )
        if self.solver_rlimit <= 0 or self.nonlinear_rlimit < 0:
            raise SettingsError(
                f"solver_rlimit must be > 0 and nonlinear_rlimit >= 0, got {self.solver_rlimit} and {self.nonlinear_rlimit}",
                fix="ShapeEnvSettings(solver_rlimit=10_000, nonlinear_rlimit=0)  # the defaults",
            )
        if self.z3_budget < 0:
            raise SettingsError(f"z3_budget must be >= 0, got {self.z3_budget}",
                                fix="ShapeEnvSettings(z3_budget=0) turns Z3 off for backed decisions; the default is 64")

    def prover_limits(self) -> dict[str, int]:
        """The keyword arguments of :class:`guards.solver.incremental.IncrementalProver` these settings ask for.

        >>> ShapeEnvSettings().prover_limits()["nonlinear_rlimit"], ShapeEnvSettings(nonlinear_timeout_ms=3).prover_limits()["nonlinear_rlimit"]
        (0, 10000)
        """
        nonlinear = self.nonlinear_rlimit
        if nonlinear == 0 and self.nonlinear_timeout_ms > 0:  # the deprecated spelling of "ask them"
            nonlinear = self.solver_rlimit
        return {
            "rlimit": self.solver_rlimit,
            "budget": self.z3_budget,
            "nonlinear_rlimit": nonlinear,
            "timeout_ms": self.solver_timeout_ms,
        }
