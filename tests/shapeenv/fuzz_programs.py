"""Random shape programs for the soundness fuzzer: one interpreter, two tensor namespaces.

A :class:`Program` is a list of instructions over a pool of tensors (the inputs first; each
instruction appends its results). :func:`run` interprets it with a namespace ``T``:
:class:`FakeNS` applies shapeenv's ops to fake tensors (what :func:`shapeenv.export` traces) and
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
from shapeenv import scan as hop_scan
from shapeenv import switch as hop_switch

__all__ = ["Program", "FakeNS", "NumpyNS", "ShimCheckFailed", "run", "step", "produces", "generate",
           "random_inputs"]

MAX_NUMEL = 4096


class ShimCheckFailed(AssertionError):
    """A ``check(...)`` of the program is false on the concrete sizes."""


# -- the two namespaces -----------------------------------------------------------------------------
class FakeNS:
    """Tensor ops on fake tensors (shapeenv), recording ``if`` decisions."""

    def __init__(self) -> None:
        self.decisions: list[bool] = []

    def branch(self, cond: Any) -> bool:
        value = bool(cond)  # a guard unless statically known
        self.decisions.append(value)
        return value

    def check(self, cond: Any) -> None:
        check(cond, "fuzz program check")

    size = staticmethod(lambda x, d: x.shape[d])
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
    switch = staticmethod(lambda index, fns, operands: hop_switch(index, fns, operands))


def _fail(message: str):
    raise ValueError(message)


def _np_select(x: np.ndarray, d: int, i: int) -> np.ndarray:
    if not -x.shape[d] <= i < x.shape[d]:  # numpy's take allows it when the result is empty; torch does not
        raise IndexError(f"index {i} is out of bounds for dimension {d} with size {x.shape[d]}")
    return np.take(x, i, axis=d)


def _np_cat(xs: list, dim: int) -> np.ndarray:
    kept = [x for x in xs if not (x.ndim == 1 and x.shape[0] == 0)]  # torch skips 1-d empty tensors
    if not kept:
        return np.zeros((0,), xs[0].dtype)
    return np.concatenate(kept, axis=dim)


def _np_view(x: np.ndarray, shape: tuple) -> np.ndarray:
    return x.reshape(shape, copy=False)  # numpy's no-copy rule is torch's view rule


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


class NumpyNS:
    """The same ops on numpy arrays, with torch's semantics; ``check`` raises when false."""

    def __init__(self) -> None:
        self.decisions: list[bool] = []

    def branch(self, cond: Any) -> bool:
        value = bool(cond)
        self.decisions.append(value)
        return value

    def check(self, cond: Any) -> None:
        if not cond:
            raise ShimCheckFailed("fuzz program check")

    size = staticmethod(lambda x, d: x.shape[d])
    binary = staticmethod(lambda name, a, b: {"add": np.add, "sub": np.subtract, "mul": np.multiply}[name](a, b))
    cat = staticmethod(_np_cat)
    view = staticmethod(_np_view)
    reshape = staticmethod(lambda x, shape: x.reshape(shape))
    t = staticmethod(lambda x: x.T if x.ndim <= 2 else _fail("t() needs a tensor with <= 2 dims"))
    slice = staticmethod(lambda x, dim, a, b, step: x[(slice(None),) * dim + (slice(a, b, step),)])
    matmul = staticmethod(lambda a, b: np.asarray(np.matmul(a, b)))
    reduce = staticmethod(_np_reduce)
    unsqueeze = staticmethod(lambda x, d: np.expand_dims(x, d))
    select = staticmethod(_np_select)
    zeros_like = staticmethod(np.zeros_like)
    clone = staticmethod(np.copy)
    tanh = staticmethod(np.tanh)
    neg = staticmethod(np.negative)
    scan = staticmethod(_np_scan)
    scan_len = staticmethod(_np_scan_len)
    map = staticmethod(_np_map)
    switch = staticmethod(lambda index, fns, operands: fns[min(max(int(index), 0), len(fns) - 1)](*operands))


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

    @property
    def names(self) -> list[str]:
        return [f"x{i}" for i in range(len(self.shapes))]

    def dynamic_shapes(self) -> dict:
        """The ``dynamic_shapes`` argument of export."""
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
            return run(self, T, list(xs))

        params = [inspect.Parameter(name, inspect.Parameter.POSITIONAL_ONLY) for name in self.names]
        program.__signature__ = inspect.Signature(params)  # what export reads the input names from
        return program

    def source(self) -> str:
        """The program as Python-like text, for reproducers."""
        sig = ", ".join(self.names)
        lines = [f"def program({sig}):"]
        for name, shape, dims in zip(self.names, self.shapes, self.dims):
            spec = ", ".join("static" if s is None else ("Dim.DYNAMIC" if s == "" else f"Dim({s!r})") for s in dims)
            lines.append(f"    # {name}: example shape {list(shape)}, dims [{spec}]")
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
                        "transpose", "branch", "check", "scan", "scan_len", "map", "switch"],
                       [8, 2, 6, 5, 1, 5, 4, 4, 2, 2, 6, 3, 4, 1, 3, 2])[0]
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
    shapes, dims, named = [], [], 0
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
    pool = random_inputs(rng, shapes)
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
    return Program(tuple(shapes), tuple(dims), tuple(instructions))
