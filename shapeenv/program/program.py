"""``ExportedProgram``: what :func:`shapeenv.export.export.export` returns, and how example inputs are named.

A program holds the traced :class:`~shapeenv.program.graph.Graph` (one node per op; each
higher-order op one node whose bodies are sub-graphs), the input signature, the
outputs and their symbolic shapes, the range of every symbol after tracing
(``range_constraints``, as ``torch.export`` reports them), the produced guard set
and the runtime asserts. It prints readably, renders in notebooks, and tells
whether other inputs satisfy its guards (:meth:`ExportedProgram.accepts`).

Inputs are named after the function's parameters; the leaves of nested
lists, tuples and dicts are named by their path: ``xs[0]``, ``d['k']``.

>>> argument_names(lambda x, *rest, scale=1: None, (1, 2, 3), {"scale": 2})
['x', 'rest[0]', 'rest[1]']
>>> [name for name, _ in leaves("xs", [(2, 3), {"k": TensorSpec((4,))}])]
['xs[0]', "xs[1]['k']"]
"""

from __future__ import annotations

import html
import inspect
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Callable, Iterator, Mapping

from symint.lazy_sympy import sympy

from guards import GuardSet, Source
from guards.source import storage_offset_of
from guards.runtime.explain import Explanation
from symint import SymInt
from valueranges import ValueRanges

from shapeenv.errors import InputsError, ShapeEnvValueError, SignatureError
from shapeenv.core.messages import short_repr
from shapeenv.tensor.dtypes import DType, as_dtype
from shapeenv.tensor.layout import contiguous_strides
from shapeenv.program.graph import Graph
from shapeenv.program.layout_guards import array_strides
from shapeenv.core.provenance import AssertRecord
from shapeenv.ops.dispatch import is_tensor
from shapeenv.hops.pytree import tree_map

__all__ = ["ExportedProgram", "InputSpec", "TensorSpec", "argument_names", "leaves", "is_tensor_like"]


@dataclass(frozen=True, slots=True)
class TensorSpec:
    """An example input given by shape and dtype only (no data).

    >>> TensorSpec((8, 3), "int64")
    TensorSpec(shape=(8, 3), dtype='int64')
    """

    shape: tuple[int, ...]
    dtype: DType | str = "float32"

    def __post_init__(self) -> None:
        if not isinstance(self.shape, tuple) or any(isinstance(d, bool) or not isinstance(d, int) or d < 0 for d in self.shape):
            raise ShapeEnvValueError(f"TensorSpec shape must be a tuple of ints >= 0, got {self.shape!r}", fix="TensorSpec((8, 3), 'float32')")
        as_dtype(self.dtype)  # raises TypeError naming the known dtypes


def is_shape_tuple(value: Any) -> bool:
    """A non-empty tuple of plain ints is read as a tensor shape (lists and other tuples are pytrees)."""
    return isinstance(value, tuple) and bool(value) and all(isinstance(d, int) and not isinstance(d, bool) for d in value)


def is_tensor_like(value: Any) -> bool:
    """Whether ``value`` is an example tensor: a TensorSpec, a shape tuple, or an object with ``.shape`` and ``.dtype``.

    >>> is_tensor_like((2, 3)), is_tensor_like([2, 3]), is_tensor_like(3)
    (True, False, False)
    """
    if isinstance(value, TensorSpec) or is_shape_tuple(value) or is_tensor(value):
        return True
    return hasattr(value, "shape") and hasattr(value, "dtype") and not isinstance(value, type)


def shape_and_dtype(value: Any) -> tuple[tuple[int, ...], DType]:
    """The concrete shape and dtype of an example tensor (see :func:`is_tensor_like`).

    >>> shape_and_dtype((2, 3))
    ((2, 3), float32)
    """
    if is_shape_tuple(value):
        return value, as_dtype("float32")
    shape = tuple(int(d) for d in value.shape)
    return shape, as_dtype(getattr(value.dtype, "name", None) if _is_numpy_dtype(value.dtype) else value.dtype)


def _is_numpy_dtype(dtype: Any) -> bool:
    return type(dtype).__module__.startswith("numpy")


def required_parameters(sig: inspect.Signature) -> list[str]:
    """The names of the parameters a call must fill (no default, not ``*args``/``**kwargs``).

    >>> required_parameters(inspect.signature(lambda x, y=1, *rest: x))
    ['x']
    """
    kinds = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    return [p.name for p in sig.parameters.values() if p.default is p.empty and p.kind not in kinds]


