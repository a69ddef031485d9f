"""Random shape programs for the soundness fuzzer: one interpreter, two tensor namespaces.

A :class:`Program` is a list of instructions over a pool of tensors (the inputs first; each
instruction appends its results). :func:`run` interprets it with a namespace ``T``:
:class:`FakeNS` applies shapeenv's ops to fake tensors (what :func:`shapeenv.export.export` traces) and
:class:`NumpyNS` computes on numpy arrays with torch's semantics, written directly with numpy
(independently of the numpy backend). The same interpreter code runs on both, so the two runs
take their ``if`` decisions at the same places; each namespace records them.

:func:`generate` builds a program that is valid at its example sizes by running candidate
instructions on numpy and keeping those that succeed; :mod:`tests.shapeenv.fuzz_check` exports it
and compares the export with concrete runs at other sizes.

>>> import random
>>> p = generate(random.Random(0), n_instructions=4)
>>> len(p.instructions), p.source().splitlines()[0].startswith("def program(")
(4, True)
"""

from __future__ import annotations

import inspect
import random
import warnings
from dataclasses import dataclass, replace
from typing import Any, Callable

import numpy as np

from guards import Source
from shapeenv import Dim, check, ops
from shapeenv import map as hop_map
from shapeenv.tensor.layout import channels_last_strides, elementwise_strides, like_strides, suggest_memory_format
from shapeenv import scan as hop_scan
from shapeenv import switch as hop_switch

__all__ = ["Program", "FakeNS", "NumpyNS", "ShimCheckFailed", "run", "step", "produces", "generate",
           "random_inputs"]

MAX_NUMEL = 4096


class ShimCheckFailed(AssertionError):
    """A ``check(...)`` of the program is false on the concrete sizes."""


# -- the two namespaces -----------------------------------------------------------------------------
class Decisions(list):
    """The ``if`` decisions of a trace, and for each ``switch`` whether the trace inlined its branch
    (a constant index: the branch's own output, layout included) or made one node (a new row-major tensor).
    ``others``: the decisions of the traces export made with sizes 0/1 pinned, if any."""

    inlined: list
    others: list


class FakeNS:
    """Tensor ops on fake tensors (shapeenv), recording ``if`` decisions."""

    __shapeenv_trace_recorder__ = True  # records the trace on purpose: a trace does not undo its writes

    def __init__(self) -> None:
        self.traces: list[Decisions] = [self._new_trace()]
        self._started = False

    def start_trace(self) -> None:
        """A trace begins: its decisions are recorded apart. Export traces a program again with the
        sizes 0 and 1 pinned where a branch only those sizes take (Note [Sizes 0 and 1 in export]);
        :attr:`decisions` stays the first (general) trace's, the pinned ones are :attr:`Decisions.others`."""
        if not self._started:
            self._started = True
            return
        self.traces.append(self._new_trace())
        self.traces[0].others = self.traces[1:]

    @staticmethod
    def _new_trace() -> Decisions:
        trace = Decisions()
        trace.inlined, trace.others = [], []
        return trace

    @property
    def decisions(self) -> Decisions:
        return self.traces[0]

    def switch(self, index: Any, fns: list, operands: tuple) -> Any:
        graph = None if not operands or not hasattr(operands[0], "env") else operands[0].env.current_graph()
        before = sum(n.op == "switch" for n in graph.nodes) if graph is not None else 0
        out = hop_switch(index, fns, operands)
        after = sum(n.op == "switch" for n in graph.nodes) if graph is not None else 0
        self.traces[-1].inlined.append(after == before)
        return out

    def branch(self, cond: Any) -> bool:
        value = bool(cond)  # a guard unless statically known
        self.traces[-1].append(value)
        return value

    def check(self, cond: Any) -> None:
        check(cond, "fuzz program check")

    size = staticmethod(lambda x, d: x.shape[d])
    stride = staticmethod(lambda x, d: x.stride(d))
    is_contiguous = staticmethod(lambda x: x.is_contiguous())
    contiguous = staticmethod(lambda x: x.contiguous())
    flatten = staticmethod(lambda x: x.flatten())
    binary = staticmethod(lambda name, a, b: getattr(ops, name)(a, b))
    cat = staticmethod(lambda xs, dim: ops.cat(list(xs), dim))
    view = staticmethod(lambda x, shape: x.view(*shape))
    reshape = staticmethod(lambda x, shape: x.reshape(*shape))
    t = staticmethod(lambda x: x.t())
    slice = staticmethod(lambda x, dim, a, b, step: x[(slice(None),) * dim + (slice(a, b, step),)])
    matmul = staticmethod(lambda a, b: ops.matmul(a, b))
    reduce = staticmethod(lambda name, x, dim, keepdim: getattr(ops, name)(x, dim, keepdim))
    unsqueeze = staticmethod(lambda x, d: ops.unsqueeze(x, d))
    select = staticmethod(lambda x, d, i: ops.select(x, d, i))
    zeros_like = staticmethod(lambda x: ops.zeros_like(x))
    clone = staticmethod(lambda x: ops.clone(x))
    tanh = staticmethod(lambda x: ops.tanh(x))
    neg = staticmethod(lambda x: ops.neg(x))
    scan = staticmethod(lambda fn, init, xs, dim, reverse: hop_scan(fn, init, xs, dim=dim, reverse=reverse))
    scan_len = staticmethod(lambda fn, init, n: hop_scan(fn, init, None, length=n))
    map = staticmethod(lambda fn, xs: hop_map(fn, xs))


