"""The Z3 boundary: translate symint expressions to Z3 with Python semantics, and run bounded checks.

This is the only module of the library that imports ``z3``. Everything else
(``guards.prove``, ``guards.simplify``) talks to Z3 through :class:`Translator`,
:class:`Z3Solver` and the small formula helpers below, and treats the Z3 objects
they return as opaque *formulas*.

>>> from symint.build import symbol_expr, eq, mod
>>> s0 = symbol_expr("s0")
>>> solver = Z3Solver(SolverConfig(timeout_ms=500))
>>> t = Translator()
>>> solver.add(t.holds(eq(mod(s0, 8), 3)))
>>> outcome = solver.check(report=[t.variable(s0)])
>>> outcome.status, outcome.values["s0"] % 8
(<SatStatus.SAT: 'sat'>, 3)

Note [Python semantics of division]
    SMT-LIB's integer ``div``/``mod`` are Euclidean: the remainder is always
    ``>= 0``. Python's ``//`` rounds toward -oo and ``%`` takes the sign of the
    divisor. For ``b > 0`` the two agree; for ``b < 0`` we use
    ``a // b == (-a) div (-b)`` and ``a % b == -((-a) mod (-b))``, which are
    exact for every sign of ``a``. A constant divisor selects the branch at
    translation time; a symbolic one becomes an ``If(b > 0, ...)``.

Note [Division by zero]
    Python raises on ``x // 0`` and ``x % 0``, and :meth:`GuardSet.failures`
    counts a guard that raises as failing. Each translated term therefore
    carries, next to its value, a *definedness* condition (``b != 0`` for
    every divisor reached by evaluation), and a guard translates to
    ``defined AND value``: it *holds* exactly when Python would evaluate it to
    True without raising. Evaluation order matters for ``And``/``Or`` (they
    short-circuit over their ``args`` in order, as ``symint.evaluate`` does) and
    for ``IfThenElse`` (only the taken branch is evaluated), and the
    definedness conditions follow that order exactly. Z3's own value for
    ``x div 0`` is an arbitrary function of ``x``; it never matters, because
    every use is guarded by the definedness condition. So "implied",
    "equivalent" and "satisfiable" are all about the inputs on which guards
    really hold, and proofs stay sound.

Note [Float division]
    ``IntTrueDiv(a, b)`` is a float in Python; Z3 reasons over exact numbers.
    We translate only ``FloorToInt(IntTrueDiv(a, b))`` (as ``a // b``) and
    ``CeilToInt(IntTrueDiv(a, b))`` (as ``-(-a // b)``). These agree with
    Python's ``math.floor(a / b)`` whenever ``|a| < 2**53`` (the rounding of
    ``a / b`` cannot cross an integer then); beyond that the translation is
    exact arithmetic, not float arithmetic. Any other use of a float raises
    :class:`SolverError`.
"""

from __future__ import annotations

import enum
import math
import time
from dataclasses import dataclass, field
from typing import Iterable, Mapping

import sympy
import z3
from sympy.core.relational import Relational

from symint.functions import (
    CeilDiv,
    CeilToInt,
    FloorDiv,
    FloorToInt,
    IfThenElse,
    IntTrueDiv,
    Max,
    Min,
    Mod,
    PowByNatural,
)
from valueranges import ValueRanges

from .errors import GuardValueError, SolverError
from .escape import one_line, sympy_str
from .validate import need_guardset

from .protocols import GuardSetLike

__all__ = [
    "SolverConfig",
    "Z3Context",
    "Budget",
    "SatStatus",
    "SolverOutcome",
    "Term",
    "Translator",
    "Z3Solver",
    "conj",
    "disj",
    "negate",
    "implies_formula",
    "to_smtlib",
    "minimal_unsat_core",
]

#: Exponents above this are refused rather than unrolled into huge products.
_MAX_EXPONENT = 64


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
            in ``guards.prove``); past it the remaining goals count as unproven and the
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


@dataclass(frozen=True, slots=True)
class Term:
    """A translated expression: its Z3 value and when evaluating it does not raise.

    ``defined`` is None when evaluation can never raise (no division by a
    possibly-zero divisor on the evaluated path).
    """

    value: z3.ExprRef
    defined: z3.BoolRef | None = None


