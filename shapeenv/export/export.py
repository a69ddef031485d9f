"""``export``: trace a function on fake tensors into an :class:`~shapeenv.program.program.ExportedProgram`, like ``torch.export``.

Example inputs are arrays or tensors (anything with ``.shape`` and ``.dtype``),
:class:`TensorSpec` s, shape tuples (a non-empty tuple of ints), plain ints, or
nested lists/tuples/dicts of those. ``dynamic_shapes`` says which dims are
symbolic, mirroring ``torch.export``: per input (by name in a dict, or by position
in a tuple) a ``{dim: spec}`` dict or a list with one spec per dim, where a spec
is ``Dim("name", min, max)`` (dims with the same name are the same symbol),
``Dim.DYNAMIC`` (a symbol of its own), ``Dim.STATIC`` or ``None`` (the example's
size), ``Dim.AUTO`` (dynamic unless tracing pins it; never a violation), a derived dim
(``2 * d``, ``d + 1``) or a set-valued dim (``Dim("b", choices=(1, 8, 16))``; see
:mod:`shapeenv.tensor.dims`). Dims not mentioned are static, as in ``torch.export``.

Note [Ints are specialised]
    As ``torch.export`` does, a plain int input is a constant of the program unless
    ``dynamic_shapes`` gives it a ``Dim``; then it is a SymInt whose source is the
    input itself (``L['n']``), with range ``[2, oo]`` intersected with the Dim's.

Note [Constraint violations]
    After tracing, the recorded guards (not the runtime asserts: those are checked
    when the program runs) are replayed one by one. A dim declared dynamic that a
    guard pins to a constant is an error, as is, for a *named* ``Dim``, a guard
    that narrows its declared range, makes it a multiple of something, or ties it
    to another named Dim (``torch.export`` reports the same cases). ``Dim.DYNAMIC``
    accepts such refinements; the produced guards then carry them. The error names
    the dim, the guard that first caused it (with where it was recorded) and a fix.
    A guard that narrows a declared range only by excluding 0 and 1 (a branch such as
    ``q_length > 1``) is no violation by itself: the request is traced again at those sizes
    and refused only where that program differs (Note [Sizes 0 and 1 in export] in
    :mod:`shapeenv.export.small`).

>>> from shapeenv import Dim
>>> p = export(lambda x, y: x * y, ((8, 3), (8, 3)), dynamic_shapes={"x": {0: Dim("batch")}, "y": {0: Dim("batch")}})
>>> p.output_shapes, {s: str(r) for s, r in p.range_constraints.items()}
((s0, 3), {s0: '[2, oo]'})
>>> print(p.guards.to_text("source"))
x.size()[1] == 3
y.size()[1] == 3
y.size()[0] == x.size()[0]
x.size()[0] >= 2
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from types import MappingProxyType
from typing import Any, Callable, Mapping, Sequence

from symint.lazy_sympy import lazy_module, sympy

from guards import Guard, Source
from symint import SymInt

from shapeenv.env import ShapeEnv
from valueranges import ValueRanges, bound

from shapeenv.errors import ConstraintViolationError, DynamicShapesError, DynamicShapesTypeError, SignatureError
from shapeenv.core.messages import short_repr
from valueranges.facts import Facts
from shapeenv.export.derived import Declared, Violation, judge_derived
from shapeenv.export.small import pin_example, size_one_split, verify_size_one
from shapeenv.tensor.declared import set_valued
from shapeenv.tensor.dims import DerivedDim, Dim
from shapeenv.tensor.factory import make_input_tensor
from shapeenv.program.graph import Graph
from shapeenv.program.layout_guards import array_storage_offset, array_strides, layout_guard_set
from shapeenv.program.program import (ExportedProgram, InputSpec, TensorSpec, argument_names, format_dims, is_shape_tuple, is_tensor_like,
                      shape_and_dtype)
from shapeenv.core.provenance import GuardRecord
from shapeenv.ops.dispatch import graph_arg
from shapeenv.core.settings import ShapeEnvSettings
from shapeenv.core.symbols import DimDynamic
from shapeenv.export.state import preserved_state

_evaluate = lazy_module("symint.sympy_io.evaluate")  # Note [sympy on first use] in symint.lazy_sympy

__all__ = ["export", "ExportedProgram", "TensorSpec", "ExportConstraintError", "Violation"]


class ExportConstraintError(ConstraintViolationError):
    """Tracing specialised or constrained dims the caller declared dynamic (see Note [Constraint violations]).

    Attributes:
        violations: one :class:`Violation` per offending dim.
    """

    def __init__(self, violations: Sequence[Violation], program: str = ""):
        self.violations = tuple(violations)
        labels = ", ".join(dict.fromkeys(v.label for v in self.violations))
        lines = [f"Constraints violated ({labels})" + (f" while exporting {program}" if program else "") + "!"]
        lines += [f"  - {v}" for v in self.violations]
        lines.append("Suggested fixes:")
        lines += [f"  {fix}" for fix in dict.fromkeys(v.suggestion for v in self.violations)]
        super().__init__("\n".join(lines))


def export(
    fn: Callable,
    args: tuple,
    dynamic_shapes: Mapping[str, Any] | Sequence[Any] | None = None,
    kwargs: Mapping[str, Any] | None = None,
    name: str | None = None,
    *,
    settings: ShapeEnvSettings | None = None,
) -> ExportedProgram:
    """Trace ``fn(*args, **kwargs)`` on fake tensors and return the program, like ``torch.export.export``.

    Example inputs are arrays or tensors (anything with ``.shape`` and ``.dtype``), :class:`TensorSpec` s,
    shape tuples (``(8, 3)``), plain ints, or nested lists/tuples/dicts of those. Branching on a
    symbolic size records a guard; the program's :attr:`~ExportedProgram.guards` say which inputs
    it is valid for, :attr:`~ExportedProgram.range_constraints` the range of each symbol.

    Args:
        fn: the function to trace; it calls ops from :mod:`shapeenv.ops`, fake tensor methods and
            the higher-order ops on its inputs.
        args: example inputs (a tuple).
        dynamic_shapes: which dims are symbolic, as in ``torch.export``: per input (by name in a dict,
            or by position in a tuple) a ``{dim: spec}`` dict or a list with one spec per dim, where a
            spec is ``Dim("name", min=..., max=...)`` (dims of one name are one symbol),
            ``Dim.DYNAMIC`` (a symbol of its own), ``Dim.STATIC`` or ``None`` (the example's size),
            ``Dim.AUTO`` (dynamic unless tracing pins it), a derived dim (``2 * d``, ``d + 1``) or a
            set-valued dim (``Dim("b", choices=(1, 8, 16))``); an int input takes a ``Dim`` to become
            symbolic. Dims not mentioned are static. None: everything static.
        kwargs: example keyword inputs.
        name: the program's name (default: ``fn.__name__``).
        settings: the ShapeEnv settings for the trace.

    Returns:
        An :class:`ExportedProgram`.

    Raises:
        ExportConstraintError: tracing specialised or constrained a dim declared dynamic.
        ShapeError, HigherOrderOpError, GuardOnDataDependentSymNode: ``fn`` is not valid for its inputs
            (a note on the error says which program and inputs).
        TypeError, ValueError: the inputs or ``dynamic_shapes`` are malformed (the message says which).

    >>> p = export(lambda x: x + 1, ((4, 3),), dynamic_shapes=({0: Dim.DYNAMIC},), name="inc")
    >>> p.signature(), len(p.guards)
    ('inc(x: f32[s0, 3])', 2)
    """
    if isinstance(args, list):
        args = tuple(args)
    if not isinstance(args, tuple):
        raise SignatureError(f"args must be a tuple of example inputs, got {short_repr(args)}",
                             fix="wrap a single input in a tuple: export(fn, (x,))")
    kwargs = dict(kwargs or {})
    title = name or getattr(fn, "__name__", "program")
    if title == "<lambda>":
        title = "lambda"
    names = argument_names(fn, args, kwargs)
    arg_specs, kw_specs = _split_specs(dynamic_shapes, names, args, kwargs)

    memo: dict = {}
    return _export(_Request(fn, args, kwargs, names, arg_specs, kw_specs, title, settings), {}, memo)


@dataclass(frozen=True)
class _Request:
    """What :func:`export` was asked, read once; traced again with some dims pinned (Note [Sizes 0 and 1 in export])."""

    fn: Callable
    args: tuple
    kwargs: dict
    names: list
    arg_specs: list
    kw_specs: dict
    title: str
    settings: ShapeEnvSettings | None


@dataclass(frozen=True)
class Traced:
    """One trace of a request: its environment, graph, inputs, outputs and signature."""

    env: ShapeEnv
    graph: Graph
    builder: "_Inputs"
    out: Any
    signature: str


def _trace(req: _Request, pinned: Mapping[Source, int]) -> Traced:
    """Trace ``req`` once; the sources in ``pinned`` are static at the given size (the examples cut to it)."""
    args, kwargs = req.args, req.kwargs
    if pinned:
        args = tuple(pin_example(n, a, pinned) for n, a in zip(req.names, args))
        kwargs = {k: pin_example(k, v, pinned) for k, v in kwargs.items()}
    env = ShapeEnv(req.settings)
    graph = Graph(req.title)
    builder = _Inputs(env, graph, pinned)
    fake_args = tuple(builder.make(n, a, s, f"dynamic_shapes[{n!r}]") for n, a, s in zip(req.names, args, req.arg_specs))
    fake_kwargs = {k: builder.make(k, v, req.kw_specs[k], f"dynamic_shapes[{k!r}]") for k, v in kwargs.items()}
    signature = f"{req.title}({', '.join(f'{s.name}: {s.meta}' for s in builder.inputs)})"
    fn = req.fn
    with preserved_state(fn, [*zip(req.names, args), *kwargs.items()], req.title), env.tracing(graph):
        try:
            out = fn(*fake_args, **fake_kwargs)
        except Exception as e:
            if hasattr(e, "add_note"):
                e.add_note(f"(while exporting {signature})")
            raise
    graph.set_output(graph_arg(graph, out))
    _refresh_meta(graph, env)
    return Traced(env, graph, builder, out, signature)


def _export(req: _Request, pinned: Mapping[Source, int], memo: dict) -> ExportedProgram:
    """Trace ``req`` (with ``pinned`` sources static) into a program, settling sizes 0 and 1 by re-tracing."""
    t = _trace(req, pinned)
    env, builder = t.env, t.builder
    extra: list = []
    violations = find_violations(env, builder.declared)
    small: dict = {}
    # A trace with pins only answers for its pinned sizes: what it constrains elsewhere becomes the
    # general program's guards where those sizes hold, never an error (Note [Sizes 0 and 1 in export]).
    split = size_one_split(env, builder.declared, violations) if violations else None
    if violations and not pinned:
        if split is None:
            raise ExportConstraintError(violations, t.signature)
        rest = find_violations(env, builder.declared, [r for r in env.guards if id(r) not in split.dropped])
        if rest:
            raise ExportConstraintError(rest, t.signature)
    if split is not None:

        def retrace(pins: Mapping[Source, int]) -> ExportedProgram:
            key = frozenset({**pinned, **pins}.items())
            if key not in memo:
                memo[key] = _export(req, {**pinned, **pins}, memo)
            return memo[key]

        extra, differ = verify_size_one(t, split, retrace)
        if differ and not pinned:
            raise ExportConstraintError(differ, t.signature)
        if differ:
            extra = []
        else:
            env.guards[:] = [r for r in env.guards if id(r) not in split.dropped]
            small = {s: env.symbols[s].initial_range for s in split.symbols}
    ranges = {sym: small.get(sym) or env.facts.range_of(sym) for sym, info in env.symbols.items()
              if env.simplify(sym) == sym and not (info.sources and info.sources[0].kind in ("stride", "storage_offset"))}
    for d in builder.declared:  # torch lists the derived dims too (``s0 + 1: [4, 7]``)
        if isinstance(d.spec, DerivedDim):
            value = env.simplify(d.symbol)
            if not value.is_Number:
                ranges.setdefault(value, env.bound(value))
    dims = {d.symbol: d.spec.name for d in builder.declared if d.spec.is_named}
    inputs = tuple(
        InputSpec(s.name, s.kind, format_dims(s.value, env) if s.kind == "tensor" else s.meta, s.value)
        for s in builder.inputs
    )
    produced = env.produce_guards_deferred()  # the reduced set now; Z3 simplifies it off the critical path
    guards = produced.reduced
    if extra:  # what the traces at sizes 0 and 1 guarded, each under its case (Note [Sizes 0 and 1 in export])
        known = {g.expr for g in guards.guards}
        guards = guards.with_guards([*guards.guards, *(Guard.of(sympy.Or(sympy.Ne(s, v), e), why)
                                                       for s, v, e, why in extra if e not in known)])
        produced = None
    return ExportedProgram(
        name=req.title,
        graph=t.graph,
        inputs=inputs,
        outputs=t.out,
        range_constraints=MappingProxyType(ranges),
        guards=guards,
        runtime_asserts=tuple(env.runtime_asserts),
        dims=MappingProxyType(dims),
        arg_names=tuple(req.names),
        env=env,
        layout_guards=layout_guard_set(env, builder.ties),
        produced=produced,
    )


def _split_specs(dynamic_shapes: Any, names: list[str], args: tuple, kwargs: dict) -> tuple[list, dict]:
    """The dynamic-shape spec of each positional and keyword argument."""
    if dynamic_shapes is None:
        return [None] * len(args), {k: None for k in kwargs}
    if isinstance(dynamic_shapes, Mapping):
        known = names + list(kwargs)
        rest = {n.split("[", 1)[0] for n in names if "[" in n}
        unknown = [k for k in dynamic_shapes if k not in known and k not in rest]
        if unknown:
            raise DynamicShapesError(
                f"dynamic_shapes names {unknown}, which are not inputs; the inputs are {known}",
                fix=f"key dynamic_shapes by the function's argument names: dynamic_shapes={{{known[0]!r}: {{0: Dim('batch')}}}}"
                if known else "the function takes no inputs: drop dynamic_shapes")
        specs = []
        for n in names:
            if "[" in n and n not in dynamic_shapes:  # a *rest argument given as dynamic_shapes["rest"] = (...)
                base, index = n.split("[", 1)
                group = dynamic_shapes.get(base)
                specs.append(None if group is None else _nth(group, int(index[:-1]), base))
            else:
                specs.append(dynamic_shapes.get(n))
        return specs, {k: dynamic_shapes.get(k) for k in kwargs}
    if isinstance(dynamic_shapes, (tuple, list)):
        if len(dynamic_shapes) != len(args) + len(kwargs):
            raise DynamicShapesError(
                f"dynamic_shapes has {len(dynamic_shapes)} entries for {len(args) + len(kwargs)} inputs "
                f"({', '.join(names + list(kwargs))}); give one per input (None for static), or a dict by name"
            )
        return list(dynamic_shapes[: len(args)]), dict(zip(kwargs, dynamic_shapes[len(args):]))
    raise DynamicShapesTypeError(f"dynamic_shapes must be a dict by input name, a tuple by position, or None; got {dynamic_shapes!r}")


def _nth(group: Any, i: int, base: str) -> Any:
    if not isinstance(group, (tuple, list)) or i >= len(group):
        raise DynamicShapesError(f"dynamic_shapes[{base!r}] must be a tuple with one entry per extra positional input")
    return group[i]


class _Inputs:
    """Turns example inputs into fake inputs, graph placeholders and input specs, remembering declared dims."""

    def __init__(self, env: ShapeEnv, graph: Graph, pinned: Mapping[Source, int] = MappingProxyType({})):
        self.env, self.graph, self.pinned = env, graph, pinned
        self.inputs: list[InputSpec] = []
        self.declared: list[Declared] = []
        self.ties: list = []  # (stride source, traced value) per input stride: the layout guards
        self.made: dict[int, tuple] = {}  # id of a real input array -> (its fake, meta, the array)

    def make(self, name: str, value: Any, spec: Any, where: str) -> Any:
        if is_tensor_like(value):
            return self._tensor(name, value, spec, where)
        if isinstance(value, int) and not isinstance(value, bool):
            return self._int(name, value, spec, where)
        if isinstance(value, (list, tuple)):
            if spec is not None and (not isinstance(spec, (list, tuple)) or len(spec) != len(value)):
                raise DynamicShapesError(f"{where} must be None or a {type(value).__name__} of {len(value)} specs, like {name}; got {spec!r}")
            items = [self.make(f"{name}[{i}]", v, None if spec is None else spec[i], f"{where}[{i}]") for i, v in enumerate(value)]
            return items if isinstance(value, list) else tuple(items)
        if isinstance(value, dict):
            if spec is not None and (not isinstance(spec, Mapping) or set(spec) - set(value)):
                raise DynamicShapesError(f"{where} must be None or a dict with keys among {sorted(value, key=repr)}; got {spec!r}")
            return {k: self.make(f"{name}[{k!r}]", v, None if spec is None else spec.get(k), f"{where}[{k!r}]") for k, v in value.items()}
        if spec is not None:
            raise DynamicShapesError(f"{where}: {name} = {value!r} is a constant; only tensor dims and ints can be dynamic")
        self.inputs.append(InputSpec(name, "constant", repr(value), value))
        return value

    def _tensor(self, name: str, value: Any, spec: Any, where: str):
        real = not (isinstance(value, TensorSpec) or is_shape_tuple(value))
        first = self.made.get(id(value)) if real else None
        if first is not None:  # the same array passed twice: one fake tensor, so `x is y` holds as it does eagerly
            self.graph.placeholder(name, first[1])
            self.inputs.append(InputSpec(name, "tensor", first[1], first[0]))
            return first[0]
        shape, dtype = shape_and_dtype(value)
        dims = _per_dim(spec, len(shape), where, shape)
        if self.pinned:
            dims = [Dim.STATIC if Source.size(name, i) in self.pinned else d for i, d in enumerate(dims)]
        strides = array_strides(value) if real else None
        offset = array_storage_offset(value) if real and strides is not None else None
        fake, ties = make_input_tensor(self.env, shape, dtype, dims, name, strides, offset)
        self.ties += ties
        for i, dim in enumerate(dims):
            if dim is Dim.STATIC:
                continue
            size = fake.shape[i]
            if not isinstance(size, SymInt):
                if dim is Dim.AUTO or (isinstance(dim, Dim) and dim.values is not None and len(dim.values) == 1):
                    continue  # AUTO: specialised without complaint (torch's Dim.AUTO)
                raise ExportConstraintError([_zero_one(Source.size(name, i), dim, size, f"{where}[{i}]")])
            self.declared.append(Declared(Source.size(name, i), dim, size.node.expr))
        meta = format_dims(fake, self.env)
        self.graph.placeholder(name, meta, fake)
        self.inputs.append(InputSpec(name, "tensor", meta, fake))
        if real:
            self.made[id(value)] = (fake, meta, value)  # the value is kept, so its id is not reused meanwhile
        return fake

    def _int(self, name: str, value: int, spec: Any, where: str):
        if spec is None or spec is Dim.STATIC or Source.value(name) in self.pinned:
            self.inputs.append(InputSpec(name, "constant", repr(value), value))
            return value
        if not isinstance(spec, Dim):
            raise DynamicShapesTypeError(f"{where}: an int input takes a Dim, Dim.DYNAMIC, Dim.STATIC or None, got {spec!r}")
        source = Source.value(name)
        known = self.env.named_dims.get(spec.name) if spec.is_named else None
        if known is not None:
            first_spec, sym_value, first_source = known
            hint = sym_value.node.hint if isinstance(sym_value, SymInt) else sym_value
            if first_spec != spec or hint != value:
                raise ConstraintViolationError(
                    f"Dim {spec.name!r} is shared by {first_source.text()} = {hint} and {name} = {value}: "
                    "the example inputs must agree on a named dim (and declare it with the same bounds)"
                )
            sym_int = self.env.alias_source(sym_value, source)
        elif spec.choices is not None:
            sym_int = set_valued(self.env, spec, value, source)
            if spec.is_named:
                self.env.named_dims[spec.name] = (spec, sym_int, source)
        else:
            sym_int = self.env.create_symint(value, source, DimDynamic.DYNAMIC, min=spec.min, max=spec.max)
            if spec.is_named:
                self.env.named_dims[spec.name] = (spec, sym_int, source)
        if not isinstance(sym_int, SymInt):
            raise ExportConstraintError([_zero_one(source, spec, sym_int, where)])
        self.declared.append(Declared(source, spec, sym_int.node.expr))
        self.graph.placeholder(name, f"Sym({sym_int})")
        self.inputs.append(InputSpec(name, "symint", f"Sym({sym_int})", sym_int))
        return sym_int


def _per_dim(spec: Any, ndim: int, where: str, shape: tuple = ()) -> list[Dim]:
    """One Dim per dim (Dim.STATIC where the spec says None or nothing)."""
    if spec is None:
        return [Dim.STATIC] * ndim
    if isinstance(spec, Mapping):
        dims = [Dim.STATIC] * ndim
        for d, s in spec.items():
            if isinstance(d, bool) or not isinstance(d, int) or not -ndim <= d < ndim:
                last = f"{{{ndim - 1}: {s!r}}}" if ndim else "None"
                raise DynamicShapesError(
                    f"{where}: dim {d!r} is out of range for a {ndim}-d input of shape {tuple(shape)}; "
                    f"its dims are {', '.join(map(str, range(ndim))) or 'none'} (or negative, counting from the end)",
                    fix=f"key the spec by an existing dim, e.g. {where} = {last}")
            dims[d % ndim] = _one(s, f"{where}[{d}]")
        return dims
    if isinstance(spec, (list, tuple)):
        if len(spec) != ndim:
            raise DynamicShapesError(f"{where} has {len(spec)} entries for a {ndim}-d input of shape {tuple(shape)}; "
                                     "give one per dim (None for static)",
                                     fix=f"{where} = [{', '.join(['None'] * ndim)}] with a Dim where a dim is dynamic")
        return [_one(s, f"{where}[{i}]") for i, s in enumerate(spec)]
    raise DynamicShapesTypeError(f"{where} must be a {{dim: Dim}} dict, a list with one Dim or None per dim, or None; got {spec!r}")


def _one(spec: Any, where: str) -> Dim | DerivedDim:
    if spec is None:
        return Dim.STATIC
    if isinstance(spec, DerivedDim):
        return spec
    if not isinstance(spec, Dim) or spec.name == "<duck>":
        raise DynamicShapesTypeError(f"{where} must be a Dim, Dim.DYNAMIC, Dim.STATIC or None, got {spec!r}",
                                     fix=f"{where} = Dim({str(spec) if isinstance(spec, str) else 'name'!r}) (or Dim.DYNAMIC)")
    return spec


def _zero_one(source: Source, spec: Dim, value: int, where: str) -> Violation:
    label = spec.name if spec.is_named else source.text()
    fix = (
        f"{spec.name} = Dim({spec.name!r}, min={value}{'' if spec.max is None else f', max={spec.max}'})"
        if spec.is_named
        else f"{where} = Dim({source.base + '_' + str(source.index or 0)!r}, min={value})"
    )
    return Violation(
        label,
        source,
        "zero_one",
        f"{source.text()} was declared dynamic ({spec!r}) but its example size {value} is specialised "
        "(sizes 0 and 1 become constants unless the Dim's min allows them)",
        f"{fix}   # or use an example size >= 2",
    )


def find_violations(env: ShapeEnv, declared: Sequence[Declared], records: Sequence[GuardRecord] | None = None) -> list[Violation]:
    """Replay the recorded guards (or ``records``) and report declared dims they constrain (Note [Constraint violations]).

    >>> env = ShapeEnv(); x = env.fake_tensor((8,), dynamic=[Dim("n")], name="x")
    >>> _ = bool(x.shape[0] > 5)
    >>> [v.kind for v in find_violations(env, [Declared(Source.size("x", 0), Dim("n"), x.shape[0].node.expr)])]
    ['narrowed']
    """
    records = env.guards if records is None else records
    if not declared or not records:
        return []
    facts = Facts(rank=env.elimination_rank)
    for sym, info in env.symbols.items():
        if info.sources and info.initial_range is not None:
            facts.set_range(sym, info.initial_range)
    named = {d.symbol: d for d in declared if isinstance(d.spec, Dim) and d.spec.is_named}
    # A symbol that is a derived dim of a root which is no input dim itself is written with its root
    # (torch names the root: ``dimz = _dimz``, never an internal ``s0 + 2``).
    roots = {d.symbol: d.spec.coeff * sympy.Symbol(d.spec.root.name) + d.spec.offset for d in declared
             if isinstance(d.spec, DerivedDim) and d.symbol.is_Symbol and d.symbol not in named}
    found: dict[Source, Violation] = {}
    declared_ids = {id(r) for r in env.declared_guards}
    for record in records:
        facts.learn(record.expr)
        if id(record) in declared_ids:
            continue  # the caller declared it (a derived or set-valued dim)
        for d in declared:
            if d.source not in found and d.spec is not Dim.AUTO:
                v = _judge(env, facts, d, named, record, roots)
                if v is not None:
                    found[d.source] = v
    return [found[d.source] for d in declared if d.source in found]


def _judge(env: ShapeEnv, facts: Facts, d: Declared, named: dict, record: GuardRecord, roots: Mapping = MappingProxyType({})) -> Violation | None:
    if isinstance(d.spec, DerivedDim):
        return judge_derived(env, facts, d, record, {n.spec.name for n in named.values()})
    sym = d.symbol
    value = facts.simplify(sym)
    label = f"{d.spec.name} = {d.source.text()}" if d.spec.is_named else d.source.text()
    if value.is_Number:
        fix = f"{d.spec.name} = {value}   # i.e. " if d.spec.is_named else ""
        return Violation(
            d.label, d.source, "specialised",
            f"{label} was declared dynamic ({d.spec!r}) but the guard {record.expr} specialised it to the constant {value}",
            f"{fix}{d.where} = Dim.STATIC (or None), or change the code that compares it with {value}",
            record,
        )
    if not d.spec.is_named:
        return None
    if value != sym:
        others = {named[s].spec.name: s for s in value.free_symbols if s in named and named[s].spec.name != d.spec.name}
        if others or not value.is_Symbol:
            rhs = value.subs({**{s: sympy.Symbol(n) for n, s in others.items()},
                              **{s: r for s, r in roots.items() if s in value.free_symbols}})
            return Violation(
                d.label, d.source, "unified",
                f"the guard {record.expr} requires {label} to always equal {rhs}, which its Dim does not declare",
                f"{d.spec.name} = {rhs}   # use the same Dim for both dims, or declare them Dim.DYNAMIC",
                record,
            )
        return None
    initial = env.symbols[sym].initial_range
    now = facts.range_of(sym)
    multiples = sorted(facts.divisible.get(sym, ()))
    if initial is not None and multiples:
        # A multiple of k has its range rounded to multiples of k: that alone is the divisibility, not a narrowing.
        k = math.lcm(*multiples)
        lo = initial.lower if initial.lower == -math.inf else -((-initial.lower) // k) * k
        hi = initial.upper if initial.upper == math.inf else (initial.upper // k) * k
        initial = ValueRanges.of(lo, hi) if lo <= hi else initial
    if initial is not None and (now.lower > initial.lower or now.upper < initial.upper):
        bounds = ", ".join(f"{k}={int(v)}" for k, v in (("min", now.lower), ("max", now.upper)) if v not in (2, sympy.oo) and abs(v) != float("inf"))
        return Violation(
            d.label, d.source, "narrowed",
            f"not all values of {label} in its declared range {initial} satisfy the guard {record.expr}: only {now} do",
            f"{d.spec.name} = Dim({d.spec.name!r}{', ' + bounds if bounds else ''})",
            record,
        )
    if not multiples and initial is not None:
        narrowed = _values_failing(record.expr, sym, initial)
        if narrowed is not None:
            only, some_fail = narrowed
            bounds = "" if not only else f", min={min(only)}, max={max(only)}"
            return Violation(
                d.label, d.source, "narrowed",
                f"not all values of {label} in its declared range {initial} satisfy the guard {record.expr}: "
                f"{some_fail} does not" + (f"; only {_few(only)} do" if only else "; none does"),
                f"{d.spec.name} = Dim({d.spec.name!r}{bounds})   # or change the code that tests {record.expr}",
                record,
            )
    if multiples:
        return Violation(
            d.label, d.source, "divisible",
            f"the guard {record.expr} requires {label} to be a multiple of {multiples[-1]}, which its Dim does not declare",
            f"{d.where} = {multiples[-1]}*Dim({d.spec.name + '_'!r})   # a derived dim; or Dim.DYNAMIC, whose produced guards check it",
            record,
        )
    return None


#: The most values of a declared range that :func:`_values_failing` evaluates a guard at.
_ENUMERATION_BUDGET = 4096


def _values_failing(guard: sympy.Basic, sym: sympy.Symbol, declared: ValueRanges) -> tuple[list[int], int] | None:
    """``(the values that satisfy guard, one that fails)`` when ``guard`` (on ``sym`` alone) fails somewhere in
    the finite ``declared`` range; None when it holds on all of it, or the range is too large to try.

    The range check above only sees what facts learn from a guard (bounds, divisibility);
    ``Eq(Mod(2*s0 + 3, s0 - 3), 0)`` holds only for ``s0`` in {2, 4, 6, 12} and teaches them
    nothing. Evaluating the guard at each declared value finds that, as torch's check that
    every value of the declared range satisfies each guard does. Deterministic and budgeted.

    >>> from symint.build import symbol_expr, eq, mod, ge
    >>> s = symbol_expr("s")
    >>> _values_failing(eq(mod(s, 3), 0), s, ValueRanges.of(2, 7)), _values_failing(ge(s, 2), s, ValueRanges.of(2, 9))
    (([3, 6], 2), None)
    """
    if guard.free_symbols != {sym}:
        return None
    lo, hi = declared.lower, declared.upper
    if lo == -math.inf or hi == math.inf or hi - lo + 1 > _ENUMERATION_BUDGET:
        return None
    if bound(guard, {sym: declared}) == ValueRanges.true():
        return None
    holding, failing = [], None
    for v in range(int(lo), int(hi) + 1):
        try:
            ok = bool(_evaluate.evaluate(guard, {sym: v}))
        except (ZeroDivisionError, ValueError):
            ok = False
        if ok:
            holding.append(v)
        elif failing is None:
            failing = v
    return None if failing is None else (holding, failing)


def _few(values: list[int]) -> str:
    """``{2, 4, 6, 12}``, or ``[2, 40] (17 values)`` when there are many."""
    if len(values) <= 8:
        return "{" + ", ".join(map(str, values)) + "}"
    return f"[{values[0]}, {values[-1]}] ({len(values)} values)"


def _refresh_meta(graph: Graph, env: ShapeEnv) -> None:
    """Re-describe every node with the final replacements (a later guard may have unified symbols)."""
    for node in graph.nodes:
        if node.value is not None and not isinstance(node.value, (int, float, bool)):
            node.meta = format_dims(node.value, env)
        for sub in node.subgraphs.values():
            _refresh_meta(sub, env)
