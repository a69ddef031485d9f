"""Traced programs: a ``Graph`` of ``Node`` s, one per op, with sub-graphs for higher-order ops.

While a graph is being traced (``with env.tracing(graph):``), every op applied to
fake tensors appends one node. A tensor used by an op but not produced in the
graph becomes an input of it: a placeholder at the top level, or, inside the body
of a higher-order op, a *captured* input that the op node passes explicitly (so
closures become explicit sub-graph inputs).

>>> g = Graph("demo")
>>> x = g.placeholder("x", "f32[s0, 4]")
>>> y = g.call("relu", (x,), {}, "f32[s0, 4]")
>>> g.set_output((y,))
>>> print(g.format())
graph demo(x: f32[s0, 4]):
    relu_0: f32[s0, 4] = relu(x)
    return (relu_0,)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator

__all__ = ["Node", "Graph"]


@dataclass(eq=False)
class Node:
    """One value of a graph: an input (``op == "placeholder"``) or the result of an op.

    Attributes:
        name: unique within its graph (``cat_0``).
        op: the op name (``cat``, ``scan``, ...).
        args / kwargs: arguments; nodes stand for tensors, other values are kept as given.
        meta: a short description of the value (``f32[s0, 4]``), used for printing.
        subgraphs: named bodies of a higher-order op.
        value: the fake value the node computed (not printed).
    """

    name: str
    op: str
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    meta: str = ""
    subgraphs: dict[str, "Graph"] = field(default_factory=dict)
    value: Any = None

    def __repr__(self) -> str:
        return self.name


def _fmt(value: Any) -> str:
    if isinstance(value, Node):
        return value.name
    if isinstance(value, (list, tuple)):
        inner = ", ".join(_fmt(v) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner}{',' if len(value) == 1 else ''})"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_fmt(v)}" for k, v in value.items()) + "}"
    return str(value)


class Graph:
    """An ordered list of nodes with inputs and outputs (see the module docstring)."""

    def __init__(self, name: str = "graph", *, is_root: bool = True):
        self.name = name
        self.is_root = is_root  # False for the body of a higher-order op
        self.nodes: list[Node] = []
        self.inputs: list[Node] = []
        self.captured: list[tuple[Node, Any]] = []  # placeholders for values from an enclosing scope
        self.outputs: Any = None
        self._names: dict[str, int] = {}
        self._by_value: dict[int, Node] = {}
        self._keep: list[Any] = []  # keeps traced values alive so their ids stay unique

    def _fresh(self, base: str) -> str:
        n = self._names.get(base, 0)
        self._names[base] = n + 1
        return f"{base}_{n}"

    def placeholder(self, name: str, meta: str = "", value: Any = None) -> Node:
        """Add an input called ``name``."""
        if name in self._names:
            name = self._fresh(name)
        self._names.setdefault(name, 1)
        node = Node(name, "placeholder", meta=meta, value=value)
        self.inputs.append(node)
        self.nodes.append(node)
        if value is not None:
            self.bind(value, node)
        return node

    def bind(self, value: Any, node: Node) -> None:
        """Record that ``value`` is computed by ``node`` in this graph."""
        self._by_value[id(value)] = node
        self._keep.append(value)

    def node_of(self, value: Any) -> Node | None:
        """The node computing ``value`` in this graph, if any."""
        return self._by_value.get(id(value))

    def capture(self, value: Any, meta: str = "", name: str = "captured") -> Node:
        """A placeholder for ``value``, which comes from outside this graph (a closure)."""
        node = self.placeholder(self._fresh(name), meta, value)
        self.captured.append((node, value))
        return node

    def call(self, op: str, args: tuple, kwargs: dict, meta: str = "", value: Any = None,
             subgraphs: dict[str, "Graph"] | None = None) -> Node:
        """Append a node for ``op``; ``value`` (the result) becomes addressable by later ops."""
        node = Node(self._fresh(op), op, tuple(args), dict(kwargs), meta, dict(subgraphs or {}), value)
        self.nodes.append(node)
        if value is not None:
            self.bind(value, node)
        return node

    def set_output(self, outputs: Any) -> None:
        """Set the graph's result (nodes and constants, possibly nested)."""
        self.outputs = outputs

    def __iter__(self) -> Iterator[Node]:
        return iter(self.nodes)

    def format(self, indent: str = "") -> str:
        """A readable listing: one line per node, sub-graphs nested below their node."""
        params = ", ".join(f"{n.name}: {n.meta}" if n.meta else n.name for n in self.inputs)
        lines = [f"{indent}graph {self.name}({params}):"]
        for node in self.nodes:
            if node.op == "placeholder":
                continue
            args = [_fmt(a) for a in node.args] + [f"{k}={_fmt(v)}" for k, v in node.kwargs.items()]
            meta = f": {node.meta}" if node.meta else ""
            lines.append(f"{indent}    {node.name}{meta} = {node.op}({', '.join(args)})")
            for label, sub in node.subgraphs.items():
                lines.append(f"{indent}        {label} =")
                lines.append(sub.format(indent + "            "))
        lines.append(f"{indent}    return {_fmt(self.outputs)}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.format()
