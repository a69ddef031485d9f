"""A stable JSON form of :class:`~shapeenv.program.program.ExportedProgram`, and loading it back.

:func:`program_to_json` writes every part of a traced program that the library reads
later (the printed listing, :func:`~shapeenv.compile.trace.output_shapes`, the numpy
backend): the graph with its sub-graphs, each node's fake value (shape, strides,
storage offset and dtype; tensors sharing a storage share it again when loaded),
the inputs, outputs, range constraints, the produced guard set (in the JSON of
:mod:`guards.text.serialize`), the recorded guards and runtime asserts with their
provenance, and the symbols with their sources. :func:`program_from_json` rebuilds
an equal program whose ``format()`` prints the same text.

Note [What a loaded program is]
    Expressions are stored after the trace's final replacements (``env.simplify``),
    as sympy text read back by the safe parser (every text is checked to read back
    as the very same expression when written, so a stored program always loads as
    an equal one). A loaded program's ``env`` is a :class:`LoadedEnv`: it knows the
    symbols, their ranges and what was recorded, but it cannot decide new questions
    (``bool`` of a loaded SymInt comparison raises :class:`ProgramFormatError`):
    a loaded program is for running and reading, not for tracing further.

    A value the format does not know (a namedtuple output, a user object captured in
    a node's arguments) is a :class:`ProgramFormatError` when writing: such programs
    are simply not stored, never stored wrongly.

>>> from shapeenv import Dim, export
>>> p = export(lambda x: (x * 2).sum(0), ((4, 3),), dynamic_shapes={"x": {0: Dim.DYNAMIC}}, name="f")
>>> q = program_from_json(program_to_json(p))
>>> q.format() == p.format(), q.signature()
(True, 'f(x: f32[s0, 3])')
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import fields
from typing import Any

from symint.lazy_sympy import sympy

from guards import GuardSet, Source
from guards.errors import GuardError
from guards.text.parse import parse_expression
from guards.text.values import view
from guards.text.printers import to_sympy_text
from guards.text.serialize import decode_guards, encode_guards, ranges_from_json, ranges_to_json
from symint import SymBool, SymFloat, SymInt, SymNode
from symint import form as F

from symint.form import BoolForm, Form

from shapeenv.errors import ShapeEnvError
from shapeenv.tensor.dtypes import DType, as_dtype
from shapeenv.tensor.tensor import FakeTensor, Storage
from shapeenv.program.graph import Graph, Node
from shapeenv.program.program import ExportedProgram, InputSpec
from shapeenv.core.provenance import AssertRecord, GuardRecord, Provenance
from shapeenv.ops.dispatch import is_tensor
from shapeenv.core.settings import ShapeEnvSettings
from shapeenv.core.symbols import DimDynamic, SymbolInfo, SymbolTable

__all__ = ["FORMAT", "ProgramFormatError", "LoadedEnv", "program_to_json", "program_from_json", "dumps_program",
           "loads_program"]

#: The ``"format"`` tag of a stored program.
FORMAT = "program/v1"


class ProgramFormatError(ShapeEnvError, ValueError):
    """A program cannot be written in (or read from) the stored form; the message says which part."""


class LoadedEnv:
    """The environment of a loaded program: symbols and records, no decisions (Note [What a loaded program is]).

    >>> env = LoadedEnv(ShapeEnvSettings(), {}, (), ())
    >>> from symint.build import symbol_expr
    >>> env.simplify(symbol_expr("s0"))
    s0
    """

    def __init__(self, settings: ShapeEnvSettings, symbols: SymbolTable, guards: tuple, runtime_asserts: tuple):
        self.settings = settings
        self.symbols = symbols
        self.guards: tuple[GuardRecord, ...] = guards
        self.runtime_asserts: tuple[AssertRecord, ...] = runtime_asserts

    def simplify(self, expr: sympy.Basic) -> sympy.Basic:
        """``expr`` itself: stored expressions already have the trace's replacements applied."""
        return expr

    def evaluate_sym_node(self, node: SymNode, *, reason: str) -> int | bool | float:
        """Refuse: a loaded program decides nothing new (trace the function again to ask)."""
        raise ProgramFormatError(
            f"{node.expr} ({reason}) cannot be decided on a loaded program: it was read from a store and has no "
            "environment to record guards in; trace the function again to ask new questions"
        )

    def current_graph(self) -> None:
        """No graph is being traced in a loaded program."""
        return None

    def __repr__(self) -> str:
        return f"<LoadedEnv: {len(self.symbols)} symbols>"


