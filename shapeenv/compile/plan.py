"""Which input dims (and ints) a trace makes dynamic, and the ``export`` arguments that say so.

Note [Deciding one dim]
    For each size of a tensor input and each int input (a *source*), the first rule
    that applies decides:

    1. ``mark_static`` -> static; ``mark_dynamic`` -> dynamic, *strong* (a trace that
       specialises it, or narrows a declared ``min``/``max``, is an error);
    2. ``static_sources`` matches -> static; then a guard-budget fallback decides, if
       there is one (:mod:`shapeenv.compile.budget`);
    3. ``dynamic_sources`` matches -> dynamic (weak);
    4. ``maybe_mark_dynamic`` -> dynamic (weak);
    5. ``dynamic=True`` -> dynamic (weak); ``dynamic=False`` -> static;
    6. automatic dynamic (``dynamic=None``): dynamic (weak) once some call had a
       different value there than the first call did, else static.

    A weak dynamic source whose example value is 0 or 1 (or, for an int, below 2) is
    traced static: sizes 0 and 1 are specialised anyway, and ``export`` rejects a
    dynamic dim it would specialise. A weak dynamic source that the function itself
    specialises (``if x.shape[0] == 8``) is retraced static (see
    :mod:`shapeenv.compile.trace`), as torch installs ``== 8`` instead of failing.

>>> from guards import Source
>>> d = Dynamism(); d.observe_sizes("x", (8, 3)); d.observe_sizes("x", (9, 3))
>>> sorted(s.text() for s in d.changed)
['x.size()[0]']
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Mapping

from guards import Source

from shapeenv.compile.marks import DimMark, Marks, SourcePatterns
from shapeenv.errors import ShapeEnvTypeError, ShapeEnvValueError
from shapeenv.tensor.dims import Dim
from shapeenv.program.program import TensorSpec, is_shape_tuple, is_tensor_like, shape_and_dtype
from shapeenv.compile.binding import Call
from shapeenv.compile.budget import Forced

__all__ = ["CompileOptions", "Decision", "Dynamism", "Plan", "make_plan", "DEMOTED"]

#: How the ``why`` of a dim meant to be dynamic but traced static starts.
DEMOTED = _DEMOTED = "traced static"


@dataclass(frozen=True, slots=True)
class CompileOptions:
    """The frozen options of one compiled function (see :func:`shapeenv.compile.compile`)."""

    name: str
    dynamic: bool | None = None
    dynamic_sources: SourcePatterns = field(default_factory=SourcePatterns)
    static_sources: SourcePatterns = field(default_factory=SourcePatterns)
    recompile_limit: int = 8

    def __post_init__(self) -> None:
        if self.dynamic not in (None, True, False):
            raise ShapeEnvTypeError(f"dynamic must be None (automatic), True or False, got {self.dynamic!r}",
                                    fix="compile(fn, dynamic=True)")
        if isinstance(self.recompile_limit, bool) or not isinstance(self.recompile_limit, int) or self.recompile_limit < 1:
            raise ShapeEnvValueError(f"recompile_limit must be an int >= 1, got {self.recompile_limit!r}",
                                     fix="compile(fn, recompile_limit=8)  # the default")


@dataclass(frozen=True, slots=True)
class Decision:
    """How one source is traced, and why (Note [Deciding one dim]).

    Attributes:
        source: the input size (``x.size()[0]``) or int input (``n``).
        value: its value in this call.
        dynamic: traced symbolic.
        strong: ``mark_dynamic``: specialising it is an error.
        why: the rule that decided, in words.
        mark: the dim's mark, if any.
    """

    source: Source
    value: int
    dynamic: bool
    strong: bool
    why: str
    mark: DimMark | None = None


class Dynamism:
    """Automatic-dynamic state of one compiled function: the first call's sizes, and what changed since.

    Mutated only under the compiled function's lock.
    """

    def __init__(self) -> None:
        self.first: dict[str, tuple[int, ...] | int] = {}  # input name -> the first call's sizes (or int)
        self.changed: dict[Source, str] = {}  # source -> how it changed (``8 -> 9``)
        self.forced: dict[Source, Forced] = {}  # guard-budget fallbacks (shapeenv.compile.budget)
        self.observed: dict[Source, tuple[int, int]] = {}  # source -> (min, max) seen at misses

    def observe_sizes(self, name: str, sizes: tuple[int, ...]) -> None:
        """Record a tensor input's sizes; when the rank changes, every dim becomes dynamic (as in torch)."""
        first = self.first.setdefault(name, sizes)
        if not isinstance(first, tuple) or len(first) != len(sizes):
            rank = f"{len(first)}-d" if isinstance(first, tuple) else "an int"
            for i in range(len(sizes)):
                self.changed.setdefault(Source.size(name, i), f"was {rank}, got {len(sizes)}-d")
            return
        for i, (a, b) in enumerate(zip(first, sizes)):
            if a != b:
                self.changed.setdefault(Source.size(name, i), f"{a} -> {b}")

    def observe_int(self, name: str, value: int) -> None:
        """Record an int input's value."""
        first = self.first.setdefault(name, value)
        if first != value:
            self.changed.setdefault(Source.value(name), f"{first} -> {value}" if isinstance(first, int) else "was a tensor")

    def observe(self, call: Call) -> None:
        """Record every tensor and int leaf of ``call`` (and the range of values seen per source)."""
        for name, value in zip(call.names, call.values):
            if type(value) is int:
                self.observe_int(name, value)
                self._seen(Source.value(name), value)
            elif is_tensor_like(value):
                sizes = tuple(int(d) for d in value.shape)
                self.observe_sizes(name, sizes)
                for i, size in enumerate(sizes):
                    self._seen(Source.size(name, i), size)

    def _seen(self, source: Source, value: int) -> None:
        lo, hi = self.observed.get(source, (value, value))
        self.observed[source] = (min(lo, value), max(hi, value))


