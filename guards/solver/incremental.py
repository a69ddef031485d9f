"""``IncrementalProver``: one Z3 solver that accumulates facts and answers many yes/no questions.

A ShapeEnv learns facts one at a time (ranges, replacements, guards, asserts) and
asks thousands of questions in between. Rebuilding a solver per question would
dominate the cost, so this keeps a single incremental solver: facts are asserted
once, and each question is asked under a fresh assumption literal that is
retired afterwards. Every check is bounded by a Z3 resource limit (``rlimit``, a
deterministic count), the number of checks by a budget, and ``unknown`` is never an answer.

>>> from symint.build import symbol_expr, ge, gt, lt, mul
>>> s0, s1 = symbol_expr("s0"), symbol_expr("s1")
>>> p = IncrementalProver(rlimit=50_000, budget=10)
>>> p.add_fact(ge(s0, 2)); p.add_fact(lt(s0, s1))
>>> p.decide(gt(s1, 2)), p.decide(gt(s1, 5)), p.decide(lt(mul(2, s1), s0))
(True, None, False)
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

from symint.lazy_sympy import lazy_module, sympy

from symint.form import BoolForm
from symint.form.terms import Form

from guards.errors import SolverError
from guards.solver.z3_solver import SatStatus, SolverConfig, Z3Context, Z3Solver
from guards.solver.z3_translate import Translator, negate

_nodes = lazy_module("symint.sympy_io.functions")  # Note [sympy on first use] in symint.lazy_sympy

__all__ = ["IncrementalProver", "is_linear"]


def is_linear(expr: "BoolForm | Form | sympy.Basic") -> bool:
    """Whether ``expr`` (a boolean form, a form, or a sympy expression) translates to linear integer arithmetic.

    >>> from symint import form as F
    >>> from symint.form import rel
    >>> x, y = F.sym("x"), F.sym("y")
    >>> is_linear(rel("<", F.floordiv(x, F.const(4)), y)), is_linear(rel("<", F.mul(x, y), F.const(3)))
    (True, False)
    """
    if isinstance(expr, BoolForm):
        return _bool_form_is_linear(expr)
    if isinstance(expr, Form):
        return _form_is_linear(expr)
    return _sympy_is_linear(expr)


@lru_cache(maxsize=1 << 14)
def _bool_form_is_linear(b: BoolForm) -> bool:
    if b.kind == "const":
        return True
    if b.kind == "rel":
        return _form_is_linear(b.args[1]) and _form_is_linear(b.args[2])
    if b.kind == "opaque":
        return _sympy_is_linear(b.args[0])
    return all(_bool_form_is_linear(a) for a in b.args)


@lru_cache(maxsize=1 << 14)
def _form_is_linear(f: Form) -> bool:
    for mono, _ in f.terms:
        if len(mono.factors) > 1 or mono.factors[0][1] > 1:
            return False
        atom = mono.factors[0][0]
        if atom.kind == "pow":
            return False
        if atom.kind == "opaque":
            if not _sympy_is_linear(atom.args[0]):
                return False
        elif atom.kind in ("floordiv", "ceildiv", "mod") and not atom.args[1].is_const:
            return False
        elif atom.kind != "sym" and not all(_form_is_linear(a) for a in atom.args):
            return False
    return True


@lru_cache(maxsize=1 << 14)
def _sympy_is_linear(expr: sympy.Basic) -> bool:
    """Whether ``expr`` stays in linear integer arithmetic once translated (a decidable, fast fragment).

    Products of two non-constant factors, powers, and division or modulo by a
    non-constant are nonlinear; ``Max``/``Min``/``If`` and division by a constant are not.

    >>> from symint.build import symbol_expr, floordiv, mul, lt
    >>> x, y = symbol_expr("x"), symbol_expr("y")
    >>> is_linear(lt(floordiv(x, 4), y)), is_linear(lt(mul(x, y), 3)), is_linear(lt(floordiv(x, y), 3))
    (True, False, False)
    """
    if not expr.args:
        return True
    if expr.is_Mul:
        if sum(1 for a in expr.args if not a.is_Number) > 1:
            return False
    elif expr.is_Pow or isinstance(expr, _nodes.PowByNatural):
        return False
    elif isinstance(expr, (_nodes.FloorDiv, _nodes.CeilDiv, _nodes.Mod)) and not expr.args[1].is_Number:
        return False
    return all(_sympy_is_linear(a) for a in expr.args)


class IncrementalProver:
    """Decides boolean expressions from accumulated facts with bounded Z3 checks.

    Every limit is deterministic (see Note [Deterministic limits] in ``guards.solver.z3_solver``):
    the same facts and questions get the same answers on any machine under any load.
    The prover owns its Z3 context (created on first use), so provers of different
    environments may run in different threads.

    Args:
        rlimit: the Z3 resource limit of each check of a linear question.
        budget: the maximum number of checks over the prover's life; past it,
            :meth:`decide` answers None without asking (``exhausted`` turns True).
        nonlinear_rlimit: the resource limit of checks of nonlinear questions (which
            often cannot be decided at all); None means ``rlimit``; 0 means nonlinear
            questions are not asked (answered None at no cost).
        timeout_ms: the wall-clock safety net of each check (default: ``SolverConfig``'s);
            each firing is counted in :attr:`safety_net` (the answer is then None).
        nonlinear_timeout_ms: deprecated; ``0`` still means "do not ask nonlinear questions".

    Attributes:
        checks: checks run so far; safety_net: checks cut short by the safety net.
    """

    def __init__(
        self,
        rlimit: int = 10_000,
        budget: int = 2000,
        nonlinear_rlimit: int | None = None,
        *,
        timeout_ms: int | None = None,
        nonlinear_timeout_ms: int | None = None,
    ):
        self._ask_nonlinear = nonlinear_rlimit != 0 and nonlinear_timeout_ms != 0
        base = SolverConfig() if timeout_ms is None else SolverConfig(timeout_ms=timeout_ms)
        self._linear_config = replace(base, rlimit=rlimit)
        self._nonlinear_config = replace(base, rlimit=nonlinear_rlimit or rlimit)
        self._translator: Translator | None = None
        self.budget = budget
        self.checks = 0
        self.time_spent = 0.0
        self.last_outcome = "not asked"

    def _start(self) -> Translator:
        """Create the context, translator and solvers on first use (an environment that never asks pays nothing)."""
        context = Z3Context()
        self._translator = Translator(context=context)
        # Note [Two solvers]: linear facts go to both; a linear question is asked of the
        # linear solver only, which decides it quickly (linear integer arithmetic is
        # decidable), instead of letting nonlinear facts slow every check to its limit.
        # Fewer facts can only make us prove less, never something false.
        self._solver = Z3Solver(self._nonlinear_config, context)
        self._linear = Z3Solver(self._linear_config, context)
        return self._translator

    @property
    def safety_net(self) -> int:
        """How many checks the wall-clock safety net cut short (0 on a machine that is not stalled)."""
        if self._translator is None:
            return 0
        return self._solver.safety_net + self._linear.safety_net

    @property
    def exhausted(self) -> bool:
        """Whether the budget of checks is spent (later questions are not asked)."""
        return self.checks >= self.budget

    def add_fact(self, fact: "BoolForm | sympy.Basic") -> None:
        """Assume the boolean ``fact`` in every later question (untranslatable facts are skipped: fewer facts is sound)."""
        translator = self._translator or self._start()
        try:
            formula = translator.holds(fact)
        except SolverError:
            return
        self._solver.add(formula)
        if is_linear(fact):
            self._linear.add(formula)

    def decide(self, expr: "BoolForm | sympy.Basic", extra: tuple = (), expect: bool | None = None) -> bool | None:
        """True if the facts (and ``extra``, for this question only) imply ``expr``, False if they refute it, else None.

        ``expect``: the answer a known model of the facts gives (e.g. the hints). Only that
        answer can be provable, so only that direction is checked (one Z3 check instead of two).
        """
        translator = self._translator or self._start()
        try:
            formula = translator.holds(expr)
            extras = [translator.holds(e) for e in extra]
        except SolverError as e:
            self.last_outcome = f"not translatable ({e})"
            return None
        linear = is_linear(expr) and all(is_linear(e) for e in extra)
        if not linear and not self._ask_nonlinear:
            self.last_outcome = "not asked (nonlinear)"
            return None
        solver = self._linear if linear else self._solver
        if expect is not False:
            if self._ask(solver, negate(formula), extras) is SatStatus.UNSAT:
                return True
            if expect is True or self.last_outcome.startswith(("unknown", "budget")):
                return None
        if self._ask(solver, formula, extras) is SatStatus.UNSAT:
            return False
        return None

    def _ask(self, solver: Z3Solver, formula, extras) -> SatStatus | None:
        if self.checks >= self.budget:
            self.last_outcome = f"budget of {self.budget} checks exhausted"
            return None
        self.checks += 1
        literals = [solver.track(f) for f in [formula, *extras]]
        outcome = solver.check(literals)
        for lit in literals:  # retire the literals so their clauses never matter again
            solver.add(negate(lit))
        self.time_spent += outcome.elapsed
        self.last_outcome = outcome.status.value if not outcome.reason else f"{outcome.status.value} ({outcome.reason})"
        return outcome.status
