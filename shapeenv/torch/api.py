"""``shapeenv.torch.export`` and ``shapeenv.torch.compile``: torch's entry points, answered by this library.

``export(model, args, kwargs=None, dynamic_shapes=None)`` traces an ``nn.Module`` (or a
function) on fake tensors and returns this library's
:class:`~shapeenv.program.program.ExportedProgram`: its graph of shapeenv ops, symbolic output
shapes, range constraints and the guard set, with inputs named as torch names them
(``x``; parameters ``self._modules['fc']._parameters['weight']``, printed in torch's
dialect as ``L['self']._modules['fc']._parameters['weight']``). ``dynamic_shapes`` takes
``torch.export.Dim`` specs (:mod:`shapeenv.torch.dims`).

``compile(model)`` puts the model behind this library's guarded cache
(:mod:`shapeenv.compile`): called with real torch tensors, it binds their sizes and
strides, reuses an entry whose guards hold or traces a new one (automatic dynamic,
recompile reasons, ``cache_info()`` as :func:`shapeenv.compile` has them), and runs the
entry's artifact: the model itself in torch by default, or what ``backend(program)``
returned. Parameters are static inputs of every entry; the module's ``training`` flag is
part of the cache key. Marks work as for :func:`shapeenv.compile` (``shapeenv.mark_dynamic(x, 0)``
on the torch tensor), and torch's own (``torch._dynamo.mark_dynamic`` / ``maybe_mark_dynamic`` /
``mark_static``) are adopted as this library's.
"""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any, Callable, Mapping, Sequence

import torch

from shapeenv.compile import CompiledFunction
from shapeenv.compile import compile as se_compile
from shapeenv.compile.marks import MARKS, SourcePatterns, mark_dynamic, mark_static, maybe_mark_dynamic
from shapeenv.errors import SignatureError
from shapeenv.export.export import export as se_export
from shapeenv.program.program import ExportedProgram
from shapeenv.core.settings import ShapeEnvSettings
from shapeenv.torch.dims import translate
from shapeenv.torch.program import STATE_PATTERN, TorchFunction, _is_state
from shapeenv.torch.pytrees import flatten_inputs, plain_leaves, refuse_opaque_inputs
from shapeenv.torch.table import TorchOpTable

__all__ = ["export", "compile", "TorchCompiled"]


