"""Run an :class:`~shapeenv.program.program.ExportedProgram` on numpy arrays, node by node.

:func:`numpy_backend` turns a traced program into a callable over real inputs (numpy arrays, or
anything ``numpy.asarray`` accepts, such as CPU torch tensors; plain ints for symbolic int inputs).
Each node runs the numpy kernel of its op (:mod:`shapeenv.ops.kernels.numpy`,
:mod:`shapeenv.ops.kernels.numpy`); higher-order ops loop over their sub-graphs:

* ``scan`` runs ``combine_fn`` on the slices of ``xs`` along ``dim`` (last to first when
  ``reverse``), threading the carry; ``ys[i]`` is the output for ``xs[i]`` (as in torch, also when
  reversed) and ys are stacked along dim 0 (see Note [Where ys are stacked] in
  :mod:`shapeenv.hops.scan`); with ``xs=None`` it runs ``length`` times on ``x=None``;
  zero iterations return a copy of ``init`` and empty ys;
* ``map`` runs its body on each slice along dim 0 and stacks the outputs;
* ``switch`` runs the branch picked by the runtime index, clamped to ``[0, n - 1]``;
* captured inputs (closures) are passed to the sub-graphs explicitly, as the node records them.

Note [What a run checks]
    Before running, the input sizes are bound to the program's symbols (a size shared by two
    inputs must agree) and the program's guards are checked (``check_guards``); the runtime
    asserts (``check(...)`` calls, and the conditions ops assert on data-dependent sizes) are
    evaluated as soon as every symbol they read is known; unbacked sizes (``nonzero``,
    ``item()``, ``switch`` outputs) are bound from the actual results. With ``check_shapes``
    every node's result must have exactly the shape and dtype the program predicts, evaluated at
    the actual sizes; a mismatch is a :class:`ShapeMismatchError`, which means the guards
    admitted inputs on which tracing would have decided differently. Nothing is silently wrong.

Views and in-place ops behave as in torch: a kernel returns a numpy view where torch returns a
view, and ``add_`` & co. write into their target, including an input array the caller passed.
A :class:`NumpyProgram` keeps no per-call state (the bindings live in the call), so several
threads may call it at once; ``rand``/``randn`` share its seeded generator.

>>> import numpy as np
>>> from shapeenv import Dim, export, ops
>>> p = export(lambda x, y: ops.cat([x, y * 2]), ((3, 2), (4, 2)),
...            dynamic_shapes={"x": {0: Dim.DYNAMIC}, "y": {0: Dim.DYNAMIC}})
>>> run = numpy_backend(p)
>>> run(np.ones((2, 2), np.float32), np.ones((5, 2), np.float32)).sum()
np.float32(24.0)
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
from symint.lazy_sympy import lazy_module, sympy

from guards import Source
from guards.source import storage_offset_of
from symint import SymBool, SymFloat, SymInt
from symint.form import BoolForm, Form

from shapeenv.errors import CheckFailedError
from shapeenv.program.graph import Graph, Node
from shapeenv.hops.pytree import flatten
from shapeenv.program.program import ExportedProgram, is_shape_tuple, leaves
from shapeenv.ops.dispatch import is_tensor
from shapeenv.backends.errors import BackendError, InputMismatchError, KernelError, MissingKernelError, ShapeMismatchError
from shapeenv.ops.common import is_contiguous as _provably_contiguous
from shapeenv.ops.kernels.numpy import KERNELS, RANDOM_OPS, element_strides, in_layout, np_dtype

_evaluate = lazy_module("symint.sympy_io.evaluate")  # Note [sympy on first use] in symint.lazy_sympy: floats only
_io = lazy_module("symint.sympy_io")

__all__ = ["numpy_backend", "NumpyBackend", "NumpyProgram", "missing_kernels", "HOPS"]

HOPS = ("scan", "map", "switch")
Scope = dict  # symbol name -> int, for one run (copied for each run of a sub-graph); a size that is not one symbol is keyed by its form


def missing_kernels(ops: Any) -> list[str]:
    """The op names among ``ops`` that have neither a numpy kernel nor a HOP runner.

    >>> missing_kernels(["add", "scan", "fft"])
    ['fft']
    """
    return sorted({op for op in ops if op not in KERNELS and op not in HOPS and op != "placeholder"})


class NumpyBackend:
    """The numpy backend: ``numpy_backend(program)`` is a :class:`NumpyProgram`; it also stores its artifacts.

    A :class:`NumpyProgram` is its program plus three options, so storing one stores the
    options (:meth:`dump_artifact`); loading it builds the same :class:`NumpyProgram` on the
    loaded program (:meth:`load_artifact`). That is how ``compile(fn, backend=numpy_backend,
    store=...)`` opts in to persistent caches (:class:`shapeenv.compile.StorableBackend`).
    """

    #: The backend's stored name (part of a stored function's fingerprint).
    store_name = "numpy/v1"

    def __call__(self, program: ExportedProgram, *, check_guards: bool = True, check_shapes: bool = True,
                 seed: int = 0) -> "NumpyProgram":
        """A callable that runs ``program`` on numpy arrays (see the module docstring).

        Args:
            program: an exported program (:func:`shapeenv.export.export`).
            check_guards: reject inputs that fail the program's guards (a compiled cache checks
                them before calling, and may turn this off).
            check_shapes: compare every node's result with its predicted shape and dtype.
            seed: seeds the generator of ``rand``/``randn``.

        Raises:
            MissingKernelError: the program uses an op without a numpy implementation.
            BackendError: the program reads a tensor that is not an input (no data for it), or computes
                bfloat16 tensors (numpy has no bfloat16).

        >>> from shapeenv import Dim, export
        >>> p = export(lambda x: x.sum(0), ((4, 3),), dynamic_shapes={"x": {0: Dim.DYNAMIC}})
        >>> numpy_backend(p)(np.arange(6, dtype=np.float32).reshape(2, 3))
        array([3., 5., 7.], dtype=float32)
        """
        return NumpyProgram(program, check_guards=check_guards, check_shapes=check_shapes, seed=seed)

    def dump_artifact(self, artifact: "NumpyProgram") -> dict:
        """The options of a :class:`NumpyProgram` (its program is stored by the cache).

        >>> from shapeenv import export
        >>> numpy_backend.dump_artifact(numpy_backend(export(lambda x: x + 1, ((2,),)), seed=3))
        {'check_guards': True, 'check_shapes': True, 'seed': 3}
        """
        return {"check_guards": artifact.check_guards, "check_shapes": artifact.check_shapes, "seed": artifact.seed}

    def load_artifact(self, data: Any, program: ExportedProgram) -> "NumpyProgram":
        """The :class:`NumpyProgram` of ``program`` with the stored options."""
        data = data if isinstance(data, dict) else {}
        return NumpyProgram(program, check_guards=bool(data.get("check_guards", True)),
                            check_shapes=bool(data.get("check_shapes", True)), seed=int(data.get("seed", 0)))

    def __repr__(self) -> str:
        return "numpy_backend"


#: The numpy backend (an instance of :class:`NumpyBackend`): ``numpy_backend(program)`` is a :class:`NumpyProgram`.
numpy_backend = NumpyBackend()


def _walk_ops(graph: Graph) -> list[Node]:
    nodes = []
    for node in graph.nodes:
        nodes.append(node)
        for sub in node.subgraphs.values():
            nodes += _walk_ops(sub)
    return nodes


class NumpyProgram:
    """An exported program made runnable on numpy arrays; build it with :func:`numpy_backend`."""

    def __init__(self, program: ExportedProgram, *, check_guards: bool = True, check_shapes: bool = True,
                 seed: int = 0):
        self.program = program
        self.check_guards = check_guards
        self.check_shapes = check_shapes
        self.seed = seed
        self._rng = np.random.default_rng(seed)
        missing = missing_kernels(n.op for n in _walk_ops(program.graph))
        if missing:
            users = [n.name for n in _walk_ops(program.graph) if n.op in missing]
            raise MissingKernelError(f"the numpy backend has no kernel for op(s) {', '.join(map(repr, missing))} "
                                     f"(used by {', '.join(users)}); add one in shapeenv/backends/")
        no_numpy = [n.name for n in _walk_ops(program.graph)
                     if any(is_tensor(v) and v.dtype.name == "bfloat16" for v in flatten(n.value)[0])]
        if no_numpy:
            raise BackendError(f"{program.name} computes bfloat16 tensors ({', '.join(no_numpy)}), which numpy does not "
                               "have; convert them to float32 in the function")
        consts = [n.name for n, _ in program.graph.captured]
        if consts:
            raise BackendError(f"{program.name} reads tensor(s) {', '.join(consts)} that are not inputs, so there is "
                               "no data for them on numpy; pass them to the function as inputs")
        self._specs = {spec.name: spec for spec in program.inputs}
        self._asserts: dict[str, list] = {}
        for record in program.runtime_asserts:
            for name in _names(record.form):
                self._asserts.setdefault(name, []).append(record)
        self._checker: Any = None
        self._fresh: dict[Node, bool] = {}  # node -> its result is a new tensor (filled once per node, same value)

    def __repr__(self) -> str:
        return f"<numpy {self.program.signature()}>"

    # -- inputs ---------------------------------------------------------------------------------
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Run the program on real inputs given like :func:`shapeenv.export.export`'s ``args``/``kwargs``.

        Raises:
            InputMismatchError: the inputs do not fit the program (the message says how).
            CheckFailedError: a runtime assert fails for these inputs.
            ShapeMismatchError: an op's result differs from the program's prediction (a soundness bug).
            KernelError: an op failed on the actual values (e.g. an index out of range).
        """
        arrays, scope, sources = self._bind(args, kwargs)
        if self.check_guards:
            self._check_guards(arrays, sources)
        self._check_asserts(scope, scope)
        env = {}
        for node in self.program.graph.inputs:
            env[node] = arrays[node.name]
        return self._run_nodes(self.program.graph, env, scope)

    def _bind(self, args: tuple, kwargs: Mapping[str, Any]) -> tuple[dict, Scope, dict]:
        names = self.program.arg_names
        if len(args) != len(names):
            raise InputMismatchError(f"{self.program.name} takes {len(names)} positional inputs ({', '.join(names)}), "
                                     f"got {len(args)}")
        given: dict[str, Any] = {}
        for name, value in [*zip(names, args), *kwargs.items()]:
            given.update(leaves(name, value))
        if set(given) != set(self._specs):
            raise InputMismatchError(f"{self.program.name} takes inputs {sorted(self._specs)}, got {sorted(given)}")
        arrays: dict[str, Any] = {}
        scope: Scope = {}
        sources: dict[Source, int] = {}
        for name, spec in self._specs.items():
            value = given[name]
            if spec.kind == "tensor":
                arrays[name] = self._tensor_input(name, value, spec.value, scope, sources)
            elif spec.kind == "symint":
                if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                    raise InputMismatchError(f"input {name} must be an int, got {value!r}")
                arrays[name] = int(value)
                sources[Source.value(name)] = int(value)
                self._bind_size(spec.value, int(value), scope, f"input {name}")
            elif isinstance(spec.value, (int, float, bool, str, type(None))) and value != spec.value:
                raise InputMismatchError(f"input {name} was specialised to {spec.value!r} when the program was traced, "
                                         f"got {value!r}; trace it again (or mark it dynamic)")
        return arrays, scope, sources

    def _tensor_input(self, name: str, value: Any, fake: Any, scope: Scope, sources: dict) -> np.ndarray:
        if is_shape_tuple(value) or not hasattr(value, "shape"):
            raise InputMismatchError(f"input {name} must be an array with data, got {value!r}")
        array = np.asarray(value)
        if array.ndim != len(fake.shape):
            raise InputMismatchError(f"input {name} must have {len(fake.shape)} dims, got shape {array.shape}")
        expected = np_dtype(fake.dtype)
        if array.dtype != expected:
            raise InputMismatchError(f"input {name} must have dtype {expected}, got {array.dtype} "
                                     "(the program was traced for that dtype)")
        for i, (size, real) in enumerate(zip(fake.shape, array.shape)):
            sources[Source.size(name, i)] = real
            self._bind_size(size, real, scope, f"{name}.size()[{i}]")
        offset = storage_offset_of(array)
        sources[Source(name, "storage_offset")] = offset
        reals = [*zip(fake.stride(), element_strides(array)), (fake.storage_offset(), offset)]
        for k, (traced, real) in enumerate(reals):
            if k < array.ndim:
                sources[Source.stride(name, k)] = real
            sym = _symbol_of(traced)
            if sym is not None:  # a stride or offset symbol of the trace
                scope.setdefault(sym, real)
        return array

    def _bind_size(self, size: Any, real: int, scope: Scope, where: str) -> None:
        if isinstance(size, int):
            if size != real:
                raise InputMismatchError(f"{where} was specialised to {size} when the program was traced, got {real}")
            return
        name = _symbol_of(size)
        known = scope.setdefault(name if name is not None else size.node.form, real)
        if known != real:
            raise InputMismatchError(f"{where} = {real}, but the program shares its size ({size}) with another input "
                                     f"dim of size {known}")

    def _check_guards(self, arrays: dict, sources: dict[Source, int]) -> None:
        guards = self.program.all_guards
        if self._checker is None:
            self._checker = guards.compile()
        if self._checker.check({n: arrays[n] for n in self._checker.input_names}):
            return
        keys = {src for _, src in guards.sources}
        why = guards.explain({s: v for s, v in sources.items() if s in keys})
        raise InputMismatchError(f"the inputs fail the guards of {self.program.name}: {why}")

    def _check_asserts(self, scope: Scope, new: Any) -> None:
        for name in new:
            for record in self._asserts.get(name, ()):
                names = _names(record.form)
                if not names <= scope.keys():
                    continue
                if not _evaluated(record.form, scope):
                    values = ", ".join(f"{s} = {scope[s]}" for s in sorted(names))
                    what = f": {record.message}" if record.message else ""
                    raise CheckFailedError(f"runtime assert {record.expr} failed for {values}{what}")

    # -- running graphs -------------------------------------------------------------------------
    def _run_nodes(self, graph: Graph, env: dict, scope: Scope) -> Any:
        for node in graph.nodes:
            if node.op == "placeholder":
                continue
            if node.op in HOPS:
                result = getattr(self, f"_{node.op}")(node, env, scope)
                self._unify(node, flatten(node.value)[0], result, scope)
                result = tuple(_as_traced(f, r, scope) for f, r in zip(flatten(node.value)[0], result))
            else:
                result = _cast(self._call(node, env, scope), node.value)
                self._unify(node, node.value, result, scope)
                if self._fresh_output(node):
                    result = _as_traced(node.value, result, scope)
            env[node] = result
        return self._resolve(graph.outputs, env, scope)

    def _fresh_output(self, node: Node) -> bool:
        """Whether the node's (single tensor) result has its own storage in the trace (not a view of an argument)."""
        known = self._fresh.get(node)
        if known is None:
            fake = node.value
            args = [a.value for a in flatten((node.args, node.kwargs))[0] if isinstance(a, Node)] if is_tensor(fake) else []
            known = self._fresh[node] = is_tensor(fake) and not any(is_tensor(a) and fake.is_view_of(a) for a in args)
        return known

    def _call(self, node: Node, env: dict, scope: Scope) -> Any:
        args = self._resolve(node.args, env, scope)
        kwargs = self._resolve(node.kwargs, env, scope)
        if node.op in RANDOM_OPS:
            kwargs["_rng"] = self._rng
        try:
            with np.errstate(all="ignore"):
                return KERNELS[node.op](*args, **kwargs)
        except BackendError:
            raise
        except Exception as e:  # numpy's errors: report which node and what it was given
            shown = ", ".join(_show(a) for a in args)
            raise KernelError(f"{node.name} = {node.op}({shown}) failed: {type(e).__name__}: {e}") from e

    def _run_body(self, graph: Graph, inputs: list, captured: tuple, scope: Scope) -> Any:
        """Run a HOP's sub-graph; sizes bound inside it (unbacked ones) stay in its own scope."""
        inner = dict(scope)
        env: dict = {}
        captured_nodes = [n for n, _ in graph.captured]
        own = [n for n in graph.inputs if all(n is not c for c in captured_nodes)]
        if len(own) != len(inputs) or len(captured_nodes) != len(captured):
            raise BackendError(f"sub-graph {graph.name} takes {len(own)} inputs and {len(captured_nodes)} captured "
                               f"values, got {len(inputs)} and {len(captured)}")
        for node, value in [*zip(own, inputs), *zip(captured_nodes, captured)]:
            self._unify(node, node.value, value, inner)
            env[node] = value
        return self._run_nodes(graph, env, inner)

    def _resolve(self, value: Any, env: dict, scope: Scope) -> Any:
        if isinstance(value, Node):
            return env[value]
        if isinstance(value, (SymInt, SymBool, SymFloat)):
            try:
                return _evaluated(value.node.form if value.node.form is not None else value.node.expr, scope)
            except _Unbound as e:
                raise BackendError(f"{value} reads a size that is not known when the program runs: {e}") from None
        if isinstance(value, tuple):
            return tuple(self._resolve(v, env, scope) for v in value)
        if isinstance(value, list):
            return [self._resolve(v, env, scope) for v in value]
        if isinstance(value, dict):
            return {k: self._resolve(v, env, scope) for k, v in value.items()}
        if isinstance(value, slice):
            return slice(*(self._resolve(v, env, scope) for v in (value.start, value.stop, value.step)))
        return value

    # -- predicted shapes -----------------------------------------------------------------------
    def _unify(self, node: Node, fake: Any, real: Any, scope: Scope) -> None:
        """Bind unknown sizes from ``real`` and (with ``check_shapes``) compare the rest with ``fake``."""
        if is_tensor(fake):
            if not isinstance(real, np.ndarray) or real.ndim != len(fake.shape):
                got = real.shape if isinstance(real, np.ndarray) else type(real).__name__
                raise ShapeMismatchError(f"{node.name} = {node.op}(...) should be a {len(fake.shape)}-d tensor "
                                         f"{list(fake.shape)}, got {got}")
            new = [s for s, r in zip(fake.shape, real.shape) if self._unify_size(node, s, r, scope, fake, real)]
            if self.check_shapes and real.dtype != np_dtype(fake.dtype):
                raise ShapeMismatchError(f"{node.name} = {node.op}(...) should have dtype {fake.dtype}, got {real.dtype}")
        elif isinstance(fake, SymInt) and isinstance(real, (int, np.integer)):
            new = [fake] if self._unify_size(node, fake, int(real), scope, fake, real) else []
        elif isinstance(fake, (tuple, list)) and isinstance(real, (tuple, list)) and len(fake) == len(real):
            for f, r in zip(fake, real):
                self._unify(node, f, r, scope)
            return
        else:
            return
        if new:
            self._check_asserts(scope, [_symbol_of(s) for s in new])

    def _unify_size(self, node: Node, size: Any, real: int, scope: Scope, fake: Any, value: Any) -> bool:
        """True if ``size`` is a symbol this call just bound to ``real``."""
        if isinstance(size, SymInt):
            name = _symbol_of(size)
            if name is not None and name not in scope:
                scope[name] = real
                return True
            if not self.check_shapes:
                return False
            try:
                expected = _evaluated(size.node.form, scope)
            except _Unbound:
                return False
        else:
            expected = size
        if self.check_shapes and expected != real:
            shape = value.shape if isinstance(value, np.ndarray) else value
            predicted = fake.shape if is_tensor(fake) else fake
            raise ShapeMismatchError(
                f"{node.name} = {node.op}(...) has shape {shape}, but the program predicts {_show_shape(predicted)} "
                f"= {expected} at {_show_scope(scope)}; the guards admitted sizes on which tracing decides differently")
        return False

    # -- higher-order ops -----------------------------------------------------------------------
    def _scan(self, node: Node, env: dict, scope: Scope) -> tuple:
        init, xs = self._resolve(node.args, env, scope)
        kw = self._resolve(node.kwargs, env, scope)
        dim, n, body = kw["dim"], kw["length"], node.subgraphs["combine_fn"]
        captured = kw.get("captured", {}).get("combine_fn", ())
        carry = flatten(init)[0]
        xs_leaves = flatten(xs)[0] if xs is not None else []
        for leaf in xs_leaves:
            if leaf.shape[dim] != n:
                raise ShapeMismatchError(f"{node.name}: xs has size {leaf.shape[dim]} along dim {dim}, the program "
                                         f"predicts {n}")
        steps = []
        for i in (range(n - 1, -1, -1) if kw["reverse"] else range(n)):
            x = [leaf[(slice(None),) * dim + (i, Ellipsis)] for leaf in xs_leaves]  # views, 0-d arrays included
            next_carry, y = self._run_body(body, carry + x, captured, scope)
            carry = flatten(next_carry)[0]
            steps.append(flatten(y)[0])
        if kw["reverse"]:
            steps.reverse()  # ys[i] belongs to xs[i], as in torch
        y_fakes = [leaf.value for leaf in flatten(body.outputs[1])[0]]
        if n == 0:
            carry = [np.array(c, copy=True) for c in carry]
            ys = [np.zeros((0, *self._sizes(f.shape, scope, node)), np_dtype(f.dtype)) for f in y_fakes]
        else:
            ys = [np.stack([step[k] for step in steps]) for k in range(len(y_fakes))]
        return tuple(carry) + tuple(ys)

    def _map(self, node: Node, env: dict, scope: Scope) -> tuple:
        xs, args = self._resolve(node.args, env, scope)
        captured = self._resolve(node.kwargs, env, scope).get("captured", {}).get("body", ())
        xs_leaves = flatten(xs)[0]
        tensor_args = _tensor_leaves(node.args[1], args)
        n = xs_leaves[0].shape[0]
        if any(leaf.shape[0] != n for leaf in xs_leaves) or n == 0:
            raise KernelError(f"{node.name} = map(...): the mapped inputs have leading sizes "
                              f"{[leaf.shape[0] for leaf in xs_leaves]}; they must be equal and non-zero")
        outs = [flatten(self._run_body(node.subgraphs["body"], [leaf[i, ...] for leaf in xs_leaves] + tensor_args,
                                       captured, scope))[0] for i in range(n)]
        return tuple(np.stack([o[k] for o in outs]) for k in range(len(outs[0])))

    def _switch(self, node: Node, env: dict, scope: Scope) -> tuple:
        index, operands = self._resolve(node.args, env, scope)
        if isinstance(index, np.ndarray):
            if index.size != 1:
                raise KernelError(f"{node.name} = switch(...): the index tensor has {index.size} elements, not one")
            index = index.reshape(-1)[0]
        chosen = min(max(int(index), 0), len(node.subgraphs) - 1)
        label = f"branch_{chosen}"
        captured = self._resolve(node.kwargs, env, scope).get("captured", {}).get(label, ())
        out = self._run_body(node.subgraphs[label], _tensor_leaves(node.args[1], operands), captured, scope)
        return tuple(flatten(out)[0])

    def _sizes(self, shape: tuple, scope: Scope, node: Node) -> tuple:
        return tuple(self._resolve(s, {}, scope) for s in shape)


