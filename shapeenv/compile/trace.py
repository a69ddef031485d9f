"""Tracing one call for the cache: ``export`` with the planned dims, then the entries' guard sets.

Note [Weak dims the function specialises]
    ``export`` rejects a dim declared dynamic that the trace pins to a constant
    (``if x.shape[0] == 8``, a ``view(8, -1)``). Only ``mark_dynamic`` promises the
    dim stays dynamic, so only there is that an error. A dim made dynamic by a
    weaker rule (automatic dynamic, ``dynamic=True``, ``dynamic_sources``,
    ``maybe_mark_dynamic``) is retraced static instead, which yields the guard torch
    installs in that case (``x.size()[0] == 8``). Each retrace makes at least one
    more dim static, so this ends.

Note [Int inputs in guards]
    ``export`` specialises an int input that is not dynamic: the program is only
    valid for that value, but its guard set does not say so. The entry's guard set
    adds ``n == 3`` (source ``n``) for each such int, so the checker rejects other
    values and the dispatch index can hash on them, like on static sizes.

Note [specialize_on]
    For a ``mark_dynamic(x, 0, specialize_on=[p, ...])`` dim, the generic trace gives
    the SymInt of the dim; ``p(size)`` builds a SymBool without deciding it (no guard
    is recorded), and its expression, added to the generic guards, is the guard set of
    the specialised entry. A predicate the trace already decides adds nothing (always
    true: the generic entry serves; always false: it could never match), and one
    that does not return a SymBool (``s in (8, 16)`` decides by calling ``bool``) is
    an error naming it. Specialised entries come before the generic one, so a call
    runs the first specialised entry whose predicate holds.

>>> from shapeenv.compile.plan import CompileOptions, Dynamism, make_plan
>>> from shapeenv.compile.binding import Binder
>>> fn = lambda x, n: x * n
>>> call = Binder(fn).bind(((8, 3), 2), {})
>>> t = trace_call(fn, call, make_plan(call, CompileOptions("f"), Dynamism(), overrides=False), "f")
>>> print(t.guards.to_text("source"))
x.size()[0] == 8
x.size()[1] == 3
x.stride()[0] == 3
x.stride()[1] == 1
n == 2
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from symint.lazy_sympy import lazy_module, sympy

from guards import Guard, GuardSet
from symint import SymBool, SymInt, build
from symint import form as F

from shapeenv.core.settings import ShapeEnvSettings
from shapeenv.errors import DynamicShapesTypeError
from shapeenv.export.export import ExportConstraintError, export
from shapeenv.program.program import ExportedProgram, is_tensor_like
from shapeenv.ops.dispatch import is_tensor
from shapeenv.hops.pytree import tree_map
from shapeenv.compile.binding import Call
from shapeenv.compile.plan import DEMOTED, Plan
from shapeenv.compile.reads import NO_READS, Reads, recording

_evaluate = lazy_module("symint.sympy_io.evaluate")  # Note [sympy on first use] in symint.lazy_sympy

__all__ = ["Traced", "Specialization", "trace_call", "output_shapes"]


@dataclass(frozen=True, slots=True)
class Specialization:
    """One ``specialize_on`` entry: its label (``x.size()[0] == 8``) and guard set."""

    label: str
    guards: GuardSet
    extra: GuardSet | None = None  # the predicate's guard, added to the generic guards


@dataclass(frozen=True, slots=True)
class Traced:
    """The outcome of tracing one call.

    Attributes:
        program: the exported program.
        plan: the plan actually traced (after Note [Weak dims the function specialises]).
        guards: the generic entry's guard set (the program's guards and layout guards, plus the int pins).
        specializations: the ``specialize_on`` entries, in order.
        skipped: predicates that got no entry, with why.
        seconds: how long tracing took.
        pins: the int pins added to the program's guards (Note [Int inputs in guards]).
        reads: what the trace read besides its inputs, checked on every hit (:mod:`shapeenv.compile.reads`).
    """

    program: ExportedProgram
    plan: Plan
    guards: GuardSet
    specializations: tuple[Specialization, ...] = ()
    skipped: tuple[str, ...] = ()
    seconds: float = 0.0
    pins: GuardSet | None = None
    reads: Reads = NO_READS

    def entry_guards(self, produced: GuardSet) -> list[tuple[str | None, GuardSet]]:
        """Each entry's label and guard set, built on ``produced`` (the program's guards, or their simplified form)."""
        generic = produced & self.pins if self.pins is not None else produced
        out: list[tuple[str | None, GuardSet]] = []
        for s in self.specializations:
            out.append((s.label, generic & s.extra if s.extra is not None else s.guards))
        return out + [(None, generic)]


def trace_call(fn: Callable, call: Call, plan: Plan, name: str, args: tuple | None = None,
               kwargs: Mapping[str, Any] | None = None, top_names: list[str] | None = None) -> Traced:
    """Export ``fn`` on the call's inputs as ``plan`` says, and build the entries' guard sets.

    ``args``/``kwargs``/``top_names`` are the call's arguments and their names (default:
    the leaves of ``call`` as positional arguments, for calls without pytrees).

    Raises:
        ExportConstraintError: a ``mark_dynamic`` dim was specialised or constrained.
        ShapeError, ...: whatever tracing ``fn`` raises.
    """
    if args is None:
        args, kwargs, top_names = call.values, {}, list(call.names)
    kwargs = dict(kwargs or {})
    assert top_names is not None
    start = time.perf_counter()
    _evaluate.evaluate  # noqa: B018 -- loads symint.sympy_io: Note [sympy before the reads tracer]
    objects = {n: v for n, v in zip(call.names, call.values) if _is_object(v)}
    with recording(fn, objects) as recorder:
        program, plan = _export_planned(fn, plan, name, args, kwargs, top_names)
    reads = recorder.reads(name)
    pins = _int_pins(plan)
    if len(program.layout_guards):  # the layout guards travel with the int pins, into simplified sets too
        pins = program.layout_guards & pins
    guards = program.guards & pins
    specs, skipped = _specializations(program, plan, guards)
    return Traced(program, plan, guards, specs, skipped, time.perf_counter() - start, pins, reads)


# Note [sympy before the reads tracer]
#     export still reads sympy views of a trace's symbols (its range constraints), so a trace
#     imports sympy on first use (Note [sympy on first use] in symint.lazy_sympy). Imported under
#     the reads tracer (shapeenv.compile.reads), sympy's ~0.5 s import costs ~0.3 s more: every
#     frame of it is looked at. A cold call therefore loads the view module just before the tracer
#     starts. A call served from the cache or a store traces nothing and loads no sympy.

_PLAIN = (int, float, complex, str, bytes, bool, type(None))
#: A compiled function's traces: ``str(n)`` of a SymInt in the user's code specialises (Note [Printing a SymInt]).
_SETTINGS = ShapeEnvSettings(specialize_printing=True)


def _is_object(value: Any) -> bool:
    """A leaf whose state a trace may read (not an array, a shape spec or a plain constant)."""
    return type(value) not in _PLAIN and not is_tensor_like(value)


def _export_planned(fn: Callable, plan: Plan, name: str, args: tuple, kwargs: dict, top_names: list[str]):
    """``export`` as ``plan`` says, retracing weak dims static (Note [Weak dims the function specialises])."""
    while True:
        ex_args = tuple(plan.example_for(n, v) for n, v in zip(top_names, args))
        ex_kwargs = {k: plan.example_for(k, v) for k, v in kwargs.items()}
        shapes = {n: plan.spec_for(n, v) for n, v in zip(top_names, args)}
        shapes.update({k: plan.spec_for(k, v) for k, v in kwargs.items()})
        try:
            return export(fn, ex_args, shapes, ex_kwargs, name=name, settings=_SETTINGS), plan
        except ExportConstraintError as e:
            weak = [v.source for v in e.violations if v.source in plan.decisions and not plan.decisions[v.source].strong]
            strong = [v for v in e.violations if v.source not in weak]
            if strong or not weak:
                marked = [v.source.text() for v in strong if v.source in plan.decisions and plan.decisions[v.source].strong]
                if marked:
                    e.add_note(
                        f"(compile: {', '.join(marked)} {'was' if len(marked) == 1 else 'were'} marked with mark_dynamic, "
                        "which promises the dim stays dynamic; use maybe_mark_dynamic to allow specialising it, "
                        "or change the code that specialises it)"
                    )
                raise
            detail = "; ".join(v.detail for v in e.violations)
            plan = plan.with_static(weak, f"{DEMOTED}: the function specialises it ({detail})")


def _int_pins(plan: Plan) -> GuardSet:
    """``n == 3`` for every int input traced static (Note [Int inputs in guards])."""
    pins, sources = [], {}
    for k, d in enumerate(d for d in plan.decisions.values() if d.source.kind == "value" and not d.dynamic):
        sym = build.symbol_expr(f"c{k}")
        sources[sym] = d.source
        pins.append(Guard.of(F.rel("==", F.sym(sym.name), F.const(d.value)), f"{d.source.text()} is a constant of the trace ({d.why})"))
    return GuardSet.of(pins, sources)


def _specializations(program: ExportedProgram, plan: Plan, generic: GuardSet):
    env = program.env
    fakes = {spec.name: spec.value for spec in program.inputs if spec.kind == "tensor"}
    out: list[Specialization] = []
    skipped: list[str] = []
    for d in plan.decisions.values():
        if not (d.dynamic and d.mark is not None and d.mark.specialize_on):
            continue
        size = fakes[d.source.base].shape[d.source.index]
        for k, pred in enumerate(d.mark.specialize_on):
            where = f"specialize_on[{k}] of {d.source.text()}"
            result = pred(size)
            if not isinstance(result, SymBool):
                raise DynamicShapesTypeError(
                    f"{where} returned {result!r}, not a symbolic condition: write it with comparisons and "
                    "arithmetic on the size; `in`, `and`, `or` and `if` decide the condition instead of returning it",
                    fix="specialize_on=[lambda s: s == 8, lambda s: s % 16 == 0]",
                )
            if env.statically_known_true(result):
                skipped.append(f"{where} always holds for this trace: the generic entry serves it")
                continue
            if env.statically_known_false(result):
                skipped.append(f"{where} never holds for this trace: no entry")
                continue
            expr = env.simplify(result.node.expr)
            extra = GuardSet.of([Guard.of(expr, where)], generic.source_map)
            label = extra.to_text("source").strip()
            out.append(Specialization(label, generic & extra, extra))
    return tuple(out), tuple(skipped)


def output_shapes(program: ExportedProgram, inputs: Mapping[str, Any]) -> Any:
    """The program's outputs for the concrete ``inputs``: each tensor's shape as a tuple of ints.

    A size that reads a data-dependent (unbacked) symbol stays symbolic.

    >>> from shapeenv import Dim, TensorSpec, export
    >>> p = export(lambda x: (x + 1, x.shape[0] * 2), ((4, 3),), dynamic_shapes={"x": {0: Dim.DYNAMIC}})
    >>> output_shapes(p, {"x": TensorSpec((10, 3))})
    ((10, 3), 20)
    """
    env = program.env
    values: dict[sympy.Symbol, int] = {}
    for sym, info in env.symbols.items():
        if info.sources:
            values[sym] = info.sources[0].read(inputs[info.sources[0].base])

    def concrete(v: Any) -> Any:
        if isinstance(v, SymInt):
            expr = env.simplify(v.node.expr)
            try:
                return int(_evaluate.evaluate(expr, values))
            except _evaluate.UnboundSymbolError:
                return expr
        return v

    return tree_map(lambda v: tuple(concrete(d) for d in v.shape) if is_tensor(v) else concrete(v), program.outputs)