def _fail(message: str):
    raise ValueError(message)


def _np_select(x: np.ndarray, d: int, i: int) -> np.ndarray:
    if not -x.shape[d] <= i < x.shape[d]:
        raise IndexError(f"index {i} is out of bounds for dimension {d} with size {x.shape[d]}")
    return x[(slice(None),) * d + (i,)]  # a view, as torch's select


def _np_cat(xs: list, dim: int) -> np.ndarray:
    kept = [x for x in xs if not (x.ndim == 1 and x.shape[0] == 0)]  # torch skips 1-d empty tensors
    if not kept:  # numpy gives an empty array stride 0; torch's is 1
        return np.lib.stride_tricks.as_strided(np.zeros((0,), xs[0].dtype), (0,), (xs[0].itemsize,))
    out = np.concatenate(kept, axis=dim)
    if out.ndim == 4 and all(suggest_memory_format(x.shape, element_strides(x)) == "channels_last" for x in kept):
        return _laid_out(out, channels_last_strides(out.shape))  # torch keeps a common channels-last format
    return _c(out)


def _np_view(x: np.ndarray, shape: tuple) -> np.ndarray:
    out = x.reshape(shape, copy=False)  # numpy's no-copy rule is torch's view rule
    if out.size == 0:  # torch's computeStride for empty tensors: the same strides for the same shape, else row-major
        strides = element_strides(x) if out.shape == x.shape else _empty_strides(out.shape)
        out = np.lib.stride_tricks.as_strided(out, out.shape, [st * x.itemsize for st in strides])
    return out


def _np_slice(x: np.ndarray, dim: int, a: Any, b: Any, step: int) -> np.ndarray:
    out = x[(slice(None),) * dim + (slice(a, b, step),)]
    if out.size == 0:  # numpy resets an empty view's strides; torch keeps stride * step
        strides = list(element_strides(x))
        strides[dim] *= step
        out = np.lib.stride_tricks.as_strided(out, out.shape, [st * x.itemsize for st in strides])
    return out


def _empty_strides(shape: tuple) -> tuple:
    strides = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):  # torch: stride[d] = max(size[d+1], 1) * stride[d+1]
        strides[d] = max(shape[d + 1], 1) * strides[d + 1]
    return tuple(strides)


def _np_reduce(name: str, x: np.ndarray, dim: int, keepdim: bool) -> np.ndarray:
    fn = {"sum": np.sum, "amax": np.max, "mean": np.mean}[name]
    if x.ndim == 0:  # torch accepts dim 0 or -1 on a 0-d tensor and reduces nothing
        if dim not in (0, -1):
            raise IndexError(f"dim {dim} for a 0-d tensor")
        return x.copy()
    if name == "amax" and x.shape[dim] == 0:
        raise ValueError("amax over an empty dim")
    with warnings.catch_warnings():  # the mean of an empty slice is nan, as in torch
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.asarray(fn(x, axis=dim, keepdims=keepdim))


def _np_scan(fn: Callable, init: np.ndarray, xs: np.ndarray, dim: int, reverse: bool) -> tuple:
    carry, ys = init, []
    order = range(xs.shape[dim] - 1, -1, -1) if reverse else range(xs.shape[dim])
    for i in order:
        carry, y = fn(carry, xs[(slice(None),) * dim + (i, Ellipsis)])
        ys.append(y)
    if reverse:
        ys.reverse()
    if not ys:  # the shape of y is that of one step's output; run it once on a dummy slice
        y_shape = np.asarray(fn(init, np.zeros(xs.shape[:dim] + xs.shape[dim + 1:], xs.dtype))[1]).shape
        return init.copy(), np.zeros((0, *y_shape), init.dtype)
    return carry, np.stack(ys)


def _np_scan_len(fn: Callable, init: np.ndarray, n: int) -> tuple:
    carry, ys = init, []
    for _ in range(n):
        carry, y = fn(carry, None)
        ys.append(y)
    return carry, np.stack(ys)


def _np_map(fn: Callable, xs: np.ndarray) -> np.ndarray:
    if xs.shape[0] == 0:
        raise ValueError("map over an empty batch")
    return np.stack([fn(xs[i, ...]) for i in range(xs.shape[0])])