# -- writing -----------------------------------------------------------------------------------------
def _expr_text(expr: sympy.Basic, where: str) -> str:
    try:
        text = to_sympy_text(expr)
        back = view(parse_expression(text))
    except GuardError as e:
        raise ProgramFormatError(f"{where}: the expression {expr} has no stored form ({e})") from None
    if back != expr:
        raise ProgramFormatError(f"{where}: the expression {expr} does not read back from its text {text!r}")
    return text


def _hint(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int)):
        return value
    if isinstance(value, float):
        return _float(value)
    return int(value)


def _float(v: float) -> Any:
    return v if math.isfinite(v) else {"t": "float", "v": repr(v)}


class _Writer:
    def __init__(self, env: Any):
        self.env = env
        self.tensors: list[dict] = []
        self.tensor_ids: dict[int, int] = {}
        self.storages: dict[int, int] = {}
        self.keep: list[Any] = []  # keeps encoded values alive so their ids stay unique

    def expr(self, expr: sympy.Basic, where: str) -> str:
        simplified = self.env.simplify(expr) if self.env is not None else expr
        return _expr_text(simplified, where)

    def value(self, v: Any, where: str) -> Any:
        if v is None or isinstance(v, (bool, str)):
            return v
        if isinstance(v, int):
            return int(v)
        if isinstance(v, float):
            return _float(v)
        if isinstance(v, Node):
            return {"t": "node", "v": v.name}
        if isinstance(v, (SymInt, SymBool, SymFloat)):
            kind = {SymInt: "symint", SymBool: "symbool", SymFloat: "symfloat"}[type(v)]
            return {"t": kind, "e": self.expr(v.node.expr, where), "h": _hint(v.node.hint)}
        if is_tensor(v):
            return {"t": "tensor", "v": self.tensor(v, where)}
        if isinstance(v, DType):
            return {"t": "dtype", "v": v.name}
        if isinstance(v, slice):
            return {"t": "slice", "v": [self.value(p, where) for p in (v.start, v.stop, v.step)]}
        if v is Ellipsis:
            return {"t": "ellipsis"}
        if type(v) is list:
            return [self.value(x, f"{where}[{i}]") for i, x in enumerate(v)]
        if type(v) is tuple:
            return {"t": "tuple", "v": [self.value(x, f"{where}[{i}]") for i, x in enumerate(v)]}
        if type(v) is dict:
            return {"t": "dict", "v": [[self.value(k, where), self.value(x, f"{where}[{k!r}]")] for k, x in v.items()]}
        if v is self.env:
            return {"t": "env"}
        raise ProgramFormatError(f"{where}: a value of type {type(v).__name__} ({v!r}) has no stored form")

    def tensor(self, t: FakeTensor, where: str) -> int:
        k = self.tensor_ids.get(id(t))
        if k is not None:
            return k
        self.keep.append(t)
        storage = self.storages.setdefault(id(t.storage), len(self.storages))
        self.keep.append(t.storage)
        data = {
            "shape": [self.value(d, f"{where}.shape") for d in t.shape],
            "stride": [self.value(d, f"{where}.stride") for d in t.stride()],
            "offset": self.value(t.storage_offset(), f"{where}.storage_offset"),
            "dtype": t.dtype.name,
            "storage": storage,
            "name": t.name,
        }
        k = self.tensor_ids[id(t)] = len(self.tensors)
        self.tensors.append(data)
        return k

    def graph(self, g: Graph, where: str) -> dict:
        nodes = []
        for n in g.nodes:
            at = f"{where}: node {n.name}"
            nodes.append({
                "name": n.name,
                "op": n.op,
                "args": self.value(tuple(n.args), at),
                "kwargs": self.value(dict(n.kwargs), at),
                "meta": n.meta,
                "subgraphs": [[label, self.graph(sub, f"{at}.{label}")] for label, sub in n.subgraphs.items()],
                "value": self.value(n.value, at),
            })
        captured = {id(node) for node, _ in g.captured}
        return {
            "name": g.name,
            "is_root": g.is_root,
            "nodes": nodes,
            "inputs": [n.name for n in g.inputs],
            "captured": [[node.name, self.value(value, f"{where}: captured {node.name}")] for node, value in g.captured],
            "captured_inputs": [n.name for n in g.inputs if id(n) in captured],
            "outputs": self.value(g.outputs, f"{where}: outputs"),
        }


