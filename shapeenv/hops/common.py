"""What scan, map and switch share: tracing a body into a sub-graph, and the purity checks on it.

A body (scan's ``combine_fn``, map's ``f``, a switch branch) runs once on fake
inputs inside ``env.tracing(graph)`` with a fresh ``Graph(..., is_root=False)``:
its inputs become placeholders, tensors it reads from the enclosing scope
become *captured* placeholders (closures made explicit), and the HOP node in
the enclosing graph passes the outer values for them (``captured=...``).

Note [Purity of HOP bodies]
    A body may neither mutate what it did not create nor return it. Three checks
    cover what a body can reach:

    * tensors we know before the body runs (the HOP's inputs, the body's input
      placeholders, and tensors in the body function's closure cells and the
      globals it names) have their storage version counters snapshotted, and
      must come back unchanged;
    * tensors the body captures through other paths (attributes, containers)
      are only seen when first used, which may be by the very in-place op that
      mutates them: so their version is also snapshotted at capture time, and
      any node of the body graph named like an in-place op (``add_``, torch's
      trailing-underscore convention) whose target shares storage with an input
      or a captured tensor is rejected;
    * an output leaf sharing storage with any of those tensors is an alias
      (the input itself or a view of it): the user must ``clone()`` it.

    What this misses: an in-place op that does not end in ``_`` applied to a
    tensor the body reaches only through an attribute, on its first use.

>>> from shapeenv import ShapeEnv
>>> env = ShapeEnv(); x = env.fake_tensor((4, 3), name="x")
>>> body = trace_body(env, "map", "body", lambda t: t + 1, [("xs", select_view(x, 0))])
>>> print(body.finish(body.output).format())
graph body(xs: f32[s1]):
    add_0: f32[s1] = add(xs, 1)
    return add_0
"""

from __future__ import annotations

import functools
import inspect
import types
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from symint import SymInt

from shapeenv.core.messages import short_repr
from shapeenv.core.provenance import code_names
from shapeenv.errors import GuardOnDataDependentSymNode, HigherOrderOpError
from shapeenv.tensor.tensor import FakeTensor
from shapeenv.program.graph import Graph
from shapeenv.ops.dispatch import describe, graph_arg, is_tensor
from shapeenv.hops.pytree import flatten, leaf_items

__all__ = [
    "fail",
    "leaf_name",
    "tensor_leaves",
    "fmt_shape",
    "decide_equal",
    "select_view",
    "fresh_like",
    "describe_tree",
    "closure_tensors",
    "BodyGraph",
    "Watch",
    "Body",
    "trace_body",
    "record_hop",
]


def fail(hop: str, message: str, fix: str | None = None) -> HigherOrderOpError:
    """The error to raise for a broken restriction of ``hop`` (the message starts with the HOP's name; ``fix`` says what to do)."""
    return HigherOrderOpError(f"{hop}: {message}", fix=fix)


def leaf_name(kind: str, path: str) -> str:
    """How messages name a leaf of the input ``kind``: ``xs leaf [1]``, or ``init`` for a tree that is one leaf.

    >>> leaf_name("xs", "[1]['h']"), leaf_name("init", "")
    ("xs leaf [1]['h']", 'init')
    """
    return f"{kind} leaf {path}" if path else kind


def tensor_leaves(hop: str, kind: str, tree: Any, why: str, fix: str | None = None) -> list[tuple[str, FakeTensor]]:
    """``(path, leaf)`` pairs of ``tree`` (``leaf_items``), every leaf a tensor.

    Raises:
        HigherOrderOpError: a leaf is not a tensor; the message names it and says ``why`` it must be one.

    >>> try:
    ...     tensor_leaves("scan", "init", [1.5], "init leaves must be tensors")
    ... except ValueError as e:
    ...     print(str(e).splitlines()[0])
    scan: init leaf [0] is 1.5 (float); init leaves must be tensors
    """
    items = leaf_items(tree)
    for path, leaf in items:
        if not is_tensor(leaf):
            raise fail(hop, f"{leaf_name(kind, path)} is {short_repr(leaf)} ({type(leaf).__name__}); {why}", fix=fix)
    return items


