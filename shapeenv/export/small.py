"""Sizes 0 and 1 in ``export``: a branch that only those sizes take, settled by tracing them too.

Note [Sizes 0 and 1 in export]
    Library code branches on sizes that may be 1: transformers' ``is_causal = q_length > 1 and ...``,
    ``if batch_size != position_ids.shape[0]: position_ids = position_ids.expand(batch_size, -1)``.
    Traced with an example of size >= 2, such a branch records a guard (``s1 > 1``, ``Ne(s0, 1)``)
    that a declared ``Dim(min=1)`` does not allow (Note [Constraint violations] in :mod:`shapeenv.export.export`).

    torch.export 2.13 traces a backed size with the internal range ``[2, oo]`` whatever the Dim's
    min, so it decides such a branch for ``>= 2`` without a guard and reports the declared range:
    its program is simply not checked at 0 and 1, and is wrong there when the size-1 path differs
    (an ``if x.size(0) == 1`` branch is silently dropped).

    Here the guards of a trace are split. A recorded guard that holds at every point of the
    declared box once each *small* dim (a named ``Dim`` whose declared range holds 0 or 1, its
    example >= 2) is at least 2 is a *size-one guard*; the others are judged as before. If only
    size-one guards constrain the declared dims, each small dim ``s`` is traced again with ``s``
    pinned to each of its values 0 and 1 in the declared range (the example inputs cut to that
    size; that trace settles its own small dims the same way, and traces are shared by their set of
    pins, so two small dims cost at most four traces), and the pinned program is compared with the
    general program with ``s`` replaced by the value: the same ops in the same order with the same
    arguments and attributes, the same shapes and dtypes, and the same output strides on dims not
    of size 1. Before comparing, what becomes the identity at that size is dropped on both sides
    (``expand``/``view``/``reshape``/``contiguous``/... to the shape it already has) and
    ``is_causal`` of an attention over one query and one key is read as False (the mask is then
    all-true).

    * If the programs agree, the exported program is the general one over the declared range:
      its size-one guards are dropped, :attr:`range_constraints` shows the declared range (as
      torch's), and each guard of the pinned trace joins the guard set as ``s != v or g``, so a
      size-1 input is accepted exactly when the size-1 trace would take the same decisions.
    * If they differ, export refuses with :class:`~shapeenv.export.ExportConstraintError`
      (kind ``"size_one"``) naming the branch's guard and line, the first difference, and the
      fix: declare ``min=2`` (then ours exports what torch exports, for the sizes it is right at).

    What is compared is the shape program: intermediate strides may differ (a ``reshape`` that
    is a view at batch 1 and a copy above it, as timm's MobileViT has) as long as the ops and
    output layouts agree; the values computed are the same, though a view at one size aliases
    its input where a copy does not (only visible to an in-place op on the result). The runtime
    asserts of the pinned traces are not merged (they are checked when the program runs).
    Only recorded guards are split: a guard the pinned trace needs on sizes other than the
    pinned one is kept as its implication, never dropped.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from symint.lazy_sympy import lazy_module, sympy

from guards import Source
from guards.guard import view_symbol
from symint import SymInt
from symint.form import BoolForm
from valueranges import ValueRanges, bound

from shapeenv.core.produce import source_symbols
from shapeenv.env import ShapeEnv
from shapeenv.export.derived import Declared, Violation
from shapeenv.tensor.dims import Dim
from shapeenv.program.graph import Graph, Node
from shapeenv.hops.pytree import flatten
from shapeenv.program.program import TensorSpec, is_shape_tuple, is_tensor_like

_io = lazy_module("symint.sympy_io")  # Note [sympy on first use] in symint.lazy_sympy

__all__ = ["SizeOneSplit", "size_one_split", "verify_size_one", "pin_example"]

#: The most points of a declared box at which a guard is evaluated to decide it is a size-one guard.
_ENUMERATION_BUDGET = 4096
#: Ops that are the identity when their result has their input's shape.
_IDENTITY_AT_SAME_SHAPE = frozenset({"expand", "expand_as", "view", "reshape", "broadcast_to", "contiguous",
                                     "flatten", "squeeze", "view_as", "reshape_as"})


@dataclass(frozen=True)
class SizeOneSplit:
    """The small dims of a trace and its size-one guards (Note [Sizes 0 and 1 in export]).

    Attributes:
        symbols: the small dims' symbols, in allocation order.
        sources: symbol -> the input sources (sizes and ints) that carry it.
        records: the size-one guards.
        dropped: their ids (the records are compared by identity).
    """

    symbols: tuple
    sources: Mapping
    records: tuple
    dropped: frozenset


def size_one_split(env: Any, declared: Sequence[Declared], violations: Sequence[Violation]) -> SizeOneSplit | None:
    """The size-one guards among ``env``'s recorded guards, or None when there are none to split.

    >>> from shapeenv import ShapeEnv, Dim
    >>> env = ShapeEnv(); x = env.fake_tensor((8,), dynamic=[Dim("n", min=1, max=9)], name="x")
    >>> _ = bool(x.shape[0] != 1)
    >>> d = Declared(Source.size("x", 0), Dim("n", min=1, max=9), x.shape[0].node.expr)
    >>> split = size_one_split(env, [d], [])
    >>> split.symbols, [str(r.expr) for r in split.records]
    ((s0,), ['Ne(s0, 1)'])
    """
    ranges: dict = {}
    small: list = []
    for d in declared:
        info = env.symbols.get(d.symbol)
        if info is None or info.initial_range is None:
            continue
        ranges[d.symbol] = info.initial_range
        if (isinstance(d.spec, Dim) and d.spec.is_named and d.spec.choices is None and info.hint is not None
                and info.hint >= 2 and info.initial_range.lower < 2 <= info.initial_range.upper):
            small.append(d.symbol)
    if not small:
        return None
    raised = {s: (ValueRanges.of(2, r.upper) if s in small else r) for s, r in ranges.items()}
    records = [r for r in env.guards if r.expr.free_symbols & set(small) and not _holds_on(r, ranges)
               and _holds_on(r, raised)]
    if not records:
        return None
    used = sorted({s for r in records for s in r.expr.free_symbols if s in small}, key=lambda s: env.symbols[s].index)
    sources: dict = {}
    for s in used:
        carriers = [d.source for d in declared if env.simplify(d.symbol) == s]
        if any(s in env.simplify(d.symbol).free_symbols and env.simplify(d.symbol) != s for d in declared):
            return None  # a derived dim of s: no single size to pin it to
        sources[s] = tuple(carriers)
    return SizeOneSplit(tuple(used), sources, tuple(records), frozenset(id(r) for r in records))


def _holds_on(record: Any, ranges: Mapping) -> bool:
    """Whether ``record``'s guard holds at every point of the box ``ranges`` (intervals, else by enumeration within budget)."""
    guard = record.expr
    syms = guard.free_symbols
    if not syms <= set(ranges):
        return False
    if bound(guard, {s: ranges[s] for s in syms}) == ValueRanges.true():
        return True
    boxes = [ranges[s] for s in syms]
    if any(r.lower == -math.inf or r.upper == math.inf for r in boxes):
        return False
    if math.prod(int(r.upper - r.lower + 1) for r in boxes) > _ENUMERATION_BUDGET:
        return False
    form = record.form if isinstance(record.form, BoolForm) else _io.bool_from_sympy(record.form)
    names = [s.name for s in syms]
    for point in itertools.product(*(range(int(r.lower), int(r.upper) + 1) for r in boxes)):
        try:
            if not form.evaluate(dict(zip(names, point))):
                return False
        except (ZeroDivisionError, ValueError):
            return False
    return True