def element_strides(x: np.ndarray) -> tuple[int, ...]:
    """numpy's byte strides in elements (torch's ``stride()``). numpy gives a new empty array strides 0, which
    is read as torch's contiguous layout (as the guards read it); empty views made here keep torch's strides."""
    if x.size == 0 and not any(x.strides):
        return _empty_strides(x.shape)
    return tuple(st // x.itemsize for st in x.strides)


def torch_is_contiguous(x: np.ndarray) -> bool:
    """c10's contiguity on concrete sizes and strides: size-1 dims skipped, empty tensors contiguous."""
    if x.size == 0:
        return True
    expected = 1
    for n, st in zip(reversed(x.shape), reversed(element_strides(x))):
        if n == 1:
            continue
        if st != expected:
            return False
        expected *= n
    return True


def _laid_out(result: Any, strides: tuple) -> np.ndarray:
    result = np.asarray(result)
    if result.ndim < 2 or element_strides(result) == tuple(strides):
        return result
    extent = 1 + sum((n - 1) * st for n, st in zip(result.shape, strides)) if result.size else 0
    out = np.lib.stride_tricks.as_strided(np.empty(max(extent, 0), result.dtype), result.shape,
                                          [st * result.itemsize for st in strides])
    out[...] = result
    return out


def _np_pointwise(result: Any, *operands: Any) -> np.ndarray:
    """A pointwise result laid out as torch's TensorIterator lays it out (numpy picks its own order). The rule
    (shapeenv.tensor.layout.elementwise_strides) runs on concrete ints here; it is checked against torch in
    tests/shapeenv/test_rules_torch.py."""
    arrays = [x for x in operands if isinstance(x, np.ndarray)]
    result = np.asarray(result)
    if result.ndim < 2 or not arrays:
        return result
    return _laid_out(result, elementwise_strides(result.shape, [(x.shape, element_strides(x)) for x in arrays]))


def _np_like(x: np.ndarray, result: Any) -> np.ndarray:
    """A new tensor "like" ``x`` (preserve_format)."""
    result = np.asarray(result)
    return _laid_out(result, like_strides(x.shape, element_strides(x))) if result.ndim >= 2 else result


_NP_BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply}


def _c(x: Any) -> np.ndarray:
    """Row-major as torch lays out a new tensor (numpy's ``ascontiguousarray`` would make a 0-d array 1-d,
    and numpy gives empty arrays strides of 0)."""
    x = np.asarray(x)
    if not x.ndim:
        return x
    if x.size == 0:
        return np.lib.stride_tricks.as_strided(x, x.shape, [st * x.itemsize for st in _empty_strides(x.shape)])
    return np.ascontiguousarray(x)


def _np_unsqueeze(x: np.ndarray, d: int) -> np.ndarray:
    """``np.expand_dims`` with torch's stride for the new dim (numpy's is arbitrary there)."""
    out = np.expand_dims(x, d)
    d = d % out.ndim
    strides = list(element_strides(x))
    strides.insert(d, 1 if d >= x.ndim else x.shape[d] * strides[d])
    return np.lib.stride_tricks.as_strided(out, out.shape, [st * x.itemsize for st in strides])


class NumpyNS:
    """The same ops on numpy arrays, with torch's semantics (layouts included); ``check`` raises when false.

    ``inlined``: for each ``switch``, whether the trace inlined it (see :class:`Decisions`).
    """

    def __init__(self, inlined: Any = ()) -> None:
        self.decisions: list[bool] = []
        self._inlined = list(inlined)

    def switch(self, index: Any, fns: list, operands: tuple) -> Any:
        out = fns[min(max(int(index), 0), len(fns) - 1)](*operands)
        inlined = self._inlined.pop(0) if self._inlined else False
        return out if inlined else _c(out)

    def branch(self, cond: Any) -> bool:
        value = bool(cond)
        self.decisions.append(value)
        return value

    def check(self, cond: Any) -> None:
        if not cond:
            raise ShimCheckFailed("fuzz program check")

    size = staticmethod(lambda x, d: x.shape[d])
    stride = staticmethod(lambda x, d: element_strides(x)[d])
    is_contiguous = staticmethod(torch_is_contiguous)
    contiguous = staticmethod(lambda x: x if torch_is_contiguous(x) else _c(x))
    flatten = staticmethod(lambda x: x.reshape(-1) if x.ndim else x.reshape(1))
    binary = staticmethod(lambda name, a, b: _np_pointwise(_NP_BINARY[name](a, b), a, b))
    cat = staticmethod(_np_cat)
    view = staticmethod(_np_view)
    reshape = staticmethod(lambda x, shape: x.reshape(shape))
    t = staticmethod(lambda x: x.T if x.ndim <= 2 else _fail("t() needs a tensor with <= 2 dims"))
    slice = staticmethod(lambda x, dim, a, b, step: _np_slice(x, dim, a, b, step))
    matmul = staticmethod(lambda a, b: _c(np.matmul(a, b)))
    reduce = staticmethod(lambda name, x, dim, keepdim: _c(_np_reduce(name, x, dim, keepdim)))
    unsqueeze = staticmethod(_np_unsqueeze)
    select = staticmethod(_np_select)
    zeros_like = staticmethod(lambda x: _np_like(x, np.zeros(x.shape, x.dtype)))
    clone = staticmethod(lambda x: _np_like(x, np.array(x, copy=True)))
    tanh = staticmethod(lambda x: _np_pointwise(np.tanh(x), x))
    neg = staticmethod(lambda x: _np_pointwise(np.negative(x), x))
    # the higher-order ops return new row-major tensors, as their shape rules say
    scan = staticmethod(lambda *a: tuple(_c(v) for v in _np_scan(*a)))
    scan_len = staticmethod(lambda *a: tuple(_c(v) for v in _np_scan_len(*a)))
    map = staticmethod(lambda fn, xs: _c(_np_map(fn, xs)))