def fmt_shape(shape: Sequence[Any]) -> str:
    """A shape as Python prints a tuple: ``(s0, 4)``, ``(3,)``, ``()``.

    >>> fmt_shape((3,)), fmt_shape(())
    ('(3,)', '()')
    """
    inner = ", ".join(str(d) for d in shape)
    return f"({inner},)" if len(shape) == 1 else f"({inner})"


def _env_of_size(*values: Any):
    for v in values:
        if isinstance(v, SymInt) and v.node.env is not None:
            return v.node.env
    return None


def decide_equal(a: Any, b: Any) -> bool | None:
    """Whether two sizes are equal: statically if possible, else by the hints with a guard.

    Returns None when the question is data-dependent (an unbacked size no fact decides);
    the caller turns that into an error suggesting a ``check``.

    >>> decide_equal(3, 3), decide_equal(3, 4)
    (True, False)
    """
    if a is b:
        return True
    cond = a == b
    if isinstance(cond, bool):
        return cond
    env = _env_of_size(a, b)
    if env.statically_known_true(cond):
        return True
    if env.statically_known_false(cond):
        return False
    try:
        return bool(cond)  # records a guard, which unifies the two sizes when true
    except GuardOnDataDependentSymNode:
        return None


def select_view(t: FakeTensor, dim: int) -> FakeTensor:
    """``t.select(dim, 0)``: a view without ``dim`` that shares ``t``'s storage.

    >>> from shapeenv import ShapeEnv
    >>> x = ShapeEnv().fake_tensor((4, 3, 2), dynamic=False)
    >>> v = select_view(x, 1); v.shape, v.stride(), v.is_view_of(x)
    ((4, 2), (6, 1), True)
    """
    shape = t.shape[:dim] + t.shape[dim + 1:]
    stride = t.stride()[:dim] + t.stride()[dim + 1:]
    return FakeTensor(t.env, shape, t.dtype, stride=stride, storage=t.storage, storage_offset=t.storage_offset())


def fresh_like(t: FakeTensor) -> FakeTensor:
    """A new tensor (own storage) with ``t``'s shape, strides and dtype."""
    return FakeTensor(t.env, t.shape, t.dtype, stride=t.stride())