def _provenance_json(p: Provenance) -> dict:
    return {"stated": p.stated_text, "user_frame": p.user_frame, "op": p.op, "why": p.why}


def program_to_json(program: ExportedProgram) -> dict[str, Any]:
    """The JSON-ready dict of ``program`` (see the module docstring).

    Raises:
        ProgramFormatError: the program holds a value the format does not know (the message says where).

    >>> from shapeenv import export
    >>> program_to_json(export(lambda x: x + 1, ((2, 3),)))["format"]
    'program/v1'
    """
    env = program.env
    w = _Writer(env)
    symbols = []
    for info in (env.symbols.values() if env is not None else ()):
        symbols.append({
            "symbol": info.name,
            "index": info.index,
            "hint": _hint(info.hint),
            "sources": [_source_json(s) for s in info.sources],
            "size_like": info.size_like,
            "dynamic": info.dynamic.value if info.dynamic is not None else None,
            "declared": list(info.declared),
            "initial_range": ranges_to_json(info.initial_range) if info.initial_range is not None else None,
        })
    graph = w.graph(program.graph, program.name)
    inputs = [{"name": s.name, "kind": s.kind, "meta": s.meta, "value": w.value(s.value, f"input {s.name}")}
              for s in program.inputs]
    outputs = w.value(program.outputs, "outputs")
    recorded = getattr(env, "guards", ()) if env is not None else ()
    settings = env.settings if env is not None else ShapeEnvSettings()
    try:
        guards = encode_guards(program.guards.guards, program.guards.source_map, program.guards.domain_map)
        lay = program.layout_guards
        layout_guards = encode_guards(lay.guards, lay.source_map, lay.domain_map) if len(lay) else None
    except GuardError as e:
        raise ProgramFormatError(f"the guards of {program.name} have no stored form ({e})") from None
    return {
        "format": FORMAT,
        "name": program.name,
        "arg_names": list(program.arg_names),
        "settings": {f.name: getattr(settings, f.name) for f in fields(ShapeEnvSettings)},
        "symbols": symbols,
        "tensors": w.tensors,
        "inputs": inputs,
        "graph": graph,
        "outputs": outputs,
        "range_constraints": [[_expr_text(s, "range constraint"), ranges_to_json(r)]  # a symbol, or a derived dim (s0 + 1)
                              for s, r in program.range_constraints.items()],
        "guards": guards,
        "layout_guards": layout_guards,
        "recorded_guards": [{"expr": w.expr(g.expr, "recorded guard"), "provenance": _provenance_json(g.provenance)}
                            for g in recorded],
        "runtime_asserts": [{"expr": w.expr(a.expr, "runtime assert"), "message": a.message,
                             "provenance": _provenance_json(a.provenance)} for a in program.runtime_asserts],
        "dims": [[s.name, name] for s, name in program.dims.items()],
    }


def _source_json(s: Source) -> dict:
    out: dict[str, Any] = {"base": s.base, "kind": s.kind}
    if s.index is not None:
        out["index"] = s.index
    return out