def _as_traced(fake: Any, real: Any, scope: Scope) -> Any:
    """A new tensor laid out as the trace predicts (numpy picks its own layout for new arrays), so later views,
    ``is_contiguous()`` and ``stride()`` see what the trace saw (Note [What a run checks])."""
    if not (is_tensor(fake) and isinstance(real, np.ndarray)) or real.ndim < 2 or real.size == 0:
        return real
    if real.flags.c_contiguous and _provably_contiguous(fake):
        return real
    try:
        strides = [int(_evaluated(st.node.form, scope)) if isinstance(st, SymInt) else int(st) for st in fake.stride()]
    except _Unbound:
        return real
    current = element_strides(real)
    if all(a == b or n == 1 for a, b, n in zip(current, strides, real.shape)):
        return real
    return in_layout(real, strides)


def _tensor_leaves(traced: Any, real: Any) -> list:
    """The leaves of ``real`` that were tensors when traced (graph nodes): the sub-graph's placeholders."""
    return [r for t, r in zip(flatten(traced)[0], flatten(real)[0]) if isinstance(t, Node)]


def _cast(result: Any, fake: Any) -> Any:
    """``result`` with each tensor converted to the dtype the program predicts (numpy promotes differently)."""
    if is_tensor(fake):
        array = np.asarray(result)
        expected = np_dtype(fake.dtype)
        return array if array.dtype == expected else array.astype(expected)
    if isinstance(fake, (tuple, list)) and isinstance(result, (tuple, list)) and len(fake) == len(result):
        return type(result)(_cast(r, f) for r, f in zip(result, fake)) if type(result) in (tuple, list) else result
    return result


