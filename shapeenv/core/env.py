"""The core ``ShapeEnv``: allocates symbols for sizes, decides questions about them, and records guards.

It knows nothing of tensors: :class:`shapeenv.env.ShapeEnv` adds fake tensors and op
tracing on top, and is the one users construct.

A thin facade over :mod:`valueranges.facts` (what is known), :mod:`shapeenv.core.decide`
(the decision pipeline) and :mod:`shapeenv.core.produce` (the final guard set).

>>> from guards import Source
>>> env = ShapeEnv()
>>> x0 = env.create_symint(5, Source.size("x", 0))
>>> bool(x0 == 2 * x0), len(env.guards)      # statically False: x0 is in [2, oo]
(False, 0)
>>> bool(x0 > 3), [str(g.expr) for g in env.guards]
(True, ['s0 > 3'])
"""

from __future__ import annotations

import builtins
import contextlib
import dataclasses
import difflib
import logging
import math
from types import MappingProxyType
from typing import Iterator, Mapping

from symint.lazy_sympy import lazy_module, sympy

from guards import GuardSet, Source
from symint import SymBool, SymFloat, SymInt, SymNode, build
from symint.form import logic as B
from symint import form as F
from symint.form import terms as form_terms
from valueranges import ValueRanges, bound

from .assuming import Assumptions, assuming
from .decide import Decider
from .errors import (
    CheckFailedError,
    ConstraintViolationError,
    ShapeEnvError,
    ShapeEnvTypeError,
    ShapeEnvValueError,
)
from .messages import annotate
from .explain import explain_symbol
from valueranges.errors import ContradictoryFactsError
from valueranges.facts import Facts
from .deferred import ProducedGuards
from .produce import ProduceReport, produce_guards, produce_guards_deferred, produce_guards_with_report
from .provenance import AssertRecord, GuardRecord, Provenance, bool_form_of, library_code, user_frame
from .settings import ShapeEnvSettings
from .symbols import DimDynamic, SymbolInfo, SymbolTable

_io = lazy_module("symint.sympy_io")  # Note [sympy on first use] in symint.lazy_sympy
_evaluate = lazy_module("symint.sympy_io.evaluate")

__all__ = ["ShapeEnv"]

log = logging.getLogger("shapeenv.guards")  # topics of SHAPEENV_LOGS (shapeenv.logs); off by default
_asserts_log = logging.getLogger("shapeenv.asserts")
_dynamic_log = logging.getLogger("shapeenv.dynamic")

Symbolic = SymInt | SymBool | SymFloat