def _and_defined(*conds: z3.BoolRef | None) -> z3.BoolRef | None:
    present = [c for c in conds if c is not None]
    if not present:
        return None
    return present[0] if len(present) == 1 else z3.And(*present)


class Translator:
    """Translate symint expressions to Z3 terms; memoised per instance.

    Args:
        names: the Z3 variable name of each symbol (default: the symbol's name).
            Two translators that give two symbols the same name share the variable,
            which is how two guard sets are compared over the same inputs.
        context: the :class:`Z3Context` of the formulas (default: Z3's shared main
            context; entry points of the library always pass their own).

    >>> from symint.build import symbol_expr, floordiv
    >>> Translator().term(floordiv(symbol_expr("x"), -2)).value
    -x/2
    """

    def __init__(self, names: Mapping[sympy.Symbol, str] | None = None, context: Z3Context | None = None):
        self.context = context if context is not None else Z3Context(shared=True)
        self._names = dict(names or {})
        self._cache: dict[sympy.Basic, Term] = {}
        self._variables: dict[sympy.Symbol, z3.ArithRef] = {}
        self._ranges: dict[tuple, z3.BoolRef] = {}

    @property
    def _ctx(self) -> z3.Context:
        return self.context.ctx  # not stored: a raw Z3 context cannot be deep-copied, the wrapper can

    def name(self, sym: sympy.Symbol) -> str:
        """The Z3 variable name of ``sym``.

        >>> from symint.build import symbol_expr
        >>> Translator({symbol_expr("s0"): "v0"}).name(symbol_expr("s0"))
        'v0'
        """
        return self._names.get(sym, sym.name)

    def variable(self, sym: sympy.Symbol) -> z3.ArithRef:
        """The Z3 integer variable standing for ``sym``.

        >>> from symint.build import symbol_expr
        >>> Translator().variable(symbol_expr("s0"))
        s0
        """
        var = self._variables.get(sym)
        if var is None:
            var = self._variables[sym] = z3.Int(self.name(sym), self._ctx)
        return var

    def holds(self, expr: sympy.Basic) -> z3.BoolRef:
        """The formula "``expr`` evaluates to True without raising" (see Note [Division by zero]).

        Raises:
            SolverError: ``expr`` is not boolean or uses a construct Z3 cannot express exactly.

        >>> from symint.build import symbol_expr, eq, mod
        >>> x, y = symbol_expr("x"), symbol_expr("y")
        >>> Translator().holds(eq(mod(x, y), 0))
        And(y != 0, If(y > 0, x%y, -(-x%-y)) == 0)
        """
        t = self.term(expr)
        if not z3.is_bool(t.value):
            raise SolverError(f"{expr} is not a boolean expression; a guard must be a comparison or And/Or/Not")
        return t.value if t.defined is None else z3.And(t.defined, t.value)

    def in_range(self, sym: sympy.Symbol, rng: ValueRanges) -> z3.BoolRef:
        """The formula "``sym`` lies in ``rng``" (True for an unbounded range).

        >>> from symint.build import symbol_expr
        >>> Translator().in_range(symbol_expr("s0"), ValueRanges.of(2, math.inf))
        s0 >= 2
        """
        key = (sym, rng.lower, rng.upper)
        hit = self._ranges.get(key)
        if hit is not None:
            return hit
        v = self.variable(sym)
        parts = []
        if rng.lower != -math.inf:
            parts.append(v >= _ceil_int(rng.lower))
        if rng.upper != math.inf:
            parts.append(v <= _floor_int(rng.upper))
        self._ranges[key] = formula = conj(parts, self._ctx)
        return formula

    def term(self, expr: sympy.Basic) -> Term:
        """Translate ``expr`` to a :class:`Term` (value and definedness).

        Raises:
            SolverError: an unsupported construct (its name is in the message).
        """
        cached = self._cache.get(expr)
        if cached is None:
            cached = self._cache[expr] = self._translate(expr)
        return cached

    # -- the cases -------------------------------------------------------------------------------
    def _translate(self, e: sympy.Basic) -> Term:
        if e.is_Symbol:
            return Term(self.variable(e))
        ctx = self._ctx
        if e is sympy.true:
            return Term(z3.BoolVal(True, ctx))
        if e is sympy.false:
            return Term(z3.BoolVal(False, ctx))
        if e.is_Integer:
            return Term(z3.IntVal(int(e), ctx))
        if e.is_Rational:
            return Term(z3.RealVal(f"{int(e.p)}/{int(e.q)}", ctx))
        if e.is_Add:
            args = [self.term(a) for a in e.args]
            return Term(z3.Sum([a.value for a in args]), _and_defined(*(a.defined for a in args)))
        if e.is_Mul:
            args = [self.term(a) for a in e.args]
            return Term(z3.Product([a.value for a in args]), _and_defined(*(a.defined for a in args)))
        if e.is_Pow:
            return self._pow(e)
        if isinstance(e, Relational):
            return self._relation(e)
        if isinstance(e, sympy.And):
            return self._short_circuit(e, stop_on=False)
        if isinstance(e, sympy.Or):
            return self._short_circuit(e, stop_on=True)
        if isinstance(e, sympy.Not):
            a = self.term(e.args[0])
            return Term(z3.Not(a.value), a.defined)
        if isinstance(e, (FloorDiv, CeilDiv, Mod)):
            return self._division(e)
        if isinstance(e, (Max, Min)):
            return self._min_max(e)
        if isinstance(e, PowByNatural):
            base, exp = e.args
            if not exp.is_Integer:
                raise SolverError(f"cannot translate {e} exactly: PowByNatural with a symbolic exponent")
            return self._power(self.term(base), int(exp), e)
        if isinstance(e, IfThenElse):
            c, a, b = (self.term(x) for x in e.args)
            defined = _and_defined(c.defined, _if_defined(c.value, a.defined, b.defined))
            return Term(z3.If(c.value, a.value, b.value), defined)
        if isinstance(e, (FloorToInt, CeilToInt)):
            return self._to_int(e)
        if isinstance(e, IntTrueDiv):
            raise SolverError(
                f"cannot translate {e} exactly: IntTrueDiv is a float; only FloorToInt/CeilToInt of it are supported"
            )
        if e.is_Float:
            raise SolverError(f"cannot translate the float constant {e} exactly; use integers or Rationals")
        raise SolverError(
            f"cannot translate {type(e).__name__} ({e}) to Z3: build expressions with symint.build "
            "(FloorDiv, CeilDiv, Mod, Max, Min, PowByNatural, IfThenElse, relations, And/Or/Not)"
        )

    def _integer(self, t: Term, e: sympy.Basic) -> z3.ArithRef:
        if not z3.is_int(t.value):
            raise SolverError(f"cannot translate {e} exactly: an integer function applied to a non-integer operand")
        return t.value

    def _relation(self, e: Relational) -> Term:
        lhs, rhs = self.term(e.lhs), self.term(e.rhs)
        a, b = lhs.value, rhs.value
        op = e.rel_op
        if z3.is_int_value(b):  # a Python int on the right keeps Z3's printing in the guard's order
            b = b.as_long()
        if z3.is_bool(a) != z3.is_bool(b) or (z3.is_bool(a) and op not in ("==", "!=")):
            raise SolverError(f"cannot translate {e}: it compares a boolean with a number or orders booleans")
        value = {
            "==": lambda: a == b,
            "!=": lambda: a != b,
            "<": lambda: a < b,
            "<=": lambda: a <= b,
            ">": lambda: a > b,
            ">=": lambda: a >= b,
        }[op]()
        return Term(value, _and_defined(lhs.defined, rhs.defined))

    def _short_circuit(self, e: sympy.Basic, stop_on: bool) -> Term:
        # Evaluation reaches argument i only when every earlier argument was defined and did not
        # decide the result (was True for And, False for Or); only then must argument i be defined.
        reached: list[z3.BoolRef] = []
        conditions: list[z3.BoolRef] = []
        values: list[z3.BoolRef] = []
        for arg in e.args:
            t = self.term(arg)
            if t.defined is not None:
                conditions.append(z3.Implies(z3.And(*reached), t.defined) if reached else t.defined)
            values.append(t.value)
            reached.append(z3.Not(t.value) if stop_on else t.value)
        value = z3.Or(*values) if stop_on else z3.And(*values)
        return Term(value, _and_defined(*conditions))

    def _division(self, e: sympy.Basic) -> Term:
        return self._divide(type(e), e.args[0], e.args[1], e)

    def _divide(self, kind: type, num: sympy.Basic, den: sympy.Basic, e: sympy.Basic) -> Term:
        num_t, den_t = self.term(num), self.term(den)
        a, b = self._integer(num_t, e), self._integer(den_t, e)
        if kind is FloorDiv:
            value = _py_floordiv(a, b)
        elif kind is CeilDiv:
            value = -_py_floordiv(-a, b)
        else:
            value = _py_mod(a, b)
        c = _constant(b)
        nonzero = z3.BoolVal(False, self._ctx) if c == 0 else None if c is not None else b != 0
        return Term(value, _and_defined(num_t.defined, den_t.defined, nonzero))

    def _min_max(self, e: sympy.Basic) -> Term:
        args = [self.term(a) for a in e.args]
        pick_max = isinstance(e, Max)
        best = args[0].value
        for t in args[1:]:
            v = t.value
            best = z3.If(v > best, v, best) if pick_max else z3.If(v < best, v, best)
        return Term(best, _and_defined(*(t.defined for t in args)))

    def _pow(self, e: sympy.Basic) -> Term:
        base, exp = e.args
        if not exp.is_Integer:
            raise SolverError(f"cannot translate {e} exactly: a power with a non-integer exponent")
        k = int(exp)
        b = self.term(base)
        if k >= 0:
            return self._power(b, k, e)
        positive = self._power(b, -k, e)
        value = z3.RealVal(1, self._ctx) / z3.ToReal(positive.value) if z3.is_int(positive.value) else 1 / positive.value
        return Term(value, _and_defined(positive.defined, b.value != 0))

    def _power(self, base: Term, k: int, e: sympy.Basic) -> Term:
        if k > _MAX_EXPONENT:
            raise SolverError(f"cannot translate {e}: exponent {k} is larger than {_MAX_EXPONENT}")
        if k == 0:
            return Term(z3.IntVal(1, self._ctx), base.defined)  # Python: 0 ** 0 == 1
        return Term(z3.Product([base.value] * k) if k > 1 else base.value, base.defined)

    def _to_int(self, e: sympy.Basic) -> Term:
        (arg,) = e.args
        floor = isinstance(e, FloorToInt)
        if isinstance(arg, IntTrueDiv):  # see Note [Float division]
            return self._divide(FloorDiv if floor else CeilDiv, arg.args[0], arg.args[1], e)
        t = self.term(arg)
        if z3.is_int(t.value):
            return t
        if z3.is_real(t.value):  # exact rational arithmetic: to_int is floor
            value = z3.ToInt(t.value) if floor else -z3.ToInt(-t.value)
            return Term(value, t.defined)
        raise SolverError(f"cannot translate {e}: its argument is not a number")