def verify_size_one(traced: Any, split: SizeOneSplit, retrace: Callable[[Mapping[Source, int]], Any]
                    ) -> tuple[list[tuple], list[Violation]]:
    """Trace each small dim at 0 and 1 (those its declared range holds) and compare with ``traced``.

    Returns the pinned traces' guards ``(s, v, g, origin)`` over ``traced``'s symbols (each to hold where ``s == v``),
    and one violation per small dim whose pinned program differs (Note [Sizes 0 and 1 in export]).
    """
    env = traced.env
    extra: list[tuple] = []
    failed: list[Violation] = []
    by_source = _symbols_by_source(env)
    by_source.update({src: view_symbol(name) for name, src in source_symbols(env)[0].items() if src not in by_source})
    for s in split.symbols:
        rng = env.symbols[s].initial_range
        record = next(r for r in split.records if s in r.expr.free_symbols)
        for v in (0, 1):
            if not rng.lower <= v <= rng.upper:
                continue
            pins = {src: v for src in split.sources[s]}
            try:
                pinned = retrace(pins)
            except Exception as e:  # noqa: BLE001 - any failure at that size means we cannot vouch for it
                inner = getattr(e, "violations", None)
                text = str(inner[0]) if inner else (str(e).splitlines() or [""])[0]
                failed.append(_violation(traced, split, s, v, record, f"tracing at that size fails: {type(e).__name__}: {text}"))
                break
            difference = _difference(traced, pinned, {s: v}, by_source)
            if difference is not None:
                failed.append(_violation(traced, split, s, v, record, difference))
                break
            extra += _implications(pinned, s, v, by_source)
    return extra, failed


