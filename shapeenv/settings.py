"""``ShapeEnvSettings``: every knob of a ShapeEnv in one frozen object.

>>> ShapeEnvSettings().specialize_zero_one, ShapeEnvSettings(duck_shape=False).duck_shape
(True, False)
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ShapeEnvSettings"]


@dataclass(frozen=True, slots=True)
class ShapeEnvSettings:
    """How a ShapeEnv allocates symbols and how hard it tries to decide statically.

    Attributes:
        specialize_zero_one: sizes whose hint is 0 or 1 become constants (unless the
            caller allowed them through ``min``); other backed sizes get ``[2, oo]``.
        duck_shape: ``DimDynamic.DUCK`` dims with equal hints share one symbol.
        use_z3: ask Z3 when ranges, replacements and known facts do not decide.
        solver_timeout_ms: the timeout of one Z3 query in linear arithmetic.
        nonlinear_timeout_ms: the timeout of one Z3 query with products of sizes or
            division by a size while tracing; 0 (the default) does not ask such queries:
            they are rarely decided in a few milliseconds, and the guards they would
            have saved are removed anyway when ``produce_guards`` simplifies the set
            with a larger budget. (Measured on W1: asking them with a 1 ms timeout cost
            about 30% of the replay time and saved one produced guard.)
        z3_on_backed: also ask Z3 about questions whose answer the hints give (off by
            default: see Note [Z3 while tracing] in :mod:`shapeenv.decide`).
        z3_budget: at most this many Z3 checks per environment while tracing (then an
            undecided question becomes a guard, which the simplification of the produced
            set can still remove). A count, so decisions do not depend on machine load.
            Most questions never reach Z3: ranges, normal forms and the linear procedure
            of :mod:`valueranges.linear_facts` decide them first. (Measured on W1: 64 checks
            keep the produced set's size and cost a tenth of the trace.)
        simplify_guards: ``produce_guards`` drops implied guards (proven equivalent by Z3).
    """

    specialize_zero_one: bool = True
    duck_shape: bool = True
    use_z3: bool = True
    solver_timeout_ms: int = 5
    nonlinear_timeout_ms: int = 0
    z3_on_backed: bool = False
    z3_budget: int = 64
    simplify_guards: bool = True

    def __post_init__(self) -> None:
        if self.solver_timeout_ms <= 0 or self.nonlinear_timeout_ms < 0:
            raise ValueError(
                f"solver_timeout_ms must be > 0 and nonlinear_timeout_ms >= 0, "
                f"got {self.solver_timeout_ms} and {self.nonlinear_timeout_ms}"
            )
        if self.z3_budget < 0:
            raise ValueError(f"z3_budget must be >= 0, got {self.z3_budget}")