def _if_defined(c: z3.BoolRef, a: z3.BoolRef | None, b: z3.BoolRef | None) -> z3.BoolRef | None:
    if a is None and b is None:
        return None
    true = z3.BoolVal(True, c.ctx)
    return z3.If(c, a if a is not None else true, b if b is not None else true)


def _constant(v: z3.ArithRef) -> int | None:
    return v.as_long() if z3.is_int_value(v) else None


def _py_floordiv(a: z3.ArithRef, b: z3.ArithRef) -> z3.ArithRef:
    """Python's ``a // b`` (see Note [Python semantics of division])."""
    c = _constant(b)
    if c is not None and c > 0:
        return a / b
    if c is not None and c < 0:
        return (-a) / z3.IntVal(-c, a.ctx)
    return z3.If(b > 0, a / b, (-a) / (-b))


def _py_mod(a: z3.ArithRef, b: z3.ArithRef) -> z3.ArithRef:
    """Python's ``a % b`` (see Note [Python semantics of division])."""
    c = _constant(b)
    if c is not None and c > 0:
        return a % b
    if c is not None and c < 0:
        return -((-a) % z3.IntVal(-c, a.ctx))
    return z3.If(b > 0, a % b, -((-a) % (-b)))


def _ceil_int(x: float | int) -> int:
    return x if isinstance(x, int) else math.ceil(x)