def _by_name(fn: TorchFunction, args: tuple, kwargs: Mapping[str, Any], dynamic_shapes: Any) -> Any:
    """``dynamic_shapes`` keyed by input name (a tuple is by position, as torch accepts), torch Dims translated."""
    specs = translate(dynamic_shapes)
    if specs is None or isinstance(specs, Mapping):
        return specs
    if not isinstance(specs, (tuple, list)):
        return specs  # let shapeenv.export.export word the type error
    sig = fn.__signature__
    names = [p.name for p in sig.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    rest = next((p.name for p in sig.parameters.values() if p.kind is p.VAR_POSITIONAL), None)
    given = [names[i] if i < len(names) else f"{rest}[{i - len(names)}]" for i in range(len(args))] + list(kwargs)
    if len(specs) != len(given):
        from shapeenv.errors import DynamicShapesError

        raise DynamicShapesError(f"dynamic_shapes has {len(specs)} entries for {len(given)} inputs ({', '.join(given)}); "
                                 "give one per input (None for static), or a dict by name")
    out: dict[str, Any] = {}
    for name, spec in zip(given, specs):
        if "[" in name:  # *args: grouped under the parameter's name, as shapeenv.export.export reads them
            out.setdefault(rest, []).append(spec)
        else:
            out[name] = spec
    return {k: (tuple(v) if isinstance(v, list) and k == rest else v) for k, v in out.items()}


def export(
    model: Callable,
    args: tuple,
    kwargs: Mapping[str, Any] | None = None,
    *,
    dynamic_shapes: Mapping[str, Any] | Sequence[Any] | None = None,
    strict: bool = False,
    name: str | None = None,
    settings: ShapeEnvSettings | None = None,
    table: TorchOpTable | None = None,
) -> ExportedProgram:
    """Trace ``model(*args, **kwargs)`` (torch code) into an :class:`ExportedProgram`, as ``torch.export.export`` does.

    Args:
        model: an ``nn.Module`` or a function written with torch.
        args: example inputs: torch tensors (their shapes, strides and dtypes are read), ints,
            constants, nested lists/tuples/dicts of them, or shape tuples / ``TensorSpec`` s.
        kwargs: example keyword inputs.
        dynamic_shapes: which dims are symbolic, with ``torch.export.Dim`` specs (see
            :mod:`shapeenv.torch.dims`); None: all static.
        strict: accepted for torch's signature; tracing is always what torch calls non-strict.
        name: the program's name (default: the module's class name or the function's name).
        settings: the ShapeEnv settings.
        table: a dispatch table other than the process-wide one.

    Returns:
        The program; parameters and buffers are static inputs named by torch's sources, bound to
        the module: ``p.accepts(x)``, ``p.bindings(x)`` and ``p.explain_inputs(x)`` read them from
        the module as it is at the call (Note [Bound inputs] in :mod:`shapeenv.program.program`).

    Raises:
        UnsupportedTorchOpError: the model calls a torch op with no shape rule (the message names it
            and the line, and shows how to register one).
        ExportConstraintError, ShapeError, ...: as :func:`shapeenv.export.export` raises them.

    >>> import torch
    >>> from torch.export import Dim
    >>> p = export(torch.nn.Linear(3, 2), (torch.randn(4, 3),), dynamic_shapes={"input": {0: Dim("b")}})
    >>> p.output_shapes, p.guards.to_text("torch").splitlines()[1]
    ((s0, 2), "L['self']._parameters['weight'].size()[0] == 2")
    >>> p.accepts(torch.randn(9, 3)), p.accepts(torch.randn(9, 4))
    (True, False)
    """
    if isinstance(args, list):
        args = tuple(args)
    if not isinstance(args, tuple):
        raise SignatureError(f"args must be a tuple of example inputs, got {type(args).__name__}",
                             fix="wrap a single input in a tuple: shapeenv.torch.export(model, (x,))")
    fn = TorchFunction(model, name, table, exporting=True)
    (args, kwargs), fn.template = flatten_inputs((args, dict(kwargs or {})))
    refuse_opaque_inputs(fn.__name__, (args, kwargs))
    specs = _by_name(fn, args, kwargs, dynamic_shapes)
    program = se_export(fn, args, specs, {**kwargs, **fn.state()}, name=fn.__name__, settings=settings)
    return dataclasses.replace(program, bound_inputs=fn.state) if fn.is_module else program


class TorchCompiled:
    """A torch model behind the guarded cache; made by :func:`compile`.

    Calling it runs the model (or the backend's artifact) on real tensors. ``cache_info()``,
    ``caches()``, ``recompile_reasons()``, ``reset()`` and ``wait_simplified()`` are those of the
    underlying :class:`~shapeenv.compile.CompiledFunction` (:attr:`compiled`).
    """

    def __init__(self, fn: TorchFunction, compiled: CompiledFunction):
        self.function = fn
        self.compiled = compiled
        self.__name__ = fn.__name__
        self.__wrapped__ = fn.target
        self.__signature__ = inspect.signature(fn.target.forward if isinstance(fn.target, torch.nn.Module) else fn.target)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        for value in (*args, *kwargs.values()):
            if getattr(value, "_dynamo_dynamic_indices", None) or getattr(value, "_dynamo_weak_dynamic_indices", None) \
                    or getattr(value, "_dynamo_static_indices", None):
                _adopt_torch_marks(value)
        state = self.function.state()
        if plain_leaves(args, kwargs):
            return self.compiled(*args, **kwargs, **state) if state else self.compiled(*args, **kwargs)
        (flat_args, flat_kwargs), template = flatten_inputs((args, kwargs))
        refuse_opaque_inputs(self.__name__, (flat_args, flat_kwargs))
        if template.empty:
            return self.compiled(*args, **kwargs, **state) if state else self.compiled(*args, **kwargs)
        with self.function.calling(template, args, kwargs):  # Note [Pytree inputs of a compiled call]
            return self.compiled(*flat_args, **flat_kwargs, **state)

    def cache_info(self):
        """The entries, their guards (parameters included, in torch's spelling), hits and recompile reasons."""
        return self.compiled.cache_info()

    def caches(self):
        """The guarded cache of each input key."""
        return self.compiled.caches()

    def recompile_reasons(self):
        """Why each recompilation happened."""
        return self.compiled.recompile_reasons()

    def reset(self) -> None:
        """Forget every entry and observation."""
        self.compiled.reset()

    def wait_simplified(self, timeout: float | None = None) -> bool:
        """Wait for the Z3-simplified guard sets of the entries."""
        return self.compiled.wait_simplified(timeout)

    def __repr__(self) -> str:
        return f"<shapeenv.torch compiled {self.__name__}: {len(self.compiled.cache_info().entries)} entries>"


def _adopt_torch_marks(tensor: Any) -> None:
    """``torch._dynamo.mark_dynamic`` / ``maybe_mark_dynamic`` / ``mark_static`` on a tensor, as this library's marks."""
    if MARKS.get(tensor) is not None:
        return
    ranges = {r.dim: r for r in getattr(tensor, "_dynamo_dynamic_range", ()) or ()}
    for dim in sorted(getattr(tensor, "_dynamo_dynamic_indices", ()) or ()):
        r = ranges.get(dim)
        mark_dynamic(tensor, dim, min=getattr(r, "min", None), max=getattr(r, "max", None))
    weak = sorted(getattr(tensor, "_dynamo_weak_dynamic_indices", ()) or ())
    if weak:
        maybe_mark_dynamic(tensor, weak)
    static = sorted(getattr(tensor, "_dynamo_static_indices", ()) or ())
    if static:
        mark_static(tensor, static)


def _stripping(backend: Callable) -> Callable:
    """A backend whose callable artifact is called with the user's arguments only (no parameter inputs)."""

    def wrapped(program: ExportedProgram) -> Any:
        artifact = backend(program)
        if not callable(artifact):
            return artifact

        def run(*args: Any, **kwargs: Any) -> Any:
            return artifact(*args, **{k: v for k, v in kwargs.items() if not _is_state(k)})

        run.artifact = artifact  # type: ignore[attr-defined]
        return run

    return wrapped


def compile(  # noqa: A001 - the name mirrors torch.compile
    model: Callable | None = None,
    *,
    backend: Callable[[ExportedProgram], Any] | None = None,
    dynamic: bool | None = None,
    fullgraph: bool = True,
    recompile_limit: int = 8,
    dynamic_sources: str | Sequence[str] | None = None,
    static_sources: str | Sequence[str] | None = None,
    name: str | None = None,
    table: TorchOpTable | None = None,
) -> "TorchCompiled | Callable[[Callable], TorchCompiled]":
    """Put a torch model behind this library's guarded cache, as ``torch.compile`` does (see the module docstring).

    Args:
        model: an ``nn.Module`` or a torch function; omit it to use ``compile(...)`` as a decorator.
        backend: takes the traced :class:`ExportedProgram` and returns the artifact; a callable artifact
            is called with the call's arguments. None: run the model itself in torch.
        dynamic: None: automatic dynamic (static first; a dim that changes becomes dynamic); True: every
            input dim dynamic from the start (parameters stay static); False: never.
        fullgraph: accepted for torch's signature; a trace never breaks the graph (an unsupported op is an error).
        recompile_limit, dynamic_sources, static_sources, name: as for :func:`shapeenv.compile`.
        table: a dispatch table other than the process-wide one.

    Returns:
        A :class:`TorchCompiled`.

    >>> import torch
    >>> f = compile(torch.nn.Linear(3, 2))
    >>> f(torch.randn(4, 3)).shape, f(torch.randn(5, 3)).shape, f(torch.randn(6, 3)).shape
    (torch.Size([4, 2]), torch.Size([5, 2]), torch.Size([6, 2]))
    >>> [e.reason.text for e in f.cache_info().entries]
    ['first call', 'input.size()[0] == 4 failed: got 5']
    """
    if model is None:
        return lambda m: compile(m, backend=backend, dynamic=dynamic, fullgraph=fullgraph,  # type: ignore[return-value]
                                 recompile_limit=recompile_limit, dynamic_sources=dynamic_sources,
                                 static_sources=static_sources, name=name, table=table)
    fn = TorchFunction(model, name, table, training_key=True)
    static = SourcePatterns(SourcePatterns.parse(static_sources).patterns + SourcePatterns.parse([STATE_PATTERN]).patterns)
    compiled = se_compile(fn, dynamic=dynamic, backend=None if backend is None else _stripping(backend),
                          recompile_limit=recompile_limit, dynamic_sources=dynamic_sources, static_sources=static,
                          name=fn.__name__)
    return TorchCompiled(fn, compiled)