def _violation(traced: Any, split: SizeOneSplit, s: sympy.Symbol, v: int, record: Any, why: str) -> Violation:
    d = next(d for d in traced.builder.declared if d.symbol == s)
    rng = traced.env.symbols[s].initial_range
    label = f"{d.spec.name} = {d.source.text()}"
    hi = "" if rng.upper == math.inf else f", max={int(rng.upper)}"
    return Violation(
        d.label, d.source, "size_one",
        f"{label} may be {v} (declared range {rng}), and the guard {record.expr} branches on it: the program traced "
        f"at {d.spec.name} = {v} is not the general program at {v}: {why}",
        f"{d.spec.name} = Dim({d.spec.name!r}, min={v + 1}{hi})   # and export again with {d.spec.name} = {v} separately",
        record,
    )


def _symbols_by_source(env: Any) -> dict:
    out: dict = {}
    for sym, info in env.symbols.items():
        for src in info.sources:
            out.setdefault(src, sym)
    return out


def _implications(pinned: Any, s: sympy.Symbol, v: int, by_source: Mapping) -> list[tuple]:
    """The pinned program's guards over the general program's symbols: ``(s, v, g, origin)``, ``g`` to hold where ``s == v``."""
    out = []
    guards = pinned.guards
    rename: dict = {}
    for sym, src in guards.sources:
        target = by_source.get(src)
        if target is None:
            return [(s, v, sympy.false, f"{src.text()} of the trace at {s} = {v} is no input of the general one")]
        rename[sym] = target
    for g in guards.guards:
        e = g.expr.xreplace(rename).subs(s, v)
        if e is sympy.true:
            continue
        out.append((s, v, e, f"at {s} = {v}: {g.origin or g.expr}"))
    return out


# -- comparing two programs ---------------------------------------------------------------------------------
class _Differ(Exception):
    """The first difference between two programs (internal)."""


def _difference(general: Any, pinned: Any, values: Mapping, by_source: Mapping) -> str | None:
    """None when ``pinned`` is ``general`` with ``values`` substituted (Note [Sizes 0 and 1 in export]), else the first difference."""
    rename = {}
    for sym, info in pinned.env.symbols.items():
        target = next((by_source[src] for src in info.sources if src in by_source), None)
        if target is not None:
            rename[sym] = target
    env_g, env_p = general.env, pinned.env

    def norm_g(e: sympy.Basic) -> sympy.Basic:
        return sympy.expand(env_g.simplify(e).subs(values))

    def norm_p(e: sympy.Basic) -> sympy.Basic:
        return sympy.expand(env_p.simplify(e).xreplace(rename))

    a, b = _Describe(norm_g).graph(general.graph), _Describe(norm_p).graph(pinned.graph)
    return _first_difference(a, b)


