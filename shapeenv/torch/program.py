"""``TorchFunction``: torch code (an ``nn.Module`` or a function) as a function :func:`shapeenv.export.export` can trace.

A module's parameters and buffers are extra keyword inputs named by torch's sources
(``self._modules['fc']._parameters['weight']``; see :func:`module_state`), so the trace
treats them as static inputs: their sizes are constants of the program (never symbols),
and a guarded cache checks them like any input, in torch's spelling
(``L['self']._modules['fc']._parameters['weight'].size()[0] == 4``). Error messages name
them the same way.

Called on fake inputs, a :class:`TorchFunction` runs the torch code under a
:class:`~shapeenv.torch.mode.ShapeTraceMode` (with torch's higher-order ops patched, see
:mod:`shapeenv.torch.hops`); called on real tensors, it runs the torch code itself.

>>> from shapeenv.torch.program import state_source
>>> state_source(["fc"], "_parameters", "weight")
"self._modules['fc']._parameters['weight']"
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import inspect
from types import MappingProxyType
from typing import Any, Callable, Iterator

import torch

from shapeenv.errors import SignatureError, TorchInteropError
from shapeenv.ops.dispatch import env_of, is_tensor
from shapeenv.hops.pytree import any_leaf
from shapeenv.torch.hops import patched
from shapeenv.torch.mode import ShapeTraceMode
from shapeenv.torch.pytrees import REGISTER_FIX, Template, flatten_output, holder_of
from shapeenv.torch.table import TorchOpTable
from shapeenv.torch.tensor import TracedTensor, unwrap, wrap

__all__ = ["TorchFunction", "module_state", "state_source", "STATE_PATTERN", "TRAINING"]

#: Matches the input names of parameters and buffers (for ``static_sources``).
STATE_PATTERN = r"self\.(_modules|_parameters|_buffers)\[.*"
#: The input name of the module's ``training`` flag (a constant of each cache entry's key).
TRAINING = "self.training"
#: The compiled call running in this context: ``(function, template, args, kwargs)`` (see :meth:`TorchFunction.calling`).
_CALL: contextvars.ContextVar = contextvars.ContextVar("shapeenv_torch_call", default=None)


@functools.lru_cache(maxsize=4096)
def _prefix(path: tuple[str, ...]) -> str:
    return "self" + "".join(f"._modules[{p!r}]" for p in path)


@functools.lru_cache(maxsize=65536)
def _source(path: tuple[str, ...], kind: str, name: str) -> str:
    return f"{_prefix(path)}.{kind}[{name!r}]"


def state_source(path: list[str], kind: str, name: str) -> str:
    """The source base of a parameter (``kind="_parameters"``) or buffer of the submodule at ``path``."""
    return _source(tuple(path), kind, name)


def module_state(module: torch.nn.Module) -> dict[str, torch.Tensor]:
    """Every parameter and buffer of ``module`` by its source base (a tensor shared by two paths: the first one).

    >>> m = torch.nn.Sequential(torch.nn.Linear(3, 4))
    >>> list(module_state(m))
    ["self._modules['0']._parameters['weight']", "self._modules['0']._parameters['bias']"]
    """
    out: dict[str, torch.Tensor] = {}
    seen: set[int] = set()

    def visit(mod: torch.nn.Module, path: tuple[str, ...]) -> None:
        for kind, tensors in (("_parameters", mod._parameters), ("_buffers", mod._buffers)):
            for name, tensor in tensors.items():
                if tensor is not None and id(tensor) not in seen:
                    seen.add(id(tensor))
                    out[_source(path, kind, name)] = tensor
        for name, child in mod._modules.items():
            if child is not None:
                visit(child, path + (name,))

    visit(module, ())
    return out


class TorchFunction:
    """Torch code as a traceable function (see the module docstring).

    Args:
        target: an ``nn.Module`` (its ``forward`` signature names the inputs), a module's method (its
            module's state is the input ``self``), or a function.
        name: the program's name (default: the module's class name or the function's name).
        table: the dispatch table (default: the process-wide one).
        training_key: pass the module's ``training`` flag as an input (a cache key constant).
        exporting: traces are exports (``torch.compiler.is_exporting()`` is True in them); else compiles.
    """

    #: a module's dicts whose keys read as attributes in the paths of :mod:`shapeenv.export.state` (``self.blocks.0``)
    attribute_dicts = MappingProxyType({"_modules": "submodule", "_parameters": "parameter", "_buffers": "buffer"})

    def __init__(self, target: Callable, name: str | None = None, table: TorchOpTable | None = None,
                 training_key: bool = False, exporting: bool = False):
        if not callable(target):
            raise SignatureError(f"shapeenv.torch needs an nn.Module or a function, got {target!r}",
                                 fix="pass the model itself: shapeenv.torch.export(model, (x,))")
        self.target = target
        owner = getattr(target, "__self__", None)  # a module's method other than forward (model.generate)
        #: the module whose parameters and buffers are inputs (``self``), or None for a plain function
        self.module = target if isinstance(target, torch.nn.Module) else owner if isinstance(owner, torch.nn.Module) else None
        self.is_module = self.module is not None
        forward = target.forward if isinstance(target, torch.nn.Module) else target
        self.__name__ = name or (type(target).__name__ if isinstance(target, torch.nn.Module)
                                 else getattr(target, "__name__", "fn"))
        self.__qualname__ = self.__name__
        self.__module__ = getattr(forward, "__module__", None)
        self.__wrapped__ = forward  # what a store fingerprints: the user's code
        self._table = table
        self._training_key = training_key and self.is_module
        self.exporting = exporting
        #: registered pytree objects among the inputs that the caller flattened (:mod:`shapeenv.torch.pytrees`)
        self.template = Template(())
        try:
            sig = inspect.signature(forward)
        except (TypeError, ValueError):
            sig = inspect.Signature([inspect.Parameter("args", inspect.Parameter.VAR_POSITIONAL)])
        params = list(sig.parameters.values())
        if not any(p.kind is p.VAR_KEYWORD for p in params):
            params.append(inspect.Parameter("state", inspect.Parameter.VAR_KEYWORD))
        self.__signature__ = sig.replace(parameters=params, return_annotation=inspect.Signature.empty)

    def state(self) -> dict[str, Any]:
        """The keyword inputs that stand for the module's state: parameters, buffers (and ``self.training``)."""
        if not self.is_module:
            return {}
        out: dict[str, Any] = module_state(self.module)
        if self._training_key:
            out[TRAINING] = bool(self.module.training)
        return out

    @contextlib.contextmanager
    def calling(self, template: Template, args: tuple, kwargs: dict) -> Iterator[None]:
        """One call of a compiled function whose inputs were flattened by ``template`` (:mod:`shapeenv.torch.pytrees`).

        Note [Pytree inputs of a compiled call]: the guarded cache sees the flattened inputs
        (a ``DynamicCache``'s tensors are its inputs); a trace during the call rebuilds the
        objects from their traced children (so it never writes traced tensors into the
        caller's objects), and running the model calls it with the caller's own objects, so
        in-place updates (``cache.update``) reach them as in eager torch. The flatten context
        (a cache's layout) is not part of the cache key: a model keeps one layout.
        """
        token = _CALL.set((self, template, args, kwargs))
        try:
            yield
        finally:
            _CALL.reset(token)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        user = {k: v for k, v in kwargs.items() if not _is_state(k)}
        call = _CALL.get()
        call = call if call is not None and call[0] is self else None
        if _has_fake(args) or _has_fake(user) or _has_fake(kwargs):
            return self._trace(args, user, {k: v for k, v in kwargs.items() if _is_state(k)},
                               self.template if call is None else call[1])
        if call is not None:
            return self.target(*call[2], **call[3])
        return self.target(*args, **user)

    def _trace(self, args: tuple, kwargs: dict, state: dict, template: Template) -> Any:
        env = env_of(args, kwargs, state)
        if env is None:
            raise SignatureError(f"{self.__name__}: tracing needs at least one tensor input or parameter")
        reals = module_state(self.module) if self.module is not None else {}
        params = {id(reals[k]): fake for k, fake in state.items() if k in reals and is_tensor(fake)}
        mode = ShapeTraceMode(env, params, self._table, keep=tuple(reals.values()), exporting=self.exporting)
        device = _device_of(reals)
        with patched(mode), mode:
            mode.device = device
            args, kwargs = template.rebuild(wrap(args, device), wrap(kwargs, device))
            out = flatten_output(self.target(*args, **kwargs))
        out = unwrap(out, mode.real)
        holder = holder_of(out, lambda v: isinstance(v, TracedTensor)) if self.exporting else None
        if holder is not None:
            kind = type(holder)
            raise TorchInteropError(
                f"{self.__name__} returned a {kind.__module__}.{kind.__qualname__} holding traced tensors; "
                "it is not a registered pytree node, so its tensors cannot be outputs of the program "
                "(torch.export refuses it too)",
                fix=f"{REGISTER_FIX}, or return tensors only (use_cache=False)")
        return _outputs(out)

    def __repr__(self) -> str:
        return f"<shapeenv.torch function {self.__name__}{self.__signature__}>"