def argument_names(fn: Callable, args: tuple, kwargs: Mapping[str, Any]) -> list[str]:
    """The input name of each positional argument of ``fn(*args, **kwargs)`` (keyword arguments keep their key).

    Parameters give their names; extra positional arguments collected by ``*rest``
    are ``rest[0]``, ``rest[1]``, ...; keyword arguments are named by their key.

    Raises:
        SignatureError: ``fn`` cannot be called with these arguments (the message says why; a TypeError).
    """
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):  # builtins without a signature: positional names by index
        return [f"arg{i}" for i in range(len(args))]
    try:
        sig.bind(*args, **kwargs)
    except TypeError as e:
        name = getattr(fn, "__name__", "fn")
        raise SignatureError(
            f"{name}{sig} cannot take the example inputs: {e} (got {len(args)} positional"
            f"{' and ' + ', '.join(map(str, kwargs)) if kwargs else ''})",
            fix=f"give one example per parameter: export({'fn' if name == '<lambda>' else name}, "
                f"({', '.join(required_parameters(sig)) or ''}{',' if len(required_parameters(sig)) == 1 else ''}))",
        ) from None
    positional = [p for p in sig.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    rest = next((p.name for p in sig.parameters.values() if p.kind is p.VAR_POSITIONAL), "args")
    return [positional[i].name if i < len(positional) else f"{rest}[{i - len(positional)}]" for i in range(len(args))]


def leaves(name: str, value: Any) -> Iterator[tuple[str, Any]]:
    """``(path, leaf)`` pairs of a (nested) argument; tensors and shape tuples are leaves."""
    if is_tensor_like(value):
        yield name, value
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            yield from leaves(f"{name}[{i}]", item)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from leaves(f"{name}[{key!r}]", item)
    else:
        yield name, value


@dataclass(frozen=True, slots=True)
class InputSpec:
    """One input leaf of an exported program.

    Attributes:
        name: the leaf's path (``x``, ``xs[0]``).
        kind: ``"tensor"``, ``"symint"`` (an int made symbolic by a Dim) or ``"constant"`` (specialised).
        meta: ``f32[s0, 4]`` for a tensor, the symbol for a symint, the value for a constant.
        value: the fake tensor, the SymInt, or the constant.
    """

    name: str
    kind: str
    meta: str
    value: Any = field(default=None, compare=False, repr=False)


def format_dims(value: Any, env) -> str:
    """``value`` described like graph node metadata, with the environment's final replacements applied.

    >>> from shapeenv import ShapeEnv
    >>> env = ShapeEnv(); x = env.fake_tensor((4, 3), dynamic={0}, name="x")
    >>> format_dims((x, 2 * x.shape[0]), env)
    '(f32[s0, 3], 2*s0)'
    """
    if is_tensor(value):
        return f"{value.dtype.short}[{', '.join(format_dims(d, env) for d in value.shape)}]"
    if isinstance(value, SymInt):
        return str(env.simplify(value.node.expr))
    if isinstance(value, (list, tuple)):
        return "(" + ", ".join(format_dims(v, env) for v in value) + ")"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {format_dims(v, env)}" for k, v in value.items()) + "}"
    return str(value)


def _shapes(value: Any, env) -> Any:
    return tree_map(lambda v: tuple(_final(d, env) for d in v.shape) if is_tensor(v) else _final(v, env), value)


def _final(value: Any, env) -> Any:
    """A SymInt with the final replacements applied (a plain int when it became a constant)."""
    if not isinstance(value, SymInt):
        return value
    expr = env.simplify(value.node.expr)
    if expr.is_Integer:
        return int(expr)
    return SymInt(type(value.node)(expr, int, value.node.hint, env)) if expr != value.node.expr else value