def _show(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"array{list(value.shape)}:{value.dtype}"
    if isinstance(value, (list, tuple)):
        inner = ", ".join(_show(v) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner})"
    return repr(value)


def _show_shape(shape: Any) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]" if isinstance(shape, tuple) else str(shape)


class _Unbound(LookupError):
    """A value reads a symbol this run has not bound yet."""


def _symbol_of(size: Any) -> str | None:
    """The name of the symbol a SymInt is, or None (an int, or an expression of symbols).

    >>> _symbol_of(3) is None
    True
    """
    if not isinstance(size, SymInt):
        return None
    atom = size.node.form.atom()
    return atom.name if atom is not None and atom.kind == "sym" else None


def _names(value: Any) -> frozenset:
    """The names of the symbols a form (or, for floats, a sympy expression) reads."""
    if isinstance(value, (Form, BoolForm)):
        return value.symbols
    return frozenset(s.name for s in value.free_symbols)


def _evaluated(value: Any, scope: Scope) -> Any:
    """``value`` (a form, a boolean form, or a float's sympy expression) under ``scope``.

    Raises:
        _Unbound: a symbol it reads has no value in ``scope`` yet.

    >>> from symint import form as F
    >>> _evaluated(F.add(F.sym("s0"), F.const(1)), {"s0": 4})
    5
    """
    names = _names(value)
    if not names <= scope.keys():
        raise _Unbound(", ".join(sorted(names - scope.keys())))
    if isinstance(value, Form):
        return value.value(scope)
    if isinstance(value, BoolForm):
        return value.evaluate(scope)
    return _evaluate.evaluate(value, {_io.view_symbol(n): v for n, v in scope.items() if type(n) is str})  # floats: sympy


def _show_scope(scope: Scope) -> str:
    return ", ".join(f"{s} = {v}" for s, v in sorted(scope.items(), key=lambda kv: str(kv[0]))) or "no symbols"