# -- programs ---------------------------------------------------------------------------------------
# Int expressions: ("c", k) | ("size", p, d) | ("div", e, k) | ("sub", e, k) | ("add", e, e)
# Conditions: (rel, e, e) with rel in gt/ge/lt/eq/ne, or ("mod0", e, k)
# Unary templates (branch arms, switch branches): ("scale", c) | ("head", k) | ("sum0",) | ("twice",) | ("neg",)

@dataclass(frozen=True)
class Program:
    """Example input shapes, which dims are dynamic (None: static, else a Dim name or "" for Dim.DYNAMIC),
    and the instructions."""

    shapes: tuple[tuple[int, ...], ...]
    dims: tuple[tuple[str | None, ...], ...]
    instructions: tuple[tuple, ...]
    layouts: tuple[tuple, ...] = ()  # per input (see LAYOUTS); missing: contiguous
    min_size: int | None = None  # a declared min for every dynamic dim (0 or 1 keep those sizes); None: [2, oo]

    def layout(self, i: int) -> tuple:
        """The layout of input ``i`` in the example (``("contig",)`` unless given)."""
        return self.layouts[i] if i < len(self.layouts) else ("contig",)

    def example_inputs(self, rng: random.Random | None = None) -> list[np.ndarray]:
        """Arrays of the example shapes in the program's layouts (random values, or zeros without ``rng``)."""
        return [make_array(shape, self.layout(i), rng) for i, shape in enumerate(self.shapes)]

    @property
    def names(self) -> list[str]:
        return [f"x{i}" for i in range(len(self.shapes))]

    def dynamic_shapes(self) -> dict:
        """The ``dynamic_shapes`` argument of export."""
        if self.min_size is not None:  # Dim.DYNAMIC has no min: a Dim of its own name instead
            return {name: {d: Dim(s or f"{name}_{d}", min=self.min_size) for d, s in enumerate(dims) if s is not None}
                    for name, dims in zip(self.names, self.dims)}
        return {name: {d: (Dim.DYNAMIC if s == "" else Dim(s)) for d, s in enumerate(dims) if s is not None}
                for name, dims in zip(self.names, self.dims)}

    def with_static(self, sources: set[Source]) -> "Program":
        """The program with the given input dims made static."""
        dims = tuple(tuple(None if Source.size(name, d) in sources else s for d, s in enumerate(row))
                     for name, row in zip(self.names, self.dims))
        return replace(self, dims=dims)

    def traced(self, T) -> Callable:
        """The program as a function of inputs ``x0, x1, ...`` (its signature names them, for export)."""

        def program(*xs):
            if hasattr(T, "start_trace"):
                T.start_trace()
            return run(self, T, list(xs))

        params = [inspect.Parameter(name, inspect.Parameter.POSITIONAL_ONLY) for name in self.names]
        program.__signature__ = inspect.Signature(params)  # what export reads the input names from
        return program

    def source(self) -> str:
        """The program as Python-like text, for reproducers."""
        sig = ", ".join(self.names)
        lines = [f"def program({sig}):"]
        for i, (name, shape, dims) in enumerate(zip(self.names, self.shapes, self.dims)):
            spec = ", ".join("static" if s is None else ("Dim.DYNAMIC" if s == "" else f"Dim({s!r})") for s in dims)
            lay = "" if self.layout(i) == ("contig",) else f", layout {describe_layout(self.layout(i))}"
            lines.append(f"    # {name}: example shape {list(shape)}, dims [{spec}]{lay}")
        pool = list(self.names)
        for ins in self.instructions:
            produced = [f"t{len(pool) + k}" for k in range(produces(ins))]
            lines += ["    " + line for line in _render(ins, pool, produced)]
            pool += produced
        lines.append(f"    return ({', '.join(pool[len(self.shapes):])}{',' if len(pool) - len(self.shapes) == 1 else ''})")
        return "\n".join(lines)


def produces(ins: tuple) -> int:
    """How many pool values an instruction appends."""
    return {"check": 0, "scan": 2, "scan_len": 2}.get(ins[0], 1)


def _int(T, e: tuple, pool: list) -> Any:
    kind = e[0]
    if kind == "c":
        return e[1]
    if kind == "size":
        return T.size(pool[e[1]], e[2])
    if kind == "div":
        return _int(T, e[1], pool) // e[2]
    if kind == "sub":
        return _int(T, e[1], pool) - e[2]
    return _int(T, e[1], pool) + _int(T, e[2], pool)


