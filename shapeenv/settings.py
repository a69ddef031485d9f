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
            division by a size (rarely decidable; kept short so that it cannot dominate).
        z3_budget: at most this many Z3 queries per environment (then fall back to guards).
        simplify_guards: ``produce_guards`` drops implied guards (proven equivalent by Z3).
    """

    specialize_zero_one: bool = True
    duck_shape: bool = True
    use_z3: bool = True
    solver_timeout_ms: int = 5
    nonlinear_timeout_ms: int = 1
    z3_budget: int = 2000
    simplify_guards: bool = True

    def __post_init__(self) -> None:
        if self.solver_timeout_ms <= 0 or self.nonlinear_timeout_ms <= 0:
            raise ValueError(
                f"solver timeouts must be > 0 ms, got {self.solver_timeout_ms} and {self.nonlinear_timeout_ms}"
            )
        if self.z3_budget < 0:
            raise ValueError(f"z3_budget must be >= 0, got {self.z3_budget}")