def dumps_program(program: ExportedProgram) -> str:
    """:func:`program_to_json` as compact, key-sorted JSON text (the same program gives the same text).

    >>> from shapeenv import export
    >>> p = export(lambda x: x + 1, ((2, 3),))
    >>> dumps_program(p) == dumps_program(loads_program(dumps_program(p)))
    True
    """
    return json.dumps(program_to_json(program), sort_keys=True, separators=(",", ":"))


def loads_program(text: str) -> ExportedProgram:
    """:func:`program_from_json` of JSON text.

    Raises:
        ProgramFormatError: malformed JSON or fields.
    """
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as e:
        raise ProgramFormatError(f"a stored program is not valid JSON ({e})") from None
    return program_from_json(data)


# -- reading -----------------------------------------------------------------------------------------
# Note [A loaded program is forms]
#     A program read from a store holds forms, as a traced one does: its SymInts are nodes of
#     forms, its records hold boolean forms, and the numpy backend evaluates forms under a scope
#     keyed by symbol name. sympy is built only when something prints or reads ``expr`` (the
#     range constraints and dims are keyed by sympy views, built on first read). Serving a stored
#     entry in a fresh process therefore imports no sympy: that import was ~0.4 s of a ~0.5 s
#     first call (tests/test_layering.py checks it).


class _Views(Mapping):
    """A read-only mapping keyed by the sympy views of forms, built on first read (Note [A loaded program is forms]).

    >>> from symint import form as F
    >>> m = _Views([(F.sym("s0"), "batch")])
    >>> len(m), dict(m)
    (1, {s0: 'batch'})
    """

    def __init__(self, pairs: list):
        self._by_value = dict(pairs)  # forms are interned: a key given twice is one key, as in the dict it stands for
        self._built: dict | None = None

    def _dict(self) -> dict:
        if self._built is None:
            self._built = {view(k): v for k, v in self._by_value.items()}
        return self._built

    def __getitem__(self, key: Any) -> Any:
        return self._dict()[key]

    def __iter__(self):
        return iter(self._dict())

    def __len__(self) -> int:
        return len(self._by_value)

    def __repr__(self) -> str:
        return repr(self._dict())