def _cond(T, c: tuple, pool: list) -> Any:
    if c[0] == "mod0":
        return _int(T, c[1], pool) % c[2] == 0
    return _rel(c[0], _int(T, c[1], pool), _int(T, c[2], pool))


def _rel(rel: str, a: Any, b: Any) -> Any:
    if rel == "gt":
        return a > b
    if rel == "ge":
        return a >= b
    if rel == "lt":
        return a < b
    if rel == "eq":
        return a == b
    return a != b


def _unary(T, spec: tuple, x: Any) -> Any:
    kind = spec[0]
    if kind == "scale":
        return T.binary("mul", x, spec[1])
    if kind == "head":
        return T.slice(x, 0, None, spec[1], 1)
    if kind == "sum0":
        return T.reduce("sum", x, 0, False)
    if kind == "twice":
        return T.cat([x, x], 0)
    return T.neg(x)


def _scan_body(T, template: str, w: Any) -> Callable:
    def body(c, x):
        if template == "rnn":
            n = T.tanh(T.binary("add", T.binary("mul", c, 0.5), x if w is None else T.binary("mul", x, w)))
            return n, T.binary("add", n, 1.0)
        n = T.binary("add", c, x if w is None else T.binary("mul", x, w))
        return n, T.clone(n)
    return body


def _map_body(T, template: str, w: Any) -> Callable:
    def body(x):
        if template == "reduce":
            return T.reduce("sum", x, -1, False)
        y = T.binary("add", T.binary("mul", x, 2.0), 1.0)
        return y if w is None else T.binary("add", y, w)
    return body


def step(T, ins: tuple, pool: list) -> list:
    """Run one instruction with namespace ``T``; returns the values it appends to the pool."""
    op = ins[0]
    if op == "binary":
        return [T.binary(ins[1], pool[ins[2]], pool[ins[3]])]
    if op == "scalar":
        return [T.binary(ins[1], pool[ins[2]], ins[3])]
    if op == "cat":
        return [T.cat([pool[i] for i in ins[1]], ins[2])]
    if op == "view":
        return [T.view(pool[ins[1]], tuple(-1 if e == -1 else _int(T, e, pool) for e in ins[2]))]
    if op == "reshape_t":
        return [T.reshape(T.t(pool[ins[1]]), (-1,))]
    if op == "slice":
        a = None if ins[3] is None else _int(T, ins[3], pool)
        b = None if ins[4] is None else _int(T, ins[4], pool)
        return [T.slice(pool[ins[1]], ins[2], a, b, ins[5])]
    if op == "matmul":
        return [T.matmul(pool[ins[1]], pool[ins[2]])]
    if op == "reduce":
        return [T.reduce(ins[1], pool[ins[2]], ins[3], ins[4])]
    if op == "unsqueeze":
        return [T.unsqueeze(pool[ins[1]], ins[2])]
    if op == "transpose":
        return [T.t(pool[ins[1]])]
    if op == "branch":
        x = pool[ins[2]]
        return [_unary(T, ins[3], x) if T.branch(_cond(T, ins[1], pool)) else _unary(T, ins[4], x)]
    if op == "check":
        T.check(_cond(T, ins[1], pool))
        return []
    if op == "contig_branch":
        x = pool[ins[1]]
        return [_unary(T, ins[2], x) if T.branch(T.is_contiguous(x)) else _unary(T, ins[3], x)]
    if op == "stride_branch":
        x = pool[ins[1]]
        return [_unary(T, ins[3], x) if T.branch(T.stride(x, ins[2]) == 1) else _unary(T, ins[4], x)]
    if op == "contiguous":
        return [T.contiguous(pool[ins[1]])]
    if op == "flatten":
        return [T.flatten(pool[ins[1]])]
    if op == "scan":
        _, i, w, template, dim, reverse = ins
        xs = pool[i]
        init = T.zeros_like(T.select(xs, dim, 0))
        return list(T.scan(_scan_body(T, template, None if w is None else pool[w]), init, xs, dim, reverse))
    if op == "scan_len":
        _, i, n = ins
        return list(T.scan_len(lambda c, x: (T.binary("add", T.binary("mul", c, 0.5), 1.0), T.clone(c)), pool[i], n))
    if op == "map":
        _, i, w, template = ins
        return [T.map(_map_body(T, template, None if w is None else pool[w]), pool[i])]
    if op == "switch":
        _, index, i, specs = ins
        fns = [lambda x, s=s: _unary(T, s, x) for s in specs]
        return [T.switch(_int(T, index, pool), fns, (pool[i],))]
    raise ValueError(f"unknown instruction {op!r}")


def run(program: Program, T, inputs: list) -> tuple:
    """Interpret ``program`` on ``inputs`` with namespace ``T``; returns every value it appends, as a tuple."""
    pool = list(inputs)
    for ins in program.instructions:
        pool += step(T, ins, pool)
    return tuple(pool[len(inputs):])