def _is_state(key: str) -> bool:
    return key.startswith("self.") or key.startswith("self[")


def _has_fake(value: Any) -> bool:
    return any_leaf(_is_fake, value)


def _is_fake(value: Any) -> bool:
    """A fake tensor, or a value with a symbolic node in an environment (a SymInt of ours); not a real tensor."""
    if isinstance(value, torch.Tensor):
        return False
    return is_tensor(value) or (hasattr(value, "node") and getattr(value.node, "env", None) is not None)


def _device_of(state: dict[str, torch.Tensor]) -> torch.device:
    for t in state.values():
        return t.device
    return torch.device("cpu")


def _outputs(value: Any) -> Any:
    """The traced outputs as plain containers (torch's structseqs and namedtuples become tuples)."""
    if isinstance(value, TracedTensor):  # pragma: no cover - unwrap already replaced them
        return value.fake
    if isinstance(value, tuple) and type(value) is not tuple and not hasattr(value, "_fields"):
        return tuple(_outputs(v) for v in value)
    if isinstance(value, list):
        return [_outputs(v) for v in value]
    if isinstance(value, tuple):
        return type(value)(*(_outputs(v) for v in value)) if hasattr(value, "_fields") else tuple(_outputs(v) for v in value)
    if isinstance(value, dict):
        return {k: _outputs(v) for k, v in value.items()}
    return value