class _Reader:
    def __init__(self, data: dict, env: LoadedEnv):
        self.data = data
        self.env = env
        self.storages: dict[int, Storage] = {}
        self.raw_tensors = data.get("tensors", [])
        self.tensors: dict[int, FakeTensor] = {}
        self.parsed: dict[str, Any] = {}  # the same text recurs (s0, 2*s0): parse it once per program

    def expr(self, text: Any, where: str) -> Any:
        """The stored expression ``text``, parsed: a form (integers, booleans), else its sympy expression (floats)."""
        if not isinstance(text, str):
            raise ProgramFormatError(f"{where}: expected expression text, got {text!r}")
        found = self.parsed.get(text)
        if found is None:
            try:
                found = self.parsed[text] = parse_expression(text)
            except GuardError as e:
                raise ProgramFormatError(f"{where}: {e}") from None
        return found

    def value(self, v: Any, where: str, nodes: dict[str, Node]) -> Any:
        if v is None or isinstance(v, (bool, int, float, str)):
            return v
        if isinstance(v, list):
            return [self.value(x, where, nodes) for x in v]
        if not isinstance(v, dict) or "t" not in v:
            raise ProgramFormatError(f"{where}: unknown stored value {v!r}")
        t = v["t"]
        if t == "node":
            if v.get("v") not in nodes:
                raise ProgramFormatError(f"{where}: reads node {v.get('v')!r}, which is not defined before it")
            return nodes[v["v"]]
        if t in ("symint", "symbool", "symfloat"):
            cls, pytype = {"symint": (SymInt, int), "symbool": (SymBool, bool), "symfloat": (SymFloat, float)}[t]
            value = self.expr(v.get("e"), where)
            if pytype is float or not isinstance(value, (Form, BoolForm)):
                return cls(SymNode(view(value), pytype, self.hint(v.get("h")), self.env))
            return cls(SymNode.of_form(value, pytype, self.hint(v.get("h")), self.env))
        if t == "tensor":
            return self.tensor(v.get("v"), where, nodes)
        if t == "tuple":
            return tuple(self.value(x, where, nodes) for x in v.get("v", []))
        if t == "dict":
            return {self.value(k, where, nodes): self.value(x, where, nodes) for k, x in v.get("v", [])}
        if t == "dtype":
            try:
                return as_dtype(v.get("v"))
            except TypeError as e:
                raise ProgramFormatError(f"{where}: {getattr(e, 'message', e)}") from None
        if t == "slice":
            return slice(*(self.value(p, where, nodes) for p in v.get("v", [None, None, None])))
        if t == "ellipsis":
            return Ellipsis
        if t == "float":
            return float(v.get("v"))
        if t == "env":
            return self.env
        raise ProgramFormatError(f"{where}: unknown stored value kind {t!r}")

    def hint(self, h: Any) -> Any:
        return float(h["v"]) if isinstance(h, dict) else h

    def tensor(self, k: Any, where: str, nodes: dict[str, Node]) -> FakeTensor:
        if not isinstance(k, int) or not 0 <= k < len(self.raw_tensors):
            raise ProgramFormatError(f"{where}: tensor #{k!r} is not stored")
        if k not in self.tensors:
            d = self.raw_tensors[k]
            storage = self.storages.setdefault(d.get("storage", -1 - k), Storage())
            shape = tuple(self.value(s, where, nodes) for s in d["shape"])
            stride = tuple(self.value(s, where, nodes) for s in d["stride"])
            try:
                dtype = as_dtype(d["dtype"])
            except TypeError as e:
                raise ProgramFormatError(f"{where}: {getattr(e, 'message', e)}") from None
            self.tensors[k] = FakeTensor(self.env, shape, dtype, stride=stride, storage=storage,
                                         storage_offset=self.value(d.get("offset", 0), where, nodes), name=d.get("name"))
        return self.tensors[k]

    def graph(self, d: dict, outer: dict[str, Node]) -> Graph:
        g = Graph(d["name"], is_root=bool(d.get("is_root", True)))
        nodes: dict[str, Node] = {}
        inputs = set(d.get("inputs", []))
        for nd in d["nodes"]:
            where = f"{d['name']}: node {nd['name']}"
            args = self.value(nd["args"], where, nodes)
            kwargs = self.value(nd["kwargs"], where, nodes)
            subgraphs = {label: self.graph(sub, nodes) for label, sub in nd.get("subgraphs", [])}
            value = self.value(nd["value"], where, nodes)
            node = Node(nd["name"], nd["op"], tuple(args), dict(kwargs), nd.get("meta", ""), subgraphs, value)
            nodes[node.name] = node
            g.nodes.append(node)
            if node.op == "placeholder" and node.name in inputs:
                g.inputs.append(node)
            if value is not None:
                g.bind(value, node)
        for name, value in d.get("captured", []):
            if name not in nodes:
                raise ProgramFormatError(f"{d['name']}: captured input {name!r} is not a node of the graph")
            g.captured.append((nodes[name], self.value(value, f"{d['name']}: captured {name}", outer)))
        g.set_output(self.value(d.get("outputs"), f"{d['name']}: outputs", nodes))
        return g


def _provenance(d: Any) -> Provenance:
    d = d if isinstance(d, dict) else {}
    return Provenance(d.get("stated", ""), d.get("user_frame"), d.get("op"), d.get("why", ""))


def _source(d: Any, where: str) -> Source:
    try:
        return Source(d["base"], d.get("kind", "value"), d.get("index"))
    except (KeyError, TypeError, ValueError) as e:
        raise ProgramFormatError(f"{where}: bad source {d!r} ({e})") from None