# -- rendering ----------------------------------------------------------------------------------------
def _rexpr(e: tuple, pool: list) -> str:
    kind = e[0]
    if kind == "c":
        return str(e[1])
    if kind == "size":
        return f"{pool[e[1]]}.size({e[2]})"
    if kind == "div":
        return f"({_rexpr(e[1], pool)} // {e[2]})"
    if kind == "sub":
        return f"({_rexpr(e[1], pool)} - {e[2]})"
    return f"({_rexpr(e[1], pool)} + {_rexpr(e[2], pool)})"


def _rcond(c: tuple, pool: list) -> str:
    if c[0] == "mod0":
        return f"{_rexpr(c[1], pool)} % {c[2]} == 0"
    return f"{_rexpr(c[1], pool)} {dict(gt='>', ge='>=', lt='<', eq='==', ne='!=')[c[0]]} {_rexpr(c[2], pool)}"


def _runary(spec: tuple, x: str) -> str:
    return {"scale": lambda: f"{x} * {spec[1]}", "head": lambda: f"{x}[:{spec[1]}]", "sum0": lambda: f"{x}.sum(0)",
            "twice": lambda: f"cat([{x}, {x}])", "neg": lambda: f"-{x}"}[spec[0]]()


def _render(ins: tuple, pool: list, out: list) -> list[str]:
    op, o = ins[0], ", ".join(out)
    sym = {"add": "+", "sub": "-", "mul": "*"}
    if op == "binary":
        return [f"{o} = {pool[ins[2]]} {sym[ins[1]]} {pool[ins[3]]}"]
    if op == "scalar":
        return [f"{o} = {pool[ins[2]]} {sym[ins[1]]} {ins[3]}"]
    if op == "cat":
        return [f"{o} = cat([{', '.join(pool[i] for i in ins[1])}], dim={ins[2]})"]
    if op == "view":
        return [f"{o} = {pool[ins[1]]}.view({', '.join('-1' if e == -1 else _rexpr(e, pool) for e in ins[2])})"]
    if op == "reshape_t":
        return [f"{o} = {pool[ins[1]]}.t().reshape(-1)"]
    if op == "slice":
        a = "" if ins[3] is None else _rexpr(ins[3], pool)
        b = "" if ins[4] is None else _rexpr(ins[4], pool)
        return [f"{o} = {pool[ins[1]]}[{':, ' * ins[2]}{a}:{b}{'' if ins[5] == 1 else ':' + str(ins[5])}]"]
    if op == "matmul":
        return [f"{o} = {pool[ins[1]]} @ {pool[ins[2]]}"]
    if op == "reduce":
        return [f"{o} = {pool[ins[2]]}.{ins[1]}({ins[3]}, keepdim={ins[4]})"]
    if op == "unsqueeze":
        return [f"{o} = {pool[ins[1]]}.unsqueeze({ins[2]})"]
    if op == "transpose":
        return [f"{o} = {pool[ins[1]]}.t()"]
    if op == "branch":
        x = pool[ins[2]]
        return [f"if {_rcond(ins[1], pool)}:", f"    {o} = {_runary(ins[3], x)}", "else:", f"    {o} = {_runary(ins[4], x)}"]
    if op == "check":
        return [f"check({_rcond(ins[1], pool)})"]
    if op == "contig_branch":
        x = pool[ins[1]]
        return [f"if {x}.is_contiguous():", f"    {o} = {_runary(ins[2], x)}", "else:", f"    {o} = {_runary(ins[3], x)}"]
    if op == "stride_branch":
        x = pool[ins[1]]
        return [f"if {x}.stride({ins[2]}) == 1:", f"    {o} = {_runary(ins[3], x)}", "else:", f"    {o} = {_runary(ins[4], x)}"]
    if op in ("contiguous", "flatten"):
        return [f"{o} = {pool[ins[1]]}.{op}()"]
    if op == "scan":
        _, i, w, template, dim, reverse = ins
        closure = "" if w is None else f" (closure: {pool[w]})"
        return [f"{o} = scan({template}{closure}, zeros_like({pool[i]}.select({dim}, 0)), {pool[i]}, dim={dim}, "
                f"reverse={reverse})"]
    if op == "scan_len":
        return [f"{o} = scan(decay, {pool[ins[1]]}, None, length={ins[2]})"]
    if op == "map":
        _, i, w, template = ins
        return [f"{o} = map({template}{'' if w is None else f' (closure: {pool[w]})'}, {pool[i]})"]
    _, index, i, specs = ins
    branches = ", ".join(f"lambda x: {_runary(s, 'x')}" for s in specs)
    return [f"{o} = switch({_rexpr(index, pool)}, [{branches}], ({pool[i]},))"]


# -- generation -----------------------------------------------------------------------------------------
def _random_int(rng: random.Random, shapes: list[tuple]) -> tuple:
    dims = [(p, d) for p, s in enumerate(shapes) for d in range(len(s))]
    if not dims:
        return ("c", rng.randint(0, 4))
    base = ("size",) + rng.choice(dims)
    roll = rng.random()
    if roll < 0.5:
        return base
    if roll < 0.7:
        return ("div", base, rng.choice([2, 3]))
    if roll < 0.85:
        return ("sub", base, rng.randint(1, 3))
    return ("add", base, ("size",) + rng.choice(dims))