@dataclass(frozen=True, eq=False)
class ExportedProgram:
    """A traced program (see the module docstring); build it with :func:`shapeenv.export.export.export`.

    Attributes:
        name: the program's name (the function's, unless given).
        graph: the traced graph; node metadata shows the final symbolic shapes.
        inputs: one :class:`InputSpec` per input leaf, in argument order.
        outputs: the fake outputs (tensors, SymInts, constants; nested as returned).
        range_constraints: symbol -> its range after tracing (guards and runtime asserts applied).
        guards: the produced guard set over input sources, as installed at once: the exact
            reduced set (``env.produce_guards()``; no Z3).
        produced: the :class:`~shapeenv.core.deferred.ProducedGuards` behind ``guards``: its
            ``wait()`` gives the Z3-simplified set, proven equivalent (see :meth:`simplified_guards`).
        runtime_asserts: the ``check(...)`` calls recorded while tracing.
        dims: symbol -> the name of the ``Dim`` it was declared with (named dims only).
        arg_names: the input names of the positional arguments (keyword arguments are named by key).
        env: the ShapeEnv of the trace, for further questions.
        layout_guards: the strides each input was traced with, pinned or tied to its sizes
            (Note [Input layouts] in :mod:`shapeenv.program.layout_guards`); :attr:`all_guards` is both sets.
        bound_inputs: the inputs the program supplies itself, or None: called at each check
            (:meth:`bindings`, :meth:`accepts`, :meth:`explain_inputs`), it returns input name ->
            value, and an input the caller does not pass is taken from it (Note [Bound inputs]).
    """

    name: str
    graph: Graph
    inputs: tuple[InputSpec, ...]
    outputs: Any
    range_constraints: Mapping[sympy.Symbol, ValueRanges]
    guards: GuardSet
    runtime_asserts: tuple[AssertRecord, ...]
    dims: Mapping[sympy.Symbol, str] = field(default_factory=lambda: MappingProxyType({}))
    arg_names: tuple[str, ...] = ()
    env: Any = field(default=None, repr=False)
    layout_guards: GuardSet = field(default_factory=GuardSet)
    produced: Any = field(default=None, repr=False, compare=False)
    bound_inputs: Callable[[], Mapping[str, Any]] | None = field(default=None, repr=False, compare=False)

    # Note [Bound inputs]
    # ~~~~~~~~~~~~~~~~~~~
    # A traced nn.Module's parameters and buffers are inputs of its program (static ones: their
    # sizes are guarded like any input's), but its user passes only the forward's arguments, as
    # torch users call ``ep.module()(x)``. ``shapeenv.torch.export`` sets ``bound_inputs`` to a
    # function reading the module's state *when called*, not a copy taken at export: a parameter
    # the user has since replaced by one of another shape is checked as it is now, and fails its
    # guard. An input passed explicitly wins over the bound one.

    @property
    def all_guards(self) -> GuardSet:
        """The produced guards and the layout guards: what an input must satisfy to reuse the program."""
        return self.guards & self.layout_guards if len(self.layout_guards) else self.guards

    def simplified_guards(self, timeout: float | None = None) -> GuardSet:
        """The Z3-simplified guard set, proven equivalent to :attr:`guards` (waits for it, at most ``timeout`` s).

        >>> from shapeenv import Dim, export
        >>> p = export(lambda x: x.view(-1, 4), ((8,),), dynamic_shapes={"x": {0: Dim.DYNAMIC}})
        >>> print(p.simplified_guards().to_text("source")); p.produced.proof.value
        x.size()[0] >= 4
        (x.size()[0] % 4) == 0
        'yes'
        """
        return self.guards if self.produced is None else self.produced.wait(timeout)

    @property
    def output_shapes(self) -> Any:
        """The outputs with each tensor replaced by its shape (SymInts with final replacements).

        The result has the structure the function returned, as ``ep.module()(...)`` does in torch:
        one tensor gives one shape, a tuple of tensors a tuple of shapes, a dict a dict.

        >>> from shapeenv import Dim, export
        >>> export(lambda x: x + x, ((4, 3),), dynamic_shapes={"x": {0: Dim.DYNAMIC}}).output_shapes
        (s0, 3)
        >>> export(lambda x: (x, x.sum(0)), ((4, 3),), dynamic_shapes={"x": {0: Dim.DYNAMIC}}).output_shapes
        ((s0, 3), (3,))
        """
        return _shapes(self.outputs, self.env)

    @property
    def input_shapes(self) -> dict[str, Any]:
        """Each input leaf by name: a tensor's shape (SymInts with final replacements), a symbolic
        int's SymInt, a specialised constant's value. The SymInts belong to :attr:`env`, so they
        can be asked about (``p.env.bound(s)``) or used in expressions.

        >>> from shapeenv import Dim, export
        >>> p = export(lambda x, n: x * n, ((4, 3), 2), dynamic_shapes=({0: Dim("batch", max=64)}, None))
        >>> p.input_shapes, str(p.env.bound(p.input_shapes["x"][0]))
        ({'x': (s0, 3), 'n': 2}, '[2, 64]')
        """
        return {spec.name: _shapes(spec.value, self.env) for spec in self.inputs}

    @property
    def recorded_guards(self) -> int:
        """How many guards were recorded while tracing (before reduction).

        >>> from shapeenv import Dim, export
        >>> export(lambda x: x * 2 if x.shape[0] > 4 else x, ((8,),), dynamic_shapes=({0: Dim.DYNAMIC},)).recorded_guards
        1
        """
        return len(self.env.guards)

    # -- checking other inputs ------------------------------------------------------------------
    def bindings(self, *args: Any, **kwargs: Any) -> dict[Source, int]:
        """The input sources' values (sizes, strides, offsets, ints) for other inputs given like :func:`export`'s ``args``.

        Shape tuples and :class:`TensorSpec` s are contiguous at offset 0.

        Raises:
            ValueError: the inputs do not have the structure or ranks of the exported ones.

        >>> from shapeenv import Dim, export
        >>> p = export(lambda x, n: x * n, ((4, 3), 2), dynamic_shapes=({0: Dim.DYNAMIC}, Dim("n")))
        >>> {src.text(): value for src, value in p.bindings((5, 3), 7).items()}
        {'x.size()[0]': 5, 'x.size()[1]': 3, 'x.stride()[0]': 3, 'x.stride()[1]': 1, 'x.storage_offset()': 0, 'n': 7}
        """
        given = self._leaves(args, kwargs)
        expected = {spec.name: spec for spec in self.inputs}
        if set(given) != set(expected):
            raise InputsError(f"{self.name} takes inputs {sorted(expected)}, got {sorted(given)}",
                              fix=f"pass one value per input, by position or name: {self.signature()}")
        out: dict[Source, int] = {}
        for name, spec in expected.items():
            value = given[name]
            if spec.kind == "tensor":
                if not is_tensor_like(value):
                    raise InputsError(f"input {name} must be a tensor, got {short_repr(value)}")
                shape, _ = shape_and_dtype(value)
                if len(shape) != len(spec.value.shape):
                    raise InputsError(f"input {name} must have {len(spec.value.shape)} dims, got shape {shape}",
                                      fix=f"pass {name} with the rank it was exported with: {spec.meta}")
                out.update({Source.size(name, i): d for i, d in enumerate(shape)})
                strides = array_strides(value) if not is_shape_tuple(value) else None
                strides = contiguous_strides(shape) if strides is None else strides
                out.update({Source.stride(name, i): st for i, st in enumerate(strides)})
                out[Source(name, "storage_offset")] = storage_offset_of(value)
            elif spec.kind == "symint":
                out[Source.value(name)] = int(value)
        return out

    def _leaves(self, args: tuple, kwargs: Mapping[str, Any]) -> dict[str, Any]:
        if len(args) != len(self.arg_names):
            raise InputsError(f"{self.name} was exported with {len(self.arg_names)} positional inputs, got {len(args)}",
                              fix=f"pass one value per input: {self.signature()}")
        given: dict[str, Any] = {}
        for name, value in [*zip(self.arg_names, args), *kwargs.items()]:
            given.update(leaves(name, value))
        if self.bound_inputs is not None:
            names = {spec.name for spec in self.inputs}
            for name, value in self.bound_inputs().items():
                if name in names and name not in given:
                    given[name] = value
        return given

    def accepts(self, *args: Any, **kwargs: Any) -> bool:
        """Whether these inputs satisfy the guards (layout guards included) and equal the specialised constants.

        Inputs are given like :func:`export`'s ``args``: arrays, tensors, shape tuples (contiguous), ints.
        Sizes, strides, storage offsets and ints are checked (dtypes are not guarded, as in torch's shape
        guards: ``compile`` keys on them); inputs of another structure or rank are not accepted.

        >>> from shapeenv import Dim, export
        >>> p = export(lambda x: x + x, ((4, 3),), dynamic_shapes={"x": {0: Dim.DYNAMIC}})
        >>> p.accepts((9, 3)), p.accepts((9, 4)), p.accepts((1, 3))
        (True, False, False)
        """
        try:
            return not self.explain_inputs(*args, **kwargs).failures and self._constants_match(args, kwargs)
        except ValueError:
            return False

    def explain_inputs(self, *args: Any, **kwargs: Any) -> Explanation:
        """Which guards (layout guards included) fail for these inputs, in words (``x.size()[0] == 8 failed: got 9``)."""
        guards = self.all_guards
        known = {src for _, src in guards.sources}
        bindings = {src: value for src, value in self.bindings(*args, **kwargs).items() if src in known}
        return guards.explain(bindings)

    def _constants_match(self, args: tuple, kwargs: Mapping[str, Any]) -> bool:
        given = self._leaves(args, kwargs)
        return all(
            given[spec.name] == spec.value
            for spec in self.inputs
            if spec.kind == "constant" and isinstance(spec.value, (int, float, bool, str, type(None)))
        )

    # -- printing -------------------------------------------------------------------------------
    def signature(self) -> str:
        """``name(x: f32[s0, 4], n: 3)``: each input leaf with its symbolic shape or value.

        >>> from shapeenv import Dim, export
        >>> export(lambda x, n: x * n, ((4, 3), 2), dynamic_shapes=({0: Dim.DYNAMIC}, None), name="f").signature()
        'f(x: f32[s0, 3], n: 2)'
        """
        return f"{self.name}({', '.join(f'{s.name}: {s.meta}' for s in self.inputs)})"

    def format(self, dialect: str = "torch") -> str:
        """The program as text: signature, graph, outputs, range constraints, guards and runtime asserts.

        ``dialect`` is how guards print: ``"torch"`` (``L['x'].size()[0]``), ``"source"`` or ``"sympy"``.

        >>> from shapeenv import Dim, export
        >>> print(export(lambda x: x * 2, ((4, 3),), dynamic_shapes=({0: Dim.DYNAMIC},), name="f").format("source"))
        ExportedProgram f(x: f32[s0, 3])
        <BLANKLINE>
            graph f(x: f32[s0, 3]):
                mul_0: f32[s0, 3] = mul(x, 2)
                return mul_0
        <BLANKLINE>
        outputs: f32[s0, 3]
        range constraints:
            s0: [2, oo]   (x.size()[0])
        guards (0 recorded, 2 produced):
            x.size()[1] == 3
            x.size()[0] >= 2
        layout guards (strides as traced):
            x.stride()[0] == 3
            x.stride()[1] == 1
        runtime asserts: none
        """
        lines = [f"ExportedProgram {self.signature()}", "", self.graph.format("    "), ""]
        lines.append(f"outputs: {format_dims(self.outputs, self.env)}")
        lines.append("range constraints:" + ("" if self.range_constraints else " none"))
        for sym, rng in self.range_constraints.items():
            lines.append(f"    {sym}: {rng}{self._symbol_label(sym)}")
        produced = self.guards.to_text(dialect).splitlines() if len(self.guards) else []
        lines.append(f"guards ({self.recorded_guards} recorded, {len(produced)} produced):" + ("" if produced else " none"))
        lines += [f"    {g}" for g in produced]
        layout = self.layout_guards.to_text(dialect).splitlines() if len(self.layout_guards) else []
        if layout:
            lines.append("layout guards (strides as traced):")
            lines += [f"    {g}" for g in layout]
        lines.append("runtime asserts:" + ("" if self.runtime_asserts else " none"))
        for record in self.runtime_asserts:
            msg = f"  # {record.message}" if record.message else ""
            lines.append(f"    check({record.expr}){msg}")
        return "\n".join(lines)

    def _symbol_label(self, sym: sympy.Symbol) -> str:
        info = self.env.symbols.get(sym) if self.env is not None else None
        parts = []
        if sym in self.dims:
            parts.append(f"Dim {self.dims[sym]!r}")
        if info is not None and info.sources:
            parts.append(" = ".join(s.text() for s in info.sources))
        elif info is not None:
            parts.append("data-dependent")
        return f"   ({'; '.join(parts)})" if parts else ""

    def __str__(self) -> str:
        return self.format()

    def __repr__(self) -> str:
        return (
            f"<ExportedProgram {self.signature()}: {sum(1 for n in self.graph if n.op != 'placeholder')} nodes, "
            f"{len(self.guards)} guards, {len(self.runtime_asserts)} runtime asserts>"
        )

    def _repr_html_(self) -> str:
        """Notebook view: the text listing, escaped, in a ``<pre>`` block."""
        return f"<pre>{html.escape(self.format())}</pre>"

    def _repr_pretty_(self, printer, cycle: bool) -> None:
        """IPython's plain-text view: the same listing as ``print``."""
        printer.text(self.format() if not cycle else repr(self))