def _first_difference(a: tuple, b: tuple) -> str | None:
    (nodes_a, out_a), (nodes_b, out_b) = a, b
    for k, (x, y) in enumerate(zip(nodes_a, nodes_b)):
        if x != y:
            return f"op {k}: {_show(x)} in the general program, {_show(y)} in the pinned one{_what_differs(x, y)}"
    if len(nodes_a) != len(nodes_b):
        longer, which = (nodes_a, "general") if len(nodes_a) > len(nodes_b) else (nodes_b, "pinned")
        return f"the {which} program has more ops, from {_show(longer[min(len(nodes_a), len(nodes_b))])}"
    if out_a != out_b:
        return f"the outputs differ: {out_a} against {out_b}"
    return None


def _what_differs(x: tuple, y: tuple) -> str:
    if x[0] != y[0]:
        return ""
    (_, xs), (_, ys) = x[1], y[1]
    for i, (p, q) in enumerate(zip(xs, ys)):
        if p != q:
            return f" (argument {i}: {p} against {q})"
    for label, k in (("keyword arguments", 2), ("shape", 3), ("dtype", 4), ("sub-graphs", 5)):
        if x[k] != y[k]:
            return f" ({label}: {x[k]} against {y[k]})"
    return ""


def _show(desc: tuple) -> str:
    op, (_, args), kwargs, shape = desc[:4]
    shown = [_text(a) for a in args] + [f"{k}={_text(v)}" for k, v in kwargs]
    return f"{op}({', '.join(shown)}) -> {_text(shape)}"


def _text(value: Any) -> str:
    """A described value as it reads in a graph listing (``%3`` for the result of op 3)."""
    if isinstance(value, tuple) and len(value) == 2 and value[0] in ("node", "input"):
        return f"%{value[1]}"
    if isinstance(value, tuple) and len(value) == 2 and value[0] in ("tuple", "list"):
        return "(" + ", ".join(_text(v) for v in value[1]) + ")"
    if isinstance(value, tuple) and value and value[0] == "slice":
        return ":".join("" if v is None else _text(v) for v in value[1:3])
    if isinstance(value, tuple):
        return "(" + ", ".join(_text(v) for v in value) + ")"
    return str(value)