def _random_cond(rng: random.Random, shapes: list[tuple]) -> tuple:
    e = _random_int(rng, shapes)
    if rng.random() < 0.2:
        return ("mod0", e, rng.choice([2, 3, 4]))
    other = _random_int(rng, shapes) if rng.random() < 0.4 else ("c", rng.randint(1, 9))
    return (rng.choice(["gt", "ge", "lt", "eq", "ne"]), e, other)


def _unary_spec(rng: random.Random) -> tuple:
    return rng.choice([("scale", 2.0), ("head", rng.randint(1, 4)), ("sum0",), ("twice",), ("neg",)])


def _candidate(rng: random.Random, shapes: list[tuple]) -> tuple:
    n = len(shapes)
    i = rng.randrange(n)
    x = shapes[i]
    kind = rng.choices(["binary", "scalar", "cat", "view", "reshape_t", "slice", "matmul", "reduce", "unsqueeze",
                        "transpose", "branch", "check", "scan", "scan_len", "map", "switch",
                        "contig_branch", "stride_branch", "contiguous", "flatten"],
                       [8, 2, 6, 5, 1, 5, 4, 4, 2, 2, 6, 3, 4, 1, 3, 2, 3, 2, 2, 2])[0]
    if kind == "contig_branch":
        return ("contig_branch", i, _unary_spec(rng), _unary_spec(rng))
    if kind == "stride_branch":
        return ("stride_branch", i, rng.randrange(len(x)) if x else 0, _unary_spec(rng), _unary_spec(rng))
    if kind in ("contiguous", "flatten"):
        return (kind, i)
    if kind == "binary":
        js = [j for j in range(n) if _broadcasts(x, shapes[j])]
        return ("binary", rng.choice(["add", "sub", "mul"]), i, rng.choice(js))
    if kind == "scalar":
        return ("scalar", rng.choice(["add", "mul"]), i, rng.choice([2.0, -1.0, 0.5]))
    if kind == "cat":
        dim = rng.randrange(max(len(x), 1))
        js = [j for j in range(n) if len(shapes[j]) == len(x)]
        return ("cat", tuple(rng.choice(js) for _ in range(rng.randint(2, 3))), dim)
    if kind == "view":
        forms = [(-1,), (-1, ("c", rng.choice([2, 3, 4])))]
        if len(x) >= 2:
            forms.append((("size", i, 0), -1))
            forms.append((-1, ("size", i, len(x) - 1)))
        return ("view", i, rng.choice(forms))
    if kind == "reshape_t":
        return ("reshape_t", i)
    if kind == "slice":
        dim = rng.randrange(max(len(x), 1))
        bound = lambda: rng.choice([None, ("c", rng.randint(-3, 4)), ("div", ("size", i, dim), 2),  # noqa: E731
                                    ("sub", ("size", i, dim), 1)]) if x else None
        return ("slice", i, dim, bound(), bound(), rng.choice([1, 1, 2]))
    if kind == "matmul":
        js = [j for j in range(n) if shapes[j] and x and _matmul_ok(x, shapes[j])]
        return ("matmul", i, rng.choice(js) if js else i)
    if kind == "reduce":
        return ("reduce", rng.choice(["sum", "amax", "mean"]), i, rng.randrange(-len(x), len(x)) if x else 0,
                rng.random() < 0.3)
    if kind == "unsqueeze":
        return ("unsqueeze", i, rng.randint(-len(x) - 1, len(x)))
    if kind == "transpose":
        return ("transpose", i)
    if kind == "branch":
        return ("branch", _random_cond(rng, shapes), i, _unary_spec(rng), _unary_spec(rng))
    if kind == "check":
        return ("check", _random_cond(rng, shapes))
    if kind == "scan":
        dim = rng.randrange(max(len(x), 1))
        slice_shape = x[:dim] + x[dim + 1:]
        ws = [j for j in range(n) if _broadcasts_to(shapes[j], slice_shape)]
        w = rng.choice(ws) if ws and rng.random() < 0.4 else None
        return ("scan", i, w, rng.choice(["cumsum", "rnn"]), dim, rng.random() < 0.3)
    if kind == "scan_len":
        return ("scan_len", i, rng.randint(1, 3))
    if kind == "map":
        ws = [j for j in range(n) if x and _broadcasts_to(shapes[j], x[1:])]
        w = rng.choice(ws) if ws and rng.random() < 0.4 else None
        return ("map", i, w, rng.choice(["affine", "reduce"]) if w is None else "affine")
    return ("switch", _random_int(rng, shapes), i, tuple(rng.choice([("scale", 2.0), ("neg",), ("scale", 0.5)])
                                                         for _ in range(rng.randint(2, 3))))


def _broadcasts(a: tuple, b: tuple) -> bool:
    try:
        np.broadcast_shapes(a, b)
        return True
    except ValueError:
        return False