@dataclass(frozen=True, slots=True)
class Plan:
    """How to trace one call: a :class:`Decision` per source, and hints to override.

    Attributes:
        decisions: source -> decision, for every size of a tensor leaf and every int leaf.
        overrides: size source -> the hint the trace uses instead of the call's size.
    """

    decisions: Mapping[Source, Decision]
    overrides: Mapping[Source, int] = field(default_factory=dict)

    def with_static(self, sources: list[Source], why: str) -> "Plan":
        """The same plan with ``sources`` traced static (their hint overrides dropped)."""
        decisions = dict(self.decisions)
        for s in sources:
            decisions[s] = replace(decisions[s], dynamic=False, strong=False, why=why)
        return Plan(decisions, {s: h for s, h in self.overrides.items() if s not in sources})

    def without_overrides(self) -> "Plan":
        """The same plan tracing with the call's own sizes."""
        return Plan(self.decisions, {})

    @property
    def dynamic_sources(self) -> tuple[Source, ...]:
        """The sources traced dynamic."""
        return tuple(s for s, d in self.decisions.items() if d.dynamic)

    def describe(self) -> str:
        """``x.size()[0] (automatic dynamic: 8 -> 9)`` per dynamic source (or ``none``), then the sources
        that were meant to be dynamic but traced static, with why."""
        dynamic = ", ".join(f"{d.source.text()} ({d.why})" for d in self.decisions.values() if d.dynamic) or "none"
        demoted = [f"{d.source.text()} ({d.why})" for d in self.decisions.values() if not d.dynamic and _DEMOTED in d.why]
        return dynamic + (f"; static: {', '.join(demoted)}" if demoted else "")

    # -- export's arguments ---------------------------------------------------------------------
    def spec_for(self, name: str, value: Any) -> Any:
        """The ``dynamic_shapes`` entry of one argument (mirroring its structure)."""
        if is_tensor_like(value):
            dims = {}
            for i in range(_ndim(value)):
                d = self.decisions.get(Source.size(name, i))
                if d is not None and d.dynamic:
                    dims[i] = _dim_spec(d)
            return dims or None
        if type(value) is int:
            d = self.decisions.get(Source.value(name))
            return _dim_spec(d) if d is not None and d.dynamic else None
        if isinstance(value, (list, tuple)):
            return [self.spec_for(f"{name}[{i}]", v) for i, v in enumerate(value)]
        if isinstance(value, dict):
            return {k: self.spec_for(f"{name}[{k!r}]", v) for k, v in value.items()}
        return None

    def example_for(self, name: str, value: Any) -> Any:
        """The example input of one argument: overridden hints become a :class:`TensorSpec` of that shape."""
        if is_tensor_like(value):
            sizes = [self.overrides.get(Source.size(name, i)) for i in range(_ndim(value))]
            if all(h is None for h in sizes):
                return value
            shape, dtype = shape_and_dtype(value)
            return TensorSpec(tuple(shape[i] if h is None else h for i, h in enumerate(sizes)), dtype)
        if isinstance(value, list):
            return [self.example_for(f"{name}[{i}]", v) for i, v in enumerate(value)]
        if isinstance(value, tuple) and not is_shape_tuple(value):
            return tuple(self.example_for(f"{name}[{i}]", v) for i, v in enumerate(value))
        if isinstance(value, dict):
            return {k: self.example_for(f"{name}[{k!r}]", v) for k, v in value.items()}
        return value