def _floor_int(x: float | int) -> int:
    return x if isinstance(x, int) else math.floor(x)


# -- formulas ------------------------------------------------------------------------------------
def conj(formulas: Iterable[z3.BoolRef], ctx: "z3.Context | None" = None) -> z3.BoolRef:
    """The conjunction of ``formulas`` (True, in context ``ctx``, when empty).

    >>> conj([])
    True
    """
    fs = list(formulas)
    return z3.BoolVal(True, ctx) if not fs else fs[0] if len(fs) == 1 else z3.And(*fs)


def disj(formulas: Iterable[z3.BoolRef], ctx: "z3.Context | None" = None) -> z3.BoolRef:
    """The disjunction of ``formulas`` (False, in context ``ctx``, when empty).

    >>> disj([])
    False
    """
    fs = list(formulas)
    return z3.BoolVal(False, ctx) if not fs else fs[0] if len(fs) == 1 else z3.Or(*fs)


def negate(formula: z3.BoolRef) -> z3.BoolRef:
    """``Not(formula)``.

    >>> negate(conj([]))
    Not(True)
    """
    return z3.Not(formula)


def implies_formula(a: z3.BoolRef, b: z3.BoolRef) -> z3.BoolRef:
    """``Implies(a, b)``.

    >>> implies_formula(conj([]), disj([]))
    Implies(True, False)
    """
    return z3.Implies(a, b)