def _broadcasts_to(w: tuple, target: tuple) -> bool:
    return _broadcasts(w, target) and np.broadcast_shapes(w, target) == tuple(target)


def _matmul_ok(a: tuple, b: tuple) -> bool:
    try:
        np.matmul(np.zeros(a), np.zeros(b))
        return True
    except ValueError:
        return False


def random_inputs(rng: random.Random | np.random.Generator, shapes: list[tuple]) -> list[np.ndarray]:
    """Random float32 arrays of the given shapes."""
    gen = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng.randrange(2**32))
    return [gen.standard_normal(s).astype(np.float32) for s in shapes]


def generate(rng: random.Random, n_instructions: int = 8, max_attempts: int = 300) -> Program:
    """A random program that runs without error on numpy at its example sizes."""
    n_inputs = rng.randint(1, 3)
    shapes, dims, layouts, named = [], [], [], 0
    for _ in range(n_inputs):
        shape = tuple(rng.choice([2, 3, 4, 4, 6, 8, 1]) for _ in range(rng.randint(1, 3)))
        row = []
        for size in shape:
            if size == 1 or rng.random() < 0.2:
                row.append(None)
            elif rng.random() < 0.15:
                row.append(f"d{size}")  # the same name for the same example size: shared by name
                named += 1
            else:
                row.append("")
        shapes.append(shape)
        dims.append(tuple(row))
        layouts.append(random_layout(rng, shape))
    program = Program(tuple(shapes), tuple(dims), (), tuple(layouts))
    pool = program.example_inputs(rng)
    instructions: list[tuple] = []
    for _ in range(max_attempts):
        if len(instructions) == n_instructions:
            break
        ins = _candidate(rng, [p.shape for p in pool])
        try:
            with np.errstate(all="ignore"):
                new = step(NumpyNS(), ins, pool)
        except Exception:  # noqa: BLE001  (an invalid candidate at these sizes: try another)
            continue
        if any(v.size > MAX_NUMEL for v in new):
            continue
        instructions.append(ins)
        pool += new
    return Program(tuple(shapes), tuple(dims), tuple(instructions), tuple(layouts))


# -- layouts ----------------------------------------------------------------------------------------------
#: ("contig",) | ("t",): dims reversed | ("perm", order) | ("step", d): every other element along d |
#: ("expand", d): stride 0 along d | ("offset",): a view starting one row in | ("cl",): channels-last (4-d)
LAYOUT_KINDS = ("contig", "t", "perm", "step", "expand", "offset", "cl")


def random_layout(rng: random.Random, shape: tuple) -> tuple:
    """A random layout that ``shape`` admits (half of the time contiguous)."""
    if rng.random() < 0.5 or not shape:
        return ("contig",)
    kinds = ["t", "perm", "step", "expand", "offset"] + (["cl", "cl"] if len(shape) == 4 else [])
    kind = rng.choice(kinds)
    if kind == "perm":
        order = list(range(len(shape)))
        rng.shuffle(order)
        return ("perm", tuple(order))
    if kind in ("step", "expand"):
        return (kind, rng.randrange(len(shape)))
    return (kind,)


def describe_layout(spec: tuple) -> str:
    """The layout as the numpy expression that makes it, for reproducers."""
    kind = spec[0]
    return {"contig": "contiguous", "t": "transposed (.T of the reversed shape)", "offset": "base[1:] (offset view)",
            "cl": "channels_last"}.get(kind) or (f"permuted {spec[1]}" if kind == "perm" else
                                                 f"stepped [::2] along dim {spec[1]}" if kind == "step" else
                                                 f"expanded (stride 0) along dim {spec[1]}")


def make_array(shape: tuple, spec: tuple, rng: random.Random | None = None) -> np.ndarray:
    """A float32 array of ``shape`` laid out as ``spec`` says (a view of a bigger or permuted base array)."""
    gen = np.random.default_rng(rng.randrange(2**32)) if rng is not None else None

    def base(s: tuple) -> np.ndarray:
        return gen.standard_normal(s).astype(np.float32) if gen is not None else np.zeros(s, np.float32)

    kind = spec[0] if shape else "contig"
    if kind == "t":
        return base(tuple(reversed(shape))).T
    if kind == "perm" and len(spec[1]) == len(shape):
        order = spec[1]
        inverse = np.argsort(order)
        return base(tuple(shape[d] for d in order)).transpose(tuple(inverse))
    if kind == "step" and spec[1] < len(shape):
        d = spec[1]
        return base(shape[:d] + (2 * shape[d],) + shape[d + 1:])[(slice(None),) * d + (slice(None, None, 2),)]
    if kind == "expand" and spec[1] < len(shape):
        d = spec[1]
        return np.broadcast_to(base(shape[:d] + (1,) + shape[d + 1:]), shape)
    if kind == "offset":
        return base((shape[0] + 1,) + shape[1:])[1:]
    if kind == "cl" and len(shape) == 4:
        n, c, h, w = shape
        return base((n, h, w, c)).transpose(0, 3, 1, 2)
    return base(shape)