class ShapeEnv:
    """The symbolic shape environment of one trace (see the module docstring).

    Args:
        settings: a :class:`ShapeEnvSettings`; or pass its fields as keyword arguments.
    """

    def __init__(self, settings: ShapeEnvSettings | None = None, **overrides):
        if settings is not None and overrides:
            given = ", ".join(f"{k}={v!r}" for k, v in overrides.items())
            raise ShapeEnvTypeError(
                f"ShapeEnv(settings=..., {given}): pass either a settings object or keyword overrides, not both",
                fix=f"ShapeEnv(settings=dataclasses.replace(settings, {given}))",
            )
        if settings is not None and not isinstance(settings, ShapeEnvSettings):
            raise ShapeEnvTypeError(f"settings must be a ShapeEnvSettings, got {settings!r}",
                                    fix="ShapeEnv(settings=ShapeEnvSettings(...)) or ShapeEnv(use_z3=False, ...)")
        names = [f.name for f in dataclasses.fields(ShapeEnvSettings)]
        unknown = [k for k in overrides if k not in names]
        if unknown:
            close = difflib.get_close_matches(unknown[0], names, n=1)
            raise ShapeEnvTypeError(
                f"ShapeEnv({', '.join(f'{k}=...' for k in unknown)}): no such setting; the settings are {', '.join(names)}",
                fix=f"ShapeEnv({close[0]}=...)" if close else None,
            )
        self.settings = settings or ShapeEnvSettings(**overrides)
        form_terms.maybe_sweep()  # a trace starts: free what earlier traces left (Note [Sweeping the interning tables])
        self.symbols = SymbolTable()  # by name (Note [Symbols are names] in shapeenv.core.symbols)
        self.facts = Facts(rank=self.elimination_rank)
        self.decider = Decider(self)
        self.guards: list[GuardRecord] = []
        self.runtime_asserts: list[AssertRecord] = []
        self.specialized: dict[Source, int] = {}  # sources pinned to a constant (0/1 or STATIC)
        self._by_source: dict[Source, str | int] = {}  # the symbol's name, or the pinned value
        self._duck: dict[int, str] = {}  # hint -> name of the first DUCK symbol with it
        self._ops: list[str] = []
        self._counters = {"s": 0, "u": 0}
        self._hints: dict[str, int] = {}  # symbol name -> hint, for the backed symbols
        self.named_dims: dict[str, tuple] = {}  # Dim name -> (Dim, value, first source)
        self.declared_guards: list[GuardRecord] = []  # guards the caller declared (set-valued and derived dims)
        self.assumptions = Assumptions()  # conditions of the enclosing `with env.assuming(...)` blocks

    # -- symbols ----------------------------------------------------------------------------------
    def _new_symbol(self, prefix: str) -> str:
        name = f"{prefix}{self._counters[prefix]}"
        self._counters[prefix] += 1
        return name

    def elimination_rank(self, name: str) -> tuple:
        """Which symbol (by name) an equality eliminates: unbacked before backed, then the newest (largest rank)."""
        info = self.symbols.by_name.get(name)
        if info is None:
            return (2, 0)
        return (0 if info.backed else 1, info.index)

    def create_symint(
        self,
        hint: int,
        source: Source,
        dynamic: DimDynamic = DimDynamic.DUCK,
        min: int | None = None,
        max: int | None = None,
    ) -> SymInt | int:
        """A symbolic size for ``source`` whose value in the traced example is ``hint``.

        STATIC gives the plain int; a hint of 0 or 1 gives the constant (when
        ``specialize_zero_one``) unless ``min`` allows it; DUCK reuses the symbol of an
        earlier DUCK dim with the same hint. Backed sizes get ``[2, oo] & [min, max]``
        (``[min, max]`` when ``min`` admits 0 or 1).

        Raises:
            ConstraintViolationError: ``hint`` lies outside ``[min, max]``.

        >>> env = ShapeEnv()
        >>> a = env.create_symint(4, Source.size("x", 0)); b = env.create_symint(4, Source.size("y", 0))
        >>> a, b, env.create_symint(1, Source.size("x", 1)), env.create_symint(1, Source.size("z", 0), min=1)
        (s0, s0, 1, s1)
        """
        if isinstance(hint, bool) or not isinstance(hint, int):
            raise ShapeEnvTypeError(f"the hint of {source} must be an int, got {hint!r}",
                                    fix=f"env.create_symint(int(hint), {source!r})")
        if not isinstance(source, Source):
            raise ShapeEnvTypeError(f"source must be a guards.Source, got {source!r}",
                                    fix="env.create_symint(hint, Source.size('x', 0))  # from guards import Source")
        if source in self._by_source:
            raise ShapeEnvValueError(f"{source} already has a symbol ({self._by_source[source]}); each input size is created once",
                                     fix=f"reuse the first result, or env.alias_source(value, {source!r}) for another input")
        lo = -math.inf if min is None else min
        hi = math.inf if max is None else max
        if not lo <= hint <= hi:
            bound = f"max={hint}" if hint > hi else f"min={hint}"
            raise ConstraintViolationError(
                f"{source.text()} = {hint} is outside the declared range [{'-oo' if min is None else min}, "
                f"{'oo' if max is None else max}]",
                fix=f"fix the example input, or widen the declared range to hold it ({bound}, e.g. Dim('name', {bound}))",
            )
        if dynamic is DimDynamic.STATIC:
            return self._pin(source, hint)
        floor = 0 if source.is_size_like else -math.inf
        if self.settings.specialize_zero_one and hint in (0, 1) and (min is None or min > hint):
            return self._pin(source, hint)
        if min is None:
            default_low = 2 if self.settings.specialize_zero_one else floor
            rng = ValueRanges.of(default_low, hi)
        else:
            rng = ValueRanges.of(builtins.max(min, floor), hi)
        if hint not in rng:
            raise ConstraintViolationError(f"{source.text()} = {hint} is outside its range {rng}")
        if dynamic is DimDynamic.DUCK and self.settings.duck_shape and min is None and max is None:
            name = self._duck.get(hint)
            if name is not None:
                self.symbols.by_name[name].sources.append(source)
                self._by_source[source] = name
                return SymInt(SymNode.of_form(F.sym(name), int, hint, self))
        name = self._new_symbol("s")
        self._hints[name] = hint
        self.symbols.add(SymbolInfo(name, len(self.symbols), hint, [source], source.is_size_like, dynamic, (min, max), rng))
        self.facts.set_range(name, rng)
        self._by_source[source] = name
        if dynamic is DimDynamic.DUCK and min is None and max is None:
            self._duck.setdefault(hint, name)
        if _dynamic_log.isEnabledFor(logging.INFO):
            _dynamic_log.info("create_symbol %s = %s for %s, range %s  # %s", name, hint, source.text(), rng, user_frame())
        return SymInt(SymNode.of_form(F.sym(name), int, hint, self))

    def alias_source(self, value: SymInt | int, source: Source) -> SymInt | int:
        """Record that ``source`` has the same size as ``value`` (another input's dim): shares its symbol.

        The produced guard set then contains the source equality.
        """
        if source in self._by_source:
            raise ShapeEnvValueError(f"{source} already has a symbol ({self._by_source[source]}); it cannot alias another size",
                                     fix="alias a source that has no symbol yet")
        if isinstance(value, int):
            return self._pin(source, value)
        atom = value.node.form.atom() if isinstance(value, SymInt) else None
        sym = atom.name if atom is not None and atom.kind == "sym" else None
        if sym not in self.symbols.by_name:
            raise ShapeEnvValueError(f"{value} is not an input symbol of this environment; only a size made by "
                                     "create_symint can be aliased", fix="env.alias_source(env.create_symint(hint, src), other)")
        self.symbols.by_name[sym].sources.append(source)
        self._by_source[source] = sym
        return value

    def _pin(self, source: Source, value: int) -> int:
        self.specialized[source] = value
        self._by_source[source] = value
        return value

    def create_unbacked_symint(self, size_like: bool = False, source: Source | None = None) -> SymInt:
        """A data-dependent integer (no hint): ``[0, oo]`` when size-like, else ``[-oo, oo]``.

        ``source``: an input it stands for (an input dim marked unbacked, ``mark_unbacked``).

        >>> env = ShapeEnv()
        >>> u = env.create_unbacked_symint(size_like=True)
        >>> print(u, env.bound(u))
        u0 [0, oo]
        """
        name = self._new_symbol("u")
        if _dynamic_log.isEnabledFor(logging.INFO):
            _dynamic_log.info("create_unbacked_symbol %s%s  # %s", name, " (size-like)" if size_like else "", user_frame())
        origin = f"{self.current_op() or 'create_unbacked_symint'} at {user_frame() or '<unknown>'}"
        self.symbols.add(SymbolInfo(name, len(self.symbols), None, [] if source is None else [source], size_like, origin=origin))
        if source is not None:
            self._by_source[source] = name
        self.facts.set_range(name, ValueRanges.of(0, math.inf) if size_like else ValueRanges.unknown())
        return SymInt(SymNode.of_form(F.sym(name), int, None, self))

    def mark_size_like(self, value: SymInt | int) -> None:
        """Record that ``value`` is used as a size: its unbacked symbol is ``>= 0``."""
        if isinstance(value, SymInt):
            atom = self.facts.simplify_form(value.node.form).atom()
            info = self.symbols.by_name.get(atom.name) if atom is not None and atom.kind == "sym" else None
            if info is not None and not info.backed:
                info.size_like = True
                self.facts.narrow(info.name, ValueRanges.of(0, math.inf), " (used as a size)")

    def hint_of(self, expr: "Symbolic | int | bool | sympy.Basic") -> int | bool | float | None:
        """The value of ``expr`` (a SymInt/SymBool/SymFloat, a sympy expression or a plain number)
        for the traced example, or None if it reads an unbacked symbol. Records nothing.

        >>> env = ShapeEnv(); s = env.create_symint(8, Source.size("x", 0))
        >>> env.hint_of(s * 2 + 1), env.hint_of(s > 3), env.hint_of(5)
        (17, True, 5)
        """
        expr = _expr_of(expr)
        values = {}
        for s in expr.free_symbols:
            info = self.symbols.get(s)
            if info is None or info.hint is None:
                return None
            values[s] = info.hint
        return _evaluate.evaluate(expr, values)

    def hint_of_form(self, f) -> int | bool | None:
        """The value of a canonical form (``Form`` or ``BoolForm``) for the traced example, or None if unbacked."""
        hints = self._hints
        if not f.symbols <= hints.keys():
            return None
        if isinstance(f, B.BoolForm):
            return f.evaluate(hints)
        return f.value(hints)

    # -- queries that record nothing --------------------------------------------------------------
    def simplify(self, expr: sympy.Basic) -> sympy.Basic:
        """``expr`` with known replacements and divisibility applied."""
        return self.facts.simplify(expr)

    def bound(self, value: Symbolic | int | sympy.Basic) -> ValueRanges:
        """The range of ``value`` given everything known.

        >>> env = ShapeEnv(); s = env.create_symint(8, Source.size("x", 0))
        >>> print(env.bound(s // 2))
        [1, oo]
        """
        expr = _expr_of(value)
        rng = bound(self.simplify(expr), self.facts.ranges)
        if not rng.is_bool and not isinstance(value, SymFloat) and rng.lower != rng.upper:
            try:
                form = _io.from_sympy(expr)
            except _io.NotAnIntegerForm:
                form = None
            if form is not None:  # what the decision procedure proves (linear facts, //, %, max, min)
                lo, hi = self.facts.bound(form)
                rng = ValueRanges.of(builtins.max(rng.lower, lo), builtins.min(rng.upper, hi))
        if isinstance(value, SymFloat) and not rng.is_bool:  # a float's range has float ends (torch: is_float)
            rng = ValueRanges.of(float(rng.lower), float(rng.upper))
        return rng

    @contextlib.contextmanager
    def operation(self, name: str) -> Iterator[None]:
        """Attribute guards and asserts recorded inside the block to the operation ``name``."""
        self._ops.append(name)
        try:
            yield
        except ShapeEnvError as e:  # name the symbols the message mentions by their input dims
            annotate(e, self)
            raise
        finally:
            self._ops.pop()

    def current_op(self) -> str | None:
        """The innermost operation entered with :meth:`operation`."""
        return self._ops[-1] if self._ops else None

    # -- the SymbolicEnv protocol and the guard API ------------------------------------------------
    def evaluate_sym_node(self, node: SymNode, *, reason: str) -> int | bool | float:
        """Make ``node`` concrete, recording a guard unless the answer is statically known."""
        form = node.form  # None only for floats: their sympy expression is the value
        if node.pytype is bool:
            return self.decider.guard_bool(form, node.hint, reason=reason)
        return self.decider.guard_value(node.expr if form is None else form, node.hint, reason=reason)

    def specializes_printing(self, frame) -> bool:
        """Whether ``str``/``repr``/``format`` of a SymInt called from ``frame`` gives its value, with a guard
        (Note [Printing a SymInt] in ``symint.values``): with ``settings.specialize_printing``, in the user's code.

        >>> import sys
        >>> ShapeEnv().specializes_printing(sys._getframe())
        False
        """
        return self.settings.specialize_printing and not library_code(frame)

    def evaluate(self, value: SymBool | bool) -> bool:
        """``bool(value)``: decide statically, else by the hint while recording a guard."""
        return bool(value)

    def statically_known_true(self, value: SymBool | bool, *, size_oblivious: bool = False) -> bool:
        """True only if ``value`` (a SymBool, bool, or sympy condition) is provably true; records nothing.

        ``size_oblivious``: also assume size-like unbacked symbols are ``>= 2`` (torch's
        size-oblivious reasoning), for this question only.

        >>> env = ShapeEnv(); s = env.create_symint(8, Source.size("x", 0)); u = env.create_unbacked_symint(size_like=True)
        >>> env.statically_known_true(s >= 2), env.statically_known_true(s >= 3)
        (True, False)
        >>> env.statically_known_true(u != 1), env.statically_known_true(u != 1, size_oblivious=True)
        (False, True)
        """
        return self.decider.static(value, size_oblivious) is True

    def statically_known_false(self, value: SymBool | bool, *, size_oblivious: bool = False) -> bool:
        """True only if ``value`` is provably false; records nothing (``size_oblivious`` as above)."""
        return self.decider.static(value, size_oblivious) is False

    @property
    def replacements(self) -> Mapping[sympy.Symbol, sympy.Expr]:
        """A read-only view of the current replacements (``symbol -> expression`` it stands for).

        >>> env = ShapeEnv(); a = env.create_symint(4, Source.size("x", 0)); b = env.create_symint(5, Source.size("y", 0))
        >>> _ = bool(a + 1 == b); dict(env.replacements)
        {s1: s0 + 1}
        """
        return MappingProxyType(self.facts.replacements)

    def assuming(self, cond: SymBool | bool):
        """``with env.assuming(cond):`` -- ``cond`` is a known fact inside the block only (see :mod:`shapeenv.core.assuming`).

        >>> env = ShapeEnv(); s = env.create_symint(5, Source.size("x", 0))
        >>> with env.assuming(s == 7):
        ...     print(env.simplify(s.node.expr + 1))
        8
        """
        return assuming(self, cond)

    def guard_or_false(self, value: SymBool | bool) -> bool:
        """Decide ``value`` like ``bool()`` (guarding if only the hints decide), but answer False
        instead of raising when it depends on data-dependent sizes (torch's ``guard_or_false``).

        >>> env = ShapeEnv(); u = env.create_unbacked_symint(); s = env.create_symint(8, Source.size("x", 0))
        >>> env.guard_or_false(u == 1), env.guard_or_false(s > 5), [str(g.expr) for g in env.guards]
        (False, True, ['s0 > 5'])
        """
        return self._guard_or(value, False)

    def guard_or_true(self, value: SymBool | bool) -> bool:
        """Like :meth:`guard_or_false`, answering True when data-dependent sizes leave it undecided."""
        return self._guard_or(value, True)

    def _guard_or(self, value: SymBool | bool, default: bool) -> bool:
        if not isinstance(value, SymBool):
            return bool(value)
        answer = self.decider.static(value)
        if answer is not None:
            return answer
        hint = value.node.hint if value.node.hint is not None else self.hint_of(self.simplify(value.node.expr))
        if hint is None:
            return default
        return bool(value)

    def guard_size_oblivious(self, value: SymBool | bool) -> bool:
        """Decide ``value`` assuming size-like unbacked symbols are ``>= 2`` for this question only.

        >>> env = ShapeEnv(); u = env.create_unbacked_symint(size_like=True)
        >>> env.guard_size_oblivious(u == 1)
        False
        """
        if not isinstance(value, SymBool):
            return bool(value)
        return self.decider.guard_bool(value.node.form, value.node.hint, reason="size_oblivious", size_oblivious=True)

    def check(self, cond: SymBool | bool, message: str | None = None) -> None:
        """A runtime assert (``torch._check``): assume ``cond`` from now on and check it when the program runs.

        Narrows ranges, turns equalities into replacements, and is recorded in
        :attr:`runtime_asserts` (never a guard: an assert does not cause a recompile).

        Raises:
            CheckFailedError: ``cond`` is statically false, or false for the traced example's hints.

        >>> env = ShapeEnv(); u = env.create_unbacked_symint()
        >>> env.check(u < 100); print(env.bound(u))
        [-oo, 99]
        """
        what = f": {message}" if message else ""
        if not isinstance(cond, SymBool):
            if not cond:
                raise CheckFailedError(f"check failed (the condition is the constant {cond!r}){what}")
            return
        stated = cond.node.form
        form = self.facts.simplify_bool(stated)
        hint = cond.node.hint if cond.node.hint is not None else self.hint_of_form(form)
        static = self.decider.static(form, hint=hint)
        if static is False:
            error = CheckFailedError(f"check({cond.node.expr}) is always false given what is known{what}",
                                     fix="drop the check, or fix the condition: it contradicts the sizes' ranges and facts")
            annotate(error, self)
            raise error
        if hint is False:
            error = CheckFailedError(
                f"check({cond.node.expr}) is false for the traced sizes{what}",
                fix="trace with example inputs that satisfy it; if the condition may be false, branch on it "
                    "instead: if guard_or_false(cond): ...")
            annotate(error, self)
            raise error
        if static is True:
            return
        recorded = form
        if self.assumptions:  # inside `with env.assuming(c)`: the assert holds where c does
            recorded = self.assumptions.scoped(form)
            if recorded is B.TRUE:
                return
        record = AssertRecord(recorded, message, Provenance(stated, user_frame(), self.current_op(), "runtime assert"))
        try:
            self.facts.learn_form(form, undecided=True)
        except ContradictoryFactsError as e:
            raise CheckFailedError(f"check({cond.node.expr}) contradicts what is known: {e}{what}") from e
        self.runtime_asserts.append(record)
        self._refresh_size_like()
        _asserts_log.info("runtime assert %s", record)

    def _refresh_size_like(self) -> None:
        for name, info in self.symbols.by_name.items():
            if not info.backed and not info.size_like and self.facts.range_of(name).lower >= 0:
                info.size_like = True

    def record_guard(self, guard, stated, why: str, undecided: bool = False) -> None:
        """Record that ``guard`` (already simplified, true for the hints) must hold for reuse.

        ``guard`` and ``stated`` (the condition as the program asked it) are boolean forms;
        a sympy boolean is converted once (a float comparison becomes an opaque form).
        ``undecided``: the facts were just asked about ``guard`` and did not decide it.
        (``record_guard_form``, the forms-only twin of this method, is gone: this is it.)
        """
        guard = bool_form_of(guard)
        provenance = Provenance(stated, user_frame(), self.current_op(), why)
        if self.assumptions:  # inside `with env.assuming(c)`: see shapeenv.core.assuming
            scoped = self.assumptions.scoped(guard)
            if scoped is B.TRUE:  # on a path no reusing input takes
                return
            record = GuardRecord(scoped, provenance)
            self.guards.append(record)
            self.assumptions.learn(self.facts, guard)
        else:
            record = GuardRecord(guard, provenance)
            self.guards.append(record)
            self.facts.learn_form(guard, undecided, consistent=True)  # a guard holds for the hints, as every fact does
        log.info("guard %s", record)

    # -- results ----------------------------------------------------------------------------------
    def produce_guards(self, *, simplify: bool | None = None, wait: bool = False) -> GuardSet:
        """The guard set over input sources that decides whether this trace may be reused.

        Returns at once the exact reduced set (no Z3); ``wait=True`` returns the Z3-simplified
        set, proven equivalent (and waits for it); ``simplify=False`` the raw set. See
        :meth:`produce_guards_deferred` for both at once.

        >>> env = ShapeEnv(); s = env.create_symint(8, Source.size("x", 0))
        >>> _ = bool(s % 4 == 0)
        >>> print(env.produce_guards().to_text("source"))
        x.size()[0] >= 4
        (x.size()[0] % 4) == 0
        """
        simplify = self.settings.simplify_guards if simplify is None else simplify
        return produce_guards(self, simplify=simplify, wait=wait)

    def produce_guards_deferred(self, config=None, *, background: bool | None = None) -> ProducedGuards:
        """The reduced guard set now and the Z3-simplified one when proven (see :class:`~shapeenv.core.deferred.ProducedGuards`).

        >>> env = ShapeEnv(); s = env.create_symint(8, Source.size("x", 0))
        >>> _ = bool(s > 3); _ = bool(s > 5)
        >>> p = env.produce_guards_deferred()
        >>> print(p.current.to_text("source")); print(p.wait().to_text("source")); p.proof.value
        x.size()[0] >= 6
        x.size()[0] >= 6
        'yes'
        """
        return produce_guards_deferred(self, config, background=background)

    def produce_guards_with_report(self, config=None) -> ProduceReport:
        """The produced guard set, the raw one, and Z3's proof that they accept the same inputs.

        >>> env = ShapeEnv(); s = env.create_symint(8, Source.size("x", 0))
        >>> _ = bool(s > 3); _ = bool(s > 5)
        >>> report = env.produce_guards_with_report()
        >>> len(report.raw), len(report.produced), report.proof.verdict.value
        (3, 1, 'yes')
        """
        return produce_guards_with_report(self, config)

    def explain(self, value: Symbolic | sympy.Symbol | str) -> str:
        """Why a symbol is specialised, bounded or equal to another, from the recorded guards and asserts."""
        return explain_symbol(self, value)

    def __repr__(self) -> str:
        return f"ShapeEnv({len(self.symbols)} symbols, {len(self.guards)} guards, {len(self.runtime_asserts)} asserts)"


def _expr_of(value) -> sympy.Basic:
    if isinstance(value, (SymInt, SymBool, SymFloat)):
        return value.node.expr
    return build.as_expr(value)