def describe_tree(value: Any) -> str:
    """A short description of a pytree of values: ``(f32[s0], {'h': i64[3]})``.

    >>> describe_tree({"n": 3, "m": None})
    "{'n': 3, 'm': None}"
    """
    if is_tensor(value):
        return describe(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {describe_tree(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        inner = ", ".join(describe_tree(v) for v in value)
        if isinstance(value, list):
            return f"[{inner}]"
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    return str(value)


# -- closures ---------------------------------------------------------------------------------------
_MAX_VISITS = 2000  # bounds the walk over closure and global containers


def closure_tensors(fn: Callable, depth: int = 2) -> list[tuple[str, FakeTensor]]:
    """Fake tensors a body function can reach by name: closure cells, globals it names, partial arguments.

    Helper functions found there are followed ``depth`` levels deep.

    >>> from shapeenv import ShapeEnv
    >>> def make_body(w):
    ...     return lambda x: x + w
    >>> [name for name, _ in closure_tensors(make_body(ShapeEnv().fake_tensor((3,), name="w")))]
    ["closure variable 'w'"]
    """
    found: list[tuple[str, FakeTensor]] = []
    seen: set[int] = set()
    budget = [_MAX_VISITS]

    def value(desc: str, v: Any, d: int) -> None:
        budget[0] -= 1
        if budget[0] < 0 or id(v) in seen or isinstance(v, type):
            return
        if is_tensor(v):
            seen.add(id(v))
            found.append((desc, v))
        elif isinstance(v, (list, tuple, dict)):
            seen.add(id(v))
            items = v.items() if isinstance(v, dict) else enumerate(v)
            for k, item in items:
                value(f"{desc}[{k!r}]", item, d)
        elif callable(v) and d > 0:
            function(v, d - 1)

    def function(f: Any, d: int) -> None:
        if id(f) in seen:
            return
        seen.add(id(f))
        if isinstance(f, functools.partial):
            function(f.func, d)
            for i, arg in enumerate(f.args):
                value(f"partial argument {i}", arg, d)
            for k, arg in f.keywords.items():
                value(f"partial argument {k!r}", arg, d)
            return
        if inspect.ismethod(f):
            f = f.__func__
        code = getattr(f, "__code__", None)
        if code is None:
            return
        for name, cell in zip(code.co_freevars, getattr(f, "__closure__", None) or ()):
            try:
                contents = cell.cell_contents
            except ValueError:  # an empty cell: the variable is not bound yet
                continue
            value(f"closure variable {name!r}", contents, d)
        globals_ = getattr(f, "__globals__", {})
        for name in sorted(code_names(code)):
            if name in globals_ and not isinstance(globals_[name], types.ModuleType):
                value(f"global {name!r}", globals_[name], d)

    function(fn, depth)
    return found


# -- the body graph and its checks --------------------------------------------------------------------
class BodyGraph(Graph):
    """A sub-graph that remembers the storage version of each tensor when it is captured."""

    def __init__(self, name: str):
        super().__init__(name, is_root=False)
        self.capture_versions: dict[int, int] = {}

    def capture(self, value: Any, meta: str = "", name: str = "captured"):
        """A placeholder for a value from the enclosing scope (see :meth:`Graph.capture`)."""
        if is_tensor(value):
            self.capture_versions.setdefault(id(value.storage), value.storage.version)
        return super().capture(value, meta, name)


class Watch:
    """Tensors a body must leave alone, by storage, with a description for error messages."""

    def __init__(self, hop: str, label: str):
        self.hop, self.label = hop, label
        self._by_storage: dict[int, tuple[Any, str, int]] = {}  # id -> (storage, description, version)

    def add(self, description: str, tree: Any) -> None:
        """Watch every tensor leaf of ``tree`` (first description wins for a shared storage)."""
        for path, leaf in leaf_items(tree):
            if is_tensor(leaf):
                self.add_tensor(f"{description}{path}", leaf)

    def add_tensor(self, description: str, t: FakeTensor, version: int | None = None) -> None:
        """Watch one tensor; ``version`` is the version it must keep (its current one by default)."""
        key = id(t.storage)
        if key not in self._by_storage:
            self._by_storage[key] = (t.storage, description, t.storage.version if version is None else version)

    def owner(self, t: Any) -> str | None:
        """The description of the watched tensor ``t`` shares storage with, if any."""
        entry = self._by_storage.get(id(t.storage)) if is_tensor(t) else None
        return None if entry is None else entry[1]

    def check_versions(self) -> None:
        """Raise if a watched storage's version counter moved (the body mutated it in place)."""
        for storage, desc, version in self._by_storage.values():
            if storage.version != version:
                raise fail(
                    self.hop,
                    f"{self.label} mutates {desc} in place (its version counter went from {version} to "
                    f"{storage.version}); HOP bodies must not mutate their inputs or outer tensors: "
                    "clone it first (t = t.clone()) and change the copy",
                )

    def check_graph(self, graph: Graph) -> None:
        """Raise if a node of ``graph`` is an in-place op (``name_``) on a watched storage."""
        for node in graph.nodes:
            if node.op == "placeholder" or not node.op.endswith("_"):
                continue
            target = next((a.value for a in node.args if hasattr(a, "value") and is_tensor(a.value)), None)
            desc = self.owner(target)
            if desc is not None:
                raise fail(
                    self.hop,
                    f"{self.label} mutates {desc} in place with {node.op}; HOP bodies must not mutate their "
                    "inputs or tensors from the enclosing scope: clone it first and change the copy",
                )

    def check_alias(self, out_desc: str, leaf: Any) -> None:
        """Raise if the output leaf ``leaf`` shares storage with a watched tensor."""
        desc = self.owner(leaf)
        if desc is not None:
            raise fail(
                self.hop,
                f"{self.label} returns {out_desc}, which is {desc} or a view of it (they share storage); "
                f"outputs of a HOP body may not alias its inputs: return a copy instead (e.g. x.clone())",
            )


@dataclass
class Body:
    """A traced body: its graph, what it returned, and the tensors it must not alias."""

    graph: BodyGraph
    output: Any
    watch: Watch

    def check_aliases(self, name: str, tree: Any) -> None:
        """Check that no tensor leaf of the output part ``tree`` (called ``name``) aliases an input."""
        for path, leaf in leaf_items(tree):
            self.watch.check_alias(f"{name}{path}" if path else name, leaf)

    def finish(self, output: Any) -> BodyGraph:
        """Set the graph's outputs to ``output`` (normally :attr:`output`) and return the graph."""
        self.graph.set_output(graph_arg(self.graph, output))
        return self.graph


def trace_body(env, hop: str, label: str, fn: Callable, inputs: Sequence[tuple[str, Any]],
               outer: Sequence[tuple[str, Any]] = ()) -> Body:
    """Run ``fn(*trees)`` once into a new sub-graph called ``label`` and check it mutated nothing.

    Args:
        env: the ShapeEnv.
        hop: the HOP's name, for error messages.
        label: the body's name (``combine_fn``, ``body``, ``branch_1``).
        fn: the body function.
        inputs: ``(name, tree)`` per positional argument of ``fn``; tensor leaves become
            placeholders ``name`` (a single tensor) or ``name_0``, ``name_1``, ...
        outer: ``(name, tree)`` of the HOP's own inputs, which ``fn`` must not mutate or return.

    Raises:
        HigherOrderOpError: ``fn`` mutated an input, a closure tensor or a captured tensor.
    """
    graph = BodyGraph(label)
    watch = Watch(hop, label)
    for name, tree in inputs:
        tensors = [(path, leaf) for path, leaf in leaf_items(tree) if is_tensor(leaf)]
        for i, (path, leaf) in enumerate(tensors):
            graph.placeholder(name if path == "" else f"{name}_{i}", describe(leaf), leaf)
            watch.add_tensor(f"its input {name}{path}", leaf)
    for name, tree in outer:
        watch.add(name, tree)
    for desc, t in closure_tensors(fn):
        watch.add_tensor(desc, t)
    with env.tracing(graph):
        output = fn(*(tree for _, tree in inputs))
    for node, value in graph.captured:
        if is_tensor(value):
            watch.add_tensor(f"the captured tensor {node.name} ({describe(value)})", value,
                             graph.capture_versions.get(id(value.storage)))
    watch.check_graph(graph)
    watch.check_versions()
    return Body(graph, output, watch)


def record_hop(env, op: str, args: tuple, kwargs: dict, subgraphs: dict[str, Graph], result: Any) -> None:
    """Append one ``op`` node to the graph being traced (if any), then a ``getitem`` per output leaf.

    Captured placeholders of the sub-graphs are passed as ``captured={label: (outer values...)}``.
    """
    graph = env.current_graph()
    if graph is None:
        return
    captured = {label: tuple(v for _, v in sub.captured) for label, sub in subgraphs.items() if sub.captured}
    if captured:
        kwargs = {**kwargs, "captured": captured}
    node = graph.call(op, graph_arg(graph, args), graph_arg(graph, kwargs), describe_tree(result), None, subgraphs)
    node.value = result
    for i, leaf in enumerate(flatten(result)[0]):
        if is_tensor(leaf):
            graph.call("getitem", (node, i), {}, describe(leaf), leaf)
        elif isinstance(leaf, SymInt):
            graph.call("getitem", (node, i), {}, f"Sym({leaf})").value = leaf