class _Describe:
    """A graph as a tuple of normalised node descriptions (op, args, kwargs, shape, dtype, sub-graphs)."""

    def __init__(self, norm: Callable[[sympy.Basic], sympy.Basic]):
        self._norm, self._seen = norm, {}

    def norm(self, e: sympy.Basic) -> sympy.Basic:
        if e.is_Integer:
            return e
        if e not in self._seen:
            self._seen[e] = self._norm(e)
        return self._seen[e]

    def graph(self, graph: Graph) -> tuple:
        index: dict = {}
        shapes: dict = {}
        out: list = []
        for node in graph.nodes:
            if node.op == "placeholder":
                index[id(node)] = ("input", node.name)
                shapes[id(node)] = self.shape(node.value)
                continue
            args = self.value(node.args, index)
            kwargs = self.value({k: v for k, v in node.kwargs.items() if not isinstance(v, ShapeEnv)}, index)
            shape = self.shape(node.value)
            first = node.args[0] if node.args else None
            if (node.op in _IDENTITY_AT_SAME_SHAPE and isinstance(first, Node) and shape is not None
                    and shapes.get(id(first)) == shape):
                index[id(node)], shapes[id(node)] = index[id(first)], shape
                continue
            if node.op == "scaled_dot_product_attention":
                args, kwargs = self.attention(node, args, kwargs, shapes)
            subs = tuple((label, self.graph(sub)) for label, sub in node.subgraphs.items())
            index[id(node)], shapes[id(node)] = ("node", len(out)), shape
            out.append((node.op, args, kwargs, shape, str(getattr(node.value, "dtype", type(node.value).__name__)), subs))
        return tuple(out), (self.value(graph.outputs, index), self.output_strides(graph.outputs))

    def attention(self, node: Node, args: tuple, kwargs: tuple, shapes: dict) -> tuple[tuple, tuple]:
        """``is_causal`` of one query against one key is no mask at all: read as False."""
        q, k = (tuple(node.args) + (None, None))[:2]
        qs, ks = shapes.get(id(q)), shapes.get(id(k))
        if not qs or not ks or len(qs) < 2 or len(ks) < 2 or qs[-2] != 1 or ks[-2] != 1:
            return args, kwargs
        kind, items = args
        if len(items) > 5:
            args = (kind, items[:5] + (False,) + items[6:])
        return args, tuple((key, False if key == "is_causal" else v) for key, v in kwargs)

    def shape(self, value: Any) -> tuple | None:
        shape = getattr(value, "shape", None)
        if shape is None or not isinstance(shape, tuple):
            return None
        return tuple(self.value(d, {}) for d in shape)

    def output_strides(self, outputs: Any) -> tuple:
        found = []
        for v in flatten(outputs)[0]:
            value = getattr(v, "value", None)
            stride = getattr(value, "stride", None)
            if not callable(stride):
                continue
            shape = self.shape(value)
            found.append(tuple(None if size == 1 else self.value(st, {}) for size, st in zip(shape, stride())))
        if any(size == 0 for shape in found for size in shape):
            return ()
        return tuple(found)

    def value(self, x: Any, index: Mapping) -> Any:
        if isinstance(x, Node):
            return index.get(id(x), ("unknown", x.name))
        if isinstance(x, SymInt):
            return self.norm(x.node.expr)
        if isinstance(x, sympy.Basic):
            return self.norm(x)
        if isinstance(x, bool) or x is None or isinstance(x, (str, float)):
            return x
        if isinstance(x, int):
            return sympy.Integer(x)
        if isinstance(x, (list, tuple)):
            return (type(x).__name__, tuple(self.value(v, index) for v in x))
        if isinstance(x, dict):
            return tuple((k, self.value(v, index)) for k, v in x.items())
        if isinstance(x, ShapeEnv):
            return "env"
        if isinstance(x, slice):
            return ("slice", self.value(x.start, index), self.value(x.stop, index), self.value(x.step, index))
        return repr(x)


# -- example inputs cut to a pinned size -------------------------------------------------------------------
def pin_example(name: str, value: Any, pinned: Mapping[Source, int]) -> Any:
    """``value`` (named ``name``, as :func:`shapeenv.export` names input leaves) with each pinned size cut to its value.

    >>> pin_example("x", (8, 3), {Source.size("x", 0): 1}), pin_example("n", 5, {Source.value("n"): 0})
    ((1, 3), 0)
    """
    if is_tensor_like(value):
        dims = {s.index: v for s, v in pinned.items() if s.base == name and s.kind == "size"}
        return _cut(value, dims) if dims else value
    if isinstance(value, int) and not isinstance(value, bool):
        return pinned.get(Source.value(name), value)
    if isinstance(value, (list, tuple)):
        items = [pin_example(f"{name}[{i}]", v, pinned) for i, v in enumerate(value)]
        return items if isinstance(value, list) else tuple(items)
    if isinstance(value, dict):
        return {k: pin_example(f"{name}[{k!r}]", v, pinned) for k, v in value.items()}
    return value


def _cut(value: Any, dims: Mapping[int, int]) -> Any:
    if is_shape_tuple(value):
        return tuple(dims.get(i, d) for i, d in enumerate(value))
    if isinstance(value, TensorSpec):
        return TensorSpec(tuple(dims.get(i, d) for i, d in enumerate(value.shape)), value.dtype)
    index = tuple(slice(0, dims[i]) if i in dims else slice(None) for i in range(len(value.shape)))
    cut = value[index]
    if hasattr(cut, "contiguous"):
        return cut.contiguous()
    return cut.copy() if hasattr(cut, "copy") else cut