# -- solving -------------------------------------------------------------------------------------
class Z3Solver:
    """An incremental Z3 solver whose every check is bounded by a resource limit (see Note [Deterministic limits]).

    Formulas added with :meth:`add` hold in every check; :meth:`track` returns a
    fresh literal that switches a formula on only in the checks that assume it
    (so one solver answers many related queries without being rebuilt).

    Args:
        config: ``config.rlimit`` bounds each check, ``config.timeout_ms`` is the safety net.
        context: the :class:`Z3Context` (that of the formulas' :class:`Translator`).
        budget: a :class:`Budget` shared with the other checks of the same question.
        rlimit: this solver's per-check resource limit, if not ``config.rlimit``.

    >>> from symint.build import symbol_expr, ge, lt
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


# -- SMT-LIB -------------------------------------------------------------------------------------
def to_smtlib(guardset: GuardSetLike) -> str:
    """SMT-LIB2 text asserting the guard set's domain and guards, with declarations.

    Comments map each symbol to its source and each assertion to its guard;
    the text ends with ``(check-sat)`` so it can be fed to any SMT solver.

    >>> from symint.build import symbol_expr, ge
    >>> from guards import GuardSet, Source
    >>> s0 = symbol_expr("s0")
    >>> print(to_smtlib(GuardSet.of([ge(s0, 2)], {s0: Source.size("x", 0)})))
    ; guard set: s0 >= 2
    ; s0 = x.size()[0]
    (declare-const s0 Int)
    ; assumed (domain): 0 <= s0
    (assert (>= s0 0))
    ; guard: s0 >= 2
    (assert (>= s0 2))
    (check-sat)
    <BLANKLINE>
    """
    need_guardset(guardset, "to_smtlib's argument")
    t = Translator()
    sources = guardset.source_map
    # Comments carry user text (input names): one_line keeps each on its line (no injected commands).
    lines = [f"; guard set: {one_line(', '.join(sympy_str(g.expr) for g in guardset.guards) or 'True')}"]
    for sym in sorted(guardset.symbols | {s for s, _ in guardset.domain}, key=lambda s: s.name):
        where = f" = {one_line(sources[sym].text())}" if sym in sources else " (no source)"
        lines.append(f"; {one_line(t.name(sym))}{where}")
        lines.append(f"(declare-const {t.variable(sym).sexpr()} Int)")
    for sym, rng in guardset.domain:
        formula = t.in_range(sym, rng)
        if z3.is_true(formula):
            continue
        lower = "" if rng.lower == -math.inf else f"{rng.lower} <= "
        upper = "" if rng.upper == math.inf else f" <= {rng.upper}"
        lines.append(f"; assumed (domain): {one_line(f'{lower}{sym}{upper}')}")
        lines.append(f"(assert {formula.sexpr()})")
    for g in guardset.guards:
        lines.append(f"; guard: {one_line(sympy_str(g.expr))}")
        lines.append(f"(assert {t.holds(g.expr).sexpr()})")
    lines.append("(check-sat)")
    return "\n".join(lines) + "\n"