def program_from_json(data: Any) -> ExportedProgram:
    """The program a :func:`program_to_json` dict describes (Note [What a loaded program is]).

    Raises:
        ProgramFormatError: the data is not a stored program of this format (the message names the part).
    """
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        got = data.get("format") if isinstance(data, dict) else type(data).__name__
        raise ProgramFormatError(f"not a stored program of format {FORMAT!r} (got {got!r})")
    # Note [Reading untrusted programs]: a stored program comes from a file or a shared store that
    # may be damaged or crafted. Any exception while reading it (a list where a dict belongs, nesting
    # deep enough to exhaust the stack, a value a constructor refuses) means "not a program of this
    # format", so every one becomes a ProgramFormatError naming what broke; the caller never sees a
    # bare AttributeError or RecursionError. MemoryError and KeyboardInterrupt are not Exceptions
    # of the data and pass through.
    try:
        return _read(data)
    except ProgramFormatError:
        raise
    except RecursionError:
        raise ProgramFormatError("a stored program is malformed (nested too deeply to read)") from None
    except MemoryError:
        raise
    except Exception as e:  # noqa: BLE001 -- see Note [Reading untrusted programs]
        raise ProgramFormatError(f"a stored program is malformed ({type(e).__name__}: {e})") from None


def _read(data: dict) -> ExportedProgram:
    known = {f.name for f in fields(ShapeEnvSettings)}
    settings = ShapeEnvSettings(**{k: v for k, v in data.get("settings", {}).items() if k in known})
    symbols = SymbolTable()
    for s in data.get("symbols", []):
        name = s["symbol"]
        if not isinstance(name, str) or not name.isidentifier():
            raise ProgramFormatError(f"a stored symbol name must be an identifier, got {name!r}")
        rng = ranges_from_json(s["initial_range"]) if s.get("initial_range") is not None else None
        dyn = DimDynamic(s["dynamic"]) if s.get("dynamic") is not None else None
        symbols.add(SymbolInfo(name, s["index"], s.get("hint"), [_source(x, s["symbol"]) for x in s.get("sources", [])],
                               bool(s.get("size_like")), dyn, tuple(s.get("declared", (None, None))), rng))
    env = LoadedEnv(settings, symbols, (), ())
    reader = _Reader(data, env)
    recorded = tuple(GuardRecord(reader.expr(g["expr"], "recorded guard"), _provenance(g.get("provenance")))
                     for g in data.get("recorded_guards", []))
    asserts = tuple(AssertRecord(reader.expr(a["expr"], "runtime assert"), a.get("message"), _provenance(a.get("provenance")))
                    for a in data.get("runtime_asserts", []))
    env.guards, env.runtime_asserts = recorded, asserts
    graph = reader.graph(data["graph"], {})
    placeholders = {n.name: n for n in graph.inputs}
    inputs = []
    for spec in data["inputs"]:
        value = reader.value(spec["value"], f"input {spec['name']}", placeholders)
        inputs.append(InputSpec(spec["name"], spec["kind"], spec["meta"], value))
    outputs = reader.value(data.get("outputs"), "outputs", {n.name: n for n in graph.nodes})
    guards, sources, domain = decode_guards(data["guards"])
    layout = GuardSet.of(*decode_guards(data["layout_guards"])) if data.get("layout_guards") else GuardSet()
    ranges = [(reader.expr(name, "range constraint"), ranges_from_json(r, f"range of {name}"))
              for name, r in data.get("range_constraints", [])]
    dims = []
    for name, label in data.get("dims", []):
        if not isinstance(name, str) or not name.isidentifier():
            raise ProgramFormatError(f"a stored dim's symbol must be an identifier, got {name!r}")
        dims.append((F.sym(name), label))
    return ExportedProgram(
        name=data["name"],
        graph=graph,
        inputs=tuple(inputs),
        outputs=outputs,
        range_constraints=_Views(ranges),
        guards=GuardSet.of(guards, sources, domain),
        runtime_asserts=asserts,
        dims=_Views(dims),
        arg_names=tuple(data.get("arg_names", [])),
        env=env,
        layout_guards=layout,
    )