def _ndim(value: Any) -> int:
    return len(value) if is_shape_tuple(value) else len(value.shape)


def _dim_spec(d: Decision) -> Dim:
    mark = d.mark
    if d.strong and mark is not None and mark.kind == "unbacked":
        return Dim.UNBACKED
    if d.strong and mark is not None and mark.choices is not None:
        return Dim(d.source.text(), min=mark.min, max=mark.max, choices=mark.choices)
    if d.strong and mark is not None and (mark.min is not None or mark.max is not None):
        # A bounded mark_dynamic dim is a *named* Dim for export (named after its source, so it is
        # shared with nothing): export then reports guards that narrow its range.
        return Dim(d.source.text(), min=mark.min, max=mark.max)
    return Dim.DYNAMIC


def _decide(source: Source, value: int, mark: DimMark | None, options, dynamism: Dynamism) -> Decision:
    if mark is not None and mark.kind == "static":
        return Decision(source, value, False, False, "mark_static", mark)
    if mark is not None and mark.kind == "dynamic":
        return Decision(source, value, True, True, "mark_dynamic", mark)
    if mark is not None and mark.kind == "unbacked":
        return Decision(source, value, True, True, "mark_unbacked", mark)
    hit = options.static_sources.match(source)
    if hit is not None:
        return Decision(source, value, False, False, f"static_sources {hit!r}", mark)
    forced = dynamism.forced.get(source)  # a guard-budget fallback (Note [Budget fallbacks])
    if forced is not None and not forced.dynamic:
        return Decision(source, value, False, False, forced.why, mark)
    hit = options.dynamic_sources.match(source)
    if forced is not None:
        why = forced.why
    elif hit is not None:
        why = f"dynamic_sources {hit!r}"
    elif mark is not None and mark.kind == "maybe":
        why = "maybe_mark_dynamic"
    elif options.dynamic is True:
        why = "dynamic=True"
    elif options.dynamic is False:
        return Decision(source, value, False, False, "dynamic=False", mark)
    elif source in dynamism.changed:
        why = f"automatic dynamic: {dynamism.changed[source]}"
    else:
        return Decision(source, value, False, False, "static until it changes", mark)
    low = 0 if source.kind == "size" else 2  # ints below 2 are specialised; so are sizes 0 and 1
    if value in (0, 1) or value < low:
        return Decision(source, value, False, False, f"{_DEMOTED}: {why}, but the value {value} is specialised", mark)
    return Decision(source, value, True, False, why, mark)


def make_plan(call: Call, options: CompileOptions, dynamism: Dynamism, *, overrides: bool) -> Plan:
    """Decide every source of ``call`` (Note [Deciding one dim]); ``overrides``: apply ``hint_override`` marks.

    >>> from shapeenv.compile.binding import Binder
    >>> call = Binder(lambda x, n: None).bind(((8, 3), 5), {})
    >>> make_plan(call, CompileOptions("f", dynamic_sources=SourcePatterns.parse("x:0")), Dynamism(), overrides=False).describe()
    "x.size()[0] (dynamic_sources 'x:0')"
    """
    decisions: dict[Source, Decision] = {}
    hints: dict[Source, int] = {}
    for name, value in zip(call.names, call.values):
        marks: Marks | None = call.marks.get(name)
        if type(value) is int:
            src = Source.value(name)
            decisions[src] = _decide(src, value, None, options, dynamism)
        elif is_tensor_like(value):
            for i, size in enumerate(value.shape):
                src = Source.size(name, i)
                mark = marks.get(i) if marks is not None else None
                decisions[src] = d = _decide(src, int(size), mark, options, dynamism)
                if overrides and d.dynamic and mark is not None and mark.hint_override is not None:
                    hints[src] = mark.hint_override
    return Plan(decisions, hints)

